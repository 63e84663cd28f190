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
