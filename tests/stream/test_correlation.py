"""Pearson's and Spearman's correlation: the one-shot functions and the stream classes
against SciPy and TorchMetrics, on NumPy, torch CPU and JAX CPU; uneven and empty
batches, merged states, ``state_dict`` round trips, weights with zeros, ties,
constant inputs, large means and the exact buffer's capacity."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import metrix
import metrix.stream as ms

torch = pytest.importorskip("torch")

rng = np.random.default_rng(20261207)
N = 90
T = rng.normal(size=N) * 2 + 1
P = 0.7 * T + rng.normal(size=N)
T2 = rng.normal(size=(N, 3))
P2 = T2 * [1.0, -0.5, 0.1] + rng.normal(size=(N, 3))
EDGES = (0, 0, 1, 2, 40, 40, 89, N)   # empty batches, single samples, uneven sizes
TM_EDGES = (0, 1, 2, 40, 89, N)       # TorchMetrics refuses empty batches


def _jnp():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy


def _lib(name):
    if name == "numpy":
        return np.asarray
    if name == "torch":
        return torch.asarray
    return _jnp().asarray


LIBS = ("numpy", "torch", "jax")


def _feed(metric, t, p, w=None, edges=EDGES, lib=np.asarray):
    for a, b in zip(edges[:-1], edges[1:]):
        kw = {} if w is None else {"sample_weight": lib(w[a:b])}
        metric.update(lib(t[a:b]), lib(p[a:b]), **kw)
    return metric


def _pearson(t, p):
    if t.ndim == 1:
        return stats.pearsonr(t, p)[0]
    return np.array([stats.pearsonr(t[:, j], p[:, j])[0] for j in range(t.shape[1])])


def _spearman(t, p):
    if t.ndim == 1:
        return stats.spearmanr(t, p)[0]
    return np.array([stats.spearmanr(t[:, j], p[:, j])[0] for j in range(t.shape[1])])


def _weighted(t, p, w):
    c = np.cov(t, p, aweights=w)
    return c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])


def _np(x):
    return np.asarray(x.cpu() if hasattr(x, "cpu") else x, dtype=np.float64)


# -- Pearson -----------------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS)
def test_pearson_stream_equals_scipy_on_uneven_batches(lib):
    m = _feed(ms.PearsonCorrCoef(), T, P, lib=_lib(lib))
    np.testing.assert_allclose(_np(m.compute()), _pearson(T, P), rtol=1e-12)
    m2 = _feed(ms.PearsonCorrCoef(num_outputs=3), T2, P2, lib=_lib(lib))
    got = _np(m2.compute())
    assert got.shape == (3,)
    np.testing.assert_allclose(got, _pearson(T2, P2), rtol=1e-12)
    assert _np(metrix.pearson_corrcoef(_lib(lib)(T2), _lib(lib)(P2))).shape == (3,)
    np.testing.assert_allclose(_np(metrix.pearson_corrcoef(_lib(lib)(T), _lib(lib)(P))),
                               _pearson(T, P), rtol=1e-12)


def test_pearson_equals_torchmetrics_and_the_one_shot_function():
    from torchmetrics.regression import PearsonCorrCoef as TMPearson

    tm = TMPearson(num_outputs=3)
    ours = ms.PearsonCorrCoef(num_outputs=3)
    for a, b in zip(TM_EDGES[:-1], TM_EDGES[1:]):
        tm.update(torch.asarray(P2[a:b]), torch.asarray(T2[a:b]))
        ours.update(torch.asarray(T2[a:b]), torch.asarray(P2[a:b]))
    # TorchMetrics' pairwise update rounds differently: 1e-9 apart; SciPy's value is ours
    np.testing.assert_allclose(_np(ours.compute()), _np(tm.compute()), rtol=1e-8)
    np.testing.assert_allclose(_np(ours.compute()), _pearson(T2, P2), rtol=1e-12)
    np.testing.assert_allclose(_np(ours.compute()), metrix.pearson_corrcoef(T2, P2),
                               rtol=1e-12)
    one = ms.PearsonCorrCoef(num_outputs=1)  # TorchMetrics' num_outputs=1: 0-d
    one.update(torch.asarray(T), torch.asarray(P))
    assert one.compute().shape == ()


def test_pearson_merge_and_state_dict_round_trip():
    a = _feed(ms.PearsonCorrCoef(), T, P, edges=(0, 30))
    b = _feed(ms.PearsonCorrCoef(), T, P, edges=(30, 31, N))
    saved = a.state_dict()
    merged = a.merge(b).compute()
    np.testing.assert_allclose(merged, _pearson(T, P), rtol=1e-12)
    resumed = ms.PearsonCorrCoef().load_state_dict(saved)
    _feed(resumed, T, P, edges=(30, N), lib=torch.asarray)
    np.testing.assert_allclose(_np(resumed.compute()), _pearson(T, P), rtol=1e-12)
    with pytest.raises(ValueError, match="num_outputs"):
        ms.PearsonCorrCoef(num_outputs=3).load_state_dict(saved)


def test_pearson_weights_with_zeros_equal_leaving_the_rows_out():
    w = np.where(rng.random(N) < 0.3, 0.0, rng.random(N) + 0.1)
    # a zero-weighted row far out: it must change nothing (not the constant check either)
    t, p = T.copy(), P.copy()
    t[w == 0] = 1e6
    m = _feed(ms.PearsonCorrCoef(), t, p, w, lib=torch.asarray)
    want = _weighted(T, P, w)
    np.testing.assert_allclose(_np(m.compute()), want, rtol=1e-9)
    np.testing.assert_allclose(metrix.pearson_corrcoef(t, p, sample_weight=w), want, rtol=1e-9)
    kept = w != 0
    np.testing.assert_allclose(want, _weighted(T[kept], P[kept], w[kept]), rtol=1e-12)
    # integer weights repeat the rows
    wi = rng.integers(0, 3, N)
    m = _feed(ms.PearsonCorrCoef(), T, P, wi.astype(float))
    np.testing.assert_allclose(m.compute(), _pearson(np.repeat(T, wi), np.repeat(P, wi)),
                               rtol=1e-10)


@pytest.mark.parametrize("value", [3.0, 0.1, -7.3e5])
def test_pearson_constant_input_is_nan_as_scipy(value):
    const = np.full(N, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(stats.pearsonr(const, P)[0])
    for t, p in ((const, P), (P, const)):
        m = _feed(ms.PearsonCorrCoef(), t, p, lib=torch.asarray)
        assert np.isnan(_np(m.compute()))
        assert np.isnan(metrix.pearson_corrcoef(t, p))
    # one constant output among three: NaN for that output only
    t2 = T2.copy()
    t2[:, 1] = value
    got = _np(_feed(ms.PearsonCorrCoef(num_outputs=3), t2, P2).compute())
    assert np.isnan(got[1]) and np.isfinite(got[[0, 2]]).all()
    # constant over the rows that weigh: NaN too (the other rows weigh nothing)
    w = np.zeros(N)
    w[:20] = 1.0
    t = np.where(w > 0, value, T)
    assert np.isnan(_feed(ms.PearsonCorrCoef(), t, P, w).compute())


def test_pearson_constant_is_nan_in_torchmetrics_too():
    from torchmetrics.regression import PearsonCorrCoef as TMPearson

    tm = TMPearson()
    tm.update(torch.asarray(P), torch.full((N,), 0.1, dtype=torch.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.isnan(tm.compute())


def test_pearson_large_mean_stays_accurate():
    # raw float64 sums: the centring loses about eps * mean^2 / variance relative
    t = 1e4 + rng.normal(size=4000)
    p = t + rng.normal(size=4000)
    m = _feed(ms.PearsonCorrCoef(), t, p, edges=tuple(range(0, 4001, 250)))
    np.testing.assert_allclose(m.compute(), _pearson(t, p), rtol=1e-7)
    t, p = 1e2 + rng.normal(size=4000), None
    p = t + rng.normal(size=4000)
    m = _feed(ms.PearsonCorrCoef(), t, p, edges=tuple(range(0, 4001, 250)))
    np.testing.assert_allclose(m.compute(), _pearson(t, p), rtol=1e-11)


def test_pearson_result_dtype_follows_float32_inputs():
    m = ms.PearsonCorrCoef()
    m.update(torch.asarray(T, dtype=torch.float32), torch.asarray(P, dtype=torch.float32))
    out = m.compute()
    assert out.dtype == torch.float32
    np.testing.assert_allclose(float(out), _pearson(T.astype(np.float32).astype(float),
                                                    P.astype(np.float32).astype(float)),
                               rtol=1e-6)


def test_pearson_bad_input():
    m = ms.PearsonCorrCoef()
    with pytest.raises(ValueError, match="num_outputs=3"):
        m.update(T2, P2)
    with pytest.raises(ValueError, match="different shapes"):
        m.update(T[:5], P[:4])
    with pytest.raises(ValueError, match="num_outputs"):
        ms.PearsonCorrCoef(num_outputs=0)
    with pytest.raises(ValueError, match="capacity"):
        ms.CorrelationStream("pearson", capacity=5)
    with pytest.raises(ValueError, match="at least 2 samples"):
        metrix.pearson_corrcoef([1.0], [2.0])
    with pytest.raises(ValueError, match="before any sample"):
        ms.PearsonCorrCoef().compute()
    one = ms.PearsonCorrCoef()
    one.update(T[:1], P[:1])  # one sample: undefined, NaN (SciPy raises for n < 2)
    assert np.isnan(one.compute())
    with pytest.raises(ValueError):
        metrix.pearson_corrcoef(T, P[:-1])


def test_pearson_under_jax_jit_and_psum_of_the_sums():
    jnp = _jnp()
    import jax

    spec = ms.CorrelationStream("pearson")
    state = spec.init(jnp.asarray(P))
    step = jax.jit(spec.update)
    for a, b in ((0, 45), (45, N)):
        state = step(state, jnp.asarray(T[a:b]), jnp.asarray(P[a:b]))
    np.testing.assert_allclose(np.asarray(jax.jit(spec.compute)(state)), _pearson(T, P),
                               rtol=1e-12)
    half = spec.update(spec.init(jnp.asarray(P)), jnp.asarray(T[:45]), jnp.asarray(P[:45]))
    rest = spec.update(spec.init(jnp.asarray(P)), jnp.asarray(T[45:]), jnp.asarray(P[45:]))
    np.testing.assert_allclose(np.asarray(spec.compute(ms.merge_states(half, rest))),
                               _pearson(T, P), rtol=1e-12)


# -- Spearman ----------------------------------------------------------------------------

TIES_T = rng.integers(0, 6, N).astype(float)
TIES_P = np.where(rng.random(N) < 0.5, TIES_T, rng.integers(0, 6, N)).astype(float)


@pytest.mark.parametrize("lib", LIBS)
def test_spearman_stream_equals_scipy_with_ties(lib):
    m = _feed(ms.SpearmanCorrCoef(N + 10), TIES_T, TIES_P, lib=_lib(lib))
    np.testing.assert_allclose(_np(m.compute()), _spearman(TIES_T, TIES_P), rtol=1e-12)
    m2 = _feed(ms.SpearmanCorrCoef(N, num_outputs=3), np.round(T2, 1), np.round(P2, 1),
               lib=_lib(lib))
    np.testing.assert_allclose(_np(m2.compute()), _spearman(np.round(T2, 1), np.round(P2, 1)),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(metrix.spearman_corrcoef(_lib(lib)(TIES_T),
                                                            _lib(lib)(TIES_P))),
                               _spearman(TIES_T, TIES_P), rtol=1e-12)


def test_spearman_equals_torchmetrics():
    from torchmetrics.regression import SpearmanCorrCoef as TMSpearman

    tm, ours = TMSpearman(), ms.SpearmanCorrCoef(N)
    for a, b in zip(TM_EDGES[:-1], TM_EDGES[1:]):
        tm.update(torch.asarray(TIES_P[a:b]), torch.asarray(TIES_T[a:b]))
        ours.update(torch.asarray(TIES_T[a:b]), torch.asarray(TIES_P[a:b]))
    # TorchMetrics divides by std_t * std_p + 1e-6: about 1e-7 away from SciPy's value
    np.testing.assert_allclose(_np(ours.compute()), _np(tm.compute()), rtol=1e-6)
    np.testing.assert_allclose(_np(ours.compute()), _spearman(TIES_T, TIES_P), rtol=1e-12)


def test_spearman_merge_state_dict_and_capacity():
    a = _feed(ms.SpearmanCorrCoef(N), TIES_T, TIES_P, edges=(0, 1, 50))
    b = _feed(ms.SpearmanCorrCoef(N), TIES_T, TIES_P, edges=(50, N))
    saved = a.state_dict()
    np.testing.assert_allclose(a.merge(b).compute(), _spearman(TIES_T, TIES_P), rtol=1e-12)
    resumed = ms.SpearmanCorrCoef(N).load_state_dict(saved)
    _feed(resumed, TIES_T, TIES_P, edges=(50, N))
    np.testing.assert_allclose(resumed.compute(), _spearman(TIES_T, TIES_P), rtol=1e-12)
    full = _feed(ms.SpearmanCorrCoef(N), TIES_T, TIES_P)
    with pytest.raises(ms.BufferFullError):
        full.update(TIES_T[:1], TIES_P[:1])
    other = _feed(ms.SpearmanCorrCoef(N + 1), T, P, edges=(0, 5)).state_dict()
    with pytest.raises(ValueError, match="capacity"):
        ms.SpearmanCorrCoef(N).load_state_dict(other)
    with pytest.raises(TypeError, match="sample_weight"):
        ms.SpearmanCorrCoef(N).update(T, P, sample_weight=np.ones(N))


def test_spearman_constant_nan_and_infinite_values():
    const = np.full(N, 0.3)
    assert np.isnan(_feed(ms.SpearmanCorrCoef(N), const, P).compute())
    assert np.isnan(metrix.spearman_corrcoef(const, P))
    t = T.copy()
    t[5] = np.nan
    assert np.isnan(_feed(ms.SpearmanCorrCoef(2 * N), t, P).compute())
    # +inf ranks last among the stored rows, not among the free rows of the buffer
    t = T.copy()
    t[[3, 7]] = np.inf
    np.testing.assert_allclose(_feed(ms.SpearmanCorrCoef(3 * N), t, P).compute(),
                               _spearman(t, P), rtol=1e-12)


def test_spearman_free_rows_change_nothing():
    # the same data in buffers of different sizes (free rows rank after every value)
    values = [float(_feed(ms.SpearmanCorrCoef(cap), T, P).compute()) for cap in (N, N + 1, 4 * N)]
    np.testing.assert_allclose(values, _spearman(T, P), rtol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])  # eager CPU: the in-place sums
def test_pearson_saved_state_is_a_snapshot_and_weights_mix_with_the_in_place_path(lib):
    lib = _lib(lib)
    m = _feed(ms.PearsonCorrCoef(), T, P, edges=(0, 30), lib=lib)
    handed = m.state_dict()
    saved = {k: np.array(_np(v)) for k, v in handed.items() if k != "config"}
    w = np.ones(N)
    w[40:50] = 2.0
    _feed(m, T, P, w=w, edges=(30, 40, 50), lib=lib)   # weighted: the functional update
    _feed(m, T, P, edges=(50, 60, N), lib=lib)         # then in place again
    for k, v in saved.items():
        np.testing.assert_array_equal(_np(handed[k]), v)
    rows = np.repeat(np.arange(N), w.astype(int))
    np.testing.assert_allclose(_np(m.compute()), _pearson(T[rows], P[rows]), rtol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])  # eager CPU: rows written in place
def test_spearman_in_place_rows_capacity_snapshot_and_merge(lib):
    lib = _lib(lib)
    m = _feed(ms.SpearmanCorrCoef(N), TIES_T, TIES_P, edges=(0, 1, 30), lib=lib)
    handed = m.state_dict()
    saved = {k: np.array(_np(v)) for k, v in handed.items() if k != "config"}
    with pytest.raises(ms.BufferFullError):
        m.update(lib(TIES_T), lib(TIES_P))     # 30 + 90 rows > 90: nothing written
    _feed(m, TIES_T, TIES_P, edges=(30, 60), lib=lib)
    for k, v in saved.items():
        np.testing.assert_array_equal(_np(handed[k]), v)
    rest = _feed(ms.SpearmanCorrCoef(N), TIES_T, TIES_P, edges=(60, N), lib=lib)
    np.testing.assert_allclose(_np(m.merge(rest).compute()), _spearman(TIES_T, TIES_P),
                               rtol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])  # eager CPU: the direct row write
def test_spearman_direct_write_takes_odd_batches_and_refills_after_reset(lib):
    # SpearmanCorrCoef.update writes a 1-D batch of the buffer's kind straight into the
    # owned buffer; the other batches (another kind, (n, 1) columns, narrow dtypes,
    # grad, empty) go the general way: the same rows, counted once, capacity exact
    conv = _lib(lib)
    t16, p16 = T.astype(np.float16), P.astype(np.float16)
    m = ms.SpearmanCorrCoef(N)
    for _ in range(2):  # the second epoch after reset: the cleared buffer refilled
        m.update(conv(T[:10]), conv(P[:10]))                          # creates the state
        m.update(conv(T[10:20]), conv(P[10:20]))                      # direct
        m.update(conv(T[20:20]), conv(P[20:20]))                      # empty
        m.update(conv(T[20:30, None]), conv(P[20:30, None]))          # (n, 1): general
        m.update(T[30:40], conv(P[30:40]))                            # mixed kinds
        m.update(conv(t16[40:50]), conv(p16[40:50]))                  # float16
        m.update(conv(np.round(T[50:60]).astype(np.int32)), conv(P[50:60]))
        if lib == "torch":
            m.update(torch.tensor(T[60:70], requires_grad=True), conv(P[60:70]))
        else:
            m.update(conv(T[60:70]), conv(P[60:70]))
        m.update(conv(T[70:N]), conv(P[70:N]))                        # exactly full
        assert m._rows[()] == N and m._write is not None
        with pytest.raises(ms.BufferFullError):
            m.update(conv(T[:1]), conv(P[:1]))
        t = np.concatenate([T[:40], t16[40:50].astype(np.float64),
                            np.round(T[50:60]), T[60:N]])
        p = np.concatenate([P[:40], p16[40:50].astype(np.float64), P[50:N]])
        np.testing.assert_allclose(_np(m.compute()), _spearman(t, p), rtol=1e-12)
        m.reset()
