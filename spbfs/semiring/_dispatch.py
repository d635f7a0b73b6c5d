"""Operands that carry their own implementation of the operations (distributed ones).

An object with ``__spbfs_algebra__()`` (a distributed graph, matrix or vertex array, or a
Vector holding such arrays) names the module that implements the semiring operations on
it; the operations hand such operands over to it.  The algebra imports nothing of it.
"""

from __future__ import annotations

from ._vector import Vector


def distributed(*operands):
    """The algebra of the first operand that carries one, else None.

    Examples
    --------
    >>> import numpy as np
    >>> distributed(np.arange(3), None) is None
    True
    """
    for x in operands:
        if isinstance(x, Vector):
            x = x.values
        hook = getattr(x, "__spbfs_algebra__", None)
        if hook is not None:
            return hook()
    return None
