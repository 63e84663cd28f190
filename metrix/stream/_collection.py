"""Functional collections: many metrics, one state per distinct statistic.

Metrics whose ``key`` is equal (the same statistic: e.g. every label metric
with the same ``num_classes`` reads one confusion matrix) share one sub-state,
updated once per batch: a collection of any number of label metrics costs
one ``bincount`` per batch.
"""

from __future__ import annotations

from ._functional import StreamMetric


class CollectionStream(StreamMetric):
    """``init / update / merge / compute`` over a dict of functional metrics.

    The state is ``{"s0": state, "s1": state, ...}``, one entry per distinct
    statistic; ``compute`` returns ``{name: value}``.
    """

    def __init__(self, metrics: dict):
        if not isinstance(metrics, dict) or not metrics:
            raise ValueError("MetricCollection needs a non-empty dict {name: metric}")
        self.metrics = dict(metrics)
        self._groups = {}      # statistic key -> (state name, the spec that updates it)
        self._member = {}      # metric name -> state name
        for name, spec in self.metrics.items():
            if not isinstance(spec, StreamMetric):
                raise TypeError(f"{name!r}: expected a metrix.stream metric, got "
                                f"{type(spec).__name__}")
            if spec.key not in self._groups:
                self._groups[spec.key] = (f"s{len(self._groups)}", spec)
            self._member[name] = self._groups[spec.key][0]
        self._share()
        self.key = ("collection",) + tuple(sorted((n, s.key) for n, s in self.metrics.items()))

    def _share(self):
        """Let a metric read a wider state of another group: a spec whose
        ``reads(key)`` says it can compute from the state of ``key`` (a multilabel
        metric from the counts that an ``average="samples"`` one keeps with its
        per-sample sums) joins that group, and its own group is not updated."""
        for key, (sname, spec) in list(self._groups.items()):
            reads = getattr(spec, "reads", None)
            wider = None if reads is None else next(
                (k for k in self._groups if k != key and reads(k)), None)
            if wider is not None:
                target = self._groups[wider][0]
                self._member = {n: target if s == sname else s for n, s in self._member.items()}
                del self._groups[key]

    def config(self):
        """The configuration of every member (checked by ``load_state_dict``)."""
        return {"kind": "CollectionStream",
                "metrics": {name: spec.config() for name, spec in self.metrics.items()}}

    @property
    def n_statistics(self) -> int:
        """How many distinct statistics (states) the collection updates per batch."""
        return len(self._groups)

    def _init(self, xp, device, fdt):
        return {sname: spec._init(xp, device, fdt) for sname, spec in self._groups.values()}

    def update(self, state, y_true, y_pred, sample_weight=None):
        out = dict(state)
        for sname, spec in self._groups.values():
            out[sname] = spec.update(state[sname], y_true, y_pred, sample_weight)
        return out

    def compute(self, state):
        return {name: spec.compute(state[self._member[name]])
                for name, spec in self.metrics.items()}

    def check_seen(self, n_samples):
        """Each member's checks (R^2's warning below two samples)."""
        for spec in self.metrics.values():
            spec.check_seen(n_samples)
