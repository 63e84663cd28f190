"""Perplexity against TorchMetrics' ``Perplexity`` and a float64 NumPy reference, on
NumPy, torch CPU and JAX CPU: uneven and empty batches, ``ignore_index``, merged
states, ``state_dict`` round trips, weights with zeros, extreme logits (where
TorchMetrics' log of a softmax overflows), float16 logits and bad targets."""

from __future__ import annotations

import numpy as np
import pytest

import metrix.stream as ms

torch = pytest.importorskip("torch")

rng = np.random.default_rng(154)
B, S, V = 13, 6, 9
Y = rng.integers(0, V, (B, S))
Y[::4, -3:] = -100                       # padding
LOGITS = rng.normal(size=(B, S, V)) * 3
EDGES = (0, 0, 1, 5, 5, 12, B)


def _reference(y, logits, ignore_index=None, w=None):
    """exp of the weighted mean negative log-likelihood of the counted tokens (float64)."""
    top = logits.max(-1)
    lse = np.log(np.exp(logits - top[..., None]).sum(-1)) + top
    keep = np.ones(y.shape, bool) if ignore_index is None else y != ignore_index
    nll = lse - np.take_along_axis(logits, np.where(keep, y, 0)[..., None], -1)[..., 0]
    w = np.ones(y.shape) if w is None else np.broadcast_to(w.reshape(len(y), -1), y.shape)
    w = w * keep
    return float(np.exp((w * nll).sum() / w.sum()))


def _lib(name):
    if name == "numpy":
        return np.asarray
    if name == "torch":
        return torch.asarray
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy.asarray


def _feed(metric, y, logits, w=None, edges=EDGES, lib=np.asarray):
    for a, b in zip(edges[:-1], edges[1:]):
        kw = {} if w is None else {"sample_weight": lib(w[a:b])}
        metric.update(lib(y[a:b]), lib(logits[a:b]), **kw)
    return metric


def _f(x):
    return float(np.asarray(x.cpu() if hasattr(x, "cpu") else x))


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_equals_the_reference_on_uneven_batches(lib):
    m = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, lib=_lib(lib))
    np.testing.assert_allclose(_f(m.compute()), _reference(Y, LOGITS, -100), rtol=1e-12)
    y = np.abs(Y) % V
    m = _feed(ms.Perplexity(), y, LOGITS, lib=_lib(lib))
    np.testing.assert_allclose(_f(m.compute()), _reference(y, LOGITS), rtol=1e-12)


def test_equals_torchmetrics():
    from torchmetrics.text import Perplexity as TMPerplexity

    for ignore in (None, -100):
        y = Y if ignore is not None else np.abs(Y) % V
        tm, ours = TMPerplexity(ignore_index=ignore), ms.Perplexity(ignore_index=ignore)
        for a, b in ((0, 1), (1, 5), (5, B)):
            logits = torch.asarray(LOGITS[a:b], dtype=torch.float32)
            tm.update(logits, torch.asarray(y[a:b]))
            ours.update(torch.asarray(y[a:b]), logits)
        got = ours.compute()
        assert got.dtype == torch.float32
        np.testing.assert_allclose(float(got), float(tm.compute()), rtol=1e-5)


def test_stable_where_torchmetrics_overflows():
    from torchmetrics.text import Perplexity as TMPerplexity

    y = np.abs(Y) % V
    logits = LOGITS.copy()
    logits[0, 0, y[0, 0]] = -200.0  # its probability underflows to 0 in a float32 softmax
    tm = TMPerplexity()
    tm.update(torch.asarray(logits, dtype=torch.float32), torch.asarray(y))
    assert torch.isinf(tm.compute())
    ours = ms.Perplexity()
    ours.update(torch.asarray(y), torch.asarray(logits, dtype=torch.float32))
    want = _reference(y, logits.astype(np.float32).astype(np.float64))
    assert np.isfinite(want)
    np.testing.assert_allclose(float(ours.compute()), want, rtol=1e-4)


def test_merge_and_state_dict_round_trip():
    a = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, edges=(0, 4))
    b = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, edges=(4, 5, B))
    saved = a.state_dict()
    np.testing.assert_allclose(_f(a.merge(b).compute()), _reference(Y, LOGITS, -100),
                               rtol=1e-12)
    resumed = ms.Perplexity(ignore_index=-100).load_state_dict(saved)
    _feed(resumed, Y, LOGITS, edges=(4, B), lib=torch.asarray)
    np.testing.assert_allclose(_f(resumed.compute()), _reference(Y, LOGITS, -100), rtol=1e-12)
    with pytest.raises(ValueError, match="ignore_index"):
        ms.Perplexity(ignore_index=0).load_state_dict(saved)


def test_weights_per_sequence_and_per_token_with_zeros():
    w = np.where(rng.random(B) < 0.3, 0.0, rng.random(B) + 0.5)
    m = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, w, lib=torch.asarray)
    want = _reference(Y, LOGITS, -100, w)
    np.testing.assert_allclose(_f(m.compute()), want, rtol=1e-12)
    kept = w != 0  # zero-weighted sequences count for nothing
    np.testing.assert_allclose(want, _reference(Y[kept], LOGITS[kept], -100, w[kept]),
                               rtol=1e-12)
    wt = np.where(rng.random((B, S)) < 0.3, 0.0, 1.0)
    m = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, wt)
    np.testing.assert_allclose(_f(m.compute()), _reference(Y, LOGITS, -100, wt), rtol=1e-12)
    with pytest.raises(ValueError, match="per sequence"):
        ms.Perplexity().update(Y, LOGITS, sample_weight=np.ones(B + 1))


def test_float16_logits_and_float_targets():
    y = np.abs(Y) % V
    half = LOGITS.astype(np.float16)
    m = ms.Perplexity()
    m.update(torch.asarray(y), torch.asarray(half))
    out = m.compute()
    assert out.dtype == torch.float32  # at least float32
    np.testing.assert_allclose(float(out), _reference(y, half.astype(np.float64)), rtol=1e-5)
    m = ms.Perplexity()
    m.update(y.astype(np.float64), LOGITS)  # integer-valued float ids (Keras' y_true)
    np.testing.assert_allclose(_f(m.compute()), _reference(y, LOGITS), rtol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])  # torch CPU: the in-place path
def test_bad_targets_give_nan_or_raise_with_validate(lib):
    y = np.abs(Y) % V
    for bad in (V, -1, -100):  # -100 without ignore_index is no token id either
        y_bad = y.copy()
        y_bad[2, 3] = bad
        assert np.isnan(_f(_feed(ms.Perplexity(), y_bad, LOGITS, lib=_lib(lib)).compute()))
        assert np.isnan(_f(_feed(ms.Perplexity(ignore_index=0), y_bad, LOGITS,
                                 lib=_lib(lib)).compute()))
        with pytest.raises(ValueError, match="outside 0"):
            ms.Perplexity(validate=True).update(y_bad, LOGITS)
    y_frac = y.astype(float)
    y_frac[0, 0] = 1.5
    assert np.isnan(_feed(ms.Perplexity(), y_frac, LOGITS).compute())
    ms.Perplexity(ignore_index=-100, validate=True).update(Y, LOGITS)  # padding is fine


def test_shape_and_type_errors():
    m = ms.Perplexity()
    with pytest.raises(ValueError, match="vocab_size"):
        m.update(Y, LOGITS[..., 0])
    with pytest.raises(ValueError, match="seq_len"):
        m.update(Y[:, 0], LOGITS)
    with pytest.raises(ValueError, match="differ"):
        m.update(Y[:, :-1], LOGITS)
    with pytest.raises(TypeError, match="floating-point"):
        m.update(Y, np.ones((B, S, V), dtype=np.int64))
    with pytest.raises(ValueError, match="ignore_index"):
        ms.Perplexity(ignore_index=1.5)
    with pytest.raises(ValueError, match="before any sample"):
        ms.Perplexity().compute()


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
def test_no_vocabulary_and_an_ignore_index_past_int64_raise(lib):
    to = _lib(lib)
    with pytest.raises(ValueError, match="64-bit"):
        ms.Perplexity(ignore_index=2 ** 70)
    m = ms.Perplexity(ignore_index=-100)
    with pytest.raises(ValueError, match="no vocabulary"):
        m.update(to(Y), to(np.zeros((B, S, 0))))
    m.update(to(Y), to(LOGITS))  # the in-place path (torch) is then held: it declines too
    with pytest.raises(ValueError, match="no vocabulary"):
        m.update(to(Y), to(np.zeros((B, S, 0))))
    assert _f(m.compute()) == pytest.approx(_reference(Y, LOGITS, -100), rel=1e-12)
    edge = ms.Perplexity(ignore_index=-2 ** 63)  # the int64 bounds themselves are ids
    edge.update(to(np.array([[1, -2 ** 63]])), to(np.zeros((1, 2, 4))))
    assert _f(edge.compute()) == pytest.approx(4.0)


def test_a_saved_state_is_a_snapshot_on_the_in_place_path():
    m = _feed(ms.Perplexity(ignore_index=3), Y % V, LOGITS, edges=(0, 4), lib=torch.asarray)
    saved = {k: v.clone() if hasattr(v, "clone") else v for k, v in m.state_dict().items()}
    handed = m.state_dict()
    _feed(m, Y % V, LOGITS, edges=(4, B), lib=torch.asarray)
    for k in ("sw", "s_nll"):
        assert torch.equal(handed[k], saved[k])  # later updates do not write into it
    np.testing.assert_allclose(_f(m.compute()), _reference(Y % V, LOGITS, 3), rtol=1e-6)


def test_logits_that_need_grad_on_the_in_place_path():
    # a model's logits (requires_grad): the same value, and the logits' graph untouched
    y = torch.asarray(Y % V)
    logits = torch.asarray(LOGITS, dtype=torch.float32).requires_grad_()
    m = ms.Perplexity()
    m.update(y, logits.detach())  # (the state exists: the next batches go in place)
    m.update(y, logits)
    m.update(y, logits)
    assert not m.state["s_nll"].requires_grad and logits.grad is None
    np.testing.assert_allclose(_f(m.compute()), _reference(Y % V, LOGITS), rtol=1e-5)


def _states_equal(got, want):
    for k in ("sw", "s_nll"):
        np.testing.assert_allclose(_f(got[k]), _f(want[k]), rtol=1e-6, equal_nan=True)


def _batches(ignore_index, bad, dtype):
    y = np.abs(Y) % V
    if ignore_index is not None:
        y[::5, -2:] = ignore_index  # padding
    y_bad = y.copy()
    if bad is not None:
        y_bad[3, 1] = bad
    logits = LOGITS.astype(dtype)
    strided = np.asfortranarray(logits[4:9])  # non-contiguous torch tensors
    return [(y[:4], logits[:4]), (y[4:4], logits[4:4]), (y[4:9], strided),
            (y_bad, logits), (y[9:], logits[9:])]


@pytest.mark.parametrize("ignore_index", [None, -100, 0, V - 1, -2 ** 63])
@pytest.mark.parametrize("bad", [None, V, -1, -100, 2 ** 62])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_in_place_path_equals_the_functional_update(ignore_index, bad, dtype):
    # torch CPU: the adder (the NLL kernel's own bounds check and token count, no pass
    # over the ids) against the spec's pure update, batch by batch: padding, a target
    # past the vocabulary, negative, or -100 where it is not ignore_index (NaN), an
    # empty and a non-contiguous batch
    spec, m = ms.PerplexityStream(ignore_index), ms.Perplexity(ignore_index)
    state = None
    for i, (y, logits) in enumerate(_batches(ignore_index, bad, dtype)):
        y, logits = torch.asarray(y), torch.asarray(logits)
        state = spec.update(spec.init(logits) if state is None else state, y, logits)
        m.update(y, logits)
        assert i == 0 or m._add is not None  # after the first batch: in place
        _states_equal(m.state, state)
    counted = bad is None or bad == ignore_index
    assert np.isnan(_f(m.compute())) != counted


def test_a_batch_past_the_exact_token_count_goes_the_functional_way(monkeypatch):
    import metrix.backends.torch as adapter

    monkeypatch.setattr(adapter, "_NLL_EXACT_COUNT", {torch.float32: 10, torch.float64: 10})
    m = _feed(ms.Perplexity(ignore_index=-100), Y, LOGITS, lib=torch.asarray)
    np.testing.assert_allclose(_f(m.compute()), _reference(Y, LOGITS, -100), rtol=1e-12)


def test_all_tokens_ignored_is_nan():
    m = ms.Perplexity(ignore_index=-100)
    m.update(np.full((2, S), -100), LOGITS[:2])
    assert np.isnan(m.compute())


def test_under_jax_jit():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    spec = ms.PerplexityStream(ignore_index=-100)
    state = spec.init(jnp.asarray(LOGITS))
    step = jax.jit(spec.update)
    for a, b in ((0, 6), (6, B)):
        state = step(state, jnp.asarray(Y[a:b]), jnp.asarray(LOGITS[a:b]))
    np.testing.assert_allclose(float(spec.compute(state)), _reference(Y, LOGITS, -100),
                               rtol=1e-12)


def test_token_nll_torch_kernel_equals_the_generic_one():
    from metrix._core import namespace as _ns
    from metrix.backends import GenericOps, ops

    x, idx = torch.asarray(LOGITS), torch.asarray(np.abs(Y) % V)
    xp = _ns.get_namespace_and_device(x)[0]
    assert type(ops(xp)).token_nll is not GenericOps.token_nll  # the fused kernel runs
    torch.testing.assert_close(ops(xp).token_nll(x, idx), GenericOps(xp).token_nll(x, idx),
                               rtol=1e-12, atol=1e-12)
