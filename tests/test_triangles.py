"""spbfs.triangles against networkx.triangles as the oracle (numpy in CI, cupy on the device).

Symmetric graphs come with self-loops (ignored), duplicates (counted once), explicit zeros
(edges) and isolated vertices.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st

from spbfs.triangles import triangles

DEVICES = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def _on(device, A):
    """A scipy matrix on the device: cupyx CSR (float64 values, int32 indices) for cupy."""
    if device == "numpy":
        return A
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix(A, dtype=np.float64)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return csp.csr_matrix(A)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@st.composite
def multigraphs(draw, max_n=40, max_m=200, weights="int", symmetric=False):
    """``graphs()`` with duplicated entries (other values), rows in random order and, for
    ``symmetric=True``, every entry also stored transposed: a CSR that keeps its
    duplicates and explicit zeros (scipy's tocsr would sum them)."""
    A = sp.coo_array(draw(graphs(max_n=max_n, max_m=max_m, weights=weights)))
    n, rows, cols, data = A.shape[0], A.row, A.col, A.data
    if rows.size:
        pick = np.array(draw(st.lists(st.integers(0, rows.size - 1), max_size=12)), np.int64)
        extra = np.array(draw(st.lists(st.integers(0, 3), min_size=pick.size,
                                       max_size=pick.size)), data.dtype)
        rows, cols = np.concatenate([rows, rows[pick]]), np.concatenate([cols, cols[pick]])
        data = np.concatenate([data, extra])
    if symmetric:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        data = np.concatenate([data, data])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    order = rng.permutation(rows.size)
    order = order[np.argsort(rows[order], kind="stable")]  # rows grouped, columns unsorted
    idt = draw(st.sampled_from([np.int32, np.int64]))
    indptr = np.zeros(n + 1, idt)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return sp.csr_array((data[order], cols[order].astype(idt), indptr), shape=(n, n))


def _symmetric(A):
    """Every stored entry also stored transposed, duplicates and explicit zeros kept."""
    coo = sp.coo_array(A)
    return sp.coo_array((np.concatenate([coo.data, coo.data]),
                         (np.concatenate([coo.row, coo.col]),
                          np.concatenate([coo.col, coo.row]))), shape=A.shape).tocsr()


def _nx_triangles(A):
    coo = sp.coo_array(A)
    G = nx.Graph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_edges_from(zip(coo.row.tolist(), coo.col.tolist(), strict=True))
    t = nx.triangles(G)
    return np.array([t[i] for i in range(A.shape[0])], dtype=np.int64)


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=30, max_m=250, symmetric=True))
def test_matches_networkx(device, A):
    S = A  # symmetric, duplicates and explicit zeros stored
    got = triangles(_on(device, S))
    assert type(got).__module__.split(".")[0] == device
    got = _host(got)
    assert got.dtype == np.int64 and got.shape == (S.shape[0],)
    np.testing.assert_array_equal(got, _nx_triangles(S))


@pytest.mark.parametrize("device", DEVICES)
@given(n=st.integers(1, 12), data=st.data())
def test_dense_graphs(device, n, data):
    # many triangles per vertex: complete graphs with a few edges removed
    D = np.ones((n, n)) - np.eye(n)
    drop = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                              max_size=n))
    for i, j in drop:
        D[i, j] = D[j, i] = 0
    S = sp.csr_array(D)
    np.testing.assert_array_equal(_host(triangles(_on(device, S))), _nx_triangles(S))


def test_kronecker_graph():
    from spbfs.generate import kronecker

    u, v = kronecker(9, edgefactor=16, seed=5)
    S = _symmetric(sp.coo_array((np.ones(u.size), (u, v)), shape=(512, 512)))
    got = triangles(S)
    np.testing.assert_array_equal(got, _nx_triangles(S))
    assert got.sum() % 3 == 0


def test_small_and_dense_inputs():
    assert triangles(sp.csr_array((0, 0))).shape == (0,)
    np.testing.assert_array_equal(triangles(sp.csr_array(np.ones((1, 1)))), [0])
    K4 = np.ones((4, 4)) - np.eye(4)
    np.testing.assert_array_equal(triangles(K4), [3, 3, 3, 3])
    K4[0, 1] = K4[1, 0] = np.nan  # dense: NaN is no edge
    np.testing.assert_array_equal(triangles(K4), [1, 1, 2, 2])


def test_explicit_zeros_are_edges():
    A = sp.csr_array((np.array([0.0, 0, 1, 1, 5, 5]),
                      (np.array([0, 1, 1, 2, 0, 2]), np.array([1, 0, 2, 1, 2, 0]))),
                     shape=(3, 3))
    np.testing.assert_array_equal(triangles(A), [1, 1, 1])


@pytest.mark.parametrize("A, exc, words", [
    (sp.csr_array(np.array([[0, 1], [0, 0]])), ValueError, "A must be symmetric"),
    # a stored zero is an edge: (0, 1) stored without (1, 0) is directed
    (sp.csr_array((np.array([0.0]), (np.array([0]), np.array([1]))), shape=(2, 2)),
     ValueError, "A must be symmetric"),
    (sp.csr_array((2, 3)), ValueError, "A must be square"),
    (np.zeros(3), ValueError, "A must be 2-D"),
    ("graph", TypeError, "A must be"),
])
def test_bad_input(A, exc, words):
    with pytest.raises(exc, match=words):
        triangles(A)


@pytest.mark.gpu
def test_gpu_matches_cpu_on_kronecker():
    import cupy

    from spbfs.generate import kronecker

    u, v = kronecker(12, edgefactor=16, seed=2)
    S = _symmetric(sp.coo_array((np.ones(u.size), (u, v)), shape=(4096, 4096))).tocsr()
    S.sum_duplicates()
    got = triangles(_on("cupy", S))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), triangles(S))
