"""Command line: ``spbfs graph500 ...`` and ``spbfs bfs FILE ...``."""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

__all__ = ["build_parser", "ids_path", "main"]


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


class _Formatter(argparse.HelpFormatter):
    """Help that shows each option's default, where it has one to show (not a flag's
    False, not None, not where the help already says it)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (action.default not in (None, False, argparse.SUPPRESS) and action.option_strings
                and "default" not in text):
            text += " (default: %(default)s)"
        return text


def _version():
    from importlib import metadata

    try:
        return metadata.version("spbfs")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        from . import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``spbfs`` command.

    Every option's help shows its default.

    Examples
    --------
    >>> build_parser().parse_args(["bfs", "g.mtx", "--source", "3"]).source
    3
    >>> "(default: 16)" in build_parser()._subparsers._group_actions[0].choices[
    ...     "graph500"].format_help()
    True
    """
    formatter = _Formatter
    parser = argparse.ArgumentParser(
        prog="spbfs", formatter_class=formatter,
        description="Breadth-first search as sparse linear algebra: the Graph500 benchmark "
                    "(spbfs graph500) and a search of a graph file (spbfs bfs).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    g = sub.add_parser("graph500", help="run the Graph500 BFS benchmark",
                       description="Generate a Graph500 Kronecker graph, build it (kernel 1), "
                       "run searches from random roots (kernel 2), validate each, and print "
                       "the reference result block.", formatter_class=formatter)
    g.add_argument("--scale", type=_positive_int, required=True,
                   help="log2 of the vertex count (the graph has 2**SCALE vertices)")
    g.add_argument("--edgefactor", type=_positive_int, default=16,
                   help="edge tuples per vertex (the graph has EDGEFACTOR * 2**SCALE)")
    g.add_argument("--roots", type=_positive_int, default=64,
                   help="number of searches, from distinct random vertices with an edge "
                   "(fewer when the graph has fewer such vertices: the output says so)")
    g.add_argument("--seed", type=int, default=1,
                   help="seed of the edge generator and of the choice of roots")
    g.add_argument("--device", choices=("cpu", "gpu", "auto"), default="auto",
                   help="where to run: auto takes the GPU when CuPy sees one")
    g.add_argument("--dist", action="store_true",
                   help="distributed run over MPI (launch with mpiexec -n P python -m mpi4py)")
    g.add_argument("--threshold", type=int, default=None,
                   help="with --dist only: degree above which a vertex is a delegate "
                   "(default: chosen from the graph)")
    g.add_argument("--data-plane", choices=("auto", "nccl", "mpi"), default="auto",
                   help="with --dist on GPUs: NCCL or host-staged MPI")
    g.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    g.add_argument("--json", metavar="FILE",
                   help="write the results (block, every search's time, edges, TEPS, levels "
                   "and directions, device, versions) to FILE as JSON (--dist: rank 0)")
    g.add_argument("--plot", metavar="FILE.png",
                   help="draw frontier size and direction per level of one search and the "
                   "TEPS over the roots to FILE.png (needs matplotlib: pip install "
                   "'spbfs[plot]')")

    b = sub.add_parser("bfs", help="BFS on a graph file (.mtx or edge list)",
                       description="Breadth-first search of a graph file from one source; "
                       "prints the vertices reached, the depth and the search's time.",
                       formatter_class=formatter)
    b.add_argument("file", help="Matrix Market (.mtx, .mtx.gz, .mtx.bz2) or an edge list "
                   "(u v [weight] per line, # and %% comments)")
    b.add_argument("--source", type=int, required=True,
                   help="source vertex: an id as written in the file (Matrix Market: 1-based; "
                   "edge lists: as written), also when ids get relabelled")
    b.add_argument("--parents", action="store_true", help="also compute the BFS tree")
    b.add_argument("--undirected", action="store_true", help="use every edge both ways")
    b.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu",
                   help="where to search: auto takes the GPU when CuPy sees one")
    b.add_argument("--output", metavar="FILE.npz",
                   help="write levels (and parents) to this .npz file; when the file's ids "
                   "are not 0..n-1 (Matrix Market, or relabelled), also the id map to "
                   "<stem>.ids.npy next to it")
    return parser


def _graph500(args):
    # Checked before the run, not after minutes of searching.
    if args.threshold is not None and not args.dist:
        raise ValueError("--threshold is an option of distributed runs: use it with --dist")
    if args.data_plane != "auto" and not args.dist:
        raise ValueError("--data-plane is an option of distributed runs: use it with --dist")
    if args.plot:
        from .graph500.plot import require_matplotlib

        require_matplotlib("--plot")
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path and not os.path.isdir(os.path.dirname(path) or "."):
            raise FileNotFoundError(f"{option} {path}: no such directory")
    record = {} if args.json or args.plot else None
    try:
        if args.dist:
            from .dist.harness import run_graph500 as run_dist

            run_dist(args.scale, args.edgefactor, args.roots, args.seed,
                     threshold=args.threshold, device=args.device, data_plane=args.data_plane,
                     progress=not args.no_progress, record=record)
            return
        from .graph500.harness import run_graph500

        stats = run_graph500(args.scale, args.edgefactor, args.roots, args.seed, args.device,
                             progress=not args.no_progress, record=record)
        if stats["validation"] != "passed":
            raise SystemExit(1)
    finally:
        if record:  # filled by the run (--dist: on rank 0 only), also when searches failed
            _write_results(args, record)


def _write_results(args, record):
    """--json and --plot of ``spbfs graph500``; what was written is named on stderr."""
    record["environment"]["arguments"] = {k: v for k, v in vars(args).items()
                                          if k != "command"}
    if args.json:
        from .graph500.results import write_json

        write_json(args.json, record)
        print(f"wrote {args.json}", file=sys.stderr)
    if args.plot:
        from .graph500.plot import plot_run

        plot_run(record, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)


def _source_vertex(source, ids, n, path, base=0):
    """The vertex of ``--source``, an id as written in the file: ``ids`` maps relabelled
    vertices to the file's ids, else the file's ids are ``base .. base + n - 1``."""
    if ids is None:
        if not base <= source < base + n:
            raise ValueError(f"--source {source} is not a vertex of {path} "
                             f"(ids {base}..{base + n - 1}"
                             + (", 1-based as Matrix Market writes them)" if base else ")"))
        return source - base
    if 0 <= source < 1 << 63:
        vertex = int(np.searchsorted(ids, source))
        if vertex < ids.size and ids[vertex] == source:
            return vertex
    raise ValueError(f"--source {source} does not occur in {path} (its {ids.size} "
                     f"distinct ids, from {ids[0]} to {ids[-1]}, were relabelled)"
                     if ids.size else f"--source {source}: {path} has no vertices")


def _edge_count(A, path):
    """``edges: ...`` of ``spbfs bfs``: the stored entries, and for a symmetric Matrix Market
    file how they relate to the file's entries."""
    from .io import is_matrix_market

    if is_matrix_market(path):
        import scipy.io

        _, _, entries, _, _, symmetry = scipy.io.mminfo(path)
        if symmetry != "general":
            return (f"{A.nnz} (directed edges i -> j stored: the file's {entries} {symmetry} "
                    "entries with the other triangle filled in)")
    return f"{A.nnz}"


def _bfs(args):
    from .algorithms.bfs import bfs, prepare
    from .graph500.harness import resolve_device, warm_up
    from .io import id_base, read_graph

    if args.output and not os.path.isdir(os.path.dirname(args.output) or "."):
        raise FileNotFoundError(f"--output {args.output}: no such directory")
    A, ids = read_graph(args.file, return_ids=True)
    base = id_base(args.file)
    if ids is not None:
        ids = ids + base  # the file's ids (Matrix Market: 1-based)
    source = _source_vertex(args.source, ids, A.shape[0], args.file, base)
    gpu = resolve_device(args.device) == "gpu"
    if gpu:
        import cupyx.scipy.sparse as csp

        A = csp.csr_matrix(A)
    t0 = time.perf_counter()
    M = prepare(A, directed=not args.undirected)
    preparing = time.perf_counter() - t0
    loading = warm_up(M, return_parents=args.parents)
    t0 = time.perf_counter()
    result = bfs(M, source, return_parents=args.parents, directed=not args.undirected)
    if gpu:
        import cupy

        cupy.cuda.get_current_stream().synchronize()
    elapsed = time.perf_counter() - t0
    levels, parents = result if args.parents else (result, None)
    if not isinstance(levels, np.ndarray):
        levels = levels.get()
        parents = None if parents is None else parents.get()
    reached = int((levels >= 0).sum())
    print(f"vertices: {A.shape[0]}  edges: {_edge_count(A, args.file)}  source: {args.source}")
    print(f"reached: {reached}  depth: {int(levels.max())}  time: {elapsed:.6f} s "
          "(the search alone)")
    print(f"set-up, not in time: loading the search kernels {loading:.3f} s, preparing "
          f"the matrix {preparing:.3f} s")
    if ids is not None:
        print(f"relabelled: ids up to {ids[-1]} mapped to vertices 0..{ids.size - 1} "
              f"(--source {args.source} is vertex {source})"
              + ("" if args.output else "; use --output to save the levels and the id map"))
    elif base:
        print(f"ids: 1-based, as Matrix Market writes them (--source {args.source} is vertex "
              f"{source}; vertex i is the file's id i + 1)")
    if args.output:
        # np.savez appends .npz to a name without it; name the file it really writes.
        output = args.output if args.output.endswith(".npz") else args.output + ".npz"
        arrays = {"levels": levels} if parents is None else {"levels": levels, "parents": parents}
        np.savez(output, **arrays)
        print(f"wrote {output}")
        if ids is None and base:
            ids = np.arange(base, base + A.shape[0], dtype=np.int64)
        if ids is not None:
            id_path = ids_path(output)
            np.save(id_path, ids)
            print(f"wrote {id_path}: the id map (the file's id of each vertex of {output})")


def ids_path(output):
    """Where ``spbfs bfs --output OUTPUT`` writes the id map of a relabelled graph.

    Next to the output: ``<output stem>.ids.npy``.  It holds the file's ids
    of the vertices: ``ids[i]`` is the id written in the file for vertex
    ``i``, the index into the saved ``levels`` and the value in ``parents``
    (Matrix Market files, whose ids are 1-based, get one too: ``ids[i] == i + 1``).

    Parameters
    ----------
    output : str
        The ``--output`` argument.

    Returns
    -------
    str

    Examples
    --------
    >>> ids_path("runs/levels.npz"), ids_path("levels")
    ('runs/levels.ids.npy', 'levels.ids.npy')
    """
    stem = output[:-4] if output.endswith(".npz") else output
    return stem + ".ids.npy"


def main(argv=None) -> int:
    """Entry point of the ``spbfs`` console script.

    Examples
    --------
    >>> main(["graph500", "--scale", "6", "--roots", "2", "--device", "cpu",
    ...       "--no-progress"])  # doctest: +ELLIPSIS
    SCALE:                          6
    ...
    validation:                     passed
    2 searches, 2 validated, harmonic mean ... GTEPS
    0
    """
    args = build_parser().parse_args(argv)
    try:
        {"graph500": _graph500, "bfs": _bfs}[args.command](args)
    except (ValueError, TypeError, FileNotFoundError, RuntimeError, MemoryError) as e:
        print(f"spbfs: error: {e}", file=sys.stderr)
        if getattr(args, "dist", False):
            # the other ranks may wait in a collective this rank will not join: end the job
            from .dist.comm import end_job

            end_job(2)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
