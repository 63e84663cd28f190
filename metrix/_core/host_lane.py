"""The host entry of a training-loop call: eager torch CPU tensors.

A lane (:mod:`.lane`) is reached through the edge, the namespace lookup and
the adapter: a few microseconds of Python per call, as much as the count
itself on a batch of 256.  A metric whose training-loop call is that cheap
(``confusion_matrix``, the mean errors) has a *host entry*: its public
function (:func:`~metrix._core.edge.host_entry`) first tests the array type
against ``ARRAY_TYPE``, then asks ``VIEWS`` (that type's adapter) for
zero-copy NumPy views, runs the metric's NumPy kernel on them
(:mod:`metrix.backends._small_batch`, the kernel the NumPy adapter's lane
runs too) and gives the result back with ``TO_ARRAY``, in three calls.  The
precision / recall / F family takes the same views past its edge and runs
its lane function in NumPy (:func:`numpy_lane`, ``TO_ARRAYS``).
Where the views or the kernel decline (arrays off the host, not 1-D of one
length, another dtype, a label outside the declared ones), the call goes the
usual way (edge, namespace, lane or general path), with the same numbers.
At 256 rows this takes a declared confusion matrix on torch CPU from about
11 to 6-7 us (TorchMetrics: 13-15 us).

The torch adapter registers its tensor type (not subclasses) when its
module loads, at the first metric call on a tensor (which goes the usual
way).  Only torch has host views: NumPy arrays take the lane through the
edge (their call is no training-loop step), and the other libraries' arrays
live off the host or dispatch their own kernels.  Module attributes,
compared by identity: ``torch.compile`` traces the test (a dict keyed by a
type it does not), and the views decline while it compiles.
"""

from __future__ import annotations

__all__ = ["ARRAY_TYPE", "VIEWS", "TO_ARRAY", "TO_ARRAYS", "register", "numpy_lane"]

#: the array type with host views (None until its adapter loads)
ARRAY_TYPE = None
#: ``views(a, b, w, rows)``: zero-copy NumPy views ``(a, b, w)`` of eager host
#: arrays, 1-D and of one length (1 to ``rows``; ``w`` may be None), or None
VIEWS = None
#: a NumPy array as an ``ARRAY_TYPE`` array (zero copy)
TO_ARRAY = None
#: a lane function's NumPy result (an array, a NumPy scalar, or a tuple of
#: them and None) as ``ARRAY_TYPE`` arrays
TO_ARRAYS = None


def register(array_type, views, to_array, to_arrays):
    """Give ``array_type`` (exactly) the host views ``views`` and the ways back
    ``to_array`` and ``to_arrays``."""
    global ARRAY_TYPE, VIEWS, TO_ARRAY, TO_ARRAYS
    ARRAY_TYPE, VIEWS, TO_ARRAY, TO_ARRAYS = array_type, views, to_array, to_arrays


_NUMPY_LANE: list = []


def numpy_lane():
    """``(xp, ops)``: NumPy's lean namespace and its adapter, in which a lane
    function runs on host views (loaded at the first call)."""
    if not _NUMPY_LANE:
        from ..backends.numpy import lean_namespace

        _NUMPY_LANE.extend(lean_namespace())
    return _NUMPY_LANE
