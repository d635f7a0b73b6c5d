"""GPU backend tests: compared with the CPU backend and scipy (skipped without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import spbfs
from spbfs import semiring
from spbfs.graph500 import tree_depths

cupy = pytest.importorskip("cupy")
try:
    _HAVE_GPU = bool(cupy.cuda.is_available())
except Exception:  # pragma: no cover - broken driver counts as no GPU
    _HAVE_GPU = False
if not _HAVE_GPU:
    pytest.skip("no CUDA GPU", allow_module_level=True)

import cupyx.scipy.sparse as csp  # noqa: E402

pytestmark = pytest.mark.gpu


def _int32(A):
    """scipy CSR with int32 index arrays (cupyx.scipy.sparse needs them)."""
    A = sp.csr_matrix(A)
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A


def _random_graph(n, density, seed, weights=False):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="csr")
    if weights:
        A.data = rng.uniform(0.5, 10.0, A.nnz)
    else:
        A.data[:] = 1.0
    return _int32(A)


def _kron_graph(scale, edgefactor=8, seed=3):
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(scale, edgefactor, seed)
    n = 1 << scale
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    A.sum_duplicates()
    return _int32(A)


def _check_parents(A, levels, parents, source, directed):
    """Every reached vertex but the source has a parent one level up, joined by an edge."""
    levels, parents = cupy.asnumpy(levels), cupy.asnumpy(parents)
    assert parents[source] == source
    assert np.all((parents == -1) == (levels == -1))
    B = sp.csr_matrix(A) if directed else sp.csr_matrix(A + A.T)
    v = np.flatnonzero(levels > 0)
    if v.size == 0:
        return
    p = parents[v]
    assert np.all(levels[p] == levels[v] - 1)
    assert np.all(np.asarray(B[p, v]).ravel() != 0)


GRAPHS = [("random", 2000, 0.002, 1), ("random", 3000, 0.0005, 2), ("kron", 11, None, 3)]


@pytest.mark.parametrize("kind,size,density,seed", GRAPHS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_bfs_matches_cpu(kind, size, density, seed, directed, direction):
    A = _random_graph(size, density, seed) if kind == "random" else _kron_graph(size)
    Ag = csp.csr_matrix(A)
    for source in (0, 7, A.shape[0] - 1):
        ref = spbfs.bfs(A, source, directed=directed)
        lev = spbfs.bfs(Ag, source, directed=directed, direction=direction)
        assert isinstance(lev, cupy.ndarray) and lev.dtype == np.int32
        np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
        lev2, par = spbfs.bfs(Ag, source, directed=directed, direction=direction,
                              return_parents=True)
        np.testing.assert_array_equal(cupy.asnumpy(lev2), ref)
        assert par.dtype == np.int32
        _check_parents(A, lev2, par, source, directed)


def test_bfs_matches_scipy_order():
    A = _random_graph(5000, 0.001, 11)
    Ag = csp.csr_matrix(A)
    order = csgraph.breadth_first_order(A, 5, directed=True, return_predecessors=False)
    lev = cupy.asnumpy(spbfs.bfs(Ag, 5))
    assert set(order.tolist()) == set(np.flatnonzero(lev >= 0).tolist())


def test_bfs_alpha_beta_and_matrix_reuse():
    A = _kron_graph(12)
    M = spbfs.prepare(csp.csr_matrix(A), directed=False)
    ref = spbfs.bfs(A, 1, directed=False)
    for alpha, beta in [(1.0, 1.0), (1e6, 1e6), (15.0, 18.0)]:
        lev = spbfs.bfs(M, 1, alpha=alpha, beta=beta)
        np.testing.assert_array_equal(cupy.asnumpy(lev), ref)


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_hubs(directed):
    """Adjacency lists longer than the hub threshold go through the chunked hub kernel."""
    from spbfs.gpu.bfs import BIG

    rng = np.random.default_rng(12)
    n = 20000
    hubs = np.array([3, 17, 400])
    r = np.r_[np.repeat(hubs, [5 * BIG, 2 * BIG + 7, BIG]), rng.integers(0, n, 30000)]
    c = np.r_[rng.integers(0, n, 8 * BIG + 7), rng.integers(0, n, 30000)]
    A = _int32(sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n)))
    Ag = csp.csr_matrix(A)
    for source in (3, 5, 400):
        for direction in ("auto", "push"):
            ref = spbfs.bfs(A, source, directed=directed)
            lev, par = spbfs.bfs(Ag, source, directed=directed, direction=direction,
                                 return_parents=True)
            np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
            _check_parents(A, lev, par, source, directed)
            par = spbfs.bfs(Ag, source, directed=directed, direction=direction,
                            return_parents=True, return_levels=False)
            lev = tree_depths(par, source)
            np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
            _check_parents(A, lev, par, source, directed)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("device_loop", [True, False])
def test_bfs_parents_alone(directed, device_loop, monkeypatch):
    """``return_levels=False``: kernels that write no levels, on the device's loop and on the
    stepped one; the parents alone are a BFS tree whose depths are the levels."""
    from spbfs.gpu.bfs import BitmapSearch

    monkeypatch.setattr(BitmapSearch, "device_loop", device_loop)
    A = _kron_graph(11)
    Ag = csp.csr_matrix(A)
    for source in (0, 7):
        for direction in ("auto", "push", "pull"):
            par = spbfs.bfs(Ag, source, directed=directed, direction=direction,
                            return_parents=True, return_levels=False)
            assert isinstance(par, cupy.ndarray) and par.dtype == np.int32
            lev = tree_depths(par, source)
            np.testing.assert_array_equal(cupy.asnumpy(lev),
                                          spbfs.bfs(A, source, directed=directed))
            _check_parents(A, lev, par, source, directed)
    with semiring.level_search(Ag, 0, semiring.any_secondi, values=True, levels=False) as s:
        s.advance(False, 2)
        assert s.levels is None and int(s.parents[0]) == 0


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_small_frontier_of_mixed_lists(directed):
    """A frontier of a few vertices whose lists are of a block's size (sent to the hub
    chunks when the frontier fills few blocks) beside short lists of uneven lengths (which
    a warp takes end to end)."""
    rng = np.random.default_rng(21)
    n = 30000
    middle = np.arange(1, 41)
    sizes = np.where(middle % 3 == 0, rng.integers(256, 1000, 40), rng.integers(1, 32, 40))
    r = np.r_[np.zeros(40, np.int64), np.repeat(middle, sizes), rng.integers(0, n, 20000)]
    c = np.r_[middle, rng.integers(41, n, sizes.sum()), rng.integers(0, n, 20000)]
    A = _int32(sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n)))
    for direction in ("auto", "push"):
        ref = spbfs.bfs(A, 0, directed=directed)
        lev, par = spbfs.bfs(csp.csr_matrix(A), 0, directed=directed, direction=direction,
                             return_parents=True)
        np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
        _check_parents(A, lev, par, 0, directed)


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_pull_reads_offsets_past_the_heads_limit(directed, monkeypatch):
    """Rows whose start lies too far into their 32-row word for the heads' 32-bit offset
    are read from the row offsets (the limit lowered so that most rows are)."""
    from spbfs.gpu import bfs as gpu_bfs

    monkeypatch.setattr(gpu_bfs, "HEAD_OFFSET_LIMIT", 20)
    A = _kron_graph(11)
    for source in (0, 7):
        ref = spbfs.bfs(A, source, directed=directed)
        lev, par = spbfs.bfs(csp.csr_matrix(A), source, directed=directed, direction="pull",
                             return_parents=True)
        np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
        _check_parents(A, lev, par, source, directed)


def test_bfs_grid_long_path():
    """High diameter: batched push levels must still give exact levels."""
    side = 60
    line = sp.diags([1.0, 1.0], [-1, 1], (side, side))
    G = _int32(sp.kron(sp.eye(side), line) + sp.kron(line, sp.eye(side)))
    Ag = csp.csr_matrix(G)
    for direction in ("auto", "push"):
        lev, par = spbfs.bfs(Ag, 0, direction=direction, return_parents=True)
        ref = spbfs.bfs(G, 0)
        np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
        _check_parents(G, lev, par, 0, True)


def _beamer_directions(A, levels, directed, alpha, beta, direction):
    """The direction of each level 1 .. max + 1 that Beamer's rule (the host loop's
    beamer_pull, read every level) gives for a search that found ``levels``."""
    from spbfs.algorithms._shared import beamer_pull

    B = sp.csr_array(A) if directed else sp.csr_array(A + A.T)
    out_deg, in_deg = np.diff(B.indptr), np.bincount(B.indices, minlength=B.shape[0])
    depth = int(levels.max())
    count = np.bincount(levels[levels >= 0], minlength=depth + 2)
    mf = np.bincount(levels[levels >= 0], weights=out_deg[levels >= 0], minlength=depth + 2)
    mu_used = np.cumsum(np.bincount(levels[levels >= 0], weights=in_deg[levels >= 0],
                                    minlength=depth + 2))
    pulling, ways = direction == "pull", []
    for lev in range(1, depth + 2):  # the direction of level `lev`, chosen after lev - 1
        if direction == "auto" and lev > 1:
            pulling = beamer_pull(pulling, count[lev - 1], count[lev - 2], mf[lev - 1],
                                  B.nnz - mu_used[lev - 1], B.shape[0], alpha, beta)
        ways.append("pull" if pulling else "push")
    return ways


@pytest.mark.parametrize("directed", [True, False])
def test_device_loop_applies_beamers_rule_every_level(directed):
    """The level loop on the device (BitmapSearch.run) picks each level's direction by
    Beamer's rule read after every level, and a long search spans several rounds."""
    from spbfs.algorithms._level_loop import search
    from spbfs.algorithms._shared import BETA, prepare
    from spbfs.gpu.bfs import BitmapSearch

    side = 70  # 138 levels from a corner: more than one round of the device loop
    line = sp.diags([1.0, 1.0], [-1, 1], (side, side))
    grid = _int32(sp.kron(sp.eye(side), line) + sp.kron(line, sp.eye(side)))
    for A in (_kron_graph(12), grid):
        M = prepare(csp.csr_matrix(A), directed=directed)
        for source in (0, 5):
            for direction in ("auto", "pull"):
                trace = []
                lev, par = search(M, source, return_parents=True, direction=direction,
                                  trace=trace)
                ref = spbfs.bfs(A, source, directed=directed)
                np.testing.assert_array_equal(cupy.asnumpy(lev), ref)
                _check_parents(A, lev, par, source, directed)
                assert [step[2] for step in trace] == _beamer_directions(
                    A, ref, directed, BitmapSearch.alpha, BETA, direction)
                found = [step[4] for step in trace]
                assert found[-1] == 0 and sum(found) == int((ref > 0).sum())


def test_device_loop_runs_from_the_source():
    """run() is the whole search: it refuses a search already advanced by the host."""
    from spbfs.algorithms._shared import prepare

    M = prepare(csp.csr_matrix(_kron_graph(8)))
    with semiring.level_search(M, 0, semiring.any_pair) as s:
        assert s.drives_itself  # the device runs cooperative launches
        s.advance(False)
        with pytest.raises(RuntimeError, match="from the source"):
            s.run("auto", None, 18.0)


@pytest.mark.parametrize("read_first", [False, True])
def test_device_loop_state_after_another_search(read_first):
    """run() on a workspace whose loop state the last search left done, fresh or with its
    outputs read before it (bfs_reset launched then, not by run's first launch)."""
    from spbfs.algorithms._shared import BETA, prepare

    A = _kron_graph(10)
    M = prepare(csp.csr_matrix(A))
    for source in (0, 3, 0):  # each search reuses the workspace the last one left done
        with semiring.level_search(M, source, semiring.any_secondi, values=True) as s:
            if read_first:
                assert int((s.levels >= 0).sum()) == 1  # the source alone so far
            s.run("auto", None, BETA)
            lev, par = s.levels, s.parents
            np.testing.assert_array_equal(cupy.asnumpy(lev), spbfs.bfs(A, source))
            _check_parents(A, lev, par, source, True)


def _gpu_csr(u, v, n):
    from spbfs.gpu.build import csr_from_edges

    return semiring.Matrix(*csr_from_edges(u, v, n), n, symmetric=True, check=False)


def test_csr_from_edges_matches_scipy():
    from spbfs.gpu.build import csr_from_edges

    rng = np.random.default_rng(5)
    n, m = 1000, 20000
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    u[:10] = v[:10]  # self-loops
    for dt in (np.int64, np.int32):
        M = _gpu_csr(cupy.asarray(u, dt), cupy.asarray(v, dt), n)
        assert M.symmetric and M.nnz == 2 * m and M.indices.dtype == np.int32
        indptr, indices = cupy.asnumpy(M.indptr), cupy.asnumpy(M.indices)
        rows, cols = np.r_[u, v], np.r_[v, u]
        np.testing.assert_array_equal(indptr, np.r_[0, np.cumsum(np.bincount(rows, minlength=n))])
        got_rows = np.repeat(np.arange(n), np.diff(indptr))
        got = np.lexsort((indices, got_rows))
        want = np.lexsort((cols, rows))
        np.testing.assert_array_equal(got_rows[got], rows[want])
        np.testing.assert_array_equal(indices[got], cols[want])
    # chunked input gives the same rows
    M2 = semiring.Matrix(*csr_from_edges([cupy.asarray(u[:7000]), cupy.asarray(u[7000:])],
                                         [cupy.asarray(v[:7000]), cupy.asarray(v[7000:])], n),
                         n, symmetric=True, check=False)
    np.testing.assert_array_equal(cupy.asnumpy(M2.indptr), indptr)
    lev = spbfs.bfs(M2, 3)
    ref_lev = spbfs.bfs(sp.csr_array((np.ones(m), (u, v)), shape=(n, n)), 3, directed=False)
    np.testing.assert_array_equal(cupy.asnumpy(lev), ref_lev)


def test_csr_from_edges_errors():
    from spbfs.gpu import GPUMemoryError
    from spbfs.gpu.build import csr_from_edges

    with pytest.raises(ValueError, match="endpoints"):
        csr_from_edges(cupy.array([0, 5]), cupy.array([1, 2]), 5)
    with pytest.raises(ValueError, match="same length"):
        csr_from_edges(cupy.array([0, 1]), cupy.array([1]), 5)
    with pytest.raises(GPUMemoryError, match="needs"):
        csr_from_edges(cupy.zeros(0, np.int64), cupy.zeros(0, np.int64), 1 << 40)


def _user_semiring():
    # max_times over floats with a user-written multiply: the "reliability" semiring.
    op = semiring.BinaryOp("scaled", lambda x, a, i, j, dt: (0.5 * x * a).astype(dt),
                           "(0.5 * x * a)", "xa", lambda xd, ad: np.result_type(xd, ad))
    return semiring.Semiring(semiring.monoids.max, op)


SEMIRINGS = [semiring.min_plus, semiring.plus_times, semiring.max_min, semiring.lor_land,
             semiring.any_pair, semiring.min_first, semiring.max_plus, semiring.plus_pair,
             semiring.min_secondi, _user_semiring()]


@pytest.mark.parametrize("sr", SEMIRINGS, ids=lambda s: s.name)
@pytest.mark.parametrize("masked", [None, False, True])
def test_vxm_matches_cpu(sr, masked):
    n = 400
    A = _random_graph(n, 0.02, 7, weights=True)
    Ag = csp.csr_matrix(A)
    rng = np.random.default_rng(8)
    idx = np.sort(rng.choice(n, 40, replace=False))
    vals = rng.uniform(1, 5, idx.size)
    mask = rng.random(n) < 0.5
    for direction in ("push", "pull"):
        x = semiring.Vector.sparse(idx, vals, size=n)
        xg = semiring.Vector.sparse(cupy.asarray(idx), cupy.asarray(vals), size=n)
        if direction == "pull":
            x, xg = x.to_bitmap(), xg.to_bitmap()
        kw = {} if masked is None else {"mask": mask, "complement": masked}
        kwg = {} if masked is None else {"mask": cupy.asarray(mask), "complement": masked}
        ref = semiring.vxm(x, A, sr, **kw).to_sparse()
        got = semiring.vxm(xg, Ag, sr, **kwg).to_sparse()
        np.testing.assert_array_equal(cupy.asnumpy(got.indices), ref.indices)
        assert got.values.dtype == ref.values.dtype
        np.testing.assert_allclose(cupy.asnumpy(got.values), ref.values, rtol=1e-12)


def test_vxm_any_secondi_gives_valid_parent():
    n = 300
    A = _random_graph(n, 0.03, 9)
    Ag = csp.csr_matrix(A)
    idx = np.arange(0, n, 7)
    for direction in ("push", "pull"):
        xg = semiring.Vector.sparse(cupy.asarray(idx), size=n)
        if direction == "pull":
            xg = xg.to_bitmap()
        got = semiring.vxm(xg, Ag, semiring.any_secondi).to_sparse()
        ref = semiring.vxm(semiring.Vector.sparse(idx, size=n), A, semiring.any_secondi)
        j = cupy.asnumpy(got.indices)
        i = cupy.asnumpy(got.values)
        np.testing.assert_array_equal(j, ref.indices)
        assert np.all(np.isin(i, idx))
        assert np.all(np.asarray(A[i, j]).ravel() != 0)


def test_mxv_and_int_types():
    A = _int32(np.array([[0, 2, 0], [3, 0, 4], [0, 0, 0]], dtype=np.int64))
    Ag = csp.csr_matrix(A.astype(np.float64))
    ref = semiring.mxv(A.astype(np.float64), np.array([1.0, 10.0, 100.0]), semiring.plus_times)
    got = semiring.mxv(Ag, cupy.array([1.0, 10.0, 100.0]), semiring.plus_times)
    np.testing.assert_array_equal(cupy.asnumpy(got.to_dense()), ref.to_dense())
    # int8 values through the byte-wide CAS path
    x = semiring.Vector.sparse(cupy.array([0, 1]), cupy.array([3, 4], dtype=np.int8), size=3)
    got = semiring.vxm(x, Ag, semiring.plus_pair, dtype=np.int8)
    assert got.values.dtype == np.int8
    assert cupy.asnumpy(got.to_dense()).tolist() == [1, 1, 1]


@pytest.mark.parametrize("directed", [True, False])
def test_sssp_matches_dijkstra(directed):
    A = _random_graph(1500, 0.003, 4, weights=True)
    Ag = csp.csr_matrix(A)
    for source in (0, 9):
        ref = csgraph.dijkstra(A, directed=directed, indices=source)
        dist = spbfs.sssp(Ag, source, directed=directed)
        assert isinstance(dist, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(dist), ref, rtol=1e-12)
        dist2, pred = spbfs.sssp(Ag, source, directed=directed, return_predecessors=True)
        pred = cupy.asnumpy(pred)
        reached = np.flatnonzero(np.isfinite(ref) & (np.arange(A.shape[0]) != source))
        p = pred[reached]
        w = np.asarray(A[p, reached]).ravel()
        tight = (w > 0) & np.isclose(ref[p] + w, ref[reached], rtol=1e-12)
        if not directed:
            w2 = np.asarray(A[reached, p]).ravel()
            tight |= (w2 > 0) & np.isclose(ref[p] + w2, ref[reached], rtol=1e-12)
        assert np.all(tight)


def test_int64_index_kernels():
    """The int64 index variants of the BFS and semiring kernels."""
    from spbfs.semiring import Matrix

    A = _kron_graph(10)
    B = sp.csr_matrix(A + A.T)
    M = Matrix(cupy.asarray(B.indptr, np.int64), cupy.asarray(B.indices, np.int64),
               cupy.asarray(B.data), B.shape[0], symmetric=True)
    for direction in ("auto", "push", "pull"):
        lev, par = spbfs.bfs(M, 2, direction=direction, return_parents=True)
        assert lev.dtype == np.int64
        np.testing.assert_array_equal(cupy.asnumpy(lev), spbfs.bfs(B, 2))
        _check_parents(B, lev, par, 2, True)
    x = semiring.Vector.sparse(cupy.arange(0, 1024, 9), cupy.ones(114), size=1024)
    got = semiring.vxm(x, M, semiring.plus_times)
    ref = semiring.vxm(semiring.Vector.sparse(np.arange(0, 1024, 9), np.ones(114), size=1024),
                       B, semiring.plus_times)
    np.testing.assert_array_equal(cupy.asnumpy(got.indices), ref.indices)
    np.testing.assert_allclose(cupy.asnumpy(got.values), ref.values)


def test_bfs_memory_error_names_sizes_and_the_way_out(monkeypatch):
    from spbfs.gpu import GPUMemoryError, memory
    from spbfs.gpu import bfs as gbfs

    A = _kron_graph(10)
    M = spbfs.prepare(csp.csr_matrix(A), directed=False)
    monkeypatch.setattr(gbfs, "workspaces", gbfs.WorkspacePool())  # the check of a new one
    monkeypatch.setattr(memory, "available_bytes", lambda: 1000)
    with pytest.raises(GPUMemoryError, match="GPU memory.*outputs.*workspace.*spbfs.dist"):
        spbfs.bfs(M, 0)
    with pytest.raises(MemoryError):
        from spbfs.gpu.build import csr_from_edges

        csr_from_edges(cupy.array([0]), cupy.array([1]), 2)


_OUT_OF_MEMORY = """
import cupy, cupyx.scipy.sparse as csp, numpy as np, scipy.sparse as sp
import spbfs
from spbfs.gpu import GPUMemoryError

pool = cupy.get_default_memory_pool()
# a Generator: an int seed makes scipy permute all 2**32 positions (32 GB, minutes)
big = csp.csr_matrix(sp.random(1 << 16, 1 << 16, density=1e-3,
                               random_state=np.random.default_rng(0), format="csr"))
small = csp.csr_matrix(sp.random(256, 256, density=0.05, random_state=1, format="csr"))
expected = spbfs.bfs(small, 0)  # kernels compiled, small graph cached
pool.free_all_blocks()
before = pool.used_bytes()
pool.set_limit(size=before + (4 << 20))  # too little to copy big's pattern
try:
    try:
        spbfs.bfs(big, 0)
        raise SystemExit("no GPUMemoryError")
    except GPUMemoryError as exc:
        assert "spbfs.dist" in str(exc), exc
    assert pool.used_bytes() <= before + (1 << 20), (pool.used_bytes(), before)
finally:
    pool.set_limit(size=0)
assert (spbfs.bfs(small, 0) == expected).all()
print("ok")
"""


def test_out_of_memory_leaves_the_process_usable():
    """A real allocation failure (CuPy's pool capped) becomes a GPUMemoryError; nothing of
    the failed call stays allocated and the next, smaller call works.  In a process of its
    own: what earlier tests keep on the device would change what fits under the cap."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _OUT_OF_MEMORY], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_bfs_workspace_reused():
    from spbfs.gpu import bfs as gbfs

    A = _kron_graph(10)
    M = spbfs.prepare(csp.csr_matrix(A), directed=False)
    spbfs.bfs(M, 0)
    key = next(iter(gbfs.workspaces._free))
    ws = gbfs.workspaces._free[key][-1]
    spbfs.bfs(M, 5, return_parents=True)
    assert gbfs.workspaces._free[key] == [ws]


def test_device_loop_kept_launches_follow_the_workspace():
    """The loop's packed launches are kept per pattern and workspace: two patterns of one
    size with hubs searched in turn on one workspace, the second's hub chunk queue larger
    (the workspace makes it anew), then the first again, each against the CPU."""
    from spbfs.gpu.bfs import BIG

    n = 20000
    rng = np.random.default_rng(5)

    def hub_graph(*degrees):
        r = np.r_[np.repeat([3, 17][:len(degrees)], degrees), rng.integers(0, n, 30000)]
        c = np.r_[rng.integers(0, n, sum(degrees)), rng.integers(0, n, 30000)]
        return _int32(sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n)))

    few, many = hub_graph(BIG + 5), hub_graph(60 * BIG, 30 * BIG)
    prepared = {id(A): spbfs.prepare(csp.csr_matrix(A), directed=False) for A in (few, many)}
    for A in (few, many, few, many):
        for source in (3, 11):
            par = spbfs.bfs(prepared[id(A)], source, return_parents=True, return_levels=False)
            lev = tree_depths(par, source)
            np.testing.assert_array_equal(cupy.asnumpy(lev), spbfs.bfs(A, source, directed=False))
            _check_parents(A, lev, par, source, False)


def test_packed_launch_sets_arguments_between_launches():
    """A PackedLaunch's arguments set between launches reach the next launch only; wrong
    argument types are refused by name."""
    from spbfs.gpu.kernels import PackedLaunch

    k = cupy.RawKernel('extern "C" __global__ void f(long long* a, int i, double v, '
                       'long long w) { a[i] = (long long)v + w; }', "f")
    a = cupy.zeros(3, np.int64)
    launch = PackedLaunch(k, (a, np.int32(0), np.float64(5.0), np.int64(1)))
    launch(1, 1)
    launch.set(1, np.int32(2))
    launch.set(3, np.int64(-40))
    launch(1, 1)
    assert a.tolist() == [6, 0, -35]
    with pytest.raises(TypeError, match="argument 1"):
        PackedLaunch(k, (a, 7, np.float64(1.0), np.int64(0)))
