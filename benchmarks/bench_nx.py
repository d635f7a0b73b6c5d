"""The spbfs NetworkX backend against NetworkX itself on a graph of about a million edges.

Builds an undirected Graph500 Kronecker graph as a ``networkx.Graph`` (duplicate
edges and self-loops dropped by NetworkX, random float weights in the edge
attribute "weight"), converts it once (conversion timed separately: NetworkX
caches it in ``G.__networkx_cache__``, so repeated calls pay it once), then
times every dispatched function with NetworkX and with spbfs on the converted
graph, checking that both return the same result (value, type and order).
Generators are consumed in full.  Times are the best of ``--repeat`` runs.
Functions whose NetworkX cost grows with the square of the nodes (``forceatlas2_layout``,
the all-pairs lowest common ancestors) run on their own smaller graphs, listed after the
others (``--no-small`` leaves them out).

Usage: python benchmarks/bench_nx.py [--scale 17] [--edgefactor 10] [--repeat 3]
                                     [--device cpu|gpu|auto]
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from itertools import repeat

import networkx as nx
import numpy as np

from spbfs.graph500.generate import kronecker
from spbfs.nx import FUNCTIONS, convert_from_nx


def build_graph(scale, edgefactor, seed=1):
    """networkx.Graph of the Kronecker edge list with float weights in [0, 1)."""
    u, v = kronecker(scale, edgefactor, seed)
    keep = u != v
    u, v = u[keep].tolist(), v[keep].tolist()
    w = np.random.default_rng(seed).random(len(u)).tolist()
    G = nx.Graph()
    G.add_nodes_from(range(1 << scale))
    G.add_weighted_edges_from(zip(u, v, w, strict=True))
    return G


def best(fn, repeat, pause_gc=False):
    """Best time of ``repeat`` runs and the last result.  ``pause_gc``: timeit's convention,
    the cyclic collector off during each run, so a full collection that a result's
    allocations happen to trigger (it walks the whole NetworkX graph) is charged to neither
    side."""
    times, out = [], None
    for _ in range(repeat):
        out = None
        if pause_gc:
            gc.disable()
        try:
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        finally:
            if pause_gc:
                gc.enable()
    return min(times), out


def rebuild(result):
    """A call building a fresh container of ``result``'s shape and size, in C loops only,
    from parts already held as Python objects: a lower bound on what any backend pays to
    hand NetworkX its answer.  A dict: a copy of a ``{key: None}`` table (no key hashed, no
    table regrown), then each key's value set (one shared object for numbers, which makes
    none; a new list for lists).  Setting a value looks its key up, which hashes a tuple key
    anew (1.2M edge keys: a third of a second); int keys and the ints in tuple keys are
    new ones made together beforehand, as a backend makes them from row numbers (the
    graph's own node objects lie scattered, and reading them in a result's order costs
    more).  A list of tuples, sets or lists: one new inner container each (``zip`` /
    ``map``), and a tuple inside a tuple (``((u, v), lca)``) made anew of new ints too, as a
    tuple key is; a graph: NetworkX's own constructor on its edges."""
    if isinstance(result, dict):
        keys, values = list(result), list(result.values())
        if keys and isinstance(keys[0], tuple):
            keys = list(zip(*map(_fresh, zip(*keys, strict=True)), strict=True))
        else:
            keys = _fresh(keys)
        template = dict.fromkeys(keys)
        if values and isinstance(values[0], list):
            return lambda: _filled(template, keys, map(list, values))
        return lambda: _filled(template, keys, repeat(values[0] if values else None))
    if isinstance(result, (list, set)):
        parts, kind = list(result), type(result)
        if parts and isinstance(parts[0], tuple):
            columns = [list(c) for c in zip(*parts, strict=True)]
            nested = [i for i, c in enumerate(columns) if isinstance(c[0], tuple)]
            if nested:  # inner tuples (pairs as keys) made anew, of new ints, as for dicts
                inner = {i: [_fresh(c) for c in zip(*columns[i], strict=True)]
                         for i in nested}
                return lambda: kind(zip(*(zip(*inner[i], strict=True) if i in inner else c
                                          for i, c in enumerate(columns)), strict=True))
            return lambda: kind(zip(*columns, strict=True))
        if parts and isinstance(parts[0], (set, frozenset, list)):
            inner = type(parts[0])
            return lambda: kind(map(inner, parts))
        return lambda: kind(parts)
    if isinstance(result, nx.Graph):
        edges, kind = list(result.edges), type(result)
        return lambda: kind(edges)
    return lambda: result


def _fresh(column):
    """Labels as new objects made together where they are ints; others as they are."""
    array = np.asarray(column)
    return array.tolist() if array.dtype.kind in "iu" else list(column)


def _filled(template, keys, values):
    out = template.copy()
    out.update(zip(keys, values, strict=False))  # values may be an endless repeat
    return out


def typed(d):
    return [(k, v, type(v)) for k, v in d.items()]


def rounded(d, digits=9):
    """A dict of floats, rounded: equal to rounding is what the float results promise."""
    return [(k, round(v, digits)) for k, v in d.items()]


def six_digits(d):
    return rounded(d, 6)


def items(d):
    return list(d.items())


def cases(source, target, far):
    """``(name, call(G), normalize)``: ``call`` returns a fully materialised result (a
    generator is listed inside it: that is the work), ``normalize`` (None: as it is) makes
    it comparable outside the timing (rounding floats, noting value types)."""
    return [
        ("bfs_edges", lambda G: list(nx.bfs_edges(G, source)), None),
        ("bfs_tree", lambda G: list(nx.bfs_tree(G, source).edges), None),
        ("bfs_predecessors", lambda G: list(nx.bfs_predecessors(G, source)), None),
        ("bfs_successors", lambda G: list(nx.bfs_successors(G, source)), None),
        ("bfs_layers", lambda G: list(nx.bfs_layers(G, source)), None),
        ("descendants_at_distance(d=3)", lambda G: nx.descendants_at_distance(G, source, 3),
         None),
        ("single_source_shortest_path_length",
         lambda G: nx.single_source_shortest_path_length(G, source), typed),
        ("shortest_path_length(s, t)", lambda G: nx.shortest_path_length(G, source, far), None),
        ("shortest_path_length(target=t)",
         lambda G: nx.shortest_path_length(G, target=target), typed),
        ("single_source_dijkstra_path_length",
         lambda G: nx.single_source_dijkstra_path_length(G, source), typed),
        ("shortest_path_length(s, weight)",
         lambda G: nx.shortest_path_length(G, source, weight="weight"), typed),
    ] + ([  # where spbfs.components is present
        ("connected_components", lambda G: list(nx.connected_components(G)), None),
        ("number_connected_components", lambda G: nx.number_connected_components(G), None),
    ] if "connected_components" in FUNCTIONS else []) + more_cases(source, target, far)


def more_cases(source, target, far):
    """The functions added with the full NetworkX coverage (all of them on one graph)."""
    sample = [source, target, far]
    return [
        ("single_source_shortest_path", lambda G: nx.single_source_shortest_path(G, source),
         items),
        ("shortest_path(s, t)", lambda G: nx.shortest_path(G, source, far), None),
        ("has_path(s, t)", lambda G: nx.has_path(G, source, far), None),
        ("single_source_dijkstra_path", lambda G: nx.single_source_dijkstra_path(G, source),
         items),
        ("dijkstra_path(s, t)", lambda G: nx.dijkstra_path(G, source, far), None),
        ("multi_source_dijkstra_path_length",
         lambda G: nx.multi_source_dijkstra_path_length(G, set(sample)), typed),
        ("descendants", lambda G: nx.descendants(G, source), None),
        ("node_connected_component", lambda G: nx.node_connected_component(G, source), None),
        ("pagerank", lambda G: nx.pagerank(G), rounded),
        ("pagerank(weight=None)", lambda G: nx.pagerank(G, weight=None), rounded),
        ("betweenness_centrality(k=4)", lambda G: nx.betweenness_centrality(G, k=4, seed=1),
         rounded),
        ("degree_centrality", lambda G: nx.degree_centrality(G), rounded),
        ("number_of_isolates", lambda G: nx.number_of_isolates(G), None),
        ("core_number", lambda G: nx.core_number(G), None),
        ("triangles", lambda G: nx.triangles(G), None),
        ("transitivity", lambda G: nx.transitivity(G), lambda x: round(x, 12)),
        ("average_clustering", lambda G: nx.average_clustering(G), lambda x: round(x, 12)),
        ("eigenvector_centrality", lambda G: nx.eigenvector_centrality(G), six_digits),
        ("closeness_centrality(u)", lambda G: nx.closeness_centrality(G, source),
         lambda x: round(x, 12)),
        ("harmonic_centrality(3 sources)", lambda G: nx.harmonic_centrality(G, sources=sample),
         rounded),
        ("edge_betweenness_centrality(k=4)",
         lambda G: nx.edge_betweenness_centrality(G, k=4, seed=1), rounded),
        ("k_core", lambda G: nx.k_core(G), lambda H: sorted(H.edges)),
        ("label_propagation_communities", lambda G: list(
            nx.community.label_propagation_communities(G)), None),
        ("louvain_communities", lambda G: nx.community.louvain_communities(G, seed=1),
         lambda parts: len(parts) > 0),
        ("jaccard_coefficient(1000 pairs)", lambda G: list(nx.jaccard_coefficient(
            G, [(source, w) for w in list(G)[:1000]])),
         lambda triples: [(u, v, round(p, 12)) for u, v, p in triples]),
    ]


def _dag(n, extra, seed=1):
    """A random tree on ``n`` nodes directed away from node 0, plus ``extra`` random edges
    that keep it acyclic (a DAG where most pairs have one lowest common ancestor); with
    ``extra`` None, a random DAG of about ``2 n`` edges (many pairs with several)."""
    import random

    if extra is None:
        R = nx.gnp_random_graph(n, 4 / n, seed=seed, directed=True)
        D = nx.DiGraph([(u, v) for u, v in R.edges if u < v])
        D.add_nodes_from(range(n))
        return D
    D = nx.bfs_tree(nx.random_labeled_tree(n, seed=seed), 0)
    rank = {v: i for i, v in enumerate(nx.topological_sort(D))}
    rnd = random.Random(seed)
    nodes = list(D)
    for _ in range(extra):
        a, b = sorted(rnd.sample(nodes, 2), key=rank.__getitem__)
        D.add_edge(a, b)
    return D


def positions(d):
    return [(k, v.tolist()) for k, v in d.items()]


def small_cases():
    """``(name, graph, call, normalize)`` on graphs of their own, sized for NetworkX's
    O(n^2) work and memory."""
    return [
        ("forceatlas2_layout(2k nodes, 20 it.)", nx.gnm_random_graph(2000, 10000, seed=1),
         lambda G: nx.forceatlas2_layout(G, seed=1, max_iter=20), positions),
        ("all_pairs_lca(tree+150, 1.5k nodes)", _dag(1500, 150),
         lambda G: list(nx.all_pairs_lowest_common_ancestor(G)), None),
        ("all_pairs_lca(random DAG, 1.5k)", _dag(1500, None),
         lambda G: list(nx.all_pairs_lowest_common_ancestor(G)), None),
        ("tree_all_pairs_lca(tree, 1.5k nodes)", _dag(1500, 0),
         lambda G: list(nx.tree_all_pairs_lowest_common_ancestor(G)), None),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=17)
    parser.add_argument("--edgefactor", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nx-repeat", type=int, default=1,
                        help="runs of the NetworkX side (slow; default 1)")
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu")
    parser.add_argument("--only", default="", help="comma-separated name prefixes to run")
    parser.add_argument("--skip", default="", help="comma-separated name prefixes to skip")
    parser.add_argument("--floor", action="store_true",
                        help="also time rebuilding NetworkX's result from its parts: the "
                             "least any backend pays to return it, so networkx s / floor s "
                             "bounds every backend's speed-up")
    parser.add_argument("--no-small", action="store_true",
                        help="leave out the functions timed on their own smaller graphs")
    parser.add_argument("--gc", choices=("on", "paused"), default="on",
                        help="paused: timeit's convention, the cyclic collector off during "
                             "each timed run (both sides)")
    args = parser.parse_args(argv)
    pause = args.gc == "paused"
    nx.config.backends.spbfs.device = args.device

    t0 = time.perf_counter()
    G = build_graph(args.scale, args.edgefactor)
    build = time.perf_counter() - t0
    degree = dict(G.degree)
    source = max(degree, key=degree.get)
    levels = nx.single_source_shortest_path_length(G, source)
    far = next(reversed(levels))  # a vertex of the last BFS level
    target = list(levels)[len(levels) // 2]
    print(f"# networkx {nx.__version__}, python {platform.python_version()}, "
          f"{platform.machine()}, device={args.device}, gc {args.gc}")
    print(f"# Kronecker scale {args.scale}, edgefactor {args.edgefactor}: "
          f"{G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
          f"(built in {build:.1f} s); source = highest-degree node ({degree[source]:,}), "
          f"{len(levels):,} nodes reachable")

    conv, g = best(lambda: convert_from_nx(G), args.repeat)
    conv_w, gw = best(lambda: convert_from_nx(G, edge_attrs={"weight": 1}), args.repeat)
    scipy_t, _ = best(lambda: nx.to_scipy_sparse_array(G), args.repeat)
    print(f"# conversion to SpbfsGraph (once per graph, cached by NetworkX): "
          f"{conv:.3f} s pattern only, {conv_w:.3f} s with weights; "
          f"networkx.to_scipy_sparse_array(G): {scipy_t:.3f} s")
    print()
    floor_head = (f" {'floor s':>8s} | {'ceiling':>9s} |", f"{'-' * 10}|{'-' * 11}|")
    print(f"| {'function':36s} | {'networkx s':>10s} | {'spbfs s':>8s} | {'speed-up':>8s} |"
          + (floor_head[0] if args.floor else ""))
    print(f"|{'-' * 38}|{'-' * 12}|{'-' * 10}|{'-' * 10}|" + (floor_head[1] if args.floor else ""))
    only = [p for p in args.only.split(",") if p]
    skip = [p for p in args.skip.split(",") if p]
    runs = [(name, G, gw, call, normalize) for name, call, normalize in cases(source, target, far)]
    if not args.no_small:
        runs += [(name, H, None, call, normalize) for name, H, call, normalize in small_cases()]
    for name, G, gw, call, normalize in runs:
        if only and not any(name.startswith(p) for p in only):
            continue
        if any(name.startswith(p) for p in skip):
            continue
        if gw is None:  # a graph of its own, converted once outside the timing
            gw = convert_from_nx(G, edge_attrs={"weight": 1})
        t_nx, expected = best(lambda c=call, G=G: c(G), args.nx_repeat, pause)
        t_sp, got = best(lambda c=call, gw=gw: c(gw), args.repeat, pause)
        floor = ""
        if args.floor:
            t_floor, _ = best(rebuild(expected), args.repeat, pause)
            floor = f" {t_floor:8.4f} | {t_nx / max(t_floor, 1e-7):8.0f}x |"
        if normalize is not None:
            expected, got = normalize(expected), normalize(got)
        flag = "" if got == expected else "  MISMATCH"
        print(f"| {name:36s} | {t_nx:10.3f} | {t_sp:8.3f} | {t_nx / t_sp:7.1f}x |{floor}{flag}",
              flush=True)
    del g


if __name__ == "__main__":
    main()
