"""Streaming multilabel label metrics: indicator targets ``(N, L)``, indicators or scores.

The state is one fixed-size statistic per stream, sums that merge by addition:

* ``tp, pred, true`` ``(L,)``: per label, the (weighted) number of samples
  where the label is right and predicted, predicted, and true;
* ``n``: the number (total weight) of samples; ``exact``: of those with every
  label right (subset accuracy, exact match);
* with ``average="samples"`` only, ``samp`` and ``samp_undef`` ``(4,)``: over the
  samples, the (weighted) sum of each sample's precision, recall, F-beta and
  jaccard where it is defined, and the weight of the samples where it is not
  (no predicted / no true / neither label).  ``zero_division`` is applied at
  ``compute``, so the state does not depend on it.

``tn`` per label is ``n - pred - true + tp``.  Every value is the one-shot
formula on these counts: :func:`~metrix.classification._prf.prf_from_counts`
and :func:`~metrix.classification._prf.jaccard_from_counts` (per label, and per
sample for ``"samples"``), :func:`~metrix.classification.confusion.accuracy_from_totals`
(subset accuracy and Hamming loss) and
:func:`~metrix.classification.confusion.multilabel_confusion_from_counts`.
Equals ``sklearn.metrics`` on the indicator matrices (``accuracy_score``: subset
accuracy; ``hamming_loss``; ``multilabel_confusion_matrix``; the set-wise scores
with every ``average``).

A prediction is positive where a floating ``y_pred`` is above ``threshold``
(probabilities, or logits with ``threshold=0.0``), or where an integer / bool
``y_pred`` is not 0; a target is positive where it is not 0.  Nothing is read on
the host unless ``validate=True`` (targets in {0, 1}; probabilities in [0, 1],
not NaN; indicators in {0, 1}).  Without it a NaN score is a negative
prediction.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.validation import check_consistent_length, check_real_dtypes, check_zero_division
from ..backends import ops as _ops
from ..backends._generic import indicators
from ..classification._prf import (
    PRF,
    check_beta,
    check_macro_over,
    jaccard_from_counts,
    prf_from_counts,
)
from ..classification._statistic import LabelCounts, normalize_confusion
from ..classification.confusion import accuracy_from_totals, multilabel_confusion_from_counts
from ._functional import StreamMetric, array_namespace, count_dtype, is_float

#: the metric names ``compute_metrics`` offers for multilabel tasks (its short names)
MULTILABEL_METRICS = ("accuracy", "precision", "recall", "f1", "jaccard", "hamming_loss",
                      "zero_one_loss")
_ALIASES = {"hamming_loss": "hamming", "zero_one_loss": "zero_one"}
_SETWISE = ("precision", "recall", "f1", "fbeta", "jaccard")
_SUBSET = ("accuracy", "exact_match", "zero_one")
_METRICS = _SETWISE + _SUBSET + ("hamming", "confusion")
#: the ``LabelStream`` metrics that have a multilabel form (the generated classes')
MULTILABEL_SPECS = _SETWISE + ("accuracy", "zero_one", "hamming", "confusion")
_AVERAGES = ("micro", "macro", "weighted", "samples", None)
#: the order of the per-sample sums (``samp``, ``samp_undef``)
_SAMPLE_VALUES = ("precision", "recall", "f1", "jaccard")


class MultilabelStream(StreamMetric):
    """Functional streaming multilabel metric over ``num_labels`` indicator columns.

    Parameters
    ----------
    num_labels : int
        Columns of the ``(N, L)`` targets and predictions.
    metric : str
        One of ``precision, recall, f1, fbeta, jaccard, accuracy`` (subset
        accuracy, as scikit-learn's ``accuracy_score``), ``exact_match`` (the
        same), ``zero_one`` (1 - subset accuracy), ``hamming`` (the fraction of
        wrong labels) or ``confusion`` (one ``[[tn, fp], [fn, tp]]`` per label);
        ``hamming_loss`` and ``zero_one_loss`` are accepted too.
    average : {"micro", "macro", "weighted", "samples"} or None, default="macro"
        scikit-learn's averages of the set-wise metrics.  The subset metrics
        take ``None`` or ``"micro"`` only (TorchMetrics' per-label multilabel
        accuracy is ``1 - HammingDistance``), ``hamming`` ``None``,
        ``"micro"`` or ``"macro"`` (the same value); ``confusion`` ignores it.
    beta : float, default=1.0
        F-beta's ``beta`` (``metric="fbeta"``).
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        The value of a ratio with a zero denominator (``"warn"``: 0, without
        the warning: ``compute`` reads nothing on the host).  With ``nan`` the
        averages leave such ratios out, as scikit-learn's.
    normalize : {"true", "pred", "all"} or None, default=None
        ``confusion``: each label's 2 x 2 matrix over its rows, columns or total.
    threshold : float or None, default=0.5
        A floating ``y_pred`` above it is a positive prediction (``0.0`` for
        logits).  ``None``: any non-zero value is (indicators in float).
    weighted : bool, default=False
        Accept ``sample_weight`` (float sums in the widest float of the device)
        instead of int64 counts.
    validate : bool, default=False
        Check the values on the host (a device sync per batch): targets in
        {0, 1}, scores in [0, 1] (with a threshold inside (0, 1)), integer
        predictions in {0, 1}.
    macro_over : {"all", "present"}, default="all"
        The labels of ``average="macro"``: all ``num_labels`` (scikit-learn's,
        and TorchMetrics' multilabel macro average, which keeps absent labels),
        or only those present, set in some ``y_true`` or ``y_pred`` row
        (``tp + fp + fn > 0``; scikit-learn's ``labels=`` restricted to them);
        read off the state on the device at ``compute``.  With no label
        present, the mean over all labels (the ``zero_division`` value).
    """

    def __init__(self, num_labels, metric="accuracy", *, average="macro", beta=1.0,
                 zero_division="warn", normalize=None, threshold=0.5, weighted=False,
                 validate=False, macro_over="all"):
        self._positive_int(num_labels, "num_labels")
        metric = _ALIASES.get(metric, metric)
        if metric not in _METRICS:
            raise ValueError(f"{metric!r} has no multilabel (num_labels=) form; expected one "
                             f"of {_METRICS}")
        average = _check_average(metric, average)
        if metric == "fbeta":
            check_beta(beta)
        check_zero_division(zero_division)
        check_macro_over(macro_over)
        if normalize not in (None, "true", "pred", "all"):
            raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got "
                             f"{normalize!r}")
        if threshold is not None:
            threshold = float(threshold)
            if threshold != threshold:
                raise ValueError("threshold must be a number or None, got NaN")
        self.num_labels, self.metric, self.average = num_labels, metric, average
        self.macro_over = macro_over
        self.beta = 1.0 if metric != "fbeta" else float(beta)
        self.zero_division, self.normalize, self.threshold = zero_division, normalize, threshold
        self.weighted, self.validate = bool(weighted), bool(validate)
        #: per-sample sums are kept only for average="samples" (their F at this beta)
        self.samples = average == "samples"
        #: the subset metrics keep only the number of samples and of exact rows
        self.subset = metric in _SUBSET
        self.key = ("multilabel", num_labels, threshold, self.weighted, self.validate,
                    "subset" if self.subset else self.beta if self.samples else None)

    def reads(self, key) -> bool:
        """Whether ``compute`` can read the state of the statistic ``key`` (in a
        collection): the counts without per-sample sums are part of the state
        of an ``average="samples"`` metric of the same labels and threshold, and
        the subset metrics' two counts part of every other multilabel state."""
        if self.samples or len(key) != len(self.key) or key[:-1] != self.key[:-1]:
            return False
        return key[-1] != "subset" and (self.subset or key[-1] is not None)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        zd = self.zero_division
        out = {"kind": "MultilabelStream", "metric": self.metric,
               "num_labels": self.num_labels, "average": self.average, "beta": self.beta,
               "zero_division": zd if isinstance(zd, str) else float(zd),
               "normalize": self.normalize, "threshold": self.threshold,
               "weighted": self.weighted}
        if self.macro_over != "all":  # states saved before the option load as "all"
            out["macro_over"] = self.macro_over
        return out

    # -- state ---------------------------------------------------------------
    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        cdt = acc if self.weighted else count_dtype(xp, device)
        per_label = xp.zeros((self.num_labels,), dtype=cdt, device=device)
        scalar = xp.zeros((), dtype=cdt, device=device)
        state = {"n": scalar, "exact": scalar}
        if not self.subset:
            state.update(tp=per_label, pred=per_label, true=per_label)
        if self.samples:
            sums = xp.zeros((len(_SAMPLE_VALUES),), dtype=acc, device=device)
            state.update(samp=sums, samp_undef=sums)
        array_namespace(per_label)  # fill the cache eagerly (not inside a compiled step)
        return state

    def update(self, state, y_true, y_pred, sample_weight=None):
        """The state after one batch (pure; no host read unless ``validate``)."""
        self._check_weight(sample_weight)
        n0 = state["n"]
        xp = array_namespace(n0)
        if type(y_true) is not type(n0) or type(y_pred) is not type(n0):
            device = _ns.device_of(n0)
            y_true = _ns.asarray(y_true, xp=xp, device=device)
            y_pred = _ns.asarray(y_pred, xp=xp, device=device)
        check_real_dtypes((y_true, y_pred), self.input_names, xp)
        self._check_shapes(y_true, y_pred)
        scores = self.threshold is not None and is_float(y_pred, xp)
        if self.validate and y_true.shape[0]:  # host reads: validate=True only
            _check_values(y_true, y_pred, self.threshold if scores else None, xp)
        if self.subset and sample_weight is None:
            right = _ops(xp).multilabel_exact(y_true, y_pred,
                                              threshold=self.threshold if scores else None)
            return {**state, "n": n0 + y_true.shape[0], "exact": state["exact"] + right}
        tp = state.get("tp")
        if sample_weight is None and not self.samples:
            # the training-loop case: one adapter kernel (a bincount of codes on CPU)
            tp_, pred, true, right = _ops(xp).multilabel_counts(
                y_true, y_pred, threshold=self.threshold if scores else None)
            return {**state, "tp": tp + tp_, "pred": state["pred"] + pred,
                    "true": state["true"] + true, "n": state["n"] + y_true.shape[0],
                    "exact": state["exact"] + right}
        t = indicators(y_true, xp)
        p = y_pred > self.threshold if scores else indicators(y_pred, xp)
        hit = t & p
        exact = xp.all(t == p, axis=1)
        w = None
        if sample_weight is None:  # the training-loop case: counts of the bool arrays
            n = y_true.shape[0]
            tp_, pred, true, right = (_count(v, xp, tp.dtype) for v in (hit, p, t, exact))
        else:
            w = self._flat_as(_ns.asarray(sample_weight, xp=xp, device=_ns.device_of(n0)),
                              n0.dtype, xp)
            check_consistent_length(y_true, w)
            n = xp.sum(w)
            right = xp.sum(xp.astype(exact, w.dtype) * w)
            if self.subset:
                return {**state, "n": state["n"] + n, "exact": state["exact"] + right}
            wc = xp.reshape(w, (-1, 1))
            tp_, pred, true = (xp.sum(xp.astype(v, w.dtype) * wc, axis=0) for v in (hit, p, t))
        out = {**state, "tp": tp + tp_, "pred": state["pred"] + pred,
               "true": state["true"] + true, "n": state["n"] + n,
               "exact": state["exact"] + right}
        if self.samples:
            s, u = self._sample_sums(hit, p, t, w, xp, state["samp"].dtype)
            out.update(samp=state["samp"] + s, samp_undef=state["samp_undef"] + u)
        return out

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU NumPy
        / torch, integer counts, ``validate=False``, not ``average="samples"``):
        ``state'`` holds copies of the counts and ``add(y_true, y_pred)`` adds one
        unweighted batch into them (False, nothing done, for a batch it does not
        take: call :meth:`update`); None elsewhere.  For the stateful wrappers,
        which own their counts; :meth:`update` stays pure."""
        if self.validate or self.samples:
            return None
        names = ("n", "exact") if self.subset else ("n", "exact", "tp", "pred", "true")
        made = _ops(array_namespace(state["n"])).multilabel_accumulator(
            {k: state[k] for k in names}, threshold=self.threshold, num_labels=self.num_labels)
        if made is None:
            return None
        own, add = made
        return {**state, **own}, add

    def _check_shapes(self, y_true, y_pred):
        for what, y in (("y_true", y_true), ("y_pred", y_pred)):
            if y.ndim != 2 or y.shape[1] != self.num_labels:
                raise ValueError(f"{what} has shape {tuple(y.shape)}: multilabel input is "
                                 f"(n_samples, num_labels={self.num_labels}) indicators"
                                 f"{' or scores' if what == 'y_pred' else ''}.")
        check_consistent_length(y_true, y_pred)

    def _sample_sums(self, hit, p, t, w, xp, acc):
        """Each sample's precision, recall, F-beta and jaccard (the one-shot formulas
        on its row counts, NaN where undefined): the (weighted) sums of the defined
        values and the weight of the undefined ones."""
        rows = LabelCounts(*(xp.astype(xp.count_nonzero(v, axis=1), acc) for v in (hit, p, t)))
        p, r, f, _ = prf_from_counts(rows, beta=self.beta, average=None, warn_for=(),
                                     zero_division=math.nan, weights=None, xp=xp, dtype=acc,
                                     acc_dtype=acc, validate=False)
        j = jaccard_from_counts(rows, average=None, zero_division=math.nan, xp=xp)
        values = xp.stack([p, r, f, j], axis=1)
        undef = xp.isnan(values)
        defined = xp.where(undef, xp.zeros_like(values), values)
        undef = xp.astype(undef, acc)
        if w is not None:
            wa = xp.reshape(xp.astype(w, acc), (-1, 1))
            defined, undef = defined * wa, undef * wa
        return xp.sum(defined, axis=0), xp.sum(undef, axis=0)

    # -- results -------------------------------------------------------------
    def compute(self, state):
        """The metric of all the data seen: 0-d (per-label, or ``(L, 2, 2)``) arrays."""
        xp, device = _ns.get_namespace_and_device(state["n"])
        fdt = _ns.max_float_dtype(xp, device)
        m = self.metric
        if m == "confusion":
            cm = multilabel_confusion_from_counts(state["tp"], state["pred"], state["true"],
                                                  state["n"], xp=xp)
            if self.normalize is None:
                return cm
            return normalize_confusion(cm, self.normalize, dtype=fdt, xp=xp)
        n = xp.astype(state["n"], fdt)
        if m in _SUBSET:
            acc = accuracy_from_totals(xp.astype(state["exact"], fdt), n, xp=xp,
                                       undefined=math.nan)
            return 1.0 - acc if m == "zero_one" else acc
        tp, pred, true = (xp.astype(state[k], fdt) for k in ("tp", "pred", "true"))
        if m == "hamming":
            return accuracy_from_totals(xp.sum(pred + true - 2.0 * tp), n * self.num_labels,
                                        xp=xp, undefined=math.nan)
        if self.samples:
            return self._samples_average(state, fdt, xp)
        counts = LabelCounts(tp, pred, true)
        if m == "jaccard":
            return jaccard_from_counts(counts, average=self.average,
                                       zero_division=self.zero_division, xp=xp,
                                       macro_over=self.macro_over)
        which = {"precision": 0, "recall": 1}.get(m, 2)
        return prf_from_counts(counts, beta=self.beta, average=self.average, warn_for=(),
                               zero_division=self.zero_division, weights=None, xp=xp,
                               dtype=fdt, acc_dtype=fdt, validate=False,
                               want=(PRF[which],), macro_over=self.macro_over)[which]

    def _samples_average(self, state, fdt, xp):
        """scikit-learn's ``average="samples"``: the (weighted) mean of the samples'
        values, ``zero_division`` where undefined (NaN: those samples left out)."""
        k = _SAMPLE_VALUES.index("f1" if self.metric == "fbeta" else self.metric)
        defined = xp.astype(state["samp"][k], fdt)
        undef = xp.astype(state["samp_undef"][k], fdt)
        total = xp.astype(state["n"], fdt)
        zd = check_zero_division(self.zero_division)
        if zd != zd:  # NaN: the mean over the samples where the value is defined
            return accuracy_from_totals(defined, total - undef, xp=xp, undefined=math.nan)
        return accuracy_from_totals(defined + zd * undef, total, xp=xp, undefined=math.nan)


def _check_average(metric, average):
    if average == "none":
        average = None
    if metric in _SETWISE:
        if average not in _AVERAGES:
            raise ValueError(f"multilabel average must be one of {_AVERAGES}, got "
                             f"{average!r} ('binary' is for one binary target)")
        return average
    if metric in _SUBSET and average not in (None, "micro"):
        raise ValueError(
            f"{metric} of multilabel input is subset accuracy (scikit-learn's "
            f"accuracy_score), which takes no average; got average={average!r}. "
            "TorchMetrics' per-label multilabel accuracy is 1 - HammingDistance.")
    if metric == "hamming" and average not in (None, "micro", "macro"):
        raise ValueError(f"hamming takes average None, 'micro' or 'macro' (the same value "
                         f"without ignored labels), got {average!r}")
    return average


def _count(b, xp, dtype):
    """The number of set values of a bool array (over the samples, axis 0), in ``dtype``."""
    out = xp.count_nonzero(b, axis=0)
    return out if out.dtype == dtype else xp.astype(out, dtype)


def _check_values(y_true, y_pred, threshold, xp):
    """validate=True: indicator targets, and scores or indicators (host reads)."""
    if y_true.dtype != xp.bool and not bool(xp.all((y_true == 0) | (y_true == 1))):
        # a host read: validate=True only
        raise ValueError("Multilabel targets must be indicators: every value 0 or 1.")
    if threshold is None:
        # a host read (validate=True)
        if y_pred.dtype != xp.bool and not bool(xp.all((y_pred == 0) | (y_pred == 1))):
            raise ValueError("Multilabel predictions must be indicators (0 or 1), or "
                             "floating scores with a threshold.")
    elif 0.0 < threshold < 1.0 and not bool(xp.all((y_pred >= 0) & (y_pred <= 1))):
        raise ValueError(
            "y_pred holds multilabel scores outside [0, 1] (NaN, or logits?), read as "
            f"probabilities above threshold={threshold}. Apply a sigmoid, or pass "
            "threshold=0.0 for logits.")
