"""Input handling for the ranking family: scores, weights, label encodings.

Parameter and shape checks always run; checks that read values (target
types, NaN/inf, label sets) run only with ``validate=True``.  String labels
are NumPy-only: they are compared on the host and the resulting masks or
codes are moved to the scores' device, so a string ``y_true`` may go with
scores of any library.
"""

from __future__ import annotations

import numbers

from .._core import namespace as _ns
from .._core.validation import (
    assert_all_finite,
    check_consistent_length,
    check_nonzero_weights,
    type_of_target,
)
from ..backends import ops
from ..classification._encoding import distinct_values


class Inputs:
    """Scores, weights and the (not yet encoded) targets of one call.

    ``ensure_2d`` raises scikit-learn's ``check_array(ensure_2d=True)`` error
    for a 1-D ``y_true`` or ``y_score`` (before any other check, as there).
    ``score_dtype`` is the dtype ``y_score`` came in (``score`` is float).
    """

    def __init__(self, y_true, y_score, sample_weight, *, validate, ensure_1d_weight=True,
                 nonzero_weights=True, ensure_2d=False):
        strings = _ns.host_string_labels(y_true, with_bytes=True)
        xp, device = _ns.get_namespace_and_device(y_score, sample_weight,
                                                  None if strings else y_true)
        self.xp, self.device, self.ops = xp, device, ops(xp)
        self.host_y = strings
        if self.host_y:
            hxp, _ = _ns.get_namespace_and_device(y_true)
            self.y = _ns.asarray(y_true, xp=hxp)
            self.hxp = hxp
        else:
            self.y = _ns.asarray(y_true, xp=xp, device=device)
        score = _ns.asarray(y_score, xp=xp, device=device)
        if ensure_2d:
            check_2d(self.y)
            check_2d(score)
        self.score_dtype = score.dtype
        if not xp.isdtype(score.dtype, "real floating"):
            score = xp.astype(score, _ns.max_float_dtype(xp, device))
        self.fdt = _ns.result_float_dtype(xp, device, score)
        self.acc = _ns.max_float_dtype(xp, device)
        if validate:
            assert_all_finite(score, xp=xp, input_name="y_score")
        self.score = score
        check_consistent_length(self.y, score, sample_weight)
        if score.ndim and score.shape[0] == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={tuple(score.shape)}) "
                             "while a minimum of 1 is required.")
        self.weight = None
        self._set_weight(sample_weight, validate=validate, ensure_1d=ensure_1d_weight,
                         nonzero=nonzero_weights)

    def add_weight(self, sample_weight, *, validate, nonzero=True):
        """Check and keep ``sample_weight`` given after construction.

        For a metric that must raise another error before any weight check
        (``roc_auc_score``'s one-vs-one): it constructs without the weights.
        """
        check_consistent_length(self.y, self.score, sample_weight)
        self._set_weight(sample_weight, validate=validate, nonzero=nonzero)

    def _set_weight(self, sample_weight, *, validate, ensure_1d=True, nonzero=True):
        """Convert and check ``sample_weight`` (kept as ``weight``, dtype ``acc``)."""
        if sample_weight is None:
            return
        xp, device = self.xp, self.device
        w = _ns.asarray(sample_weight, xp=xp, device=device)
        if ensure_1d and w.ndim == 2 and w.shape[1] == 1:
            w = xp.reshape(w, (-1,))
        if w.ndim != 1:
            raise ValueError(f"Sample weights must be 1D array or scalar, got {w.ndim}D "
                             f"array of shape {tuple(w.shape)}.")
        if xp.isdtype(w.dtype, "real floating"):
            self.fdt = _ns.result_float_dtype(xp, device, self.score, w)
        w = xp.astype(w, self.acc)
        if validate:
            assert_all_finite(w, xp=xp, input_name="sample_weight")
            if nonzero:
                check_nonzero_weights(w, xp=xp)
        self.weight = w

    def to_device(self, a):
        return _ns.asarray(a, xp=self.xp, device=self.device)

    def out(self, x):
        """Cast a result to the result dtype; NumPy 0-d become scalars."""
        return _ns.to_output(self.xp.astype(x, self.fdt), self.xp)


def check_2d(a):
    """scikit-learn's ``check_array(ensure_2d=True)`` error for a 0-d or 1-D array."""
    if a.ndim < 2:
        raise ValueError(
            f"Expected 2D array, got {'scalar' if a.ndim == 0 else '1D'} array instead:\n"
            f"array={a}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample.")


def target_type(inp: Inputs) -> str:
    """scikit-learn's ``type_of_target`` of ``y_true`` (bytes labels: its TypeError)."""
    y = inp.y
    if inp.host_y and y.ndim and y.shape[0] and isinstance(y[0], bytes):
        raise TypeError("Support for labels represented as bytes is not supported. Convert "
                        "the labels to a string or integer format.")
    return type_of_target(y, input_name="y_true")


def unique_array(inp: Inputs):
    """Distinct values of ``y_true`` (sorted, a host NumPy array of its dtype; reads
    the data): what scikit-learn prints when it lists the labels present."""
    if inp.host_y:
        return _ns.host_unique(inp.y)
    return distinct_values(inp.y, xp=inp.xp)


def unique_values(inp: Inputs, values=None) -> list:
    """Distinct values of ``y_true`` (sorted, host list; reads the data), or of
    the :func:`unique_array` ``values`` already read."""
    values = unique_array(inp) if values is None else values
    if inp.host_y:
        return values.tolist()
    return [int(v) if isinstance(v, float) and v == int(v) else v for v in values.tolist()]


def equals(inp: Inputs, value):
    """``y_true == value`` as a boolean array on the scores' device."""
    if inp.host_y:
        return inp.to_device(inp.y == value)
    y = inp.y
    xp = inp.xp
    if xp.isdtype(y.dtype, "bool"):
        return y if bool(value) else ~y
    return y == value


def positive_of_max(inp: Inputs):
    """roc_auc_score's binary encoding: the larger of the labels is positive."""
    if inp.host_y:
        return inp.to_device(inp.y == _ns.host_unique(inp.y)[-1])
    xp = inp.xp
    y = inp.y
    if xp.isdtype(y.dtype, "bool"):
        return y | ~xp.any(y)
    return y == xp.max(y)


def check_pos_label(inp: Inputs, pos_label):
    """scikit-learn's ``_check_pos_label_consistency`` (reads the data)."""
    if pos_label is not None:
        return pos_label
    classes = unique_values(inp)
    ok_sets = ([0, 1], [-1, 1], [0], [-1], [1])
    if inp.host_y or not any(classes == s for s in ok_sets):
        classes_repr = ", ".join(repr(c) for c in classes)
        raise ValueError(
            f"y_true takes value in {{{classes_repr}}} and pos_label is not specified: "
            "either make y_true take value in {0, 1} or {-1, 1} or pass pos_label "
            "explicitly.")
    return 1


def curve_positive(inp: Inputs, pos_label, *, validate):
    """The positive mask of a binary curve (roc/pr/det) as scikit-learn encodes it."""
    if inp.y.ndim == 2 and inp.y.shape[1] == 1:
        inp.y = inp.xp.reshape(inp.y, (-1,)) if not inp.host_y else inp.y.reshape(-1)
    if inp.y.ndim != 1:
        raise ValueError("multilabel-indicator format is not supported")
    if inp.score.ndim == 2 and inp.score.shape[1] == 1:
        inp.score = inp.xp.reshape(inp.score, (-1,))
    if inp.score.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape "
                         f"{tuple(inp.score.shape)} instead.")
    if validate:
        y_type = target_type(inp)
        if not (y_type == "binary" or (y_type == "multiclass" and pos_label is not None)):
            raise ValueError(f"{y_type} format is not supported")
        pos_label = check_pos_label(inp, pos_label)
    elif pos_label is None:
        pos_label = 1
    return equals(inp, pos_label)


def check_labels(labels, *, n_columns, msgs, inp: Inputs, validate):
    """Validate declared multiclass ``labels`` (a host list); return them sorted."""
    labels = [v.item() if hasattr(v, "item") else v for v in labels]
    uniq = sorted(set(labels))  # pure Python: traceable by dynamo
    if len(uniq) != len(labels):
        raise ValueError(msgs["unique"])
    if uniq != labels:
        raise ValueError(msgs["ordered"])
    if len(labels) != n_columns:
        raise ValueError(msgs["count"].format(len(labels), n_columns))
    if validate:
        present = unique_values(inp)
        if set(present) - set(labels):
            raise ValueError(msgs["subset"])
    return labels


def encode_classes(inp: Inputs, labels):
    """Integer codes ``0..C-1`` of ``y_true`` among the sorted ``labels``; ``C``
    for a value that is none of them (only unchecked input has one: each
    metric states what such a sample counts as)."""
    xp = inp.xp
    cdt = _ns.count_dtype(xp, inp.device)
    c = len(labels)
    if inp.host_y:
        return inp.to_device(_ns.host_encode(inp.y, labels))
    y = inp.y
    if xp.isdtype(y.dtype, "bool"):
        y = xp.astype(y, cdt)
    if not xp.isdtype(y.dtype, "real floating") and not all(
            isinstance(v, (int, bool)) for v in labels):
        y = xp.astype(y, _ns.max_float_dtype(xp, inp.device))
    lab = _ns.asarray(labels, xp=xp, device=inp.device, dtype=y.dtype)
    pos = xp.astype(xp.searchsorted(lab, y), cdt)
    pos_c = xp.minimum(pos, xp.asarray(c - 1, dtype=cdt, device=inp.device))
    return xp.where(xp.take(lab, pos_c) == y, pos_c, xp.full_like(pos_c, c))


def discover_classes(inp: Inputs):
    """``(classes, codes)`` from the data (a sort; eager only)."""
    if inp.host_y:
        hxp = inp.hxp
        vals, inv = ops(hxp).unique_inverse(inp.y)
        return vals.tolist(), inp.to_device(inv)
    xp = inp.xp
    y = inp.y
    if xp.isdtype(y.dtype, "bool"):
        y = xp.astype(y, _ns.count_dtype(xp, inp.device))
    vals, inv = inp.ops.unique_inverse(y)
    # the adapter's python_scalars: integral floats become ints (1.0 -> 1)
    return inp.ops.python_scalars(vals), xp.astype(inv, _ns.count_dtype(xp, inp.device))


def check_k(k, name="k"):
    if k is not None and (not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1):
        raise ValueError(f"The '{name}' parameter of this function must be an int in the "
                         f"range [1, inf) or None. Got {k!r} instead.")
