"""Atomic read-modify-write on an array entry, for kernels that several threads run over
one shared array at once (:func:`spbfs.cpu.threads.run_ranges`).

``cas(a, i, expected, new)`` stores ``new`` at ``a[i]`` if it holds ``expected`` and says
whether it did; ``fetch_add(a, i, value)`` adds and returns the entry before (``fetch_or``
the same with a bitwise or, ``fetch_min`` with a signed minimum).  Each is one locked
instruction or loop (sequentially consistent, so the compiler moves no load of the array
across them); integer arrays of any width.
``add_float(bits, i, value)`` adds a float64 to an entry of an int64 view of a float64
array (a compare-and-swap loop on its bits); ``float_bits`` and ``bits_float`` reinterpret
a float64 as an int64 and back.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import kernel

__all__ = ["add_float", "bits_float", "cas", "fetch_add", "fetch_min", "fetch_or",
           "float_bits"]


def _item_pointer(context, builder, array_type, array_value, index):
    array = context.make_array(array_type)(context, builder, array_value)
    return cgutils.get_item_pointer(context, builder, array_type, array, [index])


def _cast(context, builder, value, fromty, toty):
    return context.cast(builder, value, fromty, toty)


@intrinsic
def cas(typingctx, a, i, expected, new):
    """Compare-and-swap ``a[i]``: ``new`` stored if ``a[i] == expected``; True if stored."""
    if not isinstance(a, types.Array) or not isinstance(a.dtype, types.Integer):
        return None
    dtype = a.dtype

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        old = _cast(context, builder, args[2], signature.args[2], dtype)
        val = _cast(context, builder, args[3], signature.args[3], dtype)
        pair = builder.cmpxchg(ptr, old, val, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(a, i, expected, new), codegen


def _read_modify_write(op):
    """An intrinsic ``f(a, i, value)``: ``a[i] = a[i] op value`` atomically, returning the
    entry before (LLVM's ``atomicrmw``)."""
    def rmw(typingctx, a, i, value):
        if not isinstance(a, types.Array) or not isinstance(a.dtype, types.Integer):
            return None
        dtype = a.dtype

        def codegen(context, builder, signature, args):
            ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
            val = _cast(context, builder, args[2], signature.args[2], dtype)
            return builder.atomic_rmw(op, ptr, val, "seq_cst")

        return dtype(a, i, value), codegen

    return rmw


fetch_add = intrinsic(_read_modify_write("add"))
fetch_add.__doc__ = "``a[i] += value`` atomically; the value ``a[i]`` held before."
fetch_or = intrinsic(_read_modify_write("or"))
fetch_or.__doc__ = "``a[i] |= value`` atomically; the value ``a[i]`` held before."
fetch_min = intrinsic(_read_modify_write("min"))
fetch_min.__doc__ = ("``a[i] = min(a[i], value)`` atomically (signed); the value ``a[i]`` "
                     "held before.")


@intrinsic
def float_bits(typingctx, x):
    """The bit pattern of a float64 as an int64 (the same order for non-negative values)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(x), codegen


@intrinsic
def bits_float(typingctx, b):
    """The float64 whose bit pattern is the int64 ``b``."""
    if b != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(b), codegen


@kernel(inline="always")
def add_float(bits, i, value):
    """``x[i] += value`` atomically, ``bits`` being the int64 view of the float64 array
    ``x``: a compare-and-swap of the bits until no other thread wrote between."""
    old = bits[i]
    while True:
        new = float_bits(bits_float(old) + value)
        if cas(bits, i, old, new):
            return
        old = bits[i]
