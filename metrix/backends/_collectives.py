"""Collectives and placement for streaming metrics: the library-specific half.

``metrix.stream`` flattens a metric state into one flat buffer and hands
the buffers to the functions here; this module is the only place that names
``torch.distributed`` or ``jax.lax``.  Every import is lazy (inside the
function), so ``import metrix`` imports no array library.

``CALLS`` counts the collectives issued in this process (tests check that
every rank issues the same number, whatever its data).
"""

from __future__ import annotations

CALLS = {"all_reduce": 0, "all_gather": 0}
_ROUNDS: dict = {}  # rendezvous rounds per process group (host ints)


# -- torch.distributed ----------------------------------------------------

def torch_dist_ready() -> bool:
    """Whether torch is importable, torch.distributed available and initialised."""
    try:
        import torch.distributed as dist
    except Exception:  # torch missing or built without distributed
        return False
    return dist.is_available() and dist.is_initialized()


def torch_world_size(group=None) -> int:
    import torch.distributed as dist

    return dist.get_world_size(group)


def torch_all_reduce_sum(flat, group=None):
    """Sum a 1-D tensor over the process group (in place; returns it)."""
    import torch.distributed as dist

    CALLS["all_reduce"] += 1
    dist.all_reduce(flat, op=dist.ReduceOp.SUM, group=group)
    return flat


def torch_all_gather(flat, group=None):
    """Concatenate a 1-D tensor of the same length from every rank (rank order)."""
    import torch
    import torch.distributed as dist

    CALLS["all_gather"] += 1
    world = dist.get_world_size(group)
    out = torch.empty((world * flat.shape[0],), dtype=flat.dtype, device=flat.device)
    dist.all_gather_into_tensor(out, flat.contiguous(), group=group)
    return out


def torch_rendezvous(group=None, timeout=None):
    """Wait, on the host, until every rank of ``group`` arrives here; ``[]`` when all
    did within ``timeout`` (a ``datetime.timedelta``), else the ranks that did not.

    Runs on the process group's key-value store (TCP, no device work) before a
    collective, so that a collective some ranks never join fails on the ranks
    that did, naming the others, instead of hanging.  Rounds are counted per
    group in each process: the n-th call on one rank meets the n-th call on the
    others.  A round that timed out is spoiled, so a rank arriving at it late
    times out as well (instead of entering a collective alone).  Without a
    reachable store (a group made without one) it returns ``[]`` at once.
    """
    import datetime

    import torch.distributed as dist

    try:
        from torch.distributed.distributed_c10d import _get_default_store

        store = _get_default_store()
    except Exception:  # no default store: nothing to meet on
        return []
    ranks = (list(range(dist.get_world_size())) if group is None
             else list(dist.get_process_group_ranks(group)))
    name = "world" if group is None else "-".join(map(str, ranks))
    _ROUNDS[name] = n = _ROUNDS.get(name, 0) + 1
    key = f"metrix/rendezvous/{name}/{n}"
    store.set(f"{key}/rank{dist.get_rank()}", "1")
    if store.add(key, 1) == len(ranks):
        store.set(f"{key}/all", "1")
    if timeout is None:
        timeout = datetime.timedelta(minutes=5)
    elif not isinstance(timeout, datetime.timedelta):
        timeout = datetime.timedelta(seconds=float(timeout))
    try:
        store.wait([f"{key}/all"], timeout)
        return []
    except Exception:  # the store's timeout error (DistStoreError / RuntimeError)
        store.add(key, -10 * len(ranks))  # spoil the round for late arrivals
        return [r for r in ranks if not store.check([f"{key}/rank{r}"])]


def torch_default_placement(group=None):
    """``(like, device)`` for a rank that has no state yet: the group's device.

    NCCL groups communicate CUDA tensors (the current CUDA device); others CPU.
    ``like`` is an empty tensor there (for ``get_namespace_and_device``).
    """
    import torch
    import torch.distributed as dist

    backend = str(dist.get_backend(group)).lower()
    if "nccl" in backend and torch.cuda.is_available():
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    return torch.empty((0,), device=device), device


# -- JAX --------------------------------------------------------------------

def jax_psum(x, axis_name):
    import jax

    return jax.lax.psum(x, axis_name)


def jax_extreme(x, axis_name, kind):
    """``lax.pmax`` (``kind="max"``) or ``lax.pmin`` of ``x`` over the mapped axis."""
    import jax

    return (jax.lax.pmax if kind == "max" else jax.lax.pmin)(x, axis_name)


def jax_all_gather(x, axis_name):
    """Concatenate ``x`` along axis 0 over the mapped axis (``tiled=True``)."""
    import jax

    return jax.lax.all_gather(x, axis_name, axis=0, tiled=True)


# -- placement ----------------------------------------------------------------

def like_for_device(device):
    """An empty array on ``device`` (a torch device / string, or a JAX device).

    Used by ``Metric.to(device)`` before any update has fixed the namespace.
    Strings are read as torch devices.
    """
    mod = type(device).__module__ or ""
    if isinstance(device, str) or mod.startswith("torch"):
        import torch

        return torch.empty((0,), device=device)
    if mod.startswith("jax") or mod.startswith("jaxlib"):
        import jax
        import jax.numpy as jnp

        return jax.device_put(jnp.zeros((0,)), device)
    raise TypeError(f"Cannot place a metric state on {device!r}: pass a torch device "
                    "(or string) or a JAX device.")


_IS_COMPILING = []


def compiling() -> bool:
    """Whether the caller is being traced by ``torch.compile`` (False without torch).

    Called on every stream update: ``torch.compiler.is_compiling`` is looked up
    once, after torch is imported (a Python attribute chain costs as much)."""
    if _IS_COMPILING:
        return _IS_COMPILING[0]()
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        return False
    fn = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if fn is None:  # older torch: never
        fn = lambda: False  # noqa: E731
    if fn():
        # first call inside a trace: the cache stays empty, or the compiled
        # graph's guard on it (empty) would fail on the next call: a recompile
        return True
    _IS_COMPILING.append(fn)
    return False
