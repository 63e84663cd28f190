"""Conformance rows: the ``metrix.stream`` metrics, through every face.

Each row builds a stream metric and runs it through the faces of
``conformance/faces.py``: uneven batches (an empty batch first, then one
sample, then larger ones and another empty batch), one batch, a merge of two
metrics, and a ``state_dict`` reload mid-stream; the label rows of ``NARROW``
also take uint8, int8 and int16 labels.  Every face's ``compute()`` is compared
with scikit-learn's one-shot value on all of the data.

The streamed result's float dtype is the state's: ``y_pred``'s float dtype for
arrays on a device, the widest float for host NumPy arrays and for labels
(``sample_weight`` does not narrow it).  That is not the one-shot rule the
runner checks, so these rows leave the dtype out (``check_dtype=False``);
value, namespace and device are checked as everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn import metrics as skm

import metrix.stream as ms
from conformance.cases_calibration import tm_calibration_error
from conformance.cases_ranking import OPERATING_POINTS, TM_TOL, torchmetrics_point
from conformance.faces import FACES, N, lowered, merged, narrowed, round_to, streamed
from conformance.registry import Case

rng = np.random.default_rng(20261209)

C = 4
LABELS = list(range(C))
MC_T = rng.integers(0, C, N)
MC_P = np.where(rng.random(N) < 0.6, MC_T, rng.integers(0, C, N))
MC_PROBA = rng.dirichlet(np.ones(C), N)
BIN_T = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN_T, 1 - BIN_T)
BIN_SCORE = rng.random(N) * 0.6 + 0.4 * BIN_T
BIN_TIED = np.round(BIN_SCORE, 1)
ML_T = (rng.random((N, 3)) < 0.4).astype(np.int64)
ML_T[:2] = [[1, 1, 1], [0, 0, 0]]                # every label has both classes
ML_SCORE = np.round(rng.random((N, 3)), 2)
W = rng.random(N) + 0.05
Y = rng.random(N) * 3 + 0.1
Y_PRED = np.abs(Y + rng.normal(0, 0.5, N)) + 0.01
Y2 = rng.random((N, 2)) * 3 + 0.1
Y2_PRED = np.abs(Y2 + rng.normal(0, 0.5, (N, 2))) + 0.01
THRESHOLDS = 20

CASES: list[Case] = []


@dataclass(frozen=True)
class Row:
    """One stream row as written, before its faces: the framework faces
    (``cases_framework_faces.py``, the Keras script) derive their cases from it."""

    name: str
    make: Callable
    reference: Callable
    args: tuple
    kwargs: dict
    id: str
    extra: dict


#: every row of this module, in order
ROWS: list[Row] = []


#: the rows whose labels also go in as narrow and unsigned integers (one per kind
#: of label statistic: the confusion count, its shared form, the binary count)
NARROW = {"Accuracy", "F1Score/binary", "ConfusionMatrix", "MetricCollection/shared-statistic",
          "MatthewsCorrCoef", "ClassLikelihoodRatios"}
NARROW_DTYPES = ("uint8", "int8", "int16", "int32", "float32")
#: the binary rows whose 0 / 1 labels also go in as bool
BOOL = {"F1Score/binary"}
#: the rows whose scores or values also go in as float16 and bfloat16 (mixed-precision
#: outputs): the data rounded to the dtype first, so that scikit-learn sees the same values
#: (not the multiclass AUROC row: rounded probabilities no longer sum to one, and
#: scikit-learn refuses them)
LOW = {"Accuracy/scores-argmaxed", "AUROC/exact-ties-weighted", "AUROC/binned",
       "AveragePrecision/exact-ties", "AveragePrecision/binned-weighted",
       "LogLoss/binary-weighted", "MeanSquaredError", "R2Score/merged"}
#: the epsilon of each low dtype: log loss clips probabilities at the epsilon of their
#: dtype (scikit-learn's rule), so its reference clips the rounded data there first
LOW_EPS = {"float16": float(np.finfo(np.float16).eps), "bfloat16": 2.0**-7}
#: the combinations without each low dtype: NumPy has no bfloat16, the array API
#: (array-api-strict) neither float16 nor bfloat16
LOW_SKIPS = {"float16": ("strict-cpu-f64", "strict-device1-f64", "strict-nofloat64-f32"),
             "bfloat16": ("numpy-f64", "numpy-f32", "cupy-f64", "strict-cpu-f64",
                          "strict-device1-f64", "strict-nofloat64-f32")}


def add(name, make, ref, args, kw=None, id="", call=streamed, **extra):
    """One row, run through every face (``conformance/faces.py``): its own ``call``
    (uneven batches, or a merge), one batch, a merge and a reload; the rows of
    ``NARROW`` also with narrow integer labels."""
    extra.setdefault("check_dtype", False)
    ROWS.append(Row(name, make, ref, args, dict(kw or {}), id, dict(extra)))
    row = f"{name}/{id}" if id else name
    faces = {"": call}
    faces.update({face: fn for face, fn in FACES.items() if fn is not call and face != "streamed"})
    if row in NARROW:  # float32: integer-valued float labels
        faces.update({dt: narrowed(streamed, dt) for dt in NARROW_DTYPES})
    if row in BOOL:
        faces["bool"] = narrowed(streamed, "bool")
    for face, fn in faces.items():
        case_id = "-".join(part for part in (id, face) if part)
        CASES.append(Case(name, ref, args, dict(kw or {}), id=case_id, call=fn(make), **extra))
    if row in LOW:
        for dt, skipped in LOW_SKIPS.items():
            # the state sums in float32 at least: float32's tolerance on every combination
            low = {**extra, "rtol": 2e-5, "atol": 2e-6,
                   "skip": {c: f"no {dt} in this namespace" for c in skipped}}
            low_ref = ref if name != "LogLoss" else _clipped(ref, LOW_EPS[dt])
            CASES.append(Case(name, low_ref, tuple(round_to(a, dt) for a in args),
                              dict(kw or {}),
                              id="-".join(p for p in (id, dt) if p),
                              call=lowered(call, dt)(make), **low))


def _clipped(ref, eps):
    return lambda t, p, **kw: ref(t, np.clip(p, eps, 1 - eps), **kw)


def binned(s, t=THRESHOLDS):
    """The bin of each score: the number of thresholds j / (t - 1) <= s."""
    return np.clip(s * (t - 1) + 1.0, 0, t).astype(np.int64).astype(np.float64)


WEIGHTED = {"sample_weight": W}

# -- label metrics --------------------------------------------------------------------
add("Accuracy", lambda: ms.Accuracy(C), skm.accuracy_score, (MC_T, MC_P))
add("Accuracy", lambda: ms.Accuracy(C, weighted=True), skm.accuracy_score, (MC_T, MC_P),
    WEIGHTED, id="weighted")
add("Accuracy", lambda: ms.Accuracy(C), lambda t, p: skm.accuracy_score(t, p.argmax(1)),
    (MC_T, MC_PROBA), id="scores-argmaxed")
add("Accuracy", lambda: ms.Accuracy(C, average="macro"),
    lambda t, p: skm.recall_score(t, p, average="macro"), (MC_T, MC_P), id="macro")
add("Precision", lambda: ms.Precision(C, average="macro"),
    lambda t, p: skm.precision_score(t, p, average="macro"), (MC_T, MC_P), id="macro")
add("Recall", lambda: ms.Recall(C, average="weighted", weighted=True),
    lambda t, p, sample_weight: skm.recall_score(t, p, average="weighted",
                                                 sample_weight=sample_weight),
    (MC_T, MC_P), WEIGHTED, id="weighted")
add("F1Score", lambda: ms.F1Score(C, average=None),
    lambda t, p: skm.f1_score(t, p, average=None, labels=LABELS), (MC_T, MC_P), id="per-class")
add("F1Score", lambda: ms.F1Score(2, average="binary"), skm.f1_score, (BIN_T, BIN_P),
    id="binary")
add("F1Score", lambda: ms.F1Score(C, average="macro"),
    lambda t, p: skm.f1_score(t, p, average="macro"), (MC_T, MC_P), id="merged", call=merged)
add("FBetaScore", lambda: ms.FBetaScore(C, beta=0.5, average="micro"),
    lambda t, p: skm.fbeta_score(t, p, beta=0.5, average="micro"), (MC_T, MC_P), id="micro")
add("JaccardIndex", lambda: ms.JaccardIndex(C, average="macro", weighted=True),
    lambda t, p, sample_weight: skm.jaccard_score(t, p, average="macro",
                                                  sample_weight=sample_weight),
    (MC_T, MC_P), WEIGHTED, id="macro-weighted")
add("MatthewsCorrCoef", lambda: ms.MatthewsCorrCoef(C), skm.matthews_corrcoef, (MC_T, MC_P))
add("CohenKappa", lambda: ms.CohenKappa(C, weights="quadratic"),
    lambda t, p: skm.cohen_kappa_score(t, p, weights="quadratic"), (MC_T, MC_P),
    id="quadratic")
add("BalancedAccuracy", lambda: ms.BalancedAccuracy(C, weighted=True),
    skm.balanced_accuracy_score, (MC_T, MC_P), WEIGHTED, id="weighted")
add("ConfusionMatrix", lambda: ms.ConfusionMatrix(C), skm.confusion_matrix, (MC_T, MC_P))
add("ConfusionMatrix", lambda: ms.ConfusionMatrix(C, normalize="true", weighted=True),
    lambda t, p, sample_weight: skm.confusion_matrix(t, p, normalize="true",
                                                     sample_weight=sample_weight),
    (MC_T, MC_P), WEIGHTED, id="normalize-weighted")
add("HammingDistance", lambda: ms.HammingDistance(C), skm.hamming_loss, (MC_T, MC_P))
add("ZeroOneLoss", lambda: ms.ZeroOneLoss(C, weighted=True), skm.zero_one_loss,
    (MC_T, MC_P), WEIGHTED, id="weighted")
add("MetricCollection", lambda: ms.MetricCollection({
        "acc": ms.Accuracy(C), "f1": ms.F1Score(C, average="weighted"),
        "kappa": ms.CohenKappa(C), "mcc": ms.MatthewsCorrCoef(C)}),
    lambda t, p: {"acc": skm.accuracy_score(t, p),
                  "f1": skm.f1_score(t, p, average="weighted"),
                  "kappa": skm.cohen_kappa_score(t, p), "mcc": skm.matthews_corrcoef(t, p)},
    (MC_T, MC_P), id="shared-statistic")

# -- multilabel: (N, L) indicators against scores (> 0.5 is positive; ties at 0.5 are not)
ML_P = ML_T ^ (rng.random((N, 3)) < 0.3)          # indicator predictions, some wrong
ML_P[2:4] = 0                                     # samples with no predicted label


def _ml(fn, **kw):
    return lambda t, s, **w: fn(t, (s > 0.5).astype(np.int64), **kw, **w)


add("F1Score", lambda: ms.F1Score(num_labels=3), _ml(skm.f1_score, average="macro"),
    (ML_T, ML_SCORE), id="multilabel")
add("F1Score", lambda: ms.F1Score(num_labels=3, average="samples", weighted=True,
                                  zero_division=1.0),
    _ml(skm.f1_score, average="samples", zero_division=1.0), (ML_T, ML_SCORE), WEIGHTED,
    id="multilabel-samples-weighted")
add("Precision", lambda: ms.Precision(num_labels=3, average="micro"),
    _ml(skm.precision_score, average="micro"), (ML_T, ML_SCORE), id="multilabel-micro")
add("Recall", lambda: ms.Recall(num_labels=3, average=None),
    lambda t, p: skm.recall_score(t, p, average=None), (ML_T, ML_P), id="multilabel-per-label")
add("FBetaScore", lambda: ms.FBetaScore(num_labels=3, beta=2.0, average="weighted"),
    _ml(skm.fbeta_score, beta=2.0, average="weighted"), (ML_T, ML_SCORE),
    id="multilabel-weighted")
add("JaccardIndex", lambda: ms.JaccardIndex(num_labels=3, average="samples", zero_division=0.0),
    lambda t, p: skm.jaccard_score(t, p, average="samples", zero_division=0.0), (ML_T, ML_P),
    id="multilabel-samples")
add("Accuracy", lambda: ms.Accuracy(num_labels=3, weighted=True), _ml(skm.accuracy_score),
    (ML_T, ML_SCORE), WEIGHTED, id="multilabel-subset-weighted")
add("ExactMatch", lambda: ms.ExactMatch(3), skm.accuracy_score, (ML_T, ML_P))
add("HammingDistance", lambda: ms.HammingDistance(num_labels=3), _ml(skm.hamming_loss),
    (ML_T, ML_SCORE), id="multilabel")
add("ZeroOneLoss", lambda: ms.ZeroOneLoss(num_labels=3), skm.zero_one_loss, (ML_T, ML_P),
    id="multilabel")
add("ConfusionMatrix", lambda: ms.ConfusionMatrix(num_labels=3, weighted=True),
    _ml(skm.multilabel_confusion_matrix), (ML_T, ML_SCORE), WEIGHTED, id="multilabel-weighted")
add("MetricCollection", lambda: ms.MetricCollection({
        "acc": ms.Accuracy(num_labels=3), "f1": ms.F1Score(num_labels=3, average="micro"),
        "hamming": ms.HammingDistance(num_labels=3), "exact": ms.ExactMatch(3)}),
    lambda t, s: {"acc": skm.accuracy_score(t, s > 0.5),
                  "f1": skm.f1_score(t, s > 0.5, average="micro"),
                  "hamming": skm.hamming_loss(t, s > 0.5),
                  "exact": skm.accuracy_score(t, s > 0.5)},
    (ML_T, ML_SCORE), id="multilabel-shared")

# -- probabilistic ----------------------------------------------------------------------
# float64 references: float32-rounded probabilities no longer sum to one for scikit-learn
PROBA = {"float32_reference": False}
add("LogLoss", lambda: ms.LogLoss(C), lambda t, p: skm.log_loss(t, p, labels=LABELS),
    (MC_T, MC_PROBA), id="multiclass", **PROBA)
add("LogLoss", lambda: ms.LogLoss(), skm.log_loss, (BIN_T, BIN_SCORE), WEIGHTED,
    id="binary-weighted")
add("BrierScore", lambda: ms.BrierScore(C), lambda t, p: skm.brier_score_loss(t, p, labels=LABELS),
    (MC_T, MC_PROBA), id="multiclass", **PROBA)
add("BrierScore", lambda: ms.BrierScore(), skm.brier_score_loss, (2 * BIN_T - 1, BIN_SCORE),
    WEIGHTED, id="binary-minus-one-weighted")
add("BrierScore", lambda: ms.BrierScore(pos_label=2),
    lambda t, p: skm.brier_score_loss(t, p, pos_label=2), (BIN_T + 1, BIN_SCORE),
    id="pos-label-2")
add("D2LogLossScore", lambda: ms.D2LogLossScore(C),
    lambda t, p: skm.d2_log_loss_score(t, p, labels=LABELS), (MC_T, MC_PROBA), id="multiclass",
    **PROBA)
add("D2LogLossScore", lambda: ms.D2LogLossScore(), skm.d2_log_loss_score, (BIN_T, BIN_SCORE),
    WEIGHTED, id="binary-weighted")
add("D2BrierScore", lambda: ms.D2BrierScore(C),
    lambda t, p, **kw: skm.d2_brier_score(t, p, labels=LABELS, **kw), (MC_T, MC_PROBA),
    WEIGHTED, id="multiclass-weighted", **PROBA)
add("D2BrierScore", lambda: ms.D2BrierScore(pos_label=2),
    lambda t, p: skm.d2_brier_score(t, p, pos_label=2), (BIN_T + 1, BIN_SCORE),
    id="pos-label-2")
add("ClassLikelihoodRatios", ms.ClassLikelihoodRatios, skm.class_likelihood_ratios,
    (BIN_T, BIN_P))
add("ClassLikelihoodRatios", lambda: ms.ClassLikelihoodRatios(weighted=True),
    lambda t, s, **kw: skm.class_likelihood_ratios(t, (s > 0.5).astype(np.int64), **kw),
    (BIN_T, BIN_SCORE), WEIGHTED, id="scores-weighted")
# decision values (beyond [0, 1]), made from the data above (no new draw: the rows below
# keep their data)
BIN_DEC = 4 * BIN_SCORE - 2
MC_DEC = 3 * MC_PROBA - 1
add("HingeLoss", lambda: ms.HingeLoss(), skm.hinge_loss, (2 * BIN_T - 1, BIN_DEC), WEIGHTED,
    id="binary-minus-one-weighted")
add("HingeLoss", lambda: ms.HingeLoss(C), lambda t, d: skm.hinge_loss(t, d, labels=LABELS),
    (MC_T, MC_DEC), id="crammer-singer")
add("Accuracy", lambda: ms.Accuracy(C, top_k=2),
    lambda t, p: skm.top_k_accuracy_score(t, p, k=2, labels=LABELS), (MC_T, MC_PROBA),
    id="top-2")
add("Accuracy", lambda: ms.Accuracy(C, top_k=3, weighted=True),
    lambda t, p, sample_weight: skm.top_k_accuracy_score(t, p, k=3, labels=LABELS,
                                                         sample_weight=sample_weight),
    (MC_T, MC_PROBA), WEIGHTED, id="top-3-weighted")
# TorchMetrics' calibration error (integer weights as repeated rows: it has none); its
# multiclass confidences are float32 whatever the input dtype
W_INT = rng.integers(0, 4, N).astype(np.float64)
add("CalibrationError", lambda: ms.CalibrationError(10),
    lambda t, p: tm_calibration_error(t, p, n_bins=10), (BIN_T, BIN_SCORE), id="binary")
add("CalibrationError", lambda: ms.CalibrationError(10, "l2", C),
    lambda t, p, sample_weight: tm_calibration_error(t, p, n_bins=10, norm="l2",
                                                     sample_weight=sample_weight),
    (MC_T, MC_PROBA), {"sample_weight": W_INT}, id="multiclass-weighted", rtol=1e-6, **PROBA)

# -- ranking ------------------------------------------------------------------------------
add("AUROC", lambda: ms.AUROC(capacity=N, weighted=True), skm.roc_auc_score,
    (BIN_T, BIN_TIED), WEIGHTED, id="exact-ties-weighted")
add("AUROC", lambda: ms.AUROC(num_classes=C, average="macro", capacity=N),
    lambda t, p: skm.roc_auc_score(t, p, multi_class="ovr", labels=LABELS),
    (MC_T, MC_PROBA), id="exact-multiclass", **PROBA)
add("AUROC", lambda: ms.AUROC(thresholds=THRESHOLDS),
    lambda t, s: skm.roc_auc_score(t, binned(s)), (BIN_T, BIN_SCORE), id="binned")
add("AveragePrecision", lambda: ms.AveragePrecision(capacity=N), skm.average_precision_score,
    (BIN_T, BIN_TIED), id="exact-ties")
# binary labels {1, 2}: scikit-learn's roc_auc_score takes the greater as positive; the
# stream takes the declared pos_label, in both modes (once the curve came out inverted)
add("AUROC", lambda: ms.AUROC(capacity=N, pos_label=2), skm.roc_auc_score,
    (BIN_T + 1, BIN_TIED), id="exact-labels-1-2")
add("AUROC", lambda: ms.AUROC(thresholds=THRESHOLDS, pos_label=2),
    lambda t, s: skm.roc_auc_score(t, binned(s)), (BIN_T + 1, BIN_SCORE), id="binned-labels-1-2")
add("AveragePrecision", lambda: ms.AveragePrecision(thresholds=THRESHOLDS, pos_label=2),
    lambda t, s: skm.average_precision_score(t, binned(s), pos_label=2), (BIN_T + 1, BIN_SCORE),
    id="binned-labels-1-2")
# binary labels {-1, 1}: 1 is the positive class (scikit-learn's rule), declared
add("AUROC", lambda: ms.AUROC(capacity=N, pos_label=1), skm.roc_auc_score,
    (2 * BIN_T - 1, BIN_TIED), id="exact-labels-minus1-1")
add("AveragePrecision", lambda: ms.AveragePrecision(capacity=N, pos_label=1),
    skm.average_precision_score, (2 * BIN_T - 1, BIN_TIED), id="exact-labels-minus1-1")
add("AveragePrecision",
    lambda: ms.AveragePrecision(num_labels=3, average="micro", capacity=N),
    lambda t, s: skm.average_precision_score(t, s, average="micro"), (ML_T, ML_SCORE),
    id="exact-multilabel-micro")
add("AveragePrecision", lambda: ms.AveragePrecision(thresholds=THRESHOLDS, weighted=True),
    lambda t, s, sample_weight: skm.average_precision_score(t, binned(s),
                                                            sample_weight=sample_weight),
    (BIN_T, BIN_SCORE), WEIGHTED, id="binned-weighted")

# -- supervised clustering: the label counts as a contingency table --------------------
for _name, _ref, _kw in (
        ("RandScore", skm.rand_score, {}),
        ("AdjustedRandScore", skm.adjusted_rand_score, {}),
        ("MutualInfoScore", skm.mutual_info_score, {}),
        ("NormalizedMutualInfoScore", skm.normalized_mutual_info_score,
         {"average_method": "geometric"}),
        ("AdjustedMutualInfoScore", skm.adjusted_mutual_info_score, {}),
        ("HomogeneityScore", skm.homogeneity_score, {}),
        ("CompletenessScore", skm.completeness_score, {}),
        ("VMeasureScore", skm.v_measure_score, {"beta": 2.0}),
        ("FowlkesMallowsIndex", skm.fowlkes_mallows_score, {})):
    add(_name, (lambda name, kw: lambda: getattr(ms, name)(C, C + 1, **kw))(_name, _kw),
        (lambda ref, kw: lambda t, p: ref(t, p, **kw))(_ref, _kw), (MC_T, MC_P),
        atol=1e-12)
# the operating points: TorchMetrics' binary functions (float32 rates) are the reference,
# exact (thresholds=None) and binned with the same thresholds
for _cls, _fn in (("RecallAtFixedPrecision", "recall_at_fixed_precision"),
                  ("PrecisionAtFixedRecall", "precision_at_fixed_recall"),
                  ("SensitivityAtSpecificity", "sensitivity_at_specificity"),
                  ("SpecificityAtSensitivity", "specificity_at_sensitivity")):
    _ref = torchmetrics_point(_fn)
    _min = {OPERATING_POINTS[_fn]: 0.61}
    add(_cls, lambda c=_cls: getattr(ms, c)(0.61, capacity=N),
        lambda t, s, r=_ref, m=_min: r(t, s, **m), (BIN_T, BIN_TIED), id="exact-ties",
        **TM_TOL)
    add(_cls, lambda c=_cls: getattr(ms, c)(0.61, thresholds=THRESHOLDS),
        lambda t, s, r=_ref, m=_min: r(t, s, thresholds=THRESHOLDS, **m), (BIN_T, BIN_SCORE),
        id="binned", **TM_TOL)

# -- regression ---------------------------------------------------------------------------
add("MeanSquaredError", ms.MeanSquaredError, skm.mean_squared_error, (Y, Y_PRED))
add("RootMeanSquaredError", lambda: ms.RootMeanSquaredError(num_outputs=2,
                                                            multioutput="raw_values"),
    lambda t, p: skm.root_mean_squared_error(t, p, multioutput="raw_values"), (Y2, Y2_PRED),
    id="raw_values")
add("MeanAbsoluteError", ms.MeanAbsoluteError, skm.mean_absolute_error, (Y, Y_PRED),
    WEIGHTED, id="weighted")
add("MeanAbsolutePercentageError", ms.MeanAbsolutePercentageError,
    skm.mean_absolute_percentage_error, (Y, Y_PRED))
add("MeanSquaredLogError", ms.MeanSquaredLogError, skm.mean_squared_log_error, (Y, Y_PRED),
    WEIGHTED, id="weighted")
add("RootMeanSquaredLogError", ms.RootMeanSquaredLogError,
    skm.root_mean_squared_log_error, (Y, Y_PRED))
add("R2Score", lambda: ms.R2Score(num_outputs=2, multioutput="variance_weighted"),
    lambda t, p, sample_weight: skm.r2_score(t, p, multioutput="variance_weighted",
                                             sample_weight=sample_weight),
    (Y2, Y2_PRED), WEIGHTED, id="variance_weighted")
add("R2Score", ms.R2Score, skm.r2_score, (Y, Y_PRED), id="merged", call=merged)
add("ExplainedVariance", ms.ExplainedVariance, skm.explained_variance_score, (Y, Y_PRED),
    WEIGHTED, id="weighted")
add("MedianAbsoluteError", lambda: ms.MedianAbsoluteError(capacity=N),
    skm.median_absolute_error, (Y, Y_PRED))
add("MaxError", ms.MaxError, skm.max_error, (Y, Y_PRED))
add("MeanPoissonDeviance", ms.MeanPoissonDeviance, skm.mean_poisson_deviance, (Y, Y_PRED),
    WEIGHTED, id="weighted")
add("MeanGammaDeviance", ms.MeanGammaDeviance, skm.mean_gamma_deviance, (Y, Y_PRED))
add("MeanTweedieDeviance", lambda: ms.MeanTweedieDeviance(power=1.5),
    lambda t, p, sample_weight: skm.mean_tweedie_deviance(t, p, power=1.5,
                                                          sample_weight=sample_weight),
    (Y, Y_PRED), WEIGHTED, id="power-1.5")
add("MeanPinballLoss", lambda: ms.MeanPinballLoss(num_outputs=2, alpha=0.9,
                                                  multioutput="raw_values"),
    lambda t, p: skm.mean_pinball_loss(t, p, alpha=0.9, multioutput="raw_values"),
    (Y2, Y2_PRED), id="raw_values")
add("D2TweedieScore", lambda: ms.D2TweedieScore(power=1.5),
    lambda t, p, sample_weight: skm.d2_tweedie_score(t, p, power=1.5,
                                                     sample_weight=sample_weight),
    (Y, Y_PRED), WEIGHTED, id="power-1.5-weighted")
add("D2TweedieScore", ms.D2TweedieScore, skm.d2_tweedie_score, (Y, Y_PRED), id="power-0")
add("D2PinballScore", lambda: ms.D2PinballScore(capacity=N, num_outputs=2, alpha=0.9,
                                                multioutput="raw_values"),
    lambda t, p: skm.d2_pinball_score(t, p, alpha=0.9, multioutput="raw_values"),
    (Y2, Y2_PRED), id="raw_values")
add("D2AbsoluteErrorScore", lambda: ms.D2AbsoluteErrorScore(capacity=N),
    skm.d2_absolute_error_score, (Y, Y_PRED), WEIGHTED, id="weighted")

# -- correlations and perplexity (SciPy and a float64 NumPy reference) ---------------------
from scipy import stats as _stats  # noqa: E402

CORR_T = rng.normal(size=N) * 2 + 1
CORR_P = 0.5 * CORR_T + rng.normal(size=N)
CORR_T2 = rng.normal(size=(N, 2))
CORR_P2 = CORR_T2 * [1.0, -0.3] + rng.normal(size=(N, 2))
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, W)
TOKENS = rng.integers(0, 7, (N, 5))
TOKENS[::3, -2:] = -100                         # padding, left out with ignore_index
LOGITS = rng.normal(size=(N, 5, 7)) * 2


def _per_column(fn):
    def ref(t, p):
        if t.ndim == 1:
            return float(fn(t, p)[0])
        return np.array([fn(t[:, j], p[:, j])[0] for j in range(t.shape[1])])
    return ref


def _weighted_pearson(t, p, sample_weight):
    c = np.cov(t, p, aweights=sample_weight)
    return float(c[0, 1] / np.sqrt(c[0, 0] * c[1, 1]))


def _perplexity(ignore_index=None):
    """exp of the mean negative log-likelihood of the counted tokens (float64)."""
    def ref(y, logits):
        lse = np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1)) + logits.max(-1)
        keep = np.ones(y.shape, bool) if ignore_index is None else y != ignore_index
        safe = np.where(keep, y, 0)
        nll = lse - np.take_along_axis(logits, safe[..., None], -1)[..., 0]
        return float(np.exp(nll[keep].mean()))
    return ref


add("PearsonCorrCoef", ms.PearsonCorrCoef, _per_column(_stats.pearsonr), (CORR_T, CORR_P))
add("PearsonCorrCoef", ms.PearsonCorrCoef, _weighted_pearson, (CORR_T, CORR_P),
    {"sample_weight": W_ZEROS}, id="zero-weights")
add("PearsonCorrCoef", lambda: ms.PearsonCorrCoef(num_outputs=2), _per_column(_stats.pearsonr),
    (CORR_T2, CORR_P2), id="multioutput")
add("SpearmanCorrCoef", lambda: ms.SpearmanCorrCoef(N), _per_column(_stats.spearmanr),
    (np.round(CORR_T), np.round(CORR_P)), id="ties")
add("SpearmanCorrCoef", lambda: ms.SpearmanCorrCoef(N, num_outputs=2),
    _per_column(_stats.spearmanr), (CORR_T2, CORR_P2), id="multioutput")
add("Perplexity", ms.Perplexity, _perplexity(), (np.where(TOKENS < 0, 1, TOKENS), LOGITS))
add("Perplexity", lambda: ms.Perplexity(ignore_index=-100), _perplexity(-100), (TOKENS, LOGITS),
    id="ignore-index")

# -- retrieval with query ids (TorchMetrics' Retrieval*: the reference) --------------------
RET_Q = rng.integers(0, 9, N)                       # 9 queries, rows split over the batches
RET_S = rng.permutation(N) / 8.0 - 4.0              # distinct, exact in float16; some <= 0
RET_Y = (rng.random(N) < 0.3).astype(np.int64)
RET_Y[RET_Q == 2] = 0                               # a query with no relevant row
RET_G = rng.integers(0, 4, N)                       # graded relevance (nDCG)
RET_G[RET_Q == 2] = 0


def _tm_retrieval(name, **kw):
    """TorchMetrics' ``Retrieval<name>`` on all the rows (scores in float32, as it casts)."""
    def ref(y_true, y_pred, indexes):
        import torch
        from torchmetrics import retrieval

        m = getattr(retrieval, name)(**kw)
        m.update(torch.from_numpy(np.asarray(y_pred, dtype=np.float32)),
                 torch.from_numpy(np.asarray(y_true)),
                 indexes=torch.from_numpy(np.asarray(indexes, dtype=np.int64)))
        return float(m.compute())
    return ref


add("RetrievalNormalizedDCG", lambda: ms.RetrievalNormalizedDCG(N, top_k=5),
    _tm_retrieval("RetrievalNormalizedDCG", top_k=5), (RET_G, RET_S, RET_Q), id="graded",
    **TM_TOL)
add("RetrievalNormalizedDCG", lambda: ms.RetrievalNormalizedDCG(N),
    _tm_retrieval("RetrievalNormalizedDCG"), (RET_G, np.round(RET_S), RET_Q), id="ties",
    **TM_TOL)
add("RetrievalMAP", lambda: ms.RetrievalMAP(N, empty_target_action="skip"),
    _tm_retrieval("RetrievalMAP", empty_target_action="skip"), (RET_Y, RET_S, RET_Q),
    id="skip", **TM_TOL)
add("RetrievalMRR", lambda: ms.RetrievalMRR(N, top_k=3, empty_target_action="pos"),
    _tm_retrieval("RetrievalMRR", top_k=3, empty_target_action="pos"), (RET_Y, RET_S, RET_Q),
    id="top3-pos", **TM_TOL)
add("RetrievalPrecision", lambda: ms.RetrievalPrecision(N, top_k=12, adaptive_k=True),
    _tm_retrieval("RetrievalPrecision", top_k=12, adaptive_k=True), (RET_Y, RET_S, RET_Q),
    id="adaptive", **TM_TOL)
add("RetrievalRecall", lambda: ms.RetrievalRecall(N, top_k=4, ignore_index=-1),
    _tm_retrieval("RetrievalRecall", top_k=4, ignore_index=-1),
    (np.where(RET_S > 4.5, -1, RET_Y), RET_S, RET_Q), id="ignore-index", **TM_TOL)
add("RetrievalHitRate", lambda: ms.RetrievalHitRate(N, top_k=2, empty_target_action="skip"),
    _tm_retrieval("RetrievalHitRate", top_k=2, empty_target_action="skip"),
    (RET_Y, RET_S, RET_Q), id="top2-skip", **TM_TOL)
