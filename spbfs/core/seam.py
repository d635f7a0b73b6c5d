"""The backend seam: what the operations of :mod:`spbfs.semiring` ask of a backend, and the
types the algebra and the backends share.

A backend is a module (:mod:`spbfs.cpu.backend`, :mod:`spbfs.gpu.backend`) chosen for an
array module by :func:`spbfs.semiring._backend.backend_for`.  Each defines the same
functions, on raw arrays (CSR ``indptr``/``indices``/``data``, dense vectors, masks) and the
operator objects of :mod:`spbfs.semiring` (read through their attributes only: ``func``,
``ufunc``, ``uses``, ``c_expr``, ``identity``, ``terminal``), and never imports the algebra:

=================  ============================================================================
primitive          what it computes
=================  ============================================================================
spmspv             push: ``y<mask> = x @ A`` for a sparse ``x`` (masked SpMSpV)
spmv               pull: ``y<mask> = A.T @ x`` for a dense ``x``, early exit for ``any``/``lor``
spmm               a sparse matrix times a dense block, into a given ``out`` block when asked
                   (``keep``: its masked-out positions left as they are)
masked_dot         masked dot products ``C<M> = A B`` at given positions (None: generic)
binary             a binary operator applied to gathered operands
index_unary        an index-unary operator (value, row, column, thunk)
segment_reduce     a monoid over runs of entries
packed_push/pull   the many-source ``any_secondi`` product on bit-packed frontiers
unpack_bitplanes   the dense form of codes stored as bit-planes
bitmap_search      a :class:`LevelSearch` engine for ``any``/``lor`` searches (None: the
                   operations' masked push/pull runs the search)
=================  ============================================================================

Optional primitives: a backend that defines one is asked first, and where it is missing
(or returns None) the operations take their generic path on coordinates (the GPU today):

=================  ============================================================================
spgemm             ``C<M> = A B`` over a semiring as canonical CSR arrays (mask inside)
ewise_csr          ``ewise_add`` / ``ewise_mult`` of two canonical CSR matrices
select_csr         the entries of a CSR matrix an index-unary predicate keeps (given the
                   pattern's cache, tril / triu keep their row pointers there)
peel               :func:`spbfs.semiring.peel` whole: a worklist instead of a product per round
queue_order        :func:`spbfs.semiring.queue_order` whole: one queue search (on the GPU,
                   three kernels a level), not a product and two sorts per level
queue_levels       the same search yielded level by level, from a queue of sources
queue_meet         :func:`spbfs.semiring.queue_meet` whole: two queue searches towards each
                   other, not their levels of products
row_mode           :func:`spbfs.semiring.row_mode` whole: each row's values counted (or their
                   weights totalled, less a cost) in one pass (the GPU: a warp or a block a
                   row), not a sort of every entry's pair
spmv_scatter       push of a dense ``x`` over ``plus``: rows scattered into dense
                   accumulators that start at the identity (no presence, no frontier list)
strong_components  strong components, numbered by the generic algorithm's rule or in the
                   order the search finishes them (scipy's): one depth-first search, not
                   forward-backward searches (``semiring._searched``)
prefers_pull       a cost hint, not a product: whether pulling over a whole matrix costs less
                   than pushing a frontier of so many edges (:func:`spbfs.semiring.pull_cheaper`;
                   the GPU's: a push's fixed cost is that of pulling about 2**25 entries)
weak_components    weak components numbered by their smallest vertex: one union-find pass
                   over the arcs, not FastSV's rounds of products (``semiring._searched``;
                   the GPU's: concurrent, links by compare-and-swap)
=================  ============================================================================

On the CPU every primitive is a numba kernel generated for its operators
(:mod:`spbfs.cpu.operators` compiles an operator from its C expression, so user-defined
operators are compiled too).  The CPU backend also has ``csr_union`` and ``csr_assign``
(scipy's compiled merges), which the operations use on CPU matrices.
"""

from __future__ import annotations

__all__ = ["ANY_TERMINAL", "LevelSearch", "bitmap_searchable"]

#: The terminal of the ``any`` monoid: any value ends a reduction.
ANY_TERMINAL = "any"


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

    def advance(self, pulling: bool, count: int = 1) -> None:  # pragma: no cover - interface
        """Run ``count`` levels (push), or one level pulled (``count`` must be 1)."""
        raise NotImplementedError

    def sizes(self) -> list:  # pragma: no cover - interface
        """``(found, out_edges, in_edges)`` of each level advanced since the last call, the
        source's level 0 first; levels after an empty one report zeros."""
        raise NotImplementedError

    # -- the hooks of a distributed search (spbfs.dist): one rank's search over its local
    # matrix, fed at each level with what the other ranks found
    def claim(self, ids, values=None) -> None:  # pragma: no cover - interface
        """Vertices ``ids`` found elsewhere in the current level: those not yet visited join
        it (level, value from ``values`` if given, next frontier, sizes)."""
        raise NotImplementedError

    def visited_words(self, word0: int, count: int):  # pragma: no cover - interface
        """The visited set of vertices ``32 word0 .. 32 (word0 + count) - 1`` as ``count``
        uint32 words (bit ``j`` of word ``w``: vertex ``32 (word0 + w) + j``)."""
        raise NotImplementedError

    def claim_words(self, word0: int, words) -> None:  # pragma: no cover - interface
        """Visited bits found elsewhere (as :meth:`visited_words`): their new vertices join
        the current level without a value."""
        raise NotImplementedError

    def push_out(self, R, owners: int) -> None:  # pragma: no cover - interface
        """Push the current frontier through ``R`` (rows: this search's vertices, columns:
        another vertex space) with ``any_secondi``, masked by the complement of the targets
        pushed so far in this search; the targets, as ``t // owners``, and their rows are
        grouped by owner ``t % owners`` for :meth:`sent`."""
        raise NotImplementedError

    def sent(self):  # pragma: no cover - interface
        """``(targets, rows or None, counts, starts)`` of the last :meth:`push_out`:
        owner ``o``'s group is ``targets[starts[o]:starts[o] + counts[o]]`` (numpy arrays
        of length ``owners``; on the GPU the counts are read with :meth:`sizes`)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the search's workspace (outputs stay valid)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
