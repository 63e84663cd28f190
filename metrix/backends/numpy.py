"""NumPy adapter: native ``bincount`` (one O(N) pass instead of a sort)."""

from __future__ import annotations

import math

import numpy as np

from ._generic import GenericOps

#: elements per chunk of the fused count and of ``minmax``: a chunk's codes
#: (1 MiB) stay in L2/L3 while few enough Python-level calls remain
_CHUNK = 1 << 17
#: the ``clip`` ufunc itself: ``np.clip``'s Python checks cost as much as the
#: clip of 10,000 floats
_clip = getattr(getattr(np, "_core", getattr(np, "core", None)).umath, "clip", np.clip)
#: elements per block of ``fused_sums``: its few temporaries stay in L2 and
#: stay under glibc's mmap threshold (128 KiB), so they are reused, not faulted
_FUSED_BLOCK = 1 << 14


class Ops(GenericOps):
    name = "numpy"
    fused_block = _FUSED_BLOCK

    def sum_is_finite(self, x, /):
        # x . x: a BLAS dot reads x once, threaded, without a temporary
        x = np.ravel(np.asarray(x))
        return np.isfinite(np.dot(x, x))

    def order_statistics(self, x, ranks, /, *, overwrite=False):
        # ndarray.sort in place on contiguous rows: no second N-sized copy, and
        # columns are sorted as rows of the transpose, not with a stride
        x = np.asarray(x)
        if x.shape[1] == 1:
            v = x[:, 0]
            if overwrite:
                v.sort()
            else:
                v = np.sort(v)
            return [v[r:r + 1] for r in ranks]
        xt = x.T if overwrite and x.T.flags.c_contiguous else np.array(x.T, order="C")
        xt.sort(axis=1)
        return [xt[:, r] for r in ranks]

    def split_sort(self, score, pos, /):
        return split_sort_numpy(np.asarray(score), np.asarray(pos))

    def segment_top_candidates(self, values, seg, /, *, n_segments, k, skip_zeros=False):
        from ._segment_top import segment_top_candidates_numpy

        return segment_top_candidates_numpy(np.asarray(values), np.asarray(seg), n_segments,
                                            k, skip_zeros)

    def bincount(self, x, /, *, length, weights=None):
        x = np.asarray(x)
        if weights is None:
            return np.bincount(x, minlength=length)[:length].astype(np.int64, copy=False)
        weights = np.asarray(weights)
        if weights.ndim == 2:
            # one bincount over (index, column) codes instead of a column loop
            k = weights.shape[1]
            codes = (x[:, None] * k + np.arange(k)).ravel()
            out = np.bincount(codes, weights=weights.ravel(), minlength=length * k)
            return out[: length * k].reshape(length, k).astype(weights.dtype, copy=False)
        out = np.bincount(x, weights=weights, minlength=length)[:length]
        return out.astype(weights.dtype, copy=False)

    def pair_bincount(self, a, b, /, *, size, weights=None):
        # Fused in cache-sized chunks: the codes a*size+b never go to memory,
        # which halves the traffic of "codes, then bincount" (bench/bench_labels.py).
        a, b = np.asarray(a), np.asarray(b)
        cells = size * size
        n = a.shape[0]
        if weights is not None or cells * 8 > _CHUNK or n <= _CHUNK:
            return super().pair_bincount(a, b, size=size, weights=weights)
        return count_chunks(a, b, n, size, np.zeros(cells, dtype=np.int64),
                            _np_chunk_count(n), _CHUNK)

    def codes_or_other(self, y, n, /):
        return codes_or_other_numpy(np.asarray(y), n)

    def binned_histogram(self, hist, score, target, /, *, n_thresholds):
        score, target = np.asarray(score), np.asarray(target)
        if not binned_histogram_fits(hist, score, target):
            return super().binned_histogram(hist, score, target, n_thresholds=n_thresholds)
        return binned_histogram_numpy(hist, score, target, n_thresholds)

    def edge_confusion(self, cm, a, b, /, *, n, clip=True):
        cm, a, b = np.asarray(cm), np.asarray(a), np.asarray(b)
        if not edge_confusion_fits(cm, a, b):
            return super().edge_confusion(cm, a, b, n=n, clip=clip)
        return edge_confusion_numpy(cm, a, b, n, clip)

    def pair_bincount_declared(self, a, b, /, *, n):
        return pair_bincount_declared_numpy(np.asarray(a), np.asarray(b), n)

    def pair_bincount_discover(self, a, b, /, *, max_size):
        a, b = np.asarray(a), np.asarray(b)
        n = a.shape[0]
        if a.ndim != 1 or n <= _CHUNK or not _wide_ints(a, b):
            return None
        # the chunked count pays ``size**2`` per chunk: small label sets only
        max_size = min(max_size, math.isqrt(_CHUNK // 8))
        return discover_and_count(a, b, n, max_size, bounds=_nonnegative_bounds,
                                   zeros=lambda shape: np.zeros(shape, dtype=np.int64),
                                   count=_np_chunk_count(n))

    def minmax(self, x, /):
        return minmax_numpy(np.asarray(x))

    def unique_counts(self, x, /):
        return np.unique(np.asarray(x), return_counts=True)

    def unique_inverse(self, x, /):
        x = np.asarray(x)
        dense = unique_inverse_dense(x)
        if dense is not None:
            return dense
        values, inverse = np.unique(x, return_inverse=True)
        return values, inverse.reshape(-1)


def unique_inverse_dense(x):
    """``unique_inverse`` of 1-D integers in a narrow range, without a sort.

    A presence ``bincount`` over ``[min, max]``; its running count minus one
    is each present value's position (the lookup table).  None when the range
    exceeds ``2 N + 2**20`` (the table would cost more than the sort saves),
    for small inputs, and for non-integers.
    """
    n = x.shape[0] if x.ndim == 1 else 0
    if x.ndim != 1 or x.dtype.kind not in "iu" or n <= _CHUNK:
        return None
    lo, hi = (int(v) for v in minmax_numpy(x))
    span = hi - lo + 1
    if span > 2 * n + (1 << 20) or hi > 1 << 62:
        return None
    if lo == 0 and x.dtype == np.intp:
        offset = x  # already 0-based: no subtraction pass
    else:
        offset = np.subtract(x, lo, dtype=np.intp, casting="unsafe")
    present = np.bincount(offset, minlength=span) > 0
    if present.all():  # every id in [lo, hi] occurs: the offsets are the positions
        return np.arange(lo, hi + 1).astype(x.dtype), offset
    table = np.cumsum(present) - 1
    values = (np.flatnonzero(present) + lo).astype(x.dtype)
    return values, table[offset]


def minmax_numpy(x):
    """``(min(x), max(x))`` in one chunked read of ``x`` instead of two full passes
    (a NaN propagates into both)."""
    n = x.shape[0] if x.ndim else 1
    if x.ndim != 1 or n <= 4 * _CHUNK:
        return x.min(), x.max()
    los, his = [], []
    for s in range(0, n, _CHUNK):
        c = x[s:s + _CHUNK]
        los.append(c.min())
        his.append(c.max())
    return np.min(los), np.max(his)


def split_sort_numpy(score, pos):
    """NumPy's :meth:`GenericOps.split_sort` (in-place sorts of the two compactions)."""
    if pos.dtype != np.bool_:
        pos = pos != 0
    q, r = score[pos], score[~pos]
    q.sort()
    r.sort()
    return q, r


def _nonnegative_bounds(x):
    """``(lo, hi)`` of integers for the discovering count, in one reduction: viewed
    as unsigned, negatives are the largest values, so ``hi`` is the true max when
    it fits the signed type and ``lo`` is 0; otherwise ``lo`` is -1 (negative)."""
    if x.dtype.kind == "u":
        return 0, int(x.max())
    hi = int(x.view(x.dtype.str.replace("i", "u")).max())
    return (0, hi) if hi < 1 << (8 * x.dtype.itemsize - 1) else (-1, 0)


def _np_chunk_count(n):
    """The per-chunk pair count of the CPU loops: codes into one reused buffer."""
    buf = np.empty(min(_CHUNK, n), dtype=np.intp)

    def count(x, y, size, out):
        c = buf[: x.shape[0]]
        np.multiply(x, size, out=c, dtype=np.intp, casting="unsafe")
        np.add(c, y, out=c, dtype=np.intp, casting="unsafe")
        out += np.bincount(c, minlength=size * size)
    return count


def count_chunks(a, b, n, size, out, count, chunk):
    """``count`` over the aligned chunks of ``a`` and ``b``; returns ``out``."""
    for s in range(0, n, chunk):
        count(a[s:s + chunk], b[s:s + chunk], size, out)
    return out


def discover_and_count(a, b, n, max_size, *, bounds, zeros, count, chunk=_CHUNK):
    """The chunked loop of ``pair_bincount_discover`` (shared by the CPU adapters).

    Each chunk's min and max are read while it is in the cache; a chunk with a
    larger label grows the count matrix (the old counts keep their cells),
    a negative label or a range over ``max_size`` stops the loop (None).
    """
    size, out = 0, None
    for s in range(0, n, chunk):
        x, y = a[s:s + chunk], b[s:s + chunk]
        (lo_x, hi_x), (lo_y, hi_y) = bounds(x), bounds(y)
        if min(int(lo_x), int(lo_y)) < 0:
            return None
        need = max(int(hi_x), int(hi_y)) + 1
        if need > size:
            if need > max_size:
                return None
            grown = zeros((need, need))
            if out is not None:
                grown[:size, :size] = out.reshape(size, size)
            out, size = grown.reshape(-1), need
        count(x, y, size, out)
    return out, size


def pair_bincount_declared_numpy(a, b, n):
    """NumPy's :meth:`GenericOps.pair_bincount_declared` (None off its fast path)."""
    size = n + 1
    if a.ndim != 1 or a.shape[0] <= _CHUNK or size * size * 8 > _CHUNK or not (
            _wide_ints(a, b)):
        return None
    count = _np_chunk_count(a.shape[0])

    def declared(x, y, size, out):
        count(codes_or_other_numpy(x, n), codes_or_other_numpy(y, n), size, out)
    return count_chunks(a, b, a.shape[0], size, np.zeros(size * size, dtype=np.int64),
                        declared, _CHUNK)


def _wide_ints(*arrays) -> bool:
    """32- or 64-bit integer labels: their chunk codes cannot overflow (narrower
    ones take the encoded path, which widens them first)."""
    return all(a.dtype.kind in "iu" and a.dtype.itemsize >= 4 for a in arrays)


def codes_or_other_numpy(y, n):
    """:meth:`GenericOps.codes_or_other` in one pass: viewed as unsigned, negative
    labels are huge, so ``minimum(y, n)`` sends them and those ``>= n`` to ``n``."""
    if y.dtype.kind == "i" and n <= np.iinfo(y.dtype).max:
        u = y.view(y.dtype.str.replace("i", "u"))
        return np.minimum(u, u.dtype.type(n)).view(y.dtype)
    if y.dtype.kind == "u" and n <= np.iinfo(y.dtype).max:
        return np.minimum(y, y.dtype.type(n))
    return np.where((y >= 0) & (y < n), y, n)


def binned_histogram_fits(hist, score, target) -> bool:
    """What :func:`binned_histogram_numpy` takes: an int64 histogram, 1-D
    float32/float64 scores and integer targets of one length."""
    return (hist.dtype == np.int64 and score.ndim == 1 and score.shape == target.shape
            and score.dtype in (np.float32, np.float64) and target.dtype.kind in "iu")


def binned_histogram_numpy(hist, score, target, t):
    """:meth:`GenericOps.binned_histogram` with the bins converted through int32
    (one vector instruction; float to int64 has none) and the 0/1 target joined
    in place, with the ``clip`` ufunc.  The bin arithmetic is the generic one, in
    the score's dtype.
    """
    v = np.multiply(score, score.dtype.type(t - 1))
    v += score.dtype.type(1)
    _clip(v, 0, t, out=v)
    codes = v.astype(np.int32).astype(np.intp)
    codes += np.multiply(target if target.dtype == np.intp else target.astype(np.intp), t + 1)
    size = 2 * (t + 1)
    return hist + np.bincount(codes, minlength=size)[:size].reshape(hist.shape)


def edge_confusion_fits(cm, a, b) -> bool:
    """What :func:`edge_confusion_numpy` takes: an int64 matrix and 1-D int64
    labels of one length (narrower ones take the generic way, which widens)."""
    return (cm.dtype == np.int64 and a.dtype == np.int64 and b.dtype == np.int64
            and a.ndim == 1 and a.shape == b.shape)


def edge_confusion_numpy(cm, a, b, n, clip):
    """:meth:`GenericOps.edge_confusion` in place on one temporary: the ``clip``
    ufunc (not ``np.clip``'s Python wrapper) and in-place int64 arithmetic."""
    size = n + 2
    if clip:
        cells = _clip(a, -1, n)
        cells *= size
        cells += _clip(b, -1, n)
    else:
        cells = np.multiply(a, size)
        cells += b
    cells += n + 3
    return cm + np.bincount(cells, minlength=size * size)[: size * size]
