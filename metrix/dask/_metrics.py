"""scikit-learn's metric functions over Dask arrays or Series: thin calls of ``evaluate``."""

from __future__ import annotations

import numpy as np

from .._core.docstrings import sections
from ..registry import REGISTRY, by_function
from ..regression import scores as _scores
from ._evaluate import evaluate
from ._graph import _is_series

_SAMPLE_WEIGHT = """
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights."""
_doc = sections(labels="""
    y_true, y_pred : dask array or Series of shape (n_samples,)
        True and predicted labels.""" + _SAMPLE_WEIGHT, table=_SAMPLE_WEIGHT + """
    method : {"exact", "binned"}, default="exact"
        The exact table (one row per distinct score), or a histogram.
    bins : int or array-like, default=None
        ``method="binned"``: equal bins of [0, 1], or increasing edges.
    split_every : int, default=None
        Fan-in of the merge tree.
    table : {"tree", "groupby"}, default="tree"
        Where the exact table lives (see :func:`evaluate`; ``"groupby"``
        needs Dask Series).""")
_AVERAGE_SUFFIX = {"binary": "", "micro": "_micro", "macro": "_macro", "weighted": "_weighted"}


def _one(metric, y_true, y_pred=None, y_score=None, sample_weight=None, prefix="", suffix="",
         **kw):
    """``evaluate``'s value of ``metric`` (a function here: the registry's name), or of
    its variant (``prefix``, ``suffix``: ``adjusted_``, ``_macro``)."""
    name = prefix + by_function(metric.__name__).evaluate + suffix
    return evaluate(None, y_true, y_pred, y_score, sample_weight, metrics=[name], **kw)[name]


def _setwise(base, y_true, y_pred, labels, pos_label, average, sample_weight, zero_division):
    if average not in _AVERAGE_SUFFIX:
        raise ValueError(f"average must be one of {tuple(_AVERAGE_SUFFIX)} on Dask inputs "
                         f"(per-class values are not returned), got {average!r}")
    if average == "binary":  # scikit-learn ignores labels for the binary average
        labels = None
    return _one(base, y_true, y_pred, sample_weight=sample_weight, labels=labels,
                suffix=_AVERAGE_SUFFIX[average], pos_label=pos_label, zero_division=zero_division)


def accuracy_score(y_true, y_pred, *, sample_weight=None):
    """Accuracy: the weighted fraction of exact matches, over all partitions.

    .. math:: \\mathrm{accuracy} = \\sum_i w_i [y_i = \\hat y_i] / \\sum_i w_i

    Parameters
    ----------
    y_true, y_pred : dask array or Series of shape (n_samples,)
        True and predicted labels (aligned partitions).
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    score : float
        As :func:`sklearn.metrics.accuracy_score` on the concatenated data.
    """
    return _one(accuracy_score, y_true, y_pred, sample_weight=sample_weight)


@_doc
def balanced_accuracy_score(y_true, y_pred, *, sample_weight=None, adjusted=False):
    """Balanced accuracy: the mean recall of the classes present in ``y_true``.

    Parameters
    ----------
    %(labels)s
    adjusted : bool, default=False
        Adjust for chance (0 for a random guess).

    Returns
    -------
    score : float
        As :func:`sklearn.metrics.balanced_accuracy_score`.
    """
    return _one(balanced_accuracy_score, y_true, y_pred, sample_weight=sample_weight,
                prefix="adjusted_" if adjusted else "")


@_doc
def matthews_corrcoef(y_true, y_pred, *, sample_weight=None):
    """Compute the Matthews correlation coefficient of the global confusion matrix.

    Parameters
    ----------
    %(labels)s

    Returns
    -------
    mcc : float
        As :func:`sklearn.metrics.matthews_corrcoef`.
    """
    return _one(matthews_corrcoef, y_true, y_pred, sample_weight=sample_weight)


def cohen_kappa_score(y1, y2, *, labels=None, weights=None, sample_weight=None):
    """Compute Cohen's kappa of two annotators' labels.

    Parameters
    ----------
    y1, y2 : dask array or Series of shape (n_samples,)
        The two label sets.
    labels : array-like, default=None
        The classes of the matrix (default: every value present).
    weights : {None, "linear", "quadratic"}, default=None
        Disagreement weights.
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    kappa : float
        As :func:`sklearn.metrics.cohen_kappa_score`.
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    return _one(cohen_kappa_score, y1, y2, sample_weight=sample_weight, labels=labels,
                suffix="" if weights is None else f"_{weights}")


@_doc
def hamming_loss(y_true, y_pred, *, sample_weight=None):
    """Hamming loss (``1 - accuracy`` for label vectors).

    Parameters
    ----------
    %(labels)s

    Returns
    -------
    loss : float
        As :func:`sklearn.metrics.hamming_loss`.
    """
    return _one(hamming_loss, y_true, y_pred, sample_weight=sample_weight)


@_doc
def zero_one_loss(y_true, y_pred, *, sample_weight=None):
    """Zero-one loss: the weighted fraction of misclassified samples.

    Parameters
    ----------
    %(labels)s

    Returns
    -------
    loss : float
        As :func:`sklearn.metrics.zero_one_loss` (``normalize=True``).
    """
    return _one(zero_one_loss, y_true, y_pred, sample_weight=sample_weight)


_SETWISE_DOC = """{title}

    .. math:: {formula}

    from the per-class counts of one global confusion matrix, then
    scikit-learn's ``average``.

    Parameters
    ----------
    y_true, y_pred : dask array or Series of shape (n_samples,)
        True and predicted labels.
    labels : array-like, default=None
        The classes to average over (scikit-learn's ``labels``; ignored with
        ``average="binary"``).
    pos_label : int, float, bool or str, default=1
        The class reported by ``average="binary"``.
    average : {{"binary", "micro", "macro", "weighted"}}, default="binary"
        As in scikit-learn (per-class values, ``None``, are not offered).
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.
    zero_division : {{"warn", 0.0, 1.0, nan}}, default="warn"
        The value of an undefined ratio (``"warn"``: 0, without a warning).

    Returns
    -------
    score : float
        As :func:`sklearn.metrics.{name}` on the concatenated data.
    """


def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn"):
    return _setwise(precision_score, y_true, y_pred, labels, pos_label, average, sample_weight,
                    zero_division)


def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                 sample_weight=None, zero_division="warn"):
    return _setwise(recall_score, y_true, y_pred, labels, pos_label, average, sample_weight,
                    zero_division)


def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
             sample_weight=None, zero_division="warn"):
    return _setwise(f1_score, y_true, y_pred, labels, pos_label, average, sample_weight,
                    zero_division)


def jaccard_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                  sample_weight=None, zero_division="warn"):
    return _setwise(jaccard_score, y_true, y_pred, labels, pos_label, average, sample_weight,
                    zero_division)


precision_score.__doc__ = _SETWISE_DOC.format(
    title="Precision: the weighted fraction of predicted positives that are true.",
    formula="P = \\frac{tp}{tp + fp}", name="precision_score")
recall_score.__doc__ = _SETWISE_DOC.format(
    title="Recall: the weighted fraction of true positives that are found.",
    formula="R = \\frac{tp}{tp + fn}", name="recall_score")
f1_score.__doc__ = _SETWISE_DOC.format(
    title="F1 score: the harmonic mean of precision and recall.",
    formula="F_1 = \\frac{2 tp}{2 tp + fp + fn}", name="f1_score")
jaccard_score.__doc__ = _SETWISE_DOC.format(
    title="Jaccard index: intersection over union of the predicted and true sets.",
    formula="J = \\frac{tp}{tp + fp + fn}", name="jaccard_score")


@_doc
def roc_auc_score(y_true, y_score, *, sample_weight=None, method="exact", bins=None,
                  split_every=None, table="tree"):
    """Area under the ROC curve of a binary problem, exact with ties and weights.

    .. math:: \\mathrm{AUC} = \\frac{\\sum_s P_s (N_{<s} + N_s / 2)}{P N}

    over the distinct scores ``s`` (``P_s`` / ``N_s`` their positive /
    negative weight): the table of distinct scores merged over partitions.

    Parameters
    ----------
    y_true : dask array or Series of shape (n_samples,)
        Binary labels; the greater label is the positive class.
    y_score : dask array or Series of shape (n_samples,)
        Scores of the greater label.
    %(table)s

    Returns
    -------
    auc : float
        As :func:`sklearn.metrics.roc_auc_score` (binary) on the concatenated data.
    """
    return _one(roc_auc_score, y_true, y_score=y_score, sample_weight=sample_weight, method=method,
                bins=bins, split_every=split_every, table=table)


@_doc
def average_precision_score(y_true, y_score, *, pos_label=1, sample_weight=None,
                            method="exact", bins=None, split_every=None, table="tree"):
    """Average precision of a binary problem: the step-wise area under the PR curve.

    .. math:: \\mathrm{AP} = \\sum_s (R_s - R_{s'}) P_s

    over the distinct scores in decreasing order.

    Parameters
    ----------
    y_true : dask array or Series of shape (n_samples,)
        Binary labels.
    y_score : dask array or Series of shape (n_samples,)
        Scores of ``pos_label``.
    pos_label : int, float, bool or str, default=1
        The positive class.
    %(table)s

    Returns
    -------
    ap : float
        As :func:`sklearn.metrics.average_precision_score` (binary).
    """
    return _one(average_precision_score, y_true, y_score=y_score, sample_weight=sample_weight,
                pos_label=pos_label, method=method, bins=bins, split_every=split_every,
                table=table)


def log_loss(y_true, y_proba, *, normalize=True, sample_weight=None, labels=None):
    """Log loss (cross-entropy) of predicted probabilities.

    .. math:: L = -\\sum_i w_i \\log p_{i, y_i} / \\sum_i w_i

    with ``p`` clipped to ``[eps, 1 - eps]`` (``eps`` of ``y_proba``'s dtype).

    Parameters
    ----------
    y_true : dask array or Series of shape (n_samples,)
        True labels.
    y_proba : dask array of shape (n_samples,) or (n_samples, n_classes)
        Probability of the greater label (1-D), or of each sorted class.
    normalize : bool, default=True
        Only ``True`` (the mean) is offered.
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        The classes (default: those of ``y_true``).

    Returns
    -------
    loss : float
        As :func:`sklearn.metrics.log_loss`.
    """
    if not normalize:
        raise NotImplementedError("metrix.dask.log_loss computes the mean (normalize=True).")
    return _one(log_loss, y_true, y_score=y_proba, sample_weight=sample_weight,
                labels=labels)


def brier_score_loss(y_true, y_proba, *, sample_weight=None, pos_label=None, labels=None):
    """Brier score: the mean squared error of predicted probabilities.

    .. math:: B = \\sum_i w_i (\\mathbb{1}[y_i = pos] - p_i)^2 / \\sum_i w_i

    (multiclass: the squared error summed over the classes; halved for two
    columns, as scikit-learn's ``scale_by_half="auto"``).

    Parameters
    ----------
    y_true : dask array or Series of shape (n_samples,)
        True labels.
    y_proba : dask array of shape (n_samples,) or (n_samples, n_classes)
        Probability of ``pos_label`` (1-D), or of each sorted class.
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        The positive class (default: the greater label).
    labels : array-like, default=None
        The classes (default: those of ``y_true``).

    Returns
    -------
    score : float
        As :func:`sklearn.metrics.brier_score_loss`.
    """
    if pos_label is None and getattr(y_proba, "ndim", 1) == 1:
        labels, pos_label = _brier_pos_label(y_true, labels)
    return _one(brier_score_loss, y_true, y_score=y_proba, sample_weight=sample_weight,
                pos_label=pos_label, labels=labels)


def _brier_pos_label(y_true, labels):
    """``(labels, pos_label)`` of a 1-D ``y_proba`` without ``pos_label``, by
    scikit-learn's rule: 1 for labels in {0, 1} or {-1, 1}, else the greatest
    numeric label; string labels need ``pos_label`` (the labels are found by the
    first pass that ``evaluate`` would make, so no pass is added)."""
    if labels is None:
        from ._checks import found_labels
        from ._graph import array_pieces, distinct_values, frame_pieces, series_frame

        if _is_series(y_true):
            pieces = frame_pieces(*series_frame(y_true))
        else:
            pieces = array_pieces(y_true, None, None, None)
        labels = distinct_values(pieces, (0,), None)
        found_labels((by_function(brier_score_loss.__name__).evaluate,), labels)
    classes = np.asarray(labels)
    if classes.dtype.kind in "OUS":
        shown = ", ".join(repr(c) for c in classes.tolist())
        raise ValueError(f"y_true takes value in {{{shown}}} and pos_label is not specified: "
                         "either make y_true take value in {0, 1} or {-1, 1} or pass "
                         "pos_label explicitly.")
    if classes.tolist() in ([0, 1], [-1, 1], [0], [-1], [1]):
        return labels, 1
    return labels, classes[-1].item()


def _regression(one_shot, title, formula):
    """The Dask face of the regression function ``one_shot`` (its name)."""
    def metric(y_true, y_pred, *, sample_weight=None):
        return _one(one_shot, y_true, y_pred, sample_weight=sample_weight)

    metric.__name__ = metric.__qualname__ = name = one_shot.__name__
    metric.__doc__ = f"""{title}

    .. math:: {formula}

    from merged weighted sums (centred sums merged by Chan's update).

    Parameters
    ----------
    y_true, y_pred : dask array or Series of shape (n_samples,)
        True and predicted values.
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    value : float
        As :func:`sklearn.metrics.{name}` on the concatenated data.
    """
    return metric


mean_squared_error = _regression(
    _scores.mean_squared_error, "Mean squared error.", "\\sum_i w_i e_i^2 / \\sum_i w_i")
root_mean_squared_error = _regression(
    _scores.root_mean_squared_error, "Root mean squared error.",
    "\\sqrt{\\sum_i w_i e_i^2 / \\sum_i w_i}")
mean_absolute_error = _regression(
    _scores.mean_absolute_error, "Mean absolute error.", "\\sum_i w_i |e_i| / \\sum_i w_i")
mean_absolute_percentage_error = _regression(
    _scores.mean_absolute_percentage_error, "Mean absolute percentage error (a fraction).",
    "\\sum_i w_i |e_i| / \\max(|y_i|, \\epsilon) / \\sum_i w_i")
r2_score = _regression(
    _scores.r2_score, "Coefficient of determination.",
    "R^2 = 1 - \\sum_i w_i e_i^2 / \\sum_i w_i (y_i - \\bar y)^2")
explained_variance_score = _regression(
    _scores.explained_variance_score, "Explained variance.",
    "1 - \\mathrm{Var}_w(e) / \\mathrm{Var}_w(y)")


def max_error(y_true, y_pred):
    """Maximum residual error over all partitions.

    .. math:: \\max_i |y_i - \\hat y_i|

    Parameters
    ----------
    y_true, y_pred : dask array or Series of shape (n_samples,)
        True and predicted values.

    Returns
    -------
    value : float
        As :func:`sklearn.metrics.max_error`.
    """
    return _one(max_error, y_true, y_pred)

__all__ = [e.function for e in REGISTRY if e.function in globals()]  # the registry's, here
