"""Plain calls vs prepared calls, and the cost of checking an input once.

A user calls ``spbfs.bfs(A, s)`` on a scipy (or cupyx) matrix again and again.  For each
scale this prints, per search: the first plain call (which checks A and builds the cached
pattern), later plain calls, calls on ``spbfs.prepare(A)``, scipy's
``breadth_first_order`` on the same matrix and roots (CPU), and the structural check
alone, as a share of one prepared search.

Usage: python benchmarks/bench_plain_calls.py [--scales 18 20] [--gpu-scales 24] [--roots 8]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import spbfs
from spbfs.core.validation import check_compressed
from spbfs.graph500.generate import kronecker


def symmetric_kronecker(scale, edgefactor=16, seed=1):
    """The benchmark graph as a plain scipy CSR matrix (both directions stored)."""
    n = 1 << scale
    u, v = kronecker(scale, edgefactor, seed)
    A = sp.coo_array((np.ones(2 * u.size, np.float32), (np.concatenate([u, v]),
                                                        np.concatenate([v, u]))),
                     shape=(n, n)).tocsr()
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A


def _timed(fn, roots, sync=lambda: None):
    times = []
    for r in roots:
        t0 = time.perf_counter()
        fn(int(r))
        sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _row(name, first, plain, prepared, peer, check):
    peer_text = f"{peer * 1e3:9.2f}" if peer is not None else f"{'-':>9}"
    print(f"{name:<14}{first * 1e3:10.2f}{plain * 1e3:10.2f}{prepared * 1e3:10.2f}{peer_text}"
          f"{check * 1e3:9.2f}{100 * check / prepared:8.1f}%", flush=True)


def bench(A, roots, name, sync=lambda: None, peer=None):
    """One row: first plain call, later plain calls, prepared calls, peer, check cost."""
    n = A.shape[0]
    spbfs.clear_cache(A)
    t0 = time.perf_counter()
    spbfs.bfs(A, int(roots[0]))
    sync()
    first = time.perf_counter() - t0
    plain = _timed(lambda r: spbfs.bfs(A, r), roots, sync)
    M = spbfs.prepare(A)
    prepared = _timed(lambda r: spbfs.bfs(M, r), roots, sync)
    peer_time = _timed(peer, roots) if peer is not None else None
    check = _timed(lambda r: check_compressed(A.indptr, A.indices, A.data, n, n), roots[:3],
                   sync)
    _row(name, first, plain, prepared, peer_time, check)
    return plain, prepared, peer_time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20])
    p.add_argument("--gpu-scales", type=int, nargs="*", default=[])
    p.add_argument("--roots", type=int, default=8)
    args = p.parse_args(argv)
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"numpy {np.__version__}, scipy {scipy.__version__}")
    print(f"{'graph':<14}{'first ms':>10}{'plain ms':>10}{'prep. ms':>10}{'scipy ms':>9}"
          f"{'check ms':>9}{'check%':>9}")
    rng = np.random.default_rng(0)
    for scale in args.scales:
        A = symmetric_kronecker(scale)
        roots = rng.choice(np.flatnonzero(np.diff(A.indptr)), args.roots, replace=False)
        bench(A, roots, f"cpu scale {scale}",
              peer=lambda r, A=A: csgraph.breadth_first_order(A, r, return_predecessors=False))
    for scale in args.gpu_scales:
        import cupy
        import cupyx.scipy.sparse as csp

        A_host = symmetric_kronecker(scale)
        roots = rng.choice(np.flatnonzero(np.diff(A_host.indptr)), args.roots, replace=False)
        A = csp.csr_matrix(A_host)
        del A_host
        bench(A, roots, f"gpu scale {scale}", sync=cupy.cuda.Device().synchronize)


if __name__ == "__main__":
    main()
