"""Atomic read-modify-write on an array entry, for kernels that several threads run over
one shared array at once (:func:`spbfs.cpu.threads.run_ranges`).

``cas(a, i, expected, new)`` stores ``new`` at ``a[i]`` if it holds ``expected`` and says
whether it did; ``fetch_add(a, i, value)`` adds and returns the entry before.  Both are one
locked instruction (sequentially consistent, so the compiler moves no load of the array
across them); integer arrays of any width.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["cas", "fetch_add"]


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


@intrinsic
def fetch_add(typingctx, a, i, value):
    """``a[i] += value`` atomically; the value ``a[i]`` held before."""
    if not isinstance(a, types.Array) or not isinstance(a.dtype, types.Integer):
        return None
    dtype = a.dtype

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        val = _cast(context, builder, args[2], signature.args[2], dtype)
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return dtype(a, i, value), codegen
