"""SciPy sparse contingency matrices (NumPy only): ``contingency_matrix(sparse=True)``
and a sparse ``contingency=`` given to ``mutual_info_score``."""

from __future__ import annotations

import numpy as np

from .._core import namespace as _ns
from ._contingency import Table
from ._unsupervised_input import check_not_empty


def sparse_contingency(ct, cp, rows, cols, dtype):
    """The ``rows x cols`` CSR matrix of the code pairs ``(ct, cp)``: the non-zero
    cells from one ``unique`` of the pair codes (no dense matrix)."""
    from scipy import sparse

    codes = np.asarray(ct, dtype=np.int64) * cols + np.asarray(cp, dtype=np.int64)
    cells, counts = np.unique(codes, return_counts=True)
    table = sparse.csr_array((counts.astype(dtype), (cells // cols, cells % cols)),
                             shape=(rows, cols))
    # scikit-learn's default sparse interface ("spmatrix") turns what SciPy calls
    # an spmatrix into csr_matrix; SciPy < 1.11 calls sparse arrays spmatrix too,
    # so there scikit-learn returns the csr_array
    return table if sparse.isspmatrix(table) else sparse.csr_matrix(table)


def coo_table(contingency, *, validate):
    """The :class:`Table` of a SciPy sparse contingency matrix (as scikit-learn's
    ``check_array(accept_sparse=...)``, non-integer counts truncated), with the
    NumPy namespace, device None."""
    xp, _ = _ns.get_namespace_and_device(np.empty(0))
    coo = contingency.tocoo(copy=True)
    coo.sum_duplicates()
    shape = tuple(int(s) for s in coo.shape)
    check_not_empty(shape)
    data = np.asarray(coo.data)
    if validate and data.dtype.kind == "f" and not np.isfinite(data).all():
        kind = "NaN" if np.isnan(data).any() else (
            f"infinity or a value too large for {data.dtype!r}")
        raise ValueError(f"Input contains {kind}.")
    if data.dtype.kind not in "iu":
        data = data.astype(np.int64)
    row, col = np.asarray(coo.row, dtype=np.intp), np.asarray(coo.col, dtype=np.intp)
    a = np.bincount(row, weights=data, minlength=shape[0]).astype(data.dtype)
    b = np.bincount(col, weights=data, minlength=shape[1]).astype(data.dtype)
    return Table(n=data, n_on=data != 0, a_n=a[row], b_n=b[col], a=a,
                 a_on=np.ones(shape[0], dtype=bool), b=b, b_on=np.ones(shape[1], dtype=bool),
                 total=np.asarray(data.sum())), xp, None
