"""Many metrics in one pass (:mod:`.one_pass`: ``evaluate``) and bootstrap
confidence intervals (:mod:`.intervals`, batched by :mod:`._batched_paths`)."""

from . import intervals, one_pass
from .intervals import *  # noqa: F401,F403
from .one_pass import *  # noqa: F401,F403

__all__ = [*one_pass.__all__, *intervals.__all__]
