"""Streaming top-k accuracy: the weight of the hits and the total weight.

``Accuracy(num_classes, top_k=k)`` with ``k > 1`` holds this statistic
instead of a confusion matrix: ``{"hits", "total"}``, int64 counts (or, with
``weighted=True``, sums of sample weights in the widest float), merged by
addition.  A hit is the one-shot rule,
:func:`metrix.ranking.label_ranking.top_k_hit_rows`: fewer than ``k``
classes rank ahead of the true one (a higher score, or an equal score with a
higher class index, as scikit-learn's ``top_k_accuracy_score``).  The value
is :func:`~metrix.classification.confusion.accuracy_from_totals` of the two
sums, as for plain accuracy.

A true label that is none of ``0..C-1`` (2.5, -1, NaN) is a miss, as plain
accuracy counts an "other" label as an error; ``validate=True`` raises for it
instead (a host read per batch).  Samples whose label is ``ignore_index``
count for nothing.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.validation import check_consistent_length
from ..classification.confusion import accuracy_from_totals
from ..ranking.label_ranking import top_k_hit_rows
from ._functional import StreamMetric, is_float


class TopKStream(StreamMetric):
    """Functional streaming top-k accuracy over classes ``0..num_classes-1``.

    Parameters
    ----------
    num_classes : int
        Number of classes: the columns of the scores ``y_pred`` ``(n, C)``.
    top_k : int
        A sample is a hit when its true class is among its ``top_k`` highest scores.
    weighted : bool, default=False
        Accept ``sample_weight`` (float sums) instead of int64 counts.
    validate : bool, default=False
        Check on the host that every label is an integer in ``0..num_classes-1``.
    ignore_index : int or None, default=None
        Samples whose true label equals it count for nothing.
    """

    def __init__(self, num_classes, top_k, *, weighted=False, validate=False,
                 ignore_index=None):
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
            raise ValueError(f"num_classes must be an int >= 2 with top_k, got {num_classes!r}")
        self._positive_int(top_k, "top_k")
        self.ignore_index = self._checked_ignore_index(ignore_index)
        self.num_classes, self.top_k = num_classes, top_k
        self.weighted, self.validate = bool(weighted), bool(validate)
        self.key = ("top_k", num_classes, top_k, self.weighted, self.validate,
                    self.ignore_index)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "TopKStream", "num_classes": self.num_classes, "top_k": self.top_k,
                "weighted": self.weighted, "ignore_index": self.ignore_index}

    def _init(self, xp, device, fdt):
        dtype = _ns.max_float_dtype(xp, device) if self.weighted else _ns.count_dtype(xp, device)
        return {"hits": xp.zeros((), dtype=dtype, device=device),
                "total": xp.zeros((), dtype=dtype, device=device)}

    def update(self, state, y_true, y_pred, sample_weight=None):
        """The state after one batch of labels ``(n,)`` and scores ``(n, C)`` (pure;
        no host read unless ``validate``)."""
        self._check_weight(sample_weight)
        xp, _, _, yt, s, w = self._inputs(state, y_true, y_pred, sample_weight)
        c = self.num_classes
        if s.ndim != 2 or s.shape[1] != c:
            raise ValueError(f"y_pred must be scores of shape (n_samples, {c}) with top_k, got "
                             f"{tuple(s.shape)}")
        yt = self._flat(yt, xp)
        check_consistent_length(yt, s)
        cdt = _ns.count_dtype(xp, _ns.device_of(s))
        valid = (yt >= 0) & (yt < c)
        if is_float(yt, xp):
            valid = valid & (yt == xp.floor(yt))  # NaN fails every compare
        counted = None if self.ignore_index is None else yt != self.ignore_index
        if self.validate and yt.shape[0]:
            ok = valid if counted is None else valid | ~counted
            if not bool(xp.all(ok)):  # host read: validate=True only
                raise ValueError(f"Labels must be integers in [0, {c}) (num_classes={c}).")
        codes = xp.astype(xp.where(valid, yt, xp.zeros_like(yt)), cdt)
        hits = top_k_hit_rows(s, codes, self.top_k, xp=xp) & valid
        dtype = state["total"].dtype
        if counted is not None:
            hits = hits & counted
        if w is None:
            n = yt.shape[0] if counted is None else xp.sum(xp.astype(counted, dtype))
            return {"hits": state["hits"] + xp.sum(xp.astype(hits, dtype)),
                    "total": state["total"] + n}
        w = self._flat_as(w, dtype, xp)
        zero = xp.zeros_like(w)
        wc = w if counted is None else xp.where(counted, w, zero)
        return {"hits": state["hits"] + xp.sum(xp.where(hits, w, zero)),
                "total": state["total"] + xp.sum(wc)}

    def compute(self, state):
        """The top-k accuracy: 0-d, widest float, NaN before any counted sample."""
        xp, device = _ns.get_namespace_and_device(state["total"])
        fdt = _ns.max_float_dtype(xp, device)
        return accuracy_from_totals(xp.astype(state["hits"], fdt),
                                    xp.astype(state["total"], fdt), xp=xp,
                                    undefined=math.nan)
