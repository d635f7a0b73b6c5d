"""spbfs.cpu.efficiency.inverse_distance_sums against NetworkX's loop written out: ``1 / d``
added one pair at a time, each row's pairs by distance."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spbfs.cpu.efficiency import inverse_distance_sums


def _reference(levels, starts, widths, rows, bounds, totals):
    out = totals.copy()
    for g in range(out.size):
        total = out[g]
        for r in rows[bounds[g]:bounds[g + 1]]:
            window = levels[r, starts[g]:starts[g] + widths[g]]
            for d in sorted(int(d) for d in window if d > 0):
                total += 1 / d
        out[g] = total
    return out


@given(data=st.data(), n=st.integers(1, 12), groups=st.integers(1, 4))
def test_sums_follow_networkx_order(data, n, groups):
    levels = np.array(data.draw(st.lists(st.lists(st.integers(-1, n - 1), min_size=n,
                                                  max_size=n), min_size=n, max_size=n)),
                      np.int32)
    starts, widths, rows, bounds = [], [], [], [0]
    for _ in range(groups):
        lo = data.draw(st.integers(0, n - 1))
        starts.append(lo)
        widths.append(data.draw(st.integers(0, n - lo)))
        rows += data.draw(st.lists(st.integers(0, n - 1), max_size=5))
        bounds.append(len(rows))
    args = [np.array(a, np.int64) for a in (starts, widths, rows, bounds)]
    # levels of a group's rows below the widest group's width, as a BFS's within it are
    width = int(args[1].max())
    levels = np.minimum(levels, max(width - 1, 0))
    totals = np.array(data.draw(st.lists(st.floats(0, 10), min_size=groups,
                                         max_size=groups)))
    expected = _reference(levels, *args, totals)
    inverse_distance_sums(levels, *args, totals)
    assert totals.tolist() == expected.tolist()


def test_a_level_past_the_columns_is_refused():
    levels = np.array([[0, 5]], np.int32)
    with pytest.raises(ValueError, match="below their group's width"):
        inverse_distance_sums(levels, np.array([0]), np.array([2]), np.array([0]),
                              np.array([0, 1]), np.zeros(1))
