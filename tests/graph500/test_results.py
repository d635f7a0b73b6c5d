"""Results files and figures: ``spbfs.results``, ``spbfs.plot``, benchmarks/plot_results.py."""

import io
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import spbfs
from spbfs.algorithms.bfs import search as loop_search
from spbfs.graph500 import results
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected, choose_roots, run_graph500

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PNG = b"\x89PNG\r\n\x1a\n"


def _block(text):
    """The printed ``name: value`` lines, values as text."""
    out = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and " " not in name:
            out[name] = value.strip()
    return out


@pytest.fixture(scope="module")
def run():
    out = io.StringIO()
    doc = {}
    stats = run_graph500(9, roots=12, seed=4, device="cpu", out=out, progress=False,
                         record=doc)
    return stats, out.getvalue(), doc


def test_document_keys(run):
    stats, _, doc = run
    assert set(doc) >= {"schema", "result", "summary", "parameters", "searches",
                        "direction_source", "environment"}
    assert doc["schema"] == results.SCHEMA and doc["direction_source"] == "trace"
    assert doc["parameters"] == {"scale": 9, "edgefactor": 16, "roots": 12, "seed": 4,
                                 "device": "cpu", "alpha": 15.0, "beta": 18.0,
                                 "processes": 1}
    env = doc["environment"]
    assert {"device", "versions", "hostname", "date", "command"} <= set(env)
    assert env["device"]["kind"] == "cpu"
    assert {"python", "numpy", "scipy", "numba", "spbfs"} <= set(env["versions"])
    assert env["versions"]["spbfs"] == spbfs.__version__
    assert "commit" in env  # a hash from a git checkout, None otherwise (test below)
    for name in ("SCALE", "NBFS", "construction_time", "min_time", "firstquartile_time",
                 "median_time", "thirdquartile_time", "max_time", "mean_time", "stddev_time",
                 "min_nedge", "median_nedge", "min_TEPS", "median_TEPS", "max_TEPS",
                 "harmonic_mean_TEPS", "harmonic_stddev_TEPS", "validation"):
        assert name in doc["result"], name
    assert "failed_roots" not in doc["result"]
    assert len(doc["searches"]) == stats["NBFS"] == 12
    for s in doc["searches"]:
        assert {"root", "time", "nedge", "TEPS", "validation", "failures", "reached", "depth",
                "level_vertices", "level_directions"} <= set(s)
        assert s["validation"] == "passed" and s["failures"] == {}
        assert s["TEPS"] == s["nedge"] / s["time"]
        assert len(s["level_vertices"]) == len(s["level_directions"]) == s["depth"] + 1
        assert s["level_vertices"][0] == 1 and min(s["level_vertices"]) > 0
        assert s["reached"] == sum(s["level_vertices"]) <= 1 << 9
        assert s["level_directions"][0] is None
        assert set(s["level_directions"][1:]) <= {"push", "pull"}


def test_document_agrees_with_the_printed_block(run):
    stats, text, doc = run
    printed = _block(text)
    assert list(doc["result"]) == [k for k in stats if k != "failed_roots"]
    for name, value in doc["result"].items():
        if isinstance(value, str):
            assert printed[name] == value
        elif isinstance(value, int):
            assert int(printed[name]) == value, name
        else:  # %20.17e round-trips a double exactly
            assert float(printed[name]) == value, name
    teps = np.array([s["TEPS"] for s in doc["searches"]])
    times = [s["time"] for s in doc["searches"]]
    assert math.isclose(len(teps) / np.sum(1 / teps), float(printed["harmonic_mean_TEPS"]),
                        rel_tol=1e-12)
    assert min(times) == float(printed["min_time"]) and max(times) == float(printed["max_time"])
    assert text.splitlines()[-1] == doc["summary"]
    assert doc["summary"].startswith("12 searches, 12 validated, harmonic mean ")


def test_json_file_is_strict_json(run, tmp_path):
    _, _, doc = run
    one = dict(doc, result=dict(doc["result"], stddev_time=float("nan")))
    path = results.write_json(tmp_path / "r.json", one)

    def no_constants(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    loaded = json.loads(path.read_text(), parse_constant=no_constants)
    assert loaded["result"]["stddev_time"] is None
    assert loaded["searches"] == doc["searches"]
    assert results.read_json(path)["summary"] == doc["summary"]
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a spbfs graph500 results file"):
        results.read_json(tmp_path / "other.json")


def _checkout_head():
    """HEAD of the checkout the tested spbfs package lies in, or None (an installed copy)."""
    package = os.path.dirname(os.path.abspath(spbfs.__file__))
    try:
        tracked = subprocess.run(["git", "-C", package, "ls-files", "--", "."],
                                 capture_output=True, text=True, timeout=30)
        head = subprocess.run(["git", "-C", package, "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if tracked.returncode or not tracked.stdout.strip() or head.returncode:
        return None
    return head.stdout.strip()


def test_document_records_commit_and_numba(run):
    """Issue 63: a results document names the code that ran (the git commit of a checkout)
    and numba's version, so a figure quoted from it can be cited."""
    numba = pytest.importorskip("numba")
    _, _, doc = run
    env = doc["environment"]
    assert env["versions"]["numba"] == numba.__version__
    assert env["commit"] == _checkout_head()
    if env["commit"] is not None:
        assert len(env["commit"]) == 40 and int(env["commit"], 16) >= 0
    # the written file keeps both
    assert results.environment("cpu")["commit"] == env["commit"]


def test_git_commit_outside_a_checkout_is_none(tmp_path, monkeypatch):
    assert results.git_commit(tmp_path) is None                    # not a repository
    assert results.git_commit(tmp_path / "absent") is None         # not a folder
    if _checkout_head() is None:
        pytest.skip("spbfs is not running from a git checkout")
    package = os.path.dirname(os.path.abspath(spbfs.__file__))
    assert results.git_commit(package) == _checkout_head()
    assert results.git_commit() == _checkout_head()
    # a folder the checkout ignores (a virtual environment inside it): not its commit
    for name in (".venv", "__pycache__", os.path.join("tests", "__pycache__")):
        ignored = os.path.join(ROOT, name)
        if os.path.isdir(ignored) and not subprocess.run(
                ["git", "-C", ROOT, "check-ignore", "-q", name]).returncode:
            assert results.git_commit(ignored) is None, name

    # no git program, or git failing: None, and the environment is still written
    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(results.subprocess, "run", no_git)
    assert results.git_commit(package) is None
    assert results.environment("cpu")["commit"] is None

    def hangs(*args, **kwargs):
        raise subprocess.TimeoutExpired("git", 10)

    monkeypatch.setattr(results.subprocess, "run", hangs)
    assert results.git_commit(package) is None

    def fails(args, **kwargs):
        return subprocess.CompletedProcess(args, 128, "", "fatal: not a git repository")

    monkeypatch.setattr(results.subprocess, "run", fails)
    assert results.git_commit(package) is None


def test_summary_line_variants():
    stats = {"NBFS": 8, "harmonic_mean_TEPS": 2.5e9, "validation": "passed"}
    assert results.summary_line(stats) == "8 searches, 8 validated, harmonic mean 2.5 GTEPS"
    failed = dict(stats, validation="failed")
    assert results.summary_line(failed, 1) == ("8 searches, 7 validated, validation FAILED "
                                               "for 1 search, harmonic mean 2.5 GTEPS")
    assert "validation FAILED for 3 searches" in results.summary_line(failed, 3)
    skipped = dict(stats, validation="skipped")
    assert results.summary_line(skipped) == ("8 searches, validation skipped, harmonic mean "
                                             "2.5 GTEPS")


def test_trace_records_the_loops_directions(monkeypatch):
    """The trace names the direction of every level advanced: each advance of the level
    search is recorded and compared, for several alpha and beta."""
    from spbfs.cpu.bfs import CpuBitmapSearch

    calls = []
    real = CpuBitmapSearch.advance

    def advance(self, pulling, count=1):
        calls.extend(["pull" if pulling else "push"] * count)
        return real(self, pulling, count)

    monkeypatch.setattr(CpuBitmapSearch, "advance", advance)
    checked = set()
    for scale, edgefactor in ((10, 16), (11, 4), (11, 1)):
        u, v = kronecker(scale, edgefactor, seed=scale)
        M = build_undirected(u, v, 1 << scale)
        for root in choose_roots(u, v, 1 << scale, 6, seed=1).tolist():
            for alpha, beta in ((15, 18), (2, 40), (200, 4)):
                calls.clear()
                trace = []
                levels = loop_search(M, root, alpha=alpha, beta=beta, trace=trace)
                steps = [way for first, last, way, *_ in trace for _ in range(first, last + 1)]
                assert steps == calls
                assert levels.tolist() == spbfs.bfs(M, root, alpha=alpha, beta=beta).tolist()
                # the first step pushes the source; the last found nothing, or is a batch
                # of push levels that ends with the empty one
                first, last, _, _, found, _ = trace[-1]
                assert trace[0][3] == 1 and (found == 0 or last > first)
                assert sum(t[4] for t in trace) == int((levels > 0).sum())
                checked.update(steps)
    assert checked == {"push", "pull"}


def test_dist_record_and_summary():
    pytest.importorskip("mpi4py")
    from spbfs.dist.harness import run_graph500 as run_dist

    out = io.StringIO()
    doc = {}
    stats = run_dist(8, edgefactor=8, roots=4, seed=2, out=out, record=doc)
    assert doc["direction_source"] == "dist" and doc["parameters"]["processes"] == 1
    assert doc["result"]["harmonic_mean_TEPS"] == stats["harmonic_mean_TEPS"]
    assert doc["result"]["dist_data_plane"] == stats["dist_data_plane"]
    assert out.getvalue().splitlines()[-1] == doc["summary"]
    u, v = kronecker(8, 8, seed=2)
    for s in doc["searches"]:
        levels = spbfs.bfs(build_undirected(u, v, 256), s["root"])
        assert s["level_vertices"] == np.bincount(levels[levels >= 0]).tolist()
        assert s["level_directions"][0] is None
        assert set(s["level_directions"][1:]) <= {"push", "pull"}


def test_plot_writes_a_png(run, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install "
                        "'spbfs[plot]'); the test extra installs it")
    from spbfs.graph500.plot import plot_run

    _, _, doc = run
    for search in (None, 0):
        path = plot_run(doc, tmp_path / f"run{search}.png", search=search)
        data = path.read_bytes()
        assert data.startswith(PNG) and 10_000 < len(data) < 200_000


def test_plot_without_matplotlib_names_the_option(monkeypatch, tmp_path, capsys):
    from spbfs.cli import main
    from spbfs.graph500.plot import plot_run, require_matplotlib

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    with pytest.raises(RuntimeError, match=r"--plot needs matplotlib.*spbfs\[plot\]"):
        require_matplotlib()
    with pytest.raises(RuntimeError, match="--plot"):
        plot_run({"searches": [{"TEPS": 1.0}]}, tmp_path / "x.png")
    # the command line refuses before running anything
    png = tmp_path / "x.png"
    assert main(["graph500", "--scale", "20", "--device", "cpu", "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("spbfs: error: --plot needs matplotlib") and not png.exists()


def test_plot_results_script(run, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install "
                        "'spbfs[plot]'); the test extra installs it")
    _, _, doc = run
    folder = tmp_path / "results"
    folder.mkdir()
    rows = [{"P": p, "scale": s + p.bit_length() - 1, "device": "gpu", "plane": plane,
             "gteps": g * p, "gteps_per_rank": g}
            for p in (1, 2, 4) for s in (20, 22) for plane, g in (("nccl", 10.0), ("mpi", 2.0))
            if p > 1 or plane == "nccl"]
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:5]))
    (folder / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[5:]) + "\n")
    (folder / "notes.txt").write_text("not rows\n")
    run_json = results.write_json(tmp_path / "my_run.json", doc)
    figures = tmp_path / "figures"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "plot_results.py"),
                           "--results", str(folder), "--json", str(run_json),
                           "--out", str(figures)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for name in ("weak_scaling.png", "my_run.png"):
        data = (figures / name).read_bytes()
        assert data.startswith(PNG) and len(data) < 200_000
        assert name in proc.stdout


def test_committed_figures_are_small():
    folder = os.path.join(ROOT, "docs", "figures")
    if not os.path.isdir(folder):
        pytest.skip("no docs/figures")
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name.endswith(".png"):
            assert os.path.getsize(path) < 200_000, name
        elif name.endswith(".json"):  # the results files the per-level figures come from
            assert results.read_json(path)["searches"], name
