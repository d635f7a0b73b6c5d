"""spbfs.semiring.peel: the CPU worklist kernel and the generic rounds of products give
the same removals, rounds and folded values, checked against NetworkX."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import on_device, to_host
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
    with pytest.raises(ValueError, match="lockstep"):
        semiring.peel([(A, np.ones(3, np.int64))], np.ones(3, bool), max_rounds=2,
                      lockstep=False)
    with pytest.raises(ValueError, match="removed must hold distinct"):
        semiring.peel([(A, np.ones(3, np.int64))], np.array([False, True, True]),
                      np.array([0, 0]))


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


def _assert_same(got, want):
    """The same ``{vertex: round}`` and the same arrays after it."""
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_array_equal(g, w)


def _peel_on(xp, A, cap=None, dag=False, lockstep=True):
    """peel of ``A`` (two pairs, or one with min-folded labels on a DAG) with ``xp``'s arrays:
    ``({vertex: round}, active, the counts left, [values])``."""
    n = A.shape[0]
    indeg = xp.asarray(np.diff(A.tocsc().indptr).astype(np.int64))
    outdeg = xp.asarray(np.diff(A.indptr).astype(np.int64))
    active = xp.ones(n, bool)
    kw = {"lockstep": lockstep} if cap is None else {"max_rounds": cap}
    if xp is np:
        M, MT = A, A.T.tocsr()
    else:
        M, MT = on_device("cupy", A), on_device("cupy", A.T.tocsr())
    if dag:
        values = xp.asarray(np.random.default_rng(n).permutation(n).astype(np.int64))
        ids, rounds = semiring.peel([(M, indeg)], active, values=values,
                                    monoid=semiring.monoids.min, **kw)
        outs = (values,)
    else:
        ids, rounds = semiring.peel([(M, indeg), (MT, outdeg)], active, **kw)
        outs = ()
    got = dict(zip(to_host(ids).tolist(), to_host(rounds).tolist(), strict=True))
    left = to_host(active)
    counts = np.concatenate([to_host(indeg)[left], to_host(outdeg)[left]])
    return got, left, counts, *(to_host(a) for a in outs)


@pytest.mark.gpu
@pytest.mark.parametrize("block_arcs", [0, 3, 1 << 16], ids=["grid", "mixed", "block"])
@pytest.mark.parametrize("cap", [None, 1, 3])
@given(A=digraphs(), D=digraphs(dag=True))
def test_gpu_kernels_equal_the_cpu_kernel(block_arcs, cap, A, D):
    """The device queue (whole-grid rounds, one-block runs of rounds, or both: a round of
    more than 3 arcs to the grid) removes the vertices of the CPU worklist in the same
    rounds, folds the same minima, leaves the same vertices active."""
    import cupy

    import spbfs.gpu.peel

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spbfs.gpu.peel, "BLOCK_ARCS", block_arcs)
        for M, dag in ((A, False), (D, True)):
            want = _peel_on(np, M, cap, dag)
            got = _peel_on(cupy, M, cap, dag)
            _assert_same(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("any_from", [1 << 13, 2], ids=["one-launch", "wide-rounds-first"])
@given(A=digraphs(), D=digraphs(dag=True))
def test_gpu_any_order_peel_removes_what_the_cpu_kernel_does(any_from, A, D):
    """Without lock step (one launch, vertices removed as they reach zero; or rounds of
    more than two vertices in lock step first): the same removed set and counts left as
    the CPU worklist; on a DAG peeled by in-degrees also the same rounds (Kahn's levels)
    and minima; each vertex after the ones that brought it to zero (its in-neighbours,
    on the DAG)."""
    import cupy

    import spbfs.gpu.peel

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spbfs.gpu.peel, "ANY_FROM", any_from)
        _check_any_order(cupy, A, D)


def _one_pair_from_a_subset(xp, A, inactive, removed):
    """A one-pair peel without lock step of ``A`` whose ``inactive`` vertices are out from
    the start, except ``removed`` (just taken out, their arcs still to subtract): each
    active count is its number of arcs from active or removed vertices, the inactive ones'
    counts are arbitrary and must stay.  ``({vertex: round}, active, counts, values)``."""
    n = A.shape[0]
    rng = np.random.default_rng(n)
    out = inactive & ~removed
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    counts = np.bincount(A.indices[~out[rows]], minlength=n).astype(np.int64)
    counts[inactive] = rng.integers(-3, 9, int(inactive.sum()))
    values = rng.permutation(n).astype(np.int64)
    counts, values = xp.asarray(counts), xp.asarray(values)
    active = xp.asarray(~inactive)
    M = A if xp is np else on_device("cupy", A)
    ids, rounds = semiring.peel([(M, counts)], active, xp.asarray(np.flatnonzero(removed)),
                                values=values, monoid=semiring.monoids.min, lockstep=False)
    got = dict(zip(to_host(ids).tolist(), to_host(rounds).tolist(), strict=True))
    return got, to_host(active), to_host(counts), to_host(values)


@pytest.mark.gpu
@pytest.mark.parametrize("any_from", [1 << 13, 2], ids=["one-launch", "wide-rounds-first"])
@given(A=digraphs(), data=st.data())
def test_gpu_any_order_peel_of_one_matrix_leaves_inactive_vertices_alone(any_from, A, data):
    """One matrix without lock step (the kernel reads no target's active byte: it works on
    copies, the inactive counts out of reach): the CPU worklist's removals, rounds, counts
    and minima, and the inactive vertices' counts and values as they were."""
    import cupy

    import spbfs.gpu.peel

    n = A.shape[0]
    inactive = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    removed = inactive & np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spbfs.gpu.peel, "ANY_FROM", any_from)
        got = _one_pair_from_a_subset(cupy, A, inactive, removed)
    want = _one_pair_from_a_subset(np, A, inactive, removed)
    _assert_same(got, want)


@pytest.mark.gpu
def test_gpu_any_order_peel_of_one_matrix_with_arcs_between_removed_vertices():
    """3,000 removed vertices (more than the grid has warps), 2,112 of them with an arc to
    another removed one, which has the only arc to the one active vertex: that arc carries
    round 1 and the removed vertex's own value, as on the CPU."""
    import cupy

    n = 3001
    rows, cols = list(range(2112)) + [2900], [2900] * 2112 + [3000]
    A = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    removed = np.arange(3000)
    results = []
    for xp in (np, cupy):
        counts = xp.zeros(n, np.int64)
        counts[3000] = 1
        active = xp.zeros(n, bool)
        active[3000] = True
        values = xp.arange(n, dtype=np.int64)
        M = A if xp is np else on_device("cupy", A)
        ids, rounds = semiring.peel([(M, counts)], active, xp.asarray(removed), values=values,
                                    monoid=semiring.monoids.min, lockstep=False)
        results.append((to_host(ids).tolist(), to_host(rounds).tolist(), to_host(values)))
    (want_ids, want_rounds, want_values), (ids, rounds, values) = results
    assert (ids, rounds) == (want_ids, want_rounds) == ([3000], [1])
    np.testing.assert_array_equal(values, want_values)
    assert values[3000] == 2900


@pytest.mark.gpu
def test_gpu_strong_components_of_a_dag_with_self_loops_and_a_long_row():
    """A DAG plus a self-loop on every vertex, one vertex with 2**20 + 1 in-arcs (more
    chunks than the grid has warps, its self-loop first): the trim's heights and so the
    labels are the CPU's."""
    m = 1 << 20
    n = m + 2
    middle = np.arange(2, m + 2)
    rows = np.r_[np.zeros(m, int), middle, np.arange(n)]
    cols = np.r_[middle, np.ones(m, int), np.arange(n)]
    G = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    want = spbfs.connected_components(G, connection="strong")
    got = spbfs.connected_components(on_device("cupy", G), connection="strong")
    assert got[0] == want[0] == n
    np.testing.assert_array_equal(to_host(got[1]), want[1])


def _check_any_order(cupy, A, D):
    want = _peel_on(np, A, lockstep=False)
    got = _peel_on(cupy, A, lockstep=False)
    assert set(got[0]) == set(want[0])
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_array_equal(g, w)
    want = _peel_on(np, D, dag=True, lockstep=False)
    got = _peel_on(cupy, D, dag=True, lockstep=False)
    _assert_same(got, want)
    order = {v: i for i, v in enumerate(got[0])}
    rows, cols = D.nonzero()
    assert all(order[u] < order[v] for u, v in zip(rows.tolist(), cols.tolist(), strict=True))


@pytest.mark.gpu
def test_gpu_any_order_peel_of_a_long_chain_and_a_hub():
    """A 2**16-vertex path (as many rounds as vertices) and a hub of 2**17 arcs peel in
    one launch to Kahn's levels."""
    import cupy

    n = 1 << 16
    chain = sp.csr_array(sp.eye(n, k=1, format="csr"))
    m = 1 << 17
    star = sp.csr_array((np.ones(m), (np.zeros(m, int), np.arange(1, m + 1))),
                        shape=(m + 1, m + 1))
    for A, want in ((chain, np.arange(n)), (star, np.r_[0, np.ones(m, np.int64)])):
        M = on_device("cupy", A)
        indeg = cupy.asarray(np.diff(A.tocsc().indptr).astype(np.int64))
        active = cupy.ones(A.shape[0], bool)
        ids, rounds = semiring.peel([(M, indeg)], active, lockstep=False)
        height = np.full(A.shape[0], -1)
        height[to_host(ids)] = to_host(rounds)
        np.testing.assert_array_equal(height, want)
        assert not bool(active.any())


@pytest.mark.gpu
def test_gpu_strong_components_of_a_deep_dag_and_a_digraph():
    """A 2**14-vertex DAG (hundreds of rounds: one-block runs after whole-grid rounds) and
    a digraph with a giant strong component, against scipy's partition."""
    import cupy
    from scipy.sparse import csgraph

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(14, 16, 1)
    n = 1 << 14
    G = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    for A in (sp.triu(G + G.T, 1).tocsr(), G):
        k, labels = spbfs.connected_components(on_device("cupy", A), connection="strong")
        want_k, want = csgraph.connected_components(A, connection="strong")
        labels = cupy.asnumpy(labels)
        assert k == want_k
        assert len(set(zip(labels.tolist(), want.tolist(), strict=True))) == k


@st.composite
def symmetric_graphs(draw):
    """A symmetric pattern without self-loops (duplicates once) and counts: the degrees,
    or any non-negative counts."""
    A = draw(digraphs())
    A = ((A + A.T) > 0).astype(np.float64)
    A.setdiag(0)
    A.eliminate_zeros()
    A = sp.csr_array(A)
    degrees = np.diff(A.indptr).astype(np.int64)
    other = np.array(draw(st.lists(st.integers(0, 6), min_size=A.shape[0],
                                   max_size=A.shape[0])), np.int64)
    return A, degrees, other


@pytest.mark.parametrize("device", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
@given(case=symmetric_graphs())
def test_peel_levels_are_core_numbers_and_the_kernel_is_the_generic_path(device, case):
    A, degrees, other = case
    G = nx.from_scipy_sparse_array(A)
    want = [nx.core_number(G)[v] for v in range(A.shape[0])]
    if device == "cupy":
        import cupy

        degrees = cupy.asarray(degrees)
    assert to_host(semiring.peel_levels(on_device(device, A), degrees)).tolist() == want
    # any counts: the CPU's buckets give the levels of the generic path's peels
    buckets = semiring.peel_levels(A, other.copy()).tolist()
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(spbfs.cpu.backend, "peel_levels")
        assert semiring.peel_levels(A, other.copy()).tolist() == buckets


def test_peel_levels_arguments_name_themselves():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(TypeError, match="counts"):
        semiring.peel_levels(A, np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="non-negative"):
        semiring.peel_levels(A, np.array([1, -1, 0]))
    with pytest.raises(ValueError, match="square"):
        semiring.peel_levels(sp.csr_array(np.ones((2, 3))), np.zeros(2, np.int64))
