"""Collectives and placement for streaming metrics: the library-specific half.

``metrix.stream`` flattens a metric state into one buffer per dtype and hands
the buffers to the functions here; this module is the only place that names
``torch.distributed`` or ``jax.lax``.  Every import is lazy (inside the
function), so ``import metrix`` imports no array library.

``CALLS`` counts the collectives issued in this process (tests check that
every rank issues the same number, whatever its data).
"""

from __future__ import annotations

CALLS = {"all_reduce": 0, "all_gather": 0}


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


def compiling() -> bool:
    """Whether the caller is being traced by ``torch.compile`` (False without torch)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        return False
    try:
        return bool(torch.compiler.is_compiling())
    except AttributeError:  # older torch
        return False
