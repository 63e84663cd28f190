"""Every public metric and stream wrapper, called as a training loop calls it.

Each entry is ``name -> call(make)`` where ``make(kind, shape)`` builds an input
of one kind ("labels" 0..C-1 ints, "binary" 0/1 ints, "score" floats in [0, 1],
"proba" rows, "real" floats, "multilabel" 0/1 matrix, "weight" floats) on the
device under test.  Declared labels and ``validate=False`` throughout (stream
metrics: two updates, a merge and a compute): the calls that must run with
zero host syncs.  ``EXEMPT`` names the calls whose
result has a data-dependent shape (a curve, a text report): those read the
device by design.
"""

from __future__ import annotations

import metrix
import metrix.stream as ms

N, C = 256, 10
L = list(range(C))
B = [0, 1]
NV = {"validate": False}

EXEMPT = {
    "roc_curve": "a curve's length depends on the distinct scores",
    "precision_recall_curve": "a curve's length depends on the distinct scores",
    "det_curve": "a curve's length depends on the distinct scores",
    "confusion_matrix_at_thresholds": "one row per distinct score, as roc_curve",
    "metric_at_thresholds": "calls the user's metric once per distinct score, on the host",
    "classification_report": "a text report is read on the host",
    "calibration_curve": "empty bins are left out: its length depends on the data",
    "classification_report_at_k": "a text report is read on the host",
    "bootstrap": "resampling draws on the host generator and reads the estimates",
    "evaluate": "covered by its metrics; it returns host-keyed results",
    "contingency_matrix": "its shape is the number of distinct labels, read on the host",
    "consensus_score": "the one-to-one pairing of biclusters (SciPy's Hungarian "
                       "algorithm) runs on the host",
    **{name: "a scikit-learn scorer: it calls an estimator on the host, then a metric "
             "(the metrics are called here)"
       for name in ("make_scorer", "get_scorer", "get_scorer_names", "check_scoring")},
    "adjusted_mutual_info_score": "the number of expected-mutual-information terms depends "
                                  "on the data and is read on the host",
    "stream.AdjustedMutualInfoScore": "its compute is adjusted_mutual_info_score's formula: "
                                      "the number of terms is read on the host",
    **{name: "the number of clusters is read on the host (it sizes the per-cluster sums; "
             "scikit-learn checks 2 <= K <= N - 1)"
       for name in ("silhouette_samples", "silhouette_score", "calinski_harabasz_score",
                    "davies_bouldin_score")},
    **{name: "scikit-learn's check_pairwise_arrays reads the values (NaN / infinity) and "
             "the signature has no validate=False to skip it"
       for name in ("euclidean_distances", "nan_euclidean_distances", "pairwise_distances",
                    "pairwise_kernels", "pairwise_distances_chunked",
                    "pairwise_distances_argmin_min", "pairwise_distances_argmin")},
}


def _label_calls():
    m = metrix
    return {
        "accuracy_score": lambda mk: m.accuracy_score(mk("labels"), mk("labels"), **NV),
        "zero_one_loss": lambda mk: m.zero_one_loss(mk("labels"), mk("labels"), **NV),
        "hamming_loss": lambda mk: m.hamming_loss(mk("labels"), mk("labels"), **NV),
        "confusion_matrix": lambda mk: m.confusion_matrix(mk("labels"), mk("labels"),
                                                          labels=L, **NV),
        "multilabel_confusion_matrix": lambda mk: m.multilabel_confusion_matrix(
            mk("labels"), mk("labels"), labels=L, **NV),
        "f1_score[macro]": lambda mk: m.f1_score(mk("labels"), mk("labels"), labels=L,
                                                 average="macro", **NV),
        "f1_score[micro]": lambda mk: m.f1_score(mk("labels"), mk("labels"), labels=L,
                                                 average="micro", **NV),
        "f1_score[weighted]": lambda mk: m.f1_score(mk("labels"), mk("labels"), labels=L,
                                                    average="weighted", **NV),
        "f1_score[macro_present]": lambda mk: m.f1_score(
            mk("labels"), mk("labels"), labels=L, average="macro", macro_over="present",
            **NV),
        "jaccard_score[macro_present]": lambda mk: m.jaccard_score(
            mk("labels"), mk("labels"), labels=L, average="macro", macro_over="present",
            **NV),
        "f1_score[binary]": lambda mk: m.f1_score(mk("binary"), mk("binary"), labels=B,
                                                  **NV),
        "fbeta_score": lambda mk: m.fbeta_score(mk("labels"), mk("labels"), beta=2.0,
                                                labels=L, average="macro", **NV),
        "precision_score": lambda mk: m.precision_score(mk("labels"), mk("labels"), labels=L,
                                                        average="macro", **NV),
        "recall_score": lambda mk: m.recall_score(mk("labels"), mk("labels"), labels=L,
                                                  average="macro", **NV),
        "precision_recall_fscore_support": lambda mk: m.precision_recall_fscore_support(
            mk("labels"), mk("labels"), labels=L, average=None, **NV),
        "jaccard_score": lambda mk: m.jaccard_score(mk("labels"), mk("labels"), labels=L,
                                                    average="macro", **NV),
        "balanced_accuracy_score": lambda mk: m.balanced_accuracy_score(
            mk("labels"), mk("labels"), labels=L, **NV),
        "matthews_corrcoef": lambda mk: m.matthews_corrcoef(mk("labels"), mk("labels"),
                                                            labels=L, **NV),
        "cohen_kappa_score": lambda mk: m.cohen_kappa_score(mk("labels"), mk("labels"),
                                                            labels=L, **NV),
        "class_likelihood_ratios": lambda mk: m.class_likelihood_ratios(
            mk("binary"), mk("binary"), labels=B, **NV),
        "f1_score[weights]": lambda mk: m.f1_score(mk("labels"), mk("labels"), labels=L,
                                                   average="macro",
                                                   sample_weight=mk("weight"), **NV),
        "log_loss": lambda mk: m.log_loss(mk("labels"), mk("proba"), labels=L, **NV),
        "calibration_error": lambda mk: m.calibration_error(mk("binary"), mk("score"), **NV),
        "calibration_error[multiclass]": lambda mk: m.calibration_error(
            mk("labels"), mk("proba"), norm="max", **NV),
        "d2_log_loss_score": lambda mk: m.d2_log_loss_score(mk("labels"), mk("proba"),
                                                            labels=L, **NV),
        "brier_score_loss": lambda mk: m.brier_score_loss(mk("binary"), mk("score"),
                                                          labels=B, **NV),
        "d2_brier_score": lambda mk: m.d2_brier_score(mk("binary"), mk("score"), labels=B,
                                                      **NV),
        "hinge_loss": lambda mk: m.hinge_loss(mk("labels"), mk("real", (N, C)), labels=L,
                                              **NV),
    }


def _ranking_calls():
    m = metrix
    return {
        # the operating points, binned (static length; thresholds=None is a curve)
        **{f"{name}[binned]": (lambda fn, arg: lambda mk: fn(
            mk("binary"), mk("score"), **{arg: 0.6}, thresholds=100, **NV))(getattr(m, name), arg)
           for name, arg in (("recall_at_fixed_precision", "min_precision"),
                             ("precision_at_fixed_recall", "min_recall"),
                             ("sensitivity_at_specificity", "min_specificity"),
                             ("specificity_at_sensitivity", "min_sensitivity"))},
        "roc_auc_score[binary]": lambda mk: m.roc_auc_score(mk("binary"), mk("score"), **NV),
        "roc_auc_score[ovr]": lambda mk: m.roc_auc_score(mk("labels"), mk("proba"),
                                                         multi_class="ovr", labels=L, **NV),
        "roc_auc_score[multilabel]": lambda mk: m.roc_auc_score(mk("multilabel"),
                                                                mk("score", (N, C)), **NV),
        "average_precision_score[binary]": lambda mk: m.average_precision_score(
            mk("binary"), mk("score"), **NV),
        "average_precision_score[multilabel]": lambda mk: m.average_precision_score(
            mk("multilabel"), mk("score", (N, C)), **NV),
        "top_k_accuracy_score": lambda mk: m.top_k_accuracy_score(
            mk("labels"), mk("proba"), k=3, labels=L, **NV),
        "coverage_error": lambda mk: m.coverage_error(mk("multilabel"), mk("score", (N, C)),
                                                      **NV),
        "label_ranking_average_precision_score":
            lambda mk: m.label_ranking_average_precision_score(
                mk("multilabel"), mk("score", (N, C)), **NV),
        "label_ranking_loss": lambda mk: m.label_ranking_loss(mk("multilabel"),
                                                              mk("score", (N, C)), **NV),
        "dcg_score": lambda mk: m.dcg_score(mk("real", (N, C)), mk("score", (N, C)), **NV),
        "ndcg_score": lambda mk: m.ndcg_score(mk("score", (N, C)), mk("score", (N, C)), **NV),
        "auc": lambda mk: m.auc(mk("score"), mk("score"), **NV),
        "ranked_to_scores": lambda mk: m.ranked_to_scores(mk("labels", (N, 3)), C, **NV),
    }


def _retrieval_calls():
    m = metrix
    out = {}
    for name in ("hit_rate_at_k", "map_at_k", "mrr", "ndcg_at_k", "precision_at_k",
                 "recall_at_k"):
        fn = getattr(m, name)
        out[name] = (lambda fn: lambda mk: fn(mk("binary"), mk("score"), k=5,
                                              query_ids=mk("queries"), n_queries=16,
                                              max_items=64, **NV))(fn)
        out[name + "[2d]"] = (lambda fn: lambda mk: fn(mk("multilabel"), mk("score", (N, C)),
                                                       k=5, **NV))(fn)
    out["precision_recall_fscore_at_k"] = lambda mk: m.precision_recall_fscore_at_k(
        mk("multilabel"), mk("score", (N, C)), k=2, **NV)
    return out


def _regression_calls():
    m = metrix
    out = {}
    for name in ("mean_squared_error", "root_mean_squared_error", "mean_absolute_error",
                 "mean_absolute_percentage_error", "r2_score", "explained_variance_score",
                 "max_error", "mean_squared_log_error", "root_mean_squared_log_error",
                 "mean_poisson_deviance", "mean_gamma_deviance", "mean_tweedie_deviance",
                 "d2_tweedie_score", "median_absolute_error", "mean_pinball_loss",
                 "d2_pinball_score", "d2_absolute_error_score", "pearson_corrcoef",
                 "spearman_corrcoef"):
        fn = getattr(m, name)
        out[name] = (lambda fn: lambda mk: fn(mk("score"), mk("score"), **NV))(fn)
    out["mean_squared_error[weights]"] = lambda mk: m.mean_squared_error(
        mk("real"), mk("real"), sample_weight=mk("weight"), **NV)
    return out


def _clustering_calls():
    m = metrix
    names = ("pair_confusion_matrix", "rand_score", "adjusted_rand_score", "mutual_info_score",
             "normalized_mutual_info_score", "homogeneity_score", "completeness_score",
             "v_measure_score", "homogeneity_completeness_v_measure", "fowlkes_mallows_score")
    return {name: (lambda fn: lambda mk: fn(mk("labels"), mk("labels"), **NV))(getattr(m, name))
            for name in names}


def _segmentation_calls():
    m = metrix
    s = (4, 16, 16)  # four 16 x 16 label maps
    return {
        "mean_iou": lambda mk: m.mean_iou(mk("labels", s), mk("labels", s), labels=L, **NV),
        "mean_iou[per_image]": lambda mk: m.mean_iou(
            mk("labels", s), mk("labels", s), labels=L, per_image=True, average=None,
            ignore_index=255, **NV),
        "dice_score": lambda mk: m.dice_score(mk("labels", s), mk("labels", s), labels=L, **NV),
        "dice_score[mixed]": lambda mk: m.dice_score(
            mk("labels", s), mk("score", (4, C, 16, 16)), input_format="mixed", per_image=True,
            **NV),
        "generalized_dice_score": lambda mk: m.generalized_dice_score(
            mk("labels", s), mk("labels", s), labels=L, **NV),
        "pixel_accuracy": lambda mk: m.pixel_accuracy(mk("labels", s), mk("labels", s),
                                                      labels=L, **NV),
    }


def _stream_calls():
    def stream(make_metric, *kinds):
        def call(mk):  # two workers' updates, merged, computed
            metric, other = make_metric(), make_metric()
            metric.update(*[mk(*k) if isinstance(k, tuple) else mk(k) for k in kinds])
            other.update(*[mk(*k) if isinstance(k, tuple) else mk(k) for k in kinds])
            return metric.merge(other).compute()
        return call

    out = {}
    for name in ("Accuracy", "BalancedAccuracy", "CohenKappa", "ConfusionMatrix", "F1Score",
                 "FBetaScore", "HammingDistance", "JaccardIndex", "MatthewsCorrCoef",
                 "Precision", "Recall", "ZeroOneLoss"):
        cls = getattr(ms, name)
        out["stream." + name] = stream((lambda cls: lambda: cls(C))(cls), "labels", "labels")
    # multilabel indicators (N, C) against scores (thresholded) or indicators
    for name in ("Accuracy", "ConfusionMatrix", "F1Score", "FBetaScore", "HammingDistance",
                 "JaccardIndex", "Precision", "Recall", "ZeroOneLoss"):
        cls = getattr(ms, name)
        out[f"stream.{name}[multilabel]"] = stream(
            (lambda cls: lambda: cls(num_labels=C))(cls), "multilabel", ("score", (N, C)))
    out["stream.ExactMatch"] = stream(lambda: ms.ExactMatch(C), "multilabel", "multilabel")
    out["stream.F1Score[macro_present]"] = stream(
        lambda: ms.F1Score(C, macro_over="present"), "labels", "labels")
    out["stream.F1Score[multilabel-macro_present]"] = stream(
        lambda: ms.F1Score(num_labels=C, macro_over="present"), "multilabel",
        ("score", (N, C)))
    out["stream.F1Score[multilabel-samples]"] = stream(
        lambda: ms.F1Score(num_labels=C, average="samples"), "multilabel", ("score", (N, C)))
    out["stream.AUROC"] = stream(lambda: ms.AUROC(), "binary", "score")
    out["stream.AUROC[multiclass]"] = stream(lambda: ms.AUROC(num_classes=C), "labels",
                                             "proba")
    out["stream.AveragePrecision"] = stream(lambda: ms.AveragePrecision(), "binary", "score")
    out["stream.AveragePrecision[exact]"] = stream(
        lambda: ms.AveragePrecision(capacity=4 * N), "binary", "score")
    for name in ("RecallAtFixedPrecision", "PrecisionAtFixedRecall", "SensitivityAtSpecificity",
                 "SpecificityAtSensitivity"):
        cls = getattr(ms, name)
        out["stream." + name] = stream((lambda cls: lambda: cls(0.6))(cls), "binary", "score")
    out["stream.SensitivityAtSpecificity[exact]"] = stream(
        lambda: ms.SensitivityAtSpecificity(0.6, capacity=4 * N), "binary", "score")
    out["stream.LogLoss"] = stream(lambda: ms.LogLoss(num_classes=C), "labels", "proba")
    out["stream.BrierScore"] = stream(lambda: ms.BrierScore(num_classes=C), "labels", "proba")
    out["stream.BrierScore[binary]"] = stream(ms.BrierScore, "binary", "score")
    out["stream.HingeLoss"] = stream(lambda: ms.HingeLoss(num_classes=C), "labels",
                                     ("real", (N, C)))
    out["stream.HingeLoss[binary]"] = stream(ms.HingeLoss, "binary", "real")
    out["stream.D2LogLossScore"] = stream(lambda: ms.D2LogLossScore(num_classes=C), "labels",
                                          "proba")
    out["stream.D2LogLossScore[binary]"] = stream(ms.D2LogLossScore, "binary", "score")
    out["stream.D2BrierScore"] = stream(lambda: ms.D2BrierScore(num_classes=C), "labels",
                                        "proba")
    out["stream.D2BrierScore[binary]"] = stream(ms.D2BrierScore, "binary", "score")
    out["stream.D2BrierScore[weights]"] = stream(lambda: ms.D2BrierScore(num_classes=C),
                                                 "labels", "proba", "weight")
    out["stream.ClassLikelihoodRatios"] = stream(ms.ClassLikelihoodRatios, "binary", "binary")
    out["stream.ClassLikelihoodRatios[weights]"] = stream(
        lambda: ms.ClassLikelihoodRatios(weighted=True), "binary", "score", "weight")
    out["stream.Accuracy[top_k]"] = stream(lambda: ms.Accuracy(C, top_k=3), "labels", "proba")
    out["stream.CalibrationError"] = stream(ms.CalibrationError, "binary", "score")
    out["stream.CalibrationError[multiclass]"] = stream(
        lambda: ms.CalibrationError(norm="l2", num_classes=C), "labels", "proba")
    for name in ("ExplainedVariance", "MeanAbsoluteError", "MeanAbsolutePercentageError",
                 "MeanSquaredError", "MeanSquaredLogError", "R2Score", "RootMeanSquaredError",
                 "RootMeanSquaredLogError", "MaxError", "MeanPoissonDeviance",
                 "MeanGammaDeviance", "MeanTweedieDeviance", "MeanPinballLoss"):
        cls = getattr(ms, name)
        out["stream." + name] = stream(cls, "score", "score")
    out["stream.MedianAbsoluteError"] = stream(lambda: ms.MedianAbsoluteError(4 * N),
                                               "score", "score")
    out["stream.D2TweedieScore"] = stream(lambda: ms.D2TweedieScore(power=1.5), "score",
                                          "score")
    out["stream.D2PinballScore"] = stream(lambda: ms.D2PinballScore(4 * N, alpha=0.9),
                                          "score", "score")
    out["stream.D2AbsoluteErrorScore"] = stream(lambda: ms.D2AbsoluteErrorScore(4 * N),
                                                "score", "score")
    out["stream.PearsonCorrCoef"] = stream(ms.PearsonCorrCoef, "real", "real")
    out["stream.PearsonCorrCoef[weights]"] = stream(ms.PearsonCorrCoef, "real", "real", "weight")
    out["stream.SpearmanCorrCoef"] = stream(lambda: ms.SpearmanCorrCoef(4 * N), "real", "real")
    # token ids (8 sequences of 32) and their logits over a vocabulary of C
    out["stream.Perplexity"] = stream(lambda: ms.Perplexity(ignore_index=0),
                                      ("labels", (8, 32)), ("real", (8, 32, C)))
    # retrieval: relevance, scores and query ids (0..C-1) of N rows
    out["stream.RetrievalNormalizedDCG"] = stream(
        lambda: ms.RetrievalNormalizedDCG(4 * N, top_k=5), "labels", "score", "labels")
    for name in ("RetrievalMAP", "RetrievalMRR", "RetrievalRecall", "RetrievalHitRate"):
        cls = getattr(ms, name)
        out["stream." + name] = stream((lambda cls: lambda: cls(4 * N, top_k=5))(cls),
                                       "binary", "score", "labels")
    out["stream.RetrievalPrecision[adaptive_k]"] = stream(
        lambda: ms.RetrievalPrecision(4 * N, top_k=5, adaptive_k=True, ignore_index=-1),
        "binary", "score", "labels")
    seg = ("labels", (4, 16, 16))  # four 16 x 16 label maps
    for name in ("MeanIoU", "DiceScore", "PixelAccuracy", "GeneralizedDiceScore"):
        cls = getattr(ms, name)
        out["stream." + name] = stream((lambda cls: lambda: cls(C))(cls), seg, seg)
    out["stream.MeanIoU[per_image]"] = stream(
        lambda: ms.MeanIoU(C, None, per_image=True, ignore_index=255), seg, seg)
    out["stream.DiceScore[mixed]"] = stream(
        lambda: ms.DiceScore(C, per_image=True, input_format="mixed"), seg,
        ("score", (4, C, 16, 16)))

    def called(make_metric, *kinds):
        def call(mk):  # the callable form: accumulate and return the batch's value
            return make_metric()(*[mk(k) for k in kinds])
        return call

    out["stream.F1Score[call]"] = called(lambda: ms.F1Score(C), "labels", "labels")
    out["stream.AUROC[call]"] = called(lambda: ms.AUROC(), "binary", "score")
    out["stream.AveragePrecision[exact][call]"] = called(
        lambda: ms.AveragePrecision(capacity=4 * N), "binary", "score")
    out["stream.MeanSquaredError[call]"] = called(ms.MeanSquaredError, "score", "score")
    # the aggregators: update(value, weight=None)
    out["stream.MeanMetric"] = stream(ms.MeanMetric, "score", "weight")
    out["stream.MeanMetric[ignore]"] = stream(lambda: ms.MeanMetric("ignore"), "score",
                                              "weight")
    out["stream.MeanMetric[call]"] = called(ms.MeanMetric, "score")
    for name in ("SumMetric", "MaxMetric", "MinMetric"):
        out["stream." + name] = stream(getattr(ms, name), "score")
    out["stream.MaxMetric[ignore]"] = stream(lambda: ms.MaxMetric("ignore"), "score")
    out["stream.CatMetric"] = stream(lambda: ms.CatMetric(4 * N), "score")
    # the supervised clustering scores: a contingency table (the label metrics' counts)
    for name in ("RandScore", "AdjustedRandScore", "MutualInfoScore",
                 "NormalizedMutualInfoScore", "HomogeneityScore", "CompletenessScore",
                 "VMeasureScore", "FowlkesMallowsIndex"):
        out["stream." + name] = stream((lambda cls: lambda: cls(C))(getattr(ms, name)),
                                       "labels", "labels")
    # the wrappers of another metric
    out["stream.Running"] = stream(lambda: ms.Running(ms.F1Score(C), window=3), "labels",
                                   "labels")
    out["stream.Running[call]"] = called(lambda: ms.Running(ms.MeanMetric()), "score")
    out["stream.ClasswiseWrapper"] = stream(
        lambda: ms.ClasswiseWrapper(ms.Recall(C, average=None)), "labels", "labels")
    return out


CALLS = {**_label_calls(), **_ranking_calls(), **_retrieval_calls(), **_regression_calls(),
         **_clustering_calls(), **_segmentation_calls(), **_stream_calls()}
