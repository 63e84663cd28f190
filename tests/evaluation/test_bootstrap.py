"""metrix.bootstrap: vectorised paths vs the loop, scipy.stats.bootstrap, every CPU backend."""

from __future__ import annotations

import importlib.util
import math
import statistics

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from metrix.evaluation.intervals import bootstrap_many

RNG = np.random.default_rng(7)
N = 400
YT = RNG.integers(0, 3, N)
YP = np.where(RNG.random(N) < 0.7, YT, RNG.integers(0, 3, N))
SW = RNG.random(N) + 0.5
YB = (YT == 2).astype(np.int64)
SCORE = np.round(RNG.random(N) + 0.4 * YB, 2)  # ties on purpose
Y = RNG.normal(size=N) + 3.0
P = Y + 0.4 * RNG.normal(size=N)

CASES = [
    ("accuracy_score", (YT, YP), {}),
    ("f1_score", (YT, YP), {"average": "macro"}),
    ("f1_score", (YT, YP), {"average": "micro"}),
    ("precision_score", (YT, YP), {"average": "weighted"}),
    ("recall_score", (YT, YP), {"average": None}),
    ("fbeta_score", (YT, YP), {"average": "macro", "beta": 2.0}),
    ("f1_score", (YB, (YP == 2).astype(int)), {}),
    ("balanced_accuracy_score", (YT, YP), {"adjusted": True}),
    ("matthews_corrcoef", (YT, YP), {}),
    ("cohen_kappa_score", (YT, YP), {}),
    ("roc_auc_score", (YB, SCORE), {}),
    ("average_precision_score", (YB, SCORE), {}),
    ("mean_absolute_error", (Y, P), {}),
    ("mean_squared_error", (Y, P), {}),
    ("root_mean_squared_error", (Y, P), {}),
    ("r2_score", (Y, P), {}),
    ("explained_variance_score", (Y, P), {}),
    ("mean_absolute_percentage_error", (Y, P), {}),
]


def _ids(cases):
    return [f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in c[2].items())}" for c in cases]


def loop_of(fn):
    """``fn`` as a plain callable: the bootstrap calls it once per resample
    (the loop fallback), on the same index draws as its vectorised paths."""
    def metric_call(*arrays, sample_weight=None, **kw):
        return fn(*arrays, sample_weight=sample_weight, **kw)
    return metric_call


def _assert_same_result(got, want, rtol=1e-9):
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=rtol, atol=1e-12)


#: unweighted label metrics may draw their confusion cells (the same law, not the
#: same draws as the loop): compared with the loop weighted, and in distribution
#: unweighted (test_label_metrics_agree_in_distribution_with_per_sample_draws)
EXACT_CASES = [(*c, True) for c in CASES] + [(*c, False) for c in CASES[10:]]


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("name,args,kw,weighted", EXACT_CASES,
                         ids=[f"{i}-{'weighted' if c[3] else 'unweighted'}"
                              for i, c in zip(_ids(EXACT_CASES), EXACT_CASES)])
def test_bootstrap_equals_the_loop_of_metric_calls(name, args, kw, weighted, method):
    """Same draws: the interval and standard error of the loop of scikit-learn's
    calls (percentile) or of the metric's own calls (bca: its jackknife is N
    more calls)."""
    fn = getattr(metrix, name)
    kw = dict(kw, sample_weight=SW) if weighted else dict(kw)
    got = metrix.bootstrap(fn, *args, n_resamples=40, random_state=3, method=method, **kw)
    ref = getattr(skm, name) if method == "percentile" else fn
    want = metrix.bootstrap(loop_of(ref), *args, n_resamples=40, random_state=3,
                            method=method, **kw)
    _assert_same_result(got, want)


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("name,args,kw", CASES[:10], ids=_ids(CASES[:10]))
def test_label_metrics_agree_in_distribution_with_per_sample_draws(name, args, kw, method,
                                                                   resampling):
    """Unweighted label metrics against the same metric with unit weights (rows
    drawn one by one, as the loop): the same bounds and standard error, up to
    the Monte Carlo error of two independent bootstraps."""
    fn = getattr(metrix, name)
    b = 3000
    cell = metrix.bootstrap(fn, *args, n_resamples=b, random_state=0, method=method,
                            resampling=resampling, **kw)
    samp = metrix.bootstrap(fn, *args, n_resamples=b, random_state=1, method=method,
                            resampling=resampling, sample_weight=np.ones(N), **kw)
    se = np.asarray(samp.standard_error)
    # Monte Carlo error of a 2.5% quantile ~ 2.7 se / sqrt(B), of the SE ~ se / sqrt(2B)
    tol_q = 5 * math.sqrt(2) * 2.7 * se / math.sqrt(b) + 1e-12
    np.testing.assert_array_less(np.abs(np.asarray(cell.low) - samp.low), tol_q)
    np.testing.assert_array_less(np.abs(np.asarray(cell.high) - samp.high), tol_q)
    np.testing.assert_array_less(np.abs(np.asarray(cell.standard_error) - se),
                                 5 * math.sqrt(2) * se / math.sqrt(2 * b) + 1e-12)


SCIPY_CASES = [
    ("f1_score", (YT, YP), {"average": "macro"}),
    ("matthews_corrcoef", (YT, YP), {}),
    ("roc_auc_score", (YB, SCORE), {}),
    ("r2_score", (Y, P), {}),
    ("median_absolute_error", (Y, P), {}),  # the loop fallback
]


@pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="scipy not installed")
@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("name,args,kw", SCIPY_CASES, ids=_ids(SCIPY_CASES))
def test_agrees_with_scipy_bootstrap(name, args, kw, method):
    from scipy import stats

    fn = getattr(metrix, name)
    b = 2000 if name != "median_absolute_error" else 400
    ref = stats.bootstrap(args, lambda *a: fn(*a, **kw), n_resamples=b, paired=True,
                          vectorized=False, method="BCa" if method == "bca" else method,
                          confidence_level=0.9, random_state=np.random.default_rng(11))
    got = metrix.bootstrap(fn, *args, n_resamples=b, method=method, confidence_level=0.9,
                           random_state=5, **kw)
    se = ref.standard_error
    alpha = 0.05
    z = statistics.NormalDist().inv_cdf(alpha)
    phi = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    # two independent estimates of a quantile: sd ~ sqrt(2 a (1-a) / B) / phi(z) * se
    tol = 5 * math.sqrt(2 * alpha * (1 - alpha) / b) / phi * se
    assert abs(got.low - ref.confidence_interval.low) < tol
    assert abs(got.high - ref.confidence_interval.high) < tol
    assert abs(got.standard_error - se) < 5 * math.sqrt(2) * se / math.sqrt(2 * b)


def _backends():
    out = [pytest.param(("numpy", lambda a: a), id="numpy")]
    if importlib.util.find_spec("torch"):
        import torch

        out.append(pytest.param(("torch", torch.asarray), id="torch"))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        out.append(pytest.param(("jax", jnp.asarray), id="jax"))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as xps

        out.append(pytest.param(("array_api_strict", xps.asarray), id="array-api-strict"))
    return out


BACKEND_CASES = [CASES[1], CASES[8], CASES[10], CASES[15],
                 ("f1_score", (YT, YP), {"average": "macro", "sample_weight": SW}),
                 ("median_absolute_error", (Y, P), {})]


@pytest.mark.parametrize("resampling", ["multinomial", "poisson"])
@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name,args,kw", BACKEND_CASES, ids=_ids(BACKEND_CASES))
def test_every_cpu_backend(name, args, kw, backend, resampling):
    """Result on the inputs' namespace/device, reproducible per seed, close to NumPy's."""
    from array_api_compat import array_namespace

    fn = getattr(metrix, name)
    lib, conv = backend
    b = 300
    xargs = tuple(conv(a) for a in args)
    xkw = {k: conv(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    r1 = metrix.bootstrap(fn, *xargs, n_resamples=b, random_state=4, resampling=resampling,
                          **xkw)
    r2 = metrix.bootstrap(fn, *xargs, n_resamples=b, random_state=4, resampling=resampling,
                          **xkw)
    r3 = metrix.bootstrap(fn, *xargs, n_resamples=b, random_state=5, resampling=resampling,
                          **xkw)
    if lib != "numpy":
        xp = array_namespace(xargs[0])
        for v in r1:
            assert array_namespace(v) is xp
            assert v.ndim == 0
    else:
        assert all(type(v) is float for v in r1)  # as the metrics return
    h = [float(np.asarray(v)) for v in r1]
    assert h == [float(np.asarray(v)) for v in r2]  # seeded: reproducible
    assert h != [float(np.asarray(v)) for v in r3]
    ref = metrix.bootstrap(fn, *args, n_resamples=b, random_state=4, resampling=resampling,
                           **kw)
    value = float(np.asarray(fn(*args, **kw)))
    assert h[0] < value < h[1]
    assert abs(h[2] - ref.standard_error) < 0.35 * ref.standard_error
    assert abs(h[0] - ref.low) < 1.5 * ref.standard_error
    assert abs(h[1] - ref.high) < 1.5 * ref.standard_error


def test_float32_inputs_give_float32_bounds():
    torch = pytest.importorskip("torch")
    r = metrix.bootstrap(metrix.r2_score, torch.asarray(Y, dtype=torch.float32),
                         torch.asarray(P, dtype=torch.float32), n_resamples=50, random_state=0)
    assert all(v.dtype == torch.float32 for v in r)


def test_vector_metric_gives_per_class_bounds():
    r = metrix.bootstrap(metrix.recall_score, YT, YP, average=None, n_resamples=200,
                         random_state=0, method="bca")
    assert np.asarray(r.low).shape == (3,)
    value = metrix.recall_score(YT, YP, average=None)
    assert np.all(np.asarray(r.low) < value) and np.all(value < np.asarray(r.high))


def test_string_labels_numpy():
    labels = np.array(["cat", "dog", "eel"])
    r = metrix.bootstrap(metrix.f1_score, labels[YT], labels[YP], average="macro",
                         n_resamples=100, random_state=0)
    ref = metrix.bootstrap(metrix.f1_score, YT, YP, average="macro", n_resamples=100,
                           random_state=0)
    assert r == ref


def test_nan_in_resamples_gives_nan_bounds():
    # f1 with zero_division=nan on a class that is rarely present
    yt = np.array([0] * 50 + [1])
    yp = np.array([0] * 50 + [0])
    r = metrix.bootstrap(metrix.precision_score, yt, yp, zero_division=np.nan,
                         n_resamples=50, random_state=0)
    assert math.isnan(r.low) and math.isnan(r.high)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_batch_size_bounds_the_batch(weighted):
    """Batches of at most ``batch_size`` resamples (the progress reports), the
    same intervals for any batch size, and the single bootstrap's."""
    kw = {"average": "macro", **({"sample_weight": SW} if weighted else {})}
    seen = []
    many = bootstrap_many({"f1": (metrix.f1_score, (YT, YP), kw)}, n_resamples=25,
                          batch_size=7, random_state=2, progress=lambda d, t: seen.append(d))
    assert seen == [7, 14, 21, 25]
    results = [metrix.bootstrap(metrix.f1_score, YT, YP, n_resamples=25, batch_size=size,
                                random_state=2, **kw) for size in (7, 25, None)]
    for r in results[1:]:
        _assert_same_result(r, results[0], rtol=1e-12)
    want = metrix.bootstrap(loop_of(metrix.f1_score), YT, YP, n_resamples=25, batch_size=7,
                            random_state=2, **kw)
    _assert_same_result(many["f1"][0], want, rtol=1e-12)
    if weighted:  # the rows drawn one by one: the loop's draws
        _assert_same_result(results[0], want)


@pytest.mark.parametrize("kw,match", [
    ({"method": "student"}, "method must be one of"),
    ({"confidence_level": 1.5}, "confidence_level must be"),
    ({"n_resamples": 1}, "n_resamples must be an integer >= 2"),
    ({"resampling": "jackknife"}, "resampling must be one of"),
    ({"batch_size": 0}, "batch_size must be a positive integer"),
    ({"random_state": "seed"}, "random_state must be"),
])
def test_parameter_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        metrix.bootstrap(metrix.accuracy_score, YT, YP, **kw)


def test_input_errors():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metrix.bootstrap(metrix.accuracy_score, YT, YP[:-1])
    with pytest.raises(TypeError, match="metric must be callable"):
        metrix.bootstrap("f1", YT, YP)
    fn = metrix.adjusted_rand_score  # neither vectorised nor weighted
    with pytest.raises(ValueError, match="resampling='poisson' needs"):
        metrix.bootstrap(fn, YT, YP, resampling="poisson", n_resamples=5)


def test_metric_errors_propagate():
    with pytest.raises(ValueError, match="average"):
        metrix.bootstrap(metrix.f1_score, YT, YP, average="binary", n_resamples=5)


@pytest.mark.parametrize("name", ["r2_score", "explained_variance_score"])
@pytest.mark.parametrize("perfect", [True, False])
def test_batched_regression_keeps_force_finite_false(name, perfect):
    """Constant targets: each resample's value is the one-shot function's (NaN
    for a perfect prediction and -inf otherwise with ``force_finite=False``,
    whose interval is then NaN; 1.0 and 0.0 with the default), not 1.0."""
    y = np.full(40, 3.0)
    p = y if perfect else y + np.linspace(-1.0, 1.0, 40)
    fn = getattr(metrix, name)
    assert math.isnan(fn(y, p, force_finite=False)) == perfect
    got = metrix.bootstrap(fn, y, p, n_resamples=20, random_state=0, force_finite=False)
    assert math.isnan(got.low) and math.isnan(got.high)
    got = metrix.bootstrap(fn, y, p, n_resamples=20, random_state=0)
    assert got.low == got.high == (1.0 if perfect else 0.0)
