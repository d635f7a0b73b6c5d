"""spbfs.algorithms.cores.core_number against NetworkX's core_number as the oracle."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st

from spbfs.algorithms.cores import core_number

nx = pytest.importorskip("networkx")


def _without_loops(A):
    A = sp.csr_array(A)
    A.setdiag(0)
    A.eliminate_zeros()
    return A


@given(graphs(max_n=60, max_m=400), st.booleans())
def test_core_numbers_are_networkx(A, directed):
    """Symmetric patterns (peeled by spbfs.semiring.peel) and directed ones (a pair of
    opposite arcs counting twice), isolated vertices included."""
    A = _without_loops(A)
    n = A.shape[0]
    if directed:
        G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    else:
        A = _without_loops(A + A.T)
        G = nx.from_scipy_sparse_array(A)
    want = nx.core_number(G)
    got = core_number(A, directed=directed)
    assert got.dtype == np.int64
    assert got.tolist() == [want[v] for v in range(n)]
