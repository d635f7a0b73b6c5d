"""The worker threads of :mod:`spbfs.cpu.threads` (:class:`SpinPool`) and their busy
waits without the GIL: a thread that waits by spinning on a flag wakes within a
microsecond of the flag's store, where a sleeping one takes 20-80 us to be scheduled again
(a virtual machine's idle core most of all).

The flags are ``int64`` entries of a shared array, read with acquire loads and written
with release stores (an ordinary numpy read could be hoisted out of the loop).
"""

from __future__ import annotations

import functools
import os
import threading
import time

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._atomic import fetch_add
from ._jit import kernel
from ._thunks import call_address

__all__ = ["ROUND_ACTIVE", "ROUND_DONE", "ROUND_SEQ", "SpinPool", "close_round", "enter_round",
           "round_reads", "spin_until_all", "spin_while"]

_HAS_SCHED_YIELD = hasattr(os, "sched_yield")


def _item_pointer(context, builder, signature, args):
    array_type = signature.args[0]
    array = context.make_array(array_type)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, array_type, array, [args[1]])


@intrinsic
def _load(typingctx, flags, i):
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_item_pointer(context, builder, signature, args),
                                   "acquire", 8)
    return types.int64(flags, i), codegen


@intrinsic
def _store(typingctx, flags, i, value):
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _item_pointer(context, builder, signature, args),
                             "release", 8)
        return context.get_dummy_value()
    return types.none(flags, i, value), codegen


@intrinsic
def _yield(typingctx):
    """``sched_yield()``: another thread queued on this core runs (a no-op elsewhere)."""
    def codegen(context, builder, signature, args):
        if _HAS_SCHED_YIELD:
            fnty = ir.FunctionType(ir.IntType(32), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"),
                         [])
        return context.get_dummy_value()
    return types.none(), codegen


@kernel
def spin_while(flags, index, value, rounds, reads):
    """Spin while ``flags[index]`` is ``value``: ``rounds`` of ``reads`` reads, yielding
    the core between rounds.  The value read last."""
    for _ in range(rounds):
        for _ in range(reads):
            v = _load(flags, index)
            if v != value:
                return v
        _yield()
    return value


@kernel
def spin_until_all(flags, stride, count, index, value, rounds, reads):
    """Spin until ``flags[k * stride + index] == value`` for every ``k < count``: ``rounds``
    of ``reads`` reads, yielding the core between rounds.  Whether they all got there."""
    k = 0
    for _ in range(rounds):
        for _ in range(reads):
            while k < count and _load(flags, k * stride + index) == value:
                k += 1
            if k == count:
                return True
        _yield()
    return False


#: Rounds inside one parallel call, led by its first range: the control block's round state
#: (even: open, odd: closed, :data:`ROUND_DONE` once the call's work is over) and the count
#: of helping ranges inside the open round, each on its own cache line of an int64 array.
ROUND_SEQ, ROUND_ACTIVE, ROUND_DONE = 0, 8, -1


@kernel
def enter_round(ctl, last, reads):
    """A helping range's wait for a round to take part in: an open round other than
    ``last`` (the one it took part in last), counted in ``ctl[ROUND_ACTIVE]`` and read open
    again after that (a round closed meanwhile is left), whose number it returns; or
    :data:`ROUND_DONE`.  The helper leaves the round by lowering ``ctl[ROUND_ACTIVE]``."""
    while True:
        seq = _load(ctl, ROUND_SEQ)
        if seq == ROUND_DONE:
            return seq
        if seq & 1 or seq == last:  # closed, or already taken part in
            spin_while(ctl, ROUND_SEQ, seq, 1, reads)
            continue
        fetch_add(ctl, ROUND_ACTIVE, 1)
        if _load(ctl, ROUND_SEQ) == seq:  # still open: the leader waits for this range
            return seq
        fetch_add(ctl, ROUND_ACTIVE, -1)
        last = seq


@kernel
def close_round(ctl, reads):
    """The leader's end of a round: closed (``ctl[ROUND_SEQ]`` made odd, a full fence
    before ``ctl[ROUND_ACTIVE]`` is read), then the helpers inside it waited for."""
    fetch_add(ctl, ROUND_SEQ, 1)
    while not spin_until_all(ctl, 1, 1, ROUND_ACTIVE, 0, 1, reads):
        pass


@kernel
def serve(flags, base, calls, results, w, seen, rounds, reads):
    """Worker ``w``'s compiled calls, without the GIL: spin (``rounds`` of ``reads`` reads,
    yielding the core between rounds) for ``flags[base + POSTED]`` to move on from
    ``seen``; a posted call whose thunk address ``calls[w, 0]`` is set is run here (its
    result into ``results[w]``, then its number stored as done) and the spin starts again.
    Returns the number of a posted Python call (address 0), or ``-1 - last`` (``last``
    the number of the last call served, else ``seen``) when none came."""
    while True:
        posted = spin_while(flags, base + _POSTED, seen, rounds, reads)
        if posted == seen:
            return -1 - seen
        address = calls[w, 0]
        if address == 0:
            return posted
        results[w] = call_address(address, calls[w, 1], calls[w, 2])
        seen = posted
        _store(flags, base + _DONE, seen)


#: How long a worker spins for its next task before it sleeps, and how long the caller
#: spins for the workers' ranges before it polls with sleeps (seconds).  A call that finds
#: its workers asleep waits for them to be scheduled again: on the 16 cores of a lent H200
#: machine a call of 16 ranges after 0.2 ms of Python took 767 us with workers that spun
#: 0.3 ms (they slept), 48-65 us with 3-10 ms, where back-to-back calls take 35 us; local
#: efficiency's 1,024-node row 180-201 ms against 120-148, Louvain 429-448 against
#: 352-360 (docs/benchmarks.md).  OpenMP runtimes spin longer still (Intel's 200 ms).
WORKER_SPIN = 5e-3
CALLER_SPIN = 2e-3
_ROUND = 10e-6  # a spinning thread yields its core between rounds of this length
_STRIDE = 16  # int64 per worker: 128 bytes, its own cache lines
_POSTED, _DONE, _SLEEPING = 0, 1, 2


@functools.cache
def _reads_per_second() -> float:
    """How many flag reads :func:`spin_while` makes per second here (measured once)."""
    flags = np.zeros(_STRIDE, np.int64)
    spin_while(flags, 0, 0, 1, 1 << 10)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        spin_while(flags, 0, 0, 1, 1 << 18)
        best = max(best, (1 << 18) / max(time.perf_counter() - t0, 1e-9))
    return best


def round_reads() -> int:
    """The reads of a flag that take about :data:`_ROUND` here: a spin's ``reads`` between
    yields of the core.

    Examples
    --------
    >>> round_reads() >= 1
    True
    """
    return max(1, int(_reads_per_second() * _ROUND))


class SpinPool:
    """``size`` worker threads (named ``name-0``...) that run one call's ranges: each waits
    for its next range by spinning without the GIL for :data:`WORKER_SPIN`, then sleeps on
    a condition.  One caller at a time (:meth:`try_run` returns ``None`` while another
    call runs).

    Examples
    --------
    >>> pool = SpinPool(1)
    >>> pool.try_run(lambda lo, hi: hi - lo, [(0, 3), (3, 10)])
    [3, 7]
    >>> pool.close()
    """

    def __init__(self, size: int, name: str = "spbfs-cpu"):
        self.size = size
        self._reads = round_reads()
        self._worker_rounds = max(1, int(WORKER_SPIN / _ROUND))
        self._caller_rounds = max(1, int(CALLER_SPIN / _ROUND))
        self._flags = np.zeros(size * _STRIDE, np.int64)
        self._tasks: list = [None] * size
        self._results: list = [None] * size
        # a compiled call: per worker its thunk's address (0: a Python task), the address
        # of the arguments' block and of its range; and the results
        self._calls = np.zeros((size, 3), np.int64)
        self._codes = np.zeros(size, np.int64)
        self._wake = threading.Condition()  # a sleeping worker's
        self._finished = threading.Condition()  # a sleeping caller's
        self._caller_sleeps = False
        self._busy = threading.Lock()
        self._seq = 0
        self._closing = self._closed = False
        for w in range(size):
            threading.Thread(target=self._work, args=(w,), daemon=True,
                             name=f"{name}-{w}").start()

    def _work(self, w: int) -> None:
        flags, base = self._flags, w * _STRIDE
        seen = 0
        while True:
            posted = serve(flags, base, self._calls, self._codes, w, seen,
                           self._worker_rounds, self._reads)
            if posted < 0:  # nothing came while spinning: sleep until a post
                seen = -1 - posted
                with self._wake:
                    flags[base + _SLEEPING] = 1
                    while flags[base + _POSTED] == seen:
                        self._wake.wait()
                    flags[base + _SLEEPING] = 0
                continue  # the post is served above (compiled) or below (Python)
            seen = posted
            func, args = self._tasks[w]
            self._tasks[w] = None
            if func is None:
                return
            try:
                self._results[w] = (True, func(*args))
            except BaseException as exc:  # handed to the caller
                self._results[w] = (False, exc)
            flags[base + _DONE] = seen
            if self._caller_sleeps:  # else the caller spins on the store above
                with self._finished:
                    self._finished.notify()

    def _post(self, tasks) -> int:
        """Hand out the Python ``tasks``, waking the workers that sleep: the call's
        number."""
        self._calls[:len(tasks), 0] = 0
        for w, task in enumerate(tasks):
            self._tasks[w] = task
        return self._posted(len(tasks))

    def _posted(self, count: int) -> int:
        """The next call's number stored for the first ``count`` workers (their tasks
        set), the sleeping ones woken."""
        self._seq += 1
        flags = self._flags
        flags[_POSTED:count * _STRIDE:_STRIDE] = self._seq
        if flags[_SLEEPING:count * _STRIDE:_STRIDE].any():
            with self._wake:
                self._wake.notify_all()
        return self._seq

    def _wait(self, count: int, seq: int) -> None:
        # After spinning for CALLER_SPIN, sleep until a worker's notice.
        if spin_until_all(self._flags, _STRIDE, count, _DONE, seq, self._caller_rounds,
                          self._reads):
            return
        with self._finished:
            self._caller_sleeps = True
            try:
                while not spin_until_all(self._flags, _STRIDE, count, _DONE, seq, 1, 1):
                    self._finished.wait(5e-4)  # the timeout covers a worker's lone store
            finally:
                self._caller_sleeps = False

    def _held(self, count, post, first, collect):
        """With the pool held: ``post()`` the workers' share (it returns the call's
        number), run ``first()`` here, wait for the first ``count`` workers, and return
        ``collect(first's value)``; ``None`` when another call holds the pool (or it has
        too few workers)."""
        if count > self.size or not self._busy.acquire(blocking=False):
            return None
        try:
            if self._closing:
                return None
            seq = post()
            try:
                value = first()
            finally:
                self._wait(count, seq)
            return collect(value)
        finally:
            self._release()

    def try_run(self, func, ranges):
        """``[func(*r) for r in ranges]`` with the ranges after the first on the workers,
        or ``None`` when another call holds the pool (or it has too few workers)."""
        count = len(ranges) - 1

        def collect(first):
            results = [(True, first), *self._results[:count]]
            self._results[:count] = [None] * count
            return results

        results = self._held(count, lambda: self._post([(func, r) for r in ranges[1:]]),
                             lambda: func(*ranges[0]), collect)
        if results is None:
            return None
        for ok, value in results:
            if not ok:
                raise value
        return [value for _, value in results]

    def try_run_compiled(self, kernel, thunk, ranges, args):
        """``[kernel(*r, *args) for r in ranges]`` with the ranges after the first run by
        the workers through ``thunk`` (:mod:`spbfs.cpu._thunks`: no GIL taken), the
        first by the caller; ``None`` when another call holds the pool."""
        count = len(ranges) - 1
        block = thunk.pack(args)
        bounds = np.array(ranges, np.int64).reshape(len(ranges), -1)

        def post():
            calls = self._calls[:count]
            calls[:, 0] = thunk.address
            calls[:, 1] = block.ctypes.data
            calls[:, 2] = bounds.ctypes.data + bounds.strides[0] * np.arange(1, count + 1)
            return self._posted(count)

        return self._held(count, post, lambda: kernel(*ranges[0], *args),
                          lambda first: [first, *self._codes[:count].tolist()])

    def _release(self) -> None:
        if self._closing and not self._closed:  # close() came during the call
            self._closed = True
            self._post([(None, ())] * self.size)
        self._busy.release()

    def close(self) -> None:
        """Stop the workers: now, or as the call in progress ends (never waits for it, so
        a call may close the pool it runs on)."""
        self._closing = True
        if self._busy.acquire(blocking=False):  # else the holder's release stops them
            self._release()
