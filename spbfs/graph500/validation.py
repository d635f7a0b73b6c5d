"""Graph500 benchmark support: BFS validation, the TEPS edge count and result statistics.

Sections
--------
1. Validation of a BFS parent array against the input edge list (:func:`validate`).
2. The TEPS edge count (:func:`traversed_edges`).
3. Statistics and the reference output block (:func:`summarize`, :func:`format_result_block`).
The benchmark harness (BFS runner over 64 roots) is :mod:`spbfs.graph500.harness`.

Everything on arrays is vectorised and array-module agnostic (numpy or cupy, taken from the
inputs); statistics over the (at most 64) runs are computed on the host with numpy.

References
----------
Graph 500 specification, "Validation" and "Computing and Outputting Performance Information"
(``Graph500.org`` in the graph500/graph500 repository); reference code ``mpi/validate.c`` and
``mpi/main.c`` (version 2.1.4) and ``src/validate.c``, ``src/main.c`` (version 3.0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .generate import _check_int, _xp

__all__ = [
    "CHECKS",
    "ValidationError",
    "ValidationResult",
    "describe_failures",
    "format_result_block",
    "summarize",
    "traversed_edges",
    "tree_depths",
    "validate",
]


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _as_index_array(name, a, xp, widen=True):
    """1-D integer array (as int64 if ``widen``) on ``xp``; TypeError / ValueError naming it."""
    if a is None:
        raise TypeError(f"{name} must be an integer array, got None")
    a = xp.asarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a.astype(xp.int64, copy=False) if widen else a


def _check_edges(u, v, n, xp):
    """Validated edge arrays (integer dtype kept: chunks are widened as they are used)."""
    u = _as_index_array("u", u, xp, widen=False)
    v = _as_index_array("v", v, xp, widen=False)
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same length, got {u.shape[0]} and {v.shape[0]}")
    if u.size:
        lo = min(int(u.min()), int(v.min()))
        hi = max(int(u.max()), int(v.max()))
        if lo < 0 or hi >= n:
            raise ValueError(
                f"u and v must hold vertex ids in [0, {n}) (the length of the per-vertex "
                f"array), found ids in [{lo}, {hi}]"
            )
    return u, v


#: Input edges handled per step, so validation needs O(n + EDGE_CHUNK) scratch memory.
EDGE_CHUNK = 1 << 25


def _edge_chunks(u, v, xp):
    """``(u, v)`` in int64 slices of at most :data:`EDGE_CHUNK` edges."""
    for lo in range(0, int(u.shape[0]), EDGE_CHUNK):
        hi = lo + EDGE_CHUNK
        yield u[lo:hi].astype(xp.int64, copy=False), v[lo:hi].astype(xp.int64, copy=False)


def _tree_edges_found(u, v, parents, xp):
    """For each vertex ``w``, whether some input tuple joins ``w`` and ``parents[w]``.

    One streaming pass over the edge list in chunks: tuple ``(a, b)`` is the tree edge of
    ``a`` when ``parents[a] == b`` and of ``b`` when ``parents[b] == a`` (either
    orientation).  O(n + chunk) memory, no sorting, any ``n``.
    """
    found = xp.zeros(parents.shape[0], dtype=bool)
    for uc, vc in _edge_chunks(u, v, xp):
        found[uc[parents[uc] == vc]] = True
        found[vc[parents[vc] == uc]] = True
    return found


# --------------------------------------------------------------------------------------------
# 1. validation
# --------------------------------------------------------------------------------------------

#: Names of the validation checks, in the order they are run, with what a failure counts.
CHECKS = {
    "parent_range": "vertices whose parent is outside [-1, n) (other checks skipped)",
    "source": "parents[source] != source (counts 1)",
    "tree": "reached vertices whose parent chain does not reach the source (cycle, "
    "non-source vertex that is its own parent, or chain ending at an unreached vertex)",
    "levels": "vertices whose given level differs from the depth implied by parents "
    "(only when levels are given)",
    "tree_edge_levels": "tree edges (parents[w], w) whose levels do not differ by exactly one",
    "edge_levels": "input edges with both endpoints reached whose levels differ by more than one",
    "spans_component": "input edges with exactly one endpoint reached (the tree does not span "
    "the source's connected component)",
    "parent_edge": "tree edges (parents[w], w) that are not edges of the input",
}


@dataclass(frozen=True)
class ValidationResult:
    """Outcome of :func:`validate`.

    Attributes
    ----------
    ok : bool
        True if every check passed.
    failures : dict
        Check name (a key of :data:`CHECKS`) to the number of offending vertices or edges, for
        the checks that failed only.
    nedge : int
        The TEPS edge count of this search (see :func:`traversed_edges`).

    Examples
    --------
    >>> ValidationResult(ok=False, failures={"source": 1}).failures
    {'source': 1}
    """

    ok: bool
    failures: dict = field(default_factory=dict)
    nedge: int = 0


def describe_failures(failures, root=None):
    """Which Graph500 rules failed, how often and what each means, as one line.

    Parameters
    ----------
    failures : dict
        Check name (a key of :data:`CHECKS`) to count, as in :attr:`ValidationResult.failures`.
    root : int, optional
        The search key, named first when given.

    Returns
    -------
    str

    Examples
    --------
    >>> describe_failures({"source": 1}, root=7)
    'root 7: source (1: parents[source] != source (counts 1))'
    """
    parts = [f"{name} ({count}: {CHECKS.get(name, 'unknown check')})"
             for name, count in failures.items()]
    text = "; ".join(parts) if parts else "no failure"
    return text if root is None else f"root {int(root)}: {text}"


class ValidationError(ValueError):
    """A BFS result failed Graph500 validation; ``.result`` holds the :class:`ValidationResult`.

    The message names the root (when known) and each failed rule with its count, e.g.
    ``BFS validation failed for root 0: parent_edge (1: tree edges ...)``.

    Examples
    --------
    >>> import numpy as np
    >>> try:
    ...     validate(np.array([0]), np.array([1]), 0, np.array([0, 1]))
    ... except ValidationError as e:
    ...     sorted(e.result.failures), e.root
    (['parent_edge', 'tree'], 0)
    """

    def __init__(self, result, root=None):
        self.result = result
        self.root = root
        where = "" if root is None else f" for root {int(root)}"
        super().__init__(f"BFS validation failed{where}: " + describe_failures(result.failures))


def _depths(parents, source, xp):
    """Depth of every vertex in the parent forest by pointer jumping (log n vectorised rounds).

    Returns ``(depth, bad)``: ``depth[w]`` is the number of parent steps from ``w`` to the
    source, or -1 if ``w`` is unreached (parent -1) or its chain does not reach the source;
    ``bad`` marks reached vertices whose chain does not reach the source.  The source counts as
    the root whatever ``parents[source]`` holds (that is checked separately).
    """
    n = parents.shape[0]
    idx = xp.arange(n, dtype=xp.int64)
    reached = parents >= 0
    reached[source] = True
    anc = xp.where(reached, parents, idx)
    anc[source] = source
    dist = reached.astype(xp.int64)
    dist[source] = 0
    for _ in range(n.bit_length() + 1):
        nxt = anc[anc]
        if bool((nxt == anc).all()):
            break
        dist += dist[anc]
        anc = nxt
    rooted = reached & (anc == source)
    return xp.where(rooted, dist, -1), reached & ~rooted


def tree_depths(parents, source):
    """The level of every vertex implied by a BFS parent array: its parent steps to
    ``source``; -1 where unreached or where its chain does not reach ``source``.

    What :func:`validate` checks levels against; a search that returns parents alone (the
    Graph500 harness's) gets its levels from here.

    Examples
    --------
    >>> import numpy as np
    >>> tree_depths(np.array([0, 0, 1, -1]), 0).tolist()
    [0, 1, 2, -1]
    """
    xp = _xp(parents)
    parents = _as_index_array("parents", parents, xp)
    source = _check_int("source", source, 0, int(parents.shape[0]) - 1)
    return _depths(parents, source, xp)[0]


def validate(u, v, source, parents, levels=None, *, raise_on_error=True, self_loops=True):
    """Graph500 validation of a BFS parent array (and optionally its levels).

    Runs the five checks of the Graph500 specification, all vectorised, on the input edge list
    ``(u, v)`` (undirected tuples; self-loops and duplicates allowed):

    1. ``parents[source] == source``; the parent pointers form a tree: every reached vertex's
       chain of parents reaches the source (checks ``source`` and ``tree``; depths come from
       pointer jumping, and given ``levels`` must equal them: check ``levels``);
    2. every tree edge ``(parents[w], w)`` joins levels that differ by exactly one
       (``tree_edge_levels``, on the given levels, else on the depths);
    3. every input edge joins levels that differ by at most one, or two unreached vertices
       (``edge_levels`` for two reached endpoints);
    4. the tree spans exactly the source's connected component: no input edge has exactly one
       reached endpoint (``spans_component``; together with ``edge_levels`` this is check 3);
    5. every tree edge ``(parents[w], w)``, ``w != source``, is an input edge in either
       orientation (``parent_edge``).

    Edges touching a vertex already reported by ``tree`` are left out of checks 3 and 4, so each
    kind of error shows up under one name.  Parent ids outside ``[-1, n)`` are reported as
    ``parent_range`` and stop the validation, as in the reference code.

    Parameters
    ----------
    u, v : arrays of int
        Endpoints of the input edge tuples, ids in ``[0, n)``.
    source : int
        The search key, in ``[0, n)``.
    parents : array of int
        Parent of each vertex, ``n = len(parents)``: ``parents[source] == source``, -1 for
        unreached vertices.
    levels : array of int, optional
        BFS level of each vertex (0 at the source, -1 unreached), checked if given.
    raise_on_error : bool, optional
        Raise :class:`ValidationError` if a check fails (default True); else return the result.
    self_loops : bool, optional
        Whether self-loops count in ``nedge`` (see :func:`traversed_edges`).  Default True.

    Returns
    -------
    ValidationResult
        ``ok``, the failed checks with their counts, and ``nedge``, the TEPS edge count.

    Raises
    ------
    ValidationError
        If a check fails and ``raise_on_error`` is true; its message names the root
        (``source``) and each failed rule with its count.
    TypeError, ValueError
        On malformed input (non-integer arrays, mismatched lengths, ids out of range).

    Examples
    --------
    A path 0 - 1 - 2 plus a separate edge 3 - 4, searched from 0:

    >>> import numpy as np
    >>> from spbfs.graph500 import validate
    >>> u, v = np.array([0, 1, 3]), np.array([1, 2, 4])
    >>> validate(u, v, 0, np.array([0, 0, 1, -1, -1]), levels=np.array([0, 1, 2, -1, -1]))
    ValidationResult(ok=True, failures={}, nedge=2)
    >>> r = validate(u, v, 0, np.array([0, 0, 0, -1, -1]), raise_on_error=False)
    >>> r.ok, r.failures
    (False, {'parent_edge': 1})
    """
    xp = _xp(u, v, parents, levels)
    parents = _as_index_array("parents", parents, xp)
    n = int(parents.shape[0])
    if n == 0:
        raise ValueError("parents must not be empty")
    source = _check_int("source", source, 0, n - 1)
    u, v = _check_edges(u, v, n, xp)
    if levels is not None:
        levels = _as_index_array("levels", levels, xp)
        if levels.shape != parents.shape:
            raise ValueError(
                f"levels must have the same length as parents ({n}), got {levels.shape[0]}"
            )

    failures = {}

    def record(name, count):
        count = int(count)
        if count:
            failures[name] = count

    record("parent_range", ((parents < -1) | (parents >= n)).sum())
    if failures:
        return _finish(failures, 0, raise_on_error, source)

    record("source", int(parents[source]) != source)
    depth, bad = _depths(parents, source, xp)
    record("tree", bad.sum())

    if levels is not None:
        record("levels", ((levels != depth) & ~bad).sum())
    lev = depth if levels is None else levels

    # tree edges (parents[w], w) of the vertices whose chain reaches the source
    w = xp.nonzero(depth > 0)[0]
    pw = parents[w]
    record("tree_edge_levels", (lev[w] != lev[pw] + 1).sum())

    edge_levels = spans = nedge = 0
    for uc, vc in _edge_chunks(u, v, xp):
        du, dv = depth[uc], depth[vc]
        keep = ~(bad[uc] | bad[vc])
        ru, rv = du >= 0, dv >= 0
        edge_levels += int((keep & ru & rv & (xp.abs(du - dv) > 1)).sum())
        spans += int((keep & (ru != rv)).sum())
        # TEPS edge count (as traversed_edges), on the vertices whose chain reaches the source
        hit = ru | rv
        if not self_loops:
            hit &= uc != vc
        nedge += int(hit.sum())
    record("edge_levels", edge_levels)
    record("spans_component", spans)

    # every reached non-source vertex must be joined to its claimed parent by an input edge
    w = xp.nonzero(parents >= 0)[0]
    w = w[w != source]
    record("parent_edge", (~_tree_edges_found(u, v, parents, xp)[w]).sum())
    return _finish(failures, nedge, raise_on_error, source)


def _finish(failures, nedge, raise_on_error, source):
    result = ValidationResult(ok=not failures, failures=dict(failures), nedge=int(nedge))
    if failures and raise_on_error:
        raise ValidationError(result, root=source)
    return result


# --------------------------------------------------------------------------------------------
# 2. the TEPS edge count
# --------------------------------------------------------------------------------------------


def traversed_edges(u, v, levels_or_parents, *, self_loops=True):
    """Number of input edge tuples in the component traversed by a search (the TEPS numerator).

    The Graph500 specification ("Performance Metric (TEPS)") defines ``m`` as *"the number of
    input edge tuples within the component traversed by the search, counting any multiple edges
    and self-loops"*, and ``TEPS = m / time``.  Each input tuple counts once, whatever its
    orientation: nothing is halved.  (Halving appears only when counting the entries of the
    symmetric adjacency structure, which holds every non-self-loop tuple twice.)  The version
    2.1.4 reference code counts exactly that (``mpi/validate.c``: *"count visited edges
    (including duplicates and self-loops)"*; the sequential ``verify.c``: *"This counts
    self-edges and repeated edges. They're part of the input data."*).  The version 3.0
    reference code builds its graph without self-loops and counts, for each reached vertex, its
    adjacency entries ``(w, x)`` with ``x <= w`` (``src/bfs_reference.c``,
    ``get_edge_count_for_teps``; checked by ``src/validate.c``), i.e. every non-self-loop tuple
    once and no self-loop: pass ``self_loops=False`` for that count.

    A tuple is counted when one of its endpoints is reached; for a valid BFS result that is the
    same as both.

    Parameters
    ----------
    u, v : arrays of int
        Endpoints of the input edge tuples.
    levels_or_parents : array of int
        Per-vertex BFS levels or parents; negative (-1) marks unreached vertices.
    self_loops : bool, optional
        Count self-loop tuples (the specification, default) or not (reference code 3.0).

    Returns
    -------
    int
        The edge count.

    Examples
    --------
    A triangle 0-1-2 with a duplicate edge and a self-loop, and an unreached edge 3-4:

    >>> import numpy as np
    >>> from spbfs.graph500 import traversed_edges
    >>> u, v = np.array([0, 1, 2, 1, 2, 3]), np.array([1, 2, 0, 0, 2, 4])
    >>> levels = np.array([0, 1, 1, -1, -1])
    >>> traversed_edges(u, v, levels)
    5
    >>> traversed_edges(u, v, levels, self_loops=False)
    4
    """
    xp = _xp(u, v, levels_or_parents)
    r = _as_index_array("levels_or_parents", levels_or_parents, xp)
    u, v = _check_edges(u, v, int(r.shape[0]), xp)
    total = 0
    for uc, vc in _edge_chunks(u, v, xp):
        hit = (r[uc] >= 0) | (r[vc] >= 0)
        if not self_loops:
            hit &= uc != vc
        total += int(hit.sum())
    return total


# --------------------------------------------------------------------------------------------
# 3. statistics and the output block
# --------------------------------------------------------------------------------------------

_STAT_NAMES = ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")


def _host_1d(name, x):
    """Host float64 1-D non-empty array of finite values > 0, ValueError naming ``name``."""
    if hasattr(x, "get"):  # cupy array
        x = x.get()
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers") from None
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional sequence")
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must hold finite values > 0")
    return a


def _statistics(x):
    """Order statistics, mean and sample standard deviation as the reference computes them.

    Follows ``get_statistics`` of the reference code (``mpi/main.c`` 2.1.4, ``src/main.c``
    3.0): with ``xx`` sorted, the first quartile is ``(xx[(n-1)//4] + xx[n//4]) / 2``, the
    median ``(xx[(n-1)//2] + xx[n//2]) / 2``, the third quartile
    ``(xx[n-1-(n-1)//4] + xx[n-1-n//4]) / 2``; the standard deviation divides by ``n - 1``
    (NaN for a single value).
    """
    xx = np.sort(np.asarray(x, dtype=np.float64))
    n = xx.size
    mean = float(xx.sum() / n)
    std = math.sqrt(float(((xx - mean) ** 2).sum()) / (n - 1)) if n > 1 else math.nan
    return {
        "min": float(xx[0]),
        "firstquartile": float((xx[(n - 1) // 4] + xx[n // 4]) * 0.5),
        "median": float((xx[(n - 1) // 2] + xx[n // 2]) * 0.5),
        "thirdquartile": float((xx[n - 1 - (n - 1) // 4] + xx[n - 1 - n // 4]) * 0.5),
        "max": float(xx[n - 1]),
        "mean": mean,
        "stddev": std,
    }


def summarize(
    scale,
    edgefactor,
    construction_time,
    times,
    nedges,
    validation_ok,
    *,
    graph_generation=None,
    num_mpi_processes=1,
    validate_times=None,
):
    """Graph500 result statistics, in the order of the reference output block.

    Keys: ``SCALE``, ``edgefactor``, ``NBFS``, ``graph_generation`` (if given),
    ``num_mpi_processes``, ``construction_time``; ``min_time``, ``firstquartile_time``,
    ``median_time``, ``thirdquartile_time``, ``max_time``, ``mean_time``, ``stddev_time``;
    the same seven for ``nedge``; ``min_TEPS``, ``firstquartile_TEPS``, ``median_TEPS``,
    ``thirdquartile_TEPS``, ``max_TEPS``, ``harmonic_mean_TEPS``, ``harmonic_stddev_TEPS``;
    the seven ``*_validate`` statistics if ``validate_times`` is given; and ``validation``
    (``"passed"`` or ``"failed"``).

    As in the reference code (``mpi/main.c``, ``src/main.c``), TEPS statistics are computed on
    the seconds per edge ``t_i / m_i`` and inverted, so quartiles swap ends
    (``firstquartile_TEPS = 1 / thirdquartile(t/m)``), the harmonic mean is
    ``1 / mean(t/m)`` and the harmonic standard deviation (N. Norris, Ann. Math. Stat. 11(4),
    1940, as cited by the specification) is ``stddev(t/m) / (mean(t/m)**2 * sqrt(n - 1))``
    (``stddev`` dividing by ``n - 1``).

    Parameters
    ----------
    scale, edgefactor : int
        Graph parameters.
    construction_time : float
        Kernel 1 (graph construction) time in seconds.
    times : sequence of float
        Kernel 2 (BFS) time of each search, seconds, all > 0.
    nedges : sequence of int
        TEPS edge count of each search (:func:`traversed_edges`), all > 0.
    validation_ok : bool
        Whether every search passed validation.
    graph_generation : float, optional
        Edge-list generation time in seconds.
    num_mpi_processes : int, optional
        Number of processes (ranks) used.  Default 1.
    validate_times : sequence of float, optional
        Validation time of each search.

    Returns
    -------
    dict
        Ordered name to value (int, float or str).

    Examples
    --------
    >>> from spbfs.graph500 import summarize
    >>> d = summarize(10, 16, 0.5, [1.0, 2.0, 4.0, 8.0], [100, 100, 100, 100], True)
    >>> d["NBFS"], d["median_time"], d["max_TEPS"], round(d["harmonic_mean_TEPS"], 6)
    (4, 3.0, 100.0, 26.666667)
    """
    scale = _check_int("scale", scale)
    edgefactor = _check_int("edgefactor", edgefactor)
    num_mpi_processes = _check_int("num_mpi_processes", num_mpi_processes, 1)
    construction_time = float(construction_time)
    if not construction_time >= 0:
        raise ValueError(f"construction_time must be >= 0, got {construction_time}")
    t = _host_1d("times", times)
    m = _host_1d("nedges", nedges)
    if t.shape != m.shape:
        raise ValueError(f"times and nedges must have the same length, got {t.size} and {m.size}")
    out = {"SCALE": scale, "edgefactor": edgefactor, "NBFS": int(t.size)}
    if graph_generation is not None:
        out["graph_generation"] = float(graph_generation)
    out["num_mpi_processes"] = num_mpi_processes
    out["construction_time"] = construction_time
    for label, data in (("time", t), ("nedge", m)):
        for name, value in _statistics(data).items():
            out[f"{name}_{label}"] = value
    s = _statistics(t / m)
    n = t.size
    out["min_TEPS"] = 1.0 / s["max"]
    out["firstquartile_TEPS"] = 1.0 / s["thirdquartile"]
    out["median_TEPS"] = 1.0 / s["median"]
    out["thirdquartile_TEPS"] = 1.0 / s["firstquartile"]
    out["max_TEPS"] = 1.0 / s["min"]
    out["harmonic_mean_TEPS"] = 1.0 / s["mean"]
    out["harmonic_stddev_TEPS"] = (
        s["stddev"] / (s["mean"] * s["mean"] * math.sqrt(n - 1)) if n > 1 else math.nan
    )
    if validate_times is not None:
        vt = _host_1d("validate_times", validate_times)
        for name, value in _statistics(vt).items():
            out[f"{name}_validate"] = value
    out["validation"] = "passed" if validation_ok else "failed"
    return out


def format_result_block(d, float_format="%20.17e"):
    """Render a :func:`summarize` dict as the reference code's ``name: value`` block.

    Names are padded to column 32 as in the reference code's output; integers print as
    integers, strings as they are and floats with ``float_format`` (default ``%20.17e``, the
    format of the version 1.2 / 2.1 reference output, which loses no precision).

    Parameters
    ----------
    d : dict
        Name to value, e.g. from :func:`summarize`.
    float_format : str, optional
        printf-style format for floats.

    Returns
    -------
    str
        One line per entry, ending with a newline.

    Examples
    --------
    >>> from spbfs.graph500 import format_result_block
    >>> print(format_result_block({"SCALE": 10, "min_time": 0.25, "validation": "passed"}), end="")
    SCALE:                          10
    min_time:                       2.50000000000000000e-01
    validation:                     passed
    """
    if not isinstance(d, dict):
        raise TypeError(f"d must be a dict, got {type(d).__name__}")
    lines = []
    for name, value in d.items():
        if isinstance(value, bool | np.bool_):
            text = str(int(value))
        elif isinstance(value, int | np.integer):
            text = str(int(value))
        elif isinstance(value, float | np.floating):
            text = float_format % float(value)
        else:
            text = str(value)
        lines.append(f"{name + ':':<32}{text}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# 4. harness: BFS runner over the search keys (to be added by the lead)
# --------------------------------------------------------------------------------------------
