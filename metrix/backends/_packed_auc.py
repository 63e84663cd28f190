"""Unweighted binary ROC AUC pairs from one sort of packed keys (NumPy, host).

A float32 score maps to an unsigned 32-bit key with the same order (the
sign bit set for positives, all bits flipped for negatives; ``-0.0`` first
made ``+0.0``, so equal floats share a key).  The key shifted left once with
the label in its low bit is one uint64: a single value sort (NumPy's SIMD
sort, no argsort) orders the scores and, within a tie, negatives before
positives.  In that order, with ``P`` positives at positions ``i_1 < ...``,

.. math:: 2U = 2 \\sum_{j} i_j - P (P - 1) - \\sum_{g} n_g p_g

where the last sum runs over the tie groups holding both classes (``n_g``
negatives, ``p_g`` positives): each such pair counts 1/2, not 1, in the
Mann-Whitney ``U``.  All sums are exact integers (``2U / (2 P N)`` is the AUC).
Reference: Hanley & McNeil, Radiology 143(1), 1982.
"""

from __future__ import annotations

import numpy as np

#: the sign bit of a float32's bit pattern
_SIGN = np.uint32(0x80000000)
#: 0, 1, 2, ... in float64, grown on demand (the positions' dot product)
_POSITIONS = [np.zeros(0)]
#: the exact range of the float64 position sums (n * n / 2 < 2 ** 53)
PACKED_MAX = 1 << 26


def _positions(n):
    a = _POSITIONS[0]
    if a.shape[0] < n:
        a = np.arange(max(n, 2 * a.shape[0]), dtype=np.float64)
        _POSITIONS[0] = a
    return a[:n]


def auc_pairs_numpy(score, pos):
    """``(2U, P, N)`` of float32 / float16 ``score`` and boolean ``pos``
    (1-D, one length), or None for other dtypes or sizes."""
    if score.dtype == np.float16:
        score = score.astype(np.float32)
    elif score.dtype != np.float32 or pos.dtype != np.bool_:
        return None
    n = score.shape[0]
    if n == 0 or n > PACKED_MAX:
        return None
    key = np.add(score, np.float32(0)).view(np.uint32)  # -0.0 + 0.0 is +0.0
    flip = key >> 31
    np.negative(flip, out=flip)  # all ones for a negative float
    flip |= _SIGN
    key ^= flip
    z = key.astype(np.uint64)
    z <<= 1
    z |= pos
    z.sort()
    n_pos = int(np.count_nonzero(pos))
    label = z & 1
    pairs = 2 * int(np.dot(label.astype(np.float64), _positions(n))) - n_pos * (n_pos - 1)
    # a tie across the classes: a negative's code directly followed by the
    # positive code of the same key (code ^ 1)
    if n > 1 and bool(np.any(z[1:] == (z[:-1] ^ 1))):
        k = z >> 1
        start = np.empty(n, dtype=bool)
        start[0] = True
        np.not_equal(k[1:], k[:-1], out=start[1:])
        first = np.flatnonzero(start)
        p_g = np.add.reduceat(label, first).astype(np.int64)
        n_g = np.diff(first, append=n) - p_g
        pairs -= int(np.dot(n_g, p_g))
    return pairs, n_pos, n - n_pos
