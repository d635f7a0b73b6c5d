"""Reading graphs from files: Matrix Market and whitespace edge lists."""

from __future__ import annotations

import os
import re

import numpy as np
import scipy.sparse as sp

__all__ = ["id_base", "is_matrix_market", "needs_relabel", "read_graph"]

# Horizontal white space: what ``bytes.split()`` splits on, less the newline.
_H = rb"[ \t\r\x0b\x0c]"
# The first line that is neither blank nor a comment.
_FIRST_DATA = re.compile(rb"(?m)^" + _H + rb"*([^\s#%].*)$")
# Whole-line comments, and (group 1) any other non-blank line whose column count is wrong:
# one pass over the text removes the first and finds the second.
_LINE = rb"(?m)^" + _H + rb"*(?:[#%%].*$|(?!\S+(?:" + _H + rb"+\S+){%d}" + _H + rb"*$)(\S.*$))"
# Vertex ids are int64: 0 <= id < 2**63.
_ID_LIMIT = 1 << 63
# Auto relabelling: ids span more than twice the distinct ids, plus this many spare.
_SLACK = 1024


class _BadLine(Exception):
    pass


def is_matrix_market(path):
    """Whether :func:`read_graph` reads ``path`` as Matrix Market (by its name).

    ``.mtx``, ``.mtx.gz`` and ``.mtx.bz2`` (any case) are Matrix Market; every
    other file is an edge list.

    Examples
    --------
    >>> is_matrix_market("g.MTX.gz"), is_matrix_market("g.txt")
    (True, False)
    """
    return os.fspath(path).lower().endswith((".mtx", ".mtx.gz", ".mtx.bz2"))


def id_base(path):
    """The id that ``path`` writes for vertex 0 of :func:`read_graph`'s matrix.

    Matrix Market indices are 1-based: the file's id ``i`` is vertex
    ``i - 1``.  An edge list's ids are taken as written: id ``i`` is vertex
    ``i`` (unless the file is relabelled; then ``ids`` maps them).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    int
        1 for a Matrix Market file, 0 for an edge list.

    Examples
    --------
    >>> id_base("graph.mtx"), id_base("graph.mtx.bz2"), id_base("snap.txt")
    (1, 1, 0)
    """
    return 1 if is_matrix_market(path) else 0


def needs_relabel(n, k):
    """Whether ``read_graph(..., relabel=None)`` relabels a graph.

    The automatic rule relabels when ``n > 2 * k + 1024``: the id range
    ``0 .. n-1`` is more than twice as large as the ``k`` distinct ids the
    edges mention (plus 1024 spare), so most of ``n`` would be isolated
    vertices that no edge mentions.

    Parameters
    ----------
    n : int
        The size of the id range: largest id + 1 for an edge list, the
        declared size for a Matrix Market file.
    k : int
        The number of distinct vertex ids that the edges mention.

    Returns
    -------
    bool

    Examples
    --------
    >>> needs_relabel(2**40, 1000), needs_relabel(3000, 1000), needs_relabel(3025, 1000)
    (True, False, True)
    """
    return int(n) > 2 * int(k) + _SLACK


def read_graph(path, *, relabel=None, return_ids=False):
    """Read a graph file as a scipy CSR array.

    ``.mtx`` (optionally ``.gz``/``.bz2``) goes through :func:`scipy.io.mmread`
    (a symmetric Matrix Market file comes back with both triangles; vertex
    ``i`` is the file's 1-based index ``i + 1``, see :func:`id_base`).  Any other file is an edge
    list: one edge ``u v`` (or ``u v weight``) per line, whitespace
    separated, lines starting with ``#`` or ``%`` ignored (SNAP style);
    vertex ids are integers in ``0 .. 2**63 - 1`` and ``n = max id + 1``.

    Files whose ids are sparse in their range (SNAP files with ids up to
    ``2**40`` and a thousand edges) are *relabelled*: the ``k`` distinct ids
    that occur in some edge become vertices ``0 .. k-1`` in increasing order,
    so the matrix is ``k x k`` rather than ``2**40 x 2**40``.

    Parameters
    ----------
    path : str or os.PathLike
        The graph file.
    relabel : bool or None, optional
        ``None`` (default): relabel when :func:`needs_relabel` says so
        (id range ``n > 2 * k + 1024`` for ``k`` distinct ids).  ``True``:
        always relabel (vertices that no edge mentions are dropped).
        ``False``: never (a huge id range then means a huge matrix).
    return_ids : bool, optional
        Also return the id map.

    Returns
    -------
    A : scipy.sparse.csr_array
        Square; ``A[i, j]`` is the weight of edge ``i -> j`` (1 for an edge
        list without weights; duplicate edges are summed).
    ids : numpy.ndarray of int64 or None
        Only with ``return_ids=True``: ``ids[i]`` is the original id of
        vertex ``i`` (sorted, so ``np.searchsorted(ids, original)`` maps
        back); for Matrix Market its 0-based index (``ids + id_base(path)``
        are the file's ids); ``None`` when no relabelling happened.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        A malformed file, a non-square matrix, a vertex id that is not an
        integer in ``0 .. 2**63 - 1`` (naming the file, line and column).
    TypeError
        ``relabel`` is not ``None``, ``True`` or ``False``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("# a comment\\n0 1\\n1 2\\n")
    >>> read_graph(path).toarray().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]

    SNAP-style ids far above the edge count are relabelled:

    >>> _ = open(path, "w").write("1099511627776 7\\n7 1099511627775\\n")
    >>> A, ids = read_graph(path, return_ids=True)
    >>> A.shape, ids.tolist()
    ((3, 3), [7, 1099511627775, 1099511627776])
    >>> A.toarray().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]

    Dense ids are kept as they are (``ids`` is ``None``):

    >>> _ = open(path, "w").write("0 1\\n5 2\\n")
    >>> A, ids = read_graph(path, return_ids=True)
    >>> A.shape, ids
    ((6, 6), None)
    """
    if relabel not in (None, True, False):
        raise TypeError(f"relabel must be None, True or False, got {relabel!r}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"graph file not found: {path}")
    if is_matrix_market(path):
        u, v, w, n = _read_matrix_market(path)
    else:
        u, v, w, n = _read_edge_list(path)
    ids = None
    if relabel or (relabel is None and _auto_relabel(u, v, n)):
        ids, inverse = np.unique(np.concatenate((u, v)), return_inverse=True)
        inverse = inverse.reshape(-1)
        u, v, n = inverse[:u.size], inverse[u.size:], ids.size
    A = sp.coo_array((w, (u, v)), shape=(n, n)).tocsr()
    return (A, ids) if return_ids else A


def _auto_relabel(u, v, n):
    """``needs_relabel(n, distinct ids)`` without an n-sized array when n is huge."""
    if n <= _SLACK:
        return False
    if needs_relabel(n, 2 * u.size):  # at most 2m distinct ids: no need to count them
        return True
    seen = np.zeros(n, dtype=bool)  # n <= 4m + 1024 bytes here
    seen[u] = True
    seen[v] = True
    return needs_relabel(n, np.count_nonzero(seen))


def _read_matrix_market(path):
    import scipy.io

    try:
        rows, cols, entries, fmt, _, symmetry = scipy.io.mminfo(path)
    except (ValueError, OSError, EOFError, IndexError, TypeError) as e:
        raise ValueError(f"{path}: not a valid Matrix Market file ({e})") from None
    if rows != cols:
        raise ValueError(f"{path}: the matrix must be square, got shape {(rows, cols)}")
    # Each stored entry takes at least 4 bytes ("1 1\n"; an array value "0\n": 2): refuse a
    # header that would make scipy allocate for more than an uncompressed file can hold.
    if path.lower().endswith(".mtx"):
        if fmt == "array":  # a symmetric array stores one triangle; skew: without diagonal
            least = 2 * (entries if symmetry == "general" else rows * (rows - 1) // 2) - 1
        else:
            least = 4 * entries - 1
        if least > os.path.getsize(path):
            raise ValueError(f"{path}: truncated Matrix Market file: the header declares "
                             f"{entries} entries of a {rows} x {cols} matrix")
    try:
        M = scipy.io.mmread(path)
    except (ValueError, OSError, EOFError, IndexError, TypeError, OverflowError) as e:
        raise ValueError(f"{path}: malformed Matrix Market file ({e})") from None
    M = sp.coo_array(M)  # an "array" file: zeros are no edge
    u = M.row.astype(np.int64, copy=False)
    v = M.col.astype(np.int64, copy=False)
    return u, v, M.data, rows


def _read_edge_list(path):
    with open(path, "rb") as f:
        text = f.read()
    first = _FIRST_DATA.search(text)
    if first is None:
        raise ValueError(f"{path}: no edges found")
    ncols = len(first.group(1).split())
    if ncols not in (2, 3):
        raise ValueError(f"{path}, line {_line_of(text, first.start(1))}: expected 2 or 3 "
                         f"columns (u v [weight]), got {ncols}")

    def strip(match):  # a comment goes; a line with the wrong column count stops the pass
        if match.group(1) is not None:
            raise _BadLine(match.start(1))
        return b""

    try:
        text = re.sub(_LINE % (ncols - 1), strip, text)
    except _BadLine as bad:
        pos = bad.args[0]
        end = text.find(b"\n", pos)
        got = len(text[pos:None if end < 0 else end].split())
        raise ValueError(f"{path}, line {_line_of(text, pos)}: every line must have {ncols} "
                         f"columns (u v{' weight' if ncols == 3 else ''}), got {got}") from None
    tokens = text.split()
    try:
        u = np.array(tokens[0::ncols], dtype=np.int64)
        v = np.array(tokens[1::ncols], dtype=np.int64)
        w = np.array(tokens[2::3], dtype=np.float64) if ncols == 3 else np.ones(u.size)
    except (ValueError, OverflowError):
        raise _token_error(path, text, ncols) from None
    if min(u.min(), v.min()) < 0:
        raise _token_error(path, text, ncols)
    return u, v, w, int(max(u.max(), v.max())) + 1


def _line_of(text, pos):
    return text.count(b"\n", 0, pos) + 1


def _token_error(path, text, ncols):
    """The ValueError for the first bad token (slow: only after a vectorised parse failed).

    Comment lines were replaced by empty lines, so line numbers are the file's.
    """
    for lineno, line in enumerate(text.split(b"\n"), 1):
        for col, token in enumerate(line.split(), 1):
            shown = token.decode(errors="replace")
            where = f"{path}, line {lineno}, column {col}"
            if col == 3:
                try:
                    float(token)
                except ValueError:
                    return ValueError(f"{where}: weight {shown!r} is not numeric")
                continue
            try:
                x = int(token)
            except ValueError:
                return ValueError(f"{where}: vertex id {shown!r} is not an integer "
                                  f"(not a numeric edge list)")
            if x < 0:
                return ValueError(f"{where}: vertex id {x}: ids must be non-negative")
            if x >= _ID_LIMIT:
                return ValueError(f"{where}: vertex id {x} does not fit in int64 "
                                  f"(ids must be below 2**63)")
    return ValueError(f"{path}: not a numeric edge list")  # pragma: no cover
