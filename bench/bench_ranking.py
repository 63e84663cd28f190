"""Ranking family benchmarks: metrix vs scikit-learn, TorchMetrics and the sort floor.

Targets (issue 5):

* binary ``roc_auc_score`` / ``average_precision_score``, N = 1e7: at most
  1.5x one argsort of the scores in the same library (NumPy; torch CPU), at
  least 3x faster than scikit-learn, faster than TorchMetrics;
* multiclass one-vs-rest AUC, N = 1e6, C = 100: at least 5x faster than
  scikit-learn (one batched sort, no loop over classes).

Run: ``python bench/bench_ranking.py [--n 10000000] [--mc-n 1000000] [--classes 100]``.
Each timing is the best of ``--repeat`` runs after a warm-up; every ratio
compares numbers taken in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import metrix  # noqa: E402
from bench._harness import best_time, fmt_time, have, print_table  # noqa: E402


def _ratio(a, b):
    return f"{a / b:.2f}x" if b == b and b > 0 and a == a else "n/a"


def binary_rows(n, repeat):
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.random(n)
    rows = []
    from sklearn import metrics as skm

    floor_np = best_time(lambda: np.argsort(s), repeat=repeat)
    floor_np_stable = best_time(lambda: np.argsort(s, kind="stable"), repeat=repeat)
    libs = {"numpy": (y, s, floor_np, floor_np_stable)}
    if have("torch"):
        import torch

        yt, st = torch.from_numpy(y), torch.from_numpy(s)
        floor_t = best_time(lambda: torch.argsort(st), repeat=repeat)
        floor_t_stable = best_time(lambda: torch.argsort(st, stable=True), repeat=repeat)
        libs["torch-cpu"] = (yt, st, floor_t, floor_t_stable)
    for name, sk_fn, tm_name in (("roc_auc_score", skm.roc_auc_score, "binary_auroc"),
                                 ("average_precision_score", skm.average_precision_score,
                                  "binary_average_precision")):
        t_sk = best_time(lambda: sk_fn(y, s), repeat=1, warmup=0)
        fn = getattr(metrix, name)
        for lib, (yy, ss, floor, floor_stable) in libs.items():
            t_v = best_time(lambda: fn(yy, ss), repeat=repeat)
            t_nv = best_time(lambda: fn(yy, ss, validate=False), repeat=repeat)
            row = {"metric": name, "lib": lib, "metrix": fmt_time(t_v),
                   "metrix validate=False": fmt_time(t_nv), "argsort": fmt_time(floor),
                   "vs argsort": _ratio(t_nv, floor),
                   "vs stable argsort": _ratio(t_nv, floor_stable),
                   "sklearn": fmt_time(t_sk), "speedup vs sklearn": _ratio(t_sk, t_v)}
            if lib == "torch-cpu" and have("torchmetrics"):
                import torchmetrics.functional.classification as tmf

                tm = getattr(tmf, tm_name)
                t_tm = best_time(lambda: tm(ss, yy), repeat=repeat)
                row["torchmetrics"] = fmt_time(t_tm)
                row["speedup vs torchmetrics"] = _ratio(t_tm, t_v)
            rows.append(row)
    return rows


def multiclass_rows(n, c, repeat):
    from sklearn import metrics as skm

    rng = np.random.default_rng(1)
    s = rng.random((n, c)).astype(np.float32)
    s /= s.sum(axis=1, keepdims=True)
    y = rng.integers(0, c, n)
    labels = list(range(c))
    t_sk = best_time(lambda: skm.roc_auc_score(y, s, multi_class="ovr"), repeat=1, warmup=0)
    t_v = best_time(lambda: metrix.roc_auc_score(y, s, multi_class="ovr"), repeat=repeat)
    t_nv = best_time(lambda: metrix.roc_auc_score(y, s, multi_class="ovr", labels=labels,
                                                  validate=False), repeat=repeat)
    t_sort = best_time(lambda: np.sort(s, axis=0), repeat=1)
    rows = [{"metric": f"roc_auc_score ovr N={n} C={c}", "lib": "numpy",
             "metrix": fmt_time(t_v), "metrix validate=False": fmt_time(t_nv),
             "sort (N, C) axis 0": fmt_time(t_sort), "sklearn": fmt_time(t_sk),
             "speedup vs sklearn": _ratio(t_sk, t_v)}]
    if have("torch"):
        import torch

        st, yt = torch.from_numpy(s), torch.from_numpy(y)
        t_t = best_time(lambda: metrix.roc_auc_score(yt, st, multi_class="ovr", labels=labels,
                                                     validate=False), repeat=repeat)
        row = {"metric": f"roc_auc_score ovr N={n} C={c}", "lib": "torch-cpu",
               "metrix validate=False": fmt_time(t_t), "sklearn": fmt_time(t_sk),
               "speedup vs sklearn": _ratio(t_sk, t_t)}
        if have("torchmetrics"):
            import torchmetrics.functional.classification as tmf

            t_tm = best_time(lambda: tmf.multiclass_auroc(st, yt, num_classes=c,
                                                          average="macro"), repeat=1)
            row["torchmetrics"] = fmt_time(t_tm)
            row["speedup vs torchmetrics"] = _ratio(t_tm, t_t)
        rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--mc-n", type=int, default=1_000_000)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--skip-multiclass", action="store_true")
    args = ap.parse_args(argv)
    rows = binary_rows(args.n, args.repeat)
    cols = ["metric", "lib", "metrix", "metrix validate=False", "argsort", "vs argsort",
            "vs stable argsort", "sklearn", "speedup vs sklearn", "torchmetrics",
            "speedup vs torchmetrics"]
    print_table(rows, cols)
    if not args.skip_multiclass:
        print()
        print_table(multiclass_rows(args.mc_n, args.classes, args.repeat),
                    ["metric", "lib", "metrix", "metrix validate=False", "sort (N, C) axis 0",
                     "sklearn", "speedup vs sklearn", "torchmetrics",
                     "speedup vs torchmetrics"])


if __name__ == "__main__":
    main()
