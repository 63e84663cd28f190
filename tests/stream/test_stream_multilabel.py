"""Multilabel label streams (``num_labels=L`` on the label classes, ``ExactMatch``).

Every value is compared with scikit-learn's one-shot function on all of the
data (``f1_score(Y, P, average=...)``, ``accuracy_score`` = subset accuracy,
``hamming_loss``, ``zero_one_loss``, ``multilabel_confusion_matrix``,
``jaccard_score``), streamed in uneven batches (an empty one, a single sample),
merged, and reloaded from a ``state_dict`` mid-stream; and with TorchMetrics'
``Multilabel*`` classes where they agree with scikit-learn.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix.stream as ms

L = 4
rng = np.random.default_rng(7)
N = 90
T = (rng.random((N, L)) < 0.35).astype(np.int64)
S = np.round(rng.random((N, L)), 2)
S[:3] = 0.5                       # ties at the threshold: not positive
T[3:5] = 0                        # samples with no true label
S[5:8] = 0.1                      # samples with no predicted label
T[8] = 1
S[8] = 0.9                        # a perfect sample
P = (S > 0.5).astype(np.int64)
W = rng.random(N) + 0.1
W[10:14] = 0.0                    # zero weights count for nothing
SPLITS = (0, 0, 1, 30, 31, N, N)  # an empty batch, one sample, uneven batches, an empty one

SETWISE = {"Precision": skm.precision_score, "Recall": skm.recall_score,
           "F1Score": skm.f1_score, "JaccardIndex": skm.jaccard_score}
AVERAGES = ["micro", "macro", "weighted", "samples", None]


def _stream(metric, t=T, s=S, w=None):
    for a, b in zip(SPLITS, SPLITS[1:]):
        metric.update(t[a:b], s[a:b], None if w is None else w[a:b])
    return metric.compute()


def _reference(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@pytest.mark.parametrize("name", sorted(SETWISE))
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("zero_division", ["warn", 1.0, np.nan])
@pytest.mark.parametrize("weighted", [False, True])
def test_setwise_scores_equal_scikit_learn(name, average, zero_division, weighted):
    if name == "JaccardIndex" and zero_division != zero_division:
        pytest.skip("scikit-learn's jaccard_score takes no zero_division=nan")
    w = W if weighted else None
    got = _stream(getattr(ms, name)(num_labels=L, average=average,
                                    zero_division=zero_division, weighted=weighted), w=w)
    want = _reference(SETWISE[name], T, P, average=average, zero_division=zero_division,
                      sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("average", ["macro", "samples", None])
def test_fbeta_equals_scikit_learn(beta, average):
    got = _stream(ms.FBetaScore(num_labels=L, beta=beta, average=average))
    np.testing.assert_allclose(got, _reference(skm.fbeta_score, T, P, beta=beta,
                                               average=average), rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_subset_metrics_hamming_and_confusion_equal_scikit_learn(weighted):
    w, kw = (W if weighted else None), {"weighted": weighted}
    acc = skm.accuracy_score(T, P, sample_weight=w)
    assert 0.0 < acc < 1.0
    np.testing.assert_allclose(_stream(ms.Accuracy(num_labels=L, **kw), w=w), acc)
    np.testing.assert_allclose(_stream(ms.ExactMatch(L, **kw), w=w), acc)
    np.testing.assert_allclose(_stream(ms.ZeroOneLoss(num_labels=L, **kw), w=w),
                               skm.zero_one_loss(T, P, sample_weight=w))
    np.testing.assert_allclose(_stream(ms.HammingDistance(num_labels=L, **kw), w=w),
                               skm.hamming_loss(T, P, sample_weight=w))
    cm = _stream(ms.ConfusionMatrix(num_labels=L, **kw), w=w)
    want = skm.multilabel_confusion_matrix(T, P, sample_weight=w)
    np.testing.assert_allclose(cm, want)
    assert cm.shape == (L, 2, 2)
    assert (cm.dtype.kind == "f") == weighted  # counts are int64 unless weighted


@pytest.mark.parametrize("normalize", ["true", "pred", "all"])
def test_confusion_normalized_per_label(normalize):
    got = _stream(ms.ConfusionMatrix(num_labels=L, normalize=normalize))
    for k, cm in enumerate(skm.multilabel_confusion_matrix(T, P)):
        axis = {"true": 1, "pred": 0, "all": None}[normalize]
        want = cm / cm.sum(axis=axis, keepdims=axis is not None)
        np.testing.assert_allclose(got[k], want)


def test_indicator_predictions_logits_and_threshold():
    # integer and bool indicators are read as they are; floats against the threshold
    np.testing.assert_allclose(_stream(ms.F1Score(num_labels=L), s=P), skm.f1_score(
        T, P, average="macro"))
    np.testing.assert_allclose(_stream(ms.F1Score(num_labels=L), t=T.astype(bool),
                                       s=P.astype(bool)), skm.f1_score(T, P, average="macro"))
    logits = np.log(S + 1e-9) - np.log1p(-S + 1e-9)
    np.testing.assert_allclose(_stream(ms.F1Score(num_labels=L, threshold=0.0), s=logits),
                               skm.f1_score(T, logits > 0, average="macro"))
    np.testing.assert_allclose(_stream(ms.Recall(num_labels=L, threshold=0.3)),
                               skm.recall_score(T, S > 0.3, average="macro"))
    np.testing.assert_allclose(_stream(ms.ExactMatch(L, threshold=None),
                                       s=P.astype(np.float64)), skm.accuracy_score(T, P))


def test_constant_inputs():
    zeros = np.zeros((6, L), np.int64)
    ones = np.ones((6, L), np.int64)
    for t, p in ((zeros, zeros), (ones, ones), (zeros, ones), (ones, zeros)):
        for avg in AVERAGES:
            for zd in (0.0, 1.0):
                m = ms.F1Score(num_labels=L, average=avg, zero_division=zd)
                m.update(t, p)
                np.testing.assert_allclose(m.compute(), _reference(
                    skm.f1_score, t, p, average=avg, zero_division=zd))
        m = ms.ExactMatch(L)
        m.update(t, p)
        assert float(m.compute()) == skm.accuracy_score(t, p)


@pytest.mark.parametrize("make", [
    lambda: ms.F1Score(num_labels=L, average="samples", weighted=True),
    lambda: ms.ConfusionMatrix(num_labels=L, weighted=True),
    lambda: ms.JaccardIndex(num_labels=L, average="weighted", weighted=True),
])
def test_merge_and_state_dict_round_trip_equal_one_stream(make):
    whole = make()
    whole.update(T, S, W)
    a, b = make(), make()
    a.update(T[:40], S[:40], W[:40])
    b.update(T[40:], S[40:], W[40:])
    np.testing.assert_allclose(a.merge(b).compute(), whole.compute())
    first = make()
    first.update(T[:25], S[:25], W[:25])
    resumed = make().load_state_dict(first.state_dict())
    resumed.update(T[25:], S[25:], W[25:])
    np.testing.assert_allclose(resumed.compute(), whole.compute())


def test_collection_shares_one_state_per_labels_and_threshold():
    coll = ms.MetricCollection({
        "acc": ms.Accuracy(num_labels=L), "exact": ms.ExactMatch(L),
        "p": ms.Precision(num_labels=L, average="micro"), "r": ms.Recall(num_labels=L),
        "f1": ms.F1Score(num_labels=L, average="samples"),
        "f1_macro": ms.F1Score(num_labels=L),
        "jac": ms.JaccardIndex(num_labels=L, average="samples"),
        "hamming": ms.HammingDistance(num_labels=L), "cm": ms.ConfusionMatrix(num_labels=L)})
    assert coll.spec.n_statistics == 1
    other = ms.MetricCollection({"f1": ms.F1Score(num_labels=L),
                                 "f1_03": ms.F1Score(num_labels=L, threshold=0.3)})
    assert other.spec.n_statistics == 2  # another threshold: other counts
    got = _stream(coll)
    want = {"acc": skm.accuracy_score(T, P), "exact": skm.accuracy_score(T, P),
            "p": skm.precision_score(T, P, average="micro"),
            "r": _reference(skm.recall_score, T, P, average="macro"),
            "f1": _reference(skm.f1_score, T, P, average="samples"),
            "f1_macro": _reference(skm.f1_score, T, P, average="macro"),
            "jac": _reference(skm.jaccard_score, T, P, average="samples"),
            "hamming": skm.hamming_loss(T, P), "cm": skm.multilabel_confusion_matrix(T, P)}
    for k, v in want.items():
        np.testing.assert_allclose(got[k], v, err_msg=k)


def test_every_backend(xp):
    f1 = ms.F1Score(num_labels=L, average="samples", weighted=True, zero_division=1.0)
    cm = ms.ConfusionMatrix(num_labels=L)
    exact = ms.ExactMatch(L)
    ham = ms.HammingDistance(num_labels=L, threshold=0.3)
    for a, b in zip(SPLITS, SPLITS[1:]):
        t, s, w = xp.asarray(T[a:b]), xp.asarray(S[a:b]), xp.asarray(W[a:b])
        f1.update(t, s, w)
        for m in (cm, exact, ham):
            m.update(t, s)
    got = [f1.compute(), cm.compute(), exact.compute(), ham.compute()]
    want = [_reference(skm.f1_score, T, P, average="samples", zero_division=1.0,
                       sample_weight=W),
            skm.multilabel_confusion_matrix(T, P), skm.accuracy_score(T, P),
            skm.hamming_loss(T, S > 0.3)]
    tol = 1e-5 if xp.float_dtype == "float32" else 1e-12
    for g, w in zip(got, want):
        assert type(g).__module__.split(".")[0] == type(xp.asarray(T)).__module__.split(".")[0]
        np.testing.assert_allclose(xp.to_numpy(g), w, rtol=tol)


def test_torchmetrics_multilabel_classes_agree_where_documented():
    torch = pytest.importorskip("torch")
    tmc = pytest.importorskip("torchmetrics.classification")
    # every label true and predicted somewhere: TorchMetrics' macro mean equals scikit-learn's
    t, s = torch.as_tensor(T), torch.as_tensor(S, dtype=torch.float32)
    pairs = [(ms.F1Score(num_labels=L), tmc.MultilabelF1Score(L)),
             (ms.F1Score(num_labels=L, average="micro"),
              tmc.MultilabelF1Score(L, average="micro")),
             (ms.Precision(num_labels=L, average="weighted"),
              tmc.MultilabelPrecision(L, average="weighted")),
             (ms.Recall(num_labels=L, average=None), tmc.MultilabelRecall(L, average=None)),
             (ms.FBetaScore(num_labels=L, beta=2.0), tmc.MultilabelFBetaScore(2.0, L)),
             (ms.JaccardIndex(num_labels=L), tmc.MultilabelJaccardIndex(L)),
             (ms.ExactMatch(L), tmc.MultilabelExactMatch(L)),
             (ms.Accuracy(num_labels=L), tmc.MultilabelExactMatch(L)),
             (ms.HammingDistance(num_labels=L), tmc.MultilabelHammingDistance(L)),
             (ms.ConfusionMatrix(num_labels=L), tmc.MultilabelConfusionMatrix(L))]
    for ours, theirs in pairs:
        for a, b in ((0, 40), (40, N)):
            ours.update(t[a:b], s[a:b])
            theirs.update(s[a:b], t[a:b])
        np.testing.assert_allclose(ours.compute().numpy(), theirs.compute().numpy(),
                                   rtol=1e-6, err_msg=type(ours).__name__)
    # TorchMetrics' multilabel accuracy is per label: 1 - Hamming, not subset accuracy
    per_label = tmc.MultilabelAccuracy(L, average="micro")
    per_label.update(s, t)
    assert abs(float(per_label.compute()) - (1 - skm.hamming_loss(T, P))) < 1e-6
    assert abs(float(per_label.compute()) - skm.accuracy_score(T, P)) > 0.05


def test_scores_outside_zero_one_are_compared_as_they_are_torchmetrics_sigmoids_them():
    torch = pytest.importorskip("torch")
    tmc = pytest.importorskip("torchmetrics.classification")
    logits = 4.0 * (S - 0.3)  # outside [0, 1]: TorchMetrics applies a sigmoid (a host read)
    ours = ms.F1Score(num_labels=L)
    ours.update(T, logits)
    theirs = tmc.MultilabelF1Score(L)
    theirs.update(torch.as_tensor(logits), torch.as_tensor(T))
    np.testing.assert_allclose(ours.compute(), _reference(skm.f1_score, T, logits > 0.5,
                                                          average="macro"))
    np.testing.assert_allclose(float(theirs.compute()), _reference(
        skm.f1_score, T, logits > 0.0, average="macro"), rtol=1e-6)  # sigmoid(x) > 0.5
    assert abs(float(ours.compute()) - float(theirs.compute())) > 0.01


def test_bad_input_raises():
    with pytest.raises(ValueError, match="num_labels"):
        ms.F1Score(num_labels=L).update(T[:, :3], S[:, :3])
    with pytest.raises(ValueError, match="shape"):
        ms.F1Score(num_labels=L).update(T[:, 0], S)
    with pytest.raises(ValueError, match="inconsistent"):
        ms.F1Score(num_labels=L).update(T[:5], S[:6])
    with pytest.raises(ValueError, match="not both"):
        ms.F1Score(3, num_labels=L)
    with pytest.raises(TypeError, match="num_classes= .* or num_labels="):
        ms.F1Score()
    with pytest.raises(TypeError, match="num_classes"):  # scikit-learn's takes no multilabel
        ms.MatthewsCorrCoef(num_labels=L)
    with pytest.raises(TypeError, match="num_labels"):
        ms.MatthewsCorrCoef(3, num_labels=L)
    with pytest.raises(ValueError, match="subset accuracy"):
        ms.Accuracy(num_labels=L, average="macro")
    with pytest.raises(ValueError, match="binary"):
        ms.F1Score(num_labels=L, average="binary")
    with pytest.raises(ValueError, match="weighted=False"):
        ms.F1Score(num_labels=L).update(T, S, W)
    with pytest.raises(ValueError, match="indicators"):
        ms.F1Score(num_labels=L, validate=True).update(T * 2, S)
    with pytest.raises(ValueError, match="outside"):
        ms.F1Score(num_labels=L, validate=True).update(T, S * 3)
    with pytest.raises(ValueError, match="before any sample"):
        ms.ExactMatch(L).compute()
    nan_scores = S.copy()
    nan_scores[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ms.F1Score(num_labels=L, validate=True).update(T, nan_scores)
    # without validate a NaN score is a negative prediction (read nowhere)
    m = ms.F1Score(num_labels=L)
    m.update(T, nan_scores)
    np.testing.assert_allclose(m.compute(), _reference(skm.f1_score, T, nan_scores > 0.5,
                                                       average="macro"))


def test_merge_across_thresholds_names_the_difference():
    a, b = ms.F1Score(num_labels=L), ms.F1Score(num_labels=L, threshold=0.3)
    a.update(T, S)
    b.update(T, S)
    with pytest.raises(ValueError, match="threshold"):
        a.merge(b)


def test_jax_jit_update():
    jax = pytest.importorskip("jax")
    spec = ms.F1Score(num_labels=L, average="samples").spec
    state = spec.init(jax.numpy.zeros(1))
    step = jax.jit(spec.update)
    for a, b in ((0, 45), (45, N)):
        state = step(state, jax.numpy.asarray(T[a:b]), jax.numpy.asarray(S[a:b]))
    np.testing.assert_allclose(np.asarray(spec.compute(state)),
                               _reference(skm.f1_score, T, P, average="samples"), rtol=1e-6)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_the_cpu_adapter_kernel_equals_the_generic_one(lib):
    mod = pytest.importorskip(lib)
    from metrix._core import namespace as _ns
    from metrix.backends import _generic, ops

    for t, s, thr in ((T, S, 0.5), (T.astype(bool), P.astype(bool), None), (T, P, None),
                      (T[:0], S[:0], 0.5), (T.astype(np.float32), S.astype(np.float32), 0.3)):
        t, s = (mod.as_tensor(a) if lib == "torch" else a for a in (t, s))
        xp = _ns.get_namespace_and_device(t)[0]
        fast = ops(xp).multilabel_counts(t, s, threshold=thr)
        assert type(ops(xp)).multilabel_counts is not _generic.GenericOps.multilabel_counts
        slow = _generic.GenericOps(xp).multilabel_counts(t, s, threshold=thr)
        for f, g in zip(fast, slow):
            assert f.dtype == g.dtype
            np.testing.assert_array_equal(np.asarray(f), np.asarray(g))


def test_subset_metrics_keep_two_counts():
    """ExactMatch / subset Accuracy / ZeroOneLoss alone keep the number of samples and
    of exact rows only (no per-label counts), weighted or not."""
    for weighted in (False, True):
        m = ms.ExactMatch(L) if not weighted else ms.Accuracy(num_labels=L, weighted=True)
        spec = m.spec
        state = spec.init(T)
        assert set(state) - {"meta_dtype"} <= {"n", "exact"}
        w = np.linspace(0.0, 2.0, len(T)) if weighted else None
        state = spec.update(state, T, P, w)
        assert set(state) - {"meta_dtype"} <= {"n", "exact"}
        np.testing.assert_allclose(float(spec.compute(state)),
                                   skm.accuracy_score(T, P, sample_weight=w))
    coll = ms.MetricCollection({"exact": ms.ExactMatch(L), "zo": ms.ZeroOneLoss(num_labels=L)})
    assert coll.spec.n_statistics == 1


_IN_PLACE = {"F1Score": lambda: ms.F1Score(num_labels=L, average=None),
             "ConfusionMatrix": lambda: ms.ConfusionMatrix(num_labels=L),
             "Hamming logits": lambda: ms.HammingDistance(num_labels=L, threshold=0.0),
             "Precision labels": lambda: ms.Precision(num_labels=L, threshold=None),
             "ExactMatch": lambda: ms.ExactMatch(L),
             "subset Accuracy": lambda: ms.Accuracy(num_labels=L)}


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("name", list(_IN_PLACE))
def test_counts_added_in_place_equal_the_functional_update(name, lib):
    # eager CPU: the wrapper adds each unweighted batch into counts it owns; the state
    # after uneven batches (empty ones, one sample) of every input kind is the pure
    # update's, and a state handed out is never written by later updates
    mod = pytest.importorskip(lib)
    put = mod.as_tensor if lib == "torch" else np.asarray
    preds = {"scores": S, "float32": S.astype(np.float32) - 0.5, "labels": P,
             "bool": P.astype(bool), "int 0/2": 2 * P - (P == 0)}  # (-1 and 2: not 0)
    for kind, pred in preds.items():
        metric = _IN_PLACE[name]()
        spec = metric.spec
        state = spec.init(put(T[:1]) if kind == "bool" else put(pred[:1]))
        handed = None
        for i, (a, b) in enumerate(zip(SPLITS, SPLITS[1:])):
            metric.update(put(T[a:b]), put(pred[a:b]))
            state = spec.update(state, put(T[a:b]), put(pred[a:b]))
            if i == 2:
                handed = metric.state
                kept = {k: np.array(v) for k, v in handed.items()}
        assert metric._owned is not None, "the counts were not added in place"
        for k, v in metric.state.items():
            np.testing.assert_array_equal(np.asarray(v), np.asarray(state[k]), err_msg=kind)
        for k, v in handed.items():
            np.testing.assert_array_equal(np.asarray(v), kept[k])
    with pytest.raises(ValueError, match="num_labels"):  # the adder leaves it to update
        metric.update(put(T[:3, :2]), put(P[:3, :2]))
