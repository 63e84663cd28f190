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
import warnings
from collections.abc import Callable
from typing import Any

from .._core import namespace as _ns
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

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 2006.
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
