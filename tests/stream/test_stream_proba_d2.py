"""D2LogLossScore, D2BrierScore and ClassLikelihoodRatios against scikit-learn on
NumPy, torch CPU and JAX CPU: uneven and empty batches, merged states,
``state_dict`` round trips, weights with zeros, absent classes, single samples,
float16..float64 probabilities, narrow and unsigned label dtypes, bad labels,
``replace_undefined_by`` and scikit-learn's warnings (``validate=True``); and the
streams read the one-shot functions' per-sample terms and null-model sums."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import metrix
import metrix.stream as ms
from metrix.classification import probabilistic as _prob
from tests.stream._helpers import array_maker as _lib
from tests.stream._helpers import as_float64 as _f
from tests.stream._helpers import feed

torch = pytest.importorskip("torch")

rng = np.random.default_rng(4747)
N, C = 43, 5
Y = rng.integers(0, C - 1, N)           # class 4 never occurs: an absent class
Y[:3] = [0, 1, 2]
P = rng.dirichlet(np.ones(C), N)
Y_BIN = rng.integers(0, 2, N)
P_BIN = np.clip(rng.random(N), 0.02, 0.98)
YP_BIN = np.where(rng.random(N) < 0.7, Y_BIN, 1 - Y_BIN)
W = rng.random(N)
W[[0, 7, 8, 20]] = 0.0
EDGES = (0, 0, 1, 9, 9, 30, N)           # empty batches, a single sample, uneven sizes
LIBS = ["numpy", "torch", "jax"]

_feed = functools.partial(feed, edges=EDGES)


def _split(make, y, p, w=None, lib=np.asarray):
    """The same data in two metrics, merged; and through a state_dict round trip
    mid-stream."""
    a = _feed(make(), y, p, w, edges=(0, 0, 17), lib=lib)
    b = _feed(make(), y[17:], p[17:], None if w is None else w[17:], edges=(0, 5, N - 17),
              lib=lib)
    a.merge(b)
    c = make()
    c.load_state_dict(_feed(make(), y, p, w, edges=(0, 1, 20), lib=lib).state_dict())
    _feed(c, y[20:], p[20:], None if w is None else w[20:], edges=(0, 0, 3, N - 20), lib=lib)
    return _f(a.compute()), _f(c.compute())


# (make, y, p, scikit-learn reference with sample weights)
CASES = {
    "d2-log-loss-multiclass": (lambda: ms.D2LogLossScore(C), Y, P,
                               lambda y, p, w: skm.d2_log_loss_score(
                                   y, p, labels=range(C), sample_weight=w)),
    "d2-log-loss-binary": (lambda: ms.D2LogLossScore(), Y_BIN, P_BIN,
                           lambda y, p, w: skm.d2_log_loss_score(y, p, sample_weight=w)),
    "d2-brier-multiclass": (lambda: ms.D2BrierScore(C), Y, P,
                            lambda y, p, w: skm.d2_brier_score(y, p, labels=range(C),
                                                               sample_weight=w)),
    "d2-brier-binary": (lambda: ms.D2BrierScore(), Y_BIN, P_BIN,
                        lambda y, p, w: skm.d2_brier_score(y, p, sample_weight=w)),
    "d2-brier-minus-one": (lambda: ms.D2BrierScore(), 2 * Y_BIN - 1, P_BIN,
                           lambda y, p, w: skm.d2_brier_score(y, p, sample_weight=w)),
    "d2-brier-pos-label-0": (lambda: ms.D2BrierScore(pos_label=0), Y_BIN, P_BIN,
                             lambda y, p, w: skm.d2_brier_score(y, p, pos_label=0,
                                                                sample_weight=w)),
    "likelihood-ratios": (lambda: ms.ClassLikelihoodRatios(weighted=True), Y_BIN, YP_BIN,
                          lambda y, p, w: skm.class_likelihood_ratios(y, p, sample_weight=w)),
    "likelihood-ratios-scores": (lambda: ms.ClassLikelihoodRatios(weighted=True), Y_BIN,
                                 P_BIN, lambda y, p, w: skm.class_likelihood_ratios(
                                     y, (p > 0.5).astype(int), sample_weight=w)),
}


def _close(got, want, rtol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=rtol)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_equals_scikit_learn_unweighted_weighted_merged_and_reloaded(case, lib):
    make, y, p, ref = CASES[case]
    xp = _lib(lib)
    _close(_f(_feed(make(), y, p, lib=xp).compute()), ref(y, p, None))
    want = ref(y, p, W)
    _close(_f(_feed(make(), y, p, W, lib=xp).compute()), want)
    merged, reloaded = _split(make, y, p, W, lib=xp)
    _close(merged, want)
    _close(reloaded, want)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_stream_equals_the_one_shot_function(case):
    make, y, p, _ = CASES[case]
    m = _feed(make(), y, p, W)
    if case.startswith("d2-log-loss"):
        want = metrix.d2_log_loss_score(y, p, sample_weight=W, labels=range(C if p.ndim == 2
                                                                            else 2))
    elif case.startswith("d2-brier"):
        kw = {"labels": range(C)} if p.ndim == 2 else {"pos_label": m.spec.pos_label}
        want = metrix.d2_brier_score(y, p, sample_weight=W, **kw)
    else:
        want = metrix.class_likelihood_ratios(y, (p > 0.5).astype(int), sample_weight=W,
                                              labels=[0, 1])
    _close(_f(m.compute()), _f(want))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("lib", LIBS)
def test_float_dtypes_follow_the_one_shot_functions(lib, dtype):
    xp = _lib(lib)
    rtol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}[dtype]
    for make, y, p, call in (
            (lambda: ms.D2LogLossScore(C), Y, P,
             lambda y, p: metrix.d2_log_loss_score(y, p, labels=range(C))),
            (lambda: ms.D2LogLossScore(), Y_BIN, P_BIN, metrix.d2_log_loss_score),
            (lambda: ms.D2BrierScore(C), Y, P,
             lambda y, p: metrix.d2_brier_score(y, p, labels=range(C))),
            (lambda: ms.D2BrierScore(), Y_BIN, P_BIN, metrix.d2_brier_score),
            (ms.ClassLikelihoodRatios, Y_BIN, P_BIN,
             lambda y, p: metrix.class_likelihood_ratios(y, xp(np.asarray(p) > 0.5),
                                                         labels=[0, 1]))):
        got = _f(_feed(make(), y, p, lib=xp, dtype=dtype).compute())
        want = _f(call(xp(y), xp(p.astype(dtype))))
        _close(got, want, rtol)
        if lib == "torch" and dtype == "float32" and not isinstance(got, tuple):
            # the result has the probabilities' float dtype (a device array's)
            assert _feed(make(), y, p, lib=xp, dtype=dtype).compute().dtype == torch.float32


@pytest.mark.parametrize("lib", LIBS)
def test_narrow_and_unsigned_labels(lib):
    xp = _lib(lib)
    for ldt in ("uint8", "int8", "int16", "int32", "float32"):
        for make, y, p, ref in (CASES[c] for c in ("d2-log-loss-multiclass", "d2-brier-binary",
                                                   "likelihood-ratios")):
            _close(_f(_feed(make(), y.astype(ldt), p, W, lib=xp).compute()), ref(y, p, W))
    if lib == "torch":   # bool labels of a binary problem
        _close(_f(_feed(ms.ClassLikelihoodRatios(), Y_BIN.astype(bool), YP_BIN.astype(bool),
                        lib=xp).compute()), skm.class_likelihood_ratios(Y_BIN, YP_BIN))


@pytest.mark.parametrize("lib", LIBS)
def test_single_samples_empty_batches_and_fewer_than_two_samples(lib):
    xp = _lib(lib)
    for make, y, p, ref in (CASES[c] for c in ("d2-log-loss-multiclass", "d2-brier-binary")):
        m = make()
        m.update(xp(y[:0]), xp(p[:0]))  # nothing yet: compute raises
        with pytest.raises(ValueError, match="before any sample"):
            m.compute()
        m.update(xp(y[1:2]), xp(p[1:2]))
        with pytest.warns(UndefinedMetricWarning):
            want = ref(y[1:2], p[1:2], None)
        assert np.isnan(want) and np.isnan(_f(m.compute()))  # one sample: undefined
        m.update(xp(y[:0]), xp(p[:0]))
        m.update(xp(y[2:3]), xp(p[2:3]))                      # two samples: defined
        _close(_f(m.compute()), ref(y[1:3], p[1:3], None))
        # one sample per worker, merged: two samples
        a, b = make(), make()
        a.update(xp(y[3:4]), xp(p[3:4]))
        b.update(xp(y[5:6]), xp(p[5:6]))
        _close(_f(a.merge(b).compute()), ref(y[[3, 5]], p[[3, 5]], None))
    m = ms.ClassLikelihoodRatios()
    m.update(xp(Y_BIN[:0]), xp(YP_BIN[:0]))
    m.update(xp(np.array([1])), xp(np.array([1])))
    assert all(np.isnan(v) for v in _f(m.compute()))       # fp = 0, tn = 0: undefined


def test_absent_classes_and_a_single_class_of_y_true():
    # classes absent from y_true add nothing to the null model (0 log 0 := 0)
    y = np.array([1, 1, 3, 3, 3, 1])
    p = rng.dirichlet(np.ones(C), 6)
    for make, ref in ((lambda: ms.D2LogLossScore(C), skm.d2_log_loss_score),
                      (lambda: ms.D2BrierScore(C), skm.d2_brier_score)):
        _close(_f(_feed(make(), y, p, edges=(0, 2, 6)).compute()),
               ref(y, p, labels=range(C)))
    # one class only: the prior predicts it surely, the null loss is 0
    y1 = np.full(6, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make, fn in ((lambda: ms.D2LogLossScore(C), metrix.d2_log_loss_score),
                         (lambda: ms.D2BrierScore(C), metrix.d2_brier_score)):
            got = _f(_feed(make(), y1, p, edges=(0, 3, 6)).compute())
            want = _f(fn(y1, p, labels=range(C)))
            assert np.isnan(got) == np.isnan(want) and (np.isnan(got) or got == want)


def test_zero_total_weight_and_bad_labels():
    for make in (lambda: ms.D2LogLossScore(C), lambda: ms.D2BrierScore(C)):
        assert np.isnan(_f(_feed(make(), Y[:4], P[:4], np.zeros(4), edges=(0, 4)).compute()))
    y = Y.astype(float)
    y[4] = 2.5
    for make in (lambda v: ms.D2LogLossScore(C, validate=v),
                 lambda v: ms.D2BrierScore(C, validate=v)):
        assert np.isnan(_f(_feed(make(False), y, P).compute()))
        with pytest.raises(ValueError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _feed(make(True), y, P)
    with pytest.raises(ValueError, match="Labels must be integers"):
        _feed(ms.ClassLikelihoodRatios(validate=True), Y_BIN + 1, YP_BIN)


def test_replace_undefined_by_and_the_warnings_with_validate():
    cases = [  # (y_true, y_pred): no fp / no tn, no positives, no tp and no fp
        (np.array([0, 1, 1, 0]), np.array([1, 1, 1, 1])),
        (np.array([0, 0, 0, 0]), np.array([0, 1, 0, 0])),
        (np.array([1, 0, 1, 0]), np.array([0, 0, 0, 0])),
        (np.array([1, 0, 1, 0]), np.array([1, 0, 0, 1])),
    ]
    replaces = (np.nan, 1.0, {"LR+": 2.0, "LR-": 0.5}, {"LR+": np.inf, "LR-": np.nan})
    for y, p in cases:
        for replace in replaces:
            with warnings.catch_warnings(record=True) as sk_warned:
                warnings.simplefilter("always")
                want = skm.class_likelihood_ratios(y, p, replace_undefined_by=replace,
                                                   labels=[0, 1])
            quiet = _feed(ms.ClassLikelihoodRatios(replace_undefined_by=replace), y, p,
                          edges=(0, 1, 4))
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                got = quiet.compute()
            assert not warned                     # validate=False reads nothing
            _close(_f(got), want)
            loud = _feed(ms.ClassLikelihoodRatios(replace_undefined_by=replace,
                                                  validate=True), y, p, edges=(0, 3, 4))
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                _close(_f(loud.compute()), want)
            sk_msgs = sorted(str(w.message) for w in sk_warned
                             if issubclass(w.category, UserWarning))
            assert sorted(str(w.message) for w in warned) == sk_msgs


def test_constructor_and_state_dict_checks():
    for bad in (lambda: ms.D2BrierScore(1), lambda: ms.D2LogLossScore(True),
                lambda: ms.D2BrierScore(pos_label="a"),
                lambda: ms.ClassLikelihoodRatios(replace_undefined_by=0.5),
                lambda: ms.ClassLikelihoodRatios(replace_undefined_by={"LR+": 0.5,
                                                                       "LR-": 0.5})):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="shape"):
        ms.D2BrierScore(C).update(Y, P[:, :2])
    saved = _feed(ms.D2BrierScore(C), Y, P).state_dict()
    with pytest.raises(ValueError):
        ms.D2BrierScore(C - 1).load_state_dict(saved)
    with pytest.raises(ValueError):
        ms.BrierScore(C).load_state_dict(saved)       # another metric's state
    with pytest.raises(ValueError, match="weighted"):
        ms.ClassLikelihoodRatios().update(Y_BIN, YP_BIN, sample_weight=W)


def test_states_have_a_fixed_size_and_update_is_jittable():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    for make, y, p in ((lambda: ms.D2LogLossScore(C), Y, P), (lambda: ms.D2BrierScore(C), Y, P),
                       (lambda: ms.ClassLikelihoodRatios(weighted=True), Y_BIN, YP_BIN)):
        spec = make().spec
        state = spec.init(jnp.asarray(P.astype("float32")))
        shapes = {k: v.shape for k, v in state.items()}
        step = jax.jit(spec.update)
        for a, b in ((0, 10), (10, N)):
            state = step(state, jnp.asarray(y[a:b]), jnp.asarray(p[a:b]), jnp.asarray(W[a:b]))
        assert {k: v.shape for k, v in state.items()} == shapes
        _close(_f(jax.jit(spec.compute)(state)), _f(_feed(make(), y, p, W).compute()),
               rtol=1e-6)


def test_the_null_model_sums_are_the_one_shot_terms():
    # the null sums from the class weights equal the per-sample terms of the prior
    from metrix._core import namespace as _ns

    xp = _ns.get_namespace_and_device(np.zeros(1))[0]  # NumPy 1 has no xp.astype
    w_c = np.bincount(Y, weights=W, minlength=C)
    prior = w_c / w_c.sum()
    tiled = np.tile(prior, (N, 1))
    q = prior[Y]
    per_sample = _prob.brier_terms(q, tiled, xp=xp, acc=np.float64)
    _close(_prob.null_brier_sum(w_c, prior, binary=False, xp=xp, acc=np.float64),
           np.sum(W * per_sample))
    bounds = _prob.clip_bounds(np.finfo(np.float64).eps, np.float64, xp, None)
    per_sample = _prob.log_loss_terms(Y, tiled, bounds, xp=xp, acc=np.float64)
    _close(_prob.null_log_loss_sum(w_c, prior, xp=xp, acc=np.float64), np.sum(W * per_sample))


def test_a_collection_shares_the_confusion_matrix_and_the_loss_sums():
    coll = ms.MetricCollection({"lr": ms.ClassLikelihoodRatios(),
                                "f1": ms.F1Score(2, average="binary"),
                                "mcc": ms.MatthewsCorrCoef(2)})
    assert len(coll.spec._groups) == 1           # one 4 x 4 matrix for the three
    _feed(coll, Y_BIN, YP_BIN, lib=torch.asarray)
    got = coll.compute()
    _close(_f(got["lr"]), skm.class_likelihood_ratios(Y_BIN, YP_BIN))
    _close(_f(got["f1"]), skm.f1_score(Y_BIN, YP_BIN))
    both = ms.MetricCollection({"d2": ms.D2LogLossScore(C), "ll": ms.LogLoss(C)})
    _feed(both, Y, P, lib=torch.asarray)
    got = both.compute()
    _close(_f(got["d2"]), skm.d2_log_loss_score(Y, P, labels=range(C)))
    _close(_f(got["ll"]), skm.log_loss(Y, P, labels=range(C)))
