"""What the single- and many-source searches share: the prepared form of an input graph and
Beamer's direction rule (both below :mod:`~spbfs.algorithms.bfs` and
:mod:`~spbfs.algorithms.msbfs`, so neither imports the other)."""

from __future__ import annotations

import numpy as np

from ..core.policy import beamer_pull
from ..core.seam import LevelSearch
from ..semiring import Matrix, ewise_mult, monoids, ops, reduce

__all__ = ["ALPHA", "BEAMER_ALPHA", "BETA", "as_graph", "beamer_pull", "by_masks",
           "check_undirected", "is_undirected", "prepare"]

#: Beamer's defaults: push -> pull when frontier edges exceed unexplored edges / ALPHA,
#: pull -> push when the frontier has fewer than n / BETA vertices.  A level-search engine
#: may prefer another ALPHA (:attr:`spbfs.semiring.LevelSearch.alpha`).  ``ALPHA`` is the
#: public name (``spbfs.bfs``'s and ``spbfs.dist``'s default).
BEAMER_ALPHA = ALPHA = LevelSearch.alpha
BETA = 18.0


def as_graph(A):
    """``A`` in a form :meth:`Matrix.from_any` reads with scipy.sparse.csgraph's meaning:
    the one conversion of every public algorithm's input (through :func:`prepare`, or
    :func:`spbfs.connected_components` and :mod:`spbfs.csgraph` directly).

    Lists become arrays; a masked array becomes a scipy CSR array of its
    unmasked entries (zeros included: masked entries are never edges), as
    ``csgraph_from_masked``; a BSR matrix becomes CSR without its stored zeros, which are
    mostly its blocks' padding (scipy's ``validate_graph`` from 1.18).  Anything else is
    returned as it is (a CSR, CSC or COO matrix keeps its explicit zeros as edges).

    Examples
    --------
    >>> import numpy as np
    >>> G = as_graph(np.ma.masked_array([[0.0, 2.0], [0.0, 0.0]], mask=[[True, False],
    ...                                                                  [False, True]]))
    >>> G.toarray(), G.nnz
    (array([[0., 2.],
           [0., 0.]]), 2)
    >>> import scipy.sparse as sp
    >>> as_graph(sp.bsr_array(np.eye(4), blocksize=(2, 2))).nnz  # 8 stored, 4 of them padding
    4
    """
    if isinstance(A, (list, tuple)):
        return np.asarray(A)
    if np.ma.isMaskedArray(A):
        import scipy.sparse as sp

        data = np.asarray(np.ma.getdata(A))
        if data.ndim != 2:
            raise ValueError(f"A must be 2-D, got {data.ndim}-D")
        r, c = np.nonzero(~np.ma.getmaskarray(A))
        return sp.csr_array((data[r, c], (r, c)), shape=data.shape)
    if getattr(A, "format", None) == "bsr" and hasattr(A, "eliminate_zeros"):
        A = A.tocsr()
        A.eliminate_zeros()
    return A


def prepare(A, directed: bool = True, *, values: bool = True) -> Matrix:
    """Check ``A`` and return the :class:`~spbfs.semiring.Matrix` BFS runs on.

    ``A`` is read as scipy.sparse.csgraph reads it (:func:`as_graph`): a stored entry of
    a sparse matrix is an edge (an explicit zero too; a BSR matrix's stored zeros, its
    blocks' padding, are not), a dense array's zero, NaN and inf entries are not edges,
    and a masked array's unmasked entries are (its masked ones never).

    With ``directed=False`` every edge is usable both ways (as scipy's
    ``directed=False``): ``A`` itself when it is already symmetric (values included,
    unless ``values=False`` says that only the pattern will be read), else ``A`` and
    its reversed edges.  There is no need to call this: every function
    caches the prepared form of a scipy/cupyx sparse input itself (see
    :func:`spbfs.clear_cache`), so a repeated plain call costs what a call on
    the prepared Matrix costs.  Useful to keep one object for a dense input.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> M = prepare(sp.csr_array(([1], ([0], [1])), shape=(2, 2)), directed=False)
    >>> M.nnz, M.symmetric
    (2, True)
    """
    M = Matrix.from_any(as_graph(A))
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square (a graph's adjacency matrix), got shape {M.shape}")
    return M if directed else M.symmetrized(values)


#: Relative difference up to which :func:`check_undirected` takes a weight and its
#: transpose's as equal: sums of the same weights in another order (``P.T @ B @ P`` of a
#: symmetric ``B``) differ in their last bits.  For float64; narrower floats allow 16 of
#: their own rounding steps (:func:`_symmetry_rtol`).
SYMMETRY_RTOL = 1e-9


def _symmetry_rtol(dtype) -> float:
    """:data:`SYMMETRY_RTOL`, or 16 rounding steps of a float narrower than float64 (a
    float32 matrix's duplicates summed in another order differ by about 1e-7)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize < 8:
        return max(SYMMETRY_RTOL, 16 * float(np.finfo(dtype).eps))
    return SYMMETRY_RTOL


def check_undirected(M, name: str = "A", *, values: bool = False):
    """``M`` (canonical: sorted rows, no duplicates) if it is an undirected graph's
    matrix, else ``ValueError: {name} must be symmetric (an undirected graph) ...``.

    The pattern must equal its transpose's; with ``values=True`` (a function that reads
    the weights) the values too, to a relative :data:`SYMMETRY_RTOL`.  The pattern's
    answer is computed once per pattern and kept with it
    (:meth:`~spbfs.semiring.Pattern.equals_transpose`), so a repeated call on the same
    input makes no second pass over the pattern; a distributed matrix (which keeps no
    pattern object) compares the entries both it and its transpose hold.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> M = prepare(sp.csr_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2))).canonical()
    >>> check_undirected(M) is M
    True
    >>> check_undirected(prepare(sp.csr_array(([1.0], ([0], [1])), shape=(2, 2))))
    Traceback (most recent call last):
        ...
    ValueError: A must be symmetric (an undirected graph): its pattern differs from the \
pattern of A.T; pass A + A.T for the undirected version of a directed graph
    """
    if not is_undirected(M):
        raise ValueError(f"{name} must be symmetric (an undirected graph): its pattern "
                         f"differs from the pattern of {name}.T; pass {name} + {name}.T for "
                         f"the undirected version of a directed graph")
    if values and M.nnz and not _values_symmetric(M):
        raise ValueError(f"{name} must be symmetric (an undirected graph): its values "
                         f"differ from those of {name}.T")
    return M


def is_undirected(M) -> bool:
    """Whether ``M``'s pattern equals its transpose's (an undirected graph): known where
    ``M`` is marked symmetric, else found once per pattern
    (:meth:`~spbfs.semiring.Pattern.equals_transpose`) or, for a distributed matrix, once
    per graph by the entries both it and its transpose hold.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> is_undirected(prepare(sp.csr_array(([1.0, 2.0], ([0, 1], [1, 0])), shape=(2, 2))))
    True
    >>> is_undirected(prepare(sp.csr_array(([1.0], ([0], [1])), shape=(2, 2))))
    False
    """
    if M.symmetric:
        return True
    if by_masks(M):
        return M.derived("pattern equals its transpose's",
                         lambda: M.nnz == M.T.nnz == ewise_mult(M, M.T, ops.pair).nnz)
    return M.pattern.equals_transpose()


def _values_symmetric(M) -> bool:
    """Whether the values of ``M`` (canonical, its pattern symmetric) equal their
    transpose's to a relative :func:`_symmetry_rtol` of its dtype (a NaN never does)."""
    if by_masks(M):   # the patterns are equal: every entry has its transposed partner
        if M.symmetric:   # an undirected distributed graph stores each edge's one weight
            return True
        M = M.astype(np.float64)
        D = ewise_mult(M, M.T, ops.minus)
        largest = max(abs(float(reduce(M, monoids.min))), abs(float(reduce(M, monoids.max))))
        worst = max(abs(float(reduce(D, monoids.min))), abs(float(reduce(D, monoids.max))))
        return worst <= SYMMETRY_RTOL * largest
    T = M.T
    if T is M:  # known symmetric (values included): nothing to compare
        return True
    xp = M.xp
    rtol = _symmetry_rtol(M.dtype)
    a = M.data.astype(np.float64, copy=False)
    b = T.canonical().data.astype(np.float64, copy=False)  # the same pattern: M's order
    differ = a != b   # most symmetric inputs are exactly so: the rest looked at alone
    if not bool(differ.any()):
        return True
    a, b = a[differ], b[differ]
    return bool((xp.abs(a - b) <= rtol * xp.maximum(xp.abs(a), xp.abs(b))).all())


def by_masks(M) -> bool:
    """Whether ``M``'s vertex arrays take element-wise work, reductions and the
    operations only, not lists of vertex ids (a distributed graph's: its arrays are
    spread over ranks): then the algorithms keep vertex sets as boolean masks.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> by_masks(prepare(sp.eye(2, format="csr")))
    False
    """
    return bool(getattr(M, "distributed", False))
