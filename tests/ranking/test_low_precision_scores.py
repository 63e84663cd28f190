"""float16 and bfloat16 scores rank as the values they hold: the same numbers as
scikit-learn on those values in float64, on the training-loop lane (a batch)
and the general path (beyond it), with and without validation.  bfloat16 has
no NumPy dtype: the torch adapter widens it to float32 (exact) for its NumPy
kernels."""

from __future__ import annotations

import numpy as np
import pytest

import metrix

sk = pytest.importorskip("sklearn.metrics")
torch = pytest.importorskip("torch")


def _scores(n, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    return y, rng.random(n) + 0.3 * y  # many ties once rounded to 8 or 11 bits


@pytest.mark.parametrize("n", [300, 70_000])  # the lane, and past it
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("validate", [True, False])
def test_binary_low_precision_scores_on_torch(n, dtype, validate):
    y, s = _scores(n)
    low = torch.from_numpy(s).to(getattr(torch, dtype))
    held = low.to(torch.float64).numpy()  # the values the low-precision scores hold
    yt = torch.from_numpy(y)
    for metric, ref in ((metrix.roc_auc_score, sk.roc_auc_score),
                        (metrix.average_precision_score, sk.average_precision_score)):
        got = metric(yt, low, validate=validate)
        assert got.dtype == torch.float32
        assert float(got) == pytest.approx(ref(y, held), rel=1e-6)


@pytest.mark.parametrize("n", [300, 70_000])
def test_binary_float16_scores_on_numpy(n):
    y, s = _scores(n, seed=1)
    low = s.astype(np.float16)
    for metric, ref in ((metrix.roc_auc_score, sk.roc_auc_score),
                        (metrix.average_precision_score, sk.average_precision_score)):
        assert metric(y, low) == pytest.approx(ref(y, low.astype(np.float64)), rel=1e-6)


def test_one_vs_rest_bfloat16_scores_on_torch():
    # bfloat16 rows do not sum to 1 within scikit-learn's tolerance: the
    # reference is the same values in float32 (the lane's widened input)
    rng = np.random.default_rng(2)
    y = torch.from_numpy(rng.integers(0, 3, 500))
    p = rng.random((500, 3)) + np.eye(3)[y.numpy()] * 0.4
    low = torch.from_numpy(p / p.sum(1, keepdims=True)).to(torch.bfloat16)
    kw = dict(multi_class="ovr", labels=[0, 1, 2], validate=False)
    got = metrix.roc_auc_score(y, low, **kw)
    assert float(got) == float(metrix.roc_auc_score(y, low.float(), **kw))
    for k in range(3):  # each class's AUC, against scikit-learn on the values held
        col = low[:, k].to(torch.float64).numpy()
        assert float(metrix.roc_auc_score((y == k).long(), low[:, k], validate=False)) == \
            pytest.approx(sk.roc_auc_score((y == k).numpy(), col), rel=1e-6)
