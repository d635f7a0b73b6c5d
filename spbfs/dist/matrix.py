"""A distributed graph seen as a matrix by :mod:`spbfs.semiring` and the algorithms.

``Matrix.from_any(G)`` of a :class:`~spbfs.dist.DistGraph` is a :class:`DistMatrix`: it
answers what the algorithms ask a matrix (``n``, ``nnz``, ``T``, ``out_degree``, ``xp``...)
and carries the distributed operations (:mod:`spbfs.dist.algebra`), which the semiring
operations call when an operand is distributed.  ``xp`` is the graph's
:class:`~spbfs.dist.arrays.DistNamespace`, so vectors made with it are distributed too.
"""

from __future__ import annotations

import numpy as np

from . import algebra
from .arrays import DistArray, DistNamespace
from .searches import search_many

__all__ = ["DistMatrix"]


class DistMatrix:
    """The adjacency matrix of a :class:`~spbfs.dist.DistGraph` (``A[u, v]``: arc u -> v).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 0]), np.array([1, 2]), 3, directed=True)
    >>> M = semiring.Matrix.from_any(G)
    >>> M.shape, M.nnz, G.gather(M.out_degree).tolist(), G.gather(M.T.out_degree).tolist()
    ((3, 3), 2, [2, 0, 0], [0, 1, 1])
    """

    distributed = True
    algebra = algebra
    #: its searches drive their own levels (each rank chooses push or pull for its
    #: blocks): ``spbfs.bfs(G, sources)`` hands its sources to :meth:`search_many`
    drives_searches = True

    def __init__(self, graph):
        self.graph = graph
        self._nnz = None
        self._out_degree = None

    def __spbfs_matrix__(self):
        return self

    def __spbfs_algebra__(self):
        return algebra

    @property
    def n(self) -> int:
        return self.graph.n

    nrows = ncols = n

    @property
    def shape(self) -> tuple:
        return (self.graph.n, self.graph.n)

    @property
    def symmetric(self) -> bool:
        return not self.graph.directed

    @property
    def on_gpu(self) -> bool:
        return self.graph.comm.device == "gpu"

    @property
    def xp(self):
        return DistNamespace(self.graph)

    @property
    def dtype(self):
        """float64 (the weights, or 1 for every edge of a graph built without weights), or
        the dtype asked of :meth:`unit`."""
        return self.graph.value_dtype

    @property
    def nnz(self) -> int:
        """Stored arcs over all ranks."""
        if self._nnz is None:
            lay = self.graph.layout
            here = lay.local.nnz + (lay.remote.nnz if lay.remote is not None else 0)
            self._nnz = int(self.graph.comm.allreduce(int(here)))
        return self._nnz

    @property
    def T(self):
        return self if self.symmetric else DistMatrix(self.graph.T)

    def derived(self, key, build):
        """A value that depends on this graph alone, built by ``build()`` on first use (by
        every rank together) and kept with the graph, as ``Pattern.derived``."""
        return self.graph.derived(key, build)

    def canonical(self, monoid=None):
        """Parallel arcs merged, their weights summed, or combined with ``monoid`` (as
        ``Matrix.canonical``)."""
        G = self.graph.merged(monoid)
        return self if G is self.graph else DistMatrix(G)

    def unit(self, dtype=np.float64):
        """Every stored value 1 (parallel arcs merged): as ``Matrix.unit``."""
        return DistMatrix(self.graph.with_unit_weights(dtype))

    def astype(self, dtype):
        """Values of ``dtype`` (as ``Matrix.astype``): itself when they already are; unit
        values of another dtype as :meth:`unit`; weights are float64 only."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        if not self.graph.weighted:
            return self.unit(dtype)
        raise TypeError(f"a distributed graph holds float64 weights, not {dtype}")

    def symmetrized(self, values=True):
        """The graph with every arc usable both ways (itself when undirected)."""
        return self if self.symmetric else DistMatrix(self.graph.undirected())

    @property
    def out_degree(self) -> DistArray:
        """Stored arcs leaving each vertex."""
        if self._out_degree is None:
            G, xp = self.graph, self.graph.xp
            lay = G.layout
            deg = xp.diff(lay.local.indptr).astype(np.int64)
            if lay.remote is not None:
                deg += xp.diff(lay.remote.indptr).astype(np.int64)
            d0, d1 = lay.n_pad, lay.n_pad + G.D
            part = deg[d0:d1]
            dele = G.comm.allreduce_array(part, "sum") if G.P > 1 else part
            own = deg[:G.n_local].copy()
            own[G.owned_delegates] = dele[G.owned_delegate_numbers]
            self._out_degree = DistArray(G, own, dele)
        return self._out_degree

    def search_many(self, sources, *, return_parents, direction, alpha, beta):
        """The searches from ``sources``: ``(n, k)`` blocks (collective;
        :func:`spbfs.dist.searches.search_many`, this graph's many-source policy)."""
        return search_many(self, sources, return_parents=return_parents, direction=direction,
                           alpha=alpha, beta=beta)

    def one_rank(self):
        """On one rank, what a search of the rank's local matrix needs, else None:
        ``(L, ids, block)`` with ``L`` the local Matrix (every arc; the delegates numbered
        after the normal vertices), ``ids(src)`` the search ids of host global ids, and
        ``block(levels)`` the ``(n, k)`` DistArray of a ``(k, n_pad + D)`` block of levels
        in the local numbering (a transposed view of it; an owned delegate's row from its
        slot).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0, 0, 0]), np.array([1, 2, 3]), 4,
        ...                               threshold=2)
        >>> L, ids, block = semiring.Matrix.from_any(G).one_rank()
        >>> ids(np.array([0, 3])).tolist() == [G.layout.n_pad, 3]
        True
        """
        G = self.graph
        if G.P > 1:
            return None
        n_pad = G.layout.n_pad

        def ids(src):
            d = G.comm.to_host(G.delegate_number(src))
            return np.where(d >= 0, n_pad + d, src)

        def block(levels):
            out = levels[:, :G.n_local].T   # a view: no copy of the whole block
            if G.owned_delegates.size:
                out[G.owned_delegates] = levels[:, G.owned_delegate_slots].T
            return DistArray(G, out)

        return G.layout.local, ids, block

    def row_block(self):
        """The rows of the vertices this rank owns, whole, as a single-device
        :class:`~spbfs.semiring.Matrix` of shape ``(n_local, n)``: row ``i`` is vertex
        ``i * P + rank``, columns are global ids, sorted, parallel arcs summed.  One
        all-to-all-v of the stored arcs to their rows' owners the first time (a
        delegate's arcs lie on many ranks), kept with the graph.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0, 0]), np.array([1, 2]), 3,
        ...                               directed=True)
        >>> semiring.Matrix.from_any(G).row_block().to_scipy().toarray()
        array([[0., 1., 1.],
               [0., 0., 0.],
               [0., 0., 0.]])
        """
        G = self.graph
        key = ("row block", self.dtype.str)
        if key not in G._cache:
            G._cache[key] = _row_block(G, self.dtype)
        return G._cache[key]

    def select_ends(self, key, op):
        """The stored entries ``(u, v)`` with ``op(key[u], key[v])`` (``op`` a comparison
        ufunc, ``key`` a DistArray of this graph), as a distributed matrix of the same
        partition (:func:`spbfs.dist.algebra.select_ends`).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
        >>> M = semiring.Matrix.from_any(G)
        >>> L = M.select_ends(M.xp.arange(3), np.greater)
        >>> L.nnz, G.gather(L.out_degree).tolist()
        (2, [0, 1, 1])
        """
        return algebra.select_ends(self, key, op)

    def whole(self):
        """The whole matrix as a single-device :class:`~spbfs.semiring.Matrix`, the same
        on every rank (an allgather of every rank's :meth:`row_block`): the documented
        fallback of the algorithms that have no distributed form yet.  It holds every
        arc on every rank, so it does not scale past one rank's memory.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0]), np.array([1]), 2)
        >>> semiring.Matrix.from_any(G).whole().to_scipy().toarray()
        array([[0., 1.],
               [1., 0.]])
        """
        from ..semiring import Matrix

        G, xp = self.graph, self.graph.xp
        R = self.row_block()
        rows = xp.repeat(xp.arange(R.nrows, dtype=np.int64) * G.P + G.rank,
                         xp.diff(R.indptr).astype(np.int64))
        mine = tuple(G.comm.to_host(a) for a in (rows, R.indices.astype(np.int64), R.data))
        parts = G.comm.allgather(mine) if G.P > 1 else [mine]
        r, c, v = (np.concatenate(p) for p in zip(*parts, strict=True))
        order = np.lexsort((c, r))
        r, c, v = r[order], c[order], v[order]
        indptr = np.zeros(G.n + 1, np.int64)
        np.cumsum(np.bincount(r, minlength=G.n), out=indptr[1:])
        return Matrix(xp.asarray(indptr), xp.asarray(c), xp.asarray(v), G.n,
                      symmetric=self.symmetric, canonical=True, check=False)

    def spread(self, C):
        """The distributed matrix of this graph's partition holding the single-device
        ``C`` (the same on every rank): each rank keeps the rows it owns."""
        from ..semiring import extract

        G = self.graph
        rows = G.local_vertices()
        return algebra.from_row_block(self, extract(C, rows), symmetric=C.symmetric)

    @property
    def in_degree(self) -> DistArray:
        return self.T.out_degree

    def __repr__(self) -> str:
        return f"DistMatrix({self.graph!r})"


def _row_block(G, dtype):
    """:meth:`DistMatrix.row_block` of ``G`` with values of ``dtype``."""
    from ..semiring import Matrix
    from . import _local

    xp, P = G.xp, G.P
    u, v, w = G.stored_arcs()
    w = xp.ones(u.size, dtype) if w is None else w.astype(dtype)
    if P > 1:
        order, counts = _local.bin_by(u % P, P)
        (u, v, w), _ = G.comm.alltoallv_many([u[order], v[order], w[order]], counts)
    rows = u // P
    order = xp.argsort(rows, kind="stable") if xp is np else xp.argsort(rows)
    rows, v, w = rows[order], v[order], w[order]
    n_local = G.n_local
    indptr = xp.zeros(n_local + 1, np.int64)
    xp.cumsum(xp.bincount(rows, minlength=n_local), out=indptr[1:])
    M = Matrix(indptr, v.astype(np.int64), w, n_local, ncols=G.n, check=False)
    return M.canonical()
