"""The training-loop lane of the label metrics.

A call takes the lane when nothing about it needs a host read or the general
preparation: ``validate=False``, declared ``labels`` equal to ``0..C-1``, and
1-D integer ``y_true`` / ``y_pred`` (and 1-D float ``sample_weight``) of one
array type on one device.  A validated call without
``labels`` takes it too when a few host reads find the labels to be exactly
``0..C-1`` (:func:`discovered_lane_inputs`).  Everything else (lists, strings,
other label sets, weights under validation, empty input, offline sizes on a
CPU) takes the general path of :mod:`._input`, which gives the same numbers.

The statistic is one count of edge cells (``ops.edge_counts``): a
``(C + 2) x (C + 2)`` confusion matrix whose first and last rows / columns
collect the values below 0 and at or above ``C`` (undeclared labels).  Per
class, ``tp`` is the inner diagonal and ``true`` / ``pred`` are the full row /
column sums, as scikit-learn counts declared labels; the confusion matrix is
the inner block.  The statistic and the metric's formula run as one pure
function through ``ops.lane`` (NumPy views on torch CPU, one compiled program
per configuration on eager JAX, a handful of kernels on accelerators).
"""

from __future__ import annotations

from typing import NamedTuple

from .._core import namespace as _ns
from .._core.lane import lane_namespace_1d
from ..backends import ops as _ops
from ._input import LabelProblem
from ._statistic import LabelCounts, counts_from_confusion


class LaneInputs(NamedTuple):
    xp: object
    ops: object
    n_classes: int


def lane_inputs(y_true, y_pred, sample_weight, labels, validate, *,
                declared=True) -> LaneInputs | None:
    """The lane's namespace, adapter and ``C`` when the call can take it, else None.

    ``declared=False``: a metric without a label set (accuracy); ``C`` is None.
    """
    if validate:
        return None
    c = None
    if declared:
        c = None if labels is None else declared_range(labels)
        if c is None:
            return None
    xp = lane_namespace_1d(y_true, y_pred, sample_weight, _LABEL_KINDS)
    if xp is None:
        return None
    return LaneInputs(xp, _ops(xp), c)


#: the label dtypes a lane counts as they are (False and True are 0 and 1)
_LABEL_KINDS = ("integral", "bool")

#: the largest discovered label range a validated lane call counts
DISCOVERED_MAX = 1024


def discovered_lane_inputs(y_true, y_pred, sample_weight, labels, *,
                           check_present=True) -> LaneInputs | None:
    """A ``validate=True`` call without ``labels`` whose integer labels are exactly
    ``0..C-1``, each present in ``y_true`` or ``y_pred``: the lane of the declared
    ``range(C)`` gives scikit-learn's value.  Reads on the host (a validated call
    may): the minimum and maximum of both arrays, and which codes occur.  None
    (the general path) for anything else: weights, other label sets, absent codes.

    Integer 1-D labels need no other check: they are always valid binary or
    multiclass targets.  ``check_present=False``: the caller reads presence off
    its own ``C x C`` result instead (``ops.every_class_seen``).
    """
    if labels is not None or sample_weight is not None:
        return None
    xp = lane_namespace_1d(y_true, y_pred, None, "integral")
    if xp is None:
        return None
    o = _ops(xp)
    lo_t, hi_t = o.minmax(y_true)  # host reads: validate=True
    lo_p, hi_p = o.minmax(y_pred)
    lo, hi = min(int(lo_t), int(lo_p)), max(int(hi_t), int(hi_p))
    if lo < 0 or hi >= DISCOVERED_MAX:
        return None
    c = hi + 1
    if check_present:  # else the caller checks its result (every_class_seen)
        seen = o.bincount(y_true, length=c) + o.bincount(y_pred, length=c)
        if not bool(xp.all(seen > 0)):  # host read: a code absent from both is no class
            return None
    return LaneInputs(xp, o, c)


#: list / tuple -> ``{C: 0..C-1 of that type}``, to compare declared labels with
_RANGES: dict = {list: {}, tuple: {}}


def declared_range(labels) -> int | None:
    """``C`` when host ``labels`` (a list, tuple or range) equal ``0..C-1``
    (C >= 1), else None.  Compared by value, as labels match the values of
    ``y``: ``[0.0, 1.0]`` or NumPy integers declare the classes ``[0, 1]`` do
    (one C-level comparison of the two lists per call)."""
    kind = type(labels)
    if kind is list or kind is tuple:
        c = len(labels)
        refs = _RANGES[kind]
        ref = refs.get(c)
        if ref is None:
            if not c:
                return None
            ref = kind(range(c))
            if c <= 1024:
                refs[c] = ref
        try:
            return c if labels == ref else None
        except (ValueError, TypeError):  # elements that compare as arrays
            return None
    if isinstance(labels, range):
        return len(labels) if labels.start == 0 and labels.step == 1 and len(labels) else None
    return None


def declared_matrix(xp, o, y_true, y_pred, weights, c, acc):
    """The declared ``C x C`` confusion matrix: the inner block of the edge
    counts (int counts, or the weights summed in ``acc``); samples with an
    undeclared label fall in the edge rows / columns, outside it."""
    if weights is None:
        return o.inner_counts(y_true, y_pred, n=c)
    if weights.dtype != acc:
        weights = xp.astype(weights, acc)
    return o.inner_block(o.edge_counts(y_true, y_pred, n=c, weights=weights), n=c)


def float_dtypes(xp, device, weights):
    """``(accumulation dtype, result dtype)``: the widest float; the weights' float
    dtype (at least float32) when they are narrower."""
    acc = _ns.max_float_dtype(xp, device)
    if weights is None or weights.dtype == acc:
        return acc, acc
    return acc, (weights.dtype if weights.dtype == xp.float32 else acc)


def declared_counts(xp, o, y_true, y_pred, weights, c, acc) -> LabelCounts:
    """Per-class ``(tp, pred, true)`` of the declared classes, in ``acc``."""
    k = c + 2
    if weights is not None and weights.dtype != acc:
        weights = xp.astype(weights, acc)  # summed in the widest float
    flat = o.edge_counts(y_true, y_pred, n=c, weights=weights)
    if flat.dtype != acc:
        flat = xp.astype(flat, acc)
    cm = xp.reshape(flat, (k, k))
    tp = flat[k + 1:k * k - 1:k + 1]
    return LabelCounts(tp, xp.sum(cm[:, 1:c + 1], axis=0), xp.sum(cm[1:c + 1, :], axis=1))


def lane_problem(xp, o, y_true, y_pred, weights, c) -> LabelProblem:
    """The :class:`LabelProblem` of a lane call for the metrics that read the
    declared ``C x C`` matrix (a sample counts only if both its labels are
    declared, as scikit-learn's ``confusion_matrix``), in the widest float."""
    device = _ns.device_of(y_true)
    acc, fdt = float_dtypes(xp, device, weights)
    cm = declared_matrix(xp, o, y_true, y_pred, weights, c, acc)
    if cm.dtype != acc:
        cm = xp.astype(cm, acc)
    return LabelProblem(xp, device, "binary" if c <= 2 else "multiclass", list(range(c)),
                        counts_from_confusion(cm, xp=xp), cm, weights, fdt, acc,
                        int(y_true.shape[0]), y_true, y_pred, counts_of_cm=True)


def setwise_lane_problem(xp, o, y_true, y_pred, weights, c, pos) -> LabelProblem:
    """The :class:`LabelProblem` of a set-wise lane call (per-class counts over all
    samples, as :func:`declared_counts`); ``pos``: keep that class only."""
    device = _ns.device_of(y_true)
    acc, fdt = float_dtypes(xp, device, weights)
    counts = declared_counts(xp, o, y_true, y_pred, weights, c, acc)
    if pos is not None:
        counts = LabelCounts(*(v[pos:pos + 1] for v in counts))
    return LabelProblem(xp, device, "binary" if c <= 2 else "multiclass", list(range(c)),
                        counts, None, weights, fdt, acc, int(y_true.shape[0]), y_true, y_pred)


def lane_position(average, pos_label, c):
    """The class the lane reports: None (all C), ``pos_label`` for "binary", or
    False where the general path must run (its errors and warnings)."""
    if average == "binary":
        ok = c == 2 and type(pos_label) is int and 0 <= pos_label < 2
        return pos_label if ok else False
    if average == "samples" or pos_label not in (None, 1):
        return False
    return None
