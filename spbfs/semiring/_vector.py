"""Vectors for the semiring operators: sparse (indices) or bitmap (dense) format."""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module


class Vector:
    """A vector of length ``size`` in one of two formats.

    * ``"sparse"``: sorted, unique ``indices`` and their ``values``; drives
      push (SpMSpV) in :func:`~spbfs.semiring.vxm`.
    * ``"bitmap"``: a boolean ``present`` array of length ``size`` and a
      dense ``values`` array; drives pull (masked SpMV).

    Arrays stay in their array module (numpy or cupy); nothing is copied.  A bitmap vector
    made by an operation may also know ``absent``: the value its ``values`` hold at every
    absent position (``to_dense`` with that fill is then a copy).

    Examples
    --------
    >>> from spbfs.semiring import Vector
    >>> v = Vector.sparse([3, 1], [30, 10], size=5)
    >>> v.indices, v.values
    (array([1, 3]), array([10, 30]))
    >>> b = v.to_bitmap()
    >>> b.present
    array([False,  True, False,  True, False])
    >>> b.to_sparse().indices
    array([1, 3])
    """

    __slots__ = ("size", "format", "indices", "values", "present", "absent")

    def __init__(self, size, fmt, *, indices=None, values=None, present=None, absent=None):
        self.size = int(size)
        self.format = fmt
        self.indices = indices
        self.values = values
        self.present = present
        self.absent = absent

    @classmethod
    def sparse(cls, indices, values=None, *, size, sort=True, check=True):
        """Build a sparse vector; ``values`` default to ``True``.

        Indices must be unique; they are sorted unless ``sort=False`` is given
        by a caller that knows they already are, and checked to lie in ``[0, size)``
        unless ``check=False`` is given by one that knows they do (the check reads
        the indices' bounds on the host).
        """
        xp = array_module(indices, values)
        indices = xp.asarray(indices)
        if indices.dtype.kind not in "iu":
            if indices.size:
                raise TypeError(f"indices must be integers, got dtype {indices.dtype}")
            indices = indices.astype(np.int64)
        values = xp.ones(indices.shape, bool) if values is None else xp.asarray(values)
        if values.shape != indices.shape:
            raise ValueError(
                f"values must have the shape of indices, {values.shape} != {indices.shape}"
            )
        if check and indices.size and (int(indices.min()) < 0 or int(indices.max()) >= size):
            raise ValueError(f"indices must lie in [0, {size})")
        if sort and indices.size > 1:
            order = xp.argsort(indices, kind="stable")
            indices, values = indices[order], values[order]
        return cls(size, "sparse", indices=indices, values=values)

    @classmethod
    def bitmap(cls, present, values=None):
        """Build a bitmap vector from a boolean ``present`` array.

        ``values`` default to ``present`` itself (a boolean vector).
        """
        xp = array_module(present, values)
        present = xp.asarray(present)
        if present.dtype != bool:
            raise TypeError(f"present must be a boolean array, got dtype {present.dtype}")
        values = present if values is None else xp.asarray(values)
        if values.shape != present.shape:
            raise ValueError("values must have the shape of present")
        return cls(present.size, "bitmap", present=present, values=values)

    @classmethod
    def full(cls, values):
        """A dense vector with every entry present."""
        xp = array_module(values)
        values = xp.asarray(values)
        return cls(values.size, "bitmap", present=xp.ones(values.shape, bool), values=values)

    @property
    def dtype(self):
        """dtype of the stored values."""
        return self.values.dtype

    @property
    def nvals(self) -> int:
        """Number of stored entries."""
        if self.format == "sparse":
            return int(self.indices.size)
        return int(self.present.sum())

    def to_sparse(self) -> Vector:
        """This vector in sparse format (no copy if it already is)."""
        if self.format == "sparse":
            return self
        xp = array_module(self.present)
        if getattr(xp, "distributed", False):   # distributed vectors stay in bitmap form
            return self
        idx = xp.flatnonzero(self.present)
        return Vector(self.size, "sparse", indices=idx, values=self.values[idx])

    def to_bitmap(self) -> Vector:
        """This vector in bitmap format (no copy if it already is)."""
        if self.format == "bitmap":
            return self
        xp = array_module(self.indices)
        present = xp.zeros(self.size, bool)
        present[self.indices] = True
        values = xp.zeros(self.size, self.values.dtype)
        values[self.indices] = self.values
        return Vector(self.size, "bitmap", present=present, values=values, absent=0)

    def to_dense(self, fill=0):
        """Dense array with ``fill`` where no entry is stored.

        Examples
        --------
        >>> Vector.sparse([2], [7], size=4).to_dense(-1)
        array([-1, -1,  7, -1])
        >>> import numpy as np
        >>> Vector(3, "bitmap", present=np.array([True, False, True]),
        ...        values=np.array([1.0, 0.0, 2.0]), absent=0.0).to_dense()
        array([1., 0., 2.])
        """
        xp, dtype = array_module(self.values), self.values.dtype
        value = np.asarray(fill, dtype=dtype)[()]  # a host scalar of the values' dtype
        if self.format == "sparse":
            out = xp.full(self.size, value, dtype)
            out[self.indices] = self.values
            return out
        if self.absent is not None and _same_value(self.absent, value):
            return self.values.copy()
        fill = xp.asarray(value, dtype=dtype)
        return xp.where(self.present, self.values, fill)

    def __repr__(self) -> str:
        return f"Vector(size={self.size}, nvals={self.nvals}, format={self.format!r})"


def _same_value(a, value) -> bool:
    """Whether ``a`` cast to the dtype of the numpy scalar ``value`` is ``value``, bit for bit
    (``-0.0`` is not ``0.0``; NaN is NaN)."""
    return np.asarray(a, dtype=value.dtype).tobytes() == np.asarray(value).tobytes()
