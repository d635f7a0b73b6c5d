"""The package's layers hold (docs/architecture.md): no import circle, lazy imports included,
backends below the algebra, algorithms free of device code, both backends exporting what the
backend seam declares, and today's public names kept.

The imports are read with ``ast`` (nothing is imported).  An edge runs from a module to each
module of spbfs it imports; ``from pkg import name`` goes to ``pkg.name`` when that is a
module, else to ``pkg`` (its ``__init__``).  Importing a submodule runs its parents'
``__init__`` too, but as in every import-layer checker that implicit step is not an edge.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "spbfs"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _imports(name: str, path: Path, modules) -> set[str]:
    """The spbfs modules that module ``name`` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _graph():
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), and self-imports."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_is_read():
    graph = _graph()
    assert "spbfs.semiring._backend" in graph["spbfs.semiring._products"]
    assert "spbfs.cpu.backend" in graph["spbfs.semiring._backend"]  # a lazy import
    assert "spbfs.algorithms.bfs" in graph["spbfs"]


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    circles = _circles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def _reach(graph, name) -> set[str]:
    seen, todo = set(), [name]
    while todo:
        for w in graph[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


@pytest.mark.parametrize("backend", ["spbfs.cpu", "spbfs.gpu"])
def test_backends_never_reach_the_algebra(backend):
    graph = _graph()
    above = ("spbfs.semiring", "spbfs.algorithms", "spbfs.dist", "spbfs.graph500", "spbfs.nx")
    for name in (m for m in graph if m == backend or m.startswith(backend + ".")):
        bad = sorted(m for m in _reach(graph, name) if m.startswith(above))
        assert not bad, f"{name} reaches {bad}"


def test_algorithms_and_algebra_call_no_device_code_directly():
    graph = _graph()
    for name, deps in graph.items():
        if name.startswith(("spbfs.algorithms", "spbfs.semiring")):
            direct = sorted(d for d in deps if d.startswith(("spbfs.gpu", "spbfs.cpu",
                                                             "spbfs.dist")))
            allowed = {"spbfs.cpu.backend", "spbfs.gpu.backend", "spbfs.gpu.memory"}
            if name == "spbfs.semiring._backend" or name == "spbfs.semiring._matrix":
                direct = [d for d in direct if d not in allowed]  # the one choice, OOM errors
            assert not direct, f"{name} imports {direct}"


# ids not "gpu": conftest skips items with that keyword where no GPU is (this one needs none)
@pytest.mark.parametrize("backend", ["cpu", "gpu"], ids=["spbfs.cpu", "spbfs.gpu"])
def test_backends_export_the_seam(backend):
    """Each backend exports every required primitive of :mod:`spbfs.core.seam` (the CPU's
    also its own), with the declared signature, and nothing the seam does not declare; read
    from the source (the GPU's too: no GPU needed)."""
    from spbfs.core import seam

    found = seam.source_exports(ROOT / backend / "backend.py")
    must = seam.REQUIRED + (seam.CPU_ONLY if backend == "cpu" else ())
    assert not [name for name in must if name not in found], f"spbfs.{backend}.backend lacks"
    defects = seam.backend_defects(found, cpu=backend == "cpu")
    assert not defects, f"spbfs.{backend}.backend: " + "; ".join(defects)


def test_the_algebra_probes_no_backend_by_getattr():
    """Optional primitives and engine flags are asked for through the seam's helpers
    (``optional_primitive``, ``engine_flag``), never by ``getattr(..., None)``."""
    from spbfs.core import seam

    declared = set(seam.PRIMITIVES) | set(seam.ENGINE_FLAGS)
    for path in sorted((ROOT / "semiring").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr"
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
                assert node.args[1].value not in declared, (
                    f"{path.name}:{node.lineno} probes {node.args[1].value!r} by getattr")


def test_at_most_eight_modules_at_the_top():
    top = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(top) <= 8, top


#: Public names importable before the layout moved files; each must still be.
PUBLIC_NAMES = {
    "spbfs": [
        "PowerIterationFailedConvergence", "betweenness_centrality", "bfs", "centrality",
        "clear_cache", "components", "connected_components", "msbfs", "pagerank", "prepare",
        "semiring", "sssp", "triangles"],
    "spbfs.semiring": [
        "BinaryOp", "IndexUnaryOp", "LevelSearch", "Matrix", "Monoid", "NAMED", "Semiring",
        "Vector", "any_first", "any_pair", "any_secondi", "apply", "assign", "ewise_add",
        "ewise_mult", "extract", "level_search", "lor_land", "max_min", "max_plus", "min_first",
        "min_plus", "min_secondi", "monoids", "mxm", "mxv", "ops", "packed_any_secondi",
        "plus_pair", "plus_times", "reduce", "select", "select_ops", "unary",
        "unpack_bitplanes", "vxm"],
    "spbfs.csgraph": [
        "BATCH_ENTRIES", "NegativeCycleError", "PULL_FRACTION", "SCIPY_NULL", "bellman_ford",
        "breadth_first_order", "breadth_first_tree", "connected_components", "dijkstra",
        "floyd_warshall", "johnson", "shortest_path"],
    "spbfs.dist": [
        "ALPHA", "Communicator", "DistGraph", "bfs", "comm", "generate", "graph", "kronecker",
        "layout", "partition", "slice_bounds"],
    "spbfs.nx": [
        "BackendInterface", "FUNCTIONS", "SpbfsConfig", "SpbfsGraph", "backend_interface",
        "convert_from_nx", "convert_to_nx", "get_info"],
}


@pytest.mark.parametrize("module", sorted(PUBLIC_NAMES))
def test_public_names_are_still_importable(module):
    mod = importlib.import_module(module)
    missing = [n for n in PUBLIC_NAMES[module] if not hasattr(mod, n)]
    assert not missing, f"{module} lost {missing}"
