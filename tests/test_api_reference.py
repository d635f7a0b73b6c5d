"""docs/api.md, the reference of spbfs's public top-level names, generated from their
numpydoc docstrings.

Regenerate it with ``python tests/test_api_reference.py`` (it writes docs/api.md); the test
fails when a public name of ``spbfs.__all__`` is missing from it.
"""

import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.md"

HEADER = """# API reference

Every public top-level name of `spbfs` (`spbfs.__all__`), with its signature and numpydoc
docstring. Generated from the docstrings by `python tests/test_api_reference.py`; the test in
that file fails when a public name is missing here. `docs/guide.md` explains how the pieces
fit; `spbfs.semiring`, `spbfs.csgraph`, `spbfs.nx`, `spbfs.dist`, `spbfs.io` and
`spbfs.graph500` document their own names the same way (`help(module)`).
"""

_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.M)


def _markdown(doc):
    """A numpydoc docstring as markdown: section underlines become headings, the
    Examples section a code block."""
    parts = _SECTION.split(doc)
    out = [parts[0].strip()]
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        body = body.strip("\n")
        if title == "Examples":
            out.append(f"**{title}**\n\n```python\n{body}\n```")
        else:
            out.append(f"**{title}**\n\n```\n{body}\n```")
    return "\n\n".join(out)


def render():
    """The text of docs/api.md."""
    import spbfs

    lines = [HEADER]
    names = sorted(spbfs.__all__, key=str.lower)
    lines.append("Contents: " + ", ".join(f"[`{n}`](#spbfs{n.lower().replace('_', '')})"
                                          for n in names) + "\n")
    for name in names:
        obj = getattr(spbfs, name)
        if inspect.ismodule(obj):
            doc = inspect.getdoc(obj) or ""
            lines.append(f"## spbfs.{name}\n\nThe module `spbfs.{name}`.\n\n{_markdown(doc)}\n")
            continue
        try:
            signature = f"{name}{inspect.signature(obj)}"
        except (TypeError, ValueError):
            signature = name
        kind = "class" if inspect.isclass(obj) else "function"
        doc = inspect.getdoc(obj) or ""
        lines.append(f"## spbfs.{name}\n\n{kind}\n\n```python\n{signature}\n```\n\n"
                     f"{_markdown(doc)}\n")
    return "\n".join(lines)


def test_every_public_name_is_in_the_api_reference():
    import spbfs

    text = API.read_text()
    headings = set(re.findall(r"^## spbfs\.(\w+)$", text, re.M))
    missing = sorted(set(spbfs.__all__) - headings)
    assert not missing, (f"docs/api.md lacks {missing}: regenerate it with "
                         "python tests/test_api_reference.py")
    assert not headings - set(spbfs.__all__), "docs/api.md names what spbfs no longer has"


@pytest.mark.parametrize("name", ["bfs", "louvain", "hits", "core_number", "k_truss"])
def test_each_entry_holds_its_docstring(name):
    import spbfs

    text = API.read_text()
    entry = text.split(f"## spbfs.{name}\n", 1)[1].split("\n## ", 1)[0]
    summary = inspect.getdoc(getattr(spbfs, name)).splitlines()[0]
    assert summary in entry and "**Parameters**" in entry


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    API.write_text(render())
    print(f"wrote {API}")
