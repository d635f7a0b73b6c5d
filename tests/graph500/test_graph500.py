"""Tests of spbfs.graph500: BFS validation, TEPS edge count, statistics and output block."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph
from scipy.stats import hmean

from spbfs.graph500.generate import kronecker
from spbfs.graph500.validation import (
    CHECKS,
    ValidationError,
    ValidationResult,
    _statistics,
    format_result_block,
    summarize,
    traversed_edges,
    tree_depths,
    validate,
)

# --------------------------------------------------------------------------------------------
# oracle: scipy BFS
# --------------------------------------------------------------------------------------------


def adjacency(u, v, n):
    a = sp.coo_matrix((np.ones(u.size), (u, v)), shape=(n, n)).tocsr()
    return (a + a.T).tocsr()


def scipy_bfs(u, v, n, source):
    """Graph500-convention parents and levels from scipy's breadth_first_order."""
    a = adjacency(u, v, n)
    _, pred = csgraph.breadth_first_order(a, source, directed=False, return_predecessors=True)
    parents = np.where(pred < 0, -1, pred).astype(np.int64)
    parents[source] = source
    dist = csgraph.shortest_path(a, unweighted=True, directed=False, indices=source)
    levels = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    return parents, levels


def random_graph(seed, n=300, m=280):
    """Sparse random multigraph with several components, self-loops and duplicate edges."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    loops = rng.integers(0, n, 10)
    u = np.concatenate([u, loops, u[:15]])
    v = np.concatenate([v, loops, v[:15]])
    perm = rng.permutation(u.size)
    return u[perm], v[perm], n


def largest_component_source(u, v, n):
    _, labels = csgraph.connected_components(adjacency(u, v, n), directed=False)
    big = np.argmax(np.bincount(labels))
    return int(np.flatnonzero(labels == big)[0]), labels


@pytest.fixture(scope="module")
def kron():
    """Scale-10 Kronecker graph and a scipy BFS from a vertex of its giant component."""
    u, v = kronecker(10, edgefactor=8, seed=4)
    n = 2**10
    source, labels = largest_component_source(u, v, n)
    parents, levels = scipy_bfs(u, v, n, source)
    return u, v, n, source, parents, levels, labels


def failed(u, v, source, parents, levels=None):
    return validate(u, v, source, parents, levels, raise_on_error=False).failures


# --------------------------------------------------------------------------------------------
# correct results pass
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_scipy_bfs_validates_on_random_graphs(seed):
    u, v, n = random_graph(seed)
    source, labels = largest_component_source(u, v, n)
    parents, levels = scipy_bfs(u, v, n, source)
    r = validate(u, v, source, parents, levels)
    assert r == ValidationResult(ok=True, failures={}, nedge=r.nedge)
    in_comp = labels[u] == labels[source]
    assert r.nedge == int(in_comp.sum())
    # also without levels, with int32 arrays, and with the edges reversed
    assert validate(v.astype(np.int32), u, source, parents.astype(np.int32)).ok


def test_scipy_bfs_validates_on_kronecker(kron):
    u, v, n, source, parents, levels, labels = kron
    r = validate(u, v, source, parents, levels)
    assert r.ok
    np.testing.assert_array_equal(tree_depths(parents, source), levels)
    in_comp = labels[u] == labels[source]
    assert r.nedge == int(in_comp.sum())
    loops = int((in_comp & (u == v)).sum())
    assert loops > 0
    assert validate(u, v, source, parents, self_loops=False).nedge == r.nedge - loops


def test_isolated_source():
    u, v = np.array([1, 2]), np.array([2, 3])
    parents = np.array([0, -1, -1, -1])
    r = validate(u, v, 0, parents, np.array([0, -1, -1, -1]))
    assert r.ok and r.nedge == 0


def test_any_valid_bfs_tree_passes():
    # a square 0-1-2-3-0 plus chord-free tail: vertex 2 may take parent 1 or 3
    u, v = np.array([0, 1, 2, 3, 2]), np.array([1, 2, 3, 0, 4])
    for p2 in (1, 3):
        parents = np.array([0, 0, p2, 0, 2])
        assert validate(u, v, 0, parents, np.array([0, 1, 2, 1, 3])).ok


# --------------------------------------------------------------------------------------------
# each corruption fails the expected checks only
# --------------------------------------------------------------------------------------------


def children_count(parents, source):
    p = parents[parents >= 0]
    return np.bincount(p, minlength=parents.size) - (np.arange(parents.size) == source)


def test_cycle(kron):
    u, v, n, source, parents, levels, _ = kron
    kids = children_count(parents, source)
    # a vertex a at depth >= 2 with a child c; point a at c: a <-> c is a 2-cycle
    a = int(np.flatnonzero((levels >= 2) & (kids > 0))[0])
    c = int(np.flatnonzero(parents == a)[0])
    bad = parents.copy()
    bad[a] = c
    f = failed(u, v, source, bad)
    assert set(f) == {"tree"}
    assert f["tree"] >= 2
    assert set(failed(u, v, source, bad, levels)) == {"tree"}


def test_longer_cycle_detected():
    # 0 - 1 - 2 - 3 - 4 - 5 - 6 path; 3 -> 4 -> 5 -> 6 -> 3 pointer cycle (length 4 and 3)
    u = np.array([0, 1, 2, 3, 4, 5, 3])
    v = np.array([1, 2, 3, 4, 5, 6, 6])
    for cyc in ([4, 5, 6, 3], [5, 6, 4]):
        parents = np.array([0, 0, 1, 2, 3, 4, 5])
        members = np.array(cyc)
        parents[members] = np.roll(members, 1)
        f = failed(u, v, 0, parents)
        assert "tree" in f and f["tree"] >= len(cyc)


def test_wrong_parent_not_an_edge(kron):
    u, v, n, source, parents, levels, _ = kron
    a = adjacency(u, v, n)
    # w at level >= 2 and a vertex z at level(w) - 1 that is not adjacent to w
    w = int(np.flatnonzero(levels >= 2)[0])
    neighbours = a[w].indices
    cand = np.setdiff1d(np.flatnonzero(levels == levels[w] - 1), neighbours)
    bad = parents.copy()
    bad[w] = cand[0]
    assert failed(u, v, source, bad) == {"parent_edge": 1}
    assert failed(u, v, source, bad, levels) == {"parent_edge": 1}


def test_level_off_by_one(kron):
    u, v, n, source, parents, levels, _ = kron
    kids = children_count(parents, source)
    leaf = int(np.flatnonzero((levels >= 1) & (kids == 0))[0])
    bad = levels.copy()
    bad[leaf] += 1
    assert failed(u, v, source, parents, bad) == {"levels": 1, "tree_edge_levels": 1}
    bad = levels.copy()
    bad[source] = 1
    f = failed(u, v, source, parents, bad)
    assert set(f) == {"levels", "tree_edge_levels"} and f["levels"] == 1


def test_unreachable_vertex_marked_reached(kron):
    u, v, n, source, parents, levels, _ = kron
    nonloop = u != v
    deg = np.bincount(np.concatenate([u[nonloop], v[nonloop]]), minlength=n)
    x = int(np.flatnonzero((levels < 0) & (deg > 0))[0])
    bad = parents.copy()
    bad[x] = source
    f = failed(u, v, source, bad)
    assert set(f) == {"parent_edge", "spans_component"}
    assert f["parent_edge"] == 1 and f["spans_component"] >= 1
    # an isolated vertex claimed by the tree: only the parent edge is missing
    iso = int(
        np.flatnonzero((levels < 0) & (np.bincount(np.concatenate([u, v]), minlength=n) == 0))[0]
    )
    bad = parents.copy()
    bad[iso] = source
    assert failed(u, v, source, bad) == {"parent_edge": 1}


def test_reached_vertex_marked_unreachable(kron):
    u, v, n, source, parents, levels, _ = kron
    kids = children_count(parents, source)
    leaf = int(np.flatnonzero((levels >= 1) & (kids == 0))[0])
    bad = parents.copy()
    bad[leaf] = -1
    assert set(failed(u, v, source, bad)) == {"spans_component"}
    bad_levels = levels.copy()
    bad_levels[leaf] = -1
    assert set(failed(u, v, source, bad, bad_levels)) == {"spans_component"}
    # the same with an inner vertex orphans its subtree as well
    inner = int(np.flatnonzero((levels >= 1) & (kids > 0))[0])
    bad = parents.copy()
    bad[inner] = -1
    assert set(failed(u, v, source, bad)) == {"tree", "spans_component"}


@pytest.mark.parametrize("value", ["minus_one", "child", "other"])
def test_source_parent_wrong(kron, value):
    u, v, n, source, parents, levels, _ = kron
    bad = parents.copy()
    child = int(np.flatnonzero((parents == source) & (np.arange(n) != source))[0])
    bad[source] = {"minus_one": -1, "child": child, "other": (source + 1) % n}[value]
    assert failed(u, v, source, bad) == {"source": 1}
    assert failed(u, v, source, bad, levels) == {"source": 1}


def test_parent_out_of_range(kron):
    u, v, n, source, parents, levels, _ = kron
    for value in (n, -2, 2**40):
        bad = parents.copy()
        bad[3] = value
        assert failed(u, v, source, bad, levels) == {"parent_range": 1}


def test_non_source_own_parent():
    u, v = np.array([0, 1, 2]), np.array([1, 2, 3])
    parents = np.array([0, 0, 2, 2])  # 2 claims itself; 3 hangs below it
    assert failed(u, v, 0, parents) == {"tree": 2, "parent_edge": 1}


def test_valid_tree_that_is_not_bfs():
    # path 0-1-2-3 with the chord 0-3; a DFS tree along the path is a tree but not a BFS tree
    u, v = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3])
    parents = np.array([0, 0, 1, 2])
    assert failed(u, v, 0, parents) == {"edge_levels": 1}
    assert failed(u, v, 0, parents, np.array([0, 1, 2, 3])) == {"edge_levels": 1}


def test_raise_on_error():
    u, v = np.array([0, 1]), np.array([1, 2])
    with pytest.raises(ValidationError, match="parent_edge") as info:
        validate(u, v, 0, np.array([0, 0, 0]))
    assert isinstance(info.value, ValueError)
    assert info.value.result.failures == {"parent_edge": 1}
    assert not info.value.result.ok


def test_validation_error_names_the_root_and_each_failed_rule():
    u, v = np.array([0, 1, 2]), np.array([1, 2, 3])
    with pytest.raises(ValidationError) as info:
        validate(u, v, 1, np.array([1, 1, 1, 1]), np.array([1, 0, 1, 1]))
    msg = str(info.value)
    assert msg.startswith("BFS validation failed for root 1: ")
    assert info.value.root == 1
    # vertex 3 claims the root as parent: its tree edge is not an input edge
    assert "parent_edge (1: tree edges (parents[w], w) that are not edges of the input)" in msg
    assert set(info.value.result.failures) <= set(CHECKS)
    for rule in info.value.result.failures:
        assert f"{rule} ({info.value.result.failures[rule]}: {CHECKS[rule]})" in msg


def test_checks_documented():
    assert list(CHECKS) == [
        "parent_range",
        "source",
        "tree",
        "levels",
        "tree_edge_levels",
        "edge_levels",
        "spans_component",
        "parent_edge",
    ]


# --------------------------------------------------------------------------------------------
# input errors
# --------------------------------------------------------------------------------------------


def test_validate_input_errors():
    u, v, p = np.array([0, 1]), np.array([1, 2]), np.array([0, 0, 1])
    with pytest.raises(ValueError, match="source"):
        validate(u, v, 3, p)
    with pytest.raises(TypeError, match="source"):
        validate(u, v, 0.0, p)
    with pytest.raises(TypeError, match="parents"):
        validate(u, v, 0, p.astype(float))
    with pytest.raises(ValueError, match="parents"):
        validate(u, v, 0, p[None, :])
    with pytest.raises(ValueError, match="parents"):
        validate(u, v, 0, np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="same length"):
        validate(u, v[:1], 0, p)
    with pytest.raises(ValueError, match="u and v"):
        validate(u, np.array([1, 3]), 0, p)
    with pytest.raises(TypeError, match="u"):
        validate(u.astype(float), v, 0, p)
    with pytest.raises(ValueError, match="levels"):
        validate(u, v, 0, p, levels=np.array([0, 1]))
    with pytest.raises(TypeError, match="levels"):
        validate(u, v, 0, p, levels=np.array([0.0, 1.0, 2.0]))


# --------------------------------------------------------------------------------------------
# the TEPS edge count
# --------------------------------------------------------------------------------------------


def test_traversed_edges_counts_tuples():
    # component {0,1,2}: 0-1, 1-2, 2-0, duplicate 1-0, self-loop 2-2; unreached 3-4, loop 4-4
    u = np.array([0, 1, 2, 1, 2, 3, 4])
    v = np.array([1, 2, 0, 0, 2, 4, 4])
    levels = np.array([0, 1, 1, -1, -1])
    parents = np.array([0, 0, 0, -1, -1])
    assert traversed_edges(u, v, levels) == 5
    assert traversed_edges(u, v, parents) == 5
    assert traversed_edges(u, v, levels, self_loops=False) == 4
    assert validate(u, v, 0, parents, levels).nedge == 5
    assert validate(u, v, 0, parents, levels, self_loops=False).nedge == 4
    with pytest.raises(ValueError, match="u and v"):
        traversed_edges(u, v, levels[:3])
    with pytest.raises(TypeError, match="levels_or_parents"):
        traversed_edges(u, v, levels.astype(float))


# --------------------------------------------------------------------------------------------
# statistics and the output block
# --------------------------------------------------------------------------------------------


def test_statistics_like_reference():
    s = _statistics([8.0, 1, 7, 2, 6, 3, 5, 4])  # n = 8
    assert (s["min"], s["firstquartile"], s["median"], s["thirdquartile"], s["max"]) == (
        1.0,
        2.5,
        4.5,
        6.5,
        8.0,
    )
    assert s["mean"] == 4.5
    assert s["stddev"] == pytest.approx(np.std(np.arange(1, 9), ddof=1))
    s = _statistics([5.0, 4, 3, 2, 1])  # n = 5: quartiles fall on elements
    assert (s["firstquartile"], s["median"], s["thirdquartile"]) == (2.0, 3.0, 4.0)
    assert s["stddev"] == pytest.approx(math.sqrt(2.5))
    s = _statistics(np.arange(64.0))  # NBFS = 64
    assert (s["firstquartile"], s["median"], s["thirdquartile"]) == (15.5, 31.5, 47.5)
    s = _statistics([2.0])
    assert s["min"] == s["median"] == s["max"] == s["mean"] == 2.0
    assert math.isnan(s["stddev"])


def test_summarize_values():
    rng = np.random.default_rng(3)
    times = rng.uniform(0.1, 1.0, 64)
    nedges = rng.integers(10**6, 2 * 10**6, 64)
    d = summarize(
        20,
        16,
        1.5,
        times,
        nedges,
        True,
        graph_generation=2.0,
        num_mpi_processes=4,
        validate_times=times * 3,
    )
    teps = nedges / times
    assert d["SCALE"] == 20 and d["edgefactor"] == 16 and d["NBFS"] == 64
    assert d["graph_generation"] == 2.0 and d["num_mpi_processes"] == 4
    assert d["construction_time"] == 1.5
    assert d["min_time"] == times.min() and d["max_time"] == times.max()
    assert d["mean_time"] == pytest.approx(times.mean())
    assert d["stddev_time"] == pytest.approx(times.std(ddof=1))
    assert d["median_nedge"] == pytest.approx(np.median(nedges))
    assert d["min_TEPS"] == pytest.approx(teps.min())
    assert d["max_TEPS"] == pytest.approx(teps.max())
    assert d["harmonic_mean_TEPS"] == pytest.approx(hmean(teps))
    spe = times / nedges
    expected_hsd = spe.std(ddof=1) / (spe.mean() ** 2 * math.sqrt(63))
    assert d["harmonic_stddev_TEPS"] == pytest.approx(expected_hsd)
    # quartiles of TEPS are the inverted quartiles of seconds per edge
    xx = np.sort(spe)
    assert d["firstquartile_TEPS"] == pytest.approx(2 / (xx[63 - 15] + xx[63 - 16]))
    assert d["thirdquartile_TEPS"] == pytest.approx(2 / (xx[15] + xx[16]))
    assert d["min_TEPS"] <= d["firstquartile_TEPS"] <= d["median_TEPS"]
    assert d["median_TEPS"] <= d["thirdquartile_TEPS"] <= d["max_TEPS"]
    assert d["mean_validate"] == pytest.approx(3 * times.mean())
    assert d["validation"] == "passed"
    assert summarize(20, 16, 1.5, times, nedges, False)["validation"] == "failed"


def test_harmonic_mean_teps_hand_computed():
    # TEPS 100, 50, 25 -> harmonic mean 3 / (1/100 + 1/50 + 1/25) = 300 / 7
    d = summarize(5, 16, 0.0, [1.0, 2.0, 4.0], [100, 100, 100], True)
    assert d["harmonic_mean_TEPS"] == pytest.approx(300 / 7)
    spe = np.array([0.01, 0.02, 0.04])
    sd = math.sqrt(((spe - spe.mean()) ** 2).sum() / 2)
    assert d["harmonic_stddev_TEPS"] == pytest.approx(sd / (spe.mean() ** 2 * math.sqrt(2)))
    assert (d["min_TEPS"], d["median_TEPS"], d["max_TEPS"]) == pytest.approx((25, 50, 100))
    one = summarize(5, 16, 0.0, [2.0], [10], True)
    assert one["harmonic_mean_TEPS"] == 5.0 and math.isnan(one["harmonic_stddev_TEPS"])


def test_summarize_key_order():
    d = summarize(10, 16, 0.5, [1.0, 2.0], [10, 20], True)
    stats = ["min", "firstquartile", "median", "thirdquartile", "max"]
    assert list(d) == (
        ["SCALE", "edgefactor", "NBFS", "num_mpi_processes", "construction_time"]
        + [f"{s}_time" for s in [*stats, "mean", "stddev"]]
        + [f"{s}_nedge" for s in [*stats, "mean", "stddev"]]
        + [f"{s}_TEPS" for s in [*stats, "harmonic_mean", "harmonic_stddev"]]
        + ["validation"]
    )


def test_summarize_errors():
    with pytest.raises(ValueError, match="times"):
        summarize(10, 16, 0.5, [], [], True)
    with pytest.raises(ValueError, match="times"):
        summarize(10, 16, 0.5, [1.0, -1.0], [1, 1], True)
    with pytest.raises(ValueError, match="nedges"):
        summarize(10, 16, 0.5, [1.0, 1.0], [1, 0], True)
    with pytest.raises(ValueError, match="same length"):
        summarize(10, 16, 0.5, [1.0, 1.0], [1], True)
    with pytest.raises(TypeError, match="scale"):
        summarize(10.5, 16, 0.5, [1.0], [1], True)
    with pytest.raises(ValueError, match="construction_time"):
        summarize(10, 16, -0.5, [1.0], [1], True)
    with pytest.raises(ValueError, match="num_mpi_processes"):
        summarize(10, 16, 0.5, [1.0], [1], True, num_mpi_processes=0)
    with pytest.raises(ValueError, match="validate_times"):
        summarize(10, 16, 0.5, [1.0], [1], True, validate_times=[float("nan")])


def test_format_result_block_roundtrip():
    d = summarize(12, 16, 0.25, [0.5, 0.25, 1.0, 0.125], [1000, 900, 1100, 1000], True)
    text = format_result_block(d)
    lines = text.splitlines()
    assert text.endswith("\n") and len(lines) == len(d)
    assert lines[0] == "SCALE:" + " " * 26 + "12"
    parsed = {}
    for line in lines:
        name, value = line[:32].rstrip().rstrip(":"), line[32:]
        assert line[:32].rstrip().endswith(":")
        parsed[name] = value
    assert list(parsed) == list(d)
    assert parsed["NBFS"] == "4" and parsed["validation"] == "passed"
    for name, value in d.items():
        if isinstance(value, float):
            assert float(parsed[name]) == value  # %20.17e round-trips doubles exactly
            assert "e" in parsed[name]
    assert format_result_block({"x": 0.5}, float_format="%g") == "x:" + " " * 30 + "0.5\n"
    with pytest.raises(TypeError, match="d"):
        format_result_block([("x", 1)])


def test_end_to_end_on_kronecker(kron):
    u, v, n, source, parents, levels, _ = kron
    r = validate(u, v, source, parents, levels)
    d = summarize(10, 8, 0.01, [0.002], [r.nedge], r.ok)
    assert d["max_TEPS"] == pytest.approx(r.nedge / 0.002)
    assert "validation:" in format_result_block(d)


@pytest.mark.gpu
def test_cupy_matches_numpy(kron):
    cupy = pytest.importorskip("cupy")
    if not cupy.cuda.is_available():
        pytest.skip("no CUDA device")
    u, v, n, source, parents, levels, _ = kron
    cu, cv, cp_, cl = (cupy.asarray(a) for a in (u, v, parents, levels))
    assert validate(cu, cv, source, cp_, cl) == validate(u, v, source, parents, levels)
    kids = children_count(parents, source)
    a = int(np.flatnonzero((levels >= 2) & (kids > 0))[0])
    bad = parents.copy()
    bad[a] = int(np.flatnonzero(parents == a)[0])
    bad[source] = -1
    expected = validate(u, v, source, bad, levels, raise_on_error=False)
    got = validate(cu, cv, source, cupy.asarray(bad), cl, raise_on_error=False)
    assert got == expected and set(got.failures) == {"tree", "source"}
    assert traversed_edges(cu, cv, cl, self_loops=False) == traversed_edges(
        u, v, levels, self_loops=False
    )
    d = summarize(10, 8, 0.1, cupy.asarray([0.5, 0.25]), cupy.asarray([10, 20]), True)
    assert d["max_TEPS"] == 80.0


def test_chunked_edge_streaming_gives_the_same_answers(monkeypatch):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph

    from spbfs.graph500 import validation as graph500
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(9, seed=4)
    n = 1 << 9
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n)).tocsr()
    _, parents = csgraph.breadth_first_order(A, int(u[0]), directed=False)
    parents = np.where(parents < 0, -1, parents)
    parents[int(u[0])] = int(u[0])
    bad = parents.copy()
    bad[np.flatnonzero(bad >= 0)[5]] = int(u[0])  # a parent that may not be an edge
    whole = [graph500.validate(u, v, int(u[0]), p, raise_on_error=False) for p in (parents, bad)]
    monkeypatch.setattr(graph500, "EDGE_CHUNK", 7)
    chunked = [graph500.validate(u.astype(np.int32), v.astype(np.int32), int(u[0]), p,
                                 raise_on_error=False) for p in (parents, bad)]
    assert whole == chunked
    assert whole[0].ok and whole[0].nedge == graph500.traversed_edges(u, v, parents)
