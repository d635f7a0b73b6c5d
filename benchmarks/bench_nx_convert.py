"""Cost of the spbfs NetworkX backend's conversion against NetworkX's own
``to_scipy_sparse_array`` on one large graph (issue: 10M edges).

Builds an undirected Kronecker ``networkx.Graph`` with float weights (as
benchmarks/bench_nx.py), then times once each: ``convert_from_nx`` (pattern only, and with
the "weight" attribute: what a weighted call converts), ``networkx.to_scipy_sparse_array``
(with weights, and ``weight=None``), and a second dispatched call on the same graph (the
conversion then comes from ``G.__networkx_cache__``).

Usage: python benchmarks/bench_nx_convert.py [--scale 20] [--edgefactor 12]
"""

from __future__ import annotations

import argparse
import platform
import time

import networkx as nx

from spbfs.nx import convert_from_nx


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None):
    from bench_nx import build_graph

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--edgefactor", type=int, default=12)
    args = parser.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    t_build, G = timed(lambda: build_graph(args.scale, args.edgefactor))
    print(f"# networkx {nx.__version__}, python {platform.python_version()}; Kronecker scale "
          f"{args.scale}, edgefactor {args.edgefactor}: {G.number_of_nodes():,} nodes, "
          f"{G.number_of_edges():,} edges (built in {t_build:.0f} s)", flush=True)
    rows = [
        ("spbfs convert_from_nx, pattern only", lambda: convert_from_nx(G)),
        ("spbfs convert_from_nx, with weights",
         lambda: convert_from_nx(G, edge_attrs={"weight": 1})),
        ("networkx.to_scipy_sparse_array(G)", lambda: nx.to_scipy_sparse_array(G)),
        ("networkx.to_scipy_sparse_array(G, weight=None)",
         lambda: nx.to_scipy_sparse_array(G, weight=None)),
    ]
    print("| step | seconds |\n|---|---:|")
    for name, fn in rows:
        t, out = timed(fn)
        del out
        print(f"| {name} | {t:.2f} |", flush=True)
    src = next(iter(G))
    t1, _ = timed(lambda: nx.descendants(G, src, backend="spbfs"))
    t2, _ = timed(lambda: nx.descendants(G, src, backend="spbfs"))
    print(f"| nx.descendants(G, s, backend='spbfs'), first call (converts) | {t1:.2f} |")
    print(f"| the same call again (conversion cached in G.__networkx_cache__) | {t2:.2f} |")


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    main()
