"""Streaming multilabel label metrics (indicator targets and predictions).

Per-label counts ``tp, pred, true`` and sample counts ``n`` and ``exact``
(samples with every label right), integer sums: precision, recall, F1 and
jaccard per label with scikit-learn's averages, subset accuracy, Hamming loss
and zero-one loss.  Equals ``sklearn.metrics`` on indicator matrices.
"""

from __future__ import annotations

from .._core import namespace as _ns
from .._core.arith import safe_divide
from ..classification._prf import PRF, jaccard_from_counts, prf_from_counts
from ..classification._statistic import LabelCounts
from ._functional import StreamMetric, array_namespace, count_dtype

MULTILABEL_METRICS = ("accuracy", "precision", "recall", "f1", "jaccard", "hamming_loss",
               "zero_one_loss")


class MultilabelStream(StreamMetric):
    """Streaming multilabel label metrics: per-label counts and exact-match counts.

    The state is ``tp, pred, true`` (per label) and ``n`` (samples), ``exact``
    (samples with every label right), all int64 sums: precision, recall, F1
    and jaccard per label with scikit-learn's averages (``"samples"`` needs
    per-sample values and is not streamed), ``accuracy`` (subset accuracy),
    ``hamming_loss`` and ``zero_one_loss``.

    Parameters
    ----------
    num_labels : int
        Columns of the indicator targets and predictions.
    metric : str
        ``accuracy, precision, recall, f1, jaccard, hamming_loss, zero_one_loss``.
    average : {"micro", "macro", "weighted"} or None, default="macro"
        The average over labels.
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        The value of a ratio with a zero denominator (``"warn"``: 0, no warning).
    """

    def __init__(self, num_labels, metric, *, average="macro", zero_division="warn"):
        if metric not in MULTILABEL_METRICS:
            raise ValueError(f"metric must be one of {MULTILABEL_METRICS}, got {metric!r}")
        if average not in ("micro", "macro", "weighted", None):
            raise ValueError("multilabel streaming averages are 'micro', 'macro', "
                             f"'weighted' or None, got {average!r}")
        self.num_labels, self.metric, self.average = int(num_labels), metric, average
        self.zero_division = zero_division
        self.weighted = False
        self.key = ("multilabel_counts", self.num_labels)

    def _init(self, xp, device, fdt):
        cdt = count_dtype(xp, device)
        zeros = xp.zeros((self.num_labels,), dtype=cdt, device=device)
        scalar = xp.zeros((), dtype=cdt, device=device)
        return {"tp": zeros, "pred": zeros, "true": zeros, "n": scalar, "exact": scalar}

    def update(self, state, y_true, y_pred, sample_weight=None):
        self._check_weight(sample_weight)
        xp = array_namespace(state["tp"])
        dev = _ns.device_of(state["tp"])
        yt = _ns.asarray(y_true, xp=xp, device=dev) != 0
        yp = _ns.asarray(y_pred, xp=xp, device=dev) != 0
        cdt = state["tp"].dtype

        def count(b, axis):
            return xp.sum(xp.astype(b, cdt), axis=axis)

        return {"tp": state["tp"] + count(yt & yp, 0), "pred": state["pred"] + count(yp, 0),
                "true": state["true"] + count(yt, 0),
                "n": state["n"] + yt.shape[0],
                "exact": state["exact"] + count(xp.all(yt == yp, axis=1), None)}

    def compute(self, state):
        xp, dev = _ns.get_namespace_and_device(state["tp"])
        fdt = _ns.max_float_dtype(xp, dev)
        tp, pred, true = (xp.astype(state[k], fdt) for k in ("tp", "pred", "true"))
        n = xp.astype(state["n"], fdt)
        m = self.metric
        if m in ("accuracy", "zero_one_loss"):
            acc = safe_divide(xp.astype(state["exact"], fdt), n, zero_value=0.0, xp=xp)
            return acc if m == "accuracy" else 1.0 - acc
        if m == "hamming_loss":
            wrong = xp.sum(pred + true - 2.0 * tp)
            return safe_divide(wrong, n * self.num_labels, zero_value=0.0, xp=xp)
        counts = LabelCounts(tp, pred, true)
        if m == "jaccard":
            return jaccard_from_counts(counts, average=self.average,
                                       zero_division=self.zero_division, xp=xp)
        which = {"precision": 0, "recall": 1}.get(m, 2)
        return prf_from_counts(counts, beta=1.0, average=self.average, warn_for=(),
                               zero_division=self.zero_division, weights=None, xp=xp,
                               dtype=fdt, acc_dtype=fdt, validate=False,
                               want=(PRF[which],))[which]
