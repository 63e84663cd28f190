"""The Hugging Face face counts labels as ``stream.Accuracy`` does.

A label the logits cannot predict (outside the columns, or negative but not the
ignore index) once vanished from accuracy (1.0 where the stream gives 0.75);
labels that are all padding gave 0.0.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import sklearn.metrics as skm  # noqa: E402

import metrix.stream as ms  # noqa: E402
from metrix.integrations.transformers import compute_metrics  # noqa: E402

pytestmark = pytest.mark.integrations

LOGITS = np.array([[2.0, 0, 0], [0, 2.0, 0], [0, 0, 2.0], [0, 2.0, 0]])


def _hf(metrics, labels, **kw):
    pred = transformers.EvalPrediction(predictions=LOGITS, label_ids=np.array(labels))
    return compute_metrics(metrics, **kw)(pred)


@pytest.mark.parametrize("bad", [5, 3, -1])
def test_a_label_the_logits_cannot_predict_is_an_error(bad):
    labels = [0, 1, 2, bad]
    got = _hf(["accuracy", "zero_one_loss"], labels)
    stream = ms.Accuracy(3)
    stream.update(np.array(labels), LOGITS)
    assert got["accuracy"] == pytest.approx(0.75) == pytest.approx(float(stream.compute()))
    assert got["zero_one_loss"] == pytest.approx(0.25)


def test_only_the_ignore_index_is_padding():
    assert _hf(["accuracy"], [0, 1, 2, -100])["accuracy"] == 1.0
    assert _hf(["accuracy"], [0, 1, 2, -7], ignore_index=-7)["accuracy"] == 1.0
    assert _hf(["accuracy"], [0, 1, 2, -100], ignore_index=None)["accuracy"] == 0.75


def test_all_padding_is_no_data_not_zero():
    assert np.isnan(_hf(["accuracy"], [-100] * 4)["accuracy"])


@pytest.mark.parametrize("bad", [5, 3, -1])
def test_given_instances_count_a_bad_label_as_the_names_do(bad):
    """An Accuracy / ZeroOneLoss / HammingDistance instance once read micro recall
    (the bad label left out: 1.0 where the name gives 0.75)."""
    labels = [0, 1, 2, bad, -100]
    logits = np.concatenate([LOGITS, LOGITS[:1]])
    pred = transformers.EvalPrediction(predictions=logits, label_ids=np.array(labels))
    got = compute_metrics({"acc": ms.Accuracy(3), "zo": ms.ZeroOneLoss(3),
                           "ham": ms.HammingDistance(3), "mcc": ms.MatthewsCorrCoef(3),
                           "kappa": ms.CohenKappa(3, weights="quadratic"),
                           "ba": ms.BalancedAccuracy(3, adjusted=True)})(pred)
    assert got["acc"] == pytest.approx(0.75)
    assert got["zo"] == pytest.approx(0.25) == pytest.approx(got["ham"])
    yt, yp = np.array(labels[:4]), LOGITS.argmax(1)  # -100 is padding; bad is one class
    assert got["mcc"] == pytest.approx(skm.matthews_corrcoef(yt, yp))
    assert got["kappa"] == pytest.approx(skm.cohen_kappa_score(yt, yp, weights="quadratic"))
    assert got["ba"] == pytest.approx(skm.balanced_accuracy_score(yt, yp, adjusted=True))


def test_a_given_log_error_instance_checks_its_domain():
    p = np.array([0.5, -2.0, 1.0])
    pred = transformers.EvalPrediction(predictions=p, label_ids=np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="ms: .* less than or equal to -1"):
        compute_metrics({"ms": ms.MeanSquaredLogError()}, task="regression")(pred)
    got = compute_metrics({"e": ms.MeanSquaredError()}, task="regression")(pred)
    assert got["e"] == pytest.approx(skm.mean_squared_error([0.0, 1.0, 2.0], p))
