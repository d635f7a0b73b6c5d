"""Per-input cache of checked patterns: a repeated plain call pays no preparation.

The first call on a scipy or cupyx sparse matrix checks its arrays and builds
a :class:`~spbfs.semiring._pattern.Pattern` (a private copy of the structure);
later calls on the same object find it here.  An entry is found again only
while the matrix's *fingerprint* is unchanged: its type, shape, format, its array
objects (held by the entry, so an id is never reused and a held numpy array cannot be
resized in place) and scipy's "sorted indices" / "canonical format" flags.  Every scipy
or cupyx operation that changes the pattern replaces an array or one of those flags
(``A[i, j] = x`` on a new entry, ``eliminate_zeros``, ``sum_duplicates``,
``sort_indices``, ``resize``, assigning ``A.indices = ...``), so the entry is
rebuilt.  Values are never cached: each call reads ``A.data`` afresh, so
in-place value edits (``A.data *= 2``) are always seen.  Writing into the
index arrays in place (``A.indices[k] = j``) is the one change a fingerprint
cannot see: call :func:`clear_cache` afterwards.  The cached copy stays
consistent, so such a write gives a stale answer, never a crash.

Entries are dropped when the matrix is garbage-collected.  Lookups and
insertions hold a lock; patterns are immutable once published.  The lock is reentrant and
an entry is made before it is taken: an allocation may start a garbage collection that
frees another cached matrix (one in a reference cycle), whose weakref callback drops its
entry on the same thread (with a plain lock, taken twice: a hang).
"""

from __future__ import annotations

import threading
import weakref

__all__ = ["clear_cache", "lookup", "store"]

_FLAGS = ("_has_sorted_indices", "_has_canonical_format")
_ARRAYS = ("indptr", "indices", "row", "col", "coords", "data")

_lock = threading.RLock()
_entries: dict = {}


def fingerprint(A) -> tuple:
    """What must stay equal for a cached pattern of ``A`` to still describe it: the array
    objects by id (the entry holds them, so no id is reused and no array resized while it
    lives) beside the type, shape, format and scipy's flags."""
    attrs = vars(A)
    parts = [type(A), A.shape, getattr(A, "format", None)]
    for name in _ARRAYS:
        arr = attrs.get(name)
        if isinstance(arr, tuple):  # scipy COO arrays keep their indices in `coords`
            parts.extend(map(id, arr))
        else:
            parts.append(id(arr))
    parts.extend(attrs.get(flag) for flag in _FLAGS)
    return tuple(parts)


def _arrays(A) -> tuple:
    """A's arrays, held by the entry so their ids and addresses cannot be reused."""
    attrs = vars(A)
    return tuple(attrs.get(name) for name in _ARRAYS)


def lookup(A):
    """The cached value for ``A`` if its fingerprint still matches, else None."""
    key = id(A)
    with _lock:
        entry = _entries.get(key)
    if entry is None or entry[0]() is not A:
        return None
    try:
        fp = fingerprint(A)
    except (AttributeError, TypeError):
        return None
    return entry[2] if entry[1] == fp else None


def store(A, value):
    """Remember ``value`` for ``A`` (until ``A`` dies or changes); returns ``value``."""
    key = id(A)
    try:
        fp = fingerprint(A)
        ref = weakref.ref(A, lambda _: _drop(key))
    except (AttributeError, TypeError):  # not weak-referenceable or no array attributes
        return value
    entry = (ref, fp, value, _arrays(A))  # allocated before the lock (see the module)
    with _lock:
        _entries[key] = entry
    return value


def _drop(key):
    with _lock:
        _entries.pop(key, None)


def clear_cache(A=None) -> None:
    """Forget the prepared form of ``A`` (of every matrix when ``A`` is None).

    Needed only after writing into ``A.indices`` or ``A.indptr`` in place;
    every other change to ``A`` is detected (see :mod:`spbfs.semiring._cache`).

    Examples
    --------
    >>> import scipy.sparse as sp, spbfs
    >>> A = sp.csr_array(([1.0], ([0], [1])), shape=(2, 2))
    >>> spbfs.bfs(A, 0).tolist()
    [0, 1]
    >>> A.indices[0] = 0            # an in-place write into the pattern ...
    >>> spbfs.clear_cache(A)        # ... is the one change to announce
    >>> spbfs.bfs(A, 0).tolist()
    [0, -1]
    """
    with _lock:
        if A is None:
            _entries.clear()
        else:
            _entries.pop(id(A), None)
