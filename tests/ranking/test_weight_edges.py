"""ROC AUC and average precision at the edges of their weights, as scikit-learn.

Each row once differed: negative weights that cancel a class's positives (AP
is then the precision at the highest threshold, and never negative), weights
that are all zero (scikit-learn meets them late, per label: a value, NaN, a
ValueError or a ZeroDivisionError by ``average``), a one-class ``y_true`` with
two score columns, and ``max_fpr`` where the negatives weigh nothing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix

Y = np.array([0, 1, 1, 0])
S = np.array([0.1, 0.8, 0.3, 0.5])
Y_ML = np.array([[1, 0], [0, 1], [1, 1]])
Y_ML_ONE = np.array([[1, 0], [1, 0], [1, 0]])
S_ML = np.array([[0.2, 0.8], [0.5, 0.5], [0.1, 0.9]])
Y_MC = np.array([0, 1, 2, 1])
P_MC = np.array([[.5, .3, .2], [.2, .5, .3], [.1, .1, .8], [.3, .4, .3]])
AVERAGES = ["micro", "macro", "samples", "weighted", None]

ROWS = [
    ("average_precision_score", (Y, S), {"sample_weight": np.array([1.0, -1, 1, 1])}),
    ("average_precision_score", (Y, S), {"sample_weight": np.array([1.0, -1, -1, 1])}),
    ("average_precision_score", (np.array([1, 0, 0, 1]), S),
     {"sample_weight": np.array([-0.5, 1, 2, 1])}),                      # AP < 0: clipped
    ("roc_auc_score", (np.array([1, 1, 1]), S_ML), {}),                  # one class, 2 columns
    ("roc_auc_score", (np.array([1, 1, 1]), S[:3]), {"sample_weight": np.zeros(3)}),
    ("average_precision_score", (Y, S), {"sample_weight": np.zeros(4)}),
    ("roc_auc_score", (Y, S), {"sample_weight": np.array([0.0, 1, 1, 0]), "max_fpr": 0.5}),
    ("roc_auc_score", (Y, S), {"sample_weight": np.array([0.0, 1, 1, 0]), "max_fpr": 1.0}),
    *[(name, (Y_ML, S_ML), {"sample_weight": np.zeros(3), "average": avg})
      for name in ("roc_auc_score", "average_precision_score") for avg in AVERAGES],
    *[("roc_auc_score", (Y_ML_ONE, S_ML), {"sample_weight": np.zeros(3), "average": avg})
      for avg in AVERAGES],
    *[("average_precision_score", (Y_MC, P_MC), {"sample_weight": np.zeros(4), "average": avg})
      for avg in AVERAGES],
    *[("roc_auc_score", (Y_MC, P_MC), {"sample_weight": np.zeros(4), "average": avg,
                                       "multi_class": "ovr"}) for avg in AVERAGES],
]


def _outcome(fn, args, kw):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            value = fn(*args, **kw)
        except (ValueError, ZeroDivisionError) as exc:
            return type(exc), None, set()
    return None, np.asarray(value, dtype=float), {str(w.message) for w in rec
                                                  if not issubclass(w.category, RuntimeWarning)}


@pytest.mark.parametrize("name, args, kw", ROWS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ROWS)])
def test_same_outcome_as_sklearn(name, args, kw):
    want_exc, want, want_warn = _outcome(getattr(skm, name), args, kw)
    got_exc, got, got_warn = _outcome(getattr(metrix, name), args, kw)
    assert got_exc is want_exc
    if want_exc is None:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert got_warn == want_warn


def test_ap_cancelled_positives_is_the_top_precision():
    # positives weigh -1 + 1 = 0: recall is one everywhere, the top threshold
    # (score 0.8, one positive of weight -1) has precision -1 / -1 = 1
    with pytest.warns(UserWarning, match="No positive class found"):
        ap = metrix.average_precision_score(Y, S, sample_weight=np.array([1.0, -1, 1, 1]))
    assert float(ap) == 1.0
