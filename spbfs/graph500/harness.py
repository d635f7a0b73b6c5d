"""The Graph500 benchmark end to end on one process: generate, build, search, validate, report."""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from tqdm import tqdm

from ..algorithms import forest
from ..algorithms.bfs import BETA, bfs, search
from ..core.arrays import array_module, gpu_available, index_dtype, require_gpu, to_numpy
from ..core.validation import check_choice, check_positive
from ..semiring import Matrix, any_pair, level_search
from . import results
from . import validation as graph500
from .generate import kronecker, kronecker_edge_count

__all__ = [
    "build_undirected", "check_memory", "choose_roots", "gpu_available", "memory_needed",
    "resolve_device", "run_graph500", "warm_up",
]

#: A search whose edge count is below this fraction of the median is flagged in the output.
SMALL_COMPONENT_FRACTION = 1e-3
#: Edges generated per chunk on the GPU (bounds the generator's temporary memory).
GPU_CHUNK_EDGES = 1 << 26
#: Size of the small graph :func:`warm_up` searches to load the search kernels.
#: The warm-up graph's dense core: as many vertices as a pull takes to split over threads,
#: and edges enough that a forced push's third level splits too (spbfs.cpu.bfs's
#: PARALLEL_PULL_VERTICES and PARALLEL_PUSH_EDGES), so that every kernel a search may run
#: is loaded before the first timed search.
WARM_UP_VERTICES, WARM_UP_EDGES = 1 << 15, 1 << 18


def resolve_device(device: str) -> str:
    """``"cpu"`` or ``"gpu"`` from ``"cpu"``, ``"gpu"`` or ``"auto"``.

    Examples
    --------
    >>> resolve_device("cpu")
    'cpu'
    """
    check_choice(device, "device", ("cpu", "gpu", "auto"))
    if device == "auto":
        return "gpu" if gpu_available() else "cpu"
    if device == "gpu":
        require_gpu("device='gpu'")
    return device


def memory_needed(scale, edgefactor=16, device="cpu") -> int:
    """Bytes a Graph500 run of this size holds at least at once on ``device``.

    A lower bound: on the CPU the edge list (two int64 arrays of
    ``m = edgefactor * 2**scale`` tuples), both directions of it while kernel 1
    builds the CSR (two more int64 arrays of ``2 m``), and the CSR (``2 m``
    indices and flags, ``n + 1`` offsets); on the GPU the edge list and the CSR
    with int32 ids where they fit.  Measured peaks are about twice the CPU bound
    (scale 18: 114 bytes an edge tuple), so a run near the bound may still fail.

    Parameters
    ----------
    scale, edgefactor : int
    device : {"cpu", "gpu"}

    Returns
    -------
    int

    Examples
    --------
    >>> round(memory_needed(20) / 2**30, 2)   # 2**20 vertices, 16 * 2**20 edge tuples
    0.91
    """
    n = 1 << scale
    m = kronecker_edge_count(scale, edgefactor)
    ids = np.dtype(index_dtype(n)).itemsize
    offsets = (n + 1) * np.dtype(index_dtype(n, 2 * m)).itemsize
    if device == "gpu":
        return 2 * m * ids + 2 * m * ids + offsets
    return 2 * m * 8 + 4 * m * 8 + 2 * m * (ids + 1) + offsets


def _available_memory(device):
    """Free bytes on ``device`` (the host: MemAvailable), or None where unknown."""
    if device == "gpu":
        import cupy

        free, _ = cupy.cuda.runtime.memGetInfo()
        return int(free) + int(cupy.get_default_memory_pool().free_bytes())
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _size(nbytes):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if nbytes < 1024 or unit == "EiB":
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return None  # pragma: no cover


def check_memory(scale, edgefactor=16, device="cpu", available=None):
    """Refuse a run that cannot fit, before allocating anything.

    Raises :class:`MemoryError` when the bound of :func:`memory_needed` exceeds
    the memory available, saying what the scale needs, what is available and the
    largest scale whose bound fits; returns quietly where the available memory is
    unknown.

    Parameters
    ----------
    scale, edgefactor : int
    device : {"cpu", "gpu"}
    available : int, optional
        Bytes available (default: the host's ``MemAvailable``, or the GPU's free
        memory).

    Examples
    --------
    >>> try:
    ...     check_memory(40, available=2**37)
    ... except MemoryError as e:
    ...     print(str(e)[:69])
    --scale 40 needs at least 1.04 PiB of host memory (edge list, its two
    """
    if available is None:
        available = _available_memory(device)
    needed = memory_needed(scale, edgefactor, device)
    if available is None or needed <= available:
        return
    fits = scale
    while fits > 1 and memory_needed(fits, edgefactor, device) > available:
        fits -= 1
    where = "GPU memory" if device == "gpu" else "host memory"
    parts = ("edge list and CSR" if device == "gpu" else
             "edge list, its two directions while the CSR is built, the CSR")
    raise MemoryError(f"--scale {scale} needs at least {_size(needed)} of {where} ({parts}), "
                      f"{_size(available)} are available; the largest scale that may fit is "
                      f"{fits}, measured peaks are about twice this bound (or run over "
                      "several machines: --dist)")


def build_undirected(u, v, n) -> Matrix:
    """Kernel 1: the symmetric CSR of an undirected edge list (structure only).

    Each edge is stored both ways; duplicates are merged and a self-loop is
    stored once.  On the GPU this is :func:`spbfs.gpu.build.csr_from_edges`.

    Examples
    --------
    >>> import numpy as np
    >>> M = build_undirected(np.array([0, 1, 1]), np.array([1, 2, 2]), 3)
    >>> M.indptr.tolist(), M.indices.tolist()
    ([0, 1, 3, 4], [1, 0, 2, 1])
    """
    if array_module(u) is not np:
        from ..gpu.build import csr_from_edges

        return Matrix(*csr_from_edges(u, v, n), n, symmetric=True, check=False)
    import scipy.sparse as sp

    rows = np.concatenate([u, v])
    cols = np.concatenate([v, u])
    csr = sp.csr_array((np.ones(rows.size, bool), (rows, cols)), shape=(n, n))
    csr.sum_duplicates()
    return Matrix(csr.indptr, csr.indices, csr.data, n, symmetric=True, check=False)


def choose_roots(u, v, n, count, seed):
    """``count`` distinct random vertices with an edge other than a self-loop.

    Examples
    --------
    >>> import numpy as np
    >>> choose_roots(np.array([0, 2]), np.array([1, 2]), 4, 5, seed=1).tolist()
    [0, 1]
    """
    xp = array_module(u)
    proper = u != v
    degree = xp.bincount(u[proper], minlength=n) + xp.bincount(v[proper], minlength=n)
    candidates = to_numpy(xp.flatnonzero(degree))
    rng = np.random.default_rng([seed, 0x500])
    picked = rng.choice(candidates.size, size=min(count, candidates.size), replace=False)
    return np.sort(candidates[picked]) if count >= candidates.size else candidates[picked]


def warm_up(M, *, return_parents=True, return_levels=True, **options) -> float:
    """Load (or compile) the search kernels ``M``'s searches use; return the seconds it took.

    The first search of a process loads its compiled kernels from numba's cache on
    the CPU (about 0.3 s; about 1.5 s compiling them on a fresh machine) and
    compiles the CUDA kernels on the GPU: set-up, not search time.  This searches a
    small graph (:data:`WARM_UP_VERTICES` in a dense core, a path hanging from the
    root) held on ``M``'s device with ``M``'s index types, three times (push, pull,
    and Beamer's switches both ways), so that
    the next search of ``M`` runs with every kernel loaded.  ``spbfs graph500``
    counts it in the construction time (kernel 1), ``spbfs bfs`` reports it on
    its own line.

    Parameters
    ----------
    M : Matrix
        The prepared matrix that will be searched (only its device, index
        types and whether it is symmetric are read).
    return_parents, return_levels : bool
        What the searches to come return (:func:`spbfs.bfs`).
    **options
        ``alpha`` and ``beta`` of the searches to come.

    Returns
    -------
    float
        Seconds spent (wall clock, device synchronised).

    Examples
    --------
    >>> import numpy as np
    >>> M = build_undirected(np.array([0, 1]), np.array([1, 2]), 3)
    >>> warm_up(M, return_levels=False) >= 0
    True
    """
    xp = array_module(M.indptr)
    t0 = time.perf_counter()
    # A dense core (2**15 vertices of degree about 16, a scrambled circulant: push, then
    # pull) and a path of 16 vertices from vertex 0 that outlasts it (back to push).
    core = xp.arange(WARM_UP_EDGES, dtype=xp.int64)
    u = xp.concatenate((core % WARM_UP_VERTICES, xp.arange(WARM_UP_VERTICES,
                                                          WARM_UP_VERTICES + 15)))
    v = xp.concatenate((((core * 2654435761) >> 8) % WARM_UP_VERTICES,
                        xp.arange(WARM_UP_VERTICES + 1, WARM_UP_VERTICES + 16)))
    u[WARM_UP_EDGES] = 0
    root = 0
    W = build_undirected(u, v, WARM_UP_VERTICES + 16)
    # The compiled kernels are specialised on index types and (numpy) write flags; a
    # directed M is searched with its transpose, which W then builds too.
    indptr, indices = (_like(W.indptr, M.indptr), _like(W.indices, M.indices))
    W = Matrix(indptr, indices, W.data, W.nrows, symmetric=bool(M.symmetric), check=False)
    for direction in ("auto", "push", "pull"):
        bfs(W, root, return_parents=return_parents, return_levels=return_levels,
               direction=direction, **options)
    _sync(xp)
    return time.perf_counter() - t0


def _like(array, model):
    """``array`` with ``model``'s dtype and, for numpy, its write flag."""
    out = array.astype(model.dtype, copy=True)
    if isinstance(out, np.ndarray):
        out.flags.writeable = model.flags.writeable
    return out


def _trace_directions(trace, depth):
    """``directions[L]`` for levels 0..depth from the ``trace`` of
    :func:`spbfs.algorithms.bfs.search`."""
    directions = [None] * (depth + 1)
    for first, last, way, *_ in trace:
        for level in range(first, min(last, depth) + 1):
            directions[level] = way
    return directions


def _sync(xp):
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


def run_graph500(scale, edgefactor=16, roots=64, seed=1, device="auto", *, out=None,
                 progress=True, alpha=None, beta=None, record=None):
    """Run the Graph500 BFS benchmark and print the reference result block.

    Generates the Kronecker graph, builds the symmetric CSR and loads the search
    kernels (:func:`warm_up`; both timed as construction, kernel 1), runs ``roots``
    searches from random non-isolated vertices, validates every one (the five Graph500
    checks) and prints the statistics, then one summary line
    (:func:`spbfs.graph500.results.summary_line`), e.g.
    ``64 searches, 64 validated, harmonic mean 0.1151 GTEPS``.

    Parameters
    ----------
    scale, edgefactor, roots, seed : int
        Graph500 parameters.  ``roots`` distinct vertices with an edge other than a
        self-loop are searched, all of them when the graph has fewer (a ``note:``
        line then says how many ran and why).
    device : {"cpu", "gpu", "auto"}
        ``"auto"``: the GPU when CuPy sees one.  A run whose memory bound
        (:func:`memory_needed`) exceeds what the device has free raises
        :class:`MemoryError` before allocating (:func:`check_memory`).
    out : file, optional
        Where the block goes (default ``sys.stdout``).
    progress : bool
        A tqdm progress bar on ``sys.stderr`` while searching.
    alpha, beta : float, optional
        Beamer's switching factors (:func:`spbfs.bfs`).
    record : dict, optional
        Filled with the results document (:func:`spbfs.graph500.results.document`: the block's
        values, every search's time, edge count, TEPS, levels and per-level directions, the
        device and versions), for ``spbfs graph500 --json`` and ``--plot``.  The per-level
        data is gathered outside the timed searches; the directions come from the level
        loop's ``trace`` of each search (:func:`spbfs.algorithms.bfs.search`).

    Returns
    -------
    dict
        The statistics of :func:`spbfs.graph500.summarize` (``validation`` is ``"failed"``
        when a search failed a check), plus ``failed_roots`` (root -> failed checks and
        their counts) when any did.  Each failed search is also reported on ``out`` as
        ``validation FAILED: root R: RULE (COUNT: meaning)``; ``spbfs graph500`` then exits
        with status 1.

    Examples
    --------
    >>> import io
    >>> stats = run_graph500(8, roots=4, device="cpu", out=io.StringIO(), progress=False)
    >>> stats["NBFS"], stats["validation"]
    (4, 'passed')
    >>> doc = {}
    >>> _ = run_graph500(6, roots=2, device="cpu", out=io.StringIO(), progress=False,
    ...                  record=doc)
    >>> len(doc["searches"]), doc["searches"][0]["level_directions"][0]
    (2, None)
    """
    out = out or sys.stdout
    device = resolve_device(device)
    check_memory(scale, edgefactor, device)
    xp = np
    if device == "gpu":
        import cupy as xp
    n = 1 << scale
    t0 = time.perf_counter()
    if device == "gpu":  # in chunks written into place: peak memory = edge list + one chunk
        m = kronecker_edge_count(scale, edgefactor)
        idt = index_dtype(n)  # int32 ids while they fit: half the memory of int64
        u, v = xp.empty(m, idt), xp.empty(m, idt)
        for lo in range(0, m, GPU_CHUNK_EDGES):
            hi = min(lo + GPU_CHUNK_EDGES, m)
            u[lo:hi], v[lo:hi] = kronecker(scale, edgefactor, seed, start=lo, stop=hi, xp=xp)
    else:
        u, v = kronecker(scale, edgefactor, seed)
    _sync(xp)
    generation_time = time.perf_counter() - t0
    keys = choose_roots(u, v, n, roots, seed)
    options = {k: check_positive(val, k) for k, val in (("alpha", alpha), ("beta", beta))
               if val is not None}
    t0 = time.perf_counter()
    M = build_undirected(u, v, n)
    # A graph with the share of trees its backend prunes from (spbfs.semiring.pruning_share)
    # is searched on its core, the trees set after each search (the CSR is dropped: the
    # core holds what a search reads).  Otherwise kernel 1's choice stands: no timed search
    # builds a forest (a plain search would, at its BUILD_AFTER-th call).
    graph = forest.build(M) if forest.prunes(M) else None
    if graph is None:
        forest.search_whole(M)
        graph = M
    _sync(xp)
    # Loading (or compiling) the search kernels, and the workspaces a search of this
    # graph's size keeps (allocated and first touched by one search of it, its result
    # dropped), are set-up: part of kernel 1, not of the first timed search.
    warm_up(M, return_parents=True, return_levels=False, **options)
    del M
    for key in _warm_keys(graph, keys):
        search(graph, key, return_parents=True, return_levels=False, **options)
    _sync(xp)
    construction_time = time.perf_counter() - t0
    times, nedges, failed, searches = [], [], [], []
    bar = tqdm(total=len(keys), desc=f"graph500 scale {scale} ({device})", unit="search",
               file=sys.stderr, disable=not progress, dynamic_ncols=True)
    for root in keys.tolist():
        trace = [] if record is not None else None  # per-level directions for the record
        _sync(xp)  # the last validation's work is done: the clock times this search alone
        t0 = time.perf_counter()
        # the specification's search output: the parents (validation derives the levels)
        parents = search(graph, root, return_parents=True, return_levels=False, trace=trace,
                         **options)
        _sync(xp)
        times.append(time.perf_counter() - t0)
        result = graph500.validate(u, v, root, parents, raise_on_error=False)
        if not result.ok:
            failed.append((root, result.failures))
        nedges.append(max(result.nedge, 1))
        if record is not None:
            searches.append(_search_record(root, graph500.tree_depths(parents, root), times[-1],
                                           nedges[-1], result, trace))
        bar.set_postfix_str(f"{nedges[-1] / times[-1] / 1e9:.3f} GTEPS", refresh=False)
        bar.update(1)
    bar.close()
    stats = graph500.summarize(scale, edgefactor, construction_time, times, nedges, not failed,
                               graph_generation=generation_time)
    out.write(graph500.format_result_block(stats).rstrip("\n") + "\n")
    for root, failures in failed:
        out.write(f"validation FAILED: {graph500.describe_failures(failures, root)}\n")
    if failed:
        out.write(f"validation FAILED for {len(failed)} of {len(keys)} searches\n")
    small = int((np.asarray(nedges) < SMALL_COMPONENT_FRACTION * np.median(nedges)).sum())
    if small:
        out.write(f"note: {small} of {len(nedges)} search keys lie in small components "
                  f"(nedge < {SMALL_COMPONENT_FRACTION:g} x median), as the specification's "
                  "sampling allows; they dominate harmonic_mean_TEPS (see median_TEPS)\n")
    if len(keys) < roots:
        out.write(f"note: {roots} roots asked for, {len(keys)} searched: the graph has "
                  f"{len(keys)} vertices with an edge other than a self-loop, and each root "
                  "is a distinct one of them\n")
    out.write(results.summary_line(stats, len(failed)) + "\n")
    if record is not None:
        parameters = {"scale": scale, "edgefactor": edgefactor, "roots": roots, "seed": seed,
                      "device": device, "alpha": options.get("alpha", _engine_alpha(graph)),
                      "beta": options.get("beta", BETA), "processes": 1}
        record.update(results.document(
            stats, searches, parameters, results.environment(device),
            direction_source="trace", failed=len(failed)))
    if failed:
        stats["failed_roots"] = {root: failures for root, failures in failed}
    return stats


def _engine_alpha(graph) -> float:
    """The push -> pull factor a search of ``graph`` (a Matrix or its Forest) takes when
    given none: its engine's."""
    M = graph.matrix if isinstance(graph, forest.Forest) else graph
    with level_search(M, 0, any_pair) as engine:
        return engine.alpha


def _warm_keys(graph, keys) -> list:
    """The keys of the untimed searches of kernel 1: the first, and for a pruned graph a
    tree vertex too (a search from inside a tree sets its path: operations of its own)."""
    out = [int(keys[0])]
    if isinstance(graph, forest.Forest) and graph.tree.size:
        out.append(int(graph.tree[0]))
    return out


def _search_record(root, levels, seconds, nedge, result, trace):
    """One search of the results document (per-level data computed here, untimed)."""
    rec = {"root": int(root), "time": seconds, "nedge": int(nedge),
           "validation": "passed" if result.ok else "failed",
           "failures": dict(result.failures)}
    lv = levels[levels >= 0]
    vertices = to_numpy(array_module(lv).bincount(lv)).tolist()
    rec["level_vertices"] = vertices
    rec["level_directions"] = _trace_directions(trace, len(vertices) - 1)
    return rec
