"""pytest plugin for the NetworkX test-suite subprocess: counts calls that reach spbfs.

Loaded with ``-p dispatch_probe`` by tests/nx/test_networkx_suite.py; with
``SPBFS_NX_PROBE=<file>`` set it wraps every registered backend function
and writes ``{function name: calls}`` as JSON to that file at the end, so
the outer test can tell that NetworkX really dispatched to spbfs.
"""

import dataclasses
import json
import os

_counts: dict = {}


def pytest_configure(config):
    if not os.environ.get("SPBFS_NX_PROBE"):
        return
    import networkx  # noqa: F401  (before spbfs.nx: see spbfs/nx/__init__.py)

    from spbfs.nx import _registry

    for name, entry in list(_registry.FUNCTIONS.items()):
        def counted(*args, _func=entry.func, _name=name, **kwargs):
            _counts[_name] = _counts.get(_name, 0) + 1
            return _func(*args, **kwargs)

        _registry.FUNCTIONS[name] = dataclasses.replace(entry, func=counted)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("SPBFS_NX_PROBE")
    if path:
        with open(path, "w") as f:
            json.dump(_counts, f)
