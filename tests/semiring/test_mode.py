"""spbfs.semiring.row_mode: the CPU kernel, the GPU's kernels (a warp per row, a block and a
hash table per long row) and the generic sorted runs give the most frequent value of each
row (the largest on a tie) and the counts a plain Counter gives, and with weights and a
cost per value the totals and scores a plain sum gives."""

from __future__ import annotations

import contextlib
import importlib
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, to_host, unsorted_csr
from hypothesis import given
from hypothesis import strategies as st

import spbfs
from spbfs import semiring


def _expected(A, x, own, mask, null=-1):
    """Row by row with a Counter (the oracle)."""
    A = sp.csr_array(A)
    value, count, own_count = [], [], []
    for i in range(A.shape[0]):
        c = Counter(x[A.indices[A.indptr[i]:A.indptr[i + 1]]].tolist())
        if not c or (mask is not None and not mask[i]):
            value.append(null), count.append(0), own_count.append(0)
            continue
        top = max(c.values())
        value.append(max(v for v, k in c.items() if k == top))
        count.append(top)
        own_count.append(c.get(int(own[i]), 0))
    return value, count, own_count


@st.composite
def rows_and_values(draw):
    """An ``m x n`` CSR in any column order (duplicates kept), values with ties, own values
    and a mask."""
    m, n = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    A = draw(unsorted_csr(m, n, 6 * m))
    labels = st.integers(-3, 4)
    x = np.array(draw(st.lists(labels, min_size=n, max_size=n)), np.int64)
    own = np.array(draw(st.lists(labels, min_size=m, max_size=m)), np.int64)
    mask = draw(st.none() | st.lists(st.booleans(), min_size=m, max_size=m).map(np.array))
    return A, x, own, mask


def _backend(device):
    return importlib.import_module("spbfs.gpu.backend" if device == "cupy"
                                   else "spbfs.cpu.backend")


def _to(device, a):
    if device == "numpy" or a is None:
        return a
    import cupy

    return cupy.asarray(a)


def _device_matrix(device, A, index_dtype=np.int32):
    if device == "numpy":
        return A
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix(A, dtype=np.float64)
    A.indices, A.indptr = A.indices.astype(index_dtype), A.indptr.astype(index_dtype)
    return csp.csr_matrix(A)


def _run(device, generic, A, x, own, mask, index_dtype=np.int32, **options):
    """``row_mode`` on the device (``generic``: without the backend's primitive), as lists;
    ``options``: ``null``, ``weighted``, or ``cost`` and ``scale`` (host arrays)."""
    options = {k: _to(device, v) if isinstance(v, np.ndarray) else v for k, v in options.items()}
    with pytest.MonkeyPatch.context() as patch:
        if generic:   # the sorted runs: the path of a backend without the primitive
            patch.delattr(_backend(device), "row_mode")
        out = semiring.row_mode(_device_matrix(device, A, index_dtype), _to(device, x),
                                own=_to(device, own), mask=_to(device, mask), **options)
    return [None if a is None else to_host(a).tolist() for a in out]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=rows_and_values())
def test_row_mode_matches_a_counter(device, generic, case):
    A, x, own, mask = case
    assert _run(device, generic, A, x, own, mask, null=-7) == list(
        _expected(A, x, own, mask, null=-7))


@pytest.mark.parametrize("device", DEVICES)
def test_row_mode_without_own_gives_no_own_counts(device):
    A = sp.csr_array(np.array([[1, 1, 0], [0, 0, 0]]))
    value, count, own_count = _run(device, False, A, np.array([3, 3, 1]), None, None)
    assert (value, count, own_count) == ([3, -1], [2, 0], None)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_row_mode_on_long_rows(device, index_dtype):
    """Rows around the GPU's warp width, its tile limit and far beyond (a block per row, a
    hash table per row), with few labels (long runs, ties) and many (short runs)."""
    rng = np.random.default_rng(5)
    n = 20000
    degrees = [0, 1, 31, 32, 33, 63, 255, 256, 257, 1000, 2000, 4097, 15000]
    blocks = [rng.choice(n, d, replace=d > n) for d in degrees]
    indptr = np.concatenate([[0], np.cumsum([b.size for b in blocks])])
    A = sp.csr_array((np.ones(indptr[-1]), np.concatenate(blocks), indptr),
                     shape=(len(degrees), n))
    wide = np.array([-(2**40), 0, 2**40])   # a range no dense count array covers
    for spread in (np.arange(3), np.arange(50), np.arange(10**6), wide):
        x, own = rng.choice(spread, n), rng.choice(spread, len(degrees))
        mask = rng.random(len(degrees)) < 0.8
        for m in (None, mask):
            got = _run(device, False, A, x, own, m, index_dtype)
            assert got == list(_expected(A, x, own, m)), (spread, m)
    # weights (small integers: exact in any order) and a cost per value, few values and many
    A.data = rng.integers(0, 4, A.nnz).astype(np.float64)
    for values in (40, 5000):
        x, own = rng.integers(0, values, n), rng.integers(0, values, len(degrees))
        cost, scale = rng.integers(0, 9, values) / 4, rng.integers(0, 3, len(degrees)) / 2
        got = _run(device, False, A, x, own, None, index_dtype, weighted=True, cost=cost,
                   scale=scale)
        assert got == list(_expected_weighted(A, x, own, None, cost, scale)), values


def _expected_weighted(A, x, own, mask, cost, scale):
    """The weighted oracle: each value's total weight less ``scale[i] * cost[value]``."""
    A = sp.csr_array(A)
    value, score, own_total = [], [], []
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        totals = {}
        for j, w in zip(A.indices[lo:hi].tolist(), A.data[lo:hi].tolist(), strict=True):
            totals[int(x[j])] = totals.get(int(x[j]), 0.0) + w
        if not totals or (mask is not None and not mask[i]):
            value.append(-1), score.append(0.0), own_total.append(0.0)
            continue
        scores = {v: t - scale[i] * cost[v] for v, t in totals.items()}
        top = max(scores.values())
        value.append(max(v for v, t in scores.items() if t == top))
        score.append(top)
        own_total.append(totals.get(int(own[i]), 0.0))
    return value, score, own_total


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=rows_and_values(), seed=st.integers(0, 2**32 - 1))
def test_weighted_row_mode_with_a_cost_matches_the_totals(device, generic, case, seed):
    """Weights (small integers, so every order of summing is exact) and a per-value cost
    scaled per row (halves): the value of the largest score, as Louvain asks it."""
    A, x, own, mask = case
    rng = np.random.default_rng(seed)
    x, own = x + 3, own + 3   # values index the cost
    A = A.copy()
    A.data = rng.integers(0, 4, A.nnz).astype(np.float64)
    cost = rng.integers(0, 5, 8) / 2
    scale = rng.integers(0, 3, A.shape[0]) / 2
    got = _run(device, generic, A, x, own, mask, weighted=True, cost=cost, scale=scale)
    assert got == list(_expected_weighted(A, x, own, mask, cost, scale))


def test_row_mode_split_over_threads(monkeypatch):
    """Rows split over four threads (each with its own scratch; parts of 4,096 entries
    here): the oracle's answer, counted and weighted with a cost; a value outside the cost
    read by any part is the generic path's error."""
    from spbfs.cpu import mode

    monkeypatch.setattr(mode, "PART_ENTRIES", 1 << 12)
    rng = np.random.default_rng(11)
    nrows, n = 600, 5000
    A = sp.random_array((nrows, n), density=0.05, format="csr", rng=rng)
    A.data = rng.integers(0, 4, A.nnz).astype(np.float64)
    x, own = rng.integers(0, 40, n), rng.integers(0, 40, nrows)
    mask = rng.random(nrows) < 0.7
    cost, scale = rng.integers(0, 9, 40) / 4, rng.integers(0, 3, nrows) / 2
    spbfs.set_num_threads(4)
    try:
        assert _run("numpy", False, A, x, own, mask) == list(_expected(A, x, own, mask))
        got = _run("numpy", False, A, x, own, None, weighted=True, cost=cost, scale=scale)
        assert got == list(_expected_weighted(A, x, own, None, cost, scale))
        x[-1] = 40   # read by the last rows' part
        with pytest.raises(ValueError, match="cost must have an entry for every value read"):
            semiring.row_mode(A, x, weighted=True, cost=cost, scale=scale)
    finally:
        spbfs.set_num_threads(None)


def test_row_mode_rejects_bad_arguments():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="x must be a 1-D array of length 3"):
        semiring.row_mode(A, np.arange(2))
    with pytest.raises(TypeError, match="x must be of kind"):
        semiring.row_mode(A, np.ones(3))
    with pytest.raises(ValueError, match="own must be"):
        semiring.row_mode(A, np.arange(3), own=np.arange(4))
    with pytest.raises(TypeError, match="mask must be of kind"):
        semiring.row_mode(A, np.arange(3), mask=np.ones(3, np.int8))
    with pytest.raises(TypeError, match="null must be an integer"):
        semiring.row_mode(A, np.arange(3), null=0.5)
    with pytest.raises(ValueError, match="cost and scale must be given together"):
        semiring.row_mode(A, np.arange(3), cost=np.ones(3))
    with pytest.raises(ValueError, match="cost must have an entry for every value read: 2"):
        semiring.row_mode(A, np.arange(3), cost=np.ones(2), scale=np.ones(3))


@pytest.mark.gpu
def test_row_mode_wants_operands_on_the_matrix_device():
    import cupy

    A = _device_matrix("cupy", sp.csr_array(np.eye(3)))
    with pytest.raises(TypeError, match="x must live on the same device as A"):
        semiring.row_mode(A, np.arange(3))
    with pytest.raises(TypeError, match="mask must live"):
        semiring.row_mode(A, cupy.arange(3), mask=np.ones(3, bool))


def test_row_mode_from_eight_threads():
    """Each calling thread counts in its own kept scratch: eight threads at once give each
    call's own answer."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(3)
    cases = []
    for k in range(16):
        A = sp.random_array((300, 400), density=0.05, rng=rng, format="csr")
        cases.append((A, rng.integers(0, 5 + 40 * k, 400), rng.integers(0, 20, 300)))
    expected = [list(_expected(A, x, own, None)) for A, x, own in cases]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda c: _run("numpy", False, c[0], c[1], c[2], None), cases * 4))
    assert got == expected * 4


# ------------------------------------------------------------------------- mode_sweeps
def _sweeps_oracle(A, classes, x, max_sweeps):
    """Every row of every class, sweep after sweep, with a Counter: a class's rows choose
    from the values before it moved.  Settled: no row of a class has a column that moved
    since the row last chose (then no sweep moves anything)."""
    A = sp.csr_array(A)
    x = x.copy()
    in_class = {r for rows in classes for r in rows.tolist()}
    stale = set(in_class)   # rows whose columns moved since they last chose
    for _ in range(max_sweeps):
        if not stale:
            break
        for rows in classes:
            chosen = {}
            for r in rows.tolist():
                stale.discard(r)
                c = Counter(x[A.indices[A.indptr[r]:A.indptr[r + 1]]].tolist())
                if not c:
                    continue
                top = max(c.values())
                if c.get(int(x[r]), 0) < top:
                    chosen[r] = max(v for v, k in c.items() if k == top)
            for r, v in chosen.items():
                x[r] = v
                stale.update(set(A.indices[A.indptr[r]:A.indptr[r + 1]].tolist()) & in_class)
    return x.tolist(), not stale


@st.composite
def graphs_and_classes(draw):
    """A symmetric pattern (self-loops and duplicates possible), a partition of some of its
    rows into classes (any partition: the operation's rule holds for each), start values."""
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m = draw(st.integers(0, 4 * n))
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    A.sum_duplicates() if draw(st.booleans()) else None
    colour = rng.integers(-1, draw(st.integers(1, 6)), n)   # -1: in no class
    classes = [np.flatnonzero(colour == k) for k in range(colour.max() + 1)]
    classes = [rows for rows in classes if rows.size]
    x = rng.integers(0, n, n) if draw(st.booleans()) else np.arange(n)
    return A, classes, x, draw(st.integers(1, 6))


def _given_classes(device, M, classes):
    """The classes as the operations take them: every other one as its rows alone, the
    others with their rows of ``M`` (a generic path extracts those not given)."""
    return [_to(device, rows) if c % 2 else
            (_to(device, rows), semiring.extract(M, _to(device, rows)))
            for c, rows in enumerate(classes)]


def _mode_sweeps(device, generic, A, classes, x, max_sweeps):
    M = _device_matrix(device, A)
    pairs = _given_classes(device, M, classes)
    with pytest.MonkeyPatch.context() as patch:
        if generic:
            patch.delattr(_backend(device), "mode_sweeps", raising=False)
        values, settled = semiring.mode_sweeps(M, pairs, _to(device, x), max_sweeps=max_sweeps)
    return to_host(values).tolist(), settled


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=graphs_and_classes())
def test_mode_sweeps_match_sweeping_every_row(device, generic, case):
    A, classes, x, max_sweeps = case
    assert _mode_sweeps(device, generic, A, classes, x, max_sweeps) == _sweeps_oracle(
        A, classes, x, max_sweeps)


def test_mode_sweeps_split_over_threads(monkeypatch):
    """Sweeps over four threads (classes of about 4,800 entries: a round each to choose
    and one to move), each counting in its own array: the oracle's answer."""
    from spbfs.cpu import mode

    monkeypatch.setattr(mode, "SWEEP_PARALLEL_ENTRIES", 1 << 8)
    rng = np.random.default_rng(5)
    n, m = 3000, 12000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    colour = rng.integers(0, 5, n)
    classes = [np.flatnonzero(colour == k) for k in range(5)]
    spbfs.set_num_threads(4)
    try:
        got = _mode_sweeps("numpy", False, A, classes, np.arange(n), 50)
    finally:
        spbfs.set_num_threads(None)
    assert got == _sweeps_oracle(A, classes, np.arange(n), 50)


def test_mode_sweeps_values_outside_the_vertices_take_the_generic_path():
    """The CPU's dense counts need values in 0 .. n-1; others are counted by row_mode."""
    A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    classes = [np.array([0]), np.array([1, 2])]
    x = np.array([-5, 70, 70])
    assert _mode_sweeps("numpy", False, A, classes, x, 10) == _sweeps_oracle(A, classes, x, 10)


# ------------------------------------------------------------------------- modularity_sweep
def _louvain_oracle(A, classes, comm, k, sigma, factor):
    """Louvain's moves class by class with dicts: each row's best community by ``w(v, C) -
    factor k_v sigma_C`` (the largest id on a tie), proposed where it beats staying; a
    proposer moves where it is the class's first into its target and out of its own, or
    where its margin covers ``factor k_v`` times the other proposers' ``k`` into its target
    and out of its own."""
    A = sp.csr_array(A)
    comm, sigma = comm.copy(), sigma.copy()
    moved, gain = 0, 0.0
    for rows in classes:
        proposed = []
        for r in rows.tolist():
            w = {}
            for p in range(A.indptr[r], A.indptr[r + 1]):
                c = int(comm[A.indices[p]])
                w[c] = w.get(c, 0.0) + A.data[p]
            if not w:
                continue
            scale = factor * k[r]
            best = max(w, key=lambda c: (w[c] - scale * sigma[c], c))
            top, own = w[best] - scale * sigma[best], int(comm[r])
            stay = w.get(own, 0.0) - scale * (sigma[own] - k[r])
            if top > stay + 1e-12 and best != own:
                proposed.append((r, best, own, top - stay, top + scale * sigma[best]
                                 - w.get(own, 0.0)))
        into, out_of = {}, {}
        for r, to, own, _, _ in proposed:
            into.setdefault(to, []).append(r)
            out_of.setdefault(own, []).append(r)
        moves = []
        for r, to, own, margin, g in proposed:
            first = into[to][0] == r and out_of[own][0] == r
            others = sum(k[j] for j in into[to] if j != r) + sum(k[j] for j in out_of[own]
                                                                  if j != r)
            if first or margin > factor * k[r] * others:
                moves.append((r, to, g))
        for r, to, g in moves:
            gain += 2.0 * g
            sigma[comm[r]] -= k[r]
            comm[r] = to
            sigma[to] += k[r]
            moved += 1
    return comm.tolist(), sigma, moved, gain


@st.composite
def weighted_graphs_and_classes(draw):
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, 4 * n))
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = r != c
    r, c, w = r[keep], c[keep], rng.integers(1, 4, keep.sum()).astype(np.float64)
    A = sp.csr_array((np.r_[w, w], (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    A.sum_duplicates()
    colour = rng.integers(0, draw(st.integers(1, 5)), n)
    classes = [np.flatnonzero(colour == j) for j in range(colour.max() + 1)]
    comm = rng.integers(0, n, n) if draw(st.booleans()) else np.arange(n)
    k = np.asarray(A.sum(axis=1)).ravel() + rng.integers(0, 2, n)
    sigma = np.bincount(comm, weights=k, minlength=n)
    return A, [rows for rows in classes if rows.size], comm, k, sigma


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=weighted_graphs_and_classes(), factor=st.sampled_from([0.0, 0.01, 0.1, 1.0]))
def test_modularity_sweep_matches_moving_row_by_row(device, generic, case, factor):
    A, classes, comm, k, sigma = case
    M = _device_matrix(device, A)
    pairs = _given_classes(device, M, classes)
    got_comm, got_sigma = _to(device, comm.copy()), _to(device, sigma.copy())
    with pytest.MonkeyPatch.context() as patch:
        if generic:
            patch.delattr(_backend(device), "modularity_sweep", raising=False)
        moved, gain = semiring.modularity_sweep(M, pairs, got_comm, _to(device, k), got_sigma,
                                                factor)
    want_comm, want_sigma, want_moved, want_gain = _louvain_oracle(A, classes, comm, k, sigma,
                                                                   factor)
    assert (to_host(got_comm).tolist(), moved) == (want_comm, want_moved)
    np.testing.assert_allclose(to_host(got_sigma), want_sigma, atol=1e-9)
    assert gain == pytest.approx(want_gain, abs=1e-9)


def test_modularity_sweep_split_over_threads(monkeypatch):
    """A sweep's classes (about 4,800 entries each: a round each) scored over four threads,
    each with its own scratch arrays, then moved in row order: the oracle's answer, twice
    (the kept scratch arrays read again)."""
    from spbfs.cpu import mode

    monkeypatch.setattr(mode, "SWEEP_PARALLEL_ENTRIES", 1 << 8)
    rng = np.random.default_rng(11)
    n, m = 3000, 12000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = r != c
    w = rng.integers(1, 4, keep.sum()).astype(np.float64)
    A = sp.csr_array((np.r_[w, w], (np.r_[r[keep], c[keep]], np.r_[c[keep], r[keep]])),
                     shape=(n, n))
    A.sum_duplicates()
    colour = rng.integers(0, 5, n)
    classes = [np.flatnonzero(colour == j) for j in range(5)]
    k = np.asarray(A.sum(axis=1)).ravel()
    comm = rng.integers(0, n // 4, n)
    M = _device_matrix("numpy", A)
    spbfs.set_num_threads(4)
    try:
        for _ in range(2):
            sigma = np.bincount(comm, weights=k, minlength=n)
            got_comm, got_sigma = comm.copy(), sigma.copy()
            moved, gain = semiring.modularity_sweep(M, _given_classes("numpy", M, classes),
                                                    got_comm, k, got_sigma, 1 / A.sum())
            want = _louvain_oracle(A, classes, comm, k, sigma, 1 / A.sum())
            assert (got_comm.tolist(), moved) == (want[0], want[2])
            np.testing.assert_allclose(got_sigma, want[1], atol=1e-9)
            assert gain == pytest.approx(want[3], abs=1e-9)
            assert moved
            comm = got_comm
    finally:
        spbfs.set_num_threads(None)


@contextlib.contextmanager
def _every_class_in_rounds():
    """The CPU's sweeps run as rounds whatever the size: every class of any entries a
    round, a row at a time, over four threads."""
    from spbfs.cpu import mode

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mode, "SWEEP_PARALLEL_ENTRIES", 0)
        patch.setattr(mode, "ROUND_ENTRIES", 1)
        patch.setattr(mode, "SWEEP_CHUNK", 1)
        spbfs.set_num_threads(4)
        try:
            yield
        finally:
            spbfs.set_num_threads(None)


@given(case=graphs_and_classes())
def test_mode_sweeps_in_rounds_match_sweeping_every_row(case):
    A, classes, x, max_sweeps = case
    with _every_class_in_rounds():
        got = _mode_sweeps("numpy", False, A, classes, x, max_sweeps)
    assert got == _sweeps_oracle(A, classes, x, max_sweeps)


@given(case=weighted_graphs_and_classes(), factor=st.sampled_from([0.0, 0.01, 0.1, 1.0]))
def test_modularity_sweep_in_rounds_matches_moving_row_by_row(case, factor):
    A, classes, comm, k, sigma = case
    got_comm, got_sigma = comm.copy(), sigma.copy()
    with _every_class_in_rounds():
        moved, gain = semiring.modularity_sweep(A, classes, got_comm, k, got_sigma, factor)
    want_comm, want_sigma, want_moved, want_gain = _louvain_oracle(A, classes, comm, k, sigma,
                                                                   factor)
    assert (got_comm.tolist(), moved) == (want_comm, want_moved)
    np.testing.assert_allclose(got_sigma, want_sigma, atol=1e-9)
    assert gain == pytest.approx(want_gain, abs=1e-9)
