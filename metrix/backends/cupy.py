"""CuPy adapter: native ``cupy.bincount``."""

from __future__ import annotations

import cupy

from ._generic import GenericOps


class Ops(GenericOps):
    name = "cupy"

    def bincount(self, x, /, *, length, weights=None):
        if weights is None:
            return cupy.bincount(x, minlength=length)[:length].astype(cupy.int64, copy=False)
        if weights.ndim == 2:
            k = weights.shape[1]
            codes = (x[:, None] * k + cupy.arange(k)).ravel()
            out = cupy.bincount(codes, weights=weights.ravel(), minlength=length * k)
            return out[: length * k].reshape(length, k).astype(weights.dtype, copy=False)
        return cupy.bincount(x, weights=weights, minlength=length)[:length].astype(
            weights.dtype, copy=False)

    def unique_counts(self, x, /):
        return cupy.unique(x, return_counts=True)

    def unique_inverse(self, x, /):
        values, inverse = cupy.unique(x, return_inverse=True)
        return values, inverse.reshape(-1)
