"""Text and dict layout of a classification report, as scikit-learn writes it.

Pure host code: it receives per-class numbers that are already Python floats
(or NumPy scalars) and lays them out byte-for-byte like
``sklearn.metrics.classification_report``.  Metric modules compute the numbers
on the device and call :func:`format_report` once at the end (the row names
from :func:`row_names`).
"""

from __future__ import annotations

import warnings

from .._core.stacklevel import find_stack_level

__all__ = ["format_report", "row_names"]

_HEADERS = ("precision", "recall", "f1-score", "support")
# scikit-learn sizes the name column for its longest average heading
_LONGEST_AVERAGE_HEADING = "weighted avg"


def _support(s):
    """Support as scikit-learn prints it: an int stays an int, a weighted sum a float."""
    if isinstance(s, bool):
        return int(s)
    if isinstance(s, int):
        return s
    if hasattr(s, "dtype") and getattr(s.dtype, "kind", "f") in "iub":
        return int(s)
    return float(s)


def row_names(shown, target_names, labels_given):
    """The report's row names: ``target_names``, else ``str`` of the ``shown``
    labels; a length that does not match ``shown`` warns where ``labels`` was
    given and raises otherwise (scikit-learn's rule)."""
    if target_names is not None and len(shown) != len(target_names):
        if labels_given:
            warnings.warn(
                f"labels size, {len(shown)}, does not match size of target_names, "
                f"{len(target_names)}", UserWarning, stacklevel=find_stack_level())
        else:
            raise ValueError(
                f"Number of classes, {len(shown)}, does not match size of target_names, "
                f"{len(target_names)}. Try specifying the labels parameter")
    return ["%s" % v for v in shown] if target_names is None else target_names


def format_report(rows, *, target_names=None, averages=None, digits=2, output_dict=False,
                  accuracy=None):
    """Lay out per-class and averaged scores like ``classification_report``.

    Parameters
    ----------
    rows : sequence of (precision, recall, f1, support)
        One tuple of host numbers per class, in report order.
    target_names : sequence of str, default=None
        Display names of the rows; ``None`` gives ``"0"``, ``"1"``, ...
    averages : mapping of str to (precision, recall, f1, support), default=None
        The average rows in order, e.g. ``{"macro avg": ..., "weighted avg": ...}``.
    digits : int, default=2
        Digits of the floats in the text report (ignored for ``output_dict``).
    output_dict : bool, default=False
        Return scikit-learn's nested dict instead of the text.
    accuracy : tuple or None, default=None
        When given, an ``accuracy`` row is written before the averages (as
        scikit-learn does for multiclass targets, where the micro average is
        the accuracy); in the dict it is the single float under
        ``"accuracy"``.  Either ``(accuracy, support)``, or the micro-average
        tuple ``(precision, recall, f1, support)``: then, exactly as
        scikit-learn, the text shows the f1 value and the dict the precision
        (they differ at most in the last bit).

    Returns
    -------
    report : str or dict
        The text report, or ``{name: {"precision": p, "recall": r,
        "f1-score": f, "support": s}, ..., "accuracy": a, ...}`` with every
        value a Python float, as scikit-learn's ``output_dict=True``.
    """
    rows = [tuple(r) for r in rows]
    if target_names is None:
        target_names = [str(i) for i in range(len(rows))]
    target_names = ["%s" % n for n in target_names]
    if len(target_names) != len(rows):
        raise ValueError(
            f"Number of rows, {len(rows)}, does not match size of target_names, "
            f"{len(target_names)}.")
    averages = dict(averages or {})
    if accuracy is not None:
        accuracy = tuple(accuracy)
        if len(accuracy) == 4:
            accuracy = (accuracy[0], accuracy[3], accuracy[2])
        elif len(accuracy) == 2:
            accuracy = (accuracy[0], accuracy[1], accuracy[0])
        else:
            raise ValueError("accuracy must be (accuracy, support) or "
                             "(precision, recall, f1, support).")
    if output_dict:
        return _as_dict(rows, target_names, averages, accuracy)
    return _as_text(rows, target_names, averages, digits, accuracy)


def _as_dict(rows, target_names, averages, accuracy):
    report = {name: dict(zip(_HEADERS, [float(v) for v in row]))
              for name, row in zip(target_names, rows)}
    if accuracy is not None:
        report["accuracy"] = float(accuracy[0])
    for name, row in averages.items():
        report[name] = dict(zip(_HEADERS, [float(v) for v in row]))
    return report


def _as_text(rows, target_names, averages, digits, accuracy):
    name_width = max((len(n) for n in target_names), default=0)
    width = max(name_width, len(_LONGEST_AVERAGE_HEADING), digits,
                *(len(n) for n in averages))
    head_fmt = "{:>{width}s} " + " {:>9}" * len(_HEADERS)
    report = head_fmt.format("", *_HEADERS, width=width)
    report += "\n\n"
    row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
    for name, (p, r, f, s) in zip(target_names, rows):
        report += row_fmt.format(name, float(p), float(r), float(f), _support(s),
                                 width=width, digits=digits)
    report += "\n"
    if accuracy is not None:
        acc_fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
        report += acc_fmt.format("accuracy", "", "", float(accuracy[2]),
                                 _support(accuracy[1]), width=width, digits=digits)
    for name, (p, r, f, s) in averages.items():
        report += row_fmt.format(name, float(p), float(r), float(f), _support(s),
                                 width=width, digits=digits)
    return report
