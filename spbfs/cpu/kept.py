"""Workspaces kept between calls: arrays of a search or a kernel that a fresh call would
otherwise allocate and page in again (a page fault per 4 KiB first written, which threads
take turns at), checked out by one call at a time.
"""

from __future__ import annotations

import threading

__all__ = ["KeptPool"]


class KeptPool:
    """Workspaces made by ``make(*key)``, handed to one caller at a time (thread-safe), at
    most ``keep`` of them kept while no call holds them.  A caller gives a workspace back
    only in the state ``make`` leaves it (a call that stops midway drops it).

    Examples
    --------
    >>> import numpy as np
    >>> pool = KeptPool(lambda n: np.zeros(n))
    >>> ws = pool.checkout(10); pool.give_back(ws, 10)
    >>> pool.checkout(10) is ws, pool.checkout(10) is ws
    (True, False)
    """

    def __init__(self, make, keep: int = 4):
        self._make = make
        self._keep = keep
        self._free: list = []  # (key, workspace)
        self._lock = threading.Lock()

    def checkout(self, *key):
        """A kept workspace for ``key``, else a new one."""
        with self._lock:
            for i, (k, ws) in enumerate(self._free):
                if k == key:
                    del self._free[i]
                    return ws
        return self._make(*key)

    def give_back(self, ws, *key) -> None:
        """Keep ``ws`` (made for ``key``) for a later call."""
        with self._lock:
            self._free.append((key, ws))
            del self._free[:-self._keep]
