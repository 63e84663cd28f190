"""Every :mod:`metrix.stream` metric as a ``keras.metrics.Metric``, under the same name.

    import keras
    import metrix.integrations.keras as mk

    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=[mk.F1Score(num_classes=10), mk.AUROC(num_classes=10)])
    model.fit(x, y, validation_data=(xv, yv))   # val_f1_score is F1 over the whole set

Keras 3 on the JAX and PyTorch backends (and NumPy, which only evaluates).
TensorFlow tensors have no array-API namespace, so the TensorFlow backend is
refused with an error that says so.

**State.**  One Keras variable per leaf of the functional state
(``spec._init``; ``meta_*`` leaves carry only a dtype and get none), created
with the leaf's own dtype: counts are int64 and sums float64 where the
backend has them.  JAX without ``jax_enable_x64`` has neither: counts are
int32 there (exact up to 2**31 - 1 per cell), and every float sum is held as
two float32 variables (``<name>`` and ``<name>.lo``, a compensated
"double-float" sum), so a sum of unit weights (the sample count of the
regression metrics and of ``LogLoss``) stays exact up to 2**48 instead of
stopping at 2**24 as a float32 counter does.

**Inputs** as Keras passes them, ``(y_true, y_pred)``:

* label metrics: ``y_true`` integer labels ``(N,)``, ``(N, 1)`` or one-hot
  ``(N, C)`` (arg-maxed); ``y_pred`` scores ``(N, C)`` (arg-maxed), binary
  scores ``(N,)`` / ``(N, 1)`` with ``num_classes=2`` (``> threshold`` is class
  1), or integer labels; with ``num_labels=L`` (and ``ExactMatch``) ``(N, L)``
  indicators against ``(N, L)`` indicators or scores (``> threshold`` is positive);
* ``AUROC`` / ``AveragePrecision`` / ``LogLoss`` take the scores; ``y_true``
  as labels or one-hot (a binary ``(N, 2)`` score matrix gives its column 1
  to the binary ranking metrics; multilabel ``y_true`` is the indicator);
* regression metrics take ``y_true`` and ``y_pred`` as they are.
* the retrieval metrics (``RetrievalMAP``, ...) take the query id of each row
  as the third argument of ``update_state`` (where ``sample_weight`` goes).

The aggregators (``MeanMetric``, ``SumMetric``, ``MaxMetric``, ``MinMetric``,
``CatMetric``) take ``update_state(values, sample_weight=None)`` with the
weighting of ``keras.metrics.Mean`` / ``Sum`` (:class:`KerasAggregator`);
``Running(metric, window)`` and ``ClasswiseWrapper(metric, ...)`` wrap a metric
of this module (``ClasswiseWrapper``'s ``result()`` is a dict, logged key by
key).  ``MetricTracker`` has no Keras face: ``History`` and the callbacks'
``monitor`` track epochs.

``result()`` is cast to the metric's ``dtype`` (Keras' ``floatx()``,
float32, unless ``dtype=`` is given); an integer result (a confusion matrix)
stays integer.

**No data.**  ``result()`` before any sample (since the last
``reset_state()``) is NaN, where :mod:`metrix.stream`'s ``compute()`` raises
``ValueError``: Keras itself calls ``result()`` then (``fit`` and
``evaluate`` read every metric at an epoch's end, also after an epoch whose
data ran out), and on the JAX backend the updates run inside a compiled step,
so the host cannot tell.  A 0-d ``seen`` variable (1 once a batch with rows
came; set from the static batch shape, no host read) selects NaN on the device
for every float result (not 0.0, which F1 and the other ``zero_division``
metrics would give an empty state); an integer confusion matrix stays zeros.
"""

from __future__ import annotations

import inspect
import re

try:
    import keras
except ModuleNotFoundError as exc:  # Keras imports its backend at import time
    if (exc.name or "").split(".")[0] != "tensorflow":
        raise
    raise ImportError(
        "keras could not import its backend: KERAS_BACKEND is unset or 'tensorflow', and "
        "TensorFlow is not installed. metrix.integrations.keras runs on the jax and torch "
        "backends: set KERAS_BACKEND=jax (or torch) before Python imports keras.") from exc

from .. import stream as _stream
from .._core import namespace as _ns
from .._core.edge import _TRACER_ERRORS
from ..registry import entries
from ..stream._aggregation import CatStream, MeanStream, SumStream, drop_nan, nan_check
from ..stream._aggregation import _Aggregation as _AggregationStream
from ..stream._functional import field_kind, iter_leaves, set_leaves
from ..stream._label import LabelStream
from ..stream._probabilistic import LogLossStream
from ..stream._ranking import RankingStream
from ..stream._running import RunningStream
from ._faces import AGGREGATORS, STREAM_METRICS, WRAPPERS

__all__ = ["KerasMetric", "SUPPORTED_BACKENDS"]

#: the Keras backends whose tensors metrix computes with (NumPy evaluates only)
SUPPORTED_BACKENDS = ("jax", "torch", "numpy")

_PACKAGE = "metrix"


def _check_backend():
    backend = keras.backend.backend()
    if backend not in SUPPORTED_BACKENDS:
        raise RuntimeError(
            f"metrix.integrations.keras does not run on the Keras backend {backend!r}: metrix "
            f"computes with array-API operations, which {backend} tensors do not provide. "
            "Supported backends: jax and torch (numpy for evaluation). Set KERAS_BACKEND=jax "
            "or KERAS_BACKEND=torch before importing keras.")


class KerasMetric(keras.metrics.Metric):
    """A ``keras.metrics.Metric`` around one :class:`metrix.stream.Metric`.

    Parameters
    ----------
    metric : metrix.stream.Metric
        The stream metric whose functional state the Keras variables hold.
    threshold : float, default=0.5
        Label metrics with ``num_classes=2``: a binary score ``(N,)`` or
        ``(N, 1)`` above ``threshold`` predicts class 1.
    name : str, default=None
        Keras' name of the metric (the key of its value in ``fit``'s logs);
        by default the stream metric's class name in snake case (``f1_score``).
    dtype : str, default=None
        The dtype of :meth:`result` (Keras' ``floatx()`` when None).
    """

    def __init__(self, metric, *, threshold=0.5, name=None, dtype=None):
        _check_backend()
        if not isinstance(metric, _stream.Metric):
            raise TypeError(f"KerasMetric wraps a metrix.stream metric, got "
                            f"{type(metric).__name__}")
        # a fixed default name, as Keras' own metrics (not auto_name's "f1_score_3")
        super().__init__(name=name or _snake(type(metric).__name__), dtype=dtype)
        self.metric = metric
        self.threshold = float(threshold)
        spec = metric.spec
        probe = keras.ops.zeros(())  # an array of the backend, on Keras' device
        xp, device = _ns.get_namespace_and_device(probe)
        # formulas in the widest float; result() casts to the metric's dtype
        state = spec._init(xp, device, _ns.max_float_dtype(xp, device))
        self._xp = xp
        self._int = _ns.count_dtype(xp, device)
        self._meta = {}      # path -> dtype of a zero-size leaf (made on the state's device)
        self._slots = []     # (path, variable, low-order variable or None)
        self._fills = {}     # path -> start value of a leaf not zero when empty (-inf, ...)
        for path, leaf in iter_leaves(state):
            kind = field_kind(path[-1])
            if kind == "meta":
                self._meta[path] = leaf.dtype
                continue
            if kind in ("max", "min") and _size(leaf) == 1:
                fill = float(_ns.to_host(xp.reshape(leaf, (-1,)))[0])  # at construction
                if fill != 0:
                    self._fills[path] = fill
            dtype_name = keras.backend.standardize_dtype(leaf.dtype)
            var = self._add(path, leaf, dtype_name, kind, self._fills.get(path, 0.0))
            low = None
            if kind == "sum" and dtype_name in ("float32", "float16", "bfloat16") and not \
                    isinstance(spec, RunningStream):  # (a ring moves its sums: no pair)
                # no float64 on this backend: a compensated (hi, lo) pair
                low = self._add(path + ("lo",), leaf, dtype_name, kind)
            self._slots.append((path, var, low))
        self._compensated = any(low is not None for _, _, low in self._slots)
        # 1 once a batch with rows came (static shapes: no host read); NaN results before
        self._seen = self.add_variable(shape=(), initializer="zeros",
                                       dtype=keras.backend.standardize_dtype(self._int),
                                       name="seen", aggregation="sum")
        self._groups = self._input_groups(spec)

    def _add(self, path, leaf, dtype_name, kind, fill=0.0):
        # a variable starts (and resets) at zero, the neutral of a sum and of the running
        # extremes of most metrics (MaxError's max of |errors| >= 0), or at the start
        # of the state's leaf (MaxMetric's maximum: -inf)
        init = "zeros" if fill == 0 else keras.initializers.Constant(fill)
        return self.add_variable(shape=tuple(leaf.shape), initializer=init,
                                 dtype=dtype_name, name=".".join(path),
                                 aggregation="sum" if kind == "sum" else "none")

    def reset_state(self):
        """Forget the data: every variable back to its start (zero, or -inf / +inf
        for the running extremes of the aggregators)."""
        starts = {id(var): self._fills.get(path, 0.0) for path, var, _ in self._slots}
        for v in self.variables:
            v.assign(keras.ops.full(v.shape, starts.get(id(v), 0.0), dtype=v.dtype))

    def _input_groups(self, spec):
        """``[(state key or None, spec, threshold)]``: the specs that read the inputs."""
        if isinstance(spec, _stream.CollectionStream):
            return [(sname, member, self.threshold)
                    for sname, member in spec._groups.values()]
        return [(None, spec, self.threshold)]

    # -- the state -------------------------------------------------------------------
    def _values(self, combine):
        """The functional state from the variables (current values, or the stateless
        scope's); ``combine``: compensated pairs as one sum (``hi + lo``)."""
        leaves = {}
        for path, var, low in self._slots:
            value = _plain_value(var.value)
            if combine and low is not None:
                value = value + _plain_value(low.value)
            leaves[path] = value
        if self._meta:
            # on the values' device: Keras' torch backend traces shapes on "meta"
            device = _ns.device_of(value)
            for path, dtype in self._meta.items():
                leaves[path] = self._xp.zeros((0,), dtype=dtype, device=device)
        return _nest(leaves)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate one batch into the variables (pure array ops: traces under jit).

        Parameters
        ----------
        y_true : array
            True labels or targets (see the module docstring for the shapes).
        y_pred : array
            Predicted labels, scores or targets.
        sample_weight : array, default=None
            Per-sample weights ``(N,)``; label and ranking metrics need ``weighted=True``.
        """
        y_true, y_pred = _tensor(y_true), keras.ops.stop_gradient(_tensor(y_pred))
        if sample_weight is not None:
            sample_weight = keras.ops.reshape(_tensor(sample_weight), (-1,))
            if sample_weight.shape[0] == 1:  # Keras' rule: one weight weighs every row
                sample_weight = keras.ops.broadcast_to(sample_weight, (_rows(y_true),))

        def update(state):
            new = dict(state)
            cache = {}
            for sname, spec, threshold in self._groups:
                sub = state if sname is None else state[sname]
                yt, yp = _prepare(spec, y_true, y_pred, threshold, self._xp, self._int, cache)
                out = spec.update(sub, yt, yp, sample_weight)
                if sname is None:
                    new = out
                else:
                    new[sname] = out
            return new

        self._write(update, _rows(y_pred))

    def _write(self, update, rows):
        """Assign ``update(state)`` to the variables (``rows``: the batch's static size)."""
        state = self._values(combine=False)
        if self._compensated:
            # the update of an empty sum is the batch's own sum: added with its rounding
            # error carried in the low-order variable
            zeros = {path: self._xp.zeros_like(_leaf(state, path))
                     for path, _, low in self._slots if low is not None}
            state = set_leaves(state, zeros)
        before = {id(_leaf(state, path)): path for path, _, _ in self._slots}
        try:
            new = update(state)
        except Exception as exc:
            if type(exc).__name__ in _TRACER_ERRORS:
                raise TypeError(_traced_hint(type(self).__name__)) from exc
            raise
        values = []
        for path, _, _ in self._slots:
            value = _leaf(new, path)
            if before.get(id(value), path) != path:
                # a leaf moved to another (a Running window's ring): a copy, taken before
                # any assignment (the torch backend assigns into the storage it came from)
                value = self._xp.asarray(value, copy=True)
            values.append(value)
        for (_, var, low), value in zip(self._slots, values):
            if low is None:
                var.assign(value)
            else:
                hi, lo = _two_sum(_plain_value(var.value), _plain_value(low.value), value)
                var.assign(hi)
                low.assign(lo)
        if rows != 0:  # a static shape (None while Keras traces symbolically)
            self._seen.assign(keras.ops.ones((), dtype=self._seen.dtype))

    def result(self):
        """The metric over every batch since the last reset (0-d, or per class);
        NaN (float results) before any sample: see the module docstring."""
        out = self.metric.spec.compute(self._values(combine=True))
        seen = _plain_value(self._seen.value) > 0
        if isinstance(out, dict):
            return {k: self._cast(v, seen) for k, v in out.items()}
        if isinstance(out, tuple):  # an operating point: (value, threshold)
            return tuple(self._cast(v, seen) for v in out)
        return self._cast(out, seen)

    def _cast(self, value, seen):
        if not _is_float(value):
            return value
        xp = self._xp  # not keras.ops.full_like: it reads the fill value on torch's "meta"
        value = xp.where(seen, value, xp.full_like(value, float("nan")))
        if "float" not in str(self.dtype):
            return value
        return keras.ops.cast(value, self.dtype)

    def get_config(self):
        """The constructor's arguments with Keras' ``name`` and ``dtype``."""
        args = getattr(self, "_config_args", None)
        if args is None:
            raise NotImplementedError(
                "A KerasMetric built around a stream metric object cannot rebuild it from a "
                "config: use the class of the same name (metrix.integrations.keras.F1Score, "
                "...), whose constructor arguments are its config.")
        config = {k: _jsonable(v) for k, v in args.items()}
        return {**config, **super().get_config()}


def _traced_hint(name):
    """The error of a metric that had to read the data on the host inside a trace."""
    return (f"{name} was traced (a compiled step: jax.jit, Keras' jit_compile) and "
            "had to read the data on the host: validate=True checks the labels' values. "
            "Inside a compiled step create the metric with validate=False (the default), or "
            "run the step eagerly (Keras: run_eagerly=True).")


def _snake(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _plain_value(value):
    # a torch Parameter as the plain tensor it holds (metrix converts types it does
    # not know); a stateless scope's values are plain already
    return value.data if type(value).__name__ == "Parameter" else value


def _rows(y):
    return y.shape[0] if len(y.shape) else 1


def _size(x):
    n = 1
    for d in x.shape:
        n = None if d is None or n is None else n * d
    return n


def _tensor(x):
    return x if keras.ops.is_tensor(x) else keras.ops.convert_to_tensor(x)


def _is_float(x) -> bool:
    return "float" in str(getattr(x, "dtype", ""))


def _leaf(state, path):
    for key in path:
        state = state[key]
    return state


def _nest(leaves):
    out = {}
    for path, value in leaves.items():
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return out


def _two_sum(hi, lo, delta):
    """``hi + lo + delta`` as a new ``(hi, lo)`` pair (Knuth's TwoSum, then Fast2Sum).

    Elementwise, no branch: about 48 significand bits from two float32 arrays.
    """
    s = hi + delta
    b = s - hi
    err = (hi - (s - b)) + (delta - b)
    lo = lo + err
    hi2 = s + lo
    return hi2, lo - (hi2 - s)


# -- inputs as Keras passes them -------------------------------------------------------

def _prepare(spec, y_true, y_pred, threshold, xp, int_dtype, cache):
    """``(y_true, y_pred)`` in the form ``spec.update`` reads."""
    if isinstance(spec, RunningStream):  # a window reads the inputs as its metric does
        spec = spec.spec
    if isinstance(spec, LabelStream):
        c = spec.num_classes
        key = ("label", c, threshold)
        if key not in cache:
            cache[key] = (_labels(y_true, c, "y_true", xp),
                          _predicted_labels(y_pred, c, threshold, xp, int_dtype))
        return cache[key]
    if isinstance(spec, RankingStream):
        if spec.task == "binary":
            yt, yp = y_true, y_pred
            if yp.ndim == 2 and yp.shape[1] == 2:
                yp = yp[:, 1]  # the scores of class 1
            if yt.ndim == 2 and yt.shape[1] == 2:
                yt = xp.argmax(yt, axis=1)  # one-hot
            return xp.reshape(yt, (-1,)), xp.reshape(yp, (-1,))
        if spec.task == "multiclass":
            return _labels(y_true, spec.rows, "y_true", xp), y_pred
        return y_true, y_pred
    if isinstance(spec, LogLossStream):
        return _labels(y_true, spec.num_classes or 2, "y_true", xp), y_pred
    return y_true, y_pred


def _labels(y, c, what, xp):
    """Labels ``(N,)`` from ``(N,)``, ``(N, 1)`` or one-hot ``(N, c)``."""
    if y.ndim == 2 and y.shape[1] > 1:
        if y.shape[1] != c:
            raise ValueError(f"{what} of shape {tuple(y.shape)} for {c} classes: expected "
                             f"labels (N,) or (N, 1), or one-hot (N, {c})")
        return xp.argmax(y, axis=1)
    if y.ndim != 1:
        y = xp.reshape(y, (-1,))
    return y


def _predicted_labels(y, c, threshold, xp, int_dtype):
    if y.ndim == 2 and y.shape[1] > 1:
        if y.shape[1] != c:
            raise ValueError(f"y_pred of shape {tuple(y.shape)} for num_classes={c}: expected "
                             f"scores (N, {c}), labels (N,) or binary scores (N,)")
        return xp.argmax(y, axis=1)
    if y.ndim != 1:
        y = xp.reshape(y, (-1,))
    if c == 2 and _is_float(y):
        return xp.astype(y > threshold, int_dtype)
    return y


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


# -- the named classes ---------------------------------------------------------------

_LABEL_NAMES = frozenset(e.stream for e in entries(family="label"))


def _bind(cls, args, kwargs):
    """The stream constructor's arguments by name (what ``get_config`` returns)."""
    sig = inspect.signature(cls.__init__)
    bound = sig.bind(None, *args, **kwargs)
    out = {}
    for key, value in list(bound.arguments.items())[1:]:
        if sig.parameters[key].kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        else:
            out[key] = value
    return out


def _face(name):
    cls = getattr(_stream, name)
    label = name in _LABEL_NAMES

    if label:
        def __init__(self, *args, threshold=0.5, name=None, dtype=None, **kwargs):
            config = _bind(cls, args, kwargs)
            # multilabel (num_labels=): the stream metric thresholds its own scores
            spec = cls(**config, threshold=threshold) if config.get("num_labels") is not None \
                else cls(**config)
            KerasMetric.__init__(self, spec, threshold=threshold, name=name, dtype=dtype)
            self._config_args = {**config, "threshold": threshold}
    else:
        def __init__(self, *args, name=None, dtype=None, **kwargs):
            config = _bind(cls, args, kwargs)
            KerasMetric.__init__(self, cls(**config), name=name, dtype=dtype)
            self._config_args = config

    extra = ", threshold=0.5" if label else ""
    doc = (f"``metrix.stream.{name}`` as a ``keras.metrics.Metric`` (same arguments, and "
           f"``name=None, dtype=None{extra}``).\n\n"
           f"    See :class:`metrix.stream.{name}` and :mod:`{__name__}`.\n")
    face = type(name, (KerasMetric,), {"__init__": __init__, "__module__": __name__,
                                       "__doc__": doc})
    return keras.saving.register_keras_serializable(package=_PACKAGE, name=name)(face)


# -- the aggregators and the wrappers --------------------------------------------------

def _aggregation_of(spec):
    """The aggregator a spec applies (itself, or the one a ``Running`` window runs)."""
    base = spec.spec if isinstance(spec, RunningStream) else spec
    return base if isinstance(base, _AggregationStream) else None


def _keras_weight(values, sample_weight, xp):
    """``sample_weight`` broadcast to the values' shape by Keras' rule (that of
    ``keras.metrics.Mean``): ranks that differ by one in a trailing axis of 1 are
    squeezed or expanded, then the weight aligns with the values' leading axes
    (``(N,)`` weighs each row of ``(N, d)`` values)."""
    w = _tensor(sample_weight)
    if len(w.shape) == len(values.shape) + 1 and w.shape[-1] == 1:
        w = xp.reshape(w, tuple(w.shape[:-1]))
    if len(w.shape) > len(values.shape):
        raise ValueError(f"sample_weight of shape {tuple(w.shape)} for values of shape "
                         f"{tuple(values.shape)}")
    w = xp.reshape(w, tuple(w.shape) + (1,) * (len(values.shape) - len(w.shape)))
    return keras.ops.broadcast_to(w, tuple(values.shape))


class KerasAggregator(KerasMetric):
    """A ``keras.metrics.Metric`` around one :class:`metrix.stream.Aggregator`
    (``MeanMetric``, ...): ``update_state(values, sample_weight=None)``, as
    ``keras.metrics.Mean`` / ``keras.metrics.Sum``.

    ``sample_weight`` follows Keras' broadcasting (``(N,)`` weighs each row of
    ``(N, d)`` values): ``MeanMetric`` is the weighted mean (Keras' ``Mean``),
    ``SumMetric`` the sum of the weighted values (Keras' ``Sum``);
    ``MaxMetric``, ``MinMetric`` and ``CatMetric`` take no weight.

    Parameters
    ----------
    metric : metrix.stream.Aggregator
        The stream aggregator whose functional state the Keras variables hold.
    name : str, default=None
        Keras' name of the metric (by default the class name in snake case).
    dtype : str, default=None
        The dtype of :meth:`result` (Keras' ``floatx()`` when None).
    """

    def __init__(self, metric, *, name=None, dtype=None, **kwargs):
        spec = getattr(metric, "spec", None)
        if _aggregation_of(spec) is None:
            raise TypeError(f"{type(self).__name__} wraps a metrix.stream aggregator, got "
                            f"{type(metric).__name__}")
        KerasMetric.__init__(self, metric, name=name, dtype=dtype, **kwargs)

    def update_state(self, values, sample_weight=None):
        """Add one batch of values (pure array ops, except ``nan_strategy`` "warn" /
        "error" and ``CatMetric``'s "ignore", which read the values on the host).

        Parameters
        ----------
        values : array or float
            Any shape (flattened).
        sample_weight : array, default=None
            Weights broadcast to the values by Keras' rule (``MeanMetric``,
            ``SumMetric``).
        """
        agg, xp = _aggregation_of(self.metric.spec), self._xp
        name = type(self).__name__
        values = _tensor(values)
        if agg.nan_strategy in ("warn", "error") or (
                isinstance(agg, CatStream) and agg.nan_strategy == "ignore"):
            try:
                nan_check(values, sample_weight, agg.nan_strategy, name)
                if isinstance(agg, CatStream):
                    values = drop_nan(values)
            except Exception as exc:
                if type(exc).__name__ in _TRACER_ERRORS:
                    raise TypeError(
                        f"{name} was traced (a compiled step) with nan_strategy="
                        f"{agg.nan_strategy!r}, which reads the values on the host: use "
                        "'ignore' (MeanMetric, ...) or a float, or run_eagerly=True") from exc
                raise
        weight = None
        if sample_weight is not None:
            weight = _keras_weight(values, sample_weight, xp)
            if isinstance(agg, SumStream):  # keras.metrics.Sum: the weighted values
                values, weight = values * keras.ops.cast(weight, values.dtype), None
        per_sample = _size(values[:1]) if len(values.shape) > 1 else 1  # (no division by N)
        if isinstance(agg, MeanStream) and per_sample not in (1, None):
            # keras.metrics.Mean weighs samples (rows), not values: each of a row's
            # values weighs 1 / (values per row), times the row's weight
            ones = keras.ops.ones(tuple(values.shape), dtype="float32")
            weight = (ones if weight is None else weight) / per_sample
        self._write(lambda state: self.metric.spec.update(state, values, weight),
                    _size(values) if len(values.shape) else 1)

    def result(self):
        """The aggregate since the last reset (0-d); NaN before any value.

        ``CatMetric``: the values (1-D, in update order); the length is read
        on the host, so call it outside a compiled step (not in ``fit``'s
        logs).
        """
        if isinstance(self.metric.spec, CatStream):
            state = self._values(combine=True)
            if int(_ns.to_host(state["dropped"])) > 0:  # host read: as the length's
                raise _stream.BufferFullError(
                    f"{type(self).__name__}: values past capacity={self.metric.spec.capacity} "
                    "were not kept; create it with a larger capacity")
            seen = _plain_value(self._seen.value) > 0
            return self._cast(self.metric.spec.compute(state), seen)
        return super().result()


def _aggregator_face(name):
    cls = getattr(_stream, name)

    def __init__(self, *args, name=None, dtype=None, **kwargs):
        config = _bind(cls, args, kwargs)
        KerasAggregator.__init__(self, cls(**config), name=name, dtype=dtype)
        self._config_args = config

    doc = (f"``metrix.stream.{name}`` as a ``keras.metrics.Metric`` (same arguments, and "
           f"``name=None, dtype=None``): ``update_state(values, sample_weight=None)``.\n\n"
           f"    See :class:`KerasAggregator`, :class:`metrix.stream.{name}` and "
           f":mod:`{__name__}`.\n")
    face = type(name, (KerasAggregator,), {"__init__": __init__, "__module__": __name__,
                                           "__doc__": doc})
    return keras.saving.register_keras_serializable(package=_PACKAGE, name=name)(face)


def _check_member(metric, what):
    if not isinstance(metric, KerasMetric) or isinstance(metric, MetricCollection):
        raise TypeError(f"{what} wraps a metric of {__name__}, got {type(metric).__name__}")


class Running(KerasMetric):
    """``metrix.stream.Running`` as a Keras metric: ``metric`` over its last
    ``window`` updates (batches), e.g. a smoothed training loss in ``fit``'s
    progress bar.

    ``update_state`` takes the wrapped metric's arguments (``(y_true, y_pred,
    sample_weight)``, or ``(values, sample_weight)`` for an aggregator).

    Parameters
    ----------
    metric : KerasMetric
        A metric of this module (its configuration, not its variables, is used).
    window : int, default=5
        How many of the latest updates the value covers.
    name : str, default=None
        Keras' name (default: ``running_`` and the wrapped metric's name).
    dtype : str, default=None
        The dtype of :meth:`result` (Keras' ``floatx()`` when None).
    """

    def __init__(self, metric, window=5, *, name=None, dtype=None):
        _check_member(metric, "Running")
        self._aggregator = _aggregation_of(metric.metric.spec) is not None
        KerasMetric.__init__(self, _stream.Running(metric.metric, window),
                             threshold=metric.threshold, name=name or f"running_{metric.name}",
                             dtype=dtype)
        self._config_args = {"metric": keras.saving.serialize_keras_object(metric),
                             "window": window}

    def update_state(self, *args, **kwargs):
        """Push one batch (the wrapped metric's arguments); the oldest leaves the window.

        Parameters
        ----------
        *args : array
            The wrapped metric's arguments.
        **kwargs : array
            The wrapped metric's arguments by keyword.
        """
        up = KerasAggregator.update_state if self._aggregator else KerasMetric.update_state
        up(self, *args, **kwargs)

    @classmethod
    def from_config(cls, config):
        """Rebuild the wrapper from :meth:`get_config`."""
        config = dict(config)
        return cls(keras.saving.deserialize_keras_object(config.pop("metric")), **config)


class ClasswiseWrapper(KerasMetric):
    """``metrix.stream.ClasswiseWrapper`` as a Keras metric: ``result()`` is a dict,
    one 0-d value per class, which ``fit`` and ``evaluate`` log under its own
    keys (``recall_cat``, ``val_recall_cat``, ...), as for :class:`MetricCollection`.

    Parameters
    ----------
    metric : KerasMetric
        A metric of one value per class (``Recall(C, average=None)``, ...).
    labels : list of str, default=None
        The class names (default: their indices).
    prefix, postfix : str, default=None
        The keys are ``prefix + label + postfix``; without either, the prefix is
        the metric's class name in lower case and ``_`` (``recall_0``).
    name : str, default=None
        Keras' name (default: ``classwise_`` and the wrapped metric's name).
    dtype : str, default=None
        The dtype of the results (Keras' ``floatx()`` when None).
    """

    def __init__(self, metric, labels=None, prefix=None, postfix=None, *, name=None,
                 dtype=None):
        _check_member(metric, "ClasswiseWrapper")
        self._aggregator = False
        KerasMetric.__init__(self, _stream.ClasswiseWrapper(metric.metric, labels, prefix,
                                                            postfix),
                             threshold=metric.threshold,
                             name=name or f"classwise_{metric.name}", dtype=dtype)
        self._config_args = {"metric": keras.saving.serialize_keras_object(metric),
                             "labels": labels, "prefix": prefix, "postfix": postfix}

    def result(self):
        """``{key: value}`` of every class (NaN before any sample)."""
        values = super().result()
        # the stream wrapper's key rule
        return {key: values[i] for i, key in enumerate(self.metric.keys(values.shape))}

    from_config = classmethod(Running.from_config.__func__)


class MetricCollection(KerasMetric):
    """``metrix.stream.MetricCollection`` as a Keras metric: ``result()`` is a dict.

    Metrics of the same statistic share one state (one update for all the
    label metrics of the same ``num_classes``).  In ``compile(metrics=[...])``
    Keras puts each entry of the dict in the logs under its own key (``mcc``,
    ``val_mcc``, ...).

    Parameters
    ----------
    metrics : dict
        ``{name: metric}``: metrics of this module (``F1Score(3)``, ...).
    name : str, default=None
        Keras' name of the metric.
    dtype : str, default=None
        The dtype of the results (Keras' ``floatx()`` when None).
    """

    def __init__(self, metrics, *, name=None, dtype=None):
        if not isinstance(metrics, dict) or not metrics:
            raise ValueError("MetricCollection needs a non-empty dict {name: metric}")
        members = {}
        for key, m in metrics.items():
            if not isinstance(m, KerasMetric) or isinstance(m, MetricCollection):
                raise TypeError(f"{key!r}: expected a metric of {__name__}, got "
                                f"{type(m).__name__}")
            members[key] = m
        self._member_thresholds = {key: m.threshold for key, m in members.items()}
        KerasMetric.__init__(self, _stream.MetricCollection(
            {key: m.metric for key, m in members.items()}), name=name, dtype=dtype)
        # configs only: member objects would be tracked (their variables are not ours)
        self._config_args = {"metrics": {
            key: keras.saving.serialize_keras_object(m) for key, m in members.items()}}

    def _input_groups(self, spec):
        # a statistic is read through its members' threshold (binary label metrics)
        found = {}
        for key, member in spec.metrics.items():
            found.setdefault(member.key, set()).add(self._member_thresholds[key])
        groups = []
        for sname, member in spec._groups.values():
            thresholds = found[member.key]
            if (len(thresholds) > 1 and isinstance(member, LabelStream)
                    and member.num_classes == 2):
                raise ValueError(
                    "MetricCollection: binary label metrics that share one confusion matrix "
                    f"need one threshold, got {sorted(thresholds)}; put them in separate "
                    "collections.")
            groups.append((sname, member, min(thresholds)))
        return groups

    @classmethod
    def from_config(cls, config):
        """Rebuild the collection from :meth:`get_config`."""
        config = dict(config)
        metrics = {key: keras.saving.deserialize_keras_object(m)
                   for key, m in config.pop("metrics").items()}
        return cls(metrics, **config)


for _name in STREAM_METRICS:
    globals()[_name] = _face(_name)
for _name in AGGREGATORS:
    globals()[_name] = _aggregator_face(_name)
__all__ += STREAM_METRICS + AGGREGATORS + WRAPPERS + ["KerasAggregator", "MetricCollection"]
for _name in WRAPPERS + ["MetricCollection"]:
    globals()[_name] = keras.saving.register_keras_serializable(
        package=_PACKAGE, name=_name)(globals()[_name])
del _name
