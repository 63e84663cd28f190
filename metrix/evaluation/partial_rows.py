"""Mergeable host states of multilabel and ranking metrics (2-D targets, host code, NumPy).

The companion of :class:`~metrix.evaluation.partial.PartialEvaluation` for data whose
target is a row of labels or relevances (``metrix eval``'s multilabel and
ranking tasks over a directory of files):

* **per-label averages** (``precision`` / ``recall`` / ``f1`` / ``jaccard`` with
  ``_micro``, ``_macro`` or ``_weighted``): the weighted per-label confusion
  counts ``(tn, fp, fn, tp)``, summed over chunks.  :meth:`RowsEvaluation.finalize`
  scores them with the public function on four weighted rows per label (a
  row sets one label's true and predicted value, zeros elsewhere: the other
  labels see a true negative, which none of these scores reads), so every
  rule of the function (``zero_division``, the weighted average's support)
  is the function's own;
* **per-sample means** (``subset_accuracy``, ``hamming_loss``, the ``_samples``
  averages, ``lrap``, ``ndcg``, ``dcg``, ``coverage_error``,
  ``label_ranking_loss``): scikit-learn defines each as the (weighted) mean
  over samples of a per-sample value, so a chunk keeps ``value x weight`` and
  its weight, and the merge adds both.

References
----------
.. [1] scikit-learn, ``sklearn.metrics`` (the definitions of every metric).
"""

from __future__ import annotations

import numpy as np  # host code by design (module docstring): NumPy states, merged on the client

from ..ranking.label_ranking import top_k_accuracy_score
from ..registry import entries
from .partial import _host

__all__ = ["PER_LABEL", "ROWS_METRICS", "RowsEvaluation"]

_AVERAGED = ("micro", "macro", "weighted")
_SETWISE = [e for e in entries(family="label", averaged=True) if e.evaluate]
#: name -> (public function, reads "pred" or "score", keywords)
_PER_LABEL = {f"{e.evaluate}_{a}": (e.function, "pred", {"average": a})
              for e in _SETWISE for a in _AVERAGED}
_PER_SAMPLE = {
    "subset_accuracy": ("accuracy_score", "pred", {}),
    **{e.key: (e.function, "pred", {}) for e in entries(path="multilabel")},
    **{f"{e.evaluate}_samples": (e.function, "pred", {"average": "samples"}) for e in _SETWISE},
    # the row means of a 2-D y_true (top-k accuracy's y_true is 1-D)
    **{e.key: (e.function, "score", {}) for e in entries(path="row_mean")
       if e.function != top_k_accuracy_score.__name__},
}
#: every name :class:`RowsEvaluation` understands
ROWS_METRICS = tuple(_PER_LABEL) + tuple(_PER_SAMPLE)
#: the names read from the per-label counts (one state for all of them)
PER_LABEL = tuple(_PER_LABEL)


class RowsEvaluation:
    """Mergeable states of multilabel / ranking metrics over chunks of rows.

    Parameters
    ----------
    metrics : sequence of str
        Names from ``ROWS_METRICS``.

    Notes
    -----
    The protocol of :class:`~metrix.evaluation.partial.PartialEvaluation`:
    :meth:`chunk`, :meth:`merge` (associative, commutative; the empty state is
    its identity), :meth:`finalize`.  A state is a dict of NumPy arrays.
    """

    def __init__(self, metrics):
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in ROWS_METRICS]
        if unknown:
            raise ValueError(f"Unknown metric names {unknown}; choose from {ROWS_METRICS}.")
        self.metrics = metrics
        self.per_label = [m for m in metrics if m in _PER_LABEL]
        self.per_sample = [m for m in metrics if m in _PER_SAMPLE]
        self.n_labels = None

    def empty(self) -> dict:
        """The state of no data."""
        state = {"n": np.zeros((), np.int64), "w": np.zeros(())}
        if self.per_label:
            state["mcm"] = np.zeros((0, 4))  # grows to (labels, 4) with the first rows
        state.update({f"sum_{m}": np.zeros(()) for m in self.per_sample})
        return state

    def chunk(self, y_true, y_pred=None, y_score=None, sample_weight=None) -> dict:
        """The state of one chunk: ``y_true`` ``(n, labels)``; ``y_pred`` (label
        indicators) for the label metrics, ``y_score`` for the ranking ones."""
        import metrix

        yt = _host(y_true)
        y_pred = None if y_pred is None else _host(y_pred)
        y_score = None if y_score is None else _host(y_score)
        if yt.ndim != 2:
            raise ValueError(f"multilabel / ranking targets are 2-D, got shape {yt.shape}")
        n = yt.shape[0]
        w = np.ones(n) if sample_weight is None else _host(sample_weight).astype(np.float64)
        state = self.empty()
        state["n"] = np.asarray(n, np.int64)
        if n == 0:
            return state
        inputs = {"pred": y_pred, "score": y_score}
        for m in self.metrics:
            kind = (_PER_LABEL.get(m) or _PER_SAMPLE[m])[1]
            if inputs[kind] is None:
                raise ValueError(f"{m} needs y_{kind}.")
        wsum = float(np.sum(w))
        state["w"] = np.asarray(wsum)
        if self.per_label and wsum > 0:  # (tn, fp, fn, tp) per label
            mcm = metrix.multilabel_confusion_matrix(yt, np.asarray(y_pred), sample_weight=w)
            state["mcm"] = np.asarray(mcm, np.float64).reshape(-1, 4)
        elif self.per_label:
            state["mcm"] = np.zeros((yt.shape[1], 4))
        if wsum > 0:  # a chunk of zero weight adds nothing to a weighted mean
            for m in self.per_sample:
                fn, kind, kw = _PER_SAMPLE[m]
                value = getattr(metrix, fn)(yt, inputs[kind], sample_weight=w, **kw)
                state[f"sum_{m}"] = np.asarray(float(value) * wsum)
        return state

    def merge(self, *states) -> dict:
        """The state of the union of the chunks of ``states``."""
        if len(states) == 1 and isinstance(states[0], (list, tuple)):
            states = tuple(states[0])
        out = self.empty()
        for s in states:
            for key, value in s.items():
                if key == "mcm":
                    if value.shape[0] == 0:
                        continue
                    if out["mcm"].shape[0] == 0:
                        out["mcm"] = np.zeros_like(value)
                    if out["mcm"].shape != value.shape:
                        raise ValueError(f"chunks have {out['mcm'].shape[0]} and "
                                         f"{value.shape[0]} labels")
                out[key] = out[key] + value
        return out

    def table_rows(self, state) -> int:
        """0: these states hold no table of the data."""
        return 0

    def finalize(self, state) -> dict:
        """The metrics of all the data merged into ``state`` (Python floats)."""
        import metrix

        if int(state["n"]) == 0:
            raise ValueError("Found array with 0 sample(s) (no chunk held any data).")
        out = {}
        if self.per_label:
            yt, yp, w = _confusion_rows(state["mcm"])
            for m in self.per_label:
                fn, _, kw = _PER_LABEL[m]
                out[m] = float(getattr(metrix, fn)(yt, yp, sample_weight=w, **kw))
        wsum = float(state["w"])
        for m in self.per_sample:
            out[m] = float(state[f"sum_{m}"]) / wsum if wsum > 0 else float("nan")
        return {m: out[m] for m in self.metrics}


def _confusion_rows(mcm):
    """Four rows per label (true, predicted) = (0, 0), (0, 1), (1, 0), (1, 1), each
    weighted by its count; zeros in the other labels' columns."""
    n_labels = mcm.shape[0]
    label = np.repeat(np.eye(n_labels, dtype=np.int64), 4, axis=0)  # rows 4k..4k+3: label k
    cells = np.tile(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), (n_labels, 1))
    return label * cells[:, :1], label * cells[:, 1:], mcm.reshape(-1)
