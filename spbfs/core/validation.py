"""Argument checks shared by the public functions, and the sentinels.

One function per kind of argument, each with one wording per defect: a vertex
(:func:`check_source`) or a list of them (:func:`check_sources`), an integer
(:func:`check_integer`), a number (:func:`check_number`, :func:`check_positive`), one of a
few choices (:func:`check_choice`), the arrays of a sparse matrix (:func:`check_compressed`,
:func:`check_coordinates`).  Whether a GPU is there is :func:`spbfs.core.arrays.gpu_available`
(and :func:`spbfs.core.arrays.require_gpu`).
"""

from __future__ import annotations

import numbers

import numpy as np

from .arrays import array_module, to_numpy

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
    if type(source) is int and 0 <= source < n:   # the common case, without the ABC check
        return source
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, numbers.Integral):
        if getattr(source, "ndim", None) == 0 and np.asarray(source).dtype.kind in "iu":
            source = int(source)
        else:
            raise TypeError(f"{name} must be an integer vertex id, got {source!r}")
    source = int(source)
    if not 0 <= source < n:
        raise ValueError(f"{name} must lie in [0, {n}), got {source}")
    return source


def check_sources(sources, n: int, xp, name: str = "sources"):
    """``sources`` as a 1-D int64 array of ``xp`` with entries in ``[0, n)``, or an
    exception naming the argument ``name``.

    Parameters
    ----------
    sources : array_like
        Vertex ids: a list, tuple, range, or a numpy or cupy array (moved to ``xp``).
    n : int
        The number of vertices.
    xp : module
        numpy or cupy: the library of the array returned.
    name : str
        The argument's name in messages.

    Returns
    -------
    int64 array of ``xp``

    Examples
    --------
    >>> import numpy as np
    >>> check_sources([3, 0], 4, np).tolist()
    [3, 0]
    >>> check_sources([[0]], 4, np)
    Traceback (most recent call last):
        ...
    ValueError: sources must be a 1-D array of vertex ids, got a 2-D array
    >>> check_sources([1, 4], 4, np)
    Traceback (most recent call last):
        ...
    ValueError: sources must lie in [0, 4), got 4
    """
    if not (hasattr(sources, "ndim") or isinstance(sources, (list, tuple, range))):
        raise TypeError(f"{name} must be a 1-D array of vertex ids, got {sources!r}")
    arr = xp.asarray(sources) if array_module(sources) is xp else xp.asarray(
        to_numpy(sources) if hasattr(sources, "ndim") else np.asarray(sources))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of vertex ids, got a {arr.ndim}-D array")
    if arr.size == 0:
        return xp.zeros(0, np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer vertex ids, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    lo, hi = (int(v) for v in to_numpy(xp.stack([arr.min(), arr.max()])))
    if lo < 0 or hi >= n:
        raise ValueError(f"{name} must lie in [0, {n}), got {lo if lo < 0 else hi}")
    return arr


def check_integer(value, name: str, minimum: int | None = None) -> int:
    """``value`` as an int (a Python or numpy integer, or a 0-d integer array; never a bool),
    at least ``minimum`` when one is given.

    Raises
    ------
    TypeError
        ``{name} must be an integer, got {value!r}``.
    ValueError
        ``{name} must be at least {minimum}, got {value}``.

    Examples
    --------
    >>> check_integer(3, "batch", 1)
    3
    >>> check_integer(2.0, "batch")
    Traceback (most recent call last):
        ...
    TypeError: batch must be an integer, got 2.0
    >>> check_integer(0, "batch", 1)
    Traceback (most recent call last):
        ...
    ValueError: batch must be at least 1, got 0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if getattr(value, "ndim", None) == 0 and getattr(value, "dtype", None) is not None \
                and value.dtype.kind in "iu":
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_number(value, name: str, *, real: bool = True):
    """``value`` if it is a number, else ``TypeError: {name} must be a number, got {value!r}``.

    Parameters
    ----------
    value
        The argument.
    name : str
        Its name in the message.
    real : bool
        True: a real number that is not a bool (a Python or numpy scalar, or a 0-d array of
        integers or floats), returned as a float.  False: any :class:`numbers.Number`, bools
        and complex numbers included (a predicate's thunk), returned as it is.

    Examples
    --------
    >>> check_number(0.85, "alpha"), check_number(np.True_, "thunk", real=False)
    (0.85, np.True_)
    >>> check_number("0.85", "alpha")
    Traceback (most recent call last):
        ...
    TypeError: alpha must be a number, got '0.85'
    """
    if not real:
        if not isinstance(value, (numbers.Number, np.bool_)):
            raise TypeError(f"{name} must be a number, got {value!r}")
        if isinstance(value, int) and not -2**63 <= value < 2**64:
            raise ValueError(f"{name} must fit a 64-bit integer, got {value}")
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        if getattr(value, "ndim", None) == 0 and np.asarray(value).dtype.kind in "iuf":
            return float(value)
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


def check_choice(value, name: str, choices) -> str:
    """``value`` if it is one of ``choices``, else ValueError naming ``name``.

    Examples
    --------
    >>> check_choice("pull", "direction", ("auto", "push", "pull"))
    'pull'
    >>> check_choice("up", "direction", ("auto", "push", "pull"))
    Traceback (most recent call last):
        ...
    ValueError: direction must be one of ('auto', 'push', 'pull'), got 'up'
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_positive(value, name: str) -> float:
    """``value`` as a positive float (anything :class:`float` converts), else an exception
    naming ``name`` (TypeError worded as :func:`check_number`'s).

    Examples
    --------
    >>> check_positive(15, "alpha")
    15.0
    >>> check_positive(0, "alpha")
    Traceback (most recent call last):
        ...
    ValueError: alpha must be positive, got 0
    """
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
    if n_major < 0 or n_minor < 0:
        raise ValueError(f"{name} must have a non-negative shape, got ({n_major}, {n_minor})")
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
