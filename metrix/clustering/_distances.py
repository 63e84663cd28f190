"""The silhouette's distances: the row-block machinery of :mod:`metrix.pairwise`
(:class:`~metrix.pairwise._blocks.Distances`, one block of ``B x N`` distances
at a time, so the ``N x N`` matrix never exists) and scikit-learn's check of
the keyword arguments a distance takes.
"""

from __future__ import annotations

from ..pairwise._blocks import (
    BROADCAST_METRICS,
    EXPANSION_METRICS,
    SUPPORTED_METRICS,
    Distances,
    check_metric_kwds,
)

__all__ = ["EXPANSION_METRICS", "BROADCAST_METRICS", "SUPPORTED_METRICS", "Distances",
           "check_metric_kwds"]
