"""spbfs.cpu.firstparents.first_tight_parents against the rule written out with numpy, on
one thread and split over the pool's."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import spbfs
from spbfs.cpu import firstparents
from spbfs.cpu.firstparents import first_tight_parents


def _rule(A, dist, order, sources):
    """Per column, the tight in-neighbour of smallest rank in ``order``."""
    n = A.shape[0]
    rank = np.full(n, n)
    rank[order] = np.arange(order.size)
    parent = np.full(n, -1)
    C = A.tocoo()  # every stored entry, zeros too
    for r, c, w in sorted(zip(C.row, C.col, C.data, strict=True), key=lambda t: rank[t[0]]):
        if (parent[c] < 0 and rank[r] < n and rank[c] < n and r != c and c not in sources
                and dist[r] + w == dist[c]):
            parent[c] = r
    return parent


@st.composite
def _searches(draw):
    n = draw(st.integers(1, 12))
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 3)), max_size=40))
    weights = {(u, v): w for u, v, w in arcs}  # one weight per arc
    rows = np.array([k[0] for k in weights], np.int64)
    cols = np.array([k[1] for k in weights], np.int64)
    data = np.array(list(weights.values()), np.float64)
    A = sp.csr_array((data, (rows, cols)), shape=(n, n))
    A.sort_indices()
    sources = sorted(set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))))
    dist = dijkstra(A, indices=sources, min_only=True)
    reached = np.flatnonzero(np.isfinite(dist))
    order = reached[np.lexsort((draw(st.permutations(range(reached.size))), dist[reached]))]
    return A, dist, order, sources


@settings(max_examples=80, deadline=None)
@given(search=_searches())
def test_first_tight_parents_follow_the_rule(search):
    A, dist, order, sources = search
    want = _rule(A, dist, order, sources)
    old = firstparents.PARALLEL_ENTRIES
    firstparents.PARALLEL_ENTRIES = 0
    try:
        for threads in (1, 3):
            spbfs.set_num_threads(threads)
            for data in (A.data, A.data.astype(np.int64)):
                got = first_tight_parents(A.indptr, A.indices, data, dist, order, sources)
                assert got.tolist() == want.tolist()
    finally:
        firstparents.PARALLEL_ENTRIES = old
        spbfs.set_num_threads(None)
