"""Pairwise benchmark: metrix (NumPy, torch CPU) vs scikit-learn.

Run:  python -m bench.bench_pairwise [--nx 20000] [--ny 4000] [--n 5000] [--d 64] [--repeat 3]

Targets:
* ``pairwise_distances_argmin_min``, X 20,000 x 64 and Y 4,000 x 64 float32:
  NumPy at most scikit-learn's time (its ``ArgKmin``: float64 chunks, a fused
  Cython reduction), torch CPU at most 0.7x; the peak extra memory of the
  NumPy call (``tracemalloc``) under 64 MB, where the distance matrix would
  take ``8 Nx Ny`` bytes (640 MB).  ``tracemalloc`` does not see torch's
  allocations: the torch call's peak is the growth of the resident set,
  sampled every 0.5 ms while it runs, before any other large call (Linux
  ``/proc``; allocator slack counts, pages freed earlier and reused do not);
* ``euclidean_distances`` and ``rbf_kernel`` of 5,000 x 64 float32 rows
  (``Y=None``) on torch CPU at most scikit-learn's time;
* ``pairwise_distances`` of SciPy's metrics that metrix computes on NumPy
  input too (``"jaccard"`` and ``"yule"`` of 2,000 x 64 bool rows,
  ``"correlation"`` of float64 rows, ``Y=None``) at most scikit-learn's time
  (SciPy's ``pdist``), the boolean ones equal bit for bit.

Everything runs single-threaded (BLAS, OpenMP and torch threads = 1, unless
the environment says otherwise), so metrix and scikit-learn compare like for
like on a shared machine; the calls are interleaved (``best_times``).
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


def _ratio(t, key):
    return t[key] / t["sklearn"]


def _rss_peak(fn):
    """Peak growth of the resident set while ``fn`` runs (sampled), bytes; None
    without ``/proc/self/statm``."""
    import threading
    import time

    path = "/proc/self/statm"
    if not os.path.exists(path):
        return None

    def rss():
        with open(path) as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    base = rss()
    peak, done = [base], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss())
            time.sleep(0.0005)

    thread = threading.Thread(target=sample)
    thread.start()
    try:
        fn()
    finally:
        done.set()
        thread.join()
    return max(peak[0], rss()) - base


def argmin_min(nx, ny, d, repeat):
    import sklearn.metrics as skm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(nx, d)).astype(np.float32)
    Y = rng.normal(size=(ny, d)).astype(np.float32)
    fns = {"metrix": lambda: metrix.pairwise_distances_argmin_min(X, Y),
           "sklearn": lambda: skm.pairwise_distances_argmin_min(X, Y)}
    torch = None
    if have("torch"):
        import torch

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        tX, tY = torch.from_numpy(X), torch.from_numpy(Y)
        fns["torch"] = lambda: metrix.pairwise_distances_argmin_min(tX, tY)
    metrix.pairwise_distances_argmin_min(X[:100], Y)  # warm-up of imports and caches
    peak_t = None
    if torch is not None:  # first: before the timed calls leave freed pages resident
        metrix.pairwise_distances_argmin_min(tX[:100], tY)
        peak_t = _rss_peak(lambda: metrix.pairwise_distances_argmin_min(tX, tY))
    t = best_times(fns, repeat=repeat, warmup=1)
    i_m, d_m = metrix.pairwise_distances_argmin_min(X, Y)
    i_s, d_s = skm.pairwise_distances_argmin_min(X, Y)
    peak = peak_memory(lambda: metrix.pairwise_distances_argmin_min(X, Y))
    row = {"call": f"pairwise_distances_argmin_min {nx}x{d} vs {ny}x{d} float32",
           "metrix NumPy": fmt_time(t["metrix"]), "sklearn": fmt_time(t["sklearn"]),
           "NumPy/sklearn": f"{_ratio(t, 'metrix'):.2f}x",
           "same argmin": f"{(i_m == i_s).mean():.5f}",
           "max |diff|": f"{np.abs(d_m - d_s).max():.1e}"}
    checks = [("argmin_min NumPy <= 1.0x scikit-learn", _ratio(t, "metrix") <= 1.0,
               f"{_ratio(t, 'metrix'):.2f}x"),
              ("argmin_min peak extra memory < 64 MB", peak < 64 * MB,
               f"{peak / MB:.1f} MB (the matrix: {8 * nx * ny / MB:.0f} MB)")]
    if torch is not None:
        row.update({"metrix torch CPU": fmt_time(t["torch"]),
                    "torch/sklearn": f"{_ratio(t, 'torch'):.2f}x"})
        checks.append(("argmin_min torch CPU <= 0.7x scikit-learn", _ratio(t, "torch") <= 0.7,
                       f"{_ratio(t, 'torch'):.2f}x"))
        if peak_t is not None:
            checks.append(("argmin_min torch CPU peak extra memory < 64 MB (resident set)",
                           peak_t < 64 * MB, f"{peak_t / MB:.1f} MB"))
    return row, checks


def matrices(n, d, repeat):
    import sklearn.metrics.pairwise as skp

    rows, checks = [], []
    if not have("torch"):
        return rows, checks
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    rng = np.random.default_rng(1)
    A = rng.normal(size=(n, d)).astype(np.float32)
    tA = torch.from_numpy(A)
    for name in ("euclidean_distances", "rbf_kernel"):
        ours, ref = getattr(metrix.pairwise, name), getattr(skp, name)
        ours(tA[:100])  # warm-up
        t = best_times({"torch": lambda: ours(tA), "sklearn": lambda: ref(A)},
                       repeat=repeat, warmup=1)
        diff = float(np.abs(ours(tA).numpy() - ref(A)).max())
        rows.append({"call": f"{name} {n}x{d} float32 (Y=None)",
                     "metrix torch CPU": fmt_time(t["torch"]), "sklearn": fmt_time(t["sklearn"]),
                     "torch/sklearn": f"{_ratio(t, 'torch'):.2f}x", "max |diff|": f"{diff:.1e}"})
        checks.append((f"{name} torch CPU <= 1.0x scikit-learn", _ratio(t, "torch") <= 1.0,
                       f"{_ratio(t, 'torch'):.2f}x"))
    return rows, checks


def scipy_metrics(n, d, repeat):
    import warnings

    import sklearn.metrics.pairwise as skp

    rng = np.random.default_rng(2)
    B = rng.random((n, d)) > 0.6
    F = rng.normal(size=(n, d))
    rows, checks = [], []
    for metric, A in (("jaccard", B), ("yule", B), ("correlation", F)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = best_times({"metrix": lambda: metrix.pairwise_distances(A, metric=metric),
                            "sklearn": lambda: skp.pairwise_distances(A, metric=metric)},
                           repeat=repeat, warmup=1)
            diff = np.nanmax(np.abs(metrix.pairwise_distances(A, metric=metric)
                                    - skp.pairwise_distances(A, metric=metric)))
        rows.append({"call": f"pairwise_distances {metric!r} {n}x{d} {A.dtype} (Y=None)",
                     "metrix NumPy": fmt_time(t["metrix"]), "sklearn": fmt_time(t["sklearn"]),
                     "NumPy/sklearn": f"{_ratio(t, 'metrix'):.2f}x", "max |diff|": f"{diff:.1e}"})
        checks.append((f"pairwise_distances {metric!r} NumPy <= 1.0x scikit-learn",
                       _ratio(t, "metrix") <= 1.0, f"{_ratio(t, 'metrix'):.2f}x"))
        if metric != "correlation":
            checks.append((f"pairwise_distances {metric!r} equal to SciPy's", diff == 0,
                           f"{diff:.1e}"))
    return rows, checks


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nx", type=int, default=20000)
    p.add_argument("--ny", type=int, default=4000)
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--nb", type=int, default=2000, help="rows of the SciPy-metric calls")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    print(f"threads = {os.environ['OMP_NUM_THREADS']} (OpenMP: scikit-learn's ArgKmin; BLAS; "
          "torch.set_num_threads)", flush=True)
    row, checks = argmin_min(args.nx, args.ny, args.d, args.repeat)
    rows, more = matrices(args.n, args.d, args.repeat)
    scipy_rows, scipy_checks = scipy_metrics(args.nb, args.d, args.repeat)
    rows += scipy_rows
    more += scipy_checks
    print()
    print_table([row, *rows], ["call", "metrix NumPy", "metrix torch CPU", "sklearn",
                               "NumPy/sklearn", "torch/sklearn", "same argmin", "max |diff|"])
    print()
    for what, ok, value in checks + more:
        print(f"  [{'ok' if ok else 'MISS'}] {what}: {value}")


if __name__ == "__main__":
    main()
