"""Top-k metrics for multilabel classification and recommendation (:mod:`.at_k`),
with ragged per-query inputs (:mod:`._queries`)."""

from . import at_k
from .at_k import *  # noqa: F401,F403

__all__ = list(at_k.__all__)
