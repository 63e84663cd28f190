"""NumPy adapter: native ``bincount`` (one O(N) pass instead of a sort)."""

from __future__ import annotations

import functools

import numpy as np

from ._argmin_screen import screened_argmin
from ._calibration import calibration_accumulator_numpy
from ._generic import LANE_ROWS, GenericOps
from ._half_ranks import HALF_MIN_ROWS, counting_split_sort, histogram_rank_sums

# the pair count's chunk is also the chunk of ``minmax`` and of the dense encoding
from ._minmax import minmax_numpy
from ._packed_sort import ap_sum_numpy, auc_pairs_numpy
from ._pair_count import CHUNK as _CHUNK
from ._pair_count import (
    codes_in_range,
    codes_or_other_numpy,
    pair_bincount_declared_numpy,
    pair_bincount_discover_numpy,
    pair_bincount_numpy,
)
from ._small_batch import host_confusion_counts, mean_error
from ._threads import available_threads, run_parts, split_points

#: integer arrays from which :func:`_clip` takes ``ndarray.clip`` (one pass; its
#: Python layer, ~1.5-3 us, is then cheaper than a second pass: 7.5 us against 11
#: for 8,192 int64 labels, 8.3 against 5.5 for 4,096, NumPy 2.4); float arrays
#: take it at every size (1.3 us against 1.5 for 256 float32 scores clipped in
#: place, 2.5 against 9 for 10,000)
_CLIP_ONE_PASS = 8192


def _clip(x, lo, hi, /, *, out=None, dtype=None, casting="same_kind"):
    """``np.clip`` through public API only, fast at both ends.

    Floats, and integer arrays of :data:`_CLIP_ONE_PASS` values or more:
    ``ndarray.clip``, one pass over memory.  Small integer arrays (the
    training loop's labels): ``maximum`` then ``minimum`` in place, two ufunc
    calls with no Python layer.  NaN propagates either way, as in ``np.clip``.
    """
    if x.size >= _CLIP_ONE_PASS or x.dtype.kind == "f":
        if dtype is None and casting == "same_kind":  # (keywords cost 0.3 us)
            return x.clip(lo, hi, out=out)
        return x.clip(lo, hi, out=out, dtype=dtype, casting=casting)
    out = np.maximum(x, lo, out=out, dtype=dtype, casting=casting)
    return np.minimum(out, hi, out=out)


#: the batches whose edge count shifts its codes in place (a pass over them
#: costs less than placing the counts in a new array)
_SHIFT_ROWS = 1024
#: elements per block of ``fused_sums``: its few temporaries stay in L2 and
#: stay under glibc's mmap threshold (128 KiB), so they are reused, not faulted
_FUSED_BLOCK = 1 << 14
#: inputs from which the split sort and its searches use threads
_SPLIT_MIN = 1 << 20
#: keys per block of the split searches' ``searchsorted`` calls
_SEARCH_BLOCK = 1 << 16


def _sum(x, /, *, axis=None, dtype=None, keepdims=False):
    return np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)


def _astype(x, dtype, /, *, copy=True, device=None):
    if type(x) is not np.ndarray:  # a NumPy scalar (a reduction's result): a 0-d array
        return np.asarray(x, dtype=dtype)
    return x.astype(dtype, copy=copy)


def _reshape(x, /, shape, *, copy=None):
    if copy is not None:  # the rare copy request: array-api-compat's semantics
        import array_api_compat.numpy as cnp

        return cnp.reshape(x, shape, copy=copy)
    return x.reshape(shape)


_LEAN = []


def lean_namespace():
    """``(xp, adapter)``: array-api-compat's NumPy namespace with ``sum`` as the
    ufunc method and ``astype`` / ``reshape`` as the array methods (their Python
    wrappers cost more than the work on a small array), the namespace the
    training-loop lanes run in, and its adapter."""
    if not _LEAN:
        import types

        import array_api_compat.numpy as cnp

        lean = types.ModuleType(cnp.__name__)  # array-api-compat's NumPy to every check
        lean.__dict__.update({k: getattr(cnp, k) for k in dir(cnp) if not k.startswith("__")})
        lean.sum = _sum
        lean.astype = _astype
        lean.reshape = _reshape
        _LEAN.extend((lean, Ops(lean)))
    return _LEAN[0], _LEAN[1]


class Ops(GenericOps):
    name = "numpy"
    float64_results = True
    fused_block = _FUSED_BLOCK

    def lane_fits(self, x, /):
        return x.shape[0] <= LANE_ROWS

    def mid_ranks(self, x, /):
        # one argsort (any order within ties: NumPy's default, its SIMD sort,
        # costs a fifth of the stable one at 4,096 floats), then each tie
        # group's bounds by running max / min over the sorted values: linear,
        # where two binary searches per value cost more than the sort
        x = np.asarray(x)
        n = x.shape[0]
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        order = np.argsort(x)
        v = x[order]
        start = np.empty(n, dtype=bool)
        start[0] = True
        np.not_equal(v[1:], v[:-1], out=start[1:])
        idx = np.arange(n, dtype=np.int64)
        lo = np.maximum.accumulate(np.where(start, idx, 0))
        end = np.empty(n, dtype=bool)
        end[-1] = True
        end[:-1] = start[1:]
        hi = np.minimum.accumulate(np.where(end, idx + 1, n)[::-1])[::-1]
        return lo + hi, order

    def lane(self, fn, config, /, *arrays):
        xp, lean_ops = lean_namespace()
        return fn(xp, lean_ops, config, *arrays)

    def edge_counts(self, a, b, /, *, n, weights=None):
        # the clip ufunc in place on one temporary (no np.clip wrapper)
        if a.dtype.kind not in "biu" or b.dtype.kind not in "biu":
            return super().edge_counts(a, b, n=n, weights=weights)
        size = n + 2
        if weights is None and b.shape[0]:
            # the training-loop case, labels in 0..n: no clips.  Two unsigned
            # maxima bound both labels by n (negatives wrap to huge values), so
            # the codes a * size + b (in intp, whatever the labels' width)
            # neither wrap nor alias.  Small batches shift the codes by
            # size + 1 in place; larger ones count the unshifted codes and
            # place the counts (one pass less)
            cells = codes_in_range(a, b, n, size)
            if cells is not None:
                if a.shape[0] <= _SHIFT_ROWS:
                    cells += size + 1
                    return np.bincount(cells, minlength=size * size)
                counts = np.bincount(cells, minlength=size * size - size - 1)
                out = np.zeros(size * size, dtype=counts.dtype)
                out[size + 1:] = counts
                return out
        cells = _clip(a, -1, n, dtype=np.int64, casting="unsafe")
        cells *= size
        cells += _clip(b, -1, n, dtype=np.int64, casting="unsafe")
        cells += n + 3
        if weights is None:
            return np.bincount(cells, minlength=size * size)
        return np.bincount(cells, weights, minlength=size * size).astype(weights.dtype,
                                                                         copy=False)

    def inner_counts(self, a, b, /, *, n):
        # integer labels all in 0..n-1 (the training loop): the small-batch
        # kernel; any other value: the edge count, which leaves it out
        counts = host_confusion_counts(a, b, n)
        return super().inner_counts(a, b, n=n) if counts is None else counts

    def host_view(self, x, /):
        return x

    # host labels: NumPy arrays hold strings and objects, and compare any dtypes
    holds_strings = True
    compares_mixed_dtypes = True

    def is_strings(self, x, /) -> bool:
        return x.dtype.kind in "OUS"

    def equals_value(self, x, value, /):
        return self.xp.asarray(x == value)

    def python_scalars(self, x, /) -> list:
        if hasattr(x, "tolist"):
            return x.tolist()
        return super().python_scalars(x)

    def from_nested(self, values, /):
        return np.asarray(values)

    def dot(self, a, b, /):
        # BLAS: one read of each, no temporary (the method: no dispatch layer)
        return a.dot(b) if type(a) is np.ndarray else np.dot(a, b)

    def expansion_distances(self, xb, yt, sq_x, sq_y, /, *, squared=False, dtype=None):
        # the generic expression's order (the same bits), added, clipped and
        # rooted in place: one B x N temporary instead of four
        d2 = xb @ yt
        d2 += sq_x[:, None]
        d2 += sq_y[None, :]
        if dtype is not None and d2.dtype != dtype:
            d2 = d2.astype(dtype)
        np.maximum(d2, 0.0, out=d2)
        return d2 if squared else np.sqrt(d2, out=d2)

    def assemble_rows(self, blocks, /, *, symmetric=False):
        if not symmetric:
            return super().assemble_rows(blocks)
        return self.assemble_symmetric(blocks)

    @staticmethod
    def assemble_symmetric(blocks):
        """:meth:`assemble_rows` of NumPy blocks, ``symmetric``: one matrix."""
        out = None
        for start, stop, b in blocks:
            if out is None:  # the first block holds every column
                out = np.empty((b.shape[1], b.shape[1]), dtype=b.dtype)
            out[start:stop, start:] = b
            out[stop:, start:stop] = b[:, stop - start:].T
        return out

    def scaled_exp(self, k, scale, /):
        np.multiply(k, scale, out=k)
        return np.exp(k, out=k)

    def zero_diagonal(self, d, offset, /):
        b, n = d.shape
        k = max(0, min(b, n - offset))
        d[np.arange(k), offset + np.arange(k)] = 0  # the caller's fresh block
        return d

    def expansion_surrogate(self, xb, yt, sq_y, /):
        d = xb @ yt
        d += sq_y[None, :]
        return d

    def expansion_argmin(self, xb, yt, sq_y, /):
        found = screened_argmin(xb, yt, sq_y)  # float32 GEMM, float64 where needed
        return super().expansion_argmin(xb, yt, sq_y) if found is None else found

    def row_argmin_min(self, d, /):
        idx = np.argmin(d, axis=1)
        return idx, np.take_along_axis(d, idx[:, None], axis=1)[:, 0]

    def count_true(self, x, dtype, /):
        # a popcount-like pass, no N-sized float copy (30x astype + sum at 1e7)
        return np.dtype(dtype).type(np.count_nonzero(x))

    # the small-batch kernel itself (no method frame: a training-loop call)
    mean_error = staticmethod(mean_error)

    def asarray_on(self, x, device=None, *, dtype=None):
        # the host has no devices: NumPy's own call (a fifth of the namespace's
        # asarray, which a training-loop result pays per call)
        return np.asarray(x, dtype)

    def ieee_divide(self, a, b, /):
        with np.errstate(divide="ignore", invalid="ignore"):
            return a / b

    def sum_is_finite(self, x, /):
        # x . x: a BLAS dot reads x once, threaded, without a temporary
        x = np.ravel(np.asarray(x))
        if x.dtype.itemsize < 4:  # float16: squares of 256 and more overflow (and
            x = x.astype(np.float32)  # NumPy warns of it); float32 holds them
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

    def auc_pairs(self, score, pos, /):
        return auc_pairs_numpy(np.asarray(score), np.asarray(pos))

    def ap_sum(self, score, pos, /):
        return ap_sum_numpy(np.asarray(score), np.asarray(pos))

    def split_sort(self, score, pos, /):
        return split_sort_numpy(np.asarray(score), np.asarray(pos))

    def argsorts(self, arrays, /):
        arrays = [np.asarray(a) for a in arrays]
        if sum(a.shape[0] for a in arrays) < _SPLIT_MIN or len(arrays) < 2 \
                or available_threads() < 2:
            return [np.argsort(a) for a in arrays]
        return run_parts(np.argsort, [(a,) for a in arrays])  # argsort releases the GIL

    def inverse_permutation(self, perm, /):
        perm = np.asarray(perm)
        inv = np.empty_like(perm)
        inv[perm] = np.arange(perm.shape[0], dtype=perm.dtype)
        return inv

    def split_rank_sums(self, q, r, /, *, precision=True):
        return split_rank_sums_numpy(np.asarray(q), np.asarray(r), precision)

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

    def counts_in_place(self) -> bool:
        return True

    def bincount_into(self, out, x, /, *, weights=None):
        # unbuffered in-place adds: no length-sized temporary per call
        np.add.at(out, x, 1 if weights is None else weights)
        return out

    def error_accumulator(self, sw, total, /, *, power):
        if not (isinstance(sw, (np.ndarray, np.float64)) and isinstance(total, np.ndarray)
                and total.dtype == np.float64 and total.shape == (1,)):
            return None
        # a 0-d array (NumPy's arithmetic turns the 0-d sum into a scalar)
        own_sw, own_total = np.array(sw, dtype=np.float64), total.copy()

        def add(y_true, y_pred):
            return (isinstance(y_true, np.ndarray) and isinstance(y_pred, np.ndarray)
                    and add_error_sums(own_sw, own_total, y_true, y_pred, power))

        return own_sw, own_total, add

    def sum_accumulator(self, total, count=None, /):
        if not all(isinstance(v, (np.ndarray, np.float64)) and np.ndim(v) == 0
                   and np.asarray(v).dtype == np.float64 for v in (total, count)
                   if v is not None):
            return None
        # 0-d arrays (NumPy's arithmetic turns the state's 0-d sums into scalars)
        own_total = np.array(total, dtype=np.float64)
        own_count = None if count is None else np.array(count, dtype=np.float64)

        def add(value, weight=None):
            return (isinstance(value, np.ndarray)
                    and (weight is None or isinstance(weight, (np.ndarray, int, float)))
                    and add_value_sums(own_total, own_count, value, weight))

        return own_total, own_count, add

    def rows_accumulator(self, buffers, count, /, *, copy=True, pair=None):
        if not (all(isinstance(v, np.ndarray) for v in buffers.values())
                and isinstance(count, (np.ndarray, np.integer)) and count.dtype == np.int64
                and (copy or isinstance(count, np.ndarray))):
            return None
        own = {k: v.copy() for k, v in buffers.items()} if copy else dict(buffers)
        # (a 0-d array: NumPy's arithmetic turns a 0-d count into a scalar)
        own_count = np.array(count) if copy else count
        rows = rows_writer(own, own_count)

        def write(values, weight, start):
            return (all(isinstance(v, np.ndarray) for v in values.values())
                    and (weight is None or isinstance(weight, np.ndarray))
                    and rows(values, weight, start))

        return (own, own_count, write, functools.partial(clear_rows_in_place, own, own_count),
                None if pair is None else pair_writer(own, own_count, pair, np.ndarray))

    def moment_accumulator(self, sw, s_x, s_xx, hi, lo, /):
        if not all(isinstance(v, (np.ndarray, np.float64)) and np.asarray(v).dtype == np.float64
                   for v in (sw, s_x, s_xx, hi, lo)):
            return None
        # own copies (0-d arrays: NumPy's arithmetic turns 0-d sums into scalars)
        own = tuple(np.array(v, dtype=np.float64) for v in (sw, s_x, s_xx, hi, lo))

        def add(y_true, y_pred):
            return (isinstance(y_true, np.ndarray) and isinstance(y_pred, np.ndarray)
                    and add_moment_sums(*own, y_true, y_pred))

        return own, add

    def extreme_accumulator(self, current, /, *, kind):
        if not (isinstance(current, (np.ndarray, np.float64)) and np.ndim(current) == 0
                and np.asarray(current).dtype == np.float64):
            return None
        own = np.array(current, dtype=np.float64)

        def add(value):
            return isinstance(value, np.ndarray) and fold_extreme(own, value, kind)

        return own, add

    def calibration_accumulator(self, hist, /, *, edges, multiclass):
        if not (isinstance(hist, np.ndarray) and hist.dtype == np.float64):
            return None

        def views(y, p):
            ok = isinstance(y, np.ndarray) and isinstance(p, np.ndarray)
            return (y, p) if ok else None

        return calibration_accumulator_numpy(hist, views, edges, multiclass)

    def multilabel_accumulator(self, counts, /, *, threshold, num_labels):
        if not all(isinstance(v, (np.ndarray, np.int64)) and v.dtype == np.int64
                   for v in counts.values()):  # (NumPy's arithmetic makes 0-d sums scalars)
            return None
        own = {k: np.array(v, dtype=np.int64) for k, v in counts.items()}  # (0-d arrays)

        def views(y_true, y_pred):
            ok = isinstance(y_true, np.ndarray) and isinstance(y_pred, np.ndarray)
            return (y_true, y_pred) if ok else None

        return own, multilabel_adder(own, views, threshold, num_labels)

    def binned_accumulator(self, hist, /, *, n_thresholds):
        if not (isinstance(hist, np.ndarray) and hist.dtype == np.int64):
            return None
        own = hist.copy()
        flat = own.reshape(-1)

        def add(target, score):
            if not (isinstance(score, np.ndarray) and isinstance(target, np.ndarray)
                    and binned_histogram_fits(own, score, target)):
                return False
            np.add(flat, binned_counts_numpy(score, target, n_thresholds), out=flat)
            return True

        return own, add

    def edge_confusion(self, cm, a, b, /, *, n, clip=True):
        cm, a, b = np.asarray(cm), np.asarray(a), np.asarray(b)
        if not edge_confusion_fits(cm, a, b):
            return super().edge_confusion(cm, a, b, n=n, clip=clip)
        return edge_confusion_numpy(cm, a, b, n, clip)

    def multilabel_counts(self, y_true, y_pred, /, *, threshold):
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if not multilabel_counts_fits(y_true, y_pred):
            return super().multilabel_counts(y_true, y_pred, threshold=threshold)
        return multilabel_counts_numpy(y_true, y_pred, threshold)

    def multilabel_exact(self, y_true, y_pred, /, *, threshold):
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if not multilabel_counts_fits(y_true, y_pred):
            return super().multilabel_exact(y_true, y_pred, threshold=threshold)
        return multilabel_exact_numpy(y_true, y_pred, threshold)

    def pair_bincount_declared(self, a, b, /, *, n, first=0):
        a, b = np.asarray(a).reshape(-1), np.asarray(b).reshape(-1)
        if first:  # shifted in int64: a narrow label below ``first`` would wrap
            if a.dtype.kind not in "biu" or b.dtype.kind not in "biu":
                return None
            a, b = np.subtract(a, first, dtype=np.int64), np.subtract(b, first, dtype=np.int64)
        return pair_bincount_declared_numpy(a, b, n)

    def pair_bincount_discover(self, a, b, /, *, max_size):
        return pair_bincount_discover_numpy(np.asarray(a), np.asarray(b), max_size)

    def minmax(self, x, /):
        return minmax_numpy(np.asarray(x))

    def unique_counts(self, x, /):
        return np.unique(np.asarray(x), return_counts=True)

    def gammaln(self, x, /):
        from scipy.special import gammaln  # native log-gamma (SciPy ships with metrix)

        return gammaln(np.asarray(x))

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


def split_sort_numpy(score, pos, threads=None):
    """NumPy's :meth:`GenericOps.split_sort`: in-place sorts of the two
    compactions, on two threads for large inputs (``ndarray.sort`` releases
    the GIL); ``threads`` caps them (torch passes its own setting)."""
    if pos.dtype != np.bool_:
        pos = pos != 0
    if score.dtype == np.float16 and score.shape[0] >= HALF_MIN_ROWS:  # a counting sort
        split = counting_split_sort(score.view(np.uint16), pos, "float16")
        if split is not None:
            return split[0].view(np.float16), split[1].view(np.float16)
    # compress: a boolean-mask gather without the mask indexing's per-element
    # branches (a quarter of its time on random labels)
    q, r = np.compress(pos, score), np.compress(~pos, score)
    parts = split_points(score.shape[0], min_part=_SPLIT_MIN // 2, align=1, threads=threads)
    if len(parts) > 2:  # at least two threads and a million scores
        run_parts(np.ndarray.sort, [(q,), (r,)])
    else:
        q.sort()
        r.sort()
    return q, r


def split_rank_sums_numpy(q, r, precision=True, threads=None):
    """:meth:`GenericOps.split_rank_sums` on sorted 1-D arrays, block by block
    (no P-sized temporaries), the blocks split over threads (``searchsorted``
    releases the GIL).

    Per block of positives ``v``: one binary search into the negatives for
    ``#{r < v}``; ``#{r <= v}`` is the same unless some ``r`` equals a ``v``
    (checked with one gather), else a second search.  ``#{q < v}`` (the
    first index of each tie group of ``q``) is a running maximum of the
    group starts, no search.
    """
    p, m = q.shape[0], r.shape[0]
    if q.dtype == np.float16 and p + m >= HALF_MIN_ROWS:  # two histograms, no search
        sums = histogram_rank_sums(q.view(np.uint16), r.view(np.uint16), "float16", precision)
        if sums is not None:
            return sums

    def part(lo, hi):
        pairs, prec = 0, 0.0
        for a in range(lo, hi, _SEARCH_BLOCK):
            v = q[a:min(a + _SEARCH_BLOCK, hi)]
            lt = np.searchsorted(r, v, side="left")
            pairs += 2 * int(_sum(lt))
            if m and bool((np.take(r, lt, mode="clip") == v).any()):  # a tie across classes
                pairs += int(_sum(np.searchsorted(r, v, side="right"))) - int(_sum(lt))
            if not precision:
                continue
            k = v.shape[0]
            first = np.arange(a, a + k, dtype=np.intp)
            if k > 1:
                first[1:][v[1:] == v[:-1]] = 0  # a group's later members: its start below
            if a and q[a - 1] == v[0]:  # the group began in an earlier block
                first[0] = np.searchsorted(q, v[0], side="left")
            np.maximum.accumulate(first, out=first)
            pos_ge = np.subtract(p, first, dtype=np.float64)
            den = np.subtract(m, lt, dtype=np.float64)
            den += pos_ge
            np.divide(pos_ge, den, out=pos_ge)
            prec += float(_sum(pos_ge))
        return pairs, prec

    if not p:
        return 0, 0.0
    cuts = split_points(p, min_part=_SPLIT_MIN // 2, align=_SEARCH_BLOCK, threads=threads)
    parts = run_parts(part, list(zip(cuts, cuts[1:])))
    return sum(x[0] for x in parts), sum(x[1] for x in parts)


def binned_histogram_fits(hist, score, target) -> bool:
    """What :func:`binned_histogram_numpy` takes: an int64 histogram, 1-D
    float32/float64 scores and integer targets of one length."""
    return (hist.dtype == np.int64 and score.ndim == 1 and score.shape == target.shape
            and score.dtype in (np.float32, np.float64) and target.dtype.kind in "iu")


def binned_counts_numpy(score, target, t):
    """One batch's ``2 * (t + 1)`` int64 counts per (0/1 target, bin), flat: the
    codes of :meth:`GenericOps.binned_codes` with the bins converted through
    int32 (one vector instruction; float to int64 has none) and the target
    joined in place, with the ``clip`` ufunc.  The bin arithmetic is the generic
    one, in the score's dtype.  A NaN score casts to int32's minimum (NumPy
    warns "invalid value encountered in cast"): the ``bincount`` refuses the
    negative code and the batch is counted again with NaN in bin 0, as the
    generic op does (no extra pass for batches without NaN).
    """
    v = np.multiply(score, score.dtype.type(t - 1))
    v += score.dtype.type(1)
    _clip(v, 0, t, out=v)
    narrow = v.astype(np.int32)
    joined = np.multiply(target if target.dtype == np.intp else target.astype(np.intp), t + 1)
    size = 2 * (t + 1)
    codes = narrow.astype(np.intp)
    codes += joined
    try:
        return np.bincount(codes, minlength=size)[:size]
    except ValueError:  # a negative code: a NaN score
        codes = np.maximum(narrow, 0, dtype=np.intp)
        codes += joined
        return np.bincount(codes, minlength=size)[:size]


def binned_histogram_numpy(hist, score, target, t):
    """:meth:`GenericOps.binned_histogram`: ``hist`` plus :func:`binned_counts_numpy`."""
    return hist + binned_counts_numpy(score, target, t).reshape(hist.shape)


def edge_confusion_fits(cm, a, b) -> bool:
    """What :func:`edge_confusion_numpy` takes: an int64 matrix and 1-D integer
    (or bool) labels of one length."""
    return (cm.dtype == np.int64 and a.dtype.kind in "iub" and b.dtype.kind in "iub"
            and a.ndim == 1 and a.shape == b.shape)


def edge_confusion_numpy(cm, a, b, n, clip):
    """:meth:`GenericOps.edge_confusion` with the range check read, not written:
    one unsigned maximum per array (a negative label is huge) says whether
    every label is in ``[0, n]`` (``n`` is an edge bin either way); then the
    cells are ``a * (n + 2) + b`` (in ``intp``, whatever the labels' width),
    counted, and added to ``cm`` shifted by ``n + 3``.  Only a batch with a
    label outside is clipped (in int64); ``clip=False`` reads no range."""
    size = n + 2
    # clip=False: the caller guarantees 0 <= labels < n
    cells = codes_in_range(a, b, n, size, check=clip) if a.shape[0] else None
    if cells is None:  # a label outside [0, n] (or no labels)
        cells = _clip(a.astype(np.int64, copy=False), -1, n)
        cells *= size
        cells += _clip(b.astype(np.int64, copy=False), -1, n)
        cells += n + 3
        return cm + np.bincount(cells, minlength=size * size)[: size * size]
    out = cm.copy()
    out[n + 3:] += np.bincount(cells, minlength=size * size)[: size * size - n - 3]
    return out


def multilabel_counts_fits(y_true, y_pred) -> bool:
    """What :func:`multilabel_counts_numpy` takes: two ``(N, L)`` real arrays."""
    return (y_true.ndim == 2 and y_true.shape == y_pred.shape
            and y_true.dtype.kind in "biuf" and y_pred.dtype.kind in "biuf")


def _indicator_pair(y_true, y_pred, threshold):
    """The bool target and prediction indicators of :meth:`GenericOps.multilabel_counts`."""
    t = y_true if y_true.dtype == bool else y_true != 0
    if threshold is None:
        p = y_pred if y_pred.dtype == bool else y_pred != 0
    else:
        p = y_pred > threshold
    return t, p


def multilabel_exact_numpy(y_true, y_pred, threshold):
    """:meth:`GenericOps.multilabel_exact`: the number of rows with every label right."""
    t, p = _indicator_pair(y_true, y_pred, threshold)
    return np.asarray(np.count_nonzero((t == p).all(axis=1)), dtype=np.int64)


def multilabel_counts_numpy(y_true, y_pred, threshold):
    """:meth:`GenericOps.multilabel_counts` by one ``bincount`` of the codes
    ``4 l + 2 t + p`` (label ``l``; ``t``, ``p`` the target and prediction): the
    ``tn, fp, fn, tp`` of each label in one pass over the ``N x L`` codes."""
    t, p = _indicator_pair(y_true, y_pred, threshold)
    n_labels = t.shape[1]
    codes = t.view(np.uint8) * np.uint8(2)
    codes += p.view(np.uint8)
    cells = codes + np.arange(0, 4 * n_labels, 4, dtype=np.intp)
    c = np.bincount(cells.reshape(-1), minlength=4 * n_labels).reshape(n_labels, 4)
    c = c.astype(np.int64, copy=False)
    tp = np.ascontiguousarray(c[:, 3])
    exact = np.asarray(np.count_nonzero((t == p).all(axis=1)), dtype=np.int64)
    return tp, c[:, 1] + tp, c[:, 2] + tp, exact


def multilabel_adder(own, views, threshold, num_labels):
    """``add(y_true, y_pred)`` adding one unweighted ``(N, L)`` batch's multilabel
    counts of ``num_labels`` columns into ``own`` in place: ``n`` and ``exact`` (0-d),
    and, where ``own``
    has them, the per-label ``tp``, ``pred`` and ``true`` (int64 NumPy arrays, or
    views of a caller's own copies), by :func:`multilabel_counts_numpy` (the
    threshold applies to floating ``y_pred`` only, as the stream's update).  The
    batch comes through ``views(y_true, y_pred)`` (its NumPy arrays, or None);
    False, nothing done, for a batch the kernel does not take (another kind, shape
    or dtype: the caller updates functionally, with its checks)."""
    n, exact = own["n"], own["exact"]
    per_label = (own["tp"], own["pred"], own["true"]) if "tp" in own else None

    def add(y_true, y_pred):
        arrays = views(y_true, y_pred)
        if arrays is None or not multilabel_counts_fits(*arrays):
            return False
        t, p = arrays
        if t.shape[1] != num_labels:
            return False
        thr = threshold if p.dtype.kind == "f" else None
        if per_label is None:
            right = multilabel_exact_numpy(t, p, thr)
        else:
            *counts, right = multilabel_counts_numpy(t, p, thr)
            for total, c in zip(per_label, counts):
                total += c
        n[()] += t.shape[0]  # (0-d: NumPy's out= ufunc costs more than the counts)
        exact[()] += right
        return True

    return add


def add_value_sums(total, count, value, weight) -> bool:
    """``total += sum(weight * value)`` and ``count += sum(weight)`` (the number of
    values without weights; no count when ``count`` is None), in float64, in place,
    for real float values (and weights of their shape, or one Python number for
    all: a batch's mean loss weighted by its size); False for others.  ``total``
    and ``count`` are 0-d float64 arrays, written through ``[()]`` (a scalar add:
    an ``out=`` ufunc costs several times the sum at training-loop sizes)."""
    if value.dtype.kind != "f":
        return False
    if weight is None:
        total[()] += _sum_f64(value, axis=None, dtype=np.float64)
        if count is not None:
            count[()] += value.size
        return True
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        total[()] += weight * _sum_f64(value, axis=None, dtype=np.float64)
        count[()] += weight * value.size
        return True
    if (not isinstance(weight, np.ndarray) or weight.shape != value.shape
            or weight.dtype.kind != "f"):
        return False
    w = weight.astype(np.float64, copy=False).reshape(-1)
    total[()] += np.dot(w, value.astype(np.float64, copy=False).reshape(-1))
    count[()] += _sum_f64(w)
    return True


#: NumPy's reductions without the ``ndarray`` method's Python wrapper
_sum_f64 = np.add.reduce
_max_of = np.maximum.reduce
_min_of = np.minimum.reduce


def fold_extreme(own, value, kind) -> bool:
    """``own = max(own, max(value))`` (``kind="max"``; else the minimum), in place, for
    a non-empty real float ``value`` (a NaN propagates, as ``np.maximum``: a NaN
    ``own`` stays; a tie keeps ``own``); False for others.  ``own``: a 0-d float64
    array, written through ``[()]`` (scalar comparisons: an ``out=`` ufunc costs
    more than the batch's reduction at training-loop sizes)."""
    if value.dtype.kind != "f" or value.size == 0:
        return False
    if kind == "max":
        m = _max_of(value, axis=None)
        if m > own[()] or m != m:
            own[()] = m
    else:
        m = _min_of(value, axis=None)
        if m < own[()] or m != m:
            own[()] = m
    return True


def add_error_sums(sw, total, y_true, y_pred, power) -> bool:
    """``sw += n`` and ``total += sum |y_true - y_pred| ** power`` (power 1 or 2), in
    place, for 1-D real arrays of one length (in float64); False for others."""
    if (y_true.ndim != 1 or y_true.shape != y_pred.shape or y_true.dtype.kind not in "fiu"
            or y_pred.dtype.kind not in "fiu"):
        return False
    e = np.subtract(y_true, y_pred, dtype=np.float64)
    total += (e @ e) if power == 2 else np.abs(e, out=e).sum()
    sw += e.shape[0]
    return True


def add_moment_sums(sw, s_x, s_xx, hi, lo, y_true, y_pred) -> bool:
    """Pearson's sums of one unweighted batch, in place, in float64: ``sw += n``,
    ``s_x += sum x``, ``s_xx += x^T x`` and the columns' extremes, ``x = [y_true |
    y_pred]`` (``(n, 2k)``), for real arrays of one shape ``(n,)`` (``k = 1``) or
    ``(n, k)``; False for others (nothing done)."""
    k = s_x.shape[0] // 2
    if (y_true.shape != y_pred.shape or y_true.dtype.kind not in "fiu"
            or y_pred.dtype.kind not in "fiu"
            or not ((y_true.ndim == 1 and k == 1)
                    or (y_true.ndim == 2 and y_true.shape[1] == k))):
        return False
    n = y_true.shape[0]
    if n == 0:
        return True
    x = np.empty((2 * k, n))  # one row per column: contiguous reductions (axis 0 is slow)
    x[:k] = y_true.reshape(n, k).T
    x[k:] = y_pred.reshape(n, k).T
    sw += n
    s_x += x.sum(axis=1)
    s_xx += x @ x.T
    np.maximum(hi, x.max(axis=1), out=hi)
    np.minimum(lo, x.min(axis=1), out=lo)
    return True


def clear_rows_in_place(buffers, count, rows) -> bool:
    """Zero the first ``rows`` rows of every buffer field and the 0-d ``count``, in
    place: the buffer as ``init`` makes it, without a new allocation."""
    for v in buffers.values():
        v[:rows] = 0
    count[()] = 0
    return True


def rows_writer(buffers, count, convert=None):
    """``write(values, weight, start)``: :func:`write_rows_in_place` into ``buffers`` and
    ``count`` (NumPy arrays, or NumPy views of CPU tensors) of the rows ``values``
    (each ``convert(v)`` first where given: NumPy views of tensors; what it raises
    propagates, nothing written).  The training-loop batch (1-D rows of every field,
    each field one value per row, no weight) is written straight into 1-D views of
    the fields made once here: at training-loop batch sizes the checks and reshapes
    of the general write cost more than the rows."""
    dst_weight = buffers["buf_weight"]
    cap = dst_weight.shape[0]
    flat = {}
    for key, v in buffers.items():
        if key != "buf_weight" and v.size == cap:  # ((capacity,) or (capacity, 1))
            flat[key[4:]] = v.reshape(cap)
    n_fields = len(flat)

    def general(values, weight, start):
        if convert is not None:
            values = {name: convert(v) for name, v in values.items()}
            weight = None if weight is None else convert(weight)
        return write_rows_in_place(buffers, count, start, values, weight)

    def write(values, weight, start):
        if weight is not None or len(values) != n_fields:
            return general(values, weight, start)
        pairs = []
        shape = None
        for name, v in values.items():
            dst = flat.get(name)
            if dst is None:
                return general(values, weight, start)
            if convert is not None:
                v = convert(v)
            if shape is None:
                shape = v.shape
            if v.shape != shape or len(shape) != 1 or v.dtype.kind not in "fiub":
                return general(values, weight, start)
            pairs.append((dst, v))
        if shape is None or start + shape[0] > cap:
            return False
        end = start + shape[0]
        for dst, v in pairs:
            dst[start:end] = v
        dst_weight[start:end] = 1.0
        count[()] = end  # (0-d: NumPy's out= ufunc costs more than the rows)
        return True

    return write


def pair_writer(buffers, count, fields, array_type, tracing=None):
    """``write(start, a, b)``: the training-loop batch of an exact buffer whose two
    fields ``fields`` (a spec's ``row_inputs``) take ``(y_true, y_pred)`` as they are,
    unweighted, written from row ``start``: ``a`` and ``b`` of type ``array_type``
    (NumPy arrays; or, with ``tracing`` given, torch CPU tensors, viewed by their
    ``numpy()`` unless ``tracing()``), 1-D, of one length, real; the new row count
    (``count`` set to it), or 0: not taken, nothing written (another kind, device,
    shape or dtype, a tensor that needs grad; rows past the capacity).  None where
    a field is not one value per row.  One frame, no dict, no loop: at a batch of
    256 the two views and three slice writes are most of an update."""
    dst_weight = buffers["buf_weight"]
    cap = dst_weight.shape[0]
    first, second = (buffers["buf_" + name] for name in fields)
    if first.size != cap or second.size != cap:
        return None
    first, second = first.reshape(cap), second.reshape(cap)  # views ((capacity, 1) too)

    def write(start, a, b):
        if type(a) is not array_type or type(b) is not array_type:
            return 0
        if tracing is not None:
            if tracing():
                return 0
            try:
                a, b = a.numpy(), b.numpy()
            except (TypeError, RuntimeError):  # another device, no NumPy dtype, grad
                return 0
        shape = a.shape
        if (len(shape) != 1 or b.shape != shape or a.dtype.kind not in "fiub"
                or b.dtype.kind not in "fiub"):
            return 0
        end = start + shape[0]
        if end > cap:
            return 0
        first[start:end] = a
        second[start:end] = b
        dst_weight[start:end] = 1.0
        count[()] = end  # (0-d: NumPy's out= ufunc costs more than the rows)
        return end

    return write


def write_rows_in_place(buffers, count, start, values, weight=None) -> bool:
    """Write ``values`` (``{name: (n, ...) real rows}``) into ``buffers["buf_<name>"]``
    from row ``start`` (the rows stored: a host int, which ``count`` holds), with
    ``weight`` (``(n,)``; None: 1), and set the 0-d ``count`` to ``start + n``, in
    place (NumPy arrays, or NumPy views of CPU tensors); False (nothing written) for
    rows of another size or kind, or that do not fit."""
    dst_weight = buffers["buf_weight"]
    n = next(iter(values.values())).shape[0] if values else weight.shape[0]
    end = start + n
    if end > dst_weight.shape[0]:
        return False
    pairs = []
    for name, v in values.items():
        dst = buffers["buf_" + name]
        if v.dtype.kind not in "fiub" or v.shape[0] != n:
            return False
        if v.shape[1:] != dst.shape[1:]:
            if v.size != n * dst[0].size:
                return False
            v = v.reshape((n,) + dst.shape[1:])
        pairs.append((dst, v))
    if weight is not None and (weight.dtype.kind not in "fiub" or weight.shape != (n,)):
        return False
    for dst, v in pairs:
        dst[start:end] = v
    dst_weight[start:end] = 1.0 if weight is None else weight
    count[()] = end  # (0-d: NumPy's out= ufunc costs more than the rows)
    return True
