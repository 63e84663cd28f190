"""The nearest row of ``Y`` to each row of a block of ``X`` (host NumPy): a float32
screen of the expansion, the float64 ranking recomputed only where it is needed.

``pairwise_distances_argmin_min``'s euclidean ranking is scikit-learn's ``ArgKmin``
surrogate ``s_j = ||y_j||^2 - 2 x.y_j`` in float64 (float32 data upcast one
block at a time).  One float64 GEMM a block costs about twice a float32 one on
a CPU, and a row's nearest row is almost always far ahead of its second; so:

1. the surrogate of the rows centred on the mean of ``Y`` (the same ranking:
   ``s'_j = s_j + ||x||^2 - ||x - c||^2``, a constant of the row) is computed in
   float32, and its first minimum ``j`` and second smallest value taken;
2. the float32 values are within ``E`` of the exact ones, and the exact ones
   within ``E`` of any float64 evaluation, where (rounding of a sum of ``D + 1``
   products in any order, of the inputs to float32 and of the float64 sums)
   ``E = 2 ((D + 8) u32 (||y_c||^2 + 2 ||x_c|| ||y_c||) + (D + 4) u64 (||y||^2 +
   2 ||x|| ||y||))`` with the largest row norm of ``Y`` (``u``: unit roundoff,
   a factor 2 of safety; plus the float32 underflow, ``(D + 2) 2^-149``);
3. a row whose second smallest value lies more than ``2 E`` above its minimum
   has ``j`` as its float64 argmin (any row that could beat or tie it in float64
   lies within ``2 E`` in float32): its minimum is the float64 ``x.(-2 y_j) +
   ||y_j||^2`` of that one pair; every other row (ties, near-ties) is ranked
   again in float64 among its candidates (the rows within ``2 E`` in float32),
   each pair summed in the same order, the first index on ties (or, where the
   candidates are many, by a float64 GEMM over all of ``Y``).

The indices are those of the float64 ranking, bit for bit where that ranking
separates its rows by more than float64 noise (as scikit-learn's own).
"""

from __future__ import annotations

import numpy as np

_U32 = 2.0**-24
_U64 = 2.0**-53
#: above this scale float32 products could overflow: the float64 ranking only
_LARGEST = 1e30
#: the most candidate products (pairs x D) ranked pair by pair; beyond, a GEMM
_CANDIDATE_ITEMS = 2**21


def _plus_row(a, b, c):
    """``a @ b + c[None, :]``, a fresh array (added in place)."""
    d = a @ b
    d += c[None, :]
    return d


def screened_argmin(xb, yt, sq_y, *, plus_row=_plus_row):
    """``(argmin, min)`` of each row of ``xb @ yt + sq_y[None, :]`` (float64 NumPy:
    ``yt`` holds ``-2 y`` transposed, ``sq_y`` the squared row norms of ``Y``),
    through a float32 screen (see the module docstring); None where the screen
    does not apply (fewer than two rows of ``Y``, non-finite or huge values).
    ``plus_row(a, b, c)``: ``a @ b + c[None, :]`` of NumPy arrays, a fresh array
    (torch's ``addmm`` on views, so that torch input runs on torch's BLAS and
    intra-op threads)."""
    d, m = yt.shape
    if m < 2 or xb.shape[0] == 0 or xb.dtype != np.float64 or yt.dtype != np.float64:
        return None
    if not float(sq_y.max()) < _LARGEST:  # NaN, inf or huge rows of Y: no screen
        return None
    half_mean = 0.5 * yt.mean(axis=1)  # -mean(Y)
    ytc = yt - 2.0 * half_mean[:, None]  # -2 (y - c), c = mean(Y)
    xc = xb + half_mean[None, :]  # x - c
    sq_yc = 0.25 * np.einsum("ij,ij->j", ytc, ytc)
    yc_max = np.sqrt(sq_yc.max())
    y_max = np.sqrt(sq_y.max())
    x_norm = np.sqrt(np.einsum("ij,ij->i", xb, xb))
    xc_norm = np.sqrt(np.einsum("ij,ij->i", xc, xc))
    bound = 2.0 * ((d + 8) * _U32 * (yc_max * yc_max + 2.0 * xc_norm * yc_max)
                   + (d + 4) * _U64 * (y_max * y_max + 2.0 * x_norm * y_max)
                   + (d + 2) * 2.0**-149)
    top = float(bound.max()) + float(sq_yc.max()) + float(xc_norm.max() * yc_max)
    if not top < _LARGEST:  # NaN, inf or float32 overflow: no screen
        return None
    s = plus_row(xc.astype(np.float32), ytc.astype(np.float32), sq_yc.astype(np.float32))
    rows = np.arange(s.shape[0])
    idx = np.argmin(s, axis=1)
    low32 = s[rows, idx].astype(np.float64)
    thr = low32 + 2.0 * bound
    s[rows, idx] = np.inf  # the screen's own block: the second smallest next
    sure = s.min(axis=1) > thr
    low = pair_surrogates(xb, yt, sq_y, rows, idx)
    if not sure.all():
        s[rows, idx] = low32  # back: the first minimum is a candidate of its row
        again = np.flatnonzero(~sure)
        j, v = _rank_candidates(xb, yt, sq_y, s, again, thr, plus_row)
        idx[again] = j
        low[again] = v
    return idx, low


def pair_surrogates(xb, yt, sq_y, r, c):
    """``xb[r] . yt[:, c] + sq_y[c]`` for each pair ``(r, c)``, float64, every pair
    summed in the same order (coordinate by coordinate), so that duplicated rows
    of ``Y`` tie exactly (a GEMM may round its columns differently)."""
    prod = xb[r] * yt.T[c]
    return np.add.reduce(prod.T, axis=0) + sq_y[c]


def _rank_candidates(xb, yt, sq_y, s, again, thr, plus_row):
    """Index and float64 surrogate of the nearest row for the rows ``again`` the
    screen did not separate: among their candidates (screened values within
    ``thr``), the smallest float64 value, the first index on ties; where the
    candidates are too many, a float64 GEMM of those rows over all of ``Y``."""
    cand = s[again] <= thr[again, None]
    r, c = np.nonzero(cand)
    if r.size * xb.shape[1] > _CANDIDATE_ITEMS:
        full = plus_row(xb[again], yt, sq_y)
        j = np.argmin(full, axis=1)
        return j, full[np.arange(again.size), j]
    v = pair_surrogates(xb, yt, sq_y, again[r], c)
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])  # r sorted: row by row
    best = np.minimum.reduceat(v, starts)
    hit = np.flatnonzero(v == np.repeat(best, np.diff(np.r_[starts, r.size])))
    # the first hit of each row (every row has one; pairs ordered by row, column)
    rows_hit = r[hit]
    keep = np.r_[True, rows_hit[1:] != rows_hit[:-1]]
    pick = hit[keep]
    return c[pick], v[pick]
