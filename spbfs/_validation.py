"""Argument checks shared by the public functions, and the sentinels."""

from __future__ import annotations

import numbers

import numpy as np

#: Level and parent of a vertex the search did not reach (Graph500 convention).
UNREACHED = -1
#: scipy.sparse.csgraph's predecessor sentinel, kept by :mod:`spbfs.csgraph`.
SCIPY_NULL = -9999


def check_source(source, n: int, name: str = "source") -> int:
    """``source`` as an int in ``[0, n)``, or a clear exception.

    Examples
    --------
    >>> check_source(2, 5)
    2
    >>> check_source(5, 5)
    Traceback (most recent call last):
        ...
    ValueError: source must lie in [0, 5), got 5
    """
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, numbers.Integral):
        if getattr(source, "ndim", None) == 0 and np.asarray(source).dtype.kind in "iu":
            source = int(source)
        else:
            raise TypeError(f"{name} must be an integer vertex id, got {source!r}")
    source = int(source)
    if not 0 <= source < n:
        raise ValueError(f"{name} must lie in [0, {n}), got {source}")
    return source


def check_choice(value, name: str, choices) -> str:
    """``value`` if it is one of ``choices``, else ValueError naming ``name``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_positive(value, name: str) -> float:
    """``value`` as a positive float, else ValueError naming ``name``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None
    if not v > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return v
