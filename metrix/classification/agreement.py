"""Label metrics read off the confusion matrix: agreement, balance, error rates.

Every metric here is a formula on one :class:`~metrix.classification._input.LabelProblem`
(per-class counts ``tp``, ``pred``, ``true``, and the C x C matrix where a
weighted kappa needs it).  The formulas are the private ``*_from_problem``
helpers; the public functions validate, build the problem and call them, and
:func:`metrix.evaluate` calls the same helpers on one shared problem.

With ``labels=`` declared and ``validate=False`` each metric is a pure array
program (it traces under ``jax.jit`` and ``torch.compile(fullgraph=True)``);
warnings that need a value on the host are emitted only with ``validate=True``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Literal

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.edge import metric_edge
from .._core.lane import cast
from .._core.stacklevel import find_stack_level
from .._core.typing import Array, ArrayLike
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ._input import (
    any_label_in_y_true,
    label_problem,
    matrix_counts,
    prepare_inputs,
    setwise_problem,
)
from ._lane import lane_inputs, lane_position, lane_problem, setwise_lane_problem
from ._likelihood_ratios import check_replace_lr, likelihood_ratios_from_problem
from ._prf import check_macro_over, jaccard_from_counts
from ._statistic import counts_from_confusion
from .confusion import (
    _check_labels_nonempty,
    _check_single_label_type,
    _label_doc,
    accuracy_from_totals,
    correct_and_total,
)

__all__ = [
    "jaccard_score",
    "balanced_accuracy_score",
    "matthews_corrcoef",
    "cohen_kappa_score",
    "hamming_loss",
    "zero_one_loss",
    "class_likelihood_ratios",
]


def warn_single_label(prob):
    """scikit-learn's ``confusion_matrix`` warning for a 1 x 1 matrix (host-known shape)."""
    if len(prob.classes) == 1:
        warnings.warn(
            "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix "
            "to have the correct shape, use the 'labels' parameter to pass all known "
            "labels.", UserWarning, stacklevel=find_stack_level())


def _single_label_problem(y_true, y_pred, sample_weight, labels, validate, *, want_cm):
    """The label problem of binary or multiclass targets (``confusion_matrix``'s
    error for others, and its warning for a single label)."""
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=False)
    _check_single_label_type(prepared.targets.y_type)
    prob = label_problem(prepared, labels=labels, validate=validate, want_cm=want_cm)
    warn_single_label(prob)
    return prob


# -- jaccard ---------------------------------------------------------------

def jaccard_from_problem(prob, *, average, zero_division, validate, macro_over="all"):
    r"""Jaccard index per class ``tp / (tp + fp + fn)``, averaged as ``average``."""
    counts = tuple(cast(c, prob.acc_dtype, prob.xp) for c in prob.counts)
    jac = jaccard_from_counts(counts, average=average, zero_division=zero_division,
                              weights=prob.weights, xp=prob.xp, validate=validate,
                              macro_over=macro_over)
    return cast(jac, prob.float_dtype, prob.xp)


def _jaccard_lane(xp, o, config, y_true, y_pred, weights):
    c, pos, average, zd, macro_over = config
    prob = setwise_lane_problem(xp, o, y_true, y_pred, weights, c, pos)
    return jaccard_from_problem(prob, average=average, zero_division=zd, validate=False,
                                macro_over=macro_over)


def check_jaccard_zero_division(zero_division):
    """scikit-learn's domain of jaccard's ``zero_division``: "warn", 0 or 1."""
    ok = (zero_division == "warn") if isinstance(zero_division, str) else (
        isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool)
        and zero_division in (0, 1))
    if not ok:
        raise ValueError(
            "The 'zero_division' parameter of jaccard_score must be a float among {0.0, 1.0}"
            f" or a str among {{'warn'}}. Got {zero_division!r} instead.")


@metric_edge
@_label_doc
def jaccard_score(
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
    r"""Jaccard similarity coefficient (intersection over union) per class, or averaged.

    .. math:: J = \frac{tp}{tp + fp + fn}

    Read off the per-class counts of one confusion-matrix ``bincount``.

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Labels, or label-indicator matrices (any supported array library).
    labels : array-like, default=None
        Classes to include (declared order). Sync-free with ``validate=False``.
    pos_label : int, float, bool or str, default=1
        The class reported when ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default="binary"
        %(average)s
    %(sample_weight)s
    zero_division : {"warn", 0.0, 1.0}, default="warn"
        Value where ``tp + fp + fn == 0``; "warn" gives 0 and an
        ``UndefinedMetricWarning`` (with ``validate=True``).
    %(macro_over)s
    validate : bool, default=True
        Check values; ``False`` reads no value on the host.

    Returns
    -------
    score : 0-d array, or array of shape (n_classes,)
        The score of ``pos_label``, the average, or one score per class
        (``average=None``), on the inputs' device (a Python float for NumPy inputs).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.jaccard_score``.
    .. [2] P. Jaccard, "Etude comparative de la distribution florale", 1901.
    """
    check_jaccard_zero_division(zero_division)
    if macro_over != "all":
        check_macro_over(macro_over)
        macro_over = macro_over if average == "macro" else "all"
    lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate)
    pos = False if lane is None else lane_position(average, pos_label, lane.n_classes)
    if pos is not False:
        zd = 0.0 if zero_division == "warn" else float(zero_division)
        config = (lane.n_classes, pos, average, zd, macro_over)
        return _ns.to_output(lane.ops.lane(_jaccard_lane, config, y_true, y_pred,
                                           sample_weight), lane.xp)
    prob = setwise_problem(y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
                           sample_weight=sample_weight, validate=validate)
    res = jaccard_from_problem(prob, average=average, zero_division=zero_division,
                               validate=validate, macro_over=macro_over)
    return _ns.to_output(res, prob.xp)


# -- balanced accuracy -----------------------------------------------------

def balanced_accuracy_from_counts(tp, true, *, adjusted, xp):
    r"""Mean recall over the classes present in ``y_true`` (classes on the last
    axis), chance-adjusted on request: :math:`(s - 1/k) / (1 - 1/k)` with ``k``
    the number of present classes.  NaN when no class is present."""
    recall = safe_divide(tp, true, zero_value=0.0, xp=xp)
    k = xp.sum(xp.astype(true > 0, recall.dtype), axis=-1)
    score = safe_divide(xp.sum(recall, axis=-1), k, zero_value=math.nan, xp=xp)
    if adjusted:
        chance = safe_divide(xp.ones_like(k), k, zero_value=math.nan, xp=xp)
        score = (score - chance) / (1 - chance)
    return score


def balanced_accuracy_from_confusion(cm, *, adjusted, fdt, xp):
    """:func:`balanced_accuracy_from_counts` of a square confusion matrix (rows: true
    classes), in ``fdt``: the streaming ``BalancedAccuracy``'s value."""
    cmf = xp.astype(cm, fdt)
    diag = xp.reshape(cmf, (-1,))[:: cmf.shape[0] + 1]
    return balanced_accuracy_from_counts(diag, xp.sum(cmf, axis=1), adjusted=adjusted, xp=xp)


def balanced_accuracy_from_problem(prob, *, adjusted, validate):
    """:func:`balanced_accuracy_from_counts` of a problem (and scikit-learn's warning)."""
    xp = prob.xp
    tp, _, true = matrix_counts(prob)
    if validate and not bool(xp.all(true > 0)):  # host read, validate=True only
        warnings.warn("y_pred contains classes not in y_true", UserWarning,
                      stacklevel=find_stack_level())
    score = balanced_accuracy_from_counts(tp, true, adjusted=adjusted, xp=xp)
    return cast(score, prob.float_dtype, xp)


@metric_edge
@_label_doc
def balanced_accuracy_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    adjusted: bool = False,
    labels: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Balanced accuracy: the mean of the per-class recalls.

    .. math:: \mathrm{BA} = \frac{1}{|K|}\sum_{k \in K} \frac{tp_k}{tp_k + fn_k},
       \qquad \mathrm{BA}_{adj} = \frac{\mathrm{BA} - 1/|K|}{1 - 1/|K|}

    where ``K`` is the set of classes with true samples.

    Parameters
    ----------
    %(targets_1d)s
    %(sample_weight)s
    adjusted : bool, default=False
        Rescale so that chance scores 0 and perfect scores 1.
    labels : array-like, default=None
        The complete set of classes (a metrix extension): it must contain every
        value of ``y_true`` and ``y_pred``. Declaring it with ``validate=False``
        makes the call sync-free; the value is that of scikit-learn.
    %(validate)s

    Returns
    -------
    score : 0-d array
        The balanced accuracy, on the inputs' device (a Python float for NumPy
        inputs).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.balanced_accuracy_score``.
    .. [2] K. H. Brodersen et al., "The balanced accuracy and its posterior
       distribution", ICPR 2010.
    """
    lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate)
    if lane is not None and lane.n_classes > 1:
        return _ns.to_output(lane.ops.lane(_balanced_accuracy_lane, (lane.n_classes,
                                                                    bool(adjusted)),
                                           y_true, y_pred, sample_weight), lane.xp)
    prob = _single_label_problem(y_true, y_pred, sample_weight, labels, validate,
                                 want_cm=labels is not None)
    score = balanced_accuracy_from_problem(prob, adjusted=adjusted, validate=validate)
    return _ns.to_output(score, prob.xp)


def _balanced_accuracy_lane(xp, o, config, y_true, y_pred, weights):
    c, adjusted = config
    prob = lane_problem(xp, o, y_true, y_pred, weights, c)
    return balanced_accuracy_from_problem(prob, adjusted=adjusted, validate=False)


# -- Matthews correlation --------------------------------------------------

def mcc_from_counts(tp, pred, true, *, xp):
    r"""MCC (Gorodkin's multiclass form) from per-class counts; 0 where undefined.

    .. math:: \frac{c\,n - \sum_k p_k t_k}
                   {\sqrt{(n^2 - \sum_k p_k^2)(n^2 - \sum_k t_k^2)}}

    with ``c`` the trace of the confusion matrix, ``p``/``t`` its column / row sums
    (classes on the last axis; leading axes are a batch).
    """
    n_correct, n = xp.sum(tp, axis=-1), xp.sum(pred, axis=-1)
    cov_ytyp = n_correct * n - xp.sum(true * pred, axis=-1)
    cov_ypyp = n * n - xp.sum(pred * pred, axis=-1)
    cov_ytyt = n * n - xp.sum(true * true, axis=-1)
    den = cov_ypyp * cov_ytyt
    return safe_divide(cov_ytyp, xp.sqrt(den), zero_value=0.0, xp=xp)


def mcc_from_confusion(cm, *, fdt, xp):
    """:func:`mcc_from_counts` of a square confusion matrix, in ``fdt``: the streaming
    ``MatthewsCorrCoef``'s value."""
    return mcc_from_counts(*counts_from_confusion(xp.astype(cm, fdt), xp=xp), xp=xp)


def mcc_from_problem(prob):
    r"""MCC from the trace and the row / column sums of the confusion matrix."""
    xp = prob.xp
    return cast(mcc_from_counts(*matrix_counts(prob), xp=xp), prob.float_dtype, xp)


@metric_edge
@_label_doc
def matthews_corrcoef(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Compute the Matthews correlation coefficient (binary and multiclass; Gorodkin's R_K).

    .. math::
        \mathrm{MCC} = \frac{c\,s - \sum_k p_k t_k}
        {\sqrt{(s^2 - \sum_k p_k^2)(s^2 - \sum_k t_k^2)}}

    with ``c`` the trace of the confusion matrix, ``s`` its total, ``t_k`` and
    ``p_k`` its row and column sums; 0 where the denominator is 0.

    Parameters
    ----------
    %(targets_1d)s
    %(sample_weight)s
    labels : array-like, default=None
        The complete set of classes (a metrix extension; sync-free with
        ``validate=False``): it must contain every value present.
    %(validate)s

    Returns
    -------
    mcc : 0-d array
        The coefficient, in [-1, 1], on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.matthews_corrcoef``.
    .. [2] J. Gorodkin, "Comparing two K-category assignments by a K-category
       correlation coefficient", Comput. Biol. Chem. 28, 2004.
    """
    lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate)
    if lane is not None and lane.n_classes > 1:
        return _ns.to_output(lane.ops.lane(_mcc_lane, lane.n_classes, y_true, y_pred,
                                           sample_weight), lane.xp)
    prob = _single_label_problem(y_true, y_pred, sample_weight, labels, validate,
                                 want_cm=labels is not None)
    return _ns.to_output(mcc_from_problem(prob), prob.xp)


def _mcc_lane(xp, o, c, y_true, y_pred, weights):
    return mcc_from_problem(lane_problem(xp, o, y_true, y_pred, weights, c))


# -- Cohen's kappa ---------------------------------------------------------

def _check_kappa_params(weights, replace_undefined_by):
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(
            "The 'weights' parameter of cohen_kappa_score must be a str among "
            f"{{'linear', 'quadratic'}} or None. Got {weights!r} instead.")
    r = replace_undefined_by
    ok = isinstance(r, numbers.Real) and not isinstance(r, bool) and (
        math.isnan(r) or -1.0 <= r <= 1.0)
    if not ok:
        raise ValueError(
            "The 'replace_undefined_by' parameter of cohen_kappa_score must be a float in "
            f"the range [-1.0, 1.0] or nan. Got {r!r} instead.")


def kappa_terms(cm, counts, *, weights, xp, acc):
    r"""``(n, observed, expected)`` of Cohen's kappa from a confusion matrix.

    ``observed = sum(W * C)`` and ``expected = sum(W * outer(pred, true)) / n``
    with ``W`` the disagreement weights (0/1, ``|i - j|`` or ``(i - j)^2``);
    ``counts`` are the matrix's (tp, pred, true).  Shared with the streaming
    ``CohenKappa``.
    """
    tp, pred, true = counts
    n_col = xp.sum(true, axis=-1, keepdims=True)  # classes on the last axis
    n = n_col[..., 0]
    if weights is None:
        observed = n - xp.sum(tp, axis=-1)              # off-diagonal mass of C
        # off-diagonal mass of outer(p, t), as sum_i p_i (n - t_i): no n^2 - s
        # cancellation (a fused multiply-add under jit would leave a residue)
        chance = xp.sum(pred * (n_col - true), axis=-1)
    else:
        cm = xp.astype(cm, acc)
        idx = xp.arange(cm.shape[0], dtype=acc, device=_ns.device_of(cm))
        diff = idx[:, None] - idx[None, :]
        w_mat = xp.abs(diff) if weights == "linear" else diff * diff
        observed = xp.sum(w_mat * cm)
        chance = xp.sum(w_mat * (pred[:, None] * true[None, :]))
    return n, observed, safe_divide(chance, n, zero_value=0.0, xp=xp)


def kappa_value(n, observed, expected, *, replace_undefined_by, xp):
    """``1 - observed / expected``; ``replace_undefined_by`` where n or expected is 0."""
    undefined = (n == 0) | (expected == 0)
    safe = xp.where(undefined, xp.ones_like(expected), expected)
    fill = xp.asarray(float(replace_undefined_by), dtype=expected.dtype,
                      device=_ns.device_of(expected))
    return xp.where(undefined, fill, 1 - observed / safe)


def kappa_from_confusion(cm, *, weights, fdt, xp, replace_undefined_by=math.nan):
    """Cohen's kappa (:func:`kappa_terms`, :func:`kappa_value`) of a square confusion
    matrix, in ``fdt``: the streaming ``CohenKappa``'s value."""
    cmf = xp.astype(cm, fdt)
    n, observed, expected = kappa_terms(cmf, counts_from_confusion(cmf, xp=xp),
                                        weights=weights, xp=xp, acc=fdt)
    return kappa_value(n, observed, expected, replace_undefined_by=replace_undefined_by,
                       xp=xp)


def kappa_from_problem(prob, *, weights, replace_undefined_by, validate):
    r"""Cohen's kappa ``1 - sum(w * C) / sum(w * E)``, ``E`` the chance matrix."""
    xp = prob.xp
    n, observed, expected = kappa_terms(prob.cm, matrix_counts(prob), weights=weights,
                                        xp=xp, acc=prob.acc_dtype)
    if validate:  # host reads, validate=True only
        if bool(n == 0):
            warnings.warn(
                "`y2` contains no labels that are present in both `y1` and `labels`."
                "`cohen_kappa_score` is undefined and set to the value defined by "
                "the `replace_undefined_by` param, which is set to "
                f"{replace_undefined_by}.", as_sklearn_too(UndefinedMetricWarning),
                stacklevel=find_stack_level())
        elif bool(expected == 0):
            warnings.warn(
                "`y1`, `y2` and `labels` have only one label in common. "
                "`cohen_kappa_score` is undefined and set to the value defined by the "
                "the `replace_undefined_by` param, which is set to "
                f"{replace_undefined_by}.", as_sklearn_too(UndefinedMetricWarning),
                stacklevel=find_stack_level())
    kappa = kappa_value(n, observed, expected, replace_undefined_by=replace_undefined_by,
                        xp=xp)
    return cast(kappa, prob.float_dtype, xp)


@metric_edge
@_label_doc
def cohen_kappa_score(
    y1: ArrayLike,
    y2: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    weights: Literal["linear", "quadratic"] | None = None,
    sample_weight: ArrayLike | None = None,
    replace_undefined_by: float = float("nan"),
    validate: bool = True,
) -> Array:
    r"""Compute Cohen's kappa: the agreement of two annotators beyond chance.

    .. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} C_{ij}}{\sum_{ij} w_{ij} E_{ij}},
       \qquad E_{ij} = \frac{p_i\, t_j}{s}

    with ``w`` zero on the diagonal and one elsewhere (unweighted), ``|i - j|``
    (linear) or ``(i - j)^2`` (quadratic). Unweighted kappa needs only the
    per-class counts; weighted kappa reads the C x C matrix.

    Parameters
    ----------
    y1, y2 : array of shape (n_samples,)
        Labels of the two annotators.
    labels : array-like, default=None
        Classes to index the matrix (sync-free with ``validate=False``); at
        least one must occur in ``y1``.
    weights : {None, "linear", "quadratic"}, default=None
        Disagreement weights: none (0/1), ``|i - j|`` or ``(i - j)^2``.
    %(sample_weight)s
    replace_undefined_by : float in [-1, 1] or nan, default=nan
        Value when kappa is undefined (an ``UndefinedMetricWarning`` is
        emitted with ``validate=True``).
    %(validate)s

    Returns
    -------
    kappa : 0-d array
        The kappa statistic, in [-1, 1], on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.cohen_kappa_score``.
    .. [2] J. Cohen, "A coefficient of agreement for nominal scales", 1960.
    """
    _check_kappa_params(weights, replace_undefined_by)
    _check_labels_nonempty(labels)
    lane = lane_inputs(y1, y2, sample_weight, labels, validate)
    if lane is not None and lane.n_classes > 1:
        config = (lane.n_classes, weights, float(replace_undefined_by))
        return _ns.to_output(lane.ops.lane(_kappa_lane, config, y1, y2, sample_weight),
                             lane.xp)
    prob = _single_label_problem(y1, y2, sample_weight, labels, validate,
                                 want_cm=weights is not None or labels is not None)
    if labels is not None and validate and not any_label_in_y_true(prob, labels):
        raise ValueError(
            "At least one label in `labels` must be present in `y1` (even though "
            "`cohen_kappa_score` is otherwise agnostic to the order of `y1` and `y2`).")
    res = kappa_from_problem(prob, weights=weights, replace_undefined_by=replace_undefined_by,
                             validate=validate)
    return _ns.to_output(res, prob.xp)


def _kappa_lane(xp, o, config, y1, y2, weights):
    c, kappa_weights, replace = config
    prob = lane_problem(xp, o, y1, y2, weights, c)
    return kappa_from_problem(prob, weights=kappa_weights, replace_undefined_by=replace,
                              validate=False)


# -- error rates -----------------------------------------------------------

@metric_edge
def zero_one_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Zero-one loss: the fraction (or number) of wrong predictions.

    .. math:: L_{01} = 1 - \frac{\sum_i w_i [\hat y_i = y_i]}{\sum_i w_i}

    Multilabel input counts a sample as right only if all its labels are.

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix (any supported array library).
    y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or a label-indicator matrix, as returned by a classifier.
    normalize : bool, default=True
        ``False`` returns the (weighted) number of misclassifications.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    validate : bool, default=True
        Check the values of the inputs (target types, NaN) on the host.
        ``False`` reads no value.

    Returns
    -------
    loss : 0-d array
        The fraction (or number) of misclassified samples, on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.zero_one_loss``.
    """
    xp, _, targets, w, fdt, acc = prepare_inputs(y_true, y_pred, sample_weight,
                                                 validate=validate, exact_binary=False)
    correct, total = correct_and_total(targets, w, xp, acc)
    accuracy = accuracy_from_totals(correct, total, normalize=normalize, xp=xp)
    loss = 1 - accuracy if normalize else total - accuracy
    return _ns.to_output(xp.astype(loss, fdt), xp)


@metric_edge
def hamming_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    validate: bool = True,
) -> Array:
    r"""Hamming loss: the (weighted) fraction of wrong labels.

    .. math:: L_H = \frac{\sum_i w_i \sum_l [\hat y_{il} \ne y_{il}]}{L \sum_i w_i}

    ``L = 1`` for binary and multiclass input.

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_labels)
        Ground-truth labels, or a label-indicator matrix (any supported array library).
    y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, or a label-indicator matrix, as returned by a classifier.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    validate : bool, default=True
        Check the values of the inputs (target types, NaN) on the host.
        ``False`` reads no value.

    Returns
    -------
    loss : 0-d array
        The fraction of wrong labels, on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.hamming_loss``.
    .. [2] G. Tsoumakas, I. Katakis, "Multi-Label Classification: An Overview", 2007.
    """
    xp, _, targets, w, fdt, acc = prepare_inputs(y_true, y_pred, sample_weight,
                                                 validate=validate, exact_binary=False)
    return _ns.to_output(xp.astype(hamming_from_targets(targets, w, xp, acc), fdt), xp)


def hamming_from_targets(targets, weights, xp, acc):
    """(Weighted) fraction of wrong labels, in ``acc``."""
    yt, yp = targets.y_true, targets.y_pred
    if targets.y_type == "multilabel-indicator":
        wrong = xp.sum(xp.astype(yt != yp, acc), axis=1)
        n_labels = float(yt.shape[1])
    else:
        wrong = xp.astype(yt != yp, acc)
        n_labels = 1.0
    if weights is None:
        return xp.sum(wrong) / (wrong.shape[0] * n_labels)
    return xp.sum(wrong * weights) / (xp.sum(weights) * n_labels)


# -- likelihood ratios -----------------------------------------------------

@metric_edge
@_label_doc
def class_likelihood_ratios(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    replace_undefined_by: float | dict[str, float] = float("nan"),
    validate: bool = True,
) -> tuple[Array, Array]:
    r"""Positive and negative likelihood ratios of a binary classification.

    .. math:: LR_+ = \frac{tp / (tp + fn)}{fp / (fp + tn)}, \qquad
              LR_- = \frac{fn / (tp + fn)}{tn / (fp + tn)}

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,)
        Binary labels; the positive class is the second of ``labels`` (the
        greater label by default).
    labels : array-like of length 2, default=None
        ``[negative, positive]`` (sync-free with ``validate=False``).
    %(sample_weight)s
    replace_undefined_by : nan, 1.0 or dict, default=nan
        Values for undefined ratios: nan, 1.0 (both worst-case 1), or
        ``{"LR+": value in [1, inf] or nan, "LR-": value in [0, 1] or nan}``.
    %(validate)s

    Returns
    -------
    positive_likelihood_ratio : 0-d array
        ``LR+``, on the inputs' device.
    negative_likelihood_ratio : 0-d array
        ``LR-``, on the inputs' device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.class_likelihood_ratios``.
    .. [2] J. A. Brenner, "Likelihood ratios in diagnostic testing", 2009.
    """
    replace = check_replace_lr(replace_undefined_by)
    _check_labels_nonempty(labels)
    lane = lane_inputs(y_true, y_pred, sample_weight, labels, validate)
    if lane is not None and lane.n_classes == 2:
        lr_pos, lr_neg = lane.ops.lane(_likelihood_ratios_lane, tuple(replace), y_true, y_pred,
                                       sample_weight)
        return _ns.to_output(lr_pos, lane.xp), _ns.to_output(lr_neg, lane.xp)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate)
    y_type = prepared.targets.y_type
    if validate and y_type != "binary":
        raise ValueError(
            "class_likelihood_ratios only supports binary classification "
            f"problems, got targets of type: {y_type}")
    _check_single_label_type(y_type)
    prob = label_problem(prepared, labels=labels, validate=validate,
                         want_cm=labels is not None)
    warn_single_label(prob)
    if len(prob.classes) != 2:
        raise ValueError(
            f"class_likelihood_ratios needs exactly two classes, got {len(prob.classes)}; "
            "pass labels=[negative, positive].")
    lr_pos, lr_neg = likelihood_ratios_from_problem(prob, replace=replace, validate=validate)
    return _ns.to_output(lr_pos, prob.xp), _ns.to_output(lr_neg, prob.xp)


def _likelihood_ratios_lane(xp, o, replace, y_true, y_pred, weights):
    prob = lane_problem(xp, o, y_true, y_pred, weights, 2)
    return likelihood_ratios_from_problem(prob, replace=replace, validate=False)
