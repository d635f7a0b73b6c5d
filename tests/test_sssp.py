"""sssp against scipy's dijkstra."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st

import spbfs


@given(graphs(weights="quarters"), st.data(), st.booleans())
def test_distances_match_dijkstra(A, data, directed):
    source = data.draw(st.integers(0, A.shape[0] - 1))
    expected = csgraph.dijkstra(A, directed=directed, indices=source)
    dist, pred = spbfs.sssp(A, source, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(dist, expected)
    # the predecessor tree is a tree of tight edges reaching every reachable vertex
    reached = np.isfinite(dist)
    assert pred[source] == -1 and np.all(pred[~reached] == -1)
    child = np.flatnonzero(reached & (np.arange(A.shape[0]) != source))
    assert np.all(pred[child] >= 0)
    coo = A.tocoo()
    edges = list(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True))
    if not directed:
        edges += [(j, i, w) for i, j, w in edges]
    tight = {(i, j) for i, j, w in edges if dist[i] + w == dist[j]}
    assert all((int(pred[j]), int(j)) in tight for j in child)
    cur = child.copy()
    for _ in range(A.shape[0]):  # a bounded walk to the root proves there is no cycle
        cur = pred[cur[cur != source]]
    assert cur.size == 0 or np.all(cur == source)


def test_zero_weight_cycle_gives_acyclic_tree():
    A = sp.csr_array(([1.0, 0.0, 0.0], ([0, 1, 2], [1, 2, 1])), shape=(3, 3))
    dist, pred = spbfs.sssp(A, 0, return_predecessors=True)
    np.testing.assert_array_equal(dist, [0, 1, 1])
    np.testing.assert_array_equal(pred, [-1, 0, 1])


@pytest.mark.parametrize(
    "A,word",
    [
        (sp.csr_array(np.array([[0, -1.0], [0, 0]])), "negative"),
        (sp.csr_array(([np.nan], ([0], [1])), shape=(2, 2)), "NaN"),
    ],
)
def test_bad_weights(A, word):
    with pytest.raises(ValueError, match=word):
        spbfs.sssp(A, 0)


def test_unreachable_is_inf():
    A = sp.csr_array((3, 3))
    np.testing.assert_array_equal(spbfs.sssp(A, 1), [np.inf, 0, np.inf])
