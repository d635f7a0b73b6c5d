"""spbfs.semiring operations against scipy.sparse and a brute-force dense reference.

Written once, run on numpy (CI) and on cupy (gpu-marked, on the device).  Inputs are
rectangular, with empty rows and columns, explicit zeros, duplicates (which count as one
entry holding their sum) and int32 or int64 indices; every mask variant is exercised.
"""

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring as sr
from spbfs.cpu import products as cpu_products
from spbfs.semiring import Matrix, Vector
from spbfs.semiring._pattern import Pattern

DEVICES = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def _xp(device):
    if device == "cupy":
        import cupy

        return cupy
    return np


def _on(device, A):
    """A scipy matrix as a Matrix on the device (cupy keeps any dtype this way)."""
    A = sp.csr_array(A)
    xp = _xp(device)
    return Matrix(xp.asarray(A.indptr), xp.asarray(A.indices), xp.asarray(A.data), A.shape[0],
                  ncols=A.shape[1])


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _is_canonical(M):
    """Whether a Matrix's rows are sorted and duplicate-free, found afresh."""
    return Pattern(M.indptr, M.indices, M.nrows, ncols=M.ncols).canonical() is None


def _dense(M):
    """(values, present) of a Matrix result, with duplicates summed (there are none);
    a result whose pattern says it is canonical must be."""
    if M.pattern.canonical() is None:
        assert _is_canonical(M), "a result claims sorted rows it does not have"
    S = sp.csr_array((_host(M.data), _host(M.indices), _host(M.indptr)), shape=M.shape)
    present = np.zeros(S.shape, bool)
    coo = S.tocoo()
    present[coo.row, coo.col] = True
    assert coo.nnz == present.sum(), "a result must not hold duplicates"
    vals = np.zeros(S.shape, S.dtype)
    vals[coo.row, coo.col] = coo.data
    return vals, present


@st.composite
def matrices(draw, shape=None, max_dim=7, max_nnz=25, values="int"):
    """A scipy COO->CSR matrix keeping duplicates and explicit zeros."""
    if shape is None:
        shape = (draw(st.integers(0, max_dim)), draw(st.integers(0, max_dim)))
    m, n = shape
    nnz = draw(st.integers(0, max_nnz if m and n else 0))
    rows = np.array(draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=nnz, max_size=nnz)),
                    np.int64)
    cols = np.array(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=nnz, max_size=nnz)),
                    np.int64)
    if values == "int":
        data = np.array(draw(st.lists(st.integers(-3, 4), min_size=nnz, max_size=nnz)),
                        np.int64)
    else:
        data = np.array(draw(st.lists(st.integers(0, 8), min_size=nnz, max_size=nnz)),
                        np.float64) / 2
    A = sp.coo_array((data, (rows, cols)), shape=shape).tocsr()  # sorted, no duplicates
    if draw(st.booleans()):
        A = _scrambled(A, np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    idt = draw(st.sampled_from([np.int32, np.int64]))
    A.indices, A.indptr = A.indices.astype(idt), A.indptr.astype(idt)
    return A


def _scrambled(A, rng):
    """The same matrix as a CSR with some entries split in two duplicates (summing to the
    entry) and each row's entries shuffled."""
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    split = rng.random(A.nnz) < 0.3
    part = rng.integers(-2, 3, A.nnz).astype(A.dtype)
    rows = np.concatenate([rows, rows[split]])
    cols = np.concatenate([A.indices, A.indices[split]])
    data = np.concatenate([np.where(split, A.data - part, A.data), part[split]])
    order = np.lexsort((rng.random(rows.size), rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=A.shape[0]))])
    return sp.csr_array((data[order], cols[order], indptr), shape=A.shape)


def _canonical_dense(A):
    """(values, present) of an input: duplicates summed, explicit zeros present."""
    A = sp.csr_array(A)
    present = np.zeros(A.shape, bool)
    vals = np.zeros(A.shape, A.dtype)
    r = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    present[r, A.indices] = True
    np.add.at(vals, (r, A.indices), A.data)
    return vals, present


SEMIRINGS = {
    "plus_times": sr.plus_times, "min_plus": sr.min_plus, "max_min": sr.max_min,
    "plus_pair": sr.plus_pair, "lor_land": sr.lor_land, "min_first": sr.min_first,
    "min_secondi": sr.min_secondi,
    "plus_absdiff": sr.Semiring(sr.monoids.plus, sr.BinaryOp(
        "absdiff", lambda x, a, i, j, dt: np.abs(x.astype(dt) - a.astype(dt)),
        "(x > a ? x - a : a - x)", "xa", lambda xd, ad: np.result_type(xd, ad))),
}


def _mul_scalar(op, x, a, k, j, dtype):
    return op.func(np.array([x]), np.array([a]), np.array([k]), np.array([j]), dtype)[0]


def _mxm_reference(A, B, semiring):
    av, ap = _canonical_dense(A)
    bv, bp = _canonical_dense(B)
    dtype = semiring.result_dtype(av.dtype, bv.dtype)
    m, n = av.shape[0], bv.shape[1]
    vals = np.zeros((m, n), dtype)
    present = np.zeros((m, n), bool)
    for i in range(m):
        for j in range(n):
            ks = np.flatnonzero(ap[i] & bp[:, j])
            if ks.size:
                terms = [_mul_scalar(semiring.multiply, av[i, k], bv[k, j], k, j, dtype)
                         for k in ks]
                acc = terms[0]
                for t in terms[1:]:
                    acc = semiring.monoid.ufunc(acc, t)
                if semiring.monoid.is_logical:  # a truth, a lone product's too
                    acc = acc != 0
                vals[i, j], present[i, j] = acc, True
    return vals, present


def _apply_mask(vals, present, mask_dense, complement, out=None, replace=False):
    mv, mp = mask_dense
    allowed = mp
    if complement:
        allowed = ~allowed
    vals, present = vals.copy(), present & allowed
    if out is not None:
        ov, op_ = _canonical_dense(out)
        keep = op_ & ~allowed if not replace else np.zeros_like(op_)
        vals = np.where(keep, ov, vals).astype(ov.dtype)
        present = present | keep
    return vals, present


def _assert_same(M, expected):
    vals, present = _dense(M)
    ev, ep = expected
    np.testing.assert_array_equal(present, ep)
    np.testing.assert_allclose(vals[ep], ev[ep])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(SEMIRINGS))
@given(data=st.data())
def test_mxm_matches_brute_force(device, name, data):
    m, k, n = (data.draw(st.integers(0, 6)) for _ in range(3))
    A = data.draw(matrices((m, k)))
    B = data.draw(matrices((k, n)))
    semiring = SEMIRINGS[name]
    _assert_same(sr.mxm(_on(device, A), _on(device, B), semiring),
                 _mxm_reference(A, B, semiring))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complement", [False, True])
@given(data=st.data())
def test_masked_mxm_and_out_replace(device, structural, complement, data):
    m, k, n = (data.draw(st.integers(1, 6)) for _ in range(3))
    A, B = data.draw(matrices((m, k))), data.draw(matrices((k, n)))
    mask = data.draw(matrices((m, n)))
    out = data.draw(matrices((m, n)))
    replace = data.draw(st.booleans())
    semiring = SEMIRINGS[data.draw(st.sampled_from(sorted(SEMIRINGS)))]
    mv, mp = _canonical_dense(mask)
    if not structural:
        mp = mp & (mv != 0)
    vals, present = _mxm_reference(A, B, semiring)
    got = sr.mxm(_on(device, A), _on(device, B), semiring, _on(device, mask),
                 complement=complement, structural=structural)
    _assert_same(got, _apply_mask(vals, present, (mv, mp), complement))
    got = sr.mxm(_on(device, A), _on(device, B), semiring, _on(device, mask),
                 complement=complement, structural=structural, replace=replace,
                 out=_on(device, out))
    _assert_same(got, _apply_mask(vals, present, (mv, mp), complement, out, replace))


@pytest.mark.parametrize("semiring", [sr.plus_times, sr.min_plus, sr.plus_pair])
def test_masked_mxm_as_dots_or_saxpy_agree(monkeypatch, semiring):
    """A hub's row under a short mask runs as dot products, a mask over every row as the
    CPU's saxpy (``_products.DOTS_OVER_SAXPY``); either method, forced, gives the masked
    product of the dense reference."""
    from spbfs.semiring import _products

    rng = np.random.default_rng(3)
    n = 300
    A = sp.random(n, n, density=0.03, random_state=rng, format="csr")
    A = (A + sp.csr_array((rng.random(n - 1) + 0.5, (np.zeros(n - 1, int),
                                                    np.arange(1, n))), shape=(n, n))).tocsr()
    hub_mask = sp.csr_array((np.ones(12), (np.zeros(12, int), rng.choice(n, 12, False))),
                            shape=(n, n))
    dots = []
    real = _products._mxm_dot
    monkeypatch.setattr(_products, "_mxm_dot", lambda *a: dots.append(1) or real(*a))
    vals, present = _mxm_reference(A, A, semiring)
    chosen = _products.DOTS_OVER_SAXPY
    for mask, by_choice in ((hub_mask, True), (A, False)):
        want = _apply_mask(vals, present, _canonical_dense(mask), False)
        for factor, uses_dots in ((chosen, by_choice), (0.0, True), (float("inf"), False)):
            monkeypatch.setattr(_products, "DOTS_OVER_SAXPY", factor)
            dots.clear()
            _assert_same(sr.mxm(A, A, semiring, mask, structural=True), want)
            assert bool(dots) == uses_dots


NARROW = {  # (semiring, A's values, x's values): products that overflow the output dtype
    "max_plus_int8": (sr.max_plus, np.int8, np.int8),
    "min_plus_int8": (sr.min_plus, np.int8, np.int8),
    "land_plus_uint8": (sr.Semiring(sr.monoids.land, sr.ops.plus), np.bool_, np.uint8),
}


def _values(rng, dtype, size):
    if dtype == np.bool_:
        return rng.random(size) < 0.7
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size, endpoint=True).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(NARROW))
@pytest.mark.parametrize("split", [False, True])
def test_products_wrap_in_a_narrow_output_dtype(device, name, split, monkeypatch):
    """Products that overflow a narrow integer output (``int8 + int8``) wrap in it, as
    numpy's operator does, before the monoid folds them: a ``max`` of the sums taken wider
    picked another entry.  Every product: vxm pushed and pulled, mxv, SpGEMM by saxpy (with
    and without a mask) and by dots, SpMM; on the CPU also split over 4 threads."""
    from spbfs.semiring import _products

    if split:
        _split_cpu(monkeypatch, threads=4)
    semiring, a_type, x_type = NARROW[name]
    rng = np.random.default_rng(11)
    n, w = 30, 4
    A = sp.random(n, n, density=0.4, random_state=rng, format="csr")
    A.data = _values(rng, a_type, A.nnz)
    X = sp.random(n, n, density=0.4, random_state=rng, format="csr")
    X.data = _values(rng, x_type, X.nnz)
    xp = _xp(device)
    x = _values(rng, x_type, n)
    x_row = sp.csr_array((x, np.arange(n), [0, n]), shape=(1, n))  # zeros stored too
    vals, present = _mxm_reference(x_row, A, semiring)
    for direction, xv in (("push", Vector.sparse(xp.arange(n), xp.asarray(x), size=n)),
                          ("pull", xp.asarray(x))):
        y = sr.vxm(xv, _on(device, A), semiring, direction=direction)
        np.testing.assert_array_equal(_host(y.to_dense()), np.where(present[0], vals[0], 0))
    y = sr.mxv(_on(device, A.T), xp.asarray(x), semiring)
    np.testing.assert_array_equal(_host(y.to_dense()), np.where(present[0], vals[0], 0))
    want = _mxm_reference(X, A, semiring)
    _assert_same(sr.mxm(_on(device, X), _on(device, A), semiring), want)
    mask = sp.csr_array(rng.random((n, n)) < 0.5)
    masked = _apply_mask(*want, _canonical_dense(mask), False)
    for factor in (_products.DOTS_OVER_SAXPY, 0.0, float("inf")):  # chosen, dots, saxpy
        monkeypatch.setattr(_products, "DOTS_OVER_SAXPY", factor)
        _assert_same(sr.mxm(_on(device, X), _on(device, A), semiring, _on(device, mask),
                            structural=True), masked)
    B = _values(rng, a_type, (n, w))
    av, ap = _canonical_dense(X)
    np.testing.assert_array_equal(
        _host(sr.mxm(_on(device, X), xp.asarray(B), semiring)),
        _spmm_reference(av, ap, B, semiring, np.ones((n, w), bool)))


@pytest.mark.parametrize("device", DEVICES)
def test_int64_with_uint64_values_are_combined_in_float64(device):
    """int64 with uint64 operands: numpy's common type is float64, where the kernels
    wrapped in 64-bit integers (2**63 + 1 gave -2**63 + 1): vxm pushed and pulled, SpGEMM
    (masked: the kernels, not scipy's product), SpMM, ewise_mult and apply."""
    xp = _xp(device)
    big = np.uint64(2**63)
    A = sp.csr_array((np.array([1, -1, 3], np.int64), ([0, 0, 1], [0, 1, 1])), shape=(2, 2))
    x = np.array([big, big + np.uint64(5)], np.uint64)
    want = np.array([float(big) + 1, max(float(big) - 1, float(big) + 8)])  # max over rows
    for direction, xv in (("push", Vector.sparse(xp.arange(2), xp.asarray(x), size=2)),
                          ("pull", xp.asarray(x))):
        y = sr.vxm(xv, _on(device, A), sr.max_plus, direction=direction)
        assert y.dtype == np.float64
        np.testing.assert_array_equal(_host(y.to_dense()), want)
    X = sp.csr_array((x, [0, 1], [0, 2]), shape=(1, 2))
    got = sr.mxm(_on(device, X), _on(device, A), sr.max_plus,
                 _on(device, sp.csr_array(np.ones((1, 2), bool))), structural=True)
    np.testing.assert_array_equal(_dense(got)[0][0], want)
    dense = sr.mxm(_on(device, A.T.tocsr()), xp.asarray(x[:, None]), sr.max_plus)
    np.testing.assert_array_equal(_host(dense)[:, 0], want)
    B = sp.csr_array((np.full(3, 2**64 - 1, np.uint64), A.indices, A.indptr), shape=(2, 2))
    summed = sr.ewise_mult(_on(device, A), _on(device, B), sr.ops.plus)
    np.testing.assert_array_equal(_dense(summed)[0][A.toarray() != 0],
                                  A.data.astype(np.float64) + 2.0**64)
    shifted = sr.apply(_on(device, A), sr.ops.plus, right=big)
    np.testing.assert_array_equal(_host(shifted.data), A.data + float(big))
    # a lone entry kept in an int64 result is cast as numpy's astype (the merge's two
    # branches went through float64: 2**64 - 1 gave -2**63, not -1)
    lone = sp.csr_array((np.array([5], np.int64), [0], [0, 1, 1]), shape=(2, 2))
    kept = sr.ewise_add(_on(device, lone), _on(device, B), sr.ops.first)
    np.testing.assert_array_equal(_dense(kept)[0], [[5, -1], [0, -1]])


@pytest.mark.parametrize("device", DEVICES)
def test_mxm_plus_times_equals_scipy_including_cancellation(device):
    rng = np.random.default_rng(0)
    A = sp.random(40, 30, density=0.1, random_state=rng, format="csr")
    B = sp.random(30, 20, density=0.1, random_state=rng, format="csr")
    expected = (A @ B).toarray()
    np.testing.assert_allclose(_dense(sr.mxm(_on(device, A), _on(device, B),
                                             sr.plus_times))[0], expected)
    A2 = sp.csr_array(([1.0, -1.0], ([0, 0], [0, 1])), shape=(1, 2))
    B2 = sp.csr_array(([1.0, 1.0], ([0, 1], [0, 0])), shape=(2, 1))
    vals, present = _dense(sr.mxm(_on(device, A2), _on(device, B2), sr.plus_times))
    assert present[0, 0] and vals[0, 0] == 0  # a structural entry, as GraphBLAS keeps it


def test_mxm_falls_back_when_cusparse_gives_up(monkeypatch):
    """cuSPARSE's SpGEMM can run out of resources (``CuSparseError``) where the generic path
    computes the product: mxm then takes that path; other errors propagate."""
    from spbfs.semiring import _products

    class CuSparseError(RuntimeError):
        pass

    real, tried = _products._native_product, []

    def refused(A, B):
        tried.append(1)
        return real(_Refusing(CuSparseError), _Refusing(CuSparseError))

    monkeypatch.setattr(_products, "_native_product", refused)
    rng = np.random.default_rng(1)
    A = sp.random(40, 30, density=0.1, random_state=rng, format="csr")
    B = sp.random(30, 20, density=0.1, random_state=rng, format="csr")
    got = _dense(sr.mxm(Matrix.from_any(A), Matrix.from_any(B), sr.plus_times))[0]
    np.testing.assert_allclose(got, (A @ B).toarray())
    assert tried
    with pytest.raises(MemoryError):
        real(_Refusing(MemoryError), _Refusing(MemoryError))


class _Refusing:
    """An operand whose product raises ``error``."""

    def __init__(self, error):
        self.error = error

    def to_scipy(self):
        return self

    def __matmul__(self, other):
        raise self.error("CUSPARSE_STATUS_INSUFFICIENT_RESOURCES")


def _spmm_reference(av, ap, X, semiring, allowed):
    """The dense block product row by row (the identity where a row is empty or the mask
    says no), by the semiring's own numpy functions."""
    dtype = semiring.result_dtype(av.dtype, X.dtype)
    m, w = ap.shape[0], X.shape[1]
    expected = np.full((m, w), semiring.monoid.identity(dtype), dtype)
    cols = np.arange(w)[None, :]  # j sets the shape (pair reads nothing else)
    for i in range(m):
        ks = np.flatnonzero(ap[i])
        if ks.size:
            terms = semiring.multiply.func(av[i, ks][:, None], X[ks], ks[:, None],
                                           np.broadcast_to(cols, (ks.size, w)), dtype)
            expected[i] = semiring.monoid.ufunc.reduce(terms, axis=0)
    return np.where(allowed, expected, semiring.monoid.identity(dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_min", "plus_pair", "min_secondi",
                                  "plus_absdiff"])
@given(data=st.data())
def test_spmm_dense_block(device, name, data):
    m, k = data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))
    w = data.draw(st.sampled_from([1, 3, 32, 33]))  # one tile of 32 columns, or two
    A = data.draw(matrices((m, k), values="float"))
    X = np.array(data.draw(st.lists(st.integers(0, 5), min_size=k * w, max_size=k * w)),
                 np.float64).reshape(k, w)
    how = data.draw(st.sampled_from(["none", "mask", "complement"]))
    mask = np.random.default_rng(data.draw(st.integers(0, 99))).random((m, w)) < 0.6
    semiring = SEMIRINGS[name]
    av, ap = _canonical_dense(A)
    allowed = {"none": np.ones_like(mask), "mask": mask, "complement": ~mask}[how]
    xp = _xp(device)
    got = sr.mxm(_on(device, A), xp.asarray(X), semiring,
                 mask=None if how == "none" else xp.asarray(mask), complement=how == "complement")
    np.testing.assert_allclose(_host(got), _spmm_reference(av, ap, X, semiring, allowed))



@pytest.mark.parametrize("copied", [False, True])
@pytest.mark.parametrize("name", ["min_plus", "max_min", "min_secondi", "plus_times"])
@given(data=st.data())
def test_spmm_cpu_second_buffer(copied, name, data):
    """The CPU's SpMM with each entry's adds copied back from a second buffer (the kernel
    where masked stores are slow) and stored in place: both the reference's values, with
    infinite entries in the block, a mask and rows without entries."""
    m, k = data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))
    w = data.draw(st.sampled_from([32, 33, 70]))
    A = data.draw(matrices((m, k), values="float"))
    X = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, np.inf, -np.inf]),
                                    min_size=k * w, max_size=k * w))).reshape(k, w)
    mask = np.random.default_rng(data.draw(st.integers(0, 99))).random((m, w)) < 0.6
    semiring = SEMIRINGS[name]
    av, ap = _canonical_dense(A)
    with np.errstate(invalid="ignore"), mock.patch.object(cpu_products, "_MASKED_STORES_SLOW",
                                                          copied):
        expected = _spmm_reference(av, ap, X, semiring, mask)
        got = sr.mxm(A, X, semiring, mask=mask)
    np.testing.assert_array_equal(got, expected)

_PLUS_SECOND = sr.Semiring(sr.monoids.plus, sr.ops.second)


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_spmm_into_out(device, data):
    """``mxm(A, X, out=block)`` writes ``out<mask, replace> = A @ X`` in place: without a
    mask or with ``replace`` everywhere (the identity where the mask says no), else the
    masked-out positions keep out's values; a transposed (not C-contiguous) out too."""
    m, k = data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))
    w = data.draw(st.sampled_from([1, 3, 33]))
    A = data.draw(matrices((m, k), values="float"))
    X = np.array(data.draw(st.lists(st.integers(0, 5), min_size=k * w, max_size=k * w)),
                 np.float64).reshape(k, w)
    how = data.draw(st.sampled_from(["none", "mask", "complement"]))
    replace, transposed = data.draw(st.booleans()), data.draw(st.booleans())
    # plus_second: the CPU kernel skips the block's all-identity rows
    semiring = {**SEMIRINGS, "plus_second": _PLUS_SECOND}[
        data.draw(st.sampled_from(["plus_times", "min_plus", "plus_second"]))]
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    mask = rng.random((m, w)) < 0.6
    old = rng.integers(-9, 9, (m, w)).astype(np.float64)
    av, ap = _canonical_dense(A)
    allowed = {"none": np.ones_like(mask), "mask": mask, "complement": ~mask}[how]
    full = _spmm_reference(av, ap, X, semiring, np.ones_like(mask))
    cleared = semiring.monoid.identity(np.dtype(np.float64))
    expected = np.where(allowed, full, cleared if replace or how == "none" else old)
    xp = _xp(device)
    out = xp.asarray(old.T.copy()).T if transposed else xp.asarray(old)
    got = sr.mxm(_on(device, A), xp.asarray(X), semiring,
                 mask=None if how == "none" else xp.asarray(mask),
                 complement=how == "complement", replace=replace, out=out)
    assert got is out
    np.testing.assert_allclose(_host(out), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_spmm_out_errors(device):
    xp = _xp(device)
    A = _on(device, sp.csr_array(np.array([[0, 1.0], [2.0, 0]])))
    X = xp.ones((2, 3))
    with pytest.raises(ValueError, match="out has shape"):
        sr.mxm(A, X, sr.plus_times, out=xp.empty((3, 2)))
    with pytest.raises(ValueError, match="dtype"):
        sr.mxm(A, X, sr.plus_times, out=xp.empty((2, 3), np.float32))
    with pytest.raises(ValueError, match="shares memory"):
        sr.mxm(A, X, sr.plus_times, out=X)
    with pytest.raises(TypeError, match="out must be a dense array"):
        sr.mxm(A, X, sr.plus_times, out=[[0.0] * 3] * 2)


def _split_cpu(monkeypatch, threads=3):
    """CPU kernels split every call over ``threads`` ranges."""
    monkeypatch.setattr(cpu_products, "PARALLEL_WORK", 1)
    monkeypatch.setattr(cpu_products, "get_num_threads", lambda: threads)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "min_secondi", "plus_absdiff"])
@pytest.mark.parametrize("split", [False, True])
def test_spmm_hub_rows(device, name, split, monkeypatch):
    """Rows of thousands of entries (the GPU gives each a block of warps) beside short and
    empty ones, a block wider than one tile, a random mask; the CPU's kernel also over
    3 threads' ranges of rows (a hub row is in one of them)."""
    if split:
        _split_cpu(monkeypatch)
    rng = np.random.default_rng(5)
    m, k, w = 40, 9000, 37
    rows = np.concatenate([np.zeros(7000, np.int64), np.full(2500, 7),
                           rng.integers(1, m - 3, 900)])
    cols = np.concatenate([rng.choice(k, 7000, replace=False), rng.choice(k, 2500, replace=False),
                           rng.integers(0, k, 900)])
    A = sp.csr_array((rng.integers(1, 9, rows.size).astype(np.float64), (rows, cols)),
                     shape=(m, k))
    X = rng.integers(0, 50, (k, w)).astype(np.float64)
    mask = rng.random((m, w)) < 0.7
    semiring = SEMIRINGS[name]
    av, ap = _canonical_dense(A)
    xp = _xp(device)
    got = sr.mxm(_on(device, A), xp.asarray(X), semiring, mask=xp.asarray(mask))
    np.testing.assert_allclose(_host(got), _spmm_reference(av, ap, X, semiring, mask))
    old = rng.integers(-9, 9, (m, w)).astype(got.dtype)  # into out: the rest kept
    out = xp.asarray(old)
    sr.mxm(_on(device, A), xp.asarray(X), semiring, mask=xp.asarray(mask), out=out)
    np.testing.assert_allclose(_host(out), np.where(
        mask, _spmm_reference(av, ap, X, semiring, mask), old))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("infinite", [False, True])
def test_spmm_block_of_mostly_zero_rows(device, infinite):
    """plus_times with a block whose rows are mostly all zero (the CPU multiplies only the
    others), under a mask that allows few rows; an inf in A keeps 0 * inf = nan."""
    rng = np.random.default_rng(3)
    m, k, w = 30, 50, 5
    A = sp.random_array((m, k), density=0.3, rng=rng, format="csr") + sp.eye_array(m, k)
    A = sp.csr_array(A)
    if infinite:
        A.data[::5] = np.inf
    X = np.zeros((k, w))
    X[rng.choice(k, 6, replace=False)] = rng.integers(1, 5, (6, w))
    mask = np.zeros((m, w), bool)
    mask[rng.choice(m, 8, replace=False)] = rng.random((8, w)) < 0.8
    av, ap = _canonical_dense(A)
    xp = _xp(device)
    for how, allowed in (("none", np.ones_like(mask)), ("mask", mask)):
        got = sr.mxm(_on(device, A), xp.asarray(X), sr.plus_times,
                     mask=None if how == "none" else xp.asarray(mask))
        with np.errstate(invalid="ignore"):  # 0 * inf in the reference
            expected = _spmm_reference(av, ap, X, sr.plus_times, allowed)
        assert np.isnan(expected).any() == infinite
        np.testing.assert_allclose(_host(got), expected)


def _pair_reference(A, B, op, union, fills=None):
    av, ap = _canonical_dense(A)
    bv, bp = _canonical_dense(B)
    dtype = op.result_dtype(av.dtype, bv.dtype)
    both = ap & bp
    present = (ap | bp) if union else both
    vals = np.where(ap, av, bv).astype(dtype)
    idx = np.argwhere(both if fills is None else present)
    for i, j in idx:
        x = av[i, j] if ap[i, j] else av.dtype.type(fills[0])
        a = bv[i, j] if bp[i, j] else bv.dtype.type(fills[1])
        vals[i, j] = _mul_scalar(op, x, a, i, j, dtype)
    return vals, present


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("union", [True, False])
@given(data=st.data())
def test_ewise_matrices(device, union, data):
    shape = (data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6)))
    A, B = data.draw(matrices(shape)), data.draw(matrices(shape))
    op = data.draw(st.sampled_from([sr.ops.plus, sr.ops.minus, sr.ops.times, sr.ops.min,
                                    sr.ops.first, sr.ops.second]))
    fn = sr.ewise_add if union else sr.ewise_mult
    _assert_same(fn(_on(device, A), _on(device, B), op), _pair_reference(A, B, op, union))
    if union:  # a monoid works as its operator
        _assert_same(fn(_on(device, A), _on(device, B), sr.monoids.max),
                     _pair_reference(A, B, sr.ops.max, union))


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_ewise_union_matrices_and_vectors(device, data):
    """``op`` with the fill standing for the missing side of a one-sided entry."""
    shape = (data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6)))
    kind = data.draw(st.sampled_from(["int", "float"]))
    A, B = (data.draw(matrices(shape, values=kind)) for _ in range(2))
    op = data.draw(st.sampled_from([sr.ops.plus, sr.ops.minus, sr.ops.times, sr.ops.min,
                                    sr.ops.first, sr.ops.second, _AT]))
    fills = (data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 3)))
    got = sr.ewise_union(_on(device, A), _on(device, B), op, *fills)
    _assert_same(got, _pair_reference(A, B, op, True, fills))
    assert _is_canonical(got)
    if shape[0] and op is not _AT:  # the first rows as vectors (the coordinates' path;
        # a vector's entry has no row and column)
        row = (sp.csr_array(A)[[0]], sp.csr_array(B)[[0]])
        xp = _xp(device)
        x, y = (Vector.sparse(xp.asarray(R.indices), xp.asarray(R.data), size=shape[1])
                for R in (sp.csr_array(R.toarray()) for R in row))
        z = sr.ewise_union(x, y, op, *fills)
        want, present = _pair_reference(*(sp.csr_array(R.toarray()) for R in row), op, True,
                                         fills)
        assert _host(z.indices).tolist() == np.flatnonzero(present[0]).tolist()
        np.testing.assert_array_equal(_host(z.values), want[0][present[0]])


def test_ewise_union_checks_its_fills():
    A = sp.csr_array(np.eye(2))
    with pytest.raises(TypeError, match="a_fill"):
        sr.ewise_union(A, A, sr.ops.plus, "0", 0)
    with pytest.raises(TypeError, match="b_fill"):
        sr.ewise_union(A, A, sr.ops.plus, 0, [1, 2])


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_ewise_add_of_positive_floats(device, data):
    """plus and max over float values, positive or with zeros and negatives among them."""
    shape = (data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6)))
    A, B = (data.draw(matrices(shape, values="float")) for _ in range(2))
    if data.draw(st.booleans()):
        B.data -= 1.0
    for op, as_op in ((sr.ops.plus, sr.ops.plus), (sr.ops.max, sr.ops.max),
                      (sr.monoids.plus, sr.ops.plus), (sr.monoids.max, sr.ops.max)):
        got = sr.ewise_add(_on(device, A), _on(device, B), op)
        _assert_same(got, _pair_reference(A, B, as_op, True))
        assert _is_canonical(got)


def test_ewise_add_keeps_entries_that_cancel():
    A = sp.csr_array(np.array([[0.5, 0, 2.0], [0, 0, 1.0]]))
    B = sp.csr_array(np.array([[1.5, 3.0, 0], [0, 0, 4.0]]))
    assert sr.ewise_add(A, B, sr.ops.plus).to_scipy().toarray().tolist() == [
        [2.0, 3.0, 2.0], [0, 0, 5.0]]
    B.data[-1] = -1.0  # a stored zero, which scipy's own sum would drop
    C = sr.ewise_add(A, B, sr.ops.plus)
    assert C.nnz == 4 and C.to_scipy().toarray()[1, 2] == 0


@pytest.mark.parametrize("device", DEVICES)
def test_ewise_vectors_and_vector_masks(device):
    xp = _xp(device)
    x = Vector.sparse(xp.asarray([0, 2, 5]), xp.asarray([1.0, 2.0, 3.0]), size=6)
    y = Vector.sparse(xp.asarray([2, 3]), xp.asarray([10.0, 20.0]), size=6)
    z = sr.ewise_add(x, y, sr.ops.plus)
    assert _host(z.indices).tolist() == [0, 2, 3, 5]
    assert _host(z.values).tolist() == [1.0, 12.0, 20.0, 3.0]
    z = sr.ewise_add(x, y, sr.ops.plus, mask=xp.asarray([1, 1, 0, 0, 0, 1], bool),
                     complement=True)
    assert _host(z.indices).tolist() == [2, 3]
    z = sr.ewise_mult(x, y, sr.ops.times, mask=y, structural=True)
    assert _host(z.indices).tolist() == [2] and _host(z.values).tolist() == [20.0]


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_reduce(device, data):
    A = data.draw(matrices())
    av, ap = _canonical_dense(A)
    M = _on(device, A)
    monoid, ufunc = data.draw(st.sampled_from([(sr.monoids.plus, np.add),
                                               (sr.monoids.min, np.minimum),
                                               (sr.monoids.max, np.maximum),
                                               (sr.monoids.lor, np.logical_or),
                                               (sr.monoids.land, np.logical_and)]))
    if ufunc in (np.logical_or, np.logical_and):  # a value's truth, a one-entry row's too
        ufunc = _truth_reduction(ufunc, av.dtype)
    total = sr.reduce(M, monoid)
    expected = ufunc.reduce(av[ap]) if ap.any() else monoid.identity(av.dtype)
    assert total == expected
    for axis in (0, 1):
        v = sr.reduce(M, monoid, axis=axis)
        idx = np.flatnonzero(ap.any(axis=axis))
        assert _host(v.indices).tolist() == idx.tolist()
        ref = [ufunc.reduce((av if axis == 1 else av.T)[r][(ap if axis == 1 else ap.T)[r]])
               for r in idx]
        assert _host(v.values).tolist() == ref
        assert v.size == A.shape[1 - axis]


class _truth_reduction:
    """A logical ufunc's reduction over values' truth, as a value of ``dtype``."""

    def __init__(self, ufunc, dtype):
        self.ufunc, self.dtype = ufunc, dtype

    def reduce(self, values):
        return self.dtype.type(self.ufunc.reduce(values != 0))


@pytest.mark.parametrize("device", DEVICES)
def test_logical_reduce_of_numbers_is_their_truth(device):
    """``lor`` / ``land`` over non-bool values: a one-entry row gave its raw value (3) and
    the scalar form raised TypeError; both are the values' truth in the values' dtype."""
    xp = _xp(device)
    A = Matrix(xp.asarray([0, 1, 3, 3]), xp.asarray([0, 0, 1]), xp.asarray([3, 2, 5]), 3)
    for monoid in (sr.monoids.lor, sr.monoids.land):
        assert _host(sr.reduce(A, monoid, axis=1).values).tolist() == [1, 1]
        assert sr.reduce(A, monoid) == 1
    assert _host(sr.reduce(A, sr.monoids.lor, axis=0).values).tolist() == [1, 1]
    x = Vector.sparse(xp.asarray([0, 2]), xp.asarray([0.0, 4.5]), size=3)
    assert sr.reduce(x, sr.monoids.lor) == 1.0 and sr.reduce(x, sr.monoids.land) == 0.0


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_apply_and_select(device, data):
    A = data.draw(matrices())
    av, ap = _canonical_dense(A)
    M = _on(device, A)
    _assert_same(sr.apply(M, sr.unary.ainv), (-av, ap))
    _assert_same(sr.apply(M, sr.unary.positionj), (np.broadcast_to(
        np.arange(A.shape[1]), A.shape), ap))
    _assert_same(sr.apply(M, sr.ops.minus, right=2), (av - 2, ap))
    _assert_same(sr.apply(M, sr.ops.minus, left=2), (2 - av, ap))
    k = data.draw(st.integers(-2, 2))
    i, j = np.indices(A.shape)
    for kind, keep in [("tril", j <= i + k), ("triu", j >= i + k), ("diag", j == i + k),
                       ("offdiag", j != i + k)]:
        _assert_same(sr.select(M, kind, k), (av, ap & keep))
    _assert_same(sr.select(M, "nonzero"), (av, ap & (av != 0)))
    odd = sr.IndexUnaryOp("odd_row", lambda v, i, j, t, dt: i % 2 == 1, "(i % 2 == 1)",
                          lambda vd: np.dtype(bool))
    _assert_same(sr.select(M, odd), (av, ap & (i % 2 == 1)))


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_extract_matches_scipy(device, data):
    A = data.draw(matrices(shape=(data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))))
    rows = data.draw(st.lists(st.integers(0, A.shape[0] - 1), max_size=6))
    cols = data.draw(st.lists(st.integers(0, A.shape[1] - 1), max_size=6))
    av, ap = _canonical_dense(A)
    xp = _xp(device)
    got = sr.extract(_on(device, A), xp.asarray(rows, np.int64), xp.asarray(cols, np.int64))
    r, c = np.array(rows, int), np.array(cols, int)
    _assert_same(got, (av[np.ix_(r, c)], ap[np.ix_(r, c)]))
    np.testing.assert_array_equal(_dense(sr.extract(_on(device, A)))[1], ap)


@given(st.data())
def test_extract_of_every_column_renumbered_matches_scipy(data):
    """A permutation of the columns (the CPU backend's ``csr_permuted``: rows gathered,
    renamed and sorted over threads, rows of more than 16 entries by digits) with any
    rows."""
    from spbfs.cpu import permute

    A = data.draw(matrices(shape=(data.draw(st.integers(1, 12)), data.draw(st.integers(1, 40))),
                           max_nnz=200))
    rows = data.draw(st.lists(st.integers(0, A.shape[0] - 1), max_size=50))
    cols = data.draw(st.permutations(range(A.shape[1])))
    av, ap = _canonical_dense(A)
    r, c = np.array(rows, np.int64), np.array(cols, np.int64)
    with mock.patch.object(permute, "PARALLEL_ENTRIES", 1):
        got = sr.extract(A, r, c)
    _assert_same(got, (av[np.ix_(r, c)], ap[np.ix_(r, c)]))


def _assign_case(data):
    """A matrix, distinct rows and columns of it, a matrix to write there, the first
    matrix as dense (values, pattern) and the expected unmasked result, dense."""
    shape = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    A = data.draw(matrices(shape))
    rows = data.draw(st.lists(st.integers(0, shape[0] - 1), unique=True, max_size=4))
    cols = data.draw(st.lists(st.integers(0, shape[1] - 1), unique=True, max_size=4))
    B = data.draw(matrices((len(rows), len(cols))))
    av, ap = _canonical_dense(A)
    bv, bp = _canonical_dense(B)
    ev, ep = av.copy(), ap.copy()
    region = np.ix_(np.array(rows, int), np.array(cols, int))
    ep[region] = bp
    ev[region] = bv
    return shape, A, rows, cols, B, (av, ap), (ev, ep)


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_assign(device, data):
    shape, A, rows, cols, B, (av, ap), (ev, ep) = _assign_case(data)
    r, c = np.array(rows, int), np.array(cols, int)
    xp = _xp(device)
    got = sr.assign(_on(device, A), _on(device, B), xp.asarray(rows, np.int64),
                    xp.asarray(cols, np.int64))
    _assert_same(got, (ev, ep))
    got = sr.assign(_on(device, A), 9, xp.asarray(rows, np.int64), xp.asarray(cols, np.int64))
    ev2, ep2 = av.copy(), ap.copy()
    ev2[np.ix_(r, c)] = 9
    ep2[np.ix_(r, c)] = True
    _assert_same(got, (ev2, ep2))


def test_bad_arguments_name_the_argument():
    A = sp.csr_array(np.ones((2, 3)))
    B = sp.csr_array(np.ones((2, 2)))
    with pytest.raises(ValueError, match="A has 3 columns but B has 2 rows"):
        sr.mxm(A, B, sr.plus_times)
    with pytest.raises(TypeError, match="semiring must be a Semiring"):
        sr.mxm(A, A.T, "plus_times")
    with pytest.raises(ValueError, match="mask has shape"):
        sr.mxm(A, A.T, sr.plus_times, mask=B[:1])
    with pytest.raises(ValueError, match="A has shape .* but B has shape"):
        sr.ewise_add(A, B, sr.ops.plus)
    with pytest.raises(TypeError, match="op must be a BinaryOp or a Monoid"):
        sr.ewise_mult(A, A, "times")
    with pytest.raises(ValueError, match="axis must be None, 0 or 1"):
        sr.reduce(A, sr.monoids.plus, axis=2)
    with pytest.raises(ValueError, match="kind must be one of"):
        sr.select(A, "upper")
    with pytest.raises(ValueError, match="rows has an entry 5 outside"):
        sr.extract(A, [5])
    with pytest.raises(ValueError, match="cols must not repeat"):
        sr.assign(A, 1, [0], [1, 1])
    with pytest.raises(TypeError, match="must have a numeric dtype"):
        sr.apply(sp.csr_array(np.ones((2, 2), complex)), sr.unary.abs)
    with pytest.raises(ValueError, match="exactly one of left= or right="):
        sr.apply(A, sr.ops.plus)


# ----------------------------------------------------------------------------- CSR fast paths
#: An operator reading the positions of the entries it combines (i, j: row, column).
_AT = sr.BinaryOp("at", lambda x, a, i, j, dt: (x + 2 * a + 10 * i + 100 * j).astype(dt),
                  "(x + 2 * a + 10 * i + 100 * j)", "xaij",
                  lambda xd, ad: np.dtype(np.int64))


@st.composite
def related_pair(draw):
    """Two matrices of one shape whose patterns are independent, equal, or one inside the
    other (the element-wise operations take shortcuts for the last three)."""
    A = draw(matrices())
    relation = draw(st.sampled_from(["independent", "same", "subset", "superset"]))
    if relation == "independent":
        return A, draw(matrices(A.shape)), relation
    C = sp.csr_array(A)
    C.sum_duplicates()
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    coo = C.tocoo()
    rows, cols = coo.row, coo.col
    if relation == "subset":
        keep = rng.random(rows.size) < 0.5
        rows, cols = rows[keep], cols[keep]
    elif relation == "superset":
        extra = draw(matrices(A.shape)).tocoo()
        rows, cols = np.concatenate([rows, extra.row]), np.concatenate([cols, extra.col])
    values = rng.integers(-2, 3, rows.size)
    B = sp.coo_array((values, (rows, cols)), shape=A.shape).tocsr()
    B.data[:] = rng.integers(-2, 3, B.nnz)  # duplicates summed: fresh values, zeros too
    return A, B, relation


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("union", [True, False])
@given(pair=related_pair(), data=st.data())
def test_ewise_related_patterns(device, union, pair, data):
    A, B, _ = pair
    op = data.draw(st.sampled_from([sr.ops.plus, sr.ops.minus, sr.ops.pair, sr.ops.first,
                                    sr.ops.second, _AT]))
    fn = sr.ewise_add if union else sr.ewise_mult
    for X, Y in ((A, B), (B, A)):
        got = fn(_on(device, X), _on(device, Y), op)
        _assert_same(got, _pair_reference(X, Y, op, union))
        assert _is_canonical(got)


def _mask_variant(data, shape):
    mask = data.draw(matrices(shape))
    structural, complement = data.draw(st.booleans()), data.draw(st.booleans())
    mv, mp = _canonical_dense(mask)
    allowed = mp if structural else mp & (mv != 0)
    return mask, structural, complement, (mv, allowed)


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_every_mask_variant_on_the_csr_results(device, data):
    shape = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    A, B = data.draw(matrices(shape)), data.draw(matrices(shape))
    mask, structural, complement, allowed = _mask_variant(data, shape)
    out = data.draw(st.none() | matrices(shape))
    replace = data.draw(st.booleans())
    av, ap = _canonical_dense(A)
    i, j = np.indices(shape)
    cases = [
        (lambda **kw: sr.ewise_add(_on(device, A), _on(device, B), sr.ops.plus, **kw),
         _pair_reference(A, B, sr.ops.plus, True)),
        (lambda **kw: sr.ewise_mult(_on(device, A), _on(device, B), _AT, **kw),
         _pair_reference(A, B, _AT, False)),
        (lambda **kw: sr.select(_on(device, A), "triu", **kw), (av, ap & (j >= i))),
        (lambda **kw: sr.apply(_on(device, A), sr.unary.ainv, **kw), (-av, ap)),
        (lambda **kw: sr.extract(_on(device, A), **kw), (av, ap)),
    ]
    for run, (vals, present) in cases:
        kw = dict(mask=_on(device, mask), structural=structural, complement=complement)
        if out is not None:
            kw.update(out=_on(device, out), replace=replace)
        got = run(**kw)
        _assert_same(got, _apply_mask(vals, present, allowed, complement, out, replace))
        assert _is_canonical(got)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["tril", "triu", "diag", "offdiag"])
@given(data=st.data())
def test_select_diagonals_any_offset(device, kind, data):
    A = data.draw(matrices())
    thunk = data.draw(st.sampled_from([0, 1, -1, 2, -3, 0.5, -1.5, 10**12, -10**12]))
    av, ap = _canonical_dense(A)
    i, j = np.indices(A.shape)
    keep = {"tril": j <= i + thunk, "triu": j >= i + thunk, "diag": j == i + thunk,
            "offdiag": j != i + thunk}[kind]
    got = sr.select(_on(device, A), kind, thunk)
    _assert_same(got, (av, ap & keep))
    assert _is_canonical(got)
    # a result is an operand of the next operation as it is
    _assert_same(sr.ewise_add(got, _on(device, A), sr.ops.plus),
                 (np.where(ap & keep, 2 * av, av), ap))


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_masked_assign_and_result_canonical(device, data):
    shape, A, rows, cols, B, (av, ap), (tv, tp) = _assign_case(data)
    mask, structural, complement, allowed = _mask_variant(data, shape)
    replace = data.draw(st.booleans())
    xp = _xp(device)
    rows, cols = xp.asarray(rows, np.int64), xp.asarray(cols, np.int64)
    got = sr.assign(_on(device, A), _on(device, B), rows, cols)
    _assert_same(got, (tv, tp))
    assert _is_canonical(got)
    got = sr.assign(_on(device, A), _on(device, B), rows, cols, mask=_on(device, mask),
                    structural=structural, complement=complement, replace=replace)
    _assert_same(got, _apply_mask(tv, tp, allowed, complement, A, replace))


@pytest.mark.parametrize("device", DEVICES)
def test_reduce_keeps_the_monoid_dtype(device):
    xp = _xp(device)
    A = Matrix(xp.asarray([0, 2, 3]), xp.asarray([0, 1, 0]), xp.asarray([100, 100, 7], np.int8),
               2)
    assert sr.reduce(A, sr.monoids.plus) == np.int8(-49)  # 207 wraps in int8, as per row
    assert _host(sr.reduce(A, sr.monoids.plus, axis=1).values).tolist() == [-56, 7]
    assert sr.reduce(A, sr.monoids.plus, dtype=np.int64) == 207
    B = Matrix(xp.asarray([0, 2, 2]), xp.asarray([0, 1]), xp.asarray([True, True]), 2)
    assert sr.reduce(B, sr.monoids.plus) is True  # plus on bool is logical or
    assert sr.reduce(B, sr.monoids.times) is True


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_plus", "min_first",
                                  "max_min"])
@pytest.mark.parametrize("direction", ["push", "pull", "plain"])
def test_vxm_narrow_dtype_casts_the_operands_first(device, name, direction):
    """An output dtype narrower than the semiring's own result multiplies and adds in it,
    on every path: 1.5 * 2 is 1 * 2 in int32 (a compiled kernel truncated 3.0), and
    0.5 + 0.5 is 0 + 0 (it truncated each partial sum)."""
    semiring = getattr(sr, name)
    A = np.array([[2.0, 0.5, 0.0], [0.5, 2.0, 1.0], [0.0, 0.5, 0.5]])
    x = np.array([1.5, 0.5, 2.5])
    xi, Ai = x.astype(np.int32), A.astype(np.int32)
    add, mul = semiring.monoid.ufunc, semiring.multiply.func
    expected = [add.reduce(mul(xi[A[:, j] != 0], Ai[A[:, j] != 0, j], None, None, np.int32))
                for j in range(3)]
    xp = _xp(device)
    if direction == "plain":
        y = sr.vxm(xp.asarray(x), _on(device, A), semiring, dtype=np.int32)
    else:
        v = Vector.full(xp.asarray(x))
        v = v.to_sparse() if direction == "push" else v
        y = sr.vxm(v, _on(device, A), semiring, dtype=np.int32, direction=direction)
    assert y.dtype == np.int32
    assert _host(y.to_dense(0)).tolist() == expected


@pytest.mark.parametrize("popcount", ["numpy", "swar"])
@given(flags=st.lists(st.booleans(), max_size=300), data=st.data())
def test_count_before_matches_a_running_sum(popcount, flags, data):
    from spbfs.core import csr

    flags = np.array(flags, bool)
    bounds = np.array(sorted(data.draw(st.lists(st.integers(0, flags.size), max_size=20))),
                      data.draw(st.sampled_from([np.int32, np.int64])))
    running = np.concatenate([[0], np.cumsum(flags)])
    saved = csr.popcount
    if popcount == "swar":  # what numpy < 2 runs
        csr.popcount = csr.swar_popcount
    try:
        assert csr.count_before(flags, bounds).tolist() == running[bounds].tolist()
    finally:
        csr.popcount = saved


@pytest.mark.parametrize("device", DEVICES)
def test_masked_assign_promotes_as_the_unmasked_one(device):
    """A masked assign cast B's values to A's dtype (7.25 -> 7); it promotes, as without."""
    xp = _xp(device)
    A = Matrix(xp.asarray([0, 1, 2]), xp.asarray([0, 1]), xp.asarray([1, 2]), 2)
    B = Matrix(xp.asarray([0, 1]), xp.asarray([0]), xp.asarray([7.25]), 1)
    mask = Matrix(xp.asarray([0, 2, 4]), xp.asarray([0, 1, 0, 1]), xp.ones(4, bool), 2)
    rows = xp.asarray([0], np.int64)
    for m in (None, mask):
        got = sr.assign(A, B, rows, rows, mask=m)
        assert got.dtype == np.float64
        assert _host(got.data).tolist() == [7.25, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_a_division_by_zero_gives_what_numpy_gives(device):
    """A compiled operator dividing by zero raised ZeroDivisionError (numba's Python error
    model); it gives inf and NaN, as numpy (and the GPU's kernels) do."""
    xp = _xp(device)
    A = Matrix(xp.asarray([0, 2, 3]), xp.asarray([0, 1, 1]), xp.asarray([1.0, 0.0, 3.0]), 2)
    B = Matrix(xp.asarray([0, 2, 3]), xp.asarray([0, 1, 1]), xp.asarray([0.0, 0.0, 2.0]), 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        quotients = np.array([1.0, 0.0, 3.0]) / np.array([0.0, 0.0, 2.0])
        assert _host(sr.ewise_mult(A, B, sr.ops.div).data).tolist() == pytest.approx(
            quotients.tolist(), nan_ok=True)
        assert np.isinf(_host(sr.apply(A, sr.ops.div, right=0.0).data)[[0, 2]]).all()
        product = sr.mxm(A, B, sr.Semiring(sr.monoids.plus, sr.ops.div))
    assert _host(product.data).tolist() == [np.inf, np.inf, 1.5]  # 1/0, 1/0 + 0/2, 3/2


def test_select_on_a_vector():
    """A Vector is selected by its stored values, a mask over its positions (it raised
    AttributeError: a Vector has no shape)."""
    x = Vector.sparse(np.array([0, 2, 4]), np.array([1.0, -2.0, 3.0]), size=5)
    np.testing.assert_array_equal(sr.select(x, "valuegt", 0).to_dense(0), [1, 0, 0, 0, 3])
    mask = Vector.sparse(np.array([2, 4]), np.array([True, True]), size=5)
    np.testing.assert_array_equal(sr.select(x, "valuelt", 2, mask=mask).to_dense(0),
                                  [0, 0, -2, 0, 0])
    np.testing.assert_array_equal(
        sr.select(x, "valuegt", 0, mask=mask, complement=True).to_dense(0), [1, 0, 0, 0, 0])


_COMPARE = {"valuegt": int.__gt__, "valuele": int.__le__, "valueeq": int.__eq__}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_select_by_value_compares_64_bit_integers_exactly(device, dtype):
    """Found by the dtype fuzz: uint64 values against an int thunk (and int64 values
    against a uint64 one) compared in float64, so ``2**62 + 1 > 2**62`` was False; a thunk
    past the values' range compares as what it is, every value below or above it."""
    xp, info = _xp(device), np.iinfo(dtype)
    values = np.unique(np.array([info.min, info.min + 1, 0, 2**62, 2**62 + 1, info.max - 1,
                                 info.max], dtype))
    where = xp.arange(values.size)
    A = Matrix(xp.asarray([0, values.size]), where, xp.asarray(values), 1, ncols=values.size)
    x = Vector.sparse(where, xp.asarray(values), size=values.size)
    thunks = [-1, 0, 2**62, 2**62 + 1, info.max, info.min, -(2**63), 2**63, 2**64 - 1,
              np.int64(2**62), np.uint64(2**62 + 1), np.int64(-1), np.uint64(2**63)]
    for kind, compare in _COMPARE.items():
        for thunk in thunks:
            want = np.flatnonzero([compare(int(v), int(thunk)) for v in values]).tolist()
            assert _host(sr.select(A, kind, thunk).indices).tolist() == want, (kind, thunk)
            assert _host(sr.select(x, kind, thunk).indices).tolist() == want, (kind, thunk)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("monoid", [sr.monoids.lor, sr.monoids.land])
def test_logical_products_of_numbers_are_their_truth(device, monoid):
    """Found by the dtype fuzz: a lone product of ``lor`` / ``land`` over numbers was kept as
    it is (5) where a fold of several gave its truth (1); every product path now gives the
    truth, as ``reduce`` does, and a dense ``out`` keeps what its mask leaves."""
    xp, semiring = _xp(device), sr.Semiring(monoid, sr.ops.times)
    fold = int(monoid.ufunc(3, 0))  # the fold of a row's two products, 3 and 0
    A = _on(device, np.array([[5, 0], [3, 2]]))
    eye = np.eye(2, dtype=np.int64)
    C = sr.mxm(A, _on(device, eye), semiring)  # one product an entry
    assert _host(C.data).tolist() == [1, 1, 1]
    for mask in (None, _on(device, np.ones((2, 2)))):
        C = sr.mxm(A, _on(device, np.array([[1, 1], [0, 1]])), semiring, mask)
        assert _host(C.data).tolist() == [1, 1, 1, int(monoid.ufunc(3, 2))]
    assert _host(sr.mxm(A, xp.asarray(eye), semiring)).tolist() == [[1, 0], [fold, fold]]
    out = xp.full((2, 2), 7, np.int64)
    keep = xp.asarray(np.array([[True, False], [False, True]]))
    for layout in (out, xp.asfortranarray(out.copy())):  # in place, and through a copy
        sr.mxm(A, xp.asarray(eye), semiring, keep, out=layout)
        assert _host(layout).tolist() == [[1, 7], [7, fold]]
    E = _on(device, np.array([[1, 1], [0, 1]]))
    for direction in ("push", "pull"):
        y = sr.vxm(xp.asarray([5, 3]), E, semiring, direction=direction)
        assert _host(y.to_dense(0)).tolist() == [1, 1]


@pytest.mark.parametrize("device", DEVICES)
def test_mxm_over_a_truth_monoid_of_one_repeated_product(device):
    """Found by a fuzz: where every product was the same (iso-valued operands) mxm took
    ``lor`` as idempotent, so ``lor(9, 9)`` gave 9, where two different products gave 1."""
    lor_times = sr.Semiring(sr.monoids.lor, sr.ops.times)
    A = _on(device, np.array([[3, 3]]))
    for B in (np.array([[3], [3]]), np.array([[3], [5]])):
        assert _host(sr.mxm(A, _on(device, B), lor_times).data).tolist() == [1]
    # products that are truths already keep the shortcut
    C = sr.mxm(_on(device, np.array([[1, 1]])), _on(device, np.array([[1], [1]])), lor_times)
    assert _host(C.data).tolist() == [1]


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_vxm_refuses_a_dtype_its_products_do_not_fit(direction):
    """Found by a fuzz: ``div`` of int64 values with ``dtype=int64`` cut its float partial
    sums in the order the kernel added them (0 where the products' truncations sum to -1)."""
    plus_div = sr.Semiring(sr.monoids.plus, sr.ops.div)
    A = sp.csr_array(np.array([[4], [-3], [5]]))
    with pytest.raises(TypeError, match="dtype int64 cannot hold the div products"):
        sr.vxm(np.array([-2, 5, 2]), A, plus_div, dtype=np.int64, direction=direction)
    y = sr.vxm(np.array([-2, 5, 2]), A, plus_div, dtype=np.float64, direction=direction)
    np.testing.assert_allclose(y.to_dense(), [-2 / 4 + 5 / -3 + 2 / 5])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_nan_and_inf_against_early_exits_and_order(device, direction):
    """Found by a fuzz: a pull stopped at ``times``' terminal 0 where a later inf makes
    NaN (the push gave NaN), and ``min``/``max`` kept or dropped a NaN by its position
    (``[1, NaN]`` gave 1, ``[NaN, 1]`` NaN).  Every form now follows numpy's ``multiply``,
    ``minimum`` and ``maximum``: NaN wins wherever it is."""
    xp = _xp(device)
    times_second = sr.Semiring(sr.monoids.times, sr.ops.second)
    A = Matrix(xp.asarray([0, 1, 2]), xp.asarray([0, 0]), xp.asarray([0.0, np.inf]), 2,
               ncols=1)  # a stored 0, then inf
    y = sr.vxm(xp.ones(2), A, times_second, direction=direction)
    assert np.isnan(_host(y.to_dense())).all()
    for column in ([1.0, np.nan], [np.nan, 1.0]):
        B = _on(device, np.array([[v] for v in column]))
        for semiring in (sr.min_plus, sr.max_plus):
            y = sr.vxm(xp.zeros(2), B, semiring, direction=direction)
            assert np.isnan(_host(y.to_dense())).all(), (column, semiring.name)
        for op in (sr.ops.min, sr.ops.max):
            z = sr.ewise_add(Vector.full(xp.asarray(column)),
                             Vector.full(xp.asarray(column[::-1])), op)
            assert np.isnan(_host(z.to_dense())).all(), (column, op.name)


@pytest.mark.parametrize("call, word", [
    (lambda A: sr.vxm(np.array(["a", "b", "c"]), A, sr.plus_times), "x must have a numeric"),
    (lambda A: sr.vxm(np.array([1, None, 2], dtype=object), A, sr.plus_times),
     "x must have a numeric"),
    (lambda A: sr.vxm(np.ones(3), A, sr.plus_times, dtype="str"), "dtype must be a numeric"),
    (lambda A: sr.vxm(np.ones(3), A, sr.plus_times, mask=sp.csr_array(np.ones((1, 3)))),
     "mask must be a Vector or a 1-D bool array"),
    (lambda A: sr.mxm(A, np.ones((3, 2)), sr.plus_times, mask=sp.csr_array(np.ones((3, 2)))),
     "mask must be a 2-D bool array"),
])
def test_bad_operands_named(call, word):
    """Found by a fuzz: these reached numba's typing (an internal error) or were reported as
    a shape they do not have (a sparse mask read as a 0-D array)."""
    with pytest.raises(TypeError, match=word):
        call(sp.csr_array(np.eye(3)))


def test_matrix_of_a_negative_shape_is_refused():
    with pytest.raises(ValueError, match="non-negative shape"):
        Matrix(np.array([0]), np.array([], int), np.ones(0), 0, ncols=-1)


def test_extract_of_long_rows_renumbered_matches_scipy():
    """Rows of hundreds of entries over 3,000 columns (the radix sort's two passes of
    digits), the values moved with their columns."""
    rng = np.random.default_rng(5)
    A = sp.random_array((40, 3000), density=0.2, format="csr", rng=rng)
    rows = rng.integers(0, 40, 60)
    cols = rng.permutation(3000)
    got = sr.extract(A, rows, cols).to_scipy()
    want = A[rows][:, cols]
    assert got.has_sorted_indices and abs(got - want).max() == 0
