"""spbfs.semiring.packed_any_secondi: every wanted bit gets a valid witness, nothing else
is written; push and pull, with and without edge words, numpy and cupy.
spbfs.semiring.unpack_bitplanes against a bit-by-bit reference."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, multigraphs, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs.cpu import packed as cpu_packed
from spbfs.semiring import Matrix, Vector, packed_any_secondi, unpack_bitplanes

WORDS = st.integers(0, 2**64 - 1)


def _words(draw, size, bits):
    """``size`` uint64 words with bits below ``bits`` only, sparse ones likely."""
    top = (1 << bits) - 1
    vals = draw(st.lists(st.one_of(WORDS, st.integers(0, 3), st.sampled_from([0, 1 << 63])),
                         min_size=size, max_size=size))
    return np.array(vals, np.uint64) & np.uint64(top)


def _on(device, arr):
    if device == "numpy":
        return arr
    import cupy

    return cupy.asarray(arr)


def _matrix(device, A, edge_words):
    """A canonical Matrix of ``A``'s pattern (duplicates summed away) on the device, its
    values ``edge_words`` (uint64) when given."""
    C = sp.csr_array(A.copy())
    C.sum_duplicates()
    data = edge_words if edge_words is not None else np.ones(C.nnz)
    return Matrix(_on(device, C.indptr.astype(np.int64)), _on(device, C.indices),
                  _on(device, np.asarray(data)), C.shape[0], check=False), C


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=30, max_m=150), data=st.data(), bits=st.sampled_from([1, 5, 64]),
       pulled=st.booleans(), with_edge_words=st.booleans(), int32=st.booleans(),
       column_major=st.booleans())
def test_every_wanted_bit_gets_a_witness(device, A, data, bits, pulled, with_edge_words, int32,
                                         column_major):
    n = A.shape[0]
    words = None
    C = sp.csr_array(A.copy())
    C.sum_duplicates()
    if with_edge_words:
        words = _words(data.draw, C.nnz, bits)
    M, C = _matrix(device, A, words)
    x = _words(data.draw, n, bits)
    rows = np.flatnonzero(x) if not pulled else None
    # The wanted bits are those some in-edge can witness, thinned at random.
    reach = np.zeros(n, np.uint64)
    src = np.repeat(np.arange(n), np.diff(C.indptr))
    hits = x[src] & (words if with_edge_words else np.uint64(2**64 - 1))
    np.bitwise_or.at(reach, C.indices, hits)
    want = reach & _words(data.draw, n, bits)
    cols = np.flatnonzero(want)
    dtype = np.int32 if int32 else np.int64
    out = _on(device, np.full((bits, n), -1, dtype))
    if column_major:  # any memory order
        out = out.T.copy().T
    xv = (Vector(n, "bitmap", present=_on(device, x != 0), values=_on(device, x)) if pulled
          else Vector(n, "sparse", indices=_on(device, rows), values=_on(device, x[rows])))
    wv = Vector(n, "sparse", indices=_on(device, cols), values=_on(device, want[cols]))
    packed_any_secondi(xv, M, wv, out, edge_bits=with_edge_words)
    got = to_host(out)
    wanted = ((want[None, :] >> np.arange(bits, dtype=np.uint64)[:, None]) & np.uint64(1)) == 1
    assert (got[~wanted] == -1).all()
    s, j = np.nonzero(wanted)
    i = got[s, j]
    assert (i >= 0).all()
    dense = C.toarray() if not with_edge_words else sp.csr_array(
        (words, C.indices, C.indptr), shape=C.shape).toarray()
    stored = sp.csr_array((np.ones(C.nnz), C.indices, C.indptr), shape=C.shape).toarray() != 0
    assert stored[i, j].all()
    bit = np.uint64(1) << s.astype(np.uint64)
    assert ((x[i] & bit) != 0).all()
    if with_edge_words:
        assert ((dense[i, j].astype(np.uint64) & bit) != 0).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("direction", ["push", "pull"])
@pytest.mark.parametrize("split", [False, True])
def test_a_hub_covers_every_bit(device, direction, split, monkeypatch):
    """Vertex 0 set in every row points at all others; 1..3 cover some bits: every wanted
    bit of 4..n gets a witness that has it (on the CPU also over 3 threads' ranges of the
    frontier or of the wanted columns)."""
    if split:
        monkeypatch.setattr(cpu_packed, "PARALLEL_WORK", 1)
        monkeypatch.setattr(cpu_packed, "get_num_threads", lambda: 3)
    n = 300
    rows = np.concatenate([np.zeros(n - 1, np.int64), [1, 2, 3]])
    cols = np.concatenate([np.arange(1, n), [5, 5, 6]])
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    M = Matrix.from_any(A if device == "numpy" else _matrix(device, A, None)[0])
    x = np.zeros(n, np.uint64)
    x[:4] = [2**64 - 1, 0b1, 0b10, 0b100]
    want = np.full(n, 2**64 - 1, np.uint64)
    want[:4] = 0
    cols = np.flatnonzero(want)
    out = _on(device, np.full((64, n), -1, np.int64))
    idx = np.flatnonzero(x)
    xv = Vector(n, "sparse", indices=_on(device, idx), values=_on(device, x[idx]))
    packed_any_secondi(xv, M, Vector(n, "sparse", indices=_on(device, cols),
                                     values=_on(device, want[cols])), out, direction=direction)
    got = to_host(out)
    assert (got[:, :4] == -1).all()
    assert set(np.unique(got[:, 4:])) <= {0, 1, 2, 3}
    assert (got[:, 4] == 0).all() and got[0, 5] in (0, 1) and got[1, 5] in (0, 2)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        ({"x": np.ones(3)}, TypeError, "x must hold uint64"),
        ({"want": np.ones(3, np.uint64)}, ValueError, "want must be a sparse"),
        ({"out": np.zeros((2, 4), np.int64)}, ValueError, "out must have shape"),
        ({"out": np.zeros((2, 3), np.float64)}, TypeError, "out must hold int32"),
        ({"out": np.zeros((2, 3), np.int64)[:, ::-1]}, ValueError, "non-negative strides"),
        ({"out": np.zeros((1, 3), np.int64)}, ValueError, "at or above"),
        ({"edge_bits": True}, TypeError, "edge_bits needs uint64"),
        ({"direction": "up"}, ValueError, "direction"),
    ],
)
def test_errors_name_the_argument(kwargs, exc, word):
    A = sp.csr_array(np.ones((3, 3)))
    args = {"x": Vector.sparse([0], np.array([3], np.uint64), size=3),
            "want": Vector.sparse([1], np.array([2], np.uint64), size=3),
            "out": np.zeros((2, 3), np.int64)}
    args.update({k: v for k, v in kwargs.items() if k in args})
    options = {k: v for k, v in kwargs.items() if k not in args}
    with pytest.raises(exc, match=word):
        packed_any_secondi(args["x"], A, args["want"], args["out"], **options)


def _codes_reference(planes, present, k):
    """The dense codes, one bit at a time."""
    n = present.size
    out = np.full((k, n), -1, np.int64)
    for s in range(k):
        here = (present >> np.uint64(s)) & np.uint64(1) != 0
        code = np.zeros(n, np.int64)
        for b, plane in enumerate(planes):
            code |= (((plane >> np.uint64(s)) & np.uint64(1)).astype(np.int64)) << b
        out[s, here] = code[here]
    return out


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data(), k=st.sampled_from([1, 7, 8, 9, 33, 64]), n=st.integers(0, 40),
       nplanes=st.sampled_from([0, 1, 3, 7, 8, 9, 15, 16, 31]), int32=st.booleans(),
       column_major=st.booleans(), few_held=st.booleans())
def test_unpack_bitplanes_matches_the_bits(device, data, k, n, nplanes, int32, column_major,
                                           few_held):
    """Every lane width (codes of up to 7, 15, 31 bits), row counts that are not a
    multiple of the lanes, both memory orders of the output, and codes in few columns
    (the CPU unpacks those alone)."""
    planes = [_words(data.draw, n, 64) for _ in range(nplanes)]
    present = _words(data.draw, n, k)
    if few_held:  # about a quarter of the columns hold codes
        held = data.draw(st.lists(st.sampled_from([False, False, False, True]),
                                  min_size=n, max_size=n))
        present[~np.array(held, bool).reshape(n)] = 0
    dtype = np.int32 if int32 else np.int64
    out = _on(device, np.zeros((n, k), dtype).T if column_major else np.zeros((k, n), dtype))
    unpack_bitplanes([_on(device, p) for p in planes], _on(device, present), out)
    np.testing.assert_array_equal(to_host(out), _codes_reference(planes, present, k))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("held", [[3, 0, 1, 0, 0], [3, 1, 2, 1, 1]])
def test_unpack_bitplanes_without_planes(device, held):
    """No planes: every present code is 0 (a search that found nothing past its sources),
    in few columns and in most."""
    present = np.array(held, np.uint64)
    out = _on(device, np.zeros((2, 5), np.int32))
    unpack_bitplanes([], _on(device, present), out)
    np.testing.assert_array_equal(to_host(out), _codes_reference([], present, 2))


@pytest.mark.parametrize("device", DEVICES)
def test_unpack_bitplanes_wide_codes(device):
    """Codes of 40 bits in an int64 output (one lane per word on the CPU; past the
    registers' planes on the GPU)."""
    rng = np.random.default_rng(5)
    planes = [rng.integers(0, 2**63, 50, dtype=np.uint64) for _ in range(40)]
    present = rng.integers(0, 2**63, 50, dtype=np.uint64)
    out = _on(device, np.zeros((64, 50), np.int64))
    unpack_bitplanes([_on(device, p) for p in planes], _on(device, present), out)
    np.testing.assert_array_equal(to_host(out), _codes_reference(planes, present, 64))


@pytest.mark.parametrize(
    "planes, present, out, exc, word",
    [
        ([np.zeros(3)], np.zeros(3, np.uint64), np.zeros((2, 3), np.int32), TypeError,
         r"planes\[0\] must hold uint64"),
        ([np.zeros(2, np.uint64)], np.zeros(3, np.uint64), np.zeros((2, 3), np.int32),
         ValueError, r"planes\[0\] must have shape"),
        ([], np.zeros(3, np.int64), np.zeros((2, 3), np.int32), TypeError, "present must hold"),
        ([], np.zeros((3, 1), np.uint64), np.zeros((2, 3), np.int32), ValueError, "present"),
        ([], np.zeros(3, np.uint64), np.zeros((65, 3), np.int32), ValueError, "k <= 64"),
        ([], np.zeros(3, np.uint64), np.zeros((2, 4), np.int32), ValueError, "out must have"),
        ([], np.zeros(3, np.uint64), np.zeros((2, 3), np.float32), TypeError, "out must hold"),
        ([], np.zeros(3, np.uint64), [[0, 0, 0]], TypeError, "out must be an array"),
        ([np.zeros(3, np.uint64)] * 32, np.zeros(3, np.uint64), np.zeros((2, 3), np.int32),
         ValueError, "wider than"),
    ],
)
def test_unpack_bitplanes_errors_name_the_argument(planes, present, out, exc, word):
    with pytest.raises(exc, match=word):
        unpack_bitplanes(planes, present, out)
