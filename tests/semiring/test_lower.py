"""spbfs.semiring.lower_pattern: the CPU's two passes and the generic renumbering give the
strict lower triangle of ``A[order][:, order]``'s pattern, sorted, on both devices."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring


@st.composite
def ordered_graphs(draw):
    n = draw(st.integers(0, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, 6 * n)) if n else 0
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)   # duplicates and self-loops too
    A = sp.csr_array((rng.random(m), (r, c)), shape=(n, n))
    return A, rng.permutation(n)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=ordered_graphs())
def test_lower_pattern_is_the_renumbered_lower_triangle(device, generic, case):
    A, order = case
    xp = np if device == "numpy" else pytest.importorskip("cupy")
    backend = importlib.import_module("spbfs.gpu.backend" if device == "cupy"
                                      else "spbfs.cpu.backend")
    with pytest.MonkeyPatch.context() as patch:
        if generic:
            patch.delattr(backend, "csr_lower_permuted", raising=False)
        L = semiring.lower_pattern(on_device(device, A), xp.asarray(order), np.int32)
    pattern = (A.toarray() != 0) | (sp.csr_array((np.ones(A.nnz), A.indices, A.indptr),
                                                 shape=A.shape).toarray() != 0)
    want = np.tril(pattern[np.ix_(order, order)], -1).astype(np.int32)
    got = sp.csr_array((to_host(L.data), to_host(L.indices), to_host(L.indptr)),
                       shape=A.shape)
    assert got.dtype == np.int32 and got.has_sorted_indices
    np.testing.assert_array_equal(got.toarray(), want)


def test_lower_pattern_rejects_what_is_not_a_permutation():
    A = sp.csr_array(np.ones((3, 3)))
    for bad in ([0, 0, 1], [0, 1], [0, 1, 3]):
        with pytest.raises(ValueError, match="order"):
            semiring.lower_pattern(A, np.array(bad))
    with pytest.raises(ValueError, match="square"):
        semiring.lower_pattern(sp.csr_array(np.ones((2, 3))), np.array([0, 1]))


def test_lower_pattern_split_over_threads(monkeypatch):
    """Rows split over three threads by their entries: the same as one thread's."""
    import spbfs
    from spbfs.cpu import permute

    monkeypatch.setattr(permute, "PARALLEL_ENTRIES", 1)
    rng = np.random.default_rng(11)
    n, m = 2000, 30000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    order = np.argsort(np.diff(A.indptr), kind="stable")
    got = []
    for threads in (1, 3):
        spbfs.set_num_threads(threads)
        try:
            got.append(semiring.lower_pattern(A, order, np.int32).to_scipy())
        finally:
            spbfs.set_num_threads(None)
    want = sp.tril(A[order][:, order] != 0, -1)
    for L in got:
        assert L.has_sorted_indices and (L != want).nnz == 0


@pytest.mark.parametrize("n", [1500, 10000])
def test_lower_pattern_long_rows_sorted_by_digits(n):
    """Rows longer than the insertion sort's take the radix sort: one pass of digits
    below 2**11 rows (the result copied back), two above."""
    rng = np.random.default_rng(n)
    m = 8 * n
    hubs = rng.integers(0, 5, m // 2)  # five rows with thousands of entries
    r = np.r_[hubs, rng.integers(0, n, m - hubs.size)]
    c = rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    order = rng.permutation(n)
    L = semiring.lower_pattern(A, order, np.int32).to_scipy()
    want = sp.tril(A[order][:, order] != 0, -1)
    assert L.has_sorted_indices and (L != want).nnz == 0
    assert np.diff(L.indptr).max() > 500
