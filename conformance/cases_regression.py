"""Conformance rows: the regression family (issue 6).

Realistic and nasty inputs for every metric: 1-D and 2-D targets, sample
weights with zeros, custom output weights, ties for the medians and
quantiles, constant ``y_true`` (the ``force_finite`` branches), one sample,
integer targets, a large mean in float32, and the errors scikit-learn raises
(rows whose reference raises: metrix must raise the same type).
"""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from conformance.registry import Case

rng = np.random.default_rng(20260606)

N = 64
Y1 = rng.normal(size=N) * 3 + 1
P1 = Y1 + rng.normal(size=N)
Y2 = rng.normal(size=(N, 3)) * [1.0, 5.0, 0.5] + [0.0, 2.0, -1.0]
P2 = Y2 + rng.normal(size=(N, 3)) * [0.5, 3.0, 0.1]
W = rng.random(N)
W_ZEROS = np.where(rng.random(N) < 0.35, 0.0, rng.integers(1, 4, N).astype(float))
W_ZEROS[-3:] = 0.0                      # trailing zero weights after the sort, likely
W_INT = rng.integers(0, 3, N)
# ties: small integers, so residuals repeat and the medians land on block edges
YT_TIE = rng.integers(0, 5, N).astype(float)
PT_TIE = rng.integers(0, 5, N).astype(float)
YT_TIE2 = rng.integers(0, 4, (N, 2)).astype(float)
PT_TIE2 = rng.integers(0, 4, (N, 2)).astype(float)
Y_EVEN, P_EVEN = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 0.0, 0.0, 0.0])
# positive targets for the log / Poisson / gamma / Tweedie domains
YPOS = rng.gamma(2.0, size=N) + 0.05
PPOS = YPOS * np.exp(rng.normal(size=N) * 0.3)
YNN = np.where(rng.random(N) < 0.3, 0.0, YPOS)          # zeros allowed (Poisson)
YPOS2 = rng.gamma(2.0, size=(N, 2)) + 0.05
PPOS2 = YPOS2 * np.exp(rng.normal(size=(N, 2)) * 0.3)
# constant y_true: exact means (3.0, 2.5) so the variance is exactly zero
YC = np.full(N, 3.0)
YC2 = np.stack([np.full(N, 2.5), Y1], axis=1)
PC2 = np.stack([np.full(N, 2.5), P1], axis=1)            # perfect on the constant one
PC2_OFF = np.stack([P1, P1], axis=1)
# integers, single sample, large mean
YI, PI = rng.integers(0, 10, N), rng.integers(0, 10, N)
ONE_T, ONE_P = np.array([1.5]), np.array([2.0])
BIG_T = 1e4 + rng.normal(size=N) * 0.5
BIG_P = BIG_T + rng.normal(size=N) * 0.2
MO_W = np.array([0.2, 0.3, 0.5])

CASES: list[Case] = []


def add(metric, args, kw=None, id="", ref=None, **extra):
    CASES.append(Case(metric, ref or getattr(skm, metric), args, dict(kw or {}), id=id,
                      **extra))


def common(metric, *, positive=False, variance=False, weights=True):
    """Rows every multioutput metric gets."""
    y1, p1 = (YPOS, PPOS) if positive else (Y1, P1)
    y2, p2 = (YPOS2, PPOS2) if positive else (Y2[:, :2], P2[:, :2])
    y3, p3 = (np.concatenate([YPOS2, YPOS[:, None]], 1),
              np.concatenate([PPOS2, PPOS[:, None]], 1)) if positive else (Y2, P2)
    add(metric, (y1, p1), id="1d")
    add(metric, (y1, p1), {"multioutput": "raw_values"}, id="1d-raw")
    add(metric, (y3, p3), id="2d")
    add(metric, (y3, p3), {"multioutput": "raw_values"}, id="2d-raw")
    add(metric, (y3, p3), {"multioutput": MO_W}, id="2d-custom")
    add(metric, (y2, p2), {"multioutput": [1.0, -0.5]}, id="2d-custom-negative")
    add(metric, (y1[:, None], p1[:, None]), id="column")
    if weights:
        add(metric, (y1, p1), {"sample_weight": W}, id="weighted")
        add(metric, (y3, p3), {"sample_weight": W_ZEROS, "multioutput": "raw_values"},
            id="zero-weights-raw")
        add(metric, (y1, p1), {"sample_weight": W_INT}, id="int-weights")
        add(metric, (y1, p1), {"sample_weight": np.zeros(N)}, id="all-zero-weights-error")
        add(metric, (y1, p1), {"sample_weight": W[:-1]}, id="weight-length-error")
    if variance:
        add(metric, (y3, p3), {"multioutput": "variance_weighted"}, id="variance-weighted")
        add(metric, (y3, p3), {"multioutput": "variance_weighted", "sample_weight": W},
            id="variance-weighted-weighted")
    else:
        add(metric, (y3, p3), {"multioutput": "variance_weighted"}, id="variance-error")
    add(metric, (y3, p3[:, :2]), id="outputs-error")
    add(metric, (y3, p3), {"multioutput": [0.5, 0.5]}, id="custom-length-error")
    add(metric, (y1, p1), {"multioutput": [1.0]}, id="custom-single-output-error")
    add(metric, (y1, p1), {"multioutput": "sum"}, id="multioutput-name-error")
    add(metric, (y1, p1[:-1]), id="length-error")
    add(metric, (y1[:, None, None], p1[:, None, None]), id="3d-error")
    add(metric, (np.where(np.arange(N) == 5, np.nan, y1), p1), id="nan-error")
    add(metric, (y1, np.where(np.arange(N) == 7, np.inf, p1)), id="inf-error")
    add(metric, (ONE_T + 2, ONE_P + 2), id="one-sample", check_warnings="message")


# -- mean errors -------------------------------------------------------------
for m in ("mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
          "mean_absolute_percentage_error", "mean_pinball_loss"):
    common(m)
    add(m, (YI, PI), id="int")
    add(m, (BIG_T, BIG_P), id="large-mean")
for m in ("mean_squared_log_error", "root_mean_squared_log_error"):
    common(m, positive=True)
    add(m, (YNN, PPOS), {"sample_weight": W}, id="zeros")
    add(m, (YI, PI), id="int")
    add(m, (np.where(np.arange(N) == 3, -1.0, YPOS), PPOS), id="domain-true-error")
    add(m, (YPOS, np.where(np.arange(N) == 3, -2.0, PPOS)), id="domain-pred-error")
    add(m, (YPOS - 0.5, PPOS), id="between-minus-one-and-zero")
add("mean_absolute_percentage_error", (YNN, PPOS), id="zero-true")
for a in (0.0, 0.1, 0.9, 1.0):
    add("mean_pinball_loss", (Y2, P2), {"alpha": a, "sample_weight": W_ZEROS},
        id=f"alpha-{a}")
add("mean_pinball_loss", (Y1, P1), {"alpha": 1.5}, id="alpha-error")
add("mean_pinball_loss", (YT_TIE, PT_TIE), {"alpha": 0.25}, id="ties")

# -- max_error -------------------------------------------------------------
add("max_error", (Y1, P1), id="1d")
add("max_error", (Y1[:, None], P1[:, None]), id="column")
add("max_error", (YI, PI), id="int")
add("max_error", (ONE_T, ONE_P), id="one-sample")
add("max_error", (Y2, P2), id="multioutput-error")
add("max_error", (Y1, P1[:-1]), id="length-error")
add("max_error", (np.where(np.arange(N) == 5, np.nan, Y1), P1), id="nan-error")

# -- median ----------------------------------------------------------------
MED = "median_absolute_error"
common(MED)
add(MED, (YT_TIE, PT_TIE), id="ties")
add(MED, (YT_TIE, PT_TIE), {"sample_weight": W_INT.astype(float)}, id="ties-int-weights")
add(MED, (YT_TIE, PT_TIE), {"sample_weight": W_ZEROS}, id="ties-zero-weights")
add(MED, (YT_TIE2, PT_TIE2), {"sample_weight": W_ZEROS, "multioutput": "raw_values"},
    id="ties-2d-zero-weights")
add(MED, (YT_TIE2, PT_TIE2), {"multioutput": "raw_values"}, id="ties-2d")
add(MED, (Y_EVEN, P_EVEN), id="even-count")
add(MED, (Y_EVEN, P_EVEN), {"sample_weight": np.array([1.0, 1.0, 0.0, 2.0])},
    id="even-zero-weight-next")
add(MED, (Y_EVEN, P_EVEN), {"sample_weight": np.array([1.0, 1.0, 0.0, 0.0])},
    id="trailing-zero-weights")
add(MED, (Y_EVEN, P_EVEN), {"sample_weight": np.array([0.0, 0.0, 1.0, 1.0])},
    id="leading-zero-weights")
add(MED, (YI, PI), id="int")

# -- explained variance, r2 ------------------------------------------------
for m in ("explained_variance_score", "r2_score"):
    common(m, variance=True)
    add(m, (BIG_T, BIG_P), id="large-mean")
    add(m, (YI, PI), id="int")
    for ff in (True, False):
        add(m, (YC, YC), {"force_finite": ff}, id=f"constant-perfect-ff{ff}")
        add(m, (YC, P1), {"force_finite": ff}, id=f"constant-off-ff{ff}")
        add(m, (YC2, PC2), {"force_finite": ff, "multioutput": "raw_values"},
            id=f"constant-column-raw-ff{ff}")
        add(m, (YC2, PC2_OFF), {"force_finite": ff, "multioutput": "variance_weighted"},
            id=f"constant-column-vw-ff{ff}")
        add(m, (np.stack([YC, YC], 1), PC2_OFF),
            {"force_finite": ff, "multioutput": "variance_weighted"},
            id=f"all-constant-vw-ff{ff}")
        add(m, (YC2, PC2_OFF), {"force_finite": ff, "multioutput": MO_W[:2]},
            id=f"constant-column-custom-ff{ff}")
add("r2_score", (Y2, P2), {"multioutput": None}, id="multioutput-none")
add("r2_score", (ONE_T, ONE_P), {"sample_weight": np.array([2.0])}, id="one-sample-weighted")
add("r2_score", (Y2[:1], P2[:1]), {"multioutput": "raw_values"}, id="one-sample-2d")

# -- deviances ---------------------------------------------------------------
for m in ("mean_tweedie_deviance", "d2_tweedie_score"):
    for p in (-1.0, 0, 1, 1.5, 2, 3):
        add(m, (YPOS, PPOS), {"power": p}, id=f"power{p}")
        add(m, (YPOS, PPOS), {"power": p, "sample_weight": W_ZEROS}, id=f"power{p}-weighted")
    add(m, (Y1, PPOS), {"power": -1.0}, id="negative-power-any-y")
    add(m, (YNN, PPOS), {"power": 1.5}, id="compound-zeros")
    add(m, (YPOS, PPOS), {"power": 0.5}, id="power-error")
    add(m, (YPOS, -PPOS), {"power": -1.0}, id="domain-neg-power-error")
    add(m, (-YPOS, PPOS), {"power": 1.5}, id="domain-compound-error")
    add(m, (YNN, PPOS), {"power": 2}, id="domain-gamma-zero-error")
    add(m, (YPOS, PPOS - 1.0), {"power": 3}, id="domain-pred-error")
    add(m, (YPOS2, PPOS2), {"power": 1}, id="multioutput-error")
    add(m, (YPOS, PPOS[:-1]), id="length-error")
    add(m, (YPOS[:, None], PPOS[:, None]), {"power": 1}, id="column")
    add(m, (ONE_T, ONE_P), {"power": 1}, id="one-sample")
for m in ("mean_poisson_deviance",):
    add(m, (YNN, PPOS), id="zeros")
    add(m, (YNN, PPOS), {"sample_weight": W}, id="weighted")
    add(m, (-YPOS, PPOS), id="domain-error")
    add(m, (YPOS, np.zeros(N)), id="domain-pred-error")
    add(m, (YI, PI + 1), id="int")
for m in ("mean_gamma_deviance",):
    add(m, (YPOS, PPOS), id="positive")
    add(m, (YPOS, PPOS), {"sample_weight": W_ZEROS}, id="weighted")
    add(m, (YNN, PPOS), id="domain-error")
add("d2_tweedie_score", (YC, PPOS), {"power": 1}, id="constant-true-error")
add("d2_tweedie_score", (YC, PPOS), {"power": 0}, id="constant-true-normal-error")

# -- d2 pinball / absolute error ---------------------------------------------
for m in ("d2_pinball_score", "d2_absolute_error_score"):
    common(m)
    add(m, (YT_TIE, PT_TIE), id="ties")
    add(m, (YT_TIE2, PT_TIE2), {"sample_weight": W_ZEROS, "multioutput": "raw_values"},
        id="ties-2d-zero-weights")
    add(m, (YC2, PC2), {"multioutput": "raw_values"}, id="constant-column")
    add(m, (YC2, PC2_OFF), {"multioutput": "raw_values"}, id="constant-column-off")
    add(m, (YI, PI), id="int")
for a in (0.0, 0.1, 0.25, 0.9, 1.0):
    add("d2_pinball_score", (YT_TIE, PT_TIE), {"alpha": a}, id=f"ties-alpha-{a}")
    add("d2_pinball_score", (Y2, P2), {"alpha": a, "sample_weight": W_INT.astype(float)},
        id=f"alpha-{a}-weighted")
add("d2_pinball_score", (Y1, P1), {"alpha": -0.1}, id="alpha-error")

# -- inputs scikit-learn refuses -----------------------------------------------
add("mean_squared_error", (np.array(["a", "b", "c"]), np.array([1.0, 2.0, 3.0])),
    id="strings-error")
add("mean_squared_error", (np.zeros(0), np.zeros(0)), id="empty-error")
add("r2_score", (Y1, P1), {"force_finite": "yes"}, id="force-finite-error")
