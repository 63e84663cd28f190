"""What every framework face exposes: the stateful metrics of :mod:`metrix.stream`."""

from __future__ import annotations

from .. import stream as _stream

#: the names of the stream metric classes each face re-exports under the same name
#: (``MetricCollection`` aside: every face writes its own)
STREAM_METRICS = [n for n in _stream.__all__ if isinstance(getattr(_stream, n), type)
                  and issubclass(getattr(_stream, n), _stream.Metric)
                  and not issubclass(getattr(_stream, n), _stream.Aggregator)
                  and n not in ("Metric", "MetricCollection", "Running", "ClasswiseWrapper")]

#: the aggregators (``MeanMetric``, ...: ``update(value, weight=None)``); every face
#: has them, in its framework's protocol (Keras: ``update_state(values,
#: sample_weight=None)`` as ``keras.metrics.Mean``; flax: ``update(values=...,
#: weight=...)`` as ``nnx.metrics.Average``)
AGGREGATORS = [n for n in _stream.__all__ if isinstance(getattr(_stream, n), type)
               and issubclass(getattr(_stream, n), _stream.Aggregator)]

#: the wrappers of another metric (their first argument, a metric of the same face);
#: every face has them (``MetricTracker``: the torch and flax faces, where it is
#: :class:`metrix.stream.MetricTracker`)
WRAPPERS = ["Running", "ClasswiseWrapper"]
