"""``metrix.integrations.torch``: every stream metric as a ``torch.nn.Module``."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

torch = pytest.importorskip("torch")

import metrix.stream as ms  # noqa: E402
from metrix.integrations import torch as mt  # noqa: E402

pytestmark = pytest.mark.integrations

C = 4


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(C, C)
        self.f1 = mt.F1Score(num_classes=C)
        self.auc = mt.AUROC(thresholds=100)
        self.mse = mt.MeanSquaredError()
        self.coll = mt.MetricCollection({"acc": mt.Accuracy(C), "mcc": ms.MatthewsCorrCoef(C)})


def _batches(seed=0, n_batches=4):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_batches):
        n = 30 + 7 * i
        y = rng.integers(0, C, n)
        p = np.where(rng.random(n) < 0.6, y, rng.integers(0, C, n))
        s = np.round(np.clip(0.3 * (y % 2) + 0.7 * rng.random(n), 0, 1), 2)
        out.append(tuple(torch.from_numpy(a) for a in (y, p, y % 2, s, rng.normal(size=n))))
    return out


def _feed(model, batches):
    for y, p, yb, s, r in batches:
        model.f1.update(y, p)
        model.auc.update(yb, s)
        model.mse.update(r, r + 0.5)
        model.coll.update(y, p)


def test_every_stream_metric_has_a_module_of_the_same_name():
    names = [n for n in ms.__all__ if isinstance(getattr(ms, n), type)
             and issubclass(getattr(ms, n), ms.Metric) and n not in ("Metric", "Aggregator")]
    for name in names:
        assert issubclass(getattr(mt, name), torch.nn.Module), name


def test_values_equal_scikit_learn_and_the_call_is_the_batch_value():
    model, batches = Model(), _batches()
    _feed(model, batches)
    y = torch.cat([b[0] for b in batches]).numpy()
    p = torch.cat([b[1] for b in batches]).numpy()
    np.testing.assert_allclose(model.f1.compute(), skm.f1_score(y, p, average="macro"))
    np.testing.assert_allclose(model.coll.compute()["mcc"], skm.matthews_corrcoef(y, p))
    fresh = mt.F1Score(num_classes=C)
    y0, p0 = batches[0][:2]
    np.testing.assert_allclose(fresh(y0, p0), skm.f1_score(y0.numpy(), p0.numpy(),
                                                            average="macro",
                                                            labels=list(range(C))))


def test_state_dict_round_trip_resumes_mid_epoch():
    batches = _batches(1)
    whole, first = Model(), Model()
    _feed(whole, batches)
    _feed(first, batches[:2])
    resumed = Model()
    resumed.load_state_dict(first.state_dict())      # a checkpoint taken mid-epoch
    _feed(resumed, batches[2:])
    for name in ("f1", "auc", "mse"):
        np.testing.assert_allclose(getattr(resumed, name).compute(),
                                   getattr(whole, name).compute(), rtol=1e-12)
    assert resumed.coll.compute().keys() == whole.coll.compute().keys()
    assert any(k.startswith("f1.") for k in first.state_dict())


def test_loading_another_configuration_fails_clearly():
    small = mt.F1Score(num_classes=3)
    big = mt.F1Score(num_classes=5)
    small.update(torch.tensor([0, 1]), torch.tensor([0, 2]))
    with pytest.raises(RuntimeError, match="num_classes"):
        big.load_state_dict(small.state_dict())


def test_dtype_casts_leave_the_counts_and_device_moves_take_them():
    model = Model()
    _feed(model, _batches(2, 1))
    before = {k: v.dtype for k, v in model.state_dict().items() if not k.startswith("net")}
    model.half()
    after = {k: v.dtype for k, v in model.state_dict().items() if not k.startswith("net")}
    assert before == after and model.net.weight.dtype == torch.float16
    assert model.f1.metric.state["cm"].dtype == torch.int64
    model.to("meta")
    devices = {v.device.type for k, v in model.state_dict().items()
               if not k.startswith("net") and not k.endswith("config")}
    assert devices == {"meta"}


def test_a_module_on_meta_updates_without_host_syncs():
    from tests.accelerator.test_sync_free import SYNC_OPS, OpRecorder

    metric = mt.F1Score(num_classes=10).to("meta")
    y = torch.empty(256, dtype=torch.int64, device="meta")
    metric.update(y, y)
    rec = OpRecorder()
    with rec:
        metric.update(y, y)
        metric(y, y)
        metric.compute()
    assert not set(rec.ops) & SYNC_OPS


@pytest.mark.compile
def test_update_inside_a_compiled_step():
    pytest.importorskip("torch._dynamo")
    model = Model()
    batches = _batches(3)

    @torch.compile(fullgraph=True)
    def step(y, p):
        model.f1.update(y, p)
        return model.net(torch.nn.functional.one_hot(y, C).double().float()).sum()

    for y, p, *_ in batches:
        step(y, p)
    y = torch.cat([b[0] for b in batches]).numpy()
    p = torch.cat([b[1] for b in batches]).numpy()
    np.testing.assert_allclose(model.f1.compute(), skm.f1_score(y, p, average="macro"))


def test_the_guide_examples_run():
    import re
    from pathlib import Path

    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "integrations.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(guide), "exec"), {})
