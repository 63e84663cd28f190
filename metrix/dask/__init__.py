"""Metrics of Dask collections: one pass, mergeable states, a tree reduction.

``metrix.dask.evaluate`` computes many metrics of a Dask DataFrame (columns
named by strings) or of Dask arrays: each partition becomes the small state
of :class:`metrix.evaluation.partial.PartialEvaluation`, the states merge in
a tree on the workers, and the client finalizes once.  The single-metric
functions (``f1_score``, ``roc_auc_score``, ``r2_score``, ...) take
scikit-learn's keywords and are thin calls of ``evaluate``; the per-query @k
metrics (``precision_at_k``, ``ndcg_at_k``, ...) merge each query's top-k
candidates, so a query's rows may sit in any partitions.  Needs the extra
``metrix[dask]``; ``import metrix`` never imports Dask.
"""

from . import _metrics
from ._evaluate import evaluate
from ._metrics import *  # noqa: F403  (the registry's metrics, named in its __all__)
from ._retrieval import hit_rate_at_k, map_at_k, mrr, ndcg_at_k, precision_at_k, recall_at_k

__all__ = ["evaluate", *_metrics.__all__, "precision_at_k", "recall_at_k", "hit_rate_at_k",
           "mrr", "map_at_k", "ndcg_at_k"]
