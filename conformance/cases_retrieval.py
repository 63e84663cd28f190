"""Conformance rows: the retrieval family (the per-query @k metrics, top-k label metrics).

The @k metrics follow TorchMetrics' ``Retrieval*`` definitions (per query, then
the mean over queries, ``empty_target_action`` as there).  Their reference is a
plain NumPy float64 version of those definitions (``numpy_reference``), since
TorchMetrics computes in float32; ``test_retrieval_reference.py`` checks it
against TorchMetrics' metrics on every row here (``torchmetrics_reference``).
scikit-learn's ``ndcg_score``, ``top_k_accuracy_score``,
``precision_recall_fscore_support`` and ``classification_report`` are the
reference where they define the same number.

Ties: metrix ranks the earlier item first (lower column, earlier flat
position); so does the NumPy reference (a stable sort).  TorchMetrics leaves
the order of tied scores to ``torch.topk``, so its reference first replaces
each query's scores by that strict order (``_strict``).  scikit-learn's
``ndcg_score`` averages ties and ``top_k_accuracy_score`` ranks the later
column first: their rows use scores without ties.
"""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261207)

# dense (n_queries, n_items)
NQ, NI = 10, 8
REL = (rng.random((NQ, NI)) < 0.3).astype(np.int64)
REL[0] = 0                                        # a query without a relevant item
REL[1] = 1                                        # every item relevant
GRADED = rng.integers(0, 4, (NQ, NI))
GRADED[0] = 0
SCORE = rng.random((NQ, NI))                      # no ties
TIED = np.round(SCORE * 3) / 3                    # ties in every row

# ragged: flat pairs, queries of 5, 1, 9, 3, 0 (id 4 never occurs), 7 and 2 items,
# shuffled so that a query's pairs are not contiguous
LENGTHS = [5, 1, 9, 3, 0, 7, 2]
QID = rng.permutation(np.repeat(np.arange(len(LENGTHS)), LENGTHS))
R_REL = (rng.random(QID.size) < 0.35).astype(np.int64)
R_REL[QID == 1] = 1                               # the one-item query is a hit
R_REL[QID == 3] = 0                               # a query without a relevant item
R_GRADED = np.where(R_REL > 0, rng.integers(1, 4, QID.size), 0)
R_SCORE = rng.random(QID.size)
R_TIED = np.round(R_SCORE * 2) / 2
N_QUERIES = len(LENGTHS) + 1                      # the last id never occurs either

# multilabel top-k (n_samples, n_classes)
N, C = 60, 6
ML = (rng.random((N, C)) < 0.35).astype(np.int64)
ML[:, 5] = 0                                      # a label that is never relevant
ML_SCORE = rng.random((N, C))
ML_TIED = np.round(ML_SCORE * 4) / 4
W = rng.random(N)
ONEHOT = (rng.integers(0, NI, NQ)[:, None] == np.arange(NI)).astype(np.int64)
RANKED = np.array([[2, 0, 5], [1, -1, -1], [4, 3, -1], [0, 1, 2]])

_TORCHMETRICS = {
    "precision_at_k": "RetrievalPrecision",
    "recall_at_k": "RetrievalRecall",
    "hit_rate_at_k": "RetrievalHitRate",
    "mrr": "RetrievalMRR",
    "map_at_k": "RetrievalMAP",
    "ndcg_at_k": "RetrievalNormalizedDCG",
}
_ACTIONS = ("neg", "pos", "skip", "error")


def _strict(s):
    """Scores without ties that rank as metrix does: the earlier item first."""
    order = np.argsort(-s, kind="stable")
    out = np.empty(s.shape, dtype=np.float64)
    out[order] = np.arange(s.size, 0, -1)
    return out


def _queries(y_true, y_score, query_ids, n_queries):
    if query_ids is None:
        return list(zip(np.atleast_2d(y_true), np.atleast_2d(y_score)))
    n_queries = int(query_ids.max()) + 1 if n_queries is None else n_queries
    return [(y_true[query_ids == q], y_score[query_ids == q]) for q in range(n_queries)
            if (query_ids == q).any()]              # queries without items are left out


def _one_query(name, t, s, k, adaptive_k=False):
    """The metric of one query with a relevant item, in float64."""
    n = t.size
    kk = n if k is None else min(k, n)
    top = t[np.argsort(-s, kind="stable")][:kk].astype(np.float64)  # relevance, rank order
    hits = top > 0
    if name == "precision_at_k":
        return hits.sum() / (n if k is None else kk if adaptive_k else k)
    if name == "recall_at_k":
        return hits.sum() / (t > 0).sum()
    if name == "hit_rate_at_k":
        return float(hits.any())
    if name == "mrr":
        return 1.0 / (np.argmax(hits) + 1) if hits.any() else 0.0
    if name == "map_at_k":
        ranks = np.flatnonzero(hits) + 1.0
        return np.mean(np.arange(1, ranks.size + 1) / ranks) if ranks.size else 0.0
    discount = 1.0 / np.log2(np.arange(kk) + 2.0)
    ideal = np.sort(t)[::-1][:kk] @ discount
    return (top @ discount) / ideal


def numpy_reference(name):
    """The metric in float64 NumPy: per query, then the mean over queries."""

    def reference(y_true, y_score, *, k=None, query_ids=None, n_queries=None, max_items=None,
                  empty_target_action="neg", adaptive_k=False):
        if k is not None and k < 1:
            raise ValueError("k must be a positive integer")
        if empty_target_action not in _ACTIONS:
            raise ValueError(f"empty_target_action must be one of {_ACTIONS}")
        values = []
        for t, s in _queries(y_true, y_score, query_ids, n_queries):
            if name != "ndcg_at_k" and not np.isin(t, (0, 1)).all():
                raise ValueError("y_true must be binary")
            if not (t > 0).any():
                if empty_target_action == "error":
                    raise ValueError("a query has no relevant item")
                if empty_target_action != "skip":
                    values.append(1.0 if empty_target_action == "pos" else 0.0)
                continue
            values.append(_one_query(name, t, s, k, adaptive_k))
        return np.float64(np.mean(values)) if values else np.float64(0.0)

    reference.__name__ = f"numpy_{name}"
    reference.metric = name  # test_retrieval_reference.py finds these rows by it
    return reference


def torchmetrics_reference(name):
    """TorchMetrics' ``Retrieval*`` metric (float32 inside) on the flat pairs.

    Its ``indexes`` are the queries (the rows in dense form); each query's
    scores are first made strict in metrix's tie order.
    """

    def reference(y_true, y_score, *, k=None, query_ids=None, n_queries=None, max_items=None,
                  empty_target_action="neg", **kw):
        import torch
        import torchmetrics.retrieval

        if query_ids is None:
            y_true, y_score = np.atleast_2d(y_true), np.atleast_2d(y_score)
            query_ids = np.repeat(np.arange(y_true.shape[0]), y_true.shape[1])
            y_true, y_score = y_true.ravel(), y_score.ravel()
        strict = np.empty(y_score.shape)
        for q in np.unique(query_ids):
            strict[query_ids == q] = _strict(y_score[query_ids == q])
        metric = getattr(torchmetrics.retrieval, _TORCHMETRICS[name])(
            top_k=k, empty_target_action=empty_target_action, **kw)
        metric.update(torch.asarray(strict), torch.asarray(y_true),
                      indexes=torch.asarray(query_ids))
        return np.float64(metric.compute())

    reference.__name__ = f"torchmetrics_{name}"
    return reference


def _topk_indicator(y_score, k):
    """The top-k classes of each row, ties by lower column (metrix's rule)."""
    if k > y_score.shape[1]:
        raise ValueError("the top-k set of fewer than k classes is undefined")
    top = np.argsort(-y_score, axis=1, kind="stable")[:, :k]
    out = np.zeros(y_score.shape, dtype=np.int64)
    np.put_along_axis(out, top, 1, axis=1)
    return out


def prf_at_k_reference(y_true, y_score, *, k, zero_division=0, **kw):
    return skm.precision_recall_fscore_support(y_true, _topk_indicator(y_score, k),
                                               zero_division=zero_division, **kw)


def report_at_k_reference(y_true, y_score, *, k, zero_division=0, **kw):
    return skm.classification_report(y_true, _topk_indicator(y_score, k),
                                      zero_division=zero_division, **kw)


def ranked_to_scores_reference(ranked_labels, n_classes):
    """Label at rank r of a list of length L scores L - r; unlisted labels 0."""
    out = np.zeros((ranked_labels.shape[0], n_classes))
    width = ranked_labels.shape[1]
    for i, row in enumerate(ranked_labels):
        listed = row[row >= 0]
        if listed.max(initial=-1) >= n_classes or np.unique(listed).size < listed.size:
            raise ValueError("labels out of range or repeated")
        out[i, listed] = width - np.flatnonzero(row >= 0)
    return out


CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


# -- the per-query @k metrics --------------------------------------------------------
for name in _TORCHMETRICS:
    ref = numpy_reference(name)
    rel, r_rel = (GRADED, R_GRADED) if name == "ndcg_at_k" else (REL, R_REL)
    add(name, ref, (rel, SCORE), {"k": 3}, id="dense-k3")
    add(name, ref, (rel, TIED), {"k": 3}, id="dense-ties-k3")
    if name in ("precision_at_k", "map_at_k", "ndcg_at_k"):   # k=None: every item
        add(name, ref, (rel, SCORE), id="dense-all-items")
    add(name, ref, (r_rel, R_TIED), {"k": 3, "query_ids": QID}, id="ragged-ties-k3")
    add(name, ref, (r_rel, R_SCORE), {"k": 4, "query_ids": QID, "n_queries": N_QUERIES},
        id="ragged-n_queries")
    add(name, ref, (r_rel, R_TIED), {"k": 2, "query_ids": QID, "max_items": max(LENGTHS)},
        id="ragged-padded")
    add(name, ref, (rel, SCORE), {"k": 0}, id="k-error")

add("precision_at_k", numpy_reference("precision_at_k"), (REL, TIED),
    {"k": NI + 2, "adaptive_k": True}, id="adaptive-k-beyond-items")
add("precision_at_k", numpy_reference("precision_at_k"), (R_REL, R_SCORE),
    {"k": 4, "query_ids": QID, "adaptive_k": True}, id="ragged-adaptive-k")
add("precision_at_k", numpy_reference("precision_at_k"), (REL, SCORE),
    {"k": NI + 2}, id="k-beyond-items")
add("precision_at_k", numpy_reference("precision_at_k"), (GRADED, SCORE), {"k": 3},
    id="graded-error")
add("recall_at_k", numpy_reference("recall_at_k"), (REL, TIED),
    {"k": 2, "empty_target_action": "skip"}, id="skip")
add("recall_at_k", numpy_reference("recall_at_k"), (REL, TIED),
    {"k": 2, "empty_target_action": "error"}, id="empty-target-error")
add("recall_at_k", numpy_reference("recall_at_k"), (REL[1:], TIED[1:]),
    {"k": 2, "empty_target_action": "error"}, id="no-empty-target")
add("hit_rate_at_k", numpy_reference("hit_rate_at_k"), (R_REL, R_SCORE),
    {"k": 1, "query_ids": QID, "empty_target_action": "pos"}, id="ragged-pos")
add("hit_rate_at_k", numpy_reference("hit_rate_at_k"), (REL, SCORE),
    {"empty_target_action": "bogus"}, id="action-error")
add("mrr", numpy_reference("mrr"), (REL[2], TIED[2]), {"k": 5}, id="one-query-1d")
add("map_at_k", numpy_reference("map_at_k"), (R_REL, R_TIED),
    {"query_ids": QID, "empty_target_action": "skip"}, id="ragged-skip")
add("ndcg_at_k", numpy_reference("ndcg_at_k"), (R_GRADED, R_SCORE),
    {"k": 3, "query_ids": QID, "empty_target_action": "pos"}, id="ragged-graded-pos")
# scikit-learn defines the same numbers where scores have no ties
add("ndcg_at_k", lambda t, s, k: skm.ndcg_score(t, s, k=k), (GRADED, SCORE), {"k": 3},
    id="sklearn-ndcg_score")
add("hit_rate_at_k", lambda t, s, k: skm.top_k_accuracy_score(t.argmax(1), s, k=k,
                                                              labels=np.arange(NI)),
    (ONEHOT, SCORE), {"k": 2}, id="sklearn-top_k_accuracy")

# -- top-k label metrics -------------------------------------------------------------
for avg in (None, "micro", "macro", "weighted", "samples"):
    add("precision_recall_fscore_at_k", prf_at_k_reference, (ML, ML_TIED),
        {"k": 2, "average": avg}, id=f"ties-{avg}")
add("precision_recall_fscore_at_k", prf_at_k_reference, (ML, ML_SCORE),
    {"k": 3, "average": "macro", "sample_weight": W, "beta": 0.5}, id="weighted-beta")
add("precision_recall_fscore_at_k", prf_at_k_reference, (ML, ML_SCORE),
    {"k": 1, "average": "macro", "labels": [5, 0, 2], "zero_division": "warn"},
    id="labels-warn")
add("precision_recall_fscore_at_k", prf_at_k_reference, (ML, ML_SCORE), {"k": C + 1},
    id="k-beyond-classes-error")
add("classification_report_at_k", report_at_k_reference, (ML, ML_TIED),
    {"k": 2, "output_dict": True}, id="dict")
add("classification_report_at_k", report_at_k_reference, (ML, ML_SCORE),
    {"k": 2, "target_names": list("abcdef"), "digits": 3}, id="text")
add("ranked_to_scores", ranked_to_scores_reference, (RANKED, 6), id="padded")
add("ranked_to_scores", ranked_to_scores_reference, (np.array([[1, 1, 0]]), 3),
    id="repeated-error")
add("ranked_to_scores", ranked_to_scores_reference, (np.array([[1, 7, 0]]), 3),
    id="out-of-range-error")
