"""Lightning: metrix torch metrics give the exact epoch value over all ranks.

The DDP runs go through a script in a subprocess with a timeout, so a hang
fails the test instead of blocking the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pl = pytest.importorskip("pytorch_lightning")
skm = pytest.importorskip("sklearn.metrics")

import torch  # noqa: E402

import metrix.integrations.torch as mt  # noqa: E402

pytestmark = pytest.mark.integrations

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("lightning_scripts") / "ddp_epoch_values.py"


@pytest.mark.distributed
@pytest.mark.parametrize("split", ["uneven", "zero"])
def test_ddp_spawn_epoch_values_equal_sklearn_on_every_rank(tmp_path, split):
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    out = tmp_path / "epoch"
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(SCRIPT), split, str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for epoch in (0, 1):
        ranks = [json.loads(Path(f"{out}.{r}.{epoch}").read_text()) for r in (0, 1)]
        assert ranks[0]["got"] == ranks[1]["got"]  # the same value on every rank
        got, want = ranks[0]["got"], ranks[0]["want"]
        np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)
        np.testing.assert_allclose(got["mse"], want["mse"], rtol=1e-5)
        assert np.isnan(got["auroc"][-1])  # the class that never occurs
        np.testing.assert_allclose(got["auroc"][:-1], want["auroc"], rtol=1e-6)


class _Half(pl.LightningModule):
    """Validation that accumulates over ``trainer.validate`` calls (no reset)."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(6, 3)
        self.f1 = mt.F1Score(3)
        self.auroc = mt.AUROC(3, capacity=100)

    def validation_step(self, batch, i):
        x, y = batch
        probs = self.net(x).softmax(-1)
        self.f1.update(y, probs)
        self.auroc.update(y, probs)


def _loader(x, y):
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)


def test_checkpoint_mid_epoch_resumes_counting(tmp_path):
    g = torch.Generator().manual_seed(3)
    x, y = torch.randn(80, 6, generator=g), torch.randint(0, 3, (80,), generator=g)
    kw = dict(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
              enable_model_summary=False, enable_checkpointing=False)
    first = _Half()
    trainer = pl.Trainer(**kw)
    trainer.validate(first, _loader(x[:50], y[:50]), verbose=False)
    trainer.save_checkpoint(tmp_path / "mid.ckpt")

    resumed = _Half()  # fresh weights and an empty metric: all comes from the checkpoint
    resumed.load_state_dict(torch.load(tmp_path / "mid.ckpt", weights_only=False)["state_dict"])
    pl.Trainer(**kw).validate(resumed, _loader(x[50:], y[50:]), verbose=False)
    with torch.no_grad():
        probs = first.net(x).softmax(-1)
    np.testing.assert_allclose(resumed.f1.compute(),
                               skm.f1_score(y, probs.argmax(1), average="macro"), rtol=1e-12)
    np.testing.assert_allclose(resumed.auroc.compute(),
                               skm.roc_auc_score(y, probs, multi_class="ovr"), rtol=1e-6)
