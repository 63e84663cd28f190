"""Stream label metrics on every integer label dtype: the one-shot value.

The confusion cell ``a * (C + 2) + b`` and its clip to ``-1`` once ran in the
labels' own dtype: uint8 labels wrapped (accuracy 0.0 on torch and JAX, 0.336
for scikit-learn's 0.616 on NumPy with 20 classes) and int8 labels crashed or
overflowed.  The adapters now widen narrow labels to the count dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix.stream as ms

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "uint32", "int64"]


def _data(n_classes, dtype, n=400, seed=0):
    rng = np.random.default_rng(seed)
    hi = 2 if dtype == "bool" else n_classes
    y = rng.integers(0, hi, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, hi, n))
    return y.astype(dtype), p.astype(dtype), (2 if dtype == "bool" else n_classes)


def _convert(lib, a):
    if lib == "numpy":
        return a
    if lib == "torch":
        torch = pytest.importorskip("torch")
        return torch.from_numpy(a)  # uint32 too: metrix widens it before any arithmetic
    jnp = pytest.importorskip("jax.numpy")
    return jnp.asarray(a)


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_narrow_labels_give_sklearns_numbers(lib, dtype, validate):
    y, p, c = _data(20, dtype)
    yt, yp = _convert(lib, y), _convert(lib, p)
    acc = ms.Accuracy(c, validate=validate)
    f1 = ms.F1Score(c, average="macro", validate=validate)
    cm = ms.ConfusionMatrix(c, validate=validate)
    for m in (acc, f1, cm):
        m.update(yt[:150], yp[:150])
        m.update(yt[150:], yp[150:])
    labels = list(range(c))
    yi, pi = y.astype(np.int64), p.astype(np.int64)
    assert float(acc.compute()) == pytest.approx(skm.accuracy_score(yi, pi))
    assert float(f1.compute()) == pytest.approx(
        skm.f1_score(yi, pi, average="macro", labels=labels))
    np.testing.assert_array_equal(np.asarray(cm.compute()),
                                  skm.confusion_matrix(yi, pi, labels=labels))


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_narrow_labels_outside_the_classes_count_as_errors(lib, dtype):
    """A label at or above ``num_classes`` (or below 0) is a wrong prediction, not
    a wrapped code that lands in another cell."""
    y = np.array([0, 1, 2, 2, 1, 0], dtype=dtype)
    p = np.array([0, 1, 2, 100, 1, 0], dtype=dtype)
    if dtype == "int8":
        p[4] = -3
    m = ms.Accuracy(3)
    m.update(_convert(lib, y), _convert(lib, p))
    assert float(m.compute()) == pytest.approx(4 / 6 if dtype == "int8" else 5 / 6)
