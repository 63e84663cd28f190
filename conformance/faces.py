"""The faces dimension: one stream metric's case run through every way of feeding it.

A ``metrix.stream`` row (``cases_stream.py``) gives ``make`` (a fresh metric)
and scikit-learn's one-shot reference on all the data.  Each face below is a
``call`` for the runner: it takes the converted inputs of a combination and
returns ``compute()``, which must equal the reference, or raise the same kind
of error.

* ``streamed``: uneven batches, empty ones included (``EDGES``);
* ``one_batch``: everything in one ``update``;
* ``merged``: the batches split over two metrics, then ``merge``;
* ``reloaded``: the first batches, ``state_dict()``, loaded into a fresh metric
  that takes the rest;
* ``narrowed(face, dtype)``: the same face with the integer labels cast to a
  narrow or unsigned dtype (uint8 label maps, int8 targets), on the device.
"""

from __future__ import annotations

import array_api_compat

N = 80
#: batch edges: an empty batch, one sample, 26, an empty batch, 26, 26 and one sample
#: (few distinct sizes: JAX compiles each op once per shape)
EDGES = (0, 0, 1, 27, 27, 53, 79, N)


def _batches(arrays, sample_weight, edges):
    for a, b in zip(edges[:-1], edges[1:]):
        kw = {} if sample_weight is None else {"sample_weight": sample_weight[a:b]}
        yield tuple(x[a:b, ...] for x in arrays), kw


def _feed(metric, arrays, sample_weight, edges):
    for batch, kw in _batches(arrays, sample_weight, edges):
        metric.update(*batch, **kw)
    return metric


def streamed(make, edges=EDGES):
    """Update a fresh metric batch by batch (``edges``), then compute."""

    def run(*arrays, sample_weight=None):
        return _feed(make(), arrays, sample_weight, edges).compute()

    return run


def one_batch(make):
    """All the data in one ``update``."""
    return streamed(make, edges=(0, N))


def merged(make, cut=3):
    """The batches before ``EDGES[cut]`` in one metric, the rest in another: merged."""

    def run(*arrays, sample_weight=None):
        first = _feed(make(), arrays, sample_weight, EDGES[:cut + 1])
        second = _feed(make(), arrays, sample_weight, EDGES[cut:])
        return first.merge(second).compute()

    return run


def reloaded(make, cut=4):
    """The first batches, saved with ``state_dict()`` and loaded into a fresh
    metric, which takes the rest (a checkpoint resumed mid-epoch)."""

    def run(*arrays, sample_weight=None):
        saved = _feed(make(), arrays, sample_weight, EDGES[:cut + 1]).state_dict()
        resumed = make().load_state_dict(saved)
        return _feed(resumed, arrays, sample_weight, EDGES[cut:]).compute()

    return run


FACES = {"streamed": streamed, "one-batch": one_batch, "merged": merged, "reloaded": reloaded}


def narrowed(face, dtype):
    """``face`` with the integer arrays among the inputs cast to ``dtype`` in their
    own namespace and on their device (the combination converts labels to int64)."""
    return _recast(face, dtype, "integral")


def lowered(face, dtype):
    """``face`` with the floating arrays among the inputs (scores, regression
    values; not ``sample_weight``) cast to ``dtype`` (``float16``,
    ``bfloat16``) in their own namespace and on their device: mixed-precision
    outputs.  The row's data must be exact in ``dtype`` (:func:`round_to`)."""
    return _recast(face, dtype, "real floating")


def _recast(face, dtype, kind):
    def wrap(make):
        inner = face(make)

        def run(*arrays, sample_weight=None):
            return inner(*(_cast(a, dtype, kind) for a in arrays), sample_weight=sample_weight)

        return run

    return wrap


def _cast(a, dtype, kind):
    xp = array_api_compat.array_namespace(a)
    if not xp.isdtype(a.dtype, kind):
        return a
    return xp.astype(a, getattr(xp, dtype))


def round_to(a, dtype):
    """NumPy float64 ``a`` rounded to the values of ``dtype`` (``float16`` or
    ``bfloat16``, to nearest even), still float64: a reference on it is the
    reference on the low-precision input."""
    import numpy as np

    a = np.asarray(a)
    if a.dtype.kind != "f":
        return a
    if dtype == "float16":
        return a.astype(np.float16).astype(np.float64)
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)   # bfloat16: the top
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16       # 16 bits of a float32
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)
