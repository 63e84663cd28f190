"""The framework faces in a training loop (torch CPU, one thread; Keras on JAX).

* **torch module update**: ``metrix.integrations.torch`` metrics' ``update`` per
  step at batch 256 and 4,096 (C = 10) against TorchMetrics' modules
  (``MulticlassF1Score``, ``BinaryAUROC``, ``MeanSquaredError``) on the same
  tensors, both as constructed by default (metrix reads nothing on the host:
  ``validate=False``; TorchMetrics ``validate_args=True``) and TorchMetrics
  with ``validate_args=False``.  Target: metrix <= 0.5x TorchMetrics.
  ``AUROC`` is binned (1,000 thresholds: a fixed-size histogram); TorchMetrics'
  ``BinaryAUROC()`` keeps every score in a list (exact, growing memory), and
  ``BinaryAUROC(thresholds=1001)`` is its binned mode (the same bins).
* **Keras on the JAX backend**: ``model.evaluate`` over 1e6 samples (C = 10,
  batch 4,096) with ``metrix.integrations.keras.F1Score`` against
  ``keras.metrics.F1Score(average="macro", threshold=None)``; the model is a
  softmax layer, so the metric is most of the work.  Target: <= 1.0x.  Run in
  a subprocess (Keras reads ``KERAS_BACKEND`` at import).
* **Hugging Face path**: peak host memory (RSS above the start) of
  ``metrix.integrations.transformers.compute_metrics`` fed 100k samples x
  1,000 classes in batches of 1,000, as ``batch_eval_metrics=True`` does,
  against the default ``Trainer`` path (every batch's logits kept on the host
  and concatenated before ``compute_metrics``).  Target: < 50 MB.  Each case
  in its own subprocess (Linux: ``/proc/self/clear_refs``).

Run: ``python -m bench.bench_integrations [--runs 5] [--skip keras,hf]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from bench._harness import fmt_time, have, print_table
from bench.bench_latency import interleaved

C = 10
ROOT = Path(__file__).resolve().parents[1]


def torch_rows(n, runs, calls):
    import torch
    import torchmetrics as tm

    import metrix.integrations.torch as mt

    rng = np.random.default_rng(0)
    y = torch.from_numpy(rng.integers(0, C, n))
    p = torch.where(torch.rand(n) < 0.7, y, torch.randint(0, C, (n,)))
    yb = torch.from_numpy(rng.integers(0, 2, n))
    s = (0.3 * yb + 0.7 * torch.rand(n)).clamp(0, 1).float()
    r = torch.randn(n)
    q = r + 0.3 * torch.randn(n)
    # the floor: the bare torch update of the same state (no checks, labels in range)
    acc = {"cm": torch.zeros(C * C, dtype=torch.int64),
           "hist": torch.zeros(2 * 1001, dtype=torch.int64),
           "se": torch.zeros((), dtype=torch.float64)}

    def f1_floor():
        acc["cm"] += torch.bincount(C * y + p, minlength=C * C)

    def auroc_floor():
        acc["hist"] += torch.bincount((s * 1000).long() + 1001 * yb, minlength=2 * 1001)

    def mse_floor():
        e = r.double() - q.double()
        acc["se"] = acc["se"] + torch.sum(e * e)

    floors = {"F1Score macro": f1_floor, "AUROC binary": auroc_floor,
              "AUROC binary, both binned": auroc_floor,
              "MeanSquaredError": mse_floor}
    cases = {
        "F1Score macro": (mt.F1Score(C), tm.classification.MulticlassF1Score(C),
                          tm.classification.MulticlassF1Score(C, validate_args=False),
                          (y, p), (p, y)),
        "AUROC binary": (mt.AUROC(), tm.classification.BinaryAUROC(),
                         tm.classification.BinaryAUROC(validate_args=False), (yb, s), (s, yb)),
        "AUROC binary, both binned": (
            mt.AUROC(), tm.classification.BinaryAUROC(thresholds=1001),
            tm.classification.BinaryAUROC(thresholds=1001, validate_args=False),
            (yb, s), (s, yb)),
        "MeanSquaredError": (mt.MeanSquaredError(), tm.MeanSquaredError(),
                             tm.MeanSquaredError(), (r, q), (q, r)),
    }
    rows = []
    for name, (ours, theirs, theirs_fast, args, targs) in cases.items():
        def step(m=ours, a=args):
            m.update(*a)

        def tm_step(m=theirs, a=targs):
            m.update(*a)

        def tm_fast_step(m=theirs_fast, a=targs):
            m.update(*a)

        def reset():
            for m in (ours, theirs, theirs_fast):
                m.reset()  # TorchMetrics' exact AUROC appends to a list: keep it short

        t = {}
        for label, fn in {"metrix": step, "tm": tm_step, "tm fast": tm_fast_step,
                          "floor": floors[name]}.items():
            t.update(interleaved({label: fn}, runs=runs, calls=calls,
                                 label=f"torch {name} update N={n}"))
            reset()
        rows.append({"N": n, "metric": name, "floor (bare torch)": fmt_time(t["floor"]),
                     "metrix update": fmt_time(t["metrix"]),
                     "TorchMetrics update": fmt_time(t["tm"]),
                     "ratio": _ratio(t["metrix"], t["tm"]),
                     "TorchMetrics (validate_args=False)": fmt_time(t["tm fast"]),
                     "ratio (validate_args=False)": _ratio(t["metrix"], t["tm fast"])})
    return rows


def _ratio(a, b):
    return f"{a / b:.2f}x" if a / b >= 0.01 else f"1/{b / a:.0f}"


_KERAS = """
import json, time
import numpy as np
import keras
import metrix.integrations.keras as mk

C, N, RUNS = 10, {n}, {runs}
rng = np.random.default_rng(0)
x = rng.normal(size=(N, C)).astype("float32")
y = np.eye(C, dtype="float32")[rng.integers(0, C, N)]
best = {{}}
for run in range(RUNS):
    for name, metric in (("metrix", mk.F1Score(C)),
                         ("keras", keras.metrics.F1Score(average="macro", threshold=None))):
        model = keras.Sequential([keras.Input((C,)), keras.layers.Softmax()])
        model.compile(loss="categorical_crossentropy", metrics=[metric])
        model.evaluate(x[:4096], y[:4096], batch_size=4096, verbose=0)  # compile the step
        t0 = time.perf_counter()
        out = model.evaluate(x, y, batch_size=4096, verbose=0, return_dict=True)
        best[name] = min(best.get(name, 1e9), time.perf_counter() - t0)
        best[name + " f1"] = float([v for k, v in out.items() if "f1" in k][0])
print(json.dumps(best))
"""


def keras_row(n, runs):
    env = dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_KERAS.format(n=n, runs=runs))],
                          capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    t = json.loads(proc.stdout.strip().splitlines()[-1])
    assert abs(t["metrix f1"] - t["keras f1"]) < 1e-5, t
    return {"N": n, "metrix F1Score": fmt_time(t["metrix"]),
            "keras.metrics.F1Score": fmt_time(t["keras"]),
            "ratio": f"{t['metrix'] / t['keras']:.2f}x", "F1 (both)": f"{t['metrix f1']:.6f}"}


_HF = """
import json, re
from pathlib import Path
import numpy as np
import torch

N, C, B = {n}, {c}, 1000
names, default_path = {names!r}, {default_path!r}

def status(key):
    return int(re.search(rf"{{key}}:\\s+(\\d+)", Path("/proc/self/status").read_text())[1])

def batches():
    gen = torch.Generator().manual_seed(0)
    for i in range(0, N, B):
        yield torch.randn(B, C, generator=gen), torch.randint(0, C, (B,), generator=gen)

if default_path:  # the Trainer's default: every batch's logits on the host, concatenated
    def run():
        kept = [(z.numpy().copy(), y.numpy().copy()) for z, y in batches()]
        return np.concatenate([z for z, _ in kept]), np.concatenate([y for _, y in kept])
else:
    from metrix.integrations.transformers import compute_metrics
    cm = compute_metrics(names, labels=C)
    cm((torch.randn(B, C), torch.randint(0, C, (B,))), compute_result=True)  # the state made
    def run():
        for i, (z, y) in enumerate(batches()):
            out = cm((z, y), compute_result=(i + 1) * B >= N)
        return out
    for _ in batches():  # the batches' own memory, once, before the measure
        pass
Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
base = status("VmRSS")
run()
print(json.dumps({{"mib": (status("VmHWM") - base) / 1024}}))
"""


def hf_rows(n, c):
    cases = [("metrix: accuracy, f1", ["accuracy", "f1"], False),
             ("metrix: accuracy, f1, log_loss", ["accuracy", "f1", "log_loss"], False),
             ("metrix: accuracy, f1, roc_auc", ["accuracy", "f1", "roc_auc"], False),
             ("Trainer default path (logits gathered)", [], True)]
    rows = []
    for label, names, default_path in cases:
        code = textwrap.dedent(_HF.format(n=n, c=c, names=names, default_path=default_path))
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1"),
                              timeout=900)
        if proc.returncode:
            raise RuntimeError(proc.stderr[-3000:])
        mib = json.loads(proc.stdout.strip().splitlines()[-1])["mib"]
        print(f"  hf {label}: {mib:.1f} MiB", flush=True)
        rows.append({"samples x classes": f"{n:,} x {c:,}", "path": label,
                     "peak host memory": f"{mib * 1.048576:.0f} MB"})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,4096")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--keras-n", type=int, default=1_000_000)
    ap.add_argument("--hf-n", type=int, default=100_000)
    ap.add_argument("--skip", default="", help="comma-separated: torch, keras, hf")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    tables = []
    if "torch" not in skip and have("torch") and have("torchmetrics"):
        import torch

        torch.set_num_threads(1)
        rows = []
        for n in (int(float(v)) for v in args.sizes.split(",")):
            rows += torch_rows(n, args.runs, max(10, args.calls * 256 // max(n, 256)))
        print("\n### torch modules: update per step, against TorchMetrics\n")
        tables.append(print_table(rows, list(rows[0])))
    if "keras" not in skip and have("keras") and have("jax"):
        rows = [keras_row(args.keras_n, max(1, args.runs // 2))]
        print("\n### Keras 3 on JAX: model.evaluate with F1Score\n")
        tables.append(print_table(rows, list(rows[0])))
    if "hf" not in skip and have("transformers") and sys.platform.startswith("linux"):
        rows = hf_rows(args.hf_n, 1000)
        print("\n### Hugging Face Trainer path: peak host memory of the metrics\n")
        tables.append(print_table(rows, list(rows[0])))
    return "\n\n".join(tables)


if __name__ == "__main__":
    main()
