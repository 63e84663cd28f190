"""Per-query retrieval metrics: precision, recall, hit rate, MRR, MAP and nDCG @ k.

Inputs come in one of two forms:

* **dense**: ``y_true`` and ``y_score`` of shape ``(n_queries, n_items)``
  (a 1-D pair is one query).  Each row is ranked by ``ops(xp).topk``; only
  the top ``k`` items are kept.
* **ragged**: flat 1-D ``y_true``, ``y_score`` and ``query_ids`` (one entry
  per (query, item) pair).  The pairs are ranked within their query by one
  lexicographic sort on (query, -score) -- two stable argsorts -- and the
  rank of each pair is its position minus its query's offset (cumulative
  counts).  Every per-query sum is one ``ops(xp).scatter_add``.  When
  ``max_items`` is known the pairs are laid out as a padded matrix and
  ranked per row instead.  On host data with a cut-off ``k``,
  ``ops(xp).segment_top_candidates`` first keeps each query's top-k
  candidates (one histogram pass; the kept set is closed upwards, so their
  ranks are exact) and only those are ranked; per-query totals come from
  the nonzero pairs.

Ties: among equal scores the item that comes first (lower column in dense
form, earlier position in the flat arrays in ragged form) ranks higher.

Definitions follow TorchMetrics' ``Retrieval*`` metrics (per query, then the
mean over queries), with relevance ``y_true > 0``:

* ``precision_at_k``: relevant items in the top k / k (``k=None``: the
  query's number of items; ``adaptive_k``: ``min(k, n_items)``);
* ``recall_at_k``: relevant items in the top k / relevant items;
* ``hit_rate_at_k``: 1 if a relevant item is in the top k;
* ``mrr``: 1 / rank of the first relevant item if it is in the top k, else 0;
* ``map_at_k``: mean of precision@rank over the relevant items in the top k
  (0 when there is none);
* ``ndcg_at_k``: DCG of the top k, gains ``y_true`` (graded) and discount
  ``1 / log2(rank + 1)``, divided by the ideal DCG.

``empty_target_action`` decides what a query without relevant items (all
``y_true == 0``) contributes: ``"neg"`` (default) scores it 0, ``"pos"``
scores it 1, ``"skip"`` leaves it out of the mean, ``"error"`` raises
``ValueError`` (a host read: not traceable).  If every query is skipped the
result is 0.  Ragged queries with no items at all (ids in
``[0, n_queries)`` that never occur) are always left out.

Unlike TorchMetrics (1.x), items with a non-positive score are not treated
as irrelevant: only the ranking matters.
"""

from __future__ import annotations

import inspect
import math
import numbers
from typing import Any, Literal

from .._core import namespace as _ns
from .._core.arith import safe_divide
from .._core.edge import metric_edge
from .._core.validation import assert_all_finite
from ..backends import ops

__all__ = ["precision_at_k", "recall_at_k", "hit_rate_at_k", "mrr", "map_at_k",
           "ndcg_at_k"]

_ACTIONS = ("neg", "pos", "skip", "error")
# the padded (n_queries, max_items) layout is used while it stays this close to N
_PAD_FACTOR, _PAD_SLACK = 4, 1 << 20


class _Ranked:
    """The ranked (query, item) pairs in flat form, ready for segment sums.

    ``q``: query of each kept pair; ``rank``: 0-based rank in its query;
    ``gain``: relevance; ``hit``: relevance > 0 as float; ``cum_hits``:
    relevant items up to and including this one; ``in_k``: rank < k;
    ``n_rel``/``gain_sum``/``n_items``: per query (``n_rel`` and ``gain_sum``,
    when the ranking left them out, are summed on first use).  ``segsum`` sums a
    per-pair array into ``(n_queries,)``.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getattr__(self, name):
        # the per-query totals a ranking left out, summed when first read
        if name == "n_rel":
            value = self.segsum(self.hit)
        elif name == "gain_sum":
            value = self.segsum(self.gain)
        else:
            raise AttributeError(name)
        setattr(self, name, value)
        return value


def _as(x, dtype, xp):
    """``x`` in ``dtype``, without a copy when it already is."""
    return x if x.dtype == dtype else xp.astype(x, dtype)


def _rank(y_true, y_score, query_ids, n_queries, k, max_items, empty_target_action, validate,
          *, graded=False, ideal=False):
    """Check the parameters and the inputs; rank each query's items (:class:`_Ranked`)."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral)
                          or k < 1):
        raise ValueError(f"k must be a positive integer or None, got {k!r}.")
    if empty_target_action not in _ACTIONS:
        raise ValueError(f"empty_target_action must be one of {_ACTIONS}, got "
                         f"{empty_target_action!r}.")
    xp, device = _ns.get_namespace_and_device(y_true, y_score, query_ids)
    y_true = _ns.asarray(y_true, xp=xp, device=device)
    y_score = _ns.asarray(y_score, xp=xp, device=device)
    out_dtype = _ns.result_float_dtype(xp, device, y_score)
    maxf = _ns.max_float_dtype(xp, device)
    cdt = _ns.count_dtype(xp, device)
    if tuple(y_true.shape) != tuple(y_score.shape):
        raise ValueError("y_true and y_score must have the same shape, got "
                         f"{tuple(y_true.shape)} and {tuple(y_score.shape)}.")
    if validate:
        assert_all_finite(y_score, xp=xp, input_name="y_score")
        assert_all_finite(y_true, xp=xp, input_name="y_true")
        if not graded and not bool(xp.all((y_true == 0) | (y_true == 1))):
            raise ValueError("y_true must be binary (0/1 or bool) relevance labels; "
                             "use ndcg_at_k for graded relevance.")
    o = ops(xp)
    if query_ids is None:
        args = _dense(y_true, y_score, k, xp=xp, o=o, maxf=maxf, cdt=cdt, ideal=ideal)
    else:
        args = _ragged(y_true, y_score, query_ids, n_queries, k, xp=xp, o=o,
                       device=device, maxf=maxf, cdt=cdt, validate=validate, ideal=ideal,
                       max_items=max_items)
    return _Ranked(xp=xp, device=device, out_dtype=out_dtype, maxf=maxf, k=k, **args)


def _log2_discount(rank, xp):
    """DCG discount of 0-based ranks: ``1 / log2(rank + 2)``."""
    return 1.0 / xp.log2(rank + 2.0)


def _dcg(r, xp):
    """Per-query DCG@k of a ranking (a ``_dense``/``_ranked_pairs`` dict; its
    ``discount`` of the ranks when it holds one)."""
    disc = r.get("discount")
    disc = _log2_discount(r["rank"], xp) if disc is None else disc
    terms = xp.where(r["in_k"], r["gain"] * disc, xp.zeros_like(r["rank"]))
    return r["segsum"](terms)


def _dense(y_true, y_score, k, *, xp, o, maxf, cdt, ideal, n_items_per_query=None,
           ideal_score=None):
    if y_score.ndim == 1:
        y_true, y_score = (xp.reshape(a, (1, -1)) for a in (y_true, y_score))
    if y_score.ndim != 2:
        raise ValueError("Dense inputs must be 2-D (n_queries, n_items), got shape "
                         f"{tuple(y_score.shape)}; pass query_ids for flat inputs.")
    nq, n_items = (int(s) for s in y_score.shape)
    if nq == 0 or n_items == 0:
        raise ValueError("Found empty input: at least one query with one item is required.")
    kk = n_items if k is None else min(k, n_items)
    _, idx = o.topk(y_score, kk, axis=-1)
    gain_all = _as(y_true, maxf, xp)
    gain = xp.take_along_axis(gain_all, idx, axis=1)
    hit = xp.astype(gain > 0, maxf)
    dev = _ns.device_of(y_score)
    rank = xp.broadcast_to(xp.arange(kk, dtype=maxf, device=dev)[None, :], (nq, kk))
    out = dict(
        n_queries=nq, gain=gain, hit=hit, rank=rank, cum_hits=xp.cumulative_sum(hit, axis=1),
        in_k=xp.ones((nq, kk), dtype=xp.bool, device=dev),
        n_rel=xp.sum(xp.astype(gain_all > 0, maxf), axis=1),
        gain_sum=xp.sum(gain_all, axis=1),
        n_items=(xp.full((nq,), float(n_items), dtype=maxf, device=dev)
                 if n_items_per_query is None else n_items_per_query),
        segsum=lambda v: xp.sum(v, axis=1))
    if ideal:
        # the ideal DCG: the gains ranked by themselves (``ideal_score`` ranks
        # padding slots last; they are masked by the query's item count)
        best = o.topk(gain_all if ideal_score is None else ideal_score, kk, axis=-1)[0]
        if ideal_score is not None:
            best = xp.where(rank < xp.reshape(out["n_items"], (-1, 1)), best,
                            xp.zeros_like(best))
        out["idcg"] = xp.sum(best * _log2_discount(rank, xp), axis=1)
    return out


def _padded(y_true, y_score, q, counts, offsets, n_queries, width, k, *, xp, o, device,
            maxf, cdt, ideal):
    """Ragged pairs laid out as a ``(n_queries, width)`` matrix, then ranked per row.

    One stable argsort of the query ids groups the pairs (keeping their flat
    order inside a query, hence the tie rule); slot ``j`` of row ``i`` is
    pair ``offsets[i] + j``.  Padding slots get score ``-inf`` and relevance
    0, so they rank last and add nothing.
    """
    n = int(q.shape[0])
    order = xp.argsort(q, stable=True)
    cols = xp.reshape(xp.arange(width, dtype=cdt, device=device), (1, width))
    real = cols < xp.reshape(counts, (-1, 1))
    # padding slots read some real pair (clipped index), then are masked
    pos = xp.clip(xp.reshape(offsets, (-1, 1)) + cols, max=n - 1)
    src = o.take(order, xp.reshape(pos, (-1,)))
    score = _as(xp.reshape(o.take(y_score, src), (n_queries, width)), maxf, xp)
    gain = _as(xp.reshape(o.take(y_true, src), (n_queries, width)), maxf, xp)
    neg_inf = xp.asarray(-math.inf, dtype=maxf, device=device)
    score = xp.where(real, score, neg_inf)
    gain = xp.where(real, gain, xp.asarray(0.0, dtype=maxf, device=device))
    return _dense(gain, score, k, xp=xp, o=o, maxf=maxf, cdt=cdt, ideal=ideal,
                  n_items_per_query=xp.astype(counts, maxf),
                  ideal_score=xp.where(real, gain, neg_inf) if ideal else None)


def _ragged(y_true, y_score, query_ids, n_queries, k, *, xp, o, device, maxf, cdt,
            validate, ideal, max_items=None):
    q = _ns.asarray(query_ids, xp=xp, device=device)
    if y_score.ndim != 1 or q.ndim != 1 or int(q.shape[0]) != int(y_score.shape[0]):
        raise ValueError("With query_ids, y_true, y_score and query_ids must be 1-D of "
                         f"one length, got {tuple(y_true.shape)}, {tuple(y_score.shape)} "
                         f"and {tuple(q.shape)}.")
    n = int(q.shape[0])
    if n == 0:
        raise ValueError("Found empty input: at least one query with one item is required.")
    if not xp.isdtype(q.dtype, "integral"):
        raise ValueError(f"query_ids must be integers, got {q.dtype}.")
    encoded = n_queries is None
    if encoded:
        # data-dependent number of queries: not traceable (pass n_queries under jit)
        uniq, q = o.unique_inverse(q)
        n_queries = int(uniq.shape[0])
    else:
        n_queries = int(n_queries)
        if validate and (int(xp.min(q)) < 0 or int(xp.max(q)) >= n_queries):
            raise ValueError(f"query_ids must lie in [0, n_queries={n_queries}) when "
                             "n_queries is given.")
    q = _as(q, cdt, xp)
    counts = o.bincount(q, length=n_queries)
    if max_items is None and encoded:
        max_items = int(xp.max(counts))  # host read, as the encoding already was
    if max_items is not None:
        max_items = int(max_items)
        if max_items < 1:
            raise ValueError(f"max_items must be a positive integer, got {max_items}.")
        if validate and int(xp.max(counts)) > max_items:
            raise ValueError(f"A query has {int(xp.max(counts))} items, more than "
                             f"max_items={max_items}.")
    kw = dict(xp=xp, o=o, device=device, maxf=maxf, cdt=cdt)
    cand = None if k is None else o.segment_top_candidates(y_score, q, n_segments=n_queries,
                                                           k=k)
    if cand is None:
        return _ranked_pairs(y_true, y_score, q, counts, n_queries, max_items, k,
                             ideal=ideal, **kw)
    # host data (the op says so): rank only each query's top-k candidates; the
    # per-query totals count the nonzero pairs alone (boolean masks, host sizes)
    out = _ranked_subset(y_true, y_score, q, cand, n_queries, k, **kw)
    n_rel = xp.astype(o.bincount(q[y_true > 0], length=n_queries), maxf)
    out.update(n_rel=n_rel, n_items=xp.astype(counts, maxf), gain_sum=n_rel)
    if ideal:
        nonzero = y_true != 0
        out["gain_sum"] = o.scatter_add(q[nonzero], _as(y_true[nonzero], maxf, xp),
                                        length=n_queries)
        best = o.segment_top_candidates(y_true, q, n_segments=n_queries, k=k,
                                        skip_zeros=True)
        r = (_ranked_pairs(y_true, y_true, q, counts, n_queries, max_items, k,
                           ideal=False, **kw) if best is None
             else _ranked_subset(y_true, y_true, q, best, n_queries, k, **kw))
        out["idcg"] = _dcg(r, xp)
    return out


def _ranked_subset(y_true, y_score, q, idx, n_queries, k, *, xp, o, **kw):
    """The ranking of the pairs at ``idx`` (host data: their widest query is read)."""
    sub_q = o.take(q, idx)
    counts = o.bincount(sub_q, length=n_queries)
    return _ranked_pairs(o.take(y_true, idx), o.take(y_score, idx), sub_q, counts,
                         n_queries, int(xp.max(counts)), k, ideal=False, xp=xp, o=o, **kw)


def _ranked_pairs(y_true, y_score, q, counts, n_queries, width, k, *, xp, o, device, maxf,
                  cdt, ideal, tie_average=False, in_order=False):
    """Rank encoded ragged pairs: the padded layout when ``width`` is known and the
    padding stays small, else the lexsort (``in_order``: the pairs already sit in
    (query, rank) order, as the merged host states of
    :mod:`metrix.evaluation.partial_queries` keep them; no sort).

    ``tie_average`` (lexsort path): also ``dcg_gain``, each pair's gain replaced
    by the mean gain of its run of tied scores in its query, so that the DCG
    averages over the orders of tied items (scikit-learn's and TorchMetrics'
    rule for nDCG).
    """
    n = int(q.shape[0])
    offsets = xp.cumulative_sum(counts) - counts
    if width is not None and n_queries * width <= _PAD_FACTOR * n + _PAD_SLACK:
        return _padded(y_true, y_score, q, counts, offsets, n_queries, width, k,
                       xp=xp, o=o, device=device, maxf=maxf, cdt=cdt, ideal=ideal)
    if in_order:
        order, q_s = xp.arange(n, dtype=cdt, device=device), q
    else:  # rank pairs by (query, -score, position): two stable argsorts
        by_score = xp.argsort(y_score, descending=True, stable=True)
        q1 = o.take(q, by_score)
        by_query = xp.argsort(q1, stable=True)
        order = o.take(by_score, by_query)
        q_s = o.take(q1, by_query)
    start = o.take(offsets, q_s)
    positions = xp.arange(n, dtype=cdt, device=device)
    rank = xp.astype(positions - start, maxf)
    gain_all = _as(y_true, maxf, xp)
    gain = o.take(gain_all, order)
    hit = xp.astype(gain > 0, maxf)
    cs = xp.cumulative_sum(hit)
    cs0 = xp.concat([xp.zeros((1,), dtype=maxf, device=device), cs])
    cum_hits = cs - o.take(cs0, start)
    in_k = (rank >= 0) if k is None else (rank < float(k))

    def segsum(v):
        return o.scatter_add(q_s, v, length=n_queries)

    # n_rel and gain_sum: summed when read (_Ranked)
    out = dict(n_queries=n_queries, gain=gain, hit=hit, rank=rank, cum_hits=cum_hits,
               in_k=in_k, n_items=xp.astype(counts, maxf), segsum=segsum)
    if tie_average:
        s_s = o.take(y_score, order)
        head = xp.ones((1,), dtype=xp.bool, device=device)
        first = xp.concat([head, (q_s[1:] != q_s[:-1]) | (s_s[1:] != s_s[:-1])])
        run = xp.cumulative_sum(xp.astype(first, cdt)) - 1
        run_gain = o.scatter_add(run, gain, length=n)
        run_size = o.scatter_add(run, xp.ones_like(gain), length=n)
        # runs that occur have a size >= 1 (the others, 0 / 0, are never read)
        out["dcg_gain"] = o.take(o.ieee_divide(run_gain, run_size), run)
    if ideal:
        # the ideal ranking has the same ranks: one discount for both DCGs
        out["discount"] = _log2_discount(rank, xp)
        # the gains ranked by themselves share the segments and their offsets
        by_gain = xp.argsort(gain_all, descending=True, stable=True)
        by_query2 = xp.argsort(o.take(q, by_gain), stable=True)
        best = o.take(o.take(gain_all, by_gain), by_query2)
        out["idcg"] = _dcg(dict(out, gain=best), xp)
    return out


def _query_mean(values, rk, empty, empty_target_action):
    """Mean over queries of ``values`` after the empty-target rule (an array in
    ``rk.out_dtype``).  Queries with no item (``rk.n_items == 0``) are left out;
    ``"error"`` reads on the host whether a query is empty (documented)."""
    xp = rk.xp
    present = rk.n_items > 0
    if empty_target_action == "error":
        if bool(xp.any(empty & present)):  # host read (documented)
            raise ValueError("empty_target_action='error' and a query has no relevant "
                             "item (all y_true == 0).")
        include = present
    elif empty_target_action == "skip":
        include = present & ~empty
    else:
        fill = 1.0 if empty_target_action == "pos" else 0.0
        fill = xp.asarray(fill, dtype=values.dtype, device=rk.device)
        values = xp.where(empty, fill, values)
        include = present
    inc = xp.astype(include, values.dtype)
    mean = safe_divide(xp.sum(values * inc), xp.sum(inc), zero_value=0.0, xp=xp)
    return xp.astype(mean, rk.out_dtype)


def _mean_over_queries(values, rk, empty, empty_target_action):
    """:func:`_query_mean` in the user-facing form."""
    return _ns.to_output(_query_mean(values, rk, empty, empty_target_action), rk.xp)


def _query_score(values_of, y_true, y_score, query_ids, n_queries, k, max_items,
                 empty_target_action, validate):
    """The mean over queries of ``values_of(rk)`` of the ranked queries ``rk``
    (a query is empty without a relevant item)."""
    rk = _rank(y_true, y_score, query_ids, n_queries, k, max_items, empty_target_action,
               validate)
    return _mean_over_queries(values_of(rk), rk, rk.n_rel == 0, empty_target_action)


def _hits_at_k(rk):
    xp = rk.xp
    return rk.segsum(xp.where(rk.in_k, rk.hit, xp.zeros_like(rk.hit)))


# -- per-query values (shared with the streaming classes of metrix.stream._retrieval) --

def precision_values(rk, k, adaptive_k):
    """Per-query precision@k: hits in the top k / k (``k=None``: / items;
    ``adaptive_k``: / ``min(k, items)``)."""
    xp = rk.xp
    if k is None:
        denom = rk.n_items
    elif adaptive_k:
        denom = xp.minimum(rk.n_items, xp.asarray(float(k), dtype=rk.maxf, device=rk.device))
    else:
        denom = xp.full_like(rk.n_items, float(k))
    return safe_divide(_hits_at_k(rk), denom, zero_value=0.0, xp=xp)


def recall_values(rk):
    """Per-query recall@k: hits in the top k / relevant items."""
    return safe_divide(_hits_at_k(rk), rk.n_rel, zero_value=0.0, xp=rk.xp)


def hit_rate_values(rk):
    """Per-query hit rate@k: 1 when a relevant item is in the top k, else 0."""
    return rk.xp.astype(_hits_at_k(rk) > 0, rk.maxf)


def mrr_values(rk):
    """Per-query reciprocal rank of the first relevant item in the top k (else 0)."""
    xp = rk.xp
    first = rk.in_k & (rk.hit > 0) & (rk.cum_hits == 1)
    return rk.segsum(xp.where(first, 1.0 / (rk.rank + 1.0), xp.zeros_like(rk.rank)))


def map_values(rk):
    """Per-query AP@k: mean of precision@rank over the relevant items in the top k."""
    xp = rk.xp
    take = rk.in_k & (rk.hit > 0)
    prec = xp.where(take, rk.cum_hits / (rk.rank + 1.0), xp.zeros_like(rk.rank))
    return safe_divide(rk.segsum(prec), _hits_at_k(rk), zero_value=0.0, xp=xp)


def ndcg_values(rk):
    """Per-query nDCG@k (the tie-averaged DCG where the ranking made ``dcg_gain``)."""
    r = rk.__dict__
    dcg = _dcg(dict(r, gain=r["dcg_gain"]) if "dcg_gain" in r else r, rk.xp)
    return safe_divide(dcg, rk.idcg, zero_value=0.0, xp=rk.xp)


_PARAMS = """
    Parameters
    ----------
    y_true : array of shape (n_queries, n_items) or (n_pairs,)
        Relevance of each item (binary; graded for ``ndcg_at_k``).
    y_score : array, same shape as ``y_true``
        Retrieval scores; higher ranks first.  Must be finite.
    k : int or None, default=None
        Cut-off (a static Python int); ``None`` ranks all items of a query.
    query_ids : array of shape (n_pairs,) of int, default=None
        Ragged form: the query of each flat (query, item) pair.  Any integers;
        they are encoded (a data-dependent shape) unless ``n_queries`` is given.
    n_queries : int, default=None
        With ``query_ids`` in ``[0, n_queries)``: skip the encoding, so the call
        traces under jit.
    max_items : int, default=None
        Ragged form: an upper bound on the items of one query.  When it is
        known (given, or read on the host when ``n_queries`` is not given),
        the pairs are laid out as a padded ``(n_queries, max_items)`` matrix
        and ranked per row (one integer sort instead of a lexsort); otherwise,
        or when the padding would exceed 4x the pairs, the lexsort path runs.
    empty_target_action : {"neg", "pos", "skip", "error"}, default="neg"
        Score of a query with no relevant item: 0, 1, left out of the mean, or
        raise ``ValueError``.
    validate : bool, default=True
        Check values (finite scores, binary relevance, id range).  ``False``
        reads nothing from an accelerator or a traced array (except
        ``empty_target_action="error"``); CPU arrays may still take the
        host-side top-k candidate filter, where a read costs no sync.

    Returns
    -------
    score : 0-d array
        Mean over queries, in the inputs' namespace and on their device.

    References
    ----------
    .. [1] TorchMetrics, ``torchmetrics.retrieval``.
"""


_ADAPTIVE_K = """\
    adaptive_k : bool, default=False
        Divide by :math:`\\min(k, n_{items})` instead of ``k``, so a query with
        fewer than ``k`` items can score 1.
"""


def _with_params_doc(f):
    """Append the shared Parameters / Returns / References (``adaptive_k``
    too where ``f`` has it) to ``f``'s docstring."""
    params = _PARAMS
    if "adaptive_k" in inspect.signature(f).parameters:
        params = params.replace("    empty_target_action :",
                                _ADAPTIVE_K + "    empty_target_action :")
    f.__doc__ = f.__doc__.rstrip() + "\n" + params
    return f


@metric_edge
@_with_params_doc
def precision_at_k(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
                   n_queries: int | None = None, max_items: int | None = None,
                   adaptive_k: bool = False,
                   empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
                   validate: bool = True) -> Any:
    """Mean over queries of the fraction of relevant items among the top ``k``.

    :math:`P@k = |\\mathrm{rel} \\cap \\mathrm{top}_k| / k`; with ``adaptive_k``
    the denominator is :math:`\\min(k, n_{items})` (``adaptive_k`` is a keyword
    of this function, as in TorchMetrics).
    """
    return _query_score(lambda rk: precision_values(rk, k, adaptive_k), y_true, y_score,
                        query_ids, n_queries, k, max_items, empty_target_action, validate)


@metric_edge
@_with_params_doc
def recall_at_k(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
                n_queries: int | None = None, max_items: int | None = None,
                empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
                validate: bool = True) -> Any:
    """Mean over queries of the fraction of relevant items found in the top ``k``.

    :math:`R@k = |\\mathrm{rel} \\cap \\mathrm{top}_k| / |\\mathrm{rel}|`.
    """
    return _query_score(recall_values, y_true, y_score, query_ids, n_queries, k, max_items,
                        empty_target_action, validate)


@metric_edge
@_with_params_doc
def hit_rate_at_k(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
                  n_queries: int | None = None, max_items: int | None = None,
                  empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
                  validate: bool = True) -> Any:
    """Mean over queries of 1 when a relevant item is among the top ``k``, else 0."""
    return _query_score(hit_rate_values, y_true, y_score, query_ids, n_queries, k, max_items,
                        empty_target_action, validate)


@metric_edge
@_with_params_doc
def mrr(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
        n_queries: int | None = None, max_items: int | None = None,
        empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
        validate: bool = True) -> Any:
    """Mean reciprocal rank: mean over queries of ``1 / rank`` of the first relevant item.

    The reciprocal rank is 0 when no relevant item is among the top ``k``.
    """
    return _query_score(mrr_values, y_true, y_score, query_ids, n_queries, k, max_items,
                        empty_target_action, validate)


@metric_edge
@_with_params_doc
def map_at_k(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
             n_queries: int | None = None, max_items: int | None = None,
             empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
             validate: bool = True) -> Any:
    """Mean average precision: mean over queries of AP@k.

    :math:`AP@k = \\frac{1}{|\\mathrm{rel} \\cap \\mathrm{top}_k|}
    \\sum_{r \\le k,\\ \\mathrm{rel}(r)} P@r`, 0 when no relevant item is in the
    top k (TorchMetrics' ``retrieval_average_precision``).
    """
    return _query_score(map_values, y_true, y_score, query_ids, n_queries, k, max_items,
                        empty_target_action, validate)


@metric_edge
@_with_params_doc
def ndcg_at_k(y_true: Any, y_score: Any, *, k: int | None = None, query_ids: Any = None,
              n_queries: int | None = None, max_items: int | None = None,
              empty_target_action: Literal["neg", "pos", "skip", "error"] = "neg",
              validate: bool = True) -> Any:
    """Mean over queries of the normalised discounted cumulative gain at ``k``.

    :math:`DCG@k = \\sum_{r=1}^{k} g_r / \\log_2(r + 1)` with gains
    :math:`g = y_{true}` in ranked order; nDCG divides by the DCG of the ideal
    order (0 when the ideal DCG is 0).  A query is "empty" when its gains sum
    to 0.  Negative gains are accepted (scikit-learn's ``ndcg_score``, and
    ``metrix.ndcg_score``, reject them).  Ties in ``y_score`` are broken by
    position (TorchMetrics averages over tied scores instead; the two agree
    on distinct scores).
    """
    rk = _rank(y_true, y_score, query_ids, n_queries, k, max_items, empty_target_action,
               validate, graded=True, ideal=True)
    values = ndcg_values(rk)
    return _mean_over_queries(values, rk, rk.gain_sum == 0, empty_target_action)
