"""scikit-learn scorers that compute with metrix: ``GridSearchCV``, ``cross_validate``.

A scorer is ``scorer(estimator, X, y)``: it asks the estimator for the
response its metric needs (``predict``, ``predict_proba`` or
``decision_function``) and scores it.  scikit-learn builds scorers from its
own metric functions; these are scikit-learn's scorer objects built from
metrix's functions of the same names, so its model selection takes them as
its own, and an array-API estimator's predictions on a device are scored
there (with ``sklearn.set_config(array_api_dispatch=True)``).

:func:`get_scorer` takes scikit-learn's table of scorer names: each name's
metric, keywords, sign and response method are scikit-learn's, and only its
function is swapped for metrix's, found by name.  scikit-learn is imported
on first use, not by ``import metrix``.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["check_scoring", "get_scorer", "get_scorer_names", "make_scorer"]


def _sklearn_metrics():
    """scikit-learn's scorer module (where its scorer functions are defined: a
    test run that swaps metrix's functions into ``sklearn.metrics`` leaves it)."""
    try:
        from sklearn.metrics import _scorer
    except ImportError as exc:  # pragma: no cover - scikit-learn is a test dependency
        raise ImportError("metrix's scorers are scikit-learn scorer objects: install "
                          "scikit-learn (pip install scikit-learn)") from exc
    return _scorer


def make_scorer(score_func: Callable[..., Any], *, response_method: str | list | tuple
                = "predict", greater_is_better: bool = True, **kwargs: Any):
    """Make a scorer from a metric function, as :func:`sklearn.metrics.make_scorer`.

    The scorer calls ``score_func(y_true, y_response, **kwargs)`` and multiplies
    by ``-1`` when ``greater_is_better=False`` (scikit-learn's ``neg_``
    scorers); it is scikit-learn's own scorer object.

    Parameters
    ----------
    score_func : callable
        A metric, ``score_func(y_true, y_pred, **kwargs)``: a metrix function such
        as :func:`metrix.fbeta_score`, or any other.
    response_method : {"predict_proba", "decision_function", "predict"} or list, \
default="predict"
        The estimator's method(s) that give the metric's second argument (of a
        list, the first one the estimator has).
    greater_is_better : bool, default=True
        Whether ``score_func`` is a score (True) or a loss (False: the scorer
        returns its negation).
    **kwargs
        Keywords passed on to ``score_func``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, sample_weight=None)``.

    See Also
    --------
    get_scorer : A scorer by scikit-learn's name, computing with metrix.

    Examples
    --------
    >>> import metrix
    >>> f2 = metrix.make_scorer(metrix.fbeta_score, beta=2)
    """
    return _sklearn_metrics().make_scorer(score_func, response_method=response_method,
                                          greater_is_better=greater_is_better, **kwargs)


def get_scorer_names() -> list[str]:
    """The names :func:`get_scorer` takes: scikit-learn's scorer names.

    Returns
    -------
    names : list of str
        Sorted, as :func:`sklearn.metrics.get_scorer_names`.
    """
    return list(_sklearn_metrics().get_scorer_names())


def positive_likelihood_ratio(y_true: Any, y_pred: Any) -> Any:
    """LR+ of :func:`metrix.class_likelihood_ratios`, 1.0 where undefined (the
    ``positive_likelihood_ratio`` scorer's metric, as scikit-learn's)."""
    return _metrix().class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[0]


def negative_likelihood_ratio(y_true: Any, y_pred: Any) -> Any:
    """LR- of :func:`metrix.class_likelihood_ratios`, 1.0 where undefined (the
    ``neg_negative_likelihood_ratio`` scorer's metric, as scikit-learn's)."""
    return _metrix().class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[1]


_HERE = {f.__name__: f for f in (positive_likelihood_ratio, negative_likelihood_ratio)}


def _metrix():
    return importlib.import_module("metrix")


def _metrix_function(func):
    name = getattr(func, "__name__", None)
    found = _HERE.get(name) or getattr(_metrix(), name or "", None)
    if found is None:
        raise NotImplementedError(f"scikit-learn's scorer metric {name!r} has no metrix "
                                  "function")
    return found


def get_scorer(scoring: str | Callable[..., Any] | None):
    """A scorer by scikit-learn's name, computing with metrix's function of that name.

    The name's metric keywords, sign (``neg_`` names) and response method are
    scikit-learn's (:func:`sklearn.metrics.get_scorer`); only the metric is
    metrix's, so the values equal scikit-learn's.

    Parameters
    ----------
    scoring : str, callable or None
        A name of :func:`get_scorer_names` (a new scorer object on each call);
        a callable or None is returned as is.

    Returns
    -------
    scorer : callable or None
        ``scorer(estimator, X, y_true, sample_weight=None)``.

    Raises
    ------
    ValueError
        If ``scoring`` is a string that names no scorer.

    See Also
    --------
    make_scorer : A scorer from any metric function.
    check_scoring : Scorers for a model-selection ``scoring=`` argument.

    Examples
    --------
    >>> import metrix
    >>> auc = metrix.get_scorer("roc_auc")
    """
    if not isinstance(scoring, str):
        return scoring
    skm = _sklearn_metrics()
    if scoring not in skm.get_scorer_names():
        raise ValueError(f"{scoring!r} is not a valid scoring value. Use "
                         "metrix.get_scorer_names() to get valid options.")
    theirs = skm.get_scorer(scoring)
    try:  # scikit-learn's scorer object (>= 1.4) says what it computes
        func, sign, kwargs, method = (theirs._score_func, theirs._sign, theirs._kwargs,
                                      theirs._response_method)
    except AttributeError as exc:  # pragma: no cover - a scikit-learn older than 1.4
        raise ImportError("metrix's scorers need scikit-learn >= 1.4") from exc
    return make_scorer(_metrix_function(func), response_method=method,
                       greater_is_better=sign > 0, **kwargs)


def _is_metric_function(scoring) -> bool:
    """A metric passed where a scorer is expected (scikit-learn's heuristic, for
    metrix's functions)."""
    module = getattr(scoring, "__module__", None)
    return (isinstance(module, str) and module.startswith("metrix.")
            and module != __name__ and not module.startswith("metrix.tests"))


def _named(scoring):
    """Names replaced by metrix scorers, in a multi-metric ``scoring``."""
    if isinstance(scoring, dict):
        return {k: get_scorer(v) for k, v in scoring.items()}
    items = list(scoring)
    if items and all(isinstance(v, str) for v in items) and len(set(items)) == len(items):
        return {v: get_scorer(v) for v in items}
    return scoring  # scikit-learn's errors (duplicates, empty, mixed types)


def check_scoring(estimator: Any = None, scoring: Any = None, *, allow_none: bool = False,
                  raise_exc: bool = True):
    """The scorer for a ``scoring=`` argument, as :func:`sklearn.metrics.check_scoring`.

    Scorer names (alone, in a list, tuple or set, or as the values of a dict)
    become metrix scorers (:func:`get_scorer`); callables and ``None`` (the
    estimator's own ``score``) are scikit-learn's rules.

    Parameters
    ----------
    estimator : estimator object, default=None
        The estimator to score; its ``score`` method is the scorer when
        ``scoring`` is None.
    scoring : str, callable, list, tuple, set, dict or None, default=None
        One scorer (a name or a callable) or several (names, or a dict of names
        or callables by key).
    allow_none : bool, default=False
        Return None rather than raise when ``scoring`` is None and the estimator
        has no ``score``.
    raise_exc : bool, default=True
        With several scorers: raise a failing scorer's exception (True) or
        return its formatted traceback as its value (False).

    Returns
    -------
    scorer : callable or None
        ``scorer(estimator, X, y)``; a dict of values for several scorers.

    Raises
    ------
    ValueError
        If ``scoring`` is a metric function rather than a scorer (wrap it with
        :func:`make_scorer`), or an unknown name.

    See Also
    --------
    get_scorer : A scorer by scikit-learn's name, computing with metrix.
    """
    skm = _sklearn_metrics()
    if isinstance(scoring, str):
        return get_scorer(scoring)
    if callable(scoring) and _is_metric_function(scoring):
        raise ValueError(f"scoring value {scoring!r} looks like it is a metric function "
                         "rather than a scorer. A scorer should require an estimator as its "
                         "first parameter. Please use `make_scorer` to convert a metric to "
                         "a scorer.")
    if isinstance(scoring, (list, tuple, set, dict)):
        scoring = _named(scoring)
    return skm.check_scoring(estimator, scoring, allow_none=allow_none, raise_exc=raise_exc)
