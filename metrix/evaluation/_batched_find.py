"""Which vectorised bootstrap path computes a metric's resamples (or None: the loop).

The paths are in :mod:`._batched_paths` (labels, ranking, losses,
regression) and :mod:`._batched_rows` (per-sample values, order statistics,
one-vs-rest AUC, multilabel); :func:`find_path` picks one by the metric's
name, its keywords and the inputs' shapes.
"""

from __future__ import annotations

from .._core import namespace as _ns
from ._batched_paths import (
    _LABEL_KW,
    _PROBA_KW,
    _REG,
    LabelPath,
    ProbaPath,
    RankingPath,
    RegressionPath,
)
from ._batched_rows import (
    ROW_MEAN_KW,
    OrderStatPath,
    OvrAucPath,
    multilabel_path,
    row_mean_path,
)


def find_path(metric, arrays, kw, setups=None):  # noqa: C901
    """The batched path for ``metric`` on these inputs, or None (loop fallback).

    ``setups``: a dict kept across the calls of one :func:`bootstrap_many`, where
    paths on the same inputs leave what they derive once (an encoding, a sort).
    """
    # a metrix function, told by name and module (no import of the package root)
    name = getattr(metric, "__name__", None)
    if (name not in (*_LABEL_KW, "roc_auc_score", "average_precision_score", *_REG,
                     *_PROBA_KW, *ROW_MEAN_KW, "max_error", "median_absolute_error",
                     "hamming_loss")
            or not getattr(metric, "__module__", "").startswith("metrix.")):
        name = None
    if name is None or len(arrays) != 2:
        return None
    a, b = arrays
    if name in _PROBA_KW:
        return _proba_path(name, a, b, kw)
    if name in ROW_MEAN_KW:
        return row_mean_path(metric, name, arrays, kw)
    if name == "roc_auc_score" and getattr(b, "ndim", 1) == 2:
        if (kw.get("multi_class") != "ovr" or kw.get("average", "macro") not in (
                "macro", "weighted") or not set(kw) <= {"multi_class", "labels", "average",
                                                        "sample_weight"}):
            return None
        return OvrAucPath.of(a, b, kw, setups)
    if getattr(a, "ndim", 1) == 2 and getattr(b, "ndim", 1) == 2 and (
            name in _LABEL_KW or name == "hamming_loss"):
        return multilabel_path(name, a, b, kw)
    if getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1 or name == "hamming_loss":
        return None
    if name in ("max_error", "median_absolute_error"):
        allowed = {"sample_weight", "multioutput"} if name == "median_absolute_error" else set()
        if not set(kw) <= allowed or kw.get("multioutput", "uniform_average") != \
                "uniform_average":
            return None
        return OrderStatPath(name, a, b, kw)
    if name in _LABEL_KW:
        if not set(kw) <= _LABEL_KW[name]:
            return None
        if name == "cohen_kappa_score" and kw.get("weights") is not None:
            return None
        if kw.get("average", "binary") not in ("binary", "micro", "macro", "weighted", None):
            return None
        return LabelPath(name, a, b, kw, setups)
    if name in ("roc_auc_score", "average_precision_score"):
        allowed = {"sample_weight", "average", "pos_label"} | (
            {"max_fpr"} if name == "roc_auc_score" else set())
        if not set(kw) <= allowed or kw.get("max_fpr") is not None:
            return None
        return RankingPath(name, a, b, kw, setups)
    allowed = {"sample_weight", "multioutput"} | (
        {"force_finite"} if name in ("r2_score", "explained_variance_score") else set())
    if not set(kw) <= allowed or kw.get("multioutput", "uniform_average") == "raw_values":
        return None
    if not isinstance(kw.get("multioutput", "uniform_average"), str):
        return None
    return RegressionPath(name, a, b, kw)


def _proba_path(name, y_true, y_proba, kw):
    """A :class:`ProbaPath` where every resample's call reads its inputs as the full
    data's call does; None (the loop) otherwise."""
    if not set(kw) <= _PROBA_KW[name] or getattr(y_true, "ndim", 1) != 1:
        return None
    ndim = getattr(y_proba, "ndim", 1)
    if ndim not in (1, 2) or (ndim == 2 and y_proba.shape[1] == 1):
        return None
    if name == "brier_score_loss" and ndim == 1 and kw.get("pos_label") is None:
        # inferred per call: stable over resamples only for {0, 1} / {-1, 1} labels
        classes = _ns.host_unique(_ns.to_host(y_true))  # host values, read once
        # classes is a NumPy array on the host: tolist() reads no device
        if classes.dtype.kind in "OUS" or not set(classes.tolist()) <= {0, 1} and not set(
                classes.tolist()) <= {-1, 1}:
            return None
    return ProbaPath(name, y_true, y_proba, kw)
