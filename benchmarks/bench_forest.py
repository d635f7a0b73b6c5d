"""Forest pruning benchmark: a search of the whole graph against a search of its core with the
trees set after (:mod:`spbfs.algorithms.forest`), for the parents alone (graph500's output).

Two graphs: graph500's Kronecker graph (about a quarter of its vertices with an edge lie in
trees) and a random tree with a tenth more random edges (most of its vertices lie in trees).
The same random sources for every row; each row runs once to warm up, then ``--repeat``
rounds of all sources, the rows alternating; the table gives the median search and the
forest's build time.  Rows: ``whole`` (the graph), ``pruned`` (core search, parents mapped,
and the outputs), ``core`` (the core's search alone, parents in core ids: what the mapping
and the outputs cost is the gap to ``pruned``), ``in order`` (pruned, the core numbered in
the graph's order where the backend numbers it hubs first, ``hubs`` says which).  Every
pruned result is checked against the whole graph's reach.

Usage: python benchmarks/bench_forest.py [--scale 20] [--sources 16] [--repeat 3]
                                         [--device cpu|gpu|auto] [--graphs kronecker tree]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spbfs.algorithms import forest
from spbfs.algorithms._level_loop import search
from spbfs.algorithms._shared import prepare
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected, resolve_device


def _sync(xp):
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


def tree_heavy(scale, seed, xp):
    """A random recursive tree on 2**scale vertices and 2**scale / 10 random edges more."""
    n = 1 << scale
    rng = np.random.default_rng(seed)
    parent = (rng.random(n) * np.arange(n)).astype(np.int64)
    u = np.concatenate([np.arange(1, n), rng.integers(0, n, n // 10)])
    v = np.concatenate([parent[1:], rng.integers(0, n, n // 10)])
    return build_undirected(xp.asarray(u), xp.asarray(v), n)


def graph(name, scale, xp):
    if name == "tree":
        return tree_heavy(scale, 1, xp)
    u, v = kronecker(scale, 16, 1, xp=xp)
    return build_undirected(u, v, 1 << scale)


def _timed(run, arg, xp):
    _sync(xp)
    t = time.perf_counter()
    run(arg)
    _sync(xp)
    return time.perf_counter() - t


def medians(M, F, in_order, sources, repeat, xp):
    """Median ms of each row, the rows interleaved search by search (a shared machine's
    load falls on all of them alike)."""
    rows = {"whole": lambda s: search(M, s, return_parents=True, return_levels=False),
            "pruned": lambda s: search(F, s, return_parents=True, return_levels=False),
            "core": lambda s: search(F.matrix, F.start(s)[0], return_parents=True,
                                     return_levels=False),
            "in order": lambda s: search(in_order, s, return_parents=True,
                                         return_levels=False)}
    times = {name: [] for name in rows}
    for rep in range(repeat + 1):  # the first round warms up
        for s in sources:
            for name, run in rows.items():
                seconds = _timed(run, s, xp)
                if rep:
                    times[name].append(seconds)
    return {name: 1e3 * float(np.median(t)) for name, t in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default="auto", choices=("cpu", "gpu", "auto"))
    ap.add_argument("--graphs", nargs="+", default=["kronecker", "tree"],
                    choices=("kronecker", "tree"))
    args = ap.parse_args(argv)
    device = resolve_device(args.device)
    xp = np
    if device == "gpu":
        import cupy as xp
    print(f"# scale {args.scale}, {device}, {args.sources} sources, median ms a search")
    print(f"{'graph':10s} {'in trees':>8s} {'core':>6s} {'hubs':>5s} {'build_s':>8s} "
          f"{'whole':>8s} {'pruned':>8s} {'core':>8s} {'in order':>8s}")
    for name in args.graphs:
        M = prepare(graph(name, args.scale, xp), directed=False)
        _sync(xp)
        t = time.perf_counter()
        F = forest.Forest(M)
        _sync(xp)
        build = time.perf_counter() - t
        hubs = forest.numbers_hubs_first(M)
        in_order = forest.Forest(M, hubs_first=False) if hubs else F
        forest.search_whole(M)
        rng = np.random.default_rng(7)
        live = np.flatnonzero(np.diff(np.asarray(M.indptr.get() if xp is not np
                                                 else M.indptr)) > 0)
        sources = [int(s) for s in rng.choice(live, args.sources)]
        for s in sources[:2]:
            whole = search(M, s, return_parents=True, return_levels=False)
            pruned = search(F, s, return_parents=True, return_levels=False)
            assert bool(((whole >= 0) == (pruned >= 0)).all()), f"reach differs from {s}"
        rows = medians(M, F, in_order, [s for s in sources if F.start(s)[0] is not None],
                       args.repeat, xp)
        print(f"{name:10s} {F.tree_share:8.2f} {1 - F.pruned:6.2f} {'yes' if hubs else 'no':>5s} "
              f"{build:8.2f} {rows['whole']:8.2f} {rows['pruned']:8.2f} {rows['core']:8.2f} "
              f"{rows['in order']:8.2f}", flush=True)


if __name__ == "__main__":
    main()
