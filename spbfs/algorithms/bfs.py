"""Direction-optimising breadth-first search written with semiring operators."""

from __future__ import annotations

import time

from ..core.validation import check_choice, check_positive, check_source
from ..semiring import any_pair, any_secondi, level_search
from ._shared import ALPHA, BETA, beamer_pull, prepare
from .msbfs import bfs_many

__all__ = ["ALPHA", "BETA", "bfs", "prepare", "search"]

def bfs(A, source, *, return_parents=False, directed=True, direction="auto",
        alpha=ALPHA, beta=BETA):
    """Breadth-first search levels (and parents) from ``source``.

    Each level is one masked ``vxm`` over a Boolean-style semiring:
    ``any_pair`` for levels, ``any_secondi`` when parents are wanted (the
    parent is the index of the frontier vertex).  A sparse frontier is
    pushed (SpMSpV); a large one is pulled (masked SpMV with early exit),
    switching per level by Beamer's rule.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored (even an explicit zero) is an edge ``i -> j``.
        Dense arrays: zero, NaN and inf are not edges (as scipy.sparse.csgraph).
    source : int or 1-D array of int
        Start vertex, or ``k`` start vertices: then levels (and parents) have shape
        ``(k, n)``, int32 unless n needs int64, computed as one multi-source search
        (:func:`spbfs.algorithms.msbfs.bfs_many`); on a distributed graph, DistArray
        blocks of shape ``(n, k)`` (column ``i`` for source ``i``), one search per source.
    return_parents : bool
        Also return the BFS tree as a parent array.
    directed : bool
        False makes every edge usable in both directions.
    direction : {"auto", "push", "pull"}
        ``"auto"`` is direction-optimising; the others force one direction.
    alpha, beta : float
        Beamer's switching factors: push -> pull when the frontier's edges
        exceed the unexplored edges / ``alpha``; pull -> push when the frontier
        has fewer than ``n / beta`` vertices.

    Returns
    -------
    levels : ndarray
        Hop count from ``source``; -1 where unreachable.  int32 unless the
        graph needs int64 indices.  numpy for CPU input, cupy for GPU input; for a
        :class:`spbfs.dist.DistGraph`, a DistArray of the owned vertices
        (``G.gather(levels)`` assembles it, as for :func:`spbfs.dist.bfs`).
    parents : ndarray, optional
        ``parents[source] == source``; -1 where unreachable.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> import spbfs
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]]))
    >>> spbfs.bfs(A, 0)
    array([ 0,  1,  2, -1], dtype=int32)
    >>> levels, parents = spbfs.bfs(A, 0, return_parents=True, directed=False)
    >>> levels.tolist(), parents.tolist()
    ([0, 1, 2, 1], [0, 0, 1, 0])
    """
    check_choice(direction, "direction", ("auto", "push", "pull"))
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    if isinstance(source, (list, tuple)) or getattr(source, "ndim", 0) == 1:
        tuned = {} if alpha == ALPHA else {"alpha": alpha}  # bfs_many has its own default
        return bfs_many(A, source, return_parents=return_parents, directed=directed,
                        direction=direction, beta=beta, **tuned)
    M = prepare(A, directed, values=False)
    return search(M, check_source(source, M.n), return_parents=return_parents,
                  direction=direction, alpha=alpha, beta=beta)


#: Most push levels launched between two reads of the sizes (long, thin searches).
MAX_PUSH_BATCH = 32


def search(M, source, *, return_parents=False, direction="auto", alpha=ALPHA, beta=BETA,
           trace=None):
    """The level loop of :func:`bfs` on a prepared Matrix and a checked source, for every
    backend: a direction policy over :func:`spbfs.semiring.level_search`.

    Each step reads the sizes of the levels it ran (one synchronisation on the GPU) and
    picks the next direction by :func:`beamer_pull`.  On long, thin searches (the frontier
    steady for 4 levels and far from the switch to pull) it runs up to
    :data:`MAX_PUSH_BATCH` push levels per step.

    Parameters
    ----------
    M : Matrix
    source : int
    return_parents, direction, alpha, beta
        As :func:`bfs`.
    trace : list, optional
        Profiling: one tuple ``(first_level, last_level, "push" | "pull", frontier_in,
        found, seconds)`` is appended per step (host time of launch and read).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> M = prepare(sp.csr_array(np.eye(4, k=1)))
    >>> trace = []
    >>> search(M, 0, trace=trace).tolist(), [step[:3] for step in trace]
    ([0, 1, 2, 3], [(1, 1, 'push'), (2, 2, 'push'), (3, 3, 'push'), (4, 4, 'push')])
    """
    semiring = any_secondi if return_parents else any_pair
    n = M.n
    with level_search(M, source, semiring, values=return_parents,
                      transpose=direction != "push") as engine:
        if getattr(engine, "drives_itself", False):   # a distributed search: its own policy
            engine.run(direction, alpha, beta)
            return (engine.levels, engine.parents) if return_parents else engine.levels
        nf, mf, mu, prev_nf = 1, 0, M.nnz, 0
        steady = 0  # consecutive levels whose frontier size changed by less than 2x
        batch, level, fetched = 1, 0, 0
        pulling = direction == "pull"
        while nf:
            t_start = time.perf_counter() if trace is not None else 0.0
            nf_in = nf
            if direction == "auto" and level > 0:
                pulling = beamer_pull(pulling, nf, prev_nf, mf, mu, n, alpha, beta)
            batch = 1 if pulling else _push_batch(direction, batch, steady, nf, prev_nf, mf,
                                                  mu / alpha)
            engine.advance(pulling, batch)
            level += batch
            found = 0
            for step, (size, out_edges, in_edges) in enumerate(engine.sizes(), fetched):
                mu -= in_edges
                if step == 0:
                    continue
                found += size
                prev_nf, nf, mf = nf, size, out_edges
                steady = steady + 1 if prev_nf < 2 * nf and nf < 2 * prev_nf else 0
                if nf == 0:
                    break
            if trace is not None:
                trace.append((fetched or 1, level, "pull" if pulling else "push", nf_in, found,
                              time.perf_counter() - t_start))
            fetched = level + 1
        return (engine.levels, engine.parents) if return_parents else engine.levels


def _push_batch(direction, last, steady, nf, prev_nf, mf, switch_edges) -> int:
    """Push levels to run before the next read: doubling up to :data:`MAX_PUSH_BATCH` while
    the frontier is steady and even that many levels of growth stay below the switch."""
    k = min(last * 2, MAX_PUSH_BATCH)
    if direction == "auto":
        growth = max(nf / prev_nf, 1.0) if steady >= 4 else 2.0
        while k > 1 and (steady < 4 or mf * growth ** k >= switch_edges):
            k //= 2
    return k
