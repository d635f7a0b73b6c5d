"""The CPU's dense pull (:mod:`spbfs.cpu.pull`) against the generic kernel it stands in for,
bit for bit, and the cases it leaves to that kernel."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import multigraphs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import products, pull
from spbfs.semiring import Semiring, monoids, ops, plus_pair, plus_times

PLUS_FIRST = Semiring(monoids.plus, ops.first)


@pytest.fixture
def split_small(monkeypatch):
    """Every pull split over 3 threads, however small."""
    monkeypatch.setattr(pull, "PARALLEL_ENTRIES", 0)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


def _both(T, semiring, x_present, x, mask=None):
    data = T.data.astype(np.float64)
    args = (T.indptr, T.indices, data, x_present, x, semiring, mask, False, np.float64)
    return pull.spmv(*args), products.spmv(*args)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once, kept
@given(multigraphs(max_n=50, max_m=300, weights="float"), st.integers(0, 2**32 - 1),
       st.sampled_from([PLUS_FIRST, plus_times]))
def test_dense_sum_equals_the_generic_pull(split_small, A, seed, semiring):
    n = A.shape[0]
    x = np.random.default_rng(seed).standard_normal(n)
    (p, v), (p0, v0) = _both(A, semiring, np.ones(n, bool), x)
    np.testing.assert_array_equal(p, p0)
    assert v.tobytes() == v0.tobytes()  # the same sums in the same order
    values = A.data.astype(np.float64) if semiring is plus_times else np.ones(A.nnz)
    # y[j] sums x over row j's entries (the arrays stand for a transpose); zeros count
    expected = sp.csr_array((values, A.indices, A.indptr), shape=A.shape) @ x
    np.testing.assert_allclose(v, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["absent", "mask", "pair", "float32"])
def test_other_cases_take_the_generic_pull(case, monkeypatch):
    A = sp.random(30, 30, density=0.2, random_state=1, format="csr")
    n = 30
    x = np.arange(n, dtype=np.float64)
    present = np.ones(n, bool)
    semiring, mask = PLUS_FIRST, None
    if case == "absent":
        present[::3] = False
    elif case == "mask":
        mask = np.arange(n) % 2 == 0
    elif case == "pair":
        semiring = plus_pair
    else:
        x = x.astype(np.float32)
    monkeypatch.setattr(pull, "_sum_first", None)  # the dense sum would fail
    monkeypatch.setattr(pull, "_sum_times", None)
    (p, v), (p0, v0) = _both(A, semiring, present, x, mask)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(v, v0)


def test_eight_threads_on_one_matrix(split_small):
    """Eight callers at once, each pull split over three threads: every answer right."""
    A = sp.random(3000, 3000, density=0.002, random_state=2, format="csr")
    xs = [np.random.default_rng(k).random(3000) for k in range(8)]
    expected = [products.spmv(A.indptr, A.indices, A.data, np.ones(3000, bool), x, plus_times,
                              None, False, np.float64)[1] for x in xs]

    def one(k):
        got = pull.spmv(A.indptr, A.indices, A.data, np.ones(3000, bool), xs[k % 8],
                        plus_times, None, False, np.float64)[1]
        return got.tobytes() == expected[k % 8].tobytes()

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(64)))
