"""Tasks of ``metrix eval``: auto-detection and the default metrics of each task.

Every metric is a public ``metrix.<name>`` function, looked up when the
report runs: a metric that this install of metrix lacks is reported as
"not available" instead of failing the run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._io import BadData, UsageError

TASKS = ("auto", "binary", "multiclass", "multilabel", "regression", "ranking")


class Spec(NamedTuple):
    key: str            # the name in the report and the JSON
    name: str           # metrix function
    inputs: str         # "pred" (y_true, y_pred) or "score" (y_true, y_score)
    kwargs: dict
    interval: bool = True  # a scalar: bootstrap it
    shared: str | None = None  # its name in ``metrix.evaluate`` (one shared pass)


class Data(NamedTuple):
    y_true: object
    y_pred: object
    y_score: object
    sample_weight: object
    classes: list       # host class values in code order (label tasks), else []
    pos_label: object   # positive class (binary), else None


def host_classes(a: np.ndarray) -> list:
    """Sorted distinct values; integers by min/max and a presence bincount (no sort)."""
    if a.dtype.kind in "iubf":
        import array_api_compat.numpy as xp

        from .._labels import distinct_values

        return distinct_values(xp.asarray(a), xp=xp).tolist()
    return np.unique(a).tolist()


def _integral(a: np.ndarray) -> bool:
    if a.dtype.kind in "iub":
        return True
    if a.dtype.kind == "f":
        finite = a[np.isfinite(a)]
        return bool(np.all(finite == np.round(finite)))
    return True  # strings / objects: labels


def detect_task(y_true: np.ndarray, y_pred, y_score) -> str:
    """The task implied by host arrays (scikit-learn's ``type_of_target`` spirit)."""
    if y_true.ndim == 2:
        values = np.unique(y_true)
        if np.isin(values, [0, 1]).all() and y_pred is not None:
            return "multilabel"
        if y_pred is None and y_score is not None:
            return "ranking" if not np.isin(values, [0, 1]).all() else "multilabel"
        return "multilabel"
    if not _integral(y_true) or (y_pred is not None and y_pred.ndim == 1
                                 and not _integral(y_pred)):
        return "regression"
    values = set(host_classes(y_true))
    if y_pred is not None and y_pred.ndim == 1:
        values |= set(host_classes(y_pred))
    return "binary" if len(values) <= 2 else "multiclass"


def _prf(avg):
    return [Spec(f"{m}_{avg}", f"{m}_score", "pred", {"average": avg}, shared=f"{m}_{avg}")
            for m in ("precision", "recall", "f1")]


def default_metrics(task: str, data: Data, *, has_pred: bool, has_score: bool) -> list:
    """The metric specs of ``task`` given which inputs exist."""
    specs: list[Spec] = []
    if task == "binary":
        pos = {"pos_label": data.pos_label}
        if has_pred:
            specs += [Spec("accuracy", "accuracy_score", "pred", {}, shared="accuracy"),
                      Spec("balanced_accuracy", "balanced_accuracy_score", "pred", {},
                           shared="balanced_accuracy"),
                      Spec("precision", "precision_score", "pred", dict(pos),
                           shared="precision"),
                      Spec("recall", "recall_score", "pred", dict(pos), shared="recall"),
                      Spec("f1", "f1_score", "pred", dict(pos), shared="f1"),
                      Spec("mcc", "matthews_corrcoef", "pred", {}, shared="matthews_corrcoef")]
        if has_score:
            specs += [Spec("roc_auc", "roc_auc_score", "score", {}, shared="roc_auc"),
                      Spec("average_precision", "average_precision_score", "score", dict(pos),
                           shared="average_precision"),
                      Spec("log_loss", "log_loss", "score", {"labels": data.classes}),
                      Spec("brier", "brier_score_loss", "score", dict(pos))]
    elif task == "multiclass":
        labels = {"labels": data.classes}
        if has_pred:
            specs += [Spec("accuracy", "accuracy_score", "pred", {}, shared="accuracy"),
                      Spec("balanced_accuracy", "balanced_accuracy_score", "pred", {},
                           shared="balanced_accuracy")]
            specs += _prf("macro") + _prf("weighted")
            specs += [Spec("mcc", "matthews_corrcoef", "pred", {}, shared="matthews_corrcoef"),
                      Spec("cohen_kappa", "cohen_kappa_score", "pred", {},
                           shared="cohen_kappa")]
        if has_score:
            specs += [Spec("roc_auc_ovr", "roc_auc_score", "score",
                           {"multi_class": "ovr", **labels}),
                      Spec("log_loss", "log_loss", "score", dict(labels)),
                      Spec("top_2_accuracy", "top_k_accuracy_score", "score",
                           {"k": 2, **labels})]
    elif task == "multilabel":
        if has_pred:
            for avg in ("micro", "macro", "weighted", "samples"):
                specs += _prf(avg)
            specs += [Spec("hamming_loss", "hamming_loss", "pred", {}),
                      Spec("subset_accuracy", "accuracy_score", "pred", {})]
        if has_score:
            specs += [Spec("lrap", "label_ranking_average_precision_score", "score", {})]
    elif task == "regression":
        specs += [Spec("mae", "mean_absolute_error", "pred", {}),
                  Spec("mse", "mean_squared_error", "pred", {}),
                  Spec("rmse", "root_mean_squared_error", "pred", {}),
                  Spec("r2", "r2_score", "pred", {}),
                  Spec("explained_variance", "explained_variance_score", "pred", {}),
                  Spec("median_ae", "median_absolute_error", "pred", {}),
                  Spec("mape", "mean_absolute_percentage_error", "pred", {}),
                  Spec("max_error", "max_error", "pred", {})]
    elif task == "ranking":
        if not has_score:
            raise UsageError("--task ranking needs --y-score")
        if getattr(data.y_true, "ndim", 1) == 1:
            specs += [Spec("roc_auc", "roc_auc_score", "score", {}),
                      Spec("average_precision", "average_precision_score", "score", {})]
        else:
            specs += [Spec("ndcg", "ndcg_score", "score", {}),
                      Spec("dcg", "dcg_score", "score", {}),
                      Spec("lrap", "label_ranking_average_precision_score", "score", {}),
                      Spec("coverage_error", "coverage_error", "score", {}),
                      Spec("label_ranking_loss", "label_ranking_loss", "score", {})]
    else:
        raise UsageError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return specs


def check_inputs(task, y_true, y_pred, y_score):
    """Input-shape rules of each task, with messages for the user."""
    if task in ("binary", "multiclass", "regression") and y_true.ndim != 1:
        raise BadData(f"--task {task} needs one --y-true column, got {y_true.shape[1]}")
    if task in ("binary", "multiclass", "multilabel", "regression") and y_pred is None \
            and (task == "regression" or y_score is None):
        raise UsageError(f"--task {task} needs --y-pred"
                         + ("" if task == "regression" else " (or --y-score)"))
    if task == "multilabel" and y_true.ndim != 2:
        raise BadData("--task multilabel needs several --y-true columns (one per label)")
