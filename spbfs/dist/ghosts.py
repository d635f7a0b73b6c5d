"""Ghost slots: the other ranks' vertices that a rank's ``remote`` edges reach, numbered so
that a level's remote targets travel as fixed-size bitmaps.

The distinct targets of ``remote`` are sorted by owner, then by local id there; owner
``q``'s run of ``t_q`` targets gets ``ceil(t_q / 32)`` whole uint32 words of its own, so
the bits for ``q`` are one contiguous piece of a rank's outgoing words.  ``remote``'s
columns are renumbered to those bit positions (the *slots*).  Once, when the slots are
made, each rank sends every owner its list of targets there; the owner keeps, for the bits
each peer will send it, the local id each stands for.

A level's exchange is then one all-to-all of words whose sizes are known from the start:
no counts to exchange and no host read of them (``spbfs.dist.bfs``).  At the end of a
search the reverse exchange of the same pieces gives each rank its slots' levels on their
owners, from which a vertex found through another rank's word gets a parent
(:meth:`~spbfs.core.seam.LevelSearch.remote_parents`).
"""

from __future__ import annotations

import functools

import numpy as np

from ..semiring._matrix import Matrix

__all__ = ["Ghosts", "build"]


class Ghosts:
    """A rank's ghost slots (module docstring).

    Attributes
    ----------
    R : Matrix
        ``remote`` with its columns numbered by slot (a pattern; ``32 * sum(send_words)``
        columns).
    send_words, recv_words : numpy int64 arrays
        Words of each rank's piece: the bits this rank sends to / receives from it.
    send_starts, recv_starts : numpy int64 arrays
        Where each piece starts, in words.
    column_ids : array
        Global id of each slot (-1 where a piece is padded).
    in_ids : array
        Local id on this rank of each bit received (-1 where padded).
    """

    def __init__(self, R, send_words, recv_words, column_ids, in_ids):
        self.R = R
        self.send_words = np.asarray(send_words, np.int64)
        self.recv_words = np.asarray(recv_words, np.int64)
        self.send_starts = np.cumsum(self.send_words) - self.send_words
        self.recv_starts = np.cumsum(self.recv_words) - self.recv_words
        self.column_ids, self.in_ids = column_ids, in_ids

    @property
    def nbytes(self) -> int:
        """Bytes of the slot tables and the renumbered columns."""
        return int(self.R.indices.nbytes + self.column_ids.nbytes + self.in_ids.nbytes)

    def exchange(self, c, out_words, after=None, recv=None):
        """Start the level's all-to-all of ``out_words`` (this rank's pieces), after the work
        marked by ``after`` (:meth:`Communicator.ready`), into ``recv`` if given; the
        result's ``wait()`` gives the received pieces, one after another."""
        return c.alltoallv_start([out_words], self.send_words, self.recv_words,
                                 starts=self.send_starts, after=after,
                                 recv=None if recv is None else [recv])

    def levels_on_owners(self, c, levels, dtype):
        """Each slot's level on its owner (``dtype``: uint8 keeps levels modulo 256), by the
        reverse exchange of the pieces: one all-to-all of ``32 * words`` values."""
        xp = c.xp
        pad = -1 if dtype.kind == "i" else 255
        ids = self.in_ids
        if not levels.size:
            mine = xp.full(ids.size, pad, dtype)
        elif xp is np:
            mine = np.where(ids >= 0, levels[np.maximum(ids, 0)], pad).astype(dtype)
        else:   # one pass (no boolean indexing: no host synchronisation)
            mine = _slot_levels()(ids, levels, dtype.type(pad), xp.empty(ids.size, dtype))
        recv = c.alltoallv_start([mine], 32 * self.recv_words, 32 * self.send_words,
                                 starts=32 * self.recv_starts).wait()[0]
        return recv


@functools.cache
def _slot_levels():
    """GPU ranks: each received bit's vertex's level (cast to the output's type: uint8
    keeps it modulo 256), ``pad`` where a piece is padded."""
    import cupy

    return cupy.ElementwiseKernel("I id, raw L levels, T pad", "T out",
                                  "out = id >= 0 ? (T)levels[id] : pad",
                                  "spbfs_dist_slot_levels")


def build(G) -> Ghosts:
    """The :class:`Ghosts` of ``G``'s ``remote`` matrix (collective: one all-to-all-v of
    the targets).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.dist import DistGraph
    >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> G.ghosts() is None   # one rank: no remote edges
    True
    """
    c, xp, P = G.comm, G.xp, G.P
    R = G.layout.remote
    idt = G.index_dtype
    cols = R.indices.astype(np.int64)
    width = -(-G.n // P)
    keys = (cols % P) * width + cols // P
    uniq, slot = xp.unique(keys, return_inverse=True)
    del keys
    owner, local = uniq // width, uniq % width
    counts = np.bincount(c.to_host(owner), minlength=P).astype(np.int64)
    words = -(-counts // 32)
    word_start = np.cumsum(words) - words
    first = np.cumsum(counts) - counts
    shift = xp.asarray(32 * word_start - first)
    padded = xp.arange(uniq.size, dtype=np.int64) + shift[owner]
    indices = padded[slot.ravel()].astype(idt)
    del slot
    ncols = max(32 * int(words.sum()), 1)
    column_ids = xp.full(ncols, -1, idt)
    column_ids[padded] = (local * P + owner).astype(idt)
    (received,), rc = c.alltoallv_many([local.astype(idt)], counts)
    recv_words = -(-rc // 32)
    recv_first = np.cumsum(rc) - rc
    in_ids = xp.full(max(32 * int(recv_words.sum()), 1), -1, idt)
    if received.size:
        at = xp.arange(received.size, dtype=np.int64)
        peer = xp.asarray(np.repeat(np.arange(P), rc))
        base = xp.asarray(32 * (np.cumsum(recv_words) - recv_words) - recv_first)
        in_ids[at + base[peer]] = received
    Rg = Matrix(R.indptr, indices, xp.broadcast_to(xp.ones(1, bool), (indices.size,)),
                R.nrows, ncols=ncols, check=False)
    return Ghosts(Rg, words, recv_words, column_ids, in_ids)
