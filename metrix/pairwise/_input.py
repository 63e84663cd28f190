"""Input checks of the pairwise functions: scikit-learn's ``check_pairwise_arrays``,
``check_paired_arrays`` and parameter validation, with its messages.

Host inputs (lists, NumPy) follow the namespace and device of a device input;
the float dtype is scikit-learn's: float32 when both inputs are float32 (a
device input: when the float inputs are), else the widest float of the device.

SciPy sparse input is found here, once (duck typing, :func:`any_sparse`): the
sparse operands become CSR (as scikit-learn's ``accept_sparse="csr"``), a
dense partner a NumPy array, and the checked :class:`Pair` says ``sparse``;
the functions then call the sparse operations of
:mod:`metrix.backends.sparse` (scikit-learn computes sparse input on the
host too).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

from .._core import namespace as _ns
from .._core.docstrings import sections
from .._core.validation import assert_all_finite, dtype_kind, reject_complex
from ..backends import ops
from ..backends import sparse as _sparse

__all__ = ["Pair", "InvalidParameterError", "any_sparse", "reject_sparse",
           "sparse_not_array_like", "check_pairwise_arrays", "check_paired_arrays",
           "check_interval", "check_metric_choice", "check_finite_option", "pair_doc"]

#: the parameters ``X, Y`` and the results of the pairwise functions, written once: a
#: docstring line ``%(pair)s`` (``Y=None`` uses ``X``), ``%(paired)s`` (as many rows),
#: ``%(two)s``, ``%(distances)s``, ``%(kernel)s`` or ``%(paired_distances)s``
pair_doc = sections(
    pair="""\
        X : array of shape (n_samples_X, n_features)
            Rows of samples.
        Y : array of shape (n_samples_Y, n_features), default=None
            Rows of samples; ``None`` uses ``X``.""",
    paired="""\
        X : array of shape (n_samples, n_features)
            Rows of samples.
        Y : array of shape (n_samples, n_features)
            Rows of samples, as many as ``X``.""",
    two="""\
        X : array of shape (n_samples_X, n_features)
            Rows of samples.
        Y : array of shape (n_samples_Y, n_features)
            Rows of samples.""",
    distances="""\
        distances : array of shape (n_samples_X, n_samples_Y)
            In the inputs' namespace and on their device.""",
    kernel="""\
        kernel : array of shape (n_samples_X, n_samples_Y)
            In the inputs' namespace and on their device.""",
    paired_distances="""\
        distances : array of shape (n_samples,)
            In the inputs' namespace and on their device.""")


class Pair(NamedTuple):
    """Checked inputs: ``X`` and ``Y`` (``Y is X`` when ``same``) of one float dtype."""

    X: Any
    Y: Any
    same: bool
    xp: Any
    device: Any
    sparse: bool = False  # a SciPy sparse operand: the sparse operations apply


class InvalidParameterError(ValueError, TypeError):
    """scikit-learn's error for a parameter of the wrong type (a ``ValueError``
    and a ``TypeError``, as ``sklearn.utils._param_validation``'s)."""


def any_sparse(*arrays) -> bool:
    """Whether one of ``arrays`` is a SciPy sparse matrix or array."""
    return any(a is not None and _sparse.is_sparse(a) for a in arrays)


#: scikit-learn's ``check_array(accept_sparse=False)`` message
SPARSE_MESSAGE = ("Sparse data was passed, but dense data is required. Use '.toarray()' "
                  "to convert to a dense numpy array.")


def reject_sparse(*arrays):
    """scikit-learn's ``TypeError`` for sparse input where it needs dense data."""
    if any_sparse(*arrays):
        raise TypeError(SPARSE_MESSAGE)


def sparse_not_array_like(func, **arrays):
    """scikit-learn's parameter-validation error for a sparse argument of a
    function that takes array-likes only (``chi2_kernel``, ``paired_distances``)."""
    for name, a in arrays.items():
        if a is not None and _sparse.is_sparse(a):
            # Y of the kernels may be None: scikit-learn's constraint names it
            what = "an array-like or None" if name == "Y" and func != "paired_distances" \
                else "an array-like"
            raise InvalidParameterError(f"The {name!r} parameter of {func} must be "
                                        f"{what}. Got {a!r} instead.")


def _reshape_message(a, what):
    return (f"Expected 2D array, got {what} array instead:\narray={a}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample.")


def _shown(A, xp, numeric):
    """The array scikit-learn's reshape error shows: converted to the float it
    checks for (integers and bools: the widest float) where it converts."""
    if not numeric or dtype_kind(A, xp) == "f":
        return A
    return xp.astype(A, _ns.max_float_dtype(xp, _ns.device_of(A)))


def _check_array(A, *, xp, device, ensure_all_finite, ensure_2d=True, numeric=True,
                 as_bool=False):
    A = _ns.asarray(A, xp=xp, device=device)
    reject_complex(A, xp=xp)
    if numeric and dtype_kind(A, xp) == "O":  # dtype=None: strings pass (callable metrics)
        raise ValueError(
            "dtype='numeric' is not compatible with arrays of bytes/strings.Convert your "
            "data to numeric values explicitly instead.")
    if as_bool and dtype_kind(A, xp) != "b":  # scikit-learn's dtype=bool (NaN is true)
        A = A != 0
    if ensure_2d:
        if A.ndim < 2:
            raise ValueError(_reshape_message(_shown(A, xp, numeric),
                                              "scalar" if A.ndim == 0 else "1D"))
        _check_2d(A.shape)
    if ensure_all_finite:  # host read: scikit-learn's check
        assert_all_finite(A, xp=xp, allow_nan=ensure_all_finite == "allow-nan")
    return A


def _check_2d(shape):
    """scikit-learn's errors for an operand that is not 2-D with a sample and a feature."""
    if len(shape) != 2:
        raise ValueError(f"Found array with dim {len(shape)}, while dim <= 2 is required "
                         "by check_pairwise_arrays.")
    shape = tuple(int(s) for s in shape)
    for size, what in zip(shape, ("sample", "feature")):
        if size < 1:
            raise ValueError(f"Found array with 0 {what}(s) (shape={shape}) while a "
                             "minimum of 1 is required by check_pairwise_arrays.")


def float_dtype(X, Y, *, xp, device):
    """scikit-learn's float dtype of a pair: float32 where the inputs are (NumPy:
    both float32; other libraries: every float input float32 and one at least),
    else the widest float of the device."""
    wide = _ns.max_float_dtype(xp, device)
    arrays = (X,) if Y is None or Y is X else (X, Y)
    if ops(xp).float64_results:  # scikit-learn's NumPy rule (``_return_float_dtype``)
        return xp.float32 if all(a.dtype == xp.float32 for a in arrays) else wide
    floats = [a.dtype for a in arrays if dtype_kind(a, xp) == "f"]
    if floats and all(dt != xp.float64 for dt in floats):
        return xp.float32
    return wide


def check_pairwise_arrays(X, Y, *, precomputed=False, ensure_all_finite=True, dtype="float",
                          ensure_2d=True) -> Pair:
    """``X`` and ``Y`` as 2-D arrays of one namespace, device and float dtype
    (``dtype=None``: their own dtypes; ``"bool"``: bool, ``x != 0``, as
    scikit-learn's ``dtype=bool``); ``Y=None`` (or ``Y is X``) gives
    ``Y is X``.  Raises scikit-learn's errors for the number of features
    (``precomputed``: for the shape of the distance matrix)."""
    same = Y is None or Y is X
    if any_sparse(X, Y):
        return _check_sparse_pair(X, Y, same, precomputed=precomputed, dtype=dtype,
                                  ensure_all_finite=ensure_all_finite)
    xp, device = _ns.get_namespace_and_device(X, None if same else Y)
    checks = dict(xp=xp, device=device, ensure_all_finite=ensure_all_finite,
                  ensure_2d=ensure_2d, numeric=dtype == "float", as_bool=dtype == "bool")
    X = _check_array(X, **checks)
    Y = X if same else _check_array(Y, **checks)
    if dtype == "float":
        dt = float_dtype(X, Y, xp=xp, device=device)
        X = xp.astype(X, dt, copy=False)
        Y = X if same else xp.astype(Y, dt, copy=False)
    _check_features(X, Y, precomputed=precomputed, ensure_2d=ensure_2d)
    return Pair(X, Y, same, xp, device)


def _check_features(X, Y, *, precomputed, ensure_2d=True):
    if precomputed:
        if X.shape[1] != Y.shape[0]:
            raise ValueError(
                "Precomputed metric requires shape (n_queries, n_indexed). Got "
                f"({X.shape[0]}, {X.shape[1]}) for {Y.shape[0]} indexed.")
    elif ensure_2d and X.shape[1] != Y.shape[1]:
        raise ValueError("Incompatible dimension for X and Y matrices: "
                         f"X.shape[1] == {X.shape[1]} while Y.shape[1] == {Y.shape[1]}")


def _check_sparse(A, *, ensure_all_finite):
    """A sparse operand as CSR, checked as scikit-learn's ``check_array`` checks one."""
    _check_2d(A.shape)
    A = _sparse.as_csr(A)
    if ensure_all_finite:
        _sparse.check_finite(A, allow_nan=ensure_all_finite == "allow-nan")
    return A


def _check_sparse_pair(X, Y, same, *, precomputed, dtype, ensure_all_finite):
    """:func:`check_pairwise_arrays` with a sparse operand: sparse ones as CSR, a
    dense one as a NumPy array (a device array is copied to the host: the
    sparse path computes there, as scikit-learn does), scikit-learn's float
    dtype (float32 when both are float32, else float64)."""
    xp, device = _sparse.host_namespace()

    def one(A):
        if _sparse.is_sparse(A):
            return _check_sparse(A, ensure_all_finite=ensure_all_finite)
        return _check_array(_ns.to_host(A), xp=xp, device=device,
                            ensure_all_finite=ensure_all_finite)

    X = one(X)
    Y = X if same else one(Y)
    if dtype == "float":
        dt = float_dtype(X, Y, xp=xp, device=device)
        X = _sparse.as_csr(X, dt) if _sparse.is_sparse(X) else xp.astype(X, dt, copy=False)
        if same:
            Y = X
        else:
            Y = _sparse.as_csr(Y, dt) if _sparse.is_sparse(Y) else xp.astype(Y, dt, copy=False)
    _check_features(X, Y, precomputed=precomputed)
    return Pair(X, Y, same, xp, device, True)


def check_paired_arrays(X, Y) -> Pair:
    """scikit-learn's paired check: ``check_pairwise_arrays`` and equal shapes."""
    pair = check_pairwise_arrays(X, Y)
    if pair.X.shape != pair.Y.shape:
        raise ValueError("X and Y should be of same shape. They were respectively "
                         f"{tuple(pair.X.shape)!r} and {tuple(pair.Y.shape)!r} long.")
    return pair


def _fmt(v):
    return "inf" if v is None else f"{float(v)!r}"


def check_interval(value, name, func, *, low=None, high=None, closed="left", none=False,
                   extra=""):
    """scikit-learn's ``Interval(Real, low, high, closed)`` parameter check (``none``:
    None is valid too)."""
    if value is None and none:
        return
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        v = float(value)
        ok = ((low is None or v > low or (v == low and closed in ("left", "both")))
              and (high is None or v < high or (v == high and closed in ("right", "both"))))
    if not ok:
        lo = "-inf" if low is None else _fmt(low)
        left = "[" if closed in ("left", "both") and low is not None else "("
        right = "]" if closed in ("right", "both") and high is not None else ")"
        tail = " or None" if none else ""
        raise ValueError(f"The {name!r} parameter of {func} must be a float in the range "
                         f"{left}{lo}, {_fmt(high)}{right}{tail}{extra}. Got {value!r} instead.")


def check_metric_choice(metric, options, func):
    """scikit-learn's ``StrOptions(options) or callable`` check of ``metric``."""
    if callable(metric) and not isinstance(metric, str):
        return
    if not isinstance(metric, str) or metric not in options:
        listed = "{" + ", ".join(repr(m) for m in sorted(options)) + "}"
        raise ValueError(f"The 'metric' parameter of {func} must be a str among {listed} "
                         f"or a callable. Got {metric!r} instead.")


def check_finite_option(value, func):
    """scikit-learn's check of ``ensure_all_finite`` (a bool or ``"allow-nan"``)."""
    if not (isinstance(value, bool) or value == "allow-nan"):
        raise ValueError(f"The 'ensure_all_finite' parameter of {func} must be an instance "
                         "of 'bool' or a str among {'allow-nan'}. "
                         f"Got {value!r} instead.")
