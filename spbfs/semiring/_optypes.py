"""Binary operators, monoids and semirings.

A semiring pairs a monoid ("add", with an identity and an optional terminal
value that lets a reduction stop early) with a multiply operator.  Each
operator carries a numpy implementation for the CPU backend and a C
expression for the GPU kernel generator, so one definition serves every
backend (the python-graphblas / GraphBLAST pattern).

Multiply operators see four arguments: ``x`` (the vector entry), ``a`` (the
matrix entry), ``i`` (the index of the vector entry, i.e. the row of ``a``)
and ``j`` (the output index, i.e. the column of ``a``).  For ``y = x @ A``
the semiring computes ``y[j] = add_i multiply(x[i], A[i, j], i, j)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.seam import ANY_TERMINAL  # marks monoids whose reduction may stop at once

__all__ = ["ANY_TERMINAL", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring"]



@dataclass(frozen=True)
class BinaryOp:
    """A multiply operator ``f(x, a, i, j)`` of a semiring.

    Parameters
    ----------
    name : str
        Short name used in semiring names (``first``, ``pair``, ...).
    func : callable
        ``func(x, a, i, j, dtype)`` on numpy (or cupy) arrays; arguments the
        operator does not use may be ``None``.
    c_expr : str
        The same operator as a C expression in ``x``, ``a``, ``i``, ``j``,
        used by the GPU kernel generator.
    uses : str
        Which of ``"xaij"`` the operator reads (lets backends skip gathers).
    result_dtype : callable
        ``result_dtype(x_dtype, a_dtype) -> numpy.dtype``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import BinaryOp
    >>> diff = BinaryOp("diff", lambda x, a, i, j, dtype: (x - a).astype(dtype),
    ...                 "(x - a)", "xa", lambda xd, ad: np.result_type(xd, ad))
    >>> diff.func(np.array([5]), np.array([2]), None, None, np.int64)
    array([3])
    """

    name: str
    func: Callable
    c_expr: str
    uses: str
    result_dtype: Callable

    def operand_dtype(self, x_dtype, a_dtype):
        """The dtype both operands are cast to before a kernel multiplies them, or None:
        integers of mixed sign whose common type is a float (int64 with uint64: numpy
        computes in float64, where numba and C would wrap in 64-bit integers).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.semiring import ops
        >>> ops.plus.operand_dtype(np.int64, np.uint64), ops.plus.operand_dtype(np.int8, np.int8)
        (dtype('float64'), None)
        """
        x_dtype, a_dtype = np.dtype(x_dtype), np.dtype(a_dtype)
        if "x" not in self.uses or "a" not in self.uses or x_dtype.kind not in "iu" or (
                a_dtype.kind not in "iu"):
            return None
        common = np.result_type(x_dtype, a_dtype)
        return common if common.kind == "f" else None


@dataclass(frozen=True)
class IndexUnaryOp:
    """An operator ``f(v, i, j, thunk)`` on one stored entry: unary ops for :func:`apply`
    (they ignore ``i``, ``j``, ``thunk``) and predicates for :func:`select`.

    Parameters
    ----------
    name : str
    func : callable
        ``func(v, i, j, thunk, dtype)`` on numpy (or cupy) arrays: ``v`` the values, ``i``
        and ``j`` the row and column of each entry (int64), ``thunk`` a scalar.
    c_expr : str
        The same in C (variables ``v``, ``i``, ``j``, ``thunk``), for the GPU kernels.
    result_dtype : callable
        ``result_dtype(value_dtype) -> numpy.dtype`` (``bool`` for predicates).
    uses : str
        Which of ``"vij"`` the operator reads (default all; lets backends skip work).

    Examples
    --------
    A predicate keeping the entries above a row-dependent bound (``select``):

    >>> import numpy as np
    >>> from spbfs.semiring import IndexUnaryOp
    >>> above = IndexUnaryOp("above", lambda v, i, j, t, dt: v > i + t, "(v > i + thunk)",
    ...                      lambda vd: np.dtype(bool))
    >>> above.func(np.array([1.0, 5.0]), np.array([0, 1]), None, 2, bool)
    array([False,  True])
    """

    name: str
    func: Callable
    c_expr: str
    result_dtype: Callable
    uses: str = "vij"


@dataclass(frozen=True)
class Monoid:
    """An associative, commutative reduction with an identity.

    Parameters
    ----------
    name : str
        Short name (``min``, ``plus``, ``any``, ...).
    ufunc : numpy.ufunc or None
        Binary ufunc with ``reduceat`` (``None`` only for ``any``, whose
        reduction keeps an arbitrary one of its inputs).
    identity : callable
        ``identity(dtype)`` gives the identity element for ``dtype``.
    c_expr : str
        C expression combining ``a`` and ``b`` for the GPU kernels.
    terminal : callable or str or None
        ``terminal(dtype)`` is a value that absorbs everything (``True`` for
        ``lor``, ``0`` for ``times``...), enabling early exit;
        ``ANY_TERMINAL`` for ``any``; ``None`` when there is none.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import Monoid
    >>> mx = Monoid("max", np.maximum, lambda dt: np.iinfo(dt).min, "(a > b ? a : b)")
    >>> mx.name
    'max'
    """

    name: str
    ufunc: np.ufunc | None
    identity: Callable
    c_expr: str
    terminal: Callable | str | None = None

    @property
    def is_any(self) -> bool:
        """True for the ``any`` monoid (reduction keeps any one input)."""
        return self.terminal == ANY_TERMINAL

    @property
    def is_logical(self) -> bool:
        """True for ``lor`` and ``land``: their results are truths (1 or 0 in a non-bool
        dtype), a reduction or product of a single value included."""
        return self.ufunc in (np.logical_or, np.logical_and)

    def truths(self, values):
        """``values`` as this monoid's results: written in place as their truth (``values
        != 0``) for a logical monoid over non-bool values, else as they are.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.semiring import monoids
        >>> monoids.lor.truths(np.array([5, 0, -2])).tolist()
        [1, 0, 1]
        """
        if self.is_logical and values.dtype != np.bool_:
            values[...] = values != 0
        return values

    def as_binary(self) -> BinaryOp:
        """The monoid's operator as a :class:`BinaryOp` ``f(x, a)`` (for ``ewise_*``)."""
        ufunc = self.ufunc
        expr = re.sub(r"\bb\b", "a", re.sub(r"\ba\b", "x", self.c_expr))

        def func(x, a, i, j, dtype):
            x = x.astype(dtype, copy=False)
            return x if ufunc is None else ufunc(x, a.astype(dtype, copy=False))

        return BinaryOp(self.name, func, expr, "xa", lambda xd, ad: np.result_type(xd, ad))


@dataclass(frozen=True)
class Semiring:
    """A semiring ``(monoid, multiply)`` usable by :func:`spbfs.semiring.vxm`.

    Parameters
    ----------
    monoid : Monoid
        The "add" of the semiring.
    multiply : BinaryOp
        The "times" of the semiring.
    name : str, optional
        Defaults to ``"{monoid}_{multiply}"``.

    Examples
    --------
    User-defined semiring: the widest path ("max-min") semiring.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from spbfs import semiring
    >>> max_min = semiring.Semiring(semiring.monoids.max, semiring.ops.min)
    >>> A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 2.0], [0, 0, 0]]))
    >>> x = semiring.Vector.sparse([0], [3.0], size=3)
    >>> y = semiring.vxm(x, A, max_min)
    >>> y.indices.tolist(), y.values.tolist()
    ([1, 2], [3.0, 1.0])
    """

    monoid: Monoid
    multiply: BinaryOp
    name: str = field(default="")

    def __post_init__(self):
        if not isinstance(self.monoid, Monoid):
            raise TypeError(f"monoid must be a Monoid, got {type(self.monoid).__name__}")
        if not isinstance(self.multiply, BinaryOp):
            raise TypeError(f"multiply must be a BinaryOp, got {type(self.multiply).__name__}")
        if not self.name:
            object.__setattr__(self, "name", f"{self.monoid.name}_{self.multiply.name}")

    def result_dtype(self, x_dtype, a_dtype) -> np.dtype:
        """Output dtype of ``x @ A`` for the given operand dtypes.

        Raises TypeError for an operand the multiply reads, or a result, of a dtype no
        kernel computes in (``longdouble``: numba and CUDA have no such type).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.semiring import min_plus
        >>> min_plus.result_dtype(np.int8, np.float32)
        dtype('float32')
        """
        x_dtype, a_dtype = np.dtype(x_dtype), np.dtype(a_dtype)
        out = np.dtype(self.multiply.result_dtype(x_dtype, a_dtype))
        for name, dtype in (("x", x_dtype), ("a", a_dtype)):
            if name in self.multiply.uses:
                computable(dtype, f"{self.name}: the multiply's {name}")
        return computable(out, f"{self.name}: the multiply's result")

    def __repr__(self) -> str:
        return f"Semiring({self.name})"


def computable(dtype, what: str) -> np.dtype:
    """``dtype`` where the compiled kernels hold values of it (bool, integers, float32/64,
    in native byte order), else TypeError naming ``what``: numba's CPU kernels have no
    ``float16`` arithmetic, neither numba nor CUDA a ``longdouble``, and no kernel takes
    objects.

    Examples
    --------
    >>> computable(np.float32, "x")
    dtype('float32')
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "biuf" and dtype.isnative and (
            dtype.itemsize <= 8 if dtype.kind != "f" else dtype.itemsize in (4, 8)):
        return dtype
    raise TypeError(f"{what} has dtype {dtype}, which no kernel computes in; cast the values "
                    "to a native-order bool, integer, float32 or float64 dtype")


def _lowest(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return False
    if dtype.kind == "f":
        return -np.inf
    return np.iinfo(dtype).min


def _highest(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return True
    if dtype.kind == "f":
        return np.inf
    return np.iinfo(dtype).max
