"""Bad input gives a clear error, never a silently wrong number."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrix

Y = np.array([0, 1, 2, 1, 0])


def test_inconsistent_lengths():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[5, 4\\]"):
        metrix.f1_score(Y, Y[:4], average="macro")


def test_mixed_target_types():
    with pytest.raises(ValueError, match="mix of multilabel-indicator and multiclass"):
        metrix.accuracy_score(np.eye(5, 3, dtype=int), Y)


def test_continuous_targets():
    with pytest.raises(ValueError, match="mix of multiclass and continuous"):
        metrix.accuracy_score(Y, Y + 0.5)
    with pytest.raises(ValueError, match="continuous is not supported"):
        metrix.accuracy_score(Y + 0.5, Y + 0.5)


def test_unknown_average():
    with pytest.raises(ValueError, match="average"):
        metrix.precision_score(Y, Y, average="mean")


def test_pos_label_not_present():
    yb = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="pos_label=2 is not a valid label"):
        metrix.f1_score(yb, yb, pos_label=2)


def test_binary_average_on_multiclass():
    with pytest.raises(ValueError, match="Target is multiclass but average='binary'"):
        metrix.f1_score(Y, Y)


def test_labels_with_no_overlap():
    with pytest.raises(ValueError, match="At least one label specified must be in y_true"):
        metrix.confusion_matrix(Y, Y, labels=[7, 8])


def test_nan_and_inf_in_float_labels():
    with pytest.raises(ValueError, match="Input y_true contains NaN"):
        metrix.accuracy_score(np.array([0.0, np.nan]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="Input y_pred contains infinity"):
        metrix.accuracy_score(np.array([0.0, 1.0]), np.array([0.0, np.inf]))


def test_string_labels_on_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="NumPy"):
        metrix.f1_score(np.array(["a", "b"]), torch.tensor([0, 1]))


def test_empty_input():
    with pytest.raises(ValueError, match="empty input"):
        metrix.accuracy_score(np.array([], dtype=int), np.array([], dtype=int))


def test_zero_division_value():
    with pytest.raises(ValueError, match="zero_division"):
        metrix.f1_score(Y, Y, average="macro", zero_division=0.5)


def test_sample_weight_shape():
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[5, 5, 3\]"):
        metrix.accuracy_score(Y, Y, sample_weight=np.ones(3))


def test_multiclass_multioutput():
    with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
        metrix.accuracy_score(np.full((3, 2), 2), np.full((3, 2), 2))


def test_validate_false_emits_no_warning():
    yt = np.array([0, 1, 1, 0])
    yp = np.zeros(4, dtype=int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert metrix.precision_score(yt, yp, labels=[0, 1], validate=False) == 0.0


def test_many_classes_never_allocate_c_squared():
    """100,000 classes: PRF takes memory of the order of C (tracemalloc sees
    NumPy's allocations), not a C x C matrix (80 GB)."""
    import tracemalloc

    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    c = 100_000
    yt = rng.integers(0, c, 50_000)
    yp = np.where(rng.random(50_000) < 0.5, yt, rng.integers(0, c, 50_000))
    metrix.f1_score(yt[:100], yp[:100], average="macro")  # imports outside the trace
    tracemalloc.start()
    try:
        got = metrix.f1_score(yt, yp, average="macro")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32_000_000, peak
    assert got == pytest.approx(f1_score(yt, yp, average="macro"), rel=1e-12)


def test_confusion_matrix_too_large_raises():
    c = 20_000  # 4e8 cells > limit
    yt = np.arange(c)
    with pytest.raises(ValueError, match="cells"):
        metrix.confusion_matrix(yt, yt)


def test_sparse_huge_label_range():
    """Labels {0, 10**12}: the range is far larger than the data -> unique path."""
    from sklearn.metrics import confusion_matrix, f1_score

    yt = np.array([0, 10**12, 10**12, 5])
    yp = np.array([0, 10**12, 5, 5])
    np.testing.assert_array_equal(metrix.confusion_matrix(yt, yp), confusion_matrix(yt, yp))
    assert metrix.f1_score(yt, yp, average="macro") == pytest.approx(
        f1_score(yt, yp, average="macro"))


def test_two_valued_labels_far_apart_are_binary():
    yt = np.array([-1, 1, 1, -1, 1])
    yp = np.array([-1, 1, -1, -1, 1])
    from sklearn.metrics import f1_score

    assert metrix.f1_score(yt, yp) == pytest.approx(f1_score(yt, yp))
