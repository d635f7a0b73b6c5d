"""Kernel factories: CUDA sources of the package compiled once through CuPy.

Each factory is memoised on its template arguments (index dtypes, value
dtypes, the semiring's C expressions), so a kernel is compiled once per
process (and CuPy also caches the binaries on disk).  Sources are plain
``.cu`` files beside this module; a few ``typedef`` / ``#define`` lines are
prepended to specialise them.

Examples
--------
>>> import numpy as np
>>> from spbfs.gpu.kernels import ctype
>>> ctype(np.int32), ctype(np.float64), ctype(np.bool_)
('int', 'double', 'bool')
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent

_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}

_OPTIONS = ("-std=c++17",)


def ctype(dtype) -> str:
    """The C type name of a numpy dtype, or TypeError for unsupported dtypes."""
    dtype = np.dtype(dtype)
    try:
        return _CTYPES[dtype]
    except KeyError:
        raise TypeError(f"dtype {dtype} is not supported by the GPU kernels") from None


@functools.cache
def _source(name: str) -> str:
    return (_HERE / name).read_text()


@functools.cache
def _module(code: str, cooperative: bool = False):
    import cupy

    return cupy.RawModule(code=code, options=_OPTIONS, enable_cooperative_groups=cooperative)


def bfs_module(idx_dtype, ptr_dtype, parents: bool, directed: bool, remote: bool = False,
               parent_map: bool = False, loop_blocks: int = 0, levels: bool = True):
    """The BFS kernels (``bfs_reset``, ``bfs_push``, ``bfs_pull``, ...) for these types;
    ``remote``: ``bfs_push`` expands into another vertex space (:mod:`spbfs.dist`);
    ``parent_map``: parents are stored through a map of vertex ids (``PARENT_MAP``);
    ``levels`` False: no level is written (a search for its parents alone).

    ``loop_blocks`` > 0: the module of ``bfs_levels``, the whole level loop in one cooperative
    launch (its kernels are launched cooperatively), for ``loop_blocks`` blocks a
    multiprocessor."""
    head = (f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
            f"#define WITH_PARENTS {int(bool(parents))}\n#define DIRECTED {int(bool(directed))}\n"
            f"#define REMOTE {int(bool(remote))}\n#define PARENT_MAP {int(bool(parent_map))}\n"
            f"#define WITH_LEVELS {int(bool(levels))}\n")
    if loop_blocks:
        head += f"#define LEVEL_LOOP 1\n#define LOOP_BLOCKS {int(loop_blocks)}\n"
    return _module(head + _source("bfs_kernels.cu"), cooperative=bool(loop_blocks))


def build_module(edge_dtype, idx_dtype, ptr_dtype):
    """The CSR construction kernels (``csr_count``, ``csr_scatter``, ``edge_minmax``)."""
    head = (f"typedef {ctype(edge_dtype)} e_t;\ntypedef {ctype(idx_dtype)} idx_t;\n"
            f"typedef {ctype(ptr_dtype)} ptr_t;\n")
    return _module(head + _source("build_kernels.cu"))


def forest_module(idx_dtype):
    """The forest pruning's kernel (``forest_outputs``)."""
    return _module(f"typedef {ctype(idx_dtype)} idx_t;\n" + _source("forest_kernels.cu"))


def peel_module(idx_dtype, ptr_dtype):
    """The peeling's kernels (``peel_round``, ``peel_block``)."""
    head = f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
    return _module(head + _source("peel_kernels.cu"))


def color_module(idx_dtype, ptr_dtype):
    """The greedy colouring's kernels (``color_rank``, ``color_round``)."""
    head = f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
    return _module(head + _source("color_kernels.cu"))


def components_module(idx_dtype, ptr_dtype):
    """The weak components' union-find kernels (``uf_init``, ``uf_hook``, ``uf_flatten``)."""
    head = f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
    return _module(head + _source("components_kernels.cu"))


def mode_module(idx_dtype, ptr_dtype, score_dtype, weighted: bool, costed: bool,
                row_list: bool = False):
    """The most-frequent-value kernels (``mode_rows``, ``mode_heavy``): counts, or totals
    of weights, less a cost per value or not; with ``row_list`` over a list of rows (and
    ``sweep_take`` / ``sweep_mark``, :func:`spbfs.semiring.mode_sweeps`' class step)."""
    head = (f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
            f"typedef {ctype(score_dtype)} score_t;\n#define WEIGHTED {int(bool(weighted))}\n"
            f"#define COSTED {int(bool(costed))}\n#define ROW_LIST {int(bool(row_list))}\n")
    return _module(head + _source("mode_kernels.cu"))


def queue_module(idx_dtype, ptr_dtype):
    """The queue-order kernels (``queue_claim``, ``queue_first``, ``queue_take``)."""
    head = f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
    return _module(head + _source("frontier.cuh") + _source("queue_kernels.cu"))


def semiring_module(add_expr: str, mul_expr: str, is_any: bool, has_terminal: bool,
                    x_dtype, a_dtype, out_dtype, idx_dtype, ptr_dtype, xi_dtype):
    """Generic push/pull kernels (``sr_push``, ``sr_pull``) for one semiring and dtypes.

    ``add_expr`` combines ``a`` and ``b`` (the monoid); ``mul_expr`` is in
    ``x``, ``a``, ``i``, ``j`` (the multiply).
    """
    head = (f"typedef {ctype(x_dtype)} x_t;\ntypedef {ctype(a_dtype)} a_t;\n"
            f"typedef {ctype(out_dtype)} T;\ntypedef {ctype(idx_dtype)} idx_t;\n"
            f"typedef {ctype(ptr_dtype)} ptr_t;\ntypedef {ctype(xi_dtype)} xi_t;\n"
            f"#define IS_ANY {int(bool(is_any))}\n#define HAS_TERMINAL {int(bool(has_terminal))}\n"
            f"#define SR_ADD(a, b) ({add_expr})\n#define SR_MUL(x, a, i, j) ({mul_expr})\n")
    return _module(head + _source("frontier.cuh") + _source("semiring_kernels.cu"))


def segment_module(add_expr: str, dtype):
    """The segmented reduction kernel (``segment_reduce``) of a monoid over ``dtype``."""
    head = f"typedef {ctype(dtype)} T;\n#define SR_ADD(a, b) ({add_expr})\n"
    return _module(head + _source("ops_kernels.cu"))


@functools.cache
def elementwise(expr: str, args: tuple, types: tuple, out_type: str, name: str):
    """A CuPy ElementwiseKernel ``out = (out_type)(expr)`` of the operands ``args`` (memoised).

    The expression is the body of a templated device function whose parameters carry the
    operator's names (``x, a, i, j`` or ``v, i, j, thunk``: CuPy reserves ``i`` inside a
    kernel).  ``types`` are the operands' numpy type names: concrete, because CuPy cannot
    infer a type placeholder from a scalar operand (an operand an operator does not read
    is passed as an ``int8`` scalar, so only the output sets the shape).
    """
    import cupy

    tparams = ", ".join(f"typename P{k}" for k in range(len(args)))
    params = ", ".join(f"P{k} {a}" for k, a in enumerate(args))
    unused = " ".join(f"(void){a};" for a in args)
    preamble = (f"template <typename T, {tparams}>\n__device__ __forceinline__ T {name}_op"
                f"({params}) {{ {unused} return (T)({expr}); }}\n")
    inputs = ", ".join(f"{t} {a}_" for t, a in zip(types, args, strict=True))
    call = ", ".join(f"{a}_" for a in args)
    body = f"out = {name}_op<{ctype(out_type)}>({call});"
    return cupy.ElementwiseKernel(inputs, f"{out_type} out", body, name, preamble=preamble)


def run_elementwise(expr: str, names: tuple, operands: tuple, out, name: str):
    """Run :func:`elementwise` for these operands (arrays or scalars) into ``out``."""
    types = tuple((v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype).name
                  for v in operands)
    kernel = elementwise(expr, names, types, out.dtype.name, name)
    return kernel(*operands, out)


@functools.cache
def sm_count(device_id: int = 0) -> int:
    """Number of multiprocessors of a CUDA device."""
    import cupy

    return int(cupy.cuda.Device(device_id).attributes["MultiProcessorCount"])


def blocks(work: int, cap: int | None = None, threads: int = 256) -> int:
    """Blocks of ``threads`` for ``work`` items, one item a thread, at most ``cap`` (default
    32 per multiprocessor of device 0; the kernels loop over the rest) and at least one.

    Examples
    --------
    >>> blocks(1000, cap=64), blocks(0, cap=64), blocks(10**9, cap=64)
    (4, 1, 64)
    """
    if cap is None:
        cap = sm_count() * 32
    return int(max(1, min((work + threads - 1) // threads, cap)))


def edge_offsets(indptr, rows):
    """The prefix sum of the degrees of ``rows`` (``nrows + 1`` int64 entries) and its
    total, read on the host: a thread per edge finds its row by binary search in it."""
    import cupy

    offs = cupy.empty(rows.size + 1, np.int64)
    offs[0] = 0
    cupy.cumsum((indptr[rows + 1] - indptr[rows]).astype(np.int64), out=offs[1:])
    return offs, int(offs[-1])


@functools.cache
def cooperative_launch(device_id: int = 0) -> bool:
    """Whether a CUDA device runs cooperative launches (grid-wide barriers)."""
    import cupy

    return bool(cupy.cuda.Device(device_id).attributes.get("CooperativeLaunch", 0))


_resident: dict = {}


def resident_blocks(kernel, threads: int, shared: int = 0) -> int:
    """How many blocks of ``threads`` threads of ``kernel`` (a CuPy ``RawKernel``) one
    multiprocessor holds at once (its occupancy), computed once per compiled kernel.

    A grid-stride kernel is launched with a multiple of this per multiprocessor: a grid
    larger than the resident blocks runs in waves, and its last wave leaves the device
    part idle.

    Examples
    --------
    >>> k = bfs_module(np.int32, np.int64, True, False).get_function("bfs_pull")  # doctest: +SKIP
    >>> resident_blocks(k, 256) >= 1                                             # doctest: +SKIP
    True
    """
    import cupy

    func = kernel.kernel  # the compiled function on the current device
    key = (func.ptr, int(threads), int(shared))
    blocks = _resident.get(key)
    if blocks is None:
        blocks = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            func.ptr, int(threads), int(shared))
        _resident[key] = blocks = max(1, int(blocks))
    return blocks


class PackedLaunch:
    """One kernel's launches with its arguments packed once: a slot of 8 bytes per argument
    and the array of their addresses that ``cuLaunchKernel`` reads (it copies the values
    at the call), so a launch is one driver call with no argument converted; a launch
    made again and again (each search's level loop) sets only the arguments that changed.

    Parameters
    ----------
    kernel : cupy.RawKernel
        Compiled for the current device.
    args : sequence
        The kernel's arguments in order: CuPy arrays (their device pointers) and numpy
        scalars of the kernel's parameter types.
    cooperative : bool
        Launch with ``cuLaunchCooperativeKernel`` (grid-wide barriers).

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> k = cupy.RawKernel('extern "C" __global__ void f(int* a, int v)'
    ...                    '{ a[threadIdx.x] = v; }', "f")                   # doctest: +SKIP
    >>> a = cupy.zeros(4, np.int32)                                          # doctest: +SKIP
    >>> launch = PackedLaunch(k, (a, np.int32(7)))                           # doctest: +SKIP
    >>> launch.set(1, np.int32(9)); launch(1, 4)                             # doctest: +SKIP
    >>> a.tolist()                                                           # doctest: +SKIP
    [9, 9, 9, 9]
    """

    def __init__(self, kernel, args, cooperative: bool = False):
        from cupy.cuda import driver

        self._function = kernel.kernel  # its module stays loaded while this is kept
        self._func = self._function.ptr
        self._cooperative = bool(cooperative)
        self._launch = driver.launchCooperativeKernel if cooperative else driver.launchKernel
        self._slots = np.zeros(max(len(args), 1), np.uint64)
        self._views = [None] * len(args)
        self._params = (self._slots.ctypes.data
                        + 8 * np.arange(self._slots.size, dtype=np.uint64))
        self._params_at = self._params.ctypes.data
        for i, value in enumerate(args):
            self.set(i, value)

    def set(self, i: int, value) -> None:
        """Argument ``i`` becomes ``value`` (an array's pointer, or a scalar of the type it
        was packed with) for the launches that follow."""
        data = getattr(value, "data", None)
        if hasattr(data, "ptr"):  # a device array: its pointer
            self._slots[i] = data.ptr
            return
        view = self._views[i]
        if view is None:
            if not isinstance(value, np.generic) or value.dtype.itemsize > 8:
                raise TypeError(f"argument {i} must be a CuPy array or a numpy scalar of at "
                                f"most 8 bytes, got {type(value).__name__}")
            self._slots[i] = 0
            view = self._views[i] = self._slots[i:i + 1].view(value.dtype)
        view[0] = value

    def __call__(self, grid: int, threads: int, stream=None) -> None:
        """Launch ``grid`` blocks of ``threads`` threads on ``stream`` (default: the
        current one)."""
        import cupy

        if not cupy.cuda.driver.ctxGetCurrent():  # a thread's first CUDA call: the runtime
            cupy.cuda.runtime.free(0)  # makes the device's primary context current
        ptr = (stream if stream is not None else cupy.cuda.get_current_stream()).ptr
        if self._cooperative:
            self._launch(self._func, grid, 1, 1, threads, 1, 1, 0, ptr, self._params_at)
        else:
            self._launch(self._func, grid, 1, 1, threads, 1, 1, 0, ptr, self._params_at, 0)


def packed_module(idx_dtype, ptr_dtype, out_dtype, edge_bits: bool):
    """The packed ``any_secondi`` kernels (``packed_push``, ``packed_pull``) for these types;
    ``edge_bits``: the stored ``uint64`` word of an edge is ANDed into its hits."""
    head = (f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
            f"typedef {ctype(out_dtype)} out_t;\n#define EDGE_BITS {int(bool(edge_bits))}\n")
    return _module(head + _source("frontier.cuh") + _source("packed_kernels.cu"))


def bitplane_module(out_dtype):
    """The ``unpack_bitplanes`` kernel writing codes of this dtype."""
    return _module(f"typedef {ctype(out_dtype)} out_t;\n" + _source("bitplane_kernels.cu"))


def relax_module(idx_dtype, ptr_dtype):
    """The frontier Bellman-Ford round (``relax_round``) for these index types."""
    head = f"typedef {ctype(idx_dtype)} idx_t;\ntypedef {ctype(ptr_dtype)} ptr_t;\n"
    return _module(head + _source("relax_kernels.cu"))
