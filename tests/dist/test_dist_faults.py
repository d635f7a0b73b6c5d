"""Faults end spbfs.dist jobs cleanly: a dead, raising or out-of-memory rank ends the whole
job within seconds, and arguments that are wrong on some ranks, or differ between ranks, give
the same error on every rank.

Each test launches ``mpiexec -n P python -m mpi4py tests/mpi/fault_bfs.py MODE`` (the
helper of ``tests/helpers/mpi_launch.py``).  The faulting rank prints ``FAULT <unix time>``
just before the fault; the time from there to the end of ``mpiexec`` is what is bounded
(:data:`LIMIT`), so the launcher's start-up and the imports do not count.  The GPU tests need 2 GPUs
(``pytest -m gpu tests/dist/test_dist_faults.py`` on a 2-GPU machine).
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from mpi_launch import launch

pytestmark = pytest.mark.mpi

SCRIPT = "fault_bfs.py"
#: Seconds from the fault to the end of the job.
LIMIT = 10.0
#: Backstop for a job that does not end (the failure these tests look for).
HUNG = 90
#: Watchdog timeout used by the GPU stall tests (SPBFS_NCCL_TIMEOUT).
WATCHDOG = 3


def _run(P, mode, *args, env=None):
    """Launch a fault mode; ``(CompletedProcess, seconds from the fault to the job's end)``."""
    r = launch(P, SCRIPT, mode, *args, timeout=HUNG, env=env)
    end = time.time()
    out = r.stdout + r.stderr
    faults = [float(t) for t in re.findall(r"^FAULT (\d+\.\d+) rank", r.stdout, re.M)]
    assert faults, f"the fault never happened:\n{out[-4000:]}"
    after = end - min(faults)
    print(f"{mode} {' '.join(args)} P={P}: job ended {after:.2f} s after the fault, "
          f"exit status {r.returncode}")
    return r, after


def _ended_soon(r, after):
    out = r.stdout + r.stderr
    assert r.returncode != 0, out[-4000:]
    assert after < LIMIT, f"the job took {after:.1f} s to end after the fault:\n{out[-4000:]}"
    return out


def _errors(r, P):
    """``case -> [(type, message) of rank 0, 1, ...]`` from the ``ERR`` lines."""
    found = {}
    for case, rk, kind, msg in re.findall(r"^ERR (\S+) rank (\d+): (\w+): (.*)$", r.stdout,
                                          re.M):
        found.setdefault(case, {})[int(rk)] = (kind, msg.strip())
    out = {}
    for case, by_rank in found.items():
        assert sorted(by_rank) == list(range(P)), (case, by_rank, r.stdout[-3000:])
        out[case] = [by_rank[k] for k in range(P)]
    return out


def _same_everywhere(errors, case, kind, text):
    """Every rank raised the same exception of type ``kind``, its message containing
    ``text``; returns the message."""
    seen = set(errors[case])
    assert len(seen) == 1, (case, errors[case])
    (got_kind, msg), = seen
    assert got_kind == kind and text in msg, (case, got_kind, msg)
    return msg


# ---------------------------------------------------------------- a rank dies or raises (CPU)


def test_killed_rank_ends_the_job():
    """One rank of three SIGKILLs itself in the middle of a search: the others, blocked in
    a collective of that search, do not wait for it."""
    r, after = _run(3, "kill")
    _ended_soon(r, after)


def test_raising_rank_ends_the_job_with_its_message():
    r, after = _run(3, "raise")
    out = _ended_soon(r, after)
    assert "deliberate failure on rank 2 mid-search" in out


@pytest.mark.parametrize("mode", ["raise_allreduce", "raise_alltoallv"])
def test_raising_rank_in_an_operation_ends_the_job_with_its_message(mode):
    """A rank raising inside the collectives of the distributed operations (the delegates'
    allreduce, the all-to-all-v of remote results) ends the whole job with its message."""
    r, after = _run(3, mode)
    out = _ended_soon(r, after)
    assert "deliberate failure on rank 2 in" in out


def test_out_of_memory_rank_ends_the_job():
    r, after = _run(3, "oom")
    out = _ended_soon(r, after)
    assert "MemoryError" in out


def test_command_line_error_on_one_rank_ends_the_job():
    """``spbfs graph500 --dist`` catches the error of one rank (out of memory while
    validating) to print it; the other ranks wait in a collective, so the command line
    must end the job rather than return."""
    r, after = _run(3, "cli_oom")
    out = _ended_soon(r, after)
    assert "spbfs: error: " in out and "spbfs.dist: rank 2: ending the MPI job" in out
    assert "instead of ending the job" not in out


def test_watchdog_aborts_the_job_from_its_thread(tmp_path):
    """The watchdog's way out on CPU ranks: an (emulated) NCCL wait on rank 0 that never
    ends, the peer asleep; after SPBFS_NCCL_TIMEOUT the watchdog thread names the rank and
    the operation, aborts the communicator (which writes a mark file), then MPI_Abort ends
    the job."""
    mark = tmp_path / "abort_called"
    r, after = _run(2, "watchdog", env={"SPBFS_NCCL_TIMEOUT": "2", "SPBFS_FAULT_MARK": str(mark)})
    out = _ended_soon(r, after)
    assert "rank 0: NCCL alltoallv did not finish within 2 s (SPBFS_NCCL_TIMEOUT)" in out
    assert mark.read_text() == "rank 0: NCCL communicator abort called\n"
    assert after > 1.5, "the watchdog fired before its timeout"


# ---------------------------------------------------------------- arguments (CPU)


def test_ranks_disagreeing_on_n_all_raise_the_same_error():
    r = launch(3, SCRIPT, "n", timeout=HUNG)
    assert "OK n P=3" in r.stdout, r.stdout + r.stderr       # every rank passed the barrier
    errors = _errors(r, 3)
    msg = _same_everywhere(errors, "n", "ValueError", "n differs between ranks")
    assert msg == "n differs between ranks: [256, 256, 255]"
    assert r.returncode != 0                                   # raised again: the job fails


def test_ranks_disagreeing_on_the_source_all_raise_the_same_error():
    r = launch(2, SCRIPT, "source", timeout=HUNG)
    assert "OK source P=2" in r.stdout, r.stdout + r.stderr
    msg = _same_everywhere(_errors(r, 2), "source", "ValueError", "source differs")
    assert msg == "source differs between ranks: [3, 4]"
    assert r.returncode != 0


def test_out_of_range_edge_ids_are_refused_on_every_rank():
    r = launch(3, SCRIPT, "range", timeout=HUNG)
    assert "OK range P=3" in r.stdout, r.stdout + r.stderr
    errors = _errors(r, 3)
    msg = _same_everywhere(errors, "range_u", "ValueError", "u holds -3")
    assert msg == "edge endpoints must lie in [0, 256): u holds -3 (rank 1)"
    msg = _same_everywhere(errors, "range_v", "ValueError", "v holds 256")
    assert msg == "edge endpoints must lie in [0, 256): v holds 256 (rank 2)"
    assert r.returncode != 0


def _check_args_mode(P, *args):
    r = launch(P, SCRIPT, "args", *args, timeout=HUNG)
    assert r.returncode == 0 and f"OK args P={P}" in r.stdout, (r.stdout + r.stderr)[-4000:]
    errors = _errors(r, P)
    same, last = ", ".join(["256"] * (P - 1)), P - 1
    expect = {
        "n": ("ValueError", f"n differs between ranks: [{same}, 255]"),
        "source": ("ValueError", f"source differs between ranks: [{same.replace('256', '3')}"
                                 ", 4]"),
        "range_u": ("ValueError", f"u holds -3 (rank {min(1, last)})"),
        "range_v": ("ValueError", f"v holds 256 (rank {last})"),
        "threshold": ("ValueError", "threshold differs between ranks: ["),
        "directed": ("ValueError", "directed differs between ranks: [False, "),
        "lengths": ("ValueError", "u and v must be 1-D of equal length"),
        "dtype": ("TypeError", f"u must be an integer array, got dtype float64 (rank {last})"),
        "bad_n": ("TypeError", f"n must be a non-negative integer, got -1 (rank {last})"),
        "bfs_source_range": ("ValueError",
                             f"source must lie in [0, 256), got 256 (rank {last})"),
        "bfs_parents": ("ValueError", "return_parents differs between ranks"),
        "bfs_direction": ("ValueError", "direction differs between ranks: ['auto', "),
        "bfs_bad_direction": ("ValueError", f"got 'sideways' (rank {last})"),
        "many_sources_range": ("ValueError",
                               f"sources must lie in [0, 256), got 256 (rank {last})"),
        "many_sources_differ": ("ValueError", "sources differs between ranks: [[3, "),
        "weights_on_some_ranks": ("ValueError", "weights given differs between ranks: ["),
    }
    for case, (kind, text) in expect.items():
        _same_everywhere(errors, case, kind, text)
    assert "bfs_same_alpha" not in errors
    assert len(re.findall(r"^NOERR bfs_same_alpha rank \d", r.stdout, re.M)) == P


def test_argument_errors_on_one_rank_are_raised_on_every_rank():
    """Bad or differing arguments of from_edges and bfs on one rank: the same exception on
    every rank, naming the argument, the values or the failing rank; equivalent spellings
    of the same options are not refused."""
    _check_args_mode(3)


# ---------------------------------------------------------------- single process


def test_communicator_agree_names_the_argument_and_values(monkeypatch):
    from spbfs.dist import Communicator

    class World:
        """Stands for the other ranks: what each of them contributes to the allgather."""

        def __init__(self, others):
            self.others = others

        def allgather(self, mine):
            return [mine if x is None else x for x in self.others]

    c = Communicator()
    assert c.agree({"n": 5}, extra="x") == ["x"]
    monkeypatch.setattr(c, "comm", World([None, (None, (("n", 4),), None), None]))
    monkeypatch.setattr(c, "size", 3)
    with pytest.raises(ValueError, match=re.escape("n differs between ranks: [5, 4, 5]")):
        c.agree({"n": 5})
    monkeypatch.setattr(c, "comm", World([None, None, ((TypeError, "bad n"), (), None), None]))
    monkeypatch.setattr(c, "size", 4)
    with pytest.raises(TypeError, match=r"^bad n \(rank 2\)$"):
        c.agree({"n": 5})
    # an error on every rank: the lowest rank's, with no rank named
    monkeypatch.setattr(c, "comm", World([((ValueError, "bad 0"), (), None),
                                          ((ValueError, "bad 1"), (), None)]))
    monkeypatch.setattr(c, "size", 2)
    with pytest.raises(ValueError, match=r"^bad 0$"):
        c.agree({"n": 5}, error="bad here")


def test_from_edges_checks_ids_before_allocating_anything_of_size_n():
    from spbfs import dist

    with pytest.raises(ValueError, match=re.escape("[0, 4): u holds 1000000000000 (rank 0)")):
        dist.DistGraph.from_edges(np.array([10**12]), np.array([1]), 4)
    # an n far beyond memory: the bad id is reported, nothing of size n is allocated first
    with pytest.raises(ValueError, match=re.escape("u holds -1 (rank 0)")):
        dist.DistGraph.from_edges(np.array([-1]), np.array([1]), 2**62)
    with pytest.raises(TypeError, match="v must be an integer array"):
        dist.DistGraph.from_edges(np.array([0]), np.array([1.5]), 4)
    with pytest.raises(ValueError, match="1-D of equal length"):
        dist.DistGraph.from_edges(np.array([0, 1]), np.array([1]), 4)


def test_watchdog_fires_only_on_a_wait_past_its_timeout():
    import io

    from spbfs.dist.faults import Watchdog, nccl_timeout

    calls, out = [], io.StringIO()
    wd = Watchdog(3, 0.3, lambda: calls.append("comm"), lambda: calls.append("job"),
                   exit=calls.append, stream=out, poll=0.02)
    for _ in range(20):                     # many short waits: never fires
        wd.disarm(wd.arm("allreduce (min)"))
    time.sleep(0.5)
    assert calls == [] and not wd.fired.is_set()
    wd.arm("delegate OR")
    assert wd.fired.wait(5)
    assert calls == ["comm", "job", 1]
    assert out.getvalue().startswith("spbfs.dist: rank 3: NCCL delegate OR did not finish "
                                     "within 0.3 s (SPBFS_NCCL_TIMEOUT)")
    # an asynchronous NCCL error fires at once, whatever the timeout
    calls.clear()
    wd = Watchdog(1, 60, lambda: calls.append("comm"), lambda: calls.append("job"),
                   check_async=lambda: "unhandled system error", exit=calls.append,
                   stream=out, poll=0.02)
    wd.arm("alltoallv")
    assert wd.fired.wait(5) and calls == ["comm", "job", 1]
    assert "rank 1: NCCL reported an asynchronous error during alltoallv: unhandled system " \
           "error" in out.getvalue()
    # the timeout comes from SPBFS_NCCL_TIMEOUT unless given
    assert nccl_timeout(7) == 7.0


def test_watchdog_ends_the_process_even_when_the_job_abort_blocks(monkeypatch):
    """``MPI_Abort`` from the watchdog's thread may block (seen: ranks went on after the
    watchdog said it aborted); the process exit follows a grace period anyway, and a wait
    that returns once the communicator is aborted raises instead of going on."""
    import io
    import threading

    from spbfs.dist import faults

    monkeypatch.setattr(faults, "ABORT_GRACE", 0.2)
    monkeypatch.setattr(faults, "OUTPUT_GRACE", 0.0)
    calls, out, forever = [], io.StringIO(), threading.Event()
    wd = faults.Watchdog(0, 0.1, lambda: calls.append("comm"), forever.wait,
                               exit=calls.append, stream=out, poll=0.02)
    token = wd.arm("alltoallv")
    assert wd.fired.wait(5)
    assert calls == ["comm", 1]             # the blocked abort did not stop the exit
    with pytest.raises(RuntimeError, match="watchdog aborted this job"):
        wd.disarm(token)
    forever.set()


def test_nccl_timeout_from_the_environment(monkeypatch):
    from spbfs.dist.comm import NCCL_TIMEOUT, nccl_timeout

    monkeypatch.delenv("SPBFS_NCCL_TIMEOUT", raising=False)
    assert nccl_timeout() == NCCL_TIMEOUT == 60.0
    monkeypatch.setenv("SPBFS_NCCL_TIMEOUT", "2.5")
    assert nccl_timeout() == 2.5
    monkeypatch.setenv("SPBFS_NCCL_TIMEOUT", "never")
    with pytest.raises(ValueError, match="SPBFS|seconds"):
        nccl_timeout()


def test_cpu_ranks_have_no_watchdog():
    from spbfs.dist import Communicator

    c = Communicator()
    assert c.plane.name == "mpi" and c.nccl_timeout == 0.0
    assert c.plane.arm("alltoallv") is None


# ---------------------------------------------------------------- GPU ranks (2 GPUs)


def _gpu_count():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


def _two_gpus():
    if _gpu_count() < 2:
        pytest.skip("needs 2 GPUs")


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["kill", "raise", "oom", "cli_oom"])
def test_gpu_rank_fault_ends_the_job(mode):
    """SIGKILL, an exception or cupy's OutOfMemoryError on one of two GPU ranks in the
    middle of a search over NCCL: the job ends within LIMIT seconds."""
    _two_gpus()
    r, after = _run(2, mode, "gpu", "nccl")
    out = _ended_soon(r, after)
    if mode == "raise":
        assert "deliberate failure on rank 1 mid-search" in out
    if mode == "oom":
        assert "OutOfMemoryError" in out


@pytest.mark.gpu
def test_gpu_argument_errors_on_one_rank_are_raised_on_every_rank():
    """The argument checks on cupy edge arrays (GPU ranks, NCCL data plane)."""
    _two_gpus()
    _check_args_mode(2, "gpu", "nccl")


@pytest.mark.gpu
@pytest.mark.parametrize("mode,op", [("stall", "level exchange (all-to-all, delegate OR)"),
                                     ("stall_allreduce", "allreduce (sum)"),
                                     ("stall_alltoallv", "alltoallv")])
def test_gpu_watchdog_ends_a_job_whose_peer_stopped(mode, op):
    """Rank 1 stops (sleeps) while rank 0 waits in NCCL: nothing dies, so only rank 0's
    watchdog can end the job; it must, SPBFS_NCCL_TIMEOUT seconds later, naming the rank
    and the operation."""
    _two_gpus()
    r, after = _run(2, mode, "gpu", "nccl", env={"SPBFS_NCCL_TIMEOUT": str(WATCHDOG)})
    out = _ended_soon(r, after)
    assert (f"spbfs.dist: rank 0: NCCL {op} did not finish within {WATCHDOG} s" in out
            or f"rank 0: NCCL reported an asynchronous error during {op}" in out), out[-4000:]
    assert after >= WATCHDOG - 0.5
