"""Streaming ranking metrics (ROC AUC, average precision): binned or exact.

**Binned** (default, ``thresholds=1000``): ``T`` ascending thresholds (an int
gives ``t_j = j / (T - 1)``, for probabilities, binned arithmetically; or pass
the thresholds, binned by ``searchsorted``).  A
score falls in bin ``k`` = the number of thresholds ``<= score`` (``0..T``);
the state is one histogram of negative and positive counts per bin and per
row (class or label), ``(B, 2, T + 1)``: int64 counts, or float sums of
weights with ``weighted=True``.  One ``searchsorted`` and one ``bincount``
per batch; O(B T) memory whatever the number of samples.  The result is the
exact AUC / AP of the scores rounded down to their bin (every bin is one
group of tied scores), i.e. the trapezoid through the ``T`` threshold points.

**Exact** (``capacity=N``): scores, targets and weights in a preallocated
buffer of ``N`` rows (:mod:`metrix.stream._buffer`); ``compute`` runs the
one-shot statistic of :mod:`metrix.ranking._statistic` (through
:mod:`metrix.ranking._averaging`) on the buffer, free rows weighing nothing, so
the value equals :func:`metrix.roc_auc_score` / :func:`metrix.average_precision_score`
on all the data.  More than ``N`` samples raise :class:`BufferFullError`.

Both compute with the same formulas: :func:`metrix.ranking._statistic.roc_auc_from_groups`
and :func:`metrix.ranking._statistic.average_precision_from_groups` on tie groups.

**Scores outside [0, 1]** (logits, NaN).  ``thresholds=T`` (an int) bins
probabilities: its thresholds are evenly spaced on [0, 1].

* ``validate=True`` raises ``ValueError`` for a score outside [0, 1], NaN or
  infinite: apply a sigmoid (binary, multilabel) or a softmax (multiclass)
  first, pass explicit ``thresholds=`` edges on the scores' scale, or use the
  exact mode (``capacity=``).  With explicit thresholds and in the exact mode
  any finite score is accepted (NaN and infinity still raise).
* ``validate=False`` reads no value; the binning decides, the same on every
  backend: a score below the first threshold (below 0 for ``thresholds=T``,
  ``-inf`` included) is in bin 0, one at or above the last (above 1, ``+inf``)
  in the top bin ``T``, and a NaN score in bin 0, as a score below every
  threshold.  Logits binned with ``thresholds=T`` thus count as tied when
  both are below 0 or both above 1 (the value of the scores clipped to
  ``[-1, 1]`` with ``T`` thresholds on [0, 1]), which is rarely what is
  wanted.  With explicit thresholds the scores below the first and above the
  last edge are the end bins, so thresholds that hold every distinct score
  give the exact AUC / AP.
"""

from __future__ import annotations

import math
import numbers

from .._core import namespace as _ns
from .._core.validation import (
    check_binned_scores,
    check_consistent_length,
    check_real_dtypes,
)
from ..backends import ops as _ops
from ..ranking._averaging import average_binary, average_row_scores, row_scores
from ..ranking._statistic import (
    average_precision_from_groups,
    roc_auc_from_groups,
    sorted_curve,
)
from ..ranking.thresholds import OPERATING_POINTS, check_minimum, operating_point
from ._buffer import check_capacity, init_buffer, nan_if_dropped, write_rows
from ._functional import (
    StreamMetric,
    array_namespace,
    count_dtype,
    dtype_probe,
    float_dtypes,
    result_dtype,
)

#: default number of thresholds of the binned mode
DEFAULT_THRESHOLDS = 1000
_METRICS = ("roc_auc", "average_precision", *OPERATING_POINTS)


#: samples x rows past which a multiclass / multilabel binned batch is counted in
#: slices (in place, on eager NumPy / torch): bounds its temporaries to a few MB
_CHUNK_CELLS = 1 << 18


class RankingStream(StreamMetric):
    """Functional streaming ROC AUC or average precision.

    Parameters
    ----------
    metric : {"roc_auc", "average_precision", "recall_at_fixed_precision", \
"precision_at_fixed_recall", "sensitivity_at_specificity", "specificity_at_sensitivity"}
        The operating points are binary and need ``minimum``; their
        ``compute`` returns ``(value, threshold)`` (see
        :func:`metrix.ranking.thresholds.operating_point`).
    num_classes : int, default=None
        Multiclass one-vs-rest: ``y_true`` labels ``0..C-1``, scores ``(n, C)``.
    num_labels : int, default=None
        Multilabel: ``y_true`` and scores ``(n, L)``.  Neither: binary
        (``y_true`` in {0, 1}, scores ``(n,)``).
    average : {"macro", "weighted", "micro", "samples"} or None, default="macro"
        scikit-learn's averages (``samples``: multilabel, exact mode only).
    thresholds : int or host array, default=1000
        Binned mode (ignored when ``capacity`` is given).
    capacity : int, default=None
        Exact mode with a buffer of this many samples.
    weighted : bool, default=False
        Binned mode: float sums of ``sample_weight`` instead of int64 counts
        (the exact mode always accepts weights).
    validate : bool, default=False
        Check targets (0/1, or ``0..C-1``) and finite scores on the host (a sync
        per batch), and, for ``thresholds=T``, that the scores are probabilities
        in [0, 1] (see the module docstring for scores outside).  Without it,
        other target values give wrong counts.
    pos_label : int, float, bool or None, default=None
        Binary only: the label of the positive class; every other label is
        negative (scikit-learn's rule with ``pos_label``).  ``None``: targets
        are 0 / 1.  Binary targets such as {1, 2} need it (scikit-learn's
        ``roc_auc_score`` takes the greater label, ``pos_label=2``).
    minimum : float, default=None
        The operating points: the least precision, recall, specificity or
        sensitivity (the constraint of ``metric``), in [0, 1].
    """

    def __init__(self, metric="roc_auc", *, num_classes=None, num_labels=None,
                 average="macro", thresholds=DEFAULT_THRESHOLDS, capacity=None,
                 weighted=False, validate=False, pos_label=None, minimum=None):
        if metric not in _METRICS:
            raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}")
        self.minimum = _minimum(metric, minimum, num_classes is None and num_labels is None)
        if num_classes is not None and num_labels is not None:
            raise ValueError("Give num_classes (multiclass) or num_labels (multilabel), "
                             "not both.")
        if average not in ("macro", "weighted", "micro", "samples", None):
            raise ValueError(f"average must be 'macro', 'weighted', 'micro', 'samples' or "
                             f"None, got {average!r}")
        self.metric, self.average = metric, average
        self.validate = bool(validate)
        if pos_label is not None and (num_classes is not None or num_labels is not None):
            raise ValueError("pos_label is for binary targets (neither num_classes nor "
                             "num_labels given).")
        if pos_label is not None and not isinstance(pos_label, (numbers.Number, bool)):
            raise ValueError(f"pos_label must be a number or None, got {pos_label!r}")
        self.pos_label = pos_label
        if num_classes is not None:
            self.task, self.rows = "multiclass", self._positive_int(num_classes, "num_classes")
        elif num_labels is not None:
            self.task, self.rows = "multilabel", self._positive_int(num_labels, "num_labels")
        else:
            self.task, self.rows = "binary", 1
        if average == "samples" and (self.task != "multilabel" or capacity is None):
            raise ValueError("average='samples' needs multilabel input and the exact mode "
                             "(capacity=...).")
        self.capacity = None if capacity is None else check_capacity(capacity)
        self._one_kernel = False
        if self.capacity is not None:
            self.thresholds = None
            self.weighted = True
            self.key = ("rank_exact", self.task, self.rows, self.capacity, self.validate,
                        pos_label)  # the statistic: shared whatever the metric
            if self.task == "binary" and pos_label is None and not self.validate:
                self.row_inputs = ("target", "score")
            return
        if isinstance(thresholds, numbers.Integral) and not isinstance(thresholds, bool):
            if thresholds < 2:
                raise ValueError(f"thresholds must be an int >= 2 or an array, got "
                                 f"{thresholds}")
            self.thresholds = int(thresholds)
        else:
            values = sorted(float(v) for v in _ns.host_list(thresholds))
            if not values:
                raise ValueError("thresholds must hold at least one threshold")
            self.thresholds = tuple(values)
        self.weighted = bool(weighted)
        self.key = ("rank_binned", self.task, self.rows, self.thresholds, self.weighted,
                    self.validate, pos_label)
        # binary 0/1 targets, evenly spaced thresholds: a batch is one histogram kernel
        self._one_kernel = (self.task == "binary" and isinstance(self.thresholds, int)
                            and pos_label is None)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        t = self.thresholds
        return {"kind": "RankingStream", "metric": self.metric, "task": self.task,
                "rows": self.rows, "average": self.average,
                "thresholds": list(t) if isinstance(t, tuple) else t,
                "capacity": self.capacity, "weighted": self.weighted,
                # only when declared: states saved before pos_label existed still load
                **({} if self.pos_label is None else {"pos_label": self.pos_label}),
                **({} if self.minimum is None else {"minimum": self.minimum})}

    @property
    def n_thresholds(self):
        t = self.thresholds
        return t if isinstance(t, int) else len(t)

    # -- state ---------------------------------------------------------------
    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        cdt = count_dtype(xp, device)
        if self.capacity is not None:
            score_tail = () if self.task == "binary" else (self.rows,)
            target_tail = (self.rows,) if self.task == "multilabel" else ()
            state = init_buffer(xp, device, self.capacity,
                                {"score": (score_tail, acc), "target": (target_tail, cdt)})
        else:
            dt = acc if self.weighted else cdt
            state = {"hist": xp.zeros((self.rows, 2, self.n_thresholds + 1), dtype=dt,
                                      device=device)}
        state["meta_dtype"] = dtype_probe(xp, device, fdt)
        return state

    def _thresholds(self, xp, device, dtype):
        t = self.thresholds
        if isinstance(t, int):
            return xp.linspace(0.0, 1.0, t, dtype=dtype, device=device)
        return xp.asarray(list(t), dtype=dtype, device=device)

    def update(self, state, y_true, y_score, sample_weight=None):
        """Add one batch (pure; static shapes)."""
        hist = state.get("hist")
        if (self._one_kernel and sample_weight is None and not self.validate
                and type(y_score) is type(hist) and type(y_true) is type(hist)
                and y_score.ndim == 1 and y_score.shape == y_true.shape):
            # the training-loop case: one histogram kernel (codes and bincount)
            xp = array_namespace(hist)
            check_real_dtypes((y_true, y_score), self.input_names, xp)
            if y_score.dtype in float_dtypes(xp):
                return {**state, "hist": _ops(xp).binned_histogram(
                    hist, y_score, y_true, n_thresholds=self.thresholds)}
        if self.capacity is not None:
            return write_rows(state, *self.buffer_rows(state, y_true, y_score, sample_weight),
                              xp=array_namespace(state["buf_weight"]))
        xp, device, o, y, s, w = self._prepare(state, y_true, y_score, sample_weight)
        return {**state, "hist": self._histogram(state, y, s, w, xp, device, o)}

    def buffer_rows(self, state, y_true, y_score, sample_weight=None):
        """The exact mode's rows of one batch: ``({"score": ..., "target": ...},
        weight or None)``, checked and converted as :meth:`update` writes them
        (:func:`metrix.stream._buffer.write_rows`; the stateful wrappers write them
        in place into a buffer they own)."""
        kind = type(state["buf_weight"])
        if (sample_weight is None and self.row_inputs and type(y_score) is kind
                and type(y_true) is kind and y_score.ndim == 1
                and y_score.shape == y_true.shape):
            # the training-loop case: the batch as it is (the buffer's dtypes convert it
            # as the astype below would, in write_rows and in the in-place writers)
            check_real_dtypes((y_true, y_score), self.input_names, array_namespace(y_true))
            return dict(zip(self.row_inputs, (y_true, y_score))), None
        xp, device, _, y, s, w = self._prepare(state, y_true, y_score, sample_weight)
        cdt = count_dtype(xp, device)
        if y.dtype != cdt:
            y = xp.astype(y, cdt)
        if w is not None:
            w = self._flat_as(w, state["buf_weight"].dtype, xp)
        return {"score": s, "target": y}, w

    def _prepare(self, state, y_true, y_score, sample_weight):
        """``(xp, device, ops, y, s, w)``: the batch checked and shaped (binary:
        1-D, with ``pos_label`` applied; else ``(n, rows)`` scores)."""
        self._check_weight(sample_weight)
        primary = state["hist"] if "hist" in state else state["buf_weight"]
        xp, device, o, y, s, w = self._inputs(state, y_true, y_score, sample_weight,
                                              primary=primary)
        if self.task == "binary":
            s, y = self._flat(s, xp), self._flat(y, xp)
            if self.pos_label is not None:  # scikit-learn's rule: every other label negative
                y = xp.astype(y == self.pos_label, count_dtype(xp, device))
        elif s.ndim != 2 or s.shape[1] != self.rows:
            raise ValueError(f"y_score must have shape (n_samples, {self.rows}), got "
                             f"{tuple(s.shape)}")
        if self.task == "multiclass":
            y = self._flat(y, xp)
        check_consistent_length(y, s, w)  # (shapes: no host read)
        if self.validate:  # host reads: validate=True only
            self._check_values(y, s, xp)
        return xp, device, o, y, s, w

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU
        NumPy / torch, binary binned mode, ``validate=False``): ``state'`` holds
        a copy of the histogram and ``add(y_true, y_score)`` adds one unweighted
        batch into that copy (False, nothing done, for a batch it does not take:
        call :meth:`update`); None elsewhere.  For the stateful wrappers, which
        own their histogram; :meth:`update` stays pure."""
        hist = state.get("hist")
        if hist is None or not self._one_kernel or self.validate:
            return None
        made = _ops(array_namespace(hist)).binned_accumulator(hist, n_thresholds=self.thresholds)
        if made is None:
            return None
        own, add = made
        return {**state, "hist": own}, add

    def _check_values(self, y, s, xp):
        # host reads: validate=True only
        probabilities = self.capacity is None and isinstance(self.thresholds, int)
        if not bool(xp.all(xp.isfinite(s))):
            raise ValueError("Input y_score contains NaN or infinity."
                             + (" " + self._range_hint() if probabilities else ""))
        if probabilities:
            check_binned_scores(s, xp=xp, hint=self._range_hint())
        if self.task == "multiclass":
            ok = xp.all((y >= 0) & (y < self.rows))
        else:
            ok = xp.all((y == 0) | (y == 1))
        if not bool(ok):
            what = f"in 0..{self.rows - 1}" if self.task == "multiclass" else "0 or 1"
            hint = (" For other binary labels pass pos_label= (scikit-learn's roc_auc_score "
                    "takes the greater of two labels as positive)."
                    if self.task == "binary" else "")
            raise ValueError(f"y_true values must be {what} for {self.task} streaming "
                             "ranking metrics." + hint)

    def _range_hint(self):
        act = "a softmax" if self.task == "multiclass" else "a sigmoid"
        return (f"The binned mode (thresholds={self.thresholds}, evenly spaced on [0, 1]) "
                f"expects probabilities: apply {act} to logits, pass explicit "
                "thresholds= edges on the scores' scale, or use the exact mode (capacity=N).")

    def _bins(self, s, xp, device):
        """Bin of each score: the number of thresholds ``<= score`` (``0..T``).

        For ``thresholds=T`` (``t_j = j / (T - 1)``) it is arithmetic, one
        multiply-add and a clip (``floor(s (T - 1)) + 1``, the comparison made
        in the scaled space); explicit thresholds use ``searchsorted``.  A NaN
        score is in bin 0 (below every threshold) in both.
        """
        cdt = count_dtype(xp, device)
        t = self.thresholds
        if s.dtype not in float_dtypes(xp):
            s = xp.astype(s, _ns.max_float_dtype(xp, device))
        if isinstance(t, int):
            return self._ops(xp).binned_codes(s, None, n_thresholds=t)
        acc = _ns.max_float_dtype(xp, device)
        thr = xp.asarray(list(t), dtype=acc, device=device)
        s = xp.astype(s, acc)
        s = xp.where(s == s, s, xp.full_like(s, -math.inf))  # NaN: bin 0 (it sorts last)
        return xp.astype(xp.searchsorted(thr, s, side="right"), cdt)

    def _histogram(self, state, y, s, w, xp, device, o):
        """The histogram after the batch: counts per (row, positive, bin), one
        ``bincount`` of ``(2 row + pos) (T+1) + k`` added to the state's."""
        hist = state["hist"]
        t = self.n_thresholds
        cdt = count_dtype(xp, device)
        if self.task == "binary" and isinstance(self.thresholds, int):
            # binary targets are 0/1 (checked with validate=True): y is the column
            if s.dtype not in float_dtypes(xp):
                s = xp.astype(s, _ns.max_float_dtype(xp, device))
            codes = o.binned_codes(s, y, n_thresholds=t)  # one fused op
        elif self.task == "binary":
            codes = self._bins(s, xp, device) + (t + 1) * (y if y.dtype == cdt else
                                                           xp.astype(y, cdt))
        elif s.shape[0] * self.rows > _CHUNK_CELLS and o.counts_in_place():
            # a large batch of many rows: counted in slices of samples into a copy of
            # the histogram (the new one), so no n x B temporary is ever made
            new = xp.reshape(xp.asarray(hist, copy=True), (-1,))
            step = max(1, _CHUNK_CELLS // self.rows)
            for lo in range(0, s.shape[0], step):
                hi = min(lo + step, s.shape[0])
                part_w = None if w is None else self._row_weights(w[lo:hi], hist, xp, device)
                new = o.bincount_into(new, self._row_codes(y[lo:hi], s[lo:hi], xp, device, cdt),
                                      weights=part_w)
            return xp.reshape(new, hist.shape)
        else:
            codes = self._row_codes(y, s, xp, device, cdt)
        weights = None
        if w is not None:
            if self.task != "binary":
                weights = self._row_weights(w, hist, xp, device)
            else:
                weights = self._flat_as(w, hist.dtype, xp)
        return hist + self._counts_of(hist, codes, weights, xp, o)

    def _row_codes(self, y, s, xp, device, cdt):
        """Multiclass / multilabel: the code ``(2 row + pos) (T + 1) + bin`` of each
        (sample, row), flattened."""
        t = self.n_thresholds
        k = self._bins(s, xp, device)  # (n, B)
        rows = xp.reshape(xp.arange(self.rows, dtype=cdt, device=device), (1, -1))
        if self.task == "multiclass":
            pos = xp.reshape(xp.astype(y, cdt), (-1, 1)) == rows
        else:
            pos = y != 0
        return xp.reshape((2 * rows + xp.astype(pos, cdt)) * (t + 1) + k, (-1,))

    def _row_weights(self, w, hist, xp, device):
        """Each sample's weight repeated for its ``B`` rows, flattened."""
        w = xp.astype(xp.reshape(w, (-1, 1)), hist.dtype)
        return xp.reshape(w * xp.ones((1, self.rows), dtype=w.dtype, device=device), (-1,))

    def _counts_of(self, hist, codes, weights, xp, o):
        """The histogram increment of one batch's codes: one ``bincount``."""
        counts = o.bincount(codes, length=2 * self.rows * (self.n_thresholds + 1),
                            weights=weights)
        if counts.dtype != hist.dtype:
            counts = xp.astype(counts, hist.dtype)
        return xp.reshape(counts, hist.shape)

    # -- results -------------------------------------------------------------
    def compute(self, state):
        """AUC / AP of all data seen: 0-d (``(B,)`` for ``average=None``)."""
        xp, _ = _ns.get_namespace_and_device(*(v for k, v in state.items()
                                               if not k.startswith("meta_")))
        fdt = result_dtype(state, xp)
        if self.minimum is not None:
            return tuple(xp.astype(v, fdt) for v in self._operating_point(state, xp, fdt))
        if self.capacity is not None:
            value = nan_if_dropped(self._exact(state, xp), state, xp=xp)
        else:
            value = self._binned(state, xp)
        return xp.astype(value, fdt)

    def _groups(self, hist, xp):
        acc = _ns.max_float_dtype(xp, _ns.device_of(hist))
        h = xp.flip(xp.astype(hist, acc), axis=-1)  # bins in decreasing score order
        return h[:, 1, :], h[:, 0, :]  # (positives, negatives)

    def _rows_value(self, pos, neg, xp):
        if self.metric == "roc_auc":
            return roc_auc_from_groups(pos, neg, xp=xp)
        return average_precision_from_groups(pos, neg, xp=xp, signed=self.weighted)

    def _binned(self, state, xp):
        pos, neg = self._groups(state["hist"], xp)
        if self.task == "binary":
            return self._rows_value(pos, neg, xp)[0]
        if self.average == "micro":
            p = xp.sum(pos, axis=0, keepdims=True)
            n = xp.sum(neg, axis=0, keepdims=True)
            return self._rows_value(p, n, xp)[0]
        values = self._rows_value(pos, neg, xp)
        if self.average is None:
            return values
        if self.average == "macro":
            return xp.mean(values)
        return average_row_scores(values, xp.sum(pos, axis=1), xp=xp, zero_if_empty=True)

    def _exact(self, state, xp):
        s, y, w = state["buf_score"], state["buf_target"], state["buf_weight"]
        acc = w.dtype
        o = self._ops(xp)
        if self.task == "binary":
            pos = xp.reshape(xp.astype(y == 1, acc), (1, -1))
            return row_scores(self.metric, xp.reshape(s, (1, -1)), pos=pos, weight=w,
                              acc=acc, xp=xp, ops=o, signed=self.weighted)[0]
        if self.task == "multiclass":
            return average_binary(self.metric, None, s, w, self.average, acc=acc, xp=xp,
                                  ops=o, codes=y, signed=self.weighted)
        return average_binary(self.metric, xp.astype(y, acc), s, w, self.average, acc=acc,
                              xp=xp, ops=o, signed=self.weighted)

    def _operating_point(self, state, xp, fdt):
        """``(value, threshold)``: :func:`~metrix.ranking.thresholds.operating_point` on
        the histogram's cumulative counts (binned) or the buffer's sorted curve (exact)."""
        if self.capacity is None:
            pos, neg = self._groups(state["hist"], xp)  # decreasing bins
            tps, fps = xp.cumulative_sum(pos[0, :]), xp.cumulative_sum(neg[0, :])
            t = self.n_thresholds  # the top T bins: scores >= each threshold, decreasing
            thr = xp.flip(self._thresholds(xp, _ns.device_of(tps), fdt))
            return operating_point(self.metric, self.minimum, tps[:t], fps[:t], tps[-1],
                                   fps[-1], thr, xp=xp)
        w = state["buf_weight"]
        fps, tps, s, ends = sorted_curve(state["buf_target"] == 1, state["buf_score"], w,
                                         acc=w.dtype, xp=xp)
        value, thr = operating_point(self.metric, self.minimum, tps, fps, tps[-1], fps[-1],
                                     xp.astype(s, fdt), xp=xp, candidates=ends, origin=1.0)
        return nan_if_dropped(value, state, xp=xp), nan_if_dropped(thr, state, xp=xp)

    @staticmethod
    def _ops(xp):
        from ..backends import ops

        return ops(xp)


def _minimum(metric, minimum, binary):
    """The operating points' least constraint (None for the areas), checked."""
    if metric not in OPERATING_POINTS:
        if minimum is not None:
            raise ValueError(f"minimum is for the operating points, not {metric!r}")
        return None
    if not binary:
        raise ValueError(f"{metric} is binary: give neither num_classes nor num_labels.")
    return check_minimum(minimum, "minimum")
