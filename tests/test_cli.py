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
    for path in (mtx, txt):
        out = tmp_path / "out.npz"
        assert main(["bfs", str(path), "--source", "3", "--parents", "--undirected",
                     "--output", str(out)]) == 0
        saved = np.load(out)
        np.testing.assert_array_equal(saved["levels"], oracle_levels(A, 3, directed=False))
        assert saved["parents"][3] == 3
    assert "reached:" in capsys.readouterr().out


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
