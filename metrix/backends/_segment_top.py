"""Per-segment top-k candidates on the host: one histogram instead of a sort.

The CPU kernel behind ``segment_top_candidates`` (NumPy, and torch CPU on
zero-copy views).  Each value gets a linear bin between the global min and
max, ``B`` bins per segment; one ``bincount`` of the codes
``segment * B + bin`` gives every segment's histogram, and the segment's
threshold bin is the highest one whose cumulative count from the top
reaches ``k``.  The pairs at or above their segment's threshold bin are the
candidates.

Why the ranks stay exact: bins are monotone in the value (a subtraction and
a multiplication by a positive constant, correctly rounded, then a floor),
so a kept pair's every predecessor in the segment's order -- a larger
value, or an equal one earlier in the flat order -- is kept too.  Hence
every kept pair's rank among the candidates is its rank among all pairs,
and every pair of rank ``< k`` is kept.  ``np.flatnonzero`` returns the
kept positions in flat order, so the tie rule (earlier position first)
carries over.

With ``skip_zeros`` and no negative value, zeros are dropped as well (bin 0
is theirs alone, below every threshold): zeros rank after every positive
value, so the positives' ranks do not change (for the ideal DCG, where a
zero gain adds nothing).
"""

from __future__ import annotations

import numpy as np

from ._minmax import minmax_numpy

#: elements per chunk of the code pass (its float and int temporaries stay in L2)
_CHUNK = 1 << 16
#: below this many pairs a sort is cheap enough
_MIN_PAIRS = 1 << 15
#: bins per segment: at most this many (a power of two)
_MAX_BINS = 64
#: bins per segment: about this many per k pairs of an average segment
_BIN_FACTOR = 2


def segment_top_candidates_numpy(values, seg, n_segments, k, skip_zeros=False, *,
                                  count=np.bincount):
    """Sorted positions of the candidate pairs, or None off the fast path.

    None when: the input is small, 1-D integer or float values are not given,
    the segments hold few more than ``k`` pairs on average (nothing to
    drop), a bound is not finite, all values are equal, or the candidates
    would be more than half the pairs (the full path is as cheap).  ``count``
    is the histogram call, ``count(codes, minlength=m)`` (torch passes its own
    ``bincount``, faster than NumPy's on CPU at millions of cells).
    """
    n = values.shape[0]
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    if (values.ndim != 1 or seg.shape != values.shape or n < _MIN_PAIRS
            or values.dtype.kind not in "iuf" or seg.dtype.kind not in "iu"
            or n < 4 * k * n_segments):
        return None
    lo, hi = minmax_numpy(values)
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        return None
    drop = bool(skip_zeros and lo >= 0)
    base = 1 if drop else 0  # bin 0 holds the zeros alone when they are dropped
    n_bins = int(min(_MAX_BINS, max(4, 1 << int(np.ceil(np.log2(
        _BIN_FACTOR * n / (k * n_segments)))))))
    lo = 0.0 if drop else float(lo)
    span = n_bins - base
    scale = span / (float(hi) - lo)
    codes = np.empty(n, dtype=np.intp)
    tmp = np.empty(min(n, _CHUNK), dtype=np.float64)
    base_buf = np.empty(min(n, _CHUNK), dtype=np.intp)
    for a in range(0, n, _CHUNK):
        x, c = values[a:a + _CHUNK], codes[a:a + _CHUNK]
        t, b = tmp[:c.shape[0]], base_buf[:c.shape[0]]
        # in float64 (a monotone conversion): an integer difference could overflow
        np.subtract(x, lo, out=t, dtype=np.float64, casting="unsafe")
        np.multiply(t, scale, out=t)
        np.minimum(t, span - 1, out=t)  # hi itself lands in the top bin
        np.copyto(c, t, casting="unsafe")  # t >= 0: truncation is the floor
        np.multiply(seg[a:a + _CHUNK], n_bins, out=b, casting="unsafe")
        c += b
        if drop:
            c += x > 0
    hist = count(codes, minlength=n_segments * n_bins)
    if hist.shape[0] != n_segments * n_bins:  # a segment id out of range
        return None
    hist = hist.reshape(n_segments, n_bins)[:, base:]
    cum = np.cumsum(hist[:, ::-1], axis=1)
    first = np.argmax(cum >= k, axis=1)  # top-down index of the threshold bin
    first[cum[:, -1] < k] = span - 1  # fewer than k pairs: keep them all
    if int(cum[np.arange(n_segments), first].sum()) * 2 > n:
        return None
    thr = (n_bins - 1 - first) + np.arange(n_segments, dtype=np.intp) * n_bins
    keep = np.empty(n, dtype=np.bool_)
    for a in range(0, n, _CHUNK):
        np.greater_equal(codes[a:a + _CHUNK], thr[seg[a:a + _CHUNK]],
                         out=keep[a:a + _CHUNK])
    return np.flatnonzero(keep)
