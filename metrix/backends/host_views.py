"""Host views: a training-loop call on eager torch CPU tensors, answered in NumPy.

A lane (:mod:`metrix._core.lane`) is reached through the edge, the namespace
lookup and the adapter: a few microseconds of Python per call, as much as
the count itself on a batch of 256.  A metric whose training-loop call is
that cheap (``confusion_matrix``, the F-scores, the mean errors) asks
:func:`host_lane` first, with the lane function its lane runs anyway: where
its arrays have zero-copy NumPy views (the torch adapter registers
``torch.Tensor``, exactly, when it loads), the lane function runs on the views
in NumPy's lean namespace and its result comes back as tensors; anywhere
else, or where the views or the lane function decline (arrays off the host,
not 1-D of one length, a dtype outside the function's ``input_kinds``), the
answer is None and the call goes the usual way, to the same lane function or
the general path, with the same numbers.  At 256 rows this takes a declared
confusion matrix on torch CPU from about 11 to 6-7 us (TorchMetrics: 13-15 us).

Only torch has host views: NumPy arrays take the lane through the edge
(their call is no training-loop step), and the other libraries' arrays
live off the host or dispatch their own kernels.  Module attributes,
compared by identity: ``torch.compile`` traces the test (a dict keyed by a
type it does not), and the views decline while it compiles.
"""

from __future__ import annotations

import numpy as np

from ._generic import LANE_ROWS

__all__ = ["host_lane", "numpy_lane", "register"]

#: the array type with host views (None until its adapter loads)
ARRAY_TYPE = None
#: ``tracing()``: whether a compiler traces the call (the views decline then)
TRACING = None
#: ``on_host(a)``: whether the array lives on the host (the cheap test before
#: a view, whose refusal of a device array costs more than the metric)
ON_HOST = None
#: ``view(a)``: a host array's zero-copy NumPy view; TypeError or
#: RuntimeError where it has none (a gradient, a dtype NumPy lacks)
VIEW = None
#: a NumPy array (a lane function's usual result) as an ``ARRAY_TYPE`` array (zero copy)
TO_ARRAY = None
#: a lane function's other NumPy results (a NumPy scalar, or a tuple of
#: arrays, scalars and None) as ``ARRAY_TYPE`` arrays
TO_ARRAYS = None

#: the NumPy dtype kinds of the standard's kinds (a lane function's ``input_kinds``)
_KIND_CODES = {"real floating": "f", "integral": "iu", "bool": "b"}
#: lane function -> (rows, dtype kinds) of its views, NumPy's lean namespace
#: and its adapter (one lookup per call)
_SPECS: dict = {}


def host_lane(fn, config, a, b, w):
    """The lane function ``fn(xp, o, config, a, b, w)`` on zero-copy NumPy views
    of eager host arrays ``a``, ``b`` (1-D, one length, 1 to ``fn.host_view_rows``
    rows, :data:`LANE_ROWS` unless set; their dtypes of ``fn.input_kinds``) and
    the float weights ``w`` (or None), in NumPy's lean namespace; its result
    back in the arrays' type.  None where there are no such views or ``fn``
    declines (returns None).

    One frame, its checks inline (the registered tests and views are the
    adapter's, C calls where it has them): on a batch of 256 each Python call
    is a few percent of the metric's time."""
    if type(a) is not ARRAY_TYPE or TRACING() or not ON_HOST(a) or (
            type(b) is not ARRAY_TYPE) or (w is not None and type(w) is not ARRAY_TYPE):
        return None
    try:
        rows, kinds, xp, o = _SPECS[fn]
    except KeyError:
        rows, kinds, xp, o = _SPECS[fn] = _spec(fn)
    try:
        a = VIEW(a)
        b = VIEW(b)
        if w is not None:
            w = VIEW(w)
    except (TypeError, RuntimeError):
        return None
    shape = a.shape
    if len(shape) != 1 or b.shape != shape or not 0 < shape[0] <= rows or (
            w is not None and w.shape != shape):
        return None
    dt = a.dtype  # NumPy's dtypes are singletons: one kind test for the usual pair
    if dt.kind not in kinds or (b.dtype is not dt and b.dtype.kind not in kinds) or (
            w is not None and w.dtype.kind != "f"):
        return None
    out = fn(xp, o, config, a, b, w)
    if type(out) is _NDARRAY:  # one array, a 0-d one too: the way back in C
        return TO_ARRAY(out)
    return None if out is None else TO_ARRAYS(out)


def _spec(fn):
    """``fn``'s entry of :data:`_SPECS`."""
    xp, o = numpy_lane()
    return (getattr(fn, "host_view_rows", LANE_ROWS),
            "".join(_KIND_CODES[k] for k in fn.input_kinds), xp, o)


def register(array_type, tracing, on_host, view, to_array, to_arrays):
    """Give ``array_type`` (exactly) host views: the tests ``tracing`` and
    ``on_host``, the zero-copy ``view`` and the ways back ``to_array`` (a
    NumPy array) and ``to_arrays`` (any other result); see the module's
    attributes of those names."""
    global ARRAY_TYPE, TRACING, ON_HOST, VIEW, TO_ARRAY, TO_ARRAYS
    ARRAY_TYPE, TRACING, ON_HOST, VIEW = array_type, tracing, on_host, view
    TO_ARRAY, TO_ARRAYS = to_array, to_arrays


_NDARRAY = np.ndarray
_NUMPY_LANE: list = []


def numpy_lane():
    """``(xp, ops)``: NumPy's lean namespace and its adapter, in which a lane
    function runs on host views (loaded at the first call)."""
    if not _NUMPY_LANE:
        from .numpy import lean_namespace

        _NUMPY_LANE.extend(lean_namespace())
    return _NUMPY_LANE
