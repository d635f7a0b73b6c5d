"""The backend seam: what the operations of :mod:`spbfs.semiring` ask of a backend, declared,
and the types the algebra and the backends share.

A backend is a module (:mod:`spbfs.cpu.backend`, :mod:`spbfs.gpu.backend`) chosen for an
array module by :func:`spbfs.semiring._backend.backend_for`.  It defines functions on raw
arrays (CSR ``indptr``/``indices``/``data``, dense vectors, masks) and the operator objects of
:mod:`spbfs.semiring` (read through their attributes only: ``func``, ``ufunc``, ``uses``,
``c_expr``, ``identity``, ``terminal``), and never imports the algebra.  Which functions, with
which parameters, is declared here, in :data:`PRIMITIVES`:

* :data:`REQUIRED`: every backend defines them (``spmspv``, ``spmv``, ``spmm``, ...; some may
  return None for a case they leave to the operations, as their descriptions say);
* :data:`OPTIONAL`: a backend that defines one is asked first, and where it is missing (or
  returns None) the operations take their generic path on coordinates (the GPU lacks most
  of them today).  The operations fetch them with :func:`optional_primitive`, once per call;
* :data:`CPU_ONLY`: ``csr_union`` and ``csr_assign``, scipy's compiled merges, which the
  operations call on CPU matrices only (the CPU backend must define them).

:data:`ENGINE_FLAGS` are the attributes a :class:`LevelSearch` engine may set to change how
it is driven, with their defaults (also class attributes of :class:`LevelSearch`); read one
from any engine with :func:`engine_flag`.  :func:`backend_defects` checks a backend against
the declaration, :func:`source_exports` reads a backend's functions from its source with
:mod:`ast` (a GPU backend checked without a GPU): ``tests/core/test_seam.py`` and
``tests/test_layout.py`` check both backends.

On the CPU every primitive is a numba kernel generated for its operators
(:mod:`spbfs.cpu.opcompile` compiles an operator from its C expression, so user-defined
operators are compiled too); on the GPU a CUDA kernel generated from the same expressions.

Examples
--------
>>> REQUIRED[:3], PRIMITIVES["spmspv"].params[:3]
(('spmspv', 'spmv', 'spmm'), ('indptr', 'indices', 'data'))
>>> import numpy as np
>>> from spbfs.semiring._backend import backend_for
>>> optional_primitive(backend_for(np), "spgemm").__name__
'spgemm'
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = ["ANY_TERMINAL", "CPU_ONLY", "ENGINE_FLAGS", "OPTIONAL", "PRIMITIVES", "REQUIRED",
           "LevelSearch", "Primitive", "backend_defects", "bitmap_searchable", "engine_flag",
           "optional_primitive", "source_exports"]

#: The terminal of the ``any`` monoid: any value ends a reduction.
ANY_TERMINAL = "any"


@dataclass(frozen=True)
class Primitive:
    """One primitive of the seam: its name, its declared parameters and what it computes.

    Attributes
    ----------
    name : str
        The function's name in a backend module.
    parameters : str
        Its parameter list in Python syntax (defaults as literals, no annotations): a
        backend's function must have exactly these names, kinds and defaults.
    kind : {"required", "optional", "cpu"}
        Defined by every backend; asked for where a backend has it (see
        :func:`optional_primitive`); or defined by the CPU backend alone.
    computes : str
        What it computes, and what None (where it may return None) leaves to the operations.

    Examples
    --------
    >>> p = PRIMITIVES["spmm"]
    >>> p.kind, p.params
    ('required', ('A', 'B', 'semiring', 'mask', 'complement', 'dtype', 'out', 'keep'))
    >>> p.signature
    <Signature (A, B, semiring, mask, complement, dtype, out=None, keep=False)>
    """

    name: str
    parameters: str
    kind: str
    computes: str

    @property
    def signature(self) -> inspect.Signature:
        """The declared signature, as :func:`inspect.signature` gives a function's."""
        node = ast.parse(f"def {self.name}({self.parameters}): pass").body[0]
        return _signature_of(node.args)

    @property
    def params(self) -> tuple:
        """The parameters' names, in order."""
        return tuple(self.signature.parameters)

    def matches(self, function) -> bool:
        """Whether ``function`` (a callable or an :class:`inspect.Signature`) has the declared
        parameters: the same names, kinds and defaults, in order (annotations aside).

        Examples
        --------
        >>> PRIMITIVES["queue_order"].matches(lambda indptr, indices, source, parents: None)
        True
        >>> PRIMITIVES["queue_order"].matches(lambda indptr, indices, source: None)
        False
        """
        found = function if isinstance(function, inspect.Signature) else inspect.signature(
            function)
        return _bare(found) == _bare(self.signature)


def _declare(kind, *rows):
    return {name: Primitive(name, parameters, kind, computes) for name, parameters, computes
            in rows}


_REQUIRED = _declare(
    "required",
    ("spmspv", "indptr, indices, data, n, x_idx, x_val, semiring, mask, complement, dtype",
     "push: ``y<mask> = x @ A`` for a sparse ``x`` (masked SpMSpV); returns ``(indices, "
     "values)``"),
    ("spmv", "tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype",
     "pull: ``y<mask> = A.T @ x`` for a dense ``x`` (masked SpMV), early exit for "
     "``any``/``lor``"),
    ("spmm", "A, B, semiring, mask, complement, dtype, out=None, keep=False",
     "a sparse matrix times a dense block, into a given ``out`` block when asked (``keep``: "
     "its masked-out positions left as they are); None: the operation does it generically"),
    ("masked_dot", "A, BT, rows, cols, semiring, dtype",
     "masked dot products ``C<M> = A B`` at given positions; None: generic"),
    ("binary", "op, x, a, i, j, dtype", "a binary operator applied to gathered operands"),
    ("index_unary", "op, v, i, j, thunk, dtype",
     "an index-unary operator (value, row, column, thunk) applied to gathered entries"),
    ("segment_reduce", "monoid, values, starts, dtype", "a monoid over runs of entries"),
    ("packed_push", "indptr, indices, data, x_idx, x_val, want_idx, want_val, out",
     "the many-source ``any_secondi`` push of a bit-packed frontier"),
    ("packed_pull", "tindptr, tindices, tdata, x_words, want_idx, want_val, out",
     "the many-source ``any_secondi`` pull of a bit-packed frontier"),
    ("unpack_bitplanes", "planes, present, out", "the dense form of codes stored as bit-planes"),
    ("bitmap_search", "M, source, semiring, values, transpose, parent_ids=None, levels=True",
     "a :class:`LevelSearch` engine for ``any``/``lor`` searches; None: the operations' "
     "masked push/pull runs the search"),
)

_OPTIONAL = _declare(
    "optional",
    ("spgemm", "A, B, semiring, mask, structural, complement, dtype",
     "``C<M> = A B`` over a semiring as canonical CSR arrays, the mask (complement, by "
     "value) inside"),
    ("reduce_values", "monoid, values, dtype",
     "a whole reduction of a 1-D array over a monoid with a numpy ufunc (the ufunc's own "
     "result, NaN as it gives it), split over threads where the order changes nothing; "
     "None: one pass of the ufunc"),
    ("ewise_csr", "op, union, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, dtype, fills=None",
     "``ewise_add`` (``union``; with ``fills``, ``ewise_union``) / ``ewise_mult`` of two "
     "canonical CSR matrices"),
    ("select_csr", "op, indptr, indices, data, thunk, derived=None",
     "the entries of a CSR matrix an index-unary predicate keeps (given the pattern's "
     "cache, tril / triu keep their row pointers there)"),
    ("peel", "ip0, ix0, deg0, ip1, ix1, deg1, active, removed, values=None, monoid=None, "
     "max_rounds=-1, lockstep=True",
     ":func:`spbfs.semiring.peel` whole: a worklist instead of a product per round "
     "(``lockstep`` False: in any order in which each vertex follows the ones that brought "
     "it to zero); None: the rounds of products"),
    ("peel_levels", "indptr, indices, counts",
     ":func:`spbfs.semiring.peel_levels` whole: Batagelj and Zaversnik's buckets in one "
     "pass, not a ``peel`` per level"),
    ("queue_order", "indptr, indices, source, parents",
     ":func:`spbfs.semiring.queue_order` whole: one queue search (on the GPU, three kernels "
     "a level), not a product and two sorts per level"),
    ("queue_levels", "indptr, indices, sources",
     "the same queue search yielded level by level, from a queue of sources"),
    ("queue_meet", "fptr, fidx, bptr, bidx, source, target",
     ":func:`spbfs.semiring.queue_meet` whole: two queue searches towards each other, not "
     "their levels of products; the path (or None), at the cost of the vertices seen"),
    ("queue_hops", "fptr, fidx, bptr, bidx, source, target",
     ":func:`spbfs.semiring.queue_hops` whole: two level searches towards each other, the "
     "side whose level has fewer arcs first; the hop count (-1: no path)"),
    ("greedy_colors", "indptr, indices, order, colour",
     ":func:`spbfs.semiring.greedy_colors` whole: one pass over the vertices in priority "
     "order, not Jones and Plassmann's rounds of pushes"),
    ("row_mode", "indptr, indices, data, x, own, mask, cost, scale, value, score, own_total",
     ":func:`spbfs.semiring.row_mode` whole: each row's values counted (or their weights "
     "totalled, less a cost) in one pass, not a sort of every entry's pair; False: not done"),
    ("mode_sweeps", "indptr, indices, order, bounds, x, max_sweeps",
     ":func:`spbfs.semiring.mode_sweeps` whole: every sweep over the classes in one pass, "
     "not a ``row_mode``, a ``vxm`` and host reads per class; None: not done"),
    ("modularity_sweep", "indptr, indices, data, order, bounds, comm, k, sigma, factor",
     ":func:`spbfs.semiring.modularity_sweep` whole: a sweep of Louvain's moves over the "
     "classes in one pass, not a weighted ``row_mode``, two scatters and a host read per "
     "class; returns ``(moved, gain)``"),
    ("quotient", "indptr, indices, data, labels, k",
     ":func:`spbfs.semiring.quotient` whole: the entries merged by their ends' labels in "
     "one pass, not two sparse products; the canonical CSR arrays"),
    ("spmv_scatter", "indptr, indices, data, n, x_val, semiring, dtype",
     "the push of a dense ``x`` over ``plus``: rows scattered into dense accumulators that "
     "start at the identity (no presence, no frontier list)"),
    ("strong_components", "indptr, indices, numbering='rule'",
     "strong components, numbered by the generic algorithm's rule or in the order the "
     "search finishes them (scipy's): one depth-first search (``semiring._searched``)"),
    ("prefers_pull", "nnz, frontier_edges",
     "a cost hint, not a product: whether pulling over a whole matrix costs less than "
     "pushing a frontier of so many edges (:func:`spbfs.semiring.pull_cheaper`)"),
    ("pull_affine", "tindptr, tindices, tdata, scaled, x, scale, alpha, constant, out, "
     "out_scaled, gauss_seidel, derived=None",
     ":func:`spbfs.semiring.pull_affine` whole: one pass over the transpose (sums in "
     "registers, the scale, constant, L1 change and totals), not a pull and array updates"),
    ("csr_transpose", "indptr, indices, ncols, index_dtype, position_dtype",
     "the transpose of a CSR pattern and where each entry came from (each column's rows "
     "ascending), a counting sort over threads"),
    ("csr_permuted", "indptr, indices, data, rows, cols",
     ":func:`spbfs.semiring.extract` of every column renumbered (``cols`` a permutation): "
     "the rows gathered, renamed and sorted in place over threads; None: another "
     "selection, the operations' path"),
    ("csr_lower_permuted", "indptr, indices, order",
     ":func:`spbfs.semiring.lower_pattern` whole: the kept entries of each renumbered row "
     "counted, then written and sorted, over threads, not the whole matrix renumbered and "
     "half of it selected; None: ``order`` not a permutation"),
    ("csr_induced", "indptr, indices, keep, index_of",
     ":func:`spbfs.semiring.extract_pattern` whole: the kept rows' kept entries counted and "
     "copied in two passes, not the coordinates of every entry sorted"),
    ("delta_stepping", "indptr, indices, data, sources, delta, dist",
     ":func:`spbfs.semiring.relax_buckets` whole: per-thread bins and every bucket round in "
     "one parallel call, not a masked push and numpy lists per round; the weights checked in "
     "its pass over them (returns the rounds, or -1 for a negative weight and -2 for a "
     "NaN one, nothing computed)"),
    ("brandes_source", "indptr, indices, tindptr, tindices, source, delta",
     ":func:`spbfs.semiring.source_dependencies` whole: one parallel call a level each way "
     "(claims by compare-and-swap, path counts added atomically, a queue of the levels), "
     "not a product and sparse-vector bookkeeping per level"),
    ("pruning_share", "n",
     "a cost hint, not a product: the trees' share of the vertices with an edge from which "
     "searches of a symmetric graph of ``n`` vertices run on its core with its trees set "
     "after (:mod:`spbfs.algorithms.forest`); None or missing: never"),
    ("hub_numbering", "n",
     "a cost hint, not a product: the share of a symmetric graph's stored entries in the "
     "rows of its ``n / 64`` vertices of largest degree from which its searches run on its "
     "core numbered hubs first, by degree class (:mod:`spbfs.algorithms.forest`), whatever "
     "its trees' share; None or missing: never"),
    ("forest_outputs", "where, core, tree, core_levels, core_parents, shift, tree_parent, "
     "attach_core, tree_depth, levels, parents",
     ":func:`spbfs.semiring.forest_outputs` whole: compiled passes (over every vertex, or "
     "over the core and the trees), not fills, gathers and masked scatters; False: not "
     "done"),
    ("weak_components", "indptr, indices, symmetric=False",
     "weak components numbered by their smallest vertex: one union-find pass over the "
     "arcs, not FastSV's rounds of products (``semiring._searched``)"),
)

_CPU_ONLY = _declare(
    "cpu",
    ("csr_union", "shape, a_indptr, a_indices, b_indptr, b_indices, b_tags=None",
     "the union of two canonical CSR patterns and where each operand's entries lie in it "
     "(scipy's compiled merge)"),
    ("csr_assign", "indptr, indices, data, ncols, region_rows, in_cols, rows, cols, values",
     "a CSR matrix with a region's entries replaced (scipy's compiled merge)"),
)

#: Every primitive of the seam by name: required, optional and CPU-only.
PRIMITIVES = MappingProxyType({**_REQUIRED, **_OPTIONAL, **_CPU_ONLY})
#: The primitives every backend defines.
REQUIRED = tuple(_REQUIRED)
#: The primitives a backend may define, fetched with :func:`optional_primitive`.
OPTIONAL = tuple(_OPTIONAL)
#: The primitives of the CPU backend alone, called on CPU matrices only.
CPU_ONLY = tuple(_CPU_ONLY)
_OPTIONAL_NAMES = frozenset(OPTIONAL)

#: The flags a :class:`LevelSearch` engine may set, with the value an engine that sets none
#: has (its class attribute on :class:`LevelSearch`): ``drives_itself``, whether the engine
#: runs its whole level loop itself (:meth:`LevelSearch.run`: on the GPU's device, over a
#: distributed graph's ranks) instead of being stepped by :meth:`~LevelSearch.advance` and
#: :meth:`~LevelSearch.sizes`.
ENGINE_FLAGS = MappingProxyType({"drives_itself": False})


def optional_primitive(backend, name: str):
    """The optional primitive ``name`` of ``backend``, or None where the backend lacks it.

    Fetch it once per operation (not per element or per level): the operation then calls
    it, or takes its generic path where it is None (or returns None).

    Parameters
    ----------
    backend : module
        A backend, as :func:`spbfs.semiring._backend.backend_for` returns.
    name : str
        One of :data:`OPTIONAL`.

    Returns
    -------
    callable or None

    Raises
    ------
    ValueError
        If ``name`` is not an optional primitive of the seam (a misspelt name would
        otherwise turn into the generic path without a word).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring._backend import backend_for
    >>> optional_primitive(backend_for(np), "queue_levels") is None   # the GPU's alone
    True
    >>> optional_primitive(backend_for(np), "spgemmm")
    Traceback (most recent call last):
        ...
    ValueError: 'spgemmm' is not an optional primitive of the seam (spbfs.core.seam.OPTIONAL)
    """
    if name not in _OPTIONAL_NAMES:
        raise ValueError(f"{name!r} is not an optional primitive of the seam "
                         f"(spbfs.core.seam.OPTIONAL)")
    return getattr(backend, name, None)


def engine_flag(engine, name: str):
    """The flag ``name`` of a level-search engine, its default (:data:`ENGINE_FLAGS`) where the
    engine sets none (an engine need not derive from :class:`LevelSearch`).

    Examples
    --------
    >>> engine_flag(LevelSearch(), "drives_itself"), engine_flag(object(), "drives_itself")
    (False, False)
    >>> engine_flag(object(), "drives")
    Traceback (most recent call last):
        ...
    ValueError: 'drives' is not an engine flag of the seam (spbfs.core.seam.ENGINE_FLAGS)
    """
    try:
        default = ENGINE_FLAGS[name]
    except KeyError:
        raise ValueError(f"{name!r} is not an engine flag of the seam "
                         f"(spbfs.core.seam.ENGINE_FLAGS)") from None
    return getattr(engine, name, default)


def backend_defects(backend, *, cpu: bool = False) -> list:
    """What a backend lacks or declares differently from :data:`PRIMITIVES` (empty: none).

    Parameters
    ----------
    backend : module or mapping
        A backend module (its ``__all__`` names are read) or a mapping from the names it
        exports to functions or :class:`inspect.Signature` (:func:`source_exports`).
    cpu : bool
        Whether the backend is the CPU's, which must also define :data:`CPU_ONLY`.

    Returns
    -------
    list of str
        One line per defect: a required primitive missing, a primitive whose parameters
        differ from the declaration, a name exported that the seam does not declare.

    Examples
    --------
    >>> from spbfs.cpu import backend
    >>> backend_defects(backend, cpu=True)
    []
    >>> for line in backend_defects({"spmv": lambda x: x, "spmvv": len})[-3:]:
    ...     print(line)  # doctest: +ELLIPSIS
    lacks the required primitive bitmap_search
    spmv has parameters (x), the seam declares (tindptr, tindices, tdata, x_present, x_val, ...
    exports spmvv, which the seam does not declare
    """
    exports = backend if isinstance(backend, Mapping) else {
        name: getattr(backend, name) for name in backend.__all__}
    must = REQUIRED + (CPU_ONLY if cpu else ())
    defects = [f"lacks the required primitive {name}" for name in must if name not in exports]
    for name, function in exports.items():
        declared = PRIMITIVES.get(name)
        if declared is None or (declared.kind == "cpu" and not cpu):
            defects.append(f"exports {name}, which the seam does not declare")
            continue
        found = function if isinstance(function, inspect.Signature) else inspect.signature(
            function)
        if not declared.matches(found):
            defects.append(f"{name} has parameters {_bare(found)}, the seam declares "
                           f"{_bare(declared.signature)}")
    return defects


def source_exports(path) -> dict:
    """The signatures of the functions a module's ``__all__`` names, read from its source with
    :mod:`ast` (nothing is imported: a GPU backend is read on a machine without a GPU).

    A name defined by ``def`` in the module is read there; one imported by a relative
    ``from .module import name`` is read in that module's source, and so on.  A name found
    as neither is left out.

    Parameters
    ----------
    path : str or Path
        The module's source file.

    Returns
    -------
    dict
        Name -> :class:`inspect.Signature` (defaults as literals, annotations dropped).

    Examples
    --------
    >>> from pathlib import Path
    >>> import spbfs.gpu
    >>> found = source_exports(Path(spbfs.gpu.__file__).with_name("backend.py"))
    >>> found["spmspv"] == PRIMITIVES["spmspv"].signature, backend_defects(found)
    (True, [])
    """
    path = Path(path)
    tree = ast.parse(path.read_text(), str(path))
    names = next((ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign)
                  and any(getattr(t, "id", None) == "__all__" for t in node.targets)), [])
    return {name: sig for name in names
            if (sig := _source_signature(path, tree, name)) is not None}


def _source_signature(path: Path, tree, name: str, depth: int = 0):
    """The signature of ``name`` as module ``tree`` (at ``path``) defines or imports it."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return _signature_of(node.args)
        if (isinstance(node, ast.ImportFrom) and node.level and depth < 8
                and any((a.asname or a.name) == name for a in node.names)):
            alias = next(a for a in node.names if (a.asname or a.name) == name)
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            parts = node.module.split(".") if node.module else []
            target = base.joinpath(*parts)
            source = target.with_suffix(".py") if parts else None
            if source is None or not source.exists():
                source = target / "__init__.py"
            if source.exists():
                return _source_signature(source, ast.parse(source.read_text(), str(source)),
                                         alias.name, depth + 1)
    return None


def _signature_of(args: ast.arguments) -> inspect.Signature:
    """An :class:`inspect.Signature` from a parsed parameter list (annotations dropped)."""
    P = inspect.Parameter
    positional = [(a, P.POSITIONAL_ONLY) for a in args.posonlyargs] + [
        (a, P.POSITIONAL_OR_KEYWORD) for a in args.args]
    defaults = [P.empty] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [P(a.arg, kind, default=_literal(d))
              for (a, kind), d in zip(positional, defaults, strict=True)]
    if args.vararg is not None:
        params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    params += [P(a.arg, P.KEYWORD_ONLY, default=_literal(d))
               for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)


def _literal(node):
    if node is None or node is inspect.Parameter.empty:
        return inspect.Parameter.empty
    try:
        return ast.literal_eval(node)
    except ValueError:
        return f"<{ast.unparse(node)}>"   # not a literal: compared by its text


def _bare(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` without annotations: what the seam declares and compares."""
    empty = inspect.Parameter.empty
    return signature.replace(parameters=[p.replace(annotation=empty)
                                         for p in signature.parameters.values()],
                             return_annotation=empty)


def bitmap_searchable(semiring, values: bool) -> bool:
    """Whether a backend's bitmap search engine computes this semiring: ``any``/``lor`` with
    ``pair`` (levels only) or ``secondi`` (the parent is the frontier vertex).

    Examples
    --------
    >>> from spbfs import semiring
    >>> bitmap_searchable(semiring.any_secondi, True), bitmap_searchable(semiring.min_plus, False)
    (True, False)
    """
    if semiring.monoid.name not in ("any", "lor"):
        return False
    return semiring.multiply.name == "secondi" or (semiring.multiply.name == "pair"
                                                   and not values)


class LevelSearch:
    """The interface both implementations follow (see :func:`level_search`).

    Attributes
    ----------
    levels : array or None
        Hop count of every vertex found so far, ``-1`` elsewhere; ``None`` in a search for
        parents alone (``level_search(levels=False)``) on an engine that keeps none.
    parents : array or None
        The semiring's value at each vertex found (the frontier vertex for ``secondi``),
        ``-1`` elsewhere; ``None`` unless asked for.
    alpha : float
        The push -> pull factor of Beamer's rule that suits this engine's costs: what
        :func:`spbfs.bfs` uses when the caller gives none (Beamer's 15 unless an engine
        measured better).
    drives_itself : bool
        Whether :func:`spbfs.bfs` calls :meth:`run` (the engine's own level loop) instead of
        stepping the search with :meth:`advance` and :meth:`sizes`; False unless an engine
        says otherwise (read it with :func:`engine_flag`, which also serves engines that do
        not derive from this class).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.eye(3, k=1))
    >>> with semiring.level_search(A, 0, semiring.any_pair) as s:
    ...     isinstance(s, semiring.LevelSearch), s.advance(False, 3), s.sizes()[-2:]
    (True, None, [(1, 0, 1), (0, 0, 0)])
    """

    levels = None
    parents = None
    alpha = 15.0
    #: Whether the engine runs its whole level loop itself (:meth:`run`) instead of being
    #: stepped with :meth:`advance` and :meth:`sizes` (:data:`ENGINE_FLAGS`).
    drives_itself = False

    def advance(self, pulling: bool, count: int = 1) -> None:  # pragma: no cover - interface
        """Run ``count`` levels (push), or one level pulled (``count`` must be 1)."""
        raise NotImplementedError

    def sizes(self) -> list:  # pragma: no cover - interface
        """``(found, out_edges, in_edges)`` of each level advanced since the last call, the
        source's level 0 first; levels after an empty one report zeros."""
        raise NotImplementedError

    def run(self, direction, alpha, beta, trace=None) -> None:  # pragma: no cover - interface
        """The whole search, with Beamer's rule (``direction``, ``alpha``, ``beta`` as
        :func:`spbfs.bfs`): asked of an engine that :attr:`drives_itself` only."""
        raise NotImplementedError

    # -- the hooks of a distributed search (spbfs.dist): one rank's search over its local
    # matrix, fed at each level with what the other ranks found.  The engine keeps its own
    # direction policy (:meth:`advance_auto`), so the host need not read sizes per level.
    #: The direction of each level :meth:`advance_auto` ran ("push" or "pull").
    @property
    def directions(self) -> list:
        policy = self.__dict__.get("_host_policy")
        return [] if policy is None else policy.directions

    def advance_auto(self, direction: str, alpha: float, beta: float) -> None:
        """One level in the direction Beamer's rule picks from this search's own sizes
        (``direction`` "push" or "pull" fix it), with whatever joined the current level
        since (:meth:`claim_mapped`, :meth:`claim_words`) counted.  An empty frontier
        advances the level too.  This default reads :meth:`sizes` on the host (an engine
        of ``n`` vertices and ``edges`` arcs); an engine may decide on its device."""
        from .policy import HostPolicy

        policy = self.__dict__.get("_host_policy")
        if policy is None:
            policy = self._host_policy = HostPolicy(self.n, self.edges, direction, alpha,
                                                    beta)
        self.advance(policy.decide(self.sizes()))
        policy.found(self.sizes())

    def level_words(self, out, word0: int, count: int, sent=None) -> None:
        """What this rank adds to the level's OR over the ranks (after :meth:`advance_auto`):
        ``out[:count]`` the visited words from ``word0`` (:meth:`visited_words`); in
        ``out[count]`` bit 0 if the level found a vertex here or ``sent``
        (:meth:`push_out`'s words) has a bit, bit 1 if the last level had a vertex here."""
        out[:count] = self.visited_words(word0, count)
        policy = self._host_policy
        found = policy.nf or (sent is not None and bool(sent.any()))
        out[count] = int(bool(found)) | (2 if policy.prev_nf else 0)

    def claim_mapped(self, words, ids) -> None:  # pragma: no cover - interface
        """Vertices found elsewhere in the current level, as bits: bit ``b`` of word ``w``
        of the uint32 ``words`` stands for vertex ``ids[32 w + b]`` (-1: none).  Those not
        yet visited join the level, with value -1 (:meth:`remote_parents` fills it)."""
        raise NotImplementedError

    def visited_words(self, word0: int, count: int):  # pragma: no cover - interface
        """The visited set of vertices ``32 word0 .. 32 (word0 + count) - 1`` as ``count``
        uint32 words (bit ``j`` of word ``w``: vertex ``32 (word0 + w) + j``)."""
        raise NotImplementedError

    def claim_words(self, word0: int, words) -> None:  # pragma: no cover - interface
        """Visited bits found elsewhere (as :meth:`visited_words`): their new vertices join
        the current level without a value."""
        raise NotImplementedError

    def push_out(self, R, out) -> None:  # pragma: no cover - interface
        """Push the current frontier through ``R`` (rows: this search's vertices, columns:
        another vertex space): ``out`` (uint32 words over ``R``'s columns) is set to the
        bits of the columns the frontier's rows reach."""
        raise NotImplementedError

    def remote_parents(self, R, column_levels, column_ids) -> None:  # pragma: no cover
        """The values of the vertices :meth:`claim_mapped` joined: for each row ``v`` of
        ``R`` with level ``l >= 1`` and value -1, ``column_ids[c]`` for the first entry
        ``c`` of the row with ``column_levels[c] == l - 1`` (uint8 levels compare modulo
        256, -1 as 255; int32 exactly)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the search's workspace (outputs stay valid)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
