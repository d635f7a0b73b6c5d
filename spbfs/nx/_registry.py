"""The table of dispatched NetworkX functions: adding one is one decorated function.

Each entry is the backend's implementation (same signature as the NetworkX
function), an optional ``can_run(arguments)`` check returning ``True`` or a
string saying why the call must fall back to NetworkX, and the text NetworkX
adds to the function's documentation under "Backends".
"""

from __future__ import annotations

import functools
import gc
import inspect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entry:
    """One dispatched function."""

    func: object
    signature: inspect.Signature
    can_run: object = None
    docs: str = ""
    parameters: dict = field(default_factory=dict)


FUNCTIONS: dict[str, Entry] = {}


def dispatched(name=None, *, can_run=None, docs="", parameters=None):
    """Register the decorated function as the backend's ``name`` (default: its own name).

    ``can_run(arguments)`` gets the bound arguments (a dict with defaults
    applied) and returns ``True`` or a string naming what it cannot match, in
    which case NetworkX runs its own implementation.

    Examples
    --------
    >>> from spbfs.nx._registry import FUNCTIONS
    >>> "bfs_edges" in FUNCTIONS
    True
    """

    def register(func):
        key = name or func.__name__
        FUNCTIONS[key] = Entry(gc_paused(func), inspect.signature(func), can_run, docs,
                               parameters or {})
        return func

    return register


def gc_paused(func):
    """``func`` with Python's cyclic garbage collector paused while it runs (generator
    functions are left as they are: the caller runs between their yields).

    Results are built of many new containers (a dict of paths, of floats...); each
    collection they trigger would walk every object alive, the caller's NetworkX graph
    included, which on a large graph costs more than the algorithm.

    Examples
    --------
    >>> import gc
    >>> gc_paused(gc.isenabled)(), gc.isenabled()
    (False, True)
    """
    if inspect.isgeneratorfunction(func):
        return func

    @functools.wraps(func)
    def call(*args, **kwargs):
        if not gc.isenabled():
            return func(*args, **kwargs)
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            gc.enable()

    return call


def not_supported(**rules):
    """A ``can_run`` that declines when an argument differs from the given value.

    ``not_supported(sort_neighbors=None)`` declines any call passing
    ``sort_neighbors`` other than None.
    """

    def check(arguments):
        for key, allowed in rules.items():
            if arguments.get(key) is not allowed:
                return f"{key}={arguments.get(key)!r} is not supported"
        return True

    return check
