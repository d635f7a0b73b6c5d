"""The single-process Graph500 harness."""

import io

import numpy as np
import pytest

import spbfs
from spbfs import graph500
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected, choose_roots, gpu_available, run_graph500


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


def test_no_timed_search_builds_a_forest(monkeypatch):
    """Kernel 1 decides whether the graph is searched pruned; when its forest is not worth
    it, no timed search builds one again (a search's BUILD_AFTER-th call would: on the GPU
    that cost a scale-26 run one 236 ms search and its harmonic mean, 182 GTEPS)."""
    from spbfs.algorithms import forest

    built = []

    def build(M, *args):
        built.append(M)
        return None

    monkeypatch.setattr(forest, "prunes", lambda M: True)
    monkeypatch.setattr(forest, "build", build)
    stats = run_graph500(8, roots=forest.BUILD_AFTER + 4, device="cpu", out=io.StringIO(),
                         progress=False)
    assert stats["validation"] == "passed"
    assert len(built) == 1


def test_small_component_roots_are_flagged(monkeypatch):
    import spbfs.graph500.harness as harness

    out = io.StringIO()
    monkeypatch.setattr(harness, "SMALL_COMPONENT_FRACTION", 2.0)  # every search is "small"
    run_graph500(8, roots=8, device="cpu", out=out, progress=False)
    assert "note: 8 of 8 search keys lie in small components" in out.getvalue()
    monkeypatch.undo()
    quiet = io.StringIO()
    run_graph500(8, roots=8, device="cpu", out=quiet, progress=False)
    assert "small components" not in quiet.getvalue()


def _corrupt_second_search(module, monkeypatch):
    """Make the second timed search of ``module``'s harness return wrong parents: every
    vertex of level 2 but one claims that one as its parent (a tree edge that is no edge,
    and a vertex two levels below its neighbours).  Returns the list of roots searched."""
    name = "search" if hasattr(module, "search") else "bfs"  # the harness's search call
    real = getattr(module, name)
    roots = []

    def wrong(M, root, **kwargs):
        out = real(M, root, **kwargs)
        roots.append(int(root))
        if len(roots) == 3:              # the untimed warm-up search, then the first timed one
            levels, parents = out if isinstance(out, tuple) else (
                graph500.tree_depths(out, root), out)
            parents = parents.copy()
            second = np.flatnonzero(levels == 2)
            parents[second[1:]] = second[0]
            out = (levels, parents) if isinstance(out, tuple) else parents
        return out

    monkeypatch.setattr(module, name, wrong)
    return roots


def test_a_failed_search_names_its_root_and_rule(monkeypatch):
    import spbfs.graph500.harness as harness

    roots = _corrupt_second_search(harness, monkeypatch)
    out = io.StringIO()
    stats = run_graph500(8, roots=4, seed=3, device="cpu", out=out, progress=False)
    bad = roots[2]
    assert stats["validation"] == "failed"
    assert set(stats["failed_roots"]) == {bad}
    assert {"parent_edge", "edge_levels"} <= set(stats["failed_roots"][bad])
    text = out.getvalue()
    assert "validation:                     failed" in text
    line = next(x for x in text.splitlines() if x.startswith("validation FAILED: root"))
    assert line.startswith(f"validation FAILED: root {bad}: ")
    assert "parent_edge (" in line and "edge_levels (" in line
    assert "validation FAILED for 1 of 4 searches" in text


def test_cli_graph500_exits_non_zero_when_validation_fails(monkeypatch, capsys):
    import spbfs.graph500.harness as harness
    from spbfs.cli import main

    roots = _corrupt_second_search(harness, monkeypatch)
    with pytest.raises(SystemExit) as info:
        main(["graph500", "--scale", "7", "--roots", "3", "--device", "cpu", "--no-progress"])
    assert info.value.code not in (0, None)
    assert f"validation FAILED: root {roots[2]}: " in capsys.readouterr().out


def test_dist_harness_failure_names_the_root_and_rule(monkeypatch, capsys):
    """The distributed harness (a world of one here): rank 0 prints one line per failed
    search, every rank raises naming the first failed root and its rules, and
    ``spbfs graph500 --dist`` exits non-zero."""
    pytest.importorskip("mpi4py")
    import spbfs.dist.harness as dharness
    from spbfs.cli import main

    roots = _corrupt_second_search(dharness, monkeypatch)
    out = io.StringIO()
    with pytest.raises(RuntimeError) as info:
        dharness.run_graph500(7, edgefactor=8, roots=3, seed=2, out=out)
    bad = roots[2]
    msg = str(info.value)
    assert f"in 1 of 3 searches; first: root {bad}: " in msg
    assert "parent_edge (" in msg and "tree_edge_levels (" in msg
    assert f"validation FAILED: root {bad}: " in out.getvalue()
    roots.clear()
    assert main(["graph500", "--scale", "7", "--edgefactor", "8", "--roots", "3", "--dist",
                 "--device", "cpu"]) != 0
    err = capsys.readouterr().err
    assert f"failed Graph500 validation in 1 of 3 searches; first: root {roots[2]}: " in err


def test_progress_is_a_tqdm_bar_on_stderr(capsys):
    import tqdm

    import spbfs.graph500.harness as harness

    assert harness.tqdm is tqdm.tqdm
    out = io.StringIO()
    run_graph500(7, roots=5, device="cpu", out=out, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""                      # the block went to `out`, nothing else
    assert "5/5" in captured.err and "search/s" in captured.err and "GTEPS" in captured.err
    assert "\r" not in out.getvalue() and "5/5" not in out.getvalue()
    run_graph500(7, roots=5, device="cpu", out=io.StringIO(), progress=False)
    assert capsys.readouterr().err == ""


def test_the_run_ends_with_the_summary_line():
    out = io.StringIO()
    stats = run_graph500(8, roots=6, device="cpu", out=out, progress=False)
    lines = out.getvalue().splitlines()
    assert lines[-2].startswith("validation:")
    gteps = float(f"{stats['harmonic_mean_TEPS'] / 1e9:.4g}")
    assert lines[-1] == f"6 searches, 6 validated, harmonic mean {gteps:.4g} GTEPS"


def test_failed_searches_in_the_summary_and_the_record(monkeypatch):
    import spbfs.graph500.harness as harness

    roots = _corrupt_second_search(harness, monkeypatch)
    out = io.StringIO()
    doc = {}
    run_graph500(8, roots=4, seed=3, device="cpu", out=out, progress=False, record=doc)
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("4 searches, 3 validated, validation FAILED for 1 search, ")
    assert doc["summary"] == last and doc["result"]["validation"] == "failed"
    bad = [s for s in doc["searches"] if s["validation"] == "failed"]
    assert [s["root"] for s in bad] == [roots[2]]
    assert {"parent_edge", "edge_levels"} <= set(bad[0]["failures"])


def test_dist_harness_progress_and_summary(capsys):
    pytest.importorskip("mpi4py")
    from spbfs.dist.harness import run_graph500 as run_dist

    out = io.StringIO()
    run_dist(7, edgefactor=8, roots=3, seed=2, out=out, progress=True)
    captured = capsys.readouterr()
    assert "3/3" in captured.err and captured.out == ""
    assert out.getvalue().splitlines()[-1].startswith("3 searches, 3 validated, harmonic mean")
