"""Weights with negatives that sum to zero: scikit-learn's weighted means raise
``ZeroDivisionError`` (once metrix gave -inf, inf or NaN with only a
RuntimeWarning); its weighted median does not."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix

YT = np.array([1.0, 2.0, 3.0, 4.0])
YP = np.array([1.5, 2.0, 2.0, 5.0])
W = np.array([1.0, -1.0, 0.0, 0.0])
MEANS = ["mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
         "mean_squared_log_error", "mean_absolute_percentage_error", "r2_score",
         "explained_variance_score", "mean_pinball_loss", "d2_absolute_error_score",
         "mean_poisson_deviance", "mean_tweedie_deviance", "mean_gamma_deviance"]


@pytest.mark.parametrize("name", MEANS)
def test_weighted_means_refuse_weights_that_sum_to_zero(name):
    with pytest.raises(ZeroDivisionError):
        getattr(skm, name)(YT, YP, sample_weight=W)
    with pytest.raises(ZeroDivisionError, match="sum to zero"):
        getattr(metrix, name)(YT, YP, sample_weight=W)


def test_the_weighted_median_takes_them():
    assert metrix.median_absolute_error(YT, YP, sample_weight=W) == pytest.approx(
        skm.median_absolute_error(YT, YP, sample_weight=W))
