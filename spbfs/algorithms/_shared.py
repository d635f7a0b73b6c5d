"""What the single- and many-source searches share: the prepared form of an input graph and
Beamer's direction rule (both below :mod:`~spbfs.algorithms.bfs` and
:mod:`~spbfs.algorithms.msbfs`, so neither imports the other)."""

from __future__ import annotations

from ..core.policy import beamer_pull
from ..core.seam import LevelSearch
from ..semiring import Matrix

__all__ = ["ALPHA", "BEAMER_ALPHA", "BETA", "beamer_pull", "by_masks", "prepare"]

#: Beamer's defaults: push -> pull when frontier edges exceed unexplored edges / ALPHA,
#: pull -> push when the frontier has fewer than n / BETA vertices.  A level-search engine
#: may prefer another ALPHA (:attr:`spbfs.semiring.LevelSearch.alpha`).  ``ALPHA`` is the
#: public name (``spbfs.bfs``'s and ``spbfs.dist``'s default).
BEAMER_ALPHA = ALPHA = LevelSearch.alpha
BETA = 18.0


def prepare(A, directed: bool = True, *, values: bool = True) -> Matrix:
    """Check ``A`` and return the :class:`~spbfs.semiring.Matrix` BFS runs on.

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
    M = Matrix.from_any(A)
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square (a graph's adjacency matrix), got shape {M.shape}")
    return M if directed else M.symmetrized(values)


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
