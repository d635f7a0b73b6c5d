"""The CPU's dense pull (:mod:`spbfs.cpu.pull`) against the generic kernel it stands in for,
bit for bit, and the cases it leaves to that kernel."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import multigraphs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import products, pull, rank, renumber
from spbfs.semiring import Semiring, monoids, ops, plus_pair, plus_times

PLUS_FIRST = Semiring(monoids.plus, ops.first)


@pytest.fixture
def split_small(monkeypatch):
    """Every pull split over 3 threads, however small."""
    monkeypatch.setattr(pull, "PARALLEL_ENTRIES", 0)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


def _both(T, semiring, x_present, x, mask=None):
    data = T.data.astype(np.float64)
    args = (T.indptr, T.indices, data, x_present, x, semiring, mask, False, np.float64)
    return pull.spmv(*args), products.spmv(*args)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once, kept
@given(multigraphs(max_n=50, max_m=300, weights="float"), st.integers(0, 2**32 - 1),
       st.sampled_from([PLUS_FIRST, plus_times]))
def test_dense_sum_equals_the_generic_pull(split_small, A, seed, semiring):
    n = A.shape[0]
    x = np.random.default_rng(seed).standard_normal(n)
    (p, v), (p0, v0) = _both(A, semiring, np.ones(n, bool), x)
    np.testing.assert_array_equal(p, p0)
    assert v.tobytes() == v0.tobytes()  # the same sums in the same order
    values = A.data.astype(np.float64) if semiring is plus_times else np.ones(A.nnz)
    # y[j] sums x over row j's entries (the arrays stand for a transpose); zeros count
    expected = sp.csr_array((values, A.indices, A.indptr), shape=A.shape) @ x
    np.testing.assert_allclose(v, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["absent", "mask", "pair", "float32"])
def test_other_cases_take_the_generic_pull(case, monkeypatch):
    A = sp.random(30, 30, density=0.2, random_state=1, format="csr")
    n = 30
    x = np.arange(n, dtype=np.float64)
    present = np.ones(n, bool)
    semiring, mask = PLUS_FIRST, None
    if case == "absent":
        present[::3] = False
    elif case == "mask":
        mask = np.arange(n) % 2 == 0
    elif case == "pair":
        semiring = plus_pair
    else:
        x = x.astype(np.float32)
    monkeypatch.setattr(pull, "_sum_first", None)  # the dense sum would fail
    monkeypatch.setattr(pull, "_sum_times", None)
    (p, v), (p0, v0) = _both(A, semiring, present, x, mask)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(v, v0)


def test_eight_threads_on_one_matrix(split_small):
    """Eight callers at once, each pull split over three threads: every answer right."""
    A = sp.random(3000, 3000, density=0.002, random_state=2, format="csr")
    xs = [np.random.default_rng(k).random(3000) for k in range(8)]
    expected = [products.spmv(A.indptr, A.indices, A.data, np.ones(3000, bool), x, plus_times,
                              None, False, np.float64)[1] for x in xs]

    def one(k):
        got = pull.spmv(A.indptr, A.indices, A.data, np.ones(3000, bool), xs[k % 8],
                        plus_times, None, False, np.float64)[1]
        return got.tobytes() == expected[k % 8].tobytes()

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(64)))


# -- the affine pull (spbfs/cpu/rank.py): PageRank's step in one pass ----------------------

@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 2-4 rows, every step split over 3 threads, however small."""
    monkeypatch.setattr(rank, "PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(rank, "JACOBI_SHIFT", 1)
    monkeypatch.setattr(rank, "GS_SHIFT", 2)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


def _affine_reference(T, data, c, x, scale, alpha, const, gauss_seidel, shift):
    """The step written out row by row (a small graph: a loop is fine in a test)."""
    n = x.size
    y, c_new = np.zeros(n), np.zeros(n)
    for j in range(n):
        b0 = j >> shift << shift
        s = 0.0
        for p in range(T.indptr[j], T.indptr[j + 1]):
            i = T.indices[p]
            v = c_new[i] if gauss_seidel and b0 <= i < j else c[i]
            s += v * (1.0 if data is None else data[p])
        y[j] = alpha * s + (const[j] if np.ndim(const) else const)
        c_new[j] = y[j] * scale[j]
    return y, c_new


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(multigraphs(max_n=40, max_m=250, weights="float"), st.integers(0, 2**32 - 1),
       st.booleans(), st.booleans(), st.booleans())
def test_affine_pull_equals_its_definition(small_chunks, A, seed, weighted, vector, gs):
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    T = sp.csr_array(A)
    data = T.data.astype(np.float64) if weighted else None
    x = rng.random(n)
    scale = np.where(rng.random(n) < 0.2, 0.0, rng.random(n))
    const = rng.random(n) if vector else 0.125
    c = x * scale
    out, out_scaled = np.full(n, np.nan), np.full(n, np.nan)
    change, total, zero = rank.pull_affine(T.indptr, T.indices, data, c, x, scale, 0.85,
                                           const, out, out_scaled, gs)
    want, want_scaled = _affine_reference(T, data, c, x, scale, 0.85, const, gs,
                                          rank.GS_SHIFT if gs else rank.JACOBI_SHIFT)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out_scaled, want_scaled, rtol=1e-12, atol=1e-15)
    assert change == pytest.approx(np.abs(want - x).sum(), rel=1e-12, abs=1e-15)
    assert total == pytest.approx(want.sum(), rel=1e-12, abs=1e-15)
    assert zero == pytest.approx(want[scale == 0].sum(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("gs", [False, True])
def test_affine_pull_is_the_same_on_any_number_of_threads(gs, monkeypatch):
    """Chunks fixed by the rows, totals summed in chunk order: 1, 2 and 3 threads give the
    same bytes (a Gauss-Seidel sweep included)."""
    monkeypatch.setattr(rank, "PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(rank, "GS_SHIFT", 6)
    monkeypatch.setattr(rank, "JACOBI_SHIFT", 5)
    A = sp.random(2000, 2000, density=0.004, random_state=3, format="csr")
    n = 2000
    x = np.random.default_rng(0).random(n)
    scale = 1 / np.maximum(np.diff(A.indptr), 1)
    found = []
    for threads in (1, 2, 3):
        spbfs.set_num_threads(threads)
        out, out_scaled = np.empty(n), np.empty(n)
        sums = rank.pull_affine(A.indptr, A.indices, A.data, x * scale, x, scale, 0.85,
                                0.15 / n, out, out_scaled, gs)
        found.append((out.tobytes(), out_scaled.tobytes(), sums))
    spbfs.set_num_threads(None)
    assert found[0] == found[1] == found[2]


def test_affine_pull_from_eight_threads(small_chunks):
    """Eight callers at once on one matrix, each step split over three threads."""
    A = sp.random(3000, 3000, density=0.002, random_state=2, format="csr")
    n = 3000
    scale = 1 / np.maximum(np.diff(A.indptr), 1)
    xs = [np.random.default_rng(k).random(n) for k in range(8)]

    def step(x):
        out, out_scaled = np.empty(n), np.empty(n)
        sums = rank.pull_affine(A.indptr, A.indices, A.data, x * scale, x, scale, 0.85, 0.1,
                                out, out_scaled, True)
        return out.tobytes(), sums

    expected = [step(x) for x in xs]
    with ThreadPoolExecutor(8) as pool:
        assert all(got == expected[k % 8]
                   for k, got in enumerate(pool.map(lambda k: step(xs[k % 8]), range(64))))


def test_the_operation_generic_step_equals_the_kernel():
    """spbfs.semiring.pull_affine's generic path (a vxm and array updates, the GPU's and
    the ranks') and the CPU kernel give the same step."""
    from spbfs.semiring import _affine, plus_times, pull_affine

    A = sp.random(500, 500, density=0.02, random_state=4, format="csr")
    x = np.random.default_rng(1).random(500)
    scale = np.where(np.diff(A.indptr) > 0, 1 / np.maximum(np.diff(A.indptr), 1), 0.0)
    for semiring in (plus_times, PLUS_FIRST):
        fast = pull_affine(x, A, semiring, scale=scale, alpha=0.85, constant=0.001)
        slow = _affine._generic_step(x, A, semiring, scale, 0.85, 0.001, None)
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


# -- the renumbered layout (spbfs/cpu/renumber.py): an unweighted Jacobi step's sources
# numbered by how often they are read, hot entries in 16 bits ------------------------------

@pytest.fixture
def renumbered(monkeypatch):
    """Every unweighted Jacobi step on the layout: hot sources the first 2**2, any skew,
    chunks of 2 rows over 3 threads; no layout kept from another test."""
    monkeypatch.setattr(rank, "PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(rank, "JACOBI_SHIFT", 1)
    monkeypatch.setattr(rank, "LAYOUT_ENTRIES", 0)
    monkeypatch.setattr(renumber, "HOT_BITS", 2)
    monkeypatch.setattr(renumber, "HOT_SHARE", 0.0)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


def _step(T, c, x, scale, const, out=None, derived=None):
    n = x.size
    out = out if out is not None else (np.full(n, np.nan), np.full(n, np.nan))
    sums = rank.pull_affine(T.indptr, T.indices, None, c, x, scale, 0.85, const, *out, False,
                            derived)
    return out[0], out[1], sums


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(multigraphs(max_n=40, max_m=250), st.integers(0, 2**32 - 1), st.booleans())
def test_renumbered_step_equals_its_definition(renumbered, A, seed, vector):
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    T = sp.csr_array(A)
    x = rng.random(n)
    scale = np.where(rng.random(n) < 0.2, 0.0, rng.random(n))
    const = rng.random(n) if vector else 0.125
    c = x * scale
    out, out_scaled, (change, total, zero) = _step(T, c, x, scale, const)
    want, want_scaled = _affine_reference(T, None, c, x, scale, 0.85, const, False, 1)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out_scaled, want_scaled, rtol=1e-12, atol=1e-15)
    assert change == pytest.approx(np.abs(want - x).sum(), rel=1e-12, abs=1e-15)
    assert total == pytest.approx(want.sum(), rel=1e-12, abs=1e-15)
    assert zero == pytest.approx(want[scale == 0].sum(), rel=1e-12, abs=1e-15)


@settings(deadline=None)
@given(multigraphs(max_n=40, max_m=250), st.integers(0, 3), st.integers(0, 3))
def test_the_layout_holds_every_entry_renumbered_in_its_order(A, hot_bits, shift):
    T = sp.csr_array(A)
    n = T.shape[0]
    L = renumber.layout(T.indptr, T.indices, n, shift=shift, hot_bits=hot_bits, share=0.0)
    if T.nnz == 0:
        assert L is None
        return
    counts = np.bincount(T.indices, minlength=n)
    # the sources read, most read first, ties by id
    assert L.order.tolist() == sorted(np.flatnonzero(counts).tolist(),
                                      key=lambda i: (-counts[i], i))
    number = np.empty(n, np.int64)
    number[L.order] = np.arange(L.order.size)
    hot = 1 << hot_bits
    chunks = (n + (1 << shift) - 1) >> shift
    assert L.cold_off.shape == (((L.order.size - 1) >> hot_bits) + 1, chunks + 1)
    assert L.cold_off[0, 0] == 0 and L.cold_off[-1, -1] == L.cold_src.size
    assert (L.cold_off[1:, 0] == L.cold_off[:-1, -1]).all()
    cold_rows, cold_numbers = L.cold_rows(), L.cold_numbers()
    for j in range(n):
        row = number[T.indices[T.indptr[j]:T.indptr[j + 1]]]
        assert L.hot[L.hptr[j]:L.hptr[j + 1]].tolist() == row[row < hot].tolist()
        # the cold entries: segment by segment, each row's in its order
        cold = sorted(row[row >= hot].tolist(), key=lambda v: v >> hot_bits)
        assert cold_numbers[cold_rows == j].tolist() == cold
    for s in range(L.cold_off.shape[0]):
        for k in range(chunks):
            part = slice(L.cold_off[s, k], L.cold_off[s, k + 1])
            assert ((cold_numbers[part] >> hot_bits) == s).all()
            assert (L.cold_src[part] < 1 << hot_bits).all()  # offsets in the segment
            rows = cold_rows[part]
            assert (np.diff(rows) >= 0).all()
            assert ((rows >> shift) == k).all()
    assert L.hot.dtype == L.cold_src.dtype == L.cold_dst.dtype == np.uint16


def test_renumbered_step_is_the_same_on_any_number_of_threads(monkeypatch):
    monkeypatch.setattr(rank, "PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(rank, "JACOBI_SHIFT", 5)
    monkeypatch.setattr(rank, "LAYOUT_ENTRIES", 0)
    monkeypatch.setattr(renumber, "HOT_BITS", 6)
    monkeypatch.setattr(renumber, "HOT_SHARE", 0.0)
    A = sp.random(2000, 2000, density=0.004, random_state=3, format="csr")
    n = 2000
    x = np.random.default_rng(0).random(n)
    scale = 1 / np.maximum(np.diff(A.indptr), 1)
    found = []
    for threads in (1, 2, 3):
        spbfs.set_num_threads(threads)  # no cache given: built on this many threads too
        out, out_scaled, sums = _step(A, x * scale, x, scale, 0.15 / n)
        found.append((out.tobytes(), out_scaled.tobytes(), sums))
    spbfs.set_num_threads(None)
    assert found[0] == found[1] == found[2]


def test_renumbered_step_from_eight_threads_builds_one_layout(renumbered, monkeypatch):
    """Eight callers race on a transpose whose pattern has no layout yet: one is built and
    kept there, every step right."""
    from spbfs.semiring._pattern import Pattern

    built = []
    build = renumber._build
    monkeypatch.setattr(renumber, "_build", lambda *a: built.append(1) or build(*a))
    A = sp.random(3000, 3000, density=0.002, random_state=2, format="csr")
    n = 3000
    scale = 1 / np.maximum(np.diff(A.indptr), 1)
    xs = [np.random.default_rng(k).random(n) for k in range(8)]
    expected = [_affine_reference(A, None, x * scale, x, scale, 0.85, 0.1, False, 1)[0]
                for x in xs]

    derived = Pattern(A.indptr, A.indices, n).derived

    def step(k):
        out = _step(A, xs[k % 8] * scale, xs[k % 8], scale, 0.1, derived=derived)[0]
        return np.allclose(out, expected[k % 8], rtol=1e-12, atol=1e-15)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(step, range(64)))
    assert len(built) == 1


def test_no_layout_without_skew_and_the_plain_pull_then(monkeypatch):
    """A cycle's sources are all read once: the first 2**2 take 8 of its 2,000 entries, no
    layout is built and the step is the plain pull's, bit for bit."""
    monkeypatch.setattr(rank, "LAYOUT_ENTRIES", 0)
    monkeypatch.setattr(renumber, "HOT_BITS", 2)
    n = 2000
    T = sp.csr_array((np.ones(n), (np.arange(n), (np.arange(n) + 1) % n)), shape=(n, n))
    assert renumber.layout(T.indptr, T.indices, n) is None
    x = np.random.default_rng(0).random(n)
    scale = np.full(n, 1.0)
    got = _step(T, x, x, scale, 0.1)
    monkeypatch.setattr(rank, "LAYOUT_ENTRIES", 1 << 62)
    want = _step(T, x, x, scale, 0.1)
    assert got[0].tobytes() == want[0].tobytes() and got[2] == want[2]


def test_a_layout_is_kept_with_its_pattern_and_goes_with_it():
    import gc
    import weakref

    from spbfs.semiring._pattern import Pattern

    tptr, tidx = np.array([0, 2, 3, 4]), np.array([0, 2, 2, 2])
    p, q = Pattern(tptr, tidx, 3), Pattern(tptr, tidx.copy(), 3)
    L = renumber.layout(tptr, tidx, 3, hot_bits=1, share=0.0, derived=p.derived)
    assert renumber.layout(tptr, tidx, 3, hot_bits=1, share=0.0, derived=p.derived) is L
    assert renumber.layout(q.indptr, q.indices, 3, hot_bits=1, share=0.0,
                           derived=q.derived) is not L
    assert renumber.layout(tptr, tidx, 3, hot_bits=1, share=0.0) is not L  # no cache given
    order = weakref.ref(L.order)
    del L, p
    gc.collect()
    assert order() is None


def test_the_layout_when_a_source_is_read_more_often_than_there_are_vertices():
    """Counts above n (duplicates): the stable sort instead of the counting sort."""
    tptr, tidx = np.array([0, 5, 7, 8]), np.array([2, 2, 2, 0, 2, 1, 0, 2])
    L = renumber.layout(tptr, tidx, 3, hot_bits=0, share=0.0)
    assert L.order.tolist() == [2, 0, 1]
    assert L.hot.tolist() == [0, 0, 0, 0, 0]
    assert L.cold_numbers().tolist() == [1, 1, 2] and L.cold_rows().tolist() == [0, 1, 1]


def test_renumbered_step_on_int64_index_arrays(renumbered, monkeypatch):
    """The layout and the step over 64-bit row pointers and ids: the same bytes as over
    32-bit ones."""
    built = []
    build = renumber._build
    monkeypatch.setattr(renumber, "_build", lambda *a: built.append(a[1].dtype) or build(*a))
    A = sp.random(500, 500, density=0.02, random_state=6, format="csr")
    n = 500
    x = np.random.default_rng(1).random(n)
    scale = 1 / np.maximum(np.diff(A.indptr), 1)
    got = _step(A, x * scale, x, scale, 0.01)
    wide = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                        shape=A.shape)
    assert wide.indices.dtype == wide.indptr.dtype == np.int64
    want = _step(wide, x * scale, x, scale, 0.01)
    assert got[0].tobytes() == want[0].tobytes() and got[2] == want[2]
    assert built == [A.indices.dtype, np.int64]  # both steps read a layout
