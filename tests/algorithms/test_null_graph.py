"""The centralities of the graph without vertices (a 0 x 0 matrix), against NetworkX's
null graph: empty float64 arrays where NetworkX returns an empty dict; eigenvector
centrality raises, as NetworkX (``NetworkXPointlessConcept``) and its docstring say."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import spbfs

#: spbfs function -> (its call, NetworkX's on the null graph).
CENTRALITIES = {
    "katz_centrality": (lambda A: spbfs.katz_centrality(A), nx.katz_centrality),
    "katz_centrality_weighted": (lambda A: spbfs.katz_centrality(A, weight=True,
                                                                 normalized=False),
                                 nx.katz_centrality),
    "pagerank": (lambda A: spbfs.pagerank(A), nx.pagerank),
    "closeness_centrality": (lambda A: spbfs.closeness_centrality(A), nx.closeness_centrality),
    "closeness_weighted": (lambda A: spbfs.closeness_centrality(A, weight=True),
                           nx.closeness_centrality),
    "harmonic_centrality": (lambda A: spbfs.harmonic_centrality(A), nx.harmonic_centrality),
    "harmonic_weighted": (lambda A: spbfs.harmonic_centrality(A, weight=True),
                          nx.harmonic_centrality),
    "betweenness_centrality": (lambda A: spbfs.betweenness_centrality(A),
                               nx.betweenness_centrality),
    "betweenness_undirected": (lambda A: spbfs.betweenness_centrality(A, directed=False),
                               nx.betweenness_centrality),
    "degree_centrality": (lambda A: spbfs.degree_centrality(A), nx.degree_centrality),
}

NULL_INPUTS = {
    "csr": lambda: sp.csr_array((0, 0)),
    "coo": lambda: sp.coo_array((0, 0)),
    "dense": lambda: np.zeros((0, 0)),
    "prepared": lambda: spbfs.prepare(sp.csr_array((0, 0))),
}


@pytest.mark.parametrize("kind", sorted(NULL_INPUTS))
@pytest.mark.parametrize("name", sorted(CENTRALITIES))
def test_null_graph_centralities_are_empty(name, kind):
    call, oracle = CENTRALITIES[name]
    assert oracle(nx.DiGraph()) == {}
    got = call(NULL_INPUTS[kind]())
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (0,)


@pytest.mark.parametrize("kind", sorted(NULL_INPUTS))
def test_null_graph_hits_is_two_empty_arrays(kind):
    assert nx.hits(nx.DiGraph()) == ({}, {})
    for normalized in (True, False):
        hubs, authorities = spbfs.hits(NULL_INPUTS[kind](), normalized=normalized)
        for got in (hubs, authorities):
            assert got.dtype == np.float64 and got.shape == (0,)


def test_null_graph_katz_checks_its_arguments_still():
    A = sp.csr_array((0, 0))
    assert spbfs.katz_centrality(A, beta=np.zeros(0), nstart=np.zeros(0)).shape == (0,)
    with pytest.raises(ValueError, match="beta"):
        spbfs.katz_centrality(A, beta=np.ones(2))
    with pytest.raises(ValueError, match="tol"):
        spbfs.katz_centrality(A, tol=-1.0)


def test_null_graph_eigenvector_centrality_raises_as_networkx():
    """Kept on purpose: NetworkX calls it pointless, the docstring documents the
    ValueError."""
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.eigenvector_centrality(nx.DiGraph())
    with pytest.raises(ValueError, match="without vertices"):
        spbfs.eigenvector_centrality(sp.csr_array((0, 0)))
