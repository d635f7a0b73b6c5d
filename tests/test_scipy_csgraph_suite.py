"""scipy's own csgraph test modules, run unchanged against spbfs.csgraph.

The modules ship inside the installed scipy (``scipy/sparse/csgraph/tests/``).  A child
pytest runs them with the plugin ``tests/scipy_suite/spbfs_scipy_plugin.py``, which
points ``scipy.sparse.csgraph.<name>`` at spbfs's function of that name before the test
modules are imported (so their ``from scipy.sparse.csgraph import shortest_path`` gets
spbfs's) and counts the calls per test.  Every assertion is scipy's.

Every public function of scipy.sparse.csgraph is replaced (``NegativeCycleError`` is
scipy's own class in both).  Deselected tests (parameters spbfs does not support) are
listed in ``DESELECTED`` with the reason; with scipy 1.17 there are none.  The only tests
that make no call to spbfs test scipy's private helpers (``SCIPY_ONLY``); the test checks
that they make none, that every other test makes at least one, and that the suite reaches
every replaced function.

On a GPU (``-m gpu``) the same modules (and ``test_conversions.py``) run again with every
input that can live on the device given as cupy / cupyx (``SPBFS_SUITE_DEVICE=cupy``, see
the plugin): the results must come back as device types and pass scipy's assertions.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import scipy.sparse.csgraph

HERE = Path(__file__).resolve().parent
SUITE = HERE / "scipy_suite"
MODULES = ("test_traversal.py", "test_shortest_path.py", "test_connected_components.py",
           "test_spanning_tree.py", "test_reordering.py", "test_flow.py", "test_matching.py",
           "test_graph_laplacian.py")

#: ``node id -> reason``: parameters spbfs does not support (none with scipy 1.17; a
#: newer scipy's tests of, say, dijkstra's ``return_sparse_dist`` would go here).
DESELECTED: dict[str, str] = {}

#: Tests of scipy's private helpers (the flow module's residual-graph builders): they must
#: not call spbfs.  Every other test must.
SCIPY_ONLY = re.compile(r"test_flow\.py::test_(add_reverse_edges|make_edge_pointers|make_tails)\[")

#: spbfs functions the suite must reach through ``scipy.sparse.csgraph``.
MUST_CALL = ("breadth_first_tree", "connected_components", "shortest_path", "dijkstra",
             "bellman_ford", "johnson", "yen", "depth_first_tree", "minimum_spanning_tree",
             "laplacian", "reverse_cuthill_mckee", "structural_rank",
             "maximum_bipartite_matching", "min_weight_full_bipartite_matching",
             "maximum_flow", "construct_dist_matrix", "csgraph_from_dense",
             "csgraph_to_dense", "csgraph_masked_from_dense")


#: The device run: the modules above and scipy's conversion tests.
DEVICE_MODULES = (*MODULES, "test_conversions.py")

#: Functions that scipy's tests must reach with device inputs in the device run.
MUST_RUN_ON_DEVICE = ("breadth_first_tree", "connected_components", "shortest_path",
                      "dijkstra", "bellman_ford", "johnson", "yen", "depth_first_tree",
                      "minimum_spanning_tree", "laplacian", "reverse_cuthill_mckee",
                      "structural_rank", "maximum_bipartite_matching",
                      "min_weight_full_bipartite_matching", "maximum_flow",
                      "csgraph_from_dense", "csgraph_to_dense", "construct_dist_matrix")


def _run_suite(tmp_path, modules, device=False):
    """Run scipy's test ``modules`` with the plugin: ``(output, returncode, report)``."""
    tests_dir = Path(scipy.sparse.csgraph.__file__).resolve().parent / "tests"
    files = [tests_dir / name for name in modules]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        pytest.skip(f"this scipy installation ships without its tests: {missing}")
    report = tmp_path / "calls.json"
    path = [str(SUITE), str(HERE.parent), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p),
               SPBFS_SUITE_REPORT=str(report), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)  # the child runs with suite.ini's options alone
    if device:
        env["SPBFS_SUITE_DEVICE"] = "cupy"
    else:
        env.pop("SPBFS_SUITE_DEVICE", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "spbfs_scipy_plugin",
           "-p", "no:cacheprovider", "-c", str(SUITE / "suite.ini"),
           "--rootdir", str(tests_dir)]
    for node in DESELECTED:
        cmd += ["--deselect", node]
    proc = subprocess.run([*cmd, *map(str, files)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1800)
    out = proc.stdout + proc.stderr
    data = json.loads(report.read_text()) if report.is_file() else None
    return out, proc.returncode, data


def test_scipy_csgraph_suite(tmp_path):
    out, returncode, data = _run_suite(tmp_path, MODULES)
    assert returncode == 0, out[-8000:]
    assert re.search(r"\d+ passed", out), out
    assert not re.search(r"\d+ (failed|errors?)\b", out), out
    per_test = data["per_test"]
    assert len(per_test) >= 1000, len(per_test)  # the modules were collected
    for name in MODULES:
        assert any(node.startswith(name) for node in per_test), f"{name} ran no test"
    for node, calls in per_test.items():
        if SCIPY_ONLY.search(node):
            assert calls == 0, f"{node} is listed as scipy-only but called spbfs"
        else:
            assert calls > 0, f"{node} never reached spbfs: the adapter did not apply"
    for name in MUST_CALL:
        assert data["calls"][name] > 0, f"scipy's tests never reached spbfs.csgraph.{name}"


@pytest.mark.gpu
def test_scipy_csgraph_suite_on_device(tmp_path):
    """scipy's tests with their inputs on the GPU (cupy arrays, cupyx matrices)."""
    out, returncode, data = _run_suite(tmp_path, DEVICE_MODULES, device=True)
    assert returncode == 0, out[-12000:]
    assert re.search(r"\d+ passed", out), out
    assert not re.search(r"\d+ (failed|errors?)\b", out), out
    assert len(data["per_test"]) >= 1000, len(data["per_test"])
    for name in MUST_RUN_ON_DEVICE:
        assert data["device_calls"][name] > 0, (
            f"scipy's tests never called spbfs.csgraph.{name} with device inputs")
