"""The CPU's maximum flow: the residual graph and both of scipy's methods in kernels.

The residual graph holds every arc and its reverse: the union of the pattern of ``A`` and of
``A.T``, rows sorted, an arc of ``A`` keeping its capacity and an added reverse arc holding
zero (scipy's ``_add_reverse_edges``); ``reverse[e]`` is the position of arc ``e``'s
reverse.  The augmenting paths are scipy's, so the flows are too:

* Edmonds-Karp: a breadth-first search from the source over arcs with residual capacity,
  each vertex reached by the first such arc in queue order, stopping at the sink; the path
  gets the bottleneck.
* Dinic: breadth-first levels over arcs with residual capacity, then depth-first searches
  that keep each vertex's position in its row (a blocked arc is never tried again in the
  phase).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["dinic", "edmonds_karp", "residual_graph"]


@kernel
def _merge_rows(ip, ix, data, tip, tix, out_ip, out_ix, out_data, fill):
    """One pass over the rows of A and A.T merged (a pair of equal columns counts once,
    with A's value); ``fill`` False only counts the row lengths into ``out_ip``."""
    n = ip.size - 1
    r = 0
    for i in range(n):
        a, a_end = ip[i], ip[i + 1]
        b, b_end = tip[i], tip[i + 1]
        while a < a_end or b < b_end:
            take_a = a < a_end and (b == b_end or ix[a] <= tix[b])
            take_b = b < b_end and (a == a_end or tix[b] <= ix[a])
            if fill:
                if take_a:
                    out_ix[r] = ix[a]
                    out_data[r] = data[a]
                else:
                    out_ix[r] = tix[b]
                    out_data[r] = 0
            if take_a:
                a += 1
            if take_b:
                b += 1
            r += 1
        out_ip[i + 1] = r


@kernel
def _reverse_positions(ip, ix, reverse):
    """``reverse[e]``: the position of arc ``e``'s reverse (the pattern is symmetric, rows
    sorted: row ``v``'s k-th entry is the k-th arc into ``v`` in row order)."""
    n = ip.size - 1
    nxt = ip[:-1].copy()
    for u in range(n):
        for e in range(ip[u], ip[u + 1]):
            v = ix[e]
            reverse[nxt[v]] = e
            nxt[v] += 1


def residual_graph(ip, ix, data, tip, tix):
    """``(indptr, indices, capacity, reverse)`` of the residual graph (int32) from A's
    sorted CSR arrays and A.T's."""
    n = ip.size - 1
    out_ip = np.zeros(n + 1, np.int64)
    empty_i = np.empty(0, np.int32)
    _merge_rows(ip, ix, data, tip, tix, out_ip, empty_i, empty_i, False)
    m = int(out_ip[-1])
    out_ix = np.empty(m, np.int32)
    cap = np.empty(m, np.int32)
    _merge_rows(ip, ix, data, tip, tix, out_ip, out_ix, cap, True)
    out_ip = out_ip.astype(np.int32)
    reverse = np.empty(m, np.int32)
    _reverse_positions(out_ip, out_ix, reverse)
    return out_ip, out_ix, cap, reverse


@kernel
def edmonds_karp(ip, ix, cap, reverse, source, sink, flow):
    """Fill ``flow`` (zeros on entry) with a maximum flow by shortest augmenting paths."""
    n = ip.size - 1
    tails = np.empty(ix.size, np.int32)
    for u in range(n):
        for e in range(ip[u], ip[u + 1]):
            tails[e] = u
    pred = np.empty(n, np.int64)
    queue = np.empty(n, np.int64)
    while True:
        pred[:] = -1
        queue[0] = source
        head, tail = 0, 1
        found = False
        while head < tail and not found:
            u = queue[head]
            head += 1
            for e in range(ip[u], ip[u + 1]):
                v = ix[e]
                if pred[v] == -1 and v != source and cap[e] > flow[e]:
                    pred[v] = e
                    if v == sink:
                        found = True
                        break
                    queue[tail] = v
                    tail += 1
        if not found:
            return
        push = np.iinfo(np.int32).max
        v = sink
        while v != source:
            e = pred[v]
            push = min(push, cap[e] - flow[e])
            v = tails[e]
        v = sink
        while v != source:
            e = pred[v]
            flow[e] += push
            flow[reverse[e]] -= push
            v = tails[e]


@kernel
def _levels(ip, ix, cap, source, sink, level, queue):
    """Breadth-first levels over arcs with residual capacity; whether the sink is reached."""
    level[:] = -1
    level[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        if u == sink:
            return True
        for e in range(ip[u], ip[u + 1]):
            v = ix[e]
            if cap[e] > 0 and level[v] == -1:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return False


@kernel
def _augment(ip, ix, cap, reverse, source, sink, level, progress, stack, amount, flow):
    """One augmenting path along the levels, found depth first from the source with the
    rows' positions kept; False when none is left."""
    top = 0
    stack[0] = source
    amount[0] = np.iinfo(np.int32).max
    while True:
        u = stack[top]
        e = progress[u]
        if e < ip[u + 1]:
            v = ix[e]
            if cap[e] > 0 and level[v] == level[u] + 1:
                push = min(amount[top], cap[e])
                if v == sink:
                    while top >= 0:
                        f = progress[stack[top]]
                        cap[f] -= push
                        cap[reverse[f]] += push
                        flow[f] += push
                        flow[reverse[f]] -= push
                        top -= 1
                    return True
                top += 1
                stack[top] = v
                amount[top] = push
                continue
        # blocked: leave the vertices whose last arc failed, then advance the parent
        while progress[u] >= ip[u + 1] - 1:
            top -= 1
            if top < 0:
                return False
            u = stack[top]
        progress[u] += 1


@kernel
def dinic(ip, ix, cap, reverse, source, sink, flow):
    """Fill ``flow`` (zeros on entry) with a maximum flow by blocking flows; ``cap`` is
    consumed (left as the residual capacities)."""
    n = ip.size - 1
    level = np.empty(n, np.int64)
    queue = np.empty(n, np.int64)
    progress = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    amount = np.empty(n, np.int64)
    while _levels(ip, ix, cap, source, sink, level, queue):
        for u in range(n):
            progress[u] = ip[u]
        while _augment(ip, ix, cap, reverse, source, sink, level, progress, stack, amount,
                       flow):
            pass
