"""BrierScore, HingeLoss and Accuracy(top_k=k) against scikit-learn and TorchMetrics
on NumPy, torch CPU and JAX CPU: uneven and empty batches, merged states,
``state_dict`` round trips, weights with zeros, labels other than 0 / 1
({-1, 1} for hinge, ``pos_label`` for Brier), float16..float64 inputs,
single samples, bad labels; and the one-shot functions and the streams read
one per-sample term (LogLoss included)."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
import metrix.stream as ms
from tests.stream._helpers import array_maker as _lib
from tests.stream._helpers import as_float64 as _f
from tests.stream._helpers import feed

torch = pytest.importorskip("torch")
tmc = pytest.importorskip("torchmetrics.classification")

rng = np.random.default_rng(47)
N, C = 41, 4
Y = rng.integers(0, C, N)
Y[:3] = [0, 1, 2]                      # every class but maybe 3 present
P = rng.dirichlet(np.ones(C), N)
P[5] = P[6] = 0.25                     # ties for top-k
Y_BIN = rng.integers(0, 2, N)
P_BIN = rng.random(N)
D_BIN = rng.normal(size=N) * 2         # decision values, beyond [0, 1]
D = rng.normal(size=(N, C)) * 2
W = rng.random(N)
W[[0, 7, 8, 20]] = 0.0
EDGES = (0, 0, 1, 9, 9, 30, N)
LIBS = ["numpy", "torch", "jax"]

_feed = functools.partial(feed, edges=EDGES)


def _split(make, y, p, w=None, lib=np.asarray):
    """The same data in two metrics, merged; and through a state_dict round trip."""
    a = _feed(make(), y, p, w, edges=(0, 0, 17), lib=lib)
    b = _feed(make(), y[17:], p[17:], None if w is None else w[17:], edges=(0, 5, N - 17),
              lib=lib)
    a.merge(b)
    c = make()
    c.load_state_dict(a.state_dict())
    return _f(a.compute()), _f(c.compute())


# (name, make, y, p, weighted sklearn reference)
CASES = {
    "brier-multiclass": (lambda: ms.BrierScore(C), Y, P,
                         lambda y, p, w: skm.brier_score_loss(y, p, labels=range(C),
                                                              sample_weight=w)),
    "brier-multiclass-unscaled": (lambda: ms.BrierScore(C, scale_by_half=True), Y, P,
                                  lambda y, p, w: skm.brier_score_loss(
                                      y, p, labels=range(C), sample_weight=w,
                                      scale_by_half=True)),
    "brier-binary": (lambda: ms.BrierScore(), Y_BIN, P_BIN,
                     lambda y, p, w: skm.brier_score_loss(y, p, sample_weight=w)),
    "brier-binary-minus-one": (lambda: ms.BrierScore(), 2 * Y_BIN - 1, P_BIN,
                               lambda y, p, w: skm.brier_score_loss(y, p, sample_weight=w)),
    "brier-pos-label-3": (lambda: ms.BrierScore(pos_label=3), Y_BIN + 2, P_BIN,
                          lambda y, p, w: skm.brier_score_loss(y, p, pos_label=3,
                                                               sample_weight=w)),
    "brier-pos-label-0": (lambda: ms.BrierScore(pos_label=0, scale_by_half=False), Y_BIN,
                          P_BIN, lambda y, p, w: skm.brier_score_loss(
                              y, p, pos_label=0, sample_weight=w, scale_by_half=False)),
    "hinge-binary-minus-one": (lambda: ms.HingeLoss(), 2 * Y_BIN - 1, D_BIN,
                               lambda y, p, w: skm.hinge_loss(y, p, sample_weight=w)),
    "hinge-binary-0-1": (lambda: ms.HingeLoss(), Y_BIN, D_BIN,
                         lambda y, p, w: skm.hinge_loss(y, p, sample_weight=w)),
    "hinge-binary-1-2": (lambda: ms.HingeLoss(pos_label=2), Y_BIN + 1, D_BIN,
                         lambda y, p, w: skm.hinge_loss(y, p, sample_weight=w)),
    "hinge-crammer-singer": (lambda: ms.HingeLoss(C), Y, D,
                             lambda y, p, w: skm.hinge_loss(y, p, labels=range(C),
                                                            sample_weight=w)),
    "top2": (lambda: ms.Accuracy(C, top_k=2, weighted=True), Y, P,
             lambda y, p, w: skm.top_k_accuracy_score(y, p, k=2, labels=range(C),
                                                      sample_weight=w)),
    "top3": (lambda: ms.Accuracy(C, top_k=3, weighted=True), Y, P,
             lambda y, p, w: skm.top_k_accuracy_score(y, p, k=3, labels=range(C),
                                                      sample_weight=w)),
    "log-loss": (lambda: ms.LogLoss(C), Y, P,
                 lambda y, p, w: skm.log_loss(y, p, labels=range(C), sample_weight=w)),
}


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_equals_scikit_learn_unweighted_weighted_merged_and_reloaded(case, lib):
    make, y, p, ref = CASES[case]
    xp = _lib(lib)
    np.testing.assert_allclose(_f(_feed(make(), y, p, lib=xp).compute()), ref(y, p, None),
                               rtol=1e-12)
    want = ref(y, p, W)
    np.testing.assert_allclose(_f(_feed(make(), y, p, W, lib=xp).compute()), want, rtol=1e-12)
    merged, reloaded = _split(make, y, p, W, lib=xp)
    np.testing.assert_allclose(merged, want, rtol=1e-12)
    np.testing.assert_allclose(reloaded, want, rtol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_stream_equals_the_one_shot_function(case):
    make, y, p, _ = CASES[case]
    m = _feed(make(), y, p, W)
    spec = m.spec
    if case.startswith("brier"):
        kw = {"labels": range(C)} if p.ndim == 2 else {"pos_label": spec.pos_label}
        want = metrix.brier_score_loss(y, p, sample_weight=W,
                                       scale_by_half=spec.scale_by_half, **kw)
    elif case.startswith("hinge"):
        want = metrix.hinge_loss(y, p, sample_weight=W,
                                 labels=range(C) if p.ndim == 2 else None)
    elif case.startswith("top"):
        want = metrix.top_k_accuracy_score(y, p, k=spec.top_k, labels=range(C),
                                           sample_weight=W)
    else:
        want = metrix.log_loss(y, p, labels=range(C), sample_weight=W)
    np.testing.assert_allclose(_f(m.compute()), want, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("lib", LIBS)
def test_float_dtypes_follow_the_one_shot_functions(lib, dtype):
    xp = _lib(lib)
    rtol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}[dtype]
    for make, y, p, call in (
            (lambda: ms.BrierScore(C), Y, P,
             lambda y, p: metrix.brier_score_loss(y, p, labels=range(C))),
            (lambda: ms.BrierScore(), Y_BIN, P_BIN, metrix.brier_score_loss),
            (lambda: ms.HingeLoss(C), Y, D,
             lambda y, p: metrix.hinge_loss(y, p, labels=range(C))),
            (lambda: ms.HingeLoss(), 2 * Y_BIN - 1, D_BIN, metrix.hinge_loss),
            (lambda: ms.Accuracy(C, top_k=2), Y, P,
             lambda y, p: metrix.top_k_accuracy_score(y, p, k=2, labels=range(C))),
            (lambda: ms.LogLoss(C), Y, P, lambda y, p: metrix.log_loss(y, p, labels=range(C)))):
        got = _f(_feed(make(), y, p, lib=xp, dtype=dtype).compute())
        want = _f(call(xp(y), xp(p.astype(dtype))))
        # the sklearn value on the rounded inputs (float64 arithmetic)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def test_torchmetrics_hinge_losses_on_decisions_in_0_1():
    yt, pt = torch.asarray(Y), torch.asarray(P)
    ybt, pbt = torch.asarray(Y_BIN), torch.asarray(P_BIN)
    for squared in (False, True):
        got = _f(_feed(ms.HingeLoss(squared=squared), Y_BIN, P_BIN, lib=torch.asarray)
                 .compute())
        want = tmc.BinaryHingeLoss(squared=squared)(pbt, ybt)
        np.testing.assert_allclose(got, _f(want), rtol=1e-6)
        for mode in ("crammer-singer", "one-vs-all"):
            m = _feed(ms.HingeLoss(C, squared=squared, multiclass_mode=mode), Y, P,
                      lib=torch.asarray)
            want = tmc.MulticlassHingeLoss(C, squared=squared, multiclass_mode=mode)(pt, yt)
            np.testing.assert_allclose(_f(m.compute()), _f(want), rtol=1e-6)
            assert tuple(m.compute().shape) == tuple(want.shape)


def test_top_k_equals_torchmetrics_micro_accuracy_without_ties():
    p = rng.random((N, C))
    for k in (2, 3):
        got = _f(_feed(ms.Accuracy(C, top_k=k), Y, p, lib=torch.asarray).compute())
        want = tmc.MulticlassAccuracy(C, top_k=k, average="micro")(torch.asarray(p),
                                                                   torch.asarray(Y))
        np.testing.assert_allclose(got, _f(want), rtol=1e-6)  # TorchMetrics' float32


def test_top_k_ties_follow_scikit_learn():
    # equal scores: the higher class index ranks first (scikit-learn's order)
    y = np.array([0, 3, 1, 2])
    p = np.full((4, C), 0.25)
    got = _f(_feed(ms.Accuracy(C, top_k=2), y, p, edges=(0, 4)).compute())
    assert got == skm.top_k_accuracy_score(y, p, k=2, labels=range(C)) == 0.5


def test_top_k_counts_are_int64_and_weights_need_weighted():
    m = _feed(ms.Accuracy(C, top_k=2), Y, P)
    assert {str(v.dtype) for v in m.state.values()} == {"int64"}
    with pytest.raises(ValueError, match="weighted"):
        ms.Accuracy(C, top_k=2).update(Y, P, sample_weight=W)
    with pytest.raises(ValueError, match="micro"):
        ms.Accuracy(C, "macro", top_k=2)
    with pytest.raises(ValueError, match="num_labels"):
        ms.Accuracy(num_labels=C, top_k=2)
    with pytest.raises(ValueError, match="scores of shape"):
        ms.Accuracy(C, top_k=2).update(Y, Y)
    # top_k=1 is the plain (argmax) accuracy of a confusion matrix
    assert isinstance(ms.Accuracy(C, top_k=1).spec, ms.LabelStream)


def test_top_k_ignore_index_and_labels_outside():
    y = Y.copy()
    y[[3, 4]] = -100
    y[[10]] = 7                          # none of the classes: a miss
    m = _feed(ms.Accuracy(C, top_k=2, ignore_index=-100), y, P)
    keep = y != -100
    hits = skm.top_k_accuracy_score(np.where(y == 7, 0, y)[keep], P[keep], k=2,
                                    labels=range(C), normalize=False)
    hit_10 = skm.top_k_accuracy_score([0], P[10:11], k=2, labels=range(C), normalize=False)
    np.testing.assert_allclose(_f(m.compute()), (hits - hit_10) / keep.sum(), rtol=1e-12)
    with pytest.raises(ValueError, match="Labels must be integers"):
        _feed(ms.Accuracy(C, top_k=2, validate=True, ignore_index=-100), y, P)


@pytest.mark.parametrize("lib", LIBS)
def test_single_samples_and_empty_batches(lib):
    xp = _lib(lib)
    for make, y, p, ref in (CASES[c] for c in ("brier-binary", "hinge-crammer-singer",
                                               "top2", "brier-multiclass")):
        m = make()
        m.update(xp(y[:0]), xp(p[:0]))  # nothing yet: compute raises
        with pytest.raises(ValueError, match="before any sample"):
            m.compute()
        m.update(xp(y[1:2]), xp(p[1:2]))
        np.testing.assert_allclose(_f(m.compute()), ref(y[1:2], p[1:2], None), rtol=1e-12)


def test_zero_total_weight_is_nan():
    for make, y, p, _ in (CASES[c] for c in ("brier-binary", "hinge-binary-0-1", "top2")):
        m = _feed(make(), y[:3], p[:3], np.zeros(3), edges=(0, 3))
        assert np.isnan(_f(m.compute()))


def test_bad_labels_give_nan_or_raise_with_validate():
    y = Y.copy().astype(float)
    y[4] = 2.5
    for make in (lambda v: ms.BrierScore(C, validate=v), lambda v: ms.HingeLoss(C, validate=v),
                 lambda v: ms.LogLoss(C, validate=v)):
        p = D if "Hinge" in repr(make(False).spec) else P
        assert np.isnan(_f(_feed(make(False), y, p).compute()))
        with pytest.raises(ValueError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _feed(make(True), y, p)
    with pytest.raises(ValueError, match="greater than 1"):
        _feed(ms.BrierScore(validate=True), Y_BIN, P_BIN + 1)
    with pytest.raises(ValueError):
        _feed(ms.HingeLoss(validate=True), Y_BIN, np.where(Y_BIN, np.nan, D_BIN))


def test_constructor_checks():
    for bad in (lambda: ms.BrierScore(1), lambda: ms.BrierScore(scale_by_half="yes"),
                lambda: ms.HingeLoss(multiclass_mode="ovr"), lambda: ms.HingeLoss(True),
                lambda: ms.BrierScore(pos_label="a")):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="one-vs-all"):
        ms.HingeLoss(2, multiclass_mode="one-vs-all").update(Y_BIN, D_BIN)
    with pytest.raises(ValueError, match="shape"):
        ms.BrierScore(C).update(Y, P[:, :2])


def test_state_dict_refuses_another_configuration():
    m = _feed(ms.BrierScore(C), Y, P)
    with pytest.raises(ValueError, match="scale_by_half"):
        ms.BrierScore(C, scale_by_half=False).load_state_dict(m.state_dict())
    h = _feed(ms.HingeLoss(C), Y, D)
    with pytest.raises(ValueError, match="squared"):
        ms.HingeLoss(C, squared=True).load_state_dict(h.state_dict())
    t = _feed(ms.Accuracy(C, top_k=2), Y, P)
    with pytest.raises(ValueError, match="top_k"):
        ms.Accuracy(C, top_k=3).load_state_dict(t.state_dict())


def test_sums_are_in_the_widest_float_and_update_is_jittable():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    for spec, y, p in ((ms.BrierScoreStream(C), Y, P), (ms.HingeLossStream(C), Y, D),
                       (ms.LogLossStream(C), Y, P)):
        state = spec.init(jnp.asarray(p.astype("float32")))
        assert state["sw"].dtype == jnp.float64 and state["s_loss"].dtype == jnp.float64
        step = jax.jit(spec.update)
        state = step(state, jnp.asarray(y), jnp.asarray(p.astype("float32")),
                     jnp.asarray(W))
        assert spec.compute(state).dtype == jnp.float32


def test_the_per_sample_terms_are_the_one_shot_functions():
    # one definition: the streams call the classification module's terms
    import inspect

    from metrix.stream import _probabilistic, _topk

    src = inspect.getsource(_probabilistic)
    for name in ("log_loss_terms", "brier_terms", "hinge_terms"):
        assert f"_prob.{name}(" in src
    assert "_sample_log_loss" not in src
    assert "top_k_hit_rows(" in inspect.getsource(_topk)
