"""Framework faces of :mod:`metrix.stream`: each imports its framework only there.

* :mod:`metrix.integrations.torch`: every stream metric as a ``torch.nn.Module``
  (Lightning: log ``compute()`` at the epoch's end).
* :mod:`metrix.integrations.keras`: every stream metric as a
  ``keras.metrics.Metric`` (Keras 3, jax / torch backends).
* :mod:`metrix.integrations.flax`: every stream metric as a ``flax.nnx.Metric``
  (works in ``nnx.MultiMetric`` and ``nnx.jit``).
* :mod:`metrix.integrations.transformers`: ``compute_metrics`` for the Hugging
  Face ``Trainer`` (``batch_eval_metrics=True``).

The class names and constructor arguments are those of :mod:`metrix.stream`,
so switching frameworks changes one import.
"""
