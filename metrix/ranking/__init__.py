"""Ranking metrics: curves, their areas, label rankings and top-k accuracy.

* :mod:`.curves`: ROC, precision-recall and DET curves (exact or binned);
* :mod:`.thresholds`: confusion counts, or any metric, at every threshold;
* :mod:`.scores`: ``auc``, ``roc_auc_score``, ``average_precision_score``
  and the label-ranking metrics;
* :mod:`.label_ranking`: per-sample rankings (top-k accuracy, DCG / NDCG,
  coverage, label ranking loss and precision).

All read one statistic, :mod:`._statistic` (one sort, tie groups); inputs
are prepared by :mod:`._input`; :mod:`._averaging` averages binary scores
over rows.
"""

from . import scores
from .scores import *  # noqa: F401,F403
from .thresholds import (
    confusion_matrix_at_thresholds,
    metric_at_thresholds,
    precision_at_fixed_recall,
    recall_at_fixed_precision,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
)

__all__ = [*scores.__all__, "confusion_matrix_at_thresholds", "metric_at_thresholds",
           "precision_at_fixed_recall", "recall_at_fixed_precision",
           "sensitivity_at_specificity", "specificity_at_sensitivity"]
