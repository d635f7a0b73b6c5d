"""The data planes: how a :class:`~spbfs.dist.comm.Communicator` moves bulk data.

One class per transport, each with the same methods, so no bulk operation branches on the
plane:

:class:`MpiPlane`
    numpy buffers straight to MPI on CPU ranks; on GPU ranks the buffers are copied to the
    host first and back after (host staging), so a device pointer never reaches an MPI that
    is not CUDA-aware.  Every operation is done when it returns.
:class:`NcclPlane`
    GPU ranks only: a ``cupy.cuda.nccl.NcclCommunicator`` bootstrapped through MPI (rank 0
    makes the unique id and broadcasts it), made once per MPI communicator and GPU and kept
    for the process.  The per-level exchanges run on a side stream and overlap the caller's
    work; each host wait on NCCL is watched by a :class:`~spbfs.dist.faults.Watchdog`.

A plane is given worlds of two ranks or more (the Communicator answers a world of one
itself) and adds what it sends to the Communicator's ``bytes_sent`` and ``comm_time``.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from contextlib import contextmanager, nullcontext

import numpy as np

from .faults import ABORT_GRACE, Watchdog, end_job_on_unhandled_exception, quietly

__all__ = ["MpiPlane", "NcclPlane", "Pending"]


class Pending:
    """An exchange in flight; :meth:`wait` returns its result (once).

    Examples
    --------
    >>> Pending(lambda: 7).wait()
    7
    """

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


def done(result):
    """A :class:`Pending` whose result is already there."""
    return Pending(lambda: result)


def displacements(counts):
    """Where each rank's part starts when the parts follow one another.

    Examples
    --------
    >>> displacements(np.array([2, 0, 3])).tolist()
    [0, 2, 2]
    """
    counts = np.asarray(counts, np.int64)
    return np.cumsum(counts) - counts


class MpiPlane:
    """Bulk data through MPI on the host (module docstring).

    Examples
    --------
    >>> from spbfs.dist import Communicator
    >>> Communicator(data_plane="mpi").plane.name
    'mpi'
    """

    name = "mpi"
    nccl = None

    def __init__(self, c):
        self.c = c

    def close(self):
        """Nothing to release."""

    def arm(self, op):
        """No watchdog on this plane: None."""
        return None

    def disarm(self, token):
        """No watchdog on this plane."""

    def watch(self, op):
        """Nothing is watched on this plane."""
        return nullcontext()

    def ready(self):
        """Nothing runs behind the host's back: None."""
        return None

    def alltoallv(self, send, sc, rc):
        """One array's all-to-all-v (counts exchanged already): what arrived, by source."""
        c = self.c
        dtype = send.dtype
        nsent = int(sc.sum()) - int(sc[c.rank])
        host = np.ascontiguousarray(c.to_host(send))
        recv = np.empty(int(rc.sum()), dtype)
        view = np.uint8 if dtype == np.bool_ else dtype
        mt = _mpi_type(view)
        c.host_waits += 1
        with c.timed(nsent * dtype.itemsize):
            c.comm.Alltoallv([host.view(view), (sc, displacements(sc)), mt],
                             [recv.view(view), (rc, displacements(rc)), mt])
        return c.to_device(recv) if c.xp is not np else recv

    def alltoallv_start(self, arrays, sc, rc, sdisp, after=None, recv=None):
        """:meth:`alltoallv` of arrays whose rank-``p`` part starts at ``sdisp[p]``, done
        here (``recv``, the NCCL plane's buffers, is not used)."""
        if not np.array_equal(sdisp, displacements(sc)):   # the parts, one after another
            arrays = [self.c.xp.concatenate([a[s:s + k] for s, k in zip(sdisp, sc, strict=True)])
                      for a in arrays]
        return done([self.alltoallv(a, sc, rc) for a in arrays])

    def or_words_start(self, words, gathered=None):
        """A ``BOR`` allreduce of a uint32 bitmap, done here (``gathered``, the NCCL plane's
        buffer, is not used)."""
        c = self.c
        c.bytes_sent += words.nbytes
        host = np.ascontiguousarray(c.to_host(words))
        out = np.empty_like(host)
        t0 = time.perf_counter()
        c.host_waits += 1
        c.comm.Allreduce(host, out, op=c.MPI.BOR)
        c.comm_time += time.perf_counter() - t0
        return done(c.to_device(out) if c.xp is not np else out)

    def allreduce_array(self, a, op, wait=True):
        """Element-wise ``sum``/``min``/``max`` over ranks through the host (``wait``: the
        host always waits here)."""
        c = self.c
        mop = {"sum": c.MPI.SUM, "min": c.MPI.MIN, "max": c.MPI.MAX}[op]
        host = np.ascontiguousarray(c.to_host(a))
        out = np.empty_like(host)
        c.host_waits += 1
        with c.timed(a.nbytes):
            c.comm.Allreduce(host, out, op=mop)
        return c.to_device(out) if c.xp is not np else out


def _mpi_type(dtype):
    from mpi4py.util.dtlib import from_numpy_dtype

    return from_numpy_dtype(np.dtype(dtype))


#: The NCCL communicator of each MPI communicator and GPU, made once (collectively) and
#: kept for the process.  One per Communicator cost a second of set-up each, and left to
#: the garbage collector they deadlocked a job: ``ncclCommDestroy`` waits for the peers,
#: whose collector runs at other moments (seen on 4 H200s: the third graph's build hung).
_NCCL = {}
_NCCL_LOCK = threading.Lock()


def _abort_nccl_at_exit():
    """At exit, release every kept NCCL communicator without waiting for peers (an abort
    is local; a destroy in the interpreter's teardown could wait on a peer forever)."""
    for _, nccl_comm in list(_NCCL.values()):
        quietly(nccl_comm.abort, grace=ABORT_GRACE)
    _NCCL.clear()


def nccl_importable() -> bool:
    """Whether CuPy's NCCL bindings load here."""
    try:
        from cupy.cuda import nccl

        return bool(getattr(nccl, "available", True))
    except Exception:  # noqa: BLE001
        return False


class NcclPlane:
    """Bulk data through NCCL on GPU ranks (module docstring).

    Parameters
    ----------
    c : Communicator
        The GPU ranks' communicator (its MPI communicator bootstraps NCCL).
    timeout : float
        Seconds a host wait on NCCL may last before the watchdog ends the job (0: none).
    """

    name = "nccl"

    def __init__(self, c, timeout):
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # never NVLink multicast
        from cupy.cuda import nccl

        self.c, self.mod, self.nccl = c, nccl, None
        self._side_stream = None
        self._watchdog = None
        if timeout > 0:
            me = weakref.ref(self)

            def abort_comm():
                plane = me()
                if plane is not None and plane.nccl is not None:
                    plane.nccl.abort()

            def check_async():
                plane = me()
                if plane is None or plane.nccl is None:
                    return None
                try:
                    plane.nccl.check_async_error()
                except nccl.NcclError as e:
                    return str(e)
                except Exception:  # noqa: BLE001 - an NCCL without ncclCommGetAsyncError
                    return None
                return None

            world = c.MPI.COMM_WORLD
            self._watchdog = Watchdog(c.rank, timeout, abort_comm, lambda: world.Abort(1),
                                      check_async=check_async)
            weakref.finalize(self, self._watchdog.stop)
        end_job_on_unhandled_exception(self)
        self.nccl = self._communicator()

    def _communicator(self):
        """This MPI communicator's and GPU's NCCL communicator (made the first time)."""
        c, nccl = self.c, self.mod
        key = (id(c.comm), c.gpu_id)
        with _NCCL_LOCK:
            held = _NCCL.get(key)
        if held is not None and held[0] is c.comm and c.comm != c.MPI.COMM_NULL:
            return held[1]
        uid = nccl.get_unique_id() if c.rank == 0 else None
        uid = c.comm.bcast(uid, root=0)
        token = self.arm("communicator set-up")
        try:
            made = nccl.NcclCommunicator(c.size, uid, c.rank)
            c.sync()
        finally:
            self.disarm(token)
        c.comm.Barrier()
        with _NCCL_LOCK:
            if not _NCCL:
                atexit.register(_abort_nccl_at_exit)
            _NCCL[key] = (c.comm, made)   # keeps ``comm``: its id is not reused
        return made

    def close(self):
        """Stop using the NCCL communicator (the process keeps it for the other
        Communicators of the same MPI communicator) and stop the watchdog."""
        if self.nccl is not None:
            self.c.sync()
            self.nccl = None
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None

    # ------------------------------------------------------------------ watching
    def arm(self, op):
        """Start watching a host wait on operation ``op`` (None without a watchdog)."""
        wd = self._watchdog
        return None if wd is None else wd.arm(op)

    def disarm(self, token):
        if token is not None and self._watchdog is not None:
            self._watchdog.disarm(token)

    @contextmanager
    def watch(self, op):
        """Watch the enclosed host wait (a stream synchronisation behind which NCCL work
        started without waiting may sit)."""
        token = self.arm(op)
        try:
            yield
        finally:
            self.disarm(token)

    # ------------------------------------------------------------------ streams
    def _side(self):
        if self._side_stream is None:
            self._side_stream = self.c.xp.cuda.Stream(non_blocking=True)
        return self._side_stream

    def ready(self):
        """A CUDA event marking the work enqueued so far on this rank's stream."""
        return self.c.xp.cuda.get_current_stream().record()

    def _start_on_side(self, enqueue, after=None):
        """Run ``enqueue(stream_ptr)`` on the side stream after the main stream's work so
        far (or after the event ``after``); the result's ``wait()`` makes the main stream
        wait for it (no host wait)."""
        xp = self.c.xp
        main, side = xp.cuda.get_current_stream(), self._side()
        side.wait_event(after if after is not None else main.record())
        with side:
            out = enqueue(side.ptr)
        finished = side.record()

        def finish():
            main.wait_event(finished)
            return out

        return Pending(finish)

    # ------------------------------------------------------------------ operations
    def alltoallv(self, send, sc, rc):
        """One array's all-to-all-v (counts exchanged already) on this rank's stream."""
        c, xp = self.c, self.c.xp
        nsent = int(sc.sum()) - int(sc[c.rank])
        with c.timed(nsent * send.dtype.itemsize, watch="alltoallv"):
            return self._group([xp.ascontiguousarray(send)],
                               [xp.empty(int(rc.sum()), send.dtype)], sc, rc,
                               xp.cuda.get_current_stream().ptr, displacements(sc))[0]

    def alltoallv_start(self, arrays, sc, rc, sdisp, after=None, recv=None):
        """:meth:`alltoallv` of arrays whose rank-``p`` part starts at ``sdisp[p]``, enqueued
        on the side stream after the work marked by ``after`` (:meth:`ready`; default: all
        work enqueued so far), into ``recv`` (arrays of ``sum(rc)`` elements) if given."""
        c, xp = self.c, self.c.xp
        if recv is None:
            recv = [xp.empty(int(rc.sum()), a.dtype) for a in arrays]
        c.bytes_sent += sum((int(sc.sum()) - int(sc[c.rank])) * a.dtype.itemsize
                            for a in arrays)
        return self._start_on_side(lambda ptr: self._group(arrays, recv, sc, rc, ptr, sdisp),
                                   after)

    def _group(self, sends, recvs, sc, rc, stream, sdisp):
        """Arrays sharing counts, in one NCCL group on ``stream``; returns ``recvs``."""
        nccl, r = self.mod, self.c.rank
        rdisp = displacements(rc)
        if sc[r]:
            for send, recv in zip(sends, recvs, strict=True):
                recv[rdisp[r]: rdisp[r] + rc[r]] = send[sdisp[r]: sdisp[r] + sc[r]]
        nccl.groupStart()
        for send, recv in zip(sends, recvs, strict=True):
            itemsize = send.dtype.itemsize
            for p in range(self.c.size):
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

    def or_words_start(self, words, gathered=None):
        """An all-gather of a uint32 bitmap (into ``gathered``, ``(P, words.size)``, if
        given) and a local OR, on the side stream."""
        c, xp, nccl = self.c, self.c.xp, self.mod
        c.bytes_sent += words.nbytes
        buf = xp.empty((c.size, words.size), np.uint32) if gathered is None else gathered

        def enqueue(ptr):
            self.nccl.allGather(words.data.ptr, buf.data.ptr, words.size, nccl.NCCL_UINT32,
                                ptr)
            acc = buf[0]  # a view: it keeps buf alive
            for p in range(1, c.size):
                acc |= buf[p]
            return acc

        return self._start_on_side(enqueue)

    def allreduce_array(self, a, op, wait=True):
        """Element-wise ``sum``/``min``/``max`` over ranks on this rank's stream; ``wait``
        False: enqueued only (no host wait; a later watched wait covers it)."""
        c, xp, nccl = self.c, self.c.xp, self.mod
        nop = {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}[op]
        ntype = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                 np.dtype(np.uint8): nccl.NCCL_UINT8,
                 np.dtype(np.float64): nccl.NCCL_FLOAT64}[np.dtype(a.dtype)]
        timed = c.timed(a.nbytes, watch=f"allreduce ({op})") if wait else nullcontext()
        if not wait:
            c.bytes_sent += a.nbytes
        with timed:
            a = xp.ascontiguousarray(a)
            out = xp.empty_like(a)
            self.nccl.allReduce(a.data.ptr, out.data.ptr, a.size, ntype, nop,
                                xp.cuda.get_current_stream().ptr)
            return out
