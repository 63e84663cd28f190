"""The exact buffers' in-place writes (``Metric._append``, the adapters'
``rows_accumulator``) against the functional ``update`` (``write_rows``): every
exact stream class, NumPy and torch CPU (in place) and JAX CPU (functional),
uneven and empty batches, weights with zeros, float16 to float64 scores, narrow
and float labels, states handed out between updates, ``reset`` in place,
``merge``, ``state_dict`` round trips and a full buffer."""

from __future__ import annotations

import numpy as np
import pytest

import metrix.stream as ms
from metrix.stream import BufferFullError
from tests.stream._helpers import array_maker as _lib

torch = pytest.importorskip("torch")

rng = np.random.default_rng(20261207)
N = 70
EDGES = (0, 0, 1, 2, 31, 31, 69, N)  # empty batches, single samples, uneven sizes
CAP = 96


def _y_bin():
    y = (rng.random(N) < 0.4).astype(np.int64)
    y[:3] = [0, 1, 1]
    return y


def _scores(n, *tail):
    s = np.round(rng.random((n,) + tail), 2)  # ties
    return s


CASES = {
    # name: (factory, y_true, y_pred, weights or None)
    "AUROC": (lambda: ms.AUROC(capacity=CAP), _y_bin(), _scores(N), None),
    "AUROC weighted": (lambda: ms.AUROC(capacity=CAP, weighted=True), _y_bin(), _scores(N),
                       np.where(rng.random(N) < 0.2, 0.0, rng.random(N))),
    "AUROC multiclass": (lambda: ms.AUROC(num_classes=3, capacity=CAP),
                         rng.integers(0, 3, N).astype(np.uint8), _scores(N, 3), None),
    "AveragePrecision multilabel": (lambda: ms.AveragePrecision(num_labels=3, capacity=CAP),
                                    (rng.random((N, 3)) < 0.5).astype(np.int8),
                                    _scores(N, 3), None),
    "AveragePrecision pos_label": (lambda: ms.AveragePrecision(capacity=CAP, pos_label=2),
                                   np.where(_y_bin() == 1, 2, 5), _scores(N), None),
    "RecallAtFixedPrecision": (lambda: ms.RecallAtFixedPrecision(0.6, capacity=CAP),
                               _y_bin(), _scores(N), None),
    "PrecisionAtFixedRecall": (lambda: ms.PrecisionAtFixedRecall(0.5, capacity=CAP),
                               _y_bin().astype(np.float32), _scores(N), None),
    "SensitivityAtSpecificity": (lambda: ms.SensitivityAtSpecificity(0.5, capacity=CAP),
                                 _y_bin().astype(bool), _scores(N), None),
    "SpecificityAtSensitivity": (lambda: ms.SpecificityAtSensitivity(0.5, capacity=CAP),
                                 _y_bin(), _scores(N), None),
    "SpearmanCorrCoef": (lambda: ms.SpearmanCorrCoef(CAP), _scores(N), _scores(N), None),
    "SpearmanCorrCoef 2 outputs": (lambda: ms.SpearmanCorrCoef(CAP, num_outputs=2),
                                   _scores(N, 2), _scores(N, 2), None),
    "MedianAbsoluteError": (lambda: ms.MedianAbsoluteError(CAP), _scores(N), _scores(N),
                            None),
    "MedianAbsoluteError 2 outputs": (
        lambda: ms.MedianAbsoluteError(CAP, num_outputs=2, multioutput="raw_values"),
        _scores(N, 2), _scores(N, 2), None),
    "CatMetric": (lambda: ms.CatMetric(CAP), None, _scores(N), None),
}
DTYPES = ("float64", "float32", "float16")


def _update(metric, lib, y, p, w, a, b, dtype):
    score = lib(p[a:b].astype(dtype))
    if y is None:
        metric.update(score)
        return
    kw = {} if w is None else {"sample_weight": lib(w[a:b])}
    metric.update(lib(y[a:b]), score, **kw)


def _functional(metric, lib, y, p, w, dtype, edges=EDGES, state=None):
    """The same batches through the spec's pure ``update`` (``write_rows``)."""
    spec = metric.spec
    for a, b in zip(edges[:-1], edges[1:]):
        score = lib(p[a:b].astype(dtype))
        if state is None:
            state = spec.init(score)
        if y is None:
            state = spec.update(state, score)
        else:
            kw = {} if w is None else {"sample_weight": lib(w[a:b])}
            state = spec.update(state, lib(y[a:b]), score, **kw)
    return state


def _host(v):
    if isinstance(v, tuple):
        return tuple(_host(x) for x in v)
    if isinstance(v, dict):
        return {k: _host(x) for k, x in v.items()}
    if isinstance(v, torch.Tensor):
        v = v.cpu()
        return np.asarray(v.float() if v.dtype == torch.bfloat16 else v)
    return np.asarray(v)


def _equal(a, b):
    a, b = _host(a), _host(b)
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
        return
    np.testing.assert_array_equal(a, b)


def _states_equal(state, other):
    assert state.keys() == other.keys()
    for k in state:
        _equal(state[k], other[k])
        assert _host(state[k]).dtype == _host(other[k]).dtype, k


def _compute(metric):
    return metric.compute()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("name", list(CASES))
def test_stateful_buffer_equals_the_functional_update(name, lib, dtype):
    make, y, p, w = CASES[name]
    put = _lib(lib)
    metric = make()
    for a, b in zip(EDGES[:-1], EDGES[1:]):
        _update(metric, put, y, p, w, a, b, dtype)
    expected = _functional(metric, put, y, p, w, dtype)
    _states_equal(metric.state, expected)
    spec_value = (metric.spec.compute(expected, rows=N) if name == "CatMetric"
                  else metric.spec.compute(expected))
    _equal(_compute(metric), spec_value)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("name", list(CASES))
def test_writes_in_place_and_never_into_a_handed_out_state(name, lib):
    make, y, p, w = CASES[name]
    put = _lib(lib)
    metric = make()
    _update(metric, put, y, p, w, 0, 31, "float64")
    buf = metric._state["buf_weight"]
    _update(metric, put, y, p, w, 31, 40, "float64")
    assert metric._state["buf_weight"] is buf  # written in place: no new buffer
    held = metric.state  # handed out: later updates must not write into it
    snapshot = {k: _host(v).copy() for k, v in held.items()}
    sd = metric.state_dict()
    sd_copy = {k: _host(v).copy() for k, v in sd.items()}
    _update(metric, put, y, p, w, 40, N, "float64")
    _states_equal(held, snapshot)
    for k, v in sd.items():
        _equal(v, sd_copy[k])
    _states_equal(metric.state, _functional(metric, put, y, p, w, "float64"))


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("name", list(CASES))
def test_reset_merge_and_state_dict(name, lib):
    make, y, p, w = CASES[name]
    put = _lib(lib)
    metric = make()
    _update(metric, put, y, p, w, 0, 50, "float64")
    metric.reset()  # in place where owned: the state of a new metric
    fresh = make()
    _update(fresh, put, y, p, w, 0, 1, "float64")
    fresh.reset()
    _states_equal(metric.state, fresh.state)
    for a, b in zip(EDGES[:-1], EDGES[1:]):
        if b <= 31:
            _update(metric, put, y, p, w, a, b, "float64")
    other = make()
    _update(other, put, y, p, w, 31, 69, "float64")
    metric.merge(other)
    _update(metric, put, y, p, w, 69, N, "float64")
    _update(other, put, y, p, w, 69, N, "float64")  # other keeps its own buffer
    spec = metric.spec
    merged = spec.merge(_functional(metric, put, y, p, w, "float64", edges=EDGES[:5]),
                        _functional(metric, put, y, p, w, "float64", edges=(31, 69)))
    expected = _functional(metric, put, y, p, w, "float64", edges=(69, N), state=merged)
    _states_equal(metric.state, expected)
    _states_equal(other.state, _functional(metric, put, y, p, w, "float64",
                                           edges=(31, 69, N)))
    loaded = make().load_state_dict(metric.state_dict())
    _update(loaded, put, y, p, w, 0, 5, "float64")
    _update(metric, put, y, p, w, 0, 5, "float64")
    _states_equal(loaded.state, metric.state)
    _equal(_compute(loaded), _compute(metric))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_a_full_buffer_raises_before_writing(lib):
    put = _lib(lib)
    metric = ms.RecallAtFixedPrecision(0.6, capacity=8)
    y, p = _y_bin(), _scores(N)
    metric.update(put(y[:6]), put(p[:6]))
    before = {k: _host(v).copy() for k, v in metric._state.items()}
    with pytest.raises(BufferFullError):
        metric.update(put(y[6:9]), put(p[6:9]))
    for k, v in metric._state.items():
        np.testing.assert_array_equal(_host(v), before[k])
    metric.update(put(y[6:8]), put(p[6:8]))  # the rows that fit still go in
    assert int(metric._state["count"]) == 8


def test_batches_the_writer_does_not_take_go_the_functional_way():
    # bfloat16 scores (no NumPy view) and a shape mismatch: the functional update
    # writes (or raises) as before
    metric = ms.AUROC(capacity=CAP)
    y, p = _y_bin(), _scores(N)
    metric.update(torch.asarray(y[:10]), torch.asarray(p[:10], dtype=torch.bfloat16))
    metric.update(torch.asarray(y[10:20]), torch.asarray(p[10:20]))
    ref = ms.AUROC(capacity=CAP)
    ref.update(torch.asarray(y[:10]), torch.asarray(p[:10], dtype=torch.bfloat16))
    ref_state = ref.spec.update(ref.state, torch.asarray(y[10:20]), torch.asarray(p[10:20]))
    _states_equal(metric.state, ref_state)
    sp = ms.SpearmanCorrCoef(CAP)
    with pytest.raises(ValueError, match="different shapes"):
        sp.update(torch.asarray(p[:5]), torch.asarray(p[:6]))


@pytest.mark.parametrize("kind", ["grad", "strided", "int", "uint8", "bool", "float16",
                                  "bfloat16", "column", "numpy rows", "mixed lengths"])
def test_the_lean_row_writer_takes_what_it_can_and_nothing_else(kind):
    # the in-place writer views each tensor as it checks it: a tensor that needs grad,
    # a strided view, integer rows, NumPy rows into a torch state and rows of unequal
    # lengths give the state of the functional update (or its error), never a partial
    # write
    y, p = _scores(N), _scores(N)
    metric, ref = ms.SpearmanCorrCoef(CAP), ms.SpearmanCorrCoef(CAP)
    first = (torch.asarray(y[:7]), torch.asarray(p[:7]))
    metric.update(*first)
    state = ref.spec.update(ref.spec.init(first[1]), *first)
    if kind == "grad":
        batch = (torch.asarray(y[7:20]).requires_grad_(), torch.asarray(p[7:20]))
    elif kind == "strided":
        batch = (torch.asarray(y)[7:40:3], torch.asarray(p)[8:41:3])
    elif kind == "int":
        batch = (torch.asarray((y[7:20] * 10).astype(np.int16)), torch.asarray(p[7:20]))
    elif kind in ("uint8", "bool"):
        batch = (torch.asarray((y[7:20] * 255).astype(kind)), torch.asarray(p[7:20]))
    elif kind in ("float16", "bfloat16"):  # (bfloat16: no NumPy view)
        batch = (torch.asarray(y[7:20]).to(getattr(torch, kind)), torch.asarray(p[7:20]))
    elif kind == "column":
        batch = (torch.asarray(y[7:20, None]), torch.asarray(p[7:20, None]))
    elif kind == "numpy rows":
        batch = (y[7:20], p[7:20])
    else:
        batch = (torch.asarray(y[7:20]), torch.asarray(p[7:21]))
        with pytest.raises(ValueError):
            metric.update(*batch)
        _states_equal(metric._state, state)
        return
    metric.update(*batch)
    with torch.no_grad():
        state = ref.spec.update(state, *(b.detach() if isinstance(b, torch.Tensor)
                                         else torch.asarray(b) for b in batch))
    _states_equal(metric.state, state)
    np.testing.assert_allclose(_host(metric.compute()), _host(ref.spec.compute(state)))


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_the_inputs_are_written_as_they_are_where_the_spec_says_so(lib, monkeypatch):
    # spec.row_inputs: Spearman's one output and the binary exact ranking buffer take
    # (y_true, y_pred) as they are; the adapter writes them without buffer_rows, with
    # the state of the functional update; multi-output, weighted and pos_label specs
    # have no such fields
    put = _lib(lib)
    y, p = _y_bin(), _scores(N)
    for make in (lambda: ms.SpearmanCorrCoef(CAP), lambda: ms.AUROC(capacity=CAP),
                 lambda: ms.SpecificityAtSensitivity(0.5, capacity=CAP)):
        metric = make()
        metric.update(put(y[:3]), put(p[:3]))
        assert metric._write_pair is not None

        def no_rows(*args):
            raise AssertionError("buffer_rows ran")

        with monkeypatch.context() as patch:
            patch.setattr(metric.spec, "buffer_rows", no_rows)
            metric.update(put(y[3:40]), put(p[3:40]))
            metric.update(put(y[40:40]), put(p[40:40]))
        state = metric.spec.update(metric.spec.init(put(p)), put(y[:40]), put(p[:40]))
        _states_equal(metric.state, state)
        assert metric._seen == 40
    for metric in (ms.SpearmanCorrCoef(CAP, num_outputs=2),
                   ms.AUROC(capacity=CAP, pos_label=1), ms.AUROC(capacity=CAP, validate=True),
                   ms.AUROC(num_classes=3, capacity=CAP)):
        assert metric.spec.row_inputs is None


@pytest.mark.parametrize("weighted", [False, True])
def test_torch_device_writer_equals_write_rows(weighted):
    # the adapter's torch writer (slice copies: CUDA / MPS, and CPU buffers without a
    # NumPy view) against the functional write_rows; here on CPU, through a bfloat16
    # field that has no NumPy view
    from metrix._core import namespace as _ns
    from metrix.backends import ops
    from metrix.stream._buffer import init_buffer, write_rows

    xp, _ = _ns.get_namespace_and_device(torch.zeros(1))
    state = init_buffer(xp, "cpu", 16, {"s": ((), torch.float64), "h": ((2,), torch.bfloat16)})
    bufs = {k: v for k, v in state.items() if k.startswith("buf_")}
    own, own_count, write, clear, _ = ops(xp).rows_accumulator(bufs, state["count"])
    ref = state
    start = 0
    for n in (0, 3, 1, 7):
        vals = {"s": torch.asarray(rng.random(n), dtype=torch.float32),
                "h": torch.asarray(rng.random((n, 2)))}
        w = torch.asarray(rng.random(n)) if weighted else None
        assert write(vals, w, start)
        ref = write_rows(ref, vals, w, xp=xp)
        start += n
    assert not write({"s": torch.zeros(9), "h": torch.zeros(9, 2)}, None, start)  # no fit
    got = {**state, **own, "count": own_count}
    _states_equal(got, ref)
    assert bufs["buf_weight"].sum() == 0  # copies were written, not the state's arrays
    clear(start)
    _states_equal(got, state)


@pytest.mark.parametrize("name", ["AUROC", "SpearmanCorrCoef", "CatMetric"])
def test_a_synced_copy_is_not_written_by_later_updates(name):
    # without a process group synced() is a copy sharing the state's arrays: the
    # original's next in-place write must not reach it
    make, y, p, w = CASES[name]
    put = _lib("torch")
    metric = make()
    _update(metric, put, y, p, w, 0, 31, "float64")
    copy = metric.synced()
    before = {k: _host(v).copy() for k, v in copy.state.items()}
    _update(metric, put, y, p, w, 31, N, "float64")
    _states_equal(copy.state, before)
