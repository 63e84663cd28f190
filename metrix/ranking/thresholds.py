"""Binary classification at every threshold: confusion counts, or any metric.

Public through :mod:`metrix.ranking`.  :func:`confusion_matrix_at_thresholds`
reads the exact curve of :mod:`._statistic` (one sort, cumulative sums, the
end of each tie group), as ``roc_curve`` does; :func:`metric_at_thresholds`
sorts once the same way (stable, as scikit-learn) and calls a metric once per
distinct score.  Both have a data-dependent length: eager only.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from collections.abc import Callable
from typing import Any

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.edge import metric_edge
from .._core.stacklevel import find_stack_level
from .._core.validation import assert_all_finite, column_or_1d
from ..backends import ops as _ops
from ._input import Inputs
from ._statistic import group_ends, sort_desc
from .curves import _curve_counts, curve_doc


def _keyword_only_warning(version):
    """scikit-learn's ``_deprecate_positional_args``: keyword-only arguments given
    by position still work, with its ``FutureWarning``."""

    def decorate(func):
        params = inspect.signature(func).parameters
        positional = [n for n, p in params.items()
                      if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
        keyword_only = [n for n, p in params.items() if p.kind == inspect.Parameter.KEYWORD_ONLY]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            extra = len(args) - len(positional)
            if extra <= 0:
                return func(*args, **kwargs)
            given = ", ".join(f"{name}={arg}"
                              for name, arg in zip(keyword_only[:extra], args[-extra:]))
            warnings.warn(f"Pass {given} as keyword args. From version {version} passing "
                          "these as positional arguments will result in an error",
                          FutureWarning, stacklevel=find_stack_level())
            kwargs.update(zip(positional + keyword_only, args))
            return func(**kwargs)

        return wrapper

    return decorate


@_keyword_only_warning("1.11")
@metric_edge
@curve_doc
def confusion_matrix_at_thresholds(y_true: Any, y_score: Any, *,
                                   pos_label: int | float | bool | str | None = None,
                                   sample_weight: Any = None,
                                   thresholds: int | Any | None = None,
                                   validate: bool = True) -> tuple[Any, Any, Any, Any, Any]:
    """Binary confusion matrix terms at every classification threshold.

    A sample is predicted positive at threshold ``t`` when its score is
    ``>= t``.  With ``T(t)``/``F(t)`` the positive/negative weight scored
    ``>= t`` and ``T``/``F`` the totals,

    .. math:: \\mathrm{tp}(t) = T(t),\\quad \\mathrm{fp}(t) = F(t),\\quad
              \\mathrm{fn}(t) = T - T(t),\\quad \\mathrm{tn}(t) = F - F(t)

    Parameters
    ----------
    %(binary)s
    sample_weight : array of shape (n_samples,), default=None
        Sample weights; zero-weight samples are dropped.
    thresholds : int or array, default=None
        A metrix extension.  ``None``: one point per distinct score
        (data-dependent length, eager), as scikit-learn.  An int ``T``: ``T``
        evenly spaced thresholds in [0, 1]; an array: those thresholds.  As in
        :func:`roc_curve`: static length, traceable, O(N + T) memory.
    %(validate)s

    Returns
    -------
    tns : array of shape (n_thresholds,)
        True negatives (weight of negatives scored ``< thresholds[i]``), in the
        namespace and on the device of ``y_score``, in the widest float dtype.
    fps : array of shape (n_thresholds,)
        False positives (negatives scored ``>= thresholds[i]``); ``fps[-1]`` is
        the total negative weight.
    fns : array of shape (n_thresholds,)
        False negatives (positives scored ``< thresholds[i]``).
    tps : array of shape (n_thresholds,)
        True positives (positives scored ``>= thresholds[i]``), increasing;
        ``tps[-1]`` is the total positive weight.
    thresholds : array of shape (n_thresholds,)
        Decreasing scores, in ``y_score``'s dtype.

    %(fawcett)s
    """
    inp, fps, tps, thr, totals = _curve_counts(y_true, y_score, pos_label, sample_weight,
                                               thresholds, validate)
    xp = inp.xp
    if totals is None:
        tot_n, tot_p = fps[-1], tps[-1]
        if thr.dtype != inp.score_dtype:  # scikit-learn returns the scores themselves
            thr = xp.astype(thr, inp.score_dtype)
    else:
        fps, tps, thr = xp.flip(fps), xp.flip(tps), xp.flip(thr)
        tot_n, tot_p = totals
    return tot_n - fps, fps, tot_p - tps, tps, thr


def _is_namespace_array(x, xp) -> bool:
    if _ns.is_host_array(x):
        return False
    try:
        return _ns.get_namespace_and_device(x)[0] is xp
    except TypeError:
        return False


def _gather(value, xp, device):
    """One metric value (a number, an array or a nested tuple of them) as an
    array of ``xp`` on ``device``."""
    if isinstance(value, (list, tuple)):
        return _stack([_gather(v, xp, device) for v in value], xp, device)
    if _is_namespace_array(value, xp):
        return value
    if not _ns.is_host_array(value):
        value = _ns.to_host(value)  # another library's array: through the host
    return _ns.asarray(value, xp=xp, device=device)


def _stack(parts, xp, device):
    """``parts`` stacked along a new first axis, in their common dtype."""
    if not parts:
        return xp.zeros((0,), dtype=_ns.max_float_dtype(xp, device), device=device)
    dtypes = [p.dtype for p in parts]
    try:
        dtype = xp.result_type(*dtypes)
    except TypeError:  # e.g. int and float in array-api-strict: NumPy's float
        dtype = _ns.max_float_dtype(xp, device)
    return xp.stack([p if p.dtype == dtype else xp.astype(p, dtype) for p in parts])


def _metric_values(values, xp, device):
    """The values of every threshold as one array (``np.asarray`` for NumPy)."""
    stacked = _ops(xp).from_nested(values)  # NumPy: its asarray
    if stacked is not None:
        return stacked
    return _stack([_gather(v, xp, device) for v in values], xp, device)


@metric_edge
def metric_at_thresholds(y_true: Any, y_score: Any, metric_func: Callable[..., Any], *,
                         sample_weight: Any = None, metric_params: dict | None = None,
                         validate: bool = True) -> tuple[Any, Any]:
    """A binary metric at every classification threshold.

    For every distinct score ``t`` (decreasing), calls
    ``metric_func(y_true, y_pred, **metric_params)`` with the thresholded
    predictions

    .. math:: \\hat y_i(t) = [s_i \\ge t]

    (``int32``), as scikit-learn: ``y_true``, ``y_pred`` and
    ``sample_weight`` (passed when given) are sorted by decreasing score
    (stable) and zero-weight samples are dropped.  One sort, then one call
    per threshold: the loop runs over the distinct scores.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Ground truth labels (passed to ``metric_func`` as they are).
    y_score : array of shape (n_samples,)
        Scores, higher meaning more likely positive.
    metric_func : callable
        Called as ``metric_func(y_true, y_pred, **metric_params)``; returns a
        number or a collection of equal-size elements.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights; passed to ``metric_func`` when given.
    metric_params : dict, default=None
        Further keyword arguments of ``metric_func``.
    validate : bool, default=True
        Check finiteness and weights (reads values; a host sync).

    Returns
    -------
    metric_values : array of shape (n_thresholds,) or (n_thresholds, ...)
        The metric at each threshold: ``np.asarray`` of the values for NumPy,
        else stacked in the namespace and on the device of ``y_score``.
    thresholds : array of shape (n_thresholds,)
        Decreasing distinct scores, in ``y_score``'s dtype.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.metric_at_thresholds`` (1.9).
    """
    if not callable(metric_func):
        raise ValueError("The 'metric_func' parameter of metric_at_thresholds must be a "
                         f"callable. Got {metric_func!r} instead.")
    if metric_params is not None and not isinstance(metric_params, dict):
        raise ValueError("The 'metric_params' parameter of metric_at_thresholds must be an "
                         f"instance of 'dict' or None. Got {metric_params!r} instead.")
    inp = Inputs(y_true, y_score, sample_weight, validate=validate)
    xp, device = inp.xp, inp.device
    yxp = inp.hxp if inp.host_y else xp
    y = column_or_1d(inp.y, xp=yxp, input_name="y_true")
    score = column_or_1d(inp.score, xp=xp, input_name="y_score")
    if validate:
        assert_all_finite(y, xp=yxp)
    weight = inp.weight
    if weight is not None:
        keep = weight != 0
        score, weight = score[keep], weight[keep]
        y = y[_ns.to_host(keep)] if inp.host_y else y[keep]
    order, score = sort_desc(score, xp=xp, stable=True)
    y = y[_ns.to_host(order)] if inp.host_y else xp.take(y, order)
    if weight is not None:
        weight = xp.take(weight, order)
    thresholds = score[group_ends(score, xp=xp)] if score.shape[0] else score
    params = dict(metric_params or {})
    if weight is not None:
        params["sample_weight"] = weight
    values = [metric_func(y, xp.astype(score >= thresholds[i], xp.int32), **params)
              for i in range(thresholds.shape[0])]
    if thresholds.dtype != inp.score_dtype:
        thresholds = xp.astype(thresholds, inp.score_dtype)
    return _metric_values(values, xp, device), thresholds


# -- operating points ------------------------------------------------------

#: each operating point: (the value maximised, the constraint, the tie-break on
#: the value, whether its curve is the ROC (else the precision-recall curve))
OPERATING_POINTS = {
    "recall_at_fixed_precision": ("recall", "precision", "precision", False),
    "precision_at_fixed_recall": ("precision", "recall", "recall", False),
    "sensitivity_at_specificity": ("tpr", "tnr", None, True),
    "specificity_at_sensitivity": ("tnr", "tpr", None, True),
}

#: the stream class of each operating point (TorchMetrics' names)
_STREAM_NAMES = {"recall_at_fixed_precision": "RecallAtFixedPrecision",
                 "precision_at_fixed_recall": "PrecisionAtFixedRecall",
                 "sensitivity_at_specificity": "SensitivityAtSpecificity",
                 "specificity_at_sensitivity": "SpecificityAtSensitivity"}

#: the threshold of an ROC operating point no threshold meets (TorchMetrics')
NO_ROC_POINT = 1e6


def _rates(tps, fps, tot_p, tot_n, xp):
    """The rates of every curve point (``recall`` 1 without positives, as
    :func:`precision_recall_curve`; ``tpr`` / the false positive rate 0 without
    positives / negatives, as TorchMetrics' ROC)."""
    one = xp.ones_like(tps)
    return {"precision": safe_divide(tps, tps + fps, zero_value=float("nan"), xp=xp),
            "recall": xp.where(tot_p == 0, one, safe_divide(tps, tot_p, zero_value=1.0, xp=xp)),
            "tpr": safe_divide(tps, tot_p, zero_value=0.0, xp=xp),
            # tn / N, not 1 - FPR: exact at a least specificity such as 0.4 (6 of 10)
            "tnr": safe_divide(tot_n - fps, tot_n, zero_value=1.0, xp=xp)}


def operating_point(kind, minimum, tps, fps, tot_p, tot_n, thresholds, *, xp,
                    candidates=None, origin=None):
    """The best value of ``kind`` whose constraint is at least ``minimum``, and its threshold.

    The one formula of the operating points (one-shot and streaming).  ``tps``
    / ``fps`` are the positive / negative weight scored ``>= thresholds``,
    thresholds decreasing (index 0 the highest); ``candidates`` (a mask, or
    None: all) marks the points of the curve; ``origin`` (ROC only): the
    threshold of a point ``(0, 0)`` put before the others (TorchMetrics' exact
    ROC has one, at 1.0).  Static shapes, no host read.

    TorchMetrics' rules: the points whose constraint is ``>= minimum`` are
    candidates (a NaN precision, above every score, never is); the greatest
    value wins, ties going to the greater tie-break rate (the precision-recall
    pair) and then to the highest threshold.  When no point qualifies the
    value is 0, and the threshold NaN for the precision-recall pair (also when
    the best value is 0) or ``1e6`` for the ROC pair.
    """
    value_name, constraint_name, tie_name, roc = OPERATING_POINTS[kind]
    if roc and origin is not None:
        dev = _ns.device_of(tps)
        zero = xp.zeros((1,), dtype=tps.dtype, device=dev)
        tps, fps = xp.concat([zero, tps]), xp.concat([zero, fps])
        thresholds = xp.concat([xp.full((1,), origin, dtype=thresholds.dtype, device=dev),
                                thresholds])
        if candidates is not None:
            candidates = xp.concat([xp.ones((1,), dtype=xp.bool, device=dev), candidates])
    rates = _rates(tps, fps, tot_p, tot_n, xp)
    value = rates[value_name]
    ok = (rates[constraint_name] >= minimum) & (value == value)
    if candidates is not None:
        ok = ok & candidates
    low = xp.full_like(value, -float("inf"))
    best = xp.max(xp.where(ok, value, low))
    pick = ok & (value == best)
    if tie_name is not None:
        tie = rates[tie_name]
        pick = pick & (tie == xp.max(xp.where(pick, tie, low)))
    at = xp.argmax(xp.astype(pick, xp.int8), keepdims=True)  # the first: the highest threshold
    found = xp.any(ok)
    out = xp.where(found, xp.take(value, at)[0], xp.zeros_like(best))
    thr = xp.take(thresholds, at)[0]
    if roc:
        return out, xp.where(found, thr, xp.full_like(thr, NO_ROC_POINT))
    return out, xp.where(out == 0, xp.full_like(thr, float("nan")), thr)


def check_minimum(value, name):
    """``value`` as a float in [0, 1], or ``ValueError``."""
    if (not isinstance(value, numbers.Real) or isinstance(value, bool)
            or not 0.0 <= float(value) <= 1.0):
        raise ValueError(f"{name} must be a float in [0, 1], got {value!r}")
    return float(value)


def _operating_point(kind, minimum, y_true, y_score, pos_label, sample_weight, thresholds,
                     validate):
    """The one-shot operating point: the curve of :func:`confusion_matrix_at_thresholds`
    (decreasing thresholds), then :func:`operating_point`."""
    inp, fps, tps, thr, totals = _curve_counts(y_true, y_score, pos_label, sample_weight,
                                               thresholds, validate)
    xp = inp.xp
    if totals is None:
        tot_n, tot_p = fps[-1], tps[-1]
        origin = 1.0
    else:
        fps, tps, thr = xp.flip(fps), xp.flip(tps), xp.flip(thr)
        (tot_n, tot_p), origin = totals, None
    value, at = operating_point(kind, minimum, tps, fps, tot_p, tot_n, xp.astype(thr, inp.fdt),
                                xp=xp, origin=origin)
    return xp.astype(value, inp.fdt), at


_OP_DOC = """
    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Binary labels; with labels other than {{0, 1}} / {{-1, 1}} give ``pos_label``.
    y_score : array of shape (n_samples,)
        Scores, higher meaning more likely positive.
    {minimum} : float
        The least {constraint} of an operating point, in [0, 1].
    pos_label : int, float, bool or str, default=None
        The positive class.
    sample_weight : array of shape (n_samples,), default=None
        Sample weights; zero-weight samples are dropped.
    thresholds : int or array, default=None
        ``None``: every distinct score is a candidate threshold (exact,
        TorchMetrics' ``thresholds=None``; data-dependent, eager).  An int
        ``T``: ``T`` evenly spaced thresholds in [0, 1]; an array: those
        thresholds (binned: static shapes, TorchMetrics with the same
        ``thresholds``).
    validate : bool, default=True
        Check target type and finiteness (reads values; a host sync).

    Returns
    -------
    {value} : array
        0-d, in the namespace and on the device of ``y_score`` (a Python float
        for NumPy input): {none}.
    threshold : array
        0-d: the threshold of that point (predict positive when
        ``score >= threshold``){thr_none}.
"""


def _op_doc(func):
    kind = func.__name__
    value, constraint, _, roc = OPERATING_POINTS[kind]
    names = {"recall": "recall", "precision": "precision", "tpr": "sensitivity",
             "tnr": "specificity"}
    minimum = "min_" + names[constraint]
    none = "0 when no threshold qualifies"
    thr_none = ("; ``1e6`` when none qualifies, and 1.0 for the point\n        where "
                "nothing is predicted positive (exact mode, as TorchMetrics)" if roc
                else "; NaN when none qualifies or the value\n        is 0")
    func.__doc__ += (_OP_DOC.format(minimum=minimum, constraint=names[constraint],
                                    value=names[value], none=none, thr_none=thr_none)
                     + _SEE_ALSO.format(cls=_STREAM_NAMES[kind]))
    return func


_SEE_ALSO = """
    See Also
    --------
    precision_recall_curve : The curve of the precision-recall pair.
    roc_curve : The curve of the sensitivity-specificity pair.
    metrix.stream.{cls} : The streaming form (binned or exact).
"""


@metric_edge
@_op_doc
def recall_at_fixed_precision(y_true: Any, y_score: Any, *, min_precision: float,
                              pos_label: int | float | bool | str | None = None,
                              sample_weight: Any = None, thresholds: int | Any | None = None,
                              validate: bool = True) -> tuple[Any, Any]:
    """The highest recall at a precision of at least ``min_precision``, and its threshold.

    Over the thresholds ``t`` of the precision-recall curve,

    .. math:: \\max_t \\mathrm{recall}(t)\\ \\text{subject to}\\
              \\mathrm{precision}(t) \\ge p_{\\min}

    ties going to the higher precision, then to the higher threshold
    (TorchMetrics' ``binary_recall_at_fixed_precision``).
    """
    return _operating_point("recall_at_fixed_precision",
                            check_minimum(min_precision, "min_precision"), y_true, y_score,
                            pos_label, sample_weight, thresholds, validate)


@metric_edge
@_op_doc
def precision_at_fixed_recall(y_true: Any, y_score: Any, *, min_recall: float,
                              pos_label: int | float | bool | str | None = None,
                              sample_weight: Any = None, thresholds: int | Any | None = None,
                              validate: bool = True) -> tuple[Any, Any]:
    """The highest precision at a recall of at least ``min_recall``, and its threshold.

    Over the thresholds ``t`` of the precision-recall curve,

    .. math:: \\max_t \\mathrm{precision}(t)\\ \\text{subject to}\\
              \\mathrm{recall}(t) \\ge r_{\\min}

    ties going to the higher recall, then to the higher threshold
    (TorchMetrics' ``binary_precision_at_fixed_recall``).
    """
    return _operating_point("precision_at_fixed_recall", check_minimum(min_recall, "min_recall"),
                            y_true, y_score, pos_label, sample_weight, thresholds, validate)


@metric_edge
@_op_doc
def sensitivity_at_specificity(y_true: Any, y_score: Any, *, min_specificity: float,
                               pos_label: int | float | bool | str | None = None,
                               sample_weight: Any = None, thresholds: int | Any | None = None,
                               validate: bool = True) -> tuple[Any, Any]:
    """The highest sensitivity at a specificity of at least ``min_specificity``, and its threshold.

    Over the thresholds ``t`` of the ROC curve (sensitivity ``TPR``,
    specificity ``1 - FPR``),

    .. math:: \\max_t \\mathrm{TPR}(t)\\ \\text{subject to}\\ 1 - \\mathrm{FPR}(t) \\ge s_{\\min}

    ties going to the higher threshold (TorchMetrics'
    ``binary_sensitivity_at_specificity``).
    """
    return _operating_point("sensitivity_at_specificity",
                            check_minimum(min_specificity, "min_specificity"), y_true, y_score,
                            pos_label, sample_weight, thresholds, validate)


@metric_edge
@_op_doc
def specificity_at_sensitivity(y_true: Any, y_score: Any, *, min_sensitivity: float,
                               pos_label: int | float | bool | str | None = None,
                               sample_weight: Any = None, thresholds: int | Any | None = None,
                               validate: bool = True) -> tuple[Any, Any]:
    """The highest specificity at a sensitivity of at least ``min_sensitivity``, and its threshold.

    Over the thresholds ``t`` of the ROC curve (sensitivity ``TPR``,
    specificity ``1 - FPR``),

    .. math:: \\max_t 1 - \\mathrm{FPR}(t)\\ \\text{subject to}\\ \\mathrm{TPR}(t) \\ge s_{\\min}

    ties going to the higher threshold (TorchMetrics'
    ``binary_specificity_at_sensitivity``).
    """
    return _operating_point("specificity_at_sensitivity",
                            check_minimum(min_sensitivity, "min_sensitivity"), y_true, y_score,
                            pos_label, sample_weight, thresholds, validate)
