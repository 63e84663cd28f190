"""Conformance rows: metrics read off the confusion matrix (issue 4)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261204)

N = 80
MC_T = rng.integers(0, 4, N)
MC_P = np.where(rng.random(N) < 0.6, MC_T, rng.integers(0, 4, N))
BIN_T = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN_T, 1 - BIN_T)
W = rng.random(N)
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, rng.random(N))
W_INT = rng.integers(0, 4, N)
NEG_T, NEG_P = MC_T * 7 - 10, MC_P * 7 - 10
ABSENT_P = np.where(MC_P == 3, 0, MC_P)            # class 3 never predicted
ONLY_PRED_P = np.where(MC_P == 2, 5, MC_P)          # class 5 only in y_pred
CONST_P = np.zeros(N, dtype=np.int64)
TIES_T = np.repeat([0, 1], N // 2)                  # perfectly balanced, ties
STR = np.array(["cat", "dog", "pig", "emu"])
STR_T, STR_P = STR[MC_T], STR[MC_P]
FLOAT_T, FLOAT_P = MC_T.astype(np.float64), MC_P.astype(np.float64)
ML_T = (rng.random((N, 5)) < 0.4).astype(np.int64)
ML_P = (rng.random((N, 5)) < 0.4).astype(np.int64)
ML_T[:, 4] = 0
ML_P[:3] = 0
ONE_T, ONE_P = np.array([2]), np.array([2])
BIG_T = rng.integers(0, 300, 2000)
BIG_P = np.where(rng.random(2000) < 0.5, BIG_T, rng.integers(0, 300, 2000))
ORD_T = rng.integers(0, 5, N)                       # ordinal ratings for weighted kappa
ORD_P = np.clip(ORD_T + rng.integers(-1, 2, N), 0, 4)

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


COMMON = {
    "multiclass": (MC_T, MC_P),
    "binary": (BIN_T, BIN_P),
    "negative": (NEG_T, NEG_P),
    "absent-pred": (MC_T, ABSENT_P),
    "only-in-pred": (MC_T, ONLY_PRED_P),
    "constant": (MC_T, CONST_P),
    "strings": (STR_T, STR_P),
    "float-labels": (FLOAT_T, FLOAT_P),
    "many-classes": (BIG_T, BIG_P),
    "one-sample": (ONE_T, ONE_P),
}

# -- jaccard_score ----------------------------------------------------------
jac = skm.jaccard_score
for name in ("multiclass", "absent-pred", "only-in-pred", "constant", "strings",
             "many-classes", "negative"):
    for avg in (None, "micro", "macro", "weighted"):
        add("jaccard_score", jac, COMMON[name], {"average": avg}, id=f"{name}-{avg}")
add("jaccard_score", jac, (BIN_T, BIN_P), id="binary")
add("jaccard_score", jac, (BIN_T, BIN_P), {"pos_label": 0, "sample_weight": W}, id="binary-pos0")
add("jaccard_score", jac, (STR[BIN_T], STR[BIN_P]), {"pos_label": "dog"}, id="binary-str")
add("jaccard_score", jac, (BIN_T, CONST_P), {"pos_label": 1}, id="binary-no-pred")
for avg in (None, "micro", "macro", "weighted", "samples"):
    add("jaccard_score", jac, (ML_T, ML_P), {"average": avg}, id=f"ml-{avg}")
    add("jaccard_score", jac, (ML_T, ML_P), {"average": avg, "sample_weight": W},
        id=f"ml-w-{avg}")
for zd in (0.0, 1.0, "warn"):
    add("jaccard_score", jac, (MC_T, ABSENT_P),
        {"average": "macro", "zero_division": zd, "labels": [0, 1, 2, 3, 6]}, id=f"zd-{zd}")
    add("jaccard_score", jac, (ML_T, ML_P), {"average": "samples", "zero_division": zd},
        id=f"ml-samples-zd-{zd}")
add("jaccard_score", jac, (MC_T, MC_P), {"average": "weighted", "sample_weight": W_ZEROS},
    id="weights-zeros")
add("jaccard_score", jac, (MC_T, MC_P), {"average": None, "labels": [3, 1, 9]}, id="labels")
add("jaccard_score", jac, (MC_T, MC_P), id="binary-on-multiclass-error")
add("jaccard_score", jac, (MC_T, MC_P), {"average": "samples"}, id="samples-error")
add("jaccard_score", jac, (MC_T, MC_P), {"average": "macro", "zero_division": np.nan},
    id="zd-nan-error")
add("jaccard_score", jac, (MC_T, MC_P), {"average": "macro", "pos_label": 2},
    id="pos-label-ignored")

# -- balanced_accuracy_score -------------------------------------------------
ba = skm.balanced_accuracy_score
for name, (t, p) in COMMON.items():
    add("balanced_accuracy_score", ba, (t, p), id=name)
    add("balanced_accuracy_score", ba, (t, p), {"adjusted": True}, id=f"{name}-adjusted",
        check_warnings="message" if name != "one-sample" else "off")
add("balanced_accuracy_score", ba, (MC_T, MC_P), {"sample_weight": W}, id="weighted")
add("balanced_accuracy_score", ba, (MC_T, MC_P), {"sample_weight": W_ZEROS, "adjusted": True},
    id="weights-zeros-adjusted")
add("balanced_accuracy_score", ba, (TIES_T, CONST_P), id="ties-constant")
add("balanced_accuracy_score", ba, (ML_T, ML_P), id="multilabel-error")
add("balanced_accuracy_score", ba, (MC_T, MC_P[:-1]), id="length-error")

# -- matthews_corrcoef ---------------------------------------------------------
mcc = skm.matthews_corrcoef
for name, (t, p) in COMMON.items():
    add("matthews_corrcoef", mcc, (t, p), id=name)
add("matthews_corrcoef", mcc, (MC_T, MC_P), {"sample_weight": W}, id="weighted")
add("matthews_corrcoef", mcc, (BIN_T, BIN_P), {"sample_weight": W_ZEROS}, id="binary-w-zeros")
add("matthews_corrcoef", mcc, (BIN_T, BIN_P), {"sample_weight": W_INT}, id="int-weights")
add("matthews_corrcoef", mcc, (BIN_T, 1 - BIN_T), id="inverse")
add("matthews_corrcoef", mcc, (TIES_T, CONST_P), id="constant-undefined")
add("matthews_corrcoef", mcc, (ML_T, ML_P), id="multilabel-error")
add("matthews_corrcoef", mcc, (MC_T, MC_P + 0.5), id="continuous-error")

# -- cohen_kappa_score ----------------------------------------------------------
kap = skm.cohen_kappa_score
for name, (t, p) in COMMON.items():
    for wt in (None, "linear", "quadratic"):
        add("cohen_kappa_score", kap, (t, p), {"weights": wt}, id=f"{name}-{wt}")
for wt in (None, "linear", "quadratic"):
    add("cohen_kappa_score", kap, (ORD_T, ORD_P), {"weights": wt, "sample_weight": W},
        id=f"ordinal-w-{wt}")
    add("cohen_kappa_score", kap, (ORD_T, ORD_P), {"weights": wt, "labels": [4, 0, 2, 9]},
        id=f"ordinal-labels-{wt}")
add("cohen_kappa_score", kap, (MC_T, MC_P), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("cohen_kappa_score", kap, (MC_T, CONST_P), {"labels": [0]}, id="one-label-undefined")
add("cohen_kappa_score", kap, (MC_T, CONST_P),
    {"labels": [0], "replace_undefined_by": 0.0}, id="undefined-replaced")
add("cohen_kappa_score", kap, (np.array([0, 0, 1, 1]), np.array([5, 5, 5, 5])),
    {"labels": [0, 1]}, id="y2-no-labels-undefined")
add("cohen_kappa_score", kap, (MC_T, MC_P), {"labels": [7, 8]}, id="labels-absent-error")
add("cohen_kappa_score", kap, (MC_T, MC_P), {"labels": []}, id="labels-empty-error")
add("cohen_kappa_score", kap, (MC_T, MC_P), {"weights": "cubic"}, id="weights-error")
add("cohen_kappa_score", kap, (ML_T, ML_P), id="multilabel-error")

# -- hamming_loss / zero_one_loss ------------------------------------------------
for metric, ref in (("hamming_loss", skm.hamming_loss), ("zero_one_loss", skm.zero_one_loss)):
    for name in ("multiclass", "binary", "strings", "one-sample", "constant"):
        add(metric, ref, COMMON[name], id=name)
    add(metric, ref, (MC_T, MC_P), {"sample_weight": W}, id="weighted")
    add(metric, ref, (MC_T, MC_P), {"sample_weight": W_ZEROS}, id="weights-zeros")
    add(metric, ref, (ML_T, ML_P), id="multilabel")
    add(metric, ref, (ML_T, ML_P), {"sample_weight": W}, id="multilabel-weighted")
    add(metric, ref, (ML_T, MC_P), id="mix-error")
    add(metric, ref, (MC_T, MC_P[:-2]), id="length-error")
for norm in (True, False):
    add("zero_one_loss", skm.zero_one_loss, (MC_T, MC_P), {"normalize": norm,
                                                           "sample_weight": W},
        id=f"normalize-{norm}")
    add("zero_one_loss", skm.zero_one_loss, (ML_T, ML_P), {"normalize": norm},
        id=f"ml-normalize-{norm}")

# -- class_likelihood_ratios ------------------------------------------------------
clr = skm.class_likelihood_ratios
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), id="binary")
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), {"sample_weight": W}, id="weighted")
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), {"labels": [1, 0]}, id="labels-swapped")
add("class_likelihood_ratios", clr, (STR[BIN_T], STR[BIN_P]), id="strings")
add("class_likelihood_ratios", clr, (BIN_T, BIN_T), id="perfect")               # fp = 0, fn = 0
add("class_likelihood_ratios", clr, (BIN_T, np.zeros(N, dtype=np.int64)), id="no-pos-pred")
add("class_likelihood_ratios", clr, (BIN_T, np.ones(N, dtype=np.int64)), id="all-pos-pred")
add("class_likelihood_ratios", clr, (np.zeros(N, dtype=np.int64), BIN_P),
    {"labels": [0, 1]}, id="no-positive-class")
for rep in (1.0, {"LR+": 10.0, "LR-": 0.5}, {"LR+": np.inf, "LR-": np.nan}):
    add("class_likelihood_ratios", clr, (BIN_T, BIN_T), {"replace_undefined_by": rep},
        id=f"perfect-replace-{rep}")
    add("class_likelihood_ratios", clr, (BIN_T, np.zeros(N, dtype=np.int64)),
        {"replace_undefined_by": rep}, id=f"no-pos-pred-replace-{rep}")
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), {"replace_undefined_by": 0.5},
    id="replace-error")
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), {"replace_undefined_by": {"LR+": 0.1,
                                                                              "LR-": 0.5}},
    id="replace-dict-error")
add("class_likelihood_ratios", clr, (MC_T, MC_P), id="multiclass-error")
add("class_likelihood_ratios", clr, (np.zeros(N, dtype=np.int64),) * 2, id="one-class-error")
add("class_likelihood_ratios", clr, (BIN_T, BIN_P), {"labels": [0, 1, 2]},
    id="three-labels-error")
