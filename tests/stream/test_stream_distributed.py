"""Distributed streaming: torch.distributed (gloo on 2 CPU processes, NCCL on 2 GPUs)
and JAX psum.

Each leg runs in a subprocess with a timeout, so a hang fails the test
instead of blocking the suite.  The NCCL leg runs the gloo leg's worker with
one process per CUDA device; with fewer than 2 GPUs it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

pytestmark = pytest.mark.distributed

ROOT = Path(__file__).resolve().parents[2]
C, N, BATCHES = 4, 50, 6

_COMMON = f"""
import json, os, sys
import numpy as np
sys.path.insert(0, {str(ROOT)!r})
C, N, BATCHES = {C}, {N}, {BATCHES}

def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, C, (BATCHES, N))
    logits = rng.normal(size=(BATCHES, N, C))
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    t = rng.normal(size=(BATCHES, N))
    q = t + rng.normal(0, 0.3, size=(BATCHES, N))
    w = rng.random((BATCHES, N))
    return y, p, t, q, w
"""

_TORCH_WORKER = _COMMON + """
import torch, torch.distributed as dist, torch.multiprocessing as mp
import metrix.stream as ms
from metrix.backends import _collectives

def collection():
    return ms.MetricCollection({
        "acc": ms.Accuracy(C), "f1": ms.F1Score(C, average="weighted"),
        "mcc": ms.MatthewsCorrCoef(C), "kappa": ms.CohenKappa(C),
        "auc_binned": ms.AUROC(num_classes=C, thresholds=50),
        "ap_exact": ms.AveragePrecision(num_classes=C, capacity=BATCHES * N),
        "ll": ms.LogLoss(num_classes=C)})

def worker(rank, port, out, split, backend):
    if backend == "nccl":  # one GPU per rank
        torch.cuda.set_device(rank)
        dev = torch.device("cuda", rank)
    else:
        dev = torch.device("cpu")
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)

    def put(a):
        return torch.asarray(a, device=dev)

    y, p, t, q, w = data()
    mine = range(BATCHES) if split == "all_on_rank0" and rank == 0 else (
        [] if split == "all_on_rank0" else range(rank, BATCHES, 2))
    coll, reg = collection(), ms.R2Score()
    wf1 = ms.F1Score(C, average="macro", weighted=True)
    mean, mx, mn = ms.MeanMetric(), ms.MaxMetric(), ms.MinMetric()
    spec = ms.RegressionStream("mse")
    state = spec.init(torch.zeros(1, dtype=torch.float64, device=dev))
    for i in mine:
        coll.update(put(y[i]), put(p[i]))
        reg.update(put(t[i]), put(q[i]))
        wf1.update(put(y[i]), put(p[i]), put(w[i]))
        state = spec.update(state, put(t[i]), put(q[i]))
        mean.update(put(t[i]), put(w[i])); mx.update(put(t[i])); mn.update(put(t[i]))
    before = dict(_collectives.CALLS)
    coll.sync(); reg.sync(); wf1.sync(); mean.sync(); mx.sync(); mn.sync()
    state = ms.sync(state)
    calls = {k: _collectives.CALLS[k] - before[k] for k in before}
    values = dict(coll.compute(), r2=reg.compute(), wf1=wf1.compute(),
                  mse_functional=spec.compute(state), mean=mean.compute(), max=mx.compute(),
                  min=mn.compute())
    res = {k: float(v) for k, v in values.items()}
    devices = sorted({str(v.device) for v in values.values()})
    with open(f"{out}.{rank}", "w") as f:
        json.dump({"res": res, "calls": calls, "devices": devices, "want": str(dev)}, f)
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    port, out, split, backend = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    mp.spawn(worker, args=(port, out, split, backend), nprocs=2, join=True)
"""

_JAX_WORKER = _COMMON + """
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
from jax.sharding import PartitionSpec as P
try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map
import metrix.stream as ms

assert len(jax.devices()) == 2, jax.devices()
spec = ms.CollectionStream({
    "f1": ms.LabelStream(C, "f1", average="macro"),
    "mcc": ms.LabelStream(C, "mcc"),
    "auc_exact": ms.RankingStream("roc_auc", num_classes=C, capacity=BATCHES * N),
    "auc_binned": ms.RankingStream("roc_auc", num_classes=C, thresholds=50),
    "ll": ms.LogLossStream(C)})
y, p, t, q, w = data()
mesh = jax.make_mesh((2,), ("d",))

def per_device(ys, ps):
    state = spec.init(ps)
    mx, mn = ms.MaxStream(), ms.MinStream()
    smx, smn = mx.init(ps), mn.init(ps)
    for i in range(ys.shape[0]):
        state = spec.update(state, ys[i], ps[i])
        smx, smn = mx.update(smx, ps[i]), mn.update(smn, ps[i])
    return dict(spec.compute(ms.psum(state, "d")), pmax=mx.compute(ms.psum(smx, "d")),
                pmin=mn.compute(ms.psum(smn, "d")))

kw = {"mesh": mesh, "in_specs": (P("d"), P("d")), "out_specs": P()}
try:
    fn = shard_map(per_device, check_vma=False, **kw)
except TypeError:
    fn = shard_map(per_device, check_rep=False, **kw)
from jax.sharding import NamedSharding
shard = NamedSharding(mesh, P("d"))
res = jax.jit(fn)(jax.device_put(jnp.asarray(y), shard), jax.device_put(jnp.asarray(p), shard))
print(json.dumps({k: float(v) for k, v in res.items()}))
"""


_TIMEOUT_WORKER = """
import json, os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp
import metrix.stream as ms

def worker(rank, port, out):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)
    m = ms.F1Score(3)
    m.update(torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1]))
    m.sync(timeout=30)  # both ranks: fine
    res = {"rank": rank}
    if rank == 0:  # the mistake: a metric synced under `if rank == 0:`
        start = time.perf_counter()
        try:
            m.sync(timeout=2)
            res["error"] = None
        except ms.SyncTimeoutError as exc:
            res["error"], res["waited"] = str(exc), time.perf_counter() - start
    with open(f"{out}.{rank}", "w") as f:
        json.dump(res, f)
    if rank == 1:  # stay up until rank 0 has timed out
        while not os.path.exists(f"{out}.0"):
            time.sleep(0.05)
    # no teardown of a group left mid-collective: gloo may abort the process on it
    os._exit(0)

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[3])
    mp.spawn(worker, args=(int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
"""


def test_sync_on_some_ranks_raises_instead_of_hanging(tmp_path):
    pytest.importorskip("torch")
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    script = tmp_path / "worker.py"
    script.write_text(_TIMEOUT_WORKER)
    out = tmp_path / "result"
    proc = subprocess.run([sys.executable, str(script), str(_free_port()), str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(Path(f"{out}.0").read_text())
    assert res["error"] is not None and "ranks [1]" in res["error"], res
    assert 1.5 < res["waited"] < 30


def _expected(split_w=False):
    rng = np.random.default_rng(0)
    y = rng.integers(0, C, (BATCHES, N))
    logits = rng.normal(size=(BATCHES, N, C))
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    t = rng.normal(size=(BATCHES, N))
    q = t + rng.normal(0, 0.3, size=(BATCHES, N))
    w = rng.random((BATCHES, N))
    y, p, t, q, w = y.ravel(), p.reshape(-1, C), t.ravel(), q.ravel(), w.ravel()
    pred = p.argmax(1)
    onehot = (y[:, None] == np.arange(C)).astype(int)
    qp = np.clip(p * 49 + 1.0, 0, 50).astype(np.int64).astype(float)  # 50 thresholds
    return {
        "acc": skm.accuracy_score(y, pred),
        "f1": skm.f1_score(y, pred, average="weighted"),
        "mcc": skm.matthews_corrcoef(y, pred),
        "kappa": skm.cohen_kappa_score(y, pred),
        "auc_binned": skm.roc_auc_score(onehot, qp),
        "ap_exact": skm.average_precision_score(onehot, p),
        "auc_exact": skm.roc_auc_score(y, p, multi_class="ovr"),
        "ll": skm.log_loss(y, p),
        "r2": skm.r2_score(t, q),
        "wf1": skm.f1_score(y, pred, average="macro", sample_weight=w),
        "mse_functional": skm.mean_squared_error(t, q),
        "f1_macro": skm.f1_score(y, pred, average="macro"),
        "mean": np.average(t, weights=w), "max": t.max(), "min": t.min(),
        "pmax": p.max(), "pmin": p.min(),
    }


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _torch_two_processes(tmp_path, split, backend):
    """Run the torch worker on 2 processes; check values, collectives and devices."""
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(_TORCH_WORKER))
    out = tmp_path / "result"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script), str(_free_port()), str(out), split,
                           backend], capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    want = _expected()
    results = [json.loads(Path(f"{out}.{r}").read_text()) for r in (0, 1)]
    # the same collectives on both ranks, whatever their data: one per sync
    assert results[0]["calls"] == results[1]["calls"]
    assert results[0]["calls"]["all_reduce"] == 4  # r2, wf1, mse, mean: sums only
    # coll (an exact buffer, its sums with it), max and min (extremes): one each
    assert results[0]["calls"]["all_gather"] == 3
    for r in results:
        assert r["devices"] == [r["want"]]  # every result on the rank's device
        for k, v in r["res"].items():
            np.testing.assert_allclose(v, want[k], rtol=1e-9, err_msg=k)


@pytest.mark.parametrize("split", ["all_on_rank0", "interleaved"])
def test_torch_gloo_two_processes(tmp_path, split):
    pytest.importorskip("torch")
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    _torch_two_processes(tmp_path, split, "gloo")


def test_jax_psum_two_host_devices():
    pytest.importorskip("jax")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_JAX_WORKER)],
                          capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    want = _expected()
    want["f1"] = want["f1_macro"]
    for k, v in got.items():
        np.testing.assert_allclose(v, want[k], rtol=1e-9, err_msg=k)


@pytest.mark.gpu
@pytest.mark.parametrize("split", ["all_on_rank0", "interleaved"])
def test_torch_nccl_two_gpus(tmp_path, split):
    """The gloo leg on NCCL: one process per GPU, states and results on ``cuda:rank``."""
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_nccl_available():
        pytest.skip("torch.distributed with NCCL is not available")
    if torch.cuda.device_count() < 2:
        pytest.skip(f"needs 2 CUDA GPUs, found {torch.cuda.device_count()}")
    _torch_two_processes(tmp_path, split, "nccl")
