"""CuPy adapter: counts as one fixed-size ``cupyx.scatter_add``.

``cupy.bincount`` reads the maximum of its input on the host to size its
output (a device sync, whatever ``minlength`` says); a scatter-add into a
zeroed buffer of the known length reads nothing.  Codes are in range by the
callers' contract (the label encodings send every other value to an edge or
"other" bin).
"""

from __future__ import annotations

import cupy
import cupyx

from ._generic import GenericOps


class Ops(GenericOps):
    name = "cupy"

    def bincount(self, x, /, *, length, weights=None):
        if x.dtype != cupy.int64:
            x = x.astype(cupy.int64)
        if weights is None:
            # atomic adds on unsigned 64-bit words; the bits are the int64 counts
            out = cupy.zeros(length, dtype=cupy.uint64)
            cupyx.scatter_add(out, x, cupy.ones(x.shape, dtype=cupy.uint64))
            return out.view(cupy.int64)
        out = cupy.zeros((length,) + tuple(weights.shape[1:]), dtype=weights.dtype)
        cupyx.scatter_add(out, x, weights)
        return out

    def unique_counts(self, x, /):
        return cupy.unique(x, return_counts=True)

    def gammaln(self, x, /):
        from cupyx.scipy.special import gammaln

        return gammaln(x)

    def unique_inverse(self, x, /):
        values, inverse = cupy.unique(x, return_inverse=True)
        return values, inverse.reshape(-1)
