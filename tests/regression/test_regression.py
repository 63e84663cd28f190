"""Unit tests of the regression family: quantile op, stability, errors, tracing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.utils.stats import _weighted_percentile

import metrix
from conformance.util import jax_x64
from metrix import UndefinedMetricWarning
from metrix.backends import ops
from metrix.backends._quantile import weighted_quantile

rng = np.random.default_rng(11)
N = 80
YT = rng.normal(size=N) * 2 + 1
YP = YT + rng.normal(size=N)
YT2 = rng.normal(size=(N, 3))
YP2 = YT2 + rng.normal(size=(N, 3)) * 0.5
W = rng.random(N)
YPOS = rng.gamma(2.0, size=N) + 0.1
PPOS = YPOS * np.exp(rng.normal(size=N) * 0.2)


def _np(x):
    from conformance.util import to_numpy

    return to_numpy(x)


# -- weighted quantile ----------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average", [False, True])
def test_weighted_quantile_matches_sklearn_on_ties_and_zero_weights(seed, average):
    import array_api_compat.numpy as xp

    r = np.random.default_rng(seed)
    for _ in range(150):
        n, k = int(r.integers(1, 10)), int(r.integers(1, 4))
        x = r.integers(0, 4, (n, k)).astype(float)          # many ties
        w = r.integers(0, 3, n).astype(float)                # many zero weights
        if w.sum() == 0:
            w[-1] = 1.0
        q = float(r.choice([0.0, 0.1, 0.25, 0.5, 0.75, 1.0, r.random()]))
        xx = x[:, 0] if k == 1 and r.random() < 0.5 else x
        expected = _weighted_percentile(xx, w, 100 * q, average=average)
        got = weighted_quantile(xx, q, weights=w, average=average, xp=xp, adapter=ops(xp))
        np.testing.assert_allclose(got, expected, err_msg=f"{xx} {w} {q}")
        unit = weighted_quantile(xx, q, average=average, xp=xp, adapter=ops(xp))
        np.testing.assert_allclose(unit, _weighted_percentile(xx, np.ones(n), 100 * q,
                                                              average=average))


def test_weighted_quantile_shapes_nan_and_all_zero():
    import array_api_compat.numpy as xp

    x = np.arange(12.0).reshape(6, 2)
    assert weighted_quantile(x, [0.2, 0.5, 0.9], xp=xp, adapter=ops(xp)).shape == (2, 3)
    assert weighted_quantile(x[:, 0], [0.2, 0.5], xp=xp, adapter=ops(xp)).shape == (2,)
    assert np.ndim(weighted_quantile(x[:, 0], 0.5, xp=xp, adapter=ops(xp))) == 0
    np.testing.assert_allclose(weighted_quantile(x.T, 0.5, axis=1, xp=xp, adapter=ops(xp)),
                               weighted_quantile(x, 0.5, xp=xp, adapter=ops(xp)))
    assert np.isnan(weighted_quantile(x, 0.5, weights=np.zeros(6), xp=xp, adapter=ops(xp))).all()
    xn = np.array([1.0, np.nan, 3.0, 2.0])
    w = np.ones(4)
    np.testing.assert_allclose(weighted_quantile(xn, 0.5, weights=w, average=True, xp=xp,
                                                 adapter=ops(xp)),
                               _weighted_percentile(xn, w, 50, average=True))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        weighted_quantile(x, 1.5, xp=xp, adapter=ops(xp))


def test_weighted_quantile_every_backend(xp):
    x = rng.integers(0, 5, (40, 2)).astype(float)
    w = rng.integers(0, 3, 40).astype(float)
    got = ops(xp.xp).weighted_quantile(xp.asarray(x), 0.3, weights=xp.asarray(w),
                                       average=True)
    np.testing.assert_allclose(xp.to_numpy(got), _weighted_percentile(x, w, 30, average=True))
    got1 = ops(xp.xp).weighted_quantile(xp.asarray(x[:, 0]), 0.5, average=True)
    np.testing.assert_allclose(xp.to_numpy(got1), np.median(x[:, 0]))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_weighted_median_averages_at_half_the_weight(lib):
    """A cumulative weight of exactly one half: the mean of the two middle
    errors, as scikit-learn (integer and unit weights make it frequent)."""
    import array_api_compat.numpy as xp

    mod = pytest.importorskip(lib)
    conv = (lambda a: a) if lib == "numpy" else mod.asarray
    y, p = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    assert float(metrix.median_absolute_error(conv(y), conv(p),
                                              sample_weight=conv(np.ones(4)))) == 2.5
    r = np.random.default_rng(9)
    yt, yp = r.normal(size=(41, 3)), r.normal(size=(41, 3))
    for w in (r.integers(0, 3, 41).astype(float), np.ones(41), r.random(41)):
        for kw in ({"multioutput": "raw_values"}, {}):
            got = metrix.median_absolute_error(conv(yt), conv(yp), sample_weight=conv(w), **kw)
            np.testing.assert_allclose(_np(got), skm.median_absolute_error(
                yt, yp, sample_weight=w, **kw), rtol=1e-12)
    got = metrix.median_absolute_error(conv(YT), conv(YP), sample_weight=conv(W))
    np.testing.assert_allclose(_np(got), skm.median_absolute_error(YT, YP, sample_weight=W),
                               rtol=1e-12)
    assert ops(xp).weighted_quantile(np.arange(5.0), 0.5) == 2.0


# -- numerical stability --------------------------------------------------------

@pytest.mark.parametrize("metric", ["r2_score", "explained_variance_score"])
def test_float32_large_mean_keeps_the_score(xp, metric):
    r = np.random.default_rng(3)
    y = (1e4 + r.normal(size=5000) * 0.5).astype(np.float32)
    p = (y + r.normal(size=5000).astype(np.float32) * 0.2).astype(np.float32)
    expected = getattr(skm, metric)(y.astype(np.float64), p.astype(np.float64))
    def f32(a):
        return xp.xp.astype(xp.asarray(a), xp.xp.float32)

    got = getattr(metrix, metric)(f32(y), f32(p))
    # a one-pass sum-of-squares in float32 loses this score entirely
    assert abs(float(xp.to_numpy(got)) - expected) < 1e-3
    assert isinstance(got, float) or "float32" in str(got.dtype)  # NumPy: a Python float


def test_float32_accumulates_in_float64():
    y = np.full(2**25, 1.0, dtype=np.float32)
    p = np.zeros(2**25, dtype=np.float32)
    # a float32 running sum would stop at 2**24
    assert metrix.mean_absolute_error(y, p) == np.float32(1.0)


# -- values, placement, multioutput ---------------------------------------------------

def test_mixed_numpy_and_torch_inputs_give_torch():
    torch = pytest.importorskip("torch")
    got = metrix.mean_squared_error(YT, torch.asarray(YP), sample_weight=W)
    assert isinstance(got, torch.Tensor) and got.ndim == 0
    np.testing.assert_allclose(got.item(), skm.mean_squared_error(YT, YP, sample_weight=W))


def test_100_outputs_raw_values_equal_columns():
    yt, yp = rng.normal(size=(300, 100)), rng.normal(size=(300, 100))
    w = rng.random(300)
    for name in ("mean_squared_error", "r2_score", "median_absolute_error",
                 "d2_pinball_score", "mean_absolute_error"):
        got = getattr(metrix, name)(yt, yp, multioutput="raw_values", sample_weight=w)
        cols = [getattr(skm, name)(yt[:, j], yp[:, j], sample_weight=w) for j in range(100)]
        np.testing.assert_allclose(got, cols, rtol=1e-10, err_msg=name)


_BLOCKED = [
    ("mean_absolute_error", {}), ("mean_squared_error", {}),
    ("root_mean_squared_error", {}), ("mean_squared_log_error", {}),
    ("mean_absolute_percentage_error", {}), ("mean_pinball_loss", {"alpha": 0.3}),
    ("explained_variance_score", {}), ("r2_score", {}),
    ("d2_absolute_error_score", {}), ("d2_pinball_score", {"alpha": 0.8}),
]
_BLOCKED_POS = [
    ("mean_tweedie_deviance", {"power": 1.5}), ("mean_tweedie_deviance", {"power": 3.0}),
    ("mean_tweedie_deviance", {"power": -0.5}), ("mean_poisson_deviance", {}),
    ("mean_gamma_deviance", {}), ("d2_tweedie_score", {"power": 1.3}),
]


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("weighted", [False, True])
def test_blocked_cpu_sums_match_sklearn(monkeypatch, lib, weighted):
    """The CPU adapters sum in row blocks; many small ragged blocks change nothing."""
    mod = pytest.importorskip(lib)
    # the class attribute: every cached adapter of the library sees it
    monkeypatch.setattr(type(ops(mod)), "fused_block", 96)
    r = np.random.default_rng(5)
    n = 1001
    yt1 = r.gamma(2.0, size=n) + 0.05
    yp1 = yt1 * np.exp(r.normal(size=n) * 0.3)
    yt2 = r.gamma(2.0, size=(n, 3)) + 0.05
    yp2 = yt2 * np.exp(r.normal(size=(n, 3)) * 0.3)
    w = r.random(n) if weighted else None
    conv = (lambda a: a) if lib == "numpy" else mod.asarray
    cases = [(name, kw, yt1, yp1) for name, kw in _BLOCKED + _BLOCKED_POS]
    cases += [(name, dict(kw, multioutput="raw_values"), yt2, yp2) for name, kw in _BLOCKED]
    for name, kw, yt, yp in cases:
        got = getattr(metrix, name)(conv(yt), conv(yp), sample_weight=None if w is None
                                    else conv(w), **kw)
        expected = getattr(skm, name)(yt, yp, sample_weight=w, **kw)
        np.testing.assert_allclose(_np(got), expected, rtol=1e-10, err_msg=f"{name} {kw}")


def test_validate_false_skips_value_checks():
    y = YT.copy()
    y[3] = np.nan
    assert np.isnan(metrix.mean_squared_error(y, YP, validate=False))
    with pytest.raises(ValueError, match="NaN"):
        metrix.mean_squared_error(y, YP)
    # domain checks read values too: off with validate=False
    assert np.isnan(metrix.mean_gamma_deviance(-YPOS, PPOS, validate=False))
    with pytest.raises(ValueError, match="less than or equal to -1"):
        metrix.mean_squared_log_error(YT - 10, YP)


# -- errors and warnings, with scikit-learn's wording -----------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: metrix.mean_squared_error(YT2, YP2[:, :2]), r"different number of output \(3!=2\)"),
    (lambda: metrix.mean_squared_error(YT, YP, multioutput=[0.5, 0.5]),
     "Custom weights are useful only in multi-output cases"),
    (lambda: metrix.mean_squared_error(YT2, YP2, multioutput=[0.5, 0.5]),
     r"equally many custom weights \(2\) as outputs \(3\)"),
    (lambda: metrix.mean_absolute_error(YT2, YP2, multioutput="variance_weighted"),
     "'multioutput' parameter"),
    (lambda: metrix.r2_score(YT2, YP2, multioutput="mean"),
     "Allowed 'multioutput' string values"),
    (lambda: metrix.max_error(YT2, YP2), "Multioutput not supported in max_error"),
    (lambda: metrix.mean_tweedie_deviance(YPOS, -PPOS, power=-1),
     r"power=-1 can only be used on strictly positive y_pred"),
    (lambda: metrix.mean_poisson_deviance(-YPOS, PPOS),
     r"power=1 can only be used on non-negative y and strictly positive y_pred"),
    (lambda: metrix.mean_gamma_deviance(YPOS * 0, PPOS),
     r"power=2 can only be used on strictly positive y and y_pred"),
    (lambda: metrix.d2_tweedie_score(YPOS, PPOS, power=0.5), "'power' parameter"),
    (lambda: metrix.mean_pinball_loss(YT, YP, alpha=2), "'alpha' parameter"),
    (lambda: metrix.mean_squared_error(YT, YP, sample_weight=np.zeros(N)),
     "at least one non-zero"),
    (lambda: metrix.mean_squared_error(YT, YP[:-1]), "inconsistent numbers of samples"),
    (lambda: metrix.root_mean_squared_log_error(YT - 10, YP),
     "Root Mean Squared Logarithmic Error cannot be used"),
    (lambda: metrix.mean_squared_error(np.zeros((3, 2, 2)), np.zeros((3, 2, 2))), "dim 3"),
])
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_zero_division_as_sklearn():
    with pytest.raises(ZeroDivisionError):
        metrix.mean_squared_error(YT2, YP2, multioutput=[1.0, -1.0, 0.0])
    with pytest.raises(ZeroDivisionError):
        metrix.d2_tweedie_score(np.full(5, 2.0), np.arange(1.0, 6.0), power=1)


@pytest.mark.parametrize("name,msg", [
    ("r2_score", "R^2 score is not well-defined with less than two samples."),
    ("d2_pinball_score", "D^2 score is not well-defined with less than two samples."),
    ("d2_tweedie_score", "D^2 score is not well-defined with less than two samples."),
    ("d2_absolute_error_score", "D^2 score is not well-defined with less than two samples."),
])
def test_single_sample_warns_and_is_nan(xp, name, msg):
    with pytest.warns(UndefinedMetricWarning, match=msg.replace("^", r"\^")):
        got = getattr(metrix, name)(xp.asarray(np.array([1.0])), xp.asarray(np.array([2.0])))
    assert np.isnan(xp.to_numpy(got))


def test_force_finite_branches():
    yc = np.full(10, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert metrix.r2_score(yc, yc) == 1.0
        assert metrix.r2_score(yc, yc + 1) == 0.0
        assert np.isnan(metrix.r2_score(yc, yc, force_finite=False))
        assert metrix.r2_score(yc, yc + 1, force_finite=False) == -np.inf


# -- jax.jit / torch.compile(fullgraph=True), validate=False ------------------------------

CALLS = [
    ("mean_absolute_error", (YT2, YP2), {"sample_weight": W, "multioutput": "raw_values"}),
    ("mean_squared_error", (YT, YP), {}),
    ("root_mean_squared_error", (YT2, YP2), {"multioutput": np.array([0.2, 0.3, 0.5])}),
    ("mean_squared_log_error", (YPOS, PPOS), {"sample_weight": W}),
    ("root_mean_squared_log_error", (YPOS, PPOS), {}),
    ("median_absolute_error", (YT2, YP2), {"sample_weight": W}),
    ("median_absolute_error", (YT, YP), {}),
    ("mean_absolute_percentage_error", (YT, YP), {}),
    ("max_error", (YT, YP), {}),
    ("explained_variance_score", (YT2, YP2), {"multioutput": "variance_weighted"}),
    ("r2_score", (YT2, YP2), {"sample_weight": W, "force_finite": False}),
    ("mean_pinball_loss", (YT, YP), {"alpha": 0.2}),
    ("mean_tweedie_deviance", (YPOS, PPOS), {"power": 1.5, "sample_weight": W}),
    ("mean_poisson_deviance", (YPOS, PPOS), {}),
    ("mean_gamma_deviance", (YPOS, PPOS), {}),
    ("d2_tweedie_score", (YPOS, PPOS), {"power": 3}),
    ("d2_pinball_score", (YT2, YP2), {"alpha": 0.8, "sample_weight": W}),
    ("d2_absolute_error_score", (YT, YP), {}),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CALLS)]


@pytest.mark.compile
@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=IDS)
def test_jax_jit(name, args, kwargs):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    expected = getattr(metrix, name)(*args, **kwargs)
    arrays = {k: v for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    static = {k: v for k, v in kwargs.items() if k not in arrays}
    fn = getattr(metrix, name)
    with jax_x64(True):
        @jax.jit
        def run(a, b, extra):
            return fn(a, b, validate=False, **static, **extra)

        got = run(jnp.asarray(args[0]), jnp.asarray(args[1]),
                  {k: jnp.asarray(v) for k, v in arrays.items()})
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10)


@pytest.mark.compile
@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=IDS)
def test_torch_compile_fullgraph(name, args, kwargs):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")

    torch._dynamo.reset()
    expected = getattr(metrix, name)(*args, **kwargs)
    kw = {k: (torch.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    fn = getattr(metrix, name)

    def run(a, b):
        return fn(a, b, validate=False, **kw)

    got = torch.compile(run, fullgraph=True)(torch.asarray(args[0]), torch.asarray(args[1]))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10)
