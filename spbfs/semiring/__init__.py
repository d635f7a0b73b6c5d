"""Semirings and the operators built on them.

Named semirings follow GraphBLAS' ``{monoid}_{multiply}`` convention:
``any_pair``, ``any_secondi``, ``lor_land``, ``min_plus``, ``min_first``,
``plus_times`` and more; :class:`Semiring` builds your own from a
:class:`Monoid` and a :class:`BinaryOp` (see ``ops`` and ``monoids``).

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> from spbfs import semiring
>>> A = sp.csr_array(np.array([[0, 2.0, 5.0], [0, 0, 1.0], [0, 0, 0]]))
>>> x = semiring.Vector.sparse([0, 1], [0.0, 2.0], size=3)
>>> semiring.vxm(x, A, semiring.min_plus).values
array([2., 3.])
"""

from ._affine import AffineStep, pull_affine
from ._color import greedy_colors
from ._dependencies import source_dependencies
from ._elementwise import ewise_add, ewise_mult, ewise_union
from ._extract import assign, extract, extract_pattern
from ._forest import forest_outputs, hub_numbering, pruning_share
from ._lower import lower_pattern
from ._matrix import Matrix, pointer_matrix
from ._mode import mode_sweeps, modularity_sweep, row_mode
from ._named import (
    NAMED,
    any_first,
    any_pair,
    any_secondi,
    lor_land,
    max_min,
    max_plus,
    min_first,
    min_plus,
    min_secondi,
    monoids,
    ops,
    plus_pair,
    plus_times,
    select_ops,
    unary,
)
from ._optypes import BinaryOp, IndexUnaryOp, Monoid, Semiring
from ._packed import packed_any_secondi, unpack_bitplanes
from ._peel import peel, peel_levels, rising_levels
from ._products import mxm
from ._queue import queue_hops, queue_meet, queue_order
from ._quotient import quotient
from ._relax import relax_buckets
from ._search import LevelSearch, level_search
from ._transform import apply, reduce, select
from ._vector import Vector
from ._vxm import mxv, pull_cheaper, vxm

__all__ = [
    "NAMED", "AffineStep", "BinaryOp", "IndexUnaryOp", "LevelSearch", "Matrix", "Monoid",
    "Semiring", "Vector", "any_first", "any_pair", "any_secondi", "apply", "assign",
    "ewise_add", "ewise_mult", "ewise_union", "extract", "extract_pattern", "forest_outputs",
    "greedy_colors", "hub_numbering", "level_search", "lower_pattern",
    "lor_land", "max_min", "max_plus", "min_first", "min_plus", "min_secondi", "mode_sweeps",
    "modularity_sweep", "monoids", "mxm",
    "mxv", "ops", "packed_any_secondi", "peel", "peel_levels", "plus_pair", "plus_times",
    "pointer_matrix", "pruning_share", "pull_affine", "pull_cheaper", "queue_hops", "queue_meet",
    "queue_order", "quotient", "reduce", "relax_buckets", "rising_levels", "row_mode",
    "select", "source_dependencies", "select_ops", "unary", "unpack_bitplanes", "vxm",
]
