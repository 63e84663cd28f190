"""Precision, recall and F-beta from per-class counts, with scikit-learn's rules.

Shared by ``precision_recall_fscore_support`` and the metrics built on it
(``classification_report``, the top-k retrieval report), ``jaccard_score``,
the stream classes, segmentation's pooled scores and the bootstrap's batched
path: one formula each.
"""

from __future__ import annotations

import math
import numbers
import warnings

from .._core import namespace as _ns
from .._core.arith import nanaverage, safe_divide
from .._core.stacklevel import find_stack_level
from .._core.validation import check_average, check_zero_division
from ..exceptions import UndefinedMetricWarning, as_sklearn_too

AVERAGES = (None, "micro", "macro", "weighted", "samples", "binary")
#: the classes a macro average is taken over (``macro_over``): all the classes
#: counted (scikit-learn's ``labels``), or those present in ``y_true`` or ``y_pred``
MACRO_OVER = ("all", "present")


def check_macro_over(macro_over):
    """``macro_over`` is ``"all"`` or ``"present"`` (``ValueError`` otherwise)."""
    if not (isinstance(macro_over, str) and macro_over in MACRO_OVER):
        raise ValueError(f"macro_over must be one of {MACRO_OVER}, got {macro_over!r}")


def present_classes(pred, true, xp):
    """The classes (last axis) with a non-zero (weighted) count in ``y_pred`` or
    ``y_true``: ``tp + fp + fn > 0``, TorchMetrics' rule for the multiclass
    macro average.  A bool array on the counts' device (no host read)."""
    return (pred != 0) | (true != 0)


def average_weights(average, counts, weights, macro_over, xp):
    """The weights of the average over the classes (the last axis of
    ``counts``): the support (``"weighted"``), the sample weights
    (``"samples"``, per sample), the classes present (``"macro"`` with
    ``macro_over="present"``: 1 for a class in ``y_true`` or ``y_pred``, 0 for
    the others), or None (the plain mean).  Weights that sum to 0 (no class
    present: empty input) fall back to the plain mean over every class
    (:func:`_mean`), the ``zero_division`` value of their 0 / 0 ratios.
    Also returns the bool mask of the classes averaged (None: all), for the
    warnings."""
    _, pred, true = counts
    if average == "weighted":
        return true, None
    if average == "samples":
        return weights, None
    if average == "macro" and macro_over == "present":
        present = present_classes(pred, true, xp)
        return xp.astype(present, pred.dtype), present
    return None, None


def warn_prf(average, modifier, msg_start, result_size):
    """scikit-learn's ``_warn_prf`` wording."""
    axis0, axis1 = "sample", "label"
    if average == "samples":
        axis0, axis1 = axis1, axis0
    msg = ("{0} ill-defined and being set to 0.0 {{0}} no {1} {2}s. Use `zero_division` "
           "parameter to control this behavior.".format(msg_start, modifier, axis0))
    msg = msg.format("due to" if result_size == 1 else f"in {axis1}s with")
    warnings.warn(msg, as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())


def prf_divide(num, den, *, metric, modifier, average, warn_for, zero_division, xp,
               validate, keep=None):
    """``num / den`` with ``zero_division`` where ``den == 0`` (and the warning).

    The warning needs a host read of ``any(den == 0)``; it is emitted only on
    the ``validate=True`` path, as every value-reading check.  ``keep``: the
    bool mask of the classes averaged (``macro_over="present"``), the only
    ones whose 0 / 0 warns, as scikit-learn's ``labels`` restricted to them.
    """
    value = zero_division if type(zero_division) is float else check_zero_division(
        zero_division)
    out = safe_divide(num, den, zero_value=value, xp=xp)
    if validate and zero_division == "warn" and metric in warn_for:
        bad = den == 0 if keep is None else (den == 0) & keep
        if bool(xp.any(bad)):  # host read, validate=True only
            # the warning's class count: a host read, validate=True only
            size = int(den.shape[0]) if keep is None else int(xp.count_nonzero(keep))
            warn_prf(average, modifier, f"{metric.capitalize()} is", size)
    return out


def check_beta(beta):
    if type(beta) is float and beta >= 0:
        return
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not beta >= 0:
        raise ValueError(
            "The 'beta' parameter must be a float in the range [0.0, inf]. "
            f"Got {beta!r} instead.")


def setwise_labels(targets, *, average, labels, pos_label):
    """scikit-learn's ``_check_set_wise_labels``: the labels to count for ``average``."""
    check_average(average, AVERAGES)
    y_type = targets.y_type
    if average == "binary":
        if y_type == "binary":
            values = list(targets.values or ())
            if pos_label not in values and len(values) >= 2:
                raise ValueError(
                    f"pos_label={pos_label} is not a valid label. It should be one of "
                    f"{_ns.host_values(values)}")
            return [pos_label]
        options = [None, "micro", "macro", "weighted", "samples"]
        if y_type == "multiclass":
            options.remove("samples")
        raise ValueError(
            f"Target is {y_type} but average='binary'. Please choose another average "
            f"setting, one of {options!r}.")
    if pos_label not in (None, 1):
        warnings.warn(
            f"Note that pos_label (set to {pos_label!r}) is ignored when average != "
            f"'binary' (got {average!r}). You may use labels=[pos_label] to specify a "
            "single positive class.", UserWarning, stacklevel=find_stack_level())
    return labels


PRF = ("precision", "recall", "f-score")


def prf_from_counts(counts, *, beta, average, warn_for, zero_division, weights, xp,
                    dtype, acc_dtype, validate, want=PRF, macro_over="all"):
    """(precision, recall, fscore, support) from ``LabelCounts`` (selected classes).

    The classes are the last axis; leading axes are a batch (the bootstrap's
    ``(M, C)`` resample counts).  Ratios are formed in ``acc_dtype`` (the
    widest float) and returned in ``dtype``.  Only the ratios named in
    ``want`` are computed (the others are None): the F-score needs neither
    precision nor recall unless ``beta`` is 0 or infinite.  Without warnings
    to give (``validate=False``, or a set ``zero_division``) each ratio is one
    :func:`safe_divide`: a few ops on the C-vector.  ``macro_over``: the
    classes of the macro average (:func:`average_weights`).
    """
    tp, pred, true = counts
    if not tp.dtype == pred.dtype == true.dtype == acc_dtype:  # (a lane's counts are)
        tp, pred, true = (_cast(c, acc_dtype, xp) for c in counts)
    if average == "micro":
        tp, pred, true = (xp.sum(c, axis=-1, keepdims=True) for c in (tp, pred, true))
    zd = zero_division if type(zero_division) is float else check_zero_division(zero_division)
    avg_w = keep = None  # the plain macro average (and None, "micro"): no weights
    if macro_over != "all" or average not in ("macro", None, "micro"):
        avg_w, keep = average_weights(average, (tp, pred, true), weights, macro_over, xp)
    if validate and zero_division == "warn" and warn_for:
        def divide(num, den, metric, modifier):
            return prf_divide(num, den, metric=metric, modifier=modifier, average=average,
                              warn_for=warn_for, zero_division=zero_division, xp=xp,
                              validate=validate, keep=keep)
    else:
        def divide(num, den, metric, modifier):
            return safe_divide(num, den, zero_value=zd, xp=xp)
    need_p = "precision" in want or ("f-score" in want and beta == 0)
    need_r = "recall" in want or ("f-score" in want and math.isinf(beta))
    precision = recall = fscore = None
    if need_p:
        precision = divide(tp, pred, "precision", "predicted")
    if need_r:
        recall = divide(tp, true, "recall", "true")
    if "f-score" not in want:
        pass
    elif math.isinf(beta) or beta == 0:  # the recall for an infinite beta, the precision for 0
        fscore = recall if beta else precision
    else:  # inline (no call): the one ratio of a training loop's F1
        beta2 = float(beta) ** 2
        num = tp + tp if beta2 == 1 else (1 + beta2) * tp
        den = true + pred if beta2 == 1 else beta2 * true + pred
        fscore = divide(num, den, "f-score", "true nor predicted")
    if average is None:
        return (_cast(precision, dtype, xp), _cast(recall, dtype, xp),
                _cast(fscore, dtype, xp), counts.true)
    skip_nan = zd != zd  # else no ratio is NaN: the NaN-ignoring average is the (weighted) mean

    def avg(v):
        return None if v is None else _cast(_mean(v, avg_w, xp, skip_nan), dtype, xp)
    return avg(precision), avg(recall), avg(fscore), None


def jaccard_from_counts(counts, *, average, zero_division, weights=None, xp, validate=False,
                        macro_over="all"):
    r"""Jaccard index per class ``tp / (tp + fp + fn)`` from ``LabelCounts``, then
    scikit-learn's average (NaN-ignoring; ``weights``: the sample weights of
    ``average="samples"``; ``macro_over``: :func:`average_weights`).  Classes on
    the last axis, as :func:`prf_from_counts`.
    """
    tp, pred, true = counts
    if average == "micro":
        tp, pred, true = (xp.sum(c, axis=-1, keepdims=True) for c in (tp, pred, true))
    avg_w, keep = average_weights(average, (tp, pred, true), weights, macro_over, xp)
    jac = prf_divide(tp, pred + true - tp, metric="jaccard", modifier="true or predicted",
                     average=average, warn_for=("jaccard",), zero_division=zero_division,
                     xp=xp, validate=validate, keep=keep)
    if average is None:
        return jac
    return _mean(jac, avg_w, xp, zero_division != zero_division)  # NaN ratios: left out


def _mean(v, weights, xp, skip_nan=False):
    """Mean of ``v`` over its last axis, weighted when ``weights`` are given (the
    plain mean where they sum to 0, as scikit-learn's ``_nanaverage``);
    ``skip_nan``: NaN values left out (``_nanaverage`` itself)."""
    if skip_nan:
        return nanaverage(v, weights=weights, xp=xp)
    plain = xp.sum(v, axis=-1) / v.shape[-1]
    if weights is None:
        return plain
    return safe_divide(xp.sum(v * weights, axis=-1), xp.sum(weights, axis=-1),
                       zero_value=plain, xp=xp)


def _cast(v, dtype, xp):
    return v if v is None or v.dtype == dtype else xp.astype(v, dtype)

