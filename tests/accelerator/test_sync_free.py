"""The training-loop promise, proven without a GPU: no host sync, few kernels.

torch tensors on the ``meta`` device take the path CUDA takes (the adapters
test ``device.type != "cpu"``).  Every public metric (declared labels,
``validate=False``) and every stream wrapper's ``update`` + ``compute`` runs
there under a dispatch mode that records each aten op: an op that reads the
device on the host (``bincount``, ``nonzero``, ``unique``, ``item``, ...)
fails the test, and the op count (one kernel launch each on a GPU) must stay
within ``kernel_budget.txt``.  A change that adds kernels fails here and
updates the budget on purpose (``python -m tests.accelerator.budget``).

The same calls run on array-api-strict's ``device1`` with every host read of
an array (``bool``, ``int``, ``float``, ``__index__``, ``__array__``,
DLPack export, ``nonzero``, ``unique_*``, boolean-mask indexing) made to raise.
"""

from __future__ import annotations

import numpy as np
import pytest

from .budget import read_budget
from .calls import CALLS, EXEMPT, C, N

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

#: the torch the budgets were counted on (the ``test`` pin): older releases
#: decompose some ops into more aten ops (torch 2.6: 2-7 more per metric), so on
#: them (the minimum-versions leg) only the sync check holds
BUDGET_TORCH = (2, 13)
BUDGETED = tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2]) >= BUDGET_TORCH

#: aten ops that read device values on the host (or size their output by them)
SYNC_OPS = frozenset({
    "bincount", "nonzero", "nonzero_static", "unique", "_unique", "_unique2", "unique_dim",
    "unique_consecutive", "unique_dim_consecutive", "masked_select", "item",
    "_local_scalar_dense", "is_nonzero", "repeat_interleave", "equal", "allclose",
})


class OpRecorder(TorchDispatchMode):
    """Records the name of each dispatched aten op (not while ``paused``)."""

    def __init__(self):
        super().__init__()
        self.ops: list[str] = []
        self.paused = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not self.paused:
            self.ops.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


def _meta_maker(rec=None):
    def make(kind, shape=None):
        shape = shape or ((N, C) if kind in ("proba", "multilabel") else (N,))
        integer = kind in ("labels", "binary", "multilabel", "queries")
        if rec is not None:
            rec.paused = True  # the inputs are the caller's, not the metric's kernels
        try:
            return torch.empty(shape, dtype=torch.int64 if integer else torch.float32,
                               device="meta")
        finally:
            if rec is not None:
                rec.paused = False
    return make


def count_ops(call):
    """``(op names, sync op names)`` of one call on meta tensors, warm (the
    second call: caches of constants filled, as in a training loop)."""
    call(_meta_maker())
    rec = OpRecorder()
    with rec:
        call(_meta_maker(rec))
    return rec.ops, sorted({op for op in rec.ops if op in SYNC_OPS})


def test_every_public_metric_is_called():
    import metrix
    import metrix.stream as ms

    called = {name.split("[")[0] for name in CALLS}
    missing = [n for n in metrix.__all__ if callable(getattr(metrix, n))
               and not isinstance(getattr(metrix, n), type)
               and n not in called and n not in EXEMPT]
    stream_classes = [n for n in ms.__all__ if isinstance(getattr(ms, n), type)
                      and issubclass(getattr(ms, n), ms.Metric)
                      and n not in ("Metric", "MetricCollection", "Aggregator")
                      and "stream." + n not in called and "stream." + n not in EXEMPT]
    assert not missing and not stream_classes, (missing, stream_classes)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_meta_path_is_sync_free_and_within_budget(name, record_property):
    ops, syncs = count_ops(CALLS[name])
    record_property("kernel_ops", len(ops))
    assert not syncs, f"{name} dispatches host-sync ops {syncs} on the accelerator path"
    if not BUDGETED:
        return
    budget = read_budget()
    assert name in budget, (
        f"{name} has no entry in tests/accelerator/kernel_budget.txt ({len(ops)} ops): "
        "add it with python -m tests.accelerator.budget")
    assert len(ops) <= budget[name], (
        f"{name} dispatches {len(ops)} ops on the meta path, over its budget of "
        f"{budget[name]}: remove the new kernels, or raise the budget on purpose")


# -- array-api-strict's second device ----------------------------------------------

def _strict_maker(xp, device, seed=0):
    rng = np.random.default_rng(seed)

    def make(kind, shape=None):
        shape = shape or ((N, C) if kind in ("proba", "multilabel") else (N,))
        if kind == "labels":
            v = rng.integers(0, C, shape)
        elif kind in ("binary", "multilabel"):
            v = rng.integers(0, 2, shape)
        elif kind == "queries":
            v = np.sort(rng.integers(0, 16, shape))
        elif kind == "proba":
            v = rng.random(shape) + 0.1
            v = v / v.sum(axis=-1, keepdims=True)
        elif kind == "real":
            v = rng.normal(size=shape)
        else:  # score, weight
            v = rng.random(shape) + 0.05
        return xp.asarray(v, device=device)
    return make


class HostReadError(AssertionError):
    pass


@pytest.fixture
def no_host_reads(monkeypatch):
    xp = pytest.importorskip("array_api_strict")
    from array_api_strict._array_object import Array

    def refuse(what):
        def method(self, *args, **kwargs):
            raise HostReadError(f"host read of a device array: {what}")
        return method

    for name in ("__bool__", "__int__", "__float__", "__index__", "__complex__",
                 "__array__", "__dlpack__"):
        monkeypatch.setattr(Array, name, refuse(name))
    for name in ("nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"):
        monkeypatch.setattr(xp, name, refuse(name))
    getitem = Array.__getitem__

    def strict_getitem(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, Array) and k.dtype == xp.bool for k in keys):
            raise HostReadError("host read of a device array: boolean-mask indexing")
        return getitem(self, key)

    monkeypatch.setattr(Array, "__getitem__", strict_getitem)
    return xp


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strict_device1_path_reads_nothing_on_the_host(name, no_host_reads):
    xp = no_host_reads
    CALLS[name](_strict_maker(xp, xp.Device("device1")))
