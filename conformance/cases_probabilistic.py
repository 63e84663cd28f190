"""Conformance rows: probabilistic metrics (issue 4)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20261205)

N = 70
BIN_T = rng.integers(0, 2, N)
P1 = np.clip(np.where(BIN_T == 1, rng.beta(4, 2, N), rng.beta(2, 4, N)), 0.001, 0.999)
MC_T = rng.integers(0, 3, N)
PM = rng.dirichlet([2.0, 2.0, 2.0], N)
PM = 0.6 * PM + 0.4 * np.eye(3)[MC_T] * 0.999 + 0.4 * 0.001 / 2 * (1 - np.eye(3)[MC_T])
PM = PM / PM.sum(axis=1, keepdims=True)
P4 = rng.dirichlet([2.0] * 4, N)                      # 4 columns: class 3 never in y_true
W = rng.random(N)
W_ZEROS = np.where(rng.random(N) < 0.3, 0.0, rng.random(N))
STR = np.array(["ham", "spam", "eggs"])
STR_BIN = STR[BIN_T]
STR_MC = STR[MC_T]                                     # sorted classes: eggs, ham, spam
PM_STR = PM[:, [2, 0, 1]]                              # columns in sorted class order
HARD = np.eye(3)[MC_T]                                 # probabilities exactly 0 / 1
HARD[:5] = np.eye(3)[(MC_T[:5] + 1) % 3]               # confidently wrong: clipped
UNNORM = PM * 1.2
PM2 = np.stack([1 - P1, P1], axis=1)
F32_EPS = {c: "clipping follows the input dtype's eps (float32 here, float64 in the "
              "float64 reference)"
           for c in ("numpy-f32", "strict-nofloat64-f32", "torch-cpu-f32", "jax-cpu-f32")}

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    extra.setdefault("float32_reference", False)
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


# -- log_loss ----------------------------------------------------------------
ll = skm.log_loss
add("log_loss", ll, (BIN_T, P1), id="binary-1d")
add("log_loss", ll, (BIN_T, P1[:, None]), id="binary-column")
add("log_loss", ll, (BIN_T, PM2), id="binary-2d")
add("log_loss", ll, (MC_T, PM), id="multiclass")
add("log_loss", ll, (MC_T, PM), {"sample_weight": W}, id="weighted")
add("log_loss", ll, (MC_T, PM), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("log_loss", ll, (MC_T, PM), {"normalize": False}, id="sum")
add("log_loss", ll, (MC_T, PM), {"normalize": False, "sample_weight": W}, id="sum-weighted")
add("log_loss", ll, (MC_T, P4), {"labels": [0, 1, 2, 3]}, id="labels-absent-class")
add("log_loss", ll, (MC_T, P4), {"labels": [3, 1, 0, 2]}, id="labels-unsorted-warning")
add("log_loss", ll, (MC_T * 10 - 5, PM), id="negative-sparse-labels")
add("log_loss", ll, (MC_T.astype(np.float64), PM), id="float-labels")
add("log_loss", ll, (STR_MC, PM_STR), id="strings")
add("log_loss", ll, (STR_BIN, P1), id="strings-binary")
add("log_loss", ll, (STR_MC, PM_STR), {"labels": ["eggs", "ham", "spam"]}, id="string-labels")
add("log_loss", ll, (np.array([1]), np.array([[0.3, 0.7]])), {"labels": [0, 1]},
    id="one-sample")
add("log_loss", ll, (np.zeros(N, dtype=np.int64), P1), {"labels": [0, 1]},
    id="single-class-labels")
add("log_loss", ll, (MC_T, HARD), id="hard-clipped", skip=F32_EPS)
add("log_loss", ll, (BIN_T, (BIN_T + (np.arange(N) < 4)) % 2 * 1.0), id="binary-clipped",
    skip=F32_EPS)
F32_SUM = {c: "the row-sum tolerance is sqrt(eps) of the input dtype: rows off by 1e-4 "
              "warn for float64 only, as in scikit-learn" for c in F32_EPS}
add("log_loss", ll, (MC_T, UNNORM / 1.2 * 1.0001), id="nearly-normalised", skip=F32_SUM)
add("log_loss", ll, (MC_T, PM * 0.9), id="not-normalised-warning")
add("log_loss", ll, (MC_T, PM * 1.2), id="greater-than-one-error")
add("log_loss", ll, (MC_T, PM - 0.5), id="negative-error")
add("log_loss", ll, (MC_T, np.where(np.arange(N)[:, None] == 3, np.nan, PM)), id="nan-error")
add("log_loss", ll, (np.zeros(N, dtype=np.int64), P1), id="single-class-error")
add("log_loss", ll, (MC_T, PM), {"labels": [1]}, id="one-label-error")
add("log_loss", ll, (MC_T, PM), {"labels": [0, 1, 5]}, id="y-not-in-labels-error")
add("log_loss", ll, (MC_T, P4), id="columns-error")
add("log_loss", ll, (MC_T, P4), {"labels": [0, 1, 2]}, id="columns-labels-error")
add("log_loss", ll, (MC_T, P1), id="1d-multiclass-error")
add("log_loss", ll, (MC_T, PM[:-1]), id="length-error")
add("log_loss", ll, (MC_T + 0.5, PM), id="continuous-error")

# -- brier_score_loss --------------------------------------------------------
bs = skm.brier_score_loss
add("brier_score_loss", bs, (BIN_T, P1), id="binary")
add("brier_score_loss", bs, (BIN_T, P1), {"sample_weight": W}, id="weighted")
add("brier_score_loss", bs, (BIN_T, P1), {"sample_weight": W_ZEROS}, id="weights-zeros")
add("brier_score_loss", bs, (BIN_T, 1 - P1), {"pos_label": 0}, id="pos-label-0")
add("brier_score_loss", bs, (2 * BIN_T - 1, P1), id="minus-one-one")
add("brier_score_loss", bs, (BIN_T + 1, P1), id="greater-label-fallback")
add("brier_score_loss", bs, (STR_BIN, P1), {"pos_label": "spam"}, id="strings")
add("brier_score_loss", bs, (BIN_T, P1 > 0.5), id="bool-proba")
add("brier_score_loss", bs, (BIN_T, P1[:, None]), id="column")
add("brier_score_loss", bs, (np.ones(N, dtype=np.int64), P1), id="single-class")
for sbh in (True, False, "auto"):
    add("brier_score_loss", bs, (BIN_T, P1), {"scale_by_half": sbh}, id=f"binary-scale-{sbh}")
    add("brier_score_loss", bs, (MC_T, PM), {"scale_by_half": sbh}, id=f"mc-scale-{sbh}")
add("brier_score_loss", bs, (BIN_T, PM2), id="binary-2d")
add("brier_score_loss", bs, (MC_T, PM), {"sample_weight": W}, id="mc-weighted")
add("brier_score_loss", bs, (MC_T, P4), {"labels": [0, 1, 2, 3]}, id="mc-labels")
add("brier_score_loss", bs, (STR_MC, PM_STR), id="mc-strings")
add("brier_score_loss", bs, (MC_T, HARD), id="mc-hard")
add("brier_score_loss", bs, (MC_T, PM * 0.9), id="mc-not-normalised-warning")
add("brier_score_loss", bs, (STR_BIN, P1), id="strings-no-pos-label-error")
add("brier_score_loss", bs, (MC_T, P1), id="1d-multiclass-error")
add("brier_score_loss", bs, (BIN_T, P1 + 0.5), id="range-error")
add("brier_score_loss", bs, (BIN_T, P1 - 0.5), id="negative-error")
add("brier_score_loss", bs, (BIN_T, np.where(np.arange(N) == 2, np.nan, P1)), id="nan-error")
add("brier_score_loss", bs, (MC_T, P4), id="mc-columns-error")
add("brier_score_loss", bs, (BIN_T, P1[:-1]), id="length-error")

# -- d2 scores ----------------------------------------------------------------
for metric, ref in (("d2_log_loss_score", skm.d2_log_loss_score),
                    ("d2_brier_score", skm.d2_brier_score)):
    add(metric, ref, (BIN_T, P1), id="binary")
    add(metric, ref, (MC_T, PM), id="multiclass")
    add(metric, ref, (MC_T, PM), {"sample_weight": W}, id="weighted")
    add(metric, ref, (MC_T, PM), {"sample_weight": W_ZEROS}, id="weights-zeros")
    add(metric, ref, (MC_T, P4), {"labels": [0, 1, 2, 3]}, id="labels-absent-class")
    add(metric, ref, (STR_MC, PM_STR), id="strings")
    add(metric, ref, (np.array([1]), np.array([0.7])), id="one-sample-nan")
    add(metric, ref, (MC_T, PM * 1.3), id="range-error")
    add(metric, ref, (MC_T, P4), id="columns-error")
add("d2_log_loss_score", skm.d2_log_loss_score, (MC_T, HARD), id="hard", skip=F32_EPS)
add("d2_brier_score", skm.d2_brier_score, (BIN_T, 1 - P1), {"pos_label": 0}, id="pos-label")

# -- hinge_loss ----------------------------------------------------------------
hl = skm.hinge_loss
DEC1 = P1 * 4 - 2
DECM = rng.normal(size=(N, 3)) + 2 * np.eye(3)[MC_T]
DEC4 = rng.normal(size=(N, 4))
add("hinge_loss", hl, (BIN_T, DEC1), id="binary-01")
add("hinge_loss", hl, (2 * BIN_T - 1, DEC1), id="binary-pm1")
add("hinge_loss", hl, (BIN_T, DEC1), {"sample_weight": W}, id="binary-weighted")
add("hinge_loss", hl, (STR_BIN, DEC1), id="binary-strings")
add("hinge_loss", hl, (BIN_T, np.round(DEC1).astype(np.int64)), id="int-decisions")
add("hinge_loss", hl, (np.ones(N, dtype=np.int64), DEC1), id="single-class")
add("hinge_loss", hl, (MC_T, DECM), id="multiclass")
add("hinge_loss", hl, (MC_T, DECM), {"sample_weight": W_ZEROS}, id="mc-weights-zeros")
add("hinge_loss", hl, (MC_T, DECM), {"labels": [2, 0, 1]}, id="mc-labels-unsorted")
add("hinge_loss", hl, (MC_T, DEC4), {"labels": [0, 1, 2, 3]}, id="mc-labels-absent")
add("hinge_loss", hl, (STR_MC, DECM), id="mc-strings")
add("hinge_loss", hl, (MC_T, DEC1), id="mc-1d-error")
add("hinge_loss", hl, (MC_T, DEC4), id="mc-columns-error")
add("hinge_loss", hl, (MC_T, DECM[:, :2]), {"labels": [0, 1, 2]}, id="mc-labels-columns-error")
add("hinge_loss", hl, (MC_T, DECM), {"labels": [0, 1, 5]}, id="unseen-label-error")
add("hinge_loss", hl, (MC_T, DECM[:-1]), id="length-error")
