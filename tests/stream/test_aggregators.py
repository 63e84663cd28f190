"""The aggregators (MeanMetric, SumMetric, MaxMetric, MinMetric, CatMetric) against
TorchMetrics' and NumPy's values: uneven batches, weights (zeros too), NaN
strategies, merged states, state_dict round trips, on NumPy, torch and JAX."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrix.stream as ms
from metrix.stream._aggregation import two_sum

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
BATCHES = [RNG.normal(size=n) for n in (1, 7, 0, 33, 5)]
WEIGHTS = [RNG.random(n) * (RNG.random(n) > 0.3) for n in (1, 7, 0, 33, 5)]  # zeros too
ALL, W = np.concatenate(BATCHES), np.concatenate(WEIGHTS)


def _backends():
    out = [("numpy", np.asarray), ("torch", torch.asarray)]
    try:
        import jax.numpy as jnp
        out.append(("jax", jnp.asarray))
    except ImportError:  # pragma: no cover - jax is a test dependency
        pass
    return out


BACKENDS = _backends()


def _run(metric, put, batches, weights=None):
    for i, b in enumerate(batches):
        if weights is None:
            metric.update(put(b))
        else:
            metric.update(put(b), put(weights[i]))
    return metric


@pytest.mark.parametrize("name,put", BACKENDS, ids=[b[0] for b in BACKENDS])
def test_values_equal_numpy_on_every_backend(name, put):
    assert np.isclose(float(_run(ms.MeanMetric(), put, BATCHES).compute()), ALL.mean())
    assert np.isclose(float(_run(ms.MeanMetric(), put, BATCHES, WEIGHTS).compute()),
                      np.average(ALL, weights=W))
    assert np.isclose(float(_run(ms.SumMetric(), put, BATCHES).compute()), ALL.sum())
    # (JAX without x64 holds float32: exact up to its rounding of the inputs)
    assert np.isclose(float(_run(ms.MaxMetric(), put, BATCHES).compute()), ALL.max(),
                      rtol=1e-7, atol=0)
    assert np.isclose(float(_run(ms.MinMetric(), put, BATCHES).compute()), ALL.min(),
                      rtol=1e-7, atol=0)
    cat = _run(ms.CatMetric(100), put, BATCHES).compute()
    np.testing.assert_allclose(np.asarray(cat), ALL, rtol=1e-7)
    assert type(cat) is type(put(np.zeros(2)))  # on the inputs' library (device)


@pytest.mark.parametrize("cls,tm_name", [("MeanMetric", "MeanMetric"),
                                         ("SumMetric", "SumMetric"),
                                         ("MaxMetric", "MaxMetric"),
                                         ("MinMetric", "MinMetric")])
@pytest.mark.parametrize("nan_strategy", ["ignore", 0.5, "warn"])
def test_nan_strategies_equal_torchmetrics(cls, tm_name, nan_strategy):
    aggregation = pytest.importorskip("torchmetrics.aggregation")
    batches = [b.copy() for b in BATCHES]
    batches[1][2] = batches[3][0] = np.nan
    ours = getattr(ms, cls)(nan_strategy)
    theirs = getattr(aggregation, tm_name)(nan_strategy=nan_strategy)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        for b in batches:
            ours.update(torch.asarray(b, dtype=torch.float32))
            theirs.update(torch.asarray(b, dtype=torch.float32))
    if nan_strategy == "warn":
        assert sum("metrix" in str(w.filename) or "MeanMetric" in str(w.message)
                   or cls in str(w.message) for w in got) >= 2
    np.testing.assert_allclose(float(ours.compute()), float(theirs.compute()), rtol=1e-6)


def test_weighted_mean_with_nan_equals_torchmetrics():
    aggregation = pytest.importorskip("torchmetrics.aggregation")
    x = torch.tensor([1.0, np.nan, 3.0, 4.0])
    w = torch.tensor([1.0, 2.0, np.nan, 0.5])
    ours, theirs = ms.MeanMetric("ignore"), aggregation.MeanMetric(nan_strategy="ignore")
    try:
        theirs.update(x, w)
    except RuntimeError:  # TorchMetrics #1897: NaNs in value and weight drift apart
        theirs = None
    ours.update(x, w)
    want = (1.0 * 1 + 4.0 * 0.5) / 1.5
    assert np.isclose(float(ours.compute()), want)
    if theirs is not None:
        assert np.isclose(float(theirs.compute()), want)
    # a float replaces the NaN values, with weight 1 (TorchMetrics' rule)
    imputed = ms.MeanMetric(2.0)
    imputed.update(x, w)
    assert np.isclose(float(imputed.compute()), (1 + 2 + 2 + 2.0) / (1 + 1 + 1 + 0.5))


def test_disable_propagates_nan_and_keeps_weights():
    m = ms.MeanMetric()  # the default: no check, no host read
    m.update(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.0]))
    assert np.isclose(float(m.compute()), 5.0 / 4.0)  # weights kept (TorchMetrics #3434)
    m.update(torch.tensor([np.nan]))
    assert np.isnan(float(m.compute()))
    mx = ms.MaxMetric()
    mx.update(np.array([1.0, np.nan]))
    assert np.isnan(mx.compute())


def test_error_strategy_raises_and_cat_drops_nan():
    with pytest.raises(RuntimeError, match="NaN"):
        ms.SumMetric("error").update(torch.tensor([1.0, np.nan]))
    cat = ms.CatMetric(10, "ignore")
    cat.update(torch.tensor([1.0, np.nan, 3.0]))
    np.testing.assert_array_equal(cat.compute().numpy(), [1.0, 3.0])
    filled = ms.CatMetric(10, -1.0)
    filled.update(np.array([np.nan, 2.0]))
    np.testing.assert_array_equal(filled.compute(), [-1.0, 2.0])


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="nan_strategy"):
        ms.MeanMetric("drop")
    with pytest.raises(ValueError, match="broadcast"):
        ms.MeanMetric().update(np.ones(3), np.ones(2))
    with pytest.raises(TypeError, match="weight"):
        ms.MaxMetric().update(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="capacity"):
        ms.CatMetric(0)
    for cls in (ms.MeanMetric, ms.SumMetric, ms.MaxMetric, ms.MinMetric):
        with pytest.raises(ValueError, match="before any"):
            cls().compute()
    with pytest.raises(ms.BufferFullError):
        ms.CatMetric(3).update(np.ones(4))


@pytest.mark.parametrize("name,put", BACKENDS, ids=[b[0] for b in BACKENDS])
def test_merge_and_state_dict_round_trip(name, put):
    for make, want in ((ms.MeanMetric, ALL.mean()), (ms.SumMetric, ALL.sum()),
                       (ms.MaxMetric, ALL.max()), (ms.MinMetric, ALL.min()),
                       (lambda: ms.CatMetric(100), ALL)):
        a, b = _run(make(), put, BATCHES[:2]), _run(make(), put, BATCHES[2:])
        a.merge(b)
        np.testing.assert_allclose(np.asarray(a.compute()), want, rtol=1e-6)
        loaded = make().load_state_dict(a.state_dict())
        np.testing.assert_allclose(np.asarray(loaded.compute()), want, rtol=1e-6)
    with pytest.raises(ValueError, match="nan_strategy"):
        ms.MeanMetric("ignore").load_state_dict(ms.MeanMetric().state_dict()
                                                | {"total": np.zeros(())})


def test_call_returns_the_batch_value_and_accumulates():
    m = ms.MeanMetric()
    assert float(m(torch.tensor([1.0, 3.0]))) == 2.0
    assert float(m(torch.tensor([10.0]), 2.0)) == 10.0
    assert np.isclose(float(m.compute()), (1 + 3 + 20) / 4)
    cat = ms.CatMetric(5)
    np.testing.assert_array_equal(cat(np.array([4.0, 5.0])), [4.0, 5.0])
    np.testing.assert_array_equal(cat.compute(), [4.0, 5.0])


def test_float32_sums_are_compensated():
    """Where the device has no float64, each sum is a two-sum pair: 2**24 + 1 + 1 is
    exact (a float32 accumulator stops at 2**24)."""
    hi = np.float32(2.0 ** 24)
    lo = np.float32(0.0)
    for _ in range(2):
        hi, lo = two_sum(hi, lo, np.float32(1.0), np)
    assert float(hi) + float(lo) == 2.0 ** 24 + 2


def test_jax_without_x64_keeps_a_compensated_count():
    jax = pytest.importorskip("jax")
    if jax.config.jax_enable_x64:
        pytest.skip("x64 is on: the sums are float64")
    import jax.numpy as jnp

    spec = ms.MeanStream()
    state = spec.init(jnp.zeros(1, dtype=jnp.float32))
    assert "weight_lo" in state
    state = {**state, "weight": jnp.float32(2.0 ** 24), "total": jnp.float32(2.0 ** 24)}
    step = jax.jit(spec.update)
    for _ in range(4):
        state = step(state, jnp.ones((1,), dtype=jnp.float32))
    assert float(state["weight"]) + float(state["weight_lo"]) == 2.0 ** 24 + 4


def test_functional_update_traces_under_jit_and_compile():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    for spec, want in ((ms.MeanStream("ignore"), np.nanmean), (ms.MaxStream("ignore"),
                                                                np.nanmax)):
        x = np.array([1.0, np.nan, 5.0, 2.0], dtype=np.float32)
        state = jax.jit(spec.update)(spec.init(jnp.asarray(x)), jnp.asarray(x))
        assert np.isclose(float(spec.compute(state)), want(x))
    spec = ms.MeanStream()
    compiled = torch.compile(spec.update, fullgraph=True, backend="eager")
    state = compiled(spec.init(torch.zeros(1)), torch.tensor([2.0, 4.0]), torch.tensor(0.5))
    assert float(spec.compute(state)) == 3.0


def test_torch_module_face():
    import metrix.integrations.torch as mt

    m = mt.MeanMetric()
    m(torch.tensor([1.0, 3.0]), 2.0)
    m.update(torch.tensor(5.0))
    assert np.isclose(float(m.compute()), 13 / 5)
    restored = mt.MeanMetric()
    restored.load_state_dict(m.state_dict())
    assert np.isclose(float(restored.compute()), 13 / 5)
    assert isinstance(mt.MaxMetric(), torch.nn.Module)


@pytest.mark.parametrize("name,put", BACKENDS[:2], ids=[b[0] for b in BACKENDS[:2]])
def test_in_place_sums_never_write_a_handed_out_state(name, put):
    """Eager CPU adds in place into copies the metric owns: a state or state_dict
    handed out is a snapshot, and the in-place and general routes agree."""
    for make, weighted in ((ms.MeanMetric, True), (ms.SumMetric, False),
                           (ms.MaxMetric, False), (ms.MinMetric, False)):
        fast, general = make(), make("ignore")  # "ignore" takes the general route
        for i, b in enumerate(BATCHES):
            args = (put(b), put(WEIGHTS[i])) if weighted else (put(b),)
            fast.update(*args)
            general.update(*args)
            if i == 1:
                snapshot = {k: np.asarray(v).copy() for k, v in fast.state.items()}
                held = fast.state
        for k, v in held.items():
            np.testing.assert_array_equal(np.asarray(v), snapshot[k])
        np.testing.assert_allclose(float(fast.compute()), float(general.compute()),
                                   rtol=1e-12)


@pytest.mark.parametrize("put", [torch.tensor, np.array], ids=["torch", "numpy"])
def test_a_python_number_weight_weighs_every_value(put):
    """``update(batch_mean_loss, weight=batch_size)``: the in-place route and the
    general route ("ignore" takes it) agree, a bool weight included."""
    fast, general = ms.MeanMetric(), ms.MeanMetric("ignore")
    for v, w in ((put([1.0, 2.0]), 3), (put(5.0), 2.0), (put([4.0]), None),
                 (put([1.0, 1.0]), True)):
        fast.update(v, w)
        general.update(v, w)
    assert np.isclose(float(fast.compute()), 25 / 11)
    assert np.isclose(float(general.compute()), 25 / 11)


def _float(v):
    return float(v.detach()) if hasattr(v, "detach") else float(v)


def _odd_batches(put, torch_only):
    """Batches the in-place adders take or decline: float dtypes (bfloat16: no NumPy
    view), a tensor that needs grad, a strided view, a 2-D batch, integers and
    bools (declined: the general route), NaN, signed zeros and a tie."""
    out = [put(np.array([1.0, -0.0], dtype=np.float32)), put(np.array([0.0, 1.0])),
           put(np.arange(12.0).reshape(3, 4)[:, ::2]), put(np.ones((2, 3), np.float16)),
           put(np.array([3, -2])), put(np.array([True, False])), put(np.array([5.0]))]
    if torch_only:
        out += [torch.tensor([2.5, -7.0], dtype=torch.bfloat16),
                torch.tensor([4.0, -1.0], requires_grad=True)]
    return out


@pytest.mark.parametrize("name,put", BACKENDS[:2], ids=[b[0] for b in BACKENDS[:2]])
def test_in_place_route_equals_the_pure_update_on_odd_batches(name, put):
    """The eager in-place sums and extremes (NumPy's reductions on views, written
    through ``[()]``) equal the pure functional update batch by batch, NaN
    propagation included, and stay on the in-place route for float batches."""
    for nan in (False, True):
        batches = _odd_batches(put, name == "torch")
        if nan:
            batches.insert(3, put(np.array([np.nan, 9.0])))
        for make in (ms.MeanMetric, ms.SumMetric, ms.MaxMetric, ms.MinMetric):
            fast = make()
            spec = fast.spec
            state = spec.init(batches[0])
            for b in batches:
                fast.update(b)
                state = spec.update(state, b)
                got, want = _float(fast.compute()), _float(spec.compute(state))
                assert got == want or (np.isnan(got) and np.isnan(want)), (make, b)
            assert fast._add is not None  # (float batches took the in-place route)
            assert np.isnan(got) == nan
    m, spec = ms.MeanMetric(), ms.MeanMetric().spec
    state = spec.init(put(np.zeros(1, np.float32)))
    for v, w in ((np.array([1.0, 2.0], np.float32), np.array([0.5, 0.0], np.float32)),
                 (np.array([3.0]), np.array([2.0])), (np.array([4.0, 1.0]), np.array([1, 2]))):
        m.update(put(v), put(w))
        state = spec.update(state, put(v), put(w))
    assert float(m.compute()) == pytest.approx(float(spec.compute(state)), rel=1e-15)
