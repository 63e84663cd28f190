"""Pure array-API implementations of the adapter operations.

Used as-is for array-api-strict and unknown libraries, and as the fallback
that the library adapters extend.  Everything here is traceable: no value is
read on the host and every output shape is fixed by the arguments.
"""

from __future__ import annotations

from .._namespace import asarray, count_dtype, device_of


class GenericOps:
    """Adapter operations written with the array API standard only."""

    name = "generic"
    #: whether sorting values (and binary searches) beats one argsort + gathers
    value_sort_is_cheap = True

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

    def minmax(self, x, /):
        """``(min(x), max(x))`` as 0-d arrays."""
        return self.xp.min(x), self.xp.max(x)

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

    def argsort_desc(self, x, /, *, axis=-1):
        """Stable descending argsort."""
        return self.xp.argsort(x, axis=axis, descending=True, stable=True)

    # -- statistics -------------------------------------------------------
    def weighted_quantile(self, x, q, /, *, weights=None, axis=0, average=False):
        """Weighted quantile(s) along ``axis`` with scikit-learn's definition.

        See :func:`metrix._quantile.weighted_quantile`.
        """
        from .._quantile import weighted_quantile

        return weighted_quantile(x, q, weights=weights, axis=axis, average=average,
                                 xp=self.xp)

    # -- placement --------------------------------------------------------
    def asarray_on(self, x, device=None, *, dtype=None):
        """``x`` as an array of this namespace on ``device``."""
        return asarray(x, xp=self.xp, device=device, dtype=dtype)
