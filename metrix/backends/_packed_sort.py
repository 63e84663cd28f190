"""Unweighted binary ranking sums from one sort of packed keys (NumPy, host).

A float32 score maps to an unsigned 32-bit key with the same order (the
sign bit set for positives, all bits flipped for negatives; ``-0.0`` first
made ``+0.0``, so equal floats share a key).  The key shifted left once with
the label in its low bit is one uint64: a single value sort (NumPy's SIMD
sort, no argsort) orders the scores and, within a tie, negatives before
positives.  In that order, with ``P`` positives at positions ``i_1 < ...``
of ``n`` scores:

* ROC AUC (Mann-Whitney):

  .. math:: 2U = 2 \\sum_{j} i_j - P (P - 1) - \\sum_{g} n_g p_g

  where the last sum runs over the tie groups holding both classes (``n_g``
  negatives, ``p_g`` positives): each such pair counts 1/2, not 1, in ``U``.
  All sums are exact integers (``2U / (2 P N)`` is the AUC).
  Reference: Hanley & McNeil, Radiology 143(1), 1982.
* Average precision: the precision at the threshold of the ``j``-th positive
  (0-based) is ``(P - b_j) / (n - s_j)``, with ``s_j`` the first position of
  its tie group and ``b_j`` the positives before it (``s_j = i_j``, ``b_j = j``
  without ties), and

  .. math:: \\mathrm{AP} = \\frac{1}{P} \\sum_j \\frac{P - b_j}{n - s_j}

  (0 without positives), scikit-learn's step-wise sum over distinct
  thresholds ``\\sum_g (R_g - R_{g-1}) P_g``, one term per positive.
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


def packed_sorted(score, pos):
    """The sorted uint64 codes ``key << 1 | label`` of float32 / float16
    ``score`` and boolean ``pos`` (1-D, one length), or None for other dtypes
    or sizes."""
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
    return z


def tie_groups(z):
    """``(first, last)`` positions (int64, inclusive) of the tie groups of the
    sorted codes ``z`` (runs of one key over two or more codes), or None
    without ties.  One pass finds the tied neighbours; the rest works on them
    alone (a training-loop batch of float32 scores has few)."""
    t = np.flatnonzero((z[1:] ^ z[:-1]) <= 1)  # position i ties with i + 1
    if t.shape[0] == 0:
        return None
    new = np.empty(t.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(t[1:], t[:-1] + 1, out=new[1:])
    last = np.empty_like(new)
    last[-1] = True
    last[:-1] = new[1:]
    return t[new], t[last] + 1


def _group_positives(z, first, last):
    """The positives of each tie group: its codes from the first odd one (the
    negatives sort first within a key) to its end."""
    return last + 1 - np.searchsorted(z, z[first] | 1)


def auc_pairs_numpy(score, pos):
    """``(2U, P, N)`` of float32 / float16 ``score`` and boolean ``pos``
    (1-D, one length), or None for other dtypes or sizes."""
    z = packed_sorted(score, pos)
    if z is None:
        return None
    n = z.shape[0]
    n_pos = int(np.count_nonzero(pos))
    label = z & 1
    pairs = 2 * int(np.dot(label.astype(np.float64), _positions(n))) - n_pos * (n_pos - 1)
    groups = tie_groups(z)
    if groups is not None:  # each tie group's cross-class pairs count 1/2, not 1
        first, last = groups
        p_g = _group_positives(z, first, last)
        pairs -= int(np.dot(last + 1 - first - p_g, p_g))
    return pairs, n_pos, n - n_pos


def ap_sum_numpy(score, pos):
    """``(S, P)`` with ``AP = S / P`` (0 for ``P = 0``) of float32 / float16
    ``score`` and boolean ``pos`` (1-D, one length), or None for other dtypes
    or sizes.  ``S`` is a float64 sum of ``P`` precisions."""
    z = packed_sorted(score, pos)
    if z is None:
        return None
    n = z.shape[0]
    # the positives' positions, ascending (nonzero of a boolean array: its
    # branch-free loop, a third of the time of the uint64 one)
    at = np.flatnonzero((z & 1).astype(bool))
    n_pos = at.shape[0]
    if n_pos == 0:
        return 0.0, 0
    terms = (n_pos - _positions(n_pos)) / (n - at)  # without ties: s_j = i_j, b_j = j
    groups = tie_groups(z)
    if groups is None:
        return float(np.sum(terms)), n_pos
    # a tie group's positives share the precision at its first position: their
    # terms (the run b .. b + p - 1 of ``terms``) give way to p times that one
    first, last = groups
    p_g = _group_positives(z, first, last)
    b_g = np.searchsorted(at, first)
    offsets = np.cumsum(p_g) - p_g
    tied = np.arange(offsets[-1] + p_g[-1]) + np.repeat(b_g - offsets, p_g)
    shared = np.dot(p_g, (n_pos - b_g) / (n - first))
    return float(np.sum(terms) - np.sum(terms[tied]) + shared), n_pos
