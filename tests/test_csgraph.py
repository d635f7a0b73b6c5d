"""spbfs.csgraph.breadth_first_order as a drop-in for scipy's."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st
from oracle import oracle_levels

import spbfs.csgraph


@given(graphs(), st.data())
def test_directed_matches_scipy_exactly(A, data):
    A.sort_indices()
    source = data.draw(st.integers(0, A.shape[0] - 1))
    order, pred = csgraph.breadth_first_order(A, source, directed=True)
    got_order, got_pred = spbfs.csgraph.breadth_first_order(A, source, directed=True)
    assert got_order.dtype == order.dtype and got_pred.dtype == pred.dtype
    np.testing.assert_array_equal(got_order, order)
    np.testing.assert_array_equal(got_pred, pred)


@given(graphs(), st.data())
def test_undirected_is_a_bfs_order(A, data):
    source = data.draw(st.integers(0, A.shape[0] - 1))
    order, pred = csgraph.breadth_first_order(A, source, directed=False)
    got_order, got_pred = spbfs.csgraph.breadth_first_order(A, source, directed=False)
    assert set(got_order.tolist()) == set(order.tolist())
    levels = oracle_levels(A, source, directed=False)
    assert np.all(np.diff(levels[got_order]) >= 0)  # level by level
    np.testing.assert_array_equal(got_pred == -9999, pred == -9999)
    child = got_order[1:]
    np.testing.assert_array_equal(levels[got_pred[child]], levels[child] - 1)


def test_without_predecessors_and_errors():
    A = sp.csr_array(([1], ([0], [1])), shape=(2, 2))
    order = spbfs.csgraph.breadth_first_order(A, 0, return_predecessors=False)
    np.testing.assert_array_equal(order, [0, 1])
    with pytest.raises(ValueError, match="i_start"):
        spbfs.csgraph.breadth_first_order(A, 2)
