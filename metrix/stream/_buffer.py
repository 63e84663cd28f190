"""Exact streaming: rows kept in a preallocated buffer of declared capacity.

The buffer fields (``buf_*``) have ``capacity`` rows, fixed at ``init``;
``buf_weight`` is each row's sample weight (1 when unweighted) and 0 marks a
free row, so a partly filled buffer is a valid weighted sample: metrics are
computed on the whole buffer with the one-shot formulas, free rows weighing
nothing.  ``count`` is the next row to write and ``dropped`` the number of
samples that did not fit.  A full buffer never grows: the stateful wrappers
raise :class:`BufferFullError` before dropping anything, and a functional
state with ``dropped > 0`` computes to NaN.

:func:`write_rows` writes with ``xp.where`` over the capacity (O(capacity)
per update, no in-place write, static shapes: it traces under ``jax.jit`` and
``torch.compile``).  A stateful wrapper (:class:`metrix.stream.Metric`) that
owns its buffer (made it, or copied it since it last handed the state out)
writes eagerly in place instead, O(batch): each exact spec's ``buffer_rows(state,
...)`` gives the batch's checked, converted rows (what its ``update`` hands
``write_rows``), and the adapter's ``rows_accumulator`` writes them after the
rows stored, a host count taken from the shapes (eager NumPy and torch, CPU or
GPU; JAX and ``torch.compile`` keep ``write_rows``).
"""

from __future__ import annotations

from .._core import namespace as _ns
from ._functional import StreamMetric


class BufferFullError(ValueError):
    """An exact-mode metric received more samples than its declared capacity."""


def check_capacity(capacity):
    return StreamMetric._positive_int(capacity, "capacity")


def init_buffer(xp, device, capacity, fields):
    """Zeroed buffer fields: ``fields`` maps name -> (trailing shape, dtype)."""
    cdt = _ns.count_dtype(xp, device)
    state = {f"buf_{name}": xp.zeros((capacity,) + tuple(tail), dtype=dt, device=device)
             for name, (tail, dt) in fields.items()}
    state["buf_weight"] = xp.zeros((capacity,), dtype=_ns.max_float_dtype(xp, device),
                                   device=device)
    state["count"] = xp.zeros((), dtype=cdt, device=device)
    state["dropped"] = xp.zeros((), dtype=cdt, device=device)
    return state


def write_rows(state, values, weight, *, xp):
    """Append ``values`` (name -> ``(n, ...)`` array; the first one's rows count)
    with ``weight`` (``(n,)``; None: 1).

    Rows past the capacity are not written; they are counted in ``dropped``.
    The specs' ``buffer_rows`` method gives ``(values, weight)`` of a batch, which the
    stateful wrappers write in place instead where the adapter can (see the
    module docstring).
    """
    n = next(iter(values.values())).shape[0] if weight is None else weight.shape[0]
    if n == 0:
        return state
    cap = state["buf_weight"].shape[0]
    start = state["count"]
    dev = _ns.device_of(state["buf_weight"])
    if weight is None:
        weight = xp.ones((n,), dtype=state["buf_weight"].dtype, device=dev)
    rel = xp.arange(cap, dtype=start.dtype, device=dev) - start
    inside = (rel >= 0) & (rel < n)
    idx = xp.clip(rel, 0, n - 1)
    out = dict(state)
    values = dict(values, weight=weight)
    for name, v in values.items():
        old = state[f"buf_{name}"]
        if v.ndim != old.ndim:  # ((n,) rows of a (capacity, 1) field)
            v = xp.reshape(v, (n,) + tuple(old.shape[1:]))
        new = xp.astype(xp.take(v, idx, axis=0), old.dtype)
        mask = xp.reshape(inside, (cap,) + (1,) * (old.ndim - 1))
        out[f"buf_{name}"] = xp.where(mask, new, old)
    written = xp.clip(cap - start, 0, n)
    out["count"] = start + written
    out["dropped"] = state["dropped"] + (n - written)
    return out


def nan_if_dropped(value, state, *, xp):
    """``value``, or NaN where the buffer overflowed (the result is not exact)."""
    return xp.where(state["dropped"] > 0, xp.full_like(value, float("nan")), value)
