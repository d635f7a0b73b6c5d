"""The backend's graph: a CSR pattern in NetworkX's adjacency order plus the node list.

NetworkX visits neighbours in adjacency-dict insertion order, so the CSR
rows keep exactly that order (not sorted): position ``k`` of row ``u`` is the
``k``-th key of ``G._adj[u]``.  Everything the algorithms need is derived
from the rows once and memoised on the graph object: the
:class:`~spbfs.semiring.Matrix` on each device, the row positions used to
reproduce NetworkX's visiting order, and edge weights per attribute.
"""

from __future__ import annotations

import gc
import weakref
from itertools import chain, repeat
from operator import getitem, itemgetter, methodcaller

import numpy as np
import scipy.sparse as sp

from ..core.arrays import index_dtype, to_numpy
from ..semiring import Matrix
from . import _config

__all__ = ["SpbfsGraph", "convert_from_nx", "convert_to_nx", "row_datas", "row_methods"]

#: A graph labelled by its row numbers hands out fewer labels than one in FEW_LABELS of its
#: nodes as new ints, rather than make its table of node objects for them.
FEW_LABELS = 8
#: Weights summing to more than this run in NetworkX: a path's length could overflow to
#: inf, where NetworkX keeps the node (at inf) and a search here finds it unreached.
FLOAT_SUMS = np.finfo(np.float64).max / 2

_values = methodcaller("values")


def row_methods(graph) -> tuple:
    """``(values, getitem)`` of the rows of a NetworkX ``graph``'s adjacency (and of their
    multigraph key dicts): dict's own C methods where the rows are dicts (a graph), the
    mapping protocol's where they are not (a view's filtered or joined rows).

    Examples
    --------
    >>> import networkx as nx
    >>> values, getitem = row_methods(nx.path_graph(3).subgraph([0, 1]))
    >>> list(values(nx.path_graph(3).subgraph([0, 1])._adj[0])), row_methods(nx.Graph())[0]
    ([{}], <method 'values' of 'dict' objects>)
    """
    if type(graph._adj) is dict:
        return dict.values, dict.__getitem__
    return _values, getitem


def row_datas(graph, nodes):
    """The values of the adjacency rows of ``nodes`` in a NetworkX ``graph``, row after row
    in each row's order (the attribute dicts, or a multigraph's key dicts): an iterator of
    C loops (:func:`row_methods`), no lookup per edge.

    Examples
    --------
    >>> import networkx as nx
    >>> list(row_datas(nx.path_graph(3), [1, 2]))
    [{}, {}, {}]
    """
    values, _ = row_methods(graph)
    return chain.from_iterable(map(values, map(graph._adj.__getitem__, nodes)))


class SpbfsGraph:
    """A graph for the ``spbfs`` NetworkX backend: CSR adjacency, node labels, weights.

    NetworkX builds one from a ``networkx`` graph when a call is dispatched to
    ``spbfs`` (see :func:`convert_from_nx`; NetworkX caches it in
    ``G.__networkx_cache__`` until ``G`` changes).  It can also wrap a square
    sparse matrix directly, so NetworkX functions run on it without any
    ``networkx`` graph: ``A[i, j]`` stored (an explicit zero too) is an edge
    ``i -> j``, its value the edge attribute ``weight``, and neighbours are
    visited in the order the row stores them.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, or spbfs.semiring.Matrix
        Square adjacency matrix (device arrays are copied to the host once).
    nodes : sequence of hashable, optional
        Node labels of rows ``0..n-1`` (default: the integers).
    directed : bool
        False makes a ``Graph``: the stored pattern must then be symmetric.
    weight : str
        Edge attribute name the stored values stand for; other attribute
        names read as missing (NetworkX's default weight 1).

    Examples
    --------
    >>> import networkx as nx, scipy.sparse as sp
    >>> from spbfs.nx import SpbfsGraph
    >>> A = sp.csr_array(([1.0, 2.0, 5.0], ([0, 1, 0], [1, 2, 2])), shape=(3, 3))
    >>> G = SpbfsGraph(A, nodes=["a", "b", "c"])
    >>> G
    SpbfsGraph(directed, 3 nodes, 3 edges)
    >>> list(nx.bfs_edges(G, "a"))
    [('a', 'b'), ('a', 'c')]
    >>> nx.single_source_dijkstra_path_length(G, "a")
    {'a': 0, 'b': 1.0, 'c': 3.0}
    """

    __networkx_backend__ = "spbfs"

    def __init__(self, A, nodes=None, *, directed=True, weight="weight"):
        M = Matrix.from_any(A, name="A")
        shape = getattr(M, "shape", (M.n, M.n))
        if shape[0] != shape[1]:
            raise ValueError(f"A must be square, got shape {tuple(shape)}")
        indptr, indices, data = (to_numpy(a) for a in (M.indptr, M.indices, M.data))
        n = M.n
        if nodes is None:
            nodes = list(range(n))
        else:
            nodes = list(nodes)
            if len(nodes) != n:
                raise ValueError(f"nodes has {len(nodes)} labels but A has {n} rows")
            if len(set(nodes)) != n:
                raise ValueError("nodes must be distinct")
        if not directed and not _is_symmetric(indptr, indices, n, data):
            raise ValueError("directed=False needs a symmetric A, values included "
                             "(store every edge both ways, with one weight)")
        self._setup(nodes, indptr, indices, directed=bool(directed), multigraph=False,
                    from_matrix=True)
        self._weights[weight] = _typed(weight, data)

    # ---------------------------------------------------------------- building

    def _setup(self, nodes, indptr, indices, *, directed, multigraph, graph=None,
               from_matrix=False):
        self._nodes = nodes
        self._n = len(nodes)
        self._indptr, self._indices = indptr, indices
        self._directed, self._multigraph = directed, multigraph
        self.graph = dict(graph or {})
        self._index = None
        self._nodes_obj = None
        self._identity = _is_identity(nodes)
        self._weights: dict = {}
        self._derived: dict = {}
        self._reverse = None
        self._from_matrix = from_matrix
        self._reverse_rows = None  # callable giving NetworkX's predecessor rows, if any
        self._source = None  # weak reference to the networkx graph converted, if any
        self._all_edge_attrs = False  # converted with preserve_edge_attrs: read on demand
        # an undirected graph whose edges' two entries share one attribute dict (a Graph's
        # own dicts; False for an undirected view of a directed graph, which reads each
        # direction's arc: its values are checked before use)
        self._shared_edge_data = True
        self._bool_attrs: set = set()  # edge attributes whose values were all bools
        self._some_bools: set = set()  # edge attributes with a bool among their values

    def _share_structure(self) -> SpbfsGraph:
        """A new graph on the same nodes and pattern, without weights."""
        g = object.__new__(SpbfsGraph)
        g._setup(self._nodes, self._indptr, self._indices, directed=self._directed,
                 multigraph=self._multigraph, graph=self.graph, from_matrix=self._from_matrix)
        g._index, g._nodes_obj = self._index, self._nodes_obj
        # what depends on the pattern alone (weights, and the transpose holding them, are new)
        g._derived = {k: v for k, v in self._derived.items()
                      if k[0] in ("matrix", "order", "maxdeg", "csr", "label types")}
        g._reverse_rows = self._reverse_rows
        g._source = self._source
        return g

    # ------------------------------------------------------- graph-like bits

    def is_directed(self) -> bool:
        """True for a directed graph."""
        return self._directed

    def is_multigraph(self) -> bool:
        """True when converted from a multigraph (parallel edges merged)."""
        return self._multigraph

    def number_of_nodes(self) -> int:
        """Number of nodes."""
        return self._n

    def number_of_edges(self) -> int:
        """Number of edges (of distinct neighbour pairs for a multigraph)."""
        nnz = int(self._indices.size)
        if self._directed:
            return nnz
        return (nnz + self.self_loop_count()) // 2

    def self_loop_count(self) -> int:
        """Stored diagonal entries (self-loops), counted once per converted graph.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> convert_from_nx(nx.Graph([(0, 0), (0, 1)])).self_loop_count()
        1
        """
        if not self._indices.size:
            return 0
        return self._once(("self_loops",), lambda: int(np.count_nonzero(
            self._indices == self.entry_rows())))

    def __len__(self) -> int:
        return self._n

    def __iter__(self):
        return iter(self._nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def present(self, nodes) -> list:
        """The items of ``nodes`` that are nodes of the graph, in their order (NetworkX's
        ``[n for n in nodes if n in G]``), tested by the label dict's own C method.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> convert_from_nx(nx.path_graph(3)).present([2, 7, [0], 0])
        [2, 0]
        """
        if not isinstance(nodes, (list, tuple, set, frozenset, dict)):
            try:
                nodes = list(nodes)
            except TypeError as err:  # NetworkX's nbunch_iter: neither a node nor nodes
                import networkx as nx

                message = (f"Node {nodes} is not in the graph." if "object is not iterable"
                           in str(err) else "nbunch is not a node or a sequence of nodes.")
                raise nx.NetworkXError(message) from err
        try:
            return list(filter(self.index.__contains__, nodes))
        except TypeError:  # an unhashable item, which NetworkX's ``in`` calls absent
            return list(filter(self.__contains__, nodes))

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        return (f"SpbfsGraph({kind}, {self._n} nodes, {self.number_of_edges()} edges)")

    @property
    def nodes(self) -> list:
        """Node labels; node ``i`` of the CSR is ``nodes[i]``."""
        return self._nodes

    def node_dict(self, values) -> dict:
        """``{node: value}`` in node order from a list of ``n`` values: a copy of a
        ``{node: None}`` kept with the graph, then its values set.  The copy takes the
        table whole, so the keys are neither hashed nor the table regrown one insertion
        at a time: half the time of ``dict(zip(nodes, values))``.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> convert_from_nx(nx.path_graph(["a", "b"])).node_dict([1.0, 2.0])
        {'a': 1.0, 'b': 2.0}
        """
        out = self._once(("node_dict",), lambda: dict.fromkeys(self._nodes)).copy()
        out.update(zip(self._nodes, values, strict=True))
        return out

    def node_set(self):
        """``(template, rows)``: ``{node: None}`` in the order of ``set(G)`` (the order of
        NetworkX's results over ``set(G.nbunch_iter())``, as ``harmonic_centrality``'s)
        and those nodes' rows, both kept with the graph.  A result is
        ``template.copy()`` with its values set from ``zip(template, values)``.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> G = convert_from_nx(nx.path_graph(["b", "a"]))
        >>> template, rows = G.node_set()
        >>> list(template) == list({"b", "a"}), G.labels(rows) == list(template)
        (True, True)
        """
        def build():
            template = dict.fromkeys(set(self._nodes))
            return template, np.fromiter(map(self.index.__getitem__, template), np.int64,
                                         count=len(template))

        return self._once(("node_set",), build)

    def entry_rows(self):
        """The row of every stored entry of the graph as converted (host int64).

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> convert_from_nx(nx.path_graph(3)).entry_rows().tolist()
        [0, 1, 1, 2]
        """
        return np.repeat(np.arange(self._n), np.diff(self._indptr))

    def edge_dict(self, values) -> dict:
        """``{(u, v): value}`` over the edges in NetworkX's order (``G.edges()``: each
        undirected edge once, from its end that comes first in node order) from a list of
        their values in that order (:meth:`edge_entries`); as :meth:`node_dict`, a copy of a
        ``{(u, v): None}`` kept with the graph with its values set: the edge tuples are made
        once per graph.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> convert_from_nx(nx.path_graph(["a", "b", "c"])).edge_dict([1.0, 2.0])
        {('a', 'b'): 1.0, ('b', 'c'): 2.0}
        """
        template = self._once(("edge_dict",), self._edge_template)
        out = template.copy()
        out.update(zip(template, values, strict=True))
        return out

    def _edge_template(self) -> dict:
        entries = self.edge_entries()
        return dict.fromkeys(zip(self.labels(self.entry_rows()[entries]),
                                 self.labels(self._indices[entries]), strict=True))

    def edge_entries(self):
        """The stored entry (of the graph as converted) of each edge in NetworkX's order (see
        :meth:`edge_dict`), as host int64."""
        def build():
            if self._directed:
                return np.arange(self._indices.size, dtype=np.int64)
            return np.flatnonzero(self._indices >= self.entry_rows())
        return self._once(("edge_entries",), build)

    @property
    def index(self) -> dict:
        """Node label -> CSR row."""
        if self._index is None:
            self._index = dict(zip(self._nodes, range(self._n), strict=True))
        return self._index

    def labels(self, idx) -> list:
        """Node labels of the row numbers ``idx`` (a host or device array), as a list: the
        graph's own node objects, as NetworkX returns them (taking those costs about half
        of making new ints), except a few row numbers of a graph labelled by them before
        its table of nodes is made."""
        idx = to_numpy(idx)
        if self._identity and self._nodes_obj is None and idx.size * FEW_LABELS < self._n:
            return idx.tolist()
        return self.node_objects()[idx].tolist()

    def node_sets(self, labels) -> list:
        """The node sets of labels ``0 .. k-1`` (each label held by some row), in label order.

        A one-node set (most of a sparse graph's components) is a set display of its node;
        only the rows of larger sets are sorted by label.  On the VM, the 49,281 components
        of 131,072 nodes took 20-21 ms as slices of all the rows sorted by label, 17 ms so
        (10 ms of it the one-node sets' displays).

        Examples
        --------
        >>> import networkx as nx
        >>> import numpy as np
        >>> from spbfs.nx import convert_from_nx
        >>> sets = convert_from_nx(nx.path_graph("abcd")).node_sets(np.array([1, 0, 2, 0]))
        >>> [sorted(s) for s in sets]
        [['b', 'd'], ['a'], ['c']]
        """
        labels = to_numpy(labels)
        counts = np.bincount(labels)
        rows = np.empty(counts.size, np.int64)
        rows[labels] = np.arange(labels.size)  # a row of each label: a one-node set's own
        sets = [{node} for node in self.labels(rows)]
        big = np.flatnonzero(counts > 1)
        if big.size:
            members = np.flatnonzero(counts[labels] > 1)
            members = members[np.argsort(labels[members], kind="stable")]
            names = self.labels(members)
            ends = np.cumsum(counts[big]).tolist()
            for k, a, b in zip(big.tolist(), [0, *ends[:-1]], ends, strict=True):
                sets[k] = set(names[a:b])
        return sets

    def node_objects(self):
        """The nodes as an object array (row ``i`` holds node ``i``), made once: a
        result's labels taken from it are the graph's own objects (no new ints)."""
        if self._nodes_obj is None:
            # fromiter keeps each label whole (tuples too)
            self._nodes_obj = np.fromiter(self._nodes, dtype=object, count=self._n)
        return self._nodes_obj

    def networkx_graph(self):
        """The networkx graph this was converted from (while it lives), else a new one built
        from the matrix (:func:`convert_to_nx`); results that are subgraphs take their nodes,
        edges and attributes from it, as NetworkX does."""
        graph = self._source() if self._source is not None else None
        return graph if graph is not None else convert_to_nx(self)

    @property
    def nnz(self) -> int:
        """Stored adjacency entries (each undirected edge counts twice, a loop once)."""
        return int(self._indices.size)

    # --------------------------------------------------------- derived data

    def entry_datas(self, orig, build: bool = True):
        """The attribute dicts of the stored entries, row after row in the stored order
        (their adjacency dicts' order), of ``orig`` (:meth:`networkx_graph`): an object
        array read by C loops over the adjacency dicts once and kept while ``orig`` is the
        graph they came from (a copy of a result's edge dicts then takes them by position,
        not by walking its rows' dicts again: 147 -> 87 ms for the 111,363 edges of the
        scale-17 Kronecker graph's k-core on the VM); None where none is kept and ``build``
        is False (a call that reads few entries looks them up instead).

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> H = nx.path_graph(3); H.add_edge(0, 1, weight=2)
        >>> G = convert_from_nx(H)
        >>> G.entry_datas(H, build=False) is None, G.entry_datas(H).tolist()
        (True, [{'weight': 2}, {'weight': 2}, {}, {}])
        """
        kept = self._derived.get(("entry_datas",))
        if kept is not None and kept[0]() is orig:
            return kept[1]
        if not build:
            return None
        every = np.fromiter(row_datas(orig, self._nodes), object, count=self.nnz)
        self._derived[("entry_datas",)] = (weakref.ref(orig), every)
        return every

    def _once(self, key, build):
        value = self._derived.get(key)
        if value is None:
            value = self._derived[key] = build()
        return value

    def on_gpu(self, min_entries: int = 0) -> bool:
        """Whether calls on this graph run on the GPU (``nx.config.backends.spbfs.device``);
        with ``min_entries``, only graphs of at least that many stored entries do (an
        algorithm of many small rounds, each costing a GPU launches and host reads, runs
        smaller ones on the host copy)."""
        return _config.use_gpu(self.nnz) and self.nnz >= min_entries

    def matrix(self, gpu: bool) -> Matrix:
        """The pattern as a :class:`~spbfs.semiring.Matrix` (boolean values)."""
        return self._once(("matrix", gpu), lambda: self._make_matrix(
            np.ones(self.nnz, bool), gpu))

    def csr(self, gpu: bool | None = None) -> Matrix:
        """The pattern on the configured device (or on the GPU / the host, for ``gpu`` True /
        False), columns sorted (what the algorithms that do not follow NetworkX's visiting
        order take: their own canonical step is then free)."""
        if gpu is None:
            gpu = self.on_gpu()
        return self._once(("csr", gpu), lambda: self.matrix(gpu).canonical())

    def csr_positions(self):
        """The entry of :meth:`csr` that each stored entry, in NetworkX's order, is (or is
        merged into), as host int64."""
        def build():
            found = self.matrix(self.on_gpu()).pattern.canonical()
            if found is None:  # already sorted
                return np.arange(self.nnz, dtype=np.int64)
            pattern, order, starts = found[0], to_numpy(found[1]), to_numpy(found[2])
            merged = np.diff(starts, append=self.nnz)  # entries combined into each one
            positions = np.empty(self.nnz, np.int64)
            positions[order] = np.repeat(np.arange(pattern.nnz, dtype=np.int64), merged)
            return positions
        return self._once(("csr_positions", self.on_gpu()), build)

    def weighted_csr(self, attr, gpu: bool | None = None) -> Matrix:
        """:meth:`weighted_matrix` on the configured device (or as :meth:`csr` says for
        ``gpu``), columns sorted."""
        if gpu is None:
            gpu = self.on_gpu()
        self.weights(attr)  # unsupported weights: NotImplementedError before anything else
        return self._once(("wcsr", attr, gpu),
                          lambda: self.weighted_matrix(attr, gpu).canonical())

    def max_degree(self) -> int:
        """Longest row."""
        return self._once(("maxdeg",), lambda: int(np.diff(self._indptr).max())
                          if self._n else 0)

    def _make_matrix(self, data, gpu):
        arrays = [_to_device(a, gpu) for a in (self._indptr, self._indices, data)]
        return Matrix(*arrays, self._n, symmetric=not self._directed, check=False)

    def weights(self, attr):
        """``(values, kind)`` of edge attribute ``attr`` in CSR order, kind "int" or "float".

        Raises NotImplementedError (so NetworkX runs the call itself) where
        NetworkX's arithmetic cannot be reproduced exactly: values that are
        not all Python ints or all floats, negative, NaN or infinite values,
        or ints whose sums could leave float64's exact range.
        """
        if attr is None:
            return np.ones(self.nnz, np.int64), "int"
        values, kind = self.edge_attribute(attr)
        if values is None:
            raise NotImplementedError(kind)
        return self._once(("weights", attr), lambda: _check_weights(attr, values, kind))

    def edge_attribute(self, attr, *, from_source=False):
        """``(values, kind)`` of edge attribute ``attr`` per stored entry, as converted
        (``values`` None where they cannot be used: ``kind`` says why).  An attribute the
        conversion did not read is read from the converted graph on first use (edges
        without it weighing NetworkX's default 1) where that conversion preserved every
        attribute (NetworkX's cache hands it to later weighted calls too) or
        ``from_source`` (functions NetworkX dispatches without converting the attribute);
        else NotImplementedError.  A graph made from a matrix weighs 1 where it holds no
        such attribute.

        Examples
        --------
        >>> import networkx as nx
        >>> from spbfs.nx import convert_from_nx
        >>> G = nx.Graph([(0, 1, {"w": 2.5}), (1, 2, {"w": 0.5})])
        >>> H = convert_from_nx(G, preserve_edge_attrs=True)
        >>> values, kind = H.edge_attribute("w")
        >>> values.tolist(), kind
        ([2.5, 2.5, 0.5, 0.5], 'float')
        """
        entry = self._weights.get(attr)
        if entry is None:
            if self._from_matrix:
                return np.ones(self.nnz, np.int64), "int"
            source = self._source() if self._source is not None else None
            if from_source and source is None:
                source = convert_to_nx(self)
            if source is None or not (from_source or self._all_edge_attrs):
                raise NotImplementedError(f"edge attribute {attr!r} was not converted")
            adj = source._succ if self._directed else source._adj
            entry = self._once(("source values", attr), lambda: self._kept(attr, _edge_values(
                list(map(adj.__getitem__, self._nodes)), attr, 1, self._multigraph)))
        if self._directed or self._shared_edge_data or entry[0] is None:
            return entry
        return self._once(("symmetric values", attr), lambda: self._symmetric(attr, entry))

    def _kept(self, attr, entry):
        """``entry`` of :func:`_edge_values` as the graph keeps it: bools as ints (NetworkX's
        arithmetic on them), the attribute noted in ``_some_bools`` (functions that hand
        back a weight itself, where NetworkX's would be the bool, decline it) and, where
        all its values are bools, in ``_bool_attrs`` (its matrices are bool, as
        NetworkX's)."""
        values, kind = entry
        if kind not in ("bool", "int+bool"):
            return entry
        self._some_bools.add(attr)
        if kind == "bool":
            self._bool_attrs.add(attr)
        return values, "int"

    def _symmetric(self, attr, entry):
        """``entry`` if each edge's two entries hold one value, else ``(None, why)``: an
        undirected view of a directed graph (``to_undirected(as_view=True)``) reads each
        arc's own attributes, which NetworkX's functions take in different directions, so
        NetworkX runs those calls."""
        values = entry[0]
        rows = np.repeat(np.arange(self._n, dtype=np.int64), np.diff(self._indptr))
        forward = rows * self._n + self._indices
        order = np.argsort(forward, kind="stable")
        partner = order[np.searchsorted(forward[order], self._indices * self._n + rows)]
        same = values == values[partner]
        if values.dtype.kind == "f":
            same |= np.isnan(values) & np.isnan(values[partner])
        if same.all():
            return entry
        return None, (f"edge attribute {attr!r} differs between an edge's two directions "
                      "(an undirected view of a directed graph)")

    def weighted_matrix(self, attr, gpu: bool) -> Matrix:
        """The pattern with edge attribute ``attr`` as float64 values."""
        values, _ = self.weights(attr)
        return self._once(("wmatrix", attr, gpu), lambda: self.matrix(gpu).with_values(
            _to_device(values.astype(np.float64), gpu), symmetric=not self._directed))

    def reverse(self, ordered=True) -> SpbfsGraph:
        """The graph with every edge reversed.

        ``ordered=True`` keeps NetworkX's predecessor order in each row (read
        from the NetworkX graph, once); ``ordered=False`` is the transpose,
        rows ascending, for uses where order does not matter.
        """
        if not self._directed:
            return self
        if self._reverse is not None:
            return self._reverse
        if not ordered or self._reverse_rows is None:
            return self._once(("transpose",), lambda: self._build_reverse(transpose=True))
        self._reverse = self._build_reverse(transpose=False)
        return self._reverse

    def _build_reverse(self, transpose):
        g = object.__new__(SpbfsGraph)
        if transpose:  # the transpose, rows ascending
            A = sp.csr_array((np.arange(self.nnz), self._indices, self._indptr),
                             shape=(self._n, self._n)).tocsc()
            g._setup(self._nodes, A.indptr.astype(self._indptr.dtype),
                     A.indices.astype(self._indices.dtype), directed=True,
                     multigraph=self._multigraph, graph=self.graph,
                     from_matrix=self._from_matrix)
            g._weights = {a: (v if v is None else v[A.data], k)
                          for a, (v, k) in self._weights.items()}
            g._bool_attrs = set(self._bool_attrs)
            g._some_bools = set(self._some_bools)
        else:
            rows = self._reverse_rows()
            indptr, indices = _adjacency(rows, self.index, self._identity, self._n)
            if indices.size != self.nnz:
                raise RuntimeError("the NetworkX graph changed after it was converted; "
                                   "convert it again")
            g._setup(self._nodes, indptr, indices, directed=True,
                     multigraph=self._multigraph, graph=self.graph)
            g._weights = {a: g._kept(a, _edge_values(rows, a, 1, self._multigraph))
                          for a in self._weights}
        g._index, g._nodes_obj = self._index, self._nodes_obj
        if not transpose or self._reverse_rows is None:
            g._reverse = self
        return g


def _to_device(arr, gpu):
    if not gpu:
        return arr
    import cupy

    return cupy.asarray(arr)


def _is_identity(nodes) -> bool:
    """True when the labels are exactly the ints 0..n-1 in order (labels = row numbers)."""
    n = len(nodes)
    if n == 0:
        return True
    if type(nodes[0]) is not int or type(nodes[-1]) is not int:
        return False
    return set(map(type, nodes)) == {int} and nodes == list(range(n))


def _is_symmetric(indptr, indices, n, data) -> bool:
    """Whether the pattern, and the values (summed per position), equal their transpose's."""
    P = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    P.sum_duplicates()
    P.data[:] = 1
    if (P != P.T).nnz:
        return False
    S = sp.csr_array((data, indices, indptr), shape=(n, n))
    S.sum_duplicates()
    return (S != S.T).nnz == 0


def _adjacency(rows, index, identity, n):
    """CSR arrays of adjacency rows (mappings keyed by neighbour), in their order."""
    if n and type(rows[0]) is not dict:  # a view's rows: a filtered multigraph row counts a
        rows = list(map(list, rows))  # neighbour whose keys are all hidden, and skips it
    deg = np.fromiter(map(len, rows), np.int64, count=n)
    nnz = int(deg.sum())
    idt = index_dtype(n, nnz)
    indptr = np.zeros(n + 1, idt)
    np.cumsum(deg, out=indptr[1:])
    flat = chain.from_iterable(rows)
    if not identity:
        flat = map(index.__getitem__, flat)
    indices = np.fromiter(flat, idt, count=nnz)
    return indptr, indices


def _typed(attr, values):
    """``(array, kind)`` for all-int (kind "int"; "bool" where every value is a bool,
    "int+bool" where some are, an int64 array too) or all-float values, else
    ``(None, why)``."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "iub":
            return values.astype(np.int64), "int"
        return values.astype(np.float64), "float"
    types = set(map(type, values))
    if types == {bool}:
        return np.array(values, dtype=np.int64), "bool"
    if types <= {int, bool}:
        try:
            return np.array(values, dtype=np.int64), "int+bool" if bool in types else "int"
        except OverflowError:
            return None, f"edge attribute {attr!r} has ints beyond int64"
    if types == {float}:
        return np.array(values, dtype=np.float64), "float"
    names = ", ".join(sorted(t.__name__ for t in types))
    return None, (f"edge attribute {attr!r} has values of types {names}; spbfs reproduces "
                  "NetworkX's arithmetic for all-int or all-float weights only")


def _read(datas, attr, default):
    """``d.get(attr, default)`` for each edge data dict, at C speed."""
    datas = list(datas)
    try:  # every edge has the attribute: itemgetter is the fastest C-level read
        return list(map(itemgetter(attr), datas))
    except KeyError:
        pass
    try:
        return list(map(dict.get, datas, repeat(attr), repeat(default)))
    except TypeError:  # edge data that are mappings but not dicts
        return list(map(methodcaller("get", attr, default), datas))


def _edge_values(rows, attr, default, multigraph):
    """Values of ``attr`` per CSR entry; parallel edges of a multigraph give their minimum
    (NetworkX's weight of a multi-edge)."""
    datas = chain.from_iterable(map(_values, rows))
    if not multigraph:
        return _typed(attr, _read(datas, attr, default))
    keydicts = list(datas)
    counts = np.fromiter(map(len, keydicts), np.int64, count=len(keydicts))
    values, kind = _typed(attr, _read(chain.from_iterable(map(_values, keydicts)), attr,
                                      default))
    if values is None or not values.size:
        return values, kind
    return np.minimum.reduceat(values, np.cumsum(counts) - counts), kind


def _check_weights(attr, values, kind):
    if values.size:
        if kind == "float":
            if not np.isfinite(values).all():
                raise NotImplementedError(f"edge attribute {attr!r} has NaN or infinite "
                                          "values")
        if values.min() < 0:
            raise NotImplementedError(f"edge attribute {attr!r} has negative values")
        total = float(values.sum(dtype=np.float64))
        if kind == "int" and total >= 2.0 ** 53:
            raise NotImplementedError(f"sums of edge attribute {attr!r} may exceed 2**53")
        if total > FLOAT_SUMS:
            raise NotImplementedError(f"sums of edge attribute {attr!r} may overflow float64")
    return values, kind


def _cached_structure(graph):
    """An spbfs conversion of ``graph`` already in its NetworkX cache, if any.

    NetworkX clears ``G.__networkx_cache__`` on every structural change, so the
    node list and the adjacency pattern of an entry there are still valid;
    only edge attributes must be read again.
    """
    cache = getattr(graph, "__networkx_cache__", None)
    if not cache:
        return None
    for value in list(cache.get("backends", {}).get("spbfs", {}).values()):
        if isinstance(value, SpbfsGraph):
            return value
    return None


def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """Convert a NetworkX graph to :class:`SpbfsGraph` (NetworkX's backend hook).

    The adjacency is read row by row in NetworkX's own order with C-level
    iteration (``numpy.fromiter`` over the adjacency dicts); only the edge
    attributes named in ``edge_attrs`` are read.  A pattern already converted
    for the same graph (found in ``graph.__networkx_cache__``) is reused.
    Multigraphs become one entry per neighbour pair, weighted by the
    minimum over the parallel edges, as NetworkX's shortest paths use them.

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> G = nx.path_graph(["x", "y", "z"])
    >>> H = convert_from_nx(G, edge_attrs={"weight": 1})
    >>> H, H.nodes
    (SpbfsGraph(undirected, 3 nodes, 2 edges), ['x', 'y', 'z'])
    """
    # a pause of the cyclic GC while the arrays are read: each full collection would walk
    # every object of the (large) input graph, several times over a conversion
    paused = gc.isenabled()
    gc.disable()
    try:
        g = _convert(graph, edge_attrs, preserve_graph_attrs, name, graph_name)
        if preserve_edge_attrs is True and g._source is not None:
            g._all_edge_attrs = True
        return g
    finally:
        if paused:
            gc.enable()


def _convert(graph, edge_attrs, preserve_graph_attrs, name, graph_name):
    import networkx as nx

    if isinstance(graph, SpbfsGraph):
        return graph
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"spbfs converts networkx graphs, got {type(graph).__name__}"
                        + (f" for {graph_name} in {name}" if name else ""))
    # preserve_*_attrs (functions returning a subgraph of G): the attributes stay in G,
    # which networkx_graph() hands back for building the result
    directed, multigraph = graph.is_directed(), graph.is_multigraph()
    adj = graph._succ if directed else graph._adj
    base = _cached_structure(graph)
    if base is not None:
        g = base._share_structure()
        nodes = g._nodes
    else:
        nodes = list(graph)
        g = object.__new__(SpbfsGraph)
        g._setup(nodes, None, None, directed=directed, multigraph=multigraph)
    rows = list(map(adj.__getitem__, nodes))
    g._shared_edge_data = directed or type(adj) is dict
    if base is None:
        index = None if g._identity else g.index
        g._indptr, g._indices = _adjacency(rows, index, g._identity, len(nodes))
    if preserve_graph_attrs:
        g.graph = dict(graph.graph)
    for attr, default in (edge_attrs or {}).items():
        g._weights[attr] = g._kept(attr, _edge_values(rows, attr, default, multigraph))
    if directed:
        pred = graph._pred
        g._reverse_rows = lambda: list(map(pred.__getitem__, nodes))
    g._source = weakref.ref(graph)
    return g


def convert_to_nx(obj, *, name=None):
    """Turn a backend result into NetworkX's form (NetworkX's backend hook).

    Results are already plain Python containers; an :class:`SpbfsGraph`
    becomes a ``networkx`` graph with the converted edge attributes.

    Examples
    --------
    >>> import networkx as nx, scipy.sparse as sp
    >>> from spbfs.nx import SpbfsGraph, convert_to_nx
    >>> G = convert_to_nx(SpbfsGraph(sp.csr_array(([2.5], ([0], [1])), shape=(2, 2))))
    >>> type(G).__name__, list(G.edges(data=True))
    ('DiGraph', [(0, 1, {'weight': 2.5})])
    >>> convert_to_nx({1: 2})
    {1: 2}
    """
    import networkx as nx

    if not isinstance(obj, SpbfsGraph):
        return obj
    G = nx.DiGraph() if obj._directed else nx.Graph()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    u, v = obj.labels(obj.entry_rows()), obj.labels(obj._indices)
    attrs = [(a, vals.tolist()) for a, (vals, _) in obj._weights.items() if vals is not None]
    if attrs:
        names = [a for a, _ in attrs]
        datas = (dict(zip(names, vs, strict=True))
                 for vs in zip(*(x for _, x in attrs), strict=True))
        G.add_edges_from(zip(u, v, datas, strict=True))
    else:
        G.add_edges_from(zip(u, v, strict=True))
    return G
