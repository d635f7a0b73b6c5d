"""Graph500 over MPI: distributed generation, construction, 64 searches, distributed validation.

``mpiexec -n P python -m mpi4py -m spbfs graph500 --scale S --dist`` calls
:func:`run_graph500`.  Every rank generates its slice of the Kronecker list
(:func:`spbfs.dist.kronecker`), the graph is built with :meth:`DistGraph.from_edges`, the
roots are the single-process harness's roots (:func:`choose_roots`, chosen without gathering
the graph), and each search is validated where the data lives (:func:`validate`).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from tqdm import tqdm

from ..graph500 import results
from ..graph500 import validation as graph500
from . import _local
from .bfs import bfs
from .comm import Communicator, shared_communicator
from .generate import kronecker
from .graph import DistGraph

__all__ = ["choose_roots", "run_graph500", "validate"]

#: Input edges per validation round (bounds the memory of the endpoint look-ups).
VALIDATE_CHUNK = 1 << 26


def choose_roots(G, count, seed):
    """``count`` distinct random non-isolated vertices, the same on every rank (collective).

    The same roots as :func:`spbfs.graph500.harness.choose_roots` for the same graph and seed: the
    non-isolated vertices are ranked by id and the same random ranks are drawn; each drawn
    rank is turned into a vertex id by a vectorised binary search over the id range, one
    small allreduce per step, so no rank ever holds the whole candidate list.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.dist import DistGraph
    >>> G = DistGraph.from_edges(np.array([0, 2]), np.array([1, 2]), 4)
    >>> choose_roots(G, 5, seed=1).tolist()
    [0, 1]
    """
    c = G.comm
    cand = c.to_host(G.local_vertices()[G.degree > 0])           # sorted global ids
    total = int(c.allreduce(int(cand.size)))
    rng = np.random.default_rng([seed, 0x500])
    picked = rng.choice(total, size=min(count, total), replace=False).astype(np.int64)
    lo = np.zeros(picked.size, np.int64)
    hi = np.full(picked.size, max(G.n - 1, 0), np.int64)
    while picked.size and bool((lo < hi).any()):
        mid = (lo + hi) // 2
        below = c.allreduce(np.searchsorted(cand, mid, side="right").astype(np.int64))
        go_left = below >= picked + 1
        hi = np.where(go_left, mid, hi)
        lo = np.where(go_left, lo, mid + 1)
    return np.sort(lo) if count >= total else lo


def validate(G, u, v, source, levels, parents):
    """Graph500 checks of a distributed BFS result where the data lives (collective).

    Each rank checks its own slice ``(u, v)`` of the input edges against the levels and
    parents of their endpoints (fetched from the owners) and its owned vertices against the
    levels of their parents; whether each tree edge ``(parent[w], w)`` is an input edge is
    decided by the ranks holding the input edges and sent to the owner of ``w``.  The counts
    of failures are summed over ranks.

    Returns
    -------
    ok : bool
    failures : dict
        Check name (as :data:`spbfs.graph500.CHECKS`) to count, failed checks only.
    nedge : int
        TEPS edge count: input tuples with a reached endpoint (self-loops and duplicates
        counted, as :func:`spbfs.graph500.traversed_edges`).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist
    >>> u, v = np.array([0, 1, 3]), np.array([1, 2, 4])
    >>> G = dist.DistGraph.from_edges(u, v, 5)
    >>> lv, pa = dist.bfs(G, 0, return_parents=True)
    >>> validate(G, u, v, 0, lv, pa)
    (True, {}, 2)
    >>> bad = pa.copy()
    >>> bad[2] = 0                       # vertex 2 (level 2) claims the source as parent
    >>> validate(G, u, v, 0, lv, bad)
    (False, {'tree_edge_levels': 1, 'parent_edge': 1}, 2)
    """
    c, xp, P, rank = G.comm, G.xp, G.P, G.rank
    u = xp.asarray(u, dtype=np.int64)
    v = xp.asarray(v, dtype=np.int64)
    lv = levels.astype(np.int64)
    pa = parents.astype(np.int64)
    n = G.n
    fail = {}

    def add(name, count):
        fail[name] = fail.get(name, 0) + int(count)

    gid = G.local_vertices()
    add("parent_range", ((pa < -1) | (pa >= n)).sum())
    pa = xp.where((pa < -1) | (pa >= n), -1, pa)
    if source % P == rank:
        j = source // P
        add("source", int(pa[j]) != source or int(lv[j]) != 0)
    add("levels", ((lv >= 0) != (pa >= 0)).sum() + ((lv == 0) & (gid != source)).sum())
    # tree edges: level[w] == level[parent[w]] + 1 (so chains descend to the source: no cycle)
    w = xp.flatnonzero((pa >= 0) & (gid != source))
    (lp,) = G.fetch(pa[w], lv)
    add("tree_edge_levels", (lv[w] != lp + 1).sum())
    # input edges, in rounds (bounded memory): levels and parents of both ends from owners;
    # an edge joining w and parent[w] marks w at its owner
    has_edge = xp.zeros(G.n_local, bool)
    nedge = 0
    chunk = VALIDATE_CHUNK
    rounds = int(c.allreduce(-(-int(u.size) // chunk), "max"))
    for i in range(rounds):
        a, b = u[i * chunk:(i + 1) * chunk], v[i * chunk:(i + 1) * chunk]
        m = a.size
        lvl_e, par_e = G.fetch(xp.concatenate([a, b]), lv, pa)
        la, lb = lvl_e[:m], lvl_e[m:]
        ra, rb = la >= 0, lb >= 0
        add("edge_levels", (ra & rb & (xp.abs(la - lb) > 1)).sum())
        add("spans_component", (ra != rb).sum())
        nedge += int((ra | rb).sum())
        hit = xp.concatenate([a[(par_e[:m] == b) & (a != b)], b[(par_e[m:] == a) & (a != b)]])
        del lvl_e, par_e, la, lb, ra, rb
        order, counts = _local.bin_by(hit % P, P)
        marks, _ = c.alltoallv(hit[order] // P, counts)
        has_edge[marks] = True
    add("parent_edge", (~has_edge[w]).sum())
    names = list(graph500.CHECKS)
    local = np.array([fail.get(k, 0) for k in names], np.int64)
    total = c.allreduce(np.append(local, nedge))
    failures = {k: int(x) for k, x in zip(names, total[:-1], strict=True) if x}
    return not failures, failures, int(total[-1])


def _release(c, spare=0.25):
    """GPU ranks: hand cached, unused pool blocks back (construction and validation
    temporaries) when the device's free memory falls below ``spare`` of it, so that
    searches do not stall on allocation under memory pressure, nor re-allocate their
    outputs after every validation when memory is plentiful."""
    if c.device == "gpu":
        free, total = c.xp.cuda.runtime.memGetInfo()
        if free < spare * total:
            c.xp.get_default_memory_pool().free_all_blocks()


def _max_time(c, t):
    return float(c.allreduce(float(t), "max"))


def run_graph500(scale, edgefactor=16, roots=64, seed=1, threshold=None, device="cpu",
                 data_plane="auto", comm=None, out=sys.stdout, *, check=True,
                 bfs_options=None, progress=False, record=None):
    """The Graph500 benchmark over MPI ranks; rank 0 prints the result block (collective).

    Parameters
    ----------
    scale, edgefactor, roots, seed : int
        Graph500 parameters: ``2**scale`` vertices, ``edgefactor * 2**scale`` edges,
        ``roots`` searches from random non-isolated vertices chosen from ``seed``.
    threshold : int, optional
        Delegate degree threshold (default :func:`spbfs.dist.graph.auto_threshold`).
    device : {"cpu", "gpu", "auto"}
    data_plane : {"auto", "mpi", "nccl"}
    comm : Communicator or mpi4py.MPI.Comm, optional
        ``MPI.COMM_WORLD`` by default.  A Communicator fixes device and data plane.
    out : file
        Where rank 0 writes (the other ranks write nothing).
    check : bool
        Validate every search (distributed, :func:`validate`); without it the TEPS edge
        count is still computed.
    bfs_options : dict, optional
        Extra keyword arguments for :func:`spbfs.dist.bfs` (``direction``, ``alpha``,
        ``beta``).
    progress : bool
        Rank 0 shows a tqdm progress bar on ``sys.stderr`` while searching.
    record : dict, optional
        Given on every rank or on none (gathering the per-level counts is collective).
        On rank 0, filled with the results document (:func:`spbfs.graph500.results.document`; the
        per-level vertex counts are summed over ranks after each timed search, the
        directions are those :func:`spbfs.dist.bfs` reports per block); other ranks leave
        it as it is.  It is filled before a validation failure is raised.

    Returns
    -------
    dict
        :func:`spbfs.graph500.summarize` statistics plus ``dist_*`` entries (threshold,
        delegates, data plane, mean compute and communication time per search, bytes sent
        per search summed over ranks, graph bytes per input edge), on every rank.

    Raises
    ------
    RuntimeError
        If a search fails validation: on every rank, after rank 0 has printed the block
        and one ``validation FAILED: root R: RULE (COUNT: meaning)`` line per failed
        search; the message names the first failed root and its rules (``spbfs graph500
        --dist`` then exits non-zero on every rank).

    Examples
    --------
    >>> import io
    >>> from spbfs.dist.harness import run_graph500
    >>> s = run_graph500(7, edgefactor=4, roots=3, out=io.StringIO())
    >>> s["NBFS"], s["validation"], s["num_mpi_processes"]
    (3, 'passed', 1)
    >>> doc = {}
    >>> _ = run_graph500(6, edgefactor=4, roots=2, out=io.StringIO(), record=doc)
    >>> doc["direction_source"], len(doc["searches"])
    ('dist', 2)
    """
    c = comm if isinstance(comm, Communicator) else shared_communicator(
        comm, device=device, data_plane=data_plane)
    opts = dict(bfs_options or {})
    n = 1 << int(scale)
    c.barrier()
    t0 = time.perf_counter()
    u, v = kronecker(scale, edgefactor, seed, comm=c)
    c.sync()
    generation = _max_time(c, time.perf_counter() - t0)
    c.barrier()
    t0 = time.perf_counter()
    G = DistGraph.from_edges(u, v, n, threshold=threshold, comm=c)
    c.sync()
    construction = _max_time(c, time.perf_counter() - t0)
    _release(c, spare=1.0)   # construction temporaries: always
    report = G.report()
    keys = choose_roots(G, roots, seed)
    times, nedges, vtimes = [], [], []
    comp, commt, nbytes, waits = [], [], [], []
    failed = []                       # (root, failed checks) of each failed search
    searches = []                     # per-search records (record only)
    # One untimed search first, as in the single-process harness: kernels compile and
    # memory pools fill once per process, which is set-up, not search time.
    if keys.size:
        bfs(G, int(keys[0]), return_parents=True, **opts)
        c.sync()
    bar = tqdm(total=len(keys), desc=f"graph500 scale {scale} ({c.device} x {c.size})",
               unit="search", file=sys.stderr, disable=not progress or c.rank != 0,
               dynamic_ncols=True)
    for root in keys.tolist():
        c.barrier()
        st = {}
        t0 = time.perf_counter()
        lv, pa = bfs(G, root, return_parents=True, stats=st, **opts)
        c.sync()
        times.append(_max_time(c, time.perf_counter() - t0))
        sums = c.allreduce(np.array([st["compute_time"], st["comm_time"],
                                     float(st["bytes_sent"]), float(st["host_waits"])]))
        comp.append(sums[0] / c.size)
        commt.append(sums[1] / c.size)
        nbytes.append(sums[2])
        waits.append(sums[3] / c.size)
        t0 = time.perf_counter()
        if check:
            good, fails, m = validate(G, u, v, root, lv, pa)
            _release(c)
            if not good:
                failed.append((root, fails))
        else:
            m = G.traversed_edges(lv)
        vtimes.append(_max_time(c, time.perf_counter() - t0))
        nedges.append(max(m, 1))
        if record is not None:
            verdict = ("passed" if good else "failed") if check else "skipped"
            searches.append(_search_record(c, root, lv, st, times[-1], nedges[-1],
                                           fails if verdict == "failed" else {}, verdict))
        bar.set_postfix_str(f"{nedges[-1] / times[-1] / 1e9:.3f} GTEPS", refresh=False)
        bar.update(1)
    bar.close()
    stats = graph500.summarize(scale, edgefactor, construction, times, nedges, not failed,
                               graph_generation=generation, num_mpi_processes=c.size,
                               validate_times=vtimes if check else None)
    if not check:
        stats["validation"] = "skipped"
    gbytes = sum(s["graph_bytes"] for s in c.allgather(G.stats()))
    stats.update({
        "dist_device": c.device,
        "dist_data_plane": c.data_plane,
        "dist_threshold": G.threshold,
        "dist_delegates": G.D,
        "dist_mean_compute_time": float(np.mean(comp)),
        "dist_mean_comm_time": float(np.mean(commt)),
        "dist_mean_bytes_per_bfs": float(np.mean(nbytes)),
        "dist_mean_host_waits_per_bfs": float(np.mean(waits)),
        "dist_graph_bytes_per_edge": gbytes / max(G.input_edges, 1),
    })
    if c.rank == 0:
        out.write(report + "\n")
        out.write(graph500.format_result_block(stats))
        for root, fails in failed:
            out.write(f"validation FAILED: {graph500.describe_failures(fails, root)}\n")
        out.write(results.summary_line(stats, len(failed)) + "\n")
        out.flush()
        if record is not None:
            parameters = {"scale": scale, "edgefactor": edgefactor, "roots": roots,
                          "seed": seed, "device": c.device, "processes": c.size,
                          "data_plane": c.data_plane, "threshold": G.threshold,
                          "check": check, "bfs_options": opts}
            env = results.environment(c.device)
            env["device"]["ranks"] = c.size
            record.update(results.document(stats, searches, parameters, env,
                                           direction_source="dist", failed=len(failed)))
    if failed:
        root, fails = failed[0]
        raise RuntimeError(f"distributed BFS failed Graph500 validation in {len(failed)} of "
                           f"{len(keys)} searches; first: "
                           f"{graph500.describe_failures(fails, root)}")
    return stats


def _search_record(c, root, lv, st, seconds, nedge, failures, validation):
    """One search of the results document (collective: vertices per level summed over
    ranks; directions as :func:`spbfs.dist.bfs` reports them, one dict per level)."""
    lvh = c.to_host(lv)
    depth = int(c.allreduce(int(lvh.max()) if lvh.size else 0, "max"))
    mine = np.bincount(lvh[lvh >= 0].astype(np.int64), minlength=depth + 1).astype(np.int64)
    vertices = c.allreduce(mine[:depth + 1])
    dirs = list(st.get("directions", []))[:depth]
    return {"root": int(root), "time": seconds, "nedge": int(nedge), "validation": validation,
            "failures": dict(failures),
            "level_vertices": vertices.tolist(),
            "level_directions": [None] + dirs + [None] * (depth - len(dirs))}
