"""Label metrics of the confusion-matrix family.

Each metric runs ``_label_problem`` (namespace -> validation -> encoding ->
one statistic) and applies its formula.  With ``labels=`` declared and
``validate=False`` each is a pure array program (it traces under
``jax.jit`` and ``torch.compile(fullgraph=True)``).
"""

from __future__ import annotations

import warnings

from .._core import namespace as _ns
from .._core.arith import safe_divide
from ._encoding import comparable
from ._input import label_problem, prepare_inputs
from ._prf import check_beta, prf_from_counts, setwise_labels

__all__ = [
    "confusion_matrix",
    "multilabel_confusion_matrix",
    "accuracy_score",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
]


def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None,
                     validate=True):
    r"""Confusion matrix ``C[i, j]``: samples of true class i predicted as class j.

    Computed by one ``bincount(n_classes * y_true + y_pred)`` on the inputs'
    device.

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,)
        Ground-truth and predicted labels (any supported array library).
    labels : array-like of shape (n_classes,), default=None
        Classes (rows/columns, in this order). Samples whose true or predicted
        label is not among them are ignored. Declaring labels (with
        ``validate=False``) makes the call sync-free.
    sample_weight : array of shape (n_samples,), default=None
    normalize : {"true", "pred", "all"}, default=None
        Normalise over rows, columns or the whole matrix (0 where undefined).
    validate : bool, default=True
        Check values (target types, NaN, labels present). ``False`` reads no
        value on the host.

    Returns
    -------
    C : array of shape (n_classes, n_classes)
        int64 counts (float with float weights or ``normalize``), in the
        inputs' namespace and on their device.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.confusion_matrix``.
    """
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(
            "The 'normalize' parameter must be a str among {'all', 'pred', 'true'} or None."
            f" Got {normalize!r} instead.")
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=validate,
                              exact_binary=False)
    xp, device, targets, w, fdt, acc = prepared
    if targets.y_type not in ("binary", "multiclass"):
        raise ValueError(f"{targets.y_type} is not supported")
    if labels is not None and len(_ns.host_list(labels)) == 0:
        raise ValueError("'labels' should contain at least one label.")
    prob = label_problem(y_true, y_pred, labels=labels, validate=validate, want_cm=True,
                         prepared=prepared)
    cm = prob.cm
    if labels is not None and validate:
        # host read: scikit-learn requires one declared label among y_true
        if not bool(xp.sum(prob.counts.true) > 0):
            raise ValueError("At least one label specified must be in y_true")
    if w is not None and _is_int_weights(sample_weight):
        cm = xp.astype(cm, _ns.count_dtype(xp, device))
    if normalize is not None:
        cmf = xp.astype(cm, acc)
        if normalize == "true":
            den = xp.sum(cmf, axis=1, keepdims=True)
        elif normalize == "pred":
            den = xp.sum(cmf, axis=0, keepdims=True)
        else:
            den = xp.sum(cmf)
        cm = xp.astype(safe_divide(cmf, den, zero_value=0.0, xp=xp), fdt)
    elif xp.isdtype(cm.dtype, "real floating"):
        cm = xp.astype(cm, fdt)
    if tuple(cm.shape) == (1, 1):
        warnings.warn(
            "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix "
            "to have the correct shape, use the 'labels' parameter to pass all known "
            "labels.", UserWarning, stacklevel=2)
    return cm


def _is_int_weights(sample_weight) -> bool:
    dt = getattr(sample_weight, "dtype", None)
    if dt is None:
        return _ns.host_values(sample_weight).dtype.kind in "iub"
    return "int" in str(dt) or "bool" in str(dt)


def multilabel_confusion_matrix(y_true, y_pred, *, sample_weight=None, labels=None,
                                samplewise=False, validate=True):
    r"""One 2 x 2 confusion matrix per class (or per sample): ``[[tn, fp], [fn, tp]]``.

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,) or (n_samples, n_labels)
        Labels, or label-indicator matrices.
    sample_weight : array of shape (n_samples,), default=None
    labels : array-like, default=None
        Classes (or indicator columns) to report, in this order.
    samplewise : bool, default=False
        Per-sample matrices (multilabel input only).
    validate : bool, default=True

    Returns
    -------
    multi_confusion : array of shape (n_outputs, 2, 2)
        On the inputs' device; int64 unless weighted.

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.multilabel_confusion_matrix``.
    """
    prob = label_problem(y_true, y_pred, labels=labels, sample_weight=sample_weight,
                         validate=validate, samplewise=samplewise)
    xp = prob.xp
    tp, pred, true = prob.counts
    fp, fn = pred - tp, true - tp
    w = prob.weights
    if w is not None and samplewise:
        tn = w * prob.y_true.shape[1] - tp - fp - fn
    elif w is not None:
        tn = xp.sum(w) - tp - fp - fn
    elif samplewise:
        tn = prob.y_true.shape[1] - tp - fp - fn
    else:
        tn = prob.n_samples - tp - fp - fn
    out = xp.reshape(xp.stack([tn, fp, fn, tp], axis=1), (-1, 2, 2))
    if w is None:
        return xp.astype(out, _ns.count_dtype(xp, prob.device))
    return xp.astype(out, prob.float_dtype)


def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None, validate=True):
    r"""Fraction (or number) of correct predictions; subset accuracy for multilabel.

    .. math:: \mathrm{acc} = \frac{\sum_i w_i [\hat y_i = y_i]}{\sum_i w_i}

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,) or (n_samples, n_labels)
    normalize : bool, default=True
        Return the fraction; ``False`` returns the (weighted) count.
    sample_weight : array of shape (n_samples,), default=None
    validate : bool, default=True

    Returns
    -------
    score : 0-d array
        On the inputs' device (a NumPy float64 scalar for NumPy inputs).

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.accuracy_score``.
    """
    xp, device, targets, w, fdt, acc = prepare_inputs(y_true, y_pred, sample_weight,
                                                      validate=validate, exact_binary=False)
    correct, total = correct_and_total(targets, w, xp, acc)
    score = safe_divide(correct, total, zero_value=0.0, xp=xp) if normalize else correct
    return _ns.to_output(xp.astype(score, fdt), xp)


def correct_and_total(targets, weights, xp, acc):
    """(Weighted) number of exactly right samples and the total weight."""
    yt, yp = comparable(targets.y_true, targets.y_pred, xp)
    if targets.y_type == "multilabel-indicator":
        correct = xp.astype(xp.all(yt == yp, axis=1), acc)
    else:
        correct = xp.astype(yt == yp, acc)
    if weights is None:
        return xp.sum(correct), xp.asarray(float(correct.shape[0]), dtype=acc,
                                           device=_ns.device_of(correct))
    return xp.sum(correct * weights), xp.sum(weights)




def precision_recall_fscore_support(y_true, y_pred, *, beta=1.0, labels=None, pos_label=1,
                                    average=None, warn_for=("precision", "recall", "f-score"),
                                    sample_weight=None, zero_division="warn", validate=True):
    r"""Precision, recall, F-beta and support per class, or averaged.

    .. math::
        P = \frac{tp}{tp + fp}, \quad R = \frac{tp}{tp + fn}, \quad
        F_\beta = \frac{(1 + \beta^2)\, tp}{(1 + \beta^2)\, tp + \beta^2 fn + fp}

    All from one statistic: per-class (tp, predicted, true) counts read off
    one confusion-matrix ``bincount`` (three length-C bincounts for many classes).

    Parameters
    ----------
    y_true, y_pred : array of shape (n_samples,) or (n_samples, n_labels)
    beta : float, default=1.0
    labels : array-like, default=None
        Classes to include (declared order). Sync-free with ``validate=False``.
    pos_label : int, float, bool or str, default=1
        The class reported when ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default=None
    warn_for : tuple, default=("precision", "recall", "f-score")
    sample_weight : array of shape (n_samples,), default=None
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        Value where a ratio is 0/0; "warn" gives 0 and an ``UndefinedMetricWarning``
        (warnings are emitted only with ``validate=True``).
    validate : bool, default=True

    Returns
    -------
    precision, recall, fbeta_score : 0-d arrays, or arrays of shape (n_classes,)
    support : array of shape (n_classes,), or None when averaged

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.precision_recall_fscore_support``.
    .. [2] C. J. van Rijsbergen, *Information Retrieval*, 1979 (F-measure).
    """
    from .._core.validation import check_zero_division

    check_zero_division(zero_division)
    check_beta(beta)
    val_targets = validate or (average == "binary" and labels is None)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=val_targets,
                              exact_binary=average == "binary")
    targets = prepared[2]
    if average == "binary" and not validate and labels is not None:
        declared = _ns.host_list(labels)
        if targets.y_type != "multilabel-indicator":
            targets = targets._replace(y_type="binary" if len(declared) <= 2 else "multiclass",
                                       values=tuple(declared))
    labels = setwise_labels(targets, average=average, labels=labels, pos_label=pos_label)
    prob = label_problem(y_true, y_pred, labels=labels, validate=validate,
                         samplewise=average == "samples",
                         prepared=prepared[:2] + (targets,) + prepared[3:])
    p, r, f, s = prf_from_counts(prob.counts, beta=beta, average=average, warn_for=warn_for,
                                 zero_division=zero_division, weights=prob.weights,
                                 xp=prob.xp, dtype=prob.float_dtype,
                                 acc_dtype=prob.acc_dtype, validate=validate)
    xp = prob.xp
    if s is not None and prob.weights is not None:
        s = xp.astype(s, prob.float_dtype)
    return _ns.to_output(p, xp), _ns.to_output(r, xp), _ns.to_output(f, xp), s


def fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=1, average="binary",
                sample_weight=None, zero_division="warn", validate=True):
    r"""F-beta score: weighted harmonic mean of precision and recall.

    .. math:: F_\beta = \frac{(1 + \beta^2)\, tp}{(1 + \beta^2)\, tp + \beta^2 fn + fp}

    Parameters are those of :func:`precision_recall_fscore_support`.

    Returns
    -------
    fbeta_score : 0-d array, or array of shape (n_classes,) when ``average=None``

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.fbeta_score``.
    """
    _, _, f, _ = precision_recall_fscore_support(
        y_true, y_pred, beta=beta, labels=labels, pos_label=pos_label, average=average,
        warn_for=("f-score",), sample_weight=sample_weight, zero_division=zero_division,
        validate=validate)
    return f


def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
             sample_weight=None, zero_division="warn", validate=True):
    r"""F1 score, the harmonic mean of precision and recall: ``2 tp / (2 tp + fp + fn)``.

    Parameters are those of :func:`precision_recall_fscore_support`.

    Returns
    -------
    f1_score : 0-d array, or array of shape (n_classes,) when ``average=None``

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.f1_score``.
    """
    return fbeta_score(y_true, y_pred, beta=1, labels=labels, pos_label=pos_label,
                       average=average, sample_weight=sample_weight,
                       zero_division=zero_division, validate=validate)


def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn", validate=True):
    r"""Precision ``tp / (tp + fp)``: the fraction of predicted positives that are right.

    Parameters are those of :func:`precision_recall_fscore_support`.

    Returns
    -------
    precision : 0-d array, or array of shape (n_classes,) when ``average=None``

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.precision_score``.
    """
    p, _, _, _ = precision_recall_fscore_support(
        y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        warn_for=("precision",), sample_weight=sample_weight, zero_division=zero_division,
        validate=validate)
    return p


def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                 sample_weight=None, zero_division="warn", validate=True):
    r"""Recall ``tp / (tp + fn)``: the fraction of true positives that are found.

    Parameters are those of :func:`precision_recall_fscore_support`.

    Returns
    -------
    recall : 0-d array, or array of shape (n_classes,) when ``average=None``

    References
    ----------
    .. [1] scikit-learn, ``sklearn.metrics.recall_score``.
    """
    _, r, _, _ = precision_recall_fscore_support(
        y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        warn_for=("recall",), sample_weight=sample_weight, zero_division=zero_division,
        validate=validate)
    return r
