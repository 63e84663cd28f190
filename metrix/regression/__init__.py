"""Regression metrics: weighted sums per output (one pass), medians and
quantiles from one sort; inputs checked by :mod:`._input`."""

from . import scores
from .scores import *  # noqa: F401,F403

__all__ = list(scores.__all__)
