"""Mergeable host states of many metrics, for data that arrives in chunks (host code, NumPy).

:class:`PartialEvaluation` turns each chunk (a Parquet batch, a Dask
partition) into a small dict of NumPy arrays, merges any number of them in
any order and tree shape, and computes the metrics of all the data once at
the end.  Every statistic is a sum (or a union), so the result is the
metric of the concatenated data, never a mean of per-chunk metrics:

* **label metrics** (accuracy, balanced accuracy, MCC, kappa, precision /
  recall / F1 / jaccard, Hamming and zero-one loss): one ``(C+2) x (C+2)``
  weighted confusion matrix over the codes of the global ``labels`` (the
  state of a ``weighted=True`` :class:`metrix.stream.LabelStream`; values
  that are none of ``labels`` go to its "other" bins), plus the weight of
  the correct samples (accuracy compares values, as scikit-learn's);
* **log loss / Brier score**: the sums of :class:`metrix.stream.LogLossStream` and
  :class:`~metrix.stream.BrierScoreStream`, whose ``compute`` gives the value;
* **ROC AUC / average precision** (binary 1-D ``y_score``): the exact table of
  distinct scores, or a histogram over fixed bins (:mod:`.score_table`);
* **regression**: the weight, and per chunk the weighted mean and centred
  sum of squares of ``y_true`` and of ``e = y_true - y_pred`` merged by
  Chan's pairwise update (no ``sum y^2 - (sum y)^2 / n`` cancellation), and
  the states of :class:`metrix.stream.RegressionStream` (``w e^2``, ``w |e|``,
  ``w |e| / max(|y|, eps)``, the max of ``|e|``); each value is that stream's
  ``compute``, the family's formula.

References
----------
.. [1] Chan, Golub, LeVeque, "Algorithms for computing the sample variance:
   analysis and recommendations", The American Statistician 37 (1983).
.. [2] scikit-learn, ``sklearn.metrics`` (the definitions of every metric).
"""

from __future__ import annotations

import functools

import numpy as np  # host code by design (see above): the states are NumPy, merged on the client

from .._core.namespace import get_namespace_and_device
from .._core.validation import assert_all_finite, check_targets
from ..classification.calibration import (
    calibration_error,
    calibration_error_from_histogram,
    calibration_histogram,
)
from ..classification.confusion import accuracy_from_totals
from ..ranking._averaging import average_row_scores
from ..registry import by_function, entries, names
from ..regression.scores import explained_variance_score
from ..stream._functional import field_kind
from ..stream._label import LabelStream
from ..stream._probabilistic import BrierScoreStream, LogLossStream
from ..stream._regression import RegressionStream
from . import score_table as _table
from .one_pass import _ACCURACY, _BRIER, _COMPLEMENTS, _KAPPA, _LOG_LOSS, _PLAIN, _VARIANT, _split

__all__ = ["PARTIAL_METRICS", "PartialEvaluation"]

_SETWISE = tuple(f"{m}{s}" for m in names(family="label", averaged=True)
                 for s in ("", "_micro", "_macro", "_weighted"))
LABEL_METRICS = _PLAIN + _SETWISE
PROBA_METRICS = names(path="proba")
RANKING_METRICS = names(path="ranking")
#: multiclass one-vs-rest ROC AUC (2-D ``y_score``), macro and support-weighted
OVR_METRICS = ("roc_auc_ovr", "roc_auc_ovr_weighted")
#: top-k accuracy (2-D ``y_score``); any ``top_<k>_accuracy`` is understood
TOP_K_METRICS = ("top_2_accuracy", "top_3_accuracy", "top_5_accuracy")
REGRESSION_METRICS = names(family="regression")
#: the expected calibration error of binary probabilities (15 bins: a histogram state)
CALIBRATION_METRICS = (by_function(calibration_error.__name__).key,)
CALIBRATION_BINS = 15
#: every name :class:`PartialEvaluation` understands
PARTIAL_METRICS = (LABEL_METRICS + PROBA_METRICS + RANKING_METRICS + OVR_METRICS
                   + TOP_K_METRICS + REGRESSION_METRICS + CALIBRATION_METRICS)
#: metrics whose state is a table of the data itself
TABLED = names(buffered=True)

# evaluate name -> LabelStream / RegressionStream metric (the registry's key); the
# variants: one_pass._VARIANT
_KEY = {e.evaluate: e.key for e in entries() if e.evaluate}
#: the weight and Chan's moments of ``y_true`` and of the errors ``e``
_REG_SUMS = ("r_w", "r_mean_y", "r_m2_y", "r_mean_e", "r_m2_e")
#: a regression stream of each statistic of sums, whose state a state here keeps as
#: ``r<statistic>_<field>`` (the moments: Chan's above; the median: an exact table)
_SUMMED = {st.statistic: st for st in (RegressionStream(e.key) for e in entries(
    family="regression", buffered=False) if e.evaluate) if st.statistic != "moments"}
_EMPTY = {stat: st.init(xp=np) for stat, st in _SUMMED.items()}  # pure updates: shared
_REG_KEEP = {f"r{stat}_{k}": (stat, k) for stat, init in _EMPTY.items()
             for k in init if field_kind(k) != "meta"}
#: explained variance reads the errors' centred moments (R^2 their raw squares)
_CENTRED_ERRORS = by_function(explained_variance_score.__name__).key


class PartialEvaluation:
    """Mergeable states of a set of metrics over chunks of data (NumPy, host).

    Parameters
    ----------
    metrics : sequence of str
        Names from ``PARTIAL_METRICS``: :func:`metrix.evaluate`'s names
        (without ``_samples`` and the D² scores) and ``mean_absolute_error``,
        ``mean_squared_error``, ``root_mean_squared_error``, ``r2_score``,
        ``explained_variance_score``, ``mean_absolute_percentage_error``,
        ``max_error`` (1-D targets).
    labels : array-like, default=None
        The global sorted classes of all the data (required by the label,
        probabilistic and ranking metrics; the caller finds them, e.g. by a
        first pass).  Per-class metrics use exactly these classes, as
        scikit-learn's ``labels=``; MCC and balanced accuracy raise if the
        data holds another value; log loss requires ``y_true`` in ``labels``.
    pos_label : scalar, default=None
        The positive class of the binary metrics (names without an average
        suffix, ROC AUC, average precision, Brier score) and the class whose
        probability a 1-D ``y_score`` gives.  Default: the greatest label.
    method : {"exact", "binned"}, default="exact"
        ROC AUC / average precision from the exact table of distinct scores,
        or from a histogram over ``bins``.
    bins : int or array-like, default=None
        ``method="binned"``: ``bins`` equal bins of [0, 1], or increasing
        edges (fixed, so merging is associative).
    zero_division : {"warn", 0.0, 1.0, nan}, default="warn"
        The value of an undefined precision / recall / F1 / jaccard
        (``"warn"``: 0, without the warning).

    Notes
    -----
    A state is a dict of NumPy arrays (picklable); the state of an empty
    chunk is the identity of :meth:`merge`.  With ``method="binned"``,
    :meth:`finalize` adds ``roc_auc_error_bound`` and
    ``average_precision_error_bound`` (see
    :func:`metrix.evaluation.score_table.binned_bounds`).
    """

    def __init__(self, metrics, *, labels=None, pos_label=None, method="exact", bins=None,
                 zero_division="warn"):
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in PARTIAL_METRICS and _top_k(m) is None]
        if unknown:
            raise ValueError(f"Unknown metric names {unknown}; choose from {PARTIAL_METRICS}.")
        if method not in ("exact", "binned"):
            raise ValueError(f'method must be "exact" or "binned", got {method!r}')
        self.metrics, self.method = metrics, method
        self.edges = _table.check_edges(bins) if method == "binned" else None
        self.zero_division = zero_division
        self.label_names = [m for m in metrics if m in LABEL_METRICS]
        self.proba_names = [m for m in metrics if m in PROBA_METRICS]
        self.ranking_names = [m for m in metrics if m in RANKING_METRICS]
        self.ovr_names = [m for m in metrics if m in OVR_METRICS]
        self.top_k = {m: _top_k(m) for m in metrics if _top_k(m) is not None}
        self.regression_names = [m for m in metrics if m in REGRESSION_METRICS]
        self.summed = _summed_statistics(self.regression_names)
        self.calibration = any(m in CALIBRATION_METRICS for m in metrics)
        self.tabled = any(m in TABLED for m in metrics)
        self.labels = None if labels is None else _sorted_labels(labels)
        needs_labels = self.label_names or self.proba_names or self.ovr_names or \
            self.top_k or self.calibration or (self.ranking_names and pos_label is None)
        if needs_labels and (self.labels is None or self.labels.shape[0] == 0):
            raise ValueError(f"{self.label_names + self.proba_names + self.ranking_names} "
                             f"{self.ovr_names + list(self.top_k)} need labels= (the sorted "
                             "classes of all the data).")
        if pos_label is None and self.labels is not None and self.labels.shape[0]:
            pos_label = self.labels[-1].item()
        self.pos_label = pos_label
        binary = [m for m in self.label_names if m not in _PLAIN and _split(m)[1] == "binary"]
        binary += self.ranking_names
        if binary and self.labels is not None and self.labels.shape[0] > 2:
            raise ValueError(f"{binary} are binary metrics but there are "
                             f"{self.labels.shape[0]} classes; choose an average suffix "
                             "(_micro, _macro, _weighted).")
        if binary and self.labels is not None and self.labels.shape[0] == 2 and \
                pos_label not in self.labels.tolist():
            raise ValueError(f"pos_label={pos_label!r} is not a valid label. It should be one "
                             f"of {self.labels.tolist()}")

    # -- states ----------------------------------------------------------------
    def empty(self) -> dict:
        """The state of no data (the identity of :meth:`merge`)."""
        state = {"n": np.zeros((), np.int64)}
        if self.label_names:
            c = self.labels.shape[0]
            state.update(cm=np.zeros((c + 2) ** 2), correct=np.zeros(()),
                         n_other=np.zeros((), np.int64))
        if self.proba_names:
            state.update(p_w=np.zeros(()), ll_sum=np.zeros(()), brier_sum=np.zeros(()))
        if self.ranking_names:
            state.update(n_pos=np.zeros((), np.int64), n_neg=np.zeros((), np.int64))
            if self.method == "exact":
                state.update(_table.empty_table())
            else:
                nb = self.edges.shape[0] - 1
                state.update(hist_pos=np.zeros(nb), hist_neg=np.zeros(nb))
        if self.ovr_names:
            c = self.labels.shape[0]
            state["ovr_n_pos"] = np.zeros(c, np.int64)
            if self.method == "exact":
                for k in range(c):
                    state.update(_prefixed(f"ovr{k}_", _table.empty_table()))
            else:
                nb = self.edges.shape[0] - 1
                state.update(ovr_hist_pos=np.zeros((c, nb)), ovr_hist_neg=np.zeros((c, nb)))
        if self.calibration:
            # host state (this module is the out-of-core host code, NumPy by design)
            state["cal_hist"] = np.zeros((CALIBRATION_BINS + 1, 3))
        if self.top_k:
            state["topk_w"] = np.zeros(())
            state.update({_top_k_key(m): np.zeros(()) for m in self.top_k})
        if self.regression_names:  # and the streams' empty states
            state.update({k: np.zeros(()) for k in _REG_SUMS + ("r_n",)})
            state.update({key: _EMPTY[stat][k].reshape(()).copy()
                          for key, (stat, k) in _REG_KEEP.items() if stat in self.summed})
            if self.tabled:
                state.update(_prefixed("abs_err_", _table.empty_table()))
        return state

    def chunk(self, y_true, y_pred=None, y_score=None, sample_weight=None) -> dict:
        """The state of one chunk of data (a dict of NumPy arrays).

        Parameters
        ----------
        y_true : array-like of shape (n,)
            True labels (or regression targets).
        y_pred : array-like of shape (n,), default=None
            Predicted labels (label metrics) or values (regression).
        y_score : array-like of shape (n,) or (n, C), default=None
            Probability of ``pos_label`` (1-D) or of each of the sorted
            ``labels`` (2-D).
        sample_weight : array-like of shape (n,), default=None
            Sample weights.

        Returns
        -------
        state : dict of str to numpy.ndarray
            The chunk's sums, tables and counts (see the module docstring).
        """
        yt = _host(y_true).reshape(-1)
        n = yt.shape[0]
        w = np.ones(n) if sample_weight is None else _host(sample_weight).astype(
            np.float64).reshape(-1)
        yp = None if y_pred is None else _host(y_pred)
        ys = None if y_score is None else _host(y_score)
        for name, a in (("y_pred", yp), ("y_score", ys), ("sample_weight", w)):
            if a is not None and a.shape[0] != n:
                raise ValueError("Found input variables with inconsistent numbers of samples: "
                                 f"[{n}, {a.shape[0]}] (y_true, {name})")
        state = self.empty()
        state["n"] = np.asarray(n, np.int64)
        if n == 0:
            return state
        if (self.label_names or self.regression_names) and yp is None:
            raise ValueError(f"{self.label_names + self.regression_names} need y_pred.")
        scored = self.proba_names + self.ranking_names + self.ovr_names + list(self.top_k)
        scored += [m for m in self.metrics if m in CALIBRATION_METRICS]
        if scored and ys is None:
            raise ValueError(f"{scored} need y_score.")
        self._check_chunk(yt, yp, ys, w, scored)
        if self.label_names:
            state.update(self._label_chunk(yt, yp.reshape(-1), w))
        if self.proba_names:
            state.update(self._proba_chunk(yt, ys, w))
        if self.ranking_names:
            state.update(self._ranking_chunk(yt, ys, w))
        if self.ovr_names:
            state.update(self._ovr_chunk(yt, ys, w))
        if self.top_k:
            state.update(self._top_k_chunk(yt, ys, w))
        if self.calibration:
            state["cal_hist"] = self._calibration_chunk(yt, ys, w)
        if self.regression_names:
            state.update(_regression_chunk(yt, yp.reshape(-1), w, self.summed, self.tabled))
        return state

    def _check_chunk(self, yt, yp, ys, w, scored):
        """The one-shot functions' value checks on one chunk (each chunk is on the
        host here): NaN / inf, and the label metrics' mix of target types, with
        the one-shot functions' errors (Dask and ``metrix eval`` once returned a
        number where the one-shot raises)."""
        xp = _NP_XP
        assert_all_finite(w, xp=xp, input_name="sample_weight")
        if scored or self.regression_names or _is_float_array(yt):
            assert_all_finite(yt, xp=xp, input_name="y_true")
        if scored:
            assert_all_finite(ys, xp=xp, input_name="y_score")
        if self.regression_names:
            assert_all_finite(yp, xp=xp, input_name="y_pred")
        if self.label_names:
            if _is_float_array(yp):
                assert_all_finite(yp, xp=xp, input_name="y_pred")
            check_targets(yt, yp.reshape(-1), xp=xp, validate=True, exact_binary=False)

    def merge(self, *states) -> dict:
        """The state of the data of all ``states`` (associative and commutative).

        Parameters
        ----------
        *states : dict
            States from :meth:`chunk` or :meth:`merge`.

        Returns
        -------
        state : dict of str to numpy.ndarray
            The merged state (the empty state for no argument).
        """
        if len(states) == 1 and isinstance(states[0], (list, tuple)):
            states = tuple(states[0])
        out = self.empty()
        if not states:
            return out
        tables = [prefix for prefix in self._table_prefixes()]
        for key in out:
            if key in _REG_SUMS or any(key in _table_keys(prefix) for prefix in tables):
                continue
            values = [s[key] for s in states]
            maximum = key in _REG_KEEP and field_kind(_REG_KEEP[key][1]) == "max"
            out[key] = np.max(values, axis=0) if maximum else np.sum(values, axis=0)
        for prefix in tables:
            keys = _table_keys(prefix)
            merged = _table.merge_tables([dict(zip(("score", "pos", "neg"),
                                                   (s[k] for k in keys))) for s in states])
            out.update(_prefixed(prefix, merged))
        if self.regression_names:
            acc = tuple(out[k] for k in _REG_SUMS)
            for s in states:
                acc = _chan(acc, tuple(s[k] for k in _REG_SUMS))
            out.update(zip(_REG_SUMS, acc))
        return out

    def table_rows(self, state) -> int:
        """Count the rows of the exact score table in ``state``.

        Parameters
        ----------
        state : dict
            A state from :meth:`chunk` or :meth:`merge`.

        Returns
        -------
        rows : int
            One per distinct score (24 bytes each) of every exact table: ROC
            AUC / AP (one-vs-rest: one table per class), and the absolute
            errors of the median absolute error; 0 without them or with
            ``method="binned"`` (the median's table stays exact).
        """
        return sum(int(state[prefix + "score"].shape[0]) for prefix in self._table_prefixes())

    def _table_prefixes(self):
        """Key prefixes of the exact tables in a state (merged as sorted runs)."""
        out = []
        if self.ranking_names and self.method == "exact":
            out.append("")
        if self.ovr_names and self.method == "exact":
            out += [f"ovr{k}_" for k in range(self.labels.shape[0])]
        if self.tabled:
            out.append("abs_err_")
        return out

    def finalize(self, state) -> dict:
        """The metrics of all the data merged into ``state``.

        Parameters
        ----------
        state : dict
            A state from :meth:`chunk` or :meth:`merge`.

        Returns
        -------
        values : dict of str to float
            The metrics in the requested order (with ``method="binned"``,
            then ``<name>_error_bound`` of ROC AUC, average precision and the
            one-vs-rest AUCs).
        """
        if int(state["n"]) == 0:
            raise ValueError("Found array with 0 sample(s) (no chunk held any data).")
        values = {}
        if self.label_names:
            values.update(self._label_values(state))
        if self.proba_names:
            values.update(self._proba_values(state))
        if self.ranking_names:
            values.update(self._ranking_values(state))
        if self.ovr_names:
            values.update(self._ovr_values(state))
        if self.top_k:
            values.update({m: _accuracy(state[_top_k_key(m)], state["topk_w"])
                           for m in self.top_k})
        if self.regression_names:
            values.update(_regression_values(state, self.regression_names))
        if self.calibration:
            # a host NumPy histogram: float() reads no device
            values[CALIBRATION_METRICS[0]] = float(calibration_error_from_histogram(
                state["cal_hist"], norm="l1", xp=_NP_XP))
        out = {m: float(values[m]) for m in self.metrics}
        if self.method == "binned" and self.ranking_names:
            bounds = _table.binned_bounds(state["hist_pos"], state["hist_neg"])
            for m in self.ranking_names:
                out[f"{m}_error_bound"] = bounds[m]
        if self.method == "binned":
            out.update({f"{m}_error_bound": values[f"{m}_error_bound"] for m in self.ovr_names})
        return out

    # -- label metrics -------------------------------------------------------
    def _codes(self, y, strict=False):
        """Codes ``0..C-1`` of the values of ``y`` in ``labels``; -1 for any other value
        (``strict``: scikit-learn's error instead)."""
        labels, values = self.labels, y
        # host NumPy chunks (Parquet batches, Dask partitions): NumPy by design
        if labels.dtype.kind in "OUS" or y.dtype.kind in "OUS":
            labels, values = labels.astype(object), y.astype(object)
        idx = np.clip(np.searchsorted(labels, values), 0, labels.shape[0] - 1)
        codes = np.where(labels[idx] == values, idx, -1).astype(np.int64)
        if strict and np.any(codes < 0):
            bad = np.unique(y[codes < 0]).tolist()
            raise ValueError(f"y_true contains values {bad} not belonging to the passed labels "
                             f"{self.labels.tolist()}.")
        return codes

    def _label_chunk(self, yt, yp, w):
        c = self.labels.shape[0]
        ct, cp = self._codes(yt), self._codes(yp)
        stream = LabelStream(c, weighted=True)  # the confusion matrix of every metric
        cm = stream.update(stream.init(xp=np), ct, cp, sample_weight=w)["cm"]
        other = (ct < 0) | (cp < 0)
        equal = (yt == yp) if yt.dtype.kind not in "OUS" else (yt.astype(object) == yp.astype(
            object))
        return {"cm": np.asarray(cm, np.float64), "correct": np.asarray(np.sum(w[equal])),
                "n_other": np.asarray(int(np.count_nonzero(other)), np.int64)}

    def _label_values(self, state):
        c = self.labels.shape[0]
        cm = state["cm"]
        out = {}
        accuracy = _accuracy(state["correct"], cm.sum())
        pos_code = self._pos_code()
        for name in self.label_names:
            if name == _ACCURACY:
                out[name] = accuracy
            elif name in _COMPLEMENTS:
                out[name] = 1.0 - accuracy
            elif name in _PLAIN:  # a metric of the confusion matrix
                base, kw = _VARIANT.get(name, (name, {}))
                if base != _KAPPA and int(state["n_other"]):
                    raise ValueError(f"{name}: the data holds values that are not in labels=")
                out[name] = LabelStream(c, _KEY[base], weighted=True, **kw).compute({"cm": cm})
            else:
                base, average = _split(name)
                if average == "binary" and pos_code is None:
                    zd = self.zero_division
                    out[name] = 0.0 if zd == "warn" else float(zd)
                    continue
                stream = LabelStream(c, _KEY[base], average=average,
                                     pos_label=pos_code if average == "binary" else 1 % c,
                                     zero_division=self.zero_division, weighted=True)
                out[name] = stream.compute({"cm": cm})
        return out

    def _pos_code(self):
        labels = self.labels.tolist()
        return labels.index(self.pos_label) if self.pos_label in labels else None

    # -- probabilistic metrics -----------------------------------------------
    def _proba_chunk(self, yt, ys, w):
        c = self.labels.shape[0]
        codes = self._codes(yt, strict=True)
        if ys.ndim == 2 and ys.shape[1] == 1:
            ys = ys[:, 0]
        pos_code = self._pos_code()
        if ys.ndim == 1:
            # one class: the Brier score is defined (every sample a positive, or none);
            # log loss is not (scikit-learn asks for labels=)
            if c != 2 and not (c == 1 and _LOG_LOSS not in self.proba_names):
                raise ValueError(f"A 1-D y_score needs 2 classes, labels has {c}.")
            if pos_code is None and c == 2:
                raise ValueError(f"pos_label={self.pos_label!r} is not one of the labels.")
            p_greater = ys if pos_code == 1 else 1.0 - ys
        elif ys.shape[1] != c:
            raise ValueError(f"y_score has {ys.shape[1]} columns for {c} labels "
                             f"{self.labels.tolist()}.")
        if np.any(ys < 0) or np.any(ys > 1) or np.any(np.isnan(ys)):
            raise ValueError("y_score holds values outside [0, 1] (probabilities expected).")
        # the streams' sums of the losses (host state: this module is NumPy by design)
        out = {"p_w": np.asarray(np.sum(w))}
        if _LOG_LOSS in self.proba_names:
            stream = LogLossStream(None if ys.ndim == 1 else c)
            st = stream.update(stream.init(xp=np), codes, p_greater if ys.ndim == 1 else ys, w)
            out["ll_sum"] = np.asarray(st["s_loss"], np.float64)
        if _BRIER in self.proba_names:
            stream = BrierScoreStream(None if ys.ndim == 1 else c)
            st = stream.update(stream.init(xp=np), (codes == pos_code).astype(np.int64)
                               if ys.ndim == 1 else codes, ys.astype(np.float64), w)
            out["brier_sum"] = np.asarray(st["s_loss"], np.float64)
        return out

    def _calibration_chunk(self, yt, ys, w):
        """The calibration histogram of binary probabilities of ``pos_label``
        (:func:`metrix.classification.calibration.calibration_histogram`)."""
        codes = self._codes(yt, strict=True)
        if ys.ndim == 2 and ys.shape[1] == 1:
            ys = ys[:, 0]
        if ys.ndim != 1 or self.labels.shape[0] > 2:
            raise ValueError("calibration_error takes the 1-D probabilities of a binary "
                             "target's pos_label.")
        # host NumPy chunk: the check reads no device
        if np.any(ys < 0) or np.any(ys > 1):
            raise ValueError("y_score holds values outside [0, 1] (probabilities expected).")
        pos_code = self._pos_code()
        positive = codes == pos_code if pos_code is not None else np.zeros(codes.shape, bool)
        p = ys if ys.dtype in (np.float32, np.float64) else ys.astype(np.float64)
        return calibration_histogram(p, positive, w, CALIBRATION_BINS, xp=_NP_XP,
                                     acc=np.float64)

    def _proba_values(self, state):
        """The streams' means of the summed losses (a Brier score of 2 classes or
        fewer halved, scikit-learn's "auto", as the chunks' streams)."""
        c = self.labels.shape[0]
        streams = {_LOG_LOSS: (LogLossStream(), "ll_sum"),
                   _BRIER: (BrierScoreStream(None if c <= 2 else c), "brier_sum")}
        # host NumPy sums in, Python floats out (the finished metrics)
        return {m: float(st.compute({**st.init(xp=np), "sw": state["p_w"], "s_loss": state[k]}))
                for m, (st, k) in streams.items() if m in self.proba_names}

    # -- ranking metrics -----------------------------------------------------
    def _ranking_chunk(self, yt, ys, w):
        if ys.ndim == 2 and ys.shape[1] == 1:
            ys = ys[:, 0]
        if ys.ndim != 1:
            raise ValueError(f"{self.ranking_names} need a 1-D y_score (binary targets).")
        # host NumPy chunk (object labels compare on the host)
        positive = np.asarray((yt.astype(object) if yt.dtype.kind in "OUS" else yt)
                              == self.pos_label, bool)
        out = {"n_pos": np.asarray(int(positive.sum()), np.int64),
               "n_neg": np.asarray(int((~positive).sum()), np.int64)}
        if self.method == "exact":
            out.update(_table.table_of(ys, positive, w))
        else:
            out["hist_pos"], out["hist_neg"] = _table.histogram_of(ys, positive, w, self.edges)
        return out

    def _ranking_values(self, state):
        kw = dict(n_pos=int(state["n_pos"]), n_neg=int(state["n_neg"]))
        if self.method == "exact":
            return _table.table_areas(state["score"], state["pos"], state["neg"],
                                      self.ranking_names, **kw)
        ranks = np.arange(state["hist_pos"].shape[0], dtype=np.float64)
        return _table.table_areas(ranks, state["hist_pos"], state["hist_neg"],
                                  self.ranking_names, **kw)

    # -- multiclass scores ---------------------------------------------------
    def _class_scores(self, yt, ys, what):
        """The codes of ``y_true`` (all in ``labels``) and a 2-D ``y_score`` of one
        column per label."""
        c = self.labels.shape[0]
        if ys.ndim != 2 or ys.shape[1] != c:
            raise ValueError(f"{what} need y_score of shape (n, {c}): one column per label "
                             f"{self.labels.tolist()}, got shape {ys.shape}.")
        # host NumPy chunk, widened to the float64 of the host states
        return self._codes(yt, strict=True), ys.astype(np.float64, copy=False)

    def _ovr_chunk(self, yt, ys, w):
        codes, ys = self._class_scores(yt, ys, self.ovr_names)
        if not np.all(np.abs(ys.sum(axis=1) - 1.0) <= 1e-8 + 1e-5):
            raise ValueError("Target scores need to be probabilities for multiclass roc_auc, "
                             "i.e. they should sum up to 1.0 over classes")
        c = ys.shape[1]
        out = {"ovr_n_pos": np.bincount(codes, minlength=c).astype(np.int64)}
        for k in range(c):
            positive = codes == k
            if self.method == "exact":
                out.update(_prefixed(f"ovr{k}_", _table.table_of(ys[:, k], positive, w)))
            else:
                pos, neg = _table.histogram_of(ys[:, k], positive, w, self.edges)
                out.setdefault("ovr_hist_pos", np.zeros((c, pos.shape[0])))[k] = pos
                out.setdefault("ovr_hist_neg", np.zeros((c, neg.shape[0])))[k] = neg
        return out

    def _ovr_values(self, state):
        """Each class's AUC against the rest (NaN where it has no positive or no
        negative, as scikit-learn), then the one-shot function's mean or
        support-weighted mean (:func:`~metrix.ranking._averaging.average_row_scores`)."""
        c, n = self.labels.shape[0], int(state["n"])
        aucs, support, bounds = np.full(c, np.nan), np.zeros(c), np.full(c, np.nan)
        for k in range(c):
            n_pos = int(state["ovr_n_pos"][k])
            if self.method == "exact":
                score, pos, neg = (state[f"ovr{k}_{x}"] for x in ("score", "pos", "neg"))
            else:
                pos, neg = state["ovr_hist_pos"][k], state["ovr_hist_neg"][k]
                score = np.arange(pos.shape[0], dtype=np.float64)
            support[k] = float(pos.sum())
            if n_pos and n - n_pos and support[k] > 0 and float(neg.sum()) > 0:
                aucs[k] = _table.table_areas(score, pos, neg, [_table.AUC], n_pos=n_pos,
                                             n_neg=n - n_pos)[_table.AUC]
                if self.method == "binned":
                    bounds[k] = _table.binned_bounds(pos, neg)[_table.AUC]
        out = {}
        for suffix, v in (("", aucs), ("_error_bound", bounds)):  # an average of bounds
            for name, weights in (("roc_auc_ovr", None), ("roc_auc_ovr_weighted", support)):
                # host NumPy values: the finished metric, a Python float
                out[name + suffix] = float(average_row_scores(v, weights, xp=_NP_XP,
                                                              zero_if_empty=True))
        return out

    def _top_k_chunk(self, yt, ys, w):
        from ..ranking.label_ranking import top_k_accuracy_score

        codes, ys = self._class_scores(yt, ys, list(self.top_k))
        out = {"topk_w": np.asarray(np.sum(w))}
        labels = np.arange(ys.shape[1])
        for m, k in self.top_k.items():
            out[_top_k_key(m)] = np.asarray(float(top_k_accuracy_score(
                codes, ys, k=k, labels=labels, normalize=False, sample_weight=w)))
        return out


# -- exact tables, top-k names -------------------------------------------------------

def _table_keys(prefix):
    return tuple(prefix + x for x in ("score", "pos", "neg"))


def _prefixed(prefix, table):
    return {prefix + k: v for k, v in table.items()}


def _accuracy(correct, total):
    """The one-shot functions' accuracy of host sums; NaN without weight (host
    NumPy in, a Python float out: the finished metric)."""
    return float(accuracy_from_totals(np.asarray(correct, np.float64),
                                      np.asarray(total, np.float64), _NP_XP,
                                      undefined=float("nan")))


def _top_k(name):
    """``k`` of a ``top_<k>_accuracy`` name, else None."""
    if not (name.startswith("top_") and name.endswith("_accuracy")):
        return None
    k = name[len("top_"):-len("_accuracy")]
    return int(k) if k.isdigit() and int(k) >= 1 else None


def _top_k_key(name):
    return f"topk_{_top_k(name)}"


# -- regression ----------------------------------------------------------------

def _summed_statistics(names):
    """The statistics of :data:`_SUMMED` the regression metrics ``names`` read (R^2
    its raw squared errors, ``rsq_s_ee``), in :data:`_SUMMED`'s order: a chunk
    updates only those streams."""
    streams = [RegressionStream(_KEY[m], **({"capacity": 1} if m in TABLED else {}))
               for m in names]  # (the median's buffer: its table, not a summed statistic)
    needed = {st.statistic for st in streams}
    if any(st.statistic == "moments" and st.metric != _CENTRED_ERRORS for st in streams):
        needed.add("sq")
    return tuple(stat for stat in _SUMMED if stat in needed)


def _regression_chunk(yt, yp, w, summed, median=False):
    yt = yt.astype(np.float64)
    yp = yp.astype(np.float64)
    e = yt - yp
    sw = float(np.sum(w))
    # host NumPy states (see the module docstring): the sample count from the shape
    out = {"r_w": np.asarray(sw), "r_n": np.asarray(float(yt.shape[0]))}
    if sw != 0:
        mean_y = np.average(yt, weights=w)
        mean_e = np.average(e, weights=w)
        out.update(r_mean_y=np.asarray(mean_y), r_m2_y=np.asarray(np.sum(w * (yt - mean_y) ** 2)),
                   r_mean_e=np.asarray(mean_e), r_m2_e=np.asarray(np.sum(w * (e - mean_e) ** 2)))
    got = {stat: _SUMMED[stat].update(_EMPTY[stat], yt, yp, None if stat == "max" else w)
           for stat in summed}  # the streams' states (a maximum: no weights)
    out.update({key: got[stat][k].reshape(()) for key, (stat, k) in _REG_KEEP.items()
                if stat in got})
    if median:  # the exact table of distinct absolute errors and their weights
        err = np.abs(e)
        out.update(_prefixed("abs_err_", _table.table_of(err, np.ones(err.shape, bool), w)))
    return out


def _chan(a, b):
    """Chan's merge of ``(w, mean_y, m2_y, mean_e, m2_e)``: weighted means and
    centred sums of squares of two disjoint parts."""
    wa, wb = float(a[0]), float(b[0])
    if wb == 0:
        return a
    if wa == 0:
        return b
    w = wa + wb
    out = [np.asarray(w)]
    for i in (1, 3):
        delta = float(b[i]) - float(a[i])
        out.append(np.asarray(float(a[i]) + delta * (wb / w)))
        out.append(np.asarray(float(a[i + 1]) + float(b[i + 1]) + delta * delta * (wa * wb / w)))
    return tuple(out)


def _regression_values(state, names):
    """Each metric is its :class:`~metrix.stream.RegressionStream`'s ``compute`` (the
    family's formulas) on the stream's state of the data (:func:`_stream_state`)."""
    out = {}
    for name in names:
        if name in TABLED:  # the median's buffer: the exact table of the errors
            stream = RegressionStream(_KEY[name],
                                      capacity=max(state["abs_err_score"].shape[0], 1))
            init = stream.init(xp=np)  # (host NumPy state, as the whole module)
        else:
            stream, init = _stream(name)
        stream.check_seen(int(state["r_n"]))  # R^2: scikit-learn's warning below two samples
        # host NumPy state in, a Python float out (the finished metric)
        out[name] = float(stream.compute(_stream_state(stream, init, state)))
    return out


@functools.cache
def _stream(name):
    """The metric's stream and that stream's empty host NumPy state (compute is pure:
    one of each per metric serves every finalize)."""
    stream = RegressionStream(_KEY[name])
    return stream, stream.init(xp=np)


def _stream_state(stream, init, state):
    """The state of a :class:`~metrix.stream.RegressionStream` of the data merged into
    ``state``.  R^2 and explained variance read centred sums only: theirs are the sums
    of the data less its means (Chan's, without cancellation), but for R^2's raw
    squared error; NaN for explained variance without weight, as the means.  The
    median's buffer is the exact table of distinct errors."""
    if stream.statistic in _SUMMED:
        given = {k: state[key] for key, (stat, k) in _REG_KEEP.items()
                 if stat == stream.statistic}
    else:
        w, centred = float(state["r_w"]), stream.metric == _CENTRED_ERRORS
        given = dict(s_y=0.0, s_e=0.0, s_yy=state["r_m2_y"], n=state["r_n"],
                     sw=np.nan if centred and not w else w)
        if stream.statistic == "moments":
            given["s_ee"] = state["r_m2_e"] if centred else state["rsq_s_ee"]
        elif "abs_err_score" in state:
            given.update(buf_abs=state["abs_err_score"][:, None],
                         buf_weight=state["abs_err_pos"])
    return {**init, **{k: np.asarray(v) for k, v in given.items() if k in init}}  # (host)


# -- inputs --------------------------------------------------------------------

def _host(a):
    """A NumPy array of ``a`` (pandas, cuDF and Arrow-backed columns, CuPy arrays as a
    copy to the host, lists)."""
    if hasattr(a, "to_numpy"):
        a = a.to_numpy()
    elif type(a).__module__.split(".")[0] == "cupy":  # dask-cudf / CuPy partitions
        a = a.get()
    return np.asarray(a)


def _sorted_labels(labels):
    """The distinct sorted labels as a NumPy array."""
    arr = _host(labels).reshape(-1)
    if arr.dtype.kind == "O":
        return np.asarray(sorted(set(arr.tolist())), dtype=object)
    return np.unique(arr)


_NP_XP = get_namespace_and_device()[0]


def _is_float_array(a) -> bool:
    # host code by design (see the module docstring): chunks are NumPy here
    return a is not None and np.asarray(a).dtype.kind == "f"
