"""The base every layer shares: array-module helpers (:mod:`~spbfs.core.arrays`), argument
checks and sentinels (:mod:`~spbfs.core.validation`), CSR helpers on numpy or cupy arrays
(:mod:`~spbfs.core.csr`) and the backend seam's shared types (:mod:`~spbfs.core.seam`).
It imports nothing else of spbfs."""
