"""``metrix.dask`` checks each partition as the one-shot functions check their
input, and raises their error (once a NaN score gave 0.889, probabilities as
labels gave accuracy 0.0 and NaN in ``y_true`` gave 0.5)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("dask.dataframe")

import metrix  # noqa: E402
import metrix.dask as md  # noqa: E402

rng = np.random.default_rng(0)
Y = rng.integers(0, 2, 40)
P = rng.random(40)


def _d(a):
    return da.from_array(a, chunks=10)


def _same_error(one_shot, on_dask, match):
    with pytest.raises(ValueError, match=match):
        one_shot()
    with pytest.raises(ValueError, match=match):
        on_dask()


def test_a_nan_score():
    s = P.copy()
    s[3] = np.nan
    _same_error(lambda: metrix.roc_auc_score(Y, s), lambda: md.roc_auc_score(_d(Y), _d(s)),
                "contains NaN")


def test_an_infinite_weight():
    w = np.ones(40)
    w[7] = np.inf
    _same_error(lambda: metrix.accuracy_score(Y, Y, sample_weight=w),
                lambda: md.accuracy_score(_d(Y), _d(Y), sample_weight=_d(w)), "infinity")


def test_probabilities_given_as_labels():
    _same_error(lambda: metrix.accuracy_score(Y, P), lambda: md.accuracy_score(_d(Y), _d(P)),
                "mix of binary and continuous")


def test_nan_in_y_true():
    y = Y.astype(float)
    y[2] = np.nan
    _same_error(lambda: metrix.roc_auc_score(y, P), lambda: md.roc_auc_score(_d(y), _d(P)),
                "contains NaN")


def test_clean_partitions_still_give_the_one_shot_value():
    assert md.roc_auc_score(_d(Y), _d(P)) == pytest.approx(metrix.roc_auc_score(Y, P))
    assert md.accuracy_score(_d(Y), _d(Y[::-1])) == pytest.approx(
        metrix.accuracy_score(Y, Y[::-1]))
