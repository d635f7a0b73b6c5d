"""The CPU backend's products and operator kernels, compiled with numba: masked SpGEMM
(Gustavson's saxpy, and dot products at given positions), SpMSpV (push), masked SpMV
(pull, early exit), SpMM (sparse times a dense block), the element-wise operators and the
segmented reductions, for any semiring.

Each kernel is generated for its operators (:mod:`spbfs.cpu.opcompile`: a named or a
user-defined operator is compiled in from its expression) and takes raw arrays, plain
scalars and preallocated outputs.  Large calls split their rows into ranges of about equal
work run side by side on :func:`spbfs.cpu.threads.run_kernel` (the pool's workers call the
compiled kernels without the GIL; the kernels keep their scratch per range and write
disjoint parts of the outputs), so any number of Python threads may call them at once.
The GPU backend (:mod:`spbfs.gpu.backend`) implements the same functions with the same
signatures.
"""

from __future__ import annotations

import functools
import re
import threading
import types

import numpy as np
from llvmlite import binding as llvm

from ..core.seam import ANY_TERMINAL
from . import opcompile
from ._jit import kernel
from .threads import get_num_threads, run_kernel, run_ranges, split

#: Work (entries, products) from which a call is split over threads: below it, dispatching
#: to the pool costs more than it saves.
PARALLEL_WORK = 1 << 16
#: Rows per range handed to a thread of a masked SpGEMM (hub rows make ranges of equal
#: entries unequal in work, so the threads take many smaller ranges in turn).
RANGES_PER_THREAD = 8
#: Kept for the packed pull (:mod:`spbfs.cpu.packed`): outputs per block, chunk growth.
PULL_BLOCK = 1 << 14
PULL_CHUNK_GROWTH = 4
#: Widths from which an SpMM over a monoid that picks an operand adds into a second buffer
#: where masked stores are slow (see :func:`spmm`): narrower rows lose more to the copy.
COPY_WIDTH = 32

_DUMMY = np.zeros(1, np.int8)


def _threads(work: int) -> int:
    return get_num_threads() if work >= PARALLEL_WORK else 1


def _ranges(total, weights, work):
    """Ranges of ``0..total`` of about equal weight, one per thread (one range when small)."""
    return split(total, _threads(work), weights)


def _operand(arr):
    return _DUMMY if arr is None else arr


_MACRO = re.compile(r"\b(XV|AV|BV|VV)\(([^()]*)\)")


@functools.cache
def _specialise(template: str, uses: str) -> str:
    """Operand reads of an operator: ``XV(p)`` is ``x_val[p]``, ``AV(p)`` ``a_val[p]`` and
    ``BV(k, c)`` ``B[k, c]`` when a multiply reads them (``x``, ``a``), ``VV(p)``
    ``val[p]`` when an index-unary operator reads ``v``; else ``0``.  Memoised: every
    product asks again, and the substitution over a whole template costs 0.1 ms."""
    def repl(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "XV":
            return f"x_val[{arg}]" if "x" in uses else "0"
        if kind == "AV":
            return f"a_val[{arg}]" if "a" in uses else "0"
        if kind == "VV":
            return f"val[{arg}]" if "v" in uses else "0"
        return f"B[{arg}]" if "a" in uses else "0"
    return _MACRO.sub(repl, template)


def _semiring_module(name, template, semiring):
    mul = semiring.multiply
    return opcompile.module(f"{name}_{semiring.name}", _specialise(template, mul.uses),
                            add=("add", semiring.monoid), mul=("mul", mul))


def _identity(monoid, dtype):
    return dtype.type(monoid.identity(dtype))


def _terminal(monoid, dtype):
    """``(mode, value)``: mode 0 none, 1 a terminal value, 2 any value ends (``any``)."""
    term = monoid.terminal
    if term is None:
        return 0, dtype.type(0)
    if term == ANY_TERMINAL:
        return 2, dtype.type(0)
    value = dtype.type(term(dtype))
    return (0, dtype.type(0)) if value != value else (1, value)  # NaN: nothing stops early


# ----------------------------------------------------------------------------- SpGEMM
_SPGEMM = """
@KERNEL
def masked(r0, r1, m_ptr, m_idx, m_ok, use_ok, a_ptr, a_idx, x_val, b_ptr, b_idx, a_val,
           out_val, out_hit, row_cnt, state, acc, hyb):
    # C<M> = A B at M's (allowed) positions: out_val/out_hit aligned with M's entries
    for i in range(r0, r1):
        m0 = U(m_ptr[i])  # unsigned positions and columns: no wraparound test per read
        m1 = U(m_ptr[i + 1])
        a0 = U(a_ptr[i])
        a1 = U(a_ptr[i + 1])
        nm = 0
        jlo = 0
        jhi = -1
        if a0 < a1:
            for p in range(m0, m1):
                if use_ok and not m_ok[p]:
                    continue
                j = m_idx[p]
                state[U(j)] = 1
                if nm == 0:
                    jlo = j
                jhi = j
                nm += 1
        if nm == 0:
            for p in range(m0, m1):
                out_hit[p] = False
            row_cnt[i] = 0
            continue
        lim = hyb * nm * (math.log2(nm) + 1.0) if hyb > 0 else 1e300
        for pa in range(a0, a1):
            k = a_idx[pa]
            b0 = U(b_ptr[U(k)])
            b1 = U(b_ptr[U(k) + ONE])
            if b0 == b1 or b_idx[b0] > jhi or b_idx[b1 - ONE] < jlo:
                continue
            if b1 - b0 > lim:  # a long row of B: search it for M's columns instead
                lo = b0
                for p in range(m0, m1):
                    j = m_idx[p]
                    if state[U(j)] == 0:
                        continue
                    hi = b1
                    while lo < hi:
                        mid = (lo + hi) >> ONE
                        if b_idx[mid] < j:
                            lo = mid + ONE
                        else:
                            hi = mid
                    if lo == b1:
                        break
                    if b_idx[lo] == j:
                        v = like(acc, mul(XV(pa), AV(lo), k, j))
                        if state[U(j)] == 2:
                            acc[U(j)] = add(acc[U(j)], v)
                        else:
                            acc[U(j)] = v
                            state[U(j)] = 2
                continue
            for pb in range(b0, b1):
                j = b_idx[pb]
                s = state[U(j)]
                if s == 2:
                    acc[U(j)] = add(acc[U(j)], like(acc, mul(XV(pa), AV(pb), k, j)))
                elif s == 1:
                    acc[U(j)] = mul(XV(pa), AV(pb), k, j)
                    state[U(j)] = 2
        cnt = 0
        for p in range(m0, m1):
            j = U(m_idx[p])
            if state[j] == 2:
                out_val[p] = acc[j]
                out_hit[p] = True
                cnt += 1
            else:
                out_hit[p] = False
            state[j] = 0
        row_cnt[i] = cnt


@KERNEL
def count(r0, r1, m_ptr, m_idx, m_ok, use_ok, complement, a_ptr, a_idx, b_ptr, b_idx,
          row_cnt, mark, base):
    # entries per row of C<!M> = A B (or of C = A B without a mask: m_ptr empty rows);
    # row i marks with base + i (marks below base are stale: no reset between calls)
    for i in range(r0, r1):
        stamp = base + i
        if complement:
            for p in range(U(m_ptr[i]), U(m_ptr[i + 1])):
                if not use_ok or m_ok[p]:
                    mark[U(m_idx[p])] = stamp  # forbidden: counted as seen
        cnt = 0
        for pa in range(U(a_ptr[i]), U(a_ptr[i + 1])):  # unsigned: no wraparound tests
            k = U(a_idx[pa])
            for pb in range(U(b_ptr[k]), U(b_ptr[k + ONE])):
                j = U(b_idx[pb])
                if mark[j] != stamp:
                    mark[j] = stamp
                    cnt += 1
        row_cnt[i] = cnt


@KERNEL
def fill(r0, r1, m_ptr, m_idx, m_ok, use_ok, complement, a_ptr, a_idx, x_val, b_ptr, b_idx,
         a_val, c_ptr, c_idx, c_val, mark, acc, base):
    for i in range(r0, r1):
        seen = base + i
        banned = -2 - seen
        if complement:
            for p in range(U(m_ptr[i]), U(m_ptr[i + 1])):
                if not use_ok or m_ok[p]:
                    mark[U(m_idx[p])] = banned
        q0 = U(c_ptr[i])
        q = q0
        for pa in range(U(a_ptr[i]), U(a_ptr[i + 1])):  # unsigned: no wraparound tests
            k = a_idx[pa]
            for pb in range(U(b_ptr[U(k)]), U(b_ptr[U(k) + ONE])):
                j = b_idx[pb]
                uj = U(j)
                s = mark[uj]
                if s == seen:
                    acc[uj] = add(acc[uj], like(acc, mul(XV(pa), AV(pb), k, j)))
                elif s != banned:
                    mark[uj] = seen
                    acc[uj] = mul(XV(pa), AV(pb), k, j)
                    c_idx[q] = j
                    q += ONE
        c_idx[q0:q].sort()
        for p in range(q0, q):
            c_val[p] = acc[U(c_idx[p])]


@KERNEL
def dot(p0, p1, r, rows, cols, a_ptr, a_idx, x_val, bt_ptr, bt_idx, a_val, present, out,
        positions, hyb):
    # out[p] = add_k mul(A[rows[p], k], B[k, cols[p]], k, cols[p]); positions by row, in
    # range r's row of positions (all -1, left so)
    pos = positions[r]
    cur = -1
    a0 = U(0)  # unsigned positions: no wraparound test per read
    a1 = U(0)
    klo = 0
    khi = -1
    lim = 1e300
    for p in range(U(p0), U(p1)):
        i = rows[p]
        if i != cur:
            if cur >= 0:
                for pa in range(a0, a1):
                    pos[U(a_idx[pa])] = -1
            cur = i
            a0 = U(a_ptr[U(i)])
            a1 = U(a_ptr[U(i) + ONE])
            na = a1 - a0
            if na > 0:
                klo = a_idx[a0]
                khi = a_idx[a1 - ONE]
                lim = hyb * na * (math.log2(na) + 1.0) if hyb > 0 else 1e300
            for pa in range(a0, a1):
                pos[U(a_idx[pa])] = pa
        j = cols[p]
        b0 = U(bt_ptr[U(j)])
        b1 = U(bt_ptr[U(j) + ONE])
        found = False
        if a0 == a1 or b0 == b1:
            present[p] = False
            continue
        if b1 - b0 > lim:
            lo = b0
            for pa in range(a0, a1):
                k = a_idx[pa]
                hi = b1
                while lo < hi:
                    mid = (lo + hi) >> ONE
                    if bt_idx[mid] < k:
                        lo = mid + ONE
                    else:
                        hi = mid
                if lo == b1:
                    break
                if bt_idx[lo] == k:
                    v = like(out, mul(XV(pa), AV(lo), k, j))
                    if found:
                        out[p] = add(out[p], v)
                    else:
                        out[p] = v
                        found = True
        else:
            for pb in range(b0, b1):
                k = bt_idx[pb]
                if k < klo:
                    continue
                if k > khi:
                    break
                q = pos[U(k)]
                if q >= 0:
                    v = like(out, mul(XV(q), AV(pb), k, j))
                    if found:
                        out[p] = add(out[p], v)
                    else:
                        out[p] = v
                        found = True
        present[p] = found
    if cur >= 0:
        for pa in range(a0, a1):
            pos[U(a_idx[pa])] = -1
"""


@kernel
def _compact_hits(r0, r1, m_ptr, m_idx, val, hit, c_ptr, c_idx, c_val):
    """Copy the hit entries of mask-aligned ``(val, hit)`` into CSR ``(c_ptr, c_idx, c_val)``."""
    for i in range(r0, r1):
        q = c_ptr[i]
        for p in range(m_ptr[i], m_ptr[i + 1]):
            if hit[p]:
                c_idx[q] = m_idx[p]
                c_val[q] = val[p]
                q += 1


def _row_ptr(counts, dtype=np.int64):
    ptr = np.empty(counts.size + 1, dtype)
    ptr[0] = 0
    np.cumsum(counts, out=ptr[1:])
    return ptr


def _dynamic(func, nparts, chunks, work):
    """``func(lo, hi, w)`` over ``chunks``, ``nparts`` threads each with its workspace
    ``work[t]`` taking the next chunk in turn (dynamic schedule)."""
    if nparts <= 1:
        for lo, hi in chunks:
            func(lo, hi, work[0])
        return
    it = iter(chunks)  # next() on a list iterator is atomic under the GIL

    def worker(t, _):
        for lo, hi in it:
            func(lo, hi, work[t])
    run_ranges(worker, [(t, 0) for t in range(nparts)])


#: Long rows of B (more than this factor times the mask row's ``n log n``) are searched for
#: the mask's columns rather than scanned.
SPGEMM_SEARCH = 4.0


def spgemm(A, B, semiring, mask, structural, complement, dtype):
    """``C<mask> = A B`` over a semiring, Gustavson's row-by-row saxpy: canonical CSR
    ``(indptr, indices, values)``.  ``A``, ``B`` and ``mask`` (or None) are canonical
    Matrices; the mask allows its stored entries (``structural``) or its non-zero ones, or
    with ``complement`` the positions where it does not.  The multiply sees
    ``x = A[i, k]``, ``a = B[k, j]``, ``i = k`` and ``j``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.semiring import Matrix, min_plus
    >>> A = Matrix.from_any(sp.csr_array(np.array([[0, 1.0, 4.0], [0, 0, 2.0], [0, 0, 0]])))
    >>> ptr, idx, val = spgemm(A, A, min_plus, None, False, False, np.dtype(np.float64))
    >>> ptr.tolist(), idx.tolist(), val.tolist()
    ([0, 1, 1, 1], [2], [3.0])
    """
    dtype = np.dtype(dtype)
    iso = _iso_value(A, B, semiring, dtype)
    if iso is not None:  # every product the same and the monoid idempotent: the pattern
        c_ptr, c_idx, c_val = spgemm(A, B, _ANY_PAIR, mask, structural, complement, dtype)
        c_val[:] = iso
        return c_ptr, c_idx, c_val
    n, ncols = A.nrows, B.ncols
    mod = _semiring_module("spgemm", _SPGEMM, semiring)
    x_val, b_val = _operand(A.data), _operand(B.data)
    if mask is not None:
        m_ptr, m_idx = mask.indptr, mask.indices
        m_ok = _DUMMY if structural else mask.data != 0
    else:
        m_ptr, m_idx, m_ok = np.zeros(n + 1, np.int64), _DUMMY, _DUMMY
    use_ok = not structural and mask is not None
    nparts = _threads(_flops(A, B))
    chunks = split(n, nparts * RANGES_PER_THREAD if nparts > 1 else 1, A.indptr)
    row_cnt = np.empty(n, np.int64)
    if mask is not None and not complement:
        nnz_m = m_idx.size
        out_val = np.empty(nnz_m, dtype)
        out_hit = np.empty(nnz_m, np.bool_)
        work = _scratch(ncols, dtype, nparts, 0, masked=True)

        def part(r0, r1, w):
            mod.masked(r0, r1, m_ptr, m_idx, m_ok, use_ok, A.indptr, A.indices, x_val,
                       B.indptr, B.indices, b_val, out_val, out_hit, row_cnt, w[0], w[1],
                       SPGEMM_SEARCH)
        _dynamic(part, nparts, chunks, work)
        if _SCRATCH.flags and work[0][0] is _SCRATCH.flags[0]:  # the kernel left them clear
            _SCRATCH.clean = True
        c_ptr = _row_ptr(row_cnt)
        nnz = int(c_ptr[-1])
        c_idx = np.empty(nnz, m_idx.dtype)
        c_val = np.empty(nnz, dtype)
        run_kernel(_compact_hits, _ranges(n, m_ptr, nnz_m), m_ptr, m_idx, out_val, out_hit,
                   c_ptr, c_idx, c_val)
        return c_ptr, c_idx, c_val
    work = _scratch(ncols, dtype, nparts, 2 * n, masked=False)
    base = work[0][2]
    args = (m_ptr, m_idx, m_ok, use_ok, bool(complement and mask is not None))
    _dynamic(lambda r0, r1, w: mod.count(r0, r1, *args, A.indptr, A.indices, B.indptr,
                                         B.indices, row_cnt, w[0], base), nparts, chunks, work)
    c_ptr = _row_ptr(row_cnt)
    nnz = int(c_ptr[-1])
    c_idx = np.empty(nnz, B.indices.dtype)
    c_val = np.empty(nnz, dtype)
    _dynamic(lambda r0, r1, w: mod.fill(r0, r1, *args, A.indptr, A.indices, x_val, B.indptr,
                                        B.indices, b_val, c_ptr, c_idx, c_val, w[0], w[1],
                                        base + n), nparts, chunks, work)
    return c_ptr, c_idx, c_val


#: Scratch entries (columns times ranges of rows run at once) up to which a SpGEMM keeps its
#: scratch between calls, per calling thread (an entry: a mark or flag and an accumulator
#: per value type; each kept set as wide as the widest call it served): a small product
#: then costs its work, not fresh arrays set and paged in, as long as B is wide.  (On 16
#: cores, fresh scratch made label propagation's colour classes, 30k-300k multiplies into
#: 131k columns each, take 0.76 s on 16 threads against 0.46 s on one, docs/benchmarks.md.)
KEPT_SCRATCH_ENTRIES = 1 << 21


class _Kept(threading.local):
    """A calling thread's SpGEMM scratch, a set per range of rows a call runs at once: the
    marks (every one below ``base``, one counter for all sets: stale), the masked kernel's
    flags (all clear while ``clean``) and accumulators per dtype."""

    def __init__(self):
        self.marks = []
        self.base = 0
        self.flags = []
        self.clean = True
        self.accs = {}


_SCRATCH = _Kept()


def _kept_sets(arrays, nparts, ncols, make):
    """The first ``nparts`` arrays of the kept list ``arrays``, each replaced by ``make()``
    where missing or narrower than ``ncols``."""
    arrays += [None] * (nparts - len(arrays))
    arrays[:nparts] = [a if a is not None and a.size >= ncols else make()
                       for a in arrays[:nparts]]
    return arrays[:nparts]


def _scratch(ncols, dtype, nparts, stamps, masked):
    """Per range of rows ``(flags or marks, accumulator, base)``: the masked kernel's flags
    (zero) or the count and fill kernels' marks (below ``base``), which take ``stamps``
    values from ``base`` on.  Up to :data:`KEPT_SCRATCH_ENTRIES` the calling thread's kept
    arrays serve; else they are new."""
    if nparts * ncols > KEPT_SCRATCH_ENTRIES:
        if masked:
            return [(np.zeros(ncols, np.int8), np.empty(ncols, dtype), 0)
                    for _ in range(nparts)]
        return [(np.full(ncols, -1, np.int64), np.empty(ncols, dtype), 0)
                for _ in range(nparts)]
    kept, size = _SCRATCH, max(ncols, 1024)
    accs = _kept_sets(kept.accs.setdefault(np.dtype(dtype), []), nparts, ncols,
                      lambda: np.empty(size, dtype))
    if masked:
        if not kept.clean:  # a run stopped midway: the flags are unknown
            kept.flags = []
        flags = _kept_sets(kept.flags, nparts, ncols, lambda: np.zeros(size, np.int8))
        kept.clean = False  # until the call returns
        return list(zip(flags, accs, [0] * nparts, strict=True))
    marks = _kept_sets(kept.marks, nparts, ncols, lambda: np.full(size, -1, np.int64))
    base, kept.base = kept.base, kept.base + stamps
    return list(zip(marks, accs, [base] * nparts, strict=True))


#: Monoids whose sum of equal values is that value.
_IDEMPOTENT = ("any", "min", "max", "lor", "land")
_TRUTH = ("lor", "land")
#: The structure of a product: ``any_pair`` (the monoid keeps any product, each product 1).
_ANY_PAIR = types.SimpleNamespace(
    name="any_pair", monoid=types.SimpleNamespace(name="any", c_expr="a"),
    multiply=types.SimpleNamespace(name="pair", c_expr="1", uses=""))


def _iso_value(A, B, semiring, dtype):
    """The one value of every entry of ``C = A B`` when every product is the same (both
    operands hold one value each, as SuiteSparse's iso-valued matrices, and the multiply
    reads no positions) and the monoid is idempotent, else None: then the product is its
    pattern's, without reading values."""
    mul = semiring.multiply
    if semiring.monoid.name not in _IDEMPOTENT or "i" in mul.uses or "j" in mul.uses:
        return None
    if "x" not in mul.uses and "a" not in mul.uses:  # reads no values: nothing to save
        return None
    if not (A.nnz and B.nnz):
        return None
    a, b = A.data, B.data
    if "x" in mul.uses and not bool((a == a[0]).all()):
        return None
    if "a" in mul.uses and not bool((b == b[0]).all()):
        return None
    one = np.zeros(1, np.int64)
    value = binary(mul, a[:1], b[:1], one, one, dtype)[0]
    if semiring.monoid.name in _TRUTH and value not in (0, 1):
        return None  # lor(9, 9) is 1, not 9: idempotent on truths alone
    return value


def _flops(A, B) -> int:
    if A.nnz == 0:
        return 0
    if B.pattern.known("max_out_degree") in (0, 1):
        return A.nnz  # at most one product per entry of A (a pointer matrix)
    return int(np.take(B.out_degree, A.indices).sum(dtype=np.int64))


#: The dot products search a row of B.T for A's columns when it is longer than this factor
#: times ``n log n`` of A's row.
DOT_SEARCH = 4.0


def masked_dot(A, BT, rows, cols, semiring, dtype):
    """Masked SpGEMM as dot products: ``out[p] = (+)_k mul(A[rows[p], k], B[k, cols[p]], k,
    cols[p])`` (``A`` and ``BT``, the transpose of ``B``, canonical Matrices); returns
    ``(present, values)`` per position.  Row ``i`` of A is scattered once for its run of
    positions; each row of B.T is scanned (or searched, when much longer) against it.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.semiring import Matrix, plus_pair
    >>> A = Matrix.from_any(sp.csr_array(np.eye(3)))
    >>> masked_dot(A, A, np.array([0, 0]), np.array([0, 1]), plus_pair, np.int64)
    (array([ True, False]), array([1, 0]))
    """
    dtype = np.dtype(dtype)
    npos = rows.size
    present, out = np.zeros(npos, bool), np.zeros(npos, dtype)
    if npos == 0:
        return present, out
    order = None
    if npos > 1 and bool((rows[1:] < rows[:-1]).any()):
        order = np.argsort(rows, kind="stable")
        rows, cols = rows[order], cols[order]
    mod = _semiring_module("spgemm", _SPGEMM, semiring)
    x_val, b_val = _operand(A.data), _operand(BT.data)
    work = np.minimum(np.take(A.out_degree, rows), np.take(BT.out_degree, cols))
    weights = _row_ptr(work)
    ranges = _ranges(npos, weights, int(weights[-1]))
    positions = np.full((len(ranges), A.ncols), -1, np.int64)  # a row a range
    run_kernel(mod.dot, [(p0, p1, r) for r, (p0, p1) in enumerate(ranges)], rows, cols, A.indptr,
               A.indices, x_val, BT.indptr, BT.indices, b_val, present, out, positions, DOT_SEARCH)
    if order is not None:
        present[order], out[order] = present.copy(), out.copy()
    return present, out


# ----------------------------------------------------------------------------- push, pull
_VECTOR = """
@KERNEL
def push(lo, hi, r, indptr, indices, a_val, x_idx, x_val, mask, mask_mode, accs, states,
         toucheds):
    # y = x @ A over the frontier entries lo..hi: dense acc/state, touched columns listed
    # (range r's rows of accs, states, toucheds)
    acc = accs[r]
    state = states[r]
    touched = toucheds[r]
    n = 0
    for t in range(U(lo), U(hi)):
        i = x_idx[t]
        for p in range(U(indptr[U(i)]), U(indptr[U(i) + ONE])):
            j = indices[p]
            u = U(j)  # unsigned reads: no wraparound test
            if mask_mode == 1:
                if not mask[u]:
                    continue
            elif mask_mode == 2:
                if mask[u]:
                    continue
            v = like(acc, mul(XV(t), AV(p), i, j))
            if state[u]:
                acc[u] = add(acc[u], v)
            else:
                state[u] = True
                acc[u] = v
                touched[n] = j
                n += 1
    return n


@KERNEL
def scatter(r0, r1, r, indptr, indices, a_val, x_val, first, rest):
    # y = x @ A for a dense x over rows r0..r1, into range r's accumulator (first, or row
    # r - 1 of rest) holding the monoid's identity
    acc = first if r == 0 else rest[r - 1]
    for i in range(r0, r1):
        for p in range(U(indptr[i]), U(indptr[i + 1])):
            j = indices[p]
            acc[U(j)] = add(acc[U(j)], like(acc, mul(XV(i), AV(p), i, j)))


@KERNEL
def fold(acc, acc0):
    # acc0 = acc0 (+) acc, entry by entry
    for j in range(acc0.size):
        acc0[j] = add(acc0[j], acc[j])


@KERNEL
def merge(acc, state, touched, count, acc0, state0, touched0, n0):
    # fold another thread's accumulator into the first one's
    for t in range(count):
        j = touched[t]
        if state0[j]:
            acc0[j] = add(acc0[j], acc[j])
        else:
            state0[j] = True
            acc0[j] = acc[j]
            touched0[n0] = j
            n0 += 1
    return n0


@KERNEL
def pull(r0, r1, tptr, tidx, a_val, x_present, x_val, mask, mask_mode, term_mode, term,
         y_present, y_val):
    # y = A.T x for a bitmap x into outputs r0..r1; early exit at the terminal
    for j in range(r0, r1):
        y_present[j] = False
        y_val[j] = 0
        if mask_mode == 1:
            if not mask[j]:
                continue
        elif mask_mode == 2:
            if mask[j]:
                continue
        found = False
        for p in range(U(tptr[j]), U(tptr[j + 1])):
            s = tidx[p]
            us = U(s)
            if not x_present[us]:
                continue
            v = like(y_val, mul(XV(us), AV(p), s, j))
            if found:
                y_val[j] = add(y_val[j], v)
            else:
                y_val[j] = v
                found = True
            if term_mode == 2 or (term_mode == 1 and y_val[j] == term):
                break
        y_present[j] = found


@KERNEL
def spmm(r0, r1, ptr, idx, x_val, B, mask, mask_mode, keep, ident, b_live, skip, C):
    # C[i, c] = add_k mul(A[i, k], B[k, c], k, c), the identity where nothing lands, at the
    # positions the mask allows; the others get the identity, or keep C's value (`keep`).
    # With `skip`, rows k of B that are not b_live (all the identity) are not read.
    w = B.shape[1]
    nnz = U(idx.size)
    line = U(max(1, 64 // B.itemsize))  # entries of B per cache line
    ahead = min(U(w), U(SPMM_LINES) * line)  # the row's first lines: the rest stream in
    acc = np.empty(w, C.dtype)  # row i's products, written to C through the mask
    for i in range(r0, r1):
        p0 = U(ptr[i])
        p1 = U(ptr[i + 1])
        if mask_mode != 0:
            allowed = False
            for c in range(w):
                if mask[i, c] == (mask_mode == 1):
                    allowed = True
                    break
            if not allowed:
                if not keep:
                    for c in range(w):
                        C[i, c] = ident
                continue
        if p0 == p1 or skip:
            for c in range(w):
                acc[c] = ident
        # the row of B that the entry SPMM_AHEAD places on reads is prefetched: B's rows are
        # read at random, and their loads then overlap the adds; only its first SPMM_LINES
        # lines (the hardware's stream prefetch takes the rest: prefetching every line of a
        # 1,000-column row cost a third of the product)
        if skip:
            for p in range(p0, p1):
                q = p + U(SPMM_AHEAD)
                if q < nnz and b_live[U(idx[q])]:
                    for c in range(U(0), ahead, line):
                        prefetch(B, U(idx[q]), c)
                k = idx[p]
                uk = U(k)
                if b_live[uk]:
                    for c in range(U(w)):
                        acc[c] = add(acc[c], like(acc, mul(XV(p), BV(uk, c), k, c)))
        elif p0 < p1:
            k = idx[p0]
            uk = U(k)
            for c in range(U(w)):
                acc[c] = mul(XV(p0), BV(uk, c), k, c)
            for p in range(p0 + ONE, p1):
                q = p + U(SPMM_AHEAD)
                if q < nnz:
                    for c in range(U(0), ahead, line):
                        prefetch(B, U(idx[q]), c)
                k = idx[p]
                uk = U(k)
                for c in range(U(w)):
                    acc[c] = add(acc[c], like(acc, mul(XV(p), BV(uk, c), k, c)))
        if mask_mode == 0:
            for c in range(w):
                C[i, c] = acc[c]
        else:
            for c in range(w):
                if mask[i, c] == (mask_mode == 1):
                    C[i, c] = acc[c]
                elif not keep:
                    C[i, c] = ident
"""


def _copied_back(template: str) -> str:
    """``template`` with each SpMM entry's adds written to a second row buffer and copied
    back, not stored in place: with a monoid that picks an operand (min, max), an in-place
    store of the value picked compiles to a masked store (AVX's ``vmaskmovpd``), several
    times slower on AMD's cores than the two plain loops (0.59-0.78 against 0.15-0.22 ns an
    entry in a scratch loop)."""
    add = re.compile(r"(?P<ind> +)for c in range\(U\(w\)\):\n(?P=ind)    "
                     r"acc\[c\] = add\(acc\[c\], (?P<term>.*)\)\n")
    template, count = add.subn(lambda m: (
        f"{m['ind']}for c in range(U(w)):\n{m['ind']}    nxt[c] = add(acc[c], {m['term']})\n"
        f"{m['ind']}for c in range(U(w)):\n{m['ind']}    acc[c] = nxt[c]\n"), template)
    if count != 2:  # the SpMM's two loops of adds: a template changed under this rewrite
        raise RuntimeError(f"the SpMM template's adds were not found ({count} of 2)")
    return template.replace("    acc = np.empty(w, C.dtype)",
                            "    nxt = np.empty(w, C.dtype)\n    acc = np.empty(w, C.dtype)")


_VECTOR_COPIED = _copied_back(_VECTOR)
#: Whether the host's vector stores under a mask are AVX's (no AVX-512): then :func:`spmm`
#: over min or max adds into a second buffer (:func:`_copied_back`).  With AVX-512 (an
#: Intel Xeon, 16 threads) the masked stores cost no more than the copy.
_MASKED_STORES_SLOW = not llvm.get_host_cpu_features().get("avx512f", False)


def _mask_mode(mask, complement):
    if mask is None:
        return _DUMMY.astype(bool), 0
    return mask, 2 if complement else 1


def spmspv(indptr, indices, data, n, x_idx, x_val, semiring, mask, complement, dtype):
    """Push: ``y = x @ A`` for a sparse ``x``, masked; returns sorted ``(y_idx, y_val)``.

    Parameters
    ----------
    indptr, indices, data : ndarray
        CSR of ``A`` (row = source vertex); ``data`` None when the multiply reads no values.
    n : int
        Number of columns (length of ``y``).
    x_idx, x_val : ndarray
        Stored indices and values of ``x``.
    semiring : Semiring
    mask : ndarray of bool or None
        Output entries allowed where ``mask`` is True (False if ``complement``).
    complement : bool
    dtype : numpy.dtype
        Output dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import min_plus
    >>> spmspv(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([5.0, 1.0, 2.0]), 2,
    ...        np.array([0, 1]), np.array([0.0, 0.5]), min_plus, None, False, np.float64)
    (array([0, 1]), array([5., 1.]))
    """
    dtype = np.dtype(dtype)
    mod = _semiring_module("vector", _VECTOR, semiring)
    data = _operand(data)
    mask, mode = _mask_mode(mask, complement)
    nx = x_idx.size
    starts = np.take(indptr, x_idx)
    work = np.empty(nx + 1, np.int64)
    work[0] = 0
    np.cumsum(np.take(indptr, x_idx + 1) - starts, out=work[1:])
    total = int(work[-1])
    ranges = _ranges(nx, work, total)
    nr = len(ranges)  # a row of each a range
    accs, states = np.empty((nr, n), dtype), np.zeros((nr, n), np.bool_)
    toucheds = np.empty((nr, min(n, total if nr == 1 else n)), np.int64)
    counts = run_kernel(mod.push, [(lo, hi, r) for r, (lo, hi) in enumerate(ranges)], indptr,
                        indices, data, x_idx, x_val, mask, mode, accs, states, toucheds)
    acc, state, touched = accs[0], states[0], toucheds[0]
    count = counts[0]
    for r in range(1, nr):
        if counts[r]:
            count = mod.merge(accs[r], states[r], toucheds[r], counts[r], acc, state, touched,
                              count)
    if count * 16 >= n:  # many: in order from the bitmap
        idx = np.flatnonzero(state)
    else:
        idx = np.sort(touched[:count])
    return idx, acc[idx]


def spmv_scatter(indptr, indices, data, n, x_val, semiring, dtype):
    """Push of a dense ``x`` (every entry present): ``y = x @ A`` row by row, each thread
    adding into its own dense accumulator that starts at the monoid's identity (no
    presence kept: the caller knows it, the columns with entries); returns ``y``, the
    identity where no entry lands.  Only for a monoid whose identity leaves every value
    as it is (the operations ask for it with ``plus``).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import plus_times
    >>> spmv_scatter(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([5.0, 1.0, 2.0]), 3,
    ...              np.array([1.0, 10.0]), plus_times, np.float64)
    array([ 5., 21.,  0.])
    """
    dtype = np.dtype(dtype)
    mod = _semiring_module("vector", _VECTOR, semiring)
    data = _operand(data)
    ident = _identity(semiring.monoid, dtype)
    ranges = _ranges(indptr.size - 1, indptr, int(indptr[-1]))
    first = np.full(n, ident, dtype)  # the result: not a row of the others' block
    rest = np.full((len(ranges) - 1, n), ident, dtype)
    run_kernel(mod.scatter, [(r0, r1, r) for r, (r0, r1) in enumerate(ranges)], indptr, indices,
               data, x_val, first, rest)
    for acc in rest:
        mod.fold(acc, first)
    return first


def spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype):
    """Pull: ``y = x @ A`` for a bitmap ``x``, masked; returns ``(y_present, y_val)``.

    ``tindptr, tindices, tdata`` is the CSR of ``A.T`` (row ``j`` lists the in-neighbours
    of ``j``).  Monoids with a terminal value (``any``, ``lor``, ...) stop scanning a
    vertex's in-edges once its result can no longer change.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import plus_times
    >>> spmv(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([5.0, 1.0, 2.0]),
    ...      np.array([True, True]), np.array([1.0, 10.0]), plus_times, None, False,
    ...      np.float64)
    (array([ True,  True]), array([15., 20.]))
    """
    dtype = np.dtype(dtype)
    mod = _semiring_module("vector", _VECTOR, semiring)
    n_out = tindptr.size - 1
    y_present, y_val = np.empty(n_out, bool), np.empty(n_out, dtype)
    tdata = _operand(tdata)
    mask, mode = _mask_mode(mask, complement)
    term_mode, term = _terminal(semiring.monoid, dtype)
    run_kernel(mod.pull, _ranges(n_out, tindptr, int(tindptr[-1]) + n_out), tindptr, tindices,
               tdata, x_present, x_val, mask, mode, term_mode, term, y_present, y_val)
    return y_present, y_val


def spmm(A, B, semiring, mask, complement, dtype, out=None, keep=False):
    """SpMM: ``C[i, c] = (+)_k mul(A[i, k], B[k, c], k, c)`` for a dense block ``B``, on the
    positions the dense bool ``mask`` allows (its complement with ``complement``), the
    monoid's identity elsewhere and where row i of ``A`` is empty.  A row at a time, the
    block's row of each entry added across the width (contiguous).  Written into ``out``
    (C-contiguous, of the result's shape and dtype, sharing no memory with ``B`` or the
    mask) when given; with ``keep``, the positions the mask does not allow keep ``out``'s
    values (GraphBLAS' ``C<M> = A B`` without replace).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.semiring import Matrix, plus_times
    >>> A = Matrix.from_any(sp.csr_array(np.array([[0, 2.0], [1.0, 1.0]])))
    >>> spmm(A, np.ones((2, 3)), plus_times, None, False, np.float64)
    array([[2., 2., 2.],
           [2., 2., 2.]])
    """
    dtype = np.dtype(dtype)
    m, w = A.nrows, int(B.shape[1])
    copied = _MASKED_STORES_SLOW and w >= COPY_WIDTH and "?" in semiring.monoid.c_expr
    mod = (_semiring_module("spmm_copied", _VECTOR_COPIED, semiring) if copied
           else _semiring_module("vector", _VECTOR, semiring))
    C = np.empty((m, w), dtype) if out is None else out
    if C.size == 0:
        return C
    B = np.ascontiguousarray(B)
    if mask is None:
        mask, mode = np.zeros((1, 1), bool), 0
    else:
        mask, mode = np.ascontiguousarray(mask), 2 if complement else 1
    x_val = _operand(A.data if "x" in semiring.multiply.uses else None)
    ident = _identity(semiring.monoid, dtype)
    # the product is B's value, and the monoid's identity is one (not ``any``'s placeholder)
    skip = (semiring.multiply.c_expr == "a" and B.dtype == dtype
            and semiring.monoid.terminal != ANY_TERMINAL)
    b_live = _live_rows(B, ident) if skip else _DUMMY.astype(bool)
    keep = bool(keep) and mode != 0 and out is not None
    run_kernel(mod.spmm, _ranges(m, A.indptr, A.nnz * w), A.indptr, A.indices, x_val, B, mask, mode,
               keep, ident, b_live, skip, C)
    return C


@kernel
def _row_differs(r0, r1, B, value, out):
    # every entry compared, no early exit: the loop vectorises (2-5x faster, live rows too)
    w = B.shape[1]
    for k in range(r0, r1):
        live = False
        for c in range(w):
            live |= B[k, c] != value
        out[k] = live


def _live_rows(B, value):
    """Whether each row of the dense block ``B`` holds an entry other than ``value`` (a row
    holding only the monoid's identity adds nothing to a product whose multiply is
    ``second``: the spmm skips it unread)."""
    out = np.empty(B.shape[0], bool)
    run_kernel(_row_differs, _ranges(B.shape[0], None, B.size), B, value, out)
    return out


# ----------------------------------------------------------------------------- operators
def _elementwise_template(kernel_args, call, slots):
    """A kernel ``run(lo, hi, <args>, out)`` with ``out[p] = call`` where each operand is
    an array (read at p), a scalar, or absent (0)."""
    body = call
    for name, kind in slots.items():
        body = body.replace("@" + name, {"array": f"{name}[p]", "scalar": name,
                                         "none": "0"}[kind])
    return f"""
@KERNEL
def run(lo, hi, {kernel_args}, out):
    for p in range(U(lo), U(hi)):  # unsigned: no negative-index fix-up, so it vectorises
        out[p] = {body}
"""


def _slot(arr):
    if arr is None:
        return "none", 0
    if isinstance(arr, np.ndarray) and arr.ndim:
        return "array", np.ascontiguousarray(arr)
    return "scalar", np.asarray(arr)[()]


def _elementwise(name, op, role, operands, dtype, size):
    """``op`` over ``operands`` (name -> array, scalar or None) into a new ``dtype`` array."""
    kinds, values = {}, []
    for nm, arr in operands.items():
        kinds[nm], v = _slot(arr)
        values.append(v)
    call = f"op({', '.join('@' + nm for nm in operands)})"
    template = _elementwise_template(", ".join(operands), call, kinds)
    mod = opcompile.module(f"{name}_{op.name}", template, op=(role, op))
    out = np.empty(size, np.dtype(dtype))
    run_kernel(mod.run, _ranges(size, None, size), *values, out)
    return out


def binary(op, x, a, i, j, dtype):
    """``op(x, a, i, j)`` elementwise over gathered operands (those the operator reads;
    ``x`` or ``a`` may be a scalar); ``j`` (the output index) is always given and sets the
    shape.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import ops
    >>> binary(ops.minus, np.array([5, 7]), np.array([1, 2]), None, np.array([0, 1]), np.int64)
    array([4, 5])
    """
    uses = op.uses
    return _elementwise("binary", op, "mul", {
        "x": x if "x" in uses else None, "a": a if "a" in uses else None,
        "i": i if "i" in uses else None, "j": j if "j" in uses else None}, dtype, j.size)


def index_unary(op, v, i, j, thunk, dtype):
    """``op(v, i, j, thunk)`` elementwise (an :class:`~spbfs.semiring.IndexUnaryOp`).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import select_ops
    >>> index_unary(select_ops.tril, None, np.array([0, 1]), np.array([1, 0]), 0, bool)
    array([False,  True])
    """
    uses = op.uses
    size = next(arr.size for arr in (v, i, j) if arr is not None)
    return _elementwise("index_unary", op, "iop", {
        "v": v if "v" in uses else None, "i": i if "i" in uses else None,
        "j": j if "j" in uses else None, "thunk": 0 if thunk is None else thunk},
        dtype, size)


_SEGMENTS = """
@KERNEL
def reduce1(s0, s1, values, starts, end, out):
    for s in range(s0, s1):
        lo = U(starts[s])  # unsigned positions: no wraparound test per read
        hi = U(starts[s + 1]) if s + 1 < starts.size else U(end)
        if hi - lo < U(8):
            acc = values[lo]
            for p in range(lo + ONE, hi):
                acc = add(acc, values[p])
            out[s] = acc
            continue
        # four accumulators (a monoid is associative and commutative): no single chain
        x0 = values[lo]
        x1 = values[lo + ONE]
        x2 = values[lo + U(2)]
        x3 = values[lo + U(3)]
        p = lo + U(4)
        while p + U(4) <= U(hi):
            x0 = add(x0, values[p])
            x1 = add(x1, values[p + ONE])
            x2 = add(x2, values[p + U(2)])
            x3 = add(x3, values[p + U(3)])
            p += U(4)
        while p < U(hi):
            x0 = add(x0, values[p])
            p += ONE
        out[s] = add(add(x0, x1), add(x2, x3))


@KERNEL
def reduce2(s0, s1, values, starts, end, out):
    w = values.shape[1]
    for s in range(s0, s1):
        lo = starts[s]
        hi = starts[s + 1] if s + 1 < starts.size else end
        for c in range(U(w)):
            out[s, c] = values[lo, c]
        for p in range(lo + 1, hi):
            for c in range(U(w)):
                out[s, c] = add(out[s, c], values[p, c])
"""


def segment_reduce(monoid, values, starts, dtype):
    """Reduce ``values[starts[k]:starts[k + 1]]`` (the last segment to the end) along axis 0.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import monoids
    >>> segment_reduce(monoids.max, np.array([3, 9, 4, 1]), np.array([0, 2]), np.int64)
    array([9, 4])
    """
    dtype = np.dtype(dtype)
    nseg = starts.size
    out = np.empty((nseg,) + values.shape[1:], dtype)
    if nseg == 0:
        return out
    values = np.ascontiguousarray(values, dtype=dtype)
    mod = opcompile.module(f"segments_{monoid.name}", _SEGMENTS, add=("add", monoid))
    k = mod.reduce2 if values.ndim == 2 else mod.reduce1
    end = values.shape[0]
    run_kernel(k, _ranges(nseg, None, values.size), values, starts, end, out)
    return out


#: Values from which a whole reduction is split over threads.
PARALLEL_REDUCE = 1 << 20


def reduce_values(monoid, values, dtype):
    """``monoid.ufunc.reduce(values)`` in ``dtype``, a range of ``values`` per thread (numpy
    releases the GIL in its loops), then the ranges' results reduced: the same value as one
    pass, NaN included, for a reduction whose order changes nothing (``min``, ``max``, or
    integer and boolean values); None for another (a float sum's last bits would follow the
    thread count), a small array, one thread or a monoid without a ufunc.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import monoids
    >>> reduce_values(monoids.min, np.arange(3.0, 2**21), np.float64)
    3.0
    """
    threads = get_num_threads()
    dtype = np.dtype(dtype)
    exact = monoid.name in ("min", "max") or dtype.kind in "biu"
    if monoid.ufunc is None or not exact or values.size < PARALLEL_REDUCE or threads == 1:
        return None
    parts = run_ranges(lambda lo, hi: monoid.ufunc.reduce(
        values[lo:hi].astype(dtype, copy=False), dtype=dtype), split(values.size, threads))
    return monoid.ufunc.reduce(np.array(parts, dtype), dtype=dtype).item()


_SELECT = """
@KERNEL
def count(r0, r1, ptr, idx, val, thunk, cnt):
    for i in range(r0, r1):
        c = 0
        for p in range(U(ptr[i]), U(ptr[i + 1])):
            if op(VV(p), i, idx[p], thunk):
                c += 1
        cnt[i] = c


@KERNEL
def fill(r0, r1, ptr, idx, val, thunk, c_ptr, c_idx, c_val):
    for i in range(r0, r1):
        q = U(c_ptr[i])
        for p in range(U(ptr[i]), U(ptr[i + 1])):
            if op(VV(p), i, idx[p], thunk):
                c_idx[q] = idx[p]
                c_val[q] = val[p]
                q += ONE
"""


def select_csr(op, indptr, indices, data, thunk, derived=None):
    """The entries of a canonical CSR matrix that the predicate ``op(v, i, j, thunk)``
    keeps, as CSR ``(indptr, indices, data)``: a count and a fill pass over rows.
    ``derived(key, build)``, when given, keeps what depends on the pattern alone between
    calls (the row pointers of tril / triu: a repeated call only copies).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import select_ops
    >>> ptr, idx, val = select_csr(select_ops.tril, np.array([0, 2, 4]), np.array([0, 1, 0, 1]),
    ...                            np.array([1.0, 2.0, 3.0, 4.0]), 0)
    >>> ptr.tolist(), idx.tolist(), val.tolist()
    ([0, 1, 3], [0, 0, 1], [1.0, 3.0, 4.0])
    """
    n = indptr.size - 1
    thunk = np.asarray(0 if thunk is None else thunk)[()]
    ranges = _ranges(n, indptr, indices.size)
    lower = _TRIANGLES.get(op.c_expr.replace(" ", ""))
    if lower is not None and float(thunk).is_integer():  # a row's kept run: one search
        return _triangle(indptr, indices, data, int(thunk), lower, ranges, derived)
    cnt = np.empty(n, np.int64)
    mod = opcompile.module(f"select_{op.name}", _specialise(_SELECT, op.uses),
                           op=("iop", op))
    run_kernel(mod.count, ranges, indptr, indices, data, thunk, cnt)
    c_ptr = _row_ptr(cnt, indptr.dtype)
    nnz = int(c_ptr[-1])
    c_idx, c_val = np.empty(nnz, indices.dtype), np.empty(nnz, data.dtype)
    run_kernel(mod.fill, ranges, indptr, indices, data, thunk, c_ptr, c_idx, c_val)
    return c_ptr, c_idx, c_val


def _triangle(indptr, indices, data, k, lower, ranges, derived=None):
    """tril / triu (diagonal offset ``k``) of sorted rows: each row's kept entries are one
    run, found by one bisection; the output's row pointers are counted (kept with the
    pattern through ``derived``: a later call copies only), then each range copies its
    rows' runs."""
    if derived is None:
        c_ptr = _triangle_pointers(indptr, indices, k, lower, ranges)
    else:
        c_ptr = derived(("triangle", k, lower), lambda: _triangle_pointers(
            indptr, indices, k, lower, ranges)).copy()
    nnz = int(c_ptr[-1])
    c_idx, c_val = np.empty(nnz, indices.dtype), np.empty(nnz, data.dtype)
    run_kernel(_copy_runs, ranges, indptr, indices, data, lower, c_ptr, c_idx, c_val)
    return c_ptr, c_idx, c_val


def _triangle_pointers(indptr, indices, k, lower, ranges):
    """The output's row pointers of tril / triu: each range counts its rows from 0, then
    the ranges before it are added."""
    c_ptr = np.empty(indptr.size, indptr.dtype)
    c_ptr[0] = 0
    totals = run_kernel(_tri_count, ranges, indptr, indices, k, lower, c_ptr)
    for (r0, r1), start in zip(ranges, np.cumsum([0, *totals]).tolist(), strict=False):
        c_ptr[r0 + 1:r1 + 1] += start
    return c_ptr


#: The positional predicates whose kept entries are one run of each sorted row: their C
#: expression (spaces removed) -> lower (tril) or upper (triu).
_TRIANGLES = {"(j<=i+thunk)": True, "(j>=i+thunk)": False}


@kernel
def _tri_count(r0, r1, indptr, indices, k, lower, c_ptr):
    """Rows ``r0..r1`` of tril (``j <= i + k``) or triu (``j >= i + k``): their kept run's
    length by one bisection each, summed into ``c_ptr[r0 + 1 .. r1]`` from 0.  The sum."""
    total = 0
    for i in range(r0, r1):
        p0 = np.uint64(indptr[i])  # unsigned: no wraparound test on each read
        p1 = np.uint64(indptr[i + 1])
        key = i + k if lower else i + k - 1  # the run ends / starts after the last <= key
        lo = p0
        hi = p1
        while lo < hi:
            mid = (lo + hi) >> np.uint64(1)
            if indices[mid] <= key:
                lo = mid + np.uint64(1)
            else:
                hi = mid
        total += np.int64(lo - p0 if lower else p1 - lo)
        c_ptr[i + 1] = total
    return total


@kernel
def _copy_runs(r0, r1, indptr, indices, data, lower, c_ptr, c_idx, c_val):
    """Rows ``r0..r1``' runs (see :func:`_tri_count`) copied to where ``c_ptr`` puts them."""
    for i in range(r0, r1):
        q0 = np.uint64(c_ptr[i])
        q1 = np.uint64(c_ptr[i + 1])
        s = np.uint64(indptr[i]) if lower else np.uint64(indptr[i + 1]) - (q1 - q0)
        for t in range(q1 - q0):
            c_idx[q0 + t] = indices[s + t]
            c_val[q0 + t] = data[s + t]


# ----------------------------------------------------------------------------- element-wise
_EWISE = """
@KERNEL
def mult(r0, r1, a_ptr, a_idx, x_val, b_ptr, b_idx, a_val, w_ptr, w_idx, w_val, cnt):
    # intersection of rows r0..r1, row i written from w_ptr[i] (room for the shorter row)
    for i in range(r0, r1):
        pa = U(a_ptr[i])
        a1 = U(a_ptr[i + 1])
        pb = U(b_ptr[i])
        b1 = U(b_ptr[i + 1])
        q0 = U(w_ptr[i])
        q = q0
        if pa < a1 and pb < b1:
            ja = a_idx[pa]
            jb = b_idx[pb]
            while True:
                if ja == jb:
                    w_idx[q] = ja
                    w_val[q] = mul(XV(pa), AV(pb), i, ja)
                    q += ONE
                    pa += ONE
                    pb += ONE
                    if pa == a1 or pb == b1:
                        break
                    ja = a_idx[pa]
                    jb = b_idx[pb]
                elif ja < jb:
                    pa += ONE
                    if pa == a1:
                        break
                    ja = a_idx[pa]
                else:
                    pb += ONE
                    if pb == b1:
                        break
                    jb = b_idx[pb]
        cnt[i] = np.int64(q - q0)


@KERNEL
def union(r0, r1, a_ptr, a_idx, x_val, b_ptr, b_idx, a_val, c_ptr, c_idx, c_val, filled,
          x_fill, a_fill):
    # union of rows r0..r1, row i written from c_ptr[i] (its size counted before); an
    # entry only A stores keeps its value, or (filled) is mul(x, a_fill), one only B
    # stores likewise mul(x_fill, a)
    for i in range(r0, r1):
        pa = U(a_ptr[i])
        a1 = U(a_ptr[i + 1])
        pb = U(b_ptr[i])
        b1 = U(b_ptr[i + 1])
        q = U(c_ptr[i])
        if pa < a1 and pb < b1:
            ja = a_idx[pa]
            jb = b_idx[pb]
            while True:
                if ja == jb:
                    c_idx[q] = ja
                    c_val[q] = mul(XV(pa), AV(pb), i, ja)
                    q += ONE
                    pa += ONE
                    pb += ONE
                    if pa == a1 or pb == b1:
                        break
                    ja = a_idx[pa]
                    jb = b_idx[pb]
                elif ja < jb:
                    c_idx[q] = ja
                    c_val[q] = (like(c_val, mul(XV(pa), a_fill, i, ja)) if filled
                                else like(c_val, x_val[pa]))
                    q += ONE
                    pa += ONE
                    if pa == a1:
                        break
                    ja = a_idx[pa]
                else:
                    c_idx[q] = jb
                    c_val[q] = (like(c_val, mul(x_fill, AV(pb), i, jb)) if filled
                                else like(c_val, a_val[pb]))
                    q += ONE
                    pb += ONE
                    if pb == b1:
                        break
                    jb = b_idx[pb]
        while pa < a1:
            ja = a_idx[pa]
            c_idx[q] = ja
            c_val[q] = like(c_val, mul(XV(pa), a_fill, i, ja)) if filled else like(c_val, x_val[pa])
            pa += ONE
            q += ONE
        while pb < b1:
            jb = b_idx[pb]
            c_idx[q] = jb
            c_val[q] = like(c_val, mul(x_fill, AV(pb), i, jb)) if filled else like(c_val, a_val[pb])
            pb += ONE
            q += ONE
"""


@kernel
def _union_count(r0, r1, a_ptr, a_idx, b_ptr, b_idx, cnt):
    """The size of each row's union of columns, rows ``r0..r1``."""
    one = np.uint64(1)
    for i in range(r0, r1):
        pa = np.uint64(a_ptr[i])
        a1 = np.uint64(a_ptr[i + 1])
        pb = np.uint64(b_ptr[i])
        b1 = np.uint64(b_ptr[i + 1])
        c = (a1 - pa) + (b1 - pb)
        if pa < a1 and pb < b1:
            ja = a_idx[pa]
            jb = b_idx[pb]
            while True:
                if ja == jb:
                    c -= one
                    pa += one
                    pb += one
                    if pa == a1 or pb == b1:
                        break
                    ja = a_idx[pa]
                    jb = b_idx[pb]
                elif ja < jb:
                    pa += one
                    if pa == a1:
                        break
                    ja = a_idx[pa]
                else:
                    pb += one
                    if pb == b1:
                        break
                    jb = b_idx[pb]
        cnt[i] = c


@kernel
def _compact_spans(r0, r1, starts, w_idx, w_val, c_ptr, c_idx, c_val):
    """Pack rows written from ``starts[i]`` into CSR ``(c_ptr, c_idx, c_val)``."""
    for i in range(r0, r1):
        s = np.uint64(starts[i])
        q0 = np.uint64(c_ptr[i])
        for t in range(np.uint64(c_ptr[i + 1]) - q0):
            c_idx[q0 + t] = w_idx[s + t]
            c_val[q0 + t] = w_val[s + t]


def ewise_csr(op, union, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, dtype, fills=None):
    """``op`` over two canonical CSR matrices of one shape, ``op(x, a, i, j)`` with ``x``
    from A and ``a`` from B: on the union of their patterns (``union``; a one-sided entry
    keeps its value, or with ``fills = (a_fill, b_fill)`` it is ``op(x, b_fill)`` /
    ``op(a_fill, a)``, GraphBLAS's ``eWiseUnion``) or on the intersection.  A union counts
    each row's size, then merges the rows into place; an intersection merges each row at a
    bound on its offset, then one copy packs the rows (none when it is all of the smaller
    operand).  Returns CSR ``(indptr, indices, values)``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import ops
    >>> ptr = np.array([0, 2])
    >>> ewise_csr(ops.minus, True, ptr, np.array([0, 2]), np.array([5.0, 1.0]),
    ...           np.array([0, 1]), np.array([2]), np.array([4.0]), np.float64)
    (array([0, 2]), array([0, 2]), array([ 5., -3.]))
    """
    dtype = np.dtype(dtype)
    mod = _semiring_module_op("ewise", _EWISE, op)
    n = a_ptr.size - 1
    work = a_idx.size + b_idx.size
    ranges = _ranges(n, a_ptr + b_ptr if _threads(work) > 1 else None, work)
    cnt = np.empty(n, np.int64)
    idt = np.promote_types(a_idx.dtype, b_idx.dtype)
    ptr_type = np.promote_types(a_ptr.dtype, b_ptr.dtype)
    if union:  # counted, then written in place
        run_kernel(_union_count, ranges, a_ptr, a_idx, b_ptr, b_idx, cnt)
        c_ptr = _row_ptr(cnt, ptr_type)
        c_idx, c_val = np.empty(int(c_ptr[-1]), idt), np.empty(int(c_ptr[-1]), dtype)
        a_fill, b_fill = (0, 0) if fills is None else fills
        run_kernel(mod.union, ranges, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, c_ptr, c_idx, c_val,
                   fills is not None, a_val.dtype.type(a_fill), b_val.dtype.type(b_fill))
        return c_ptr, c_idx, c_val
    starts = a_ptr if a_idx.size <= b_idx.size else b_ptr
    size = min(a_idx.size, b_idx.size)
    w_idx, w_val = np.empty(size, idt), np.empty(size, dtype)
    run_kernel(mod.mult, ranges, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, starts, w_idx, w_val,
               cnt)
    c_ptr = _row_ptr(cnt, ptr_type)
    nnz = int(c_ptr[-1])
    if nnz == size:  # every entry of the smaller operand: already packed
        return c_ptr, w_idx, w_val
    c_idx, c_val = np.empty(nnz, idt), np.empty(nnz, dtype)
    run_kernel(_compact_spans, ranges, starts, w_idx, w_val, c_ptr, c_idx, c_val)
    return c_ptr, c_idx, c_val


def _semiring_module_op(name, template, op):
    return opcompile.module(f"{name}_{op.name}", _specialise(template, op.uses),
                            mul=("mul", op))
