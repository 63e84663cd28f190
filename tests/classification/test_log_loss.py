"""log_loss and d2_log_loss_score through the blocked CPU pass, against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from metrix.backends import ops


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_blocked_log_loss_matches_sklearn(monkeypatch, lib, weighted, k):
    mod = pytest.importorskip(lib)
    # the class attribute: every cached adapter of the library sees it; n = 1001
    # gives many blocks and a ragged last one
    monkeypatch.setattr(type(ops(mod)), "fused_block", 96)
    r = np.random.default_rng(7)
    n = 1001
    y = r.integers(0, max(k, 2), n)
    if k == 1:
        p = r.random(n)
        p[:5] = [0.0, 1.0, 1e-20, 1 - 1e-17, 0.5]  # clipped at eps and 1 - eps
    else:
        p = r.dirichlet(np.ones(k), n)
    w = r.random(n) if weighted else None
    conv = (lambda a: a) if lib == "numpy" else mod.asarray
    for fn, kw in ((metrix.log_loss, {}), (metrix.log_loss, {"normalize": False}),
                   (metrix.d2_log_loss_score, {})):
        got = fn(conv(y), conv(p), sample_weight=None if w is None else conv(w), **kw)
        expected = getattr(skm, fn.__name__)(y, p, sample_weight=w, **kw)
        np.testing.assert_allclose(float(got), expected, rtol=1e-12, err_msg=fn.__name__)
    ev = metrix.evaluate(conv(y), None, conv(p), metrics=["log_loss", "d2_log_loss_score"],
                         sample_weight=None if w is None else conv(w))
    assert float(ev["log_loss"]) == float(metrix.log_loss(
        conv(y), conv(p), sample_weight=None if w is None else conv(w)))
