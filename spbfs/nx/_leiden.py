"""``leiden_communities`` and ``leiden_partitions`` (NetworkX defines them; backends
implement them): the backend's Louvain (:func:`spbfs.algorithms.communities.louvain`, a
colour class at a time, seeded) and Leiden's guarantee by a refinement step: each community
split into its connected parts (:func:`spbfs.connected_components` of the graph less its
edges between communities).

Splitting a community whose parts share no edge never lowers the modularity (the parts'
expected-edge term only shrinks), so the partition's modularity is at least Louvain's, and
every community is connected, as Leiden guarantees.  A multigraph's parallel edges count
with their weights summed (as NetworkX's community functions count them).
"""

from __future__ import annotations

from collections import deque
from itertools import chain, repeat

import numpy as np

from ..algorithms.communities import doubled_loops, louvain_doubled, quotient_modularity
from ..algorithms.components import connected_components
from ..semiring import Matrix, quotient
from ._communities import CLASS_STEPS_GPU_MIN_ENTRIES, _groups, _seed
from ._graph import row_datas, row_methods
from ._registry import dispatched, gc_paused

__all__ = []


def _can_run(arguments):
    if arguments["G"].is_directed():
        return "directed graphs: NetworkX raises NetworkXNotImplemented"
    return True


def _summed(G, weight):
    """The weights of a multigraph's neighbour pairs, their parallel edges' summed (each
    edge counting 1 when ``weight`` is None), in CSR order, from the NetworkX graph."""
    orig = G.networkx_graph()
    values, _ = row_methods(orig)
    keydicts = list(row_datas(orig, G.nodes))
    counts = np.fromiter(map(len, keydicts), np.int64, count=len(keydicts))
    if weight is None:
        return counts.astype(np.float64)
    datas = chain.from_iterable(map(values, keydicts))
    weights = np.fromiter(map(dict.get, datas, repeat(weight), repeat(1)), np.float64,
                          count=int(counts.sum()))
    if weights.size and (not np.isfinite(weights).all() or weights.min() < 0):
        raise NotImplementedError(f"edge attribute {weight!r} has negative, NaN or infinite "
                                  "values")
    return np.add.reduceat(weights, np.cumsum(counts) - counts) if weights.size else weights


def _matrix(G, weight, gpu):
    if G.is_multigraph():
        values = _summed(G, weight)
        P = G.matrix(gpu)
        return P.with_values(P.xp.asarray(values), symmetric=True).canonical()
    if weight is None:
        return G.csr(gpu).unit(np.float64)
    return G.weighted_csr(weight, gpu)


def _refined(M, labels):
    """``labels`` split into the connected parts of each community."""
    xp, n = M.xp, M.n
    rows, cols = M.entry_rows, M.indices
    keep = labels[rows] == labels[cols]
    indptr = xp.zeros(n + 1, M.indptr.dtype)
    xp.cumsum(xp.bincount(rows[keep], minlength=n), out=indptr[1:])
    inner = Matrix(indptr, cols[keep], xp.ones(int(keep.sum()), bool), n, symmetric=True,
                   check=False)
    return connected_components(inner, directed=False)[1]


def _levels(G, weight, resolution, seed, max_level=None, M=None):
    """Leiden's partitions level by level (label arrays over ``G``'s rows), up to
    ``max_level``: a level moves the vertices of the current graph (Louvain's local moves,
    a colour class at a time), splits each community of ``G`` into its connected parts,
    and makes those parts the next level's vertices; it ends when nothing moves or the
    modularity rises by no more than 1e-7."""
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    if M is None:  # (or the caller's, already read)
        M = _matrix(G, weight, G.on_gpu(CLASS_STEPS_GPU_MIN_ENTRIES))
    xp, n = M.xp, M.n
    seed = _seed(seed)
    labels = xp.arange(n, dtype=np.int64)
    if not M.nnz:
        return
    # the weights checked once, their diagonal doubled; each level's graph is the quotient
    # of this one by the labels (a doubled diagonal again), as Louvain takes it
    B = doubled_loops(M)
    total = float(B.data.sum())
    mod = quotient_modularity(B, resolution, total) if total else float("nan")
    A, level = B, 0
    while max_level is None or level < max_level:
        moved = louvain_doubled(A, resolution=resolution, max_level=1,
                                seed=None if seed is None else seed + level)
        c = int(moved.max()) + 1
        if c == A.n:  # nothing moved
            return
        labels = _refined(M, moved[labels])
        c = int(labels.max()) + 1
        Q = quotient(B, labels.astype(np.int64), c)  # the next level's graph
        new_mod = quotient_modularity(Q, resolution, total)
        yield labels
        level += 1
        if c == A.n or new_mod - mod <= 1e-7:
            return
        mod, A = new_mod, Q


@dispatched(can_run=_can_run, docs="Louvain (a colour class at a time, seeded) and the "
            "refinement of Leiden's guarantee: each community split into its connected parts "
            "(connected components of the graph less its edges between communities). Its "
            "modularity is at least the Louvain partition's (within 1% of NetworkX's "
            "``louvain_communities`` in the tests). Multigraphs count parallel edges with "
            "their weights summed; negative weights run in NetworkX (which has no Leiden).")
def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None):
    """NetworkX's ``leiden_communities``: communities of high modularity, each connected.

    Parameters
    ----------
    G : SpbfsGraph
        Undirected.
    weight : str or None
        Edge attribute of the weights (None: every edge weighs 1).
    resolution : float
        The modularity's resolution ``gamma``.
    max_level : int, optional
        Most levels of aggregation.
    seed : random.Random
        For the colourings (NetworkX's ``py_random_state`` makes one of an int).

    Returns
    -------
    list of set
        The communities, in the order of their first nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)])
    >>> nx.community.leiden_communities(G, seed=1, backend="spbfs")
    [{0, 1, 2}, {3, 4, 5}]
    """
    if not len(G):
        if max_level is not None and max_level <= 0:
            raise ValueError("max_level argument must be a positive integer or None")
        return []
    last = deque(_levels(G, weight, resolution, seed, max_level), maxlen=1)
    return _groups(G, last.pop() if last else np.arange(len(G)))


@dispatched(can_run=_can_run, docs="``leiden_communities`` with ``max_level`` 1, 2, ... (the "
            "same seed), until a level changes nothing.")
def leiden_partitions(G, weight="weight", resolution=1, seed=None):
    """NetworkX's ``leiden_partitions``: the partition of each level, as ``leiden_communities``
    with ``max_level`` 1, 2, ... and the same seed gives it.

    Parameters
    ----------
    G : SpbfsGraph
        Undirected.
    weight : str or None
        Edge attribute of the weights.
    resolution : float
        The modularity's resolution.
    seed : random.Random
        For the colourings.

    Yields
    ------
    list of set
        Each level's communities.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)])
    >>> list(nx.community.leiden_partitions(G, seed=1, backend="spbfs"))
    [[{0, 1, 2}, {3, 4, 5}]]
    """
    if not len(G):
        return iter([[]])
    # the weights read before a level is asked for: weights spbfs declines raise
    # NotImplementedError while NetworkX's dispatcher can still run its own code
    M = _matrix(G, weight, G.on_gpu(CLASS_STEPS_GPU_MIN_ENTRIES))
    return _partitions(G, weight, resolution, seed, M)


def _partitions(G, weight, resolution, seed, M):
    """Each level's node sets, made with the collector paused (a generator runs with it on
    between its yields: its collections walked the caller's graph, 1.2 s of the VM's three
    levels of 49,309 sets)."""
    groups = gc_paused(_groups)
    produced = False
    for labels in _levels(G, weight, resolution, seed, M=M):
        produced = True
        yield groups(G, labels)
    if not produced:  # no edges: the vertices alone
        yield groups(G, np.arange(len(G)))
