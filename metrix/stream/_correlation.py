"""Streaming correlations: Pearson's r from merged moments, Spearman's rho from an
exact buffer.

``CorrelationStream("pearson")`` keeps, per output, the sums of the columns
``x = [y_true | y_pred]`` (``(2k,)``), of their products (``s_xx = X^T W X``,
``(2k, 2k)``: one matrix product per batch) and of the weights, all in the
widest float of the device, so a state merges (and syncs, and ``psum``\\ s)
by addition; and each column's extremes ``max_x`` / ``min_x`` over the rows of
non-zero weight (merged by maximum / minimum), which tell a constant input
exactly.  ``compute`` centres the sums (``c = s_xx - s_x s_x^T / sw``) and
applies the one-shot formula
(:func:`metrix.regression.correlation.pearson_from_moments`).

Raw sums instead of Chan et al.'s pairwise update of means and centred
moments: a sum merges with the collectives every other state uses, and in
float64 the centring loses about ``eps * (mean^2 / variance)`` relative
(1e-8 for a mean 1e4 standard deviations from zero; the tests bound it).
TorchMetrics keeps running means and centred moments in the input's dtype
(float32 for float32 input), a larger error for the usual data.  Where the
device has no float64 (MPS, JAX without x64) the sums are float32: centre the
data first there if its mean is large against its spread.

``CorrelationStream("spearman", capacity=)`` keeps ``y_true`` and ``y_pred``
in an exact buffer (:mod:`metrix.stream._buffer`) and computes the average
ranks of the stored rows (:func:`metrix.regression.correlation.average_ranks`)
and their Pearson's r with the same functions as ``metrix.spearman_corrcoef``.

NaN where either input is constant (SciPy's value) or, Spearman, holds a NaN.
"""

from __future__ import annotations

import math

from .._core import namespace as _ns
from .._core.validation import check_real_dtypes
from ..backends import ops as _ops
from ..regression._input import stream_targets
from ..regression.correlation import average_ranks, centred_moments, pearson_from_moments
from ._buffer import check_capacity, init_buffer, nan_if_dropped, write_rows
from ._functional import StreamMetric, array_namespace, dtype_probe, result_dtype
from ._wrappers import Metric, _Accumulating

_KINDS = ("pearson", "spearman")


class CorrelationStream(StreamMetric):
    """Functional streaming correlation coefficient.

    Parameters
    ----------
    kind : {"pearson", "spearman"}, default="pearson"
        Pearson's r (merged moments) or Spearman's rho (exact buffer).
    num_outputs : int or None, default=None
        ``None``: 1-D inputs ``(n,)`` (or ``(n, 1)``) and a 0-d result; ``k``:
        inputs ``(n, k)`` and ``k`` coefficients (0-d for ``k = 1``, as
        TorchMetrics).
    capacity : int, default=None
        Rows of the exact buffer (``"spearman"`` only; required there).
    """

    def __init__(self, kind="pearson", *, num_outputs=None, capacity=None):
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
        if num_outputs is not None and (not isinstance(num_outputs, int)
                                        or isinstance(num_outputs, bool) or num_outputs < 1):
            raise ValueError(f"num_outputs must be None or a positive int, got {num_outputs!r}")
        self.kind, self.num_outputs = kind, num_outputs
        k = num_outputs or 1
        if kind == "spearman":
            self.capacity = check_capacity(capacity)
            self.weighted = False
            if num_outputs in (None, 1):
                self.row_inputs = ("t", "p")
        else:
            if capacity is not None:
                raise ValueError("capacity is only used by kind='spearman' (an exact buffer)")
            self.capacity = None
        self.key = ("correlation", kind, k, self.capacity)

    def config(self):
        """What the state means (checked by ``load_state_dict``)."""
        return {"kind": "CorrelationStream", "correlation": self.kind,
                "num_outputs": self.num_outputs, "capacity": self.capacity}

    def _init(self, xp, device, fdt):
        k = self.num_outputs or 1
        acc = _ns.max_float_dtype(xp, device)
        if self.kind == "spearman":
            state = init_buffer(xp, device, self.capacity, {"t": ((k,), acc), "p": ((k,), acc)})
        else:
            state = {"sw": xp.zeros((), dtype=acc, device=device),
                     "s_x": xp.zeros((2 * k,), dtype=acc, device=device),
                     "s_xx": xp.zeros((2 * k, 2 * k), dtype=acc, device=device),
                     "max_x": xp.full((2 * k,), -math.inf, dtype=acc, device=device),
                     "min_x": xp.full((2 * k,), math.inf, dtype=acc, device=device)}
        state["meta_dtype"] = dtype_probe(xp, device, fdt)
        return state

    def update(self, state, y_true, y_pred, sample_weight=None):
        """Add one batch (pure; static shapes)."""
        if self.kind == "spearman":
            return write_rows(state, *self.buffer_rows(state, y_true, y_pred, sample_weight),
                              xp=array_namespace(state["buf_weight"]))
        xp, yt, yp, w = self._prepare(state, y_true, y_pred, sample_weight)
        acc = state["sw"].dtype
        n = yt.shape[0]
        if n == 0:  # (no extremes of no rows)
            return state
        x = xp.concat([yt, yp], axis=1)
        if w is None:
            sw, s_x, s_xx = n, xp.sum(x, axis=0), xp.matmul(x.T, x)
            hi, lo = xp.max(x, axis=0), xp.min(x, axis=0)
        else:
            w = xp.reshape(xp.astype(w, acc, copy=False), (-1,))
            if w.shape[0] != n:
                raise ValueError(f"sample_weight has {w.shape[0]} rows, the batch {n}")
            wx = xp.reshape(w, (-1, 1)) * x
            sw, s_x, s_xx = xp.sum(w), xp.sum(wx, axis=0), xp.matmul(wx.T, x)
            kept = xp.reshape(w != 0, (-1, 1))
            hi = xp.max(xp.where(kept, x, xp.full_like(x, -math.inf)), axis=0)
            lo = xp.min(xp.where(kept, x, xp.full_like(x, math.inf)), axis=0)
        return {**state, "sw": state["sw"] + sw, "s_x": state["s_x"] + s_x,
                "s_xx": state["s_xx"] + s_xx, "max_x": xp.maximum(state["max_x"], hi),
                "min_x": xp.minimum(state["min_x"], lo)}

    def buffer_rows(self, state, y_true, y_pred, sample_weight=None):
        """Spearman: the batch's rows ``({"t": (n, k), "p": (n, k)}, None)`` in the
        buffer's dtype, as :meth:`update` writes them (the stateful wrappers write
        them in place into a buffer they own)."""
        if sample_weight is not None:
            raise TypeError("Spearman's correlation takes no sample_weight (neither SciPy's "
                            "spearmanr nor TorchMetrics' SpearmanCorrCoef defines one)")
        kind = type(state["buf_weight"])
        if (self.row_inputs and type(y_true) is kind and type(y_pred) is kind
                and y_true.ndim == 1 and y_pred.ndim == 1 and y_true.shape == y_pred.shape):
            # the training-loop case: the batch as it is (converted to the buffer's
            # float and shape (n, 1) by the write, as by the astype / reshape below)
            check_real_dtypes((y_true, y_pred), self.input_names, array_namespace(y_true))
            return dict(zip(self.row_inputs, (y_true, y_pred))), None
        _, yt, yp, _ = self._prepare(state, y_true, y_pred, None)
        return {"t": yt, "p": yp}, None

    def _prepare(self, state, y_true, y_pred, sample_weight):
        """``(xp, y_true, y_pred, sample_weight)``: the targets ``(n, k)`` in the
        state's float (:func:`metrix.regression._input.stream_targets`)."""
        leaf = state["sw"] if "sw" in state else state["buf_weight"]
        xp, _, _, yt, yp, w = self._inputs(state, y_true, y_pred, sample_weight, primary=leaf)
        yt, yp = stream_targets(yt, yp, self.num_outputs, leaf.dtype, xp)
        return xp, yt, yp, w

    def accumulator(self, state):
        """``(state', add)`` where the backend adds batches in place (eager CPU NumPy /
        torch, Pearson): ``state'`` holds copies of the sums and extremes and
        ``add(y_true, y_pred)`` adds one unweighted batch into them (False, nothing
        done, for a batch it does not take: call :meth:`update`); None elsewhere.
        For the stateful wrappers, which own their sums; :meth:`update` stays pure."""
        if self.kind == "spearman":
            return None  # (the stateful wrapper writes the buffer in place: Metric._append)
        names = ("sw", "s_x", "s_xx", "max_x", "min_x")
        made = _ops(array_namespace(state["s_xx"])).moment_accumulator(
            *(state[n] for n in names))
        if made is None:
            return None
        own, add = made
        return {**state, **dict(zip(names, own))}, add

    def compute(self, state):
        """The coefficient(s) of all data seen (0-d, or ``(k,)`` for ``num_outputs=k > 1``)."""
        leaf = state["sw"] if "sw" in state else state["buf_weight"]
        xp = _ns.get_namespace_and_device(leaf)[0]
        k = self.num_outputs or 1
        if self.kind == "spearman":
            r = _spearman_from_buffer(state, xp)
        else:
            r = pearson_from_moments(*_moments_from_sums(state, k, xp), xp)
        value = r[0] if k == 1 else r
        return xp.astype(value, result_dtype(state, xp))


def _moments_from_sums(state, k, xp):
    """``(c_tt, c_pp, c_tp, constant)`` of the merged raw sums (see the module docstring)."""
    s_x, sw = state["s_x"], state["sw"]
    c = state["s_xx"] - xp.reshape(s_x, (-1, 1)) * xp.reshape(s_x, (1, -1)) / sw
    flat = xp.reshape(c, (-1,))
    dev = _ns.device_of(flat)
    cols = 2 * k
    i = xp.arange(k, device=dev)
    diag_t, diag_p, cross = i * (cols + 1), (i + k) * (cols + 1), i * cols + k + i
    same = state["max_x"] == state["min_x"]
    constant = same[:k] | same[k:]
    # (a variance of rounding noise may come out below zero: it is zero)
    c_tt, c_pp = xp.clip(xp.take(flat, diag_t), min=0.0), xp.clip(xp.take(flat, diag_p), min=0.0)
    return c_tt, c_pp, xp.take(flat, cross), constant


def _spearman_from_buffer(state, xp):
    """Spearman's rho per output of the stored rows (free rows rank last and weigh 0)."""
    occupied = state["buf_weight"] != 0
    kept = xp.reshape(occupied, (-1, 1))
    dev = _ns.device_of(occupied)
    count = xp.sum(xp.astype(occupied, _ns.count_dtype(xp, dev)))
    t, p = state["buf_t"], state["buf_p"]
    inf = xp.full_like(t, math.inf)
    rt = average_ranks(xp.where(kept, t, inf), xp, count=count)
    rp = average_ranks(xp.where(kept, p, inf), xp, count=count)
    w = xp.astype(occupied, t.dtype)
    r = pearson_from_moments(*centred_moments(rt, rp, w, xp), xp)
    nan = xp.any(kept & (xp.isnan(t) | xp.isnan(p)), axis=0)
    r = xp.where(nan, xp.full_like(r, math.nan), r)
    return nan_if_dropped(r, state, xp=xp)


class PearsonCorrCoef(_Accumulating):
    """Streaming Pearson correlation coefficient, exact, from merged moments.

    ``PearsonCorrCoef(num_outputs=None)``; ``update(y_true, y_pred,
    sample_weight=None)`` with 1-D inputs (``num_outputs=k``: ``(n, k)``, one
    coefficient per column).  Equals ``metrix.pearson_corrcoef`` (and
    ``scipy.stats.pearsonr``, TorchMetrics' ``PearsonCorrCoef``) on all the
    data; NaN where an input is constant, as SciPy.  The state is sums (and
    per-column extremes): it merges, syncs and ``psum``\\ s like every other.
    See :class:`metrix.stream.CorrelationStream`.

    Parameters
    ----------
    num_outputs : int or None, default=None
        ``None``: 1-D inputs and a 0-d result; ``k``: inputs ``(n, k)`` and
        ``k`` coefficients (0-d for ``k = 1``, as TorchMetrics).

    Examples
    --------
    >>> from metrix.stream import PearsonCorrCoef
    >>> m = PearsonCorrCoef()
    >>> m.update([1.0, 2.0], [1.0, 3.0])
    >>> m.update([3.0, 4.0], [2.0, 4.0])
    >>> round(float(m.compute()), 6)
    0.8
    """

    higher_is_better = True
    _owned_leaf = "s_xx"

    def __init__(self, num_outputs=None):
        super().__init__(CorrelationStream("pearson", num_outputs=num_outputs))


class SpearmanCorrCoef(Metric):
    """Streaming Spearman rank correlation, exact, in a buffer of ``capacity`` rows.

    ``SpearmanCorrCoef(capacity, num_outputs=None)``; ``update(y_true,
    y_pred)`` (no weights).  Tied values share the mean of their ranks;
    equals ``metrix.spearman_corrcoef`` (and ``scipy.stats.spearmanr``,
    TorchMetrics' ``SpearmanCorrCoef``) on all the data.  More than
    ``capacity`` samples raise :class:`~metrix.stream.BufferFullError`.
    See :class:`metrix.stream.CorrelationStream`.

    Parameters
    ----------
    capacity : int
        Rows (samples) the exact buffer holds.
    num_outputs : int or None, default=None
        ``None``: 1-D inputs and a 0-d result; ``k``: inputs ``(n, k)`` and
        ``k`` coefficients (0-d for ``k = 1``).
    """

    higher_is_better = True

    def __init__(self, capacity, num_outputs=None):
        super().__init__(CorrelationStream("spearman", num_outputs=num_outputs,
                                           capacity=capacity))
