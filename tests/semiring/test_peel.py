"""spbfs.semiring.peel: the CPU worklist kernel and the generic rounds of products give
the same removals, rounds and folded values, checked against NetworkX."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import spbfs
import spbfs.cpu.backend
from spbfs import semiring


@st.composite
def digraphs(draw, dag=False):
    n = draw(st.integers(1, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=4 * n))
    if dag:
        pairs = [(min(u, v), max(u, v)) for u, v in pairs if u != v]
    u = np.array([p[0] for p in pairs], np.int64)
    v = np.array([p[1] for p in pairs], np.int64)
    return sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))   # duplicates summed


def _run(A, generic, monkeypatch, **kw):
    if generic:
        monkeypatch.delattr(spbfs.cpu.backend, "peel")
    n = A.shape[0]
    indeg = np.diff(A.tocsc().indptr).astype(np.int64)
    outdeg = np.diff(A.indptr).astype(np.int64)
    active = np.ones(n, bool)
    ids, rounds = semiring.peel([(A, indeg), (A.T.tocsr(), outdeg)], active, **kw)
    monkeypatch.undo()
    return ids, rounds, active, indeg, outdeg


@given(digraphs())
def test_kernel_and_generic_rounds_agree(A):
    with pytest.MonkeyPatch.context() as mp:
        k_ids, k_rounds, k_active, k_in, k_out = _run(A, False, mp)
        g_ids, g_rounds, g_active, g_in, g_out = _run(A, True, mp)
    assert sorted(k_ids.tolist()) == sorted(g_ids.tolist())
    assert dict(zip(k_ids.tolist(), k_rounds.tolist(), strict=True)) == dict(zip(g_ids.tolist(),
                                                                    g_rounds.tolist(), strict=True))
    np.testing.assert_array_equal(k_active, g_active)
    np.testing.assert_array_equal(k_in[k_active], g_in[g_active])
    np.testing.assert_array_equal(k_out[k_active], g_out[g_active])
    # what stays has an in- and an out-arc inside what stays (the 2-trimmed core)
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)   # self-loops count
    core = G.subgraph(np.flatnonzero(k_active).tolist())
    assert all(core.in_degree(v) and core.out_degree(v) for v in core)


@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(A=digraphs(dag=True))
def test_rounds_are_topological_generations_and_min_folds_ancestors(generic, A):
    n = A.shape[0]
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    G.add_nodes_from(range(n))
    expected = {v: g for g, gen in enumerate(nx.topological_generations(G)) for v in gen}
    labels = np.random.default_rng(n).permutation(n).astype(np.int64)
    with pytest.MonkeyPatch.context() as mp:
        if generic:
            mp.delattr(spbfs.cpu.backend, "peel")
        values = labels.copy()
        active = np.ones(n, bool)
        indeg = np.diff(A.tocsc().indptr).astype(np.int64)
        ids, rounds = semiring.peel([(A, indeg)], active, values=values,
                                    monoid=semiring.monoids.min)
    assert not active.any()
    assert dict(zip(ids.tolist(), rounds.tolist(), strict=True)) == expected
    for v in range(n):
        assert values[v] == min(labels[[v, *nx.ancestors(G, v)]])


def test_bad_arguments_name_themselves():
    A = sp.csr_array(np.eye(3, k=1))
    with pytest.raises(ValueError, match="pairs"):
        semiring.peel([], np.ones(3, bool))
    with pytest.raises(TypeError, match="degrees"):
        semiring.peel([(A, np.ones(3, np.int32))], np.ones(3, bool))
    with pytest.raises(TypeError, match="active"):
        semiring.peel([(A, np.ones(3, np.int64))], np.ones(3, np.int8))
    with pytest.raises(ValueError, match="values and monoid"):
        semiring.peel([(A, np.ones(3, np.int64))], np.ones(3, bool), values=np.zeros(3))


def test_eight_threads_peel_one_matrix():
    """Strong components (trim and numbering by peel) of one matrix from 8 threads."""
    from scipy.sparse import csgraph

    A = sp.random_array((300, 300), density=0.01, rng=np.random.default_rng(5), format="csr")
    want = csgraph.connected_components(A, connection="strong")[0]

    def job(_):
        return all(spbfs.connected_components(A, connection="strong")[0] == want
                   for _ in range(5))

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(job, range(8)))
