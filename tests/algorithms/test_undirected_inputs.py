"""Functions of undirected graphs (NetworkX's ``not_implemented_for("directed")`` ones, whose
docstrings ask for a symmetric matrix) refuse a matrix that is not symmetric with a
ValueError naming the argument, and still answer NetworkX's answer for symmetric ones
(duplicates merged before the check)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st

import spbfs

#: 0 -> 1 -> 2 and 2 -> 0 back: a directed triangle (and vertex 3 hanging off 2).
DIRECTED = sp.csr_array(([1.0, 1.0, 1.0, 1.0, 1.0], ([0, 1, 2, 2, 3], [1, 2, 0, 3, 2])),
                        shape=(4, 4))
PAIRS = (np.array([0, 1]), np.array([3, 3]))

UNDIRECTED_ONLY = {
    "core_number": lambda A: spbfs.core_number(A, directed=False),
    "core_number_default": lambda A: spbfs.core_number(A),
    "modularity": lambda A: spbfs.modularity(A, np.array([0, 0, 1, 1])),
    "label_propagation": lambda A: spbfs.label_propagation(A),
    "louvain": lambda A: spbfs.louvain(A, seed=1),
    "common_neighbors": lambda A: spbfs.common_neighbors(A, *PAIRS),
    "jaccard_coefficient": lambda A: spbfs.jaccard_coefficient(A, *PAIRS),
    "resource_allocation_index": lambda A: spbfs.resource_allocation_index(A, *PAIRS),
    "adamic_adar_index": lambda A: spbfs.adamic_adar_index(A, *PAIRS),
    "common_neighbor_centrality": lambda A: spbfs.common_neighbor_centrality(A, *PAIRS),
    "common_neighbor_centrality_1": lambda A: spbfs.common_neighbor_centrality(A, *PAIRS,
                                                                                alpha=1),
}


@pytest.mark.parametrize("fmt", ["csr", "coo", "dense", "prepared"])
@pytest.mark.parametrize("name", sorted(UNDIRECTED_ONLY))
def test_directed_matrix_is_refused(name, fmt):
    A = {"csr": DIRECTED, "coo": sp.coo_array(DIRECTED), "dense": DIRECTED.toarray(),
         "prepared": spbfs.prepare(DIRECTED)}[fmt]
    with pytest.raises(ValueError, match=r"A must be symmetric \(an undirected graph\)"):
        UNDIRECTED_ONLY[name](A)
    # its undirected version is answered
    UNDIRECTED_ONLY[name](DIRECTED + DIRECTED.T)


@pytest.mark.parametrize("name", sorted(UNDIRECTED_ONLY))
def test_symmetric_after_merging_duplicates_is_accepted(name):
    """(0, 1) stored twice with weight 1 and (1, 0) once with weight 2: symmetric once
    duplicates are summed (as every function merges them)."""
    cols = [1, 1, 0, 2, 1, 3, 2]   # rows 0, 0 | 1, 1 | 2, 2 | 3
    w = [1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0]
    A = sp.csr_array((w, cols, [0, 2, 4, 6, 7]), shape=(4, 4))
    assert not A.has_canonical_format
    UNDIRECTED_ONLY[name](A)


def test_modularity_needs_symmetric_weights():
    """The pattern is symmetric, the weights are not."""
    A = sp.csr_array(np.array([[0, 1.0, 0], [3.0, 0, 1.0], [0, 1.0, 0]]))
    with pytest.raises(ValueError, match="A must be symmetric.*values"):
        spbfs.modularity(A, np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="A must be symmetric.*values"):
        spbfs.louvain(A)
    # the pattern functions read no values
    spbfs.label_propagation(A)
    spbfs.core_number(A)
    spbfs.common_neighbors(A, [0], [2])


def test_directed_core_numbers_still_read_a_directed_matrix():
    got = spbfs.core_number(DIRECTED, directed=True)
    want = nx.core_number(nx.from_scipy_sparse_array(DIRECTED, create_using=nx.DiGraph))
    assert got.tolist() == [want[v] for v in range(4)]


def _undirected(A):
    S = sp.csr_array(A + A.T)
    S.setdiag(0)
    S.eliminate_zeros()
    return S


@given(graphs(max_n=20, max_m=80), st.data())
def test_symmetric_inputs_match_networkx(A, data):
    """The checks refuse nothing NetworkX answers: symmetric inputs give NetworkX's
    core numbers, label propagation communities, modularity and link predictions."""
    S = _undirected(A)
    n = S.shape[0]
    G = nx.from_scipy_sparse_array(S)
    cores = nx.core_number(G)
    assert spbfs.core_number(S).tolist() == [cores[v] for v in range(n)]
    labels = spbfs.label_propagation(S)
    groups = {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)}
    assert groups == {frozenset(c) for c in nx.community.label_propagation_communities(G)}
    part = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int64)
    if S.nnz:
        communities = [set(np.flatnonzero(part == c).tolist()) for c in np.unique(part)]
        expected = nx.community.modularity(G, communities)
        assert spbfs.modularity(S, part) == pytest.approx(expected, abs=1e-12)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               max_size=6))
    u = np.array([a for a, _ in pairs], np.int64)
    v = np.array([b for _, b in pairs], np.int64)
    expected = [p for _, _, p in nx.jaccard_coefficient(G, pairs)]
    np.testing.assert_allclose(spbfs.jaccard_coefficient(S, u, v), expected)
    expected = [p for _, _, p in nx.resource_allocation_index(G, pairs)]
    np.testing.assert_allclose(spbfs.resource_allocation_index(S, u, v), expected)


@pytest.mark.parametrize("scale", [1.0, 1e-12, 1e-20, 1e200, 5e-324])
def test_louvain_and_modularity_are_scale_free(scale):
    """Tiny weights moved no vertex (the moves' margin is in weight units) and huge ones
    overflowed the squared degrees (found by a fuzz): both scale as NetworkX's do."""
    A = sp.csr_array(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3))) * scale
    labels = spbfs.louvain(A, seed=1)
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    H = nx.from_scipy_sparse_array(A)
    assert spbfs.modularity(A, labels) == pytest.approx(
        nx.community.modularity(H, [{0, 1, 2}, {3, 4, 5}]) if 1e-300 < scale < 1e100 else 0.5)


def _merge_gain(A, labels):
    """The most the modularity of ``labels`` gains by merging two of its communities."""
    q, top = spbfs.modularity(A, labels), int(labels.max()) + 1
    return max((spbfs.modularity(A, np.where(labels == j, i, labels)) - q
                for i in range(top) for j in range(top) if i != j), default=0.0)


@pytest.mark.parametrize("device", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def test_louvain_ends_where_no_merge_of_two_communities_gains(device):
    """Two vertices of a colour class that join one community (or leave one) together gain
    less than their gains apart: a level's sweep that moved both lowered the modularity,
    was undone, and ended the run short of a local optimum (0.0816 on this graph with seed
    2, where merging two of its three communities gives NetworkX's 0.1224; on 900 random
    graphs of up to 40 vertices, 20 results could gain so).  The class's first proposer
    into a community and out of one moves; the others only where their gain covers the
    others' claims."""
    from conftest import on_device

    edges = np.array([(0, 1), (0, 2), (0, 5), (1, 4), (1, 5), (2, 3), (2, 5)]).T
    A = sp.csr_array((np.ones(14), (np.r_[edges[0], edges[1]], np.r_[edges[1], edges[0]])),
                     shape=(6, 6))
    labels = np.asarray(spbfs.louvain(on_device(device, A), seed=2).tolist())
    assert spbfs.modularity(A, labels) == pytest.approx(0.1224, abs=1e-4)
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(4, 30))
        r, c = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
        B = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
        B = sp.csr_array(((B + B.T - sp.diags_array(B.diagonal())) > 0).astype(float))
        for seed in range(3):
            labels = np.asarray(spbfs.louvain(on_device(device, B), seed=seed).tolist())
            assert _merge_gain(B, labels) <= 1e-7


def test_float32_symmetry_to_its_own_rounding():
    """float32 duplicates of (0, 1) and (1, 0) stored in another order sum to values a
    rounding step apart: symmetric to float32's rounding (found by a fuzz: refused)."""
    vals = np.array([0.16527635, 8.132703, 9.127556], np.float32)
    data = np.r_[vals, vals[::-1], np.ones(4, np.float32)]
    A = sp.coo_array((data, ([0, 0, 0, 1, 1, 1, 2, 3, 2, 3], [1, 1, 1, 0, 0, 0, 3, 2, 3, 2])),
                     shape=(4, 4))
    assert spbfs.louvain(A, seed=0).tolist() == spbfs.louvain(A.astype(np.float64),
                                                              seed=0).tolist()
    assert spbfs.modularity(A, np.array([0, 0, 1, 1])) == pytest.approx(
        spbfs.modularity(A.astype(np.float64), np.array([0, 0, 1, 1])), rel=1e-6)
    with pytest.raises(ValueError, match="values differ"):   # a real difference still counts
        spbfs.modularity(sp.csr_array(np.array([[0, 1, 0], [1.001, 0, 0], [0, 0, 0]],
                                               np.float32)), np.array([0, 0, 1]))


def test_community_and_truss_arguments_named():
    """Bad arguments raise errors naming them (found by a fuzz: an IndexError, a 7 TiB
    allocation, a float() message, numpy's seed message, a silent NaN, a directed
    matrix's degrees read as undirected)."""
    S = sp.csr_array(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], float))
    for labels in ([0, 0], [0, 0, 1, 1]):
        with pytest.raises(ValueError, match="labels"):
            spbfs.modularity(S, np.array(labels))
    with pytest.raises(TypeError, match="labels"):
        spbfs.modularity(S, np.array([0, 1, 2.5]))
    # any integers name communities
    assert spbfs.modularity(S, np.array([10**12, 0, 0])) == pytest.approx(
        spbfs.modularity(S, np.array([1, 0, 0])))
    assert spbfs.modularity(S, np.array([-1, 0, 0])) == pytest.approx(
        spbfs.modularity(S, np.array([1, 0, 0])))
    for k in ("3", None):
        with pytest.raises(TypeError, match="k must be"):
            spbfs.k_truss(S, k)
    with pytest.raises(ValueError, match="seed"):
        spbfs.louvain(S, seed=-1)
    with pytest.raises(ValueError, match="resolution"):
        spbfs.louvain(S, resolution=float("nan"))
    with pytest.raises(TypeError, match="beta"):
        spbfs.katz_centrality(S, beta={0: 1})
    with pytest.raises(ValueError, match="symmetric"):
        spbfs.degrees(sp.csr_array(np.roll(np.eye(3), 1, axis=1)), directed=False)
