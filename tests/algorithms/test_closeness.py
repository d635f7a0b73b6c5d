"""Weighted closeness and harmonic centrality against scipy.sparse.csgraph.dijkstra: a CSR
that stores an edge twice counts it with its smallest weight, as scipy's dijkstra on that
CSR and :func:`spbfs.sssp` do (not with the sum of the two)."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import multigraphs
from hypothesis import given

import spbfs


def _closeness(D, wf_improved=True):
    """NetworkX's closeness (distances into each vertex) from scipy's distance matrix."""
    n = D.shape[0]
    finite = np.isfinite(D)
    count = finite.sum(axis=0)
    total = np.where(finite, D, 0.0).sum(axis=0)
    c = np.where(total > 0, (count - 1.0) / np.where(total > 0, total, 1.0), 0.0)
    if wf_improved and n > 1:
        c = c * (count - 1.0) / (n - 1)
    return c


def _harmonic(D):
    return np.where(np.isfinite(D) & (D > 0), 1.0 / np.where(D > 0, D, 1.0), 0.0).sum(axis=0)


def test_duplicate_edges_count_with_their_smallest_weight():
    """0 -> 1 stored twice, weights 5 and 1 (scipy's dijkstra: 1; their sum would be 6)."""
    A = sp.csr_array((np.array([5.0, 1.0, 2.0]), np.array([1, 1, 2]), np.array([0, 2, 3, 3])),
                     shape=(3, 3))
    assert not A.has_canonical_format
    D = csgraph.dijkstra(A)
    assert D[0, 1] == 1.0 and D[0, 2] == 3.0
    np.testing.assert_array_equal(spbfs.sssp(A, [0, 1, 2]), D)
    np.testing.assert_allclose(spbfs.closeness_centrality(A, weight=True), _closeness(D))
    np.testing.assert_allclose(spbfs.harmonic_centrality(A, weight=True), _harmonic(D))
    np.testing.assert_allclose(spbfs.harmonic_centrality(A, [0], weight=True), _harmonic(D[:1]))


@given(multigraphs(max_n=25, max_m=100, weights="quarters"))
def test_weighted_with_duplicates_match_dijkstra(A):
    """Duplicates (other weights), explicit zeros and self-loops: scipy's dijkstra on the
    same CSR is the oracle."""
    D = csgraph.dijkstra(A)
    np.testing.assert_allclose(spbfs.closeness_centrality(A, weight=True), _closeness(D))
    np.testing.assert_allclose(spbfs.closeness_centrality(A, False, weight=True),
                               _closeness(D, False))
    np.testing.assert_allclose(spbfs.harmonic_centrality(A, weight=True), _harmonic(D))


@given(multigraphs(max_n=25, max_m=100))
def test_unweighted_with_duplicates_match_hop_counts(A):
    D = csgraph.shortest_path(A, unweighted=True)
    np.testing.assert_allclose(spbfs.closeness_centrality(A), _closeness(D))
    np.testing.assert_allclose(spbfs.harmonic_centrality(A), _harmonic(D))


def test_a_negative_duplicate_is_refused():
    """Its smallest weight is negative (the sum of the two would not be)."""
    A = sp.csr_array((np.array([5.0, -1.0]), np.array([1, 1]), np.array([0, 2, 2])),
                     shape=(2, 2))
    with pytest.raises(ValueError, match="negative"):
        spbfs.closeness_centrality(A, weight=True)


def test_harmonic_sources_are_a_set():
    """A repeated source counts once, as NetworkX's ``set(sources)`` (found by a fuzz)."""
    import networkx as nx

    A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    H = nx.from_scipy_sparse_array(A)
    for sources in ([0, 0], [0, 0, 1]):
        ref = nx.harmonic_centrality(H, sources=sources)
        np.testing.assert_allclose(spbfs.harmonic_centrality(A, sources=np.array(sources)),
                                   [ref[v] for v in range(3)])
