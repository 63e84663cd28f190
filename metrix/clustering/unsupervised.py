"""Unsupervised clustering metrics: scores of a clustering of samples ``X``.

scikit-learn 1.9's ``silhouette_samples``, ``silhouette_score``,
``calinski_harabasz_score`` and ``davies_bouldin_score``: same signatures,
values, errors and warnings, on every backend; results stay in the inputs'
namespace and on their device (a Python float for NumPy scalars).

Silhouette: the ``N x N`` distances are computed in row blocks of ``B x N``
(``B`` from a memory budget, 64 MiB unless ``working_memory=`` says otherwise,
as scikit-learn's ``pairwise_distances_chunked`` reads it); each block's
per-cluster distance sums are one matmul with the ``N x K`` one-hot of the
labels (a scatter-add of the block when that one-hot would not fit the
budget).  Calinski-Harabasz and Davies-Bouldin read per-cluster sums of ``X``
(one scatter-add) and, for Davies-Bouldin, the ``K x K`` centroid distances,
also in row blocks.

The number of clusters is read on the host once per call (it sizes the
one-hot; scikit-learn checks it), as are scikit-learn's value checks of
``X``: these metrics are not for traced code.
"""

from __future__ import annotations

import math

from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.namespace import device_of, get_namespace_and_device, max_float_dtype
from ..backends import ops
from ._distances import SUPPORTED_METRICS, Distances, check_metric_kwds
from ._unsupervised_input import (
    check_number_of_labels,
    check_sample_params,
    encode_labels,
    prepare,
    sample_indices,
)

__all__ = [
    "silhouette_samples",
    "silhouette_score",
    "calinski_harabasz_score",
    "davies_bouldin_score",
]

#: scikit-learn 1.9's accepted metric strings (``pairwise._VALID_METRICS``)
_SKLEARN_METRICS = (
    "euclidean", "l2", "l1", "manhattan", "cityblock", "braycurtis", "canberra",
    "chebyshev", "correlation", "cosine", "dice", "hamming", "jaccard", "mahalanobis",
    "matching", "minkowski", "rogerstanimoto", "russellrao", "seuclidean", "sokalsneath",
    "sqeuclidean", "yule", "wminkowski", "nan_euclidean", "haversine", "precomputed",
)
#: default memory budget of one silhouette block set, in MiB
_WORKING_MEMORY_MIB = 64
#: scikit-learn's ``pairwise_distances_chunked`` arguments that ``**kwds`` may carry
_CHUNK_KWDS = ("n_jobs", "working_memory")

_doc = sections(
    x_silhouette="""
    X : array-like of shape (n_samples, n_samples) if metric == "precomputed" or \
(n_samples, n_features) otherwise
        Pairwise distances between samples, or a feature array.""",
    features="""
    X : array-like of shape (n_samples, n_features)
        One row per data point.
    labels : array-like of shape (n_samples,)
        Predicted labels for each sample.""",
    rousseeuw="""
    References
    ----------
    .. [1] P. J. Rousseeuw (1987). "Silhouettes: a Graphical Aid to the
       Interpretation and Validation of Cluster Analysis". Journal of
       Computational and Applied Mathematics 20: 53-65.""")


def _check_metric(metric, func_name):
    """scikit-learn's parameter check of ``metric``; metrix's own for the
    metrics it does not compute."""
    if callable(metric) and not isinstance(metric, str):
        raise NotImplementedError(
            "metrix computes the silhouette for the metrics "
            f"{sorted(SUPPORTED_METRICS)}; for a callable metric pass "
            "metric='precomputed' and a distance matrix.")
    if not isinstance(metric, str) or metric not in _SKLEARN_METRICS:
        options = "{" + ", ".join(repr(m) for m in sorted(_SKLEARN_METRICS)) + "}"
        raise ValueError(f"The 'metric' parameter of {func_name} must be a str among "
                         f"{options} or a callable. Got {metric!r} instead.")
    if metric not in SUPPORTED_METRICS:
        raise NotImplementedError(
            f"metric={metric!r} is not computed by metrix; supported: "
            f"{sorted(SUPPORTED_METRICS)}. Pass metric='precomputed' and a distance "
            "matrix instead.")


def _split_kwds(metric, kwds):
    """``(budget_bytes, metric_kwds)``: the chunking arguments taken out."""
    kwds = dict(kwds)
    memory = kwds.pop("working_memory", None)
    kwds.pop("n_jobs", None)
    check_metric_kwds(metric, kwds)
    mib = _WORKING_MEMORY_MIB if memory is None else float(memory)
    return int(max(mib, 0) * 2**20), kwds


def _silhouette_values(X, codes, counts, n_labels, metric, *, xp, budget, p=2):
    """Silhouette of each sample: ``(b - a) / max(a, b)``, 0 in singleton clusters.

    ``a`` is the mean distance to the other members of the sample's cluster,
    ``b`` the smallest mean distance to the members of another cluster.
    """
    n = int(X.shape[0])
    dev = device_of(codes)
    dt = X.dtype
    dist = Distances(X, metric, xp=xp, p=p)
    rows = dist.rows_per_block(budget)
    ks = xp.arange(n_labels, device=dev)
    counts_f = xp.astype(counts, dt)
    item = 4 if dt == xp.float32 else 8
    onehot = None
    if n * n_labels * item <= budget // 2:
        onehot = xp.astype(codes[:, None] == ks[None, :], dt)
    own, nearest = [], []
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        D = dist.block(start, stop)
        if onehot is not None:
            S = D @ onehot  # (B, K) per-cluster distance sums
        else:
            S = xp.permute_dims(
                ops(xp).scatter_add(codes, xp.permute_dims(D, (1, 0)), length=n_labels),
                (1, 0))
        c = codes[start:stop]
        b = stop - start
        intra = xp.take(xp.reshape(S, (-1,)), xp.arange(b, device=dev) * n_labels + c)
        if dist.zero_self:  # a row's distance to itself is 0 (scikit-learn zeroes it)
            intra = intra - dist.self_distances(D, start)
        del D
        mine = c[:, None] == ks[None, :]
        means = xp.where(mine, xp.asarray(math.inf, dtype=dt, device=dev), S / counts_f)
        own.append(intra)
        nearest.append(xp.min(means, axis=1))
    intra = xp.concat(own) if len(own) > 1 else own[0]
    inter = xp.concat(nearest) if len(nearest) > 1 else nearest[0]
    size = xp.take(counts_f, codes)
    a = intra / xp.where(size > 1, size - 1, xp.ones_like(size))
    m = xp.maximum(a, inter)
    defined = (size > 1) & (m > 0)
    s = (inter - a) / xp.where(defined, m, xp.ones_like(m))
    return xp.where(defined, s, xp.zeros_like(s))


def _silhouette(X, labels, metric, kwds, *, func_name, sample_size=None, random_state=None):
    _check_metric(metric, func_name)
    if func_name == "silhouette_score":
        check_sample_params(sample_size, random_state)
    budget, mkwds = _split_kwds(metric, kwds)
    inp = prepare(X, labels, metric=metric)
    xp = inp.xp
    Xw, codes, counts, k = inp.X, inp.codes, inp.counts, inp.n_labels
    if sample_size is not None:
        idx = sample_indices(int(Xw.shape[0]), sample_size, random_state)
        idx = xp.asarray(idx, device=inp.device)
        Xw = xp.take(Xw, idx, axis=0)
        if metric == "precomputed":
            Xw = xp.take(Xw, idx, axis=1)
        # scikit-learn encodes the sampled labels anew (and checks their number)
        codes, counts, k = encode_labels(xp.take(codes, idx), xp=xp, device=inp.device)
        check_number_of_labels(k, int(Xw.shape[0]))
    p = mkwds.get("p", 2)
    if metric == "minkowski" and not p > 0:
        raise ValueError("p must be greater than 0")
    return _silhouette_values(Xw, codes, counts, k, metric, xp=xp, budget=budget, p=p)


@metric_edge
@_doc
def silhouette_samples(X, labels, *, metric="euclidean", **kwds):
    """Silhouette Coefficient of each sample.

    .. math::

        s(i) = \\frac{b(i) - a(i)}{\\max(a(i), b(i))}

    with :math:`a(i)` the mean distance from sample :math:`i` to the other
    members of its cluster and :math:`b(i)` the smallest mean distance from
    :math:`i` to the members of another cluster; :math:`s(i) = 0` in a cluster
    of one sample.  Distances are computed in row blocks (never the full
    ``N x N`` matrix unless it is given, ``metric="precomputed"``); each
    block's per-cluster sums are one matmul with the one-hot of the labels.

    Parameters
    ----------
    %(x_silhouette)s
    labels : array-like of shape (n_samples,)
        Label values for each sample (any type; 2 to ``n_samples - 1`` distinct).
    metric : str, default="euclidean"
        ``"euclidean"`` / ``"l2"``, ``"sqeuclidean"``, ``"cosine"``,
        ``"manhattan"`` / ``"cityblock"`` / ``"l1"``, ``"chebyshev"``,
        ``"minkowski"`` (keyword ``p``) or ``"precomputed"`` (``X`` is a
        distance matrix with a zero diagonal).  scikit-learn's other SciPy
        metric names and callables raise ``NotImplementedError``: pass their
        distance matrix with ``"precomputed"``.
    **kwds : optional keyword parameters
        ``p`` for ``"minkowski"``; ``working_memory`` (MiB, default 64), the
        memory budget of one block of distances; ``n_jobs`` is accepted and
        ignored.

    Returns
    -------
    silhouette : array of shape (n_samples,)
        Silhouette Coefficient of each sample, in the namespace and on the
        device of ``X``; float32 for float32 ``X`` with the euclidean, cosine
        and precomputed metrics (as scikit-learn), else the widest float.

    %(rousseeuw)s

    Examples
    --------
    >>> from metrix import silhouette_samples
    >>> X = [[0.0], [1.0], [1.0], [2.0], [3.0], [3.0]]
    >>> silhouette_samples(X, [0, 1, 1, 1, 2, 2]).tolist()
    [0.0, 0.5, 0.5, 0.0, 1.0, 1.0]
    """
    return _silhouette(X, labels, metric, kwds, func_name="silhouette_samples")


@metric_edge
@_doc
def silhouette_score(X, labels, *, metric="euclidean", sample_size=None, random_state=None,
                     **kwds):
    """Mean Silhouette Coefficient of all samples (or of a random subset).

    .. math::

        S = \\frac{1}{N} \\sum_i \\frac{b(i) - a(i)}{\\max(a(i), b(i))}

    (see :func:`silhouette_samples`).  With ``sample_size``, the mean over the
    samples ``check_random_state(random_state).permutation(N)[:sample_size]``,
    scikit-learn's draw: the same subset for the same seed.

    Parameters
    ----------
    %(x_silhouette)s
    labels : array-like of shape (n_samples,)
        Predicted labels for each sample.
    metric : str, default="euclidean"
        As in :func:`silhouette_samples`.
    sample_size : int, default=None
        Size of the random subset the score is computed on; ``None``: all samples.
    random_state : int, numpy.random.RandomState instance or None, default=None
        Seed of the subset's draw (NumPy's ``RandomState``, as scikit-learn).
    **kwds : optional keyword parameters
        As in :func:`silhouette_samples`.

    Returns
    -------
    silhouette : float or 0-d array
        Mean Silhouette Coefficient (a Python float for NumPy inputs, else a
        0-d array on the device of ``X``).

    %(rousseeuw)s

    Examples
    --------
    >>> from metrix import silhouette_score
    >>> X = [[0.0], [1.0], [1.0], [2.0], [3.0], [3.0]]
    >>> round(silhouette_score(X, [0, 1, 1, 1, 2, 2]), 4)
    0.5
    """
    s = _silhouette(X, labels, metric, kwds, func_name="silhouette_score",
                    sample_size=sample_size, random_state=random_state)
    xp, _ = get_namespace_and_device(s)
    return xp.mean(s)


def _cluster_means(X, labels):
    """``(xp, X, codes, counts, K, means)``: the checked inputs with ``X`` and the
    counts in the widest float, and the ``(K, D)`` per-cluster means (one
    scatter-add)."""
    inp = prepare(X, labels)
    xp, codes, k = inp.xp, inp.codes, inp.n_labels
    Xw = xp.astype(inp.X, max_float_dtype(xp, inp.device), copy=False)
    counts = xp.astype(inp.counts, Xw.dtype)
    means = ops(xp).scatter_add(codes, Xw, length=k) / counts[:, None]
    return xp, Xw, codes, counts, k, means


@metric_edge
@_doc
def calinski_harabasz_score(X, labels):
    """Calinski-Harabasz score (Variance Ratio Criterion).

    .. math::

        CH = \\frac{\\sum_k n_k \\lVert \\mu_k - \\mu \\rVert^2 / (K - 1)}
                  {\\sum_k \\sum_{i \\in k} \\lVert x_i - \\mu_k \\rVert^2 / (N - K)}

    and 1 when every cluster is a single point (zero within-cluster dispersion).
    Per-cluster means are one scatter-add of ``X``; the dispersions are two-pass
    (centred), in the widest float.

    Parameters
    ----------
    %(features)s

    Returns
    -------
    score : float or 0-d array
        The Calinski-Harabasz score (a Python float for NumPy inputs, else a
        0-d array on the device of ``X``).

    References
    ----------
    .. [1] T. Calinski and J. Harabasz (1974). "A dendrite method for cluster
       analysis". Communications in Statistics 3(1): 1-27.

    Examples
    --------
    >>> from metrix import calinski_harabasz_score
    >>> round(calinski_harabasz_score([[0, 0], [1, 1], [5, 5], [6, 6]], [0, 0, 1, 1]), 4)
    50.0
    """
    xp, Xw, codes, counts, k, means = _cluster_means(X, labels)
    n = int(Xw.shape[0])
    mean = xp.mean(Xw, axis=0)
    extra = xp.sum(counts * xp.sum((means - mean) ** 2, axis=1))
    intra = xp.sum((Xw - xp.take(means, codes, axis=0)) ** 2)
    zero = intra == 0
    score = extra * (n - k) / (xp.where(zero, xp.ones_like(intra), intra) * (k - 1.0))
    return xp.where(zero, xp.ones_like(score), score)


@metric_edge
@_doc
def davies_bouldin_score(X, labels):
    """Davies-Bouldin score.

    .. math::

        DB = \\frac{1}{K} \\sum_k \\max_{j \\ne k}
             \\frac{s_k + s_j}{\\lVert \\mu_k - \\mu_j \\rVert}

    with :math:`s_k` the mean distance of cluster :math:`k`'s points to its
    centroid :math:`\\mu_k`; a pair of coinciding centroids adds 0, and the
    score is 0 when every :math:`s_k` or every centroid distance is within
    1e-8 of 0 (scikit-learn's rule).  Lower is better.  The ``K x K`` centroid
    distances are computed in row blocks.

    Parameters
    ----------
    %(features)s

    Returns
    -------
    score : float or 0-d array
        The Davies-Bouldin score (a Python float for NumPy inputs, else a 0-d
        array on the device of ``X``).

    References
    ----------
    .. [1] D. L. Davies and D. W. Bouldin (1979). "A Cluster Separation Measure".
       IEEE Transactions on Pattern Analysis and Machine Intelligence 1(2): 224-227.

    Examples
    --------
    >>> from metrix import davies_bouldin_score
    >>> round(davies_bouldin_score([[0, 1], [1, 1], [3, 4]], [0, 0, 1]), 4)
    0.128
    """
    xp, Xw, codes, counts, k, centroids = _cluster_means(X, labels)
    dev = device_of(codes)
    point_dist = xp.sqrt(xp.sum((Xw - xp.take(centroids, codes, axis=0)) ** 2, axis=1))
    intra = ops(xp).scatter_add(codes, point_dist, length=k) / counts
    dist = Distances(centroids, "euclidean", xp=xp)
    rows = dist.rows_per_block(_WORKING_MEMORY_MIB * 2**20)
    ks = xp.arange(k, device=dev)
    worst, largest = [], []
    for start in range(0, k, rows):
        stop = min(k, start + rows)
        D = dist.block(start, stop)
        D = xp.where(ks[start:stop, None] == ks[None, :], xp.zeros_like(D), D)
        coincide = D == 0
        ratio = (intra[start:stop, None] + intra[None, :]) / xp.where(
            coincide, xp.ones_like(D), D)
        worst.append(xp.max(xp.where(coincide, xp.zeros_like(D), ratio), axis=1))
        largest.append(xp.max(D))
    scores = xp.concat(worst) if len(worst) > 1 else worst[0]
    degenerate = (xp.max(xp.abs(intra)) <= 1e-8) | (xp.max(xp.stack(largest)) <= 1e-8)
    score = xp.mean(scores)
    return xp.where(degenerate, xp.zeros_like(score), score)
