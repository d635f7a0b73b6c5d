"""The CPU backend: the primitives of the backend seam (:mod:`spbfs.core.seam`) on numpy
arrays, chosen for numpy operands by :func:`spbfs.semiring._backend.backend_for`.

Every required primitive and every optional one but ``queue_levels`` and ``prefers_pull``:
numba kernels, :mod:`spbfs.cpu.products` and one module per search, with the signatures the
seam declares;
and the CPU's own ``csr_union`` and ``csr_assign`` (scipy's compiled merges,
:data:`spbfs.core.seam.CPU_ONLY`).

Examples
--------
>>> from spbfs.core import seam
>>> from spbfs.cpu import backend
>>> seam.backend_defects(backend, cpu=True)
[]
"""

from .bfs import bitmap_search
from .brandes import brandes_source
from .color import greedy_colors
from .csr import csr_assign, csr_union
from .delta import delta_stepping
from .forest import forest_outputs, hub_numbering, pruning_share
from .mode import mode_sweeps, modularity_sweep, row_mode
from .packed import packed_pull, packed_push, unpack_bitplanes
from .peel import peel, peel_levels
from .permute import csr_induced, csr_lower_permuted, csr_permuted
from .products import (
    binary,
    ewise_csr,
    index_unary,
    masked_dot,
    reduce_values,
    segment_reduce,
    select_csr,
    spgemm,
    spmm,
    spmspv,
    spmv_scatter,
)
from .pull import spmv
from .queue import queue_hops, queue_meet, queue_order
from .quotient import quotient
from .rank import pull_affine
from .strong import strong_components
from .transpose import csr_transpose
from .weak import weak_components

__all__ = ["binary", "bitmap_search", "brandes_source", "csr_assign", "csr_induced",
           "csr_lower_permuted", "csr_permuted", "csr_transpose", "csr_union", "delta_stepping",
           "ewise_csr", "forest_outputs", "greedy_colors", "hub_numbering", "index_unary",
           "masked_dot", "mode_sweeps", "modularity_sweep", "packed_pull", "packed_push", "peel",
           "peel_levels", "pruning_share", "pull_affine", "queue_hops",
           "queue_meet", "queue_order", "quotient", "reduce_values", "row_mode", "segment_reduce",
           "select_csr", "spgemm", "spmm", "spmspv", "spmv", "spmv_scatter", "strong_components",
           "unpack_bitplanes", "weak_components"]
