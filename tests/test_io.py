"""spbfs.io.read_graph: relabelling of sparse ids, id limits and file errors."""

import os
import tracemalloc

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from oracle import oracle_levels

import spbfs
from spbfs.io import needs_relabel, read_graph

NEAR_2_40 = st.integers((1 << 40) - (1 << 16), (1 << 40) + (1 << 16))
ANY_ID = st.integers(0, (1 << 63) - 1)


@st.composite
def edge_lists(draw, ids=NEAR_2_40, max_ids=30, max_edges=60):
    """(id pool, edges as pairs of original ids); some pool ids may appear in no edge."""
    pool = draw(st.lists(ids, min_size=1, max_size=max_ids, unique=True))
    pick = st.integers(0, len(pool) - 1)
    pairs = draw(st.lists(st.tuples(pick, pick), min_size=1, max_size=max_edges))
    return pool, [(pool[a], pool[b]) for a, b in pairs]


def write_snap(path, edges, header=("# Directed graph (each unordered pair of nodes is saved "
                                    "once)", "# FromNodeId\tToNodeId")):
    body = "".join(f"{a}\t{b}\n" for a, b in edges)
    path.write_text("\n".join(header) + "\n" + body)
    return path


def compacted(edges):
    """The oracle: sorted distinct ids and the matrix over their positions (plain Python)."""
    used = sorted({x for edge in edges for x in edge})
    where = {x: i for i, x in enumerate(used)}
    rows = [where[a] for a, _ in edges]
    cols = [where[b] for _, b in edges]
    A = sp.coo_array((np.ones(len(edges)), (rows, cols)), shape=(len(used),) * 2).tocsr()
    return used, A


@given(data=edge_lists())
def test_snap_ids_near_2_40_are_relabelled(tmp_path_factory, data):
    _, edges = data
    path = write_snap(tmp_path_factory.mktemp("snap") / "g.txt", edges)
    A, ids = read_graph(path, return_ids=True)
    used, B = compacted(edges)
    assert ids is not None and ids.dtype == np.int64
    assert ids.tolist() == used                      # the map: original id of each vertex
    assert A.shape == (len(used), len(used))         # k x k, not 2**40 x 2**40
    assert (A != B).nnz == 0
    # The map round-trips: the stored edges, mapped back, are the file's edges.
    C = A.tocoo()
    back = sorted(zip(ids[C.row].tolist(), ids[C.col].tolist(), C.data.tolist(), strict=True))
    counts = {}
    for edge in edges:
        counts[edge] = counts.get(edge, 0) + 1
    assert back == sorted((a, b, float(c)) for (a, b), c in counts.items())
    # ... and np.searchsorted is its inverse.
    np.testing.assert_array_equal(np.searchsorted(ids, used), np.arange(len(used)))
    # BFS on the relabelled graph is BFS on the compacted graph.
    source = int(np.searchsorted(ids, edges[0][0]))
    np.testing.assert_array_equal(spbfs.bfs(A, source), oracle_levels(B, source))


@given(data=edge_lists(ids=st.one_of(st.integers(0, 3000), ANY_ID), max_edges=40))
def test_auto_rule(tmp_path_factory, data):
    _, edges = data
    path = write_snap(tmp_path_factory.mktemp("auto") / "g.txt", edges)
    A, ids = read_graph(path, return_ids=True)
    used = sorted({x for edge in edges for x in edge})
    n = used[-1] + 1
    assert (ids is not None) == (n > 2 * len(used) + 1024) == needs_relabel(n, len(used))
    assert A.shape[0] == (len(used) if ids is not None else n)
    assert A.sum() == len(edges)


@st.composite
def dense_id_sets(draw):
    """Ids in 0..n-1, n-1 among them, with n <= 2 * (number of ids) + 1024."""
    n = draw(st.integers(2, 20000))
    k = draw(st.integers(max(2, -(-(n - 1024) // 2)), n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = rng.choice(n - 1, k - 1, replace=False)
    return n, rng.permutation(np.append(pool, n - 1))


@given(data=dense_id_sets())
def test_dense_ids_are_kept(tmp_path_factory, data):
    n, pool = data
    u, v = pool, np.roll(pool, 1)  # a cycle through every id
    path = write_snap(tmp_path_factory.mktemp("dense") / "g.txt",
                      zip(u.tolist(), v.tolist(), strict=True))
    A, ids = read_graph(path, return_ids=True)
    assert ids is None and A.shape == (n, n)
    assert (A != sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n))).nnz == 0
    assert read_graph(path).shape == (n, n)                     # the old call still works
    A2, ids2 = read_graph(path, relabel=True, return_ids=True)  # forced
    np.testing.assert_array_equal(ids2, np.sort(pool))
    assert A2.shape == (pool.size, pool.size) and A2.nnz == A.nnz


def test_relabel_false_keeps_the_id_range(tmp_path):
    path = write_snap(tmp_path / "g.txt", [(0, 5000), (5000, 3)])
    assert needs_relabel(5001, 3)
    A, ids = read_graph(path, relabel=False, return_ids=True)
    assert ids is None and A.shape == (5001, 5001) and A[5000, 3] == 1
    A, ids = read_graph(path, return_ids=True)
    assert ids.tolist() == [0, 3, 5000] and A.shape == (3, 3) and A[2, 1] == 1
    with pytest.raises(TypeError, match="relabel"):
        read_graph(path, relabel="auto")


def test_auto_rule_counts_distinct_ids_not_edges(tmp_path):
    # 2 distinct ids in 300 edges: the range 1101 > 2 * 2 + 1024, though 1101 < 2 * 600 + 1024.
    path = write_snap(tmp_path / "g.txt", [(0, 1100), (1100, 0)] * 150)
    A, ids = read_graph(path, return_ids=True)
    assert ids.tolist() == [0, 1100] and A.toarray().tolist() == [[0, 150], [150, 0]]
    path = write_snap(tmp_path / "h.txt", [(0, 1030), (1030, 0), (2, 3)] * 150)
    assert read_graph(path, return_ids=True)[1] is None  # 4 ids: 1031 <= 2 * 4 + 1024


def test_needs_relabel_boundary():
    assert not needs_relabel(2 * 1000 + 1024, 1000)
    assert needs_relabel(2 * 1000 + 1025, 1000)
    assert not needs_relabel(1024, 0)


def test_huge_ids_need_no_huge_allocation(tmp_path):
    rng = np.random.default_rng(7)
    u, v = rng.integers(1 << 61, 1 << 62, (2, 1000), dtype=np.int64)
    path = write_snap(tmp_path / "g.txt", zip(u.tolist(), v.tolist(), strict=True))
    tracemalloc.start()
    try:
        A, ids = read_graph(path, return_ids=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"reading 1000 edges peaked at {peak} bytes"
    assert A.shape == (ids.size, ids.size) and ids.size == np.unique(np.r_[u, v]).size


def test_largest_id_that_fits_and_exact_ids_with_weights(tmp_path):
    top = (1 << 63) - 1
    A, ids = read_graph(write_snap(tmp_path / "g.txt", [(0, top)]), return_ids=True)
    assert ids.tolist() == [0, top] and A[0, 1] == 1
    # Above 2**53 a float64 would round: a weighted file keeps ids exact.
    path = tmp_path / "w.txt"
    path.write_text("9007199254740993 1 2.5\n1 9007199254740993 0.5\n")
    A, ids = read_graph(path, return_ids=True)
    assert ids.tolist() == [1, 9007199254740993]
    assert A.toarray().tolist() == [[0.0, 0.5], [2.5, 0.0]]


@pytest.mark.parametrize(
    "content,where,word",
    [
        ("0 1\n2 9223372036854775808\n", "line 2, column 2", "2\\*\\*63"),
        ("0 1\n2 99999999999999999999999999\n", "line 2, column 2", "2\\*\\*63"),
        ("# c\n\n0 1\n1.5 2\n", "line 4, column 1", "not an integer"),
        ("0 1\n0x10 2\n", "line 2, column 1", "not an integer"),
        ("0 1 1.0\n2 3 heavy\n", "line 2, column 3", "weight"),
        ("0 1\n2 -3\n", "line 2, column 2", "non-negative"),
        ("0 1\n2 3 4\n5\n", "line 2", "2 columns"),
        ("0 1\n2\n", "line 2", "2 columns"),
        ("# c\n0 1 2 3\n", "line 2", "2 or 3 columns"),
    ],
)
def test_bad_tokens_name_file_line_and_column(tmp_path, content, where, word):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=word) as info:
        read_graph(path)
    message = str(info.value)
    assert message.startswith(f"{path}, {where}:"), message


def test_line_numbers_count_comments_and_crlf(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(b"".join(b"# comment %d\r\n" % i for i in range(100)) + b"0 1\r\n1 x\r\n")
    with pytest.raises(ValueError, match=", line 102, column 2: "):
        read_graph(path)
    path.write_bytes(b"".join(b"# comment %d\r\n" % i for i in range(100)) + b"0 1\r\n1 2\r\n")
    assert read_graph(path).nnz == 2  # a long header does not hide the column count


MM = "%%MatrixMarket matrix coordinate real general\n"


@pytest.mark.parametrize(
    "content,word",
    [
        (MM + "3 4 2\n1 2 1.0\n2 3 1.0\n", "square"),
        ("not a matrix market file\n", "not a valid Matrix Market"),
        ("", "not a valid Matrix Market"),
        (MM + "3 3 2\n1 2 1.0\n", "malformed"),              # fewer entries than declared
        (MM + "3 3 1\n1 9 1.0\n", "malformed"),              # index out of range
        (MM + "3 3 1\n1 x 1.0\n", "malformed"),
        (MM + "3 3 1\n1 2 1.0\n2 3 1.0\n", "malformed"),     # more entries than declared
        (MM + "3 3 100000000000\n1 1 1\n", "truncated"),      # no 2 TB allocation
        ("%%MatrixMarket matrix array real general\n100000 100000\n1\n", "truncated"),
    ],
)
def test_bad_matrix_market_files(tmp_path, content, word):
    path = tmp_path / "bad.mtx"
    path.write_text(content)
    with pytest.raises(ValueError, match=word) as info:
        read_graph(path)
    assert str(info.value).startswith(f"{path}: ")
    assert info.value.__suppress_context__ or info.value.__context__ is None


def test_matrix_market_relabelled_with_huge_declared_size(tmp_path):
    path = tmp_path / "g.mtx"
    n = 1 << 40
    path.write_text(f"%%MatrixMarket matrix coordinate pattern general\n{n} {n} 2\n"
                    f"1 {n}\n5 7\n")
    A, ids = read_graph(path, return_ids=True)
    assert ids.tolist() == [0, 4, 6, n - 1]  # 0-based, as without relabelling
    assert A.shape == (4, 4) and A[0, 3] == 1 and A[1, 2] == 1
    small = tmp_path / "s.mtx"
    small.write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n2 1 4.0\n")
    A, ids = read_graph(small, return_ids=True)
    assert ids is None and A.toarray().tolist() == [[0, 4, 0], [4, 0, 0], [0, 0, 0]]


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=os.fspath(tmp_path)):
        read_graph(tmp_path / "nope.txt")


def test_symmetric_array_file_is_not_taken_for_truncated(tmp_path):
    # A symmetric array file stores one triangle: fewer values than its header's n * n.
    path = tmp_path / "s.mtx"
    dense = (np.arange(400) % 9 + 1.0).reshape(20, 20)  # one digit a value: a small file
    dense = np.tril(dense) + np.tril(dense, -1).T
    scipy.io.mmwrite(path, dense, symmetry="symmetric")
    assert path.read_text().count("\n") < 20 * 20
    np.testing.assert_array_equal(read_graph(path).toarray(), dense)
