"""scikit-learn 1.9's ``DistanceMetric``: ``DistanceMetric.get_metric(metric,
dtype=np.float64, **kwargs)`` and its ``pairwise``, ``rdist_to_dist`` and
``dist_to_rdist``, on the inputs' namespace and device.

Each distance has one definition, the row-block one of
:class:`~metrix.pairwise._blocks.Distances` that ``pairwise_distances``
reads too (euclidean: scikit-learn's expansion; the others from the
``(B, M, D)`` differences of a block of rows).  ``metric_params`` turns the
parameters of a metric (``V``, ``VI``, ``w``) into arrays of the inputs'
namespace, for both.

The names are scikit-learn's (``METRIC_MAPPING64``); a callable (or
``"pyfunc"`` with ``func=``) is called once per pair of rows, as
scikit-learn calls it.
"""

from __future__ import annotations

import math
import numbers

import numpy as np  # scikit-learn's signature (dtype=np.float64) and host parameters

from .._core import namespace as _ns
from .._core.validation import dtype_kind
from ._blocks import Distances, haversine_rdist_to_dist
from ._input import check_pairwise_arrays
from .distances import full_matrix

__all__ = ["DistanceMetric", "METRIC_MAPPING", "metric_params", "host_params"]

#: scikit-learn's metric strings -> the metric of :class:`Distances`
METRIC_MAPPING = {
    "euclidean": "euclidean", "l2": "euclidean", "minkowski": "minkowski", "p": "minkowski",
    "manhattan": "manhattan", "cityblock": "manhattan", "l1": "manhattan",
    "chebyshev": "chebyshev", "infinity": "chebyshev", "seuclidean": "seuclidean",
    "mahalanobis": "mahalanobis", "hamming": "hamming", "canberra": "canberra",
    "braycurtis": "braycurtis", "haversine": "haversine", "matching": "matching",
    "jaccard": "jaccard", "dice": "dice", "kulsinski": "kulsinski",
    "rogerstanimoto": "rogerstanimoto", "russellrao": "russellrao",
    "sokalmichener": "sokalmichener", "sokalsneath": "sokalsneath",
}
#: the rank-preserving surrogate of each distance: ``"square"`` (``dist ** 2``),
#: ``"power"`` (``dist ** p``), ``"haversine"``; the others are their own
_SURROGATE = {"euclidean": "square", "seuclidean": "square", "mahalanobis": "square",
              "minkowski": "power", "haversine": "haversine"}


def _unexpected(kwargs):
    if kwargs:
        raise TypeError(f"__init__() got an unexpected keyword argument {next(iter(kwargs))!r}")


def host_params(metric, kwargs):
    """scikit-learn's constructor of ``metric``: its parameters (NumPy float64 arrays,
    checked on the host as scikit-learn checks them) and ``p``."""
    kwargs = dict(kwargs)
    if metric == "minkowski":
        p = kwargs.pop("p", 2)
        w = kwargs.pop("w", None)
        if w is None and p in (1, 2) or w is None and math.isinf(p):
            _unexpected(kwargs)
            return ("manhattan" if p == 1 else "euclidean" if p == 2 else "chebyshev"), {}, 2
        _unexpected(kwargs)
        if p <= 0:
            raise ValueError("p must be greater than 0")
        if math.isinf(p):
            raise ValueError("MinkowskiDistance requires finite p. For p=inf, use "
                             "ChebyshevDistance.")
        if w is None:
            return metric, {}, p
        w = _check_weights(w)
        if bool((w < 0).any()):
            raise ValueError("w cannot contain negative weights")
        return metric, {"w": w}, p
    if metric == "seuclidean":
        if "V" not in kwargs:
            raise TypeError("__init__() takes exactly 1 positional argument (0 given)")
        V = np.asarray(kwargs.pop("V"), dtype=np.float64)
        _unexpected(kwargs)
        return metric, {"V": V}, 2
    if metric == "mahalanobis":
        V, VI = kwargs.pop("V", None), kwargs.pop("VI", None)
        _unexpected(kwargs)
        if VI is None:
            if V is None:
                raise ValueError("Must provide either V or VI for Mahalanobis distance")
            VI = np.linalg.inv(V)
        VI = np.asarray(VI, dtype=np.float64)
        if VI.ndim != 2 or VI.shape[0] != VI.shape[1]:
            raise ValueError("V/VI must be square")
        return metric, {"VI": VI}, 2
    _unexpected(kwargs)
    return metric, {}, 2


def _check_weights(w):
    """scikit-learn's ``check_array(w, ensure_2d=False, dtype=np.float64)`` of
    Minkowski's weights (a host parameter), with its messages."""
    if hasattr(w, "toarray"):  # a SciPy sparse matrix or array
        raise TypeError("Sparse data was passed for w, but dense data is required. Use "
                        "'.toarray()' to convert to a dense numpy array.")
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {w.ndim})")
    if w.size == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={w.shape}) while a minimum "
                         "of 1 is required.")
    if bool(np.isnan(w).any()):  # host read: a user parameter, checked at the edge
        raise ValueError("Input w contains NaN.")
    if bool(np.isinf(w).any()):
        raise ValueError("Input w contains infinity or a value too large for "
                         "dtype('float64').")
    return w


def metric_params(params, *, xp, device, dtype):
    """The parameter arrays of a metric (``V``, ``VI``, ``w``; host or of the inputs'
    namespace) as arrays of ``xp`` on ``device`` in ``dtype``; other entries
    pass unchanged."""
    out = {}
    for key, value in params.items():
        if key in ("V", "VI", "w"):
            value = _ns.asarray(value, xp=xp, device=device)
            value = xp.astype(value, dtype, copy=False)
        out[key] = value
    return out


class DistanceMetric:
    """A distance metric by scikit-learn's name: ``DistanceMetric.get_metric``.

    ``pairwise(X, Y)`` computes the distance matrix on the inputs' namespace
    and device, a block of rows at a time: float64 (the widest float of the
    device) for ``dtype=np.float64``, float32 for ``dtype=np.float32`` (the
    inputs rounded to float32, the sums taken in the widest float, as
    scikit-learn's ``DistanceMetric32``).

    Metrics (scikit-learn's names): ``"euclidean"`` / ``"l2"``,
    ``"minkowski"`` / ``"p"`` (``p``, optional weights ``w``),
    ``"manhattan"`` / ``"cityblock"`` / ``"l1"``, ``"chebyshev"`` /
    ``"infinity"``, ``"seuclidean"`` (``V``), ``"mahalanobis"`` (``V`` or
    ``VI``), ``"hamming"``, ``"canberra"``, ``"braycurtis"``,
    ``"haversine"`` (2 features: latitude and longitude in radians) and the
    boolean metrics of the ``x != 0`` indicators: ``"matching"``,
    ``"jaccard"``, ``"dice"``, ``"kulsinski"``, ``"rogerstanimoto"``,
    ``"russellrao"``, ``"sokalmichener"``, ``"sokalsneath"``; a callable of
    two rows (or ``"pyfunc"`` with ``func=``), called once per pair.

    Examples
    --------
    >>> from metrix.pairwise import DistanceMetric
    >>> dist = DistanceMetric.get_metric("manhattan")
    >>> dist.pairwise([[0, 0], [1, 2]]).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """

    def __init__(self, metric="euclidean", *, single=False, params=None, p=2, func=None,
                 func_kwargs=None):
        self.metric = metric
        self.single = single
        self.params = {} if params is None else dict(params)
        self.p = p
        self.func = func
        self.func_kwargs = {} if func_kwargs is None else dict(func_kwargs)

    def __repr__(self):
        return f"DistanceMetric.get_metric({self.metric!r})"

    @classmethod
    def get_metric(cls, metric, dtype=np.float64, **kwargs):
        """The distance metric named ``metric`` (scikit-learn's names).

        Parameters
        ----------
        metric : str or DistanceMetric
            scikit-learn's metric string (see the class notes), or a
            ``DistanceMetric`` (returned as it is).
        dtype : {np.float32, np.float64}, default=np.float64
            The float of the distances (float32: the inputs rounded to float32).
        **kwargs : dict
            The metric's parameters: ``p`` and ``w`` (minkowski), ``V``
            (seuclidean), ``V`` or ``VI`` (mahalanobis).

        Returns
        -------
        metric_obj : DistanceMetric
            The metric.
        """
        if dtype == np.float32:
            single = True
        elif dtype == np.float64:
            single = False
        else:
            raise ValueError(f"Unexpected dtype {dtype} provided. Please select a dtype from "
                             "{np.float32, np.float64}")
        if isinstance(metric, DistanceMetric):
            return metric
        if callable(metric) or isinstance(metric, str) and metric == "pyfunc":
            kwargs = dict(kwargs)
            func = metric if callable(metric) else kwargs.pop("func", None)
            if func is None:
                raise TypeError("__init__() takes exactly 1 positional argument (0 given)")
            return cls("pyfunc", single=single, func=func, func_kwargs=kwargs)
        name = METRIC_MAPPING.get(metric) if isinstance(metric, str) else None
        if name is None:
            raise ValueError("Unrecognized metric '%s'" % (metric,))
        name, params, p = host_params(name, kwargs)
        return cls(name, single=single, params=params, p=p)

    def validate_data(self, A):
        d = int(A.shape[1])
        if self.metric == "haversine" and d != 2:
            raise ValueError("Haversine distance only valid in 2 dimensions")
        if self.metric == "seuclidean" and d != int(self.params["V"].shape[0]):
            raise ValueError("SEuclidean dist: size of V does not match")
        if self.metric == "mahalanobis" and d != int(self.params["VI"].shape[0]):
            raise ValueError("Mahalanobis dist: size of V does not match")
        w = self.params.get("w")
        if w is not None and d != int(w.shape[0]):
            raise ValueError("MinkowskiDistance: the size of w must match the number of "
                             f"features ({d}). Currently len(w)={int(w.shape[0])}.")

    def pairwise(self, X, Y=None):
        """Compute the distances between the rows of ``X`` and ``Y``.

        Parameters
        ----------
        X : array or SciPy sparse matrix of shape (n_samples_X, n_features)
            Rows of samples (sparse rows are made dense, on the host).
        Y : array or SciPy sparse matrix of shape (n_samples_Y, n_features), default=None
            Rows of samples; ``None`` uses ``X``.

        Returns
        -------
        dist : array of shape (n_samples_X, n_samples_Y)
            In the inputs' namespace and on their device; float64 (the widest
            float of the device), or float32 for ``dtype=np.float32``.
        """
        same = Y is None or Y is X
        # SciPy sparse rows (scikit-learn takes CSR): their dense rows, on the host
        X = X.toarray() if hasattr(X, "toarray") else X
        Y = X if same else Y.toarray() if hasattr(Y, "toarray") else Y
        xp, device = _ns.get_namespace_and_device(X, None if same else Y)
        X = check_pairwise_arrays(_ns.asarray(X, xp=xp, device=device), None, dtype=None).X
        self.validate_data(X)
        if not same:
            Y = check_pairwise_arrays(_ns.asarray(Y, xp=xp, device=device), None,
                                      dtype=None).X
            self.validate_data(Y)
            if X.shape[1] != Y.shape[1]:
                raise ValueError("X and Y must have the same second dimension")
        wide = _ns.max_float_dtype(xp, device)
        if self.single:  # scikit-learn's DistanceMetric32: float32 inputs, wide sums
            X = xp.astype(X, xp.float32, copy=False)
            Y = None if same else xp.astype(Y, xp.float32, copy=False)
        X = xp.astype(X, wide, copy=False)
        Y = None if same else xp.astype(Y, wide, copy=False)
        if self.metric == "pyfunc":
            D = self._pyfunc(X, X if same else Y, xp, device, wide)
            return xp.astype(D, xp.float32) if self.single else D
        params = metric_params(self.params, xp=xp, device=device, dtype=wide)
        dist = Distances(X, self.metric, xp=xp, Y=Y, p=self.p, params=params)
        # a row's distance to itself: exactly zero but for the expansion's rounding
        # (the boolean metrics' need not be zero: kulsinski, dice of a zero row)
        D = full_matrix(dist, zero_diagonal=same and self.metric == "euclidean")
        return xp.astype(D, xp.float32) if self.single and D.dtype != xp.float32 else D

    def _pyfunc(self, X, Y, xp, device, wide):
        """The user's function of two rows, called once per pair (scikit-learn's
        ``PyFuncDistance``): a Python loop by nature."""
        rows = []
        for i in range(int(X.shape[0])):
            row = [xp.asarray(self.func(X[i, ...], Y[j, ...], **self.func_kwargs), dtype=wide,
                              device=device) for j in range(int(Y.shape[0]))]
            rows.append(xp.stack(row))
        return xp.stack(rows)

    def rdist_to_dist(self, rdist):
        """The distance of its rank-preserving surrogate (euclidean: the square root
        of the squared distance).

        Parameters
        ----------
        rdist : float or array
            Surrogate distance(s).

        Returns
        -------
        dist : float or array
            The distance(s), in the input's namespace.
        """
        kind = _SURROGATE.get(self.metric)
        if kind is None:
            return rdist
        scalar, xp, a = _operand(rdist)
        if kind == "square":
            out = xp.sqrt(a)
        elif kind == "power":
            out = a ** (1.0 / self.p)
        else:
            out = haversine_rdist_to_dist(a, xp)
        return float(out) if scalar else out  # a Python scalar in, a Python float out

    def dist_to_rdist(self, dist):
        """The rank-preserving surrogate of a distance (euclidean: its square).

        Parameters
        ----------
        dist : float or array
            Distance(s).

        Returns
        -------
        rdist : float or array
            The surrogate distance(s), in the input's namespace.
        """
        kind = _SURROGATE.get(self.metric)
        if kind is None:
            return dist
        scalar, xp, a = _operand(dist)
        if kind == "square":
            out = a ** 2
        elif kind == "power":
            out = a ** self.p
        else:
            half = xp.sin(0.5 * a)
            out = half * half
        return float(out) if scalar else out  # a Python scalar in, a Python float out


def _operand(value):
    """``(is a Python scalar, namespace, array)`` of a conversion's argument."""
    scalar = isinstance(value, numbers.Real)
    xp, device = _ns.get_namespace_and_device(value)
    a = _ns.asarray(value, xp=xp, device=device)
    if dtype_kind(a, xp) != "f":
        a = xp.astype(a, _ns.max_float_dtype(xp, device))
    return scalar, xp, a
