"""The fused count of integer label pairs behind NumPy's (and torch CPU's)
``pair_bincount``, ``pair_bincount_discover`` and ``pair_bincount_declared``.

The input is read in cache-sized chunks; each chunk's codes ``a * size + b``
are counted while they are in cache (they never go to memory).  The loops are
written once over a small kernel of array calls (``NumpyKernel`` here; the
torch adapter's ``TorchKernel`` runs them on CPU tensors with torch's ops).

On NumPy, large inputs are split into contiguous parts counted on separate
threads (:mod:`._threads`): the code arithmetic releases the GIL, so one
part's ufuncs run while another part's ``bincount`` holds it.  The counts are
integers, so the split changes no result.
"""

from __future__ import annotations

import math

import numpy as np

from ._threads import run_parts, split_points

#: elements per chunk: a chunk's codes (1 MiB) stay in L2/L3 while few enough
#: Python-level calls remain
CHUNK = 1 << 17
#: cells of the two-sample joint count of ``PairCount`` (128 KiB, in L2):
#: matrices up to 11 x 11 count two samples per increment
_JOINT_CELLS = 1 << 14
#: the fewest elements a thread counts (~2 ms of work against ~50 us to start it)
_MIN_PER_THREAD = 1 << 21


class NumpyKernel:
    """The array calls of the pair count on NumPy (``PairCount`` and the loops
    take the library's kernel; the torch adapter has its own, ``TorchKernel``)."""

    #: elements per chunk (see ``CHUNK``)
    chunk = CHUNK

    @staticmethod
    def zeros(n):
        return np.zeros(n, dtype=np.int64)

    @staticmethod
    def empty(n, dtype):
        return np.empty(n, dtype=dtype)

    @staticmethod
    def code_dtype(dtype, cells):
        """The narrowest integer dtype, no narrower than the labels' ``dtype``,
        that holds codes below ``cells``: narrow labels are not widened to
        ``intp`` (a cast that costs more than the arithmetic), and ``bincount``
        takes any of them."""
        dtype = np.dtype(dtype)
        for t in (dtype, np.dtype(np.int16), np.dtype(np.int32)):
            if (t.kind in "iu" and t.itemsize >= dtype.itemsize and np.can_cast(t, np.intp)
                    and np.iinfo(t).max >= cells - 1):
                return t
        return np.dtype(np.intp)

    @staticmethod
    def codes(x, y, size, out):
        """``out = x * size + y`` (two in-cache passes, in ``out``'s dtype)."""
        np.multiply(x, size, out=out, dtype=out.dtype, casting="unsafe")
        return np.add(out, y, out=out, dtype=out.dtype, casting="unsafe")

    @staticmethod
    def bincount(codes, minlength):
        return np.bincount(codes, minlength=minlength)

    @staticmethod
    def unsigned_max(x):
        """``max(x)`` of integers viewed as unsigned (negatives are the largest)."""
        return int(as_unsigned(x).max())

    @staticmethod
    def other(x, n, out):
        """``x`` with labels outside ``[0, n)`` set to ``n``, into ``out``."""
        return codes_or_other_numpy(x, n, out)


class PairCount:
    """The count of ``(a, b)`` pairs, chunk by chunk: each chunk's codes
    ``a * size + b`` go to one reused buffer.

    Small matrices (``size**4 <= _JOINT_CELLS``) count two samples per
    increment: the codes of a chunk's two halves are joined, ``c1 * size**2 +
    c2``, into a ``size**4``-cell joint count, marginalised once at the end
    (``counts``).  A ``bincount`` increment (~1 ns) is what the count costs; the
    join is one or two in-cache passes over half the chunk.  ``kernel`` makes
    the array calls (``NumpyKernel``; torch CPU tensors take ``TorchKernel``).
    The codes are made in the narrowest dtype that holds them (``code_dtype``
    of the ``labels``' dtype and the largest side, ``most``, the matrix grows to).
    """

    def __init__(self, n, size=0, kernel=NumpyKernel, labels=np.intp, most=0):
        self.k = kernel
        m, cells = min(kernel.chunk, n), max(size, most) ** 2
        self.buf = kernel.empty(m, kernel.code_dtype(labels, cells))
        self.half = kernel.empty(m // 2, kernel.code_dtype(self.buf.dtype, cells * cells))
        self.size = 0
        self.flat = self.joint = None
        self.resize(size)

    def resize(self, size):
        """Grow the matrix to ``size x size``; the counts so far keep their cells."""
        if size <= self.size:
            return
        flat = self.k.zeros(size * size)
        if self.size:
            old = self.size
            flat.reshape(size, size)[:old, :old] = self.counts().reshape(old, old)
        self.size, self.flat = size, flat
        cells = size * size
        self.joint = self.k.zeros(cells * cells) if cells * cells <= _JOINT_CELLS else None

    def add(self, x, y):
        """Count the pairs of one chunk (``len(x) <= kernel.chunk``)."""
        size, m, k = self.size, x.shape[0], self.k
        c = k.codes(x, y, size, self.buf[:m])
        cells = size * size
        if self.joint is None or m < 2:
            self.flat += k.bincount(c, cells)
            return
        h = m // 2
        j = k.codes(c[:h], c[h:2 * h], cells, self.half[:h])
        self.joint += k.bincount(j, cells * cells)
        if m % 2:
            self.flat[c[-1]] += 1

    def counts(self):
        """The flat ``size * size`` counts (int64)."""
        if self.joint is None:
            return self.flat
        cells = self.size * self.size
        joint = self.joint.reshape(cells, cells)
        return self.flat + joint.sum(0) + joint.sum(1)


def chunk_pairs(a, b, chunk):
    """The aligned chunks ``(a[s:s + chunk], b[s:s + chunk])``."""
    for s in range(0, a.shape[0], chunk):
        yield a[s:s + chunk], b[s:s + chunk]


def in_parts(count, a, b, threads=None):
    """``count(a_part, b_part)`` for each part of a chunk-aligned split of the
    input (one part below ``2 * _MIN_PER_THREAD`` elements or on one thread)."""
    cuts = split_points(a.shape[0], min_part=_MIN_PER_THREAD, align=CHUNK, threads=threads)
    return run_parts(count, [(a[s:e], b[s:e]) for s, e in zip(cuts, cuts[1:])])


def count_chunks(a, b, size, kernel=NumpyKernel):
    """The flat ``size * size`` counts of the pairs of ``a`` and ``b`` (labels in
    ``[0, size)``)."""
    counter = PairCount(a.shape[0], size, kernel, _labels_dtype(a, b))
    for x, y in chunk_pairs(a, b, kernel.chunk):
        counter.add(x, y)
    return counter.counts()


def discover_and_count(a, b, max_size, kernel=NumpyKernel):
    """The chunked loop of ``pair_bincount_discover``: ``(flat counts, size)``.

    Each chunk's maximum (of the labels viewed as unsigned: a negative one is
    huge) is read while it is in the cache; a chunk with a larger label grows
    the count matrix, a negative label or a range over ``max_size`` stops the
    loop (None).
    """
    counter = PairCount(a.shape[0], 0, kernel, _labels_dtype(a, b), max_size)
    for x, y in chunk_pairs(a, b, kernel.chunk):
        need = max(kernel.unsigned_max(x), kernel.unsigned_max(y)) + 1
        if need > counter.size:
            if need > max_size:
                return None
            counter.resize(need)
        counter.add(x, y)
    return counter.counts(), counter.size


def count_declared(a, b, n, kernel=NumpyKernel):
    """The chunked loop of ``pair_bincount_declared``: the flat ``(n + 1)**2``
    counts, "other" labels (outside ``[0, n)``) in row / column ``n``.

    A chunk whose labels are all in ``[0, n)`` (the unsigned maxima, read while
    it is in cache) is counted as is; others take their codes first, into
    buffers made at the first such chunk and reused.
    """
    counter = PairCount(a.shape[0], n + 1, kernel, _labels_dtype(a, b))
    bufs = None
    for x, y in chunk_pairs(a, b, kernel.chunk):
        if max(kernel.unsigned_max(x), kernel.unsigned_max(y)) >= n:
            if bufs is None:
                m = min(kernel.chunk, a.shape[0])
                bufs = kernel.empty(m, a.dtype), kernel.empty(m, b.dtype)
            k = x.shape[0]
            x, y = kernel.other(x, n, bufs[0][:k]), kernel.other(y, n, bufs[1][:k])
        counter.add(x, y)
    return counter.counts()


def _labels_dtype(a, b):
    """The dtype both label arrays fit (the codes' narrowest start)."""
    return a.dtype if a.dtype == b.dtype else np.promote_types(a.dtype, b.dtype)


def merge_discovered(found):
    """One ``(flat counts, size)`` from the parts' (None where any part is)."""
    if any(f is None for f in found):
        return None
    if len(found) == 1:
        return found[0]
    size = max(s for _, s in found)
    total = np.zeros((size, size), dtype=np.int64)
    for flat, s in found:
        total[:s, :s] += flat.reshape(s, s)
    return total.reshape(-1), size


def fits_chunked_count(a, size) -> bool:
    """Whether the chunked count pays: 1-D input over one chunk, a matrix whose
    counts (``size**2`` int64, added per chunk) are small beside a chunk."""
    return a.ndim == 1 and a.shape[0] > CHUNK and size * size * 8 <= CHUNK


#: the largest matrix side the chunked discovery grows to (its counts are
#: added per chunk, so they stay small beside one)
MAX_DISCOVERED = math.isqrt(CHUNK // 8)


def pair_bincount_numpy(a, b, size, threads=None):
    """Unweighted :meth:`GenericOps.pair_bincount` fused in cache-sized chunks
    (``PairCount``: the codes never go to memory, which halves the traffic of
    "codes, then bincount"); None off its fast path (small inputs, matrices
    over a chunk's size)."""
    if not fits_chunked_count(a, size) or a.dtype.kind not in "iub" or b.dtype.kind not in "iub":
        return None
    return sum(in_parts(lambda x, y: count_chunks(x, y, size), a, b, threads))


def pair_bincount_discover_numpy(a, b, max_size, threads=None):
    """NumPy's :meth:`GenericOps.pair_bincount_discover` (None off its fast path)."""
    if not fits_chunked_count(a, 1) or not _integers(a, b):
        return None
    max_size = min(max_size, MAX_DISCOVERED)
    return merge_discovered(in_parts(lambda x, y: discover_and_count(x, y, max_size),
                                     a, b, threads))


def pair_bincount_declared_numpy(a, b, n, threads=None):
    """NumPy's :meth:`GenericOps.pair_bincount_declared` (None off its fast path)."""
    if not fits_chunked_count(a, n + 1) or not _integers(a, b):
        return None
    return sum(in_parts(lambda x, y: count_declared(x, y, n), a, b, threads))


def _integers(*arrays) -> bool:
    """Integer or bool labels of any width: each chunk's codes are made in the
    narrowest dtype that holds them (``NumpyKernel.code_dtype``), so narrow
    labels are counted as they are, with no widened copy of the input."""
    return all(a.dtype.kind in "iub" for a in arrays)


def as_unsigned(x):
    """Signed integers viewed as unsigned (negatives become the largest values)."""
    return x.view(x.dtype.str.replace("i", "u")) if x.dtype.kind == "i" else x


_INTP = np.dtype(np.intp)
_umax = np.maximum.reduce  # the ufunc reduction itself: no Python layer


def codes_in_range(a, b, n, size, check=True):
    """``a * size + b`` in ``intp`` for 1-D integer (or bool) labels all in
    ``[0, n]``, else None.  Two unsigned maxima bound them (a negative label
    is huge), so the codes neither wrap nor alias; narrower labels are widened
    by the multiply itself (no separate cast pass).  ``check=False``: the
    caller guarantees the range (no maximum is read)."""
    if a.dtype == _INTP and b.dtype == _INTP:  # the common case: no casts
        if check and (_umax(a.view(np.uint64)) > n or _umax(b.view(np.uint64)) > n):
            return None
        cells = a * size
        cells += b
        return cells
    if check and (_umax(as_unsigned(a)) > n or _umax(as_unsigned(b)) > n):
        return None
    cells = np.multiply(a, size, dtype=np.intp, casting="unsafe")
    return np.add(cells, b, out=cells, casting="unsafe")  # uint64 labels too


def codes_or_other_numpy(y, n, out=None):
    """:meth:`GenericOps.codes_or_other` in one pass: viewed as unsigned, negative
    labels are huge, so ``minimum(y, n)`` sends them and those ``>= n`` to ``n``.
    Labels of any integer or bool width are read as they are; the codes are
    ``intp`` (64-bit labels keep their dtype; ``out``, of y's shape and dtype,
    takes them where given)."""
    kind = y.dtype.kind
    if kind in "iu" and y.dtype.itemsize == 8 and n <= np.iinfo(y.dtype).max:
        u = as_unsigned(y)
        res = np.minimum(u, u.dtype.type(n), out=None if out is None else out.view(u.dtype))
        return res.view(y.dtype)
    if kind in "biu" and n >= 1:  # narrower labels: widened by the same pass
        return np.minimum(as_unsigned(y), n, dtype=np.intp, casting="unsafe")
    return np.where((y >= 0) & (y < n), y, np.intp(n))
