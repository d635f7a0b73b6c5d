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

With ``SPBFS_SUITE_DEVICE=cupy`` every call runs on the GPU where its inputs allow: the
graph argument (and ``predecessors``) goes to the device first, a scipy sparse matrix of
bool/float/complex values as a cupyx matrix of its format, one of integers as float64
(cupyx holds no integer values; scipy computes in float64 too), except for ``laplacian``,
whose result keeps an integer dtype (those stay on the host), and a numeric 2-D numpy
array as a cupy array; the result must come back as device types (cupy arrays, cupyx
matrices; only the masked-array conversions answer on the host) and is copied to the
host in the class scipy returns for the original input (a flow for integer capacities as
scipy's int32), so scipy's own assertions check it.  A dense input
written in place (``laplacian(copy=False)``) is copied back, and a COO input to
``laplacian(copy=False)`` is given the result's arrays (scipy overwrites it).  The counts
of calls that ran on the device are reported as ``device_calls``.
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

#: Functions whose result is a numpy masked array even for device input (there are no
#: masked arrays on the device).
HOST_RESULTS = ("csgraph_masked_from_dense", "csgraph_to_masked", "csgraph_from_masked")

_calls = dict.fromkeys(REPLACED, 0)
_device_calls = dict.fromkeys(REPLACED, 0)
_per_test: dict = {}


def _counted(name, func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _calls[name] += 1
        return func(*args, **kwargs)

    return wrapper


# ----------------------------------------------------------------------------- device mode
def _device_mode():
    return os.environ.get("SPBFS_SUITE_DEVICE", "") == "cupy"


#: Functions whose result keeps an integer input's dtype: their integer sparse inputs stay
#: on the host (every other function computes in float64, as scipy converts to it).
KEEPS_INTEGERS = ("laplacian",)


def _to_device(x, name=""):
    """``(device copy of x, True)`` where x can live on the device, else ``(x, False)``."""
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(x):
        if (x.format in ("csr", "csc", "coo") and x.dtype.kind in "iu"
                and name not in KEEPS_INTEGERS and x.dtype.itemsize <= 8):
            x = x.astype(np.float64)      # cupyx holds no integers; exact for |x| < 2**53
        if x.format not in ("csr", "csc", "coo") or x.dtype not in (
                np.bool_, np.float32, np.float64, np.complex64, np.complex128):
            return x, False
        import cupyx.scipy.sparse as csp

        cls = {"csr": csp.csr_matrix, "csc": csp.csc_matrix, "coo": csp.coo_matrix}[x.format]
        host = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}[x.format](
            x, copy=True)                 # cupyx copies a scipy matrix's arrays as they are
        if x.format == "coo":
            host.row, host.col = host.row.astype(np.int32), host.col.astype(np.int32)
        else:
            host.indices = host.indices.astype(np.int32)
            host.indptr = host.indptr.astype(np.int32)
        try:
            return cls(host), True
        except Exception:  # a shape or layout cupyx does not take: the host keeps it
            return x, False
    if (type(x) is np.ndarray and x.ndim == 2 and x.dtype.kind in "biufc"
            and x.dtype not in (np.float16, np.longdouble, np.clongdouble)):
        import cupy

        return cupy.asarray(x), True
    return x, False


def _is_device(x):
    module = type(x).__module__
    return module.startswith("cupy")


def _host_result(name, out, like):
    """The result copied to the host, in scipy's class for the original input ``like``;
    an AssertionError for a host array where device arrays were due."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph._flow import MaximumFlowResult

    if isinstance(out, tuple):
        return tuple(_host_result(name, o, like) for o in out)
    if isinstance(out, MaximumFlowResult):
        flow = _host_result(name, out.flow, like)
        if getattr(like, "dtype", np.dtype(float)).kind in "iu":  # scipy's int32 flow
            flow = flow.astype(np.int32)
        return MaximumFlowResult(out.flow_value, flow)
    if isinstance(out, np.ndarray) and out.ndim > 0:
        if name not in HOST_RESULTS:
            raise AssertionError(f"spbfs.csgraph.{name} returned a numpy array for device "
                                 "input")
        return out
    if sp.issparse(out):
        raise AssertionError(f"spbfs.csgraph.{name} returned a scipy matrix for device "
                             "input")
    if not _is_device(out):
        if callable(out) and not isinstance(out, type):  # laplacian(form='function')
            return _host_function(out, like)
        return out
    if hasattr(out, "matvec") and hasattr(out, "shape"):  # a cupyx LinearOperator
        from scipy.sparse.linalg import LinearOperator

        f = _host_function(out.matmat, like)
        return LinearOperator(shape=out.shape, matvec=f, matmat=f, dtype=out.dtype)
    host = out.get()
    if sp.issparse(host) and not (sp.issparse(like) and not isinstance(like, sp.sparray)):
        host = {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array}.get(
            host.format, sp.csr_array)(host)
    return host


def _host_function(f, like):
    import cupy

    def host(v):
        out = f(cupy.asarray(v))
        return out.get() if hasattr(out, "get") else out

    return host


def _on_device(name, func):
    """``func`` called with its graph (and ``predecessors``) on the device."""
    import numpy as np

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args = list(args)
        originals = {}
        moved = False
        slots = [0] + ([1] if name in ("construct_dist_matrix", "reconstruct_path") else [])
        for slot in slots:
            if slot < len(args):
                originals[slot] = args[slot]
                args[slot], on = _to_device(args[slot], name)
                moved |= on
        for key in ("csgraph", "graph", "biadjacency", "predecessors"):
            if key in kwargs:
                originals[key] = kwargs[key]
                kwargs[key], on = _to_device(kwargs[key], name)
                moved |= on
        if not moved:
            return func(*args, **kwargs)
        _device_calls[name] += 1
        out = func(*args, **kwargs)
        for key, original in originals.items():  # dense inputs written in place
            device = args[key] if isinstance(key, int) else kwargs[key]
            if type(original) is np.ndarray and _is_device(device) and original.flags.writeable:
                original[...] = device.get()
        like = originals.get(0, originals.get("csgraph", originals.get("graph")))
        result = _host_result(name, out, like)
        if (name == "laplacian" and kwargs.get("copy", True) is False
                and getattr(like, "format", None) == "coo"):
            # scipy writes a COO input over with the result: mirror that on the host copy
            lap = result[0] if isinstance(result, tuple) else result
            like.data, like.row, like.col = lap.data, lap.row, lap.col
        return result

    return wrapper


def pytest_configure(config):
    import importlib

    import scipy.sparse.csgraph as scipy_csgraph

    import spbfs.csgraph as ours

    device = _device_mode()
    for name in REPLACED:
        func = getattr(ours, name)
        if device:
            func = _on_device(name, func)
        setattr(scipy_csgraph, name, _counted(name, func))
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
    where = " (inputs on the device: cupy / cupyx)" if _device_mode() else ""
    return ("spbfs adapter: scipy.sparse.csgraph." + ", .".join(REPLACED)
            + " -> spbfs.csgraph" + where)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("SPBFS_SUITE_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({"calls": _calls, "device_calls": _device_calls,
                       "per_test": _per_test}, f, indent=1)
