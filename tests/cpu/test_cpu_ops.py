"""The CPU backend's compiled operations (spbfs.cpu.products, spbfs.cpu.opcompile): the C
expressions translated for numba, the kernels against dense references for named and
user-defined operators, the in-memory build where no cache directory is writable, and
concurrent calls from 8 threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spbfs
from spbfs import semiring as sr
from spbfs.cpu import opcompile
from spbfs.cpu import products as cp


def _absdiff(x, a, i, j, dt):
    wide = np.int64 if dt == np.bool_ else dt  # numpy has no bool subtraction
    return np.abs(x.astype(wide) - a.astype(wide)).astype(dt)


ABSDIFF = sr.BinaryOp("absdiff", _absdiff,
                      "(x > a ? x - a : a - x)", "xa", lambda xd, ad: np.result_type(xd, ad))
AT = sr.BinaryOp("at", lambda x, a, i, j, dt: (x + 2 * a + 10 * i + 100 * j).astype(dt),
                 "(x + 2 * a + 10 * i + 100 * j)", "xaij", lambda xd, ad: np.dtype(np.int64))
OPS = [sr.ops.plus, sr.ops.times, sr.ops.min, sr.ops.first, sr.ops.second, sr.ops.pair,
       ABSDIFF, AT]


@pytest.mark.parametrize(("expr", "names", "env", "want"), [
    ("(x < a ? x : a)", "xaij", {"x": 3, "a": 2}, 2),
    ("((x != 0) && (a != 0))", "xaij", {"x": 3, "a": 0}, False),
    ("(a || b)", "ab", {"a": 0.0, "b": 2.5}, True),
    ("!a", "ab", {"a": 0}, True),
    ("x > 1 ? x > 2 ? 3 : 2 : 1", "xaij", {"x": 5}, 3),
    ("((T)x / (T)a)", "xaij", {"x": 3, "a": 2}, 1.5),
    ("(1.0f / (double)v)", ("v",), {"v": 4}, 0.25),
    ("fmax(x, a) - abs(-2) + (x << 1) % 5", "xaij", {"x": 3, "a": 7}, 6),
    ("(i % 2 == 1)", "ij", {"i": 3}, True),
])
def test_c_expressions_translate(expr, names, env, want):
    py = opcompile.c_to_python(expr, names)
    assert eval(py, {"np": np, "math": __import__("math")}, env) == want


@pytest.mark.parametrize("expr", ["x +", "(x", "y + 1", "foo(x)", "x ; a"])
def test_c_expressions_rejected(expr):
    with pytest.raises(ValueError):
        opcompile.c_to_python(expr, "xaij")


@st.composite
def csr(draw, shape, dtype):
    m, n = shape
    dense = draw(st.lists(st.integers(-3, 3), min_size=m * n, max_size=m * n))
    keep = draw(st.lists(st.booleans(), min_size=m * n, max_size=m * n))
    a = np.array(dense).reshape(m, n).astype(dtype)
    present = np.array(keep).reshape(m, n)
    rows, cols = np.nonzero(present)
    A = sp.csr_array((a[rows, cols], (rows, cols)), shape=shape)
    A.sort_indices()
    return A, a * present, present


def _dtypes():
    return st.sampled_from([np.bool_, np.int64, np.float32, np.float64])


def _scalar(op, x, a, i, j, dt):
    return op.func(np.array([x]), np.array([a]), np.array([i]), np.array([j]), dt)[0]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_ewise_csr_matches_reference(data):
    m, n = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    da, db = data.draw(_dtypes()), data.draw(_dtypes())
    (A, av, ap), (B, bv, bp) = data.draw(csr((m, n), da)), data.draw(csr((m, n), db))
    op, union = data.draw(st.sampled_from(OPS)), data.draw(st.booleans())
    dtype = np.dtype(op.result_dtype(np.dtype(da), np.dtype(db)))
    ptr, idx, val = cp.ewise_csr(op, union, A.indptr, A.indices, A.data, B.indptr, B.indices,
                                 B.data, dtype)
    assert val.dtype == dtype
    want = (ap | bp) if union else (ap & bp)
    got = sp.csr_array((val, idx, ptr), shape=(m, n))
    rows, cols = np.nonzero(want)
    assert got.nnz == rows.size
    assert np.array_equal(np.diff(ptr), want.sum(axis=1))
    gd = got.toarray()
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        if ap[r, c] and bp[r, c]:
            expect = _scalar(op, av[r, c], bv[r, c], r, c, dtype)
        else:
            expect = (av if ap[r, c] else bv)[r, c]
        assert gd[r, c] == dtype.type(expect)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_select_csr_matches_reference(data):
    m, n = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7))
    A, av, ap = data.draw(csr((m, n), data.draw(_dtypes())))
    thunk = data.draw(st.integers(-3, 3))
    odd = sr.IndexUnaryOp("odd_sum", lambda v, i, j, t, dt: (i + j + t) % 2 == 1,
                          "((i + j + thunk) % 2 == 1)", lambda vd: np.dtype(bool), "ij")
    op = data.draw(st.sampled_from([sr.select_ops.tril, sr.select_ops.triu,
                                    sr.select_ops.diag, sr.select_ops.offdiag,
                                    sr.select_ops.valuegt, sr.select_ops.nonzero, odd]))
    ptr, idx, val = cp.select_csr(op, A.indptr, A.indices, A.data, thunk)
    rows, cols = np.nonzero(ap)
    keep = op.func(av[rows, cols], rows, cols, thunk, bool)
    want = np.zeros((m, n), bool)
    want[rows[keep], cols[keep]] = True
    got = sp.csr_array((val, idx, ptr), shape=(m, n))
    assert got.nnz == int(want.sum())
    assert np.array_equal(got.toarray(), np.where(want, av, 0).astype(A.dtype))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_masked_dot_matches_reference(data):
    m, k, n = (data.draw(st.integers(1, 6)) for _ in range(3))
    (A, av, ap), (B, bv, bp) = data.draw(csr((m, k), np.int64)), data.draw(csr((k, n),
                                                                             np.float64))
    semiring = sr.Semiring(data.draw(st.sampled_from([sr.monoids.plus, sr.monoids.min])),
                           data.draw(st.sampled_from(OPS)))
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    npos = data.draw(st.integers(0, 12))
    rows = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=npos,
                                       max_size=npos)), np.int64)
    cols = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=npos,
                                       max_size=npos)), np.int64)
    Am, BT = sr.Matrix.from_any(A), sr.Matrix.from_any(B).T.canonical()
    present, values = cp.masked_dot(Am, BT, rows, cols, semiring, dtype)
    for p in range(npos):
        i, j = rows[p], cols[p]
        ks = np.flatnonzero(ap[i] & bp[:, j])
        assert present[p] == (ks.size > 0)
        if ks.size:
            prods = [_scalar(semiring.multiply, av[i, kk], bv[kk, j], kk, j, dtype)
                     for kk in ks]
            expect = semiring.monoid.ufunc.reduce(np.array(prods, dtype))
            assert np.isclose(values[p], expect)


def test_in_memory_modules_where_nothing_is_writable(monkeypatch):
    """No writable cache directory: the kernels are built in memory and still run."""
    monkeypatch.setattr(opcompile, "_dir", [None])
    monkeypatch.setattr(opcompile, "_modules", {})
    A = sr.Matrix.from_any(sp.csr_array(np.array([[0, 1.0, 4.0], [0, 0, 2.0], [0, 0, 0]])))
    ptr, idx, val = cp.spgemm(A, A, sr.min_plus, None, False, False, np.dtype(np.float64))
    assert (ptr.tolist(), idx.tolist(), val.tolist()) == ([0, 1, 1, 1], [2], [3.0])
    mod = next(iter(opcompile._modules.values()))
    assert not hasattr(mod, "__file__")


def test_read_only_kernel_dir_falls_back(tmp_path, monkeypatch):
    """A kernel directory that cannot be written is skipped."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    monkeypatch.setenv("SPBFS_KERNEL_DIR", str(ro))
    monkeypatch.setenv("XDG_CACHE_HOME", str(ro))
    monkeypatch.setattr(opcompile, "_dir", [])
    try:
        import os

        if os.access(ro, os.W_OK):  # root writes anywhere
            pytest.skip("running as root")
        assert opcompile.kernel_dir() is None
    finally:
        ro.chmod(0o700)


def test_eight_threads_one_matrix():
    """Concurrent products, pushes and selections on one matrix from 8 threads."""
    rng = np.random.default_rng(3)
    A = sp.random_array((400, 400), density=0.05, rng=rng, format="csr")
    M = sr.Matrix.from_any(A)
    want = sr.mxm(M, M, sr.min_plus, M, structural=True).to_scipy().toarray()
    x = sr.Vector.sparse(np.arange(0, 400, 3), np.ones(134), size=400)
    want_v = sr.vxm(x, M, sr.min_plus).to_dense()
    want_s = sr.select(M, "tril").to_scipy().toarray()

    def job(_):
        for _ in range(5):
            got = sr.mxm(M, M, sr.min_plus, M, structural=True).to_scipy().toarray()
            assert np.array_equal(got, want)
            assert np.array_equal(sr.vxm(x, M, sr.min_plus).to_dense(), want_v)
            assert np.array_equal(sr.select(M, "tril").to_scipy().toarray(), want_s)
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(job, range(8)))


@pytest.mark.parametrize("parts", [1, 3])
def test_products_one_after_another_on_kept_scratch(monkeypatch, request, parts):
    """Products reuse their thread's scratch, a set per range of rows run at once: a run of
    them of several widths, value types and masks (plain, complemented, none), from several
    threads, each as scipy gives; a masked run stopped midway leaves nothing behind."""
    if parts > 1:  # every product split over threads
        monkeypatch.setattr(cp, "PARALLEL_WORK", 1)
        spbfs.set_num_threads(parts)
        request.addfinalizer(lambda: spbfs.set_num_threads(None))
    rng = np.random.default_rng(5)
    shapes = [(30, 20, 50), (30, 20, 7), (12, 40, 3000), (30, 20, 50), (90, 20, 50)]
    cases = []
    for m, k, n in shapes:
        A = sp.random_array((m, k), density=0.5, rng=rng, format="csr")
        B = sp.random_array((k, n), density=0.5, rng=rng, format="csr")
        mask = sp.random_array((m, n), density=0.3, rng=rng, format="csr")
        Ad = np.where(A.toarray() != 0, A.toarray(), np.inf)
        Bd = np.where(B.toarray() != 0, B.toarray(), np.inf)
        full = (Ad[:, :, None] + Bd[None, :, :]).min(axis=1)  # min_plus, inf: no entry
        cases.append((A, B, mask, full))

    def dense(C):
        return np.where(C.to_scipy().toarray() != 0, C.to_scipy().toarray(), np.inf)

    def run(_):
        for A, B, mask, full in cases * 3:
            allowed = mask.toarray() != 0
            assert np.allclose(dense(sr.mxm(A, B, sr.min_plus)), full)
            got = sr.mxm(A, B, sr.min_plus, mask, structural=True)
            assert np.allclose(dense(got), np.where(allowed, full, np.inf))
            got = sr.mxm(A, B, sr.min_plus, mask, structural=True, complement=True)
            assert np.allclose(dense(got), np.where(allowed, np.inf, full))
        return True

    assert run(0)
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(4)))
    # row 29 of a 30-row product leaves column 0 marked as row 59 of a 90-row one would
    B = sp.identity(4, format="csr")
    for rows, row in ((30, 29), (90, 59)):
        A = sp.csr_array(([1.0], ([row], [0])), shape=(rows, 4))
        assert sr.mxm(A, B, sr.min_plus).nnz == 1
    A, B, mask, full = cases[0]
    for flags in cp._SCRATCH.flags:
        flags[:] = 2  # as if a masked run had stopped midway
    cp._SCRATCH.clean = False
    got = sr.mxm(A, B, sr.min_plus, mask, structural=True)
    assert np.allclose(dense(got), np.where(mask.toarray() != 0, full, np.inf))
    assert len(cp._SCRATCH.flags) >= parts and cp._SCRATCH.clean
    assert not any(flags.any() for flags in cp._SCRATCH.flags)


@pytest.mark.parametrize("semiring", [sr.min_plus, sr.max_min, sr.any_first, sr.lor_land])
@pytest.mark.parametrize("masked", [False, True])
def test_iso_valued_products(semiring, masked):
    """Operands holding one value each (SuiteSparse's iso matrices): the product is computed
    on the pattern alone and filled with the one product, as the full product gives."""
    rng = np.random.default_rng(4)
    A = sp.random_array((60, 50), density=0.1, rng=rng, format="csr")
    B = sp.random_array((50, 40), density=0.1, rng=rng, format="csr")
    A.data[:], B.data[:] = 2.0, 3.0
    mask = sp.random_array((60, 40), density=0.3, rng=rng, format="csr") if masked else None
    got = sr.mxm(A, B, semiring, mask, structural=True).to_scipy().toarray()
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    Ad, Bd = A.toarray() != 0, B.toarray() != 0
    hit = (Ad.astype(int) @ Bd.astype(int)) > 0
    if masked:
        hit &= mask.toarray() != 0
    one = _scalar(semiring.multiply, 2.0, 3.0, 0, 0, dtype)
    assert np.array_equal(got, np.where(hit, one, 0).astype(dtype))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_segment_reduce_matches_numpy_reduceat(data):
    """Short and long segments (the four-accumulator loop from 8 values on)."""
    n = data.draw(st.integers(1, 120))
    dtype = data.draw(st.sampled_from([np.int64, np.float64, np.float32]))
    values = np.array(data.draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n)), dtype)
    cuts = data.draw(st.sets(st.integers(1, max(1, n - 1)), max_size=12)) if n > 1 else set()
    starts = np.array([0, *sorted(cuts)], np.int64)
    for monoid, ufunc in ((sr.monoids.plus, np.add), (sr.monoids.min, np.minimum),
                          (sr.monoids.max, np.maximum)):
        got = cp.segment_reduce(monoid, values, starts, dtype)
        assert np.array_equal(got, ufunc.reduceat(values, starts)), monoid.name


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1,
                max_size=50), st.integers(1, 4))
def test_whole_reductions_over_threads_equal_one_pass(values, threads):
    """``reduce`` of a whole array split over threads (``reduce_values``): numpy's own value
    for ``min``, ``max`` (NaN included) and integer sums; a float sum stays one pass."""
    from unittest import mock

    x = np.array(values)
    ints = np.clip(np.nan_to_num(x), -1e6, 1e6).astype(np.int64)
    spbfs.set_num_threads(threads)
    try:
        with mock.patch.object(cp, "PARALLEL_REDUCE", 1):
            got = [sr.reduce(sp.csr_array(x.reshape(1, -1)), m)
                   for m in (sr.monoids.min, sr.monoids.max)]
            got_int = sr.reduce(sp.csr_array(ints.reshape(1, -1)), sr.monoids.plus)
            assert cp.reduce_values(sr.monoids.plus, x, np.float64) is None
    finally:
        spbfs.set_num_threads(None)
    kept = x[x != 0]  # the CSR stores the nonzero entries
    if kept.size:
        np.testing.assert_equal(got, [np.min(kept), np.max(kept)])
    assert got_int == ints.sum()


@pytest.mark.parametrize("scaled", [False, True])
def test_shifted_diagonal_against_scipy(scaled):
    """``(e I - s A) + D`` (then ``scale[i] * (v * scale[j])``) merged in one pass equals
    scipy's sums with zeros dropped; an int64 beyond 2**53 stays exact unscaled."""
    from spbfs.cpu.diagonal import shifted_diagonal

    rng = np.random.default_rng(5)
    A = sp.random_array((40, 40), density=0.2, format="csr", rng=rng,
                        data_sampler=lambda size: rng.integers(-3, 4, size)).astype(np.int64)
    A.sum_duplicates()
    d = rng.integers(-2, 3, 40)
    want = (2 * sp.eye_array(40, format="csr", dtype=np.int64) - 3 * A
            + sp.dia_array((d, 0), shape=(40, 40))).tocsr()
    scale = rng.random(40) * (rng.random(40) < 0.8) if scaled else None
    if scaled:
        rows = np.repeat(np.arange(40), np.diff(want.indptr))
        want = sp.csr_array((scale[rows] * (want.data * scale[want.indices]), want.indices,
                             want.indptr), shape=want.shape)
    want.eliminate_zeros()
    ptr, idx, val = shifted_diagonal(A.indptr, A.indices, A.data, 3, 2, d, scale)
    assert val.dtype == (np.float64 if scaled else np.int64)
    np.testing.assert_array_equal(ptr, want.indptr)
    np.testing.assert_array_equal(idx, want.indices)
    np.testing.assert_array_equal(val, want.data)
    big = np.int64(2**60 + 1)
    _, _, val = shifted_diagonal(np.array([0, 1, 1]), np.array([1]), np.array([big]), 1, 0,
                                 np.array([big, 0]))
    assert val.tolist() == [2**60 + 1, -(2**60 + 1)]
