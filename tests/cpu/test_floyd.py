"""spbfs.cpu.floyd.floyd_warshall_rows against NetworkX's triple loop written out in
Python, on one thread and split over the pool's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import floyd
from spbfs.cpu.floyd import floyd_warshall_rows


def _loop(dist, pred, reached, base):
    """The loop of ``networkx.floyd_warshall_predecessor_and_distance`` on lists."""
    n = len(dist)
    for w in range(n):
        for u in range(n):
            for v in range(n):
                d = dist[u][w] + dist[w][v]
                if dist[u][v] > d:
                    dist[u][v] = d
                    pred[u][v] = pred[w][v]
                    if reached[u][v] < 0:
                        reached[u][v] = base + w * n + v


@st.composite
def _graphs(draw):
    n = draw(st.integers(0, 9))
    weights = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0])
    arcs = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)),
                                   st.integers(0, max(n - 1, 0)), weights),
                         max_size=30)) if n else []
    dist = np.full((n, n), np.inf)
    pred = np.full((n, n), -1, np.int64)
    for u, v, x in arcs:
        dist[u, v] = min(dist[u, v], x)
        pred[u, v] = u
    np.fill_diagonal(dist, 0.0)
    reached = np.where(pred >= 0, 0, -1).astype(np.int64)
    return dist, pred, reached


@settings(max_examples=60, deadline=None)
@given(graph=_graphs())
def test_floyd_warshall_rows_is_networkx_loop(graph):
    want = [a.tolist() for a in graph]
    _loop(*want, 100)
    old = floyd.PARALLEL_CELLS
    floyd.PARALLEL_CELLS = 0  # rounds even for a few rows
    try:
        for threads in (1, 3):
            dist, pred, reached = (a.copy() for a in graph)
            spbfs.set_num_threads(threads)
            floyd_warshall_rows(dist, pred, reached, 100)
            assert dist.tolist() == want[0]
            assert pred.tolist() == want[1]
            assert reached.tolist() == want[2]
            alone = graph[0].copy()  # the distances alone: the vectorised loop
            floyd_warshall_rows(alone, np.zeros((0, 0), np.int64), np.zeros((0, 0), np.int64))
            assert alone.tolist() == want[0]
    finally:
        floyd.PARALLEL_CELLS = old
        spbfs.set_num_threads(None)
