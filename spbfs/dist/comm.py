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

Every data-plane call adds to :attr:`Communicator.bytes_sent` (payload bytes this rank put on
the wire) and :attr:`Communicator.comm_time` (seconds spent inside communication, the wait
for slower ranks included), which the BFS reports as its communication share.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import numpy as np

__all__ = ["Communicator", "as_communicator"]

DEVICES = ("cpu", "gpu", "auto")
DATA_PLANES = ("auto", "mpi", "nccl")
OR_METHODS = ("auto", "max", "allgather")


def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.is_available()
    except Exception:  # noqa: BLE001 - any failure means "no usable GPU"
        return False


class _Pending:
    """A delegate OR reduction in flight; :meth:`wait` returns the reduced mask."""

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
    or_method : {"auto", "max", "allgather"}
        NCCL only: reduce the delegate mask with ``MAX`` over bytes or all-gather packed bits
        and OR them.  ``"auto"`` takes the one moving fewer bytes (``allgather`` below 8
        ranks).

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
    >>> c.allreduce_or(np.array([True, False])).tolist()
    [True, False]
    """

    def __init__(self, comm=None, *, device="cpu", data_plane="auto", or_method="auto"):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        if device not in DEVICES:
            raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
        if data_plane not in DATA_PLANES:
            raise ValueError(f"data_plane must be one of {DATA_PLANES}, got {data_plane!r}")
        if or_method not in OR_METHODS:
            raise ValueError(f"or_method must be one of {OR_METHODS}, got {or_method!r}")
        if device == "auto":
            device = "gpu" if self.comm.allreduce(int(_gpu_available()), MPI.MIN) else "cpu"
        elif device == "gpu":
            ok = _gpu_available()
            self.check(ok, "device='gpu' but CuPy finds no usable CUDA GPU on this rank")
        self.device = device
        self.bytes_sent = 0
        self.comm_time = 0.0
        self.nccl = None
        self._side_stream = None
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
        if data_plane == "nccl" and device != "gpu":
            raise ValueError("data_plane='nccl' needs GPU ranks (device='gpu')")
        if data_plane == "auto":
            data_plane = "nccl" if device == "gpu" and self._nccl_importable() else "mpi"
        self.data_plane = data_plane
        if or_method == "auto":
            or_method = "allgather" if self.size < 8 else "max"
        self.or_method = or_method
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

        uid = nccl.get_unique_id() if self.rank == 0 else None
        uid = self.comm.bcast(uid, root=0)
        self.nccl = nccl.NcclCommunicator(self.size, uid, self.rank)
        self._nccl_mod = nccl
        self.sync()
        self.comm.Barrier()

    def close(self):
        """Release the NCCL communicator (MPI stays with its owner)."""
        if self.nccl is not None:
            self.sync()
            self.nccl.destroy()
            self.nccl = None

    # ------------------------------------------------------------------ helpers
    def sync(self):
        """Wait for this rank's GPU work (no-op on CPU ranks)."""
        if self.device == "gpu":
            self.xp.cuda.get_current_stream().synchronize()

    @contextmanager
    def timed(self, nbytes=0):
        """Count the enclosed block as communication: its time and ``nbytes`` sent."""
        self.sync()
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.sync()
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
    def check(self, ok, message, exc=ValueError):
        """Collective error agreement: raise ``exc`` on every rank if any rank has ``ok`` false.

        The message is the one of the lowest failing rank (followed by that rank when not
        all ranks failed).  No rank is left waiting in a later collective.

        Examples
        --------
        >>> from spbfs.dist import Communicator
        >>> Communicator().check(False, "n must be positive")
        Traceback (most recent call last):
            ...
        ValueError: n must be positive
        """
        bad = self.comm.allgather(None if ok else str(message))
        failed = [r for r, msg in enumerate(bad) if msg is not None]
        if failed:
            r = failed[0]
            where = f" (rank {r})" if len(failed) < self.size else ""
            raise exc(f"{bad[r]}{where}")

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
        with self.timed(nsent * itemsize):
            if self.data_plane == "nccl":
                recv = xp.empty(total, dtype)
                send = xp.ascontiguousarray(send)
                nccl = self._nccl_mod
                stream = xp.cuda.get_current_stream().ptr
                r = self.rank
                if sc[r]:
                    recv[rdisp[r]: rdisp[r] + rc[r]] = send[sdisp[r]: sdisp[r] + sc[r]]
                nccl.groupStart()
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
                return recv
            host = np.ascontiguousarray(self.to_host(send))
            hrecv = np.empty(total, dtype)
            view = np.uint8 if dtype == np.bool_ else dtype
            mt = self._mpi_type(view)
            self.comm.Alltoallv([host.view(view), (sc, sdisp), mt],
                                [hrecv.view(view), (rc, rdisp), mt])
            return self.to_device(hrecv) if xp is not np else hrecv

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
        with self.timed(nbytes):
            if self.data_plane == "nccl":
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

    def allreduce_or(self, mask):
        """Global OR of a boolean mask (the delegate bitmap); identical on every rank.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().allreduce_or(np.array([False, True])).tolist()
        [False, True]
        """
        return self.allreduce_or_start(mask, blocking=True).wait()

    def allreduce_or_start(self, mask, blocking=False):
        """Start the global OR of a boolean mask; ``.wait()`` on the result gives the mask.

        With ``blocking=False`` the reduction overlaps with what the caller does before
        ``wait()``: ``MPI_Iallreduce`` on the MPI plane, a side CUDA stream with NCCL.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator
        >>> Communicator().allreduce_or_start(np.array([True, False])).wait().tolist()
        [True, False]
        """
        xp = self.xp
        m = mask.size
        if self.size == 1 or m == 0:          # m is the same on every rank (D)
            out = mask.copy()
            return _Pending(lambda: out)
        if self.data_plane == "nccl":
            return self._or_nccl(mask, blocking)
        bits = np.packbits(self.to_host(mask))
        out = np.empty_like(bits)
        mpi_op = self.MPI.BOR
        self.sync()
        t0 = time.perf_counter()
        if blocking:
            self.comm.Allreduce(bits, out, op=mpi_op)
            self.comm_time += time.perf_counter() - t0
            self.bytes_sent += bits.nbytes
            res = np.unpackbits(out, count=m).astype(bool)
            res = self.to_device(res) if xp is not np else res
            return _Pending(lambda: res)
        req = self.comm.Iallreduce(bits, out, op=mpi_op)
        self.comm_time += time.perf_counter() - t0
        self.bytes_sent += bits.nbytes

        def finish():
            t1 = time.perf_counter()
            req.Wait()
            self.comm_time += time.perf_counter() - t1
            res = np.unpackbits(out, count=m).astype(bool)
            _ = bits  # keep the send buffer alive until the request completes
            return self.to_device(res) if xp is not np else res

        return _Pending(finish)

    def _or_nccl(self, mask, blocking):
        xp = self.xp
        nccl = self._nccl_mod
        m = mask.size
        main = xp.cuda.get_current_stream()
        self.sync()
        t0 = time.perf_counter()
        if blocking:
            side = None
        else:
            if self._side_stream is None:
                self._side_stream = xp.cuda.Stream(non_blocking=True)
            side = self._side_stream
            side.wait_event(main.record())
            side.use()
        stream = side if side is not None else main
        try:
            if self.or_method == "max":
                src = xp.ascontiguousarray(mask).view(xp.uint8)
                buf = xp.empty_like(src)
                self.nccl.allReduce(src.data.ptr, buf.data.ptr, m, nccl.NCCL_UINT8,
                                    nccl.NCCL_MAX, stream.ptr)
                nbytes = m
            else:
                src = xp.packbits(mask)
                buf = xp.empty((self.size, src.size), xp.uint8)
                self.nccl.allGather(src.data.ptr, buf.data.ptr, src.size, nccl.NCCL_UINT8,
                                    stream.ptr)
                nbytes = src.size
        finally:
            if side is not None:
                main.use()
        self.bytes_sent += nbytes
        if blocking:
            main.synchronize()
        self.comm_time += time.perf_counter() - t0

        def finish():
            t1 = time.perf_counter()
            if side is not None:
                main.wait_event(side.record())
            _ = src  # alive until the reduction is done
            if self.or_method == "max":
                res = buf.view(xp.bool_)
            else:
                acc = buf[0].copy()
                for p in range(1, self.size):
                    acc |= buf[p]
                res = xp.unpackbits(acc)[:m].view(xp.bool_)
            main.synchronize()
            self.comm_time += time.perf_counter() - t1
            return res

        return _Pending(finish)

    def __repr__(self) -> str:
        return (f"Communicator(rank={self.rank}, size={self.size}, device={self.device!r}, "
                f"data_plane={self.data_plane!r})")


def as_communicator(comm=None, *, device=None, data_plane="auto"):
    """A :class:`Communicator` from ``comm`` (a Communicator, an mpi4py comm or None).

    Examples
    --------
    >>> from spbfs.dist.comm import as_communicator
    >>> as_communicator().size
    1
    """
    if isinstance(comm, Communicator):
        if device is not None and device != "auto" and device != comm.device:
            raise ValueError(f"device={device!r} differs from the communicator's "
                             f"{comm.device!r}")
        return comm
    return Communicator(comm, device=device or "cpu", data_plane=data_plane)
