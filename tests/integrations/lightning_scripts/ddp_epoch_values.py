"""A LightningModule with metrix torch metrics, trained by ``ddp_spawn`` on 2 CPU ranks.

``python ddp_epoch_values.py SPLIT OUT``: the validation set is split over the
ranks unevenly (``uneven``: 150 / 53 samples) or all on rank 0 (``zero``: rank 1
has no batch).  At each validation epoch end every rank logs the metrics'
``compute()`` and writes them, with scikit-learn's values on the whole
validation set (the model's weights are the same on every rank), to
``OUT.<rank>.<epoch>``.
"""

import json
import sys

import numpy as np
import pytorch_lightning as pl
import sklearn.metrics as skm
import torch

import metrix.integrations.torch as mt

C, N_VAL, N_TRAIN = 4, 203, 128


def dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = torch.randint(0, C - 1, (n,), generator=g)  # class C-1 never occurs
    t = x[:, 0] + 0.5 * torch.randn(n, generator=g)
    return x, y, t


class Shard(torch.utils.data.IterableDataset):
    """This rank's rows. Iterable: Lightning refuses a sized loader of length 0."""

    def __init__(self, *tensors):
        self.tensors = tensors

    def __iter__(self):
        return zip(*self.tensors)


class Model(pl.LightningModule):
    def __init__(self, split, out):
        super().__init__()
        self.split, self.out = split, out
        self.net = torch.nn.Linear(8, C + 1)
        self.val_metrics = mt.MetricCollection(
            {"f1": mt.F1Score(C), "auroc": mt.AUROC(C, average=None, capacity=N_VAL)},
            sync_timeout=60)
        self.val_mse = mt.MeanSquaredError(sync_timeout=60)

    def forward(self, x):
        out = self.net(x)
        return out[:, :C].softmax(-1), out[:, C]

    def training_step(self, batch, i):
        x, y, t = batch
        out = self.net(x)
        return torch.nn.functional.cross_entropy(out[:, :C], y) + ((out[:, C] - t) ** 2).mean()

    def validation_step(self, batch, i):
        x, y, t = batch
        probs, value = self(x)
        self.val_metrics.update(y, probs)
        self.val_mse.update(t, value)

    def on_validation_epoch_end(self):
        values = dict(self.val_metrics.compute(), mse=self.val_mse.compute())
        self.log_dict({"val/f1": values["f1"].item(), "val/mse": values["mse"].item()})
        self.val_metrics.reset()
        self.val_mse.reset()
        x, y, t = dataset(N_VAL, 1)
        with torch.no_grad():
            probs, value = self(x)
        want = {"f1": skm.f1_score(y, probs.argmax(1), average="macro", labels=range(C)),
                "auroc": skm.roc_auc_score(np.eye(C)[y][:, :C - 1], probs[:, :C - 1],
                                           average=None).tolist(),
                "mse": skm.mean_squared_error(t, value)}
        got = {"f1": values["f1"].item(), "auroc": values["auroc"].tolist(),
               "mse": values["mse"].item()}
        with open(f"{self.out}.{self.global_rank}.{self.current_epoch}", "w") as f:
            json.dump({"got": got, "want": want}, f)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

    def train_dataloader(self):
        return torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(*dataset(N_TRAIN, 0)), batch_size=32)

    def val_dataloader(self):
        x, y, t = dataset(N_VAL, 1)
        cut = N_VAL if self.split == "zero" else 150
        rows = slice(0, cut) if self.global_rank == 0 else slice(cut, N_VAL)
        return torch.utils.data.DataLoader(Shard(x[rows], y[rows], t[rows]), batch_size=16)


if __name__ == "__main__":
    split, out = sys.argv[1], sys.argv[2]
    trainer = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp_spawn", max_epochs=2,
                         use_distributed_sampler=False, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(Model(split, out))
