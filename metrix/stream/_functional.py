"""The functional core: metric objects with ``init / update / merge / compute``.

A *state* is a plain dict of arrays (a pytree: ``jax.jit``, ``jax.lax.scan``
and ``torch.compile`` carry it as is).  What a field does on ``merge`` and
``sync`` is given by its name, so any state (a collection's nested dict too)
can be merged or all-reduced without its metric object:

* ``buf_*``: rows of an exact buffer (axis 0 is the capacity). Merging
  concatenates the buffers and moves the occupied rows (``buf_weight != 0``)
  to the front, so later updates keep writing after them;
* ``meta_*``: zero-size arrays that only carry a dtype (the result dtype);
  never reduced, never communicated;
* ``max_*`` / ``min_*``: running extremes, merged by maximum / minimum;
* anything else: a sum (counts, sums of weights, histograms).

``update`` is pure and has static shapes (declared ``num_classes``,
thresholds, capacity): it traces under ``jax.jit``/``lax.scan`` and
``torch.compile(fullgraph=True)``.  Every state's size is fixed at ``init``:
it does not grow with the number of updates.
"""

from __future__ import annotations

from .._core import namespace as _ns
from .._core.validation import check_real_dtypes
from ..backends import ops as _ops

BUFFER, META = "buf_", "meta_"
#: the fields merged by an elementwise extreme, by prefix
EXTREMES = {"max_": "max", "min_": "min"}


def field_kind(name: str) -> str:
    """``"buffer"``, ``"meta"``, ``"max"``, ``"min"`` or ``"sum"`` (see the module
    docstring)."""
    if name.startswith(BUFFER):
        return "buffer"
    if name.startswith(META):
        return "meta"
    return EXTREMES.get(name[:4], "sum")


def iter_leaves(state, prefix=()):
    """``(path, array)`` of every leaf, in a fixed (sorted) order on every rank."""
    for key in sorted(state):
        value = state[key]
        if isinstance(value, dict):
            yield from iter_leaves(value, prefix + (key,))
        else:
            yield prefix + (key,), value


def set_leaves(state, values: dict):
    """A copy of ``state`` with the leaves at the paths of ``values`` replaced."""
    out = {}
    for key, value in state.items():
        if isinstance(value, dict):
            sub = {p[1:]: v for p, v in values.items() if p[0] == key}
            out[key] = set_leaves(value, sub) if sub else value
        else:
            out[key] = values.get((key,), value)
    return out


def state_namespace(state):
    """``(xp, device)`` of a state (``device`` is None under ``jax.jit``)."""
    arrays = [v for _, v in iter_leaves(state)]
    return _ns.get_namespace_and_device(*arrays)


def compact_buffers(state, *, xp):
    """Move the occupied rows (non-zero ``buf_weight``) of each buffer to the front.

    One stable argsort over the capacity: only ``merge``/``sync`` pay it.
    """
    if not isinstance(state, dict):
        return state
    out = {k: compact_buffers(v, xp=xp) if isinstance(v, dict) else v
           for k, v in state.items()}
    if "buf_weight" not in out:
        return out
    dev = _ns.device_of(out["buf_weight"])
    free = xp.astype(out["buf_weight"] == 0, _ns.count_dtype(xp, dev))
    order = xp.argsort(free, stable=True)
    take = _ops(xp).take  # in-range indices: no negative-index fix-up
    for k in out:
        if field_kind(k) == "buffer":
            v = out[k]
            out[k] = take(v, order) if v.ndim == 1 else xp.take(v, order, axis=0)
    return out


def merge_states(a, b):
    """The state of the union of the data of ``a`` and ``b`` (same metric)."""
    xp, _ = state_namespace(a)

    def merge(x, y):
        out = {}
        for key, value in x.items():
            if isinstance(value, dict):
                out[key] = merge(value, y[key])
                continue
            kind = field_kind(key)
            if kind == "buffer":
                out[key] = xp.concat([value, y[key]], axis=0)
            elif kind == "meta":
                out[key] = value
            elif kind == "max":
                out[key] = xp.maximum(value, y[key])
            elif kind == "min":
                out[key] = xp.minimum(value, y[key])
            else:
                out[key] = value + y[key]
        return out

    return compact_buffers(merge(a, b), xp=xp)


class StreamMetric:
    """Base of the functional metric objects.

    Subclasses set ``key`` (the identity of their sufficient statistic: metrics
    with equal keys share one state in a :class:`~metrix.stream.MetricCollection`)
    and implement ``_init(xp, device, result_dtype)``, ``update`` and ``compute``.
    """

    key: tuple = ()
    #: whether ``update`` accepts ``sample_weight``
    weighted: bool = True
    #: what ``update`` calls its arrays (in the errors for a wrong dtype)
    input_names: tuple = ("y_true", "y_pred", "sample_weight")
    #: exact buffers: the two fields that ``(y_true, y_pred)`` fill as they are in
    #: the training loop's case (unweighted 1-D batches of the buffer's kind:
    #: ``buffer_rows`` converts nothing), where the adapter writes them in place
    #: without ``buffer_rows``; None where ``buffer_rows`` computes or converts rows
    row_inputs: tuple | None = None

    def init(self, like=None, *, xp=None, device=None):
        """The empty state, in the namespace and on the device of ``like``.

        ``like`` is any array of the data to come (its float dtype, if any,
        is the result dtype); or give ``xp`` (and ``device``).  Without
        either the state is NumPy.
        """
        if xp is None:
            xp, device = _ns.get_namespace_and_device(like)
        else:
            xp = _ns.namespace_for(xp)
        _ops(xp)  # warm the adapter cache eagerly: filling it inside a compiled step
        # would invalidate dynamo's guard on the cache and recompile the step once
        fdt = _ns.max_float_dtype(xp, device)
        if like is not None and hasattr(like, "dtype") and not _ns.is_host_array(like):
            fdt = _ns.result_float_dtype(xp, device, like)
        return warm(self._init(xp, device, fdt))

    def config(self) -> dict:
        """What the state means, as JSON-able values (``load_state_dict`` checks
        that a saved state was made by the same configuration)."""
        return {"kind": type(self).__name__, "key": repr(self.key)}

    def _init(self, xp, device, fdt):  # pragma: no cover - abstract
        raise NotImplementedError

    def update(self, state, y_true, y_pred, sample_weight=None):  # pragma: no cover
        raise NotImplementedError

    def merge(self, a, b):
        """The state of the data of ``a`` and ``b`` together."""
        return merge_states(a, b)

    def compute(self, state):  # pragma: no cover - abstract
        raise NotImplementedError

    def check_seen(self, n_samples):
        """The host-side checks of a result over ``n_samples`` samples (a count
        the stateful wrappers keep from the batches' shapes, with no device read):
        warnings scikit-learn gives for so few samples.  ``compute`` gives the
        value itself (NaN where scikit-learn's is NaN) on the device."""

    # -- helpers for subclasses -------------------------------------------
    def _inputs(self, state, *arrays, primary=None):
        """``xp``, ``device``, ``ops`` and the arrays moved to the state's device.

        ``primary``: one leaf of the state (saves walking the whole state).
        Inputs that already are arrays of the state's type are not converted.
        """
        if primary is None:
            xp, device = state_namespace(state)
        else:
            xp, device = array_namespace(primary), _ns.device_of(primary)
        kind = type(primary) if primary is not None else None
        moved = tuple(a if a is None or type(a) is kind else
                      _ns.asarray(a, xp=xp, device=device) for a in arrays)
        check_real_dtypes(moved, self.input_names, xp)
        return (xp, device, _ops(xp)) + moved

    @staticmethod
    def _positive_int(value, name):
        """``value`` if it is an int >= 1 (not a bool); ``ValueError`` otherwise."""
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
        return value

    @staticmethod
    def _checked_ignore_index(ignore_index):
        """``ignore_index`` as an int, or None; ``ValueError`` for a non-integral value."""
        if ignore_index is not None and (isinstance(ignore_index, bool)
                                         or int(ignore_index) != ignore_index):
            raise ValueError(f"ignore_index must be an int or None, got {ignore_index!r}")
        return None if ignore_index is None else int(ignore_index)

    @staticmethod
    def _flat(x, xp):
        """``x`` as 1-D (no reshape, so no kernel, where it is 1-D already)."""
        return x if x.ndim == 1 else xp.reshape(x, (-1,))

    @staticmethod
    def _flat_as(x, dtype, xp):
        """``x`` (sample weights) as 1-D of ``dtype``; no kernel where it is one already."""
        return StreamMetric._flat(xp.astype(x, dtype, copy=False), xp)

    def _check_weight(self, sample_weight):
        if sample_weight is not None and not self.weighted:
            raise ValueError(
                f"{type(self).__name__} was created with weighted=False: its counts are "
                "int64. Create it with weighted=True to pass sample_weight (the state is "
                "then a float sum of weights).")

    def __repr__(self):
        return f"{type(self).__name__}{self.key!r}"


_NAMESPACES: dict = {}


def array_namespace(a):
    """The namespace of a state array, cached per array type (never for tracers)."""
    kind = type(a)
    xp = _NAMESPACES.get(kind)
    if xp is None:
        xp, _ = _ns.get_namespace_and_device(a)
        if _ns.device_of(a) is not None:
            _NAMESPACES[kind] = xp
    return xp


_FLOATS: dict = {}


def _dtype_set(xp, names):
    """The dtypes ``names`` of ``xp`` as arrays carry them: the namespace's dtype
    objects and, where they differ (NumPy's and JAX's dtype classes against
    their arrays' dtype instances, which hash differently), ``iinfo`` /
    ``finfo``'s ``dtype`` (no array made)."""
    out = set()
    for n in names:
        dt = getattr(xp, n, None)
        if dt is None:
            continue
        out.add(dt)
        try:
            info = xp.finfo(dt) if n.startswith(("float", "bfloat")) else xp.iinfo(dt)
            out.add(info.dtype)
        except Exception:  # no info for this dtype: the namespace's object only
            pass
    return frozenset(out)


def float_dtypes(xp):
    """The real floating dtypes of ``xp`` (cached: ``isdtype`` costs microseconds)."""
    found = _FLOATS.get(id(xp))
    if found is None:
        names = ("float16", "bfloat16", "float32", "float64")
        found = (xp, _dtype_set(xp, names))
        _FLOATS[id(xp)] = found
    return found[1]


_INTS: dict = {}


def int_dtypes(xp):
    """The integer dtypes of ``xp`` (cached)."""
    found = _INTS.get(id(xp))
    if found is None:
        names = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
        found = (xp, _dtype_set(xp, names))
        _INTS[id(xp)] = found
    return found[1]


def is_float(x, xp) -> bool:
    """Whether ``x`` has a real floating dtype (the cached sets answer without
    an ``isdtype`` call; a dtype they lack asks ``isdtype``)."""
    dt = x.dtype
    if dt in float_dtypes(xp):
        return True
    if dt in int_dtypes(xp):
        return False
    return xp.isdtype(dt, "real floating")  # a dtype query: no array is read


_COUNT: dict = {}


def count_dtype(xp, device):
    """:func:`metrix._core.namespace.count_dtype`, cached per (namespace, device)."""
    key = (id(xp), str(device))
    found = _COUNT.get(key)
    if found is None:
        found = (xp, _ns.count_dtype(xp, device), _ns.max_float_dtype(xp, device))
        if _ns.dtypes_are_fixed(xp):  # JAX's follow the x64 flag: no cache
            _COUNT[key] = found
    return found[1]


def warm(state):
    """Fill the namespace caches for ``state``'s arrays (eagerly, outside compiled steps)."""
    for _, leaf in iter_leaves(state):
        xp = array_namespace(leaf)
        float_dtypes(xp)
        int_dtypes(xp)
        count_dtype(xp, _ns.device_of(leaf))
    return state


def result_dtype(state, xp):
    """The result float dtype recorded at ``init`` (``meta_dtype``)."""
    return state["meta_dtype"].dtype


def dtype_probe(xp, device, fdt):
    """The zero-size ``meta_dtype`` field that carries the result dtype."""
    return xp.zeros((0,), dtype=fdt, device=device)
