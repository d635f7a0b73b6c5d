"""vxm/mxv over every named semiring against a dense reference, push and pull alike."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, graphs, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring
from spbfs.cpu import products as cpu_products
from spbfs.semiring import Vector


def dense_reference(x_idx, x_val, A, sr, mask, complement, dtype):
    """y[j] = add_i mul(x[i], A[i, j], i, j) by brute force over the stored entries."""
    coo = A.tocoo()
    n = A.shape[0]
    xs = dict(zip(x_idx.tolist(), x_val.tolist(), strict=True))
    out = {}
    for i, j, a in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True):
        if i not in xs:
            continue
        if mask is not None and bool(mask[j]) == complement:
            continue
        v = sr.multiply.func(np.array([xs[i]]), np.array([a]), np.array([i]), np.array([j]),
                             dtype)[0]
        if j in out:
            out[j] = v if sr.monoid.is_any else sr.monoid.ufunc(out[j], v)
        else:
            out[j] = v
    present = np.zeros(n, bool)
    present[list(out)] = True
    return present, out


SEMIRINGS = sorted(semiring.NAMED.values(), key=lambda s: s.name)


@pytest.mark.parametrize("sr", SEMIRINGS, ids=lambda s: s.name)
@given(A=graphs(max_n=25, max_m=120), data=st.data())
def test_push_and_pull_match_reference(sr, A, data):
    n = A.shape[0]
    x_idx = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n))), dtype=np.int64)
    x_val = np.array(data.draw(st.lists(st.integers(0, 5), min_size=x_idx.size,
                                        max_size=x_idx.size)), dtype=np.int64)
    use_mask = data.draw(st.booleans())
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n))) if use_mask \
        else None
    complement = data.draw(st.booleans())
    x = Vector.sparse(x_idx, x_val, size=n)
    dtype = sr.result_dtype(x_val.dtype, A.dtype)
    present, expected = dense_reference(x_idx, x_val, A, sr, mask, complement, dtype)
    pushed = semiring.vxm(x, A, sr, mask=mask, complement=complement)
    pulled = semiring.vxm(x.to_bitmap(), A, sr, mask=mask, complement=complement)
    assert pushed.format == "sparse" and pulled.format == "bitmap"
    np.testing.assert_array_equal(pushed.to_bitmap().present, present)
    np.testing.assert_array_equal(pulled.present, present)
    for y in (pushed.to_sparse(), pulled.to_sparse()):
        assert y.values.dtype == dtype
        if sr.monoid.is_any:
            # any: each result must be one of the candidates
            continue
        np.testing.assert_allclose(y.values, [expected[j] for j in y.indices.tolist()])


@pytest.mark.parametrize("sr", SEMIRINGS, ids=lambda s: s.name)
def test_push_and_pull_in_chunks_match_reference(sr, monkeypatch):
    """A push split over 3 threads' ranges of the frontier (a hub row of 150 in one of
    them), their accumulators merged; a pull over 3 ranges of outputs, masked or not."""
    monkeypatch.setattr(cpu_products, "PARALLEL_WORK", 1)
    monkeypatch.setattr(cpu_products, "get_num_threads", lambda: 3)
    rng = np.random.default_rng(7)
    n = 200
    A = sp.random_array((n, n), density=0.04, rng=rng, format="csr",
                        data_sampler=lambda size: rng.integers(1, 6, size))
    A = sp.csr_array(A + sp.csr_array((np.ones(150), (np.full(150, 3), np.arange(150))),
                                      shape=(n, n)))
    x_idx = np.sort(rng.choice(n, 70, replace=False))
    x_idx[0] = 3
    x_idx.sort()
    x_val = rng.integers(0, 5, x_idx.size)
    for mask, complement in ((None, False), (rng.random(n) < 0.5, False),
                             (rng.random(n) < 0.5, True)):
        dtype = sr.result_dtype(x_val.dtype, A.dtype)
        present, expected = dense_reference(x_idx, x_val, A, sr, mask, complement, dtype)
        x = Vector.sparse(x_idx, x_val, size=n)
        for y in (semiring.vxm(x, A, sr, mask=mask, complement=complement),
                  semiring.vxm(x.to_bitmap(), A, sr, mask=mask, complement=complement)):
            y = y.to_sparse()
            np.testing.assert_array_equal(y.to_bitmap().present, present)
            if not sr.monoid.is_any:
                np.testing.assert_allclose(y.values, [expected[j] for j in y.indices.tolist()])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sr", SEMIRINGS, ids=lambda s: s.name)
def test_pull_of_hub_columns_matches_reference(device, sr):
    """Columns of 40,000 and 70,000 in-edges (the GPU pulls rows of the transpose longer than
    32K entries with a block each) beside short ones, x on a third of the vertices, with
    and without a mask (one hub masked out), against the push's reference."""
    rng = np.random.default_rng(11)
    n = 80_000
    hubs = np.concatenate([np.full(40_000, 5), np.full(70_000, 77_000)])
    rows = np.concatenate([rng.choice(n, 40_000, replace=False), rng.choice(n, 70_000,
                                                                           replace=False),
                           rng.integers(0, n, 3000)])
    cols = np.concatenate([hubs, rng.integers(0, n, 3000)])
    A = sp.csr_array((rng.integers(1, 6, rows.size).astype(np.float64), (rows, cols)),
                     shape=(n, n))
    A.sum_duplicates()
    x_idx = np.sort(rng.choice(n, n // 3, replace=False))
    x_val = rng.integers(0, 5, x_idx.size).astype(np.float64)
    mask = rng.random(n) < 0.5
    mask[5], mask[77_000] = True, False
    xp = np if device == "numpy" else pytest.importorskip("cupy")
    for m in (None, mask):
        dtype = sr.result_dtype(x_val.dtype, A.dtype)
        present, expected = dense_reference(x_idx, x_val, A, sr, m, False, dtype)
        x = Vector.sparse(xp.asarray(x_idx), xp.asarray(x_val), size=n).to_bitmap()
        y = semiring.vxm(x, on_device(device, A), sr,
                         mask=None if m is None else xp.asarray(m)).to_sparse()
        got = to_host(y.indices)
        np.testing.assert_array_equal(got, np.flatnonzero(present))
        assert present[5] and present[77_000] == (m is None)
        if not sr.monoid.is_any:
            np.testing.assert_allclose(to_host(y.values), [expected[j] for j in got.tolist()])


def test_any_picks_a_candidate():
    A = sp.csr_array(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]))
    x = Vector.sparse([0, 1], size=3)
    for y in (semiring.vxm(x, A, semiring.any_secondi),
              semiring.vxm(x.to_bitmap(), A, semiring.any_secondi).to_sparse()):
        assert y.indices.tolist() == [1, 2]
        assert y.values[0] == 0 and y.values[1] in (0, 1)


def test_user_defined_semiring_widest_path():
    max_min = semiring.Semiring(semiring.monoids.max, semiring.ops.min)
    assert max_min.name == "max_min"
    A = sp.csr_array(np.array([[0, 5.0, 2.0], [0, 0, 4.0], [0, 0, 0]]))
    x = Vector.sparse([0, 1], [9.0, 3.0], size=3)
    y = semiring.vxm(x, A, max_min)
    np.testing.assert_array_equal(y.to_dense(), [0, 5.0, 3.0])
    custom = semiring.Semiring(
        semiring.Monoid("plus", np.add, lambda dt: 0, "(a + b)"),
        semiring.BinaryOp("absdiff", lambda x, a, i, j, dt: np.abs(x - a).astype(dt),
                          "(x > a ? x - a : a - x)", "xa", lambda xd, ad: np.result_type(xd, ad)),
    )
    z = semiring.vxm(x.to_bitmap(), A, custom).to_sparse()
    np.testing.assert_array_equal(z.values, [4.0, 7.0 + 1.0])


def test_mxv_is_vxm_of_transpose():
    A = sp.random(30, 30, density=0.2, random_state=1, format="csr")
    x = np.arange(30, dtype=float)
    y = semiring.mxv(A, x, semiring.plus_times).to_dense()
    np.testing.assert_allclose(y, A @ x)


@pytest.mark.parametrize("device", DEVICES)
@given(A=graphs(max_n=25, max_m=120), data=st.data())
def test_other_values_on_a_symmetric_pattern_are_transposed(device, A, data):
    """``with_values`` on a symmetric Matrix: values that differ between (i, j) and (j, i)
    are read from the right entry whether pushed, pulled or through ``mxv``; values kept
    symmetric (``unit``, ``astype``) leave the matrix its own transpose."""
    S = sp.csr_array(A + A.T)
    S.sum_duplicates()
    S.sort_indices()
    n = S.shape[0]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    w = rng.integers(1, 9, S.nnz).astype(np.float64)
    D = on_device(device, sp.csr_array((w, S.indices, S.indptr), shape=(n, n)))
    xp = semiring.Matrix.from_any(D).xp
    M = semiring.Matrix(D.indptr, D.indices, xp.ones(S.nnz), n, symmetric=True)
    W = M.with_values(D.data)
    x = rng.integers(0, 5, n).astype(np.float64)
    expected = x @ sp.csr_array((w, S.indices, S.indptr), shape=(n, n)).toarray()
    xd = xp.asarray(x)
    for direction in ("push", "pull"):
        y = semiring.vxm(Vector.full(xd), W, semiring.plus_times, direction=direction)
        np.testing.assert_allclose(to_host(y.to_dense(0.0)), expected)
    dense = sp.csr_array((w, S.indices, S.indptr), shape=(n, n)).toarray()
    np.testing.assert_allclose(to_host(semiring.mxv(W, xd, semiring.plus_times).to_dense(0.0)),
                               dense @ x)
    U, C = M.unit(), M.astype(np.int64)
    assert M.T is M and U.T is U and C.T is C and W.T is not W


def test_symmetrized_checks_other_values_on_a_symmetric_pattern():
    """Rows in any order: values equal to their mirror's keep the matrix (its own
    transpose); others are doubled (every edge both ways)."""
    M = semiring.Matrix(np.array([0, 2, 3, 4]), np.array([2, 1, 0, 0]), np.ones(4), 3,
                        symmetric=True)
    same = M.with_values(np.array([5.0, 7.0, 7.0, 5.0])).symmetrized()
    assert same.nnz == 4 and same.T is same
    other = M.with_values(np.array([5.0, 7.0, 8.0, 5.0])).symmetrized()
    assert other.nnz == 8
    assert sorted(other.data.tolist()) == [5.0, 5.0, 5.0, 5.0, 7.0, 7.0, 8.0, 8.0]


def test_full_dense_vector_and_dtype_override():
    A = sp.csr_array(np.array([[0, 1], [1, 0]]))
    y = semiring.vxm(np.array([2, 3]), A, semiring.plus_times, dtype=np.float32)
    assert y.values.dtype == np.float32
    np.testing.assert_array_equal(y.to_dense(), [3, 2])


@pytest.mark.parametrize("device", DEVICES)
def test_to_dense_fills_what_is_absent(device):
    """A product's absent entries take the fill asked for, whichever fill the product's
    values already hold there (the scatter leaves plus's identity, 0.0)."""
    xp = pytest.importorskip(device)
    A = on_device(device, sp.csr_array(np.array([[0, 2.0, 0], [0, 3.0, 0], [0, 0, 0]])))
    x = xp.asarray([1.0, -1.0, 5.0])
    y = semiring.vxm(x, A, semiring.plus_times)
    for fill, want in [(0.0, [0.0, -1.0, 0.0]), (-1, [-1.0, -1.0, -1.0]),
                       (np.nan, [np.nan, -1.0, np.nan])]:
        np.testing.assert_array_equal(to_host(y.to_dense(fill)), want)
    if device == "numpy":  # -0.0 is not the scatter's 0.0 (cupy's where drops the sign)
        assert np.signbit(y.to_dense(-0.0)[[0, 2]]).all()
    dense = y.to_dense()
    dense[1] = 7.0  # the caller's own array
    assert to_host(y.to_dense())[1] == -1.0
    s = Vector.sparse(xp.asarray([1]), xp.asarray([4]), size=3)
    np.testing.assert_array_equal(to_host(s.to_dense(9)), [9, 4, 9])
    np.testing.assert_array_equal(to_host(s.to_bitmap().to_dense(9)), [9, 4, 9])


def test_vector_mask_uses_structure():
    A = sp.csr_array(np.ones((3, 3)))
    mask = Vector.sparse([1], [False], size=3)
    y = semiring.vxm(Vector.sparse([0], size=3), A, semiring.any_pair, mask=mask)
    assert y.indices.tolist() == [1]


@pytest.mark.parametrize(
    "kwargs,exc,word",
    [
        (dict(x=Vector.sparse([0], size=2)), ValueError, "x has size"),
        (dict(x=np.ones((3, 3))), ValueError, "x must be 1-D"),
        (dict(x="v"), TypeError, "x must be"),
        (dict(mask=np.ones(2, bool)), ValueError, "mask has size"),
        (dict(direction="up"), ValueError, "direction"),
        (dict(semiring=42), TypeError, "semiring"),
    ],
)
def test_operator_errors(kwargs, exc, word):
    args = dict(x=Vector.sparse([0], size=3), A=sp.csr_array((3, 3)), semiring=semiring.any_pair)
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        semiring.vxm(args.pop("x"), args.pop("A"), args.pop("semiring"), **args)


@pytest.mark.parametrize("split", [False, True])
def test_values_no_kernel_holds_raise_a_type_error_naming_them(split, monkeypatch):
    """float16 (numba's NotImplementedError) and longdouble values the operation reads
    raise TypeError naming the operand on any number of threads (numba's typing error on
    one, AttributeError on four); a semiring that reads only the pattern still runs on such
    a matrix."""
    if split:
        monkeypatch.setattr(cpu_products, "PARALLEL_WORK", 1)
        monkeypatch.setattr(cpu_products, "get_num_threads", lambda: 4)
    n = 400
    A = sp.random(n, n, density=0.02, random_state=3, format="csr")
    with pytest.raises(TypeError, match="x has dtype float16"):
        semiring.vxm(np.ones(n, np.float16), A, semiring.plus_times)
    with pytest.raises(TypeError, match="the dtype argument has dtype float16"):
        semiring.vxm(np.ones(n), A, semiring.plus_times, dtype=np.float16)
    if np.dtype(np.longdouble).itemsize <= 8:
        pytest.skip("longdouble is a double on this platform")
    wide = A.astype(np.longdouble)
    x = np.ones(n, np.longdouble)
    calls = {
        "x": lambda: semiring.vxm(x, A, semiring.plus_times),
        "x ": lambda: semiring.vxm(Vector.sparse(np.arange(n), x, size=n), A, semiring.min_plus),
        "a": lambda: semiring.mxm(A, wide, semiring.min_plus),
        "A's values": lambda: semiring.apply(wide, semiring.unary.abs),
        "B's values": lambda: semiring.ewise_add(A, wide, semiring.ops.plus),
    }
    for word, call in calls.items():
        with pytest.raises(TypeError, match=f"{word.strip()} has dtype float128"):
            call()
    y = semiring.vxm(Vector.sparse([0], [True], size=n), wide, semiring.any_pair)
    assert y.indices.tolist() == np.flatnonzero(A[[0]].toarray()[0]).tolist()


def test_select_thunks_numpy_bools_and_ints_past_64_bits():
    """A numpy bool is a thunk as a Python bool is; an int no 64-bit integer holds raises
    ValueError naming the thunk (numba's typing error before)."""
    A = sp.csr_array(np.array([[1, 0], [2, 3]], np.uint64))
    kept = semiring.select(A, "valueeq", np.True_).to_scipy()
    assert kept.toarray().tolist() == [[1, 0], [0, 0]]
    with pytest.raises(ValueError, match="thunk must fit a 64-bit integer"):
        semiring.select(A, "valueeq", 2**64)


def test_vector_errors():
    with pytest.raises(ValueError, match="indices must lie"):
        Vector.sparse([5], size=3)
    with pytest.raises(ValueError, match="values must have"):
        Vector.sparse([1], [1, 2], size=3)
    with pytest.raises(TypeError, match="present"):
        Vector.bitmap(np.ones(3))
    with pytest.raises(TypeError, match="monoid"):
        semiring.Semiring("min", semiring.ops.plus)


def _bits(words):
    """The set bits of uint32 ``words`` (host or device) as a sorted list."""
    bits = np.unpackbits(to_host(words).view(np.uint8), bitorder="little")
    return np.flatnonzero(bits).tolist()


def _search(engine, A, source):
    """A search for parents from ``source``: the backend's own engine (``numpy``, ``cupy``)
    or the generic one (``masked``: the backend's masked products)."""
    from spbfs.semiring._search import MaskedSearch

    if engine == "masked":
        return MaskedSearch(semiring.Matrix.from_any(A), source, semiring.any_secondi, True,
                            False)
    return semiring.level_search(on_device(engine, A), source, semiring.any_secondi,
                                 values=True, transpose=False)


ENGINES = [*DEVICES, "masked"]


@pytest.mark.parametrize("device", ENGINES)
@pytest.mark.parametrize("pulls", [(False, False), (False, True), (True, False)])
def test_push_out_sets_the_bits_of_the_columns_the_frontier_reaches(device, pulls):
    """``push_out``: each level's frontier pushed through a remote matrix ``R`` sets exactly
    the bits of the columns its rows reach (whatever the words held before)."""
    rng = np.random.default_rng(len(pulls) + sum(pulls))
    n, m = 300, 500
    dense = rng.random((n, n)) < 0.02
    A = sp.csr_array((dense | dense.T).astype(np.float64))
    remote = rng.random((n, m)) < 0.03
    remote[0] = True   # a hub row
    on = "numpy" if device == "masked" else device
    R = semiring.Matrix.from_any(on_device(on, sp.csr_array(remote.astype(np.float64))))
    xp = np if on == "numpy" else __import__("cupy")
    out = xp.full(-(-m // 32), 0xFFFFFFFF, np.uint32)
    with _search(device, A, 0) as s:
        for pulling in (None, *pulls):
            if pulling is not None:
                s.advance(pulling)
            s.sizes()
            s.push_out(R, out)
            levels = to_host(s.levels)
            frontier = np.flatnonzero(levels == levels.max())
            assert _bits(out) == np.flatnonzero(remote[frontier].any(axis=0)).tolist()


@pytest.mark.parametrize("device", ENGINES)
@pytest.mark.parametrize("pulling", [False, True])
def test_claim_mapped_joins_the_level_and_remote_parents_fills_their_parents(device, pulling):
    """``claim_mapped``: the vertices a word's bits stand for join the current level (those
    not visited), parent -1; ``remote_parents`` then gives each the column id of the first
    entry of its ``R`` row whose column level is one less (uint8: modulo 256)."""
    n = 64
    A = sp.csr_array(sp.diags([np.ones(n - 1)], [1], shape=(n, n)))
    A = (A + A.T).tocsr()                                   # a path 0 - 1 - ... - 63
    on = "numpy" if device == "masked" else device
    xp = np if on == "numpy" else __import__("cupy")
    ids = xp.asarray(np.r_[np.arange(40, 50), -np.ones(22)], A.indices.dtype)  # 32 bits
    words = xp.asarray([0b1000000101], np.uint32)          # ids[0], ids[2], ids[9]
    with _search(device, A, 0) as s:
        s.advance(pulling)                                  # level 1: vertex 1
        s.claim_mapped(words, ids)                          # 40, 42 and 49 join level 1
        assert s.sizes()[-1][0] == 4
        levels, parents = to_host(s.levels), to_host(s.parents)
        assert levels[[1, 40, 42, 49]].tolist() == [1] * 4
        assert parents[[40, 42, 49]].tolist() == [-1] * 3
        assert parents[1] == 0
        # R: row 40 -> columns 0, 1; row 42 -> column 1; row 49 -> column 2
        R = semiring.Matrix.from_any(on_device(on, sp.csr_array(
            (np.ones(4), np.array([0, 1, 1, 2]),
             np.r_[np.zeros(41, int), [2, 2], np.full(7, 3), np.full(15, 4)]), shape=(n, 3))))
        column_levels = xp.asarray([4, 0, 255], np.uint8)   # 255: unreached
        s.remote_parents(R, column_levels, xp.asarray([700, 701, 702], A.indices.dtype))
        parents = to_host(s.parents)
        assert parents[[40, 42, 49]].tolist() == [701, 701, -1]
        assert parents[1] == 0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pulls", [(False, False, False), (False, True, True)])
def test_level_search_stores_mapped_parent_ids(device, pulls):
    """``parent_ids``: parents are stored as mapped ids; the search itself (levels, which
    vertices are found) is unchanged."""
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(8, 8, seed=3)
    n = 256
    A = sp.csr_array((np.ones(2 * u.size), (np.r_[u, v], np.r_[v, u])), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1
    M = on_device(device, A)
    xp = np if device == "numpy" else __import__("cupy")
    split = 100
    table = 5000 + 7 * np.arange(n - split)
    pmap = xp.asarray(np.r_[[split, 3, 1], table], np.int64)
    to_id = np.r_[np.arange(split) * 3 + 1, table]           # the map, as a lookup
    back = dict(zip(to_id.tolist(), range(n), strict=True))
    source = int(np.argmax(np.diff(A.indptr)))
    out = {}
    for mapped in (False, True):
        with semiring.level_search(M, source, semiring.any_secondi, values=True,
                                   transpose=False, parent_ids=pmap if mapped else None) as s:
            for pulling in pulls:
                s.advance(pulling)
            out[mapped] = to_host(s.levels), to_host(s.parents)
    (lv0, _), (lv1, p1) = out[False], out[True]
    np.testing.assert_array_equal(lv0, lv1)
    assert p1[source] == to_id[source]
    found = np.flatnonzero(lv1 > 0)
    assert found.size
    parent = np.array([back[x] for x in p1[found].tolist()])
    assert (lv1[parent] == lv1[found] - 1).all()                        # one level up
    assert (np.asarray(A[parent, found]).ravel() != 0).all()            # an edge


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("piece", [1, 5, 1 << 20])
@given(st.data())
def test_canonical_in_pieces_sums_duplicates_as_scipy(device, piece, data):
    """The GPU's canonical form (rows sorted piece by piece) against scipy's sum_duplicates;
    numpy runs the same function, so both devices check it."""
    from spbfs.semiring._pattern import Pattern

    n = data.draw(st.integers(1, 12))
    m = data.draw(st.integers(0, 60))
    rows = np.sort(np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m,
                                               max_size=m)), np.int64))
    cols = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)),
                    np.int32)
    vals = np.arange(1, m + 1, dtype=np.float64)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    want = sp.csr_array((vals.copy(), cols.copy(), indptr.copy()), shape=(n, n))   # edited in place
    want.sum_duplicates()
    xp = np if device == "numpy" else __import__("cupy")
    P = Pattern(xp.asarray(indptr), xp.asarray(cols), n)
    if P._rows_sorted_and_unique():
        assert np.array_equal(want.indices, cols) and np.array_equal(want.indptr, indptr)
        return
    pattern, order, starts = P._canonical_in_pieces(piece)
    got = xp.add.reduceat(xp.asarray(vals)[order], starts) if xp is np else None
    if got is None:   # cupy has no reduceat: sums per segment from a cumulative sum
        c = xp.concatenate([xp.zeros(1), xp.cumsum(xp.asarray(vals)[order])])
        got = c[xp.concatenate([starts[1:], xp.asarray([m])])] - c[starts]
    assert np.array_equal(to_host(pattern.indptr), want.indptr)
    assert np.array_equal(to_host(pattern.indices), want.indices)
    assert np.array_equal(to_host(got), want.data)


def test_matrix_canonical_flag():
    """``Matrix(..., canonical=True)`` skips the sortedness check of the operations (its
    product equals the checked matrix's), and ``check=True`` verifies the claim."""
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 7, 50)
    P = semiring.Matrix(np.arange(51), labels, np.ones(50), 50, ncols=7, canonical=True)
    Q = semiring.Matrix(np.arange(51), labels, np.ones(50), 50, ncols=7)
    A = sp.random(20, 50, density=0.2, random_state=rng, format="csr")
    want = (A @ Q.to_scipy()).toarray()
    got = semiring.mxm(A, P, semiring.plus_times).to_scipy().toarray()
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="canonical=True"):
        semiring.Matrix(np.array([0, 2]), np.array([1, 0]), np.ones(2), 1, ncols=2,
                        canonical=True)
