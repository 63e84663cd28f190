"""Prediction error display of a regressor: scikit-learn's, for arrays of any library."""

from __future__ import annotations

import sklearn.metrics as _skm

from ._host import host

__all__ = ["PredictionErrorDisplay"]


class PredictionErrorDisplay(_skm.PredictionErrorDisplay):
    """Prediction error visualization: :class:`sklearn.metrics.PredictionErrorDisplay`.

    It draws the targets against the predictions (or the residuals), which it
    reads on the host: arrays of any library are copied there first.

    Parameters
    ----------
    y_true : ndarray of shape (n_samples,)
        True values.
    y_pred : ndarray of shape (n_samples,)
        Predicted values.

    See Also
    --------
    metrix.r2_score : The coefficient of determination of the same values.
    """

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, kind="residual_vs_predicted",
                         subsample=1_000, random_state=None, ax=None, scatter_kwargs=None,
                         line_kwargs=None):
        """Plot the prediction error of true and predicted values (any library).

        The parameters are
        :meth:`sklearn.metrics.PredictionErrorDisplay.from_predictions`'s.

        Returns
        -------
        display : PredictionErrorDisplay
            The drawn display.
        """
        y_true, y_pred = host(y_true, y_pred)
        return super().from_predictions(
            y_true, y_pred, kind=kind, subsample=subsample, random_state=random_state, ax=ax,
            scatter_kwargs=scatter_kwargs, line_kwargs=line_kwargs)
