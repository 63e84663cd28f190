"""The Hugging Face face held to the conformance contract: scikit-learn's value on
the same data, or a ValueError that names the problem.

``compute_metrics`` is called as the ``Trainer`` calls it: once with an
``EvalPrediction`` of NumPy arrays (``"whole"``), or batch by batch with torch
tensors and ``compute_result`` (``"batched"``: uneven batches, an empty one and
a one-row one among them).  Each task's metrics, on logits and on
probabilities (``from_logits=False``), are compared with scikit-learn on the
arg-max / sigmoid / softmax of the same outputs (``docs/guide/transformers.md``),
with the ``-100`` padding left out.  A label the logits cannot predict (5 with
three columns, -1) counts as an error in the label metrics and makes the score
metrics raise.  (The conformance runner has no per-case marker, so these rows
live here, marked ``integrations``.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import metrix.stream as ms  # noqa: E402
from metrix.integrations.transformers import compute_metrics  # noqa: E402

pytestmark = pytest.mark.integrations

rng = np.random.default_rng(20261211)
N, C = 45, 3
MC_Y = rng.integers(0, C, N)
MC_Z = rng.normal(size=(N, C))
MC_Z[np.arange(N), MC_Y] += 1.0
MC_Y_PAD = np.where(rng.random(N) < 0.15, -100, MC_Y)
BIN_Y = rng.integers(0, 2, N)
BIN_Z = rng.normal(size=N) + 1.2 * (BIN_Y - 0.5)
BIN_Y_PAD = np.where(rng.random(N) < 0.15, -100, BIN_Y)
ML_Y = (rng.random((N, 4)) < 0.4).astype(np.float32)
ML_Y[:2] = [[1, 1, 1, 1], [0, 0, 0, 0]]
ML_Z = rng.normal(size=(N, 4)) + 1.5 * (ML_Y - 0.5)
REG_Y = rng.random(N) * 3
REG_P = np.abs(REG_Y + rng.normal(0, 0.4, N))
REG2_Y = rng.random((N, 2)) * 3
REG2_P = np.abs(REG2_Y + rng.normal(0, 0.4, (N, 2)))

#: batch edges: an empty batch, one row, then uneven ones
EDGES = (0, 0, 1, 17, 30, N)
LABEL = ["accuracy", "precision", "recall", "f1", "jaccard", "mcc", "kappa",
         "balanced_accuracy", "hamming_loss", "zero_one_loss"]
SCORE = ["roc_auc", "average_precision", "log_loss"]
REGRESSION = ["mse", "rmse", "mae", "r2", "explained_variance", "msle", "rmsle", "mape",
              "median_ae"]


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _sk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(*args, **kw))


def hf(names, predictions, labels, mode, **kw):
    """``compute_metrics(names, **kw)`` as the ``Trainer`` calls it."""
    cm = compute_metrics(names, **kw)
    if mode == "whole":
        return cm(transformers.EvalPrediction(predictions=predictions, label_ids=labels))
    edges = EDGES if len(labels) == N else (0, 0, len(labels))
    out = None
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        out = cm(transformers.EvalPrediction(predictions=torch.as_tensor(predictions[a:b]),
                                             label_ids=torch.as_tensor(labels[a:b])),
                 compute_result=i == len(edges) - 2)
    return out


def _close(got, want, rtol=1e-9):
    assert list(got) == list(want)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=rtol, atol=1e-12, err_msg=name)


def multiclass_reference(y, proba):
    keep = y != -100
    yt, p = y[keep], proba[keep]
    yp, labels = p.argmax(1), list(range(C))
    prf = dict(average="macro", labels=labels, zero_division=0)
    onehot = np.eye(C)[yt]
    return {"accuracy": skm.accuracy_score(yt, yp),
            "precision": _sk(skm.precision_score, yt, yp, **prf),
            "recall": _sk(skm.recall_score, yt, yp, **prf),
            "f1": _sk(skm.f1_score, yt, yp, **prf),
            "jaccard": _sk(skm.jaccard_score, yt, yp, **prf),
            "mcc": skm.matthews_corrcoef(yt, yp),
            "kappa": skm.cohen_kappa_score(yt, yp),
            "balanced_accuracy": _sk(skm.balanced_accuracy_score, yt, yp),
            "hamming_loss": skm.hamming_loss(yt, yp),
            "zero_one_loss": skm.zero_one_loss(yt, yp),
            "roc_auc": skm.roc_auc_score(yt, p, multi_class="ovr", labels=labels),
            "average_precision": skm.average_precision_score(onehot, p, average="macro"),
            "log_loss": skm.log_loss(yt, p, labels=labels)}


def binary_reference(y, proba, threshold=0.5):
    keep = y != -100
    yt, p = y[keep], proba[keep]
    yp = (p > threshold).astype(int)
    return {"accuracy": skm.accuracy_score(yt, yp),
            "precision": _sk(skm.precision_score, yt, yp, zero_division=0),
            "recall": _sk(skm.recall_score, yt, yp, zero_division=0),
            "f1": _sk(skm.f1_score, yt, yp, zero_division=0),
            "jaccard": _sk(skm.jaccard_score, yt, yp, zero_division=0),
            "mcc": skm.matthews_corrcoef(yt, yp),
            "kappa": _sk(skm.cohen_kappa_score, yt, yp),
            "balanced_accuracy": _sk(skm.balanced_accuracy_score, yt, yp),
            "hamming_loss": skm.hamming_loss(yt, yp),
            "zero_one_loss": skm.zero_one_loss(yt, yp),
            "roc_auc": _sk(skm.roc_auc_score, yt, p),
            "average_precision": _sk(skm.average_precision_score, yt, p),
            "log_loss": skm.log_loss(yt, p, labels=[0, 1])}


MODES = ("whole", "batched")


# -- values: the same number as scikit-learn ------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("given", ["logits", "probabilities"])
def test_multiclass_equals_scikit_learn(mode, given):
    proba = _softmax(MC_Z)
    preds, kw = (MC_Z, {}) if given == "logits" else (proba, {"from_logits": False})
    got = hf(LABEL + SCORE, preds, MC_Y_PAD, mode, capacity=N, **kw)
    _close(got, multiclass_reference(MC_Y_PAD, proba))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("columns", [0, 1, 2])
def test_binary_equals_scikit_learn(mode, columns):
    z = {0: BIN_Z, 1: BIN_Z[:, None], 2: np.stack([-BIN_Z / 2, BIN_Z / 2], 1)}[columns]
    got = hf(LABEL + SCORE, z, BIN_Y_PAD, mode, task="binary", capacity=N)
    _close(got, binary_reference(BIN_Y_PAD, _sigmoid(BIN_Z)))
    got = hf(LABEL + SCORE, _sigmoid(BIN_Z), BIN_Y_PAD, mode, task="binary", capacity=N,
             from_logits=False, threshold=0.7)
    _close(got, binary_reference(BIN_Y_PAD, _sigmoid(BIN_Z), threshold=0.7))


@pytest.mark.parametrize("mode", MODES)
def test_multilabel_equals_scikit_learn(mode):
    names = ["accuracy", "precision", "recall", "f1", "jaccard", "hamming_loss",
             "zero_one_loss", "roc_auc", "average_precision"]
    got = hf(names, ML_Z, ML_Y, mode, task="multilabel", capacity=N)
    yt, yp, p = ML_Y.astype(int), (ML_Z > 0).astype(int), _sigmoid(ML_Z)
    kw = dict(average="macro", zero_division=0)
    _close(got, {"accuracy": skm.accuracy_score(yt, yp),
                 "precision": skm.precision_score(yt, yp, **kw),
                 "recall": skm.recall_score(yt, yp, **kw), "f1": skm.f1_score(yt, yp, **kw),
                 "jaccard": skm.jaccard_score(yt, yp, **kw),
                 "hamming_loss": skm.hamming_loss(yt, yp),
                 "zero_one_loss": skm.zero_one_loss(yt, yp),
                 "roc_auc": skm.roc_auc_score(yt, p),
                 "average_precision": skm.average_precision_score(yt, p)})


def _regression_reference(y, p, multioutput="uniform_average"):
    kw = {"multioutput": multioutput}
    return {"mse": skm.mean_squared_error(y, p, **kw),
            "rmse": skm.root_mean_squared_error(y, p, **kw),
            "mae": skm.mean_absolute_error(y, p, **kw), "r2": skm.r2_score(y, p, **kw),
            "explained_variance": skm.explained_variance_score(y, p, **kw),
            "msle": skm.mean_squared_log_error(y, p, **kw),
            "rmsle": skm.root_mean_squared_log_error(y, p, **kw),
            "mape": skm.mean_absolute_percentage_error(y, p, **kw),
            "median_ae": skm.median_absolute_error(y, p, **kw)}


@pytest.mark.parametrize("mode", MODES)
def test_regression_equals_scikit_learn(mode):
    got = hf(REGRESSION, REG_P[:, None], REG_Y, mode, task="regression", capacity=N)
    _close(got, _regression_reference(REG_Y, REG_P))
    got = hf(REGRESSION, REG2_P, REG2_Y, mode, task="regression", capacity=N)
    _close(got, _regression_reference(REG2_Y, REG2_P))


# -- edges: one sample, one class -----------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_one_sample_and_one_class(mode):
    proba = _softmax(MC_Z)
    for rows in (slice(0, 1), np.flatnonzero(MC_Y == 1)):     # one sample; one class
        y = MC_Y[rows]
        got = hf(LABEL + SCORE, MC_Z[rows], y, mode, capacity=N)
        _close(got, {k: v for k, v in multiclass_reference(y, proba[rows]).items()})
    y = np.ones(6, np.int64)
    got = hf(LABEL + SCORE, BIN_Z[:6], y, mode, task="binary", capacity=N)
    _close(got, binary_reference(y, _sigmoid(BIN_Z[:6])))


@pytest.mark.parametrize("mode", MODES)
def test_r2_of_one_sample_is_nan_with_scikit_learns_warning(mode):
    with pytest.warns(Warning, match="R\\^2 score is not well-defined with less than two"):
        got = hf(["r2", "mse"], REG_P[:1, None], REG_Y[:1], mode, task="regression")
    assert np.isnan(got["r2"])
    assert got["mse"] == pytest.approx(skm.mean_squared_error(REG_Y[:1], REG_P[:1]))


# -- labels the logits cannot predict; padding --------------------------------------------

BAD = MC_Y.copy()
BAD[[3, 8]] = [5, -1]
BAD[[4, 9]] = -100


@pytest.mark.parametrize("mode", MODES)
def test_a_label_the_logits_cannot_predict_counts_as_an_error(mode):
    """Once MCC, kappa and balanced accuracy dropped such a sample (they read the
    classes' block of the confusion matrix only)."""
    got = hf(LABEL, MC_Z, BAD, mode)
    keep = BAD != -100
    yt, yp = BAD[keep], MC_Z[keep].argmax(1)
    prf = dict(average="macro", labels=list(range(C)), zero_division=0)
    _close(got, {"accuracy": skm.accuracy_score(yt, yp),
                 "precision": _sk(skm.precision_score, yt, yp, **prf),
                 "recall": _sk(skm.recall_score, yt, yp, **prf),
                 "f1": _sk(skm.f1_score, yt, yp, **prf),
                 "jaccard": _sk(skm.jaccard_score, yt, yp, **prf),
                 "mcc": skm.matthews_corrcoef(yt, yp),
                 "kappa": skm.cohen_kappa_score(yt, yp),
                 "balanced_accuracy": _sk(skm.balanced_accuracy_score, yt, yp),
                 "hamming_loss": skm.hamming_loss(yt, yp),
                 "zero_one_loss": skm.zero_one_loss(yt, yp)})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("metric", SCORE)
def test_score_metrics_raise_for_a_label_the_logits_cannot_predict(mode, metric):
    """Once log loss was NaN and ROC AUC / average precision a number."""
    with pytest.raises(ValueError, match="outside the 3 classes"):
        hf([metric, "accuracy"], MC_Z, BAD, mode, capacity=N)
    y = np.where(BIN_Y_PAD == 1, 2, BIN_Y_PAD)  # labels 0 / 2 for a binary task
    with pytest.raises(ValueError, match="outside the 2 classes"):
        hf([metric], BIN_Z, y, mode, task="binary", capacity=N)


@pytest.mark.parametrize("mode", MODES)
def test_a_configured_ignore_index_is_padding_and_minus_100_then_is_not(mode):
    y = np.where(MC_Y_PAD == -100, -7, MC_Y_PAD)
    got = hf(LABEL + SCORE, MC_Z, y, mode, capacity=N, ignore_index=-7)
    _close(got, multiclass_reference(MC_Y_PAD, _softmax(MC_Z)))
    with pytest.raises(ValueError, match="not ignore_index=-7"):
        hf(["accuracy", "log_loss"], MC_Z, MC_Y_PAD, mode, ignore_index=-7)
    got = hf(["accuracy"], MC_Z, MC_Y_PAD, mode, ignore_index=-7)  # -100 is an error
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(MC_Y_PAD, MC_Z.argmax(1)))


@pytest.mark.parametrize("mode", MODES)
def test_float_labels_are_compared_as_values_not_truncated(mode):
    """Once 0.7 was truncated to class 0."""
    y = MC_Y.astype(np.float64)
    y[5] = 0.7
    got = hf(["accuracy", "mcc"], MC_Z, y, mode)
    yp = MC_Z.argmax(1)
    y_as_label = np.where(y == np.floor(y), y, 9).astype(int)  # 0.7: none of the classes
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(y_as_label, yp))
    assert got["mcc"] == pytest.approx(skm.matthews_corrcoef(y_as_label, yp))
    with pytest.raises(ValueError, match="outside the 3 classes"):
        hf(["log_loss"], MC_Z, y, mode)


# -- bad values: a ValueError that names the problem ---------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task", ["multiclass", "binary", "regression"])
def test_nan_or_inf_predictions_raise(mode, task):
    """Once the arg-max of a NaN row was a class (accuracy 1.0)."""
    z, y, names = {"multiclass": (MC_Z, MC_Y, ["accuracy", "log_loss"]),
                   "binary": (BIN_Z, BIN_Y, ["f1", "roc_auc"]),
                   "regression": (REG_P[:, None], REG_Y, ["mse", "r2"])}[task]
    z = z.copy()
    z[2] = np.nan
    z[20] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        hf(names, z, y, mode, task=task, capacity=N)


@pytest.mark.parametrize("mode", MODES)
def test_multilabel_targets_outside_zero_one_raise(mode):
    """-100 in a multilabel target was read as a negative label."""
    y = ML_Y.copy()
    y[3, 1] = -100
    with pytest.raises(ValueError, match="not in \\[0, 1\\]"):
        hf(["f1", "accuracy"], ML_Z, y, mode, task="multilabel")


@pytest.mark.parametrize("mode", MODES)
def test_log_errors_of_values_below_minus_one_raise(mode):
    """msle of a prediction below -1 was inf; scikit-learn raises."""
    p = REG_P.copy()
    p[4] = -2.0
    with pytest.raises(ValueError, match="less than or equal to -1"):
        hf(["msle", "mse"], p[:, None], REG_Y, mode, task="regression")
    assert hf(["mse"], p[:, None], REG_Y, mode, task="regression")["mse"] == pytest.approx(
        skm.mean_squared_error(REG_Y, p))


def test_the_state_is_reset_after_an_error():
    cm = compute_metrics(["accuracy", "log_loss"])
    with pytest.raises(ValueError):
        cm(transformers.EvalPrediction(predictions=MC_Z, label_ids=BAD))
    got = cm(transformers.EvalPrediction(predictions=MC_Z, label_ids=MC_Y))
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(MC_Y, MC_Z.argmax(1)))


# -- shared code ----------------------------------------------------------------------------

def test_stream_collection_gives_r2s_one_sample_warning():
    col = ms.MetricCollection({"r2": ms.R2Score()})
    col.update(np.array([1.0]), np.array([1.5]))
    with pytest.warns(Warning, match="R\\^2 score is not well-defined"):
        col.compute()
