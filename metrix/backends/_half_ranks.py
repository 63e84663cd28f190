"""16-bit scores (float16, bfloat16) ranked by counting, not by sorting.

A 16-bit score takes one of 65,536 bit patterns, so the order of a million
scores is a histogram: one ``bincount`` of the patterns of each class, laid
out in value order by a fixed permutation of the patterns (made once per
format), gives the sorted scores (``np.repeat``, a counting sort) and the
rank sums of ROC AUC and average precision (cumulative sums over the 65,536
values) in a few passes over the data instead of an ``N log N`` sort.  The
values are the ones given: ties are equal values, as scikit-learn reads the
array it receives; -0.0 and +0.0 are one value.  Scores with a NaN decline
(None): the caller sorts, as before.

Reference: the counting sort (H. H. Seward, 1954); the Mann-Whitney ``U``
with ties counted half, as :mod:`._rank_statistics`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HALF_MIN_ROWS", "counting_split_sort", "histogram_rank_sums"]

#: from this many scores counting beats sorting (below it, the fixed cost of
#: two 65,536-bin histograms is more than a sort)
HALF_MIN_ROWS = 1 << 16

_PATTERNS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
_LAYOUTS: dict = {}


def _values(fmt):
    """Every 16-bit pattern's value, as float32 (exact for both formats)."""
    if fmt == "float16":
        return _PATTERNS.view(np.float16).astype(np.float32)
    return (_PATTERNS.astype(np.uint32) << 16).view(np.float32)  # bfloat16: the top half


def _layout(fmt):
    """``(order, zero, nan)``: the patterns in ascending value order (NaNs last),
    the position of the second zero (-0.0 or +0.0, merged into the one
    before it) and the position of the first NaN."""
    out = _LAYOUTS.get(fmt)
    if out is None:
        values = _values(fmt)
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        nan = int(np.count_nonzero(~np.isnan(values)))
        zero = int(np.flatnonzero(ordered[:nan] == 0)[1])
        out = _LAYOUTS[fmt] = (order, zero, nan)
    return out


def _histogram(bits, fmt):
    """Counts per distinct value (ascending, int64; -0.0 counted as 0.0) of the
    uint16 patterns ``bits``, or None where one is NaN."""
    order, zero, nan = _layout(fmt)
    counts = np.bincount(bits, minlength=1 << 16)[order]
    if counts[nan:].any():
        return None
    counts[zero - 1] += counts[zero]
    counts[zero] = 0
    return counts[:nan]


def counting_split_sort(bits, pos, fmt):
    """The patterns of the positives' and the negatives' scores, each in
    ascending value order (uint16), from the patterns ``bits`` of the scores
    and the boolean ``pos``; None where a score is NaN."""
    q, r = np.compress(pos, bits), np.compress(~pos, bits)
    hq, hr = _histogram(q, fmt), _histogram(r, fmt)
    if hq is None or hr is None:
        return None
    ordered = _PATTERNS[_layout(fmt)[0][:hq.shape[0]]]
    return np.repeat(ordered, hq), np.repeat(ordered, hr)


def histogram_rank_sums(q, r, fmt, precision=True):
    """``split_rank_sums`` of the patterns ``q`` and ``r`` (the positives' and
    negatives' scores, any order): ``2U = sum over positives v of #{r < v} +
    #{r <= v}`` (an int) and the sum over positives of
    ``#{q >= v} / (#{q >= v} + #{r >= v})`` (0.0 without ``precision``);
    None where a score is NaN."""
    hq, hr = _histogram(q, fmt), _histogram(r, fmt)
    if hq is None or hr is None:
        return None
    below = np.cumsum(hr) - hr  # negatives below each value
    pairs = int(hq @ (2 * below + hr))
    if not precision:
        return pairs, 0.0
    pos_ge = np.float64(q.shape[0]) - (np.cumsum(hq) - hq)
    neg_ge = np.float64(r.shape[0]) - below
    return pairs, float(hq @ (pos_ge / np.maximum(pos_ge + neg_ge, 1.0)))
