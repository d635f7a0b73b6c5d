"""Weak-scaling benchmark of spbfs.dist (Graph500 Kronecker graphs), one MPI job per P.

Run under MPI, one rank per GPU::

    mpiexec -n P python -m mpi4py benchmarks/bench_dist.py --scales 24 26 --device gpu

For each base scale S the graph has scale ``S + log2(P)`` (weak scaling; ``--strong`` keeps
S).  The graph is generated and built once (NCCL data plane on GPUs); the same roots are
then searched over each data plane of ``--planes`` (the graph is rebound with
``DistGraph.with_comm``), the first ``--validate`` searches of each plane are validated with
the distributed Graph500 checks, and rank 0 prints one row per (scale, plane): time per
search, harmonic-mean GTEPS and GTEPS per rank, the compute / communication split, bytes
sent per search (all ranks) and graph bytes per input edge.  ``--thresholds`` builds the
graph once per delegate threshold (the sweep); ``--profile`` reports the time per phase of a
level (each phase synchronised: slower).  ``--json FILE`` appends the rows as JSON lines.

``--algorithms`` times the algorithms that take a distributed graph instead (weighted
Kronecker graph, integer weights in [1, 64] hashed from the endpoints): ``spbfs.bfs`` and
``spbfs.sssp`` from ``--roots`` sources, ``spbfs.pagerank``, ``spbfs.connected_components``,
``spbfs.bfs`` from 8 and from 64 sources at once and ``spbfs.betweenness_centrality`` from 4
(``--only`` picks some), each first as a single-device call on rank 0 on the base scale's
graph (while the other ranks wait), then on the distributed graph of the base scale plus
log2(P) (weak scaling: ideal is the same time; ``--strong``: the same graph); one row per
algorithm: median seconds of both, their ratio and the bytes sent per distributed call
(all ranks)::

    mpiexec -n P python -m mpi4py benchmarks/bench_dist.py --algorithms --scales 16
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[16])
    ap.add_argument("--edgefactor", type=int, default=16)
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--validate", type=int, default=2, help="searches validated per plane")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--thresholds", type=int, nargs="+", default=[None],
                    help="delegate thresholds to sweep (default: the automatic choice)")
    ap.add_argument("--profile", nargs="?", const="sync", choices=("sync", "host", "levels"),
                    help="time each phase of a level, each synchronised, or the host's "
                         "time in each, or the device's time per level "
                         "(spbfs.dist.bfs.PROFILE)")
    ap.add_argument("--device", choices=("cpu", "gpu", "auto"), default="auto")
    ap.add_argument("--planes", nargs="+", default=["auto"], choices=("auto", "nccl", "mpi"))
    ap.add_argument("--alpha", type=float, default=None,
                    help="Beamer's push -> pull factor (default: each rank's engine's)")
    ap.add_argument("--strong", action="store_true", help="do not add log2(P) to the scale")
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", default=None, metavar="JSONL",
                    help="print the rows of a --json file as a markdown table and exit")
    ap.add_argument("--algorithms", action="store_true",
                    help="time pagerank, sssp, components and bfs on the distributed graph "
                         "against the single-device call")
    ap.add_argument("--only", nargs="+", default=None,
                    help="--algorithms: only these (names as printed)")
    args = ap.parse_args(argv)
    if args.algorithms:
        return run_algorithms(args)
    if args.markdown:
        print(markdown_table([json.loads(x) for x in open(args.markdown) if x.strip()]))
        return

    import importlib

    from spbfs import dist
    from spbfs.dist.harness import choose_roots, validate

    importlib.import_module("spbfs.dist.bfs").PROFILE = {
        "sync": True, "host": "host", "levels": "levels"}.get(args.profile, False)

    base = dist.Communicator(device=args.device)
    comms = {}
    for plane in args.planes:
        if plane == "auto":
            comms[base.data_plane] = base
        elif plane == base.data_plane:
            comms[plane] = base
        else:
            comms[plane] = dist.Communicator(device=base.device, data_plane=plane)
    P, rank = base.size, base.rank
    xp = base.xp
    rows = []
    for s0, threshold in [(s, t) for s in args.scales for t in args.thresholds]:
        scale = s0 if args.strong else s0 + int(round(math.log2(P)))
        n = 1 << scale
        base.barrier()
        t0 = time.perf_counter()
        u, v = dist.kronecker(scale, args.edgefactor, args.seed, comm=base)
        base.sync()
        t_gen = base.allreduce(time.perf_counter() - t0, "max")
        t0 = time.perf_counter()
        G = dist.DistGraph.from_edges(u, v, n, threshold=threshold, comm=base)
        base.sync()
        t_build = base.allreduce(time.perf_counter() - t0, "max")
        if base.device == "gpu":      # release construction temporaries before searching
            xp.get_default_memory_pool().free_all_blocks()
        report = G.report()
        st = base.allgather(G.stats())
        gbytes = sum(x["graph_bytes"] for x in st)
        sbytes = sum(x["state_bytes"] for x in st)
        mem = 0
        if base.device == "gpu":
            mem = base.allreduce(int(xp.get_default_memory_pool().total_bytes()), "max")
        if rank == 0:
            print(report, flush=True)
            print(f"# scale {scale}: generation {t_gen:.2f} s, construction {t_build:.2f} s, "
                  f"pool {mem / 2**30:.1f} GiB per rank", flush=True)
        keys = choose_roots(G, args.roots, args.seed).tolist()
        for plane, comm in comms.items():
            Gp = G.with_comm(comm)
            # alpha only when given: the script also times older trees (A/B runs)
            opts = {"return_parents": True,
                    **({} if args.alpha is None else {"alpha": args.alpha})}
            warm = {}
            dist.bfs(Gp, keys[0], stats=warm, **opts)  # warm-up (kernel compile, pools)
            times, nedges, comp, commt, nbytes, phases = [], [], [], [], [], {}
            each = []   # each search's phases on this rank (ms)
            ok = True
            for i, root in enumerate(keys):
                base.barrier()
                stats = {}
                t0 = time.perf_counter()
                lv, pa = dist.bfs(Gp, root, stats=stats, **opts)
                comm.sync()
                times.append(base.allreduce(time.perf_counter() - t0, "max"))
                m = G.traversed_edges(lv)
                if i < args.validate:
                    good, fails, m_ref = validate(G, u, v, root, lv, pa)
                    ok &= good and m_ref == m
                    if base.device == "gpu":
                        xp.get_default_memory_pool().free_all_blocks()
                nedges.append(m)
                sums = base.allreduce(np.array([stats["compute_time"], stats["comm_time"],
                                                float(stats["bytes_sent"])]))
                for k, x in stats["phases"].items():
                    phases[k] = phases.get(k, 0.0) + x / len(keys)
                each.append({k: round(1e3 * x, 3) for k, x in stats["phases"].items()})
                comp.append(sums[0] / P)
                commt.append(sums[1] / P)
                nbytes.append(sums[2])
            t = np.array(times)
            m = np.array(nedges, dtype=np.float64)
            hmean = 1.0 / np.mean(t / m)
            row = {
                "P": P, "scale": scale, "device": base.device, "plane": plane,
                "threshold": G.threshold, "delegates": G.D,
                "roots": len(keys), "median_ms": 1e3 * float(np.median(t)),
                "gteps": hmean / 1e9, "gteps_per_rank": hmean / 1e9 / P,
                "compute_ms": 1e3 * float(np.mean(comp)),
                "comm_ms": 1e3 * float(np.mean(commt)),
                "mbytes_per_bfs": float(np.mean(nbytes)) / 1e6,
                "graph_bytes_per_edge": gbytes / G.input_edges,
                "state_bytes_per_edge": sbytes / G.input_edges,
                "levels": int(warm["levels"]),
                "construction_s": t_build, "validated": min(args.validate, len(keys)),
                "times_ms": [round(1e3 * x, 3) for x in times],
                "valid": bool(ok),
                "phases_ms": {k: round(1e3 * x, 3) for k, x in phases.items()},
                "search_phases_ms": each,
            }
            rows.append(row)
            every_rank = base.gather(row["phases_ms"])
            if rank == 0:
                print(_fmt(row), flush=True)
                print("#   ms per search:", " ".join(f"{x:.1f}" for x in row["times_ms"]),
                      flush=True)
                for r, ph in enumerate(every_rank if row["phases_ms"] else []):
                    print(f"#   rank {r} ms per phase:", ph, flush=True)
                for i, ph in enumerate(each if args.profile else []):
                    print(f"#   rank 0, search {i} ({row['times_ms'][i]} ms):", ph, flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(row) + "\n")
        del G, u, v
        if base.device == "gpu":
            xp.get_default_memory_pool().free_all_blocks()
    if rank == 0:
        print(_HEADER)
        for r in rows:
            print(_fmt(r))
    if not all(r["valid"] for r in rows):
        sys.exit(1)


def run_algorithms(args):
    """``--algorithms``: the distributed algorithms against their single-device calls.

    The single-device call runs on rank 0 on the base scale's graph (``--scales``), built as
    ``spbfs graph500`` builds it (on the GPU: generated in chunks, the symmetric CSR of
    :func:`spbfs.gpu.build.csr_from_edges`), then freed; the distributed graph has the base
    scale plus log2(P) (weak scaling; ``--strong``: the base scale) and is generated over the
    ranks (:func:`spbfs.dist.kronecker`).  Weights are a hash of each edge's endpoints
    (:func:`edge_weights`), so duplicate edges and both directions agree.
    """
    import spbfs
    from spbfs import dist
    from spbfs.dist.harness import choose_roots as dist_roots

    base = dist.Communicator(device=args.device)
    P, rank, xp = base.size, base.rank, base.xp
    header = (f"{'algorithm':>14} {'P':>3} {'scale':>5} {'device':>6} {'single_s':>10} "
              f"{'dist_s':>10} {'dist/single':>11} {'MB_sent':>9}")
    many = max(MANY_SOURCES, args.roots)
    cases = {
        "bfs": lambda A, r, pool: spbfs.bfs(A, r),
        "sssp": lambda A, r, pool: spbfs.sssp(A, r),
        "pagerank": lambda A, r, pool: spbfs.pagerank(A),
        "components": lambda A, r, pool: spbfs.connected_components(A),
        "bfs_8_sources": lambda A, r, pool: spbfs.bfs(A, _sources(pool, r, 8)),
        f"bfs_{MANY_SOURCES}_sources": lambda A, r, pool: spbfs.bfs(
            A, _sources(pool, r, MANY_SOURCES)),
        "betweenness_4": lambda A, r, pool: spbfs.betweenness_centrality(
            A, directed=False, sources=_sources(pool, r, 4)),
    }
    if args.only:
        cases = {k: f for k, f in cases.items() if k in args.only}
    rows = []
    for s0 in args.scales:
        scale = s0 if args.strong else s0 + int(round(math.log2(P)))
        single = {}
        if rank == 0:
            A, pool = _single_graph(s0, args, base.device, many)
            for name, fn in cases.items():
                single[name] = _median_time(fn, A, pool, args.roots, base.sync)
                print(f"# single device, scale {s0}: {name} {single[name]:.4f} s", flush=True)
            del A
            if base.device == "gpu":
                xp.get_default_memory_pool().free_all_blocks()
        base.barrier()
        u, v = dist.kronecker(scale, args.edgefactor, args.seed, comm=base)
        G = dist.DistGraph.from_edges(u, v, 1 << scale, weights=edge_weights(u, v),
                                      threshold=args.thresholds[0], comm=base)
        del u, v
        if base.device == "gpu":
            xp.get_default_memory_pool().free_all_blocks()
        pool = dist_roots(G, many, args.seed).tolist()
        for name, fn in cases.items():
            fn(G, pool[0], pool)   # warm-up
            base.reset_counters()
            t = _median_time(fn, G, pool, args.roots, base.sync, base)
            sent = base.allreduce(float(base.bytes_sent)) / args.roots
            if rank == 0:
                row = (f"{name:>14} {P:>3} {scale:>5} {base.device:>6} {single[name]:>10.4f} "
                       f"{t:>10.4f} {t / single[name]:>11.2f} {sent / 1e6:>9.2f}")
                rows.append(row)
                print(row, flush=True)
        del G
        if base.device == "gpu":
            xp.get_default_memory_pool().free_all_blocks()
    if rank == 0:
        print(header)
        print("\n".join(rows))


#: Sources of the largest many-source call of ``--algorithms`` (Graph500's root count).
MANY_SOURCES = 64


def edge_weights(u, v):
    """Integer weights in [1, 64] (float64) from a hash of each edge's endpoints, the same
    for ``(u, v)`` and ``(v, u)``.

    Examples
    --------
    >>> import numpy as np
    >>> w = edge_weights(np.array([3, 5, 3]), np.array([5, 3, 3]))
    >>> bool(w[0] == w[1]) and bool(((w >= 1) & (w <= 64)).all())
    True
    """
    from spbfs.core.arrays import array_module

    xp = array_module(u)
    a = xp.minimum(u, v).astype(np.int64)
    b = xp.maximum(u, v).astype(np.int64)
    h = ((a * 0x9E3779B1) ^ (b * 0x85EBCA77)) & 0xFFFFFFFF
    return ((h ^ (h >> 15)) % 64 + 1).astype(np.float64)


def _single_graph(scale, args, device, count):
    """Rank 0's single-device graph at ``scale``: a weighted symmetric
    :class:`~spbfs.semiring.Matrix` without duplicates (weights by :func:`edge_weights` of
    each stored entry) and ``count`` roots."""
    from spbfs.core.arrays import index_dtype
    from spbfs.graph500 import generate
    from spbfs.graph500.harness import GPU_CHUNK_EDGES, build_undirected, choose_roots
    from spbfs.semiring import Matrix

    n = 1 << scale
    if device == "gpu":
        import cupy as xp

        m = generate.kronecker_edge_count(scale, args.edgefactor)
        u, v = xp.empty(m, index_dtype(n)), xp.empty(m, index_dtype(n))
        for lo in range(0, m, GPU_CHUNK_EDGES):
            hi = min(lo + GPU_CHUNK_EDGES, m)
            u[lo:hi], v[lo:hi] = generate.kronecker(scale, args.edgefactor, args.seed,
                                                    start=lo, stop=hi, xp=xp)
    else:
        xp = np
        u, v = generate.kronecker(scale, args.edgefactor, args.seed)
    pool = choose_roots(u, v, n, count, args.seed).tolist()
    M = build_undirected(u, v, n)
    del u, v
    M = M.canonical()   # duplicates merged once here, not inside every timed call
    indptr, indices = M.indptr, M.indices
    w = xp.empty(indices.size, np.float64)
    for lo in range(0, indices.size, GPU_CHUNK_EDGES):   # rows of the entries, in pieces
        hi = min(lo + GPU_CHUNK_EDGES, indices.size)
        rows = xp.searchsorted(indptr, xp.arange(lo, hi), side="right") - 1
        w[lo:hi] = edge_weights(rows, indices[lo:hi])
    return Matrix(indptr, indices, w, n, symmetric=True, check=False), pool


def _sources(roots, r, k):
    """``k`` of the roots starting at ``r`` (a many-source call per root)."""
    i = roots.index(r)
    return [roots[(i + j) % len(roots)] for j in range(k)]


def _median_time(fn, A, pool, count, sync, comm=None):
    """Median seconds of ``fn(A, root, pool)`` over the first ``count`` roots of ``pool``
    (the slowest rank's time)."""
    times = []
    if comm is None:
        fn(A, pool[0], pool)   # warm-up
    for r in pool[:count]:
        if comm is not None:
            comm.barrier()
        t0 = time.perf_counter()
        fn(A, r, pool)
        sync()
        t = time.perf_counter() - t0
        times.append(comm.allreduce(t, "max") if comm is not None else t)
    return float(np.median(times))


def markdown_table(rows):
    """Markdown table of benchmark rows; ``eff.`` is weak-scaling efficiency per rank against
    the P=1 row of the same base scale (``scale - log2 P``) and threshold.

    Examples
    --------
    >>> row = {"P": 1, "scale": 10, "plane": "mpi", "threshold": 64,
    ...        "delegates": 9, "median_ms": 2.0, "gteps": 0.5, "gteps_per_rank": 0.5,
    ...        "compute_ms": 1.5, "comm_ms": 0.5, "mbytes_per_bfs": 0.1,
    ...        "graph_bytes_per_edge": 7.5, "state_bytes_per_edge": 1.2, "valid": True}
    >>> markdown_table([row]).splitlines()[2].split(" | ")[6:9]
    ['0.500', '0.500', '100%']
    """
    cols = ("P", "scale", "plane", "TH", "delegates", "median ms", "GTEPS",
            "GTEPS/rank", "eff.", "compute ms", "comm ms", "MB/BFS", "graph B/edge",
            "state B/edge", "valid")
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    base = {}
    for r in rows:
        if r["P"] == 1:
            base.setdefault((r["scale"], r["threshold"]), r["gteps_per_rank"])
    for r in rows:
        b = base.get((r["scale"] - int(round(math.log2(r["P"]))), r["threshold"]))
        eff = f"{100 * r['gteps_per_rank'] / b:.0f}%" if b else "-"
        out.append(f"| {r['P']} | {r['scale']} | {r['plane']} | "
                   f"{r['threshold']} | {r['delegates']} | {r['median_ms']:.2f} | "
                   f"{r['gteps']:.3f} | {r['gteps_per_rank']:.3f} | {eff} | "
                   f"{r['compute_ms']:.2f} | {r['comm_ms']:.2f} | {r['mbytes_per_bfs']:.2f} | "
                   f"{r['graph_bytes_per_edge']:.2f} | {r['state_bytes_per_edge']:.2f} | "
                   f"{r['valid']} |")
    return "\n".join(out)


_HEADER = (f"{'P':>2} {'scale':>5} {'plane':>5} {'TH':>4} {'median_ms':>9} "
           f"{'GTEPS':>8} {'GTEPS/rk':>8} {'comp_ms':>8} {'comm_ms':>8} {'MB/bfs':>8} "
           f"{'B/edge':>6} {'valid':>5}")


def _fmt(r):
    return (f"{r['P']:>2} {r['scale']:>5} {r['plane']:>5} "
            f"{r['threshold']:>4} {r['median_ms']:>9.2f} {r['gteps']:>8.3f} "
            f"{r['gteps_per_rank']:>8.3f} {r['compute_ms']:>8.2f} {r['comm_ms']:>8.2f} "
            f"{r['mbytes_per_bfs']:>8.2f} {r['graph_bytes_per_edge']:>6.2f} "
            f"{str(r['valid']):>5}")


if __name__ == "__main__":
    main()
