"""The sufficient statistic of the segmentation metrics: per-(image, class) counts.

Every segmentation metric reads three ``(M, K)`` count arrays of the ``K``
scored classes, ``M`` being the number of images (``per_image=True``) or 1
(the whole dataset as one pool of pixels):

* ``tp``: pixels of the class in both the target and the prediction;
* ``pred``: pixels predicted as the class;
* ``true``: pixels of the class in the target.

Label maps are counted with one ``bincount`` of the codes
``image * S * S + t * S + p`` (``S = K + 1``: the last code stands for every
value that is not a scored class; ignored pixels go to one extra sink cell):
the per-image confusion matrices, read once.  Where ``M * S * S`` cells would
outgrow the pixels, three ``bincount`` of length ``M * S`` give the same
counts.  Indicator inputs (0 / 1 one-hot) are counted as sums of products
over the pixels, as TorchMetrics does (a pixel may then be in several
classes, or in none).
"""

from __future__ import annotations

from typing import NamedTuple

from .._core import namespace as _ns
from ..backends import ops as _ops

#: the dense per-image confusion path is used up to this many cells (or the pixel count)
DENSE_CELLS = 1 << 22


class SegmentCounts(NamedTuple):
    """``(M, K)`` counts: true positives, predicted and true pixels per class."""

    tp: object
    pred: object
    true: object


def segment_counts(prep, *, per_image) -> SegmentCounts:
    """The counts of a :class:`~metrix.segmentation._input.Prepared` input."""
    if prep.true.kind == "index" and prep.pred.kind == "index":
        return _label_map_counts(prep, per_image)
    return _indicator_counts(prep, per_image)


def _encode(y, classes, xp):
    """Codes of a flat label map: the position of each value in ``classes``, or
    ``K`` (no scored class).  Contiguous classes need one comparison; others a
    ``searchsorted`` in the sorted classes (no host read either way)."""
    k = len(classes)
    dev = _ns.device_of(y)
    first = classes[0]
    if classes == list(range(first, first + k)):
        return _ops(xp).codes_or_other(y - first if first else y, k)
    order = sorted(range(k), key=classes.__getitem__)
    sorted_ids = _ns.asarray([classes[i] for i in order], xp=xp, device=dev, dtype=y.dtype)
    positions = _ns.asarray(order + [k], xp=xp, device=dev, dtype=y.dtype)
    pos = xp.clip(xp.searchsorted(sorted_ids, y), 0, k - 1)
    pos = xp.astype(pos, y.dtype) if pos.dtype != y.dtype else pos
    hit = xp.take(sorted_ids, pos) == y
    return xp.take(positions, xp.where(hit, pos, xp.full_like(pos, k)))


def _label_map_counts(prep, per_image):
    xp, o = prep.xp, _ops(prep.xp)
    k = len(prep.classes)
    s = k + 1
    flat = None if per_image else _pooled_declared(prep, k, o)
    if flat is None:
        yt, yp = prep.true.array, prep.pred.array
        n_img, n_pix = int(yt.shape[0]), int(yt.shape[1])
        m = n_img if per_image else 1
        tc = xp.reshape(_encode(xp.reshape(yt, (-1,)), prep.classes, xp), (n_img, n_pix))
        pc = xp.reshape(_encode(xp.reshape(yp, (-1,)), prep.classes, xp), (n_img, n_pix))
        cells = m * s * s
        if cells > max(DENSE_CELLS, n_img * n_pix):
            return _class_counts(tc, pc, prep.valid, m, k, xp, o)
        code = tc * s + pc
        if per_image:
            code = code + _image_offsets(n_img, s * s, tc, xp)
        code = _sink(code, prep.valid, cells, xp)
        flat = o.bincount(xp.reshape(code, (-1,)), length=cells + 1)[:cells]
    cm = xp.reshape(flat, (-1, s, s))
    tp = xp.reshape(flat, (-1, s * s))[:, 0:k * (s + 1):s + 1]
    return SegmentCounts(tp, xp.sum(cm[:, :, :k], axis=1), xp.sum(cm[:, :k, :], axis=2))


def _class_counts(tc, pc, valid, m, k, xp, o):
    """Many classes: three counts of length ``M * S`` instead of ``M * S * S`` cells."""
    s = k + 1
    off = _image_offsets(m, s, tc, xp) if m > 1 else 0
    length = m * s

    def count(codes):
        codes = xp.reshape(_sink(codes, valid, length, xp), (-1,))
        return xp.reshape(o.bincount(codes, length=length + 1)[:length], (m, s))[:, :k]

    hit = xp.where(tc == pc, tc + off, xp.full_like(tc, length))
    return SegmentCounts(count(hit), count(pc + off), count(tc + off))


def _pooled_declared(prep, k, o):
    """Dataset-level confusion counts (flat) of contiguous classes without ignored
    pixels from the backend's fused declared-label count (codes made chunk by
    chunk, never a pixel-sized temporary; the labels in their own dtype where the
    classes start at 0, else shifted by the adapter), or None where it has none."""
    first = prep.classes[0]
    if prep.valid is not None or prep.classes != list(range(first, first + k)):
        return None
    return o.pair_bincount_declared(prep.true.raw, prep.pred.raw, n=k, first=first)


def _image_offsets(n_img, stride, like, xp):
    """``image * stride`` as an ``(N, 1)`` column (broadcast over the pixels)."""
    return xp.reshape(xp.arange(n_img, dtype=like.dtype, device=_ns.device_of(like)) * stride,
                      (n_img, 1))


def _sink(code, valid, sink, xp):
    """Ignored pixels (``valid`` False) moved to the sink cell ``sink``."""
    if valid is None:
        return code
    return xp.where(valid, code, xp.full_like(code, sink))


def _indicator(side, prep):
    """A side as an ``(N, K, P)`` boolean indicator of the scored classes."""
    xp = prep.xp
    a = side.array
    if side.kind == "index":
        dev = _ns.device_of(a)
        ids = _ns.asarray(prep.classes, xp=xp, device=dev, dtype=a.dtype)
        return a[:, None, :] == xp.reshape(ids, (1, -1, 1))
    if prep.classes != list(range(int(a.shape[1]))):
        idx = _ns.asarray(prep.classes, xp=xp, device=_ns.device_of(a),
                          dtype=_ns.count_dtype(xp, _ns.device_of(a)))
        a = xp.take(a, idx, axis=1)
    return a


def _indicator_counts(prep, per_image):
    xp = prep.xp
    t = _indicator(prep.true, prep)
    p = _indicator(prep.pred, prep)
    if prep.valid is not None:
        keep = prep.valid[:, None, :]
        t, p = t & keep, p & keep
    cdt = _ns.count_dtype(xp, _ns.device_of(t))

    def count(b):
        c = xp.sum(xp.astype(b, xp.uint8), axis=2, dtype=cdt)
        return c if per_image else xp.sum(c, axis=0, keepdims=True)

    return SegmentCounts(count(t & p), count(p), count(t))
