"""The named operators, monoids and semirings (``{monoid}_{multiply}``)."""

from __future__ import annotations

import operator
from types import SimpleNamespace

import numpy as np

from ..core.arrays import array_module
from ._optypes import ANY_TERMINAL, BinaryOp, IndexUnaryOp, Monoid, Semiring, _highest, _lowest

INDEX_DTYPE = np.dtype(np.int64)


def _common(xd, ad):
    return np.result_type(xd, ad)


def _in_dtype(fn):
    """The numpy form of a binary operator: ``fn`` of both operands in the output dtype
    (not copied when they already have it)."""
    return lambda x, a, i, j, dt: fn(x.astype(dt, copy=False), a.astype(dt, copy=False))


def _pair(x, a, i, j, dtype):
    # Backends always pass the output index array j, which sets the length.
    return array_module(j).ones(j.shape, dtype=dtype)


ops = SimpleNamespace(
    first=BinaryOp("first", lambda x, a, i, j, dt: x.astype(dt, copy=False), "x", "x",
                   lambda xd, ad: xd),
    second=BinaryOp("second", lambda x, a, i, j, dt: a.astype(dt, copy=False), "a", "a",
                    lambda xd, ad: ad),
    pair=BinaryOp("pair", _pair, "1", "j", lambda xd, ad: xd),
    plus=BinaryOp("plus", _in_dtype(operator.add), "(x + a)", "xa", _common),
    times=BinaryOp("times", _in_dtype(operator.mul), "(x * a)", "xa", _common),
    min=BinaryOp("min", _in_dtype(np.minimum), "((a < x || a != a) ? a : x)", "xa", _common),
    max=BinaryOp("max", _in_dtype(np.maximum), "((a > x || a != a) ? a : x)", "xa", _common),
    land=BinaryOp("land", lambda x, a, i, j, dt: (x.astype(bool) & a.astype(bool)).astype(dt),
                  "((x != 0) && (a != 0))", "xa", lambda xd, ad: np.dtype(np.bool_)),
    minus=BinaryOp("minus", _in_dtype(operator.sub), "(x - a)", "xa", _common),
    div=BinaryOp("div", lambda x, a, i, j, dt: (x / a).astype(dt), "((T)x / (T)a)", "xa",
                 lambda xd, ad: np.result_type(xd, ad, np.float64)),
    # secondi: index of the vector entry (the frontier vertex for BFS parents);
    # GraphBLAS' "secondi" of u*A is the row index of A's entry.
    secondi=BinaryOp("secondi", lambda x, a, i, j, dt: i.astype(dt, copy=False), "i", "i",
                     lambda xd, ad: INDEX_DTYPE),
)

def _same(vd):
    return vd


def _boolean(vd):
    return np.dtype(np.bool_)


def _float(vd):
    return np.result_type(vd, np.float64) if vd.kind != "f" else vd


def _ones(v, i, j, t, dt):
    return array_module(v).ones(v.shape, dtype=dt)


#: Unary operators for :func:`spbfs.semiring.apply` (``v`` is the entry's value).
unary = SimpleNamespace(
    identity=IndexUnaryOp("identity", lambda v, i, j, t, dt: v.astype(dt, copy=False), "v",
                          _same, "v"),
    ainv=IndexUnaryOp("ainv", lambda v, i, j, t, dt: (-v).astype(dt, copy=False), "(-v)",
                      _same, "v"),
    abs=IndexUnaryOp("abs", lambda v, i, j, t, dt: abs(v).astype(dt, copy=False),
                     "(v < 0 ? -v : v)", _same, "v"),
    minv=IndexUnaryOp("minv", lambda v, i, j, t, dt: (1.0 / v).astype(dt, copy=False),
                      "(1.0 / (double)v)", _float, "v"),
    one=IndexUnaryOp("one", _ones, "1", _same, "v"),
    lnot=IndexUnaryOp("lnot", lambda v, i, j, t, dt: v == 0, "(v == 0)", _boolean, "v"),
    positioni=IndexUnaryOp("positioni", lambda v, i, j, t, dt: i.astype(dt, copy=False), "i",
                           lambda vd: INDEX_DTYPE, "i"),
    positionj=IndexUnaryOp("positionj", lambda v, i, j, t, dt: j.astype(dt, copy=False), "j",
                           lambda vd: INDEX_DTYPE, "j"),
)

#: Predicates for :func:`spbfs.semiring.select` (``thunk``: the diagonal offset or value).
select_ops = SimpleNamespace(
    tril=IndexUnaryOp("tril", lambda v, i, j, t, dt: j <= i + t, "(j <= i + thunk)", _boolean),
    triu=IndexUnaryOp("triu", lambda v, i, j, t, dt: j >= i + t, "(j >= i + thunk)", _boolean),
    diag=IndexUnaryOp("diag", lambda v, i, j, t, dt: j == i + t, "(j == i + thunk)", _boolean),
    offdiag=IndexUnaryOp("offdiag", lambda v, i, j, t, dt: j != i + t, "(j != i + thunk)",
                         _boolean),
    nonzero=IndexUnaryOp("nonzero", lambda v, i, j, t, dt: v != 0, "(v != 0)", _boolean),
    valuegt=IndexUnaryOp("valuegt", lambda v, i, j, t, dt: v > t, "(v > thunk)", _boolean),
    valuege=IndexUnaryOp("valuege", lambda v, i, j, t, dt: v >= t, "(v >= thunk)", _boolean),
    valuelt=IndexUnaryOp("valuelt", lambda v, i, j, t, dt: v < t, "(v < thunk)", _boolean),
    valuele=IndexUnaryOp("valuele", lambda v, i, j, t, dt: v <= t, "(v <= thunk)", _boolean),
    valueeq=IndexUnaryOp("valueeq", lambda v, i, j, t, dt: v == t, "(v == thunk)", _boolean),
    valuene=IndexUnaryOp("valuene", lambda v, i, j, t, dt: v != t, "(v != thunk)", _boolean),
)

def _absorbing(dtype, value):
    """A monoid's terminal value for ``dtype``: ``value`` for integers and bools; NaN for
    floats, where NaN (which numpy's ``minimum``, ``maximum`` and ``multiply`` propagate)
    alone absorbs everything: ``0 * inf`` is NaN, ``minimum(-inf, NaN)`` NaN.  A search
    never stops early at NaN (it equals nothing), so a float reduction reads every value."""
    return np.nan if np.dtype(dtype).kind in "fc" else value


monoids = SimpleNamespace(
    any=Monoid("any", None, lambda dt: 0, "a", ANY_TERMINAL),
    lor=Monoid("lor", np.logical_or, lambda dt: False, "(a || b)", lambda dt: True),
    land=Monoid("land", np.logical_and, lambda dt: True, "(a && b)", lambda dt: False),
    plus=Monoid("plus", np.add, lambda dt: 0, "(a + b)"),
    times=Monoid("times", np.multiply, lambda dt: 1, "(a * b)", lambda dt: _absorbing(dt, 0)),
    min=Monoid("min", np.minimum, _highest, "((b < a || b != b) ? b : a)",
               lambda dt: _absorbing(dt, _lowest(dt))),
    max=Monoid("max", np.maximum, _lowest, "((b > a || b != b) ? b : a)",
               lambda dt: _absorbing(dt, _highest(dt))),
)

any_pair = Semiring(monoids.any, ops.pair)
any_secondi = Semiring(monoids.any, ops.secondi)
any_first = Semiring(monoids.any, ops.first)
lor_land = Semiring(monoids.lor, ops.land)
min_plus = Semiring(monoids.min, ops.plus)
max_plus = Semiring(monoids.max, ops.plus)
min_first = Semiring(monoids.min, ops.first)
min_secondi = Semiring(monoids.min, ops.secondi)
plus_times = Semiring(monoids.plus, ops.times)
plus_pair = Semiring(monoids.plus, ops.pair)
max_min = Semiring(monoids.max, ops.min)

NAMED = {
    s.name: s
    for s in (any_pair, any_secondi, any_first, lor_land, min_plus, max_plus, min_first,
              min_secondi, plus_times, plus_pair, max_min)
}
