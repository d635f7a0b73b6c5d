"""Multi-source BFS benchmark: one ``spbfs.bfs_many`` call vs k single-source ``spbfs.bfs`` calls.

Same Kronecker graph (Graph500 generator, edgefactor 16, undirected) and the same k roots
for both; the single-source results are kept (a list of k arrays), as the batched call
keeps its (k, n) result, so both pay for the same output memory.  Each configuration runs
once to warm up, then ``--repeat`` times, alternating the two; the table gives the best and
median wall time of all k searches, the process CPU time of the best run (the machine may
be shared), throughput in searches per second and the speed-up of the batched call.  Every
batched result is checked against the single-source levels (and parents as BFS trees).

Usage: python benchmarks/bench_msbfs.py [--scales 18 20] [--sources 64] [--repeat 3]
                                        [--device cpu|gpu|auto] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np

import spbfs
from spbfs.algorithms.msbfs import bfs_many
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected, choose_roots, resolve_device


def _sync(xp):
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


def timed(fn, xp):
    """``(wall seconds, CPU seconds, result)`` of ``fn()``."""
    _sync(xp)
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    _sync(xp)
    return time.perf_counter() - w, time.process_time() - c, out


def check(M, roots, single, batched, parents):
    """The batched rows equal the single-source levels; parents are BFS trees."""
    levels = batched[0] if parents else batched
    for i in range(len(roots)):
        ref = single[i][0] if parents else single[i]
        if not bool((levels[i] == ref).all()):
            raise AssertionError(f"levels of source {int(roots[i])} differ")
    if parents:
        par = batched[1]
        xp = M.xp
        edges = xp.sort(M.pattern.rows() * M.n + M.indices.astype(np.int64))
        for i in range(len(roots)):
            lv, p = levels[i], par[i]
            if int(p[int(roots[i])]) != int(roots[i]) or not bool((p[lv < 0] == -1).all()):
                raise AssertionError(f"parents of source {int(roots[i])}: bad root or -1")
            child = xp.flatnonzero(lv > 0)
            up = p[child]
            if not bool((lv[up] == lv[child] - 1).all()):
                raise AssertionError(f"parents of source {int(roots[i])} skip a level")
            key = up.astype(np.int64) * M.n + child
            pos = xp.minimum(xp.searchsorted(edges, key), edges.size - 1)
            if not bool((edges[pos] == key).all()):
                raise AssertionError(f"a parent of source {int(roots[i])} is not an edge")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    parser.add_argument("--sources", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu", "auto"))
    parser.add_argument("--no-check", action="store_true", help="skip the result check")
    parser.add_argument("--json", help="also write every number to this file")
    args = parser.parse_args()
    device = resolve_device(args.device)
    if device == "gpu":
        import cupy as xp
    else:
        xp = np
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"numpy {np.__version__}, device {device}, k = {args.sources}")
    print(f"{'scale':>5} {'output':<15} {'impl':<18} {'best s':>8} {'median s':>9} "
          f"{'cpu s':>7} {'searches/s':>11} {'speed-up':>9}")
    records = []
    for scale in args.scales:
        n = 1 << scale
        u, v = kronecker(scale, 16, seed=1, xp=xp)
        M = build_undirected(u, v, n)
        roots = choose_roots(u, v, n, args.sources, seed=1)
        del u, v
        for parents in (False, True):
            def single(M=M, roots=roots, parents=parents):
                return [spbfs.bfs(M, int(r), return_parents=parents) for r in roots]

            def batched(M=M, roots=roots, parents=parents):
                return bfs_many(M, xp.asarray(roots), return_parents=parents)

            times = {"single": [], "batched": []}
            for rep in range(args.repeat + 1):
                for name, fn in (("single", single), ("batched", batched)):
                    wall, cpu, out = timed(fn, xp)
                    if rep:  # the first round warms up (kernels, first-touch memory)
                        times[name].append((wall, cpu))
                    if name == "single":
                        ref = out
                    elif rep == 0 and not args.no_check:
                        check(M, roots, ref, out, parents)
                    del out
                del ref
            best = {name: min(t) for name, t in times.items()}
            output = "levels+parents" if parents else "levels"
            for name in ("single", "batched"):
                wall, cpu = best[name]
                med = statistics.median(w for w, _ in times[name])
                speed = best["single"][0] / wall
                label = f"{len(roots)} x bfs" if name == "single" else "bfs_many"
                print(f"{scale:>5} {output:<15} {label:<18} {wall:>8.3f} {med:>9.3f} "
                      f"{cpu:>7.3f} {len(roots) / wall:>11.1f} {speed:>8.2f}x", flush=True)
                records.append({"scale": scale, "output": output, "impl": name,
                                "k": len(roots), "best_s": wall, "median_s": med,
                                "cpu_s": cpu, "device": device,
                                "walls": [w for w, _ in times[name]]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
