"""spbfs.cpu.fwkeys.floyd_key_orders against the order NetworkX's Floyd-Warshall makes its
distance dicts' keys in, read from NetworkX itself, and against the rule written out with
numpy for graphs with repeated entries and loops."""

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from spbfs.cpu.fwkeys import floyd_key_orders
from spbfs.nx import convert_from_nx


def _rule(indptr, indices, directed):
    n = indptr.size - 1
    out = []
    for u in range(n):
        row = indices[indptr[u]:indptr[u + 1]].astype(np.int64)
        if directed:
            row = row[row != u]
        else:
            row = np.concatenate([np.sort(row[row < u]), row[row > u]])
        _, first = np.unique(row, return_index=True)
        head = np.concatenate([[u], row[np.sort(first)]])
        rest = np.ones(n, bool)
        rest[head] = False
        out.append(np.concatenate([head, np.flatnonzero(rest)]).tolist())
    return out


@given(n=st.integers(1, 12), data=st.data(), directed=st.booleans())
def test_orders_follow_the_rule(n, data, directed):
    arcs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                              max_size=3 * n))
    rows = sorted(range(len(arcs)), key=lambda k: arcs[k][0])  # stored per row, repeats kept
    indices = np.array([arcs[k][1] for k in rows], np.int64)
    indptr = np.searchsorted([arcs[k][0] for k in rows], np.arange(n + 1))
    assert floyd_key_orders(indptr, indices, directed).tolist() == _rule(indptr, indices,
                                                                        directed)


@given(seed=st.integers(0, 10**6), directed=st.booleans())
def test_orders_are_networkx_key_orders(seed, directed):
    G = nx.gnm_random_graph(9, 14, seed=seed, directed=directed)
    G.add_edge(3, 3)
    g = convert_from_nx(G)
    nodes = list(G)
    expected = [[nodes.index(v) for v in d] for d in nx.floyd_warshall(G).values()]
    assert floyd_key_orders(g._indptr, g._indices, directed).tolist() == expected
