"""Calling a stream metric: ``m(y_true, y_pred)`` accumulates the batch and
returns the metric of that batch alone (TorchMetrics' ``forward``)."""

from __future__ import annotations

import numpy as np
import pytest

import metrix.stream as ms

C, N = 4, 60


def _batches(kind, seed):
    rng = np.random.default_rng(seed)
    out = []
    for n in (N, N + 17, 9):
        y = rng.integers(0, C, n)
        if kind == "labels":
            out.append((y, np.where(rng.random(n) < 0.6, y, rng.integers(0, C, n))))
        elif kind == "binary":
            yb = y % 2
            out.append((yb, np.clip(0.3 * yb + 0.7 * rng.random(n), 0, 1)))
        elif kind == "proba":
            p = rng.random((n, C)) + 0.05
            out.append((y, p / p.sum(1, keepdims=True)))
        else:
            t = rng.normal(size=n) + 3
            out.append((t, t + rng.normal(0, 0.5, n)))
    return out


def _metrics():
    def label_metric(cls):
        return lambda: cls(C)

    out = {name: (label_metric(getattr(ms, name)), "labels")
           for name in ("Accuracy", "BalancedAccuracy", "CohenKappa", "ConfusionMatrix",
                        "F1Score", "FBetaScore", "HammingDistance", "JaccardIndex",
                        "MatthewsCorrCoef", "Precision", "Recall", "ZeroOneLoss")}
    out.update({name: (getattr(ms, name), "real")
                for name in ("ExplainedVariance", "MeanAbsoluteError",
                             "MeanAbsolutePercentageError", "MeanSquaredError",
                             "MeanSquaredLogError", "R2Score", "RootMeanSquaredError",
                             "RootMeanSquaredLogError")})
    out["FBetaScore"] = (lambda: ms.FBetaScore(C, beta=2.0), "labels")
    out["MedianAbsoluteError"] = (lambda: ms.MedianAbsoluteError(400), "real")
    out["AUROC"] = (lambda: ms.AUROC(thresholds=50), "binary")
    out["AUROC[exact]"] = (lambda: ms.AUROC(capacity=400), "binary")
    out["AveragePrecision"] = (lambda: ms.AveragePrecision(thresholds=50), "binary")
    out["AveragePrecision[exact]"] = (lambda: ms.AveragePrecision(capacity=400), "binary")
    out["LogLoss"] = (lambda: ms.LogLoss(num_classes=C), "proba")
    out["MetricCollection"] = (lambda: ms.MetricCollection(
        {"f1": ms.F1Score(C), "acc": ms.Accuracy(C), "mcc": ms.MatthewsCorrCoef(C)}),
        "labels")
    return out


METRICS = _metrics()


def _same(a, b):
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            _same(a[k], b[k])
        return
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("name", sorted(METRICS))
def test_call_returns_the_batch_value_and_accumulates(name, lib):
    make, kind = METRICS[name]
    conv = (lambda a: a) if lib == "numpy" else pytest.importorskip("torch").asarray
    called, updated = make(), make()
    for y, p in _batches(kind, 3):
        alone = make()
        alone.update(conv(y), conv(p))
        _same(called(conv(y), conv(p)), alone.compute())   # the batch's own value
        updated.update(conv(y), conv(p))
        _same(called.compute(), updated.compute())            # and the running value
