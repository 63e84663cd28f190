"""What the displays share: host copies for scikit-learn's checks and for drawing."""

from __future__ import annotations

from .._core.namespace import to_host


def host(*arrays):
    """NumPy copies of ``arrays`` (None stays None): what matplotlib draws and
    scikit-learn's input checks read (a device sync: displays are an edge)."""
    out = tuple(to_host(a) for a in arrays)
    return out if len(out) > 1 else out[0]


def fold_inputs(cv_results, X, y, sample_weight, *, response_method, pos_label):
    """Per test fold of ``cross_validate(..., return_estimator=True,
    return_indices=True)``: ``(y_true, y_score, pos_label, sample_weight)``, the
    scores from the fold's estimator as scikit-learn's ``from_cv_results``."""
    from sklearn.utils import _safe_indexing
    from sklearn.utils._response import _get_response_values_binary

    for estimator, test in zip(cv_results["estimator"], cv_results["indices"]["test"]):
        y_score, fold_pos_label = _get_response_values_binary(
            estimator, _safe_indexing(X, test), response_method=response_method,
            pos_label=pos_label)
        weight = None if sample_weight is None else _safe_indexing(sample_weight, test)
        yield _safe_indexing(y, test), y_score, fold_pos_label, weight
