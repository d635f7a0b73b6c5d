"""The documents a new user reads first: README.md, docs/guide.md, LICENSE, backend_info.

Every fenced code block of README.md and docs/guide.md runs here (issue 63), not only the
``>>>`` lines that pytest's doctest collection of docs/guide.md runs.
"""

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_backend_info_summary_and_url():
    nx = pytest.importorskip("networkx")
    from spbfs.nx import FUNCTIONS
    from spbfs.nx._info import URL, get_info

    info = get_info()
    assert info["url"] and info["url"].startswith("https://")
    assert URL in _pyproject()["project"]["urls"].values()  # the fallback is pyproject's
    summary = info["short_summary"]
    assert "BFS and shortest paths as" not in summary
    assert f"{len(FUNCTIONS)} NetworkX functions" in summary
    assert nx.utils.backends.backend_info["spbfs"]["short_summary"] == summary


# ---------------------------------------------------------------------------------------
# Every fenced block of README.md and docs/guide.md.
#
# A document's blocks run in order in one namespace (a later block may use an earlier one's
# names), in a temporary working directory:
#   - a ``python`` block with ``>>>`` lines runs as a doctest (its output checked);
#   - any other ``python`` block is executed;
#   - a block whose lines start with ``$ `` runs each command (``spbfs`` is this package's
#     command line) and checks its output, numbers that vary (times) excepted;
#   - the HTML comment just above a fence says what else to do with it:
#     ``<!-- file: NAME -->`` writes the block to NAME (a data file the next blocks read),
#     ``<!-- test: gpu -->`` / ``<!-- test: mpi -->`` runs it only with a GPU / under
#     ``SPBFS_DOCS_MPI=1`` (tests of their own, skipped without one),
#     ``<!-- not run: REASON -->`` leaves it out, saying why (a synopsis, an install step).
# A block that is neither runnable nor marked fails the test, so a new block must be one.
# ---------------------------------------------------------------------------------------


_FENCE = re.compile(r"(?:<!--\s*(?P<mark>[^>]*?)\s*-->\s*\n)?"
                    r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.M | re.S)


def _blocks(name):
    text = (ROOT / name).read_text()
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start("lang")) + 1
        yield line, (m.group("mark") or "").strip(), m.group("lang"), m.group("body")


def _kind(mark, lang, body):
    if mark.startswith("not run:"):
        assert mark[len("not run:"):].strip(), "a <!-- not run: --> block needs its reason"
        return "skip"
    if mark.startswith("file:"):
        return "file"
    if mark in ("test: gpu", "test: mpi"):
        return mark.split()[-1]
    if lang == "python":
        return "doctest" if ">>>" in body else "exec"
    if body.lstrip().startswith("$ "):
        return "console"
    raise AssertionError("neither runnable nor marked (<!-- not run: REASON -->)")


_FLOAT = re.compile(r"\d+\.\d+")


def _run_console(body, where):
    chunks = re.split(r"(?m)^\$ ", body)[1:]
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    for chunk in chunks:
        command, _, expected = chunk.partition("\n")
        argv = shlex.split(command)
        if argv[0] == "spbfs":
            argv = [sys.executable, "-m", "spbfs", *argv[1:]]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, f"{where}: {command}\n{proc.stderr}"
        pattern = r"\d+\.\d+".join(map(re.escape, _FLOAT.split(expected.strip())))
        assert re.fullmatch(pattern, proc.stdout.strip()), (
            f"{where}: {command}\nexpected:\n{expected}\ngot:\n{proc.stdout}")


def _run(name, kinds, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    ran = 0
    for line, mark, lang, body in _blocks(name):
        where = f"{name}, line {line}"
        try:
            kind = _kind(mark, lang, body)
        except AssertionError as e:
            raise AssertionError(f"{where}: {e}") from None
        if kind == "file":
            (tmp_path / mark[len("file:"):].strip()).write_text(body)
            continue
        if kind not in kinds:
            continue
        if kind == "console":
            _run_console(body, where)
        elif ">>>" in body:
            test = doctest.DocTestParser().get_doctest(body, namespace, where, name, line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                           | doctest.NORMALIZE_WHITESPACE)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # a DocTest runs in a copy of the namespace
            assert runner.failures == 0, f"{where}: a doctest failed (its report is above)"
        else:
            exec(compile(body, where, "exec"), namespace)
        ran += 1
    return ran


def _needs_the_backend():
    """The guide's NetworkX blocks need spbfs installed (its backend entry point), not only
    importable."""
    nx = pytest.importorskip("networkx")
    if "spbfs" not in nx.utils.backends.backend_info:
        pytest.skip("spbfs is not installed (pip install .): NetworkX has no 'spbfs' backend")


@pytest.mark.parametrize("name", ["README.md", "docs/guide.md"])
def test_every_block_runs(name, tmp_path, monkeypatch):
    _needs_the_backend()
    assert _run(name, {"exec", "doctest", "console"}, tmp_path, monkeypatch) > 0


def _has_gpu():
    try:
        import cupy

        return bool(cupy.cuda.is_available())
    except Exception:
        return False


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["README.md", "docs/guide.md"])
def test_gpu_blocks_run(name, tmp_path, monkeypatch):
    if not _has_gpu():
        pytest.skip("needs a CUDA GPU and CuPy")
    _needs_the_backend()
    _run(name, {"exec", "doctest", "console", "gpu"}, tmp_path, monkeypatch)


@pytest.mark.mpi
@pytest.mark.parametrize("name", ["README.md"])
def test_mpi_blocks_run(name, tmp_path, monkeypatch):
    if not os.environ.get("SPBFS_DOCS_MPI"):
        pytest.skip("minutes of MPI ranks: set SPBFS_DOCS_MPI=1 to run the documents' "
                    "mpiexec blocks")
    for line, mark, _, body in _blocks(name):
        if mark == "test: mpi":
            command = body.split("#")[0].strip().replace(".venv/bin/", "")
            argv = shlex.split(command)
            argv[argv.index("python")] = sys.executable
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, f"{name}, line {line}: {proc.stderr}"


def test_no_block_left_unmarked():
    for name in ("README.md", "docs/guide.md"):
        kinds = [_kind(mark, lang, body) for _, mark, lang, body in _blocks(name)]
        assert kinds
