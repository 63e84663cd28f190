"""The ranking sufficient statistic: one sort, tie groups, per-group weights.

Every ranking metric reads the same arrays.  For scores ``s`` of shape
``(B, n)`` (``B`` independent rows: one binary problem, the classes of a
one-vs-rest problem, or the samples of a multilabel problem) we

1. sort each row once, descending (one batched ``argsort``, not stable: every
   quantity below is a sum over whole tie groups, so the order inside a group
   never matters);
2. mark where a new distinct score starts (``s[i] != s[i-1]``) and number the
   tie groups of each row by a cumulative sum of those marks (``gid``);
3. sum the positive and negative weights of each group with one
   ``bincount`` of length ``B * n`` (groups are padded with zeros up to
   ``n`` per row, so every shape is static and the code traces under
   ``jax.jit`` and ``torch.compile``).

The cumulative sums of the group weights are the true/false positive counts
at every distinct threshold (the group ends), from which ROC AUC (trapezoid
over the group ends: ties handled exactly) and step-wise average precision
follow.  Memory is O(B * n).

The curves themselves have a data-dependent length; :func:`exact_curve`
compacts the group ends with a boolean mask (eager only).  Binned curves
(:func:`binned_curve`) count the samples above each of ``T`` thresholds with a
``searchsorted`` and a ``bincount``: O(N + T) memory, static shapes.
"""

from __future__ import annotations

from typing import NamedTuple

from .._core.arith import safe_divide
from .._core.namespace import count_dtype, device_of
from ._rank_values import ap_from_terms, auc_from_u


class TieGroups(NamedTuple):
    """Per-row tie groups of the scores sorted in descending order.

    ``pos``/``neg`` are ``(B, n)``: the positive/negative weight of the
    ``g``-th distinct score of each row (zero for ``g`` past the last group).
    ``gid`` is ``(B, n)``: the group of each sorted position.  ``order`` is the
    sorting permutation and ``score`` the sorted scores.
    """

    pos: object
    neg: object
    gid: object
    order: object
    score: object


def sort_desc(score, *, xp, stable=False):
    """Descending argsort along the last axis and the sorted scores.

    ``argsort(-s)`` instead of ``descending=True``: NumPy has no native
    descending sort, and one negation is cheaper than two flips.  Not stable
    by default: callers that only read whole tie groups need no order inside
    a group; ``stable=True`` keeps tied scores in input order (callers that
    hand the sorted samples on, as ``metric_at_thresholds`` does).
    """
    order = xp.argsort(-score, axis=-1, stable=stable)
    return order, xp.take_along_axis(score, order, axis=-1)


def group_ends(s, *, xp):
    """Mask of the last position of each tie group of the sorted 1-D ``s``:
    one ``True`` per distinct score (the thresholds of an exact curve)."""
    one = xp.ones((1,), dtype=xp.bool, device=device_of(s))
    return xp.concat([s[:-1] != s[1:], one])


def group_ids(s, *, xp):
    """Number the tie groups of each row of the sorted ``s`` (``(B, n)``)."""
    dev = device_of(s)
    head = xp.ones((s.shape[0], 1), dtype=xp.bool, device=dev)
    first = xp.concat([head, s[:, 1:] != s[:, :-1]], axis=1)
    return xp.cumulative_sum(xp.astype(first, count_dtype(xp, dev)), axis=1) - 1


def segment_sums(gid, values, *, xp, ops):
    """Sums of ``values`` (``(B, n)`` or ``(B, n, K)``) over the groups ``gid``.

    One ``bincount`` over ``row * n + gid``; returns the shape of ``values``.
    """
    b, n = gid.shape
    dev = device_of(gid)
    offsets = xp.reshape(xp.arange(b, dtype=gid.dtype, device=dev) * n, (b, 1))
    codes = xp.reshape(gid + offsets, (-1,))
    if values.ndim == 2:
        out = ops.bincount(codes, length=b * n, weights=xp.reshape(values, (-1,)))
        return xp.reshape(out, (b, n))
    k = values.shape[2]
    out = ops.bincount(codes, length=b * n, weights=xp.reshape(values, (-1, k)))
    return xp.reshape(out, (b, n, k))


def _take_rows(a, order, *, xp):
    """``a`` in the order of ``order`` (``(B, n)``); ``a`` is ``(n,)`` or ``(B, n)``."""
    if a.ndim == 1:
        return xp.reshape(xp.take(a, xp.reshape(order, (-1,))), order.shape)
    return xp.take_along_axis(a, order, axis=-1)


def tie_groups(score, *, pos=None, codes=None, weight=None, acc, xp, ops):
    """The :class:`TieGroups` statistic of ``score`` (``(B, n)``).

    Which samples are positive in row ``b`` is given either by ``pos``
    (``(B, n)`` or ``(n,)``, 1 for positive) or by integer ``codes``
    (``(n,)``: row ``b`` is "class ``b`` vs rest").  ``weight`` is ``None``,
    ``(n,)`` (shared by all rows) or ``(B, n)``.  Sums are in dtype ``acc``.
    """
    dev = device_of(score)
    order, s = sort_desc(score, xp=xp)
    if codes is not None:
        rows = xp.reshape(xp.arange(score.shape[0], dtype=codes.dtype, device=dev), (-1, 1))
        p = xp.astype(_take_rows(codes, order, xp=xp) == rows, acc)
    else:
        p = xp.astype(_take_rows(pos, order, xp=xp), acc)
    if weight is None:
        n = 1.0 - p
    else:
        w = xp.astype(_take_rows(weight, order, xp=xp), acc)
        p = p * w
        n = w - p
    gid = group_ids(s, xp=xp)
    # two 1-D bincounts: cheaper than one over (N, 2) weights (no stack, no codes)
    pos_g = segment_sums(gid, p, xp=xp, ops=ops)
    neg_g = segment_sums(gid, n, xp=xp, ops=ops)
    return TieGroups(pos_g, neg_g, gid, order, s)


# -- areas from the groups ------------------------------------------------

def roc_auc_from_groups(pos, neg, *, xp, max_fpr=None):
    """ROC AUC of every row: the trapezoid over the group ends.

    With ``T_g``/``F_g`` the cumulative positive/negative weight at the end
    of group ``g`` and ``P_g``/``N_g`` the group's own weights,

    .. math:: \\mathrm{AUC} = \\frac{\\sum_g N_g (T_g - P_g / 2)}{T_G F_G}

    (ties count one half): the numerator is the weighted Mann-Whitney ``U``,
    and the area :func:`~metrix.ranking._rank_values.auc_from_u`.  NaN where a
    row has no positive or no negative weight.  ``max_fpr`` gives the
    McClish-corrected partial AUC.
    """
    t = xp.cumulative_sum(pos, axis=-1)
    f = xp.cumulative_sum(neg, axis=-1)
    tot_p, tot_n = t[..., -1], f[..., -1]
    nan = float("nan")
    if max_fpr is None or max_fpr == 1:
        return auc_from_u(xp.sum(neg * (t - 0.5 * pos), axis=-1), tot_p, tot_n, xp=xp)
    tp_ = xp.reshape(tot_p, tot_p.shape + (1,))
    tn_ = xp.reshape(tot_n, tot_n.shape + (1,))
    y1 = safe_divide(t, tp_, zero_value=nan, xp=xp)
    y0 = safe_divide(t - pos, tp_, zero_value=nan, xp=xp)
    x1 = safe_divide(f, tn_, zero_value=nan, xp=xp)
    x0 = safe_divide(f - neg, tn_, zero_value=nan, xp=xp)
    m = float(max_fpr)
    seg = xp.clip(xp.clip(x1, max=m) - x0, min=0.0)
    frac = safe_divide(seg, x1 - x0, zero_value=0.0, xp=xp)
    yc = y0 + (y1 - y0) * frac
    partial = xp.sum(seg * (y0 + yc) * 0.5, axis=-1)
    min_area = 0.5 * m**2
    return 0.5 * (1 + (partial - min_area) / (m - min_area))


def average_precision_from_groups(pos, neg, *, xp, signed=True):
    """Step-wise average precision of every row (no interpolation).

    .. math:: \\mathrm{AP} = \\sum_g \\frac{P_g}{T_G} \\frac{T_g}{T_g + F_g}

    Where a row's positive weight sums to zero, scikit-learn sets recall to one
    at every threshold, so AP is the precision at the highest threshold (0
    without positives; not 0 when negative weights cancel positive ones).  As
    scikit-learn, a negative AP (negative weights) is clipped to 0.
    ``signed=False`` (no weight below 0: counts, or weights known to be
    non-negative) skips both, which cannot then apply.
    """
    t = xp.cumulative_sum(pos, axis=-1)
    f = xp.cumulative_sum(neg, axis=-1)
    precision = safe_divide(t, t + f, zero_value=0.0, xp=xp)
    tot_p = t[..., -1]
    ap = ap_from_terms(xp.sum(pos * precision, axis=-1), tot_p, xp=xp)
    if not signed:
        return ap
    # the highest threshold: the first group holding weight (scikit-learn drops
    # zero-weight samples before it builds the curve)
    held = xp.astype((pos != 0) | (neg != 0), xp.int8)
    first = xp.argmax(held, axis=-1, keepdims=True)
    top = xp.take_along_axis(precision, first, axis=-1)[..., 0]
    return xp.maximum(xp.where(tot_p == 0, top, ap), xp.zeros_like(ap))


# -- curves ---------------------------------------------------------------

def sorted_curve(y_pos, score, weight, *, acc, xp):
    """``(fps, tps, thresholds, ends)`` at every sorted position, thresholds decreasing.

    Static shapes: ``fps`` / ``tps`` are the cumulative negative / positive
    weights down the sorted scores and ``ends`` marks the last position of each
    tie group (the points of the curve).  Zero-weight samples stay (a group of
    them repeats the counts of the group before it).
    """
    order, s = sort_desc(xp.reshape(score, (1, -1)), xp=xp)
    order, s = order[0, :], s[0, :]
    p = xp.astype(xp.take(y_pos, order), acc)
    if weight is None:
        tps = xp.cumulative_sum(p)
        fps = xp.astype(xp.arange(1, s.shape[0] + 1, device=device_of(s)), acc) - tps
    else:
        w = xp.astype(xp.take(weight, order), acc)
        fps = xp.cumulative_sum(w - p * w)
        tps = xp.cumulative_sum(p * w)
    return fps, tps, s, group_ends(s, xp=xp)


def exact_curve(y_pos, score, weight, *, acc, xp):
    """``(fps, tps, thresholds)`` at every distinct score, thresholds decreasing.

    Data-dependent length (boolean compaction): eager only.  Zero-weight
    samples are dropped first, as scikit-learn does.
    """
    if weight is not None:
        keep = weight != 0
        y_pos, score, weight = y_pos[keep], score[keep], weight[keep]
    fps, tps, s, last = sorted_curve(y_pos, score, weight, acc=acc, xp=xp)
    return fps[last], tps[last], s[last]


def binned_curve(y_pos, score, weight, thresholds, *, acc, xp, ops):
    """``(fps, tps, total_neg, total_pos)`` at each ascending threshold (``score >= t``).

    One ``searchsorted`` of the scores into the thresholds and one
    ``bincount`` of length ``T + 1``: O(N + T) memory, static shapes.  A NaN
    score (unchecked input) is below every threshold, as in the binned stream.
    """
    t = thresholds.shape[0]
    score = xp.where(score == score, score, xp.asarray(-float("inf"), dtype=score.dtype,
                                                       device=device_of(score)))
    k = xp.searchsorted(xp.astype(thresholds, score.dtype), score, side="right")
    p = xp.astype(y_pos, acc)
    w = xp.ones_like(p) if weight is None else xp.astype(weight, acc)
    hist = ops.bincount(k, length=t + 1, weights=xp.stack([p * w, w - p * w], axis=-1))
    c = xp.cumulative_sum(hist, axis=0)
    above = c[-1:, :] - c[:t, :]  # weight with k > j, i.e. score >= thresholds[j]
    return above[:, 1], above[:, 0], c[-1, 1], c[-1, 0]
