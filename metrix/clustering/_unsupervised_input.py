"""Input checks of the unsupervised clustering metrics: scikit-learn's ``check_X_y``,
its ``LabelEncoder`` and ``check_number_of_labels``, with its messages.

These metrics need the number of clusters on the host (it sizes the one-hot
and the per-cluster sums, and scikit-learn checks it), so the labels are read
once: host labels (strings, lists, NumPy) are encoded on the host, device
labels by one ``unique_inverse`` on their device.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

from .._core import namespace as _ns
from .._core.stacklevel import find_stack_level
from .._core.validation import assert_all_finite, dtype_kind, reject_complex
from ..backends import ops
from ..exceptions import DataConversionWarning, as_sklearn_too

__all__ = ["Clustering", "check_number_of_labels", "check_X", "encode_labels", "prepare",
           "work_dtype", "sample_indices", "check_sample_params", "reshape_message",
           "check_not_empty"]


class Clustering(NamedTuple):
    """Checked inputs: ``X`` (2-D, on ``device``), ``codes`` (``0..K-1``),
    ``counts`` (samples per cluster, int) and ``n_labels`` (``K``, a host int)."""

    X: Any
    codes: Any
    counts: Any
    n_labels: int
    xp: Any
    device: Any


def check_number_of_labels(n_labels: int, n_samples: int):
    """scikit-learn's check: ``2 <= n_labels <= n_samples - 1``."""
    if not 1 < n_labels < n_samples:
        raise ValueError(
            "Number of labels is %d. Valid values are 2 to n_samples - 1 (inclusive)"
            % n_labels)


def reshape_message(a, what):
    """scikit-learn's ``check_array`` message for a 0-d (``"scalar"``) or ``"1D"`` array."""
    return (f"Expected 2D array, got {what} array instead:\narray={a}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample.")


def check_not_empty(shape):
    """scikit-learn's ``check_array`` minimum of one sample and one feature (of a 2-D
    ``shape``, a tuple of ints)."""
    for size, what in zip(shape, ("sample", "feature")):
        if size < 1:
            raise ValueError(f"Found array with 0 {what}(s) (shape={shape}) while a minimum "
                             "of 1 is required.")


def check_X(X, *, xp, device):
    """``X`` as a 2-D numeric array of ``xp`` on ``device`` (scikit-learn's
    ``check_array``: complex, strings, dimensions, NaN / infinity, empty)."""
    if _ns.is_host_array(X):
        import numpy as np  # host input only (lists, NumPy)

        X = np.asarray(X)
        if X.dtype.kind in "USV":
            raise ValueError(
                "dtype='numeric' is not compatible with arrays of bytes/strings.Convert "
                "your data to numeric values explicitly instead.")
        if X.dtype.kind == "O":
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)  # one layout, one rounding (a CSC matrix comes as F)
    X = _ns.asarray(X, xp=xp, device=device)
    reject_complex(X, xp=xp)
    if X.ndim < 2:
        raise ValueError(reshape_message(X, "scalar" if X.ndim == 0 else "1D"))
    if X.ndim > 2:
        raise ValueError(f"Found array with dim {X.ndim}, while dim <= 2 is required.")
    assert_all_finite(X, xp=xp, input_name="X")  # host read: scikit-learn's check
    check_not_empty(tuple(int(s) for s in X.shape))
    return X


def work_dtype(X, metric, *, xp, device):
    """The float dtype distances are computed in: ``X``'s own float dtype for the
    metrics scikit-learn computes in it (euclidean, cosine, precomputed; at
    least float32), else the widest float (integer data; scikit-learn's SciPy
    metrics, which return float64)."""
    if (dtype_kind(X, xp) == "f"
            and metric in ("euclidean", "l2", "cosine", "precomputed", None)):
        return _ns.result_float_dtype(xp, device, X)
    return _ns.max_float_dtype(xp, device)


def _labels_1d(y, *, xp):
    shape = tuple(y.shape)
    if len(shape) == 1:
        return y
    if len(shape) == 2 and shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples, ), for example using ravel().",
            as_sklearn_too(DataConversionWarning), stacklevel=find_stack_level())
        return xp.reshape(y, (-1,))
    raise ValueError(f"y should be a 1d array, got an array of shape {shape} instead.")


def _host_encode(y):
    import numpy as np  # host labels only

    y = np.asarray(y)
    y = _labels_1d(y, xp=np)
    if y.dtype.kind == "f":
        assert_all_finite(y, xp=_ns.get_namespace_and_device(y)[0], input_name="y")
    if y.dtype.kind == "O":
        kinds = sorted({type(v).__name__ for v in y.tolist()})
        if len(kinds) > 1 and not all(k in ("int", "float", "bool") for k in kinds):
            raise TypeError("Encoders require their input argument must be uniformly "
                            f"strings or numbers. Got {kinds}")
    values, codes = np.unique(y, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), int(values.shape[0])


def encode_labels(labels, *, xp, device):
    """``(codes, counts, n_labels)`` of ``labels`` (scikit-learn's ``LabelEncoder``):
    codes ``0..K-1`` in the sorted order of the distinct labels, on ``device``."""
    cdt = _ns.count_dtype(xp, device)
    if _ns.is_host_array(labels):
        codes, k = _host_encode(labels)
        codes = _ns.asarray(codes, xp=xp, device=device, dtype=cdt)
    else:
        y = _ns.asarray(labels, xp=xp, device=device)
        reject_complex(y, xp=xp)
        y = _labels_1d(y, xp=xp)
        assert_all_finite(y, xp=xp, input_name="y")
        values, codes = ops(xp).unique_inverse(y)  # host read: the number of clusters
        k = int(values.shape[0])
        codes = xp.astype(codes, cdt)
    counts = ops(xp).bincount(codes, length=k)
    return codes, counts, k


def prepare(X, labels, *, metric=None) -> Clustering:
    """Checked, encoded inputs (scikit-learn's order: ``X``, then ``labels``, then
    their lengths; for ``"precomputed"`` the zero diagonal; then the number of
    labels)."""
    xp, device = _ns.get_namespace_and_device(X, labels)
    X = check_X(X, xp=xp, device=device)
    codes, counts, k = encode_labels(labels, xp=xp, device=device)
    n, m = int(X.shape[0]), int(codes.shape[0])
    if m != n:
        raise ValueError("Found input variables with inconsistent numbers of samples: "
                         f"{[n, m]}")
    if metric == "precomputed":
        check_zero_diagonal(X, xp=xp)
    check_number_of_labels(k, n)
    if metric == "precomputed":
        check_precomputed(X, xp=xp)
    X = xp.astype(X, work_dtype(X, metric, xp=xp, device=device), copy=False)
    return Clustering(X, codes, counts, k, xp, device)


def check_zero_diagonal(X, *, xp):
    """scikit-learn's check of a precomputed distance matrix's diagonal
    (``|d_ii| <= 100 eps`` for floats, ``0`` for integers; reads values)."""
    n = min(int(X.shape[0]), int(X.shape[1]))
    idx = xp.arange(n, device=_ns.device_of(X)) * (int(X.shape[1]) + 1)
    diag = xp.take(xp.reshape(X, (-1,)), idx)
    if dtype_kind(X, xp) == "f":
        bad = xp.any(xp.abs(diag) > xp.finfo(X.dtype).eps * 100)
    else:
        bad = xp.any(diag != 0)
    if bool(bad):  # host read: scikit-learn's check
        raise ValueError("The precomputed distance matrix contains non-zero elements on the "
                         "diagonal. Use np.fill_diagonal(X, 0).")


def check_precomputed(X, *, xp):
    """scikit-learn's ``pairwise_distances(metric="precomputed")`` checks: square,
    non-negative (reads values)."""
    n, m = int(X.shape[0]), int(X.shape[1])
    if m != n:
        raise ValueError("Precomputed metric requires shape (n_queries, n_indexed). Got "
                         f"({n}, {m}) for {n} indexed.")
    if bool(xp.any(X < 0)):  # host read: scikit-learn's check
        raise ValueError("Negative values in data passed to `pairwise_distances`. "
                         "Precomputed distance  need to have non-negative values.")


def check_sample_params(sample_size, random_state):
    """scikit-learn's parameter validation of ``sample_size`` and ``random_state``."""
    if sample_size is not None and (
            not isinstance(sample_size, numbers.Integral) or isinstance(sample_size, bool)
            or sample_size < 1):
        raise ValueError("The 'sample_size' parameter of silhouette_score must be an int in "
                         f"the range [1, inf) or None. Got {sample_size!r} instead.")
    import numpy as np  # scikit-learn's draw is NumPy's RandomState by definition

    ok = (random_state is None or isinstance(random_state, np.random.RandomState)
          or (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
              and 0 <= random_state <= 4294967295))
    if not ok:
        raise ValueError(
            "The 'random_state' parameter of silhouette_score must be an int in the range "
            "[0, 4294967295], an instance of 'numpy.random.mtrand.RandomState' or None. "
            f"Got {random_state!r} instead.")


def sample_indices(n_samples: int, sample_size: int, random_state):
    """scikit-learn's draw: ``check_random_state(random_state).permutation(n)[:size]``
    (host NumPy; the same indices as scikit-learn for the same seed)."""
    import numpy as np  # scikit-learn's draw is NumPy's RandomState by definition

    if random_state is None:
        rng = np.random.mtrand._rand
    elif isinstance(random_state, np.random.RandomState):
        rng = random_state
    else:
        rng = np.random.RandomState(random_state)
    return rng.permutation(n_samples)[:sample_size]
