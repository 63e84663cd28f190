"""The host entry of a training-loop lane: the call on eager torch CPU tensors.

A lane (:mod:`.lane`) is reached through the edge, the namespace lookup and
the adapter: a few microseconds of Python per call, as much as the count
itself on a batch of 256.  A metric whose training-loop call is that cheap
(``confusion_matrix``, the mean errors) has a *host entry*: its public
function (:func:`~metrix._core.edge.host_entry`) first hands the call of
an ``ARRAY_TYPE`` array to ``LANE``, that array type's adapter's host lane
(:meth:`~metrix.backends.GenericOps.host_lane`).  That runs the
*same* lane function in NumPy on zero-copy views when the arrays are eager
CPU tensors, 1-D, of one length (1 to the lane's row cap) and of the lane's
dtype kind, in one frame; for anything else it returns None and the call
goes the usual way (edge, namespace, lane or general path), with the same
numbers.  At 256 rows this takes a declared confusion matrix on torch CPU
from about 11 to 6-7 us (TorchMetrics: 13-15 us).

The torch adapter registers its tensor type (not subclasses) when its
module loads, at the first metric call on a tensor (which goes the usual
way).  Only torch has a host lane: NumPy arrays take the lane through the
edge (their call is no training-loop step), and the other libraries' arrays
live off the host or dispatch their own kernels.  Two module attributes,
compared by identity: ``torch.compile`` traces the test (a dict keyed by a
type it does not), and the lane itself declines while it compiles.
"""

from __future__ import annotations

__all__ = ["ARRAY_TYPE", "LANE", "register"]

#: the array type with a host lane (None until its adapter loads)
ARRAY_TYPE = None
#: its ``host_lane(fn, config, kinds, y_true, y_pred, sample_weight)``: the
#: lane's value, or None where the call must take its usual way
LANE = None


def register(array_type, lane):
    """Give ``array_type`` (exactly) the host lane ``lane``."""
    global ARRAY_TYPE, LANE
    ARRAY_TYPE, LANE = array_type, lane
