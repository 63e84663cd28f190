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
#: cells of the two-sample joint count of ``PairCount`` (128 KiB, in L2):
#: matrices up to 11 x 11 count two samples per increment
_JOINT_CELLS = 1 << 14


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
        a, b = np.asarray(a), np.asarray(b)
        flat = None if weights is not None else pair_bincount_numpy(a, b, size)
        if flat is None:
            return super().pair_bincount(a, b, size=size, weights=weights)
        return flat

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
        return pair_bincount_discover_numpy(np.asarray(a), np.asarray(b), max_size)

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


class PairCount:
    """The fused count of ``(a, b)`` pairs over cache-sized chunks: each chunk's
    codes ``a * size + b`` go to one reused buffer and are counted while in cache
    (they never go to memory).

    Small matrices (``size**4 <= _JOINT_CELLS``) count two samples per
    increment: the codes of a chunk's two halves are joined, ``c1 * size**2 +
    c2``, into a ``size**4``-cell joint count, marginalised once at the end
    (``counts``).  A ``bincount`` increment (~1 ns) is what the count costs; the
    join is two in-cache passes over half the chunk.
    """

    def __init__(self, n, size=0):
        self.buf = np.empty(min(_CHUNK, n), dtype=np.intp)
        self.half = np.empty(min(_CHUNK, n) // 2, dtype=np.intp)
        self.size = 0
        self.flat = self.joint = None
        self.resize(size)

    def resize(self, size):
        """Grow the matrix to ``size x size``; the counts so far keep their cells."""
        if size <= self.size:
            return
        flat = np.zeros(size * size, dtype=np.int64)
        if self.size:
            old = self.size
            flat.reshape(size, size)[:old, :old] = self.counts().reshape(old, old)
        self.size, self.flat = size, flat
        cells = size * size
        self.joint = np.zeros(cells * cells, dtype=np.int64) if (
            cells * cells <= _JOINT_CELLS) else None

    def add(self, x, y):
        """Count the pairs of one chunk (``len(x) <= _CHUNK``)."""
        size, m = self.size, x.shape[0]
        c = self.buf[:m]
        np.multiply(x, size, out=c, dtype=np.intp, casting="unsafe")
        np.add(c, y, out=c, dtype=np.intp, casting="unsafe")
        cells = size * size
        if self.joint is None or m < 2:
            self.flat += np.bincount(c, minlength=cells)
            return
        h = m // 2
        j = self.half[:h]
        np.multiply(c[:h], cells, out=j)
        np.add(j, c[h:2 * h], out=j)
        self.joint += np.bincount(j, minlength=cells * cells)
        if m % 2:
            self.flat[c[-1]] += 1

    def counts(self):
        """The flat ``size * size`` counts (int64)."""
        if self.joint is None:
            return self.flat
        cells = self.size * self.size
        joint = self.joint.reshape(cells, cells)
        return self.flat + joint.sum(axis=0) + joint.sum(axis=1)


def count_chunks(a, b, n, size, chunk=_CHUNK):
    """The flat ``size * size`` counts of the pairs of ``a`` and ``b`` (aligned
    chunks, labels in ``[0, size)``)."""
    counter = PairCount(n, size)
    for s in range(0, n, chunk):
        counter.add(a[s:s + chunk], b[s:s + chunk])
    return counter.counts()


def discover_and_count(a, b, n, max_size, chunk=_CHUNK):
    """The chunked loop of ``pair_bincount_discover``: ``(flat counts, size)``.

    Each chunk's maximum (of the labels viewed as unsigned: a negative one is
    huge) is read while it is in the cache; a chunk with a larger label grows
    the count matrix, a negative label or a range over ``max_size`` stops the
    loop (None).
    """
    counter = PairCount(n)
    for s in range(0, n, chunk):
        x, y = a[s:s + chunk], b[s:s + chunk]
        need = max(_unsigned_max(x), _unsigned_max(y)) + 1
        if need > counter.size:
            if need > max_size:
                return None
            counter.resize(need)
        counter.add(x, y)
    return counter.counts(), counter.size


def _unsigned_max(x):
    """``max(x)`` of integers viewed as unsigned (negatives are the largest)."""
    if x.dtype.kind == "i":
        x = x.view(x.dtype.str.replace("i", "u"))
    return int(x.max())


def pair_bincount_numpy(a, b, size):
    """Unweighted :meth:`GenericOps.pair_bincount` fused in cache-sized chunks
    (``PairCount``: the codes never go to memory, which halves the traffic of
    "codes, then bincount"); None off its fast path (small inputs, matrices
    over a chunk's size)."""
    n = a.shape[0]
    if (a.ndim != 1 or n <= _CHUNK or size * size * 8 > _CHUNK
            or a.dtype.kind not in "iub" or b.dtype.kind not in "iub"):
        return None
    return count_chunks(a, b, n, size)


def pair_bincount_discover_numpy(a, b, max_size):
    """NumPy's :meth:`GenericOps.pair_bincount_discover` (None off its fast path)."""
    n = a.shape[0]
    if a.ndim != 1 or n <= _CHUNK or not _wide_ints(a, b):
        return None
    # the chunked count pays ``size**2`` per chunk: small label sets only
    return discover_and_count(a, b, n, min(max_size, math.isqrt(_CHUNK // 8)))


def pair_bincount_declared_numpy(a, b, n):
    """NumPy's :meth:`GenericOps.pair_bincount_declared` (None off its fast path)."""
    size = n + 1
    if a.ndim != 1 or a.shape[0] <= _CHUNK or size * size * 8 > _CHUNK or not (
            _wide_ints(a, b)):
        return None
    # a chunk whose labels are all in [0, n) (the maxima of the unsigned views,
    # read while it is in cache) is counted as is; others take their codes first
    m = a.shape[0]
    counter = PairCount(m, size)
    buf_a, buf_b = np.empty(_CHUNK, dtype=a.dtype), np.empty(_CHUNK, dtype=b.dtype)
    for s in range(0, m, _CHUNK):
        x, y = a[s:s + _CHUNK], b[s:s + _CHUNK]
        if max(_unsigned_max(x), _unsigned_max(y)) >= n:
            k = x.shape[0]
            x, y = codes_or_other_numpy(x, n, buf_a[:k]), codes_or_other_numpy(y, n, buf_b[:k])
        counter.add(x, y)
    return counter.counts()


def _wide_ints(*arrays) -> bool:
    """32- or 64-bit integer labels: their chunk codes cannot overflow (narrower
    ones take the encoded path, which widens them first)."""
    return all(a.dtype.kind in "iu" and a.dtype.itemsize >= 4 for a in arrays)


def codes_or_other_numpy(y, n, out=None):
    """:meth:`GenericOps.codes_or_other` in one pass: viewed as unsigned, negative
    labels are huge, so ``minimum(y, n)`` sends them and those ``>= n`` to ``n``.
    ``out`` (y's shape and dtype) takes the result where given."""
    if y.dtype.kind in "iu" and n <= np.iinfo(y.dtype).max:
        u = y.view(y.dtype.str.replace("i", "u"))
        res = np.minimum(u, u.dtype.type(n), out=None if out is None else out.view(u.dtype))
        return res.view(y.dtype)
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
