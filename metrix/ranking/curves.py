"""Binary ranking curves: ROC, precision-recall, DET (exact or binned).

Public through :mod:`metrix.ranking`.  Exact curves have one point per
distinct score (data-dependent length: eager only); ``thresholds=`` gives
fixed-length binned curves that trace under jit (O(N + T) memory).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.stacklevel import find_stack_level
from .._core.validation import check_binned_scores
from ._averaging import NO_NEG_ROC, NO_POS_PR, NO_POS_ROC, warn_undefined
from ._input import Inputs, curve_positive, unique_values
from ._statistic import binned_curve, exact_curve

#: the parameters that the binary curves and confusion_matrix_at_thresholds share
curve_doc = sections(binary="""\
    y_true : array of shape (n_samples,)
        Binary labels; with labels other than {0, 1} / {-1, 1} give ``pos_label``.
    y_score : array of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : int, float, bool or str, default=None
        The positive class.""", validate="""\
    validate : bool, default=True
        Check target type and finiteness (reads values; a host sync).""", thresholds="""\
    thresholds : int or array, default=None
        ``None``: one point per distinct score; an int ``T``: ``T`` evenly
        spaced thresholds in [0, 1]; an array: those thresholds.  As in
        :func:`roc_curve`.""", fawcett="""\
    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 2006.""")

# -- curves ---------------------------------------------------------------

def _evenly_spaced(thresholds) -> bool:
    """Whether ``thresholds`` asks for ``T`` evenly spaced thresholds on [0, 1]."""
    return isinstance(thresholds, numbers.Integral) and not isinstance(thresholds, bool)


def _thresholds_asc(thresholds, inp):
    xp = inp.xp
    if _evenly_spaced(thresholds):
        if thresholds < 2:
            raise ValueError(f"thresholds must be an int >= 2 or an array, got {thresholds}")
        return xp.linspace(0.0, 1.0, int(thresholds), dtype=inp.fdt, device=inp.device)
    thr = _ns.asarray(thresholds, xp=xp, device=inp.device)
    if thr.ndim != 1 or thr.shape[0] < 1:
        raise ValueError("thresholds must be a 1-D array of at least one threshold")
    return xp.sort(xp.astype(thr, inp.fdt))


def _curve_counts(y_true, y_score, pos_label, sample_weight, thresholds, validate):
    inp = Inputs(y_true, y_score, sample_weight, validate=validate)
    pos = curve_positive(inp, pos_label, validate=validate)
    if thresholds is None:
        fps, tps, thr = exact_curve(pos, inp.score, inp.weight, acc=inp.acc, xp=inp.xp)
        return inp, fps, tps, thr, None
    thr = _thresholds_asc(thresholds, inp)
    if validate and _evenly_spaced(thresholds):
        check_binned_scores(inp.score, xp=inp.xp)
    fps, tps, tot_n, tot_p = binned_curve(pos, inp.score, inp.weight, thr, acc=inp.acc,
                                          xp=inp.xp, ops=inp.ops)
    return inp, fps, tps, thr, (tot_n, tot_p)


def _keep(mask_mid, *arrays, xp):
    dev = _ns.device_of(arrays[0])
    one = xp.ones((1,), dtype=xp.bool, device=dev)
    keep = xp.concat([one, mask_mid, one])
    return tuple(a[keep] for a in arrays)


def _drop_flat(fps, tps, thr, xp):
    """The points where ``tps`` changes on either side (and the two ends)."""
    return _keep((tps[1:-1] != tps[:-2]) | (tps[2:] != tps[1:-1]), fps, tps, thr, xp=xp)


def _det_two_classes(inp):
    if len(unique_values(inp)) != 2:
        raise ValueError("Only one class is present in y_true. Detection error tradeoff "
                         "curve is not defined in that case.")


def _prepend(a, value, xp):
    return xp.concat([xp.full((1,), value, dtype=a.dtype, device=_ns.device_of(a)), a])


@metric_edge
@curve_doc
def roc_curve(y_true: Any, y_score: Any, *, pos_label: int | float | bool | str | None = None,
              sample_weight: Any = None, drop_intermediate: bool = True,
              thresholds: int | Any | None = None,
              validate: bool = True) -> tuple[Any, Any, Any]:
    """Receiver operating characteristic (ROC) of a binary ranking.

    .. math:: \\mathrm{TPR}(t) = T(t) / T,\\quad \\mathrm{FPR}(t) = F(t) / F

    with ``T(t)``/``F(t)`` the positive/negative weight scored ``>= t``.

    Parameters
    ----------
    %(binary)s
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=True
        Drop collinear points (exact curves only; binned curves keep all).
    thresholds : int or array, default=None
        ``None``: one point per distinct score (data-dependent length, eager).
        An int ``T``: ``T`` evenly spaced thresholds in [0, 1], for
        probabilities (``validate=True`` raises for a score outside [0, 1]);
        an array: those thresholds, on any scale.  Binned curves have static
        length ``T + 1``, trace under jit and take O(N + T) memory.  Unchecked
        (``validate=False``), a score below the lowest threshold, or NaN, is
        below every threshold (see the user guide, "Binned metrics").
    %(validate)s

    Returns
    -------
    fpr : array of shape (n_thresholds + 1,)
        False positive rates, in the namespace and on the device of the inputs.
    tpr : array of shape (n_thresholds + 1,)
        True positive rates.
    thresholds : array of shape (n_thresholds + 1,)
        Decreasing; the first one is ``inf`` (the point (0, 0)).

    %(fawcett)s
    """
    inp, fps, tps, thr, totals = _curve_counts(y_true, y_score, pos_label, sample_weight,
                                               thresholds, validate)
    xp = inp.xp
    if totals is None:
        if drop_intermediate and fps.shape[0] > 2:
            d2 = lambda a: a[2:] - 2 * a[1:-1] + a[:-2]  # noqa: E731
            fps, tps, thr = _keep((d2(fps) != 0) | (d2(tps) != 0), fps, tps, thr, xp=xp)
        tot_n, tot_p = fps[-1], tps[-1]
        warn = True
    else:
        fps, tps, thr = xp.flip(fps), xp.flip(tps), xp.flip(thr)
        tot_n, tot_p = totals
        warn = validate
    fps, tps = _prepend(fps, 0.0, xp), _prepend(tps, 0.0, xp)
    thr = _prepend(xp.astype(thr, inp.fdt), float("inf"), xp)
    if warn and bool(tot_n <= 0):
        warn_undefined(NO_NEG_ROC)
    if warn and bool(tot_p <= 0):
        warn_undefined(NO_POS_ROC)
    nan = float("nan")
    fpr = xp.where(tot_n <= 0, xp.full_like(fps, nan), safe_divide(fps, tot_n, zero_value=nan,
                                                                    xp=xp))
    tpr = xp.where(tot_p <= 0, xp.full_like(tps, nan), safe_divide(tps, tot_p, zero_value=nan,
                                                                    xp=xp))
    f = inp.fdt
    return xp.astype(fpr, f), xp.astype(tpr, f), thr


@metric_edge
@curve_doc
def precision_recall_curve(y_true: Any, y_score: Any, *,
                           pos_label: int | float | bool | str | None = None,
                           sample_weight: Any = None, drop_intermediate: bool = False,
                           thresholds: int | Any | None = None,
                           validate: bool = True) -> tuple[Any, Any, Any]:
    """Precision and recall at every threshold of a binary ranking.

    .. math:: P(t) = \\frac{T(t)}{T(t) + F(t)},\\quad R(t) = \\frac{T(t)}{T}

    Parameters
    ----------
    %(binary)s
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=False
        Drop points of equal recall except the first and last (exact curves).
    %(thresholds)s
    %(validate)s

    Returns
    -------
    precision : array of shape (n_thresholds + 1,)
        Precision at increasing thresholds; the last point is 1.
    recall : array of shape (n_thresholds + 1,)
        Recall at increasing thresholds; the last point is 0.
    thresholds : array of shape (n_thresholds,)
        Increasing.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, "Introduction to
       Information Retrieval", 2008, ch. 8.
    """
    inp, fps, tps, thr, totals = _curve_counts(y_true, y_score, pos_label, sample_weight,
                                               thresholds, validate)
    xp = inp.xp
    if totals is None:
        if drop_intermediate and fps.shape[0] > 2:
            fps, tps, thr = _drop_flat(fps, tps, thr, xp)
        fps, tps, thr = xp.flip(fps), xp.flip(tps), xp.flip(thr)
        tot_p = tps[0]
        warn = True
    else:
        tot_p = totals[1]
        warn = validate
    precision = safe_divide(tps, tps + fps, zero_value=0.0, xp=xp)
    if warn and bool(tot_p == 0):
        warnings.warn(NO_POS_PR, UserWarning, stacklevel=find_stack_level())
    recall = xp.where(tot_p == 0, xp.ones_like(tps), safe_divide(tps, tot_p, zero_value=1.0,
                                                                 xp=xp))
    f = inp.fdt
    precision = xp.concat([xp.astype(precision, f), xp.ones((1,), dtype=f, device=inp.device)])
    recall = xp.concat([xp.astype(recall, f), xp.zeros((1,), dtype=f, device=inp.device)])
    return precision, recall, xp.astype(thr, f)


@metric_edge
@curve_doc
def det_curve(y_true: Any, y_score: Any, pos_label: int | float | bool | str | None = None,
              sample_weight: Any = None, drop_intermediate: bool = False, *,
              thresholds: int | Any | None = None,
              validate: bool = True) -> tuple[Any, Any, Any]:
    """Detection error tradeoff (DET): false positive and false negative rates.

    .. math:: \\mathrm{FPR}(t) = F(t) / F,\\quad \\mathrm{FNR}(t) = (T - T(t)) / T

    Parameters
    ----------
    %(binary)s
    sample_weight : array of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=False
        Drop points of equal false negative rate (exact curves).
    %(thresholds)s
    %(validate)s

    Returns
    -------
    fpr : array of shape (n_thresholds,)
        False positive rates, in the namespace and on the device of the inputs.
    fnr : array of shape (n_thresholds,)
        False negative rates.
    thresholds : array of shape (n_thresholds,)
        Increasing.

    References
    ----------
    .. [1] A. Martin et al., "The DET Curve in Assessment of Detection Task
       Performance", Eurospeech 1997.
    """
    inp, fps, tps, thr, totals = _curve_counts(y_true, y_score, pos_label, sample_weight,
                                               thresholds, validate)
    xp = inp.xp
    f = inp.fdt
    if totals is not None:
        tot_n, tot_p = totals
        if validate:
            _det_two_classes(inp)
        fpr = safe_divide(fps, tot_n, zero_value=float("nan"), xp=xp)
        fnr = safe_divide(tot_p - tps, tot_p, zero_value=float("nan"), xp=xp)
        return xp.astype(fpr, f), xp.astype(fnr, f), thr
    fps, tps = _prepend(fps, 0.0, xp), _prepend(tps, 0.0, xp)
    thr = _prepend(xp.astype(thr, f), float("inf"), xp)
    if drop_intermediate and fps.shape[0] > 2:
        fps, tps, thr = _drop_flat(fps, tps, thr, xp)
    _det_two_classes(inp)
    fns = tps[-1] - tps
    p_count, n_count = tps[-1], fps[-1]
    first = int(xp.searchsorted(fps, fps[0:1], side="right")[0]) - 1
    last = int(xp.searchsorted(tps, tps[-1:])[0]) + 1
    first = max(first, 0)
    sl = slice(first, last)
    return (xp.astype(xp.flip(fps[sl]) / n_count, f), xp.astype(xp.flip(fns[sl]) / p_count, f),
            xp.flip(thr[sl]))
