"""Conformance rows: calibration (the reliability curve and the calibration error).

``calibration_curve`` against scikit-learn's ``sklearn.calibration.calibration_curve``;
``calibration_error`` against TorchMetrics' ``binary_calibration_error`` /
``multiclass_calibration_error`` (on float64 tensors; sample weights as
repeated rows, TorchMetrics having none).  The probabilities are continuous:
a value exactly on a bin edge is binned in its own dtype's edges (TorchMetrics'
rule), which the float32 combinations and the float64 reference do not share;
``tests/classification/test_calibration.py`` checks the edges dtype by dtype.
"""

from __future__ import annotations

import numpy as np
from sklearn.calibration import calibration_curve as sk_curve

from conformance.registry import Case

rng = np.random.default_rng(20261207)

N = 90
BIN_T = rng.integers(0, 2, N)
P1 = np.clip(np.where(BIN_T == 1, rng.beta(4, 2, N), rng.beta(2, 4, N)), 0.001, 0.999)
C = 4
MC_T = rng.integers(0, C, N)
PM = rng.dirichlet([1.0] * C, N)
W_INT = rng.integers(0, 4, N).astype(np.float64)       # zeros included
STR = np.array(["ham", "spam"])[BIN_T]
CONST = np.full(N, 0.5)

#: TorchMetrics' multiclass confidences are float32 (``.float()``) whatever the input dtype
MC_TOL = {"rtol": 1e-6}

CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


def _repeat(t, p, sample_weight):
    if sample_weight is None:
        return t, p
    k = sample_weight.astype(np.int64)
    return np.repeat(t, k), np.repeat(p, k, axis=0)


def tm_calibration_error(y_true, y_prob, *, n_bins=15, norm="l1", sample_weight=None,
                         pos_label=None):
    """TorchMetrics' value (integer weights as repeated rows)."""
    import torch
    from torchmetrics.functional.classification import (
        binary_calibration_error,
        multiclass_calibration_error,
    )

    if pos_label is not None:
        y_true = (y_true == pos_label).astype(np.int64)
    p = np.asarray(y_prob, dtype=np.float64)
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    t, p = _repeat(np.asarray(y_true), p, sample_weight)
    pt, tt = torch.from_numpy(p), torch.from_numpy(t.astype(np.int64))
    if p.ndim == 1:
        return float(binary_calibration_error(pt, tt, n_bins=n_bins, norm=norm))
    return float(multiclass_calibration_error(pt, tt, p.shape[1], n_bins=n_bins, norm=norm))


def torch_binned_calibration_error(y_pos, p, sample_weight=None, *, n_bins=15):
    """The binary expected calibration error with any sample weights, written out with
    torch's own binning (TorchMetrics' ``bucketize`` on ``torch.linspace`` edges) and
    TorchMetrics' formula: the reference where the weights are not integers."""
    import torch

    pt = torch.as_tensor(np.asarray(p, dtype=np.float64))
    w = torch.ones_like(pt) if sample_weight is None else torch.as_tensor(
        np.asarray(sample_weight, dtype=np.float64))
    acc = torch.as_tensor(np.asarray(y_pos, dtype=np.float64))
    edges = torch.linspace(0, 1, n_bins + 1, dtype=torch.float64)
    idx = torch.bucketize(pt, edges, right=True) - 1
    count = torch.zeros(n_bins + 1, dtype=torch.float64).index_add_(0, idx, w)
    conf = torch.zeros_like(count).index_add_(0, idx, w * pt)
    hits = torch.zeros_like(count).index_add_(0, idx, w * acc)
    safe = torch.where(count == 0, torch.ones_like(count), count)
    gap = torch.where(count == 0, torch.zeros_like(count), (hits - conf) / safe).abs()
    return float(torch.sum(gap * count / count.sum()))


# -- calibration_curve ------------------------------------------------------------------
for strategy in ("uniform", "quantile"):
    for n_bins in (1, 5, 10):
        add("calibration_curve", sk_curve, (BIN_T, P1), {"n_bins": n_bins, "strategy": strategy},
            id=f"{strategy}-{n_bins}")
add("calibration_curve", sk_curve, (BIN_T, CONST), {"strategy": "quantile"}, id="constant")
add("calibration_curve", sk_curve, (BIN_T * 2 - 1, P1), id="labels-minus1-1")
add("calibration_curve", sk_curve, (BIN_T, P1), {"pos_label": 0}, id="pos_label-0")
add("calibration_curve", sk_curve, (STR, P1), {"pos_label": "spam"}, id="strings")
add("calibration_curve", sk_curve, (STR, P1), id="strings-no-pos_label-error")
add("calibration_curve", sk_curve, (MC_T, P1), {"pos_label": 1}, id="multiclass-error")
add("calibration_curve", sk_curve, (BIN_T, P1 * 1.5), id="range-error")
add("calibration_curve", sk_curve, (BIN_T, P1[:-1]), id="length-error")
add("calibration_curve", sk_curve, (BIN_T, P1), {"n_bins": 0}, id="n_bins-error")
add("calibration_curve", sk_curve, (BIN_T, P1), {"strategy": "kmeans"}, id="strategy-error")

# -- calibration_error ------------------------------------------------------------------
for norm in ("l1", "l2", "max"):
    add("calibration_error", tm_calibration_error, (BIN_T, P1), {"norm": norm},
        id=f"binary-{norm}")
    add("calibration_error", tm_calibration_error, (MC_T, PM), {"norm": norm, "n_bins": 10},
        id=f"multiclass-{norm}", **MC_TOL)
add("calibration_error", tm_calibration_error, (BIN_T, P1),
    {"sample_weight": W_INT, "n_bins": 7}, id="binary-weights-zeros")
add("calibration_error", tm_calibration_error, (MC_T, PM),
    {"sample_weight": W_INT, "norm": "l2"}, id="multiclass-weighted", **MC_TOL)
add("calibration_error", tm_calibration_error, (BIN_T, P1[:, None]), id="binary-column")
add("calibration_error", tm_calibration_error, (STR, P1), {"pos_label": "spam"},
    id="strings")
add("calibration_error", tm_calibration_error, (BIN_T[:1], P1[:1]), id="one-sample")
add("calibration_error", tm_calibration_error, (BIN_T, CONST), id="constant")
