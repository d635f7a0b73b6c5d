"""Graph500 Kronecker (R-MAT) edge-list generator, counter based.

Every random bit of edge number ``e`` is a pure function of ``(seed, e)``: a 64-bit mixing hash
(the splitmix64 finaliser) applied to a counter.  So any slice ``[start, stop)`` of the edge list
can be generated on its own (one MPI rank, one GPU, one block of a loop) and the concatenation of
slices is the whole list.  Vertex labels are then scrambled with a keyed Feistel network over
``scale`` bits: a bijection of ``[0, 2**scale)`` evaluated per vertex, with no permutation table.

All functions are array-module agnostic: they run on numpy arrays, and the same code runs on cupy
arrays (pass ``xp=cupy`` to :func:`kronecker`, or cupy arrays to :func:`permute_vertices`).
"""

from __future__ import annotations

import numpy as np

from ..core.validation import check_integer

__all__ = ["INITIATOR", "kronecker", "kronecker_edge_count", "permute_vertices"]

# Graph500 initiator (specification, "Generating the Edge List").
INITIATOR = (0.57, 0.19, 0.19, 0.05)

# Cumulative thresholds of A, A+B, A+B+C on a 16-bit uniform (0..65535).
_T_A = round(0.57 * 65536)
_T_AB = round((0.57 + 0.19) * 65536)
_T_ABC = round((0.57 + 0.19 + 0.19) * 65536)

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # splitmix64 increment (golden ratio)
_MIX1 = 0xBF58476D1CE4E5B9  # splitmix64 finaliser multipliers
_MIX2 = 0x94D049BB133111EB
_F1 = 0xD6E8FEB86659FD93  # Feistel round-function multipliers
_F2 = 0xFF51AFD7ED558CCD

_FEISTEL_ROUNDS = 4
_MAX_SCALE = 40
# Edges per internal block: small on the CPU so the working arrays stay in cache.
_CPU_BLOCK = 1 << 15
_GPU_BLOCK = 1 << 24


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _xp(*arrays):
    """Return ``cupy`` if any argument is a cupy array, else ``numpy``."""
    for a in arrays:
        if type(a).__module__.split(".", 1)[0] == "cupy":
            try:
                import cupy
            except ImportError:  # pragma: no cover - a cupy array implies cupy imports
                break
            return cupy
    return np


def _check_int(name, value, lo=None, hi=None):
    """Return ``value`` as a Python int in ``[lo, hi]``, raising TypeError / ValueError naming
    ``name`` (:func:`spbfs.core.validation.check_integer`'s wording)."""
    value = check_integer(value, name, lo)
    if hi is not None and value > hi:
        raise ValueError(f"{name} must be at most {hi}, got {value}")
    return value


def _mix64_int(x):
    """splitmix64 finaliser on a Python int (exact 64-bit wrap-around)."""
    x &= _MASK64
    x = ((x ^ (x >> 30)) * _MIX1) & _MASK64
    x = ((x ^ (x >> 27)) * _MIX2) & _MASK64
    return x ^ (x >> 31)


def _mix64(z):
    """splitmix64 finaliser on a uint64 array, in place (wrapping arithmetic)."""
    z ^= z >> np.uint64(30)
    z *= np.uint64(_MIX1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(_MIX2)
    z ^= z >> np.uint64(31)
    return z


def _edge_key(seed):
    return _mix64_int(seed ^ 0x5DEECE66D2545F49)


def _feistel_keys(seed):
    base = _mix64_int(seed ^ 0x2545F4914F6CDD1D)
    return [_mix64_int(base + (i + 1) * _GAMMA) for i in range(_FEISTEL_ROUNDS)]


def _feistel_widths(scale):
    """(top, bottom) bit widths of each round; the halves swap roles every round."""
    a, b = (scale + 1) // 2, scale // 2
    out = []
    for _ in range(_FEISTEL_ROUNDS):
        out.append((a, b))
        a, b = b, a
    return out


def _round_function(lo, key, width):
    """Keyed hash of the low half, truncated to ``width`` bits (``width`` >= 1)."""
    f = lo ^ np.uint64(key)
    f *= np.uint64(_F1)
    f ^= f >> np.uint64(32)
    f *= np.uint64(_F2)
    f >>= np.uint64(64 - width)
    return f


def _feistel(x, scale, keys, inverse=False):
    """Apply the keyed Feistel bijection of ``[0, 2**scale)`` to a uint64 array ``x``.

    Round ``i`` splits ``x`` into its top ``a`` bits ``hi`` and bottom ``b`` bits ``lo`` and
    returns ``lo`` in the top ``b`` bits and ``hi ^ F_i(lo)`` in the bottom ``a`` bits, so every
    round is a bijection for any ``scale`` (an unbalanced split needs no cycle walking).
    """
    widths = _feistel_widths(scale)
    rounds = list(zip(widths, keys, strict=True))
    if not inverse:
        for (a, b), key in rounds:
            hi = x >> np.uint64(b)
            lo = x & np.uint64((1 << b) - 1)
            if a:
                hi ^= _round_function(lo, key, a)
            x = (lo << np.uint64(a)) | hi
    else:
        for (a, b), key in reversed(rounds):
            lo = x >> np.uint64(a)
            hi = x & np.uint64((1 << a) - 1)
            if a:
                hi ^= _round_function(lo, key, a)
            x = (hi << np.uint64(b)) | lo
    return x


def _raw_block(scale, key, lo, hi, xp, acc):
    """Unpermuted Kronecker endpoints of edges ``lo .. hi-1`` as arrays of dtype ``acc``.

    Word ``w`` of edge ``e`` is ``mix64(key + (e * W + w + 1) * GAMMA)`` (a splitmix64 stream
    indexed by a counter); its four 16-bit fields are the uniforms of four Kronecker levels.
    """
    nwords = (scale + 3) // 4
    e = xp.arange(lo, hi, dtype=xp.uint64)
    z0 = e * np.uint64(nwords)
    z0 += np.uint64(1)
    z0 *= np.uint64(_GAMMA)
    z0 += np.uint64(key)
    u = xp.zeros(hi - lo, dtype=acc)
    v = xp.zeros(hi - lo, dtype=acc)
    t_a, t_ab, t_abc = np.uint16(_T_A), np.uint16(_T_AB), np.uint16(_T_ABC)
    for w in range(nwords):
        word = _mix64(z0 + np.uint64((w * _GAMMA) & _MASK64))
        for k in range(min(4, scale - 4 * w)):
            level = acc.type(4 * w + k)
            r = (word >> np.uint64(16 * k)).astype(xp.uint16)
            # quadrant A: (0, 0), B: (0, 1), C: (1, 0), D: (1, 1)
            ubit = r >= t_ab
            vbit = (r >= t_a) ^ ubit ^ (r >= t_abc)
            u |= ubit.astype(acc) << level
            v |= vbit.astype(acc) << level
    return u, v


def _check_args(scale, edgefactor, seed, start, stop):
    scale = _check_int("scale", scale, 1, _MAX_SCALE)
    edgefactor = _check_int("edgefactor", edgefactor, 1)
    seed = _check_int("seed", seed, 0, _MASK64)
    nedge = edgefactor << scale
    start = _check_int("start", start, 0, nedge)
    stop = nedge if stop is None else _check_int("stop", stop, 0, nedge)
    if start > stop:
        raise ValueError(f"start must be <= stop, got start={start}, stop={stop}")
    return scale, edgefactor, seed, start, stop


def _check_xp(xp):
    if xp is None:
        return np
    if not (hasattr(xp, "arange") and hasattr(xp, "uint64")):
        raise TypeError(f"xp must be an array module such as numpy or cupy, got {xp!r}")
    return xp


def _generate(scale, edgefactor, seed, start, stop, xp, permute):
    scale, edgefactor, seed, start, stop = _check_args(scale, edgefactor, seed, start, stop)
    xp = _check_xp(xp)
    count = stop - start
    u_out = xp.empty(count, dtype=xp.int64)
    v_out = xp.empty(count, dtype=xp.int64)
    acc = np.dtype(np.uint32 if scale <= 32 else np.uint64)
    block = _CPU_BLOCK if xp is np else _GPU_BLOCK
    key = _edge_key(seed)
    fkeys = _feistel_keys(seed)
    for lo in range(start, stop, block):
        hi = min(lo + block, stop)
        u, v = _raw_block(scale, key, lo, hi, xp, acc)
        if permute:
            u = _feistel(u.astype(xp.uint64), scale, fkeys)
            v = _feistel(v.astype(xp.uint64), scale, fkeys)
        u_out[lo - start : hi - start] = u
        v_out[lo - start : hi - start] = v
    return u_out, v_out


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def kronecker_edge_count(scale, edgefactor=16):
    """Number of edge tuples ``M = edgefactor * 2**scale`` of a Graph500 Kronecker graph.

    Parameters
    ----------
    scale : int
        Base-2 logarithm of the number of vertices, in ``[1, 40]``.
    edgefactor : int, optional
        Edges per vertex (half the average degree), at least 1.  Default 16.

    Returns
    -------
    int
        The number of generated edge tuples.

    Examples
    --------
    >>> from spbfs.graph500.generate import kronecker_edge_count
    >>> kronecker_edge_count(10)
    16384
    >>> kronecker_edge_count(3, edgefactor=2)
    16
    """
    scale = _check_int("scale", scale, 1, _MAX_SCALE)
    edgefactor = _check_int("edgefactor", edgefactor, 1)
    return edgefactor << scale


def permute_vertices(x, scale, seed=1, *, inverse=False):
    """Pseudo-random bijection of ``[0, 2**scale)`` applied elementwise, with no table.

    This is the vertex relabelling that :func:`kronecker` applies for the same ``seed``: a
    four-round keyed Feistel network over ``scale`` bits (halves of ``ceil(scale/2)`` and
    ``floor(scale/2)`` bits, round keys derived from ``seed``), so each label is computed on its
    own in O(1) work and memory.

    Parameters
    ----------
    x : array of int
        Vertex ids in ``[0, 2**scale)`` (numpy or cupy array, any integer dtype).
    scale : int
        Number of bits, in ``[1, 40]``.
    seed : int, optional
        Seed in ``[0, 2**64)``; the same seed as the :func:`kronecker` call.  Default 1.
    inverse : bool, optional
        Apply the inverse bijection instead.  Default False.

    Returns
    -------
    array of int64
        The relabelled ids, on the same array module as ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not an integer array or ``scale`` / ``seed`` are not integers.
    ValueError
        If ``scale`` or ``seed`` are out of range or ``x`` has ids outside ``[0, 2**scale)``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.graph500.generate import permute_vertices
    >>> p = permute_vertices(np.arange(8), 3, seed=7)
    >>> sorted(p.tolist())
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> permute_vertices(p, 3, seed=7, inverse=True).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    scale = _check_int("scale", scale, 1, _MAX_SCALE)
    seed = _check_int("seed", seed, 0, _MASK64)
    xp = _xp(x)
    x = xp.asarray(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"x must be an integer array, got dtype {x.dtype}")
    if x.size and (int(x.min()) < 0 or int(x.max()) >= (1 << scale)):
        raise ValueError(f"x must hold vertex ids in [0, 2**scale) = [0, {1 << scale})")
    out = _feistel(x.astype(xp.uint64), scale, _feistel_keys(seed), inverse=bool(inverse))
    return out.astype(xp.int64)


def kronecker(scale, edgefactor=16, seed=1, *, start=0, stop=None, xp=None):
    """Graph500 Kronecker edge list, or the slice ``[start, stop)`` of it.

    Generates ``M = edgefactor * 2**scale`` undirected edge tuples on ``n = 2**scale`` vertices
    with the Graph500 initiator ``A, B, C, D = 0.57, 0.19, 0.19, 0.05``.  For each edge and each
    of the ``scale`` levels a 16-bit uniform picks a quadrant (thresholds ``A``, ``A+B``,
    ``A+B+C`` scaled to 65536) and sets bit ``level`` of ``u`` and/or ``v``; the vertex labels
    are then scrambled by :func:`permute_vertices` (same ``seed``).

    The generator is counter based: the random bits of edge ``e`` are ``splitmix64`` hashes of
    ``(seed, e * W + w)`` for ``w < W = ceil(scale / 4)``, each 64-bit word serving four levels.
    Hence any slice can be produced independently (by one MPI rank or one GPU) and slices
    concatenate to the whole list.  Edges are independent and identically distributed, so the
    list is already in random order: no shuffle is needed.  The list contains self-loops and
    duplicate edges, as the specification requires.

    Parameters
    ----------
    scale : int
        Base-2 logarithm of the number of vertices, in ``[1, 40]``.
    edgefactor : int, optional
        Edges per vertex (half the average degree), at least 1.  Default 16.
    seed : int, optional
        Seed in ``[0, 2**64)``.  Default 1.
    start, stop : int, optional
        Global edge numbers of the slice to generate, ``0 <= start <= stop <= M``
        (``stop`` defaults to ``M``).
    xp : module, optional
        Array module to create the output on (numpy, the default, or cupy).

    Returns
    -------
    u, v : arrays of int64
        Endpoints of edges ``start .. stop-1``, each of length ``stop - start``.

    Raises
    ------
    TypeError
        If an argument is not an integer, or ``xp`` is not an array module.
    ValueError
        If an argument is out of range.

    Notes
    -----
    Work is done in blocks of edges (``2**15`` on the CPU, ``2**24`` on a GPU), so the memory
    used beyond the output is bounded.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.graph500.generate import kronecker
    >>> u, v = kronecker(10, edgefactor=4, seed=3)
    >>> u.shape, u.dtype.name, int(max(u.max(), v.max())) < 2**10
    ((4096,), 'int64', True)
    >>> u2, v2 = kronecker(10, edgefactor=4, seed=3, start=1000, stop=1500)
    >>> bool(np.array_equal(u2, u[1000:1500]) and np.array_equal(v2, v[1000:1500]))
    True
    """
    return _generate(scale, edgefactor, seed, start, stop, xp, permute=True)


# --------------------------------------------------------------------------------------------
# private helpers exposed for tests
# --------------------------------------------------------------------------------------------


def _kronecker_unpermuted(scale, edgefactor=16, seed=1, *, start=0, stop=None, xp=None):
    """:func:`kronecker` without the vertex relabelling (bit ``l`` of u, v = level ``l``)."""
    return _generate(scale, edgefactor, seed, start, stop, xp, permute=False)


def _quadrant_frequencies(u, v, scale):
    """Fraction of edges in quadrants A, B, C, D at each level of unpermuted endpoints.

    Returns a numpy array of shape ``(scale, 4)``; row ``l`` counts ``(bit l of u, bit l of v)``
    equal to (0, 0), (0, 1), (1, 0), (1, 1).
    """
    xp = _xp(u, v)
    levels = xp.arange(scale, dtype=xp.int64)
    ub = (u[:, None] >> levels[None, :]) & 1
    vb = (v[:, None] >> levels[None, :]) & 1
    quad = 2 * ub + vb
    out = xp.stack([(quad == q).mean(axis=0) for q in range(4)], axis=1)
    return np.asarray(out.get() if hasattr(out, "get") else out)
