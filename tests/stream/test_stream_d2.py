"""Streaming D^2 scores (D2TweedieScore, D2PinballScore, D2AbsoluteErrorScore)
against scikit-learn on NumPy, torch CPU and JAX CPU: uneven batches, merged
states, state_dict round trips, weights (zeros too), multioutput, constant
targets, the Tweedie domain edges, float32 / float64, empty and one sample."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning

import metrix
import metrix.stream as ms
from metrix.exceptions import UndefinedMetricWarning
from metrix.stream import RegressionStream

LIBS = ["numpy", "torch", "jax"]
POWERS = [0, 1, 1.5, 2, 3, -1, -0.5]
CUTS = [0, 3, 3, 17, 40]  # uneven batches, one of them empty


def conv(lib):
    if lib == "numpy":
        return np.asarray
    if lib == "torch":
        torch = pytest.importorskip("torch")
        return lambda a: torch.asarray(np.asarray(a))
    jnp = pytest.importorskip("jax.numpy")
    import jax
    jax.config.update("jax_enable_x64", True)
    return lambda a: jnp.asarray(np.asarray(a))


def host(v):
    return np.asarray(v, dtype=float)


def close(got, want, rtol=1e-9, atol=1e-12):
    np.testing.assert_allclose(host(got), np.asarray(want, dtype=float), rtol=rtol, atol=atol)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def tweedie_data(power, n=40, seed=0, k=None):
    """Targets in the domain of ``power`` with its edge values: y = 0 where it is
    allowed (0 < p < 2), negative y where it is (p <= 0)."""
    rng = np.random.default_rng(seed)
    yt = rng.gamma(2.0, size=n)
    yp = rng.gamma(2.0, size=n) + 0.05
    if 0 < power < 2:
        yt[::5] = 0.0
    elif power <= 0:
        yt[::4] = -rng.random(len(yt[::4]))
    return yt, yp


def feed(metric, cv, yt, yp, w=None, cuts=CUTS):
    edges = [*cuts, len(yt)]
    for a, b in zip(edges[:-1], edges[1:]):
        metric.update(cv(yt[a:b]), cv(yp[a:b]),
                      sample_weight=None if w is None else cv(w[a:b]))
    return metric


def weights(n, seed=1):
    w = np.random.default_rng(seed).random(n)
    w[::6] = 0.0
    return w


# -- D2 Tweedie ---------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("power", POWERS)
@pytest.mark.parametrize("weighted", [False, True])
def test_tweedie_streamed_equals_sklearn(lib, power, weighted):
    cv = conv(lib)
    yt, yp = tweedie_data(power)
    w = weights(len(yt)) if weighted else None
    got = feed(ms.D2TweedieScore(power=power), cv, yt, yp, w).compute()
    want = skm.d2_tweedie_score(yt, yp, sample_weight=w, power=power)
    assert np.isfinite(want)
    close(got, want)
    close(got, metrix.d2_tweedie_score(yt, yp, sample_weight=w, power=power))


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("power", [0, 1, 1.5, 2, 3])
def test_tweedie_merge_and_state_dict(lib, power):
    cv = conv(lib)
    yt, yp = tweedie_data(power, seed=3)
    w = weights(len(yt), seed=4)
    a = feed(ms.D2TweedieScore(power=power), cv, yt[:13], yp[:13], w[:13], cuts=[0, 5])
    b = feed(ms.D2TweedieScore(power=power), cv, yt[13:], yp[13:], w[13:], cuts=[0, 20])
    want = skm.d2_tweedie_score(yt, yp, sample_weight=w, power=power)
    c = ms.D2TweedieScore(power=power).load_state_dict(a.state_dict())
    c.merge(b)
    close(c.compute(), want)
    close(a.merge(b).compute(), want)
    with pytest.raises(ValueError):  # another power is another statistic
        ms.D2TweedieScore(power=power + 0.25).load_state_dict(b.state_dict())


def test_tweedie_functional_merge_states():
    spec = RegressionStream("d2_tweedie", power=1.5)
    yt, yp = tweedie_data(1.5, seed=5)
    s1 = spec.update(spec.init(yt), yt[:9], yp[:9])
    s2 = spec.update(spec.init(yt), yt[9:], yp[9:])
    close(spec.compute(spec.merge(s1, s2)), skm.d2_tweedie_score(yt, yp, power=1.5))
    # the range survives the merge: a constant target split over two states
    s1 = spec.update(spec.init(yt), np.full(3, 2.0), yp[:3])
    s2 = spec.update(spec.init(yt), np.full(4, 2.0), yp[3:7])
    assert host(spec.compute(spec.merge(s1, s2))) == -np.inf
    s2 = spec.update(spec.init(yt), np.full(4, 3.0), yp[3:7])
    assert np.isfinite(host(spec.compute(spec.merge(s1, s2))))


@pytest.mark.parametrize("power", POWERS)
def test_tweedie_constant_target(power):
    """Null deviance 0: scikit-learn raises ZeroDivisionError; the stream gives
    ``1 - dev / 0`` (-inf; NaN for a perfect prediction), zero-weight rows aside."""
    yt = np.full(7, 2.0)
    yp = np.linspace(1.0, 3.0, 7)
    if power != -1:  # (at power -1 scikit-learn's null deviance is rounding noise)
        with pytest.raises(ZeroDivisionError):
            quiet(skm.d2_tweedie_score, yt, yp, power=power)
    assert host(feed(ms.D2TweedieScore(power=power), np.asarray, yt, yp,
                     cuts=[0, 2]).compute()) == -np.inf
    # a perfect prediction: 0 / 0 (NaN), or the sign of the model deviance's rounding
    # (+-inf: powers outside {0, 1, 2} compute it as a difference)
    got = host(feed(ms.D2TweedieScore(power=power), np.asarray, yt, yt.copy(),
                    cuts=[0, 2]).compute())
    assert np.isnan(got) if power in (0, 1, 2) else not np.isfinite(got)
    # a zero-weight row of another value leaves y_true constant
    yt2, w = yt.copy(), np.ones(7)
    yt2[3], w[3] = 5.0, 0.0
    assert host(feed(ms.D2TweedieScore(power=power), np.asarray, yt2, yp, w,
                     cuts=[0, 2]).compute()) == -np.inf


def test_tweedie_domain_edges():
    """Power 1 and 1 < p < 2 take y = 0 (xlogy: 0 log 0 = 0); p <= 0 takes
    negative y (p = -1: integer powers of a negative mean); p = -0.5 with a
    negative mean is NaN in scikit-learn and here; y = 0 at p = 2 is outside
    the domain (scikit-learn raises, the stream reads nothing: not finite)."""
    yp = np.array([0.5, 1.0, 2.0, 3.0, 1.5])
    for power, yt in [(1, np.array([0.0, 0.0, 1.0, 4.0, 2.0])),
                      (1.5, np.array([0.0, 0.0, 1.0, 4.0, 2.0])),
                      (1, np.array([0.0, 0.0, 0.0, 0.0, 3.0])),
                      (-1, np.array([-1.0, -2.0, 0.5, -3.0, 0.25])),
                      (0, np.array([-1.0, -2.0, 0.5, -3.0, 0.25]))]:
        got = feed(ms.D2TweedieScore(power=power), np.asarray, yt, yp, cuts=[0, 2]).compute()
        close(got, skm.d2_tweedie_score(yt, yp, power=power))
    yt = np.array([-1.0, -2.0, 0.5, -3.0, 0.25])
    want = quiet(skm.d2_tweedie_score, yt, yp, power=-0.5)
    assert np.isnan(want)
    assert np.isnan(host(quiet(lambda: feed(ms.D2TweedieScore(power=-0.5), np.asarray, yt,
                                            yp).compute())))
    with pytest.raises(ValueError):
        skm.d2_tweedie_score(np.array([0.0, 1.0, 2.0]), yp[:3], power=2)
    got = quiet(lambda: feed(ms.D2TweedieScore(power=2), np.asarray, np.array([0.0, 1.0, 2.0]),
                             yp[:3]).compute())
    assert not np.isfinite(host(got))


def test_tweedie_rejects_bad_power_and_outputs():
    with pytest.raises(ValueError):
        ms.D2TweedieScore(power=0.5)
    with pytest.raises(ValueError, match="one output"):
        ms.D2TweedieScore(num_outputs=2)


# -- D2 pinball / absolute error ---------------------------------------------------

def pinball_data(n=40, k=None, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    shape = (n,) if k is None else (n, k)
    yt = rng.normal(size=shape)
    yp = yt + rng.normal(scale=0.7, size=shape)
    if ties:
        yt = np.round(yt * 2) / 2
    return yt, yp


PINBALL = [("d2_pinball", 0.1), ("d2_pinball", 0.5), ("d2_pinball", 0.9),
           ("d2_pinball", 0.0), ("d2_pinball", 1.0), ("d2_absolute_error", 0.5)]


def pinball_pair(name, alpha, capacity, **kw):
    if name == "d2_absolute_error":
        return (ms.D2AbsoluteErrorScore(capacity, **kw),
                lambda *a, **k: skm.d2_absolute_error_score(*a, **k))
    return (ms.D2PinballScore(capacity, alpha=alpha, **kw),
            lambda *a, **k: skm.d2_pinball_score(*a, alpha=alpha, **k))


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name,alpha", PINBALL)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_pinball_streamed_equals_sklearn(lib, name, alpha, weighted, ties):
    cv = conv(lib)
    yt, yp = pinball_data(ties=ties, seed=2)
    w = weights(len(yt)) if weighted else None
    m, ref = pinball_pair(name, alpha, capacity=64)
    close(feed(m, cv, yt, yp, w).compute(), ref(yt, yp, sample_weight=w))


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("mo", ["raw_values", "uniform_average", [0.2, 0.5, 0.3]])
@pytest.mark.parametrize("name,alpha", [("d2_pinball", 0.25), ("d2_absolute_error", 0.5)])
def test_pinball_multioutput(lib, mo, name, alpha):
    cv = conv(lib)
    yt, yp = pinball_data(k=3, seed=7, ties=True)
    yt[:, 1] = 1.5                    # a constant output: 0.0 (imperfect prediction)
    yt[:, 2], yp[:, 2] = yp[:, 2], yp[:, 2]  # a perfect output: 1.0
    w = weights(len(yt), seed=8)
    m, ref = pinball_pair(name, alpha, capacity=50, num_outputs=3, multioutput=mo)
    want = ref(yt, yp, sample_weight=w, multioutput=mo)
    close(feed(m, cv, yt, yp, w).compute(), want)
    if mo == "raw_values":
        close(want[1:], [0.0, 1.0])


@pytest.mark.parametrize("lib", LIBS)
def test_pinball_merge_state_dict_and_overflow(lib):
    cv = conv(lib)
    yt, yp = pinball_data(k=2, seed=9, ties=True)
    w = weights(len(yt), seed=10)
    want = skm.d2_pinball_score(yt, yp, sample_weight=w, alpha=0.7, multioutput="raw_values")

    def make():
        return ms.D2PinballScore(40, num_outputs=2, multioutput="raw_values", alpha=0.7)

    a = feed(make(), cv, yt[:11], yp[:11], w[:11], cuts=[0, 4])
    b = feed(make(), cv, yt[11:], yp[11:], w[11:], cuts=[0, 9])
    c = make().load_state_dict(a.state_dict())
    close(c.merge(b).compute(), want)
    with pytest.raises(ValueError):  # another alpha
        ms.D2PinballScore(40, num_outputs=2, multioutput="raw_values",
                          alpha=0.5).load_state_dict(a.state_dict())
    # the functional state past its capacity: NaN, not a wrong value
    spec = RegressionStream("d2_pinball", num_outputs=2, capacity=10, alpha=0.7)
    s = spec.update(spec.init(cv(yt)), cv(yt), cv(yp))
    assert np.isnan(host(spec.compute(s))).all()
    with pytest.raises(ms.BufferFullError):
        feed(ms.D2PinballScore(10, num_outputs=2), cv, yt, yp)


def test_pinball_constant_target():
    yt = np.full(8, 3.0)
    yp = np.linspace(2.0, 4.0, 8)
    for name, alpha in PINBALL:
        m, ref = pinball_pair(name, alpha, capacity=8)
        close(feed(m, np.asarray, yt, yp, cuts=[0, 5]).compute(), ref(yt, yp))
        assert ref(yt, yp) == 0.0
        m, ref = pinball_pair(name, alpha, capacity=8)
        close(feed(m, np.asarray, yt, yt.copy(), cuts=[0, 5]).compute(), 1.0)


# -- every D2 score: dtypes, empty and single-sample, zero weights -----------------------

def all_d2(capacity=64):
    return [(lambda: ms.D2TweedieScore(power=1.5),
             lambda a, b, **k: skm.d2_tweedie_score(a, b, power=1.5, **k)),
            (lambda: ms.D2TweedieScore(), lambda a, b, **k: skm.d2_tweedie_score(a, b, **k)),
            (lambda: ms.D2PinballScore(capacity, alpha=0.3),
             lambda a, b, **k: skm.d2_pinball_score(a, b, alpha=0.3, **k)),
            (lambda: ms.D2AbsoluteErrorScore(capacity), skm.d2_absolute_error_score)]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtypes(lib, dtype):
    cv = conv(lib)
    yt, yp = tweedie_data(1.5, seed=11)
    yt, yp = yt.astype(dtype), yp.astype(dtype)
    w = weights(len(yt), seed=12).astype(dtype)
    for make, ref in all_d2():
        got = feed(make(), cv, yt, yp, w).compute()
        # (NumPy results are Python-like float64 scalars, as every stream's)
        assert str(got.dtype).endswith("float64" if lib == "numpy" else dtype)
        want = ref(yt.astype(float), yp.astype(float), sample_weight=w.astype(float))
        close(got, want, rtol=1e-5 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("lib", LIBS)
def test_empty_and_single_sample(lib):
    cv = conv(lib)
    for make, ref in all_d2():
        m = make()
        m.update(cv(np.zeros(0)), cv(np.zeros(0)))
        with pytest.raises(ValueError, match="before any sample"):  # as every stream
            m.compute()
        state = m.spec.init(cv(np.zeros(0)))  # the functional empty state: NaN
        assert np.isnan(host(m.spec.compute(state)))
        m.update(cv(np.array([1.5])), cv(np.array([1.0])))
        with pytest.warns(SkUndefinedMetricWarning, match="D\\^2 score") as rec:
            got = m.compute()
        assert any(isinstance(r.message, UndefinedMetricWarning) for r in rec)
        with pytest.warns(SkUndefinedMetricWarning):  # ours is one too
            assert np.isnan(ref(np.array([1.5]), np.array([1.0])))
        assert np.isnan(host(got))
        m.update(cv(np.array([2.5])), cv(np.array([2.0])))
        close(m.compute(), ref(np.array([1.5, 2.5]), np.array([1.0, 2.0])))
        # a zero weight still counts as a sample (scikit-learn counts rows)
        m = make()
        m.update(cv(np.array([1.5, 2.5, 4.0])), cv(np.array([1.0, 2.0, 3.0])),
                 sample_weight=cv(np.array([1.0, 0.0, 2.0])))
        close(m.compute(), ref(np.array([1.5, 2.5, 4.0]), np.array([1.0, 2.0, 3.0]),
                               sample_weight=np.array([1.0, 0.0, 2.0])))


def test_all_zero_weights_are_nan():
    """scikit-learn raises on all-zero weights; the stream reads nothing: NaN."""
    yt, yp = tweedie_data(1.5, n=6)
    for make, ref in all_d2():
        with pytest.raises(ValueError):
            ref(yt, yp, sample_weight=np.zeros(6))
        got = quiet(lambda: feed(make(), np.asarray, yt, yp, np.zeros(6),
                                 cuts=[0, 2]).compute())
        assert np.isnan(host(got))


def test_median_absolute_error_uses_the_adapter_quantile():
    """The stream's weighted median is ``ops.weighted_quantile`` (scikit-learn's
    rule): equal to scikit-learn with ties and zero weights in a partly free
    buffer."""
    rng = np.random.default_rng(13)
    for _ in range(30):
        n = int(rng.integers(1, 25))
        yt = np.round(rng.normal(size=(n, 2)), 1)
        yp = np.round(rng.normal(size=(n, 2)), 1)
        w = rng.choice([0.0, 1.0, 2.0, 3.0], n)
        w[0] = 1.0
        m = ms.MedianAbsoluteError(capacity=n + 5, num_outputs=2, multioutput="raw_values")
        got = feed(m, np.asarray, yt, yp, w, cuts=[0, n // 2]).compute()
        close(got, skm.median_absolute_error(yt, yp, sample_weight=w,
                                             multioutput="raw_values"))


@pytest.mark.parametrize("lib", [pytest.param("torch", marks=pytest.mark.compile), "jax"])
def test_traced(lib):
    """compute and update trace (no host read): torch.compile / jax.jit."""
    yt, yp = tweedie_data(1.5, seed=14)
    w = weights(len(yt), seed=15)
    for spec, ref in [(RegressionStream("d2_tweedie", power=1.5),
                       skm.d2_tweedie_score(yt, yp, sample_weight=w, power=1.5)),
                      (RegressionStream("d2_pinball", capacity=48, alpha=0.3),
                       skm.d2_pinball_score(yt, yp, sample_weight=w, alpha=0.3))]:
        if lib == "jax":
            jax = pytest.importorskip("jax")
            cv = conv("jax")
            upd, comp = jax.jit(spec.update), jax.jit(spec.compute)
        else:
            torch = pytest.importorskip("torch")
            cv = conv("torch")
            upd = torch.compile(spec.update, fullgraph=True, dynamic=False)
            comp = torch.compile(spec.compute, fullgraph=True, dynamic=False)
        s = spec.init(cv(yt))
        s = upd(s, cv(yt[:20]), cv(yp[:20]), cv(w[:20]))
        s = upd(s, cv(yt[20:]), cv(yp[20:]), cv(w[20:]))
        close(comp(s), ref)
