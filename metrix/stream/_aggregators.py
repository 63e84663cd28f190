"""Stateful aggregators with TorchMetrics' names: ``MeanMetric``, ``SumMetric``,
``MaxMetric``, ``MinMetric`` and ``CatMetric``.

Each holds its functional aggregator (:mod:`metrix.stream._aggregation`) as
the other :class:`~metrix.stream.Metric` classes hold theirs, and takes
``update(value, weight=None)`` (TorchMetrics' arguments) instead of
``(y_true, y_pred)``: everything else (``compute``, ``merge``, ``sync``,
``state_dict``, ``reset``, ``to``) is :class:`~metrix.stream.Metric`'s.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from ..backends import _collectives as _coll
from ._aggregation import (
    CatStream,
    MaxStream,
    MeanStream,
    MinStream,
    SumStream,
    drop_nan,
    nan_check,
)
from ._wrappers import Metric

__all__ = ["CatMetric", "MaxMetric", "MeanMetric", "MinMetric", "SumMetric"]


def _elements(value) -> int:
    """How many values an update brings (from the shape: no device read)."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return len(value) if isinstance(value, (list, tuple)) else 1
    return math.prod(shape)


class Aggregator(Metric):
    """A stateful aggregator: ``update(value, weight=None)``, ``compute()``.

    ``compute()`` before any value raises ``ValueError`` (as every
    :mod:`metrix.stream` metric: the mean of nothing is not 0).
    """

    #: whether ``update`` takes ``weight`` (the mean)
    takes_weight = False
    _owned_leaf = "total"

    def update(self, value, weight=None):
        """Add one batch of values (any shape, flattened; a Python number is one value)."""
        if self._add_in_place(value, weight):  # eager CPU: the sums added in place
            self._count_eager(value)
            return
        value, weight = self._edge(value, weight)
        if self._state is None:
            self._create_for(value, value, weight)
        if self._rows:
            if _coll.compiling():
                self._dropped = None
            else:
                start = self._reserve(_elements(value))
                if self._append(start, value, weight):  # CatMetric: in place (eager)
                    self._count_eager(value)
                    return
        self._count(value)
        self.state = self.spec.update(self._state, value, weight)

    def __call__(self, value, weight=None):
        """Add one batch and return the aggregate of that batch alone."""
        value, weight = self._edge(value, weight)
        if self._state is None:
            self._create_for(value, value, weight)
        xp, device, fdt = self._placement
        batch = self.spec.update(self.spec._init(xp, device, fdt), value, weight)
        if self._rows:
            self.update(value, weight)
            return _ns.to_output(self.spec.compute(batch, rows=_elements(value)), xp)
        self._count(value)
        self.state = self.spec.merge(self._state, batch)
        return _ns.to_output(self.spec.compute(batch), xp)

    def _edge(self, value, weight):
        if weight is not None and not self.takes_weight:
            raise TypeError(f"{type(self).__name__}.update takes no weight")
        nan_check(value, weight, self.spec.nan_strategy, type(self).__name__)
        return value, weight

    def _count_eager(self, value):
        if self._seen is not None:
            self._seen += _elements(value)


class MeanMetric(Aggregator):
    """Streaming weighted mean of logged values: ``sum w v / sum w``.

    ``MeanMetric(nan_strategy="disable")``; ``update(value, weight=None)``
    adds a batch (``weight`` broadcast to the value's shape; a batch's mean
    loss logged with ``weight=batch_size`` gives the mean over samples).
    The sums are float64 where the device has it, compensated float32 pairs
    where it does not.  ``nan_strategy``: ``"disable"`` (NaN propagates),
    ``"ignore"`` (NaN values and weights count for nothing), a float (NaN
    values replaced), ``"warn"`` / ``"error"`` (one host read per update, as
    TorchMetrics).  See :mod:`metrix.stream._aggregation`.

    Examples
    --------
    >>> from metrix.stream import MeanMetric
    >>> m = MeanMetric()
    >>> m.update([1.0, 2.0, 3.0])
    >>> m.update(10.0, weight=3)
    >>> float(m.compute())
    6.0
    """

    takes_weight = True

    def __init__(self, nan_strategy="disable"):
        super().__init__(MeanStream(nan_strategy))


class SumMetric(Aggregator):
    """Streaming sum of logged values (float64 where the device has it).

    ``SumMetric(nan_strategy="disable")``; ``update(value)``.  See
    :class:`MeanMetric` for ``nan_strategy`` (``"ignore"``: a NaN adds 0).
    """

    def __init__(self, nan_strategy="disable"):
        super().__init__(SumStream(nan_strategy))


class MaxMetric(Aggregator):
    """Streaming maximum of logged values (merged and synced by maximum).

    ``MaxMetric(nan_strategy="disable")``; ``update(value)``.  See
    :class:`MeanMetric` for ``nan_strategy`` (``"ignore"``: a NaN is left out;
    ``-inf`` when every value was).
    """

    _owned_leaf = "max_value"

    def __init__(self, nan_strategy="disable"):
        super().__init__(MaxStream(nan_strategy))


class MinMetric(Aggregator):
    """Streaming minimum of logged values (merged and synced by minimum).

    ``MinMetric(nan_strategy="disable")``; ``update(value)``.  See
    :class:`MeanMetric` for ``nan_strategy`` (``"ignore"``: a NaN is left out;
    ``+inf`` when every value was).
    """

    _owned_leaf = "min_value"

    def __init__(self, nan_strategy="disable"):
        super().__init__(MinStream(nan_strategy))


class CatMetric(Aggregator):
    """Every logged value, flattened and concatenated in update order, in an exact
    buffer of ``capacity`` values.

    ``CatMetric(capacity, nan_strategy="disable")``; ``update(value)``;
    ``compute()`` returns a 1-D array of the values (its length is known on
    the host from the batches' shapes: no device read).  More than
    ``capacity`` values raise :class:`~metrix.stream.BufferFullError`.
    ``nan_strategy="ignore"`` / ``"warn"`` / ``"error"`` drop (or refuse) NaN
    values on the host at each update (a boolean mask: one host read); a
    float replaces them on the device.
    """

    def __init__(self, capacity, nan_strategy="disable"):
        super().__init__(CatStream(capacity, nan_strategy))

    def _edge(self, value, weight):
        value, weight = super()._edge(value, weight)
        if self.spec.nan_strategy in ("ignore", "warn", "error"):
            value = drop_nan(value)
        return value, weight

    def compute(self):
        """The values seen, 1-D, in update order, on the state's device."""
        if self._seen == 0:
            raise ValueError("CatMetric.compute() before any value: call update() first.")
        if self._state is None:
            self._create()
        self._check_dropped()
        rows = None if self._dropped is None else self._rows[()]
        return _ns.to_output(self.spec.compute(self._state, rows=rows), self._placement[0])
