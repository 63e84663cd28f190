"""Conformance rows: the confusion-matrix family (issue: foundation)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261202)

N = 60
MC_T = rng.integers(0, 4, N)
MC_P = np.where(rng.random(N) < 0.6, MC_T, rng.integers(0, 4, N))
BIN_T = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN_T, 1 - BIN_T)
W = rng.random(N)
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, rng.random(N))
NEG_T = MC_T * 7 - 10          # negative, sparse integer labels
NEG_P = MC_P * 7 - 10
ABSENT_P = np.where(MC_P == 3, 0, MC_P)        # class 3 never predicted
ONLY_PRED_P = np.where(MC_P == 2, 5, MC_P)      # class 5 only in y_pred
CONST_P = np.zeros(N, dtype=np.int64)           # constant prediction
STR = np.array(["cat", "dog", "pig", "emu"])
STR_T, STR_P = STR[MC_T], STR[MC_P]
FLOAT_T, FLOAT_P = MC_T.astype(np.float64), MC_P.astype(np.float64)
ML_T = (rng.random((N, 5)) < 0.4).astype(np.int64)
ML_P = (rng.random((N, 5)) < 0.4).astype(np.int64)
ML_T[:, 4] = 0                                  # a label with no true samples
ML_P[:3] = 0                                    # samples with no predicted label
ONE_T, ONE_P = np.array([2]), np.array([2])
BIG_T = rng.integers(0, 300, 2000)              # many classes: counts path
BIG_P = np.where(rng.random(2000) < 0.5, BIG_T, rng.integers(0, 300, 2000))

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


# -- confusion_matrix -------------------------------------------------------
cm = skm.confusion_matrix
add("confusion_matrix", cm, (MC_T, MC_P), id="multiclass")
add("confusion_matrix", cm, (BIN_T, BIN_P), {"sample_weight": W}, id="binary-weighted")
add("confusion_matrix", cm, (MC_T, MC_P), {"labels": [3, 0, 2]}, id="labels-subset-order")
add("confusion_matrix", cm, (MC_T, MC_P), {"labels": [0, 1, 2, 3, 9]}, id="labels-absent")
add("confusion_matrix", cm, (NEG_T, NEG_P), id="negative-sparse")
add("confusion_matrix", cm, (MC_T, ONLY_PRED_P), id="class-only-in-pred")
add("confusion_matrix", cm, (MC_T, CONST_P), id="constant-pred")
add("confusion_matrix", cm, (STR_T, STR_P), {"labels": ["pig", "cat"]}, id="strings")
add("confusion_matrix", cm, (FLOAT_T, FLOAT_P), id="float-labels")
for norm in ("true", "pred", "all"):
    add("confusion_matrix", cm, (MC_T, ABSENT_P), {"normalize": norm, "sample_weight": W},
        id=f"normalize-{norm}")
add("confusion_matrix", cm, (ONE_T, ONE_P), id="one-sample")
add("confusion_matrix", cm, (MC_T, MC_P), {"labels": [7, 8]}, id="labels-no-overlap")
add("confusion_matrix", cm, (ML_T, ML_P), id="multilabel-error")
add("confusion_matrix", cm, (MC_T, MC_P.astype(np.float64) + 0.5), id="continuous-error")
add("confusion_matrix", cm, (MC_T, MC_P[:-1]), id="length-error")

# -- multilabel_confusion_matrix ------------------------------------------
mcm = skm.multilabel_confusion_matrix
add("multilabel_confusion_matrix", mcm, (MC_T, MC_P), id="multiclass")
add("multilabel_confusion_matrix", mcm, (MC_T, MC_P), {"labels": [3, 1, 8]}, id="labels")
add("multilabel_confusion_matrix", mcm, (ML_T, ML_P), {"sample_weight": W}, id="multilabel-w")
add("multilabel_confusion_matrix", mcm, (ML_T, ML_P), {"samplewise": True}, id="samplewise")
add("multilabel_confusion_matrix", mcm, (ML_T, ML_P), {"labels": [4, 0]}, id="ml-labels")
add("multilabel_confusion_matrix", mcm, (MC_T, MC_P), {"samplewise": True},
    id="samplewise-error")

# -- accuracy_score -------------------------------------------------------
acc = skm.accuracy_score
add("accuracy_score", acc, (MC_T, MC_P), id="multiclass")
add("accuracy_score", acc, (MC_T, MC_P), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("accuracy_score", acc, (MC_T, MC_P), {"normalize": False}, id="count")
add("accuracy_score", acc, (ML_T, ML_P), id="subset")
add("accuracy_score", acc, (STR_T, STR_P), id="strings")
add("accuracy_score", acc, (ONE_T, ONE_P), id="one-sample")
add("accuracy_score", acc, (ML_T, MC_P), id="mix-error")

# -- precision / recall / F ------------------------------------------------
AVGS = (None, "micro", "macro", "weighted")
inputs = {
    "multiclass": (MC_T, MC_P),
    "negative": (NEG_T, NEG_P),
    "absent-pred": (MC_T, ABSENT_P),
    "only-in-pred": (MC_T, ONLY_PRED_P),
    "constant": (MC_T, CONST_P),
    "strings": (STR_T, STR_P),
    "many-classes": (BIG_T, BIG_P),
}
for name, (t, p) in inputs.items():
    for avg in AVGS:
        add("precision_recall_fscore_support", skm.precision_recall_fscore_support, (t, p),
            {"average": avg}, id=f"{name}-{avg}")
for avg in AVGS:
    add("f1_score", skm.f1_score, (MC_T, ABSENT_P), {"average": avg, "sample_weight": W},
        id=f"weighted-{avg}")
    add("precision_score", skm.precision_score, (MC_T, ONLY_PRED_P),
        {"average": avg, "labels": [5, 0, 1, 9]}, id=f"labels-{avg}")
    add("recall_score", skm.recall_score, (ML_T, ML_P), {"average": avg}, id=f"ml-{avg}")
    add("fbeta_score", skm.fbeta_score, (ML_T, ML_P),
        {"average": avg, "beta": 0.5, "sample_weight": W}, id=f"ml-w-{avg}")
for zd in (0.0, 1.0, np.nan, "warn"):
    add("precision_recall_fscore_support", skm.precision_recall_fscore_support,
        (MC_T, ABSENT_P), {"average": "macro", "zero_division": zd, "labels": [0, 1, 2, 3, 6]},
        id=f"zero-division-{zd}")
    add("f1_score", skm.f1_score, (ML_T, ML_P), {"average": "samples", "zero_division": zd},
        id=f"samples-zd-{zd}")
add("f1_score", skm.f1_score, (BIN_T, BIN_P), id="binary")
add("f1_score", skm.f1_score, (BIN_T, BIN_P), {"pos_label": 0, "sample_weight": W},
    id="binary-pos0")
add("precision_score", skm.precision_score, (STR[BIN_T], STR[BIN_P]), {"pos_label": "dog"},
    id="binary-strings")
add("recall_score", skm.recall_score, (BIN_T, np.zeros(N, dtype=np.int64)), id="binary-none-pred")
add("f1_score", skm.f1_score, (BIN_T, BIN_P), {"pos_label": 3}, id="bad-pos-label")
add("f1_score", skm.f1_score, (MC_T, MC_P), id="binary-on-multiclass-error")
add("f1_score", skm.f1_score, (MC_T, MC_P), {"average": "macro", "pos_label": 2},
    id="pos-label-ignored-warning")
add("f1_score", skm.f1_score, (MC_T, MC_P), {"average": "samples"}, id="samples-error")
add("f1_score", skm.f1_score, (MC_T, MC_P), {"average": "bogus"}, id="average-error")
add("fbeta_score", skm.fbeta_score, (MC_T, MC_P), {"beta": 0, "average": "macro"}, id="beta0")
add("fbeta_score", skm.fbeta_score, (MC_T, MC_P), {"beta": np.inf, "average": "macro"},
    id="beta-inf")
add("fbeta_score", skm.fbeta_score, (MC_T, MC_P), {"beta": -1.0, "average": "macro"},
    id="beta-error")
add("f1_score", skm.f1_score, (ONE_T, ONE_P), {"average": "macro"}, id="one-sample")
add("f1_score", skm.f1_score, (FLOAT_T, FLOAT_P), {"average": "weighted"}, id="float-labels")
add("f1_score", skm.f1_score, (MC_T, MC_P), {"average": "macro", "labels": [7, 8]},
    id="labels-no-overlap")
add("precision_recall_fscore_support", skm.precision_recall_fscore_support,
    (ML_T, ML_P), {"average": None, "sample_weight": W}, id="ml-none-weighted")
add("f1_score", skm.f1_score, (np.array([0.0, np.nan, 1.0]), np.array([0, 1, 1])),
    id="nan-error")
add("f1_score", skm.f1_score, (STR_T, MC_P), {"average": "macro"}, id="str-int-mix-error",
    skip={"numpy-f32": "same as numpy-f64"})
# a class whose samples all weigh 0 is still a class (shapes and macro averages)
W_CLASS3_ZERO = np.where(MC_T == 3, 0.0, W)
add("precision_recall_fscore_support", skm.precision_recall_fscore_support, (MC_T, ABSENT_P),
    {"average": None, "sample_weight": W_CLASS3_ZERO, "zero_division": 0.0},
    id="zero-weight-class")
add("confusion_matrix", cm, (MC_T, ABSENT_P), {"sample_weight": W_CLASS3_ZERO},
    id="zero-weight-class")
