"""spbfs.dist: MPI runs launched from one pytest process (mpiexec -n P python -m mpi4py ...).

The checks live in ``tests/mpi/check_bfs.py``; each run prints ``OK <mode> P=<P>`` on rank 0.
The launcher is ``tests/helpers/mpi_launch.py`` (shared with ``test_dist_faults.py``).
``-m mpi4py`` turns an exception on one rank into MPI_Abort of the job, so a failure ends
the run with a message and a non-zero exit instead of a hang; the timeout is a backstop.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from mpi_launch import ROOT
from mpi_launch import launch as _launch

SCRIPT = ROOT / "tests" / "mpi" / "check_bfs.py"

pytestmark = pytest.mark.mpi


def launch(P, *args, module=None):
    """Run ``mpiexec -n P python -m mpi4py (check_bfs.py | -m module) args``."""
    return _launch(P, SCRIPT, *args, module=module)


def _ok(r, mode, P):
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert f"OK {mode} P={P}" in r.stdout, out[-4000:]


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_levels_and_parents_match_single_process(P):
    """Levels equal spbfs.bfs and parents pass Graph500 checks: thresholds 0, small, default
    and above the max degree; delegate, normal and isolated sources; balanced, random and
    all-on-rank-0 splits; push, pull and extreme switching factors."""
    _ok(launch(P, "bfs"), "bfs", P)


@pytest.mark.parametrize("P", [1, 4])
def test_more_ranks_than_vertices_and_empty_graph(P):
    _ok(launch(P, "tiny"), "tiny", P)


@pytest.mark.parametrize("P", [2, 3])
def test_graph500_harness_validates_and_matches_roots(P):
    _ok(launch(P, "harness"), "harness", P)


def test_cli_dist_graph500():
    r = launch(2, "graph500", "--scale", "8", "--edgefactor", "8", "--roots", "4", "--dist",
               "--device", "cpu", "--threshold", "16", module="spbfs")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert "validation:                     passed" in r.stdout
    assert r.stdout.count("SCALE:") == 1           # rank 0 prints, the others do not
    assert "num_mpi_processes:              2" in r.stdout


def test_directed_graphs_search_their_arcs_one_way():
    _ok(launch(3, "directed"), "directed", 3)


ALGEBRA = ROOT / "tests" / "mpi" / "check_algebra.py"


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_distributed_operations_match_single_process(P):
    """vxm / mxv over named and user-defined semirings with masks, reductions, element-wise
    operations and the pointer scatter, on 1 to 4 ranks, equal the single-process ones."""
    r = _launch(P, ALGEBRA, "ops")
    _ok(r, "ops", P)


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_algorithms_on_a_distributed_graph_match_scipy(P):
    """spbfs.bfs, sssp, pagerank and connected_components take a DistGraph: Kronecker and
    random graphs, directed and undirected, weighted, uneven and empty slices, thresholds
    from all delegates to none."""
    r = _launch(P, ALGEBRA, "algorithms", timeout=300)
    _ok(r, "algorithms", P)


@pytest.mark.parametrize("P", [1, 3])
def test_component_labels_past_256_and_many_source_layout(P):
    """Labels of a graph with more than 256 components are scipy's (no wrap in a narrow
    prefix sum), and many-source levels come back ``(k, n)`` as on one device."""
    _ok(_launch(P, ALGEBRA, "components", timeout=300), "components", P)


SKEW = ROOT / "tests" / "mpi" / "check_skew.py"


@pytest.mark.parametrize("P,mode", [(3, "skew"), (4, "skew"), (4, "even"), (2, "fresh"),
                                    (2, "reuse")])
def test_skewed_inputs_and_many_graphs_in_one_process(P, mode):
    """Random-length slices (a rank may get almost nothing) at thresholds 0, 8, 128 and
    above every degree, searches from the hub, a degree-1 and an isolated vertex; graphs
    built one after another on their own or a shared communicator."""
    _ok(_launch(P, SKEW, mode, "cpu", "mpi", "9", timeout=300), mode, P)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["skew", "even", "fresh", "reuse"])
def test_skewed_inputs_and_many_graphs_on_gpu_ranks(mode):
    """The same on 2 GPU ranks over NCCL (``tests/mpi/device_skew.sh`` runs 4)."""
    if _gpu_count() < 2:
        pytest.skip("needs 2 GPUs")
    _ok(_launch(2, SKEW, mode, "gpu", "nccl", "12", timeout=300), mode, 2)


def test_exception_on_one_rank_ends_the_job():
    r = launch(3, "raise")
    assert r.returncode != 0
    assert "deliberate failure on rank 2" in r.stdout + r.stderr


def test_inconsistent_arguments_fail_on_every_rank():
    r = launch(2, "mismatch")
    assert r.returncode != 0
    assert "n differs between ranks" in r.stdout + r.stderr


# ---------------------------------------------------------------- single process (no mpiexec)


def test_single_process_matches_oracle():
    import scipy.sparse as sp

    import spbfs
    from spbfs import dist
    from spbfs.graph500 import generate

    U, V = generate.kronecker(8, 8, seed=9)
    n = 256
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    for th in (0, 8, 10**6):
        G = dist.DistGraph.from_edges(U, V, n, threshold=th)
        for s in (int(U[0]), int(V[3])):
            lv, pa = dist.bfs(G, s, return_parents=True)
            ref = spbfs.bfs(A, s, directed=False)
            np.testing.assert_array_equal(G.gather(lv), ref)


def test_argument_errors():
    from spbfs import dist

    u, v = np.array([0, 1]), np.array([1, 2])
    with pytest.raises(ValueError, match=r"endpoints must lie in \[0, 2\)"):
        dist.DistGraph.from_edges(u, v, 2)
    with pytest.raises(ValueError, match="threshold"):
        dist.DistGraph.from_edges(u, v, 3, threshold=-1)
    with pytest.raises(ValueError, match="1-D"):
        dist.DistGraph.from_edges(u, v[:1], 3)
    G = dist.DistGraph.from_edges(u, v, 3)
    with pytest.raises(ValueError, match="source"):
        dist.bfs(G, 3)
    with pytest.raises(ValueError, match="direction"):
        dist.bfs(G, 0, direction="sideways")
    with pytest.raises(ValueError, match="alpha"):
        dist.bfs(G, 0, alpha=-2.0)
    with pytest.raises(ValueError, match="data_plane"):
        dist.Communicator(data_plane="nccl")


def test_import_needs_no_cupy_and_no_mpi_init():
    code = ("import sys; import spbfs.dist; "
            "assert 'cupy' not in sys.modules; "
            "assert 'mpi4py.MPI' not in sys.modules; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


# ------------------------------------------------------- one rank: every direction policy


@pytest.mark.parametrize("th", [0, 6, 10**6])
def test_one_rank_every_direction(th):
    import scipy.sparse as sp

    import spbfs
    from spbfs import dist, graph500
    from spbfs.graph500 import generate

    U, V = generate.kronecker(9, 8, seed=4)
    n = 512
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    G = dist.DistGraph.from_edges(U, V, n, threshold=th)
    isolated = int(np.flatnonzero(np.bincount(U, minlength=n) + np.bincount(V, minlength=n)
                                  == 0)[0])
    for s in (int(U[0]), int(V[7]), isolated):
        ref = spbfs.bfs(A, s, directed=False)
        for opts in ({}, {"direction": "pull"}, {"direction": "push"},
                     {"alpha": 1e-3, "beta": 1e3}):
            st = {}
            lv, pa = dist.bfs(G, s, return_parents=True, stats=st, **opts)
            np.testing.assert_array_equal(G.gather(lv), ref)
            assert graph500.validate(U, V, s, G.gather(pa), G.gather(lv)).ok
            assert st["levels"] == ref.max()
            lv2 = dist.bfs(G, s, **opts)
            np.testing.assert_array_equal(G.gather(lv2), ref)


# ---------------------------------------------------------------- GPU ranks (GPU machines only)


def _gpu_count():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


@pytest.mark.gpu
@pytest.mark.parametrize("mode,plane", [("bfs", "nccl"), ("bfs", "mpi"), ("tiny", "nccl"),
                                        ("harness", "nccl")])
def test_two_gpu_ranks(mode, plane):
    """The CPU checks on 2 GPU ranks (one per GPU), NCCL or host-staged MPI data plane."""
    if _gpu_count() < 2:
        pytest.skip("needs 2 GPUs")
    _ok(launch(2, mode, "gpu", plane), mode, 2)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["ops", "algorithms"])
@pytest.mark.parametrize("P", [1, 2])
def test_gpu_ranks_run_the_distributed_operations(mode, P):
    """The distributed operations and algorithms on GPU ranks over NCCL (P = 1 on a
    one-GPU machine) equal the single-process results."""
    if _gpu_count() < P:
        pytest.skip(f"needs {P} GPUs")
    r = _launch(P, ALGEBRA, mode, "gpu", "nccl", timeout=300)
    _ok(r, mode, P)


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_every_algorithm_on_a_distributed_graph_is_the_single_device_twin(P):
    """Every public algorithm on a DistGraph gives the single-device answer
    (``tests/mpi/check_twin.py``): a graph with vertices of degree 0, directed and
    undirected, all edges on rank 0 or split unevenly, thresholds 0, 8, 128 and above
    every degree."""
    _ok(_launch(P, "check_twin.py", "twin", timeout=300), "twin", P)


@pytest.mark.parametrize("P", [2, 3])
def test_weighted_parallel_arcs_on_some_ranks_only(P):
    """Found by a fuzz: strong components of a weighted graph whose parallel arcs lay on
    some ranks' rows only hung (``tests/mpi/check_twin.py``, mode ``parallel``)."""
    _ok(_launch(P, "check_twin.py", "parallel", timeout=120), "parallel", P)


@pytest.mark.gpu
@pytest.mark.parametrize("P,plane", [(2, "mpi"), (2, "nccl"), (4, "nccl"), (4, "mpi")])
def test_every_algorithm_on_gpu_ranks_is_the_single_device_twin(P, plane):
    """The twin check on GPU ranks, both data planes (P = 4 needs 4 GPUs)."""
    if _gpu_count() < P:
        pytest.skip(f"needs {P} GPUs")
    _ok(_launch(P, "check_twin.py", "twin", "gpu", plane, timeout=300), "twin", P)


def test_host_waits_of_a_search_are_counted():
    """A world of one on the CPU waits only for the argument agreement: the level loop's
    reads and exchanges cost no wait there (``stats["host_waits"]``, what the GPU runs
    report per search)."""
    from spbfs import dist
    from spbfs.graph500 import generate

    U, V = generate.kronecker(9, 8, seed=4)
    G = dist.DistGraph.from_edges(U, V, 512, threshold=8)
    stats = {}
    dist.bfs(G, int(U[0]), return_parents=True, stats=stats)
    assert stats["levels"] > 1 and stats["host_waits"] == 1
    waits = G.comm.host_waits
    G.comm.barrier()
    assert G.comm.host_waits == waits + 1


def test_one_rank_takes_depth_and_directions_from_the_engines_own_loop():
    """One rank on an engine that drives itself (the GPU's): ``dist.bfs`` runs the engine's
    loop and reads the depth and directions from its trace (levels with finds)."""
    from spbfs.dist.bfs import _run_alone

    class Engine:
        def run(self, direction, alpha, beta, trace=None):
            trace += [(1, 1, "push", 1, 5, None), (2, 2, "pull", 5, 90, None),
                      (3, 3, "push", 90, 0, 0.1)]

    assert _run_alone(Engine(), "auto", 15.0, 18.0) == (2, ["push", "pull", "push"])


def test_directed_graph_of_symmetric_pattern_ranks_as_its_twin():
    """PageRank of a directed DistGraph whose pattern is symmetric starts as its
    single-device twin does (the degree start of an undirected graph): the same steps,
    ranks equal to rounding."""
    import scipy.sparse as sp

    import spbfs
    from spbfs import dist
    from spbfs.graph500 import generate

    U, V = generate.kronecker(9, 8, seed=4)
    keep = U != V
    U, V = np.concatenate([U[keep], V[keep]]), np.concatenate([V[keep], U[keep]])
    n = 512
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1.0
    for th in (0, 8, 10**6):
        G = dist.DistGraph.from_edges(U, V, n, threshold=th, directed=True)
        np.testing.assert_allclose(G.gather(spbfs.pagerank(G)), spbfs.pagerank(A),
                                   rtol=1e-12, atol=1e-15)
