"""The ``any_secondi`` product of bit-packed Boolean matrices: witnesses of a word product.

A ``k x n`` Boolean matrix with ``k <= 64`` is stored bit-packed, one ``uint64`` word per
column: bit ``s`` of word ``u`` is the entry ``(s, u)``.  Over such words the
:data:`spbfs.algorithms.msbfs.bor_first` product ``y[j] = OR_i x[i]`` (over the stored ``A[i, j]``)
is the ``any_pair`` product of the packed matrices, one word operation for 64 rows.
:func:`packed_any_secondi` is the ``any_secondi`` product of the same operands: for each
``(s, j)`` it names a row index ``i`` (a *witness*: ``A[i, j]`` stored and bit ``s`` of
``x[i]`` set), which is what a multi-source BFS needs for parents.  The witnesses are
written straight into a dense ``(k, n)`` output, under a packed mask (``want``) that says
which ``(s, j)`` need one.

:func:`unpack_bitplanes` turns a ``k x n`` matrix of small codes stored as bit-planes
(plane ``b`` packs bit ``b`` of every code, one word per column) into its dense form.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.validation import check_choice
from ._backend import backend_for
from ._dispatch import distributed
from ._matrix import Matrix
from ._vxm import as_vector

__all__ = ["packed_any_secondi", "unpack_bitplanes"]

_WORD = np.dtype(np.uint64)


def packed_any_secondi(x, A, want, out, *, edge_bits=False, direction="auto"):
    """``out<want> = X any_secondi A`` for bit-packed Boolean ``X`` and mask.

    For every word ``want[j]`` and every bit ``s`` set in it, ``out[s, j]`` becomes a
    row index ``i`` with ``A[i, j]`` stored and bit ``s`` of ``x[i]`` set (and bit
    ``s`` of the stored ``uint64`` value ``A[i, j]`` when ``edge_bits``): the GraphBLAS
    product ``out<W> = X any_secondi A`` of the ``k x n`` Boolean matrices ``X`` and
    ``W`` packed one word per column (bit ``s`` of ``x[u]`` is ``X[s, u]``).  Which
    witness is written, when several exist, is unspecified (``any``).  Entries of
    ``out`` outside ``want``, and wanted bits that have no witness, are left as they
    are.

    A sparse ``x`` is pushed: its rows' entries are scattered to the wanted
    columns, each wanted bit claimed once.  A bitmap ``x`` is pulled: each wanted
    column scans its in-edges until all of its bits have a witness.

    Parameters
    ----------
    x : Vector of uint64
        The packed rows of ``X``: word ``x[i]`` holds column ``i`` of ``X``.
    A : scipy.sparse / cupyx.scipy.sparse matrix, 2-D array, or Matrix
        ``n_in x n``; with ``edge_bits`` its stored values are ``uint64`` words.
    want : Vector of uint64, sparse format
        The packed mask: the bits of ``want[j]`` that need a witness.
    out : 2-D array of int32 or int64, shape (k, n)
        Written in place; ``k`` may be less than 64 when no wanted bit lies above it.
        Same device as ``A``; any memory order (row-major is the fastest).
    edge_bits : bool
        AND the stored word of ``A[i, j]`` into the test (the ``band`` multiply).
    direction : {"auto", "push", "pull"}
        ``"auto"`` follows the format of ``x``.

    Raises
    ------
    TypeError
        If ``x``, ``want`` or ``A``'s values (with ``edge_bits``) are not ``uint64``, or
        ``out`` is not an integer array on ``A``'s device.
    ValueError
        If the sizes do not match ``A``, ``want`` is not sparse, ``out`` is not 2-D
        with non-negative strides, or a wanted bit lies at or above ``out.shape[0]``.

    Examples
    --------
    Two searches packed in bits 0 and 1: vertex 0 is in the frontier of both, vertex
    1 only in that of search 1; both searches want a parent for vertex 2.

    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.semiring import Vector, packed_any_secondi
    >>> A = sp.csr_array(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]))
    >>> x = Vector.sparse([0, 1], np.array([0b11, 0b10], np.uint64), size=3)
    >>> want = Vector.sparse([1, 2], np.array([0b01, 0b11], np.uint64), size=3)
    >>> out = np.full((2, 3), -1)
    >>> packed_any_secondi(x, A, want, out)
    >>> out[0].tolist(), int(out[1, 1])
    ([-1, 0, 0], -1)
    >>> int(out[1, 2]) in (0, 1)
    True
    """
    check_choice(direction, "direction", ("auto", "push", "pull"))
    M = Matrix.from_any(A)
    xp = M.xp
    v = as_vector(x, M.nrows)
    w = as_vector(want, M.ncols, "want")
    for name, vec in (("x", v), ("want", w)):
        if vec.dtype != _WORD:
            raise TypeError(f"{name} must hold uint64 words, got dtype {vec.dtype}")
        if array_module(vec.values) is not xp:
            raise TypeError(f"{name} must live on the same device as A")
    if w.format != "sparse":
        raise ValueError("want must be a sparse Vector")
    if edge_bits and M.dtype != _WORD:
        raise TypeError(f"edge_bits needs uint64 values in A, got dtype {M.dtype}")
    _check_out(out, M.ncols, w.values, xp)
    if not w.indices.size:
        return
    backend = backend_for(xp)
    data = M.data if edge_bits else None
    if direction == "push" or (direction == "auto" and v.format == "sparse"):
        s = v.to_sparse()
        backend.packed_push(M.indptr, M.indices, data, s.indices, s.values, w.indices,
                            w.values, out)
    else:
        T = M.T
        b = v.to_bitmap()
        words = xp.where(b.present, b.values, _WORD.type(0))
        backend.packed_pull(T.indptr, T.indices, T.data if edge_bits else None, words,
                            w.indices, w.values, out)


def _check_out(out, n, want_words, xp):
    if array_module(out) is not xp or not hasattr(out, "ndim"):
        raise TypeError("out must be an array on the same device as A")
    if out.ndim != 2 or out.shape[1] != n:
        raise ValueError(f"out must have shape (k, {n}), got {tuple(out.shape)}")
    if out.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"out must hold int32 or int64 vertex ids, got dtype {out.dtype}")
    if any(st < 0 or st % out.itemsize for st in out.strides):
        raise ValueError(f"out must have non-negative strides, got {out.strides}")
    k = out.shape[0]
    if k < 64 and want_words.size and int((want_words >> np.uint64(k)).max()) != 0:
        raise ValueError(f"want has bits at or above out.shape[0] = {k}")


def unpack_bitplanes(planes, present, out):
    """``out[s, v]`` = the code whose bit ``b`` is bit ``s`` of ``planes[b][v]``, where bit
    ``s`` of ``present[v]`` is set; -1 elsewhere.

    The dense form of a ``k x n`` matrix of non-negative integers stored as bit-planes:
    plane ``b`` is a packed Boolean matrix (one ``uint64`` word per column, bit ``s`` for
    row ``s``) of the codes' bit ``b``, and ``present`` is the packed structure.  A
    multi-source BFS keeps its levels this way (a level ORs its new words into the planes
    of its number) and writes the ``(k, n)`` levels once at the end.

    Parameters
    ----------
    planes : sequence of 1-D arrays of uint64
        ``planes[b][v]``: bit ``b`` of the codes of column ``v``, one bit per row.
        May be empty (every present code is 0).
    present : 1-D array of uint64
        Bit ``s`` of ``present[v]`` says that ``(s, v)`` holds a code.
    out : 2-D array of int32 or int64, shape (k, n), k <= 64
        Written in place, every entry.  Same device as ``present``.  On a distributed
        graph's arrays (``present`` a DistArray) a block of shape ``(n, k)`` instead: the
        vertex axis comes first there.

    Raises
    ------
    TypeError
        If a plane or ``present`` is not ``uint64``, or ``out`` is not an int32/int64
        array on their device.
    ValueError
        If the lengths do not match ``out.shape[1]``, ``out`` has more than 64 rows or
        negative strides, or the codes have more bits than ``out``'s dtype holds.

    Examples
    --------
    Codes 2, 3 and 1 (planes: bit 0 and bit 1) in three columns of one row; the second
    row holds a code only in column 0:

    >>> import numpy as np
    >>> from spbfs.semiring import unpack_bitplanes
    >>> planes = [np.array([0, 1, 1], np.uint64), np.array([3, 1, 0], np.uint64)]
    >>> out = np.empty((2, 3), np.int32)
    >>> unpack_bitplanes(planes, np.array([3, 1, 1], np.uint64), out)
    >>> out.tolist()
    [[2, 3, 1], [2, -1, -1]]
    """
    algebra = distributed(present)
    if algebra is not None:
        return algebra.unpack_bitplanes(planes, present, out)
    xp = array_module(present)
    if not hasattr(present, "ndim") or present.ndim != 1:
        raise ValueError("present must be a 1-D array of uint64 words")
    n = present.size
    for name, arr in [("present", present)] + [(f"planes[{b}]", p) for b, p in enumerate(planes)]:
        if not hasattr(arr, "dtype") or arr.dtype != _WORD:
            raise TypeError(f"{name} must hold uint64 words, got {getattr(arr, 'dtype', arr)!r}")
        if array_module(arr) is not xp:
            raise TypeError(f"{name} must live on the same device as present")
        if arr.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), got {tuple(arr.shape)}")
    if array_module(out) is not xp or not hasattr(out, "ndim"):
        raise TypeError("out must be an array on the same device as present")
    if out.ndim != 2 or out.shape[1] != n or out.shape[0] > 64:
        raise ValueError(f"out must have shape (k, {n}) with k <= 64, got {tuple(out.shape)}")
    if out.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"out must hold int32 or int64 codes, got dtype {out.dtype}")
    if any(st < 0 or st % out.itemsize for st in out.strides):
        raise ValueError(f"out must have non-negative strides, got {out.strides}")
    if len(planes) >= 8 * out.itemsize:
        raise ValueError(f"{len(planes)} planes make codes wider than out's dtype {out.dtype}")
    if out.size:
        backend_for(xp).unpack_bitplanes(list(planes), present, out)
