"""Level-synchronous masked ``vxm`` on a bitmap visited set: the operation BFS loops over.

One level is the GraphBLAS composition

    next<!visited, replace> = frontier any.mul A     (push; a pull reads visited as frontier)
    visited<next> = true;  levels<next> = level;  parents<next> = next

fused into one call, :meth:`LevelSearch.advance`.  Its sizes (vertices found, their out- and
in-edges) are read with :meth:`LevelSearch.sizes`, which on the GPU is the one host
synchronisation of a batch of levels.  The backend chooses the implementation:
``backend.bitmap_search`` returns the GPU bitmap kernels for the ``any``/``lor`` monoid with
``pair`` or ``secondi`` (a bitmap visited set, load-balanced push with hub chunks, warp pull
with early exit, device-side counters); everything else runs :class:`MaskedSearch`, masked
push/pull built from the backend's ``spmspv``/``spmv``, on numpy or cupy.
"""

from __future__ import annotations

import numpy as np

from ..core.remote import entries_of_rows, mapped_ids, remote_parents, set_bits
from ..core.seam import LevelSearch
from ..core.validation import UNREACHED
from ._backend import backend_for
from ._dispatch import distributed
from ._matrix import Matrix
from ._optypes import Semiring
from ._vector import Vector
from ._vxm import pull, push

__all__ = ["LevelSearch", "MaskedSearch", "level_search"]


def degree_sum(indptr, rows) -> int:
    """Stored entries in ``rows`` of a CSR (no degree array of size n is kept)."""
    return int((indptr[rows + 1] - indptr[rows]).sum())


class MaskedSearch(LevelSearch):
    """:class:`LevelSearch` from the backend's masked push (SpMSpV) and pull (SpMV).

    A pull reads the visited set as its input vector: an unvisited vertex's visited
    in-neighbours all lie in the current frontier (else it would be visited already).
    """

    def __init__(self, M, source, semiring, values, transpose, parent_ids=None):
        xp, n = M.xp, M.n
        idt = M.indices.dtype
        self.M, self.semiring = M, semiring
        self.n, self.edges = n, int(M.nnz)
        # parent_ids as (split, stride, offset, table), read to the host once
        self._parent_map = (None if parent_ids is None else
                            (*(int(x) for x in parent_ids[:3]), parent_ids[3:]))
        self.dtype = semiring.result_dtype(np.dtype(bool), M.dtype)
        src = xp.asarray([source] if source >= 0 else [], dtype=idt)
        self.levels = xp.full(n, UNREACHED, dtype=idt)
        self.levels[src] = 0
        self.parents = xp.full(n, UNREACHED, dtype=idt) if values else None
        if values:
            self.parents[src] = self._parent_id(src)
        self.visited = xp.zeros(n, bool)
        self.visited[src] = True
        self._visited_vector = Vector(n, "bitmap", present=self.visited, values=self.visited)
        self._frontier = Vector(n, "sparse", indices=src, values=xp.ones(src.size, bool))
        # in-degrees count the unexplored edges; a push-only search on a directed graph has
        # no transpose and counts out-degrees instead (the count only steers "auto")
        self._tindptr = M.T.indptr if transpose else M.indptr
        self._pending = [(int(src.size), degree_sum(M.indptr, src),
                          degree_sum(self._tindptr, src))]
        self.level = 0

    def advance(self, pulling: bool, count: int = 1) -> None:
        M, sr = self.M, self.semiring
        for _ in range(count):
            self.level += 1
            if not self._frontier.indices.size:
                self._pending.append((0, 0, 0))
                continue
            if pulling:
                found = pull(M, self._visited_vector, sr, self.visited, True,
                             self.dtype).to_sparse()
            else:
                found = push(M, self._frontier, sr, self.visited, True, self.dtype)
            new = found.indices
            self.visited[new] = True
            self.levels[new] = self.level
            if self.parents is not None:
                self.parents[new] = self._parent_id(found.values)
            self._pending.append((int(new.size), degree_sum(M.indptr, new),
                                  degree_sum(self._tindptr, new)))
            self._frontier = found

    def _parent_id(self, u):
        """The stored parent ids of vertices ``u`` (``parent_ids`` of :func:`level_search`)."""
        if self._parent_map is None:
            return u
        xp = self.M.xp
        split, stride, offset, table = self._parent_map
        q = u.astype(np.int64)
        mapped = table[xp.clip(q - split, 0, table.size - 1)] if table.size else q
        return xp.where(q < split, q * stride + offset, mapped).astype(u.dtype)

    def sizes(self) -> list:
        out, self._pending = self._pending, []
        return out

    def claim_mapped(self, words, ids) -> None:
        found = mapped_ids(words, ids)
        self._claim(found, self.M.xp.full(found.size, -1, self.levels.dtype))

    def remote_parents(self, R, column_levels, column_ids) -> None:
        remote_parents(R.indptr, R.indices, self.levels, self.parents, column_levels,
                       column_ids)

    def _claim(self, ids, values=None) -> None:
        xp = self.M.xp
        new = ~self.visited[ids]
        ids = ids[new]
        ids, first = xp.unique(ids, return_index=True)
        if not ids.size:
            return
        self.visited[ids] = True
        self.levels[ids] = self.level
        if self.parents is not None and values is not None:
            self.parents[ids] = values[new][first]
        f = self._frontier
        self._frontier = Vector(self.M.n, "sparse",
                                indices=xp.concatenate([f.indices, ids.astype(f.indices.dtype)]),
                                values=xp.concatenate([f.values, xp.zeros(ids.size,
                                                                          f.values.dtype)]))
        if not self._pending:   # sizes() read the level already: a new entry of it
            self._pending.append((0, 0, 0))
        nf, mf, mu = self._pending[-1]
        self._pending[-1] = (nf + int(ids.size), mf + degree_sum(self.M.indptr, ids),
                             mu + degree_sum(self._tindptr, ids))

    def visited_words(self, word0: int, count: int):
        xp = self.M.xp
        bits = self.visited[32 * word0: 32 * (word0 + count)]
        return xp.packbits(bits, bitorder="little").view(np.uint32)

    def claim_words(self, word0: int, words) -> None:
        xp = self.M.xp
        bits = xp.unpackbits(words.view(np.uint8), bitorder="little").view(bool)
        self._claim(xp.flatnonzero(bits) + 32 * word0)

    def push_out(self, R, out) -> None:
        pos, _ = entries_of_rows(R.indptr, self._frontier.indices)
        set_bits(out, R.indices[pos])


def level_search(A, source: int, semiring: Semiring, *, values: bool = False,
                 transpose: bool = True, parent_ids=None, levels: bool = True) -> LevelSearch:
    """Start a level-synchronous masked search from ``source`` (a context manager).

    Each :meth:`~LevelSearch.advance` is one masked ``vxm`` of the frontier over
    ``semiring`` with the complement of the visited set as mask, fused with the updates of
    ``visited``, ``levels`` and ``parents``.  The GPU backend runs its bitmap kernels for
    ``any``/``lor`` with ``pair`` or ``secondi``; other semirings and the CPU run masked
    ``spmspv``/``spmv``.  :func:`spbfs.bfs` is a direction policy on top of this.

    Parameters
    ----------
    A : Matrix or sparse matrix
        Square; ``A[i, j]`` stored is an edge ``i -> j``.
    source : int or None
        A valid vertex (not checked here); None starts with nothing at level 0 (a rank of a
        distributed search that does not hold the source).
    semiring : Semiring
        Its monoid must be ``any`` or ``lor`` (a vertex is found once).
    values : bool
        Keep the semiring's value at each found vertex in ``parents``.
    transpose : bool
        Whether pulls may happen (they need ``A.T`` on a directed graph).
    parent_ids : int64 array, optional
        With ``values``: store each found vertex's parent ``u`` as another id, given by
        ``[split, stride, offset, *table]`` (this backend's module): ``u * stride + offset``
        for ``u < split``, else ``table[u - split]``; :mod:`spbfs.dist` maps a rank's search
        space to global ids.  Values set by :meth:`~LevelSearch.remote_parents` are stored
        as they are.
    levels : bool
        False with ``values``: only the parents are wanted.  An engine may then keep no
        levels (``levels`` None): the GPU's bitmap kernels write 4 bytes a vertex less
        (:meth:`~LevelSearch.push_out` needs them); the CPU's keep them as their visited set.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> with semiring.level_search(A, 0, semiring.any_secondi, values=True) as s:
    ...     s.advance(False, 2)
    ...     s.sizes(), s.levels.tolist(), s.parents[:3].tolist(), int(s.parents[3]) in (1, 2)
    ([(1, 2, 0), (2, 2, 2), (1, 0, 2)], [0, 1, 1, 2], [0, 0, 0], True)
    """
    if not isinstance(semiring, Semiring):
        raise TypeError(f"semiring must be a Semiring, got {type(semiring).__name__}")
    if semiring.monoid.name not in ("any", "lor"):
        raise ValueError(f"semiring must reduce with any or lor (a vertex is found once), got "
                         f"{semiring.name}")
    algebra = distributed(A)
    if algebra is not None:
        return algebra.level_search(A, source, semiring, values)
    M = Matrix.from_any(A)
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square, got shape {M.shape}")
    source = -1 if source is None else int(source)
    fast = backend_for(M.xp).bitmap_search(M, source, semiring, values, transpose, parent_ids,
                                           levels=levels or not values)
    return fast if fast is not None else MaskedSearch(M, source, semiring, values, transpose,
                                                      parent_ids)
