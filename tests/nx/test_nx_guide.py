"""docs/guide.md's NetworkX table names every dispatched function, and ``backend_info``
documents each one (its caveats, the text ``help()`` shows under "Backends")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nx = pytest.importorskip("networkx")

from spbfs.nx import FUNCTIONS, get_info  # noqa: E402

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def _section():
    text = GUIDE.read_text()
    return text[text.index("## NetworkX backend"):text.index("### What bounds")]


def _table():
    """family -> (the functions its row names, its caveats)."""
    rows = {}
    for line in _section().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 3 and cells[0] not in ("family", "---"):
            names = [n for n in re.findall(r"`(\w+)`", cells[1]) if n != "weight"]
            rows[cells[0]] = (names, cells[2])
    return rows


def test_the_guide_lists_every_dispatched_function():
    listed = [name for names, _ in _table().values() for name in names]
    assert sorted(set(FUNCTIONS) - set(listed)) == [], "dispatched, not in the guide"
    assert sorted(set(listed) - set(FUNCTIONS)) == [], "in the guide, not dispatched"
    twice = sorted({name for name in listed if listed.count(name) > 1})
    assert twice == ["shortest_path", "shortest_path_length"]  # unweighted, and Dijkstra
    count = re.search(r"(\d+) functions are dispatched today", _section())
    assert count and int(count.group(1)) == len(FUNCTIONS)


def test_backend_info_documents_every_function():
    info = get_info()["functions"]
    assert sorted(info) == sorted(FUNCTIONS)
    assert [name for name, entry in info.items() if not entry.get("additional_docs")] == []
    installed = nx.utils.backends.backend_info.get("spbfs")
    if installed is not None:  # what NetworkX shows is the registry's text
        for name, entry in FUNCTIONS.items():
            assert installed["functions"][name]["additional_docs"] == entry.docs
