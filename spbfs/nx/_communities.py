"""Communities through :mod:`spbfs.algorithms.communities`: NetworkX's label propagation
(the same communities) and Louvain's method a colour class at a time (NetworkX's sequential
random order cannot run in parallel: another partition, of close modularity)."""

from __future__ import annotations

import numpy as np

from ..algorithms.communities import label_propagation, louvain
from ..core.arrays import to_numpy
from ._registry import dispatched

__all__ = []


def _groups(G, labels):
    """Node sets per label, in the order of each label's first node (NetworkX's).  The
    labels (ids below the node count: vertex ids or community numbers) are ranked by
    their first row without a sort of the rows (``np.unique``'s took 3 ms of 131,072 on
    the VM, this 2)."""
    labels = to_numpy(labels).astype(np.int64, copy=False)
    n = labels.size
    first = np.full(int(labels.max()) + 1 if n else 0, n, np.int64)
    np.minimum.at(first, labels, np.arange(n))
    used = np.flatnonzero(first < n)
    rank = np.empty(first.size, np.int64)
    rank[used[np.argsort(first[used])]] = np.arange(used.size)
    return G.node_sets(rank[labels])


def _seed(seed):
    """An int from NetworkX's ``random.Random`` (or None)."""
    if seed is None:
        return None
    return seed.getrandbits(63) if hasattr(seed, "getrandbits") else int(seed)


_LPA_DOCS = ("NetworkX's greedy colouring (largest first, in Jones and Plassmann's "
             "rounds), update and stopping rules, a colour class at once: the same "
             "communities as NetworkX.  On a GPU only from 1M stored edges (smaller "
             "graphs run on the host copy).")
#: Louvain (and Leiden's moves) are thousands of small steps (one colour class each) and a
#: contraction per level; below this many stored entries they run on the host copy even
#: when the GPU is configured.  Measured with ``spbfs.louvain`` on one H200 and its host's
#: 16 cores (the colouring's rounds a kernel each): 0.60 s on the GPU against 0.39 s on the
#: host at 2.4M entries, 1.25 against 1.03 s at 4.9M, 2.09 against 2.18 s at 9.9M
#: (docs/benchmarks.md): about even at 10M.
CLASS_STEPS_GPU_MIN_ENTRIES = 10 << 20
#: Label propagation's sweeps (:func:`spbfs.semiring.mode_sweeps`) launch four kernels a
#: class and read the host once a sweep on the GPU, so it pays there from fewer entries: on
#: one H200 and its host's 16 cores, 40 ms on the GPU against 70-77 ms on the host at 2.4M
#: entries, 131 against 402-437 ms at 9.9M (docs/benchmarks.md).
LPA_GPU_MIN_ENTRIES = 1 << 20


@dispatched(can_run=lambda a: True if not a["G"].is_multigraph()
            else "multigraphs run in NetworkX", docs=_LPA_DOCS)
def label_propagation_communities(G):
    """NetworkX's ``label_propagation_communities`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)])
    >>> list(nx.community.label_propagation_communities(G, backend="spbfs"))
    [{0, 1, 2}, {3, 4, 5}]
    """
    if not len(G):
        return {}.values()
    gpu = G.on_gpu(LPA_GPU_MIN_ENTRIES)
    groups = _groups(G, label_propagation(G.csr(gpu)))
    return dict(enumerate(groups)).values()


def _louvain_can_run(arguments):
    G = arguments["G"]
    if G.is_directed():
        return "directed Louvain runs in NetworkX"
    if G.is_multigraph():
        return "multigraphs run in NetworkX"
    return True


@dispatched(can_run=_louvain_can_run, docs="Parallel Louvain (a colour class moves at once, "
            "levels by ``P.T @ B @ P``), seeded; the partition differs from NetworkX's "
            "sequential one, its modularity is close (tested within 1% over seeds). On a GPU only "
            "from 10M stored edges (smaller graphs run on the host copy). Directed graphs, "
            "multigraphs and negative weights run in NetworkX.")
def louvain_communities(G, weight="weight", resolution=1, threshold=1e-07, max_level=None,
                        seed=None):
    """NetworkX's ``louvain_communities`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)])
    >>> nx.community.louvain_communities(G, seed=1, backend="spbfs")
    [{0, 1, 2}, {3, 4, 5}]
    """
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    if not len(G):
        return []
    gpu = G.on_gpu(CLASS_STEPS_GPU_MIN_ENTRIES)
    if weight is None:
        M = G.csr(gpu).unit(np.float64)
    else:
        M = G.weighted_csr(weight, gpu)
        _singletons_modularity_norm(M)
    labels = louvain(M, resolution=resolution, threshold=threshold, max_level=max_level,
                     seed=_seed(seed))
    return _groups(G, labels)


def _singletons_modularity_norm(M):
    """NetworkX's first step on a graph with edges, ``1 / deg_sum**2`` (its modularity of
    the singletons), for its errors: ZeroDivisionError where every weight is 0,
    OverflowError where the square of the weighted degrees' total overflows."""
    if not M.nnz:
        return
    loops = M.entry_rows == M.indices   # a self-loop counts twice in its vertex's degree
    deg_sum = float(M.data.sum()) + float(M.data[loops].sum())
    _ = 1 / deg_sum**2
