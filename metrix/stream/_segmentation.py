"""Streaming segmentation metrics: IoU, Dice, generalized Dice, pixel accuracy.

The state is the statistic of :mod:`metrix.segmentation` summed over the
batches, so the result equals the one-shot function on every image at once:

* dataset level (``per_image=False``, the default): ``{"tp", "pred",
  "true"}``, the per-class pixel counts (int64, exact) of one ``bincount``
  per batch;
* per image (``per_image=True``): ``{"value_sum",
  "count"}``, each image's values and the number of images where they are
  defined, summed (floats; :func:`metrix.segmentation.metrics.per_image_sums`).
  Images are independent, so sums over the batches add, and ``merge`` /
  ``sync`` add them too.

``update`` reads no value on the host with ``validate=False`` (the default):
the classes are declared (``num_classes``), so it runs under ``jax.jit`` and
``torch.compile(fullgraph=True)``.  Label values outside ``0..num_classes-1``
(other than ``ignore_index``) are no scored class: a false negative of the
true class, or a false positive of the predicted one.
"""

from __future__ import annotations

from .._core import namespace as _ns
from .._core.lane import cast
from .._core.validation import check_zero_division
from ..segmentation._input import check_parameters, prepare
from ..segmentation._statistic import SegmentCounts, segment_counts
from ..segmentation.metrics import (
    AVERAGES,
    generalized_dice_rows,
    per_image_sums,
    per_image_value,
    pooled_value,
)
from ._functional import StreamMetric, count_dtype, dtype_probe, result_dtype

_METRICS = ("iou", "dice", "accuracy", "generalized_dice")


class SegmentationStream(StreamMetric):
    """Functional streaming segmentation metric over classes ``0..num_classes-1``.

    Parameters
    ----------
    num_classes : int
        Number of classes (channels of one-hot inputs); the label values are
        ``0..num_classes-1``.
    metric : {"iou", "dice", "accuracy", "generalized_dice"}
        :func:`metrix.mean_iou`, :func:`metrix.dice_score`,
        :func:`metrix.pixel_accuracy` or :func:`metrix.generalized_dice_score`.
    average, include_background, ignore_index, per_image, input_format
        As in the one-shot function (``generalized_dice``: ``"weighted"`` or
        None).
    zero_division : {0.0, 1.0, nan, "warn"}, default="warn"
        Value of an undefined ratio; ``"warn"`` gives 0.0 without a warning
        (``compute`` reads nothing on the host).
    weight_type : {"square", "simple", "linear"}, default="square"
        ``generalized_dice`` only.
    validate : bool, default=False
        Check each batch's values on the host, as the one-shot functions do.
    """

    weighted = False

    def __init__(self, num_classes, metric="iou", *, average="macro",
                 include_background=True, ignore_index=None, per_image=False,
                 input_format="index", zero_division="warn", weight_type="square",
                 validate=False):
        self._positive_int(num_classes, "num_classes")
        if metric not in _METRICS:
            raise ValueError(f"Unknown segmentation metric {metric!r}; expected one of "
                             f"{_METRICS}")
        gds = metric == "generalized_dice"
        check_parameters(average=average, averages=(None, "weighted") if gds else AVERAGES,
                         ignore_index=ignore_index, include_background=include_background,
                         per_image=per_image, input_format=input_format,
                         weight_type=weight_type if gds else None)
        if not gds:
            check_zero_division(zero_division)
        self.num_classes, self.metric, self.average = num_classes, metric, average
        self.include_background, self.ignore_index = include_background, ignore_index
        self.per_image = per_image
        self.input_format, self.zero_division = input_format, zero_division
        self.weight_type = weight_type if gds else None
        self.validate = bool(validate)
        self.classes = [c for c in range(num_classes) if include_background or c != 0]
        if not self.classes:
            raise ValueError("num_classes=1 with include_background=False leaves no class "
                             "to score.")
        # the pooled counts are one statistic for every metric and average
        pooled = ("segment", num_classes, include_background, ignore_index, input_format,
                  self.validate)
        self.key = (pooled + (metric, average, self.weight_type) if self.per_image
                    else pooled)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        zd = self.zero_division
        return {"kind": "SegmentationStream", "metric": self.metric,
                "num_classes": self.num_classes, "average": self.average,
                "include_background": self.include_background,
                "ignore_index": self.ignore_index, "per_image": self.per_image,
                "input_format": self.input_format,
                "zero_division": zd if isinstance(zd, str) else float(zd),
                "weight_type": self.weight_type}

    # -- state ---------------------------------------------------------------
    def _init(self, xp, device, fdt):
        k = len(self.classes)
        if not self.per_image:
            cdt = count_dtype(xp, device)
            return {"tp": xp.zeros((k,), dtype=cdt, device=device),
                    "pred": xp.zeros((k,), dtype=cdt, device=device),
                    "true": xp.zeros((k,), dtype=cdt, device=device),
                    "meta_dtype": dtype_probe(xp, device, fdt)}
        acc = _ns.max_float_dtype(xp, device)
        shape = (k,) if self.average is None else ()
        count_shape = () if self.metric == "generalized_dice" else shape
        return {"value_sum": xp.zeros(shape, dtype=acc, device=device),
                "count": xp.zeros(count_shape, dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def update(self, state, y_true, y_pred, sample_weight=None):
        """Add one batch of images (label maps, or one-hot / scores ``(N, C, ...)``)."""
        self._check_weight(sample_weight)
        leaf = state["tp"] if "tp" in state else state["value_sum"]
        xp, device = _ns.get_namespace_and_device(leaf)
        y_true = _ns.asarray(y_true, xp=xp, device=device)
        y_pred = _ns.asarray(y_pred, xp=xp, device=device)
        if y_true.shape[:1] == y_pred.shape[:1] == (0,):  # no image (a static shape)
            return state
        prep = prepare(y_true, y_pred, labels=self.classes,
                       ignore_index=self.ignore_index, include_background=True,
                       input_format=self.input_format, validate=self.validate)
        if prep.n_channels is not None and prep.n_channels != self.num_classes:
            raise ValueError(f"One-hot inputs with {prep.n_channels} channels for "
                             f"num_classes={self.num_classes}.")
        counts = segment_counts(prep, per_image=self.per_image)
        if not self.per_image:
            return {**state, **{name: state[name] + cast(c[0, :], state[name].dtype, xp)
                                for name, c in zip(("tp", "pred", "true"), counts)}}
        acc = state["value_sum"].dtype
        counts = SegmentCounts(*(cast(c, acc, xp) for c in counts))
        if self.metric == "generalized_dice":
            rows = generalized_dice_rows(counts, weight_type=self.weight_type,
                                         average=self.average, xp=xp)
            value_sum, count = xp.sum(rows, axis=0), rows.shape[0]  # every image counts
        else:
            value_sum, count = per_image_sums(counts, metric=self.metric,
                                              average=self.average, xp=xp)
        return {**state, "value_sum": state["value_sum"] + value_sum,
                "count": state["count"] + count}

    # -- results -------------------------------------------------------------
    def compute(self, state):
        """The metric of all the images seen (0-d, or per class for ``average=None``)."""
        leaf = state["tp"] if "tp" in state else state["value_sum"]
        xp, device = _ns.get_namespace_and_device(leaf)
        fdt = result_dtype(state, xp)
        acc = _ns.max_float_dtype(xp, device)
        if self.per_image:
            if self.metric == "generalized_dice":
                value = state["value_sum"] / xp.where(state["count"] > 0, state["count"],
                                                      xp.ones_like(state["count"]))
            else:
                value = per_image_value(state["value_sum"], state["count"],
                                        metric=self.metric, zero_division=self.zero_division,
                                        validate=False, xp=xp)
            return cast(value, fdt, xp)
        counts = SegmentCounts(*(xp.reshape(cast(state[n], acc, xp), (1, -1))
                                 for n in ("tp", "pred", "true")))
        if self.metric == "generalized_dice":
            value = generalized_dice_rows(counts, weight_type=self.weight_type,
                                          average=self.average, xp=xp)[0, ...]
        elif self.average == "pairs":  # the defined classes of the one pool
            value_sum, count = per_image_sums(counts, metric=self.metric, average="pairs",
                                              xp=xp)
            value = per_image_value(value_sum, count, metric=self.metric,
                                    zero_division=self.zero_division, validate=False, xp=xp)
        else:
            value = pooled_value(counts, metric=self.metric, average=self.average,
                                 zero_division=self.zero_division, validate=False, xp=xp,
                                 acc_dtype=acc)
        return cast(value, fdt, xp)
