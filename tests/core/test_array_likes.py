"""The public edge: array-likes in, Python scalars out, mixed libraries follow y_pred.

Each case is checked against scikit-learn on the same objects.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import metrix
from metrix._core.edge import as_host_array, metric_edge, python_scalars

sk = pytest.importorskip("sklearn.metrics")
pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(0)
Y3 = RNG.integers(0, 3, 200)
P3 = np.where(RNG.random(200) < 0.7, Y3, RNG.integers(0, 3, 200))
YB = RNG.integers(0, 2, 200)
SB = np.clip(YB * 0.3 + RNG.random(200) * 0.7, 0, 1)


def _same(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif b is None:
        assert a is None
    else:
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=1e-12, atol=1e-12)


# -- pandas ------------------------------------------------------------------

@pytest.mark.parametrize("name, kwargs", [
    ("f1_score", {"average": "macro"}), ("accuracy_score", {}),
    ("confusion_matrix", {}), ("matthews_corrcoef", {}), ("cohen_kappa_score", {}),
    ("precision_recall_fscore_support", {"average": "weighted"}),
    ("classification_report", {}),
])
def test_pandas_series_labels(name, kwargs):
    yt, yp = pd.Series(Y3, name="label"), pd.Series(P3, name="pred")
    got = getattr(metrix, name)(yt, yp, **kwargs)
    want = getattr(sk, name)(yt, yp, **kwargs)
    if isinstance(want, str):
        assert got == want
    else:
        _same(got, want)


def test_pandas_scores_weights_and_dataframes():
    yt, ys, w = pd.Series(YB), pd.Series(SB), pd.Series(RNG.random(200))
    for name in ("roc_auc_score", "average_precision_score", "log_loss", "brier_score_loss"):
        assert getattr(metrix, name)(yt, ys, sample_weight=w) == pytest.approx(
            getattr(sk, name)(yt, ys, sample_weight=w), rel=1e-12)
    df_t = pd.DataFrame({"a": RNG.random(50), "b": RNG.random(50)})
    df_p = df_t + pd.DataFrame({"a": RNG.random(50), "b": RNG.random(50)})
    for mo in ("raw_values", "uniform_average", "variance_weighted"):
        _same(metrix.r2_score(df_t, df_p, multioutput=mo), sk.r2_score(df_t, df_p, multioutput=mo))
    _same(metrix.mean_squared_error(df_t, df_p), sk.mean_squared_error(df_t, df_p))
    # a multilabel indicator DataFrame
    ind_t = pd.DataFrame(RNG.integers(0, 2, (40, 3)), columns=list("xyz"))
    ind_p = pd.DataFrame(RNG.integers(0, 2, (40, 3)), columns=list("xyz"))
    _same(metrix.f1_score(ind_t, ind_p, average="samples", zero_division=0),
          sk.f1_score(ind_t, ind_p, average="samples", zero_division=0))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "boolean"])
def test_pandas_nullable(dtype):
    yt = pd.Series([1, 0, 1, 1, 0], dtype=dtype)
    yp = pd.Series([1, 0, 0, 1, 1], dtype=dtype)
    assert metrix.f1_score(yt, yp) == sk.f1_score(yt, yp)
    _same(metrix.confusion_matrix(yt, yp), sk.confusion_matrix(yt, yp))
    with_na = pd.Series([1, 0, None, 1, 0], dtype=dtype)
    for fn in ("f1_score", "accuracy_score", "roc_auc_score"):
        with pytest.raises(ValueError, match="Input y_true contains NaN"):
            getattr(sk, fn)(with_na, yp)
        with pytest.raises(ValueError, match="Input y_true contains NaN"):
            getattr(metrix, fn)(with_na, yp)
    with pytest.raises(ValueError, match="Input sample_weight contains NaN"):
        metrix.f1_score(yp, yp, sample_weight=with_na)
    with pytest.raises(ValueError, match="contains NaN"):
        metrix.mean_squared_error(with_na, yp)


def test_pandas_categorical_and_strings():
    yt = pd.Series(pd.Categorical(["cat", "dog", "cat", "bird", "dog"]))
    yp = pd.Series(pd.Categorical(["cat", "cat", "cat", "bird", "dog"]))
    for avg in ("macro", "micro", "weighted"):
        assert metrix.f1_score(yt, yp, average=avg) == pytest.approx(
            sk.f1_score(yt, yp, average=avg), rel=1e-12)
    assert metrix.f1_score(yt, yp, labels=["dog", "cat"], average=None).tolist() == \
        sk.f1_score(yt, yp, labels=["dog", "cat"], average=None).tolist()
    s_t = pd.Series(["spam", "eggs", "spam"], dtype="string")
    s_p = pd.Series(["spam", "spam", "spam"], dtype="string")
    assert metrix.precision_score(s_t, s_p, pos_label="spam") == sk.precision_score(
        s_t, s_p, pos_label="spam")


def test_pandas_index_labels_and_tuples():
    labels = pd.Index([2, 0])
    _same(metrix.confusion_matrix(Y3, P3, labels=labels),
          sk.confusion_matrix(Y3, P3, labels=labels))
    assert metrix.accuracy_score(tuple(Y3), tuple(P3)) == sk.accuracy_score(tuple(Y3), tuple(P3))


def test_pandas_not_imported_by_metrix():
    import subprocess
    import sys
    code = "import sys, metrix; assert 'pandas' not in sys.modules; " \
           "assert 'polars' not in sys.modules; assert 'scipy.sparse' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- polars ------------------------------------------------------------------

def test_polars_series():
    pl = pytest.importorskip("polars")
    yt, yp = pl.Series("y", Y3), pl.Series("p", P3)
    assert metrix.f1_score(yt, yp, average="macro") == pytest.approx(
        sk.f1_score(Y3, P3, average="macro"), rel=1e-12)
    assert metrix.roc_auc_score(pl.Series(YB), pl.Series(SB)) == pytest.approx(
        sk.roc_auc_score(YB, SB), rel=1e-12)
    with pytest.raises(ValueError, match="Input y_true contains NaN"):
        metrix.accuracy_score(pl.Series([1, None, 0]), pl.Series([1, 1, 0]))


# -- scipy.sparse --------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_matrix", "coo_matrix", "csr_array",
                                 "coo_array"])
def test_sparse_label_indicators(fmt):
    sparse = pytest.importorskip("scipy.sparse")
    make = getattr(sparse, fmt)
    yt = RNG.integers(0, 2, (30, 4))
    yp = RNG.integers(0, 2, (30, 4))
    st, sp_ = make(yt), make(yp)
    for name, kw in [("f1_score", {"average": "samples", "zero_division": 0}),
                     ("jaccard_score", {"average": "macro", "zero_division": 0}),
                     ("hamming_loss", {}), ("accuracy_score", {}),
                     ("multilabel_confusion_matrix", {}), ("zero_one_loss", {})]:
        _same(getattr(metrix, name)(st, sp_, **kw), getattr(sk, name)(st, sp_, **kw))
    scores = RNG.random((30, 4))
    for name in ("label_ranking_average_precision_score", "label_ranking_loss"):
        _same(getattr(metrix, name)(st, scores), getattr(sk, name)(st, scores))
    # scikit-learn's coverage_error takes dense input only; metrix takes both
    _same(metrix.coverage_error(st, scores), sk.coverage_error(yt, scores))


# -- return types ----------------------------------------------------------------

SCALAR_CASES = {
    "binary": (YB, (SB > 0.5).astype(int)),
    "scores": (YB, SB),
    "regression": (SB, SB[::-1].copy()),
}
YML = (RNG.random((200, 4)) < 0.4).astype(int)  # label indicator, every row one label
YML[np.arange(200), RNG.integers(0, 4, 200)] = 1
SML = RNG.random((200, 4))
X2 = RNG.random((200, 3)) + Y3[:, None]  # features for the clustering scores
MAP_T, MAP_P = Y3.reshape(8, 25), P3.reshape(8, 25)  # label maps (N, W)
#: ``(args, kwargs)`` of the public functions that take none of SCALAR_CASES as they are
CALLS = {
    "auc": ((np.sort(SB), SB), {}),
    "calinski_harabasz_score": ((X2, Y3), {}),
    "davies_bouldin_score": ((X2, Y3), {}),
    "silhouette_samples": ((X2, Y3), {}),
    "silhouette_score": ((X2, Y3), {}),
    "euclidean_distances": ((X2,), {}),
    "nan_euclidean_distances": ((X2,), {}),
    "consensus_score": (((np.eye(3, 5, dtype=bool), np.eye(3, 4, dtype=bool)),
                         (np.eye(2, 5, dtype=bool), np.eye(2, 4, dtype=bool))), {}),
    "pairwise_distances": ((X2,), {}),
    "pairwise_kernels": ((X2,), {}),
    "pairwise_distances_chunked": ((X2,), {}),
    "pairwise_distances_argmin_min": ((X2, X2[:7]), {}),
    "pairwise_distances_argmin": ((X2, X2[:7]), {}),
    "coverage_error": ((YML, SML), {}),
    "label_ranking_average_precision_score": ((YML, SML), {}),
    "label_ranking_loss": ((YML, SML), {}),
    "dcg_score": ((YML, SML), {}),
    "ndcg_score": ((YML, SML), {}),
    "classification_report_at_k": ((YML, SML), {"k": 2}),
    "precision_recall_fscore_at_k": ((YML, SML), {"k": 2}),
    "fbeta_score": (SCALAR_CASES["binary"], {"beta": 2.0}),
    "metric_at_thresholds": ((YB, SB, sk.f1_score), {}),
    "recall_at_fixed_precision": ((YB, SB), {"min_precision": 0.5}),
    "precision_at_fixed_recall": ((YB, SB), {"min_recall": 0.5}),
    "sensitivity_at_specificity": ((YB, SB), {"min_specificity": 0.5}),
    "specificity_at_sensitivity": ((YB, SB), {"min_sensitivity": 0.5}),
    "ranked_to_scores": ((np.argsort(-SML, axis=1)[:, :2], 4), {}),
    "dice_score": ((MAP_T, MAP_P), {}),
    "generalized_dice_score": ((MAP_T, MAP_P), {}),
    "mean_iou": ((MAP_T, MAP_P), {}),
    "pixel_accuracy": ((MAP_T, MAP_P), {}),
    # strictly positive predictions
    "mean_gamma_deviance": (SCALAR_CASES["regression"], {}),
    "mean_poisson_deviance": (SCALAR_CASES["regression"], {}),
}


def _public_functions():
    return sorted(n for n in metrix.__all__
                  if inspect.isfunction(getattr(metrix, n))
                  and getattr(getattr(metrix, n), "__metrix_edge__", False))


def test_every_public_metric_has_the_edge():
    missing = [n for n in metrix.__all__ if inspect.isfunction(getattr(metrix, n))
               and not getattr(getattr(metrix, n), "__metrix_edge__", False)]
    # evaluate and bootstrap convert their own inputs; the scorers are scikit-learn's
    assert set(missing) == {"evaluate", "bootstrap", "make_scorer", "get_scorer",
                            "get_scorer_names", "check_scoring"}


@pytest.mark.parametrize("name", _public_functions())
def test_numpy_inputs_give_python_floats(name):
    # each function gets one call it takes: an error is a failure, never a skip
    fn = getattr(metrix, name)
    ref = getattr(sk, name, None)
    args, kwargs = CALLS.get(name, (SCALAR_CASES["binary"], {}))
    got = fn(*args, **kwargs)
    assert not isinstance(got, np.generic), (name, type(got))
    if isinstance(got, np.ndarray):
        assert got.ndim > 0
    if isinstance(got, tuple):
        assert all(not isinstance(v, np.generic) for v in got)
    if ref is not None and isinstance(got, float):
        assert type(ref(*args, **kwargs)) is float


def test_other_libraries_keep_0d_arrays():
    torch = pytest.importorskip("torch")
    out = metrix.f1_score(torch.tensor(YB), torch.tensor(YB))
    assert isinstance(out, torch.Tensor) and out.ndim == 0
    p, r, f, s = metrix.precision_recall_fscore_support(torch.tensor(Y3), torch.tensor(P3),
                                                        average="macro")
    assert all(isinstance(v, torch.Tensor) for v in (p, r, f)) and s is None


def test_python_scalars_helper():
    assert type(python_scalars(np.float32(0.5))) is float
    assert type(python_scalars(np.int64(3))) is int
    assert type(python_scalars(np.array(2.0))) is float
    assert python_scalars((np.float64(1.0), None, np.arange(2)))[1] is None
    assert isinstance(python_scalars(np.arange(3)), np.ndarray)


# -- mixed libraries -------------------------------------------------------------

def test_mixed_libraries_follow_y_pred():
    torch = pytest.importorskip("torch")
    xps = pytest.importorskip("array_api_strict")
    yt = xps.asarray(YB)
    w = xps.asarray(RNG.random(200))
    out = metrix.roc_auc_score(yt, torch.tensor(SB), sample_weight=w)
    assert isinstance(out, torch.Tensor)
    assert float(out) == pytest.approx(sk.roc_auc_score(YB, SB, sample_weight=np.asarray(w)))
    cm = metrix.confusion_matrix(torch.tensor(Y3), xps.asarray(P3))
    assert type(cm).__module__.startswith("array_api_strict")
    np.testing.assert_array_equal(np.asarray(cm), sk.confusion_matrix(Y3, P3))
    # NumPy and lists follow any library, as before
    out = metrix.mean_squared_error(SB.tolist(), torch.tensor(SB[::-1].copy()))
    assert isinstance(out, torch.Tensor)


def test_move_impossible_is_a_clear_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="String or object labels"):
        metrix.f1_score(np.array(["a", "b"]), torch.tensor([0, 1]))


# -- the edge itself -------------------------------------------------------------

def test_edge_keeps_signature_and_docs():
    assert inspect.signature(metrix.f1_score).parameters["average"].default == "binary"
    assert "F1 score" in metrix.f1_score.__doc__
    assert metrix.precision_score.__wrapped__.__name__ == "precision_score"


def test_as_host_array_passes_arrays_through():
    a = np.arange(3)
    assert as_host_array(a) is a
    assert as_host_array([1, 2]) == [1, 2]

    @metric_edge
    def echo(y_true, y_pred=None):
        return y_true

    class Column:  # any object with __array__, as scikit-learn's MockDataFrame
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None, copy=None):
            return np.asarray(self.a, dtype=dtype)

        def __len__(self):
            return len(self.a)

    out = echo(Column([1, 2, 3]))
    assert isinstance(out, np.ndarray) and out.tolist() == [1, 2, 3]


def test_warnings_point_at_the_caller():
    import warnings
    calls = [lambda: metrix.f1_score([0, 0], [0, 0]),
             lambda: metrix.confusion_matrix([0, 0], [0, 0]),
             lambda: metrix.log_loss([0, 1], [[0.6, 0.6], [0.4, 0.6]]),
             lambda: metrix.r2_score([1.0], [2.0])]
    for call in calls:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            call()
        assert rec and all(w.filename == __file__ for w in rec), [
            (w.filename, str(w.message)) for w in rec]
