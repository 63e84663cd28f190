"""Unweighted AUC and AP from sorted *values* (no argsort, no gather).

Without sample weights a tie group is described by counts alone, and counts
come from binary searches into sorted copies of the scores: sorting values is
several times cheaper than an argsort followed by gathers (NumPy's SIMD
sort), and on accelerators it avoids the permutation's memory traffic.

Binary input (``s`` the scores, ``p`` the positive mask, ``P`` and ``M`` the
numbers of positives and negatives): with ``a`` the sorted scores and ``q``
the sorted positive scores (non-positives pushed to ``+inf``),

* every positive's score ``v`` sees ``#{a < v} + #{a == v} / 2`` samples
  below it; the positives among those sum to exactly ``P^2 / 2`` (each pair
  of positives counts once, each positive half for itself), so

  .. math:: \\mathrm{AUC} = \\frac{\\sum_{v \\in q} (\\#\\{a < v\\} + \\#\\{a \\le v\\})/2
            - P^2/2}{P M}

* every positive's precision is the share of positives among the samples
  scored at least as high: ``(P - #{q < v}) / (n - #{a < v})``; AP is their
  mean.

One-vs-rest AUC over ``C`` classes needs, for each sample, only the column
of its own class: one batched sort of the ``(C, N)`` columns and a
vectorised binary search (``ceil(log2(N + 1))`` rounds of one ``take`` each,
a loop over bits, not over data) of the ``N`` own-class scores.
"""

from __future__ import annotations

import math

from .._core.arith import nan_divide, safe_divide
from .._core.namespace import count_dtype, device_of


def _as_bool(pos, xp):
    return pos if xp.isdtype(pos.dtype, "bool") else pos != 0


def _sorted_positives(pos, score, *, xp):
    inf = xp.full_like(score, float("inf"))
    return xp.sort(xp.where(pos, score, inf), stable=False)


def value_sorts(pos, score, *, acc, xp):
    """``(a, q, P, valid)``: the sorted scores, the sorted positive scores (the
    rest pushed to ``+inf``), the number of positives and the mask of the first
    ``P`` positions of ``q`` -- what AUC and AP of one row both read."""
    n = score.shape[0]
    pos = _as_bool(pos, xp)
    n_pos = xp.sum(xp.astype(pos, acc))
    valid = xp.astype(xp.arange(n, device=device_of(score)), acc) < n_pos
    return xp.sort(score, stable=False), _sorted_positives(pos, score, xp=xp), n_pos, valid


def binary_auc_values(sorts, *, acc, xp):
    """Unweighted exact ROC AUC of a 1-D problem from its :func:`value_sorts`;
    also ``(P, M)``."""
    a, q, n_pos, valid = sorts
    below = xp.astype(xp.searchsorted(a, q, side="left")
                      + xp.searchsorted(a, q, side="right"), acc) * 0.5
    total = xp.sum(xp.where(valid, below, xp.zeros_like(below)))
    n_neg = a.shape[0] - n_pos
    return auc_from_u(total - 0.5 * n_pos * n_pos, n_pos, n_neg, xp=xp), n_pos, n_neg


def binary_ap_values(sorts, *, acc, xp):
    """Unweighted step-wise average precision of a 1-D problem from its
    :func:`value_sorts`; also ``(P, M)``."""
    a, q, n_pos, valid = sorts
    n = a.shape[0]
    pos_ge = n_pos - xp.astype(xp.searchsorted(q, q, side="left"), acc)
    all_ge = n - xp.astype(xp.searchsorted(a, q, side="left"), acc)
    prec = safe_divide(pos_ge, all_ge, zero_value=0.0, xp=xp)
    total = xp.sum(xp.where(valid, prec, xp.zeros_like(prec)))
    return ap_from_terms(total, n_pos, xp=xp), n_pos, n - n_pos


def auc_from_u(u, n_pos, n_neg, *, xp):
    r"""Binary ROC AUC from the Mann-Whitney statistic (ties count 1/2):

    .. math:: \mathrm{AUC} = \frac{U}{P N}

    NaN where a class is absent; batched over any shape.  Python numbers (a
    host kernel's exact sums) are divided on the host, arrays on their device.
    Every ROC AUC of the family ends here (the binary lane, the split sorts,
    the value sorts, one-vs-rest, the tie groups of weighted rows and of the
    stream, the host score tables), but the partial AUC of ``max_fpr``, which
    reads the curve.
    Reference: Hanley & McNeil, Radiology 143(1), 1982.
    """
    if not hasattr(n_pos, "dtype"):
        return u / (n_pos * n_neg) if n_pos and n_neg else float("nan")
    return nan_divide(u, n_pos * n_neg, xp=xp)


def ap_from_terms(total, n_pos, *, xp):
    """Binary average precision ``S / P`` (0 without positives, as
    scikit-learn), ``S`` the sum over the positives of the precision at their
    threshold: a Python float of host numbers, else an array.  Every AP of
    the family ends here (weighted rows and the stream through the tie groups).
    Reference: scikit-learn, ``sklearn.metrics.average_precision_score``."""
    if not hasattr(n_pos, "dtype"):
        return total / n_pos if n_pos else 0.0
    return total / xp.where(n_pos == 0, 1.0, n_pos)  # no positive: S = 0, so 0 / 1


def _split_totals(q, r, *, acc, xp):
    dev = device_of(q)
    return (xp.asarray(q.shape[0], dtype=acc, device=dev),
            xp.asarray(r.shape[0], dtype=acc, device=dev))


def negatives_below(q, r, *, xp):
    """``#{r < v}`` for every ``v`` in ``q`` (shared by AUC and AP of one split)."""
    return xp.searchsorted(r, q, side="left")


def binary_auc_split(q, r, *, acc, xp, neg_lt=None, sums=None):
    """Unweighted exact ROC AUC from the sorted positive ``q`` and negative ``r``
    scores (:meth:`split_sort`); also ``(P, M)``.

    .. math:: \\mathrm{AUC} = \\frac{\\sum_{v \\in q} (\\#\\{r < v\\}
              + \\#\\{r \\le v\\})/2}{P M}

    (the Mann-Whitney U statistic, ties counted half).  The counts are summed
    as integers, so the result is exact up to the final division.  ``sums``:
    the adapter's :meth:`split_rank_sums`, which replaces the searches.
    """
    n_pos, n_neg = _split_totals(q, r, acc=acc, xp=xp)
    if sums is not None:
        pairs = xp.asarray(sums[0] * 0.5, dtype=acc, device=device_of(q))
    else:
        if neg_lt is None:
            neg_lt = negatives_below(q, r, xp=xp)
        pairs = xp.astype(xp.sum(neg_lt) + xp.sum(xp.searchsorted(r, q, side="right")),
                          acc) * 0.5
    return auc_from_u(pairs, n_pos, n_neg, xp=xp), n_pos, n_neg


def binary_ap_split(q, r, *, acc, xp, ops, neg_lt=None, sums=None):
    """Unweighted step-wise average precision from the sorted positive ``q`` and
    negative ``r`` scores; also ``(P, M)``.

    Each positive of score ``v`` has precision ``#{q >= v} / (#{q >= v} + #{r >= v})``
    (its whole tie group is above the threshold ``v``); AP is their mean.
    ``sums``: as in :func:`binary_auc_split`.
    """
    n_pos, n_neg = _split_totals(q, r, acc=acc, xp=xp)
    if sums is not None:
        total = xp.asarray(sums[1], dtype=acc, device=device_of(q))
        return ap_from_terms(total, n_pos, xp=xp), n_pos, n_neg
    p, m = q.shape[0], r.shape[0]
    pos_lt = xp.searchsorted(q, q, side="left")
    if neg_lt is None:
        neg_lt = negatives_below(q, r, xp=xp)

    def precision(pos_lt, neg_lt):
        pos_ge = xp.astype(p - pos_lt, acc)
        return (pos_ge / (pos_ge + xp.astype(m - neg_lt, acc)),)

    (total,) = ops.fused_sums(precision, [pos_lt, neg_lt])  # cache-sized blocks on CPUs
    return ap_from_terms(total, n_pos, xp=xp), n_pos, n_neg


def _count_below(flat, col, stride, n, v, *, strict, xp):
    """For each query, how many of ``flat[col + stride * k]``, ``k < n``, are
    ``< v`` (``<= v`` if not strict): one sorted row (or column) of a matrix.

    A lower/upper-bound binary search run for a fixed number of rounds.
    """
    lo = xp.zeros_like(col)
    hi = lo + n
    for _ in range(max(1, math.ceil(math.log2(n + 1))) + 1):
        active = lo < hi
        mid = (lo + hi) // 2
        val = xp.take(flat, col + stride * xp.clip(mid, max=n - 1))
        right = (val < v) if strict else (val <= v)
        right = right & active
        lo = xp.where(right, mid + 1, lo)
        hi = xp.where(active & ~right, mid, hi)
    return lo


def ovr_auc_values(codes, score, *, acc, xp, ops):
    """Unweighted one-vs-rest ROC AUC of every class; also positives per class.

    ``codes`` ``(N,)`` in ``0..C-1``; ``score`` ``(N, C)``.  Memory: a
    transposed and a sorted ``(C, N)`` copy of the scores.  A code ``C`` (a
    label outside the declared ones, unchecked) is a negative of every class.
    """
    n, c = score.shape
    cdt = count_dtype(xp, device_of(score))
    # a row-major (C, N) copy (reshaping the transposed view materialises it),
    # so each class's column is sorted as one contiguous row
    cols = xp.reshape(xp.reshape(xp.permute_dims(score, (1, 0)), (-1,)), (c, n))
    flat = xp.reshape(xp.sort(cols, axis=-1, stable=False), (-1,))
    idx = xp.astype(codes, cdt)
    safe = xp.minimum(idx, xp.asarray(c - 1, dtype=cdt, device=device_of(idx)))
    v = xp.reshape(xp.take_along_axis(score, xp.reshape(safe, (-1, 1)), axis=1), (-1,))
    lt = _count_below(flat, safe * n, 1, n, v, strict=True, xp=xp)
    le = _count_below(flat, safe * n, 1, n, v, strict=False, xp=xp)
    # the bincounts below drop code C: those rows are nobody's positive
    below = xp.astype(lt + le, acc) * 0.5
    total = ops.bincount(idx, length=c, weights=below)
    n_pos = xp.astype(ops.bincount(idx, length=c), acc)
    n_neg = n - n_pos
    return auc_from_u(total - 0.5 * n_pos * n_pos, n_pos, n_neg, xp=xp), n_pos, n_neg
