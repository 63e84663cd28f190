"""Streaming label metrics: one (C+2) x (C+2) confusion matrix per stream.

The state is ``{"cm": counts}``: a (C+2) x (C+2) confusion matrix, kept flat
(``(C+2)**2`` cells, row-major), from one ``bincount`` of the cells
(``ops.edge_cells``) per batch.  Class ``i``
has row/column ``i + 1``; rows/columns 0 and ``C + 1`` are "other" bins for
values below 0 and at or above ``C`` (e.g. an ``ignore_index`` of -100).
Integer labels are encoded by one clip per array, float labels compared as
values (``_float_labels``), other dtypes through :func:`metrix.classification._encoding.encode`
with the declared labels.  The matrix is int64 (exact counts) unless the metric is created with
``weighted=True``, where it is a sum of sample weights in the widest float of
the device.  The dtype is fixed at construction, so every rank of a
distributed job holds the same dtypes.

Every metric of the family reads the same matrix (a collection pays for one
bincount per batch), with the one-shot formulas: precision / recall / F-beta
through :func:`metrix.classification._prf.prf_from_counts` on the per-class counts of
:func:`metrix.classification._statistic.counts_from_confusion`; jaccard by
:func:`~metrix.classification._prf.jaccard_from_counts`; MCC, Cohen's kappa and
balanced accuracy by the ``*_from_confusion`` functions of
:mod:`metrix.classification.agreement` (the one-shot functions' formulas, on
the matrix), through :meth:`LabelStream.of_matrix`.

**Bad labels.**  With ``validate=True`` every batch is checked as the
one-shot functions check their input: float labels must be integral and
finite (``[0.9, 1.2]`` raises scikit-learn's "Classification metrics can't
handle a mix of multiclass and continuous targets"; ``[0., 1.]`` is accepted
as the labels 0 and 1) and every label must be in ``0..C-1``.  With
``validate=False`` nothing is read: labels compare as values, as in the
one-shot functions with ``validate=False`` (a float label is class ``i`` when
it equals ``i``: 1.0 is class 1, while 0.9, 2.5, NaN and +-inf are none of
the classes; nothing is truncated), and a label that is none of ``0..C-1``
goes to an "other" bin, the same on every backend.  The "other" bins are no
class: per-class metrics (precision, recall, F-beta, jaccard, the confusion
matrix) ignore them as ``labels=range(C)`` does in the one-shot functions (an
"other" prediction of a true class ``i`` is a false negative of ``i``);
accuracy (and Hamming / zero-one loss) counts every sample with an "other"
label as an error, even two equal ones; MCC, kappa and balanced accuracy read
the classes' C x C block only.

**Binary probabilities.**  With ``num_classes=2`` a floating ``y_pred`` of
shape ``(n,)`` or ``(n, 1)`` is read as probabilities of class 1 and
thresholded (``threshold=0.5``; float labels 0.0 / 1.0 give the same
classes; a NaN score is an "other" prediction); ``threshold=None`` keeps the
float-label reading above.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.validation import check_consistent_length, check_real_dtypes, check_targets
from ..backends import ops as _ops
from ..classification._encoding import encode
from ..classification._prf import (
    PRF,
    check_beta,
    check_macro_over,
    jaccard_from_counts,
    prf_from_counts,
)
from ..classification._statistic import (
    LabelCounts,
    counts_from_confusion,
    normalize_confusion,
)
from ..classification.agreement import (
    balanced_accuracy_from_confusion,
    kappa_from_confusion,
    mcc_from_confusion,
)
from ..classification.confusion import accuracy_from_totals
from ._functional import StreamMetric, array_namespace, count_dtype, int_dtypes, is_float

_PRF = ("precision", "recall", "f1", "fbeta")
#: the metrics of the whole matrix, not of per-class counts (:meth:`LabelStream.of_matrix`)
MATRIX_METRICS = ("mcc", "kappa", "balanced_accuracy")
_METRICS = _PRF + ("accuracy", "jaccard", "confusion", "hamming", "zero_one") + MATRIX_METRICS
_AVERAGES = ("binary", "micro", "macro", "weighted", None)


class LabelStream(StreamMetric):
    """Functional streaming label metric over declared classes ``0..num_classes-1``.

    Parameters
    ----------
    num_classes : int
        Number of classes; labels are the integers ``0..num_classes-1``
        (values outside them fall in the "other" bins: ignored by per-class
        metrics, counted as errors by accuracy).
    metric : str
        One of ``precision, recall, f1, fbeta, accuracy, jaccard, mcc, kappa,
        confusion, balanced_accuracy, hamming, zero_one``.
    average : {"binary", "micro", "macro", "weighted"} or None
        As in scikit-learn (``None``: per class).  For ``accuracy``, ``None``
        and ``"micro"`` are plain accuracy and ``"macro"``/``"weighted"`` the
        averaged per-class recall (TorchMetrics' meaning).
    beta, pos_label, zero_division, weights, adjusted, normalize
        The one-shot metric's parameters.  ``zero_division="warn"`` gives the
        value 0 without the warning (``compute`` reads nothing on the host).
    weighted : bool, default=False
        Accept ``sample_weight`` (float state) instead of int64 counts.
    validate : bool, default=False
        Check on the host that every label is an integer in
        ``0..num_classes-1`` (float labels: integral and finite), as the
        one-shot functions do (a device sync per batch).  Without it, see
        the module docstring for what bad labels give (non-integral float
        labels are none of the classes).
    assume_valid : bool, default=False
        The caller guarantees integer labels in ``0..num_classes-1``: skip the
        two clips that send other values to the "other" bins (about 1.3x
        faster on CPU).  Out-of-range labels then give wrong counts (negative
        ones raise in eager PyTorch).
    ignore_index : int or None, default=None
        Samples whose true label equals it count for nothing (TorchMetrics'
        ``ignore_index``; ``-100`` is the padding of token labels), without a
        host read.  They are kept in a cell of the matrix that no metric reads
        (true label above the classes, prediction below them), so a sample with
        such labels of its own is left out of accuracy too.
    threshold : float or None, default=0.5
        ``num_classes=2``: a floating ``y_pred`` of shape ``(n,)`` or ``(n, 1)``
        holds probabilities of class 1, and ``y_pred > threshold`` is the
        predicted class (as TorchMetrics' and Keras' binary metrics; float
        labels 0.0 / 1.0 give the same classes).  Pass a threshold on the
        logits' scale (``0.0``) for logits.  ``None``: float predictions are
        labels (a value that is not exactly 0 or 1 is neither class).  With
        ``validate=True`` a probability outside [0, 1] raises (when the
        threshold is inside (0, 1): a probability threshold).
    macro_over : {"all", "present"}, default="all"
        The classes of ``average="macro"`` (precision, recall, F-beta,
        jaccard, macro accuracy): all ``num_classes`` (scikit-learn's
        ``labels=range(num_classes)``), or only those present, with a non-zero
        (weighted) count in ``y_true`` or ``y_pred`` (``tp + fp + fn > 0``) of
        all the data seen, as TorchMetrics' multiclass macro average; read off
        the state on the device at ``compute``.  With no class present, the
        mean over all classes (the ``zero_division`` value).  Other averages
        and metrics ignore it.
    """

    def __init__(self, num_classes, metric="accuracy", *, average="macro", beta=1.0,
                 pos_label=1, zero_division="warn", weights=None, adjusted=False,
                 normalize=None, weighted=False, validate=False, assume_valid=False,
                 ignore_index=None, threshold=0.5, macro_over="all"):
        self._positive_int(num_classes, "num_classes")
        if metric not in _METRICS:
            raise ValueError(f"Unknown label metric {metric!r}; expected one of {_METRICS}")
        if average not in _AVERAGES:
            raise ValueError(f"average must be one of {_AVERAGES}, got {average!r}")
        if average == "binary" and not 0 <= int(pos_label) < num_classes:
            raise ValueError(f"pos_label={pos_label!r} is not in 0..{num_classes - 1}")
        if metric == "fbeta":
            check_beta(beta)
        check_macro_over(macro_over)
        if weights not in (None, "linear", "quadratic"):
            raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
        if normalize not in (None, "true", "pred", "all"):
            raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got "
                             f"{normalize!r}")
        self.num_classes, self.metric, self.average = num_classes, metric, average
        self.macro_over = macro_over
        self.beta = 1.0 if metric == "f1" else float(beta)
        self.pos_label, self.zero_division = pos_label, zero_division
        self.kappa_weights, self.adjusted, self.normalize = weights, adjusted, normalize
        self.weighted, self.validate = bool(weighted), bool(validate)
        self.assume_valid = bool(assume_valid)
        if threshold is not None:
            threshold = float(threshold)
            if threshold != threshold:
                raise ValueError("threshold must be a number or None, got NaN")
        self.threshold = threshold if num_classes == 2 else None
        self.ignore_index = self._checked_ignore_index(ignore_index)
        self._labels = list(range(num_classes))
        self.key = ("confusion", num_classes, self.weighted, self.validate, self.assume_valid,
                    self.threshold, self.ignore_index)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        zd = self.zero_division
        out = {"kind": "LabelStream", "metric": self.metric, "num_classes": self.num_classes,
               "average": self.average, "beta": self.beta, "pos_label": _plain(self.pos_label),
               "zero_division": zd if isinstance(zd, str) else float(zd),
               "weights": self.kappa_weights, "adjusted": bool(self.adjusted),
               "normalize": self.normalize, "weighted": self.weighted,
               "ignore_index": self.ignore_index}
        if self.macro_over != "all":  # states saved before the option load as "all"
            out["macro_over"] = self.macro_over
        if self.num_classes == 2 and self.threshold != 0.5:  # (the same, for threshold)
            out["threshold"] = self.threshold
        return out

    # -- state ---------------------------------------------------------------
    def _init(self, xp, device, fdt):
        size = self.num_classes + 2
        dtype = _ns.max_float_dtype(xp, device) if self.weighted else _ns.count_dtype(xp, device)
        cm = xp.zeros((size * size,), dtype=dtype, device=device)
        array_namespace(cm)  # fill the cache eagerly (not inside a compiled step)
        return {"cm": cm}

    def _cells(self, yt, yp, xp, device):
        """The cell ``a * (C + 2) + b`` of each sample (``ops.edge_cells``).

        Cell ``(i + 1, j + 1)`` holds true class ``i``, predicted ``j``; row /
        column 0 and ``C + 1`` are the "other" bins.  Integer labels cost one
        clip per array and the combination; other dtypes go through
        :func:`metrix.classification._encoding.encode` (class codes ``0..C-1``, ``C`` for others).
        """
        c = self.num_classes
        ints = int_dtypes(xp)
        if yt.dtype in ints and yp.dtype in ints:
            # assume_valid: the caller guarantees 0 <= labels < C (no clip)
            return _ops(xp).edge_cells(yt, yp, n=c, clip=not self.assume_valid)
        device = _ns.device_of(yt) if device is None else device
        space = encode(yt, yp, labels=self._labels, xp=xp, device=device)
        return _ops(xp).edge_cells(space.y_true, space.y_pred, n=c, clip=False)

    def update(self, state, y_true, y_pred, sample_weight=None):
        """The state after one batch (pure; no host read unless ``validate``).

        ``y_pred`` may be labels ``(n,)`` or scores ``(n, num_classes)``
        (their argmax is the prediction).
        """
        self._check_weight(sample_weight)
        cm = state["cm"]
        xp = array_namespace(cm)
        device = None
        if type(y_true) is not type(cm) or type(y_pred) is not type(cm):
            # inputs of the state's array type are used as they are (no conversion call)
            device = _ns.device_of(cm)
            y_true = _ns.asarray(y_true, xp=xp, device=device)
            y_pred = _ns.asarray(y_pred, xp=xp, device=device)
        check_real_dtypes((y_true, y_pred), self.input_names, xp)
        yt, yp = y_true, y_pred
        if yp.ndim == 2 and yp.shape[1] == self.num_classes and self.num_classes > 1:
            yp = xp.argmax(yp, axis=1)
        elif yp.ndim == 2 and yt.ndim == 1 and yp.shape[1] > 1:
            raise ValueError(f"y_pred has shape {tuple(yp.shape)}: scores need one column per "
                             f"class, num_classes={self.num_classes}.")
        yt, yp = self._flat(yt, xp), self._flat(yp, xp)
        check_consistent_length(yt, yp)
        c = self.num_classes
        ints = int_dtypes(xp)
        ignored = None if self.ignore_index is None else yt == self.ignore_index
        ft, fp = is_float(yt, xp), is_float(yp, xp)
        if fp and self.threshold is not None:  # binary probabilities (see threshold)
            if self.validate and yp.shape[0]:  # host read: validate=True only
                _check_probabilities(yp, self.threshold, xp)
            cdt = yt.dtype if yt.dtype in ints else _ns.count_dtype(xp, _ns.device_of(yp))
            # above the threshold: 1; else 0; NaN: -1 (an "other" bin)
            yp = xp.astype(yp > self.threshold, cdt) - xp.astype(yp != yp, cdt)
            fp = False
        if ft or fp:
            if self.validate and yt.shape[0]:  # host reads: the one-shot target checks
                check_targets(yt, yp, xp=xp, validate=True, exact_binary=False)
            yt = _float_labels(yt, c, xp) if ft else yt
            yp = _float_labels(yp, c, xp) if fp else yp
        if ignored is not None:  # to the unread cell (true above the classes, pred below)
            cdt = _ns.count_dtype(xp, _ns.device_of(yt))
            yt, yp = xp.astype(yt, cdt, copy=False), xp.astype(yp, cdt, copy=False)
            yt = xp.where(ignored, xp.full_like(yt, c), yt)
            yp = xp.where(ignored, xp.full_like(yp, -1), yp)
        if (sample_weight is None and not self.validate and yt.dtype in ints
                and yp.dtype in ints):
            # the training-loop case: one kernel (cells and bincount) per batch
            return {**state, "cm": _ops(xp).edge_confusion(cm, yt, yp, n=c,
                                                           clip=not self.assume_valid)}
        batch = self._batch_counts(yt, yp, ignored, sample_weight, cm, xp, device)
        return {**state, "cm": cm + batch}

    def _batch_counts(self, yt, yp, ignored, sample_weight, cm, xp, device):
        """One batch's flat counts in ``cm``'s dtype, the general way (checks, weights, dtypes)."""
        c = self.num_classes
        cells = self._cells(yt, yp, xp, device)
        if self.validate:  # host read: validate=True only
            row, col = cells // (c + 2), cells % (c + 2)
            bad = (row < 1) | (row > c) | (col < 1) | (col > c)
            if ignored is not None:
                bad = bad & ~ignored
            if bool(xp.any(bad)):  # host read: validate=True only
                raise ValueError(f"Labels must be integers in [0, {c}) (num_classes={c}).")
        w = None if sample_weight is None else self._flat_as(
            _ns.asarray(sample_weight, xp=xp, device=_ns.device_of(cm)), cm.dtype, xp)
        batch = _ops(xp).bincount(cells, length=(c + 2) ** 2, weights=w)
        return batch if batch.dtype == cm.dtype else xp.astype(batch, cm.dtype)

    # -- results -------------------------------------------------------------
    def compute(self, state):
        """The metric of all the data seen: 0-d (or per-class) arrays on the state's device."""
        cm = state["cm"]
        xp, device = _ns.get_namespace_and_device(cm)
        cm = xp.reshape(cm, (self.num_classes + 2, self.num_classes + 2))
        fdt = _ns.max_float_dtype(xp, device)
        c = self.num_classes
        m = self.metric
        inner = cm[1:c + 1, 1:c + 1]
        if m == "confusion":
            if self.normalize is None:
                return inner
            return normalize_confusion(inner, self.normalize, dtype=fdt, xp=xp)
        if m in ("accuracy", "hamming", "zero_one") and self.average in (None, "micro"):
            acc = accuracy_from_confusion(cm, c, fdt=fdt, xp=xp,
                                          ignored=self.ignore_index is not None)
            return acc if m == "accuracy" else 1.0 - acc
        if m == "accuracy":
            return self._prf(cm, fdt, xp, device, which=1, average=self.average)
        if m in _PRF:
            which = {"precision": 0, "recall": 1}.get(m, 2)
            return self._prf(cm, fdt, xp, device, which=which, average=self.average)
        if m == "jaccard":
            counts, average = self._counts(cm, xp, device)
            out = jaccard_from_counts(tuple(xp.astype(v, fdt) for v in counts), average=average,
                                      zero_division=self.zero_division, xp=xp,
                                      macro_over=self.macro_over)
            return xp.reshape(out, ()) if self.average == "binary" else out
        return self.of_matrix(inner)

    def of_matrix(self, matrix):
        """The metric (one of ``MATRIX_METRICS``: MCC, Cohen's kappa, balanced accuracy)
        of a square confusion matrix, with this metric's parameters, in the widest
        float of its device.  :meth:`compute` gives it the classes' ``C x C`` block;
        the Hugging Face face gives it the whole matrix (the "other" bins as classes
        that are never predicted)."""
        xp, device = _ns.get_namespace_and_device(matrix)
        fdt = _ns.max_float_dtype(xp, device)
        if self.metric == "mcc":
            return mcc_from_confusion(matrix, fdt=fdt, xp=xp)
        if self.metric == "kappa":
            return kappa_from_confusion(matrix, weights=self.kappa_weights, fdt=fdt, xp=xp)
        return balanced_accuracy_from_confusion(matrix, adjusted=self.adjusted, fdt=fdt,
                                                xp=xp)

    def _counts(self, cm, xp, device):
        full = counts_from_confusion(cm, xp=xp)
        c = self.num_classes
        counts = LabelCounts(*(v[1:c + 1] for v in full))
        average = self.average
        if average == "binary":
            p = int(self.pos_label)
            counts = LabelCounts(*(v[p:p + 1] for v in counts))
            average = None
        return counts, average

    def _prf(self, cm, fdt, xp, device, *, which, average):
        counts, avg = self._counts(cm, xp, device)
        out = prf_from_counts(counts, beta=self.beta, average=avg, warn_for=(),
                              zero_division=self.zero_division, weights=None, xp=xp,
                              dtype=fdt, acc_dtype=fdt, validate=False,
                              want=(PRF[which],), macro_over=self.macro_over)[which]
        if self.average == "binary":
            out = xp.reshape(out, ())
        return out


def _check_probabilities(yp, threshold, xp):
    """validate=True: binary probabilities lie in [0, 1] (host read)."""
    if 0.0 < threshold < 1.0 and not bool(xp.all((yp >= 0) & (yp <= 1))):
        raise ValueError(
            "y_pred holds binary scores outside [0, 1] (NaN, or logits?), read as "
            f"probabilities of class 1 above threshold={threshold}. Apply a sigmoid, or "
            "pass threshold=0.0 for logits (threshold=None: float labels).")


def _float_labels(y, c, xp):
    """Float labels as integer codes, compared as values (no host read): an
    integral value is that integer; a non-integral one and NaN are -1 (an
    "other" bin) and values beyond ``[-1, c]`` are clipped before the cast (no
    overflow), so they land in the "other" bins on every backend."""
    y = xp.where(y == xp.floor(y), y, xp.full_like(y, -1.0))  # NaN: not integral
    return xp.astype(xp.clip(y, -1.0, float(c)), count_dtype(xp, _ns.device_of(y)))


def _plain(v):
    """A host scalar as a plain Python value (for the saved configuration: a
    constructor argument such as ``pos_label``, never a device array)."""
    return v.item() if hasattr(v, "item") else v


# -- formulas on the confusion matrix (scikit-learn's) ----------------------------

def accuracy_from_confusion(cm, c, *, fdt, xp, ignored=False):
    """Accuracy (:func:`~metrix.classification.confusion.accuracy_from_totals`) of
    the trace of the classes over ``sum(cm)``: samples in the other bins count as
    errors (``ignored``: but not those of the cell ``(c + 1, 0)``, the ignored
    samples).  NaN when no sample counts (all ignored): the accuracy of no data."""
    cmf = xp.astype(cm, fdt)
    correct = xp.sum(xp.reshape(cmf[1:c + 1, 1:c + 1], (-1,))[:: c + 1])
    total = xp.sum(cmf)
    if ignored:
        total = total - cmf[c + 1, 0]
    return accuracy_from_totals(correct, total, undefined=math.nan, xp=xp)
