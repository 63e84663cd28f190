"""PNG plots of ``metrix eval --plots DIR`` (the ``metrix[plots]`` extra).

Each plot is a :mod:`metrix.display` class (scikit-learn's display, drawn by
matplotlib) built from the curve or the matrix that metrix computes on the
data's device (``roc_curve``, ``precision_recall_curve``, ``calibration_curve``,
``confusion_matrix``, weighted as the report where the function takes weights):
only those points move to the host, to be drawn.
"""

from __future__ import annotations

import importlib.util
import os

from .._core.namespace import to_host  # the displays draw on the host
from ._io import NotInstalled
from ._tasks import CALIBRATION_BINS

_INSTALL = "pip install 'metrix[plots]'"


def require():
    """Fail before the run (exit 3) when the displays cannot draw."""
    if importlib.util.find_spec("matplotlib") is None:
        raise NotInstalled(f"--plots needs matplotlib: {_INSTALL}")
    try:
        from .. import display  # noqa: F401  (imports scikit-learn)
    except ImportError as exc:
        raise NotInstalled(f"--plots draws with metrix.display, which needs scikit-learn "
                           f"({exc}): {_INSTALL}") from exc


def write(metrix, task, data, names, directory):
    """Draw the plots of ``task`` into ``directory`` (made if missing); their paths.

    ``names`` are the class names shown (``data.classes`` may be codes).
    """
    from .. import display

    os.makedirs(directory, exist_ok=True)
    draw = _Draw(metrix, display, _pyplot(), directory,
                 {} if data.sample_weight is None else {"sample_weight": data.sample_weight})
    out = []
    if task in ("binary", "multiclass") and data.y_pred is not None:
        out.append(draw.confusion(data, names))
    if task == "binary" and data.y_score is not None:
        pos = data.pos_label
        shown = names[data.classes.index(pos)] if pos in data.classes else pos
        # the report's reading: the score is P(y == pos_label), scored on y_pos (0/1)
        out += draw.binary(data.y_pos, data.y_score, shown)
    if task == "regression":
        out.append(draw.residuals(data.y_true, data.y_pred))
    return out


class _Draw:
    """The displays of one run, from metrix's numbers (weighted as the report)."""

    def __init__(self, metrix, display, plt, directory, weight):
        self.m, self.d, self.plt, self.dir, self.weight = metrix, display, plt, directory, weight

    def save(self, fig, name, title=None):
        if title:
            fig.axes[0].set_title(title)
        fig.tight_layout()
        path = os.path.join(self.dir, name + ".png")
        fig.savefig(path, dpi=100)
        self.plt.close(fig)
        return path

    def one(self, disp, name, title, **kwargs):
        fig, ax = self.plt.subplots(figsize=(5.5, 5.5))
        disp.plot(ax=ax, **kwargs)
        return self.save(fig, name, title)

    def confusion(self, data, names):
        cm = to_host(self.m.confusion_matrix(data.y_true, data.y_pred, labels=data.classes,
                                                **self.weight))
        side = 2 + 0.5 * len(names)
        fig, ax = self.plt.subplots(figsize=(side + 1, side))
        self.d.ConfusionMatrixDisplay(cm, display_labels=names).plot(
            ax=ax, cmap="Blues", xticks_rotation=45, include_values=len(names) <= 20,
            values_format=".4g" if cm.dtype.kind == "f" else None)  # weighted: 4 digits
        return self.save(fig, "confusion_matrix", "confusion matrix")

    def binary(self, y, s, shown):
        """ROC, precision-recall and reliability curves of 0/1 ``y`` and scores ``s``."""
        m, d, w = self.m, self.d, self.weight
        fpr, tpr, _ = (to_host(a) for a in m.roc_curve(y, s, pos_label=1, **w))
        roc = d.RocCurveDisplay(fpr=fpr, tpr=tpr, roc_auc=float(m.auc(fpr, tpr)),
                                pos_label=shown)
        precision, recall, _ = (to_host(a) for a in
                                m.precision_recall_curve(y, s, pos_label=1, **w))
        ap = float(to_host(m.average_precision_score(y, s, pos_label=1, **w)))
        # the curve's first point calls every sample positive: its precision is the prevalence
        pr = d.PrecisionRecallDisplay(precision, recall, average_precision=ap, pos_label=shown,
                                      prevalence_pos_label=float(precision[0]))
        # the reliability curve (calibration_curve's non-empty bins) with the report's
        # expected calibration error (calibration_error: the same bins and weights)
        prob_true, prob_pred = m.calibration_curve(y, s, n_bins=CALIBRATION_BINS)
        ece = float(to_host(m.calibration_error(y, s, n_bins=CALIBRATION_BINS, **w)))
        cal = d.CalibrationDisplay(to_host(prob_true), to_host(prob_pred), None,
                                   estimator_name=f"ECE = {ece:.4f} ({CALIBRATION_BINS} bins)",
                                   pos_label=shown)
        return [self.one(roc, "roc", "ROC curve", plot_chance_level=True),
                self.one(pr, "precision_recall", "precision-recall curve",
                         plot_chance_level=True),
                self.one(cal, "calibration", "calibration (reliability) curve")]

    def residuals(self, y_true, y_pred):
        y_true, y_pred = to_host(y_true), to_host(y_pred)  # one host copy, two panels
        fig, axes = self.plt.subplots(1, 2, figsize=(10, 4.5))
        for ax, kind in zip(axes, ("actual_vs_predicted", "residual_vs_predicted")):
            self.d.PredictionErrorDisplay.from_predictions(
                y_true, y_pred, kind=kind, subsample=20_000, random_state=0, ax=ax)
        return self.save(fig, "residuals")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt
