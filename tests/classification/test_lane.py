"""The training-loop lane (declared 0..C-1, ``validate=False``) gives the general
path's numbers, dtypes and types, on every backend the lane runs through.

The general path is reached with the same labels as a NumPy array (the lane
takes only host lists / ranges), and checked against scikit-learn.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from conformance.util import jax_x64

C = 6
L = list(range(C))


def _cases():
    rng = np.random.default_rng(7)
    out = []
    for n in (1, 2, 37, 500):
        y = rng.integers(-2, C + 2, n)            # undeclared values on both sides
        p = np.where(rng.random(n) < 0.5, y, rng.integers(0, C + 1, n))
        w = rng.random(n)
        w[: n // 3] = 0.0                          # zero weights too
        out.append((y, p, None))
        out.append((y, p, w))
        out.append((y, p, w.astype(np.float32)))
    out.append((np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64), None))  # constant
    return out


CASES = _cases()


def _converters():
    conv = {"numpy": lambda a: a}
    try:
        import torch

        conv["torch"] = torch.from_numpy
    except ImportError:
        pass
    try:
        import jax.numpy as jnp

        conv["jax"] = jnp.asarray
    except ImportError:
        pass
    return conv


CONVERTERS = _converters()


def _context(lib):
    """JAX with 64-bit types (as the float64 references), others as they are."""
    if lib == "jax":
        return jax_x64(True)
    return contextlib.nullcontext()


@pytest.fixture(autouse=True)
def _lib_context(request):
    lib = request.node.callspec.params.get("lib") if hasattr(request.node, "callspec") else None
    with _context(lib):
        yield


def _host(x):
    return None if x is None else np.asarray(x)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None])
@pytest.mark.parametrize("zero_division", ["warn", 0.0, 1.0, np.nan])
def test_prfs_lane_matches_general_path(lib, case, average, zero_division):
    y, p, w = CASES[case]
    cv = CONVERTERS[lib]
    kw = dict(average=average, zero_division=zero_division)
    lane = metrix.precision_recall_fscore_support(
        cv(y), cv(p), labels=L, sample_weight=None if w is None else cv(w), validate=False,
        **kw)
    general = _quiet(metrix.precision_recall_fscore_support, cv(y), cv(p),
                     labels=np.arange(C), sample_weight=None if w is None else cv(w),
                     validate=False, **kw)
    ref = _quiet(skm.precision_recall_fscore_support, y, p, labels=L, sample_weight=w, **kw)
    rtol = 1e-5 if (w is not None and w.dtype == np.float32) or lib == "jax" else 1e-12
    for a, b, r in zip(lane, general, ref):
        if r is None:
            assert a is None and b is None
            continue
        assert type(a) is type(b)
        assert _host(a).dtype == _host(b).dtype
        np.testing.assert_allclose(_host(a), r, rtol=rtol, atol=1e-12)
        np.testing.assert_allclose(_host(b), r, rtol=rtol, atol=1e-12)
    f = metrix.f1_score(cv(y), cv(p), labels=L, validate=False,
                        sample_weight=None if w is None else cv(w), **kw)
    np.testing.assert_allclose(_host(f), _quiet(skm.f1_score, y, p, labels=L, sample_weight=w,
                                                **kw), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_confusion_and_accuracy_lane(lib, case):
    y, p, w = CASES[case]
    cv = CONVERTERS[lib]
    sw = None if w is None else cv(w)
    rtol = 1e-5 if (w is not None and w.dtype == np.float32) or lib == "jax" else 1e-12
    for normalize in (None, "true", "pred", "all"):
        got = metrix.confusion_matrix(cv(y), cv(p), labels=L, sample_weight=sw,
                                      normalize=normalize, validate=False)
        general = metrix.confusion_matrix(cv(y), cv(p), labels=np.arange(C), sample_weight=sw,
                                          normalize=normalize, validate=False)
        assert _host(got).dtype == _host(general).dtype
        np.testing.assert_allclose(_host(got), _host(general), rtol=rtol, atol=1e-12)
        if np.isin(y, L).any():  # scikit-learn refuses labels all absent from y_true
            ref = skm.confusion_matrix(y, p, labels=L, sample_weight=w, normalize=normalize)
            np.testing.assert_allclose(_host(got), ref, rtol=rtol, atol=1e-12)
    for normalize in (True, False):
        got = metrix.accuracy_score(cv(y), cv(p), sample_weight=sw, normalize=normalize,
                                    validate=False)
        general = metrix.accuracy_score(cv(y), cv(p), sample_weight=sw, normalize=normalize)
        assert type(got) is type(general)
        assert _host(got).dtype == _host(general).dtype
        np.testing.assert_allclose(_host(got), skm.accuracy_score(
            y, p, sample_weight=w, normalize=normalize), rtol=rtol)


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
def test_binary_lane_and_its_fallbacks(lib):
    cv = CONVERTERS[lib]
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    for pos_label in (0, 1):
        got = metrix.f1_score(cv(y), cv(p), labels=[0, 1], pos_label=pos_label,
                              validate=False)
        np.testing.assert_allclose(_host(got), skm.f1_score(y, p, pos_label=pos_label))
    # the general path's errors stay: binary average over three declared labels
    with pytest.raises(ValueError, match="average='binary'"):
        metrix.f1_score(cv(y), cv(p), labels=[0, 1, 2], validate=False)
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        metrix.f1_score(cv(y), cv(p), labels=[0, 1], pos_label=5, validate=False)
    # and its warnings: pos_label ignored by a non-binary average
    with pytest.warns(UserWarning, match="pos_label"):
        metrix.f1_score(cv(y), cv(p), labels=[0, 1], pos_label=0, average="macro",
                        validate=False)


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
@pytest.mark.parametrize("n", [1, 2, 9, 400])
@pytest.mark.parametrize("ties", [False, True])
def test_binary_roc_auc_lane(lib, n, ties):
    cv = CONVERTERS[lib]
    rng = np.random.default_rng(n)
    for y in (rng.integers(0, 2, n), 2 * rng.integers(0, 2, n) - 1):  # {0, 1} and {-1, 1}
        s = rng.random(n)
        if ties:
            s = np.round(s, 1)
        for dtype in (np.float64, np.float32):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no 0 / 0 warning where a class is absent
                got = metrix.roc_auc_score(cv(y), cv(s.astype(dtype)), validate=False)
            general = _quiet(metrix.roc_auc_score, cv(y), cv(s.astype(dtype)), labels=None,
                             sample_weight=cv(np.ones(n, dtype=dtype)), validate=False)
            assert type(got) is type(general)
            assert _host(got).dtype == _host(general).dtype
            if len(np.unique(y)) == 2:
                ref = skm.roc_auc_score(y, s.astype(dtype))
                np.testing.assert_allclose(_host(got), ref, rtol=1e-6 if dtype == np.float32
                                           or lib == "jax" else 1e-12)
            else:
                assert np.isnan(_host(got))


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_agreement_lanes(lib, case):
    """MCC, kappa, balanced accuracy, jaccard and the likelihood ratios: the lane
    equals the general path (and scikit-learn where it defines the value)."""
    y, p, w = CASES[case]
    cv = CONVERTERS[lib]
    sw = None if w is None else cv(w)
    rtol = 1e-5 if (w is not None and w.dtype == np.float32) or lib == "jax" else 1e-12
    calls = [
        lambda labels: metrix.matthews_corrcoef(cv(y), cv(p), labels=labels, sample_weight=sw,
                                                validate=False),
        lambda labels: metrix.balanced_accuracy_score(cv(y), cv(p), labels=labels,
                                                      sample_weight=sw, validate=False),
        lambda labels: metrix.balanced_accuracy_score(cv(y), cv(p), labels=labels,
                                                      sample_weight=sw, adjusted=True,
                                                      validate=False),
    ]
    for kappa_weights in (None, "linear", "quadratic"):
        calls.append(lambda labels, kw=kappa_weights: metrix.cohen_kappa_score(
            cv(y), cv(p), labels=labels, weights=kw, sample_weight=sw, validate=False))
    for average in ("macro", "micro", "weighted", None):
        calls.append(lambda labels, a=average: metrix.jaccard_score(
            cv(y), cv(p), labels=labels, average=a, sample_weight=sw, zero_division=1.0,
            validate=False))
    yb, pb = np.clip(y, 0, 1), np.clip(p, 0, 1)
    calls.append(lambda labels: metrix.class_likelihood_ratios(
        cv(yb), cv(pb), labels=labels[:2], sample_weight=sw, validate=False))
    for call in calls:
        got = _quiet(call, L)
        general = _quiet(call, np.arange(C))
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        general if isinstance(general, tuple) else (general,)):
            assert type(a) is type(b)
            assert _host(a).dtype == _host(b).dtype
            np.testing.assert_allclose(_host(a), _host(b), rtol=rtol, atol=1e-12)
    keep = np.isin(y, L) & np.isin(p, L)
    if w is None and len(np.unique(y[keep])) > 1:
        np.testing.assert_allclose(
            _host(metrix.matthews_corrcoef(cv(y), cv(p), labels=L, validate=False)),
            skm.matthews_corrcoef(y[keep], p[keep]), rtol=rtol, atol=1e-12)


def _warned(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, sorted(str(w.message) for w in caught)


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
def test_validated_lanes_match_scikit_learn(lib):
    """validate=True, no labels: discovered 0..C-1 take the lane; absent codes,
    negative labels and weights take the general path; the values and the
    warnings are scikit-learn's either way."""
    cv = CONVERTERS[lib]
    rng = np.random.default_rng(11)
    y = rng.integers(0, 5, 300)
    p = np.where(rng.random(300) < 0.6, y, rng.integers(0, 5, 300))
    cases = [(y, p), (y[:3], p[:3]), (np.where(y == 2, 4, y), np.where(p == 2, 4, p)),
             (y - 1, p - 1), (np.zeros(4, int), np.ones(4, int))]
    for yt, yp in cases:
        for average in ("macro", "micro", "weighted", None):
            got, w_got = _warned(metrix.f1_score, cv(yt), cv(yp), average=average)
            ref, w_ref = _warned(skm.f1_score, yt, yp, average=average)
            np.testing.assert_allclose(_host(got), ref, rtol=1e-6)
            assert w_got == w_ref
        got, w_got = _warned(metrix.confusion_matrix, cv(yt), cv(yp))
        ref, w_ref = _warned(skm.confusion_matrix, yt, yp)
        np.testing.assert_array_equal(_host(got), ref)
        assert w_got == w_ref
        np.testing.assert_allclose(_host(metrix.accuracy_score(cv(yt), cv(yp))),
                                   skm.accuracy_score(yt, yp))


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
def test_validated_mean_errors_read_the_result(lib):
    """validate=True mean errors: the lane's value is the finiteness check."""
    cv = CONVERTERS[lib]
    a, b = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    for name in ("mean_squared_error", "root_mean_squared_error", "mean_absolute_error"):
        np.testing.assert_allclose(_host(getattr(metrix, name)(cv(a), cv(b))),
                                   getattr(skm, name)(a, b), rtol=1e-6)
        for bad in (np.nan, np.inf):
            with pytest.raises(ValueError, match="NaN|infinity"):
                getattr(metrix, name)(cv(np.array([1.0, bad, 3.0])), cv(b))
            with pytest.raises(ValueError, match="NaN|infinity"):
                getattr(metrix, name)(cv(a), cv(np.array([bad, 1.0, 3.0])))


@pytest.mark.parametrize("lib", sorted(CONVERTERS))
def test_validated_binary_auc_lane(lib):
    """validate=True binary AUC: two label values and finite scores take the lane;
    one class, three classes or a NaN score give scikit-learn's warning / error."""
    cv = CONVERTERS[lib]
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 200), np.round(rng.random(200), 2)
    for yt in (y, 3 + 4 * y):
        np.testing.assert_allclose(_host(metrix.roc_auc_score(cv(yt), cv(s))),
                                   skm.roc_auc_score(yt, s), rtol=1e-6)
    got, w_got = _warned(metrix.roc_auc_score, cv(np.zeros(5, dtype=np.int64)), cv(s[:5]))
    ref, w_ref = _warned(skm.roc_auc_score, np.zeros(5, dtype=np.int64), s[:5])
    assert np.isnan(_host(got)) and np.isnan(ref) and len(w_got) == len(w_ref) == 1
    with pytest.raises(ValueError, match="multi_class"):
        metrix.roc_auc_score(cv(np.array([0, 1, 2, 1])), cv(s[:4]))
    with pytest.raises(ValueError, match="NaN"):
        metrix.roc_auc_score(cv(y[:4]), cv(np.array([0.1, np.nan, 0.3, 0.4])))


@pytest.mark.parametrize("lib", sorted(set(CONVERTERS) - {"jax"}))
def test_around_the_largest_training_loop_batch(lib):
    """The largest training-loop batch (2**16 rows) and one row more (offline
    sizes, the blocked counts): scikit-learn's values either way."""
    cv = CONVERTERS[lib]
    rng = np.random.default_rng(0)
    for n in (1 << 16, (1 << 16) + 1):
        y = rng.integers(-1, C + 1, n)
        p = np.where(rng.random(n) < 0.5, y, rng.integers(0, C, n))
        w = rng.random(n)
        for sw in (None, w):
            kw = dict(labels=L, sample_weight=sw)
            ckw = dict(labels=L, sample_weight=None if sw is None else cv(sw), validate=False)
            for average in ("macro", None):
                got = metrix.f1_score(cv(y), cv(p), average=average, **ckw)
                np.testing.assert_allclose(_host(got), skm.f1_score(y, p, average=average,
                                                                    **kw), rtol=1e-12)
            np.testing.assert_allclose(_host(metrix.confusion_matrix(cv(y), cv(p), **ckw)),
                                       skm.confusion_matrix(y, p, **kw), rtol=1e-12)
            keep = np.isin(y, L) & np.isin(p, L)
            np.testing.assert_allclose(
                _host(metrix.matthews_corrcoef(cv(y), cv(p), **ckw)),
                skm.matthews_corrcoef(y[keep], p[keep], sample_weight=None if sw is None
                                      else sw[keep]), rtol=1e-10)
            np.testing.assert_allclose(
                _host(metrix.accuracy_score(cv(y), cv(p), sample_weight=ckw["sample_weight"],
                                            validate=False)),
                skm.accuracy_score(y, p, sample_weight=sw), rtol=1e-12)
