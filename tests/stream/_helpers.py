"""Helpers shared by the stream tests (imported as ``tests.stream._helpers``;
``tests/conftest.py`` puts the repository root on ``sys.path``)."""

from __future__ import annotations

import numpy as np
import pytest


def array_maker(name):
    """``asarray`` of the library ``name`` ("numpy", "torch", "jax": JAX with
    float64 enabled; skips where it is not installed)."""
    if name == "numpy":
        return np.asarray
    if name == "torch":
        return pytest.importorskip("torch").asarray
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy.asarray


def feed(metric, y, p, w=None, *, edges, lib=np.asarray, dtype=None):
    """``metric`` updated with the batches ``[a:b]`` of ``edges`` (``p`` cast to
    ``dtype`` if given; sample weights ``w`` if given)."""
    for a, b in zip(edges[:-1], edges[1:]):
        kw = {} if w is None else {"sample_weight": lib(w[a:b])}
        pp = p[a:b] if dtype is None else p[a:b].astype(dtype)
        metric.update(lib(y[a:b]), lib(pp), **kw)
    return metric


def as_float64(x):
    """A result (or a tuple of results) as float64 NumPy."""
    if isinstance(x, tuple):
        return tuple(as_float64(v) for v in x)
    return np.asarray(x.cpu() if hasattr(x, "cpu") else x, dtype=np.float64)
