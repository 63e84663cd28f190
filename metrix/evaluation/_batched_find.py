"""Which vectorised bootstrap path computes a metric's resamples (or None: the loop).

The paths are in :mod:`._batched_paths` (labels, ranking, losses,
regression) and :mod:`._batched_rows` (per-sample values, order statistics,
one-vs-rest AUC, multilabel); :func:`find_path` picks one by the metric's
registry entry (its ``path``), its keywords and the inputs' shapes.
"""

from __future__ import annotations

from .._core import namespace as _ns
from ..classification.probabilistic import log_loss
from ..ranking.scores import roc_auc_score
from ..registry import by_function
from ._batched_paths import LabelPath, ProbaPath, RankingPath, RegressionPath, _fn
from ._batched_rows import OrderStatPath, OvrAucPath, multilabel_path, row_mean_path


def find_path(metric, arrays, kw, setups=None):
    """The batched path for ``metric`` on these inputs, or None (loop fallback).

    The path is the registry's (:mod:`metrix.registry`); its finder checks the
    keywords and the inputs' shapes.  ``setups``: a dict kept across the calls of
    one :func:`bootstrap_many`, where paths on the same inputs leave what they
    derive once (an encoding, a sort).  A path takes the call where it reads
    every keyword given (its ``READS``; the metric's call took them already).
    """
    # a metrix function, told by name and module (no import of the package root); the
    # paths tell the metrics of one path apart by the function behind the edge
    metric = _fn(metric)
    entry = by_function(getattr(metric, "__name__", None))
    if (entry is None or entry.path is None or len(arrays) != 2
            or not getattr(metric, "__module__", "").startswith("metrix.")):
        return None
    a, b = arrays
    if entry.path == "row_mean":
        return row_mean_path(metric, arrays, kw)
    if getattr(a, "ndim", 1) == 2 and getattr(b, "ndim", 1) == 2 and entry.path in (
            "label", "multilabel"):
        return multilabel_path(metric, a, b, kw)
    return _FINDERS[entry.path](metric, entry, a, b, kw, setups)


def _label_path(metric, entry, a, b, kw, setups):
    """A :class:`LabelPath` of 1-D labels (not weighted kappa; ``labels`` of an
    averaged metric only)."""
    reads = LabelPath.READS if entry.averaged else LabelPath.READS - {"labels"}
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1
            or not set(kw) <= reads or kw.get("weights") is not None
            or kw.get("average", "binary") not in ("binary", "micro", "macro", "weighted",
                                                   None)):
        return None
    return LabelPath(metric, entry.averaged, a, b, kw, setups)


def _ranking_path(metric, entry, a, b, kw, setups):
    """A :class:`RankingPath` of 1-D scores, or the one-vs-rest AUC of 2-D ones."""
    auc = metric is _fn(roc_auc_score)
    if auc and getattr(b, "ndim", 1) == 2:
        if (kw.get("multi_class") != "ovr" or kw.get("average", "macro") not in (
                "macro", "weighted") or not set(kw) <= {"multi_class", "labels", "average",
                                                        "sample_weight"}):
            return None
        return OvrAucPath.of(a, b, kw, setups)
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1
            or not set(kw) <= RankingPath.READS or kw.get("max_fpr") is not None):
        return None
    return RankingPath(auc, a, b, kw, setups)


def _order_path(metric, entry, a, b, kw, setups):
    """An :class:`OrderStatPath` (max error, median absolute error) of 1-D targets."""
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1
            or not set(kw) <= OrderStatPath.READS
            or kw.get("multioutput", "uniform_average") != "uniform_average"):
        return None
    return OrderStatPath(metric, a, b, kw)


def _regression_path(metric, entry, a, b, kw, setups):
    """A :class:`RegressionPath` of 1-D targets, uniformly averaged."""
    if (getattr(a, "ndim", 1) != 1 or getattr(b, "ndim", 1) != 1
            or not set(kw) <= RegressionPath.READS
            or not isinstance(kw.get("multioutput", "uniform_average"), str)
            or kw.get("multioutput", "uniform_average") == "raw_values"):
        return None
    return RegressionPath(entry.key, a, b, kw)


def _proba_path(metric, entry, y_true, y_proba, kw, setups=None):
    """A :class:`ProbaPath` where every resample's call reads its inputs as the full
    data's call does; None (the loop) otherwise."""
    if not set(kw) <= ProbaPath.READS or getattr(y_true, "ndim", 1) != 1:
        return None
    ndim = getattr(y_proba, "ndim", 1)
    if ndim not in (1, 2) or (ndim == 2 and y_proba.shape[1] == 1):
        return None
    if metric is not _fn(log_loss) and ndim == 1 and kw.get("pos_label") is None:
        # inferred per call: stable over resamples only for {0, 1} / {-1, 1} labels
        classes = _ns.host_unique(_ns.to_host(y_true))  # host values, read once
        # classes is a NumPy array on the host: tolist() reads no device
        if classes.dtype.kind in "OUS" or not set(classes.tolist()) <= {0, 1} and not set(
                classes.tolist()) <= {-1, 1}:
            return None
    return ProbaPath(metric, y_true, y_proba, kw)


_FINDERS = {"label": _label_path, "ranking": _ranking_path, "proba": _proba_path,
            "regression": _regression_path, "order": _order_path,
            "multilabel": lambda *args: None}  # multilabel only: its 1-D form loops
