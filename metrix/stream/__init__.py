"""Streaming and distributed metrics: accumulate over batches, merge across workers.

Two layers:

* **functional** metric objects (``LabelStream``, ``MultilabelStream``, ``RegressionStream``,
  ``RankingStream``, ``LogLossStream``, ``SegmentationStream``,
  ``CollectionStream``, and the aggregators ``MeanStream``, ``SumStream``,
  ``MaxStream``, ``MinStream``, ``CatStream``) with
  ``init / update / merge / compute``; states are dicts of arrays (pytrees)
  and ``update`` is pure: it runs under ``jax.jit``, ``jax.lax.scan`` and
  ``torch.compile(fullgraph=True)``;
* **stateful** classes with TorchMetrics' names (``Accuracy``, ``F1Score``,
  ``AUROC``, ``MeanSquaredError``, ``MetricCollection``, ...; the aggregators
  ``MeanMetric``, ``SumMetric``, ``MaxMetric``, ``MinMetric``, ``CatMetric``
  take ``update(value, weight=None)``; the wrappers ``Running`` (a moving
  window), ``ClasswiseWrapper`` (per-class dicts) and ``MetricTracker`` (the
  best step)) with
  ``update / compute / reset / merge / sync / to / state_dict``.

``sync(state, group)`` reduces a state over ``torch.distributed`` (one
collective on a fixed-size buffer, with a timeout instead of a hang);
``psum(state, axis_name)`` merges it inside ``jax.shard_map`` / ``pmap``.
"""

from ._aggregation import CatStream, MaxStream, MeanStream, MinStream, SumStream
from ._aggregators import Aggregator, CatMetric, MaxMetric, MeanMetric, MinMetric, SumMetric
from ._buffer import BufferFullError
from ._classwise import ClasswiseWrapper
from ._collection import CollectionStream
from ._functional import StreamMetric, merge_states
from ._label import LabelStream
from ._multilabel import MultilabelStream
from ._probabilistic import LogLossStream
from ._ranking import DEFAULT_THRESHOLDS, RankingStream
from ._regression import RegressionStream
from ._running import Running, RunningStream
from ._segmentation import SegmentationStream
from ._sync import SyncTimeoutError, psum, sync
from ._tracker import MetricTracker
from ._wrappers import (  # noqa: F401
                        AUROC,
                        Accuracy,
                        AveragePrecision,
                        BalancedAccuracy,
                        CohenKappa,
                        ConfusionMatrix,
                        DiceScore,
                        ExactMatch,
                        ExplainedVariance,
                        F1Score,
                        FBetaScore,
                        GeneralizedDiceScore,
                        HammingDistance,
                        JaccardIndex,
                        LogLoss,
                        MatthewsCorrCoef,
                        MeanAbsoluteError,
                        MeanAbsolutePercentageError,
                        MeanIoU,
                        MeanSquaredError,
                        MeanSquaredLogError,
                        MedianAbsoluteError,
                        Metric,
                        MetricCollection,
                        PixelAccuracy,
                        Precision,
                        R2Score,
                        Recall,
                        RootMeanSquaredError,
                        RootMeanSquaredLogError,
                        ZeroOneLoss,
)

__all__ = [
    "AUROC", "Accuracy", "Aggregator", "AveragePrecision", "BalancedAccuracy", "BufferFullError",
    "CatMetric", "CatStream", "ClasswiseWrapper", "CohenKappa", "CollectionStream",
    "ConfusionMatrix", "DEFAULT_THRESHOLDS", "DiceScore", "ExactMatch", "ExplainedVariance",
    "F1Score", "FBetaScore", "GeneralizedDiceScore", "HammingDistance", "JaccardIndex",
    "LabelStream", "LogLoss", "LogLossStream", "MatthewsCorrCoef", "MaxMetric", "MaxStream",
    "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanIoU", "MeanMetric", "MeanSquaredError",
    "MeanSquaredLogError", "MeanStream", "MedianAbsoluteError", "Metric", "MetricCollection",
    "MetricTracker", "MinMetric", "MinStream", "MultilabelStream", "PixelAccuracy", "Precision",
    "R2Score", "RankingStream", "Recall", "RegressionStream", "RootMeanSquaredError",
    "RootMeanSquaredLogError", "Running", "RunningStream", "SegmentationStream", "StreamMetric",
    "SumMetric", "SumStream", "SyncTimeoutError", "ZeroOneLoss",
    "merge_states", "psum", "sync",
]
