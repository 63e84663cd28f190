"""Reducing metric states across processes and devices.

* :func:`sync` (torch.distributed): the state's summed leaves are flattened
  into one buffer per dtype and reduced with one ``all_reduce`` per dtype;
  exact buffers (``buf_*``) are gathered with one ``all_gather`` per dtype.
  The leaves, their shapes and dtypes are fixed by the metric's constructor,
  not by the data, so every rank issues the same collectives in the same order
  (a rank that saw no batch sends zeros and does not hang).
* :func:`psum` (JAX, inside ``shard_map`` / ``pmap``): ``lax.psum`` of the
  sums and ``lax.all_gather`` of the buffers over a named axis.

The library calls live in :mod:`metrix.backends._collectives`.
"""

from __future__ import annotations

from ..backends import _collectives as _coll
from ._functional import compact_buffers, field_kind, iter_leaves, set_leaves, state_namespace


def _split_by_kind(state):
    sums, bufs = [], []
    for path, value in iter_leaves(state):
        kind = field_kind(path[-1])
        if kind == "sum":
            sums.append((path, value))
        elif kind == "buffer":
            bufs.append((path, value))
    return sums, bufs


def _by_dtype(leaves):
    groups: dict = {}
    for path, value in leaves:
        groups.setdefault(str(value.dtype), []).append((path, value))
    return [groups[k] for k in sorted(groups)]


def _flatten(group, xp):
    return xp.concat([xp.reshape(v, (-1,)) for _, v in group])


def _size(v):
    n = 1
    for d in v.shape:
        n *= int(d)
    return n


def sync(state, group=None):
    """The state reduced over the ``torch.distributed`` process group.

    Returns the reduced state (the input is not modified); without an
    initialised process group it is returned as is.  Every rank must call it
    with a state of the same metric (same constructor arguments).
    """
    if not _coll.torch_dist_ready():
        return state
    xp, _ = state_namespace(state)
    sums, bufs = _split_by_kind(state)
    new = {}
    for g in _by_dtype(sums):
        flat = _coll.torch_all_reduce_sum(_flatten(g, xp), group)
        offset = 0
        for path, v in g:
            size = _size(v)
            new[path] = xp.reshape(flat[offset:offset + size], v.shape)
            offset += size
    if bufs:
        world = _coll.torch_world_size(group)
        for g in _by_dtype(bufs):
            flat = _flatten(g, xp)
            total = flat.shape[0]
            gathered = xp.reshape(_coll.torch_all_gather(flat, group), (world, total))
            offset = 0
            for path, v in g:
                size = _size(v)
                part = gathered[:, offset:offset + size]
                new[path] = xp.reshape(part, (world * v.shape[0],) + tuple(v.shape[1:]))
                offset += size
    return compact_buffers(set_leaves(state, new), xp=xp)


def psum(state, axis_name):
    """JAX: the state reduced over the mapped axis ``axis_name``.

    Call inside ``jax.shard_map`` / ``jax.pmap``: sums go through one
    ``lax.psum`` (of the whole tree), buffers through ``lax.all_gather``.
    """
    xp, _ = state_namespace(state)
    sums, bufs = _split_by_kind(state)
    new = {}
    if sums:
        reduced = _coll.jax_psum([v for _, v in sums], axis_name)
        new.update({path: r for (path, _), r in zip(sums, reduced)})
    for path, v in bufs:
        new[path] = _coll.jax_all_gather(v, axis_name)
    return compact_buffers(set_leaves(state, new), xp=xp)
