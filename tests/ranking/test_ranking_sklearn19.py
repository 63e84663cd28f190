"""Ranking errors word for word as scikit-learn 1.9: bytes labels, 1-D coverage input,
one-vs-one weights, the labels present in a pos_label error, all-zero weights."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix

rng = np.random.default_rng(19)
Y_ML = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 0]])
S_ML = np.array([[0.2, 0.5, 0.1], [0.3, 0.2, 0.9], [0.4, 0.4, 0.1]])


def _sk_raises(func, *args, **kwargs):
    """The exception scikit-learn raises for this call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(skm, func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the reference's exception
            return exc
    raise AssertionError(f"scikit-learn's {func} did not raise")


def _matches(func, *args, **kwargs):
    """metrix raises scikit-learn's exception type with its exact message."""
    expected = _sk_raises(func, *args, **kwargs)
    with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
        getattr(metrix, func)(*args, **kwargs)


# -- bytes labels ------------------------------------------------------------------

@pytest.mark.parametrize("func", ["roc_curve", "precision_recall_curve", "det_curve",
                                  "confusion_matrix_at_thresholds"])
@pytest.mark.parametrize("container", [list, np.array,
                                       lambda v: np.array(v, dtype=object)])
def test_bytes_labels_type_error(func, container):
    labels = container([b"a", b"b"])
    with pytest.raises(TypeError, match="Support for labels represented as bytes is not "
                                        "supported. Convert the labels to a string or "
                                        "integer format."):
        getattr(metrix, func)(labels, [0.0, 1.0])


def test_bytes_labels_other_ranking_metrics():
    for func in ("roc_auc_score", "average_precision_score"):
        with pytest.raises(TypeError, match="labels represented as bytes"):
            getattr(metrix, func)([b"a", b"b", b"a"], [0.2, 0.8, 0.1])


# -- coverage_error needs 2-D input --------------------------------------------------

@pytest.mark.parametrize("y_true, y_score", [
    ([1, 0, 1], [0.25, 0.5, 0.5]),
    ([1, 0, 1], [[0.25, 0.5, 0.5]]),
    ([[1, 0, 1]], [0.25, 0.5, 0.5]),
    (np.array([0.0, 1.0]), np.array([0.5, 0.25])),
])
def test_coverage_1d_error_message(y_true, y_score):
    _matches("coverage_error", y_true, y_score)


def test_coverage_2d_still_works():
    np.testing.assert_allclose(metrix.coverage_error(Y_ML, S_ML),
                               skm.coverage_error(Y_ML, S_ML))


# -- roc_auc_score: one-vs-one with weights ------------------------------------------

@pytest.mark.parametrize("weights", ["empty", "ones", "short"])
def test_roc_auc_ovo_sample_weight_message(weights):
    y = rng.integers(0, 3, 20)
    p = rng.random((20, 3))
    p /= p.sum(axis=1, keepdims=True)
    w = {"empty": [], "ones": np.ones(20), "short": np.ones(3)}[weights]
    _matches("roc_auc_score", y, p, multi_class="ovo", sample_weight=w)


def test_roc_auc_ovo_weights_of_binary_target_count():
    # multi_class is ignored for a binary target: the weights are used and checked
    y = np.array([0, 1, 1, 0, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    np.testing.assert_allclose(
        metrix.roc_auc_score(y, s, multi_class="ovo", sample_weight=w),
        skm.roc_auc_score(y, s, multi_class="ovo", sample_weight=w), rtol=1e-12)
    _matches("roc_auc_score", y, s, multi_class="ovo", sample_weight=w[:2])


# -- pos_label errors print the labels as NumPy does -----------------------------------

@pytest.mark.parametrize("y_true", [
    np.array([0, 1]),
    np.array([0.0, 1.0]),
    np.array(["spam", "eggs", "spam"]),
    np.array(["spam", "eggs", "spam"], dtype=object),
])
def test_average_precision_pos_label_message(y_true):
    s = np.linspace(0.1, 0.9, y_true.shape[0])
    _matches("average_precision_score", y_true, s, pos_label=2)


def test_pos_label_message_text():
    with pytest.raises(ValueError, match=re.escape("It should be one of [0 1]")):
        metrix.average_precision_score(np.array([0, 1]), np.array([0, 1]), pos_label=2)
    y = np.array(["spam"] * 3 + ["eggs"] * 2)
    with pytest.raises(ValueError, match=re.escape("It should be one of ['eggs' 'spam']")):
        metrix.average_precision_score(y, rng.random(5))


# -- all-zero sample weights -----------------------------------------------------------

ZERO_DIVISION = [
    ("dcg_score", Y_ML, S_ML),
    ("ndcg_score", Y_ML, S_ML),
    ("coverage_error", Y_ML, S_ML),
    ("label_ranking_loss", Y_ML, S_ML),
    ("top_k_accuracy_score", np.array([0, 1, 2]), S_ML / S_ML.sum(axis=1, keepdims=True)),
]


@pytest.mark.parametrize("func, y, s", ZERO_DIVISION, ids=[c[0] for c in ZERO_DIVISION])
@pytest.mark.parametrize("weights", [[0.0, 0.0, 0.0], [1.0, -1.0, 0.0]])
def test_weights_summing_to_zero_raise(func, y, s, weights):
    _matches(func, y, s, sample_weight=np.array(weights))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unchecked = getattr(metrix, func)(y, s, sample_weight=np.array(weights),
                                          validate=False)
    assert not np.isfinite(unchecked)


def test_zero_weights_other_cases_unchanged():
    w = np.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # LRAP: scikit-learn's own division gives NaN
        assert np.isnan(metrix.label_ranking_average_precision_score(Y_ML, S_ML,
                                                                     sample_weight=w))
        # an unnormalized top-k count is a plain weighted sum
        y = np.array([0, 1, 2])
        p = S_ML / S_ML.sum(axis=1, keepdims=True)
        assert metrix.top_k_accuracy_score(y, p, sample_weight=w, normalize=False) == \
            skm.top_k_accuracy_score(y, p, sample_weight=w, normalize=False)


def test_zero_weights_every_backend(xp):
    w = xp.asarray(np.zeros(3))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero, can't be normalized"):
        metrix.dcg_score(xp.asarray(Y_ML), xp.asarray(S_ML), sample_weight=w)
