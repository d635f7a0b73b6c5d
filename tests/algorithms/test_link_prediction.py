"""Link prediction's vertex ids: integer arrays of any integer dtype, checked as every vertex
id of spbfs (:func:`spbfs.core.validation.check_sources`): a float id (even a whole one)
or a bool raises a TypeError naming the argument instead of being truncated; scores of
the integer pairs are NetworkX's."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import spbfs

A = sp.csr_array(np.array([[0, 1, 1, 0, 0], [1, 0, 1, 1, 0], [1, 1, 0, 1, 0],
                           [0, 1, 1, 0, 1], [0, 0, 0, 1, 0]]))
G = nx.from_scipy_sparse_array(A)

#: spbfs function -> NetworkX's, scored on (u, v) pairs.
FUNCTIONS = {
    spbfs.common_neighbors: lambda G, pairs: [len(list(nx.common_neighbors(G, a, b)))
                                              for a, b in pairs],
    spbfs.jaccard_coefficient: lambda G, pairs: [p for *_, p in nx.jaccard_coefficient(G, pairs)],
    spbfs.resource_allocation_index: lambda G, pairs: [
        p for *_, p in nx.resource_allocation_index(G, pairs)],
    spbfs.adamic_adar_index: lambda G, pairs: [p for *_, p in nx.adamic_adar_index(G, pairs)],
    spbfs.common_neighbor_centrality: lambda G, pairs: [
        p for *_, p in nx.common_neighbor_centrality(G, pairs)],
}
IDS = [f.__name__ for f in FUNCTIONS]


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_integer_ids_of_any_dtype_match_networkx(f, dtype):
    pairs = [(0, 3), (1, 4), (4, 2), (0, 4)]
    u = np.array([a for a, _ in pairs], dtype)
    v = np.array([b for _, b in pairs], dtype)
    expected = FUNCTIONS[f](G, pairs)
    np.testing.assert_allclose(f(A, u, v), expected)
    np.testing.assert_allclose(f(A, u.tolist(), v.tolist()), expected)


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
@pytest.mark.parametrize("bad", [
    np.array([1.7]),            # was truncated to 1
    np.array([1.0]),            # whole, but a float: as check_sources, refused
    [0.5],
    np.array([True]),
    np.array(["1"]),
])
def test_non_integer_ids_raise_naming_the_argument(f, bad):
    with pytest.raises(TypeError, match="u must hold integer vertex ids"):
        f(A, bad, np.array([3]))
    with pytest.raises(TypeError, match="v must hold integer vertex ids"):
        f(A, np.array([0]), bad)


@pytest.mark.parametrize("f", FUNCTIONS, ids=IDS)
def test_ids_out_of_range_and_lengths(f):
    with pytest.raises(ValueError, match=r"u must lie in \[0, 5\), got -1"):
        f(A, np.array([-1]), np.array([3]))
    with pytest.raises(ValueError, match=r"v must lie in \[0, 5\), got 5"):
        f(A, np.array([0]), np.array([5]))
    with pytest.raises(ValueError, match="same length"):
        f(A, np.array([0, 1]), np.array([3]))
    assert f(A, np.array([], np.float64), []).shape == (0,)   # no pairs: no ids to check
