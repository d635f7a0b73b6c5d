"""Edge cases where the backend answered otherwise than NetworkX (found by a fuzz of every
dispatched function against NetworkX on small graphs): each call is compared with NetworkX's
own answer or error."""

import networkx as nx
import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _answer(func, *args, backend, **kwargs):
    """``func``'s result (generators consumed, graphs as their nodes and edges) or the type
    of its exception."""
    try:
        out = func(*args, backend=backend, **kwargs)
    except Exception as err:  # noqa: BLE001 - the exception's type is the answer
        return type(err)
    if isinstance(out, nx.Graph):
        return sorted(map(repr, out.nodes(data=True))), sorted(map(repr, out.edges(data=True)))
    if hasattr(out, "toarray"):  # a sparse matrix: as its dense form
        out = out.toarray()
    if hasattr(out, "tolist"):  # a matrix: NaN where NaN
        return repr(out.tolist()), type(out)
    if not isinstance(out, (int, float, dict, list, set, tuple)):
        out = list(out)
    return out, type(out)


def _networkx_answer(func, *args, **kwargs):
    """NetworkX's own answer with no backend given priority: its functions call other
    dispatched ones, which a priority would send to spbfs."""
    priority = nx.config.backend_priority
    saved = priority.algos, priority.generators
    priority.algos = priority.generators = []
    try:
        return _answer(func, *args, backend="networkx", **kwargs)
    finally:
        priority.algos, priority.generators = saved


@pytest.fixture
def automatic():
    """Calls dispatched to spbfs first, as a user's configuration makes them (NetworkX runs
    what spbfs declines)."""
    config = nx.config
    saved = (list(config.backend_priority.algos), config.backends.spbfs.min_nodes)
    config.backend_priority.algos = ["spbfs"]
    config.backends.spbfs.min_nodes = 0
    yield
    config.backend_priority.algos, config.backends.spbfs.min_nodes = saved


def test_declined_weights_fall_back_before_a_generator_starts(automatic):
    """All-pairs generators check their weights when called: weights spbfs declines (here
    ints and floats mixed) run in NetworkX, NetworkX's own callers included."""
    G = nx.Graph([(0, 1, {"weight": 1.5}), (1, 2, {"weight": 2})])
    want = {0: {0: 0, 1: 1.5, 2: 3.5}, 1: {1: 0, 0: 1.5, 2: 2}, 2: {2: 0, 1: 2, 0: 3.5}}
    assert dict(nx.all_pairs_dijkstra_path_length(G)) == want
    assert dict(nx.all_pairs_bellman_ford_path_length(G)) == want
    assert dict(nx.shortest_path_length(G, weight="weight", backend="networkx")) == want
    assert len(dict(nx.all_pairs_dijkstra(G))) == len(dict(nx.all_pairs_dijkstra_path(G))) == 3
    with pytest.raises(NotImplementedError):  # NetworkX has no Leiden of its own: the call
        nx.community.leiden_partitions(G, seed=1)  # itself says so, not its first item


def test_declined_weights_leave_iterator_arguments_unread(automatic):
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, {(0, 1): 2.5, (1, 2): 1, (2, 3): 1}, "weight")
    plain = nx.harmonic_centrality(G, nbunch=[0, 3], distance="weight", backend="networkx")
    assert nx.harmonic_centrality(G, nbunch=iter([0, 3]), distance="weight") == plain
    plain = nx.harmonic_centrality(G, sources=[0, 3], distance="weight", backend="networkx")
    assert nx.harmonic_centrality(G, sources=iter([0, 3]), distance="weight") == plain


@pytest.mark.parametrize("edges", [[(0, 1), (1, 2), (2, 0)], [(0, 1), (1, 0)], [(0, 0), (0, 1)]])
def test_tree_lca_with_a_cycle_through_the_root(edges, automatic):
    """Every node below the root has one predecessor, but an arc leads back to the root:
    not a tree (it looped for ever on a 3-cycle)."""
    G = nx.DiGraph(edges)
    got = list(nx.tree_all_pairs_lowest_common_ancestor(G, root=0))
    assert got == list(nx.tree_all_pairs_lowest_common_ancestor(G, root=0, backend="networkx"))


def _views():
    G = nx.Graph([(0, 1, {"w": 1}), (1, 2, {"w": 2}), (2, 0)])
    D = nx.DiGraph([(0, 1, {"w": 1}), (1, 2, {"w": 2}), (2, 0)])
    return [G.subgraph([0, 1]), G.edge_subgraph([(0, 1), (1, 2)]), D.to_undirected(as_view=True)]


@pytest.mark.parametrize("view", _views(), ids=["subgraph", "edge_subgraph", "undirected"])
@pytest.mark.parametrize("func, args, kwargs", [
    (nx.k_core, (), {}), (nx.k_shell, (), {}), (nx.k_crust, (), {}), (nx.k_truss, (2,), {}),
    (nx.ego_graph, (0,), {}), (nx.compose, (nx.Graph([(5, 6)]),), {}),
    (nx.union, (nx.Graph([(5, 6)]),), {}), (nx.full_join, (nx.Graph([(5, 6)]),), {}),
    (nx.disjoint_union, (nx.Graph([(5, 6)]),), {}), (nx.edge_boundary, ([0],), {"data": True}),
], ids=lambda x: getattr(x, "__name__", None))
def test_graph_views(view, func, args, kwargs):
    """A view's rows are mappings, not dicts: the attribute dicts are read through them."""
    assert _answer(func, view, *args, backend="spbfs", **kwargs) == _answer(
        func, view, *args, backend="networkx", **kwargs)


def _views_of_larger_graphs():
    """Views whose nodes NetworkX's subgraph lists by the graph under them (its size and
    order), and an undirected view whose edge has two arcs' dicts (NetworkX's copy merges
    them, the later one's values winning)."""
    G = nx.Graph()
    G.add_nodes_from([1, 5, 2, 0])
    G.add_edges_from([(4, 7, {"w": 1}), (7, 3, {"w": 2})])
    D = nx.DiGraph([(0, 1, {"color": "r", "w": 0.5}), (1, 0, {"color": "g", "w": 2.0}),
                    (1, 2, {"w": 1.0})])
    return [G.subgraph([1, 5, 0, 4, 7, 3]), nx.restricted_view(G, [2], []),
            G.edge_subgraph([(4, 7), (7, 3)]), D.to_undirected(as_view=True)]


@pytest.mark.parametrize("view", _views_of_larger_graphs(),
                         ids=["subgraph", "restricted", "edge_subgraph", "undirected_two_arcs"])
@pytest.mark.parametrize("func, args", [
    (nx.k_core, ()), (nx.k_shell, ()), (nx.k_crust, ()), (nx.k_truss, (2,)),
    (nx.ego_graph, (7,)), (nx.ego_graph, (1,)),
], ids=lambda x: getattr(x, "__name__", None))
def test_subgraph_copies_of_views_in_networkx_order(view, func, args):
    """Nodes in NetworkX's order and each edge's attributes as its copy leaves them (found
    by a fuzz: a view's copy listed the nodes by the view's size, and took one arc's dict)."""
    if args and args[0] not in view:
        args = (next(iter(view)),)

    def copied(backend):
        try:
            H = func(view, *args, backend=backend)
        except Exception as err:  # noqa: BLE001 - the exception's type is the answer
            return type(err)
        return list(H.nodes(data=True)), list(H.edges(data=True))

    assert copied("spbfs") == copied("networkx")


@pytest.mark.parametrize("func", [nx.overall_reciprocity, nx.reciprocity])
def test_reciprocity_counts_a_multigraph_s_parallel_edges(func, automatic):
    M = nx.MultiDiGraph([(0, 1), (0, 1), (1, 0)])
    assert func(M) == _networkx_answer(func, M)[0] == pytest.approx(2 / 3)


@pytest.mark.parametrize("weight", [1e308, 1.7e308, 5e307, 1e-308, 1e-310, 5e-324])
@pytest.mark.parametrize("directed", [False, True])
def test_dijkstra_with_weights_near_the_float_limits(weight, directed, automatic):
    """Bucket widths that overflowed or went subnormal raised; a length that overflows is
    NetworkX's inf, its node kept (such weights run in NetworkX)."""
    G = (nx.DiGraph if directed else nx.Graph)()
    G.add_edge(0, 1, weight=weight)
    G.add_edge(1, 2, weight=weight)
    for func, args in [(nx.single_source_dijkstra_path_length, (0,)),
                       (nx.single_source_dijkstra, (0,)), (nx.dijkstra_path, (0, 2)),
                       (nx.shortest_path_length, (0,))]:
        kwargs = {"weight": "weight"}
        assert _answer(func, G, *args, backend=None, **kwargs) == _networkx_answer(
            func, G, *args, **kwargs)


@pytest.mark.parametrize("weights", [[-1, 1], [-1], [-1, 3, -5, 2], [0.5, -0.5, 2.0]])
@pytest.mark.parametrize("directed", [False, True])
def test_normalized_laplacian_with_negative_degrees(weights, directed):
    """A negative degree's scale is NaN; scipy's products hold no term where ``L`` or the
    other scale is 0, so those entries are 0, not NaN."""
    edges = [(0, 1), (1, 2), (2, 0), (2, 2)][:len(weights)] if len(weights) > 1 else [(0, 0)]
    G = (nx.DiGraph if directed else nx.Graph)()
    G.add_weighted_edges_from((u, v, w) for (u, v), w in zip(edges, weights, strict=True))
    got = nx.normalized_laplacian_matrix(G, backend="spbfs").toarray()
    want = nx.normalized_laplacian_matrix(G, backend="networkx").toarray()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("weight, dtype", [
    (1e16, "int8"), (1.7e308, "int64"), (300, "int8"), (2.7, "int8"), (-1.5, "uint8"),
    (-1, "uint8"), (2**40, "int32"), (-2.5, "int16"), (2**63 - 1, "int64"), (-1, "uint64"),
])
@pytest.mark.parametrize("func", [nx.adjacency_matrix, nx.to_scipy_sparse_array,
                                  nx.to_numpy_array])
def test_integer_dtypes_raise_for_weights_outside_them(func, weight, dtype):
    """NumPy's conversion of NetworkX's list raises for a weight outside the dtype (it was
    wrapped silently: 1e16 as int8 gave 0) and truncates one inside it."""
    G = nx.Graph([(0, 1, {"weight": weight}), (1, 2, {"weight": type(weight)(3)})])
    assert _answer(func, G, dtype=dtype, backend="spbfs") == _networkx_answer(
        func, G, dtype=dtype)


@pytest.mark.parametrize("nonedge", [np.inf, -np.inf, np.nan])
def test_to_numpy_array_fills_an_integer_dtype_as_numpy_full(nonedge):
    """NetworkX fills by ``numpy.full``, which casts a non-finite nonedge value into an
    integer dtype without raising (it raised here)."""
    G = nx.Graph([(0, 1), (1, 2)])
    with np.errstate(invalid="ignore"):
        got = nx.to_numpy_array(G, dtype="int64", nonedge=nonedge, backend="spbfs")
        want = nx.to_numpy_array(G, dtype="int64", nonedge=nonedge, backend="networkx")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("func, args, kwargs", [
    (nx.overall_reciprocity, (nx.Graph([(0, 1)]),), {}),
    (nx.reciprocity, (nx.Graph([(0, 1)]),), {}),
    (nx.reciprocity, (nx.DiGraph([(0, 1)]), 999), {}),
    (nx.triangles, (nx.path_graph(3), 999), {}),
    (nx.clustering, (nx.path_graph(3), 999), {}),
    (nx.square_clustering, (nx.path_graph(3), 999), {}),
    (nx.generalized_degree, (nx.path_graph(3), 999), {}),
    (nx.is_isolate, (nx.path_graph(3), "zz"), {}),
    (nx.is_isolate, (nx.path_graph(3), 999), {}),
    (nx.closeness_centrality, (nx.path_graph(3),), {"u": 999}),
    (nx.union, (nx.Graph([(0, 1)]), nx.MultiGraph()), {}),
    (nx.modularity_matrix, (nx.empty_graph(2),), {}),
    (nx.modularity_matrix, (nx.Graph([(0, 1, {"weight": 0})]),), {"weight": "weight"}),
    (nx.directed_modularity_matrix, (nx.empty_graph(2, create_using=nx.DiGraph),), {}),
    (nx.local_efficiency, (nx.Graph(),), {}),
    (nx.cut_size, (nx.Graph([(0, 1, {"weight": 1.0})]), []), {"weight": "weight"}),
    (nx.cut_size, (nx.DiGraph([(0, 1, {"weight": 0.5})]), [], [1]), {"weight": "weight"}),
    (nx.volume, (nx.Graph([(1, 2, {"weight": 0.5}), (0, 0)]).subgraph([0, 1, 2]), {1}),
     {"weight": "weight"}),
    (nx.triangles, (nx.Graph(), 999), {}),
    (nx.square_clustering, (nx.Graph(), 999), {}),
    (nx.edge_betweenness_centrality, (nx.empty_graph(2),), {"k": 0, "seed": 1}),
    (nx.community.louvain_communities, (nx.Graph([(0, 1, {"weight": 0})]),), {"seed": 1}),
    (nx.community.louvain_communities,
     (nx.Graph([(0, 1, {"weight": 1e300}), (2, 2, {"weight": 0.5})]),),
     {"seed": 1}),
], ids=lambda x: getattr(x, "__name__", None))
def test_answers_and_errors_as_networkx(func, args, kwargs, automatic):
    assert _answer(func, *args, backend=None, **kwargs) == _networkx_answer(
        func, *args, **kwargs)


def test_volume_of_nodes_without_edges_is_an_int():
    G = nx.Graph([(1, 2, {"weight": 0.5})])
    G.add_node(0)
    got = nx.volume(G, {0}, weight="weight", backend="spbfs")
    assert got == 0 and type(got) is int


def test_forceatlas2_distributed_action_without_edges():
    G = nx.empty_graph(2)
    got = nx.forceatlas2_layout(G, seed=1, max_iter=2, distributed_action=True,
                                backend="spbfs")
    assert sorted(got) == [0, 1]


def test_an_edge_filtered_multigraph_view():
    """A filtered multigraph row counts a neighbour whose keys are all hidden, and its
    iteration skips it: the conversion counts what it reads."""
    M = nx.MultiDiGraph([(0, 1, {"weight": 2}), (0, 1, {"weight": 1}), (1, 2), (2, 0)])
    V = M.edge_subgraph([(0, 1, 1), (1, 2, 0)])
    assert list(nx.bfs_edges(V, 0, backend="spbfs")) == list(nx.bfs_edges(V, 0))
    assert nx.dijkstra_path_length(V, 0, 2, backend="spbfs") == nx.dijkstra_path_length(V, 0, 2)
    U = nx.MultiGraph([(0, 1), (1, 2), (2, 0)]).edge_subgraph([(0, 1, 0), (1, 2, 0)])
    assert list(nx.bfs_edges(U, 0, backend="spbfs")) == list(nx.bfs_edges(U, 0))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
@pytest.mark.parametrize("func, kwargs", [
    (nx.to_numpy_array, {"dtype": int}), (nx.adjacency_matrix, {"dtype": int}),
    (nx.to_scipy_sparse_array, {"dtype": int, "format": "coo"}),
    (nx.to_scipy_sparse_array, {"dtype": int, "nodelist": [1, 0]}),
], ids=lambda x: getattr(x, "__name__", None))
def test_an_integer_dtype_with_a_non_finite_weight_raises(func, kwargs, value):
    G = nx.Graph([(0, 1, {"weight": value})])
    want = _answer(func, G, backend="networkx", **kwargs)
    assert _answer(func, G, backend="spbfs", **kwargs) == want and isinstance(want, type)


@pytest.mark.parametrize("nonedge", [-1, 0, 2.5, float("nan")])
def test_to_numpy_array_takes_the_nonedge_values_dtype(nonedge):
    """Without a dtype, NetworkX's array has the nonedge value's (an int: int64, the weights
    truncated into it)."""
    for G in (nx.Graph([(0, 1, {"weight": 0.5}), (1, 2, {"weight": 2.0})]), nx.empty_graph(1)):
        want = nx.to_numpy_array(G, nonedge=nonedge)
        got = nx.to_numpy_array(G, nonedge=nonedge, backend="spbfs")
        assert got.dtype == want.dtype
        assert repr(got.tolist()) == repr(want.tolist())


def _undirected_view_of_arcs(back_weight):
    D = nx.DiGraph([(0, 1, {"w": 1.0}), (1, 0, {"w": back_weight}), (1, 2, {"w": 2.0}),
                    (2, 3, {"w": 7.0}), (3, 0, {"w": 0.5})])
    return D.to_undirected(as_view=True)


@pytest.mark.parametrize("func, kwargs", [
    (nx.shortest_path_length, {"source": 0, "weight": "w"}),
    (nx.single_source_dijkstra, {"source": 1, "weight": "w"}),
    (nx.closeness_centrality, {"distance": "w"}),
    (nx.to_scipy_sparse_array, {"weight": "w"}),
    (nx.to_numpy_array, {"weight": "w"}),
    (nx.laplacian_matrix, {"weight": "w"}),
    (nx.minimum_spanning_tree, {"weight": "w"}),
    (nx.cut_size, {"S": [0], "weight": "w"}),
], ids=lambda x: getattr(x, "__name__", None))
def test_an_undirected_view_with_two_weights_on_an_edge(func, kwargs, automatic):
    """``to_undirected(as_view=True)`` of arcs with other weights each way: NetworkX reads
    each direction's own (a matrix takes one of them, a search the one it walks); spbfs
    declines such weights, so NetworkX answers (the matrices took each arc's own before)."""
    view = _undirected_view_of_arcs(5.0)
    assert _answer(func, view, backend=None, **kwargs) == _answer(
        func, view, backend="networkx", **kwargs)


def test_an_undirected_view_with_one_weight_an_edge_runs_in_spbfs():
    view = _undirected_view_of_arcs(1.0)
    got = nx.single_source_dijkstra_path_length(view, 0, weight="w", backend="spbfs")
    assert got == nx.single_source_dijkstra_path_length(view, 0, weight="w",
                                                        backend="networkx")


@pytest.mark.parametrize("seed", range(12))
def test_floyd_warshall_dicts_in_networkx_key_order(seed):
    """Each distance dict keys the node, its edges as ``G.edges()`` lists them, then the
    other nodes (NetworkX's Floyd-Warshall); they came in node order before."""
    import random

    rnd = random.Random(seed)
    G = [nx.Graph, nx.DiGraph, nx.MultiGraph][seed % 3]()
    nodes = list(range(9))
    rnd.shuffle(nodes)
    G.add_nodes_from(nodes)
    G.add_edges_from((rnd.choice(nodes), rnd.choice(nodes), {"w": rnd.randint(1, 3)})
                     for _ in range(14))
    got = nx.floyd_warshall(G, weight="w", backend="spbfs")
    expected = nx.floyd_warshall(G, weight="w", backend="networkx")
    assert [(u, list(d.items())) for u, d in got.items()] == [
        (u, list(d.items())) for u, d in expected.items()]
    _, got = nx.floyd_warshall_predecessor_and_distance(G, weight="w", backend="spbfs")
    _, expected = nx.floyd_warshall_predecessor_and_distance(G, weight="w", backend="networkx")
    assert [(u, list(d.items())) for u, d in got.items()] == [
        (u, list(d.items())) for u, d in expected.items()]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("func, kwargs", [
    (nx.to_scipy_sparse_array, {}), (nx.to_scipy_sparse_array, {"nodelist": [2, 0]}),
    (nx.adjacency_matrix, {}), (nx.to_scipy_sparse_array, {"dtype": np.int64}),
    (nx.laplacian_matrix, {}), (nx.to_numpy_array, {}),
], ids=lambda x: getattr(x, "__name__", None))
@pytest.mark.parametrize("loop", [False, True])
def test_bool_weights_make_bool_matrices(func, kwargs, directed, loop, automatic):
    """All-bool weights: NumPy makes NetworkX's list of them a bool array (they were int64
    here); arithmetic on them stays NetworkX's (ints), and an undirected graph's list with
    a self-loop holds its negated weight (an int: int64, it was bool here)."""
    G = (nx.DiGraph if directed else nx.Graph)(
        [(0, 1, {"w": True}), (1, 2, {"w": False}), (2, 0, {"w": True})])
    if loop:
        G.add_edge(1, 1, w=True)
    got = _answer(func, G, backend=None, weight="w", **kwargs)
    assert got == _networkx_answer(func, G, weight="w", **kwargs)
    if func is nx.to_scipy_sparse_array and not kwargs:
        want = np.int64 if loop and not directed else bool
        assert func(G, weight="w", backend="spbfs").dtype == want


def test_hits_converges_where_networkx_s_arpack_does():
    """A second singular value 0.93 times the first needs about 120 power steps, which
    ``max_iter=100`` power steps did not allow (spbfs raised PowerIterationFailedConvergence);
    NetworkX's ARPACK (20 Lanczos vectors a restart, here all 7) answers after one restart,
    and so does spbfs's Lanczos."""
    G = nx.Graph([(0, 4), (0, 6), (1, 2), (1, 3), (1, 5), (2, 6), (3, 6), (4, 6), (5, 6)])
    for max_iter in (100, 1):
        want_h, want_a = nx.hits(G, max_iter=max_iter)
        got_h, got_a = nx.hits(G, max_iter=max_iter, backend="spbfs")
        assert list(got_a) == list(want_a)
        np.testing.assert_allclose(list(got_a.values()), list(want_a.values()), atol=1e-7)
        np.testing.assert_allclose(list(got_h.values()), list(want_h.values()), atol=1e-7)


def _edgeless_hits_graphs():
    zero = nx.DiGraph([(0, 1, {"weight": 0}), (1, 2, {"weight": 0})])
    return [nx.empty_graph(3), nx.empty_graph(2, create_using=nx.DiGraph), zero,
            nx.empty_graph(1), nx.Graph([(0, 0)])]


@pytest.mark.parametrize("G", _edgeless_hits_graphs(),
                         ids=["edgeless", "edgeless_directed", "zero_weights", "one_node",
                              "one_node_loop"])
@pytest.mark.parametrize("kwargs", [{}, {"normalized": False}, {"max_iter": 0}])
def test_hits_where_networkx_s_arpack_raises(G, kwargs, automatic):
    """No edge of nonzero weight (ARPACK's start vector is zero: ArpackError) or one node
    (svds' ``k`` must be below ``n``: ValueError): NetworkX raises, where spbfs returned
    zeros (or ones); such calls run in NetworkX."""
    assert _answer(nx.hits, G, backend=None, **kwargs) == _networkx_answer(nx.hits, G,
                                                                           **kwargs)


@pytest.mark.parametrize("nstart", [{0: 1, 1: 1, 2: 1}, {0: 1.0, 2: 2.0},
                                    {0: True, 1: False, 2: True}])
def test_hits_with_an_nstart_networkx_s_svds_rejects(nstart, automatic):
    """NetworkX's start vector is ``nstart``'s values: ints (or bools), or fewer than the
    nodes, raise in its ``svds`` (ValueError); they were read by node here."""
    G = nx.DiGraph([(0, 1), (2, 1), (1, 2)])
    want = _networkx_answer(nx.hits, G, nstart=nstart)
    assert want is ValueError
    assert _answer(nx.hits, G, backend=None, nstart=nstart) == want


def _floyd_answers(G, backend):
    """The Floyd-Warshall functions' distance dicts as text (their values' types kept:
    ``True`` is not ``1``, ``0`` not ``0.0``; their key order) and predecessors."""
    def text(dist):
        return repr([(u, list(d.items())) for u, d in dist.items()])

    pred, dist = nx.floyd_warshall_predecessor_and_distance(G, weight="w", backend=backend)
    return text(nx.floyd_warshall(G, weight="w", backend=backend)), text(dist), pred


@pytest.mark.parametrize("weights", [(True, False, True), (True, 2, 3), (False, 1, 1)])
@pytest.mark.parametrize("directed", [False, True])
def test_floyd_warshall_with_bool_weights(weights, directed, automatic):
    """NetworkX's distance of an edge is the edge's own weight where no path is shorter:
    a bool (ints here); such weights run in NetworkX (``floyd_warshall_numpy``'s floats
    in spbfs)."""
    G = (nx.DiGraph if directed else nx.Graph)(
        [(0, 1, {"w": weights[0]}), (1, 2, {"w": weights[1]}), (2, 3, {"w": weights[2]})])
    G.add_edge(3, 3, w=weights[1])
    assert _networkx_answer(_floyd_answers, G) == (_floyd_answers(G, None), tuple)
    got = nx.floyd_warshall_numpy(G, weight="w", backend="spbfs")
    np.testing.assert_array_equal(got, nx.floyd_warshall_numpy(G, weight="w",
                                                               backend="networkx"))


@pytest.mark.parametrize("directed", [False, True])
def test_floyd_warshall_distance_of_a_node_to_itself(directed):
    """NetworkX's ``dist[u][u]`` is the int 0, or ``min(w, 0)`` of a self-loop's weight:
    the loop's own ``0.0`` (or ``-0.0``) where it weighs a zero (0.0 everywhere here)."""
    G = (nx.DiGraph if directed else nx.Graph)(
        [(0, 1, {"w": 1.5}), (1, 2, {"w": 2.5}), (2, 2, {"w": 0.0}), (1, 1, {"w": 1.0}),
         (3, 3, {"w": -0.0})])
    assert _floyd_answers(G, "spbfs")[:2] == _floyd_answers(G, "networkx")[:2]


@pytest.mark.parametrize("G", [
    nx.Graph([(0, 1, {"w": True}), (1, 2, {"w": False}), (2, 2, {"w": True})]),
    nx.DiGraph([(0, 1, {"w": True}), (1, 2, {"w": 2}), (2, 0, {"w": 3})]),
    nx.Graph([(0, 1), (1, 2)]),
], ids=["bools", "bools_and_ints", "no_weights"])
@pytest.mark.parametrize("weight", ["w", None])
def test_to_numpy_array_of_dtype_object(G, weight, automatic):
    """An object array holds NetworkX's own weights: bools, the float 1.0 of a missing
    weight (ints here); ``dtype=object`` runs in NetworkX."""
    got = _answer(nx.to_numpy_array, G, backend=None, dtype=object, weight=weight)
    assert got == _networkx_answer(nx.to_numpy_array, G, dtype=object, weight=weight)


def _hub_with_a_loop(weight, leaves=1):
    G = nx.Graph([(0, 1, {"weight": 1.0}), (1, 2, {"weight": 2.0})])
    G.add_edges_from((1, k, {"weight": 1.0}) for k in range(3, 3 + leaves))
    G.add_edge(1, 1, weight=weight)
    return G


@pytest.mark.parametrize("weight", [1.7e308, -1.7e308, 9e307, float("inf"), -float("inf"),
                                    float("nan")])
@pytest.mark.parametrize("leaves", [1, 40])
@pytest.mark.parametrize("func, kwargs", [
    (nx.to_scipy_sparse_array, {}), (nx.to_scipy_sparse_array, {"format": "csc"}),
    (nx.to_scipy_sparse_array, {"dtype": np.float32}), (nx.adjacency_matrix, {}),
    (nx.laplacian_matrix, {}), (nx.normalized_laplacian_matrix, {}),
    (nx.bethe_hessian_matrix, {}), (nx.modularity_matrix, {"weight": "weight"}),
], ids=lambda x: getattr(x, "__name__", None))
def test_matrices_with_a_self_loop_whose_doubled_weight_overflows(func, kwargs, leaves,
                                                                   weight):
    """NetworkX's coordinate list holds an undirected loop's weight twice and its negation,
    which scipy adds: ``w + w - w`` overflows to inf (NaN for an infinite weight), or is
    ``w`` where scipy's sort of a long row puts the negation before the second entry; the
    weight was placed as it is here."""
    G = _hub_with_a_loop(weight, leaves)
    with np.errstate(all="ignore"):
        got = _answer(func, G, backend="spbfs", **kwargs)
        assert got == _answer(func, G, backend="networkx", **kwargs)


def _label_cases():
    """Graphs whose labels compare equal across types, each with an operator's arguments."""
    G = nx.Graph()
    G.add_nodes_from([0.0, 2.0])
    H = nx.Graph([(0, True), (0, 0), (0, 2), (2, 2.0)])  # row 2 keyed by 2.0 (node 2)
    A = nx.Graph()
    A.add_nodes_from([0, True, 2])
    A.add_edges_from([(0, 2), (0, 1)])  # row 0 (read first) keyed by 1 (node True)
    B = nx.Graph()
    B.add_nodes_from([2, 1, False])
    B.add_edges_from([(2, 2), (2, True), (2, False)])  # no edge 0 - 1: A's is kept
    D = nx.DiGraph()
    D.add_nodes_from([True, 0, 2])
    D.add_edges_from([(0, 2), (0, 1)])
    U = nx.Graph()
    U.add_nodes_from([1.0, 2.0, False])
    U.add_edge(False, 0.0)  # row False keyed by 0.0
    S = nx.Graph([("a", "b")])
    return [(nx.compose, (G, H)), (nx.intersection, (A, B)), (nx.difference, (A, B)),
            (nx.symmetric_difference, (A, B)), (nx.reverse, (D,)), (nx.union, (S, U)),
            (nx.full_join, (S, U)), (nx.compose, (H, G))]


def _graph_text(func, *args, backend):
    """``func``'s graph as text: its nodes and each adjacency row (predecessors too) with
    its keys' own objects (``1`` is not ``True``), in order; or its exception's type."""
    try:
        R = func(*args, backend=backend)
    except Exception as err:  # noqa: BLE001 - the exception's type is the answer
        return (type(err).__name__,)
    rows = [R._adj, R._pred] if R.is_directed() else [R._adj]
    return repr(list(R.nodes(data=True))), *(repr([(u, list(r.items())) for u, r in
                                                    adj.items()]) for adj in rows)


@pytest.fixture
def automatic_graphs(automatic):
    """Functions that return graphs dispatched to spbfs first too (NetworkX's priority
    for them is ``backend_priority.generators``)."""
    saved = nx.config.backend_priority.generators
    nx.config.backend_priority.generators = ["spbfs"]
    yield
    nx.config.backend_priority.generators = saved


@pytest.mark.parametrize("func, args", _label_cases(),
                         ids=lambda x: getattr(x, "__name__", None))
def test_operators_with_labels_equal_across_types(func, args, automatic_graphs):
    """NetworkX's result keeps the label objects of its ``add_edge`` calls (a neighbour
    keyed ``1`` under the node ``True``, ``H``'s ``0`` for ``G``'s ``0.0``), where spbfs's
    held the converted nodes: such labels run in NetworkX."""
    got = _graph_text(func, *args, backend=None)
    assert _networkx_answer(_graph_text, func, *args) == (got, tuple)


def test_operators_with_labels_that_cannot_compare_equal_run_in_spbfs():
    G = nx.Graph([(0, "a"), ("a", (1, "t")), ((1, "t"), 2)])
    H = nx.Graph([(0, "a"), (2, (3, "t"))])
    for func in (nx.compose, nx.intersection):
        assert _graph_text(func, G, H, backend="spbfs") == _graph_text(func, G, H,
                                                                         backend="networkx")
    H = nx.Graph([(0, "a"), (2, (3.0, "t"))])  # a tuple's items: 3.0 beside ints
    with pytest.raises(NotImplementedError):
        nx.compose(G, H, backend="spbfs")
