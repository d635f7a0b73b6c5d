"""Graph matrices: the adjacency matrix (sparse or dense), Laplacians, modularity and Bethe
Hessian matrices, the Google matrix and the tournament matrix.

The adjacency matrix is built from the converted CSR arrays: NetworkX's coordinate list
(its edges in ``G.edges`` order, an undirected graph's mirrored, each self-loop's weight
taken off once) made by array operations instead of a Python loop over the edges, then
handed to scipy as NetworkX hands its own; the matrices made from it follow NetworkX's
formulas on it, so values (float rounding included), dtypes and formats equal NetworkX's.
"""

from __future__ import annotations

from itertools import filterfalse, repeat

import numpy as np

from ..core.arrays import index_dtype, to_numpy
from ..cpu.densify import dense_rows, google_rows, outer_minus_sparse
from ..cpu.diagonal import shifted_diagonal
from ..semiring import Matrix, ewise_union, ops, select
from ._recognition import no_multigraph, raw_weights
from ._registry import dispatched

__all__ = []

_NONE = object()


def _weights(G, attr):
    """``raw_weights``, read from the graph ``G`` was converted from when ``attr`` was not
    converted (functions NetworkX dispatches without converting it, which still read it)."""
    return raw_weights(G, attr, from_source=True)


def _as_read(G, attr, values, dtype, loops):
    """``values`` of edge attribute ``attr`` as bools where every one was a bool and no
    ``dtype`` is asked for (NumPy makes NetworkX's list of them a bool array), unless
    ``loops``: an undirected graph's list holds each of its self-loops' negated weight
    too, an int."""
    if dtype is None and attr in G._bool_attrs:
        return values.astype(np.int64 if loops else bool)
    return values


def _cast_checked(values, dtype):
    """``values``, raising as NumPy's conversion of NetworkX's lists does where an integer
    ``dtype`` meets a NaN or infinite weight, or one (truncated) outside its range
    (``astype`` would wrap it silently)."""
    if dtype is None or np.dtype(dtype).kind not in "iu" or values.dtype.kind not in "iuf":
        return values
    dtype = np.dtype(dtype)
    if values.dtype.kind == "f":
        if not np.isfinite(values).all():
            if np.isnan(values).any():
                raise ValueError("cannot convert float NaN to integer")
            raise OverflowError("cannot convert float infinity to integer")
        values = np.trunc(values)
    info = np.iinfo(dtype)
    if values.dtype.kind == "f":  # float(info.max) may round up to the first value past it
        outside = (values < info.min) | (values >= float(info.max) + 1)
    else:
        outside = (values < info.min) | (values > info.max)
    if outside.any():
        first = values[np.flatnonzero(outside)[0]]
        if values.dtype.kind == "f" and not -2.0 ** 63 <= first < 2.0 ** 64:
            raise OverflowError("Python int too large to convert to C long")
        raise OverflowError(f"Python integer {int(first)} out of bounds for {dtype}")
    return values


def _loops_overflow(G, w, dtype):
    """Whether a self-loop's weight (of the weights ``w``) doubled leaves the float range of
    the matrix's ``dtype``: NetworkX's coordinate list holds an undirected loop's weight
    twice and its negation once, which scipy adds in the order its sort of the row leaves
    them (``w + w - w`` is inf, or ``w`` in another order; NaN for an infinite weight), so
    the matrix is then made from that list as NetworkX makes it."""
    kind = np.dtype(dtype if dtype is not None else w.dtype)
    if kind.kind not in "fc":
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        x = w[G.entry_rows() == G._indices].astype(kind)
        return not np.isfinite(x + x).all()


def _positions(G, nodelist):
    """NetworkX's checks of ``nodelist`` and the position of each row in it (-1: left out)."""
    import networkx as nx

    n = len(G)
    if nodelist is None:
        return np.arange(n), n
    nlen = len(nodelist)
    if nlen == 0:
        raise nx.NetworkXError("nodelist has no nodes")
    index = G.index
    if nlen != len(set(filter(G.__contains__, nodelist))):
        missing = next(filterfalse(G.__contains__, nodelist), _NONE)
        if missing is not _NONE:
            raise nx.NetworkXError(f"Node {missing} in nodelist is not in G")
        raise nx.NetworkXError("nodelist contains duplicates.")
    pos = np.full(n, -1, np.int64)
    pos[np.fromiter(map(index.__getitem__, nodelist), np.int64, count=nlen)] = np.arange(nlen)
    return pos, nlen


def _coordinates(G, nodelist, weight):
    """NetworkX's ``(data, (row, col))`` lists of ``to_scipy_sparse_array``, as arrays, and
    the matrix size."""
    import networkx as nx

    if not len(G):
        raise nx.NetworkXError("Graph has no nodes or edges")
    pos, nlen = _positions(G, nodelist)
    w = _weights(G, weight)
    entries = G.edge_entries()
    rows = pos[G.entry_rows()[entries]]
    cols = pos[G._indices[entries].astype(np.int64)]
    keep = (rows >= 0) & (cols >= 0)
    rows, cols, data = rows[keep], cols[keep], w[entries][keep]
    if G.is_directed():
        return data, rows, cols, nlen
    loop = rows == cols
    return (np.concatenate([data, data, -data[loop]]),
            np.concatenate([rows, cols, rows[loop]]),
            np.concatenate([cols, rows, rows[loop]]), nlen)


def adjacency(G, nodelist=None, dtype=None, weight="weight", format="csr"):
    """NetworkX's ``to_scipy_sparse_array`` of ``G`` (an :class:`SpbfsGraph`)."""
    import networkx as nx
    import scipy.sparse as sp

    loops = not G.is_directed() and len(G) > 0 and G.self_loop_count() > 0
    if (nodelist is None and format in ("csr", "csc") and len(G) and G.nnz
            and not (loops and _loops_overflow(G, _weights(G, weight), dtype))):
        # the sorted pattern is NetworkX's matrix already (its coordinates, an undirected
        # graph's mirrored, summed by scipy into sorted rows): only the values are placed
        M = G.csr(False)
        w = _cast_checked(_as_read(G, weight, _weights(G, weight), dtype, loops), dtype)
        data = np.empty(M.nnz, w.dtype)
        data[G.csr_positions()] = w
        n = len(G)
        A = sp.csr_array((data, to_numpy(M.indices), to_numpy(M.indptr)), shape=(n, n),
                         dtype=dtype)
        # int64 indices, as scipy's conversion of NetworkX's int64 coordinates leaves them
        A.indices = to_numpy(M.indices).astype(np.int64)
        A.indptr = to_numpy(M.indptr).astype(np.int64)
        A.has_canonical_format = True  # the pattern's rows: sorted, each column once
        return A if format == "csr" else A.tocsc()
    data, rows, cols, nlen = _coordinates(G, nodelist, weight)
    loops = not G.is_directed() and bool((rows == cols).any())
    data = _cast_checked(_as_read(G, weight, data, dtype, loops), dtype)
    if not data.size:  # NetworkX's empty lists: float64
        data = data.astype(np.float64)
    A = sp.coo_array((data, (rows, cols)), shape=(nlen, nlen), dtype=dtype)
    try:
        return A.asformat(format)
    except ValueError as err:
        raise nx.NetworkXError(f"Unknown sparse matrix format: {format}") from err


def _sparse_can_run(arguments):
    G = arguments["G"]
    if G.is_multigraph():
        return ("multigraphs run in NetworkX: spbfs merges parallel edges, whose weights "
                "NetworkX adds")
    nodelist = arguments.get("nodelist")
    if nodelist is not None and arguments.get("format", "csr") not in ("csr", "csc") \
            and len(nodelist) < len(G):
        return ("a nodelist of part of G in a format that keeps NetworkX's entry order "
                "(that of its filtered subgraph view) runs in NetworkX")
    return True


_BUILT = ("A whole graph's CSR/CSC matrix is the converted sorted pattern with its values "
          "placed, other node lists NetworkX's coordinate list made from the converted "
          "arrays by array operations; then NetworkX's formulas with its element-wise steps "
          "(compiled passes on the host: the Laplacians' diagonal merged into the rows, "
          "dense results row by row in the one n x n array); an undirected self-loop whose "
          "weight doubled overflows the dtype: NetworkX's coordinate list (scipy adds its "
          "two entries and negation as for NetworkX: inf, NaN or the weight); multigraphs "
          "run in NetworkX.")


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def to_scipy_sparse_array(G, nodelist=None, dtype=None, weight="weight", format="csr"):
    """NetworkX's ``to_scipy_sparse_array``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.to_scipy_sparse_array(nx.path_graph(3), backend="spbfs").toarray()
    array([[0, 1, 0],
           [1, 0, 1],
           [0, 1, 0]])
    """
    return adjacency(G, nodelist, dtype, weight, format)


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def adjacency_matrix(G, nodelist=None, dtype=None, weight="weight"):
    """NetworkX's ``adjacency_matrix``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.adjacency_matrix(nx.DiGraph([(0, 1)]), backend="spbfs").toarray()
    array([[0, 1],
           [0, 0]])
    """
    return adjacency(G, nodelist, dtype, weight)


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def laplacian_matrix(G, nodelist=None, weight="weight"):
    """NetworkX's ``laplacian_matrix``: ``D - A``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.laplacian_matrix(nx.path_graph(3), backend="spbfs").toarray()
    array([[ 1, -1,  0],
           [-1,  2, -1],
           [ 0, -1,  1]])
    """
    A = adjacency(G, nodelist, weight=weight)
    return _shifted(A, 1, 0, A.sum(axis=1))


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def normalized_laplacian_matrix(G, nodelist=None, weight="weight"):
    """NetworkX's ``normalized_laplacian_matrix``: ``D^-1/2 (D - A) D^-1/2``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.normalized_laplacian_matrix(nx.complete_graph(2), backend="spbfs").toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    A = adjacency(G, nodelist, weight=weight)
    diags = A.sum(axis=1)
    with np.errstate(divide="ignore"):
        diags_sqrt = 1.0 / np.sqrt(diags)
    diags_sqrt[np.isinf(diags_sqrt)] = 0
    # NetworkX's DH @ (L @ DH), L = D - A, for a diagonal DH: each product a sum of one
    # term (from 0), so each stored value is dh[i] * (L[i, j] * dh[j]), zeros dropped
    return _shifted(A, 1, 0, diags, scale=diags_sqrt)


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def modularity_matrix(G, nodelist=None, weight=None):
    """NetworkX's ``modularity_matrix`` (undirected graphs): ``A - k k^T / 2m``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.modularity_matrix(nx.complete_graph(2), backend="spbfs")
    array([[-0.5,  0.5],
           [ 0.5, -0.5]])
    """
    A = adjacency(G, nodelist, weight=weight)
    k = A.sum(axis=1)
    m = k.sum() * 0.5
    return _modularity(A, k, k, 2 * m)


@dispatched(can_run=_sparse_can_run, docs=_BUILT)
def directed_modularity_matrix(G, nodelist=None, weight=None):
    """NetworkX's ``directed_modularity_matrix``: ``A - k_out k_in^T / m``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.directed_modularity_matrix(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), backend="spbfs")
    array([[-0.33333333,  0.66666667, -0.33333333],
           [ 0.33333333, -0.66666667,  0.33333333],
           [ 0.        ,  0.        ,  0.        ]])
    """
    A = adjacency(G, nodelist, weight=weight)
    k_in = A.sum(axis=0)
    k_out = A.sum(axis=1)
    return _modularity(A, k_out, k_in, k_in.sum())


def _modularity(A, left, right, denom):
    """NetworkX's ``A - np.outer(left, right) / denom`` (a scipy sparse array less a dense
    float array: a dense array): one compiled pass writing each row once, ``0.0 - x``
    then each stored ``a`` added (``-x + a`` is ``a - x`` in IEEE arithmetic, rounding
    included), where the vectors are int64 or float64 alike and ``A``'s values real
    numbers and ``denom`` not zero; NumPy's steps otherwise (a zero total weight: NaN,
    as NumPy's division gives NetworkX)."""
    if (denom != 0 and left.dtype == right.dtype and left.dtype in (np.int64, np.float64)
            and A.dtype.kind in "biuf" and A.dtype.itemsize <= 8 and A.has_canonical_format):
        return outer_minus_sparse(left, right, denom, A.indptr, A.indices, A.data)
    X = np.outer(left, right)
    with np.errstate(divide="ignore", invalid="ignore"):
        return A - np.divide(X, denom, out=X if X.dtype.kind == "f" else None)


@dispatched(can_run=_sparse_can_run, docs=_BUILT + " ``r`` from the pattern's degrees.")
def bethe_hessian_matrix(G, r=None, nodelist=None):
    """NetworkX's ``bethe_hessian_matrix`` (undirected graphs): ``(r^2 - 1) I - r A + D``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.bethe_hessian_matrix(nx.path_graph(3), r=2, backend="spbfs").toarray()
    array([[ 4., -2.,  0.],
           [-2.,  5., -2.],
           [ 0., -2.,  4.]])
    """
    if r is None:  # nx.degree: a self-loop counts twice
        d = np.diff(G._indptr).astype(np.int64)
        rows = G.entry_rows()
        d += np.bincount(rows[rows == G._indices], minlength=len(G))
        r = int((d * d).sum()) / int(d.sum()) - 1
    A = adjacency(G, nodelist, weight="weight")
    # the values become float64 in the merge (r is a float): no float copy of the whole
    # matrix first
    return _shifted(A, float(r), (r**2 - 1) * 1.0, A.sum(axis=1))


def _shifted(A, s, e, d, scale=None):
    """NetworkX's ``(e I - s A) + diag(d)`` (the Laplacian ``D - A``: ``s`` 1, ``e`` 0; the
    Bethe Hessian ``(r^2 - 1) I - r A + D``) as scipy's sparse sums give it, zeros dropped
    (with ``scale``, each entry then ``scale[i] * (v * scale[j])``, zeros dropped again):
    one compiled merge of the diagonal into ``A``'s rows (columns ascending, each once)
    where ``A`` holds int64 or float64 values."""
    import scipy.sparse as sp

    dtype = np.result_type(A.dtype, d.dtype, type(s), type(e))
    if A.has_canonical_format and dtype in (np.int64, np.float64):
        parts = shifted_diagonal(A.indptr, A.indices, A.data.astype(dtype, copy=False), s, e,
                                 d.astype(dtype, copy=False), scale)
        return sp.csr_array(parts[::-1], shape=A.shape)
    n, m = A.shape
    D = sp.dia_array((d, 0), shape=(m, n)).tocsr()
    X = D - A if e == 0 and s == 1 else (e * sp.eye_array(m, n, format="csr") - s * A) + D
    if scale is None:
        return X
    X = X.tocsr()
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    held = (scale[rows] != 0) & (scale[X.indices] != 0)  # the products' terms
    with np.errstate(invalid="ignore"):
        values = np.where(held, scale[rows] * (X.data * scale[X.indices]), 0)
    X = sp.csr_array((values, X.indices, X.indptr), shape=X.shape)
    X.eliminate_zeros()
    return X


def dense(G, nodelist=None, dtype=None, order=None, weight="weight", nonedge=0.0):
    """NetworkX's ``to_numpy_array`` of a graph that is not a multigraph."""
    import networkx as nx

    if nodelist is None:
        pos, nlen = np.arange(len(G)), len(G)
    else:
        nodeset = set(nodelist)
        missing = nodeset - G.index.keys()
        if missing:
            raise nx.NetworkXError(f"Nodes {missing} in nodelist is not in G")
        nlen = len(nodelist)
        if len(nodeset) < nlen:
            raise nx.NetworkXError("nodelist contains duplicates.")
        pos = np.full(len(G), -1, np.int64)
        pos[np.fromiter(map(G.index.__getitem__, nodelist), np.int64, count=nlen)] = \
            np.arange(nlen)
    # NetworkX's np.full: without a dtype the nonedge value's (an int one's is int64)
    if (nlen and isinstance(nonedge, (int, float, np.integer, np.floating))
            and np.full((), nonedge, dtype=dtype).dtype == np.float64 and order in (None, "C")):
        # NetworkX's default array: each row filled and scattered while cached
        return dense_rows(G._indptr, G._indices, pos, _weights(G, weight), nonedge, nlen)
    A = np.full((nlen, nlen), fill_value=nonedge, dtype=dtype, order=order)
    if nlen == 0 or G.nnz == 0:
        return A
    rows, cols = pos[G.entry_rows()], pos[G._indices.astype(np.int64)]
    keep = (rows >= 0) & (cols >= 0)
    A[rows[keep], cols[keep]] = _cast_checked(_weights(G, weight)[keep], A.dtype)
    return A


def _dense_can_run(arguments):
    G = arguments["G"]
    if G.is_multigraph():
        return "multigraphs run in NetworkX (multigraph_weight over parallel edges)"
    dtype = arguments.get("dtype")
    if dtype is not None and np.dtype(dtype).names:
        return "structured dtypes run in NetworkX"
    if dtype is not None and np.dtype(dtype).kind == "O":
        return ("dtype=object runs in NetworkX: its array holds the weights' own objects "
                "(bools, 1.0 for a missing weight), spbfs's their int64 or float64 values")
    return True


@dispatched(can_run=_dense_can_run, docs="The converted arrays scattered into the dense "
            "array; multigraphs, structured dtypes and ``dtype=object`` run in NetworkX.")
def to_numpy_array(G, nodelist=None, dtype=None, order=None, multigraph_weight=sum,
                   weight="weight", nonedge=0.0):
    """NetworkX's ``to_numpy_array``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.to_numpy_array(nx.path_graph(3), backend="spbfs")
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    return dense(G, nodelist, dtype, order, weight, nonedge)


@dispatched(can_run=_dense_can_run, docs="The dense adjacency array of ``to_numpy_array``, "
            "then NetworkX's formula in that array (the same values); multigraphs run in "
            "NetworkX.")
def google_matrix(G, alpha=0.85, personalization=None, nodelist=None, weight="weight",
                  dangling=None):
    """NetworkX's ``google_matrix``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.google_matrix(nx.DiGraph([(0, 1)]), backend="spbfs")
    array([[0.075, 0.925],
           [0.5  , 0.5  ]])
    """
    if nodelist is None:
        nodelist = G.nodes
    A = dense(G, nodelist, weight=weight)
    N = len(G)
    if N == 0:
        return A
    if personalization is None:
        p = np.repeat(1.0 / N, N)
    else:
        p = np.array(list(map(personalization.get, nodelist, repeat(0))), dtype=float)
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is None:
        dangling_weights = p
    else:
        dangling_weights = np.array(list(map(dangling.get, nodelist, repeat(0))), dtype=float)
        dangling_weights /= dangling_weights.sum()
    sums = A.sum(axis=1)
    dangling_nodes = np.where(sums == 0)[0]
    A[dangling_nodes] = dangling_weights
    # NetworkX sums the rows again: a dangling row's sum is its new values' (the same
    # pairwise sum of the same row), the others' are unchanged
    sums[dangling_nodes] = np.asarray(dangling_weights, np.float64).sum()
    if A.dtype == np.float64 and A.flags.c_contiguous:  # NetworkX's alpha * A + (1 - alpha) * p
        return google_rows(A, sums, alpha, (1 - alpha) * p)
    A /= sums[:, np.newaxis]
    A *= alpha
    A += (1 - alpha) * p
    return A


@dispatched(can_run=no_multigraph, docs=_BUILT + " Then ``A - A.T`` as in NetworkX: "
            "``ewise_union(A, A.T, minus, 0, 0)``, one compiled merge of rows, over the "
            "matrix and its transpose kept with the graph (int64 or float64 weights; others "
            "by scipy), zero differences dropped as scipy drops them.")
def tournament_matrix(G):
    """NetworkX's ``tournament_matrix`` (directed graphs): ``A - A.T``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.tournament.tournament_matrix(nx.DiGraph([(0, 1)]), backend="spbfs").toarray()
    array([[ 0,  1],
           [-1,  0]])
    """
    A, zero_weight = G._once(("tournament adjacency",), lambda: _with_transpose(adjacency(G)))
    if not isinstance(A, Matrix):
        return A - A.T  # scipy's own rules (bools, no arc)
    C = ewise_union(A, A.T, ops.minus, 0, 0)  # scipy's CSC -> CSR and merge: 20 ms of 1M
    # scipy drops the differences that are zero: a lone arc of weight 0, or two opposite
    # arcs (C then holds fewer entries than A and A.T) of one weight
    if (zero_weight or C.nnz < 2 * A.nnz) and not bool(C.data.all()):
        C = select(C, "nonzero")
    C = C.to_scipy()
    C.indptr = C.indptr.astype(np.int64, copy=False)  # A's int64, as scipy keeps them
    C.indices = C.indices.astype(np.int64, copy=False)
    return C


def _with_transpose(A):
    """``(the scipy matrix A as a Matrix in the index dtype of the operations' results, so
    the merge writes its result's indices once, its transpose built; whether a weight is
    0)``, kept with the graph; ``(A, None)`` where scipy computes ``A - A.T``."""
    if A.dtype not in (np.int64, np.float64) or not A.nnz:
        return A, None
    idt = index_dtype(A.shape[0], A.nnz)
    M = Matrix(A.indptr.astype(idt), A.indices.astype(idt), A.data, A.shape[0],
               canonical=True, check=False)
    _ = M.T.data  # the transpose's values gathered now, once
    return M, not bool(A.data.all())
