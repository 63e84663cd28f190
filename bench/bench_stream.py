"""Streaming benchmark: 1000 batches of 10,000 samples, C = 10, torch CPU.

* a ``MetricCollection`` of accuracy, macro precision / recall / F1 and MCC,
  updated every batch and computed once, against the floor (1000
  ``torch.bincount`` accumulations of ``C * y_true + y_pred``; target <= 1.3x),
  the checked floor (the same with the read a correct count needs: one
  unsigned maximum of each label array, on NumPy views, as a label outside
  ``[0, C)`` would alias another cell) and TorchMetrics' ``MetricCollection``
  of the same metrics (target >= 5x);
* binned streaming ROC AUC with T = 1000 thresholds over the same batches
  (binary scores), against one ``torch.bincount`` per batch (target <= 2x).

Run: ``python -m bench.bench_stream [--batches 1000] [--size 10000]``.
"""

from __future__ import annotations

import argparse
import functools

from bench._harness import best_time, best_times, fmt_time, have, print_table


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=1000)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    b, n, c = args.batches, args.size, args.classes
    ys, ps, yb, sb = _batches(torch, b, n, c)
    t = best_times(_workloads(torch, c, ys, ps, yb, sb), repeat=args.repeat)
    t_floor, t_mx, t_mx_t = t["floor"], t["metrix"], t["trusted"]
    rows = [{"case": "floor: bincount per batch", "time": fmt_time(t_floor),
             "ratio": "1.00x floor"},
            {"case": "metrix.stream MetricCollection (5 metrics)", "time": fmt_time(t_mx),
             "ratio": f"{t_mx / t_floor:.2f}x floor (target <= 1.3x)"},
            {"case": "  same, assume_valid=True (no range clip)", "time": fmt_time(t_mx_t),
             "ratio": f"{t_mx_t / t_floor:.2f}x floor (target <= 1.3x)"},
            {"case": "checked floor: bincount + range read per batch",
             "time": fmt_time(t["checked_floor"]),
             "ratio": f"{t['checked_floor'] / t_floor:.2f}x floor; metrix "
                      f"{t_mx / t['checked_floor']:.2f}x it"}]
    if have("torchmetrics"):
        t_tm = _torchmetrics_collection_time(c, ys, ps)
        rows.append({"case": "TorchMetrics MetricCollection (5 metrics)",
                     "time": fmt_time(t_tm),
                     "ratio": f"metrix {t_tm / t_mx:.1f}x faster (target >= 5x)"})
    t_floor_auc, t_auc = t["floor_auc"], t["auc"]
    rows.append({"case": "floor: bincount per batch (AUC leg)", "time": fmt_time(t_floor_auc),
                 "ratio": "1.00x floor"})
    rows.append({"case": "metrix.stream AUROC binned T=1000", "time": fmt_time(t_auc),
                 "ratio": f"{t_auc / t_floor_auc:.2f}x floor (target <= 2x)"})
    if have("torchmetrics"):
        t_tm_auc, sub = _torchmetrics_auc_time(yb, sb)
        rows.append({"case": f"TorchMetrics BinaryAUROC(thresholds=1000) ({sub} batches, "
                             "scaled)",
                     "time": fmt_time(t_tm_auc),
                     "ratio": f"metrix {t_tm_auc / t_auc:.1f}x faster"})
    print(f"\n{b} batches x {n} samples, C={c}, torch {torch.__version__} CPU, 1 thread\n")
    print_table(rows, ["case", "time", "ratio"])


def _batches(torch, b, n, c):
    """``b`` batches of ``n``: labels and predictions of ``c`` classes, binary labels and scores."""
    g = torch.Generator().manual_seed(0)
    ys = [torch.randint(0, c, (n,), generator=g) for _ in range(b)]
    ps = [torch.where(torch.rand(n, generator=g) < 0.6, y, torch.randint(0, c, (n,),
                                                                           generator=g))
          for y in ys]
    yb = [y % 2 for y in ys]
    sb = [torch.clamp(0.35 + 0.3 * y + 0.25 * torch.randn(n, generator=g), 0, 1) for y in yb]
    return ys, ps, yb, sb


def _workloads(torch, c, ys, ps, yb, sb):
    """The timed runs over all batches: the floors and metrix.stream's metrics."""
    import metrix.stream as ms

    def floor():
        acc = torch.zeros(c * c, dtype=torch.int64)
        for y, p in zip(ys, ps):
            acc += torch.bincount(c * y + p, minlength=c * c)
        return acc

    def checked_floor():
        import numpy as np

        acc = torch.zeros(c * c, dtype=torch.int64)
        top = np.uint64(c - 1)
        for y, p in zip(ys, ps):  # a negative label is huge when read unsigned
            if (np.maximum.reduce(y.numpy().view(np.uint64)) > top
                    or np.maximum.reduce(p.numpy().view(np.uint64)) > top):
                raise ValueError("a label outside the classes")
            acc += torch.bincount(c * y + p, minlength=c * c)
        return acc

    def metrix_collection(**kw):
        coll = ms.MetricCollection({
            "acc": ms.Accuracy(c, **kw), "precision": ms.Precision(c, average="macro", **kw),
            "recall": ms.Recall(c, average="macro", **kw),
            "f1": ms.F1Score(c, average="macro", **kw), "mcc": ms.MatthewsCorrCoef(c, **kw)})
        for y, p in zip(ys, ps):
            coll.update(y, p)
        return list(coll.compute().values())

    def metrix_auc():
        m = ms.AUROC(thresholds=1000)
        for y, s in zip(yb, sb):
            m.update(y, s)
        return m.compute()

    def floor_auc():
        acc = torch.zeros(2 * 1001, dtype=torch.int64)
        for y in yb:  # the floor counts one array per batch
            acc += torch.bincount(y, minlength=2 * 1001)
        return acc

    return {"floor": floor, "checked_floor": checked_floor, "metrix": metrix_collection,
            "trusted": functools.partial(metrix_collection, assume_valid=True),
            "floor_auc": floor_auc, "auc": metrix_auc}


def _torchmetrics_collection_time(c, ys, ps):
    """Time of TorchMetrics' ``MetricCollection`` of the same five metrics (one run)."""
    from torchmetrics import MetricCollection
    from torchmetrics.classification import (
        MulticlassAccuracy,
        MulticlassF1Score,
        MulticlassMatthewsCorrCoef,
        MulticlassPrecision,
        MulticlassRecall,
    )

    def tm_collection():
        coll = MetricCollection({
            "acc": MulticlassAccuracy(c, average="micro"),
            "precision": MulticlassPrecision(c, average="macro"),
            "recall": MulticlassRecall(c, average="macro"),
            "f1": MulticlassF1Score(c, average="macro"),
            "mcc": MulticlassMatthewsCorrCoef(c)})
        for y, p in zip(ys, ps):
            coll.update(p, y)
        return list(coll.compute().values())

    return best_time(tm_collection, repeat=1)


def _torchmetrics_auc_time(yb, sb):
    """``(time, sub)``: TorchMetrics' ``BinaryAUROC(thresholds=1000)`` timed on ``sub``
    of the batches (~0.4 s a batch: 1/20 of them), scaled up to all."""
    from torchmetrics.classification import BinaryAUROC

    b = len(yb)
    sub = max(1, b // 20)

    def tm_auc():
        m = BinaryAUROC(thresholds=1000)
        for y, s in zip(yb[:sub], sb[:sub]):
            m.update(s, y)
        return m.compute()

    return best_time(tm_auc, repeat=1, warmup=0) * b / sub, sub


if __name__ == "__main__":
    main()
