"""Consensus of two sets of biclusters (scikit-learn's ``consensus_score``).

A bicluster is a pair of indicator vectors, over the rows and over the
columns of a data matrix; a set of ``k`` biclusters is the tuple ``(rows,
columns)`` of two boolean arrays of shapes ``(k, n_rows)`` and ``(k,
n_columns)``.  The Jaccard similarity of biclusters ``i`` and ``j`` is the
size of the intersection of their cell sets over the size of the union,

.. math:: J_{ij} = \\frac{|R_i \\cap R_j|\\,|C_i \\cap C_j|}
          {|R_i||C_i| + |R_j||C_j| - |R_i \\cap R_j|\\,|C_i \\cap C_j|},

all pairs at once from two matrix products.  The score pairs the biclusters
one to one so that the similarities' sum is largest (Hungarian algorithm,
SciPy's ``linear_sum_assignment``, on the host) and divides by the larger
set's size (Hochreiter et al., 2010).
"""

from __future__ import annotations

from typing import Any, Callable

from .._core import namespace as _ns
from .._core.edge import metric_edge
from .._core.validation import check_consistent_length
from ..backends import ops

__all__ = ["consensus_score"]


def _biclusters(name, value, xp, device):
    if not isinstance(value, tuple):
        raise ValueError(f"The '{name}' parameter of consensus_score must be an instance of "
                         f"'tuple'. Got {value!r} instead.")
    if len(value) != 2:
        raise ValueError(f"{name} must be a tuple (rows, columns) of indicator arrays, "
                         f"got a tuple of {len(value)}")
    check_consistent_length(*value)
    return [_ns.asarray(v, xp=xp, device=device) for v in value]


def jaccard_similarities(a_rows, a_cols, b_rows, b_cols, *, xp, fdt):
    """``J[i, j]``, the Jaccard similarity of bicluster ``i`` of a and ``j`` of b."""
    ar, ac, br, bc = (xp.astype(v, fdt) for v in (a_rows, a_cols, b_rows, b_cols))
    inter = (ar @ xp.matrix_transpose(br)) * (ac @ xp.matrix_transpose(bc))
    size_a = xp.sum(ar, axis=-1) * xp.sum(ac, axis=-1)
    size_b = xp.sum(br, axis=-1) * xp.sum(bc, axis=-1)
    return inter / (size_a[:, None] + size_b[None, :] - inter)


def _pairwise(similarity, a_rows, a_cols, b_rows, b_cols, xp, fdt):
    """A user's ``similarity(a_rows, a_cols, b_rows, b_cols)``, pair by pair (its
    contract: one call per pair of biclusters)."""
    rows = [xp.stack([xp.astype(xp.asarray(similarity(a_rows[i], a_cols[i], b_rows[j],
                                                       b_cols[j])), fdt)
                      for j in range(b_rows.shape[0])])
            for i in range(a_rows.shape[0])]
    return xp.stack(rows)


@metric_edge
def consensus_score(a: tuple, b: tuple, *,
                    similarity: str | Callable[..., Any] = "jaccard") -> Any:
    """The similarity of two sets of biclusters.

    Each bicluster of the smaller set is paired with a different one of the
    other so that the sum of the pairs' similarities is largest; the score is
    that sum over the size of the larger set:

    .. math:: \\frac{1}{\\max(k_a, k_b)} \\max_{\\sigma} \\sum_i S_{i \\sigma(i)}

    Parameters
    ----------
    a : tuple (rows, columns)
        Boolean indicator arrays of shapes ``(k_a, n_rows)`` and
        ``(k_a, n_columns)``: row ``i`` of each marks bicluster ``i``.
    b : tuple (rows, columns)
        Another set of biclusters, as ``a``.
    similarity : "jaccard" or callable, default="jaccard"
        "jaccard": the Jaccard coefficient of the two biclusters' cell sets.
        A callable is called once per pair of biclusters as
        ``similarity(a_rows, a_columns, b_rows, b_columns)`` (1-D indicator
        vectors) and returns a number.

    Returns
    -------
    score : float or 0-d array
        In [0, 1] for the Jaccard similarity: a Python float for NumPy inputs,
        else a 0-d array in the inputs' namespace and on their device.  The
        pairing is computed on the host (a device sync).

    See Also
    --------
    metrix.adjusted_rand_score : The similarity of two flat clusterings.

    References
    ----------
    .. [1] S. Hochreiter et al., "FABIA: factor analysis for bicluster
       acquisition", Bioinformatics 26(12), 1520-1527 (2010).

    Examples
    --------
    >>> from metrix import consensus_score
    >>> a = [[True, True, False, False], [False, False, True, True]]
    >>> consensus_score((a, a), (a[::-1], a[::-1]))
    1.0
    """
    if not (callable(similarity) or similarity == "jaccard"):
        raise ValueError("The 'similarity' parameter of consensus_score must be a str among "
                         f"{{'jaccard'}} or a callable. Got {similarity!r} instead.")
    parts = (*a, *b) if isinstance(a, tuple) and isinstance(b, tuple) else ()
    xp, device = _ns.get_namespace_and_device(*parts)
    a_rows, a_cols = _biclusters("a", a, xp, device)
    b_rows, b_cols = _biclusters("b", b, xp, device)
    fdt = _ns.max_float_dtype(xp, device)
    if callable(similarity):
        matrix = _pairwise(similarity, a_rows, a_cols, b_rows, b_cols, xp, fdt)
    else:
        matrix = jaccard_similarities(a_rows, a_cols, b_rows, b_cols, xp=xp, fdt=fdt)
    rows, cols = ops(xp).min_cost_assignment(1.0 - matrix)
    picked = xp.take(xp.reshape(matrix, (-1,)), rows * matrix.shape[1] + cols)
    score = xp.sum(picked) / max(a_rows.shape[0], b_rows.shape[0])
    return score
