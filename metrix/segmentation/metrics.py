r"""Segmentation metrics: IoU, Dice, generalized Dice and pixel accuracy.

Each metric is a formula on one statistic (:mod:`._statistic`): the
per-(image, class) counts ``tp``, ``pred`` and ``true`` of one ``bincount``
over all pixels.  Two ways to pool the images (``per_image``):

* ``per_image=False`` (dataset level): the pixels of all images form one pool,
  and the value is scikit-learn's on the flattened pixels: ``mean_iou`` is
  ``jaccard_score``, ``dice_score`` is ``f1_score`` and ``pixel_accuracy`` is
  ``recall_score`` (``accuracy_score`` for ``average="micro"`` over every class),
  with the same ``labels``, ``average`` and ``zero_division``;
* ``per_image=True``: the value of each image, then the mean over the images
  where it is defined (an image without the class in its target or prediction
  does not count for that class): TorchMetrics' ``MeanIoU(per_class=True)`` and
  ``DiceScore(aggregation_level="samplewise")``.

``average="pairs"`` is TorchMetrics' ``MeanIoU(per_class=False)``: the mean
over every (image, class) pair where the class occurs.
"""

from __future__ import annotations

import warnings
from typing import Literal

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.lane import cast
from .._core.stacklevel import find_stack_level
from .._core.typing import Array, ArrayLike
from .._core.validation import check_zero_division
from ..classification._prf import jaccard_from_counts, prf_from_counts
from ..exceptions import UndefinedMetricWarning, as_sklearn_too
from ._input import check_parameters, prepare
from ._statistic import SegmentCounts, segment_counts

__all__ = ["mean_iou", "dice_score", "generalized_dice_score", "pixel_accuracy"]

AVERAGES = (None, "micro", "macro", "weighted", "pairs")

Average = Literal["micro", "macro", "weighted", "pairs"] | None
InputFormat = Literal["index", "one-hot", "mixed"]


def _counts(y_true, y_pred, *, labels, ignore_index, include_background, average, per_image,
            input_format, validate, zero_division=None, averages=AVERAGES, weight_type=None):
    check_parameters(average=average, averages=averages, ignore_index=ignore_index,
                     include_background=include_background, per_image=per_image,
                     input_format=input_format, weight_type=weight_type)
    if zero_division is not None:
        check_zero_division(zero_division)
    prep = prepare(y_true, y_pred, labels=labels, ignore_index=ignore_index,
                   include_background=include_background, input_format=input_format,
                   validate=validate)
    counts = segment_counts(prep, per_image=per_image)
    return prep, SegmentCounts(*(cast(c, prep.acc_dtype, prep.xp) for c in counts))


def pooled_value(counts, *, metric, average, zero_division, validate, xp, acc_dtype):
    """Dataset-level value: scikit-learn's formula and warnings on the ``(1, K)``
    class counts (``acc_dtype``: the float dtype they are in)."""
    tp, pred, true = (c[0, :] for c in counts)
    if metric == "iou":
        return jaccard_from_counts((tp, pred, true), average=average,
                                   zero_division=zero_division, xp=xp, validate=validate)
    want = ("f-score",) if metric == "dice" else ("recall",)
    res = prf_from_counts(SegmentCounts(tp, pred, true), beta=1.0, average=average,
                          warn_for=want, zero_division=zero_division, weights=None, xp=xp,
                          dtype=acc_dtype, acc_dtype=acc_dtype, validate=validate, want=want)
    return res[2] if metric == "dice" else res[1]


_RATIOS = {
    # metric: (name in warnings, what is missing, numerator, denominator)
    "iou": ("IoU", "true or predicted",
            lambda c: c.tp, lambda c: c.true + c.pred - c.tp),
    "dice": ("Dice", "true nor predicted",
             lambda c: c.tp + c.tp, lambda c: c.true + c.pred),
    "accuracy": ("Pixel accuracy", "true", lambda c: c.tp, lambda c: c.true),
}


def per_image_sums(counts, *, metric, average, xp):
    r"""Per-image values and where they are defined, summed over the images.

    With ``s[i, k] = num / den`` defined where ``den > 0``, ``(value_sum,
    count)``: for ``None``, per class, the sum of ``s[:, k]`` over its defined
    images and their number; ``"macro"`` / ``"micro"`` / ``"weighted"``
    average each image's classes first (undefined classes left out) and sum
    over the images with a defined value; ``"pairs"`` sums every defined
    ``(i, k)``.  Sums over disjoint sets of images add (a stream's state).
    """
    _, _, num_of, den_of = _RATIOS[metric]
    num, den = num_of(counts), den_of(counts)
    defined = xp.astype(den > 0, num.dtype)
    s = safe_divide(num, den, zero_value=0.0, xp=xp)
    if average is None:
        return xp.sum(s * defined, axis=0), xp.sum(defined, axis=0)
    if average == "pairs":
        return xp.sum(s * defined), xp.sum(defined)
    if average == "macro":
        part, whole = s * defined, defined
    elif average == "micro":
        part, whole = num, den
    else:  # weighted by each image's true pixels per class
        part, whole = s * counts.true, counts.true
    per_img = safe_divide(xp.sum(part, axis=1), xp.sum(whole, axis=1), zero_value=0.0, xp=xp)
    # an image has a value where a class is defined in it (for "micro" too: den >= 0)
    img_ok = xp.astype(xp.sum(defined, axis=1) > 0, num.dtype)
    return xp.sum(per_img * img_ok), xp.sum(img_ok)


def per_image_value(value_sum, count, *, metric, zero_division, validate, xp):
    """The mean of :func:`per_image_sums` (``zero_division`` where nothing is defined)."""
    value = safe_divide(value_sum, count, zero_value=check_zero_division(zero_division), xp=xp)
    if validate and zero_division == "warn" and bool(xp.any(count == 0)):  # host read
        name, modifier = _RATIOS[metric][:2]
        where = "due to" if value.ndim == 0 else "in labels with"
        warnings.warn(
            f"{name} is ill-defined and being set to 0.0 {where} no {modifier} samples in any "
            "image. Use `zero_division` parameter to control this behavior.",
            as_sklearn_too(UndefinedMetricWarning), stacklevel=find_stack_level())
    return value


def _score(metric, y_true, y_pred, *, labels, ignore_index, include_background, average,
           per_image, input_format, zero_division, validate):
    prep, counts = _counts(y_true, y_pred, labels=labels, ignore_index=ignore_index,
                           include_background=include_background, average=average,
                           per_image=per_image, input_format=input_format, validate=validate,
                           zero_division=zero_division)
    xp = prep.xp
    if per_image or average == "pairs":  # per image, then over the images where defined
        value_sum, count = per_image_sums(counts, metric=metric, average=average, xp=xp)
        value = per_image_value(value_sum, count, metric=metric, zero_division=zero_division,
                                validate=validate, xp=xp)
    else:
        value = pooled_value(counts, metric=metric, average=average, zero_division=zero_division,
                             validate=validate, xp=xp, acc_dtype=prep.acc_dtype)
    return _ns.to_output(cast(value, prep.float_dtype, xp), xp)


_COMMON_PARAMETERS = """\
    y_true : array of shape (N, ...) or (N, C, ...)
        Target: a label map of class indices for ``input_format="index"`` (and
        for the index side of ``"mixed"``), else a one-hot ``(N, C, ...)``
        array (any supported array library).
    y_pred : array of shape (N, ...) or (N, C, ...)
        Prediction, in the same layout (``"mixed"``: the other one). Float
        ``(N, C, ...)`` scores (probabilities, logits) are argmaxed over axis 1.
    labels : array-like of int, default=None
        The classes scored, in result order: class indices (channel indices for
        one-hot inputs). Default: the channels of a one-hot input, else the
        distinct values of both label maps (read on the host; required with
        ``validate=False``). Other values count as "no scored class".
    ignore_index : int, default=None
        Target value whose pixels count for nothing (neither side).
    include_background : bool, default=True
        ``False`` leaves class 0 out of the scored classes.
"""

_FORMAT = """\
    input_format : {"index", "one-hot", "mixed"}, default="index"
        Layout of the inputs, as TorchMetrics names it.
"""

_VALIDATE = """\
    validate : bool, default=True
        Check values on the host; ``False`` reads nothing (declare ``labels``
        for label maps) and emits no warning.
"""

_ZERO_DIVISION = """\
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of an undefined ratio (a class absent from target and
        prediction; per image: absent from every image). "warn" gives 0.0 and
        an ``UndefinedMetricWarning``; ``np.nan`` leaves such classes out of
        the averages.
"""


_doc = sections(common=_COMMON_PARAMETERS, input_format=_FORMAT, validate=_VALIDATE,
                format_zero_validate=_FORMAT + _ZERO_DIVISION + _VALIDATE)


@metric_edge
@_doc
def mean_iou(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    ignore_index: int | None = None,
    include_background: bool = True,
    average: Average = "macro",
    per_image: bool = False,
    input_format: InputFormat = "index",
    zero_division: Literal["warn"] | float = "warn",
    validate: bool = True,
) -> Array:
    r"""Intersection over union (Jaccard index) per class, or averaged (mIoU).

    .. math:: \mathrm{IoU}_k = \frac{tp_k}{tp_k + fp_k + fn_k}
       = \frac{|T_k \cap P_k|}{|T_k \cup P_k|}

    Parameters
    ----------
    %(common)s
    average : {"macro", "micro", "weighted", "pairs"} or None, default="macro"
        ``None``: one IoU per class; ``"macro"``: their mean; ``"micro"``:
        from the summed counts; ``"weighted"``: weighted by true pixels;
        ``"pairs"``: the mean over the defined (image, class) pairs
        (TorchMetrics' ``MeanIoU``).
    per_image : bool, default=False
        ``False``: one pool of pixels, as ``sklearn.metrics.jaccard_score`` on
        the flattened maps. ``True``: per image, then the mean over the images
        where the value is defined (TorchMetrics' ``MeanIoU(per_class=True)``
        for ``average=None``).
    %(format_zero_validate)s

    Returns
    -------
    score : 0-d array, or array of shape (n_classes,)
        The IoU, averaged or per class (``average=None``), on the inputs'
        device (a Python float for NumPy inputs).

    References
    ----------
    .. [1] M. Everingham et al., "The PASCAL Visual Object Classes (VOC)
       Challenge", IJCV 88, 2010.
    .. [2] scikit-learn, ``sklearn.metrics.jaccard_score``; TorchMetrics,
       ``torchmetrics.segmentation.MeanIoU``.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix import mean_iou
    >>> y_true = np.array([[[0, 0], [1, 1]]])
    >>> y_pred = np.array([[[0, 1], [1, 1]]])
    >>> mean_iou(y_true, y_pred)
    0.5833333333333333
    """
    return _score("iou", y_true, y_pred, labels=labels, ignore_index=ignore_index,
                  include_background=include_background, average=average, per_image=per_image,
                  input_format=input_format, zero_division=zero_division, validate=validate)


@metric_edge
@_doc
def dice_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    ignore_index: int | None = None,
    include_background: bool = True,
    average: Average = "macro",
    per_image: bool = False,
    input_format: InputFormat = "index",
    zero_division: Literal["warn"] | float = "warn",
    validate: bool = True,
) -> Array:
    r"""Dice score (F1 of the pixels) per class, or averaged.

    .. math:: \mathrm{Dice}_k = \frac{2\, tp_k}{2\, tp_k + fp_k + fn_k}
       = \frac{2 |T_k \cap P_k|}{|T_k| + |P_k|}

    Parameters
    ----------
    %(common)s
    average : {"macro", "micro", "weighted", "pairs"} or None, default="macro"
        ``None``: one score per class; ``"macro"``: their mean; ``"micro"``:
        from the summed counts; ``"weighted"``: weighted by true pixels;
        ``"pairs"``: the mean over the defined (image, class) pairs.
    per_image : bool, default=False
        ``False``: one pool of pixels, as ``sklearn.metrics.f1_score`` on the
        flattened maps. ``True``: per image, then the mean over the images
        where the value is defined (TorchMetrics' ``DiceScore``, whose
        ``average`` it takes).
    %(format_zero_validate)s

    Returns
    -------
    score : 0-d array, or array of shape (n_classes,)
        The Dice score, averaged or per class (``average=None``), on the
        inputs' device (a Python float for NumPy inputs).

    References
    ----------
    .. [1] L. R. Dice, "Measures of the Amount of Ecologic Association Between
       Species", Ecology 26, 1945.
    .. [2] scikit-learn, ``sklearn.metrics.f1_score``; TorchMetrics,
       ``torchmetrics.segmentation.DiceScore``.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix import dice_score
    >>> y_true = np.array([[[0, 0], [1, 1]]])
    >>> y_pred = np.array([[[0, 1], [1, 1]]])
    >>> dice_score(y_true, y_pred)
    0.7333333333333334
    """
    return _score("dice", y_true, y_pred, labels=labels, ignore_index=ignore_index,
                  include_background=include_background, average=average, per_image=per_image,
                  input_format=input_format, zero_division=zero_division, validate=validate)


@metric_edge
@_doc
def pixel_accuracy(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    ignore_index: int | None = None,
    include_background: bool = True,
    average: Average = "micro",
    per_image: bool = False,
    input_format: InputFormat = "index",
    zero_division: Literal["warn"] | float = "warn",
    validate: bool = True,
) -> Array:
    r"""Pixel accuracy: the share of target pixels predicted right, overall or per class.

    .. math:: \mathrm{Acc} = \frac{\sum_k tp_k}{\sum_k |T_k|}, \qquad
       \mathrm{Acc}_k = \frac{tp_k}{|T_k|}

    Parameters
    ----------
    %(common)s
    average : {"micro", "macro", "weighted", "pairs"} or None, default="micro"
        ``"micro"``: the overall pixel accuracy; ``None``: the accuracy of each
        class (its recall); ``"macro"``: their mean (the mean class accuracy);
        ``"weighted"``: weighted by true pixels; ``"pairs"``: the mean over
        the defined (image, class) pairs.
    per_image : bool, default=False
        ``False``: one pool of pixels, as ``sklearn.metrics.recall_score`` on
        the flattened maps (``accuracy_score`` for ``"micro"`` over all
        classes). ``True``: per image, then the mean over the images where
        the value is defined.
    %(format_zero_validate)s

    Returns
    -------
    score : 0-d array, or array of shape (n_classes,)
        The accuracy, overall or per class (``average=None``), on the inputs'
        device (a Python float for NumPy inputs).

    References
    ----------
    .. [1] J. Long, E. Shelhamer and T. Darrell, "Fully Convolutional Networks
       for Semantic Segmentation", CVPR 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix import pixel_accuracy
    >>> y_true = np.array([[[0, 0], [1, 1]]])
    >>> y_pred = np.array([[[0, 1], [1, 1]]])
    >>> pixel_accuracy(y_true, y_pred)
    0.75
    """
    return _score("accuracy", y_true, y_pred, labels=labels, ignore_index=ignore_index,
                  include_background=include_background, average=average, per_image=per_image,
                  input_format=input_format, zero_division=zero_division, validate=validate)


def _class_weights(true, weight_type, xp):
    """Generalized-Dice class weights of each row; a class without true pixels
    takes the largest weight of its row (0 if none has any)."""
    if weight_type == "linear":
        return xp.ones_like(true)
    has = true > 0
    safe = xp.where(has, true, xp.ones_like(true))
    w = 1.0 / (safe * safe if weight_type == "square" else safe)
    w = xp.where(has, w, xp.zeros_like(w))
    return xp.where(has, w, xp.max(w, axis=1, keepdims=True))


@metric_edge
@_doc
def generalized_dice_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    ignore_index: int | None = None,
    include_background: bool = True,
    average: Literal["weighted"] | None = "weighted",
    weight_type: Literal["square", "simple", "linear"] = "square",
    per_image: bool = False,
    input_format: InputFormat = "index",
    validate: bool = True,
) -> Array:
    r"""Generalized Dice score: class-weighted Dice, each weight from the class's size.

    .. math:: \mathrm{GDS} = \frac{2 \sum_k w_k\, tp_k}{\sum_k w_k (|T_k| + |P_k|)},
       \qquad w_k = |T_k|^{-2}, \; |T_k|^{-1} \text{ or } 1

    (``weight_type`` "square", "simple", "linear"). A class without target
    pixels gets the largest weight of the others, as in MONAI.

    Parameters
    ----------
    %(common)s
    average : {"weighted"} or None, default="weighted"
        ``"weighted"``: the generalized Dice score; ``None``: per class (the
        weights cancel: each class's Dice, 0 where undefined).
    weight_type : {"square", "simple", "linear"}, default="square"
        Class weight: inverse squared size, inverse size, or 1.
    per_image : bool, default=False
        ``False``: one pool of pixels. ``True``: per image, then the mean over
        every image (0 where undefined), as TorchMetrics'
        ``GeneralizedDiceScore``.
    %(input_format)s
    %(validate)s

    Returns
    -------
    score : 0-d array, or array of shape (n_classes,)
        The score, or one per class (``average=None``), on the inputs' device
        (a Python float for NumPy inputs).

    References
    ----------
    .. [1] C. H. Sudre et al., "Generalised Dice Overlap as a Deep Learning
       Loss Function for Highly Unbalanced Segmentations", DLMIA 2017.
    .. [2] TorchMetrics, ``torchmetrics.segmentation.GeneralizedDiceScore``.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix import generalized_dice_score
    >>> y_true = np.array([[[0, 0], [1, 1]]])
    >>> y_pred = np.array([[[0, 1], [1, 1]]])
    >>> generalized_dice_score(y_true, y_pred)
    0.75
    """
    prep, counts = _counts(y_true, y_pred, labels=labels, ignore_index=ignore_index,
                           include_background=include_background, average=average,
                           per_image=per_image, input_format=input_format, validate=validate,
                           averages=(None, "weighted"), weight_type=weight_type)
    xp = prep.xp
    value = xp.mean(generalized_dice_rows(counts, weight_type=weight_type, average=average,
                                          xp=xp), axis=0)
    return _ns.to_output(cast(value, prep.float_dtype, xp), xp)


def generalized_dice_rows(counts, *, weight_type, average, xp):
    """The generalized Dice of each row of the counts: ``(M,)``, or ``(M, K)`` per
    class for ``average=None`` (0 where undefined)."""
    w = _class_weights(counts.true, weight_type, xp)
    num = (counts.tp + counts.tp) * w
    den = (counts.true + counts.pred) * w
    if average is not None:
        num, den = xp.sum(num, axis=1), xp.sum(den, axis=1)
    return safe_divide(num, den, zero_value=0.0, xp=xp)
