"""spbfs.cpu.treepaths.tree_paths against the paths read up the parents one vertex at a time,
for random forests listed in any order."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

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


@given(forest=forests(), forward=st.booleans())
def test_paths_grouped_by_depth_in_order(forest, forward):
    order, parent, starts = forest
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
