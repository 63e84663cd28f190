"""Pure array-API implementations of the adapter operations.

Used as-is for array-api-strict and unknown libraries, and as the fallback
that the library adapters extend.  Everything here is traceable: no value is
read on the host and every output shape is fixed by the arguments (but for the
ops whose docstrings say "a host read": they run at a metric's edge).
"""

from __future__ import annotations

import math

from .._core.namespace import asarray, count_dtype, device_of, max_float_dtype, to_host
from ._quantile import weighted_quantile
from ._rank_statistics import RankStatistics

#: the most rows the CPU adapters run a lane on (see ``GenericOps.lane_fits``)
LANE_ROWS = 1 << 16


class GenericOps(RankStatistics):
    """Adapter operations written with the array API standard only."""

    name = "generic"
    #: whether sorting values (and binary searches) beats one argsort + gathers
    value_sort_is_cheap = True
    #: whether float results are float64 whatever the inputs' float (NumPy, as
    #: scikit-learn's own results); elsewhere they keep the widest float input
    float64_results = False

    def __init__(self, xp):
        self.xp = xp

    # -- counting ---------------------------------------------------------
    def bincount(self, x, /, *, length, weights=None):
        """Counts (or summed ``weights``) of the integers ``x`` in ``[0, length)``.

        The output has exactly ``length`` entries, so it traces under jit.
        Values outside ``[0, length)`` are the caller's bug.  Unweighted counts
        are int64 (int32 on devices without 64-bit integers); weighted sums
        have the dtype of ``weights``.  ``weights`` may be 2-D ``(N, K)``,
        giving ``(length, K)``.

        Generic algorithm: one stable sort of ``x`` and ``searchsorted`` for
        the bin edges (O(N log N), O(N) memory, no N x length one-hot).
        """
        return self._sorted_bincount(x, length=length, weights=weights)

    def _sorted_bincount(self, x, *, length, weights=None):
        xp = self.xp
        dev = device_of(x)
        cdt = count_dtype(xp, dev)
        x = xp.astype(x, cdt, copy=False)  # narrow codes (uint8) would wrap the edges
        edges_q = xp.arange(length + 1, dtype=cdt, device=dev)
        if weights is None:
            s = xp.sort(x)
            edges = xp.searchsorted(s, edges_q, side="left")
            counts = edges[1:] - edges[:-1]
            return xp.astype(counts, count_dtype(xp, dev))
        order = xp.argsort(x, stable=True)
        s = xp.take(x, order)
        edges = xp.searchsorted(s, edges_q, side="left")
        w = xp.take(weights, order, axis=0)
        zero = xp.zeros((1,) + tuple(w.shape[1:]), dtype=w.dtype, device=dev)
        cs = xp.concat([zero, xp.cumulative_sum(w, axis=0)], axis=0)
        return xp.take(cs, edges[1:], axis=0) - xp.take(cs, edges[:-1], axis=0)

    def pair_bincount(self, a, b, /, *, size, weights=None):
        """``bincount(a * size + b)`` of length ``size * size`` (confusion counts)."""
        return self.bincount(a * size + b, length=size * size, weights=weights)

    def codes_or_other(self, y, n, /):
        """Integer (or bool) labels as codes: ``y`` where ``0 <= y < n``, else ``n``
        (the "other" bin of declared labels ``0..n-1``), in the count dtype
        (narrow labels are widened first: ``n`` may not fit their dtype)."""
        xp = self.xp
        y = self.count_labels(y)
        other = xp.asarray(n, dtype=y.dtype, device=device_of(y))  # 0-d: no N-sized fill
        return xp.where((y >= 0) & (y < n), y, other)

    def edge_cells(self, a, b, /, *, n, clip=True):
        """Cells of an ``(n + 2) x (n + 2)`` confusion matrix whose first and last
        rows / columns are "other" bins: ``(a' + 1) (n + 2) + b' + 1`` with
        ``a' = clip(a, -1, n)`` (below 0 and at or above ``n`` go to the edges).
        ``clip=False``: the caller guarantees ``0 <= a, b < n``.  Labels of
        another integer dtype (bool, uint8, int8, ...) are widened to the count
        dtype first: in their own dtype the code wraps and ``-1`` does not exist."""
        xp = self.xp
        a, b = self.count_labels(a), self.count_labels(b)
        if clip:
            a, b = xp.clip(a, -1, n), xp.clip(b, -1, n)
        return a * (n + 2) + b + (n + 3)

    def count_labels(self, x, /):
        """Integer labels in the count dtype (int64; int32 where the device has no
        int64), where codes like ``a * (n + 2) + b`` neither wrap nor overflow."""
        cdt = count_dtype(self.xp, device_of(x))
        return x if x.dtype == cdt else self.xp.astype(x, cdt)

    def edge_confusion(self, cm, a, b, /, *, n, clip=True):
        """``cm`` plus one batch's counts per :meth:`edge_cells` cell (a new
        array; ``cm`` is the flat ``(n + 2) ** 2`` confusion matrix)."""
        xp = self.xp
        counts = self.bincount(self.edge_cells(a, b, n=n, clip=clip), length=(n + 2) ** 2)
        return cm + (counts if counts.dtype == cm.dtype else xp.astype(counts, cm.dtype))

    def multilabel_counts(self, y_true, y_pred, /, *, threshold):
        """One batch of multilabel indicators ``(N, L)``: ``(tp, pred, true, exact)``,
        the per-label ``(L,)`` numbers of right positive, predicted and true labels
        and the 0-d number of samples with every label right, in the count dtype.
        A target is positive where it is not 0; a prediction where it is above
        ``threshold`` (``None``: where it is not 0).  Bool arrays are read as they are."""
        xp = self.xp
        t = indicators(y_true, xp)
        p = indicators(y_pred, xp) if threshold is None else y_pred > threshold
        cdt = count_dtype(xp, device_of(y_true))
        out = (xp.count_nonzero(t & p, axis=0), xp.count_nonzero(p, axis=0),
               xp.count_nonzero(t, axis=0), xp.count_nonzero(xp.all(t == p, axis=1)))
        return tuple(c if c.dtype == cdt else xp.astype(c, cdt) for c in out)

    def multilabel_exact(self, y_true, y_pred, /, *, threshold):
        """The 0-d number of samples of :meth:`multilabel_counts` with every label
        right (subset accuracy's count), without the per-label counts."""
        xp = self.xp
        t = indicators(y_true, xp)
        p = indicators(y_pred, xp) if threshold is None else y_pred > threshold
        right = xp.count_nonzero(xp.all(t == p, axis=1))
        cdt = count_dtype(xp, device_of(y_true))
        return right if right.dtype == cdt else xp.astype(right, cdt)

    def pair_bincount_declared(self, a, b, /, *, n, first=0):
        """``pair_bincount(codes_or_other(a - first, n), codes_or_other(b - first, n),
        size=n + 1)`` (the classes ``first..first+n-1``; label maps of any shape,
        read flat) with the codes made chunk by chunk (never N-sized), or None
        where there is no fused kernel (generic: None; the caller encodes first)."""
        return None

    def pair_bincount_discover(self, a, b, /, *, max_size):
        """``(pair_bincount(a, b, size), size)`` with ``size = max(a, b) + 1`` found
        in the same pass over the labels (no separate min/max reads).

        For non-negative integer labels with ``size <= max_size``; returns None
        otherwise (a negative value, a wider range, or no fused kernel here:
        the caller then reads the bounds first).  Generic: None.
        """
        return None

    def minmax(self, x, /):
        """``(min(x), max(x))`` as 0-d arrays."""
        return self.xp.min(x), self.xp.max(x)

    def binned_codes(self, score, target, /, *, n_thresholds):
        """``k + (T + 1) target``: the bin ``k`` of each score among the thresholds
        ``linspace(0, 1, T)`` (``k = clip(floor(score (T - 1)) + 1, 0, T)``, the
        number of thresholds ``<= score``, compared in the scaled space) and its
        0/1 target: the codes of one histogram ``bincount`` of length ``2 (T + 1)``
        (negatives, then positives), ``T >= 2``.  With ``target=None``: the bins alone.
        Read without checks: a score below 0 is below every threshold (bin 0),
        one above 1 at or above every threshold (bin ``T``), a NaN in bin 0.
        """
        xp = self.xp
        cdt = count_dtype(xp, device_of(score))
        t = n_thresholds
        score = widened_scores(score, t, xp=xp)
        v = xp.clip(score * float(t - 1) + 1.0, 0.0, float(t))
        k = xp.astype(xp.where(v == v, v, xp.zeros_like(v)), cdt)  # NaN: bin 0
        if target is None:
            return k
        return k + (t + 1) * (target if target.dtype == cdt else xp.astype(target, cdt))

    def counts_in_place(self) -> bool:
        """Whether :meth:`bincount_into` adds into its ``out`` in place (eager NumPy
        and torch); False here (a new array each call)."""
        return False

    def bincount_into(self, out, x, /, *, weights=None):
        """``out`` plus the counts (or summed ``weights``) of the integers ``x`` in
        ``[0, len(out))``.  Where :meth:`counts_in_place` is True the sum is
        written into ``out`` (the caller's own array) and returned; here a new
        array."""
        xp = self.xp
        counts = self.bincount(x, length=out.shape[0], weights=weights)
        return out + (counts if counts.dtype == out.dtype else xp.astype(counts, out.dtype))

    def binned_histogram(self, hist, score, target, /, *, n_thresholds):
        """``hist`` plus one batch's counts per (0/1 target, bin) (a new array;
        ``hist`` has shape ``(..., 2, T + 1)``, row 0 negatives, row 1 positives):
        the ``bincount`` of :meth:`binned_codes`."""
        xp, t = self.xp, n_thresholds
        codes = self.binned_codes(score, target, n_thresholds=t)
        counts = xp.reshape(self.bincount(codes, length=2 * (t + 1)), (2, t + 1))
        return hist + (counts if counts.dtype == hist.dtype else xp.astype(counts, hist.dtype))

    def binned_accumulator(self, hist, /, *, n_thresholds):
        """An in-place :meth:`binned_histogram` where the library has one (eager
        CPU NumPy and torch): ``(own, add)``, ``own`` a copy of ``hist`` and
        ``add(target, score)`` adding one batch's counts into it in place (False,
        nothing done, for a batch it does not take); None here.  For the stateful
        wrappers, which own their histogram (the functional ``update`` stays pure).
        """
        return None

    def calibration_accumulator(self, hist, /, *, edges, multiclass):
        """An in-place calibration histogram where the library has one (eager CPU
        NumPy and torch): ``(own, add)``, ``own`` a copy of the ``(n_bins + 1, 3)``
        float64 ``hist`` and ``add(y_true, y_prob)`` adding one unweighted batch's
        weight, confidence and accuracy sums per bin into it in place (False,
        nothing done, for a batch it does not take); None here.  ``edges``: the
        bin edges as ``(float32, float64)`` host tuples; ``multiclass``: top label
        of ``(n, C)`` probabilities, else 1-D probabilities of class 1.  For the
        stateful wrappers, as :meth:`binned_accumulator`.
        """
        return None

    def error_accumulator(self, sw, total, /, *, power):
        """An in-place update of a single-output mean error where the library has
        one (eager CPU NumPy and torch): ``(own_sw, own_total, add)``, copies of
        the float64 sums ``sw`` (0-d) and ``total`` (``(1,)``), and ``add(y_true,
        y_pred)`` adding ``n`` to one and ``sum |y_true - y_pred| ** power`` to the
        other in place (False, nothing done, for a batch it does not take); None
        here.  For the stateful wrappers, as :meth:`binned_accumulator`.
        """
        return None

    def sum_accumulator(self, total, count=None, /):
        """An in-place running sum where the library has one (eager CPU NumPy and
        torch): ``(own_total, own_count, add)``, copies of the 0-d float64 sums
        ``total`` and ``count`` (None: no count kept), and ``add(value, weight)``
        adding ``sum(weight * value)`` (``sum(value)`` without weights) to one
        and ``sum(weight)`` (the number of values) to the other, in float64, in
        place (False, nothing done, for a batch it does not take); None here.
        For the stateful aggregators, as :meth:`error_accumulator`.
        """
        return None

    def token_nll(self, logits, index, /):
        """Each token's negative log-likelihood ``logsumexp(logits) - logits[index]``
        (a stable log-softmax over the last axis, in ``logits``' dtype) for logits
        ``(..., V)`` and in-range integer ``index`` ``(...)``.  Generic: the
        maximum, the shifted exponentials' sum and one ``take_along_axis``."""
        xp = self.xp
        top = xp.max(logits, axis=-1, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(logits - top), axis=-1)) + top[..., 0]
        return lse - xp.take_along_axis(logits, index[..., None], axis=-1)[..., 0]

    def nll_accumulator(self, sw, s_nll, /, *, ignore_index):
        """An in-place update of perplexity's sums where the library has one (eager
        CPU torch): ``(own_sw, own_nll, add)``, copies of the 0-d float64 sums, and
        ``add(y_true, logits)`` adding one unweighted batch's number of counted
        tokens (target not ``ignore_index``) and their summed negative
        log-likelihood (NaN when a counted target is no id of ``0..V-1``) in place
        (False, nothing done, for a batch it does not take); None here.  For the
        stateful wrappers, as :meth:`error_accumulator`.
        """
        return None

    def multilabel_accumulator(self, counts, /, *, threshold, num_labels):
        """An in-place update of the multilabel counts where the library has one
        (eager CPU NumPy and torch): ``(own, add)``, ``own`` copies of the int64
        ``counts`` (``{"n", "exact"}`` and, but for the subset metrics, ``{"tp",
        "pred", "true"}``) and ``add(y_true, y_pred)`` adding one unweighted
        ``(N, num_labels)`` batch into them (the threshold applied to floating ``y_pred``
        only), False, nothing done, for a batch it does not take; None here.  As
        :meth:`sum_accumulator`."""
        return None

    def rows_accumulator(self, buffers, count, /, *, copy=True, pair=None):
        """In-place writes into an exact buffer where the library has them (eager
        NumPy; eager torch, CPU or GPU): ``(own, own_count, write, clear,
        write_pair)``, copies of the buffer fields ``buffers`` (``{"buf_<name>":
        (capacity, ...)}``, ``buf_weight`` among them) and of the 0-d int64
        ``count`` (the arrays themselves with ``copy=False``: a fresh state no one
        else holds), ``write(values, weight, start)`` writing one batch's rows
        (``{name: (n, ...) rows}``, ``weight`` ``(n,)`` or None for 1) from row
        ``start`` (the rows stored, a host int the caller counts: no device read)
        and adding ``n`` to ``count``, in place (False, nothing done, for a batch
        it does not take or that does not fit: the caller writes it functionally),
        ``clear(rows)`` zeroing the first ``rows`` rows of every field and
        ``count`` (the buffer as ``init`` makes it, no allocation), and, where
        ``pair`` names two one-value fields (a spec's ``row_inputs``) and the
        library has it (eager CPU NumPy and torch; else None), ``write_pair(start,
        y_true, y_pred)``: the training loop's unweighted 1-D batch written as
        those fields' rows, the new row count returned (0: not taken).  None here
        (JAX, and while ``torch.compile`` traces:
        :func:`metrix.stream._buffer.write_rows`).  For the stateful wrappers, which
        own their buffer (O(batch) per update instead of ``write_rows``'
        O(capacity))."""
        return None

    def moment_accumulator(self, sw, s_x, s_xx, hi, lo, /):
        """An in-place update of Pearson's sums where the library has one (eager CPU
        NumPy and torch): ``(own, add)``, ``own`` copies of the float64 ``sw`` (0-d),
        ``s_x`` (``(2k,)``), ``s_xx`` (``(2k, 2k)``), ``hi`` and ``lo`` (the columns'
        extremes), and ``add(y_true, y_pred)`` adding one unweighted batch of ``x =
        [y_true | y_pred]`` into them (``n``, ``sum x``, ``x^T x``, the maximum and
        minimum of each column) in place (False, nothing done, for a batch it does
        not take); None here.  For the stateful wrappers, as :meth:`error_accumulator`.
        """
        return None

    def extreme_accumulator(self, current, /, *, kind):
        """An in-place running maximum (``kind="max"``) or minimum where the library
        has one (eager CPU NumPy and torch): ``(own, add)``, a copy of the 0-d
        float64 ``current`` and ``add(value)`` folding a non-empty batch's extreme
        into it in place (a NaN propagates); None here.  As :meth:`sum_accumulator`.
        """
        return None

    def scatter_add(self, index, values, /, *, length):
        """Per-segment sums: ``out[j] = sum(values[index == j])`` (1-D or 2-D values)."""
        return self.bincount(index, length=length, weights=values)

    def unique_counts(self, x, /):
        """Sorted distinct values of ``x`` and their counts (data-dependent shape)."""
        res = self.xp.unique_counts(x)
        return res.values, res.counts

    def unique_inverse(self, x, /):
        """Sorted distinct values of ``x`` and each element's position among them."""
        res = self.xp.unique_inverse(x)
        return res.values, self.xp.reshape(res.inverse_indices, (-1,))

    # -- ordering ---------------------------------------------------------
    def topk(self, x, k, /, *, axis=-1):
        """The ``k`` largest entries along ``axis`` (descending) and their indices.

        Ties are broken by the lower index (a stable descending sort).
        """
        xp = self.xp
        idx = xp.argsort(x, axis=axis, descending=True, stable=True)
        idx = self._take_first(idx, k, axis)
        return xp.take_along_axis(x, idx, axis=axis), idx

    def _take_first(self, a, k, axis):
        sl = [slice(None)] * a.ndim
        sl[axis] = slice(0, k)
        return a[tuple(sl)]

    def segment_top_candidates(self, values, seg, /, *, n_segments, k, skip_zeros=False):
        """Positions (ascending) of a subset of the pairs that holds each
        segment's ``k`` largest values and everything ranked above them.

        ``seg`` holds each pair's segment in ``[0, n_segments)``.  The subset
        is closed upwards within a segment (a kept pair's larger values are
        kept), so ranks computed on it are the ranks among all pairs.  With
        ``skip_zeros``, zero values may be left out when no value is
        negative.  Returns None where it cannot save work, and always on
        accelerators and under tracing (its size is data-dependent), so a
        caller that gets an array may read shapes on the host.  Generic: None.
        """
        return None

    def sort_with_order(self, x, /):
        """``(sorted x, order)`` of a 1-D ``x``, ascending (the order not stable)."""
        order = self.xp.argsort(x)
        return self.xp.take(x, order), order

    def take(self, x, indices, /):
        """``x[indices]`` of a 1-D ``x`` with in-range, non-negative ``indices``."""
        return self.xp.take(x, indices)

    def argsorts(self, arrays, /):
        """``[argsort(a) for a in arrays]`` (1-D, ascending, not stable); the NumPy
        adapter runs them on threads."""
        return [self.xp.argsort(a, stable=False) for a in arrays]

    def inverse_permutation(self, perm, /):
        """``inv`` with ``inv[perm[i]] = i`` (1-D).  Generic: an argsort; the
        NumPy adapter scatters (one pass)."""
        return self.xp.argsort(perm)

    def argsort_desc(self, x, /, *, axis=-1):
        """Stable descending argsort."""
        return self.xp.argsort(x, axis=axis, descending=True, stable=True)

    # -- fused reductions -------------------------------------------------
    #: elements per block of ``fused_sums`` (None: one call on whole arrays)
    fused_block = None

    def _fused_rows(self, arrays):
        """Rows per block of ``fused_sums``, or None for one whole-array call."""
        if self.fused_block is None:
            return None
        width = 1
        for a in arrays:
            if a.ndim > 1:
                width = max(width, int(a.shape[1]))
        return max(1, self.fused_block // width)

    def _blocks(self, arrays, weights):
        """``(arrays, weights)`` per block of rows (one whole block without blocking)."""
        n = arrays[0].shape[0]
        step = self._fused_rows(arrays)
        if step is None or n <= 2 * step:
            yield arrays, weights
            return
        for s in range(0, n, step):
            e = min(s + step, n)
            yield ([a[s:e, ...] if a.ndim and a.shape[0] == n else a for a in arrays],
                   None if weights is None else weights[s:e])

    def fused_sums(self, fn, arrays, /, *, weights=None):
        """Sums along axis 0 of the per-row terms ``fn(*arrays)``, weighted.

        ``fn`` maps the arrays to a tuple of per-row terms, each of shape
        ``(n,)`` or ``(n, k)``; the result is the tuple of
        ``sum_i weights_i * term_i`` (0-d or ``(k,)``).  Arrays whose first
        axis is not ``n`` (broadcast constants) reach ``fn`` whole.

        Generic: one call on the whole arrays (one fused kernel on GPUs and
        under jit).  The CPU adapters set ``fused_block`` and call ``fn`` on
        blocks of rows, so its temporaries stay in the cache and are never
        N-sized (each fresh N-sized temporary also costs page faults).
        """
        total = None
        for part, w in self._blocks(arrays, weights):
            sums = [self._weighted_sum(v, w) for v in fn(*part)]
            total = sums if total is None else [t + u for t, u in zip(total, sums)]
        return tuple(total)

    def fused_max(self, fn, arrays, /):
        """Maximum along axis 0 of the per-row term ``fn(*arrays)`` (blocked as
        :meth:`fused_sums`); NaN propagates."""
        xp = self.xp
        best = None
        for part, _ in self._blocks(arrays, None):
            m = xp.max(fn(*part), axis=0)
            best = m if best is None else xp.maximum(best, m)
        return best

    def _weighted_sum(self, v, w):
        xp = self.xp
        return xp.sum(v, axis=0) if w is None else xp.matmul(w, v)

    def host_view(self, x, /):
        """``x`` as a NumPy array without a copy or a device read (NumPy
        arrays, eager torch CPU tensors), else None: for host checks of
        small results, where NumPy's calls cost a fraction of the library's."""
        return None

    def every_class_seen(self, cm, /) -> bool:
        """Whether every row or column of a square count matrix holds a sample (a
        host read, for ``validate=True`` callers); on a host view where there is
        one (NumPy's reductions on a small matrix cost less)."""
        view = self.host_view(cm)
        if view is not None:
            return bool(((view.sum(axis=0) + view.sum(axis=1)) > 0).all())
        xp = self.xp
        return bool(xp.all((xp.sum(cm, axis=0) + xp.sum(cm, axis=1)) > 0))

    def lane_sorts_on_host(self, x, /) -> bool:
        """Whether :meth:`lane` given ``x`` runs on NumPy host arrays (NumPy;
        zero-copy views of eager torch CPU tensors), where a batched sort of
        values costs a fraction of the library's own sort.  Generic: False."""
        return self.host_view(x) is not None

    # -- host labels: strings and objects ---------------------------------
    #: whether the library's arrays hold strings and Python objects (NumPy's
    #: "O", "U" and "S" dtypes): labels of any kind are encoded in it; with
    #: another library string labels are encoded on the host, their codes moved
    holds_strings = False
    #: whether ``==`` compares arrays of different dtypes (integers, floats,
    #: bools, strings) by value, so labels need no common dtype first
    compares_mixed_dtypes = False

    def is_strings(self, x, /) -> bool:
        """Whether ``x`` holds strings or Python objects (see ``holds_strings``;
        False where the library has no such dtype)."""
        return False

    def equals_value(self, x, value, /):
        """``x == value`` (a scalar ``value``) as an array: NumPy compares a
        string array with a number as one scalar, made an array here."""
        return x == value

    def python_scalars(self, x, /) -> list:
        """The values of a small 1-D array as Python scalars (a host read).

        Element by element: bools stay bools, integers become ints and so do
        integral floats (``1.0`` -> ``1``).  NumPy: ``tolist()``.
        """
        xp = self.xp
        out = []
        for i in range(x.shape[0]):
            v = x[i]
            if xp.isdtype(v.dtype, "bool"):
                out.append(bool(v))
            elif xp.isdtype(v.dtype, "integral"):
                out.append(int(v))
            else:
                f = float(v)
                out.append(int(f) if f == int(f) else f)
        return out

    def from_nested(self, values, /):
        """One array from a (nested) sequence of numbers and arrays, by the
        library's own conversion (NumPy's ``asarray``: its dtype rules, its
        errors), or None where it has none that takes them (the caller then
        converts each value and stacks them)."""
        return None

    def dot(self, a, b, /):
        """``sum_i a_i * b_i`` of two 1-D arrays of one float dtype (0-d): one
        kernel where the library has a dot product (``xp.sum(a * b)`` here)."""
        return self.xp.sum(a * b)

    def count_true(self, x, dtype, /):
        """0-d ``dtype``: the number of True values of a bool array (a sum of its
        values cast to ``dtype`` here; a native count, with no N-sized cast,
        where the library has one)."""
        xp = self.xp
        return xp.sum(xp.astype(x, dtype))

    def mean_error(self, formula, kind, a, b, w=None, /):
        """``formula(kind, s, total, xp)``, the mean errors' formula of their
        statistic of two 1-D arrays of one float dtype (``w`` float weights or
        None): the weighted sum ``s`` of ``|a - b|`` ("absolute") or
        ``(a - b)^2`` in float64 and the total weight, the result a 0-d array
        of the difference's dtype, in one kernel call where the adapter has
        one (NumPy, :func:`~metrix.backends._small_batch.mean_error`: the
        training-loop batch's cost is the namespace's dispatch, not the
        arithmetic); None here (the caller's lane computes it)."""
        return None

    def safe_divide(self, numerator, denominator, /, *, zero_value):
        """``numerator / denominator`` where the denominator is non-zero, else
        ``zero_value`` (a Python float, may be nan, or an array broadcastable to
        the result); no 0 / 0 evaluated.  Generic: ``where`` twice (four kernels)."""
        xp = self.xp
        zero = denominator == 0
        return xp.where(zero, zero_value, numerator / xp.where(zero, 1, denominator))

    def ieee_divide(self, a, b, /):
        """``a / b`` with IEEE 754's results where ``b == 0`` (``±inf`` by the sign
        of ``a``, NaN for ``0 / 0`` and ``NaN / 0``) and no warning.

        Generic: the division by a non-zero stand-in, then the results at 0
        (NumPy-backed namespaces warn on ``x / 0``); the adapters divide in one
        kernel (NumPy's with its warnings silenced).
        """
        xp = self.xp
        zero = b == 0
        ratio = a / xp.where(zero, xp.ones_like(b), b)
        inf = xp.full_like(ratio, math.inf)
        at_zero = xp.where(a > 0, inf, xp.where(a < 0, -inf, xp.full_like(ratio, math.nan)))
        return xp.where(zero, at_zero, ratio)

    def sum_is_finite(self, x, /):
        """0-d bool: a NaN/inf-propagating reduction of ``x`` is finite.

        True proves every value finite (one reduction, no N-sized boolean
        temporary); False may also be an overflow, so check exactly then.
        """
        xp = self.xp
        return xp.isfinite(xp.sum(x))

    # -- distances --------------------------------------------------------
    def expansion_distances(self, xb, yt, sq_x, sq_y, /, *, squared=False, dtype=None):
        """Euclidean distances by the expansion ``||x||^2 + ||y||^2 - 2 x.y``:
        ``(xb @ yt + sq_x[:, None]) + sq_y[None, :]`` clipped at 0, then the square
        root unless ``squared`` (``yt`` holds ``-2 y`` transposed).  ``dtype``:
        the sum cast to it before the clip and the root (scikit-learn's float32
        upcast path: float64 sums, float32 distances).  Generic: the expression
        as written; NumPy and torch eager add, cast and root in place (one block
        temporary instead of four)."""
        xp = self.xp
        d2 = (xb @ yt + sq_x[:, None]) + sq_y[None, :]
        if dtype is not None and d2.dtype != dtype:
            d2 = xp.astype(d2, dtype)
        d2 = xp.clip(d2, 0.0, None)
        return d2 if squared else xp.sqrt(d2)

    def assemble_rows(self, blocks, /, *, symmetric=False):
        """One matrix from an iterable of row blocks ``(start, stop, block)``, in
        order.  ``symmetric``: each block holds only the columns ``start:`` of a
        symmetric square matrix, the columns ``0:start`` are the earlier
        blocks' transposed.  Generic: concatenations; NumPy and torch eager
        write each block into one preallocated matrix as it comes (the
        blocks are the caller's own temporaries)."""
        xp = self.xp
        rights, starts, rows = [], [], []
        for start, stop, right in blocks:
            if symmetric and starts:
                left = [xp.permute_dims(r[:, start - s0:stop - s0], (1, 0))
                        for s0, r in zip(starts, rights)]
                rights.append(right)
                right = xp.concat([*left, right], axis=1)
            elif symmetric:
                rights.append(right)
            starts.append(start)
            rows.append(right)
        return rows[0] if len(rows) == 1 else xp.concat(rows, axis=0)

    def scaled_exp(self, k, scale, /):
        """``exp(k * scale)`` of a fresh matrix ``k`` (the exponential kernels).
        Generic: out of place; NumPy and torch eager scale and exponentiate
        ``k`` in place (the caller's own temporary), as scikit-learn does."""
        return self.xp.exp(k * scale)

    def zero_diagonal(self, d, offset, /):
        """The fresh block ``d`` with ``d[i, offset + i] = 0`` (a row's distance to
        itself).  Generic: one ``where``; NumPy and torch eager write the
        diagonal in place (``d`` is the caller's own temporary)."""
        xp = self.xp
        b, n = d.shape
        dev = device_of(d)
        mine = (xp.arange(b, device=dev)[:, None] + offset) == xp.arange(n, device=dev)[None, :]
        return xp.where(mine, xp.zeros_like(d), d)

    def expansion_surrogate(self, xb, yt, sq_y, /):
        """``xb @ yt + sq_y[None, :]``: the euclidean distances less ``||x||^2``, a
        row's ranking of the rows of ``Y`` (``yt`` holds ``-2 y`` transposed;
        scikit-learn's ``ArgKmin`` surrogate)."""
        return xb @ yt + sq_y[None, :]

    def expansion_argmin(self, xb, yt, sq_y, /):
        """``row_argmin_min(expansion_surrogate(xb, yt, sq_y))``: the index and
        surrogate of each row's nearest row of ``Y`` (the first on ties).
        Generic: those two ops; NumPy and torch on the CPU screen in float32
        and rank again in float64 only the rows the screen cannot separate
        (``metrix.backends._argmin_screen``)."""
        return self.row_argmin_min(self.expansion_surrogate(xb, yt, sq_y))

    def row_argmin_min(self, d, /):
        """``(argmin, min)`` of each row of the 2-D ``d`` (the first index on ties)."""
        xp = self.xp
        idx = xp.argmin(d, axis=1)
        b, m = d.shape
        flat = xp.arange(b, device=device_of(d)) * m + xp.astype(idx, count_dtype(xp, device_of(d)))
        return idx, xp.take(xp.reshape(d, (-1,)), flat)

    # -- special functions ------------------------------------------------
    def gammaln(self, x, /):
        """``log(Gamma(x))`` elementwise for real ``x > 0`` (floating ``x``).

        Generic: the recurrence ``lgamma(x) = lgamma(x + 16) - log(x (x + 1)
        ... (x + 15))`` below 16, then Stirling's series to the ``x**-9`` term
        (error below 1e-16 relative there).  The library adapters call the
        native function (SciPy, ``torch.lgamma``, JAX, CuPy).
        """
        xp = self.xp
        small = x < 16.0
        z = xp.where(small, x + 16.0, x)
        shift = xp.zeros_like(x)
        for k in range(16):  # 16 fixed elementwise terms, not a loop over data
            shift = shift + xp.log(x + float(k))
        shift = xp.where(small, shift, xp.zeros_like(x))
        r = 1.0 / z
        r2 = r * r
        series = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (
            1.0 / 1680 - r2 / 1188))))
        half_log_2pi = 0.91893853320467274178
        return (z - 0.5) * xp.log(z) - z + half_log_2pi + series - shift

    # -- statistics -------------------------------------------------------
    def weighted_quantile(self, x, q, /, *, weights=None, axis=0, average=False,
                          overwrite_input=False):
        """Weighted quantile(s) along ``axis`` with scikit-learn's definition.

        See :func:`metrix.backends._quantile.weighted_quantile`.
        """
        return weighted_quantile(x, q, weights=weights, axis=axis, average=average,
                                 overwrite_input=overwrite_input, xp=self.xp, adapter=self)

    def order_statistics(self, x, ranks, /, *, overwrite=False):
        """The values of 0-based ``ranks`` along axis 0 of a 2-D ``x`` (NaN last).

        Returns a list with one ``(k,)`` array per rank.  ``overwrite=True``
        lets an adapter sort ``x`` in place (the caller owns it).  Generic: one
        sort (a flat one for a single column: faster than a strided sort).
        """
        xp = self.xp
        if x.shape[1] == 1:
            xs = xp.reshape(xp.sort(x[:, 0], stable=False), (-1, 1))
        else:
            xs = xp.sort(x, axis=0, stable=False)
        return [xs[r, :] for r in ranks]

    # -- the training-loop lane --------------------------------------------
    def lane(self, fn, config, /, *arrays):
        """``fn(xp, ops, config, *arrays)``: a metric's pure statistic and formula
        (no host read, static shapes), run the cheapest way this library offers.

        ``config`` is a hashable tuple of the call's static settings.  Generic:
        ``fn`` as it is.  torch CPU eager runs it on NumPy views (each NumPy
        op on a small array costs a fraction of a torch op); JAX compiles it
        once per ``(fn, config)`` with ``jax.jit`` (eager JAX dispatches each
        op separately).  ``fn.host_view_rows`` (optional) caps the rows for
        which torch CPU takes the NumPy views; ``fn.reads_order_only`` (a
        lane that reads its float arrays only through their order and ties,
        and gives its result in float32 or wider) lets it widen bfloat16
        scores to float32 (exact) for those views.
        """
        return fn(self.xp, self, config, *arrays)

    def inner_block(self, flat, /, *, n):
        """The inner ``n x n`` block of a flat ``(n + 2) ** 2`` edge count
        (:meth:`edge_cells`' layout), a view where the library has them."""
        k = n + 2
        return self.xp.reshape(flat, (k, k))[1:n + 1, 1:n + 1]

    def inner_counts(self, a, b, /, *, n):
        """The ``n x n`` counts of the pairs ``(a, b)`` with both labels in
        ``0..n-1`` (a declared confusion matrix): the inner block of
        :meth:`edge_counts`; other values fall outside it."""
        return self.inner_block(self.edge_counts(a, b, n=n), n=n)

    def lane_fits(self, x, /):
        """Whether a lane beats the general path for ``x``'s rows here.  Generic
        (accelerators, JAX): always (a few kernels or one compiled program); the
        CPU adapters: up to ``LANE_ROWS`` rows (a training-loop batch), beyond
        which their blocked one-pass kernels win."""
        return True

    def edge_counts(self, a, b, /, *, n, weights=None):
        """Flat ``(n + 2) ** 2`` counts of :meth:`edge_cells` (one count)."""
        return self.bincount(self.edge_cells(a, b, n=n), length=(n + 2) ** 2, weights=weights)

    def min_cost_assignment(self, cost, /):
        """Rows and columns (int64, on ``cost``'s device) of the minimum-cost
        assignment of a small ``(n, m)`` cost matrix: SciPy's
        ``linear_sum_assignment`` on the host (a host read: not traceable)."""
        try:
            from scipy.optimize import linear_sum_assignment
        except ImportError as exc:
            raise ImportError("this metric solves an assignment problem with SciPy: "
                              "install scipy") from exc
        rows, cols = linear_sum_assignment(to_host(cost))
        dev, cdt = device_of(cost), count_dtype(self.xp, device_of(cost))
        return (self.asarray_on(rows, dev, dtype=cdt), self.asarray_on(cols, dev, dtype=cdt))

    # -- placement --------------------------------------------------------
    def asarray_on(self, x, device=None, *, dtype=None):
        """``x`` as an array of this namespace on ``device``."""
        return asarray(x, xp=self.xp, device=device, dtype=dtype)


def widened_scores(score, n_thresholds, *, xp):
    """float16 / bfloat16 scores in a float where ``score (T - 1)`` is exact
    (float32 while ``T - 1 < 2**13``: 11 significant bits times 13; else the
    widest float of the device), so the bins are those of the values as given."""
    if xp.finfo(score.dtype).bits >= 32:
        return score
    wide = xp.float32 if n_thresholds - 1 < 2**13 else max_float_dtype(xp, device_of(score))
    return xp.astype(score, wide)


def indicators(y, xp):
    """Where an indicator array is set: its non-zero values (a bool array as it is)."""
    return y if y.dtype == xp.bool else y != 0
