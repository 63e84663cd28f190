"""Unit tests for the ranking family: exact ties, binned curves, errors, tracing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import metrix
from conformance.util import jax_x64
from metrix.exceptions import UndefinedMetricWarning

rng = np.random.default_rng(7)
N = 400
Y = rng.integers(0, 2, N)
S = np.round(rng.random(N), 1)          # many ties
W = rng.random(N)
W[:20] = 0.0
C = 5
YC = rng.integers(0, C, N)
SC = rng.random((N, C))
SC = SC / SC.sum(axis=1, keepdims=True)
YML = (rng.random((N, C)) < 0.4).astype(np.int64)
SML = np.round(rng.random((N, C)), 1)
LABELS = list(range(C))


def _close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               **kw)


# -- exactness ------------------------------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
def test_auc_ap_ties_exact_large(weighted):
    n = 20_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)
    w = rng.random(n) if weighted else None
    _close(metrix.roc_auc_score(y, s, sample_weight=w),
           skm.roc_auc_score(y, s, sample_weight=w), rtol=1e-12)
    _close(metrix.average_precision_score(y, s, sample_weight=w),
           skm.average_precision_score(y, s, sample_weight=w), rtol=1e-12)


def test_validate_false_same_value():
    for fn, args, kw in [
        (metrix.roc_auc_score, (Y, S), {}),
        (metrix.roc_auc_score, (Y, S), {"sample_weight": W, "max_fpr": 0.4}),
        (metrix.average_precision_score, (Y, S), {}),
        (metrix.roc_auc_score, (YC, SC), {"multi_class": "ovr", "labels": LABELS}),
        (metrix.roc_auc_score, (YC, SC), {"multi_class": "ovo", "labels": LABELS}),
        (metrix.average_precision_score, (YML, SML), {"average": "samples"}),
        (metrix.ndcg_score, (YML, SML), {"k": 3}),
        (metrix.label_ranking_loss, (YML, SML), {}),
    ]:
        _close(fn(*args, validate=False, **kw), fn(*args, **kw), rtol=1e-12)


def _binary_libs():
    """NumPy, torch, and array-api-strict (the generic adapter: JAX's and the
    accelerators' sorts on host values)."""
    import importlib.util

    libs = {"numpy": lambda a: a}
    if importlib.util.find_spec("torch") is not None:
        import torch

        libs["torch"] = torch.from_numpy
    if importlib.util.find_spec("array_api_strict") is not None:
        import array_api_strict as xps

        libs["array_api_strict"] = xps.asarray
    return libs


BINARY_LIBS = _binary_libs()


def _score_dtypes(lib):
    return {"torch": ["float64", "float32", "float16", "bfloat16"],
            "array_api_strict": ["float64", "float32"]}.get(lib, ["float64", "float32",
                                                                  "float16"])


@pytest.mark.parametrize("lib", sorted(BINARY_LIBS))
@pytest.mark.parametrize("n", [200, 1023, 1024, 3000])
def test_binary_auc_and_ap_equal_scikit_learn_on_every_input(lib, n):
    """Binary AUC and AP under every condition that picks how they are sorted
    and counted: the array library, the score dtype, ``validate``, no / unit /
    random weights, sizes around 1,024, pos_label 1 and 0; ties throughout."""
    conv = BINARY_LIBS[lib]
    r = np.random.default_rng(n)
    y, s = r.integers(0, 2, n), np.round(r.random(n), 2)  # ties within and across classes
    w = r.random(n)
    w[: n // 10] = 0.0
    for dtype in _score_dtypes(lib):
        if dtype == "bfloat16":
            import torch

            ts = torch.from_numpy(s).to(torch.bfloat16)
            sx, s64 = ts, ts.double().numpy()
        else:
            sx, s64 = conv(s.astype(dtype)), s.astype(dtype).astype(np.float64)
        rtol = 1e-12 if dtype == "float64" else 1e-6
        for sw in (None, np.ones(n), w):
            swx = None if sw is None else conv(sw.astype(np.float64))
            for validate in (False, True):
                got = metrix.roc_auc_score(conv(y), sx, sample_weight=swx,
                                           validate=validate)
                _close(got, skm.roc_auc_score(y, s64, sample_weight=sw), rtol=rtol,
                       err_msg=f"AUC {dtype} {validate} {sw is not None}")
                for pos_label in (1, 0):
                    got = metrix.average_precision_score(
                        conv(y), sx, pos_label=pos_label, sample_weight=swx,
                        validate=validate)
                    want = skm.average_precision_score(y, s64, pos_label=pos_label,
                                                       sample_weight=sw)
                    _close(got, want, rtol=rtol,
                           err_msg=f"AP {pos_label} {dtype} {validate} {sw is not None}")
    if lib == "numpy":
        _close(metrix.roc_auc_score(YC, SC, multi_class="ovr", average=None),
               skm.roc_auc_score(YC, SC, multi_class="ovr", average=None), rtol=1e-12)


@pytest.mark.parametrize("lib,dtype", [("numpy", "float16"), ("torch", "bfloat16"),
                                       ("array_api_strict", "float64")])
def test_binary_auc_and_ap_past_the_largest_batch(lib, dtype):
    """Past a training-loop batch (2**16 rows), unweighted: scikit-learn's values
    for the libraries and dtypes whose sorts differ (value sorts, tie groups)."""
    if lib not in BINARY_LIBS:
        pytest.skip(f"{lib} is not installed")
    n = (1 << 16) + 1
    r = np.random.default_rng(4)
    y, s = r.integers(0, 2, n), np.round(r.random(n), 3)
    if dtype == "bfloat16":
        import torch

        sx = torch.from_numpy(s).to(torch.bfloat16)
        s64 = sx.double().numpy()
    else:
        sx, s64 = BINARY_LIBS[lib](s.astype(dtype)), s.astype(dtype).astype(np.float64)
    yx = BINARY_LIBS[lib](y)
    rtol = 1e-12 if dtype == "float64" else 1e-6
    for validate in (False, True):
        _close(metrix.roc_auc_score(yx, sx, validate=validate), skm.roc_auc_score(y, s64),
               rtol=rtol)
        for pos_label in (1, 0):
            _close(metrix.average_precision_score(yx, sx, pos_label=pos_label,
                                                  validate=validate),
                   skm.average_precision_score(y, s64, pos_label=pos_label), rtol=rtol)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("n", [2500, 1 << 16, (1 << 16) + 1])
def test_float32_binary_auc_and_ap_round_the_exact_value(lib, n):
    """float32 scores (host arrays): the exact AUC and AP rounded to float32 (the
    result dtype), equal to the float64 scores' value rounded; up to the
    largest training-loop batch and past it."""
    conv = (lambda a: a) if lib == "numpy" else pytest.importorskip("torch").from_numpy
    r = np.random.default_rng(n)
    y, s = r.integers(0, 2, n), np.round(r.random(n), 3).astype(np.float32)  # ties
    s64 = s.astype(np.float64)
    for fn, sk in ((metrix.roc_auc_score, skm.roc_auc_score),
                   (metrix.average_precision_score, skm.average_precision_score)):
        want = sk(y, s64)
        got = fn(conv(y), conv(s), validate=False)
        wide = fn(conv(y), conv(s64), validate=False)
        assert np.asarray(got).dtype == np.float32 or type(got) is float
        _close(wide, want, rtol=1e-12)
        assert float(got) == float(np.float32(wide)), fn.__name__
        assert float(got) == float(np.float32(want)), fn.__name__


@pytest.mark.parametrize("case", ["continuous", "cross ties", "end ties", "signed zeros",
                                  "extremes", "float16", "one tied value", "single class"])
def test_packed_auc_pairs_exact(case):
    # the one-sort packed path (host float32): 2U, P, N equal scikit-learn's AUC
    # exactly, across ties, -0.0 / +0.0, infinities, subnormals and float16
    from metrix.backends._packed_sort import auc_pairs_numpy

    r = np.random.default_rng(3)
    n = 3001
    y = r.integers(0, 2, n)
    if case == "continuous":
        s = r.normal(size=n).astype(np.float32)
    elif case == "cross ties":
        s = r.integers(-4, 5, n).astype(np.float32)
    elif case == "end ties":  # sparse tie groups, two at the very ends of the order
        s = r.normal(size=n).astype(np.float32)
        s[:3], s[3:5], s[5:7] = -9, 9, s[7]
        y[:5] = [0, 1, 1, 0, 1]
    elif case == "signed zeros":
        s = np.where(r.random(n) < 0.5, np.float32(-0.0), np.float32(0.0))
        s[:40] = r.normal(size=40)
    elif case == "extremes":
        s = r.choice(np.array([-np.inf, -3e38, -1e-45, 0.0, 1e-45, 1.5, 3e38, np.inf],
                              dtype=np.float32), n)
    elif case == "float16":
        s = np.round(r.random(n), 2).astype(np.float16)
    elif case == "one tied value":
        s = np.full(n, 0.25, dtype=np.float32)
    else:
        y = np.ones(n, dtype=np.int64)
        s = r.random(n).astype(np.float32)
    pairs, p, m = auc_pairs_numpy(s, y == 1)
    assert (p, m) == (int((y == 1).sum()), int((y != 1).sum()))
    if case == "single class":
        assert m == 0 and np.isnan(metrix.roc_auc_score(y, s, validate=False))
        return
    sp, sn = s[y == 1].astype(np.float64), s[y != 1].astype(np.float64)
    # the definition, pair by pair (scikit-learn refuses infinities)
    assert pairs == int(2 * (sp[:, None] > sn[None, :]).sum() + (sp[:, None] == sn[None, :]).sum())
    if np.isfinite(s).all():
        want = skm.roc_auc_score(y, s.astype(np.float64))
        assert pairs * 0.5 / (p * m) == pytest.approx(want, rel=1e-15, abs=0)
        _close(metrix.roc_auc_score(y, s, validate=False), want, rtol=1e-6)  # float32
    assert auc_pairs_numpy(s.astype(np.float64), y == 1) is None  # float64: the split sorts


@pytest.mark.parametrize("case", ["continuous", "cross ties", "end ties", "positive ties",
                                  "signed zeros",
                                  "extremes", "float16", "one tied value", "no positive",
                                  "all positive", "one sample"])
def test_packed_ap_sum_exact(case):
    # the one-sort packed path of the average precision (host float32) against
    # scikit-learn's step-wise sum, across ties (within and across the
    # classes), -0.0 / +0.0, float16 and the degenerate label sets
    from metrix.backends._packed_sort import ap_sum_numpy

    r = np.random.default_rng(5)
    n = 1 if case == "one sample" else 3001
    y = r.integers(0, 2, n)
    s = r.normal(size=n).astype(np.float32)
    if case == "cross ties":
        s = r.integers(-4, 5, n).astype(np.float32)
    elif case == "end ties":  # sparse tie groups, two at the very ends of the order
        s[:3], s[3:5], s[5:7] = -9, 9, s[7]
        y[:5] = [0, 1, 1, 0, 1]
    elif case == "positive ties":  # ties among positives only
        s = r.normal(size=n).astype(np.float32)
        s[y == 1] = np.round(s[y == 1])
        s[y == 0] += np.float32(0.5)
    elif case == "signed zeros":
        s = np.where(r.random(n) < 0.5, np.float32(-0.0), np.float32(0.0))
        s[:40] = r.normal(size=40)
    elif case == "extremes":
        s = r.choice(np.array([-3e38, -1e-45, 0.0, 1e-45, 1.5, 3e38], dtype=np.float32), n)
    elif case == "float16":
        s = np.round(r.random(n), 2).astype(np.float16)
    elif case == "one tied value":
        s = np.full(n, 0.25, dtype=np.float32)
    elif case == "no positive":
        y = np.zeros(n, dtype=np.int64)
    elif case in ("all positive", "one sample"):
        y = np.ones(n, dtype=np.int64)
    total, p = ap_sum_numpy(s, y == 1)
    assert p == int((y == 1).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns without positives
        want = skm.average_precision_score(y, s.astype(np.float64))
    got = total / p if p else 0.0
    assert got == pytest.approx(want, rel=1e-13, abs=1e-15)
    assert float(metrix.average_precision_score(y, s, validate=False)) == pytest.approx(
        want, rel=1e-7, abs=1e-15)  # the result in the scores' float32
    assert ap_sum_numpy(s.astype(np.float64), y == 1) is None  # float64: the sort path


def test_ap_lane_keeps_the_checks():
    # a validated lane call takes the general path where scikit-learn raises or warns
    s = np.array([0.1, 0.7, 0.4, 0.9], dtype=np.float32)
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        metrix.average_precision_score(np.array([0, 2, 2, 0]), s)
    with pytest.warns(UserWarning, match="No positive class found"):
        assert metrix.average_precision_score(np.zeros(4, dtype=np.int64), s) == 0.0
    with pytest.raises(ValueError, match="NaN"):
        metrix.average_precision_score(np.array([0, 1, 1, 0]), np.array([0.1, np.nan, 0, 1]))


@pytest.mark.parametrize("n_pos, n_neg", [(0, 5), (5, 0), (1, 1), (0, 0)])
def test_split_path_degenerate(n_pos, n_neg):
    y = np.array([1] * n_pos + [0] * n_neg)
    s = np.linspace(0, 1, n_pos + n_neg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, ref in ((metrix.roc_auc_score, skm.roc_auc_score),
                        (metrix.average_precision_score, skm.average_precision_score)):
            if y.shape[0] == 0:  # scikit-learn's AP raises an IndexError here
                with pytest.raises(ValueError, match="Found array with 0 sample"):
                    fn(y, s)
                continue
            _close(fn(y, s), ref(y, s), rtol=1e-12)


def test_ovr_value_path_matches_tie_groups():
    # unweighted ovr uses the value-sort path; unit weights use the tie groups
    a = metrix.roc_auc_score(YC, SC, multi_class="ovr", average=None)
    b = metrix.roc_auc_score(YC, SC, multi_class="ovr", average=None,
                             sample_weight=np.ones(N))
    _close(a, b, rtol=1e-12)
    _close(a, skm.roc_auc_score(YC, SC, multi_class="ovr", average=None), rtol=1e-12)


# -- binned curves ----------------------------------------------------------------

def _brute_counts(y, s, w, thr):
    pred = s[None, :] >= thr[:, None]
    return (pred * (1 - y) * w).sum(1), (pred * y * w).sum(1)


@pytest.mark.parametrize("thresholds", [11, np.array([0.05, 0.3, 0.3001, 0.9])])
def test_binned_curves_match_brute_force(thresholds):
    thr = (np.linspace(0, 1, thresholds) if isinstance(thresholds, int)
           else np.sort(thresholds))
    fps, tps = _brute_counts(Y, S, W, thr)
    fpr, tpr, t = metrix.roc_curve(Y, S, sample_weight=W, thresholds=thresholds)
    assert fpr.shape == (thr.shape[0] + 1,) and np.isinf(t[0])
    _close(t[1:], thr[::-1])
    _close(fpr[1:], fps[::-1] / (W * (1 - Y)).sum(), rtol=1e-12)
    _close(tpr[1:], tps[::-1] / (W * Y).sum(), rtol=1e-12)
    p, r, t = metrix.precision_recall_curve(Y, S, sample_weight=W, thresholds=thresholds)
    _close(p[:-1], np.where(tps + fps > 0, tps / np.maximum(tps + fps, 1e-300), 0), rtol=1e-12)
    _close(r[:-1], tps / (W * Y).sum(), rtol=1e-12)
    assert p[-1] == 1 and r[-1] == 0
    fpr, fnr, t = metrix.det_curve(Y, S, sample_weight=W, thresholds=thresholds)
    _close(fnr, 1 - tps / (W * Y).sum(), rtol=1e-12, atol=1e-15)


def test_binned_roc_auc_close_to_exact():
    s = rng.random(N)
    fpr, tpr, _ = metrix.roc_curve(Y, s, thresholds=2001)
    _close(metrix.auc(fpr[::-1], tpr[::-1]), skm.roc_auc_score(Y, s), atol=2e-3)


# -- validation -------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="contains NaN"):
        metrix.roc_auc_score(Y, np.where(Y == 1, np.nan, S))
    with pytest.raises(ValueError, match="contains infinity"):
        metrix.average_precision_score(Y, np.where(Y == 1, np.inf, S))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metrix.roc_curve(Y, S[:-1])
    with pytest.raises(ValueError, match="multi_class must be in"):
        metrix.roc_auc_score(YC, SC)
    with pytest.raises(ValueError, match="probabilities"):
        metrix.roc_auc_score(YC, SC * 2, multi_class="ovr")
    with pytest.raises(ValueError, match="must be ordered"):
        metrix.roc_auc_score(YC, SC, multi_class="ovr", labels=[1, 0, 2, 3, 4])
    with pytest.raises(ValueError, match="different shape"):
        metrix.coverage_error(YML, SML[:, :3])
    with pytest.raises(ValueError, match="'k' parameter"):
        metrix.top_k_accuracy_score(YC, SC, k=0)
    with pytest.raises(ValueError, match="Detection error tradeoff"):
        metrix.det_curve(np.ones(N, dtype=int), S)
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        metrix.auc([0, 1, 0.5], [0, 1, 1])


def test_warnings():
    with pytest.warns(UndefinedMetricWarning, match="Only one class is present"):
        v = metrix.roc_auc_score(np.ones(N, dtype=int), S)
    assert np.isnan(v)
    with pytest.warns(UserWarning, match="No positive class found"):
        assert metrix.average_precision_score(np.zeros(N, dtype=int), S) == 0
    with pytest.warns(UndefinedMetricWarning, match="perfect score"):
        assert metrix.top_k_accuracy_score(YC, SC, k=6) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # validate=False never warns
        assert np.isnan(metrix.roc_auc_score(np.ones(N, dtype=int), S, validate=False))


def test_string_labels_with_torch_scores():
    torch = pytest.importorskip("torch")
    y = np.array(["no", "yes"])[Y]
    got = metrix.roc_auc_score(y, torch.asarray(S))
    assert isinstance(got, torch.Tensor) and got.ndim == 0
    _close(got.numpy(), skm.roc_auc_score(y, S), rtol=1e-12)
    got = metrix.average_precision_score(y, torch.asarray(S), pos_label="yes")
    _close(got.numpy(), skm.average_precision_score(y, S, pos_label="yes"), rtol=1e-12)


def test_float32_result_dtype_torch():
    torch = pytest.importorskip("torch")
    got = metrix.roc_auc_score(torch.asarray(Y), torch.asarray(S, dtype=torch.float32))
    assert got.dtype == torch.float32
    fpr, tpr, thr = metrix.roc_curve(torch.asarray(Y), torch.asarray(S, dtype=torch.float32))
    assert fpr.dtype == tpr.dtype == thr.dtype == torch.float32


# -- tracing ------------------------------------------------------------------------

TRACED = [
    ("roc_auc_score", (Y, S, W), lambda f, a, b, c: f(a, b, sample_weight=c, validate=False),
     lambda: skm.roc_auc_score(Y, S, sample_weight=W)),
    ("roc_auc_score", (Y, S, W), lambda f, a, b, c: f(a, b, max_fpr=0.3, validate=False),
     lambda: skm.roc_auc_score(Y, S, max_fpr=0.3)),
    ("average_precision_score", (Y, S, W), lambda f, a, b, c: f(a, b, validate=False),
     lambda: skm.average_precision_score(Y, S)),
    ("roc_auc_score", (YC, SC, W),
     lambda f, a, b, c: f(a, b, multi_class="ovr", labels=LABELS, validate=False),
     lambda: skm.roc_auc_score(YC, SC, multi_class="ovr")),
    ("roc_auc_score", (YC, SC, W),
     lambda f, a, b, c: f(a, b, multi_class="ovo", labels=LABELS, average="weighted",
                          validate=False),
     lambda: skm.roc_auc_score(YC, SC, multi_class="ovo", average="weighted")),
    ("average_precision_score", (YML, SML, W),
     lambda f, a, b, c: f(a, b, sample_weight=c, validate=False),
     lambda: skm.average_precision_score(YML, SML, sample_weight=W)),
    ("top_k_accuracy_score", (YC, SC, W),
     lambda f, a, b, c: f(a, b, k=2, labels=LABELS, validate=False),
     lambda: skm.top_k_accuracy_score(YC, SC, k=2)),
    ("ndcg_score", (YML, SML, W), lambda f, a, b, c: f(a, b, validate=False),
     lambda: skm.ndcg_score(YML, SML)),
    ("label_ranking_average_precision_score", (YML, SML, W),
     lambda f, a, b, c: f(a, b, validate=False),
     lambda: skm.label_ranking_average_precision_score(YML, SML)),
]
TRACED_IDS = [f"{m}-{i}" for i, (m, *_) in enumerate(TRACED)]


@pytest.mark.compile
@pytest.mark.parametrize("case", TRACED, ids=TRACED_IDS)
def test_jax_jit(case):
    jax = pytest.importorskip("jax")
    name, args, call, ref = case
    fn = getattr(metrix, name)
    with jax_x64(True):
        jitted = jax.jit(lambda a, b, c: call(fn, a, b, c))
        got = jitted(*[jax.numpy.asarray(a) for a in args])
    _close(got, ref(), rtol=1e-10)


@pytest.mark.compile
@pytest.mark.parametrize("case", TRACED[:5], ids=TRACED_IDS[:5])
def test_torch_compile_fullgraph(case):
    torch = pytest.importorskip("torch")
    name, args, call, ref = case
    fn = getattr(metrix, name)
    torch._dynamo.reset()
    compiled = torch.compile(lambda a, b, c: call(fn, a, b, c), fullgraph=True)
    got = compiled(*[torch.asarray(a) for a in args])
    _close(got.numpy(), ref(), rtol=1e-10)


@pytest.mark.compile
def test_binned_curves_trace():
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    s = rng.random(N)  # no score on a threshold: linspace rounding differs by library
    want = metrix.precision_recall_curve(Y, s, thresholds=21)
    with jax_x64(True):
        got = jax.jit(lambda a, b: metrix.precision_recall_curve(a, b, thresholds=21,
                                                                 validate=False))(
            jax.numpy.asarray(Y), jax.numpy.asarray(s))
    for g, w in zip(got, want):
        _close(g, w, rtol=1e-12)
    torch._dynamo.reset()
    roc = torch.compile(lambda a, b: metrix.roc_curve(a, b, thresholds=21, validate=False),
                        fullgraph=True)
    got = roc(torch.asarray(Y), torch.asarray(s))
    for g, w in zip(got, metrix.roc_curve(Y, s, thresholds=21)):
        _close(g.numpy(), w, rtol=1e-12)


@pytest.mark.parametrize("validate", [True, False])
def test_float16_scores_give_no_overflow_warning(validate):
    # the finiteness check squares the scores: in float16 a score of 256 overflows
    rng = np.random.default_rng(3)
    y, s = rng.integers(0, 2, 1000), (rng.random(1000) * 1000).astype(np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = (metrix.roc_auc_score(y, s, validate=validate),
               metrix.average_precision_score(y, s, validate=validate))
    assert got == pytest.approx((skm.roc_auc_score(y, s), skm.average_precision_score(y, s)))
