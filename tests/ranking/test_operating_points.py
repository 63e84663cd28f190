"""The operating points (``recall_at_fixed_precision`` and kin) and their stream classes:
values against TorchMetrics' binary functions and classes (exact and binned), ties,
constraints no threshold meets, weights, merged and reloaded states, every backend."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import metrix
import metrix.stream as ms

torch = pytest.importorskip("torch")
tmf = pytest.importorskip("torchmetrics.functional.classification")
tmc = pytest.importorskip("torchmetrics.classification")

#: metrix function, stream class, TorchMetrics' name stem, the constraint's keyword
POINTS = [("recall_at_fixed_precision", "RecallAtFixedPrecision", "recall_at_fixed_precision",
           "min_precision"),
          ("precision_at_fixed_recall", "PrecisionAtFixedRecall", "precision_at_fixed_recall",
           "min_recall"),
          ("sensitivity_at_specificity", "SensitivityAtSpecificity",
           "sensitivity_at_specificity", "min_specificity"),
          ("specificity_at_sensitivity", "SpecificityAtSensitivity",
           "specificity_at_sensitivity", "min_sensitivity")]
IDS = [p[0] for p in POINTS]
#: minima off the small fractions (TorchMetrics rounds 1 - FPR in float32: at 0.4 exactly
#: it may miss a specificity of 6 in 10), and the ends
MINIMA = (0.0, 0.37, 0.5, 0.73, 1.0)
THRESHOLDS = (None, 11, [0.1, 0.35, 0.5, 0.9])


def _backends():
    out = [("numpy", np.asarray), ("torch", torch.asarray)]
    try:
        import jax.numpy as jnp
        out.append(("jax", jnp.asarray))
    except ImportError:  # pragma: no cover - jax is a test dependency
        pass
    return out


BACKENDS = _backends()


def _data(seed, n, *, ties):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)  # both classes (TorchMetrics' binned recall fails without positives)
    s = rng.random(n).astype(np.float32)
    return y, (np.round(s, 1).astype(np.float32) if ties else s)


def _tm_function(stem, s, y, arg, m, thresholds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v, t = getattr(tmf, "binary_" + stem)(torch.asarray(s), torch.asarray(y),
                                              **{arg: m}, thresholds=thresholds)
    return float(v), float(t)


def _close(got, want, what):
    assert math.isclose(float(got[0]), want[0], abs_tol=1e-6), (what, got, want)
    g, w = float(got[1]), want[1]
    assert (math.isnan(g) and math.isnan(w)) or math.isclose(g, w, abs_tol=1e-6), \
        (what, got, want)


# -- one-shot ------------------------------------------------------------------------

@pytest.mark.parametrize("func,cls,stem,arg", POINTS, ids=IDS)
def test_one_shot_equals_torchmetrics_exact_and_binned(func, cls, stem, arg):
    for seed in range(12):
        y, s = _data(seed, 5 + 3 * seed, ties=seed % 2 == 0)  # ties in the exact mode
        for thresholds in THRESHOLDS:
            for m in MINIMA:
                want = _tm_function(stem, s, y, arg, m, thresholds)
                got = getattr(metrix, func)(y, s, **{arg: m}, thresholds=thresholds)
                _close(got, want, (seed, thresholds, m))


@pytest.mark.parametrize("name,put", BACKENDS, ids=[b[0] for b in BACKENDS])
def test_one_shot_on_every_backend(name, put):
    y, s = _data(3, 40, ties=True)
    for func, _, _, arg in POINTS:
        for thresholds in (None, 11):
            want = getattr(metrix, func)(y, s.astype(np.float64), **{arg: 0.6},
                                         thresholds=thresholds)
            got = getattr(metrix, func)(put(y), put(s), **{arg: 0.6}, thresholds=thresholds)
            if name == "numpy":
                assert all(type(g) is float for g in got)
            else:
                assert all(type(g) is type(put(s)) and g.ndim == 0
                           and g.dtype == put(s).dtype for g in got), got
            _close(got, want, (name, func, thresholds))


def test_rules_for_ties_and_for_no_qualifying_threshold():
    y = np.array([0, 1, 1, 0])
    s = np.array([0.0, 0.5, 0.7, 0.8])
    # TorchMetrics' docstring example
    assert metrix.recall_at_fixed_precision(y, s, min_precision=0.5) == (1.0, 0.5)
    # nothing reaches a precision of 1: value 0, threshold NaN
    v, t = metrix.recall_at_fixed_precision([0, 1], [0.9, 0.1], min_precision=1.0)
    assert v == 0.0 and math.isnan(t)
    # recall 1 at thresholds 0.5 and 0.0: the higher precision (2/3 at 0.5) wins
    assert metrix.recall_at_fixed_precision(y, s, min_precision=0.1) == (1.0, 0.5)
    # precision 1/2 at 0.8 (recall 0) and 2/3 at 0.5: the best value, then the higher recall
    assert metrix.precision_at_fixed_recall(y, s, min_recall=0.5) == pytest.approx((2 / 3, 0.5))
    # the exact ROC starts at (0, 0) with threshold 1.0 (TorchMetrics' rule): it is the
    # highest threshold of specificity 1
    assert metrix.specificity_at_sensitivity(y, s, min_sensitivity=0.0) == (1.0, 1.0)
    assert metrix.sensitivity_at_specificity(y, s, min_specificity=1.0) == (0.0, 1.0)
    # binned: no threshold of specificity 1 (0.8 is above every threshold) -> (0, 1e6)
    assert metrix.sensitivity_at_specificity(y, s, min_specificity=1.0,
                                             thresholds=[0.0, 0.5]) == (0.0, 1e6)


def test_weights_repeat_and_drop_samples():
    y, s = _data(5, 30, ties=True)
    w = np.random.default_rng(5).integers(0, 4, 30)
    w[:2] = 1
    keep = np.repeat(np.arange(30), w)
    for func, _, _, arg in POINTS:
        for thresholds in (None, 11):
            got = getattr(metrix, func)(y, s, **{arg: 0.6}, sample_weight=w.astype(float),
                                        thresholds=thresholds)
            want = getattr(metrix, func)(y[keep], s[keep], **{arg: 0.6}, thresholds=thresholds)
            _close(got, want, (func, thresholds))


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.5", True, None, float("nan")])
def test_bad_minimum_raises(bad):
    for func, cls, _, arg in POINTS:
        with pytest.raises(ValueError, match=arg):
            getattr(metrix, func)([0, 1], [0.2, 0.8], **{arg: bad})
        with pytest.raises(ValueError, match="minimum"):
            getattr(ms, cls)(bad)


def test_bad_targets_raise():
    with pytest.raises(ValueError):
        metrix.recall_at_fixed_precision([0, 1, 2], [0.1, 0.5, 0.9], min_precision=0.5)
    with pytest.raises(ValueError, match="binary"):
        ms.RankingStream("recall_at_fixed_precision", num_classes=3, minimum=0.5)
    with pytest.raises(ValueError, match="minimum"):
        ms.RankingStream("roc_auc", minimum=0.5)


# -- streaming -----------------------------------------------------------------------

SIZES = (0, 1, 9, 0, 17, 5)  # uneven batches: empty, single sample


def _batches(y, s):
    cuts = np.cumsum(SIZES)[:-1]
    return list(zip(np.split(y, cuts), np.split(s, cuts)))


@pytest.mark.parametrize("func,cls,stem,arg", POINTS, ids=IDS)
def test_stream_equals_torchmetrics_merged_and_reloaded(func, cls, stem, arg):
    for seed in range(3):
        y, s = _data(seed, sum(SIZES), ties=False)  # continuous scores for the binned mode
        y_ties, s_ties = _data(seed, sum(SIZES), ties=True)
        for thresholds in THRESHOLDS:
            # the exact mode with ties; the binned mode bins probabilities arithmetically
            # (a score on a threshold may fall on either side: see metrix.stream._ranking)
            yy, ss = (y_ties, s_ties) if thresholds is None else (y, s)
            kw = {"capacity": 64} if thresholds is None else {"thresholds": thresholds}
            for m in (0.37, 0.73, 1.0):
                ref = getattr(tmc, "Binary" + cls)(**{arg: m}, thresholds=thresholds)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for yb, sb in _batches(yy, ss):
                        ref.update(torch.asarray(sb), torch.asarray(yb))
                    want = tuple(float(v) for v in ref.compute())
                for name, put in BACKENDS:
                    a, b = getattr(ms, cls)(m, **kw), getattr(ms, cls)(m, **kw)
                    for i, (yb, sb) in enumerate(_batches(yy, ss)):
                        (a if i % 2 else b).update(put(yb), put(sb))
                    a.merge(b)
                    _close(a.compute(), want, (name, thresholds, m))
                    c = getattr(ms, cls)(m, **kw)
                    c.load_state_dict(a.state_dict())
                    _close(c.compute(), want, (name, thresholds, m, "reloaded"))
                    if thresholds is None:  # the exact mode is the one-shot function's value
                        _close(a.compute(), getattr(metrix, func)(yy, ss, **{arg: m}), name)


def test_weighted_stream_equals_one_shot():
    y, s = _data(8, 36, ties=True)
    w = np.random.default_rng(8).random(36) * (np.arange(36) % 5 != 0)  # zeros too
    for func, cls, _, arg in POINTS:
        for kw, thresholds in (({"capacity": 40}, None),
                               ({"thresholds": [0.15, 0.45, 0.75], "weighted": True},
                                [0.15, 0.45, 0.75])):
            metric = getattr(ms, cls)(0.6, **kw)
            for lo in range(0, 36, 12):
                metric.update(y[lo:lo + 12], s[lo:lo + 12].astype(np.float64), w[lo:lo + 12])
            want = getattr(metrix, func)(y, s.astype(np.float64), **{arg: 0.6}, sample_weight=w,
                                         thresholds=thresholds)
            _close(metric.compute(), want, (func, kw))


def test_functional_stream_traces_under_jit():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    y, s = _data(2, 32, ties=True)
    for capacity, thresholds in ((64, None), (None, 50)):
        spec = ms.RankingStream("sensitivity_at_specificity", minimum=0.7,
                                thresholds=thresholds or 1000, capacity=capacity)
        state = spec.init(jnp.asarray(s))
        state = jax.jit(spec.update)(state, jnp.asarray(y), jnp.asarray(s))
        got = jax.jit(spec.compute)(state)
        eager = ms.SensitivityAtSpecificity(0.7, thresholds=thresholds or 1000,
                                            capacity=capacity)
        eager.update(y, s)
        _close(got, tuple(float(v) for v in eager.compute()), capacity)


def test_stream_configuration_is_checked_on_load_and_merge():
    a, b = ms.RecallAtFixedPrecision(0.5), ms.RecallAtFixedPrecision(0.6)
    a.update(np.array([0, 1]), np.array([0.2, 0.9]))
    with pytest.raises(ValueError, match="minimum"):
        b.load_state_dict(a.state_dict())
    with pytest.raises(ValueError, match="minimum"):
        b.merge(a)
    with pytest.raises(ValueError, match="before any sample"):
        ms.PrecisionAtFixedRecall(0.5).compute()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ms.SpecificityAtSensitivity(0.5, validate=True).update(np.array([0, 1]),
                                                               np.array([-2.0, 3.0]))


def test_a_collection_shares_the_histogram_and_returns_the_pair():
    y, s = _data(4, 50, ties=False)
    c = ms.MetricCollection({"auc": ms.AUROC(thresholds=100),
                             "rp": ms.RecallAtFixedPrecision(0.6, thresholds=100)})
    c.update(y, s)
    assert len(c.spec._groups) == 1  # one histogram for both
    got = c.compute()
    assert all(type(v) is np.float64 for v in got["rp"])
    alone = ms.RecallAtFixedPrecision(0.6, thresholds=100)
    alone.update(y, s)
    _close(got["rp"], tuple(float(v) for v in alone.compute()), "collection")
    # the callable form: the batch's own pair, accumulated (exact buffer too)
    exact = ms.SensitivityAtSpecificity(0.6, capacity=100)
    first = exact(y[:20], s[:20])
    _close(first, metrix.sensitivity_at_specificity(y[:20], s[:20], min_specificity=0.6),
           "call")
    exact(y[20:], s[20:])
    _close(exact.compute(), metrix.sensitivity_at_specificity(y, s, min_specificity=0.6),
           "call-accumulated")
