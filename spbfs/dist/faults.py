"""How a distributed job ends when something goes wrong on one rank.

A rank that raises, runs out of memory or finds a peer stuck must end the whole MPI job,
with its message: returning or raising would leave the other ranks waiting in a collective
forever.  :func:`end_job` aborts this process's NCCL communicators (which frees the peers'
NCCL kernels), then calls ``MPI_Abort``, then leaves the process should the abort return.
On the NCCL data plane a daemon thread, the :class:`Watchdog`, watches each host wait on an
NCCL operation and ends the job when one outlasts :func:`nccl_timeout` seconds or NCCL
reports an asynchronous error.  :func:`end_job_on_unhandled_exception` makes an unhandled
exception on a GPU rank end the job at once (``python -m mpi4py`` would first tear CUDA
down, which blocks on the peers).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref

__all__ = ["Watchdog", "end_job", "end_job_on_unhandled_exception", "nccl_timeout"]

#: Seconds a host wait on an NCCL operation may last before the watchdog ends the job.
NCCL_TIMEOUT = 60.0
#: Environment variable overriding :data:`NCCL_TIMEOUT` (seconds; 0 or less: no watchdog).
NCCL_TIMEOUT_ENV = "SPBFS_NCCL_TIMEOUT"
#: Seconds the watchdog gives ``ncclCommAbort`` before it calls ``MPI_Abort`` regardless.
ABORT_GRACE = 2.0
#: Seconds given to the launcher to forward a rank's last output before ``MPI_Abort``
#: (which may end the launcher's forwarding first: the message would be lost).
OUTPUT_GRACE = 0.2


def nccl_timeout(value=None) -> float:
    """The NCCL watchdog timeout in seconds: ``value``, else ``$SPBFS_NCCL_TIMEOUT``, else 60.

    0 or a negative value turns the watchdog off.

    Examples
    --------
    >>> nccl_timeout(5)
    5.0
    >>> nccl_timeout("soon")
    Traceback (most recent call last):
        ...
    ValueError: the NCCL watchdog timeout must be a number of seconds, got 'soon'
    """
    if value is None:
        value = os.environ.get(NCCL_TIMEOUT_ENV, "").strip() or NCCL_TIMEOUT
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError("the NCCL watchdog timeout must be a number of seconds, got "
                         f"{value!r}") from None
    if out != out:
        raise ValueError("the NCCL watchdog timeout must be a number of seconds, got nan")
    return out




class Watchdog:
    """A daemon thread that ends the job when a watched wait outlasts ``timeout`` seconds.

    The waiting thread brackets each host wait on an NCCL operation with :meth:`arm` /
    :meth:`disarm` (a dictionary insert and delete: nothing is synchronised).  Every ``poll``
    seconds the thread looks at the waits in flight; when one is older than ``timeout``, or
    ``check_async()`` returns an error message, it writes the rank and the operation to
    ``stream``, calls ``abort_comm()`` (given :data:`ABORT_GRACE` seconds in a helper thread,
    as it may itself block), then ``abort_job()`` (``MPI_Abort``), then ``exit(1)`` should
    the abort return.

    Examples
    --------
    >>> import io
    >>> calls, out = [], io.StringIO()
    >>> wd = Watchdog(0, 0.05, lambda: calls.append("comm"), lambda: calls.append("job"),
    ...                exit=calls.append, stream=out, poll=0.01)
    >>> t = wd.arm("allreduce")
    >>> wd.fired.wait(5)
    True
    >>> calls
    ['comm', 'job', 1]
    >>> print(out.getvalue().split(";")[0])
    spbfs.dist: rank 0: NCCL allreduce did not finish within 0.05 s (SPBFS_NCCL_TIMEOUT)
    """

    def __init__(self, rank, timeout, abort_comm, abort_job, *, check_async=None, exit=None,
                 stream=None, poll=None):
        self.rank = rank
        self.timeout = float(timeout)
        self.poll = float(poll) if poll else min(1.0, max(0.02, self.timeout / 10))
        self._abort_comm = abort_comm
        self._abort_job = abort_job
        self._check_async = check_async
        self._exit = exit or os._exit
        self._stream = stream
        self._inflight = {}
        self._next = 0
        self.tripped = False
        self._stop = threading.Event()
        self.fired = threading.Event()
        self.thread = threading.Thread(target=self._run, name="spbfs-nccl-watchdog",
                                       daemon=True)
        self.thread.start()

    def arm(self, op):
        """Start watching a wait on operation ``op``; returns the token for :meth:`disarm`."""
        self._next += 1
        token = self._next
        self._inflight[token] = (op, time.monotonic())
        return token

    def disarm(self, token):
        """Stop watching the wait of ``token``; raises RuntimeError once the watchdog has
        fired (the wait returned because the communicator was aborted: nothing after it
        may run on, as the process is being ended)."""
        self._inflight.pop(token, None)
        if self.tripped:
            raise RuntimeError("spbfs.dist: the NCCL watchdog aborted this job")

    def stop(self):
        """End the thread (the job is left alone)."""
        self._stop.set()

    def _run(self):
        while not self._stop.wait(self.poll):
            waits = list(self._inflight.values())
            if not waits:
                continue
            op, t0 = min(waits, key=lambda w: w[1])
            error = self._check_async() if self._check_async is not None else None
            if error:
                self._fire(op, f"NCCL reported an asynchronous error during {op}: {error}")
                return
            if time.monotonic() - t0 > self.timeout:
                self._fire(op, f"NCCL {op} did not finish within {self.timeout:g} s "
                               f"({NCCL_TIMEOUT_ENV})")
                return

    def _fire(self, op, why):
        stream = self._stream or sys.stderr
        try:
            stream.write(f"spbfs.dist: rank {self.rank}: {why}; a peer rank has probably died "
                         "or stopped; aborting the NCCL communicator and the MPI job\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - the abort must happen whatever the stream does
            pass
        self.tripped = True         # the watched wait raises should it return meanwhile
        quietly(self._abort_comm, grace=ABORT_GRACE)
        time.sleep(OUTPUT_GRACE)
        quietly(self._abort_job, grace=ABORT_GRACE)   # MPI_Abort may block: exit anyway
        self._exit(1)
        self.fired.set()            # reached only where ``exit`` returns (tests)


def quietly(fn, grace=None):
    """Call ``fn`` ignoring its errors; with ``grace``, in a helper thread given that many
    seconds (an abort may itself block)."""
    def call():
        try:
            fn()
        except Exception:  # noqa: BLE001 - best effort on the way out
            pass

    if grace is None:
        call()
        return
    helper = threading.Thread(target=call, daemon=True)
    helper.start()
    helper.join(grace)


#: The NCCL data planes of this process (their communicators aborted by :func:`end_job`).
_LIVE = weakref.WeakSet()


def end_job(code=1):
    """End the whole MPI job from this rank after an error the other ranks may not share.

    The other ranks may be blocked in a collective (MPI or NCCL) that this rank will never
    join, so returning or raising would leave the job hanging.  Aborts every live NCCL
    communicator of this process first (which frees the peers' NCCL kernels), then calls
    ``MPI_Abort`` on ``COMM_WORLD``, then leaves the process at once should the abort
    return.  Returns without doing anything in a world of one.

    Examples
    --------
    >>> end_job(2)          # a world of one: nothing to end
    """
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    if world.Get_size() == 1:
        return
    sys.stderr.write(f"spbfs.dist: rank {world.Get_rank()}: ending the MPI job\n")
    sys.stderr.flush()
    for plane in list(_LIVE):
        if plane.nccl is not None:
            quietly(plane.nccl.abort, grace=ABORT_GRACE)
    time.sleep(OUTPUT_GRACE)
    world.Abort(code)
    os._exit(code)          # should the abort return (seen with MPICH): never the teardown


def end_job_on_unhandled_exception(plane):
    """Make an unhandled exception on a GPU rank end the job at once.

    ``python -m mpi4py`` calls ``MPI_Abort`` only at interpreter exit, and the exit first
    tears down CUDA, which blocks on an NCCL kernel waiting for this rank (measured: a GPU
    rank that raised mid-search left the job hanging).  The hook prints the traceback as
    usual, then :func:`end_job`.  ``plane`` (anything with an ``nccl`` attribute: the NCCL
    communicator, or None once released) joins the planes :func:`end_job` aborts.
    """
    from mpi4py import MPI

    _LIVE.add(plane)
    if getattr(sys.excepthook, "ends_the_job", False):
        return
    previous = sys.excepthook
    rank = MPI.COMM_WORLD.Get_rank()

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if any(p.nccl is not None for p in list(_LIVE)):
            sys.stderr.write(f"spbfs.dist: rank {rank}: unhandled {exc_type.__name__}; "
                             "aborting the NCCL communicator and the MPI job\n")
            end_job(1)

    hook.ends_the_job = True
    sys.excepthook = hook

