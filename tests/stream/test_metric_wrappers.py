"""Running, ClasswiseWrapper and MetricTracker against TorchMetrics' wrappers of the
same names: uneven batches, merged and saved states, collections, the torch face."""

from __future__ import annotations

import numpy as np
import pytest

import metrix.stream as ms

torch = pytest.importorskip("torch")
wrappers = pytest.importorskip("torchmetrics.wrappers")
classification = pytest.importorskip("torchmetrics.classification")
aggregation = pytest.importorskip("torchmetrics.aggregation")

C = 4
RNG = np.random.default_rng(3)
SIZES = (5, 1, 17, 8, 3, 12)
BATCHES = [(torch.as_tensor(RNG.integers(0, C, n)), torch.as_tensor(RNG.integers(0, C, n)))
           for n in SIZES]
VALUES = [torch.as_tensor(RNG.normal(size=n)) for n in SIZES]


@pytest.mark.parametrize("window", [1, 3, 10])
def test_running_equals_torchmetrics(window):
    ours = ms.Running(ms.Accuracy(C), window=window)
    theirs = wrappers.Running(classification.MulticlassAccuracy(C, average="micro"),
                              window=window)
    mean, tm_mean = ms.Running(ms.MeanMetric(), window), wrappers.Running(
        aggregation.MeanMetric(nan_strategy="disable"), window)
    for (y, p), v in zip(BATCHES, VALUES):
        # the call is the batch's own value, as TorchMetrics' forward
        np.testing.assert_allclose(float(ours(y, p)), float(theirs(p, y)))
        mean.update(v)
        tm_mean.update(v)
        np.testing.assert_allclose(float(ours.compute()), float(theirs.compute()))
        # (TorchMetrics sums in float32)
        np.testing.assert_allclose(float(mean.compute()), float(tm_mean.compute()), rtol=1e-5)


def test_running_merges_slot_by_slot_and_round_trips():
    a, b = ms.Running(ms.F1Score(C, average="macro"), 2), ms.Running(
        ms.F1Score(C, average="macro"), 2)
    for y, p in BATCHES[:3]:
        a.update(y, p)
    for y, p in BATCHES[3:]:
        b.update(y, p)
    a.merge(b)
    # the last two updates of each: batches 1, 2 and 4, 5
    y = torch.cat([BATCHES[i][0] for i in (1, 2, 4, 5)])
    p = torch.cat([BATCHES[i][1] for i in (1, 2, 4, 5)])
    import metrix

    want = metrix.f1_score(y, p, labels=list(range(C)), average="macro", zero_division=0)
    np.testing.assert_allclose(float(a.compute()), float(want))
    loaded = ms.Running(ms.F1Score(C, average="macro"), 2).load_state_dict(a.state_dict())
    np.testing.assert_allclose(float(loaded.compute()), float(want))
    with pytest.raises(ValueError, match="window"):
        ms.Running(ms.F1Score(C, average="macro"), 3).load_state_dict(a.state_dict())


@pytest.mark.parametrize("make", [lambda: ms.MeanMetric(),
                                  lambda: ms.F1Score(C, average="macro")])
def test_running_stream_empty_is_an_empty_slot(make):
    # a ring of 3 after one update: slots 1 and 2 are the wrapped metric's empty state
    m = ms.Running(make(), 3)
    if isinstance(m.base, ms.MeanMetric):
        m.update(VALUES[0])
    else:
        m.update(*BATCHES[0])
    empty = m.spec.empty(m.state)
    want = m.state["slot_2"]
    assert empty.keys() == want.keys()
    for key in want:
        assert empty[key].dtype == want[key].dtype and empty[key].device == want[key].device
        assert torch.equal(empty[key], want[key])
    assert any(not torch.equal(m.state["slot_0"][k], want[k]) for k in want)


def test_running_rejects_bad_arguments():
    with pytest.raises(ValueError, match="window"):
        ms.Running(ms.Accuracy(C), window=0)
    with pytest.raises(TypeError, match="metrix.stream metric"):
        ms.Running(classification.MulticlassAccuracy(C))
    with pytest.raises(ValueError, match="before any"):
        ms.Running(ms.Accuracy(C)).compute()


@pytest.mark.parametrize("kw", [{}, {"labels": ["a", "b", "c", "d"]}, {"prefix": "val_"},
                                {"postfix": "_f1", "labels": ["a", "b", "c", "d"]}])
def test_classwise_keys_and_values_equal_torchmetrics(kw):
    ours = ms.ClasswiseWrapper(ms.F1Score(C, average=None), **kw)
    theirs = wrappers.ClasswiseWrapper(classification.MulticlassF1Score(C, average=None), **kw)
    for y, p in BATCHES:
        batch, tm_batch = ours(y, p), theirs(p, y)
        assert [k.replace("f1score", "multiclassf1score") for k in batch] == list(tm_batch)
    got, want = ours.compute(), theirs.compute()
    assert [k.replace("f1score", "multiclassf1score") for k in got] == list(want)
    assert ours.keys((C,)) == list(got)  # the key rule the Keras and Flax faces use
    np.testing.assert_allclose([float(v) for v in got.values()],
                               [float(v) for v in want.values()])


def test_classwise_needs_per_class_values():
    m = ms.ClasswiseWrapper(ms.F1Score(C, average="macro"))
    m.update(*BATCHES[0])
    with pytest.raises(ValueError, match="average=None"):
        m.compute()
    short = ms.ClasswiseWrapper(ms.Recall(C, average=None), labels=["a", "b"])
    short.update(*BATCHES[0])
    with pytest.raises(ValueError, match="2 labels for 4 classes"):
        short.compute()
    with pytest.raises(ValueError, match="labels"):
        ms.ClasswiseWrapper(ms.Recall(C, average=None), labels=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="Recall gives shape \\(4, 4\\)"):
        short.keys((C, C))
    with pytest.raises(ValueError, match="2 labels for 4 classes"):
        short.keys((C,))
    assert short.keys((2,)) == ["recall_a", "recall_b"]


def test_tracker_equals_torchmetrics():
    ours = ms.MetricTracker(ms.Accuracy(C))
    theirs = wrappers.MetricTracker(classification.MulticlassAccuracy(C, average="micro"))
    loss, tm_loss = ms.MetricTracker(ms.MeanSquaredError()), wrappers.MetricTracker(
        __import__("torchmetrics").MeanSquaredError())
    for y, p in BATCHES:  # one step per batch
        for t in (ours, theirs, loss, tm_loss):
            t.increment()
        ours.update(y, p)
        theirs.update(p, y)
        loss.update(y.double(), p.double())
        tm_loss.update(p.double(), y.double())
    np.testing.assert_allclose(np.asarray(ours.compute_all()), theirs.compute_all().numpy())
    assert ours.best_metric(return_step=True) == pytest.approx(
        theirs.best_metric(return_step=True))
    assert loss.best_metric(return_step=True) == pytest.approx(
        tm_loss.best_metric(return_step=True))
    assert ours.n_steps == len(SIZES)


def test_tracker_of_a_collection_and_of_a_torch_module():
    import metrix.integrations.torch as mt

    t = ms.MetricTracker(ms.MetricCollection({"acc": ms.Accuracy(C),
                                              "loss": ms.MeanSquaredError()}))
    mod = ms.MetricTracker(mt.F1Score(C, average="macro"))
    for y, p in BATCHES[:3]:
        t.increment()
        mod.increment()
        t.update(y.double(), p.double())
        mod.update(y, p)
    best, step = t.best_metric(return_step=True)
    accs = [float(np.mean((y == p).numpy())) for y, p in BATCHES[:3]]
    mses = [float(np.mean(((y - p) ** 2).numpy().astype(float))) for y, p in BATCHES[:3]]
    assert best == {"acc": max(accs), "loss": min(mses)}
    assert step == {"acc": accs.index(max(accs)), "loss": mses.index(min(mses))}
    assert isinstance(mod.compute_all(), torch.Tensor) and mod.n_steps == 3
    with pytest.raises(ValueError, match="increment"):
        ms.MetricTracker(ms.Accuracy(C)).update(*BATCHES[0])
    with pytest.raises(ValueError, match="maximize"):
        ms.MetricTracker(ms.MeanMetric())
    assert ms.MetricTracker(ms.MeanMetric(), maximize=False).maximize is False


def test_torch_face_wrappers_take_modules():
    import metrix.integrations.torch as mt

    run = mt.Running(mt.MeanMetric(), window=2)
    for v in VALUES[:3]:
        run.update(v)
    np.testing.assert_allclose(float(run.compute()),
                               float(torch.cat(VALUES[1:3]).double().mean()))
    cw = mt.ClasswiseWrapper(mt.Recall(C, average=None), prefix="val_")
    cw.update(*BATCHES[2])
    assert list(cw.compute()) == [f"val_{i}" for i in range(C)]
    assert isinstance(run, torch.nn.Module) and isinstance(cw, torch.nn.Module)
