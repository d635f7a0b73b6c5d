"""The graph algorithms, one module per family, written only with :mod:`spbfs.semiring`
operations: one code path for every backend.

:mod:`~spbfs.algorithms.bfs` (single-source searches) and :mod:`~spbfs.algorithms.msbfs`
(many sources at once) share their input preparation and direction rule through
:mod:`~spbfs.algorithms._shared`; :mod:`~spbfs.algorithms.sssp`,
:mod:`~spbfs.algorithms.components`, :mod:`~spbfs.algorithms.pagerank`,
:mod:`~spbfs.algorithms.triangles` and :mod:`~spbfs.algorithms.centrality` build on them.
The public functions are re-exported by :mod:`spbfs`.
"""

__all__: list[str] = []
