"""numpy stand-ins for the CUDA kernels of spbfs.dist._gpu (same arguments, same effect).

Used to run the GPU level loop on CPU ranks, so its orchestration is tested where no GPU is.
"""

import numpy as np


def emulated_kernels():
    """numpy stand-ins with the semantics of the CUDA kernels of spbfs.dist._gpu."""
    from spbfs.dist import _local

    rng = np.random.default_rng(0)

    def gid(ids, arr, use, P, rank):
        return arr[ids] if use else ids.astype(np.int64) * int(P) + int(rank)

    def pull(grid, block, args):
        ip, ix, nrows, skip, hit, garr, use, P, rank, flag, parent, wp = args
        rows = np.flatnonzero(~skip[:nrows].astype(bool) & ~flag[:nrows].astype(bool))
        r, col = _local.pull(ip, ix, rows, hit.astype(bool))
        flag[r] = True
        if wp:
            parent[r] = gid(col, garr, use, P, rank)

    def push_nn(grid, block, args, shared_mem=0):
        (ip, ix, fr, nf, scan, total, P, rank, seen, use_seen, out_t, out_p, wp, counter,
         owner_count, count_owners) = args
        assert int(scan[-1]) == int(total) and scan.size == int(nf) + 1
        pos, seg = _local.expand(ip, fr[:nf])
        t = ix[pos].astype(np.int64)
        if use_seen:
            fresh = ((seen[t >> 5] >> (t & 31).astype(np.uint32)) & 1) == 0
            t, seg = t[fresh], seg[fresh]
            t, first = np.unique(t, return_index=True)
            seg = seg[first]
            set_bits(None, None, (t, t.size, seen))
        order = rng.permutation(t.size)             # the kernel's order is arbitrary
        t, seg = t[order], seg[order]
        k = t.size
        out_t[:k] = t
        if wp:
            out_p[:k] = fr[seg] * int(P) + int(rank)
        counter[0] = k
        if count_owners:
            owner_count[:] = np.bincount(t % int(P), minlength=int(P))
        assert shared_mem == (4 * int(P) if count_owners else 0)

    def bin_owner(grid, block, args, shared_mem=0):
        t, p, k, P, cursor, send_t, send_p, wp = args
        t = t[:int(k)].astype(np.int64)
        owner = t % int(P)
        order = np.argsort(owner, kind="stable")
        o = owner[order]
        within = np.arange(o.size) - np.searchsorted(o, o, side="left")
        pos = cursor[o].astype(np.int64) + within
        send_t[pos] = t[order] // int(P)
        if wp:
            send_p[pos] = p[:int(k)][order]
        np.add.at(cursor, owner, np.uint64(1))

    def push_edges(grid, block, args, shared_mem=0):
        ip, ix, fr, nf, scan, total, garr, use, P, rank, blocked, flag, parent, wp = args
        assert int(scan[-1]) == int(total) and scan.size == int(nf) + 1
        pos, seg = _local.expand(ip, fr[:nf])
        t = ix[pos]
        keep = ~blocked[t].astype(bool)
        flag[t[keep]] = True
        if wp:
            parent[t[keep]] = gid(fr[seg[keep]], garr, use, P, rank)

    def settle(grid, block, args):
        (nrows, mode, flag, vis, lvl, level, par, pval, mine, wp, seen, P, rank,
         deg_a, deg_b, out, cnt) = args
        nrows = int(nrows)
        f = flag[:nrows].astype(bool)
        if mode == 0:
            new = np.flatnonzero(f)
            flag[new] = False
        else:
            new = np.flatnonzero(f & ~vis[:nrows].astype(bool))
        new = rng.permutation(new)                  # the kernel's order is arbitrary
        vis[new] = True
        lvl[new] = level
        if wp:
            sel = new if mode == 0 else new[mine[new].astype(bool)]
            par[sel] = pval[sel]
        if mode == 0:
            set_bits(None, None, (new * int(P) + int(rank), new.size, seen))
        out[:new.size] = new
        cnt[0] += new.size
        cnt[1] += int(deg_a[new].sum())
        cnt[2] += int(deg_b[new].sum())

    def apply_recv(grid, block, args):
        j, k, vis, flag, pnew, p, wp = args
        j = j[:int(k)]
        keep = ~vis[j].astype(bool)
        flag[j[keep]] = True
        if wp:
            pnew[j[keep]] = p[:int(k)][keep]

    def set_bits(grid, block, args):
        ids, k, bits = args
        ids = ids[:k]
        np.bitwise_or.at(bits, ids >> 5, (np.uint32(1) << (ids & 31).astype(np.uint32)))

    table = {"spbfs_dist_pull_warp": pull,
             "spbfs_dist_pull_thread": pull, "spbfs_dist_push_nn": push_nn,
             "spbfs_dist_bin_owner": bin_owner,
             "spbfs_dist_set_bits": set_bits, "spbfs_dist_push_edges": push_edges,
             "spbfs_dist_settle": settle, "spbfs_dist_apply_recv": apply_recv}
    return lambda name, indptr=None: table[name]
