"""Random draws on the device: the only place that names a library's RNG.

``generator(xp, device, random_state)`` returns a small object with

* ``integers(high, shape)``: uniform integers in ``[0, high)`` (int64; int32
  on JAX without x64), drawn on ``device``;
* ``poisson(shape, dtype)``: Poisson(1) counts as floats of ``dtype``;
* ``multinomial(total, probs, rows)``: ``rows`` draws of the counts of
  ``total`` trials over ``len(probs)`` cells, ``(rows, K)`` floats;
* ``poisson_rates(rates, rows)``: independent Poisson(rate) counts per cell,
  ``(rows, K)`` floats.

Seeds are reproducible per backend (the same ``random_state`` gives the same
draws on the same library and device), not across backends: every library has
its own generator.  array-api-strict and unknown libraries draw with NumPy on
the host and move the result to the device.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._core.namespace import backend_name, count_dtype

__all__ = ["generator"]


def _seed_from(random_state, rng=None):
    """An int seed from ``None`` (fresh entropy), an int or a NumPy Generator."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0]) >> 1
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**62))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise ValueError(
        "random_state must be None, an int or a numpy.random.Generator; got "
        f"{type(random_state).__name__}")


class _NumpyRandom:
    def __init__(self, xp, device, random_state):
        self.xp, self.device = xp, device
        if isinstance(random_state, np.random.Generator):
            self.rng = random_state
        else:
            self.rng = np.random.default_rng(_seed_from(random_state))

    def _move(self, a):
        return a

    def integers(self, high, shape):
        # int32 draws are ~4x faster than int64 and index just as well
        dtype = np.int32 if high < 2**31 else np.int64
        return self._move(self.rng.integers(0, high, size=shape, dtype=dtype))

    def poisson(self, shape, dtype):
        return self._move(self.rng.poisson(1.0, size=shape).astype(np.float64))

    def multinomial(self, total, probs, rows):
        p = np.asarray(_host(probs), dtype=np.float64)
        p = p / p.sum()
        return self._move_float(self.rng.multinomial(int(total), p, size=rows), probs)

    def poisson_rates(self, rates, rows):
        lam = np.asarray(_host(rates), dtype=np.float64)
        return self._move_float(self.rng.poisson(lam, size=(rows, lam.shape[0])), rates)

    def _move_float(self, a, like):
        return a.astype(np.float64)


class _HostRandom(_NumpyRandom):
    """Draw with NumPy, then move to the namespace and device (array-api-strict...)."""

    def _move(self, a):
        from .._core.namespace import asarray

        dtype = count_dtype(self.xp, self.device) if a.dtype.kind == "i" else None
        return asarray(a, xp=self.xp, device=self.device, dtype=dtype)

    def poisson(self, shape, dtype):
        from .._core.namespace import asarray

        return asarray(self.rng.poisson(1.0, size=shape).astype(np.float64), xp=self.xp,
                       device=self.device, dtype=dtype)

    def _move_float(self, a, like):
        from .._core.namespace import asarray

        return asarray(a.astype(np.float64), xp=self.xp, device=self.device, dtype=like.dtype)


class _TorchRandom:
    def __init__(self, xp, device, random_state):
        import torch

        self.torch = torch
        self.device = torch.device(device) if device is not None else torch.device("cpu")
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(_seed_from(random_state))

    def integers(self, high, shape):
        return self.torch.randint(0, high, tuple(shape), generator=self.gen,
                                  device=self.device, dtype=self.torch.int64)

    def poisson(self, shape, dtype):
        rate = self.torch.ones(tuple(shape), dtype=dtype, device=self.device)
        return self.torch.poisson(rate, generator=self.gen)

    def multinomial(self, total, probs, rows):
        # conditional binomials over the cells, vectorised over the rows
        torch = self.torch
        p = probs / torch.sum(probs)
        left = torch.full((rows,), float(total), dtype=probs.dtype, device=probs.device)
        rest = torch.ones((), dtype=probs.dtype, device=probs.device)
        cols = []
        for k in range(int(p.shape[0]) - 1):
            q = torch.clamp(p[k] / torch.clamp(rest, min=1e-300), 0.0, 1.0)
            x = torch.binomial(left, q.expand(rows).contiguous(), generator=self.gen)
            cols.append(x)
            left = left - x
            rest = rest - p[k]
        cols.append(left)
        return torch.stack(cols, dim=1)

    def poisson_rates(self, rates, rows):
        lam = rates.reshape(1, -1).expand(rows, -1).contiguous()
        return self.torch.poisson(lam, generator=self.gen)


class _JaxRandom:
    def __init__(self, xp, device, random_state):
        import jax

        self.jax = jax
        self.device = device
        self.key = jax.random.key(_seed_from(random_state) % (2**32))

    def _next(self):
        self.key, sub = self.jax.random.split(self.key)
        return sub

    def _put(self, a):
        return self.jax.device_put(a, self.device) if self.device is not None else a

    def integers(self, high, shape):
        import jax.numpy as jnp

        dtype = jnp.int64 if self.jax.config.jax_enable_x64 else jnp.int32
        return self._put(self.jax.random.randint(self._next(), tuple(shape), 0, high,
                                                 dtype=dtype))

    def poisson(self, shape, dtype):
        k = self.jax.random.poisson(self._next(), 1.0, tuple(shape))
        return self._put(k.astype(dtype))

    # Cell-level draws are tiny (rows x cells): drawn with NumPy and moved, as
    # jax.random.multinomial / poisson(rate array) compile for seconds per shape.
    def _host_rng(self):
        import numpy as _np

        seed = int(self.jax.random.randint(self._next(), (), 0, 2**31 - 1))
        return _np.random.default_rng(seed)

    def multinomial(self, total, probs, rows):
        p = np.asarray(_host(probs), dtype=np.float64)
        k = self._host_rng().multinomial(int(total), p / p.sum(), size=rows)
        return self._put(self.jax.numpy.asarray(k, dtype=probs.dtype))

    def poisson_rates(self, rates, rows):
        lam = np.asarray(_host(rates), dtype=np.float64)
        k = self._host_rng().poisson(lam, size=(rows, lam.shape[0]))
        return self._put(self.jax.numpy.asarray(k, dtype=rates.dtype))


class _CupyRandom:
    def __init__(self, xp, device, random_state):
        import cupy

        self.cupy = cupy
        self.rng = cupy.random.default_rng(_seed_from(random_state))

    def integers(self, high, shape):
        return self.rng.integers(0, high, size=tuple(shape), dtype=self.cupy.int64)

    def poisson(self, shape, dtype):
        return self.rng.poisson(1.0, size=tuple(shape)).astype(dtype)

    def multinomial(self, total, probs, rows):
        cp = self.cupy
        p = probs / probs.sum()
        left = cp.full((rows,), int(total), dtype=cp.int64)
        rest, cols = 1.0, []
        p_h = cp.asnumpy(p).tolist()
        for k in range(len(p_h) - 1):
            q = min(max(p_h[k] / rest, 0.0), 1.0) if rest > 0 else 0.0
            x = self.rng.binomial(left, q)
            cols.append(x)
            left = left - x
            rest -= p_h[k]
        cols.append(left)
        return cp.stack(cols, axis=1).astype(probs.dtype)

    def poisson_rates(self, rates, rows):
        return self.rng.poisson(rates, size=(rows, int(rates.shape[0]))).astype(rates.dtype)


def _host(a):
    from .._core.namespace import to_host

    return to_host(a)


def generator(xp, device, random_state):
    """A seeded generator drawing arrays of namespace ``xp`` on ``device``."""
    name = backend_name(xp)
    if name == "numpy":
        return _NumpyRandom(xp, device, random_state)
    if name == "torch":
        return _TorchRandom(xp, device, random_state)
    if name == "jax":
        return _JaxRandom(xp, device, random_state)
    if name == "cupy":
        return _CupyRandom(xp, device, random_state)
    return _HostRandom(xp, device, random_state)
