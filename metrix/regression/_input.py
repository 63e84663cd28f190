"""Input checks of the regression family: scikit-learn's ``_check_reg_targets``.

Two tiers (STYLE.md, rule 3): shapes, lengths, output counts and parameters
are always checked (they read no values); NaN/inf, all-zero weights and the
value domains of the log, Poisson, gamma and Tweedie metrics are checked only
with ``validate=True`` (each reads values on the host, i.e. synchronises).

Targets come back as 2-D ``(n_samples, n_outputs)`` arrays in the
accumulation dtype (the widest float of the device), so every sum runs in
float64 where the device has it; ``out_dtype`` is the dtype of the result.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

from .._core import namespace as _ns
from .._core.validation import (
    assert_all_finite,
    check_consistent_length,
    dtype_kind,
    reject_complex,
)
from ..backends import ops

__all__ = ["RegTargets", "check_reg_targets", "check_output_weights", "check_alpha",
           "check_power", "check_force_finite", "check_tweedie_domain", "check_log_domain",
           "check_stream_outputs", "stream_targets",
           "MULTIOUTPUT_BASIC", "MULTIOUTPUT_VARIANCE"]

MULTIOUTPUT_BASIC = ("raw_values", "uniform_average")
MULTIOUTPUT_VARIANCE = ("raw_values", "uniform_average", "variance_weighted")
_ALL_MULTIOUTPUT = MULTIOUTPUT_VARIANCE


class RegTargets(NamedTuple):
    """Validated regression targets."""

    xp: object
    device: object
    y_true: object        # (n, k), accumulation dtype
    y_pred: object        # (n, k), accumulation dtype
    sample_weight: object  # (n,) accumulation dtype, or None
    multioutput: object   # a str, None, or a (k,) array in the accumulation dtype
    n_samples: int
    n_outputs: int
    out_dtype: object     # dtype of the result
    acc_dtype: object     # dtype of the sums


def _as_numeric(y, *, xp, device, name):
    """``y`` as a real numeric 1-D or 2-D array (shape checks only)."""
    y = _ns.asarray(y, xp=xp, device=device)
    if y.ndim == 0:
        raise TypeError(f"Singleton array {y!r} cannot be considered a valid collection.")
    if y.ndim > 2:
        raise ValueError(f"Found array with dim {y.ndim}. None expected <= 2.")
    reject_complex(y, xp=xp)
    kind = dtype_kind(y, xp)
    if kind == "O":
        raise ValueError(
            f"{name} must be numeric: got an array of dtype {y.dtype}. Strings and "
            "objects are not valid regression targets.")
    if y.shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(y.shape)}) while a minimum "
            "of 1 is required.")
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={tuple(y.shape)}) while a minimum "
            "of 1 is required.")
    return y


def _check_multioutput_param(multioutput, allowed, allow_none, func):
    """A ``multioutput`` string among ``allowed``, an array-like, or (``allow_none``) None."""
    if isinstance(multioutput, str) and multioutput not in allowed + _ALL_MULTIOUTPUT:
        raise ValueError(
            f"Allowed 'multioutput' string values are {_ALL_MULTIOUTPUT}. "
            f"You provided multioutput={multioutput!r}")
    if ((isinstance(multioutput, str) and multioutput not in allowed)
            or (multioutput is None and not allow_none)):  # sklearn's validate_params wording
        raise ValueError(
            f"The 'multioutput' parameter of {func} must be a str among {set(allowed)} "
            f"or an array-like. Got {multioutput!r} instead.")


def check_reg_targets(y_true, y_pred, sample_weight=None, multioutput=None, *,
                      validate=True, allowed=MULTIOUTPUT_BASIC, allow_none=False,
                      func="metric", multioutput_param=True, custom_checks=True,
                      output_weights=True):
    """scikit-learn's ``_check_reg_targets_with_floating_dtype`` for metrix.

    Raises ``ValueError`` (as scikit-learn) for inconsistent lengths, arrays of
    more than two dimensions, empty arrays, different numbers of outputs, an
    unknown ``multioutput`` or custom output weights of the wrong length; with
    ``validate=True`` also for NaN/inf and all-zero ``sample_weight``.
    ``custom_checks=False`` reproduces ``root_mean_squared_error``, which
    scikit-learn does not run through these checks: custom weights on one
    output are used, and a length mismatch is ``np.average``'s ``TypeError``.
    ``output_weights=False`` leaves the check of custom output weights summing
    to zero to the caller (:func:`check_output_weights`), for metrics whose own
    checks or NaN results come first in scikit-learn.
    """
    if multioutput_param:
        _check_multioutput_param(multioutput, allowed, allow_none, func)
    if isinstance(sample_weight, numbers.Number):
        raise ValueError(
            f"The 'sample_weight' parameter of {func} must be an array-like or None. "
            f"Got {sample_weight!r} instead.")
    mo_array = None if multioutput is None or isinstance(multioutput, str) else multioutput
    xp, device = _ns.get_namespace_and_device(y_true, y_pred, sample_weight, mo_array)
    check_consistent_length(y_true, y_pred, sample_weight)
    y_true = _as_numeric(y_true, xp=xp, device=device, name="y_true")
    y_pred = _as_numeric(y_pred, xp=xp, device=device, name="y_pred")
    if sample_weight is not None:
        sample_weight = _ns.asarray(sample_weight, xp=xp, device=device)
        reject_complex(sample_weight, xp=xp)
        if sample_weight.ndim != 1:
            raise ValueError(
                f"Sample weights must be 1D array or scalar, got {sample_weight.ndim}D "
                "array. Expected either a scalar value or a 1D array of length "
                f"{int(y_true.shape[0])}.")
        if dtype_kind(sample_weight, xp) == "O":
            raise ValueError("sample_weight must be numeric.")
    if mo_array is not None:
        mo_array = _ns.asarray(mo_array, xp=xp, device=device)
        if mo_array.ndim == 0:
            mo_array = xp.reshape(mo_array, (1,))
    # output weights given as a Python list do not widen the result dtype
    mo_typed = mo_array if hasattr(multioutput, "dtype") else None
    out_dtype = _ns.result_float_dtype(xp, device, y_true, y_pred, sample_weight, mo_typed)
    acc = _ns.max_float_dtype(xp, device)
    if validate:
        _check_values(y_true, y_pred, sample_weight, xp=xp, acc=acc, func=func)
    y_true = _to_2d(xp.astype(y_true, acc, copy=False), xp)
    y_pred = _to_2d(xp.astype(y_pred, acc, copy=False), xp)
    if y_true.shape[1] != y_pred.shape[1]:
        raise ValueError(
            "y_true and y_pred have different number of output "
            f"({y_true.shape[1]}!={y_pred.shape[1]})")
    n_outputs = int(y_true.shape[1])
    if sample_weight is not None:
        sample_weight = xp.astype(sample_weight, acc, copy=False)
    if mo_array is not None:
        multioutput = _custom_output_weights(mo_array, n_outputs, custom_checks, xp=xp, acc=acc)
    t = RegTargets(xp, device, y_true, y_pred, sample_weight, multioutput,
                   int(y_true.shape[0]), n_outputs, out_dtype, acc)
    if validate and output_weights:
        check_output_weights(t)
    return t


def check_stream_outputs(yt, yp, num_outputs):
    """A streaming batch's shape against ``num_outputs`` (static shapes: no host
    read): ``(n,)`` or ``(n, 1)`` for one output (``None`` or 1), ``(n, k)`` for
    ``num_outputs=k``; never a reshape that mixes rows and outputs."""
    k = num_outputs
    for name, a in (("y_true", yt), ("y_pred", yp)):
        shape = tuple(a.shape)
        ok = (len(shape) == 2 and shape[1] == k) if k not in (None, 1) else (
            len(shape) == 1 or (len(shape) == 2 and shape[1] == 1))
        if not ok:
            want = ("(n_samples,) or (n_samples, 1)" if k in (None, 1)
                    else f"(n_samples, {k})")
            hint = (f"; for {shape[1]} outputs create the metric with "
                    f"num_outputs={shape[1]}" if len(shape) == 2 and k is None else "")
            raise ValueError(f"{name} has shape {shape}, expected {want} "
                             f"(num_outputs={k}){hint}.")


def stream_targets(yt, yp, num_outputs, acc, xp):
    """A streaming batch's targets as ``(n, k)`` arrays of the state's float
    ``acc``, their shapes checked (:func:`check_stream_outputs`, equal rows): the
    streaming form of :func:`check_reg_targets` (shape checks only: no host read)."""
    k = num_outputs or 1
    yt, yp = xp.astype(yt, acc, copy=False), xp.astype(yp, acc, copy=False)
    check_stream_outputs(yt, yp, num_outputs)
    yt, yp = xp.reshape(yt, (-1, k)), xp.reshape(yp, (-1, k))
    if yt.shape != yp.shape:
        raise ValueError(f"y_true and y_pred have different shapes {tuple(yt.shape)} "
                         f"and {tuple(yp.shape)}")
    return yt, yp


def _check_values(y_true, y_pred, sample_weight, *, xp, acc, func):
    """Finite targets and weights, weights not all zero nor (for means) summing to
    zero: host reads, called with ``validate=True`` only."""
    assert_all_finite(y_true, xp=xp, input_name="y_true")
    assert_all_finite(y_pred, xp=xp, input_name="y_pred")
    if sample_weight is None:
        return
    assert_all_finite(sample_weight, xp=xp, input_name="sample_weight")
    lo, hi = ops(xp).minmax(sample_weight)  # one read: validate=True only
    if bool(lo == 0) and bool(hi == 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    # host reads: validate=True only, and the sum only for negative weights
    if (bool(lo < 0) and func != "median_absolute_error"
            and bool(xp.sum(xp.astype(sample_weight, acc)) == 0)):
        # scikit-learn's weighted means (np.average) refuse it; its median doesn't
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")


def _custom_output_weights(mo_array, n_outputs, custom_checks, *, xp, acc):
    """Custom output weights checked against the outputs, in the accumulation dtype."""
    if not custom_checks:
        if mo_array.shape[0] != n_outputs:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
    elif n_outputs == 1:
        raise ValueError("Custom weights are useful only in multi-output cases.")
    if mo_array.shape[0] != n_outputs:
        raise ValueError(
            f"There must be equally many custom weights ({mo_array.shape[0]}) as "
            f"outputs ({n_outputs}).")
    return xp.astype(mo_array, acc, copy=False)


def check_output_weights(t: RegTargets):
    """Custom output weights must not sum to zero: ``np.average``'s error, which
    scikit-learn raises where it averages the outputs (host read: validate=True only)."""
    mo = t.multioutput
    if not (mo is None or isinstance(mo, str)) and bool(t.xp.sum(mo) == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")


def _to_2d(y, xp):
    return xp.reshape(y, (-1, 1)) if y.ndim == 1 else y


def check_alpha(alpha, func):
    """``alpha`` must be a real number in [0, 1] (scikit-learn's ``Interval``)."""
    if (not isinstance(alpha, numbers.Real) or isinstance(alpha, bool)
            or not 0 <= alpha <= 1):
        raise ValueError(
            f"The 'alpha' parameter of {func} must be a float in the range [0.0, 1.0]. "
            f"Got {alpha!r} instead.")
    return float(alpha)


def check_power(power, func):
    """``power`` must be a real number in (-inf, 0] or [1, inf)."""
    if (not isinstance(power, numbers.Real) or isinstance(power, bool)
            or power != power or 0 < power < 1):
        raise ValueError(
            f"The 'power' parameter of {func} must be a float in the range (-inf, 0.0] "
            f"or a float in the range [1.0, inf). Got {power!r} instead.")
    return power


def check_force_finite(force_finite, func):
    if not isinstance(force_finite, bool):
        raise ValueError(
            f"The 'force_finite' parameter of {func} must be an instance of 'bool'. "
            f"Got {force_finite!r} instead.")


def check_log_domain(t: RegTargets, name: str):
    """Mean squared log errors need targets > -1 (host read: validate=True only)."""
    xp = t.xp
    if bool(xp.min(t.y_true) <= -1) or bool(xp.min(t.y_pred) <= -1):
        raise ValueError(
            f"{name} cannot be used when targets contain values less than or equal "
            "to -1.")


def check_tweedie_domain(y_true, y_pred, power, *, xp):
    """scikit-learn's domain rules of the Tweedie deviance (host read).

    Each rule is one ``min`` (one read, no boolean temporary); the targets
    are already known to be finite.
    """
    message = f"Mean Tweedie deviance error with power={power} can only be used on "
    # host reads: called with validate=True only (scikit-learn raises)
    if power < 0 and bool(xp.min(y_pred) <= 0):
        raise ValueError(message + "strictly positive y_pred.")
    if 0 < power < 2 and (bool(xp.min(y_true) < 0) or bool(xp.min(y_pred) <= 0)):
        raise ValueError(message + "non-negative y and strictly positive y_pred.")
    if power >= 2 and (bool(xp.min(y_true) <= 0) or bool(xp.min(y_pred) <= 0)):
        raise ValueError(message + "strictly positive y and y_pred.")
