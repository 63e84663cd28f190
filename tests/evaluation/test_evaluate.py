"""metrix.evaluate: many metrics from one statistic, equal to the single metrics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import metrix
from conformance.util import jax_x64
from metrix.backends import ops

rng = np.random.default_rng(5)
N = 400
YT = rng.integers(0, 4, N)
YP = np.where(rng.random(N) < 0.6, YT, rng.integers(0, 4, N))
W = rng.random(N)
PM = rng.dirichlet([2.0] * 4, N)
BT, BP = YT % 2, YP % 2
P1 = np.clip(rng.beta(2, 2, N), 0.01, 0.99)
ML_T = (rng.random((N, 3)) < 0.5).astype(np.int64)
ML_P = (rng.random((N, 3)) < 0.5).astype(np.int64)


def _reference(name, yt, yp, ys, w):
    kw = {"sample_weight": w}
    plain = {
        "accuracy": lambda: skm.accuracy_score(yt, yp, **kw),
        "balanced_accuracy": lambda: skm.balanced_accuracy_score(yt, yp, **kw),
        "adjusted_balanced_accuracy": lambda: skm.balanced_accuracy_score(yt, yp, adjusted=True,
                                                                          **kw),
        "matthews_corrcoef": lambda: skm.matthews_corrcoef(yt, yp, **kw),
        "cohen_kappa": lambda: skm.cohen_kappa_score(yt, yp, **kw),
        "cohen_kappa_linear": lambda: skm.cohen_kappa_score(yt, yp, weights="linear", **kw),
        "cohen_kappa_quadratic": lambda: skm.cohen_kappa_score(yt, yp, weights="quadratic",
                                                               **kw),
        "hamming_loss": lambda: skm.hamming_loss(yt, yp, **kw),
        "zero_one_loss": lambda: skm.zero_one_loss(yt, yp, **kw),
        "log_loss": lambda: skm.log_loss(yt, ys, **kw),
        "brier_score_loss": lambda: skm.brier_score_loss(yt, ys, **kw),
        "d2_log_loss_score": lambda: skm.d2_log_loss_score(yt, ys, **kw),
        "d2_brier_score": lambda: skm.d2_brier_score(yt, ys, **kw),
        "roc_auc": lambda: skm.roc_auc_score(yt, ys, **kw),
        "average_precision": lambda: skm.average_precision_score(yt, ys, **kw),
    }
    if name in plain:
        return plain[name]()
    base, _, avg = name.partition("_")
    fn = getattr(skm, f"{base}_score")
    return fn(yt, yp, average=avg or "binary", **kw)


MULTICLASS = [n for n in metrix.EVALUATE_METRICS
              if not n.endswith("_samples") and n not in ("precision", "recall", "f1", "jaccard")
              and n not in metrix.evaluation.one_pass.RANKING_METRICS]
BINARY = ["f1", "precision", "recall", "jaccard", "accuracy", "matthews_corrcoef",
          "log_loss", "brier_score_loss", "d2_brier_score", "roc_auc", "average_precision"]
MULTILABEL = ["f1_samples", "jaccard_samples", "precision_micro", "recall_weighted",
              "hamming_loss", "zero_one_loss", "accuracy"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", ["multiclass", "binary", "multilabel"])
def test_equals_sklearn(case, weighted):
    yt, yp, ys, names = {
        "multiclass": (YT, YP, PM, MULTICLASS),
        "binary": (BT, BP, P1, BINARY),
        "multilabel": (ML_T, ML_P, None, MULTILABEL),
    }[case]
    w = W if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = metrix.evaluate(yt, yp, ys, metrics=names, sample_weight=w)
        assert list(got) == names
        for name in names:
            np.testing.assert_allclose(got[name], _reference(name, yt, yp, ys, w), rtol=1e-12,
                                       atol=1e-15, err_msg=name)


def test_torch_results_on_device_and_equal_to_single_metrics():
    torch = pytest.importorskip("torch")
    t = [torch.asarray(a) for a in (YT, YP, PM, W)]
    got = metrix.evaluate(t[0], t[1], t[2], sample_weight=t[3])
    assert list(got) == list(metrix.evaluation.one_pass.DEFAULT_LABEL_METRICS
                             + metrix.evaluation.one_pass.DEFAULT_PROBA_METRICS)
    for v in got.values():
        assert isinstance(v, torch.Tensor) and v.ndim == 0 and v.dtype == torch.float64
    assert float(got["f1_macro"]) == float(metrix.f1_score(t[0], t[1], average="macro",
                                                           sample_weight=t[3]))
    assert float(got["log_loss"]) == float(metrix.log_loss(t[0], t[2], sample_weight=t[3]))


def test_one_bincount_for_the_label_metrics(bincount_calls):
    metrix.evaluate(YT, YP)                 # seven label metrics
    assert len(bincount_calls) == 1


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_one_sort_for_auc_and_ap(monkeypatch, lib):
    yt, ys = BT, np.round(P1, 2)  # ties
    if lib == "torch":
        torch = pytest.importorskip("torch")
        yt, ys = torch.asarray(yt), torch.asarray(ys)
    xp = metrix._core.namespace.get_namespace_and_device(ys)[0]
    adapter = ops(xp)
    calls = []
    original = adapter.split_sort
    monkeypatch.setattr(adapter, "split_sort", lambda *a: calls.append(1) or original(*a))
    got = metrix.evaluate(yt, y_score=ys, metrics=["average_precision", "roc_auc"])
    assert list(got) == ["average_precision", "roc_auc"] and len(calls) == 1
    assert float(got["roc_auc"]) == float(metrix.roc_auc_score(yt, ys))
    assert float(got["average_precision"]) == float(metrix.average_precision_score(yt, ys))
    # AP's positive class is pos_label; AUC's the greater label: two sorts then
    got = metrix.evaluate(yt, y_score=ys, metrics=["roc_auc", "average_precision"],
                          pos_label=0)
    np.testing.assert_allclose(float(got["average_precision"]), skm.average_precision_score(
        np.asarray(yt), np.asarray(ys), pos_label=0), rtol=1e-12)
    with pytest.raises(ValueError, match="binary"):
        metrix.evaluate(YT, y_score=PM, metrics=["roc_auc"])


def test_errors():
    with pytest.raises(ValueError, match="Unknown metric names"):
        metrix.evaluate(YT, YP, metrics=["f2"])
    with pytest.raises(ValueError, match="need y_score"):
        metrix.evaluate(YT, YP, metrics=["log_loss"])
    with pytest.raises(ValueError, match="need y_pred"):
        metrix.evaluate(YT, None, PM, metrics=["accuracy"])
    with pytest.raises(ValueError, match="multilabel-indicator is not supported"):
        metrix.evaluate(ML_T, ML_P, metrics=["matthews_corrcoef"])
    with pytest.raises(ValueError, match="average='binary'"):
        metrix.evaluate(YT, YP, metrics=["f1"])


TRACED = ["accuracy", "balanced_accuracy", "f1_macro", "precision_weighted", "recall_micro",
          "matthews_corrcoef", "cohen_kappa", "cohen_kappa_quadratic", "jaccard_macro",
          "log_loss", "brier_score_loss"]


@pytest.mark.compile
def test_jax_jit():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    with jax_x64(True):
        want = metrix.evaluate(YT, YP, PM, metrics=TRACED, labels=[0, 1, 2, 3], sample_weight=W)

        @jax.jit
        def run(a, b, c, w):
            return metrix.evaluate(a, b, c, metrics=TRACED, labels=[0, 1, 2, 3],
                                   sample_weight=w, validate=False)

        got = run(*(jnp.asarray(x) for x in (YT, YP, PM, W)))
    for k in TRACED:
        np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-12, err_msg=k)


@pytest.mark.compile
def test_torch_compile_fullgraph():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")

    torch._dynamo.reset()
    want = metrix.evaluate(YT, YP, PM, metrics=TRACED, labels=[0, 1, 2, 3], sample_weight=W)

    def run(a, b, c, w):
        return metrix.evaluate(a, b, c, metrics=TRACED, labels=[0, 1, 2, 3], sample_weight=w,
                               validate=False)

    got = torch.compile(run, fullgraph=True)(*(torch.asarray(x) for x in (YT, YP, PM, W)))
    for k in TRACED:
        np.testing.assert_allclose(got[k].numpy(), want[k], rtol=1e-12, err_msg=k)
