"""Poisson(1) bootstrap counts from a counter-based generator (host NumPy).

``poisson_counts(seed, row_start, n_rows, resample_start, n_resamples)``
gives the ``(n_resamples, n_rows)`` Poisson(1) counts of rows
``[row_start, row_start + n_rows)`` in resamples
``[resample_start, resample_start + n_resamples)``.  Each count is a pure
function of ``(seed, global row index, resample index)``: a splitmix64
hash of the three (Steele, Lea and Flood, 2014) read as a uniform 64-bit
integer ``u``, turned into a count by inverting the Poisson(1) CDF over a
precomputed table,

.. math:: k = \\#\\{j : u \\ge T_j\\}, \\qquad
          T_j = \\lfloor 2^{64} P(X \\le j) \\rfloor, \\quad X \\sim \\text{Poisson}(1).

So the counts of a block of rows are the same whether it is computed in one
piece or in partitions, on one machine or many: the Poisson bootstrap can
stream over row chunks and merge per-resample sums across workers.  The
table stops at ``k = 20`` (``P(X > 20) < 10^{-19}``).

This is host code (plain NumPy, as the Dask glue): on other backends the
counts are made on the host and moved.

References
----------
.. [1] G. L. Steele, D. Lea and C. H. Flood, "Fast splittable pseudorandom
   number generators", OOPSLA 2014 (the splitmix64 finaliser).
.. [2] N. Chamandy, O. Muralidharan, A. Najmi and S. Naidu, "Estimating
   uncertainty for massive data streams", Google technical report, 2012
   (the Poisson bootstrap).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np  # host code by design (see above): the counts are made here

__all__ = ["poisson_counts", "seed_of"]

_K_MAX = 20
_C_ROW = np.uint64(0x9E3779B97F4A7C15)
_C_RES = np.uint64(0xD1B54A32D192ED03)
_C_SEED = np.uint64(0x632BE59BD9B4E019)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
#: elements of one chunk (kept in cache across the hash's passes)
_CHUNK = 1 << 16


def _thresholds():
    """``T_j = floor(2^64 P(X <= j))`` for j = 0..K_MAX - 1, from exact rationals."""
    inv_e = sum(Fraction((-1) ** j, math.factorial(j)) for j in range(60))
    out, cdf = [], Fraction(0)
    for k in range(_K_MAX):
        cdf += inv_e / math.factorial(k)
        out.append(min(int(cdf * 2**64), 2**64 - 1))
    return np.array(out, dtype=np.uint64)


_T = _thresholds()
#: the first thresholds are compared one by one (98% of the counts are 0..3);
#: the rest by a binary search on the few uniforms above them
_FAST = 4


def seed_of(seed: int) -> int:
    """The generator's 64-bit seed from any Python int."""
    return int(seed) % 2**64


def _hash_block(res_h, rows_h, out, tmp):
    """``out[i, j] = mix(res_h[i] + rows_h[j])`` in place (uint64, wrapping)."""
    np.add(res_h[:, None], rows_h[None, :], out=out)
    for shift, mul in ((_S30, _M1), (_S27, _M2)):
        np.right_shift(out, shift, out=tmp)
        np.bitwise_xor(out, tmp, out=out)
        np.multiply(out, mul, out=out)
    np.right_shift(out, _S31, out=tmp)
    np.bitwise_xor(out, tmp, out=out)
    return out


def _counts_of_uniform(u, out):
    """Inverse CDF into ``out`` (uint8): the number of thresholds ``<= u``."""
    np.greater_equal(u, _T[0], out=out, casting="unsafe")
    for t in _T[1:_FAST]:
        out += u >= t
    flat_u = u.reshape(-1)
    tail = np.flatnonzero(flat_u >= _T[_FAST - 1])
    if tail.size:
        flat = out.reshape(-1)
        flat[tail] = np.searchsorted(_T, flat_u[tail], side="right")
    return out


def poisson_counts(seed: int, row_start: int, n_rows: int, resample_start: int,
                   n_resamples: int) -> np.ndarray:
    """Poisson(1) counts of rows ``[row_start, row_start + n_rows)`` in resamples
    ``[resample_start, resample_start + n_resamples)``.

    Parameters
    ----------
    seed : int
        Seed (any Python int; reduced modulo 2**64).
    row_start : int
        Global index of the first row.
    n_rows : int
        Number of rows.
    resample_start : int
        Index of the first resample.
    n_resamples : int
        Number of resamples.

    Returns
    -------
    counts : numpy.ndarray of shape (n_resamples, n_rows), dtype uint8
        ``counts[b, i]`` is the count of row ``row_start + i`` in resample
        ``resample_start + b``: a function of ``(seed, row, resample)`` only.
    """
    for name, v in (("row_start", row_start), ("n_rows", n_rows),
                    ("resample_start", resample_start), ("n_resamples", n_resamples)):
        if int(v) < 0:
            raise ValueError(f"{name} must be >= 0, got {v}")
    n_r, n_c = int(n_resamples), int(n_rows)
    out = np.empty((n_r, n_c), dtype=np.uint8)
    if out.size == 0:
        return out
    with np.errstate(over="ignore"):
        s = np.uint64(seed_of(seed)) * _C_SEED
        rows_h = np.arange(row_start, row_start + n_c, dtype=np.uint64) * _C_ROW
        res_h = (np.arange(resample_start, resample_start + n_r, dtype=np.uint64) + s) * _C_RES
        rows_per = max(1, _CHUNK // n_c)  # resamples per chunk
        cols_per = n_c if rows_per > 1 else _CHUNK  # rows (columns) per chunk
        size = min(n_r, rows_per) * min(n_c, cols_per)
        buf, tmp = np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.uint64)
        for r0 in range(0, n_r, rows_per):
            rh = res_h[r0:r0 + rows_per]
            for c0 in range(0, n_c, cols_per):
                ch = rows_h[c0:c0 + cols_per]
                shape = (rh.shape[0], ch.shape[0])
                k = shape[0] * shape[1]
                u = _hash_block(rh, ch, buf[:k].reshape(shape), tmp[:k].reshape(shape))
                block = np.empty(shape, dtype=np.uint8)
                out[r0:r0 + shape[0], c0:c0 + shape[1]] = _counts_of_uniform(u, block)
    return out
