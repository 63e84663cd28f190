"""``confusion_matrix_at_thresholds`` and ``metric_at_thresholds`` (scikit-learn 1.9):
values, dtypes, errors and every backend."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from metrix._core.namespace import device_of, get_namespace_and_device

rng = np.random.default_rng(18)
N = 60
Y = rng.integers(0, 2, N)
S = np.round(rng.random(N), 1)  # many ties
W = rng.random(N)
W[:6] = 0.0  # zero weights are dropped


def _sk_metric(func):
    """scikit-learn's own metric (the swapped suite may have replaced sklearn.metrics)."""
    return getattr(skm, func) if isinstance(func, str) else func


# -- confusion_matrix_at_thresholds -----------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
def test_confusion_matches_sklearn(weighted):
    w = W if weighted else None
    got = metrix.confusion_matrix_at_thresholds(Y, S, sample_weight=w)
    expected = skm.confusion_matrix_at_thresholds(Y, S, sample_weight=w)
    assert len(got) == 5
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-12)
    unchecked = metrix.confusion_matrix_at_thresholds(Y, S, sample_weight=w, validate=False)
    for g, e in zip(unchecked, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_confusion_docstring_example_and_dtypes():
    tns, fps, fns, tps, thr = metrix.confusion_matrix_at_thresholds(
        np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.1, 0.4, 0.35, 0.8]))
    np.testing.assert_array_equal(tns, [2, 1, 1, 0])
    np.testing.assert_array_equal(fps, [0, 1, 1, 2])
    np.testing.assert_array_equal(fns, [1, 1, 0, 0])
    np.testing.assert_array_equal(tps, [1, 1, 2, 2])
    np.testing.assert_array_equal(thr, [0.8, 0.4, 0.35, 0.1])
    # the thresholds are the scores: integer and float32 scores keep their dtype
    for score in (np.array([1, 2, 2]), np.array([1, 2, 2], dtype=np.float32)):
        got = metrix.confusion_matrix_at_thresholds([0, 1, 1], score)
        expected = skm.confusion_matrix_at_thresholds([0, 1, 1], score)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


def test_confusion_pos_label_and_errors():
    y = np.array(["a", "b", "b", "a", "c"])
    s = [0.1, 0.9, 0.3, 0.3, 0.5]
    for g, e in zip(metrix.confusion_matrix_at_thresholds(y, s, pos_label="b"),
                    skm.confusion_matrix_at_thresholds(y, s, pos_label="b")):
        np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError, match="multiclass format is not supported"):
        metrix.confusion_matrix_at_thresholds([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="y_true takes value in {'a', 'b'} and pos_label is not"):
        metrix.confusion_matrix_at_thresholds(["a", "b"], [0.0, 1.0])
    with pytest.raises(ValueError, match="multilabel-indicator format is not supported"):
        metrix.confusion_matrix_at_thresholds([[0, 1], [1, 1]], [[1, 2], [1, 1]])
    with pytest.raises(ValueError, match="Input.*contains NaN"):
        metrix.confusion_matrix_at_thresholds([0, 1], [0.1, np.nan])
    with pytest.raises(ValueError, match="at least one non-zero"):
        metrix.confusion_matrix_at_thresholds([0, 1], [0.1, 0.2], sample_weight=[0, 0])


def test_confusion_positional_pos_label_warns():
    with pytest.warns(FutureWarning, match="Pass pos_label=None as keyword args. From "
                                           "version 1.11"):
        got = metrix.confusion_matrix_at_thresholds([0, 1, 1, 0], [0.2, 0.1, 0.7, 0.7], None)
    expected = skm.confusion_matrix_at_thresholds([0, 1, 1, 0], [0.2, 0.1, 0.7, 0.7])
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metrix.confusion_matrix_at_thresholds([0, 1], [0.2, 0.1], pos_label=1)


def test_confusion_binned_thresholds():
    thr = np.array([0.0, 0.25, 0.5, 0.75])
    tns, fps, fns, tps, t = metrix.confusion_matrix_at_thresholds(Y, S, sample_weight=W,
                                                                  thresholds=thr)
    np.testing.assert_array_equal(t, thr[::-1])
    for i, ti in enumerate(t):
        pred = S >= ti
        np.testing.assert_allclose(tps[i], np.sum(W * (pred & (Y == 1))), rtol=1e-12)
        np.testing.assert_allclose(fps[i], np.sum(W * (pred & (Y == 0))), rtol=1e-12)
        np.testing.assert_allclose(fns[i], np.sum(W * (~pred & (Y == 1))), rtol=1e-12)
        np.testing.assert_allclose(tns[i], np.sum(W * (~pred & (Y == 0))), rtol=1e-12)
    assert metrix.confusion_matrix_at_thresholds(Y, S, thresholds=5)[4].shape == (5,)


def _same_place(out, like):
    xp_out, _ = get_namespace_and_device(out)
    xp_in, _ = get_namespace_and_device(like)
    assert xp_out is xp_in
    assert str(device_of(out)) == str(device_of(like))


def test_confusion_every_backend(xp):
    y, s, w = xp.asarray(Y), xp.asarray(S), xp.asarray(W)
    expected = skm.confusion_matrix_at_thresholds(Y, xp.to_numpy(s),
                                                  sample_weight=xp.to_numpy(w))
    got = metrix.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    rtol = 1e-12 if xp.float_dtype == "float64" else 1e-5
    for g, e in zip(got, expected):
        _same_place(g, s)
        np.testing.assert_allclose(xp.to_numpy(g), e, rtol=rtol)
    assert got[4].dtype == s.dtype
    # NumPy labels with another library's scores: results follow the scores
    mixed = metrix.confusion_matrix_at_thresholds(Y, s, sample_weight=W)
    for g, e in zip(mixed, expected):
        _same_place(g, s)
        np.testing.assert_allclose(xp.to_numpy(g), e, rtol=rtol)


def test_confusion_string_labels_with_backend_scores(xp):
    y = np.array(["a", "b", "a", "a"])
    s = np.array([0.5, 0.2, 0.7, 0.6])
    got = metrix.confusion_matrix_at_thresholds(y, xp.asarray(s), pos_label="a")
    for g, e in zip(got, skm.confusion_matrix_at_thresholds(y, s, pos_label="a")):
        np.testing.assert_allclose(xp.to_numpy(g), e, rtol=1e-6)


# -- metric_at_thresholds -----------------------------------------------------------

def _dummy_metric(y_true, y_pred, sample_weight=None):
    w = np.ones_like(y_pred) if sample_weight is None else sample_weight
    return (np.sum(y_pred * w), np.sum(y_true * w))


@pytest.mark.parametrize("func", ["accuracy_score", "precision_score", "roc_auc_score",
                                  _dummy_metric])
@pytest.mark.parametrize("weighted", [False, True])
def test_metric_matches_sklearn(func, weighted):
    w = np.array([1, 2, 1, 0, 2]) if weighted else None
    y = np.array([0, 0, 1, 1, 1])
    s = np.array([0.1, 0.6, 0.4, 0.9, 0.4])
    sk_func = _sk_metric(func)
    mx_func = getattr(metrix, func) if isinstance(func, str) else func
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, expected_thr = skm.metric_at_thresholds(y, s, sk_func, sample_weight=w)
        got, thr = metrix.metric_at_thresholds(y, s, mx_func, sample_weight=w)
    np.testing.assert_array_equal(thr, expected_thr)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_metric_docstring_example_params_and_confusion():
    y = np.array([0, 0, 1, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    values, thr = metrix.metric_at_thresholds(y, s, metrix.accuracy_score)
    np.testing.assert_allclose(values, [0.75, 0.5, 0.75, 0.5])
    np.testing.assert_allclose(thr, [0.8, 0.4, 0.35, 0.1])
    counts, _ = metrix.metric_at_thresholds(y, s, metrix.accuracy_score,
                                            metric_params={"normalize": False})
    np.testing.assert_allclose(counts, [3, 2, 3, 2])
    cm, thr_cm = metrix.metric_at_thresholds(y, s, metrix.confusion_matrix,
                                             metric_params={"labels": [0, 1]})
    tns, fps, fns, tps, thr_c = metrix.confusion_matrix_at_thresholds(y, s)
    np.testing.assert_array_equal(thr_cm, thr_c)
    assert cm.shape == (4, 2, 2)
    np.testing.assert_array_equal(cm[:, 0, 0], tns)
    np.testing.assert_array_equal(cm[:, 0, 1], fps)
    np.testing.assert_array_equal(cm[:, 1, 0], fns)
    np.testing.assert_array_equal(cm[:, 1, 1], tps)


def test_metric_receives_what_sklearn_passes():
    # stable descending sort, zero weights dropped, int32 predictions
    y = np.array([1, 0, 1, 1, 0, 0])
    s = np.array([0.6, 0.9, 0.1, 0.6, 0.6, 0.4])
    w = np.array([1.0, 2.0, 1.0, 0.0, 3.0, 1.0])
    seen = {"sk": [], "mx": []}

    def record(key):
        def metric(y_true, y_pred, sample_weight=None):
            seen[key].append((np.asarray(y_true).copy(), np.asarray(y_pred).copy(),
                              np.asarray(sample_weight).copy(), np.asarray(y_pred).dtype))
            return 0.0
        return metric

    skm.metric_at_thresholds(y, s, record("sk"), sample_weight=w)
    metrix.metric_at_thresholds(y, s, record("mx"), sample_weight=w)
    assert len(seen["sk"]) == len(seen["mx"]) == 4
    for a, b in zip(seen["sk"], seen["mx"]):
        for x, z in zip(a[:3], b[:3]):
            np.testing.assert_array_equal(x, z)
        assert a[3] == b[3] == np.int32


def test_metric_errors_and_nan():
    y = np.array([0, 0, 1, 1, 1])
    s = np.array([0.1, 0.4, 0.35, 0.6, 0.9])

    def no_weight(y_true, y_pred):
        return float(np.sum(y_pred))

    with pytest.raises(TypeError, match="got an unexpected keyword argument"):
        metrix.metric_at_thresholds(y, s, no_weight, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match="'metric_func' parameter of metric_at_thresholds "
                                         "must be a callable"):
        metrix.metric_at_thresholds(y, s, "accuracy")
    with pytest.raises(ValueError, match="'metric_params' parameter of metric_at_thresholds "
                                         "must be an instance of 'dict' or None"):
        metrix.metric_at_thresholds(y, s, metrix.accuracy_score, metric_params=[1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metrix.metric_at_thresholds(y[:2], s, metrix.accuracy_score)
    with pytest.raises(ValueError, match="Input.*contains NaN"):
        metrix.metric_at_thresholds(y, np.array([0.1, np.nan, 0.2, 0.3, 0.4]),
                                    metrix.accuracy_score)
    with pytest.raises(ValueError, match="Input.*contains NaN"):
        metrix.metric_at_thresholds(np.array([0, 1, np.nan, 1, 0]), s, metrix.accuracy_score)
    values, _ = metrix.metric_at_thresholds(np.zeros(5, dtype=int), s, metrix.recall_score,
                                            metric_params={"zero_division": np.nan})
    assert np.isnan(values).all()


def test_metric_every_backend(xp):
    y = np.array([0, 0, 1, 1, 1, 0, 1])
    s = np.array([0.1, 0.6, 0.4, 0.9, 0.4, 0.3, 0.6])
    w = np.array([1.0, 2.0, 1.0, 0.0, 2.0, 1.0, 3.0])
    sx, wx = xp.asarray(s), xp.asarray(w)
    expected, expected_thr = skm.metric_at_thresholds(y, s, skm.accuracy_score,
                                                      sample_weight=w)
    got, thr = metrix.metric_at_thresholds(xp.asarray(y), sx, metrix.accuracy_score,
                                           sample_weight=wx)
    _same_place(got, sx)
    _same_place(thr, sx)
    assert thr.dtype == sx.dtype
    np.testing.assert_allclose(xp.to_numpy(got), expected, rtol=1e-6)
    np.testing.assert_allclose(xp.to_numpy(thr), expected_thr, rtol=1e-6)
    # a metric returning a tuple of the library's 0-d arrays and Python numbers
    pair, _ = metrix.metric_at_thresholds(
        y, sx, lambda a, b: (metrix.accuracy_score(a, b), 1))
    _same_place(pair, sx)
    assert tuple(pair.shape) == (expected_thr.shape[0] + 1, 2)
    np.testing.assert_allclose(xp.to_numpy(pair)[:, 1], 1.0)
