"""Streaming metrics: streamed over random batch splits == one-shot on all the data.

scikit-learn (or the metrix one-shot metric) is the reference; Hypothesis
draws the data and the batch boundaries.
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

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def label_data(draw, weighted=False):
    c = draw(st.integers(2, 5))
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.5, yt, rng.integers(0, c, n))
    w = rng.random(n) if weighted else None
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))
    return c, yt, yp, w, cuts


def batches(cuts, *arrays):
    edges = [0, *cuts, len(arrays[0])]
    for a, b in zip(edges[:-1], edges[1:]):
        yield tuple(None if x is None else x[a:b] for x in arrays)


def stream(metric, cuts, yt, yp, w=None):
    for bt, bp, bw in batches(cuts, yt, yp, w):
        metric.update(bt, bp, sample_weight=bw)
    return metric.compute()


def close(got, want, rtol=1e-9, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=atol)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


# -- label family --------------------------------------------------------------

PRF = [(ms.Precision, metrix.precision_score), (ms.Recall, metrix.recall_score),
       (ms.F1Score, metrix.f1_score)]


@SETTINGS
@given(label_data(), st.sampled_from(["macro", "micro", "weighted", None, "binary"]),
       st.booleans())
def test_prf_streamed_equals_one_shot(data, average, weighted):
    c, yt, yp, _, cuts = data
    w = np.random.default_rng(len(yt)).random(len(yt)) if weighted else None
    labels = list(range(c))

    def one_shot(fn, **kw):
        if average == "binary":  # the pos_label=1 entry of the per-class values
            return quiet(fn, yt, yp, labels=labels, average=None, sample_weight=w, **kw)[1]
        return quiet(fn, yt, yp, labels=labels, average=average, sample_weight=w, **kw)

    for cls, fn in PRF:
        got = stream(cls(c, average=average, weighted=weighted), cuts, yt, yp, w)
        close(got, one_shot(fn))
    got = stream(ms.FBetaScore(c, average=average, beta=0.5, weighted=weighted), cuts, yt,
                 yp, w)
    close(got, one_shot(metrix.fbeta_score, beta=0.5))


@SETTINGS
@given(label_data(), st.booleans())
def test_agreement_streamed_equals_one_shot(data, weighted):
    c, yt, yp, _, cuts = data
    w = np.random.default_rng(len(yt) + 1).random(len(yt)) if weighted else None
    labels = list(range(c))
    kw = dict(weighted=weighted)
    close(stream(ms.Accuracy(c, **kw), cuts, yt, yp, w),
          metrix.accuracy_score(yt, yp, sample_weight=w))
    close(stream(ms.HammingDistance(c, **kw), cuts, yt, yp, w),
          skm.hamming_loss(yt, yp, sample_weight=w))
    close(stream(ms.Accuracy(c, average="macro", **kw), cuts, yt, yp, w),
          quiet(skm.recall_score, yt, yp, labels=labels, average="macro", sample_weight=w))
    close(stream(ms.MatthewsCorrCoef(c, **kw), cuts, yt, yp, w),
          quiet(skm.matthews_corrcoef, yt, yp, sample_weight=w))
    for weights in (None, "linear", "quadratic"):
        got = stream(ms.CohenKappa(c, weights=weights, **kw), cuts, yt, yp, w)
        want = quiet(skm.cohen_kappa_score, yt, yp, labels=labels, weights=weights,
                     sample_weight=w)
        close(got, want)
    for average in ("macro", "micro", "weighted", None):
        got = stream(ms.JaccardIndex(c, average=average, **kw), cuts, yt, yp, w)
        want = quiet(skm.jaccard_score, yt, yp, labels=labels, average=average,
                     sample_weight=w, zero_division=0)
        close(got, want)
    got = stream(ms.BalancedAccuracy(c, **kw), cuts, yt, yp, w)
    close(got, quiet(skm.balanced_accuracy_score, yt, yp, sample_weight=w))
    got = stream(ms.ConfusionMatrix(c, **kw), cuts, yt, yp, w)
    close(got, skm.confusion_matrix(yt, yp, labels=labels, sample_weight=w))
    got = stream(ms.ConfusionMatrix(c, normalize="true", **kw), cuts, yt, yp, w)
    close(got, quiet(skm.confusion_matrix, yt, yp, labels=labels, sample_weight=w,
                     normalize="true"))


def test_label_counts_are_int64_and_exact():
    m = ms.ConfusionMatrix(3)
    m.update(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1]))
    assert m.state["cm"].dtype == np.int64
    assert m.compute().dtype == np.int64
    with pytest.raises(ValueError, match="weighted=True"):
        m.update(np.array([0]), np.array([0]), sample_weight=np.array([0.5]))


def test_label_scores_are_argmaxed():
    rng = np.random.default_rng(0)
    scores = rng.random((50, 4))
    yt = rng.integers(0, 4, 50)
    m = ms.Accuracy(4)
    m.update(yt, scores)
    close(m.compute(), skm.accuracy_score(yt, scores.argmax(1)))


def test_label_validate_catches_out_of_range():
    m = ms.Accuracy(3, validate=True)
    with pytest.raises(ValueError, match=r"in \[0, 3\)"):
        m.update(np.array([0, 3]), np.array([0, 1]))
    with pytest.raises(ValueError, match="num_classes"):
        ms.Accuracy(0)
    with pytest.raises(ValueError, match="average"):
        ms.Precision(3, average="bogus")


# -- regression family ---------------------------------------------------------

@st.composite
def regression_data(draw):
    k = draw(st.sampled_from([None, 1, 3]))
    n = draw(st.integers(2, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    shape = (n,) if k is None else (n, k)
    yt = rng.random(shape) * 3 + 0.1
    yp = yt + rng.normal(0, 0.5, shape)
    yp = np.abs(yp) + 0.01
    w = rng.random(n) if draw(st.booleans()) else None
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))
    return k, yt, yp, w, cuts


REGRESSION = [
    (ms.MeanSquaredError, skm.mean_squared_error, ("raw_values", "uniform_average")),
    (ms.RootMeanSquaredError, skm.root_mean_squared_error, ("raw_values", "uniform_average")),
    (ms.MeanAbsoluteError, skm.mean_absolute_error, ("raw_values", "uniform_average")),
    (ms.R2Score, skm.r2_score, ("raw_values", "uniform_average", "variance_weighted")),
    (ms.ExplainedVariance, skm.explained_variance_score,
     ("raw_values", "uniform_average", "variance_weighted")),
    (ms.MeanSquaredLogError, skm.mean_squared_log_error, ("raw_values", "uniform_average")),
    (ms.RootMeanSquaredLogError, skm.root_mean_squared_log_error,
     ("raw_values", "uniform_average")),
    (ms.MeanAbsolutePercentageError, skm.mean_absolute_percentage_error,
     ("raw_values", "uniform_average")),
]


@SETTINGS
@given(regression_data())
def test_regression_streamed_equals_one_shot(data):
    k, yt, yp, w, cuts = data
    for cls, fn, multis in REGRESSION:
        for mo in multis:
            got = stream(cls(num_outputs=k, multioutput=mo), cuts, yt, yp, w)
            want = fn(yt, yp, sample_weight=w, multioutput=mo)
            close(got, want, rtol=1e-8, atol=1e-10)
    got = stream(ms.MedianAbsoluteError(capacity=len(yt) + 7, num_outputs=k,
                                        multioutput="raw_values"), cuts, yt, yp, w)
    close(got, skm.median_absolute_error(yt, yp, sample_weight=w, multioutput="raw_values"))


def test_regression_custom_multioutput_and_constant_target():
    yt = np.ones((6, 2))
    yp = np.ones((6, 2))
    yp[0, 1] = 2.0
    m = ms.R2Score(num_outputs=2, multioutput="raw_values")
    m.update(yt[:3], yp[:3])
    m.update(yt[3:], yp[3:])
    close(m.compute(), skm.r2_score(yt, yp, multioutput="raw_values"))
    m = ms.MeanSquaredError(num_outputs=2, multioutput=[0.3, 0.7])
    m.update(yt, yp)
    close(m.compute(), skm.mean_squared_error(yt, yp, multioutput=[0.3, 0.7]))
    with pytest.raises(ValueError, match="variance_weighted"):
        ms.MeanSquaredError(multioutput="variance_weighted")


# -- probabilistic ---------------------------------------------------------------

@SETTINGS
@given(label_data(weighted=True))
def test_log_loss_streamed_equals_one_shot(data):
    c, yt, _, w, cuts = data
    rng = np.random.default_rng(len(yt))
    p = rng.dirichlet(np.ones(c), size=len(yt))
    got = stream(ms.LogLoss(num_classes=c), cuts, yt, p, w)
    close(got, skm.log_loss(yt, p, labels=list(range(c)), sample_weight=w))
    yb = yt % 2
    got = stream(ms.LogLoss(), cuts, yb, p[:, 0], w)
    close(got, skm.log_loss(yb, p[:, 0], labels=[0, 1], sample_weight=w))


# -- ranking -------------------------------------------------------------------------

@st.composite
def ranking_data(draw, task):
    n = draw(st.integers(4, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    c = 3
    ties = draw(st.booleans())
    if task == "binary":
        y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
        s = rng.random(n)
    elif task == "multiclass":
        y = np.r_[0, 1, 2, rng.integers(0, c, n - 3)]
        s = rng.dirichlet(np.ones(c), size=n)
    else:
        y = rng.integers(0, 2, (n, c))
        y[0], y[1] = 1, 0
        s = rng.random((n, c))
    if ties:
        s = np.round(s, 1)
    w = rng.random(n) if draw(st.booleans()) else None
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))
    return y, s, w, cuts


def _one_shot_rank(metric, task, y, s, w, average):
    if metric == "roc_auc":
        kw = {"multi_class": "ovr", "labels": [0, 1, 2]} if task == "multiclass" else {}
        return quiet(skm.roc_auc_score, y, s, sample_weight=w, average=average, **kw)
    return quiet(skm.average_precision_score, y, s, sample_weight=w, average=average)


@SETTINGS
@given(st.sampled_from(["binary", "multiclass", "multilabel"]).flatmap(
    lambda t: st.tuples(st.just(t), ranking_data(t))))
def test_ranking_exact_streamed_equals_one_shot(args):
    task, (y, s, w, cuts) = args
    kw = {"binary": {}, "multiclass": {"num_classes": 3}, "multilabel": {"num_labels": 3}}[task]
    averages = ["macro"] if task == "binary" else ["macro", "weighted", None]
    if task == "multilabel":
        averages += ["micro", "samples"]
    for cls, metric in ((ms.AUROC, "roc_auc"), (ms.AveragePrecision, "average_precision")):
        for average in averages:
            if metric == "roc_auc" and task == "multilabel" and (y.sum(0) == 0).any():
                continue
            m = cls(average=average, capacity=len(y) + 5, **kw)
            got = stream(m, cuts, y, s, w)
            if task == "multiclass":  # rounded (tied) scores no longer sum to one
                want = _one_shot_rank(metric, "multilabel",
                                      (y[:, None] == np.arange(3)).astype(int), s, w, average)
            else:
                want = _one_shot_rank(metric, task, y, s, w, average)
            close(got, want, rtol=1e-9, atol=1e-12)


def _quantise(s, t):
    """The bin of each score: the number of thresholds j / (t - 1) <= s."""
    return np.clip(s * (t - 1) + 1.0, 0, t).astype(np.int64).astype(float)


@SETTINGS
@given(st.sampled_from(["binary", "multiclass", "multilabel"]).flatmap(
    lambda t: st.tuples(st.just(t), ranking_data(t))), st.sampled_from([2, 7, 1000]))
def test_ranking_binned_equals_one_shot_on_binned_scores(args, t):
    task, (y, s, w, cuts) = args
    kw = {"binary": {}, "multiclass": {"num_classes": 3}, "multilabel": {"num_labels": 3}}[task]
    averages = ["macro"] if task == "binary" else ["macro", "weighted", "micro", None]
    q = _quantise(s, t)
    # quantised multiclass scores are no probabilities: one-vs-rest == indicator form
    y_ref = (y[:, None] == np.arange(3)).astype(int) if task == "multiclass" else y
    ref_task = "multilabel" if task == "multiclass" else task
    for cls, metric in ((ms.AUROC, "roc_auc"), (ms.AveragePrecision, "average_precision")):
        for average in averages:
            if metric == "roc_auc" and task == "multilabel" and (y.sum(0) == 0).any():
                continue
            m = cls(average=average, thresholds=t, weighted=w is not None, **kw)
            got = stream(m, cuts, y, s, w)
            want = _one_shot_rank(metric, ref_task, y_ref, q, w, average)
            close(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_binned_in_place_update_leaves_handed_out_states_alone(lib):
    # eager CPU wrappers add batches into their own histogram in place; whatever
    # they handed out (state, state_dict, a loaded dict) must not change
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        conv = torch.asarray
    rng = np.random.default_rng(7)
    y, s = rng.integers(0, 2, 200), rng.random(200) * 1.2 - 0.1  # some out of [0, 1]
    parts = [(conv(y[i:i + 50]), conv(s[i:i + 50])) for i in range(0, 200, 50)]
    m = ms.AUROC(thresholds=50)
    m.update(*parts[0])
    m.update(*parts[1])
    own = m._state["hist"]
    m.update(*parts[2])
    assert m._state["hist"] is own  # in place: no new array per batch
    snap, view = m.state_dict(), m.state
    before = np.asarray(snap["hist"]).copy()
    m.update(*parts[3])
    np.testing.assert_array_equal(np.asarray(snap["hist"]), before)
    np.testing.assert_array_equal(np.asarray(view["hist"]), before)
    other = ms.AUROC(thresholds=50).load_state_dict(snap)
    other.update(*parts[3])
    np.testing.assert_array_equal(np.asarray(snap["hist"]), before)
    want = metrix.roc_auc_score(y, _quantise(s, 50))
    close(m.compute(), want)
    close(other.compute(), want)
    assert type(m.compute()).__module__.split(".")[0] == lib


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("cls, fn", [(ms.MeanSquaredError, skm.mean_squared_error),
                                     (ms.MeanAbsoluteError, skm.mean_absolute_error),
                                     (ms.RootMeanSquaredError, skm.root_mean_squared_error)])
def test_mean_error_in_place_update(lib, cls, fn):
    # eager CPU wrappers add unweighted batches into their own sums in place; what
    # they handed out must not change; other batches (weights, float16, 2-D, ints,
    # grad) take the pure update into the same sums
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        conv = torch.asarray
    rng = np.random.default_rng(9)
    yt, yp = rng.normal(size=300), rng.normal(size=300)
    m = cls()
    m.update(conv(yt[:50]), conv(yp[:50]))
    m.update(conv(yt[50:100]), conv(yp[50:100]))
    own = m._state["sw"]
    m.update(conv(yt[100:150]), conv(yp[100:150]).astype(np.float32) if lib == "numpy"
             else conv(yp[100:150]).float())
    assert m._state["sw"] is own and m._owned is own  # in place: no new array per batch
    snap, view = m.state_dict(), m.state
    before = {k: np.asarray(v).copy() for k, v in view.items() if not k.startswith("meta")}
    m.update(conv(yt[150:200]), conv(yp[150:200]))
    m.update(conv(yt[200:250]), conv(yp[200:250]), conv(np.ones(50)))  # weighted: pure
    m.update(conv(yt[250:])[:, None], conv(yp[250:])[:, None])  # 2-D: pure
    for k, v in before.items():
        np.testing.assert_array_equal(np.asarray(view[k]), v)
        np.testing.assert_array_equal(np.asarray(snap[k]), v)
    want = fn(yt[:100].tolist() + yt[100:150].tolist() + yt[150:].tolist(),
              yp[:100].tolist() + yp[100:150].astype(np.float32).tolist() + yp[150:].tolist())
    close(m.compute(), want, rtol=1e-12)
    assert type(m.compute()).__module__.split(".")[0] == lib


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("task", ["multiclass", "multilabel"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binned_batch_of_many_rows(lib, task, weighted):
    # a batch of n x B = 315,000 cells (past the 2**18 cells one count takes at
    # once: counted in slices, the last short) into a histogram, the state held by
    # the caller untouched: scikit-learn's AUC of the binned scores
    conv = np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        conv = torch.asarray
    rng = np.random.default_rng(11)
    n, b, t = 35_050, 9, 40
    if task == "multiclass":
        y = rng.integers(0, b, n)
        s = rng.dirichlet(np.ones(b), n)
        kw = {"num_classes": b}
    else:
        y = (rng.random((n, b)) < 0.3).astype(int)
        s = rng.random((n, b))
        kw = {"num_labels": b}
    w = rng.random(n) * (rng.random(n) < 0.8) if weighted else None
    m = ms.AUROC(thresholds=t, average=None, weighted=weighted, **kw)
    m.update(conv(y[:50]), conv(s[:50]), None if w is None else conv(w[:50]))
    before = np.asarray(m.state["hist"]).copy()
    held = m.state
    m.update(conv(y[50:]), conv(s[50:]), None if w is None else conv(w[50:]))
    np.testing.assert_array_equal(np.asarray(held["hist"]), before)  # pure update
    onehot = (y[:, None] == np.arange(b)).astype(int) if task == "multiclass" else y
    want = skm.roc_auc_score(onehot, _quantise(s, t), average=None, sample_weight=w)
    close(m.compute(), want, rtol=1e-9)


def test_binned_batches_of_every_kind_land_in_one_histogram():
    # batches of torch tensors of every kind (float64 / float32 / float16 scores,
    # one needing grad, bool targets, strided views): each score in the bin of
    # its own value, scikit-learn's average precision of the binned scores
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    y, s = rng.integers(0, 2, 120), rng.random(120)
    batches = [
        (torch.asarray(y[:10]), torch.asarray(s[:10])),  # creates the state
        (torch.asarray(y[10:40]), torch.asarray(s[10:40], dtype=torch.float32)),
        (torch.asarray(y[40:60]), torch.asarray(s[40:60]).requires_grad_()),
        (torch.asarray(y[60:80]), torch.asarray(s[60:80], dtype=torch.float16)),
        (torch.asarray(y[80:100]).bool(), torch.asarray(s[80:100])),
        (torch.asarray(y[100:])[::1], torch.asarray(np.repeat(s[100:], 2))[::2]),
    ]
    m = ms.AveragePrecision(thresholds=30)
    for yt, sp in batches:
        m.update(yt, sp)
    y_all = np.concatenate([yt.long().numpy() for yt, _ in batches])
    s_all = np.concatenate([sp.detach().double().numpy() for _, sp in batches])
    want = skm.average_precision_score(y_all, _quantise(s_all, 30))
    close(m.compute(), want, rtol=1e-12, atol=1e-12)


def test_ranking_binned_multiclass_micro_and_state_dtype():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    s = rng.dirichlet(np.ones(3), size=300)
    m = ms.AUROC(num_classes=3, average="micro", thresholds=50)
    m.update(y, s)
    onehot = (y[:, None] == np.arange(3)).astype(int)
    close(m.compute(), skm.roc_auc_score(onehot.ravel(), _quantise(s, 50).ravel()))
    assert m.state["hist"].dtype == np.int64
    assert m.state["hist"].shape == (3, 2, 51)


def test_binned_explicit_thresholds_use_searchsorted():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 200), rng.normal(size=200)
    thr = [-1.0, -0.2, 0.0, 0.3, 2.0]
    m = ms.AUROC(thresholds=thr)
    m.update(y[:90], s[:90])
    m.update(y[90:], s[90:])
    close(m.compute(), skm.roc_auc_score(y, np.searchsorted(thr, s, side="right")))


def test_ranking_validate():
    m = ms.AUROC(validate=True)
    with pytest.raises(ValueError, match="0 or 1"):
        m.update(np.array([0, 2]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="NaN"):
        m.update(np.array([0, 1]), np.array([0.1, np.nan]))


def test_binned_auc_close_to_exact_with_many_thresholds():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 5000)
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1)
    m = ms.AUROC()
    m.update(y, s)
    assert abs(float(m.compute()) - skm.roc_auc_score(y, s)) < 1e-3
    assert ms.DEFAULT_THRESHOLDS == 1000


def test_exact_buffer_full_raises_clearly():
    m = ms.AUROC(capacity=10)
    m.update(np.array([0, 1] * 3), np.linspace(0, 1, 6))
    with pytest.raises(ms.BufferFullError, match="capacity 10 samples, 6 stored"):
        m.update(np.array([0, 1] * 3), np.linspace(0, 1, 6))
    # functional form: dropped samples make the result NaN instead of silently wrong
    spec = ms.RankingStream("roc_auc", capacity=4)
    st_ = spec.update(spec.init(), np.array([0, 1, 0, 1, 1]), np.linspace(0, 1, 5))
    assert int(st_["dropped"]) == 1 and np.isnan(spec.compute(st_))


# -- wrapper mechanics ---------------------------------------------------------------

def _leaf_bytes(state):
    from metrix.stream._functional import iter_leaves

    return sum(np.asarray(v).nbytes for _, v in iter_leaves(state))


def test_state_memory_does_not_grow():
    rng = np.random.default_rng(1)
    coll = ms.MetricCollection({
        "f1": ms.F1Score(4), "mse": ms.MeanSquaredError(), "auc": ms.AUROC(thresholds=100),
        "ap": ms.AveragePrecision(capacity=5000), "ll": ms.LogLoss()})
    y = rng.integers(0, 2, 40)
    s = rng.random(40)
    coll.update(y, s)
    size = _leaf_bytes(coll.state)
    for _ in range(100):
        coll.update(y, s)
    assert _leaf_bytes(coll.state) == size


def test_collection_shares_one_bincount(bincount_calls):
    coll = ms.MetricCollection({
        "acc": ms.Accuracy(10), "p": ms.Precision(10), "r": ms.Recall(10),
        "f1": ms.F1Score(10), "mcc": ms.MatthewsCorrCoef(10), "k": ms.CohenKappa(10)})
    assert coll.spec.n_statistics == 1
    rng = np.random.default_rng(0)
    for _ in range(5):
        coll.update(rng.integers(0, 10, 100), rng.integers(0, 10, 100))
    assert len(bincount_calls) == 5
    out = coll.compute()
    assert set(out) == {"acc", "p", "r", "f1", "mcc", "k"}


def test_merge_reset_state_dict_roundtrip():
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 80), rng.random(80)
    a, b, full = (ms.MetricCollection({"auc": ms.AUROC(capacity=100), "f1": ms.F1Score(2),
                                       "r2": ms.R2Score()}) for _ in range(3))
    a.update(y[:30], s[:30] > 0.5)
    b.update(y[30:], s[30:] > 0.5)
    full.update(y, s > 0.5)
    a.merge(b)
    for k, v in full.compute().items():
        close(a.compute()[k], v)
    a.update(y[:5], s[:5] > 0.5)  # after a merge the buffer keeps appending
    c = ms.MetricCollection({"auc": ms.AUROC(capacity=100), "f1": ms.F1Score(2),
                             "r2": ms.R2Score()})
    c.load_state_dict(a.state_dict())
    for k, v in a.compute().items():
        close(c.compute()[k], v)
    c.reset()
    assert int(c.state["s0"]["count"]) == 0
    with pytest.raises(KeyError, match="do not match"):
        c.load_state_dict({"nope": np.zeros(1)})


def test_sync_without_process_group_is_identity():
    m = ms.Accuracy(3)
    m.update(np.array([0, 1]), np.array([0, 2]))
    before = m.compute()
    assert m.sync().compute() == before
    st_ = m.state
    assert ms.sync(st_) is st_


@pytest.mark.parametrize("lib", ["torch", "jax"])
def test_backend_results_stay_on_device(lib):
    mod = pytest.importorskip(lib)
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 3, 64), rng.dirichlet(np.ones(3), 64)
    conv = (lambda a: mod.asarray(a)) if lib == "torch" else (lambda a: mod.numpy.asarray(a))
    coll = ms.MetricCollection({"f1": ms.F1Score(3), "auc": ms.AUROC(num_classes=3),
                                "ll": ms.LogLoss(num_classes=3)})
    coll.update(conv(y[:30]), conv(s[:30]))
    coll.update(conv(y[30:]), conv(s[30:]))
    out = coll.compute()
    ref = ms.MetricCollection({"f1": ms.F1Score(3), "auc": ms.AUROC(num_classes=3),
                               "ll": ms.LogLoss(num_classes=3)})
    ref.update(y, s)
    for k, v in ref.compute().items():
        assert type(out[k]).__module__.split(".")[0] in (lib, "jaxlib")
        assert out[k].ndim == 0
        close(np.asarray(out[k]), v, rtol=1e-6)


def test_to_creates_state_on_device():
    pytest.importorskip("torch")
    m = ms.MeanSquaredError().to("cpu")
    assert type(m.state["sw"]).__module__.startswith("torch")
    m.update(np.array([1.0, 2.0]), np.array([1.5, 2.0]))
    close(np.asarray(m.compute()), 0.125)
