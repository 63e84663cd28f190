"""The value of a metric at every step (epoch), and the best of them.

Reference: TorchMetrics' ``MetricTracker`` (``increment``, ``compute_all``,
``best_metric(return_step=...)``).
"""

from __future__ import annotations

import copy

from .._core import namespace as _ns


class MetricTracker:
    """Track a metric (or a ``MetricCollection``) over steps: one fresh copy per step.

    ``MetricTracker(metric, maximize=None)``: call :meth:`increment` at the start
    of each step (epoch), then ``update`` / ``compute`` as on the metric;
    :meth:`compute_all` stacks every step's value and :meth:`best_metric` gives
    the best (and its step).  ``maximize``: whether greater is better (a bool,
    or one per member of a collection); default: the metric's
    ``higher_is_better``.  Works with :mod:`metrix.stream` metrics and their
    torch ``nn.Module`` faces.

    Examples
    --------
    >>> from metrix.stream import Accuracy, MetricTracker
    >>> tracker = MetricTracker(Accuracy(2))
    >>> for y_pred in ([0, 1, 1, 1], [0, 1, 1, 0], [1, 0, 1, 0]):
    ...     tracker.increment()
    ...     tracker.update([0, 1, 1, 0], y_pred)
    >>> tracker.best_metric(return_step=True)
    (1.0, 1)
    """

    def __init__(self, metric, maximize=None):
        for method in ("update", "compute", "reset"):
            if not callable(getattr(metric, method, None)):
                raise TypeError(f"MetricTracker tracks a metrix.stream metric, got "
                                f"{type(metric).__name__}")
        self._base = metric
        self._steps = []
        self.maximize = self._maximize(metric, maximize)

    @staticmethod
    def _maximize(metric, maximize):
        inner = getattr(metric, "metric", metric)  # a torch face holds the stream metric
        if maximize is None:
            maximize = getattr(inner, "higher_is_better", None)
            if isinstance(maximize, dict):  # a collection: one per member, in order
                maximize = list(maximize.values())
            if maximize is None or (isinstance(maximize, list) and None in maximize):
                raise ValueError(f"{type(inner).__name__} has no direction (higher_is_better "
                                 "is None): pass maximize=True or False")
            return maximize
        if isinstance(maximize, bool):
            return maximize
        if isinstance(maximize, (list, tuple)) and all(isinstance(m, bool) for m in maximize):
            return list(maximize)
        raise ValueError(f"maximize must be a bool or a list of bool, got {maximize!r}")

    @property
    def n_steps(self) -> int:
        """How many steps were started (:meth:`increment` calls)."""
        return len(self._steps)

    def increment(self):
        """Start a new step with a fresh copy of the metric."""
        fresh = copy.deepcopy(self._base)
        fresh.reset()
        self._steps.append(fresh)

    def _current(self, method):
        if not self._steps:
            raise ValueError(f"MetricTracker.{method}() before increment(): call "
                             "increment() at the start of each step")
        return self._steps[-1]

    def update(self, *args, **kwargs):
        """Update the current step's metric."""
        self._current("update").update(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        """Update the current step's metric and return the batch's own value."""
        return self._current("__call__")(*args, **kwargs)

    def compute(self):
        """The current step's value."""
        return self._current("compute").compute()

    def reset(self):
        """Forget the current step's data."""
        self._current("reset").reset()

    def reset_all(self):
        """Forget the data of every step."""
        for m in self._steps:
            m.reset()

    def compute_all(self):
        """Every step's value stacked on a first axis (a dict of them for a collection)."""
        self._current("compute_all")
        values = [m.compute() for m in self._steps]
        if isinstance(values[0], dict):
            return {k: _stack([v[k] for v in values]) for k in values[0]}
        return _stack(values)

    def best_metric(self, return_step=False):
        """The best value over the steps (host floats), and its step with
        ``return_step=True``; a dict of them for a collection.  Ties: the first step."""
        values = self.compute_all()
        if isinstance(values, dict):
            flags = (self.maximize if isinstance(self.maximize, list)
                     else [self.maximize] * len(values))
            best = {k: _best(v, m) for (k, v), m in zip(values.items(), flags)}
            if return_step:
                return {k: b[0] for k, b in best.items()}, {k: b[1] for k, b in best.items()}
            return {k: b[0] for k, b in best.items()}
        value, step = _best(values, self.maximize)
        return (value, step) if return_step else value


def _stack(values):
    xp, _ = _ns.get_namespace_and_device(*values)
    return xp.stack([xp.asarray(v) for v in values])


def _best(values, maximize):
    """``(value, step)`` of the best entry of a 1-D array (a host read: the result
    is a Python number)."""
    host = [float(v) for v in _ns.to_host(values)]  # host read: best_metric's result
    pick = max if maximize else min
    step = host.index(pick(host))
    return host[step], step
