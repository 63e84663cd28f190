"""Conformance rows: ``evaluate`` and ``bootstrap``.

``evaluate``: the dict of every requested metric equals scikit-learn's
metrics called one by one (values, order of the keys, warnings).

``bootstrap``: what metrix promises (``docs/guide/bootstrap.md``): the same
``random_state`` gives the same interval on the same backend and device (not
across backends: each draws from its own generator), the result has the
metric's shape and float dtype on the inputs' device, and the interval is the
percentile / basic / BCa interval of a paired bootstrap.  Each row runs the
bootstrap twice with one seed (the same bounds), checks that the interval
holds the full-data value, which equals scikit-learn's, and compares the
bounds and the standard error with ``scipy.stats.bootstrap(paired=True)`` of
the scikit-learn metric, within Monte Carlo error.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
from sklearn import metrics as skm

import metrix
from conformance.registry import Case
from conformance.util import assert_close, to_numpy

rng = np.random.default_rng(20261208)

N = 120
MC_T = rng.integers(0, 4, N)
MC_P = np.where(rng.random(N) < 0.6, MC_T, rng.integers(0, 4, N))
MC_PROBA = rng.dirichlet(np.ones(4), N)
BIN_T = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN_T, 1 - BIN_T)
BIN_SCORE = np.clip(np.round(0.35 * BIN_T + 0.65 * rng.random(N), 2), 0.01, 0.99)  # ties
ML_T = (rng.random((N, 3)) < 0.4).astype(np.int64)
ML_P = (rng.random((N, 3)) < 0.4).astype(np.int64)
W = rng.random(N)
ABSENT_P = np.where(MC_P == 3, 0, MC_P)             # class 3 never predicted
STR = np.array(["no", "yes"])
Y = rng.normal(size=N) + 3.0
Y_PRED = Y + 0.4 * rng.normal(size=N)

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


#: probabilities rounded to float32 no longer sum to one in scikit-learn's eyes:
#: the reference reads the float64 ones (as ``cases_probabilistic.py``)
PROBA = {"float32_reference": False}
#: label metrics of integer labels are float64 and score metrics take the scores'
#: float dtype, each as the single metric: one dict holds both
MIXED = {"check_dtype": False}


# -- evaluate -------------------------------------------------------------------------

_BASE = {"precision": skm.precision_score, "recall": skm.recall_score, "f1": skm.f1_score,
         "jaccard": skm.jaccard_score}
_AVERAGES = ("micro", "macro", "weighted", "samples")
_DEFAULT = ("accuracy", "balanced_accuracy", "precision_macro", "recall_macro", "f1_macro",
            "matthews_corrcoef", "cohen_kappa")
_DEFAULT_PROBA = ("log_loss", "brier_score_loss")


def _one(name, y_true, y_pred, y_score, labels, w, pos_label, zero_division):
    """scikit-learn's value of one ``evaluate`` name."""
    proba = name in ("log_loss", "brier_score_loss", "d2_log_loss_score", "d2_brier_score",
                     "roc_auc", "average_precision")
    if (y_score if proba else y_pred) is None:
        raise ValueError(f"{name} needs {'y_score' if proba else 'y_pred'}")
    base, _, average = name.rpartition("_")
    if base in _BASE and average in _AVERAGES:
        return _BASE[base](y_true, y_pred, average=average, labels=labels, sample_weight=w,
                           zero_division=zero_division)
    if name in _BASE:
        return _BASE[name](y_true, y_pred, pos_label=pos_label, labels=labels,
                           sample_weight=w, zero_division=zero_division)
    plain = {
        "accuracy": lambda: skm.accuracy_score(y_true, y_pred, sample_weight=w),
        "balanced_accuracy": lambda: skm.balanced_accuracy_score(y_true, y_pred,
                                                                 sample_weight=w),
        "adjusted_balanced_accuracy": lambda: skm.balanced_accuracy_score(
            y_true, y_pred, sample_weight=w, adjusted=True),
        "matthews_corrcoef": lambda: skm.matthews_corrcoef(y_true, y_pred, sample_weight=w),
        "cohen_kappa": lambda: skm.cohen_kappa_score(y_true, y_pred, labels=labels,
                                                     sample_weight=w),
        "cohen_kappa_linear": lambda: skm.cohen_kappa_score(
            y_true, y_pred, labels=labels, weights="linear", sample_weight=w),
        "cohen_kappa_quadratic": lambda: skm.cohen_kappa_score(
            y_true, y_pred, labels=labels, weights="quadratic", sample_weight=w),
        "hamming_loss": lambda: skm.hamming_loss(y_true, y_pred, sample_weight=w),
        "zero_one_loss": lambda: skm.zero_one_loss(y_true, y_pred, sample_weight=w),
        "log_loss": lambda: skm.log_loss(y_true, y_score, labels=labels, sample_weight=w),
        "brier_score_loss": lambda: skm.brier_score_loss(y_true, y_score, labels=labels,
                                                         sample_weight=w),
        "d2_log_loss_score": lambda: skm.d2_log_loss_score(y_true, y_score, labels=labels,
                                                           sample_weight=w),
        "d2_brier_score": lambda: skm.d2_brier_score(y_true, y_score, labels=labels,
                                                     sample_weight=w),
        "roc_auc": lambda: skm.roc_auc_score(y_true, y_score, sample_weight=w),
        "average_precision": lambda: skm.average_precision_score(
            y_true, y_score, pos_label=pos_label, sample_weight=w),
    }
    if name not in plain:
        raise ValueError(f"unknown metric name {name!r}")
    return plain[name]()


def evaluate_reference(y_true, y_pred=None, y_score=None, *, metrics=None, labels=None,
                       sample_weight=None, pos_label=1, zero_division="warn"):
    """``{name: scikit-learn value}`` in the requested order."""
    if metrics is None:
        metrics = (_DEFAULT if y_pred is not None else ()) + (
            _DEFAULT_PROBA if y_score is not None else ())
    return {m: np.float64(_one(m, y_true, y_pred, y_score, labels, sample_weight, pos_label,
                               zero_division))
            for m in metrics}


LABEL_NAMES = ["accuracy", "balanced_accuracy", "adjusted_balanced_accuracy",
               "matthews_corrcoef", "cohen_kappa", "cohen_kappa_linear",
               "cohen_kappa_quadratic", "hamming_loss", "zero_one_loss", "precision_micro",
               "recall_macro", "f1_weighted", "jaccard_macro"]
ev = evaluate_reference
add("evaluate", ev, (MC_T, MC_P), {"metrics": LABEL_NAMES}, id="label-metrics")
add("evaluate", ev, (MC_T, MC_P), {"metrics": LABEL_NAMES, "sample_weight": W},
    id="label-metrics-weighted")
add("evaluate", ev, (MC_T, MC_P, MC_PROBA), id="defaults", **PROBA, **MIXED)
add("evaluate", ev, (MC_T, None, MC_PROBA), {"metrics": ["d2_brier_score", "log_loss",
                                                          "d2_log_loss_score",
                                                          "brier_score_loss"],
                                              "sample_weight": W}, id="proba-multiclass",
    **PROBA)
add("evaluate", ev, (BIN_T, BIN_P, BIN_SCORE),
    {"metrics": ["f1", "precision", "recall", "jaccard", "roc_auc", "average_precision",
                 "log_loss", "brier_score_loss", "d2_log_loss_score", "d2_brier_score"],
     "sample_weight": W}, id="binary")
add("evaluate", ev, (BIN_T, BIN_P, BIN_SCORE),
    {"metrics": ["f1", "recall", "average_precision", "roc_auc"], "pos_label": 0},
    id="binary-pos_label-0", **MIXED)
add("evaluate", ev, (STR[BIN_T], STR[BIN_P]), {"metrics": ["f1", "cohen_kappa"],
                                               "pos_label": "yes"}, id="strings")
add("evaluate", ev, (ML_T, ML_P),
    {"metrics": ["accuracy", "hamming_loss", "f1_samples", "precision_macro",
                 "jaccard_samples", "recall_micro"]}, id="multilabel")
for zd in ("warn", 1.0):
    add("evaluate", ev, (MC_T, ABSENT_P),
        {"metrics": ["precision_macro", "f1_macro", "recall_weighted"],
         "labels": [0, 1, 2, 3, 5], "zero_division": zd}, id=f"zero-division-{zd}")
add("evaluate", ev, (MC_T, MC_P), {"metrics": ["accuracy", "f1_score"]}, id="unknown-error")
add("evaluate", ev, (MC_T, MC_P), {"metrics": ["f1"]}, id="binary-on-multiclass-error")
add("evaluate", ev, (MC_T, MC_P), {"metrics": ["log_loss"]}, id="no-y_score-error")

# -- bootstrap --------------------------------------------------------------------------

_BOOTSTRAP = ("n_resamples", "confidence_level", "method", "random_state", "batch_size",
              "resampling")


def _split_kwargs(kwargs):
    boot = {k: v for k, v in kwargs.items() if k in _BOOTSTRAP}
    return boot, {k: v for k, v in kwargs.items() if k not in _BOOTSTRAP}


def run_bootstrap_twice(metric, *arrays, **kwargs):
    """The value, the interval, and the interval again from the same seed."""
    _, metric_kw = _split_kwargs(kwargs)
    first = metrix.bootstrap(metric, *arrays, **kwargs)
    again = metrix.bootstrap(metric, *arrays, **kwargs)
    return {"value": metric(*arrays, **metric_kw), **first._asdict(),
            "again": tuple(again)}


_SCIPY_DONE: dict = {}


def scipy_bootstrap_reference(metric, *arrays, **kwargs):
    """scikit-learn's value; scipy's paired bootstrap of the scikit-learn metric.

    The rows read float64 inputs on every combination (``float32_reference``
    off: Monte Carlo error dwarfs float32 rounding), so one scipy run per row
    serves both float dtypes.
    """
    key = (metric.__name__, tuple(map(id, arrays)),
           tuple((k, id(v) if isinstance(v, np.ndarray) else v)
                 for k, v in sorted(kwargs.items())))
    if key not in _SCIPY_DONE:
        _SCIPY_DONE[key] = _scipy_bootstrap(metric, *arrays, **kwargs)
    return _SCIPY_DONE[key]


def _scipy_bootstrap(metric, *arrays, **kwargs):
    from scipy import stats

    boot, metric_kw = _split_kwargs(kwargs)
    reference = getattr(skm, metric.__name__)
    sw = metric_kw.pop("sample_weight", None)
    data = arrays + ((sw,) if sw is not None else ())

    def statistic(*a):
        if sw is None:
            return reference(*a, **metric_kw)
        return reference(*a[:-1], sample_weight=a[-1], **metric_kw)

    method = boot.get("method", "percentile")
    res = stats.bootstrap(data, statistic, n_resamples=boot["n_resamples"], paired=True,
                          vectorized=False, method="BCa" if method == "bca" else method,
                          confidence_level=boot.get("confidence_level", 0.95),
                          random_state=np.random.default_rng(0))
    return {"value": statistic(*data), "low": res.confidence_interval.low,
            "high": res.confidence_interval.high, "standard_error": res.standard_error,
            "n_resamples": boot["n_resamples"],
            "confidence_level": boot.get("confidence_level", 0.95)}


def compare_bootstrap(result, expected, tol):
    """Same seed, same interval; the value inside it; scipy's within Monte Carlo error."""
    assert_close(result["value"], expected["value"], **tol, path="value")
    first = [to_numpy(result[k]) for k in ("low", "high", "standard_error")]
    for name, a, b in zip(("low", "high", "standard_error"), first, result["again"]):
        # the same draws; the dtype's tolerance only for GPU atomics, which may add
        # weighted counts in another order (another seed moves the bounds by far more)
        np.testing.assert_allclose(a, to_numpy(b), **tol, err_msg=f"{name}: same seed")
    low, high, se = (float(v) for v in first)
    value = float(to_numpy(result["value"]))
    assert low <= value <= high, f"value {value} outside [{low}, {high}]"
    b, ref_se = expected["n_resamples"], expected["standard_error"]
    alpha = (1 - expected["confidence_level"]) / 2
    z = statistics.NormalDist().inv_cdf(alpha)
    density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    # two independent estimates of an alpha-quantile differ by about
    # sqrt(2 alpha (1 - alpha) / B) / phi(z) standard errors: allow 5 of those
    tol_q = 5 * math.sqrt(2 * alpha * (1 - alpha) / b) / density * ref_se + tol["atol"]
    assert abs(low - expected["low"]) < tol_q, (low, expected["low"], tol_q)
    assert abs(high - expected["high"]) < tol_q, (high, expected["high"], tol_q)
    assert abs(se - ref_se) < 5 * ref_se / math.sqrt(b) + tol["atol"], (se, ref_se)


def add_bootstrap(metric, args, kw, id):
    add("bootstrap", scipy_bootstrap_reference, (metric, *args), kw, id=id,
        call=run_bootstrap_twice, compare=compare_bootstrap, check_warnings="off",
        float32_reference=False)


add_bootstrap(metrix.f1_score, (MC_T, MC_P),
              {"average": "macro", "n_resamples": 1000, "random_state": 0}, id="f1-macro")
add_bootstrap(metrix.accuracy_score, (MC_T, MC_P),
              {"sample_weight": W, "n_resamples": 1000, "random_state": 1, "method": "basic"},
              id="accuracy-weighted-basic")
add_bootstrap(metrix.roc_auc_score, (BIN_T, BIN_SCORE),
              {"n_resamples": 1000, "random_state": 2, "confidence_level": 0.9},
              id="roc_auc-90")
add_bootstrap(metrix.mean_squared_error, (Y, Y_PRED),
              {"n_resamples": 1000, "random_state": 3, "method": "bca"}, id="mse-bca")
add_bootstrap(metrix.median_absolute_error, (Y, Y_PRED),
              {"n_resamples": 100, "random_state": 4}, id="loop-fallback")
