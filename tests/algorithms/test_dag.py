"""Directed acyclic graphs (spbfs.algorithms.dag): topological generations and the acyclic
test against NetworkX, on DAGs and on graphs with cycles, self-loops and duplicates."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from spbfs import is_directed_acyclic_graph, topological_generations
from tests.conftest import DEVICES, graphs, multigraphs, on_device, to_host


def _oracle(A):
    """Each vertex's generation by NetworkX (-1 for the vertices on or behind a cycle: the
    generations of the subgraph NetworkX peels before it meets the cycle)."""
    A = sp.coo_array(A)
    G = nx.DiGraph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_edges_from(zip(A.row.tolist(), A.col.tolist(), strict=True))
    gen = np.full(A.shape[0], -1, np.int64)
    cyclic = set()
    for comp in nx.strongly_connected_components(G):
        if len(comp) > 1 or any(G.has_edge(v, v) for v in comp):
            cyclic |= comp
    behind = set(cyclic)
    for v in cyclic:
        behind |= nx.descendants(G, v)
    H = G.subgraph(set(G) - behind)
    for g, layer in enumerate(nx.topological_generations(H)):
        gen[list(layer)] = g
    return gen, not behind


def _dag(draw_edges, n):
    """The edges oriented from the lower vertex to the higher, of a random order."""
    order = np.random.default_rng(n).permutation(n)
    return [(order[min(u, v)], order[max(u, v)]) for u, v in draw_edges if u != v]


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=30, max_m=90))
def test_generations_and_acyclic_test_match_networkx(device, A):
    want, acyclic = _oracle(A)
    D = on_device(device, A)
    np.testing.assert_array_equal(to_host(topological_generations(D)), want)
    assert is_directed_acyclic_graph(D) is acyclic


@pytest.mark.parametrize("device", DEVICES)
@given(n=st.integers(1, 40), edges=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)),
                                             max_size=150))
def test_dags_are_acyclic(device, n, edges):
    pairs = _dag([(u % n, v % n) for u, v in edges], n)
    A = sp.csr_array((np.ones(len(pairs)), ([u for u, _ in pairs], [v for _, v in pairs])),
                     shape=(n, n))
    want, acyclic = _oracle(A)
    assert acyclic
    D = on_device(device, A)
    np.testing.assert_array_equal(to_host(topological_generations(D)), want)
    assert is_directed_acyclic_graph(D)


@given(A=graphs(max_n=20, max_m=40))
def test_a_self_loop_is_a_cycle(A):
    A = sp.csr_array(A)
    A[0, 0] = 1
    assert not is_directed_acyclic_graph(A)
    assert topological_generations(A)[0] == -1


def test_a_long_chain_peels_in_one_call():
    """A path of 100,000 vertices: 100,000 generations (the generic path ran a product per
    generation)."""
    n = 100_000
    A = sp.csr_array((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    np.testing.assert_array_equal(topological_generations(A), np.arange(n))
    assert is_directed_acyclic_graph(A)
    A[n - 1, 0] = 1
    assert not is_directed_acyclic_graph(A)
    assert (topological_generations(A) == -1).all()
