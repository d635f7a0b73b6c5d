"""spbfs.semiring operations vs scipy.sparse and python-graphblas (SuiteSparse), same data.

Graph: Graph500 Kronecker (edgefactor 16, seed 1), symmetric, duplicates summed, float64
values 1.0 (SuiteSparse stores such a matrix as iso-valued, one value for all entries:
``--random-values`` gives every entry its own value instead); L is its strict lower
triangle.  Prints median seconds of each operation for spbfs (CPU, and GPU with --gpu-scale),
scipy where it has the operation, and python-graphblas, each column measured in a process
of its own (so no library's allocations or threads weigh on another's timings;
``--one-process`` measures them one after the other in this one).

Each process fixes glibc's malloc thresholds first and faults in 512 MB of heap
(``--default-malloc`` leaves malloc as it is): glibc otherwise raises its mmap threshold
the first time a large block is freed, after which arrays of a few MB come from the heap
instead of freshly mapped (and page-faulted) memory, so an operation's timings would depend
on what ran before it (measured: scipy's ``A + L`` at 1.4 ms or 2.4-4.2 ms in one job, and
python-graphblas's ``apply`` at 0.6 or 2.4 ms, by that history alone).

``--interleave`` measures the CPU columns in this one process call by call instead (spbfs,
scipy, python-graphblas, spbfs, ...; median of each): on a shared machine a burst of
load then hits every column alike rather than whichever one was running.

Usage: python benchmarks/bench_ops.py [--scale 16] [--gpu-scale 20] [--repeat 5]
       [--random-values] [--default-malloc] [--one-process | --interleave] [--skip TEXT]
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

from spbfs import semiring as sr
from spbfs.graph500.generate import kronecker


def graph(scale, random_values=False):
    n = 1 << scale
    u, v = kronecker(scale, 16, seed=1)
    A = sp.coo_array((np.ones(2 * u.size), (np.concatenate([u, v]), np.concatenate([v, u]))),
                     shape=(n, n)).tocsr()
    A.sum_duplicates()
    A.data[:] = np.random.default_rng(1).random(A.nnz) + 0.5 if random_values else 1.0
    return A


def steady_malloc() -> bool:
    """glibc malloc with fixed thresholds: blocks below 32 MB from the heap, which is never
    trimmed, and 512 MB of it faulted in up front, so no library's temporaries pay for fresh
    pages; False (nothing changed) where the C library is not glibc."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, TypeError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    if not (mallopt(m_mmap_threshold, 32 << 20) and mallopt(m_trim_threshold, 1 << 30)):
        return False
    warm = [np.ones(2 << 20) for _ in range(32)]  # 16 MB each, written: faulted in
    del warm  # back to the heap, which keeps it
    return True


def timed(fn, repeat, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def spbfs_cases(A, L, xp_rows):
    """The operations, on spbfs Matrix operands (CPU or GPU)."""
    rows = xp_rows
    return {
        "mxm plus_times A@A": lambda: sr.mxm(A, A, sr.plus_times),
        "mxm plus_pair L@L mask L": lambda: sr.mxm(L, L, sr.plus_pair, L, structural=True),
        "mxm min_plus L@L mask L": lambda: sr.mxm(L, L, sr.min_plus, L, structural=True),
        "ewise_add plus A+L": lambda: sr.ewise_add(A, L, sr.ops.plus),
        "ewise_mult times A*L": lambda: sr.ewise_mult(A, L, sr.ops.times),
        "reduce rows plus": lambda: sr.reduce(A, sr.monoids.plus, axis=1),
        "reduce all max": lambda: sr.reduce(A, sr.monoids.max),
        "apply ainv": lambda: sr.apply(A, sr.unary.ainv),
        "apply times right=2": lambda: sr.apply(A, sr.ops.times, right=2.0),
        "select tril": lambda: sr.select(A, "tril"),
        "extract rows": lambda: sr.extract(A, rows),
        "assign region": lambda: sr.assign(A, 3.0, rows[:64], rows[:64]),
    }


def graphblas_cases(A, L, rows):
    import graphblas as gb

    Ag = gb.io.from_scipy_sparse(A)
    Lg = gb.io.from_scipy_sparse(L)
    r = rows.tolist()
    r64 = r[:64]

    def assign():
        C = Ag.dup()
        C[r64, r64] = 3.0
        return C

    return {
        "mxm plus_times A@A": lambda: Ag.mxm(Ag, gb.semiring.plus_times).new(),
        "mxm plus_pair L@L mask L": lambda: Lg.mxm(Lg, gb.semiring.plus_pair).new(mask=Lg.S),
        "mxm min_plus L@L mask L": lambda: Lg.mxm(Lg, gb.semiring.min_plus).new(mask=Lg.S),
        "ewise_add plus A+L": lambda: Ag.ewise_add(Lg, gb.binary.plus).new(),
        "ewise_mult times A*L": lambda: Ag.ewise_mult(Lg, gb.binary.times).new(),
        "reduce rows plus": lambda: Ag.reduce_rowwise(gb.monoid.plus).new(),
        "reduce all max": lambda: Ag.reduce_scalar(gb.monoid.max).new(),
        "apply ainv": lambda: Ag.apply(gb.unary.ainv).new(),
        "apply times right=2": lambda: Ag.apply(gb.binary.times, right=2.0).new(),
        "select tril": lambda: gb.select.tril(Ag).new(),
        "extract rows": lambda: Ag[r, :].new(),
        "assign region": assign,
    }


def scipy_cases(A, L, rows):
    return {
        "mxm plus_times A@A": lambda: A @ A,
        "ewise_add plus A+L": lambda: A + L,
        "ewise_mult times A*L": lambda: A.multiply(L),
        "reduce rows plus": lambda: A.sum(axis=1),
        "reduce all max": lambda: A.max(),
        "apply ainv": lambda: -A,
        "apply times right=2": lambda: A * 2.0,
        "select tril": lambda: sp.tril(A),
        "extract rows": lambda: A[rows],
    }


#: The columns, each measured in a process of its own: ``(name, GPU-scale graph, cases)``.
COLUMNS = (("spbfs", False, "spbfs"), ("scipy", False, "scipy"),
           ("graphblas", False, "graphblas"), ("spbfs gpu", True, "spbfs"),
           ("graphblas (gpu graph)", True, "graphblas"))


def measure(column, args) -> dict:
    """One column (run in its own process): the graph's size and the median seconds of
    each operation."""
    _, on_gpu_graph, kind = next(c for c in COLUMNS if c[0] == column)
    A = graph(args.gpu_scale if on_gpu_graph else args.scale, args.random_values)
    L = sp.tril(A, -1).tocsr()
    rows = np.random.default_rng(0).choice(A.shape[0], A.shape[0] // 4, replace=False)
    sync = lambda: None  # noqa: E731
    if kind == "scipy":
        cases = scipy_cases(A, L, rows)
    elif kind == "graphblas":
        cases = graphblas_cases(A, L, rows)
    elif on_gpu_graph:
        import cupy

        def on_gpu(M):
            return sr.Matrix(cupy.asarray(M.indptr), cupy.asarray(M.indices),
                             cupy.asarray(M.data), M.shape[0], ncols=M.shape[1])

        cases = spbfs_cases(on_gpu(A), on_gpu(L), cupy.asarray(rows))
        sync = cupy.cuda.Device().synchronize
    else:
        cases = spbfs_cases(sr.Matrix.from_any(A), sr.Matrix.from_any(L), rows)
    if on_gpu_graph:  # A @ A of a large Kronecker graph does not fit anywhere
        cases.pop("mxm plus_times A@A")
    times = {name: timed(fn, args.repeat, sync) for name, fn in cases.items()
             if not any(text in name for text in args.skip)}
    return {"nnz": [A.nnz, L.nnz], "times": times}


def measure_interleaved(args) -> dict:
    """The CPU columns in this process, one call of each column in turn per repeat."""
    A = graph(args.scale, args.random_values)
    L = sp.tril(A, -1).tocsr()
    rows = np.random.default_rng(0).choice(A.shape[0], A.shape[0] // 4, replace=False)
    cases = {"spbfs": spbfs_cases(sr.Matrix.from_any(A), sr.Matrix.from_any(L), rows),
             "scipy": scipy_cases(A, L, rows)}
    try:
        cases["graphblas"] = graphblas_cases(A, L, rows)
    except ImportError as exc:
        print(f"# graphblas: no column ({exc})")
    times = {col: {} for col in cases}
    for name in cases["spbfs"]:
        if any(text in name for text in args.skip):
            continue
        fns = {col: c[name] for col, c in cases.items() if name in c}
        for fn in fns.values():
            fn()
        got = {col: [] for col in fns}
        for _ in range(args.repeat):
            for col, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                got[col].append(time.perf_counter() - t0)
        for col, ts in got.items():
            times[col][name] = float(np.median(ts))
    return {col: {"nnz": [A.nnz, L.nnz], "times": t} for col, t in times.items()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=16)
    p.add_argument("--gpu-scale", type=int, default=0, help="0: no GPU rows")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--random-values", action="store_true",
                   help="a value per entry (default: all 1.0, iso-valued for SuiteSparse)")
    p.add_argument("--default-malloc", action="store_true",
                   help="keep glibc's adaptive malloc thresholds (see the module docstring)")
    p.add_argument("--one-process", action="store_true",
                   help="every column in this process, one after the other")
    p.add_argument("--skip", action="append", default=[], metavar="TEXT",
                   help="leave out the operations whose name contains TEXT (repeatable)")
    p.add_argument("--interleave", action="store_true",
                   help="the CPU columns in this process, call by call in turn")
    p.add_argument("--column", help=argparse.SUPPRESS)  # a child process: one column
    args = p.parse_args(argv)
    measuring = args.column or args.one_process or args.interleave  # a parent only starts
    # the children
    steady = bool(measuring) and not args.default_malloc and steady_malloc()
    if args.column:
        print(json.dumps({**measure(args.column, args), "steady": steady}))
        return
    columns = [c for c, gpu, _ in COLUMNS if args.gpu_scale or not gpu]
    secs = {}
    if args.interleave:
        secs = {col: {**out, "steady": steady} for col, out in
                measure_interleaved(args).items()}
        columns = []
    for col in columns:
        if args.one_process:
            try:
                secs[col] = {**measure(col, args), "steady": steady}
            except ImportError as exc:
                print(f"# {col}: no column ({exc})")
            continue
        child = subprocess.run([sys.executable, __file__, *(argv or sys.argv[1:]),
                                "--column", col], capture_output=True, text=True)
        if child.returncode:
            why = (child.stderr.strip().splitlines() or [f"exit status {child.returncode}"])
            print(f"# {col}: no column ({why[-1]})")
            continue
        secs[col] = json.loads(child.stdout.strip().splitlines()[-1])
    nnz_a, nnz_l = secs["spbfs"]["nnz"]
    steady = secs["spbfs"]["steady"]
    secs = {col: out["times"] for col, out in secs.items()}
    print(f"# scale {args.scale}: n={1 << args.scale}, nnz(A)={nnz_a}, nnz(L)={nnz_l}"
          + (", random values" if args.random_values else ", values 1.0")
          + (f"; GPU rows at scale {args.gpu_scale}" if args.gpu_scale else "")
          + ("; malloc thresholds fixed" if steady else "; malloc as configured")
          + ("; one process" if args.one_process else "; interleaved in one process"
             if args.interleave else "; a process per column"))
    header = f"{'operation':<27}" + "".join(f"{c:>23}" for c in secs)
    print(header + f"{'spbfs/graphblas':>17}"
          + (f"{'gpu speedup':>13}" if args.gpu_scale else ""))
    for name in secs["spbfs"]:
        row = {col: t[name] for col, t in secs.items() if name in t}
        cells = "".join(f"{row[c] * 1e3:20.2f} ms" if c in row else f"{'-':>23}"
                        for c in secs)
        ratio = row["spbfs"] / row["graphblas"] if "graphblas" in row else float("nan")
        speedup = ""  # graphblas on the host's cores / spbfs on the GPU, same GPU-scale graph
        if "spbfs gpu" in row and "graphblas (gpu graph)" in row:
            speedup = f"{row['graphblas (gpu graph)'] / row['spbfs gpu']:12.1f}x"
        print(f"{name:<27}" + cells + f"{ratio:16.2f}x" + speedup, flush=True)


if __name__ == "__main__":
    main()
