"""Graph500 results as data: the JSON document of ``spbfs graph500 --json`` and the summary line.

A results document (:data:`SCHEMA`) holds everything a run measured and where it ran::

    {
      "schema": "spbfs.graph500.results/1",
      "result": {...},        # the printed result block, name -> value, same order and values
      "summary": "64 searches, 64 validated, harmonic mean 0.1151 GTEPS",
      "parameters": {...},    # scale, edgefactor, roots, seed, device, alpha, beta (+ dist ones)
      "searches": [           # one per timed search, in run order
        {"root": 17, "time": 0.031, "nedge": 8388600, "TEPS": 2.7e8,
         "validation": "passed", "failures": {},
         "reached": 401233, "depth": 6,
         "level_vertices": [1, 77, 90211, ...],       # vertices found at each level
         "level_directions": [null, "push", "pull", ...]},   # how each level was found
        ...
      ],
      "direction_source": "trace" | "dist",
      "environment": {"device": {...}, "versions": {...}, "hostname": ..., "date": ...,
                      "command": ..., "commit": ..., "arguments": {...}}
    }

``TEPS`` of a search is ``nedge / time``; ``result["harmonic_mean_TEPS"]`` is the harmonic
mean of those values (:func:`spbfs.graph500.summarize`).  Numbers that are not finite (the
standard deviations of a single search) are written as ``null``.  ``level_directions[L]`` is
the direction of the step that found level ``L`` (``null`` for the source's level 0):
``"push"`` or ``"pull"``; on ``--dist`` runs a dict per delegate-side block (``nd``, ``dn``,
``dd``; ``nn`` always pushes).  ``direction_source`` says where the directions come from:
``"trace"`` (the level loop's own trace of the search, :func:`spbfs.algorithms.bfs.search`) or
``"dist"`` (the per-level directions that :func:`spbfs.dist.bfs` reports).
``environment["commit"]`` is the git commit of the spbfs source that ran (:func:`git_commit`;
``null`` for an installed copy), and ``environment["versions"]`` names numba's version beside
numpy's and scipy's, so that a figure quoted from a document can be traced to its code.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import shlex
import socket
import subprocess
import sys
from importlib import metadata

import numpy as np

__all__ = [
    "SCHEMA", "device_info", "document", "environment", "git_commit", "read_json",
    "summary_line", "versions", "write_json",
]

#: Name and version of the document layout (the ``"schema"`` entry).
SCHEMA = "spbfs.graph500.results/1"


def summary_line(stats, failed=0):
    """The plain last line of a ``spbfs graph500`` run.

    Parameters
    ----------
    stats : dict
        :func:`spbfs.graph500.summarize` statistics (``NBFS``, ``harmonic_mean_TEPS``,
        ``validation``).
    failed : int
        Number of searches that failed validation.

    Returns
    -------
    str
        ``"N searches, N validated, harmonic mean X GTEPS"``, with
        ``"validation FAILED for K searches"`` when searches failed and
        ``"validation skipped"`` when they were not checked.

    Examples
    --------
    >>> stats = {"NBFS": 64, "harmonic_mean_TEPS": 1.2345e8, "validation": "passed"}
    >>> summary_line(stats)
    '64 searches, 64 validated, harmonic mean 0.1235 GTEPS'
    >>> summary_line(dict(stats, validation="failed"), failed=2)
    '64 searches, 62 validated, validation FAILED for 2 searches, harmonic mean 0.1235 GTEPS'
    """
    n = int(stats["NBFS"])
    gteps = f"harmonic mean {stats['harmonic_mean_TEPS'] / 1e9:.4g} GTEPS"
    if stats.get("validation") == "skipped":
        return f"{n} searches, validation skipped, {gteps}"
    failed = int(failed)
    if failed or stats.get("validation") == "failed":
        failed = failed or n
        word = "search" if failed == 1 else "searches"
        return (f"{n} searches, {n - failed} validated, validation FAILED for {failed} "
                f"{word}, {gteps}")
    return f"{n} searches, {n} validated, {gteps}"


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions():
    """Versions of Python and of the packages a run used (absent ones left out).

    numba (the CPU backend's compiler) is reported whether or not a run imported it (its
    installed distribution's version, read without importing it). CuPy is reported when it
    is imported or installed (by its distribution's name, e.g. ``cupy-cuda12x``), without
    importing it; MPI (the library's own version line) when mpi4py's MPI module is loaded.

    Returns
    -------
    dict
        Name to version string.

    Examples
    --------
    >>> v = versions()
    >>> sorted(k for k in ("python", "numpy", "scipy", "numba", "spbfs") if k in v)
    ['numba', 'numpy', 'python', 'scipy', 'spbfs']
    """
    import scipy

    from .. import __version__

    out = {"python": platform.python_version(), "numpy": np.__version__,
           "scipy": scipy.__version__, "spbfs": __version__}
    numba = sys.modules.get("numba")
    found = getattr(numba, "__version__", None) or _version("numba")
    if found:
        out["numba"] = found
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        out["cupy"] = cupy.__version__
    else:
        for dist in ("cupy", "cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x"):
            found = _version(dist)
            if found:
                out["cupy"] = f"{found} ({dist}, not imported)"
                break
    for name in ("mpi4py", "tqdm", "matplotlib"):
        if name in sys.modules:
            out[name] = getattr(sys.modules[name], "__version__", None) or _version(name)
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None:
        try:
            out["mpi"] = mpi.Get_library_version().replace("\x00", "").strip().splitlines()[0]
        except Exception:  # pragma: no cover - depends on the MPI library
            pass
    return out


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_info(device):
    """What the searches ran on.

    Parameters
    ----------
    device : {"cpu", "gpu"}

    Returns
    -------
    dict
        ``kind``, ``name`` and, for the CPU, ``cores`` (as ``os.cpu_count``); for the GPU,
        ``memory_bytes``, ``compute_capability`` and ``cuda_runtime`` (CUDA device 0, the
        current one).

    Examples
    --------
    >>> info = device_info("cpu")
    >>> info["kind"], info["cores"] == os.cpu_count()
    ('cpu', True)
    """
    if device == "gpu":
        import cupy

        dev = cupy.cuda.Device()
        props = cupy.cuda.runtime.getDeviceProperties(dev.id)
        name = props["name"]
        return {"kind": "gpu", "name": name.decode() if isinstance(name, bytes) else str(name),
                "id": int(dev.id), "memory_bytes": int(props["totalGlobalMem"]),
                "compute_capability": f"{props['major']}.{props['minor']}",
                "cuda_runtime": int(cupy.cuda.runtime.runtimeGetVersion())}
    return {"kind": "cpu", "name": _cpu_name(), "cores": os.cpu_count(),
            "machine": platform.machine()}


def _command_line(argv=None):
    argv = list(sys.argv if argv is None else argv)
    if argv and os.path.basename(argv[0]) == "__main__.py" and \
            os.path.basename(os.path.dirname(argv[0])) == "spbfs":
        argv[0:1] = ["python", "-m", "spbfs"]
    elif argv:
        argv[0] = os.path.basename(argv[0])
    return shlex.join(argv)


def git_commit(path=None):
    """The git commit of the checkout that holds the spbfs package, or None.

    Parameters
    ----------
    path : str or path-like, optional
        A folder of a checkout (default: the folder of the running ``spbfs`` package).

    Returns
    -------
    str or None
        The full hash of ``HEAD``, when ``path`` is a folder tracked in a git checkout and
        ``git`` runs; None otherwise (an installed copy, a folder git ignores, such as a
        virtual environment inside a checkout, no ``git`` program, a broken repository).
        Never raises. Changes not committed are not reported: the hash names the commit
        the working tree started from.

    Examples
    --------
    >>> import tempfile
    >>> git_commit(tempfile.mkdtemp()) is None
    True
    """
    if path is None:
        path = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        path = os.fspath(path)
        if not os.path.isdir(path):
            return None
        # the folder must be part of the checkout, not a folder it ignores (site-packages
        # of a virtual environment that lies inside some repository)
        tracked = subprocess.run(["git", "-C", path, "ls-files", "--", "."],
                                 capture_output=True, text=True, timeout=10)
        if tracked.returncode != 0 or not tracked.stdout.strip():
            return None
        head = subprocess.run(["git", "-C", path, "rev-parse", "--verify", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, ValueError, TypeError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    if head.returncode != 0 or len(commit) not in (40, 64) or \
            any(c not in "0123456789abcdef" for c in commit):
        return None
    return commit


def environment(device, argv=None):
    """Where and when a run happened: device, versions, hostname, date, command line, commit.

    Parameters
    ----------
    device : {"cpu", "gpu"}
        See :func:`device_info`.
    argv : list of str, optional
        The command line (default ``sys.argv``; ``.../spbfs/__main__.py`` is written as
        ``python -m spbfs``).

    Returns
    -------
    dict
        ``device``, ``versions`` (numba's among them), ``hostname``, ``platform``, ``date``
        (UTC, ISO 8601), ``command`` and ``commit`` (:func:`git_commit` of the running
        package: None outside a git checkout).

    Examples
    --------
    >>> env = environment("cpu", argv=["/usr/bin/spbfs", "graph500", "--scale", "8"])
    >>> env["command"], env["device"]["kind"]
    ('spbfs graph500 --scale 8', 'cpu')
    """
    return {
        "device": device_info(device),
        "versions": versions(),
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": _command_line(argv),
        "commit": git_commit(),
    }


def _plain(x):
    """JSON-ready copy: numpy scalars and arrays as Python values, non-finite floats None."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        x = float(x)
        return x if math.isfinite(x) else None
    return x


def document(stats, searches, parameters, env, *, direction_source, failed=0):
    """Assemble a results document (:data:`SCHEMA`; see the module description).

    Parameters
    ----------
    stats : dict
        The printed statistics (:func:`spbfs.graph500.summarize`, plus any ``dist_*``
        entries); keys that are not part of the block (``failed_roots``) are left out.
    searches : list of dict
        One record per timed search (``root``, ``time``, ``nedge``, ``validation``,
        ``failures``, optionally ``level_vertices`` and ``level_directions``); ``TEPS``,
        ``reached`` and ``depth`` are added.
    parameters : dict
        The run's parameters.
    env : dict
        :func:`environment`.
    direction_source : {"trace", "dist"}
    failed : int
        Number of searches that failed validation (for the summary line).

    Returns
    -------
    dict
        JSON-ready (plain Python values, ``None`` for non-finite numbers).

    Examples
    --------
    >>> from spbfs.graph500 import summarize
    >>> stats = summarize(8, 16, 0.1, [0.5, 0.25], [100, 100], True)
    >>> runs = [{"root": 3, "time": 0.5, "nedge": 100, "validation": "passed"},
    ...         {"root": 5, "time": 0.25, "nedge": 100, "validation": "passed"}]
    >>> doc = document(stats, runs, {"scale": 8}, {}, direction_source="trace")
    >>> [s["TEPS"] for s in doc["searches"]], round(doc["result"]["harmonic_mean_TEPS"], 3)
    ([200.0, 400.0], 266.667)
    >>> doc["summary"]
    '2 searches, 2 validated, harmonic mean 2.667e-07 GTEPS'
    """
    records = []
    for s in searches:
        rec = dict(s)
        rec["TEPS"] = rec["nedge"] / rec["time"]
        rec.setdefault("failures", {})
        if "level_vertices" in rec:
            rec["reached"] = int(sum(rec["level_vertices"]))
            rec["depth"] = len(rec["level_vertices"]) - 1
        records.append(rec)
    result = {k: v for k, v in stats.items() if k != "failed_roots"}
    return _plain({
        "schema": SCHEMA,
        "result": result,
        "summary": summary_line(stats, failed),
        "parameters": parameters,
        "searches": records,
        "direction_source": direction_source,
        "environment": env,
    })


def write_json(path, doc):
    """Write a results document as indented JSON (strict: no NaN or infinity).

    Parameters
    ----------
    path : str or path-like
    doc : dict
        :func:`document`.

    Returns
    -------
    str
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> write_json(path, {"schema": SCHEMA, "result": {"stddev_time": float("nan")}}) == path
    True
    >>> read_json(path)["result"]
    {'stddev_time': None}
    """
    text = json.dumps(_plain(doc), indent=1, allow_nan=False)
    with open(path, "w") as f:
        f.write(text + "\n")
    return path


def read_json(path):
    """Read a results document written by :func:`write_json`.

    Raises
    ------
    ValueError
        If the file is not a results document (no ``"schema"`` of this kind).

    Examples
    --------
    >>> import os, tempfile
    >>> path = write_json(os.path.join(tempfile.mkdtemp(), "r.json"), {"schema": SCHEMA})
    >>> read_json(path)["schema"] == SCHEMA
    True
    """
    with open(path) as f:
        doc = json.load(f)
    schema = doc.get("schema", "") if isinstance(doc, dict) else ""
    if not str(schema).startswith(SCHEMA.rsplit("/", 1)[0]):
        raise ValueError(f"{path}: not a spbfs graph500 results file (schema {schema!r})")
    return doc
