"""Tests of spbfs.generate: the counter-based Graph500 Kronecker generator."""

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spbfs.graph500.generate as gen
from spbfs.graph500.generate import (
    INITIATOR,
    _kronecker_unpermuted,
    _quadrant_frequencies,
    kronecker,
    kronecker_edge_count,
    permute_vertices,
)


def test_shapes_dtype_and_range():
    u, v = kronecker(9, edgefactor=3, seed=11)
    assert u.shape == v.shape == (3 * 2**9,)
    assert u.dtype == v.dtype == np.int64
    for a in (u, v):
        assert a.min() >= 0 and a.max() < 2**9


def test_deterministic():
    a = kronecker(8, seed=5)
    b = kronecker(8, seed=5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_seeds_differ():
    u1, v1 = kronecker(8, seed=1)
    u2, v2 = kronecker(8, seed=2)
    # independent edge lists agree only by chance, on a small fraction of positions
    assert np.mean((u1 == u2) & (v1 == v2)) < 0.05
    assert not np.array_equal(
        permute_vertices(np.arange(256), 8, 1), permute_vertices(np.arange(256), 8, 2)
    )


def test_default_seed_and_edgefactor():
    u, v = kronecker(6)
    assert u.size == 16 * 64
    np.testing.assert_array_equal(u, kronecker(6, 16, 1)[0])


@settings(max_examples=25, deadline=None)
@given(
    scale=st.integers(1, 10),
    edgefactor=st.integers(1, 4),
    seed=st.integers(0, 2**64 - 1),
    cuts=st.lists(st.floats(0, 1), max_size=5),
)
def test_slices_concatenate_to_whole(scale, edgefactor, seed, cuts):
    m = kronecker_edge_count(scale, edgefactor)
    bounds = sorted({0, m, *(int(c * m) for c in cuts)})
    u, v = kronecker(scale, edgefactor, seed)
    parts = [kronecker(scale, edgefactor, seed, start=a, stop=b) for a, b in pairwise(bounds)]
    np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), u)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), v)


def test_independent_of_internal_block_size(monkeypatch):
    u, v = kronecker(7, edgefactor=5, seed=3, start=13, stop=600)
    monkeypatch.setattr(gen, "_CPU_BLOCK", 7)
    u2, v2 = kronecker(7, edgefactor=5, seed=3, start=13, stop=600)
    np.testing.assert_array_equal(u, u2)
    np.testing.assert_array_equal(v, v2)


def test_empty_slice():
    u, v = kronecker(5, start=10, stop=10)
    assert u.shape == v.shape == (0,) and u.dtype == np.int64


@pytest.mark.parametrize("scale", [33, 40])
def test_large_scale_slice(scale):
    start = kronecker_edge_count(scale, 16) - 1000
    u, v = kronecker(scale, start=start, seed=4)
    assert u.size == 1000
    assert u.min() >= 0 and max(u.max(), v.max()) < 2**scale
    # bits above 32 are used
    assert (np.concatenate([u, v]) >= 2**32).mean() > 0.3
    u2, v2 = kronecker(scale, start=start + 500, seed=4)
    np.testing.assert_array_equal(u[500:], u2)
    np.testing.assert_array_equal(v[500:], v2)


@pytest.mark.parametrize("scale", range(1, 13))
def test_permutation_is_bijection(scale):
    n = 2**scale
    ids = np.arange(n)
    for seed in (0, 1, 12345, 2**64 - 1):
        p = permute_vertices(ids, scale, seed)
        assert p.dtype == np.int64
        np.testing.assert_array_equal(np.sort(p), ids)
        np.testing.assert_array_equal(permute_vertices(p, scale, seed, inverse=True), ids)


def test_permutation_scrambles():
    n = 2**12
    p = permute_vertices(np.arange(n), 12, seed=1)
    assert np.mean(p == np.arange(n)) < 0.01
    # consecutive ids land far apart: no locality left
    assert np.median(np.abs(np.diff(p))) > n / 16


def test_permutation_large_scale_roundtrip():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**40, size=10_000)
    p = permute_vertices(x, 40, seed=9)
    assert p.min() >= 0 and p.max() < 2**40
    np.testing.assert_array_equal(permute_vertices(p, 40, seed=9, inverse=True), x)
    assert np.unique(p).size == np.unique(x).size


def test_kronecker_is_permuted_raw():
    raw_u, raw_v = _kronecker_unpermuted(9, 2, seed=6)
    u, v = kronecker(9, 2, seed=6)
    np.testing.assert_array_equal(u, permute_vertices(raw_u, 9, 6))
    np.testing.assert_array_equal(v, permute_vertices(raw_v, 9, 6))


def test_quadrant_frequencies_match_initiator():
    scale = 12
    u, v = _kronecker_unpermuted(scale, 16, seed=21)
    freq = _quadrant_frequencies(u, v, scale)
    assert freq.shape == (scale, 4)
    np.testing.assert_allclose(freq.sum(axis=1), 1.0)
    # 65536 edges per level: binomial standard deviation <= 0.002
    np.testing.assert_allclose(freq, np.tile(INITIATOR, (scale, 1)), atol=0.01)
    # pooled over levels, much tighter
    np.testing.assert_allclose(freq.mean(axis=0), INITIATOR, atol=0.003)


def test_degree_distribution_skewed():
    scale = 14
    u, v = kronecker(scale, seed=2)
    deg = np.bincount(np.concatenate([u, v]), minlength=2**scale)
    assert deg.mean() == 32
    assert deg.max() > 50 * deg.mean()
    # many isolated vertices, as in Graph500 graphs
    assert 0.1 < np.mean(deg == 0) < 0.6


def test_endpoints_not_biased_by_permutation():
    # after relabelling, high and low ids are equally likely to be hubs
    u, v = kronecker(12, seed=8)
    deg = np.bincount(np.concatenate([u, v]), minlength=2**12)
    lo, hi = deg[: 2**11].sum(), deg[2**11 :].sum()
    assert 0.5 < lo / hi < 2.0


def test_edge_count():
    assert kronecker_edge_count(1, 1) == 2
    assert kronecker_edge_count(40) == 16 * 2**40
    with pytest.raises(ValueError, match="scale"):
        kronecker_edge_count(0)
    with pytest.raises(ValueError, match="edgefactor"):
        kronecker_edge_count(5, 0)


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"scale": 0}, ValueError, "scale"),
        ({"scale": 41}, ValueError, "scale"),
        ({"scale": 2.0}, TypeError, "scale"),
        ({"scale": True}, TypeError, "scale"),
        ({"scale": 4, "edgefactor": 0}, ValueError, "edgefactor"),
        ({"scale": 4, "edgefactor": "16"}, TypeError, "edgefactor"),
        ({"scale": 4, "seed": -1}, ValueError, "seed"),
        ({"scale": 4, "seed": 2**64}, ValueError, "seed"),
        ({"scale": 4, "start": -1}, ValueError, "start"),
        ({"scale": 4, "stop": 16 * 16 + 1}, ValueError, "stop"),
        ({"scale": 4, "start": 10, "stop": 5}, ValueError, "start"),
        ({"scale": 4, "start": 1.5}, TypeError, "start"),
        ({"scale": 4, "xp": "numpy"}, TypeError, "xp"),
    ],
)
def test_argument_errors(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        kronecker(**kwargs)


def test_permute_vertices_errors():
    with pytest.raises(ValueError, match="x"):
        permute_vertices(np.array([0, 8]), 3)
    with pytest.raises(ValueError, match="x"):
        permute_vertices(np.array([-1]), 3)
    with pytest.raises(TypeError, match="x"):
        permute_vertices(np.array([0.0, 1.0]), 3)
    with pytest.raises(ValueError, match="scale"):
        permute_vertices(np.arange(4), 0)
    with pytest.raises(ValueError, match="seed"):
        permute_vertices(np.arange(4), 2, seed=-5)


def test_numpy_integer_arguments_accepted():
    u, v = kronecker(np.int64(5), np.int32(2), np.uint64(7), start=np.int64(3))
    np.testing.assert_array_equal(u, kronecker(5, 2, 7)[0][3:])


@pytest.mark.gpu
def test_cupy_matches_numpy():
    cupy = pytest.importorskip("cupy")
    if not cupy.cuda.is_available():
        pytest.skip("no CUDA device")
    u, v = kronecker(14, 4, seed=3, start=100, stop=50_000)
    cu, cv = kronecker(14, 4, seed=3, start=100, stop=50_000, xp=cupy)
    assert isinstance(cu, cupy.ndarray) and cu.dtype == cupy.int64
    np.testing.assert_array_equal(cu.get(), u)
    np.testing.assert_array_equal(cv.get(), v)
    p = permute_vertices(cupy.arange(2**10), 10, seed=5)
    assert isinstance(p, cupy.ndarray)
    np.testing.assert_array_equal(p.get(), permute_vertices(np.arange(2**10), 10, seed=5))
