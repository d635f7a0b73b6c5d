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

import threading
import time
from contextlib import contextmanager

import numpy as np

from ..core.arrays import gpu_available
from .faults import NCCL_TIMEOUT, end_job, nccl_timeout  # noqa: F401  (end_job: its home)
from .planes import MpiPlane, NcclPlane, Pending, done, nccl_importable

_timeout_of = nccl_timeout     # (Communicator's argument of that name hides the function)

__all__ = ["Communicator", "as_communicator", "nccl_timeout"]

DEVICES = ("cpu", "gpu", "auto")
DATA_PLANES = ("auto", "mpi", "nccl")


def _builtin_type(exc):
    """The nearest built-in exception class of ``exc`` (what travels between ranks)."""
    return next(k for k in type(exc).__mro__ if k.__module__ == "builtins")


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values differ
        return False


#: The communicators made for an MPI communicator, device and data plane (one NCCL set-up).
_SHARED = {}
_SHARED_LOCK = threading.Lock()


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
        #: times this rank's host waited: for its device (a stream synchronisation, a read
        #: of device values) or for its peers (an MPI collective, a host-staged exchange)
        self.host_waits = 0
        self.plane = MpiPlane(self)
        error = None
        if device not in DEVICES:
            error = ValueError(f"device must be one of {DEVICES}, got {device!r}")
        elif data_plane not in DATA_PLANES:
            error = ValueError(f"data_plane must be one of {DATA_PLANES}, got {data_plane!r}")
        elif data_plane == "nccl" and device == "cpu":
            error = ValueError("data_plane='nccl' needs GPU ranks (device='gpu')")
        gpu = None
        if error is None and device in ("gpu", "auto"):
            gpu = gpu_available()
            if device == "gpu" and not gpu:
                error = ValueError("device='gpu' but CuPy sees no CUDA GPU on this rank")
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
            data_plane = "nccl" if device == "gpu" and nccl_importable() else "mpi"
        self.data_plane = data_plane
        #: seconds a host wait on NCCL may last before the watchdog ends the job (0: off)
        self.nccl_timeout = timeout if data_plane == "nccl" else 0.0
        if data_plane == "nccl":
            self.plane = NcclPlane(self, self.nccl_timeout)

    @property
    def nccl(self):
        """The NCCL communicator of the NCCL data plane (None on the MPI plane)."""
        return self.plane.nccl

    def close(self):
        """Stop using the NCCL communicator (the process keeps it for the other
        Communicators of the same MPI communicator; MPI stays with its owner) and stop the
        watchdog."""
        self.plane.close()

    # ------------------------------------------------------------------ helpers
    def sync(self):
        """Wait for this rank's GPU work (no-op on CPU ranks)."""
        if self.device == "gpu":
            self.host_waits += 1
            self.xp.cuda.get_current_stream().synchronize()

    @contextmanager
    def timed(self, nbytes=0, watch=None):
        """Count the enclosed block as communication: its time and ``nbytes`` sent.

        With ``watch`` (an operation name) and an NCCL watchdog, the block and the wait for
        the stream at its end are watched (:data:`NCCL_TIMEOUT`).
        """
        self.sync()
        t0 = time.perf_counter()
        token = self.plane.arm(watch) if watch is not None else None
        try:
            yield
        finally:
            self.sync()
            self.plane.disarm(token)
            self.comm_time += time.perf_counter() - t0
            self.bytes_sent += int(nbytes)

    def reset_counters(self):
        """Zero :attr:`bytes_sent`, :attr:`comm_time` and :attr:`host_waits`."""
        self.bytes_sent = 0
        self.comm_time = 0.0
        self.host_waits = 0

    def to_host(self, a):
        """``a`` as a numpy array (a device-to-host copy for cupy arrays)."""
        return a.get() if self.xp is not np and isinstance(a, self.xp.ndarray) else np.asarray(a)

    def to_device(self, a):
        """``a`` in this rank's array module."""
        return self.xp.asarray(a)

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
        self.host_waits += 1
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
        self.host_waits += 1
        if isinstance(value, np.ndarray):
            out = np.empty_like(value)
            self.comm.Allreduce(value, out, op=mop)
            return out
        return self.comm.allreduce(value, op=mop)

    def bcast(self, obj, root=0):
        """Broadcast a Python object from ``root``."""
        self.host_waits += 1
        return self.comm.bcast(obj, root=root)

    def gather(self, obj, root=0):
        """Gather Python objects to ``root`` (list there, None elsewhere)."""
        self.host_waits += 1
        return self.comm.gather(obj, root=root)

    def allgather(self, obj):
        """Every rank's Python object, on every rank."""
        self.host_waits += 1
        return self.comm.allgather(obj)

    def barrier(self):
        """MPI barrier."""
        self.host_waits += 1
        self.comm.Barrier()

    # ------------------------------------------------------------------ data plane
    # (the per-level exchanges of dist.bfs among them; the plane moves the bytes)
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
        if self.size == 1:
            return [a[: int(sc[0])].copy() for a in arrays], rc
        return [self.plane.alltoallv(a, sc, rc) for a in arrays], rc

    def watch(self, op):
        """Watch the enclosed host wait (a stream synchronisation behind which NCCL work
        started without waiting may sit) with the NCCL watchdog; nothing else."""
        return self.plane.watch(op)

    def read_later(self, a, op="a read of device values"):
        """Start copying the small array ``a`` to the host without waiting; the result's
        ``wait()`` gives the host copy, waiting for it (a host wait, watched as ``op``) only
        if it has not arrived.  numpy arrays: at once.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().read_later(np.array([3])).wait().tolist()
        [3]
        """
        if self.xp is np:
            return done(np.array(a))
        import cupy

        host = np.frombuffer(cupy.cuda.alloc_pinned_memory(a.nbytes), a.dtype, a.size)
        stream = cupy.cuda.get_current_stream()
        rt = cupy.cuda.runtime
        rt.memcpyAsync(host.ctypes.data, a.data.ptr, a.nbytes, rt.memcpyDeviceToHost, stream.ptr)
        arrived = stream.record()

        def finish():
            if not arrived.done:
                self.host_waits += 1
                with self.watch(op):
                    arrived.synchronize()
            return host.copy()

        return Pending(finish)

    def ready(self):
        """A mark of the work enqueued so far on this rank's stream (NCCL data plane: a CUDA
        event; else None), for :meth:`alltoallv_start`'s ``after``."""
        return self.plane.ready() if self.size > 1 else None

    def alltoallv_start(self, arrays, send_counts, recv_counts, after=None, starts=None,
                        recv=None):
        """All-to-all-v of arrays sharing counts known on both sides (sizes fixed in advance,
        such as a search's ghost words, or exchanged before).

        Rank ``p``'s part of each array starts at ``starts[p]`` (default: the parts follow
        one another).  ``recv``: arrays to receive into (NCCL; kept by a caller that
        exchanges the same sizes again and again).

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
        if self.size == 1:
            return done([a[int(sdisp[0]):int(sdisp[0]) + int(sc[0])].copy() for a in arrays])
        return self.plane.alltoallv_start(arrays, sc, rc, sdisp, after, recv)

    def or_words_start(self, words, gathered=None):
        """Start the OR over ranks of a uint32 bitmap (the delegates' visited bits; any
        bitwise OR: view wider words as uint32).  ``gathered``: a ``(P, words.size)`` uint32
        buffer for the NCCL all-gather, kept by a caller that ORs the same size again and
        again (the result is a view of it).

        NCCL: an all-gather and a local OR on the side stream (``wait()`` orders the main
        stream after them); host-staged MPI: a ``BOR`` allreduce, done here.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().or_words_start(np.array([5], np.uint32)).wait().tolist()
        [5]
        """
        if self.size == 1:
            return done(words.copy())
        return self.plane.or_words_start(words, gathered)

    def allreduce_array(self, a, op="min", *, wait=True):
        """Element-wise reduction of a data-plane array over ranks (``sum``/``min``/``max``).

        ``wait=False`` (NCCL): enqueued on this rank's stream without a host wait, counted in
        :attr:`bytes_sent` but not in :attr:`comm_time`; the caller's next wait on the stream
        must be watched (:meth:`watch`).  The host-staged plane always waits.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().allreduce_array(np.array([4, 2]), "min").tolist()
        [4, 2]
        """
        if self.size == 1:
            return a.copy()
        return self.plane.allreduce_array(a, op, wait)

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
    """Seconds per named phase of a job on this rank, the one way the distributed code
    times its steps (a graph's build, a search's levels).

    Parameters
    ----------
    comm : Communicator
    start : float, optional
        ``time.perf_counter()`` at the start (default: now).
    seconds : dict, optional
        Where the seconds add up, by phase name (default: a new dict).
    sync : bool
        Wait for the device's work at each mark (its time counted in the phase); False
        times the host alone (launches and host waits).

    Examples
    --------
    >>> clock = PhaseClock(Communicator())
    >>> clock("set-up"); sorted(clock.seconds)
    ['set-up']
    """

    def __init__(self, comm, start=None, *, seconds=None, sync=True):
        self.comm, self.sync = comm, sync
        self.t = time.perf_counter() if start is None else start
        self.seconds = {} if seconds is None else seconds

    def __call__(self, name):
        if self.sync:
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
