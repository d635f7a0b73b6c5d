"""The GPU's shortest distances (``spbfs.gpu.relax``: Bellman-Ford rounds on the device)
against scipy's Dijkstra."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import spbfs
from spbfs import semiring

cupy = pytest.importorskip("cupy")
try:
    _HAVE_GPU = bool(cupy.cuda.is_available())
except Exception:  # pragma: no cover - broken driver counts as no GPU
    _HAVE_GPU = False
if not _HAVE_GPU:
    pytest.skip("no CUDA GPU", allow_module_level=True)

from spbfs.gpu import relax  # noqa: E402

pytestmark = pytest.mark.gpu


def _on_gpu(A, index=np.int32):
    A = sp.csr_array(A)
    return semiring.Matrix(cupy.asarray(A.indptr.astype(np.int64)),
                           cupy.asarray(A.indices.astype(index)),
                           cupy.asarray(A.data.astype(np.float64)), A.shape[0])


def _graph(n, density, seed, zeros=0.0, hubs=0):
    """Random weights in [0.5, 10), a share ``zeros`` of them 0, and ``hubs`` rows of every
    column (rows longer than a lane's and than a warp's step)."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="lil")
    for h in range(hubs):
        A[h, :] = 1.0
    A = sp.csr_array(A)
    A.data = rng.uniform(0.5, 10.0, A.nnz)
    A.data[rng.random(A.nnz) < zeros] = 0.0
    return A


@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_distances_match_dijkstra(index, seed):
    A = _graph(700, 0.004, seed, zeros=0.1, hubs=2)
    for sources in ([0], [5], [3, 200, 3, 650]):
        want = csgraph.dijkstra(A, indices=sources, min_only=True)
        got = semiring.relax_buckets(_on_gpu(A, index), np.array(sources), 1.0)
        np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-12)
        assert np.array_equal(np.isinf(cupy.asnumpy(got)), np.isinf(want))


def test_a_path_longer_than_a_batch_of_rounds():
    """A path of 3 * BATCH + 5 vertices: one improvement a round, batches read and
    continued; the rounds reported are the path's edges and the fixpoint's round."""
    n = 3 * relax.BATCH + 5
    A = sp.csr_array((np.full(n - 1, 0.5), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    M = _on_gpu(A)
    dist = cupy.empty(n)
    rounds = relax.delta_stepping(M.indptr, M.indices, M.data, cupy.array([0]), 1.0, dist)
    assert rounds == n
    assert cupy.asnumpy(dist).tolist() == (0.5 * np.arange(n)).tolist()


def test_unreached_infinite_weights_and_no_edges():
    A = sp.csr_array((np.array([np.inf, 2.0]), (np.array([0, 1]), np.array([1, 2]))),
                     shape=(4, 4))
    got = cupy.asnumpy(semiring.relax_buckets(_on_gpu(A), np.array([0]), 1.0))
    assert got.tolist() == [0.0, np.inf, np.inf, np.inf]
    got = cupy.asnumpy(semiring.relax_buckets(_on_gpu(A), np.array([1]), 1.0))
    assert got.tolist() == [np.inf, 0.0, 2.0, np.inf]
    empty = _on_gpu(sp.csr_array((3, 3)))
    assert cupy.asnumpy(semiring.relax_buckets(empty, np.array([2]), 1.0)).tolist() == [
        np.inf, np.inf, 0.0]


@pytest.mark.parametrize(("bad", "message"), [(-1.0, "negative"), (np.nan, "NaN")])
def test_a_bad_weight_raises(bad, message):
    A = sp.csr_array((np.array([1.0, bad]), (np.array([0, 1]), np.array([1, 2]))),
                     shape=(3, 3))
    with pytest.raises(ValueError, match=message):
        semiring.relax_buckets(_on_gpu(A), np.array([0]), 1.0)
    with pytest.raises(ValueError, match=message):
        spbfs.sssp(_on_gpu(A), 0)


def test_sssp_on_a_kronecker_graph_and_from_many_threads():
    """``spbfs.sssp`` on the device against scipy, the same matrix from four threads at
    once (each call its own bitmaps, ring and distances)."""
    from concurrent.futures import ThreadPoolExecutor

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(12, 8, 5)
    n = 1 << 12
    rng = np.random.default_rng(5)
    A = sp.csr_array((rng.uniform(1.0, 255.0, u.size), (u, v)), shape=(n, n))
    A = sp.csr_array(A + A.T)  # symmetric: each pair's weights summed
    M = _on_gpu(A)
    sources = [0, 17, 1000, 4095]
    want = csgraph.dijkstra(A, indices=sources)

    def run(s):
        with cupy.cuda.Stream(non_blocking=True):
            return cupy.asnumpy(spbfs.sssp(M, s))

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(run, sources))
    for row, dist in zip(want, got, strict=True):
        np.testing.assert_allclose(dist, row, rtol=1e-12)
