"""MCC, Cohen's kappa and balanced accuracy have one formula each.

``metrix.classification.agreement``'s ``*_from_confusion`` read a square confusion
matrix with the one-shot functions' formulas; ``LabelStream.compute`` (the classes'
block) and the Hugging Face face (the whole matrix, through
``LabelStream.of_matrix``) call them.  Here: the value of any square matrix is
scikit-learn's for the labels that made it, on NumPy, torch and JAX, integer and
float (weighted) matrices, with empty classes.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
import metrix.stream as ms
from metrix.stream._label import MATRIX_METRICS, LabelStream

C = 5


def _convert(lib, a):
    if lib == "numpy":
        return a
    if lib == "torch":
        torch = pytest.importorskip("torch")
        return torch.from_numpy(a)
    jnp = pytest.importorskip("jax.numpy")
    return jnp.asarray(a)


def _data(seed, weighted):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, 300)
    y[y == 3] = 0  # class 3 absent from y_true
    p = np.where(rng.random(300) < 0.5, y, rng.integers(0, C, 300))
    w = rng.random(300) if weighted else None
    w = None if w is None else np.where(rng.random(300) < 0.1, 0.0, w)  # zero weights
    cm = skm.confusion_matrix(y, p, labels=list(range(C)), sample_weight=w)
    return y, p, w, cm.astype(np.float64 if weighted else np.int64)


CASES = [("mcc", {}, lambda y, p, w: skm.matthews_corrcoef(y, p, sample_weight=w)),
         ("kappa", {}, lambda y, p, w: skm.cohen_kappa_score(y, p, sample_weight=w)),
         ("kappa", {"weights": "linear"},
          lambda y, p, w: skm.cohen_kappa_score(y, p, weights="linear", sample_weight=w)),
         ("kappa", {"weights": "quadratic"},
          lambda y, p, w: skm.cohen_kappa_score(y, p, weights="quadratic", sample_weight=w)),
         ("balanced_accuracy", {},
          lambda y, p, w: skm.balanced_accuracy_score(y, p, sample_weight=w)),
         ("balanced_accuracy", {"adjusted": True},
          lambda y, p, w: skm.balanced_accuracy_score(y, p, adjusted=True, sample_weight=w))]


def test_the_cases_cover_every_matrix_metric():
    assert {m for m, _, _ in CASES} == set(MATRIX_METRICS)


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("metric, kw, reference", CASES)
def test_of_matrix_is_scikit_learns_value(metric, kw, reference, lib, weighted):
    y, p, w, cm = _data(1, weighted)
    spec = LabelStream(C, metric, **kw)
    got = spec.of_matrix(_convert(lib, cm))
    tol = 1e-12 if "64" in str(got.dtype) else 1e-6  # JAX without x64: float32
    assert float(got) == pytest.approx(reference(y, p, w), rel=tol, abs=tol)


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.parametrize("metric, kw, reference", CASES)
def test_the_stream_and_the_one_shot_give_of_matrix(metric, kw, reference):
    y, p, _, cm = _data(2, False)
    cls = {"mcc": ms.MatthewsCorrCoef, "kappa": ms.CohenKappa,
           "balanced_accuracy": ms.BalancedAccuracy}[metric]
    stream = cls(C, **kw)
    for a, b in ((0, 7), (7, 150), (150, 300)):  # uneven batches
        stream.update(y[a:b], p[a:b])
    one_shot = {"mcc": metrix.matthews_corrcoef, "kappa": metrix.cohen_kappa_score,
                "balanced_accuracy": metrix.balanced_accuracy_score}[metric]
    value = float(LabelStream(C, metric, **kw).of_matrix(cm))
    assert float(stream.compute()) == value
    assert float(one_shot(y, p, **kw)) == pytest.approx(value, rel=1e-14, abs=1e-15)
