"""Regression metrics: weighted sums per output (one pass), medians and
quantiles from one sort; correlations from centred moments and ranks; inputs
checked by :mod:`._input`."""

from . import correlation, scores
from .correlation import *  # noqa: F401,F403
from .scores import *  # noqa: F401,F403

__all__ = list(scores.__all__) + list(correlation.__all__)
