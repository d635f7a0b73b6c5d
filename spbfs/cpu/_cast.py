"""``like(out, value)``: ``value`` as ``out``'s element type, in compiled code.

A generated kernel casts each product to its output's dtype before the monoid folds it,
so products wrap, round or truncate as numpy's operator in that dtype (and as the GPU's
kernels, whose products are cast to the output type): numba computes ``int8 + int8`` in
``int64``, and a ``max`` of untruncated sums picks another entry than a ``max`` of the
``int8`` ones.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload
from numba.np.numpy_support import as_dtype

__all__ = ["like"]


def like(out, value):
    """``value`` cast to the element type of array ``out`` (numpy's cast).

    Examples
    --------
    >>> import numpy as np
    >>> like(np.zeros(1, np.int8), 200)
    np.int8(-56)
    """
    return np.asarray(value).astype(out.dtype)[()]


@overload(like, inline="always")
def _like(out, value):
    kind = as_dtype(out.dtype).type

    def cast(out, value):
        return kind(value)
    return cast
