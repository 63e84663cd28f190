"""Input validation shared by every metric family.

Two tiers (STYLE.md, rule 3):

* parameter and shape checks always run: they read no array values;
* value checks (NaN/inf, target types, label sets) run only with
  ``validate=True``.  They read values on the host, i.e. synchronise the
  device; that is the documented price of ``validate=True``.

Error types and wording follow scikit-learn.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

from .._core.stacklevel import find_stack_level
from ..backends import ops
from ..exceptions import DataConversionWarning, as_sklearn_too
from . import namespace as _ns

__all__ = [
    "num_samples",
    "check_consistent_length",
    "column_or_1d",
    "assert_all_finite",
    "check_sample_weight",
    "check_zero_division",
    "check_average",
    "type_of_target",
    "check_targets",
    "Targets",
]


def num_samples(x) -> int:
    shape = getattr(x, "shape", None)
    if shape is None:
        return len(x)
    if len(shape) == 0:
        raise TypeError(f"Expected a sequence or array, got a 0-d array {x!r}")
    return int(shape[0])


def check_consistent_length(*arrays):
    """Raise ``ValueError`` if the non-None inputs differ in length (shape only)."""
    lengths = [num_samples(a) for a in arrays if a is not None]
    if len(set(lengths)) > 1:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"{[int(n) for n in lengths]}"
        )


def column_or_1d(y, *, xp, input_name="y", warn=False):
    """Ravel a column vector ``(n, 1)``; raise for other 2-D shapes (shape only)."""
    if y.ndim == 1:
        return y
    if y.ndim == 2 and y.shape[1] == 1:
        if warn:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. Please "
                "change the shape of y to (n_samples, ), for example using ravel().",
                as_sklearn_too(DataConversionWarning),
                stacklevel=find_stack_level(),
            )
        return xp.reshape(y, (-1,))
    if y.ndim == 0:
        return xp.reshape(y, (1,))
    raise ValueError(
        f"{input_name} should be a 1d array, got an array of shape {tuple(y.shape)} instead."
    )


def _is_float(x, xp) -> bool:
    return hasattr(x, "dtype") and dtype_kind(x, xp) == "f"


def reject_complex(x, *, xp):
    """scikit-learn's check_array error for complex data (dtype only)."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return
    if _ns.is_numpy_namespace(xp):
        complex_ = dt.kind == "c"
    else:
        try:
            complex_ = bool(xp.isdtype(dt, "complex floating"))  # a dtype query, no value
        except Exception:
            complex_ = False
    if complex_:
        raise ValueError(f"Complex data not supported\n{x}\n")


_REAL_DTYPES: set = set()


def check_real_dtypes(arrays, names, xp):
    """Refuse arrays of complex, string or object dtype, by dtype only (no value
    read; one set lookup per array once a dtype has been seen): scikit-learn's
    error for complex data (:func:`reject_complex`), a ``TypeError`` naming the
    input for the others (the streams count integer labels ``0..C-1`` and real
    scores)."""
    for a, name in zip(arrays, names):
        dt = getattr(a, "dtype", None)
        # (array-api-strict's dtypes hash as NumPy's and compare unequal: the type too)
        if dt is None or (type(dt), dt) in _REAL_DTYPES:
            continue
        try:
            kind = dtype_kind(a, xp)
        except (TypeError, ValueError):
            kind = "O"
        if kind != "O":
            _REAL_DTYPES.add((type(dt), dt))
            continue
        reject_complex(a, xp=xp)
        raise TypeError(f"{name} has dtype {dt}: metrix.stream metrics take numbers "
                        "(integer labels 0..num_classes-1, real scores and targets); "
                        "encode other labels first, e.g. with "
                        "sklearn.preprocessing.LabelEncoder")


def dtype_kind(x, xp) -> str:
    """'f', 'i', 'u', 'b' or 'O' (strings/objects, NumPy only)."""
    dt = x.dtype
    if _ns.is_numpy_namespace(xp):
        return dt.kind if dt.kind in "fiub" else "O"
    if xp.isdtype(dt, "bool"):
        return "b"
    if xp.isdtype(dt, "real floating"):
        return "f"
    if xp.isdtype(dt, "signed integer"):
        return "i"
    if xp.isdtype(dt, "unsigned integer"):
        return "u"
    return "O"


def numpy_bool_name() -> str:
    """NumPy's bool type as scikit-learn names it in its parameter errors:
    ``"numpy.bool"`` (NumPy 2) or ``"numpy.bool_"`` (NumPy 1)."""
    import numpy  # only on an error path, at the user edge

    return f"numpy.{numpy.bool_.__name__}"


def assert_all_finite(x, *, xp, input_name="", allow_nan=False):
    """Raise ``ValueError`` for NaN or infinity in a float array (reads values)."""
    if x is None or not _is_float(x, xp):
        return
    # host read: only ever called on the validate=True path.  A finite sum
    # proves every value finite in one reduction; check exactly only if not.
    if bool(ops(xp).sum_is_finite(x)) or bool(xp.all(xp.isfinite(x))):
        return
    name = f"Input {input_name}" if input_name else "Input"
    has_nan = bool(xp.any(xp.isnan(x)))
    if has_nan and not allow_nan:
        raise ValueError(f"{name} contains NaN.")
    if bool(xp.any(xp.isinf(x))):
        raise ValueError(f"{name} contains infinity or a value too large for {x.dtype!r}.")


_BINNED_HINT = ("Apply a sigmoid (or softmax) to logits first, pass the thresholds on the "
                "scores' scale (thresholds=<array>), or use exact scores.")


def check_binned_scores(score, *, xp, input_name="y_score", hint=_BINNED_HINT):
    """Raise ``ValueError`` unless every score lies in [0, 1] (reads values).

    For binned metrics with ``thresholds=T`` (``T`` evenly spaced thresholds on
    [0, 1], for probabilities): a logit or any score outside that range would
    be clamped into the end bins, a silently different number.  Call it on the
    ``validate=True`` path only, after the NaN / infinity check.  ``hint``: what
    the caller offers instead (its own options).
    """
    if not _is_float(score, xp) or score.shape[0] == 0:
        return
    lo, hi = ops(xp).minmax(xp.reshape(score, (-1,)))  # host read: validate=True only
    if bool(lo >= 0) and bool(hi <= 1):
        return
    raise ValueError(
        f"Input {input_name} has values outside [0, 1] (min {float(lo):.6g}, max "
        f"{float(hi):.6g}), but thresholds=<int> bins probabilities on [0, 1]. {hint}")


def check_sample_weight(sample_weight, n_samples, *, xp, device, dtype, validate=True,
                        input_name="sample_weight", nonzero=False):
    """``sample_weight`` as a 1-D float array of length ``n_samples`` (or None).

    Shape checks always run; finiteness (and, with ``nonzero``, at least one
    non-zero weight, as scikit-learn 1.9's classification metrics require)
    only with ``validate``.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        return xp.full((n_samples,), float(sample_weight), dtype=dtype, device=device)
    w = _ns.asarray(sample_weight, xp=xp, device=device)
    reject_complex(w, xp=xp)
    if w.ndim != 1:
        raise ValueError(
            f"Sample weights must be 1D array or scalar, got {w.ndim}D array of shape "
            f"{tuple(w.shape)}.")
    if w.shape[0] != n_samples:
        # scikit-learn's check_consistent_length(y_true, y_pred, sample_weight)
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"{[int(n_samples), int(n_samples), int(w.shape[0])]}")
    if w.dtype != dtype:
        w = xp.astype(w, dtype)
    if validate:
        assert_all_finite(w, xp=xp, input_name=input_name)
        if nonzero:
            check_nonzero_weights(w, xp=xp)
    return w


def check_nonzero_weights(w, *, xp):
    """scikit-learn 1.9's check: all-zero weights define no metric (reads a value)."""
    if w is not None and w.shape[0] and not bool(xp.any(w != 0)):  # host read: validate only
        raise ValueError("Sample weights must contain at least one non-zero number.")


def check_zero_division(zero_division):
    """Validate ``zero_division``; return the float it stands for ("warn" -> 0)."""
    if type(zero_division) is str and zero_division == "warn":
        return 0.0
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
        if zero_division == "nan":
            return float("nan")
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return float(zero_division)
        if zero_division != zero_division:  # nan
            return float("nan")
    raise ValueError(
        "The 'zero_division' parameter must be a float among {0.0, 1.0, nan} or a str "
        f"among {{'warn'}}. Got {zero_division!r} instead."
    )


def check_average(average, options):
    if average not in options:
        raise ValueError(
            f"The 'average' parameter must be a str among {sorted(o for o in options if o)}"
            f"{' or None' if None in options else ''}. Got {average!r} instead."
        )


# -- target types ----------------------------------------------------------

class _Info(NamedTuple):
    y_type: str
    values: tuple | None  # the (at most two) distinct values when binary
    bounds: tuple | None = None  # (min, max) of integer-valued 1-D labels


def _is_multilabel_shape(y) -> bool:
    return y.ndim == 2 and y.shape[1] > 1


def _reject_legacy_labels(y):
    """scikit-learn's errors for bytes labels and the legacy sequence-of-sequences
    multilabel format (a look at the first label, on the host)."""
    first = y[0] if y.ndim and y.shape[0] else None
    if y.ndim == 2 and first is not None and first.shape[0]:
        first = first[0]
    if isinstance(first, bytes):
        raise TypeError(
            "Support for labels represented as bytes is not supported. Convert the labels "
            "to a string or integer format.")
    if isinstance(first, (list, tuple)):
        raise ValueError(
            "You appear to be using a legacy multi-label data representation. Sequence of "
            "sequences are no longer supported; use a binary array or sparse matrix "
            "instead - the MultiLabelBinarizer transformer can convert to this format.")


def target_info(y, *, xp, input_name, validate=True, exact_binary=True) -> _Info:
    """scikit-learn's ``type_of_target`` plus the distinct values of a binary y.

    For integer-valued 1-D labels the (min, max) are returned too (the label
    encoding reuses them).  With ``exact_binary=False`` a label range wider
    than two values is reported as "multiclass" without the extra pass that
    would tell a two-valued array such as {-1, 1} apart; callers that need
    the distinction (``average="binary"``) ask for it.
    """
    if y.ndim > 2 or (y.ndim == 2 and y.shape[1] == 0):
        return _Info("unknown", None)
    if y.ndim == 0:
        return _Info("unknown", None)
    kind = dtype_kind(y, xp)
    multi = _is_multilabel_shape(y)
    if not validate:
        return _Info("multilabel-indicator" if multi else "multiclass", None)
    suffix = "-multioutput" if multi else ""
    if kind == "O":
        _reject_legacy_labels(y)
        uniq = _ns.host_unique(y)
        if multi:
            return _Info("multiclass-multioutput", None)
        if uniq.shape[0] <= 2:
            return _Info("binary", tuple(uniq.tolist()))
        return _Info("multiclass", None)
    if y.shape[0] == 0:
        return _Info("binary", ())
    if kind == "f":
        assert_all_finite(y, xp=xp, input_name=input_name)
        if not bool(xp.all(y == xp.round(y))):
            return _Info("continuous" + suffix, None)
    if multi:
        if kind == "b" or bool(xp.all((y == 0) | (y == 1))):
            return _Info("multilabel-indicator", None)
        return _Info("multiclass-multioutput", None)
    y1 = xp.reshape(y, (-1,))
    if kind == "b":
        lo, hi = (bool(v) for v in ops(xp).minmax(xp.astype(y1, xp.int8)))
        return _Info("binary", tuple(sorted({lo, hi})), (int(lo), int(hi)))
    lo, hi = ops(xp).minmax(y1)
    lo_h, hi_h = _scalar(lo), _scalar(hi)
    bounds = (lo_h, hi_h)
    if hi_h - lo_h <= 1:
        return _Info("binary", tuple(sorted({lo_h, hi_h})), bounds)
    if exact_binary and bool(xp.all((y1 == lo) | (y1 == hi))):
        return _Info("binary", (lo_h, hi_h), bounds)
    return _Info("multiclass", None, bounds)


def _integer_labels(y, xp) -> bool:
    """Non-empty 1-D (or one-column) signed / unsigned integer labels."""
    one_d = y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)
    return one_d and y.shape[0] > 0 and dtype_kind(y, xp) in "iu"


def _scalar(a):
    """A 0-d integral-valued array as a Python int (a host read)."""
    return int(float(a))


def type_of_target(y, *, input_name="", validate=True):
    """The target type of ``y``, as ``sklearn.utils.multiclass.type_of_target``.

    One of "binary", "multiclass", "multilabel-indicator", "continuous",
    "continuous-multioutput", "multiclass-multioutput", "unknown".
    """
    xp, device = _ns.get_namespace_and_device(y)
    y = _ns.asarray(y, xp=xp, device=device)
    return target_info(y, xp=xp, input_name=input_name, validate=validate).y_type


class Targets(NamedTuple):
    """Validated label targets."""

    y_type: str        # "binary" | "multiclass" | "multilabel-indicator"
    y_true: object
    y_pred: object
    values: tuple | None  # for binary numeric/str targets: the distinct values (host)
    bounds: tuple | None = None  # (min, max) over both, for integer-valued labels


def check_targets(y_true, y_pred, *, xp, validate=True, exact_binary=True) -> Targets:
    """scikit-learn's ``_check_targets``: same target type or a clear error.

    With ``validate=False`` the type comes from shapes alone: 2-D with more
    than one column is multilabel-indicator, anything else multiclass.
    With ``exact_binary=False`` two-valued labels more than 1 apart may be
    reported as "multiclass" (see ``target_info``).
    """
    check_consistent_length(y_true, y_pred)
    if validate and not exact_binary and _integer_labels(y_true, xp) and _integer_labels(
            y_pred, xp):
        # integer labels are always valid binary/multiclass targets, and the
        # types only differ where exact_binary would tell them apart: no read
        # here, the label encoding finds the range in its counting pass
        ti = pi = _Info("multiclass", None)
    elif validate:
        ti = target_info(y_true, xp=xp, input_name="y_true", exact_binary=exact_binary)
        pi = target_info(y_pred, xp=xp, input_name="y_pred", exact_binary=exact_binary)
    else:
        ti = target_info(y_true, xp=xp, input_name="y_true", validate=False)
        pi = target_info(y_pred, xp=xp, input_name="y_pred", validate=False)
    for y in (y_true, y_pred):
        if num_samples(y) < 1:
            raise ValueError(
                "Found empty input array (e.g., `y_true` or `y_pred`) while a minimum "
                "of 1 sample is required.")
    types = {ti.y_type, pi.y_type}
    if types == {"binary", "multiclass"}:
        types = {"multiclass"}
    if len(types) > 1:
        raise ValueError(
            f"Classification metrics can't handle a mix of {ti.y_type} and {pi.y_type} "
            "targets")
    y_type = types.pop()
    if y_type not in ("binary", "multiclass", "multilabel-indicator"):
        raise ValueError(f"{y_type} is not supported")
    values = None
    if y_type in ("binary", "multiclass"):
        y_true = column_or_1d(y_true, xp=xp, input_name="y_true")
        y_pred = column_or_1d(y_pred, xp=xp, input_name="y_pred")
        if validate:
            kt, kp = dtype_kind(y_true, xp), dtype_kind(y_pred, xp)
            if (kt == "O") != (kp == "O"):
                raise ValueError("Mix of label input types (string and number)")
    if y_type == "binary":
        union = set(ti.values) | set(pi.values)
        if len(union) > 2:
            y_type = "multiclass"
        else:
            values = tuple(sorted(union))
    if y_type == "multilabel-indicator" and y_true.shape[1] != y_pred.shape[1]:
        raise ValueError(
            "Multi-label binary indicator input with different numbers of labels: "
            f"{y_true.shape[1]} and {y_pred.shape[1]}")
    bounds = None
    if ti.bounds is not None and pi.bounds is not None:
        bounds = (min(ti.bounds[0], pi.bounds[0]), max(ti.bounds[1], pi.bounds[1]))
    return Targets(y_type, y_true, y_pred, values, bounds)
