"""The backend's centrality, clustering, core, DAG and link-prediction entries against
NetworkX: same keys in the same order, same value types, values equal to rounding."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from test_nx_backend import DEVICES, nx_graphs, outcome  # noqa: E402

import spbfs  # noqa: E402

pytestmark = [
    pytest.mark.skipif("spbfs" not in nx.utils.backends.backends,
                       reason="spbfs is not installed with its networkx.backends entry point"),
    pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning"),
]


def close(a, b, tol=1e-9):
    """Equal structure, keys, order and types; floats within ``tol`` (relative)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(
            close(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(close(a[k], b[k], tol) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol * max(1.0, abs(a))
    return type(a) is type(b) and a == b


def similar(func, tol=1e-9):
    expected = outcome(lambda: func(None))
    got = outcome(lambda: func("spbfs"))
    if expected[0] == "error":
        assert got[:2] == expected[:2]
    else:
        assert got[0] == "ok", got
        assert close(expected[1], got[1], tol), (expected, got)


@st.composite
def simple_graphs(draw, directed=None, loops=True):
    """Graph or DiGraph with int weights 1..3 on every edge."""
    G = draw(nx_graphs(weights=("int",)))
    directed = G.is_directed() if directed is None else directed
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from((u, v, {"weight": d.get("weight", 0) + 1}) for u, v, d in G.edges(data=True)
                     if loops or u != v)
    return H


@DEVICES
@given(G=simple_graphs(), data=st.data())
def test_centralities_match_networkx(device, G, data):
    nodes = list(G)
    k = data.draw(st.integers(1, len(nodes)))
    pers = {v: 1.0 + i for i, v in enumerate(nodes[::2])}
    with nx.config.backends.spbfs(device=device):
        # where no edge enters a dangling vertex (isolated nodes) spbfs takes the normalised
        # system's step: both answers within what NetworkX's rule promises of the exact ranks
        # (alpha / (1 - alpha) * n * tol, twice that for spbfs's), not the same iterates
        similar(lambda b: nx.pagerank(G, backend=b), 20 * len(G) * 1e-6)
        similar(lambda b: nx.pagerank(G, personalization=pers, nstart=pers, dangling=pers,
                                      weight=None, backend=b))
        similar(lambda b: nx.betweenness_centrality(G, backend=b))
        similar(lambda b: nx.betweenness_centrality(G, k=k, seed=1, endpoints=True, backend=b))
        similar(lambda b: nx.betweenness_centrality(G, normalized=False, k=k, seed=2,
                                                    backend=b))
        similar(lambda b: nx.edge_betweenness_centrality(G, backend=b))
        similar(lambda b: nx.edge_betweenness_centrality(G, k=k, seed=3, normalized=False,
                                                         backend=b))
        similar(lambda b: nx.degree_centrality(G, backend=b))
        similar(lambda b: nx.closeness_centrality(G, backend=b))
        similar(lambda b: nx.closeness_centrality(G, distance="weight", backend=b))
        similar(lambda b: nx.closeness_centrality(G, u=nodes[0], backend=b))
        similar(lambda b: nx.harmonic_centrality(G, backend=b))
        similar(lambda b: nx.harmonic_centrality(G, sources=nodes[:k], distance="weight",
                                                 backend=b))
        similar(lambda b: nx.harmonic_centrality(G, nbunch=nodes[:k], backend=b))
        similar(lambda b: nx.katz_centrality(G, alpha=0.05, backend=b))
        similar(lambda b: nx.katz_centrality(G, alpha=0.02, weight="weight",
                                             normalized=False, backend=b))
        similar(lambda b: nx.eigenvector_centrality(G, max_iter=500, backend=b), 1e-6)
        similar(lambda b: nx.clustering(G, backend=b))
        similar(lambda b: nx.average_clustering(G, backend=b))
        similar(lambda b: nx.core_number(G, backend=b))
        similar(lambda b: list(nx.isolates(G, backend=b)))
        similar(lambda b: nx.number_of_isolates(G, backend=b))


@DEVICES
@given(G=simple_graphs(directed=True), data=st.data())
def test_directed_structure_matches_networkx(device, G, data):
    nodes = list(G)
    some = data.draw(st.lists(st.sampled_from(nodes), max_size=4))
    with nx.config.backends.spbfs(device=device):
        similar(lambda b: nx.in_degree_centrality(G, backend=b))
        similar(lambda b: nx.out_degree_centrality(G, backend=b))
        similar(lambda b: nx.reciprocity(G, backend=b))
        similar(lambda b: nx.reciprocity(G, some, backend=b))
        similar(lambda b: nx.reciprocity(G, nodes[0], backend=b))
        similar(lambda b: nx.is_directed_acyclic_graph(G, backend=b))
        similar(lambda b: list(nx.topological_generations(G, backend=b)))
        D = nx.DiGraph((u, v) for u, v in G.edges if nodes.index(u) < nodes.index(v))
        D.add_nodes_from(nodes)
        similar(lambda b: list(nx.topological_generations(D, backend=b)))


@DEVICES
@given(G=simple_graphs(directed=False), data=st.data())
def test_undirected_structure_matches_networkx(device, G, data):
    nodes = list(G)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)),
                               max_size=6))
    with nx.config.backends.spbfs(device=device):
        similar(lambda b: nx.triangles(G, backend=b))
        similar(lambda b: nx.triangles(G, nodes[0], backend=b))
        similar(lambda b: nx.transitivity(G, backend=b))
        similar(lambda b: nx.square_clustering(G, backend=b))
        similar(lambda b: nx.node_connected_component(G, nodes[0], backend=b))
        similar(lambda b: list(nx.jaccard_coefficient(G, backend=b)))
        similar(lambda b: list(nx.jaccard_coefficient(G, pairs, backend=b)))
        similar(lambda b: list(nx.adamic_adar_index(G, pairs, backend=b)))
        similar(lambda b: list(nx.resource_allocation_index(G, backend=b)))
        distinct = [(a, c) for a, c in pairs if a != c]
        similar(lambda b: list(nx.common_neighbor_centrality(G, distinct, backend=b)))
        similar(lambda b: list(nx.common_neighbor_centrality(G, alpha=1, backend=b)))
        similar(lambda b: [repr(e) for e in nx.k_truss(G, 3, backend=b).edges(data=True)])


def test_hits_matches_networkx_on_a_non_degenerate_graph():
    G = nx.DiGraph([(0, 1), (0, 2), (1, 2), (2, 3), (3, 0), (1, 3), (3, 4)])
    similar(lambda b: nx.hits(G, backend=b), 1e-6)


def test_link_prediction_checks_nodes_at_once():
    G = nx.path_graph(3)
    with pytest.raises(nx.NodeNotFound):
        nx.jaccard_coefficient(G, [(0, 9)], backend="spbfs")


@pytest.mark.parametrize("name", ["pagerank", "clustering", "degree_centrality",
                                  "eigenvector_centrality", "katz_centrality"])
def test_multigraphs_run_in_networkx(name):
    from spbfs.nx import backend_interface

    reason = backend_interface.can_run(name, (nx.MultiGraph([(0, 1), (0, 1)]),), {})
    assert isinstance(reason, str) and "multigraph" in reason


def test_weighted_clustering_and_betweenness_decline():
    from spbfs.nx import backend_interface

    G = nx.path_graph(3)
    for name in ("clustering", "betweenness_centrality"):
        reason = backend_interface.can_run(name, (G,), {"weight": "weight"})
        assert isinstance(reason, str) and "weight" in reason


# ------------------------------------------------------------- spbfs's own functions


def _random_matrix(n, m, seed, symmetric=False):
    rng = np.random.default_rng(seed)
    A = sp.random_array((n, n), density=m / n / n, random_state=rng, format="csr")
    A.data[:] = 1.0
    A.setdiag(0)
    A.eliminate_zeros()
    return (A + A.T).tocsr() if symmetric else A


@pytest.mark.parametrize("device", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def test_public_functions_match_networkx_on_matrices(device):
    from conftest import on_device, to_host

    A = _random_matrix(60, 240, 1, symmetric=True)
    D = _random_matrix(60, 200, 2)
    G = nx.from_scipy_sparse_array(A)
    DG = nx.from_scipy_sparse_array(D, create_using=nx.DiGraph)
    Ad, Dd = on_device(device, A), on_device(device, D)

    def as_array(d):
        return np.array([d[i] for i in range(60)], dtype=float)

    np.testing.assert_allclose(to_host(spbfs.clustering(Ad)), as_array(nx.clustering(G)))
    np.testing.assert_allclose(to_host(spbfs.square_clustering(Ad)),
                               as_array(nx.square_clustering(G)))
    assert spbfs.transitivity(Ad) == pytest.approx(nx.transitivity(G))
    np.testing.assert_array_equal(to_host(spbfs.core_number(Ad)), as_array(nx.core_number(G)))
    np.testing.assert_allclose(to_host(spbfs.katz_centrality(Dd)),
                               as_array(nx.katz_centrality(DG)), rtol=1e-6)
    np.testing.assert_allclose(to_host(spbfs.degree_centrality(Dd)),
                               as_array(nx.degree_centrality(DG)))
    np.testing.assert_allclose(spbfs.closeness_centrality(Dd),
                               as_array(nx.closeness_centrality(DG)))
    np.testing.assert_allclose(spbfs.harmonic_centrality(Dd),
                               as_array(nx.harmonic_centrality(DG)))
    gen = to_host(spbfs.topological_generations(Dd))
    assert spbfs.is_directed_acyclic_graph(Dd) == nx.is_directed_acyclic_graph(DG)
    assert (gen >= 0).all() == nx.is_directed_acyclic_graph(DG)
    u, v = np.arange(0, 30), np.arange(30, 60)
    pairs = list(zip(u.tolist(), v.tolist(), strict=True))
    expected = [p for _, _, p in nx.jaccard_coefficient(G, pairs)]
    np.testing.assert_allclose(to_host(spbfs.jaccard_coefficient(Ad, u, v)), expected)


@pytest.mark.parametrize("call,error", [
    (lambda: spbfs.degrees(sp.eye(3, format="csr"), kind="sideways"), ValueError),
    (lambda: spbfs.core_number(sp.eye(3, format="csr")), ValueError),
    (lambda: spbfs.jaccard_coefficient(sp.eye(3, format="csr"), [0], [5]), ValueError),
    (lambda: spbfs.eigenvector_centrality(sp.eye(3, format="csr"), max_iter=1.5), TypeError),
    (lambda: spbfs.harmonic_centrality(sp.eye(3, format="csr"), sources=[7]), ValueError),
])
def test_bad_arguments_raise_clear_errors(call, error):
    with pytest.raises(error):
        call()


def test_guide_lists_every_dispatched_function_and_the_known_differences():
    from pathlib import Path

    from spbfs.nx import FUNCTIONS, KNOWN_DIFFERENCES

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()
    section = guide[guide.index("## NetworkX backend"):guide.index("## Graph500")]
    missing = [name for name in FUNCTIONS if f"`{name}`" not in section]
    assert not missing, f"docs/guide.md does not list {missing}"
    assert f"{len(FUNCTIONS)} functions are dispatched" in section
    for test in KNOWN_DIFFERENCES:
        assert f"`{test}`" in section


COMMUNITY_GRAPHS = {
    "karate": lambda: nx.karate_club_graph(),
    "planted": lambda: nx.planted_partition_graph(20, 30, 0.3, 0.01, seed=1),
    "powerlaw": lambda: nx.powerlaw_cluster_graph(2000, 4, 0.3, seed=2),
    "watts_strogatz": lambda: nx.connected_watts_strogatz_graph(3000, 10, 0.05, seed=3),
}


def _greedy_classes(G, priority):
    """NetworkX's sequential greedy colouring, vertices by decreasing ``priority``, as
    sorted vertex lists per colour."""
    order = sorted(G, key=lambda v: -priority[v])
    colours = nx.greedy_color(G, strategy=lambda graph, _: order)
    classes = [[] for _ in range(max(colours.values(), default=-1) + 1)]
    for v in sorted(colours):
        classes[colours[v]].append(v)
    return classes


@pytest.mark.parametrize("device", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
@given(n=st.integers(1, 60), p=st.floats(0.0, 1.0), clique=st.booleans(),
       seed=st.integers(0, 2**31 - 1))
def test_color_classes_are_the_greedy_colouring(device, n, p, clique, seed):
    """Jones and Plassmann's rounds give the sequential greedy colouring in priority order,
    class for class; a 70-clique needs colours past the first 64-bit word."""
    from conftest import on_device, to_host

    from spbfs.algorithms.communities import color_classes

    G = nx.complete_graph(70) if clique else nx.gnp_random_graph(n, p, seed=seed)
    G.add_edges_from([(0, 0)] if len(G) else [])  # self-loops are ignored
    priority = np.random.default_rng(seed).permutation(len(G))
    A = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr", dtype=np.float64)
    got = [to_host(c).tolist() for c in color_classes(on_device(device, A), priority=priority)]
    assert got == _greedy_classes(G, priority)


@pytest.mark.parametrize("name", sorted(COMMUNITY_GRAPHS))
def test_label_propagation_is_networkx_partition(name):
    G = COMMUNITY_GRAPHS[name]()
    expected = list(nx.community.label_propagation_communities(G))
    got = nx.community.label_propagation_communities(G, backend="spbfs")
    assert type(got) is type(nx.community.label_propagation_communities(G))
    assert list(got) == expected


@DEVICES
@given(n=st.integers(1, 80), p=st.floats(0.0, 0.3), loops=st.sampled_from(["none", "some",
       "all"]), seed=st.integers(0, 2**31 - 1))
def test_label_propagation_matches_networkx_on_random_graphs(device, n, p, loops, seed):
    """Sweeps look only at vertices whose neighbours changed label since their last look
    (a self-loop makes a vertex its own neighbour), and the vertex ids are taken as the
    answer at once when every vertex with neighbours has a self-loop: NetworkX's
    partition either way (on a GPU, these small graphs too)."""
    from unittest import mock

    import spbfs.nx._communities as communities

    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed)
    if loops != "none":
        G.add_edges_from((v, v) for v in G if loops == "all" or rng.random() < 0.3)
    with (nx.config.backends.spbfs(device=device),
          mock.patch.object(communities, "LPA_GPU_MIN_ENTRIES", 0)):
        got = list(nx.community.label_propagation_communities(G, backend="spbfs"))
    assert got == list(nx.community.label_propagation_communities(G))


@pytest.mark.gpu
@pytest.mark.parametrize("gpu_min_entries", [0, None])
def test_communities_on_the_gpu_or_its_host_copy(monkeypatch, gpu_min_entries):
    """With the GPU configured, a graph under ``CLASS_STEPS_GPU_MIN_ENTRIES`` (label
    propagation: ``LPA_GPU_MIN_ENTRIES``) runs on the host copy (None: the default
    thresholds), one over it on the GPU (0): NetworkX's label propagation partition, and
    Louvain's modularity within 1 % of NetworkX's, both ways."""
    import spbfs.nx._communities as communities

    if gpu_min_entries is not None:
        monkeypatch.setattr(communities, "CLASS_STEPS_GPU_MIN_ENTRIES", gpu_min_entries)
        monkeypatch.setattr(communities, "LPA_GPU_MIN_ENTRIES", gpu_min_entries)
    G = COMMUNITY_GRAPHS["powerlaw"]()
    with nx.config.backends.spbfs(device="gpu"):
        got = list(nx.community.label_propagation_communities(G, backend="spbfs"))
        parts = nx.community.louvain_communities(G, seed=1, backend="spbfs")
    assert got == list(nx.community.label_propagation_communities(G))
    expected = nx.community.modularity(G, nx.community.louvain_communities(G, seed=1))
    assert nx.community.modularity(G, parts) >= 0.99 * expected


@pytest.mark.gpu
@pytest.mark.parametrize("gpu_min_entries", [0, None])
def test_core_numbers_on_the_gpu_or_its_host_copy(monkeypatch, gpu_min_entries):
    """With the GPU configured, a graph under ``PEELING_GPU_MIN_ENTRIES`` peels on the host
    copy (None: the default threshold), one over it on the GPU (0): NetworkX's core numbers
    and k-core both ways."""
    import spbfs.nx._structure as structure

    if gpu_min_entries is not None:
        monkeypatch.setattr(structure, "PEELING_GPU_MIN_ENTRIES", gpu_min_entries)
    G = COMMUNITY_GRAPHS["powerlaw"]()
    with nx.config.backends.spbfs(device="gpu"):
        got = nx.core_number(G, backend="spbfs")
        core = nx.k_core(G, backend="spbfs")
    assert list(got.items()) == list(nx.core_number(G).items())
    assert list(core.edges) == list(nx.k_core(G).edges)


@pytest.mark.gpu
def test_layout_and_lowest_common_ancestors_on_the_gpu():
    """With the GPU configured: the lowest common ancestors exactly NetworkX's (pairs, order
    and picks), and ForceAtlas2's positions NetworkX's to rounding for a few iterations
    (the GPU's sums run in another order, which later iterations amplify)."""
    D = nx.gnp_random_graph(80, 0.08, seed=3, directed=True)
    dag = nx.DiGraph([(u, v) for u, v in D.edges if u < v])
    dag.add_nodes_from(range(80))
    tree = nx.bfs_tree(nx.random_labeled_tree(60, seed=4), 0)
    G = nx.karate_club_graph()
    with nx.config.backends.spbfs(device="gpu"):
        lcas = list(nx.all_pairs_lowest_common_ancestor(dag, backend="spbfs"))
        tree_lcas = list(nx.tree_all_pairs_lowest_common_ancestor(tree, backend="spbfs"))
        pos = nx.forceatlas2_layout(G, seed=1, max_iter=5, backend="spbfs")
    assert lcas == list(nx.all_pairs_lowest_common_ancestor(dag))
    assert tree_lcas == list(nx.tree_all_pairs_lowest_common_ancestor(tree))
    want = nx.forceatlas2_layout(G, seed=1, max_iter=5)
    assert list(pos) == list(want)
    np.testing.assert_allclose(np.array(list(pos.values())), np.array(list(want.values())),
                               rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("name", sorted(COMMUNITY_GRAPHS))
def test_louvain_modularity_against_networkx(name):
    """Both are heuristics whose result turns on the seed: over eight seeds the mean
    modularity is within 0.5 % of NetworkX's, and no seed's more than 2 % below
    NetworkX's with that seed (on ``powerlaw``, 40 seeds: 2 below 1 %, the lowest 0.8 %
    below the mean)."""
    G = COMMUNITY_GRAPHS[name]()
    modularity = nx.community.modularity
    ours, theirs = [], []
    for seed in range(8):
        got = nx.community.louvain_communities(G, seed=seed, backend="spbfs")
        assert sorted(map(len, got)) and set().union(*got) == set(G)
        assert sum(map(len, got)) == len(G)
        ours.append(modularity(G, got))
        theirs.append(modularity(G, nx.community.louvain_communities(G, seed=seed)))
    assert np.mean(ours) >= 0.995 * np.mean(theirs)
    assert min(np.subtract(ours, 0.98 * np.array(theirs))) >= 0


def test_louvain_weights_and_resolution():
    G = nx.karate_club_graph()
    for kwargs in ({"weight": None}, {"resolution": 0.5}, {"resolution": 2.0}, {"max_level": 1}):
        r = kwargs.get("resolution", 1)
        expected = nx.community.modularity(
            G, nx.community.louvain_communities(G, seed=3, **kwargs), resolution=r)
        got = nx.community.louvain_communities(G, seed=3, backend="spbfs", **kwargs)
        assert nx.community.modularity(G, got, resolution=r) >= 0.99 * expected - 1e-9


@pytest.mark.parametrize("device", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def test_modularity_matches_networkx(device):
    from conftest import on_device

    G = nx.planted_partition_graph(5, 10, 0.5, 0.05, seed=4)
    A = nx.to_scipy_sparse_array(G, nodelist=range(50))
    labels = np.arange(50) // 10
    expected = nx.community.modularity(G, [set(range(i, i + 10)) for i in range(0, 50, 10)])
    assert spbfs.modularity(on_device(device, A), labels) == pytest.approx(expected)
    assert spbfs.modularity(on_device(device, A), spbfs.louvain(on_device(device, A), seed=1)) \
        >= 0.99 * expected


def test_should_run_leaves_local_questions_to_networkx_until_converted():
    from spbfs.nx import backend_interface

    G = nx.path_graph(20)
    with nx.config.backends.spbfs(min_nodes=10):
        reason = backend_interface.should_run("has_path", (G, 0, 5), {})
        assert isinstance(reason, str) and "neighbourhoods" in reason
        assert backend_interface.should_run("pagerank", (G,), {}) is True
        nx.pagerank(G, backend="spbfs")  # caches a conversion in G.__networkx_cache__
        assert backend_interface.should_run("has_path", (G, 0, 5), {}) is True
        G.add_edge(0, 30)  # clears the cache
        assert backend_interface.should_run("has_path", (G, 0, 5), {}) is not True


def test_should_run_local_depends_on_the_arguments():
    from spbfs.nx import backend_interface

    G = nx.path_graph(20)
    with nx.config.backends.spbfs(min_nodes=10):
        assert backend_interface.should_run("shortest_path", (G,), {"source": 0}) is True
        assert backend_interface.should_run("shortest_path", (G, 0, 3), {}) is not True
        assert backend_interface.should_run("closeness_centrality", (G,), {}) is True
        assert backend_interface.should_run("closeness_centrality", (G, 3), {}) is not True
