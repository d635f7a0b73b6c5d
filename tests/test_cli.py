"""The command line and the file readers."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from oracle import oracle_levels

from spbfs.cli import main
from spbfs.io import read_graph


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "spbfs", *args], capture_output=True,
                          text=True, timeout=300)


def test_graph500_end_to_end():
    proc = run_cli("graph500", "--scale", "10", "--roots", "8", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    block = dict(line.split(":", 1) for line in proc.stdout.splitlines() if ":" in line)
    assert int(block["SCALE"]) == 10 and int(block["NBFS"]) == 8
    assert block["validation"].strip() == "passed"
    assert float(block["harmonic_mean_TEPS"]) > 0
    assert "[" in proc.stderr  # the progress bar


@pytest.fixture
def graph_files(tmp_path):
    rng = np.random.default_rng(0)
    n, m = 50, 200
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.coo_array((np.ones(m), (u, v)), shape=(n, n)).tocsr()
    mtx = tmp_path / "g.mtx"
    scipy.io.mmwrite(mtx, A)
    txt = tmp_path / "g.txt"
    lines = "\n".join(f"{a}\t{b}" for a, b in zip(u.tolist(), v.tolist(), strict=True))
    txt.write_text("# SNAP style\n# FromNodeId ToNodeId\n" + lines + "\n")
    return A, mtx, txt


def test_bfs_command_on_files(graph_files, tmp_path, capsys):
    A, mtx, txt = graph_files
    for path, source in ((mtx, "4"), (txt, "3")):  # vertex 3: Matrix Market's id 4
        out = tmp_path / "out.npz"
        assert main(["bfs", str(path), "--source", source, "--parents", "--undirected",
                     "--output", str(out)]) == 0
        saved = np.load(out)
        np.testing.assert_array_equal(saved["levels"], oracle_levels(A, 3, directed=False))
        assert saved["parents"][3] == 3
    assert "reached:" in capsys.readouterr().out


# Edges 1 -> 2 -> 3 as written in each format the command reads: "ids as written in the
# file" (Matrix Market's are 1-based; an edge list's are taken as they are, so "1 2" in an
# edge list leaves its vertex 0 isolated).
_PATH_FORMATS = {
    "mtx": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n"),
    "mtx.gz": ("g.mtx.gz", "%%MatrixMarket matrix coordinate real general\n3 3 2\n"
                           "1 2 1.0\n2 3 1.0\n"),
    "mtx.bz2": ("g.mtx.bz2", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n"
                             "1 2 1\n2 3 1\n"),
    "edge list": ("g.txt", "# FromNodeId ToNodeId\n1 2\n2 3\n"),
    "weighted edge list": ("g.tsv", "1\t2\t0.5\n2\t3\t2.0\n"),
    "relabelled edge list": ("g.el", "1 2\n2 3\n1099511627776 1099511627776\n"),
    "relabelled mtx": ("big.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                  "1099511627776 1099511627776 3\n1 2\n2 3\n"
                                  "1099511627776 1099511627776\n"),
}


def _write(path, text):
    import bz2
    import gzip

    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wt") as f:
        f.write(text)


@pytest.mark.parametrize("fmt", list(_PATH_FORMATS))
def test_bfs_source_and_results_in_the_files_ids(tmp_path, capsys, fmt):
    name, text = _PATH_FORMATS[fmt]
    path = tmp_path / name
    _write(path, text)
    out = tmp_path / "o.npz"
    assert main(["bfs", str(path), "--source", "1", "--parents", "--output", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "source: 1" in stdout and "reached: 3  depth: 2" in stdout, stdout
    saved = np.load(out)
    id_map = tmp_path / "o.ids.npy"
    if fmt == "edge list" or fmt == "weighted edge list":
        ids = np.arange(saved["levels"].size)  # ids as written: vertex i is id i
        assert not id_map.exists()
    else:
        ids = np.load(id_map)  # the file's id of each vertex
        assert f"wrote {id_map}" in stdout
    by_id = dict(zip(ids.tolist(), saved["levels"].tolist(), strict=True))
    assert {i: by_id[i] for i in (1, 2, 3)} == {1: 0, 2: 1, 3: 2}
    parent_ids = {int(ids[v]): int(ids[p]) for v, p in enumerate(saved["parents"]) if p >= 0}
    assert parent_ids == {1: 1, 2: 1, 3: 2}
    # the last id as written is a vertex with no out-edge; 0 is a vertex of none but the
    # edge lists whose ids are dense
    assert main(["bfs", str(path), "--source", "3"]) == 0
    assert "reached: 1  depth: 0" in capsys.readouterr().out
    code = main(["bfs", str(path), "--source", "0"])
    err = capsys.readouterr().err
    if fmt in ("edge list", "weighted edge list"):
        assert code == 0
    else:
        assert code == 2 and "--source 0" in err, err
        if fmt in ("mtx", "mtx.gz", "mtx.bz2"):
            assert "ids 1..3, 1-based as Matrix Market writes them" in err


def test_bfs_prints_matrix_market_ids(tmp_path, capsys):
    path = tmp_path / "g.mtx"
    path.write_text(_PATH_FORMATS["mtx"][1])
    assert main(["bfs", str(path), "--source", "2"]) == 0
    assert "(--source 2 is vertex 1; vertex i is the file's id i + 1)" in capsys.readouterr().out


def test_bfs_time_is_the_search_alone(tmp_path):
    """The search is timed alone; loading the kernels is reported on its own line."""
    import re

    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n")
    proc = run_cli("bfs", str(path), "--source", "0", "--parents")
    assert proc.returncode == 0, proc.stderr
    searched = float(re.search(r"time: ([0-9.]+) s \(the search alone\)", proc.stdout)[1])
    loading = float(re.search(r"set-up, not in time: loading the search kernels ([0-9.]+) s",
                              proc.stdout)[1])
    assert searched < loading, proc.stdout


def _kernel_signatures():
    import sys

    import numba

    return {(name, key): set(map(str, value.signatures))
            for name, module in list(sys.modules.items()) if name.startswith("spbfs")
            for key, value in vars(module).items()
            if isinstance(value, numba.core.registry.CPUDispatcher)}


@pytest.mark.parametrize("kind", ["graph500", "directed file", "undirected file"])
def test_warm_up_loads_every_kernel_the_search_takes(kind):
    """After warm_up(M) a search of M loads (or compiles) no kernel."""
    from spbfs.algorithms.bfs import bfs, prepare
    from spbfs.graph500.generate import kronecker
    from spbfs.graph500.harness import build_undirected, warm_up

    u, v = kronecker(12, seed=5)
    if kind == "graph500":
        M, options = build_undirected(u, v, 1 << 12), {"return_levels": False}
    else:
        A = sp.coo_array((np.ones(u.size), (u, v)), shape=(1 << 12,) * 2).tocsr()
        M, options = prepare(A, directed=kind == "directed file"), {}
    assert warm_up(M, return_parents=True, **options) > 0
    before = _kernel_signatures()
    bfs(M, int(u[0]), return_parents=True, **options)
    assert _kernel_signatures() == before


def test_graph500_construction_includes_kernel_loading(monkeypatch):
    import io
    import time

    import spbfs.graph500.harness as harness

    def slow_warm_up(M, **options):
        time.sleep(0.3)
        return 0.3

    monkeypatch.setattr(harness, "warm_up", slow_warm_up)
    stats = harness.run_graph500(6, roots=2, device="cpu", out=io.StringIO(), progress=False)
    assert stats["construction_time"] >= 0.3 and stats["max_time"] < 0.3


def test_readers_agree(graph_files):
    A, mtx, txt = graph_files
    B, C = read_graph(mtx), read_graph(txt)
    k = C.shape[0]  # an edge list knows only the largest id it mentions
    assert B.shape == A.shape and k <= A.shape[0]
    assert (B - A).count_nonzero() == 0
    assert (B[:k, :k] - C).count_nonzero() == 0 and B[k:, :].nnz + B[:, k:].nnz == 0


def test_weighted_edge_list(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("0 1 2.5\n1 2 0.5\n")
    np.testing.assert_array_equal(read_graph(path).toarray()[0], [0, 2.5, 0])


@pytest.mark.parametrize(
    "content,word",
    [("0 1 2 3\n", "columns"), ("a b\n", "numeric"), ("# only a comment\n", "no edges"),
     ("0 -1\n", "non-negative"), ("0 1\n2\n", "columns")],
)
def test_bad_edge_lists(tmp_path, content, word):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=word):
        read_graph(path)


def test_cli_errors(tmp_path, capsys):
    assert main(["bfs", str(tmp_path / "missing.txt"), "--source", "0"]) == 2
    assert "not found" in capsys.readouterr().err
    path = tmp_path / "g.txt"
    path.write_text("0 1\n")
    assert main(["bfs", str(path), "--source", "7"]) == 2
    assert "source" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["graph500", "--scale", "0"])


@pytest.fixture
def snap_file(tmp_path):
    """A SNAP-style file with ids near 2**40: (path, edges, sorted distinct ids)."""
    rng = np.random.default_rng(3)
    pool = np.unique(rng.integers((1 << 40) - 5000, (1 << 40) + 5000, 40))
    u, v = rng.choice(pool, 120), rng.choice(pool, 120)
    path = tmp_path / "snap.txt"
    lines = "".join(f"{a}\t{b}\n" for a, b in zip(u.tolist(), v.tolist(), strict=True))
    path.write_text("# Nodes: 40 Edges: 120\n# FromNodeId\tToNodeId\n" + lines)
    return path, u, v, np.unique(np.r_[u, v])


@pytest.mark.parametrize("output", ["levels.npz", "levels"])
def test_bfs_relabels_translates_source_and_writes_the_id_map(snap_file, tmp_path, capsys,
                                                              output):
    path, u, v, used = snap_file
    source = int(u[0])
    out = tmp_path / "runs" / output
    out.parent.mkdir()
    assert main(["bfs", str(path), "--source", str(source), "--parents",
                 "--output", str(out)]) == 0
    stdout = capsys.readouterr().out
    npz, id_map = tmp_path / "runs" / "levels.npz", tmp_path / "runs" / "levels.ids.npy"
    assert "relabelled" in stdout and f"wrote {id_map}" in stdout and f"wrote {npz}" in stdout
    ids = np.load(id_map)
    np.testing.assert_array_equal(ids, used)  # ids[i]: original id of vertex i
    # Levels and parents are in compact ids: BFS on the compacted graph from the source.
    cu, cv = np.searchsorted(ids, u), np.searchsorted(ids, v)
    B = sp.coo_array((np.ones(u.size), (cu, cv)), shape=(used.size,) * 2).tocsr()
    saved = np.load(npz)
    vertex = int(np.searchsorted(ids, source))
    assert f"--source {source} is vertex {vertex}" in stdout
    np.testing.assert_array_equal(saved["levels"], oracle_levels(B, vertex))
    assert ids[saved["parents"][vertex]] == source


def test_bfs_source_not_in_a_relabelled_file(snap_file, tmp_path, capsys):
    path, _, _, used = snap_file
    missing = int(np.setdiff1d(np.arange(used[0], used[-1]), used)[0])  # inside the range
    out = tmp_path / "o.npz"
    for bad in (missing, 0, -1, 1 << 64):
        assert main(["bfs", str(path), "--source", str(bad), "--output", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"spbfs: error: --source {bad} does not occur in {path}"), err
    assert not out.exists()


def test_bfs_dense_ids_write_no_map(graph_files, tmp_path, capsys):
    _, _, txt = graph_files
    out = tmp_path / "o.npz"
    assert main(["bfs", str(txt), "--source", "3", "--output", str(out)]) == 0
    assert "relabelled" not in capsys.readouterr().out
    assert out.exists() and not (tmp_path / "o.ids.npy").exists()


@pytest.mark.parametrize(
    "content,word",
    [("%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1.0\n", "square"),
     ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n", "malformed"),
     ("garbage\n", "not a valid Matrix Market")],
)
def test_cli_bad_matrix_market(tmp_path, content, word):
    path = tmp_path / "bad.mtx"
    path.write_text(content)
    proc = run_cli("bfs", str(path), "--source", "0")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"spbfs: error: {path}: ") and word in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_bad_ids_and_output_directory(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 18446744073709551616\n")
    assert main(["bfs", str(path), "--source", "0"]) == 2
    assert f"{path}, line 2, column 2" in capsys.readouterr().err
    path.write_text("0 1\n")
    assert main(["bfs", str(path), "--source", "0", "--output",
                 str(tmp_path / "no" / "o.npz")]) == 2
    assert "--output" in capsys.readouterr().err


def test_graph500_json_plot_summary_and_progress(tmp_path):
    """--json and --plot end to end: the file holds the printed block's values, stdout ends
    with the summary line, the tqdm bar is on stderr only."""
    import json

    import spbfs.graph500.results

    out, png = tmp_path / "run.json", tmp_path / "run.png"
    try:
        import matplotlib  # noqa: F401
        plot = ["--plot", str(png)]
    except ImportError:
        plot = []
    proc = run_cli("graph500", "--scale", "9", "--roots", "6", "--device", "cpu",
                   "--json", str(out), *plot)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("6 searches, 6 validated, harmonic mean ")
    assert lines[-1].endswith(" GTEPS")
    assert "\r" not in proc.stdout and "%|" not in proc.stdout
    assert "6/6" in proc.stderr and "%|" in proc.stderr        # tqdm's bar
    assert f"wrote {out}" in proc.stderr
    doc = json.loads(out.read_text())
    block = dict(line.split(":", 1) for line in lines if ":" in line)
    assert doc["result"]["harmonic_mean_TEPS"] == float(block["harmonic_mean_TEPS"])
    assert doc["result"]["NBFS"] == 6 and len(doc["searches"]) == 6
    assert doc["summary"] == lines[-1] and doc["schema"] == spbfs.graph500.results.SCHEMA
    env = doc["environment"]
    assert env["command"].startswith("python -m spbfs graph500 --scale 9")
    assert env["arguments"]["json"] == str(out) and env["arguments"]["scale"] == 9
    if plot:
        assert png.read_bytes().startswith(b"\x89PNG") and f"wrote {png}" in proc.stderr


def test_graph500_outputs_into_a_missing_directory(tmp_path, capsys):
    for option in ("--json", "--plot"):
        target = tmp_path / "no" / "run.out"
        assert main(["graph500", "--scale", "20", "--device", "cpu", option,
                     str(target)]) == 2
        err = capsys.readouterr().err
        assert f"{option} {target}: no such directory" in err or "needs matplotlib" in err


def test_graph500_no_progress_writes_nothing_on_stderr():
    proc = run_cli("graph500", "--scale", "7", "--roots", "2", "--device", "cpu",
                   "--no-progress")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines()[-1].startswith("2 searches, 2 validated")


def test_version_and_help_show_every_default(capsys):
    import spbfs
    from spbfs.cli import build_parser

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"spbfs {spbfs.__version__}"
    commands = build_parser()._subparsers._group_actions[0].choices
    for command in ("graph500", "bfs"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "``" not in text and ":func:" not in text and ":class:" not in text
        actions = [a for a in commands[command]._actions if a.dest != "help"]
        assert all(a.help for a in actions), [a.dest for a in actions if not a.help]
        for action in actions:
            if action.default not in (None, False):
                assert f"(default: {action.default})" in text, (command, action.dest)
    assert "(default: chosen from the graph)" in " ".join(
        commands["graph500"].format_help().split())


def test_graph500_says_when_fewer_roots_ran(capsys):
    assert main(["graph500", "--scale", "5", "--roots", "2000", "--device", "cpu",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    ran = int(out.splitlines()[-1].split()[0])
    assert 0 < ran < 2000
    assert (f"note: 2000 roots asked for, {ran} searched: the graph has {ran} vertices "
            "with an edge other than a self-loop") in out


@pytest.mark.parametrize("option", [["--threshold", "8"], ["--data-plane", "mpi"]])
def test_dist_options_without_dist_are_refused(capsys, option):
    assert main(["graph500", "--scale", "5", "--device", "cpu", *option]) == 2
    err = capsys.readouterr().err
    assert f"spbfs: error: {option[0]} is an option of distributed runs: use it with --dist" in err


def test_graph500_refuses_a_scale_that_cannot_fit():
    proc = run_cli("graph500", "--scale", "40", "--device", "cpu")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("spbfs: error: --scale 40 needs at least 1.04 PiB of host "
                                  "memory"), proc.stderr
    assert "largest scale that may fit is" in proc.stderr
    assert "Unable to allocate" not in proc.stderr


def test_memory_check_names_the_largest_scale():
    from spbfs.graph500.harness import check_memory, memory_needed

    check_memory(10, available=memory_needed(10))
    with pytest.raises(MemoryError, match="largest scale that may fit is 10,"):
        check_memory(12, available=memory_needed(10) + 1)


def test_bfs_on_a_symmetric_matrix_market_file_names_its_edge_count(tmp_path, capsys):
    path = tmp_path / "s.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n3 3\n")
    assert main(["bfs", str(path), "--source", "1"]) == 0
    assert ("edges: 5 (directed edges i -> j stored: the file's 3 symmetric entries with the "
            "other triangle filled in)") in capsys.readouterr().out
    general = tmp_path / "g.mtx"
    general.write_text(_PATH_FORMATS["mtx"][1])
    assert main(["bfs", str(general), "--source", "1"]) == 0
    assert "edges: 2  source: 1" in capsys.readouterr().out


def test_plot_names_which_median_it_draws():
    from spbfs.graph500.plot import search_label, typical_search
    from spbfs.graph500.validation import summarize

    for count in (5, 6):
        times = np.linspace(1.0, 2.0, count)
        doc = {"searches": [{"TEPS": 100 / t} for t in times]}
        index = typical_search(doc)
        label = search_label(doc, index)
        median = summarize(10, 16, 1.0, times, np.full(count, 100), True)["median_TEPS"]
        if count % 2:
            assert label == "the median-TEPS search"
            assert doc["searches"][index]["TEPS"] == pytest.approx(median)
        else:
            assert "lower of the two middle TEPS" in label and "median_TEPS lies between" in label
            middle = sorted(s["TEPS"] for s in doc["searches"])[count // 2 - 1:count // 2 + 1]
            assert doc["searches"][index]["TEPS"] == middle[0] < median < middle[1]
