"""RowsEvaluation: multilabel / ranking states over chunks equal scikit-learn on all rows."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from metrix.evaluation.partial_rows import ROWS_METRICS, RowsEvaluation

skm = pytest.importorskip("sklearn.metrics")

_SAMPLE_FNS = {"subset_accuracy": "accuracy_score", "hamming_loss": "hamming_loss",
               "lrap": "label_ranking_average_precision_score", "ndcg": "ndcg_score",
               "dcg": "dcg_score", "coverage_error": "coverage_error",
               "label_ranking_loss": "label_ranking_loss"}


def _sklearn(name, yt, yp, s, w):
    if name in _SAMPLE_FNS:
        second = yp if name in ("subset_accuracy", "hamming_loss") else s
        return getattr(skm, _SAMPLE_FNS[name])(yt, second, sample_weight=w)
    metric, average = name.rsplit("_", 1)
    return getattr(skm, f"{metric}_score")(yt, yp, average=average, sample_weight=w)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_chunks_in_any_order_equal_sklearn(weighted):
    rng = np.random.default_rng(0)
    n, labels = 700, 5
    yt = rng.integers(0, 2, (n, labels))
    yt[:, 4] = 0  # a label never true: zero_division in its precision / recall
    yt[:40] = 0   # rows without a true label
    yp = rng.integers(0, 2, (n, labels))
    s = np.round(rng.random((n, labels)), 1)  # ties
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    pe = RowsEvaluation(list(ROWS_METRICS))
    cuts = [0, 100, 100, 350, 699, n]  # an empty chunk, a one-row chunk
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = [pe.chunk(yt[a:b], yp[a:b], s[a:b], None if w is None else w[a:b])
                  for a, b in zip(cuts, cuts[1:])]
        states = [pickle.loads(pickle.dumps(st)) for st in states]
        flat = pe.finalize(pe.merge(*states))
        tree = pe.finalize(pe.merge(pe.merge(states[3], states[0]),
                                    pe.merge(*states[1:3], states[4])))
        for name in ROWS_METRICS:
            want = _sklearn(name, yt, yp, s, w)
            assert flat[name] == pytest.approx(want, abs=1e-12, rel=1e-12), name
            assert tree[name] == pytest.approx(want, abs=1e-12, rel=1e-12), name


def test_bad_input():
    with pytest.raises(ValueError, match="Unknown metric"):
        RowsEvaluation(["roc_auc"])
    pe = RowsEvaluation(["f1_micro", "lrap"])
    with pytest.raises(ValueError, match="needs y_score"):
        pe.chunk(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        pe.chunk(np.ones(3), np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="0 sample"):
        pe.finalize(pe.empty())
    a = pe.chunk(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))
    b = pe.chunk(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="labels"):
        pe.merge(a, b)
