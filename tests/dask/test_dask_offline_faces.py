"""``metrix.dask`` checks the whole data as the one-shot functions check it.

The conformance rows (``conformance/cases_offline_faces.py``) found these: all-zero
weights gave NaN, 0.0 or 1.0; a continuous ``y_true`` gave a ROC AUC, an average
precision or a log loss; a ``pos_label`` that is no label gave 0.0; jaccard took
``zero_division=nan``; kappa's ``labels`` absent from ``y1`` gave NaN; string labels
gave a Brier score without ``pos_label``.  Each is now the one-shot's ValueError.
The last tests are bugs of the shared host states (``metrix/evaluation``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import pandas as pd  # noqa: E402
from sklearn import metrics as skm  # noqa: E402

import metrix  # noqa: E402
import metrix.dask as md  # noqa: E402

rng = np.random.default_rng(1)
N = 40
Y = rng.integers(0, 2, N)
YP = np.where(rng.random(N) < 0.7, Y, 1 - Y)
P = np.round(rng.random(N), 2)
YR = rng.normal(size=N)
PR = YR + rng.normal(size=N)
ZERO = np.zeros(N)


def _d(a):
    return da.from_array(a, chunks=((5, 0, 20, 15),) + a.shape[1:])


def _same_error(name, args, match, **kw):
    """The one-shot function and ``metrix.dask``'s raise a ValueError matching ``match``."""
    with pytest.raises(ValueError, match=match):
        getattr(metrix, name)(*args, **kw)
    dkw = {k: (_d(v) if k == "sample_weight" else v) for k, v in kw.items()}
    with pytest.raises(ValueError, match=match):
        getattr(md, name)(*(_d(a) for a in args), **dkw)


@pytest.mark.parametrize("name, args", [
    ("accuracy_score", (Y, YP)), ("f1_score", (Y, YP)), ("cohen_kappa_score", (Y, YP)),
    ("roc_auc_score", (Y, P)), ("average_precision_score", (Y, P)), ("log_loss", (Y, P)),
    ("brier_score_loss", (Y, P)), ("mean_squared_error", (YR, PR)), ("r2_score", (YR, PR)),
])
def test_all_zero_weights_raise(name, args):
    _same_error(name, args, "at least one non-zero", sample_weight=ZERO)


def test_all_zero_weights_raise_on_the_groupby_table_too():
    df = dd.from_pandas(pd.DataFrame({"y": Y, "s": P, "w": ZERO}), npartitions=3)
    for fn in (md.roc_auc_score, md.average_precision_score):
        with pytest.raises(ValueError, match="at least one non-zero"):
            fn(df.y, df.s, sample_weight=df.w, table="groupby")
    with pytest.raises(ValueError, match="at least one non-zero"):
        md.evaluate(df, "y", "y", "s", "w", metrics=["accuracy", "roc_auc"], table="groupby")


@pytest.fixture
def one_thread():
    """Dask's synchronous scheduler, for the tests that catch a warning.

    ``warnings.catch_warnings`` is not thread-safe: a pandas task that enters and
    leaves it in a scheduler thread can leave its ``ignore`` filter behind in the
    main thread (seen once in CI), so that the warning metrix gives after the
    compute is filtered out before ``pytest.warns`` sees it.
    """
    with dask.config.set(scheduler="synchronous"):
        yield


def test_one_class_on_the_groupby_table_is_nan_with_a_warning(one_thread):
    df = dd.from_pandas(pd.DataFrame({"y": np.ones(N, np.int64), "s": P}), npartitions=3)
    with pytest.warns(Warning, match="Only one class is present"):
        assert np.isnan(md.roc_auc_score(df.y, df.s, table="groupby"))


@pytest.mark.parametrize("name, args, kw, match", [
    ("average_precision_score", (P, P), {}, "continuous"),
    ("average_precision_score", (Y + 0.5, P), {"pos_label": 1.5}, "continuous"),
    ("average_precision_score", (rng.integers(0, 3, N), P), {}, "classes"),
    ("average_precision_score", (Y, P), {"pos_label": 3}, "not a valid label"),
    ("roc_auc_score", (Y + 0.5, P), {}, "continuous format is not supported"),
    ("log_loss", (Y + 0.5, P), {}, "Unknown label type: continuous"),
    ("f1_score", (Y, P), {}, "mix of binary and continuous"),
    ("jaccard_score", (Y, YP), {"zero_division": np.nan}, "zero_division"),
    ("cohen_kappa_score", (Y, YP), {"labels": [7, 8]}, "At least one label"),
    ("brier_score_loss", (np.array(["a", "b"])[Y], P), {}, "pos_label is not specified"),
])
def test_bad_targets_raise_the_one_shot_error(name, args, kw, match):
    if name == "average_precision_score" and match == "classes":
        with pytest.raises(ValueError):
            metrix.average_precision_score(*args, **kw)
        with pytest.raises(ValueError, match=match):
            md.average_precision_score(*(_d(a) for a in args), **kw)
        return
    _same_error(name, args, match, **kw)


def test_the_checks_keep_the_values():
    s = np.array(["a", "b"])[Y]
    assert md.brier_score_loss(_d(s), _d(P), pos_label="b") == pytest.approx(
        skm.brier_score_loss(s, P, pos_label="b"))
    assert md.brier_score_loss(_d(Y + 1), _d(P)) == pytest.approx(
        skm.brier_score_loss(Y + 1, P))
    assert md.average_precision_score(_d(Y + 1), _d(P), pos_label=2) == pytest.approx(
        skm.average_precision_score(Y + 1, P, pos_label=2))
    w = rng.random(N)
    w[::3] = 0
    assert md.cohen_kappa_score(_d(Y), _d(YP), labels=[0, 1, 7], sample_weight=_d(w)) == \
        pytest.approx(skm.cohen_kappa_score(Y, YP, labels=[0, 1, 7], sample_weight=w))


def test_the_whole_data_checks_cost_no_extra_pass(monkeypatch):
    """The distinct labels and the weights' flag are computed with the metrics (one
    ``dask.compute``; a first pass only where the labels are needed, as before)."""
    import dask

    calls = []
    compute = dask.compute

    def counting(*args, **kwargs):
        calls.append(1)
        return compute(*args, **kwargs)

    monkeypatch.setattr(dask, "compute", counting)
    w = rng.random(N)
    md.average_precision_score(_d(Y), _d(P), sample_weight=_d(w))   # pos_label given
    assert len(calls) == 1
    md.roc_auc_score(_d(Y), _d(P), sample_weight=_d(w))             # labels found first
    assert len(calls) == 3


# -- bugs of the shared host states (metrix/evaluation/partial.py, score_table.py) --------

def test_roc_auc_of_one_class_is_nan():
    y = np.ones(N, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(metrix.roc_auc_score(y, P))
        assert np.isnan(md.roc_auc_score(_d(y), _d(P)))


def test_r2_of_one_sample_is_nan(one_thread):
    one = {"chunks": ((0, 1, 0),)}   # one sample among empty partitions
    with pytest.warns(UserWarning, match="less than two samples"):
        value = md.r2_score(da.from_array(YR[:1], **one), da.from_array(PR[:1], **one))
    assert np.isnan(value)


def test_brier_score_of_one_class():
    y = np.ones(N, np.int64)
    assert md.brier_score_loss(_d(y), _d(P)) == pytest.approx(skm.brier_score_loss(y, P))
