"""Pairwise distances of a block of rows against all rows, as scikit-learn computes them.

A :class:`Distances` object is made once per call (row norms, normalised or
centred copies of ``X``); ``block(start, stop)`` then returns the
``(stop - start, N)`` distances of rows ``start:stop`` to every row.  The
silhouette reads the distance matrix one such block at a time, so the
``N x N`` matrix never exists.

* ``"euclidean"`` / ``"l2"``: ``sqrt(max(||x||^2 - 2 x.y + ||y||^2, 0))``,
  scikit-learn's ``euclidean_distances`` expansion, summed in its order
  (``-2`` folded into the matmul's right operand: the same bits).
  float32 data are centred first (distances do not move; the expansion then
  cancels far less), where scikit-learn upcasts to float64 in chunks.
* ``"sqeuclidean"``: the same expansion on centred data, unsquared.
* ``"cosine"``: ``clip(1 - x.y / (||x|| ||y||), 0, 2)``, rows of norm below
  ``10 eps`` left unscaled (scikit-learn's ``normalize``).
* ``"manhattan"`` / ``"cityblock"`` / ``"l1"``, ``"chebyshev"``, ``"minkowski"``
  (``p``): from the ``(B, N, D)`` differences, ``B`` kept small.
* ``"precomputed"``: the rows of ``X`` itself.
"""

from __future__ import annotations

import math

from .._core.namespace import device_of
from ..backends import ops

__all__ = ["EXPANSION_METRICS", "BROADCAST_METRICS", "SUPPORTED_METRICS", "Distances"]

EXPANSION_METRICS = frozenset({"euclidean", "l2", "sqeuclidean", "cosine"})
BROADCAST_METRICS = frozenset({"manhattan", "cityblock", "l1", "chebyshev", "minkowski"})
SUPPORTED_METRICS = EXPANSION_METRICS | BROADCAST_METRICS | {"precomputed"}

#: the keyword arguments each metric takes (scikit-learn passes ``**kwds`` on)
_METRIC_KWDS = {"minkowski": {"p"}}
#: the scikit-learn function named in the error for an unknown keyword argument
_FUNCTION_NAMES = {"euclidean": "euclidean_distances", "l2": "euclidean_distances",
                   "cosine": "cosine_distances", "manhattan": "manhattan_distances",
                   "cityblock": "manhattan_distances", "l1": "manhattan_distances"}


def check_metric_kwds(metric, kwds):
    """Raise scikit-learn's ``TypeError`` for a keyword the distance does not take."""
    if metric == "precomputed":
        return
    allowed = _METRIC_KWDS.get(metric, set())
    for key in kwds:
        if key not in allowed:
            name = _FUNCTION_NAMES.get(metric, "cdist")
            raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")


class Distances:
    """Blocks of the distance matrix of ``X`` (see the module docstring).

    ``X`` is 2-D and already of the working float dtype (or, for
    ``"precomputed"``, the square distance matrix in that dtype).
    ``zero_self``: whether the distance of a row to itself is exactly zero
    (every metric but ``"precomputed"``): :meth:`self_distances` then gives
    the value the block holds there, for the caller to subtract.
    """

    def __init__(self, X, metric, *, xp, p=2):
        self.xp = xp
        self.metric = metric
        self.n = X.shape[0]
        self.zero_self = metric != "precomputed"
        if metric in ("euclidean", "l2", "sqeuclidean"):
            if metric == "sqeuclidean" or X.dtype != xp.float64:
                X = X - xp.mean(X, axis=0, keepdims=True)
            self.sq = xp.sum(X * X, axis=1)
        elif metric == "cosine":
            norms = xp.sqrt(xp.sum(X * X, axis=1))
            eps = xp.finfo(X.dtype).eps
            norms = xp.where(norms < 10 * eps, xp.ones_like(norms), norms)
            X = X / norms[:, None]
        self.p = p
        self.X = X
        self.XT = None
        if metric in EXPANSION_METRICS:
            self.XT = xp.permute_dims(X, (1, 0))
            if metric != "cosine":  # x.(-2 y) is -2 (x.y) bit for bit: one pass saved
                self.XT = -2.0 * self.XT

    def rows_per_block(self, budget_bytes: int) -> int:
        """How many rows a block of about ``budget_bytes`` holds (at least 1).

        The expansion metrics hold about three ``B x N`` temporaries at once,
        the broadcast ones two ``B x N x D``.
        """
        item = 4 if self.X.dtype == self.xp.float32 else 8
        per_row = self.n * item * 3
        if self.metric in BROADCAST_METRICS:
            per_row = self.n * self.X.shape[1] * item * 2
        return int(max(1, min(self.n, budget_bytes // max(per_row, 1))))

    def block(self, start: int, stop: int):
        """Distances of rows ``start:stop`` to every row, ``(stop - start, N)``."""
        xp, X, metric = self.xp, self.X, self.metric
        Xb = X[start:stop, ...]
        if metric == "precomputed":
            return Xb
        if metric == "cosine":
            return xp.clip(1.0 - Xb @ self.XT, 0.0, 2.0)
        if metric in EXPANSION_METRICS:
            return ops(xp).expansion_distances(Xb, self.XT, self.sq[start:stop], self.sq,
                                               squared=metric == "sqeuclidean")
        diff = xp.abs(Xb[:, None, :] - X[None, :, :])
        p = self.p
        if metric == "chebyshev" or (metric == "minkowski" and math.isinf(p)):
            return xp.max(diff, axis=2)
        if metric != "minkowski" or p == 1:
            return xp.sum(diff, axis=2)
        return xp.sum(diff ** p, axis=2) ** (1.0 / p)

    def self_distances(self, D, start: int):
        """The entries ``D[i, start + i]`` of a block ``D`` (the rows' own distances)."""
        xp = self.xp
        b, n = D.shape
        idx = xp.arange(b, device=device_of(D)) * (n + 1) + start
        return xp.take(xp.reshape(D, (-1,)), idx)
