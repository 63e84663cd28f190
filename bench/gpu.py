"""The GPU run: everything the accelerator path promises, checked on one CUDA device.

    python -m bench.gpu              # on a CUDA machine (a few minutes)
    python -m bench.gpu --dry-run    # anywhere: the same steps on CPU, small N,
                                     # the CUDA-only checks reported as skipped

Steps, one table each:

1. the CUDA legs of the conformance suite (``pytest conformance -k cuda``);
2. every public metric (declared labels, ``validate=False``) and every stream
   wrapper's ``update`` + ``compute`` under
   ``torch.cuda.set_sync_debug_mode("error")``: a host sync raises;
3. CUDA kernels per call, counted with the torch profiler;
4. time per call of f1 / confusion matrix / ROC AUC / MSE at N = 1e4, 1e6,
   1e8 against one fixed-size ``index_add_`` (labels) or one ``torch.sort``
   (ranking) and against TorchMetrics (targets at N = 1e8: labels <= 2x the
   ``index_add_``, AUC <= 1.5x the sort; at N = 4,096: <= 0.5x TorchMetrics);
5. one ``update`` of each stream metric captured in a CUDA graph
   (``torch.cuda.graph``) and replayed on new batches of the same size: the
   values equal eager updates.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench._harness import fmt_time, have, print_table  # noqa: E402

C = 10


def _maker(device, n, seed=0):
    import torch

    g = torch.Generator().manual_seed(seed)

    def make(kind, shape=None):
        shape = (n,) + tuple(shape[1:]) if shape else (
            (n, C) if kind in ("proba", "multilabel") else (n,))
        if kind == "labels":
            v = torch.randint(0, C, shape, generator=g)
        elif kind in ("binary", "multilabel"):
            v = torch.randint(0, 2, shape, generator=g)
        elif kind == "queries":
            v = torch.sort(torch.randint(0, 16, shape, generator=g)).values
        elif kind == "proba":
            v = torch.rand(shape, generator=g) + 0.1
            v = v / v.sum(-1, keepdim=True)
        elif kind == "real":
            v = torch.randn(shape, generator=g)
        else:
            v = torch.rand(shape, generator=g) + 0.05
        return v.to(device)
    return make


def conformance_legs(dry):
    if dry:
        return [{"step": "conformance CUDA legs", "result": "skipped (no CUDA device)"}]
    t0 = time.perf_counter()
    rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-x", "-k", "cuda",
                          os.path.join(ROOT, "conformance")], cwd=ROOT)
    return [{"step": "conformance CUDA legs", "result": "passed" if rc == 0 else f"rc={rc}",
             "time": fmt_time(time.perf_counter() - t0)}]


def sync_free(device, dry):
    """Each call under the sync debug mode ("error" on CUDA; a plain run on CPU)."""
    import torch

    from tests.accelerator.calls import CALLS, N

    rows = []
    for name, call in CALLS.items():
        make = _maker(device, N)
        call(make)  # warm: caches of constants
        if not dry:
            torch.cuda.synchronize()
            torch.cuda.set_sync_debug_mode("error")
        try:
            call(make)
            status = "sync-free" if not dry else "ran (CPU: not checked)"
        except RuntimeError as exc:
            status = f"SYNC: {str(exc).splitlines()[0][:80]}"
        finally:
            if not dry:
                torch.cuda.set_sync_debug_mode("default")
        rows.append({"call": name, "status": status})
    return rows


def kernel_counts(device, dry):
    import torch
    from torch.profiler import ProfilerActivity, profile

    from tests.accelerator.calls import CALLS, N

    activity = ProfilerActivity.CPU if dry else ProfilerActivity.CUDA
    rows = []
    for name, call in CALLS.items():
        make = _maker(device, N)
        call(make)
        with profile(activities=[activity]) as prof:
            call(make)
            if not dry:
                torch.cuda.synchronize()
        if dry:
            n = sum(1 for e in prof.events() if e.name.startswith("aten::"))
        else:
            n = sum(1 for e in prof.events() if e.device_type.name == "CUDA")
        rows.append({"call": name, "kernels" if not dry else "aten ops (CPU)": n})
    return rows


def _time(fn, device, repeat=5):
    import torch

    def sync():
        if device != "cpu":
            torch.cuda.synchronize()

    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def timings(device, sizes):
    import torch

    import metrix

    tm = None
    if have("torchmetrics"):
        import torchmetrics.functional.classification as tmc
        import torchmetrics.functional.regression as tmr
        tm = (tmc, tmr)
    L = list(range(C))
    rows = []
    for n in sizes:
        make = _maker(device, n)
        y, p, yb, s = make("labels"), make("labels"), make("binary"), make("score")
        r, q = make("real"), make("real")
        ones = torch.ones(n, dtype=torch.int64, device=device)

        def index_add():
            return torch.zeros(C * C, dtype=torch.int64, device=device).index_add_(0, y, ones)

        def sort():
            return torch.sort(s)

        cases = {
            "f1_score macro": (lambda: metrix.f1_score(y, p, labels=L, average="macro",
                                                       validate=False), index_add,
                               tm and (lambda: tm[0].multiclass_f1_score(
                                   p, y, C, average="macro", validate_args=False))),
            "confusion_matrix": (lambda: metrix.confusion_matrix(y, p, labels=L,
                                                                 validate=False), index_add,
                                 tm and (lambda: tm[0].multiclass_confusion_matrix(
                                     p, y, C, validate_args=False))),
            "roc_auc_score": (lambda: metrix.roc_auc_score(yb, s, validate=False), sort,
                              tm and (lambda: tm[0].binary_auroc(s, yb, validate_args=False))),
            "mean_squared_error": (lambda: metrix.mean_squared_error(r, q, validate=False),
                                   lambda: torch.sum(r), tm and (
                                       lambda: tm[1].mean_squared_error(q, r))),
        }
        for name, (fn, floor, ref) in cases.items():
            t, f = _time(fn, device), _time(floor, device)
            row = {"N": f"{n:.0e}", "metric": name, "metrix": fmt_time(t),
                   "floor": fmt_time(f), "x floor": f"{t / f:.2f}"}
            if ref is not None:
                try:
                    tr = _time(ref, device)
                    row.update({"TorchMetrics": fmt_time(tr), "x TorchMetrics": f"{t / tr:.2f}"})
                except Exception as exc:  # out of memory at 1e8, ...
                    row["TorchMetrics"] = f"failed: {type(exc).__name__}"
            rows.append(row)
    return rows


def graph_capture(device, dry):
    """One update per stream metric captured in a CUDA graph, replayed on new batches."""
    if dry:
        return [{"stream metric": "all", "graph replay": "skipped (no CUDA device)"}]
    import torch

    import metrix.stream as ms

    n = 4096
    rows = []
    makers = {"F1Score": (lambda: ms.F1Score(C), "labels", "labels"),
              "Accuracy": (lambda: ms.Accuracy(C), "labels", "labels"),
              "ConfusionMatrix": (lambda: ms.ConfusionMatrix(C), "labels", "labels"),
              "MatthewsCorrCoef": (lambda: ms.MatthewsCorrCoef(C), "labels", "labels"),
              "AUROC": (lambda: ms.AUROC(), "binary", "score"),
              "AveragePrecision": (lambda: ms.AveragePrecision(), "binary", "score"),
              "LogLoss": (lambda: ms.LogLoss(num_classes=C), "labels", "proba"),
              "MeanSquaredError": (lambda: ms.MeanSquaredError(), "real", "real"),
              "R2Score": (lambda: ms.R2Score(), "real", "real")}
    for name, (build, kt, kp) in makers.items():
        try:
            batches = [(_maker(device, n, seed)(kt), _maker(device, n, seed + 100)(kp))
                       for seed in range(4)]
            eager = build()
            for a, b in batches:
                eager.update(a, b)
            want = eager.compute()
            graphed = build().to(device)
            static_a, static_b = (x.clone() for x in batches[0])
            graphed.update(static_a, static_b)  # warm up: state and caches
            graphed.reset()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                graphed.update(static_a, static_b)
            torch.cuda.current_stream().wait_stream(stream)
            graphed.reset()
            graph = torch.cuda.CUDAGraph()
            state_before = graphed.state
            with torch.cuda.graph(graph):
                graphed.update(static_a, static_b)
            captured = graphed.state
            graphed.state = state_before
            for a, b in batches:
                static_a.copy_(a)
                static_b.copy_(b)
                graph.replay()
                # the graph writes the captured output buffers: chain them back
                # by copying into the input state the next replay reads
                for path_leaf in zip(_leaves(state_before), _leaves(captured)):
                    path_leaf[0].copy_(path_leaf[1])
            graphed.state = state_before
            got = graphed.compute()
            ok = all(torch.allclose(torch.as_tensor(g, dtype=torch.float64),
                                    torch.as_tensor(w, dtype=torch.float64), equal_nan=True)
                     for g, w in zip(_flat(got), _flat(want)))
            rows.append({"stream metric": name, "graph replay": "equal" if ok else "DIFFERS"})
        except Exception as exc:
            rows.append({"stream metric": name,
                         "graph replay": f"failed: {type(exc).__name__}: {str(exc)[:60]}"})
    return rows


def _leaves(state):
    if isinstance(state, dict):
        for k in sorted(state):
            yield from _leaves(state[k])
    elif isinstance(state, (list, tuple)):
        for v in state:
            yield from _leaves(v)
    elif hasattr(state, "copy_"):
        yield state


def _flat(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--dry-run", action="store_true",
                    help="run every step on CPU at small N (CUDA-only checks skipped)")
    ap.add_argument("--sizes", default=None, help="comma-separated N (default 1e4,1e6,1e8)")
    args = ap.parse_args(argv)
    import torch

    dry = args.dry_run or not torch.cuda.is_available()
    device = "cpu" if dry else "cuda"
    if dry:
        print("No CUDA device (or --dry-run): CPU dry run, CUDA-only steps skipped.\n")
    sizes = [int(float(v)) for v in (args.sizes or ("1e3,1e4" if dry else
                                                    "4096,1e4,1e6,1e8")).split(",")]
    print("## 1. conformance\n")
    print_table(conformance_legs(dry), ["step", "result", "time"])
    print("\n## 2. host syncs (torch.cuda.set_sync_debug_mode('error'))\n")
    print_table(sync_free(device, dry), ["call", "status"])
    print("\n## 3. kernels per call (torch profiler)\n")
    rows = kernel_counts(device, dry)
    print_table(rows, list(rows[0]))
    print("\n## 4. time per call\n")
    rows = timings(device, sizes)
    print_table(rows, ["N", "metric", "metrix", "floor", "x floor", "TorchMetrics",
                       "x TorchMetrics"])
    print("\n## 5. CUDA graph capture of stream updates\n")
    print_table(graph_capture(device, dry), ["stream metric", "graph replay"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
