"""The backend's settings, ``nx.config.backends.spbfs``, and the device they select."""

from __future__ import annotations

import os

from networkx.utils.configs import Config

from ..core.arrays import gpu_available as core_gpu_available
from ..core.arrays import require_gpu

DEVICES = ("auto", "cpu", "gpu")


class SpbfsConfig(Config):
    """Settings of the ``spbfs`` NetworkX backend (``nx.config.backends.spbfs``).

    Attributes
    ----------
    device : {"auto", "cpu", "gpu"}
        Where the graph algorithms run (initially ``$SPBFS_NX_DEVICE`` or
        ``"auto"``).  ``"auto"`` uses the GPU when CuPy
        sees one and the graph has at least ``gpu_min_edges`` stored edges,
        else the CPU.  ``"gpu"`` raises if no GPU is usable.
    gpu_min_edges : int
        Smallest graph (stored adjacency entries) that ``"auto"`` sends to the GPU.
    min_nodes : int
        Automatic dispatch (``nx.config.backend_priority``) converts graphs
        with at least this many nodes; smaller ones run in NetworkX, which is
        faster there.  A ``backend="spbfs"`` call always runs here.

    Examples
    --------
    >>> import networkx as nx
    >>> cfg = nx.config.backends.spbfs
    >>> cfg.device
    'auto'
    >>> with cfg(device="cpu"):
    ...     cfg.device
    'cpu'
    >>> cfg.device = "tpu"
    Traceback (most recent call last):
        ...
    ValueError: nx.config.backends.spbfs.device must be one of ('auto', 'cpu', 'gpu'), got 'tpu'
    """

    device: str
    gpu_min_edges: int
    min_nodes: int

    def _on_setattr(self, key, value):
        if key == "device":
            if value not in DEVICES:
                raise ValueError(f"nx.config.backends.spbfs.device must be one of {DEVICES}, "
                                 f"got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"nx.config.backends.spbfs.{key} must be a non-negative int, "
                             f"got {value!r}")
        return value


def default_config() -> SpbfsConfig:
    """The settings a fresh ``import networkx`` starts with.

    ``device`` starts as the environment variable ``SPBFS_NX_DEVICE`` where
    it is set (handy for running NetworkX's test suite on the GPU).
    """
    return SpbfsConfig(device=os.environ.get("SPBFS_NX_DEVICE", "auto"),
                       gpu_min_edges=1 << 20, min_nodes=1000)


def config():
    """The live settings (a default copy if NetworkX has not registered the backend)."""
    import networkx as nx

    cfg = getattr(getattr(nx, "config", None), "backends", None)
    cfg = getattr(cfg, "spbfs", None) if cfg is not None else None
    return cfg if cfg is not None else default_config()


_gpu_state: list = []


def gpu_available() -> bool:
    """True when CuPy imports and sees a CUDA device (checked once:
    :func:`spbfs.core.arrays.gpu_available`)."""
    if not _gpu_state:
        _gpu_state.append(core_gpu_available())
    return _gpu_state[0]


def use_gpu(nnz: int) -> bool:
    """Whether a graph with ``nnz`` stored entries runs on the GPU under the settings."""
    cfg = config()
    if cfg.device == "cpu":
        return False
    if cfg.device == "gpu":
        if not gpu_available():
            require_gpu("nx.config.backends.spbfs.device is 'gpu'")
        return True
    return nnz >= cfg.gpu_min_edges and gpu_available()
