"""Classification metrics.

* :mod:`.confusion`: the confusion-matrix family (confusion matrices,
  accuracy, precision / recall / F-beta);
* :mod:`.agreement`: metrics read off the confusion matrix (Jaccard, MCC,
  kappa, balanced accuracy, likelihood ratios, error rates);
* :mod:`.probabilistic`: log loss, Brier score, hinge loss, D^2;
* :mod:`.calibration`: the reliability curve and the calibration error;
* :mod:`.report`: ``classification_report``.

Label inputs are prepared by :mod:`._input` (validation, encoding by
:mod:`._encoding`, the statistic of :mod:`._statistic`); probabilities by
:mod:`._proba_input`.
"""

from . import agreement, calibration, confusion, probabilistic, report
from .agreement import *  # noqa: F401,F403
from .calibration import *  # noqa: F401,F403
from .confusion import *  # noqa: F401,F403
from .probabilistic import *  # noqa: F401,F403
from .report import *  # noqa: F401,F403

__all__ = [*confusion.__all__, *agreement.__all__, *probabilistic.__all__, *calibration.__all__,
           *report.__all__]
