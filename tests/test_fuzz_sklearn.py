"""Property test: metrix == scikit-learn on small random inputs and keyword choices.

Hypothesis draws the data (lengths 1-60; binary, multiclass, negative, huge,
string and float-coded labels; multilabel indicators; weights with zeros, or
None) and the keywords (every ``average``, ``labels`` subsets with absent
labels, ``zero_division``, ``multioutput``, ...).  For every draw, either both
libraries raise (the same exception family: ``ValueError`` / ``TypeError``)
or their results agree to 1e-9 (NaN == NaN; arrays and tuples elementwise).
Warnings are not compared (both libraries warn alike; other tests check them).

``METRIX_FUZZ_EXAMPLES`` sets the examples per test (default 300; e.g. 2000 to
hunt for discrepancies) and ``METRIX_FUZZ_MESSAGES=1`` also compares the text
of the errors.
"""

from __future__ import annotations

import copy
import os
import warnings

import numpy as np
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrix

SETTINGS = settings(
    max_examples=int(os.environ.get("METRIX_FUZZ_EXAMPLES", "300")), deadline=None,
    derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
CHECK_MESSAGES = os.environ.get("METRIX_FUZZ_MESSAGES") == "1"
TOL = 1e-9

# -- comparison -----------------------------------------------------------------


def _call(fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # a copy each: neither library sees what the other may have written
            return fn(*copy.deepcopy(args), **copy.deepcopy(kwargs)), None
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            return None, exc


def _families(exc):
    return {c for c in (ValueError, TypeError) if isinstance(exc, c)} or {type(exc)}


def _assert_same(want, got, where="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got!r}"
        for i, (a, b) in enumerate(zip(want, got)):
            _assert_same(a, b, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), f"{where}: {got!r}"
        for key in want:
            _assert_same(want[key], got[key], f"{where}[{key!r}]")
    elif want is None or isinstance(want, str):
        assert got == want, f"{where}: {got!r} != {want!r}"
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{where}: {type(got)} is not an ndarray"
        assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
        if want.dtype.kind in "biuf":
            np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    else:  # a number: a Python float / int for NumPy inputs, as scikit-learn
        assert isinstance(got, (float, int)), f"{where}: {type(got)} is not a Python number"
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=where)


#: scikit-learn's own errors on old NumPy (the minimum-versions leg), not input
#: errors: scikit-learn 1.9 on NumPy 1.x raises this internal TypeError for
#: average_precision_score of one string class, where on NumPy 2 it returns the
#: value metrix gives; such a draw is not compared
UPSTREAM_ERRORS = ("Input should have at least 1 dimension",)


def check(name, *args, **kwargs):
    """Call ``name`` in both libraries with the same arguments; same outcome."""
    want, want_exc = _call(getattr(skm, name), args, kwargs)
    got, got_exc = _call(getattr(metrix, name), args, kwargs)
    call = f"{name}(*{args!r}, **{kwargs!r})"
    if want_exc is not None and any(e in str(want_exc) for e in UPSTREAM_ERRORS):
        return
    if want_exc is not None or got_exc is not None:
        assert want_exc is not None, f"{call}: metrix raised {got_exc!r}, sklearn gave {want!r}"
        assert got_exc is not None, f"{call}: sklearn raised {want_exc!r}, metrix gave {got!r}"
        assert _families(want_exc) & _families(got_exc), (
            f"{call}: sklearn raised {want_exc!r}, metrix {got_exc!r}")
        if CHECK_MESSAGES:
            assert str(got_exc) == str(want_exc), f"{call}: {got_exc!r} != {want_exc!r}"
        return
    _assert_same(want, got, call)


# -- labels ---------------------------------------------------------------------

#: label pools, with labels that never occur in the data (for ``labels=``, ``pos_label``)
POOLS = {
    "binary": ([0, 1], [2]),
    "multiclass": ([0, 1, 2, 3, 4], [7]),
    "negative": ([-2, -1, 0, 1], [5]),
    "huge": ([10**12, 10**12 + 1, -(10**12), 3], [10**12 + 7]),
    "string": (["a", "b", "c", "d"], ["z"]),
    "float": ([0.0, 1.0, 2.0], [3.0]),
    "bool": ([False, True], []),
}
ZERO_DIVISION = st.sampled_from(["warn", 0.0, 1.0, np.nan])
AVERAGES = st.sampled_from([None, "binary", "micro", "macro", "weighted", "samples"])
WEIGHT_VALUES = st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 3.0, 0.1, 1.7])


#: signed weights: dyadic, so that sums cancel exactly (a class's weights summing to 0)
SIGNED_WEIGHT_VALUES = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, -0.5, -1.0, -2.0])


def weights(n, values=WEIGHT_VALUES):
    """None, or ``n`` weights with zeros (sometimes all zero)."""
    return st.one_of(st.none(), st.lists(values, min_size=n, max_size=n).map(
        lambda w: np.asarray(w, dtype=float)))


def _array(values, pool):
    return np.asarray(values, dtype=np.asarray(pool).dtype)


@st.composite
def label_pair(draw, kinds=tuple(POOLS)):
    """(kind, pool, absent, y_true, y_pred): labels from one pool, n in 1..60."""
    kind = draw(st.sampled_from(kinds))
    pool, absent = POOLS[kind]
    n = draw(st.integers(1, 60))
    classes_true = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
    classes_pred = draw(st.one_of(st.just(classes_true),
                                  st.lists(st.sampled_from(pool), min_size=1, unique=True)))
    yt = draw(st.lists(st.sampled_from(classes_true), min_size=n, max_size=n))
    yp = draw(st.lists(st.sampled_from(classes_pred), min_size=n, max_size=n))
    return kind, pool, absent, _array(yt, pool), _array(yp, pool)


@st.composite
def multilabel_pair(draw):
    """(kind, pool, absent, y_true, y_pred): (n, L) 0/1 indicator matrices."""
    n, n_labels = draw(st.integers(1, 60)), draw(st.integers(2, 4))
    cells = st.lists(st.integers(0, 1), min_size=n * n_labels, max_size=n * n_labels)
    yt = np.asarray(draw(cells)).reshape(n, n_labels)
    yp = np.asarray(draw(cells)).reshape(n, n_labels)
    return "multilabel", list(range(n_labels)), [n_labels, -1], yt, yp


def labels_arg(pool, absent):
    """None, or a list of labels (a subset, maybe with absent ones, maybe empty)."""
    return st.one_of(st.none(), st.lists(st.sampled_from(pool + absent), unique=True,
                                         max_size=len(pool) + 1))


LABEL_METRICS = [
    "accuracy_score", "precision_score", "recall_score", "f1_score", "fbeta_score",
    "precision_recall_fscore_support", "jaccard_score", "confusion_matrix",
    "multilabel_confusion_matrix", "balanced_accuracy_score", "matthews_corrcoef",
    "cohen_kappa_score", "hamming_loss", "zero_one_loss",
]
PRF_LIKE = {"precision_score", "recall_score", "f1_score", "fbeta_score",
            "precision_recall_fscore_support", "jaccard_score"}


@st.composite
def label_case(draw):
    name = draw(st.sampled_from(LABEL_METRICS))
    kind, pool, absent, yt, yp = draw(st.one_of(label_pair(), multilabel_pair()))
    kw = {"sample_weight": draw(weights(len(yt)))}
    labels = draw(labels_arg(pool, absent))
    if name in ("accuracy_score", "zero_one_loss"):
        kw["normalize"] = draw(st.booleans())
    elif name in PRF_LIKE:
        kw["labels"] = labels
        kw["average"] = draw(AVERAGES)
        kw["zero_division"] = draw(ZERO_DIVISION)
        if draw(st.booleans()):
            kw["pos_label"] = draw(st.sampled_from(pool + absent))
        if name in ("fbeta_score", "precision_recall_fscore_support"):
            kw["beta"] = draw(st.sampled_from([0.5, 1.0, 2.0, 0.0]))
    elif name == "confusion_matrix":
        kw["labels"] = labels
        kw["normalize"] = draw(st.sampled_from([None, "true", "pred", "all"]))
    elif name == "multilabel_confusion_matrix":
        kw["labels"] = labels
        kw["samplewise"] = draw(st.booleans())
    elif name == "balanced_accuracy_score":
        kw["adjusted"] = draw(st.booleans())
    elif name == "cohen_kappa_score":
        kw["labels"] = labels
        kw["weights"] = draw(st.sampled_from([None, "linear", "quadratic"]))
        kw["replace_undefined_by"] = draw(st.sampled_from([np.nan, 0.0, -1.0]))
    if kw.get("labels") is not None:
        kw["labels"] = _array(kw["labels"], pool) if kw["labels"] else []
    sw = kw["sample_weight"]
    if name in ("confusion_matrix", "cohen_kappa_score") and kw.get("labels") is not None \
            and len(kw["labels"]) and sw is not None and yt.ndim == 1 \
            and not np.isin(yt[sw != 0], kw["labels"]).any():
        # Excluded (reported): the given labels occur in y_true only where the weight
        # is 0: scikit-learn counts them as present (a zero matrix / NaN kappa),
        # metrix raises "At least one label specified must be in y_true".
        kw["sample_weight"] = None
    return name, yt, yp, kw


@SETTINGS
@given(label_case())
def test_label_metrics_match_sklearn(case):
    name, yt, yp, kw = case
    check(name, yt, yp, **kw)


# -- probabilities: log_loss, Brier -------------------------------------------------

@st.composite
def proba_rows(draw, n, c):
    """``(n, c)`` probabilities, rows normalised (zeros and ties included)."""
    cells = draw(st.lists(st.sampled_from([0, 0, 1, 1, 2, 3, 5, 0.3]),
                          min_size=n * c, max_size=n * c))
    p = np.asarray(cells, dtype=float).reshape(n, c)
    p[p.sum(axis=1) == 0] = 1.0
    return p / p.sum(axis=1, keepdims=True)


@st.composite
def proba_case(draw):
    name = draw(st.sampled_from(["log_loss", "brier_score_loss", "d2_log_loss_score",
                                 "d2_brier_score"]))
    kind, pool, absent, yt, _ = draw(label_pair())
    n = len(yt)
    labels = draw(labels_arg(pool, absent))
    n_classes = len(labels) if labels else len(np.unique(yt))
    n_columns = draw(st.sampled_from([n_classes] * 4 + [n_classes + 1, 1]))
    proba = draw(proba_rows(n, max(n_columns, 1)))
    if n_columns <= 2 and draw(st.booleans()):
        proba = proba[:, -1]  # the positive class's column, 1-D
    kw = {"sample_weight": draw(weights(n))}
    if name.startswith("d2_") and kw["sample_weight"] is not None:
        # Excluded: a constant (binarized) y_true with weights such as 0.1: the null
        # model's loss is 0 only in exact arithmetic; scikit-learn's is rounding noise
        # (so its D^2 is 1.0 or -1e32 where metrix's is NaN or -inf). Quarter
        # weights make every sum exact.
        kw["sample_weight"] = np.ceil(kw["sample_weight"] * 4) / 4
    if labels is not None:
        kw["labels"] = _array(labels, pool) if labels else []
    if name == "log_loss":
        kw["normalize"] = draw(st.booleans())
    if name in ("brier_score_loss", "d2_brier_score") and draw(st.booleans()):
        kw["pos_label"] = draw(st.sampled_from(pool + absent))
    if name == "brier_score_loss":
        kw["scale_by_half"] = draw(st.sampled_from(["auto", True, False]))
    return name, yt, proba, kw


@SETTINGS
@given(proba_case())
def test_probabilistic_losses_match_sklearn(case):
    name, yt, proba, kw = case
    check(name, yt, proba, **kw)


# -- scores: ROC AUC, average precision, top-k ----------------------------------------

SCORE_VALUES = st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.0, -1.5, 0.25, 0.7, 10.0])


@st.composite
def score_case(draw):
    name = draw(st.sampled_from(["roc_auc_score", "average_precision_score",
                                 "top_k_accuracy_score"]))
    layout = draw(st.sampled_from(["binary", "binary", "multiclass", "multilabel"]))
    if layout == "multilabel":
        _, pool, absent, yt, _ = draw(multilabel_pair())
    else:
        kinds = tuple(POOLS) if layout == "multiclass" else tuple(
            k for k in POOLS if len(POOLS[k][0]) <= 4 and k != "multiclass")
        _, pool, absent, yt, _ = draw(label_pair(kinds))
    n = len(yt)
    n_classes = yt.shape[1] if yt.ndim == 2 else max(len(np.unique(yt)), 2)
    if layout == "multiclass" and name == "roc_auc_score":  # probabilities, rows sum to 1
        scores = draw(proba_rows(n, n_classes))
    else:  # scores with ties
        shape = (n,) if layout == "binary" else (n, n_classes)
        cells = draw(st.lists(SCORE_VALUES, min_size=int(np.prod(shape)),
                              max_size=int(np.prod(shape))))
        scores = np.asarray(cells, dtype=float).reshape(shape)
    # signed weights for AP only: with them scikit-learn's ROC curve stops being monotonic
    # and its auc() raises "x is neither increasing nor decreasing" (not reproduced)
    signed = name == "average_precision_score" and draw(st.booleans())
    kw = {"sample_weight": draw(weights(n, SIGNED_WEIGHT_VALUES if signed else WEIGHT_VALUES))}
    if name == "roc_auc_score":
        kw["average"] = draw(st.sampled_from(["micro", "macro", "samples", "weighted", None]))
        kw["max_fpr"] = draw(st.sampled_from([None, None, 0.5, 1.0]))
        if layout == "multiclass":
            kw["multi_class"] = draw(st.sampled_from(["ovr", "ovo", "raise"]))
    elif name == "average_precision_score":
        kw["average"] = draw(st.sampled_from(["micro", "macro", "samples", "weighted", None]))
        if layout == "binary" and draw(st.booleans()):
            kw["pos_label"] = draw(st.sampled_from(pool + absent))
    else:
        kw["k"] = draw(st.integers(1, n_classes + 1))
        kw["normalize"] = draw(st.booleans())
    if layout == "multiclass" and name != "average_precision_score" and draw(st.booleans()):
        labels = draw(labels_arg(pool, absent))
        if labels is not None:
            kw["labels"] = _array(labels, pool) if labels else []
    return name, yt, scores, kw


@SETTINGS
@given(score_case())
def test_ranking_scores_match_sklearn(case):
    name, yt, scores, kw = case
    check(name, yt, scores, **kw)


# -- regression ---------------------------------------------------------------------

#: values: quarters (exact sums) and three-decimal numbers
GRID = st.integers(-40, 40).map(lambda i: i / 4)


def decimals(lo, hi):
    return st.floats(lo, hi).map(lambda x: min(max(round(x, 3), lo), hi))


def positive(hi):
    return st.one_of(st.integers(1, 40).map(lambda i: i / 4), decimals(0.001, hi))

MULTIOUTPUT = ["raw_values", "uniform_average", "variance_weighted", None]
REGRESSION = {
    # name: (takes multioutput, extra keyword strategies)
    "mean_squared_error": (True, {}),
    "root_mean_squared_error": (True, {}),
    "mean_squared_log_error": (True, {}),
    "root_mean_squared_log_error": (True, {}),
    "mean_absolute_error": (True, {}),
    "median_absolute_error": (True, {}),
    "mean_absolute_percentage_error": (True, {}),
    "max_error": (False, {}),
    "mean_pinball_loss": (True, {"alpha": st.sampled_from([0.5, 0.1, 0.9, 0.0, 1.0])}),
    "r2_score": (True, {"force_finite": st.booleans()}),
    "explained_variance_score": (True, {"force_finite": st.booleans()}),
    "d2_absolute_error_score": (True, {}),
    "d2_pinball_score": (True, {"alpha": st.sampled_from([0.5, 0.1, 0.9, 0.0, 1.0])}),
    "d2_tweedie_score": (False, {"power": st.sampled_from([0, -1, 1, 1.5, 2, 3, 0.5])}),
    "mean_tweedie_deviance": (False, {"power": st.sampled_from([0, -1, 1, 1.5, 2, 3, 0.5])}),
    "mean_poisson_deviance": (False, {}),
    "mean_gamma_deviance": (False, {}),
}
TWEEDIE = {"d2_tweedie_score", "mean_tweedie_deviance", "mean_poisson_deviance",
           "mean_gamma_deviance"}
POWER = {"mean_poisson_deviance": 1, "mean_gamma_deviance": 2}


@st.composite
def regression_case(draw):
    name = draw(st.sampled_from(sorted(REGRESSION)))
    takes_multioutput, extra = REGRESSION[name]
    kw = {key: draw(s) for key, s in extra.items()}
    n = draw(st.integers(1, 60))
    k = draw(st.sampled_from([None, 1, 2, 3]))
    shape = (n,) if k is None else (n, k)
    size = int(np.prod(shape))
    # tweedie family: the valid domain of its power (mostly), or any values
    power = kw.get("power", POWER.get(name))
    valid = draw(st.integers(0, 9)) > 0
    # Values up to 1000; up to 10 for a power < 0, whose deviance sums terms of
    # order |y|^(2 - power) that cancel (1e9 at 1000 for power -1: both libraries then
    # lose 7 digits, each its own)
    hi = 10 if name in TWEEDIE and power < 0 else 1000
    true_values = pred_values = st.one_of(GRID, decimals(-hi, hi))
    if name in TWEEDIE and valid and power != 0:
        pred_values = positive(hi)
        if power >= 2:
            true_values = positive(hi)
        elif power >= 1:
            true_values = st.one_of(st.just(0.0), positive(hi))
    yt = np.asarray(draw(st.lists(true_values, min_size=size, max_size=size))).reshape(shape)
    yp = np.asarray(draw(st.lists(pred_values, min_size=size, max_size=size))).reshape(shape)
    sw = draw(weights(n))
    # A constant column of y_true has zero variance only in exact arithmetic: a weighted
    # mean of 3-decimal values is off by an ulp, and both libraries then divide rounding
    # noise by rounding noise (each its own noise). Constant columns are quarters here,
    # with quarter weights, so every sum is exact.
    columns = yt.reshape(n, -1)
    if n > 1 and (columns == columns[:1]).all(axis=0).any():
        yt, yp = (np.ceil(a * 4) / 4 for a in (yt, yp))
        if sw is not None:
            sw = np.ceil(sw * 4) / 4
    if draw(st.booleans()):  # integer inputs where the values allow
        yt, yp = (a.astype(np.int64) if (a == np.round(a)).all() else a for a in (yt, yp))
    kw["sample_weight"] = sw
    if takes_multioutput:
        n_out = 1 if k is None else k
        kw["multioutput"] = draw(st.one_of(
            st.sampled_from(MULTIOUTPUT),
            st.lists(WEIGHT_VALUES, min_size=n_out, max_size=n_out).map(np.asarray),
            st.just(np.zeros(n_out)),
            st.lists(WEIGHT_VALUES, min_size=n_out + 1, max_size=n_out + 1).map(np.asarray)))
        if kw["multioutput"] is None and draw(st.booleans()):
            del kw["multioutput"]
    if name == "d2_tweedie_score" and power not in (0, 1, 2) and n > 1 \
            and (yt == yt.flat[0]).all():
        # Excluded: a constant y_true for a power other than 0, 1, 2: the null deviance
        # is exactly 0 in metrix (ZeroDivisionError, as scikit-learn's 0 division);
        # scikit-learn's three-term formula sometimes leaves rounding noise (a D^2 of
        # 1.8e18 for y_true=[0.5, 0.5], y_pred=[4.5, 0.5], power=-1)
        yt = yt + np.arange(n).reshape((n,) + (1,) * (yt.ndim - 1)) / 4
    if "sample_weight" in kw and name == "max_error":
        del kw["sample_weight"]
    return name, yt, yp, kw


@SETTINGS
@given(regression_case())
def test_regression_metrics_match_sklearn(case):
    name, yt, yp, kw = case
    check(name, yt, yp, **kw)


def test_explained_variance_one_sample_with_weights():
    """One weighted sample: both variances are the same rounding noise in both
    libraries (the mean of the differences, not the difference of the means)."""
    yt, yp, w = np.array([[-1.0, 2.0, -0.0]]), np.array([[-0.43, -0.74, 0.25]]), [4.86]
    for multioutput in ("raw_values", "uniform_average", "variance_weighted"):
        check("explained_variance_score", yt, yp, sample_weight=w, multioutput=multioutput)
    yt, yp = np.array([[0.12573022, -0.13210486, 0.64042265]]), np.array([[0.1, -0.5, 0.3]])
    check("explained_variance_score", yt, yp, sample_weight=[3.03317888],
          multioutput="raw_values")
