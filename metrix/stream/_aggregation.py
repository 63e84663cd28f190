"""Aggregators: the mean, sum, maximum, minimum or concatenation of logged values.

What a training loop logs besides its metrics (a loss, a gradient norm, a
per-sample score), accumulated over batches and merged across ranks:

* ``MeanStream``: ``total = sum w v`` and ``weight = sum w``; the value is
  ``total / weight`` (NaN when no weight was seen);
* ``SumStream``: ``total = sum v``;
* ``MaxStream`` / ``MinStream``: ``max_value`` / ``min_value``, fields that
  merge by maximum / minimum (:func:`metrix.stream.merge_states`);
* ``CatStream``: the values in an exact buffer of ``capacity`` elements
  (:mod:`metrix.stream._buffer`), returned in update order.

Sums are held in the widest float of the device.  Where that is float32
(JAX without ``jax_enable_x64``, MPS) each sum is a compensated pair, the
field and its ``<field>_lo`` error term (Knuth's two-sum), so a count of
unit weights stays exact far beyond float32's 2**24.

A value is any array (or Python number), flattened; ``weight`` broadcasts to
its shape.  NaN values follow ``nan_strategy`` (TorchMetrics' options):

* ``"disable"`` (the default): nothing is checked; a NaN makes the mean,
  sum, maximum and minimum NaN (as Keras' and torcheval's aggregators do);
* ``"ignore"``: a value (or weight) that is NaN counts for nothing;
* a float: NaN values are replaced by it (with weight 1);
* ``"warn"`` / ``"error"``: as ``"ignore"``, after warning / raising
  ``RuntimeError`` when a batch holds a NaN.  These two read the device once
  per update (as TorchMetrics' do): the stateful classes check there, at the
  user's edge; the functional ``update`` stays pure and reads nothing.

Reference: TorchMetrics' aggregation metrics
(``torchmetrics.aggregation``), whose names and ``nan_strategy`` these follow.
"""

from __future__ import annotations

import math
import warnings

from .._core import namespace as _ns
from ..backends import ops as _ops
from ._buffer import check_capacity, init_buffer, write_rows
from ._functional import StreamMetric, array_namespace, dtype_probe, result_dtype

NAN_STRATEGIES = ("disable", "ignore", "warn", "error")


def check_nan_strategy(nan_strategy):
    """``nan_strategy`` as given, if it is one of :data:`NAN_STRATEGIES` or a float."""
    if isinstance(nan_strategy, str) and nan_strategy in NAN_STRATEGIES:
        return nan_strategy
    if isinstance(nan_strategy, (int, float)) and not isinstance(nan_strategy, bool):
        return float(nan_strategy)
    raise ValueError(f"nan_strategy must be one of {NAN_STRATEGIES} or a float, got "
                     f"{nan_strategy!r}")


def two_sum(hi, lo, x, xp):
    """``hi + lo + x`` as a new compensated pair (Knuth's two-sum of ``hi`` and ``x``;
    the rounding error joins ``lo``)."""
    s = hi + x
    back = s - hi
    err = (hi - (s - back)) + (x - back)
    return s, lo + err


class _Aggregation(StreamMetric):
    """Base of the aggregators: input handling and the NaN rule (module docstring)."""

    input_names = ("value", "weight")

    #: the value a NaN becomes under "ignore" (None: it is dropped by its weight)
    neutral: float | None = None

    def __init__(self, nan_strategy="disable"):
        self.nan_strategy = check_nan_strategy(nan_strategy)
        self.key = (type(self).__name__, repr(self.nan_strategy))

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": type(self).__name__, "nan_strategy": self.nan_strategy}

    def _values(self, state, leaf, value, weight=None):
        """``(xp, v, w)``: the flattened value and weight (None when not given)
        in ``leaf``'s dtype, on its device, with the NaN rule applied."""
        xp, device, _, v, w = self._inputs(state, value, weight, primary=leaf)
        acc = leaf.dtype
        v = xp.astype(v, acc, copy=False)
        if w is not None:
            try:
                w = xp.broadcast_to(xp.astype(w, acc, copy=False), v.shape)
            except (ValueError, RuntimeError) as exc:
                raise ValueError(f"weight of shape {tuple(w.shape)} does not broadcast to "
                                 f"the value's shape {tuple(v.shape)}") from exc
            w = xp.reshape(w, (-1,))
        v = xp.reshape(v, (-1,))
        rule = self.nan_strategy
        if rule == "disable":
            return xp, v, w
        bad = xp.isnan(v) if w is None else (xp.isnan(v) | xp.isnan(w))
        if isinstance(rule, float):
            v = xp.where(bad, xp.asarray(rule, dtype=acc, device=device), v)
            if w is not None:
                w = xp.where(bad, xp.ones_like(w), w)
            return xp, v, w
        zero = xp.zeros_like(v)
        if self.neutral is None:  # dropped by a zero weight
            w = xp.where(bad, zero, xp.ones_like(v) if w is None else w)
            v = xp.where(bad, zero, v)
        else:
            v = xp.where(bad, xp.full_like(v, self.neutral), v)
        return xp, v, w


def _add_sum(state, out, name, x, xp):
    """``out[name] = state[name] + x``, compensated where the state keeps ``<name>_lo``."""
    if name + "_lo" in state:
        out[name], out[name + "_lo"] = two_sum(state[name], state[name + "_lo"], x, xp)
    else:
        out[name] = state[name] + x


def _init_sums(names, xp, device, fdt):
    acc = _ns.max_float_dtype(xp, device)
    state = {n: xp.zeros((), dtype=acc, device=device) for n in names}
    if acc != getattr(xp, "float64", None):  # float32 sums: compensated pairs
        state.update({n + "_lo": xp.zeros((), dtype=acc, device=device) for n in names})
    state["meta_dtype"] = dtype_probe(xp, device, fdt)
    return state


def _sum_accumulator(spec, state, total, count):
    """The adapter's in-place sums of ``state[total]`` (and ``state[count]``)."""
    if spec.nan_strategy != "disable" or total + "_lo" in state:
        return None
    made = _ops(array_namespace(state[total])).sum_accumulator(
        state[total], None if count is None else state[count])
    if made is None:
        return None
    own_total, own_count, add = made
    own = {**state, total: own_total}
    if count is not None:
        own[count] = own_count
    return own, add


def _read_sum(state, name):
    return state[name] + state[name + "_lo"] if name + "_lo" in state else state[name]


class MeanStream(_Aggregation):
    """Functional weighted mean: ``sum w v / sum w`` (NaN with no weight).

    Parameters
    ----------
    nan_strategy : {"disable", "ignore", "warn", "error"} or float, default="disable"
        What a NaN value (or weight) does (see :mod:`metrix.stream._aggregation`).
    """

    def _init(self, xp, device, fdt):
        return _init_sums(("total", "weight"), xp, device, fdt)

    def update(self, state, value, weight=None):
        """Add one batch of values (and weights, broadcast to the values' shape)."""
        xp, v, w = self._values(state, state["total"], value, weight)
        out = dict(state)
        if w is None:
            _add_sum(state, out, "total", xp.sum(v), xp)
            _add_sum(state, out, "weight", float(v.shape[0]), xp)
        else:
            _add_sum(state, out, "total", xp.sum(w * v), xp)
            _add_sum(state, out, "weight", xp.sum(w), xp)
        return out

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU
        NumPy / torch, float64 sums, ``nan_strategy="disable"``): ``state'`` holds
        copies of the sums and ``add(value, weight)`` adds one batch into them
        (False, nothing done, for a batch it does not take: call :meth:`update`);
        None elsewhere.  For the stateful wrappers, which own their sums."""
        return _sum_accumulator(self, state, "total", "weight")

    def compute(self, state):
        """``total / weight`` in the result dtype (0-d)."""
        xp = _ns.get_namespace_and_device(state["total"])[0]
        value = _read_sum(state, "total") / _read_sum(state, "weight")
        return xp.astype(value, result_dtype(state, xp))


class SumStream(_Aggregation):
    """Functional sum of the values.

    Parameters
    ----------
    nan_strategy : {"disable", "ignore", "warn", "error"} or float, default="disable"
        What a NaN value does (``"ignore"``: it adds 0).
    """

    neutral = 0.0

    def _init(self, xp, device, fdt):
        return _init_sums(("total",), xp, device, fdt)

    def update(self, state, value, weight=None):
        """Add one batch of values (``weight`` is not taken)."""
        if weight is not None:
            raise TypeError("SumStream.update takes no weight (sum the weighted values)")
        xp, v, _ = self._values(state, state["total"], value)
        out = dict(state)
        _add_sum(state, out, "total", xp.sum(v), xp)
        return out

    def accumulator(self, state):
        """The in-place sum of :meth:`MeanStream.accumulator`, without the weight."""
        made = _sum_accumulator(self, state, "total", None)
        if made is None:
            return None
        own, add = made
        return own, lambda value, weight=None: weight is None and add(value)

    def compute(self, state):
        """The sum in the result dtype (0-d)."""
        xp = _ns.get_namespace_and_device(state["total"])[0]
        return xp.astype(_read_sum(state, "total"), result_dtype(state, xp))


class _Extreme(_Aggregation):
    """The maximum (``sign=1``) or minimum (``sign=-1``) of the values."""

    sign = 1
    field = "max_value"

    @property
    def neutral(self):
        return -self.sign * math.inf

    def _init(self, xp, device, fdt):
        acc = _ns.max_float_dtype(xp, device)
        return {self.field: xp.full((), self.neutral, dtype=acc, device=device),
                "meta_dtype": dtype_probe(xp, device, fdt)}

    def update(self, state, value, weight=None):
        """Fold one batch of values into the extreme (``weight`` is not taken)."""
        if weight is not None:
            raise TypeError(f"{type(self).__name__}.update takes no weight")
        xp, v, _ = self._values(state, state[self.field], value)
        if v.shape[0] == 0:
            return state
        pick = xp.max if self.sign > 0 else xp.min
        both = xp.stack([state[self.field], pick(v)])
        return {**state, self.field: pick(both)}

    def accumulator(self, state):
        """``(state', add)`` where the backend folds batches in place (eager CPU
        NumPy / torch, a float64 extreme, ``nan_strategy="disable"``); None
        elsewhere.  As :meth:`MeanStream.accumulator`."""
        if self.nan_strategy != "disable":
            return None
        made = _ops(array_namespace(state[self.field])).extreme_accumulator(
            state[self.field], kind="max" if self.sign > 0 else "min")
        if made is None:
            return None
        own, add = made
        return {**state, self.field: own}, lambda value, weight=None: (
            weight is None and add(value))

    def compute(self, state):
        """The extreme in the result dtype (0-d; -inf / +inf when every value was
        an ignored NaN)."""
        xp = _ns.get_namespace_and_device(state[self.field])[0]
        return xp.astype(state[self.field], result_dtype(state, xp))


class MaxStream(_Extreme):
    """Functional maximum of the values (``max_value``: merges by maximum).

    Parameters
    ----------
    nan_strategy : {"disable", "ignore", "warn", "error"} or float, default="disable"
        What a NaN value does (``"disable"``: the maximum is NaN).
    """


class MinStream(_Extreme):
    """Functional minimum of the values (``min_value``: merges by minimum).

    Parameters
    ----------
    nan_strategy : {"disable", "ignore", "warn", "error"} or float, default="disable"
        What a NaN value does (``"disable"``: the minimum is NaN).
    """

    sign = -1
    field = "min_value"


class CatStream(_Aggregation):
    """Functional concatenation of the values, in an exact buffer of ``capacity``
    elements (values flattened, in update order).

    Parameters
    ----------
    capacity : int
        Elements the buffer holds; more are counted as dropped (the stateful
        ``CatMetric`` raises :class:`~metrix.stream.BufferFullError` first).
    nan_strategy : {"disable", "warn", "error"} or float, default="disable"
        What a NaN value does.  ``"ignore"`` (which changes how many values
        there are: a data-dependent shape) is for the stateful ``CatMetric``,
        which drops them on the host.
    """

    def __init__(self, capacity, nan_strategy="disable"):
        super().__init__(nan_strategy)
        self.capacity = check_capacity(capacity)
        self.key = self.key + (self.capacity,)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {**super().config(), "capacity": self.capacity}

    def _init(self, xp, device, fdt):
        state = init_buffer(xp, device, self.capacity,
                            {"value": ((), _ns.max_float_dtype(xp, device))})
        state["meta_dtype"] = dtype_probe(xp, device, fdt)
        return state

    def update(self, state, value, weight=None):
        """Append one batch of values (``weight`` is not taken)."""
        return write_rows(state, *self.buffer_rows(state, value, weight),
                          xp=array_namespace(state["buf_value"]))

    def buffer_rows(self, state, value, weight=None):
        """The batch's rows ``({"value": (n,)}, None)``, as :meth:`update` writes them
        (``CatMetric`` writes them in place into a buffer it owns)."""
        if weight is not None:
            raise TypeError("CatStream.update takes no weight")
        rule = self.nan_strategy
        if rule in ("ignore", "warn", "error"):
            rule = "disable"  # dropped on the host by CatMetric (a data-dependent shape)
        xp, _, _, v = self._inputs(state, value, primary=state["buf_value"])
        v = xp.reshape(xp.astype(v, state["buf_value"].dtype, copy=False), (-1,))
        if isinstance(rule, float):
            v = xp.where(xp.isnan(v), xp.full_like(v, rule), v)
        return {"value": v}, None

    def accumulator(self, state):
        """None: a buffer is written by :meth:`update` only."""
        return None

    def compute(self, state, rows=None):
        """The stored values (1-D, result dtype).  ``rows``: how many there are,
        when the caller knows it from the shapes; else ``count`` is read (a host
        read: the result's length is the data's)."""
        xp = _ns.get_namespace_and_device(state["buf_value"])[0]
        if rows is None:
            rows = int(state["count"])  # host read: the output's shape
        return xp.astype(state["buf_value"][:rows], result_dtype(state, xp))


def nan_check(value, weight, nan_strategy, name):
    """The stateful aggregators' edge for ``nan_strategy="warn"`` / ``"error"``: one
    host read of whether the batch holds a NaN (TorchMetrics' check)."""
    if nan_strategy not in ("warn", "error"):
        return
    xp, _ = _ns.get_namespace_and_device(value, weight)
    bad = xp.any(xp.isnan(xp.asarray(value)))
    if weight is not None:
        bad = bad | xp.any(xp.isnan(xp.asarray(weight)))
    if bool(bad):  # host read: asked for by nan_strategy
        if nan_strategy == "error":
            raise RuntimeError(f"{name}: encountered NaN values (nan_strategy='error')")
        warnings.warn(f"{name}: encountered NaN values; they are left out "
                      "(nan_strategy='warn')", UserWarning, stacklevel=4)


def drop_nan(value):
    """``value`` flattened without its NaN values (a boolean mask: a host read;
    ``CatMetric``'s edge for ``nan_strategy`` "ignore" / "warn" / "error")."""
    xp, _ = _ns.get_namespace_and_device(value)
    v = xp.reshape(xp.asarray(value), (-1,))
    return v[~xp.isnan(v)]
