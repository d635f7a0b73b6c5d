"""NetworkX's ``all_pairs_lowest_common_ancestor`` by the compiled pass
(spbfs/cpu/lca.py): the same pairs, order and ancestors as NetworkX, whose choice among
several lowest common ancestors follows the iteration order of its Python sets."""

import numpy as np
import pytest

from spbfs.nx import _lca

nx = pytest.importorskip("networkx")


def _random_dag(n, p, seed, labels=None):
    R = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)  # node order unlike the topological one
    D = nx.DiGraph()
    D.add_nodes_from(order.tolist())
    D.add_edges_from((u, v) for u, v in R.edges if u < v)
    if labels is not None:
        D = nx.relabel_nodes(D, {i: labels(i) for i in range(n)})
    return D


LABELS = {
    "ints": None,
    "strings": lambda i: f"v{i}",
    "tuples": lambda i: (i % 7, str(i)),
    "big ints": lambda i: 2**61 + 3 * i - 50,  # hashes not the values; -1 hashes as -2
    "negative": lambda i: i - 40,
}


@pytest.mark.parametrize("name", sorted(LABELS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_pairs_is_networkx(name, seed):
    D = _random_dag(120, 0.05, seed, LABELS[name])
    want = list(nx.all_pairs_lowest_common_ancestor(D))
    assert list(nx.all_pairs_lowest_common_ancestor(D, backend="spbfs")) == want


@pytest.mark.parametrize("seed", [4, 5])
def test_given_pairs_is_networkx(seed):
    D = _random_dag(150, 0.04, seed, LABELS["strings"])
    nodes = list(D)
    rng = np.random.default_rng(seed)
    pairs = [(nodes[a], nodes[b]) for a, b in rng.integers(0, len(nodes), (3000, 2))]
    pairs += pairs[:50]  # repeats
    want = list(nx.all_pairs_lowest_common_ancestor(D, pairs))
    assert list(nx.all_pairs_lowest_common_ancestor(D, pairs, backend="spbfs")) == want


def test_large_ancestor_sets():
    # ancestor sets past the small tables (hundreds of nodes), one source and several
    D = _random_dag(700, 0.02, 7)
    want = list(nx.all_pairs_lowest_common_ancestor(D))
    assert list(nx.all_pairs_lowest_common_ancestor(D, backend="spbfs")) == want
    D.add_edges_from((-1, v) for v in list(D))  # one source above all
    want = list(nx.all_pairs_lowest_common_ancestor(D))
    assert list(nx.all_pairs_lowest_common_ancestor(D, backend="spbfs")) == want


@pytest.mark.parametrize("threads", [1, 2])
def test_blocks_and_threads(monkeypatch, threads):
    from spbfs.cpu import threads as pool

    monkeypatch.setattr(_lca, "COMPILED_BLOCK", 97)  # many ranges of first rows
    pool.set_num_threads(threads)
    try:
        D = _random_dag(200, 0.03, 8, LABELS["tuples"])
        got = nx.all_pairs_lowest_common_ancestor(D, backend="spbfs")
        first = next(got)  # a generator: stopped early, then resumed
        want = list(nx.all_pairs_lowest_common_ancestor(D))
        assert [first, *got] == want
    finally:
        pool.set_num_threads(None)


def test_without_the_compiled_pass(monkeypatch):
    monkeypatch.setattr(_lca, "COMPILED_BYTES", 0)  # the bit rows of the pairs' nodes
    D = _random_dag(100, 0.05, 9)
    want = list(nx.all_pairs_lowest_common_ancestor(D))
    assert list(nx.all_pairs_lowest_common_ancestor(D, backend="spbfs")) == want
    pairs = [(0, 5), (5, 0), (3, 3), (7, 99)]
    want = list(nx.all_pairs_lowest_common_ancestor(D, pairs))
    assert list(nx.all_pairs_lowest_common_ancestor(D, pairs, backend="spbfs")) == want
