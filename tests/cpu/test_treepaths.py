"""spbfs.cpu.treepaths.tree_paths against the paths read up the parents one vertex at a time,
for random forests listed in any order."""

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import treepaths
from spbfs.cpu.treepaths import tree_paths


def _path(parent, starts, v):
    path = [v]
    while path[-1] not in starts:
        path.append(int(parent[path[-1]]))
    return path[::-1]


@st.composite
def forests(draw):
    """``(order, parent, starts)``: a random forest over ``n`` vertices (each vertex after
    the first ``k`` hangs from an earlier one in a random labelling), some of its vertices
    listed in a random order."""
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, n))
    labels = draw(st.permutations(range(n)))
    parent = np.full(n, -1, np.int64)
    for i in range(k, n):
        parent[labels[i]] = labels[draw(st.integers(0, i - 1))]
    starts = np.array(labels[:k], np.int64)
    order = draw(st.lists(st.sampled_from(labels), unique=True, max_size=n))
    return np.array(order, np.int64), parent, starts


@contextmanager
def _threads(count):
    """``count`` threads, every forest's paths written by them where there are several."""
    spbfs.set_num_threads(count)
    try:
        with mock.patch.object(treepaths, "PARALLEL_ENTRIES", 0 if count > 1 else 1 << 16):
            yield
    finally:
        spbfs.set_num_threads(None)


@pytest.mark.parametrize("threads", [1, 3])
@given(forest=forests(), forward=st.booleans())
def test_paths_grouped_by_depth_in_order(threads, forest, forward):
    order, parent, starts = forest
    with _threads(threads):
        blocks, by_depth = tree_paths(order, parent, starts, forward)
    expected = [_path(parent, set(starts.tolist()), int(v)) for v in order]
    if not forward:
        expected = [p[::-1] for p in expected]
    depths = [len(p) - 1 for p in expected]
    # the positions of order, depth by depth, each depth's in order
    assert by_depth.tolist() == sorted(range(len(order)), key=depths.__getitem__)
    got = [row for block in blocks for row in block.tolist()]
    assert got == [expected[i] for i in by_depth.tolist()]
    assert [b.shape[1] for b in blocks] == list(range(1, len(blocks) + 1))


@pytest.mark.parametrize("parent", [[-1, 2, 1], [-1, -1, 1]])
def test_a_vertex_led_to_no_start_is_refused(parent):
    with pytest.raises(ValueError, match="does not lead every vertex"):
        tree_paths(np.array([0, 1]), np.array(parent), np.array([0]))


def test_a_large_tree_written_by_the_threads_equals_one_thread():
    """A random tree of 50,000 vertices (above the entries written by the threads), in a
    shuffled order: the blocks and their order are those of one thread."""
    rng = np.random.default_rng(7)
    n = 50_000
    parent = np.concatenate([[-1], rng.integers(0, np.arange(1, n) // 2 + 1)])
    order = rng.permutation(n)
    with _threads(1):
        one = tree_paths(order, parent, np.array([0]))
    spbfs.set_num_threads(4)
    try:
        many = tree_paths(order, parent, np.array([0]))
    finally:
        spbfs.set_num_threads(None)
    assert np.array_equal(one[1], many[1])
    assert len(one[0]) == len(many[0]) > 5
    assert all(np.array_equal(a, b) for a, b in zip(one[0], many[0], strict=True))
