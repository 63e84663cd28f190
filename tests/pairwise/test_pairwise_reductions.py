"""pairwise_distances, pairwise_kernels, pairwise_distances_chunked and the fused
pairwise_distances_argmin(_min) against scikit-learn 1.9: every metric string
metrix computes, the ones handed to scikit-learn on NumPy, callables, chunks
and reduce_func, the memory bound of the fused argmin, every backend."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn.metrics.pairwise as skp

import metrix.pairwise as mp
from conformance.combos import tolerance

DEVICE = ["euclidean", "l2", "cosine", "manhattan", "cityblock", "l1", "sqeuclidean",
          "chebyshev", "minkowski"]
KERNELS = ["linear", "rbf", "poly", "polynomial", "cosine", "chi2", "additive_chi2",
           "laplacian", "sigmoid"]
TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=2e-5, atol=2e-6)}


def _data(n=40, m=25, d=6, seed=0, dtype=np.float64):
    r = np.random.RandomState(seed)
    return (r.rand(n, d) * 3).astype(dtype), (r.rand(m, d) * 3).astype(dtype)


def _same(ours, theirs, tol):
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, **tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", DEVICE)
def test_pairwise_distances_device_metrics(metric, dtype):
    X, Y = _data(dtype=dtype)
    tol = dict(rtol=1e-9, atol=1e-9) if metric == "sqeuclidean" else TOL[dtype]
    _same(mp.pairwise_distances(X, Y, metric=metric), skp.pairwise_distances(X, Y, metric=metric),
          tol)
    _same(mp.pairwise_distances(X, metric=metric), skp.pairwise_distances(X, metric=metric),
          tol)


@pytest.mark.parametrize("p", [1, 1.5, 3, np.inf])
def test_minkowski_p(p):
    X, Y = _data()
    _same(mp.pairwise_distances(X, Y, metric="minkowski", p=p),
          skp.pairwise_distances(X, Y, metric="minkowski", p=p), TOL[np.float64])
    with pytest.raises(ValueError, match="p must be greater than 0"):
        mp.pairwise_distances(X, Y, metric="minkowski", p=0)


def test_pairwise_distances_kwds_and_precomputed():
    X, Y = _data()
    _same(mp.pairwise_distances(X, Y, squared=True), skp.pairwise_distances(X, Y, squared=True),
          TOL[np.float64])
    D = skp.pairwise_distances(X)
    _same(mp.pairwise_distances(D, metric="precomputed"),
          skp.pairwise_distances(D, metric="precomputed"), TOL[np.float64])
    with pytest.raises(ValueError, match="Negative values in data passed to"):
        mp.pairwise_distances(-D, metric="precomputed")
    with pytest.raises(ValueError, match=r"Precomputed metric requires shape"):
        mp.pairwise_distances(skp.pairwise_distances(X, Y), metric="precomputed")
    with pytest.raises(TypeError, match="unexpected keyword argument 'p'"):
        mp.pairwise_distances(X, Y, metric="euclidean", p=2)
    with pytest.raises(ValueError, match="The 'metric' parameter of pairwise_distances must"):
        mp.pairwise_distances(X, Y, metric="foo")
    with pytest.raises(ValueError, match="Incompatible dimension for X and Y"):
        mp.pairwise_distances(X, Y[:, :3], metric="chebyshev")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input contains NaN"):
        mp.pairwise_distances(Xn, Y)
    # as scikit-learn: its own functions check whatever the option, SciPy's metrics do not
    with pytest.raises(ValueError, match="Input contains NaN"):
        mp.pairwise_distances(Xn, Y, ensure_all_finite=False)
    for metric in ("chebyshev", "manhattan"):
        kw = dict(metric=metric, ensure_all_finite=False)
        if metric == "manhattan":
            _raises_nan = pytest.raises(ValueError, match="Input contains NaN")
            with _raises_nan:
                skp.pairwise_distances(Xn, Y, **kw)
            with pytest.raises(ValueError, match="Input contains NaN"):
                mp.pairwise_distances(Xn, Y, **kw)
            continue
        # no error; the rows without NaN as SciPy's (NaN propagation is SciPy's own)
        _same(mp.pairwise_distances(Xn, Y, **kw)[1:], skp.pairwise_distances(Xn, Y, **kw)[1:],
              dict(rtol=1e-9, atol=1e-9))


@pytest.mark.parametrize("metric", ["braycurtis", "canberra", "correlation", "hamming",
                                    "jaccard", "haversine", "nan_euclidean"])
def test_host_metrics_are_scikit_learns(metric):
    X, Y = _data(d=2 if metric == "haversine" else 6)
    if metric == "jaccard":
        X, Y = X > 1.5, Y > 1.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(mp.pairwise_distances(X, Y, metric=metric),
              skp.pairwise_distances(X, Y, metric=metric), TOL[np.float64])


def test_callable_metric():
    X, Y = _data(n=8, m=5)
    f = lambda a, b: float(np.abs(a - b).sum() ** 0.5)  # noqa: E731
    _same(mp.pairwise_distances(X, Y, metric=f), skp.pairwise_distances(X, Y, metric=f),
          TOL[np.float64])
    _same(mp.pairwise_kernels(X, Y, metric=f), skp.pairwise_kernels(X, Y, metric=f),
          TOL[np.float64])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", KERNELS)
def test_pairwise_kernels(metric, dtype):
    X, Y = _data(dtype=dtype)
    _same(mp.pairwise_kernels(X, Y, metric=metric), skp.pairwise_kernels(X, Y, metric=metric),
          TOL[dtype])
    _same(mp.pairwise_kernels(X, metric=metric), skp.pairwise_kernels(X, metric=metric),
          TOL[dtype])


def test_pairwise_kernels_params():
    X, Y = _data()
    kw = dict(gamma=0.2, degree=2, coef0=0.5)
    for metric in ("rbf", "poly", "sigmoid", "laplacian", "chi2", "linear"):
        _same(mp.pairwise_kernels(X, Y, metric=metric, filter_params=True, **kw),
              skp.pairwise_kernels(X, Y, metric=metric, filter_params=True, **kw),
              TOL[np.float64])
    with pytest.raises(TypeError, match="unexpected keyword argument 'degree'"):
        mp.pairwise_kernels(X, Y, metric="rbf", **kw)
    K = skp.rbf_kernel(X)
    _same(mp.pairwise_kernels(K, metric="precomputed"), K, TOL[np.float64])
    with pytest.raises(ValueError, match="The 'metric' parameter of pairwise_kernels must"):
        mp.pairwise_kernels(X, metric="euclidean")


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan", "sqeuclidean",
                                    "braycurtis"])
@pytest.mark.parametrize("memory", [None, 0.001, 0.0])
def test_chunked_matches_sklearn(metric, memory):
    X, Y = _data(n=50)
    with warnings.catch_warnings(record=True) as ours_w:
        warnings.simplefilter("always")
        ours = list(mp.pairwise_distances_chunked(X, metric=metric, working_memory=memory))
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        theirs = list(skp.pairwise_distances_chunked(X, metric=metric, working_memory=memory))
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _same(a, b, dict(rtol=1e-9, atol=1e-9))
    ours = list(mp.pairwise_distances_chunked(X, Y, metric=metric, working_memory=memory))
    theirs = list(skp.pairwise_distances_chunked(X, Y, metric=metric, working_memory=memory))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _same(a, b, dict(rtol=1e-9, atol=1e-9))


def test_chunked_reduce_func():
    X, _ = _data(n=60)
    starts = []

    def reduce(D, start):
        starts.append(start)
        return np.flatnonzero(D[0] < 0.8), D.min(axis=1) if False else (D < 1).sum(axis=1)

    def reduce_count(D, start):
        starts.append(start)
        return (D < 1).sum(axis=1)

    ours = list(mp.pairwise_distances_chunked(X, reduce_func=reduce_count,
                                              working_memory=0.0015))
    ours_starts, starts[:] = list(starts), []
    theirs = list(skp.pairwise_distances_chunked(X, reduce_func=reduce_count,
                                                 working_memory=0.0015))
    assert ours_starts == starts and len(ours) > 1
    np.testing.assert_array_equal(np.concatenate(ours), np.concatenate(theirs))
    with pytest.raises(ValueError, match="reduce_func returned object of length"):
        list(mp.pairwise_distances_chunked(X, reduce_func=lambda D, s: D[:1],
                                           working_memory=0.0015))
    with pytest.raises(TypeError, match="reduce_func returned"):
        list(mp.pairwise_distances_chunked(X, reduce_func=lambda D, s: 3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", DEVICE)
@pytest.mark.parametrize("axis", [0, 1])
def test_argmin_min_matches_sklearn(metric, dtype, axis):
    X, Y = _data(n=70, m=45, dtype=dtype)
    i, d = mp.pairwise_distances_argmin_min(X, Y, metric=metric, axis=axis)
    j, e = skp.pairwise_distances_argmin_min(X, Y, metric=metric, axis=axis)
    np.testing.assert_array_equal(i, j)
    assert i.dtype == j.dtype
    _same(d, e, dict(rtol=1e-9, atol=1e-9) if dtype == np.float64 else TOL[np.float32])
    a = mp.pairwise_distances_argmin(X, Y, metric=metric, axis=axis)
    np.testing.assert_array_equal(a, skp.pairwise_distances_argmin(X, Y, metric=metric,
                                                                    axis=axis))


def test_argmin_min_kwargs_ties_and_host_metrics():
    X, Y = _data()
    for kw in ({"squared": True}, None):
        i, d = mp.pairwise_distances_argmin_min(X, Y, metric_kwargs=kw)
        j, e = skp.pairwise_distances_argmin_min(X, Y, metric_kwargs=kw)
        np.testing.assert_array_equal(i, j)
        _same(d, e, dict(rtol=1e-9, atol=1e-12))
    i, d = mp.pairwise_distances_argmin_min(X, Y, metric="minkowski", metric_kwargs={"p": 3})
    j, e = skp.pairwise_distances_argmin_min(X, Y, metric="minkowski", metric_kwargs={"p": 3})
    np.testing.assert_array_equal(i, j)
    _same(d, e, dict(rtol=1e-9, atol=1e-12))
    # duplicated rows of Y: the first index wins
    Yd = np.concatenate([Y, Y])
    np.testing.assert_array_equal(mp.pairwise_distances_argmin(X, Yd),
                                  skp.pairwise_distances_argmin(X, Yd))
    assert mp.pairwise_distances_argmin(X, Yd).max() < len(Y)
    i, d = mp.pairwise_distances_argmin_min(X, Y, metric="braycurtis")
    j, e = skp.pairwise_distances_argmin_min(X, Y, metric="braycurtis")
    np.testing.assert_array_equal(i, j)
    with pytest.raises(ValueError, match="The 'axis' parameter of pairwise_distances_argmin"):
        mp.pairwise_distances_argmin_min(X, Y, axis=2)
    with pytest.raises(ValueError, match="Incompatible dimension for X and Y"):
        mp.pairwise_distances_argmin_min(X, Y[:, :2])


def test_argmin_min_never_forms_the_matrix():
    r = np.random.RandomState(0)
    X = r.rand(6000, 16).astype(np.float32)
    Y = r.rand(3000, 16).astype(np.float32)
    mp.pairwise_distances_argmin_min(X[:10], Y)  # warm imports
    tracemalloc.start()
    i, d = mp.pairwise_distances_argmin_min(X, Y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    matrix = 6000 * 3000 * 8
    assert peak < 48 * 2**20 < matrix, peak
    j, e = skp.pairwise_distances_argmin_min(X, Y)
    assert (i == j).mean() > 0.999  # float32 near-ties may swap
    np.testing.assert_allclose(d, e, rtol=2e-5, atol=2e-6)


def _near_ties(seed, offset=0.0, dtype=np.float32):
    """Rows of ``X`` at the midpoints of pairs of rows of ``Y`` (nudged by about a
    float32 ulp), duplicated rows of ``Y``, and plain rows: the float32 screen
    cannot separate many of them."""
    r = np.random.RandomState(seed)
    Y = r.normal(size=(60, 9)) + offset
    Y = np.concatenate([Y, Y[:5]])  # exact duplicates: the first index wins
    a, b = r.randint(0, 60, 80), r.randint(0, 60, 80)
    mid = 0.5 * (Y[a] + Y[b]) + r.normal(size=(80, 9)) * 1e-7 * (1 + abs(offset))
    X = np.concatenate([mid, Y[:10], r.normal(size=(30, 9)) + offset])
    return X.astype(dtype), Y.astype(dtype)


def _float64_ranking(X, Y):
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    s = X @ (-2.0 * Y.T) + np.einsum("ij,ij->i", Y, Y)[None, :]
    return np.argmin(s, axis=1), s.min(axis=1)


@pytest.mark.parametrize("offset", [0.0, 1e3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_screen_is_the_float64_ranking(offset, dtype):
    """The float32 screen of the euclidean argmin (NumPy, torch CPU) returns the
    float64 ranking's indices, also for near-ties, exact ties and offset data."""
    from metrix.backends._argmin_screen import screened_argmin

    X, Y = _near_ties(3, offset, dtype)
    j, low = _float64_ranking(X, Y)
    X64, Y64 = X.astype(np.float64), Y.astype(np.float64)
    i, v = screened_argmin(X64, -2.0 * Y64.T, np.einsum("ij,ij->i", Y64, Y64))
    np.testing.assert_array_equal(i, j)
    np.testing.assert_allclose(v, low, rtol=1e-12, atol=1e-9 * (1 + offset**2))
    with pytest.MonkeyPatch.context() as mpatch:  # too many candidates: a float64 GEMM
        mpatch.setattr("metrix.backends._argmin_screen._CANDIDATE_ITEMS", 0)
        i, v = screened_argmin(X64, -2.0 * Y64.T, np.einsum("ij,ij->i", Y64, Y64))
    np.testing.assert_array_equal(i[:80], j[:80])
    np.testing.assert_allclose(v, low, rtol=1e-12, atol=1e-9 * (1 + offset**2))
    ours = [mp.pairwise_distances_argmin(X, Y)]
    torch = pytest.importorskip("torch")
    ours.append(mp.pairwise_distances_argmin(torch.from_numpy(X), torch.from_numpy(Y)).numpy())
    for got in ours:
        np.testing.assert_array_equal(got, j)
    i_m, d_m = mp.pairwise_distances_argmin_min(torch.from_numpy(X), torch.from_numpy(Y))
    i_s, d_s = skp.pairwise_distances_argmin_min(X, Y)
    np.testing.assert_array_equal(i_m.numpy()[:80], j[:80])
    assert (i_m.numpy() == i_s).mean() > 0.95  # scikit-learn's own float64 noise on ties
    np.testing.assert_allclose(d_m.numpy()[i_m.numpy() == i_s], d_s[i_m.numpy() == i_s],
                               rtol=2e-5, atol=2e-6 * (1 + offset))


def test_float32_screen_declines():
    """One row of ``Y``, non-finite or huge values: no screen (the float64 ranking)."""
    from metrix.backends._argmin_screen import screened_argmin

    X = np.ones((3, 2))
    assert screened_argmin(X, -2.0 * X[:1].T, np.array([2.0])) is None
    Y = np.array([[1.0, 0.0], [1e20, 0.0]])
    assert screened_argmin(X, -2.0 * Y.T, np.einsum("ij,ij->i", Y, Y)) is None
    Y = np.array([[1.0, 0.0], [np.inf, 0.0]])
    assert screened_argmin(X, -2.0 * Y.T, np.einsum("ij,ij->i", Y, Y)) is None
    Y = np.array([[1.0, 0.0], [3e18, 0.0]])
    np.testing.assert_array_equal(mp.pairwise_distances_argmin(X, Y), [0, 0, 0])


def test_backends_match_sklearn(xp):
    X, Y = _data()
    tol = tolerance(xp.combo)
    Xb, Yb = xp.asarray(X), xp.asarray(Y)
    for metric in DEVICE:
        out = mp.pairwise_distances(Xb, Yb, metric=metric)
        xp.combo.check_placement(out)
        t = dict(rtol=max(tol["rtol"], 1e-9), atol=max(tol["atol"], 1e-9))
        np.testing.assert_allclose(xp.to_numpy(out), skp.pairwise_distances(X, Y, metric=metric),
                                   **t, err_msg=metric)
        i, d = mp.pairwise_distances_argmin_min(Xb, Yb, metric=metric)
        xp.combo.check_placement(i)
        xp.combo.check_placement(d)
        j, e = skp.pairwise_distances_argmin_min(X, Y, metric=metric)
        np.testing.assert_array_equal(xp.to_numpy(i), j)
        np.testing.assert_allclose(xp.to_numpy(d), e, **t)
        chunks = list(mp.pairwise_distances_chunked(Xb, metric=metric, working_memory=0.001))
        xp.combo.check_placement(chunks[0])
        full = np.concatenate([xp.to_numpy(c) for c in chunks])
        np.testing.assert_allclose(full, skp.pairwise_distances(X, metric=metric), **t)
    for metric in KERNELS:
        out = mp.pairwise_kernels(Xb, Yb, metric=metric)
        xp.combo.check_placement(out)
        np.testing.assert_allclose(xp.to_numpy(out), skp.pairwise_kernels(X, Y, metric=metric),
                                   **tol, err_msg=metric)


def test_device_input_of_host_metrics(xp):
    if xp.lib == "numpy":
        pytest.skip("NumPy input is handed to scikit-learn")
    X, Y = _data(n=6, m=4)
    Xb, Yb = xp.asarray(X), xp.asarray(Y)
    with pytest.raises(NotImplementedError, match="computed by scikit-learn"):
        mp.pairwise_distances(Xb, Yb, metric="wminkowski")
    with pytest.raises(NotImplementedError, match="computed by scikit-learn"):
        mp.pairwise_distances_argmin_min(Xb, Yb, metric="sqeuclidean", metric_kwargs={"w": 1})
    f = lambda a, b: xp.xp.sum((a - b) ** 2)  # noqa: E731  (the device's own ops)
    out = mp.pairwise_distances(Xb, Yb, metric=f)
    xp.combo.check_placement(out)
    np.testing.assert_allclose(xp.to_numpy(out), skp.pairwise_distances(X, Y, metric="sqeuclidean"),
                               **tolerance(xp.combo))


def test_adapter_block_ops_equal_generic(xp):
    """The adapters' in-place block ops (NumPy, torch eager) give the generic results."""
    from metrix.backends import GenericOps, ops

    r = np.random.RandomState(4)
    D = r.rand(7, 9)
    D[2, 5] = D[2, 1]  # a tie: the first index wins
    D[2, 1] = -1.0
    D[3, 4] = D[3, 6] = -2.0
    xb, yt = r.rand(7, 3), r.rand(3, 9)
    sq_x, sq_y = r.rand(7), r.rand(9)
    a, g = ops(xp.xp), GenericOps(xp.xp)
    tol = tolerance(xp.combo)
    (i1, v1), (i2, v2) = a.row_argmin_min(xp.asarray(D)), g.row_argmin_min(xp.asarray(D))
    np.testing.assert_array_equal(xp.to_numpy(i1), xp.to_numpy(i2))
    assert xp.to_numpy(i1)[3] == 4
    np.testing.assert_array_equal(xp.to_numpy(v1), xp.to_numpy(v2))
    args = [xp.asarray(v) for v in (xb, -2.0 * yt, sq_x, sq_y)]
    np.testing.assert_allclose(xp.to_numpy(a.expansion_surrogate(args[0], args[1], args[3])),
                               xp.to_numpy(g.expansion_surrogate(args[0], args[1], args[3])),
                               **tol)
    yd = np.concatenate([yt, yt[:, :4]], axis=1)  # duplicated columns: the first wins
    xy = [xp.asarray(v) for v in (np.concatenate([xb, yt[:, :3].T]), -2.0 * yd,
                                  np.einsum("ij,ij->j", yd, yd))]
    (i1, v1), (i2, v2) = a.expansion_argmin(*xy), g.expansion_argmin(*xy)
    np.testing.assert_array_equal(xp.to_numpy(i1), xp.to_numpy(i2))
    assert xp.to_numpy(i1)[7:].tolist() == [0, 1, 2]
    np.testing.assert_allclose(xp.to_numpy(v1), xp.to_numpy(v2), **tol)
    for squared in (False, True):
        np.testing.assert_allclose(
            xp.to_numpy(a.expansion_distances(*args, squared=squared)),
            xp.to_numpy(g.expansion_distances(*args, squared=squared)), **tol)
    np.testing.assert_allclose(xp.to_numpy(a.scaled_exp(xp.asarray(D), -0.5)),
                               xp.to_numpy(g.scaled_exp(xp.asarray(D), -0.5)), **tol)
    S = r.rand(9, 9)
    S = xp.to_numpy(xp.asarray(S + S.T))  # in the backend's float
    halves = [(0, 4, S[0:4, 0:]), (4, 7, S[4:7, 4:]), (7, 9, S[7:9, 7:])]
    for fn in (a.assemble_rows, g.assemble_rows):
        np.testing.assert_array_equal(
            xp.to_numpy(fn([(s0, s1, xp.asarray(b)) for s0, s1, b in halves], symmetric=True)), S)
        np.testing.assert_array_equal(
            xp.to_numpy(fn([(0, 4, xp.asarray(D[:4])), (4, 7, xp.asarray(D[4:]))])),
            xp.to_numpy(xp.asarray(D)))
    for offset in (0, 3, 8):
        np.testing.assert_array_equal(xp.to_numpy(a.zero_diagonal(xp.asarray(D), offset)),
                                      xp.to_numpy(g.zero_diagonal(xp.asarray(D), offset)))


# -- ArgKmin's DistanceMetric metrics and SciPy's mahalanobis, on every backend --------

_R = np.random.RandomState(7)
_V = _R.rand(6) + 0.5
_A = _R.rand(6, 6)
ARGKMIN = [("seuclidean", {"V": _V}), ("canberra", None), ("braycurtis", None),
           ("matching", None), ("kulsinski", None), ("sokalmichener", None),
           ("infinity", None), ("p", None), ("p", {"p": 3}), ("haversine", None),
           ("minkowski", {"p": 3, "w": _R.rand(6)}), ("minkowski", {"p": 2, "w": _R.rand(6)}),
           ("mahalanobis", {"VI": _A @ _A.T + np.eye(6)})]


def _argkmin_data(metric, dtype):
    """C-ordered rows (``ArgKmin`` computes only those) with zeros (the boolean
    metrics' indicators, braycurtis' and canberra's ``0 / 0``) and duplicated
    rows of ``Y`` (ties: the first index)."""
    r = np.random.RandomState(3)
    X = np.round(r.rand(50, 6) * 4 - 1.5)
    Y = np.round(r.rand(30, 6) * 4 - 1.5)
    X[:20] += r.rand(20, 6) * 0.3
    Y = np.concatenate([Y, Y[:6], np.zeros((1, 6))])
    X[-1] = 0.0
    if metric == "haversine":
        X, Y = X[:, :2] * 0.7, Y[:, :2] * 0.7
    return np.ascontiguousarray(X, dtype=dtype), np.ascontiguousarray(Y, dtype=dtype)


@pytest.mark.parametrize("metric, kw", ARGKMIN, ids=lambda v: str(v) if v is None else None)
def test_argkmin_metrics_match_sklearn(xp, metric, kw):
    """``ArgKmin``'s metrics of ``DistanceMetric`` (``"matching"``: the ``x != 0``
    indicators; braycurtis: 0 for ``0 / 0``) and SciPy's mahalanobis (the
    chunked fallback): scikit-learn's indices (first on ties), values and dtypes."""
    X, Y = _argkmin_data(metric, np.float64)
    for axis in (0, 1):
        i, v = skp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw,
                                                 axis=axis)
        gi, gv = mp.pairwise_distances_argmin_min(xp.asarray(X), xp.asarray(Y), metric=metric,
                                                  metric_kwargs=kw, axis=axis)
        xp.combo.check_placement(gi)
        gi, gv = xp.to_numpy(gi), xp.to_numpy(gv)
        assert gi.dtype == i.dtype
        if xp.float_dtype == "float64":
            np.testing.assert_array_equal(gi, i, err_msg=metric)
            assert gv.dtype == v.dtype == np.float64
            np.testing.assert_allclose(gv, v, rtol=1e-12, atol=1e-13, err_msg=metric)
        else:  # float32 sums: near ties may swap
            assert (gi == i).mean() > 0.9
            np.testing.assert_allclose(gv, v, rtol=2e-5, atol=2e-6, err_msg=metric)
        gj = mp.pairwise_distances_argmin(xp.asarray(X), xp.asarray(Y), metric=metric,
                                          metric_kwargs=kw, axis=axis)
        np.testing.assert_array_equal(xp.to_numpy(gj), gi)


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("metric, kw", ARGKMIN, ids=lambda v: str(v) if v is None else None)
def test_argkmin_float32_values(lib, metric, kw):
    """float32 rows (``ArgKmin32``): the distances summed in float64, rounded to
    float32 and returned in float64, on NumPy, torch CPU and JAX CPU."""
    X, Y = _argkmin_data(metric, np.float32)
    i, v = skp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw)
    if lib == "torch":
        torch = pytest.importorskip("torch")
        A, B = torch.from_numpy(X), torch.from_numpy(Y)
    elif lib == "jax":
        jax = pytest.importorskip("jax")
        if not jax.config.jax_enable_x64:
            jax.config.update("jax_enable_x64", True)  # restored by the conftest fixture
        A, B = jax.numpy.asarray(X), jax.numpy.asarray(Y)
    else:
        A, B = X, Y
    gi, gv = mp.pairwise_distances_argmin_min(A, B, metric=metric, metric_kwargs=kw)
    gi, gv = np.asarray(gi), np.asarray(gv)
    np.testing.assert_array_equal(gi, i, err_msg=metric)
    assert gi.dtype == i.dtype and gv.dtype == v.dtype == np.float64
    np.testing.assert_allclose(gv, v, **TOL[np.float32], err_msg=metric)
    if metric != "mahalanobis":  # SciPy's: float64 values of float32 rows
        np.testing.assert_array_equal(gv.astype(np.float32), gv)


def test_argkmin_nan_and_infinite_distances(xp):
    """A zero variance of seuclidean: ``0 / 0`` (NaN) and ``d / 0`` (inf) distances,
    ranked as ``ArgKmin``'s scan ranks them (a NaN kept until the next value)."""
    if xp.float_dtype != "float64":
        pytest.skip("the ranks of float64 distances")
    r = np.random.RandomState(1)
    X = r.randint(0, 3, (30, 4)).astype(np.float64)
    Y = r.randint(0, 3, (20, 4)).astype(np.float64)
    seen = 0
    for V in ([1.0, 0.0, 1.0, 2.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]):
        kw = {"V": np.array(V)}
        i, v = skp.pairwise_distances_argmin_min(X, Y, metric="seuclidean", metric_kwargs=kw)
        with np.errstate(all="ignore"):
            gi, gv = mp.pairwise_distances_argmin_min(xp.asarray(X), xp.asarray(Y),
                                                      metric="seuclidean", metric_kwargs=kw)
        np.testing.assert_array_equal(xp.to_numpy(gi), i)
        np.testing.assert_array_equal(xp.to_numpy(gv), v)
        seen += np.isnan(v).sum()
    assert seen > 0


def test_argkmin_errors(xp):
    """``DistanceMetric.get_metric``'s errors, on every backend."""
    X, Y = _argkmin_data("canberra", np.float64)
    A, B = xp.asarray(X), xp.asarray(Y)
    with pytest.raises(TypeError, match="takes exactly 1 positional argument"):
        mp.pairwise_distances_argmin_min(A, B, metric="seuclidean")
    with pytest.raises(ValueError, match="size of V does not match"):
        mp.pairwise_distances_argmin_min(A, B, metric="seuclidean", metric_kwargs={"V": _V[:3]})
    with pytest.raises(ValueError, match="only valid in 2 dimensions"):
        mp.pairwise_distances_argmin_min(A, B, metric="haversine")
    with pytest.raises(ValueError, match="w cannot contain negative weights"):
        mp.pairwise_distances_argmin_min(A, B, metric="minkowski", metric_kwargs={"w": -_V})
    with pytest.raises(TypeError, match="unexpected keyword argument 'q'"):
        mp.pairwise_distances_argmin_min(A, B, metric="canberra", metric_kwargs={"q": 1})
    with pytest.raises(ValueError, match="The 'VI' parameter is required"):
        mp.pairwise_distances_argmin_min(A, B, metric="mahalanobis")
    for metric, kw in (("seuclidean", {"V": _V[:3]}), ("minkowski", {"w": -_V}),
                       ("canberra", {"q": 1}), ("mahalanobis", None)):
        with pytest.raises((TypeError, ValueError)):
            skp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw)


def test_argkmin_fortran_order_is_scipys():
    """NumPy rows not C-ordered: scikit-learn reads ``pairwise_distances_chunked``
    (SciPy's matching: ``x != y``; braycurtis: NaN for ``0 / 0``), so does metrix."""
    X, Y = _argkmin_data("matching", np.float64)
    F = np.asfortranarray(X)
    for metric in ("matching", "braycurtis"):
        i, v = skp.pairwise_distances_argmin_min(F, Y, metric=metric)
        gi, gv = mp.pairwise_distances_argmin_min(F, Y, metric=metric)
        np.testing.assert_array_equal(gi, i)
        np.testing.assert_array_equal(gv, v)
        c = mp.pairwise_distances_argmin_min(X, Y, metric=metric)[1]
        assert not np.array_equal(c, v, equal_nan=True)


# -- SciPy's weights w of cdist --------------------------------------------------------

WEIGHTED = ["hamming", "matching", "canberra", "braycurtis", "chebyshev", "sqeuclidean",
            "minkowski"]


@pytest.mark.parametrize("metric", WEIGHTED)
def test_scipy_weights_match_sklearn(xp, metric):
    """SciPy's weighted metrics (``sum w t / sum w`` for hamming, ``w`` times each
    term of canberra, braycurtis' sums, chebyshev without the coordinates of
    weight 0, minkowski with ``p=inf`` likewise), weights with zeros included,
    ``Y`` given or ``X`` itself, whole and chunked; the weights as NumPy or as
    arrays of the backend."""
    r = np.random.RandomState(5)
    X = np.round(r.rand(30, 5) * 4 - 1.5)
    Y = np.round(r.rand(20, 5) * 4 - 1.5)
    X[0], Y[0] = 0.0, 0.0  # braycurtis' 0 / 0
    X[1], Y[1] = [1.0, 0.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0, 0.0]  # x = -y: d / 0
    if metric not in ("hamming", "matching"):
        X[2:] += r.rand(28, 5) * 0.5
    p = {"minkowski": {"p": np.inf}}.get(metric, {})
    special = []
    for w in (r.rand(5) + 0.1, np.array([1.0, 0.0, 2.0, 0.0, 3.0])):
        for B in (Y, None):
            with np.errstate(all="ignore"):
                want = skp.pairwise_distances(X, B, metric=metric, w=w, **p)
            special += [np.isinf(want).any(), np.isnan(want).any()]
            for weights in (w, xp.asarray(w)):
                got = mp.pairwise_distances(xp.asarray(X), None if B is None else xp.asarray(B),
                                            metric=metric, w=weights, **p)
                xp.combo.check_placement(got)
                got = xp.to_numpy(got)
                tol = (dict(rtol=1e-12, atol=1e-12) if xp.float_dtype == "float64"
                       else dict(rtol=2e-5, atol=2e-6))
                np.testing.assert_allclose(got, want, **tol, err_msg=metric)
                np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            chunks = mp.pairwise_distances_chunked(xp.asarray(X), None if B is None
                                                   else xp.asarray(B), metric=metric,
                                                   working_memory=0.001, w=w, **p)
            with np.errstate(all="ignore"):  # SciPy's cdist per chunk: NaN for 0 / 0
                theirs = skp.pairwise_distances_chunked(X, B, metric=metric,
                                                        working_memory=0.001, w=w, **p)
                theirs = np.concatenate(list(theirs))
            np.testing.assert_allclose(np.concatenate([xp.to_numpy(c) for c in chunks]),
                                       theirs, **tol)
    if metric == "braycurtis":  # SciPy's inf (x = -y, or weights 0) and NaN (0 / 0)
        assert any(special[::2]) and any(special[1::2])
    if metric == "matching":  # ArgKmin's DistanceMetric("matching") takes no weights
        with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
            mp.pairwise_distances_argmin(xp.asarray(X), xp.asarray(Y), metric=metric,
                                         metric_kwargs={"w": w})
    if metric == "hamming":  # the chunked fallback of argmin
        kw = {"w": w}
        i, v = skp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw)
        gi, gv = mp.pairwise_distances_argmin_min(xp.asarray(X), xp.asarray(Y), metric=metric,
                                                  metric_kwargs=kw)
        np.testing.assert_array_equal(xp.to_numpy(gi), i)
        np.testing.assert_allclose(xp.to_numpy(gv), v, **tol)


def test_scipy_weights_errors(xp):
    """SciPy's errors of the weights, on every backend."""
    X, Y = _data(n=6, m=4, d=3)
    A, B = xp.asarray(X), xp.asarray(Y)
    for w, match in (([1.0, -1.0, 1.0], "Input weights should be all non-negative"),
                     ([1.0, 1.0], "Weights must have same size as input vector. 2 vs. 3"),
                     ([[1.0, 1.0, 1.0]], r"Weights must be a vector \(ndim = 1\)"
                      r"|same size as input vector\. 1 vs\. 3")):  # SciPy 1.10: size first
        for metric in ("canberra", "minkowski", "hamming"):
            with pytest.raises(ValueError, match=match):
                skp.pairwise_distances(X, Y, metric=metric, w=np.array(w))
            with pytest.raises(ValueError, match=match):
                mp.pairwise_distances(A, B, metric=metric, w=np.array(w))
