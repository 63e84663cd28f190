"""PNG plots of ``metrix eval --plots DIR`` (matplotlib, the ``metrix[plots]`` extra).

Curves come from metrix (``roc_curve``, ``precision_recall_curve``,
``calibration_curve``) and are moved to the host only to be drawn.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from ._io import NotInstalled
from ._report import host


def require_matplotlib():
    if importlib.util.find_spec("matplotlib") is None:
        raise NotInstalled("--plots needs matplotlib: pip install 'metrix[plots]'")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig, plt, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def confusion(cm, classes, path):
    plt = _pyplot()
    cm = np.asarray(host(cm), dtype=float)
    fig, ax = plt.subplots(figsize=(1.2 + 0.5 * len(classes), 1 + 0.5 * len(classes)))
    im = ax.imshow(cm, cmap="Blues")
    fig.colorbar(im, ax=ax)
    ticks = range(len(classes))
    ax.set_xticks(ticks, [str(c) for c in classes], rotation=45)
    ax.set_yticks(ticks, [str(c) for c in classes])
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title("confusion matrix")
    if len(classes) <= 20:
        hi = cm.max() if cm.size else 0
        for i in ticks:
            for j in ticks:
                ax.text(j, i, f"{cm[i, j]:g}", ha="center", va="center",
                        color="white" if cm[i, j] > hi / 2 else "black", fontsize=8)
    return _save(fig, plt, path)


def roc(fpr, tpr, auc, path):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot(np.asarray(host(fpr)), np.asarray(host(tpr)), label=f"AUC = {auc:.4f}")
    ax.plot([0, 1], [0, 1], "--", color="gray", lw=1)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC curve")
    ax.legend(loc="lower right")
    return _save(fig, plt, path)


def precision_recall(precision, recall, ap, path):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.step(np.asarray(host(recall)), np.asarray(host(precision)), where="post",
            label=f"AP = {ap:.4f}")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_ylim(0, 1.02)
    ax.set_title("precision-recall curve")
    ax.legend(loc="lower left")
    return _save(fig, plt, path)


def calibration(prob_true, prob_pred, error, path, *, n_bins):
    """Reliability curve (``metrix.calibration_curve``'s non-empty bins: mean predicted
    probability vs fraction of positives), with the expected calibration error
    (``metrix.calibration_error``, ``n_bins`` bins) in the title."""
    plt = _pyplot()
    prob_true = np.asarray(host(prob_true), dtype=float)
    prob_pred = np.asarray(host(prob_pred), dtype=float)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "--", color="gray", lw=1, label="perfectly calibrated")
    ax.plot(prob_pred, prob_true, "o-", label="model")
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("fraction of positives")
    ax.set_title(f"calibration (reliability) curve\nECE = {error:.4f} ({n_bins} bins)")
    ax.legend(loc="upper left")
    return _save(fig, plt, path)


def residuals(y_true, y_pred, path, *, max_points=20000):
    plt = _pyplot()
    yt = np.asarray(host(y_true), dtype=float)
    yp = np.asarray(host(y_pred), dtype=float)
    res = yt - yp
    step = max(1, yt.shape[0] // max_points)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.scatter(yp[::step], res[::step], s=4, alpha=0.5)
    a1.axhline(0, color="gray", lw=1)
    a1.set_xlabel("predicted")
    a1.set_ylabel("residual (true - predicted)")
    a1.set_title("residuals")
    a2.hist(res, bins=50)
    a2.set_xlabel("residual")
    a2.set_title("residual distribution")
    return _save(fig, plt, path)


def path_in(directory, name):
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, name)
