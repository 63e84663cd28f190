"""Calibration (reliability) display: scikit-learn's, the curve from
:func:`metrix.calibration_curve`."""

from __future__ import annotations

import sklearn.calibration as _skc

from ..classification import calibration as _calibration
from ._host import host

__all__ = ["CalibrationDisplay"]


class CalibrationDisplay(_skc.CalibrationDisplay):
    """Calibration curve visualization: :class:`sklearn.calibration.CalibrationDisplay`,
    the curve from :func:`metrix.calibration_curve`.

    Parameters
    ----------
    prob_true : ndarray of shape (n_bins,)
        The fraction of positives in each bin.
    prob_pred : ndarray of shape (n_bins,)
        The mean predicted probability in each bin.
    y_prob : ndarray of shape (n_samples,)
        The probabilities of the positive class (their histogram is drawn).
    estimator_name : str, default=None
        The legend name.
    pos_label : int, float, bool or str, default=None
        The positive class.

    See Also
    --------
    metrix.calibration_curve : The curve.
    """

    @classmethod
    def from_predictions(cls, y_true, y_prob, *, n_bins=5, strategy="uniform", pos_label=None,
                         name=None, ax=None, ref_line=True, **kwargs):
        """Plot the calibration curve of binary labels and probabilities (any library).

        The parameters are
        :meth:`sklearn.calibration.CalibrationDisplay.from_predictions`'s.

        Returns
        -------
        display : CalibrationDisplay
            The drawn display.
        """
        pos_label_validated, name = cls._validate_from_predictions_params(
            *host(y_true, y_prob), sample_weight=None, pos_label=pos_label, name=name)
        prob_true, prob_pred = _calibration.calibration_curve(
            y_true, y_prob, n_bins=n_bins, strategy=strategy, pos_label=pos_label)
        disp = cls(prob_true=host(prob_true), prob_pred=host(prob_pred), y_prob=host(y_prob),
                   estimator_name=name, pos_label=pos_label_validated)
        return disp.plot(ax=ax, ref_line=ref_line, **kwargs)
