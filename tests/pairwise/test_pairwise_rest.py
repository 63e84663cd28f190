"""The rest of sklearn.metrics.pairwise against scikit-learn 1.9: nan_euclidean_distances,
haversine_distances, check_pairwise_arrays / check_paired_arrays, DistanceMetric and
the metric strings they add to pairwise_distances: values, dtypes, NaN patterns,
errors (scikit-learn's messages), every backend."""

from __future__ import annotations

import inspect
import math
import pickle
import re
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
import sklearn.metrics.pairwise as skp

import metrix
import metrix.pairwise as mp
from conformance.combos import tolerance

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=2e-5, atol=2e-6)}


def _data(n=30, m=20, d=5, seed=0, dtype=np.float64):
    r = np.random.RandomState(seed)
    return (r.rand(n, d) * 3).astype(dtype), (r.rand(m, d) * 3).astype(dtype)


def _holes(A, seed=1, rate=0.3):
    """``A`` with NaN at random, one row all NaN and one row with no NaN."""
    A = A.copy()
    A[np.random.RandomState(seed).rand(*A.shape) < rate] = np.nan
    A[2] = np.nan
    A[0] = np.arange(A.shape[1])
    return A


def _same(ours, theirs, dtype=np.float64):
    ours = np.asarray(ours)
    assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype, (ours.dtype,
                                                                           theirs.dtype)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


def _raises_like(exc, ours, theirs):
    """``ours()`` raises ``exc`` with scikit-learn's message (``theirs()``'s)."""
    with pytest.raises(Exception) as ref:
        theirs()
    with pytest.raises(exc, match=re.escape(str(ref.value))):
        ours()


# -- nan_euclidean_distances ------------------------------------------------------


def test_signatures():
    for name in ("haversine_distances", "check_pairwise_arrays", "check_paired_arrays"):
        assert inspect.signature(getattr(mp, name)) == inspect.signature(getattr(skp, name))
    ours = inspect.signature(mp.nan_euclidean_distances).parameters
    theirs = inspect.signature(skp.nan_euclidean_distances).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind)
                                                         for p in theirs.values()]
    assert math.isnan(ours["missing_values"].default)
    assert [p.default for n, p in ours.items() if n != "missing_values"] == \
        [p.default for n, p in theirs.items() if n != "missing_values"]


def test_flat_names():
    assert metrix.nan_euclidean_distances is mp.nan_euclidean_distances
    assert metrix.DistanceMetric is mp.DistanceMetric
    for n in ("nan_euclidean_distances", "haversine_distances", "check_pairwise_arrays",
              "check_paired_arrays", "DistanceMetric"):
        assert n in mp.__all__
    assert mp.PAIRWISE_DISTANCE_FUNCTIONS.keys() == skp.PAIRWISE_DISTANCE_FUNCTIONS.keys()
    assert mp.reductions.NAN_METRICS == skp._NAN_METRICS
    assert "DistanceMetric" in skm.__all__ and "DistanceMetric" in metrix.__all__


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nan_euclidean_matches_sklearn(dtype, squared):
    X, Y = _data(dtype=dtype)
    Xn, Yn = _holes(X), _holes(Y, seed=2)
    cases = [(Xn, None), (Xn, Xn), (Xn, Yn), (Yn, Xn), (X, Y), (Xn[:1], Yn), (Xn[2:3], None),
             (Xn, Yn[:1])]
    for A, B in cases:
        ref = skp.nan_euclidean_distances(A, B, squared=squared)
        _same(mp.nan_euclidean_distances(A, B, squared=squared), ref, dtype)
    # an all-missing row: NaN everywhere, its diagonal too when Y is X
    D = mp.nan_euclidean_distances(Xn)
    assert np.isnan(D[2]).all() and np.isnan(D[:, 2]).all()
    assert (np.diag(D)[np.arange(len(D)) != 2] == 0).all()


def test_nan_euclidean_blocks_and_symmetry(monkeypatch):
    """The row blocks (the symmetric half when Y is X) give the one-block result."""
    from metrix.pairwise import distances

    X, Y = _data(n=57, m=31)
    Xn, Yn = _holes(X), _holes(Y, seed=3)
    whole = [mp.nan_euclidean_distances(Xn), mp.nan_euclidean_distances(Xn, Yn)]
    monkeypatch.setattr(distances, "BLOCK_BYTES", 31 * 8 * 6 * 5)  # blocks of 5 rows
    blocks = [mp.nan_euclidean_distances(Xn), mp.nan_euclidean_distances(Xn, Yn)]
    for a, b, ref in zip(blocks, whole, (skp.nan_euclidean_distances(Xn),
                                         skp.nan_euclidean_distances(Xn, Yn))):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        _same(a, ref)


def test_nan_euclidean_missing_values_and_ints():
    A = np.array([[1, -1, 3], [4, 5, -1], [-1, -1, -1], [0, 2, 2]])
    B = np.array([[0, 0, 0], [-1, 2, 1]])
    for args in ((A,), (A, B), (A.astype(np.float32), B.astype(np.float32))):
        _same(mp.nan_euclidean_distances(*args, missing_values=-1),
              skp.nan_euclidean_distances(*args, missing_values=-1),
              args[0].dtype.type if args[0].dtype.kind == "f" else np.float64)
    _same(mp.nan_euclidean_distances(A, missing_values=2.0),
          skp.nan_euclidean_distances(A, missing_values=2.0))
    # the scikit-learn docstring example
    X = [[0, 1], [1, np.nan]]
    _same(mp.nan_euclidean_distances(X, X), skp.nan_euclidean_distances(X, X))
    _same(mp.nan_euclidean_distances(X, [[0, 0]]), skp.nan_euclidean_distances(X, [[0, 0]]))


def test_nan_euclidean_errors():
    f, g = mp.nan_euclidean_distances, skp.nan_euclidean_distances
    for kw in (dict(missing_values="a"), dict(missing_values=None), dict(squared=1),
               dict(copy="x")):
        _raises_like(ValueError, lambda kw=kw: f([[1, 2]], **kw), lambda kw=kw: g([[1, 2]], **kw))
    for args, kw in ((([[1, np.inf]],), {}), (([[1, np.nan]],), dict(missing_values=-1)),
                     (([[1, 2]], [[1, 2, 3]]), {}), (([1.0, 2.0],), {}), ((np.ones((0, 2)),), {})):
        _raises_like(ValueError, lambda a=args, k=kw: f(*a, **k), lambda a=args, k=kw: g(*a, **k))


def test_nan_euclidean_backends(xp):
    X, Y = _data(n=13, m=9)
    Xn, Yn = _holes(X), _holes(Y, seed=4)
    tol = tolerance(xp.combo)
    a, b = xp.asarray(Xn), xp.asarray(Yn)
    for args, ref in (((a,), skp.nan_euclidean_distances(Xn)),
                      ((a, a), skp.nan_euclidean_distances(Xn, Xn)),
                      ((a, b), skp.nan_euclidean_distances(Xn, Yn))):
        for squared in (False, True):
            out = mp.nan_euclidean_distances(*args, squared=squared)
            xp.combo.check_placement(out)
            want = ref ** 2 if squared else ref
            np.testing.assert_allclose(xp.to_numpy(out), want, **tol)
    out = mp.pairwise_distances(a, b, metric="nan_euclidean")
    xp.combo.check_placement(out)
    np.testing.assert_allclose(xp.to_numpy(out), skp.nan_euclidean_distances(Xn, Yn), **tol)


# -- haversine_distances ----------------------------------------------------------


def _geo(n, seed):
    r = np.random.RandomState(seed)
    return np.column_stack([(r.rand(n) - 0.5) * np.pi, (r.rand(n) - 0.5) * 2 * np.pi])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_haversine_matches_sklearn(dtype):
    X, Y = _geo(12, 0), _geo(7, 1)
    if dtype is np.int64:
        X, Y = np.round(X), np.round(Y)
    X, Y = X.astype(dtype), Y.astype(dtype)
    for args in ((X,), (X, Y), (X, X), (X[:1],), ([[0.1, 0.2]], [[0.3, -1.0]])):
        _same(mp.haversine_distances(*args), skp.haversine_distances(*args))
    _same(mp.pairwise_distances(X, Y, metric="haversine"),
          skp.pairwise_distances(X, Y, metric="haversine"))
    assert (np.diag(mp.haversine_distances(X)) == 0).all()


def test_haversine_errors():
    f, g = mp.haversine_distances, skp.haversine_distances
    for args in (([[1, 2, 3]],), ([[1, 2]], [[1, 2, 3]]), ([[1, np.nan]],), ([1.0, 2.0],)):
        _raises_like(ValueError, lambda a=args: f(*a), lambda a=args: g(*a))


def test_haversine_backends(xp):
    X, Y = _geo(9, 2), _geo(5, 3)
    tol = tolerance(xp.combo)
    out = mp.haversine_distances(xp.asarray(X), xp.asarray(Y))
    xp.combo.check_placement(out)
    np.testing.assert_allclose(xp.to_numpy(out), skp.haversine_distances(X, Y), **tol)


# -- check_pairwise_arrays / check_paired_arrays ----------------------------------


def test_checks_match_sklearn():
    X, Y = _data(n=4, m=3)
    for kw in ({}, dict(dtype=None), dict(dtype=np.float32), dict(dtype=[np.float32]),
               dict(copy=True), dict(ensure_all_finite="allow-nan")):
        for a, b in ((X, Y), (X.astype(np.float32), Y.astype(np.float32)),
                     (X.astype(np.float32), Y), (np.arange(6).reshape(3, 2), [[1, 2]])):
            ours, theirs = mp.check_pairwise_arrays(a, b, **kw), skp.check_pairwise_arrays(a, b,
                                                                                        **kw)
            for o, t in zip(ours, theirs):
                _same(o, t)
    a, b = mp.check_pairwise_arrays(X, None)
    assert a is b
    a, b = mp.check_pairwise_arrays(X, X, copy=True)
    assert a is b and a is not X
    _same(mp.check_pairwise_arrays(X, X.T.copy(), precomputed=True)[0], X)
    for o, t in zip(mp.check_paired_arrays(X, X + 1), skp.check_paired_arrays(X, X + 1)):
        _same(o, t)


def test_checks_errors():
    f, g = mp.check_pairwise_arrays, skp.check_pairwise_arrays
    cases = [(([[1, 2]], [[1, 2, 3]]), {}), (([[1, 2]], [[1, 2]]), dict(precomputed=True)),
             (([[1, np.nan]], None), {}),
             (([[1, np.inf]], None), dict(ensure_all_finite="allow-nan")),
             (([1.0, 2.0], None), {}), ((np.ones((2, 2, 2)), None), {}),
             ((np.ones((0, 2)), None), {})]
    for args, kw in cases:
        _raises_like(ValueError, lambda a=args, k=kw: f(*a, **k), lambda a=args, k=kw: g(*a, **k))
    _raises_like(ValueError, lambda: mp.check_paired_arrays([[1, 2]], [[1, 2], [3, 4]]),
                 lambda: skp.check_paired_arrays([[1, 2]], [[1, 2], [3, 4]]))


def test_checks_keep_the_namespace():
    torch = pytest.importorskip("torch")
    X, Y = _data(n=4, m=3)
    a, b = mp.check_pairwise_arrays(torch.asarray(X), Y)
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    assert a.dtype == b.dtype == torch.float64
    a, b = mp.check_paired_arrays(torch.asarray(X, dtype=torch.float32),
                                  torch.asarray(X + 1, dtype=torch.float32))
    assert a.dtype == b.dtype == torch.float32


# -- DistanceMetric ---------------------------------------------------------------

X0, Y0 = _data(n=14, m=9)
X0 = X0 - 1.0  # negative entries: braycurtis / canberra denominators
X0[1] = 0.0  # a row of zeros against one: the 0 / 0 terms
Y0[1] = 0.0
X0[0, :2] = Y0[0, :2]  # equal coordinates
METRICS = [("euclidean", {}), ("l2", {}), ("minkowski", {}), ("minkowski", {"p": 3}),
           ("minkowski", {"p": 1}), ("minkowski", {"p": np.inf}), ("p", {"p": 1.5}),
           ("minkowski", {"p": 3, "w": np.arange(5.0)}), ("minkowski", {"p": 0.5}),
           ("minkowski", {"p": 1, "w": np.arange(5.0)}), ("minkowski", {"p": 2, "w": np.ones(5)}),
           ("manhattan", {}), ("cityblock", {}), ("l1", {}), ("chebyshev", {}),
           ("infinity", {}), ("seuclidean", {"V": np.arange(1, 6.0)}),
           ("mahalanobis", {"V": np.cov(X0.T)}),
           ("mahalanobis", {"VI": np.linalg.inv(np.cov(X0.T))}),
           ("hamming", {}), ("canberra", {}), ("braycurtis", {})]
BOOLEAN = ["matching", "jaccard", "dice", "kulsinski", "rogerstanimoto", "russellrao",
           "sokalmichener", "sokalsneath"]
METRICS += [(m, {}) for m in BOOLEAN]


def _inputs(metric):
    """The data of a metric: rounded for hamming, sparse rows for the boolean ones
    (all-zero rows included)."""
    X, Y = X0, Y0
    if metric == "hamming":
        return np.round(X), np.round(Y)
    if metric in BOOLEAN:
        return np.where(X > 1, X, 0.0), np.where(Y > 1.5, Y, 0.0)
    return X, Y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("metric", "kwargs"), METRICS,
                         ids=[f"{m}{k.get('p', '')}{'w' * ('w' in k)}" for m, k in METRICS])
def test_distance_metric_matches_sklearn(metric, kwargs, dtype):
    ours = mp.DistanceMetric.get_metric(metric, dtype=dtype, **kwargs)
    theirs = skm.DistanceMetric.get_metric(metric, dtype=dtype, **kwargs)
    tol = dict(rtol=1e-9, atol=1e-12) if dtype is np.float64 else TOL[np.float32]
    X, Y = _inputs(metric)
    for args in ((X,), (X, Y), (X.astype(np.float32), Y), (X[:1], Y), (np.round(X).astype(int),)):
        got, want = ours.pairwise(*args), theirs.pairwise(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, **tol)
    d = np.array([0.0, 0.5, 2.0])
    np.testing.assert_allclose(ours.rdist_to_dist(d), theirs.rdist_to_dist(d), rtol=1e-12)
    np.testing.assert_allclose(ours.dist_to_rdist(d), theirs.dist_to_rdist(d), rtol=1e-12)
    assert ours.rdist_to_dist(0.7) == pytest.approx(float(theirs.rdist_to_dist(0.7)), rel=1e-12)
    assert mp.DistanceMetric.get_metric(ours) is ours


def test_distance_metric_haversine():
    X, Y = _geo(8, 5), _geo(4, 6)
    ours = mp.DistanceMetric.get_metric("haversine")
    theirs = skm.DistanceMetric.get_metric("haversine")
    _same(ours.pairwise(X, Y), theirs.pairwise(X, Y))
    d = np.array([0.0, 0.5, 2.0])
    np.testing.assert_allclose(ours.dist_to_rdist(d), theirs.dist_to_rdist(d), rtol=1e-12)
    np.testing.assert_allclose(ours.rdist_to_dist(ours.dist_to_rdist(d)), d, rtol=1e-12)


def test_distance_metric_errors():
    f, g = mp.DistanceMetric.get_metric, skm.DistanceMetric.get_metric
    bad = [(("nope",), {}, ValueError), (("euclidean",), {"dtype": np.int32}, ValueError),
           (("euclidean",), {"foo": 1}, TypeError),
           (("minkowski",), {"p": 3, "foo": 1}, TypeError), (("minkowski",), {"p": 0}, ValueError),
           (("minkowski",), {"p": -1, "w": [1.0]}, ValueError),
           (("minkowski",), {"p": np.inf, "w": [1, 2]}, ValueError),
           (("minkowski",), {"p": 3, "w": [1, -2]}, ValueError), (("seuclidean",), {}, TypeError),
           (("mahalanobis",), {}, ValueError), (("hamming",), {"w": 1}, TypeError)]
    for args, kw, exc in bad:
        _raises_like(exc, lambda a=args, k=kw: f(*a, **k), lambda a=args, k=kw: g(*a, **k))
    data = [("seuclidean", {"V": [1, 2]}, (np.ones((2, 3)),)),
            ("mahalanobis", {"VI": np.eye(2)}, (np.ones((2, 3)),)),
            ("minkowski", {"p": 3, "w": [1.0, 2.0]}, (np.ones((2, 3)),)),
            ("haversine", {}, (np.ones((2, 3)),)),
            ("haversine", {}, (np.ones((2, 2)), np.ones((1, 3)))),
            ("euclidean", {}, (np.ones((2, 3)), np.ones((2, 2)))),
            ("euclidean", {}, (np.array([[1.0, np.nan]]),)), ("euclidean", {}, (np.ones(3),))]
    for metric, kw, args in data:
        _raises_like(ValueError, lambda m=metric, k=kw, a=args: f(m, **k).pairwise(*a),
                     lambda m=metric, k=kw, a=args: g(m, **k).pairwise(*a))
    _raises_like(TypeError, lambda: f("pyfunc"), lambda: g("pyfunc"))


def _minkowski(a, b, p=2):
    return np.sum(np.abs(a - b) ** p) ** (1.0 / p)


def test_distance_metric_pyfunc():
    dist = _minkowski
    X, Y = _data(n=6, m=4)
    for args in ((dist,), ("pyfunc",)):
        for kw in ({}, {"p": 3}):
            kw = dict(kw, func=dist) if args == ("pyfunc",) else kw
            ours = mp.DistanceMetric.get_metric(*args, **kw)
            theirs = skm.DistanceMetric.get_metric(*args, **kw)
            for data in ((X,), (X, Y)):
                _same(ours.pairwise(*data), theirs.pairwise(*data))
    ours = pickle.loads(pickle.dumps(mp.DistanceMetric.get_metric("pyfunc", func=dist, p=3)))
    _same(ours.pairwise(X, Y), skm.DistanceMetric.get_metric(dist, p=3).pairwise(X, Y))
    got = mp.DistanceMetric.get_metric(dist, dtype=np.float32).pairwise(X)
    assert got.dtype == np.float32


def test_distance_metric_backends(xp):
    tol = tolerance(xp.combo)
    for metric, kwargs in METRICS:
        X, Y = _inputs(metric)
        out = mp.DistanceMetric.get_metric(metric, **kwargs).pairwise(xp.asarray(X),
                                                                      xp.asarray(Y))
        xp.combo.check_placement(out)
        want = skm.DistanceMetric.get_metric(metric, **kwargs).pairwise(X, Y)
        np.testing.assert_allclose(xp.to_numpy(out), want, **tol, err_msg=metric)
    out = mp.DistanceMetric.get_metric("manhattan", dtype=np.float32).pairwise(xp.asarray(X0))
    assert out.dtype == xp.xp.float32
    d = xp.asarray(np.array([1.0, 4.0]))
    out = mp.DistanceMetric.get_metric("euclidean").rdist_to_dist(d)
    xp.combo.check_placement(out)
    np.testing.assert_allclose(xp.to_numpy(out), [1.0, 2.0], **tol)


# -- pairwise_distances: the SciPy metrics DistanceMetric shares --------------------

SCIPY = [("seuclidean", {}), ("seuclidean", {"V": np.arange(1, 6.0)}), ("mahalanobis", {}),
         ("mahalanobis", {"VI": np.linalg.inv(np.cov(X0.T))}), ("hamming", {}), ("canberra", {}),
         ("braycurtis", {}), ("minkowski", {"p": 3, "w": np.arange(5.0)}),
         ("minkowski", {"p": 1, "w": np.arange(5.0)})]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("metric", "kwargs"), SCIPY, ids=[f"{m}{sorted(k)}" for m, k in SCIPY])
def test_pairwise_distances_scipy_metrics(metric, kwargs, dtype):
    X, Y = X0.astype(dtype), Y0.astype(dtype)
    if metric == "hamming":
        X, Y = np.round(X), np.round(Y)
    tol = dict(rtol=1e-8, atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's braycurtis 0 / 0
        cases = [(X, None), (X, X)] + ([(X, Y)] if kwargs or metric not in (
            "seuclidean", "mahalanobis") else [])
        for A, B in cases:
            want = skp.pairwise_distances(A, B, metric=metric, **kwargs)
            got = mp.pairwise_distances(A, B, metric=metric, **kwargs)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, **tol, err_msg=metric)
        chunks = list(mp.pairwise_distances_chunked(X, metric=metric, working_memory=0.0005,
                                                    **kwargs))
        want = np.concatenate(list(skp.pairwise_distances_chunked(
            X, metric=metric, working_memory=0.0005, **kwargs)))
    assert len(chunks) > 1
    np.testing.assert_allclose(np.concatenate(chunks), want, **tol)


def test_pairwise_distances_scipy_metric_errors():
    for metric in ("seuclidean", "mahalanobis"):
        _raises_like(ValueError, lambda m=metric: mp.pairwise_distances(X0, Y0, metric=m),
                     lambda m=metric: skp.pairwise_distances(X0, Y0, metric=m))
    # NaN: allowed by nan_euclidean whatever ensure_all_finite says, refused by the others
    Xn = _holes(X0)
    _same(mp.pairwise_distances(Xn, metric="nan_euclidean"),
          skp.pairwise_distances(Xn, metric="nan_euclidean"))
    _raises_like(ValueError, lambda: mp.pairwise_distances(Xn, metric="canberra"),
                 lambda: skp.pairwise_distances(Xn, metric="canberra"))
    _raises_like(TypeError, lambda: mp.pairwise_distances(X0, metric="haversine", foo=1),
                 lambda: skp.pairwise_distances(X0, metric="haversine", foo=1))


def test_pairwise_distances_scipy_metrics_backends(xp):
    tol = tolerance(xp.combo)
    t = dict(rtol=max(tol["rtol"], 1e-8), atol=max(tol["atol"], 1e-10))
    a, b = xp.asarray(X0), xp.asarray(Y0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for metric, kwargs in SCIPY:
            out = mp.pairwise_distances(a, metric=metric, **kwargs)
            xp.combo.check_placement(out)
            want = skp.pairwise_distances(X0, metric=metric, **kwargs)
            np.testing.assert_allclose(xp.to_numpy(out), want, **t, err_msg=metric)
            if kwargs or metric not in ("seuclidean", "mahalanobis"):
                out = mp.pairwise_distances(a, b, metric=metric, **kwargs)
                want = skp.pairwise_distances(X0, Y0, metric=metric, **kwargs)
                np.testing.assert_allclose(xp.to_numpy(out), want, **t, err_msg=metric)


def test_nan_euclidean_argmin_min():
    X, Y = _data(n=30, m=11, d=4)
    Xn, Yn = _holes(X), _holes(Y, seed=5)
    for A, B in ((Xn, Yn), (Xn, Xn), (Yn, Xn), (Xn.astype(np.float32), Yn.astype(np.float32))):
        for axis in (0, 1):
            for kw in (None, {"squared": True}):
                i, d = skp.pairwise_distances_argmin_min(A, B, axis=axis, metric="nan_euclidean",
                                                         metric_kwargs=kw)
                j, e = mp.pairwise_distances_argmin_min(A, B, axis=axis, metric="nan_euclidean",
                                                        metric_kwargs=kw)
                np.testing.assert_array_equal(j, i)
                _same(e, d, A.dtype.type)
                np.testing.assert_array_equal(
                    mp.pairwise_distances_argmin(A, B, axis=axis, metric="nan_euclidean",
                                                 metric_kwargs=kw), i)
    # scikit-learn's test_nan_euclidean_constant_input_argmin
    nan = [[np.nan, np.nan]] * 3
    np.testing.assert_array_equal(
        mp.pairwise_distances_argmin(nan, nan, metric="nan_euclidean"),
        mp.pairwise_distances_argmin([[0, 0]] * 3, [[0, 0]] * 3, metric="nan_euclidean"))


def test_nan_euclidean_argmin_min_backends(xp):
    X, Y = _data(n=17, m=6, d=4)
    Xn, Yn = _holes(X), _holes(Y, seed=6)
    i, d = skp.pairwise_distances_argmin_min(Xn, Yn, metric="nan_euclidean")
    j, e = mp.pairwise_distances_argmin_min(xp.asarray(Xn), xp.asarray(Yn), metric="nan_euclidean")
    xp.combo.check_placement(j)
    xp.combo.check_placement(e)
    np.testing.assert_array_equal(xp.to_numpy(j), i)
    np.testing.assert_allclose(xp.to_numpy(e), d, **tolerance(xp.combo))


def test_chunked_sqeuclidean_diagonal_is_zero():
    # scikit-learn's test_pairwise_distances_chunked_diagonal (SciPy's cdist: exact zeros)
    X = np.random.RandomState(0).normal(size=(300, 10), scale=1e10)
    chunks = list(mp.pairwise_distances_chunked(X, working_memory=0.5, metric="sqeuclidean"))
    assert len(chunks) > 1
    assert (np.diag(np.vstack(chunks)) == 0).all()


def test_sparse_input():
    sp = pytest.importorskip("scipy.sparse")
    X = sp.random(7, 2, density=0.6, format="csr", random_state=0)
    X.data += 0.1  # no explicit zeros (scikit-learn's sparse haversine skips absent entries)
    dense = X.toarray()
    # scikit-learn's array-like constraint of nan_euclidean_distances
    for args in ((X,), (dense, X)):
        _raises_like(ValueError, lambda a=args: mp.nan_euclidean_distances(*a),
                     lambda a=args: skp.nan_euclidean_distances(*a))
    _same(mp.haversine_distances(X), skp.haversine_distances(dense))
    for metric in ("manhattan", "haversine", "braycurtis"):
        # the values of dense rows (scikit-learn's sparse braycurtis of two zero rows is 1)
        _same(mp.DistanceMetric.get_metric(metric).pairwise(X, dense[:3]),
              skm.DistanceMetric.get_metric(metric).pairwise(dense, dense[:3]))
    _raises_like(TypeError, lambda: mp.check_pairwise_arrays(X, None, accept_sparse=False),
                 lambda: skp.check_pairwise_arrays(X, None, accept_sparse=False))
    for kw in ({}, dict(dtype=np.float32), dict(copy=True)):
        ours, theirs = mp.check_pairwise_arrays(X, X, **kw), skp.check_pairwise_arrays(X, X, **kw)
        for o, t in zip(ours, theirs):
            assert o.dtype == t.dtype and (o != t).nnz == 0


def test_check_pairwise_arrays_accept_sparse_formats():
    """scikit-learn's ``check_array``: a listed format is kept, another becomes the
    first listed; True keeps any; sparse arrays stay arrays, matrices matrices."""
    sp = pytest.importorskip("scipy.sparse")
    A = sp.random(5, 3, density=0.5, format="csc", random_state=1)
    B = sp.csr_array(sp.random(4, 3, density=0.5, random_state=2))
    dense = np.arange(6.0).reshape(2, 3)
    for accept in ("csr", "csc", ["csc"], ["coo", "csr"], ("lil",), True):
        for args in ((A, None), (A, A), (B, A), (A, B), (B, dense), (dense, A)):
            ours = mp.check_pairwise_arrays(*args, accept_sparse=accept)
            theirs = skp.check_pairwise_arrays(*args, accept_sparse=accept)
            assert (ours[0] is ours[1]) == (theirs[0] is theirs[1])
            for o, t in zip(ours, theirs):
                assert type(o) is type(t), (accept, type(o), type(t))
                assert o.dtype == t.dtype
                np.testing.assert_array_equal(o.toarray() if hasattr(o, "toarray") else o,
                                              t.toarray() if hasattr(t, "toarray") else t)


@pytest.mark.parametrize("X", [np.array([0, 1, 2]), np.array(3), [1, 2], np.array([True, False]),
                               np.array([0.5, 1.5], dtype=np.float32)])
def test_reshape_message_shows_the_converted_input(X):
    """scikit-learn's 'Expected 2D array' message shows the input as it converted it
    (float for the float checks, bool for SciPy's boolean metrics)."""
    _raises_like(ValueError, lambda: mp.check_pairwise_arrays(X, None),
                 lambda: skp.check_pairwise_arrays(X, None))
    _raises_like(ValueError, lambda: mp.euclidean_distances(X),
                 lambda: skp.euclidean_distances(X))
    if isinstance(X, np.ndarray):  # scikit-learn reads a boolean metric's X.dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _raises_like(ValueError, lambda: mp.pairwise_distances(X, metric="jaccard"),
                         lambda: skp.pairwise_distances(X, metric="jaccard"))
