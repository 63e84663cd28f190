"""PartialRetrieval: per-query @k states over chunks equal the in-memory functions on the
concatenated pairs, a query's rows spread over chunks and ties ranked by row."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import metrix
from metrix.evaluation.partial_queries import QUERY_METRICS, PartialRetrieval

RNG = np.random.default_rng(0)
N = 3000
QUERY = RNG.integers(0, 200, N) * 7 - 50      # sparse and negative ids, spread over chunks
BINARY = RNG.integers(0, 2, N) * (RNG.random(N) < 0.5)  # some queries without a relevant item
GRADED = RNG.integers(0, 4, N).astype(float)
SCORE = np.round(RNG.random(N), 1)             # many ties
CUTS = [0, 500, 500, 1700, 2999, N]             # an empty chunk, a one-row chunk


def _cases():
    for m in QUERY_METRICS:
        for k in (None, 1, 3, 10):
            for action in ("neg", "pos", "skip"):
                yield m, k, action, False
        if m == "precision_at_k":
            yield m, 3, "neg", True


@pytest.mark.parametrize("metric,k,action,adaptive", list(_cases()))
def test_chunks_merged_in_any_tree_equal_the_function(metric, k, action, adaptive):
    y = GRADED if metric == "ndcg_at_k" else BINARY
    kw = dict(k=k, empty_target_action=action)
    if adaptive:
        kw["adaptive_k"] = True
    want = float(getattr(metrix, metric)(y, SCORE, query_ids=QUERY, **kw))
    pr = PartialRetrieval(metric, **kw)
    states = [pickle.loads(pickle.dumps(pr.chunk(a, y[a:b], SCORE[a:b], QUERY[a:b])))
              for a, b in zip(CUTS, CUTS[1:])]
    flat = pr.finalize(pr.merge(*states))
    tree = pr.finalize(pr.merge(pr.merge(states[3], states[1]),
                                pr.merge(states[4], states[0], states[2])))
    assert flat == pytest.approx(want, abs=1e-12) and tree == pytest.approx(want, abs=1e-12)
    if k is not None:  # the state keeps at most k candidates per query
        merged = pr.merge(*states)
        _, counts = np.unique(merged["c_query"], return_counts=True)
        assert counts.max() <= k


def test_bad_input_and_empty_targets():
    with pytest.raises(ValueError, match="Unknown metric"):
        PartialRetrieval("ndcg")
    with pytest.raises(ValueError, match="positive int"):
        PartialRetrieval("mrr", k=0)
    with pytest.raises(ValueError, match="adaptive_k"):
        PartialRetrieval("mrr", k=3, adaptive_k=True)
    pr = PartialRetrieval("mrr", k=2, empty_target_action="error")
    with pytest.raises(ValueError, match="integers"):
        pr.chunk(0, [1, 0], [0.5, 0.2], [0.5, 1.5])
    with pytest.raises(ValueError, match="finite"):
        pr.chunk(0, [1, 0], [np.nan, 0.2], [1, 1])
    with pytest.raises(ValueError, match="no relevant item"):
        pr.finalize(pr.chunk(0, [0, 0, 1], [0.5, 0.2, 0.1], [1, 1, 2]))
    assert pr.finalize(pr.empty()) == 0.0
