"""The rest of scikit-learn 1.9's ``sklearn.metrics.pairwise``:
``nan_euclidean_distances``, ``haversine_distances`` and the input checks
``check_pairwise_arrays`` / ``check_paired_arrays``, on the inputs'
namespace and device.

``nan_euclidean_distances`` is scikit-learn's formula, a block of rows at a
time (:class:`NanEuclidean`, read by the same row-block assembly as the
other distances): the squared euclidean expansion of the inputs with their
missing entries zeroed, less ``(x * x) . missing(y)`` and ``missing(x) .
(y * y)``, scaled by ``n_features / present`` where ``present`` (the
coordinates present in both rows) is one more matrix product; NaN where no
coordinate is present in both.
"""

from __future__ import annotations

import math
import numbers

from .._core.edge import metric_edge
from .._core.namespace import device_of, library_dtype, max_float_dtype
from .._core.validation import numpy_bool_name
from ..backends import ops
from ..backends import sparse as _sparse
from . import _input
from ._blocks import Distances, nan_first_argmin_min, row_slices
from ._input import InvalidParameterError, pair_doc
from .distance_metric import DistanceMetric
from .distances import full_matrix

__all__ = ["nan_euclidean_distances", "haversine_distances", "check_pairwise_arrays",
           "check_paired_arrays"]  # and nan_euclidean_argmin_min, for pairwise_distances_argmin_min


def _is_nan(value) -> bool:
    return isinstance(value, numbers.Real) and math.isnan(value)


def _check_bool(value, name, func):
    if not (isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")):
        raise InvalidParameterError(f"The {name!r} parameter of {func} must be an instance of "
                                    f"'bool' or an instance of '{numpy_bool_name()}'. Got "
                                    f"{value!r} instead.")


class NanEuclidean:
    """Row blocks of scikit-learn's ``nan_euclidean_distances`` of a checked pair
    (the :class:`~metrix.pairwise._blocks.Distances` interface that
    ``full_matrix`` reads)."""

    metric = "nan_euclidean"

    def __init__(self, pair, missing_values, *, squared):
        xp = self.xp = pair.xp
        self.same = pair.same
        self.squared = squared
        X = pair.X
        self.n, self.m = int(X.shape[0]), int(pair.Y.shape[0])
        self.n_features = int(X.shape[1])
        centre = None
        if X.dtype != xp.float64 and X.dtype == max_float_dtype(xp, pair.device):
            # no wider float to sum in (scikit-learn's upcast): the rows are centred on
            # the means of the present values instead (the distances do not move)
            mask = self._mask(X, missing_values)
            kept = xp.where(mask, xp.zeros_like(X), X)
            count = xp.sum(xp.astype(~mask, X.dtype), axis=0)
            centre = xp.sum(kept, axis=0) / xp.where(count > 0, count, xp.ones_like(count))
        self.missing_x, X0 = self._zeroed(X, missing_values, centre)
        if self.same:
            self.missing_y, Y0 = self.missing_x, X0
        else:
            self.missing_y, Y0 = self._zeroed(pair.Y, missing_values, centre)
        # scikit-learn's ``euclidean_distances(X, Y, squared=True)`` of the zeroed rows
        self.inner = Distances(X0, "sqeuclidean", xp=xp, Y=None if self.same else Y0,
                               upcast=True, centre=False)
        self.xx = X0 * X0
        self.yy_t = xp.permute_dims(Y0 * Y0, (1, 0))
        self.missing_y_t = xp.permute_dims(self.missing_y, (1, 0))
        self.present_x = 1.0 - self.missing_x
        self.present_y_t = 1.0 - self.missing_y_t

    def _mask(self, A, missing_values):
        xp = self.xp
        return xp.isnan(A) if _is_nan(missing_values) else A == missing_values

    def _zeroed(self, A, missing_values, centre):
        """The missing mask of ``A`` (as ``A``'s float) and ``A`` (less ``centre``)
        with those zeroed."""
        xp = self.xp
        mask = self._mask(A, missing_values)
        if centre is not None:
            A = A - centre
        return xp.astype(mask, A.dtype), xp.where(mask, xp.zeros_like(A), A)

    def rows_per_block(self, budget_bytes: int) -> int:
        """Rows of a block within ``budget_bytes`` (about six ``B x M`` temporaries)."""
        return self.inner.rows_per_block(budget_bytes, temporaries=6)

    def block(self, start: int, stop: int, *, first: int = 0):
        """Distances of rows ``start:stop`` of ``X`` to the rows ``first:`` of ``Y``."""
        xp = self.xp
        D = self.inner.block(start, stop, first=first)
        D = D - self.xx[start:stop, ...] @ self.missing_y_t[:, first:]
        D = D - self.missing_x[start:stop, ...] @ self.yy_t[:, first:]
        D = xp.clip(D, 0.0, None)
        if self.same:  # scikit-learn zeroes a row's distance to itself before the NaNs
            D = ops(xp).zero_diagonal(D, start - first)
        present = self.present_x[start:stop, ...] @ self.present_y_t[:, first:]
        none = present == 0
        D = D / xp.where(none, xp.ones_like(present), present) * self.n_features
        D = xp.where(none, xp.full_like(D, math.nan), D)
        return D if self.squared else xp.sqrt(D)


@metric_edge(keep_sparse=True)
@pair_doc
def nan_euclidean_distances(X, Y=None, *, squared=False, missing_values=math.nan, copy=True):
    """Euclidean distances between the rows of ``X`` and ``Y`` ignoring missing values.

    For each pair of rows, the coordinates missing in either are left out and
    the squared distance of the others is scaled by ``n_features / n_present``
    (scikit-learn's formula): ``dist(x, y) = sqrt(weight * sq. distance from
    present coordinates)``.  Pairs with no coordinate present in both are
    NaN.  ``Y=None`` (or ``Y is X``): the diagonal is zero (NaN for rows
    with no present coordinate).  Computed with matrix products, a block of
    rows at a time.

    Parameters
    ----------
    %(pair)s
    squared : bool, default=False
        Return squared distances.
    missing_values : float or int, default=np.nan
        The value marking a missing entry.
    copy : bool, default=True
        Accepted for scikit-learn's signature (the inputs are never written).

    Returns
    -------
    %(distances)s

    Examples
    --------
    >>> from metrix.pairwise import nan_euclidean_distances
    >>> nan = float("NaN")
    >>> nan_euclidean_distances([[0, 1], [1, nan]], [[0, 0]]).round(4).tolist()
    [[1.0], [1.4142]]
    """
    _input.sparse_not_array_like("nan_euclidean_distances", X=X, Y=Y)
    _check_bool(squared, "squared", "nan_euclidean_distances")
    if not isinstance(missing_values, numbers.Real):
        raise InvalidParameterError(
            "The 'missing_values' parameter of nan_euclidean_distances must be an "
            "instance of 'int', a float in the range [-inf, inf], numpy.nan or pandas.NA."
            f" Got {missing_values!r} instead.")
    _check_bool(copy, "copy", "nan_euclidean_distances")
    pair = _input.check_pairwise_arrays(
        X, Y, ensure_all_finite="allow-nan" if _is_nan(missing_values) else True)
    return full_matrix(NanEuclidean(pair, missing_values, squared=squared))


@metric_edge
def haversine_distances(X, Y=None):
    """Haversine (great-circle) distances between the rows of ``X`` and ``Y``.

    Each row is (latitude, longitude) in radians; the distance is the angle
    ``2 arcsin(sqrt(sin^2(dlat / 2) + cos(lat1) cos(lat2) sin^2(dlon / 2)))``
    (multiply by the sphere's radius for a length).  scikit-learn's
    ``DistanceMetric.get_metric("haversine").pairwise(X, Y)``.

    Parameters
    ----------
    X : array of shape (n_samples_X, 2)
        Rows of (latitude, longitude) in radians.
    Y : array of shape (n_samples_Y, 2), default=None
        Rows of (latitude, longitude) in radians; ``None`` uses ``X``.

    Returns
    -------
    distances : array of shape (n_samples_X, n_samples_Y)
        In the inputs' namespace and on their device, in the widest float.

    Examples
    --------
    >>> from metrix.pairwise import haversine_distances
    >>> haversine_distances([[0.0, 0.0], [0.0, 3.141592653589793]]).round(4).tolist()
    [[0.0, 3.1416], [3.1416, 0.0]]
    """
    return DistanceMetric.get_metric("haversine").pairwise(X, Y)


def _as_dtype(A, dtype, xp):
    """``A`` in ``dtype`` (a dtype, or a list of them: ``A``'s if listed, else the first)."""
    if hasattr(A, "toarray"):  # SciPy sparse (host): its own astype
        if isinstance(dtype, (list, tuple)):
            return A if any(A.dtype == d for d in dtype) else A.astype(dtype[0])
        return A.astype(dtype)
    if isinstance(dtype, (list, tuple)):
        wanted = [library_dtype(d, xp, device_of(A)) for d in dtype]
        if A.dtype in wanted:
            return A
        dtype = dtype[0]
    return xp.astype(A, library_dtype(dtype, xp, device_of(A)), copy=False)


def check_pairwise_arrays(X, Y, *, precomputed=False, dtype="infer_float", accept_sparse="csr",
                          ensure_all_finite=True, ensure_2d=True, copy=False):
    """Check ``X`` and ``Y`` as the pairwise functions do (scikit-learn's checks
    and errors): 2-D, the same number of features (``precomputed``: ``X`` of
    shape ``(n_queries, n_indexed)``), finite as ``ensure_all_finite`` says,
    in one namespace and device (host inputs follow a device input).

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features)
        Rows of samples.
    Y : array of shape (n_samples_Y, n_features) or None
        Rows of samples; ``None`` returns ``X`` as ``Y`` too.
    precomputed : bool, default=False
        ``X`` is a distance matrix to the rows of ``Y``.
    dtype : str, dtype, list of dtypes or None, default="infer_float"
        ``"infer_float"``: scikit-learn's float (float32 when the inputs are,
        else the widest float); None: the inputs' dtypes.
    accept_sparse : str, bool or list of str, default="csr"
        False: SciPy sparse input raises scikit-learn's ``TypeError``; True:
        any format is returned as it came; a format or list of formats: a
        sparse input in one of them keeps it, another is converted to the
        first (scikit-learn's ``check_array``).
    ensure_all_finite : bool or "allow-nan", default=True
        Whether NaN / infinity raise.
    ensure_2d : bool, default=True
        Whether inputs that are not 2-D raise.
    copy : bool, default=False
        Return copies.

    Returns
    -------
    safe_X : array of shape (n_samples_X, n_features)
        ``X`` checked, in the inputs' namespace and on their device.
    safe_Y : array of shape (n_samples_Y, n_features)
        ``Y`` checked (``safe_X`` itself when ``Y`` is None).
    """
    if accept_sparse is False and _input.any_sparse(X, Y):
        raise TypeError("Sparse data was passed, but dense data is required. Use "
                        "'.toarray()' to convert to a dense numpy array.")
    infer = isinstance(dtype, str) and dtype == "infer_float"
    formats = [getattr(A, "format", None) if _input.any_sparse(A) else None for A in (X, Y)]
    pair = _input.check_pairwise_arrays(
        X, Y, precomputed=precomputed, ensure_all_finite=ensure_all_finite,
        dtype="float" if infer else None, ensure_2d=ensure_2d)
    xp, X, Y = pair.xp, pair.X, pair.Y
    if pair.sparse and accept_sparse is not False:  # the checks' CSR, in the formats asked
        X = _accepted_format(X, formats[0], accept_sparse)
        Y = X if pair.same else _accepted_format(Y, formats[1], accept_sparse)
    if dtype is not None and not infer:
        X = _as_dtype(X, dtype, xp)
        Y = X if pair.same else _as_dtype(Y, dtype, xp)
    if copy:
        X = _copy(X, xp)
        Y = X if pair.same else _copy(Y, xp)
    return X, Y


def _accepted_format(A, original, accept_sparse):
    """A checked (CSR) sparse operand in scikit-learn's format: its own where
    ``accept_sparse`` is True or lists it, else the first listed."""
    if original is None or not _sparse.is_sparse(A):
        return A
    if accept_sparse is True:
        fmt = original
    else:
        accepted = [accept_sparse] if isinstance(accept_sparse, str) else list(accept_sparse)
        fmt = original if original in accepted else accepted[0]
    return A if A.format == fmt else A.asformat(fmt)


def _copy(A, xp):
    return A.copy() if hasattr(A, "toarray") else xp.asarray(A, copy=True)


@pair_doc
def check_paired_arrays(X, Y):
    """Check ``X`` and ``Y`` as the paired distances do: :func:`check_pairwise_arrays`
    and the same shape (scikit-learn's errors).

    Parameters
    ----------
    %(paired)s

    Returns
    -------
    safe_X : array of shape (n_samples, n_features)
        ``X`` checked, in the inputs' namespace and on their device.
    safe_Y : array of shape (n_samples, n_features)
        ``Y`` checked.
    """
    pair = _input.check_paired_arrays(X, Y)
    return pair.X, pair.Y


def nan_euclidean_argmin_min(X, Y, *, axis, kwds, budget):
    """``pairwise_distances_argmin_min(X, Y, metric="nan_euclidean")``: scikit-learn's
    chunked fallback (``argmin`` of each row of the distances; a row holding NaN
    gives its first NaN, as NumPy's ``argmin``), a block of rows at a time."""
    kwds = dict(kwds)
    squared = kwds.pop("squared", False)
    missing_values = kwds.pop("missing_values", math.nan)
    kwds.pop("copy", None)
    if kwds:
        raise TypeError("nan_euclidean_distances() got an unexpected keyword argument "
                        f"{next(iter(kwds))!r}")
    _check_bool(squared, "squared", "nan_euclidean_distances")
    pair = _input.check_pairwise_arrays(X, Y, ensure_all_finite="allow-nan")
    if axis == 0:
        pair = pair._replace(X=pair.Y, Y=pair.X)
    xp = pair.xp
    dist = NanEuclidean(pair, missing_values, squared=squared)
    idx, vals = [], []
    for start, stop in row_slices(dist.n, dist.rows_per_block(budget)):
        i, v = nan_first_argmin_min(dist.block(start, stop), xp)
        idx.append(i)
        vals.append(v)
    return (idx[0] if len(idx) == 1 else xp.concat(idx),
            vals[0] if len(vals) == 1 else xp.concat(vals))
