"""``spbfs.cpu.threads.run_kernel``: the workers call compiled kernels through their thunks
(no GIL), with the same results as calling each range in turn."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from spbfs.cpu import _thunks, rank, threads
from spbfs.cpu.bfs import _copy, _count_bits


@pytest.fixture
def four_threads():
    threads.set_num_threads(4)
    yield
    threads.set_num_threads(None)


def _bits(seed=0, words=1 << 12):
    return np.random.default_rng(seed).integers(0, 2**63, words, dtype=np.int64).astype(
        np.uint64)


def test_counts_equal_each_range_called_alone(four_threads):
    bits = _bits()
    ranges = threads.split(bits.size, 4)
    got = threads.run_kernel(_count_bits, ranges, bits)
    assert got == [_count_bits(lo, hi, bits) for lo, hi in ranges]
    assert _thunks.thunk(_count_bits, 2, (bits,)) is not None  # the compiled path ran


def test_two_dimensional_arrays_and_a_kernel_returning_zero(four_threads):
    sources = np.arange(12, dtype=np.int32).reshape(4, 3)
    target = np.full(12, -1, np.int32)
    got = threads.run_kernel(_copy, [(t, 3, 3 * (3 - t)) for t in range(4)], sources, target)
    assert got == [0, 0, 0, 0]
    assert target.tolist() == [9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2]


def test_floats_and_booleans_reach_the_kernel(four_threads):
    # one affine step of a cycle over threads (8 chunks of rows) equals the same step on
    # one thread
    n = 1 << 15
    tptr = np.arange(n + 1, dtype=np.int64)
    tidx = np.roll(np.arange(n, dtype=np.int64), 1)
    x = np.random.default_rng(1).random(n)
    scale = np.full(n, 0.5)
    outs = []
    for count in (4, 1):
        threads.set_num_threads(count)
        out, out_scaled = np.empty(n), np.empty(n)
        sums = rank.pull_affine(tptr, tidx, None, x * scale, x, scale, 0.85, 0.01, out,
                                out_scaled, False)
        outs.append((out, out_scaled, sums))
    assert np.array_equal(outs[0][0], 0.85 * 0.5 * x[tidx] + 0.01)
    assert np.array_equal(outs[0][0], outs[1][0]) and outs[0][2] == outs[1][2]
    assert any(key[0] is rank._affine and found is not None  # the compiled path ran
               for key, found in _thunks._thunks.items())


def test_a_strided_array_takes_the_python_path(four_threads):
    bits = _bits(words=1 << 13)[::2]
    assert _thunks.thunk(_count_bits, 2, (bits,)) is None
    ranges = threads.split(bits.size, 4)
    assert threads.run_kernel(_count_bits, ranges, bits) == [
        _count_bits(lo, hi, bits) for lo, hi in ranges]


@pytest.mark.parametrize("dtype", [np.longdouble, np.dtype(">u8")])
def test_an_array_numba_cannot_type_takes_the_python_path(four_threads, dtype):
    """A longdouble array (numba has no such type) or one in a foreign byte order gets no
    thunk, so split ranges fail as one range does (numba's typing error), where writing its
    thunk raised AttributeError, and a byte-swapped array ran through the native dtype's
    thunk (their dtypes share a type code) and was read as native."""
    from numba.core.errors import TypingError

    values = np.zeros(64, dtype)
    if values.dtype.kind == "f" and values.dtype.itemsize <= 8:
        pytest.skip("longdouble is a double on this platform")
    if values.dtype.kind == "u":  # the native uint64's thunk exists
        assert _thunks.thunk(_count_bits, 2, (_bits(),)) is not None
    assert _thunks.thunk(_count_bits, 2, (values,)) is None
    for ranges in ([(0, 64)], threads.split(64, 4)):
        with pytest.raises(TypingError):
            threads.run_kernel(_count_bits, ranges, values)


def test_calls_from_several_threads_at_once(four_threads):
    words = [_bits(seed) for seed in range(16)]

    def one(bits):
        ranges = threads.split(bits.size, 4)
        return threads.run_kernel(_count_bits, ranges, bits) == [
            _count_bits(lo, hi, bits) for lo, hi in ranges]

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, words * 8))


def test_a_kernel_returning_a_tuple_takes_the_python_path(four_threads):
    from spbfs.cpu.delta import _weight_range

    weights = np.random.default_rng(2).random(1 << 12)
    ranges = threads.split(weights.size, 4)
    assert _thunks.thunk(_weight_range, 2, (weights,)) is None
    assert threads.run_kernel(_weight_range, ranges, weights) == [
        _weight_range(lo, hi, weights) for lo, hi in ranges]


def test_an_unsigned_scalar_past_int64_reaches_the_kernel(four_threads):
    # the many-source search's pull passes the max monoid's terminal 2**64 - 1 as a uint64
    # scalar; its block word once overflowed int64 (OverflowError) when the pull was split
    import scipy.sparse as sp
    from scipy.sparse.csgraph import shortest_path

    from spbfs import msbfs

    n = 256
    A = sp.csr_array(np.ones((n, n)) - np.eye(n))
    sources = np.arange(0, n, 4)  # 64 searches: one word a vertex
    levels = msbfs.bfs_many(A, sources)
    expected = shortest_path(A, unweighted=True, indices=sources)
    assert np.array_equal(levels, expected.astype(levels.dtype))
