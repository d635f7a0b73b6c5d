"""Malformed inputs and bad arguments for every public function (run in a child process).

``tests/test_malformed.py`` runs this module with pytest in a child interpreter, so a
segmentation fault or an abort fails that test instead of killing the test run.  Every
case must raise one of the documented exceptions (ValueError or TypeError).  With
``SPBFS_FUZZ_DEVICE=gpu`` the inputs are cupyx matrices and each case is followed by a
correct call, showing that the CUDA context is still usable.
"""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import spbfs
from spbfs import csgraph, semiring

GPU = os.environ.get("SPBFS_FUZZ_DEVICE", "cpu") == "gpu"
if GPU:
    import cupy
    import cupyx.scipy.sparse as csp

    xp = cupy
else:
    xp = np

DOCUMENTED = (ValueError, TypeError)

COMPRESSED_DEFECTS = ["index_high", "index_negative", "indptr_decreasing", "indptr_start",
                      "indptr_end_over", "indptr_short", "indptr_long", "data_short",
                      "float_indices", "indices_2d"]
COO_DEFECTS = ["row_high", "row_negative", "col_high", "col_negative", "row_short",
               "data_short"]


def _n(A):
    return A.shape[0]


CALLS = {
    "bfs": lambda A: spbfs.bfs(A, 0),
    "bfs_parents_undirected": lambda A: spbfs.bfs(A, 0, return_parents=True, directed=False),
    "bfs_pull": lambda A: spbfs.bfs(A, 0, direction="pull"),
    "sssp": lambda A: spbfs.sssp(A, 0),
    "sssp_undirected": lambda A: spbfs.sssp(A, 0, directed=False, return_predecessors=True),
    "prepare": spbfs.prepare,
    "from_any": semiring.Matrix.from_any,
    "vxm": lambda A: semiring.vxm(semiring.Vector.sparse(xp.asarray([0]), size=_n(A)), A,
                                  semiring.any_pair),
    "mxv": lambda A: semiring.mxv(A, xp.ones(_n(A)), semiring.plus_times),
    "breadth_first_order": lambda A: csgraph.breadth_first_order(A, 0),
}


@st.composite
def valid_parts(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(0, 30))
    rows = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    cols = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    idt = draw(st.sampled_from([np.int32, np.int64]))
    return n, rows, cols, idt


def _compressed(n, rows, cols, idt, fmt):
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A = A.tocsr() if fmt == "csr" else A.tocsc()
    return A.indptr.astype(idt), A.indices.astype(idt), A.data.copy()


def _corrupt_compressed(draw, indptr, indices, data, n, defect):
    nnz = indices.size
    if defect in ("index_high", "index_negative", "float_indices", "indices_2d", "data_short"):
        assume(nnz > 0)
    k = draw(st.integers(0, max(nnz - 1, 0)))
    big = np.iinfo(indices.dtype).max
    if defect == "index_high":
        indices[k] = draw(st.integers(n, big))
    elif defect == "index_negative":
        indices[k] = -draw(st.integers(1, big))
    elif defect == "indptr_decreasing":
        assume(n >= 2)
        indptr[draw(st.integers(1, n - 1))] = nnz + 1  # above the end: a decrease follows
    elif defect == "indptr_start":
        indptr[0] = draw(st.sampled_from([1, -1, 5]))
    elif defect == "indptr_end_over":
        indptr[-1] = nnz + draw(st.integers(1, 1000))
    elif defect == "indptr_short":
        indptr = indptr[:-1]
    elif defect == "indptr_long":
        indptr = np.append(indptr, nnz)
    elif defect == "data_short":
        data = data[:-1]
    elif defect == "float_indices":
        indices = indices.astype(np.float64)
    elif defect == "indices_2d":
        indices = indices.reshape(1, -1)
    return indptr, indices, data


def _device(a):
    return cupy.asarray(a) if GPU else a


def _build_compressed(fmt, n, indptr, indices, data):
    """A matrix carrying exactly these arrays: attributes set after construction, as
    readers of foreign files end up doing (no check by the constructor)."""
    if GPU:
        cls = csp.csr_matrix if fmt == "csr" else csp.csc_matrix
        A = cls((n, n), dtype=np.float64)
    else:
        A = (sp.csr_array if fmt == "csr" else sp.csc_array)((n, n))
    A.indptr, A.indices, A.data = _device(indptr), _device(indices), _device(data)
    return A


def _build_coo(n, rows, cols, data):
    if GPU:
        A = csp.coo_matrix((n, n), dtype=np.float64)
        A.row, A.col, A.data = _device(rows), _device(cols), _device(data)
        return A
    A = sp.coo_array((n, n))
    A.coords = (rows, cols)
    A.data = data
    return A


def _still_usable():
    """After a rejected input on the GPU, a correct call still works."""
    if GPU:
        good = csp.csr_matrix(cupy.asarray([[0, 1.0], [0, 0]]))
        assert spbfs.bfs(good, 0).tolist() == [0, 1]


def _expect_documented(call, A, case):
    try:
        call(A)
    except DOCUMENTED as exc:
        msg = str(exc)
        assert msg, case
    else:
        raise AssertionError(f"no error for {case}")
    _still_usable()


@settings(max_examples=400, deadline=None)
@given(valid_parts(), st.sampled_from(["csr", "csc"]), st.sampled_from(COMPRESSED_DEFECTS),
       st.sampled_from(sorted(CALLS)), st.data())
def test_malformed_compressed(parts, fmt, defect, call, data):
    n, rows, cols, idt = parts
    indptr, indices, vals = _compressed(n, rows, cols, idt, fmt)
    indptr, indices, vals = _corrupt_compressed(data.draw, indptr, indices, vals, n, defect)
    A = _build_compressed(fmt, n, indptr, indices, vals)
    _expect_documented(CALLS[call], A, (fmt, defect, call, indptr, indices))


@settings(max_examples=250, deadline=None)
@given(valid_parts(), st.sampled_from(COO_DEFECTS), st.sampled_from(sorted(CALLS)), st.data())
def test_malformed_coo(parts, defect, call, data):
    n, rows, cols, idt = parts
    rows, cols = rows.astype(idt), cols.astype(idt)
    vals = np.ones(rows.size)
    if defect != "row_short" and defect != "data_short":
        assume(rows.size > 0)
    k = data.draw(st.integers(0, max(rows.size - 1, 0)))
    big = np.iinfo(idt).max
    if defect == "row_high":
        rows[k] = data.draw(st.integers(n, big))
    elif defect == "row_negative":
        rows[k] = -data.draw(st.integers(1, big))
    elif defect == "col_high":
        cols[k] = data.draw(st.integers(n, big))
    elif defect == "col_negative":
        cols[k] = -data.draw(st.integers(1, big))
    elif defect == "row_short":
        rows = np.append(rows, 0)
    else:
        vals = np.append(vals, 1.0)
    A = _build_coo(n, rows, cols, vals)
    _expect_documented(CALLS[call], A, ("coo", defect, call, rows, cols))


def _good():
    A = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 2])), shape=(3, 3))
    return csp.csr_matrix(A) if GPU else A


BAD_ARGUMENTS = {
    "source_high": lambda A: spbfs.bfs(A, 3),
    "source_negative": lambda A: spbfs.bfs(A, -1),
    "source_float": lambda A: spbfs.bfs(A, 1.5),
    "source_bool": lambda A: spbfs.bfs(A, True),
    "source_none": lambda A: spbfs.bfs(A, None),
    "direction": lambda A: spbfs.bfs(A, 0, direction="sideways"),
    "alpha": lambda A: spbfs.bfs(A, 0, alpha=-1),
    "beta": lambda A: spbfs.bfs(A, 0, beta="x"),
    "sssp_source": lambda A: spbfs.sssp(A, 7),
    "sssp_negative_weights": lambda A: spbfs.sssp(A * -1.0, 0),
    "non_square": lambda A: spbfs.bfs(A[:2], 0),
    "string": lambda A: spbfs.bfs("graph", 0),
    "none": lambda A: spbfs.bfs(None, 0),
    "three_d": lambda A: spbfs.bfs(xp.zeros((2, 2, 2)), 0),
    "complex": lambda A: spbfs.bfs(A.astype(np.complex128), 0),
    "vxm_semiring": lambda A: semiring.vxm(xp.ones(3), A, "plus_times"),
    "vxm_size": lambda A: semiring.vxm(xp.ones(4), A, semiring.plus_times),
    "vxm_mask_size": lambda A: semiring.vxm(xp.ones(3), A, semiring.plus_times,
                                            mask=xp.ones(2, bool)),
    "vector_index": lambda A: semiring.Vector.sparse(xp.asarray([5]), size=3),
    "bfo_start": lambda A: csgraph.breadth_first_order(A, 9),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_arguments(case):
    _expect_documented(BAD_ARGUMENTS[case], _good(), case)
