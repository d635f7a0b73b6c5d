"""spbfs.semiring.quotient: the CPU's one pass and the generic two products give ``P.T A
P`` of the labels' one-hot ``P`` (a dense oracle), canonical, on both devices."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring


@st.composite
def labelled_matrices(draw):
    n = draw(st.integers(0, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, 5 * n)) if n else 0
    A = sp.csr_array((rng.integers(-3, 4, m).astype(np.float64),
                      (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
    if draw(st.booleans()):
        A.sum_duplicates()
    k = draw(st.integers(max(n and 1, 0), max(n, 1)))
    labels = rng.integers(0, k, n) if n else np.zeros(0, np.int64)
    return A, labels, k


def _backend(device):
    return importlib.import_module("spbfs.gpu.backend" if device == "cupy"
                                   else "spbfs.cpu.backend")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=labelled_matrices())
def test_quotient_is_the_one_hot_product(device, generic, case):
    A, labels, k = case
    xp = np if device == "numpy" else pytest.importorskip("cupy")
    M = semiring.Matrix.from_any(A if device == "numpy" else
                                 pytest.importorskip("cupyx.scipy.sparse").csr_matrix(A))
    with pytest.MonkeyPatch.context() as patch:
        if generic:
            patch.delattr(_backend(device), "quotient", raising=False)
        Q = semiring.quotient(M, xp.asarray(labels), k)
    P = np.zeros((A.shape[0], k))
    P[np.arange(A.shape[0]), labels] = 1.0
    expected = P.T @ A.toarray() @ P
    got = sp.csr_array((to_host(Q.data), to_host(Q.indices), to_host(Q.indptr)),
                       shape=(k, k))
    np.testing.assert_allclose(got.toarray(), expected)
    assert got.has_sorted_indices and Q.shape == (k, k)
    # stored exactly where some stored entry of A lands (a sum of zero stays stored)
    stored = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape).toarray()
    assert got.nnz == int(((P.T @ stored @ P) != 0).sum())


def test_quotient_rejects_bad_labels():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="labels must lie in"):
        semiring.quotient(A, np.array([0, 1, 2]), 2)
    with pytest.raises(ValueError, match="labels must be a 1-D array of length 3"):
        semiring.quotient(A, np.array([0, 1]), 2)
    with pytest.raises(TypeError, match="labels must be of an integer dtype"):
        semiring.quotient(A, np.array([0.0, 1.0, 1.0]), 2)
    with pytest.raises(ValueError, match="A must be square"):
        semiring.quotient(sp.csr_array(np.ones((2, 3))), np.array([0, 1]), 2)


def test_quotient_split_over_threads(monkeypatch):
    """Labels split over three threads by their entries, the rows closed up after: the
    same arrays as one thread's."""
    import spbfs
    from spbfs.cpu import quotient as cpu_quotient

    monkeypatch.setattr(cpu_quotient, "PARALLEL_ENTRIES", 1)
    rng = np.random.default_rng(4)
    n, m, k = 3000, 40000, 700
    A = sp.csr_array((rng.random(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    A.sum_duplicates()
    labels = rng.integers(0, k, n)
    got = []
    for threads in (1, 3):
        spbfs.set_num_threads(threads)
        try:
            Q = semiring.quotient(A, labels, k)
        finally:
            spbfs.set_num_threads(None)
        got.append([Q.indptr.tolist(), Q.indices.tolist(), Q.data.tolist()])
    assert got[0] == got[1]
    P = sp.csr_array((np.ones(n), (np.arange(n), labels)), shape=(n, k))
    np.testing.assert_allclose(sp.csr_array((got[1][2], got[1][1], got[1][0]),
                                            shape=(k, k)).toarray(), (P.T @ A @ P).toarray())
