"""Argument checks shared by the public functions, and the sentinels."""

from __future__ import annotations

import numbers

import numpy as np

from .arrays import array_module

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


def _unsigned(indices):
    """``indices`` viewed as unsigned: a negative entry becomes huge, so one max checks both
    bounds of ``[0, n)``."""
    kind = indices.dtype.kind
    return indices if kind == "u" else indices.view(f"u{indices.dtype.itemsize}")


def _first_outside(indices, n: int) -> int:
    """The first entry of ``indices`` outside ``[0, n)`` (called only when there is one)."""
    xp = type(indices).__module__.split(".")[0]
    bad = (indices < 0) | (indices >= n)
    pos = int(bad.argmax())
    value = indices[pos]
    return int(value.get() if xp == "cupy" else value)


def _check_index_dtype(arr, what: str):
    if getattr(arr, "ndim", None) != 1:
        raise ValueError(f"{what} must be a 1-D array, got {getattr(arr, 'ndim', type(arr))}-D")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what} must have an integer dtype, got {arr.dtype}")


def check_compressed(indptr, indices, data, n_major: int, n_minor: int, name: str = "A"):
    """Check the arrays of a CSR (or CSC) matrix before anything reads them.

    ``indptr`` must have length ``n_major + 1``, start at 0, never decrease
    and end at most at ``indices.size`` (as scipy, the stored entries are the
    first ``indptr[-1]``); ``indices`` must lie in ``[0, n_minor)``; ``data``
    must have ``indices``' length.  Vectorised, on the device for cupy arrays
    (one transfer of four numbers).  Returns ``nnz = indptr[-1]``.

    Raises
    ------
    ValueError
        Naming the argument and the defect, e.g.
        ``A.indices has an entry 9 outside [0, 3)``.
    TypeError
        If an index array is not an integer array.

    Examples
    --------
    >>> import numpy as np
    >>> check_compressed(np.array([0, 1, 2]), np.array([1, 0]), np.ones(2), 2, 2)
    2
    >>> check_compressed(np.array([0, 2, 1]), np.array([1, 0]), np.ones(2), 2, 2)
    Traceback (most recent call last):
        ...
    ValueError: A.indptr must not decrease (it does at position 2)
    >>> check_compressed(np.array([0, 1, 2]), np.array([1, 9]), np.ones(2), 2, 2)
    Traceback (most recent call last):
        ...
    ValueError: A.indices has an entry 9 outside [0, 2)
    """
    _check_index_dtype(indptr, f"{name}.indptr")
    _check_index_dtype(indices, f"{name}.indices")
    if getattr(data, "ndim", None) != 1:
        raise ValueError(f"{name}.data must be a 1-D array")
    if indptr.size != n_major + 1:
        raise ValueError(f"{name}.indptr has length {indptr.size}, expected {n_major + 1} "
                         f"(one more than the {n_major} rows)")
    if data.size != indices.size:
        raise ValueError(f"{name}.data has length {data.size} but {name}.indices has "
                         f"{indices.size}")
    xp = array_module(indptr)
    nnz_cap = indices.size
    drops = indptr[1:] < indptr[:-1]
    # One reduction each, gathered into one small array: a single host transfer on a GPU.
    facts = xp.stack([indptr[0].astype(np.int64), indptr[-1].astype(np.int64),
                      drops.any().astype(np.int64)])
    first, last, decreasing = (int(v) for v in (facts.get() if xp is not np else facts))
    if first != 0:
        raise ValueError(f"{name}.indptr must start at 0, got {first}")
    if decreasing:
        pos = int(drops.argmax())
        raise ValueError(f"{name}.indptr must not decrease (it does at position {pos + 1})")
    if last > nnz_cap:
        raise ValueError(f"{name}.indptr ends at {last} but {name}.indices has only "
                         f"{nnz_cap} entries")
    stored = indices[:last]
    if last and int(_unsigned(stored).max()) >= n_minor:
        raise ValueError(f"{name}.indices has an entry {_first_outside(stored, n_minor)} "
                         f"outside [0, {n_minor})")
    return last


def check_coordinates(rows, cols, data, shape, name: str = "A"):
    """Check the arrays of a COO matrix: equal lengths, rows and columns in range.

    Examples
    --------
    >>> import numpy as np
    >>> check_coordinates(np.array([0, 1]), np.array([1, -1]), np.ones(2), (2, 2))
    Traceback (most recent call last):
        ...
    ValueError: A.col has an entry -1 outside [0, 2)
    """
    _check_index_dtype(rows, f"{name}.row")
    _check_index_dtype(cols, f"{name}.col")
    if rows.size != cols.size or getattr(data, "size", None) != rows.size:
        raise ValueError(f"{name}.row, {name}.col and {name}.data must have one length, got "
                         f"{rows.size}, {cols.size} and {getattr(data, 'size', None)}")
    for arr, what, bound in ((rows, "row", shape[0]), (cols, "col", shape[1])):
        if arr.size and int(_unsigned(arr).max()) >= bound:
            raise ValueError(f"{name}.{what} has an entry {_first_outside(arr, bound)} "
                             f"outside [0, {bound})")
