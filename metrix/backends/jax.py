"""JAX adapter: ``jnp.bincount``/``segment_sum`` with a static ``length``.

Counts are int32 unless ``jax_enable_x64`` is on (JAX's default integer).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._generic import GenericOps


class Ops(GenericOps):
    name = "jax"

    def bincount(self, x, /, *, length, weights=None):
        if x.dtype.itemsize < 4:  # jnp.bincount indexes in x's dtype: int8 overflows
            x = x.astype(jnp.int32)
        if weights is None:
            return jnp.bincount(x, length=length)
        if weights.ndim == 1:
            return jnp.bincount(x, weights, length=length).astype(weights.dtype)
        return jax.ops.segment_sum(weights, x, num_segments=length)

    def topk(self, x, k, /, *, axis=-1):
        if axis in (-1, x.ndim - 1):
            # lax.top_k is stable: among equal values the lower index comes first
            return jax.lax.top_k(x, k)
        return super().topk(x, k, axis=axis)

    def unique_counts(self, x, /):
        return jnp.unique(x, return_counts=True)

    def unique_inverse(self, x, /):
        values, inverse = jnp.unique(x, return_inverse=True)
        return values, inverse.reshape(-1)
