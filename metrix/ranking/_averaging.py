"""Binary ranking scores over many rows, and their averages.

scikit-learn's ``_average_binary_score`` loops over columns and calls the
binary metric once per column; here every column (or sample, for
``average="samples"``) is a row of one batched :func:`metrix.ranking._statistic.tie_groups`
call: one batched sort, one ``bincount``.  One-vs-one multiclass AUC needs
every ordered pair of classes; it reuses the one-vs-rest sort of each column
and sums, per (column, class) pair, what each sample contributes, with one
``bincount`` of length ``C * C``.  Memory is O(N * C) in both cases (the
sorted copy of the score matrix and its permutation), never O(N * C^2).
"""

from __future__ import annotations

import warnings

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.stacklevel import find_stack_level
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ._rank_values import (
    binary_ap_split,
    binary_ap_values,
    binary_auc_split,
    binary_auc_values,
    negatives_below,
    ovr_auc_values,
    value_sorts,
)
from ._statistic import average_precision_from_groups, roc_auc_from_groups, tie_groups


def _ovr_auc_lane(xp, o, config, codes, score):
    """:func:`ovr_auc_values` as a lane (host arrays: NumPy or its views)."""
    return ovr_auc_values(codes, score, acc=_ns.max_float_dtype(xp, _ns.device_of(score)),
                          xp=xp, ops=o)


#: any number of rows: the batched sort is the offline path's
_ovr_auc_lane.host_view_rows = float("inf")
_ovr_auc_lane.reads_order_only = True


ONE_CLASS = "Only one class is present in y_true. ROC AUC score is not defined in that case."
NO_POS_ROC = "No positive samples in y_true, true positive value should be meaningless"
NO_NEG_ROC = "No negative samples in y_true, false positive value should be meaningless"
NO_POS_PR = "No positive class found in y_true, recall is set to one for all thresholds."


def warn_undefined(message):
    """scikit-learn's ``UndefinedMetricWarning``, pointing at the user's line."""
    warnings.warn(message, as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())


def row_scores(metric, score, *, pos=None, codes=None, weight=None, acc, xp, ops,
               max_fpr=None, warn=False, signed=None):
    """``metric`` ("roc_auc" or "average_precision") of every row of ``score``.

    ``score`` is ``(B, n)``; see :func:`metrix.ranking._statistic.tie_groups` for
    ``pos``/``codes``/``weight``.  Unweighted single rows take the compacted
    split sorts where the adapter has them (eager CPU), else the value-sort
    path (:mod:`metrix.ranking._rank_values`), as does unweighted one-vs-rest AUC;
    everything else the tie-group statistic.  ``metric`` may be a tuple of
    both names: the statistic is then computed once and a tuple returned.
    With ``warn`` (the ``validate=True`` path) scikit-learn's warnings for
    rows without a positive or negative are raised (a host read of per-row
    totals).  ``signed``: whether a weight may be negative (default: whenever
    ``weight`` is given; False for a mask of 0 and 1).
    """
    names = (metric,) if isinstance(metric, str) else tuple(metric)
    signed = weight is not None if signed is None else signed
    unweighted = weight is None and (max_fpr is None or max_fpr == 1)
    # whether sorting values (and binary searches) beats one argsort plus gathers:
    # the adapter's ``value_sort_is_cheap`` (True for NumPy, CuPy and JAX; torch's
    # ``sort`` costs as much as its ``argsort``, so its traced/GPU calls take the
    # tie-group path).  Eager CPU calls first try ``ops.split_sort``.
    plain = unweighted and bool(ops.value_sort_is_cheap)
    single = score.shape[0] == 1 and pos is not None
    split = ops.split_sort(score[0, :], xp.reshape(pos, (-1,))) if unweighted and single \
        else None
    if split is not None or (plain and single):
        values = []
        if split is not None:  # the adapter's blocked searches, else the namespace's
            sums = ops.split_rank_sums(*split, precision="average_precision" in names)
            neg_lt = negatives_below(*split, xp=xp) if sums is None else None
        else:
            sorts = value_sorts(xp.reshape(pos, (-1,)), score[0, :], acc=acc, xp=xp)
        for name in names:
            if split is not None:
                if name == "roc_auc":
                    value, tot_p, tot_n = binary_auc_split(*split, acc=acc, xp=xp,
                                                           neg_lt=neg_lt, sums=sums)
                else:
                    value, tot_p, tot_n = binary_ap_split(*split, acc=acc, xp=xp, ops=ops,
                                                          neg_lt=neg_lt, sums=sums)
            else:
                fn = binary_auc_values if name == "roc_auc" else binary_ap_values
                value, tot_p, tot_n = fn(sorts, acc=acc, xp=xp)
            values.append(xp.reshape(value, (1,)))
        tot_p, tot_n = xp.reshape(tot_p, (1,)), xp.reshape(tot_n, (1,))
    elif plain and codes is not None and names == ("roc_auc",):
        value, tot_p, tot_n = ovr_auc_values(codes, xp.permute_dims(score, (1, 0)), acc=acc,
                                             xp=xp, ops=ops)
        values = [value]
    elif (unweighted and codes is not None and names == ("roc_auc",)
          and ops.lane_sorts_on_host(score)):
        # torch CPU: the same batched value sort on NumPy views (torch's CPU
        # sort costs several times NumPy's), the results back as tensors
        value, tot_p, tot_n = ops.lane(_ovr_auc_lane, None, codes,
                                       xp.permute_dims(score, (1, 0)))
        values = [value]
    else:
        g = tie_groups(score, pos=pos, codes=codes, weight=weight, acc=acc, xp=xp, ops=ops)
        values = [roc_auc_from_groups(g.pos, g.neg, xp=xp, max_fpr=max_fpr)
                  if name == "roc_auc" else average_precision_from_groups(
                      g.pos, g.neg, xp=xp, signed=signed)
                  for name in names]
        tot_p = xp.sum(g.pos, axis=-1)
        tot_n = xp.sum(g.neg, axis=-1)
    if warn:
        for name in names:
            _warn_rows(name, tot_p, tot_n, score, pos=pos, codes=codes, weight=weight, xp=xp,
                       max_fpr=max_fpr)
    return values[0] if isinstance(metric, str) else tuple(values)


def _warn_rows(metric, tot_p, tot_n, score, *, pos, codes, weight, xp, max_fpr=None):
    if metric != "roc_auc":
        if bool(xp.any(tot_p == 0)):
            warnings.warn(NO_POS_PR, UserWarning, stacklevel=find_stack_level())
        return
    if weight is None:
        n_pos, n_neg = tot_p, tot_n
    else:  # scikit-learn counts classes regardless of the weights
        n = score.shape[-1]
        if codes is not None:
            rows = xp.reshape(xp.arange(score.shape[0], dtype=codes.dtype,
                                        device=_ns.device_of(codes)), (-1, 1))
            n_pos = xp.sum(xp.astype(codes == rows, tot_p.dtype), axis=-1)
        else:
            n_pos = xp.sum(xp.astype(pos, tot_p.dtype), axis=-1)
        n_pos = n_pos * xp.ones_like(tot_p)
        n_neg = n - n_pos
    one_class = (n_pos == 0) | (n_neg == 0)
    # host read, as the warnings below (validate=True: _warn_rows runs under warn only)
    if max_fpr is not None and max_fpr != 1 and bool(xp.any(~one_class & (tot_n == 0))):
        # host read (validate=True): negatives that all weigh 0 leave scikit-learn's
        # partial curve one point long, and its auc() raises
        raise ValueError("At least 2 points are needed to compute area under curve, but "
                         "x.shape = 1")
    if bool(xp.any(one_class)):
        warn_undefined(ONE_CLASS)
    if bool(xp.any(~one_class & (tot_n <= 0))):
        warn_undefined(NO_NEG_ROC)
    if bool(xp.any(~one_class & (tot_p <= 0))):
        warn_undefined(NO_POS_ROC)


def average_row_scores(scores, weights, *, xp, zero_if_empty=False):
    """scikit-learn's average of per-row (per-class or per-sample) binary scores.

    ``np.average(scores, weights=weights)`` with zero-weight rows set to 0 first
    (a NaN score of a row that weighs nothing does not spread).  When the
    weights sum to 0 the result is NaN, or 0 with ``zero_if_empty`` (as also
    for sums within 1e-8 of 0: scikit-learn's rule for the "weighted" average
    over classes).  ``weights=None`` is the plain mean.
    """
    if weights is None:
        return xp.mean(scores)
    weights = xp.astype(weights, scores.dtype)
    scores = xp.where(weights == 0, xp.zeros_like(scores), scores)
    total = xp.sum(weights)
    value = safe_divide(xp.sum(scores * weights), total,
                        zero_value=0.0 if zero_if_empty else float("nan"), xp=xp)
    if zero_if_empty:  # scikit-learn returns 0 when the class weights sum to ~0
        value = xp.where(xp.abs(total) <= 1e-8, xp.zeros_like(value), value)
    return value



def average_binary(metric, y, score, weight, average, *, acc, xp, ops, max_fpr=None,
                   codes=None, warn=False, signed=None):
    """scikit-learn's ``_average_binary_score`` for an indicator matrix ``y``.

    ``y`` and ``score`` are ``(N, C)``.  For multiclass one-vs-rest input,
    ``codes`` (``(N,)`` in ``0..C-1``) may be given instead of ``y`` for the
    per-class averages (it avoids gathering an N x C indicator matrix).
    """
    kw = dict(acc=acc, xp=xp, ops=ops, max_fpr=max_fpr, warn=warn, signed=signed)
    n, c = score.shape
    if warn and all_zero_weights(weight, xp=xp):
        zero = _zero_weights_average(metric, y, codes, average, c, xp=xp)
        if zero is not None:
            return xp.asarray(zero, dtype=acc, device=_ns.device_of(score))
    if codes is not None and y is None and average in ("micro", "samples"):
        cols = xp.reshape(xp.arange(c, dtype=codes.dtype, device=_ns.device_of(codes)), (1, c))
        y = xp.astype(xp.reshape(codes, (-1, 1)) == cols, acc)
    if average == "micro":
        w = None if weight is None else xp.reshape(
            xp.reshape(weight, (-1, 1)) * xp.ones((1, c), dtype=weight.dtype,
                                                  device=_ns.device_of(weight)), (-1,))
        return row_scores(metric, xp.reshape(score, (1, -1)), pos=xp.reshape(y, (1, -1)),
                          weight=w, **kw)[0]
    if average == "samples":
        values = row_scores(metric, score, pos=y, **kw)
        return average_row_scores(values, weight, xp=xp)
    st = xp.permute_dims(score, (1, 0))
    if codes is not None:
        values = row_scores(metric, st, codes=codes, weight=weight, **kw)
    else:
        values = row_scores(metric, st, pos=xp.permute_dims(y, (1, 0)), weight=weight, **kw)
    if average is None:
        return values
    if average == "macro":
        return xp.mean(values)
    # weighted: by the (weighted) number of positives of each class
    if codes is not None:
        aw = ops.bincount(codes, length=c, weights=(
            xp.ones((n,), dtype=acc, device=_ns.device_of(codes)) if weight is None
            else weight))
    else:
        yw = xp.astype(y, acc) if weight is None else xp.astype(y, acc) * xp.reshape(
            weight, (-1, 1))
        aw = xp.sum(yw, axis=0)
    return average_row_scores(values, aw, xp=xp, zero_if_empty=True)


ZERO_WEIGHTS = "Sample weights must contain at least one non-zero number."


def all_zero_weights(weight, *, xp) -> bool:
    """Every sample weighs 0 (a host read: callers run it under ``validate=True`` only)."""
    return weight is not None and weight.shape[0] > 0 and not bool(xp.any(weight != 0))


def both_classes(pos, *, xp) -> bool:
    """Some row of the indicator ``pos`` holds both classes (host reads: called only
    under ``validate=True``, once every weight is known to be 0)."""
    return bool(xp.any(xp.any(pos != 0, axis=-1) & xp.any(pos == 0, axis=-1)))


def _zero_weights_average(metric, y, codes, average, c, *, xp):
    """scikit-learn's outcome of ``_average_binary_score`` when every weight is 0.

    It averages before it scores for "weighted" (the class weights sum to 0:
    the value is 0) and after for "samples" (``np.average`` raises
    ZeroDivisionError).  Otherwise each label's binary score meets the
    weights: ROC AUC returns NaN (with its warning) for a label with one class
    before it looks at them, anything else raises.  Returns the value, or None
    where the rows are to be scored (every label one class).
    """
    if average == "weighted":
        return 0.0
    if average == "samples":
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    if metric != "roc_auc":
        raise ValueError(ZERO_WEIGHTS)
    if codes is not None:  # one-vs-rest: a column of one class is a class all or none hold
        counts = xp.sum(xp.astype(xp.reshape(codes, (-1, 1)) == xp.reshape(
            xp.arange(c, dtype=codes.dtype, device=_ns.device_of(codes)), (1, c)),
            xp.int64), axis=0)
        # host read (validate=True, all weights 0: an error path)
        mixed = bool(xp.any((counts > 0) & (counts < codes.shape[0])))
        mixed = mixed or (average == "micro" and c > 1)
    else:
        mixed = both_classes(xp.reshape(y, (1, -1)) if average == "micro"
                             else xp.permute_dims(y, (1, 0)), xp=xp)
    if mixed:
        raise ValueError(ZERO_WEIGHTS)
    return None


def ovo_roc_auc(codes, score, average, *, acc, xp, ops):
    """Hand & Till one-vs-one multiclass ROC AUC (macro or prevalence-weighted).

    For the score column of class ``a`` sorted once, a sample of class ``b``
    contributes the class-``a`` weight ranked above it (ties count one half);
    summing those by ``(a, b)`` gives the numerator of AUC(a vs b) for every
    pair at once.  Classes absent from ``y_true`` form no pair.
    """
    n, c = score.shape
    dev = _ns.device_of(score)
    g = tie_groups(xp.permute_dims(score, (1, 0)), codes=codes, acc=acc, xp=xp, ops=ops)
    t = xp.cumulative_sum(g.pos, axis=-1)
    per_group = t - 0.5 * g.pos                       # (C, N): ranked above + ties / 2
    per_sample = xp.take_along_axis(per_group, g.gid, axis=-1)
    sorted_codes = xp.reshape(xp.take(codes, xp.reshape(g.order, (-1,))), (c, n))
    rows = xp.reshape(xp.arange(c, dtype=codes.dtype, device=dev), (c, 1))
    pair_code = xp.reshape(rows * c + sorted_codes, (-1,))
    num = xp.reshape(ops.bincount(pair_code, length=c * c,
                                  weights=xp.reshape(per_sample, (-1,))), (c, c))
    counts = xp.astype(ops.bincount(codes, length=c), acc)
    denom = xp.reshape(counts, (c, 1)) * xp.reshape(counts, (1, c))
    auc_ab = safe_divide(num, denom, zero_value=0.0, xp=xp)  # a's column, a vs b
    pair = 0.5 * (auc_ab + xp.permute_dims(auc_ab, (1, 0)))
    ia = xp.reshape(xp.arange(c, device=dev), (c, 1))
    ib = xp.reshape(xp.arange(c, device=dev), (1, c))
    valid = (ia < ib) & (denom > 0)
    if average == "weighted":
        w = xp.reshape(counts, (c, 1)) + xp.reshape(counts, (1, c))
    else:
        w = xp.ones_like(pair)
    w = xp.where(valid, w, xp.zeros_like(w))
    return safe_divide(xp.sum(pair * w), xp.sum(w), zero_value=float("nan"), xp=xp)
