"""Ranking metrics: ROC / PR / DET curves, their areas, and label rankings.

Every function here reads one sufficient statistic (:mod:`metrix.ranking._statistic`):
the scores sorted once, descending, with the positive and negative weight of
each group of tied scores.  AUC and AP are exact (ties count one half, as in
scikit-learn) and have static shapes, so with ``validate=False`` (and declared
``labels`` for multiclass input) they trace under ``jax.jit`` and
``torch.compile(fullgraph=True)``.  Exact curves have a data-dependent length
(eager only); ``thresholds=`` gives fixed-length binned curves that trace.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

from .._core import namespace as _ns
from .._core.edge import metric_edge
from .._core.lane import cast, lane_namespace_1d
from ..backends import ops
from ._averaging import (
    ONE_CLASS,
    ZERO_WEIGHTS,
    all_zero_weights,
    average_binary,
    both_classes,
    ovo_roc_auc,
    row_scores,
    warn_undefined,
)
from ._input import (
    Inputs,
    check_labels,
    discover_classes,
    encode_classes,
    equals,
    positive_of_max,
    target_type,
    unique_array,
    unique_values,
)
from ._rank_values import ap_from_terms, auc_from_u
from .curves import det_curve, precision_recall_curve, roc_curve
from .label_ranking import (
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
    top_k_accuracy_score,
)

__all__ = [
    "auc",
    "average_precision_score",
    "coverage_error",
    "dcg_score",
    "det_curve",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "ndcg_score",
    "precision_recall_curve",
    "roc_auc_score",
    "roc_curve",
    "top_k_accuracy_score",
]

_AVERAGES = ("micro", "macro", "samples", "weighted", None)


def _check_average(average, fn):
    if average not in _AVERAGES:
        raise ValueError(
            f"The 'average' parameter of {fn} must be a str among "
            f"{{'macro', 'micro', 'samples', 'weighted'}} or None. Got {average!r} instead.")


@metric_edge
def auc(x: Any, y: Any, *, validate: bool = True) -> Any:
    """Area under a curve given by points, with the trapezoidal rule.

    .. math:: A = \\pm \\sum_i (x_{i+1} - x_i) \\frac{y_{i+1} + y_i}{2}

    Parameters
    ----------
    x : array of shape (n,)
        Monotonic (increasing or decreasing) x coordinates.
    y : array of shape (n,)
        The y coordinates.
    validate : bool, default=True
        Check that ``x`` is monotonic (a host read).  Without it a
        non-increasing ``x`` is taken as decreasing.

    Returns
    -------
    area : 0-d array
        In the namespace and on the device of the inputs (a Python float
        for NumPy).

    References
    ----------
    .. [1] https://en.wikipedia.org/wiki/Trapezoidal_rule
    """
    from .._core.validation import check_consistent_length, column_or_1d

    xp, device = _ns.get_namespace_and_device(x, y)
    x = _ns.asarray(x, xp=xp, device=device)
    y = _ns.asarray(y, xp=xp, device=device)
    check_consistent_length(x, y)
    x = column_or_1d(x, xp=xp, input_name="x")
    y = column_or_1d(y, xp=xp, input_name="y")
    if x.shape[0] < 2:
        raise ValueError("At least 2 points are needed to compute area under curve, but "
                         f"x.shape = {x.shape[0]}")
    fdt = _ns.result_float_dtype(xp, device, x, y)
    acc = _ns.max_float_dtype(xp, device)
    xa, ya = xp.astype(x, acc), xp.astype(y, acc)
    dx = xa[1:] - xa[:-1]
    decreasing = xp.any(dx < 0)
    if validate and bool(decreasing) and not bool(xp.all(dx <= 0)):
        raise ValueError(f"x is neither increasing nor decreasing : {x}.")
    one = xp.ones((), dtype=acc, device=device)
    direction = xp.where(decreasing & xp.all(dx <= 0), -one, one)
    area = direction * xp.sum(dx * (ya[1:] + ya[:-1]) * 0.5)
    return _ns.to_output(xp.astype(area, fdt), xp)


# -- areas ------------------------------------------------------------------

_OVR_LABEL_MSGS = {
    "unique": "Parameter 'labels' must be unique",
    "ordered": "Parameter 'labels' must be ordered",
    "count": "Number of given labels, {0}, not equal to the number of columns in "
             "'y_score', {1}",
    "subset": "'y_true' contains labels not in parameter 'labels'",
}


def _infer_type(inp, labels):
    y, s = inp.y, inp.score
    if y.ndim == 2 and y.shape[1] > 1:
        return "multilabel-indicator"
    if s.ndim == 2 and (s.shape[1] > 2 or labels is not None):
        return "multiclass"
    return "binary"


def _score_1d(inp):
    s = inp.score
    if s.ndim == 2 and s.shape[1] == 1:
        s = inp.xp.reshape(s, (-1,))
    if s.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {tuple(s.shape)} "
                         "instead.")
    return s


def _binary_row(inp, metric, pos, validate, max_fpr=None):
    xp = inp.xp
    pos = xp.reshape(pos, (1, -1))
    if (metric == "roc_auc" and inp.score.ndim == 2 and inp.score.shape[1] > 1
            and not both_classes(pos, xp=xp)):
        # scikit-learn's one-class NaN comes before its check of the scores' shape
        warn_undefined(ONE_CLASS)
        return xp.asarray(float("nan"), dtype=inp.acc, device=_ns.device_of(inp.score))
    s = _score_1d(inp)
    # all weights 0: scikit-learn's one-class NaN comes first for ROC AUC
    if validate and all_zero_weights(inp.weight, xp=xp) and (
            metric != "roc_auc" or both_classes(pos, xp=xp)):
        raise ValueError(ZERO_WEIGHTS)
    value = row_scores(metric, xp.reshape(s, (1, -1)), pos=pos, weight=inp.weight,
                       acc=inp.acc, xp=xp, ops=inp.ops, max_fpr=max_fpr, warn=validate)
    return value[0]


def _multiclass_codes(inp, labels, validate, n_columns=None):
    """``(codes, n_classes)`` of a multiclass ``y_true``: among the declared
    ``labels``, else the classes present; ``n_columns`` classes, where given."""
    if labels is not None:
        labels = check_labels(labels, n_columns=len(labels) if n_columns is None else n_columns,
                              msgs=_OVR_LABEL_MSGS, inp=inp, validate=validate)
        return encode_classes(inp, labels), len(labels)
    classes, codes = discover_classes(inp)
    if n_columns is not None and len(classes) != n_columns:
        raise ValueError("Number of classes in y_true not equal to the number of columns "
                         "in 'y_score'")
    return codes, len(classes)


@metric_edge
def roc_auc_score(
        y_true: Any, y_score: Any, *,
        average: Literal["micro", "macro", "samples", "weighted"] | None = "macro",
        sample_weight: Any = None, max_fpr: float | None = None,
        multi_class: Literal["raise", "ovr", "ovo"] = "raise",
        labels: Sequence | None = None, validate: bool = True) -> Any:
    """Area under the ROC curve, exact with ties (binary, multiclass, multilabel).

    .. math:: \\mathrm{AUC} = \\frac{\\sum_g N_g (T_g - P_g / 2)}{T F}

    over the groups ``g`` of tied scores, sorted descending (``P_g``/``N_g``
    the group's positive/negative weight, ``T_g`` the positive weight up to
    and including it): the trapezoid through every distinct threshold.

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_classes)
        Binary or multiclass labels, or a multilabel indicator matrix.
    y_score : array of shape (n_samples,) or (n_samples, n_classes)
        Scores: of the greater label (binary), probabilities of each class
        (multiclass), or of each label (multilabel).
    average : {'micro', 'macro', 'samples', 'weighted'} or None, default='macro'
        How per-class (or per-sample) areas are averaged; ``None`` returns
        them all.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    max_fpr : float in (0, 1], default=None
        Standardised (McClish) partial AUC over [0, max_fpr] (binary).
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        Multiclass only: one-vs-rest or one-vs-one (Hand & Till) averaging.
    labels : host list, default=None
        The classes of the multiclass ``y_score`` columns (sorted).  Needed
        for a sync-free, traceable multiclass call.
    validate : bool, default=True
        Check target types, finiteness, probabilities, labels (host reads),
        and warn as scikit-learn.

    Returns
    -------
    auc : 0-d array, or array of shape (n_classes,) for ``average=None``
        In the namespace and on the device of ``y_score``.

    References
    ----------
    .. [1] D. J. Hand, R. J. Till, "A Simple Generalisation of the Area Under
       the ROC Curve for Multiple Class Classification Problems", Machine
       Learning 45, 2001.
    .. [2] D. K. McClish, "Analyzing a portion of the ROC curve", Medical
       Decision Making 9(3), 1989.
    """
    _check_average(average, "roc_auc_score")
    if max_fpr is not None and not (isinstance(max_fpr, numbers.Real) and 0 < max_fpr <= 1):
        raise ValueError("The 'max_fpr' parameter of roc_auc_score must be a float in the "
                         f"range (0.0, 1.0] or None. Got {max_fpr!r} instead.")
    if multi_class not in ("raise", "ovr", "ovo"):
        raise ValueError("The 'multi_class' parameter of roc_auc_score must be a str among "
                         f"{{'ovo', 'ovr', 'raise'}}. Got {multi_class!r} instead.")
    if max_fpr is None and labels is None and sample_weight is None:
        xp = _binary_lane_namespace(y_true, y_score, validate)
        if xp is not None:
            return _ns.to_output(ops(xp).lane(_binary_auc_lane, None, y_true, y_score), xp)
    # scikit-learn checks no weights before its one-vs-one "not supported" error
    ovo_weight = multi_class == "ovo" and sample_weight is not None
    # all-zero weights: checked where scikit-learn meets them (_binary_row, average_binary)
    inp = Inputs(y_true, y_score, None if ovo_weight else sample_weight, validate=validate,
                 nonzero_weights=False)
    xp = inp.xp
    y_type = target_type(inp) if validate else _infer_type(inp, labels)
    s = inp.score
    if y_type == "multiclass" or (y_type == "binary" and s.ndim == 2 and s.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise ValueError("Partial AUC computation not available in multiclass setting, "
                             "'max_fpr' must be set to `None`, received "
                             f"`max_fpr={max_fpr}` instead")
        if multi_class == "raise":
            raise ValueError("multi_class must be in ('ovo', 'ovr')")
        return inp.out(_multiclass_auc(inp, labels, multi_class, average, validate,
                                       ovo_weight=ovo_weight))
    if ovo_weight:  # not multiclass: multi_class is ignored and the weights count
        inp.add_weight(sample_weight, validate=validate, nonzero=False)
    if y_type == "binary":
        pos = positive_of_max(inp if inp.y.ndim == 1 else _flat_y(inp))
        return inp.out(_binary_row(inp, "roc_auc", pos, validate, max_fpr=max_fpr))
    if y_type != "multilabel-indicator":
        raise ValueError(f"{y_type} format is not supported")
    if s.shape != inp.y.shape:
        raise ValueError(f"y_true and y_score have different shape {tuple(inp.y.shape)} "
                         f"and {tuple(s.shape)}")
    y = xp.astype(inp.y, inp.acc)
    return inp.out(average_binary("roc_auc", y, s, inp.weight, average, acc=inp.acc, xp=xp,
                                  ops=inp.ops, max_fpr=max_fpr, warn=validate))


#: the binary ROC AUC lane's largest batch, a training-loop batch (on CPUs the
#: general path's blocked one-pass curve serves larger inputs)
AUC_LANE_MAX = 1 << 16


def _binary_lane_namespace(y, score, validate, pos_label=None):
    """The namespace of an unweighted binary lane call (1-D integer ``y`` and
    real floating ``score`` of one type and device, up to ``AUC_LANE_MAX``
    samples; validated calls after :func:`_binary_and_finite`), else None."""
    xp = lane_namespace_1d(y, score, None, None)
    if (xp is not None and y.shape[0] <= AUC_LANE_MAX
            and _ns.has_kind(xp, y.dtype, "integral")
            and _ns.has_kind(xp, score.dtype, "real floating")
            and (not validate or _binary_and_finite(xp, y, score, pos_label))):
        return xp
    return None


def _binary_and_finite(xp, y, score, pos_label=None) -> bool:
    """Host reads of a validated lane call: ``y`` holds exactly two values (one
    of them ``pos_label`` where given) and every score is finite (else the
    general path raises scikit-learn's error or warning)."""
    o = ops(xp)
    lo, hi = o.minmax(y)
    if bool(lo == hi):  # host read (validate=True): one class, the general path's error
        return False
    if pos_label is not None and not (bool(lo == pos_label) or bool(hi == pos_label)):
        return False  # host reads (validate=True): the general path's pos_label error
    # host reads (validate=True): exactly two label values, finite scores
    return bool(xp.all((y == lo) | (y == hi))) and bool(o.sum_is_finite(score))


def _binary_auc_lane(xp, o, config, y, score):
    """The training-loop lane of the binary ROC AUC (1-D, unweighted, ``validate=False``):
    the Mann-Whitney statistic (``ops.mann_whitney``; the positive class is the
    larger label, as ``roc_auc_score``) and its formula (:func:`auc_from_u`).  Taken up to
    ``AUC_LANE_MAX`` samples (a training-loop batch); larger inputs take the
    general path's one-pass curve."""
    device = _ns.device_of(score)
    u2, n_pos, n_neg = o.mann_whitney(score, y == xp.max(y))
    return _lane_result(auc_from_u(u2 * 0.5, n_pos, n_neg, xp=xp), score, xp, o, device)


def _binary_ap_lane(xp, o, pos_label, y, score):
    """The training-loop lane of the binary average precision (1-D, unweighted):
    ``ops.ap_terms`` and :func:`ap_from_terms`.  Taken up to ``AUC_LANE_MAX`` samples."""
    device = _ns.device_of(score)
    return _lane_result(ap_from_terms(*o.ap_terms(score, y == pos_label), xp=xp), score, xp,
                        o, device)


_binary_auc_lane.reads_order_only = _binary_ap_lane.reads_order_only = True


def _lane_result(value, score, xp, o, device):
    """A lane's value in the scores' result float: a Python float (a host
    kernel's) made an array, an array cast."""
    dtype = _ns.result_float_dtype(xp, device, score)
    if type(value) is float:
        return o.asarray_on(value, device, dtype=dtype)  # NumPy's: np.asarray
    return cast(value, dtype, xp)


def binary_auc_ap(y_true, y_score, names=("roc_auc", "average_precision"), *, pos_label=1,
                  sample_weight=None, validate=True):
    """``roc_auc_score`` and ``average_precision_score`` of one binary problem.

    One sort for both when their positive classes coincide (the greater label
    is ``pos_label``; known with ``validate=True``), else one each.  Returns
    ``{name: value}`` for the requested ``names``, each equal to the public
    function's value with these arguments.
    """
    names = tuple(names)
    inp = Inputs(y_true, y_score, sample_weight, validate=validate)
    if validate:
        y_type = target_type(inp)
        if y_type != "binary":
            raise ValueError(f"roc_auc / average_precision of a {y_type} y_true need the "
                             "public functions (evaluate takes binary targets only).")
    s = _score_1d(inp)
    if inp.y.ndim == 2:
        _flat_y(inp)
    present_array = unique_array(inp) if validate else None
    present = None if present_array is None else unique_values(inp, present_array)
    if "average_precision" in names and present is not None:
        _check_ap_pos_label(present_array, pos_label)
    masks = {}
    if "roc_auc" in names:
        masks["roc_auc"] = positive_of_max(inp)
    if "average_precision" in names:
        masks["average_precision"] = equals(inp, pos_label)
    xp = inp.xp
    row = xp.reshape(s, (1, -1))
    kw = dict(weight=inp.weight, acc=inp.acc, xp=xp, ops=inp.ops, warn=validate)
    if len(masks) == 2 and present is not None and len(present) == 2 \
            and present[-1] == pos_label:
        values = row_scores(tuple(masks), row, pos=xp.reshape(masks["roc_auc"], (1, -1)), **kw)
        out = dict(zip(masks, values))
    else:
        out = {m: row_scores(m, row, pos=xp.reshape(p, (1, -1)), **kw)
               for m, p in masks.items()}
    return {m: inp.out(out[m][0]) for m in names}


def _check_ap_pos_label(present, pos_label):
    """scikit-learn's check of a binary AP's ``pos_label`` against the labels present
    (``present``: the host array of :func:`unique_array`, printed as scikit-learn
    prints it, e.g. ``[0 1]``)."""
    if present.shape[0] == 2 and pos_label not in present.tolist():
        raise ValueError(f"pos_label={pos_label} is not a valid label. It should be one of "
                         f"{present}")


def _flat_y(inp):
    inp.y = inp.xp.reshape(inp.y, (-1,)) if not inp.host_y else inp.y.reshape(-1)
    return inp


def _multiclass_auc(inp, labels, multi_class, average, validate, ovo_weight=False):
    xp = inp.xp
    s = inp.score
    if s.ndim != 2:
        raise ValueError("`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                         f"`y_true` contains multiple classes. Got `y_score.shape={s.shape}`.")
    if validate:
        total = xp.sum(xp.astype(s, inp.acc), axis=1)
        if not bool(xp.all(xp.abs(total - 1.0) <= 1e-8 + 1e-5)):
            raise ValueError("Target scores need to be probabilities for multiclass roc_auc, "
                             "i.e. they should sum up to 1.0 over classes")
    options = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro",) + options
    if average not in options:
        raise ValueError(f"average must be one of {options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    if inp.y.ndim == 2:
        _flat_y(inp)
    codes, _ = _multiclass_codes(inp, labels, validate, s.shape[1])
    if multi_class == "ovo":
        if ovo_weight or inp.weight is not None:
            raise ValueError("sample_weight is not supported for multiclass one-vs-one ROC "
                             "AUC, 'sample_weight' must be None in this case.")
        return ovo_roc_auc(codes, s, average, acc=inp.acc, xp=xp, ops=inp.ops)
    return average_binary("roc_auc", None, s, inp.weight, average, acc=inp.acc, xp=xp,
                          ops=inp.ops, codes=codes, warn=validate)


@metric_edge
def average_precision_score(
        y_true: Any, y_score: Any, *,
        average: Literal["micro", "macro", "samples", "weighted"] | None = "macro",
        pos_label: int | float | bool | str = 1, sample_weight: Any = None,
        labels: Sequence | None = None, validate: bool = True) -> Any:
    """Average precision: the step-wise area under the precision-recall curve.

    .. math:: \\mathrm{AP} = \\sum_g (R_g - R_{g-1}) P_g

    over the distinct thresholds ``g`` in decreasing order (no linear
    interpolation, as scikit-learn).

    Parameters
    ----------
    y_true : array of shape (n_samples,) or (n_samples, n_classes)
        Binary or multiclass labels, or a multilabel indicator matrix.
    y_score : array of shape (n_samples,) or (n_samples, n_classes)
        Scores of the positive class (binary), or of each class or label.
    average : {'micro', 'macro', 'samples', 'weighted'} or None, default='macro'
        How per-class (or per-sample) values are averaged; ``None`` returns
        them all.
    pos_label : int, float, bool or str, default=1
        The positive class (binary ``y_true`` only).
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    labels : host list, default=None
        A metrix extension: the classes of a multiclass ``y_score``'s columns
        (sorted); without it they are read from ``y_true`` (a sort and sync).
    validate : bool, default=True
        Check target types, finiteness and ``pos_label`` (host reads), and
        warn as scikit-learn.

    Returns
    -------
    ap : 0-d array, or array of shape (n_classes,) for ``average=None``
        In the namespace and on the device of ``y_score``.

    References
    ----------
    .. [1] https://en.wikipedia.org/wiki/Evaluation_measures_(information_retrieval)
    """
    _check_average(average, "average_precision_score")
    if sample_weight is None and type(pos_label) is int:
        xp = _binary_lane_namespace(y_true, y_score, validate, pos_label)
        if xp is not None:
            return _ns.to_output(ops(xp).lane(_binary_ap_lane, pos_label, y_true, y_score), xp)
    inp = Inputs(y_true, y_score, sample_weight, validate=validate, nonzero_weights=False)
    xp = inp.xp
    y_type = target_type(inp) if validate else _infer_type(inp, labels)
    if y_type == "binary":
        if inp.y.ndim == 2:
            _flat_y(inp)
        if validate:
            _check_ap_pos_label(unique_array(inp), pos_label)
        return inp.out(_binary_row(inp, "average_precision", equals(inp, pos_label),
                                   validate))
    if y_type == "multilabel-indicator":
        if pos_label != 1:
            raise ValueError("Parameter pos_label is fixed to 1 for multilabel-indicator "
                             "y_true. Do not set pos_label or set pos_label to 1.")
        if inp.score.shape != inp.y.shape:
            raise ValueError(f"y_true and y_score have different shape {tuple(inp.y.shape)}"
                             f" and {tuple(inp.score.shape)}")
        return inp.out(average_binary("average_precision", xp.astype(inp.y, inp.acc),
                                      inp.score, inp.weight, average, acc=inp.acc, xp=xp,
                                      ops=inp.ops, warn=validate))
    if y_type != "multiclass":
        raise ValueError(f"{y_type} format is not supported")
    if pos_label != 1:
        raise ValueError("Parameter pos_label is fixed to 1 for multiclass y_true. Do not set "
                         "pos_label or set pos_label to 1.")
    if inp.y.ndim == 2:
        _flat_y(inp)
    codes, n_classes = _multiclass_codes(inp, labels, validate)
    s = inp.score
    if s.ndim != 2 or s.shape[1] != n_classes:
        raise ValueError("`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                         f"`y_true` contains multiple classes. Got `y_score.shape={s.shape}`.")
    return inp.out(average_binary("average_precision", None, s, inp.weight, average,
                                  acc=inp.acc, xp=xp, ops=inp.ops, codes=codes, warn=validate))
