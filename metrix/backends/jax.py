"""JAX adapter: ``jnp.bincount``/``segment_sum`` with a static ``length``.

Counts are int32 unless ``jax_enable_x64`` is on (JAX's default integer).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._generic import GenericOps

#: the eager lane's compiled programs kept at once (one per ``(fn, config)``): a
#: process that calls with ever new ``labels`` does not keep every program
MAX_PROGRAMS = 256


class Ops(GenericOps):
    name = "jax"

    def __init__(self, xp):
        super().__init__(xp)
        self._compiled = {}

    def lane(self, fn, config, /, *arrays):
        # eager: one compiled program per (fn, config) (and per shapes, by jit);
        # inside the caller's own trace: the ops join that trace
        if any(isinstance(a, jax.core.Tracer) for a in arrays):
            return fn(self.xp, self, config, *arrays)
        key = (fn, repr(config))  # repr: a NaN setting is one key, not a new one per call
        compiled = self._compiled.get(key)
        if compiled is None:
            if len(self._compiled) >= MAX_PROGRAMS:  # the oldest goes (with its executables)
                del self._compiled[next(iter(self._compiled))]

            def run(*arrays):
                return fn(self.xp, self, config, *arrays)

            compiled = self._compiled[key] = jax.jit(run)
        return compiled(*arrays)

    def ieee_divide(self, a, b, /):
        return a / b  # IEEE results at b == 0, no warning: one kernel

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

    def gammaln(self, x, /):
        from jax.scipy.special import gammaln

        return gammaln(x)

    def unique_inverse(self, x, /):
        values, inverse = jnp.unique(x, return_inverse=True)
        return values, inverse.reshape(-1)
