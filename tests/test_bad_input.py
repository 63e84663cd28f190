"""Bad input gives the right number or a clear error, on every backend.

Each case is a reproduction of a silent wrong number (or a leaked internal
error) on the one-shot functions: binned curves on logits, float predictions
read as labels, repeated ``labels``, true labels outside the declared ones
under ``validate=False``, narrow integer labels with wide declared ones, empty
and float16 probabilistic input.  The rules for unchecked input are the ones
``docs/validation.md`` states.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from metrix.backends import ops


def _host(xp, x):
    return np.asarray(xp.to_numpy(x), dtype=float) if not isinstance(x, (float, int)) else x


def _rtol(xp):
    return 1e-5 if xp.float_dtype == "float32" else 1e-12


# -- binned curves: scores outside [0, 1] --------------------------------------

Y = np.array([0, 1, 0, 1])
LOGITS = np.array([1.5, 3.0, -2.0, -1.0])


@pytest.mark.parametrize("curve", ["roc_curve", "precision_recall_curve", "det_curve"])
def test_binned_curve_refuses_scores_outside_unit_interval(xp, curve):
    fn = getattr(metrix, curve)
    with pytest.raises(ValueError, match=r"outside \[0, 1\].*sigmoid"):
        fn(xp.asarray(Y), xp.asarray(LOGITS), thresholds=11)
    with pytest.raises(ValueError, match="NaN"):
        fn(xp.asarray(Y), xp.asarray(np.array([0.1, np.nan, 0.3, 0.9])), thresholds=11)
    # probabilities pass, and so do logits with thresholds on their own scale
    fn(xp.asarray(Y), xp.asarray(np.array([0.0, 1.0, 0.2, 0.7])), thresholds=11)
    fn(xp.asarray(Y), xp.asarray(LOGITS), thresholds=xp.asarray(np.array([-2.0, 0.0, 2.0])))


def test_binned_curve_on_logits_with_their_thresholds_is_exact(xp):
    edges = xp.asarray(np.sort(LOGITS))
    fpr, tpr, _ = metrix.roc_curve(xp.asarray(Y), xp.asarray(LOGITS), thresholds=edges)
    np.testing.assert_allclose(float(metrix.auc(fpr, tpr)), skm.roc_auc_score(Y, LOGITS),
                               rtol=_rtol(xp))
    assert skm.roc_auc_score(Y, LOGITS) == 0.75


def test_binned_curve_unchecked_rule(xp):
    """validate=False: a score below the lowest threshold, or NaN, is below every
    threshold; one above the highest is at or above every threshold."""
    y = np.array([1, 1, 0, 1, 0, 0])
    s = np.array([-0.5, np.nan, 0.25, 1.5, 0.75, 0.5])
    thr = np.linspace(0.0, 1.0, 5)
    fpr, tpr, got_thr = metrix.roc_curve(xp.asarray(y), xp.asarray(s), thresholds=5,
                                         validate=False)
    low = np.where(np.isnan(s), -np.inf, s)
    tps = np.array([np.sum((low >= t) & (y == 1)) for t in thr[::-1]])
    fps = np.array([np.sum((low >= t) & (y == 0)) for t in thr[::-1]])
    np.testing.assert_allclose(_host(xp, tpr), np.r_[0, tps] / 3, rtol=_rtol(xp))
    np.testing.assert_allclose(_host(xp, fpr), np.r_[0, fps] / 3, rtol=_rtol(xp))
    assert np.isinf(_host(xp, got_thr)[0])


def test_binned_codes_put_nan_and_out_of_range_scores_in_the_end_bins(xp):
    o = ops(xp.xp)
    s = xp.asarray(np.array([-3.0, np.nan, 0.0, 0.5, 1.0, 7.0]))
    y = xp.asarray(np.array([0, 1, 0, 1, 0, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy: invalid value in cast
        codes = xp.to_numpy(o.binned_codes(s, y, n_thresholds=5))
        hist = xp.to_numpy(o.binned_histogram(xp.xp.zeros((2, 6), dtype=xp.xp.int64
                                                          if xp.float_dtype == "float64"
                                                          else xp.xp.int32,
                                                          device=xp.device), s, y,
                                              n_thresholds=5))
    # bins: below 0 -> 0, NaN -> 0, 0 -> 1, 0.5 -> 3, 1 -> 5, 7 -> 5; positives add T + 1
    np.testing.assert_array_equal(codes, [0, 6, 1, 9, 5, 11])
    np.testing.assert_array_equal(hist.reshape(-1), np.bincount(codes, minlength=12))


# -- float predictions read as labels -----------------------------------------

YT = np.array([0, 1, 2, 1])
YP_FLOAT = np.array([0.9, 1.2, 2.5, 1.0])


def test_float_predictions_raise_when_validated(xp):
    for fn, kw in ((metrix.accuracy_score, {}), (metrix.f1_score, {"average": "macro"}),
                   (metrix.confusion_matrix, {})):
        with pytest.raises(ValueError, match="mix of multiclass and continuous"):
            fn(xp.asarray(YT), xp.asarray(YP_FLOAT), **kw)


def test_float_predictions_unchecked_compare_as_values(xp):
    """validate=False: 0.9 is not label 0 (no truncation); every function agrees."""
    yt, yp = xp.asarray(YT), xp.asarray(YP_FLOAT)
    acc = metrix.accuracy_score(yt, yp, validate=False)
    micro = metrix.f1_score(yt, yp, average="micro", validate=False)
    declared = metrix.f1_score(yt, yp, labels=[0, 1, 2], average="micro", validate=False)
    cm = metrix.confusion_matrix(yt, yp, labels=[0, 1, 2], validate=False)
    assert float(acc) == pytest.approx(0.25)
    assert float(micro) == pytest.approx(0.25)
    # one hit (1 == 1.0); the predictions 0.9, 1.2, 2.5 are none of the labels:
    # micro precision 1/1, recall 1/4
    assert float(declared) == pytest.approx(0.4)
    np.testing.assert_array_equal(xp.to_numpy(cm), [[0, 0, 0], [0, 1, 0], [0, 0, 0]])


# -- repeated labels ----------------------------------------------------------

RT = np.array([0, 1, 2, 1, 0, 2, 2])
RP = np.array([0, 2, 2, 1, 0, 1, 2])
REPEATS = [[0, 1, 1, 2], [2, 0, 2], [0, 0, 1, 2, 2, 5], [2, 1, 0, 1]]


@pytest.mark.parametrize("labels", REPEATS, ids=str)
@pytest.mark.parametrize("metric,kw", [
    ("confusion_matrix", {}), ("multilabel_confusion_matrix", {}),
    ("cohen_kappa_score", {}), ("f1_score", {"average": "macro"}),
    ("f1_score", {"average": "micro"}), ("precision_score", {"average": "weighted"}),
    ("recall_score", {"average": None}), ("jaccard_score", {"average": "macro"}),
    ("jaccard_score", {"average": "micro"}),
])
def test_repeated_labels_match_sklearn(xp, labels, metric, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(skm, metric)(RT, RP, labels=labels, **kw)
        got = getattr(metrix, metric)(xp.asarray(RT), xp.asarray(RP), labels=labels, **kw)
    np.testing.assert_allclose(_host(xp, got), expected, rtol=_rtol(xp), atol=1e-7)


def test_repeated_labels_in_the_report_match_sklearn():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.classification_report(RT, RP, labels=[0, 1, 1, 2], output_dict=True)
        got = metrix.classification_report(RT, RP, labels=[0, 1, 1, 2], output_dict=True)
    assert got.keys() == expected.keys()
    for key, row in expected.items():
        if isinstance(row, dict):
            for k, v in row.items():
                assert got[key][k] == pytest.approx(v), (key, k)
        else:
            assert got[key] == pytest.approx(row), key


@pytest.mark.parametrize("fn", ["log_loss", "brier_score_loss", "d2_log_loss_score",
                                "d2_brier_score"])
def test_repeated_labels_raise_for_probabilities(xp, fn):
    p = np.random.default_rng(0).dirichlet(np.ones(3), RT.shape[0])
    with pytest.raises(ValueError, match="must be unique"):
        getattr(metrix, fn)(xp.asarray(RT), xp.asarray(p), labels=[0, 1, 1, 2])


# -- true labels outside the declared labels, unchecked -----------------------

OUT_Y = np.array([0, 1, 2, 1, 0, 3, 2, 1])
OUT_P = np.random.default_rng(3).dirichlet(np.ones(3), OUT_Y.shape[0])


@pytest.mark.parametrize("fn", ["log_loss", "brier_score_loss", "d2_log_loss_score",
                                "d2_brier_score"])
def test_label_outside_declared_labels_unchecked_gives_nan(xp, fn):
    got = getattr(metrix, fn)(xp.asarray(OUT_Y), xp.asarray(OUT_P), labels=[0, 1, 2],
                              validate=False)
    assert np.isnan(_host(xp, got))
    with pytest.raises(ValueError, match="not belonging to the passed labels"):
        getattr(metrix, fn)(xp.asarray(OUT_Y), xp.asarray(OUT_P), labels=[0, 1, 2])


def test_label_outside_declared_labels_unchecked_ranking(xp):
    """Top-k: never a hit; one-vs-rest AUC / AP: a negative of every class."""
    inside = OUT_Y < 3
    onehot = (OUT_Y[:, None] == np.arange(3)).astype(int)
    top2 = np.argsort(-OUT_P, axis=1, kind="stable")[:, :2]
    hits = inside & np.any(top2 == np.where(inside, OUT_Y, -1)[:, None], axis=1)
    cases = [
        (metrix.top_k_accuracy_score, {"k": 2}, hits.mean()),
        (metrix.roc_auc_score, {"multi_class": "ovr"}, skm.roc_auc_score(onehot, OUT_P)),
        (metrix.roc_auc_score, {"multi_class": "ovr", "average": "weighted"},
         skm.roc_auc_score(onehot, OUT_P, average="weighted")),
        (metrix.average_precision_score, {"average": "micro"},
         skm.average_precision_score(onehot, OUT_P, average="micro")),
    ]
    for fn, kw, expected in cases:
        got = fn(xp.asarray(OUT_Y), xp.asarray(OUT_P), labels=[0, 1, 2], validate=False, **kw)
        np.testing.assert_allclose(_host(xp, got), expected, rtol=1e-5, err_msg=str(kw))


def test_label_between_declared_labels_is_none_of_them(xp):
    """A value between two declared labels (1 among [0, 2, 4]) is not read as 2."""
    y = np.array([0, 2, 4, 1, 2, 0])
    p = np.eye(3)[[0, 1, 2, 1, 1, 0]]  # the row of the 1 puts its mass on label 2
    got = metrix.top_k_accuracy_score(xp.asarray(y), xp.asarray(p), k=1, labels=[0, 2, 4],
                                      validate=False)
    assert float(got) == pytest.approx(5 / 6)
    with pytest.raises(ValueError, match="labels not in parameter 'labels'"):
        metrix.top_k_accuracy_score(xp.asarray(y), xp.asarray(p), k=1, labels=[0, 2, 4])


def test_label_outside_declared_labels_unchecked_confusion_family(xp):
    """The confusion-matrix family counts it in an "other" bin: never a hit,
    absent from every declared class's counts."""
    yp = OUT_Y[::-1].copy()
    keep = (OUT_Y < 3) & (yp < 3)
    expected = skm.confusion_matrix(OUT_Y, yp, labels=[0, 1, 2])
    got = metrix.confusion_matrix(xp.asarray(OUT_Y), xp.asarray(yp), labels=[0, 1, 2],
                                  validate=False)
    np.testing.assert_array_equal(xp.to_numpy(got), expected)
    assert expected.sum() == keep.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f1 = metrix.f1_score(xp.asarray(OUT_Y), xp.asarray(yp), labels=[0, 1, 2],
                             average="macro", validate=False)
        expected_f1 = skm.f1_score(OUT_Y, yp, labels=[0, 1, 2], average="macro")
    np.testing.assert_allclose(_host(xp, f1), expected_f1, rtol=_rtol(xp))


# -- narrow integer labels, declared labels beyond their range -----------------

@pytest.mark.parametrize("labels", [[0, 1, 2, 200], [0, 1, 2, 3, 200, 300], [0, 1.5, 2],
                                    [0, 1, 1.5, 2, 3, 4]], ids=str)
def test_int8_labels_with_wider_declared_labels(labels):
    yt = np.array([0, 1, 2, 1, 0], dtype=np.int8)
    yp = np.array([0, 2, 2, 1, 0], dtype=np.int8)
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kw in (("f1_score", {"average": "macro"}), ("confusion_matrix", {}),
                         ("cohen_kappa_score", {})):
            expected = getattr(skm, name)(yt, yp, labels=labels, **kw)
            for conv in (np.asarray, torch.from_numpy):
                got = getattr(metrix, name)(conv(yt), conv(yp), labels=labels, **kw)
                got = got.numpy() if hasattr(got, "numpy") else got
                np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)


def test_mixed_width_integer_labels_are_not_narrowed():
    yt = np.array([0, 1, 2, 1, 0], dtype=np.int8)
    yp = np.array([0, 2, 2, 1, 300], dtype=np.int64)
    labels = [0, 1, 2, 3, 200, 300]
    np.testing.assert_array_equal(metrix.confusion_matrix(yt, yp, labels=labels),
                                  skm.confusion_matrix(yt, yp, labels=labels))


# -- probabilistic losses: empty and float16 input -----------------------------

@pytest.mark.parametrize("fn", ["log_loss", "brier_score_loss"])
@pytest.mark.parametrize("validate", [True, False])
def test_empty_probabilities_raise_sklearn_error(xp, fn, validate):
    kw = {} if validate else {"labels": [0, 1]}
    with pytest.raises(ValueError, match=r"0 sample\(s\) .* minimum of 1 is required"):
        getattr(metrix, fn)(xp.asarray(np.array([], dtype=np.int64)),
                            xp.asarray(np.array([], dtype=np.float64)), validate=validate,
                            **kw)


def test_float16_log_loss_matches_sklearn():
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(0)
    y = r.integers(0, 2, 1000)
    p = r.random(1000).astype(np.float16)
    p[:10], p[10:20] = 0, 1  # clipped at float16's eps, as scikit-learn clips
    y3 = r.integers(0, 3, 1000)
    p3 = r.dirichlet(np.ones(3), 1000).astype(np.float16)
    for yy, pp in ((y, p), (y3, p3)):
        expected = skm.log_loss(yy, pp)  # summed in float16 by scikit-learn
        for conv in (np.asarray, torch.from_numpy):
            got = float(metrix.log_loss(conv(yy), conv(pp)))
            assert got == pytest.approx(expected, rel=1e-3)


# -- all-zero sample weights -------------------------------------------------------

_ZW_Y, _ZW_P = np.array([0, 1, 1, 0, 2]), np.array([0, 1, 0, 0, 2])
_ZW_S = np.array([0.1, 0.8, 0.4, 0.3, 0.6])
_ZERO_WEIGHT_RAISES = [
    ("accuracy_score", (_ZW_Y, _ZW_P), {}), ("f1_score", (_ZW_Y, _ZW_P), {"average": "macro"}),
    ("precision_recall_fscore_support", (_ZW_Y, _ZW_P), {}),
    ("jaccard_score", (_ZW_Y, _ZW_P), {"average": "micro"}),
    ("matthews_corrcoef", (_ZW_Y, _ZW_P), {}), ("cohen_kappa_score", (_ZW_Y, _ZW_P), {}),
    ("balanced_accuracy_score", (_ZW_Y, _ZW_P), {}), ("confusion_matrix", (_ZW_Y, _ZW_P), {}),
    ("multilabel_confusion_matrix", (_ZW_Y, _ZW_P), {}), ("hamming_loss", (_ZW_Y, _ZW_P), {}),
    ("zero_one_loss", (_ZW_Y, _ZW_P), {}),
    ("class_likelihood_ratios", (_ZW_Y[:4], _ZW_P[:4]), {}),
    ("log_loss", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("brier_score_loss", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("roc_auc_score", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("average_precision_score", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("roc_curve", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("precision_recall_curve", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
    ("det_curve", (_ZW_Y[:4] % 2, _ZW_S[:4]), {}),
]


@pytest.mark.parametrize("name, args, kw", _ZERO_WEIGHT_RAISES,
                         ids=[c[0] for c in _ZERO_WEIGHT_RAISES])
def test_all_zero_weights_raise_as_sklearn(name, args, kw):
    """All-zero weights define no classification metric: scikit-learn 1.9 raises, and
    so does metrix when validating (it used to return 0, 1 or NaN, or crash)."""
    w = np.zeros(args[0].shape[0])
    msg = "Sample weights must contain at least one non-zero number"
    with pytest.raises(ValueError, match=msg):
        getattr(skm, name)(*args, sample_weight=w, **kw)
    with pytest.raises(ValueError, match=msg):
        getattr(metrix, name)(*args, sample_weight=w, **kw)
    # one non-zero weight is a metric
    w[1] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(metrix, name)(*args, sample_weight=w, **kw)


def test_all_zero_weights_unchecked_and_elsewhere_are_numbers():
    w = np.zeros(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # validate=False reads nothing: the undefined value, no error
        assert float(metrix.accuracy_score(_ZW_Y, _ZW_P, sample_weight=w,
                                           validate=False)) == 0.0
        # label ranking takes them, as scikit-learn does
        yl = np.array([[1, 0], [0, 1], [1, 1], [0, 1], [1, 0]])
        assert np.isnan(metrix.label_ranking_average_precision_score(
            yl, np.c_[_ZW_S, 1 - _ZW_S], sample_weight=w))
