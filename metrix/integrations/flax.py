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

**Counts.**  Counts are integer arrays: int32 unless ``jax_enable_x64`` is
on, so exact up to 2**31 - 1 samples (per class and per confusion cell);
sums of weights and of errors are float32 without x64, float64 with it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from .. import stream as _stream
from .._core.edge import _TRACER_ERRORS
from ..backends import ops as _ops
from ..stream._checkpoint import check_mergeable
from ..stream._functional import field_kind, iter_leaves, warm
from ._faces import STREAM_METRICS

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

    def __init__(self, spec, *, y_true_arg="y_true", y_pred_arg="y_pred",
                 sample_weight_arg="sample_weight", dtype=None):
        if isinstance(spec, _stream.Metric):
            spec = spec.spec
        if not isinstance(spec, _stream.StreamMetric):
            raise TypeError(f"{type(self).__name__} wraps a metrix.stream metric, got "
                            f"{type(spec).__name__}")
        names = (y_true_arg, y_pred_arg, sample_weight_arg)
        if not all(isinstance(n, str) for n in names) or len(set(names)) != 3:
            raise ValueError(f"y_true_arg, y_pred_arg and sample_weight_arg must be three "
                             f"different str, got {names!r}")
        self.spec = spec
        self.argnames = names
        probe = jnp.zeros((0,))
        device = next(iter(probe.devices()))
        fdt = jnp.dtype(dtype) if dtype is not None else jnp.result_type(float)
        _ops(jnp)  # fill the adapter cache eagerly, not inside a traced step
        state = warm(spec._init(jnp, device, fdt))
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
        """Forget the data (every leaf of an empty state is zero); dtypes stay."""
        jax.tree.map(lambda v: _assign(v, jnp.zeros_like(v[...])), self.state_vars,
                     is_leaf=_is_var)
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
    def _arguments(self, args, kwargs):
        name = type(self).__name__
        if len(args) > 3:
            raise TypeError(f"{name}.update takes at most 3 positional arguments "
                            f"(y_true, y_pred, sample_weight), got {len(args)}")
        values = list(args) + [None] * (3 - len(args))
        for i, key in enumerate(self.argnames):
            if key in kwargs:
                if i < len(args):
                    raise TypeError(f"{name}.update got {key!r} both positionally and "
                                    "as a keyword")
                values[i] = kwargs[key]
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

    return type(name, (FlaxMetric,), {
        "__init__": __init__, "__module__": __name__, "__qualname__": name,
        "__doc__": f"``metrix.stream.{name}`` as a ``flax.nnx.Metric`` (same arguments).\n\n"
                   "    Also takes the keywords ``y_true_arg``, ``y_pred_arg``,\n"
                   "    ``sample_weight_arg`` and ``dtype`` of :class:`FlaxMetric`.\n"
                   f"    See :class:`metrix.stream.{name}` and :mod:`{__name__}`."})


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
__all__ += STREAM_METRICS + ["MetricCollection"]
del _name
