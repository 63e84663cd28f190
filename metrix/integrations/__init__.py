"""Framework faces of :mod:`metrix.stream`: each imports its framework only there.

* :mod:`metrix.integrations.torch`: every stream metric as a ``torch.nn.Module``.
"""
