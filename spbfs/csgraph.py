"""Drop-in replacements for scipy.sparse.csgraph functions, written with semiring operations.

Same signatures, dtypes (float64 distances, int32 orders, predecessors and
labels), sentinel (-9999) and exceptions as scipy; numpy/scipy inputs give
numpy results, cupy/cupyx inputs give cupy results.

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
def _matrix(csgraph, directed, *, dtype_kept=False):
    """The checked square Matrix of ``csgraph`` (symmetrised unless ``directed``), as
    scipy's ``validate_graph`` sees it: a sparse input that is COO or (unless
    ``dtype_kept``, as scipy 1.18's ``connected_components``) not float64 is converted
    with ``tocsr().astype(float64)``, which sorts its indices and sums its duplicates; a
    float64 CSR/CSC input keeps both (each duplicate is an edge of its own, the shortest
    counts)."""
    G = as_graph(csgraph)
    M = Matrix.from_any(G, name="csgraph")
    if M.nrows != M.ncols:
        raise ValueError(f"csgraph must be square, got shape {M.shape}")
    if _is_sparse_input(G) and (G.format == "coo" or (G.dtype != np.float64
                                                      and not dtype_kept)):
        M = M.canonical()
    return M if directed else M.symmetrized()


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
        if arr.size:
            raise TypeError(f"indices must be integer vertex ids, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
    shape = (n,) if min_only else arr.shape + (n,)
    flat = arr.reshape(-1).astype(np.int64)
    flat[flat < 0] += n
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise ValueError("indices out of range 0...N")
    return flat, shape


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
    G = as_graph(csgraph)
    M = _matrix(G, True)
    source = check_source(i_start, M.n, "i_start")
    order, pred = queue_order(_scan_matrix(M, directed, getattr(G, "format", None) == "csc"),
                              source, null=SCIPY_NULL, dtype=np.int32)
    node_array = order.astype(np.int32)
    return (node_array, pred) if return_predecessors else node_array


def _scan_matrix(M, directed, from_csc):
    """The arcs in scipy's scan order: ``M`` itself when directed; undirected, row ``p`` is
    row ``p`` of A then row ``p`` of A.T (A.T first for CSC input, which scipy transposes
    in place), built once per input pattern (it reads no values)."""
    if directed:
        return M
    return M.pattern.derived(("csgraph scan order", bool(from_csc)),
                             lambda: _build_scan_matrix(M, from_csc))


def _build_scan_matrix(M, from_csc):
    xp, n, nnz = M.xp, M.n, M.nnz
    first, second = (M.T, M) if from_csc else (M, M.T)
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
    G = as_graph(csgraph)
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
    the same entries in the same order, the sums added in scipy's order.

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
    return _laplacian(csgraph, normed=normed, return_diag=return_diag,
                      use_out_degree=use_out_degree, copy=copy, form=form, dtype=dtype,
                      symmetrized=symmetrized)


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
    stored.  A reachable negative cycle raises
    ``scipy.sparse.csgraph.NegativeCycleError`` (for an undirected graph any
    reachable negative edge is one).

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
        If a negative cycle is reachable from a source.
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
        n = int(G.shape[0]) if getattr(G, "ndim", 2) == 2 else 0
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
    return _run(csgraph, directed, indices, return_predecessors, unweighted)


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
    Johnson's; no reweighting is needed when every search is a Bellman-Ford).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.array([[0, 3.0, 0], [0, 0, -2.0], [0, 0, 0]])
    >>> csgraph.johnson(G)
    array([[ 0.,  3.,  1.],
           [inf,  0., -2.],
           [inf, inf,  0.]])
    """
    return _run(csgraph, directed, indices, return_predecessors, unweighted)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False):
    """All-pairs shortest paths, as ``scipy.sparse.csgraph.floyd_warshall``.

    Computed as every vertex's frontier Bellman-Ford, in batches (no dense
    ``O(N^3)`` loop); ``overwrite`` is accepted and ignored.  As scipy's, self-loops
    are ignored (the diagonal starts at zero).

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
    return _run(csgraph, directed, None, return_predecessors, unweighted, self_loops=False)


def _run(csgraph, directed, indices, return_predecessors, unweighted, *, limit=np.inf,
         min_only=False, warn_negative=False, self_loops=True):
    """The shared front end: check, then batched searches; shapes and sentinels as scipy."""
    M = _matrix(csgraph, directed)
    xp, n = M.xp, M.n
    w, lowest = _weights(M, unweighted)
    if not self_loops and M.nnz:  # Floyd-Warshall starts from a zero diagonal
        rows = xp.repeat(xp.arange(n, dtype=np.int64), M.out_degree)
        w = xp.where(rows == M.indices, np.inf, w)
        lowest = float(w.min())
    negative = lowest < 0
    if negative and warn_negative:
        warnings.warn(_DIJKSTRA_NEGATIVE, UserWarning, stacklevel=3)
    sources, shape = _source_indices(indices, n, min_only)
    limit = _limit(limit)
    search = _Search(M, w, bool(unweighted), negative, bool(directed), limit,
                     zero=lowest <= 0 and bool((w == 0).any()))
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


class _Search:
    """Searches on one graph: BFS (unweighted) or frontier Bellman-Ford (weighted)."""

    def __init__(self, M, w, unweighted, negative, directed, limit, *, zero):
        self.n, self.unweighted, self.negative = M.n, unweighted, negative
        self.directed, self.limit, self.zero = directed, limit, zero

    def run(self, K, roots, b, *, sources_for_error, need_parents):
        """``(dist, parent)`` over the ``b`` blocks of K: parent is a global vertex id of K
        (-1: none; None unless ``need_parents``)."""
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
        prune = not self.negative and self.limit < np.inf
        frontier = Vector(N, "sparse", indices=roots, values=xp.zeros(roots.size))
        rounds = 0
        while frontier.indices.size:
            rounds += 1
            if rounds > n:  # a path of n edges improved: it repeats a vertex, a negative cycle
                block = int(frontier.indices[0]) // max(n, 1)
                raise NegativeCycleError(f"Negative cycle detected on node {sources[block]}")
            y = vxm(frontier, K, min_plus)
            better = y.values < dist[y.indices]
            if prune:
                better &= y.values <= self.limit
            idx, val = y.indices[better], y.values[better]
            dist[idx] = val
            frontier = Vector(N, "sparse", indices=idx, values=val)
        if self.limit < np.inf and not prune:
            dist[dist > self.limit] = np.inf

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
            block = int(rows[bad[0]]) // max(self.n, 1)
            raise NegativeCycleError(f"Negative cycle detected on node {sources[block]}")

    def _parents(self, K, roots, dist):
        """Per vertex, the parent scipy's Dijkstra picks: among the tight in-edges (on a
        shortest path), the source vertex nearest to the root, ties to the largest id.
        Zero-weight ties and negative weights also require the parent one level up in a
        BFS of the tight edges, which keeps the tree acyclic."""
        xp, N = K.xp, K.n
        rows = xp.repeat(xp.arange(N, dtype=np.int64), K.out_degree)
        cols = K.indices.astype(np.int64)
        w = K.data
        du, dv = dist[rows], dist[cols]
        reached = xp.isfinite(du) & xp.isfinite(dv)
        is_root = xp.zeros(N, bool)
        is_root[roots] = True
        tight = reached & (xp.where(reached, du, 0.0) + w == dv) & ~is_root[cols] & (
            rows != cols)
        levelled = self.negative or (self.zero and bool((tight & (w == 0)).any()))
        if levelled:
            level = _levels(_subgraph(K, rows, tight), roots)
            one_up = level[rows] == level[cols] - 1
        base = tight & one_up if self.negative else tight
        everywhere = xp.ones(N, bool)
        y = vxm(Vector(N, "bitmap", present=everywhere, values=dist), _subgraph(K, rows, base),
                _min_first)
        nearest = xp.where(y.present, y.values, np.inf)
        choice = base & (du == nearest[cols])
        if levelled and not self.negative:
            choice &= (nearest[cols] < dv) | one_up
        y = vxm(Vector(N, "bitmap", present=everywhere, values=everywhere),
                _subgraph(K, rows, choice), _max_secondi)
        return xp.where(y.present, y.values, -1)


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
    """A CSR result in scipy's class for input ``G``: a cupyx ``csr_matrix`` for GPU input,
    a ``csr_matrix`` for a scipy sparse matrix, a ``csr_array`` otherwise."""
    if on_gpu:
        import cupy
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(tuple(cupy.asarray(a) for a in arrays), shape=shape)
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

    G = as_graph(csgraph)
    M = _matrix(G, True)
    source = check_source(i_start, M.n, "i_start")
    n = M.n
    if directed:
        first = second = M
    elif getattr(G, "format", None) == "csc":
        first, second = M.T, M
    else:
        first, second = M, M.T
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
    G = as_graph(csgraph)
    _, pred = depth_first_order(G, i_start, directed, True)
    return _tree(G, pred, directed)


# ----------------------------------------------------------------------------- spanning tree
def minimum_spanning_tree(csgraph, overwrite=False):
    """A minimum spanning forest, as ``scipy.sparse.csgraph.minimum_spanning_tree``.

    Borůvka rounds in a kernel (:func:`spbfs.cpu.spanning.boruvka`; GPU input runs
    on a host copy): each tree takes its lightest outgoing edge, edges compared by
    ``(weight, stored position)``, the forest Kruskal's algorithm gives when equal
    weights are taken in stored order.  The graph is undirected (an entry either way
    is an edge); the result holds each kept entry where it is stored, zero weights
    dropped (as scipy's).  ``overwrite`` is accepted; the input is never modified.

    Returns
    -------
    span_tree : csr_array or csr_matrix of float64 (scipy's class rule, see
        :func:`breadth_first_tree`)

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
    from .cpu.spanning import boruvka

    G = as_graph(csgraph)
    M = _matrix(G, True)
    n = M.n
    ip, ix = _host(M.indptr), _host(M.indices)
    w = _host(M.data).astype(np.float64, copy=False)
    rows = np.repeat(np.arange(n, dtype=ix.dtype), np.diff(ip))
    keep = np.zeros(ix.size, np.bool_)
    boruvka(n, rows, ix, w, keep)
    keep &= w != 0
    indptr = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
    arrays = (w[keep], ix[keep].astype(np.int32), indptr)
    return _csr_out(G, arrays, (n, n), M.on_gpu)


# ----------------------------------------------------------------------------- reordering
#: Value types whose ``A + A.T`` pattern a kernel builds (others take ``ewise_add``).
_PATTERN_DTYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int32),
                   np.dtype(np.int64))


def reverse_cuthill_mckee(graph, symmetric_mode=False):
    """The reverse Cuthill-McKee order, as ``scipy.sparse.csgraph.reverse_cuthill_mckee``.

    The pattern of ``A + A.T`` (an ``ewise_add`` over ``plus``; entries that cancel
    are dropped, as scipy's sum drops them) unless ``symmetric_mode``, then breadth-first
    levels with each vertex's new neighbours sorted by degree, each component started
    from its vertex of least degree (:func:`spbfs.cpu.ordering.cuthill_mckee`; the
    order depends on the order before, so it is a compiled sequential search; GPU input
    runs on a host copy), reversed.  The permutation is scipy's.

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

    graph, on_gpu = _scipy_sparse(graph)
    if not sp.issparse(graph):
        raise TypeError("Input graph must be sparse")
    if graph.format not in ("csc", "csr"):
        raise TypeError("Input must be in CSC or CSR sparse format.")
    n = graph.shape[0]
    degree = None
    if symmetric_mode:
        ip, ix = np.asarray(graph.indptr), np.asarray(graph.indices)
        idt = ix.dtype
    elif (graph.format == "csr" and graph.dtype in _PATTERN_DTYPES
          and graph.shape[0] == graph.shape[1] and graph.has_canonical_format):
        data = graph.data
        ip, ix, degree = symmetric_pattern(graph.indptr, graph.indices, data,
                                           bool(data.size == 0 or data.min() > 0))
        idt = np.int32 if max(n, ix.size) < 2 ** 31 else np.int64
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
        idt = np.int32 if max(n, ix.size) < 2 ** 31 else np.int64
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

    Hopcroft-Karp in a kernel (:func:`spbfs.cpu.matching.hopcroft_karp`: rounds of
    breadth-first layers from the unmatched rows, then depth-first augmenting paths
    along them); the matching is scipy's.  GPU input runs on a host copy.

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
    graph, on_gpu = _bipartite_csr(graph)
    graph = graph.tocsr()
    nrows, ncols = graph.shape
    x, y = _matching(graph.indptr, graph.indices, nrows, ncols)
    perm = x if perm_type == "column" else y
    if on_gpu:
        import cupy

        return cupy.asarray(perm)
    return perm


def structural_rank(graph):
    """The structural rank, as ``scipy.sparse.csgraph.structural_rank``: the size of a
    maximum matching of rows to columns (:func:`maximum_bipartite_matching`).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.structural_rank(sp.csr_array([[1, 0, 2, 0], [2, 0, 4, 0]]))
    np.int64(2)
    """
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


def min_weight_full_bipartite_matching(biadjacency, maximize=False):
    """A minimum weight full matching, as
    ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``.

    Every vertex of the smaller side is matched, at least total weight (``maximize``:
    most).  A Hopcroft-Karp matching first proves a full matching exists
    (``ValueError('no full matching exists')`` otherwise), then successive shortest
    augmenting paths in a kernel (:func:`spbfs.cpu.matching.min_weight_full`: a
    Dijkstra search over reduced costs from each row; sequential by nature, so GPU
    input runs on a host copy).  As scipy: explicit zeros warn and, like infinite
    weights, are not edges.

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
    GPU input runs on a host copy.

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

    original = csgraph
    csgraph, on_gpu = _scipy_sparse(csgraph)
    if not (sp.issparse(csgraph) and csgraph.format == "csr"):
        raise TypeError("graph must be in CSR format")
    if not issubclass(csgraph.dtype.type, np.integer):
        raise ValueError("graph capacities must be integers")
    if source == sink:
        raise ValueError("source and sink vertices must differ")
    if csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("graph must be specified as a square matrix.")
    n = csgraph.shape[0]
    if source < 0 or source >= n:
        raise ValueError(f"source value ({source}) must be between 0 and {n - 1}")
    if sink < 0 or sink >= n:
        raise ValueError(f"sink value ({sink}) must be between 0 and {n - 1}")
    if method not in _FLOW_METHODS:
        raise ValueError(f"{method} method is not supported yet.")
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
    any negative edge).

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
    w = _host(w)
    ip, ix = _host(M.indptr), _host(M.indices)
    H = M if not M.on_gpu else Matrix(ip, ix, w, n, check=False)
    negative = lowest < 0
    if negative:  # a negative cycle anywhere raises, as scipy's Johnson reweighting
        _Search(H, w, False, True, bool(directed), np.inf, zero=True).run(
            H.with_values(w), np.arange(n), 1, sources_for_error=np.arange(n),
            need_parents=False)
    dist = np.full(max(K, 0), np.inf)
    preds = np.full((max(K, 0), n), SCIPY_NULL, np.int32)
    if K > 0:
        _yen(H, ip, ix, w, negative, lowest > 0, source, sink, dist, preds)
    found = int(np.sum(dist < np.inf))
    dist_out, pred_out = _like(M, dist[:found]), _like(M, preds[:found])
    return (dist_out, pred_out) if return_predecessors else dist_out


def _spur_search(H, w, negative, spur):
    """Distances and predecessors from ``spur`` with weights ``w`` (inf: no arc)."""
    search = _Search(H, w, False, negative, True, np.inf, zero=bool((w == 0).any()))
    d, parent = search.run(H.with_values(w), np.asarray([spur]), 1,
                           sources_for_error=np.asarray([spur]), need_parents=True)
    pred = np.where(parent >= 0, parent, SCIPY_NULL).astype(np.int32)
    return d, pred


class _FrontierSpur:
    """Spur searches by :func:`_spur_search` on a copy of the weights with the removed
    arcs set to inf (any weights: zero and negative ones too)."""

    def __init__(self, H, ip, ix, w0, negative, target):
        self.H, self.ip, self.ix, self.w0, self.negative = H, ip, ix, w0, negative
        self.target = target

    def __call__(self, start, gone, blocked):
        ip, ix, target = self.ip, self.ix, self.target
        w = self.w0.copy()
        if len(blocked):
            out = slice(ip[start], ip[start + 1])
            w[out][np.isin(ix[out], np.asarray(blocked))] = np.inf
        for node in gone:
            w[ip[node]:ip[node + 1]] = np.inf
        d, pred = _spur_search(self.H, w, self.negative, start)
        if not d[target] < np.inf:
            return d[target], None
        path = [target]
        while path[-1] != start:
            path.append(int(pred[path[-1]]))
        return d[target], np.asarray(path, np.int64)


def _yen(H, ip, ix, w0, negative, positive, source, sink, dist, preds):
    """Yen's loop; ``positive``: every weight > 0, so the spur searches are compiled A*
    searches towards the sink (:class:`spbfs.cpu.cs_dijkstra.SpurSearch`: one Dijkstra
    from the sink over the reversed arcs gives every vertex's distance to it, a lower
    bound once arcs are removed), else frontier searches."""
    if positive:
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
    (scipy's own conversion; CPU).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_from_dense(np.array([[0, 2.0], [np.inf, 0]])).toarray()
    array([[0., 2.],
           [0., 0.]])
    """
    return _scipy_tools.csgraph_from_dense(graph, null_value=null_value, nan_null=nan_null,
                                           infinity_null=infinity_null)


def csgraph_to_dense(csgraph, null_value=0):
    """A dense array of a sparse graph, as ``scipy.sparse.csgraph.csgraph_to_dense``
    (scipy's own conversion; CPU).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_to_dense(sp.csr_array([[0, 2.0], [0, 0]]), null_value=np.inf)
    array([[inf,  2.],
           [inf, inf]])
    """
    return _scipy_tools.csgraph_to_dense(csgraph, null_value=null_value)


def csgraph_masked_from_dense(graph, null_value=0, nan_null=True, infinity_null=True,
                              copy=True):
    """A masked array of a dense graph, as
    ``scipy.sparse.csgraph.csgraph_masked_from_dense`` (scipy's own conversion; CPU).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_masked_from_dense(np.array([[0, 2.0], [1.0, 0]])).mask.tolist()
    [[True, False], [False, True]]
    """
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
    (scipy's own conversion; CPU).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> csgraph.csgraph_to_masked(sp.csr_array([[0, 2.0], [0, 0]])).mask.tolist()
    [[True, False], [True, True]]
    """
    return _scipy_tools.csgraph_to_masked(csgraph)


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """Path lengths from a predecessor matrix, as
    ``scipy.sparse.csgraph.construct_dist_matrix`` (scipy's own; CPU).

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
    return _scipy_tools.construct_dist_matrix(graph, predecessors, directed=directed,
                                              null_value=null_value)


def reconstruct_path(csgraph, predecessors, directed=True):
    """The tree of a predecessor list, as ``scipy.sparse.csgraph.reconstruct_path``
    (scipy's own on the CPU; cupy input: the vectorised form :func:`breadth_first_tree`
    uses, on the device).

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
    if is_cupy(predecessors):
        return _tree(as_graph(csgraph), predecessors, directed)
    return _scipy_tools.reconstruct_path(csgraph, predecessors, directed=directed)
