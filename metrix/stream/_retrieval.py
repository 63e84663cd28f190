"""Streaming retrieval metrics with query ids (TorchMetrics' ``Retrieval*``): exact.

The rows of one query may arrive in any batch, so the state is an exact
buffer of ``capacity`` rows (:mod:`metrix.stream._buffer`): score, relevance
and query id of each row.  ``compute`` groups the rows by query on the device
(a stable sort of the query ids, the free rows last; a new group where the
id changes), then ranks each group with the one-shot code of
:mod:`metrix.retrieval._queries` (``_ranked_pairs``: two stable sorts) and
applies its per-query formulas (``precision_values``, ``recall_values``,
``hit_rate_values``, ``mrr_values``, ``map_values``, ``ndcg_values``) and its
mean over queries.
No host read, except ``empty_target_action="error"`` (one read in
``compute``, to raise).

Semantics are TorchMetrics' (1.9), which differ from :func:`metrix.precision_at_k`
and the other one-shot functions in two places:

* precision, recall, MAP and MRR count a relevant row as retrieved only if
  its score is ``> 0`` (TorchMetrics' ``where(preds > 0, target, 0)``); the
  relevant total (recall's denominator, and what makes a query "empty") counts
  every relevant row.  nDCG and the hit rate take every row (TorchMetrics'
  ``retrieval_hit_rate`` sums the targets of the top k as they are).
* nDCG averages the gains over tied scores (scikit-learn's ``ndcg_score`` rule,
  which TorchMetrics translates); the one-shot ``ndcg_at_k`` ranks ties by
  position.

Ties in the other metrics are broken by arrival order (the earlier row ranks
higher); TorchMetrics leaves that order to ``torch.topk`` / ``torch.sort``
(unspecified).  Scores are compared in the widest float (TorchMetrics casts
them to float32 first, which can tie float64 scores that differ).
"""

from __future__ import annotations

import numbers

from .._core import namespace as _ns
from ..backends import ops as _ops
from ..retrieval._queries import (
    _query_mean,
    _Ranked,
    _ranked_pairs,
    hit_rate_values,
    map_values,
    mrr_values,
    ndcg_values,
    precision_values,
    recall_values,
)
from ._buffer import check_capacity, init_buffer, nan_if_dropped, write_rows
from ._functional import (
    StreamMetric,
    array_namespace,
    count_dtype,
    dtype_probe,
    is_float,
    result_dtype,
)
from ._wrappers import Metric

METRICS = ("ndcg", "map", "mrr", "precision", "recall", "hit_rate")
ACTIONS = ("neg", "pos", "skip", "error")
#: each metric's per-query values of the ranked rows (precision: with its k options)
_VALUES = {"ndcg": ndcg_values, "map": map_values, "mrr": mrr_values,
           "hit_rate": hit_rate_values, "recall": recall_values}


class RetrievalStream(StreamMetric):
    """Functional streaming retrieval metric over (query, document) rows: exact.

    Parameters
    ----------
    metric : {"ndcg", "map", "mrr", "precision", "recall", "hit_rate"}
        The per-query metric; the result is its mean over the queries.
    capacity : int
        Rows the buffer holds (every row of every batch, rows dropped by
        ``ignore_index`` included).  More raise :class:`BufferFullError` in
        the stateful classes; a functional state that overflowed computes NaN.
    top_k : int, default=None
        Cut-off; ``None``: every document of a query.
    adaptive_k : bool, default=False
        ``"precision"`` only: divide by ``min(top_k, n_docs)`` instead of ``top_k``.
    empty_target_action : {"neg", "pos", "skip", "error"}, default="neg"
        A query with no relevant document (its targets sum to 0) scores 0, 1,
        is left out of the mean (all left out: 0.0), or makes ``compute``
        raise ``ValueError`` (a host read).
    ignore_index : int, default=None
        Rows whose target equals it are left out (they still take buffer rows).
    validate : bool, default=False
        Check finite scores and binary targets (not for ``"ndcg"``, whose
        targets are graded) on the host, per batch.

    Notes
    -----
    ``update(state, y_true, y_pred, indexes)``: metrix's order (TorchMetrics'
    ``update(preds, target, indexes)`` swaps the first two).  ``indexes`` (the
    query id of each row, integers) is required; the three are flattened.
    """

    input_names = ("y_true", "y_pred", "indexes")

    weighted = True  # an exact buffer (sample weights are not taken: see update)

    def __init__(self, metric, capacity, *, top_k=None, adaptive_k=False,
                 empty_target_action="neg", ignore_index=None, validate=False):
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(
                top_k, numbers.Integral) or top_k < 1):
            raise ValueError(f"top_k must be a positive int or None, got {top_k!r}")
        if not isinstance(adaptive_k, bool):
            raise ValueError(f"adaptive_k must be a bool, got {adaptive_k!r}")
        if adaptive_k and metric != "precision":
            raise ValueError("adaptive_k is for metric='precision'")
        if empty_target_action not in ACTIONS:
            raise ValueError(f"empty_target_action must be one of {ACTIONS}, got "
                             f"{empty_target_action!r}")
        if ignore_index is not None and (isinstance(ignore_index, bool)
                                         or not isinstance(ignore_index, numbers.Integral)):
            raise ValueError(f"ignore_index must be an int or None, got {ignore_index!r}")
        self.metric, self.capacity = metric, check_capacity(capacity)
        self.top_k = None if top_k is None else int(top_k)
        self.adaptive_k, self.empty_target_action = adaptive_k, empty_target_action
        self.ignore_index = None if ignore_index is None else int(ignore_index)
        self.validate = bool(validate)
        # the buffer: shared in a collection by the retrieval metrics of this capacity
        # and ignore_index whose update checks the same (validate; binary targets)
        self.key = ("retrieval", self.capacity, self.ignore_index, self.validate,
                    self.validate and metric != "ndcg")

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "RetrievalStream", "metric": self.metric, "capacity": self.capacity,
                "top_k": self.top_k, "adaptive_k": self.adaptive_k,
                "empty_target_action": self.empty_target_action,
                "ignore_index": self.ignore_index}

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        cdt = count_dtype(xp, device)
        state = init_buffer(xp, device, self.capacity,
                            {"score": ((), acc), "target": ((), acc), "query": ((), cdt)})
        state["meta_dtype"] = dtype_probe(xp, device, fdt)
        return state

    def update(self, state, y_true, y_pred, indexes=None):
        """Append one batch of rows (pure; static shapes; no host read unless
        ``validate``)."""
        values, w = self.buffer_rows(state, y_true, y_pred, indexes)
        return write_rows(state, values, w, xp=array_namespace(state["buf_weight"]))

    def buffer_rows(self, state, y_true, y_pred, indexes=None):
        """One batch's rows ``({"score", "target", "query"}, weight)``, checked and
        converted as :meth:`update` writes them (the stateful wrappers write them in
        place into a buffer they own); weight 0 for the ``ignore_index`` rows."""
        if indexes is None:
            raise ValueError("indexes (the query id of each row) is required, as in "
                             "TorchMetrics: update(y_true, y_pred, indexes)")
        primary = state["buf_weight"]
        xp, _, _, y, s, q = self._inputs(state, y_true, y_pred, indexes, primary=primary)
        y, s, q = self._flat(y, xp), self._flat(s, xp), self._flat(q, xp)
        if not (y.shape[0] == s.shape[0] == q.shape[0]):
            raise ValueError("y_true, y_pred and indexes must have the same number of "
                             f"elements, got {y.shape[0]}, {s.shape[0]} and {q.shape[0]}")
        if not xp.isdtype(q.dtype, "integral"):
            raise ValueError(f"indexes must be integer query ids, got {q.dtype} (on the Flax "
                             "face, mask= and sample weights are not taken by the retrieval "
                             "metrics: pass the ids as the third argument)")
        if self.validate:
            self._check_values(y, s, xp)
        # weight 1 (None: the writer's fill), 0 for the ignore_index rows
        w = None if self.ignore_index is None else xp.astype(y != self.ignore_index,
                                                              primary.dtype)
        return {"score": s, "target": y, "query": q}, w

    def _check_values(self, y, s, xp):
        # host reads: validate=True only
        if is_float(s, xp) and not bool(xp.all(xp.isfinite(s))):
            raise ValueError("Input y_pred contains NaN or infinity.")
        if self.metric != "ndcg":
            keep = y == y if self.ignore_index is None else y != self.ignore_index
            if not bool(xp.all(((y == 0) | (y == 1)) | ~keep)):
                raise ValueError("y_true must hold binary relevance (0 or 1) for "
                                 f"metric={self.metric!r}; graded relevance is for 'ndcg'.")

    def compute(self, state):
        """The mean over queries: a 0-d array on the state's device."""
        xp, device = _ns.get_namespace_and_device(state["buf_weight"])
        rk, empty = self._ranked(state, xp, device)
        values = (precision_values(rk, self.top_k, self.adaptive_k)
                  if self.metric == "precision" else _VALUES[self.metric](rk))
        value = _query_mean(values, rk, empty, self.empty_target_action)
        return xp.astype(nan_if_dropped(value, state, xp=xp), result_dtype(state, xp))

    def _ranked(self, state, xp, device):
        """The buffer's rows grouped by query and ranked (``_Ranked``), and the
        per-group mask of queries without a relevant row."""
        w, q = state["buf_weight"], state["buf_query"]
        acc, cdt, o = w.dtype, q.dtype, _ops(xp)
        n = int(w.shape[0])
        free = xp.astype(w == 0, cdt)
        # group the rows by (free, query id), arrival order kept inside a query
        by_q = xp.argsort(q, stable=True)
        order = o.take(by_q, xp.argsort(o.take(free, by_q), stable=True))
        q_s, f_s = o.take(q, order), o.take(free, order)
        head = xp.ones((1,), dtype=xp.bool, device=device)
        first = xp.concat([head, (q_s[1:] != q_s[:-1]) | (f_s[1:] != f_s[:-1])])
        seg = xp.cumulative_sum(xp.astype(first, cdt)) - 1
        y, s = o.take(state["buf_target"], order), o.take(state["buf_score"], order)
        # the free rows' group is the last: counting the occupied rows alone keeps
        # every group's offset and gives it n_items 0 (left out of the mean)
        counts = o.bincount(seg, length=n, weights=1 - f_s)
        ndcg = self.metric == "ndcg"
        # TorchMetrics: a row with a score <= 0 is never a retrieved relevant one (not
        # nDCG, nor the hit rate)
        as_is = ndcg or self.metric == "hit_rate"
        rel = y if as_is else xp.where(s > 0, y, xp.zeros_like(y))
        args = _ranked_pairs(rel, s, seg, counts, n, None, self.top_k, xp=xp, o=o,
                             device=device, maxf=acc, cdt=cdt, ideal=ndcg, tie_average=ndcg)
        rk = _Ranked(xp=xp, device=device, out_dtype=acc, maxf=acc, k=self.top_k, **args)
        if not as_is:  # the relevant rows of each query, whatever their score (with
            # rel = y the ranking's own count; the free rows' group's is never read)
            rk.n_rel = o.scatter_add(seg, xp.astype(y > 0, acc), length=n)
        empty = (rk.gain_sum == 0) if ndcg else (rk.n_rel == 0)
        return rk, empty


class _Retrieval(Metric):
    """A stateful retrieval metric: ``update(y_true, y_pred, indexes)``."""

    higher_is_better = True
    _metric = ""

    def __init__(self, capacity, *, top_k=None, empty_target_action="neg", ignore_index=None,
                 validate=False):
        super().__init__(RetrievalStream(self._metric, capacity, top_k=top_k,
                                         empty_target_action=empty_target_action,
                                         ignore_index=ignore_index, validate=validate))

    def update(self, y_true, y_pred, indexes=None):
        """Append one batch of rows: relevance, scores and query ids (no host read).

        Parameters
        ----------
        y_true : array
            Relevance of each row (0/1; graded for nDCG).
        y_pred : array
            Score of each row; higher ranks first.
        indexes : array of int
            Query id of each row (TorchMetrics' ``indexes``); required.
        """
        super().update(y_true, y_pred, indexes)

    def __call__(self, y_true, y_pred, indexes=None):
        """Append the batch; return the metric of this batch alone."""
        return super().__call__(y_true, y_pred, indexes)


_DOC = """Streaming {what} over queries, exact (TorchMetrics' ``{name}``).

    ``{name}(capacity, *, top_k=None,{extra} empty_target_action="neg",
    ignore_index=None, validate=False)``; ``update(y_true, y_pred, indexes)``
    with ``indexes`` the query id of each row, in any batch (TorchMetrics
    takes ``update(preds, target, indexes)``: the first two swapped).
    ``compute()`` is the mean over queries of {per_query}, equal to
    TorchMetrics' ``{name}`` on the same rows (tolerance of float32).  The rows
    are kept in a buffer of ``capacity`` (more raise
    :class:`~metrix.stream.BufferFullError`).  See
    :class:`metrix.stream.RetrievalStream` for the parameters and
    :mod:`metrix.stream._retrieval` for TorchMetrics' rules it follows.{note}
    """


def _doc(name, what, per_query, extra="", note=""):
    return _DOC.format(name=name, what=what, per_query=per_query, extra=extra, note=note)


class RetrievalNormalizedDCG(_Retrieval):
    __doc__ = _doc("RetrievalNormalizedDCG", "nDCG",
                   "DCG@k / ideal DCG@k (gains ``y_true``, graded; tied scores share "
                   "their mean gain)")
    _metric = "ndcg"


class RetrievalMAP(_Retrieval):
    __doc__ = _doc("RetrievalMAP", "mean average precision",
                   "AP@k (the mean of precision@rank over the relevant rows in the top "
                   "k, 0 when none)")
    _metric = "map"


class RetrievalMRR(_Retrieval):
    __doc__ = _doc("RetrievalMRR", "mean reciprocal rank",
                   "1 / rank of the first relevant row in the top k (0 when none)")
    _metric = "mrr"


class RetrievalPrecision(_Retrieval):
    __doc__ = _doc("RetrievalPrecision", "precision@k",
                   "relevant rows in the top k / k", extra=" adaptive_k=False,",
                   note="\n\n    ``top_k=None`` divides by the query's rows; "
                        "``adaptive_k=True`` by ``min(top_k, rows)``.")
    _metric = "precision"

    def __init__(self, capacity, *, top_k=None, adaptive_k=False, empty_target_action="neg",
                 ignore_index=None, validate=False):
        Metric.__init__(self, RetrievalStream(
            "precision", capacity, top_k=top_k, adaptive_k=adaptive_k,
            empty_target_action=empty_target_action, ignore_index=ignore_index,
            validate=validate))


class RetrievalRecall(_Retrieval):
    __doc__ = _doc("RetrievalRecall", "recall@k", "relevant rows in the top k / relevant rows")
    _metric = "recall"


class RetrievalHitRate(_Retrieval):
    __doc__ = _doc("RetrievalHitRate", "hit rate@k",
                   "1 when a relevant row is in the top k, else 0",
                   note="\n\n    Every row counts, whatever its score (TorchMetrics' "
                        "``retrieval_hit_rate``); the one-shot function is "
                        ":func:`metrix.hit_rate_at_k`.")
    _metric = "hit_rate"
