"""Top-k metrics for multilabel classification and recommendation.

Two groups of metrics live here:

* **Top-k label metrics** (this module): every sample predicts the ``k``
  classes with the highest scores; precision, recall and F-score then follow
  from the multilabel confusion counts of that top-k indicator, with
  scikit-learn's ``precision_recall_fscore_support`` semantics.
* **Per-query retrieval metrics** (:mod:`metrix.retrieval._queries`, re-exported
  here): ``precision_at_k``, ``recall_at_k``, ``hit_rate_at_k``, ``mrr``,
  ``map_at_k``, ``ndcg_at_k`` on dense ``(n_queries, n_items)`` inputs or on
  ragged flat inputs with ``query_ids``.

Ties.  The top-k set of a sample takes every class whose score is larger than
the k-th largest score, and fills the remaining places among the classes tied
at that score by lower class index (``ops(xp).topk``'s order).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

from .._core import namespace as _ns
from .._core.edge import metric_edge
from .._core.validation import (
    assert_all_finite,
    check_average,
    check_sample_weight,
    check_zero_division,
)
from ..backends import ops
from ..classification._prf import prf_from_counts
from ..classification._report_format import format_report, row_names
from ..classification._statistic import LabelCounts
from ._queries import hit_rate_at_k, map_at_k, mrr, ndcg_at_k, precision_at_k, recall_at_k

__all__ = [
    "precision_recall_fscore_at_k",
    "classification_report_at_k",
    "ranked_to_scores",
    "precision_at_k",
    "recall_at_k",
    "hit_rate_at_k",
    "mrr",
    "map_at_k",
    "ndcg_at_k",
]

_AVERAGES = (None, "micro", "macro", "weighted", "samples")


# -- top-k indicator ---------------------------------------------------------

def _topk_indicator(y_score, k, *, xp, o):
    """Boolean ``(n_samples, n_classes)``: is the class among the sample's top ``k``?

    Built without writes: a class is in when its score beats the k-th largest
    score, or ties with it and is among the first ``k - n_greater`` tied
    classes (lower index first).
    """
    values, _ = o.topk(y_score, k, axis=-1)
    kth = values[:, k - 1:k]
    cdt = _ns.count_dtype(xp, _ns.device_of(y_score))
    greater = y_score > kth
    tied = y_score == kth
    n_greater = xp.sum(xp.astype(greater, cdt), axis=1, keepdims=True)
    tie_rank = xp.cumulative_sum(xp.astype(tied, cdt), axis=1)
    return greater | (tied & (tie_rank <= (k - n_greater)))


def _check_top_k(k, n_classes):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer, got {k!r}.")
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}.")
    if k > n_classes:
        raise ValueError(
            f"k ({k}) is larger than the number of classes ({n_classes}): the top-{k} "
            "set is undefined.")


def _label_columns(labels, n_classes, *, xp, device, validate):
    """Column indices as an integer array on the device (None: all columns)."""
    if labels is None:
        return None
    if _ns.is_host_array(labels):
        lab = _host_labels(labels)
        _check_label_range(max(lab), min(lab), n_classes)
        return _ns.asarray(lab, xp=xp, device=device, dtype=_ns.count_dtype(xp, device))
    lab = _ns.asarray(labels, xp=xp, device=device)
    if lab.ndim != 1 or lab.shape[0] == 0:
        raise ValueError("labels must be a non-empty 1-D sequence of class indices.")
    if validate:
        _check_label_range(int(xp.max(lab)), int(xp.min(lab)), n_classes)
    return lab


def _host_labels(labels):
    """Host labels (list, tuple, NumPy array) as a list of Python ints."""
    lab = list(labels) if getattr(labels, "ndim", 1) == 1 else []
    if not lab:
        raise ValueError("labels must be a non-empty 1-D sequence of class indices.")
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in lab):
        raise ValueError("labels must be integer column indices for multilabel targets, "
                         f"got {lab!r}.")
    return [int(v) for v in lab]


def _as_python_numbers(a, xp):
    """A small 1-D result array as Python numbers (ints for integral dtypes)."""
    cast = int if xp.isdtype(a.dtype, "integral") else float
    return [cast(a[i]) for i in range(int(a.shape[0]))]


def _check_label_range(hi, lo, n_classes):
    if hi > n_classes - 1:
        raise ValueError("All labels must be in [0, n labels) for multilabel targets. "
                         f"Got {hi} > {n_classes - 1}")
    if lo < 0:
        raise ValueError("All labels must be in [0, n labels) for multilabel targets. "
                         f"Got {lo} < 0")


def _topk_counts(y_true, y_score, *, k, labels, sample_weight, validate):
    """Validate the inputs; return the per-class and per-sample confusion sums.

    Returns ``(per_class, per_sample, info)`` where each of the first two is
    ``(tp, pred, true)`` in the widest float of the device (weighted) or the
    count dtype (unweighted), and ``info`` holds xp, device, result dtype,
    the weights and the number of selected classes.
    """
    xp, device = _ns.get_namespace_and_device(y_true, y_score, sample_weight)
    y_true = _ns.asarray(y_true, xp=xp, device=device)
    y_score = _ns.asarray(y_score, xp=xp, device=device)
    if y_score.ndim != 2:
        raise ValueError(
            "y_score must be a 2-D array of shape (n_samples, n_classes), got shape "
            f"{tuple(y_score.shape)}.")
    if tuple(y_true.shape) != tuple(y_score.shape):
        raise ValueError(
            "y_true and y_score must have the same shape (n_samples, n_classes), got "
            f"{tuple(y_true.shape)} and {tuple(y_score.shape)}.")
    n, n_classes = (int(s) for s in y_score.shape)
    if n == 0:
        raise ValueError("Found empty input array (e.g., `y_true` or `y_score`) while a "
                         "minimum of 1 sample is required.")
    _check_top_k(k, n_classes)
    if validate:
        assert_all_finite(y_score, xp=xp, input_name="y_score")
        if not bool(xp.all((y_true == 0) | (y_true == 1))):
            raise ValueError("y_true must be a binary label indicator matrix "
                             "(values 0 and 1 only).")
    maxf = _ns.max_float_dtype(xp, device)
    w = check_sample_weight(sample_weight, n, xp=xp, device=device, dtype=maxf,
                            validate=validate)
    out_dtype = _ns.result_float_dtype(xp, device, y_score, sample_weight)
    lab = _label_columns(labels, n_classes, xp=xp, device=device, validate=validate)

    o = ops(xp)
    top = _topk_indicator(y_score, k, xp=xp, o=o)
    truth = y_true != 0
    if lab is not None:
        top = xp.take(top, lab, axis=1)
        truth = xp.take(truth, lab, axis=1)
    hit = top & truth
    cdt = _ns.count_dtype(xp, device)
    if w is None:
        sums = [(xp.sum(xp.astype(m, cdt), axis=0), xp.sum(xp.astype(m, cdt), axis=1))
                for m in (hit, top, truth)]
    else:
        sums = [(xp.sum(xp.astype(m, maxf) * w[:, None], axis=0),
                 xp.sum(xp.astype(m, maxf), axis=1) * w) for m in (hit, top, truth)]
    per_class = tuple(s[0] for s in sums)
    per_sample = tuple(s[1] for s in sums)
    info = dict(xp=xp, device=device, maxf=maxf, out_dtype=out_dtype, weights=w)
    return per_class, per_sample, info


_WARN_FOR = ("precision", "recall", "f-score")


def _prf(per_class, per_sample, info, *, average, beta, zero_division, validate):
    """Precision, recall, F-beta (and support) from the confusion sums.

    The classification family's ``prf_from_counts`` (``classification/_prf.py``)
    does the arithmetic and scikit-learn's warnings (host reads: only with
    ``zero_division="warn"`` and ``validate=True``); this adapter picks the
    per-class or per-sample sums and gives a weighted support the result dtype.
    """
    xp = info["xp"]
    sums = per_sample if average == "samples" else per_class
    out = info["out_dtype"]
    precision, recall, fscore, support = prf_from_counts(
        LabelCounts(*sums), beta=beta, average=average, warn_for=_WARN_FOR,
        zero_division=zero_division, weights=info["weights"], xp=xp, dtype=out,
        acc_dtype=info["maxf"], validate=validate)
    if support is not None and not xp.isdtype(support.dtype, "integral"):
        support = xp.astype(support, out)
    return precision, recall, fscore, support


@metric_edge
def precision_recall_fscore_at_k(
        y_true: Any, y_score: Any, *, k: int,
        average: Literal["micro", "macro", "weighted", "samples"] | None = None,
        beta: float = 1.0, labels: Sequence[int] | Any | None = None,
        zero_division: float | Literal["warn", "nan"] = 0, sample_weight: Any = None,
        validate: bool = True) -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support of the top-``k`` predicted classes.

    Each sample predicts the ``k`` classes with the highest ``y_score``; the
    result equals ``sklearn.metrics.precision_recall_fscore_support`` on the
    multilabel problem ``(y_true, y_pred)`` with ``y_pred`` that top-k
    indicator.  For class :math:`c`:

    .. math::

        TP_c = \\sum_i w_i [c \\in \\mathrm{top}_k(i)] y_{ic}, \\quad
        FP_c = \\sum_i w_i [c \\in \\mathrm{top}_k(i)] (1 - y_{ic}), \\quad
        FN_c = \\sum_i w_i [c \\notin \\mathrm{top}_k(i)] y_{ic},

    :math:`P = TP/(TP+FP)`, :math:`R = TP/(TP+FN)`,
    :math:`F_\\beta = (1+\\beta^2) TP / ((1+\\beta^2) TP + \\beta^2 FN + FP)`
    and support :math:`TP + FN`.  Ties at the k-th score are broken by the
    lower class index.

    Parameters
    ----------
    y_true : array of shape (n_samples, n_classes)
        Label indicator matrix (0/1 or bool).
    y_score : array of shape (n_samples, n_classes)
        Scores; higher means more likely.  Must be finite.
    k : int
        Number of predicted classes per sample, ``1 <= k <= n_classes``; a
        static Python int (it fixes shapes under jit).
    average : {None, "micro", "macro", "weighted", "samples"}, default=None
        As in scikit-learn; ``None`` returns per-class arrays.
    beta : float, default=1.0
        Weight of recall in the F-score.
    labels : sequence of int, default=None
        Column indices to report (and average over), in this order.  The
        top-k set is always taken over all columns.
    zero_division : {0.0, 1.0, nan, "warn"}, default=0
        Value of a ratio whose denominator is zero.  ``"warn"`` gives 0 and
        emits scikit-learn's ``UndefinedMetricWarning`` (only with
        ``validate=True``: it reads values on the host).
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    validate : bool, default=True
        Check values (finite scores, 0/1 targets).  ``False`` skips every value
        read, so the call traces under ``jax.jit`` / ``torch.compile``.

    Returns
    -------
    precision : array
        Per-class 1-D array (``average=None``) or 0-d array, in the inputs'
        namespace and on their device; float32 for float32 scores.
    recall : array
        As ``precision``.
    fscore : array
        As ``precision``.
    support : array or None
        Per-class (weighted) number of true samples, ``None`` when averaged.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.precision_recall_fscore_support``.
    """
    check_average(average, _AVERAGES)
    beta = float(beta)
    if not beta >= 0:
        raise ValueError(f"beta should be >=0 in the F-beta score, got {beta}.")
    check_zero_division(zero_division)
    per_class, per_sample, info = _topk_counts(
        y_true, y_score, k=k, labels=labels, sample_weight=sample_weight,
        validate=validate)
    res = _prf(per_class, per_sample, info, average=average, beta=beta,
               zero_division=zero_division, validate=validate)
    xp = info["xp"]
    return tuple(None if r is None else _ns.to_output(r, xp) for r in res)


@metric_edge
def classification_report_at_k(
        y_true: Any, y_score: Any, *, k: int, labels: Sequence[int] | Any | None = None,
        target_names: Sequence[str] | None = None, sample_weight: Any = None,
        digits: int = 2, output_dict: bool = False,
        zero_division: float | Literal["warn", "nan"] = 0,
        validate: bool = True) -> str | dict:
    """Text (or dict) report of per-class top-``k`` precision, recall and F1.

    The same table as ``sklearn.metrics.classification_report`` on the
    multilabel problem whose predictions are the top-k indicator: one row per
    class, then "micro avg", "macro avg", "weighted avg" and "samples avg".
    The top-k statistic is computed once; the report is built on the host.

    Parameters
    ----------
    y_true : array of shape (n_samples, n_classes)
        Label indicator matrix (0/1 or bool).
    y_score : array of shape (n_samples, n_classes)
        Scores; higher means more likely.  Must be finite.
    k : int
        Number of predicted classes per sample, ``1 <= k <= n_classes``.
    labels : sequence of int, default=None
        Column indices to report, in this order (the top-k set is always
        taken over all columns).
    target_names : sequence of str, default=None
        Row names; default ``str`` of the column indices.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    digits : int, default=2
        Digits of the floats in the text report.
    output_dict : bool, default=False
        Return scikit-learn's nested dict instead of the text.
    zero_division : {0.0, 1.0, nan, "warn"}, default=0
        Value of a ratio whose denominator is zero; ``"warn"`` gives 0 and
        warns (only with ``validate=True``).
    validate : bool, default=True
        Check values (finite scores, 0/1 targets, label range).

    Returns
    -------
    report : str or dict
        Laid out exactly as scikit-learn's ``classification_report``.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.classification_report``.
    """
    check_zero_division(zero_division)
    per_class, per_sample, info = _topk_counts(
        y_true, y_score, k=k, labels=labels, sample_weight=sample_weight,
        validate=validate)
    n_classes = int(per_class[0].shape[0])
    xp = info["xp"]
    label_ids = (list(range(n_classes)) if labels is None
                 else _host_labels(labels) if _ns.is_host_array(labels)
                 else _as_python_numbers(labels, xp))
    target_names = row_names(label_ids, target_names, labels is not None)
    p, r, f, s = (_as_python_numbers(a, xp) for a in _prf(
        per_class, per_sample, info, average=None, beta=1.0, zero_division=zero_division,
        validate=validate))
    rows = list(zip(p, r, f, s))
    total = sum(s)
    averages = {}
    for average in ("micro", "macro", "weighted", "samples"):
        ap, ar, af, _ = _prf(per_class, per_sample, info, average=average, beta=1.0,
                             zero_division=zero_division, validate=validate)
        averages[f"{average} avg"] = (float(ap), float(ar), float(af), total)
    n_rows = min(len(rows), len(target_names))  # scikit-learn zips the two
    return format_report(rows[:n_rows], target_names=list(target_names)[:n_rows],
                         averages=averages, digits=digits, output_dict=output_dict)


@metric_edge
def ranked_to_scores(ranked_labels: Any, n_classes: int, *, validate: bool = True) -> Any:
    """Score matrix from per-sample ranked label lists (a recommender's output).

    Row ``i`` of the result scores the label at rank ``r`` (0-based) of
    ``ranked_labels[i]`` with ``L - r`` (``L`` the list length) and every
    unlisted label with 0, so the top-``k`` set of the scores is the first
    ``k`` listed labels for any ``k <= L``.  (For ``k`` beyond a row's list,
    the top-k set is filled with unlisted labels by lower index.)

    Parameters
    ----------
    ranked_labels : array of shape (n_samples, L) of int, or list of lists
        Label indices in ``[0, n_classes)``, best first.  Negative entries
        are padding.  A list of lists of different lengths is padded on the
        host.  Labels must not repeat within a row (checked with
        ``validate=True``; otherwise repeated scores add up).
    n_classes : int
        Number of classes (columns of the result).
    validate : bool, default=True
        Check the label range and duplicates (host reads).

    Returns
    -------
    y_score : array of shape (n_samples, n_classes)
        Float scores (the widest float of the device) in the namespace and on
        the device of ``ranked_labels``; built by one ``bincount``.
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) \
            or n_classes < 1:
        raise ValueError(f"n_classes must be a positive integer, got {n_classes!r}.")
    if isinstance(ranked_labels, (list, tuple)) and any(
            isinstance(r, (list, tuple)) for r in ranked_labels):
        width = max((len(r) for r in ranked_labels), default=0)
        # host padding of a Python list of lists
        ranked_labels = [list(r) + [-1] * (width - len(r)) for r in ranked_labels]
    xp, device = _ns.get_namespace_and_device(ranked_labels)
    r = _ns.asarray(ranked_labels, xp=xp, device=device)
    if r.ndim != 2:
        raise ValueError("ranked_labels must be 2-D (n_samples, list length), got shape "
                         f"{tuple(r.shape)}.")
    if not xp.isdtype(r.dtype, "integral"):
        raise ValueError(f"ranked_labels must hold integer labels, got {r.dtype}.")
    n, length = (int(s) for s in r.shape)
    if validate and n * length:
        if int(xp.max(r)) >= n_classes:
            raise ValueError(f"ranked_labels contains label {int(xp.max(r))}, outside "
                             f"[0, n_classes={n_classes}).")
        srt = xp.sort(r, axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)
        if bool(xp.any(dup)):
            raise ValueError("ranked_labels repeats a label within a row.")
    cdt = _ns.count_dtype(xp, device)
    maxf = _ns.max_float_dtype(xp, device)
    r = xp.astype(r, cdt)
    valid = r >= 0
    rows = xp.reshape(xp.arange(n, dtype=cdt, device=device), (n, 1))
    codes = xp.where(valid, rows * n_classes + r, xp.asarray(n * n_classes, dtype=cdt,
                                                             device=device))
    score = xp.asarray(length, dtype=maxf, device=device) - xp.arange(
        length, dtype=maxf, device=device)
    weights = xp.where(valid, score, xp.zeros_like(score))
    flat = ops(xp).bincount(xp.reshape(codes, (-1,)), length=n * n_classes + 1,
                            weights=xp.reshape(weights, (-1,)))
    return xp.reshape(flat[:n * n_classes], (n, n_classes))
