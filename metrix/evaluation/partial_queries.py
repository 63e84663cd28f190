r"""Mergeable host states of the per-query @k metrics, for (query, item) pairs that
arrive in chunks (host code, NumPy): the rows of one query may sit in any chunks.

A query's value at cut-off ``k`` depends only on its ``k`` best-ranked items and
on a few totals, so a chunk keeps, per query:

* its **top-k candidates**: ``(score, global row, relevance)`` of the ``k`` items
  ranked first by score, ties by the earlier global row (the order of
  :func:`metrix.precision_at_k` and the others on the concatenated rows);
* the **totals**: items, relevant items (``y_true > 0``), the sum of gains;
* for nDCG, its ``k`` largest gains (the ideal order).

Merging concatenates and keeps the top ``k`` again (one lexicographic sort), and
adds the totals; the finalisation applies the formulas of
:mod:`metrix.retrieval._queries` to each query and takes the mean with the
``empty_target_action`` rule.  Without ``k`` every item is a candidate (the
state holds the pairs themselves).

References
----------
.. [1] TorchMetrics, ``torchmetrics.retrieval`` (the definitions).
"""

from __future__ import annotations

import numpy as np

from .._core import namespace as _ns
from ..backends import ops
from ..retrieval import _queries as _q
from .partial import _host

__all__ = ["QUERY_METRICS", "PartialRetrieval"]

#: the per-query metrics :class:`PartialRetrieval` computes
QUERY_METRICS = ("precision_at_k", "recall_at_k", "hit_rate_at_k", "mrr", "map_at_k",
                 "ndcg_at_k")
_ACTIONS = ("neg", "pos", "skip", "error")


class PartialRetrieval:
    """Mergeable states of one @k metric over chunks of (query, item) pairs.

    Parameters
    ----------
    metric : str
        One of ``QUERY_METRICS``.
    k : int or None, default=None
        Cut-off; None ranks every item of a query (the state then holds every pair).
    adaptive_k : bool, default=False
        ``precision_at_k`` only: divide by ``min(k, items)``.
    empty_target_action : {"neg", "pos", "skip", "error"}, default="neg"
        As :func:`metrix.precision_at_k`.
    """

    def __init__(self, metric, *, k=None, adaptive_k=False, empty_target_action="neg"):
        if metric not in QUERY_METRICS:
            raise ValueError(f"Unknown metric {metric!r}; choose from {QUERY_METRICS}.")
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer))
                              or k < 1):
            raise ValueError(f"k must be a positive int or None, got {k!r}")
        if empty_target_action not in _ACTIONS:
            raise ValueError(f"empty_target_action must be one of {_ACTIONS}, got "
                             f"{empty_target_action!r}")
        if adaptive_k and metric != "precision_at_k":
            raise ValueError("adaptive_k applies to precision_at_k only")
        self.metric, self.k = metric, None if k is None else int(k)
        self.adaptive_k, self.action = bool(adaptive_k), empty_target_action

    def empty(self) -> dict:
        """The state of no pairs."""
        f, i = np.zeros(0), np.zeros(0, np.int64)
        return {"c_query": i, "c_score": f, "c_row": i, "c_gain": f,
                "t_query": i, "t_items": i, "t_rel": i, "t_gain": f,
                "i_query": i, "i_gain": f}

    def chunk(self, row_start, y_true, y_score, query_ids) -> dict:
        """The state of the pairs at global rows ``[row_start, row_start + n)``."""
        gain = _host(y_true).astype(np.float64).reshape(-1)
        score = _host(y_score).astype(np.float64).reshape(-1)
        query = _host(query_ids).reshape(-1)
        n = gain.shape[0]
        if score.shape[0] != n or query.shape[0] != n:
            raise ValueError(f"y_true, y_score and query_ids have {n}, {score.shape[0]} and "
                             f"{query.shape[0]} rows")
        if query.dtype.kind not in "iu":
            raise ValueError(f"query_ids must be integers, got dtype {query.dtype}")
        if not np.all(np.isfinite(score)):
            raise ValueError("y_score must be finite")
        if n == 0:
            return self.empty()
        query = query.astype(np.int64)
        state = {"c_query": query, "c_score": score,
                 "c_row": np.arange(row_start, row_start + n, dtype=np.int64), "c_gain": gain,
                 "i_query": query, "i_gain": gain}
        ids, inverse = np.unique(query, return_inverse=True)
        state.update(t_query=ids, t_items=np.bincount(inverse).astype(np.int64),
                     t_rel=np.bincount(inverse, weights=gain > 0).astype(np.int64),
                     t_gain=np.bincount(inverse, weights=gain))
        return self._trim(state)

    def merge(self, *states) -> dict:
        """The state of the union of the pairs of ``states`` (associative, commutative)."""
        if len(states) == 1 and isinstance(states[0], (list, tuple)):
            states = tuple(states[0])
        if not states:
            return self.empty()
        out = {key: np.concatenate([s[key] for s in states]) for key in self.empty()}
        ids, inverse = np.unique(out["t_query"], return_inverse=True)
        out.update(t_query=ids)
        for key in ("t_items", "t_rel"):
            out[key] = np.bincount(inverse, weights=out[key], minlength=ids.shape[0]) \
                .round().astype(np.int64)
        out["t_gain"] = np.bincount(inverse, weights=out["t_gain"], minlength=ids.shape[0])
        return self._trim(out)

    def _trim(self, state):
        """Each query's candidates in rank order (score descending, row ascending),
        the first ``k`` kept; its ideal gains descending, the first ``k`` kept."""
        order = np.lexsort((state["c_row"], -state["c_score"], state["c_query"]))
        keep = order[_first_k(state["c_query"][order], self.k)]
        for key in ("c_query", "c_score", "c_row", "c_gain"):
            state[key] = state[key][keep]
        if self.metric == "ndcg_at_k":
            order = np.lexsort((-state["i_gain"], state["i_query"]))
            keep = order[_first_k(state["i_query"][order], self.k)]
            state["i_query"], state["i_gain"] = state["i_query"][keep], state["i_gain"][keep]
        else:
            state["i_query"], state["i_gain"] = state["i_query"][:0], state["i_gain"][:0]
        return state

    def finalize(self, state) -> float:
        """The mean over queries of the metric (a Python float): the candidates and
        the ideal gains are ranked and scored by :mod:`metrix.retrieval._queries`."""
        ids = state["t_query"]
        nq = ids.shape[0]
        if nq == 0:
            return 0.0
        # host NumPy state (this module's merged candidates); the formulas are
        # retrieval/_queries.py's, run on NumPy, and the mean leaves as a float
        xp, device = _ns.get_namespace_and_device(ids)
        kw = dict(xp=xp, o=ops(xp), device=device, maxf=np.float64, cdt=np.int64)

        def ranked(gain, score, query):
            q = np.searchsorted(ids, query)
            return _q._ranked_pairs(gain, score, q, np.bincount(q, minlength=nq), nq, None,
                                    self.k, ideal=False, in_order=True, **kw)

        r = ranked(state["c_gain"], state["c_score"], state["c_query"])
        r.update(n_rel=state["t_rel"].astype(np.float64),
                 n_items=state["t_items"].astype(np.float64), gain_sum=state["t_gain"])
        if self.metric == "ndcg_at_k":
            r["idcg"] = _q._dcg(ranked(state["i_gain"], state["i_gain"], state["i_query"]), xp)
        rk = _q._Ranked(out_dtype=np.float64, k=self.k, **kw, **r)
        values = {"precision_at_k": lambda: _q.precision_values(rk, self.k, self.adaptive_k),
                  "recall_at_k": lambda: _q.recall_values(rk),
                  "hit_rate_at_k": lambda: _q.hit_rate_values(rk),
                  "mrr": lambda: _q.mrr_values(rk), "map_at_k": lambda: _q.map_values(rk),
                  "ndcg_at_k": lambda: _q.ndcg_values(rk)}[self.metric]()
        empty = rk.gain_sum == 0 if self.metric == "ndcg_at_k" else rk.n_rel == 0
        return float(_q._query_mean(values, rk, empty, self.action))


def _first_k(sorted_query, k):
    """Mask of the first ``k`` entries of each run of equal ``sorted_query``."""
    if k is None or sorted_query.shape[0] == 0:
        return np.ones(sorted_query.shape[0], bool)
    new = np.concatenate([[True], sorted_query[1:] != sorted_query[:-1]])
    start = np.maximum.accumulate(np.where(new, np.arange(sorted_query.shape[0]), 0))
    return np.arange(sorted_query.shape[0]) - start < k
