"""spbfs.cpu.pysum against Python's own ``sum``: one add at a time up to 3.11, Neumaier's
compensated sum from 3.12 (the reference below agreed with CPython 3.12.1's and 3.13.0's
``sum`` on 20,000 random lists, infinities, NaNs and signed zeros included)."""

import math
import struct
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spbfs.cpu import nodesets, pysum

FLOATS = st.one_of(st.floats(allow_nan=False, width=64),
                   st.sampled_from([0.1, 0.2, 0.3, 1e16, -1e16, 1.0, -0.0, math.inf, -math.inf]),
                   st.floats(-1e3, 1e3))


def _reference(values, compensated):
    """Python's ``sum`` (from the int 0) as CPython 3.11 (``compensated=False``) and
    3.12+ (``True``) compute it, written out."""
    total, correction = 0.0, 0.0
    for x in values:
        t = total + x
        if compensated:
            if abs(total) >= abs(x):
                correction += (total - t) + x
            else:
                correction += (x - t) + total
        total = t
    if correction and math.isfinite(correction):
        total += correction
    return total


def _bits(x):
    return "nan" if math.isnan(x) else struct.pack("<d", x)


@given(values=st.lists(FLOATS, max_size=30), compensated=st.booleans())
def test_python_sum_adds_as_python(values, compensated):
    got = pysum.python_sum(np.array(values, np.float64), compensated=compensated)
    assert _bits(got) == _bits(_reference(values, compensated))
    if compensated == pysum.COMPENSATED:  # this Python's own sum
        assert _bits(got) == _bits(float(sum(values)))


def test_the_reference_is_this_python():
    values = [0.1] * 10 + [1e16, 1.0, -1e16]
    assert _reference(values, sys.version_info >= (3, 12)) == sum(values)


@given(rows=st.lists(st.lists(FLOATS, max_size=6), max_size=8), compensated=st.booleans())
def test_row_sums_add_each_row_as_python(rows, compensated):
    values = np.array([x for row in rows for x in row], np.float64)
    counts = np.array([len(row) for row in rows], np.int64)
    starts = np.cumsum(counts) - counts
    got = pysum.row_sums(values, starts, counts, compensated=compensated)
    assert [_bits(x) for x in got.tolist()] == [_bits(_reference(r, compensated)) for r in rows]


@pytest.mark.parametrize("compensated", [False, True])
def test_boundary_total_continues_a_compensated_sum(compensated, monkeypatch):
    """A directed cut's two boundaries make one sum: the second goes on from the first's
    total and correction, as ``sum`` over the chained edges does."""
    monkeypatch.setattr(nodesets, "COMPENSATED", compensated)
    # a path 0 - 1 - 2 - 3 (both directions stored), weights that round
    indptr = np.array([0, 1, 3, 5, 6])
    indices = np.array([1, 0, 2, 1, 3, 2])
    weights = np.array([1e16, 0.1, 1.0, 0.3, -1e16, 0.7])
    first = nodesets.boundary_total(indptr, indices, np.array([0, 2]), 4, undirected=False,
                                    weights=weights, partial=True)
    total = nodesets.boundary_total(indptr, indices, np.array([1, 3]), 4, undirected=False,
                                    weights=weights, start=first[0], correction=first[1])
    # the entries out of {0, 2} (0->1, 2->1, 2->3), then out of {1, 3} (1->0, 1->2, 3->2)
    expected = _reference([1e16, 0.3, -1e16, 0.1, 1.0, 0.7], compensated)
    assert _bits(total) == _bits(expected)
