"""spbfs.triangles against networkx.triangles as the oracle (numpy in CI, cupy on the device).

Symmetric graphs come with self-loops (ignored), duplicates (counted once), explicit zeros
(edges) and isolated vertices.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, multigraphs, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs.algorithms.triangles import triangle_count, triangles


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
    got = triangles(on_device(device, S))
    assert type(got).__module__.split(".")[0] == device
    got = to_host(got)
    assert got.dtype == np.int64 and got.shape == (S.shape[0],)
    np.testing.assert_array_equal(got, _nx_triangles(S))


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=30, max_m=250, symmetric=True))
def test_total_count_matches_networkx(device, A):
    """triangle_count is NetworkX's per-vertex counts summed over 3, an int."""
    got = triangle_count(on_device(device, A))
    assert type(got) is int and got == int(_nx_triangles(A).sum()) // 3


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
    np.testing.assert_array_equal(to_host(triangles(on_device(device, S))), _nx_triangles(S))


def test_kronecker_graph():
    from spbfs.graph500.generate import kronecker

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

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(12, edgefactor=16, seed=2)
    S = _symmetric(sp.coo_array((np.ones(u.size), (u, v)), shape=(4096, 4096))).tocsr()
    S.sum_duplicates()
    got = triangles(on_device("cupy", S))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), triangles(S))
