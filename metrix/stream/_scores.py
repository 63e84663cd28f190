"""Stateful D^2 probabilistic scores and likelihood ratios (scikit-learn's).

* :class:`D2LogLossScore`, :class:`D2BrierScore`: the loss sum of the one-shot
  per-sample terms and the (weighted) count of each class
  (:class:`~metrix.stream._probabilistic.D2LogLossScoreStream`,
  :class:`~metrix.stream._probabilistic.D2BrierScoreStream`): the null model
  predicts the class prior, so its loss is a function of the class counts;
* :class:`ClassLikelihoodRatios`: the binary confusion matrix of the label
  metrics (:class:`LikelihoodRatiosStream`, a
  :class:`~metrix.stream.LabelStream` over two classes: a collection shares it
  with the other two-class label metrics) and the one-shot formula
  :func:`~metrix.classification._likelihood_ratios.likelihood_ratios_from_counts`.

Every state has a fixed size (merged by addition, all-reduced as sums) and
neither ``update`` nor ``compute`` reads a value on the host unless
``validate=True``.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from ..classification._likelihood_ratios import check_replace_lr, likelihood_ratios_from_counts
from ._label import LabelStream
from ._probabilistic import D2BrierScoreStream, D2LogLossScoreStream
from ._wrappers import Metric, classes_doc


class D2LogLossScore(Metric):
    """Streaming D^2 log-loss score: the fraction of log loss explained.

    ``D2LogLossScore(num_classes=None, *, validate=False)``; equals
    ``metrix.d2_log_loss_score(..., labels=range(num_classes))`` (and
    scikit-learn's) on all the data: ``1 - L(model) / L(prior)``, the prior
    model predicting the (weighted) class proportions of ``y_true``.  The state
    is the weighted log-loss sum, the weight of each class and the number of
    samples, exact and of a fixed size.  Fewer than two samples give NaN (the
    one-shot function also warns; the stream reads nothing on the host).  With
    ``validate=False`` a true label outside ``0..num_classes-1`` makes the
    result NaN.  See :class:`metrix.stream.LogLoss` for the inputs.

    Parameters
    ----------
    num_classes : int or None, default=None
        Classes ``0..num_classes-1`` of ``(n, C)`` probabilities; None: binary,
        1-D probabilities of class 1.
    validate : bool, default=False
        Check each batch as the one-shot function does (host reads).
    """

    higher_is_better = True

    def __init__(self, num_classes=None, *, validate=False):
        super().__init__(D2LogLossScoreStream(num_classes, validate=validate))


@classes_doc
class D2BrierScore(Metric):
    """Streaming D^2 Brier score (Brier skill score).

    ``D2BrierScore(num_classes=None, *, pos_label=1, validate=False)``; equals
    ``metrix.d2_brier_score(..., pos_label=pos_label)`` (binary, 1-D
    probabilities of ``pos_label``) or ``metrix.d2_brier_score(...,
    labels=range(num_classes))`` (``(n, C)`` probabilities) on all the data, and
    scikit-learn's: ``1 - BS(model) / BS(prior)``, the prior model predicting
    the (weighted) class proportions of ``y_true``.  The state is the weighted
    Brier sum, the weight of each class and the number of samples, exact and of
    a fixed size.  Fewer than two samples give NaN (without the one-shot
    function's warning); a model that predicts the prior scores 0 up to
    rounding (the one-shot function: exactly 0).  See
    :class:`metrix.stream.BrierScore` for the inputs.

    Parameters
    ----------
    %(classes)s
    validate : bool, default=False
        Check each batch as the one-shot function does (host reads).
    """

    higher_is_better = True

    def __init__(self, num_classes=None, *, pos_label=1, validate=False):
        super().__init__(D2BrierScoreStream(num_classes, pos_label=pos_label,
                                            validate=validate))


class LikelihoodRatiosStream(LabelStream):
    """Functional streaming likelihood ratios ``(LR+, LR-)`` of binary labels 0 / 1.

    The state is :class:`~metrix.stream.LabelStream`'s confusion matrix of two
    classes (class 1 positive); ``compute`` reads its 2 x 2 block of the
    classes (``tn, fp, fn, tp``) with the one-shot formula.  A sample with a
    label that is neither class (``validate=False``) counts for nothing.

    Parameters
    ----------
    replace_undefined_by : nan, 1.0 or dict, default=nan
        scikit-learn's: the values of undefined ratios.
    weighted, validate, threshold, ignore_index
        :class:`~metrix.stream.LabelStream`'s.  ``validate=True`` also gives
        scikit-learn's warnings for undefined ratios at ``compute`` (a host read).
    """

    def __init__(self, *, replace_undefined_by=math.nan, weighted=False, validate=False,
                 threshold=0.5, ignore_index=None):
        self.replace = check_replace_lr(replace_undefined_by)
        super().__init__(2, "confusion", average=None, weighted=weighted, validate=validate,
                         threshold=threshold, ignore_index=ignore_index)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "LikelihoodRatiosStream", "weighted": self.weighted,
                "ignore_index": self.ignore_index}

    def compute(self, state):
        """``(LR+, LR-)``: two 0-d arrays in the widest float of the state's device."""
        cm = state["cm"]
        xp, device = _ns.get_namespace_and_device(cm)
        cm = xp.reshape(xp.astype(cm, _ns.max_float_dtype(xp, device)), (4, 4))
        tn, fp, fn, tp = cm[1, 1], cm[1, 2], cm[2, 1], cm[2, 2]
        return likelihood_ratios_from_counts(tp, fp, tn, tp + fn, tn + fp,
                                             replace=self.replace, validate=self.validate,
                                             xp=xp)


class ClassLikelihoodRatios(Metric):
    """Streaming positive and negative likelihood ratios of binary labels 0 / 1.

    ``ClassLikelihoodRatios(*, replace_undefined_by=nan, weighted=False,
    validate=False, threshold=0.5, ignore_index=None)``; ``compute()`` is
    ``(LR+, LR-)``, equal to ``metrix.class_likelihood_ratios(...,
    labels=[0, 1])`` (and scikit-learn's, ``replace_undefined_by`` included) on
    all the data.  The state is the binary confusion matrix (int64 counts, or
    with ``weighted=True`` float sums of ``sample_weight``); see
    :class:`metrix.stream.LabelStream` for the inputs (a floating 1-D
    ``y_pred`` holds probabilities of class 1, thresholded).  scikit-learn's
    warnings for undefined ratios come with ``validate=True`` only (a host read
    at ``compute``); otherwise an undefined ratio is ``replace_undefined_by``'s
    value silently.

    Parameters
    ----------
    replace_undefined_by : nan, 1.0 or dict, default=nan
        Values for undefined ratios: nan, 1.0 (both worst-case 1), or
        ``{"LR+": value in [1, inf] or nan, "LR-": value in [0, 1] or nan}``.
    weighted : bool, default=False
        Accept ``sample_weight`` (a float state) instead of int64 counts.
    validate : bool, default=False
        Check each batch's labels on the host, and warn for undefined ratios.
    threshold : float or None, default=0.5
        A floating 1-D ``y_pred`` above it is class 1 (``None``: float labels).
    ignore_index : int or None, default=None
        Samples whose true label equals it count for nothing.
    """

    higher_is_better = None  # LR+ is better high, LR- low

    def __init__(self, *, replace_undefined_by=math.nan, weighted=False, validate=False,
                 threshold=0.5, ignore_index=None):
        super().__init__(LikelihoodRatiosStream(
            replace_undefined_by=replace_undefined_by, weighted=weighted, validate=validate,
            threshold=threshold, ignore_index=ignore_index))
