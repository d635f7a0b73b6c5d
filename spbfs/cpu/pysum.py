"""Python's built-in ``sum`` of floats, as the running CPython adds them: one at a time up to
3.11, with Neumaier's compensation from 3.12 (a running correction added at the end where it
is non-zero and finite).  NetworkX adds floats with ``sum`` (weighted degrees, cut sizes,
the mean of local efficiencies); a backend that hands back its float must add them the same
way.

:func:`add` and :func:`finish` are the steps for compiled kernels (state ``(total,
correction)``); :func:`python_sum` sums an array; :func:`row_sums` sums each row's values.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ._jit import kernel

__all__ = ["COMPENSATED", "add", "finish", "python_sum", "row_sums"]

#: Whether this Python's ``sum`` compensates float additions (CPython 3.12 and later).
COMPENSATED = sys.version_info >= (3, 12)


@kernel(inline="always")
def add(total, correction, x, compensated):  # pragma: no cover - compiled
    """``(total, correction)`` after adding the float ``x``."""
    t = total + x
    if compensated:
        if abs(total) >= abs(x):
            correction += (total - t) + x
        else:
            correction += (x - t) + total
    return t, correction


@kernel(inline="always")
def finish(total, correction):  # pragma: no cover - compiled
    """The sum of the state ``(total, correction)``."""
    if correction != 0.0 and math.isfinite(correction):
        return total + correction
    return total


@kernel
def _sum(values, compensated):  # pragma: no cover - compiled
    total, correction = 0.0, 0.0
    for i in range(values.size):
        total, correction = add(total, correction, values[i], compensated)
    return finish(total, correction)


def python_sum(values, compensated=COMPENSATED) -> float:
    """``sum(values.tolist())`` of a float64 array, without the list: the same float.

    Examples
    --------
    >>> import numpy as np
    >>> python_sum(np.array([0.1, 0.2, 0.3]), compensated=False)
    0.6000000000000001
    >>> python_sum(np.array([0.1, 0.2, 0.3]), compensated=True)
    0.6
    """
    return float(_sum(np.ascontiguousarray(values, np.float64), bool(compensated)))


def row_sums(values, starts, counts, compensated=COMPENSATED):
    """Python's ``sum`` of each row's values ``values[starts[i]:starts[i] + counts[i]]``
    (float64, 0.0 for an empty row), a row position at a time over all the rows together.

    Examples
    --------
    >>> import numpy as np
    >>> row_sums(np.array([0.1, 0.2, 0.3, 1.0]), np.array([0, 3]), np.array([3, 1]),
    ...          compensated=True).tolist()
    [0.6, 1.0]
    """
    starts = np.asarray(starts, np.int64)
    counts = np.asarray(counts, np.int64)
    order = np.argsort(-counts, kind="stable")
    starts, counts = starts[order], counts[order]
    total = np.zeros(order.size)
    correction = np.zeros(order.size)
    longest = int(counts[0]) if counts.size else 0
    live = np.searchsorted(-counts, -np.arange(longest), side="left")  # rows longer than k
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: nan, as Python's
        for k in range(longest):  # over row positions, not rows or entries
            m = live[k]
            x = values[starts[:m] + k]
            t = total[:m] + x
            if compensated:
                before = total[:m]
                correction[:m] += np.where(np.abs(before) >= np.abs(x), (before - t) + x,
                                           (x - t) + before)
            total[:m] = t
        fix = (correction != 0.0) & np.isfinite(correction)
        total[fix] += correction[fix]
    out = np.empty_like(total)
    out[order] = total
    return out
