"""The eager JAX lane keeps a bounded number of compiled programs: a process that
calls with ever new ``labels`` (each a configuration of its own) does not keep
every program it compiled."""

from __future__ import annotations

import numpy as np
import pytest

import metrix
from metrix._core.namespace import get_namespace_and_device
from metrix.backends import ops

jnp = pytest.importorskip("jax.numpy")
jax_adapter = pytest.importorskip("metrix.backends.jax")


def test_eager_lane_keeps_at_most_max_programs(monkeypatch):
    monkeypatch.setattr(jax_adapter, "MAX_PROGRAMS", 3)
    r = np.random.default_rng(0)
    yt, yp = r.integers(0, 4, 50), r.integers(0, 4, 50)
    adapter = ops(get_namespace_and_device(jnp.asarray(yt))[0])
    adapter._compiled.clear()
    for c in range(4, 10):  # six configurations: labels 0..c-1
        labels = list(range(c))
        got = metrix.f1_score(jnp.asarray(yt), jnp.asarray(yp), labels=labels,
                              average="macro", zero_division=0, validate=False)
        want = metrix.f1_score(yt, yp, labels=labels, average="macro", zero_division=0)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
        assert 1 <= len(adapter._compiled) <= 3
    # the newest configuration is kept, the oldest went first
    assert any("9" in repr(k) for k in adapter._compiled)
