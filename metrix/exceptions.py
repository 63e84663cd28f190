"""Warnings and errors raised by metrix."""


class UndefinedMetricWarning(UserWarning):
    """A metric is ill-defined for the input (e.g. no predicted samples of a class).

    Raised exactly where scikit-learn raises its own ``UndefinedMetricWarning``;
    the value is then set as scikit-learn sets it (see ``zero_division``).
    """


class DataConversionWarning(UserWarning):
    """Input was converted to another shape or type (e.g. a column vector)."""


_BOTH: dict = {}


def as_sklearn_too(category: type) -> type:
    """``category`` as it is warned: when scikit-learn is already imported, a
    subclass of both metrix's class and scikit-learn's class of the same name,
    so a filter or ``pytest.warns`` written for either catches it.  metrix never
    imports scikit-learn for this (it reads ``sys.modules``)."""
    import sys

    sk = sys.modules.get("sklearn.exceptions")
    theirs = getattr(sk, category.__name__, None) if sk is not None else None
    if not isinstance(theirs, type) or issubclass(category, theirs):
        return category
    both = _BOTH.get((category, theirs))
    if both is None:
        both = _BOTH[(category, theirs)] = type(
            category.__name__, (category, theirs),
            {"__module__": category.__module__, "__doc__": category.__doc__})
    return both
