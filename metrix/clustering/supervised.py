"""Supervised clustering metrics: a clustering scored against reference labels.

Every score is a formula on one contingency table (cells ``n_ij``, row
marginals ``a_i``, column marginals ``b_j``; :mod:`._contingency`), counted on
the inputs' device with no ``C_true x C_pred`` allocation for many clusters.
Labels may be of any type scikit-learn takes (strings: NumPy only) and need
not be ``0..K-1``.  With ``validate=False`` every score except
``adjusted_mutual_info_score`` (whose expected mutual information has a
data-dependent number of terms) and ``contingency_matrix`` (a data-dependent
shape) reads nothing on the host and traces under ``jax.jit``.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .._core import namespace as _ns
from .._core.docstrings import sections
from .._core.edge import metric_edge
from .._core.namespace import to_output
from .._core.typing import Array, ArrayLike
from .._core.validation import assert_all_finite, check_consistent_length, numpy_bool_name
from ..backends import ops
from . import _scores
from ._contingency import (
    Table,
    as_codes,
    check_clusterings,
    dense_counts,
    label_table,
    matrix_table,
)
from ._emi import expected_mutual_information
from ._sparse import coo_table, sparse_contingency
from ._unsupervised_input import check_not_empty, reshape_message

__all__ = [
    "contingency_matrix",
    "pair_confusion_matrix",
    "rand_score",
    "adjusted_rand_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "adjusted_mutual_info_score",
    "homogeneity_score",
    "completeness_score",
    "v_measure_score",
    "homogeneity_completeness_v_measure",
    "fowlkes_mallows_score",
]

_AVERAGES = ("arithmetic", "geometric", "max", "min")

_PARTITION = """
    labels_true : array-like of shape (n_samples,)
        A clustering of the data into disjoint subsets{}.
    labels_pred : array-like of shape (n_samples,)
        A clustering of the data into disjoint subsets{}."""

_doc = sections(
    partitions=_PARTITION.format("", ""),
    partitions_uv=_PARTITION.format(", ``U``", ", ``V``"),
    average_method="""
    average_method : {'min', 'geometric', 'arithmetic', 'max'}, default='arithmetic'
        How to compute the normalizer in the denominator.""",
    labels="""
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels to be used as a reference.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels to evaluate.""",
    validate="""
    validate : bool, default=True
        Check the inputs' values (a host read).""",
    hubert_arabie="""
    References
    ----------
    .. [1] L. Hubert and P. Arabie, "Comparing partitions", Journal of
       Classification 2, 193-218 (1985).""",
    rosenberg_hirschberg="""
    References
    ----------
    .. [1] A. Rosenberg and J. Hirschberg, "V-Measure: A conditional
       entropy-based external cluster evaluation measure", EMNLP-CoNLL (2007).""",
    vinh="""
    References
    ----------
    .. [1] N. X. Vinh, J. Epps and J. Bailey, "Information Theoretic Measures
       for Clusterings Comparison", JMLR 11, 2837-2854 (2010).""")


# -- shared plumbing -------------------------------------------------------------

def _check_average(method, func):
    if not isinstance(method, str) or method not in _AVERAGES:
        raise ValueError(f"The 'average_method' parameter of {func} must be a str among "
                         f"{{'arithmetic', 'geometric', 'max', 'min'}}. Got {method!r} instead.")


def _inputs(labels_true, labels_pred, func, validate):
    """Checked labels, namespace, device, result float dtype and the table
    (None for empty input)."""
    t, p, xp, device = check_clusterings(labels_true, labels_pred, func=func,
                                         validate=validate)
    fdt = _ns.max_float_dtype(xp, device)
    tab = label_table(t, p, xp=xp, device=device, validate=validate) if t.shape[0] else None
    return tab, xp, device, fdt


def _const(value, xp, device, fdt):
    return xp.asarray(value, dtype=fdt, device=device)


def _score(formula, labels_true, labels_pred, func, validate, *, empty=1.0):
    """``formula(tab, fdt, xp)`` of the labels' table as the metric's output;
    ``empty`` for empty labels."""
    tab, xp, device, fdt = _inputs(labels_true, labels_pred, func, validate)
    if tab is None:
        return to_output(_const(empty, xp, device, fdt), xp)
    return to_output(formula(tab, fdt, xp), xp)


# -- contingency and pair counts ----------------------------------------------------

@metric_edge
@_doc
def contingency_matrix(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                       eps: float | None = None, sparse: bool = False,
                       dtype=np.int64, validate: bool = True) -> Array:
    """Build a contingency matrix describing the relationship between labels.

    ``C[i, j]`` is the number of samples of true class ``i`` (the ``i``-th
    sorted distinct value of ``labels_true``) in predicted cluster ``j``: one
    ``bincount`` of ``K * code_true + code_pred``.

    Parameters
    ----------
    %(labels)s
    eps : float, default=None
        If a float, that value is added to all values in the contingency
        matrix (the result is then floating). If ``None``, nothing is adjusted.
    sparse : bool, default=False
        If True, return a SciPy sparse CSR matrix (NumPy inputs only; the
        non-zero cells come from a sort of the pair codes, never a dense
        matrix). Cannot be combined with ``eps``.
    dtype : numeric type, default=np.int64
        Output dtype (a NumPy dtype, or the input library's). Ignored if
        ``eps`` is not None.
    %(validate)s

    Returns
    -------
    contingency : array or sparse matrix of shape (n_classes_true, n_classes_pred)
        In the inputs' namespace and on their device (dense), or a SciPy CSR
        matrix (``sparse=True``).

    %(hubert_arabie)s

    Examples
    --------
    >>> from metrix import contingency_matrix
    >>> contingency_matrix([0, 0, 1, 1, 2, 2], [1, 0, 2, 1, 0, 2])
    array([[1, 1, 0],
           [0, 1, 1],
           [1, 0, 1]])
    """
    if eps is not None and (not isinstance(eps, numbers.Real) or isinstance(eps, bool)
                            or not eps >= 0):
        raise ValueError("The 'eps' parameter of contingency_matrix must be a float in the "
                         f"range [0.0, inf) or None. Got {eps!r} instead.")
    if not isinstance(sparse, (bool, np.bool_)):
        raise ValueError("The 'sparse' parameter of contingency_matrix must be an instance of "
                         f"'bool' or an instance of '{numpy_bool_name()}'. Got {sparse!r} instead.")
    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")
    xp, device = _ns.get_namespace_and_device(labels_true, labels_pred)
    t = _ns.asarray(labels_true, xp=xp, device=device)
    p = _ns.asarray(labels_pred, xp=xp, device=device)
    if t.ndim != 1 or p.ndim != 1:
        raise ValueError("coordinates and data arrays must be 1-D")
    check_consistent_length(t, p)
    adapter = ops(xp)
    classes, ct = adapter.unique_inverse(as_codes(t, xp))  # the class sets: a host read
    clusters, cp = adapter.unique_inverse(as_codes(p, xp))
    rows, cols = int(classes.shape[0]), int(clusters.shape[0])
    if sparse:
        if not _ns.is_host_array(t):  # SciPy's matrices take host (NumPy) arrays
            raise TypeError("contingency_matrix(sparse=True) returns a SciPy matrix: pass "
                            "NumPy inputs, or use sparse=False on this library.")
        return sparse_contingency(ct, cp, rows, cols, dtype)
    m = dense_counts(ct, cp, rows, cols, xp=xp)
    dt = _ns.library_dtype(dtype, xp, device)
    if dt is not None and dt != m.dtype:
        m = xp.astype(m, dt)
    if eps is None:
        return m
    if not _ns.has_kind(xp, m.dtype, "real floating"):  # as NumPy's int + float
        m = xp.astype(m, _ns.max_float_dtype(xp, device))
    return m + eps


@metric_edge
@_doc
def pair_confusion_matrix(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                          validate: bool = True) -> Array:
    """Pair confusion matrix arising from two clusterings.

    Over all ordered pairs of distinct samples: ``C[1, 1]`` pairs together in
    both clusterings, ``C[0, 1]`` together only in ``labels_pred``, ``C[1, 0]``
    only in ``labels_true``, ``C[0, 0]`` apart in both:

    .. math::

        C_{11} = \\sum_{ij} n_{ij}^2 - N, \\quad
        C_{01} = \\sum_j b_j^2 - \\sum_{ij} n_{ij}^2, \\quad
        C_{10} = \\sum_i a_i^2 - \\sum_{ij} n_{ij}^2

    Parameters
    ----------
    %(labels)s
    %(validate)s

    Returns
    -------
    C : array of shape (2, 2)
        Integer counts, in the inputs' namespace and on their device.

    %(hubert_arabie)s

    Examples
    --------
    >>> from metrix import pair_confusion_matrix
    >>> pair_confusion_matrix([0, 0, 1, 2], [0, 0, 1, 1])
    array([[8, 2],
           [0, 2]])
    """
    tab, xp, device, _ = _inputs(labels_true, labels_pred, "pair_confusion_matrix", validate)
    if tab is None:
        return xp.zeros((2, 2), dtype=_ns.count_dtype(xp, device), device=device)
    return _scores.pair_confusion(tab, xp)


@metric_edge
@_doc
def rand_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
               validate: bool = True) -> Array:
    """Rand index: the fraction of sample pairs on which two clusterings agree.

    .. math::

        RI = \\frac{C_{00} + C_{11}}{N (N - 1)}

    from :func:`pair_confusion_matrix` (1.0 when there is no pair).

    Parameters
    ----------
    %(labels)s
    %(validate)s

    Returns
    -------
    RI : float or 0-d array
        Between 0.0 and 1.0; a Python float for NumPy inputs, else a 0-d
        array in the inputs' namespace and on their device.

    References
    ----------
    .. [1] W. M. Rand, "Objective criteria for the evaluation of clustering
       methods", JASA 66, 846-850 (1971).

    Examples
    --------
    >>> from metrix import rand_score
    >>> round(rand_score([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.8333
    """
    return _score(_scores.rand_index, labels_true, labels_pred, "rand_score", validate)


@metric_edge
@_doc
def adjusted_rand_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                        validate: bool = True) -> Array:
    """Rand index adjusted for chance (Hubert & Arabie).

    .. math::

        ARI = \\frac{2 (C_{11} C_{00} - C_{10} C_{01})}
                   {(C_{11} + C_{10})(C_{10} + C_{00}) + (C_{11} + C_{01})(C_{01} + C_{00})}

    from :func:`pair_confusion_matrix`; 1.0 when ``C_{01} = C_{10} = 0``.

    Parameters
    ----------
    %(labels)s
    %(validate)s

    Returns
    -------
    ARI : float or 0-d array
        Between -0.5 and 1.0; near 0.0 for random labelings.

    %(hubert_arabie)s

    Examples
    --------
    >>> from metrix import adjusted_rand_score
    >>> round(adjusted_rand_score([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.5714
    """
    return _score(_scores.adjusted_rand, labels_true, labels_pred, "adjusted_rand_score",
                  validate)


# -- information-theoretic scores --------------------------------------------------

def _contingency_table(contingency, validate):
    """The :class:`Table` of a user's contingency matrix (dense or SciPy sparse),
    its namespace, device and float dtype."""
    if hasattr(contingency, "tocoo") and hasattr(contingency, "nnz"):
        return coo_table(contingency, validate=validate)
    if contingency is None or isinstance(contingency, (str, bytes, numbers.Number)):
        raise ValueError("The 'contingency' parameter of mutual_info_score must be an "
                         "array-like, a sparse array or matrix or None. "
                         f"Got {contingency!r} instead.")
    xp, device = _ns.get_namespace_and_device(contingency)
    m = _ns.asarray(contingency, xp=xp, device=device)
    if m.ndim > 2:  # scikit-learn's check_array
        raise ValueError(f"Found array with dim {m.ndim}. None expected <= 2.")
    if m.ndim != 2:
        raise ValueError(reshape_message(_ns.to_host(m), "scalar" if m.ndim == 0 else "1D"))
    check_not_empty(tuple(int(s) for s in m.shape))
    if validate:
        assert_all_finite(m, xp=xp)
    if not _ns.has_kind(xp, m.dtype, "integral"):
        m = xp.astype(m, _ns.count_dtype(xp, device))  # scikit-learn casts to int
    return matrix_table(m, xp=xp, all_rows=True), xp, device


@metric_edge
@_doc
def mutual_info_score(labels_true: ArrayLike | None, labels_pred: ArrayLike | None, *,
                      contingency: ArrayLike | None = None, validate: bool = True) -> Array:
    """Mutual Information between two clusterings.

    .. math::

        MI(U, V) = \\sum_{i,j} \\frac{n_{ij}}{N} \\log\\frac{N n_{ij}}{a_i b_j}

    in nats, over the non-empty cells of the contingency table.

    Parameters
    ----------
    %(partitions_uv)s
    contingency : {array-like, sparse matrix} of shape (n_classes_true, n_classes_pred), \
default=None
        A contingency matrix as :func:`contingency_matrix` gives. If given, it
        is used and the labels are ignored (non-integer counts are truncated,
        as scikit-learn does).
    %(validate)s

    Returns
    -------
    mi : float or 0-d array
        Mutual information, a non-negative value in nats.

    References
    ----------
    .. [1] T. M. Cover and J. A. Thomas, "Elements of Information Theory",
       Wiley (2006), chapter 2.

    Examples
    --------
    >>> from metrix import mutual_info_score
    >>> round(mutual_info_score([0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1]), 4)
    0.0566
    """
    if contingency is None:
        tab, xp, device, _ = _inputs(labels_true, labels_pred, "mutual_info_score", validate)
        if tab is None:
            raise ValueError("math domain error")  # scikit-learn's log(0)
    else:
        tab, xp, device = _contingency_table(contingency, validate)
        if validate and int(tab.total) == 0:
            raise ValueError("math domain error")
    return to_output(_scores.mutual_info(tab, _ns.max_float_dtype(xp, device), xp), xp)


@metric_edge
@_doc
def normalized_mutual_info_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                 average_method: str = "arithmetic",
                                 validate: bool = True) -> Array:
    """Normalized Mutual Information between two clusterings.

    .. math::

        NMI(U, V) = \\frac{MI(U, V)}{\\operatorname{mean}(H(U), H(V))}

    with the mean given by ``average_method`` and ``H(U) = -\\sum_i (a_i / N)
    \\log(a_i / N)``.  Not adjusted for chance.

    Parameters
    ----------
    %(partitions)s
    %(average_method)s
    %(validate)s

    Returns
    -------
    nmi : float or 0-d array
        Between 0.0 and 1.0; 1.0 for a perfect match.

    %(vinh)s

    Examples
    --------
    >>> from metrix import normalized_mutual_info_score
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    _check_average(average_method, "normalized_mutual_info_score")
    nmi = functools.partial(_scores.normalized_mutual_info, method=average_method)
    return _score(nmi, labels_true, labels_pred, "normalized_mutual_info_score", validate)


@metric_edge
@_doc
def adjusted_mutual_info_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                               average_method: str = "arithmetic",
                               validate: bool = True) -> Array:
    """Adjusted Mutual Information between two clusterings.

    .. math::

        AMI(U, V) = \\frac{MI(U, V) - E[MI(U, V)]}
                         {\\operatorname{mean}(H(U), H(V)) - E[MI(U, V)]}

    with the expected mutual information under the permutation model
    (:mod:`metrix.clustering._emi`: log-gamma terms summed over the distinct
    marginal pairs, vectorised).  Reads the number of terms on the host.

    Parameters
    ----------
    %(partitions_uv)s
    %(average_method)s
    %(validate)s

    Returns
    -------
    ami : float or 0-d array
        At most 1.0 (identical partitions); about 0 for random ones.

    %(vinh)s

    Examples
    --------
    >>> from metrix import adjusted_mutual_info_score
    >>> adjusted_mutual_info_score([0, 0, 0, 0], [0, 1, 2, 3])
    0.0
    """
    _check_average(average_method, "adjusted_mutual_info_score")
    tab, xp, device, fdt = _inputs(labels_true, labels_pred, "adjusted_mutual_info_score",
                                   validate)
    if tab is None:
        return to_output(_const(1.0, xp, device, fdt), xp)
    return to_output(adjusted_mutual_info(tab, fdt, xp, method=average_method), xp)


def adjusted_mutual_info(tab: Table, fdt, xp, *, method):
    """AMI of a table: 1.0 for one class and one cluster (or none: no sample),
    0.0 for one of either (host reads: the numbers of classes, and of the
    expected MI's terms)."""
    rows, cols = (int(v) for v in _scores.n_classes(tab, xp))  # host read
    if rows <= 1 or cols <= 1:
        return _const(1.0 if rows == cols else 0.0, xp, _ns.device_of(tab.total), fdt)
    mi = _scores.mutual_info(tab, fdt, xp)
    emi = expected_mutual_information(tab.a, tab.a_on, tab.b, tab.b_on, int(tab.total),
                                      xp=xp, fdt=fdt)
    h_true, h_pred = _scores.entropies(tab, fdt, xp)
    eps = xp.finfo(fdt).eps
    den = _scores.generalized_average(h_true, h_pred, method, xp) - emi
    num = mi - emi
    den = xp.where(den < 0, xp.minimum(den, -eps), xp.maximum(den, eps))
    num = xp.where(num < 0, xp.minimum(num, -eps), xp.maximum(num, eps))
    return num / den


def _hcv(labels_true, labels_pred, beta, func, validate):
    """Homogeneity, completeness and V-measure, as the metrics' outputs."""
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not beta >= 0:
        raise ValueError(f"The 'beta' parameter of {func} must be a float in the range "
                         f"[0.0, inf). Got {beta!r} instead.")
    tab, xp, device, fdt = _inputs(labels_true, labels_pred, func, validate)
    if tab is None:
        one = to_output(_const(1.0, xp, device, fdt), xp)
        return one, one, one
    h, c, v = _scores.homogeneity_completeness(tab, float(beta), fdt, xp)
    if beta == 0 and validate and bool(c == 0) and bool(h != 0):
        raise ZeroDivisionError("float division by zero")  # as scikit-learn
    return to_output(h, xp), to_output(c, xp), to_output(v, xp)


@metric_edge
@_doc
def homogeneity_completeness_v_measure(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                                       beta: float = 1.0, validate: bool = True):
    """Compute the homogeneity and completeness and V-Measure scores at once.

    .. math::

        h = \\frac{MI(C, K)}{H(C)}, \\quad c = \\frac{MI(C, K)}{H(K)}, \\quad
        v = \\frac{(1 + \\beta) h c}{\\beta h + c}

    (``h = 1`` where ``H(C) = 0``, ``c = 1`` where ``H(K) = 0``, ``v = 0``
    where ``h + c = 0``).

    Parameters
    ----------
    %(labels)s
    beta : float, default=1.0
        Weight of completeness against homogeneity in the V-measure.
    %(validate)s

    Returns
    -------
    homogeneity : float or 0-d array
        Between 0.0 and 1.0.
    completeness : float or 0-d array
        Between 0.0 and 1.0.
    v_measure : float or 0-d array
        The weighted harmonic mean of the first two.

    %(rosenberg_hirschberg)s

    Examples
    --------
    >>> from metrix import homogeneity_completeness_v_measure
    >>> h, c, v = homogeneity_completeness_v_measure([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])
    >>> round(h, 3), round(c, 3), round(v, 3)
    (0.71, 0.772, 0.74)
    """
    return _hcv(labels_true, labels_pred, beta, "homogeneity_completeness_v_measure", validate)


@metric_edge
@_doc
def homogeneity_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                      validate: bool = True) -> Array:
    """Homogeneity of a cluster labeling given a ground truth: ``MI(C, K) / H(C)``.

    Each cluster holds members of a single class exactly when it is 1.0
    (1.0 where ``H(C) = 0``).

    Parameters
    ----------
    %(labels)s
    %(validate)s

    Returns
    -------
    homogeneity : float or 0-d array
        Between 0.0 and 1.0.

    %(rosenberg_hirschberg)s

    Examples
    --------
    >>> from metrix import homogeneity_score
    >>> round(homogeneity_score([0, 0, 1, 1], [0, 0, 1, 2]), 6)
    1.0
    """
    return _hcv(labels_true, labels_pred, 1.0, "homogeneity_score", validate)[0]


@metric_edge
@_doc
def completeness_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                       validate: bool = True) -> Array:
    """Completeness of a cluster labeling given a ground truth: ``MI(C, K) / H(K)``.

    All members of each class are in one cluster exactly when it is 1.0
    (1.0 where ``H(K) = 0``).

    Parameters
    ----------
    %(labels)s
    %(validate)s

    Returns
    -------
    completeness : float or 0-d array
        Between 0.0 and 1.0.

    %(rosenberg_hirschberg)s

    Examples
    --------
    >>> from metrix import completeness_score
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return _hcv(labels_true, labels_pred, 1.0, "completeness_score", validate)[1]


@metric_edge
@_doc
def v_measure_score(labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0,
                    validate: bool = True) -> Array:
    """V-measure: ``(1 + beta) h c / (beta h + c)`` of homogeneity ``h`` and
    completeness ``c`` (equal to NMI with the arithmetic mean for ``beta=1``).

    Parameters
    ----------
    %(labels)s
    beta : float, default=1.0
        Weight of completeness against homogeneity.
    %(validate)s

    Returns
    -------
    v_measure : float or 0-d array
        Between 0.0 and 1.0.

    %(rosenberg_hirschberg)s

    Examples
    --------
    >>> from metrix import v_measure_score
    >>> round(v_measure_score([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.8
    """
    return _hcv(labels_true, labels_pred, beta, "v_measure_score", validate)[2]


@metric_edge
@_doc
def fowlkes_mallows_score(labels_true: ArrayLike, labels_pred: ArrayLike, *,
                          validate: bool = True) -> Array:
    """Measure the similarity of two clusterings (Fowlkes-Mallows index).

    The geometric mean of the pairwise precision and recall:

    .. math::

        FMI = \\frac{TP}{\\sqrt{(TP + FP)(TP + FN)}}, \\quad
        TP = \\sum_{ij} n_{ij}^2 - N, \\;
        TP + FP = \\sum_j b_j^2 - N, \\;
        TP + FN = \\sum_i a_i^2 - N

    (0.0 where ``TP = 0``).

    Parameters
    ----------
    %(partitions)s
    %(validate)s

    Returns
    -------
    score : float or 0-d array
        Between 0.0 and 1.0.

    References
    ----------
    .. [1] E. B. Fowlkes and C. L. Mallows, "A method for comparing two
       hierarchical clusterings", JASA 78, 553-569 (1983).

    Examples
    --------
    >>> from metrix import fowlkes_mallows_score
    >>> fowlkes_mallows_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return _score(_scores.fowlkes_mallows, labels_true, labels_pred, "fowlkes_mallows_score",
                  validate, empty=0.0)
