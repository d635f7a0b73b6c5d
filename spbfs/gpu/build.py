"""Undirected CSR construction on the GPU by counting sort.

Examples
--------
>>> import cupy                                                     # doctest: +SKIP
>>> from spbfs.gpu.build import csr_from_edges                      # doctest: +SKIP
>>> M = csr_from_edges(cupy.array([0, 1, 2]), cupy.array([1, 2, 2]), 4)  # doctest: +SKIP
>>> M.indptr.tolist(), M.symmetric                                  # doctest: +SKIP
([0, 1, 3, 6, 6], True)
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .memory import check_fits

INT32_MAX = np.iinfo(np.int32).max
#: Put each row's HUB_FIRST neighbours of largest degree first (``csr_hub_first``): a pull's
#: first probes then usually find a visited in-neighbour (column order inside a row is
#: unspecified).  0 keeps the order of the scatter.
HUB_FIRST = 1

__all__ = ["csr_bytes", "csr_from_edges", "csr_induced"]

_THREADS = 256


def _dtypes(n: int, nnz: int):
    idt = np.dtype(np.int32 if n <= INT32_MAX else np.int64)
    pdt = np.dtype(np.int32 if nnz <= INT32_MAX else np.int64)
    return idt, pdt


def csr_bytes(n: int, m: int) -> int:
    """Device bytes :func:`csr_from_edges` needs for ``n`` vertices and ``m`` edge tuples.

    The CSR itself (``indptr`` and ``2 m`` indices) plus a 4-byte counter per vertex.

    Examples
    --------
    >>> from spbfs.gpu.build import csr_bytes
    >>> csr_bytes(2**20, 16 * 2**20)
    142606340
    """
    idt, pdt = _dtypes(int(n), 2 * int(m))
    return (int(n) + 1) * pdt.itemsize + 2 * int(m) * idt.itemsize + 4 * int(n)


def _chunks(x, name):
    import cupy

    parts = list(x) if isinstance(x, (list, tuple)) else [x]
    out = []
    for p in parts:
        p = cupy.asarray(p)
        if p.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got {p.ndim}-D")
        if p.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, got dtype {p.dtype}")
        out.append(cupy.ascontiguousarray(p))
    return out


def csr_from_edges(u, v, n):
    """Symmetric CSR arrays ``(indptr, indices, data)`` of an undirected edge list, on the GPU.

    Each tuple ``(u[k], v[k])`` is stored both ways (a self-loop ``(w, w)``
    therefore twice in row ``w``); duplicates are kept.  Counting sort on the
    device: one pass counts degrees with atomics, a prefix sum gives
    ``indptr``, a second pass scatters.  Column order inside a row is
    unspecified (each row's neighbour of largest degree comes first, for the early exit
    of pulls).  Indices are int32 when ``n`` fits, ``indptr`` int32 when
    ``2 m`` fits, int64 otherwise; the values are a read-only broadcast
    ``True`` (no memory per edge).

    Parameters
    ----------
    u, v : cupy (or numpy) integer arrays, or lists of such chunks
        Endpoints, any integer dtype; chunked lists let a caller generate
        the edge list piecewise (e.g. int32 chunks of
        :func:`spbfs.graph500.generate.kronecker`); ``u`` and ``v`` chunks must have
        matching lengths.
    n : int
        Number of vertices; every endpoint must lie in ``[0, n)``.

    Returns
    -------
    indptr, indices, data : cupy arrays
        A symmetric CSR on the current GPU (:func:`spbfs.graph500.harness.build_undirected`
        wraps it in a :class:`~spbfs.semiring.Matrix`).

    Raises
    ------
    spbfs.gpu.GPUMemoryError
        Before any allocation, when the CSR does not fit in free device memory.
    ValueError
        Mismatched lengths, or an endpoint outside ``[0, n)``.

    Examples
    --------
    >>> import cupy                                                     # doctest: +SKIP
    >>> u, v = cupy.array([0, 1, 2]), cupy.array([1, 2, 2])              # doctest: +SKIP
    >>> indptr, indices, _ = csr_from_edges(u, v, 4)                    # doctest: +SKIP
    >>> indptr.tolist(), sorted(indices[1:3].tolist())                  # doctest: +SKIP
    ([0, 1, 3, 6, 6], [0, 2])
    """
    import cupy

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    n = int(n)
    us, vs = _chunks(u, "u"), _chunks(v, "v")
    if len(us) != len(vs) or any(a.size != b.size for a, b in zip(us, vs, strict=True)):
        raise ValueError("u and v must have the same length (chunk by chunk)")
    m = sum(int(a.size) for a in us)
    nnz = 2 * m
    idt, pdt = _dtypes(n, nnz)
    check_fits(f"CSR of {n} vertices and {m} edges", csr_bytes(n, m))
    if m:
        rng = cupy.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], np.int64)
        for part in us + vs:
            if part.size:
                mod = kernels.build_module(part.dtype, idt, pdt)
                mod.get_function("edge_minmax")(
                    (kernels.blocks(part.size, threads=_THREADS),), (_THREADS,),
                    (part, np.int64(part.size), rng))
        lo, hi = (int(x) for x in rng.get())
        if lo < 0 or hi >= n:
            raise ValueError(f"edge endpoints must lie in [0, {n}), got [{lo}, {hi}]")
    cnt = cupy.zeros(max(n, 1), np.uint32)
    for a, b in zip(us, vs, strict=True):
        if a.size:
            mod = kernels.build_module(a.dtype, idt, pdt)
            mod.get_function("csr_count")(
                (kernels.blocks(a.size, threads=_THREADS),), (_THREADS,),
                (a, b.astype(a.dtype, copy=False), np.int64(a.size), cnt))
    indptr = cupy.empty(n + 1, pdt)
    indptr[0] = 0
    if n:
        cupy.cumsum(cnt[:n], dtype=pdt, out=indptr[1:])
    cnt.fill(0)
    indices = cupy.empty(nnz, idt)
    for a, b in zip(us, vs, strict=True):
        if a.size:
            mod = kernels.build_module(a.dtype, idt, pdt)
            mod.get_function("csr_scatter")(
                (kernels.blocks(a.size, threads=_THREADS),), (_THREADS,),
                (a, b.astype(a.dtype, copy=False), np.int64(a.size), indptr, cnt, indices))
    del cnt
    if HUB_FIRST and n:
        kernels.build_module(np.dtype(np.int64), idt, pdt).get_function("csr_hub_first")(
            (kernels.blocks(n * 32, threads=_THREADS),), (_THREADS,),
            (indptr, indices, np.int64(n), np.int64(HUB_FIRST)))
    data = cupy.broadcast_to(cupy.ones(1, bool), (nnz,))
    return indptr, indices, data


def csr_induced(indptr, indices, keep, index_of):
    """The pattern of ``A[keep][:, keep]`` for distinct ``keep`` in any order (``index_of``: each
    vertex's position in ``keep``, -1 if not kept): ``(indptr, indices)`` with ``A``'s
    dtypes, each row's kept entries in their stored order, renumbered.

    Two passes of one warp per kept row (``csr_induced_count``, ``csr_induced_fill``) and
    a prefix sum; the memory check covers the result.

    Examples
    --------
    >>> import cupy                                                     # doctest: +SKIP
    >>> ip, ix = cupy.array([0, 2, 3, 4]), cupy.array([1, 2, 0, 0])      # doctest: +SKIP
    >>> keep, where = cupy.array([0, 2]), cupy.array([0, -1, 1])         # doctest: +SKIP
    >>> [a.tolist() for a in csr_induced(ip, ix, keep, where)]          # doctest: +SKIP
    [[0, 1, 2], [1, 0]]
    """
    import cupy

    keep = keep.astype(indices.dtype, copy=False)
    index_of = index_of.astype(indices.dtype, copy=False)
    k = int(keep.size)
    mod = kernels.build_module(indices.dtype, indices.dtype, indptr.dtype)
    grid = (kernels.blocks(k * 32, threads=_THREADS),)
    out_ptr = cupy.zeros(k + 1, indptr.dtype)
    if k:
        mod.get_function("csr_induced_count")(
            grid, (_THREADS,), (indptr, indices, keep, np.int64(k), index_of, out_ptr))
        cupy.cumsum(out_ptr, out=out_ptr)
    nnz = int(out_ptr[-1])
    check_fits("the core's pattern", nnz * indices.dtype.itemsize)
    out_ind = cupy.empty(nnz, indices.dtype)
    if nnz:
        mod.get_function("csr_induced_fill")(
            grid, (_THREADS,), (indptr, indices, keep, np.int64(k), index_of, out_ptr, out_ind))
    return out_ptr, out_ind
