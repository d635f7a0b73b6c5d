"""The semiring operations on a distributed graph (what :mod:`spbfs.semiring` dispatches to).

A product ``y = x (+.*) A`` on the delegate/normal partition, on every rank:

1. the rank's local search space gets ``x``: its owned normals' values and every
   delegate's (replicated: :meth:`DistArray.delegate_values`);
2. the single-device product runs on the rank's ``local`` matrix (every arc whose ends
   both lie in that space), pushing a sparse ``x`` or pulling a dense one, chosen per rank;
3. the same ``x`` goes through the ``remote`` matrix (``nn`` arcs to other ranks'
   normals, columns compacted to the distinct targets): the results travel to their
   owners by one all-to-all-v and are combined there with the semiring's monoid;
4. the delegates' partial results are reduced over the ranks with the monoid (one
   allreduce: sum, min or max over values, max over presence bits; other monoids by an
   allgather), so every rank knows them and the next product needs no exchange for them.

Vectors are :class:`~spbfs.semiring.Vector` objects in bitmap form whose ``present`` and
``values`` are :class:`~spbfs.dist.arrays.DistArray`; a plain DistArray is a full vector.
Semirings whose multiply reads vertex indices (``secondi``...) are refused: the local
products see local ids.
"""

from __future__ import annotations

import re

import numpy as np

from ..semiring import Vector, select_ops
from ..semiring import mxm as _mxm
from ..semiring import reduce as _reduce
from ..semiring import unpack_bitplanes as _unpack
from ..semiring import vxm as _vxm
from ..semiring._backend import backend_for
from ..semiring._transform import _scalar, _truth_values
from .arrays import DistArray, transfer_dtype

__all__ = ["PointerMatrix", "ewise_add", "ewise_mult", "from_row_block", "level_search",
           "matrix", "mxm", "mxv", "pointer_matrix", "reduce", "reduce_vector", "row_block",
           "select", "select_ends", "vxm"]

#: A rank pulls when its part of ``x`` reaches more arcs than this share of its local ones
#: (a monoid with an early exit, ``any``/``lor``, stops a pull sooner: a lower share); a
#: full ``x`` (a plain DistArray) is pulled without counting.
PULL_SHARE = 0.9
PULL_SHARE_EARLY_EXIT = 1 / 15

#: Monoids an allreduce computes directly: ufunc -> (reduction over ranks, fill for absent)
_NATIVE = {np.add: "sum", np.minimum: "min", np.maximum: "max", np.logical_or: "max",
           np.logical_and: "min", None: "max"}
#: Bitwise monoids reduced over ranks as OR of words (:meth:`Communicator.or_words_start`).
_BITWISE = (np.bitwise_or, np.bitwise_and)


# ------------------------------------------------------------------------- vectors
def as_dist_vector(x, G, name="x") -> Vector:
    """``x`` (a DistArray, or a bitmap Vector of DistArrays) as a bitmap Vector of
    DistArrays of ``G``."""
    if isinstance(x, DistArray):
        ones = DistArray(G, G.xp.ones(G.n_local, bool), G.xp.ones(G.D, bool))
        return Vector(G.n, "bitmap", present=_Full(ones), values=x)
    if isinstance(x, Vector) and isinstance(x.values, DistArray):
        if x.format != "bitmap" or not isinstance(x.present, DistArray):
            raise TypeError(f"{name}: a distributed vector is in bitmap form")
        if x.size != G.n:
            raise ValueError(f"{name} has size {x.size}, the graph has {G.n} vertices")
        return x
    raise TypeError(f"{name} must be a DistArray or a Vector of DistArrays on a distributed "
                    f"graph, got {type(x).__name__}")


class _Full(DistArray):
    """The presence of a full vector: all true, known without looking."""

    __slots__ = ()

    def __init__(self, ones):
        super().__init__(ones.graph, ones.local, ones._delegates)


def as_dist_mask(mask, G):
    """The mask as a boolean DistArray (a Vector's structure), or None."""
    if mask is None:
        return None
    if isinstance(mask, Vector):
        return as_dist_vector(mask, G, "mask").present
    if isinstance(mask, DistArray):
        return mask if mask.dtype == np.bool_ else mask != 0
    raise TypeError(f"mask must be a DistArray or a Vector of DistArrays, got "
                    f"{type(mask).__name__}")


def _space(G, a: DistArray, fill):
    """``a`` over this rank's local search space: owned normals, then the delegates."""
    xp, lay = G.xp, G.layout
    out = xp.full(lay.local.n, fill, a.dtype)
    out[:G.n_local] = a.local
    out[lay.n_pad:lay.n_pad + G.D] = a.delegate_values()
    return out


# ------------------------------------------------------------------------- over ranks
def reduce_over_ranks(G, monoid, present, values):
    """``(present, values)`` of equal-length arrays reduced over the ranks with ``monoid``
    (an entry absent on a rank does not take part); the same result on every rank."""
    c = G.comm
    if G.P == 1:
        return present, values
    xp, dtype = G.xp, values.dtype
    pres = c.allreduce_array(present.astype(np.uint8), "max").astype(bool)
    op = _NATIVE.get(monoid.ufunc)
    if op is not None:
        tdt = transfer_dtype(dtype)
        if op == "sum":
            fill = 0
        elif tdt.kind == "f":
            fill = np.inf if op == "min" else -np.inf
        else:
            fill = np.iinfo(tdt).max if op == "min" else np.iinfo(tdt).min
        v = xp.where(present, values.astype(tdt), tdt.type(fill))
        out = c.allreduce_array(v, op)
        return pres, xp.where(pres, out, 0).astype(dtype)
    if monoid.ufunc in _BITWISE and dtype.kind in "iu" and dtype.itemsize % 4 == 0:
        # bitwise monoids as an OR of 32-bit words (AND by De Morgan), on the data plane
        flip = monoid.ufunc is np.bitwise_and
        ident = ~dtype.type(0) if flip else dtype.type(0)
        v = xp.where(present, values, ident)
        v = ~v if flip else v
        out = c.or_words_start(xp.ascontiguousarray(v).view(np.uint32)).wait().view(dtype)
        out = ~out if flip else out
        return pres, xp.where(pres, out, dtype.type(0))
    parts = c.allgather((c.to_host(present), c.to_host(values)))
    acc_p, acc_v = parts[0]
    acc_p, acc_v = acc_p.copy(), acc_v.copy()
    for p, v in parts[1:]:   # one step per rank, whole arrays each
        both = acc_p & p
        acc_v = np.where(both, monoid.ufunc(acc_v, v), np.where(acc_p, acc_v, v))
        acc_p |= p
    return xp.asarray(acc_p), xp.asarray(acc_v.astype(dtype))


def _combine(monoid, pa, va, pb, vb):
    """Union of two bitmap vectors, combining shared entries with ``monoid``."""
    xp = _xp(va)
    if monoid.ufunc is None:   # any: either value
        return pa | pb, xp.where(pa, va, vb)
    both = pa & pb
    return pa | pb, xp.where(both, monoid.ufunc(va, vb), xp.where(pa, va, vb))


def _xp(a):
    from ..core.arrays import array_module

    return array_module(a)


# ------------------------------------------------------------------------- products
def _reads_indices(op) -> bool:
    """Whether a binary operator's value depends on the entry's indices (``secondi``...)."""
    return re.search(r"\b[ij]\b", op.c_expr) is not None


def _check_semiring(semiring):
    if _reads_indices(semiring.multiply):
        raise NotImplementedError(
            f"{semiring.name} reads vertex indices, which distributed products do not "
            "provide yet (use a semiring whose multiply reads values only)")


def matrix(A):
    """The :class:`~spbfs.dist.matrix.DistMatrix` of a distributed graph or matrix (a
    :class:`PointerMatrix` as it is)."""
    return A if isinstance(A, PointerMatrix) else A.__spbfs_matrix__()


class PointerMatrix:
    """``P[u, f[u]]`` for a DistArray ``f`` of vertex ids
    (:func:`spbfs.semiring.pointer_matrix`): a product through it sends each ``x[u]`` to
    the owner of ``f[u]``, where the monoid combines what arrives."""

    dtype = np.dtype(np.bool_)

    def __init__(self, f):
        self.f = f
        self.graph = f.graph

    def __spbfs_algebra__(self):
        import sys

        return sys.modules[__name__]


def pointer_matrix(f):
    """:class:`PointerMatrix` of ``f``."""
    if not isinstance(f, DistArray) or f.dtype.kind not in "iu":
        raise TypeError("f must be a DistArray of vertex ids")
    return PointerMatrix(f)


def _scatter(G, v, f, semiring, allowed, complement, dtype):
    """``y[f[u]] = add over u of mul(x[u], True)``: one all-to-all-v to the owners."""
    xp, c = G.xp, G.comm
    present = v.present.local
    targets = f.local[present].astype(np.int64)
    a = xp.ones(targets.size, bool)
    vals = _binary(semiring.multiply, v.values.local[present], a, dtype)
    order, counts = _bin(targets % G.P, G.P)
    (ids, vals), _ = c.alltoallv_many([targets[order] // G.P, vals[order]], counts)
    op, ov = _gather_by_id(G, semiring.monoid, ids, vals, dtype)
    if allowed is not None:
        keep = ~allowed.local if complement else allowed.local
        op = op & keep
    return Vector(G.n, "bitmap", present=DistArray(G, op), values=DistArray(G, ov))


def _bin(dest, P):
    from ._local import bin_by

    return bin_by(dest, P)


def mxv(A, x, semiring, *, mask=None, complement=False, dtype=None) -> Vector:
    """``y[i] = add_j mul(x[j], A[i, j])``: :func:`vxm` on the transpose."""
    return vxm(x, matrix(A).T, semiring, mask=mask, complement=complement, dtype=dtype)


def vxm(x, A, semiring, *, mask=None, complement=False, dtype=None) -> Vector:
    """``y[j] = add_i mul(x[i], A[i, j])`` over the ranks (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3,
    ...                               weights=np.array([2.0, 5.0]))
    >>> xp = semiring.Matrix.from_any(G).xp
    >>> x = xp.where(xp.arange(3) == 0, 0.0, np.inf)
    >>> y = semiring.vxm(x, G, semiring.min_plus)
    >>> G.gather(y.to_dense(np.inf)).tolist()
    [inf, 2.0, inf]
    """
    _check_semiring(semiring)
    A = matrix(A)
    G = A.graph
    v = as_dist_vector(x, G)
    allowed = as_dist_mask(mask, G)
    out_dtype = (np.dtype(dtype) if dtype is not None
                 else semiring.result_dtype(v.dtype, A.dtype))
    if isinstance(A, PointerMatrix):
        return _scatter(G, v, A.f, semiring, allowed, bool(complement), out_dtype)
    return _product(G, v, semiring, allowed, bool(complement), out_dtype)


def _product(G, v, semiring, allowed, complement, dtype):
    lay, monoid = G.layout, semiring.monoid
    present = _space(G, v.present, False)
    xv = Vector(lay.local.n, "bitmap", present=present, values=_space(G, v.values, 0))
    share = PULL_SHARE if monoid.terminal is None else PULL_SHARE_EARLY_EXIT
    if not isinstance(v.present, _Full) and int(
            (lay.local_out_degree * present).sum()) < share * max(lay.local.nnz, 1):
        xv = xv.to_sparse()
    local_mask = None if allowed is None else _space(G, allowed, False)
    y = _vxm(xv, G.valued_local(), semiring, mask=local_mask, complement=complement,
             dtype=dtype).to_bitmap()
    received = _remote(G, xv, semiring, dtype) if lay.remote is not None else None
    d0, d1 = lay.n_pad, lay.n_pad + G.D
    dp, dv = reduce_over_ranks(G, monoid, y.present[d0:d1], y.values[d0:d1])
    op, ov = y.present[:G.n_local], y.values[:G.n_local]
    if received is not None:
        rp, rv = received
        op, ov = _combine(monoid, op, ov, rp, rv)
    own = G.owned_delegates
    op[own] = dp[G.owned_delegate_numbers]
    ov[own] = dv[G.owned_delegate_numbers]
    if allowed is not None:
        keep = ~allowed.local if complement else allowed.local
        op = op & keep
    return Vector(G.n, "bitmap", present=DistArray(G, op, dp), values=DistArray(G, ov, dv))


def mxm(A, B, semiring, mask=None, *, complement=False, structural=False):
    """``C[i, :] = add_k mul(A[i, k], B[k, :])`` for a distributed ``A`` and a block ``B``
    (a DistArray of shape ``(n, w)``): a dense block, the monoid's identity where nothing
    lands or the mask forbids.  It pushes ``B`` through the transposed graph: each rank's
    local part, the remote rows sent to their owners and combined there, the delegates'
    rows reduced over the ranks.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> xp = semiring.Matrix.from_any(G).xp
    >>> B = xp.ones((3, 2))
    >>> G.gather(semiring.mxm(G, B, semiring.plus_times)).tolist()
    [[1.0, 1.0], [2.0, 2.0], [1.0, 1.0]]
    """
    _check_semiring(semiring)
    if _is_matrix(B):
        return _sparse_mxm(A, B, semiring, _valued(mask, structural), complement)
    if semiring.monoid.ufunc is None:
        raise NotImplementedError("a distributed block product needs a monoid with a "
                                  "numpy ufunc (not any)")
    M = matrix(A)
    if not isinstance(B, DistArray) or B.ndim != 2:
        raise TypeError("B must be a DistArray block of shape (n, w) on the graph of A")
    T = M.T.graph   # arcs k -> i of A: a push from k reaches row i
    xp, lay, monoid = T.xp, T.layout, semiring.monoid
    dtype = semiring.result_dtype(M.dtype, B.dtype)
    identity = dtype.type(monoid.identity(dtype))
    width = B.shape[1]
    Bs = _local_block(T, B.local, B.delegate_values())
    allowed = None if mask is None else (mask if mask.dtype == np.bool_ else mask != 0)
    local_mask = None
    if allowed is not None:
        local_mask = _local_block(T, allowed.local, allowed.delegate_values())
    Y = _mxm(T.valued_local().T, Bs, semiring, local_mask, complement=complement)
    d0, d1 = lay.n_pad, lay.n_pad + T.D
    dY = Y[d0:d1]
    if T.P > 1:
        _, dY = reduce_over_ranks(T, monoid, xp.ones(dY.shape, bool), dY)
    own = Y[:T.n_local]
    if lay.remote is not None:
        R, owner, target = T.remote_compact()
        Yr = _mxm(R.T, Bs, semiring)
        counts = np.bincount(T.comm.to_host(owner), minlength=T.P).astype(np.int64)
        ids, _ = T.comm.alltoallv(target, counts)
        rows, _ = T.comm.alltoallv(xp.ascontiguousarray(Yr).reshape(-1), counts * width)
        rows = rows.reshape(-1, width)
        if ids.size:
            got_p, got_v = _gather_by_id(T, monoid, ids, rows, dtype)
            own = xp.where(got_p[:, None], monoid.ufunc(own, got_v), own)
            if allowed is not None:   # the local product and dY hold the identity already
                keep = ~allowed.local if complement else allowed.local
                own = xp.where(keep, own, identity)
    own[T.owned_delegates] = dY[T.owned_delegate_numbers]
    return DistArray(T, own.astype(dtype, copy=False), dY.astype(dtype, copy=False))


def _local_block(T, owned, delegates):
    """A block over the rank's local space: its owned rows, zeros up to the delegates'
    rows, the delegates' (replicated) rows, zeros after (filled once, no zeroing pass)."""
    lay = T.layout
    out = T.xp.empty((lay.local.n,) + owned.shape[1:], owned.dtype)
    d0, d1 = lay.n_pad, lay.n_pad + T.D
    out[:T.n_local] = owned
    out[T.n_local:d0] = 0
    out[d0:d1] = delegates
    out[d1:] = 0
    return out


def select(A, op, thunk=0, mask=None, **unused):
    """The stored arcs of a distributed matrix that ``op`` (an IndexUnaryOp on value, row
    and column, the vertices' global ids) accepts: a distributed matrix of the same
    partition (each rank filters the arcs it stores; no communication).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1, 2]), np.array([0, 2, 2]), 3)
    >>> loops = semiring.select(G, "diag")
    >>> loops.nnz, G.gather(loops.out_degree).tolist()
    (2, [1, 0, 1])
    """
    if mask is not None or any(unused.get(k) for k in ("complement", "replace", "out")):
        raise NotImplementedError("select on a distributed matrix takes no mask or out")
    import copy

    from .layout import Layout, _matrix

    M = matrix(A)
    G, xp = M.graph, M.graph.xp
    backend = backend_for(xp)
    kept = []
    for mat, local in ((G.layout.local, True), (G.layout.remote, False)):
        if mat is None:
            kept.append(None)
            continue
        values = (G.valued_local().data if local else
                  mat.data if G.weighted else xp.ones(mat.nnz, G.value_dtype))
        rows = xp.repeat(xp.arange(mat.nrows, dtype=np.int64),
                         xp.diff(mat.indptr).astype(np.int64))
        cols = mat.indices.astype(np.int64)
        keep = backend.index_unary(op, values, G.global_of_local(rows),
                                   G.global_of_local(cols) if local else cols, thunk,
                                   np.bool_).astype(bool, copy=False)
        indptr = xp.zeros(mat.nrows + 1, mat.indptr.dtype)
        xp.cumsum(xp.bincount(rows[keep], minlength=mat.nrows), out=indptr[1:])
        kept.append(_matrix(xp, indptr, mat.indices[keep],
                            mat.data[keep] if G.weighted else None, mat.nrows, mat.ncols,
                            False))
    H = copy.copy(G)
    H.layout = Layout(kept[0], kept[1], G.layout.n_pad, G.layout.d_words * 32)
    # a symmetric matrix stays symmetric under a predicate on values alone, or on the
    # diagonal (its values are symmetric: each edge stored both ways with its value)
    symmetric = M.symmetric and (not _reads_indices(op) or (
        op.name in ("diag", "offdiag") and thunk == 0))
    H._cache, H.directed = {}, not symmetric
    H._transpose = H if symmetric else None
    return type(M)(H)


def _remote(G, xv, semiring, dtype):
    """The products through ``remote``, sent to and combined at the owners: this rank's
    owned entries received, as a bitmap ``(present, values)``."""
    c = G.comm
    R, owner, target = G.remote_compact()
    y = _vxm(xv, R, semiring, dtype=dtype).to_sparse()
    counts = np.bincount(c.to_host(owner[y.indices]), minlength=G.P).astype(np.int64)
    (ids, vals), _ = c.alltoallv_many([target[y.indices], y.values], counts)
    return _gather_by_id(G, semiring.monoid, ids, vals, dtype)


#: Monoids whose reduction by id is an atomic scatter (``ufunc.at``, ``cupyx.scatter_*``).
#: Not the bitwise ones: with cupy's ``bitwise_or.at`` the 64-source BFS at scale 26 on
#: 2 x H100 took 0.320 s against 0.273 s with the sort (two lendings of the machine).
_SCATTER = {np.add: "scatter_add", np.minimum: "scatter_min", np.maximum: "scatter_max"}


def _gather_by_id(G, monoid, ids, vals, dtype):
    """The received ``(local id, value)`` pairs combined per id with ``monoid``: a bitmap
    ``(present, values)`` over this rank's vertices."""
    xp = G.xp
    present = xp.zeros(G.n_local, bool)
    scatter = _SCATTER.get(monoid.ufunc)
    if scatter is not None and vals.ndim == 1 and ids.size:   # no sort: atomic updates
        present[ids] = True
        values = xp.full(G.n_local, dtype.type(monoid.identity(dtype)), dtype)
        if xp is np:
            monoid.ufunc.at(values, ids, vals.astype(dtype, copy=False))
            return present, values
        import cupyx

        try:
            getattr(cupyx, scatter)(values, ids, vals.astype(dtype, copy=False))
            return present, values
        except (TypeError, ValueError):   # a dtype without device atomics: sort instead
            present[:] = False
    values = xp.zeros((G.n_local,) + tuple(vals.shape[1:]), dtype)
    if ids.size:
        order = xp.argsort(ids, kind="stable") if xp is np else xp.argsort(ids)
        ids, vals = ids[order], vals[order]
        first = xp.ones(ids.size, bool)
        first[1:] = ids[1:] != ids[:-1]
        starts = xp.flatnonzero(first)
        keys = ids[starts]
        present[keys] = True
        values[keys] = backend_for(xp).segment_reduce(monoid, vals, starts, dtype)
    return present, values


def unpack_bitplanes(planes, present, out):
    """:func:`spbfs.semiring.unpack_bitplanes` of DistArrays into the DistArray block
    ``out`` of shape ``(n, k)``: each rank writes the codes of its vertices.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0]), np.array([1]), 3)
    >>> xp = semiring.Matrix.from_any(G).xp
    >>> out = xp.zeros((3, 2), np.int32)
    >>> planes = [xp.asarray(np.array([1, 2, 0], np.uint64))]
    >>> semiring.unpack_bitplanes(planes, xp.asarray(np.array([3, 2, 0], np.uint64)), out)
    >>> G.gather(out).tolist()
    [[1, 0], [-1, 1], [-1, -1]]
    """
    if not isinstance(out, DistArray) or out.ndim != 2 or out.shape[1] > 64:
        raise ValueError("out must be a DistArray block of shape (n, k), k <= 64")
    if not all(isinstance(p, DistArray) for p in planes):
        raise TypeError("planes must be DistArrays of the same graph as present")
    _unpack([p.local for p in planes], present.local, out.local.T)
    out._delegates = None


# ------------------------------------------------------------------------- reductions
def reduce(A, monoid, axis=None, *, dtype=None):
    """Row sums (``axis=1``), column sums (``axis=0``) or one scalar (``axis=None``) of a
    distributed matrix with ``monoid``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 0]), np.array([1, 2]), 3,
    ...                               weights=np.array([2.0, 5.0]), directed=True)
    >>> G.gather(semiring.reduce(G, semiring.monoids.plus, axis=1).to_dense(0.0)).tolist()
    [7.0, 0.0, 0.0]
    >>> semiring.reduce(G, semiring.monoids.max)
    5.0
    """
    if axis not in (None, 0, 1):
        raise ValueError(f"axis must be None, 0 or 1, got {axis!r}")
    if isinstance(A, (Vector, DistArray)):
        if axis not in (None, 0):
            raise ValueError("a Vector has one axis: axis must be None or 0")
        return reduce_vector(A, monoid, dtype)
    A = matrix(A).canonical()   # parallel arcs summed first, as on one device
    if axis == 0:
        return reduce(A.T, monoid, 1, dtype=dtype)
    G = A.graph
    xp = G.xp
    lay = G.layout
    out_dtype = np.dtype(dtype) if dtype is not None else A.dtype
    mats = [G.valued_local()] + ([G.remote_compact()[0]] if lay.remote is not None else [])
    if axis is None:
        partials = [_scalar(monoid, _truth_values(monoid, M.data), out_dtype, xp)
                    for M in mats if M.nnz]
        return _scalar_over_ranks(G, monoid, partials, out_dtype)
    parts = [_row_reduce(M, monoid, out_dtype) for M in mats]
    bitmaps = [p.to_bitmap() for p in parts]
    pres, vals = bitmaps[0].present, bitmaps[0].values
    for b in bitmaps[1:]:
        pres, vals = _combine(monoid, pres, vals, b.present, b.values)
    d0, d1 = lay.n_pad, lay.n_pad + G.D
    dp, dv = reduce_over_ranks(G, monoid, pres[d0:d1], vals[d0:d1])
    op, ov = pres[:G.n_local].copy(), vals[:G.n_local].copy()
    op[G.owned_delegates] = dp[G.owned_delegate_numbers]
    ov[G.owned_delegates] = dv[G.owned_delegate_numbers]
    return Vector(G.n, "bitmap", present=DistArray(G, op, dp), values=DistArray(G, ov, dv))


def _row_reduce(M, monoid, dtype) -> Vector:
    """Each non-empty row of a rank's matrix reduced with ``monoid``, as a sparse
    Vector."""
    xp = M.xp
    rows = xp.flatnonzero(xp.diff(M.indptr)).astype(np.int64)
    starts = M.indptr[:-1][rows].astype(np.int64)
    values = backend_for(xp).segment_reduce(monoid, _truth_values(monoid, M.data), starts,
                                            dtype)
    return Vector(M.nrows, "sparse", indices=rows, values=values)


def _scalar_over_ranks(G, monoid, partials, dtype):
    """One scalar from this rank's partial scalars (maybe none) and the other ranks'."""
    xp = G.xp
    value = partials[0] if partials else 0
    for p in partials[1:]:
        value = p if monoid.ufunc is None else monoid.ufunc(value, p)
    present, values = reduce_over_ranks(G, monoid, xp.asarray([bool(partials)]),
                                        xp.asarray([value], dtype))
    if bool(present[0]):
        return values[0].item()
    return dtype.type(monoid.identity(dtype)).item()


def reduce_vector(x, monoid, dtype=None):
    """A distributed vector's stored entries reduced with ``monoid`` (its identity when
    there are none).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> semiring.reduce(semiring.Matrix.from_any(G).xp.arange(3), semiring.monoids.max)
    2
    """
    G = (x if isinstance(x, DistArray) else x.values).graph
    x = as_dist_vector(x, G)
    dtype = np.dtype(dtype or x.dtype)
    local = x.values.local[x.present.local]
    partials = []
    if local.size:
        full = Vector(local.size, "bitmap", present=G.xp.ones(local.size, bool), values=local)
        partials.append(_reduce(full, monoid, dtype=dtype))
    return _scalar_over_ranks(G, monoid, partials, dtype)


# ------------------------------------------------------------------------- element-wise
def _binary(op, a, b, dtype):
    xp = _xp(a)
    j = xp.zeros(a.shape, np.int64)
    return backend_for(xp).binary(op, a, b, None, j, dtype)


def ewise_add(u, v, op, mask=None, complement=False, structural=False) -> Vector:
    """Union of two distributed vectors, ``op`` where both are stored.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> xp = semiring.Matrix.from_any(G).xp
    >>> y = semiring.ewise_add(xp.arange(3), xp.full(3, 10), semiring.ops.plus)
    >>> G.gather(y.to_dense(0)).tolist()
    [10, 11, 12]
    """
    if _is_matrix(u) or _is_matrix(v):
        return _matrix_ewise(u, v, op, True, _valued(mask, structural), complement)
    return _ewise(u, v, op, True, mask, complement)


def ewise_union(u, v, op, a_fill, b_fill, mask=None, complement=False,
                structural=False) -> Vector:
    """Union of two distributed vectors (or matrices: a distributed matrix), ``op`` where
    both are stored and with the other's fill value where one is
    (:func:`spbfs.semiring.ewise_union`)."""
    if _is_matrix(u) or _is_matrix(v):
        return _matrix_ewise(u, v, op, True, _valued(mask, structural), complement,
                             (a_fill, b_fill))
    return _ewise(u, v, op, True, mask, complement, (a_fill, b_fill))


def ewise_mult(u, v, op, mask=None, complement=False, structural=False) -> Vector:
    """Intersection of two distributed vectors (or matrices: a distributed matrix) with
    ``op``."""
    if _is_matrix(u) or _is_matrix(v):
        return _matrix_ewise(u, v, op, False, _valued(mask, structural), complement)
    return _ewise(u, v, op, False, mask, complement)


def _ewise(u, v, op, union, mask, complement, fills=None):
    from ..semiring._elementwise import _binary_op, _fill

    op = _binary_op(op)
    if _reads_indices(op):
        raise NotImplementedError(f"{op.name} reads indices: not on distributed vectors yet")
    G = (u.values if isinstance(u, Vector) else u).graph
    a, b = as_dist_vector(u, G, "A"), as_dist_vector(v, G, "B")
    allowed = as_dist_mask(mask, G)
    dtype = op.result_dtype(a.dtype, b.dtype)
    if fills is not None:
        fills = (_fill(fills[0], a.dtype, "a_fill"), _fill(fills[1], b.dtype, "b_fill"))

    def part(pa, va, pb, vb):
        xp = _xp(va)
        both = pa & pb
        f = _binary(op, va, vb, dtype)
        if not union:
            return both, xp.where(both, f, 0).astype(dtype)
        if fills is None:
            alone = xp.where(pa, va, vb)
        else:  # each side alone: op with the other's fill
            alone = xp.where(pa, _binary(op, va, xp.full(vb.shape, fills[1], vb.dtype), dtype),
                             _binary(op, xp.full(va.shape, fills[0], va.dtype), vb, dtype))
        return pa | pb, xp.where(both, f, alone).astype(dtype)

    lp, lv = part(a.present.local, a.values.local, b.present.local, b.values.local)
    dp, dv = part(a.present.delegate_values(), a.values.delegate_values(),
                  b.present.delegate_values(), b.values.delegate_values())
    if allowed is not None:
        keep, dkeep = allowed.local, allowed.delegate_values()
        lp = lp & (~keep if complement else keep)
        dp = dp & (~dkeep if complement else dkeep)
    return Vector(G.n, "bitmap", present=DistArray(G, lp, dp), values=DistArray(G, lv, dv))


def level_search(A, source, semiring, values):
    """The distributed search of :func:`spbfs.semiring.level_search`
    (:class:`spbfs.dist.bfs.DistSearch`)."""
    from .bfs import DistSearch

    if source is None or source < 0:
        raise ValueError("a distributed search needs a source vertex")
    return DistSearch(matrix(A).graph, int(source), values)


# ------------------------------------------------------------------------- sparse results
# Operations whose result is a sparse matrix (element-wise on two matrices, sparse products,
# selections by the values at an entry's ends) work on each rank's *row block*: the stored
# arcs of the vertices it owns, whole rows by global column id
# (:meth:`~spbfs.dist.matrix.DistMatrix.row_block`, one all-to-all-v of the arcs).  Each
# rank runs the single-device operation on its row block; the result, rows by global id,
# becomes a distributed graph of the same partition (:func:`from_row_block`).

def _is_matrix(x) -> bool:
    return not isinstance(x, (DistArray, Vector)) and hasattr(x, "__spbfs_matrix__")


def row_block(A):
    """``A``'s rows owned by this rank as a single-device Matrix ``(n_local, n)`` (global
    column ids, canonical: parallel arcs summed) (:meth:`DistMatrix.row_block`)."""
    return matrix(A).row_block()


def from_row_block(like, C, symmetric=False):
    """The distributed matrix whose rows owned here are the rows of the single-device
    ``C`` ``(n_local, n)`` (values kept as float64 weights), on the partition of ``like``
    (a DistMatrix or DistGraph); ``symmetric``: the result is known to equal its transpose.
    Collective: one construction (:meth:`DistGraph.from_edges`)."""
    M = matrix(like)
    G = M.graph
    xp = G.xp
    C = C.canonical()
    rows = xp.repeat(xp.arange(C.nrows, dtype=np.int64) * G.P + G.rank,
                     xp.diff(C.indptr).astype(np.int64))
    cols = C.indices.astype(np.int64)
    w = C.data.astype(np.float64)
    H = type(G).from_edges(rows, cols, G.n, weights=w, threshold=G.threshold, comm=G.comm,
                           directed=True, like=G)
    if symmetric:
        H.directed, H._transpose = False, H
    return type(M)(H)


def _local_mask(mask):
    if mask is None:
        return None
    if not _is_matrix(mask):
        raise TypeError("a sparse product on distributed matrices takes a distributed "
                        f"matrix as its mask, not {type(mask).__name__}")
    return row_block(mask)


def _valued(mask, structural):
    """A matrix mask as the operations read it: its stored zeros mask out unless it is
    ``structural`` (as on one device)."""
    return mask if mask is None or structural else select(mask, select_ops.nonzero)


def _matrix_ewise(A, B, op, union, mask, complement, fills=None):
    from ..semiring import ewise_add as _add
    from ..semiring import ewise_mult as _mult
    from ..semiring import ewise_union as _union

    a, b = row_block(A), row_block(B)
    given = {"mask": _local_mask(mask), "complement": complement, "structural": True}
    if fills is not None:
        C = _union(a, b, op, *fills, **given)
    else:
        C = (_add if union else _mult)(a, b, op, **given)
    symmetric = matrix(A).symmetric and matrix(B).symmetric and mask is None
    return from_row_block(A, C, symmetric)


def _rows_of(M, rows):
    """The rows ``rows`` (local ids, any order, repeats allowed) of the single-device
    ``M`` as CSR arrays ``(indptr, indices, data)``."""
    xp = M.xp
    rows = rows.astype(np.int64)
    start = M.indptr[:-1][rows].astype(np.int64)
    lens = M.indptr[1:][rows].astype(np.int64) - start
    indptr = xp.zeros(rows.size + 1, np.int64)
    xp.cumsum(lens, out=indptr[1:])
    total = int(indptr[-1])
    at = xp.arange(total, dtype=np.int64) - xp.repeat(indptr[:-1] - start, lens)
    return indptr, M.indices[at], M.data[at]


def _ghost_rows(G, B, need):
    """The rows ``need`` (ascending distinct global ids) of the distributed matrix whose
    row block here is ``B``: a single-device Matrix ``(len(need), n)``, fetched from their
    owners (a request and a reply by all-to-all-v)."""
    from ..semiring import Matrix
    from . import _local

    xp, c, P = G.xp, G.comm, G.P
    if P == 1:
        ip, ix, d = _rows_of(B, need)
        return Matrix(ip, ix, d, need.size, ncols=G.n, canonical=True, check=False)
    order, counts = _local.bin_by(need % P, P)
    asked = need[order]
    q, rc = c.alltoallv(asked // P, counts)
    ip, ix, d = _rows_of(B, q)
    lens = xp.diff(ip)
    per_rank = np.zeros(P, np.int64)
    if q.size:   # the entries for each asking rank: its requests are contiguous
        ends = np.cumsum(rc)
        at = c.to_host(ip)
        per_rank = at[ends] - at[np.concatenate([[0], ends[:-1]])]
    got_lens, _ = c.alltoallv(lens, rc)
    (cols, vals), _ = c.alltoallv_many([ix.astype(np.int64), d], per_rank)
    indptr = xp.zeros(asked.size + 1, np.int64)
    xp.cumsum(got_lens, out=indptr[1:])
    R = Matrix(indptr, cols, vals, asked.size, ncols=G.n, canonical=True, check=False)
    back = xp.empty_like(order)
    back[order] = xp.arange(order.size, dtype=order.dtype)   # asked[back] == need
    ip, ix, d = _rows_of(R, back)
    return Matrix(ip, ix, d, need.size, ncols=G.n, canonical=True, check=False)


def _sparse_mxm(A, B, semiring, mask, complement):
    """``C<mask> = A B`` for distributed matrices: each rank's rows of ``C`` from its rows
    of ``A`` and the rows of ``B`` they reach (fetched from their owners once per rank),
    by the single-device product; only the rows the mask keeps ask for anything."""
    from ..semiring import Matrix
    from ..semiring import mxm as _product

    if complement:
        raise NotImplementedError("a sparse product of distributed matrices takes no "
                                  "complemented mask")
    MA = matrix(A)
    G, xp = MA.graph, MA.graph.xp
    a, b = MA.row_block(), row_block(B)
    m = _local_mask(mask)
    if m is not None:   # rows without mask entries need no row of B
        live = xp.repeat(xp.diff(m.indptr) > 0, xp.diff(a.indptr).astype(np.int64))
    else:
        live = xp.ones(a.nnz, bool)
    need = xp.unique(a.indices[live].astype(np.int64))
    ghost = _ghost_rows(G, b, need)
    compact = xp.searchsorted(need, a.indices.astype(np.int64))
    keep = live
    indptr = xp.zeros(a.nrows + 1, np.int64)
    rows = xp.repeat(xp.arange(a.nrows, dtype=np.int64), xp.diff(a.indptr).astype(np.int64))
    xp.cumsum(xp.bincount(rows[keep], minlength=a.nrows), out=indptr[1:])
    al = Matrix(indptr, compact[keep].astype(np.int64), a.data[keep], a.nrows,
                ncols=max(int(need.size), 1) if need.size else 1, canonical=True, check=False)
    if not need.size:   # nothing to multiply: an empty result
        ghost = Matrix(xp.zeros(2, np.int64), xp.zeros(0, np.int64), xp.zeros(0, b.dtype), 1,
                       ncols=G.n, check=False)
    C = _product(al, ghost, semiring, m, structural=True)
    MB = matrix(B)   # A A (masked by a symmetric mask) of a symmetric A is symmetric
    symmetric = (MA.symmetric and MB.graph is MA.graph
                 and (mask is None or matrix(mask).symmetric))
    return from_row_block(A, C, symmetric)


def select_ends(A, key, op):
    """The stored entries ``(u, v)`` of a distributed matrix with ``op(key[u], key[v])``
    (``op`` a comparison ufunc such as ``numpy.greater``; ``key`` a DistArray): the
    values at each entry's column are fetched from their owners (two all-to-all-v)."""
    M = matrix(A)
    G, xp = M.graph, M.graph.xp
    R = M.row_block()
    cols = R.indices.astype(np.int64)
    (at_col,) = G.fetch(cols, key.local)
    rows = xp.repeat(xp.arange(R.nrows, dtype=np.int64), xp.diff(R.indptr).astype(np.int64))
    keep = op(key.local[rows], at_col)
    from ..semiring import Matrix

    indptr = xp.zeros(R.nrows + 1, np.int64)
    xp.cumsum(xp.bincount(rows[keep], minlength=R.nrows), out=indptr[1:])
    C = Matrix(indptr, R.indices[keep], R.data[keep], R.nrows, ncols=R.ncols,
               canonical=True, check=False)
    return from_row_block(A, C, False)
