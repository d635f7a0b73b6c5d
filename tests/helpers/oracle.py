"""scipy.sparse.csgraph as the oracle for levels and parents."""

import numpy as np
import scipy.sparse.csgraph as csgraph


def oracle_levels(A, source, directed=True):
    """Hop counts from scipy (``-1`` where unreachable)."""
    d = csgraph.shortest_path(A, unweighted=True, directed=directed, indices=source)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def check_parents(A, source, levels, parents, directed=True):
    """Parents form a BFS tree of A: each tree edge is an edge of A one level down."""
    A = A.tocsr()
    reached = levels >= 0
    assert parents[source] == source
    assert np.all(parents[~reached] == -1)
    child = np.flatnonzero(reached)
    child = child[child != source]
    par = parents[child]
    assert np.all(levels[par] == levels[child] - 1)
    coo = A.tocoo()
    r, c = coo.row, coo.col
    if not directed:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    n = A.shape[0]
    edges = set((r.astype(np.int64) * n + c).tolist())
    tree = (par.astype(np.int64) * n + child).tolist()
    assert all(t in edges for t in tree)
