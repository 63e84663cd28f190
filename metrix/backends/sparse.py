"""SciPy sparse input of the pairwise functions: scikit-learn's sparse support
as adapter operations (host NumPy / SciPy, as scikit-learn computes it).

The pairwise functions find sparse input once, at their input edge
(:func:`metrix.pairwise._input.check_pairwise_arrays`, by duck typing:
:func:`is_sparse`), and then call the operations here.  The sparse structure
is kept: products are ``sparse @ sparse.T`` / ``sparse @ dense.T`` (scikit-learn's
``safe_sparse_dot``), row norms are read from the ``data`` array, manhattan
distances are summed over the stored entries.  Only the outputs
scikit-learn returns dense are dense (``N x M`` matrices); where scikit-learn
itself densifies an input the comment says so.

SciPy is imported lazily (a user who passes a sparse matrix has it), so
``import metrix`` does not import SciPy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["host_namespace", "is_sparse", "as_csr", "check_finite", "any_negative", "dot",
           "sq_row_norms", "normalize", "euclidean", "l1_operand", "manhattan", "cosine_similarity",
           "cosine_distances", "paired_euclidean", "paired_manhattan", "paired_cosine",
           "SparseDistances"]

#: memory budget of one block of the ``B x M`` temporaries, bytes
BLOCK_BYTES = 64 * 2**20


def host_namespace():
    """The namespace of NumPy arrays, which the sparse path computes in and returns."""
    from .._core.namespace import get_namespace_and_device

    return get_namespace_and_device(np.empty(0))


def is_sparse(x) -> bool:
    """Whether ``x`` is a SciPy sparse matrix or array (duck typing: no SciPy import)."""
    return hasattr(x, "tocsr") and hasattr(x, "nnz") and hasattr(x, "toarray")


def _sp():
    from scipy import sparse  # lazy: only sparse input reaches here

    return sparse


def as_csr(x, dtype=None):
    """``x`` in CSR format (scikit-learn's ``check_array(accept_sparse="csr")``: other
    formats converted, duplicates of COO summed), of ``dtype`` where given; a
    sparse array stays a sparse array, a sparse matrix a matrix."""
    x = x.tocsr()
    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    return x


def check_finite(x, allow_nan=False):
    """scikit-learn's finiteness check of a sparse matrix: its stored values."""
    data = x.data
    if data.dtype.kind != "f" or bool(np.isfinite(data).all()):
        return
    if bool(np.isnan(data).any()) and not allow_nan:
        raise ValueError("Input contains NaN.")
    if bool(np.isinf(data).any()):
        raise ValueError(f"Input contains infinity or a value too large for {data.dtype!r}.")


def any_negative(x) -> bool:
    """Whether a sparse (or NumPy) matrix holds a negative value (its stored values)."""
    data = x.data if is_sparse(x) else np.asarray(x)
    return bool((data < 0).any())


def dot(A, B, *, dense_output=True):
    """``A @ B.T``, scikit-learn's ``safe_sparse_dot(A, B.T, dense_output)``: a
    sparse result (both sparse, ``dense_output=False``) stays sparse; with a
    dense operand SciPy returns a dense array (a NumPy array, not ``np.matrix``)."""
    out = A @ B.T
    if is_sparse(out):
        if dense_output:
            return out.toarray()  # the N x M result scikit-learn returns dense
        return out
    return np.asarray(out)


def _row_ids(X):
    return np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))


def sq_row_norms(A):
    """Squared l2 norms of the rows: from the ``data`` array of a CSR matrix
    (summed in float64, in index order), ``einsum`` for a dense one
    (scikit-learn's ``row_norms``)."""
    if is_sparse(A):
        data = A.data
        return np.bincount(_row_ids(A), weights=(data * data).astype(np.float64),
                           minlength=A.shape[0])
    A = np.asarray(A)
    return np.einsum("ij,ij->i", A, A)


def normalize(A):
    """scikit-learn's l2 ``normalize``: sparse rows divided by their norm (rows of
    norm 0 left as they are, scikit-learn's ``inplace_csr_row_normalize_l2``),
    dense rows by theirs (norms below ``10 eps`` count as 1)."""
    if is_sparse(A):
        norms = np.sqrt(sq_row_norms(A))
        norms = np.where(norms == 0.0, 1.0, norms)
        out = A.copy()
        out.data = (A.data / np.repeat(norms, np.diff(A.indptr))).astype(A.dtype)
        return out
    A = np.asarray(A)
    norms = np.sqrt(np.einsum("ij,ij->i", A, A))
    norms = np.where(norms < 10 * np.finfo(norms.dtype).eps, 1.0, norms)
    return A / norms[:, None].astype(A.dtype)


def _rows(A, start, stop):
    return A[start:stop]


def _block_rows(n, m, budget=BLOCK_BYTES, item=8, temporaries=3):
    rows = max(1, budget // max(1, m * item * temporaries))
    return [(s, min(n, s + rows)) for s in range(0, n, rows)]


def _euclidean_block(Xb, Y, xx, yy):
    """Squared euclidean distances of a block of rows, scikit-learn's
    ``-2 X.Y + ||x||^2 + ||y||^2`` clipped at 0."""
    D = -2 * dot(Xb, Y)
    D += xx[:, None]
    D += yy[None, :]
    np.maximum(D, 0, out=D)
    return D


def euclidean(X, Y, *, same, x_sq=None, y_sq=None, squared=False):
    """scikit-learn's ``euclidean_distances`` with a sparse operand.

    float64: one ``-2 X @ Y.T`` product, norms added, clipped, diagonal zeroed
    (``same``), square root.  float32: the operands upcast to float64 (the
    sparse ones: their stored values only) and the product formed one block
    of rows at a time, each block rounded to float32 (scikit-learn's
    ``_euclidean_distances_upcast``; norms from the upcast rows unless float64
    norms are given)."""
    upcast = X.dtype == np.float32 or Y.dtype == np.float32
    if upcast:  # float64 norms given are used (float32 ones are dropped by the caller)
        X = X.astype(np.float64)
        Y = X if same else Y.astype(np.float64)
    xx = sq_row_norms(X) if x_sq is None else x_sq
    if same:  # scikit-learn: ``YY = XX.T`` when ``Y is X`` (Y_norm_squared unused)
        yy = xx
    else:
        yy = sq_row_norms(Y) if y_sq is None else y_sq
    n, m = X.shape[0], Y.shape[0]
    slices = _block_rows(n, m) if upcast else [(0, n)]
    blocks = []
    for start, stop in slices:
        D = _euclidean_block(_rows(X, start, stop), Y, xx[start:stop], yy)
        blocks.append(D.astype(np.float32) if upcast else D)
    D = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=0)
    if same:
        np.fill_diagonal(D, 0)
    return D if squared else np.sqrt(D, out=D)


def _l1_pairs(Xb, Yc):
    """For each stored entry of the rows ``Xb`` (CSR, index order) and each stored
    entry of ``Y`` in the same column (``Yc``: CSC): row of ``Xb``, row of ``Y``
    and the two values."""
    counts = np.diff(Yc.indptr)[Xb.indices]
    total = int(counts.sum())
    entry = np.repeat(np.arange(Xb.indices.shape[0]), counts)
    first = np.repeat(Yc.indptr[Xb.indices] - (np.cumsum(counts) - counts), counts)
    pos = first + np.arange(total)
    return (_row_ids(Xb)[entry], Yc.indices[pos], Xb.data[entry], Yc.data[pos])


def _l1_norms(A, n):
    return np.bincount(_row_ids(A), weights=np.abs(A.data).astype(np.float64), minlength=n)


def _csr_float(A):
    A = _sp().csr_array(A)
    return A if A.dtype.kind == "f" else A.astype(np.float64)


def l1_operand(Y):
    """``Y`` prepared for :func:`manhattan`: CSR of its float dtype (duplicates
    summed, indices sorted), its CSC copy and its rows' l1 norms (float64)."""
    Y = _csr_float(Y)
    Y.sum_duplicates()  # sorts the indices too
    Yc = Y.tocsc()
    Yc.sort_indices()
    return Yc, _l1_norms(Y, Y.shape[0])


def manhattan(X, Y, *, prepared=None):
    """scikit-learn's sparse ``manhattan_distances`` (float64; a dense operand made
    CSR, as scikit-learn's ``csr_array(Y)``: its zeros dropped, not densified).

    ``|x - y|_1 = |x|_1 + |y|_1 - sum_k (|x_k| + |y_k| - |x_k - y_k|)`` over the
    columns both rows store: the correction is summed over the pairs of
    stored entries that share a column (the work of the product ``X @ Y.T``),
    one block of rows of ``X`` at a time; a row's distance to an equal row is
    exactly 0 (the sums run in index order).  ``prepared``: :func:`l1_operand`
    of ``Y``, made once by a caller that asks for many blocks."""
    X = _csr_float(X)
    X.sum_duplicates()  # sorts the indices too
    Yc, ny = l1_operand(Y) if prepared is None else prepared
    n, m = X.shape[0], Yc.shape[0]
    nx = _l1_norms(X, n)
    # pairs of a row of X: stored entries of Y in its columns; blocks of rows
    # holding at most ``budget`` pairs (and B x M distances)
    per_row = np.bincount(_row_ids(X), weights=np.diff(Yc.indptr)[X.indices], minlength=n)
    limit = max(BLOCK_BYTES // 40, 1)
    rows_cap = max(1, BLOCK_BYTES // (8 * max(m, 1)))
    blocks, start = [], 0
    cum = np.concatenate([[0], np.cumsum(per_row)])
    while start < n:
        stop = int(np.searchsorted(cum, cum[start] + limit, side="right")) - 1
        stop = min(n, max(stop, start + 1), start + rows_cap)
        Xb = X[start:stop]
        i, j, a, b = _l1_pairs(Xb, Yc)
        # ``a - b`` in the data's float, as scikit-learn's ``_sparse_manhattan``
        # (float32 data: float32 differences, summed in float64)
        both = (np.abs(a).astype(np.float64) + np.abs(b).astype(np.float64)
                - np.abs(a - b).astype(np.float64))
        corr = np.bincount(i * m + j, weights=both,
                           minlength=(stop - start) * m).reshape(stop - start, m)
        blocks.append(np.maximum(nx[start:stop, None] + ny[None, :] - corr, 0.0))
        start = stop
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=0)


def cosine_similarity(X, Y, *, same, dense_output=True):
    """scikit-learn's ``cosine_similarity``: normalised rows, then
    ``safe_sparse_dot(Xn, Yn.T, dense_output)`` (sparse when both are and
    ``dense_output=False``, as a ``csr_matrix``: scikit-learn's default sparse
    interface)."""
    Xn = normalize(X)
    Yn = Xn if same else normalize(Y)
    K = dot(Xn, Yn, dense_output=dense_output)
    if is_sparse(K):
        sparse = _sp()
        return K if sparse.isspmatrix(K) else sparse.csr_matrix(K)
    return K


def cosine_distances(X, Y, *, same):
    """``clip(1 - cosine_similarity, 0, 2)``, zero diagonal when ``same``."""
    S = cosine_similarity(X, Y, same=same)
    S *= -1
    S += 1
    np.clip(S, 0.0, 2.0, out=S)
    if same:
        np.fill_diagonal(S, 0.0)
    return S


def paired_euclidean(X, Y):
    """``row_norms(X - Y)``; a dense operand makes ``X - Y`` dense (as in scikit-learn)."""
    diff = X - Y
    if is_sparse(diff):  # scikit-learn's ``csr_row_norms``: in the data's float
        return np.sqrt(sq_row_norms(diff.tocsr()).astype(diff.dtype))
    return np.sqrt(sq_row_norms(np.asarray(diff)))


def paired_manhattan(X, Y):
    """``|X - Y|`` summed over the columns; 1-D (scikit-learn squeezes a sparse
    difference's sums, and returns a dense difference's as an ``(n, 1)``
    ``np.matrix``: metrix returns the same values as an ``(n,)`` array)."""
    diff = X - Y
    if is_sparse(diff):
        diff = diff.tocsr()
        return np.bincount(_row_ids(diff), weights=np.abs(diff.data).astype(np.float64),
                           minlength=diff.shape[0]).astype(diff.dtype)
    return np.abs(np.asarray(diff)).sum(axis=-1)


def paired_cosine(X, Y):
    """``0.5 * row_norms(normalize(X) - normalize(Y), squared=True)``."""
    diff = normalize(X) - normalize(Y)
    if is_sparse(diff):  # scikit-learn's ``csr_row_norms``: in the data's float
        return 0.5 * sq_row_norms(diff.tocsr()).astype(diff.dtype)
    return 0.5 * sq_row_norms(np.asarray(diff))


class SparseDistances:
    """Row blocks of the distances with a sparse operand, the interface of
    :class:`metrix.pairwise._blocks.Distances` that ``pairwise_distances_chunked``
    and ``pairwise_distances_argmin(_min)`` read (``n``, ``rows_per_block``,
    ``block``, ``nearest``, ``zero_diagonal``).

    ``"euclidean"`` / ``"l2"`` / ``"sqeuclidean"`` (the latter only for
    ``squared=True`` of the euclidean metrics), ``"cosine"`` and ``"manhattan"``."""

    def __init__(self, X, metric, *, Y=None):
        self.metric = metric
        self.same = Y is None
        self.dtype = X.dtype
        self.X = X
        self.Y = X if Y is None else Y
        self.n = int(X.shape[0])
        self.m = int(self.Y.shape[0])
        # scikit-learn's ``ArgKmin`` takes no two sparse operands for "euclidean":
        # it reduces the chunks of ``pairwise_distances_chunked`` instead
        self.chunked = metric == "euclidean" and is_sparse(X) and is_sparse(self.Y)
        if metric in ("euclidean", "l2", "sqeuclidean"):
            up = self.dtype == np.float32 or self.Y.dtype == np.float32
            self.Xw = X.astype(np.float64) if up else X
            self.Yw = self.Xw if self.same else (self.Y.astype(np.float64) if up else self.Y)
            self.xx = sq_row_norms(self.Xw)
            self.yy = self.xx if self.same else sq_row_norms(self.Yw)
            self.up = up
        elif metric == "cosine":
            self.Xn = normalize(X)
            self.Yn = self.Xn if self.same else normalize(self.Y)
        else:
            self.l1 = l1_operand(self.Y)

    def rows_per_block(self, budget_bytes, *, temporaries=3):
        return int(max(1, min(self.n, budget_bytes // max(1, self.m * 8 * temporaries))))

    def block(self, start, stop, *, first=0):
        """Distances of rows ``start:stop`` of ``X`` to every row of ``Y``
        (scikit-learn's ``pairwise_distances`` of that chunk: no zeroed diagonal)."""
        metric = self.metric
        if metric in ("euclidean", "l2", "sqeuclidean"):
            D = _euclidean_block(_rows(self.Xw, start, stop), self.Yw, self.xx[start:stop],
                                 self.yy)
            if self.up:
                D = D.astype(np.float32)
            return D if metric == "sqeuclidean" else np.sqrt(D, out=D)
        if metric == "cosine":
            S = dot(_rows(self.Xn, start, stop), self.Yn)
            S *= -1
            S += 1
            return np.clip(S, 0.0, 2.0, out=S)
        return manhattan(_rows(self.X, start, stop), self.Y, prepared=self.l1)

    def nearest(self, start, stop, *, squared=False):
        """``(index, distance)`` of the nearest row of ``Y`` to each row
        ``start:stop`` (the first on ties); euclidean: ranked on
        ``||y||^2 - 2 x.y``, ``||x||^2`` added to the minimum only (scikit-learn's
        ``ArgKmin``), float32 data's distances rounded to float32, returned in
        float64 (cosine, and euclidean of two sparse operands: the distances of
        the chunks, in their dtype)."""
        if self.chunked:
            D = _euclidean_block(_rows(self.Xw, start, stop), self.Yw, self.xx[start:stop],
                                 self.yy)
            if self.up:
                D = D.astype(np.float32)
            if not squared:
                D = np.sqrt(D, out=D)
            idx = np.argmin(D, axis=1)
            return idx.astype(np.int64), D[np.arange(stop - start), idx]
        if self.metric in ("euclidean", "l2"):
            S = -2 * dot(_rows(self.Xw, start, stop), self.Yw)
            S += self.yy[None, :]
            idx = np.argmin(S, axis=1)
            low = S[np.arange(stop - start), idx]
            vals = np.maximum(low + self.xx[start:stop], 0.0)
            if not squared:
                vals = np.sqrt(vals)
        else:
            D = self.block(start, stop)
            idx = np.argmin(D, axis=1)
            vals = D[np.arange(stop - start), idx]
        if vals.dtype != self.dtype and self.dtype == np.float32:
            vals = vals.astype(np.float32)
        if self.metric == "cosine":
            return idx.astype(np.int64), vals
        return idx.astype(np.int64), vals.astype(np.float64)

    def zero_diagonal(self, D, start):
        """A copy of the block ``D`` of rows ``start:`` with ``D[i, start + i] = 0``."""
        D = np.array(D, copy=True)
        b = D.shape[0]
        D[np.arange(b), start + np.arange(b)] = 0
        return D
