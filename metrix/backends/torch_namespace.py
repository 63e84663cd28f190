"""array-api-compat's torch namespace, without the calls torch.compile warns about.

array-api-compat's ``cumulative_sum`` and ``cumulative_prod`` look up their
argument's namespace through ``functools.lru_cache``-wrapped helpers, and
Dynamo prints a ``UserWarning`` for each such call it traces: a metric using
them would not compile silently.  :func:`lean_torch_namespace` is the same
namespace with these two calling torch directly (the same torch calls
array-api-compat makes).
"""

from __future__ import annotations

import types

import array_api_compat.torch as _compat
import torch  # this module is torch's namespace: it names torch on purpose

#: the module attributes that are not the namespace's (copying them would
#: make the copy claim array-api-compat's file and import machinery)
_MODULE_ONLY = frozenset({"__name__", "__doc__", "__file__", "__loader__", "__spec__",
                          "__path__", "__package__", "__builtins__", "__cached__", "__dict__"})

def _cumulative(fn, fill, x, axis, dtype, include_initial, name):
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"axis must be specified in {name} for more than one dimension")
        axis = 0
    res = fn(x, axis, dtype=dtype)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        res = torch.cat([torch.full(shape, fill, dtype=res.dtype, device=res.device), res],
                        dim=axis)
    return res


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's ``cumulative_sum``: ``torch.cumsum`` along ``axis``."""
    return _cumulative(torch.cumsum, 0, x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's ``cumulative_prod``: ``torch.cumprod`` along ``axis``."""
    return _cumulative(torch.cumprod, 1, x, axis, dtype, include_initial, "cumulative_prod")


def _lean():
    lean = types.ModuleType(_compat.__name__, _compat.__doc__)
    lean.__dict__.update({k: v for k, v in vars(_compat).items() if k not in _MODULE_ONLY})
    lean.cumulative_sum = cumulative_sum
    lean.cumulative_prod = cumulative_prod
    return lean


#: built at import (a first call may come inside a compiled function, which
#: cannot create a module)
_LEAN = _lean()


def lean_torch_namespace():
    """array-api-compat's torch namespace (same name, so every backend check
    sees it) with :func:`cumulative_sum` and :func:`cumulative_prod`."""
    return _LEAN
