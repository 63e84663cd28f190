"""Bench: the confusion-matrix family (f1_score, average="macro").

For N in 1e5, 1e6, 1e7 and C in 10, 1000: metrix on NumPy and torch CPU,
scikit-learn, TorchMetrics, and the floor (one bincount of precomputed codes
in the same library), with ratios.  Targets (N = 1e7, C = 10, validate=True):
metrix <= 2.0x the floor of its library, >= 20x faster than scikit-learn;
on pandas Series <= 1.1x the same call on their NumPy arrays.
metrix's NumPy count splits large inputs over threads (``METRIX_NUM_THREADS``);
the "1 thread" column is the same call on one.

    python -m bench.bench_labels [--sizes 1e5,1e6,1e7] [--classes 10,1000]
"""

from __future__ import annotations

import argparse
import contextlib
import os

import numpy as np

import metrix
from bench._harness import best_time, best_times, fmt_time, have, peak_memory, print_table


def _data(n, c, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, c, n))
    return yt, yp


@contextlib.contextmanager
def _one_thread():
    """metrix's NumPy kernels on one thread (``METRIX_NUM_THREADS=1``)."""
    old = os.environ.get("METRIX_NUM_THREADS")
    os.environ["METRIX_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["METRIX_NUM_THREADS"]
        else:
            os.environ["METRIX_NUM_THREADS"] = old


def run(sizes, classes, repeat=5):
    rows = []
    for c in classes:
        for n in sizes:
            yt, yp = _data(n, c)
            codes = yt * c + yp
            row = {"N": f"{n:.0e}", "C": c}
            # floor and metrix interleaved: a slow spell of the machine falls on both
            t = best_times({"floor": lambda: np.bincount(codes, minlength=c * c),
                            "metrix": lambda: metrix.f1_score(yt, yp, average="macro")},
                           repeat=repeat)
            floor_np, t_np = t["floor"], t["metrix"]
            row["floor numpy"] = fmt_time(floor_np)
            row["metrix numpy"] = fmt_time(t_np)
            row["x floor (np)"] = f"{t_np / floor_np:.2f}"
            with _one_thread():
                t_np1 = best_time(lambda: metrix.f1_score(yt, yp, average="macro"),
                                  repeat=repeat)
            row["x floor (np, 1 thread)"] = f"{t_np1 / floor_np:.2f}"
            if have("pandas"):
                import pandas as pd

                st, sp = pd.Series(yt), pd.Series(yp)
                t = best_times({"numpy": lambda: metrix.f1_score(yt, yp, average="macro"),
                                "pandas": lambda: metrix.f1_score(st, sp, average="macro")},
                               repeat=repeat)
                row["pandas / numpy"] = f"{t['pandas'] / t['numpy']:.2f}"
            if have("torch"):
                import torch

                ty, tp, tc = (torch.from_numpy(a) for a in (yt, yp, codes))
                t = best_times({"floor": lambda: torch.bincount(tc, minlength=c * c),
                                "metrix": lambda: metrix.f1_score(ty, tp, average="macro")},
                               repeat=repeat)
                floor_t, t_t = t["floor"], t["metrix"]
                row["floor torch"] = fmt_time(floor_t)
                row["metrix torch"] = fmt_time(t_t)
                row["x floor (torch)"] = f"{t_t / floor_t:.2f}"
                if have("torchmetrics"):
                    from torchmetrics.functional.classification import multiclass_f1_score

                    t_tm = best_time(lambda: multiclass_f1_score(
                        tp, ty, num_classes=c, average="macro"), repeat=1)
                    row["torchmetrics"] = fmt_time(t_tm)
                    row["tm / metrix torch"] = f"{t_tm / t_t:.1f}"
            if have("sklearn") and n <= 10**7:
                from sklearn.metrics import f1_score

                t_sk = best_time(lambda: f1_score(yt, yp, average="macro"), repeat=1,
                                 warmup=0)
                row["sklearn"] = fmt_time(t_sk)
                row["sklearn / metrix np"] = f"{t_sk / t_np:.0f}"
            if n == max(sizes):
                extra = peak_memory(lambda: metrix.f1_score(yt, yp, average="macro"))
                row["peak extra (np)"] = f"{extra / (8 * n):.2f} x N int64"
            rows.append(row)
    cols = ["N", "C", "floor numpy", "metrix numpy", "x floor (np)", "x floor (np, 1 thread)",
            "pandas / numpy",
            "floor torch", "metrix torch", "x floor (torch)", "torchmetrics", "tm / metrix torch",
            "sklearn", "sklearn / metrix np", "peak extra (np)"]
    return print_table(rows, cols)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1e5,1e6,1e7")
    ap.add_argument("--classes", default="10,1000")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    classes = [int(c) for c in args.classes.split(",")]
    run(sizes, classes, repeat=args.repeat)


if __name__ == "__main__":
    main()
