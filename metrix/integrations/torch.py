"""Every :mod:`metrix.stream` metric as a ``torch.nn.Module``, under the same name.

    import metrix.integrations.torch as mt

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(20, 10)
            self.val_f1 = mt.F1Score(num_classes=10)       # a submodule

    model = Model().to("cuda")       # the metric's state moves with the model
    model.val_f1.update(y, logits)   # (y_true, y_pred), as metrix.stream
    model.val_f1.compute()           # 0-d tensor on the model's device

The module holds a stream metric (``.metric``) and delegates to it:
``update``, ``compute``, ``reset``, ``sync``, ``merge``, and calling the
module (``forward``: accumulate the batch, return the batch's own value).
Its state belongs to the module:

* ``.to(device)`` / ``.cuda()`` / ``.cpu()`` move it; dtype casts (``.half()``,
  ``.double()``, ``.to(torch.float16)``) leave it as it is: counts stay int64
  and sums stay in the widest float, so a half-precision model still counts
  exactly.
* Under ``torch.distributed``, ``compute()`` is the value over every rank's
  data: one collective on a fixed-size buffer (no gather of predictions), a
  rank with no batch takes part with zeros, and a metric computed on only
  some ranks raises :class:`~metrix.stream.SyncTimeoutError` after
  ``sync_timeout`` (default 5 minutes) instead of hanging.  Every class takes
  ``sync_on_compute=True``, ``process_group=None`` and ``sync_timeout=None``
  besides the stream metric's arguments.
* ``state_dict()`` holds it (``<prefix><leaf path>`` tensors and the metric's
  ``config``) and ``load_state_dict()`` restores it, checked against the
  metric's configuration, so a checkpoint resumed mid-epoch goes on counting.
  As for parameters, a checkpoint without any of the metric's keys (saved
  before the metric existed) leaves it as it is with ``strict=False`` and names
  the missing keys with ``strict=True``, and keys the metric does not hold are
  *unexpected*; a checkpoint of a metric configured differently raises
  ``RuntimeError`` (torch's error for a ``load_state_dict`` that cannot fit)
  naming each difference.
* ``compute()`` before any sample raises ``ValueError``, as the stream metric.

The arguments are metrix's ``(y_true, y_pred)``; TorchMetrics takes
``(preds, target)``.
"""

from __future__ import annotations

import torch

from .. import stream as _stream
from ._eval_sampler import UnpaddedDistributedSampler
from ._faces import AGGREGATORS, STREAM_METRICS, WRAPPERS

__all__ = ["MetricModule", "UnpaddedDistributedSampler"]


class MetricModule(torch.nn.Module):
    """A ``torch.nn.Module`` around one :class:`metrix.stream.Metric`."""

    def __init__(self, metric: _stream.Metric, *, sync_on_compute: bool = True,
                 process_group=None, sync_timeout=None):
        super().__init__()
        if not isinstance(metric, _stream.Metric):
            raise TypeError(f"MetricModule wraps a metrix.stream metric, got "
                            f"{type(metric).__name__}")
        self.metric = metric
        self.sync_on_compute = sync_on_compute
        self.process_group = process_group
        self.sync_timeout = sync_timeout
        metric.to("cpu")  # a state from the start: .to() and state_dict() have one to hold

    def forward(self, y_true, y_pred, sample_weight=None):
        """Accumulate the batch; return the metric of this batch alone."""
        return self.metric(y_true, y_pred, sample_weight)

    def update(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch (no host read)."""
        self.metric.update(y_true, y_pred, sample_weight)

    def compute(self):
        """The metric over everything accumulated, on every rank (0-d tensors on the
        state's device).

        Under an initialised ``torch.distributed`` process group (and
        ``sync_on_compute=True``, the default) the value is over the data of
        every rank: the states are summed in one collective on a fixed-size
        buffer, into a copy, so this rank's own state goes on accumulating.
        Every rank must call it; one that does not makes the others raise
        :class:`~metrix.stream.SyncTimeoutError` after ``sync_timeout``.
        """
        if self.sync_on_compute and _distributed():
            return self.metric.synced(self.process_group, timeout=self.sync_timeout).compute()
        return self.metric.compute()

    def reset(self):
        """Forget the data (the state stays on its device)."""
        self.metric.reset()

    def sync(self, group=None):
        """Sum the state across the ``torch.distributed`` group, in place (every rank
        calls it); :meth:`compute` does not need it."""
        self.metric.sync(group if group is not None else self.process_group,
                         timeout=self.sync_timeout)
        return self

    def merge(self, other):
        """Add the data of another metric of the same configuration."""
        self.metric.merge(other.metric if isinstance(other, MetricModule) else other)
        return self

    # -- the state belongs to the module ---------------------------------------------
    def _apply(self, fn, recurse=True):
        super()._apply(fn, recurse)
        probe = fn(torch.empty(0))  # what the call does to a tensor: only its device counts
        if isinstance(probe, torch.Tensor) and probe.device != self._device():
            self.metric.to(probe.device)
        return self

    def _device(self):
        state = self.metric.state
        for leaf in _leaves(state):
            return leaf.device
        return torch.device("cpu")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for key, value in self.metric.state_dict().items():
            destination[prefix + key] = value if isinstance(value, torch.Tensor) else \
                torch.as_tensor(value)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        mine = {key[len(prefix):]: value for key, value in state_dict.items()
                if key.startswith(prefix) and "." not in key[len(prefix):]}
        expected = self.metric.state_dict().keys()
        if not mine:
            # no key of this metric (a checkpoint saved before it existed): torch's rule
            # for a missing parameter, strict=True names it, strict=False keeps the value
            missing_keys.extend(prefix + k for k in expected)
            return
        try:  # the configuration first, then the leaves (older states are completed)
            self.metric.load_state_dict({k: v for k, v in mine.items() if k in expected})
        except (KeyError, ValueError, TypeError) as exc:
            error_msgs.append(f"{type(self).__name__} ({prefix or 'root'}): {exc}")
            return
        unexpected_keys.extend(prefix + k for k in mine if k not in expected)

    def extra_repr(self) -> str:
        return repr(self.metric.spec)


def _distributed() -> bool:
    dist = torch.distributed
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def _leaves(state):
    if isinstance(state, dict):
        for value in state.values():
            yield from _leaves(value)
    elif isinstance(state, torch.Tensor):
        yield state


class AggregatorModule(MetricModule):
    """A ``torch.nn.Module`` around one :class:`metrix.stream.Aggregator`
    (``MeanMetric``, ...): ``update(value, weight=None)``."""

    def forward(self, value, weight=None):
        """Accumulate the values; return the aggregate of this batch alone."""
        return self.metric(value, weight)

    def update(self, value, weight=None):
        """Accumulate one batch of values (no host read)."""
        self.metric.update(value, weight)


def _face(name):
    cls = getattr(_stream, name)
    base = AggregatorModule if issubclass(cls, _stream.Aggregator) else MetricModule

    def __init__(self, *args, sync_on_compute=True, process_group=None, sync_timeout=None,
                 **kwargs):
        MetricModule.__init__(self, cls(*args, **kwargs), sync_on_compute=sync_on_compute,
                              process_group=process_group, sync_timeout=sync_timeout)

    return type(name, (base,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": f"``metrix.stream.{name}`` as a ``torch.nn.Module`` (same arguments).\n\n"
                   f"    See :class:`metrix.stream.{name}` and :mod:`{__name__}`."})


class WrapperModule(MetricModule):
    """A ``torch.nn.Module`` around a :mod:`metrix.stream` wrapper (``Running``,
    ``ClasswiseWrapper``) of another metric, given as a module of this face or as
    a stream metric; ``update`` takes the wrapped metric's arguments."""

    def forward(self, *args, **kwargs):
        """Accumulate the batch; return the wrapped metric of this batch alone."""
        return self.metric(*args, **kwargs)

    def update(self, *args, **kwargs):
        """Accumulate one batch (the wrapped metric's arguments; no host read)."""
        self.metric.update(*args, **kwargs)


def _wrapper_face(name):
    cls = getattr(_stream, name)

    def __init__(self, metric, *args, sync_on_compute=True, process_group=None,
                 sync_timeout=None, **kwargs):
        inner = metric.metric if isinstance(metric, MetricModule) else metric
        MetricModule.__init__(self, cls(inner, *args, **kwargs),
                              sync_on_compute=sync_on_compute, process_group=process_group,
                              sync_timeout=sync_timeout)

    return type(name, (WrapperModule,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": f"``metrix.stream.{name}`` as a ``torch.nn.Module`` (same arguments; the "
                   f"wrapped metric a module of this face or a stream metric).\n\n"
                   f"    See :class:`metrix.stream.{name}` and :mod:`{__name__}`."})


#: the stream tracker, which tracks this face's modules as it tracks stream metrics
MetricTracker = _stream.MetricTracker


class MetricCollection(MetricModule):
    """``metrix.stream.MetricCollection`` as a ``torch.nn.Module``: one shared state
    for the metrics of the same statistic; ``compute()`` returns a dict."""

    def __init__(self, metrics: dict, *, sync_on_compute=True, process_group=None,
                 sync_timeout=None):
        inner = {k: m.metric if isinstance(m, MetricModule) else m for k, m in metrics.items()}
        MetricModule.__init__(self, _stream.MetricCollection(inner),
                              sync_on_compute=sync_on_compute, process_group=process_group,
                              sync_timeout=sync_timeout)


for _name in STREAM_METRICS + AGGREGATORS:
    globals()[_name] = _face(_name)
for _name in WRAPPERS:
    globals()[_name] = _wrapper_face(_name)
__all__ += STREAM_METRICS + AGGREGATORS + WRAPPERS + [
    "AggregatorModule", "MetricCollection", "MetricTracker", "WrapperModule"]
del _name
