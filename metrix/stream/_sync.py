"""Reducing metric states across processes and devices.

* :func:`sync` (torch.distributed): **one collective** per call, on a flat
  buffer whose size is fixed by the metric's constructor (not by the data):
  the state's leaves are packed into one float64 buffer (counts are exact
  there up to 2**53); a state of sums takes one ``all_reduce``, a state with
  exact buffers (``buf_*``) one ``all_gather`` whose sum leaves are added up
  on arrival.  Every rank issues the same collective whatever its data (a
  rank that saw no batch sends zeros).  Before it, the ranks meet on the
  process group's store with a timeout (:func:`torch_rendezvous
  <metrix.backends._collectives.torch_rendezvous>`): a metric synced on only
  some ranks raises :class:`SyncTimeoutError` naming the missing ranks,
  instead of hanging.  Where the device has no float64 (MPS), one collective
  per dtype.
  A state with running extremes (``max_*`` / ``min_*``) takes the
  ``all_gather`` too, and each extreme is reduced on arrival.
* :func:`psum` (JAX, inside ``shard_map`` / ``pmap``): ``lax.psum`` of the
  sums, ``lax.pmax`` / ``lax.pmin`` of the extremes and ``lax.all_gather`` of
  the buffers over a named axis.

The library calls live in :mod:`metrix.backends._collectives`.
"""

from __future__ import annotations

from .._core import namespace as _ns
from ..backends import _collectives as _coll
from ._functional import compact_buffers, field_kind, iter_leaves, set_leaves, state_namespace


def _split_by_kind(state):
    """``(sums, buffers, extremes)``: the ``(path, leaf)`` pairs of each kind."""
    sums, bufs, extremes = [], [], []
    for path, value in iter_leaves(state):
        kind = field_kind(path[-1])
        if kind == "sum":
            sums.append((path, value))
        elif kind == "buffer":
            bufs.append((path, value))
        elif kind in ("max", "min"):
            extremes.append((path, value))
    return sums, bufs, extremes


def _reduce_extremes(extremes, rows, offset, xp):
    """The extremes from the gathered ``(world, size)`` rows, from column ``offset``
    on: each leaf's maximum or minimum over the ranks."""
    out = {}
    for path, v in extremes:
        size = _size(v)
        part = rows[:, offset:offset + size]
        pick = xp.max if field_kind(path[-1]) == "max" else xp.min
        out[path] = xp.astype(xp.reshape(pick(part, axis=0), v.shape), v.dtype)
        offset += size
    return out


def _by_dtype(leaves):
    groups: dict = {}
    for path, value in leaves:
        groups.setdefault(str(value.dtype), []).append((path, value))
    return [groups[k] for k in sorted(groups)]


def _flatten(group, xp, dtype=None):
    parts = [xp.reshape(v, (-1,)) for _, v in group]
    if dtype is not None:
        parts = [xp.astype(v, dtype) for v in parts]
    return xp.concat(parts)


def _size(v):
    n = 1
    for d in v.shape:
        n *= int(d)
    return n


class SyncTimeoutError(RuntimeError):
    """Some ranks did not call ``sync`` / ``compute`` within the timeout.

    Every rank of the process group must sync the same metrics in the same
    order; a metric computed on only some ranks would otherwise hang in the
    collective.
    """


def sync(state, group=None, *, timeout=None):
    """The state reduced over the ``torch.distributed`` process group.

    Returns the reduced state (the input is not modified); without an
    initialised process group it is returned as is.  Every rank must call it
    with a state of the same metric (same constructor arguments), in the same
    order as the other ranks.

    Parameters
    ----------
    state : dict
        A functional metric state (a pytree of torch tensors).
    group : ProcessGroup, optional
        The group to reduce over (default: the whole world).
    timeout : datetime.timedelta or float, optional
        How long to wait for the other ranks to arrive (seconds when a
        number; default 5 minutes) before raising :class:`SyncTimeoutError`.
    """
    if not _coll.torch_dist_ready():
        return state
    xp, device = state_namespace(state)
    sums, bufs, extremes = _split_by_kind(state)
    if not sums and not bufs and not extremes:
        return state
    missing = _coll.torch_rendezvous(group, timeout)
    if missing:
        raise SyncTimeoutError(
            f"metric sync: ranks {missing} did not arrive within the timeout. Every rank "
            "must call compute() / sync() on the same metrics, in the same order (a "
            "metric computed on some ranks only, or under `if rank == 0:`, would hang).")
    wide = _ns.max_float_dtype(xp, device)
    if not _packable(sums + bufs + extremes, wide, xp):
        return _sync_by_dtype(state, sums, bufs, extremes, group, xp)
    new = {}
    if not bufs and not extremes:
        flat = _coll.torch_all_reduce_sum(_flatten(sums, xp, wide), group)
        new.update(_unpack(sums, flat, xp))
    else:  # one all_gather: the sums added, the extremes reduced, the buffers joined
        world = _coll.torch_world_size(group)
        flat = _flatten(sums + extremes + bufs, xp, wide)
        rows = xp.reshape(_coll.torch_all_gather(flat, group), (world, flat.shape[0]))
        n_sums = sum(_size(v) for _, v in sums)
        n_ext = sum(_size(v) for _, v in extremes)
        if sums:
            new.update(_unpack(sums, xp.sum(rows[:, :n_sums], axis=0), xp))
        new.update(_reduce_extremes(extremes, rows, n_sums, xp))
        new.update(_concat_rows(bufs, rows, n_sums + n_ext, xp))
    return compact_buffers(set_leaves(state, new), xp=xp)


def _packable(leaves, wide, xp) -> bool:
    """Whether every leaf fits in the float64 buffer exactly (counts up to 2**53)."""
    if wide != xp.float64:
        return False
    return all(xp.isdtype(v.dtype, ("bool", "integral", "real floating"))
               for _, v in leaves)


def _unpack(group, flat, xp):
    out, offset = {}, 0
    for path, v in group:
        size = _size(v)
        out[path] = xp.astype(xp.reshape(flat[offset:offset + size], v.shape), v.dtype)
        offset += size
    return out


def _concat_rows(bufs, rows, offset, xp):
    """The exact buffers from the gathered ``(world, size)`` rows, from column
    ``offset`` on: each rank's rows one after the other, in each leaf's dtype."""
    out, world = {}, rows.shape[0]
    for path, v in bufs:
        size = _size(v)
        part = xp.astype(rows[:, offset:offset + size], v.dtype)
        out[path] = xp.reshape(part, (world * v.shape[0],) + tuple(v.shape[1:]))
        offset += size
    return out


def _sync_by_dtype(state, sums, bufs, extremes, group, xp):
    """One collective per dtype: for devices without float64."""
    new = {}
    for g in _by_dtype(sums):
        new.update(_unpack(g, _coll.torch_all_reduce_sum(_flatten(g, xp), group), xp))
    world = _coll.torch_world_size(group) if bufs or extremes else 1
    for g in _by_dtype(extremes):
        flat = _flatten(g, xp)
        gathered = xp.reshape(_coll.torch_all_gather(flat, group), (world, flat.shape[0]))
        new.update(_reduce_extremes(g, gathered, 0, xp))
    if bufs:
        for g in _by_dtype(bufs):
            flat = _flatten(g, xp)
            gathered = xp.reshape(_coll.torch_all_gather(flat, group),
                                  (world, flat.shape[0]))
            new.update(_concat_rows(g, gathered, 0, xp))
    return compact_buffers(set_leaves(state, new), xp=xp)


def psum(state, axis_name):
    """JAX: the state reduced over the mapped axis ``axis_name``.

    Call inside ``jax.shard_map`` / ``jax.pmap``: sums go through one
    ``lax.psum`` (of the whole tree), buffers through ``lax.all_gather``.
    """
    xp, _ = state_namespace(state)
    sums, bufs, extremes = _split_by_kind(state)
    new = {}
    if sums:
        reduced = _coll.jax_psum([v for _, v in sums], axis_name)
        new.update({path: r for (path, _), r in zip(sums, reduced)})
    for path, v in extremes:
        new[path] = _coll.jax_extreme(v, axis_name, field_kind(path[-1]))
    for path, v in bufs:
        new[path] = _coll.jax_all_gather(v, axis_name)
    return compact_buffers(set_leaves(state, new), xp=xp)
