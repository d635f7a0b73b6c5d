"""``forceatlas2_layout``: NetworkX's ForceAtlas2 iteration on the graph's arrays.

NetworkX builds the dense adjacency and, every iteration, ``n x n x dim`` arrays of the
pairwise differences; here the attraction is a sum over the stored edges (the differences
of each edge's two ends, weighted, added up per node in column order on the host, by
:func:`spbfs.semiring.reduce` on the GPU) and the repulsion is computed every node against
every node (``O(n^2)`` work per iteration as NetworkX's) without its arrays: on the host by
one compiled pass (:func:`spbfs.cpu.layout.repulsion`, ``O(n)`` memory), on the GPU for
blocks of rows against all nodes (``O(block * n)`` memory instead of ``O(n^2)``).  Gravity, the
swing and traction sums and the speed update are NetworkX's expressions on the same
arrays, in the same dtypes (positions drawn by ``random_layout`` are float32, as
NetworkX's), so each step is NetworkX's step up to the order of the floating-point sums.
The same code runs on cupy arrays when the graph is laid out on the GPU.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core.arrays import to_numpy
from ..cpu.layout import repulsion as cpu_repulsion
from ..semiring import monoids, reduce
from ._recognition import no_multigraph, raw_weights
from ._registry import dispatched

__all__ = []

#: Pairs (nodes of a block times all nodes) of one GPU repulsion block.
GPU_BLOCK_ENTRIES = 1 << 25
#: The fewest nodes of a block (on a large graph, fewer calls of the array library).
MIN_BLOCK = 16


def _initial_positions(G, pos, seed, dim):
    """NetworkX's starting array: ``random_layout``'s float32 draw, the given positions in
    node order, or the given ones with the others drawn in their bounding box."""
    import networkx as nx

    n = len(G)
    seed = nx.utils.create_random_state(seed)
    if pos is None:
        center = np.zeros(dim)  # random_layout's own check of dim (a negative one raises)
        return (seed.rand(n, dim) + center).astype(np.float32)
    copy = operator.methodcaller("copy")
    if len(pos) == n:
        return np.array(list(map(copy, map(pos.__getitem__, G.nodes))))
    pos_init = np.array(list(pos.values()))
    max_pos, min_pos = pos_init.max(axis=0), pos_init.min(axis=0)
    pos_arr = min_pos + seed.rand(n, max_pos.size) * (max_pos - min_pos)
    given = [node for node in pos if node in G]
    if given:
        rows = np.fromiter(map(G.index.__getitem__, given), np.int64, count=len(given))
        pos_arr[rows] = np.array(list(map(copy, map(pos.__getitem__, given))))
    return pos_arr


def _degrees(G):
    """NetworkX's ``G.degree(node)`` of every node (a self-loop counts twice)."""
    indptr, indices = G._indptr.astype(np.int64), G._indices.astype(np.int64)
    n = len(G)
    out = np.diff(indptr)
    if G.is_directed():
        return out + np.bincount(indices, minlength=n)
    rows = np.repeat(np.arange(n), out)
    return out + np.bincount(rows[rows == indices], minlength=n)


def _node_values(G, given, default):
    """``given.get(node, default[node])`` for every node, as float64."""
    if not given:
        return default.astype(np.float64)
    return np.fromiter(map(given.get, G.nodes, default.tolist()), np.float64, count=len(G))


def _estimate_factor(n, swing, traction, speed, speed_efficiency, jitter_tolerance):
    """NetworkX's speed update (``estimate_factor`` inside its ``forceatlas2_layout``)."""
    opt_jitter = 0.05 * np.sqrt(n)
    min_jitter = np.sqrt(opt_jitter)
    max_jitter = 10
    min_speed_efficiency = 0.05
    other = min(max_jitter, opt_jitter * traction / n**2)
    jitter = jitter_tolerance * max(min_jitter, other)
    if swing / traction > 2.0:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.5
        jitter = max(jitter, jitter_tolerance)
    target_speed = np.inf if swing == 0 else jitter * speed_efficiency * traction / swing
    if swing > jitter * traction:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.7
    elif speed < 1000:
        speed_efficiency *= 1.3
    max_rise = 0.5
    speed = speed + min(target_speed - speed, max_rise * speed)
    return speed, speed_efficiency


class _Forces:
    """The three forces of one ForceAtlas2 step, for positions ``p`` (an ``(n, dim)`` array
    of the graph's device)."""

    def __init__(self, G, gpu, weight, mass, size, scaling_ratio, gravity, *, linlog,
                 distributed_action, strong_gravity, adjust_sizes):
        M = G.csr(gpu)  # columns ascending in each row: NetworkX's einsum adds in that order
        xp = self.xp = M.xp
        self.n = len(G)
        rows, cols = M.entry_rows, M.indices.astype(np.int64)
        w = np.zeros(M.nnz)
        w[G.csr_positions()] = raw_weights(G, weight)
        w = xp.asarray(w)
        loop = rows == cols  # no force of a node on itself (NetworkX's zero diagonal)
        self.w = xp.where(loop, 0.0, w)
        self.loop = loop if bool(loop.any()) else None
        self.rows, self.cols, self.M = rows, cols, M
        self.mass, self.size = xp.asarray(mass), xp.asarray(size)
        self.scaling_ratio, self.gravity = scaling_ratio, gravity
        self.linlog, self.distributed_action = linlog, distributed_action
        self.strong_gravity, self.adjust_sizes = strong_gravity, adjust_sizes

    def row_sums(self, values):
        """``values`` (one row per stored edge) added up per node: on the host one after
        another in storage order (``bincount``), columns ascending as NetworkX's ``einsum``
        adds them; on the GPU by the semiring's row reduction."""
        xp, dim = self.xp, values.shape[1]
        if xp is np:  # (float64 also without edges: bincount of none gives int64)
            return np.stack([np.bincount(self.rows, weights=values[:, k], minlength=self.n)
                             for k in range(dim)], axis=1).astype(np.float64, copy=False)
        out = xp.zeros((self.n, dim))
        for k in range(dim):
            summed = reduce(self.M.with_values(xp.ascontiguousarray(values[:, k])),
                            monoids.plus, axis=1)
            out[summed.indices, k] = summed.values
        return out

    def attraction(self, p):
        xp = self.xp
        diff = p[self.rows] - p[self.cols]
        if self.linlog:
            distance = xp.linalg.norm(diff, axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                pull = -xp.log(1 + distance) / distance
            if self.loop is not None:
                pull = xp.where(self.loop, 0, pull)
            attraction = self.row_sums(diff * (pull * self.w)[:, None])
        else:
            attraction = -self.row_sums(diff * self.w[:, None])
        if self.distributed_action:
            attraction /= self.mass[:, None]
        return attraction

    def repulsion(self, p):
        """NetworkX's ``einsum("ijk, ij -> ik", diff, factor)``: on the host one compiled
        pass over all pairs (:func:`spbfs.cpu.layout.repulsion`, each node's sum over ``j``
        in order, as NetworkX's ``einsum``); on the GPU a block of nodes ``i`` at a time, the
        block's pairs laid out ``(j, i)`` (the force is symmetric in ``i`` and ``j`` but for
        the sign of ``diff``), so adding up over the leading axis adds in ``j`` order."""
        if self.xp is np:
            return cpu_repulsion(p, self.mass, self.size, self.scaling_ratio,
                                 self.adjust_sizes)
        return blocked_repulsion(self.xp, p, self.mass, self.size, self.scaling_ratio,
                                 self.adjust_sizes, max(MIN_BLOCK, GPU_BLOCK_ENTRIES // self.n))

    def gravities(self, p):
        xp, mass = self.xp, self.mass
        pos_centered = p - xp.mean(p, axis=0)
        if self.strong_gravity:
            return -self.gravity * mass[:, None] * pos_centered
        with np.errstate(divide="ignore", invalid="ignore"):
            unit_vec = pos_centered / xp.linalg.norm(pos_centered, axis=-1)[:, None]
        unit_vec = xp.nan_to_num(unit_vec, nan=0)
        return -self.gravity * mass[:, None] * unit_vec


def blocked_repulsion(xp, p, mass, size, scaling_ratio, adjust_sizes, block):
    """NetworkX's ForceAtlas2 repulsion by array operations of module ``xp``, ``block``
    nodes ``i`` at a time against every node ``j`` (the GPU's path; the host's is
    :func:`spbfs.cpu.layout.repulsion`): the block's pairs laid out ``(j, i)``, so the sum
    over the leading axis adds in ``j`` order as NetworkX's ``einsum``.

    Examples
    --------
    >>> p = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    >>> blocked_repulsion(np, p, np.ones(3), np.ones(3), 2.0, False, 2)
    array([[-2. , -1. ],
           [ 2.4, -0.8],
           [-0.4,  1.8]])
    """
    n, dim = p.shape
    cols = [xp.ascontiguousarray(p[:, k]) for k in range(dim)]
    out = xp.empty((n, dim))
    for start in range(0, n, block):
        stop = min(n, start + block)
        diff = [c[None, start:stop] - c[:, None] for c in cols]  # diff[k][j, i]
        square = diff[0] * diff[0]
        for d in diff[1:]:  # np.linalg.norm's sum of squares, in its order
            square += d * d
        distance = xp.sqrt(square, out=square)
        if adjust_sizes:
            distance += -size[None, start:stop] - size[:, None]
        d2 = xp.square(distance, out=distance)
        factor = xp.multiply(mass[:, None], mass[None, start:stop])  # NetworkX's tmp
        local = xp.arange(stop - start)
        factor[local + start, local] = 0
        d2[local + start, local] = 1
        xp.divide(factor, d2, out=factor)
        factor *= scaling_ratio
        for k, d in enumerate(diff):
            out[start:stop, k] = xp.multiply(d, factor).sum(axis=0)
    return out


def _forceatlas2_can_run(arguments):
    return no_multigraph(arguments)


@dispatched(can_run=_forceatlas2_can_run, docs="NetworkX's iteration, step for step: the "
            "attraction summed over the stored edges (not a dense n x n adjacency), the "
            "repulsion every node against every node (O(n^2) work an iteration, as "
            "NetworkX's: on the CPU one compiled pass in O(n) memory, on the GPU in blocks of "
            "nodes), every sum in NetworkX's einsum order, the rest NetworkX's "
            "expressions on the same arrays and dtypes: on the CPU the positions equal "
            "NetworkX's bit for bit in the tests; on the GPU the sums run in another order, "
            "so positions agree to rounding at first and drift apart after tens of "
            "iterations (ForceAtlas2 amplifies last bits). ``store_pos_as`` writes on the "
            "NetworkX graph converted (a bare SpbfsGraph has no node attributes); "
            "multigraphs run in NetworkX.")
def forceatlas2_layout(G, pos=None, *, max_iter=100, jitter_tolerance=1.0, scaling_ratio=2.0,
                       gravity=1.0, distributed_action=False, strong_gravity=False,
                       node_mass=None, node_size=None, weight=None, linlog=False, seed=None,
                       dim=2, store_pos_as=None):
    """NetworkX's ``forceatlas2_layout``: ForceAtlas2 positions of the nodes.

    Parameters
    ----------
    G : SpbfsGraph
        Directed or undirected (a directed edge attracts its tail only, as NetworkX's
        adjacency rows do).
    pos : dict or None
        Starting positions (all nodes, or some: the others are drawn in their bounding
        box); None draws them as ``random_layout(G, dim=dim, seed=seed)`` does.
    max_iter, jitter_tolerance, scaling_ratio, gravity : number
        NetworkX's iteration count and force parameters.
    distributed_action, strong_gravity, linlog : bool
        NetworkX's variants of the attraction and the gravity.
    node_mass, node_size : dict or None
        Per node (defaults: degree + 1, and 1 with no size adjustment).
    weight : str or None
        Edge attribute of the attraction weights (missing ones 1); None: all 1.
    seed : int, RandomState or None
        For the starting positions.
    dim : int
        Dimensions of the layout when ``pos`` does not give them.
    store_pos_as : str or None
        Also store each position as this node attribute of the NetworkX graph.

    Returns
    -------
    dict
        Node -> position, a numpy array of ``dim`` coordinates (float32 when drawn by
        ``random_layout``, as NetworkX's), in node order.

    Notes
    -----
    Every step is NetworkX's: the same forces, swing, traction and speed rule, on arrays of
    the same dtypes, each node's sums over the edges and over the other nodes taken one
    after another in column order, as NetworkX's ``einsum`` takes them (the zeros of its
    dense rows add nothing); on the CPU the positions have equalled NetworkX's bit for bit
    in every case tested.  Where they may differ: on the GPU every sum runs in cupy's
    order, and ForceAtlas2 feeds each step's positions to the next and adapts its speed
    to the swing, so a last-bit difference grows: on the karate club the GPU's positions
    were within 1e-6 of NetworkX's after one iteration, 2e-5 after 20, and a different
    (equally valid) layout after 100.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(4)
    >>> pos = nx.forceatlas2_layout(G, seed=1, max_iter=50, backend="spbfs")
    >>> ref = nx.forceatlas2_layout(G, seed=1, max_iter=50)
    >>> list(pos) == list(ref), all(abs(pos[v] - ref[v]).max() < 1e-4 for v in G)
    (True, True)
    """
    if len(G) == 0:
        return {}
    n = len(G)
    pos_arr = _initial_positions(G, pos, seed, dim)
    degree = _degrees(G)
    adjust_sizes = node_size is not None
    mass = _node_values(G, node_mass, degree + 1)
    size = _node_values(G, node_size, np.ones(n))
    gpu = G.on_gpu()
    forces = _Forces(G, gpu, weight, mass, size, scaling_ratio, gravity, linlog=linlog,
                     distributed_action=distributed_action, strong_gravity=strong_gravity,
                     adjust_sizes=adjust_sizes)
    xp = forces.xp
    p = xp.asarray(pos_arr)
    mass = forces.mass
    speed = speed_efficiency = swing = traction = 1
    for _ in range(max_iter):
        update = forces.attraction(p) + forces.repulsion(p) + forces.gravities(p)
        swing += float((mass * xp.linalg.norm(p - update, axis=-1)).sum())
        traction += float((0.5 * mass * xp.linalg.norm(p + update, axis=-1)).sum())
        speed, speed_efficiency = _estimate_factor(n, swing, traction, speed,
                                                   speed_efficiency, jitter_tolerance)
        if adjust_sizes:
            df = xp.linalg.norm(update, axis=-1)
            swinging = mass * df
            factor = 0.1 * speed / (1 + xp.sqrt(speed * swinging))
            factor = xp.minimum(factor * df, 10.0 * xp.ones(df.shape)) / df
        else:
            swinging = mass * xp.linalg.norm(update, axis=-1)
            factor = speed / (1 + xp.sqrt(speed * swinging))
        factored_update = update * factor[:, None]
        p += factored_update
        if float(abs(factored_update).sum()) < 1e-10:
            break
    result = dict(zip(G.nodes, to_numpy(p), strict=True))
    if store_pos_as is not None:
        source = G._source() if G._source is not None else None
        if source is not None:
            import networkx as nx

            nx.set_node_attributes(source, result, store_pos_as)
    return result
