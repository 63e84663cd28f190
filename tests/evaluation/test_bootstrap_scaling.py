"""Bootstrap at scale: probabilistic-loss paths, the split ranking path, the joint
bootstrap (``bootstrap_many``) and the counter-based Poisson generator."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import metrix
from metrix.evaluation._poisson import poisson_counts
from metrix.evaluation.intervals import bootstrap_many

RNG = np.random.default_rng(11)
N = 240
YB = RNG.integers(0, 2, N)
S = np.round(np.clip(0.3 * YB + 0.7 * RNG.random(N), 0, 1), 1)  # many ties
Y3 = RNG.integers(0, 3, N)
P3 = RNG.dirichlet([1.0, 1.0, 1.0], N)
P3[:5] = [0.0, 1.0, 0.0]  # clipped logs
SW = RNG.random(N) + 0.2
SW[::7] = 0.0  # zero weights
YP = np.where(RNG.random(N) < 0.7, YB, 1 - YB)

CASES = [
    ("log_loss", (YB, S), {"labels": [0, 1]}),
    ("log_loss", (YB, S), {}),
    ("log_loss", (Y3, P3), {}),
    ("log_loss", (Y3, P3), {"labels": [0, 1, 2], "normalize": False}),
    ("brier_score_loss", (YB, S), {"pos_label": 1}),
    ("brier_score_loss", (YB, S), {}),
    ("brier_score_loss", (YB, S), {"pos_label": 0, "scale_by_half": False}),
    ("brier_score_loss", (Y3, P3), {}),
    ("roc_auc_score", (YB, S), {}),
    ("average_precision_score", (YB, S), {"pos_label": 1}),
    ("average_precision_score", (YB, S), {"pos_label": 0}),
]


def _ids(cases):
    return [f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in c[2].items())}" for c in cases]


def loop_of(fn):
    """``fn`` as a plain callable: the bootstrap calls it once per resample
    (the loop fallback), on the same draws as its vectorised paths."""
    def metric_call(*arrays, sample_weight=None, **kw):
        if sample_weight is not None:
            kw["sample_weight"] = sample_weight
        return fn(*arrays, **kw)
    return metric_call


def _both(fn, args, kw, **opts):
    """The bootstrap of ``fn`` and of the loop of its calls, on the same draws."""
    common = dict(n_resamples=30, random_state=2, batch_size=7)
    common.update(opts)
    return (metrix.bootstrap(fn, *args, **common, **kw),
            metrix.bootstrap(loop_of(fn), *args, **common, **kw))


def _assert_same_result(got, want, rtol=1e-10):
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name,args,kw", CASES, ids=_ids(CASES))
def test_path_equals_loop_on_the_same_resamples(name, args, kw, weighted, resampling):
    fn = getattr(metrix, name)
    kw = dict(kw, sample_weight=SW) if weighted else dict(kw)
    _assert_same_result(*_both(fn, args, kw, method="bca", resampling=resampling))


YML = RNG.integers(0, 2, (N, 4))
YMLP = RNG.integers(0, 2, (N, 4))
YML[:, 3], YML[:20], YMLP[:10] = 0, 0, 0  # a label never true; rows without labels
SML = np.round(RNG.random((N, 4)), 1)  # ties
P3T = np.round(P3, 1)
P3T /= P3T.sum(axis=1, keepdims=True)  # ties within the class columns
YHAT1 = YB + np.round(RNG.normal(size=N), 1)
ROW_CASES = [
    ("roc_auc_score", (Y3, P3T), {"multi_class": "ovr"}),
    ("roc_auc_score", (Y3, P3T), {"multi_class": "ovr", "average": "weighted", "sw": 1}),
    ("roc_auc_score", (Y3, P3T), {"multi_class": "ovr", "labels": [0, 1, 2], "sw": 1}),
    ("top_k_accuracy_score", (Y3, P3T), {"k": 2, "labels": [0, 1, 2]}),
    ("top_k_accuracy_score", (Y3, P3T), {"k": 2, "labels": [0, 1, 2], "sw": 1}),
    ("label_ranking_average_precision_score", (YML, SML), {"sw": 1}),
    ("ndcg_score", (YML, SML), {"k": 2}),
    ("dcg_score", (YML, SML), {"sw": 1}),
    ("coverage_error", (YML, SML), {}),
    ("label_ranking_loss", (YML, SML), {"sw": 1}),
    ("accuracy_score", (YML, YMLP), {"sw": 1}),
    ("hamming_loss", (YML, YMLP), {}),
    ("f1_score", (YML, YMLP), {"average": "micro"}),
    ("precision_score", (YML, YMLP), {"average": "macro", "zero_division": 1, "sw": 1}),
    ("recall_score", (YML, YMLP), {"average": "weighted"}),
    ("f1_score", (YML, YMLP), {"average": "samples", "sw": 1}),
    ("precision_score", (YML, YMLP), {"average": "samples", "zero_division": 1}),
    ("max_error", (YB.astype(float), YHAT1), {}),
    ("median_absolute_error", (YB.astype(float), YHAT1), {}),
    ("median_absolute_error", (YB.astype(float), YHAT1), {"sw": 1}),
]


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
@pytest.mark.parametrize("name,args,kw", ROW_CASES, ids=_ids(ROW_CASES))
def test_row_paths_equal_the_loop_on_the_same_resamples(name, args, kw, resampling):
    # per-sample means, order statistics and one-vs-rest AUC: vectorised, and the
    # loop's values (bca's jackknife included)
    fn = getattr(metrix, name)
    kw = dict(kw)
    if kw.pop("sw", None):
        kw["sample_weight"] = SW
    if name == "max_error" and resampling == "poisson":
        # the loop cannot give a metric without sample_weight its Poisson counts; the
        # largest error among the rows drawn at least once is the definition
        r = metrix.bootstrap(fn, *args, n_resamples=30, random_state=2, resampling=resampling)
        assert r.low <= fn(*args) and r.high <= fn(*args)
        return
    with np.errstate(all="ignore"):
        _assert_same_result(*_both(fn, args, kw, method="bca", resampling=resampling))


@pytest.mark.parametrize("name,args,kw", [
    ("top_k_accuracy_score", (Y3, P3T), {"k": 2}),
    ("top_k_accuracy_score", (Y3, P3T), {"k": 2, "labels": [0, 1, 2], "normalize": False}),
    ("roc_auc_score", (Y3, P3T), {"multi_class": "ovo"}),
    ("median_absolute_error", (Y3, P3T[:, 0]), {"multioutput": "raw_values"}),
    ("f1_score", (YML, YMLP), {"average": "samples", "zero_division": np.nan}),
])
def test_calls_whose_resamples_read_their_rows_otherwise(name, args, kw):
    # a resample's call could read its rows otherwise (labels rediscovered,
    # scikit-learn's nan-average): the loop's values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_same_result(*_both(getattr(metrix, name), args, kw, n_resamples=12))


@pytest.mark.parametrize("name", ["roc_auc_score", "average_precision_score"])
def test_single_class_resamples_give_nan_as_the_loop(name):
    """Few positives: some resamples draw none; the path's value (AUC: NaN; AP: 0, as
    scikit-learn) is the loop's."""
    y = np.array([0, 0, 0, 0, 1, 0, 0, 0])
    s = np.array([0.1, 0.4, 0.4, 0.2, 0.4, 0.9, 0.1, 0.3])  # ties across the classes
    w = np.array([1.0, 0.0, 2.0, 1.0, 1.0, 0.5, 1.0, 3.0])
    fn = getattr(metrix, name)
    with np.errstate(all="ignore"):
        got, want = _both(fn, (y, s), {"sample_weight": w}, n_resamples=60)
    if name == "roc_auc_score":  # a NaN among the resampled values: NaN bounds
        assert all(np.isnan(float(v)) for v in (*got, *want))
    else:
        assert got.low == 0.0 < got.high  # AP: some resamples without a positive
        _assert_same_result(got, want, rtol=1e-12)


def test_a_resample_the_metric_refuses_raises_as_the_loop():
    """log_loss without labels rediscovers the classes: a resample missing one fails."""
    y = np.array([0] * 20 + [1])
    s = np.linspace(0.1, 0.9, 21)
    for metric in (metrix.log_loss, loop_of(metrix.log_loss)):
        with pytest.raises(ValueError):
            metrix.bootstrap(metric, y, s, n_resamples=50, random_state=0)
    # with labels declared, every resample is scored
    r = metrix.bootstrap(metrix.log_loss, y, s, labels=[0, 1], n_resamples=50,
                         random_state=0)
    assert math.isfinite(r.low) and r.low < r.high


@pytest.mark.parametrize("name", ["roc_auc_score", "average_precision_score"])
def test_ranking_without_ties_equals_the_loop(name):
    """Scores without ties (each its own group): the loop's values."""
    y = RNG.integers(0, 2, 300)
    s = RNG.random(300) + 0.2 * y
    for method in ("percentile", "bca"):
        _assert_same_result(*_both(getattr(metrix, name), (y, s), {}, method=method),
                            rtol=1e-12)


# -- bootstrap_many ------------------------------------------------------------------

Y = RNG.normal(size=N)
YHAT = Y + 0.3 * RNG.normal(size=N)


def _calls(weighted):
    sw = {"sample_weight": SW} if weighted else {}
    return {
        "accuracy": (metrix.accuracy_score, (YB, YP), dict(sw)),
        "f1": (metrix.f1_score, (YB, YP), {"pos_label": 1, **sw}),
        "mcc": (metrix.matthews_corrcoef, (YB, YP), dict(sw)),
        "roc_auc": (metrix.roc_auc_score, (YB, S), dict(sw)),
        "ap": (metrix.average_precision_score, (YB, S), {"pos_label": 1, **sw}),
        "log_loss": (metrix.log_loss, (YB, S), {"labels": [0, 1], **sw}),
        "brier": (metrix.brier_score_loss, (YB, S), {"pos_label": 1, **sw}),
        "r2": (metrix.r2_score, (Y, YHAT), dict(sw)),
        "max_error": (metrix.max_error, (Y, YHAT), {}),
        "d2_absolute_error": (metrix.d2_absolute_error_score, (Y, YHAT), {}),  # the loop
        "broken": (metrix.f1_score, (Y3, YP), {}),  # multiclass with average="binary"
    }


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_bootstrap_many_equals_separate_calls_on_the_same_draws(weighted, resampling):
    calls = _calls(weighted)
    opts = dict(n_resamples=25, random_state=5, batch_size=6, method="bca",
                resampling=resampling)
    many = bootstrap_many(calls, **opts)
    assert list(many) == list(calls)
    assert isinstance(many["broken"], ValueError)
    for name, (fn, args, kw) in calls.items():
        if name == "broken":
            continue
        # the loop of the metric's calls: rows drawn one by one, as the shared draw
        # (a metric without sample_weight: Poisson counts need its own bootstrap)
        weighs = "sample_weight" in inspect.signature(fn).parameters
        res = metrix.bootstrap(loop_of(fn) if weighs else fn, *args, **opts, **kw)
        assert float(many[name][1]) == pytest.approx(float(fn(*args, **kw)), rel=1e-12)
        np.testing.assert_allclose(np.asarray(many[name][0], dtype=float),
                                   np.asarray(res, dtype=float), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
def test_bootstrap_many_two_batches_in_flight_give_the_same_intervals(monkeypatch,
                                                                      resampling):
    # batches are drawn in order on the calling thread: a worker thread changes nothing
    import metrix.evaluation.intervals as iv

    # paths only (a loop fallback keeps one thread: catch_warnings is not thread-safe)
    calls = {k: v for k, v in _calls(False).items() if k not in ("broken", "d2_absolute_error")}
    opts = dict(n_resamples=23, random_state=3, batch_size=4, resampling=resampling)
    monkeypatch.setenv("METRIX_NUM_THREADS", "1")
    one = bootstrap_many(calls, **opts)
    monkeypatch.setenv("METRIX_NUM_THREADS", "2")
    monkeypatch.setattr(iv, "_THREADED_ELEMENTS", 1)
    used = []
    real = iv.ThreadPoolExecutor
    monkeypatch.setattr(iv, "ThreadPoolExecutor", lambda *a: used.append(a) or real(*a))
    two = bootstrap_many(calls, **opts)
    assert len(used) == 1  # the worker thread ran
    for name in calls:
        assert tuple(two[name][0]) == tuple(one[name][0]), name
    fn, args, kw = calls["roc_auc"]  # and bootstrap of one metric
    monkeypatch.setenv("METRIX_NUM_THREADS", "1")
    alone = metrix.bootstrap(fn, *args, **opts, **kw)
    monkeypatch.setenv("METRIX_NUM_THREADS", "2")
    assert tuple(metrix.bootstrap(fn, *args, **opts, **kw)) == tuple(alone)
    assert len(used) == 2
    with_loop = dict(calls, d2_absolute_error=_calls(False)["d2_absolute_error"])
    bootstrap_many(with_loop, **opts)
    assert len(used) == 2  # a loop fallback: one thread


def test_bootstrap_many_is_joint_and_reports_progress():
    seen = []
    calls = {"acc": (metrix.accuracy_score, (YB, YP), {}),
             "err": (metrix.zero_one_loss, (YB, YP), {})}
    out = bootstrap_many(calls, n_resamples=20, random_state=0, batch_size=8,
                         progress=lambda d, t: seen.append((d, t)))
    assert seen == [(8, 20), (16, 20), (20, 20)]
    # zero_one_loss = 1 - accuracy on every shared resample: mirrored bounds
    acc, err = out["acc"][0], out["err"][0]
    assert acc.low == pytest.approx(1 - err.high) and acc.high == pytest.approx(1 - err.low)


def test_bootstrap_many_rejects_different_row_counts():
    with pytest.raises(ValueError, match="same number of rows"):
        bootstrap_many({"a": (metrix.accuracy_score, (YB, YP), {}),
                        "b": (metrix.accuracy_score, (YB[:-1], YP[:-1]), {})},
                       n_resamples=5)


# -- the counter-based Poisson generator -----------------------------------------------

def test_poisson_counts_are_the_same_for_any_partitioning():
    whole = poisson_counts(123, 1000, 5000, 40, 9)
    assert whole.shape == (9, 5000) and whole.dtype == np.uint8
    rows = np.concatenate([poisson_counts(123, 1000 + a, b - a, 40, 9)
                           for a, b in ((0, 1), (1, 2500), (2500, 3333), (3333, 5000))],
                          axis=1)
    res = np.concatenate([poisson_counts(123, 1000, 5000, 40 + a, b - a)
                          for a, b in ((0, 4), (4, 5), (5, 9))], axis=0)
    np.testing.assert_array_equal(whole, rows)
    np.testing.assert_array_equal(whole, res)
    # block shapes that take the many-resamples-per-chunk branch
    np.testing.assert_array_equal(poisson_counts(123, 1000, 7, 40, 9), whole[:, :7])
    assert not np.array_equal(poisson_counts(124, 1000, 5000, 40, 9), whole)
    assert poisson_counts(0, 0, 0, 0, 3).shape == (3, 0)
    with pytest.raises(ValueError, match="row_start"):
        poisson_counts(0, -1, 5, 0, 1)


def test_poisson_counts_follow_poisson_one():
    k = poisson_counts(7, 0, 200_000, 0, 5).astype(np.float64)
    n = k.size  # 1e6 draws: the mean's sd is 1e-3, the variance's about 2e-3
    assert abs(k.mean() - 1) < 5e-3
    assert abs(k.var() - 1) < 1e-2
    freq = np.bincount(k.astype(np.int64).ravel(), minlength=6)[:6] / n
    pmf = np.array([math.exp(-1) / math.factorial(j) for j in range(6)])
    assert np.all(np.abs(freq - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / n) + 1e-6)
    # neighbouring rows and resamples are not correlated
    assert abs(np.corrcoef(k[0, :-1], k[0, 1:])[0, 1]) < 0.02
    assert abs(np.corrcoef(k[0], k[1])[0, 1]) < 0.02


def test_poisson_and_multinomial_intervals_agree_on_large_n():
    rng = np.random.default_rng(3)
    n, b = 20_000, 400
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99)
    kw = dict(n_resamples=b, random_state=1, labels=[0, 1])
    mult = metrix.bootstrap(metrix.log_loss, y, s, **kw)
    pois = metrix.bootstrap(metrix.log_loss, y, s, resampling="poisson", **kw)
    se = mult.standard_error
    # Monte Carlo error of the SE ~ se / sqrt(2B) each; of a 2.5% quantile ~ 2.7 se / sqrt(B)
    assert abs(pois.standard_error - se) < 5 * math.sqrt(2) * se / math.sqrt(2 * b)
    tol = 5 * math.sqrt(2) * 2.7 * se / math.sqrt(b)
    assert abs(pois.low - mult.low) < tol and abs(pois.high - mult.high) < tol
