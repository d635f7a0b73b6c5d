"""CPython's set tables, simulated: the iteration order of a Python set built by adding keys
of known hashes, without making the keys.

NetworkX's results sometimes follow the order of a Python set (``next(iter(a & b))``, a
graph built from the edges of a set).  A set is an open-addressed table of ``2**k`` slots
(8 at first) and iterates in slot order.  A key goes to slot ``hash & mask``, else to the
first free one of the 9 after it (where they lie inside the table), else the same from
``i * 5 + 1 + perturb`` (``perturb``: the hash, shifted right 5 bits at each jump).  After
an insertion that fills 3/5 of the table, the keys move to a table of the first power of
two above 4 times (2 times above 50,000 keys) their number, in the old table's slot order.
Keys are distinct here (no lookup finds an equal one) and never removed, so every table is
a function of the hashes in insertion order.  :func:`matches_python` checks this model
against the running interpreter's sets.

``hash((a, b))`` of a tuple is a function of ``hash(a)`` and ``hash(b)`` alone (xxHash's
rounds): :func:`tuple_hashes` computes it for arrays of item hashes.
"""

from __future__ import annotations

import functools

import numpy as np

from ._jit import kernel
from ._prefetch import prefetch_flat

__all__ = ["intersection_order", "matches_python", "model_holds", "pair_set_order",
           "set_order", "tuple_hashes"]

_PRIME_1 = np.uint64(11400714785074694791)
_PRIME_2 = np.uint64(14029467366897019727)
_PRIME_5 = np.uint64(2870177450012600261)
_LENGTH_2 = np.uint64(2 ^ 2870177450012600261 ^ 3527539)
_MINUS_ONE = np.uint64(0xFFFFFFFFFFFFFFFF)
_TUPLE_MINUS_ONE = np.uint64(1546275796)
#: Keys ahead whose home slots are prefetched.
_DISTANCE = 16


@kernel
def _tuple_hash(a, b):  # pragma: no cover - compiled
    """``hash((x, y))`` from ``a = hash(x)``, ``b = hash(y)`` (uint64)."""
    acc = _PRIME_5
    acc += a * _PRIME_2
    acc = (acc << np.uint64(31)) | (acc >> np.uint64(33))
    acc *= _PRIME_1
    acc += b * _PRIME_2
    acc = (acc << np.uint64(31)) | (acc >> np.uint64(33))
    acc *= _PRIME_1
    acc += _LENGTH_2
    if acc == _MINUS_ONE:
        return _TUPLE_MINUS_ONE
    return acc


@kernel
def _tuple_hashes(a, b, out):  # pragma: no cover - compiled
    for k in range(out.size):
        out[k] = _tuple_hash(a[k], b[k])


def tuple_hashes(a, b):
    """``hash((x, y))`` of each pair from the item hashes ``a = hash(x)``, ``b = hash(y)``.

    Parameters
    ----------
    a, b : numpy.ndarray
        int64 (as ``hash`` returns them) or uint64, of one length.

    Returns
    -------
    numpy.ndarray
        uint64: the tuples' hashes, as ``hash`` returns them modulo ``2**64``.

    Examples
    --------
    >>> import numpy as np
    >>> h = tuple_hashes(np.array([hash("a")]), np.array([hash(7)]))
    >>> int(h[0].astype(np.int64)) == hash(("a", 7))
    True
    """
    a = np.ascontiguousarray(a).view(np.uint64)
    b = np.ascontiguousarray(b).view(np.uint64)
    out = np.empty(a.size, np.uint64)
    _tuple_hashes(a, b, out)
    return out


@kernel(inline="always")
def _place(keys, hs, base, size, h, e):  # pragma: no cover - compiled
    """Key ``e`` of hash ``h`` into the first free slot of the table ``keys[base:base +
    size]`` (its hashes in ``hs``), by CPython's probe sequence."""
    mask = np.uint64(size - 1)
    i = h & mask
    perturb = h
    while True:
        if keys[base + i] < 0:
            keys[base + i] = e
            hs[base + i] = h
            return
        if i + np.uint64(9) <= mask:
            for j in range(i + np.uint64(1), i + np.uint64(10)):
                if keys[base + j] < 0:
                    keys[base + j] = e
                    hs[base + j] = h
                    return
        perturb >>= np.uint64(5)
        i = (i * np.uint64(5) + np.uint64(1) + perturb) & mask


@kernel
def _fill(keys, hs, which, size, used, hseq, eseq):  # pragma: no cover - compiled
    """Add the keys ``eseq`` (absent ones, of hashes ``hseq``) in order to the set whose
    table is ``keys[which, :size]`` (hashes ``hs[which]``) holding ``used`` keys: its table
    afterwards, ``(which, size, used)``.  A table that fills to 3/5 moves to the other
    buffer (its keys placed in slot order, their stored hashes read in order)."""
    table, th = keys[which], hs[which]
    n = hseq.size
    for k in range(n):
        if k + _DISTANCE < n:
            home = hseq[k + _DISTANCE] & np.uint64(size - 1)
            prefetch_flat(table, home)
            prefetch_flat(th, home)
        _place(table, th, 0, size, hseq[k], eseq[k])
        used += 1
        if used * 5 >= (size - 1) * 3:
            new = _grown(used)
            nt, nh = keys[1 - which], hs[1 - which]
            nt[:new] = -1
            for s in range(size):
                if table[s] >= 0:
                    _place(nt, nh, 0, new, th[s], table[s])
            which, size, table, th = 1 - which, new, nt, nh
    return which, size, used


@kernel
def _grown(used):  # pragma: no cover - compiled
    """The size of the table a set of ``used`` keys moves to when it fills."""
    minused = used * 4 if used <= 50000 else used * 2
    size = 8
    while size <= minused:
        size <<= 1
    return size


def _final_size(count):
    """The table size of a set after ``count`` additions of distinct keys."""
    size = 8
    while True:
        filled = -(-3 * (size - 1) // 5)  # the keys at which this table moves
        if count < filled:
            return size
        size = _grown(filled)


class _Table:
    """A simulated set table, in two buffers sized for the ``count`` keys it will hold (made
    by numpy: large ones get huge pages)."""

    def __init__(self, count):
        top = _final_size(count)
        self.keys = np.empty((2, top), np.int32)
        self.hs = np.empty((2, top), np.uint64)
        self.keys[0, :8] = -1
        self.state = (0, 8, 0)

    def add(self, hseq, eseq):
        """Add keys ``eseq`` of hashes ``hseq`` in order (absent ones)."""
        self.state = _fill(self.keys, self.hs, *self.state,
                           np.ascontiguousarray(hseq, dtype=np.uint64),
                           np.ascontiguousarray(eseq, dtype=np.int32))

    def order(self, keep=None):
        """The keys in the set's iteration order (those where ``keep[key]``, if given)."""
        which, size, _ = self.state
        table = self.keys[which, :size]
        if keep is None:
            return table[table >= 0]
        return _kept(table, np.ascontiguousarray(keep, dtype=np.bool_))


@kernel
def _kept(table, keep):  # pragma: no cover - compiled
    out = np.empty(table.size, table.dtype)
    k = 0
    for s in range(table.size):
        e = table[s]
        if e >= 0 and keep[e]:
            out[k] = e
            k += 1
    return out[:k].copy()


def set_order(hashes, adds=None, keep=None):
    """The iteration order of a set made empty, then given ``add`` calls of distinct keys.

    Parameters
    ----------
    hashes : numpy.ndarray
        int64 or uint64: ``hashes[e]`` is the hash of key ``e``.
    adds : numpy.ndarray, optional
        The keys added, in order (distinct; default: every key, ``0, 1, ...``).
    keep : numpy.ndarray, optional
        bool, by key: the keys to return (default: all).

    Returns
    -------
    numpy.ndarray
        int32: the keys in the order the set iterates them (those of ``keep`` where
        given).

    Examples
    --------
    >>> import numpy as np
    >>> keys = [30, 6, 14, 3]
    >>> [keys[e] for e in set_order(np.array(keys))] == list(set(keys))
    True
    """
    hashes = np.ascontiguousarray(hashes).view(np.uint64)
    if adds is None:
        adds = np.arange(hashes.size, dtype=np.int32)
    table = _Table(adds.size)
    table.add(hashes[adds], adds)
    return table.order(keep)


def pair_set_order(first, second, same, keep=None):
    """The iteration order of NetworkX's set of an undirected graph's edges: ``s =
    set(edges)``, then ``s.update((v, u) for u, v in list(s))``.

    Parameters
    ----------
    first : numpy.ndarray
        int64 or uint64: ``hash((u, v))`` of each edge, in the order ``set`` reads them.
    second : numpy.ndarray
        ``hash((v, u))`` of each edge.
    same : numpy.ndarray
        bool: ``(v, u) == (u, v)`` (a self-loop: nothing added).
    keep : numpy.ndarray, optional
        bool, by key: the keys to return (default: all).

    Returns
    -------
    numpy.ndarray
        int32: the set's keys in its order, edge ``k`` as ``k``, its reverse as ``m + k``
        (``m`` edges); those of ``keep`` where given.

    Examples
    --------
    >>> import numpy as np
    >>> edges = [(0, 1), (2, 1), (3, 3)]
    >>> s = set(edges)
    >>> s.update((v, u) for u, v in list(s))
    >>> keys = edges + [(v, u) for u, v in edges]
    >>> order = pair_set_order(np.array([hash(e) for e in edges]),
    ...                        np.array([hash(e[::-1]) for e in edges]),
    ...                        np.array([u == v for u, v in edges]))
    >>> [keys[e] for e in order] == list(s)
    True
    """
    first = np.ascontiguousarray(first).view(np.uint64)
    second = np.ascontiguousarray(second).view(np.uint64)
    same = np.asarray(same, dtype=bool)
    m = first.size
    table = _Table(2 * m - int(np.count_nonzero(same)))
    table.add(first, np.arange(m, dtype=np.int32))
    listed = table.order()
    listed = listed[~same[listed]]
    table.add(second[listed], listed + m)
    return table.order(keep)


def intersection_order(hashes, through, member):
    """The iteration order of ``a & b`` (or ``a &= b``): CPython walks the smaller set
    (``b`` where the sizes are equal) in its order, adding to a new set each key the other
    holds.

    Parameters
    ----------
    hashes : numpy.ndarray
        int64 or uint64: ``hashes[e]`` is the hash of key ``e``.
    through : numpy.ndarray
        The keys of the set walked, in its order.
    member : numpy.ndarray
        bool, along ``through``: whether the other set holds the key.

    Returns
    -------
    numpy.ndarray
        int32: the keys of the intersection, in its order.

    Examples
    --------
    >>> import numpy as np
    >>> a, b = {5, 21, 37, 2}, {37, 21, 9}
    >>> keys = list(b)
    >>> order = intersection_order(np.array(keys), np.arange(3),
    ...                            np.array([k in a for k in keys]))
    >>> [keys[e] for e in order] == list(a & b)
    True
    """
    return set_order(hashes, np.asarray(through)[np.asarray(member, dtype=bool)])


def matches_python(size=60000, seed=61):
    """Whether this model gives the running interpreter's order, for ``size`` tuples of two
    ints (past the 50,000 keys where the growth rule changes) and a set of small ints.

    Examples
    --------
    >>> matches_python(2000)
    True
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 1 << 40, size)
    b = rng.integers(0, 1000, size)
    keys = list(dict.fromkeys(zip(a.tolist(), b.tolist(), strict=True)))
    hashes = tuple_hashes(np.fromiter((hash(k[0]) for k in keys), np.int64, len(keys)),
                          np.fromiter((hash(k[1]) for k in keys), np.int64, len(keys)))
    if hashes.view(np.int64).tolist() != list(map(hash, keys)):
        return False
    if [keys[e] for e in set_order(hashes)] != list(set(keys)):
        return False
    ints = list(dict.fromkeys(rng.integers(0, 4 * size, size // 10).tolist()))
    return [ints[e] for e in set_order(np.array(ints, np.int64))] == list(set(ints))


@functools.cache
def model_holds():
    """:func:`matches_python`, checked once a process.

    Examples
    --------
    >>> model_holds()
    True
    """
    return matches_python()
