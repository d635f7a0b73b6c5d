"""Every repository path that README.md and docs/*.md cite exists (issue 63, item 5).

A document that cites ``spbfs/...``, ``tests/...``, ``benchmarks/...`` or ``docs/...`` (in
prose, in backquotes or in a command), links to a file (``[text](figures/x.png)``) or names
a Markdown file of the project (``DESIGN.md``) must name something that is in the checkout:
a file, a folder, or a glob (``benchmarks/results/*.jsonl``) that matches at least one.
A file that is gone is described in words ("a scratch script, not kept"), not cited.
"""

import glob
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(["README.md", *(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))])

#: The repository's own top folders whose paths documents cite.
PREFIXES = ("spbfs", "tests", "benchmarks", "docs")
#: Folders that were never part of the repository (a session's scratch scripts, a checkout
#: of an older tree, the papers beside the project): a path in them is never cited.
FOREIGN = ("variants", "shared", ".dev")

# A path: one of the prefixes at the start of a word (not the tail of ``.../spbfs/x`` or of
# ``site-packages/spbfs``), then path characters; a trailing full stop, comma or colon is
# the sentence's, not the path's.
_START = r"(?<![\w./~$-])"


def _under(folders):
    return re.compile(_START + "(?:" + "|".join(map(re.escape, folders)) + r")/[\w./*-]*")


_PATH = _under(PREFIXES)
_FOREIGN = _under(FOREIGN)
# A Markdown link's target (not a web address, not an anchor).
_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)")
# A Markdown file named on its own: ``DESIGN.md``.
_MARKDOWN = re.compile(r"(?<![\w./-])([A-Za-z][\w-]*\.md)\b")


def _exists(path):
    if path is None:  # under a folder that is not the repository's
        return False
    path = path.rstrip(".,:;")
    if not path:
        return True
    if any(c in path for c in "*?["):
        return bool(glob.glob(str(ROOT / path)))
    return (ROOT / path).exists()


def references(text, document):
    """``(line, cited, resolved)`` for every repository path the text cites."""
    folder = os.path.dirname(document)
    for number, line in enumerate(text.splitlines(), 1):
        for m in _PATH.finditer(line):
            cited = m.group(0).rstrip(".,:;")
            if cited.rstrip("/") in PREFIXES or cited.endswith("/..."):
                continue
            yield number, cited, cited
        for m in _FOREIGN.finditer(line):
            cited = m.group(0).rstrip(".,:;")
            yield number, cited, None
        for m in _LINK.finditer(line):
            target = m.group(1).split("#", 1)[0]
            if target:
                yield number, target, os.path.normpath(os.path.join(folder, target))
        for m in _MARKDOWN.finditer(line):
            name = m.group(1)
            # a project document: at the top or in docs/
            resolved = name if (ROOT / name).exists() else os.path.join("docs", name)
            yield number, name, resolved


def dangling(document):
    text = (ROOT / document).read_text()
    return [f"{document}:{line}: {cited}" for line, cited, resolved in references(text, document)
            if not _exists(resolved)]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_cited_paths_exist(document):
    missing = dangling(document)
    assert not missing, ("paths cited that are not in the repository (describe a file that is "
                         "gone in words instead):\n" + "\n".join(missing))


def test_the_check_finds_what_it_should():
    text = "\n".join([
        "The loop lives in `spbfs/bfs.py` (see docs/nothing-here.md).",         # both gone
        "Scratch: `variants/x.py`; results in benchmarks/results/*.nothing.",   # glob: none
        "![a figure](figures/no_such_figure.png) and DESIGN.md section 4.",
        "A sweep (`shared/papers/000_*.txt`, .dev/old) and variants/",
        "Real ones: spbfs/graph500/results.py, tests/, benchmarks/results/*.jsonl,",
        "`docs/benchmarks.md`, [the guide](guide.md), README.md, .../spbfs/__main__.py.",
    ])
    found = {(line, cited) for line, cited, resolved in references(text, "docs/x.md")
             if not _exists(resolved)}
    assert found == {(1, "spbfs/bfs.py"), (1, "docs/nothing-here.md"),
                     (2, "variants/x.py"), (2, "benchmarks/results/*.nothing"),
                     (3, "figures/no_such_figure.png"),
                     (3, "DESIGN.md"), (4, "shared/papers/000_*.txt"), (4, ".dev/old"),
                     (4, "variants/")}
    assert DOCUMENTS[0] == "README.md" and "docs/benchmarks.md" in DOCUMENTS
