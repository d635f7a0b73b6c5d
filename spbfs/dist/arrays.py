"""Vertex arrays spread over the ranks, and the array namespace algorithms see on them.

A :class:`DistArray` holds, on each rank, the values of the vertices that rank owns (local
id order, as :func:`spbfs.dist.bfs` returns them), and caches the delegates' values
replicated on every rank (what a product reads).  Element-wise arithmetic and comparisons
stay on each rank; reductions (``sum``, ``min``, ``max``, ``any``, ``all``) end with one
allreduce; ``a[i]`` reads one vertex everywhere, ``a[idx]`` with a DistArray of vertex ids
fetches from the owners; :func:`DistNamespace.cumsum` runs in vertex order.

:class:`DistNamespace` is what ``M.xp`` is for a distributed matrix: ``full``, ``zeros``,
``arange``, ``where``, ``minimum``... make and combine DistArrays, so an algorithm written
with ``M.xp`` and the semiring operations runs unchanged on a distributed graph.  Anything
else (sorting, ``flatnonzero``...) raises AttributeError naming the function.
"""

from __future__ import annotations

import operator

import numpy as np

__all__ = ["DistArray", "DistNamespace", "DistRows", "transfer_dtype"]

#: Element-wise functions of numpy/cupy that DistNamespace applies to each rank's part.
ELEMENTWISE = ("abs", "minimum", "maximum", "isfinite", "isnan", "isinf", "logical_and",
               "logical_or", "logical_not", "logical_xor", "sqrt", "exp", "log", "log1p",
               "sign", "floor", "ceil", "rint", "reciprocal", "square", "fmin", "fmax", "clip",
               "bitwise_and", "bitwise_or", "left_shift", "right_shift", "add", "subtract",
               "multiply", "divide", "less", "less_equal", "greater", "greater_equal",
               "equal", "not_equal")
#: Names passed through from numpy/cupy as they are (dtypes and constants).
PASSTHROUGH = ("float64", "float32", "int64", "int32", "int8", "int16", "uint8", "uint32",
               "uint64", "bool_", "inf", "nan", "dtype", "iinfo", "finfo", "ndarray")


def transfer_dtype(dtype):
    """The dtype a reduction over ranks moves ``dtype`` in (bool as uint8, other integers
    as int64, floats as float64).

    Examples
    --------
    >>> transfer_dtype(np.bool_), transfer_dtype(np.int32), transfer_dtype(np.float32)
    (dtype('uint8'), dtype('int64'), dtype('float64'))
    """
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return np.dtype(np.float64)


class DistArray:
    """One value per vertex of a distributed graph; each rank holds those it owns.

    Parameters
    ----------
    graph : DistGraph
        Gives the partition (vertex ``v`` on rank ``v % P`` at local id ``v // P``).
    local : array
        This rank's values, ``graph.n_local`` of them (numpy or cupy, the graph's module).
    delegates : array, optional
        The values of all delegates (by delegate number), when already known on every rank.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.dist import DistGraph
    >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> a = DistArray(G, np.array([1.0, 2.0, 3.0]))
    >>> float((2 * a + 1).sum()), a[1], G.gather(a > 1.5).tolist()
    (15.0, 2.0, [False, True, True])
    """

    __array_ufunc__ = None   # numpy scalars on the left defer to the reflected operators
    __slots__ = ("graph", "local", "_delegates")

    def __init__(self, graph, local, delegates=None):
        self.graph = graph
        self.local = local
        self._delegates = delegates

    def _like(self, local, delegates=None):
        """A DistArray of this kind (and graph) holding ``local``."""
        return type(self)(self.graph, local, delegates)

    @property
    def T(self):
        """A block ``(n, k)`` as :class:`DistRows` ``(k, n)`` (no copy); a 1-D array as
        it is."""
        return DistRows(self.graph, self.local, self._delegates) if self.ndim == 2 else self

    # ---------------------------------------------------------------- array facts
    @property
    def dtype(self):
        return self.local.dtype

    @property
    def shape(self) -> tuple:
        """``(n,)``, or ``(n, k)`` for a block of ``k`` values per vertex."""
        return (self.graph.n,) + tuple(self.local.shape[1:])

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def ndim(self) -> int:
        return self.local.ndim

    def __len__(self) -> int:
        return self.graph.n

    def __spbfs_namespace__(self):
        return DistNamespace(self.graph)

    def __spbfs_algebra__(self):
        return self.graph.__spbfs_algebra__()

    def __repr__(self) -> str:
        return (f"DistArray(n={self.graph.n}, rank={self.graph.rank}, "
                f"dtype={self.dtype}, local={self.local!r})")

    def __bool__(self):
        raise TypeError("the truth value of a DistArray is ambiguous: use .any() or .all()")

    __hash__ = None

    # ---------------------------------------------------------------- conversion
    def astype(self, dtype, copy=True):
        dtype = np.dtype(dtype)
        d = None if self._delegates is None else self._delegates.astype(dtype)
        return self._like(self.local.astype(dtype, copy=copy), d)

    def copy(self):
        d = None if self._delegates is None else self._delegates.copy()
        return self._like(self.local.copy(), d)

    def delegate_values(self):
        """The delegates' values by delegate number, the same on every rank (one allreduce
        the first time, kept while the array is not written)."""
        if self._delegates is None:
            G = self.graph
            tdt = transfer_dtype(self.dtype)
            part = G.xp.zeros((G.D,) + tuple(self.local.shape[1:]), tdt)
            part[G.owned_delegate_numbers] = self.local[G.owned_delegates].astype(tdt)
            self._delegates = (G.comm.allreduce_array(part, "sum") if G.P > 1
                               else part).astype(self.dtype)
        return self._delegates

    # ---------------------------------------------------------------- element-wise
    def _parts(self, other):
        """``other``'s part on this rank (a DistArray of the same graph, or a scalar), and
        its delegate values where both operands know theirs."""
        if isinstance(other, DistArray):
            if other.graph.partition is not self.graph.partition:
                raise ValueError("the DistArrays belong to differently partitioned graphs")
            if other.ndim == 2 and self.ndim == 2 and type(other) is not type(self):
                raise ValueError("a (k, n) DistRows combines with DistRows only: use .T")
            return other.local, other._delegates
        if getattr(other, "ndim", 0) != 0 or isinstance(other, (list, tuple)):
            raise TypeError("a DistArray combines with scalars and DistArrays of its graph "
                            f"only, not {type(other).__name__} of shape "
                            f"{getattr(other, 'shape', None)}")
        return other, other

    def _binary(self, other, fn, reflected=False):
        o_local, o_del = self._parts(other)
        a, b = (o_local, self.local) if reflected else (self.local, o_local)
        d = None
        if self._delegates is not None and o_del is not None:
            da, db = (o_del, self._delegates) if reflected else (self._delegates, o_del)
            d = fn(da, db)
        return self._like(fn(a, b), d)

    def _unary(self, fn):
        d = None if self._delegates is None else fn(self._delegates)
        return self._like(fn(self.local), d)

    def __neg__(self):
        return self._unary(operator.neg)

    def __abs__(self):
        return self._unary(abs)

    def __invert__(self):
        return self._unary(operator.invert)

    # ---------------------------------------------------------------- reductions
    def _reduce(self, local_fn, op, empty):
        if self.local.size:
            v = local_fn(self.local)
            v = v.item() if hasattr(v, "item") else v
        else:
            v = empty
        if self.graph.P == 1:
            return v
        return self.graph.comm.allreduce(v, op)

    def sum(self, axis=None):
        """Sum over every entry (all ranks get it), or along ``axis=1`` of a block (a
        DistArray of one value per vertex)."""
        if axis is not None:
            if axis not in (1, -1) or self.ndim != 2:
                raise ValueError("a DistArray sums over everything or along axis 1 of a block")
            return self._unary(lambda a: a.sum(axis=1))
        zero = False if self.dtype == np.bool_ else self.dtype.type(0).item()
        s = self._reduce(lambda a: a.sum(), "sum", zero)
        return int(s) if self.dtype == np.bool_ else s

    def min(self):
        return self._reduce(lambda a: a.min(), "min", _extreme(self.dtype, high=True))

    def max(self):
        return self._reduce(lambda a: a.max(), "max", _extreme(self.dtype, high=False))

    def any(self) -> bool:
        return bool(self._reduce(lambda a: int(a.any()), "max", 0))

    def all(self) -> bool:
        return bool(self._reduce(lambda a: int(a.all()), "min", 1))

    def column_sums(self):
        """Each column's total over every vertex of a block ``(n, k)``: a ``(k,)`` array of
        the graph's module, the same on every rank (one allreduce of ``k`` values)."""
        G = self.graph
        tdt = transfer_dtype(self.dtype)
        part = self.local.astype(tdt).sum(axis=0)
        return G.comm.allreduce_array(part, "sum") if G.P > 1 else part

    def read(self, ids, cols=None):
        """The values at the vertices ``ids`` (an array the same on every rank; with
        ``cols``, of a block at ``(ids[i], cols[i])``): an array of the graph's module, the
        same on every rank (each owner fills its entries, one allreduce of ``len(ids)``
        values).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
        >>> DistArray(G, np.array([5, 6, 7])).read(np.array([2, 0, 2])).tolist()
        [7, 5, 7]
        """
        G, xp = self.graph, self.graph.xp
        ids = xp.asarray(_host(ids) if xp is np else ids, dtype=np.int64).ravel()
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= G.n):
            raise IndexError(f"vertex ids must lie in [0, {G.n})")
        tdt = transfer_dtype(self.dtype)
        mine = ids % G.P == G.rank
        out = xp.zeros(ids.size, tdt)
        if cols is None:
            out[mine] = self.local[ids[mine] // G.P].astype(tdt)
        else:
            cols = xp.asarray(_host(cols) if xp is np else cols, dtype=np.int64).ravel()
            out[mine] = self.local[ids[mine] // G.P, cols[mine]].astype(tdt)
        if G.P > 1:
            out = G.comm.allreduce_array(out, "sum")
        return out.astype(self.dtype)

    # ---------------------------------------------------------------- indexing
    def __getitem__(self, key):
        G = self.graph
        if isinstance(key, tuple) and self.ndim == 2 and len(key) == 2 and _all(key[0]):
            if isinstance(key[1], (int, np.integer)):   # a[:, j]: one column
                d = None if self._delegates is None else self._delegates[:, int(key[1])]
                return DistArray(G, self.local[:, int(key[1])], d)
        if isinstance(key, tuple) and self.ndim == 1 and key[1:] == (None,) and _all(key[0]):
            d = None if self._delegates is None else self._delegates[:, None]
            return DistArray(G, self.local[:, None], d)   # a[:, None]: a block (n, 1)
        if isinstance(key, tuple) and len(key) == 2 and self.ndim == 2:
            return self.read(key[0], key[1])
        if getattr(key, "ndim", 0) == 1 and not isinstance(key, DistArray):
            return self.read(key)
        if isinstance(key, DistArray):
            if key.dtype == np.bool_:
                raise TypeError("boolean indexing of a DistArray is not supported: use "
                                "where(mask, a, fill)")
            (values,) = G.fetch(key.local, self.local)
            return DistArray(G, values)
        v = _vertex(key, G.n)
        owner = v % G.P
        value = self.local[v // G.P].item() if owner == G.rank else None
        return G.comm.bcast(value, root=owner) if G.P > 1 else value

    def __setitem__(self, key, value):
        G = self.graph
        if isinstance(key, tuple) and len(key) == 2 and self.ndim == 2:
            # a[vertices, columns] = value: each rank writes the vertices it owns
            rows, cols = (np.asarray(_host(k), np.int64) for k in key)
            rows, cols = np.broadcast_arrays(rows, cols)
            mine = rows % G.P == G.rank
            xp = G.xp
            self.local[xp.asarray(rows[mine] // G.P), xp.asarray(cols[mine])] = value
            self._delegates = None
            return
        v = _vertex(key, G.n)
        if v % G.P == G.rank:
            self.local[v // G.P] = value
        self._delegates = None


class DistRows(DistArray):
    """``k`` rows of one value per vertex, shape ``(k, n)``, as the single-device
    many-source searches return them (``levels[i]``: the search from ``sources[i]``).

    Each rank keeps its vertices' values as a ``(n_local, k)`` block (``local``), as a
    :class:`DistArray` block does; ``.T`` is that block (no copy), ``rows[i]`` the 1-D
    DistArray of row ``i``, and :meth:`~spbfs.dist.DistGraph.gather` returns a ``(k, n)``
    array.

    Examples
    --------
    >>> import numpy as np
    >>> import spbfs
    >>> from spbfs.dist import DistGraph
    >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> levels = spbfs.bfs(G, [0, 2])
    >>> levels.shape, G.gather(levels).tolist(), G.gather(levels[1]).tolist()
    ((2, 3), [[0, 1, 2], [2, 1, 0]], [2, 1, 0])
    """

    __slots__ = ()

    @property
    def shape(self) -> tuple:
        return (int(self.local.shape[1]), self.graph.n)

    def __len__(self) -> int:
        return int(self.local.shape[1])

    @property
    def T(self):
        return DistArray(self.graph, self.local, self._delegates)

    def __repr__(self) -> str:
        return (f"DistRows(k={len(self)}, n={self.graph.n}, rank={self.graph.rank}, "
                f"dtype={self.dtype}, local={self.local!r})")

    def sum(self, axis=None):
        """Sum over every entry, or over the rows (``axis=0``: one value per vertex)."""
        if axis is None:
            return super().sum()
        if axis in (1, -1):   # over the vertices: one total per row, on every rank
            return self.column_sums()
        if axis not in (0, -2):
            raise ValueError("DistRows sum over everything, over the rows (axis=0) or over "
                             "the vertices (axis=1)")
        return self.T.sum(axis=1)

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) == 2:   # rows[i, v] at host pairs
            return self.read(key[1], key[0])
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise TypeError(f"DistRows are indexed by one row number, got "
                            f"{type(key).__name__}")
        k = len(self)
        if not -k <= int(key) < k:
            raise IndexError(f"row {int(key)} out of range for {k} rows")
        d = None if self._delegates is None else self._delegates[:, int(key)]
        return DistArray(self.graph, self.local[:, int(key)], d)

    def __setitem__(self, key, value):
        raise TypeError("DistRows are read-only: write the (n, k) block .T")


def _host(a):
    return a.get() if hasattr(a, "get") else a


def _all(key) -> bool:
    """Whether an index is ``:`` (every vertex)."""
    return isinstance(key, slice) and key == slice(None)


def _extreme(dtype, high):
    if dtype == np.bool_:
        return high
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.max if high else info.min)
    return float("inf") if high else float("-inf")


def _vertex(key, n) -> int:
    if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
        raise TypeError(f"a DistArray is indexed by one vertex id or a DistArray of ids, "
                        f"got {type(key).__name__}")
    v = int(key)
    if not 0 <= v < n:
        raise IndexError(f"vertex {v} out of range [0, {n})")
    return v


_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
           "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
           "pow": operator.pow, "and": operator.and_, "or": operator.or_,
           "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift}
_COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
            "eq": operator.eq, "ne": operator.ne}


def _install_operators():
    def forward(fn):
        return lambda self, other: self._binary(other, fn)

    def reflected(fn):
        return lambda self, other: self._binary(other, fn, reflected=True)

    for name, fn in _BINARY.items():
        setattr(DistArray, f"__{name}__", forward(fn))
        setattr(DistArray, f"__r{name}__", reflected(fn))
    for name, fn in _COMPARE.items():
        setattr(DistArray, f"__{name}__", forward(fn))


_install_operators()


class DistNamespace:
    """The array namespace (``M.xp``) of a distributed graph: makes and combines
    :class:`DistArray` objects.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.dist import DistGraph
    >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> xp = DistNamespace(G)
    >>> a = xp.where(xp.arange(3) > 0, xp.full(3, 2.0), 0.0)
    >>> G.gather(xp.cumsum(a)).tolist(), xp.float64
    ([0.0, 2.0, 4.0], <class 'numpy.float64'>)
    """

    #: Sparse vectors keep this namespace's bitmap form (``Vector.to_sparse``).
    distributed = True

    def __init__(self, graph):
        self.graph = graph
        self.base = graph.xp

    def __getattr__(self, name):
        if name in PASSTHROUGH:
            return getattr(np, name)
        if name in ELEMENTWISE:
            fn = getattr(self.base, name)
            return lambda *args, **kw: self._map(fn, *args, **kw)
        raise AttributeError(f"{name} is not available on a distributed graph's arrays "
                             "(spbfs.dist.arrays.DistNamespace)")

    def _map(self, fn, *args, out=None, **kw):
        """``fn`` on each rank's part and on the delegates' values where every operand
        knows them; into the DistArray ``out`` (in place) when given."""
        if not any(isinstance(a, DistArray) for a in args + (out,)):  # scalars: as numpy
            return fn(*args, **kw) if out is None else fn(*args, out=out, **kw)
        locals_, dels, known = [], [], True
        for a in args:
            if isinstance(a, DistArray):
                locals_.append(a.local)
                dels.append(a._delegates)
                known = known and a._delegates is not None
            else:
                locals_.append(a)
                dels.append(a)
        if out is None:
            d = fn(*dels, **kw) if known else None
            return DistArray(self.graph, fn(*locals_, **kw), d)
        fn(*locals_, out=out.local, **kw)
        if known and out._delegates is not None:
            fn(*dels, out=out._delegates, **kw)
        else:
            out._delegates = fn(*dels, **kw).astype(out.dtype) if known else None
        return out

    # ---------------------------------------------------------------- constructors
    def _check_n(self, n) -> tuple:
        """The block shape after the vertex axis of an array of shape ``n``."""
        shape = tuple(int(s) for s in (n if isinstance(n, tuple) else (n,)))
        if not shape or shape[0] != self.graph.n or len(shape) > 2:
            raise ValueError(f"a distributed graph's arrays have shape ({self.graph.n},) or "
                             f"({self.graph.n}, k), not {shape}")
        return shape[1:]

    def full(self, n, fill, dtype=None):
        rest = self._check_n(n)
        G = self.graph
        local = self.base.full((G.n_local,) + rest, fill, dtype)
        return DistArray(G, local, self.base.full((G.D,) + rest, fill, local.dtype))

    def copyto(self, dst, src, where=True):
        """``dst[where] = src`` in place (element-wise, as ``numpy.copyto``)."""
        parts = [(dst.local, src, where)]
        known = dst._delegates is not None
        if known:
            d_src = src.delegate_values() if isinstance(src, DistArray) else src
            d_where = where.delegate_values() if isinstance(where, DistArray) else where
            parts.append((dst._delegates, d_src, d_where))
        for i, (d, s_, w) in enumerate(parts):
            if i == 0:
                s_ = s_.local if isinstance(s_, DistArray) else s_
                w = w.local if isinstance(w, DistArray) else w
            self.base.copyto(d, s_, where=w)

    def zeros(self, n, dtype=np.float64):
        return self.full(n, 0, np.dtype(dtype))

    def ones(self, n, dtype=np.float64):
        return self.full(n, 1, np.dtype(dtype))

    empty = zeros

    def full_like(self, a, fill, dtype=None):
        return self.full(a.shape, fill, dtype or a.dtype)

    def zeros_like(self, a, dtype=None):
        return self.full(a.shape, 0, dtype or a.dtype)

    empty_like = zeros_like

    def ones_like(self, a, dtype=None):
        return self.full(a.shape, 1, dtype or a.dtype)

    def arange(self, n, dtype=np.int64):
        """The vertex ids (``arange(n)`` only)."""
        self._check_n(n)
        G = self.graph
        return DistArray(G, G.local_vertices().astype(dtype), G.delegates.astype(dtype))

    def asarray(self, a, dtype=None):
        """A DistArray as it is (cast to ``dtype``), a scalar as a 0-d array, or a whole
        length-``n`` array (the same on every rank) cut to this rank's part."""
        if isinstance(a, DistArray):
            return a if dtype is None else a.astype(dtype, copy=False)
        arr = self.base.asarray(a, dtype=dtype)
        if arr.ndim == 0:
            return arr
        self._check_n(arr.shape)
        G = self.graph
        return DistArray(G, arr[G.rank::G.P].copy(), arr[G.delegates])

    def stack(self, arrays, axis=1):
        """DistArrays of one value per vertex side by side: a block ``(n, len(arrays))``."""
        return self._side_by_side(self.base.stack, arrays, axis)

    def concatenate(self, arrays, axis=1):
        """DistArray blocks ``(n, k_i)`` side by side: a block ``(n, sum k_i)``."""
        return self._side_by_side(self.base.concatenate, arrays, axis)

    def _side_by_side(self, join, arrays, axis):
        """``join`` along axis 1 of each rank's part, and of the delegates' when known."""
        if axis not in (1, -1):
            raise ValueError("DistArrays join along axis 1 (the vertex axis stays first)")
        arrays = list(arrays)
        local = join([a.local for a in arrays], axis=1)
        known = all(a._delegates is not None for a in arrays)
        d = join([a._delegates for a in arrays], axis=1) if known else None
        return DistArray(self.graph, local, d)

    def where(self, condition, a, b):
        return self._map(self.base.where, condition, a, b)

    def flatnonzero(self, a):
        """The global ids of the vertices where ``a`` is nonzero, ascending: an array of
        the graph's module, the same on every rank (one allgather of the ids; the result
        is a list of vertices, not a vertex array).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 4)
        >>> DistNamespace(G).flatnonzero(G.__spbfs_matrix__().out_degree == 0).tolist()
        [3]
        """
        G, xp = self.graph, self.base
        mine = xp.flatnonzero(a.local).astype(np.int64) * G.P + G.rank
        if G.P == 1:
            return mine
        parts = G.comm.allgather(G.comm.to_host(mine))
        return xp.asarray(np.sort(np.concatenate(parts)))

    def take(self, table, indices):
        """``table[indices]`` for an array ``table`` the same on every rank (not a vertex
        array) and a DistArray of positions into it: a DistArray (no communication)."""
        if isinstance(table, DistArray):
            raise TypeError("take reads a table the same on every rank; index a DistArray "
                            "by a DistArray of vertex ids instead (a[ids])")
        return self._map(lambda idx: table[idx], indices)

    def searchsorted(self, sorted_values, v, side="left"):
        """Positions of the DistArray ``v``'s values in ``sorted_values`` (an array the
        same on every rank): a DistArray (no communication)."""
        if isinstance(sorted_values, DistArray):
            raise TypeError("searchsorted searches an array the same on every rank, not a "
                            "DistArray")
        return self._map(lambda x: self.base.searchsorted(sorted_values, x, side=side), v)

    def count_nonzero(self, a) -> int:
        return (a != 0).sum()

    def cumsum(self, a):
        """Inclusive prefix sums in vertex-id order (one exclusive scan and one allreduce of
        ``n / P`` values over the ranks)."""
        G, xp = self.graph, self.base
        tdt = np.cumsum(np.zeros(0, a.dtype)).dtype   # numpy's: bool and small ints as int64
        width = -(-G.n // G.P)   # the most vertices a rank owns
        own = xp.zeros(width, tdt)
        if G.n_local:
            own[:G.n_local] = xp.cumsum(a.local.astype(tdt))
            own[G.n_local:] = own[G.n_local - 1]
        before = G.comm.exscan_array(own)                # ranks below, same local id
        total = G.comm.allreduce_array(own, "sum") if G.P > 1 else own
        # vertex j*P + r: ranks <= r up to local id j, ranks > r up to local id j - 1
        after = xp.zeros(width, tdt)
        after[1:] = (total - before - own)[:-1]
        out = (before + own + after)[:G.n_local]
        return DistArray(G, out)
