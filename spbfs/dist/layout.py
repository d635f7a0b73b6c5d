"""A rank's four blocks as the two matrices its search runs on: ``local`` and ``remote``.

A rank's search works in a *local vertex space*: its normal vertices at ``0 .. n_local - 1``
(padded to ``n_pad``, a multiple of 32), then the delegates at ``n_pad + d`` (padded to a
multiple of 32 as well, so the delegates' visited bits are whole words of the bitmap that
the ranks OR together).

``local`` (square, symmetric) holds every edge whose both ends are in that space::

    rows of normals:    nd (-> n_pad + delegate)   then nn edges to normals of this rank
    rows of delegates:  dd (-> n_pad + delegate)   then dn (-> local normal)

(delegates first in each row, as they are the likely-visited hubs a pull stops at).
``remote`` holds the other ``nn`` edges, to normals of other ranks, by global id; it is
None on one rank, where every edge is local.  A search is then the single-GPU level
search on ``local`` (:func:`spbfs.semiring.level_search`), plus a push through ``remote``
whose targets go to their owners, plus the OR of the delegate bits.
"""

from __future__ import annotations

import numpy as np

from ..semiring._matrix import Matrix
from ..semiring._pattern import Pattern

__all__ = ["Layout", "build"]

#: Elements placed per step when the blocks are stacked (bounds the temporaries).
_STEP = 1 << 26


def round32(x: int) -> int:
    """``x`` rounded up to a multiple of 32.

    Examples
    --------
    >>> round32(0), round32(1), round32(64)
    (0, 32, 64)
    """
    return -(-int(x) // 32) * 32


class Layout:
    """The matrices of one rank: ``local``, ``remote`` (or None), and where things are.

    Attributes
    ----------
    local : Matrix
        Square, symmetric, on ``n_pad + d_pad`` local vertices.
    remote : Matrix or None
        ``n_pad + d_pad`` rows, ``n`` columns (global ids of other ranks' normals).
    n_pad : int
        First local id of the delegates.
    d_words : int
        Bitmap words of the delegates (``d_pad / 32``).
    nbytes : int
        Bytes of both matrices.
    """

    def __init__(self, local, remote, n_pad, d_pad):
        self.local, self.remote = local, remote
        self._out_degree = None
        #: the remote matrix's ghost slots (:meth:`DistGraph.ghosts`), made on first use
        self.ghosts = None
        self.n_pad, self.d_words = int(n_pad), int(d_pad) // 32
        self.nbytes = sum(int(m.indptr.nbytes + m.indices.nbytes)
                          for m in (local, remote) if m is not None)

    @property
    def local_out_degree(self):
        """Arcs of each row of ``local`` (kept after the first use)."""
        if self._out_degree is None:
            self._out_degree = self.local.xp.diff(self.local.indptr)
        return self._out_degree


def _split_nn(xp, indptr, indices, weights, P, rank):
    """The ``nn`` block split into edges to this rank's normals (as local ids) and the rest
    (global ids): two ``(degrees, indices, weights)`` triples, order kept within rows
    (weights None for a pattern)."""
    mine = (indices % P) == rank
    c = xp.zeros(indices.size + 1, np.int64)
    xp.cumsum(mine, out=c[1:])
    deg_mine = c[indptr[1:]] - c[indptr[:-1]]
    deg_all = xp.diff(indptr).astype(np.int64)
    w_mine = w_far = None
    if weights is not None:
        w_mine, w_far = weights[mine], weights[~mine]
    return ((deg_mine, indices[mine] // P, w_mine),
            (deg_all - deg_mine, indices[~mine], w_far))


def _stack(xp, nrows, parts, idx_dtype, ptr_dtype):
    """CSR of ``nrows`` rows whose row ``r`` lists, part after part, the entries each part
    gives row ``r``.  A part is ``(first_row, degrees, values, shift, weights)``:
    ``degrees[i]`` entries of row ``first_row + i``, taken in order from ``values`` (plus
    ``shift``) and ``weights`` (None for a pattern: then the result has no data)."""
    deg = xp.zeros(nrows, np.int64)
    for first, d, _, _, _ in parts:
        deg[first:first + d.size] += d
    indptr = xp.zeros(nrows + 1, np.int64)
    xp.cumsum(deg, out=indptr[1:])
    out = xp.empty(int(indptr[-1]), idx_dtype)
    weighted = parts and parts[0][4] is not None
    data = xp.empty(int(indptr[-1]), np.float64) if weighted else None
    filled = indptr[:-1].copy()   # next free slot of each row
    for first, d, values, shift, weights in parts:
        m = d.size
        start = xp.zeros(m + 1, np.int64)
        xp.cumsum(d, out=start[1:])
        # element e of the part (row i) goes to filled[first + i] + e - start[i]
        offset = filled[first:first + m] - start[:-1]
        for e0 in range(0, int(values.size), _STEP):
            e = xp.arange(e0, min(e0 + _STEP, int(values.size)), dtype=np.int64)
            row = xp.searchsorted(start, e, side="right") - 1
            at = e + offset[row]
            out[at] = values[e0:e0 + e.size].astype(idx_dtype) + shift
            if weighted:
                data[at] = weights[e0:e0 + e.size]
        filled[first:first + m] += d
    return indptr.astype(ptr_dtype), out, data


def _matrix(xp, indptr, indices, data, nrows, ncols, symmetric):
    pattern = Pattern(indptr, indices, nrows, ncols=ncols, symmetric=symmetric)
    if data is None:
        # a pattern: a zero-stride view of ones stands for the values
        data = xp.broadcast_to(xp.ones(1, bool), (indices.size,))
    return Matrix._from_pattern(pattern, data, values_symmetric=symmetric)


def build(blocks, n, n_local, D, P, rank, xp, symmetric=True) -> Layout:
    """The :class:`Layout` of one rank from its four blocks (``{name: (indptr, indices,
    weights or None)}``, consumed: each is dropped once placed); ``symmetric``: whether
    the local matrix is (an undirected graph's).

    Examples
    --------
    >>> import numpy as np
    >>> ip = lambda *d: np.concatenate([[0], np.cumsum(d)]).astype(np.int32)
    >>> blocks = {"nn": (ip(1, 0), np.array([1]), None),
    ...           "nd": (ip(1, 1), np.array([0, 0]), None),
    ...           "dn": (ip(2), np.array([0, 1]), None), "dd": (ip(0), np.array([], int), None)}
    >>> lay = build(blocks, 3, 2, 1, 1, 0, np)
    >>> lay.n_pad, lay.d_words, lay.remote is None
    (32, 1, True)
    >>> L = lay.local
    >>> L.shape, L.indices[L.indptr[0]:L.indptr[1]].tolist(), L.indices[L.indptr[32]:].tolist()
    ((64, 64), [32, 1], [0, 1])
    """
    n_pad, d_pad = round32(n_local), round32(D)
    nl = n_pad + d_pad
    idt = np.int32 if n + 2 < 2**31 else np.int64   # global ids, and -1, fit
    (nn_ip, nn_ix, nn_w) = blocks.pop("nn")
    (mine_deg, mine_ix, mine_w), (far_deg, far_ix, far_w) = _split_nn(xp, nn_ip, nn_ix, nn_w,
                                                                      P, rank)
    del nn_ip, nn_ix, nn_w
    nnz_local = sum(int(blocks[b][1].size) for b in ("nd", "dn", "dd")) + int(mine_ix.size)
    ptr_dt = np.int32 if max(nnz_local, int(far_ix.size)) < 2**31 else np.int64

    def part(first, name, shift):
        ip, ix, w = blocks.pop(name)
        return first, xp.diff(ip).astype(np.int64), ix, shift, w

    parts = [part(0, "nd", n_pad), (0, mine_deg, mine_ix, 0, mine_w),
             part(n_pad, "dd", n_pad), part(n_pad, "dn", 0)]
    ip, ix, w = _stack(xp, nl, parts, idt, ptr_dt)
    del parts, mine_deg, mine_ix, mine_w
    local = _matrix(xp, ip, ix, w, nl, nl, symmetric)
    remote = None
    if P > 1:
        ip, ix, w = _stack(xp, nl, [(0, far_deg, far_ix, 0, far_w)], idt, ptr_dt)
        remote = _matrix(xp, ip, ix, w, nl, n, False)
    return Layout(local, remote, n_pad, d_pad)
