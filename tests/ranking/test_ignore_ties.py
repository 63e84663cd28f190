"""``ndcg_score`` / ``dcg_score`` with ``ignore_ties=True`` on tied scores, as scikit-learn.

scikit-learn ranks by its default (unstable) ``argsort``, reversed: the order of
tied scores is whatever NumPy's sort kernel leaves, which varies with the CPU.
On NumPy input metrix calls the same kernel, so the values agree on every
machine (a stable sort agreed only where NumPy's kernel happened to be stable).
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix


@pytest.mark.parametrize("name", ["ndcg_score", "dcg_score"])
@pytest.mark.parametrize("k", [None, 1, 3])
def test_tied_scores_rank_as_sklearn(name, k):
    rng = np.random.default_rng(7)
    for n in (4, 17, 40):
        y = rng.integers(0, 4, (5, n)).astype(float)
        s = np.round(rng.random((5, n)), 1)           # many ties
        want = getattr(skm, name)(y, s, k=k, ignore_ties=True)
        got = getattr(metrix, name)(y, s, k=k, ignore_ties=True)
        assert float(got) == pytest.approx(want, rel=1e-12, abs=1e-12)
