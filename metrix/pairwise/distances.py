"""scikit-learn 1.9's pairwise and paired distances: ``euclidean_distances``,
``cosine_similarity``, ``cosine_distances``, ``manhattan_distances`` and the
``paired_*`` distances, on the inputs' namespace and device.

The ``N x M`` results are computed in row blocks of
:class:`~metrix.pairwise._blocks.Distances` (the machinery the silhouette
and ``pairwise_distances_argmin_min`` read), so the temporaries of a block
(the upcast rows of float32 data, the ``B x M x D`` differences of the
manhattan distance) stay within a fixed budget whatever the sizes.
"""

from __future__ import annotations

from .._core.edge import metric_edge
from .._core.namespace import asarray, max_float_dtype
from ..backends import ops
from ..backends import sparse as sparse_ops
from ._blocks import Distances, row_slices
from ._input import check_paired_arrays, check_pairwise_arrays, pair_doc, sparse_not_array_like

__all__ = ["euclidean_distances", "cosine_similarity", "cosine_distances",
           "manhattan_distances", "paired_euclidean_distances", "paired_manhattan_distances",
           "paired_cosine_distances", "paired_distances"]

#: memory budget of one block's temporaries, bytes
BLOCK_BYTES = 64 * 2**20


def full_matrix(dist: Distances, *, zero_diagonal=False, budget=None):
    """The whole ``N x M`` matrix of ``dist``, assembled from row blocks (one
    block when it fits); ``zero_diagonal``: the rows' distances to themselves
    zeroed (scikit-learn's ``fill_diagonal`` when ``Y is X``).

    The distances of ``X`` to itself (``dist.same``) are symmetric: a row
    block computes only the columns from its first row on, and takes the
    others from the earlier blocks, transposed (as scikit-learn's float32
    path does): half the products.
    """
    xp = dist.xp
    slices = row_slices(dist.n, dist.rows_per_block(BLOCK_BYTES if budget is None else budget))
    if len(slices) == 1 or not dist.same or dist.metric == "precomputed":
        blocks = []
        for start, stop in slices:
            D = dist.block(start, stop)
            blocks.append(dist.zero_diagonal(D, start) if zero_diagonal else D)
        return blocks[0] if len(blocks) == 1 else xp.concat(blocks, axis=0)

    def halves():
        for start, stop in slices:
            right = dist.block(start, stop, first=start)  # columns start:N
            yield start, stop, dist.zero_diagonal(right, 0) if zero_diagonal else right

    return ops(xp).assemble_rows(halves(), symmetric=True)


def _norms(norms, n, name, what, *, xp, device):
    """scikit-learn's check of ``X_norm_squared`` / ``Y_norm_squared``: shape
    ``(n,)``, ``(n, 1)`` or ``(1, n)``; returned 1-D (None for float32 norms,
    which scikit-learn recomputes from the upcast rows)."""
    if norms is None:
        return None
    a = asarray(norms, xp=xp, device=device)
    shape = tuple(int(s) for s in a.shape)
    if shape not in ((n,), (n, 1), (1, n)):
        expected = "X" if name == "X_norm_squared" else "Y"
        raise ValueError(f"Incompatible dimensions for {expected} of shape {what} and "
                         f"{name} of shape {shape}.")
    if a.dtype == xp.float32:
        return None
    return xp.reshape(xp.astype(a, max_float_dtype(xp, device), copy=False), (-1,))


@metric_edge(keep_sparse=True)
@pair_doc
def euclidean_distances(X, Y=None, *, Y_norm_squared=None, squared=False, X_norm_squared=None):
    """Euclidean distances between the rows of ``X`` and ``Y``.

    scikit-learn's expansion ``sqrt(dot(x, x) - 2 dot(x, y) + dot(y, y))``,
    clipped at 0.  float32 inputs are upcast to float64 one block of rows at
    a time (where the device has float64), as scikit-learn does, and the
    result is float32.  ``Y=None`` (or ``Y is X``): the diagonal is zero.

    Parameters
    ----------
    %(pair)s
    Y_norm_squared : array of shape (n_samples_Y,), default=None
        Precomputed ``(Y ** 2).sum(axis=1)`` (ignored when float32); ``(n, 1)`` and
        ``(1, n)`` shapes are accepted too.
    squared : bool, default=False
        Return squared euclidean distances.
    X_norm_squared : array of shape (n_samples_X,), default=None
        Precomputed ``(X ** 2).sum(axis=1)`` (ignored when float32); ``(n, 1)`` and
        ``(1, n)`` shapes are accepted too.

    Returns
    -------
    %(distances)s

    Examples
    --------
    >>> from metrix.pairwise import euclidean_distances
    >>> euclidean_distances([[0, 1], [1, 1]]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    return euclidean_pair(check_pairwise_arrays(X, Y), Y_norm_squared=Y_norm_squared,
                          squared=squared, X_norm_squared=X_norm_squared)


def euclidean_pair(pair, *, Y_norm_squared=None, squared=False, X_norm_squared=None):
    """:func:`euclidean_distances` of a checked pair."""
    xp, dev, X, Y = pair.xp, pair.device, pair.X, pair.Y
    x_sq = _norms(X_norm_squared, int(X.shape[0]), "X_norm_squared", tuple(X.shape), xp=xp,
                  device=dev)
    y_sq = _norms(Y_norm_squared, int(Y.shape[0]), "Y_norm_squared", tuple(Y.shape), xp=xp,
                  device=dev)
    if pair.sparse:
        return sparse_ops.euclidean(X, Y, same=pair.same, x_sq=x_sq, y_sq=y_sq,
                                    squared=squared)
    if pair.same and x_sq is not None and y_sq is None:
        y_sq = x_sq
    metric = "sqeuclidean" if squared else "euclidean"
    dist = Distances(X, metric, xp=xp, Y=None if pair.same else Y, upcast=True,
                     x_sq=x_sq, y_sq=y_sq, centre=False)
    return full_matrix(dist, zero_diagonal=pair.same)


@metric_edge(keep_sparse=True)
@pair_doc
def cosine_similarity(X, Y=None, dense_output=True):
    """Cosine similarity between the rows of ``X`` and ``Y``: the dot products
    of the l2-normalised rows (rows of norm 0 stay 0).

    Parameters
    ----------
    %(pair)s
    dense_output : bool, default=True
        With two SciPy sparse inputs, ``False`` returns a sparse ``csr_matrix``
        (scikit-learn's); otherwise the result is dense.

    Returns
    -------
    similarities : array of shape (n_samples_X, n_samples_Y)
        In the inputs' namespace and on their device.

    Examples
    --------
    >>> from metrix.pairwise import cosine_similarity
    >>> cosine_similarity([[1, 0], [1, 1]], [[1, 0]]).round(4).tolist()
    [[1.0], [0.7071]]
    """
    pair = check_pairwise_arrays(X, Y)
    if pair.sparse:  # sparse when both are and ``dense_output=False``, as scikit-learn
        return sparse_ops.cosine_similarity(pair.X, pair.Y, same=pair.same,
                                            dense_output=dense_output)
    dist = Distances(pair.X, "cosine", xp=pair.xp, Y=None if pair.same else pair.Y)
    return dist.X @ dist.YT


@metric_edge(keep_sparse=True)
@pair_doc
def cosine_distances(X, Y=None):
    """Cosine distances between the rows of ``X`` and ``Y``: ``1 -
    cosine_similarity``, clipped to ``[0, 2]``; ``Y=None``: zero diagonal.

    Parameters
    ----------
    %(pair)s

    Returns
    -------
    %(distances)s

    Examples
    --------
    >>> from metrix.pairwise import cosine_distances
    >>> cosine_distances([[1, 0], [0, 1]]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    return cosine_distances_pair(check_pairwise_arrays(X, Y))


def cosine_distances_pair(pair):
    """:func:`cosine_distances` of a checked pair."""
    if pair.sparse:
        return sparse_ops.cosine_distances(pair.X, pair.Y, same=pair.same)
    dist = Distances(pair.X, "cosine", xp=pair.xp, Y=None if pair.same else pair.Y)
    return full_matrix(dist, zero_diagonal=pair.same)


def manhattan_dtype(xp, device, dtype):
    """The dtype of manhattan distances: scikit-learn's NumPy path (SciPy's
    ``cdist``) returns float64; other libraries keep the inputs' float."""
    return max_float_dtype(xp, device) if ops(xp).float64_results else dtype


@metric_edge(keep_sparse=True)
@pair_doc
def manhattan_distances(X, Y=None):
    """L1 (city block) distances between the rows of ``X`` and ``Y``.

    Computed from the ``B x M x D`` absolute differences of a block of rows
    at a time.  NumPy results are float64 (scikit-learn's ``cdist``); other
    libraries keep the inputs' float dtype, as scikit-learn's array-API path.

    Parameters
    ----------
    %(pair)s

    Returns
    -------
    %(distances)s

    Examples
    --------
    >>> from metrix.pairwise import manhattan_distances
    >>> manhattan_distances([[1, 2], [3, 4]], [[1, 2], [0, 3]]).tolist()
    [[0.0, 2.0], [4.0, 4.0]]
    """
    return manhattan_pair(check_pairwise_arrays(X, Y))


def manhattan_pair(pair):
    """:func:`manhattan_distances` of a checked pair."""
    if pair.sparse:
        return sparse_ops.manhattan(pair.X, pair.Y)
    xp = pair.xp
    dt = manhattan_dtype(xp, pair.device, pair.X.dtype)
    Xw = xp.astype(pair.X, dt, copy=False)
    Yw = None if pair.same else xp.astype(pair.Y, dt, copy=False)
    return full_matrix(Distances(Xw, "manhattan", xp=xp, Y=Yw))


@metric_edge(keep_sparse=True)
@pair_doc
def paired_euclidean_distances(X, Y):
    """Euclidean distances between ``X[i]`` and ``Y[i]``.

    Parameters
    ----------
    %(paired)s

    Returns
    -------
    %(paired_distances)s

    Examples
    --------
    >>> from metrix.pairwise import paired_euclidean_distances
    >>> paired_euclidean_distances([[0, 0], [1, 1]], [[3, 4], [1, 1]]).tolist()
    [5.0, 0.0]
    """
    pair = check_paired_arrays(X, Y)
    if pair.sparse:
        return sparse_ops.paired_euclidean(pair.X, pair.Y)
    xp = pair.xp
    diff = pair.X - pair.Y
    return xp.sqrt(xp.sum(diff * diff, axis=1))


@metric_edge(keep_sparse=True)
@pair_doc
def paired_manhattan_distances(X, Y):
    """L1 distances between ``X[i]`` and ``Y[i]``.

    Parameters
    ----------
    %(paired)s

    Returns
    -------
    %(paired_distances)s

    Examples
    --------
    >>> from metrix.pairwise import paired_manhattan_distances
    >>> paired_manhattan_distances([[0, 0], [1, 1]], [[3, 4], [1, 2]]).tolist()
    [7.0, 1.0]
    """
    pair = check_paired_arrays(X, Y)
    if pair.sparse:
        return sparse_ops.paired_manhattan(pair.X, pair.Y)
    xp = pair.xp
    return xp.sum(xp.abs(pair.X - pair.Y), axis=-1)


@metric_edge(keep_sparse=True)
@pair_doc
def paired_cosine_distances(X, Y):
    """Cosine distances between ``X[i]`` and ``Y[i]``: half the squared euclidean
    distance of the l2-normalised rows.

    Parameters
    ----------
    %(paired)s

    Returns
    -------
    %(paired_distances)s

    Examples
    --------
    >>> from metrix.pairwise import paired_cosine_distances
    >>> paired_cosine_distances([[1, 0], [1, 1]], [[0, 1], [2, 2]]).round(4).tolist()
    [1.0, 0.0]
    """
    pair = check_paired_arrays(X, Y)
    if pair.sparse:
        return sparse_ops.paired_cosine(pair.X, pair.Y)
    xp = pair.xp
    Xn = Distances(pair.X, "cosine", xp=xp).X
    Yn = Distances(pair.Y, "cosine", xp=xp).X
    diff = Xn - Yn
    return 0.5 * xp.sum(diff * diff, axis=1)


PAIRED_DISTANCES = {
    "cosine": paired_cosine_distances,
    "euclidean": paired_euclidean_distances,
    "l2": paired_euclidean_distances,
    "l1": paired_manhattan_distances,
    "manhattan": paired_manhattan_distances,
    "cityblock": paired_manhattan_distances,
}


@metric_edge(keep_sparse=True)
@pair_doc
def paired_distances(X, Y, *, metric="euclidean", **kwds):
    """Compute the distances between ``X[i]`` and ``Y[i]`` for a metric string or callable.

    Parameters
    ----------
    %(paired)s
    metric : str or callable, default="euclidean"
        One of ``"euclidean"``, ``"l2"``, ``"l1"``, ``"manhattan"``,
        ``"cityblock"``, ``"cosine"``, or a function of two rows returning a
        number (called once per pair).
    **kwds : dict
        Unused (scikit-learn's signature).

    Returns
    -------
    %(paired_distances)s

    Examples
    --------
    >>> from metrix.pairwise import paired_distances
    >>> paired_distances([[0, 1], [1, 1]], [[0, 1], [2, 1]]).tolist()
    [0.0, 1.0]
    """
    sparse_not_array_like("paired_distances", X=X, Y=Y)  # scikit-learn: array-likes only
    if isinstance(metric, str) and metric in PAIRED_DISTANCES:
        return PAIRED_DISTANCES[metric](X, Y)
    if callable(metric) and not isinstance(metric, str):
        pair = check_paired_arrays(X, Y)
        xp = pair.xp
        wide = max_float_dtype(xp, pair.device)
        # a user function of two rows: called once per pair, as scikit-learn does
        values = [xp.asarray(metric(pair.X[i, ...], pair.Y[i, ...]), dtype=wide,
                             device=pair.device) for i in range(int(pair.X.shape[0]))]
        return xp.stack(values)
    listed = "{" + ", ".join(repr(m) for m in sorted(PAIRED_DISTANCES)) + "}"
    raise ValueError(f"The 'metric' parameter of paired_distances must be a str among "
                     f"{listed} or a callable. Got {metric!r} instead.")
