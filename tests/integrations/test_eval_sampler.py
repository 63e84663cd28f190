"""UnpaddedDistributedSampler: each sample on exactly one rank, so a synced metric
equals scikit-learn on the whole set (DistributedSampler's padding does not)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
mt = pytest.importorskip("metrix.integrations.torch")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("n", [0, 1, 5, 101])
@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
def test_the_shards_hold_each_sample_once(n, world, shuffle):
    samplers = [mt.UnpaddedDistributedSampler(range(n), num_replicas=world, rank=r,
                                              shuffle=shuffle) for r in range(world)]
    for epoch in (0, 1):
        for s in samplers:
            s.set_epoch(epoch)
        shards = [list(s) for s in samplers]
        assert sorted(i for shard in shards for i in shard) == list(range(n))
        assert [len(s) for s in samplers] == [len(shard) for shard in shards]
        assert max(map(len, shards)) - min(map(len, shards)) <= 1


_WORKER = """
import json, sys
import numpy as np
import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
sys.path.insert(0, {root!r})
import metrix.integrations.torch as mt

N, C = 101, 3

def worker(rank, port, out):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{{port}}", rank=rank,
                            world_size=2)
    rng = np.random.default_rng(0)
    y = torch.as_tensor(rng.integers(0, C, N))
    p = torch.as_tensor(np.where(rng.random(N) < 0.6, y.numpy(), rng.integers(0, C, N)))
    data = TensorDataset(y, p)
    res = {{}}
    for name, sampler in (("unpadded", mt.UnpaddedDistributedSampler(data)),
                          ("padded", DistributedSampler(data, shuffle=False))):
        f1, seen = mt.F1Score(C, average="macro"), mt.SumMetric()
        for yb, pb in DataLoader(data, batch_size=8, sampler=sampler):
            f1.update(yb, pb)
            seen.update(torch.ones(len(yb), dtype=torch.float64))
        res[name] = {{"f1": float(f1.compute()), "n": float(seen.compute())}}
    with open(f"{{out}}.{{rank}}", "w") as f:
        json.dump(res, f)
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(worker, args=(int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
"""


@pytest.mark.distributed
def test_a_synced_metric_counts_each_sample_once(tmp_path):
    import torch.distributed as dist
    from sklearn.metrics import f1_score

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(_WORKER.format(root=str(ROOT))))
    out = tmp_path / "result"
    proc = subprocess.run([sys.executable, str(script), str(port), str(out)],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 101)
    p = np.where(rng.random(101) < 0.6, y, rng.integers(0, 3, 101))
    want = f1_score(y, p, average="macro")
    for rank in (0, 1):
        got = json.loads(Path(f"{out}.{rank}").read_text())
        assert got["unpadded"]["n"] == 101
        assert np.isclose(got["unpadded"]["f1"], want, rtol=1e-12)
        assert got["padded"]["n"] == 102  # DistributedSampler repeats a sample
