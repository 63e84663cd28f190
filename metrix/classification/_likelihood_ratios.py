"""Likelihood ratios of a two-class confusion matrix, with scikit-learn's undefined rules.

Used by :func:`metrix.class_likelihood_ratios` and
``metrix.stream.ClassLikelihoodRatios``: the replacement values
(``replace_undefined_by``), the ratios from the per-class counts, and
scikit-learn's warnings (emitted only with ``validate=True``).
"""

from __future__ import annotations

import numbers
import warnings

from .._core.arith import nan_divide
from .._core.lane import cast
from .._core.stacklevel import find_stack_level
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ._input import matrix_counts


def check_replace_lr(replace_undefined_by):
    """(LR+ value, LR- value) that replace undefined ratios, as scikit-learn checks."""
    r = replace_undefined_by
    if isinstance(r, dict):
        msg = ("The dictionary passed as `replace_undefined_by` needs to be in the form "
               "`{'LR+': `value_1`, 'LR-': `value_2`}` where the value for `LR+` ranges "
               "from `1.0` to `np.inf` or is `np.nan` and the value for `LR-` ranges from "
               f"`0.0` to `1.0` or is `np.nan`; got `{r}`.")
        pos, neg = r.get("LR+"), r.get("LR-")
        real = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (pos, neg))
        if not ("LR+" in r and "LR-" in r and real) or pos < 1.0 or not (0.0 <= neg <= 1.0
                                                                          or neg != neg):
            raise ValueError(msg)
        return float(pos), float(neg)
    if isinstance(r, numbers.Real) and not isinstance(r, bool):
        if r != r:
            return float("nan"), float("nan")
        if r == 1.0:
            return 1.0, 1.0
    raise ValueError(
        "The 'replace_undefined_by' parameter of class_likelihood_ratios must be a float "
        f"among {{1.0, nan}} or an instance of 'dict'. Got {r!r} instead.")


def likelihood_ratios_from_problem(prob, *, replace, validate):
    """(LR+, LR-) of a two-class problem; class 1 (second label) is positive."""
    xp = prob.xp
    tp_c, pred_c, true_c = matrix_counts(prob)
    tp = tp_c[1]
    lr_pos, lr_neg = likelihood_ratios_from_counts(
        tp, pred_c[1] - tp, tp_c[0], true_c[1], true_c[0], replace=replace,
        validate=validate, xp=xp)
    return cast(lr_pos, prob.float_dtype, xp), cast(lr_neg, prob.float_dtype, xp)


def likelihood_ratios_from_counts(tp, fp, tn, support_pos, support_neg, *, replace,
                                  validate, xp):
    """(LR+, LR-) of the (weighted) counts ``tp``, ``fp``, ``tn`` and the class
    supports ``tp + fn`` and ``tn + fp``; ``replace``: :func:`check_replace_lr`'s
    pair; ``validate``: scikit-learn's warnings for undefined ratios (host reads).
    The one-shot function and ``metrix.stream.ClassLikelihoodRatios`` read it."""
    fn = support_pos - tp
    if validate:  # host reads, validate=True only
        _warn_lr(bool(support_pos == 0), bool(fp == 0), bool(tp == 0), bool(tn == 0))
    lr_pos = _ratio(tp * support_neg, fp * support_pos, fp == 0, replace[0], xp)
    lr_neg = _ratio(fn * support_neg, tn * support_pos, tn == 0, replace[1], xp)
    return lr_pos, lr_neg


def _ratio(num, den, undefined, value, xp):
    """``num / den`` (NaN where ``den`` is 0, no 0 / 0 evaluated), ``value`` where
    ``undefined``."""
    return xp.where(undefined, float(value), nan_divide(num, den, xp=xp))


def _warn_lr(no_pos, fp_zero, tp_zero, tn_zero):
    if no_pos:
        warnings.warn(
            "No samples of the positive class are present in `y_true`. "
            "`positive_likelihood_ratio` and `negative_likelihood_ratio` are both set "
            "to `np.nan`. Use the `replace_undefined_by` param to control this "
            "behavior. To suppress this warning or turn it into an error, see Python's "
            "`warnings` module and `warnings.catch_warnings()`.",
            as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
    if fp_zero:
        start = ("No samples were predicted for the positive class and "
                 "`positive_likelihood_ratio` is " if tp_zero
                 else "`positive_likelihood_ratio` is ill-defined and ")
        # scikit-learn's message ends here (the rest of its sentence is a dangling literal)
        warnings.warn(start + "set to `np.nan`. Use the `replace_undefined_by` param to ",
                      as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
    if tn_zero:
        warnings.warn(
            "`negative_likelihood_ratio` is ill-defined and set to `np.nan`. "
            "Use the `replace_undefined_by` param to control this behavior. To "
            "suppress this warning or turn it into an error, see Python's "
            "`warnings` module and `warnings.catch_warnings()`.",
            as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
