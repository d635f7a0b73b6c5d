"""The single-process Graph500 harness."""

import io

import numpy as np
import pytest

import spbfs
from spbfs import graph500
from spbfs.generate import kronecker
from spbfs.harness import build_undirected, choose_roots, gpu_available, run_graph500


@pytest.mark.parametrize("scale", [8, 10, 12])
def test_64_roots_validate(scale):
    out = io.StringIO()
    stats = run_graph500(scale, roots=64, seed=scale, device="cpu", out=out, progress=False)
    assert stats["NBFS"] == 64 and stats["validation"] == "passed"
    assert stats["harmonic_mean_TEPS"] > 0
    assert "harmonic_mean_TEPS" in out.getvalue()


def test_roots_are_distinct_non_isolated_and_reproducible():
    u = np.array([0, 1, 3, 5, 5])
    v = np.array([1, 2, 3, 6, 6])  # 3 has only a self-loop; 4 and 7 are isolated
    roots = choose_roots(u, v, 8, 64, seed=3)
    assert sorted(roots.tolist()) == [0, 1, 2, 5, 6]
    a, b = choose_roots(u, v, 8, 3, seed=3), choose_roots(u, v, 8, 3, seed=3)
    np.testing.assert_array_equal(a, b)
    assert len(set(a.tolist())) == 3


def test_build_merges_duplicates_and_keeps_self_loops():
    M = build_undirected(np.array([0, 0, 2, 1]), np.array([1, 1, 2, 0]), 3)
    assert M.symmetric
    assert M.to_scipy().toarray().astype(int).tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]


def test_a_corrupted_search_fails_validation():
    u, v = kronecker(8, seed=2)
    levels, parents = spbfs.bfs(build_undirected(u, v, 256), int(u[0]), return_parents=True)
    levels[levels == 2] = 3
    result = graph500.validate(u, v, int(u[0]), parents, levels, raise_on_error=False)
    assert not result.ok


@pytest.mark.skipif(gpu_available(), reason="checks the no-GPU error")
def test_gpu_request_without_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match="GPU"):
        run_graph500(6, roots=2, device="gpu", progress=False)


def test_small_component_roots_are_flagged(monkeypatch):
    import spbfs.harness as harness

    out = io.StringIO()
    monkeypatch.setattr(harness, "SMALL_COMPONENT_FRACTION", 2.0)  # every search is "small"
    run_graph500(8, roots=8, device="cpu", out=out, progress=False)
    assert "note: 8 of 8 search keys lie in small components" in out.getvalue()
    monkeypatch.undo()
    quiet = io.StringIO()
    run_graph500(8, roots=8, device="cpu", out=quiet, progress=False)
    assert "small components" not in quiet.getvalue()
