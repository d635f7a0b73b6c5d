"""The CPU backend's pull (``spmv``): a dense float64 sum over each in-list where it can be,
the generic kernel of :mod:`spbfs.cpu.products` elsewhere.

The generic pull serves every semiring, mask and bitmap ``x``: each entry tests ``x``'s
presence and the running value lives in the output array.  A full ``x`` (every entry
present), no mask, the ``plus`` monoid and ``first`` (``x[i]``) or ``times`` (``x[i] *
A[i, j]``) as the multiply, into float64 (PageRank's product, ``plus_first`` or
``plus_times``) need neither: each output is one register summed over its in-list, in the
same order as the generic kernel (the same result, bit for bit), and it is present exactly
where its in-list is not empty.  That pull reads each entry once with no test, about twice
as fast (Kronecker scale 18, 2 threads).
"""

from __future__ import annotations

import numpy as np

from . import products
from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["spmv"]

#: Entries from which the dense pull is split over threads.
PARALLEL_ENTRIES = 1 << 16
_ADD = "(a + b)"
_FIRST, _TIMES = "x", "(x * a)"
U = np.uintp  # positions and ids read as unsigned: numba's negative-index test skipped
ONE = np.uintp(1)


@kernel
def _sum_first(r0, r1, tptr, tidx, x, y_present, y_val):
    """``y[j] = sum of x[i]`` over the in-list of every ``j`` in ``r0..r1``."""
    for j in range(U(r0), U(r1)):
        p0 = U(tptr[j])
        p1 = U(tptr[j + ONE])
        if p0 == p1:
            y_present[j] = False
            y_val[j] = 0.0
            continue
        s = x[U(tidx[p0])]
        for p in range(p0 + ONE, p1):
            s += x[U(tidx[p])]
        y_present[j] = True
        y_val[j] = s
    return 0


@kernel
def _sum_times(r0, r1, tptr, tidx, tdata, x, y_present, y_val):
    """``y[j] = sum of x[i] * A[i, j]`` over the in-list of every ``j`` in ``r0..r1``."""
    for j in range(U(r0), U(r1)):
        p0 = U(tptr[j])
        p1 = U(tptr[j + ONE])
        if p0 == p1:
            y_present[j] = False
            y_val[j] = 0.0
            continue
        s = x[U(tidx[p0])] * tdata[p0]
        for p in range(p0 + ONE, p1):
            s += x[U(tidx[p])] * tdata[p]
        y_present[j] = True
        y_val[j] = s
    return 0


def _dense_sum(semiring, tdata, x_present, x_val, mask, dtype):
    """Which dense pull serves this product ("first", "times"), or None."""
    if mask is not None or np.dtype(dtype) != np.float64 or x_val.dtype != np.float64:
        return None
    monoid, multiply = semiring.monoid, semiring.multiply
    if monoid.ufunc is not np.add or monoid.c_expr != _ADD or monoid.terminal is not None:
        return None
    if multiply.c_expr == _FIRST:
        kind = "first"
    elif (multiply.c_expr == _TIMES and tdata is not None
          and tdata.dtype == np.float64):
        kind = "times"
    else:
        return None
    return kind if bool(x_present.all()) else None


def spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype):
    """Pull: ``y = x @ A`` for a bitmap ``x``, masked; returns ``(y_present, y_val)`` (as
    :func:`spbfs.cpu.products.spmv`, whose kernel runs unless the dense sum serves).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import plus_times
    >>> spmv(np.array([0, 2, 3, 3]), np.array([0, 1, 1]), np.array([5.0, 1.0, 2.0]),
    ...      np.array([True, True]), np.array([1.0, 10.0]), plus_times, None, False,
    ...      np.float64)
    (array([ True,  True, False]), array([15., 20.,  0.]))
    """
    kind = _dense_sum(semiring, tdata, x_present, x_val, mask, dtype)
    if kind is None:
        return products.spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask,
                             complement, dtype)
    n_out = tindptr.size - 1
    y_present, y_val = np.empty(n_out, bool), np.empty(n_out, np.float64)
    nnz = int(tindptr[-1])
    threads = get_num_threads() if nnz + n_out >= PARALLEL_ENTRIES else 1
    ranges = split(n_out, threads, tindptr)
    if kind == "first":
        run_kernel(_sum_first, ranges, tindptr, tindices, x_val, y_present, y_val)
    else:
        run_kernel(_sum_times, ranges, tindptr, tindices, tdata, x_val, y_present, y_val)
    return y_present, y_val
