"""The backend seam is a contract (issue 62): :mod:`spbfs.core.seam` declares the required,
optional and CPU-only primitives with their signatures and the engine flags with their
defaults; both backends export what it declares (the GPU's read from its source with ``ast``,
so the check runs without a GPU); the algebra fetches optional primitives through one
helper.  Also the argument checks kept in one place (:mod:`spbfs.core.validation`,
:mod:`spbfs.core.arrays`) and their one wording per defect.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import spbfs
from spbfs import semiring
from spbfs.core import arrays, seam, validation
from spbfs.core.seam import (
    CPU_ONLY,
    ENGINE_FLAGS,
    OPTIONAL,
    PRIMITIVES,
    REQUIRED,
    LevelSearch,
    backend_defects,
    engine_flag,
    optional_primitive,
    source_exports,
)

ROOT = Path(spbfs.__file__).resolve().parent


def _bare(signature):
    empty = inspect.Parameter.empty
    return signature.replace(parameters=[p.replace(annotation=empty)
                                         for p in signature.parameters.values()],
                             return_annotation=empty)


# -- the declaration ---------------------------------------------------------------------

def test_the_lists_partition_the_declared_primitives():
    assert len(set(REQUIRED + OPTIONAL + CPU_ONLY)) == len(REQUIRED + OPTIONAL + CPU_ONLY)
    assert set(PRIMITIVES) == set(REQUIRED) | set(OPTIONAL) | set(CPU_ONLY)
    assert {PRIMITIVES[n].kind for n in REQUIRED} == {"required"}
    assert {PRIMITIVES[n].kind for n in OPTIONAL} == {"optional"}
    assert {PRIMITIVES[n].kind for n in CPU_ONLY} == {"cpu"}
    assert set(CPU_ONLY) == {"csr_assign", "csr_union"}
    for p in PRIMITIVES.values():
        assert p.computes and isinstance(p.signature, inspect.Signature), p.name
        assert p.params == tuple(p.signature.parameters)


def test_every_primitive_the_seam_documents_is_declared():
    # the architecture's table names the same primitives as the declaration
    text = (ROOT.parent / "docs" / "architecture.md").read_text()
    section = text[text.index("## The backend seam"):text.index("## Where new work goes")]
    for name in PRIMITIVES:
        assert f"`{name}`" in section, name


# -- both backends export what the seam declares -------------------------------------------

def test_the_cpu_backend_exports_every_required_primitive_with_its_signature():
    from spbfs.cpu import backend

    for name in REQUIRED + CPU_ONLY:
        assert name in backend.__all__, name
        assert PRIMITIVES[name].matches(getattr(backend, name)), name
    assert backend_defects(backend, cpu=True) == []


def test_the_gpu_backend_exports_every_required_primitive_with_its_signature():
    found = source_exports(ROOT / "gpu" / "backend.py")   # read, not imported: no GPU needed
    assert set(REQUIRED) <= set(found), sorted(set(REQUIRED) - set(found))
    for name in REQUIRED:
        assert found[name] == PRIMITIVES[name].signature, name
    assert backend_defects(found) == []
    assert not set(CPU_ONLY) & set(found)
    # the optional primitives the GPU has today, read through its imports
    assert {"queue_order", "queue_levels", "row_mode", "weak_components",
            "prefers_pull"} <= set(found)


def test_reading_the_source_agrees_with_importing_it():
    from spbfs.cpu import backend

    found = source_exports(ROOT / "cpu" / "backend.py")
    assert set(found) == set(backend.__all__)
    for name, signature in found.items():
        assert signature == _bare(inspect.signature(getattr(backend, name))), name


def test_the_backends_module_docstrings_name_their_primitives():
    for where in ("cpu", "gpu"):
        doc = ast.get_docstring(ast.parse((ROOT / where / "backend.py").read_text()))
        assert "spbfs.core.seam" in doc, where
    gpu = ast.get_docstring(ast.parse((ROOT / "gpu" / "backend.py").read_text()))
    exported = source_exports(ROOT / "gpu" / "backend.py")
    for name in exported:
        assert f"``{name}``" in gpu, name   # the docstring lists every export


def test_defects_are_reported_one_per_line():
    def spmv(x):
        return x

    found = backend_defects({"spmv": spmv, "csr_union": len, "extra": len})
    assert "lacks the required primitive spmspv" in found
    assert any(line.startswith("spmv has parameters (x), the seam declares (tindptr")
               for line in found)
    assert "exports csr_union, which the seam does not declare" in found   # not the CPU
    assert "exports extra, which the seam does not declare" in found
    assert not any("csr_assign" in line for line in found)
    assert "lacks the required primitive csr_assign" in backend_defects({}, cpu=True)


def test_a_signature_matches_by_names_kinds_and_defaults():
    p = PRIMITIVES["weak_components"]
    assert p.matches(lambda indptr, indices, symmetric=False: None)
    assert not p.matches(lambda indptr, indices, symmetric=True: None)     # default
    assert not p.matches(lambda indptr, indices, *, symmetric=False: None)  # kind
    assert not p.matches(lambda indptr, idx, symmetric=False: None)        # name

    def annotated(nnz: int, frontier_edges: int) -> bool:
        return True

    assert PRIMITIVES["prefers_pull"].matches(annotated)   # annotations aside


# -- one helper for optional primitives --------------------------------------------------

def test_optional_primitive_fetches_or_gives_none():
    from spbfs.cpu import backend

    assert optional_primitive(backend, "spgemm") is backend.spgemm
    assert optional_primitive(backend, "queue_levels") is None      # the GPU's alone
    for name in OPTIONAL:
        assert optional_primitive(backend, name) is getattr(backend, name, None)


@pytest.mark.parametrize("name", ["spgemmm", "spmspv", "csr_union", "LevelSearch"])
def test_optional_primitive_refuses_names_it_does_not_declare(name):
    from spbfs.cpu import backend

    with pytest.raises(ValueError, match="is not an optional primitive of the seam"):
        optional_primitive(backend, name)


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            yield node


def test_the_algebra_asks_for_optional_primitives_by_declared_names():
    asked = set()
    for path in (ROOT / "semiring").glob("*.py"):
        for call in _calls(path):
            if call.func.id == "optional_primitive":
                name = call.args[1]
                assert isinstance(name, ast.Constant), f"{path.name}: a name, not {name}"
                assert name.value in OPTIONAL, f"{path.name}: {name.value}"
                asked.add(name.value)
    assert asked == set(OPTIONAL)   # every optional primitive is used by an operation


# -- engine flags ------------------------------------------------------------------------

def test_engine_flags_have_their_defaults_on_level_search():
    assert ENGINE_FLAGS == {"drives_itself": False}
    for flag, default in ENGINE_FLAGS.items():
        assert getattr(LevelSearch, flag) == default
        assert engine_flag(LevelSearch(), flag) == default
        assert engine_flag(object(), flag) == default   # an engine of another class
    with pytest.raises(ValueError, match="is not an engine flag of the seam"):
        engine_flag(LevelSearch(), "drives_itselff")


def test_the_cpu_engines_are_stepped():
    A = sp.csr_array(np.eye(4, k=1))
    for sr in (semiring.any_pair, semiring.lor_land):   # the bitmap engine, the masked one
        with semiring.level_search(A, 0, sr) as s:
            assert engine_flag(s, "drives_itself") is False, type(s).__name__


def test_an_engine_that_drives_itself_says_so():
    class Loop(LevelSearch):
        drives_itself = True

    assert engine_flag(Loop(), "drives_itself") is True


# -- checks in one place -----------------------------------------------------------------

def test_index_dtype_has_one_home():
    from spbfs.semiring import _masks, _matrix, _pattern

    assert _pattern.index_dtype is arrays.index_dtype
    assert _matrix.index_dtype is arrays.index_dtype
    assert _masks.index_dtype is arrays.index_dtype
    assert arrays.index_dtype(arrays.INT32_MAX) == np.int32
    assert arrays.index_dtype(5, arrays.INT32_MAX + 1) == np.int64


def test_check_integer():
    assert validation.check_integer(np.int64(3), "k") == 3
    assert validation.check_integer(np.array(4), "k", 0) == 4
    for bad in (True, 2.0, "3", None, np.array([1])):
        with pytest.raises(TypeError, match="^k must be an integer, got "):
            validation.check_integer(bad, "k")
    with pytest.raises(ValueError, match="^k must be at least 1, got 0$"):
        validation.check_integer(0, "k", 1)


def test_check_number():
    assert validation.check_number(np.float32(0.5), "alpha") == 0.5
    assert validation.check_number(np.array(2), "alpha") == 2.0
    for bad in (True, "1", None, 1j):
        with pytest.raises(TypeError, match="^alpha must be a number, got "):
            validation.check_number(bad, "alpha")
    for good in (True, 1j, 3, np.float64(2.5)):
        assert validation.check_number(good, "thunk", real=False) is good
    with pytest.raises(TypeError, match="^thunk must be a number, got 'x'$"):
        validation.check_number("x", "thunk", real=False)


def test_check_sources():
    assert validation.check_sources(range(3), 3, np).dtype == np.int64
    assert validation.check_sources(np.array([], np.int32), 3, np).shape == (0,)
    with pytest.raises(TypeError, match="^sources must be a 1-D array of vertex ids"):
        validation.check_sources(3, 4, np)
    with pytest.raises(TypeError, match="^sources must hold integer vertex ids"):
        validation.check_sources([0.5], 4, np)
    with pytest.raises(ValueError, match=r"^source must lie in \[0, 4\), got -1$"):
        validation.check_sources([-1, 2], 4, np, name="source")


def test_gpu_availability_has_one_wording(monkeypatch):
    monkeypatch.setattr(arrays, "gpu_available", lambda: False)
    with pytest.raises(RuntimeError, match="^device='gpu' but CuPy sees no CUDA GPU$"):
        arrays.require_gpu("device='gpu'")
    monkeypatch.setattr(arrays, "gpu_available", lambda: True)
    assert arrays.require_gpu("device='gpu'") is None


def test_the_algebra_words_its_checks_as_core_does():
    A = sp.csr_array(np.eye(3))
    x = semiring.Vector.sparse([0], [1.0], size=3)
    with pytest.raises(ValueError, match=r"^direction must be one of \('auto', 'push', "
                                         r"'pull'\), got 'up'$"):
        semiring.vxm(x, A, semiring.min_plus, direction="up")
    with pytest.raises(ValueError, match=r"^direction must be one of"):
        semiring.packed_any_secondi(None, A, None, None, direction="up")
    with pytest.raises(TypeError, match="^thunk must be a number, got 'x'$"):
        semiring.select(A, "tril", "x")
    with pytest.raises(TypeError, match="^null must be an integer, got 1.5$"):
        semiring.row_mode(A, np.zeros(3, np.int64), null=1.5)
    with pytest.raises(TypeError, match="^right must be a number, got 'a'$"):
        semiring.apply(A, semiring.ops.plus, right="a")
    # what the checks accept is what they accepted before
    assert semiring.select(A, "valueeq", True).nnz == 3
    assert semiring.row_mode(A, np.arange(3), null=np.int64(-1))[0].tolist() == [0, 1, 2]


def test_no_local_copy_of_the_checks_in_the_algebra():
    for path in (ROOT / "semiring").glob("*.py"):
        text = path.read_text()
        for wording in ("must be an integer", "must be one of ("):
            assert wording not in text, (path.name, wording)   # core.validation words it


def test_seam_module_is_documented():
    assert seam.__doc__ and "optional_primitive" in seam.__doc__
