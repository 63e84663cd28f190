"""NumPy adapter: native ``bincount`` (one O(N) pass instead of a sort)."""

from __future__ import annotations

import numpy as np

from ._generic import GenericOps


class Ops(GenericOps):
    name = "numpy"

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

    def unique_counts(self, x, /):
        return np.unique(np.asarray(x), return_counts=True)

    def unique_inverse(self, x, /):
        values, inverse = np.unique(np.asarray(x), return_inverse=True)
        return values, inverse.reshape(-1)
