"""bfs against scipy.sparse.csgraph on generated graphs."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st
from oracle import check_parents, oracle_levels

import spbfs

DIRECTIONS = ["auto", "push", "pull"]


@given(graphs(), st.data(), st.booleans(), st.sampled_from(DIRECTIONS))
def test_levels_and_parents_match_scipy(A, data, directed, direction):
    source = data.draw(st.integers(0, A.shape[0] - 1))
    levels, parents = spbfs.bfs(A, source, return_parents=True, directed=directed,
                                direction=direction)
    expected = oracle_levels(A, source, directed)
    np.testing.assert_array_equal(levels, expected)
    np.testing.assert_array_equal(spbfs.bfs(A, source, directed=directed, direction=direction),
                                  expected)
    check_parents(A, source, levels, parents, directed)


@pytest.mark.parametrize("alpha,beta", [(1e-9, 1e9), (1e9, 1e-9), (1.0, 1.0)])
def test_switching_factors_do_not_change_the_result(alpha, beta):
    A = sp.random(300, 300, density=0.02, random_state=3, format="csr")
    expected = oracle_levels(A, 7, directed=False)
    got = spbfs.bfs(A, 7, directed=False, alpha=alpha, beta=beta)
    np.testing.assert_array_equal(got, expected)


def test_explicit_zeros_are_edges():
    A = sp.csr_array((np.array([0.0, 0.0]), np.array([1, 2]), np.array([0, 1, 2, 2])),
                     shape=(3, 3))
    assert A.nnz == 2
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2])


def test_dense_input_follows_csgraph_null_values():
    D = np.array([[0, 1, np.inf], [np.nan, 0, 2.0], [0, 0, 0]])
    np.testing.assert_array_equal(spbfs.bfs(D, 0), [0, 1, 2])
    np.testing.assert_array_equal(spbfs.bfs(D, 2), [-1, -1, 0])


def test_one_vertex_and_isolated(path_graph):
    np.testing.assert_array_equal(spbfs.bfs(sp.csr_array((1, 1)), 0), [0])
    levels, parents = spbfs.bfs(path_graph, 4, return_parents=True)
    np.testing.assert_array_equal(levels, [-1, -1, -1, -1, 0])
    np.testing.assert_array_equal(parents, [-1, -1, -1, -1, 4])


def test_output_dtype_and_prepared_matrix(path_graph):
    M = spbfs.prepare(path_graph, directed=False)
    levels = spbfs.bfs(M, 3)
    assert levels.dtype == np.int32
    np.testing.assert_array_equal(levels, [3, 2, 1, 0, -1])


def test_undirected_view_of_a_symmetric_matrix_is_not_doubled():
    """A pattern equal to its transpose is used as it is (values too, when they are
    symmetric); unsorted rows or asymmetric values keep the doubled form."""
    rng = np.random.default_rng(2)
    B = sp.random_array((40, 40), density=0.1, rng=rng, format="csr")
    S = sp.csr_array(B + B.T)
    S.sort_indices()
    M = spbfs.prepare(S, directed=False)
    assert M.symmetric and M.nnz == S.nnz
    np.testing.assert_array_equal(M.data, S.data)
    skewed = S.copy()
    skewed.data = rng.random(S.nnz)  # same pattern, asymmetric weights
    assert spbfs.prepare(skewed, directed=False).nnz == 2 * S.nnz
    assert spbfs.prepare(skewed, directed=False, values=False).nnz == S.nnz
    shuffled = S.copy()  # the same entries, one row stored in reverse order
    row = int(np.argmax(np.diff(S.indptr)))
    lo, hi = S.indptr[row], S.indptr[row + 1]
    shuffled.indices[lo:hi] = shuffled.indices[lo:hi][::-1].copy()
    shuffled.data[lo:hi] = shuffled.data[lo:hi][::-1].copy()
    shuffled.has_sorted_indices = False
    assert spbfs.prepare(shuffled, directed=False).nnz == 2 * S.nnz
    for G in (S, skewed, shuffled):
        np.testing.assert_array_equal(spbfs.bfs(G, 0, directed=False), oracle_levels(G, 0, False))
        np.testing.assert_allclose(spbfs.sssp(G, 0, directed=False),
                                   csgraph.dijkstra(G, directed=False, indices=0))


def test_larger_random_graph_all_directions_agree():
    rng = np.random.default_rng(5)
    n, m = 5000, 40000
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
    expected = oracle_levels(A, 0)
    for direction in DIRECTIONS:
        levels, parents = spbfs.bfs(A, 0, return_parents=True, direction=direction)
        np.testing.assert_array_equal(levels, expected)
        check_parents(A, 0, levels, parents)


@pytest.mark.parametrize("directed", [True, False])
def test_parents_alone(directed):
    """``return_levels=False`` returns the parent array alone: a BFS tree whose depths are
    the levels, for one source and for several."""
    from spbfs.graph500 import tree_depths

    rng = np.random.default_rng(8)
    n, m = 3000, 12000
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
    for direction in DIRECTIONS:
        parents = spbfs.bfs(A, 4, return_parents=True, return_levels=False, directed=directed,
                            direction=direction)
        levels = tree_depths(parents, 4)
        np.testing.assert_array_equal(levels, oracle_levels(A, 4, directed))
        check_parents(A, 4, levels, parents, directed)
    many = spbfs.bfs(A, [4, 9], return_parents=True, return_levels=False, directed=directed)
    np.testing.assert_array_equal(many, spbfs.bfs(A, [4, 9], return_parents=True,
                                                  directed=directed)[1])


@pytest.mark.parametrize(
    "A,source,exc,word",
    [
        (sp.csr_array((3, 4)), 0, ValueError, "square"),
        (sp.csr_array((3, 3)), 3, ValueError, "source"),
        (sp.csr_array((3, 3)), -1, ValueError, "source"),
        (sp.csr_array((3, 3)), 1.5, TypeError, "source"),
        (sp.csr_array((3, 3)), True, TypeError, "source"),
        (sp.csr_array((0, 0)), 0, ValueError, "source"),
        ("graph", 0, TypeError, "A must be"),
        (np.zeros((2, 2, 2)), 0, ValueError, "2-D"),
        (np.array([["a", "b"], ["c", "d"]]), 0, TypeError, "numeric"),
    ],
)
def test_bad_input_names_the_argument(A, source, exc, word):
    with pytest.raises(exc, match=word):
        spbfs.bfs(A, source)


def test_bad_options():
    A = sp.csr_array((3, 3))
    with pytest.raises(ValueError, match="direction"):
        spbfs.bfs(A, 0, direction="sideways")
    with pytest.raises(ValueError, match="alpha"):
        spbfs.bfs(A, 0, alpha=0)
    with pytest.raises(TypeError, match="beta"):
        spbfs.bfs(A, 0, beta="x")
    with pytest.raises(ValueError, match="return_levels"):
        spbfs.bfs(A, 0, return_levels=False)
