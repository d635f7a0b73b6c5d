"""Reading graphs from files: Matrix Market and whitespace edge lists."""

from __future__ import annotations

import os
import re

import numpy as np
import scipy.sparse as sp

__all__ = ["read_graph"]

_COMMENT = re.compile(rb"(?m)^[ \t]*[#%].*$")


def read_graph(path):
    """Read a graph file as a scipy CSR array.

    ``.mtx`` (optionally ``.gz``/``.bz2``) goes through :func:`scipy.io.mmread`
    (a symmetric Matrix Market file comes back with both triangles).  Any
    other file is an edge list: one edge ``u v`` (or ``u v weight``) per line,
    whitespace separated, lines starting with ``#`` or ``%`` ignored (SNAP
    style); vertex ids are 0-based and ``n = max id + 1``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("# a comment\\n0 1\\n1 2\\n")
    >>> read_graph(path).toarray().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"graph file not found: {path}")
    name = path.lower()
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        import scipy.io

        A = scipy.io.mmread(path)
        A = sp.csr_array(A)
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"{path}: the matrix must be square, got shape {A.shape}")
        return A
    return _read_edge_list(path)


def _read_edge_list(path):
    with open(path, "rb") as f:
        text = _COMMENT.sub(b"", f.read())
    lines = text.split(b"\n", 64)
    first = next((ln for ln in lines if ln.strip()), b"")
    ncols = len(first.split())
    if ncols == 0:
        raise ValueError(f"{path}: no edges found")
    if ncols not in (2, 3):
        raise ValueError(f"{path}: expected 2 or 3 columns (u v [weight]), got {ncols}")
    tokens = text.split()
    if len(tokens) % ncols:
        raise ValueError(f"{path}: every line must have {ncols} columns")
    try:
        table = np.array(tokens, dtype=np.float64 if ncols == 3 else np.int64)
    except ValueError as e:
        raise ValueError(f"{path}: not a numeric edge list ({e})") from None
    table = table.reshape(-1, ncols)
    u = table[:, 0].astype(np.int64)
    v = table[:, 1].astype(np.int64)
    if u.size and min(u.min(), v.min()) < 0:
        raise ValueError(f"{path}: vertex ids must be non-negative")
    w = table[:, 2] if ncols == 3 else np.ones(u.size)
    n = int(max(u.max(), v.max())) + 1 if u.size else 0
    return sp.coo_array((w, (u, v)), shape=(n, n)).tocsr()
