"""Conformance rows: the ranking family (curves, AUC, AP, top-k, DCG, label ranking)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261205)

N = 80
BIN = rng.integers(0, 2, N)
SCORE = rng.random(N)
TIED = np.round(SCORE * 5) / 5                      # heavy ties
CONST = np.full(N, 0.25)
W = rng.random(N) + 0.1
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, rng.random(N))
ALL_POS = np.ones(N, dtype=np.int64)
ALL_NEG = np.zeros(N, dtype=np.int64)
PM1 = BIN * 2 - 1                                   # {-1, 1}
STR = np.array(["neg", "pos"])[BIN]
MIX_STR = np.array(["a", "b", "c"])[rng.integers(0, 3, N)]

C = 4
MC = rng.integers(0, C, N)
MC_SCORE = rng.random((N, C))
MC_SCORE = MC_SCORE / MC_SCORE.sum(axis=1, keepdims=True)
MC_TIED = np.round(MC_SCORE * 4) / 4
MC_TIED = MC_TIED / MC_TIED.sum(axis=1, keepdims=True)
MC_TIED = np.where(MC_TIED.sum(axis=1, keepdims=True) > 0, MC_TIED, 1.0 / C)
MC_ABSENT = np.where(MC == 3, 0, MC)                # class 3 absent from y_true
MC_STR = np.array(["ant", "bee", "cat", "dog"])[MC]
NOT_PROBA = MC_SCORE * 2

ML = (rng.random((N, C)) < 0.4).astype(np.int64)
ML_ZERO_COL = ML.copy()
ML_ZERO_COL[:, 2] = 0                               # a label with no positives
ML_SCORE = np.round(rng.random((N, C)), 1)
REL = rng.integers(0, 4, (N, 6)).astype(np.float64)
REL_SCORE = rng.random((N, 6))
REL_TIED = np.round(REL_SCORE * 3) / 3

L = 6
LR_T = (rng.random((N, L)) < 0.35).astype(np.int64)
LR_T[0] = 0                                         # no relevant label
LR_T[1] = 1                                         # every label relevant
LR_S = np.round(rng.random((N, L)), 1)              # ties inside rows

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


# -- roc_auc_score --------------------------------------------------------------
ra = skm.roc_auc_score
add("roc_auc_score", ra, (BIN, SCORE), id="binary")
add("roc_auc_score", ra, (BIN, TIED), id="ties")
add("roc_auc_score", ra, (BIN, CONST), id="constant")
add("roc_auc_score", ra, (BIN, TIED), {"sample_weight": W}, id="weighted")
add("roc_auc_score", ra, (BIN, TIED), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("roc_auc_score", ra, (PM1, SCORE), id="pm1")
add("roc_auc_score", ra, (STR, SCORE), id="strings")
add("roc_auc_score", ra, (ALL_POS, SCORE), id="all-positive")
add("roc_auc_score", ra, (ALL_NEG, SCORE), id="all-negative")
for m in (0.1, 0.37, 1.0):
    add("roc_auc_score", ra, (BIN, TIED), {"max_fpr": m}, id=f"max_fpr-{m}")
add("roc_auc_score", ra, (BIN, SCORE), {"max_fpr": 0.5, "sample_weight": W},
    id="max_fpr-weighted")
add("roc_auc_score", ra, (BIN, SCORE), {"max_fpr": 0.0}, id="max_fpr-error")
for avg in ("macro", "weighted", None, "micro"):
    add("roc_auc_score", ra, (MC, MC_TIED), {"multi_class": "ovr", "average": avg},
        id=f"ovr-{avg}")
    add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovr", "average": avg,
                                              "sample_weight": W_ZEROS}, id=f"ovr-{avg}-w")
for avg in ("macro", "weighted"):
    add("roc_auc_score", ra, (MC, MC_TIED), {"multi_class": "ovo", "average": avg},
        id=f"ovo-{avg}")
    add("roc_auc_score", ra, (MC_ABSENT, MC_SCORE),
        {"multi_class": "ovo", "average": avg, "labels": [0, 1, 2, 3]}, id=f"ovo-absent-{avg}")
add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovr", "labels": [0, 1, 2, 3]},
    id="ovr-labels")
add("roc_auc_score", ra, (MC_ABSENT, MC_SCORE),
    {"multi_class": "ovr", "labels": [0, 1, 2, 3], "average": None}, id="ovr-absent-class")
add("roc_auc_score", ra, (MC_STR, MC_SCORE), {"multi_class": "ovr"}, id="ovr-strings")
add("roc_auc_score", ra, (MC_STR, MC_SCORE), {"multi_class": "ovo"}, id="ovo-strings")
add("roc_auc_score", ra, (MC, MC_SCORE), id="multiclass-raise-error")
add("roc_auc_score", ra, (MC, NOT_PROBA), {"multi_class": "ovr"}, id="not-proba-error")
add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovr", "max_fpr": 0.5},
    id="multiclass-max_fpr-error")
add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovo", "sample_weight": W},
    id="ovo-weight-error")
add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovr", "labels": [0, 2, 1, 3]},
    id="labels-unordered-error")
add("roc_auc_score", ra, (MC, MC_SCORE), {"multi_class": "ovr", "labels": [0, 1, 2]},
    id="labels-count-error")
add("roc_auc_score", ra, (MC, MC_SCORE[:, :3]), {"multi_class": "ovr"}, id="columns-error")
for avg in ("macro", "weighted", None, "micro", "samples"):
    add("roc_auc_score", ra, (ML, ML_SCORE), {"average": avg}, id=f"multilabel-{avg}")
    add("roc_auc_score", ra, (ML_ZERO_COL, ML_SCORE), {"average": avg, "sample_weight": W},
        id=f"multilabel-zero-col-{avg}")
add("roc_auc_score", ra, (BIN, np.where(BIN == 1, np.nan, SCORE)), id="nan-error")
add("roc_auc_score", ra, (BIN, np.where(BIN == 1, np.inf, SCORE)), id="inf-error")
add("roc_auc_score", ra, (BIN, SCORE[:-1]), id="length-error")
add("roc_auc_score", ra, (BIN.astype(np.float64) + 0.5, SCORE), id="continuous-error")

# -- average_precision_score ------------------------------------------------------
ap = skm.average_precision_score
add("average_precision_score", ap, (BIN, SCORE), id="binary")
add("average_precision_score", ap, (BIN, TIED), id="ties")
add("average_precision_score", ap, (BIN, CONST), id="constant")
add("average_precision_score", ap, (BIN, TIED), {"sample_weight": W}, id="weighted")
add("average_precision_score", ap, (BIN, TIED), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("average_precision_score", ap, (ALL_NEG, SCORE), id="all-negative")
add("average_precision_score", ap, (ALL_POS, SCORE), id="all-positive")
add("average_precision_score", ap, (BIN, TIED), {"pos_label": 0}, id="pos_label-0")
add("average_precision_score", ap, (STR, SCORE), {"pos_label": "pos"}, id="strings")
add("average_precision_score", ap, (BIN, SCORE), {"pos_label": 3}, id="pos_label-error")
add("average_precision_score", ap, (ML, ML_SCORE), {"pos_label": 0}, id="ml-pos_label-error")
for avg in ("macro", "weighted", None, "micro", "samples"):
    add("average_precision_score", ap, (ML_ZERO_COL, ML_SCORE), {"average": avg},
        id=f"multilabel-{avg}")
    add("average_precision_score", ap, (ML, ML_SCORE), {"average": avg, "sample_weight": W},
        id=f"multilabel-{avg}-w")
    add("average_precision_score", ap, (MC, MC_TIED), {"average": avg}, id=f"multiclass-{avg}")
add("average_precision_score", ap, (MC_STR, MC_SCORE), id="multiclass-strings")
add("average_precision_score", ap, (MC, MC_SCORE[:, :3]), id="multiclass-shape-error")
add("average_precision_score", ap, (BIN, np.where(BIN == 1, np.nan, SCORE)), id="nan-error")

# -- curves -------------------------------------------------------------------------
for name, ref in (("roc_curve", skm.roc_curve),
                  ("precision_recall_curve", skm.precision_recall_curve),
                  ("det_curve", skm.det_curve)):
    add(name, ref, (BIN, SCORE), id="binary")
    add(name, ref, (BIN, TIED), id="ties")
    add(name, ref, (BIN, TIED), {"sample_weight": W_ZEROS}, id="weights-zeros")
    add(name, ref, (BIN, SCORE), {"sample_weight": W}, id="weighted")
    for drop in (True, False):
        add(name, ref, (BIN, TIED), {"drop_intermediate": drop}, id=f"drop-{drop}")
    add(name, ref, (BIN, CONST), id="constant")
    add(name, ref, (STR, SCORE), {"pos_label": "pos"}, id="strings")
    add(name, ref, (PM1, TIED), id="pm1")
    add(name, ref, (BIN, TIED), {"pos_label": 0}, id="pos_label-0")
    add(name, ref, (ALL_POS, SCORE), id="all-positive")
    add(name, ref, (ALL_NEG, SCORE), id="all-negative")
    add(name, ref, (STR, SCORE), id="strings-no-pos_label-error")
    add(name, ref, (MC, SCORE), id="multiclass-error")
    add(name, ref, (BIN, np.where(BIN == 1, np.nan, SCORE)), id="nan-error")

# -- operating points (TorchMetrics' binary functions are the reference) ----------------
#: metrix name -> the keyword of its least constraint
OPERATING_POINTS = {"recall_at_fixed_precision": "min_precision",
                    "precision_at_fixed_recall": "min_recall",
                    "sensitivity_at_specificity": "min_specificity",
                    "specificity_at_sensitivity": "min_sensitivity"}


def torchmetrics_point(name):
    """TorchMetrics' ``binary_<name>`` (same thresholds) as ``(value, threshold)``."""

    def reference(y_true, y_score, *, thresholds=None, sample_weight=None, **kw):
        import warnings

        import torch
        import torchmetrics.functional.classification as tmf

        assert sample_weight is None, "TorchMetrics' operating points take no weights"
        if isinstance(thresholds, np.ndarray):
            thresholds = thresholds.tolist()
        if not np.all(np.isfinite(y_score)):  # metrix's rule (scikit-learn's); TorchMetrics
            raise ValueError("Input y_score contains NaN or infinity.")  # takes NaN
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its warning for a class with no sample
            value, at = getattr(tmf, "binary_" + name)(
                torch.asarray(y_score), torch.asarray(y_true), kw[OPERATING_POINTS[name]],
                thresholds=thresholds)
        return np.float64(value), np.float64(at)

    reference.__name__ = f"torchmetrics_{name}"
    return reference


#: TorchMetrics' rates are float32; minima off the small fractions, for the same reason
TM_TOL = {"rtol": 1e-6, "atol": 1e-7, "check_warnings": "off"}
for name, arg in OPERATING_POINTS.items():
    ref = torchmetrics_point(name)
    for m in (0.0, 0.37, 0.73, 1.0):
        add(name, ref, (BIN, TIED), {arg: m}, id=f"exact-ties-{m}", **TM_TOL)
    add(name, ref, (BIN, SCORE), {arg: 0.61, "thresholds": 15}, id="binned", **TM_TOL)
    add(name, ref, (BIN, SCORE), {arg: 0.61, "thresholds": np.array([0.15, 0.45, 0.8])},
        id="binned-edges", host_kwargs=("thresholds",), **TM_TOL)
    add(name, ref, (BIN, CONST), {arg: 0.5}, id="constant", **TM_TOL)
    add(name, ref, (BIN, np.where(BIN == 1, np.nan, SCORE)), {arg: 0.5}, id="nan-error",
        **TM_TOL)

# -- auc ------------------------------------------------------------------------------
_fpr, _tpr, _ = skm.roc_curve(BIN, TIED)
add("auc", skm.auc, (_fpr, _tpr), id="increasing")
add("auc", skm.auc, (_fpr[::-1].copy(), _tpr[::-1].copy()), id="decreasing")
add("auc", skm.auc, (np.array([0.0, 0.5, 0.2, 1.0]), np.array([0.0, 0.3, 0.6, 1.0])),
    id="non-monotonic-error")
add("auc", skm.auc, (np.array([0.5]), np.array([0.5])), id="one-point-error")

# -- top_k_accuracy_score -------------------------------------------------------------
tk = skm.top_k_accuracy_score
for k in (1, 2, 3):
    add("top_k_accuracy_score", tk, (MC, MC_TIED), {"k": k}, id=f"ties-k{k}")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 2, "sample_weight": W_ZEROS},
    id="weighted")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 2, "normalize": False}, id="count")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 2, "normalize": False,
                                                 "sample_weight": W}, id="count-weighted")
add("top_k_accuracy_score", tk, (MC_ABSENT, MC_SCORE), {"k": 2, "labels": [0, 1, 2, 3]},
    id="labels")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 4}, id="k-ge-classes")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 5}, id="k-gt-classes")
add("top_k_accuracy_score", tk, (MC_STR, MC_SCORE), {"k": 2}, id="strings")
add("top_k_accuracy_score", tk, (BIN, SCORE), {"k": 1}, id="binary-k1")
add("top_k_accuracy_score", tk, (BIN, SCORE * 4 - 2), {"k": 1}, id="binary-k1-logits")
add("top_k_accuracy_score", tk, (MC_ABSENT, MC_SCORE), {"k": 2}, id="classes-error")
add("top_k_accuracy_score", tk, (MC, MC_SCORE), {"k": 2, "labels": [0, 1, 1, 3]},
    id="labels-unique-error")
add("top_k_accuracy_score", tk, (MC, MC_SCORE[:, 0]), {"k": 2}, id="1d-score-error")

# -- dcg / ndcg -------------------------------------------------------------------------
for name, ref in (("dcg_score", skm.dcg_score), ("ndcg_score", skm.ndcg_score)):
    add(name, ref, (REL, REL_SCORE), id="plain")
    add(name, ref, (REL, REL_TIED), id="ties")
    add(name, ref, (REL, REL_TIED), {"k": 3}, id="ties-k3")
    add(name, ref, (REL, REL_SCORE), {"k": 2, "ignore_ties": True}, id="ignore-ties")
    add(name, ref, (REL, REL_TIED), {"sample_weight": W}, id="weighted")
    add(name, ref, (REL[:, :1].ravel(), REL_SCORE[:, :1].ravel()), id="1d-error")
add("dcg_score", skm.dcg_score, (REL, REL_TIED), {"log_base": 10}, id="log10")
add("ndcg_score", skm.ndcg_score, (REL - 1, REL_SCORE), id="negative-error")
add("ndcg_score", skm.ndcg_score, (np.vstack([REL[:2], np.zeros((1, 6))]), REL_SCORE[:3]),
    id="irrelevant-row")

# -- label ranking ------------------------------------------------------------------------
for name, ref in (("label_ranking_average_precision_score",
                   skm.label_ranking_average_precision_score),
                  ("coverage_error", skm.coverage_error),
                  ("label_ranking_loss", skm.label_ranking_loss)):
    add(name, ref, (LR_T, LR_S), id="ties")
    add(name, ref, (LR_T, LR_S), {"sample_weight": W_ZEROS}, id="weighted")
    add(name, ref, (LR_T, rng.random((N, L))), id="no-ties")
    add(name, ref, (LR_T, LR_S[:, :4]), id="shape-error")
    add(name, ref, (MC, MC_SCORE), id="multiclass-error")
