"""Figures of Graph500 results (``spbfs graph500 --plot``), drawn with matplotlib's Agg backend.

matplotlib is an optional extra: ``pip install 'spbfs[plot]'``.  Nothing here changes
matplotlib's global backend or touches ``pyplot``: figures are drawn on an Agg canvas.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DIRECTION_COLORS", "direction_label", "plot_run", "require_matplotlib",
           "search_label", "typical_search"]

#: Bar colour of each direction label (:func:`direction_label`).
DIRECTION_COLORS = {"source": "#7f7f7f", "push": "#1f77b4", "pull": "#ff7f0e",
                    "mixed": "#9467bd", "unknown": "#c7c7c7"}


def require_matplotlib(option="--plot"):
    """matplotlib, or a RuntimeError naming ``option`` and the way to install it.

    Parameters
    ----------
    option : str
        What needs it, named in the message (the command-line option).

    Returns
    -------
    module
        ``matplotlib``.

    Raises
    ------
    RuntimeError
        ``"--plot needs matplotlib, which is not installed: pip install 'spbfs[plot]'"``.

    Examples
    --------
    >>> try:
    ...     mpl = require_matplotlib()
    ... except RuntimeError as e:
    ...     mpl = str(e)
    >>> hasattr(mpl, "__version__") or mpl.startswith("--plot needs matplotlib")
    True
    """
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError(f"{option} needs matplotlib, which is not installed: "
                           "pip install 'spbfs[plot]'") from None
    return matplotlib


def direction_label(direction):
    """``"source"``, ``"push"``, ``"pull"``, ``"mixed"`` or ``"unknown"`` for one level.

    A level's direction in a results document is ``None`` (level 0), a string, or on
    ``--dist`` runs a dict of the delegate-side blocks' directions (the ``nn`` block always
    pushes): all push is ``"push"``, all pull ``"pull"``, anything else ``"mixed"``.

    Examples
    --------
    >>> direction_label(None), direction_label("pull")
    ('source', 'pull')
    >>> direction_label({"nd": "push", "dn": "pull", "dd": "pull"})
    'mixed'
    """
    if direction is None:
        return "source"
    if isinstance(direction, dict):
        kinds = set(direction.values())
        return kinds.pop() if len(kinds) == 1 and kinds <= {"push", "pull"} else "mixed"
    return direction if direction in ("push", "pull") else "unknown"


def typical_search(doc):
    """Index of the search with the median TEPS (the lower one for an even count:
    then the block's ``median_TEPS`` lies between it and the next, see
    :func:`search_label`).

    Examples
    --------
    >>> typical_search({"searches": [{"TEPS": 3.0}, {"TEPS": 1.0}, {"TEPS": 2.0}]})
    2
    """
    teps = [s["TEPS"] for s in doc["searches"]]
    order = np.argsort(teps, kind="stable")
    return int(order[(len(order) - 1) // 2])


def search_label(doc, index):
    """How the figure names search ``index``: the median one says which median it is.

    With an odd number of searches the median-TEPS search is the block's
    ``median_TEPS``.  With an even number the block's median lies between the two
    middle searches (the harmonic mean of their TEPS, as the reference code
    averages time per edge); :func:`typical_search` draws the lower one.

    Examples
    --------
    >>> doc = {"searches": [{"TEPS": 3.0}, {"TEPS": 1.0}, {"TEPS": 2.0}]}
    >>> search_label(doc, 2), search_label(doc, 0)
    ('the median-TEPS search', 'search 0')
    >>> doc["searches"].append({"TEPS": 6.0})
    >>> print(search_label(doc, 2))
    search 2, the lower of the two middle TEPS (the block's median_TEPS lies between them)
    """
    if index != typical_search(doc):
        return f"search {index}"
    if len(doc["searches"]) % 2:
        return "the median-TEPS search"
    return (f"search {index}, the lower of the two middle TEPS (the block's median_TEPS "
            "lies between them)")


def _levels_panel(ax, doc, index):
    s = doc["searches"][index]
    vertices = s.get("level_vertices")
    if not vertices:
        ax.text(0.5, 0.5, "no per-level data", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    directions = s.get("level_directions") or [None] * len(vertices)
    labels = [direction_label(d) if i else "source" for i, d in enumerate(directions)]
    levels = np.arange(len(vertices))
    ax.bar(levels, vertices, color=[DIRECTION_COLORS[k] for k in labels], width=0.8)
    ax.set_yscale("log")
    ax.set_xticks(levels)
    ax.set_xlabel("level")
    ax.set_ylabel("vertices found (frontier size)")
    source = {"trace": "directions from the level loop's trace",
              "dist": "directions per block, from dist.bfs"}.get(doc.get("direction_source"), "")
    which = search_label(doc, index)
    ax.set_title(f"{which}, root {s['root']}: {s['TEPS'] / 1e9:.3g} GTEPS, "
                 f"{s['time'] * 1e3:.3g} ms\n({source})", fontsize=9)
    from matplotlib.patches import Patch

    shown = [k for k in DIRECTION_COLORS if k in labels]
    ax.legend(handles=[Patch(color=DIRECTION_COLORS[k], label=k) for k in shown],
              fontsize=8, loc="best")
    for x, y in zip(levels, vertices, strict=True):
        if y > 0:
            ax.annotate(f"{y:,}", (x, y), ha="center", va="bottom", fontsize=7)
    ax.margins(y=0.15)


def _teps_panel(ax, doc):
    gteps = np.array([s["TEPS"] for s in doc["searches"]], dtype=float) / 1e9
    result = doc.get("result", {})
    hmean = (result.get("harmonic_mean_TEPS") or len(gteps) / np.sum(1 / gteps) * 1e9) / 1e9
    median = (result.get("median_TEPS") or np.median(gteps) * 1e9) / 1e9
    lo, hi = float(gteps.min()), float(gteps.max())
    bins = max(5, min(30, int(math.sqrt(gteps.size)) * 2))
    if hi > 10 * lo:  # a small-component root: log-spaced bins keep both ends readable
        ax.hist(gteps, bins=np.geomspace(lo, hi * 1.0001, bins + 1), color="#8c9fcb")
        ax.set_xscale("log")
    else:
        ax.hist(gteps, bins=bins, color="#8c9fcb")
    ax.axvline(hmean, color="#d62728", ls="--", label=f"harmonic mean {hmean:.4g}")
    ax.axvline(median, color="black", ls=":", label=f"median {median:.4g}")
    ax.set_xlabel("GTEPS")
    ax.set_ylabel("searches")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"TEPS over the {gteps.size} roots", fontsize=9)
    ax.legend(fontsize=8, loc="best")


def plot_run(doc, path, search=None, *, dpi=100):
    """Draw a run's figure to a PNG: one search's levels, and the TEPS over all roots.

    Left: vertices found at each level (the frontier of the next step) of one search, as
    log-scale bars coloured by the direction of the step that found them.  Right: a
    histogram of the searches' GTEPS with the harmonic mean and the median marked.

    Parameters
    ----------
    doc : dict
        A results document (:func:`spbfs.graph500.results.document`, or read back with
        :func:`spbfs.graph500.results.read_json`).
    path : str or path-like
        The PNG to write.
    search : int, optional
        Index into ``doc["searches"]``; default :func:`typical_search` (the median TEPS).
    dpi : int

    Returns
    -------
    str or path-like
        ``path``.

    Raises
    ------
    RuntimeError
        If matplotlib is not installed (see :func:`require_matplotlib`).

    Examples
    --------
    >>> import io, os, tempfile
    >>> from spbfs.graph500.harness import run_graph500
    >>> doc = {}
    >>> _ = run_graph500(8, roots=8, device="cpu", out=io.StringIO(), progress=False,
    ...                  record=doc)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.png")
    >>> try:                                        # pip install 'spbfs[plot]'
    ...     written = plot_run(doc, path) == path and os.path.getsize(path) > 0
    ... except RuntimeError:                        # matplotlib is not installed
    ...     written = True
    >>> written
    True
    """
    require_matplotlib("--plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not doc.get("searches"):
        raise ValueError("the results document has no searches to plot")
    index = typical_search(doc) if search is None else int(search)
    fig = Figure(figsize=(11, 4.2), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    _levels_panel(left, doc, index)
    _teps_panel(right, doc)
    p = doc.get("parameters", {})
    device = doc.get("environment", {}).get("device", {})
    where = device.get("name") or p.get("device", "")
    if p.get("processes", 1) > 1:
        where = f"{p['processes']} x {where}"
    fig.suptitle(f"Graph500 SCALE {p.get('scale', '?')}, edgefactor {p.get('edgefactor', '?')}"
                 f" on {where}: {doc.get('summary', '')}", fontsize=10)
    fig.savefig(path, dpi=dpi)
    return path
