"""Warnings and errors raised by metrix."""


class UndefinedMetricWarning(UserWarning):
    """A metric is ill-defined for the input (e.g. no predicted samples of a class).

    Raised exactly where scikit-learn raises its own ``UndefinedMetricWarning``;
    the value is then set as scikit-learn sets it (see ``zero_division``).
    """


class DataConversionWarning(UserWarning):
    """Input was converted to another shape or type (e.g. a column vector)."""
