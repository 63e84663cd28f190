"""SciPy sparse input of ``metrix.pairwise``: equal to scikit-learn 1.9 on the same
sparse inputs (values, dtypes, sparse-or-dense output type, errors), computed on
the sparse structure (:mod:`metrix.backends.sparse`) without a dense copy of
the input."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
skp = pytest.importorskip("sklearn.metrics.pairwise")

import metrix  # noqa: E402
import metrix.pairwise as mp  # noqa: E402
from metrix.backends import sparse as sparse_ops  # noqa: E402

FORMATS = ("csr_matrix", "csc_matrix", "coo_matrix", "csr_array", "lil_matrix")
DTYPES = (np.float32, np.float64)
#: X and Y: both sparse, sparse-dense, dense-sparse, sparse X alone (Y=None)
MODES = ("ss", "sd", "ds", "s-")


def _dense(n, d, seed, dtype, zero_rows=(1,)):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.35)
    A[list(zero_rows)] = 0.0  # all-zero rows: cosine of a zero row, empty CSR rows
    return A.astype(dtype)


def _operands(mode, fmt, dtype, *, n=9, m=6, d=7, paired=False):
    Xd = _dense(n, d, 0, dtype)
    Yd = _dense(n if paired else m, d, 1, dtype, zero_rows=(2,))
    S = getattr(sp, fmt)
    if mode == "ss":
        return S(Xd), S(Yd)
    if mode == "sd":
        return S(Xd), Yd
    if mode == "ds":
        return Xd, S(Yd)
    return S(Xd), None


def _tol(dtype):
    return dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


def _as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def assert_like_sklearn(got, want, dtype=None):
    """Same output type (sparse format / ndarray), dtype, shape, values (to the
    tolerance of ``dtype``, the inputs' float, where given)."""
    for g, w in zip(_as_tuple(got), _as_tuple(want), strict=True):
        assert type(g) is type(w), (type(g), type(w))
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape
        gd = g.toarray() if sp.issparse(g) else g
        wd = w.toarray() if sp.issparse(w) else w
        if gd.dtype.kind in "iu":
            np.testing.assert_array_equal(gd, wd)
        else:
            np.testing.assert_allclose(gd, wd, **_tol(w.dtype if dtype is None else dtype))


def _call(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def _both(name, *args, **kw):
    return (_call(getattr(mp, name), *args, **kw),
            _call(getattr(skp, name), *args, **kw))


def assert_same_error(name, *args, **kw):
    with pytest.raises(Exception) as want:
        _call(getattr(skp, name), *args, **kw)
    with pytest.raises(type(want.value).__mro__[1] if type(want.value).__name__
                       == "InvalidParameterError" else type(want.value)) as got:
        _call(getattr(mp, name), *args, **kw)
    assert str(got.value) == str(want.value)
    return got.value


MATRIX_FUNCS = [
    ("euclidean_distances", {}),
    ("euclidean_distances", {"squared": True}),
    ("cosine_similarity", {}),
    ("cosine_similarity", {"dense_output": False}),
    ("cosine_distances", {}),
    ("linear_kernel", {}),
    ("linear_kernel", {"dense_output": False}),
    ("polynomial_kernel", {"degree": 2, "gamma": 0.5, "coef0": 0.5}),
    ("sigmoid_kernel", {"gamma": 0.1}),
    ("rbf_kernel", {"gamma": 0.2}),
    ("laplacian_kernel", {}),
    ("manhattan_distances", {}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "kw"), MATRIX_FUNCS,
                         ids=[f"{n}-{'-'.join(map(str, k.values()))}" for n, k in MATRIX_FUNCS])
def test_matrix_functions_equal_sklearn(name, kw, mode, fmt, dtype):
    X, Y = _operands(mode, fmt, dtype)
    got, want = _both(name, X, Y, **kw)
    assert_like_sklearn(got, want)


def test_dense_output_false_keeps_the_product_sparse():
    X, Y = _operands("ss", "csr_matrix", np.float64)
    K = mp.linear_kernel(X, Y, dense_output=False)
    assert sp.issparse(K) and K.format == "csr"
    S = mp.cosine_similarity(sp.csr_array(X), dense_output=False)
    assert type(S) is type(skp.cosine_similarity(sp.csr_array(X), dense_output=False))
    # a dense operand makes the product dense, whatever dense_output says
    assert isinstance(mp.linear_kernel(X, Y.toarray(), dense_output=False), np.ndarray)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cosine_of_zero_rows(dtype):
    X = sp.csr_matrix(np.array([[0, 0, 0], [1, 0, 2], [0, 0, 0]], dtype=dtype))
    S = mp.cosine_similarity(X)
    assert_like_sklearn(S, skp.cosine_similarity(X))
    assert S[0, 0] == 0 and S[0, 1] == 0  # a zero row is similar to nothing
    D = mp.cosine_distances(X)
    assert_like_sklearn(D, skp.cosine_distances(X))
    assert D[0, 1] == 1 and D[0, 0] == 0


@pytest.mark.parametrize("name", ["euclidean_distances", "manhattan_distances",
                                  "cosine_similarity", "cosine_distances", "rbf_kernel"])
def test_all_zero_sparse_matrix(name):
    X = sp.csr_matrix((4, 3))
    got, want = _both(name, X)
    assert_like_sklearn(got, want)


def test_coo_duplicates_are_summed():
    X = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 2])), shape=(2, 3))
    for name in ("euclidean_distances", "manhattan_distances", "linear_kernel"):
        got, want = _both(name, X)
        assert_like_sklearn(got, want)


def test_integer_sparse_input_is_float64():
    X = sp.csr_matrix(np.array([[1, 0, 3], [0, 2, 0]], dtype=np.int64))
    for name in ("euclidean_distances", "manhattan_distances", "linear_kernel",
                 "cosine_similarity"):
        got, want = _both(name, X)
        assert_like_sklearn(got, want)
        assert got.dtype == np.float64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["ss", "sd", "s-"])
def test_euclidean_given_norms(mode, dtype):
    X, Y = _operands(mode, "csr_matrix", dtype)
    Xd = X.toarray().astype(np.float64)
    Yd = Xd if Y is None else (Y.toarray() if sp.issparse(Y) else Y).astype(np.float64)
    for norms in ({"X_norm_squared": (Xd ** 2).sum(1)},
                  {"Y_norm_squared": (Yd ** 2).sum(1)[None, :]},
                  {"X_norm_squared": (Xd ** 2).sum(1)[:, None],
                   "Y_norm_squared": (Yd ** 2).sum(1)},
                  {"X_norm_squared": (Xd ** 2).sum(1).astype(np.float32)}):
        got, want = _both("euclidean_distances", X, Y, **norms)
        assert_like_sklearn(got, want)
    assert_same_error("euclidean_distances", X, Y, X_norm_squared=np.ones(3))


def test_euclidean_self_distance_is_zero():
    X = sp.csr_matrix(_dense(20, 5, 3, np.float32))
    D = mp.euclidean_distances(X)
    assert (np.diag(D) == 0).all()
    assert_like_sklearn(D, skp.euclidean_distances(X))


PAIRED = ("paired_euclidean_distances", "paired_manhattan_distances",
          "paired_cosine_distances")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mode", ["ss", "sd", "ds"])
@pytest.mark.parametrize("name", PAIRED)
def test_paired_equal_sklearn(name, mode, fmt, dtype):
    X, Y = _operands(mode, fmt, dtype, paired=True)
    got, want = _both(name, X, Y)
    if isinstance(want, np.matrix):
        # scikit-learn's sparse - dense difference is an np.matrix: its (n, 1)
        # sums; metrix returns the same values as an (n,) array (documented)
        want = np.asarray(want).ravel()
    assert isinstance(got, np.ndarray) and got.shape == (X.shape[0],)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("name", ["chi2_kernel", "additive_chi2_kernel"])
@pytest.mark.parametrize("which", ["X", "Y"])
def test_chi2_kernels_reject_sparse(name, which):
    X = np.abs(_dense(4, 3, 0, np.float64))
    Y = np.abs(_dense(3, 3, 1, np.float64))
    args = (sp.csr_matrix(X), Y) if which == "X" else (X, sp.csr_matrix(Y))
    err = assert_same_error(name, *args)
    assert isinstance(err, ValueError) and isinstance(err, TypeError)


def test_paired_distances_rejects_sparse():
    X, Y = _operands("ss", "csr_matrix", np.float64, paired=True)
    for metric in ("euclidean", "cosine", lambda a, b: 0.0):
        err = assert_same_error("paired_distances", X, Y, metric=metric)
        assert isinstance(err, ValueError) and isinstance(err, TypeError)


def test_input_errors_equal_sklearn():
    bad = sp.csr_matrix(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    inf = sp.csr_matrix(np.array([[np.inf, 1.0], [0.0, 1.0]]))
    good = sp.csr_matrix(np.eye(2))
    for name in ("euclidean_distances", "linear_kernel", "manhattan_distances",
                 "cosine_similarity"):
        assert_same_error(name, bad)
        assert_same_error(name, inf, good)
        assert_same_error(name, sp.csr_matrix((0, 3)))
        assert_same_error(name, good, sp.csr_matrix(np.ones((2, 3))))
        assert_same_error(name, good, np.ones((2, 3)))
    assert_same_error("paired_euclidean_distances", good, sp.csr_matrix(np.ones((3, 2))))


# --- by metric string -----------------------------------------------------------

DISTANCE_METRICS = ["euclidean", "l2", "cosine", "manhattan", "cityblock", "l1"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("metric", DISTANCE_METRICS)
def test_pairwise_distances_equal_sklearn(metric, mode, dtype):
    X, Y = _operands(mode, "csr_matrix", dtype)
    got, want = _both("pairwise_distances", X, Y, metric=metric)
    assert_like_sklearn(got, want)


def test_pairwise_distances_squared_and_haversine_and_callable():
    X, Y = _operands("ss", "csc_matrix", np.float64)
    assert_like_sklearn(*_both("pairwise_distances", X, Y, metric="euclidean", squared=True))
    H = sp.csr_matrix(np.abs(_dense(5, 2, 4, np.float64)))
    assert_like_sklearn(*_both("pairwise_distances", H, metric="haversine"))
    f = lambda a, b: float(abs(a - b).sum())  # noqa: E731
    assert_like_sklearn(*_both("pairwise_distances", X, Y, metric=f))


@pytest.mark.parametrize("metric", ["sqeuclidean", "braycurtis", "chebyshev", "minkowski",
                                    "correlation", "hamming", "nan_euclidean"])
@pytest.mark.parametrize("mode", ["ss", "sd", "ds", "s-"])
def test_pairwise_distances_scipy_metrics_reject_sparse(metric, mode):
    X, Y = _operands(mode, "csr_matrix", np.float64)
    err = assert_same_error("pairwise_distances", X, Y, metric=metric)
    assert isinstance(err, TypeError)


def test_pairwise_distances_precomputed_sparse():
    D = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    got, want = _both("pairwise_distances", D, metric="precomputed")
    assert_like_sklearn(got, want)
    assert sp.issparse(got)
    assert_same_error("pairwise_distances", -D, metric="precomputed")
    assert_like_sklearn(*_both("pairwise_kernels", D, metric="precomputed"))


KERNELS = [("linear", {}), ("poly", {"degree": 2}), ("polynomial", {"gamma": 0.3}),
           ("rbf", {"gamma": 0.5}), ("laplacian", {}), ("sigmoid", {"coef0": 0.2}),
           ("cosine", {})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("metric", "kw"), KERNELS, ids=[k for k, _ in KERNELS])
def test_pairwise_kernels_equal_sklearn(metric, kw, mode, dtype):
    X, Y = _operands(mode, "csr_matrix", dtype)
    assert_like_sklearn(*_both("pairwise_kernels", X, Y, metric=metric, **kw))


@pytest.mark.parametrize("metric", ["chi2", "additive_chi2"])
def test_pairwise_kernels_chi2_reject_sparse(metric):
    X = sp.csr_matrix(np.abs(_dense(4, 3, 0, np.float64)))
    err = assert_same_error("pairwise_kernels", X, metric=metric)
    assert type(err) is TypeError


def test_pairwise_kernels_callable_and_filter_params():
    X, Y = _operands("sd", "csr_matrix", np.float64)
    assert_like_sklearn(*_both("pairwise_kernels", X, Y, metric=lambda a, b: 1.0))
    assert_like_sklearn(*_both("pairwise_kernels", X, Y, metric="rbf", filter_params=True,
                               gamma=0.1, degree=3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan"])
def test_chunked_equal_sklearn(metric, mode, dtype):
    X, Y = _operands(mode, "csr_matrix", dtype, n=23)
    seen = []

    def reduce(D, start):
        seen.append(start)
        return D

    got = list(_call(mp.pairwise_distances_chunked, X, Y, metric=metric,
                     working_memory=0.0003, reduce_func=reduce))
    starts, seen[:] = list(seen), []
    want = list(_call(skp.pairwise_distances_chunked, X, Y, metric=metric,
                      working_memory=0.0003, reduce_func=reduce))
    assert starts == seen and len(got) == len(want) > 1
    for g, w in zip(got, want, strict=True):
        assert_like_sklearn(g, w)


def test_chunked_squared_and_errors():
    X, Y = _operands("ss", "csr_matrix", np.float64, n=23)
    got = np.concatenate(list(mp.pairwise_distances_chunked(X, metric="euclidean",
                                                            squared=True)))
    want = np.concatenate(list(skp.pairwise_distances_chunked(X, metric="euclidean",
                                                              squared=True)))
    assert_like_sklearn(got, want)
    for metric in ("braycurtis", "sqeuclidean"):
        with pytest.raises(TypeError, match="scipy distance metrics do not support sparse"):
            next(mp.pairwise_distances_chunked(X, Y, metric=metric))


ARGMIN_METRICS = [("euclidean", None), ("euclidean", {"squared": True}), ("l2", None),
                  ("cosine", None), ("manhattan", None), ("cityblock", None),
                  ("chebyshev", None), ("minkowski", {"p": 3}), ("braycurtis", None)]


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["ss", "sd", "ds"])
@pytest.mark.parametrize(("metric", "kw"), ARGMIN_METRICS,
                         ids=[f"{m}-{k}" for m, k in ARGMIN_METRICS])
def test_argmin_min_equal_sklearn(metric, kw, mode, dtype, axis):
    X, Y = _operands(mode, "csr_matrix", dtype, n=40, m=25, d=12)
    got = mp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw, axis=axis)
    want = skp.pairwise_distances_argmin_min(X, Y, metric=metric, metric_kwargs=kw, axis=axis)
    # float32 data: scikit-learn's float64 distances are float32 values (ulp apart)
    assert_like_sklearn(got, want, dtype)
    got1 = mp.pairwise_distances_argmin(X, Y, metric=metric, metric_kwargs=kw, axis=axis)
    assert_like_sklearn(got1, skp.pairwise_distances_argmin(X, Y, metric=metric,
                                                            metric_kwargs=kw, axis=axis))


def test_argmin_min_sqeuclidean_rejects_sparse():
    X, Y = _operands("ss", "csr_matrix", np.float64)
    assert_same_error("pairwise_distances_argmin_min", X, Y, metric="sqeuclidean")


def test_flat_names_take_sparse_too():
    X, Y = _operands("ss", "csr_matrix", np.float64)
    assert_like_sklearn(metrix.euclidean_distances(X, Y), skp.euclidean_distances(X, Y))
    assert_like_sklearn(metrix.pairwise_distances(X, Y, metric="cosine"),
                        skp.pairwise_distances(X, Y, metric="cosine"))


def test_sparse_with_a_torch_partner_computes_on_the_host():
    torch = pytest.importorskip("torch")
    X, Y = _operands("sd", "csr_matrix", np.float64)
    got = mp.euclidean_distances(X, torch.asarray(Y))
    assert_like_sklearn(got, skp.euclidean_distances(X, Y))
    got = mp.linear_kernel(torch.asarray(Y), X)
    assert_like_sklearn(got, skp.linear_kernel(Y, X))


# --- no dense copy of the input ---------------------------------------------------

N_ROWS, N_FEATURES = 1000, 20_000  # dense: 160 MB (float64)


def _large():
    X = sp.random(N_ROWS, N_FEATURES, density=2e-4, format="csr", random_state=0)
    Y = sp.random(40, N_FEATURES, density=2e-3, format="csr", random_state=1)
    return X, Y


@pytest.fixture
def no_densify(monkeypatch):
    """Record the shape of every ``toarray`` / ``todense`` of a SciPy sparse matrix."""
    calls = []
    kinds = (sp.csr_matrix, sp.csr_array, sp.csc_matrix, sp.csc_array, sp.coo_matrix,
             sp.coo_array)
    for name in ("toarray", "todense"):
        owners = {k for c in kinds for k in c.__mro__ if name in vars(k)}
        for cls in owners:
            orig = vars(cls)[name]

            def spy(self, *a, _orig=orig, **k):
                calls.append(self.shape)
                return _orig(self, *a, **k)

            monkeypatch.setattr(cls, name, spy)
    return calls


def _peak(func):
    tracemalloc.start()
    try:
        out = func()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", ["euclidean", "argmin_min", "argmin_min_dense_Y",
                                  "manhattan", "cosine"])
def test_large_sparse_input_is_never_made_dense(call, dtype, no_densify):
    X, Y = _large()
    X, Y = X.astype(dtype), Y.astype(dtype)
    funcs = {
        "euclidean": lambda: mp.euclidean_distances(X, Y),
        "argmin_min": lambda: mp.pairwise_distances_argmin_min(X, Y),
        "argmin_min_dense_Y": lambda: mp.pairwise_distances_argmin_min(X, Y.toarray()),
        "manhattan": lambda: mp.manhattan_distances(X, Y),
        "cosine": lambda: mp.cosine_similarity(X, Y),
    }
    dense_bytes = N_ROWS * N_FEATURES * np.dtype(dtype).itemsize
    out, peak = _peak(funcs[call])
    # no conversion of anything with the features' width (only the N x M products)
    assert all(shape[1] != N_FEATURES for shape in no_densify[1 if "dense_Y" in call else 0:])
    # and no allocation near a dense copy of X (the dense Y and its float64
    # copy take a few MB)
    assert peak < dense_bytes / 4, (peak, dense_bytes)
    if call.startswith("argmin"):
        idx, vals = out
        want_idx, want_vals = skp.pairwise_distances_argmin_min(X, Y)
        np.testing.assert_array_equal(idx, want_idx)
        np.testing.assert_allclose(vals, want_vals, **_tol(dtype))


def test_the_densify_check_can_fail(no_densify, monkeypatch):
    """The checks above catch an implementation that makes X dense."""
    X, Y = _large()

    def densifying(X, Y, **kw):
        return skp.euclidean_distances(X.toarray(), Y.toarray())

    monkeypatch.setattr(sparse_ops, "euclidean", densifying)
    _, peak = _peak(lambda: mp.euclidean_distances(X, Y))
    assert any(shape[1] == N_FEATURES for shape in no_densify)
    assert peak >= N_ROWS * N_FEATURES * 8 / 4
