"""How a distributed graph runs many searches at once (``spbfs.bfs(G, sources)``).

A distributed graph's searches drive their own levels (each rank chooses push or pull for
its blocks), so the many-source algorithm hands its sources here and gets ``(n, k)``
blocks back: on one rank, the single-device many-source search on the rank's local matrix;
over several, groups of up to 64 sources, each run one search after another, or, for a
group of at least :data:`WORDS_FROM` sources and levels only, as one bit-packed level loop
of whole-vertex products.
"""

from __future__ import annotations

import numpy as np

from ..algorithms.msbfs import WORD, bfs_many, one_by_one, packed_levels
from ..core.validation import check_sources

__all__ = ["WORDS_FROM", "search_many"]

#: A distributed graph's searches run whole, one per source (its own level loop, push or
#: pull per block), unless a group holds this many sources: then one bit-packed loop over
#: the whole vertex words runs them (levels only).  2 x H100, scale 26: 8 sources 0.071 s
#: one by one against 0.161 s packed, 64 sources 0.655 s against 0.273 s.
WORDS_FROM = 32


def search_many(M, sources, *, return_parents, direction, alpha, beta):
    """The searches from ``sources`` on the distributed matrix ``M`` (collective): ``(n, k)``
    DistArray blocks, column ``i`` for ``sources[i]`` (levels, and parents when asked).

    Raises
    ------
    ValueError, TypeError
        The same on every rank: ``sources`` invalid on some rank (the lowest such rank's
        message), or differing between ranks.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> M = semiring.Matrix.from_any(G)
    >>> out = search_many(M, np.array([0, 2]), return_parents=False, direction="auto",
    ...                   alpha=4.0, beta=24.0)
    >>> G.gather(out).tolist()
    [[0, 2], [1, 1], [2, 0]]
    """
    c, error, src = M.graph.comm, None, None
    try:
        src = check_sources(sources, M.n, np)
    except (TypeError, ValueError) as e:
        error = e
    # one allgather: the same error on every rank, or the same sources everywhere
    c.agree({"sources": None if src is None else src.tolist()}, error=error)
    one = None if return_parents else M.one_rank()
    if one is not None:   # one rank: these searches on its local matrix
        L, ids, block = one
        return block(bfs_many(L, ids(src), directed=True, direction=direction,
                              alpha=alpha, beta=beta))
    blocks = [packed_levels(M, src[g:g + WORD]) if src[g:g + WORD].size >= WORDS_FROM
              and not return_parents else
              one_by_one(M, src[g:g + WORD], return_parents, direction, alpha, beta)
              for g in range(0, max(int(src.size), 1), WORD)]
    if len(blocks) == 1:
        return blocks[0]
    if return_parents:
        return tuple(M.xp.concatenate(part, axis=1) for part in zip(*blocks, strict=True))
    return M.xp.concatenate(blocks, axis=1)
