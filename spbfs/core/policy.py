"""Beamer's direction rule, and its state over a search's levels for an engine stepped from
the host (:meth:`spbfs.core.seam.LevelSearch.advance_auto`)."""

from __future__ import annotations

__all__ = ["HostPolicy", "beamer_pull"]


def beamer_pull(pulling, nf, prev_nf, mf, unexplored_edges, n, alpha, beta) -> bool:
    """Beamer's rule: whether the next level pulls.  Push -> pull when the frontier's
    out-edges ``mf`` exceed ``unexplored_edges / alpha`` and the frontier grows
    (``nf > prev_nf``); pull -> push when it has fewer than ``n / beta`` vertices.

    Examples
    --------
    >>> beamer_pull(False, 3, 1, 9, 30, 100, 2.0, 18.0)
    False
    >>> beamer_pull(False, 3, 1, 16, 30, 100, 2.0, 18.0)
    True
    """
    if pulling:
        return nf >= n / beta
    return mf > unexplored_edges / alpha and nf > prev_nf


class HostPolicy:
    """Beamer's rule over the levels of one search on ``n`` vertices and ``edges`` arcs,
    fed with :meth:`~spbfs.core.seam.LevelSearch.sizes` entries: :meth:`decide` takes the
    entries of the current level (the found vertices of a level may arrive in several
    entries: the level's own, then what other ranks found) and says whether the next level
    pulls (``direction`` "push" or "pull" fix it); :meth:`found` takes the new level's own
    entries.

    Examples
    --------
    >>> p = HostPolicy(100, 400, "auto", 15.0, 18.0)
    >>> p.decide([(1, 3, 3)]), p.found([(40, 300, 300)]), p.decide([]), p.directions
    (False, 40, True, ['push', 'pull'])
    """

    def __init__(self, n, edges, direction, alpha, beta):
        self.n, self.unexplored, self.direction = n, edges, direction
        self.alpha, self.beta = alpha, beta
        self.nf = self.mf = self.prev_nf = 0
        self.pulling = direction == "pull"
        self.directions = []

    def _add(self, entries):
        for found, out_edges, in_edges in entries:
            self.nf += found
            self.mf += out_edges
            self.unexplored -= in_edges

    def decide(self, entries) -> bool:
        """Whether the next level pulls, once ``entries`` complete the current one."""
        self._add(entries)
        if self.direction == "auto" and self.directions:
            self.pulling = beamer_pull(self.pulling, self.nf, self.prev_nf, self.mf,
                                       self.unexplored, self.n, self.alpha, self.beta)
        self.directions.append("pull" if self.pulling else "push")
        self.prev_nf, self.nf, self.mf = self.nf, 0, 0
        return self.pulling

    def found(self, entries) -> int:
        """The new level's own entries; returns its vertices found so far."""
        self._add(entries)
        return self.nf
