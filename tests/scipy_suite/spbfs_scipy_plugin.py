"""pytest plugin: run scipy's own csgraph test modules against :mod:`spbfs.csgraph`.

Loaded with ``-p spbfs_scipy_plugin`` (this folder on ``PYTHONPATH``).  Before any test
module is imported (``pytest_configure``), each function spbfs provides replaces the
attribute of the same name on ``scipy.sparse.csgraph``, so the test modules'
``from scipy.sparse.csgraph import shortest_path`` (and ``csgraph.connected_components``
looked up at call time) reach spbfs.  The test modules import nothing else from scipy's
private modules that spbfs replaces, so those stay untouched (scipy's own code keeps
calling scipy's own functions).  Every call is counted, per function and per test; with
``SPBFS_SUITE_REPORT`` set, the counts are written there as JSON at the end, so the
caller can check that spbfs, not scipy, answered.  Importing this module does nothing.
"""

import functools
import json
import os

import pytest

#: scipy.sparse.csgraph names answered by spbfs.csgraph during the suite.
REPLACED = ("breadth_first_order", "breadth_first_tree", "connected_components",
            "shortest_path", "dijkstra", "bellman_ford", "johnson", "floyd_warshall", "yen",
            "depth_first_order", "depth_first_tree", "minimum_spanning_tree", "laplacian",
            "reverse_cuthill_mckee", "structural_rank", "maximum_bipartite_matching",
            "min_weight_full_bipartite_matching", "maximum_flow", "construct_dist_matrix",
            "reconstruct_path", "csgraph_from_dense", "csgraph_to_dense",
            "csgraph_masked_from_dense", "csgraph_from_masked", "csgraph_to_masked")

#: scipy's private modules whose names a test module imports directly
#: (``test_traversal.py``: ``from .._laplacian import laplacian``): pointed at spbfs too.
#: spbfs's own wrappers of scipy's conversions hold scipy's functions from before.
PRIVATE = {"_laplacian": ("laplacian",), "_min_spanning_tree": ("minimum_spanning_tree",)}

_calls = dict.fromkeys(REPLACED, 0)
_per_test: dict = {}


def _counted(name, func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _calls[name] += 1
        return func(*args, **kwargs)

    return wrapper


def pytest_configure(config):
    import importlib

    import scipy.sparse.csgraph as scipy_csgraph

    import spbfs.csgraph as ours

    for name in REPLACED:
        setattr(scipy_csgraph, name, _counted(name, getattr(ours, name)))
    for module, names in PRIVATE.items():
        private = importlib.import_module(f"scipy.sparse.csgraph.{module}")
        for name in names:
            setattr(private, name, getattr(scipy_csgraph, name))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    before = sum(_calls.values())
    yield
    _per_test[item.nodeid] = sum(_calls.values()) - before


def pytest_report_header(config):
    return "spbfs adapter: scipy.sparse.csgraph." + ", .".join(REPLACED) + " -> spbfs.csgraph"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("SPBFS_SUITE_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({"calls": _calls, "per_test": _per_test}, f, indent=1)
