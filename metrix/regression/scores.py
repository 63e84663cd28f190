"""Regression metrics, with scikit-learn's signatures, values, warnings and errors.

Statistic: weighted sums per output along the sample axis, accumulated in the
widest float of the device (float64 where it exists).  Each metric's per-row
terms go through ``ops(xp).fused_sums`` in one pass (cache-sized row blocks
on CPUs, one call on GPUs and under jit); unweighted medians are order
statistics (``ops(xp).order_statistics``: an in-place sort in NumPy, a
selection in torch CPU), weighted ones one argsort per output
(:func:`metrix.backends._quantile.weighted_quantile` through the adapter op
``ops(xp).weighted_quantile``).  Variances (R2, explained
variance) are two-pass: the weighted mean first, then the centred sum of
squares, so float32 data with a large mean keeps its score.

Every metric takes keyword-only ``validate=True``: with ``validate=False``
no value is read on the host (no NaN/inf, domain or zero-weight checks) and
the metric traces under ``jax.jit`` and ``torch.compile(fullgraph=True)``.
Results are 0-d arrays (Python floats for NumPy) or ``(n_outputs,)`` arrays
for ``multioutput="raw_values"``, in the namespace and on the device of the
inputs.
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any, Literal

from .._core import namespace as _ns
from .._core.edge import host_entry, metric_edge
from .._core.lane import cast, lane_float_dtypes, lane_namespace_1d
from .._core.stacklevel import find_stack_level
from ..backends import host_lane, ops
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ._input import (
    MULTIOUTPUT_VARIANCE,
    check_alpha,
    check_force_finite,
    check_log_domain,
    check_output_weights,
    check_power,
    check_reg_targets,
    check_tweedie_domain,
)

__all__ = [
    "max_error",
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
    "median_absolute_error",
    "mean_absolute_percentage_error",
    "mean_pinball_loss",
    "r2_score",
    "explained_variance_score",
    "mean_tweedie_deviance",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "d2_tweedie_score",
    "d2_pinball_score",
    "d2_absolute_error_score",
]

_PARAMS = """\
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values."""
_SW = """\
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights."""
_MO = """\
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
(n_outputs,), default="uniform_average"
        How to aggregate the outputs: all values, their mean, or their
        average with these weights."""
_VAL = """\
    validate : bool, default=True
        Check values (NaN/inf, all-zero weights, value domains). With False no
        value is read on the host: the metric traces under jit/compile."""
_RET = """\
    Returns
    -------
    {name} : 0-d array, or array of shape (n_outputs,) for "raw_values"
        In the namespace and on the device of the inputs (a Python float for
        NumPy); float32 for float32 inputs, else float64 where available."""
_REF = """\
    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.{name}`` (the numerical reference)."""


def _doc(name, summary, formula, extra="", sw=True, mo=True):
    """The docstring of the metric ``name`` (defined above its assignment), with
    its parameters in the order of its signature."""
    sections = {"y_true": _PARAMS, "validate": _VAL}  # _PARAMS holds y_pred too
    if sw:
        sections["sample_weight"] = _SW
    if mo:
        sections["multioutput"] = _MO
    if extra:
        sections[extra.split()[0]] = extra
    params = [sections[p] for p in inspect.signature(globals()[name]).parameters
              if p in sections]
    return (f"{summary}\n\n    .. math::\n\n        {formula}\n\n    Parameters\n"
            f"    ----------\n" + "\n".join(params) + "\n\n" + _RET.format(name=name)
            + "\n\n" + _REF.format(name=name) + "\n    ")


_FF = """\
    force_finite : bool, default=True
        Constant y_true: 1.0 for a perfect prediction, else 0.0, instead of
        nan / -inf."""
_MOV = _MO.replace('{"raw_values", "uniform_average"}',
                   '{"raw_values", "uniform_average", "variance_weighted"}')
_ALPHA = """\
    alpha : float, default=0.5
        Quantile level in [0, 1]."""
_POWER = """\
    power : float, default=0
        Tweedie power: <= 0 or >= 1 (0 normal, 1 Poisson, 2 gamma)."""


# -- kernels: sums along axis 0 of (n, k) arrays ----------------------------

def _wsum(a, w, xp):
    """``sum_i w_i a_ik`` per output, shape (k,).

    One output: a flat sum or dot product (BLAS); many outputs: ``w @ a``
    (one gemv).
    """
    if a.shape[1] == 1:
        va = a[:, 0]
        s = xp.sum(va) if w is None else xp.matmul(w, va)
        return xp.reshape(xp.asarray(s), (1,))
    return xp.sum(a, axis=0) if w is None else xp.matmul(w, a)


def _total_weight(t):
    return t.n_samples if t.sample_weight is None else t.xp.sum(t.sample_weight)


def _wmean(a, t):
    return _wsum(a, t.sample_weight, t.xp) / _total_weight(t)


def _means(t, fn, *arrays):
    """Weighted means per output of the per-row terms ``fn(*arrays)`` (a tuple).

    One fused pass over the rows (``ops(xp).fused_sums``): on CPUs the
    temporaries of ``fn`` live in cache-sized blocks, on GPUs in one kernel.
    """
    sums = ops(t.xp).fused_sums(fn, arrays, weights=t.sample_weight)
    total = _total_weight(t)
    return tuple(s / total for s in sums)


def _refined_wmean(a, t):
    """Weighted mean per output (:func:`_wmean`), refined by one more pass over
    the centred values on float32-only devices (a centre for variances)."""
    m = _wmean(a, t)
    if t.acc_dtype == t.xp.float32:  # no float64: one correction pass
        m = m + _means(t, lambda x: (x - m,), a)[0]
    return m


def _out(value, t):
    """``value`` in the output dtype, as the inputs' kind of output (0-d or float)."""
    return _ns.to_output(t.xp.astype(value, t.out_dtype), t.xp)


def _reduce(errors, t):
    """Aggregate per-output values as ``multioutput`` says (scikit-learn's ``_average``)."""
    xp, mo = t.xp, t.multioutput
    if isinstance(mo, str) and mo == "raw_values":
        return _out(errors, t)
    if mo is None or isinstance(mo, str):
        return _out(xp.mean(errors), t)
    return _out(xp.sum(errors * mo) / xp.sum(mo), t)


def _const(value, t):
    return t.xp.asarray(value, dtype=t.acc_dtype, device=t.device)


def _nan_result(t, msg):
    warnings.warn(msg, as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
    return _out(_const(float("nan"), t), t)


def explained_fraction(num, den, force_finite, xp):
    """The per-output formula of R2, explained variance and the D2 scores on
    every face: ``1 - num / den``, as scikit-learn's
    ``_assemble_fraction_of_explained_deviance`` (no masked writes, no division
    warning).  ``force_finite``: 1.0 where ``num == 0``, else 0.0 where
    ``den == 0``; otherwise ``1 - num / 0`` gives -inf (``num > 0``), inf or NaN
    (the D2 Tweedie score's formula too, whose ``force_finite`` is False)."""
    score = 1 - ops(xp).ieee_divide(num, den)  # num / 0 of IEEE: NaN for a zero or NaN num
    if force_finite:
        return xp.where(num == 0, xp.ones_like(num),
                        xp.where(den == 0, xp.zeros_like(num), score))
    return score


def _explained_fraction(num, den, t, force_finite):
    """:func:`explained_fraction` per output, then ``multioutput``."""
    xp = t.xp
    scores = explained_fraction(num, den, force_finite, xp)
    mo = t.multioutput
    if isinstance(mo, str) and mo == "variance_weighted":
        all_zero = xp.all(den == 0)  # constant y everywhere: uniform weights
        den_sum = xp.sum(den)
        den_sum = xp.where(den_sum == 0, xp.ones_like(den_sum), den_sum)
        return _out(xp.where(all_zero, xp.mean(scores), xp.sum(scores * den) / den_sum), t)
    return _reduce(scores, t)


# -- mean errors ------------------------------------------------------------

def mean_error_formula(kind, s, total, xp):
    """The mean errors' formula on every route: the weighted mean ``s / total``
    of the per-row error (``|d|`` or ``d^2``; sums per output on the general
    path), its square root for the root kinds."""
    m = s / total
    return xp.sqrt(m) if kind == "root" else m


def _mean_error_lane(xp, o, kind, y_true, y_pred, weights):
    """The training-loop lane of the mean errors (1-D, ``validate=False``):
    :func:`mean_error_formula` of the sums of ``|d|`` or ``d^2``.  The
    difference ``d`` in the inputs' float dtype (float32 at least), as
    scikit-learn subtracts; its terms summed in the widest float, each sum of
    products one dot product (``ops.dot``): one cast of ``d`` instead of one
    per input.  On NumPy arrays of one float32 / float64 dtype (and float
    weights) the sums and the formula are one adapter call (``ops.mean_error``,
    given the formula)."""
    value = o.mean_error(mean_error_formula, kind, y_true, y_pred, weights)
    if value is not None:
        return value
    acc, out = lane_float_dtypes(xp, y_true, y_pred, weights)
    if y_true.dtype == out and y_pred.dtype == out:  # the usual call: one float dtype
        d = cast(y_true - y_pred, acc, xp)
    else:
        d = cast(cast(y_true, out, xp) - cast(y_pred, out, xp), acc, xp)
    w = None if weights is None else cast(weights, acc, xp)
    if kind == "absolute":
        e = abs(d)
        s = xp.sum(e) if w is None else o.dot(e, w)
    else:
        s = o.dot(d, d) if w is None else o.dot(d * d, w)
    total = y_true.shape[0] if w is None else xp.sum(w)
    return cast(mean_error_formula(kind, s, total, xp), out, xp)


#: torch CPU: NumPy views up to 8,192 rows; beyond, torch's kernels (a
#: float64 cast inside the vectorised loop) cost less than NumPy's casts
_mean_error_lane.host_view_rows = 8192
_mean_error_lane.input_kinds = ("real floating",)


def _mean_error(kind, y_true, y_pred, sample_weight, multioutput, validate):
    """The lane's value, or None where the call takes the general path.

    With ``validate=True`` (and no weights) the value itself is the check: it
    is finite only if every input is (a NaN or inf propagates into the mean), so
    one host read of the result replaces the pass over the inputs; a non-finite
    value takes the general path, which names the bad input (or returns the
    overflow of finite inputs).
    """
    if not (type(multioutput) is str and multioutput == "uniform_average") or (
            validate and sample_weight is not None):
        return None
    xp = lane_namespace_1d(y_true, y_pred, sample_weight, "real floating")
    if xp is None:
        return None
    value = ops(xp).lane(_mean_error_lane, kind, y_true, y_pred, sample_weight)
    if validate and not math.isfinite(value):  # host read: validate=True
        return None
    return value  # a 0-d array: the edge makes a NumPy one a Python float


def _mean_error_metric(kind, name, custom_checks=True):
    """The public mean error ``name``: its general path (the lane, else the
    checked targets and :func:`_mean_error_general`) behind a host entry, which
    answers the training-loop call (``validate=False``, the uniform average) on
    host arrays on host views first (:func:`~metrix.backends.host_lane`)."""
    @metric_edge
    def general(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average",
                validate=True):
        fast = _mean_error(kind, y_true, y_pred, sample_weight, multioutput, validate)
        if fast is not None:
            return fast
        t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                              func=name, custom_checks=custom_checks)
        rows = (lambda a, b: (abs(b - a),)) if kind == "absolute" else _squared(t.xp)
        return _mean_error_general(kind, t, rows)

    def metric(
            y_true: Any, y_pred: Any, *, sample_weight: Any = None,
            multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
            validate: bool = True) -> Any:
        if not validate and type(multioutput) is str and multioutput == "uniform_average":
            value = host_lane(_mean_error_lane, kind, y_true, y_pred, sample_weight)
            if value is not None:
                return value
        return general(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput,
                       validate=validate)

    metric.__name__ = metric.__qualname__ = name
    return host_entry(general)(metric)


def _mean_error_general(kind, t, rows):
    """The general path's mean error: ``fused_sums`` of the per-row error
    ``rows`` per output, :func:`mean_error_formula`, then ``multioutput``."""
    sums = ops(t.xp).fused_sums(rows, (t.y_true, t.y_pred), weights=t.sample_weight)[0]
    return _reduce(mean_error_formula(kind, sums, _total_weight(t), t.xp), t)


def _squared(xp, log=False):
    """The per-row squared error (of ``log1p`` of the targets with ``log``)."""
    def squared(a, b):
        # log1p(a) - log1p(b) as one log1p: half the logs, and no cancellation
        d = xp.log1p((a - b) / (1 + b)) if log else a - b
        return (d * d,)

    return squared


mean_absolute_error = _mean_error_metric("absolute", "mean_absolute_error")
mean_absolute_error.__doc__ = _doc(
    "mean_absolute_error", "Mean absolute error regression loss.",
    r"\mathrm{MAE} = \sum_i w_i |y_i - \hat y_i| / \sum_i w_i")
mean_squared_error = _mean_error_metric("squared", "mean_squared_error")
mean_squared_error.__doc__ = _doc(
    "mean_squared_error", "Mean squared error regression loss.",
    r"\mathrm{MSE} = \sum_i w_i (y_i - \hat y_i)^2 / \sum_i w_i")
# scikit-learn does not run root_mean_squared_error's output weights through its checks
root_mean_squared_error = _mean_error_metric("root", "root_mean_squared_error", custom_checks=False)
root_mean_squared_error.__doc__ = _doc(
    "root_mean_squared_error", "Root mean squared error regression loss (per output).",
    r"\mathrm{RMSE} = \sqrt{\mathrm{MSE}}")


def _log_error(kind, y_true, y_pred, sample_weight, multioutput, validate, func, title):
    """The (root) mean squared error of ``log1p`` of the targets (checked > -1)."""
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          func=func, output_weights=False)
    if validate:
        check_log_domain(t, title)
        check_output_weights(t)
    return _mean_error_general(kind, t, _squared(t.xp, log=True))


@metric_edge
def mean_squared_log_error(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    return _log_error("squared", y_true, y_pred, sample_weight, multioutput, validate,
                      "mean_squared_log_error", "Mean Squared Logarithmic Error")
mean_squared_log_error.__doc__ = _doc(
    "mean_squared_log_error", "Mean squared logarithmic error (targets > -1).",
    r"\mathrm{MSLE} = \mathrm{MSE}(\log(1 + y), \log(1 + \hat y))")


@metric_edge
def root_mean_squared_log_error(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    return _log_error("root", y_true, y_pred, sample_weight, multioutput, validate,
                      "root_mean_squared_log_error", "Root Mean Squared Logarithmic Error")
root_mean_squared_log_error.__doc__ = _doc(
    "root_mean_squared_log_error", "Root mean squared logarithmic error (targets > -1).",
    r"\mathrm{RMSLE} = \sqrt{\mathrm{MSLE}}")


@metric_edge
def mean_absolute_percentage_error(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          func="mean_absolute_percentage_error")
    xp = t.xp
    eps = _const(2.220446049250313e-16, t)  # float64 eps, as scikit-learn

    def ape(a, b):
        return (abs((b - a) / xp.maximum(abs(a), eps)),)

    return _reduce(_means(t, ape, t.y_true, t.y_pred)[0], t)
mean_absolute_percentage_error.__doc__ = _doc(
    "mean_absolute_percentage_error", "Mean absolute percentage error (a fraction).",
    r"\mathrm{MAPE} = \sum_i w_i |y_i - \hat y_i| / \max(|y_i|, \epsilon) / \sum_i w_i")


def _pinball_raw(t, alpha, *preds):
    """Mean pinball loss per output of each prediction in ``preds`` (one pass):
    :func:`pinball_losses` of the checked targets."""
    return pinball_losses(t.y_true, preds, alpha, t.sample_weight, _total_weight(t), t.xp)


def pinball_part(d, alpha, xp):
    """The clipped per-row term of the pinball loss of ``d = y - pred``: its
    positive part (``alpha >= 0.5``) or its negative part; with ``d`` itself,
    their weighted means make the loss (:func:`pinball_from_means`)."""
    return xp.clip(d, min=0.0) if alpha >= 0.5 else xp.clip(d, max=0.0)


def pinball_losses(y_true, preds, alpha, weights, total, xp):
    """Mean pinball loss per output of each prediction in ``preds`` (one fused pass).

    ``alpha * mean(d+) + (1 - alpha) * mean(d-)`` from ``mean(d)`` and one
    clipped mean (:func:`pinball_part`, :func:`pinball_from_means`): the part
    with the larger coefficient is summed directly, the other is the
    difference, so the rounding stays below eps of the result.  ``weights``
    (``(n,)`` or None) and their ``total`` (``n`` for None) weigh the rows;
    ``preds`` may broadcast against ``y_true`` (a ``(1, k)`` constant).
    """
    def terms(a, *bs):
        ds = [a - b for b in bs]
        return tuple(v for d in ds for v in (d, pinball_part(d, alpha, xp)))

    sums = ops(xp).fused_sums(terms, (y_true, *preds), weights=weights)
    means = [s / total for s in sums]
    return [pinball_from_means(s, part, alpha) for s, part in zip(means[0::2], means[1::2])]


def d2_pinball_baseline(y_true, alpha, weights, xp):
    """The D2 pinball score's baseline prediction per output, shape ``(1, k)``:
    the weighted ``alpha``-quantile of ``y_true`` (scikit-learn's
    ``_weighted_percentile(..., average=True)``, the "averaged inverted CDF",
    through ``ops(xp).weighted_quantile``; a zero weight leaves a row out).
    The denominator is its mean pinball loss (:func:`pinball_losses`)."""
    q = ops(xp).weighted_quantile(y_true, alpha, weights=weights, average=True)
    return q[None, :]


def pinball_from_means(mean_d, mean_part, alpha):
    """The pinball loss from ``mean(d)`` and ``mean(part)``, ``d = y - pred`` and
    ``part`` its positive part (``alpha >= 0.5``) or its negative part: the part
    with the larger coefficient is summed directly, the other is the difference."""
    if alpha >= 0.5:
        pos, neg = mean_part, mean_part - mean_d
    else:
        pos, neg = mean_d - mean_part, -mean_part
    return alpha * pos + (1 - alpha) * neg


@metric_edge
def mean_pinball_loss(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, alpha: float = 0.5,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    alpha = check_alpha(alpha, "mean_pinball_loss")
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          func="mean_pinball_loss")
    return _reduce(_pinball_raw(t, alpha, t.y_pred)[0], t)
mean_pinball_loss.__doc__ = _doc(
    "mean_pinball_loss", "Pinball loss for quantile regression.",
    r"L_\alpha = \sum_i w_i \max(\alpha e_i, (\alpha - 1) e_i) / \sum_i w_i, "
    r"\quad e_i = y_i - \hat y_i", _ALPHA)


@metric_edge
def max_error(y_true: Any, y_pred: Any, *, validate: bool = True) -> Any:
    t = check_reg_targets(y_true, y_pred, None, None, validate=validate,
                          func="max_error", multioutput_param=False)
    if t.n_outputs > 1:
        raise ValueError("Multioutput not supported in max_error")
    xp = t.xp
    return _out(ops(xp).fused_max(lambda a, b: xp.abs(a - b), [t.y_true, t.y_pred])[0], t)
max_error.__doc__ = _doc(
    "max_error", "Maximum residual error (single output only).",
    r"\max_i |y_i - \hat y_i|", sw=False, mo=False)


# -- median -----------------------------------------------------------------

@metric_edge
def median_absolute_error(
        y_true: Any, y_pred: Any, *,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        sample_weight: Any = None, validate: bool = True) -> Any:
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          func="median_absolute_error")
    xp = t.xp
    r = abs(t.y_pred - t.y_true)  # __abs__: NumPy reuses the temporary
    errors = ops(xp).weighted_quantile(r, 0.5, weights=t.sample_weight, average=True,
                                       overwrite_input=True)
    return _reduce(errors, t)
median_absolute_error.__doc__ = _doc(
    "median_absolute_error",
    "Median absolute error: the (weighted, averaged inverted CDF) median of |e|.",
    r"\mathrm{median}_w(|y_i - \hat y_i|)")


# -- explained variance -----------------------------------------------------

@metric_edge
def explained_variance_score(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: (Literal["raw_values", "uniform_average", "variance_weighted"]
                      | Any) = "uniform_average", force_finite: bool = True,
        validate: bool = True) -> Any:
    check_force_finite(force_finite, "explained_variance_score")
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          allowed=MULTIOUTPUT_VARIANCE, func="explained_variance_score")
    xp = t.xp
    # mean(y_true - y_pred) as the mean of the differences (one fused pass with
    # mean(y_true)), not as a difference of means: on constant data (one sample)
    # both variances are rounding noise, and this order gives scikit-learn's noise
    m_diff, m_true = _means(t, lambda a, b: (a - b, a), t.y_true, t.y_pred)
    if t.acc_dtype == xp.float32:  # no float64: one correction pass for the means
        c_diff, c_true = _means(t, lambda a, b: (a - b - m_diff, a - m_true),
                                t.y_true, t.y_pred)
        m_diff, m_true = m_diff + c_diff, m_true + c_true

    def squares(a, b):
        c, e = a - b - m_diff, a - m_true
        return c * c, e * e

    num, den = _means(t, squares, t.y_true, t.y_pred)
    return _explained_fraction(num, den, t, force_finite)
explained_variance_score.__doc__ = _doc(
    "explained_variance_score", "Explained variance regression score.",
    r"1 - \mathrm{Var}_w(y - \hat y) / \mathrm{Var}_w(y)", _FF).replace(_MO, _MOV)


@metric_edge
def r2_score(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: (Literal["raw_values", "uniform_average", "variance_weighted"]
                      | Any | None) = "uniform_average", force_finite: bool = True,
        validate: bool = True) -> Any:
    check_force_finite(force_finite, "r2_score")
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          allowed=MULTIOUTPUT_VARIANCE, allow_none=True, func="r2_score",
                          output_weights=False)
    if t.n_samples < 2:
        return _nan_result(t, "R^2 score is not well-defined with less than two samples.")
    if validate:
        check_output_weights(t)
    m = _refined_wmean(t.y_true, t)

    def squares(a, b):
        d, e = a - b, a - m
        return d * d, e * e

    num, den = _means(t, squares, t.y_true, t.y_pred)
    return _explained_fraction(num, den, t, force_finite)
r2_score.__doc__ = _doc(
    "r2_score", "Coefficient of determination; nan with a warning below two samples.",
    r"R^2 = 1 - \sum_i w_i (y_i - \hat y_i)^2 / \sum_i w_i (y_i - \bar y_w)^2",
    _FF).replace(_MO, _MOV)


# -- deviances --------------------------------------------------------------

def _times_pow(u, x, e, xp):
    """``u * x**e`` with the common exponents as square roots and products.

    A general ``pow`` costs about three multiplications' worth of a
    logarithm and an exponential; ``sqrt`` and ``*`` are exact-rounded and
    cheap.  Negative exponents divide by the positive power.
    """
    k = abs(e)
    if k == 0:
        return u
    if k == 0.5:
        v = xp.sqrt(x)
    elif k == 1:
        v = x
    elif k == 1.5:
        v = x * xp.sqrt(x)
    elif k == 2:
        v = x * x
    elif k == 2.5:
        v = x * x * xp.sqrt(x)
    elif k == 3:
        v = x * x * x
    else:
        v = x ** k
    return u * v if e > 0 else u / v


def _general_half_deviances(a, preds, p, xp):
    """Halved unit deviances for a power outside {0, 1, 2}, and their first term.

    ``a^(2-p) / ((1-p)(2-p)) - b^(1-p) (a / (1-p) - b / (2-p))``: two powers
    per row instead of three.  The first term ``base`` depends on ``a`` alone.
    """
    at = xp.where(a > 0, a, xp.zeros_like(a)) if p < 0 else a
    base = _times_pow(1 / ((1 - p) * (2 - p)), at, 2 - p, xp)
    c1, c2 = 1 / (1 - p), 1 / (2 - p)
    return tuple(base - _times_pow(a * c1 - b * c2, b, 1 - p, xp) for b in preds), base


def half_deviances(a, preds, p, xp):
    """Unit Tweedie deviances of ``a`` against each of ``preds``, halved.

    ``preds`` may broadcast; the factor 2 is applied to the means.
    """
    if p == 0:
        return tuple((a - b) * (a - b) for b in preds)
    if p == 1:
        # xlogy(y, y / mu): y = 0 gives ratio 0, log(tiny) is finite and 0 * it is 0
        tiny = xp.finfo(a.dtype).smallest_normal
        return tuple(a * xp.log(xp.clip(a / b, min=tiny)) - a + b for b in preds)
    if p == 2:
        return tuple(a / b - xp.log(a / b) - 1 for b in preds)
    return _general_half_deviances(a, preds, p, xp)[0]


def _tweedie_targets(y_true, y_pred, sample_weight, power, validate, func):
    power = check_power(power, func)
    t = check_reg_targets(y_true, y_pred, sample_weight, None, validate=validate,
                          func=func, multioutput_param=False)
    if t.n_outputs > 1:
        raise ValueError(f"Multioutput not supported in {func}")
    return t


def deviance_scale(power):
    """The factor of the halved unit deviances' mean: the deviance is ``2 * mean``
    (``1 * mean``, the squared error, for power 0)."""
    return 1.0 if power == 0 else 2.0


def _mean_deviances(t, power, *preds):
    """Mean Tweedie deviance of ``y_true`` against each of ``preds`` (one pass)."""
    xp, scale = t.xp, deviance_scale(power)
    means = _means(t, lambda a, *bs: half_deviances(a, bs, power, xp), t.y_true, *preds)
    return [scale * m[0] for m in means]


@metric_edge
def mean_tweedie_deviance(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0,
        validate: bool = True) -> Any:
    t = _tweedie_targets(y_true, y_pred, sample_weight, power, validate,
                         "mean_tweedie_deviance")
    if validate:
        check_tweedie_domain(t.y_true, t.y_pred, power, xp=t.xp)
    return _out(_mean_deviances(t, power, t.y_pred)[0], t)
mean_tweedie_deviance.__doc__ = _doc(
    "mean_tweedie_deviance", "Mean Tweedie deviance regression loss.",
    r"\sum_i w_i d_p(y_i, \hat y_i) / \sum_i w_i", _POWER, mo=False)


@metric_edge
def mean_poisson_deviance(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, validate: bool = True) -> Any:
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=1,
                                 validate=validate)
mean_poisson_deviance.__doc__ = _doc(
    "mean_poisson_deviance", "Mean Poisson deviance (Tweedie power 1).",
    r"\sum_i w_i\,2 (y_i \log(y_i / \hat y_i) - y_i + \hat y_i) / \sum_i w_i", mo=False)


@metric_edge
def mean_gamma_deviance(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, validate: bool = True) -> Any:
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=2,
                                 validate=validate)
mean_gamma_deviance.__doc__ = _doc(
    "mean_gamma_deviance", "Mean gamma deviance (Tweedie power 2).",
    r"\sum_i w_i\,2 (\log(\hat y_i / y_i) + y_i / \hat y_i - 1) / \sum_i w_i", mo=False)


def _d2_tweedie_parts(t, p):
    """Mean deviance of the predictions and of the constant ``m = mean(y_true)``.

    For a power outside {0, 1, 2} the baseline needs no second pass term:
    ``mean(d(a, m)) / 2 = mean(base) - m^(2-p) / ((1-p)(2-p))``, because
    ``sum w a = m sum w``; ``base`` is already computed for the predictions.
    """
    xp = t.xp
    m = _wmean(t.y_true, t)
    if p in (0, 1, 2):
        return _mean_deviances(t, p, t.y_pred, m[None, :])

    def rows(a, b):
        (dev,), base = _general_half_deviances(a, (b,), p, xp)
        return dev, base

    num, mean_base = _means(t, rows, t.y_true, t.y_pred)
    return 2 * num[0], 2 * tweedie_null_half_deviance(mean_base, m, p, xp)[0]


def tweedie_null_terms(a, p, xp):
    """The per-row term of ``y_true`` alone in the null deviance's expansion
    (:func:`tweedie_null_half_deviance`): ``a^2`` (power 0), ``a log a`` (1;
    0 at ``a = 0``), ``log a`` (2), else ``max(a, 0)^(2-p) / ((1-p)(2-p))`` (the
    first term of :func:`_general_half_deviances`; ``max`` only for p < 0)."""
    if p == 0:
        return a * a
    if p == 1:  # xlogy(a, a): 0 at a = 0
        pos = a > 0
        return xp.where(pos, a * xp.log(xp.where(pos, a, xp.ones_like(a))), xp.zeros_like(a))
    if p == 2:
        return xp.log(a)
    at = xp.where(a > 0, a, xp.zeros_like(a)) if p < 0 else a
    return _times_pow(1 / ((1 - p) * (2 - p)), at, 2 - p, xp)


def tweedie_null_half_deviance(mean_term, m, p, xp):
    """The mean halved Tweedie deviance of ``y`` against its weighted mean ``m``,
    from ``mean_term``, the weighted mean of :func:`tweedie_null_terms`.

    Summing the unit deviance ``d_p(y, m)`` with ``sum w y = m sum w`` leaves
    one sum of a function of ``y`` alone:

    * p = 0: ``mean(y^2) - m^2`` (clipped at 0: rounding);
    * p = 1: ``mean(y log y) - m log m`` (``-y + m`` sums to 0);
    * p = 2: ``log m - mean(log y)`` (``y / m - 1`` sums to 0);
    * else: ``mean(max(y, 0)^(2-p)) / ((1-p)(2-p)) - m^(2-p) / ((1-p)(2-p))``
      (``m^(1-p) (y / (1-p) - m / (2-p))`` sums to ``m^(2-p) / ((1-p)(2-p))``).

    So the D2 Tweedie score's state is a fixed set of weighted sums (``sum w``,
    ``sum w y``, ``sum w term``).  The one-shot function uses it for powers
    outside {0, 1, 2}, where it saves the second pass; for 0, 1 and 2 it keeps
    the two-pass deviance around ``m`` (no cancellation).
    """
    if p == 0:
        return xp.clip(mean_term - m * m, min=0.0)
    if p == 1:
        return mean_term - tweedie_null_terms(m, 1, xp)
    if p == 2:
        return xp.log(m) - mean_term
    return mean_term - _times_pow(1 / ((1 - p) * (2 - p)), m, 2 - p, xp)


@metric_edge
def d2_tweedie_score(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0,
        validate: bool = True) -> Any:
    t = _tweedie_targets(y_true, y_pred, sample_weight, power, validate, "d2_tweedie_score")
    if t.n_samples < 2:
        return _nan_result(t, "D^2 score is not well-defined with less than two samples.")
    if validate:
        check_tweedie_domain(t.y_true, t.y_pred, power, xp=t.xp)
    num, den = _d2_tweedie_parts(t, power)
    if validate and bool(den == 0):  # scikit-learn divides Python floats: host read
        raise ZeroDivisionError("float division by zero")
    return _out(explained_fraction(num, den, False, t.xp), t)
d2_tweedie_score.__doc__ = _doc(
    "d2_tweedie_score", "Fraction of Tweedie deviance explained (single output).",
    r"D^2 = 1 - D_p(y, \hat y) / D_p(y, \bar y_w)", _POWER, mo=False)


@metric_edge
def d2_pinball_score(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None, alpha: float = 0.5,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    alpha = check_alpha(alpha, "d2_pinball_score")
    return _d2_pinball(y_true, y_pred, sample_weight, alpha, multioutput, validate,
                       "d2_pinball_score")
d2_pinball_score.__doc__ = _doc(
    "d2_pinball_score", "Fraction of pinball loss explained.",
    r"D^2 = 1 - L_\alpha(y, \hat y) / L_\alpha(y, q_\alpha(y))", _ALPHA)


def _d2_pinball(y_true, y_pred, sample_weight, alpha, multioutput, validate, func):
    t = check_reg_targets(y_true, y_pred, sample_weight, multioutput, validate=validate,
                          func=func, output_weights=False)
    if t.n_samples < 2:
        return _nan_result(t, "D^2 score is not well-defined with less than two samples.")
    if validate:
        check_output_weights(t)
    q = d2_pinball_baseline(t.y_true, alpha, t.sample_weight, t.xp)
    num, den = _pinball_raw(t, alpha, t.y_pred, q)  # one pass for both
    return _explained_fraction(num, den, t, True)


@metric_edge
def d2_absolute_error_score(
        y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: Literal["raw_values", "uniform_average"] | Any = "uniform_average",
        validate: bool = True) -> Any:
    return _d2_pinball(y_true, y_pred, sample_weight, 0.5, multioutput, validate,
                       "d2_absolute_error_score")
d2_absolute_error_score.__doc__ = _doc(
    "d2_absolute_error_score", "Fraction of absolute error explained (D^2 pinball, 0.5).",
    r"D^2 = 1 - \mathrm{MAE}(y, \hat y) / \mathrm{MAE}(y, \mathrm{median}_w(y))")
