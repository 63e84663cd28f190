"""The streamed Poisson bootstrap: resample states that merge like the point estimate's,
the same intervals for any split of the rows."""

from __future__ import annotations

import numpy as np
import pytest

from metrix.evaluation.partial import PartialEvaluation
from metrix.evaluation.poisson_states import PoissonBootstrap

METRICS = ["accuracy", "f1", "matthews_corrcoef", "log_loss", "roc_auc", "mean_squared_error"]


def _data(n=900, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99), 2)
    w = np.where(rng.random(n) < 0.2, 0.0, rng.random(n))
    return y, (s > 0.5).astype(np.int64), s, w


def _states(boot, cuts, y, p, s, w):
    parts = [boot.chunk(a, y[a:b], p[a:b], s[a:b], w[a:b]) for a, b in zip(cuts, cuts[1:])]
    return boot.merge(*parts[::-1])  # merged in another order than the rows


@pytest.mark.parametrize("method", ["percentile", "basic"])
def test_any_split_gives_the_same_intervals(method):
    y, p, s, w = _data()
    metrics = [m for m in METRICS if m != "mean_squared_error"]
    boot = PoissonBootstrap(metrics, n_resamples=60, seed=5, labels=[0, 1])
    pe = PartialEvaluation(metrics, labels=[0, 1])
    values = pe.finalize(pe.chunk(y, p, s, w))
    one = boot.intervals(_states(boot, [0, 900], y, p, s, w), values, method=method)
    many = boot.intervals(_states(boot, [0, 7, 7, 300, 301, 640, 900], y, p, s, w), values,
                          method=method)
    assert one.keys() == set(metrics)
    for name in metrics:
        for k in ("low", "high", "standard_error"):
            assert many[name][k] == pytest.approx(one[name][k], rel=1e-12), name
        assert one[name]["standard_error"] > 0
        if method == "percentile":
            assert one[name]["low"] <= values[name] <= one[name]["high"], name


def test_the_seed_changes_the_draws_and_the_spread_is_the_bootstraps():
    y, p, s, w = _data(4000, seed=1)
    pe = PartialEvaluation(["accuracy"], labels=[0, 1])
    values = pe.finalize(pe.chunk(y, p, s, None))
    found = [PoissonBootstrap(["accuracy"], n_resamples=400, seed=k, labels=[0, 1])
             for k in (1, 2)]
    got = [b.intervals(_states(b, [0, 4000], y, p, s, np.ones(4000)), values)["accuracy"]
           for b in found]
    assert got[0]["low"] != got[1]["low"]
    acc = values["accuracy"]
    expected_se = np.sqrt(acc * (1 - acc) / 4000)  # a mean of 0/1 values
    for g in got:
        assert 0.85 < g["standard_error"] / expected_se < 1.15


def test_errors():
    with pytest.raises(ValueError, match="at least 2"):
        PoissonBootstrap(["accuracy"], n_resamples=1, seed=0, labels=[0, 1])
    boot = PoissonBootstrap(["accuracy"], n_resamples=3, seed=0, labels=[0, 1])
    with pytest.raises(ValueError, match="percentile"):
        boot.intervals(boot.empty(), {"accuracy": 0.5}, method="bca")
