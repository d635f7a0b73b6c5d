"""spbfs.semiring.greedy_colors: the CPU's one pass, the GPU's rounds and the generic rounds
(Jones and Plassmann's) against a direct greedy colouring."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring
from spbfs.cpu import backend as cpu_backend


def _backend(device):
    if device == "numpy":
        return cpu_backend
    from spbfs.gpu import backend

    return backend


def _expected(A, priority):
    """Vertex after vertex by decreasing priority, the smallest colour no coloured
    neighbour (self-loops aside) holds."""
    A = sp.csr_array(A)
    colour = [-1] * A.shape[0]
    for v in np.argsort(-priority, kind="stable").tolist():
        taken = {colour[u] for u in A.indices[A.indptr[v]:A.indptr[v + 1]].tolist() if u != v}
        colour[v] = next(c for c in range(len(taken) + 1) if c not in taken)
    return colour


@st.composite
def graphs(draw):
    """A symmetric pattern with self-loops and repeated values, and distinct priorities:
    floats, a permutation of the ids (ordered by one scatter) or other ints (sorted)."""
    n = draw(st.integers(1, 40))
    p = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p)
    dense = (upper | upper.T).astype(np.float64) * rng.integers(1, 3, (n, n))
    priority = rng.permutation(n)
    kind = draw(st.sampled_from(["floats", "permutation", "gap"]))
    if kind == "floats":
        priority = priority * 1.5
    elif kind == "gap":
        priority[priority == n - 1] = n + 1  # 0 .. n-2 and n+1: not a permutation
    return sp.csr_array(dense), priority


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "rounds"])
@given(case=graphs())
def test_greedy_colors_is_the_greedy_colouring(device, generic, case):
    A, priority = case
    if device == "cupy":
        import cupy
        import cupyx.scipy.sparse as csp

        A, priority = csp.csr_matrix(A), cupy.asarray(priority)
    with pytest.MonkeyPatch.context() as patch:
        if generic:  # the rounds: the path of a backend without it
            patch.delattr(_backend(device), "greedy_colors")
        got = to_host(semiring.greedy_colors(A, priority)).tolist()
    assert got == _expected(to_host(A.toarray()) if device == "cupy" else A.toarray(),
                            to_host(priority))


def test_greedy_colors_past_the_first_word_of_colours():
    """A 70-clique needs 70 colours: the rounds' bit sets span two 64-bit words."""
    A = sp.csr_array(np.ones((70, 70)) - np.eye(70))
    priority = np.arange(70)[::-1]
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(cpu_backend, "greedy_colors")
        rounds = semiring.greedy_colors(A, priority).tolist()
    assert rounds == semiring.greedy_colors(A, priority).tolist() == list(range(70))


@pytest.mark.gpu
def test_gpu_greedy_colors_past_its_colour_bits():
    """A vertex needing a colour past the GPU kernel's bits (one word here: a 70-clique)
    leaves the colouring to the rounds, whose colours are the same."""
    import cupy
    import cupyx.scipy.sparse as csp

    from spbfs.gpu import color

    A = csp.csr_matrix(cupy.ones((70, 70)) - cupy.eye(70))
    priority = cupy.arange(70)[::-1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(color, "COLOUR_WORDS", 1)
        assert semiring.greedy_colors(A, priority).tolist() == list(range(70))
    assert semiring.greedy_colors(A, priority).tolist() == list(range(70))


def test_greedy_colors_rejects_bad_arguments():
    with pytest.raises(ValueError, match="A must be square"):
        semiring.greedy_colors(sp.csr_array(np.ones((2, 3))), np.arange(2))
    with pytest.raises(ValueError, match="priority must be a 1-D array of length 3"):
        semiring.greedy_colors(sp.csr_array(np.eye(3)), np.arange(2))
