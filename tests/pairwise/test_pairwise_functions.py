"""metrix.pairwise's distances and kernels against scikit-learn 1.9: values and
dtypes (float64, float32, integers), Y=None, the float32 upcast, signatures,
parameter and input errors, every backend."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import sklearn.metrics as skm
import sklearn.metrics.pairwise as skp

import metrix
import metrix.pairwise as mp
from conformance.combos import tolerance

PAIRWISE = ["euclidean_distances", "cosine_similarity", "cosine_distances",
            "manhattan_distances", "linear_kernel", "polynomial_kernel", "rbf_kernel",
            "laplacian_kernel", "sigmoid_kernel", "chi2_kernel", "additive_chi2_kernel"]
PAIRED = ["paired_euclidean_distances", "paired_manhattan_distances",
          "paired_cosine_distances", "paired_distances"]
ALL = PAIRWISE + PAIRED + ["pairwise_distances", "pairwise_kernels",
                           "pairwise_distances_chunked", "pairwise_distances_argmin_min",
                           "pairwise_distances_argmin"]
TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=2e-5, atol=2e-6)}


def _data(n=40, m=25, d=6, seed=0, dtype=np.float64):
    r = np.random.RandomState(seed)
    return (r.rand(n, d) * 3).astype(dtype), (r.rand(m, d) * 3).astype(dtype)


def _same(ours, theirs, dtype):
    ours = np.asarray(ours)
    assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype, (ours.dtype,
                                                                           theirs.dtype)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


@pytest.mark.parametrize("name", ALL)
def test_signature_is_scikit_learns(name):
    assert inspect.signature(getattr(mp, name)) == inspect.signature(getattr(skp, name))


def test_flat_names_are_sklearn_metrics_ones():
    flat = [n for n in skm.__all__ if n in mp.__all__]
    assert sorted(flat) == sorted(["DistanceMetric", "euclidean_distances",
                                   "nan_euclidean_distances", "pairwise_distances",
                                   "pairwise_distances_argmin", "pairwise_distances_argmin_min",
                                   "pairwise_distances_chunked", "pairwise_kernels"])
    for n in flat:
        assert getattr(metrix, n) is getattr(mp, n) and n in metrix.__all__


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", PAIRWISE)
def test_matches_sklearn(name, dtype):
    X, Y = _data(dtype=dtype)
    f, g = getattr(mp, name), getattr(skp, name)
    _same(f(X, Y), g(X, Y), dtype)
    _same(f(X), g(X), dtype)
    _same(f(X, X), g(X, X), dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", PAIRED[:-1])
def test_paired_match_sklearn(name, dtype):
    X, Y = _data(m=40, dtype=dtype)
    _same(getattr(mp, name)(X, Y), getattr(skp, name)(X, Y), dtype)
    for metric in ("euclidean", "l2", "l1", "manhattan", "cityblock", "cosine"):
        _same(mp.paired_distances(X, Y, metric=metric),
              skp.paired_distances(X, Y, metric=metric), dtype)


def test_paired_callable():
    X, Y = _data(m=40)
    f = lambda a, b: float(np.abs(a - b).max())  # noqa: E731
    _same(mp.paired_distances(X, Y, metric=f), skp.paired_distances(X, Y, metric=f),
          np.float64)


@pytest.mark.parametrize("params", [dict(gamma=0.3), dict(gamma=0.0), dict(degree=2, coef0=0),
                                    dict(degree=1.5, gamma=2.0, coef0=-1.0)])
def test_kernel_parameters(params):
    X, Y = _data()
    _same(mp.polynomial_kernel(X, Y, **params), skp.polynomial_kernel(X, Y, **params),
          np.float64)
    sig = {k: v for k, v in params.items() if k != "degree"}
    _same(mp.sigmoid_kernel(X, Y, **sig), skp.sigmoid_kernel(X, Y, **sig), np.float64)
    g = params.get("gamma")
    _same(mp.rbf_kernel(X, Y, gamma=g), skp.rbf_kernel(X, Y, gamma=g), np.float64)
    if g:
        _same(mp.laplacian_kernel(X, Y, gamma=g), skp.laplacian_kernel(X, Y, gamma=g),
              np.float64)
        _same(mp.chi2_kernel(X, Y, gamma=g), skp.chi2_kernel(X, Y, gamma=g), np.float64)


def test_integer_and_mixed_inputs_are_float64():
    r = np.random.RandomState(1)
    Xi, Yi = r.randint(0, 5, (10, 3)), r.randint(0, 5, (7, 3))
    for name in PAIRWISE:
        _same(getattr(mp, name)(Xi, Yi), getattr(skp, name)(Xi, Yi), np.float64)
    X32 = Xi.astype(np.float32)
    for name in ("euclidean_distances", "cosine_similarity", "linear_kernel"):
        _same(getattr(mp, name)(X32, Yi.astype(np.float64)),
              getattr(skp, name)(X32, Yi.astype(np.float64)), np.float64)


def test_lists_and_zero_rows():
    X = [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    for name in ("cosine_similarity", "cosine_distances", "euclidean_distances"):
        _same(getattr(mp, name)(X), getattr(skp, name)(X), np.float64)
    _same(mp.paired_cosine_distances(X, X[::-1]), skp.paired_cosine_distances(X, X[::-1]),
          np.float64)


def test_float32_upcast_accuracy():
    # far from the origin: a float32 expansion cancels; scikit-learn's upcast does not
    r = np.random.RandomState(2)
    X = (1e4 + r.rand(50, 8)).astype(np.float32)
    Y = (1e4 + r.rand(30, 8)).astype(np.float32)
    ours, theirs = mp.euclidean_distances(X, Y), skp.euclidean_distances(X, Y)
    assert ours.dtype == np.float32
    exact = np.sqrt(((X.astype(np.float64)[:, None] - Y.astype(np.float64)[None]) ** 2)
                    .sum(-1))
    np.testing.assert_allclose(ours, exact, rtol=1e-5)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_euclidean_norms_and_squared():
    X, Y = _data()
    xx, yy = (X ** 2).sum(1), (Y ** 2).sum(1)
    for kw in (dict(X_norm_squared=xx), dict(Y_norm_squared=yy),
               dict(X_norm_squared=xx[:, None], Y_norm_squared=yy[None, :]),
               dict(Y_norm_squared=yy[:, None], squared=True)):
        _same(mp.euclidean_distances(X, Y, **kw), skp.euclidean_distances(X, Y, **kw),
              np.float64)
    # wrong norms are used as given (scikit-learn does not recompute float64 norms)
    _same(mp.euclidean_distances(X, Y, X_norm_squared=xx + 1),
          skp.euclidean_distances(X, Y, X_norm_squared=xx + 1), np.float64)
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    _same(mp.euclidean_distances(X32, Y32, X_norm_squared=xx.astype(np.float32) + 1),
          skp.euclidean_distances(X32, Y32, X_norm_squared=xx.astype(np.float32) + 1),
          np.float32)
    with pytest.raises(ValueError, match=r"Incompatible dimensions for X of shape"):
        mp.euclidean_distances(X, Y, X_norm_squared=xx[:5])
    with pytest.raises(ValueError, match=r"Incompatible dimensions for Y of shape"):
        mp.euclidean_distances(X, Y, Y_norm_squared=np.ones((2, 25)))


def test_diagonal_is_zero_when_y_is_x():
    r = np.random.RandomState(3)
    X = r.rand(20, 4) * 1e3
    for f in (mp.euclidean_distances, mp.cosine_distances):
        D = f(X)
        assert (np.diag(D) == 0).all()
        assert (np.diag(f(X.astype(np.float32))) == 0).all()


def _raises_both(f, g, exc, match, *args, **kw):
    with pytest.raises(exc, match=match):
        f(*args, **kw)
    with pytest.raises(exc, match=match):
        g(*args, **kw)


@pytest.mark.parametrize("name", PAIRWISE)
def test_feature_mismatch(name):
    X, _ = _data()
    Y = np.ones((3, 4))
    _raises_both(getattr(mp, name), getattr(skp, name), ValueError,
                 r"Incompatible dimension for X and Y matrices: X.shape\[1\] == 6 while "
                 r"Y.shape\[1\] == 4", X, Y)


def test_input_errors():
    X, Y = _data()
    for name in ("chi2_kernel", "additive_chi2_kernel"):
        f, g = getattr(mp, name), getattr(skp, name)
        _raises_both(f, g, ValueError, "X contains negative values.", X - 1, Y)
        _raises_both(f, g, ValueError, "Y contains negative values.", X, Y - 1)
    _raises_both(mp.paired_euclidean_distances, skp.paired_euclidean_distances, ValueError,
                 "X and Y should be of same shape", X, Y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    _raises_both(mp.euclidean_distances, skp.euclidean_distances, ValueError,
                 "Input contains NaN", Xn, Y)
    _raises_both(mp.linear_kernel, skp.linear_kernel, ValueError, "Expected 2D array",
                 X[0], Y)
    _raises_both(mp.cosine_similarity, skp.cosine_similarity, ValueError,
                 r"Found array with 0 sample\(s\)", X[:0], Y)
    _raises_both(mp.paired_distances, skp.paired_distances, ValueError,
                 "The 'metric' parameter of paired_distances must be a str among", X, X,
                 metric="chebyshev")


@pytest.mark.parametrize("name, kw, match", [
    ("rbf_kernel", dict(gamma=-1), r"'gamma' parameter of rbf_kernel must be a float in the "
                                   r"range \[0.0, inf\) or None. Got -1 instead."),
    ("laplacian_kernel", dict(gamma=0), r"'gamma' parameter of laplacian_kernel must be a "
                                        r"float in the range \(0.0, inf\) or None. Got 0"),
    ("polynomial_kernel", dict(degree=0.5), r"'degree' parameter of polynomial_kernel must "
                                            r"be a float in the range \[1.0, inf\). Got 0.5"),
    ("chi2_kernel", dict(gamma=0), r"'gamma' parameter of chi2_kernel must be a float in "
                                   r"the range \(0.0, inf\). Got 0 instead."),
    ("sigmoid_kernel", dict(gamma="a"), r"'gamma' parameter of sigmoid_kernel must be a "
                                        r"float in the range \[0.0, inf\)"),
])
def test_parameter_errors(name, kw, match):
    X, Y = _data()
    _raises_both(getattr(mp, name), getattr(skp, name), ValueError, match, X, Y, **kw)


def test_backends_match_sklearn(xp):
    X, Y = _data()
    tol = tolerance(xp.combo)
    Xb, Yb = xp.asarray(X), xp.asarray(Y)
    for name in PAIRWISE:
        f, g = getattr(mp, name), getattr(skp, name)
        for args, ref in (((Xb, Yb), (X, Y)), ((Xb,), (X,))):
            out = f(*args)
            xp.combo.check_placement(out)
            np.testing.assert_allclose(xp.to_numpy(out), g(*ref), **tol, err_msg=name)
    Y2 = X[::-1].copy()
    for name in PAIRED[:-1]:
        out = getattr(mp, name)(Xb, xp.asarray(Y2))
        xp.combo.check_placement(out)
        np.testing.assert_allclose(xp.to_numpy(out), getattr(skp, name)(X, Y2), **tol)
    D = mp.euclidean_distances(Xb)
    assert (xp.to_numpy(D).diagonal() == 0).all()


def test_backends_keep_float32(xp):
    X, Y = _data(dtype=np.float32)
    if xp.lib == "numpy":
        pytest.skip("NumPy: the float64 reference path")
    import array_api_compat

    ns = array_api_compat.array_namespace(xp.asarray(X))
    Xb = ns.astype(xp.asarray(X), ns.float32)
    Yb = ns.astype(xp.asarray(Y), ns.float32)
    for name in ("euclidean_distances", "rbf_kernel", "cosine_distances", "linear_kernel",
                 "manhattan_distances", "chi2_kernel"):
        out = getattr(mp, name)(Xb, Yb)
        assert out.dtype == ns.float32, name
        xp.combo.check_placement(out)
        np.testing.assert_allclose(xp.to_numpy(out), getattr(skp, name)(X, Y), rtol=2e-5,
                                   atol=2e-5, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_many_blocks_and_symmetry(monkeypatch, dtype):
    """Small blocks: the row blocks (and, for Y=None, the mirrored halves) assemble
    scikit-learn's matrix, symmetric."""
    from metrix.pairwise import distances

    monkeypatch.setattr(distances, "BLOCK_BYTES", 3000)
    X, Y = _data(n=53, m=31, dtype=dtype)
    for name in PAIRWISE:
        f, g = getattr(mp, name), getattr(skp, name)
        _same(f(X, Y), g(X, Y), dtype)
        ours = f(X)
        _same(ours, g(X), dtype)
        np.testing.assert_allclose(ours, ours.T, **TOL[dtype])


def test_many_blocks_backends(monkeypatch, xp):
    from metrix.pairwise import distances

    monkeypatch.setattr(distances, "BLOCK_BYTES", 3000)
    X, _ = _data(n=37)
    tol = tolerance(xp.combo)
    for name in ("euclidean_distances", "cosine_distances", "manhattan_distances",
                 "rbf_kernel", "chi2_kernel"):
        out = getattr(mp, name)(xp.asarray(X))
        xp.combo.check_placement(out)
        np.testing.assert_allclose(xp.to_numpy(out), getattr(skp, name)(X), **tol)


@pytest.mark.filterwarnings("ignore:torch.asarray")
def test_torch_autograd_through_blocks(monkeypatch):
    """Tensors that require grad take the out-of-place paths (no in-place writes)."""
    torch = pytest.importorskip("torch")
    from metrix.pairwise import distances

    monkeypatch.setattr(distances, "BLOCK_BYTES", 2000)
    X = torch.rand(30, 4, dtype=torch.float64, requires_grad=True)
    for name in ("rbf_kernel", "euclidean_distances", "laplacian_kernel", "cosine_distances"):
        K = getattr(mp, name)(X)
        K.sum().backward()
        np.testing.assert_allclose(K.detach().numpy(), getattr(skp, name)(X.detach().numpy()),
                                   **TOL[np.float64])
    assert X.grad is not None  # (NaN where a distance is 0: the root's derivative)
