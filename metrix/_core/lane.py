"""Which calls take a training-loop lane: the host checks, no value read.

A lane is a metric's pure statistic and formula for the common in-loop call
(``validate=False``, 1-D arrays of one type on one device), run through the
adapter's ``ops.lane`` (NumPy views on torch CPU, one compiled program per
configuration on eager JAX, a handful of kernels on accelerators).  Anything
else takes the metric's general path, which gives the same numbers.
"""

from __future__ import annotations

import numpy as np  # dispatch only: NumPy arrays have no device to compare

from ..backends import ops
from ..backends._generic import LANE_ROWS
from . import namespace as _ns

_ELIGIBLE: dict = {}
_FLOATS: dict = {}


def lane_namespace_1d(y_true, y_pred, sample_weight, kind):
    """The namespace of 1-D, non-empty, equal-length ``y_true`` / ``y_pred`` of
    dtype ``kind`` (any dtype for None; and a 1-D real floating
    ``sample_weight``), all of one array type on one device; None when the
    call must take the general path.  The type and dtype part of the answer
    is cached (a training loop asks the same question every step)."""
    kind_t = type(y_true)
    if type(y_pred) is not kind_t or (sample_weight is not None
                                      and type(sample_weight) is not kind_t):
        return None
    key = (kind_t, getattr(y_true, "dtype", None), getattr(y_pred, "dtype", None),
           None if sample_weight is None else getattr(sample_weight, "dtype", None), kind)
    try:
        xp = _ELIGIBLE[key]
    except KeyError:
        xp = _ELIGIBLE[key] = _eligible_namespace(y_true, y_pred, sample_weight, kind)
    except TypeError:  # an unhashable dtype
        xp = _eligible_namespace(y_true, y_pred, sample_weight, kind)
    if xp is None:
        return None
    shape = y_true.shape
    if len(shape) != 1 or shape[0] == 0 or y_pred.shape != shape or (
            sample_weight is not None and sample_weight.shape != shape):
        return None
    if kind_t is not np.ndarray:  # one device (a type test: NumPy arrays have none)
        try:
            device = y_true.device
            if y_pred.device != device or (sample_weight is not None
                                           and sample_weight.device != device):
                return None
        except Exception:  # no single device (sharded JAX arrays)
            return None
    # offline sizes: the general path's blocked kernels (every adapter takes a
    # lane up to LANE_ROWS rows; beyond, the CPU adapters decline)
    if shape[0] > LANE_ROWS and not ops(xp).lane_fits(y_true):
        return None
    return xp


def _eligible_namespace(y_true, y_pred, sample_weight, kind):
    """The namespace when the arrays' types and dtypes allow a lane, else None."""
    xp = _ns.lane_namespace(y_true)
    if xp is None:
        return None
    if kind is not None and not (_ns.has_kind(xp, y_true.dtype, kind)
                                 and _ns.has_kind(xp, y_pred.dtype, kind)):
        return None
    if sample_weight is not None and not _ns.has_kind(xp, sample_weight.dtype,
                                                      "real floating"):
        return None
    return xp


def lane_float_dtypes(xp, y_true, y_pred, weights=None):
    """``(accumulation, result)`` float dtypes of a lane over its arrays
    (``weights`` may be None), on ``y_true``'s device: the widest float the
    device has (:func:`~metrix._core.namespace.max_float_dtype`), and the widest
    float input (float32 for narrower floats; the widest float when none is
    one).  Cached per (namespace, device, dtypes): a training loop asks the same
    question every step (JAX asks once per compiled program: not cached, its
    64-bit types follow a runtime flag)."""
    # a type test only (NumPy arrays have no device); nothing is read
    device = None if type(y_true) is np.ndarray else _ns.device_of(y_true)
    # the namespace by id (it lives as long as the process): torch.compile
    # cannot compare a module in a dict key once the cache holds one
    key = (id(xp), device, y_true.dtype, y_pred.dtype,
           None if weights is None else weights.dtype)
    try:
        return _FLOATS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable device or dtype
        key = None
    hit = (_ns.max_float_dtype(xp, device),
           _ns.result_float_dtype(xp, device, y_true, y_pred, weights))
    if key is not None and len(_FLOATS) < 1024 and _ns.dtypes_are_fixed(xp):
        _FLOATS[key] = hit
    return hit


def cast(x, dtype, xp):
    """``x`` in ``dtype`` (no kernel when it already is)."""
    return x if x.dtype == dtype else xp.astype(x, dtype)
