"""``get_info``, the ``networkx.backend_info`` entry point.

NetworkX calls it at the end of its own import, possibly while
``spbfs.nx`` itself is still being imported (``import spbfs.nx`` imports
networkx first), so this module imports only the backend's light parts:
the settings and the registry of functions (the algorithm modules fill it).
"""

from __future__ import annotations

from . import (  # noqa: F401  (their decorators fill the registry)
    _bipartite,
    _centrality,
    _cluster,
    _communities,
    _cuts,
    _dense,
    _dijkstra,
    _efficiency,
    _generic,
    _layout,
    _lca,
    _leiden,
    _link_analysis,
    _link_prediction,
    _matrices,
    _misc,
    _operators_nx,
    _paths,
    _reach,
    _recognition,
    _shortest,
    _structure,
    _traversal,
)
from ._config import default_config
from ._registry import FUNCTIONS

try:  # algorithms provided by other parts of spbfs, when present
    from . import _components  # noqa: F401
except ImportError:  # pragma: no cover - an spbfs without them
    pass

__all__ = ["URL", "get_info"]

#: The project's page, where the installed metadata names none (``[project.urls]`` of
#: pyproject.toml holds the same; ``tests/test_docs.py`` checks they agree).
URL = "https://pypi.org/project/spbfs/"


def _project_url():
    """The first ``Project-URL`` of the installed metadata (``[project.urls]``), else
    :data:`URL`."""
    from importlib import metadata

    try:
        urls = metadata.metadata("spbfs").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        _, _, url = entry.partition(",")
        if url.strip():
            return url.strip()
    return URL


def get_info():
    """The ``networkx.backend_info`` entry point: metadata, functions and default settings.

    Examples
    --------
    >>> from spbfs.nx import get_info
    >>> info = get_info()
    >>> info["backend_name"], "bfs_edges" in info["functions"], info["default_config"].device
    ('spbfs', True, 'auto')
    >>> info["url"].startswith("https://"), f"{len(info['functions'])} NetworkX functions" in (
    ...     info["short_summary"])
    (True, True)
    """
    return {
        "backend_name": "spbfs",
        "project": "spbfs",
        "package": "spbfs",
        "url": _project_url(),
        "short_summary": f"Graph algorithms as sparse linear algebra over semirings, on CPU "
                         f"(numpy/scipy) or GPU (CuPy): {len(FUNCTIONS)} NetworkX functions "
                         "(traversal, shortest paths, components, link analysis, centrality, "
                         "clustering, cores, link prediction, communities).",
        "default_config": default_config(),
        "functions": {
            name: {key: value for key, value in (("additional_docs", entry.docs),
                                                 ("additional_parameters", entry.parameters))
                   if value}
            for name, entry in sorted(FUNCTIONS.items())
        },
    }
