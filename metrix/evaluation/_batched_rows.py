r"""Vectorised bootstrap paths from per-sample values (see :mod:`._batched_paths`).

* **Per-sample means** (:class:`RowMeanPath`): ``top_k_accuracy_score``,
  ``label_ranking_average_precision_score``, ``ndcg_score``, ``dcg_score``,
  ``coverage_error``, ``label_ranking_loss`` are the weighted mean over samples
  of a value that depends on its own row only.  The full-data call hands its
  per-sample values ``v`` and weights ``w`` over (:data:`ROW_VALUES` in
  :mod:`metrix.ranking.label_ranking`); a resample with counts ``c`` is
  :math:`\sum_i c_i w_i v_i / \sum_i c_i w_i`, the value of the call on the
  drawn rows.
* **Order statistics** (:class:`OrderStatPath`): ``max_error`` (the largest
  absolute error among the drawn rows: the first drawn row in decreasing
  error order) and ``median_absolute_error`` (the weighted median of the
  errors with the counts times the weights as weights, which is the median
  of the drawn rows; the errors sorted once).
* **One-vs-rest ROC AUC** (:class:`OvrAucPath`): one binary
  :class:`~._batched_paths.RankingPath` per class column, then the macro or
  support-weighted mean, as ``roc_auc_score(multi_class="ovr")``.
"""

from __future__ import annotations

import inspect
import math

from .._core import namespace as _ns
from .._core.arith import safe_divide
from ..backends import ops as _ops
from ..classification._statistic import LabelCounts
from ..classification.agreement import hamming_loss
from ..classification.confusion import accuracy_score, f1_score, precision_score, recall_score
from ..regression.scores import max_error
from ._batched_paths import LabelPath, RankingPath, _fn, _leave_one_out, _Path, prf_of


def row_mean_path(metric, arrays, kw):
    """A :class:`RowMeanPath` of ``metric``, or None where a resample's call could
    read its rows otherwise (a metric that takes ``labels``, top-k accuracy,
    discovers its classes without them; ``normalize=False`` is a sum)."""
    from ..ranking.label_ranking import ROW_VALUES

    if not set(kw) <= RowMeanPath.READS or kw.get("normalize", True) is not True:
        return None
    if "labels" in inspect.signature(metric).parameters and kw.get("labels") is None:
        return None
    sink = []
    token = ROW_VALUES.set(sink)
    try:
        metric(*arrays, **kw)
    finally:
        ROW_VALUES.reset(token)
    if len(sink) != 1:
        return None
    return RowMeanPath(*sink[0])


class RowMeanPath(_Path):
    """The weighted mean of per-sample values over each resample's rows."""

    #: the keywords a path reads (each metric takes some of them)
    READS = frozenset({"k", "labels", "sample_weight", "normalize", "ignore_ties",
                       "log_base"})

    def __init__(self, values, weight):
        xp, dev = _ns.get_namespace_and_device(values)
        self.xp, self.device, self.o = xp, dev, _ops(xp)
        self.acc = _ns.max_float_dtype(xp, dev)
        self.v = xp.astype(xp.reshape(values, (-1,)), self.acc)
        self.n = int(self.v.shape[0])
        self.w = None if weight is None else xp.astype(xp.reshape(weight, (-1,)), self.acc)

    def values(self, idx=None, counts=None):
        xp = self.xp
        k = self._counts(idx, counts)
        total = xp.sum(k * xp.reshape(self.v, (1, -1)), axis=1)
        return safe_divide(total, xp.sum(k, axis=1), zero_value=math.nan, xp=xp)

    def jackknife(self):
        xp = self.xp
        w = xp.ones_like(self.v) if self.w is None else self.w
        wv = w * self.v
        return safe_divide(xp.sum(wv) - wv, xp.sum(w) - w, zero_value=math.nan, xp=xp), None


class OrderStatPath(_Path):
    """``max_error`` or ``median_absolute_error`` of each resample (1-D targets)."""

    #: the keywords a path reads (the median takes them)
    READS = frozenset({"sample_weight", "multioutput"})

    def __init__(self, metric, y_true, y_pred, kw):
        xp, dev = _ns.get_namespace_and_device(y_true, y_pred, kw.get("sample_weight"))
        self.xp, self.device, self.o = xp, dev, _ops(xp)
        self.max = metric is _fn(max_error)
        self.acc = acc = _ns.max_float_dtype(xp, dev)
        e = xp.abs(xp.astype(_ns.asarray(y_true, xp=xp, device=dev), acc)
                   - xp.astype(_ns.asarray(y_pred, xp=xp, device=dev), acc))
        self.n = int(e.shape[0])
        self.order = xp.argsort(e, descending=self.max, stable=True)
        self.sorted = xp.take(e, self.order)
        sw = kw.get("sample_weight")
        self.w = None if sw is None else xp.take(
            xp.astype(_ns.asarray(sw, xp=xp, device=dev), acc), self.order)

    def values(self, idx=None, counts=None):
        k = self._counts(idx, counts, weighted=False)  # weights apply in sorted order
        return self.from_counts(self.xp.take(k, self.order, axis=1))

    def from_counts(self, k):
        """Values for count rows ``k`` (M, N) in the sorted order."""
        xp = self.xp
        if self.max:  # the first drawn row in decreasing error order
            drawn = k > 0
            first = xp.argmax(xp.astype(drawn, xp.int8), axis=1)
            value = xp.take(self.sorted, first)
            return xp.where(xp.any(drawn, axis=1), value, xp.full_like(value, math.nan))
        w = k if self.w is None else k * xp.reshape(self.w, (1, -1))
        m = w.shape[0]
        x = xp.broadcast_to(xp.reshape(self.sorted, (-1, 1)), (self.n, m))
        return self.o.weighted_quantile(x, 0.5, weights=xp.permute_dims(w, (1, 0)), axis=0,
                                        average=True)

    def jackknife(self):
        # row j of the leave-one-out matrix leaves out the j-th sorted sample; the
        # jackknife values are a multiset, so their order does not matter
        return _leave_one_out(self)


class OvrAucPath(_Path):
    """``roc_auc_score(multi_class="ovr")``: one binary ranking path per class."""

    @classmethod
    def of(cls, y_true, y_score, kw, setups=None):
        """The path, or None for two classes (scikit-learn scores them as binary)."""
        labels = kw.get("labels")
        classes = _ns.host_list(labels) if labels is not None else \
            _ns.host_unique(_ns.to_host(y_true)).tolist()  # host read, once
        if len(classes) <= 2:
            return None
        return cls(y_true, y_score, kw, classes, setups)

    def __init__(self, y_true, y_score, kw, classes, setups=None):
        xp, dev = _ns.get_namespace_and_device(y_true, y_score, kw.get("sample_weight"))
        self.xp, self.device, self.o = xp, dev, _ops(xp)
        self.acc = _ns.max_float_dtype(xp, dev)
        yt = _ns.asarray(y_true, xp=xp, device=dev)
        ys = _ns.asarray(y_score, xp=xp, device=dev)
        self.n, self.average = int(yt.shape[0]), kw.get("average", "macro")
        sw = kw.get("sample_weight")
        self.w = None if sw is None else xp.astype(_ns.asarray(sw, xp=xp, device=dev), self.acc)
        # the one-vs-rest targets live as long as the paths: their ids key shared state
        self.targets = [xp.astype(yt == c, xp.int64) for c in classes]
        self.columns = [ys[:, j] for j in range(len(classes))]
        kw1 = {} if sw is None else {"sample_weight": sw}
        self.paths = [RankingPath(True, t, s, kw1, setups)
                      for t, s in zip(self.targets, self.columns)]
        pos = xp.stack([xp.astype(t, self.acc) for t in self.targets], axis=1)
        self.pos = pos if self.w is None else pos * xp.reshape(self.w, (-1, 1))

    def _mean(self, per_class, support):
        xp = self.xp
        if self.average == "macro":
            return xp.mean(per_class, axis=1)
        return safe_divide(xp.sum(per_class * support, axis=1), xp.sum(support, axis=1),
                           zero_value=math.nan, xp=xp)

    def values_batch(self, batch):
        xp = self.xp
        per_class = xp.stack([p.values_batch(batch) for p in self.paths], axis=1)
        support = None
        if self.average == "weighted":
            support = xp.matmul(xp.astype(batch.counts(self.acc), self.acc), self.pos)
        return self._mean(per_class, support)

    def jackknife(self):
        xp = self.xp
        # a ranking path leaves out the samples in its own order: back to the rows'
        # order (``rank``), so that row i of every class leaves out the same sample
        per_class = xp.stack([xp.take(p.jackknife()[0], xp.astype(p.rank, xp.int64))
                              for p in self.paths], axis=1)
        support = None
        if self.average == "weighted":
            support = xp.sum(self.pos, axis=0, keepdims=True) - self.pos
        return self._mean(per_class, support), None


# ---------------------------------------------------------------------------
# multilabel label metrics (2-D indicators)

_ML_AVERAGES = ("micro", "macro", "weighted", "samples")
_ML_ZERO = ("warn", 0, 1)


def multilabel_path(metric, y_true, y_pred, kw):
    """The path of a multilabel label metric, or None (the loop)."""
    rowwise = metric in (_fn(accuracy_score), _fn(hamming_loss))
    if rowwise:
        if not set(kw) <= {"sample_weight"}:
            return None
    elif metric in (_fn(precision_score), _fn(recall_score), _fn(f1_score)):
        zd = kw.get("zero_division", "warn")
        if (not set(kw) <= {"sample_weight", "average", "zero_division"}
                or kw.get("average", "binary") not in _ML_AVERAGES
                or isinstance(zd, bool) or zd not in _ML_ZERO):
            return None  # NaN zero_division: scikit-learn's nan-average, left to the loop
    else:
        return None
    xp, dev = _ns.get_namespace_and_device(y_true, y_pred, kw.get("sample_weight"))
    acc = _ns.max_float_dtype(xp, dev)
    t = xp.astype(_ns.asarray(y_true, xp=xp, device=dev), acc)
    p = xp.astype(_ns.asarray(y_pred, xp=xp, device=dev), acc)
    sw = kw.get("sample_weight")
    w = None if sw is None else xp.astype(_ns.asarray(sw, xp=xp, device=dev), acc)
    if rowwise or kw.get("average") == "samples":
        return RowMeanPath(_multilabel_rows(metric, t, p, kw, xp), w)
    return _MultilabelCountsPath(metric, t, p, w, kw, xp, dev, acc, id_key=(
        id(y_true), id(y_pred), id(sw)))


def _multilabel_rows(metric, t, p, kw, xp):
    """Each row's value: subset accuracy, its share of wrong labels (Hamming),
    or its precision / recall / F1 over its labels (``zero_division`` where
    undefined), as scikit-learn's ``average="samples"``."""
    if metric is _fn(accuracy_score):
        return xp.astype(xp.all(t == p, axis=1), t.dtype)
    if metric is _fn(hamming_loss):
        return xp.mean(xp.astype(t != p, t.dtype), axis=1)
    counts = LabelCounts(xp.sum(t * p, axis=1), xp.sum(p, axis=1), xp.sum(t, axis=1))
    return prf_of(metric, counts, kw, None, xp, t.dtype)  # each row's, as per class


class _MultilabelCountsPath(LabelPath):
    """Per-label (tp, predicted, true) weights of each resample, then the
    per-class formula of :class:`~._batched_paths.LabelPath` (micro, macro,
    weighted averages)."""

    def __init__(self, metric, t, p, w, kw, xp, dev, acc, id_key):
        self.metric, self.kw, self.xp, self.device = metric, dict(kw), xp, dev
        self.o, self.acc, self.n = _ops(xp), acc, int(t.shape[0])
        self.c = int(t.shape[1])
        self.cell_level = False
        self.share_key = ("multilabel counts",) + id_key
        rows = xp.concat([t * p, p, t], axis=1)  # (N, 3L): tp, predicted, true
        self.rows = rows if w is None else rows * xp.reshape(w, (-1, 1))

    def counts(self, idx=None, counts=None):
        s = self.xp.matmul(self._counts(idx, counts, weighted=False), self.rows)
        c = self.c
        return s[:, :c], s[:, c:2 * c], s[:, 2 * c:]

    def jackknife(self):
        xp, c = self.xp, self.c
        s = xp.sum(self.rows, axis=0, keepdims=True) - self.rows
        return self.formula(s[:, :c], s[:, c:2 * c], s[:, 2 * c:]), None
