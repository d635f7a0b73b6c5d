"""One communicator for the distributed code: MPI for control, MPI or NCCL for data.

:class:`Communicator` owns an mpi4py communicator (``COMM_WORLD`` by default).  Control
traffic (counts, scalars, small Python objects, error agreement) always goes through MPI on
the host.  Bulk data (the all-to-all-v of frontier vertices, the delegate bitmap reduction,
the delegate-parent reduction) goes through the *data plane*:

``"mpi"``
    numpy buffers straight to MPI on CPU ranks; on GPU ranks the buffers are copied to the
    host first and back after (host staging), so a device pointer never reaches an MPI that
    is not CUDA-aware.
``"nccl"``
    GPU ranks only: a ``cupy.cuda.nccl.NcclCommunicator`` bootstrapped through MPI (rank 0
    makes the unique id and broadcasts it).  NCCL has no bitwise OR, so the delegate bitmap
    is reduced with ``MAX`` over one byte per delegate or with an all-gather of packed bits
    followed by a local OR.
``"auto"``
    ``"nccl"`` on GPU ranks when NCCL is available, else ``"mpi"``.

One NCCL communicator serves every :class:`Communicator` of an MPI communicator and GPU: it
is made with the first (collectively) and kept for the process, and graphs built without a
``comm`` share one Communicator (:func:`shared_communicator`), so a process that builds many
graphs pays NCCL's set-up once.

Every data-plane call adds to :attr:`Communicator.bytes_sent` (payload bytes this rank put on
the wire) and :attr:`Communicator.comm_time` (seconds spent inside communication, the wait
for slower ranks included), which the BFS reports as its communication share.

Failures.  :meth:`Communicator.agree` and :meth:`Communicator.check` turn an argument error on
some ranks, or arguments that differ between ranks, into the same exception on every rank
(one small allgather).  On the NCCL data plane a daemon thread (the *watchdog*) watches every
host wait on an NCCL operation: when NCCL reports an asynchronous error, or the wait outlasts
:func:`nccl_timeout` seconds (``SPBFS_NCCL_TIMEOUT``, default 60, 0 to disable), it writes the
rank and the operation to stderr, aborts the NCCL communicator and calls ``MPI_Abort`` on
``COMM_WORLD``, so a dead or stuck peer cannot leave the job waiting forever.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from contextlib import contextmanager

import numpy as np

__all__ = ["Communicator", "as_communicator", "nccl_timeout"]

DEVICES = ("cpu", "gpu", "auto")
DATA_PLANES = ("auto", "mpi", "nccl")

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


_timeout_of = nccl_timeout     # (Communicator's argument of that name hides the function)


def _builtin_type(exc):
    """The nearest built-in exception class of ``exc`` (what travels between ranks)."""
    return next(k for k in type(exc).__mro__ if k.__module__ == "builtins")


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values differ
        return False


class _Watchdog:
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
    >>> wd = _Watchdog(0, 0.05, lambda: calls.append("comm"), lambda: calls.append("job"),
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
        _quietly(self._abort_comm, grace=ABORT_GRACE)
        time.sleep(OUTPUT_GRACE)
        _quietly(self._abort_job, grace=ABORT_GRACE)   # MPI_Abort may block: exit anyway
        self._exit(1)
        self.fired.set()            # reached only where ``exit`` returns (tests)


def _quietly(fn, grace=None):
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


#: The communicators of this process with an NCCL communicator (aborted by :func:`end_job`).
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
    for c in list(_LIVE):
        if c.nccl is not None:
            _quietly(c.nccl.abort, grace=ABORT_GRACE)
    time.sleep(OUTPUT_GRACE)
    world.Abort(code)
    os._exit(code)          # should the abort return (seen with MPICH): never the teardown


def _abort_on_unhandled_exception(comm):
    """Make an unhandled exception on a GPU rank end the job at once.

    ``python -m mpi4py`` calls ``MPI_Abort`` only at interpreter exit, and the exit first
    tears down CUDA, which blocks on an NCCL kernel waiting for this rank (measured: a GPU
    rank that raised mid-search left the job hanging).  The hook prints the traceback as
    usual, then :func:`end_job`.
    """
    _LIVE.add(comm)
    if getattr(sys.excepthook, "ends_the_job", False):
        return
    previous = sys.excepthook
    rank = comm.MPI.COMM_WORLD.Get_rank()

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if any(c.nccl is not None for c in list(_LIVE)):
            sys.stderr.write(f"spbfs.dist: rank {rank}: unhandled {exc_type.__name__}; "
                             "aborting the NCCL communicator and the MPI job\n")
            end_job(1)

    hook.ends_the_job = True
    sys.excepthook = hook


#: The communicators made for an MPI communicator, device and data plane (one NCCL set-up).
_SHARED = {}
#: The NCCL communicator of each MPI communicator and GPU, made once (collectively) and
#: kept for the process.  One per Communicator cost a second of set-up each, and left to
#: the garbage collector they deadlocked a job: ``ncclCommDestroy`` waits for the peers,
#: whose collector runs at other moments (seen on 4 H200s: the third graph's build hung).
_NCCL = {}
_SHARED_LOCK = threading.Lock()


def _abort_nccl_at_exit():
    """At exit, release every kept NCCL communicator without waiting for peers (an abort
    is local; a destroy in the interpreter's teardown could wait on a peer forever)."""
    for _, nccl_comm in list(_NCCL.values()):
        _quietly(nccl_comm.abort, grace=ABORT_GRACE)
    _NCCL.clear()


def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.is_available()
    except Exception:  # noqa: BLE001 - any failure means "no usable GPU"
        return False


class _Pending:
    """An exchange in flight; :meth:`wait` returns its result (once)."""

    def __init__(self, finish):
        self._finish = finish
        self._result = None
        self._done = False

    def wait(self):
        if not self._done:
            self._result = self._finish()
            self._done = True
            self._finish = None
        return self._result


class Communicator:
    """MPI (control + CPU data) and, on GPU ranks, NCCL (GPU data) behind one object.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm, optional
        The MPI communicator; ``MPI.COMM_WORLD`` by default.
    device : {"cpu", "gpu", "auto"}
        Where this rank's arrays live.  ``"gpu"`` picks GPU ``local_rank % n_gpus`` (local
        rank among the ranks sharing the node) and makes :attr:`xp` cupy.  ``"auto"`` is
        ``"gpu"`` when CuPy sees a GPU on every rank, else ``"cpu"``.
    data_plane : {"auto", "mpi", "nccl"}
        How bulk data moves (module docstring).  ``"nccl"`` needs GPU ranks.
    nccl_timeout : float, optional
        NCCL data plane: seconds a host wait on one NCCL operation may last before the
        watchdog aborts the NCCL communicator and the MPI job (:func:`nccl_timeout`: default
        ``$SPBFS_NCCL_TIMEOUT``, else 60; 0 turns the watchdog off).

    Raises
    ------
    ValueError
        On every rank (one allgather decides), when an argument is invalid on some rank,
        differs between ranks, or ``device="gpu"`` finds no GPU on some rank.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.dist import Communicator
    >>> c = Communicator()          # COMM_WORLD; a single process is a world of one
    >>> c.size, c.device, c.data_plane
    (1, 'cpu', 'mpi')
    >>> recv, counts = c.alltoallv(np.array([7, 8]), np.array([2]))
    >>> recv.tolist(), counts.tolist()
    ([7, 8], [2])
    >>> c.or_words_start(np.array([5], np.uint32)).wait().tolist()
    [5]
    """

    def __init__(self, comm=None, *, device="cpu", data_plane="auto", nccl_timeout=None):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.bytes_sent = 0
        self.comm_time = 0.0
        self.nccl = None
        self._side_stream = None
        self._watchdog = None
        error = None
        if device not in DEVICES:
            error = ValueError(f"device must be one of {DEVICES}, got {device!r}")
        elif data_plane not in DATA_PLANES:
            error = ValueError(f"data_plane must be one of {DATA_PLANES}, got {data_plane!r}")
        elif data_plane == "nccl" and device == "cpu":
            error = ValueError("data_plane='nccl' needs GPU ranks (device='gpu')")
        gpu = None
        if error is None and device in ("gpu", "auto"):
            gpu = _gpu_available()
            if device == "gpu" and not gpu:
                error = ValueError("device='gpu' but CuPy finds no usable CUDA GPU on this rank")
        timeout = NCCL_TIMEOUT
        if error is None and data_plane != "mpi" and device != "cpu":
            try:
                timeout = _timeout_of(nccl_timeout)
            except ValueError as e:
                error = e
        # one collective: the same error on every rank, or arguments that agree
        gpus = self.agree({"device": device, "data_plane": data_plane}, error=error,
                          extra=gpu)
        if device == "auto":
            device = "gpu" if all(gpus) else "cpu"
        self.device = device
        if device == "gpu":
            import cupy

            self.xp = cupy
            local = self.comm.Split_type(MPI.COMM_TYPE_SHARED)
            ndev = cupy.cuda.runtime.getDeviceCount()
            self.gpu_id = local.Get_rank() % ndev
            local.Free()
            cupy.cuda.Device(self.gpu_id).use()
        else:
            self.xp = np
            self.gpu_id = None
        if data_plane == "nccl" and device != "gpu":   # device="auto" found no GPU somewhere
            raise ValueError("data_plane='nccl' needs GPU ranks (device='gpu')")
        if data_plane == "auto":
            data_plane = "nccl" if device == "gpu" and self._nccl_importable() else "mpi"
        self.data_plane = data_plane
        #: seconds a host wait on NCCL may last before the watchdog ends the job (0: off)
        self.nccl_timeout = timeout if data_plane == "nccl" else 0.0
        if data_plane == "nccl":
            self._init_nccl()

    # ------------------------------------------------------------------ set-up
    @staticmethod
    def _nccl_importable() -> bool:
        try:
            from cupy.cuda import nccl

            return bool(getattr(nccl, "available", True))
        except Exception:  # noqa: BLE001
            return False

    def _init_nccl(self):
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # never NVLink multicast
        from cupy.cuda import nccl

        self._nccl_mod = nccl
        if self.nccl_timeout > 0:
            me = weakref.ref(self)

            def abort_comm():
                c = me()
                if c is not None and c.nccl is not None:
                    c.nccl.abort()

            def check_async():
                c = me()
                if c is None or c.nccl is None:
                    return None
                try:
                    c.nccl.check_async_error()
                except nccl.NcclError as e:
                    return str(e)
                except Exception:  # noqa: BLE001 - an NCCL without ncclCommGetAsyncError
                    return None
                return None

            world = self.MPI.COMM_WORLD
            self._watchdog = _Watchdog(self.rank, self.nccl_timeout, abort_comm,
                                       lambda: world.Abort(1), check_async=check_async)
            weakref.finalize(self, self._watchdog.stop)
        _abort_on_unhandled_exception(self)
        key = (id(self.comm), self.gpu_id)
        with _SHARED_LOCK:
            held = _NCCL.get(key)
        if held is not None and held[0] is self.comm and self.comm != self.MPI.COMM_NULL:
            self.nccl = held[1]
            return
        uid = nccl.get_unique_id() if self.rank == 0 else None
        uid = self.comm.bcast(uid, root=0)
        token = self._arm("communicator set-up")
        try:
            self.nccl = nccl.NcclCommunicator(self.size, uid, self.rank)
            self.sync()
        finally:
            self._disarm(token)
        self.comm.Barrier()
        with _SHARED_LOCK:
            if not _NCCL:
                atexit.register(_abort_nccl_at_exit)
            _NCCL[key] = (self.comm, self.nccl)   # keeps ``comm``: its id is not reused

    def close(self):
        """Stop using the NCCL communicator (the process keeps it for the other
        Communicators of the same MPI communicator; MPI stays with its owner) and stop the
        watchdog."""
        if self.nccl is not None:
            self.sync()
            self.nccl = None
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None

    def _arm(self, op):
        """Start watching a host wait on NCCL operation ``op`` (None without a watchdog)."""
        wd = self._watchdog
        return None if wd is None else wd.arm(op)

    def _disarm(self, token):
        if token is not None and self._watchdog is not None:
            self._watchdog.disarm(token)

    # ------------------------------------------------------------------ helpers
    def sync(self):
        """Wait for this rank's GPU work (no-op on CPU ranks)."""
        if self.device == "gpu":
            self.xp.cuda.get_current_stream().synchronize()

    @contextmanager
    def timed(self, nbytes=0, watch=None):
        """Count the enclosed block as communication: its time and ``nbytes`` sent.

        With ``watch`` (an operation name) and an NCCL watchdog, the block and the wait for
        the stream at its end are watched (:data:`NCCL_TIMEOUT`).
        """
        self.sync()
        t0 = time.perf_counter()
        token = self._arm(watch) if watch is not None else None
        try:
            yield
        finally:
            self.sync()
            self._disarm(token)
            self.comm_time += time.perf_counter() - t0
            self.bytes_sent += int(nbytes)

    def reset_counters(self):
        """Zero :attr:`bytes_sent` and :attr:`comm_time`."""
        self.bytes_sent = 0
        self.comm_time = 0.0

    def to_host(self, a):
        """``a`` as a numpy array (a device-to-host copy for cupy arrays)."""
        return a.get() if self.xp is not np and isinstance(a, self.xp.ndarray) else np.asarray(a)

    def to_device(self, a):
        """``a`` in this rank's array module."""
        return self.xp.asarray(a)

    def _mpi_type(self, dtype):
        from mpi4py.util.dtlib import from_numpy_dtype

        return from_numpy_dtype(np.dtype(dtype))

    # ------------------------------------------------------------------ control (host, MPI)
    def agree(self, values=None, *, error=None, extra=None):
        """Collective argument check: one allgather, then the same outcome on every rank.

        Parameters
        ----------
        values : dict, optional
            ``name -> value`` that must be equal on every rank (plain Python values).
        error : Exception or str, optional
            This rank's own argument error, if it found one (a str is a ValueError).
        extra : object, optional
            Anything small (picklable) to share with the other ranks.

        Returns
        -------
        list
            ``extra`` of every rank, by rank (when nothing is raised).

        Raises
        ------
        ValueError, TypeError, ...
            On every rank, the same exception: the ``error`` of the lowest rank that has one
            (its built-in type; followed by ``(rank r)`` unless all ranks failed), else
            ``"NAME differs between ranks: [value on rank 0, value on rank 1, ...]"`` for the
            first name whose values differ.

        Examples
        --------
        >>> from spbfs.dist import Communicator
        >>> c = Communicator()
        >>> c.agree({"n": 100}, extra=(0, 7))
        [(0, 7)]
        >>> c.agree({"n": 100}, error=TypeError("n must be an integer"))
        Traceback (most recent call last):
            ...
        TypeError: n must be an integer
        """
        if isinstance(error, str):
            error = ValueError(error)
        err = None if error is None else (_builtin_type(error), str(error))
        items = tuple((values or {}).items())
        everyone = self.comm.allgather((err, items, extra))
        failed = [r for r, (e, _, _) in enumerate(everyone) if e is not None]
        if failed:
            r = failed[0]
            kind, message = everyone[r][0]
            where = f" (rank {r})" if len(failed) < self.size else ""
            raise kind(f"{message}{where}")
        for i, (name, _) in enumerate(items):
            seen = [got[i][1] if i < len(got) else None for _, got, _ in everyone]
            if not all(_same(x, seen[0]) for x in seen[1:]):
                raise ValueError(f"{name} differs between ranks: {seen}")
        return [x for _, _, x in everyone]

    def check(self, ok, message, exc=ValueError):
        """Collective error agreement: raise ``exc`` on every rank if any rank has ``ok`` false.

        The message is the one of the lowest failing rank (followed by that rank when not
        all ranks failed).  No rank is left waiting in a later collective.  One allgather;
        :meth:`agree` also compares values between ranks in the same collective.

        Examples
        --------
        >>> from spbfs.dist import Communicator
        >>> Communicator().check(False, "n must be positive")
        Traceback (most recent call last):
            ...
        ValueError: n must be positive
        """
        self.agree(error=None if ok else exc(message))

    def allreduce(self, value, op="sum"):
        """Reduce a host scalar or small numpy array over ranks (``sum``, ``min``, ``max``).

        Examples
        --------
        >>> from spbfs.dist import Communicator
        >>> Communicator().allreduce(3, "max")
        3
        """
        mop = {"sum": self.MPI.SUM, "min": self.MPI.MIN, "max": self.MPI.MAX}[op]
        if isinstance(value, np.ndarray):
            out = np.empty_like(value)
            self.comm.Allreduce(value, out, op=mop)
            return out
        return self.comm.allreduce(value, op=mop)

    def bcast(self, obj, root=0):
        """Broadcast a Python object from ``root``."""
        return self.comm.bcast(obj, root=root)

    def gather(self, obj, root=0):
        """Gather Python objects to ``root`` (list there, None elsewhere)."""
        return self.comm.gather(obj, root=root)

    def allgather(self, obj):
        """Every rank's Python object, on every rank."""
        return self.comm.allgather(obj)

    def barrier(self):
        """MPI barrier."""
        self.comm.Barrier()

    # ------------------------------------------------------------------ data plane
    def alltoallv(self, send, send_counts):
        """All-to-all-v of one array: ``send`` holds the data for rank 0, then rank 1, ...

        Parameters
        ----------
        send : array (numpy or cupy, this rank's module)
        send_counts : array-like of int, length ``size``
            Elements for each destination rank.

        Returns
        -------
        recv : array
            What the others sent here, ordered by source rank.
        recv_counts : numpy.ndarray of int64

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> recv, counts = Communicator().alltoallv(np.arange(3), [3])
        >>> recv.tolist(), counts.tolist()
        ([0, 1, 2], [3])
        """
        (recv,), recv_counts = self.alltoallv_many([send], send_counts)
        return recv, recv_counts

    def alltoallv_many(self, arrays, send_counts):
        """:meth:`alltoallv` of several arrays sharing the same counts (one counts exchange).

        Returns ``(list_of_recv_arrays, recv_counts)``.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> (a, b), counts = Communicator().alltoallv_many([np.arange(2), np.ones(2)], [2])
        >>> a.tolist(), b.tolist()
        ([0, 1], [1.0, 1.0])
        """
        sc = np.ascontiguousarray(np.asarray(send_counts, dtype=np.int64))
        rc = np.empty_like(sc)
        t0 = time.perf_counter()
        self.comm.Alltoall(sc, rc)
        self.comm_time += time.perf_counter() - t0
        self.bytes_sent += sc.nbytes
        out = [self._alltoallv_data(a, sc, rc) for a in arrays]
        return out, rc

    def _alltoallv_data(self, send, sc, rc):
        xp = self.xp
        dtype = send.dtype
        itemsize = dtype.itemsize
        nsent = int(sc.sum()) - int(sc[self.rank])
        if self.size == 1:
            return send[: int(sc[0])].copy()
        sdisp = np.zeros_like(sc)
        np.cumsum(sc[:-1], out=sdisp[1:])
        rdisp = np.zeros_like(rc)
        np.cumsum(rc[:-1], out=rdisp[1:])
        total = int(rc.sum())
        nccl_plane = self.data_plane == "nccl"
        with self.timed(nsent * itemsize, watch="alltoallv" if nccl_plane else None):
            if nccl_plane:
                return self._nccl_alltoallv([xp.ascontiguousarray(send)], [xp.empty(total, dtype)],
                                            sc, rc, xp.cuda.get_current_stream().ptr)[0]
            host = np.ascontiguousarray(self.to_host(send))
            hrecv = np.empty(total, dtype)
            view = np.uint8 if dtype == np.bool_ else dtype
            mt = self._mpi_type(view)
            self.comm.Alltoallv([host.view(view), (sc, sdisp), mt],
                                [hrecv.view(view), (rc, rdisp), mt])
            return self.to_device(hrecv) if xp is not np else hrecv

    # ------------------------------------------------- the per-level exchanges of dist.bfs
    @contextmanager
    def watch(self, op):
        """Watch the enclosed host wait (a stream synchronisation behind which NCCL work
        started without waiting may sit) with the NCCL watchdog; nothing else."""
        token = self._arm(op) if self.data_plane == "nccl" else None
        try:
            yield
        finally:
            self._disarm(token)

    def exchange_counts(self, send_counts, value):
        """One allgather of each rank's send counts and one number: returns the counts this
        rank receives from each rank and the sum of ``value`` over ranks.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> rc, total = Communicator().exchange_counts(np.array([4]), 2)
        >>> rc.tolist(), total
        ([4], 2)
        """
        row = np.append(np.asarray(send_counts, np.int64), np.int64(value))
        if self.size == 1:
            return row[:1].copy(), int(row[1])
        table = np.empty((self.size, row.size), np.int64)
        t0 = time.perf_counter()
        self.comm.Allgather(row, table)
        self.comm_time += time.perf_counter() - t0
        self.bytes_sent += row.nbytes
        return table[:, self.rank].copy(), int(table[:, -1].sum())

    def _side(self):
        if self._side_stream is None:
            self._side_stream = self.xp.cuda.Stream(non_blocking=True)
        return self._side_stream

    def ready(self):
        """A mark of the work enqueued so far on this rank's stream (NCCL data plane: a CUDA
        event; else None), for :meth:`alltoallv_start`'s ``after``."""
        if self.data_plane == "nccl" and self.size > 1:
            return self.xp.cuda.get_current_stream().record()
        return None

    def _start_on_side(self, enqueue, after=None):
        """Run ``enqueue(stream_ptr)`` on the side stream after the main stream's work so
        far (or after the event ``after``); the result's ``wait()`` makes the main stream
        wait for it (no host wait)."""
        xp = self.xp
        main, side = xp.cuda.get_current_stream(), self._side()
        side.wait_event(after if after is not None else main.record())
        with side:
            out = enqueue(side.ptr)
        done = side.record()

        def finish():
            main.wait_event(done)
            return out

        return _Pending(finish)

    def alltoallv_start(self, arrays, send_counts, recv_counts, after=None, starts=None):
        """All-to-all-v of arrays sharing counts already exchanged (:meth:`exchange_counts`).

        Rank ``p``'s part of each array starts at ``starts[p]`` (default: the parts follow
        one another).

        NCCL: enqueued on a side stream, after the work marked by ``after`` (:meth:`ready`;
        default: all work enqueued so far), so it overlaps what the caller enqueued since
        and enqueues next; the result's ``wait()`` orders the main stream after it.
        Host-staged MPI: done here.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().alltoallv_start([np.arange(3)], [3], [3]).wait()[0].tolist()
        [0, 1, 2]
        """
        sc = np.asarray(send_counts, np.int64)
        rc = np.asarray(recv_counts, np.int64)
        sdisp = np.cumsum(sc) - sc if starts is None else np.asarray(starts, np.int64)
        if self.data_plane != "nccl" or self.size == 1:
            if starts is not None:   # the parts, one after another
                arrays = [self.xp.concatenate([a[s:s + k] for s, k in zip(sdisp, sc, strict=True)])
                          for a in arrays]
            out = [self._alltoallv_data(a, sc, rc) for a in arrays]
            return _Pending(lambda: out)
        xp = self.xp
        recv = [xp.empty(int(rc.sum()), a.dtype) for a in arrays]
        self.bytes_sent += sum((int(sc.sum()) - int(sc[self.rank])) * a.dtype.itemsize
                               for a in arrays)
        return self._start_on_side(
            lambda ptr: self._nccl_alltoallv(arrays, recv, sc, rc, ptr, sdisp), after)

    def _nccl_alltoallv(self, sends, recvs, sc, rc, stream, sdisp=None):
        """Arrays sharing counts, in one NCCL group on ``stream``; returns ``recvs``.
        Rank ``p``'s part of each send starts at ``sdisp[p]`` (default: one after another)."""
        nccl, r = self._nccl_mod, self.rank
        if sdisp is None:
            sdisp = np.cumsum(sc) - sc
        rdisp = np.cumsum(rc) - rc
        if sc[r]:
            for send, recv in zip(sends, recvs, strict=True):
                recv[rdisp[r]: rdisp[r] + rc[r]] = send[sdisp[r]: sdisp[r] + sc[r]]
        nccl.groupStart()
        for send, recv in zip(sends, recvs, strict=True):
            itemsize = send.dtype.itemsize
            for p in range(self.size):
                if p == r:
                    continue
                if sc[p]:
                    self.nccl.send(send.data.ptr + int(sdisp[p]) * itemsize,
                                   int(sc[p]) * itemsize, nccl.NCCL_UINT8, p, stream)
                if rc[p]:
                    self.nccl.recv(recv.data.ptr + int(rdisp[p]) * itemsize,
                                   int(rc[p]) * itemsize, nccl.NCCL_UINT8, p, stream)
        nccl.groupEnd()
        return recvs

    def or_words_start(self, words):
        """Start the OR over ranks of a uint32 bitmap (the delegates' visited bits; any
        bitwise OR: view wider words as uint32).

        NCCL: an all-gather and a local OR on the side stream (``wait()`` orders the main
        stream after them); host-staged MPI: a ``BOR`` allreduce, done here.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().or_words_start(np.array([5], np.uint32)).wait().tolist()
        [5]
        """
        xp = self.xp
        if self.size == 1:
            out = words.copy()
            return _Pending(lambda: out)
        self.bytes_sent += words.nbytes
        if self.data_plane == "nccl":
            nccl = self._nccl_mod
            buf = xp.empty((self.size, words.size), np.uint32)

            def enqueue(ptr):
                self.nccl.allGather(words.data.ptr, buf.data.ptr, words.size,
                                    nccl.NCCL_UINT32, ptr)
                acc = buf[0]  # a view: it keeps buf alive
                for p in range(1, self.size):
                    acc |= buf[p]
                return acc

            return self._start_on_side(enqueue)
        host = np.ascontiguousarray(self.to_host(words))
        out = np.empty_like(host)
        t0 = time.perf_counter()
        self.comm.Allreduce(host, out, op=self.MPI.BOR)
        self.comm_time += time.perf_counter() - t0
        res = self.to_device(out) if xp is not np else out
        return _Pending(lambda: res)

    def allreduce_array(self, a, op="min"):
        """Element-wise reduction of a data-plane array over ranks (``sum``/``min``/``max``).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().allreduce_array(np.array([4, 2]), "min").tolist()
        [4, 2]
        """
        xp = self.xp
        if self.size == 1:
            return a.copy()
        nbytes = a.nbytes
        nccl_plane = self.data_plane == "nccl"
        with self.timed(nbytes, watch=f"allreduce ({op})" if nccl_plane else None):
            if nccl_plane:
                nccl = self._nccl_mod
                nop = {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}[op]
                ntype = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                         np.dtype(np.uint8): nccl.NCCL_UINT8,
                         np.dtype(np.float64): nccl.NCCL_FLOAT64}[np.dtype(a.dtype)]
                a = xp.ascontiguousarray(a)
                out = xp.empty_like(a)
                self.nccl.allReduce(a.data.ptr, out.data.ptr, a.size, ntype, nop,
                                    xp.cuda.get_current_stream().ptr)
                return out
            mop = {"sum": self.MPI.SUM, "min": self.MPI.MIN, "max": self.MPI.MAX}[op]
            host = np.ascontiguousarray(self.to_host(a))
            out = np.empty_like(host)
            self.comm.Allreduce(host, out, op=mop)
            return self.to_device(out) if xp is not np else out

    def exscan_array(self, a):
        """Element-wise sum of ``a`` over the ranks below this one (zeros on rank 0).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().exscan_array(np.array([4, 2])).tolist()
        [0, 0]
        """
        xp = self.xp
        if self.size == 1:
            return xp.zeros_like(a)
        host = np.ascontiguousarray(self.to_host(a))
        out = np.zeros_like(host)
        with self.timed(host.nbytes):
            self.comm.Exscan(host, out, op=self.MPI.SUM)
        if self.rank == 0:
            out[:] = 0
        return self.to_device(out) if xp is not np else out

    def __repr__(self) -> str:
        return (f"Communicator(rank={self.rank}, size={self.size}, device={self.device!r}, "
                f"data_plane={self.data_plane!r})")




def shared_communicator(comm=None, *, device="cpu", data_plane="auto"):
    """The :class:`Communicator` of ``comm`` (an mpi4py communicator, ``COMM_WORLD`` by
    default), ``device`` and ``data_plane``, made once per process and reused (collective
    the first time).

    Users build many graphs in one process; each build without a ``comm`` of its own gets
    this one, so the NCCL communicator is set up once.  Kept while ``comm`` is not freed.

    Examples
    --------
    >>> shared_communicator() is shared_communicator()
    True
    """
    from mpi4py import MPI

    comm = MPI.COMM_WORLD if comm is None else comm
    key = (id(comm), device, data_plane)
    with _SHARED_LOCK:
        held = _SHARED.get(key)
        if held is not None and held.comm is comm and comm != MPI.COMM_NULL:
            return held
    made = Communicator(comm, device=device, data_plane=data_plane)
    with _SHARED_LOCK:
        _SHARED[key] = made      # keeps ``comm`` alive, so its id is not reused
    return made


class PhaseClock:
    """Seconds per named phase of a collective job on this rank (the device's work
    included: each mark waits for it).

    Examples
    --------
    >>> clock = PhaseClock(Communicator())
    >>> clock("set-up"); sorted(clock.seconds)
    ['set-up']
    """

    def __init__(self, comm, start=None):
        self.comm = comm
        self.t = time.perf_counter() if start is None else start
        self.seconds = {}

    def __call__(self, name):
        self.comm.sync()
        t = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + t - self.t
        self.t = t


def as_communicator(comm=None, *, device=None, data_plane="auto"):
    """A :class:`Communicator` from ``comm`` (a Communicator, an mpi4py comm or None).

    Examples
    --------
    >>> from spbfs.dist.comm import as_communicator
    >>> as_communicator().size
    1
    """
    if isinstance(comm, Communicator):
        conflict = device_conflict(comm, device)
        if conflict:
            raise ValueError(conflict)
        return comm
    return shared_communicator(comm, device=device or "cpu", data_plane=data_plane)


def device_conflict(comm, device):
    """The error message when ``device`` contradicts the Communicator ``comm``, else None.

    Examples
    --------
    >>> from spbfs.dist.comm import Communicator, device_conflict
    >>> device_conflict(Communicator(), "gpu")
    "device='gpu' differs from the communicator's 'cpu'"
    >>> device_conflict(Communicator(), "auto") is None
    True
    """
    if device is not None and device != "auto" and device != comm.device:
        return f"device={device!r} differs from the communicator's {comm.device!r}"
    return None
