"""Drop-in replacements for scipy.sparse.csgraph functions, written with semiring operations.

Same signatures, dtypes (float64 distances, int32 orders, predecessors and
labels), sentinel (-9999) and exceptions as scipy; numpy/scipy inputs give
numpy results, cupy/cupyx inputs give cupy arrays / cupyx matrices, computed on
the device (cupyx holds no integer values: integer results such as a flow come
back as float64).  The sequential ones run on a host copy and return device
arrays: :func:`depth_first_order` / :func:`depth_first_tree`,
:func:`min_weight_full_bipartite_matching`; ``maximum_flow(method="dinic")`` hands
its flow to the host's kernel past :data:`DEVICE_DINIC_STEPS`; the masked-array
conversions answer with numpy masked arrays (``docs/gpu.md`` has the table).

* :func:`breadth_first_order`, :func:`breadth_first_tree`: one masked ``vxm``
  per level; the order and the predecessors are exactly scipy's.
* :func:`shortest_path`, :func:`dijkstra`, :func:`bellman_ford`,
  :func:`johnson`, :func:`floyd_warshall`: a frontier Bellman-Ford over
  ``min_plus`` (each round pushes the vertices whose distance improved), so
  negative weights work and negative cycles raise scipy's
  ``NegativeCycleError``; ``unweighted=True`` is a BFS.  Many sources run
  together on a block-diagonal matrix (one block per source, blocks of about
  :data:`BATCH_ENTRIES` stored entries), so a Python loop runs once per batch,
  not once per source.
* :func:`connected_components`: :func:`spbfs.algorithms.components.connected_components`.

Predecessors follow scipy's Dijkstra (1.17): among the edges ``u -> v`` on a
shortest path to ``v``, the one whose ``u`` is nearest to the source, ties to
the largest ``u`` (the order scipy's priority queue settles vertices).  With
zero-weight edges or negative weights they are a valid shortest-path tree that
may differ from scipy's.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError
from scipy.sparse.csgraph import _tools as _scipy_tools
from scipy.sparse.csgraph._flow import MaximumFlowResult

from .algorithms.components import as_graph
from .algorithms.components import connected_components as _connected_components
from .algorithms.components import min_first_scan as _min_first
from .algorithms.laplacian import laplacian as _laplacian
from .algorithms.sssp import bucket_width
from .core.arrays import array_module, index_dtype, is_cupy, to_numpy
from .core.validation import SCIPY_NULL, check_source
from .semiring import (
    Matrix,
    Monoid,
    Semiring,
    Vector,
    any_pair,
    min_plus,
    monoids,
    ops,
    queue_order,
    relax_buckets,
    vxm,
)

__all__ = ["NegativeCycleError", "bellman_ford", "breadth_first_order", "breadth_first_tree",
           "connected_components", "construct_dist_matrix", "csgraph_from_dense",
           "csgraph_from_masked", "csgraph_masked_from_dense", "csgraph_to_dense",
           "csgraph_to_masked", "depth_first_order", "depth_first_tree", "dijkstra",
           "floyd_warshall", "johnson", "laplacian", "maximum_bipartite_matching",
           "maximum_flow", "min_weight_full_bipartite_matching", "minimum_spanning_tree",
           "reconstruct_path", "reverse_cuthill_mckee", "shortest_path", "structural_rank",
           "yen"]

#: Stored entries of the block-diagonal matrix that runs a batch of sources together.
BATCH_ENTRIES = 1 << 22

_METHODS = ("auto", "FW", "D", "BF", "J")
_DIJKSTRA_NEGATIVE = ("Graph has negative weights: dijkstra will give inaccurate results if "
                      "the graph contains negative cycles. Consider johnson or bellman_ford.")
_max_secondi = Semiring(monoids.max, ops.secondi)
# without an early-exit value, for pulls that scan whole in-lists in one pass
_max_scan = Monoid("max", np.maximum, monoids.max.identity, monoids.max.c_expr)
_max_secondi_scan = Semiring(_max_scan, ops.secondi, name="max_secondi")
#: A BFS frontier holding more than this fraction of the vertices is pulled, not pushed
#: (Bellman-Ford rounds always push: measured, a min_plus pull over every in-edge costs
#: more than sorting the products of even a large frontier).
PULL_FRACTION = 1 / 32
#: scipy numbers strong components in the order its depth-first search finishes them: from
#: 1.18 Tarjan and Zwick's search, each vertex's arcs in storage order, the input's dtype
#: kept; before, Pearce's, arcs last to first, the input converted to float64.
_SCIPY_TARJAN_ZWICK = tuple(int(x) for x in scipy.__version__.split(".")[:2]) >= (1, 18)


# ----------------------------------------------------------------------------- input
def _matrix(csgraph, directed, *, dtype_kept=False, duplicates="sum"):
    """The checked square Matrix of ``csgraph`` (symmetrised unless ``directed``), as
    scipy's ``validate_graph`` sees it (:func:`_graph`).  A COO input is converted with
    ``tocsr()``, which sorts its indices and sums its duplicates in its own dtype; the
    values are then cast to float64 (unless ``dtype_kept``, as scipy 1.18's
    ``connected_components``), and scipy's ``astype`` sums the duplicates of a CSR/CSC
    input that was not float64 after the cast.  ``duplicates="min"`` (scipy's dense
    Floyd-Warshall) keeps them.  A float64 CSR/CSC input keeps its duplicates: each is an
    edge of its own, the shortest counts."""
    G = _graph(csgraph)
    M = Matrix.from_any(G, name="csgraph")
    if M.nrows != M.ncols:
        raise ValueError(f"csgraph must be square, got shape {M.shape}")
    if _is_sparse_input(G):
        if G.format == "coo":
            M = M.canonical()
        if not dtype_kept and M.dtype != np.float64:
            M = M.astype(np.float64)
            if duplicates == "sum":
                M = M.canonical()
    return M if directed else M.symmetrized()


def _graph(csgraph):
    """``csgraph`` as scipy's ``validate_graph`` reads it, in a form
    :meth:`Matrix.from_any` takes (:func:`as_graph` first).  A dense array becomes the
    CSR matrix of scipy's masked reading (``csgraph_from_dense``: a float entry within
    ``1e-8`` of zero, NaN and inf are no edge; a complex one compared exactly, then its
    real part kept); a sparse matrix of complex values is cast to float64 (scipy's
    ``astype``, which warns and sums duplicates).  Anything else is returned as it is."""
    G = as_graph(csgraph)
    if _is_sparse_input(G):
        return G.astype(np.float64) if G.dtype.kind == "c" else G
    if isinstance(G, np.ndarray) or is_cupy(G):
        return _from_dense_arrays(G, 0, True, True)
    return G


def _is_sparse_input(G):
    if is_cupy(G):
        import cupyx.scipy.sparse as csp

        return bool(csp.issparse(G))
    return sp.issparse(G)


def _weights(M, unweighted):
    """``(w, lowest)``: float64 edge weights in CSR order (ones if ``unweighted``; NaN, never
    a shorter path in scipy, becomes inf) and their minimum (inf when none), so a caller
    asks about negative or zero weights of positive ones without another pass."""
    xp = M.xp
    if unweighted:
        return xp.ones(M.nnz, np.float64), 1.0 if M.nnz else np.inf
    w = M.data.astype(np.float64, copy=False)
    if not M.nnz:
        return w, np.inf
    lowest = float(w.min())             # NaN if any weight is NaN
    if lowest != lowest:
        w = xp.where(xp.isnan(w), np.inf, w)
        lowest = float(w.min())
    return w, lowest


def _source_indices(indices, n, min_only):
    """``(flat int64 host array, result shape)`` for scipy's ``indices`` argument."""
    if indices is None:
        flat = np.arange(n, dtype=np.int64)
        return flat, ((n,) if min_only else (n, n))
    arr = np.asarray(to_numpy(indices) if is_cupy(indices) else indices)
    if arr.dtype.kind not in "iu":
        integral = arr.dtype.kind in "bf" and bool(np.all(np.mod(arr, 1) == 0))
        if arr.size and not integral:  # scipy would truncate 1.5 to 1 without a word
            raise TypeError(f"indices must be integer vertex ids, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
    shape = (n,) if min_only else arr.shape + (n,)
    flat = arr.reshape(-1).astype(np.int64)
    flat[flat < 0] += n
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise ValueError("indices out of range 0...N")
    return flat, shape


def _vertex(value):
    """A vertex id as scipy reads it (its compiled ``int``): an integral float or a bool
    stands for an int too; anything else is left to :func:`check_source`."""
    if isinstance(value, (bool, np.bool_, float, np.floating)) and float(value).is_integer():
        return int(value)
    return value


def _limit(limit):
    try:
        value = float(limit)
    except (TypeError, ValueError):
        raise TypeError(f"limit must be a number, got {limit!r}") from None
    if value < 0:
        raise ValueError("limit must be >= 0")
    return value


# ----------------------------------------------------------------------------- traversal
def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """Breadth-first order from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_order``.

    Same arguments, dtypes (int32) and sentinel (-9999 for the start and
    unreached vertices); the order and the predecessors are exactly scipy's
    for every input (unsorted or duplicate indices, CSC, COO, dense,
    undirected): :func:`spbfs.semiring.queue_order` on the arcs in scipy's scan
    order (row by row; for an undirected graph a row of ``A`` then the same row
    of ``A.T``).

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
    i_start : int
        Start vertex.
    directed : bool
        False: edges are usable both ways.
    return_predecessors : bool

    Returns
    -------
    node_array : ndarray of int32
        Reached vertices in breadth-first order, ``i_start`` first.
    predecessors : ndarray of int32, optional
        Parent of each vertex; -9999 for ``i_start`` and unreached vertices.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> order, pred = csgraph.breadth_first_order(A, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 2, 3], [-9999, 0, 0, 1])
    >>> csgraph.breadth_first_order(A, 3, directed=False, return_predecessors=False).tolist()
    [3, 1, 2, 0]
    """
    G = _graph(csgraph)
    M = _matrix(G, True)
    source = check_source(_vertex(i_start), M.n, "i_start")
    order, pred = queue_order(_scan_matrix(G, M, directed), source, null=SCIPY_NULL,
                              dtype=np.int32)
    node_array = order.astype(np.int32)
    return (node_array, pred) if return_predecessors else node_array


def _scan_matrix(G, M, directed):
    """The arcs in scipy's scan order: ``M`` itself when directed; undirected, row ``p`` is
    row ``p`` of A then row ``p`` of A.T (:func:`_scan_pair`), built once per input
    pattern (it reads no values)."""
    if directed:
        return M
    return M.pattern.derived(("csgraph scan order", _is_csc(G)),
                             lambda: _build_scan_matrix(*_scan_pair(G, M)))


def _is_csc(G):
    return getattr(G, "format", None) == "csc"


def _scan_pair(G, M):
    """The two matrices whose rows scipy's undirected searches scan, a row of the first
    then the same row of the second: ``(A, A.T)``, or for CSC input, which scipy
    transposes in place, its own arrays read as rows (their stored order kept) and then
    ``A`` in CSR form (the first read once per input pattern: only its pattern is used)."""
    if not _is_csc(G):
        return M, M.T
    return M.pattern.derived("csc rows as stored", lambda: _matrix(G.T, True)), M


def _build_scan_matrix(first, second):
    xp, n, nnz = first.xp, first.n, first.nnz
    indptr = first.indptr.astype(np.int64) + second.indptr.astype(np.int64)
    indices = xp.empty(2 * nnz, dtype=index_dtype(n, 2 * nnz))
    rows = first.pattern.rows()
    shift = indptr[:-1] - first.indptr[:-1].astype(np.int64)
    indices[xp.arange(nnz, dtype=np.int64) + shift[rows]] = first.indices
    rows = second.pattern.rows()
    shift = indptr[:-1] - second.indptr[:-1].astype(np.int64) + first.out_degree
    indices[xp.arange(nnz, dtype=np.int64) + shift[rows]] = second.indices
    return Matrix(indptr.astype(indices.dtype), indices, xp.ones(2 * nnz, bool), n,
                  check=False)


def breadth_first_tree(csgraph, i_start, directed=True):
    """The breadth-first tree from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_tree``.

    The tree of :func:`breadth_first_order` (scipy's), as an ``N x N`` CSR
    matrix holding ``csgraph[parent, child]`` (duplicates summed) for every
    tree edge; undirected, the smaller of the two directions, zero or absent
    counting as inf (scipy's ``reconstruct_path``).  A ``csr_matrix`` for
    scipy sparse-matrix input, a ``csr_array`` otherwise (a cupyx
    ``csr_matrix`` for GPU input).

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
    i_start : int
    directed : bool

    Returns
    -------
    cstree : csr_array or csr_matrix of float64

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> X = sp.csr_array([[0, 8, 0, 3], [0, 0, 2, 5], [0, 0, 0, 6], [0, 0, 0, 0]])
    >>> csgraph.breadth_first_tree(X, 0, directed=False).toarray().astype(int)
    array([[0, 8, 0, 3],
           [0, 0, 2, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    G = _graph(csgraph)
    _, pred = breadth_first_order(G, i_start, directed, True)
    return _tree(G, pred, directed)


def _tree(G, pred, directed):
    """scipy's ``reconstruct_path(G, pred, directed)``, vectorised."""
    M = _matrix(G, True)
    xp, n = M.xp, M.n
    w = M.data.astype(np.float64, copy=False)
    rows = xp.repeat(xp.arange(n, dtype=np.int64), M.out_degree)
    cols = M.indices.astype(np.int64)
    forward = pred[cols] == rows          # stored parent -> child entries
    weight = xp.bincount(cols[forward], weights=w[forward], minlength=n)
    if not directed:
        backward = pred[rows] == cols     # stored child -> parent entries
        reverse = xp.bincount(rows[backward], weights=w[backward], minlength=n)
        weight = xp.minimum(xp.where(weight == 0, np.inf, weight),
                            xp.where(reverse == 0, np.inf, reverse))
    child = xp.flatnonzero(pred >= 0)
    parent = pred[child].astype(np.int64)
    order = xp.lexsort(xp.stack([child, parent]))
    indptr = xp.zeros(n + 1, np.int32)
    if child.size:
        xp.cumsum(xp.bincount(parent, minlength=n), out=indptr[1:])
    arrays = (weight[child[order]].astype(np.float64), child[order].astype(np.int32), indptr)
    if M.on_gpu:
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(arrays, shape=(n, n))
    if sp.issparse(G) and not isinstance(G, sp.sparray):
        return sp.csr_matrix(arrays, shape=(n, n))
    return sp.csr_array(arrays, shape=(n, n))


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """Connected components, as ``scipy.sparse.csgraph.connected_components``.

    See :func:`spbfs.algorithms.components.connected_components` for the algorithms and
    the numbering: weak / undirected labels equal scipy's exactly; strong labels too on
    the CPU (the order a depth-first search finishes the components, taking each vertex's
    arcs in the order of the installed scipy's search); on the GPU strong components are
    scipy's, numbered in a reverse topological order of the condensation by the
    documented rule.

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
    directed : bool
    connection : {"weak", "strong"}
    return_labels : bool

    Returns
    -------
    n_components : int
    labels : ndarray of int32, optional

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> A = sp.csr_array([[0, 1, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0],
    ...                   [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]])
    >>> csgraph.connected_components(A, directed=False)
    (2, array([0, 0, 0, 1, 1], dtype=int32))
    """
    if directed and isinstance(connection, str) and connection.lower() == "strong":
        csgraph = _matrix(csgraph, True, dtype_kept=_SCIPY_TARJAN_ZWICK)
    else:
        csgraph = _graph(csgraph)
    return _connected_components(
        csgraph, directed=directed, connection=connection, return_labels=return_labels,
        strong_numbering="finish" if _SCIPY_TARJAN_ZWICK else "finish-reversed")


# ----------------------------------------------------------------------------- laplacian
def laplacian(csgraph, normed=False, return_diag=False, use_out_degree=False, *, copy=True,
              form="array", dtype=None, symmetrized=False):
    """The Laplacian matrix of a directed graph, as ``scipy.sparse.csgraph.laplacian``.

    :func:`spbfs.algorithms.laplacian.laplacian` (every option), except for the common
    case, a float64 CSR graph with the defaults ``form="array"``, ``copy=True``,
    ``symmetrized=False`` (``normed`` and ``use_out_degree`` either way): one kernel
    (:func:`spbfs.cpu.cs_laplacian.laplacian_coo`) writes the COO result scipy builds,
    the same entries in the same order, the sums added in scipy's order.  A cupyx matrix
    or cupy array is handled on the device, every option and form alike
    (:func:`_laplacian_device`: a cupyx ``coo_matrix``, a cupy array, a function of cupy
    arrays or a cupyx ``LinearOperator``).

    Returns
    -------
    lap : ndarray, sparse COO array/matrix, function or LinearOperator
    diag : ndarray, optional
        The degrees (the scaling factors when ``normed``), with ``return_diag``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1.0, 1.0], [1.0, 0, 1.0], [1.0, 1.0, 0]])
    >>> csgraph.laplacian(G).toarray()
    array([[ 2., -1., -1.],
           [-1.,  2., -1.],
           [-1., -1.,  2.]])
    """
    if (sp.issparse(csgraph) and csgraph.format == "csr" and form == "array" and copy
            and not symmetrized and csgraph.dtype == np.float64
            and (dtype is None or np.dtype(dtype) == np.float64)
            and csgraph.ndim == 2 and csgraph.shape[0] == csgraph.shape[1] > 0):
        from .cpu.cs_laplacian import laplacian_coo

        row, col, values, d = laplacian_coo(csgraph.indptr, csgraph.indices, csgraph.data,
                                            bool(normed), bool(use_out_degree))
        coo = sp.coo_matrix if isinstance(csgraph, sp.spmatrix) else sp.coo_array
        lap = coo((values, (row, col)), shape=csgraph.shape)
        return (lap, d) if return_diag else lap
    if is_cupy(csgraph):
        return _laplacian_device(csgraph, normed, return_diag, use_out_degree, copy, form,
                                 dtype, symmetrized)
    return _laplacian(csgraph, normed=normed, return_diag=return_diag,
                      use_out_degree=use_out_degree, copy=copy, form=form, dtype=dtype,
                      symmetrized=symmetrized)


def _laplacian_device(csgraph, normed, return_diag, use_out_degree, copy, form, dtype,
                      symmetrized):
    """:func:`laplacian` of a cupyx sparse matrix or a cupy array, on the device (array
    operations that run on numpy alike): the degrees by ``bincount`` sums over the
    entries, the result a cupyx ``coo_matrix`` (sparse input) or a cupy array, or with
    ``form='function'|'lo'`` a function / cupyx ``LinearOperator`` of cupy arrays."""
    xp = array_module(csgraph)
    if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("csgraph must be a square matrix or array")
    if form not in ("array", "function", "lo"):
        raise ValueError(f"Invalid form: {form!r}")
    if normed and csgraph.dtype.kind in "iu":
        csgraph = csgraph.astype(np.float64)
    axis = 1 if use_out_degree else 0
    n = csgraph.shape[0]
    sparse = _is_sparse_input(csgraph) or sp.issparse(csgraph)
    out_dtype = csgraph.dtype if dtype is None else np.dtype(dtype)
    if sparse:
        coo = csgraph.tocoo()
        row, col, data = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
        if symmetrized and form == "array":  # A + A^H summed, cancelled entries dropped
            idt = index_dtype(n)
            both = _coo_class(xp)((xp.concatenate([data, data.conj()]),
                                   (xp.concatenate([row, col]).astype(idt),
                                    xp.concatenate([col, row]).astype(idt))),
                                  shape=(n, n)).tocsr()
            both = _without_zeros(both).tocoo()
            row, col, data = both.row.astype(np.int64), both.col.astype(np.int64), both.data

        def sums(ax):
            return _entry_sums(xp, col if ax == 0 else row, data, n)

        self_loop = row == col
        diagonal = _entry_sums(xp, row[self_loop], data[self_loop], n)
    else:
        m = xp.array(csgraph) if copy or form != "array" else csgraph
        if symmetrized and form == "array":
            m[...] = m + m.T.conj()

        def sums(ax):
            return m.sum(axis=ax)

        diagonal = m.diagonal().copy()
    if form != "array":
        graph = csgraph if sparse else m
        return _laplacian_function(xp, graph, sums, diagonal, normed, axis, form,
                                   out_dtype, symmetrized, return_diag)
    if not sparse:
        eye = xp.arange(n)
        m[eye, eye] = 0
        w = m.sum(axis=axis)
        if normed:
            isolated = w == 0
            w = xp.where(isolated, 1, xp.sqrt(w))
            m /= w
            m /= w[:, None]
            m *= -1
            m[eye, eye] = 1 - isolated
        else:
            m *= -1
            m[eye, eye] = w
        lap, w = m.astype(out_dtype, copy=False), w.astype(out_dtype, copy=False)
        return (lap, w) if return_diag else lap
    w = sums(axis) - diagonal
    off = ~self_loop
    row, col, data = row[off], col[off], data[off]
    if normed:
        isolated = w == 0
        w = xp.where(isolated, 1, xp.sqrt(w))
        values = -((data / w[row]) / w[col])
        on_diagonal = (1 - isolated).astype(values.dtype)
    else:
        values = -data
        on_diagonal = w.astype(values.dtype)
    eye = xp.arange(n, dtype=np.int64)
    idt = index_dtype(n)
    arrays = (xp.concatenate([values, on_diagonal]).astype(out_dtype),
              (xp.concatenate([row, eye]).astype(idt), xp.concatenate([col, eye]).astype(idt)))
    lap = _coo_class(xp)(arrays, shape=(n, n))
    w = w.astype(out_dtype)
    return (lap, w) if return_diag else lap


def _coo_class(xp):
    """The COO class of the device of ``xp``: scipy's ``coo_array``, cupyx's ``coo_matrix``."""
    if xp is np:
        return sp.coo_array
    import cupyx.scipy.sparse as csp

    return csp.coo_matrix


def _entry_sums(xp, index, data, n):
    """``bincount`` of ``data`` by ``index`` (length n), in data's kind (complex too)."""
    if data.dtype.kind == "c":
        return (xp.bincount(index, weights=data.real, minlength=n)
                + 1j * xp.bincount(index, weights=data.imag, minlength=n))
    total = xp.bincount(index, weights=data.astype(np.float64), minlength=n)
    kind = data.dtype.kind
    return total.astype(np.result_type(data.dtype, np.int_) if kind in "iub" else data.dtype)


def _laplacian_function(xp, graph, sums, diagonal, normed, axis, form, dtype, symmetrized,
                        return_diag):
    """The ``form='function'|'lo'`` Laplacian: ``L @ v`` without forming ``L``."""
    total = sums(axis)
    diag = total - diagonal
    if symmetrized:
        total = total + sums(1 - axis)
        diag = total - diagonal - diagonal
    adjoint = graph.conj().T if graph.dtype.kind == "c" else graph.T

    def product(v):
        out = v * total[:, None] - graph @ v
        return out - adjoint @ v if symmetrized else out

    if normed:
        isolated = diag == 0
        diag = xp.where(isolated, 1, xp.sqrt(diag))
        scale = 1.0 / diag

        def apply(v):
            return scale[:, None] * product(v * scale[:, None])
    else:
        apply = product
    if form == "lo":
        if xp is np:
            from scipy.sparse.linalg import LinearOperator
        else:
            from cupyx.scipy.sparse.linalg import LinearOperator
        apply = LinearOperator(matvec=apply, matmat=apply, shape=graph.shape, dtype=dtype)
    diag = diag.astype(dtype, copy=False)
    return (apply, diag) if return_diag else apply


# ----------------------------------------------------------------------------- shortest paths
def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None):
    """Shortest path lengths, as ``scipy.sparse.csgraph.shortest_path``.

    Every method runs the same frontier Bellman-Ford over ``min_plus`` and
    gives the same distances; the method only keeps scipy's rules around it:
    ``"FW"`` refuses ``indices`` (ValueError) and ignores self-loops, ``"D"``
    warns on negative weights (scipy's UserWarning; spbfs still gives exact
    distances), and ``"auto"`` accepts negative weights and, like scipy, means
    ``"FW"`` when ``indices`` is None and at least ``N * N / 4`` entries are
    stored.  A negative cycle raises ``scipy.sparse.csgraph.NegativeCycleError``
    (for an undirected graph any negative edge is one): for ``"BF"`` and ``"D"``
    one a source reaches, for ``"J"`` and ``"auto"`` (Johnson's, as scipy) any.

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
        ``csgraph[i, j]`` is the weight of edge ``i -> j``; stored zeros are
        zero-weight edges (in a dense array zero, NaN and inf mean no edge).
    method : {"auto", "FW", "D", "BF", "J"}
    directed : bool
    return_predecessors : bool
    unweighted : bool
        Count edges instead of adding weights (a BFS).
    overwrite : bool
        Accepted for compatibility; the input is never modified.
    indices : int or array_like of int, optional
        Sources (negative ones count from the end); all vertices if None.

    Returns
    -------
    dist_matrix : ndarray of float64
        Shape ``indices.shape + (N,)`` (``(N, N)`` without ``indices``);
        ``inf`` where unreachable.
    predecessors : ndarray of int32, optional
        Same shape; -9999 for the sources and unreachable vertices.

    Raises
    ------
    NegativeCycleError
        If a negative cycle is reachable from a source (any negative cycle for
        ``"J"`` and ``"auto"``).
    ValueError
        For an unknown ``method``, ``indices`` with ``"FW"``, sources out of
        range or a non-square graph.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> dist, pred = csgraph.shortest_path(G, directed=False, indices=0,
    ...                                    return_predecessors=True)
    >>> dist, pred
    (array([0., 1., 2., 2.]), array([-9999,     0,     0,     1], dtype=int32))
    >>> csgraph.shortest_path(G, unweighted=True, indices=[0, 2])
    array([[0., 1., 1., 2.],
           [1., 2., 0., 1.]])
    """
    if method not in _METHODS:
        raise ValueError(f"unrecognized method '{method}'")
    if method == "auto" and indices is None:
        G = as_graph(csgraph)
        n = int(G.shape[0]) if getattr(G, "ndim", None) == 2 else 0
        if _stored_edges(G) >= n * n / 4:  # scipy's 'auto' picks Floyd-Warshall
            method = "FW"
    if method == "FW":
        if indices is not None:
            raise ValueError("Cannot specify indices with method == 'FW'.")
        return floyd_warshall(csgraph, directed, return_predecessors=return_predecessors,
                              unweighted=unweighted, overwrite=overwrite)
    if method == "D":
        return dijkstra(csgraph, directed, indices=indices,
                        return_predecessors=return_predecessors, unweighted=unweighted)
    return _run(csgraph, directed, indices, return_predecessors, unweighted,
                any_cycle=method != "BF")  # "auto" with negative weights is Johnson's


def _stored_edges(G) -> int:
    """The edge count scipy's ``method='auto'`` weighs against ``N * N / 4``."""
    if isinstance(G, Matrix) or _is_sparse_input(G):
        return int(G.nnz)
    if not hasattr(G, "ndim"):
        return 0  # not a graph: the search reports it
    xp = array_module(G)
    finite = xp.isfinite(G) if G.dtype.kind == "f" else True
    return int(xp.count_nonzero(finite & (G != 0)))


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False,
             unweighted=False, limit=np.inf, min_only=False):
    """Shortest paths from ``indices``, as ``scipy.sparse.csgraph.dijkstra``.

    A frontier Bellman-Ford over ``min_plus`` (see :func:`shortest_path`);
    with ``limit`` a vertex farther than ``limit`` is never pushed.  Negative
    weights give scipy's warning, then exact distances (a negative cycle
    raises ``NegativeCycleError``, where scipy returns inaccurate numbers).

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
    directed : bool
    indices : int or array_like of int, optional
    return_predecessors : bool
    unweighted : bool
    limit : float
        Distances above ``limit`` are reported as ``inf`` (must be >= 0).
    min_only : bool
        One search from all ``indices`` together: the distance from the
        nearest source, and (with ``return_predecessors``) the source each
        vertex's path starts from.

    Returns
    -------
    dist_matrix : ndarray of float64
        ``indices.shape + (N,)``, or ``(N,)`` with ``min_only``.
    predecessors : ndarray of int32, optional
    sources : ndarray of int32, optional
        With ``min_only`` and ``return_predecessors``: the source of each
        vertex's path (the end of its predecessor chain); -9999 if unreached.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [0, 0, 0, 3], [0, 0, 0, 0]])
    >>> csgraph.dijkstra(G, indices=0, limit=1.5)
    array([ 0.,  1., inf, inf])
    >>> d, pred, src = csgraph.dijkstra(G, indices=[1, 2], min_only=True,
    ...                                 return_predecessors=True)
    >>> d.tolist(), pred.tolist(), src.tolist()
    ([inf, 0.0, 0.0, 1.0], [-9999, -9999, -9999, 1], [-9999, 1, 2, 1])
    """
    return _run(csgraph, directed, indices, return_predecessors, unweighted, limit=limit,
                min_only=bool(min_only), warn_negative=True)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False):
    """Shortest paths with negative weights, as ``scipy.sparse.csgraph.bellman_ford``.

    The frontier Bellman-Ford of :func:`shortest_path`: a vertex is pushed
    again only when its distance improved; a round after ``N - 1`` that still
    improves proves a negative cycle (``NegativeCycleError``).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.array([[0, 0, 0], [-1.0, 0, 0], [0, -1.0, 0]])
    >>> csgraph.bellman_ford(G, indices=2)
    array([-2., -1.,  0.])
    >>> csgraph.bellman_ford(G, directed=False, indices=2)
    Traceback (most recent call last):
        ...
    scipy.sparse.csgraph._shortest_path.NegativeCycleError: Negative cycle detected on node 2
    """
    return _run(csgraph, directed, indices, return_predecessors, unweighted)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False,
            unweighted=False):
    """Shortest paths with negative weights, as ``scipy.sparse.csgraph.johnson``.

    The same frontier Bellman-Ford as :func:`bellman_ford` (its distances are
    Johnson's; no reweighting is needed when every search is a Bellman-Ford).  As
    scipy's, a negative cycle anywhere in the graph raises ``NegativeCycleError``, one
    that no source reaches too: with a negative weight, one Bellman-Ford from every
    vertex at once (Johnson's added vertex) looks for it first.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.array([[0, 3.0, 0], [0, 0, -2.0], [0, 0, 0]])
    >>> csgraph.johnson(G)
    array([[ 0.,  3.,  1.],
           [inf,  0., -2.],
           [inf, inf,  0.]])
    >>> csgraph.johnson(np.array([[0, 0, 0], [0, 0, -1.0], [0, -1.0, 0]]), indices=0)
    Traceback (most recent call last):
        ...
    scipy.sparse.csgraph._shortest_path.NegativeCycleError: Negative cycle detected on node 1
    """
    return _run(csgraph, directed, indices, return_predecessors, unweighted,
                any_cycle=True)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False):
    """All-pairs shortest paths, as ``scipy.sparse.csgraph.floyd_warshall``.

    Computed as every vertex's frontier Bellman-Ford, in batches (no dense
    ``O(N^3)`` loop); ``overwrite`` is accepted and ignored.  As scipy's, self-loops
    are ignored (the diagonal starts at zero), and with ``unweighted`` a stored inf or
    NaN is no edge.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> dist, pred = csgraph.floyd_warshall(G, directed=False, return_predecessors=True)
    >>> dist
    array([[0., 1., 2., 2.],
           [1., 0., 3., 1.],
           [2., 3., 0., 3.],
           [2., 1., 3., 0.]])
    >>> pred
    array([[-9999,     0,     0,     1],
           [    1, -9999,     0,     1],
           [    2,     0, -9999,     2],
           [    1,     3,     3, -9999]], dtype=int32)
    """
    G = as_graph(csgraph)
    if np.ma.isMaskedArray(csgraph) or not _is_sparse_input(G):
        G = _graph(G)  # a dense input's zeros are no edges (unmasked, or cast from complex)
        if _is_sparse_input(G):
            G = _without_zeros(G)
    else:  # scipy reads a dense copy: the smallest of repeated entries
        if G.format not in ("csr", "csc", "lil"):
            raise ValueError("csgraph must be lil, csr, or csc format")
        G = G.tocsr() if G.format == "lil" else G
        if G.dtype.kind == "c":  # each entry cast alone (numpy's ComplexWarning)
            G = type(G)((G.data.astype(np.float64), G.indices, G.indptr), shape=G.shape)
    return _run(G, directed, None, return_predecessors, unweighted, self_loops=False,
                duplicates="min")


def _without_zeros(G):
    """A CSR matrix ``G`` (scipy's or cupyx's) without its stored zeros, by array operations
    (cupyx's ``eliminate_zeros`` moved a negative value's column onto a zero's)."""
    xp = array_module(G.data)
    n = G.shape[0]
    keep = G.data != 0
    rows = xp.repeat(xp.arange(n, dtype=np.int64), xp.diff(G.indptr.astype(np.int64)))
    indptr = xp.zeros(n + 1, G.indptr.dtype)
    xp.cumsum(xp.bincount(rows[keep], minlength=n), out=indptr[1:])
    return type(G)((G.data[keep], G.indices[keep], indptr), shape=G.shape)


def _run(csgraph, directed, indices, return_predecessors, unweighted, *, limit=np.inf,
         min_only=False, warn_negative=False, self_loops=True, any_cycle=False,
         duplicates="sum"):
    """The shared front end: check, then batched searches; shapes and sentinels as scipy.
    ``any_cycle`` (Johnson's rule): a negative cycle no source reaches raises too."""
    M = _matrix(csgraph, directed, duplicates=duplicates)
    xp, n = M.xp, M.n
    if not self_loops and unweighted and M.nnz:  # scipy's Floyd-Warshall reads a dense copy,
        data = M.data.astype(np.float64, copy=False)  # where stored inf and NaN are no edge
        edge = (data != np.inf) & ~xp.isnan(data)
        if not bool(edge.all()):
            M = _subgraph(M, M.entry_rows, edge)
    w, lowest = _weights(M, unweighted)
    if not self_loops and M.nnz:  # Floyd-Warshall starts from a zero diagonal
        w = xp.where(M.entry_rows == M.indices, np.inf, w)
        lowest = float(w.min())
    negative = lowest < 0
    if negative and warn_negative:
        warnings.warn(_DIJKSTRA_NEGATIVE, UserWarning, stacklevel=3)
    sources, shape = _source_indices(indices, n, min_only)
    limit = _limit(limit)
    search = _Search(M, w, bool(unweighted), negative, bool(directed), limit,
                     zero=lowest <= 0 and bool((w == 0).any()))
    if negative and any_cycle and indices is not None and n:
        # Johnson's added vertex: every vertex at distance 0 finds a cycle no source reaches
        # (without indices every vertex is a source already)
        search.run(M.with_values(w), xp.arange(n, dtype=np.int64), 1,
                   sources_for_error=None, need_parents=False)
    if min_only:
        roots = np.unique(sources)
        K = M.with_values(w)
        d, parent = search.run(K, xp.asarray(roots), 1, sources_for_error=roots,
                               need_parents=bool(return_predecessors))
        if not return_predecessors:
            return d.reshape(shape)
        pred = xp.where(parent >= 0, parent, SCIPY_NULL).astype(np.int32)
        origin = _roots_of(xp, parent, n)
        origin = xp.where(xp.isfinite(d), origin, SCIPY_NULL).astype(np.int32)
        return d.reshape(shape), pred.reshape(shape), origin.reshape(shape)
    k = int(sources.size)
    dist = xp.full((k, n), np.inf)
    pred = xp.full((k, n), SCIPY_NULL, dtype=np.int32) if return_predecessors else None
    per_source = max(M.nnz + n, 1)
    batch = max(1, min(k, BATCH_ENTRIES // per_source))
    K = _block_diagonal(M, w, batch) if k else None
    for lo in range(0, k, batch):  # one iteration per batch of sources
        src = sources[lo:lo + batch]
        b = int(src.size)
        roots = xp.asarray(src) + xp.arange(b, dtype=np.int64) * n
        d, parent = search.run(K, roots, b, sources_for_error=src,
                               need_parents=bool(return_predecessors))
        dist[lo:lo + b] = d[:b * n].reshape(b, n)
        if return_predecessors:
            local = xp.where(parent[:b * n] >= 0, parent[:b * n] % max(n, 1), SCIPY_NULL)
            pred[lo:lo + b] = local.reshape(b, n)
    dist = dist.reshape(shape)
    return (dist, pred.reshape(shape)) if return_predecessors else dist


def _block_diagonal(M, w, b):
    """``b`` copies of M (weights ``w``) on the diagonal of a ``b*n`` square Matrix."""
    if b == 1:
        return M.with_values(w)
    xp, n, nnz = M.xp, M.n, M.nnz
    idt = index_dtype(b * n, b * nnz)
    block = xp.arange(b, dtype=idt)
    indptr = xp.empty(b * n + 1, dtype=idt)
    indptr[:-1] = (M.indptr[:-1].astype(idt)[None, :] + (block * nnz)[:, None]).ravel()
    indptr[-1] = b * nnz
    indices = (M.indices.astype(idt)[None, :] + (block * n)[:, None]).ravel()
    return Matrix(indptr, indices, xp.tile(w, b), b * n, check=False)


def _roots_of(xp, parent, n):
    """The root of every vertex's parent chain, by pointer jumping (``r = r[r]``)."""
    r = xp.where(parent >= 0, parent, xp.arange(n, dtype=np.int64))
    while True:
        nxt = r[r]
        if not bool((nxt != r).any()):
            return r
        r = nxt


def _node(vertex, n, sources):
    """The node a negative cycle's error names: the source of ``vertex``'s block of ``n``
    (a search per source), or, with ``sources`` None (every vertex a source at once), the
    vertex."""
    vertex = int(vertex)
    return vertex if sources is None else sources[vertex // max(n, 1)]


class _Search:
    """Searches on one graph: BFS (unweighted) or frontier Bellman-Ford (weighted)."""

    def __init__(self, M, w, unweighted, negative, directed, limit, *, zero):
        self.n, self.unweighted, self.negative = M.n, unweighted, negative
        self.directed, self.limit, self.zero = directed, limit, zero

    def run(self, K, roots, b, *, sources_for_error, need_parents):
        """``(dist, parent)`` over the ``b`` blocks of K: parent is a global vertex id of K
        (-1: none; None unless ``need_parents``); a negative cycle's error names the source
        of its block in ``sources_for_error`` (None: the vertex)."""
        xp = K.xp
        N = K.n
        roots = xp.unique(roots.astype(np.int64))
        dist = xp.full(N, np.inf)
        dist[roots] = 0.0
        if self.unweighted:
            return self._bfs(K, roots, dist, need_parents)
        if self.negative and not self.directed:
            self._undirected_negative(K, roots, sources_for_error)
        self._bellman_ford(K, roots, dist, sources_for_error)
        parent = self._parents(K, roots, dist) if need_parents else None
        return dist, parent

    def _bfs(self, K, roots, dist, need_parents):
        """Levels (as float distances) and, per vertex, the largest parent one level up:
        the vertex scipy's Dijkstra settles first among equals."""
        xp, N = K.xp, K.n
        visited = xp.zeros(N, bool)
        visited[roots] = True
        parent = xp.full(N, -1, np.int64) if need_parents else None
        semiring = _max_secondi if need_parents else any_pair
        pulled = _max_secondi_scan if need_parents else any_pair
        frontier = Vector(N, "sparse", indices=roots, values=xp.ones(roots.size, bool))
        level = 0
        while frontier.indices.size and level + 1 <= self.limit:
            level += 1
            found = _step(frontier, K, semiring, pulled, visited, True)
            new = found.indices
            visited[new] = True
            dist[new] = level
            if need_parents:
                parent[new] = found.values
            frontier = Vector(N, "sparse", indices=new, values=xp.ones(new.size, bool))
        return dist, parent

    def _bellman_ford(self, K, roots, dist, sources):
        xp, N, n = K.xp, K.n, self.n
        bounded = not self.limit >= np.inf  # a NaN limit (scipy's) keeps only the roots
        if not (self.negative or bounded):  # the backend's shortest distances: the same
            dist[...] = relax_buckets(K, roots, bucket_width(K))  # fixpoint in its rounds
            return
        prune = not self.negative and bounded
        frontier = Vector(N, "sparse", indices=roots, values=xp.zeros(roots.size))
        rounds = 0
        while frontier.indices.size:
            rounds += 1
            if rounds > n:  # a path of n edges improved: it repeats a vertex, a negative cycle
                raise NegativeCycleError(
                    f"Negative cycle detected on node {_node(frontier.indices[0], n, sources)}")
            y = vxm(frontier, K, min_plus)
            better = y.values < dist[y.indices]
            if prune:
                better &= y.values <= self.limit
            idx, val = y.indices[better], y.values[better]
            dist[idx] = val
            frontier = Vector(N, "sparse", indices=idx, values=val)
        if bounded and not prune:
            far = ~(dist <= self.limit)
            far[roots] = False
            dist[far] = np.inf

    def _undirected_negative(self, K, roots, sources):
        """Undirected, a reachable negative edge is a negative cycle (there and back)."""
        xp, N = K.xp, K.n
        reached = xp.zeros(N, bool)
        reached[roots] = True
        frontier = Vector(N, "sparse", indices=roots, values=xp.ones(roots.size, bool))
        while frontier.indices.size:
            found = vxm(frontier, K, any_pair, mask=reached, complement=True)
            reached[found.indices] = True
            frontier = found
        rows = xp.repeat(xp.arange(N, dtype=np.int64), K.out_degree)
        bad = xp.flatnonzero(reached[rows] & (K.data < 0))
        if bad.size:
            raise NegativeCycleError(
                f"Negative cycle detected on node {_node(rows[bad[0]], self.n, sources)}")

    def _parents(self, K, roots, dist, *, slack=False):
        """Per vertex, the parent scipy's Dijkstra picks: among the tight in-edges (on a
        shortest path), the source vertex nearest to the root, ties to the largest id.
        Zero-weight ties and negative weights also require the parent one level up in a
        BFS of the tight edges, which keeps the tree acyclic.  A vertex the tight edges do
        not reach (rounding can close a cycle of weight zero a little below zero) takes
        its parent from the edges tight to within rounding (``slack``), so every reached
        vertex has one and the tree stays acyclic."""
        xp, N = K.xp, K.n
        rows = xp.repeat(xp.arange(N, dtype=np.int64), K.out_degree)
        cols = K.indices.astype(np.int64)
        w = K.data
        du, dv = dist[rows], dist[cols]
        reached = xp.isfinite(du) & xp.isfinite(dv)
        is_root = xp.zeros(N, bool)
        is_root[roots] = True
        du0, dv0 = xp.where(reached, du, 0.0), xp.where(reached, dv, 0.0)
        gap = du0 + w - dv0
        if slack:  # within a few roundings of the three terms
            within = xp.abs(gap) <= 4 * np.finfo(np.float64).eps * (
                xp.abs(du0) + xp.abs(w) + xp.abs(dv0))
        else:
            within = gap == 0
        tight = reached & within & ~is_root[cols] & (rows != cols)
        levelled = slack or self.negative or (self.zero and bool((tight & (w == 0)).any()))
        if levelled:
            level = _levels(_subgraph(K, rows, tight), roots)
            one_up = level[rows] == level[cols] - 1
        base = tight & one_up if self.negative or slack else tight
        everywhere = xp.ones(N, bool)
        y = vxm(Vector(N, "bitmap", present=everywhere, values=dist), _subgraph(K, rows, base),
                _min_first)
        nearest = xp.where(y.present, y.values, np.inf)
        choice = base & (du == nearest[cols])
        if levelled and not self.negative:
            choice &= (nearest[cols] < dv) | one_up
        y = vxm(Vector(N, "bitmap", present=everywhere, values=everywhere),
                _subgraph(K, rows, choice), _max_secondi)
        parent = xp.where(y.present, y.values, -1)
        if not slack and bool(((parent < 0) & xp.isfinite(dist) & ~is_root).any()):
            parent = xp.where(parent >= 0, parent, self._parents(K, roots, dist, slack=True))
        return parent


def _step(frontier, K, push_semiring, pull_semiring, mask, complement):
    """One BFS ``vxm`` of a sparse frontier: pushed while it is small, pulled (a bitmap
    frontier, no sort of the products) once it holds more than PULL_FRACTION of the
    vertices; the result as a sparse Vector either way."""
    N = K.n
    if frontier.indices.size <= PULL_FRACTION * N:
        return vxm(frontier, K, push_semiring, mask=mask, complement=complement)
    y = vxm(frontier.to_bitmap(), K, pull_semiring, mask=mask, complement=complement,
            dtype=push_semiring.result_dtype(frontier.dtype, K.dtype))
    return y.to_sparse()


def _subgraph(K, rows, keep):
    """The entries of K where ``keep`` (CSR order kept) as a Matrix."""
    xp, N = K.xp, K.n
    indptr = xp.zeros(N + 1, dtype=np.int64)
    if N:
        xp.cumsum(xp.bincount(rows[keep], minlength=N), out=indptr[1:])
    idt = K.indices.dtype
    return Matrix(indptr.astype(idt), K.indices[keep], K.data[keep], N, check=False)


def _levels(T, roots):
    """BFS levels from ``roots`` in T (-1 where unreached)."""
    xp, N = T.xp, T.n
    level = xp.full(N, -1, np.int64)
    level[roots] = 0
    visited = level >= 0
    frontier = Vector(N, "sparse", indices=roots, values=xp.ones(roots.size, bool))
    depth = 0
    while frontier.indices.size:
        depth += 1
        found = vxm(frontier, T, any_pair, mask=visited, complement=True)
        visited[found.indices] = True
        level[found.indices] = depth
        frontier = found
    return level



# ----------------------------------------------------------------------------- host helpers
def _host(a):
    """A numpy view of a numpy or cupy array."""
    return to_numpy(a) if is_cupy(a) else np.asarray(a)


def _like(M, a):
    """``a`` (numpy) on M's device."""
    if M.on_gpu:
        import cupy

        return cupy.asarray(a)
    return a


def _csr_out(G, arrays, shape, on_gpu=False):
    """A CSR result in scipy's class for input ``G``: a cupyx ``csr_matrix`` for GPU input
    (integer values as float64: cupyx holds no integers), a ``csr_matrix`` for a scipy
    sparse matrix, a ``csr_array`` otherwise."""
    if on_gpu:
        import cupy
        import cupyx.scipy.sparse as csp

        data, *index = (cupy.asarray(a) for a in arrays)
        if data.dtype.kind not in "bfc":
            data = data.astype(np.float64)
        return csp.csr_matrix((data, *index), shape=shape)
    if sp.issparse(G) and not isinstance(G, sp.sparray):
        return sp.csr_matrix(arrays, shape=shape)
    return sp.csr_array(arrays, shape=shape)


def _scipy_sparse(graph, what="graph"):
    """A scipy sparse matrix/array of ``graph`` (a cupyx one copied to the host), and
    whether it came from the GPU; anything else is returned as it is."""
    if is_cupy(graph) or type(graph).__module__.startswith("cupyx"):
        get = getattr(graph, "get", None)
        if get is not None:
            return get(), True
    return graph, False


# ----------------------------------------------------------------------------- depth first
def depth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """Depth-first order from ``i_start``, as ``scipy.sparse.csgraph.depth_first_order``.

    A compiled sequential search (:func:`spbfs.cpu.dfs.depth_first`; depth-first order
    is sequential by nature, so GPU input runs on a host copy and the results go back
    to the device).  The order and predecessors are exactly scipy's: each step follows
    the first arc, in scipy's scan order (undirected: a row of ``A``, then the same row
    of ``A.T``), to a vertex not yet visited.

    Parameters
    ----------
    csgraph : sparse matrix/array, 2-D array (or list, masked array), or Matrix
    i_start : int
    directed : bool
    return_predecessors : bool

    Returns
    -------
    node_array : ndarray of int32
    predecessors : ndarray of int32, optional
        -9999 for ``i_start`` and unreached vertices.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> order, pred = csgraph.depth_first_order(G, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 3, 2], [-9999, 0, 0, 1])
    """
    from .cpu.dfs import depth_first

    G = _graph(csgraph)
    M = _matrix(G, True)
    source = check_source(_vertex(i_start), M.n, "i_start")
    n = M.n
    first, second = (M, M) if directed else _scan_pair(G, M)
    order = np.full(n, SCIPY_NULL, np.int32)
    pred = np.full(n, SCIPY_NULL, np.int32)
    count = depth_first(_host(first.indptr), _host(first.indices), _host(second.indptr),
                        _host(second.indices), not directed, source, order, pred)
    node_array = _like(M, order[:count])
    return (node_array, _like(M, pred)) if return_predecessors else node_array


def depth_first_tree(csgraph, i_start, directed=True):
    """The depth-first tree from ``i_start``, as ``scipy.sparse.csgraph.depth_first_tree``.

    The tree of :func:`depth_first_order` (scipy's), built as
    :func:`breadth_first_tree` builds its tree: ``csgraph[parent, child]`` for every
    tree edge (undirected: the smaller direction, zero or absent counting as inf).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> X = sp.csr_array([[0, 8, 0, 3], [0, 0, 2, 5], [0, 0, 0, 6], [0, 0, 0, 0]])
    >>> csgraph.depth_first_tree(X, 0, directed=False).toarray().astype(int)
    array([[0, 8, 0, 0],
           [0, 0, 2, 0],
           [0, 0, 0, 6],
           [0, 0, 0, 0]])
    """
    G = _graph(csgraph)
    _, pred = depth_first_order(G, i_start, directed, True)
    return _tree(G, pred, directed)


# ----------------------------------------------------------------------------- spanning tree
def minimum_spanning_tree(csgraph, overwrite=False):
    """A minimum spanning forest, as ``scipy.sparse.csgraph.minimum_spanning_tree``.

    Borůvka rounds: each tree takes its lightest outgoing edge, edges compared by
    ``(weight, stored position)``, the forest Kruskal's algorithm gives when equal
    weights are taken in stored order (a strict order, so the forest is unique).  On the
    CPU a kernel (:func:`spbfs.cpu.spanning.boruvka`, union-find); on the GPU the same
    rounds as array operations on the device (:func:`_boruvka_rounds`: a scatter-min of
    the edges' ranks per tree, hooking, pointer jumping).  The graph is undirected (an
    entry either way is an edge); the result holds each kept entry where it is stored,
    zero weights dropped (as scipy's).  ``overwrite`` is accepted; the input is never
    modified.

    Returns
    -------
    span_tree : csr_array or csr_matrix of float64 (scipy's class rule, see
        :func:`breadth_first_tree`; a cupyx ``csr_matrix`` for GPU input)

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> X = sp.csr_array([[0, 8, 0, 3], [0, 0, 2, 5], [0, 0, 0, 6], [0, 0, 0, 0]])
    >>> csgraph.minimum_spanning_tree(X).toarray().astype(int)
    array([[0, 0, 0, 3],
           [0, 0, 2, 5],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    G = _graph(csgraph)
    M = _matrix(G, True)
    n = M.n
    if M.on_gpu:
        xp = M.xp
        ix = M.indices
        w = M.data.astype(np.float64, copy=False)
        rows = M.pattern.rows()
        keep = _boruvka_rounds(xp, n, rows, ix, _orderable(xp, w)) & (w != 0)
        indptr = xp.zeros(n + 1, np.int32)
        if n:
            xp.cumsum(xp.bincount(rows[keep], minlength=n), out=indptr[1:])
        return _csr_out(G, (w[keep], ix[keep].astype(np.int32), indptr), (n, n), True)
    from .cpu.spanning import boruvka

    ip, ix = _host(M.indptr), _host(M.indices)
    w = _host(M.data).astype(np.float64, copy=False)
    rows = np.repeat(np.arange(n, dtype=ix.dtype), np.diff(ip))
    keep = np.zeros(ix.size, np.bool_)
    boruvka(n, rows, ix, _orderable(np, w), keep)
    keep &= w != 0
    indptr = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
    arrays = (w[keep], ix[keep].astype(np.int32), indptr)
    if isinstance(csgraph, np.matrix):  # scipy's tree of a dense matrix is a matrix too
        return sp.csr_matrix(arrays, shape=(n, n))
    return _csr_out(G, arrays, (n, n))


def _orderable(xp, w):
    """``w``, or with a NaN among them each weight's rank in a stable sort, NaN last (the
    order scipy's Kruskal takes the edges in; a NaN compares as nothing)."""
    if not bool(xp.isnan(w).any()):
        return w
    rank = xp.empty(w.size, np.float64)
    rank[xp.argsort(w, kind="stable")] = xp.arange(w.size, dtype=np.float64)
    return rank


def _scatter_min(xp, out, index, values):
    """``out[index] = min(out[index], values)`` with repeated indices (``numpy.minimum.at``;
    ``cupyx.scatter_min`` on the device, which takes int32, uint32, uint64, float32 and
    float64: int32 keys are the hardware's atomic minimum, float64 a compare-and-swap
    loop, slow where many entries meet at one index)."""
    if xp is np:
        np.minimum.at(out, index, values)
    else:
        import cupyx

        cupyx.scatter_min(out, index, values)


def _key_dtype(count):
    """``(dtype, none)`` of keys ``0 .. count - 1`` for :func:`_scatter_min`: int32 with its
    largest value as "none" where they fit, else float64 with inf (exact to 2**53)."""
    if count < np.iinfo(np.int32).max:
        return np.dtype(np.int32), np.iinfo(np.int32).max
    return np.dtype(np.float64), np.inf


def _boruvka_rounds(xp, n, rows, cols, w):
    """The minimum spanning forest's arcs as a mask, by Borůvka rounds of array operations
    (numpy or cupy alike): each tree takes the lightest arc joining it to another tree, by
    ``(weight, position)`` (each arc's rank in that order, an int32 where the arcs fit: the
    device's scatter-min takes it), mutual choices keep the smaller tree as root, pointer
    jumping relabels the trees; the arcs within a tree leave the list.  Under that strict
    order the forest is unique: the one :func:`spbfs.cpu.spanning.boruvka` finds."""
    m = int(rows.size)
    keep = xp.zeros(m, dtype=bool)
    if not m:
        return keep
    rows = rows.astype(np.int64, copy=False)
    cols = cols.astype(np.int64, copy=False)
    by_rank = xp.lexsort(xp.stack([xp.arange(m, dtype=np.float64),
                                   w.astype(np.float64, copy=False)]))
    key, none = _key_dtype(m)
    rank = xp.empty(m, key)
    rank[by_rank] = xp.arange(m, dtype=key)
    live = xp.flatnonzero(rows != cols)
    tree = xp.arange(n, dtype=np.int64)
    while live.size:
        a, b = tree[rows[live]], tree[cols[live]]
        between = a != b
        live, a, b = live[between], a[between], b[between]
        if not live.size:
            break
        best = xp.full(n, none, key)
        r = rank[live]
        _scatter_min(xp, best, a, r)
        _scatter_min(xp, best, b, r)
        roots = xp.flatnonzero(best != none)
        chosen = by_rank[best[roots].astype(np.int64)]
        keep[chosen] = True
        ta, tb = tree[rows[chosen]], tree[cols[chosen]]
        other = xp.where(ta == roots, tb, ta)
        hook = xp.arange(n, dtype=np.int64)
        hook[roots] = other
        mutual = (hook[other] == roots) & (roots < other)
        hook[roots[mutual]] = roots[mutual]
        while True:
            nxt = hook[hook]
            if not bool((nxt != hook).any()):
                break
            hook = nxt
        tree = hook[tree]
    return keep


# ----------------------------------------------------------------------------- reordering
#: Value types whose ``A + A.T`` pattern a kernel builds (others take ``ewise_add``).
_PATTERN_DTYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int32),
                   np.dtype(np.int64))


def _check_first_rows(graph):
    """IndexError where scipy's ``symmetric_mode`` search would raise it for a non-square
    CSR/CSC ``graph``: it reads the first ``shape[0]`` slices, whose neighbours must be
    below ``shape[0]`` (the compiled search here would write past its arrays)."""
    if getattr(graph, "format", None) not in ("csr", "csc"):
        return  # refused below
    n = graph.shape[0]
    ip = _host(graph.indptr)
    if ip.size < n + 1:
        raise IndexError("Out of bounds on buffer access (axis 0)")
    held = _host(graph.indices[int(ip[0]):int(ip[n])])
    if held.size and (int(held.min()) < 0 or int(held.max()) >= n):
        raise IndexError("Out of bounds on buffer access (axis 0)")


def reverse_cuthill_mckee(graph, symmetric_mode=False):
    """The reverse Cuthill-McKee order, as ``scipy.sparse.csgraph.reverse_cuthill_mckee``.

    The pattern of ``A + A.T`` (an ``ewise_add`` over ``plus``; entries that cancel
    are dropped, as scipy's sum drops them) unless ``symmetric_mode``, then breadth-first
    levels with each vertex's new neighbours sorted by degree, each component started
    from its vertex of least degree, reversed.  The permutation is scipy's.  On the CPU a
    compiled sequential search (:func:`spbfs.cpu.ordering.cuthill_mckee`); on the GPU the
    same order from one queue search on the device (:func:`_cuthill_mckee_levels`: each
    row's entries sorted by degree, every component's start enqueued at once in scipy's
    order of starts, the vertices then grouped by component); a ``symmetric_mode`` input
    whose pattern is not symmetric (no weak components to start from) runs on a host
    copy.

    Parameters
    ----------
    graph : CSR or CSC sparse matrix/array
    symmetric_mode : bool
        The pattern is known to be symmetric: use it as it is.

    Returns
    -------
    perm : ndarray (the index dtype)

    Raises
    ------
    TypeError
        For input that is not sparse CSR or CSC.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> csgraph.reverse_cuthill_mckee(G)
    array([3, 2, 1, 0], dtype=int32)
    """
    from .cpu.ordering import cuthill_mckee, degrees, symmetric_pattern
    from .semiring import ewise_add

    if symmetric_mode and _is_sparse_input(graph) and graph.shape[0] != graph.shape[1]:
        _check_first_rows(graph)
    if _is_sparse_input(graph) and is_cupy(graph) and graph.shape[0] == graph.shape[1]:
        perm = _reverse_cuthill_mckee_device(graph, symmetric_mode)
        if perm is not None:
            return perm
    graph, on_gpu = _scipy_sparse(graph)
    if not sp.issparse(graph):
        raise TypeError("Input graph must be sparse")
    if graph.format not in ("csc", "csr"):
        raise TypeError("Input must be in CSC or CSR sparse format.")
    n = graph.shape[0]
    degree = None
    wide = _sum_is_wide(graph)
    if symmetric_mode:
        ip, ix = np.asarray(graph.indptr)[:n + 1], np.asarray(graph.indices)
        idt = ix.dtype
    elif isinstance(graph, sp.spmatrix) and np.int64 in (graph.indices.dtype,
                                                         graph.indptr.dtype):
        S = graph + graph.transpose()  # its index dtype follows the sum's contents
        ip, ix = S.indptr, S.indices
        idt = ix.dtype
    elif not graph.has_canonical_format:
        ip, ix = _general_sum_pattern(graph)
        idt = np.dtype(np.int64) if wide else index_dtype(n, ix.size)
    elif (graph.format == "csr" and graph.dtype in _PATTERN_DTYPES
          and graph.shape[0] == graph.shape[1] and graph.has_canonical_format):
        data = graph.data
        ip, ix, degree = symmetric_pattern(graph.indptr, graph.indices, data,
                                           bool(data.size == 0 or data.min() > 0))
        idt = np.dtype(np.int64) if wide else index_dtype(n, ix.size)
    else:
        A = graph.tocsr() if graph.format == "csc" else graph
        M = Matrix.from_any(A, name="graph")
        S = ewise_add(M, M.T, ops.plus)
        ip, ix = _host(S.indptr), _host(S.indices)
        nonzero = _host(S.data) != 0
        if not nonzero.all():
            rows = np.repeat(np.arange(n), np.diff(ip))
            ip = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(rows[nonzero], minlength=n), out=ip[1:])
            ix = ix[nonzero]
        idt = np.dtype(np.int64) if wide else index_dtype(n, ix.size)
    if degree is None:
        degree = np.empty(n, idt)
        degrees(ip, ix, degree)     # a row holding its diagonal counts it once more
    else:
        degree = degree.astype(idt)
    order = np.zeros(n, dtype=idt)
    if n:
        cuthill_mckee(ip, ix, degree, np.argsort(degree), order)
    perm = order[::-1]
    if on_gpu:
        import cupy

        return cupy.asarray(perm)
    return perm


def _sum_is_wide(graph):
    """Whether scipy's ``graph + graph.T`` keeps int64 indices however small: a sparse
    array holding an int64 index array does (a sparse matrix's sum picks a dtype from its
    contents; :func:`reverse_cuthill_mckee` then asks scipy for the sum)."""
    return (not isinstance(graph, sp.spmatrix)
            and np.int64 in (graph.indices.dtype, graph.indptr.dtype))


def _general_sum_pattern(graph):
    """The pattern of scipy's ``graph + graph.T`` for arrays that are not canonical, read
    as rows of the compressed axis: scipy's general merge lists each row's columns in the
    reverse order of their first appearance (the row as stored, then the transpose's row,
    sorted), and drops those whose values sum to zero."""
    n = graph.shape[0]
    ip, ix = np.asarray(graph.indptr, np.int64), np.asarray(graph.indices, np.int64)
    data = np.asarray(graph.data)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ip))
    by_column = np.argsort(ix, kind="stable")          # the transpose's rows, each sorted
    r = np.concatenate([rows, ix[by_column]])
    c = np.concatenate([ix, rows[by_column]])
    v = np.concatenate([data, data[by_column]])
    seq = np.argsort(r, kind="stable")                 # row by row: stored, then transposed
    key = r[seq] * n + c[seq]
    unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    total = np.zeros(unique.size, data.dtype)
    np.add.at(total, inverse, v[seq])
    kept = total != 0
    unique, first = unique[kept], first[kept]
    order = np.lexsort((-first, unique // max(n, 1)))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(unique // max(n, 1), minlength=n), out=indptr[1:])
    return indptr, unique[order] % max(n, 1)


def _reverse_cuthill_mckee_device(graph, symmetric_mode):
    """:func:`reverse_cuthill_mckee` of a cupyx CSR/CSC matrix on the device; None where it
    takes the host copy (``symmetric_mode`` with a pattern that is not symmetric, or
    arrays that are not canonical: scipy's sum orders their rows its own way)."""
    from .semiring import ewise_add

    if graph.format not in ("csc", "csr"):
        raise TypeError("Input must be in CSC or CSR sparse format.")
    if not symmetric_mode and not graph.has_canonical_format:
        return None
    n = graph.shape[0]
    M = Matrix.from_any(graph.tocsr() if graph.format == "csc" else graph, name="graph")
    xp = M.xp
    wide = _sum_is_wide(graph)
    if symmetric_mode:
        ip, ix = M.indptr, M.indices
        wide = graph.indices.dtype == np.int64
        keys = M.pattern.keys()
        rows = M.pattern.rows()
        mirrored = ix.astype(np.int64) * n + rows
        if not bool(xp.array_equal(xp.unique(keys), xp.unique(mirrored))):
            return None
    else:
        S = ewise_add(M, M.T, ops.plus)
        ip, ix = S.indptr, S.indices
        nonzero = S.data != 0
        if not bool(nonzero.all()):
            rows = S.pattern.rows()
            ip = xp.zeros(n + 1, np.int64)
            xp.cumsum(xp.bincount(rows[nonzero], minlength=n), out=ip[1:])
            ix = ix[nonzero]
    idt = np.dtype(np.int64) if wide else index_dtype(n, int(ix.size))
    order = _cuthill_mckee_levels(xp, ip, ix, n)
    return order[::-1].astype(idt)


def _cuthill_mckee_levels(xp, ip, ix, n):
    """The Cuthill-McKee order (scipy's, before its reversal) of the symmetric pattern
    (``ip``, ``ix``) by array operations and one :func:`spbfs.semiring.queue_order`.

    scipy's search starts each component from its first vertex in ``argsort(degree)``
    (numpy's, on a host copy of the degrees: its ties are numpy's), and enqueues each
    vertex's new neighbours in row order, then sorted by degree (ties in row order).  So
    each row's entries are sorted by ``(degree, position)`` once, and one queue search
    from an extra vertex whose arcs lead to the components' starts, in the order scipy
    starts them, visits every component as scipy does, their levels interleaved; a stable
    sort by component then gives scipy's order (a component's vertices keep their
    relative order: their parents are in the same component)."""
    if n == 0:
        return xp.zeros(0, np.int64)
    ip = ip.astype(np.int64, copy=False)
    ix = ix.astype(np.int64, copy=False)
    length = xp.diff(ip)
    rows = xp.repeat(xp.arange(n, dtype=np.int64), length)
    diagonal = xp.zeros(n, np.int64)
    diagonal[rows[ix == rows]] = 1
    degree = length + diagonal            # a row holding its diagonal counts it once more
    seeds = xp.asarray(np.argsort(_host(degree)))
    key, none = _key_dtype(n)
    seed_rank = xp.empty(n, key)
    seed_rank[seeds] = xp.arange(n, dtype=key)
    pattern = Matrix(ip, ix, xp.ones(ix.size, bool), n, check=False)
    count, labels = _connected_components(pattern, directed=True, connection="weak")
    start_rank = xp.full(count, none, key)
    _scatter_min(xp, start_rank, labels.astype(np.int64), seed_rank)
    comp_order = xp.argsort(start_rank)               # components in the order started
    starts = seeds[start_rank[comp_order].astype(np.int64)]
    by_degree = xp.lexsort(xp.stack([xp.arange(ix.size, dtype=np.int64), degree[ix], rows]))
    indptr = xp.concatenate([ip, ip[-1:] + count])
    indices = xp.concatenate([ix[by_degree], starts.astype(np.int64)])
    search = Matrix(indptr, indices, xp.ones(indices.size, bool), n + 1, check=False)
    order, _ = queue_order(search, n)
    order = order[1:]
    position = xp.empty(count, np.int64)
    position[comp_order] = xp.arange(count, dtype=np.int64)
    component = position[labels[order].astype(np.int64)]
    return order[xp.lexsort(xp.stack([xp.arange(n, dtype=np.int64), component]))]


# ----------------------------------------------------------------------------- matching
def _bipartite_csr(graph):
    """scipy's checks of a bipartite graph argument; its CSR form (host)."""
    graph, on_gpu = _scipy_sparse(graph)
    if not sp.issparse(graph):
        raise TypeError("graph must be sparse")
    if graph.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    return graph, on_gpu


def _matching(ip, ix, nrows, ncols):
    from .cpu.matching import hopcroft_karp

    x = np.empty(nrows, np.int32)
    y = np.empty(ncols, np.int32)
    hopcroft_karp(np.asarray(ip), np.asarray(ix), ncols, x, y)
    return x, y


def maximum_bipartite_matching(graph, perm_type="row"):
    """A maximum matching of a bipartite graph, as
    ``scipy.sparse.csgraph.maximum_bipartite_matching``.

    On the CPU Hopcroft-Karp in a kernel (:func:`spbfs.cpu.matching.hopcroft_karp`:
    rounds of breadth-first layers from the unmatched rows, then depth-first augmenting
    paths along them); the matching is scipy's.  On the GPU (a cupyx matrix) by array
    operations on the device (:func:`_maximum_matching_arrays`: rounds of a breadth-first
    forest grown from every unmatched row at once, every tree that reaches an unmatched
    column augmenting along its path): a maximum matching of the same size, which may
    pair other rows and columns than scipy's where several maximum matchings exist
    (scipy's sequential depth-first searches pick one; no order of its is promised).

    Parameters
    ----------
    graph : CSR, CSC or COO sparse matrix/array
        Rows are one side, columns the other; every stored entry (zeros too) is an edge.
    perm_type : {"row", "column"}
        "row": for each column, its row; "column": for each row, its column (-1:
        unmatched).

    Returns
    -------
    perm : ndarray of int32

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[1, 1], [1, 0], [0, 1]])
    >>> csgraph.maximum_bipartite_matching(G, perm_type="column")
    array([ 0, -1,  1], dtype=int32)
    """
    if is_cupy(graph) and _is_sparse_input(graph):
        if graph.format not in ("csr", "csc", "coo"):
            raise TypeError("graph must be in CSC, CSR, or COO format.")
        x, y = _device_matching(graph.tocsr())
        return (x if perm_type == "column" else y).astype(np.int32)
    graph, _ = _bipartite_csr(graph)
    graph = graph.tocsr()
    nrows, ncols = graph.shape
    x, y = _matching(graph.indptr, graph.indices, nrows, ncols)
    return x if perm_type == "column" else y


def structural_rank(graph):
    """The structural rank, as ``scipy.sparse.csgraph.structural_rank``: the size of a
    maximum matching of rows to columns.

    On the CPU :func:`maximum_bipartite_matching`'s (Hopcroft-Karp in a kernel); on the
    GPU by array operations on the device (:func:`_maximum_matching_arrays`: rounds of a
    breadth-first forest grown from every unmatched row at once, each tree that reaches
    an unmatched column augmenting along its path; the paths of different trees share no
    vertex).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.structural_rank(sp.csr_array([[1, 0, 2, 0], [2, 0, 4, 0]]))
    np.int64(2)
    """
    if is_cupy(graph) and _is_sparse_input(graph):
        if graph.format not in ("csr", "csc", "coo"):
            warnings.warn("Input matrix should be in CSC, CSR, or COO matrix format",
                          sp.SparseEfficiencyWarning, stacklevel=2)
        graph = graph.tocsr()
        rows, _ = _device_matching(graph.T.tocsr() if graph.shape[0] > graph.shape[1]
                                   else graph)
        return np.int64(int((rows >= 0).sum()))
    graph, _ = _scipy_sparse(graph)
    if not sp.issparse(graph):
        raise TypeError("Input must be sparse")
    if graph.format != "csr":
        if graph.format not in ("csc", "coo"):
            warnings.warn("Input matrix should be in CSC, CSR, or COO matrix format",
                          sp.SparseEfficiencyWarning, stacklevel=2)
        graph = sp.csr_array(graph)
    if graph.shape[0] > graph.shape[1]:
        graph = graph.T.tocsr()
    return np.sum(maximum_bipartite_matching(graph) >= 0)


def _device_matching(graph):
    """:func:`_maximum_matching_arrays` of a cupyx CSR matrix."""
    return _maximum_matching_arrays(array_module(graph), *graph.shape,
                                    graph.indptr.astype(np.int64),
                                    graph.indices.astype(np.int64))


def _row_entries(xp, ip, rows):
    """``(row of each entry, position)`` of every stored entry of ``rows`` (CSR ``ip``)."""
    start = ip[rows]
    count = ip[rows + 1] - start
    owner = xp.repeat(xp.arange(rows.size, dtype=np.int64), count)
    first = xp.cumsum(count) - count
    offset = xp.arange(owner.size, dtype=np.int64) - xp.repeat(first, count)
    return rows[owner], start[owner] + offset


def _maximum_matching_arrays(xp, nrows, ncols, ip, ix):
    """A maximum matching of rows to columns by array operations (numpy or cupy):
    ``(column of each row, row of each column)``, -1 where unmatched.

    Each round grows a breadth-first forest from every unmatched row at once over the
    alternating graph (a row's entries to columns not seen yet, each column taken by its
    smallest row; a matched column leads on to its row); a tree stops at its first level
    that reaches an unmatched column and takes the smallest one.  Every vertex belongs
    to one tree, so the trees' augmenting paths share no vertex and are flipped together.
    A round that finds none proves the matching maximum (the forest holds every vertex
    an alternating path from an unmatched row reaches)."""
    mate_row = xp.full(nrows, -1, np.int64)
    mate_col = xp.full(ncols, -1, np.int64)
    key, none = _key_dtype(max(nrows, ncols))
    has_entries = ip[1:] > ip[:-1]
    while True:
        frontier = xp.flatnonzero((mate_row < 0) & has_entries)
        if not frontier.size or not ncols:
            break
        root = xp.full(nrows, -1, np.int64)
        root[frontier] = frontier
        parent = xp.full(ncols, -1, np.int64)
        seen = xp.zeros(ncols, dtype=bool)
        done = xp.zeros(nrows, dtype=bool)
        end = xp.full(nrows, none, key)
        while frontier.size:
            r, pos = _row_entries(xp, ip, frontier)
            c = ix[pos]
            keep = ~seen[c] & ~done[root[r]]
            r, c = r[keep], c[keep]
            if not r.size:
                break
            claim = xp.full(ncols, none, key)
            _scatter_min(xp, claim, c, r.astype(key))
            new = c[claim[c] == r]    # each column once (by its smallest row's entry)
            parent[new] = claim[new].astype(np.int64)
            seen[new] = True
            tree = root[parent[new]]
            free = mate_col[new] < 0
            _scatter_min(xp, end, tree[free], new[free].astype(key))
            done[tree[free]] = True
            onward = ~free & ~done[tree]
            frontier = mate_col[new[onward]]
            root[frontier] = tree[onward]
        cols = end[xp.flatnonzero(end != none)].astype(np.int64)
        if not cols.size:
            break
        while cols.size:  # flip the paths, from their unmatched columns back to the roots
            r = parent[cols]
            before = mate_row[r]
            mate_col[cols] = r
            mate_row[r] = cols
            cols = before[before >= 0]
    return mate_row, mate_col


def min_weight_full_bipartite_matching(biadjacency, maximize=False):
    """A minimum weight full matching, as
    ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``.

    Every vertex of the smaller side is matched, at least total weight (``maximize``:
    most).  A Hopcroft-Karp matching first proves a full matching exists
    (``ValueError('no full matching exists')`` otherwise), then successive shortest
    augmenting paths in a kernel (:func:`spbfs.cpu.matching.min_weight_full`: a
    Dijkstra search over reduced costs from each row; sequential by nature, so GPU
    input runs on a host copy).  As scipy: explicit zeros warn and, like infinite
    weights, are not edges; a weight of -inf (inf with ``maximize``) raises ValueError,
    where scipy's answer is arbitrary.

    Returns
    -------
    row_ind, col_ind : ndarray
        The matched pairs, ``row_ind`` sorted.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[5, 8, 0], [0, 7, 3]])
    >>> row, col = csgraph.min_weight_full_bipartite_matching(G)
    >>> row.tolist(), col.tolist()
    ([0, 1], [0, 2])
    """
    from .cpu.matching import min_weight_full

    B, on_gpu = _bipartite_csr(biadjacency)
    if not (np.issubdtype(B.dtype, np.number) or B.dtype == np.dtype(np.bool_)):
        raise ValueError("expected a matrix containing numerical entries, "
                         f"got {B.dtype}")
    B = B.astype(np.double)
    if maximize:
        B = -B
    if not np.all(B.data):
        warnings.warn("explicit zero weights are removed before matching", UserWarning,
                      stacklevel=2)
    B.data[np.isposinf(B.data)] = 0
    B.eliminate_zeros()
    i, j = B.shape
    a = np.arange(min(i, j))
    T = B.T.tocsr() if j < i else B.tocsr()
    nrows, ncols = T.shape
    # finite weights: the kernel's searches fail exactly when no full matching exists, so
    # no maximum matching is needed first
    finite = bool(np.isfinite(T.data).all())
    if not finite and bool(np.isneginf(T.data).any()):  # scipy's answer is then arbitrary
        raise ValueError("biadjacency holds -inf weights (inf with maximize=True): every "
                         "full matching using one weighs -inf, so none is least")
    if not finite:
        x, _ = _matching(T.indptr, T.indices, nrows, ncols)
        if np.sum(x != -1) != min(i, j):
            raise ValueError("no full matching exists")
    b = np.empty(nrows, np.int32)
    if not min_weight_full(np.asarray(T.indptr), np.asarray(T.indices),
                           np.asarray(T.data, np.float64), ncols, b, finite):
        raise ValueError("no full matching exists")
    if j < i:
        order = np.argsort(b)
        out = (b[order], a[order])
    else:
        out = (a, b)
    if on_gpu:
        import cupy

        return tuple(cupy.asarray(o) for o in out)
    return out


# ----------------------------------------------------------------------------- flow
_FLOW_METHODS = ("edmonds_karp", "dinic")


def maximum_flow(csgraph, source, sink, *, method="dinic"):
    """A maximum flow from ``source`` to ``sink``, as ``scipy.sparse.csgraph.maximum_flow``.

    Integer capacities in a CSR matrix.  The residual graph (every arc with its reverse,
    the reverse holding zero capacity unless stored) and both of scipy's methods run in
    kernels (:mod:`spbfs.cpu.flow`): ``"edmonds_karp"`` (shortest augmenting paths, a
    breadth-first search each) and ``"dinic"`` (breadth-first levels, then blocking
    flows by depth-first search); the augmenting paths, hence the flows, are scipy's.

    On the GPU (a cupyx CSR matrix, whose values are floats: cupyx holds no integers, so
    capacities are floats holding integers, anything else raising scipy's ``ValueError``)
    both methods run on the device by array operations (:mod:`spbfs.algorithms.flow`):
    the residual graph (:func:`~spbfs.algorithms.flow.residual_arrays`);
    ``"edmonds_karp"`` (:func:`~spbfs.algorithms.flow.edmonds_karp_arrays`) takes each
    augmenting path from a queue search (:func:`spbfs.semiring.queue_order`) over the arcs
    with residual capacity, the one scipy's search finds (each vertex reached by the first
    such arc in queue order); ``"dinic"`` (:func:`~spbfs.algorithms.flow.dinic_arrays`)
    takes each phase's levels from a level search (:func:`spbfs.semiring.level_search`)
    and each path of its blocking flow as the first path, in arc order, through the
    vertices that still reach the sink along the levels (found level by level from the
    sink's down): the path scipy's depth-first search finds.  A graph with a repeated
    entry runs on a host copy.  The flow comes back as a cupyx ``csr_matrix`` of float64.

    Returns
    -------
    res : scipy.sparse.csgraph's ``MaximumFlowResult``
        ``flow_value`` and ``flow``: antisymmetric, on the residual graph's pattern, a
        ``csr_matrix`` for ``csr_matrix`` input, a ``csr_array`` otherwise.

    Raises
    ------
    TypeError
        Input that is not a CSR sparse matrix.
    ValueError
        Non-integer capacities, a non-square graph, ``source == sink``, vertices out of
        range or an unknown method.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 5, 0], [0, 0, 3], [0, 0, 0]])
    >>> res = csgraph.maximum_flow(G, 0, 2)
    >>> int(res.flow_value)
    3
    >>> res.flow.toarray()
    array([[ 0,  3,  0],
           [-3,  0,  3],
           [ 0, -3,  0]], dtype=int32)
    """
    from .cpu.flow import dinic, edmonds_karp, residual_graph

    if is_cupy(csgraph) and _is_sparse_input(csgraph):
        result = _maximum_flow_device(csgraph, source, sink, method)
        if result is not None:
            return result
    original = csgraph
    csgraph, on_gpu = _scipy_sparse(csgraph)
    if on_gpu and sp.issparse(csgraph):  # checked integral by _maximum_flow_device
        csgraph = csgraph.astype(np.int32)
    if not (sp.issparse(csgraph) and csgraph.format == "csr"):
        raise TypeError("graph must be in CSR format")
    if not issubclass(csgraph.dtype.type, np.integer):
        raise ValueError("graph capacities must be integers")
    n = _flow_checks(csgraph.shape, source, sink, method)
    if not csgraph.has_sorted_indices:
        csgraph = csgraph.sorted_indices()
    ip = np.asarray(csgraph.indptr)
    ix = np.asarray(csgraph.indices)
    data = np.asarray(csgraph.data).astype(np.int32, copy=False)
    rip, rix, cap, reverse = residual_graph(ip, ix, data)
    flow = np.zeros(rix.size, np.int32)
    run = edmonds_karp if method == "edmonds_karp" else dinic
    run(rip, rix, cap, reverse, int(source), int(sink), flow)
    matrix = _csr_out(original if not on_gpu else csgraph, (flow, rix, rip), (n, n), on_gpu)
    value = flow[rip[source]:rip[source + 1]].sum()
    return MaximumFlowResult(value, matrix)


def _flow_checks(shape, source, sink, method) -> int:
    """scipy's checks of :func:`maximum_flow`'s terminals, shape and method, in its order
    and words; returns the vertex count."""
    if source == sink:
        raise ValueError("source and sink vertices must differ")
    if shape[0] != shape[1]:
        raise ValueError("graph must be specified as a square matrix.")
    n = shape[0]
    if source < 0 or source >= n:
        raise ValueError(f"source value ({source}) must be between 0 and {n - 1}")
    if sink < 0 or sink >= n:
        raise ValueError(f"sink value ({sink}) must be between 0 and {n - 1}")
    if method not in _FLOW_METHODS:
        raise ValueError(f"{method} method is not supported yet.")
    return n


#: The device's Dinic stops once its paths' lengths sum to more than this (each path
#: costs array operations a level) and the host's kernel finishes the flow from there
#: (many paths, or a deep graph such as scipy's 100,000-vertex path test).
DEVICE_DINIC_STEPS = 4096


def _dinic_rest(indptr, cols, residual, reverse, source, sink):
    """The flow Dinic's method adds to a flow whose residual capacities are
    ``residual`` (device arrays), by the CPU's kernel on host copies: new phases from
    there find the paths the device's would have (:func:`spbfs.algorithms.flow.dinic_arrays`)."""
    from .cpu.flow import dinic

    ip, ix, cap, rev = (_host(a).astype(np.int32) for a in (indptr, cols, residual, reverse))
    extra = np.zeros(ix.size, np.int32)
    dinic(ip, ix, cap, rev, source, sink, extra)
    return extra


def _maximum_flow_device(csgraph, source, sink, method):
    """:func:`maximum_flow` of a cupyx CSR matrix; None where it takes the host copy
    (repeated entries), after scipy's checks."""
    from .algorithms.flow import dinic_arrays, edmonds_karp_arrays, residual_arrays

    xp = array_module(csgraph)
    if csgraph.format != "csr":
        raise TypeError("graph must be in CSR format")
    data = csgraph.data
    if data.dtype.kind not in "fiu" or (data.size and not bool(
            xp.all((data == xp.floor(data)) & (xp.abs(data) < 2 ** 31)))):
        raise ValueError("graph capacities must be integers")
    n = _flow_checks(csgraph.shape, source, sink, method)
    rows = xp.repeat(xp.arange(n, dtype=np.int64), xp.diff(csgraph.indptr.astype(np.int64)))
    residual = residual_arrays(xp, n, rows, csgraph.indices.astype(np.int64),
                               data.astype(np.int64))
    if residual is None:
        return None
    indptr, cols, cap, reverse = residual[:4]
    if method == "edmonds_karp":
        flow = edmonds_karp_arrays(xp, n, *residual, int(source), int(sink))
    else:
        flow, done = dinic_arrays(xp, n, *residual, int(source), int(sink),
                                  max_steps=DEVICE_DINIC_STEPS)
        if not done:
            flow = flow + xp.asarray(_dinic_rest(indptr, cols, cap - flow, reverse,
                                                 int(source), int(sink)))
    import cupyx.scipy.sparse as csp

    matrix = csp.csr_matrix((flow.astype(np.float64), cols.astype(np.int32),
                             indptr.astype(np.int32)), shape=(n, n))
    value = int(flow[int(indptr[source]):int(indptr[source + 1])].sum())
    return MaximumFlowResult(value, matrix)


# ----------------------------------------------------------------------------- k shortest paths
def yen(csgraph, source, sink, K, *, directed=True, return_predecessors=False,
        unweighted=False):
    """The ``K`` shortest loopless paths from ``source`` to ``sink``, as
    ``scipy.sparse.csgraph.yen``.

    Yen's algorithm: each new path branches from a vertex (the spur) of the previous
    one, found by a shortest-path search (:func:`dijkstra`'s frontier Bellman-Ford over
    ``min_plus``) in the graph without the root path's vertices and without the arcs
    out of the spur that the paths found so far take; the candidates are kept in
    scipy's order (by length, a new one before equal ones), so the paths are scipy's.
    Negative weights work; a negative cycle raises ``NegativeCycleError`` (undirected:
    any negative edge).  On the CPU, with positive weights, the spur searches are
    compiled A* searches (:class:`spbfs.cpu.cs_dijkstra.SpurSearch`); on the GPU every
    spur search runs on the device (the frontier Bellman-Ford), the loop that picks the
    spurs and keeps the candidates on the host (it reads each path found).

    Returns
    -------
    dist_array : ndarray of float64, shape (M,)
        The lengths of the ``M <= K`` paths found.
    predecessors : ndarray of int32, shape (M, N), optional
        Row ``i``: each vertex's predecessor on path ``i`` (-9999 off the path).

    Raises
    ------
    ValueError
        ``source`` or ``sink`` outside ``[0, N)``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> dist, pred = csgraph.yen(G, 0, 3, K=2, return_predecessors=True)
    >>> dist
    array([2., 5.])
    >>> pred
    array([[-9999,     0, -9999,     1],
           [-9999, -9999,     0,     2]], dtype=int32)
    """
    M = _matrix(csgraph, directed)
    n = M.n
    if source < 0 or source >= n or sink < 0 or sink >= n:
        raise ValueError("For csgraph with shape (N, N), must have 0 <= source < N and "
                         f"0 <= sink < N. Got N={n}, source={source}, sink={sink}.")
    source, sink, K = int(source), int(sink), int(K)
    w, lowest = _weights(M, unweighted)
    ip, ix = _host(M.indptr), _host(M.indices)
    H = M
    negative = lowest < 0
    if negative:  # a negative cycle anywhere raises, as scipy's Johnson reweighting
        _Search(H, w, False, True, bool(directed), np.inf, zero=True).run(
            H.with_values(w), M.xp.arange(n), 1, sources_for_error=np.arange(n),
            need_parents=False)
    w = _host(w)
    dist = np.full(max(K, 0), np.inf)
    preds = np.full((max(K, 0), n), SCIPY_NULL, np.int32)
    if K > 0:
        _yen(H, ip, ix, w, negative, lowest > 0, source, sink, dist, preds)
    found = int(np.sum(dist < np.inf))
    dist_out, pred_out = _like(M, dist[:found]), _like(M, preds[:found])
    return (dist_out, pred_out) if return_predecessors else dist_out


def _spur_search(H, w, negative, spur):
    """Distances and predecessors from ``spur`` with weights ``w`` (inf: no arc), on H's
    device."""
    xp = H.xp
    search = _Search(H, w, False, negative, True, np.inf, zero=bool((w == 0).any()))
    d, parent = search.run(H.with_values(w), xp.asarray([spur]), 1,
                           sources_for_error=np.asarray([spur]), need_parents=True)
    pred = xp.where(parent >= 0, parent, SCIPY_NULL).astype(np.int32)
    return d, pred


class _FrontierSpur:
    """Spur searches by :func:`_spur_search` on a copy of the weights with the removed
    arcs set to inf (any weights: zero and negative ones too), on the device of ``H``
    (``ip``, ``ix``, ``w0``: host copies, for the loop's bookkeeping); each search's
    predecessors come back to the host to read the path."""

    def __init__(self, H, ip, ix, w0, negative, target):
        self.H, self.ip, self.ix, self.w0, self.negative = H, ip, ix, w0, negative
        self.target = target
        self.weights = H.xp.asarray(w0)

    def __call__(self, start, gone, blocked):
        ip, ix, target = self.ip, self.ix, self.target
        removed = [np.arange(ip[node], ip[node + 1], dtype=np.int64) for node in gone]
        if len(blocked):
            out = np.arange(ip[start], ip[start + 1], dtype=np.int64)
            removed.append(out[np.isin(ix[out], np.asarray(blocked))])
        w = self.weights.copy()
        if removed:
            w[self.H.xp.asarray(np.concatenate(removed))] = np.inf
        d, pred = _spur_search(self.H, w, self.negative, start)
        length = float(d[target])
        if not length < np.inf:
            return length, None
        pred = _host(pred)
        path = [target]
        while path[-1] != start:
            path.append(int(pred[path[-1]]))
        return length, np.asarray(path, np.int64)


def _yen(H, ip, ix, w0, negative, positive, source, sink, dist, preds):
    """Yen's loop; ``positive``: every weight > 0, so the spur searches are compiled A*
    searches towards the sink (:class:`spbfs.cpu.cs_dijkstra.SpurSearch`: one Dijkstra
    from the sink over the reversed arcs gives every vertex's distance to it, a lower
    bound once arcs are removed), else frontier searches."""
    if positive and not H.on_gpu:
        from .cpu.cs_dijkstra import SpurSearch

        search = SpurSearch(ip, ix, w0, sink)
    else:
        search = _FrontierSpur(H, ip, ix, w0, negative, sink)
    K, n = preds.shape
    length, path = search(source, (), ())
    if not length < np.inf:
        return
    dist[0] = length
    preds[0, path[:-1]] = path[1:]
    candidates = []          # (distance, path from sink to source, spur), by distance
    capacity = K
    last_spur = source
    for k in range(1, K):
        prev = preds[k - 1]
        spur = sink
        root = dist[k - 1]
        gone = []            # the root path's vertices before the spur
        while spur != last_spur:
            before = int(prev[spur])
            arcs = slice(ip[before], ip[before + 1])
            edge = w0[arcs][ix[arcs] == spur]
            if not edge.size or not np.isfinite(edge.min()):
                raise ValueError(f"No edge between nodes {before} and {spur}")
            root -= edge.min()
            spur = before
            blocked = []
            out = slice(ip[spur], ip[spur + 1])
            for j in range(k):  # paths sharing the root path up to the spur
                node = spur
                while preds[j, node] == prev[node]:
                    if node == source:
                        heads = ix[out]
                        blocked.extend(np.unique(heads[preds[j][heads] == spur]).tolist())
                        break
                    node = int(preds[j, node])
            if not gone:
                node = int(prev[spur])
                while node != SCIPY_NULL:
                    gone.append(node)
                    node = int(prev[node])
            else:
                gone.pop(0)
            length, path = search(spur, gone, blocked)
            total = length + root
            if total != np.inf:
                _insert(candidates, capacity, total, prev, path, spur)
        if not candidates:
            break
        total, path, last_spur = candidates.pop(0)
        capacity -= 1
        dist[k] = total
        row = preds[k]
        row[path[:-1]] = path[1:]


def _insert(candidates, capacity, total, prev, spur_path, spur):
    """Keep at most ``capacity`` candidates by distance, a new one before equal ones."""
    if len(candidates) >= capacity and total >= candidates[-1][0]:
        return
    root = []
    node = int(prev[spur])
    while node != SCIPY_NULL:
        root.append(node)
        node = int(prev[node])
    path = np.concatenate([spur_path, np.asarray(root, np.int64)])
    at = next((i for i, c in enumerate(candidates) if c[0] >= total), len(candidates))
    candidates.insert(at, (total, path, spur))
    del candidates[capacity:]


# ----------------------------------------------------------------------------- conversions
def csgraph_from_dense(graph, null_value=0, nan_null=True, infinity_null=True):
    """A CSR graph from a dense array, as ``scipy.sparse.csgraph.csgraph_from_dense``
    (scipy's own conversion on the CPU; a cupy array gives a cupyx ``csr_matrix``, built
    on the device by :func:`_from_dense_arrays`).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_from_dense(np.array([[0, 2.0], [np.inf, 0]])).toarray()
    array([[0., 2.],
           [0., 0.]])
    """
    if is_cupy(graph):
        return _from_dense_arrays(graph, null_value, nan_null, infinity_null)
    return _scipy_tools.csgraph_from_dense(graph, null_value=null_value, nan_null=nan_null,
                                           infinity_null=infinity_null)


def csgraph_to_dense(csgraph, null_value=0):
    """A dense array of a sparse graph, as ``scipy.sparse.csgraph.csgraph_to_dense``
    (scipy's own conversion on the CPU; a cupyx matrix gives a cupy array, built on the
    device by :func:`_to_dense_device`: the smallest of repeated entries, ``null_value``
    where none is stored).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_to_dense(sp.csr_array([[0, 2.0], [0, 0]]), null_value=np.inf)
    array([[inf,  2.],
           [inf, inf]])
    """
    if is_cupy(csgraph):
        return _to_dense_device(csgraph, null_value)
    return _scipy_tools.csgraph_to_dense(csgraph, null_value=null_value)


def csgraph_masked_from_dense(graph, null_value=0, nan_null=True, infinity_null=True,
                              copy=True):
    """A masked array of a dense graph, as
    ``scipy.sparse.csgraph.csgraph_masked_from_dense`` (scipy's own conversion; CPU: a
    cupy array is copied to the host, and the result is a numpy masked array, as there
    are no masked arrays on the device).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_masked_from_dense(np.array([[0, 2.0], [1.0, 0]])).mask.tolist()
    [[True, False], [False, True]]
    """
    graph = _host(graph) if is_cupy(graph) else graph
    return _scipy_tools.csgraph_masked_from_dense(graph, null_value=null_value,
                                                  nan_null=nan_null,
                                                  infinity_null=infinity_null, copy=copy)


def csgraph_from_masked(graph):
    """A CSR graph from a masked array, as ``scipy.sparse.csgraph.csgraph_from_masked``
    (scipy's own conversion; CPU).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.ma.masked_equal(np.array([[0, 2.0], [1.0, 0]]), 0)
    >>> csgraph.csgraph_from_masked(G).nnz
    2
    """
    return _scipy_tools.csgraph_from_masked(graph)


def csgraph_to_masked(csgraph):
    """A masked array of a sparse graph, as ``scipy.sparse.csgraph.csgraph_to_masked``
    (scipy's own conversion; CPU: a cupyx matrix is copied to the host, and the result is
    a numpy masked array, as there are no masked arrays on the device).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_to_masked(sp.csr_array([[0, 2.0], [0, 0]])).mask.tolist()
    [[True, False], [True, True]]
    """
    csgraph, _ = _scipy_sparse(csgraph)
    return _scipy_tools.csgraph_to_masked(csgraph)


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """Path lengths from a predecessor matrix, as
    ``scipy.sparse.csgraph.construct_dist_matrix`` (scipy's own on the CPU; a cupy or
    cupyx argument runs :func:`_dist_matrix_device` on the device: the weights along each
    predecessor chain added by pointer doubling, so sums may round differently from
    scipy's one-by-one sums).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.array([[0, 1.0, 3.0], [0, 0, 1.0], [0, 0, 0]])
    >>> dist, pred = csgraph.shortest_path(G, return_predecessors=True)
    >>> csgraph.construct_dist_matrix(G, pred)
    array([[ 0.,  1.,  2.],
           [inf,  0.,  1.],
           [inf, inf,  0.]])
    """
    if is_cupy(graph) or is_cupy(predecessors):
        return _dist_matrix_device(graph, predecessors, directed, null_value)
    return _scipy_tools.construct_dist_matrix(graph, predecessors, directed=directed,
                                              null_value=null_value)


def reconstruct_path(csgraph, predecessors, directed=True):
    """The tree of a predecessor list, as ``scipy.sparse.csgraph.reconstruct_path``
    (scipy's own on the CPU; a cupyx graph or cupy predecessors: the vectorised form
    :func:`breadth_first_tree` uses, on the device, a cupyx ``csr_matrix``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> G = sp.csr_array([[0, 1.0, 2.0], [0, 0, 1.0], [0, 0, 0]])
    >>> pred = np.array([-9999, 0, 1], dtype=np.int32)
    >>> csgraph.reconstruct_path(G, pred).toarray()
    array([[0., 1., 0.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """
    _check_integral(predecessors)
    if is_cupy(predecessors) or is_cupy(csgraph):
        G = _graph(csgraph)
        xp = array_module(G, predecessors)
        if xp is not np and not is_cupy(G):
            G = _device_graph(G)
        return _tree(G, xp.asarray(predecessors), directed)
    predecessors = np.asarray(predecessors)
    if predecessors.dtype.kind == "f":  # integral (checked): scipy from 1.18.1 takes ints only
        predecessors = predecessors.astype(np.intp)
    return _scipy_tools.reconstruct_path(csgraph, predecessors, directed=directed)


def _check_integral(predecessors):
    """ValueError unless every predecessor is an integer (an integral float included), as
    scipy's ``reconstruct_path`` checks them (gh-23577); scipy 1.18.1 takes integer dtypes
    only, so the host path hands it integral floats as ints."""
    dtype = getattr(predecessors, "dtype", None)
    if dtype is None:
        predecessors = np.asarray(predecessors)
        dtype = predecessors.dtype
    if dtype.kind in "iub":
        return
    xp = array_module(predecessors)
    p = xp.asarray(predecessors)
    if dtype.kind not in "f" or not bool(xp.all(xp.isfinite(p) & (p == xp.trunc(p)))):
        raise ValueError(f"predecessors must hold integral indices, got dtype {dtype} with "
                         "non-integral values")


def _device_graph(G):
    """A host graph (scipy sparse or dense) on the device, for a call whose other argument
    is there: a cupyx CSR matrix of float64 (cupyx holds no integer values) or a cupy
    array."""
    import cupy

    if sp.issparse(G):
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(sp.csr_matrix(G, dtype=np.float64))
    return cupy.asarray(G)


def _from_dense_arrays(graph, null_value, nan_null, infinity_null):
    """:func:`csgraph_from_dense` by array operations (cupy, or numpy alike): the entries
    scipy's masked conversion keeps (``null_value`` within ``isclose`` for floats, as
    ``numpy.ma.masked_values``; NaN and infinities as flagged), a CSR matrix of float64
    in row-major order (a cupyx ``csr_matrix`` on the device)."""
    xp = array_module(graph)
    g = xp.asarray(graph)
    if g.ndim != 2:
        raise ValueError("graph should have two dimensions")
    n = g.shape[0]
    if g.shape[1] != n:
        raise ValueError("graph should be a square array")
    if null_value is not None:
        null_value = np.float64(null_value)
        if np.isnan(null_value):
            nan_null, null_value = True, None
        elif np.isinf(null_value):
            infinity_null, null_value = True, None
    if null_value is None:
        null = xp.zeros(g.shape, dtype=bool)
    elif g.dtype.kind == "f":
        null = xp.isclose(g, null_value, rtol=1e-05, atol=1e-08)
    else:
        null = g == null_value
    if g.dtype.kind in "fc":
        if infinity_null:
            null |= xp.isinf(g)
        if nan_null:
            null |= xp.isnan(g)
    keep = ~null
    rows, cols = xp.nonzero(keep)
    data = g[rows, cols].astype(np.float64)
    indptr = xp.zeros(n + 1, np.int32)
    xp.cumsum(keep.sum(axis=1), out=indptr[1:])
    arrays = (data, cols.astype(np.int32), indptr)
    if xp is np:
        return sp.csr_array(arrays, shape=(n, n))
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(arrays, shape=(n, n))


def _to_dense_device(csgraph, null_value):
    """:func:`csgraph_to_dense` by array operations: the smallest of repeated entries
    (a scatter-min), ``null_value`` where nothing is stored."""
    if csgraph.format not in ("csr", "csc"):
        raise ValueError("csgraph must be lil, csr, or csc format")
    xp = array_module(csgraph)
    n = csgraph.shape[0]
    if csgraph.shape[1] != n:
        raise ValueError("csgraph should be a square matrix")
    coo = csgraph.tocoo()
    flat = coo.row.astype(np.int64) * n + coo.col.astype(np.int64)
    dense = xp.full(n * n, np.inf)
    _scatter_min(xp, dense, flat, coo.data.astype(np.float64))
    stored = xp.zeros(n * n, dtype=bool)
    stored[flat] = True
    return xp.where(stored, dense, null_value).reshape(n, n)


def _dist_matrix_device(graph, predecessors, directed, null_value):
    """:func:`construct_dist_matrix` by array operations: scipy's dense graph (no edge:
    inf; undirected: the smaller direction, zeros counting as inf), then each entry's
    predecessor chain summed by pointer doubling (``d += d[i, p]; p = p[i, p]``, a
    logarithmic number of gathers), ``null_value`` where ``i != j`` has no predecessor."""
    G = as_graph(graph)
    xp = array_module(G, predecessors)
    if xp is not np and not is_cupy(G):
        G = _device_graph(G)
    if _is_sparse_input(G) or sp.issparse(G):
        dense = _to_dense_device(G.tocsr() if G.format not in ("csr", "csc") else G, np.inf)
    else:
        g = xp.asarray(G, dtype=np.float64)
        null = xp.isclose(g, 0.0, rtol=1e-05, atol=1e-08) | ~xp.isfinite(g)
        dense = xp.where(null, np.inf, g)
    pred = xp.asarray(predecessors)
    if pred.dtype != np.int32:
        raise TypeError("Type of predecessors array should be np.int32")
    if pred.shape != dense.shape:
        raise ValueError("graph and predecessors must have the same shape")
    if not directed:
        dense = xp.where(dense == 0, np.inf, dense)
        dense = xp.minimum(dense, dense.T)
    n = dense.shape[0]
    source = xp.arange(n, dtype=np.int64)[:, None]
    target = xp.arange(n, dtype=np.int64)[None, :]
    pred = pred.astype(np.int64)
    stop = (pred < 0) | (target == source)
    step = xp.where(stop, target, pred)
    dist = xp.where(stop, 0.0, dense[xp.where(stop, 0, pred), target])
    for _ in range(max(n, 1).bit_length() + 1):
        if not bool((step != xp.take_along_axis(step, step, axis=1)).any()):
            break
        dist = dist + xp.take_along_axis(dist, step, axis=1)
        step = xp.take_along_axis(step, step, axis=1)
    return xp.where((pred < 0) & (target != source), null_value, dist)
