"""PartialEvaluation: chunked, merged states equal scikit-learn on the concatenated data."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import metrix
from metrix.evaluation.partial import PARTIAL_METRICS, PartialEvaluation
from metrix.evaluation.score_table import binned_bounds

skm = pytest.importorskip("sklearn.metrics")

TOL = 1e-12


def _sklearn(name, yt, yp, ys, w, labels, pos_label):
    """scikit-learn's value of ``name`` on the concatenated data."""
    base, _, average = name.partition("_")
    kw = dict(sample_weight=w)
    if name == "accuracy":
        return skm.accuracy_score(yt, yp, **kw)
    if name == "balanced_accuracy":
        return skm.balanced_accuracy_score(yt, yp, **kw)
    if name == "matthews_corrcoef":
        return skm.matthews_corrcoef(yt, yp, **kw)
    if name == "cohen_kappa":
        return skm.cohen_kappa_score(yt, yp, **kw)
    if name == "hamming_loss":
        return skm.hamming_loss(yt, yp, **kw)
    if name == "zero_one_loss":
        return skm.zero_one_loss(yt, yp, **kw)
    if base in ("precision", "recall", "f1", "jaccard"):
        fn = {"precision": skm.precision_score, "recall": skm.recall_score,
              "f1": skm.f1_score, "jaccard": skm.jaccard_score}[base]
        extra = {"average": average} if average else {"pos_label": pos_label}
        return fn(yt, yp, labels=labels if average else None, zero_division=0, **extra, **kw)
    if name == "log_loss":
        return skm.log_loss(yt, ys, labels=labels, **kw)
    if name == "brier_score_loss":
        return skm.brier_score_loss(yt, ys, labels=labels, pos_label=pos_label, **kw)
    if name == "roc_auc":
        return skm.roc_auc_score(yt, ys, **kw)
    if name == "average_precision":
        return skm.average_precision_score(yt, ys, pos_label=pos_label, **kw)
    return getattr(skm, name)(yt, yp, **({} if name == "max_error" else kw))


def _split(rng, n, k):
    """``k`` chunk boundaries of unequal sizes, some chunks empty."""
    cuts = np.sort(rng.integers(0, n + 1, size=k - 1))
    cuts[1] = cuts[0]  # an empty chunk
    return np.split(np.arange(n), cuts)


def _run(pe, chunks, yt, yp, ys, w, rng):
    states = [pe.chunk(yt[i], None if yp is None else yp[i], None if ys is None else ys[i],
                       None if w is None else w[i]) for i in chunks]
    states = [pickle.loads(pickle.dumps(s)) for s in states]
    flat = pe.merge(*states)
    order = rng.permutation(len(states))  # a different tree: pairs, in another order
    tree = [states[i] for i in order]
    while len(tree) > 1:
        tree = [pe.merge(*tree[j:j + 2]) for j in range(0, len(tree), 2)]
    a, b = pe.finalize(flat), pe.finalize(tree[0])
    for k in a:
        assert a[k] == pytest.approx(b[k], abs=TOL, rel=TOL), k
    return a


def _multiclass(rng, n=600):
    labels = np.array([0, 1, 2, 3, 5])
    yt = rng.choice(labels, size=n, p=[0.3, 0.3, 0.2, 0.15, 0.05])
    yp = np.where(rng.random(n) < 0.6, yt, rng.choice(labels, size=n))
    yt[:150] = 1  # the first chunks hold one class only
    yt[-100:] = np.where(yt[-100:] == 5, 0, yt[-100:])  # class 5 absent at the end
    w = rng.integers(0, 4, size=n).astype(float)  # zeros included
    logits = rng.normal(size=(n, labels.size)).round(1)  # ties
    ys = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return labels, yt, yp, ys, w


@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_metrics_equal_sklearn(weighted):
    rng = np.random.default_rng(0)
    labels, yt, yp, ys, w = _multiclass(rng)
    w = w if weighted else None
    names = ["accuracy", "balanced_accuracy", "matthews_corrcoef", "cohen_kappa", "hamming_loss",
             "zero_one_loss", "precision_macro", "recall_micro", "f1_weighted", "f1_macro",
             "jaccard_macro", "precision_weighted", "log_loss", "brier_score_loss"]
    pe = PartialEvaluation(names, labels=labels)
    got = _run(pe, _split(rng, yt.size, 8), yt, yp, ys, w, rng)
    for name in names:
        want = _sklearn(name, yt, yp, ys, w, labels, None)
        assert got[name] == pytest.approx(want, abs=TOL, rel=TOL), name
        assert isinstance(got[name], float)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_label", [1, 0])
def test_binary_metrics_equal_sklearn(weighted, pos_label):
    rng = np.random.default_rng(1)
    n = 700
    yt = (rng.random(n) < 0.35).astype(int)
    yt[:120] = 0  # first chunks: one class
    score = rng.integers(0, 40, size=n) / 40.0  # many ties
    score = np.clip(score + 0.3 * yt, 0, 1)
    yp = (score > 0.5).astype(int)
    w = rng.integers(0, 3, size=n).astype(float) if weighted else None
    names = ["f1", "precision", "recall", "jaccard", "accuracy", "matthews_corrcoef",
             "roc_auc", "average_precision", "brier_score_loss", "log_loss"]
    pe = PartialEvaluation(names, labels=[0, 1], pos_label=pos_label)
    ys = score if pos_label == 1 else 1 - score  # the probability of pos_label
    got = _run(pe, _split(rng, n, 8), yt, yp, ys, w, rng)
    for name in names:
        if name == "roc_auc":  # scikit-learn's score is of the greater label
            want = skm.roc_auc_score(yt == pos_label, ys, sample_weight=w)
        elif name == "log_loss":
            want = skm.log_loss(yt, score, sample_weight=w)
        else:
            want = _sklearn(name, yt, yp, ys, w, [0, 1], pos_label)
        assert got[name] == pytest.approx(want, abs=TOL, rel=TOL), name


def test_string_labels_and_table_rows():
    rng = np.random.default_rng(2)
    n = 300
    yt = rng.choice(["cat", "dog"], size=n).astype(object)
    ys = rng.integers(0, 10, size=n) / 10.0
    yp = np.where(ys > 0.5, "dog", "cat").astype(object)
    pe = PartialEvaluation(["f1", "roc_auc", "average_precision"], labels=["cat", "dog"])
    got = _run(pe, _split(rng, n, 5), yt, yp, ys, None, rng)
    assert got["f1"] == pytest.approx(skm.f1_score(yt, yp, pos_label="dog"), abs=TOL)
    assert got["roc_auc"] == pytest.approx(skm.roc_auc_score(yt, ys), abs=TOL)
    assert got["average_precision"] == pytest.approx(
        skm.average_precision_score(yt, ys, pos_label="dog"), abs=TOL)
    state = pe.chunk(yt, yp, ys)
    assert pe.table_rows(state) == np.unique(ys).size
    assert PartialEvaluation(["accuracy"], labels=[0, 1]).table_rows(
        PartialEvaluation(["accuracy"], labels=[0, 1]).chunk([0, 1], [0, 1])) == 0


@pytest.mark.parametrize("weighted", [False, True])
def test_regression_equal_sklearn(weighted):
    rng = np.random.default_rng(3)
    n = 500
    yt = 1e3 + rng.normal(size=n).round(2)  # a large mean: no cancellation allowed
    yp = yt + rng.normal(scale=0.5, size=n)
    w = rng.integers(0, 4, size=n).astype(float) if weighted else None
    names = ["mean_absolute_error", "mean_squared_error", "root_mean_squared_error", "r2_score",
             "explained_variance_score", "mean_absolute_percentage_error", "max_error",
             "median_absolute_error"]
    pe = PartialEvaluation(names)
    got = _run(pe, _split(rng, n, 8), yt, yp, None, w, rng)
    for name in names:
        want = _sklearn(name, yt, yp, None, w, None, None)
        assert got[name] == pytest.approx(want, abs=TOL, rel=1e-11), name


@pytest.mark.parametrize("weighted", [False, True])
def test_regression_values_are_the_streams(weighted):
    """One definition: a chunked value is the stream's ``compute`` of the same chunks
    (merged), to the bit; R^2 and explained variance equal the one-shot functions."""
    from metrix.stream._functional import merge_states
    from metrix.stream._regression import RegressionStream

    keys = {"mean_squared_error": "mse", "root_mean_squared_error": "rmse",
            "mean_absolute_error": "mae", "mean_absolute_percentage_error": "mape",
            "max_error": "max_error"}
    pe = PartialEvaluation([*keys, "r2_score", "explained_variance_score"])
    rng = np.random.default_rng(11)
    for n in rng.integers(2, 400, 12):  # non-integral weights: the order of the products
        yt = rng.normal(3.0, 2.0, n)
        yp = yt + rng.normal(1.0, 0.7, n)
        w = rng.random(n) if weighted else None
        parts = [slice(0, n // 3), slice(n // 3, n)]
        got = pe.finalize(pe.merge([pe.chunk(yt[p], yp[p], None, None if w is None else w[p])
                                    for p in parts]))
        for name, key in keys.items():
            stream = RegressionStream(key)
            cw = None if w is None or key == "max_error" else w  # max_error: no weights
            states = [stream.update(stream.init(xp=np), yt[p], yp[p],
                                    None if cw is None else cw[p]) for p in parts]
            assert got[name] == float(stream.compute(merge_states(*states))), (n, name)
        for name in ("r2_score", "explained_variance_score"):
            want = float(getattr(metrix, name)(yt, yp, sample_weight=w))
            assert got[name] == pytest.approx(want, abs=TOL, rel=1e-13), (n, name)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 301])
def test_median_absolute_error_from_the_table_of_errors(n):
    # odd and even counts, repeated errors across chunks, zero weights
    rng = np.random.default_rng(n)
    yt = rng.integers(0, 5, n).astype(float)
    yp = rng.integers(0, 5, n).astype(float)  # few distinct errors
    pe = PartialEvaluation(["median_absolute_error"])
    for w in (None, rng.integers(0, 3, n).astype(float)):
        if w is not None and not w.any():
            w[0] = 1.0
        got = _run(pe, _split(rng, n, 4) if n > 2 else [np.arange(n)], yt, yp, None, w, rng)
        want = skm.median_absolute_error(yt, yp, sample_weight=w)
        assert got["median_absolute_error"] == pytest.approx(want, abs=TOL)


@pytest.mark.parametrize("weighted", [False, True])
def test_one_vs_rest_auc_and_top_k_equal_sklearn(weighted):
    rng = np.random.default_rng(7)
    labels, yt, yp, ys, w = _multiclass(rng)
    ys = np.round(ys, 2)  # ties within a class's column
    ys /= ys.sum(axis=1, keepdims=True)
    w = w if weighted else None
    names = ["roc_auc_ovr", "roc_auc_ovr_weighted", "top_2_accuracy", "top_3_accuracy",
             "top_4_accuracy"]
    pe = PartialEvaluation(names, labels=labels)
    got = _run(pe, _split(rng, yt.size, 8), yt, None, ys, w, rng)
    for avg in ("macro", "weighted"):
        want = skm.roc_auc_score(yt, ys, multi_class="ovr", average=avg, labels=labels,
                                 sample_weight=w)
        key = "roc_auc_ovr" + ("_weighted" if avg == "weighted" else "")
        assert got[key] == pytest.approx(want, abs=TOL, rel=TOL)
    for k in (2, 3, 4):
        want = skm.top_k_accuracy_score(yt, ys, k=k, labels=labels, sample_weight=w)
        assert got[f"top_{k}_accuracy"] == pytest.approx(want, abs=TOL, rel=TOL)
    binned = PartialEvaluation(["roc_auc_ovr", "roc_auc_ovr_weighted"], labels=labels,
                               method="binned", bins=9)
    approx = _run(binned, _split(rng, yt.size, 5), yt, None, ys, w, rng)
    for key in ("roc_auc_ovr", "roc_auc_ovr_weighted"):
        assert 0 < approx[f"{key}_error_bound"] < 0.5
        assert abs(approx[key] - got[key]) <= approx[f"{key}_error_bound"] + TOL
    with pytest.raises(ValueError, match="probabilities"):
        pe.chunk(yt[:5], None, ys[:5] * 2)
    with pytest.raises(ValueError, match="one column per label"):
        pe.chunk(yt[:5], None, ys[:5, :3])
    absent = pe.finalize(pe.chunk(yt[yt != 5], None, ys[yt != 5]))  # NaN as scikit-learn
    assert np.isnan(absent["roc_auc_ovr"])
    # the weighted mean gives the absent class (support 0) no say, as scikit-learn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.roc_auc_score(yt[yt != 5], ys[yt != 5], multi_class="ovr",
                                 average="weighted", labels=labels)
    assert np.isfinite(want)
    assert absent["roc_auc_ovr_weighted"] == pytest.approx(want, abs=TOL, rel=TOL)


def test_constant_target_and_perfect_prediction():
    pe = PartialEvaluation(["r2_score", "explained_variance_score"])
    yt = np.full(10, 3.0)
    s = pe.merge(pe.chunk(yt[:4], yt[:4] + 1), pe.chunk(yt[4:], yt[4:]))
    assert pe.finalize(s) == {"r2_score": skm.r2_score(yt, np.r_[yt[:4] + 1, yt[4:]]),
                              "explained_variance_score": skm.explained_variance_score(
                                  yt, np.r_[yt[:4] + 1, yt[4:]])}
    s = pe.merge(pe.chunk(yt[:4], yt[:4]), pe.chunk(yt[4:], yt[4:]))
    assert pe.finalize(s) == {"r2_score": 1.0, "explained_variance_score": 1.0}


def test_empty_chunks_are_the_identity():
    pe = PartialEvaluation(["accuracy", "roc_auc", "mean_squared_error"], labels=[0, 1])
    s = pe.chunk([0, 1, 1], [0, 1, 0], [0.2, 0.9, 0.4])
    e = pe.chunk([], [], [])
    for merged in (pe.merge(s, e), pe.merge(e, s), pe.merge(e, s, e)):
        assert pe.finalize(merged) == pe.finalize(s)
    with pytest.raises(ValueError, match="0 sample"):
        pe.finalize(pe.merge(e, e))


def test_binned_error_within_bound():
    rng = np.random.default_rng(4)
    n = 4000
    yt = (rng.random(n) < 0.3).astype(int)
    ys = np.clip(rng.normal(0.4 + 0.25 * yt, 0.2), 0, 1)
    w = rng.integers(0, 3, size=n).astype(float)
    for bins in (5, 20, 200, np.array([0.0, 0.1, 0.5, 0.55, 0.9, 1.0])):
        pe = PartialEvaluation(["roc_auc", "average_precision"], labels=[0, 1],
                               method="binned", bins=bins)
        got = _run(pe, _split(rng, n, 6), yt, None, ys, w, rng)
        exact = {"roc_auc": skm.roc_auc_score(yt, ys, sample_weight=w),
                 "average_precision": skm.average_precision_score(yt, ys, sample_weight=w)}
        for m in exact:
            err = abs(got[m] - exact[m])
            assert err <= got[f"{m}_error_bound"] + 1e-12, (bins, m, err)
    # coarse bins: the bound is not vacuous, and the error is real
    assert 0 < got["roc_auc_error_bound"] < 0.5


def test_binned_auc_bound_is_attained():
    """All positives above all negatives inside one bin: the error is the bound."""
    pos, neg = np.array([0.0, 2.0]), np.array([3.0, 2.0])
    pe = PartialEvaluation(["roc_auc"], labels=[0, 1], method="binned", bins=2)
    yt = np.array([0, 0, 0, 0, 0, 1, 1])
    ys = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9])
    got = pe.finalize(pe.chunk(yt, y_score=ys))
    exact = skm.roc_auc_score(yt, ys)
    assert abs(got["roc_auc"] - exact) == pytest.approx(got["roc_auc_error_bound"])
    assert binned_bounds(pos, neg)["roc_auc"] == got["roc_auc_error_bound"]


def test_values_outside_labels_follow_sklearn_labels():
    yt = np.array([0, 1, 2, 2, 1, 0, 7])
    yp = np.array([0, 2, 2, 1, 1, 7, 7])
    pe = PartialEvaluation(["f1_macro", "precision_micro", "accuracy", "cohen_kappa"],
                           labels=[0, 1, 2])
    got = pe.finalize(pe.chunk(yt, yp))
    assert got["f1_macro"] == pytest.approx(skm.f1_score(yt, yp, labels=[0, 1, 2],
                                                         average="macro"))
    assert got["precision_micro"] == pytest.approx(
        skm.precision_score(yt, yp, labels=[0, 1, 2], average="micro"))
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(yt, yp))
    assert got["cohen_kappa"] == pytest.approx(skm.cohen_kappa_score(yt, yp, labels=[0, 1, 2]))
    with pytest.raises(ValueError, match="not in labels"):
        pe2 = PartialEvaluation(["matthews_corrcoef"], labels=[0, 1, 2])
        pe2.finalize(pe2.chunk(yt, yp))


def test_bad_arguments():
    with pytest.raises(ValueError, match="Unknown metric"):
        PartialEvaluation(["f1_samples"], labels=[0, 1])
    for name in ("top_0_accuracy", "top_x_accuracy", "top__accuracy"):
        with pytest.raises(ValueError, match="Unknown metric"):
            PartialEvaluation([name], labels=[0, 1])
    with pytest.raises(ValueError, match="need labels"):
        PartialEvaluation(["roc_auc_ovr"])
    with pytest.raises(ValueError, match="need labels"):
        PartialEvaluation(["accuracy"])
    with pytest.raises(ValueError, match="binary metrics"):
        PartialEvaluation(["f1"], labels=[0, 1, 2])
    with pytest.raises(ValueError, match="not a valid label"):
        PartialEvaluation(["f1"], labels=[0, 1], pos_label=3)
    with pytest.raises(ValueError, match="bins"):
        PartialEvaluation(["roc_auc"], labels=[0, 1], method="binned")
    with pytest.raises(ValueError, match="not belonging"):
        pe = PartialEvaluation(["log_loss"], labels=[0, 1])
        pe.chunk([0, 2], y_score=[0.1, 0.2])
    assert "max_error" in PARTIAL_METRICS


@pytest.mark.parametrize("weighted", [False, True])
def test_regression_metric_alone_equals_it_among_all(weighted):
    """A chunk updates only the streams its metrics read (R^2 also the squared
    errors): each regression metric alone gives, to the bit, its value among
    all of them, and its state keeps no other stream's sums."""
    from metrix.evaluation.partial import REGRESSION_METRICS

    rng = np.random.default_rng(12)
    y = rng.normal(size=300) * 50
    p = y + rng.normal(size=300)
    y[::9] = 0.0
    w = rng.random(300) if weighted else None
    parts = np.split(np.arange(300), [0, 40, 41, 170])

    def run(names):
        pe = PartialEvaluation(names)
        st = pe.merge(*[pe.chunk(y[i], p[i], sample_weight=None if w is None else w[i])
                        for i in parts])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pe.finalize(st), st

    everything, full = run(list(REGRESSION_METRICS))
    for name in REGRESSION_METRICS:
        alone, st = run([name])
        assert alone[name] == everything[name] or (
            np.isnan(alone[name]) and np.isnan(everything[name])), name
        assert set(st) <= set(full), name
    _, st = run(["mean_absolute_error"])
    assert not any(k.startswith(("rsq_", "rpct_", "rmax_")) for k in st)
