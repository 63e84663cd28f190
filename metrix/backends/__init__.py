"""Backend adapters: the only place where an array library is named.

``ops(xp)`` returns an adapter object for the namespace ``xp``.  The adapter
offers the few operations the array API standard lacks (``bincount``,
``scatter_add``, ``topk``, ``unique_counts``, ``weighted_quantile``,
``order_statistics``), the fused reductions (``fused_sums``, ``fused_max``,
``sum_is_finite``: blocked on CPUs, one call elsewhere), the fused label
kernels (``pair_bincount``, ``pair_bincount_discover``, ``pair_bincount_declared``,
``codes_or_other``, ``edge_cells``, ``binned_codes``), ``split_sort`` (eager
binary AUC / AP) and ``asarray_on``.  ``_generic.GenericOps`` implements each
with the standard alone (the CPU-only fused kernels return None there, and
callers take the standard path); ``numpy.py``, ``torch.py``, ``jax.py`` and
``cupy.py`` override only what their library does better.  :func:`host_lane`
runs a metric's lane function on zero-copy NumPy views of host tensors
(:mod:`.host_views`), before the edge and the namespace lookup.  Native imports stay
inside those modules, so ``import metrix`` imports no optional array library.
:mod:`.sparse` holds the operations on SciPy sparse input of the pairwise
functions (host products and row norms, as scikit-learn computes them; SciPy
imported lazily).
"""

from __future__ import annotations

from .._core.namespace import backend_name
from ._generic import GenericOps
from .host_views import host_lane

__all__ = ["ops", "GenericOps", "host_lane"]

_CACHE: dict = {}


def ops(xp) -> GenericOps:
    """The adapter for namespace ``xp`` (cached per namespace)."""
    key = id(xp)
    adapter = _CACHE.get(key)
    if adapter is None:
        adapter = _load(backend_name(xp))(xp)
        _CACHE[key] = (xp, adapter)  # keep xp alive so id() stays unique
        return adapter
    return adapter[1]


def _load(name: str):
    # plain import statements (not importlib): torch.compile traces them
    if name == "numpy":
        from .numpy import Ops
    elif name == "torch":
        from .torch import Ops
    elif name == "jax":
        from .jax import Ops
    elif name == "cupy":
        from .cupy import Ops
    else:
        Ops = GenericOps
    return Ops
