"""Streaming metrics under bad input: the right number or a clear error (issue 25).

Every rule is checked on each CPU backend (NumPy, array-api-strict and its
devices, torch, JAX): scores outside [0, 1] in the binned AUROC /
AveragePrecision, float labels given to label metrics, labels outside the
declared classes, true labels outside the classes of the log loss.  A
Hypothesis test streams random batches (empty ones, one-sample ones, logits,
out-of-range labels, NaN) and compares with the one-shot function on the
concatenation: equal, or both raise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrix
import metrix.stream as ms

LABEL_CLASSES = [ms.Accuracy, ms.Precision, ms.Recall, ms.F1Score, ms.FBetaScore,
                 ms.JaccardIndex, ms.MatthewsCorrCoef, ms.CohenKappa, ms.ConfusionMatrix,
                 ms.BalancedAccuracy, ms.HammingDistance, ms.ZeroOneLoss]


def close(got, want, combo=None, *, rtol=1e-9, atol=1e-12):
    if combo is not None and combo.float_dtype == "float32":
        rtol, atol = 2e-4, 2e-5
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=atol)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def value(xp, m):
    """``m.compute()`` as NumPy, after checking it stayed on the inputs' placement."""
    out = m.compute()
    xp.combo.check_placement(out)
    return xp.to_numpy(out) if not isinstance(out, (float, np.generic)) else out


def quantise(s, t):
    """The bin of each score among ``linspace(0, 1, t)``: the number of
    thresholds <= s, clipped to 0..t (a NaN score is in bin 0)."""
    s = np.where(np.isnan(s), -1.0, s)
    return np.clip(s * (t - 1) + 1.0, 0, t).astype(np.int64).astype(float)


# -- 1. binned AUC / AP: scores outside [0, 1] --------------------------------------

Y4, S4 = np.array([0, 1, 0, 1]), np.array([1.5, 3.0, -2.0, -1.0])


@pytest.mark.parametrize("cls", [ms.AUROC, ms.AveragePrecision])
def test_binned_validate_rejects_scores_outside_unit_interval(xp, cls):
    y, s = xp.asarray(Y4), xp.asarray(S4)
    m = cls(validate=True)
    with pytest.raises(ValueError, match=r"outside \[0, 1\].*expects probabilities") as err:
        m.update(y, s)
    for hint in ("sigmoid", "thresholds=", "capacity="):
        assert hint in str(err.value)
    for bad in (np.nan, np.inf, -np.inf):
        m = cls(validate=True)
        with pytest.raises(ValueError, match="NaN or infinity.*expects probabilities"):
            m.update(xp.asarray(np.array([0, 1])), xp.asarray(np.array([0.5, bad])))
    m = cls(num_classes=3, validate=True)
    with pytest.raises(ValueError, match="softmax"):
        m.update(xp.asarray(np.array([0, 1, 2])), xp.asarray(np.eye(3) * 2.0))
    # in range (0 and 1 included) is accepted, and the value is the exact one here
    m = cls(validate=True, thresholds=11)
    ok = np.array([0.0, 1.0, 0.2, 0.7])
    m.update(y, xp.asarray(ok))
    ref = skm.roc_auc_score if cls is ms.AUROC else skm.average_precision_score
    close(value(xp, m), ref(Y4, ok), xp.combo)


@pytest.mark.parametrize("cls", [ms.AUROC, ms.AveragePrecision])
def test_explicit_thresholds_and_exact_mode_take_any_finite_score(xp, cls):
    y, s = xp.asarray(Y4), xp.asarray(S4)
    ref = skm.roc_auc_score if cls is ms.AUROC else skm.average_precision_score
    thr = np.unique(S4)  # every distinct score is a threshold: the exact value
    m = cls(validate=True, thresholds=thr)
    m.update(y, s)
    close(value(xp, m), ref(Y4, S4), xp.combo)
    m = cls(validate=True, capacity=8)
    m.update(y, s)
    close(value(xp, m), ref(Y4, S4), xp.combo)
    for kw in ({"thresholds": thr}, {"capacity": 8}):
        with pytest.raises(ValueError, match="NaN or infinity"):
            cls(validate=True, **kw).update(xp.asarray(np.array([0, 1])),
                                            xp.asarray(np.array([0.5, np.nan])))


_RANKING_MODES = [{}, {"weighted": True}, {"validate": True}, {"thresholds": [0.2, 0.6]},
                  {"capacity": 8}, {"capacity": 8, "validate": True},
                  {"capacity": 8, "pos_label": 1}]


@pytest.mark.parametrize("kw", _RANKING_MODES, ids=repr)
@pytest.mark.parametrize("cls", [ms.AUROC, ms.AveragePrecision])
def test_ranking_batch_of_uneven_lengths_is_an_error(xp, cls, kw):
    # a batch whose targets and scores differ in length: scikit-learn's error on
    # every mode (the exact buffer once gave a number: the first field's rows
    # counted, the other's clipped into them), the in-place writes included
    for n_true, n_score in ((4, 3), (3, 4)):
        m = cls(**kw)
        m.update(xp.asarray(np.array([0, 1])), xp.asarray(np.array([0.3, 0.7])))  # owned
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            m.update(xp.asarray(np.array([0, 1, 1, 0])[:n_true]),
                     xp.asarray(np.array([0.1, 0.9, 0.3, 0.5])[:n_score]))
        close(value(xp, m), 1.0, xp.combo)  # nothing of the bad batch was kept
    if kw.get("capacity") and "pos_label" not in kw:  # two target columns, one score
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            cls(**kw).update(xp.asarray(np.array([[0, 1], [1, 0], [1, 1]])),
                             xp.asarray(np.array([0.1, 0.9, 0.3])))


_Y5, _P5 = np.array([0.5, 1.0, 2.0, 0.25, 3.0]), np.array([0.75, 1.0, 1.5, 0.5, 2.0])
_L5, _Q5 = np.array([0, 1, 1, 0, 1]), np.array([0.2, 0.7, 0.4, 0.1, 0.9])
_WEIGHTED = [(ms.MeanSquaredError, _Y5, _P5), (ms.MeanAbsoluteError, _Y5, _P5),
             (ms.R2Score, _Y5, _P5), (ms.ExplainedVariance, _Y5, _P5),
             (ms.MeanPinballLoss, _Y5, _P5), (ms.MeanTweedieDeviance, _Y5, _P5),
             (lambda: ms.MedianAbsoluteError(16), _Y5, _P5),
             (lambda: ms.D2PinballScore(16), _Y5, _P5),
             (ms.LogLoss, _L5, _Q5), (ms.BrierScore, _L5, _Q5), (ms.HingeLoss, _L5, _Q5 - 0.5)]


@pytest.mark.parametrize("make, y, p", _WEIGHTED, ids=lambda m: getattr(
    m, "__name__", "buffered") if callable(m) else "")
def test_weights_of_another_length_or_no_length_are_an_error(xp, make, y, p):
    # the one-shot functions' errors: a weight per row, nothing else.  The median's
    # buffer took the weights' length as the batch's (a row dropped); a 0-d weight
    # counted once in the sum of weights and n times in the weighted sums (5x MSE)
    y, p = xp.asarray(y), xp.asarray(p)
    for w in (np.ones(4), np.ones(6), np.ones((1, 5))):
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            make().update(y, p, sample_weight=xp.asarray(w))
    with pytest.raises(TypeError, match="0-d array"):
        make().update(y, p, sample_weight=xp.asarray(np.array(2.0)))
    m = make()
    m.update(y, p, sample_weight=xp.asarray(np.full(5, 2.0)))
    close(value(xp, m), value(xp, (lambda k: (k.update(y, p), k)[1])(make())), xp.combo)


_BIN6, _SCORE6 = np.array([0, 1, 1, 0, 1, 0]), np.array([0.1, 0.8, 0.4, 0.3, 0.9, 0.2])
_EVERY_SPEC = {  # one class of each state kind: (make, inputs)
    "label": (lambda: ms.Accuracy(2), (_BIN6, _BIN6[::-1].copy())),
    "label scores": (lambda: ms.F1Score(2), (_BIN6, _SCORE6)),
    "multilabel": (lambda: ms.F1Score(num_labels=2),
                   (np.stack([_BIN6, _BIN6[::-1]], 1), np.stack([_SCORE6, _SCORE6], 1))),
    "clustering": (lambda: ms.AdjustedRandScore(2), (_BIN6, _BIN6[::-1].copy())),
    "top-k": (lambda: ms.Accuracy(2, top_k=1), (_BIN6, np.stack([1 - _SCORE6, _SCORE6], 1))),
    "binned": (ms.AUROC, (_BIN6, _SCORE6)),
    "exact ranking": (lambda: ms.AUROC(capacity=16), (_BIN6, _SCORE6)),
    "spearman": (lambda: ms.SpearmanCorrCoef(16), (_SCORE6, _SCORE6[::-1].copy())),
    "pearson": (ms.PearsonCorrCoef, (_SCORE6, _SCORE6[::-1].copy())),
    "regression": (ms.MeanSquaredError, (_SCORE6, _SCORE6[::-1].copy())),
    "median": (lambda: ms.MedianAbsoluteError(16), (_SCORE6, _SCORE6[::-1].copy())),
    "log loss": (ms.LogLoss, (_BIN6, _SCORE6)),
    "hinge": (ms.HingeLoss, (_BIN6, _SCORE6 - 0.5)),
    "calibration": (ms.CalibrationError, (_BIN6, _SCORE6)),
    "retrieval": (lambda: ms.RetrievalMAP(16), (_BIN6, _SCORE6, np.array([0, 0, 0, 1, 1, 1]))),
    "mean": (ms.MeanMetric, (_SCORE6,)),
    "cat": (lambda: ms.CatMetric(16), (_SCORE6,)),
}


@pytest.mark.parametrize("spec", list(_EVERY_SPEC))
def test_complex_string_and_object_inputs_are_errors(spec):
    # the one-shot functions refuse complex data (scikit-learn's error) and the streams
    # count integer labels and real values: strings, objects and complex numbers were
    # taken (string labels gave accuracy 0.0; complex scores lost their imaginary part)
    make, inputs = _EVERY_SPEC[spec]
    for i in range(len(inputs)):
        for bad, err, what in ((inputs[i] + 0.5j, ValueError, "Complex data not supported"),
                               (inputs[i].astype(str), TypeError, "metrix.stream metrics take"),
                               (inputs[i].astype(object), TypeError, "has dtype object")):
            batch = list(inputs)
            batch[i] = bad
            with pytest.raises(err, match=what):
                make().update(*batch)
            if bad.dtype.kind == "c":  # torch tensors too (the in-place writers' route)
                m = make()
                m.update(*(torch_asarray(v) for v in inputs))
                with pytest.raises(err, match=what):
                    m.update(*(torch_asarray(v) for v in batch))


def torch_asarray(v):
    torch = pytest.importorskip("torch")
    return torch.asarray(v)


def test_issue_reproduction_values(xp):
    # validate=False reads nothing: the binning ties 1.5 and 3 (top bin) and -2
    # and -1 (bin 0, below every threshold): AUC 0.5, AP 0.5 (scikit-learn on
    # the logits: 0.75, 0.833); explicit edges give the exact values
    y, s = xp.asarray(Y4), xp.asarray(S4)
    for cls, ref in ((ms.AUROC, skm.roc_auc_score),
                     (ms.AveragePrecision, skm.average_precision_score)):
        m = cls()
        m.update(y, s)
        close(value(xp, m), ref(Y4, np.clip(S4, -1, 1)), xp.combo)
        close(value(xp, m), 0.5, xp.combo)
        m = cls(thresholds=[-2.0, -1.0, 1.5, 3.0])
        m.update(y, s)
        close(value(xp, m), ref(Y4, S4), xp.combo)
    assert abs(skm.average_precision_score(Y4, S4) - 0.8333) < 1e-3


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_binned_validate_false_bins_logits_the_documented_way(xp, task):
    rng = np.random.default_rng(11)
    n, t = 60, 11
    # logits away from the bin edges (s * 10 never an integer): float32 bins as float64
    if task == "binary":
        y, s, kw = rng.integers(0, 2, n), rng.normal(0.5, 1, n).round(2) + 0.003, {}
        y[:2] = [0, 1]
    elif task == "multiclass":
        y, s, kw = rng.integers(0, 3, n), rng.normal(0.5, 1, (n, 3)).round(2) + 0.003, \
            {"num_classes": 3}
        y[:3] = [0, 1, 2]
    else:
        y, s, kw = rng.integers(0, 2, (n, 3)), rng.normal(0.5, 1, (n, 3)).round(2) + 0.003, \
            {"num_labels": 3}
        y[0], y[1] = 1, 0
    s.flat[:4] = [np.inf, -np.inf, 7.0, -7.0]
    y_ref = (y[:, None] == np.arange(3)).astype(int) if task == "multiclass" else y
    for cls, ref in ((ms.AUROC, skm.roc_auc_score),
                     (ms.AveragePrecision, skm.average_precision_score)):
        m = cls(thresholds=t, **kw)
        m.update(xp.asarray(y[:30]), xp.asarray(s[:30]))
        m.update(xp.asarray(y[30:]), xp.asarray(s[30:]))
        close(value(xp, m), ref(y_ref, quantise(s, t)), xp.combo)
        # the same as scikit-learn on the scores clipped to [-1, 1] first
        close(value(xp, m), ref(y_ref, quantise(np.clip(s, -1, 1), t)), xp.combo)


@pytest.mark.parametrize("cls", [ms.AUROC, ms.AveragePrecision])
def test_binned_nan_score_is_in_the_lowest_bin(xp, cls):
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.2, np.nan, 0.9, 0.6, 0.3, np.nan])
    ref = skm.roc_auc_score if cls is ms.AUROC else skm.average_precision_score
    # explicit thresholds: searchsorted in metrix.stream (NaN sorts last there)
    thr = [0.1, 0.25, 0.5, 0.75]
    m = cls(thresholds=thr)
    m.update(xp.asarray(y), xp.asarray(s))
    bins = np.searchsorted(thr, np.where(np.isnan(s), -np.inf, s), side="right")
    close(value(xp, m), ref(y, bins), xp.combo)
    # thresholds=T: the backends' binned_codes (and their fused histogram kernels)
    for kw in ({}, {"weighted": True}):
        m = cls(thresholds=11, **kw)
        m.update(xp.asarray(y[:3]), xp.asarray(s[:3]))
        m.update(xp.asarray(y[3:]), xp.asarray(s[3:]))
        close(value(xp, m), ref(y, quantise(s, 11)), xp.combo)
    m = cls(num_classes=2, thresholds=11)
    s2 = np.stack([1 - s, s], axis=1)
    m.update(xp.asarray(y), xp.asarray(s2))
    onehot = (y[:, None] == np.arange(2)).astype(int)
    close(value(xp, m), ref(onehot, quantise(s2, 11)), xp.combo)


@pytest.mark.parametrize("cls", [ms.AUROC, ms.AveragePrecision])
def test_explicit_thresholds_on_logits_equal_the_exact_value(xp, cls):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 66)
    s = rng.permutation(np.repeat(np.linspace(-6, 6, 11), 6))  # logits with ties
    ref = skm.roc_auc_score if cls is ms.AUROC else skm.average_precision_score
    m = cls(thresholds=np.unique(s), validate=True)
    for i in range(0, 66, 33):
        m.update(xp.asarray(y[i:i + 33]), xp.asarray(s[i:i + 33]))
    close(value(xp, m), ref(y, s), xp.combo)
    m = cls(thresholds=np.unique(s))  # validate=False: the same
    m.update(xp.asarray(y), xp.asarray(s))
    close(value(xp, m), ref(y, s), xp.combo)


# -- 2. float labels ------------------------------------------------------------------

YT = np.array([0, 1, 2, 1, 0, 2])
YP_FLOAT = np.array([0.9, 1.2, 2.5, 1.0, -0.5, 2.0])


@pytest.mark.parametrize("cls", LABEL_CLASSES)
def test_validate_rejects_non_integral_float_labels(xp, cls):
    with pytest.raises(ValueError) as one_shot:
        metrix.accuracy_score(xp.asarray(YT), xp.asarray(YP_FLOAT), validate=True)
    m = cls(3, validate=True)
    with pytest.raises(ValueError, match="mix of multiclass and continuous") as err:
        m.update(xp.asarray(YT), xp.asarray(YP_FLOAT))
    assert str(err.value) == str(one_shot.value)
    with pytest.raises(ValueError, match="continuous"):
        cls(3, validate=True).update(xp.asarray(YP_FLOAT), xp.asarray(YT))
    with pytest.raises(ValueError, match="NaN"):
        cls(3, validate=True).update(xp.asarray(YT), xp.asarray(np.r_[YP_FLOAT[:-1], np.nan]))


@pytest.mark.parametrize("cls", LABEL_CLASSES)
def test_integral_float_labels_are_labels(xp, cls):
    # scikit-learn and metrix.accuracy_score(validate=True) accept [0., 1., 2.]
    yp = np.array([0, 2, 2, 1, 0, 1])
    m_f, m_i = cls(3, validate=True), cls(3, validate=True)
    m_f.update(xp.asarray(YT.astype(float)), xp.asarray(yp.astype(float)))
    m_i.update(xp.asarray(YT), xp.asarray(yp))
    close(value(xp, m_f), value(xp, m_i), xp.combo)
    if cls is ms.Accuracy:
        close(value(xp, m_f), metrix.accuracy_score(YT.astype(float), yp.astype(float),
                                                    validate=True), xp.combo)


@pytest.mark.parametrize("cls", LABEL_CLASSES)
def test_validate_false_float_labels_compare_as_values(xp, cls):
    # the one-shot rule with validate=False: a float label is class i when it
    # equals i; 0.9, 2.5, NaN, inf are none of the classes ("other" bins)
    yp = np.r_[YP_FLOAT, np.nan, 7.0, -3.2, np.inf]
    yt = np.r_[YT, 1, 2, 0, 1]
    codes = np.array([-1, -1, -1, 1, -1, 2, -1, 7, -1, 5])
    got = cls(3)
    got.update(xp.asarray(yt[:4]), xp.asarray(yp[:4]))
    got.update(xp.asarray(yt[4:]), xp.asarray(yp[4:]))
    want = cls(3)
    want.update(yt, codes)
    close(value(xp, got), want.compute(), xp.combo)
    got = cls(3)  # float y_true too
    got.update(xp.asarray(yp[:6]), xp.asarray(yt[:6].astype(float)))
    want = cls(3)
    want.update(codes[:6], yt[:6])
    close(value(xp, got), want.compute(), xp.combo)


def _one_shot_labels(name, yt, yp, c, validate):
    """The one-shot function a label stream equals, on ``labels=range(c)``."""
    labels = list(range(c))
    if name == "accuracy":
        return metrix.accuracy_score(yt, yp, validate=validate)
    if name == "confusion":
        return metrix.confusion_matrix(yt, yp, labels=labels, validate=validate)
    if name == "kappa":
        return metrix.cohen_kappa_score(yt, yp, labels=labels, validate=validate)
    fn = {"precision": metrix.precision_score, "recall": metrix.recall_score,
          "f1": metrix.f1_score, "jaccard": metrix.jaccard_score}[name]
    return quiet(fn, yt, yp, labels=labels, average="macro", validate=validate,
                 zero_division=0)


ONE_SHOT_STREAMS = {"accuracy": ms.Accuracy, "confusion": ms.ConfusionMatrix,
                    "kappa": ms.CohenKappa, "precision": ms.Precision, "recall": ms.Recall,
                    "f1": ms.F1Score, "jaccard": ms.JaccardIndex}


@pytest.mark.parametrize("name", sorted(ONE_SHOT_STREAMS))
def test_validate_false_float_labels_equal_the_one_shot_functions(xp, name):
    yt = np.r_[YT, 1, 2]
    for yp in (np.r_[YP_FLOAT, 2.0, 1.0], np.r_[YP_FLOAT, 2.0, np.nan]):
        m = ONE_SHOT_STREAMS[name](3, **({"zero_division": 0} if name in (
            "precision", "recall", "f1", "jaccard") else {}))
        m.update(xp.asarray(yt[:3]), xp.asarray(yp[:3]))
        m.update(xp.asarray(yt[3:]), xp.asarray(yp[3:]))
        want = _one_shot_labels(name, xp.asarray(yt), xp.asarray(yp), 3, False)
        close(value(xp, m), want if isinstance(want, float) else xp.to_numpy(want),
              xp.combo)


# -- 3. labels outside 0..C-1 -----------------------------------------------------------

YT_OUT = np.array([0, 1, 2, 3, -1, 1, 2, 0, 7, 2, 1, -100])
YP_OUT = np.array([0, 2, 2, 1, 0, 5, -1, 0, 7, 2, 1, 1])


def _in_range(y, c):
    return (y >= 0) & (y < c)


def _label_reference(cls, yt, yp, c):
    """The documented "other" bin rule, from the one-shot functions on NumPy."""
    labels = list(range(c))
    both = _in_range(yt, c) & _in_range(yp, c)
    if cls in (ms.Accuracy, ms.HammingDistance, ms.ZeroOneLoss):
        acc = np.mean((yt == yp) & both)  # an "other" label is an error
        return acc if cls is ms.Accuracy else 1 - acc
    if cls in (ms.Precision, ms.Recall, ms.F1Score, ms.FBetaScore):
        fn = {ms.Precision: metrix.precision_score, ms.Recall: metrix.recall_score,
              ms.F1Score: metrix.f1_score}.get(cls)
        if cls is ms.FBetaScore:
            return quiet(metrix.fbeta_score, yt, yp, beta=1.0, labels=labels, average="macro")
        return quiet(fn, yt, yp, labels=labels, average="macro")
    if cls is ms.JaccardIndex:
        return quiet(skm.jaccard_score, yt, yp, labels=labels, average="macro",
                     zero_division=0)
    if cls is ms.CohenKappa:
        return skm.cohen_kappa_score(yt, yp, labels=labels)
    if cls is ms.ConfusionMatrix:
        return skm.confusion_matrix(yt, yp, labels=labels)
    # MCC and balanced accuracy read the classes' block: the in-range pairs
    if cls is ms.MatthewsCorrCoef:
        return skm.matthews_corrcoef(yt[both], yp[both])
    return quiet(skm.balanced_accuracy_score, yt[both], yp[both])


@pytest.mark.parametrize("cls", LABEL_CLASSES)
def test_out_of_range_labels_go_to_the_other_bins_on_every_backend(xp, cls):
    want = _label_reference(cls, YT_OUT, YP_OUT, 3)
    for weighted in (False, True):
        m = cls(3, weighted=weighted)
        w = None if not weighted else xp.asarray(np.ones(5))
        m.update(xp.asarray(YT_OUT[:5]), xp.asarray(YP_OUT[:5]), sample_weight=w)
        m.update(xp.asarray(YT_OUT[5:]), xp.asarray(YP_OUT[5:]),
                 sample_weight=None if not weighted else xp.asarray(np.ones(7)))
        close(value(xp, m), want, xp.combo)
    with pytest.raises(ValueError, match=r"in \[0, 3\)"):
        cls(3, validate=True).update(xp.asarray(YT_OUT), xp.asarray(YP_OUT))


def test_log_loss_true_label_outside_the_classes(xp):
    p = np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6], [.3, .4, .3], [.5, .25, .25],
                  [.1, .1, .8]])
    y = np.array([0, 1, 2, 1, 0, 2])
    m = ms.LogLoss(3)
    m.update(xp.asarray(y[:2]), xp.asarray(p[:2]))
    m.update(xp.asarray(y[2:]), xp.asarray(p[2:]))
    close(value(xp, m), skm.log_loss(y, p, labels=[0, 1, 2]), xp.combo)
    for bad in (3, -1):
        yb = np.r_[y[:-1], bad]
        one_shot = metrix.log_loss(xp.asarray(yb), xp.asarray(p), labels=[0, 1, 2],
                                   validate=False)
        assert np.isnan(float(xp.to_numpy(one_shot)))
        m = ms.LogLoss(3)  # validate=False: NaN, as the one-shot function
        m.update(xp.asarray(yb[:3]), xp.asarray(p[:3]))
        m.update(xp.asarray(yb[3:]), xp.asarray(p[3:]))
        assert np.isnan(float(value(xp, m)))
        with pytest.raises(ValueError, match="not belonging to the passed labels") as one:
            metrix.log_loss(xp.asarray(yb), xp.asarray(p), labels=[0, 1, 2])
        with pytest.raises(ValueError, match="not belonging to the passed labels") as err:
            ms.LogLoss(3, validate=True).update(xp.asarray(yb), xp.asarray(p))
        assert str(err.value) == str(one.value)
    for yf in (np.array([0.0, 1.0, 1.5]), np.array([0.0, 1.0, np.nan])):  # float y_true
        m = ms.LogLoss()
        m.update(xp.asarray(yf), xp.asarray(np.array([0.2, 0.7, 0.6])))
        assert np.isnan(float(value(xp, m)))
    m = ms.LogLoss()  # binary: integral floats are the labels
    m.update(xp.asarray(np.array([0.0, 1.0, 1.0])), xp.asarray(np.array([0.2, 0.7, 0.6])))
    close(value(xp, m), skm.log_loss([0, 1, 1], [0.2, 0.7, 0.6]), xp.combo)
    with pytest.raises(ValueError, match="y_proba must have shape"):
        ms.LogLoss(3).update(xp.asarray(y), xp.asarray(p[:, :2]))


def test_log_loss_validate_checks_probabilities():
    with pytest.raises(ValueError, match="NaN"):
        ms.LogLoss(validate=True).update(np.array([0, 1]), np.array([0.2, np.nan]))
    with pytest.raises(ValueError, match="greater than 1"):
        ms.LogLoss(validate=True).update(np.array([0, 1]), np.array([0.2, 1.3]))
    m = ms.LogLoss(validate=True)
    m.update(np.array([0, 1]), np.array([0.2, 0.6]))
    m.update(np.array([], dtype=np.int64), np.array([]))  # an empty batch is fine
    close(m.compute(), skm.log_loss([0, 1], [0.2, 0.6]))


# -- 5. random batches: streamed == one-shot, or both raise -----------------------------

def _split(draw, n):
    """Batch boundaries with empty and one-sample batches likely."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    if n and draw(st.booleans()):
        i = draw(st.integers(0, n - 1))
        cuts = sorted(cuts + [i, i, i + 1])  # an empty batch and a one-sample batch
    return [0, *cuts, n]


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", np.asarray(fn(), dtype=float)
    except ValueError as exc:
        return "raise", exc


def _streamed(metric, edges, conv, *arrays):
    def run():
        for a, b in zip(edges[:-1], edges[1:]):
            metric.update(*(conv(x[a:b]) for x in arrays))
        out = metric.compute()
        return np.asarray(out.detach() if hasattr(out, "detach") else out, dtype=float)
    return run


def _same(stream_out, want_out, ctx):
    assert stream_out[0] == want_out[0], (ctx, stream_out, want_out)
    if stream_out[0] == "ok":
        close(stream_out[1], want_out[1])


def _converter(lib):
    if lib == "torch":
        torch = pytest.importorskip("torch")
        return torch.asarray
    return np.asarray


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_label_batches_streamed_equal_one_shot(data):
    draw = data.draw
    c = draw(st.integers(2, 4))
    n = draw(st.integers(0, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    validate = draw(st.booleans())
    low, high = (-1, c + 1) if draw(st.booleans()) else (0, c)  # out of range or not
    yt = rng.integers(low, high, n)
    yp = np.where(rng.random(n) < 0.5, yt, rng.integers(low, high, n))
    form = draw(st.sampled_from(["int", "integral", "float", "nan"]))
    if form != "int":
        yp = yp.astype(float)
        if form in ("float", "nan") and n:
            yp = yp + np.where(rng.random(n) < 0.3, 0.5, 0.0)
        if form == "nan" and n:
            yp[rng.integers(0, n)] = np.nan
    edges = _split(draw, n)
    conv = _converter(draw(st.sampled_from(["numpy", "torch"])))
    average = draw(st.sampled_from(["macro", "micro", "weighted"]))
    labels = list(range(c))
    # a label that is none of the classes (out of range, 0.5, NaN): "other"
    other = bool(np.any(~np.isin(yt, labels)) or np.any(~np.isin(yp, labels)))
    cases = [(ms.F1Score(c, average=average, validate=validate, threshold=None),
              lambda: metrix.f1_score(yt, yp, labels=labels, average=average,
                                      validate=validate)),
             (ms.Recall(c, average=average, validate=validate, threshold=None),
              lambda: metrix.recall_score(yt, yp, labels=labels, average=average,
                                          validate=validate)),
             (ms.ConfusionMatrix(c, validate=validate, threshold=None),
              lambda: metrix.confusion_matrix(yt, yp, labels=labels, validate=validate)),
             (ms.Accuracy(c, validate=validate, threshold=None),
              # accuracy counts an "other" label as an error (the one-shot
              # function has no labels=: it would count 5 == 5 as a hit)
              lambda: metrix.accuracy_score(yt, yp, validate=validate) if not other
              else np.mean((yt == yp) & np.isin(yt, labels)))]
    for metric, one_shot in cases:
        got = _outcome(_streamed(metric, edges, conv, yt, yp))
        if n == 0:  # no data: the stream raises, as the one-shot does
            assert got[0] == "raise" and _outcome(one_shot)[0] == "raise"
            continue
        want = _outcome(one_shot)
        if validate and other and want[0] == "ok":
            # the stream declares its classes: with validate=True a label
            # outside them raises (the one-shot labels= only selects classes)
            want = ("raise", None)
        _same(got, want, (metric, form, validate, edges))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_ranking_batches_streamed_equal_one_shot(data):
    draw = data.draw
    n = draw(st.integers(2, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    validate = draw(st.booleans())
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    kind = draw(st.sampled_from(["proba", "logit"]))
    s = rng.random(n) if kind == "proba" else rng.normal(0, 3, n)
    s = s.round(2) + 0.003  # ties, and no score on a bin edge
    mode = draw(st.sampled_from(["binned", "edges", "exact"]))
    if (validate or mode != "exact") and draw(st.booleans()):
        s[rng.integers(0, n)] = np.nan  # validate=False: binned in bin 0
    if validate and draw(st.booleans()):
        y[rng.integers(0, n)] = 2  # not a binary target
    edges = _split(draw, n)
    conv = _converter(draw(st.sampled_from(["numpy", "torch"])))
    thr = np.unique(np.r_[np.linspace(-4, 4, 9), 0.5])
    for cls, fn in ((ms.AUROC, metrix.roc_auc_score),
                    (ms.AveragePrecision, metrix.average_precision_score)):
        if mode == "binned":
            metric = cls(thresholds=11, validate=validate)
            ref_s = quantise(s, 11)
        elif mode == "edges":
            metric = cls(thresholds=thr, validate=validate)
            ref_s = np.searchsorted(thr, np.where(np.isnan(s), -np.inf, s),
                                    side="right").astype(float)
        else:
            metric = cls(capacity=n, validate=validate)
            ref_s = s
        got = _outcome(_streamed(metric, edges, conv, y, s))
        if validate and np.isnan(s).any():
            ref_s = s  # both must raise on the NaN
        want = _outcome(lambda: fn(y, ref_s, validate=validate))
        if validate and mode == "binned" and want[0] == "ok" and (
                (s < 0) | (s > 1)).any():
            want = ("raise", None)  # thresholds=T takes probabilities only
        if validate and want[0] == "ok" and not np.isin(y, [0, 1]).all():
            want = ("raise", None)  # binary streams declare 0/1 targets ({0, 2} is binary
            # to the one-shot function, with pos_label 2)
        _same(got, want, (cls, mode, kind, validate, edges))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_log_loss_batches_streamed_equal_one_shot(data):
    draw = data.draw
    c = draw(st.sampled_from([None, 3]))
    k = c or 2
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    validate = draw(st.booleans())
    y = rng.integers(-1, k + 1, n) if draw(st.booleans()) else rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n)
    p = p if c else p[:, 1]
    if validate and draw(st.booleans()):
        p = p.copy()
        p.reshape(-1)[rng.integers(0, p.size)] = np.nan
    edges = _split(draw, n)
    conv = _converter(draw(st.sampled_from(["numpy", "torch"])))
    got = _outcome(_streamed(ms.LogLoss(c, validate=validate), edges, conv, y, p))
    want = _outcome(lambda: metrix.log_loss(y, p, labels=list(range(k)), validate=validate))
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        if np.isnan(want[1]):
            assert np.isnan(got[1])
        else:
            close(got[1], want[1])


# -- binary probabilities ----------------------------------------------------------

_BINARY = [(ms.F1Score, skm.f1_score, {"average": "binary"}),
           (ms.Precision, skm.precision_score, {"average": "macro"}),
           (ms.Recall, skm.recall_score, {"average": "binary"}),
           (ms.Accuracy, skm.accuracy_score, {}),
           (ms.MatthewsCorrCoef, skm.matthews_corrcoef, {}),
           (ms.BalancedAccuracy, skm.balanced_accuracy_score, {})]


@pytest.mark.parametrize("cls, fn, kw", _BINARY, ids=[c[0].__name__ for c in _BINARY])
@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_binary_probabilities_are_thresholded(cls, fn, kw, backend, threshold):
    """A float (n,) / (n, 1) y_pred with num_classes=2 holds probabilities of class 1
    (as TorchMetrics and Keras read it), not float labels that are neither class."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    p = np.clip(0.35 * y + 0.65 * rng.random(300), 0, 1).astype(np.float32)
    yy, pp = y, p
    if backend == "torch":
        torch = pytest.importorskip("torch")
        yy, pp = torch.asarray(y), torch.asarray(p)
    m = cls(2, threshold=threshold, **kw)
    m.update(yy[:100], pp[:100])
    m.update(yy[100:], pp[100:, None] if backend == "numpy" else pp[100:].reshape(-1, 1))
    want = fn(y, (p > threshold).astype(int), **kw)
    np.testing.assert_allclose(float(m.compute()), want, rtol=1e-12)


def test_binary_probabilities_edge_cases():
    y = np.array([1, 0, 1, 0])
    # float labels 0.0 / 1.0 give the same classes under the threshold
    m = ms.Accuracy(2)
    m.update(y, y.astype(float))
    assert float(m.compute()) == 1.0
    # a NaN score is no class (an error for accuracy), as a NaN float label
    m = ms.Accuracy(2)
    m.update(y, np.array([np.nan, 0.2, 0.9, 0.1]))
    assert float(m.compute()) == 0.75
    # threshold=None: float labels, a probability is neither class
    m = ms.Accuracy(2, threshold=None)
    m.update(y, np.array([0.9, 0.2, 0.9, 0.1]))
    assert float(m.compute()) == 0.0
    # validate=True: probabilities outside [0, 1] (logits) raise
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        ms.F1Score(2, average="binary", validate=True).update(y, np.array([2.0, -1.0, 3, -2]))
    ms.F1Score(2, average="binary", validate=True, threshold=0.0).update(
        y, np.array([2.0, -1.0, 3, -2]))  # logits with a threshold on their scale
    # more than two classes: floats stay labels
    m = ms.Accuracy(3)
    m.update(np.array([0, 1, 2]), np.array([0.0, 1.0, 2.0]))
    assert float(m.compute()) == 1.0


def test_collection_keeps_thresholds_apart():
    y = np.array([1, 0, 1, 0, 1])
    p = np.array([0.4, 0.2, 0.9, 0.35, 0.6])
    coll = ms.MetricCollection({"low": ms.Recall(2, average="binary", threshold=0.3),
                                "high": ms.Recall(2, average="binary", threshold=0.5)})
    coll.update(y, p)
    out = coll.compute()
    assert float(out["low"]) == skm.recall_score(y, p > 0.3)
    assert float(out["high"]) == skm.recall_score(y, p > 0.5)


# -- ignore_index ------------------------------------------------------------------

_IGNORED = [(ms.F1Score, skm.f1_score, {"average": "macro"}),
            (ms.Precision, skm.precision_score, {"average": "weighted"}),
            (ms.Recall, skm.recall_score, {"average": None}),
            (ms.Accuracy, skm.accuracy_score, {}),
            (ms.HammingDistance, skm.hamming_loss, {}),
            (ms.JaccardIndex, skm.jaccard_score, {"average": "micro"}),
            (ms.MatthewsCorrCoef, skm.matthews_corrcoef, {}),
            (ms.CohenKappa, skm.cohen_kappa_score, {}),
            (ms.BalancedAccuracy, skm.balanced_accuracy_score, {}),
            (ms.ConfusionMatrix, skm.confusion_matrix, {})]


@pytest.mark.parametrize("cls, fn, kw", _IGNORED, ids=[c[0].__name__ for c in _IGNORED])
@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("validate", [False, True])
def test_ignore_index_leaves_samples_out(cls, fn, kw, backend, validate):
    """Samples whose true label is ignore_index count for nothing (TorchMetrics'
    meaning), whatever their prediction: equal to scikit-learn on the other samples."""
    c = 4
    rng = np.random.default_rng(3)
    y = rng.integers(0, c, 400)
    p = rng.dirichlet(np.ones(c), 400)  # scores: arg-maxed
    pred = np.where(rng.random(400) < 0.6, y, p.argmax(1))
    p[np.arange(400), pred] += 1.0
    y[rng.random(400) < 0.25] = -100
    keep = y != -100
    yy, pp = y, p
    if backend == "torch":
        torch = pytest.importorskip("torch")
        yy, pp = torch.asarray(y), torch.asarray(p)
    skw = {k: v for k, v in kw.items() if k != "average" or fn is not skm.accuracy_score}
    m = cls(c, ignore_index=-100, validate=validate,
            **({"average": kw["average"]} if "average" in kw else {}))
    for i in range(0, 400, 100):
        m.update(yy[i:i + 100], pp[i:i + 100])
    labels = {} if fn in (skm.accuracy_score, skm.hamming_loss, skm.matthews_corrcoef,
                          skm.cohen_kappa_score, skm.balanced_accuracy_score) \
        else {"labels": list(range(c))}
    want = fn(y[keep], pred[keep], **labels, **skw)
    got = m.compute()
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=1e-12)


def test_ignore_index_weighted_and_float_labels():
    y = np.array([0, 1, -100, 2, 1, -100, 0])
    pred = np.array([0, 2, 1, 2, 1, 0, 1])
    w = np.array([1.0, 2.0, 5.0, 0.0, 1.5, 3.0, 0.5])
    keep = y != -100
    m = ms.F1Score(3, ignore_index=-100, weighted=True)
    m.update(y.astype(float), pred.astype(float), w)
    np.testing.assert_allclose(
        float(m.compute()),
        skm.f1_score(y[keep], pred[keep], average="macro", sample_weight=w[keep]), rtol=1e-12)
    a = ms.Accuracy(3, ignore_index=-100)
    a.update(y, pred)
    assert float(a.compute()) == skm.accuracy_score(y[keep], pred[keep])
    # only ignored samples: nothing counted, the accuracy of no data (not 0.0)
    a = ms.Accuracy(3, ignore_index=-100)
    a.update(np.array([-100, -100]), np.array([0, 1]))
    assert np.isnan(float(a.compute()))
    with pytest.raises(ValueError, match="ignore_index"):
        ms.F1Score(3, ignore_index=1.5)
