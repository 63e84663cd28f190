"""Conformance rows: classification_report, text (byte for byte) and dict (issue 4)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261206)

N = 90
MC_T = rng.integers(0, 4, N)
MC_P = np.where(rng.random(N) < 0.6, MC_T, rng.integers(0, 4, N))
BIN_T = rng.integers(0, 2, N)
BIN_P = np.where(rng.random(N) < 0.7, BIN_T, 1 - BIN_T)
W = rng.random(N)
W_INT = rng.integers(0, 3, N)
STR = np.array(["setosa", "versicolor", "virginica", "x"])
STR_T, STR_P = STR[MC_T], STR[MC_P]
ML_T = (rng.random((N, 4)) < 0.4).astype(np.int64)
ML_P = (rng.random((N, 4)) < 0.4).astype(np.int64)
ML_T[:, 3] = 0
ML_P[:4] = 0
ABSENT_P = np.where(MC_P == 3, 0, MC_P)
BIG_T = rng.integers(0, 12, 400)
BIG_P = np.where(rng.random(400) < 0.5, BIG_T, rng.integers(0, 12, 400))
NAMES = ["alpha", "beta", "gamma", "a much longer class name"]
NO_F64 = {"strict-nofloat64-f32": "weighted supports are printed in full: float32 sums differ",
          "jax-cpu-f32": "weighted supports are printed in full: float32 sums differ"}
ORDER = {c: "array-api-strict's generic bincount (sort + cumulative sum) adds weights in "
            "another order: last-bit differences in the full-precision weighted supports"
         for c in ("strict-cpu-f64", "strict-device1-f64")}
DIGITS = {c: "a float32-only device rounds 7 digits (and printed ties) differently"
          for c in ("strict-nofloat64-f32", "jax-cpu-f32")}
ML_ORDER = {c: "scikit-learn sums multilabel weights through a sparse matrix product: the "
               "order shows in the last printed bit of full-precision supports"
            for c in ("torch-cpu-f64", "torch-cpu-f32", "jax-cpu-x64")}

CASES: list[Case] = []
rep = skm.classification_report


def add(args, kw=None, id="", text_skip=None, **extra):
    kw = dict(kw or {})
    CASES.append(Case("classification_report", rep, args, kw, id=id,
                      **dict(extra, skip={**extra.get("skip", {}), **(text_skip or {})})))
    kw_d = dict(kw, output_dict=True)
    CASES.append(Case("classification_report", rep, args, kw_d, id=f"{id}-dict", **extra))


add((MC_T, MC_P), id="multiclass")
add((BIN_T, BIN_P), id="binary")
add((STR_T, STR_P), id="strings")
add((STR_T, STR_P), {"labels": ["virginica", "setosa"],
                     "target_names": ["Iris virginica", "Iris setosa"]}, id="string-labels")
add((MC_T, MC_P), {"target_names": NAMES}, id="target-names")
add((MC_T, MC_P), {"labels": [3, 1]}, id="labels-subset-micro")
add((MC_T, ABSENT_P), {"labels": [0, 1, 2, 3, 7]}, id="labels-absent")
add((MC_T, MC_P), {"labels": [0, 1, 2, 3]}, id="labels-all-accuracy")
for d in (0, 1, 4, 7):
    add((MC_T, MC_P), {"digits": d}, id=f"digits-{d}",
        text_skip=DIGITS if d in (1, 7) else None)
for zd in (0.0, 1.0, np.nan, "warn"):
    add((MC_T, ABSENT_P), {"zero_division": zd, "labels": [0, 1, 2, 3, 6]}, id=f"zd-{zd}")
add((MC_T, MC_P), {"sample_weight": W}, id="weighted", skip=NO_F64, text_skip=ORDER)
add((MC_T, MC_P), {"sample_weight": W, "labels": [2, 0, 9]}, id="weighted-labels",
    skip=NO_F64, text_skip=ORDER)
add((MC_T, MC_P), {"sample_weight": W_INT}, id="int-weights", skip=NO_F64, text_skip=ORDER)
add((ML_T, ML_P), id="multilabel", text_skip=DIGITS)
add((ML_T, ML_P), {"sample_weight": W}, id="multilabel-weighted", skip=NO_F64,
    text_skip={**ORDER, **ML_ORDER})
add((ML_T, ML_P), {"labels": [2, 0], "target_names": ["two", "zero"]}, id="multilabel-labels")
add((MC_T.astype(np.float64), MC_P.astype(np.float64)), id="float-labels")
add((MC_T * 5 - 7, MC_P * 5 - 7), id="negative-labels")
add((MC_T, np.zeros(N, dtype=np.int64)), id="constant-pred")
add((np.array([3]), np.array([3])), id="one-sample")
add((BIG_T, BIG_P), {"digits": 3}, id="twelve-classes")
add((MC_T, MC_P), {"labels": [0, 1, 2], "target_names": ["a", "b"]}, id="names-short-warning")
add((MC_T, MC_P), {"target_names": ["a", "b"]}, id="names-mismatch-error")
add((MC_T, MC_P), {"digits": -1}, id="digits-error")
add((MC_T, MC_P[:-1]), id="length-error")
add((ML_T, MC_P), id="mix-error")
