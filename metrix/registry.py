"""The metric registry: one entry per metric, read by every face.

A metric is defined once (its statistic and formula, beside its one-shot
function in its family package); this table says, by name, where each face
finds it: the public function, the short name that ``metrix.stream``
specs, ``compute_metrics`` and ``metrix eval`` use, the ``metrix.stream``
class, ``evaluate``'s key and the bootstrap's batched path.  The faces
derive their own tables from it (:mod:`metrix.stream`'s classes,
:mod:`metrix.integrations.transformers`' names, the bootstrap's lookup), so
adding a metric means one entry here.  A face that needs to tell metrics
apart reads a field (``path="ranking"``, ``buffered``, ``complement``), not a
name: ``tests/test_registry_names.py`` finds the names written elsewhere.
Names only: this module imports nothing, so any face may read it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Entry", "REGISTRY", "by_function", "by_key", "entries", "names"]


class Entry(NamedTuple):
    """One metric, by name (see the module docstring)."""

    function: str               # the one-shot ``metrix.<function>``
    key: str                    # short name: compute_metrics, metrix eval, stream specs
    family: str                 # "label", "score" (1-D or 2-D scores), "regression"
    #                             or "clustering"
    stream: str | None = None   # its ``metrix.stream`` class (generated for the label,
    #                             regression and clustering families, unless ``buffered``)
    spec: str | None = None     # the stream spec's metric, where it is not ``key``
    average: str | None = None  # the stream class's default ``average``
    what: str = ""              # what it measures, for generated docstrings
    averaged: bool = False      # takes ``average=`` (compute_metrics passes it on)
    trainer: bool = False       # offered by name to ``compute_metrics``
    evaluate: str | None = None  # its key in ``evaluate`` / ``PartialEvaluation``
    path: str | None = None     # the bootstrap's batched path (``_batched_find``)
    greater_is_better: bool = True  # a score (True) or a loss / error (False)
    aliases: tuple[str, ...] = ()  # other names ``compute_metrics`` takes ("auroc")
    complement: str | None = None  # the key it is 1 minus, on that metric's state
    buffered: bool = False      # its stream keeps the values (``capacity=`` samples)


REGISTRY = (
    # -- label metrics: one confusion matrix ----------------------------------------
    Entry("accuracy_score", "accuracy", "label", "Accuracy", what="accuracy "
          "(``average=None``: plain accuracy)", trainer=True, evaluate="accuracy",
          path="label"),
    Entry("precision_score", "precision", "label", "Precision", average="macro",
          what="precision", averaged=True, trainer=True, evaluate="precision", path="label"),
    Entry("recall_score", "recall", "label", "Recall", average="macro", what="recall",
          averaged=True, trainer=True, evaluate="recall", path="label"),
    Entry("f1_score", "f1", "label", "F1Score", average="macro", what="F1 score",
          averaged=True, trainer=True, evaluate="f1", path="label"),
    Entry("fbeta_score", "fbeta", "label", "FBetaScore", average="macro",
          what="F-beta score (``beta=``)", averaged=True, path="label"),
    Entry("jaccard_score", "jaccard", "label", "JaccardIndex", average="macro",
          what="Jaccard index", averaged=True, trainer=True, evaluate="jaccard"),
    Entry("matthews_corrcoef", "mcc", "label", "MatthewsCorrCoef", average="macro",
          what="Matthews correlation coefficient", trainer=True,
          evaluate="matthews_corrcoef", path="label"),
    Entry("cohen_kappa_score", "kappa", "label", "CohenKappa", average="macro",
          what="Cohen's kappa (``weights=``)", trainer=True, evaluate="cohen_kappa",
          path="label"),
    Entry("confusion_matrix", "confusion", "label", "ConfusionMatrix", average="macro",
          what="confusion matrix (``normalize=``)"),
    Entry("balanced_accuracy_score", "balanced_accuracy", "label", "BalancedAccuracy",
          average="macro", what="balanced accuracy (``adjusted=``)", trainer=True,
          evaluate="balanced_accuracy", path="label"),
    Entry("hamming_loss", "hamming_loss", "label", "HammingDistance", spec="hamming",
          what="Hamming loss (1 - accuracy)", trainer=True, evaluate="hamming_loss",
          path="multilabel",
          greater_is_better=False, aliases=("hamming",), complement="accuracy"),
    Entry("zero_one_loss", "zero_one_loss", "label", "ZeroOneLoss", spec="zero_one",
          what="zero-one loss (1 - accuracy)", trainer=True, evaluate="zero_one_loss",
          greater_is_better=False, complement="accuracy"),
    # -- score metrics --------------------------------------------------------------
    Entry("roc_auc_score", "roc_auc", "score", "AUROC", averaged=True, trainer=True,
          evaluate="roc_auc", path="ranking", aliases=("auroc",)),
    Entry("average_precision_score", "average_precision", "score", "AveragePrecision",
          averaged=True, trainer=True, evaluate="average_precision", path="ranking"),
    Entry("log_loss", "log_loss", "score", trainer=True, evaluate="log_loss", path="proba",
          greater_is_better=False),
    Entry("brier_score_loss", "brier_score_loss", "score", evaluate="brier_score_loss",
          path="proba",
          greater_is_better=False),
    Entry("calibration_error", "calibration_error", "score", greater_is_better=False),
    Entry("top_k_accuracy_score", "top_k_accuracy", "score", path="row_mean"),
    Entry("label_ranking_average_precision_score", "lrap", "score", path="row_mean"),
    Entry("label_ranking_loss", "label_ranking_loss", "score", path="row_mean",
          greater_is_better=False),
    Entry("coverage_error", "coverage_error", "score", path="row_mean",
          greater_is_better=False),
    Entry("ndcg_score", "ndcg", "score", path="row_mean"),
    Entry("dcg_score", "dcg", "score", path="row_mean"),
    # -- supervised clustering: a contingency table (the label metrics' counts) --------
    Entry("rand_score", "rand", "clustering", "RandScore", what="Rand index"),
    Entry("adjusted_rand_score", "adjusted_rand", "clustering", "AdjustedRandScore",
          what="adjusted Rand index"),
    Entry("mutual_info_score", "mutual_info", "clustering", "MutualInfoScore",
          what="mutual information"),
    Entry("normalized_mutual_info_score", "normalized_mutual_info", "clustering",
          "NormalizedMutualInfoScore", what="normalized mutual information"),
    Entry("adjusted_mutual_info_score", "adjusted_mutual_info", "clustering",
          "AdjustedMutualInfoScore", what="adjusted mutual information"),
    Entry("homogeneity_score", "homogeneity", "clustering", "HomogeneityScore",
          what="homogeneity"),
    Entry("completeness_score", "completeness", "clustering", "CompletenessScore",
          what="completeness"),
    Entry("v_measure_score", "v_measure", "clustering", "VMeasureScore", what="V-measure"),
    Entry("fowlkes_mallows_score", "fowlkes_mallows", "clustering", "FowlkesMallowsIndex",
          what="Fowlkes-Mallows index"),
    # -- regression: weighted sums (the median keeps the errors) ----------------------
    Entry("mean_squared_error", "mse", "regression", "MeanSquaredError",
          what="mean squared error", trainer=True, evaluate="mean_squared_error",
          path="regression",
          greater_is_better=False),
    Entry("root_mean_squared_error", "rmse", "regression", "RootMeanSquaredError",
          what="root mean squared error", trainer=True, evaluate="root_mean_squared_error",
          path="regression",
          greater_is_better=False),
    Entry("mean_absolute_error", "mae", "regression", "MeanAbsoluteError",
          what="mean absolute error", trainer=True, evaluate="mean_absolute_error",
          path="regression",
          greater_is_better=False),
    Entry("r2_score", "r2", "regression", "R2Score", what="coefficient of determination",
          trainer=True, evaluate="r2_score", path="regression"),
    Entry("explained_variance_score", "explained_variance", "regression", "ExplainedVariance",
          what="explained variance", trainer=True, evaluate="explained_variance_score",
          path="regression"),
    Entry("mean_squared_log_error", "msle", "regression", "MeanSquaredLogError",
          what="mean squared log error", trainer=True,
          greater_is_better=False),
    Entry("root_mean_squared_log_error", "rmsle", "regression", "RootMeanSquaredLogError",
          what="root mean squared log error", trainer=True,
          greater_is_better=False),
    Entry("mean_absolute_percentage_error", "mape", "regression",
          "MeanAbsolutePercentageError", what="mean absolute percentage error",
          trainer=True, evaluate="mean_absolute_percentage_error", path="regression",
          greater_is_better=False),
    Entry("median_absolute_error", "median_ae", "regression", "MedianAbsoluteError",
          trainer=True, evaluate="median_absolute_error", path="order",
          greater_is_better=False, buffered=True),
    Entry("max_error", "max_error", "regression", "MaxError", what="maximum residual error",
          evaluate="max_error", path="order",
          greater_is_better=False),
    Entry("mean_poisson_deviance", "poisson", "regression", "MeanPoissonDeviance",
          what="mean Poisson deviance", greater_is_better=False),
    Entry("mean_gamma_deviance", "gamma", "regression", "MeanGammaDeviance",
          what="mean gamma deviance", greater_is_better=False),
    Entry("mean_tweedie_deviance", "tweedie", "regression", "MeanTweedieDeviance",
          what="mean Tweedie deviance (``power=``)", greater_is_better=False),
    Entry("mean_pinball_loss", "pinball", "regression", "MeanPinballLoss",
          what="mean pinball loss (``alpha=``)", greater_is_better=False),
    Entry("d2_tweedie_score", "d2_tweedie", "regression", "D2TweedieScore",
          what="D^2 Tweedie score (fraction of Tweedie deviance explained, ``power=``; "
               "one output)"),
    # exact buffers of ``capacity`` (the weighted quantile of y_true): written classes
    Entry("d2_pinball_score", "d2_pinball", "regression", "D2PinballScore", buffered=True),
    Entry("d2_absolute_error_score", "d2_absolute_error", "regression",
          "D2AbsoluteErrorScore", buffered=True),
)

_BY_FUNCTION = {e.function: e for e in REGISTRY}


def by_function(name: str) -> Entry | None:
    """The entry of the public function ``name`` (None if it has none)."""
    return _BY_FUNCTION.get(name)


def entries(**fields) -> tuple[Entry, ...]:
    """The entries whose fields equal ``fields`` (``entries(family="label")``)."""
    return tuple(e for e in REGISTRY if all(getattr(e, k) == v for k, v in fields.items()))


def names(field: str = "evaluate", **fields) -> tuple[str, ...]:
    """The ``field`` of the entries matching ``fields`` that have one
    (``names(path="ranking")``: ``("roc_auc", "average_precision")``)."""
    return tuple(getattr(e, field) for e in entries(**fields) if getattr(e, field))


def by_key(key: str) -> Entry:
    """The entry of the short name ``key``."""
    return next(e for e in REGISTRY if e.key == key)
