"""Segmentation inputs: parameter checks, layouts and the class set.

A segmentation metric takes a target and a prediction in one of the layouts
TorchMetrics names (``input_format``):

* ``"index"``: two label maps of shape ``(N, ...)`` (``N`` images, any number
  of spatial axes), integer or boolean;
* ``"one-hot"``: two arrays of shape ``(N, C, ...)``: 0 / 1 indicators, or
  float scores (probabilities, logits) that are argmaxed over axis 1;
* ``"mixed"``: one of each (the array with the extra axis is the one-hot one).

:func:`prepare` checks the parameters and shapes (always) and the values (with
``validate=True`` only), and resolves the classes counted: the declared
``labels``, else the channels of a one-hot input, else (label maps) the
distinct values of both maps, read on the host.  Each side comes out flat, as
a label map ``(N, P)`` or an indicator ``(N, C, P)`` of ``P`` pixels.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

from .._core import namespace as _ns
from .._core.validation import assert_all_finite, check_average
from ..backends import ops as _ops

INPUT_FORMATS = ("index", "one-hot", "mixed")
WEIGHT_TYPES = ("square", "simple", "linear")
#: label ranges up to this wide are discovered by a presence count (else a sort)
_PRESENCE_RANGE = 1 << 20


class Side:
    """One input, flattened: ``index`` (N, P) label map, or ``onehot`` (N, C, P).

    ``raw`` is the label map in the dtype it came in (uint8 masks stay uint8);
    ``array`` is it in the count dtype, widened on first use, so the fused
    declared count (which takes any integer width) reads no widened copy.
    """

    __slots__ = ("kind", "raw", "_xp", "_array")

    def __init__(self, kind, raw, xp):
        self.kind, self.raw, self._xp, self._array = kind, raw, xp, None

    @property
    def array(self):
        if self._array is None:
            y, xp = self.raw, self._xp
            cdt = _ns.count_dtype(xp, _ns.device_of(y)) if self.kind == "index" else y.dtype
            self._array = y if y.dtype == cdt else xp.astype(y, cdt)
        return self._array


class Prepared(NamedTuple):
    xp: object
    device: object
    true: Side
    pred: Side
    classes: list         # host class ids, in result order
    n_channels: int | None  # C of a one-hot side, else None
    valid: object         # (N, P) bool: target pixel not ignore_index, or None
    float_dtype: object   # dtype of float results
    acc_dtype: object     # dtype ratios are formed in


def check_parameters(*, average, averages, ignore_index, include_background, per_image,
                     input_format, weight_type=None):
    """The checks that read no value (always run)."""
    check_average(average, averages)
    if input_format not in INPUT_FORMATS:
        raise ValueError(
            f"The 'input_format' parameter must be a str among {sorted(INPUT_FORMATS)}. "
            f"Got {input_format!r} instead.")
    if ignore_index is not None and (
            not isinstance(ignore_index, numbers.Integral) or isinstance(ignore_index, bool)):
        raise ValueError(
            f"The 'ignore_index' parameter must be an int or None. Got {ignore_index!r} "
            "instead.")
    for name, value in (("include_background", include_background),
                        ("per_image", per_image)):
        if not isinstance(value, bool):
            raise ValueError(
                f"The '{name}' parameter must be an instance of 'bool'. Got {value!r} instead.")
    if weight_type is not None and weight_type not in WEIGHT_TYPES:
        raise ValueError(
            f"The 'weight_type' parameter must be a str among {sorted(WEIGHT_TYPES)}. "
            f"Got {weight_type!r} instead.")


def prepare(y_true, y_pred, *, labels, ignore_index, include_background, input_format,
            validate) -> Prepared:
    """Namespace, layouts, value checks and the class set (see the module docstring)."""
    xp, device = _ns.get_namespace_and_device(y_true, y_pred)
    yt = _ns.asarray(y_true, xp=xp, device=device)
    yp = _ns.asarray(y_pred, xp=xp, device=device)
    t_kind, p_kind = _layout(yt, yp, input_format)
    for name, y, kind in (("y_true", yt, t_kind), ("y_pred", yp, p_kind)):
        _check_dtype(y, kind, name, xp)
    onehots = [y for y, kind in ((yt, t_kind), (yp, p_kind)) if kind == "onehot"]
    fdt = _ns.result_float_dtype(xp, device, *onehots)
    acc = _ns.max_float_dtype(xp, device)
    n_channels = int(onehots[-1].shape[1]) if onehots else None
    if n_channels == 0:
        raise ValueError("One-hot inputs need at least one channel (axis 1 has size 0).")
    if ignore_index is not None and t_kind != "index":
        raise ValueError(
            "ignore_index needs a target label map: input_format='index', or 'mixed' with "
            "y_true of shape (N, ...).")
    if validate:
        for name, y, kind in (("y_true", yt, t_kind), ("y_pred", yp, p_kind)):
            _check_values(y, kind, name, xp)
    true = _flatten(yt, t_kind, xp)
    pred = _flatten(yp, p_kind, xp)
    valid = None if ignore_index is None else (true.array != ignore_index)
    if validate and n_channels is not None:
        for name, side in (("y_true", true), ("y_pred", pred)):
            if side.kind == "index":
                _check_in_range(side.array, valid, n_channels, name, xp)
    classes = _classes(labels, true, pred, valid, n_channels, validate, xp)
    if not include_background:
        classes = [c for c in classes if c != 0]
    if not classes:
        raise ValueError("No class is left to score: 'labels' (without the background "
                         "class 0 when include_background=False) is empty.")
    return Prepared(xp, device, true, pred, classes, n_channels, valid, fdt, acc)


def _layout(yt, yp, input_format):
    """The kind of each side, after the shape checks."""
    if input_format == "mixed":
        if yp.ndim == yt.ndim + 1:
            kinds, onehot, index = ("index", "onehot"), yp, yt
        elif yt.ndim == yp.ndim + 1:
            kinds, onehot, index = ("onehot", "index"), yt, yp
        else:
            raise ValueError(
                "input_format='mixed' expects one input of shape (N, C, ...) and one of "
                f"shape (N, ...); got {tuple(yt.shape)} and {tuple(yp.shape)}.")
        if onehot.shape[0] != index.shape[0] or onehot.shape[2:] != index.shape[1:]:
            raise ValueError(
                "y_true and y_pred have inconsistent shapes for input_format='mixed': "
                f"{tuple(yt.shape)} and {tuple(yp.shape)}.")
        if index.ndim < 2:
            raise ValueError("Label maps must have shape (N, ...) with at least one pixel axis; "
                             f"got shape {tuple(index.shape)}.")
        return kinds
    if tuple(yt.shape) != tuple(yp.shape):
        raise ValueError(
            f"y_true and y_pred must have the same shape, got {tuple(yt.shape)} and "
            f"{tuple(yp.shape)}.")
    least = 2 if input_format == "index" else 3
    if yt.ndim < least:
        what = "(N, ...)" if input_format == "index" else "(N, C, ...)"
        raise ValueError(
            f"input_format={input_format!r} expects arrays of shape {what} with at least "
            f"{least} dimensions; got shape {tuple(yt.shape)}.")
    kind = "index" if input_format == "index" else "onehot"
    return kind, kind


def _check_dtype(y, kind, name, xp):
    if kind == "index" and not (_ns.has_kind(xp, y.dtype, "integral")
                                or _ns.has_kind(xp, y.dtype, "bool")):
        raise ValueError(
            f"{name} must be a label map of integers (class indices) for this input_format; "
            f"got dtype {y.dtype}. Pass scores of shape (N, C, ...) with "
            "input_format='one-hot' or 'mixed'.")
    if kind == "onehot" and not (_ns.has_kind(xp, y.dtype, "numeric")
                                 or _ns.has_kind(xp, y.dtype, "bool")):
        raise ValueError(f"{name} must hold numbers; got dtype {y.dtype}.")


def _check_values(y, kind, name, xp):
    """Value checks (host reads: ``validate=True`` only)."""
    if kind != "onehot":
        return
    if _ns.has_kind(xp, y.dtype, "real floating"):
        assert_all_finite(y, xp=xp, input_name=name)
    elif not _ns.has_kind(xp, y.dtype, "bool") and not bool(xp.all((y == 0) | (y == 1))):
        raise ValueError(
            f"{name} is an integer one-hot input but holds values other than 0 and 1; "
            "pass float scores to have them argmaxed over axis 1.")


def _check_in_range(y, valid, n, name, xp):
    bad = (y < 0) | (y >= n)
    if valid is not None:
        bad = bad & valid
    if bool(xp.any(bad)):
        raise ValueError(
            f"{name} holds class indices outside [0, {n}), the channels of the one-hot input.")


def _flatten(y, kind, xp):
    """One side as ``(N, P)`` codes or an ``(N, C, P)`` indicator (floats argmaxed)."""
    n = int(y.shape[0])
    if kind == "onehot" and _ns.has_kind(xp, y.dtype, "real floating"):
        y, kind = xp.argmax(y, axis=1), "index"
    if kind == "index":
        return Side("index", xp.reshape(y, (n, -1)), xp)
    return Side("onehot", xp.reshape(y != 0, (n, int(y.shape[1]), -1)), xp)


def _classes(labels, true, pred, valid, n_channels, validate, xp):
    """The class ids counted, in result order (host ints)."""
    if labels is not None:
        classes = _ns.host_list(labels)
        if len(classes) == 0:
            raise ValueError("'labels' should contain at least one label.")
        for c in classes:
            if not isinstance(c, numbers.Integral) or isinstance(c, bool):
                raise ValueError(f"Segmentation labels must be integers; got {c!r}.")
        classes = [int(c) for c in classes]
        if len(set(classes)) != len(classes):
            raise ValueError("'labels' must not repeat a class.")
        if n_channels is not None and any(c < 0 or c >= n_channels for c in classes):
            raise ValueError(
                f"'labels' must be channel indices in [0, {n_channels}) for one-hot inputs; "
                f"got {classes}.")
        return classes
    if n_channels is not None:
        return list(range(n_channels))
    if not validate:
        raise ValueError(
            "Declare 'labels' with validate=False and input_format='index': finding the "
            "classes of label maps reads the data on the host.")
    return _discover(true.array, pred.array, valid, xp)


def _discover(yt, yp, valid, xp):
    """Sorted distinct values of both label maps over the kept pixels (host reads)."""
    o = _ops(xp)
    if valid is not None:
        if not bool(xp.any(valid)):
            raise ValueError("Every pixel of y_true equals ignore_index: nothing to score.")
        big = xp.iinfo(yt.dtype).max
        lo = min(int(xp.min(xp.where(valid, yt, big))), int(xp.min(xp.where(valid, yp, big))))
        # ignored pixels take a value that is kept anyway (the smallest)
        yt = xp.where(valid, yt, lo)
        yp = xp.where(valid, yp, lo)
    else:
        lo = min(int(xp.min(yt)), int(xp.min(yp)))
    hi = max(int(xp.max(yt)), int(xp.max(yp)))
    span = hi - lo + 1
    if span <= max(_PRESENCE_RANGE, 4 * int(yt.shape[0] * yt.shape[1])):
        flat = xp.reshape(xp.concat([yt, yp], axis=1), (-1,)) - lo
        present = _ns.to_host(o.bincount(flat, length=span) > 0)
        return [lo + int(i) for i in present.nonzero()[0]]
    values, _ = o.unique_counts(xp.reshape(xp.concat([yt, yp], axis=1), (-1,)))
    return [int(v) for v in _ns.to_host(values)]
