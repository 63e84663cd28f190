"""The host entry of a training-loop lane: the call on CPU tensors or NumPy arrays.

A lane (:mod:`.lane`) is reached through the edge, the namespace lookup and
the adapter: a few microseconds of Python per call, as much as the count
itself on a batch of 256.  A metric whose training-loop call is that cheap
(``confusion_matrix``, the mean errors) has a *host entry*: its public
function (:func:`~metrix._core.edge.host_entry`) first asks
:func:`host_lane`, which takes the call only when its arrays are eager torch
CPU tensors (zero-copy NumPy views) or NumPy arrays, 1-D, of one length (1
to the lane's row cap) and of the lane's dtype kind, and runs the *same*
lane function on them in NumPy.  For anything else it returns None and the
call goes the usual way (edge, namespace, lane or general path), with the
same numbers.  At 256 rows this takes a declared confusion matrix on torch
CPU from about 11 to 7.5 us (TorchMetrics: 15 us).

Which array types have host views is the adapters' answer
(``ops(xp).host_views``: NumPy's arrays themselves, torch's CPU tensors
outside ``torch.compile``); it is looked up once per array type.
"""

from __future__ import annotations

import numpy as np

from ..backends import ops
from ..backends._generic import LANE_ROWS
from ..backends.numpy import lean_namespace
from . import namespace as _ns

__all__ = ["host_lane"]

#: array type -> its adapter where it can have host views, else None
_ADAPTERS: dict = {}
#: the NumPy dtype kinds of a lane's ``kind`` (the array API's, as ``has_kind``)
_KINDS = {"integral": "iu", "real floating": "f"}
#: NumPy's lean namespace and adapter (the lanes' NumPy), loaded at the first call
_LEAN: list = []


def host_lane(fn, config, kind, y_true, y_pred, sample_weight=None):
    """``fn(xp, ops, config, y_true, y_pred, sample_weight)`` run on NumPy
    host arrays and given back in the inputs' library, or None where the call
    must take its usual way.

    ``kind``: the dtype kind ``y_true`` and ``y_pred`` must have ("integral"
    or "real floating"; ``sample_weight`` is real floating).  Rows: at most
    ``fn.host_view_rows`` (default: every lane's cap).
    """
    t = type(y_true)
    try:
        o = _ADAPTERS[t]
    except KeyError:
        o = _ADAPTERS[t] = _adapter(y_true)
    if o is None or type(y_pred) is not t or (sample_weight is not None
                                               and type(sample_weight) is not t):
        return None
    host = o.host_views(y_true, y_pred, sample_weight)
    if host is None:
        return None
    a, b, w, back = host
    shape = a.shape
    if len(shape) != 1 or b.shape != shape or not 0 < shape[0] <= getattr(
            fn, "host_view_rows", LANE_ROWS):
        return None
    kinds = _KINDS[kind]
    if a.dtype.kind not in kinds or b.dtype.kind not in kinds or (
            w is not None and (w.shape != shape or w.dtype.kind != "f")):
        return None
    if not _LEAN:
        _LEAN.extend(lean_namespace())
    return back(fn(_LEAN[0], _LEAN[1], config, a, b, w))


def _adapter(x):
    """The adapter of ``x``'s array type when it may have host views (NumPy
    arrays, torch tensors), else None (every other type: no lookup per call)."""
    if type(x) is not np.ndarray and type(x).__module__.split(".")[0] != "torch":
        return None
    xp = _ns.lane_namespace(x)
    return None if xp is None else ops(xp)
