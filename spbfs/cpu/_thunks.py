"""Compiled entry points that the pool's workers call without the GIL
(:func:`spbfs.cpu.threads.run_kernel`).

A worker that runs a Python callable needs the GIL twice a call (to start it and to return
its result): sixteen workers queue for it one after another, 0.2-0.3 ms a parallel call
on the lent 16-core machine, whatever the kernel does.  So a kernel and the types of its
arguments get a *thunk*: a C-callable ``int64 thunk(int64 args, int64 bounds)`` (numba's
``cfunc``) that reads the arguments from an int64 block (an array as its data address and
shape, a number as its value or its float64 bits), the range's integers from another, and
calls the kernel, its result as an int64 (0 for none).  A worker's loop, compiled and
without the GIL, calls the thunk by its address (:func:`call_address`).

Each thunk lives in a module written once into the kernel directory
(:func:`spbfs.cpu.opcompile.module`), so numba's cache keeps it across processes; the
module's text names the kernel's source file's digest, so an edited kernel gets a new
thunk.  Only C-contiguous arrays and numbers make a thunk, and only for a kernel returning
an integer or nothing; anything else (a strided view, a tuple, an object, a float result)
gets None and its call takes the Python path.
"""

from __future__ import annotations

import hashlib
import inspect
import struct
import threading

import numpy as np
from llvmlite import ir
from numba import types
from numba.core.errors import NumbaError
from numba.extending import intrinsic, overload

from .opcompile import module

__all__ = ["Thunk", "as_count", "call_address", "pointer", "thunk"]


@intrinsic
def pointer(typingctx, address, dtype):
    """The int64 ``address`` as a pointer to ``dtype`` (a numba type), for ``carray``."""
    ty = getattr(dtype, "instance_type", None) or getattr(dtype, "dtype", None)
    if not isinstance(ty, (types.Number, types.Boolean)):
        return None
    sig = types.CPointer(ty)(address, dtype)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@intrinsic
def call_address(typingctx, address, args, bounds):
    """Call the C function ``int64 f(int64, int64)`` at ``address`` with ``args``,
    ``bounds``."""
    sig = types.int64(types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, llargs):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = builder.inttoptr(llargs[0], fnty.as_pointer())
        return builder.call(fn, [llargs[1], llargs[2]])

    return sig, codegen


def as_count(value):  # pragma: no cover - replaced in compiled code by the overload
    """A kernel's result as an int64: 0 for none."""
    return 0 if value is None else int(value)


@overload(as_count)
def _as_count(value):
    if isinstance(value, (types.NoneType, types.Omitted)) or value is types.none:
        return lambda value: np.int64(0)
    if isinstance(value, (types.Integer, types.Boolean)):
        return lambda value: np.int64(value)
    return None


_HEADER = """\
import numpy as np
from numba import carray, cfunc, types
from spbfs.cpu._atomic import bits_float
from spbfs.cpu._thunks import as_count, pointer
from {module} import {name} as target
# the kernel's source: {digest}
"""


def _field(k, value, i):
    """The thunk's line unpacking argument ``i`` from the block at ``k``; ``(line, words)``,
    or None for a value a thunk cannot take."""
    if isinstance(value, np.ndarray):
        if (not value.flags.c_contiguous or value.dtype.name not in _CARRAY_TYPES
                or not value.dtype.isnative or value.ndim > 3):
            return None  # longdouble (numba has no such type) or a foreign byte order
        shape = ", ".join(f"a[{k + 1 + d}]" for d in range(value.ndim)) or "1"
        dtype = "types.boolean" if value.dtype == np.bool_ else f"types.{value.dtype.name}"
        line = f"x{i} = carray(pointer(a[{k}], {dtype}), ({shape},))"
        if value.ndim == 0:
            line += "[0]"
        return line, 1 + value.ndim
    if isinstance(value, (bool, np.bool_)):
        return f"x{i} = a[{k}] != 0", 1
    if isinstance(value, (int, np.integer)):
        name = "int64" if isinstance(value, int) else np.dtype(type(value)).name
        return f"x{i} = np.{name}(a[{k}])", 1
    if isinstance(value, (float, np.floating)) and np.dtype(type(value)) == np.float64:
        return f"x{i} = bits_float(a[{k}])", 1
    return None


class Thunk:
    """A kernel's thunk for one set of argument types: its ``address`` and :meth:`pack`."""

    def __init__(self, address, keep):
        self.address, self._keep = address, keep

    def pack(self, args):
        """``args`` as the int64 block the thunk reads."""
        words = []
        for value in args:
            if isinstance(value, np.ndarray):
                words.append(value.ctypes.data)
                words.extend(value.shape)
            elif isinstance(value, (float, np.floating)):
                words.append(_BITS.unpack(_FLOAT.pack(value))[0])
            elif isinstance(value, np.unsignedinteger):  # its bits; the thunk casts back
                words.append(int(np.asarray(value).astype(np.uint64).view(np.int64)))
            else:
                words.append(int(value))
        return np.array(words or [0], np.int64)  # no arguments: one unread word


_CARRAY_TYPES = frozenset(
    ["bool", "float32", "float64"] + [f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)])
_FLOAT, _BITS = struct.Struct("d"), struct.Struct("q")
_thunks: dict = {}
_lock = threading.Lock()


def _signature(args):
    return tuple((a.dtype.str, a.ndim, a.flags.c_contiguous) if type(a) is np.ndarray
                 else type(a) for a in args)


def thunk(kernel, nbounds, args):
    """The :class:`Thunk` of ``kernel(*bounds, *args)`` for ``nbounds`` integers and these
    argument types, or None where it cannot have one."""
    key = (kernel, nbounds, _signature(args))
    found = _thunks.get(key, False)
    if found is not False:
        return found
    with _lock:
        found = _thunks.get(key, False)
        if found is False:
            found = _thunks[key] = _make(kernel, nbounds, args)
    return found


def _make(kernel, nbounds, args):
    py = getattr(kernel, "py_func", None)
    if py is None:
        return None
    lines, k = [], 0
    for i, value in enumerate(args):
        field = _field(k, value, i)
        if field is None:
            return None
        line, words = field
        lines.append("    " + line)
        k += words
    try:  # a kernel of a module built in memory has no source file to name
        with open(inspect.getsourcefile(py), "rb") as f:
            digest = hashlib.sha1(f.read()).hexdigest()[:16]
    except (TypeError, OSError):
        return None
    bounds = ", ".join(f"b[{j}]" for j in range(nbounds))
    call = ", ".join([bounds, *(f"x{i}" for i in range(len(args)))] if bounds else
                     [f"x{i}" for i in range(len(args))])
    text = "\n".join([
        _HEADER.format(module=py.__module__, name=py.__name__, digest=digest),
        "@cfunc(types.int64(types.int64, types.int64), cache=True, nogil=True)",
        "def thunk(args, bounds):",
        f"    a = carray(pointer(args, types.int64), ({max(k, 1)},))",
        f"    b = carray(pointer(bounds, types.int64), ({max(nbounds, 1)},))",
        *lines,
        f"    return as_count(target({call}))",
        ""])
    try:
        mod = module(f"thunk_{py.__name__.strip('_')}", text)
    except (RuntimeError, NumbaError):  # no cache directory at all (a read-only install),
        return None  # or a result a thunk cannot return: Python calls
    return Thunk(mod.thunk.address, mod.thunk)
