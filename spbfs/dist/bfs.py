"""Distributed direction-optimising BFS on a :class:`~spbfs.dist.DistGraph`.

One level, on every rank (the design of paper 000, DESIGN.md section 4):

1. delegate stream: ``nd`` (local normals -> delegates) and ``dd`` (delegates -> delegates)
   each push from the frontier or pull into the unvisited delegates, on their own choice;
   what they find is a boolean mask over the delegates, OR-reduced over all ranks
   (blocking, or started here and waited for after step 2);
2. normal stream: ``nn`` pushes from the frontier's local normals, culls targets already
   seen and duplicates, bins the rest by owner and sends them with one all-to-all-v; ``dn``
   (delegates -> local normals) pushes or pulls; the owners keep the unvisited targets;
3. the reduced mask minus the visited delegates is the new delegate frontier, the same on
   every rank; the search stops when no rank found a normal and no delegate was found.

Normal parents travel with the targets; a delegate's parent is the minimum of the
candidates found by the ranks that discovered it, settled by one MIN reduction at the end,
so every rank agrees.
"""

from __future__ import annotations

import time

import numpy as np

from .._validation import UNREACHED, check_choice, check_positive, check_source
from . import _local
from .partition import BLOCKS

__all__ = ["ALPHA", "bfs"]

#: Push -> pull factor of each delegate block: a block pulls when the edges of its push
#: frontier, times the factor, exceed the edges left to explore by pulling (Beamer's rule,
#: applied to each block on each rank on its own).
ALPHA = {"nd": 8.0, "dn": 8.0, "dd": 8.0}

_DIRECTED_BLOCKS = ("nd", "dn", "dd")
_NO_PARENT = np.iinfo(np.int64).max
_NO_PARENT32 = np.iinfo(np.int32).max


def _directions(direction):
    if isinstance(direction, dict):
        bad = set(direction) - set(_DIRECTED_BLOCKS)
        if bad:
            raise ValueError(f"direction keys must be among {_DIRECTED_BLOCKS}, got {sorted(bad)}")
        out = dict.fromkeys(_DIRECTED_BLOCKS, "auto")
        out.update(direction)
    else:
        out = dict.fromkeys(_DIRECTED_BLOCKS, direction)
    for k, d in out.items():
        check_choice(d, f"direction[{k!r}]", ("auto", "push", "pull"))
    return out


def _alphas(alpha):
    out = dict(ALPHA)
    if alpha is None:
        return out
    if isinstance(alpha, dict):
        bad = set(alpha) - set(_DIRECTED_BLOCKS)
        if bad:
            raise ValueError(f"alpha keys must be among {_DIRECTED_BLOCKS}, got {sorted(bad)}")
        out.update(alpha)
    else:
        out = dict.fromkeys(_DIRECTED_BLOCKS, alpha)
    return {k: check_positive(a, f"alpha[{k!r}]") for k, a in out.items()}


def _compact(per_block):
    """One value when all blocks share it, else the dict (how ranks compare options)."""
    if per_block is None:
        return None
    values = set(per_block.values())
    return values.pop() if len(values) == 1 else dict(per_block)


def _degrees(G):
    if "deg" not in G._cache:
        xp = G.xp
        G._cache["deg"] = {b: xp.diff(G.blocks[b][0]).astype(np.int64) for b in BLOCKS}
    return G._cache["deg"]


def bfs(G, source, *, return_parents=False, direction="auto", alpha=None, uniquify=True,
        cull=True, nonblocking=False, kernels=None, stats=None):
    """Breadth-first search from ``source`` over a distributed graph (collective).

    Parameters
    ----------
    G : DistGraph
    source : int
        Global id of the start vertex; the same on every rank.
    return_parents : bool
        Also return the BFS tree (Graph500 parents).
    direction : {"auto", "push", "pull"} or dict
        Direction of the ``nd``, ``dn`` and ``dd`` blocks (``nn`` always pushes): one value
        for all, or a dict per block.  ``"auto"`` lets each block choose per level.
    alpha : float or dict, optional
        Push -> pull factors per block (default :data:`ALPHA`): a block pulls when its
        frontier's edges times ``alpha`` exceed the edges it would scan by pulling.
    uniquify : bool
        Drop duplicate ``nn`` targets before sending them (else the owner drops them).
    cull : bool
        Skip ``nn`` targets this rank already sent or knows visited (one byte per vertex
        of cache).
    nonblocking : bool
        Overlap the delegate OR reduction with the normal stream (``MPI_Iallreduce`` / a
        side CUDA stream) instead of completing it before.
    kernels : bool, optional
        GPU ranks: run each block as one CUDA kernel (:mod:`spbfs.dist._gpu`) instead of
        generic array operations.  Default: True on GPU ranks when every block has 32-bit
        column indices.  Ignored on CPU ranks.
    stats : dict, optional
        Filled with this rank's ``levels``, ``time``, ``comm_time``, ``compute_time``,
        ``bytes_sent`` and the per-level ``directions``.

    Returns
    -------
    levels : array
        Level of each vertex this rank owns (local-id order); -1 where unreachable.
    parents : array, optional
        Parent (global id) of each owned vertex; the source is its own parent, -1 where
        unreachable.  :meth:`DistGraph.gather` assembles the full arrays on one rank.

    Raises
    ------
    ValueError, TypeError
        The same exception on every rank (one allgather decides before the search): an
        invalid argument on some rank (the lowest such rank's message), or ``source``,
        ``return_parents``, ``direction``, ``alpha``, ``uniquify``, ``cull``,
        ``nonblocking``, ``kernels`` or the graph differing between ranks
        (``"source differs between ranks: [3, 3, 4]"``).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist
    >>> u, v = np.array([0, 0, 0, 1, 4]), np.array([1, 2, 3, 2, 5])
    >>> G = dist.DistGraph.from_edges(u, v, 6, threshold=2)
    >>> levels, parents = dist.bfs(G, 1, return_parents=True)
    >>> G.gather(levels).tolist(), G.gather(parents).tolist()
    ([1, 0, 1, 2, -1, -1], [1, 1, 1, 0, -1, -1])
    """
    c = G.comm
    D = G.D
    error = dirs = alphas = None
    try:
        dirs = _directions(direction)
        alphas = _alphas(alpha)
        source = check_source(source, G.n)
    except (TypeError, ValueError) as e:
        error = e
    # one allgather: the same error on every rank, or arguments that agree between ranks
    c.agree({"graph (n, delegates)": (G.n, D), "source": source,
             "return_parents": bool(return_parents), "direction": _compact(dirs),
             "alpha": _compact(alphas), "uniquify": bool(uniquify), "cull": bool(cull),
             "nonblocking": bool(nonblocking), "kernels": kernels}, error=error)
    want_p = bool(return_parents)
    _degrees(G)

    comm0, bytes0 = c.comm_time, c.bytes_sent
    c.sync()
    t0 = time.perf_counter()

    sd = int(G.delegate_number([source])[0])
    use_kernels = False
    if kernels is not False:
        from . import _gpu

        use_kernels = _gpu.supported(G)
    if use_kernels:
        lvl, par, dlvl, dpar, nlevels, level_dirs = _gpu.bfs_kernels(
            G, source, sd, want_p, dirs, alphas, uniquify, cull, nonblocking)
    else:
        lvl, par, dlvl, dpar, nlevels, level_dirs = _levels_generic(
            G, source, sd, want_p, dirs, alphas, uniquify, cull, nonblocking)

    # ---- settle delegate parents (MIN over candidates) and fill owned delegates
    own, num = G.owned_delegates, G.owned_delegate_numbers
    if want_p and D:
        dpar = _settle_delegate_parents(c, dpar, G.n)
    if own.size:
        lvl[own] = dlvl[num]
        if want_p:
            par[own] = dpar[num]
    c.sync()
    elapsed = time.perf_counter() - t0
    if stats is not None:
        comm_t = c.comm_time - comm0
        stats.update(levels=nlevels, time=elapsed, comm_time=comm_t,
                     compute_time=elapsed - comm_t, bytes_sent=c.bytes_sent - bytes0,
                     directions=level_dirs, source_is_delegate=sd >= 0,
                     kernels=use_kernels)
    if want_p:
        return lvl, par.astype(G.index_dtype, copy=False)
    return lvl


def _settle_delegate_parents(c, dpar, n):
    """MIN over ranks of the delegate parent candidates (``_NO_PARENT`` where none);
    int32 on the wire when every id fits (half the bytes of the int64 candidates)."""
    xp = c.xp
    if c.size > 1 and n < _NO_PARENT32:
        d32 = xp.minimum(dpar, _NO_PARENT32).astype(np.int32)
        red = c.allreduce_array(d32, "min").astype(np.int64)
        return xp.where(red == _NO_PARENT32, UNREACHED, red)
    red = c.allreduce_array(dpar, "min")
    return xp.where(red == _NO_PARENT, UNREACHED, red)


def _levels_generic(G, source, sd, want_p, dirs, alphas, uniquify, cull, nonblocking):
    """The level loop with array operations only (numpy or cupy).

    Returns ``(lvl, par, dlvl, dpar, levels, directions)``: owned-vertex and delegate
    levels and parents (delegate parents not yet reduced over ranks).
    """
    c, xp = G.comm, G.xp
    P, rank, D, n_loc = G.P, G.rank, G.D, G.n_local
    idt = G.index_dtype
    ldt = np.int32 if max(n_loc, 1) * P < 2**31 else np.int64
    deg = _degrees(G)
    nn_ip, nn_ix = G.blocks["nn"]
    nd_ip, nd_ix = G.blocks["nd"]
    dn_ip, dn_ix = G.blocks["dn"]
    dd_ip, dd_ix = G.blocks["dd"]
    dglob = G.delegates
    cull = bool(cull) and P > 1

    nvis = xp.zeros(n_loc, bool)
    nvis[G.owned_delegates] = True          # delegates never count as normal discoveries
    lvl = xp.full(n_loc, UNREACHED, idt)
    par = xp.full(n_loc, UNREACHED, np.int64) if want_p else None
    dvis = xp.zeros(D, bool)
    dlvl = xp.full(D, UNREACHED, idt)
    dpar = xp.full(D, _NO_PARENT, np.int64) if want_p else None
    seen = xp.zeros(G.n, bool) if cull else None

    empty = xp.zeros(0, np.int64)
    fn, fd = _local.seed_source(source, sd, P, rank, nvis, lvl, par, dvis, dlvl, dpar, xp)
    if cull:
        seen[source] = True

    # edges each pull would still scan (Beamer's m_u), per block, on this rank
    unexplored = {
        "nd": int(deg["dn"].sum()) - (int(deg["dn"][sd]) if sd >= 0 else 0),
        "dn": int(deg["nd"].sum()) - (int(deg["nd"][fn].sum()) if fn.size else 0),
        "dd": int(deg["dd"].sum()) - (int(deg["dd"][sd]) if sd >= 0 else 0),
    }
    level_dirs = []
    level = 0
    while True:
        level += 1
        # ---- direction of each delegate-side block (one host sync for all three)
        work = xp.stack([deg["nd"][fn].sum() if fn.size else xp.zeros((), np.int64),
                         deg["dn"][fd].sum() if fd.size else xp.zeros((), np.int64),
                         deg["dd"][fd].sum() if fd.size else xp.zeros((), np.int64)])
        work = dict(zip(("nd", "dn", "dd"), (int(w) for w in c.to_host(work)), strict=True))
        if level > 1:   # the frontier's edges are explored now (level 1: done at the source)
            unexplored["dn"] -= work["nd"]
            unexplored["nd"] -= work["dn"]
            unexplored["dd"] -= work["dd"]
        chosen = {}
        for b in _DIRECTED_BLOCKS:
            d = dirs[b]
            if d == "auto":
                d = "pull" if work[b] * alphas[b] > unexplored[b] else "push"
            chosen[b] = d
        level_dirs.append(chosen)

        # ---- 1. delegate stream: nd and dd discoveries -> mask over delegates
        found_d = xp.zeros(D, bool)
        cand = xp.full(D, -1, np.int64) if want_p else None
        if D:
            # dd first: it finds most delegates, and a pull skips rows already found
            if chosen["dd"] == "push":
                if fd.size:
                    t, s = _local.push(dd_ip, dd_ix, fd, dvis)
                    found_d[t] = True
                    if want_p:
                        cand[t] = dglob[fd[s]]
            else:
                rows = xp.flatnonzero(~dvis & (deg["dd"] > 0))
                r_, col = _local.pull(dd_ip, dd_ix, rows, dvis)
                found_d[r_] = True
                if want_p:
                    cand[r_] = dglob[col]
            if chosen["nd"] == "push":
                if fn.size:
                    t, s = _local.push(nd_ip, nd_ix, fn, dvis)
                    found_d[t] = True
                    if want_p:
                        cand[t] = fn[s] * P + rank
            else:
                rows = xp.flatnonzero(~dvis & ~found_d & (deg["dn"] > 0))
                r_, col = _local.pull(dn_ip, dn_ix, rows, nvis)
                found_d[r_] = True
                if want_p:
                    cand[r_] = col.astype(np.int64) * P + rank
        pending = c.allreduce_or_start(found_d, blocking=not nonblocking)

        # ---- 2. normal stream: nn push + all-to-all-v, dn push or pull
        counts = np.zeros(P, np.int64)
        send = [xp.zeros(0, ldt)] + ([xp.zeros(0, np.int64)] if want_p else [])
        if fn.size:
            t, s = _local.push(nn_ip, nn_ix, fn, seen if cull else (nvis if P == 1 else None))
            if t.size:
                t = t.astype(np.int64)
                p = fn[s] * P + rank if want_p else None
                if uniquify:
                    if want_p:
                        t, p = _local.first_per_key(t, p, G.n)
                    else:
                        t = _local.unique_keys(t, G.n)
                if cull:
                    seen[t] = True
                order, counts = _local.bin_by(t % P, P)
                send = [(t[order] // P).astype(ldt)] + ([p[order]] if want_p else [])
        recv, _ = c.alltoallv_many(send, counts)
        j = recv[0].astype(np.int64)
        keep = ~nvis[j]
        new_keys = [j[keep]]
        new_vals = [recv[1][keep]] if want_p else []
        if D:
            if chosen["dn"] == "push":
                if fd.size:
                    t, s = _local.push(dn_ip, dn_ix, fd, nvis)
                    new_keys.append(t.astype(np.int64))
                    if want_p:
                        new_vals.append(dglob[fd[s]])
            else:
                rows = xp.flatnonzero(~nvis & (deg["nd"] > 0))
                r_, col = _local.pull(nd_ip, nd_ix, rows, dvis)
                new_keys.append(r_.astype(np.int64))
                if want_p:
                    new_vals.append(dglob[col])
        keys = xp.concatenate(new_keys)
        if want_p:
            new, newp = _local.first_per_key(keys, xp.concatenate(new_vals), n_loc)
            par[new] = newp
        else:
            new = _local.unique_keys(keys, n_loc)
        nvis[new] = True
        lvl[new] = level
        if cull and new.size:
            seen[new * P + rank] = True

        # ---- 3. delegates: the reduced mask is the same everywhere
        reduced = pending.wait()
        new_d = xp.flatnonzero(reduced & ~dvis) if D else empty
        if new_d.size:
            dvis[new_d] = True
            dlvl[new_d] = level
            if want_p:
                mine = new_d[found_d[new_d]]
                dpar[mine] = cand[mine]
        total = int(c.allreduce(int(new.size))) + int(new_d.size)
        if total == 0:
            break
        fn, fd = new, new_d

    return lvl, par, dlvl, dpar, level - 1, level_dirs
