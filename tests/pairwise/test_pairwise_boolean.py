"""SciPy's boolean metrics (``"dice"``, ``"jaccard"``, ``"rogerstanimoto"``,
``"russellrao"``, ``"sokalsneath"``, ``"yule"``), ``"correlation"`` and
``"matching"`` of ``pairwise_distances``, ``pairwise_distances_chunked`` and
``pairwise_distances_argmin(_min)`` against scikit-learn 1.9 (SciPy's
``cdist`` / ``pdist``) on every backend: bool, int and float data, all-zero
and constant rows, ``Y=None`` / ``Y is X`` (``pdist``'s zero diagonal) and
``Y``, one row, NaN, ``n_jobs``, the ``DataConversionWarning``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics.pairwise as skp
from sklearn.exceptions import DataConversionWarning

import metrix.pairwise as mp
from conformance.combos import tolerance

BOOLEAN = ["dice", "jaccard", "rogerstanimoto", "russellrao", "sokalsneath", "yule"]
METRICS = [*BOOLEAN, "correlation", "matching"]


def _inputs():
    """Sparse counts with all-zero rows (X rows 0 and 3, Y row 1), 0 / 1 floats
    for Y, a row equal between them, a constant row for the correlation."""
    r = np.random.RandomState(3)
    X = (r.rand(13, 6) > 0.55) * r.randint(1, 4, (13, 6))
    X[0] = X[3] = 0
    X[5] = 1  # constant: the correlation's NaN
    Y = (r.rand(9, 6) > 0.5).astype(np.float64)
    Y[1] = 0
    Y[2] = X[4] != 0
    return X, Y


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        return f(*args, **kwargs)


def _check(got, want, xp, metric, exact):
    """Equal values: bit for bit for the boolean metrics in float64 (SciPy's one
    division of the same integer counts; XLA may divide by a constant as a
    product with its reciprocal: an ulp; ``russellrao``: SciPy's versions
    arrange its division differently, an ulp apart), else within the combo's
    tolerance."""
    got = xp.to_numpy(got)
    assert got.shape == want.shape
    if xp.float_dtype == "float64":
        assert got.dtype == want.dtype == np.float64
        if exact and xp.lib != "jax" and metric != "russellrao":
            np.testing.assert_array_equal(got, want, err_msg=metric)
            return
    tol = tolerance(xp.combo)
    np.testing.assert_allclose(got, want, rtol=max(tol["rtol"], 1e-12),
                               atol=max(tol["atol"], 1e-12), err_msg=metric)


@pytest.mark.parametrize("metric", METRICS)
def test_pairwise_distances_match_sklearn(xp, metric):
    X, Y = _inputs()
    exact = metric != "correlation"
    cases = [(X, None), (X, Y), (Y, X), (X[:1], Y), (X > 0, Y > 0), (X > 0, None),
             (Y, None), (X[4:5], None)]
    for A, B in cases:
        want = _quiet(skp.pairwise_distances, A, B, metric=metric)
        got = _quiet(mp.pairwise_distances, xp.asarray(A), None if B is None else xp.asarray(B),
                     metric=metric)
        xp.combo.check_placement(got)
        _check(got, want, xp, metric, exact)
    # Y is X (one object): SciPy's pdist, its zero diagonal
    A = xp.asarray(X)
    _check(_quiet(mp.pairwise_distances, A, A, metric=metric),
           _quiet(skp.pairwise_distances, X, X, metric=metric), xp, metric, exact)


@pytest.mark.parametrize("metric", BOOLEAN)
def test_conversion_warning(xp, metric):
    X, Y = _inputs()
    for A, B in ((X, None), (X > 0, Y), (X.astype(np.float64), Y > 0)):
        with pytest.warns(DataConversionWarning, match=f"converted to boolean for metric {metric}"):
            skp.pairwise_distances(A, B, metric=metric)
        with pytest.warns(DataConversionWarning, match=f"converted to boolean for metric {metric}"):
            mp.pairwise_distances(xp.asarray(A), None if B is None else xp.asarray(B),
                                  metric=metric)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mp.pairwise_distances(xp.asarray(X > 0), xp.asarray(Y > 0), metric=metric)
        mp.pairwise_distances(xp.asarray(X > 0), metric=metric)
        mp.pairwise_distances(xp.asarray(X), metric="correlation")


def test_nan_and_finiteness(xp):
    X, Y = _inputs()
    Xn = X.astype(np.float64)
    Xn[2, 1] = np.nan
    Xn[6, 0] = np.inf
    # bool conversion first (scikit-learn's dtype=bool): NaN and inf are True, no error
    for metric in BOOLEAN:
        want = _quiet(skp.pairwise_distances, Xn, Y, metric=metric)
        _check(_quiet(mp.pairwise_distances, xp.asarray(Xn), xp.asarray(Y), metric=metric),
               want, xp, metric, True)
    Xn[6, 0] = 0.0
    for f in (skp.pairwise_distances, mp.pairwise_distances):
        with pytest.raises(ValueError, match="Input contains NaN"):
            f(xp.asarray(Xn) if f is mp.pairwise_distances else Xn, metric="correlation")
    want = skp.pairwise_distances(Xn, Y, metric="correlation", ensure_all_finite=False)
    _check(mp.pairwise_distances(xp.asarray(Xn), xp.asarray(Y), metric="correlation",
                                 ensure_all_finite=False), want, xp, "correlation", False)


@pytest.mark.parametrize("metric", ["dice", "sokalsneath", "correlation"])
def test_n_jobs_keeps_cdist_diagonal(metric):
    """More than one job: scikit-learn calls ``cdist`` even where ``Y`` is ``X``
    (NaN, not 0, for an all-zero row's dice)."""
    X, _ = _inputs()
    for n_jobs in (None, 1, 2, -1):
        want = _quiet(skp.pairwise_distances, X, metric=metric, n_jobs=n_jobs)
        got = _quiet(mp.pairwise_distances, X, metric=metric, n_jobs=n_jobs)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.isnan(np.diag(got)).any()


def test_host_input_scikit_learn_reads_dtype_of():
    """A list of a boolean metric: scikit-learn's error (it reads ``X.dtype``)."""
    with pytest.raises(AttributeError):
        skp.pairwise_distances([[0, 1], [1, 1]], metric="jaccard")
    with pytest.raises(AttributeError):
        mp.pairwise_distances([[0, 1], [1, 1]], metric="jaccard")
    np.testing.assert_allclose(mp.pairwise_distances([[0, 1, 2], [1, 1, 3]], metric="correlation"),
                               skp.pairwise_distances([[0, 1, 2], [1, 1, 3]], metric="correlation"),
                               atol=1e-12)


def test_errors_match(xp):
    X, Y = _inputs()
    A = xp.asarray(X)
    with pytest.raises(ValueError, match="Incompatible dimension"):
        _quiet(mp.pairwise_distances, A, xp.asarray(Y[:, :4]), metric="jaccard")
    with pytest.raises(ValueError, match="Expected 2D array"):
        _quiet(mp.pairwise_distances, xp.asarray(X[0]), metric="jaccard")
    with pytest.raises(TypeError):  # NumPy: scikit-learn's (SciPy's) own TypeError
        mp.pairwise_distances(A, metric="correlation", p=2)
    with pytest.raises(TypeError):  # NumPy: SciPy's words; device: cdist()'s
        _quiet(mp.pairwise_distances, A, xp.asarray(Y), metric="jaccard", V=xp.asarray(Y[0]))


@pytest.mark.parametrize("metric", [*METRICS, "hamming"])
def test_chunked_match_sklearn(xp, metric):
    X, Y = _inputs()
    exact = metric != "correlation"
    A, B = xp.asarray(X), xp.asarray(Y)
    for args, theirs in (((A,), (X,)), ((A, B), (X, Y)), ((A, A), (X, X))):
        for wm in (None, 0.0002):
            want = _quiet(lambda: list(skp.pairwise_distances_chunked(
                *theirs, metric=metric, working_memory=wm)))
            got = _quiet(lambda: list(mp.pairwise_distances_chunked(
                *args, metric=metric, working_memory=wm)))
            assert len(got) == len(want)
            assert (len(want) == 1) == (wm is None)
            for g, w in zip(got, want):
                xp.combo.check_placement(g)
                _check(g, w, xp, metric, exact)
    if metric in BOOLEAN:
        with pytest.warns(DataConversionWarning, match="converted to boolean"):
            list(mp.pairwise_distances_chunked(A, metric=metric))


@pytest.mark.parametrize("metric", [*BOOLEAN, "correlation", "hamming"])
def test_argmin_min_match_sklearn(xp, metric):
    X, Y = _inputs()
    Xf = X.astype(np.float64) + np.arange(6) * 0.25  # no constant rows: distinct minima
    for A, B in ((X, Y), (Y, X), (Xf, Y), (X[:1], Y)):
        for axis in (0, 1):
            i, v = _quiet(skp.pairwise_distances_argmin_min, A, B, metric=metric, axis=axis)
            gi, gv = _quiet(mp.pairwise_distances_argmin_min, xp.asarray(A), xp.asarray(B),
                            metric=metric, axis=axis)
            xp.combo.check_placement(gi)
            np.testing.assert_array_equal(xp.to_numpy(gi), i, err_msg=metric)
            _check(gv, v, xp, metric, metric != "correlation")
            gj = _quiet(mp.pairwise_distances_argmin, xp.asarray(A), xp.asarray(B),
                        metric=metric, axis=axis)
            np.testing.assert_array_equal(xp.to_numpy(gj), i)
    # X is Y: scikit-learn's one chunk is SciPy's pdist, a zero diagonal
    A = xp.asarray(X)
    i, v = _quiet(skp.pairwise_distances_argmin_min, X, X, metric=metric)
    gi, gv = _quiet(mp.pairwise_distances_argmin_min, A, A, metric=metric)
    np.testing.assert_array_equal(xp.to_numpy(gi), i)
    _check(gv, v, xp, metric, metric != "correlation")
    if metric in BOOLEAN:  # float data (scikit-learn checks it as float first)
        with pytest.warns(DataConversionWarning, match="converted to boolean"):
            mp.pairwise_distances_argmin(xp.asarray(X > 0), xp.asarray(Y > 0), metric=metric)
        Xn = X.astype(np.float64)
        Xn[0, 0] = np.nan
        with pytest.raises(ValueError, match="Input contains NaN"):
            mp.pairwise_distances_argmin(xp.asarray(Xn), xp.asarray(Y), metric=metric)


def test_jax_float32():
    """JAX without 64-bit types: the counts and distances in float32."""
    jax = pytest.importorskip("jax")
    if jax.config.jax_enable_x64:
        jax.config.update("jax_enable_x64", False)  # restored by the conftest fixture
    import jax.numpy as jnp

    X, Y = _inputs()
    for metric in METRICS:
        want = _quiet(skp.pairwise_distances, X, Y, metric=metric)
        got = _quiet(mp.pairwise_distances, jnp.asarray(X), jnp.asarray(Y), metric=metric)
        assert got.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6, err_msg=metric)
        # "matching": ArgKmin's (DistanceMetric's, of the x != 0 indicators)
        i, _ = _quiet(skp.pairwise_distances_argmin_min, Y, X + 0.5, metric=metric)
        gi, _ = _quiet(mp.pairwise_distances_argmin_min, jnp.asarray(Y), jnp.asarray(X + 0.5),
                       metric=metric)
        np.testing.assert_array_equal(np.asarray(gi), i, err_msg=metric)


@pytest.mark.parametrize("metric", ["dice", "sokalsneath", "correlation"])
def test_argmin_takes_the_first_nan(xp, metric):
    """A row whose distances hold NaN (0 / 0 of two all-zero rows, a constant row's
    correlation): NumPy's argmin of scikit-learn's fallback gives its first NaN,
    whatever comes before it, on every backend."""
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 2.0], [1.0, 1.0, 0.0]])
    Y = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    for A, B in ((X, Y), (X, Y[::-1].copy()), (Y, X)):
        i, v = _quiet(skp.pairwise_distances_argmin_min, A, B, metric=metric)
        gi, gv = _quiet(mp.pairwise_distances_argmin_min, xp.asarray(A), xp.asarray(B),
                        metric=metric)
        np.testing.assert_array_equal(xp.to_numpy(gi), i)
        np.testing.assert_allclose(xp.to_numpy(gv), v, rtol=1e-6, atol=1e-6)
    assert np.isnan(v).any()
