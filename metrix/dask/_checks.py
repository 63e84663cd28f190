"""The one-shot functions' checks of the whole data, for ``metrix.dask`` (host code).

Each partition's values are checked by :meth:`PartialEvaluation.chunk` (NaN /
inf, a mix of target types within a partition).  What needs every partition
is checked here: the target types of the distinct labels, ``pos_label``
against the labels present, ``labels`` of Cohen's kappa, and weights that
are all zero.  The checks that need values the graph computes anyway run in
the same ``compute`` (a task between the merged state and the client), so no
partition is read twice for them.
"""

from __future__ import annotations

import numpy as np  # host code by design: the distinct labels and flags are small NumPy arrays

from .._core.validation import check_zero_division, type_of_target
from ..classification.agreement import check_jaccard_zero_division, cohen_kappa_score
from ..classification.agreement import jaccard_score as _jaccard
from ..evaluation.partial import PROBA_METRICS, RANKING_METRICS
from ..registry import by_function

#: ``evaluate``'s names of Cohen's kappa and Jaccard (and their variants) begin so
_KAPPA = by_function(cohen_kappa_score.__name__).evaluate
_JACCARD = by_function(_jaccard.__name__).evaluate
ALL_ZERO_WEIGHTS = "Sample weights must contain at least one non-zero number."


def zero_division(metrics, value):
    """scikit-learn's domain of ``zero_division`` (jaccard's is narrower)."""
    check_zero_division(value)
    if any(m.startswith(_JACCARD) for m in metrics):
        check_jaccard_zero_division(value)


def _kind(values) -> str:
    a = np.asarray(values)
    return "text" if a.dtype.kind in "OUS" else "number"


def _type(values) -> str:
    """``type_of_target`` of the distinct values (the type of the whole input)."""
    return type_of_target(np.asarray(values)) if len(values) else "empty"


def found_labels(needs, found_true, found_pred=None):
    """Checks of the labels found by the first pass: as the one-shot functions,
    a ValueError for no sample, NaN / inf, strings with numbers, and targets of
    the wrong type (a continuous ``y_true``, probabilities given as labels)."""
    found = [f for f in (found_true, found_pred) if f is not None]
    if not any(len(f) for f in found):
        raise ValueError("Found array with 0 sample(s) (every partition is empty).")
    for name, f in (("y_true", found_true), ("y_pred", found_pred)):
        a = np.asarray(f) if f is not None else np.zeros(0)
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            # as the one-shot functions' check (np.unique keeps one NaN, sorted last)
            raise ValueError(f"Input {name} contains "
                             f"{'NaN' if np.isnan(a).any() else 'infinity'}.")
    if found_pred is not None and len(found_true) and len(found_pred) and (
            _kind(found_true) != _kind(found_pred)):
        raise ValueError("Mix of label input types (string and number)")
    t_true = _type(found_true)
    if found_pred is not None:
        t_pred = _type(found_pred)
        if "continuous" in (t_true, t_pred):
            if t_true == t_pred:
                raise ValueError("continuous is not supported")
            raise ValueError(f"Classification metrics can't handle a mix of {t_true} and "
                             f"{t_pred} targets")
    if t_true == "continuous":
        _continuous_target(needs)


def _continuous_target(needs):
    if any(m in RANKING_METRICS for m in needs):
        raise ValueError("continuous format is not supported")
    if any(m in PROBA_METRICS for m in needs):
        raise ValueError("Unknown label type: continuous")
    raise ValueError("Classification metrics can't handle continuous targets")


def labels_spec(needs, labels, pos_label):
    """What :func:`check_labels` checks of the distinct ``y_true``, or None (nothing)."""
    ranking_only = labels is None and all(m in RANKING_METRICS for m in needs)
    kappa = labels is not None and any(m.startswith(_KAPPA) for m in needs)
    if not (ranking_only or kappa):
        return None
    return {"needs": list(needs), "labels": None if labels is None else list(labels),
            "pos_label": pos_label, "ranking_only": ranking_only, "kappa_labels": kappa}


def check_labels(spec, found_true):
    """The checks of the distinct ``y_true`` where the labels were given (no first pass)."""
    found = np.asarray(found_true)
    if not found.shape[0]:
        return  # no data: finalize says so
    if spec["ranking_only"]:
        found_labels(spec["needs"], found)
        kind = _type(found)
        if kind == "multiclass":
            raise ValueError(f"y_true holds {found.shape[0]} classes; "
                             f"{[m for m in spec['needs'] if m in RANKING_METRICS]} take "
                             "binary targets and a 1-D y_score")
        if found.shape[0] == 2 and spec["pos_label"] not in found.tolist():
            raise ValueError(f"pos_label={spec['pos_label']!r} is not a valid label. It "
                             f"should be one of {found.tolist()}")
    if spec["kappa_labels"] and not set(found.tolist()) & set(spec["labels"]):
        raise ValueError("At least one label in `labels` must be present in `y1` (even "
                         "though `cohen_kappa_score` is otherwise agnostic to the order of "
                         "`y1` and `y2`).")


def any_nonzero(w) -> bool:
    """Whether a partition's weights hold a value other than zero."""
    return w is not None and bool(np.any(np.asarray(w, dtype=np.float64) != 0))


def any_of(*flags) -> bool:
    return any(flags)


def checked(state, specs, *values):
    """``state``, once every check of ``specs`` (``("labels", spec)`` or
    ``("weights", None)``) passed on its computed value."""
    for (what, spec), value in zip(specs, values):
        if what == "labels":
            check_labels(spec, value)
        elif not value:
            raise ValueError(ALL_ZERO_WEIGHTS)
    return state
