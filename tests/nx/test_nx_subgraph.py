"""The NetworkX graphs the backend builds as NetworkX's ``subgraph(nodes).copy()`` and
``copy()`` do (k_core, k_shell, k_crust, k_truss): the same node order, adjacency orders
and attributes, each edge's attribute dict new and shared by its two entries."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from spbfs.nx import convert_from_nx  # noqa: E402
from spbfs.nx._subgraph import copy_keeping, subgraph_copy  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")


@st.composite
def attributed_graphs(draw, loops=True):
    """A Graph or DiGraph whose nodes (ints or strings, in a drawn order) and edges carry
    attributes."""
    n = draw(st.integers(0, 24))
    labels = draw(st.permutations(range(n)))
    if draw(st.booleans()):
        labels = [f"v{v}" for v in labels]
    G = draw(st.sampled_from([nx.Graph, nx.DiGraph]))(name="drawn")
    G.add_nodes_from((v, {"tag": i}) for i, v in enumerate(labels))
    if n:
        ends = st.sampled_from(labels)
        for u, v in draw(st.lists(st.tuples(ends, ends), max_size=70)):
            if loops or u != v:
                G.add_edge(u, v, w=len(G.edges))
    return G


def assert_same_graph(H, R, source):
    """``H`` is ``R`` to the dict orders, its attribute dicts new (not ``source``'s) and
    shared as NetworkX shares them."""
    assert type(H) is type(R) and H.graph == R.graph
    assert list(H._node.items()) == list(R._node.items())
    assert list(H._adj) == list(R._adj)
    for u, nbrs in R._adj.items():
        assert list(H._adj[u].items()) == list(nbrs.items())
    back = H._pred if H.is_directed() else H._adj
    if H.is_directed():
        assert [list(p.items()) for p in H._pred.values()] == [
            list(p.items()) for p in R._pred.values()]
    for u, nbrs in H._adj.items():
        assert H._node[u] is not source._node[u]
        for v, data in nbrs.items():
            assert back[v][u] is data and data is not source._adj[u][v]


@given(G=attributed_graphs(), data=st.data())
def test_subgraph_copy_is_networkx_subgraph_copy(G, data):
    S = convert_from_nx(G)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, max(len(G) - 1, 0)),
                                             max_size=len(G)))), np.int64)
    H = subgraph_copy(S, rows)
    assert_same_graph(H, G.subgraph(S.labels(rows)).copy(), G)


@given(G=attributed_graphs(), data=st.data())
def test_copy_keeping_is_a_copy_less_the_dropped_edges(G, data):
    S = convert_from_nx(G)
    edges = list(G.edges)
    dropped = set(data.draw(st.sets(st.sampled_from(edges), max_size=len(edges)))
                  if edges else ())
    if not G.is_directed():
        dropped |= {(v, u) for u, v in dropped}
    pairs = zip(S.labels(S.entry_rows()), S.labels(S._indices), strict=True)
    entries = np.array([p not in dropped for p in pairs], bool)
    rows = np.flatnonzero(np.bincount(S.entry_rows()[entries], minlength=len(G)) > 0)
    if G.is_directed():  # a node with only kept edges into it stays too
        rows = np.union1d(rows, S._indices[entries]).astype(np.int64)
    R = G.copy()
    R.remove_edges_from(dropped)
    R.remove_nodes_from(S.labels(np.setdiff1d(np.arange(len(G)), rows)))
    assert_same_graph(copy_keeping(S, entries, rows), R, G)


def same_call(func, G, *args):
    """``func(G, *args)`` in spbfs is NetworkX's graph, or raises NetworkX's exception."""
    try:
        expected = func(G, *args)
    except Exception as error:  # noqa: BLE001 - whatever NetworkX raises, spbfs must too
        with pytest.raises(type(error)):
            func(G, *args, backend="spbfs")
        return
    assert_same_graph(func(G, *args, backend="spbfs"), expected, G)


@given(G=attributed_graphs(loops=False), k=st.integers(0, 4))
def test_core_subgraphs_match_networkx(G, k):
    U = nx.Graph(G) if G.is_directed() else G
    for func, graph in ((nx.k_core, G), (nx.k_shell, G), (nx.k_crust, G), (nx.k_core, U)):
        same_call(func, graph)
        same_call(func, graph, k)
    same_call(nx.k_core, G, 1, dict(reversed(nx.core_number(G).items())))
    same_call(nx.k_truss, U, 3)


class LabelledGraph(nx.Graph):
    """A Graph subclass: the backend hands its subgraphs to NetworkX's own copy."""


def test_subclasses_take_networkx_copy():
    G = LabelledGraph([(0, 1), (1, 2), (2, 0), (2, 3)])
    S = convert_from_nx(G)
    H = subgraph_copy(S, np.array([0, 1, 2]))
    assert type(H) is LabelledGraph and sorted(H.edges) == [(0, 1), (0, 2), (1, 2)]
    assert copy_keeping(S, np.ones(S.nnz, bool), np.arange(4)) is None
    assert type(nx.k_truss(G, 3, backend="spbfs")) is LabelledGraph
