"""NumPy adapter: native ``bincount`` (one O(N) pass instead of a sort)."""

from __future__ import annotations

import numpy as np

from ._generic import GenericOps

#: elements per chunk of the fused count and of ``minmax``: a chunk's codes
#: (1 MiB) stay in L2/L3 while few enough Python-level calls remain
_CHUNK = 1 << 17
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
        out = np.zeros(cells, dtype=np.int64)
        buf = np.empty(_CHUNK, dtype=np.intp)
        for s in range(0, n, _CHUNK):
            e = min(s + _CHUNK, n)
            c = buf[: e - s]
            np.multiply(a[s:e], size, out=c, casting="unsafe")
            np.add(c, b[s:e], out=c, casting="unsafe")
            out += np.bincount(c, minlength=cells)
        return out

    def minmax(self, x, /):
        # one read of x (chunked) instead of two full passes
        x = np.asarray(x)
        n = x.shape[0] if x.ndim else 1
        if x.ndim != 1 or n <= 4 * _CHUNK:
            return x.min(), x.max()
        los, his = [], []
        for s in range(0, n, _CHUNK):
            c = x[s:s + _CHUNK]
            los.append(c.min())
            his.append(c.max())
        return min(los), max(his)

    def unique_counts(self, x, /):
        return np.unique(np.asarray(x), return_counts=True)

    def unique_inverse(self, x, /):
        values, inverse = np.unique(np.asarray(x), return_inverse=True)
        return values, inverse.reshape(-1)


def split_sort_numpy(score, pos):
    """NumPy's :meth:`GenericOps.split_sort` (in-place sorts of the two compactions)."""
    if pos.dtype != np.bool_:
        pos = pos != 0
    q, r = score[pos], score[~pos]
    q.sort()
    r.sort()
    return q, r
