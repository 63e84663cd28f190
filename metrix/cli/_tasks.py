"""Tasks of ``metrix eval``: auto-detection and the default metrics of each task.

Every metric is a public ``metrix.<name>`` function, looked up when the
report runs: a metric that this install of metrix lacks is reported as
"not available" instead of failing the run.

Binary scores have one reading for every metric: ``--y-score`` is the
probability (score) of the positive class ``--pos-label``, as scikit-learn's
``pos_label`` means.  The score metrics get ``y_pos`` (1 where ``y_true`` is
the positive class, else 0), so a metric that has no ``pos_label`` (ROC AUC,
log loss) reads the score the same way as one that has.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import classification as clf
from .. import ranking, regression
from ..registry import by_function, names
from ._io import BadData, UsageError

TASKS = ("auto", "binary", "multiclass", "multilabel", "regression", "ranking")
#: the bins of the binary report's calibration error (the function's default, as the
#: batched report's state) and of its reliability plot
CALIBRATION_BINS = 15


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
    y_pos: object = None  # binary with scores: int64 1 where y_true == pos_label, else 0


def host_classes(a: np.ndarray) -> list:
    """Sorted distinct values; integers by min/max and a presence bincount (no sort)."""
    if a.dtype.kind in "iubf":
        import array_api_compat.numpy as xp

        from ..classification._encoding import distinct_values

        return distinct_values(xp.asarray(a), xp=xp).tolist()
    return np.unique(a).tolist()


def _integral(a: np.ndarray) -> bool:
    if a.dtype.kind in "iub":
        return True
    if a.dtype.kind == "f":
        finite = a[np.isfinite(a)]
        return bool(np.all(finite == np.round(finite)))
    return True  # strings / objects: labels


def detect_task(y_true: np.ndarray, y_pred, y_score, seen: dict | None = None) -> str:
    """The task implied by host arrays (scikit-learn's ``type_of_target`` spirit).

    ``seen``, where given, receives the set of ``"classes"`` of ``y_true`` and a
    1-D ``y_pred`` when they were read (so the caller does not read them again).
    """
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
    if seen is not None:
        seen["classes"] = values
    return "binary" if len(values) <= 2 else "multiclass"


def key(fn) -> str:
    """The report's name of the public metric ``fn``: its registry key."""
    return by_function(fn.__name__).key


def _spec(fn, kwargs=None, *, name=None, shared=False) -> Spec:
    """The row of the metric ``fn``, named ``name`` (default: its key, ``_<average>``
    added); ``shared``: one ``metrix.evaluate`` pass computes it, where it can."""
    e, kwargs = by_function(fn.__name__), dict(kwargs or {})
    suffix = f"_{kwargs['average']}" if "average" in kwargs else ""
    return Spec(name or e.key + suffix, e.function, "score" if e.family == "score" else "pred",
                kwargs, shared=e.evaluate + suffix if shared and e.evaluate else None)


#: the metrics of the rows that several tasks share, in report order
PRF = (clf.precision_score, clf.recall_score, clf.f1_score)
_TWO = (clf.accuracy_score, clf.balanced_accuracy_score)
_ROW_MEANS = (ranking.ndcg_score, ranking.dcg_score,
              ranking.label_ranking_average_precision_score, ranking.coverage_error,
              ranking.label_ranking_loss)
_REGRESSION = (regression.mean_absolute_error, regression.mean_squared_error,
               regression.root_mean_squared_error, regression.r2_score,
               regression.explained_variance_score, regression.median_absolute_error,
               regression.mean_absolute_percentage_error, regression.max_error)


def _averaged(*averages):
    return [_spec(f, {"average": avg}, shared=True) for avg in averages for f in PRF]


def default_metrics(task: str, data: Data, *, has_pred: bool, has_score: bool) -> list:
    """The metric specs of ``task`` given which inputs exist."""
    specs: list[Spec] = []
    labels = {"labels": data.classes}
    if task == "binary":
        if has_pred:
            specs += [_spec(f, shared=True) for f in _TWO]
            specs += [_spec(f, {"pos_label": data.pos_label}, shared=True) for f in PRF]
            specs += [_spec(clf.matthews_corrcoef, shared=True)]
        if has_score:  # on y_pos (0/1): the score is P(y == pos_label) for every metric
            one = {"pos_label": 1}
            specs += [_spec(ranking.roc_auc_score, shared=True),
                      _spec(ranking.average_precision_score, one, shared=True),
                      _spec(clf.log_loss, {"labels": [0, 1]}, shared=True),
                      _spec(clf.brier_score_loss, one, name="brier", shared=True),
                      # the expected calibration error (beside the reliability plot)
                      _spec(clf.calibration_error)]
    elif task == "multiclass":
        if has_pred:
            kappa = clf.cohen_kappa_score
            specs += [_spec(f, shared=True) for f in _TWO] + _averaged("macro", "weighted")
            specs += [_spec(clf.matthews_corrcoef, shared=True),
                      _spec(kappa, name=by_function(kappa.__name__).evaluate, shared=True)]
        if has_score:
            specs += [_spec(ranking.roc_auc_score, {"multi_class": "ovr", **labels},
                            name="roc_auc_ovr"),
                      _spec(clf.log_loss, labels),
                      _spec(ranking.top_k_accuracy_score, {"k": 2, **labels},
                            name="top_2_accuracy")]
    elif task == "multilabel":
        if has_pred:
            specs += _averaged("micro", "macro", "weighted", "samples")
            specs += [_spec(clf.hamming_loss), _spec(clf.accuracy_score, name="subset_accuracy")]
        if has_score:
            specs += [_spec(ranking.label_ranking_average_precision_score)]
    elif task == "regression":
        specs += [_spec(f) for f in _REGRESSION]
    elif task == "ranking":
        if not has_score:
            raise UsageError("--task ranking needs --y-score")
        one = getattr(data.y_true, "ndim", 1) == 1  # the areas under the two curves
        specs += [_spec(f) for f in ([getattr(ranking, name) for name in names(
            "function", path="ranking")] if one else _ROW_MEANS)]
    else:
        raise UsageError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return specs


def is_text(a) -> bool:
    """Text labels (strings, or Python objects as pyarrow gives strings)."""
    return a.dtype.kind in "OUS"


def check_inputs(task, y_true, y_pred, y_score):
    """Input-shape and value-kind rules of each task, with messages for the user."""
    if y_score is not None and is_text(y_score):
        raise BadData("--y-score must be numeric, got text values "
                      f"(e.g. {_example_text(y_score)!r})")
    if y_pred is not None and is_text(y_true) != is_text(y_pred):
        kinds = ("text", "numbers") if is_text(y_true) else ("numbers", "text")
        raise BadData(f"--y-true holds {kinds[0]} but --y-pred holds {kinds[1]}; "
                      "labels must be of one kind (e.g. both 'cat'/'dog', or both 0/1)")
    if task in ("multilabel", "ranking", "regression"):
        for opt, a in (("--y-true", y_true), ("--y-pred", y_pred)):
            if a is not None and is_text(a):
                raise BadData(f"--task {task} needs numeric {opt}, got text values "
                              f"(e.g. {_example_text(a)!r})")
    if y_pred is not None and y_pred.shape[1:] != y_true.shape[1:]:
        raise BadData(f"--y-true has {_width(y_true)} but --y-pred has {_width(y_pred)}; "
                      "they must match")
    if task in ("multilabel", "ranking") and y_score is not None \
            and y_score.shape[1:] != y_true.shape[1:]:
        raise BadData(f"--task {task}: --y-true has {_width(y_true)} but --y-score has "
                      f"{_width(y_score)}; they must match")
    if task in ("binary", "multiclass", "regression") and y_true.ndim != 1:
        raise BadData(f"--task {task} needs one --y-true column, got {y_true.shape[1]}")
    if task in ("binary", "multiclass", "multilabel", "regression") and y_pred is None \
            and (task == "regression" or y_score is None):
        raise UsageError(f"--task {task} needs --y-pred"
                         + ("" if task == "regression" else " (or --y-score)"))
    if task == "multilabel" and y_true.ndim != 2:
        raise BadData("--task multilabel needs several --y-true columns (one per label)")
    if task == "multilabel":
        for opt, a in (("--y-true", y_true), ("--y-pred", y_pred)):
            if a is not None and not ((a == 0) | (a == 1)).all():  # one pass, no sort
                raise BadData(f"--task multilabel needs 0/1 values in {opt}, got "
                              f"{np.unique(a)[:5].tolist()}")


def check_score_columns(task, classes, y_score):
    """The layout of ``--y-score`` for the classes (binary: one column, or two in
    sorted class order; multiclass: one per class)."""
    if y_score is None:
        return
    if task == "binary" and y_score.ndim == 2:
        if y_score.shape[1] != 2:
            raise BadData(f"binary --y-score takes 1 column (or 2), got {y_score.shape[1]}")
        if len(classes) != 2:
            raise BadData("two binary --y-score columns need both classes in the "
                          "labels; give the positive class's column alone")
    if task == "multiclass" and (y_score.ndim != 2 or y_score.shape[1] != len(classes)):
        got = 1 if y_score.ndim == 1 else y_score.shape[1]
        raise BadData(f"multiclass --y-score needs one column per class ({len(classes)}: "
                      f"{classes}), got {got}")


def _width(a):
    k = 1 if a.ndim == 1 else a.shape[1]
    return f"{k} column{'s' if k > 1 else ''}"


def _example_text(a):
    """A value of a text array that is not a number, for a message."""
    for v in np.asarray(a).ravel().tolist():
        try:
            float(v)
        except (TypeError, ValueError):
            return v
    return np.asarray(a).ravel()[0]


def as_label(text, classes):
    """``--pos-label`` text as one of ``classes`` (``"1"`` is the float label 1.0)."""
    for c in classes:
        if str(c) == text:
            return c
    for c in classes:  # "1" for the float label 1.0
        if not isinstance(c, str) and _as_number(text) == c:
            return c
    raise UsageError(f"--pos-label {text!r} is not one of the labels {classes}")


def _as_number(text):
    try:
        return float(text)
    except ValueError:
        return None
