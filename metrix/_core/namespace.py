"""Which array namespace and device the inputs live on, and the dtype policy.

This is the only module (besides ``metrix.backends``) that imports
array-api-compat or tests for a particular array library.

Rules (see DESIGN.md):

* NumPy arrays and Python lists/scalars are "host" inputs. If every input is a
  host input the namespace is (array-api-compat's) NumPy.
* Otherwise every non-host input must share one namespace and one device; host
  inputs are moved there, as scikit-learn's ``move_to`` does.
* Results are 0-d arrays in that namespace, on that device (for NumPy, a NumPy
  scalar here; the public edge, :mod:`.edge`, turns it into a Python float,
  as scikit-learn returns).
* Counts are int64 (int32 where the device has no 64-bit integers, e.g. JAX
  without ``jax_enable_x64``); float sums use the widest float of the device.
"""

from __future__ import annotations

import sys

import array_api_compat
import numpy as np

__all__ = [
    "get_namespace_and_device",
    "asarray",
    "backend_name",
    "max_float_dtype",
    "count_dtype",
    "result_float_dtype",
    "to_output",
    "is_host_array",
    "is_numpy_namespace",
    "is_placed",
    "device_of",
    "lane_namespace",
    "has_kind",
]

_NP_XP = array_api_compat.array_namespace(np.empty(0))


def is_host_array(x) -> bool:
    """NumPy arrays, NumPy scalars, Python sequences and scalars."""
    return isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, bool, str))


def is_numpy_namespace(xp) -> bool:
    return backend_name(xp) == "numpy"


def is_placed(x, xp, device) -> bool:
    """Whether ``x`` is already an array of ``xp``'s library on ``device`` (a
    host array or a NumPy one is not: it is moved through ``asarray``)."""
    if is_host_array(x):
        return False
    x_xp, x_dev = get_namespace_and_device(x)
    return backend_name(x_xp) == backend_name(xp) and str(x_dev) == str(device)


_BACKEND_NAMES: dict = {}
_XP_BY_TYPE: dict = {}

#: namespace module names -> backend (plain string tests: array-api-compat's
#: ``is_*_namespace`` are ``lru_cache``-wrapped, which torch.compile warns about)
_NAMESPACE_BACKENDS = {
    "numpy": "numpy", "array_api_compat.numpy": "numpy",
    "torch": "torch", "array_api_compat.torch": "torch",
    "jax.numpy": "jax", "jax.experimental.array_api": "jax",
    "cupy": "cupy", "array_api_compat.cupy": "cupy",
    "array_api_strict": "array_api_strict",
}


def _backend_name_of(xp) -> str:
    return _NAMESPACE_BACKENDS.get(getattr(xp, "__name__", None), "generic")


def backend_name(xp) -> str:
    """One of "numpy", "torch", "jax", "cupy", "array_api_strict", "generic"."""
    name = _BACKEND_NAMES.get(id(xp))
    if name is None:
        name = _BACKEND_NAMES[id(xp)] = _backend_name_of(xp)
    return name


def dtypes_are_fixed(xp) -> bool:
    """Whether ``xp``'s dtypes (the widest float and integer of a device) are fixed
    for the process, so a cache may keep them; JAX's follow its x64 flag."""
    return backend_name(xp) != "jax"


def device_of(x):
    """The device of an array; ``None`` for host inputs and jitted JAX tracers."""
    if x is None or is_host_array(x):
        return None
    if type(x).__module__.startswith("torch"):
        return x.device  # no array-api-compat helper: traceable by torch.compile
    try:
        return array_api_compat.device(x)
    except Exception:  # tracers of some libraries have no device
        return None


def _lib_label(xp) -> str:
    return getattr(xp, "__name__", repr(xp))


def _namespace_of(x):
    """array-api-compat's namespace of ``x``, cached per array type (torch
    tensors found without array-api-compat's ``lru_cache``-wrapped helpers,
    which torch.compile warns about when it traces them, and given the
    namespace of :mod:`metrix.backends.torch_namespace`, whose functions never
    call them)."""
    kind = type(x)
    xp = _XP_BY_TYPE.get(kind)
    if xp is None:
        if kind.__module__.startswith("torch") and hasattr(x, "device"):
            from ..backends.torch_namespace import lean_torch_namespace

            xp = lean_torch_namespace()
        else:
            xp = array_api_compat.array_namespace(x)
        _XP_BY_TYPE[kind] = xp
    return xp


def namespace_for(xp):
    """The namespace metrix computes in for a library a caller names
    (``init(xp=numpy)``): the one its arrays get from :func:`get_namespace_and_device`
    (array-api-compat's wrapper: NumPy 1.x's own ``zeros`` takes no ``device``)."""
    return _namespace_of(xp.empty(0))


def get_namespace_and_device(*arrays):
    """Return ``(xp, device)`` for the inputs.

    ``None`` entries are skipped.  Host inputs (NumPy, lists, scalars) follow
    the one non-host namespace; two different non-host namespaces raise
    ``TypeError`` and two devices raise ``ValueError``, naming both.
    """
    xp = None
    device = None
    first = None
    for x in arrays:
        if x is None or is_host_array(x):
            continue
        try:
            x_xp = _namespace_of(x)
        except TypeError as exc:
            raise TypeError(
                f"Unsupported input of type {type(x).__name__!r}: expected a NumPy, "
                "CuPy, PyTorch, JAX or array-api-strict array, or a Python list."
            ) from exc
        if backend_name(x_xp) == "numpy":
            continue
        x_dev = device_of(x)
        if xp is None:
            xp, device, first = x_xp, x_dev, x
            continue
        if x_xp is not xp:
            raise TypeError(
                "Inputs come from different array libraries: "
                f"{_lib_label(xp)} ({type(first).__name__}) and "
                f"{_lib_label(x_xp)} ({type(x).__name__}). Pass arrays of one library."
            )
        if device is None:
            device = x_dev
        elif x_dev is not None and str(x_dev) != str(device):
            raise ValueError(
                f"Inputs are on different devices: {device} and {x_dev}. "
                "Move them to one device first."
            )
    if xp is None:
        return _NP_XP, None
    return xp, device


_HOST_TYPES = (list, tuple, int, float, bool, str, np.generic)


def lane_namespace(first, *others):
    """The namespace of arrays of one type (all NumPy, or all one library's
    arrays on one device), found by type and cached; None for anything else
    (lists, mixed libraries or devices, sharded JAX arrays): the general path
    then sorts them out.  The training-loop lane's cheap dispatch (no
    ``array_namespace`` walk per call)."""
    kind = type(first)
    for x in others:
        if x is not None and type(x) is not kind:
            return None
    xp = _XP_BY_TYPE.get(kind)
    if xp is None:
        if issubclass(kind, _HOST_TYPES):
            return None
        try:
            xp = _namespace_of(first)
        except TypeError:
            return None
    if others and kind is not np.ndarray:
        try:
            device = first.device
            if any(x is not None and x.device != device for x in others):
                return None
        except Exception:  # no single device (sharded JAX arrays)
            return None
    return xp


_KINDS: dict = {}


def has_kind(xp, dtype, kind) -> bool:
    """``xp.isdtype(dtype, kind)``, cached per (namespace, dtype, kind) (the
    compat wrappers cost more than a small metric op)."""
    key = (id(xp), dtype, kind)
    hit = _KINDS.get(key)
    if hit is None:
        hit = _KINDS[key] = bool(xp.isdtype(dtype, kind))
    return hit


def asarray(x, *, xp, device=None, dtype=None):
    """``x`` as an array of ``xp`` on ``device`` (host inputs are moved there)."""
    if x is None:
        return None
    if is_numpy_namespace(xp):
        return np.asarray(x, dtype=dtype)
    if isinstance(x, (list, tuple)) and dtype is not None:
        # pure Python path (traceable): the caller fixed the dtype
        return xp.asarray(x, dtype=dtype, device=device) if device is not None else \
            xp.asarray(x, dtype=dtype)
    if is_host_array(x):
        x = np.asarray(x)
        if x.dtype.kind in "OUS":
            raise TypeError(
                "String or object labels are only supported with NumPy inputs; "
                f"encode them as integers to use {_lib_label(xp)}."
            )
        if dtype is None and backend_name(xp) in ("jax", "array_api_strict", "torch"):
            dtype = _host_dtype_on(x, xp=xp, device=device)
    if device is None:
        return xp.asarray(x, dtype=dtype)
    return xp.asarray(x, dtype=dtype, device=device)


def _host_dtype_on(x, *, xp, device):
    """The dtype a host array keeps on a device that may lack 64-bit types."""
    kind = {"f": "real floating", "i": "signed integer", "u": "unsigned integer",
            "b": "bool"}.get(x.dtype.kind)
    if kind is None:
        return None
    name = x.dtype.name
    available = _dtypes(xp, device, kind)
    if name in available:
        return available[name]
    if kind == "real floating":
        return max_float_dtype(xp, device)
    if kind == "signed integer":
        return count_dtype(xp, device)
    return None


def _dtypes(xp, device, kind):
    try:
        info = xp.__array_namespace_info__()
        return info.dtypes(device=device, kind=kind)
    except Exception:
        return {}


_WIDEST: dict = {}


def _widest(xp, device, kind, wide, narrow):
    """``wide`` where the device has it, else ``narrow``; cached per (namespace,
    device) (the namespace-info query costs more than most metric ops)."""
    key = (id(xp), device, kind)
    if backend_name(xp) == "jax":  # JAX's 64-bit types follow a runtime flag
        key += (bool(sys.modules["jax"].config.jax_enable_x64),)
    try:
        dt = _WIDEST.get(key)
    except TypeError:  # an unhashable device object
        key = (id(xp), str(device)) + key[2:]
        dt = _WIDEST.get(key)
    if dt is None:
        have = _dtypes(xp, device, kind)
        dt = getattr(xp, wide) if not have or wide in have else getattr(xp, narrow)
        if len(_WIDEST) < 1024:
            _WIDEST[key] = dt
    return dt


def max_float_dtype(xp, device=None):
    """float64 where the device has it, else float32 (MPS, JAX without x64)."""
    return _widest(xp, device, "real floating", "float64", "float32")


def count_dtype(xp, device=None):
    """int64 where the device has it, else int32 (JAX without x64)."""
    return _widest(xp, device, "signed integer", "int64", "int32")


def library_dtype(dtype, xp, device=None):
    """A ``dtype`` argument (a NumPy dtype, a Python type or the library's own) as a
    dtype of ``xp``; the default int64 / float64 narrowed where the device lacks
    them (JAX without x64, no-float64 devices).  None stays None."""
    if dtype is None:
        return None
    if is_numpy_namespace(xp):
        return np.dtype(dtype)
    try:
        name = np.dtype(dtype).name
    except TypeError:
        return dtype  # the library's own dtype
    if name == "int64":
        return count_dtype(xp, device)
    if name == "float64":
        return max_float_dtype(xp, device)
    return getattr(xp, name)


def result_float_dtype(xp, device, *arrays):
    """The float dtype of a result: the widest float input, else the widest float."""
    best = None
    for a in arrays:
        dt = getattr(a, "dtype", None)
        if dt is None:
            continue
        if has_kind(xp, dt, "real floating"):
            if best is None or (dt == xp.float64 and best != xp.float64):
                best = dt
    if best is None:
        return max_float_dtype(xp, device)
    if best != xp.float64 and best != xp.float32:  # float16 / bfloat16
        return xp.float32
    return best


def to_output(x, xp):
    """The user-facing form of a result: NumPy 0-d arrays become NumPy scalars."""
    if isinstance(x, np.ndarray) and x.ndim == 0 and is_numpy_namespace(xp):
        return x[()]
    return x


def host_unique(y):
    """Sorted distinct values of a NumPy (string / object) array, on the host."""
    return np.unique(np.asarray(y))


def to_host(x):
    """Copy an array to the host as NumPy (a device sync: edge use only)."""
    if x is None or isinstance(x, np.ndarray):
        return x
    if is_host_array(x):
        return np.asarray(x)
    if array_api_compat.is_torch_array(x):
        return x.detach().cpu().numpy()
    if array_api_compat.is_cupy_array(x):
        return x.get()
    if array_api_compat.is_jax_array(x):
        return np.asarray(x)
    try:
        return np.from_dlpack(x)
    except Exception:
        return np.asarray(x)


def host_list(labels) -> list:
    """Declared labels as a Python list (pure Python: traceable by torch.compile)."""
    if isinstance(labels, (list, tuple, range)):
        return [v.item() if isinstance(v, np.generic) else v for v in labels]
    if isinstance(labels, (np.ndarray, np.generic)):
        return np.asarray(labels).tolist()
    return to_host(labels).tolist()


def host_arange_equal(labels: list) -> bool:
    """Whether host ``labels`` are exactly the integers 0..len-1 (no device read)."""
    return all(isinstance(v, (int, bool)) and v == i for i, v in enumerate(labels))


def host_sorted_positions(labels: list):
    """``(sorted_labels, order)`` of host labels (stable), for device searchsorted."""
    order = sorted(range(len(labels)), key=lambda i: labels[i])
    return [labels[i] for i in order], order


def host_encode(values, labels):
    """Codes of host (string / object) ``values`` in ``labels``; len(labels) if absent."""
    values = np.asarray(values)
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    n = labels.shape[0]
    if n == 0:
        return np.zeros(values.shape, dtype=np.int64)
    pos = np.searchsorted(sorted_labels, values)
    pos_c = np.minimum(pos, n - 1)
    hit = sorted_labels[pos_c] == values
    return np.where(hit, order[pos_c], n).astype(np.int64)


def host_string_labels(y, *, with_bytes=False) -> bool:
    """Whether ``y`` is a host array or (nested) list of strings / objects (also of
    bytes with ``with_bytes``): labels encoded on the host, never moved to a device."""
    if not is_host_array(y):
        return False
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind is None:  # a list: its first (innermost) element says
        try:
            first = y[0] if len(y) else None
            while isinstance(first, (list, tuple)) and first:
                first = first[0]
        except TypeError:
            return False
        return isinstance(first, (str, bytes) if with_bytes else str)
    return kind in "OUS"


def host_values(x):
    """Host array of label values with the dtype the user gave (list -> array)."""
    return np.asarray(to_host(x))


def host_concat(*arrays):
    """Concatenate host arrays (object dtype if their dtypes differ)."""
    arrays = [np.asarray(a) for a in arrays]
    if len({a.dtype.kind for a in arrays}) > 1:
        arrays = [a.astype(object) for a in arrays]
    return np.concatenate(arrays)
