"""The user-facing edge of every public metric: what goes in, what comes out.

scikit-learn takes "array-likes" and returns Python numbers; metrix does the
same at its edge, so that ``from metrix import f1_score`` is a drop-in:

* **In.** pandas Series / DataFrames (nullable ``Int64`` / ``Float64`` /
  ``boolean`` columns become float with NaN where ``pd.NA`` is, as
  scikit-learn converts them, so the metric's own NaN check names the
  input), polars Series, ``scipy.sparse`` label-indicator matrices and any
  other object with ``__array__`` are converted once, on the host, to NumPy;
  then the NumPy path runs.  Found by duck typing (``__array__``,
  ``toarray``), never by importing pandas, polars or SciPy.
* **Mixed libraries.** As scikit-learn 1.9: ``y_true``, ``sample_weight``
  and ``labels`` of another library follow the namespace and device of the
  prediction (``y_pred``, ``y_score``, ``y_proba`` or ``pred_decision``),
  moved there through the host.  Two devices of one library stay an error.
* **Out.** A NumPy 0-d result becomes a Python ``float`` (``int``,
  ``bool``), also inside a returned tuple; NumPy vectors stay arrays.
  Results of other array libraries (torch, JAX, CuPy, array-api-strict) stay
  0-d arrays on the inputs' device: the one intended difference from
  scikit-learn, which returns ``float`` for them too.

The check per call is a type lookup per array argument (cached per type), so
the training-loop lane pays about a microsecond.  A metric with a host entry
(:func:`host_entry`, :mod:`metrix.backends.host_views`) answers its training-loop call on
host arrays before its edge, and hands every other call to it.
"""

from __future__ import annotations

import functools
import inspect

# The user edge names NumPy on purpose: array-likes (pandas, polars, sparse)
# become NumPy on the host, and NumPy results become Python numbers.  Every
# value read here is of a host object; device arrays pass through untouched.
import numpy as np

from .namespace import _namespace_of, asarray, device_of, to_host

__all__ = ["metric_edge", "host_entry", "array_metric", "as_host_array", "python_scalars"]

#: argument names that carry arrays (converted at the edge)
ARRAY_ARGUMENTS = frozenset({
    "y_true", "y_pred", "y_score", "y_proba", "y_prob", "pred_decision", "sample_weight",
    "labels", "y1", "y2", "x", "y", "query_ids", "thresholds", "ranked_labels",
    "labels_true", "labels_pred", "X", "Y", "X_norm_squared", "Y_norm_squared",
})
#: the prediction arguments whose library the others follow (first present wins)
_LEADERS = ("y_pred", "y_score", "y_proba", "y_prob", "pred_decision", "labels_pred", "X")

_NATIVE, _HOST, _ARRAY_LIKE, _SPARSE = 0, 1, 2, 3
_HOST_TYPES = (np.ndarray, np.generic, list, tuple, range, int, float, bool, str, bytes)
_KIND_BY_TYPE: dict = {type(None): _HOST}


def _kind(x) -> int:
    """How the edge treats an argument of this type (cached per type)."""
    kind = type(x)
    k = _KIND_BY_TYPE.get(kind)
    if k is None:
        k = _KIND_BY_TYPE[kind] = _classify(x)
    return k


def _classify(x) -> int:
    if isinstance(x, _HOST_TYPES):
        return _HOST
    if hasattr(x, "toarray") and hasattr(x, "nnz") and hasattr(x, "tocsr"):
        return _SPARSE  # scipy.sparse matrices and arrays
    module = type(x).__module__.split(".")[0]
    if module in ("pandas", "polars", "pyarrow", "xarray"):
        return _ARRAY_LIKE
    if hasattr(x, "__array_namespace__") or module in ("torch", "jax", "jaxlib", "cupy"):
        return _NATIVE
    if hasattr(x, "__array__") or hasattr(x, "__len__"):
        return _ARRAY_LIKE  # e.g. scikit-learn's MockDataFrame, array.array
    return _NATIVE  # unknown: the namespace lookup names it in its error


def as_host_array(x):
    """A pandas / polars / sparse / other array-like as a NumPy array (host).

    pandas nullable columns (``Int64``, ``Float64``, ``boolean``) become
    float64 with NaN for ``pd.NA`` when they hold one (scikit-learn's
    conversion, so the metric's NaN check raises its usual message), else
    their NumPy dtype; categoricals their categories' values.  Sparse
    matrices become dense, one byte a cell for a 0 / 1 label indicator (the
    metrics read every cell of it).
    """
    k = _kind(x)
    if k == _SPARSE:
        return _dense_indicator(x)
    if k != _ARRAY_LIKE:
        return x
    if type(x).__module__.startswith("pandas"):
        return _from_pandas(x)
    to_numpy = getattr(x, "to_numpy", None)
    if to_numpy is not None and type(x).__module__.startswith("polars"):
        return np.asarray(to_numpy())
    return np.asarray(x)


def _dense_indicator(x):
    """A sparse matrix as a dense NumPy array: int8 when its stored values are
    0 / 1 (a label indicator: one byte a cell, not eight), else its own dtype."""
    x = x.tocsr()  # DOK / LIL formats keep no flat ``data``
    data = np.asarray(x.data)  # host data of a SciPy matrix: no device read
    if data.dtype.kind in "biuf" and (data.size == 0 or bool(((data == 0) | (data == 1)).all())):
        return np.asarray(x.astype(np.int8).toarray())
    return np.asarray(x.toarray())


def _from_pandas(x):
    dtypes = getattr(x, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "__iter__") or isinstance(dtypes, str):
        dtypes = [x.dtype]
    nullable = [getattr(d, "numpy_dtype", None) for d in dtypes
                if getattr(d, "na_value", None) is not np.nan and hasattr(d, "numpy_dtype")]
    if nullable and len(nullable) == len(dtypes):
        has_na = bool(np.asarray(x.isna()).any())  # a pandas object: host memory
        if has_na:
            return x.to_numpy(dtype=np.float64, na_value=np.nan)
        if len(set(nullable)) == 1:
            return x.to_numpy(dtype=nullable[0])
        return x.to_numpy(dtype=np.result_type(*nullable))
    return np.asarray(x)


def python_scalars(result):
    """NumPy 0-d results as Python numbers (also inside a tuple); the rest as is."""
    kind = type(result)
    if kind is np.ndarray:  # a NumPy result: host memory, no device read
        return result.item() if result.ndim == 0 else result
    if isinstance(result, np.generic):  # NumPy results only: host values
        return result.item()
    if kind is tuple:
        return tuple(python_scalars(r) for r in result)
    return result


#: what JAX raises when a traced value is read on the host (``jax.errors``)
_TRACER_ERRORS = frozenset({"ConcretizationTypeError", "TracerBoolConversionError",
                            "TracerIntegerConversionError", "TracerArrayConversionError",
                            "NonConcreteBooleanIndexError"})


def _traced_hint(name):
    return (f"{name} was traced (jax.jit) and had to read the data on the host: to find "
            "the label set, or to check the values. Inside a compiled step declare the "
            f"classes and skip the value checks: {name}(..., labels=[0, 1, ...], "
            "validate=False); see the compiled-steps guide.")


def _no_numpy_dtype(name, args, kwargs):
    """A clear error for a NumPy array of a dtype NumPy does not define (an
    ``ml_dtypes`` extension such as bfloat16, kind "V"), or None."""
    for x in (*args, *kwargs.values()):
        dt = getattr(x, "dtype", None)
        # the user edge, on the error path only: a NumPy array's dtype (host metadata)
        if type(x) is np.ndarray and dt.kind == "V" and dt.names is None:
            return TypeError(
                f"{name} got a NumPy array of dtype {dt.name!r}, which NumPy does not "
                "define (an ml_dtypes extension): NumPy has no arithmetic for it. Pass "
                "it as x.astype(np.float32) (exact: float32 holds every bfloat16 value), "
                "or as a torch or JAX array, which compute in it.")
    return None


def metric_edge(func=None, *, keep_sparse=False):
    """Wrap a public metric: array-likes in, Python scalars out, mixed libraries
    following the prediction (see the module docstring).  ``keep_sparse``
    (``@metric_edge(keep_sparse=True)``): SciPy sparse arguments pass through
    unconverted, for a metric that computes on the sparse structure itself
    (the pairwise functions, :mod:`metrix.backends.sparse`)."""
    if func is None:
        return functools.partial(metric_edge, keep_sparse=keep_sparse)
    return _edge(func, keep_sparse)


def _edge(func, keep_sparse):
    """The wrapper of :func:`metric_edge`."""
    params = list(inspect.signature(func).parameters)
    slots = tuple((i, n) for i, n in enumerate(params) if n in ARRAY_ARGUMENTS)
    leaders = tuple(n for n in _LEADERS if n in params)

    @functools.wraps(func)
    def edge(*args, **kwargs):
        native = None
        slow = False
        n_args = len(args)
        for i, name in slots:
            if i < n_args:
                x = args[i]
            elif kwargs:
                x = kwargs.get(name)
            else:  # slots in parameter order: no later one was passed
                break
            if x is None:
                continue
            k = _KIND_BY_TYPE.get(type(x))
            if k is None:
                k = _kind(x)
            if k == _NATIVE:
                if native is None:
                    native = type(x)
                elif type(x) is not native:
                    slow = True
            elif k != _HOST:
                slow = True
        if slow:
            args, kwargs = _prepare(args, kwargs, slots, leaders, keep_sparse)
        try:
            out = func(*args, **kwargs)
        except TypeError as exc:  # JAX's tracer errors are TypeErrors
            if type(exc).__name__ in _TRACER_ERRORS:
                raise TypeError(_traced_hint(func.__name__)) from exc
            clear = _no_numpy_dtype(func.__name__, args, kwargs)
            if clear is not None:
                raise clear from exc
            raise
        return python_scalars(out)

    edge.__metrix_edge__ = True
    return edge


def host_entry(general):
    """Make the decorated function a public metric whose first step is its host
    entry (:mod:`metrix.backends.host_views`): it takes the training-loop call on host arrays
    itself and hands every other call to ``general``, the edge-wrapped metric
    of the same signature.  Written out, not wrapped: the call to a host
    entry costs no argument packing (a third of its time on a small batch).
    ``general`` (and the function behind its edge) takes the public name:
    the bootstrap finds a metric's batched path by the name of the function
    :func:`array_metric` gives it."""
    def mark(func):
        if _parameters(func) != _parameters(general):
            raise TypeError(f"{func.__name__} and its general path differ in signature")
        for f in (general, getattr(general, "__wrapped__", None)):
            if f is not None:
                f.__name__, f.__qualname__ = func.__name__, func.__qualname__
        func.__metrix_edge__ = True
        func.__metrix_general__ = general
        return func

    return mark


def array_metric(metric):
    """The function behind a public metric's edge (arrays in, arrays out: no
    Python number made of a NumPy result), past any host entry."""
    metric = getattr(metric, "__metrix_general__", metric)
    return metric.__wrapped__ if getattr(metric, "__metrix_edge__", False) else metric


def _parameters(func):
    """Names, kinds and defaults of ``func``'s parameters (not annotations)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


def _prepare(args, kwargs, slots, leaders, keep_sparse=False):
    """Convert array-likes to NumPy (``keep_sparse``: not SciPy sparse ones); move
    other libraries' arrays to the leader's."""
    args = list(args)
    values = {}
    for i, name in slots:
        if i < len(args):
            values[name] = (i, args[i])
        elif kwargs.get(name) is not None:
            values[name] = (None, kwargs[name])
    for name, (i, x) in list(values.items()):
        if x is not None and (_kind(x) == _ARRAY_LIKE or (_kind(x) == _SPARSE
                                                          and not keep_sparse)):
            values[name] = (i, as_host_array(x))
    leader = next((values[n][1] for n in leaders
                   if n in values and values[n][1] is not None
                   and _kind(values[n][1]) == _NATIVE), None)
    if leader is not None:
        xp = _namespace_of(leader)
        device = device_of(leader)
        for name, (i, x) in list(values.items()):
            if x is None or _kind(x) != _NATIVE or x is leader:
                continue
            try:
                same = _namespace_of(x) is xp
            except TypeError:
                continue  # not an array: the metric's own checks name it
            if not same:  # another library; two devices of one library stay an error
                values[name] = (i, asarray(to_host(x), xp=xp, device=device))
    for name, (i, x) in values.items():
        if i is None:
            kwargs[name] = x
        else:
            args[i] = x
    return tuple(args), kwargs
