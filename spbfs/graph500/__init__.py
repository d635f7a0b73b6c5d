"""The Graph500 benchmark end to end: the Kronecker generator (:mod:`~spbfs.graph500.generate`),
the 64-root harness (:mod:`~spbfs.graph500.harness`), the validation rules and statistics
(:mod:`~spbfs.graph500.validation`), result documents (:mod:`~spbfs.graph500.results`) and
plots (:mod:`~spbfs.graph500.plot`).  ``spbfs graph500`` runs it; the distributed run is
:mod:`spbfs.dist.harness`.
"""

from .validation import (
    CHECKS,
    ValidationError,
    ValidationResult,
    describe_failures,
    format_result_block,
    summarize,
    traversed_edges,
    tree_depths,
    validate,
)

__all__ = ["CHECKS", "ValidationError", "ValidationResult", "describe_failures",
           "format_result_block", "summarize", "traversed_edges", "tree_depths", "validate"]
