"""scikit-learn 1.9's pairwise kernels: linear, polynomial, sigmoid, RBF,
Laplacian, chi-squared (additive and exponential), on the inputs' namespace
and device, with scikit-learn's parameter checks and dtypes."""

from __future__ import annotations

from .._core.edge import metric_edge
from .._core.namespace import get_namespace_and_device
from ..backends import ops
from ..backends import sparse as sparse_ops
from ._blocks import Distances
from ._input import check_interval, check_pairwise_arrays, pair_doc, sparse_not_array_like
from .distances import euclidean_pair, full_matrix, manhattan_pair

__all__ = ["linear_kernel", "polynomial_kernel", "sigmoid_kernel", "rbf_kernel",
           "laplacian_kernel", "additive_chi2_kernel", "chi2_kernel"]


def _gamma(gamma, X):
    return 1.0 / int(X.shape[1]) if gamma is None else gamma


def _dot(pair):
    """``X @ Y.T`` of a checked pair, dense (sparse operands: ``safe_sparse_dot``)."""
    if pair.sparse:
        return sparse_ops.dot(pair.X, pair.Y)
    return pair.X @ pair.xp.permute_dims(pair.Y, (1, 0))


@metric_edge(keep_sparse=True)
@pair_doc
def linear_kernel(X, Y=None, dense_output=True):
    """Linear kernel: the dot products ``X @ Y.T``.

    Parameters
    ----------
    %(pair)s
    dense_output : bool, default=True
        With two SciPy sparse inputs, ``False`` returns the sparse product
        (scikit-learn's ``safe_sparse_dot``); otherwise the result is dense.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import linear_kernel
    >>> linear_kernel([[1, 2], [3, 4]]).tolist()
    [[5.0, 11.0], [11.0, 25.0]]
    """
    pair = check_pairwise_arrays(X, Y)
    if pair.sparse:
        return sparse_ops.dot(pair.X, pair.Y, dense_output=dense_output)
    return pair.X @ pair.xp.permute_dims(pair.Y, (1, 0))


@metric_edge(keep_sparse=True)
@pair_doc
def polynomial_kernel(X, Y=None, degree=3, gamma=None, coef0=1):
    """Polynomial kernel ``(gamma <X, Y> + coef0) ** degree``.

    Parameters
    ----------
    %(pair)s
    degree : float, default=3
        Kernel degree (at least 1).
    gamma : float, default=None
        Coefficient of the dot product; ``None``: ``1 / n_features``.
    coef0 : float, default=1
        Constant offset.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import polynomial_kernel
    >>> polynomial_kernel([[1, 0], [0, 1]], degree=2, gamma=1).tolist()
    [[4.0, 1.0], [1.0, 4.0]]
    """
    check_interval(degree, "degree", "polynomial_kernel", low=1, closed="left")
    check_interval(gamma, "gamma", "polynomial_kernel", low=0, closed="left", none=True)
    check_interval(coef0, "coef0", "polynomial_kernel", closed="neither")
    pair = check_pairwise_arrays(X, Y)
    K = _dot(pair)
    return (K * _gamma(gamma, pair.X) + coef0) ** degree


@metric_edge(keep_sparse=True)
@pair_doc
def sigmoid_kernel(X, Y=None, gamma=None, coef0=1):
    """Sigmoid kernel ``tanh(gamma <X, Y> + coef0)``.

    Parameters
    ----------
    %(pair)s
    gamma : float, default=None
        Coefficient of the dot product; ``None``: ``1 / n_features``.
    coef0 : float, default=1
        Constant offset.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import sigmoid_kernel
    >>> sigmoid_kernel([[0, 0]], [[1, 1]], coef0=0).tolist()
    [[0.0]]
    """
    check_interval(gamma, "gamma", "sigmoid_kernel", low=0, closed="left", none=True)
    check_interval(coef0, "coef0", "sigmoid_kernel", closed="neither")
    pair = check_pairwise_arrays(X, Y)
    xp = pair.xp
    K = _dot(pair)
    return xp.tanh(K * _gamma(gamma, pair.X) + coef0)


@metric_edge(keep_sparse=True)
@pair_doc
def rbf_kernel(X, Y=None, gamma=None):
    """RBF (Gaussian) kernel ``exp(-gamma ||x - y||^2)``.

    The squared distances are :func:`euclidean_distances`' (float32 inputs
    upcast one block at a time, as scikit-learn does).

    Parameters
    ----------
    %(pair)s
    gamma : float, default=None
        ``None``: ``1 / n_features``.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import rbf_kernel
    >>> rbf_kernel([[0, 0], [1, 0]], gamma=1).round(4).tolist()
    [[1.0, 0.3679], [0.3679, 1.0]]
    """
    check_interval(gamma, "gamma", "rbf_kernel", low=0, closed="left", none=True)
    pair = check_pairwise_arrays(X, Y)
    K = euclidean_pair(pair, squared=True)
    return ops(pair.xp).scaled_exp(K, -_gamma(gamma, pair.X))


@metric_edge(keep_sparse=True)
@pair_doc
def laplacian_kernel(X, Y=None, gamma=None):
    """Laplacian kernel ``exp(-gamma ||x - y||_1)``.

    NumPy results are float64 (the manhattan distances are, as in scikit-learn).

    Parameters
    ----------
    %(pair)s
    gamma : float, default=None
        Positive; ``None``: ``1 / n_features``.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import laplacian_kernel
    >>> laplacian_kernel([[0, 0], [1, 1]], gamma=1).round(4).tolist()
    [[1.0, 0.1353], [0.1353, 1.0]]
    """
    check_interval(gamma, "gamma", "laplacian_kernel", low=0, closed="neither", none=True)
    pair = check_pairwise_arrays(X, Y)
    K = manhattan_pair(pair)
    return ops(pair.xp).scaled_exp(K, -_gamma(gamma, pair.X))


def _non_negative(pair):
    xp = pair.xp
    if bool(xp.any(pair.X < 0)):  # host read: scikit-learn's check
        raise ValueError("X contains negative values.")
    if not pair.same and bool(xp.any(pair.Y < 0)):  # host read: scikit-learn's check
        raise ValueError("Y contains negative values.")


@metric_edge(keep_sparse=True)
@pair_doc
def additive_chi2_kernel(X, Y=None):
    """Additive chi-squared kernel ``-sum((x - y)^2 / (x + y))`` over the features
    where ``x + y`` is not 0 (non-negative data).

    Computed from the ``B x M x D`` terms of a block of rows at a time.

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features)
        Non-negative rows of samples.
    Y : array of shape (n_samples_Y, n_features), default=None
        Non-negative rows of samples; ``None`` uses ``X``.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import additive_chi2_kernel
    >>> additive_chi2_kernel([[0, 1], [1, 1]], [[1, 1]]).tolist()
    [[-1.0], [-0.0]]
    """
    sparse_not_array_like("additive_chi2_kernel", X=X, Y=Y)  # scikit-learn: dense only
    pair = check_pairwise_arrays(X, Y)
    _non_negative(pair)
    return full_matrix(Distances(pair.X, "additive_chi2", xp=pair.xp,
                                 Y=None if pair.same else pair.Y))


@metric_edge(keep_sparse=True)
@pair_doc
def chi2_kernel(X, Y=None, gamma=1.0):
    """Exponential chi-squared kernel ``exp(gamma * additive_chi2_kernel)``.

    Parameters
    ----------
    X : array of shape (n_samples_X, n_features)
        Non-negative rows of samples.
    Y : array of shape (n_samples_Y, n_features), default=None
        Non-negative rows of samples; ``None`` uses ``X``.
    gamma : float, default=1.0
        Positive scaling.

    Returns
    -------
    %(kernel)s

    Examples
    --------
    >>> from metrix.pairwise import chi2_kernel
    >>> chi2_kernel([[0, 1], [1, 1]], [[1, 1]]).round(4).tolist()
    [[0.3679], [1.0]]
    """
    sparse_not_array_like("chi2_kernel", X=X, Y=Y)  # scikit-learn: dense only
    check_interval(gamma, "gamma", "chi2_kernel", low=0, closed="neither")
    K = additive_chi2_kernel(X, Y)
    return ops(get_namespace_and_device(K)[0]).scaled_exp(K, gamma)
