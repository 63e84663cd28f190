"""A metric over the last ``window`` updates: a ring of the updates' own states.

The state is ``{"slot_0": newest, "slot_1": ..., "slot_{k-1}": oldest}``, one
state of the wrapped metric per update (empty ones before ``k`` updates).  An
update shifts the ring by one (the arrays move, nothing is copied) and puts
the batch's own state in front; ``compute`` merges the slots and applies the
wrapped metric's formula.  Two rings merge slot by slot (the i-th latest
update of each), so ``sync`` gives the metric over the last ``k`` steps of
every rank.  Reference: TorchMetrics' ``Running`` wrapper.
"""

from __future__ import annotations

import functools

from ._functional import StreamMetric, iter_leaves, state_namespace
from ._wrappers import Metric


class RunningStream(StreamMetric):
    """Functional ``spec`` over the last ``window`` updates.

    Parameters
    ----------
    spec : StreamMetric
        The functional metric to run.
    window : int, default=5
        How many of the latest updates the value covers.
    """

    def __init__(self, spec, window=5):
        if not isinstance(spec, StreamMetric):
            raise TypeError(f"RunningStream runs a metrix.stream functional metric, got "
                            f"{type(spec).__name__}")
        self.spec, self.window = spec, self._positive_int(window, "window")
        self.key = ("running", self.window, spec.key)
        self.weighted = spec.weighted

    def config(self):
        """The window and the wrapped metric's configuration."""
        return {"kind": "RunningStream", "window": self.window, "metric": self.spec.config()}

    def _init(self, xp, device, fdt):
        empty = self.spec._init(xp, device, fdt)
        return {f"slot_{i}": empty for i in range(self.window)}

    def push(self, state, batch):
        """The ring with ``batch`` (a state of the wrapped metric) as the newest slot."""
        out = {f"slot_{i + 1}": state[f"slot_{i}"] for i in range(self.window - 1)}
        out["slot_0"] = batch
        return out

    def empty(self, state):
        """An empty state of the wrapped metric, on the ring's namespace, device and
        float dtype (what one batch's own state starts from).

        Parameters
        ----------
        state : dict
            A ring (this metric's state).

        Returns
        -------
        dict
            The wrapped metric's initial state.
        """
        xp, device = state_namespace(state["slot_0"])
        fdt = next((v.dtype for p, v in iter_leaves(state["slot_0"]) if p[-1] == "meta_dtype"),
                   None)
        return self.spec._init(xp, device, fdt)

    def update(self, state, *args, **kwargs):
        """Push the state of this batch alone (the wrapped metric's ``update``)."""
        return self.push(state, self.spec.update(self.empty(state), *args, **kwargs))

    def merged(self, state):
        """The wrapped metric's state of the window's data."""
        return functools.reduce(self.spec.merge,
                                (state[f"slot_{i}"] for i in range(self.window)))

    def compute(self, state):
        """The wrapped metric over the window."""
        return self.spec.compute(self.merged(state))


class Running(Metric):
    """A stream metric over its last ``window`` updates (a moving window).

    ``Running(metric, window=5)``: ``update`` takes the wrapped metric's
    arguments (``(y_true, y_pred, sample_weight)``, or ``(value, weight)`` for
    an aggregator); ``compute`` is the metric of the data of the last
    ``window`` updates; calling it returns the batch's own value.  The state
    is a ring of ``window`` states of the wrapped metric
    (:class:`RunningStream`), so it merges, syncs and saves as any other.

    Examples
    --------
    >>> import numpy as np
    >>> from metrix.stream import MeanMetric, Running
    >>> loss = Running(MeanMetric(), window=2)
    >>> for v in (1.0, 2.0, 6.0):
    ...     loss.update(np.array([v]))
    >>> float(loss.compute())
    4.0
    """

    def __init__(self, metric, window=5):
        if not isinstance(metric, Metric):
            raise TypeError(f"Running wraps a metrix.stream metric, got {type(metric).__name__}")
        self.base = metric
        self.higher_is_better = metric.higher_is_better
        super().__init__(RunningStream(metric.spec, window))

    def update(self, *args, **kwargs):
        """Add one batch (the wrapped metric's arguments); the oldest leaves the window."""
        self._push(self.base.update, args, kwargs)

    def __call__(self, *args, **kwargs):
        """Add one batch and return the wrapped metric of that batch alone."""
        return self._push(self.base, args, kwargs)

    def _push(self, call, args, kwargs):
        # the wrapped metric computes the batch's own state, with its input handling
        # (creation on the data's device, checks, host counts), then lets it go
        self.base.reset()
        out = call(*args, **kwargs)
        if self.state is None:
            self._adopt(self.spec._init(*self.base._placement))
        self.state = self.spec.push(self._state, self.base.state)
        seen = self.base._seen
        self._seen = None if seen is None or self._seen is None else self._seen + seen
        return out
