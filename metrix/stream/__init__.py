"""Streaming and distributed metrics: accumulate over batches, merge across workers.

Two layers:

* **functional** metric objects (``LabelStream``, ``RegressionStream``,
  ``RankingStream``, ``LogLossStream``, ``CalibrationStream``,
  ``SegmentationStream``, ``CollectionStream``, and the aggregators ``MeanStream``, ``SumStream``,
* **functional** metric objects (``LabelStream``, ``MultilabelStream``, ``RegressionStream``,
  ``RankingStream``, ``LogLossStream``, ``SegmentationStream``,
  ``CorrelationStream``, ``PerplexityStream``, ``RetrievalStream``,
  ``CollectionStream``, and the aggregators ``MeanStream``, ``SumStream``,
  ``MaxStream``, ``MinStream``, ``CatStream``) with
  ``init / update / merge / compute``; states are dicts of arrays (pytrees)
  and ``update`` is pure: it runs under ``jax.jit``, ``jax.lax.scan`` and
  ``torch.compile(fullgraph=True)``;
* **stateful** classes with TorchMetrics' names (``Accuracy``, ``F1Score``,
  ``AUROC``, ``CalibrationError``, ``MeanSquaredError``, ``MetricCollection``, ...;
  the aggregators
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
from ._calibration import CalibrationError, CalibrationStream
from ._classwise import ClasswiseWrapper
from ._clustering import CLASSES as _CLUSTERING
from ._clustering import ClusteringStream
from ._collection import CollectionStream
from ._correlation import CorrelationStream, PearsonCorrCoef, SpearmanCorrCoef
from ._functional import StreamMetric, merge_states
from ._label import LabelStream
from ._multilabel import MultilabelStream
from ._perplexity import Perplexity, PerplexityStream
from ._probabilistic import BrierScoreStream, HingeLossStream, LogLossStream
from ._ranking import DEFAULT_THRESHOLDS, RankingStream
from ._regression import RegressionStream
from ._retrieval import (
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNormalizedDCG,
    RetrievalPrecision,
    RetrievalRecall,
    RetrievalStream,
)
from ._running import Running, RunningStream
from ._scores import ClassLikelihoodRatios, D2BrierScore, D2LogLossScore
from ._segmentation import SegmentationStream
from ._sync import SyncTimeoutError, psum, sync
from ._tracker import MetricTracker
from ._wrappers import (  # noqa: F401
                        AUROC,
                        Accuracy,
                        AveragePrecision,
                        BalancedAccuracy,
                        BrierScore,
                        CohenKappa,
                        ConfusionMatrix,
                        D2AbsoluteErrorScore,
                        D2PinballScore,
                        D2TweedieScore,
                        DiceScore,
                        ExactMatch,
                        ExplainedVariance,
                        F1Score,
                        FBetaScore,
                        GeneralizedDiceScore,
                        HammingDistance,
                        HingeLoss,
                        JaccardIndex,
                        LogLoss,
                        MatthewsCorrCoef,
                        MaxError,
                        MeanAbsoluteError,
                        MeanAbsolutePercentageError,
                        MeanGammaDeviance,
                        MeanIoU,
                        MeanPinballLoss,
                        MeanPoissonDeviance,
                        MeanSquaredError,
                        MeanSquaredLogError,
                        MeanTweedieDeviance,
                        MedianAbsoluteError,
                        Metric,
                        MetricCollection,
                        PixelAccuracy,
                        Precision,
                        PrecisionAtFixedRecall,
                        R2Score,
                        Recall,
                        RecallAtFixedPrecision,
                        RootMeanSquaredError,
                        RootMeanSquaredLogError,
                        SensitivityAtSpecificity,
                        SpecificityAtSensitivity,
                        ZeroOneLoss,
)

globals().update(_CLUSTERING)  # RandScore, AdjustedRandScore, ... (the registry's)

__all__ = [
    "AUROC", "Accuracy", "AdjustedMutualInfoScore", "AdjustedRandScore", "Aggregator",
    "AveragePrecision", "BalancedAccuracy", "BrierScore", "BrierScoreStream", "BufferFullError",
    "CalibrationError", "CalibrationStream", "CatMetric", "CatStream", "ClassLikelihoodRatios",
    "ClasswiseWrapper", "ClusteringStream", "CohenKappa", "CollectionStream", "CompletenessScore",
    "ConfusionMatrix", "CorrelationStream", "D2AbsoluteErrorScore", "D2BrierScore",
    "D2LogLossScore", "D2PinballScore", "D2TweedieScore", "DEFAULT_THRESHOLDS", "DiceScore",
    "ExactMatch", "ExplainedVariance", "F1Score", "FBetaScore", "FowlkesMallowsIndex",
    "GeneralizedDiceScore", "HammingDistance", "HingeLoss", "HingeLossStream", "HomogeneityScore",
    "JaccardIndex", "LabelStream", "LogLoss", "LogLossStream", "MatthewsCorrCoef", "MaxError",
    "MaxMetric", "MaxStream", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanGammaDeviance", "MeanIoU", "MeanMetric", "MeanPinballLoss", "MeanPoissonDeviance",
    "MeanSquaredError", "MeanSquaredLogError", "MeanStream", "MeanTweedieDeviance",
    "MedianAbsoluteError", "Metric", "MetricCollection", "MetricTracker", "MinMetric", "MinStream",
    "MultilabelStream", "MutualInfoScore", "NormalizedMutualInfoScore", "PearsonCorrCoef",
    "Perplexity", "PerplexityStream", "PixelAccuracy", "Precision", "PrecisionAtFixedRecall",
    "R2Score", "RandScore", "RankingStream", "Recall", "RecallAtFixedPrecision", "RegressionStream",
    "RetrievalHitRate", "RetrievalMAP", "RetrievalMRR", "RetrievalNormalizedDCG",
    "RetrievalPrecision", "RetrievalRecall", "RetrievalStream", "RootMeanSquaredError",
    "RootMeanSquaredLogError", "Running", "RunningStream", "SegmentationStream",
    "SensitivityAtSpecificity", "SpearmanCorrCoef", "SpecificityAtSensitivity", "StreamMetric",
    "SumMetric", "SumStream", "SyncTimeoutError", "VMeasureScore", "ZeroOneLoss", "merge_states",
    "psum", "sync",
]
