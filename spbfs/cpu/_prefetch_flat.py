"""``prefetch_flat(array, i)``: ask the CPU to bring the cache line holding ``array[i]`` (a
1-D array) towards its caches, for writing, without waiting for it and without faulting
(LLVM's ``llvm.prefetch``).  A kernel that writes a large table at random slots it can
compute ahead (a hash table's inserts) prefetches the slots of the keys a few steps ahead,
so their misses overlap.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch_flat"]

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


@intrinsic
def prefetch_flat(typingctx, array, i):
    """Prefetch the cache line of ``array[i]`` (1-D, ``i`` in range: not checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        aty = signature.args[0]
        arr = context.make_array(aty)(context, builder, args[0])
        index = [context.cast(builder, args[1], signature.args[1], types.intp)]
        ptr = cgutils.get_item_pointer(context, builder, aty, arr, index)
        fnty = ir.FunctionType(ir.VoidType(), [_I8P, _I32, _I32, _I32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # write (1), locality 3 (keep in every level), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, _I8P), ir.Constant(_I32, 1),
                          ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        return context.get_dummy_value()

    return types.void(array, i), codegen
