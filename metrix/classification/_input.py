"""From raw label inputs to one validated, encoded statistic.

Every label metric runs, in this order:

* ``prepare_inputs``: namespace and device, the target checks (once) and the
  sample weights, as a :class:`PreparedLabels`;
* ``label_problem``: label encoding and the sufficient statistic
  (``_statistic``) of the prepared inputs, as a :class:`LabelProblem`.

Metrics look at the prepared targets in between (their type, for errors) and
then apply their formula to the problem's counts or matrix.  The set-wise
metrics (precision / recall / F-beta, jaccard) do both through
``setwise_problem``, which adds scikit-learn's ``average`` / ``pos_label`` rules.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .._core import namespace as _ns
from .._core.lane import cast
from .._core.validation import Targets, check_sample_weight, check_targets
from ..backends import ops as _ops
from . import _encoding as _labels
from . import _statistic as _stats
from ._prf import setwise_labels


class LabelProblem(NamedTuple):
    xp: object
    device: object
    y_type: str           # "binary" | "multiclass" | "multilabel-indicator"
    classes: object       # host array of the class values, in result order
    counts: _stats.LabelCounts  # per selected class (length C)
    cm: object            # C x C confusion matrix (want_cm) or None
    weights: object       # validated sample weights (widest float) or None
    float_dtype: object   # dtype of float results
    acc_dtype: object     # dtype sums are accumulated in
    n_samples: int
    y_true: object        # validated 1-D / 2-D arrays (before encoding)
    y_pred: object
    counts_of_cm: bool = False  # counts are the cm's own (a lane): matrix_counts reuses them


class PreparedLabels(NamedTuple):
    """Label inputs on one namespace and device, their targets checked."""

    xp: object
    device: object
    targets: Targets      # validated arrays, target type, values / integer bounds
    weights: object       # validated sample weights (widest float) or None
    float_dtype: object   # dtype of float results
    acc_dtype: object     # dtype sums are accumulated in


def prepare_inputs(y_true, y_pred, sample_weight, *, validate,
                   exact_binary=True) -> PreparedLabels:
    """Namespace, device, arrays, targets, weights, dtypes (shared by all label metrics)."""
    xp, device = _ns.get_namespace_and_device(y_true, y_pred, sample_weight)
    yt = _ns.asarray(y_true, xp=xp, device=device)
    yp = _ns.asarray(y_pred, xp=xp, device=device)
    targets = check_targets(yt, yp, xp=xp, validate=validate, exact_binary=exact_binary)
    acc = _ns.max_float_dtype(xp, device)
    fdt = _ns.result_float_dtype(xp, device, _float_or_none(yt, xp), _float_or_none(yp, xp),
                                 _float_or_none(sample_weight, xp))
    w = check_sample_weight(sample_weight, targets.y_true.shape[0], xp=xp, device=device,
                            dtype=acc, validate=validate, nonzero=True)
    return PreparedLabels(xp, device, targets, w, fdt, acc)


def _float_or_none(a, xp):
    if a is None or not hasattr(a, "dtype"):
        return None
    try:
        return a if xp.isdtype(a.dtype, "real floating") else None
    except Exception:
        return None


def label_problem(prepared: PreparedLabels, *, labels=None, validate=True, want_cm=False,
                  samplewise=False) -> LabelProblem:
    """Encode and count the inputs of :func:`prepare_inputs`.

    ``labels``: the declared classes (host values) or None; ``want_cm``: also
    the C x C matrix; ``samplewise``: per-sample counts (multilabel only).
    """
    xp, device, targets, w, fdt, acc = prepared
    yt, yp = targets.y_true, targets.y_pred
    o = _ops(xp)
    n = int(yt.shape[0])
    if targets.y_type == "multilabel-indicator":
        if want_cm:
            raise ValueError("multilabel-indicator is not supported")
        return _multilabel(targets, labels, w, fdt, acc, xp, device, samplewise, validate, n)
    if samplewise:
        raise ValueError(
            "Samplewise metrics are not available outside of multilabel classification.")
    repeated = None
    if labels is not None:
        labels, repeated = _distinct_labels(_ns.host_list(labels))
    weights = w
    space = cm_full = None
    if labels is None and weights is None and targets.bounds is None:
        space, cm_full = _discover_and_count(yt, yp, n, xp, o)
    elif labels is not None and weights is None:
        space, cm_full = _declared_count(yt, yp, labels, xp, o)
    if space is None:
        space = _labels.encode(yt, yp, labels=labels, xp=xp, device=device,
                               bounds=targets.bounds)
    dense = cm_full is not None or _stats.use_dense(space.size, n) or (
        want_cm and space.size * space.size <= _stats.DENSE_CELLS_LIMIT)
    if dense:
        if cm_full is None:
            cm_full = _stats.confusion_counts(space.y_true, space.y_pred, size=space.size,
                                              weights=weights, xp=xp, ops=o)
        full = _stats.counts_from_confusion(cm_full, xp=xp)
    else:
        cm_full = None
        full = _stats.label_counts(space.y_true, space.y_pred, size=space.size,
                                   weights=weights, xp=xp, ops=o)
    present = _present_codes(space, full, weights, o) if space.classes is None else None
    classes, select = _labels.resolve(space, present)
    counts = _stats.select_counts(full, select, xp=xp, device=device)
    cm = None
    if want_cm:
        cm = _class_confusion(space, select, classes, cm_full, weights, xp, device, o)
    if repeated is not None:
        classes, counts, cm = _expand_repeated(repeated, counts, cm, xp, device)
    y_type = targets.y_type
    if not validate or not space.declared:
        y_type = "binary" if len(classes) <= 2 else "multiclass"
    return LabelProblem(xp, device, y_type, classes, counts, cm, weights, fdt, acc, n, yt, yp)


def _distinct_labels(labels):
    """``(distinct labels, repeated)``: the labels without repeats (first
    occurrence order) and, when some repeat, the given list (else None)."""
    distinct = list(dict.fromkeys(labels))
    return distinct, (labels if len(distinct) != len(labels) else None)


def _expand_repeated(labels, counts, cm, xp, device):
    """scikit-learn's results for repeated ``labels``, from the distinct ones'.

    Per-label counts repeat (each position reads its value's counts, so a
    micro average counts a repeated label twice); the confusion matrix keeps
    each value at its last position and leaves the earlier ones empty
    (scikit-learn's ``{label: index}`` mapping).
    """
    position = {v: i for i, v in enumerate(dict.fromkeys(labels))}
    counts = _stats.select_counts(counts, [position[v] for v in labels], xp=xp, device=device)
    if cm is not None:
        last = {v: i for i, v in enumerate(labels)}
        empty = cm.shape[0]  # the zero row / column appended below
        pick = [position[v] if last[v] == i else empty for i, v in enumerate(labels)]
        cm = xp.concat([cm, xp.zeros((1, cm.shape[1]), dtype=cm.dtype, device=device)], axis=0)
        cm = xp.concat([cm, xp.zeros((cm.shape[0], 1), dtype=cm.dtype, device=device)], axis=1)
        cm = _stats.select_matrix(cm, pick, xp=xp, device=device)
    return _ns.host_values(labels), counts, cm


def _discover_and_count(yt, yp, n, xp, o):
    """Non-negative integer labels: their range and confusion counts in one pass
    (``ops.pair_bincount_discover``); ``(None, None)`` where it does not apply."""
    dense_side = math.isqrt(min(_stats.DENSE_CELLS_LIMIT, max(1 << 16, n)))
    found = o.pair_bincount_discover(yt, yp, max_size=dense_side)
    if found is None:
        return None, None
    flat, size = found
    space = _labels.LabelSpace(yt, yp, size, None, 0, False, "i")
    return space, xp.reshape(flat, (size, size))


def _declared_count(yt, yp, labels, xp, o):
    """Declared integer (or bool) labels ``0..C-1``: codes and confusion counts in one
    chunked pass (``ops.pair_bincount_declared``); ``(None, None)`` elsewhere.

    The space then carries no code arrays (the counts are all that is read)."""
    if _labels.label_kind(yt, xp) not in "ib" or _labels.label_kind(yp, xp) not in "ib" or not (
            _ns.host_arange_equal(labels)):
        return None, None
    c = len(labels)
    flat = o.pair_bincount_declared(yt, yp, n=c)
    if flat is None:
        return None, None
    space = _labels.LabelSpace(None, None, c + 1, labels, 0, True, "i")
    return space, xp.reshape(flat, (c + 1, c + 1))


def _present_codes(space, full, weights, o):
    """Host mask of the codes that occur, weight 0 or not (scikit-learn's classes; a host read)."""
    if weights is None:
        seen = full.true + full.pred
    else:
        seen = (o.bincount(space.y_true, length=space.size)
                + o.bincount(space.y_pred, length=space.size))
    return _ns.to_host(seen > 0)


def _class_confusion(space, select, classes, cm_full, weights, xp, device, o):
    """Confusion matrix of the selected classes: of ``cm_full``, or counted anew (no dense one)."""
    if cm_full is not None:
        return _stats.select_matrix(cm_full, select, xp=xp, device=device)
    c = len(classes)
    if c * c > _stats.MAX_CONFUSION_CELLS:
        raise ValueError(
            f"confusion_matrix with {c} classes needs {c}*{c} = {c * c} cells, more than "
            f"the limit of {_stats.MAX_CONFUSION_CELLS}. Use per-class metrics "
            "(precision_recall_fscore_support, multilabel_confusion_matrix) instead.")
    cdt = _ns.count_dtype(xp, device)
    if select is None:
        codes_t, codes_p = space.y_true, space.y_pred
    else:
        lut_h = [c] * space.size
        for i, pos in enumerate(select):
            lut_h[int(pos)] = i
        lut = _ns.asarray(lut_h, xp=xp, device=device, dtype=cdt)
        codes_t, codes_p = xp.take(lut, space.y_true), xp.take(lut, space.y_pred)
    keep = (codes_t < c) & (codes_p < c)
    size = c + 1
    codes_t = xp.where(keep, codes_t, xp.full_like(codes_t, c))
    codes_p = xp.where(keep, codes_p, xp.full_like(codes_p, c))
    cm = _stats.confusion_counts(codes_t, codes_p, size=size, weights=weights, xp=xp, ops=o)
    return cm[:c, :c]


def _multilabel(targets, labels, w, fdt, acc, xp, device, samplewise, validate, n):
    yt, yp = targets.y_true, targets.y_pred
    n_labels = int(yt.shape[1])
    if labels is None:
        classes = list(range(n_labels))
    else:
        classes = _ns.host_list(labels)
        if classes and (max(classes) >= n_labels or min(classes) < 0):
            bad = (f"{max(classes)} > {n_labels - 1}" if max(classes) >= n_labels
                   else f"{min(classes)} < 0")
            raise ValueError(
                f"All labels must be in [0, n labels) for multilabel targets. Got {bad}")
        idx = _ns.asarray(classes, xp=xp, device=device, dtype=_ns.count_dtype(xp, device))
        yt, yp = xp.take(yt, idx, axis=1), xp.take(yp, idx, axis=1)
    counts = _stats.multilabel_counts(yt, yp, weights=w, axis=1 if samplewise else 0,
                                      dtype=acc, xp=xp)
    return LabelProblem(xp, device, "multilabel-indicator", classes, counts, None, w, fdt, acc,
                        n, yt, yp)


def with_declared_labels(targets: Targets, labels) -> Targets:
    """The targets as declared ``labels`` say, for ``validate=False`` with labels.

    Unvalidated targets are not typed from the data (that would read it):
    two or fewer declared labels make a binary problem, more a multiclass
    one, and the declared labels are the values.  Multilabel input (a shape,
    known without a read) stays as it is.
    """
    if targets.y_type == "multilabel-indicator":
        return targets
    declared = _ns.host_list(labels)
    return targets._replace(y_type="binary" if len(declared) <= 2 else "multiclass",
                            values=tuple(declared))


def setwise_problem(y_true, y_pred, *, labels, pos_label, average, sample_weight,
                    validate) -> LabelProblem:
    """The label problem of a set-wise metric (scikit-learn's ``average`` / ``pos_label`` rules).

    ``average="binary"`` counts ``pos_label`` only; its target check runs
    without ``validate`` too when no labels are declared (the binary type is
    then read from the data, as scikit-learn reads it).
    """
    val_targets = validate or (average == "binary" and labels is None)
    prepared = prepare_inputs(y_true, y_pred, sample_weight, validate=val_targets,
                              exact_binary=average == "binary")
    if average == "binary" and not validate and labels is not None:
        prepared = prepared._replace(targets=with_declared_labels(prepared.targets, labels))
    labels = setwise_labels(prepared.targets, average=average, labels=labels,
                            pos_label=pos_label)
    return label_problem(prepared, labels=labels, validate=validate,
                         samplewise=average == "samples")


def matrix_counts(prob: LabelProblem):
    """Per-class ``(tp, pred, true)`` as scikit-learn's ``confusion_matrix`` has them.

    With declared labels a sample counts only if both its labels are declared,
    so the row / column sums come from the C x C matrix when the problem has
    one; otherwise they are the plain per-class counts.  In the accumulation
    dtype.
    """
    xp = prob.xp
    counts = prob.counts if prob.cm is None or prob.counts_of_cm else \
        _stats.counts_from_confusion(prob.cm, xp=xp)
    return tuple(cast(c, prob.acc_dtype, xp) for c in counts)


def any_label_in_y_true(prob: LabelProblem, labels) -> bool:
    """Whether a declared label occurs in ``y_true``, whatever its weight (scikit-learn's
    ``intersect1d`` check).  Reads values: ``validate=True`` only."""
    xp = prob.xp
    if prob.weights is None:  # the counts are occurrences
        return bool(xp.sum(prob.counts.true) > 0)  # host read: validate only
    declared = _ns.host_list(labels)
    codes = _ns.host_encode(_ns.to_host(prob.y_true), declared)  # host read: validate only
    return bool((codes < len(declared)).any())
