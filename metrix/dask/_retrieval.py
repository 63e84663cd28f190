"""The per-query @k metrics of Dask collections: the rows of one query may sit in any
partitions (host code).

Each partition becomes a :class:`metrix.evaluation.partial_queries.PartialRetrieval`
state (per query: its top-k candidates and totals), the states merge in a tree,
and the client finalizes once.  Ties rank by the global row order: a row's
position is ``(partition, row in the partition)``, which orders as the
concatenated rows without a pass to read the partitions' lengths.
"""

from __future__ import annotations

import dask

from ..evaluation.partial_queries import PartialRetrieval
from . import _graph

#: rows a partition may hold: its index times this is its first position
_PARTITION_STRIDE = 1 << 40


def _query_metric(metric, y_true, y_score, query_ids, *, k, adaptive_k=False,
                  empty_target_action="neg", split_every=None):
    if query_ids is None:
        raise TypeError(f"{metric} on Dask inputs needs query_ids (one per row)")
    pr = PartialRetrieval(metric, k=k, adaptive_k=adaptive_k,
                          empty_target_action=empty_target_action)
    pieces = _graph.array_pieces(y_true, query_ids, y_score, None)
    leaves = [dask.delayed(pr.chunk, pure=True)(i * _PARTITION_STRIDE, p[0], p[2], p[1])
              for i, p in enumerate(pieces)]
    root = _graph.tree_reduce(leaves, pr.merge, split_every) if leaves else \
        dask.delayed(pr.empty)()
    return pr.finalize(dask.compute(root)[0])


_DOC = """

    Parameters
    ----------
    y_true, y_score, query_ids : Dask arrays or Series of one frame
        One (query, item) pair per row: relevance (graded for nDCG), score,
        and the integer query id; a query's rows may sit in any partitions.
    k : int or None, default=None
        Cut-off; None ranks every item of a query (the states then hold every
        pair).
    empty_target_action : {"neg", "pos", "skip", "error"}, default="neg"
        Score of a query without a relevant item, as in the in-memory function.
    split_every : int, default=None
        Fan-in of the merge tree (default 8).

    Returns
    -------
    score : float
        The mean over queries, equal to the in-memory function on the
        concatenated rows (ties ranked by row order).
"""


def precision_at_k(y_true, y_score, *, query_ids, k=None, adaptive_k=False,
                   empty_target_action="neg", split_every=None):
    """:func:`metrix.precision_at_k` of Dask inputs (``adaptive_k``: divide by
    ``min(k, items)``)."""
    return _query_metric("precision_at_k", y_true, y_score, query_ids, k=k,
                         adaptive_k=adaptive_k, empty_target_action=empty_target_action,
                         split_every=split_every)


def recall_at_k(y_true, y_score, *, query_ids, k=None, empty_target_action="neg",
                split_every=None):
    """:func:`metrix.recall_at_k` of Dask inputs."""
    return _query_metric("recall_at_k", y_true, y_score, query_ids, k=k,
                         empty_target_action=empty_target_action, split_every=split_every)


def hit_rate_at_k(y_true, y_score, *, query_ids, k=None, empty_target_action="neg",
                  split_every=None):
    """:func:`metrix.hit_rate_at_k` of Dask inputs."""
    return _query_metric("hit_rate_at_k", y_true, y_score, query_ids, k=k,
                         empty_target_action=empty_target_action, split_every=split_every)


def mrr(y_true, y_score, *, query_ids, k=None, empty_target_action="neg", split_every=None):
    """:func:`metrix.mrr` of Dask inputs."""
    return _query_metric("mrr", y_true, y_score, query_ids, k=k,
                         empty_target_action=empty_target_action, split_every=split_every)


def map_at_k(y_true, y_score, *, query_ids, k=None, empty_target_action="neg",
             split_every=None):
    """:func:`metrix.map_at_k` of Dask inputs."""
    return _query_metric("map_at_k", y_true, y_score, query_ids, k=k,
                         empty_target_action=empty_target_action, split_every=split_every)


def ndcg_at_k(y_true, y_score, *, query_ids, k=None, empty_target_action="neg",
              split_every=None):
    """:func:`metrix.ndcg_at_k` of Dask inputs (graded gains; the ideal order from
    each query's ``k`` largest gains over all partitions)."""
    return _query_metric("ndcg_at_k", y_true, y_score, query_ids, k=k,
                         empty_target_action=empty_target_action, split_every=split_every)


for _f in (precision_at_k, recall_at_k, hit_rate_at_k, mrr, map_at_k, ndcg_at_k):
    _f.__doc__ = _f.__doc__.rstrip() + _DOC
