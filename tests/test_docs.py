"""The documents a new user reads first: README.md, docs/guide.md, LICENSE, backend_info.

Every fenced code block of README.md and docs/guide.md runs here (issue 63), not only the
``>>>`` lines that pytest's doctest collection of docs/guide.md runs.
"""

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
