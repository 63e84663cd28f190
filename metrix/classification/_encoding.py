"""Label encoding: map label values to integer codes on the device.

The encoding gives codes in a "code space" ``[0, size)`` plus a selection
``select`` of code positions that are the classes of the result:

* declared ``labels`` (sync-free): code ``i`` for ``labels[i]`` and code
  ``C`` for every value not among the labels (the "other" bin); ``select`` is
  ``0..C-1``.  Counts of a declared label do not depend on the other values,
  exactly as in scikit-learn.
* integer labels discovered from the data: no sort.  The host reads ``min``
  and ``max`` (a sync, unavoidable when the label set is data-dependent);
  the codes are the values minus an offset, and the present classes are read
  off the same bincount that gives the statistic (``resolve``).
* a value range far larger than the data, and strings (NumPy only):
  ``unique`` (a sort) gives the classes directly.
"""

from __future__ import annotations

from typing import NamedTuple

from .._core import namespace as _ns
from .._core.validation import dtype_kind
from ..backends import ops as _ops

#: discovered integer ranges up to this many bins are counted directly
RANGE_LIMIT = 1 << 20
#: declared label sets up to this size are encoded by comparisons
FEW_LABELS = 4


class LabelSpace(NamedTuple):
    y_true: object          # int codes on the device, in [0, size); None when the
    y_pred: object          # codes were only made inside a fused count
    size: int               # number of code bins
    classes: object         # host array of class values, or None until resolve()
    offset: int             # value = code + offset, for discovered integer ranges
    declared: bool          # labels were given by the caller
    value_kind: str         # "i", "f", "b" or "O": dtype kind of the label values


def label_kind(y, xp) -> str:
    """The kind label values are encoded by: :func:`dtype_kind` with signed and
    unsigned integers one kind, "i" ("i", "f", "b" or "O": strings, objects)."""
    kind = dtype_kind(y, xp)
    return "i" if kind == "u" else kind


def _joint_kind(kt, kp) -> str:
    """The kind both label arrays are encoded as: "O" over "f" over "i" over "b"."""
    for k in "Ofi":
        if k in (kt, kp):
            return k
    return "b"


def _common_float(y_true, y_pred, xp):
    """Both arrays in one float dtype (the wider of the float ones)."""
    floats = [y.dtype for y in (y_true, y_pred) if xp.isdtype(y.dtype, "real floating")]
    dt = xp.result_type(*floats)
    return (y if y.dtype == dt else xp.astype(y, dt) for y in (y_true, y_pred))


def comparable(y_true, y_pred, xp):
    """Both label arrays in one dtype for ``==`` (array-api-strict refuses mixed
    int / float / bool comparisons): floats win, then the integer dtype."""
    if y_true.dtype == y_pred.dtype or _ops(xp).compares_mixed_dtypes:
        return y_true, y_pred
    kind = _joint_kind(label_kind(y_true, xp), label_kind(y_pred, xp))
    if kind == "f":
        return tuple(_common_float(y_true, y_pred, xp))
    if kind == "i":
        dt = _ns.count_dtype(xp, _ns.device_of(y_true))
        return xp.astype(y_true, dt), xp.astype(y_pred, dt)
    return y_true, y_pred


def _as_int_codes(y, xp, device):
    """Numeric labels (bool, integral floats) as integers of the count dtype."""
    return xp.astype(y, _ns.count_dtype(xp, device), copy=False)


def encode(y_true, y_pred, *, labels, xp, device, bounds=None) -> LabelSpace:
    """Encode 1-D label arrays into a :class:`LabelSpace`.

    ``labels`` (host values, or None) follow scikit-learn: declared order, and
    values outside them go to the "other" bin.  ``bounds``: the (min, max) of
    both arrays when validation already read them (saves two passes).
    """
    kind = _joint_kind(label_kind(y_true, xp), label_kind(y_pred, xp))
    if kind == "O":
        return _encode_host(y_true, y_pred, labels=labels)
    if kind == "f":
        # float labels (unvalidated, or integral floats) compare as values on
        # both sides: a 0.9 is no label 0 (no truncation toward an integer)
        y_true, y_pred = _common_float(y_true, y_pred, xp)
    if labels is not None:
        return _encode_declared(y_true, y_pred, labels=_ns.host_list(labels), xp=xp,
                                device=device, kind=kind)
    return _encode_discovered(y_true, y_pred, xp=xp, device=device, kind=kind,
                              bounds=bounds)


def _encode_host(y_true, y_pred, *, labels):
    np_yt, np_yp = _ns.host_values(y_true), _ns.host_values(y_pred)
    if labels is None:
        classes = _ns.host_unique(_ns.host_concat(np_yt, np_yp))
        size, declared = len(classes), False
    else:
        classes = _ns.host_values(labels)
        size, declared = len(classes) + 1, True
    return LabelSpace(_ns.host_encode(np_yt, classes), _ns.host_encode(np_yp, classes),
                      size, classes, 0, declared, "O")


def _encode_declared(y_true, y_pred, *, labels, xp, device, kind) -> LabelSpace:
    n = len(labels)
    cdt = _ns.count_dtype(xp, device)
    if kind in "ib" and _ns.host_arange_equal(labels):
        # labels are 0..C-1: the values are the codes; others go to bin C
        def code(y):
            return _ops(xp).codes_or_other(y, n)  # bool and every integer width
    elif n <= FEW_LABELS:
        # a handful of labels (average="binary" counts one): n compares beat a
        # searchsorted + two gathers
        y_dtype = _compare_dtype(y_true, y_pred, labels, kind, xp, device)
        values = labels
        if kind == "b" and y_true.dtype == y_pred.dtype and all(v in (0, 1) for v in labels):
            # bool labels compare as bools (no widened copy of the arrays)
            y_dtype, values = y_true.dtype, [bool(v) for v in labels]

        def code(y):
            if y.dtype != y_dtype:
                y = xp.astype(y, y_dtype)
            if n == 1:  # average="binary": code 0 for pos_label, 1 for the rest
                return xp.astype(y != values[0], cdt)
            out = xp.full(y.shape, n, dtype=cdt, device=device)
            for i in reversed(range(n)):  # the first of duplicated labels wins
                out = xp.where(y == values[i], xp.asarray(i, dtype=cdt, device=device), out)
            return out
    else:
        sorted_labels, order = _ns.host_sorted_positions(labels)
        y_dtype = _compare_dtype(y_true, y_pred, labels, kind, xp, device)

        def code(y):
            if y.dtype != y_dtype:
                y = xp.astype(y, y_dtype)
            sl = _ns.asarray(sorted_labels, xp=xp, device=device, dtype=y_dtype)
            perm = _ns.asarray(order, xp=xp, device=device, dtype=cdt)
            pos = xp.astype(xp.searchsorted(sl, y), cdt)
            pos_c = xp.clip(pos, 0, n - 1) if n else pos
            hit = xp.take(sl, pos_c) == y
            return xp.where(hit, xp.take(perm, pos_c), xp.full_like(pos_c, n))
    return LabelSpace(code(y_true), code(y_pred), n + 1, labels, 0, True, kind)


def _compare_dtype(y_true, y_pred, labels, kind, xp, device):
    """The dtype label values are compared with ``labels`` in: the arrays' own
    (one dtype for both), unless a label does not fit it (int8 values, a label
    200; an integer array, a label 1.5): then the count dtype or the widest float."""
    cdt = _ns.count_dtype(xp, device)
    if kind == "b":
        return cdt
    dtype = y_true.dtype
    if y_pred.dtype != dtype:  # floats were made one dtype already: mixed integers
        dtype = cdt
    if xp.isdtype(dtype, "real floating"):
        return dtype
    info = xp.iinfo(dtype)
    if all(isinstance(v, (int, bool)) and info.min <= v <= info.max for v in labels):
        return dtype
    if all(isinstance(v, (int, bool)) for v in labels):
        return _ns.count_dtype(xp, device)
    return _ns.max_float_dtype(xp, device)


def _encode_discovered(y_true, y_pred, *, xp, device, kind, bounds=None) -> LabelSpace:
    if kind == "f" and y_true.shape[0] and not _integral(y_true, y_pred, xp):
        return _encode_unique(y_true, y_pred, xp=xp, device=device, kind=kind)
    yt = _as_int_codes(y_true, xp, device)
    yp = _as_int_codes(y_pred, xp, device)
    n = yt.shape[0]
    if n == 0:
        return LabelSpace(yt, yp, 0, _empty_classes(kind), 0, False, kind)
    if bounds is None:
        # host reads: the label set is data-dependent (no labels= given)
        (lo_t, hi_t), (lo_p, hi_p) = _ops(xp).minmax(yt), _ops(xp).minmax(yp)
        bounds = int(min(lo_t, lo_p)), int(max(hi_t, hi_p))
    lo, hi = bounds
    limit = max(RANGE_LIMIT, 2 * n)
    if 0 <= lo and hi < limit:
        return LabelSpace(yt, yp, hi + 1, None, 0, False, kind)
    if hi - lo < limit:
        return LabelSpace(yt - lo, yp - lo, hi - lo + 1, None, lo, False, kind)
    # sparse labels over a huge range: one sort (unique) instead of a bincount
    return _encode_unique(yt, yp, xp=xp, device=device, kind=kind)


def _integral(y_true, y_pred, xp) -> bool:
    """Whether float labels all hold integers.

    Host read: only called while discovering the labels (no ``labels=``), a
    path that reads the label set from the data anyway."""
    return bool(xp.all(y_true == xp.round(y_true)) & xp.all(y_pred == xp.round(y_pred)))


def _encode_unique(yt, yp, *, xp, device, kind) -> LabelSpace:
    """Codes among the sorted distinct values of both arrays (one sort)."""
    n = yt.shape[0]
    values, inverse = _ops(xp).unique_inverse(xp.concat([yt, yp]))
    host = _ns.to_host(values)
    classes = host if host.dtype.kind == "f" else restore_kind(host, kind)
    inverse = xp.astype(inverse, _ns.count_dtype(xp, device))
    return LabelSpace(inverse[:n], inverse[n:], len(classes), classes, 0, False, kind)


def _empty_classes(kind):
    return restore_kind(_ns.host_values([]).astype("int64"), kind)


def restore_kind(values, kind):
    """Host class values (int64 codes or values) in the dtype of ``kind``."""
    return values.astype({"f": "float64", "b": "bool"}.get(kind, "int64"))


def resolve(space: LabelSpace, present):
    """Classes and their code positions, given the host mask of present codes.

    Returns ``(classes, select)``: ``select`` is a host int array of code
    positions (None means "all of ``0..size-1``", i.e. no selection).
    For declared labels the other bin (the last code) is dropped.
    """
    if space.declared:
        return space.classes, list(range(space.size - 1))
    if space.classes is not None:
        return space.classes, None
    idx = _ns.host_values(present).nonzero()[0]
    return restore_kind(idx + space.offset, space.value_kind), idx


def distinct_values(y, *, xp):
    """Sorted distinct values of a numeric array, as a host NumPy array (reads the data).

    Integers and booleans: ``min``/``max`` and one presence ``bincount`` over
    the range (no sort) when the range is at most ``RANGE_LIMIT`` or twice the
    size; floats and wider ranges: ``unique`` (a sort).
    """
    y = xp.reshape(y, (-1,))
    adapter = _ops(xp)
    kind = label_kind(y, xp)
    if kind in "ib" and y.shape[0]:
        codes = _as_int_codes(y, xp, _ns.device_of(y))
        # host reads: callers are validate=True checks, exact (data-shaped, eager)
        # curves and the CLI (the user edge)
        lo, hi = (int(v) for v in adapter.minmax(codes))
        if hi - lo < max(RANGE_LIMIT, 2 * y.shape[0]):
            counts = adapter.bincount(codes - lo, length=hi - lo + 1)
            return restore_kind(_ns.host_values(counts).nonzero()[0] + lo, kind)
    values, _ = adapter.unique_counts(y)
    return restore_kind(_ns.host_values(values), kind)
