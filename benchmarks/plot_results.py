"""Figures of the measured results, as PNGs for docs/figures/ (needs matplotlib).

Weak scaling, from the ``bench_dist.py`` rows in ``benchmarks/results/*.jsonl`` (one JSON
object per line with ``P``, ``scale``, ``plane``, ``gteps``, ``gteps_per_rank``): aggregate
GTEPS and GTEPS per GPU against the number of GPUs P, NCCL against host-staged MPI, one line
per problem size per GPU (``scale - log2 P``).  Every row is a point; the lines join the
median of the rows at each P.

Per level, from ``spbfs graph500 --json FILE`` results files: the figure of
``spbfs graph500 --plot`` (frontier size and direction per level of the median-TEPS search,
TEPS over the roots), written as ``<stem of FILE>.png``.

    python benchmarks/plot_results.py                         # weak_scaling.png
    python benchmarks/plot_results.py --json run.json         # + run.png
    python benchmarks/plot_results.py --results DIR --out DIR
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
FIGURES = os.path.join(os.path.dirname(HERE), "docs", "figures")

PLANES = {"nccl": ("NCCL", "-", "o"), "mpi": ("host-staged MPI", "--", "s")}
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]


def load_rows(results_dir):
    """The weak-scaling rows (``P``, ``scale``, ``gteps``) of every ``*.jsonl`` file there."""
    rows = []
    for path in sorted(glob.glob(os.path.join(results_dir, "*.jsonl"))):
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}, line {number}: not JSON ({e})") from None
                if isinstance(row, dict) and {"P", "scale", "gteps"} <= row.keys():
                    row["file"] = os.path.basename(path)
                    rows.append(row)
    return rows


def _median(values):
    s = sorted(values)
    k = len(s)
    return (s[(k - 1) // 2] + s[k // 2]) / 2


def _value(row, key):
    """GTEPS (``gteps``) or GTEPS per GPU (``gteps_per_rank``, else ``gteps / P``)."""
    return row[key] if key in row else row["gteps"] / row["P"]


def weak_scaling(rows, path):
    """Draw GTEPS and GTEPS per GPU against P, NCCL vs MPI, to ``path`` (a PNG)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    series = defaultdict(list)  # (device, per-rank scale, plane) -> rows
    for r in rows:
        P = int(r["P"])
        per_rank = int(r["scale"]) - int(round(math.log2(P)))
        series[(r.get("device", "gpu"), per_rank, r.get("plane", "nccl"))].append(r)
    sizes = sorted({(dev, s) for dev, s, _ in series})
    color = {size: COLORS[i % len(COLORS)] for i, size in enumerate(sizes)}
    Ps = sorted({int(r["P"]) for r in rows})

    fig = Figure(figsize=(11, 4.4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, key, ylabel in ((axes[0], "gteps", "GTEPS (harmonic mean)"),
                            (axes[1], "gteps_per_rank", "GTEPS per GPU")):
        for (dev, per_rank, plane), group in sorted(series.items()):
            name, style, marker = PLANES.get(plane, (plane, ":", "^"))
            c = color[(dev, per_rank)]
            ax.scatter([r["P"] for r in group], [_value(r, key) for r in group], color=c,
                       marker=marker, s=18, alpha=0.6, zorder=3)
            by_p = defaultdict(list)
            for r in group:
                by_p[int(r["P"])].append(_value(r, key))
            xs = sorted(by_p)
            ys = [_median(by_p[p]) for p in xs]
            ax.plot(xs, ys, style, color=c, marker=marker, zorder=2)
            below = sizes.index((dev, per_rank)) % 2 == 0  # neighbouring labels apart
            for x, y in zip(xs, ys, strict=True):
                ax.annotate(f"{y:.1f}", (x, y), textcoords="offset points", fontsize=7,
                            xytext=(5, -10 if below else 3), color=c)
            if plane == "nccl" and 1 in by_p and key == "gteps_per_rank" and len(xs) > 1:
                # perfect weak scaling: every GPU keeps its 1-GPU rate
                ax.axhline(_median(by_p[1]), ls=":", color=c, alpha=0.6, lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(Ps)
        ax.set_xticklabels([str(p) for p in Ps])
        ax.set_xlabel("GPUs (P), problem size per GPU fixed")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.margins(x=0.08)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=color[size], lw=2,
                      label=f"2^{size[1]} vertices per {'GPU' if size[0] == 'gpu' else 'rank'}")
               for size in sizes]
    handles += [Line2D([], [], color="black", ls=style, marker=marker, label=name)
                for plane, (name, style, marker) in PLANES.items()
                if any(p == plane for _, _, p in series)]
    handles.append(Line2D([], [], color="gray", ls=":", label="perfect weak scaling (per GPU)"))
    axes[0].legend(handles=handles, fontsize=8, loc="upper left")
    files = ", ".join(sorted({r["file"] for r in rows}))
    fig.suptitle(f"spbfs.dist BFS, weak scaling (Kronecker, edgefactor 16)\n{files}",
                 fontsize=9)
    fig.savefig(path)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=RESULTS,
                        help="folder of *.jsonl weak-scaling rows (default: benchmarks/results)")
    parser.add_argument("--json", action="append", default=[], metavar="FILE",
                        help="a `spbfs graph500 --json` results file: per-level figure "
                        "(repeatable)")
    parser.add_argument("--out", default=FIGURES, help="where the PNGs go (default docs/figures)")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SystemExit("plot_results.py needs matplotlib: pip install 'spbfs[plot]'") from None
    sys.path.insert(0, os.path.dirname(HERE))  # spbfs from this checkout when not installed
    from spbfs.graph500.plot import plot_run
    from spbfs.graph500.results import read_json

    os.makedirs(args.out, exist_ok=True)
    written = []
    rows = load_rows(args.results)
    if rows:
        written.append(weak_scaling(rows, os.path.join(args.out, "weak_scaling.png")))
    else:
        print(f"no weak-scaling rows in {args.results}/*.jsonl", file=sys.stderr)
    for path in args.json:
        stem = os.path.splitext(os.path.basename(path))[0]
        written.append(plot_run(read_json(path), os.path.join(args.out, stem + ".png")))
    for path in written:
        print(f"wrote {os.path.relpath(path)} ({os.path.getsize(path) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
