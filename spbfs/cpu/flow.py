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


@kernel
def _residual(ip, ix, data):
    """The residual graph in one kernel: A.T by a counting sort (rows sorted); A itself
    when its pattern is symmetric (A.T's slots are then the reverses), else A's rows
    merged with A.T's into buffers of twice A's entries, then the reverses.  Returns
    ``(indptr, indices, capacity, reverse, arcs)``, or ``arcs = -1`` when a row repeats a
    column (the caller then takes the general path)."""
    n = ip.size - 1
    nnz = ix.size
    for i in range(n):
        for p in range(ip[i] + 1, ip[i + 1]):
            if ix[p] == ix[p - 1]:
                return (np.empty(0, np.int32), np.empty(0, np.int32),
                        np.empty(0, np.int32), np.empty(0, np.int32), -1)
    tip = np.zeros(n + 1, np.int64)
    for e in range(nnz):
        tip[ix[e] + 1] += 1
    for v in range(n):
        tip[v + 1] += tip[v]
    # a symmetric pattern is its own residual graph: A.T's slot of an entry is then its
    # reverse, found without writing A.T (each slot checked to hold the entry's tail)
    symmetric = True
    for v in range(n + 1):
        if tip[v] != ip[v]:
            symmetric = False
            break
    nxt = tip[:-1].copy()
    if symmetric:
        reverse = np.empty(nnz, np.int32)
        for u in range(n):
            for e in range(ip[u], ip[u + 1]):
                q = nxt[ix[e]]
                nxt[ix[e]] = q + 1
                if ix[q] != u:
                    symmetric = False
                    break
                reverse[e] = q
            if not symmetric:
                break
        if symmetric:
            out_ip = np.empty(n + 1, np.int32)
            for v in range(n + 1):
                out_ip[v] = ip[v]
            out_ix = np.empty(nnz, np.int32)
            cap = np.empty(nnz, np.int32)
            for e in range(nnz):
                out_ix[e] = ix[e]
                cap[e] = data[e]
            return out_ip, out_ix, cap, reverse, nnz
        for v in range(n):
            nxt[v] = tip[v]
    tix = np.empty(nnz, np.int32)
    for u in range(n):
        for e in range(ip[u], ip[u + 1]):
            q = nxt[ix[e]]
            nxt[ix[e]] = q + 1
            tix[q] = u
    out_ip = np.empty(n + 1, np.int32)
    out_ix = np.empty(2 * nnz, np.int32)
    cap = np.empty(2 * nnz, np.int32)
    r = 0
    out_ip[0] = 0
    for i in range(n):
        a, a_end = ip[i], ip[i + 1]
        b, b_end = tip[i], tip[i + 1]
        while a < a_end or b < b_end:
            if b == b_end or (a < a_end and ix[a] <= tix[b]):
                out_ix[r] = ix[a]
                cap[r] = data[a]
                if b < b_end and ix[a] == tix[b]:
                    b += 1
                a += 1
            else:
                out_ix[r] = tix[b]
                cap[r] = 0
                b += 1
            r += 1
        out_ip[i + 1] = r
    m = r
    reverse = np.empty(m, np.int32)
    # the pattern is symmetric, rows sorted: row v's k-th entry is the k-th arc into v
    for v in range(n):
        nxt[v] = out_ip[v]
    for u in range(n):
        for e in range(out_ip[u], out_ip[u + 1]):
            v = out_ix[e]
            reverse[nxt[v]] = e
            nxt[v] += 1
    return out_ip, out_ix, cap, reverse, m


def residual_graph(ip, ix, data, tip=None, tix=None):
    """``(indptr, indices, capacity, reverse)`` of the residual graph (int32) from A's
    sorted CSR arrays (``tip``, ``tix``: A.T's, only needed when a row repeats a column)."""
    out_ip, out_ix, cap, reverse, m = _residual(ip, ix, data)
    if m >= 0:
        return out_ip, out_ix[:m], cap[:m], reverse
    if tip is None:
        import scipy.sparse as sp

        n = ip.size - 1
        T = sp.csr_array((np.zeros(ix.size, np.int8), ix, ip), shape=(n, n)).T.tocsr()
        tip, tix = T.indptr, T.indices
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
    """Fill ``flow`` (zeros on entry) with a maximum flow by shortest augmenting paths
    (the searches read one array of residual capacities; the flow is ``cap`` less it)."""
    n = ip.size - 1
    residual = cap.copy()
    pred = np.empty(n, np.int32)        # the arc each vertex was reached by
    tail = np.empty(n, np.int32)        # and the vertex it left
    queue = np.empty(n, np.int32)
    while True:
        pred[:] = -1
        queue[0] = source
        head, end = 0, 1
        found = False
        while head < end and not found:
            u = queue[head]
            head += 1
            for e in range(ip[u], ip[u + 1]):
                if residual[e] > 0:
                    v = ix[e]
                    if pred[v] == -1 and v != source:
                        pred[v] = e
                        tail[v] = u
                        if v == sink:
                            found = True
                            break
                        queue[end] = v
                        end += 1
        if not found:
            break
        push = np.iinfo(np.int32).max
        v = sink
        while v != source:
            push = min(push, residual[pred[v]])
            v = tail[v]
        v = sink
        while v != source:
            e = pred[v]
            residual[e] -= push
            residual[reverse[e]] += push
            v = tail[v]
    for e in range(ix.size):
        flow[e] = cap[e] - residual[e]


@kernel
def _levels(ip, ix, cap, source, sink, level, queue):
    """Breadth-first levels over arcs with residual capacity, up to the sink's (the
    vertices one level below it all expanded); whether the sink is reached."""
    level[:] = -1
    level[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        if level[sink] >= 0 and level[u] >= level[sink]:
            return True
        for e in range(ip[u], ip[u + 1]):
            v = ix[e]
            if cap[e] > 0 and level[v] == -1:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return level[sink] >= 0


@kernel
def _blocking_flow(ip, ix, cap, reverse, source, sink, level, progress, stack, amount, flow):
    """Augmenting paths along the levels until none is left, each found depth first from
    the source with the rows' positions kept (an arc that failed is never tried again in
    the phase).  After a path the search resumes at the tail of its first saturated arc:
    the state a restart from the source would reach.  A vertex on the sink's level other
    than the sink is never entered (nothing above that level is labelled: a dead end)."""
    last = level[sink]
    top = 0
    stack[0] = source
    amount[0] = np.iinfo(np.int32).max
    while True:
        u = stack[top]
        e = progress[u]
        end = ip[u + 1]
        above = level[u] + 1
        if above == last:
            while e < end and not (ix[e] == sink and cap[e] > 0):
                e += 1
        else:
            while e < end and not (cap[e] > 0 and level[ix[e]] == above):
                e += 1
        progress[u] = e
        if e < end:
            v = ix[e]
            push = min(amount[top], cap[e])
            if v != sink:
                top += 1
                stack[top] = v
                amount[top] = push
                continue
            # augment; resume at the tail of the first arc saturated
            first = top
            for k in range(top, -1, -1):
                f = progress[stack[k]]
                cap[f] -= push
                cap[reverse[f]] += push
                flow[f] += push
                flow[reverse[f]] -= push
                if cap[f] == 0:
                    first = k
            for k in range(1, first + 1):
                amount[k] -= push
            top = first
            continue
        # u is blocked: back to its parent, whose arc to u is done
        top -= 1
        if top < 0:
            return
        progress[stack[top]] += 1


@kernel
def dinic(ip, ix, cap, reverse, source, sink, flow):
    """Fill ``flow`` (zeros on entry) with a maximum flow by blocking flows; ``cap`` is
    consumed (left as the residual capacities)."""
    n = ip.size - 1
    level = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    progress = np.empty(n, np.int64)
    stack = np.empty(n, np.int32)
    amount = np.empty(n, np.int64)
    while _levels(ip, ix, cap, source, sink, level, queue):
        for u in range(n):
            progress[u] = ip[u]
        _blocking_flow(ip, ix, cap, reverse, source, sink, level, progress, stack, amount,
                       flow)
