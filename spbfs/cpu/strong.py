"""The CPU backend's strong components: one depth-first search in a kernel (Tarjan's
algorithm with Pearce's single low-link array, each arc read once, O(n + m)), where the
generic path (:func:`spbfs.algorithms.components.connected_components`) runs
forward-backward searches, trims and a numbering of the condensation, each a pass over
the arcs.

The labels follow the documented rule of the generic path: blocks by the smallest vertex
reaching a component (the search starts from ``0, 1, ...`` in turn, and a component's block
is the start whose search found it), inside a block by the longest path to a sink of the
condensation (known when the component is finished: every component it reaches finished
before it), then by decreasing smallest vertex.  A counting sort per key ranks them.  Or,
for ``spbfs.csgraph``, the order in which the search finishes the components (scipy's
numbering, each vertex's arcs taken in storage order or last to first): no heights
tracked, no ranking.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["strong_components"]

_NONE = -1    # not entered
_BOTTOM = -2  # the end of the chain


@kernel
def _search(ip, ix, low, at, cursor, lowest, tallest, chain, comp_height, comp_min,
            comp_block, rise, ranked, forward):
    """Find the components; returns how many there are (heights only when ``ranked``;
    each vertex's arcs in storage order when ``forward``, else last to first).

    ``low[v]``: -1 until ``v`` is entered, then its entry order, and once it is in finished
    component ``c``, ``n + c``: above every entry order.  The search's path is a stack of
    frames: vertex ``at[d]``, its arcs ``ip[v] .. cursor[d] - 1`` still to take (last
    first, or mirrored for ``forward``), the lowest entry order ``lowest[d]`` it reaches
    inside the unfinished part and the longest path ``tallest[d]`` to a sink of the
    condensation found from its component.  ``chain[v]`` links the vertices left but not
    yet in a finished component, from ``waiting``.  Per component ``c``: ``comp_min``
    (smallest vertex), ``comp_block`` (the start whose search found it) and
    ``comp_height``; per vertex, ``rise`` (0 until its component is finished, then the
    component's height + 1: an arc reads it by the target's id, a load independent of the
    target's ``low``)."""
    n = low.size
    entered = 0
    finished = 0
    waiting = _BOTTOM
    for start in range(n):
        if low[start] != _NONE:
            continue
        depth = 0
        at[0], cursor[0], lowest[0], tallest[0] = start, ip[start + 1], entered, 0
        low[start] = entered
        entered += 1
        while depth >= 0:
            v = at[depth]
            p = cursor[depth]
            begin = ip[v]
            mirror = begin + ip[v + 1] - 1 if forward else 0
            lo = lowest[depth]
            tall = tallest[depth]
            w = _NONE
            while p > begin:
                p -= 1
                x = ix[np.uintp(mirror - p if forward else p)]  # unsigned: no wrap test
                lx = low[np.uintp(x)]
                if lx == _NONE:
                    w = x
                    break
                lo = min(lo, lx)
                if ranked:               # a step down to x's finished component, if any
                    tall = max(tall, rise[np.uintp(x)])
            lowest[depth] = lo
            tallest[depth] = tall
            if w != _NONE:           # enter w
                cursor[depth] = p
                depth += 1
                at[depth], cursor[depth], lowest[depth], tallest[depth] = w, ip[w + 1], \
                    entered, 0
                low[w] = entered
                entered += 1
                continue
            depth -= 1               # leave v
            if lo == low[v]:         # v is the root of a component
                smallest = v
                while waiting != _BOTTOM and low[waiting] > lo:
                    x = waiting
                    waiting = chain[x]
                    low[x] = n + finished
                    if ranked:
                        rise[x] = tall + 1
                    smallest = min(smallest, x)
                low[v] = n + finished
                if ranked:
                    rise[v] = tall + 1
                comp_height[finished] = tall
                comp_min[finished] = smallest
                comp_block[finished] = start
                finished += 1
                if depth >= 0:
                    tallest[depth] = max(tallest[depth], tall + 1)
            else:                    # the parent is in v's component
                chain[v] = waiting
                waiting = v
                if depth >= 0:
                    lowest[depth] = min(lowest[depth], lo)
                    tallest[depth] = max(tallest[depth], tall)
    return finished


@kernel
def _rank(low, k, comp_height, comp_min, comp_block, order, spare, count):
    """Rank the ``k`` components by (block, height, decreasing smallest vertex), and
    replace every ``low[v] = n + c`` by ``c``'s rank.  A block is a run of components (the
    search finishes a start's components before the next start's), so a block's ranks
    are its own run of positions: the components are listed by height, each height's by
    decreasing smallest vertex (one counting sort, filled in a pass over the vertices from
    the last), and each takes the next free position of its block."""
    n = low.size
    tallest = 0
    for c in range(k):
        tallest = max(tallest, comp_height[c])
    count[:tallest + 2] = 0
    for c in range(k):
        count[comp_height[c] + 1] += 1
    for h in range(tallest + 1):
        count[h + 1] += count[h]
    for v in range(n - 1, -1, -1):
        c = low[v] - n
        if comp_min[c] == v:
            h = comp_height[c]
            order[count[h]] = c
            count[h] += 1
    first = 0
    block = comp_block[0] if k else 0
    for c in range(k):               # comp_block[c] becomes its block's first component
        if comp_block[c] != block:
            block = comp_block[c]
            first = c
        comp_block[c] = first
        spare[c] = c                 # at a block's first component: its next free rank
    for i in range(k):
        c = order[i]
        b = comp_block[c]
        comp_min[c] = spare[b]       # comp_min is free now: c's rank
        spare[b] += 1
    for v in range(n):
        low[v] = comp_min[low[v] - n]


def strong_components(indptr, indices, numbering="rule"):
    """``(number of components, labels)`` of the graph of a CSR pattern (``A[u, v]``: an
    arc ``u -> v``), numbered by the rule of
    :func:`spbfs.algorithms.components.connected_components` or in the order the search
    finishes them, each vertex's arcs taken in storage order (``numbering="finish"``,
    scipy's from 1.18) or last to first (``"finish-reversed"``, scipy's up to 1.17);
    labels int32 when they fit.

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 2, 2, 3, 3]), np.array([1, 2, 3])  # 0 -> 1, 0 -> 2 -> 3
    >>> strong_components(ip, ix)
    (4, array([3, 1, 2, 0], dtype=int32))
    >>> strong_components(ip, ix, numbering="finish")
    (4, array([3, 0, 2, 1], dtype=int32))
    >>> strong_components(ip, ix, numbering="finish-reversed")
    (4, array([3, 2, 1, 0], dtype=int32))
    """
    n = indptr.size - 1
    if n > np.iinfo(np.int32).max:
        return None
    dtype = np.int32
    low = np.full(n, _NONE, np.int64 if 2 * n > np.iinfo(np.int32).max else np.int32)
    at, tallest, chain, comp_height, comp_min, comp_block = (
        np.empty(n, dtype) for _ in range(6))
    lowest = np.empty(n, low.dtype)
    ranked = numbering == "rule"
    rise = np.zeros(n if ranked else 1, dtype)
    k = _search(indptr, indices, low, at, np.empty(n, indptr.dtype), lowest, tallest, chain,
                comp_height, comp_min, comp_block, rise, ranked, numbering == "finish")
    if ranked:
        _rank(low, k, comp_height, comp_min, comp_block, at, tallest, np.empty(n + 1, dtype))
    else:
        low -= n
    return int(k), low.astype(dtype, copy=False)
