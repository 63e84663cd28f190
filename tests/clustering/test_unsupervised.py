"""Unsupervised clustering metrics against scikit-learn: silhouette (every metric
string, precomputed, sampling, blocks), Calinski-Harabasz, Davies-Bouldin."""

from __future__ import annotations

import inspect
import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.metrics import pairwise_distances

import metrix
from conformance.combos import tolerance
from metrix.exceptions import DataConversionWarning

METRICS = ["euclidean", "l2", "sqeuclidean", "cosine", "manhattan", "cityblock", "l1",
           "chebyshev", "minkowski"]
FUNCS = ["silhouette_samples", "silhouette_score", "calinski_harabasz_score",
         "davies_bouldin_score"]


def _data(n=120, d=4, k=4, seed=0):
    r = np.random.RandomState(seed)
    centers = r.randn(k, d) * 3
    labels = r.randint(0, k, n)
    return centers[labels] + r.randn(n, d), labels


def _close(a, b, rtol=1e-9, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", FUNCS)
def test_signature_is_scikit_learns(name):
    assert inspect.signature(getattr(metrix, name)) == inspect.signature(getattr(skm, name))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("seed", [0, 1])
def test_silhouette_matches_sklearn_each_metric(metric, seed):
    X, y = _data(seed=seed)
    ours = metrix.silhouette_samples(X, y, metric=metric)
    theirs = skm.silhouette_samples(X, y, metric=metric)
    assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype
    _close(ours, theirs)
    score = metrix.silhouette_score(X, y, metric=metric)
    assert type(score) is float
    _close(score, skm.silhouette_score(X, y, metric=metric))


@pytest.mark.parametrize("p", [1, 1.5, 3, np.inf])
def test_minkowski_p(p):
    X, y = _data()
    _close(metrix.silhouette_samples(X, y, metric="minkowski", p=p),
           skm.silhouette_samples(X, y, metric="minkowski", p=p))


def test_two_clusters_ties_and_duplicates():
    r = np.random.RandomState(3)
    X = r.randint(0, 3, (60, 2)).astype(float)  # many identical points (zero distances)
    y = r.randint(0, 2, 60)
    for metric in ("euclidean", "manhattan", "sqeuclidean", "cosine"):
        _close(metrix.silhouette_samples(X, y, metric=metric),
               skm.silhouette_samples(X, y, metric=metric))


def test_singleton_clusters_and_identical_members():
    # scikit-learn's own case: a singleton scores 0; a cluster of identical points 1
    X = [[0.0], [1.0], [1.0], [2.0], [3.0], [3.0]]
    labels = np.array([0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(metrix.silhouette_samples(X, labels), [0, 0.5, 0.5, 0, 1, 1])
    X, y = _data(n=40)
    y = y.copy()
    y[[3, 17]] = [7, 9]  # two singletons among larger clusters
    for metric in ("euclidean", "cosine", "manhattan"):
        ours = metrix.silhouette_samples(X, y, metric=metric)
        _close(ours, skm.silhouette_samples(X, y, metric=metric))
        assert ours[3] == 0 and ours[17] == 0


def test_all_points_identical_scores_zero():
    X = np.ones((8, 3))
    y = [0, 0, 0, 1, 1, 1, 2, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = metrix.silhouette_samples(X, y)
    np.testing.assert_array_equal(ours, skm.silhouette_samples(X, y))


def test_labels_of_any_type():
    X, y = _data()
    names = np.array(["zeta", "alpha", "mid", "beta"])[y]
    _close(metrix.silhouette_samples(X, names), skm.silhouette_samples(X, names))
    _close(metrix.silhouette_samples(X, list(names)), skm.silhouette_samples(X, names))
    assert metrix.silhouette_score(X, y * 2 + 10) == metrix.silhouette_score(X, y)
    assert metrix.silhouette_score(list(X), list(y)) == metrix.silhouette_score(X, y)
    _close(metrix.silhouette_samples(X, y - 0.5), skm.silhouette_samples(X, y - 0.5))
    _close(metrix.calinski_harabasz_score(X, names), skm.calinski_harabasz_score(X, names))
    _close(metrix.davies_bouldin_score(X, names), skm.davies_bouldin_score(X, names))


def test_mixed_type_labels_raise_scikit_learns_type_error():
    X, _ = _data(n=6)
    y = np.array([1, "a", 1, "a", 1, "a"], dtype=object)
    with pytest.raises(TypeError, match="uniformly strings or numbers"):
        metrix.silhouette_samples(X, y)


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "sqeuclidean", "manhattan"])
def test_float32_dtype_and_values(metric):
    X, y = _data(n=200, d=6)
    X32 = (X + 50.0).astype(np.float32)  # an offset: the expansion must not cancel
    ours = metrix.silhouette_samples(X32, y, metric=metric)
    theirs = skm.silhouette_samples(X32, y, metric=metric)
    assert ours.dtype == theirs.dtype
    _close(ours, theirs, rtol=2e-4, atol=2e-5)
    _close(metrix.calinski_harabasz_score(X32, y), skm.calinski_harabasz_score(X32, y),
           rtol=1e-5)
    _close(metrix.davies_bouldin_score(X32, y), skm.davies_bouldin_score(X32, y), rtol=1e-5)


def test_integer_and_bool_features():
    X, y = _data()
    Xi = np.round(X * 3).astype(np.int64)
    for metric in ("euclidean", "cosine", "manhattan"):
        ours = metrix.silhouette_samples(Xi, y, metric=metric)
        assert ours.dtype == np.float64
        _close(ours, skm.silhouette_samples(Xi, y, metric=metric))
    Xb = X > 0
    _close(metrix.silhouette_samples(Xb, y), skm.silhouette_samples(Xb, y))


# -- precomputed -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_precomputed(dtype):
    X, y = _data()
    D = pairwise_distances(X, metric="manhattan").astype(dtype)
    ours = metrix.silhouette_samples(D, y, metric="precomputed")
    theirs = skm.silhouette_samples(D, y, metric="precomputed")
    assert ours.dtype == theirs.dtype
    tol = {"rtol": 1e-9, "atol": 1e-12} if dtype == np.float64 else {"rtol": 1e-5, "atol": 1e-6}
    _close(ours, theirs, **tol)
    # a diagonal within 100 eps is accepted, and used as scikit-learn uses it
    D2 = D.copy()
    D2[2, 2] = np.finfo(dtype).eps * 10
    _close(metrix.silhouette_samples(D2, y, metric="precomputed"),
           skm.silhouette_samples(D2, y, metric="precomputed"), **tol)
    D2[2, 2] = np.finfo(dtype).eps * 1000
    with pytest.raises(ValueError, match="contains non-zero elements on the diagonal"):
        metrix.silhouette_samples(D2, y, metric="precomputed")


def test_precomputed_integer_and_checks():
    assert metrix.silhouette_score([[0, 1, 2], [1, 0, 1], [2, 1, 0]], [0, 0, 1],
                                   metric="precomputed") == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="contains non-zero"):
        metrix.silhouette_score([[1, 1, 2], [1, 0, 1], [2, 1, 0]], [0, 0, 1],
                                metric="precomputed")
    D = pairwise_distances(_data(n=6)[0])
    y = [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match=r"requires shape \(n_queries, n_indexed\). Got "
                                         r"\(6, 5\) for 6 indexed"):
        metrix.silhouette_samples(D[:, :5], y, metric="precomputed")
    with pytest.raises(ValueError, match="Negative values in data passed to"):
        metrix.silhouette_samples(D - 100 + 100 * np.eye(6), y, metric="precomputed")


def test_precomputed_sparse_matrix():
    sp = pytest.importorskip("scipy.sparse")
    X = np.array([[0.2, 0.1, 0.1, 0.2, 0.1, 1.6, 0.2, 0.1]], dtype=np.float32).T
    y = [0, 0, 0, 0, 1, 1, 1, 1]
    D = pairwise_distances(X)
    _close(metrix.silhouette_samples(sp.csr_matrix(D), y, metric="precomputed"),
           skm.silhouette_samples(D, y, metric="precomputed"), rtol=1e-6)


# -- sampling ----------------------------------------------------------------------

@pytest.mark.parametrize("sample_size", [10, 57, 119, 120, 500])
def test_sample_size_draw_is_scikit_learns(sample_size):
    X, y = _data()
    for rs in (0, 7):
        _close(metrix.silhouette_score(X, y, sample_size=sample_size, random_state=rs),
               skm.silhouette_score(X, y, sample_size=sample_size, random_state=rs))
    ours = metrix.silhouette_score(X, y, sample_size=sample_size,
                                   random_state=np.random.RandomState(3))
    theirs = skm.silhouette_score(X, y, sample_size=sample_size,
                                  random_state=np.random.RandomState(3))
    _close(ours, theirs)
    D = pairwise_distances(X)
    _close(metrix.silhouette_score(D, y, metric="precomputed", sample_size=sample_size,
                                   random_state=1),
           skm.silhouette_score(D, y, metric="precomputed", sample_size=sample_size,
                                random_state=1))


def test_sample_too_small_for_two_labels_raises():
    X, y = _data()
    for rs in range(20):
        try:
            expected = skm.silhouette_score(X, y, sample_size=2, random_state=rs)
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc).split(".")[0]):
                metrix.silhouette_score(X, y, sample_size=2, random_state=rs)
        else:
            _close(metrix.silhouette_score(X, y, sample_size=2, random_state=rs), expected)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3"])
def test_bad_sample_size(bad):
    X, y = _data()
    with pytest.raises(ValueError, match="The 'sample_size' parameter of silhouette_score "
                                         "must be an int in the range"):
        metrix.silhouette_score(X, y, sample_size=bad)


def test_bad_random_state():
    X, y = _data()
    with pytest.raises(ValueError, match="The 'random_state' parameter of silhouette_score"):
        metrix.silhouette_score(X, y, sample_size=3, random_state="x")


# -- blocks ------------------------------------------------------------------------

@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan", "precomputed"])
def test_blocks_and_the_scatter_path_agree(metric):
    X, y = _data(n=150)
    if metric == "precomputed":
        X = pairwise_distances(X)
    expected = skm.silhouette_samples(X, y, metric=metric)
    # one row per block; and a budget too small for the one-hot (scatter-add path)
    _close(metrix.silhouette_samples(X, y, metric=metric, working_memory=1e-6), expected)
    _close(metrix.silhouette_samples(X, y, metric=metric, working_memory=0.004), expected)
    # many clusters (one-hot past the budget)
    y_many = np.arange(150) % 60
    _close(metrix.silhouette_samples(X, y_many, metric=metric, working_memory=0.05),
           skm.silhouette_samples(X, y_many, metric=metric))


def test_never_allocates_the_full_distance_matrix():
    X, y = _data(n=3000, d=8)
    metrix.silhouette_samples(X[:50], y[:50])  # warm up imports
    tracemalloc.start()
    try:
        metrix.silhouette_score(X, y, working_memory=4)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    full = 3000 * 3000 * 8  # 72 MB
    assert peak < full / 4, peak


def test_n_jobs_is_accepted_unknown_keywords_raise():
    X, y = _data()
    _close(metrix.silhouette_samples(X, y, n_jobs=2), skm.silhouette_samples(X, y, n_jobs=2))
    with pytest.raises(TypeError, match="euclidean_distances\\(\\) got an unexpected keyword"):
        metrix.silhouette_samples(X, y, foo=3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        metrix.silhouette_samples(X, y, metric="manhattan", p=3)


def test_metric_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="The 'metric' parameter of silhouette_samples must "
                                         "be a str among"):
        metrix.silhouette_samples(X, y, metric="foo")
    with pytest.raises(NotImplementedError, match="precomputed"):
        metrix.silhouette_samples(X, y, metric="braycurtis")
    with pytest.raises(NotImplementedError, match="precomputed"):
        metrix.silhouette_score(X, y, metric=lambda a, b: 0.0)


# -- Calinski-Harabasz and Davies-Bouldin -------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_ch_db_match_sklearn(seed):
    X, y = _data(n=90, d=3, k=5, seed=seed)
    for name in ("calinski_harabasz_score", "davies_bouldin_score"):
        ours = getattr(metrix, name)(X, y)
        assert type(ours) is float
        _close(ours, getattr(skm, name)(X, y))


def test_ch_db_special_cases():
    assert metrix.calinski_harabasz_score(np.ones((10, 2)), [0] * 5 + [1] * 5) == 1.0
    X = [[-1, -1], [1, 1]] * 10
    y = [0] * 10 + [1] * 10
    assert metrix.calinski_harabasz_score(X, y) == 0.0
    assert metrix.davies_bouldin_score(np.ones((10, 2)), [0] * 5 + [1] * 5) == 0.0
    assert metrix.davies_bouldin_score(X, y) == 0.0
    X = ([[0, 0], [1, 1]] * 5 + [[3, 3], [4, 4]] * 5 + [[0, 4], [1, 3]] * 5
         + [[3, 1], [4, 0]] * 5)
    y = [0] * 10 + [1] * 10 + [2] * 10 + [3] * 10
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _close(metrix.davies_bouldin_score(X, y), skm.davies_bouldin_score(X, y))
        _close(metrix.calinski_harabasz_score(X, y), skm.calinski_harabasz_score(X, y))
    # singleton clusters; two clusters with coinciding centroids
    X = [[0, 0], [2, 2], [3, 3], [5, 5]]
    _close(metrix.davies_bouldin_score(X, [0, 0, 1, 2]), skm.davies_bouldin_score(X, [0, 0, 1, 2]))
    X = [[0, 0], [2, 2], [1, 1], [1, 1], [7, 7], [8, 8]]
    y = [0, 0, 1, 1, 2, 2]
    _close(metrix.davies_bouldin_score(X, y), skm.davies_bouldin_score(X, y))


def test_db_many_clusters_in_blocks():
    X, _ = _data(n=3000, d=2)
    y = np.arange(3000) % 1500
    _close(metrix.davies_bouldin_score(X, y), skm.davies_bouldin_score(X, y), rtol=1e-8)


# -- errors and warnings (scikit-learn's messages) ----------------------------------

ALL = [metrix.silhouette_samples, metrix.silhouette_score, metrix.calinski_harabasz_score,
       metrix.davies_bouldin_score]


@pytest.mark.parametrize("func", ALL, ids=lambda f: f.__name__)
def test_errors_match_sklearn(func):
    X = np.random.RandomState(0).rand(6, 2)
    y = [0, 0, 0, 1, 1, 1]
    cases = [
        (X[:, 0], y, "Expected 2D array, got 1D array instead"),
        (np.where(X > 0.9, np.nan, X), y, "Input X contains NaN"),
        (np.where(X > 0.9, np.inf, X), y, "Input X contains infinity"),
        (X, y[:5], r"inconsistent numbers of samples: \[6, 5\]"),
        (X, [0] * 6, r"Number of labels is 1\. Valid values are 2 to n_samples - 1 "
                     r"\(inclusive\)"),
        (X, list(range(6)), "Number of labels is 6"),
        (X, [0, 0, np.nan, 1, 1, 1], "Input y contains NaN"),
        (X, np.zeros((6, 2)), r"y should be a 1d array, got an array of shape \(6, 2\)"),
        (np.zeros((0, 2)), [], r"Found array with 0 sample\(s\) \(shape=\(0, 2\)\) while a "
                               "minimum of 1 is required"),
        (np.zeros((6, 0)), y, r"Found array with 0 feature\(s\)"),
        (np.zeros((6, 2, 1)), y, "Found array with dim 3, while dim <= 2 is required"),
        (X + 1j, y, "Complex data not supported"),
        (np.array([["a", "b"]] * 6), y, "dtype='numeric' is not compatible"),
    ]
    for a, labels, msg in cases:
        with pytest.raises(ValueError, match=msg):
            func(a, labels)


@pytest.mark.parametrize("func", ALL, ids=lambda f: f.__name__)
def test_column_vector_labels_warn(func):
    X = np.random.RandomState(0).rand(6, 2)
    y = np.array([[0], [0], [0], [1], [1], [1]])
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        ours = func(X, y)
    name = func.__name__
    _close(ours, getattr(skm, name)(X, y.ravel()))


# -- backends ----------------------------------------------------------------------

def test_backends_match_sklearn(xp):
    X, y = _data(n=100, d=3)
    tol = tolerance(xp.combo)
    Xb, yb = xp.asarray(X), xp.asarray(y)
    for metric in ("euclidean", "cosine", "manhattan", "sqeuclidean"):
        s = metrix.silhouette_samples(Xb, yb, metric=metric)
        xp.combo.check_placement(s)
        _close(xp.to_numpy(s), skm.silhouette_samples(X, y, metric=metric), **tol)
    score = metrix.silhouette_score(Xb, yb, sample_size=40, random_state=0)
    xp.combo.check_placement(score)
    _close(xp.to_numpy(score), skm.silhouette_score(X, y, sample_size=40, random_state=0),
           **tol)
    D = pairwise_distances(X)
    s = metrix.silhouette_samples(xp.asarray(D), yb, metric="precomputed")
    _close(xp.to_numpy(s), skm.silhouette_samples(D, y, metric="precomputed"), **tol)
    for name in ("calinski_harabasz_score", "davies_bouldin_score"):
        r = getattr(metrix, name)(Xb, yb)
        xp.combo.check_placement(r)
        _close(xp.to_numpy(r), getattr(skm, name)(X, y), **tol)
    # host string labels with device data: encoded on the host, codes moved
    names = np.array(["b", "a", "d", "c"])[y]
    s = metrix.silhouette_samples(Xb, names)
    xp.combo.check_placement(s)
    _close(xp.to_numpy(s), skm.silhouette_samples(X, names), **tol)
