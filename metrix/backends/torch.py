"""PyTorch adapter.

* ``torch.bincount`` in eager mode (one pass).
* Under ``torch.compile`` a fixed-length ``index_add`` (static output shape,
  no graph break).
* Under ``torch.use_deterministic_algorithms(True)`` on CUDA, where
  ``bincount``/``index_add`` are nondeterministic and raise, the sort-based
  count of the generic adapter (O(N) memory; never TorchMetrics' N x C one-hot).
"""

from __future__ import annotations

import torch

from ._generic import GenericOps


def _compiling() -> bool:
    try:
        return torch.compiler.is_compiling()
    except AttributeError:  # older torch
        return False


class Ops(GenericOps):
    name = "torch"

    def bincount(self, x, /, *, length, weights=None):
        if x.device.type != "cpu" and torch.are_deterministic_algorithms_enabled():
            return self._sorted_bincount(x, length=length, weights=weights)
        if x.dtype not in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
            x = x.to(torch.int64)
        if _compiling() or (weights is not None and weights.ndim == 2):
            if weights is None:
                weights = torch.ones(x.shape, dtype=torch.int64, device=x.device)
            out = torch.zeros((length,) + tuple(weights.shape[1:]), dtype=weights.dtype,
                              device=x.device)
            return out.index_add(0, x.to(torch.int64), weights)
        if weights is None:
            return torch.bincount(x, minlength=length)[:length]
        return torch.bincount(x, weights, minlength=length)[:length].to(weights.dtype)

    def unique_counts(self, x, /):
        return torch.unique(x, sorted=True, return_counts=True)

    def unique_inverse(self, x, /):
        values, inverse = torch.unique(x, sorted=True, return_inverse=True)
        return values, inverse.reshape(-1)
