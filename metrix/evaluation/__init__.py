"""Many metrics in one pass (:mod:`.one_pass`: ``evaluate``), bootstrap
confidence intervals (:mod:`.intervals`, batched by :mod:`._batched_paths`) and
scikit-learn scorers computing with metrix (:mod:`.scorers`)."""

from . import intervals, one_pass, scorers
from .intervals import *  # noqa: F401,F403
from .one_pass import *  # noqa: F401,F403
from .scorers import *  # noqa: F401,F403

__all__ = [*one_pass.__all__, *intervals.__all__, *scorers.__all__]
