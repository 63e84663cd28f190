"""Every :mod:`metrix.stream` metric as a ``flax.nnx.Metric``, under the same name.

    import metrix.integrations.flax as mf
    from flax import nnx

    metrics = nnx.MultiMetric(
        f1=mf.F1Score(10, y_true_arg="labels", y_pred_arg="logits"),
        loss=nnx.metrics.Average("loss"))

    @nnx.jit
    def eval_step(model, metrics, x, labels):
        logits = model(x)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        metrics.update(labels=labels, logits=logits, loss=loss)

    metrics.compute()   # {"f1": 0-d array, "loss": 0-d array}
    metrics.reset()

Each class holds the functional metric of its :mod:`metrix.stream` namesake
(``.spec``) and keeps its state in ``nnx`` variables of flax's
``MetricState`` type, one per leaf of the functional state (``.state_vars``,
a dict shaped as the state).  ``update`` replaces them with
``spec.update(state, ...)`` (pure, static shapes), so an ``nnx.jit`` step
that takes the metrics updates them in place, as it does for
``nnx.metrics.Accuracy``; ``compute`` returns ``spec.compute(state)`` (0-d
arrays, a dict for a collection) and ``reset`` zeroes the variables.

**Arguments.**  ``update(y_true, y_pred, sample_weight=None)`` positionally,
as :mod:`metrix.stream` and scikit-learn; or by keyword, under the names given
at construction (``y_true_arg="y_true"``, ``y_pred_arg="y_pred"``,
``sample_weight_arg="sample_weight"``), so that one ``MultiMetric.update(
labels=..., logits=..., ...)`` reaches every metric.  Keywords that are not
one of these names are ignored, as flax's own metrics ignore them (a
misspelt name is therefore not an error: check the constructor's names).

``mask=`` (one value per sample, ``nnx.MultiMetric`` passes it on) drops
samples exactly: a masked sample counts for nothing, whatever its values
(padding may hold garbage), and integer counts stay integers.  In the exact
mode (``capacity=``) masked samples still take room in the buffer.

**No data.**  ``compute()`` before any sample raises ``ValueError``, as
:mod:`metrix.stream` does (a metric of no data is undefined, not 0 or NaN;
flax's own ``Average`` gives NaN).  The host knows it from the batches'
shapes, with no device read, and ``nnx.jit`` carries that knowledge out of a
traced step without recompiling it.  It does not know it after a masked batch
(the mask is on the device), a traced empty batch, :meth:`FlaxMetric.load_state`,
or variables restored by ``nnx.update`` / ``nnx.merge`` with another metric's
graph (an orbax checkpoint): ``compute()`` then returns the formula's value
(NaN for most metrics) instead of raising.

**Logged values and wrappers.**  The aggregators (``MeanMetric``, ``SumMetric``,
``MaxMetric``, ``MinMetric``, ``CatMetric(capacity)``) take ``update(values=...,
weight=...)`` as ``nnx.metrics.Average`` does (:class:`FlaxAggregator`);
``Running(metric, window)`` and ``ClasswiseWrapper(metric, ...)`` wrap a metric
of this module (fixed-size states: they run inside ``nnx.jit``);
``MetricTracker`` is :class:`metrix.stream.MetricTracker`.

**Counts.**  Counts are integer arrays: int32 unless ``jax_enable_x64`` is
on, so exact up to 2**31 - 1 samples (per class and per confusion cell);
sums of weights and of errors are float32 without x64, float64 with it.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx

from .. import stream as _stream
from .._core.edge import _TRACER_ERRORS
from ..backends import ops as _ops
from ..stream._aggregation import CatStream, MeanStream, nan_check
from ..stream._aggregation import _Aggregation as _AggregationStream
from ..stream._aggregation import _Extreme as _ExtremeStream
from ..stream._checkpoint import check_mergeable
from ..stream._functional import field_kind, iter_leaves, warm
from ..stream._running import RunningStream
from ._faces import AGGREGATORS, STREAM_METRICS, WRAPPERS

__all__ = ["FlaxMetric"]

_MetricState = nnx.metrics.MetricState


class FlaxMetric(nnx.metrics.Metric):
    """A ``flax.nnx.Metric`` around one functional :mod:`metrix.stream` metric.

    Parameters
    ----------
    spec : metrix.stream.StreamMetric or metrix.stream.Metric
        The functional metric (or a stream metric, whose ``.spec`` is taken).
    y_true_arg, y_pred_arg, sample_weight_arg : str
        The keyword names under which :meth:`update` finds ``y_true``,
        ``y_pred`` and ``sample_weight`` (e.g. ``"labels"``, ``"logits"``).
    dtype : jax dtype, default=None
        The result float dtype; the widest float JAX has (float32 without
        ``jax_enable_x64``) by default.
    """

    #: whether greater values are better (None: no direction), as the stream class's
    higher_is_better = None

    def __init__(self, spec, *, y_true_arg="y_true", y_pred_arg="y_pred",
                 sample_weight_arg="sample_weight", dtype=None):
        if isinstance(spec, _stream.Metric):
            spec = spec.spec
        if not isinstance(spec, _stream.StreamMetric):
            raise TypeError(f"{type(self).__name__} wraps a metrix.stream metric, got "
                            f"{type(spec).__name__}")
        self._setup(spec, (y_true_arg, y_pred_arg, sample_weight_arg),
                    "y_true_arg, y_pred_arg and sample_weight_arg", dtype)

    def _setup(self, spec, names, what, dtype):
        if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
            count = {2: "two", 3: "three"}[len(names)]
            raise ValueError(f"{what} must be {count} different str, got {names!r}")
        self.spec = spec
        self.argnames = tuple(names)
        probe = jnp.zeros((0,))
        device = next(iter(probe.devices()))
        fdt = jnp.dtype(dtype) if dtype is not None else jnp.result_type(float)
        _ops(jnp)  # fill the adapter cache eagerly, not inside a traced step
        state = warm(spec._init(jnp, device, fdt))
        # the leaves an empty state does not hold at zero (the running maximum of
        # MaxMetric starts at -inf): ``(path, value)``, read once here, for reset()
        self._fills = tuple((path, float(leaf.reshape(-1)[0])) for path, leaf in
                            iter_leaves(state) if leaf.size == 1
                            and field_kind(path[-1]) in ("max", "min") and bool(leaf != 0))
        self.state_vars = nnx.data(jax.tree.map(_MetricState, state))
        self._seen = _Seen(_EMPTY)

    # -- the functional state --------------------------------------------------------
    @property
    def state(self):
        """The functional state: a dict (pytree) of arrays, as ``spec.update`` takes it."""
        return jax.tree.map(lambda v: v[...], self.state_vars, is_leaf=_is_var)

    def load_state(self, state):
        """Set the variables to a functional state of this metric (afterwards
        :meth:`compute` does not check on the host that it holds a sample).

        Parameters
        ----------
        state : dict
            A state of this metric's ``spec`` (e.g. merged with
            :func:`metrix.stream.psum` or :func:`metrix.stream.merge_states`).
            Its leaves must have the variables' shapes and kinds of dtype
            (integer counts, float sums), except that an exact buffer
            (``buf_*``, ``capacity=``) merged with others holds more rows: the
            variable then takes the larger buffer.
        """
        mine, new = dict(iter_leaves(self.state_vars)), dict(iter_leaves(state))
        name = type(self).__name__
        if mine.keys() != new.keys():
            raise ValueError(f"{name}.load_state: the state's leaves {sorted(new)} are not "
                             f"this metric's {sorted(mine)}")
        for path, var in mine.items():
            value = jnp.asarray(new[path])
            old = var[...]
            if jnp.issubdtype(value.dtype, jnp.integer) != jnp.issubdtype(old.dtype,
                                                                          jnp.integer):
                raise ValueError(f"{name}.load_state: {'/'.join(path)} is {value.dtype}, "
                                 f"this metric holds {old.dtype}")
            if value.shape == old.shape:
                var[...] = value
            elif field_kind(path[-1]) == "buffer" and value.shape[1:] == old.shape[1:]:
                var.set_value(jnp.astype(value, old.dtype))  # a merged exact buffer
            else:
                raise ValueError(f"{name}.load_state: {'/'.join(path)} has shape "
                                 f"{tuple(value.shape)}, this metric {tuple(old.shape)}")
        self._seen = _Seen(_UNKNOWN)

    # -- nnx.Metric --------------------------------------------------------------------
    def update(self, *args, mask=None, **kwargs) -> None:
        """Accumulate one batch in place (no host read; traces under ``nnx.jit``).

        Parameters
        ----------
        *args : array
            ``y_true, y_pred[, sample_weight]`` positionally.
        mask : array, default=None
            One value per sample; samples where it is 0 / False count for
            nothing (exact, whatever their values).
        **kwargs : array
            ``y_true``, ``y_pred`` and ``sample_weight`` under the names given
            at construction; any other keyword is ignored (``nnx.MultiMetric``
            passes the same keywords to every metric).
        """
        y_true, y_pred, sample_weight = self._arguments(args, kwargs)
        seen, state = self._seen.value, self.state
        try:
            if mask is None:
                new = self.spec.update(state, y_true, y_pred, sample_weight)
            else:
                new = self._masked_update(state, y_true, y_pred, sample_weight, mask)
        except Exception as exc:
            if type(exc).__name__ in _TRACER_ERRORS:
                raise TypeError(
                    f"{type(self).__name__} was traced (nnx.jit, jax.jit) and had to read "
                    "the data on the host: validate=True checks the labels' values. Inside a "
                    "compiled step create the metric with validate=False (the default).") from exc
            raise
        self.load_state(new)
        self._seen = _Seen(_seen_after(seen, _rows(y_pred), mask is not None,
                                       _traced(y_true, y_pred, sample_weight, mask)))

    def compute(self):
        """The metric over everything accumulated: 0-d arrays (a dict for a collection).

        Raises ``ValueError`` when no sample was seen (see the module docstring).
        """
        if self._seen.value == _EMPTY:
            raise ValueError(
                f"{type(self).__name__}.compute() before any sample: the metric of no data "
                "is undefined (scikit-learn raises for empty input). Call update() with at "
                "least one sample first.")
        return self.spec.compute(self.state)

    def reset(self) -> None:
        """Forget the data (the leaves of an empty state: zero, or the running
        extremes' start); dtypes stay."""
        fills = dict(self._fills)
        for path, var in iter_leaves(self.state_vars):
            old = var[...]
            _assign(var, jnp.full_like(old, fills[path]) if path in fills
                    else jnp.zeros_like(old))
        self._seen = _Seen(_EMPTY)

    def merge(self, other):
        """Add the data of ``other`` (a metric of the same configuration) to this one.

        Parameters
        ----------
        other : FlaxMetric
            The metric whose data is added; it is not modified.

        Raises ``ValueError`` naming each setting where ``other`` is configured
        differently (its state means something else), ``TypeError`` for an
        object that is not a :class:`FlaxMetric`.
        """
        name = type(self).__name__
        if not isinstance(other, FlaxMetric):
            raise TypeError(f"{name}.merge expects a metric of {__name__}, got "
                            f"{type(other).__name__}")
        other_name = type(other).__name__
        if FlaxMetric in (type(self), type(other)):  # the base class names no metric
            other_name = name
        check_mergeable(self.spec, other.spec, name, other_name)
        mine, theirs = self._seen.value, other._seen.value
        state = self.state
        self.load_state(self.spec.merge(state, other.state))
        self._seen = _Seen(_UNKNOWN if _traced(*jax.tree.leaves(state)) else
                           _SOME if _SOME in (mine, theirs) else
                           _EMPTY if mine == theirs == _EMPTY else _UNKNOWN)
        return self

    # -- helpers -----------------------------------------------------------------------
    def _collect(self, args, kwargs, what):
        """``update``'s arguments in the order of ``argnames`` (None where not given):
        the positional ones, then the keywords named at construction."""
        name, n = type(self).__name__, len(self.argnames)
        if len(args) > n:
            raise TypeError(f"{name}.update takes at most {n} positional arguments "
                            f"({what}), got {len(args)}")
        values = list(args) + [None] * (n - len(args))
        for i, key in enumerate(self.argnames):
            if key in kwargs:
                if i < len(args):
                    raise TypeError(f"{name}.update got {key!r} both positionally and "
                                    "as a keyword")
                values[i] = kwargs[key]
        return values

    def _arguments(self, args, kwargs):
        name = type(self).__name__
        values = self._collect(args, kwargs, "y_true, y_pred, sample_weight")
        if values[0] is None or values[1] is None:
            raise TypeError(
                f"{name}.update needs y_true and y_pred: positionally, or as the keywords "
                f"{self.argnames[0]!r} and {self.argnames[1]!r} (set with y_true_arg= and "
                f"y_pred_arg=); got the keywords {sorted(kwargs)}")
        return values

    def _masked_update(self, state, y_true, y_pred, sample_weight, mask):
        y_true, y_pred = jnp.asarray(y_true), jnp.asarray(y_pred)
        n = y_pred.shape[0] if y_pred.ndim else 1
        keep = jnp.reshape(jnp.asarray(mask), (-1,)) != 0
        if keep.shape[0] != n:
            raise ValueError(f"mask must hold one value per sample ({n}), got shape "
                             f"{tuple(jnp.shape(mask))}")
        if n == 0:
            return state
        # masked rows take the values of the first kept row (padding may hold NaN)
        ref = jnp.argmax(keep)
        y_true, y_pred = _fill(y_true, keep, ref), _fill(y_pred, keep, ref)
        w = None if sample_weight is None else _fill(
            jnp.reshape(jnp.asarray(sample_weight), (-1,)), keep, ref)
        return _masked(self.spec, state, y_true, y_pred, w, keep, ref)


def _masked(spec, state, y_true, y_pred, w, keep, ref):
    """``spec.update`` of the kept rows only (masked rows already hold row ``ref``)."""
    if isinstance(spec, RunningStream):  # the window pushes the kept rows' own state
        # (a batch with every row masked pushes an empty one, as an empty batch does)
        return spec.push(state, _masked(spec.spec, spec.empty(state), y_true, y_pred, w,
                                        keep, ref))
    if isinstance(spec, _stream.CollectionStream):  # each statistic its own way
        out = dict(state)
        for sname, member in spec._groups.values():
            out[sname] = _masked(member, state[sname], y_true, y_pred, w, keep, ref)
        return out
    if spec.weighted:  # float sums or exact buffers: masked rows weigh 0
        ones = jnp.ones(keep.shape, dtype=jnp.result_type(float))
        new = spec.update(state, y_true, y_pred, jnp.where(keep, ones if w is None else w, 0))
        return jax.tree.map(lambda a, b: jnp.where(jnp.any(keep), a, b), new, state)
    # integer counts: the batch's update, less the copies of row ``ref`` (a state is
    # a sum of per-sample terms, so this is exact in integers)
    new = spec.update(state, y_true, y_pred, w)
    zero = jax.tree.map(jnp.zeros_like, state)
    one = spec.update(zero, jnp.take(y_true, ref[None], axis=0),
                      jnp.take(y_pred, ref[None], axis=0),
                      None if w is None else jnp.take(w, ref[None], axis=0))
    return _subtract(new, one, keep.shape[0] - jnp.sum(keep))


def _is_var(x):
    return isinstance(x, nnx.Variable)


_EMPTY, _SOME, _UNKNOWN = "empty", "some", "unknown"


class _Seen:
    """Whether the metric holds a sample, as the host knows it: ``"empty"``,
    ``"some"`` or ``"unknown"`` (``.value``).

    A static attribute of the metric's nnx graph, so that ``nnx.jit`` carries the
    value a traced update produced out of the step.  Every ``_Seen`` compares
    equal, so the value is not part of the step's cache key: a change does not
    recompile it.  Under tracing, updates therefore produce only values that do
    not depend on the one coming in (see :func:`_seen_after`).
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Seen)

    def __hash__(self):
        return hash(_Seen)

    def __repr__(self):
        return f"_Seen({self.value!r})"


def _seen_after(seen, n, masked, traced):
    """What the host knows after a batch of ``n`` rows (a static shape)."""
    if n and not masked:
        return _SOME
    if traced:  # a cached step replays this for any incoming value
        return _UNKNOWN
    if not masked:  # an empty batch
        return seen
    return _SOME if seen == _SOME else _UNKNOWN  # the mask is on the device: unread


def _rows(y) -> int:
    shape = getattr(y, "shape", None)
    if shape is None:
        return len(y)
    return shape[0] if len(shape) else 1


def _traced(*arrays) -> bool:
    return any(isinstance(a, jax.core.Tracer) for a in arrays)


def _assign(var, value):
    var[...] = value


def _fill(x, keep, ref):
    if x.ndim == 0:
        return x
    where = jnp.reshape(keep, (-1,) + (1,) * (x.ndim - 1))
    return jnp.where(where, x, jnp.take(x, ref[None], axis=0))


def _subtract(state, one, times):
    out = {}
    for key, value in state.items():
        if isinstance(value, dict):
            out[key] = _subtract(value, one[key], times)
        elif field_kind(key) == "sum":
            out[key] = value - jnp.astype(times, value.dtype) * one[key]
        else:
            out[key] = value
    return out


def _face(name):
    cls = getattr(_stream, name)

    def __init__(self, *args, y_true_arg="y_true", y_pred_arg="y_pred",
                 sample_weight_arg="sample_weight", dtype=None, **kwargs):
        FlaxMetric.__init__(self, cls(*args, **kwargs).spec, y_true_arg=y_true_arg,
                            y_pred_arg=y_pred_arg, sample_weight_arg=sample_weight_arg,
                            dtype=dtype)

    return _face_type(cls, FlaxMetric, __init__,
                      "    Also takes the keywords ``y_true_arg``, ``y_pred_arg``,\n"
                      "    ``sample_weight_arg`` and ``dtype`` of :class:`FlaxMetric`.\n")


def _face_type(cls, base, init, usage):
    """The face class of the stream class ``cls``: ``base`` with ``init``."""
    name = cls.__name__
    return type(name, (base,), {
        "__init__": init, "__module__": __name__, "__qualname__": name,
        "higher_is_better": cls.higher_is_better,
        "__doc__": f"``metrix.stream.{name}`` as a ``flax.nnx.Metric`` (same arguments).\n\n"
                   f"{usage}    See :class:`metrix.stream.{name}` and :mod:`{__name__}`."})


# -- the aggregators and the wrappers --------------------------------------------------

def _aggregation_of(spec):
    """The aggregator a spec applies (itself, or the one a ``Running`` window runs)."""
    base = spec.spec if isinstance(spec, RunningStream) else spec
    return base if isinstance(base, _AggregationStream) else None


class FlaxAggregator(FlaxMetric):
    """A ``flax.nnx.Metric`` around a :mod:`metrix.stream` aggregator (``MeanMetric``,
    ``SumMetric``, ``MaxMetric``, ``MinMetric``, ``CatMetric``) or a ``Running``
    window of one: ``update(values=..., weight=...)``, as ``nnx.metrics.Average``.

    Parameters
    ----------
    spec : metrix.stream.StreamMetric or metrix.stream.Aggregator
        The functional aggregator (or a stream aggregator, whose ``.spec`` is taken).
    argname : str, default="values"
        The keyword under which :meth:`update` finds the values
        (``nnx.metrics.Average``'s ``argname``).
    weight_arg : str, default="weight"
        The keyword of the weights (``MeanMetric`` only).
    dtype : jax dtype, default=None
        The result float dtype (see :class:`FlaxMetric`).
    """

    def __init__(self, spec, *, argname="values", weight_arg="weight", dtype=None):
        if isinstance(spec, _stream.Metric):
            spec = spec.spec
        if _aggregation_of(spec) is None:
            raise TypeError(f"{type(self).__name__} wraps a metrix.stream aggregator, got "
                            f"{type(spec).__name__}")
        agg = _aggregation_of(spec)
        if isinstance(agg, CatStream) and agg.nan_strategy in ("ignore", "warn", "error"):
            raise ValueError(
                f"{type(self).__name__}: nan_strategy={agg.nan_strategy!r} drops NaN values "
                "on the host (how many values there are would depend on the data, which a "
                "compiled step cannot hold); give a float to replace them, or 'disable'")
        self._setup(spec, (argname, weight_arg), "argname and weight_arg", dtype)

    def update(self, *args, mask=None, **kwargs) -> None:
        """Add one batch of values in place (no host read; traces under ``nnx.jit``).

        Parameters
        ----------
        *args : array or float
            ``values[, weight]`` positionally (any shape, flattened; ``weight``
            broadcasts to the values' shape, NumPy's rules, ``MeanMetric`` only).
        mask : array, default=None
            Values where it is 0 / False count for nothing (exact); it
            broadcasts over the values from the first axis (one per sample).
            ``CatMetric`` takes none (a data-dependent number of values).
        **kwargs : array or float
            The values and weights under the names given at construction;
            any other keyword is ignored (``nnx.MultiMetric`` passes the same
            keywords to every metric).
        """
        name = type(self).__name__
        value, weight = self._collect(args, kwargs, "values, weight")
        if value is None:
            raise TypeError(f"{name}.update needs the values: positionally, or as the "
                            f"keyword {self.argnames[0]!r} (set with argname=); got the "
                            f"keywords {sorted(kwargs)}")
        value = jnp.asarray(value)
        weight = None if weight is None else jnp.asarray(weight)
        agg = _aggregation_of(self.spec)
        traced = _traced(value, weight, mask)
        if agg.nan_strategy in ("warn", "error"):
            if traced:
                raise TypeError(
                    f"{name} was traced (nnx.jit, jax.jit) with nan_strategy="
                    f"{agg.nan_strategy!r}, which reads the values on the host to warn or "
                    "raise: inside a compiled step use 'ignore' (or a float)")
            nan_check(value, weight, agg.nan_strategy, name)
        if mask is not None:
            value, weight = _masked_values(agg, value, weight, mask, name)
        seen = self._seen.value
        self.load_state(self.spec.update(self.state, value, weight))
        self._seen = _Seen(_seen_after(seen, math.prod(value.shape), mask is not None,
                                       traced))

    def compute(self):
        """The aggregate over everything added: a 0-d array (``CatMetric``: the
        values, 1-D, in update order; it reads the count on the host, the
        result's length).

        Raises ``ValueError`` when no value was seen (see the module docstring),
        :class:`~metrix.stream.BufferFullError` when ``CatMetric`` was given
        more values than its ``capacity``.
        """
        if not isinstance(_aggregation_of(self.spec), CatStream) or isinstance(
                self.spec, RunningStream):
            return super().compute()
        if self._seen.value == _EMPTY:
            super().compute()  # raises
        state = self.state
        if int(state["dropped"]) > 0:  # host read: the result's length is read anyway
            raise _stream.BufferFullError(
                f"{type(self).__name__}: {int(state['dropped'])} values past capacity="
                f"{self.spec.capacity} were not kept; create it with a larger capacity")
        return self.spec.compute(state)


def _masked_values(agg, value, weight, mask, name):
    """``(value, weight)`` where masked values count for nothing (exact): a weight of
    0 (the mean), 0 (the sum), the neutral of a maximum / minimum."""
    if isinstance(agg, CatStream):
        raise ValueError(f"{name}.update takes no mask: the values kept would depend on "
                         "the data (pass only the values to keep)")
    keep = jnp.asarray(mask) != 0
    if keep.ndim > value.ndim or keep.shape != value.shape[:keep.ndim]:
        raise ValueError(f"mask of shape {tuple(keep.shape)} does not match the values' "
                         f"leading axes {tuple(value.shape)}")
    keep = jnp.broadcast_to(jnp.reshape(keep, keep.shape + (1,) * (value.ndim - keep.ndim)),
                            value.shape)
    if isinstance(agg, _ExtremeStream):
        return jnp.where(keep, value, jnp.asarray(agg.neutral, dtype=value.dtype)), weight
    if isinstance(agg, MeanStream) or weight is not None:
        w = jnp.ones(value.shape, jnp.result_type(float)) if weight is None else \
            jnp.broadcast_to(weight, value.shape)
        return jnp.where(keep, value, 0), jnp.where(keep, w, 0)
    return jnp.where(keep, value, 0), None


def _aggregator_face(name):
    cls = getattr(_stream, name)

    def __init__(self, *args, argname="values", weight_arg="weight", dtype=None, **kwargs):
        FlaxAggregator.__init__(self, cls(*args, **kwargs).spec, argname=argname,
                                weight_arg=weight_arg, dtype=dtype)

    return _face_type(cls, FlaxAggregator, __init__,
                      "    ``update(values=..., weight=...)``; also takes the keywords\n"
                      "    ``argname``, ``weight_arg`` and ``dtype`` of :class:`FlaxAggregator`.\n")


def _spec_of(metric, what):
    if isinstance(metric, (FlaxMetric, _stream.Metric)):
        return metric.spec
    raise TypeError(f"{what} wraps a metric of {__name__} or of metrix.stream, got "
                    f"{type(metric).__name__}")


class Running(FlaxMetric):
    """``metrix.stream.Running`` as a ``flax.nnx.Metric``: ``metric`` over its last
    ``window`` updates (a ring of ``window`` states: fixed size, ``nnx.jit`` ready).

    ``update`` takes the wrapped metric's arguments: ``(y_true, y_pred,
    sample_weight)``, or ``(values, weight)`` for an aggregator, under the
    wrapped face's keyword names.

    Parameters
    ----------
    metric : FlaxMetric or metrix.stream.Metric
        The metric to run (a face of this module, or a stream metric).
    window : int, default=5
        How many of the latest updates the value covers.
    **names : str
        The keyword names of ``update`` (those of the wrapped face by
        default: ``y_true_arg``, ``y_pred_arg``, ``sample_weight_arg``, or,
        for an aggregator, ``argname`` and ``weight_arg``), and ``dtype``.
    """

    def __init__(self, metric, window=5, **names):
        spec = RunningStream(_spec_of(metric, "Running"), window)
        self.higher_is_better = metric.higher_is_better
        self._aggregator = _aggregation_of(spec) is not None
        if isinstance(metric, FlaxMetric):
            keys = ("argname", "weight_arg") if self._aggregator else (
                "y_true_arg", "y_pred_arg", "sample_weight_arg")
            names = {**dict(zip(keys, metric.argnames)), **names}
        init = FlaxAggregator.__init__ if self._aggregator else FlaxMetric.__init__
        init(self, spec, **names)

    def update(self, *args, mask=None, **kwargs) -> None:
        """Push one batch (the wrapped metric's arguments); the oldest leaves the window.

        Parameters
        ----------
        *args : array
            The wrapped metric's arguments, positionally.
        mask : array, default=None
            As the wrapped metric's ``mask``.
        **kwargs : array
            The wrapped metric's arguments by keyword.
        """
        up = FlaxAggregator.update if self._aggregator else FlaxMetric.update
        up(self, *args, mask=mask, **kwargs)


class ClasswiseWrapper(FlaxMetric):
    """``metrix.stream.ClasswiseWrapper`` as a ``flax.nnx.Metric``: ``compute()`` is
    ``{name: 0-d array}``, one per class (ready for a logger's dict).

    Parameters
    ----------
    metric : FlaxMetric or metrix.stream.Metric
        A metric of one value per class (``F1Score(C, average=None)``, ...).
    labels : list of str, default=None
        The class names (default: their indices).
    prefix, postfix : str, default=None
        The keys are ``prefix + label + postfix``; without either, the prefix
        is the metric's class name in lower case and ``_`` (``f1score_0``).
    **names : str
        ``y_true_arg``, ``y_pred_arg``, ``sample_weight_arg`` (the wrapped
        face's by default) and ``dtype``.
    """

    def __init__(self, metric, labels=None, prefix=None, postfix=None, **names):
        spec = _spec_of(metric, "ClasswiseWrapper")
        self.higher_is_better = metric.higher_is_better
        if not prefix and not postfix:
            prefix = type(metric).__name__.lower() + "_"
        # the stream wrapper checks the arguments (and gives TorchMetrics' key rule)
        self._classwise = _stream.ClasswiseWrapper(_stream.Metric(spec), labels, prefix,
                                                   postfix)
        if isinstance(metric, FlaxMetric):
            names = {**dict(zip(("y_true_arg", "y_pred_arg", "sample_weight_arg"),
                                metric.argnames)), **names}
        FlaxMetric.__init__(self, spec, **names)

    def compute(self):
        """``{name: value}`` of every class (0-d arrays)."""
        values = super().compute()
        return {key: values[i] for i, key in
                enumerate(self._classwise.keys(getattr(values, "shape", ())))}


#: the stream tracker: it tracks the faces of this module as it tracks stream metrics
MetricTracker = _stream.MetricTracker


class MetricCollection(FlaxMetric):
    """``metrix.stream.MetricCollection`` as a ``flax.nnx.Metric``.

    The metrics of the same statistic share one state (one confusion matrix
    for any number of label metrics over the same classes); ``compute()``
    returns ``{name: value}``.  The collection reads its arguments under its
    own names: the argument names of its members are not used.

    Parameters
    ----------
    metrics : dict
        ``{name: metric}``; a metric is a face of this module, a
        :mod:`metrix.stream` metric or a functional one.
    y_true_arg, y_pred_arg, sample_weight_arg : str
        The keyword names of :meth:`FlaxMetric.update`.
    dtype : jax dtype, default=None
        The result float dtype (see :class:`FlaxMetric`).
    """

    def __init__(self, metrics: dict, *, y_true_arg="y_true", y_pred_arg="y_pred",
                 sample_weight_arg="sample_weight", dtype=None):
        if not isinstance(metrics, dict):
            raise TypeError(f"MetricCollection takes a dict {{name: metric}}, got "
                            f"{type(metrics).__name__}")
        specs = {k: m.spec if isinstance(m, (FlaxMetric, _stream.Metric)) else m
                 for k, m in metrics.items()}
        FlaxMetric.__init__(self, _stream.CollectionStream(specs), y_true_arg=y_true_arg,
                            y_pred_arg=y_pred_arg, sample_weight_arg=sample_weight_arg,
                            dtype=dtype)

    def keys(self):
        """The names of the metrics, as ``compute()`` returns them."""
        return self.spec.metrics.keys()


for _name in STREAM_METRICS:
    globals()[_name] = _face(_name)
for _name in AGGREGATORS:
    globals()[_name] = _aggregator_face(_name)
__all__ += STREAM_METRICS + AGGREGATORS + WRAPPERS + [
    "FlaxAggregator", "MetricCollection", "MetricTracker"]
del _name
