"""Faults in spbfs.dist jobs; run as ``mpiexec -n P python -m mpi4py THIS MODE [DEVICE [PLANE]]``.

Launched by ``tests/dist/test_dist_faults.py``.  The faulting rank prints ``FAULT <unix time>``
just before the fault, so the test can measure how long the job takes to end after it.
Argument modes print one ``ERR <case> rank <r>: <type>: <message>`` line per rank and case
(or ``NOERR ...`` when a rank raised nothing), meet at a barrier (so no rank was left
behind in a collective), and rank 0 prints ``OK <mode> P=<P>``; the ``*_raise`` variants
then raise the error again on every rank, which must end the job with a non-zero exit.

Modes (the fault strikes on the last rank, in the middle of the second search, unless said):

``kill``       SIGKILL.                 ``raise``    RuntimeError.
``raise_allreduce``, ``raise_alltoallv``: RuntimeError in a distributed operation's
               allreduce (pagerank) or all-to-all-v (sssp, connected_components).
``oom``        an allocation of 1 PiB (MemoryError, or cupy's OutOfMemoryError on GPUs).
``cli_oom``    the same in ``spbfs graph500 --dist``'s validation, which the command line
               catches and prints.
``stall``      GPU ranks, NCCL: the last rank stops (sleeps) before the delegate OR of a level
               while rank 0 waits in NCCL, so the watchdog of rank 0 must end the job
               (``SPBFS_NCCL_TIMEOUT``); ``stall_allreduce``, ``stall_alltoallv``: the same
               for a lone NCCL all-reduce / all-to-all-v data exchange outside a search.
``watchdog``   CPU ranks: the watchdog of rank 0 on an emulated NCCL wait that never ends
               (a blocked host thread), with the real MPI_Abort.
``n``, ``source``, ``range``   argument errors (below); ``args``: many cases, exit 0.
"""

import os
import signal
import sys
import threading
import time

import numpy as np
from world import world

import spbfs
from spbfs import dist
from spbfs.graph500 import generate

comm, rank, P = None, 0, 1           # set by main()
C, xp = None, np
SCALE, EF = 10, 8
N = 1 << SCALE


def say(line):
    """One line to stdout in one write (lines of different ranks do not interleave)."""
    sys.stdout.flush()
    os.write(1, (line + "\n").encode())


def fault_now():
    say(f"FAULT {time.time():.6f} rank {rank}")


def build():
    """The Kronecker graph split over the ranks, and a root in its giant component."""
    U, V = generate.kronecker(SCALE, EF, seed=5)
    s0, s1 = dist.slice_bounds(U.size, rank, P)
    G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), N, threshold=8,
                                  comm=C)
    return G, int(U[0])


def strike_in_second_search(method, action, calls=2):
    """On the last rank, run ``action`` at the ``calls``-th call of ``C.method`` after the
    first search (so in the middle of the second)."""
    G, root = build()
    dist.bfs(G, root, return_parents=True)          # a whole search first
    if rank == P - 1:
        original = getattr(C, method)
        count = [0]

        def hooked(*args, **kwargs):
            count[0] += 1
            if count[0] == calls:
                fault_now()
                action()
            return original(*args, **kwargs)

        setattr(C, method, hooked)
    for _ in range(1000):                            # the job must end inside this loop
        dist.bfs(G, root, return_parents=True)
    raise AssertionError("the fault did not end the job")


def mode_kill():
    strike_in_second_search("alltoallv_start", lambda: os.kill(os.getpid(), signal.SIGKILL))


def mode_raise():
    def boom():
        raise RuntimeError(f"deliberate failure on rank {rank} mid-search")

    strike_in_second_search("alltoallv_start", boom)


def strike_in_operations(method, algorithm, calls=3):
    """On the last rank, raise at the ``calls``-th call of ``C.method`` inside ``algorithm``
    (a distributed operation's collective), run over and over until the job ends."""
    G, root = build()
    if rank == P - 1:
        original = getattr(C, method)
        count = [0]

        def hooked(*args, **kwargs):
            count[0] += 1
            if count[0] == calls:
                fault_now()
                raise RuntimeError(f"deliberate failure on rank {rank} in {method}")
            return original(*args, **kwargs)

        setattr(C, method, hooked)
    for _ in range(1000):
        algorithm(G, root)
    raise AssertionError("the fault did not end the job")


def mode_raise_allreduce():
    """In the delegates' reduction of a product (pagerank)."""
    strike_in_operations("allreduce_array", lambda G, root: spbfs.pagerank(G))


def mode_raise_alltoallv():
    """In the exchange of a product's remote part (sssp) or of a scatter (components)."""
    strike_in_operations("alltoallv_many", lambda G, root: (spbfs.sssp(G, root),
                                                            spbfs.connected_components(G)))


def mode_oom():
    strike_in_second_search("alltoallv_start", lambda: xp.ones(1 << 50, np.uint8))


def mode_cli_oom():
    """``spbfs graph500 --dist``: the last rank runs out of memory validating the second
    search while the others wait in the validation's collectives; the command line prints
    the error and must end the job (the error is caught, so no exception hook fires)."""
    import spbfs.dist.harness as harness
    from spbfs.cli import main

    if rank == P - 1:
        original, count = harness.validate, [0]

        def validate(*args, **kwargs):
            count[0] += 1
            if count[0] == 2:
                fault_now()
                xp.ones(1 << 50, np.uint8)
            return original(*args, **kwargs)

        harness.validate = validate
    code = main(["graph500", "--dist", "--scale", "9", "--edgefactor", "8", "--roots", "4",
                 "--device", device, "--no-progress"])
    raise AssertionError(f"rank {rank}: the command line returned {code} instead of ending the job")


def mode_stall():
    strike_in_second_search("or_words_start", lambda: time.sleep(600))


def _stall_lone(op):
    assert C.data_plane == "nccl", "stall modes need GPU ranks with the NCCL data plane"
    C.allreduce_array(xp.ones(8, np.int64), "sum")    # NCCL works between the ranks
    if rank == P - 1:
        fault_now()
        time.sleep(600)
    if op == "allreduce":
        C.allreduce_array(xp.ones(8, np.int64), "sum")
    else:
        counts = np.full(P, 4, np.int64)
        C.plane.alltoallv(xp.arange(4 * P), counts, counts)   # counts already agreed
    raise AssertionError("the NCCL operation returned although a peer stalled")


def mode_stall_allreduce():
    _stall_lone("allreduce")


def mode_stall_alltoallv():
    _stall_lone("alltoallv")


def mode_watchdog():
    from mpi4py import MPI

    from spbfs.dist.faults import Watchdog, nccl_timeout

    if rank == 0:
        def abort_comm():
            # A file, not stdout: MPI_Abort may end the launcher before it forwards the
            # last lines of output.
            with open(os.environ["SPBFS_FAULT_MARK"], "w") as f:
                f.write(f"rank {rank}: NCCL communicator abort called\n")

        wd = Watchdog(rank, nccl_timeout(), abort_comm, lambda: MPI.COMM_WORLD.Abort(1))
        wd.arm("alltoallv")
        fault_now()
        threading.Event().wait()     # a host wait that never ends (GIL released, as in CUDA)
    else:
        time.sleep(600)
    raise AssertionError("the watchdog did not end the job")


# ------------------------------------------------------------------------ argument errors


def collective_error(case, fn):
    """Run ``fn``; print this rank's exception (or its absence); every rank must get there."""
    try:
        fn()
    except (ValueError, TypeError) as e:
        say(f"ERR {case} rank {rank}: {type(e).__name__}: {e}")
        return e
    say(f"NOERR {case} rank {rank}")
    return None


def edges(bad_u=None, bad_v=None, length=None, dtype=None):
    U, V = generate.kronecker(8, 4, seed=2)
    s0, s1 = dist.slice_bounds(U.size, rank, P)
    u, v = U[s0:s1].copy(), V[s0:s1].copy()
    if bad_u is not None:
        u[0] = bad_u
    if bad_v is not None:
        v[-1] = bad_v
    if length is not None:
        v = v[:length]
    if dtype is not None:
        u = u.astype(dtype)
    return xp.asarray(u), xp.asarray(v)


def last(value, other):
    """``value`` on the last rank, ``other`` elsewhere."""
    return value if rank == P - 1 else other


def case_n():
    u, v = edges()
    dist.DistGraph.from_edges(u, v, last(255, 256), comm=C)


def case_source():
    u, v = edges()
    G = dist.DistGraph.from_edges(u, v, 256, threshold=8, comm=C)
    dist.bfs(G, last(4, 3), return_parents=True)


def case_range_u():
    u, v = edges(bad_u=-3 if rank == min(1, P - 1) else None)
    dist.DistGraph.from_edges(u, v, 256, comm=C)


def case_range_v():
    u, v = edges(bad_v=256 if rank == P - 1 else None)
    dist.DistGraph.from_edges(u, v, 256, comm=C)


def _run_cases(cases, mode, again):
    errors = [collective_error(name, fn) for name, fn in cases]
    comm.Barrier()
    if rank == 0:
        say(f"OK {mode} P={P}")
    if again:
        raise errors[-1]


def mode_n():
    _run_cases([("n", case_n)], "n", again=True)


def mode_source():
    _run_cases([("source", case_source)], "source", again=True)


def mode_range():
    _run_cases([("range_u", case_range_u), ("range_v", case_range_v)], "range", again=True)


def mode_args():
    def threshold():
        u, v = edges()
        dist.DistGraph.from_edges(u, v, 256, threshold=last(9, 8), comm=C)

    def directed():
        u, v = edges()
        dist.DistGraph.from_edges(u, v, 256, directed=last(True, False), comm=C)

    def lengths():
        u, v = edges(length=last(3, None))
        dist.DistGraph.from_edges(u, v, 256, comm=C)

    def dtype():
        u, v = edges(dtype=last(np.float64, None))
        dist.DistGraph.from_edges(u, v, 256, comm=C)

    def bad_n():
        u, v = edges()
        dist.DistGraph.from_edges(u, v, last(-1, 256), comm=C)

    u, v = edges()
    G = dist.DistGraph.from_edges(u, v, 256, threshold=8, comm=C)

    def bfs_source_range():
        dist.bfs(G, last(256, 3))

    def bfs_parents():
        dist.bfs(G, 3, return_parents=last(True, False))

    def bfs_direction():
        dist.bfs(G, 3, direction=last("pull", "auto"))

    def bfs_bad_direction():
        dist.bfs(G, 3, direction=last("sideways", "auto"))

    def bfs_same_alpha_spelled_twice():
        dist.bfs(G, 3, alpha=last(15, 15.0))

    def many_sources_range():
        spbfs.bfs(G, [3, last(256, 4)])

    def many_sources_differ():
        spbfs.bfs(G, [3, last(5, 4)])

    def weights_on_some_ranks():
        u, v = edges()
        dist.DistGraph.from_edges(u, v, 256, weights=last(np.ones(u.size), None), comm=C)

    _run_cases([("n", case_n), ("source", case_source), ("range_u", case_range_u),
                ("range_v", case_range_v), ("threshold", threshold), ("directed", directed),
                ("lengths", lengths), ("dtype", dtype), ("bad_n", bad_n),
                ("bfs_source_range", bfs_source_range), ("bfs_parents", bfs_parents),
                ("bfs_direction", bfs_direction), ("bfs_bad_direction", bfs_bad_direction),
                ("bfs_same_alpha", bfs_same_alpha_spelled_twice),
                ("many_sources_range", many_sources_range),
                ("many_sources_differ", many_sources_differ),
                ("weights_on_some_ranks", weights_on_some_ranks)],
               "args", again=False)


def main():
    global comm, rank, P, device, C, xp
    comm, rank, P, mode, device, C, xp = world()
    globals()[f"mode_{mode}"]()


if __name__ == "__main__":
    main()
