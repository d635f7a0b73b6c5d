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

from .._backend import backend_for
from .._validation import UNREACHED
from ._matrix import Matrix
from ._operators import pull, push
from ._ops import Semiring
from ._vector import Vector

__all__ = ["LevelSearch", "MaskedSearch", "level_search"]


class LevelSearch:
    """The interface both implementations follow (see :func:`level_search`).

    Attributes
    ----------
    levels : array
        Hop count of every vertex found so far, ``-1`` elsewhere.
    parents : array or None
        The semiring's value at each vertex found (the frontier vertex for ``secondi``),
        ``-1`` elsewhere; ``None`` unless asked for.

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

    def advance(self, pulling: bool, count: int = 1) -> None:  # pragma: no cover - interface
        """Run ``count`` levels (push), or one level pulled (``count`` must be 1)."""
        raise NotImplementedError

    def sizes(self) -> list:  # pragma: no cover - interface
        """``(found, out_edges, in_edges)`` of each level advanced since the last call, the
        source's level 0 first; levels after an empty one report zeros."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the search's workspace (outputs stay valid)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def degree_sum(indptr, rows) -> int:
    """Stored entries in ``rows`` of a CSR (no degree array of size n is kept)."""
    return int((indptr[rows + 1] - indptr[rows]).sum())


class MaskedSearch(LevelSearch):
    """:class:`LevelSearch` from the backend's masked push (SpMSpV) and pull (SpMV).

    A pull reads the visited set as its input vector: an unvisited vertex's visited
    in-neighbours all lie in the current frontier (else it would be visited already).
    """

    def __init__(self, M, source, semiring, values, transpose):
        xp, n = M.xp, M.n
        idt = M.indices.dtype
        self.M, self.semiring = M, semiring
        self.dtype = semiring.result_dtype(np.dtype(bool), M.dtype)
        self.levels = xp.full(n, UNREACHED, dtype=idt)
        self.levels[source] = 0
        self.parents = xp.full(n, UNREACHED, dtype=idt) if values else None
        if values:
            self.parents[source] = source
        self.visited = xp.zeros(n, bool)
        self.visited[source] = True
        self._visited_vector = Vector(n, "bitmap", present=self.visited, values=self.visited)
        self._frontier = Vector(n, "sparse", indices=xp.asarray([source], dtype=idt),
                                values=xp.ones(1, bool))
        # in-degrees count the unexplored edges; a push-only search on a directed graph has
        # no transpose and counts out-degrees instead (the count only steers "auto")
        self._tindptr = M.T.indptr if transpose else M.indptr
        src = np.asarray([source])
        self._pending = [(1, degree_sum(M.indptr, src), degree_sum(self._tindptr, src))]
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
                self.parents[new] = found.values
            self._pending.append((int(new.size), degree_sum(M.indptr, new),
                                  degree_sum(self._tindptr, new)))
            self._frontier = found

    def sizes(self) -> list:
        out, self._pending = self._pending, []
        return out


def level_search(A, source: int, semiring: Semiring, *, values: bool = False,
                 transpose: bool = True) -> LevelSearch:
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
    source : int
        A valid vertex (not checked here).
    semiring : Semiring
        Its monoid must be ``any`` or ``lor`` (a vertex is found once).
    values : bool
        Keep the semiring's value at each found vertex in ``parents``.
    transpose : bool
        Whether pulls may happen (they need ``A.T`` on a directed graph).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> with semiring.level_search(A, 0, semiring.any_secondi, values=True) as s:
    ...     s.advance(False, 2)
    ...     s.sizes(), s.levels.tolist(), s.parents.tolist()
    ([(1, 2, 0), (2, 2, 2), (1, 0, 2)], [0, 1, 1, 2], [0, 0, 0, 2])
    """
    if not isinstance(semiring, Semiring):
        raise TypeError(f"semiring must be a Semiring, got {type(semiring).__name__}")
    if semiring.monoid.name not in ("any", "lor"):
        raise ValueError(f"semiring must reduce with any or lor (a vertex is found once), got "
                         f"{semiring.name}")
    M = Matrix.from_any(A)
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square, got shape {M.shape}")
    fast = backend_for(M.xp).bitmap_search(M, int(source), semiring, values, transpose)
    return fast if fast is not None else MaskedSearch(M, int(source), semiring, values,
                                                      transpose)
