"""``classification_report``: per-class precision, recall, F1 and support, as text or dict.

Computed from one statistic: the per-class counts of one confusion-matrix
``bincount`` (plus the per-sample counts for the ``samples`` average of
multilabel input).  The per-class rows and every average are formulas on those
counts (``_prf.prf_from_counts``); only the final numbers travel to the host,
where ``_report_format.format_report`` lays them out exactly as scikit-learn.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

from .._core import namespace as _ns
from .._core.edge import metric_edge
from .._core.typing import ArrayLike
from .._core.validation import check_zero_division
from ..backends import ops as _ops
from . import _encoding as _labels
from . import _statistic as _stats
from ._input import label_problem, prepare_inputs
from ._prf import prf_from_counts
from ._report_format import format_report, row_names
from .confusion import _label_doc

__all__ = ["classification_report"]


def _check_digits(digits):
    if not isinstance(digits, numbers.Integral) or isinstance(digits, bool) or digits < 0:
        raise ValueError("The 'digits' parameter of classification_report must be an int in "
                         f"the range [0, inf). Got {digits!r} instead.")


def _all_values_declared(prob, labels):
    """Whether every value of y_true and y_pred is among the declared ``labels`` (host read)."""
    xp = prob.xp
    space = _labels.encode(prob.y_true, prob.y_pred, labels=_ns.host_list(labels), xp=xp,
                           device=prob.device)
    c = space.size - 1
    return bool(xp.all(space.y_true < c) & xp.all(space.y_pred < c))


def _sequential_counts(prob, classes):
    """Weighted per-class counts summed in sample order, as scikit-learn's ``bincount``s.

    With float weights the order of summation shows in the last bits (and the
    text prints weighted supports in full), so weighted reports count tp,
    predicted and true with three sequential bincounts of the class codes.
    """
    xp = prob.xp
    if prob.y_type == "multilabel-indicator":
        # scikit-learn: a bincount of the sparse column indices, i.e. per column in
        # sample order; a cumulative sum keeps that order exactly (zeros add nothing)
        w = xp.reshape(prob.weights, (-1, 1))
        acc = prob.acc_dtype
        yt, yp = (xp.astype(y != 0, acc) for y in (prob.y_true, prob.y_pred))
        tp, pred, true = (xp.cumulative_sum(v * w, axis=0)[-1, :] for v in (yt * yp, yp, yt))
        return prob._replace(counts=_round_trip(tp, pred, true))
    o = _ops(xp)
    space = _labels.encode(prob.y_true, prob.y_pred, labels=classes, xp=xp, device=prob.device)
    size, w = space.size, prob.weights
    true = o.bincount(space.y_true, length=size, weights=w)[: size - 1]
    pred = o.bincount(space.y_pred, length=size, weights=w)[: size - 1]
    hit = xp.where(space.y_true == space.y_pred, space.y_true,
                   xp.full_like(space.y_true, size - 1))
    tp = o.bincount(hit, length=size, weights=w)[: size - 1]
    return prob._replace(counts=_round_trip(tp, pred, true))


def _round_trip(tp, pred, true):
    """scikit-learn forms ``fp = pred - tp`` and then ``pred = tp + fp`` (same for true)."""
    return _stats.LabelCounts(tp, tp + (pred - tp), tp + (true - tp))


def _host(x):
    return None if x is None else _ns.to_host(x)


def report_numbers(prob, *, samples_prob=None, zero_division="warn", validate=True):
    """Per-class (p, r, f1, support) and the averages, on the host.

    Returns ``(per_class, averages)``: ``per_class`` a tuple of host arrays,
    ``averages`` a dict ``{"micro": (p, r, f1), ...}`` of host floats.
    """
    xp = prob.xp
    # host output: every number stays in the accumulation dtype (float64 where the
    # device has it), as scikit-learn computes them whatever the input dtype
    kw = dict(beta=1.0, warn_for=("precision", "recall", "f-score"),
              zero_division=zero_division, xp=xp, dtype=prob.acc_dtype,
              acc_dtype=prob.acc_dtype, validate=validate)
    p, r, f, s = prf_from_counts(prob.counts, average=None, weights=prob.weights, **kw)
    if prob.weights is None:  # integer supports print as integers
        s = xp.astype(s, _ns.count_dtype(xp, prob.device))
    per_class = tuple(_host(v) for v in (p, r, f, s))
    options = ["micro", "macro", "weighted"]
    if prob.y_type == "multilabel-indicator":
        options.append("samples")
    averages = {}
    for average in options:
        src = samples_prob if average == "samples" else prob
        ap, ar, af, _ = prf_from_counts(src.counts, average=average, weights=src.weights, **kw)
        averages[average] = tuple(float(_host(v)) for v in (ap, ar, af))
    return per_class, averages


@metric_edge
@_label_doc
def classification_report(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    target_names: Sequence[str] | None = None,
    sample_weight: ArrayLike | None = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: Literal["warn"] | float = "warn",
    validate: bool = True,
) -> str | dict[str, Any]:
    r"""Text (or dict) report of precision, recall, F1 and support per class.

    .. math::
        P_k = \frac{tp_k}{tp_k + fp_k}, \quad R_k = \frac{tp_k}{tp_k + fn_k}, \quad
        F_k = \frac{2\, tp_k}{2\, tp_k + fp_k + fn_k}

    plus the micro (shown as ``accuracy`` when it equals it), macro, weighted
    (and, for multilabel input, samples) averages.  All numbers come from one
    confusion-matrix ``bincount`` on the inputs' device; the text is
    byte-for-byte scikit-learn's.

    Parameters
    ----------
    %(targets)s
    labels : array-like, default=None
        Classes to report, in this order.
    target_names : list of str, default=None
        Display names of the classes.
    %(sample_weight)s
    digits : int, default=2
        Digits of the floats in the text (``output_dict`` keeps full precision).
    output_dict : bool, default=False
        Return a dict (Python floats) instead of the text.
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        Value where a ratio is 0/0; "warn" gives 0 and an
        ``UndefinedMetricWarning`` (with ``validate=True``).
    validate : bool, default=True
        The report is host output (text or Python floats), so it always ends
        with one device-to-host copy of the few numbers; ``validate=False``
        skips the value checks of the inputs.

    Returns
    -------
    report : str or dict
        The text of scikit-learn, or ``{class: {"precision", "recall", "f1-score",
        "support"}, "accuracy": float, "macro avg": {...}, ...}``.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.classification_report``.
    """
    _check_digits(digits)
    check_zero_division(zero_division)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=False)
    prob = label_problem(prepared, labels=labels, validate=validate)
    multilabel = prob.y_type == "multilabel-indicator"
    if prob.weights is not None:
        prob = _sequential_counts(prob, _ns.host_list(prob.classes))
    samples_prob = None
    if multilabel:
        samples_prob = label_problem(prepared, labels=labels, validate=validate,
                                     samplewise=True)
    labels_given = labels is not None
    shown = _ns.host_values(labels if labels_given else prob.classes)
    micro_is_accuracy = not multilabel and (
        not labels_given or _all_values_declared(prob, labels))
    target_names = row_names(shown, target_names, labels_given)
    per_class, averages = report_numbers(prob, samples_prob=samples_prob,
                                         zero_division=zero_division, validate=validate)
    p, r, f, s = per_class
    m = min(len(target_names), len(p))        # scikit-learn zips names with rows
    rows = [(p[i], r[i], f[i], s[i]) for i in range(m)]
    total = s.sum()  # host array: the same pairwise sum as scikit-learn's np.sum
    avg_rows = {}
    accuracy = None
    for name, (ap, ar, af) in averages.items():
        if name == "micro" and micro_is_accuracy:
            accuracy = (ap, ar, af, total)
        else:
            avg_rows[f"{name} avg"] = (ap, ar, af, total)
    return format_report(rows, target_names=list(target_names)[:m], averages=avg_rows,
                         digits=digits, output_dict=output_dict, accuracy=accuracy)
