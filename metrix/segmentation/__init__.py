"""Segmentation metrics: IoU, Dice and pixel accuracy of label maps.

Each reads one confusion count over all pixels (:mod:`.metrics`).
"""

from . import metrics
from .metrics import *  # noqa: F401,F403

__all__ = list(metrics.__all__)
