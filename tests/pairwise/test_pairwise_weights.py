"""SciPy's weights ``w`` of the boolean metrics (``"dice"``, ``"jaccard"``,
``"rogerstanimoto"``, ``"russellrao"``, ``"sokalsneath"``, ``"yule"``) and of
``"correlation"`` in ``pairwise_distances``, ``pairwise_distances_chunked``
and ``pairwise_distances_argmin(_min)`` against scikit-learn 1.9 (SciPy's
``cdist`` / ``pdist`` with ``w``) on every backend: ``Y=None`` / ``Y is X``
(``pdist``'s zero diagonal) and ``Y``, all-zero rows, zero weights (0 / 0:
NaN or 0 as SciPy's), every weight zero, chunks, the checks of ``w`` and the
``DataConversionWarning``.

NumPy input with ``w`` is SciPy's own (bit for bit); device input sums the
weighted counts in another order: within a few ulps.  SciPy before 1.11
(the minimum-versions leg: 1.10) computes the weighted boolean metrics pair
by pair in Python: its 0 / 0 raise there (``ValueError``,
``ZeroDivisionError``) and its checks of ``w`` have other words; those cases
are SciPy 1.17's only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy
import sklearn.metrics.pairwise as skp
from sklearn.exceptions import DataConversionWarning

import metrix.pairwise as mp
from conformance.combos import tolerance

BOOLEAN = ["dice", "jaccard", "rogerstanimoto", "russellrao", "sokalsneath", "yule"]
METRICS = [*BOOLEAN, "correlation"]
ULP = np.finfo(np.float64).eps
#: SciPy's C++ ``cdist`` / ``pdist`` of the weighted boolean metrics (1.11 on)
PYBIND_BOOLEAN = tuple(int(v) for v in scipy.__version__.split(".")[:2]) >= (1, 11)
pytestmark = pytest.mark.skipif(
    not PYBIND_BOOLEAN, reason="SciPy before 1.11 weighs these metrics pair by pair in Python "
    "(other 0 / 0 errors, warnings and words); metrix follows SciPy 1.11 on")


def _inputs():
    """Counts with all-zero rows (X rows 0 and 3, Y row 1), 0 / 1 floats for Y,
    a row equal between them, a constant row (the correlation's NaN)."""
    r = np.random.RandomState(7)
    X = (r.rand(13, 6) > 0.55) * r.randint(1, 4, (13, 6))
    X[0] = X[3] = 0
    X[5] = 1
    Y = (r.rand(9, 6) > 0.5).astype(np.float64)
    Y[1] = 0
    Y[2] = X[4] != 0
    return X, Y


def _weights():
    """Positive weights, weights with zeros (pairs whose rows differ only where
    the weight is 0: SciPy's 0 / 0), every weight zero."""
    r = np.random.RandomState(11)
    return [r.rand(6) * 3 + 0.1, np.array([0.0, 1.5, 2.0, 0.0, 0.25, 1.0]), np.zeros(6)]


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's correlation of 0 / 0
        return f(*args, **kwargs)


def _want(name, f, *args, **kwargs):
    """scikit-learn's answer; None where SciPy before 1.11 raises on a weighted
    boolean 0 / 0 (its one-pair functions)."""
    try:
        return _quiet(f, *args, **kwargs)
    except (ValueError, ZeroDivisionError):
        if PYBIND_BOOLEAN or name not in BOOLEAN:
            raise
        return None


def _check(got, want, xp, metric):
    """Equal NaN, else within a few ulps (float64; the combo's tolerance in float32)."""
    got = xp.to_numpy(got)
    assert got.shape == want.shape
    if got.dtype != np.float64 and metric == "correlation":
        # a constant row: its weighted mean rounds in float32 (SciPy's NaN of its
        # float64 0 / 0 is not reached); the other entries as SciPy's
        assert not (np.isnan(got) & ~np.isnan(want)).any()
        ok = ~np.isnan(want)
        got, want = got[ok], want[ok]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=metric)
    if xp.float_dtype == "float64" and got.dtype == np.float64:
        assert want.dtype == np.float64
        if xp.lib == "numpy":  # SciPy's own
            np.testing.assert_array_equal(got, want, err_msg=metric)
            return
        # counts in [0, 1] relative; the correlation's cancellation near 0: absolute
        atol = 16 * ULP if metric == "correlation" else 0.0
        np.testing.assert_allclose(got, want, rtol=8 * ULP, atol=atol, err_msg=metric)
        return
    tol = tolerance(xp.combo)
    np.testing.assert_allclose(got, want, rtol=max(tol["rtol"], 1e-6),
                               atol=max(tol["atol"], 1e-6), err_msg=metric)


def _data(metric, A):
    return A.astype(np.float64) if metric == "correlation" else A


@pytest.mark.parametrize("metric", METRICS)
def test_weighted_match_sklearn(xp, metric):
    X, Y = _inputs()
    X = _data(metric, X)
    cases = [(X, None), (X, Y), (Y, X), (X[:1], Y), (X > 0, Y > 0), (Y, None)]
    for w in _weights():
        for A, B in cases:
            want = _want(metric, skp.pairwise_distances, A, B, metric=metric, w=w)
            if want is None:
                continue
            got = _quiet(mp.pairwise_distances, xp.asarray(A),
                         None if B is None else xp.asarray(B), metric=metric, w=xp.asarray(w))
            xp.combo.check_placement(got)
            _check(got, want, xp, metric)
        # Y is X (one object): SciPy's pdist, its zero diagonal
        A = xp.asarray(X)
        want = _want(metric, skp.pairwise_distances, X, X, metric=metric, w=w)
        if want is not None:
            _check(_quiet(mp.pairwise_distances, A, A, metric=metric, w=xp.asarray(w)),
                   want, xp, metric)
        # host weights with device data
        want = _want(metric, skp.pairwise_distances, X, Y, metric=metric, w=w)
        if want is not None:
            _check(_quiet(mp.pairwise_distances, xp.asarray(X), xp.asarray(Y), metric=metric,
                          w=w), want, xp, metric)


@pytest.mark.skipif(not PYBIND_BOOLEAN, reason="SciPy 1.11's C++ weighted boolean metrics")
def test_weighted_edge_values():
    """SciPy's 0 / 0 of weighted pairs: NaN for dice, rogerstanimoto (every weight
    0), russellrao (every weight 0) and sokalsneath (no ``ValueError``: that is
    its one-pair function's), 0 for jaccard and yule; the tests above must see
    them."""
    X, Y = _inputs()
    w = _weights()[1]
    nan = {m: np.isnan(_quiet(skp.pairwise_distances, X, Y, metric=m, w=w)).any()
           for m in BOOLEAN}
    assert nan == {"dice": True, "jaccard": False, "rogerstanimoto": False,
                   "russellrao": False, "sokalsneath": True, "yule": False}
    zero = {m: np.isnan(_quiet(skp.pairwise_distances, X, Y, metric=m, w=np.zeros(6))).all()
            for m in METRICS}
    assert zero == {"dice": True, "jaccard": False, "rogerstanimoto": True,
                    "russellrao": True, "sokalsneath": True, "yule": False,
                    "correlation": True}


@pytest.mark.parametrize("metric", METRICS)
def test_weighted_chunked_and_argmin(xp, metric):
    X, Y = _inputs()
    X = _data(metric, X)
    w = _weights()[1] if PYBIND_BOOLEAN else _weights()[0]  # 1.10: no 0 / 0
    A, B, W = xp.asarray(X), xp.asarray(Y), xp.asarray(w)
    for args, theirs in (((A,), (X,)), ((A, B), (X, Y))):
        for wm in (None, 0.0002):
            want = _quiet(lambda: list(skp.pairwise_distances_chunked(
                *theirs, metric=metric, working_memory=wm, w=w)))
            got = _quiet(lambda: list(mp.pairwise_distances_chunked(
                *args, metric=metric, working_memory=wm, w=W)))
            assert len(got) == len(want)
            for g, h in zip(got, want):
                _check(g, h, xp, metric)
    for P, Q in ((X, Y), (Y, X)):
        i, v = _quiet(skp.pairwise_distances_argmin_min, P, Q, metric=metric,
                      metric_kwargs={"w": w})
        gi, gv = _quiet(mp.pairwise_distances_argmin_min, xp.asarray(P), xp.asarray(Q),
                        metric=metric, metric_kwargs={"w": W})
        _check(gv, v, xp, metric)
        # the first minimum: the same index where no other distance is within an ulp
        D = _quiet(skp.pairwise_distances, P, Q, metric=metric, w=w)
        gi = xp.to_numpy(gi)
        rows = np.arange(len(i))
        np.testing.assert_allclose(D[rows, gi], D[rows, i], rtol=8 * ULP, atol=16 * ULP)


@pytest.mark.parametrize("metric", [
    pytest.param("dice", marks=pytest.mark.skipif(not PYBIND_BOOLEAN, reason="SciPy 1.11's")),
    pytest.param("sokalsneath",
                 marks=pytest.mark.skipif(not PYBIND_BOOLEAN, reason="SciPy 1.11's")),
    "correlation"])
def test_weight_errors_match(xp, metric):
    X, Y = _inputs()
    X = _data(metric, X)
    A, B = xp.asarray(X), xp.asarray(Y)
    for w in (np.array([1.0, -2.0, 0.5, 1.0, 1.0, 1.0]), np.ones((1, 6)), np.ones(5),
              -np.ones(5), np.ones((2, 5))):
        with pytest.raises(ValueError) as want:
            _quiet(skp.pairwise_distances, X, Y, metric=metric, w=w)
        for f in (mp.pairwise_distances,
                  lambda *a, **k: list(mp.pairwise_distances_chunked(*a, **k))):
            with pytest.raises(ValueError) as got:
                _quiet(f, A, B, metric=metric, w=xp.asarray(w))
            assert str(got.value) == str(want.value)


def test_weighted_conversion_warning(xp):
    X, Y = _inputs()
    w = xp.asarray(_weights()[0])
    with pytest.warns(DataConversionWarning, match="converted to boolean for metric dice"):
        mp.pairwise_distances(xp.asarray(X), xp.asarray(Y), metric="dice", w=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mp.pairwise_distances(xp.asarray(X > 0), xp.asarray(Y > 0), metric="dice", w=w)


@pytest.mark.parametrize("metric", [*METRICS, "minkowski", "sqeuclidean", "hamming"])
def test_weights_none_is_unweighted(xp, metric):
    """``w=None``: SciPy's unweighted distances (no weights), on every backend."""
    X, Y = _inputs()
    X = _data(metric, X)
    for B in (None, Y):
        want = _quiet(skp.pairwise_distances, X, B, metric=metric, w=None)
        got = _quiet(mp.pairwise_distances, xp.asarray(X), None if B is None else xp.asarray(B),
                     metric=metric, w=None)
        np.testing.assert_array_equal(np.isnan(xp.to_numpy(got)), np.isnan(want))
        tol = tolerance(xp.combo)
        np.testing.assert_allclose(xp.to_numpy(got), want, rtol=max(tol["rtol"], 1e-12),
                                   atol=max(tol["atol"], 1e-12), err_msg=metric)
