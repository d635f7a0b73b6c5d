"""Prefetches: ask the CPU to bring the cache line holding an array entry towards its
caches, without waiting for it and without faulting (LLVM's ``llvm.prefetch``, kept in
every cache level).

* ``prefetch(array, i, j)``, a read of ``array[i, j]`` (2-D): a kernel that reads whole rows
  of a dense block at random (SpMM: row ``k`` of ``B`` for each entry ``A[i, k]``)
  prefetches the rows of the entries a few steps ahead, so their loads overlap the adds of
  the current one;
* ``prefetch_flat(array, i)``, a write of ``array[i]`` (1-D): a kernel that writes a large
  table at random slots it can compute ahead (a hash table's inserts) prefetches the slots
  of the keys a few steps ahead, so their misses overlap;
* ``prefetch_read(array, i)``, a read of ``array[i]`` (1-D): a search that takes rows of a
  CSR matrix in an order it knows a few steps ahead (a queue) prefetches their ``indptr``
  entries and first ``indices`` lines (a read leaves a line shared by threads that read it
  too, where a write prefetch would take it from them).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_flat", "prefetch_read"]

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


def _prefetch_codegen(write):
    """Code that prefetches the entry at the signature's indices (the arguments after the
    array), for reading or writing."""
    def codegen(context, builder, signature, args):
        aty = signature.args[0]
        arr = context.make_array(aty)(context, builder, args[0])
        index = [context.cast(builder, v, t, types.intp)
                 for v, t in zip(args[1:], signature.args[1:], strict=True)]
        ptr = cgutils.get_item_pointer(context, builder, aty, arr, index)
        fnty = ir.FunctionType(ir.VoidType(), [_I8P, _I32, _I32, _I32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read (0) or write (1), locality 3 (keep in every level), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, _I8P), ir.Constant(_I32, int(write)),
                          ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        return context.get_dummy_value()

    return codegen


@intrinsic
def prefetch(typingctx, array, i, j):
    """Prefetch the cache line of ``array[i, j]`` for reading (2-D, indices in range: not
    checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 2):
        return None
    return types.void(array, i, j), _prefetch_codegen(write=False)


@intrinsic
def prefetch_flat(typingctx, array, i):
    """Prefetch the cache line of ``array[i]`` for writing (1-D, ``i`` in range: not
    checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    return types.void(array, i), _prefetch_codegen(write=True)


@intrinsic
def prefetch_read(typingctx, array, i):
    """Prefetch the cache line of ``array[i]`` for reading (1-D, ``i`` in range: not
    checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    return types.void(array, i), _prefetch_codegen(write=False)
