"""Partition arithmetic of the delegate/normal design; no communication here.

Vertices are dealt round robin: ``owner(v) = v mod P`` and ``local id = v // P``, so every
rank owns ``ceil((n - rank) / P)`` vertices and local ids fit in 32 bits for any graph of
fewer than ``2**31 * P`` vertices.  The edge distributor places every directed edge
``(u, v)`` so that all edges except normal-to-normal ones have their reverse on the same
rank:

========================  =====================================  ======
u                         v                                      block
========================  =====================================  ======
normal                    normal            -> owner(u)          nn
normal                    delegate          -> owner(u)          nd
delegate                  normal            -> owner(v)          dn
delegate                  delegate          -> hash({u, v}) % P  dd
========================  =====================================  ======

All functions take numpy or cupy arrays and return the same kind.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BLOCKS", "dd_rank", "destination", "global_ids", "local_count", "local_ids",
           "owner"]

#: The four local blocks, in the order reports list them.
BLOCKS = ("nn", "nd", "dn", "dd")

_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xBF58476D1CE4E5B9)
_S31 = np.uint64(31)


def owner(v, P: int):
    """Rank owning vertex ``v`` (``v mod P``).

    Examples
    --------
    >>> import numpy as np
    >>> owner(np.array([0, 5, 6]), 3).tolist()
    [0, 2, 0]
    """
    return v % P


def local_ids(v, P: int):
    """Local id of ``v`` on its owner (``v // P``).

    Examples
    --------
    >>> import numpy as np
    >>> local_ids(np.array([0, 5, 6]), 3).tolist()
    [0, 1, 2]
    """
    return v // P


def global_ids(j, rank: int, P: int):
    """Global id of local vertex ``j`` of ``rank`` (``j * P + rank``), as int64.

    Examples
    --------
    >>> import numpy as np
    >>> global_ids(np.array([0, 1, 2]), 2, 3).tolist()
    [2, 5, 8]
    """
    return j.astype(np.int64) * P + rank


def local_count(n: int, rank: int, P: int) -> int:
    """Number of vertices ``rank`` owns out of ``n`` (``ceil((n - rank) / P)``, at least 0).

    Examples
    --------
    >>> [local_count(10, r, 4) for r in range(4)]
    [3, 3, 2, 2]
    >>> local_count(2, 3, 4)
    0
    """
    return max(0, (n - rank + P - 1) // P)


def dd_rank(a, b, P: int):
    """Rank that stores the delegate-delegate edge ``{a, b}``: a hash of the unordered pair.

    Symmetric (``dd_rank(a, b) == dd_rank(b, a)``) so an edge and its reverse share a rank,
    and spread evenly over ranks.

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.array([3, 10, 7]), np.array([10, 3, 7])
    >>> bool((dd_rank(a, b, 4) == dd_rank(b, a, 4)).all())
    True
    """
    xp = _xp(a)
    lo = xp.minimum(a, b).astype(xp.uint64)
    hi = xp.maximum(a, b).astype(xp.uint64)
    h = lo * _H1 + hi
    h ^= h >> _S31
    h *= _H2
    h ^= h >> _S31
    return (h % np.uint64(P)).astype(xp.int64)


def destination(a, b, a_del, b_del, P: int):
    """Rank that stores directed edge ``a -> b`` given which endpoints are delegates.

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.array([1, 1, 2, 2]), np.array([2, 4, 1, 4])
    >>> isd = np.array([False, False, True, False, True])    # 2 and 4 are delegates
    >>> destination(a, b, isd[a], isd[b], 3).tolist()[:3]   # nn, nd: owner(a); dn: owner(b)
    [1, 1, 1]
    """
    xp = _xp(a)
    dest = xp.where(a_del, b % P, a % P)
    both = a_del & b_del
    if bool(both.any()):
        dest[both] = dd_rank(a[both], b[both], P)
    return dest


def _xp(a):
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np
