"""Unsupervised clustering benchmark: metrix (NumPy, torch CPU) vs scikit-learn.

Run:  python -m bench.bench_clustering [--n 20000] [--d 64] [--k 10] [--repeat 2]

Targets, at N = 20,000, D = 64:
* ``silhouette_score`` on NumPy within 2x scikit-learn's time (scikit-learn
  also computes the distances in chunks, then one ``bincount`` per row);
* its peak extra memory (``tracemalloc``: NumPy's allocations) under 300 MB,
  where the full distance matrix would take ``8 N^2`` bytes (3.2 GB);
* faster than scikit-learn on torch CPU tensors.
``calinski_harabasz_score`` and ``davies_bouldin_score`` are timed alongside.

Supervised, at N = 1e6 labels in 100 clusters (``--ami-n``):
``adjusted_mutual_info_score`` at least 5x faster than scikit-learn's (whose
expected mutual information loops over every cell of the contingency table).

Everything runs single-threaded (BLAS, OpenMP and torch threads = 1, unless the
environment says otherwise), so metrix and scikit-learn compare like for like
on a shared machine.  scikit-learn runs without a warm-up (one silhouette call
takes seconds); metrix is warmed up on a small input first.
"""

from __future__ import annotations

import argparse
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import metrix  # noqa: E402
from bench._harness import best_times, fmt_time, have, peak_memory, print_table  # noqa: E402

MB = 2**20


def _data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(k, d)) * 2
    labels = rng.integers(0, k, n)
    return centers[labels] + rng.normal(size=(n, d)), labels


def run(n: int, d: int, k: int, repeat: int, args_ami_n: int = 10**6):
    import sklearn.metrics as skm

    X, y = _data(n, d, k)
    torch = None
    if have("torch"):
        import torch

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        tX, ty = torch.from_numpy(X), torch.from_numpy(y)
    # warm-up of metrix's code paths (imports, caches) on a small input
    metrix.silhouette_score(X[:200], y[:200])
    if torch is not None:
        metrix.silhouette_score(tX[:200], ty[:200])

    print(f"N = {n}, D = {d}, K = {k}; threads = {os.environ['OMP_NUM_THREADS']}", flush=True)
    rows = []
    summary = {}
    for name in ("silhouette_score", "calinski_harabasz_score", "davies_bouldin_score"):
        fn, ref = getattr(metrix, name), getattr(skm, name)
        fns = {"metrix": lambda: fn(X, y), "sklearn": lambda: ref(X, y)}
        if torch is not None:
            fns["torch"] = lambda: fn(tX, ty)
        t = best_times(fns, repeat=repeat, warmup=0)
        v_m, v_s = fn(X, y), ref(X, y)
        row = {"metric": name, "metrix NumPy": fmt_time(t["metrix"]),
               "sklearn": fmt_time(t["sklearn"]),
               "metrix/sklearn": f"{t['metrix'] / t['sklearn']:.2f}x",
               "|diff|": f"{abs(v_m - v_s):.1e}"}
        if torch is not None:
            row.update({"metrix torch CPU": fmt_time(t["torch"]),
                        "torch/sklearn": f"{t['torch'] / t['sklearn']:.2f}x"})
        rows.append(row)
        summary[name] = t
        print(row, flush=True)
    print()
    print_table(rows, ["metric", "metrix NumPy", "metrix torch CPU", "sklearn",
                       "metrix/sklearn", "torch/sklearn", "|diff|"])

    peak_m = peak_memory(lambda: metrix.silhouette_score(X, y))
    peak_s = peak_memory(lambda: skm.silhouette_score(X, y))
    t = summary["silhouette_score"]
    print()
    print(f"silhouette_score peak extra memory (tracemalloc): metrix {peak_m / MB:.0f} MB, "
          f"scikit-learn {peak_s / MB:.0f} MB; the full distance matrix: "
          f"{8 * n * n / MB:.0f} MB")
    checks = [
        ("NumPy time <= 2x scikit-learn", t["metrix"] <= 2 * t["sklearn"],
         f"{t['metrix'] / t['sklearn']:.2f}x"),
        ("peak extra memory < 300 MB", peak_m < 300 * MB, f"{peak_m / MB:.0f} MB"),
    ]
    if torch is not None:
        checks.append(("torch CPU faster than scikit-learn", t["torch"] < t["sklearn"],
                       f"{t['torch'] / t['sklearn']:.2f}x"))
    checks += supervised(args_ami_n, repeat)
    for what, ok, value in checks:
        print(f"  [{'ok' if ok else 'MISS'}] {what}: {value}")


def supervised(n, repeat):
    """adjusted_mutual_info_score on ``n`` labels in 100 clusters vs scikit-learn."""
    import sklearn.metrics as skm

    rng = np.random.default_rng(1)
    a = rng.integers(0, 100, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 100, n))
    t = best_times({"metrix": lambda: metrix.adjusted_mutual_info_score(a, b),
                    "sklearn": lambda: skm.adjusted_mutual_info_score(a, b)},
                   repeat=repeat, warmup=1)
    diff = abs(metrix.adjusted_mutual_info_score(a, b) - skm.adjusted_mutual_info_score(a, b))
    print()
    print_table([{"metric": f"adjusted_mutual_info_score, N = {n:.0e}, 100 clusters",
                  "metrix NumPy": fmt_time(t["metrix"]), "sklearn": fmt_time(t["sklearn"]),
                  "speed-up": f"{t['sklearn'] / t['metrix']:.1f}x", "|diff|": f"{diff:.1e}"}],
                ["metric", "metrix NumPy", "sklearn", "speed-up", "|diff|"])
    speed = t["sklearn"] / t["metrix"]
    return [("adjusted_mutual_info_score >= 5x faster than scikit-learn", speed >= 5,
             f"{speed:.1f}x")]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--ami-n", type=float, default=1e6)
    args = p.parse_args(argv)
    run(args.n, args.d, args.k, args.repeat, int(args.ami_n))


if __name__ == "__main__":
    main()
