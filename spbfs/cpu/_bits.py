"""Bit tricks on 64-bit words for the compiled kernels (inlined where they are called)."""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["has_bit", "lowest_bit", "mark_bit", "popcount"]

_ONE = np.uint64(1)


@kernel(inline="always")
def popcount(x):  # pragma: no cover - compiled
    """The set bits of the uint64 ``x`` (a form LLVM turns into one instruction)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) &
                                               np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@kernel(inline="always")
def lowest_bit(x):  # pragma: no cover - compiled
    """The position of the lowest set bit of the uint64 ``x`` (not 0)."""
    return popcount((x & (~x + _ONE)) - _ONE)


@kernel(inline="always")
def has_bit(bits, v):  # pragma: no cover - compiled
    """Whether bit ``v`` (a non-negative id) of the uint64 words ``bits`` is set."""
    u = np.uintp(v)
    return (bits[u >> np.uintp(6)] >> np.uint64(u & np.uintp(63))) & _ONE != 0


@kernel(inline="always")
def mark_bit(bits, v):  # pragma: no cover - compiled
    """Set bit ``v`` of ``bits`` (not atomically); whether it was clear before."""
    u = np.uintp(v)
    word = u >> np.uintp(6)
    bit = _ONE << np.uint64(u & np.uintp(63))
    if bits[word] & bit:
        return False
    bits[word] |= bit
    return True
