"""The level loop of a search: a direction policy over :func:`spbfs.semiring.level_search`,
shared by :func:`spbfs.bfs` and the one-search-per-source path of the many-source search."""

from __future__ import annotations

import time

from ..core.seam import engine_flag
from ..semiring import any_pair, any_secondi, level_search
from ._shared import BETA, beamer_pull
from .forest import Forest, forest_of

__all__ = ["MAX_PUSH_BATCH", "search"]

#: Most push levels launched between two reads of the sizes (long, thin searches).
MAX_PUSH_BATCH = 32
#: A frontier this many times smaller than the last is past its peak: its next two push
#: levels are launched together (Beamer's rule pulls only a growing frontier).
SHRUNK = 4


def search(M, source, *, return_parents=False, return_levels=True, direction="auto",
           alpha=None, beta=BETA, trace=None, parent_ids=None):
    """The level loop of :func:`spbfs.bfs` on a prepared Matrix and a checked source, for every
    backend: a direction policy over :func:`spbfs.semiring.level_search`.

    Each step reads the sizes of the levels it ran and picks the next direction by
    :func:`beamer_pull`.  On long, thin searches (the frontier steady for 4 levels and far
    from the switch to pull) it runs up to :data:`MAX_PUSH_BATCH` push levels per step.
    An engine that ``drives_itself`` runs the whole loop its own way with the same rule:
    the GPU's on the device (:meth:`spbfs.gpu.bfs.BitmapSearch.run`), the distributed one
    over its ranks.

    A symmetric graph with the share of vertices in trees its backend prunes from
    (:func:`spbfs.semiring.pruning_share`) is searched pruned once it has been searched
    :data:`~spbfs.algorithms.forest.BUILD_AFTER` times
    (:func:`~spbfs.algorithms.forest.forest_of`): its core alone, the trees' outputs set
    after it.

    Parameters
    ----------
    M : Matrix or Forest
    source : int
    return_parents, return_levels, direction, alpha, beta
        As :func:`spbfs.bfs` (``alpha=None``: the engine's own,
        :attr:`spbfs.semiring.LevelSearch.alpha`).
    trace : list, optional
        Profiling: one tuple ``(first_level, last_level, "push" | "pull", frontier_in,
        found, seconds)`` is appended per step (host time of launch and read; the GPU's
        loop: one per level, see :meth:`spbfs.gpu.bfs.BitmapSearch.run`; a pruned search
        traces its core's levels).
    parent_ids : int64 array, optional
        The ids parents are stored as (:func:`spbfs.semiring.level_search`); a search
        given them is not pruned.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> M = prepare(sp.csr_array(np.eye(4, k=1)))
    >>> trace = []
    >>> search(M, 0, trace=trace).tolist(), [step[:3] for step in trace]
    ([0, 1, 2, 3], [(1, 1, 'push'), (2, 2, 'push'), (3, 3, 'push'), (4, 4, 'push')])
    """
    forest = M if isinstance(M, Forest) else None if parent_ids is not None else forest_of(M)
    if forest is not None:
        return _pruned(forest, source, return_parents, return_levels, direction=direction,
                       alpha=alpha, beta=beta, trace=trace)
    semiring = any_secondi if return_parents else any_pair
    n = M.n
    with level_search(M, source, semiring, values=return_parents,
                      transpose=direction != "push", levels=return_levels,
                      parent_ids=parent_ids) as engine:
        alpha = engine.alpha if alpha is None else alpha
        if engine_flag(engine, "drives_itself"):  # its own loop (on the GPU, over ranks)
            engine.run(direction, alpha, beta, **({} if trace is None else {"trace": trace}))
            return _outputs(engine, return_parents, return_levels)
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
        return _outputs(engine, return_parents, return_levels)


def _pruned(forest, source, return_parents, return_levels, **options):
    """A search of ``forest``'s core from the source's attachment (none for a source without
    an edge), then the whole graph's outputs."""
    core_source, path = forest.start(source)
    levels = parents = None
    if core_source is not None:
        found = search(forest.matrix, core_source, return_parents=return_parents,
                       return_levels=return_levels, **options)
        if return_parents and return_levels:
            levels, parents = found
        else:
            levels, parents = (None, found) if return_parents else (found, None)
    return forest.outputs(path, levels, parents, return_parents, return_levels)


def _outputs(engine, return_parents, return_levels):
    """What :func:`search` returns: levels, parents, or both."""
    if not return_parents:
        return engine.levels
    return (engine.levels, engine.parents) if return_levels else engine.parents


def _push_batch(direction, last, steady, nf, prev_nf, mf, switch_edges) -> int:
    """Push levels to run before the next read: doubling up to :data:`MAX_PUSH_BATCH` while
    the frontier is steady and even that many levels of growth stay below the switch; two
    after a fall by :data:`SHRUNK` or more (a search's last levels: one read fewer)."""
    if direction == "auto" and nf * SHRUNK <= prev_nf:
        return 2
    k = min(last * 2, MAX_PUSH_BATCH)
    if direction == "auto":
        growth = max(nf / prev_nf, 1.0) if steady >= 4 else 2.0
        while k > 1 and (steady < 4 or mf * growth ** k >= switch_edges):
            k //= 2
    return k
