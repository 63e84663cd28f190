"""scikit-learn 1.9's ``pairwise_distances``, ``pairwise_kernels``,
``pairwise_distances_chunked`` and ``pairwise_distances_argmin(_min)``.

* The metric strings metrix computes run on the inputs' namespace and device:
  ``"euclidean"`` / ``"l2"``, ``"cosine"``, ``"manhattan"`` / ``"cityblock"``
  / ``"l1"``, ``"haversine"``, ``"nan_euclidean"`` (scikit-learn's own
  functions) and ``"sqeuclidean"``, ``"chebyshev"``, ``"minkowski"`` (``p``,
  ``w``), ``"seuclidean"`` (``V``), ``"mahalanobis"`` (``VI``),
  ``"hamming"`` / ``"matching"``, ``"canberra"``, ``"braycurtis"``,
  ``"correlation"`` and the boolean metrics ``"dice"``, ``"jaccard"``,
  ``"rogerstanimoto"``, ``"russellrao"``, ``"sokalsneath"``, ``"yule"`` of
  SciPy's (one definition each, shared with
  :class:`~metrix.pairwise.DistanceMetric`; the boolean ones from products
  of the ``x != 0`` indicators, scikit-learn's ``DataConversionWarning`` for
  data not of bool dtype); every kernel string.  NumPy input of these is
  computed by metrix too (SciPy's values; the boolean metrics bit for bit).
  SciPy's weights ``w`` of the boolean metrics and of ``"correlation"``:
  weighted counts (products of the weighted indicators) and weighted
  means on device input, within a few ulps of SciPy's, NaN for ``0 / 0`` as
  its ``cdist``; on NumPy input SciPy's own.  The checks of ``w`` are
  SciPy's, read on the host once per call that passes ``w``.
* Callables, and keyword arguments metrix does not take, on NumPy (host)
  input are handed to scikit-learn itself,
  as is a boolean metric's host data that is not an array (scikit-learn reads
  its ``dtype``); on device input callables are called once per pair of
  rows, as scikit-learn calls them.
* ``pairwise_distances_argmin(_min)`` computes on every backend:

  - the metrics above that ``ArgKmin`` does not (the boolean ones,
    ``"correlation"``, ``"hamming"``, ``"mahalanobis"`` with ``VI``) as
    scikit-learn's fallback does: the first minimum of each row of the chunked
    matrix (NumPy's ``argmin``: a row's first NaN);
  - ``ArgKmin``'s metrics of ``DistanceMetric`` (``"seuclidean"`` with ``V``,
    ``"canberra"``, ``"braycurtis"`` (0 for ``0 / 0``), ``"haversine"``,
    ``"matching"`` / ``"kulsinski"`` / ``"sokalmichener"`` of the ``x != 0``
    indicators, ``"minkowski"`` / ``"p"`` with weights ``w``) with its
    parameters and errors, ranked as ``ArgKmin``'s scan ranks them
    (:func:`~metrix.pairwise._blocks.heap_argmin_min`: first on ties, a NaN
    kept until the next value); float32 rows: float32 values returned in
    float64, as ``ArgKmin32``.  NumPy rows that are not C-ordered are
    scikit-learn's (it reads them from SciPy's metrics instead);
  - ``"infinity"`` / ``"p"`` as ``"chebyshev"`` / ``"minkowski"``.

  Callables, keyword arguments metrix does not take and sparse input of
  SciPy's metrics are scikit-learn's on NumPy input and raise
  ``NotImplementedError`` on device input.
* ``pairwise_distances_argmin_min`` never forms the distance matrix: it reads
  it one row block at a time (:class:`~metrix.pairwise._blocks.Distances`,
  the silhouette's machinery), ranking the rows of ``Y`` for the euclidean
  metrics by scikit-learn's ``ArgKmin`` surrogate ``||y||^2 - 2 x.y``.
* SciPy sparse input: the metrics of scikit-learn's own functions
  (``SPARSE_METRICS``) and every kernel but the chi-squared ones are computed
  on the sparse structure (:mod:`metrix.backends.sparse`); the rest is
  scikit-learn's (SciPy's metrics raise its ``TypeError`` on sparse input;
  ``pairwise_distances_argmin_min`` computes them with ``ArgKmin``).
"""

from __future__ import annotations

import importlib
import math
import numbers
import os
import warnings

from .._core.edge import metric_edge
from .._core.namespace import get_namespace_and_device, is_host_array, max_float_dtype
from .._core.stacklevel import find_stack_level
from .._core.validation import dtype_kind
from ..backends import sparse as sparse_ops
from ..exceptions import DataConversionWarning, as_sklearn_too
from ._blocks import (
    FORMULA_METRICS,
    SCIPY_BOOLEAN_METRICS,
    Distances,
    heap_argmin_min,
    nan_first_argmin_min,
    row_slices,
)
from ._input import (
    any_sparse,
    check_finite_option,
    check_interval,
    check_metric_choice,
    check_pairwise_arrays,
    float_dtype,
    pair_doc,
    reject_sparse,
)
from .distance_metric import METRIC_MAPPING, DistanceMetric, host_params, metric_params
from .distances import (
    cosine_distances,
    cosine_distances_pair,
    cosine_similarity,
    euclidean_distances,
    euclidean_pair,
    full_matrix,
    manhattan_distances,
    manhattan_dtype,
    manhattan_pair,
)
from .kernels import (
    additive_chi2_kernel,
    chi2_kernel,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from .special import haversine_distances, nan_euclidean_argmin_min, nan_euclidean_distances

__all__ = ["pairwise_distances", "pairwise_kernels", "pairwise_distances_chunked",
           "pairwise_distances_argmin_min", "pairwise_distances_argmin",
           "PAIRWISE_DISTANCE_FUNCTIONS", "PAIRWISE_KERNEL_FUNCTIONS", "KERNEL_PARAMS",
           "distance_metrics", "kernel_metrics", "DEVICE_METRICS"]

#: scikit-learn 1.9's metric strings of ``pairwise_distances`` (``_VALID_METRICS``)
VALID_METRICS = frozenset({
    "euclidean", "l2", "l1", "manhattan", "cityblock", "braycurtis", "canberra",
    "chebyshev", "correlation", "cosine", "dice", "hamming", "jaccard", "mahalanobis",
    "matching", "minkowski", "rogerstanimoto", "russellrao", "seuclidean", "sokalsneath",
    "sqeuclidean", "yule", "wminkowski", "nan_euclidean", "haversine",
})
#: ``ArgKmin``'s extra metric strings (``pairwise_distances_argmin_min``)
_ARGKMIN_METRICS = frozenset({"infinity", "kulsinski", "p", "sokalmichener"})
#: ``ArgKmin``'s metrics that ``pairwise_distances_argmin(_min)`` computes with
#: ``DistanceMetric``'s definitions (its parameters, errors and ``x != 0``
#: boolean ``"matching"``; ``"infinity"`` / ``"p"``: chebyshev / minkowski)
_ARGKMIN_FORMULA_METRICS = frozenset({"seuclidean", "canberra", "braycurtis", "haversine",
                                      "matching", "kulsinski", "sokalmichener"})
_ARGKMIN_ALIASES = {"infinity": "chebyshev", "p": "minkowski"}
#: ``ArgKmin``'s metrics that take ``p``: with other keyword arguments (``w``),
#: ``DistanceMetric``'s (its weighted minkowski, its ``TypeError``)
_ARGKMIN_KWDS_METRICS = frozenset({"minkowski", "p"})
#: the metric strings metrix computes on the inputs' device
_ARGMIN_DEVICE_METRICS = frozenset({"euclidean", "l2", "cosine", "manhattan", "cityblock", "l1",
                                    "sqeuclidean", "chebyshev", "minkowski"})
#: SciPy's boolean metrics (scikit-learn's ``PAIRWISE_BOOLEAN_FUNCTIONS``): the data
#: converted to bool (``x != 0``), with scikit-learn's ``DataConversionWarning``
BOOLEAN_FUNCTIONS = SCIPY_BOOLEAN_METRICS
#: SciPy's metrics that ``pairwise_distances_argmin(_min)`` reads from
#: ``pairwise_distances_chunked`` (not ``ArgKmin``'s): SciPy's values
_CHUNKED_ARGMIN_METRICS = BOOLEAN_FUNCTIONS | {"correlation", "hamming", "mahalanobis"}
DEVICE_METRICS = (_ARGMIN_DEVICE_METRICS | FORMULA_METRICS - {"haversine"} | BOOLEAN_FUNCTIONS
                  | {"correlation", "matching"})
_SCIPY_COMPUTED = (frozenset({"sqeuclidean", "chebyshev", "minkowski", "correlation", "matching"})
                   | DEVICE_METRICS & FORMULA_METRICS | BOOLEAN_FUNCTIONS)
#: the keyword arguments of the SciPy metrics metrix computes
_SCIPY_KWDS = {"minkowski": frozenset({"p", "w"}), "seuclidean": frozenset({"V"}),
               "sqeuclidean": frozenset({"w"}), "chebyshev": frozenset({"w"}),
               "hamming": frozenset({"w"}), "matching": frozenset({"w"}),
               "canberra": frozenset({"w"}), "braycurtis": frozenset({"w"}),
               "mahalanobis": frozenset({"VI"}),
               **dict.fromkeys(BOOLEAN_FUNCTIONS | {"correlation"}, frozenset({"w"}))}
#: SciPy's metrics whose weights ``w`` metrix computes on device input only: on
#: NumPy input SciPy's own (its sums in its order, bit for bit)
_HOST_WEIGHTS_SCIPY = BOOLEAN_FUNCTIONS | {"correlation"}
_MANHATTAN = frozenset({"manhattan", "cityblock", "l1"})
#: the metrics metrix computes on sparse input (scikit-learn's own functions);
#: SciPy's metrics, callables, ``"haversine"`` and ``"nan_euclidean"`` with sparse
#: input are scikit-learn's (it computes them, or raises its ``TypeError``)
SPARSE_METRICS = frozenset({"euclidean", "l2", "cosine"}) | _MANHATTAN

PAIRWISE_DISTANCE_FUNCTIONS = {
    "cityblock": manhattan_distances,
    "cosine": cosine_distances,
    "euclidean": euclidean_distances,
    "haversine": haversine_distances,
    "l2": euclidean_distances,
    "l1": manhattan_distances,
    "manhattan": manhattan_distances,
    "precomputed": None,
    "nan_euclidean": nan_euclidean_distances,
}
#: scikit-learn's metrics that take NaN (``_NAN_METRICS``)
NAN_METRICS = ["nan_euclidean"]
PAIRWISE_KERNEL_FUNCTIONS = {
    "additive_chi2": additive_chi2_kernel,
    "chi2": chi2_kernel,
    "linear": linear_kernel,
    "polynomial": polynomial_kernel,
    "poly": polynomial_kernel,
    "rbf": rbf_kernel,
    "laplacian": laplacian_kernel,
    "sigmoid": sigmoid_kernel,
    "cosine": cosine_similarity,
}
KERNEL_PARAMS = {
    "additive_chi2": (),
    "chi2": frozenset(["gamma"]),
    "cosine": (),
    "linear": (),
    "poly": frozenset(["gamma", "degree", "coef0"]),
    "polynomial": frozenset(["gamma", "degree", "coef0"]),
    "rbf": frozenset(["gamma"]),
    "laplacian": frozenset(["gamma"]),
    "sigmoid": frozenset(["gamma", "coef0"]),
}
#: memory budget of one block of ``pairwise_distances_argmin_min``, bytes
ARGMIN_BLOCK_BYTES = 32 * 2**20
#: scikit-learn's default ``working_memory`` (``sklearn.get_config()``), MiB
WORKING_MEMORY_MIB = 1024


def distance_metrics():
    """The metric strings of :func:`pairwise_distances` with a function of their
    own, mapped to it (scikit-learn's ``distance_metrics``).

    Returns
    -------
    distance_metrics : dict
        Metric string -> function (``"precomputed"`` -> None).
    """
    return dict(PAIRWISE_DISTANCE_FUNCTIONS)


def kernel_metrics():
    """The kernel strings of :func:`pairwise_kernels`, mapped to their functions.

    Returns
    -------
    kernel_metrics : dict
        Kernel string -> function.
    """
    return dict(PAIRWISE_KERNEL_FUNCTIONS)


def _on_host(*arrays) -> bool:
    return all(a is None or is_host_array(a) for a in arrays)


def _sklearn(name):
    """scikit-learn's own function (host NumPy inputs of what metrix does not compute)."""
    return getattr(importlib.import_module("sklearn.metrics.pairwise"), name)


def _not_on_device(metric, func, computed=None):
    computed = DEVICE_METRICS if computed is None else computed
    return NotImplementedError(
        f"{func}: metric={metric!r} is computed by scikit-learn (SciPy) on NumPy input "
        f"only; metrix computes {sorted(computed)} on the inputs' device. Pass "
        "NumPy arrays, or compute the distances yourself and pass metric='precomputed'.")


def _bool_dtype(A) -> bool:
    """Whether ``A`` is an array of bool dtype (scikit-learn reads ``A.dtype``)."""
    if getattr(A, "dtype", None) is None:
        return False
    xp, _ = get_namespace_and_device(A)
    return dtype_kind(A, xp) == "b"


def _numeric_array(A) -> bool:
    """Whether ``A`` is an array of bool, integer or float dtype."""
    if getattr(A, "dtype", None) is None:
        return False
    xp, _ = get_namespace_and_device(A)
    return dtype_kind(A, xp) in ("b", "i", "u", "f")


def _warn_boolean(metric, X, Y, *, times=1):
    """scikit-learn's warning for a SciPy boolean metric of data not of bool dtype
    (once per call of its ``pairwise_distances``)."""
    if metric not in BOOLEAN_FUNCTIONS or all(_bool_dtype(A) for A in (X, Y) if A is not None):
        return
    for _ in range(times):
        warnings.warn(f"Data was converted to boolean for metric {metric}",
                      as_sklearn_too(DataConversionWarning), stacklevel=find_stack_level())


def _check_scipy_pair(X, Y, metric, ensure_all_finite):
    """The pair of a SciPy metric checked as scikit-learn checks it: a boolean
    metric's data as bool (``x != 0``; no NaN left to find), the others' float."""
    if metric in BOOLEAN_FUNCTIONS:
        return check_pairwise_arrays(X, Y, dtype="bool", ensure_all_finite=False)
    return check_pairwise_arrays(X, Y, ensure_all_finite=ensure_all_finite)


def _single_job(n_jobs) -> bool:
    """Whether joblib's ``effective_n_jobs(n_jobs)`` is 1: scikit-learn then
    calls SciPy's ``pdist`` where ``Y`` is ``X`` (a zero diagonal), else
    ``cdist`` (a row's distance to itself as computed: NaN for an all-zero
    row of ``"dice"``)."""
    if n_jobs is None or n_jobs == 1 or not isinstance(n_jobs, numbers.Integral):
        return True
    if n_jobs < 0:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count() or 1
        return max(cpus + 1 + n_jobs, 1) == 1
    return False


#: the metrics whose distance of a row to itself, as computed, may be other than
#: zero (NaN for an all-zero row of "dice", 1 for one of "russellrao", NaN for a
#: constant row of "correlation"): SciPy's ``cdist`` keeps it
_SELF_AS_COMPUTED = frozenset(BOOLEAN_FUNCTIONS) | {"correlation"}


def _zero_diagonal(metric, n_jobs) -> bool:
    """Whether ``X`` against itself has scikit-learn's zero diagonal: ``pdist``'s
    (one job), or a metric whose distance of a row to itself is exactly zero in
    ``cdist`` too (several jobs; the matrix products' rounding is not kept)."""
    return _single_job(n_jobs) or metric not in _SELF_AS_COMPUTED


def _device_distances(pair, metric, kwds, *, budget=None):
    """A :class:`Distances` of the metrix-computed ``metric`` for a checked pair,
    in scikit-learn's dtype (SciPy's metrics and NumPy's manhattan: float64;
    the boolean metrics: the ``x != 0`` indicators in that float)."""
    xp = pair.xp
    X, Y = pair.X, None if pair.same else pair.Y
    if pair.sparse:  # euclidean, sqeuclidean (``squared``), cosine, manhattan
        return sparse_ops.SparseDistances(
            X, "manhattan" if metric in _MANHATTAN else metric, Y=Y)
    if metric == "matching":  # SciPy's name of hamming
        metric = "hamming"
    p = kwds.get("p", 2)
    if metric == "minkowski" and not p > 0:
        raise ValueError("p must be greater than 0")
    params = None
    if metric in _SCIPY_COMPUTED or metric in _MANHATTAN:
        dt = (max_float_dtype(xp, pair.device) if metric in _SCIPY_COMPUTED
              else manhattan_dtype(xp, pair.device, X.dtype))
        X = xp.astype(X, dt, copy=False)  # the boolean metrics' bool data: 0 / 1
        Y = None if Y is None else xp.astype(Y, dt, copy=False)
        params = _scipy_params(X, pair, metric, kwds)
        if metric == "sqeuclidean" and "w" in params:  # sum w (x - y)^2 of rows * sqrt(w)
            root = xp.sqrt(params.pop("w"))
            X = X * root
            Y = None if Y is None else Y * root
    upcast = metric in ("euclidean", "l2")
    return Distances(X, "manhattan" if metric in _MANHATTAN else metric, xp=xp, Y=Y, p=p,
                     upcast=upcast, centre=not upcast, params=params)


def _scipy_params(X, pair, metric, kwds):
    """The parameter arrays of a SciPy metric in ``X``'s dtype: ``V`` / ``VI`` of
    the keyword arguments, or of the data where ``Y`` is ``X`` (scikit-learn's
    ``_precompute_metric_params``: the variances, the inverse covariance)."""
    xp = pair.xp
    params = {k: v for k, v in kwds.items() if k in ("V", "VI", "w")}
    if params.get("w", 0) is None:  # SciPy's w=None: no weights
        del params["w"]
    for name, key, needs in (("seuclidean", "V", "V"), ("mahalanobis", "VI", "VI")):
        if metric == name and key not in params and not pair.same:
            raise ValueError(f"The {needs!r} parameter is required for the {name} metric "
                             "when Y is passed.")
    if metric == "seuclidean" and "V" not in params:  # in the data's float (NumPy's var)
        params["V"] = xp.var(pair.X, axis=0, correction=1)
    if metric == "mahalanobis" and "VI" not in params:
        centred = X - xp.mean(X, axis=0, keepdims=True)
        cov = xp.permute_dims(centred, (1, 0)) @ centred / (int(X.shape[0]) - 1)
        params["VI"] = xp.permute_dims(xp.linalg.inv(cov), (1, 0))
    if metric == "braycurtis":
        params["braycurtis_scipy"] = True
    params = metric_params(params, xp=xp, device=pair.device, dtype=X.dtype)
    if "w" in params:
        _check_weights(params["w"], int(X.shape[1]), xp, metric)
    return params


def _check_weights(w, n_features, xp, metric=None):
    """SciPy's checks of the weights ``w`` of ``cdist`` (a parameter, read on the host
    once per call); ``"correlation"``'s are its one-pair function's (its weights
    checked as a vector, then NumPy's ``dot`` of a row and ``w``)."""
    n_w = int(w.shape[0]) if w.ndim else 0
    if w.ndim != 1:  # SciPy's words
        raise ValueError("Input vector should be 1-D." if metric == "correlation"
                         else "Weights must be a vector (ndim = 1)")
    if n_w != n_features and metric != "correlation":
        raise ValueError(f"Weights must have same size as input vector. {n_w} "
                         f"vs. {n_features}.")
    if bool(xp.any(w < 0)):  # host read of a parameter: SciPy's check
        raise ValueError("Input weights should be all non-negative")
    if n_w != n_features:
        raise ValueError(f"shapes ({n_features},) and ({n_w},) not aligned: {n_features} "
                         f"(dim 0) != {n_w} (dim 0)")


def _no_kwds(kwds, func, allowed=frozenset()):
    for key in kwds:
        if key not in allowed:
            raise TypeError(f"{func}() got an unexpected keyword argument {key!r}")


def _metric_kwds(metric, kwds, func):
    """Check the keyword arguments of a metrix-computed SciPy metric."""
    allowed = _SCIPY_KWDS.get(metric, frozenset())
    for key in kwds:
        if key == "w" and key not in allowed:  # SciPy's weights of its other metrics
            raise NotImplementedError(
                f"{func}: weights w of metric={metric!r} are computed by scikit-learn "
                "(SciPy) on NumPy input only; metrix takes w for "
                f"{sorted(m for m, keys in _SCIPY_KWDS.items() if 'w' in keys)}.")
        if key not in allowed:
            raise TypeError(f"{func}: cdist() got an unexpected keyword argument {key!r}")


def _callable_matrix(X, Y, metric, kwds, *, ensure_all_finite):
    """A user metric of two rows, called once per pair (device inputs)."""
    pair = check_pairwise_arrays(X, Y, dtype=None, ensure_all_finite=ensure_all_finite,
                                 ensure_2d=False)
    xp = pair.xp
    # scikit-learn's float of the pair: float32 for float32 inputs, else the widest
    wide = float_dtype(pair.X, None if pair.same else pair.Y, xp=xp, device=pair.device)
    rows = []
    for i in range(int(pair.X.shape[0])):
        row = [xp.asarray(metric(pair.X[i, ...], pair.Y[j, ...], **kwds), dtype=wide,
                          device=pair.device) for j in range(int(pair.Y.shape[0]))]
        rows.append(xp.stack(row))
    return xp.stack(rows)


@metric_edge(keep_sparse=True)
def pairwise_distances(X, Y=None, metric="euclidean", *, n_jobs=None, ensure_all_finite=True,
                       **kwds):
    """Distance matrix of the rows of ``X`` and ``Y`` for a metric string or callable.

    Every metric string but ``"wminkowski"`` runs on the inputs' namespace and
    device (see the module notes); callables and keyword arguments metrix does
    not take are handed to scikit-learn for NumPy input.  SciPy's boolean
    metrics (``"jaccard"``, ``"dice"``, ...) convert the data to bool as
    scikit-learn does, with its ``DataConversionWarning``.

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features) or (n_samples_X, n_samples_X)
        Rows of samples, or a distance matrix with ``metric="precomputed"``.
    Y : array of shape (n_samples_Y, n_features), default=None
        Rows of samples; ``None`` uses ``X``.
    metric : str or callable, default="euclidean"
        scikit-learn's metric strings, ``"precomputed"`` or a function of two
        rows returning a number.
    n_jobs : int, default=None
        Accepted for scikit-learn's signature (metrix does not fork jobs).
    ensure_all_finite : bool or "allow-nan", default=True
        Whether NaN / infinity in the inputs raise (scikit-learn's option).
    **kwds : dict
        Keyword arguments of the metric (``p`` of ``"minkowski"``, ``squared``
        of ``"euclidean"``, SciPy's weights ``w``, ...).  The checks of ``w``
        (its shape; no negative weight) read it on the host once per call
        that passes it, never on the unweighted path.

    Returns
    -------
    D : array of shape (n_samples_X, n_samples_Y)
        In the inputs' namespace and on their device.

    Examples
    --------
    >>> from metrix.pairwise import pairwise_distances
    >>> pairwise_distances([[0, 0], [3, 4]], metric="manhattan").tolist()
    [[0.0, 7.0], [7.0, 0.0]]
    """
    check_metric_choice(metric, VALID_METRICS | {"precomputed"}, "pairwise_distances")
    check_finite_option(ensure_all_finite, "pairwise_distances")
    if metric == "precomputed":
        pair = check_pairwise_arrays(X, Y, precomputed=True,
                                     ensure_all_finite=ensure_all_finite)
        negative = (sparse_ops.any_negative(pair.X) if pair.sparse
                    else bool(pair.xp.any(pair.X < 0)))  # host read: scikit-learn's check
        if negative:
            raise ValueError("Negative values in data passed to `pairwise_distances`. "
                             "Precomputed distance  need to have non-negative values..")
        return pair.X
    if metric in ("haversine", "nan_euclidean"):  # their own checks (NaN: nan_euclidean)
        if any_sparse(X, Y):  # scikit-learn's (haversine's sparse rows, nan_euclidean's error)
            return _sklearn("pairwise_distances")(X, Y, metric, n_jobs=n_jobs,
                                                  ensure_all_finite=ensure_all_finite, **kwds)
        return PAIRWISE_DISTANCE_FUNCTIONS[metric](X, Y, **kwds)
    if isinstance(metric, str) and metric in PAIRWISE_DISTANCE_FUNCTIONS:
        pair = check_pairwise_arrays(X, Y)  # scikit-learn's functions check finiteness
        if metric in ("euclidean", "l2"):
            _no_kwds(kwds, "euclidean_distances",
                     {"Y_norm_squared", "squared", "X_norm_squared"})
            return euclidean_pair(pair, **kwds)
        if metric == "cosine":
            _no_kwds(kwds, "cosine_distances")
            return cosine_distances_pair(pair)
        _no_kwds(kwds, "manhattan_distances")
        return manhattan_pair(pair)
    if any_sparse(X, Y):  # scikit-learn's: SciPy metrics raise its TypeError on sparse
        return _sklearn("pairwise_distances")(X, Y, metric, n_jobs=n_jobs,
                                              ensure_all_finite=ensure_all_finite, **kwds)
    if _on_host(X, Y) and _scikit_learns(metric, kwds, X, Y):
        return _sklearn("pairwise_distances")(X, Y, metric, n_jobs=n_jobs,
                                              ensure_all_finite=ensure_all_finite, **kwds)
    if callable(metric):
        return _callable_matrix(X, Y, metric, kwds, ensure_all_finite=ensure_all_finite)
    if metric not in DEVICE_METRICS:
        raise _not_on_device(metric, "pairwise_distances")
    _metric_kwds(metric, kwds, "pairwise_distances")
    _warn_boolean(metric, X, None if Y is X else Y)
    pair = _check_scipy_pair(X, Y, metric, ensure_all_finite)
    # SciPy's pdist where Y is X (one job): a row's distance to itself is exactly zero
    return full_matrix(_device_distances(pair, metric, kwds),
                       zero_diagonal=pair.same and _zero_diagonal(metric, n_jobs))


def _scikit_learns(metric, kwds, X, Y) -> bool:
    """Whether scikit-learn computes ``metric`` for host input: callables, the
    metrics metrix does not compute, keyword arguments metrix does not take,
    and a boolean metric's data that is not an array of numbers (scikit-learn
    reads its ``dtype``: its error for a list, its bool of strings)."""
    if callable(metric) or metric not in DEVICE_METRICS:
        return True
    if metric in _SCIPY_COMPUTED and set(kwds) - _SCIPY_KWDS.get(metric, frozenset()):
        return True
    if metric in _HOST_WEIGHTS_SCIPY and kwds.get("w") is not None:
        return True
    return metric in BOOLEAN_FUNCTIONS and not all(
        _numeric_array(A) for A in (X, Y) if A is not None)


@metric_edge(keep_sparse=True)
def pairwise_kernels(X, Y=None, metric="linear", *, filter_params=False, n_jobs=None, **kwds):
    """Kernel matrix of the rows of ``X`` and ``Y`` for a kernel string or callable.

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features) or (n_samples_X, n_samples_X)
        Rows of samples, or a kernel matrix with ``metric="precomputed"``.
    Y : array of shape (n_samples_Y, n_features), default=None
        Rows of samples; ``None`` uses ``X``.
    metric : str or callable, default="linear"
        ``"additive_chi2"``, ``"chi2"``, ``"linear"``, ``"poly"`` /
        ``"polynomial"``, ``"rbf"``, ``"laplacian"``, ``"sigmoid"``,
        ``"cosine"``, ``"precomputed"``, or a function of two rows (called
        once per pair; handed to scikit-learn for NumPy input, as are
        scikit-learn's Gaussian-process kernels).
    filter_params : bool, default=False
        Drop the keyword arguments the kernel does not take.
    n_jobs : int, default=None
        Accepted for scikit-learn's signature (metrix does not fork jobs).
    **kwds : dict
        Keyword arguments of the kernel (``gamma``, ``degree``, ``coef0``).

    Returns
    -------
    K : array of shape (n_samples_X, n_samples_Y)
        In the inputs' namespace and on their device.

    Examples
    --------
    >>> from metrix.pairwise import pairwise_kernels
    >>> pairwise_kernels([[1, 0], [0, 1]], metric="linear").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if metric == "precomputed":
        return check_pairwise_arrays(X, Y, precomputed=True).X
    if isinstance(metric, str) and metric in PAIRWISE_KERNEL_FUNCTIONS:
        if metric in ("chi2", "additive_chi2"):
            reject_sparse(X, Y)  # scikit-learn's chi2 kernels take dense data only
        if filter_params:
            kwds = {k: v for k, v in kwds.items() if k in KERNEL_PARAMS[metric]}
        return PAIRWISE_KERNEL_FUNCTIONS[metric](X, Y, **kwds)
    check_metric_choice(metric, set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"},
                        "pairwise_kernels")
    if _on_host(X, Y) or any_sparse(X, Y):
        return _sklearn("pairwise_kernels")(X, Y, metric, filter_params=filter_params,
                                            n_jobs=n_jobs, **kwds)
    return _callable_matrix(X, Y, metric, kwds, ensure_all_finite=True)


def _num_samples(r) -> int:
    shape = getattr(r, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(r)


def _check_chunk_size(reduced, chunk_size):
    """scikit-learn's check of what ``reduce_func`` returned."""
    if reduced is None:
        return
    is_tuple = isinstance(reduced, tuple)
    if not is_tuple:
        reduced = (reduced,)
    if any(isinstance(r, tuple) or not (hasattr(r, "__iter__") or hasattr(r, "shape"))
           for r in reduced):
        raise TypeError("reduce_func returned %r. Expected sequence(s) of length %d."
                        % (reduced if is_tuple else reduced[0], chunk_size))
    if any(_num_samples(r) != chunk_size for r in reduced):
        actual = tuple(_num_samples(r) for r in reduced)
        raise ValueError("reduce_func returned object of length %s. Expected same length as "
                         "input: %d." % (actual if is_tuple else actual[0], chunk_size))


def _chunk_rows(n_x, n_y, working_memory):
    """scikit-learn's ``get_chunk_n_rows`` (8 bytes a distance), with its warning."""
    if working_memory is None:
        working_memory = WORKING_MEMORY_MIB
    rows = min(int(working_memory * 2**20 // (8 * n_y)), n_x)
    if rows < 1:
        warnings.warn("Could not adhere to working_memory config. Currently %.0fMiB, "
                      "%.0fMiB required." % (working_memory, math.ceil(8 * n_y * 2**-20)),
                      UserWarning, stacklevel=find_stack_level())
        rows = 1
    return rows


@metric_edge(keep_sparse=True)
def pairwise_distances_chunked(X, Y=None, *, reduce_func=None, metric="euclidean",
                               n_jobs=None, working_memory=None, **kwds):
    """Generate the distance matrix of ``X`` and ``Y`` a block of rows at a time,
    optionally reduced by ``reduce_func``.

    The blocks are scikit-learn's: as many rows as ``working_memory`` MiB hold
    at 8 bytes a distance (at least one, with scikit-learn's warning), so a
    ``reduce_func`` sees the same ``start`` offsets.  Each block is computed
    on the inputs' device (the metrics of :func:`pairwise_distances`).

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features) or (n_samples_X, n_samples_X)
        Rows of samples, or a distance matrix with ``metric="precomputed"``.
    Y : array of shape (n_samples_Y, n_features), default=None
        Rows of samples; ``None`` uses ``X``.
    reduce_func : callable, default=None
        ``reduce_func(D_chunk, start)`` returning an array (or a tuple of
        arrays) with one entry per row of the block.
    metric : str or callable, default="euclidean"
        As in :func:`pairwise_distances`.
    n_jobs : int, default=None
        Accepted for scikit-learn's signature.
    working_memory : float, default=None
        MiB of one block of distances; ``None``: 1024 (scikit-learn's default).
    **kwds : dict
        Keyword arguments of the metric.

    Yields
    ------
    D_chunk : array or tuple of arrays
        A block of rows of the distance matrix, or what ``reduce_func`` made of it.

    Examples
    --------
    >>> from metrix.pairwise import pairwise_distances_chunked
    >>> [d.shape for d in pairwise_distances_chunked([[0], [1], [2]], working_memory=0)]
    [(1, 3), (1, 3), (1, 3)]
    """
    if working_memory is not None:
        check_interval(working_memory, "working_memory", "pairwise_distances_chunked",
                       low=0, closed="left")
    check_metric_choice(metric, VALID_METRICS | {"precomputed"}, "pairwise_distances_chunked")
    if reduce_func is not None and not callable(reduce_func):
        raise ValueError("The 'reduce_func' parameter of pairwise_distances_chunked must be "
                         f"a callable or None. Got {reduce_func!r} instead.")
    return _chunks(X, Y, reduce_func, metric, n_jobs, working_memory, kwds)


def _chunks(X, Y, reduce_func, metric, n_jobs, working_memory, kwds):
    sparse = any_sparse(X, Y)
    if sparse and (callable(metric) or metric not in SPARSE_METRICS | {"precomputed"}):
        # scikit-learn's: SciPy metrics raise its TypeError on sparse input
        yield from _sklearn("pairwise_distances_chunked")(
            X, Y, reduce_func=reduce_func, metric=metric, n_jobs=n_jobs,
            working_memory=working_memory, **kwds)
        return
    if metric != "precomputed" and _on_host(X, Y) and _scikit_learns(metric, kwds, X, Y):
        yield from _sklearn("pairwise_distances_chunked")(
            X, Y, reduce_func=reduce_func, metric=metric, n_jobs=n_jobs,
            working_memory=working_memory, **kwds)
        return
    if metric == "precomputed":
        D = pairwise_distances(X, Y, metric="precomputed", **kwds)
        if reduce_func is not None:
            chunk = int(D.shape[0])
            D = reduce_func(D, 0)
            _check_chunk_size(D, chunk)
        yield D
        return
    if callable(metric):
        raise NotImplementedError("pairwise_distances_chunked: a callable metric on device "
                                  "input; pass NumPy arrays or use pairwise_distances.")
    if metric not in DEVICE_METRICS:
        raise _not_on_device(metric, "pairwise_distances_chunked")
    kwds = dict(kwds)
    # bool of a keyword argument (a Python value, not an array)
    squared = bool(kwds.pop("squared", False)) if metric in ("euclidean", "l2") else False
    if metric in _SCIPY_COMPUTED:
        _metric_kwds(metric, kwds, "pairwise_distances_chunked")
    elif kwds:
        key = next(iter(kwds))
        raise TypeError(f"pairwise_distances_chunked: unexpected keyword argument {key!r} "
                        f"for metric={metric!r}")
    _warn_boolean(metric, X, None if Y is X else Y)  # as its first chunk's call does
    pair = _check_scipy_pair(X, Y, metric, True)
    dist = _device_distances(pair, "sqeuclidean" if squared else metric, kwds)
    n_x, n_y = int(pair.X.shape[0]), int(pair.Y.shape[0])
    rows = _chunk_rows(n_x, n_y, working_memory)
    # a row to itself: scikit-learn zeroes the euclidean ones; the whole of X
    # against itself in one chunk: cosine_distances' zero diagonal, SciPy's pdist's
    zero = pair.same and metric in ("euclidean", "l2", "sqeuclidean")
    whole_zero = pair.same and (metric == "cosine" or metric in _SCIPY_COMPUTED
                                and _zero_diagonal(metric, n_jobs))
    for start, stop in row_slices(n_x, rows):
        if start > 0:  # scikit-learn's warning of each chunk's call
            _warn_boolean(metric, X, None if Y is X else Y)
        D = dist.block(start, stop)
        whole = start == 0 and stop == n_x
        if zero or (whole and whole_zero):
            D = dist.zero_diagonal(D, start)
        if reduce_func is not None:
            D = reduce_func(D, start)
            _check_chunk_size(D, stop - start)
        yield D


def _check_axis(axis, func):
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or axis not in (0, 1):
        raise ValueError(f"The 'axis' parameter of {func} must be an int among {{0, 1}}. "
                         f"Got {axis!r} instead.")


def _argmin(X, Y, axis, metric, metric_kwargs, func, *, with_values):
    _check_axis(axis, func)
    check_metric_choice(metric, VALID_METRICS | _ARGKMIN_METRICS, func)
    if metric_kwargs is not None and not isinstance(metric_kwargs, dict):
        raise ValueError(f"The 'metric_kwargs' parameter of {func} must be an instance of "
                         f"'dict' or None. Got {metric_kwargs!r} instead.")
    kwds = dict(metric_kwargs or {})
    if metric == "nan_euclidean" and not any_sparse(X, Y):  # scikit-learn's fallback
        indices, values = nan_euclidean_argmin_min(X, Y, axis=axis, kwds=kwds,
                                                   budget=ARGMIN_BLOCK_BYTES)
        return (indices, values) if with_values else indices
    if metric in _CHUNKED_ARGMIN_METRICS and not any_sparse(X, Y) and (
            set(kwds) <= _SCIPY_KWDS.get(metric, frozenset())) and not (
            _on_host(X, Y) and _scikit_learns(metric, kwds, X, Y)):
        indices, values = _chunked_argmin(X, Y, axis, metric, kwds)
        return (indices, values) if with_values else indices
    if not callable(metric) and not any_sparse(X, Y) and (
            metric in _ARGKMIN_FORMULA_METRICS
            or metric in _ARGKMIN_KWDS_METRICS and set(kwds) - {"p"}
            or metric in ("manhattan", "cityblock", "l1", "chebyshev", "infinity") and kwds):
        if _on_host(X, Y) and not _c_ordered(X, Y):  # scikit-learn's SciPy fallback
            return _sklearn(func)(X, Y, axis=axis, metric=metric, metric_kwargs=metric_kwargs)
        indices, values = _argkmin_formula(X, Y, axis, metric, kwds)
        return (indices, values) if with_values else indices
    if not callable(metric) and not any_sparse(X, Y):
        metric = _ARGKMIN_ALIASES.get(metric, metric)
    # bool of a keyword argument (a Python value, not an array)
    squared = metric in ("euclidean", "l2") and bool(kwds.pop("squared", False))
    extra = set(kwds) - ({"p"} if metric == "minkowski" else set())
    sparse = any_sparse(X, Y) and (callable(metric) or metric not in SPARSE_METRICS)
    if callable(metric) or metric not in _ARGMIN_DEVICE_METRICS or extra or sparse:
        if _on_host(X, Y) or sparse:  # sparse: scikit-learn's ``ArgKmin`` (or its error)
            return _sklearn(func)(X, Y, axis=axis, metric=metric, metric_kwargs=metric_kwargs)
        if callable(metric):
            raise NotImplementedError(f"{func}: a callable metric on device input; pass "
                                      "NumPy arrays.")
        raise _not_on_device(metric, func, _ARGMIN_DEVICE_METRICS | _CHUNKED_ARGMIN_METRICS
                             | _ARGKMIN_FORMULA_METRICS | set(_ARGKMIN_ALIASES))
    pair = check_pairwise_arrays(X, Y)
    if axis == 0:
        pair = pair._replace(X=pair.Y, Y=pair.X)
    xp = pair.xp
    dist = _device_distances(pair._replace(same=False),
                             "sqeuclidean" if squared and metric != "euclidean" else metric,
                             kwds)
    idx, vals = [], []
    ranked = metric in ("euclidean", "l2")  # one B x M ranking a block (see ``nearest``)
    rows = dist.rows_per_block(ARGMIN_BLOCK_BYTES, temporaries=1 if ranked else 3)
    # ``ArgKmin32``'s DistanceMetric metrics: float32 values (returned in float64)
    single = pair.X.dtype == xp.float32 and metric in _MANHATTAN | {"chebyshev", "minkowski"}
    for start, stop in row_slices(dist.n, rows):
        i, v = dist.nearest(start, stop, squared=squared)
        idx.append(i)
        vals.append(_round_to(v, pair.X.dtype, xp) if single else v)
    indices = idx[0] if len(idx) == 1 else xp.concat(idx)
    if not with_values:
        return indices
    return indices, vals[0] if len(vals) == 1 else xp.concat(vals)


def _chunked_argmin(X, Y, axis, metric, kwds):
    """scikit-learn's fallback for SciPy's metrics that ``ArgKmin`` does not compute:
    the first minimum of each row of ``pairwise_distances_chunked`` (NumPy's
    ``argmin``: a NaN first), of the float data (a boolean metric warns of its
    conversion once per chunk, as each of scikit-learn's calls does), read one
    block of rows at a time.  ``Y`` is ``X`` in one chunk: SciPy's ``pdist``,
    a zero diagonal."""
    pair = check_pairwise_arrays(X, Y)
    if axis == 0:
        pair = pair._replace(X=pair.Y, Y=pair.X)
    xp = pair.xp
    n_x, n_y = int(pair.X.shape[0]), int(pair.Y.shape[0])
    chunks = len(row_slices(n_x, _chunk_rows(n_x, n_y, None)))
    _warn_boolean(metric, pair.X, pair.Y, times=chunks)
    dist = _device_distances(pair, metric, kwds)
    zero = pair.same and chunks == 1
    idx, vals = [], []
    for start, stop in row_slices(n_x, dist.rows_per_block(ARGMIN_BLOCK_BYTES)):
        D = dist.block(start, stop)
        i, v = nan_first_argmin_min(dist.zero_diagonal(D, start) if zero else D, xp)
        idx.append(i)
        vals.append(v)
    if len(idx) == 1:
        return idx[0], vals[0]
    return xp.concat(idx), xp.concat(vals)


def _round_to(v, dtype, xp):
    """``v`` rounded to ``dtype`` (float32), kept in its own float."""
    return xp.astype(xp.astype(v, dtype), v.dtype)


def _c_ordered(*arrays) -> bool:
    """Whether host arrays are C-ordered (``ArgKmin`` computes only those: scikit-learn
    reads others from ``pairwise_distances_chunked``, SciPy's metrics); a list
    becomes a C-ordered array."""
    return all(getattr(getattr(A, "flags", None), "c_contiguous", True) for A in arrays)


def _argkmin_formula(X, Y, axis, metric, kwds):
    """scikit-learn's ``ArgKmin`` of a ``DistanceMetric`` metric (``V``, ``VI``,
    ``w`` and their errors are ``DistanceMetric.get_metric``'s): the distances
    summed in the widest float (float32 data: the values rounded to float32,
    returned in the widest float), one block of rows at a time, ranked as
    :func:`heap_argmin_min` (``ArgKmin``'s scan: ties and NaN as scikit-learn's)."""
    pair = check_pairwise_arrays(X, Y)
    if axis == 0:
        pair = pair._replace(X=pair.Y, Y=pair.X)
    xp = pair.xp
    name, params, p = host_params(METRIC_MAPPING[metric], kwds)
    checker = DistanceMetric(name, params=params, p=p)
    checker.validate_data(pair.X)
    checker.validate_data(pair.Y)
    wide = max_float_dtype(xp, pair.device)
    single = pair.X.dtype != wide  # ``ArgKmin32``: float32 values
    dist = Distances(xp.astype(pair.X, wide, copy=False), name, xp=xp,
                     Y=xp.astype(pair.Y, wide, copy=False), p=p,
                     params=metric_params(params, xp=xp, device=pair.device, dtype=wide))
    idx, vals = [], []
    for start, stop in row_slices(dist.n, dist.rows_per_block(ARGMIN_BLOCK_BYTES)):
        i, v = heap_argmin_min(dist.block(start, stop), xp)
        idx.append(i)
        vals.append(_round_to(v, pair.X.dtype, xp) if single else v)
    if len(idx) == 1:
        return idx[0], vals[0]
    return xp.concat(idx), xp.concat(vals)


@metric_edge(keep_sparse=True)
@pair_doc
def pairwise_distances_argmin_min(X, Y, *, axis=1, metric="euclidean", metric_kwargs=None):
    """Index and distance of the nearest row of ``Y`` to each row of ``X``.

    Equal to ``pairwise_distances(X, Y, metric).argmin(axis)`` and ``.min(axis)``
    (the first index on ties) without forming the distance matrix: it is read
    one block of rows at a time, within a fixed memory budget.  For the
    euclidean metrics a block holds only ``||y||^2 - 2 x.y`` (scikit-learn's
    ``ArgKmin`` ranking), ``||x||^2`` is added to each row's minimum.

    Parameters
    ----------
    %(two)s
    axis : int, default=1
        1: the nearest row of ``Y`` to each row of ``X``; 0: the other way round.
    metric : str or callable, default="euclidean"
        As in :func:`pairwise_distances`.
    metric_kwargs : dict, default=None
        Keyword arguments of the metric (``{"squared": True}`` for squared
        euclidean distances, ``{"p": 3}`` for minkowski).

    Returns
    -------
    argmin : array of shape (n_samples_X,)
        ``Y[argmin[i]]`` is the row of ``Y`` nearest to ``X[i]`` (int64).
    distances : array of shape (n_samples_X,)
        Those distances, in the widest float.

    Examples
    --------
    >>> from metrix.pairwise import pairwise_distances_argmin_min
    >>> idx, d = pairwise_distances_argmin_min([[0, 0, 0], [1, 1, 1]], [[1, 0, 0], [1, 1, 0]])
    >>> idx.tolist(), d.tolist()
    ([0, 1], [1.0, 1.0])
    """
    return _argmin(X, Y, axis, metric, metric_kwargs, "pairwise_distances_argmin_min",
                   with_values=True)


@metric_edge(keep_sparse=True)
@pair_doc
def pairwise_distances_argmin(X, Y, *, axis=1, metric="euclidean", metric_kwargs=None):
    """Index of the nearest row of ``Y`` to each row of ``X``
    (:func:`pairwise_distances_argmin_min` without the distances).

    Parameters
    ----------
    %(two)s
    axis : int, default=1
        1: the nearest row of ``Y`` to each row of ``X``; 0: the other way round.
    metric : str or callable, default="euclidean"
        As in :func:`pairwise_distances`.
    metric_kwargs : dict, default=None
        Keyword arguments of the metric.

    Returns
    -------
    argmin : array of shape (n_samples_X,)
        ``Y[argmin[i]]`` is the row of ``Y`` nearest to ``X[i]`` (int64).

    Examples
    --------
    >>> from metrix.pairwise import pairwise_distances_argmin
    >>> pairwise_distances_argmin([[0, 0, 0], [1, 1, 1]], [[1, 0, 0], [1, 1, 0]]).tolist()
    [0, 1]
    """
    return _argmin(X, Y, axis, metric, metric_kwargs, "pairwise_distances_argmin",
                   with_values=False)
