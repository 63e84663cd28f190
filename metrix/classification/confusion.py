"""Label metrics of the confusion-matrix family.

Each metric runs ``prepare_inputs`` and ``label_problem`` of :mod:`._input`
(namespace -> validation -> encoding -> one statistic) and applies its
formula; training-loop calls (declared ``0..C-1``, ``validate=False``) take
the lane of :mod:`._lane` instead, with the same formula.  With ``labels=``
declared and ``validate=False`` each is a pure array program (it traces under
``jax.jit`` and ``torch.compile(fullgraph=True)``).
"""

from __future__ import annotations

import math
import warnings
from typing import Literal

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.docstrings import sections
from .._core.edge import host_entry, metric_edge
from .._core.stacklevel import find_stack_level
from .._core.typing import Array, ArrayLike
from .._core.validation import check_zero_division
from ..backends import host_lane
from ..backends import ops as _ops
from ._encoding import comparable
from ._input import any_label_in_y_true, label_problem, prepare_inputs, setwise_problem
from ._lane import (
    declared_counts,
    declared_matrix,
    declared_range,
    discovered_lane_inputs,
    float_dtypes,
    lane_inputs,
    lane_position,
)
from ._prf import PRF, check_beta, check_macro_over, prf_from_counts
from ._statistic import LabelCounts, normalize_confusion

__all__ = [
    "confusion_matrix",
    "multilabel_confusion_matrix",
    "accuracy_score",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
]


#: docstring sections of the label metrics (here, :mod:`.agreement` and :mod:`.report`)
_TARGETS = """\
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix (any supported array
        library).
    y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, as returned by a classifier.
"""
_TARGETS_1D = """\
    y_true : array of shape (n_samples,)
        Ground-truth labels (any supported array library).
    y_pred : array of shape (n_samples,)
        Predicted labels, as returned by a classifier.
"""
_PRF_LABELS = """\
    labels : array-like, default=None
        Classes to include (declared order): with ``average=None`` the order
        of the results, otherwise the classes averaged over. Sync-free with
        ``validate=False``.
    pos_label : int, float, bool or str, default=1
        The class reported when ``average="binary"`` (ignored otherwise).
"""
_PRF_AVERAGE = """\
        ``None``: one score per class; ``"binary"``: the score of
        ``pos_label``; ``"micro"``: from the total counts; ``"macro"``: the
        unweighted mean over classes; ``"weighted"``: the mean weighted by
        support; ``"samples"``: the mean over samples (multilabel input).
"""
_SAMPLE_WEIGHT = """\
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
"""
_ZERO_DIVISION = """\
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        Value where a ratio is 0/0; "warn" gives 0 and an ``UndefinedMetricWarning``
        (warnings are emitted only with ``validate=True``).
"""
_VALIDATE = """\
    validate : bool, default=True
        Check the values of the inputs (target types, NaN) on the host.
        ``False`` reads no value; with ``labels`` declared the call is then
        sync-free.
"""
_MACRO_OVER = """\
    macro_over : {"all", "present"}, default="all"
        The classes of ``average="macro"``: ``"all"`` the classes counted
        (``labels``, or those found in the data), as scikit-learn;
        ``"present"`` only those with a non-zero (weighted) count in
        ``y_true`` or ``y_pred`` (``tp + fp + fn > 0``), as TorchMetrics'
        multiclass macro average.  It differs where ``labels`` declares classes
        absent from the data (or a class has weight 0 only); computed on the
        device, no host read.  With no class present (empty input) the average
        is over all classes: the ``zero_division`` value.  Other averages
        ignore it.
"""
_label_doc = sections(targets=_TARGETS, targets_1d=_TARGETS_1D, labels=_PRF_LABELS,
                      average=_PRF_AVERAGE, sample_weight=_SAMPLE_WEIGHT, validate=_VALIDATE,
                      zero_division=_ZERO_DIVISION, macro_over=_MACRO_OVER,
                      binary_average=(  # the parameters after y_true, y_pred (and beta)
                          _PRF_LABELS + '    average : {"binary", "micro", "macro", '
                          '"weighted", "samples"} or None, default="binary"\n'
                          + _PRF_AVERAGE + _SAMPLE_WEIGHT
                          + _ZERO_DIVISION + _MACRO_OVER + _VALIDATE))


@metric_edge
def _confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None,
                      validate=True):
    """:func:`confusion_matrix` past its host entry."""
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(
            "The 'normalize' parameter must be a str among {'all', 'pred', 'true'} or None."
            f" Got {normalize!r} instead.")
    lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate) if not validate \
        else discovered_lane_inputs(y_true, y_pred, sample_weight, labels,
                                    check_present=normalize is not None)
    if lane is not None and lane.n_classes > 1:
        cm = lane.ops.lane(_confusion_lane, (lane.n_classes, normalize), y_true, y_pred,
                           sample_weight)
        if (sample_weight is not None or normalize is not None) and (
                cm.dtype == lane.xp.float32 and lane.ops.float64_results):
            # float results (weights, normalize) on NumPy: float64, as scikit-learn
            cm = lane.xp.astype(cm, lane.xp.float64)
        if not validate or normalize is not None or lane.ops.every_class_seen(cm):
            return cm
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=False)
    xp, device = prepared.xp, prepared.device
    _check_single_label_type(prepared.targets.y_type)
    _check_labels_nonempty(labels)
    prob = label_problem(prepared, labels=labels, validate=validate, want_cm=True)
    cm = prob.cm
    if labels is not None and validate:
        # host read: scikit-learn requires one declared label among y_true
        if not any_label_in_y_true(prob, labels):
            raise ValueError("At least one label specified must be in y_true")
    if prepared.weights is not None and _is_int_weights(sample_weight):
        cm = xp.astype(cm, _ns.count_dtype(xp, device))
    # float results on NumPy: float64 whatever the weights' float type, as scikit-learn
    fdt = xp.float64 if _ops(xp).float64_results else prepared.float_dtype
    if normalize is not None:
        cm = xp.astype(normalize_confusion(cm, normalize, dtype=prepared.acc_dtype, xp=xp), fdt)
    elif xp.isdtype(cm.dtype, "real floating"):
        cm = xp.astype(cm, fdt)
    if tuple(cm.shape) == (1, 1):
        warnings.warn(
            "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix "
            "to have the correct shape, use the 'labels' parameter to pass all known "
            "labels.", UserWarning, stacklevel=find_stack_level())
    return cm


@host_entry(_confusion_matrix)
@_label_doc
def confusion_matrix(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    normalize: Literal["true", "pred", "all"] | None = None,
    validate: bool = True,
) -> Array:
    r"""Confusion matrix ``C[i, j]``: samples of true class i predicted as class j.

    Computed by one ``bincount(n_classes * y_true + y_pred)`` on the inputs'
    device.

    Parameters
    ----------
    %(targets_1d)s
    labels : array-like of shape (n_classes,), default=None
        Classes (rows/columns, in this order). Samples whose true or predicted
        label is not among them are ignored. Declaring labels (with
        ``validate=False``) makes the call sync-free.
    %(sample_weight)s
    normalize : {"true", "pred", "all"}, default=None
        Normalise over rows, columns or the whole matrix (0 where undefined).
    validate : bool, default=True
        Check values (target types, NaN, labels present). ``False`` reads no
        value on the host.

    Returns
    -------
    C : array of shape (n_classes, n_classes)
        Counts, int64 (float with float weights or ``normalize``), in the
        inputs' namespace and on their device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.confusion_matrix``.
    """
    if not validate and sample_weight is None and normalize is None:  # a training loop's
        cm = host_lane(_declared_confusion_lane, labels, y_true, y_pred, None)
        if cm is not None:
            return cm
    return _confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sample_weight,
                             normalize=normalize, validate=validate)


def _declared_confusion_lane(xp, o, labels, y_true, y_pred, _):
    """:func:`_confusion_lane`'s counts of labels declared ``0..C-1`` (``C >= 2``),
    for :func:`~metrix.backends.host_lane`; None for other ``labels``."""
    c = declared_range(labels)
    return None if c is None or c < 2 else o.inner_counts(y_true, y_pred, n=c)


_declared_confusion_lane.input_kinds = ("integral", "bool")


def _confusion_lane(xp, o, config, y_true, y_pred, weights):
    """The lane's confusion matrix: the inner block of the edge matrix (see :mod:`._lane`)."""
    c, normalize = config
    if weights is None and normalize is None:  # the counts themselves
        return o.inner_counts(y_true, y_pred, n=c)
    acc, fdt = float_dtypes(xp, _ns.device_of(y_true), weights)
    cm = declared_matrix(xp, o, y_true, y_pred, weights, c, acc)
    if normalize is not None:
        cm = normalize_confusion(cm, normalize, dtype=acc, xp=xp)
    elif weights is None:
        return cm
    return cm if cm.dtype == fdt else xp.astype(cm, fdt)


def _check_single_label_type(y_type):
    if y_type not in ("binary", "multiclass"):
        raise ValueError(f"{y_type} is not supported")


def _check_labels_nonempty(labels):
    if labels is not None and len(_ns.host_list(labels)) == 0:
        raise ValueError("'labels' should contain at least one label.")


def _is_int_weights(sample_weight) -> bool:
    dt = getattr(sample_weight, "dtype", None)
    if dt is None:
        return _ns.host_values(sample_weight).dtype.kind in "iub"
    return "int" in str(dt) or "bool" in str(dt)


@metric_edge
def multilabel_confusion_matrix(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    samplewise: bool = False,
    validate: bool = True,
) -> Array:
    r"""One 2 x 2 confusion matrix per class (or per sample): ``[[tn, fp], [fn, tp]]``.

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix.
    y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or a label-indicator matrix.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        Classes (or indicator columns) to report, in this order.
    samplewise : bool, default=False
        Per-sample matrices (multilabel input only).
    validate : bool, default=True
        Check the values of the inputs on the host; ``False`` reads none.

    Returns
    -------
    multi_confusion : array of shape (n_outputs, 2, 2)
        One matrix per class (or sample), on the inputs' device; int64 unless
        weighted.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.multilabel_confusion_matrix``.
    """
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate)
    prob = label_problem(prepared, labels=labels, validate=validate, samplewise=samplewise)
    xp = prob.xp
    tp, pred, true = prob.counts
    w = prob.weights
    if w is not None and samplewise:  # each sample's counts scaled by its weight
        tp, pred, true = (xp.astype(c, w.dtype) * w for c in (tp, pred, true))
        total = w * prob.y_true.shape[1]
    elif w is not None:
        total = xp.sum(w)
    elif samplewise:
        total = prob.y_true.shape[1]
    else:
        total = prob.n_samples
    out = multilabel_confusion_from_counts(tp, pred, true, total, xp=xp)
    if w is None:
        return xp.astype(out, _ns.count_dtype(xp, prob.device))
    return xp.astype(out, prob.float_dtype)


def multilabel_confusion_from_counts(tp, pred, true, total, *, xp):
    """``[[tn, fp], [fn, tp]]`` per label (shape ``(L, 2, 2)``) from the per-label
    counts of right, predicted and true positives and the ``total`` (weight) of
    samples: ``fp = pred - tp``, ``fn = true - tp``, ``tn = total - pred - true + tp``."""
    fp, fn = pred - tp, true - tp
    tn = total - tp - fp - fn
    return xp.reshape(xp.stack([tn, fp, fn, tp], axis=1), (-1, 2, 2))


@metric_edge
def accuracy_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Fraction (or number) of correct predictions; subset accuracy for multilabel.

    .. math:: \mathrm{acc} = \frac{\sum_i w_i [\hat y_i = y_i]}{\sum_i w_i}

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix.
    y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, as returned by a classifier.
    normalize : bool, default=True
        Return the fraction; ``False`` returns the (weighted) count.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    validate : bool, default=True
        Check the values of the inputs on the host; ``False`` reads none.

    Returns
    -------
    score : 0-d array
        On the inputs' device (a NumPy float64 scalar for NumPy inputs).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.accuracy_score``.
    """
    # integer 1-D labels are always valid targets: validate=True has nothing more to
    # check here without weights
    lane = None if validate and sample_weight is not None else lane_inputs(
        y_true, y_pred, sample_weight, None, False, declared=False)
    if lane is not None:
        return _ns.to_output(lane.ops.lane(_accuracy_lane, bool(normalize), y_true, y_pred,
                                           sample_weight), lane.xp)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=False)
    xp = prepared.xp
    score = accuracy_from_totals(*correct_and_total(prepared.targets, prepared.weights, xp,
                                                    prepared.acc_dtype),
                                 normalize=normalize, xp=xp)
    return _ns.to_output(xp.astype(score, prepared.float_dtype), xp)


def _accuracy_lane(xp, o, normalize, y_true, y_pred, weights):
    """The lane's accuracy: :func:`count_correct` and :func:`accuracy_from_totals`
    in the widest float."""
    acc, fdt = float_dtypes(xp, _ns.device_of(y_true), weights)
    correct, total = count_correct(y_true, y_pred, weights, xp, acc)
    score = accuracy_from_totals(correct, total, xp, normalize)
    return score if score.dtype == fdt else xp.astype(score, fdt)


def count_correct(y_true, y_pred, weights, xp, acc, multilabel=False):
    """Accuracy's statistic: the (weighted) number of exactly right samples (rows
    of a label-indicator matrix with ``multilabel``) and the total weight, in
    ``acc``; without weights the total is the number of samples, a Python int."""
    hit = y_true == y_pred
    if multilabel:
        hit = xp.all(hit, axis=1)
    if weights is None:
        return _ops(xp).count_true(hit, acc), y_true.shape[0]
    hit = xp.astype(hit, acc)
    if weights.dtype != acc:
        weights = xp.astype(weights, acc)
    return xp.sum(hit * weights), xp.sum(weights)


def correct_and_total(targets, weights, xp, acc):
    """:func:`count_correct` of prepared targets (their labels made comparable)."""
    yt, yp = comparable(targets.y_true, targets.y_pred, xp)
    return count_correct(yt, yp, weights, xp, acc,
                         multilabel=targets.y_type == "multilabel-indicator")


def accuracy_from_totals(correct, total, xp, normalize=True, undefined=0.0):
    r"""Accuracy's formula on every face: :math:`\mathrm{correct} / \mathrm{total}`
    (``undefined`` where there is no weight), or ``correct`` itself without
    ``normalize``.  ``total`` is an array of totals, or a Python int (a count
    of samples: one division)."""
    if not normalize:
        return correct
    if type(total) is int or not hasattr(total, "dtype"):  # a count (or a traced size)
        return correct / total if total else xp.full_like(correct, undefined)
    return safe_divide(correct, total, zero_value=undefined, xp=xp)


@metric_edge
@_label_doc
def precision_recall_fscore_support(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float = 1.0,
    labels: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    average: Literal["binary", "micro", "macro", "weighted", "samples"] | None = None,
    warn_for: tuple[str, ...] | set[str] = ("precision", "recall", "f-score"),
    sample_weight: ArrayLike | None = None,
    zero_division: Literal["warn"] | float = "warn",
    macro_over: Literal["all", "present"] = "all",
    validate: bool = True,
) -> tuple[Array, Array, Array, Array | None]:
    r"""Precision, recall, F-beta and support per class, or averaged.

    .. math::
        P = \frac{tp}{tp + fp}, \quad R = \frac{tp}{tp + fn}, \quad
        F_\beta = \frac{(1 + \beta^2)\, tp}{(1 + \beta^2)\, tp + \beta^2 fn + fp}

    All from one statistic: per-class (tp, predicted, true) counts read off
    one confusion-matrix ``bincount`` (three length-C bincounts for many classes).

    Parameters
    ----------
    %(targets)s
    beta : float, default=1.0
        Weight of recall in the F-score: ``beta > 1`` favours recall, ``beta < 1``
        precision.
    %(labels)s
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default=None
        %(average)s
    warn_for : tuple of str, default=("precision", "recall", "f-score")
        The ratios among "precision", "recall" and "f-score" that warn when
        ill-defined (with ``zero_division="warn"``).
    %(sample_weight)s
    %(zero_division)s
    %(macro_over)s
    %(validate)s

    Returns
    -------
    precision : 0-d array, or array of shape (n_classes,)
        Precision ``tp / (tp + fp)`` per class (``average=None``) or averaged,
        on the inputs' device.
    recall : 0-d array, or array of shape (n_classes,)
        Recall ``tp / (tp + fn)``, likewise.
    fbeta_score : 0-d array, or array of shape (n_classes,)
        F-beta score, likewise.
    support : array of shape (n_classes,) or None
        The (weighted) number of true samples of each class; None when averaged.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.precision_recall_fscore_support``.
    .. [2] C. J. van Rijsbergen, *Information Retrieval*, 1979 (F-measure).
    """
    return _prfs(y_true, y_pred, beta=beta, labels=labels, pos_label=pos_label,
                 average=average, warn_for=warn_for, sample_weight=sample_weight,
                 zero_division=zero_division, validate=validate, want=PRF,
                 macro_over=macro_over)


def _prfs(y_true, y_pred, *, beta, labels, pos_label, average, warn_for, sample_weight,
          zero_division, validate, want, macro_over="all"):
    """``precision_recall_fscore_support`` computing the ratios in ``want`` only."""
    check_beta(beta)  # before zero_division, as scikit-learn's parameter checks
    if macro_over != "all":
        check_macro_over(macro_over)
        macro_over = macro_over if average == "macro" else "all"
    if not validate and sample_weight is None:
        out = host_lane(_declared_prfs_lane,
                        (beta, labels, pos_label, average, zero_division, want, macro_over),
                        y_true, y_pred, None)
        if out is not None:
            return out if type(out) is tuple else (None, None, out, None)  # the F-score alone
    zd = check_zero_division(zero_division)
    if not validate:
        lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate)
    elif want == ("f-score",) and 0 < beta < math.inf and average in (
            "macro", "micro", "weighted", None):
        # every discovered class occurs in y_true or y_pred: no F-score is 0 / 0,
        # so the validated call has no warning to give
        lane = discovered_lane_inputs(y_true, y_pred, sample_weight, labels)
    else:
        lane = None
    if lane is not None:
        pos = lane_position(average, pos_label, lane.n_classes)
        if pos is not False:
            config = _prfs_config(lane.n_classes, beta, average, zd, pos, want, macro_over)
            out = lane.ops.lane(_prfs_lane, config, y_true, y_pred, sample_weight)
            if type(out) is not tuple:  # the F-score alone
                return None, None, _ns.to_output(out, lane.xp), None
            return tuple(_ns.to_output(v, lane.xp) for v in out)
    prob = setwise_problem(y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
                           sample_weight=sample_weight, validate=validate)
    p, r, f, s = prf_from_counts(prob.counts, beta=beta, average=average, warn_for=warn_for,
                                 zero_division=zero_division, weights=prob.weights,
                                 xp=prob.xp, dtype=prob.float_dtype,
                                 acc_dtype=prob.acc_dtype, validate=validate, want=want,
                                 macro_over=macro_over)
    xp = prob.xp
    if s is not None and prob.weights is not None:
        s = xp.astype(s, prob.float_dtype)
    return _ns.to_output(p, xp), _ns.to_output(r, xp), _ns.to_output(f, xp), s


def _declared_prfs_lane(xp, o, config, y_true, y_pred, weights):
    """:func:`_prfs_lane` of labels declared ``0..C-1`` (None for other ``labels``):
    :func:`_prfs` of a training loop's host arrays (:func:`~metrix.backends.host_lane`:
    declared integer labels of eager torch CPU tensors, no weights), past the
    edge but before the namespace lookup and the adapter's lane (a third of
    the call on a batch of 256).  ``zero_division`` is checked here, where the
    lane runs (the usual way checks it itself: one check a call)."""
    beta, labels, pos_label, average, zero_division, want, macro_over = config
    zd = check_zero_division(zero_division)
    c = declared_range(labels)
    pos = None if c is None else lane_position(average, pos_label, c)
    if pos is False or c is None:
        return None
    return _prfs_lane(xp, o, _prfs_config(c, beta, average, zd, pos, want, macro_over),
                      y_true, y_pred, weights)


_declared_prfs_lane.input_kinds = ("integral", "bool")


def _prfs_config(c, beta, average, zd, pos, want, macro_over):
    """The configuration of :func:`_prfs_lane` (hashable: NaN as "nan")."""
    return c, float(beta), average, "nan" if zd != zd else zd, pos, want, macro_over


def _prfs_lane(xp, o, config, y_true, y_pred, weights):
    """The lane's statistic and formula (see :mod:`._lane`)."""
    c, beta, average, zd, pos, want, macro_over = config
    acc, fdt = float_dtypes(xp, _ns.device_of(y_true), weights)
    counts = declared_counts(xp, o, y_true, y_pred, weights, c, acc)
    if pos is not None:
        counts = LabelCounts(*(v[pos:pos + 1] for v in counts))
    p, r, f, s = prf_from_counts(counts, beta=beta, average=average, warn_for=(),
                                 zero_division=float(zd), weights=weights, xp=xp, dtype=fdt,
                                 acc_dtype=acc, validate=False, want=want,
                                 macro_over=macro_over)
    if s is not None:
        s = xp.astype(s, _ns.count_dtype(xp, None) if weights is None else fdt)
    elif want == ("f-score",):
        return f  # one array back (torch CPU: one tensor made)
    return p, r, f, s


@metric_edge
@_label_doc
def fbeta_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float,
    labels: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    average: Literal["binary", "micro", "macro", "weighted", "samples"] | None = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: Literal["warn"] | float = "warn",
    macro_over: Literal["all", "present"] = "all",
    validate: bool = True,
) -> Array:
    r"""F-beta score: weighted harmonic mean of precision and recall.

    .. math:: F_\beta = \frac{(1 + \beta^2)\, tp}{(1 + \beta^2)\, tp + \beta^2 fn + fp}

    Parameters
    ----------
    %(targets)s
    beta : float
        Weight of recall in the F-score: ``beta > 1`` favours recall, ``beta < 1``
        precision.
    %(binary_average)s

    Returns
    -------
    fbeta_score : 0-d array, or array of shape (n_classes,)
        The score of ``pos_label``, the average, or one score per class
        (``average=None``), on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.fbeta_score``.
    """
    return _prfs(y_true, y_pred, beta=beta, labels=labels, pos_label=pos_label,
                 average=average, warn_for=("f-score",), sample_weight=sample_weight,
                 zero_division=zero_division, validate=validate, want=("f-score",),
                 macro_over=macro_over)[2]


@metric_edge
def _f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
              sample_weight=None, zero_division="warn", macro_over="all", validate=True):
    """:func:`f1_score` past its host entry."""
    return _prfs(y_true, y_pred, beta=1.0, labels=labels, pos_label=pos_label,
                 average=average, warn_for=("f-score",), sample_weight=sample_weight,
                 zero_division=zero_division, validate=validate, want=("f-score",),
                 macro_over=macro_over)[2]


@host_entry(_f1_score)
@_label_doc
def f1_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    average: Literal["binary", "micro", "macro", "weighted", "samples"] | None = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: Literal["warn"] | float = "warn",
    macro_over: Literal["all", "present"] = "all",
    validate: bool = True,
) -> Array:
    r"""F1 score, the harmonic mean of precision and recall: ``2 tp / (2 tp + fp + fn)``.

    Parameters
    ----------
    %(targets)s
    %(binary_average)s

    Returns
    -------
    f1_score : 0-d array, or array of shape (n_classes,)
        The score of ``pos_label``, the average, or one score per class
        (``average=None``), on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.f1_score``.
    """
    if not validate and sample_weight is None and macro_over == "all":
        # a training loop's call, on host views
        out = host_lane(_declared_prfs_lane,
                        (1.0, labels, pos_label, average, zero_division, ("f-score",), "all"),
                        y_true, y_pred, None)
        if out is not None:
            return out[2] if type(out) is tuple else out  # (p, r, f, support): average=None
    return _f1_score(y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
                     sample_weight=sample_weight, zero_division=zero_division,
                     macro_over=macro_over, validate=validate)


@metric_edge
@_label_doc
def precision_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    average: Literal["binary", "micro", "macro", "weighted", "samples"] | None = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: Literal["warn"] | float = "warn",
    macro_over: Literal["all", "present"] = "all",
    validate: bool = True,
) -> Array:
    r"""Precision ``tp / (tp + fp)``: the fraction of predicted positives that are right.

    Parameters
    ----------
    %(targets)s
    %(binary_average)s

    Returns
    -------
    precision : 0-d array, or array of shape (n_classes,)
        The precision of ``pos_label``, the average, or one value per class
        (``average=None``), on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.precision_score``.
    """
    return _prfs(y_true, y_pred, beta=1.0, labels=labels, pos_label=pos_label,
                 average=average, warn_for=("precision",), sample_weight=sample_weight,
                 zero_division=zero_division, validate=validate, want=("precision",),
                 macro_over=macro_over)[0]


@metric_edge
@_label_doc
def recall_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: int | float | bool | str = 1,
    average: Literal["binary", "micro", "macro", "weighted", "samples"] | None = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: Literal["warn"] | float = "warn",
    macro_over: Literal["all", "present"] = "all",
    validate: bool = True,
) -> Array:
    r"""Recall ``tp / (tp + fn)``: the fraction of true positives that are found.

    Parameters
    ----------
    %(targets)s
    %(binary_average)s

    Returns
    -------
    recall : 0-d array, or array of shape (n_classes,)
        The recall of ``pos_label``, the average, or one value per class
        (``average=None``), on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.recall_score``.
    """
    return _prfs(y_true, y_pred, beta=1.0, labels=labels, pos_label=pos_label,
                 average=average, warn_for=("recall",), sample_weight=sample_weight,
                 zero_division=zero_division, validate=validate, want=("recall",),
                 macro_over=macro_over)[1]
