"""Which vectorised bootstrap path computes a metric's resamples (or None: the loop).

The paths are in :mod:`._batched_paths` (labels, ranking, losses,
regression) and :mod:`._batched_rows` (per-sample values, order statistics,
one-vs-rest AUC, multilabel); :func:`find_path` picks one by the metric's
name, its keywords and the inputs' shapes.
"""

from __future__ import annotations

from .._core import namespace as _ns
from ..registry import by_function
from ._batched_paths import (
    _LABEL_KW,
    _PROBA_KW,
    LabelPath,
    ProbaPath,
    RankingPath,
    RegressionPath,
)
from ._batched_rows import (
    OrderStatPath,
    OvrAucPath,
    multilabel_path,
    row_mean_path,
)


def find_path(metric, arrays, kw, setups=None):
    """The batched path for ``metric`` on these inputs, or None (loop fallback).

    The path is the registry's (:mod:`metrix.registry`); its finder checks the
    keywords and the inputs' shapes.  ``setups``: a dict kept across the calls of
    one :func:`bootstrap_many`, where paths on the same inputs leave what they
    derive once (an encoding, a sort).
    """
    # a metrix function, told by name and module (no import of the package root)
    entry = by_function(getattr(metric, "__name__", None))
    if (entry is None or entry.path is None or len(arrays) != 2
            or not getattr(metric, "__module__", "").startswith("metrix.")):
        return None
    a, b = arrays
    if entry.path == "row_mean":
        return row_mean_path(metric, entry.function, arrays, kw)
    if getattr(a, "ndim", 1) == 2 and getattr(b, "ndim", 1) == 2 and entry.path in (
            "label", "multilabel"):
        return multilabel_path(entry.function, a, b, kw)
    return _FINDERS[entry.path](entry.function, a, b, kw, setups)


def _label_path(name, a, b, kw, setups):
    """A :class:`LabelPath` of 1-D labels (not weighted kappa)."""
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1
            or not set(kw) <= _LABEL_KW[name]
            or (name == "cohen_kappa_score" and kw.get("weights") is not None)
            or kw.get("average", "binary") not in ("binary", "micro", "macro", "weighted",
                                                   None)):
        return None
    return LabelPath(name, a, b, kw, setups)


def _ranking_path(name, a, b, kw, setups):
    """A :class:`RankingPath` of 1-D scores, or the one-vs-rest AUC of 2-D ones."""
    if name == "roc_auc_score" and getattr(b, "ndim", 1) == 2:
        if (kw.get("multi_class") != "ovr" or kw.get("average", "macro") not in (
                "macro", "weighted") or not set(kw) <= {"multi_class", "labels", "average",
                                                        "sample_weight"}):
            return None
        return OvrAucPath.of(a, b, kw, setups)
    allowed = {"sample_weight", "average", "pos_label"} | (
        {"max_fpr"} if name == "roc_auc_score" else set())
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1 or not set(kw) <= allowed
            or kw.get("max_fpr") is not None):
        return None
    return RankingPath(name, a, b, kw, setups)


def _order_path(name, a, b, kw, setups):
    """An :class:`OrderStatPath` (max error, median absolute error) of 1-D targets."""
    allowed = {"sample_weight", "multioutput"} if name == "median_absolute_error" else set()
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1 or not set(kw) <= allowed
            or kw.get("multioutput", "uniform_average") != "uniform_average"):
        return None
    return OrderStatPath(name, a, b, kw)


def _regression_path(name, a, b, kw, setups):
    """A :class:`RegressionPath` of 1-D targets, uniformly averaged."""
    allowed = {"sample_weight", "multioutput"} | (
        {"force_finite"} if name in ("r2_score", "explained_variance_score") else set())
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1 or not set(kw) <= allowed
            or not isinstance(kw.get("multioutput", "uniform_average"), str)
            or kw.get("multioutput", "uniform_average") == "raw_values"):
        return None
    return RegressionPath(name, a, b, kw)


def _proba_path(name, y_true, y_proba, kw, setups=None):
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


_FINDERS = {"label": _label_path, "ranking": _ranking_path, "proba": _proba_path,
            "regression": _regression_path, "order": _order_path,
            "multilabel": lambda *args: None}  # multilabel only: its 1-D form loops
