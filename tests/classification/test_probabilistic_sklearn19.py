"""Probabilistic metrics against scikit-learn 1.9: multilabel-indicator targets,
string labels with another library's probabilities, the D^2 warning and the hinge
loss input checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from conformance.util import jax_x64
from metrix.exceptions import UndefinedMetricWarning

PROBA = ["log_loss", "brier_score_loss", "d2_log_loss_score", "d2_brier_score"]

rng = np.random.default_rng(19)
N, L = 40, 3
Y_ML = (rng.random((N, L)) < 0.5).astype(np.int64)
Y_ML[0] = [1, 1, 1]  # every column has both values
Y_ML[1] = [0, 0, 0]
P_ML = rng.random((N, L))
P_ML[2] = [0.0, 1.0, 0.5]  # clipped at eps and 1 - eps
W = rng.random(N)
W[3:9] = 0.0  # zero weights among the others


def _sk(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(skm, name)(*args, **kwargs)


def _mx(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(metrix, name)(*args, **kwargs)


def _rtol(dtype):
    return 1e-12 if dtype == np.float64 else 2e-6


# -- multilabel-indicator y_true ------------------------------------------------

@pytest.mark.parametrize("name", PROBA)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_multilabel_matches_sklearn(name, weighted, dtype, lib):
    p = P_ML.astype(dtype)
    w = W if weighted else None
    expected = _sk(name, Y_ML, p, sample_weight=w)
    if lib == "numpy":
        conv = np.asarray
    else:
        torch = pytest.importorskip("torch")
        conv = torch.asarray
    args = (conv(Y_ML), conv(p))
    kw = {} if w is None else {"sample_weight": conv(w)}
    for validate in (True, False):
        got = _mx(name, *args, validate=validate, **kw)
        if lib == "numpy":
            assert isinstance(got, float)
        else:
            assert str(got.dtype).endswith("float64" if dtype == np.float64 else "float32")
        np.testing.assert_allclose(float(got), expected, rtol=_rtol(dtype),
                                   err_msg=f"{name} validate={validate}")


@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_unnormalized_log_loss(weighted):
    w = W if weighted else None
    expected = _sk("log_loss", Y_ML, P_ML, sample_weight=w, normalize=False)
    got = _mx("log_loss", Y_ML, P_ML, sample_weight=w, normalize=False)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("name", PROBA)
def test_multilabel_two_columns(name):
    """Two indicator columns: the Brier score is halved ("auto"), and log loss takes a
    1-D y_proba as the second column; Brier refuses a 2-D y_true with a 1-D y_proba."""
    y, p = Y_ML[:, :2], P_ML[:, :2]
    np.testing.assert_allclose(_mx(name, y, p), _sk(name, y, p), rtol=1e-12)
    if name in ("log_loss", "d2_log_loss_score"):
        np.testing.assert_allclose(_mx(name, y, p[:, 1]), _sk(name, y, p[:, 1]),
                                   rtol=1e-12)
    else:
        with pytest.raises(ValueError, match=r"y should be a 1d array, got an array of "
                                             r"shape \(40, 2\) instead"):
            _sk(name, y, p[:, 1])
        with pytest.raises(ValueError, match=r"y should be a 1d array, got an array of "
                                             r"shape \(40, 2\) instead"):
            _mx(name, y, p[:, 1])


def test_multilabel_equals_one_hot_binary():
    """scikit-learn's test_brier_score_loss_binary: (n, 2) one-hot y_true and y_proba
    give the binary score."""
    y = np.array([0, 1, 1, 0, 1, 1])
    p = np.array([0.1, 0.8, 0.9, 0.3, 1.0, 0.95])
    expected = np.mean((y - p) ** 2)
    one_hot, p2 = np.column_stack((1 - y, y)), np.column_stack((1 - p, p))
    np.testing.assert_allclose(metrix.brier_score_loss(one_hot, p2), expected, rtol=1e-12)


@pytest.mark.parametrize("name", PROBA)
def test_multilabel_sample_weight_is_repetition(name):
    """Integer weights equal repeated samples; zero weights equal dropped samples."""
    w = rng.integers(0, 3, N)
    w[:2] = 1
    rep = np.repeat(np.arange(N), w)
    got = _mx(name, Y_ML, P_ML, sample_weight=w)
    np.testing.assert_allclose(got, _mx(name, Y_ML[rep], P_ML[rep]), rtol=1e-10)
    np.testing.assert_allclose(got, _sk(name, Y_ML, P_ML, sample_weight=w), rtol=1e-12)


@pytest.mark.parametrize("name", PROBA)
def test_multilabel_errors_as_sklearn(name):
    # a y_prob with another number of columns
    for fn in (_sk, _mx):
        with pytest.raises(ValueError) as err:
            fn(name, Y_ML, P_ML[:, :2])
        assert str(err.value) == (
            "y_true and y_prob contain different number of classes: 3 vs 2. Please "
            "provide the true labels explicitly through the labels argument. Classes "
            "found in y_true: [0 1 2]")
    # declared (1-D) labels and an indicator matrix
    for fn in (_sk, _mx):
        with pytest.raises(ValueError, match="The object was not fitted with multilabel"):
            fn(name, Y_ML, P_ML, labels=[0, 1, 2])
    # neither multilabel nor 1-D
    three = Y_ML.copy()
    three[0, 0] = 2
    for y in (Y_ML * 0.5, three, Y_ML.astype(str)):
        for fn in (_sk, _mx):
            with pytest.raises(ValueError, match="Multioutput target data is not supported "
                                                 "with label binarization"):
                fn(name, y, P_ML)


def test_multilabel_row_sums_warn_as_sklearn():
    with pytest.warns(UserWarning, match="The y_prob values do not sum to one"):
        skm.log_loss(Y_ML, P_ML)
    with pytest.warns(UserWarning, match="The y_prob values do not sum to one"):
        metrix.log_loss(Y_ML, P_ML)


def test_multilabel_jax_jit():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    with jax_x64(True):
        for name in PROBA:
            fn = getattr(metrix, name)
            run = jax.jit(lambda y, p, w, fn=fn: fn(y, p, sample_weight=w, validate=False))
            got = run(jnp.asarray(Y_ML), jnp.asarray(P_ML), jnp.asarray(W))
            np.testing.assert_allclose(float(got), _sk(name, Y_ML, P_ML, sample_weight=W),
                                       rtol=1e-12, err_msg=name)


def test_multilabel_on_every_backend(xp):
    """validate=False reads nothing: array-api-strict's devices and float32-only
    combos included."""
    p = P_ML.astype(np.float32) if xp.float_dtype == "float32" else P_ML
    for name in PROBA:
        expected = _sk(name, Y_ML, p, sample_weight=W)
        for validate in (False, True):
            got = _mx(name, xp.asarray(Y_ML), xp.asarray(p), sample_weight=xp.asarray(W),
                      validate=validate)
            np.testing.assert_allclose(xp.to_numpy(got), expected,
                                       rtol=1e-12 if xp.float_dtype == "float64" else 2e-6,
                                       err_msg=f"{name} validate={validate}")


# -- D^2 --------------------------------------------------------------------------

@pytest.mark.parametrize("name, p", [("d2_log_loss_score", [[0.5, 0.5]]),
                                     ("d2_brier_score", [0.8])])
def test_d2_warns_below_two_samples(name, p):
    with pytest.warns(UndefinedMetricWarning,
                      match="D\\^2 score is not well-defined with less than two samples."):
        got = getattr(metrix, name)([1], p)
    assert np.isnan(got)


def test_d2_brier_of_the_prior_is_exactly_zero():
    """scikit-learn scores the tiled prior as it scores y_proba: exactly 0."""
    w = [2, 1, 3, 1, 1, 2, 1, 4, 1, 4]
    y = [3, 3, 2, 2, 2, 1, 1, 1, 1, 0]
    p = [[0.2, 0.4, 0.25, 0.15]] * 10
    assert _sk("d2_brier_score", y, p, sample_weight=w) == 0
    assert metrix.d2_brier_score(y, p, sample_weight=w) == 0
    ys = [str(v) for v in y]
    assert metrix.d2_brier_score(ys, p, sample_weight=w) == 0


# -- weights that sum to zero -----------------------------------------------------

@pytest.mark.parametrize("name", PROBA + ["hinge_loss"])
def test_weights_summing_to_zero_raise_as_sklearn(name):
    y = np.array([0, 1, 1, 0])
    p = np.array([0.2, 0.7, 0.6, 0.4])
    w = np.array([1.0, -1.0, 0.5, -0.5])
    for fn in (_sk, _mx):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero, can't be "
                                                    "normalized"):
            fn(name, y, p, sample_weight=w)
    # nothing is read with validate=False: a number (inf / NaN), no error
    _mx(name, y, p, sample_weight=w, validate=False)
    if name == "log_loss":  # the sum needs no normalisation
        np.testing.assert_allclose(
            _mx(name, y, p, sample_weight=w, normalize=False),
            _sk(name, y, p, sample_weight=w, normalize=False), rtol=1e-12)


# -- hinge_loss ---------------------------------------------------------------------

@pytest.mark.parametrize("score", [[np.inf, np.inf], [np.nan, np.nan], [np.nan, np.inf],
                                   [np.inf, 1], [np.nan, 1]])
def test_hinge_non_finite_decisions_raise_as_sklearn(score):
    with pytest.raises(ValueError) as sk_err:
        skm.hinge_loss([0, 1], score)
    with pytest.raises(ValueError) as mx_err:
        metrix.hinge_loss([0, 1], score)
    assert str(mx_err.value) == str(sk_err.value)


@pytest.mark.parametrize("multiclass", [False, True])
def test_hinge_all_zero_weights_raise_as_sklearn(multiclass):
    y = np.array([0, 1, 2, 1]) if multiclass else np.array([0, 1, 1, 0])
    d = rng.normal(size=(4, 3)) if multiclass else rng.normal(size=4)
    w = np.zeros(4)
    for fn in (_sk, _mx):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero, can't be "
                                                    "normalized"):
            fn("hinge_loss", y, d, sample_weight=w)


def test_hinge_weights_as_numpy_average():
    """scikit-learn checks no weight values: NaN weights give NaN, negative ones count."""
    y, d = np.array([0, 1, 1, 0]), np.array([0.3, -0.2, 1.4, -2.0])
    w = np.array([np.nan, 1.0, 0.0, 2.0])
    assert np.isnan(_sk("hinge_loss", y, d, sample_weight=w))
    assert np.isnan(_mx("hinge_loss", y, d, sample_weight=w))
    w = np.array([-1.0, 2.0, 0.5, 1.0])
    np.testing.assert_allclose(metrix.hinge_loss(y, d, sample_weight=w),
                               skm.hinge_loss(y, d, sample_weight=w), rtol=1e-12)


# -- string labels on the host, probabilities elsewhere -------------------------------

def _other_libs():
    out = []
    try:
        import torch

        out.append(("torch", torch.asarray, lambda r: r.detach().numpy()))
    except ImportError:
        pass
    try:
        import array_api_strict as xps

        out.append(("array_api_strict", xps.asarray,
                    lambda r: np.asarray(r.to_device(xps.Device("CPU_DEVICE")))))
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("lib, conv, back", _other_libs(), ids=lambda v: v
                         if isinstance(v, str) else "")
@pytest.mark.parametrize("name", PROBA + ["hinge_loss"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_host_string_labels_with_device_probabilities(lib, conv, back, name, dtype):
    """scikit-learn encodes string labels on the host and moves the codes: the result
    lives in y_proba's namespace, with its dtype."""
    y = np.array(["a", "b", "a", "a", "b"])
    p = np.array([0.5, 0.2, 0.7, 0.6, 0.1], dtype=dtype)
    kw = {"pos_label": "a"} if name in ("brier_score_loss", "d2_brier_score") else {}
    expected = _sk(name, y, p, **kw)
    for validate in (True, False) if kw else (True,):
        got = _mx(name, y, conv(p), validate=validate, **kw)
        assert not isinstance(got, float)
        np.testing.assert_allclose(back(got), expected, rtol=_rtol(dtype))
    # multiclass, also with declared labels (and as a list)
    if name == "hinge_loss":
        return
    y = np.array(["a", "b", "c", "d", "b"])
    p = np.array([[0.5, 0.2, 0.2, 0.1], [0.4, 0.4, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1],
                  [0.1, 0.2, 0.6, 0.1], [0.25, 0.25, 0.25, 0.25]], dtype=dtype)
    expected = _sk(name, y, p)
    got = _mx(name, y, conv(p))
    np.testing.assert_allclose(back(got), expected, rtol=_rtol(dtype))
    got = _mx(name, y.tolist(), conv(p), labels=["a", "b", "c", "d"], validate=False)
    np.testing.assert_allclose(back(got), expected, rtol=_rtol(dtype))
