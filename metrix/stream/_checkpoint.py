"""Saved states: what :meth:`Metric.state_dict` writes and ``load_state_dict`` checks.

A state dict is ``{"path/of/leaf": array}`` plus ``"config"``: the metric's
configuration (:meth:`StreamMetric.config`: class count, average,
thresholds, task, capacity, ...) as JSON text in a ``uint8`` array of the
state's namespace and device, so every value of the dict is an array that
moves, saves and converts with the others.  ``load_state_dict`` checks, in
this order, with an error naming what differs:

1. the configuration (``ValueError``: ``num_classes: saved 3, this metric 5``),
   when the dict has one (dicts saved before it existed load without);
2. the keys (``KeyError``: the missing and the unexpected ones);
3. each leaf's shape and dtype kind: integer counts stay integers and float
   sums floats (``ValueError``); within a kind the dtype becomes the
   metric's own (e.g. int32 counts of JAX without x64 widen to int64).  An
   exact buffer (``buf_*``) may hold more rows than the capacity (a merged or
   synced state concatenates buffers); its fields must agree on the length.

The arrays are moved to the metric's placement (namespace and device) when
it has one (it was updated, moved with ``to()``, or loaded before), as
``torch.nn.Module.load_state_dict`` copies into the module's parameters;
a metric with no placement yet takes the namespace and device of the
arrays.  A NumPy state thus loads into a torch metric and the other way
round.
"""

from __future__ import annotations

import json

from .._core import namespace as _ns
from .._core.validation import dtype_kind
from ._functional import field_kind, iter_leaves, set_leaves

CONFIG_KEY = "config"
#: format of the saved configuration
VERSION = 1


def saved_config(spec) -> dict:
    return {"version": VERSION, **spec.config()}


def encode_config(spec, xp, device):
    """The configuration of ``spec`` as a ``uint8`` array (JSON text)."""
    text = json.dumps(saved_config(spec), sort_keys=True)
    return _ns.asarray(list(text.encode()), xp=xp, device=device, dtype=xp.uint8)


def decode_config(value) -> dict:
    """The configuration saved by :func:`encode_config` (a host read)."""
    try:
        if isinstance(value, str):
            text = value
        elif isinstance(value, (bytes, bytearray)):
            text = value.decode()
        else:
            # host read: loading a checkpoint is the user edge
            raw = _ns.host_values(value).reshape(-1)
            text = bytes(raw.astype("uint8").tolist()).decode()
        config = json.loads(text)
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise ValueError(f"state_dict[{CONFIG_KEY!r}] is not a metrix.stream metric "
                         "configuration") from exc
    if not isinstance(config, dict):
        raise ValueError(f"state_dict[{CONFIG_KEY!r}] is not a metrix.stream metric "
                         "configuration")
    return config


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _diff(want, got, prefix="", theirs="saved"):
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            path = f"{prefix}{key}"
            if key not in got:
                yield f"{path}: not {theirs}, this metric {want[key]!r}"
            elif key not in want:
                yield f"{path}: {theirs} {got[key]!r}, unknown to this metric"
            else:
                yield from _diff(want[key], got[key], path + ".", theirs)
    elif not _same(want, got):
        yield f"{prefix.rstrip('.') or 'config'}: {theirs} {got!r}, this metric {want!r}"


def check_mergeable(spec, other_spec, name: str, other_name: str):
    """Raise ``ValueError`` naming each setting where the metric merged in
    (``other_spec``) differs from this one: their states mean different things
    (other classes, outputs, bins or metrics), whether or not they hold data."""
    diffs = list(_diff(spec.config(), other_spec.config(), theirs="other"))
    if other_name != name:
        diffs.insert(0, f"class: other {other_name}, this metric {name}")
    if diffs:
        raise ValueError(f"{name}.merge({other_name}): the metrics are configured "
                         "differently, so their states cannot be added: "
                         + "; ".join(diffs) + ".")


def check_config(spec, saved: dict, name: str):
    """Raise ``ValueError`` naming each setting where ``saved`` differs from ``spec``."""
    if saved.get("version") != VERSION:
        raise ValueError(f"{name}.load_state_dict: the state_dict's configuration has format "
                         f"version {saved.get('version')!r}; this metrix reads version "
                         f"{VERSION}.")
    diffs = list(_diff(saved_config(spec), saved))
    if diffs:
        raise ValueError(f"{name}.load_state_dict: the state_dict was saved by a metric "
                         "configured differently: " + "; ".join(diffs) + ".")


def _kind(x, xp) -> str:
    """"integer", "float", "bool" (or "O"): what a leaf counts in."""
    k = dtype_kind(x, xp)
    return {"i": "integer", "u": "integer", "f": "float", "b": "bool"}.get(k, k)


def _move(v, xp, device):
    """``v`` as an array of ``xp`` on ``device`` (through the host when it comes
    from another namespace or device: loading is a sync point anyway)."""
    if _ns.is_placed(v, xp, device):
        return v
    return _ns.asarray(_ns.host_values(v), xp=xp, device=device)


#: leaves a state gained after a release, with the value an older checkpoint
#: stands for: R^2's sample count ``n`` (NaN below two samples) is taken as two,
#: so an old state gives the value it gave when it was saved
ADDED_LEAVES = {"n": 2}


def _with_added_leaves(values, expected, xp):
    """``values`` with the :data:`ADDED_LEAVES` that an older state dict lacks."""
    added = {key: xp.full_like(want, ADDED_LEAVES[path[-1]])
             for key, (path, want) in expected.items()
             if key not in values and path[-1] in ADDED_LEAVES
             and any(k.startswith("/".join(path[:-1])) for k in values)}
    return {**values, **added} if added else values


def load_state(spec, values: dict, xp, device, name: str):
    """The state of ``spec`` in ``xp`` on ``device`` from a state dict's arrays
    (``values``: ``"path/of/leaf" -> array``, without the configuration)."""
    template = spec._init(xp, device, _ns.max_float_dtype(xp, device))
    expected = {"/".join(p): (p, v) for p, v in iter_leaves(template)}
    values = _with_added_leaves(values, expected, xp)
    missing = sorted(set(expected) - set(values))
    unexpected = sorted(set(values) - set(expected), key=str)
    if missing or unexpected:
        raise KeyError(f"{name}.load_state_dict: state_dict keys do not match this metric's "
                       f"state: missing {missing}, unexpected {unexpected} (expected "
                       f"{sorted(expected)}).")
    out, rows = {}, {}
    for key, (path, want) in expected.items():
        got = _move(values[key], xp, device)
        shape, want_shape = tuple(int(d) for d in got.shape), tuple(want.shape)
        if field_kind(path[-1]) == "buffer" and len(shape) == len(want_shape) and shape:
            # an exact buffer has capacity rows, or more after merge / sync (they
            # concatenate): the rows are free, the other axes and the fields agree
            first = rows.setdefault(path[:-1], (key, shape[0]))
            if shape[0] != first[1]:
                raise ValueError(f"{name}.load_state_dict: state_dict[{key!r}] has "
                                 f"{shape[0]} rows but state_dict[{first[0]!r}] "
                                 f"{first[1]}: the buffer fields must have one length.")
            want_shape = (shape[0],) + want_shape[1:]
        if shape != want_shape:
            raise ValueError(f"{name}.load_state_dict: state_dict[{key!r}] has shape {shape}, "
                             f"expected {want_shape}.")
        kind, want_kind = _kind(got, xp), _kind(want, xp)
        if kind != want_kind:
            what = "integer counts" if want_kind == "integer" else f"{want_kind} values"
            raise ValueError(f"{name}.load_state_dict: state_dict[{key!r}] has dtype "
                             f"{got.dtype}, expected {what} ({want.dtype}).")
        if path[-1] != "meta_dtype" and got.dtype != want.dtype:
            got = xp.astype(got, want.dtype)
        out[path] = got
    return set_leaves(template, out)
