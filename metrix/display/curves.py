"""ROC, precision-recall and DET curve displays: scikit-learn's, computed with metrix.

``from_estimator`` is scikit-learn's (it asks the estimator for scores, then
calls ``from_predictions``); ``from_predictions`` and ``from_cv_results``
compute the curve with :func:`metrix.roc_curve`,
:func:`metrix.precision_recall_curve` / :func:`metrix.average_precision_score`
and :func:`metrix.det_curve` on the inputs' device, then draw it.
"""

from __future__ import annotations

import sklearn.metrics as _skm
from sklearn.utils._plotting import _deprecate_y_pred_parameter

from .. import ranking as _ranking
from ..ranking import scores as _scores
from ._host import fold_inputs, host

__all__ = ["DetCurveDisplay", "PrecisionRecallDisplay", "RocCurveDisplay"]


def _roc(y_true, y_score, pos_label, sample_weight, drop_intermediate):
    fpr, tpr, _ = _ranking.roc_curve(y_true, y_score, pos_label=pos_label,
                                     sample_weight=sample_weight,
                                     drop_intermediate=drop_intermediate)
    fpr, tpr = host(fpr, tpr)
    return fpr, tpr, _scores.auc(fpr, tpr)


def _pr(y_true, y_score, pos_label, sample_weight, drop_intermediate):
    precision, recall, _ = _ranking.precision_recall_curve(
        y_true, y_score, pos_label=pos_label, sample_weight=sample_weight,
        drop_intermediate=drop_intermediate)
    ap = _scores.average_precision_score(y_true, y_score, pos_label=pos_label,
                                         sample_weight=sample_weight)
    labels = host(y_true)
    # host NumPy copies (a display draws on the host: its edge), as float for the legend
    return (*host(precision, recall), float(host(ap)),
            float((labels == pos_label).sum() / labels.shape[0]))


class RocCurveDisplay(_skm.RocCurveDisplay):
    """ROC curve visualization: :class:`sklearn.metrics.RocCurveDisplay`, its curve
    from :func:`metrix.roc_curve`.

    Parameters
    ----------
    fpr, tpr : ndarray or list of ndarray
        False and true positive rates (one array per curve).
    roc_auc : float or list of float, default=None
        The area under each curve.
    name : str or list of str, default=None
        The legend name of each curve.
    pos_label : int, float, bool or str, default=None
        The positive class.

    See Also
    --------
    metrix.roc_curve : The curve.
    """

    @classmethod
    def from_predictions(cls, y_true, y_score=None, *, sample_weight=None,
                         drop_intermediate=True, pos_label=None, name=None, ax=None,
                         curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                         despine=False):
        """Plot the ROC curve of binary labels and scores (arrays of any library).

        The parameters are :meth:`sklearn.metrics.RocCurveDisplay.from_predictions`'s.

        Returns
        -------
        display : RocCurveDisplay
            The drawn display.
        """
        pos_label_validated, name = cls._validate_from_predictions_params(
            *host(y_true, y_score), sample_weight=host(sample_weight), pos_label=pos_label,
            name=name)
        fpr, tpr, area = _roc(y_true, y_score, pos_label, sample_weight, drop_intermediate)
        viz = cls(fpr=fpr, tpr=tpr, roc_auc=area, name=name, pos_label=pos_label_validated)
        return viz.plot(ax=ax, curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
                        chance_level_kw=chance_level_kw, despine=despine)

    @classmethod
    def from_cv_results(cls, cv_results, X, y, *, sample_weight=None,
                        drop_intermediate=True, response_method="auto", pos_label=None,
                        ax=None, name=None, curve_kwargs=None, plot_chance_level=False,
                        chance_level_kwargs=None, despine=False):
        """Plot one ROC curve per test fold of ``cross_validate`` results.

        The parameters are :meth:`sklearn.metrics.RocCurveDisplay.from_cv_results`'s.

        Returns
        -------
        display : RocCurveDisplay
            The drawn display.
        """
        cls._validate_from_cv_results_params(cv_results, X, y, sample_weight=sample_weight)
        folds = [(*_roc(yt, ys, pl, w, drop_intermediate), pl) for yt, ys, pl, w in
                 fold_inputs(cv_results, X, y, sample_weight,
                             response_method=response_method, pos_label=pos_label)]
        fpr, tpr, area, labels = map(list, zip(*folds))
        viz = cls(fpr=fpr, tpr=tpr, roc_auc=area, name=name, pos_label=labels[-1])
        return viz.plot(ax=ax, curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
                        chance_level_kw=chance_level_kwargs, despine=despine)


class PrecisionRecallDisplay(_skm.PrecisionRecallDisplay):
    """Precision-recall visualization: :class:`sklearn.metrics.PrecisionRecallDisplay`,
    its curve from :func:`metrix.precision_recall_curve`.

    Parameters
    ----------
    precision, recall : ndarray or list of ndarray
        The curve (one array per curve).
    average_precision : float or list of float, default=None
        :func:`metrix.average_precision_score` of each curve.
    name : str or list of str, default=None
        The legend name of each curve.
    pos_label : int, float, bool or str, default=None
        The positive class.
    prevalence_pos_label : float or list of float, default=None
        The share of positives (the chance level).

    See Also
    --------
    metrix.precision_recall_curve : The curve.
    """

    @classmethod
    def from_predictions(cls, y_true, y_score=None, *, sample_weight=None,
                         drop_intermediate=False, pos_label=None, name=None, ax=None,
                         curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                         despine=False, y_pred="deprecated", **kwargs):
        """Plot the precision-recall curve of binary labels and scores.

        The parameters are
        :meth:`sklearn.metrics.PrecisionRecallDisplay.from_predictions`'s.

        Returns
        -------
        display : PrecisionRecallDisplay
            The drawn display.
        """
        y_score = _deprecate_y_pred_parameter(y_score, y_pred, "1.8")
        pos_label, name = cls._validate_from_predictions_params(
            *host(y_true, y_score), sample_weight=host(sample_weight), pos_label=pos_label,
            name=name)
        precision, recall, ap, prevalence = _pr(y_true, y_score, pos_label, sample_weight,
                                                drop_intermediate)
        viz = cls(precision=precision, recall=recall, average_precision=ap, name=name,
                  pos_label=pos_label, prevalence_pos_label=prevalence)
        return viz.plot(ax=ax, name=name, curve_kwargs=curve_kwargs,
                        plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw,
                        despine=despine, **kwargs)

    @classmethod
    def from_cv_results(cls, cv_results, X, y, *, sample_weight=None,
                        drop_intermediate=True, response_method="auto", pos_label=None,
                        name=None, ax=None, curve_kwargs=None, plot_chance_level=False,
                        chance_level_kwargs=None, despine=False):
        """Plot one precision-recall curve per test fold of ``cross_validate`` results.

        The parameters are
        :meth:`sklearn.metrics.PrecisionRecallDisplay.from_cv_results`'s.

        Returns
        -------
        display : PrecisionRecallDisplay
            The drawn display.
        """
        cls._validate_from_cv_results_params(cv_results, X, y, sample_weight=sample_weight)
        folds = [(*_pr(yt, ys, pl, w, drop_intermediate), pl) for yt, ys, pl, w in
                 fold_inputs(cv_results, X, y, sample_weight,
                             response_method=response_method, pos_label=pos_label)]
        precision, recall, ap, prevalence, labels = map(list, zip(*folds))
        viz = cls(precision=precision, recall=recall, average_precision=ap, name=name,
                  pos_label=labels[-1], prevalence_pos_label=prevalence)
        return viz.plot(ax=ax, curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
                        chance_level_kw=chance_level_kwargs, despine=despine)


class DetCurveDisplay(_skm.DetCurveDisplay):
    """DET curve visualization: :class:`sklearn.metrics.DetCurveDisplay`, its curve
    from :func:`metrix.det_curve`.

    Parameters
    ----------
    fpr, fnr : ndarray
        False positive and false negative rates.
    estimator_name : str, default=None
        The legend name.
    pos_label : int, float, bool or str, default=None
        The positive class.

    See Also
    --------
    metrix.det_curve : The curve.
    """

    @classmethod
    def from_predictions(cls, y_true, y_score=None, *, sample_weight=None,
                         drop_intermediate=True, pos_label=None, name=None, ax=None,
                         y_pred="deprecated", **kwargs):
        """Plot the DET curve of binary labels and scores.

        The parameters are :meth:`sklearn.metrics.DetCurveDisplay.from_predictions`'s.

        Returns
        -------
        display : DetCurveDisplay
            The drawn display.
        """
        y_score = _deprecate_y_pred_parameter(y_score, y_pred, "1.8")
        pos_label_validated, name = cls._validate_from_predictions_params(
            *host(y_true, y_score), sample_weight=host(sample_weight), pos_label=pos_label,
            name=name)
        fpr, fnr, _ = _ranking.det_curve(y_true, y_score, pos_label=pos_label,
                                         sample_weight=sample_weight,
                                         drop_intermediate=drop_intermediate)
        fpr, fnr = host(fpr, fnr)
        viz = cls(fpr=fpr, fnr=fnr, estimator_name=name, pos_label=pos_label_validated)
        return viz.plot(ax=ax, name=name, **kwargs)
