"""Regression family benchmark: metrix (NumPy, torch CPU) vs scikit-learn vs floors.

Run:  python -m bench.bench_regression [--n 10000000] [--repeat 3]

Floors, timed in the same run and library:
* mean-based metrics: one fused pass ``xp.sum((y_true - y_pred) ** 2)``
  (target: metrix <= 2x, with ``validate=False``; the validate=True column
  adds the NaN/inf and domain checks, which read every input once more);
* ``median_absolute_error``: one ``xp.sort`` of an N-vector (target <= 1.3x);
  the weighted median needs an argsort plus gathers, compared with one argsort.
* ``multioutput="raw_values"`` with 100 outputs (N/100 rows): no output loop.

Everything runs single-threaded (BLAS, OpenMP and torch threads = 1, unless the
environment says otherwise), so metrix, its floors and scikit-learn compare
like for like on a shared machine.
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
from bench._harness import best_time, fmt_time, have, print_table  # noqa: E402

MEAN_METRICS = [
    ("mean_absolute_error", {}),
    ("mean_squared_error", {}),
    ("root_mean_squared_error", {}),
    ("mean_squared_log_error", {}),
    ("root_mean_squared_log_error", {}),
    ("mean_absolute_percentage_error", {}),
    ("mean_pinball_loss", {"alpha": 0.3}),
    ("max_error", {}),
    ("explained_variance_score", {}),
    ("r2_score", {}),
    ("mean_tweedie_deviance", {"power": 1.5}),
    ("mean_poisson_deviance", {}),
    ("mean_gamma_deviance", {}),
    ("d2_tweedie_score", {"power": 1.5}),
]
SORT_METRICS = [
    ("median_absolute_error", {}),
    ("d2_pinball_score", {"alpha": 0.3}),
    ("d2_absolute_error_score", {}),
]


def _ratio(t, floor):
    return f"{t / floor:.2f}x"


def run(n: int, repeat: int):
    import sklearn.metrics as skm

    rng = np.random.default_rng(0)
    yt = rng.gamma(2.0, size=n) + 0.1          # positive: valid for every domain
    yp = yt * np.exp(rng.normal(size=n) * 0.2)
    w = rng.random(n)
    torch = None
    if have("torch"):
        import torch

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        tt, tp, tw = torch.from_numpy(yt), torch.from_numpy(yp), torch.from_numpy(w)

    np_floor = best_time(lambda: np.sum((yt - yp) ** 2), repeat=repeat)
    np_sort = best_time(lambda: np.sort(yt), repeat=repeat)
    np_argsort = best_time(lambda: np.argsort(yt), repeat=repeat)
    t_floor = t_sort = t_argsort = float("nan")
    if torch is not None:
        t_floor = best_time(lambda: torch.sum((tt - tp) ** 2), repeat=repeat)
        t_sort = best_time(lambda: torch.sort(tt), repeat=repeat)
        t_argsort = best_time(lambda: torch.argsort(tt), repeat=repeat)
    print(f"N = {n:.0e}; floors: NumPy sum((a-b)**2) {fmt_time(np_floor)}, sort "
          f"{fmt_time(np_sort)}, argsort {fmt_time(np_argsort)}; torch {fmt_time(t_floor)}, "
          f"sort {fmt_time(t_sort)}, argsort {fmt_time(t_argsort)}", flush=True)

    rows = []
    cases = [(m, kw, False) for m, kw in MEAN_METRICS + SORT_METRICS]
    cases += [("median_absolute_error", {}, True), ("d2_absolute_error_score", {}, True)]
    for name, kw, weighted in cases:
        fn, ref = getattr(metrix, name), getattr(skm, name)
        kw_np = dict(kw, sample_weight=w) if weighted else kw
        kw_t = dict(kw, sample_weight=tw) if weighted else kw
        is_sort = name.startswith(("median", "d2_pinball", "d2_absolute"))
        f_np = (np_argsort if weighted else np_sort) if is_sort else np_floor
        f_t = (t_argsort if weighted else t_sort) if is_sort else t_floor
        m_np = best_time(lambda: fn(yt, yp, validate=False, **kw_np), repeat=repeat)
        m_np_v = best_time(lambda: fn(yt, yp, **kw_np), repeat=repeat)
        sk = best_time(lambda: ref(yt, yp, **kw_np), repeat=repeat)
        row = {"metric": name + (" (weighted)" if weighted else ""),
               "metrix NumPy": fmt_time(m_np), "/floor": _ratio(m_np, f_np),
               "validate=True": fmt_time(m_np_v),
               "sklearn": fmt_time(sk), "sklearn/metrix": f"{sk / m_np_v:.1f}x"}
        if torch is not None:
            m_t = best_time(lambda: fn(tt, tp, validate=False, **kw_t), repeat=repeat)
            m_t_v = best_time(lambda: fn(tt, tp, **kw_t), repeat=repeat)
            row.update({"metrix torch": fmt_time(m_t), "/floor ": _ratio(m_t, f_t),
                        "torch validate=True": fmt_time(m_t_v)})
        rows.append(row)
        print(row, flush=True)
    cols = ["metric", "metrix NumPy", "/floor", "validate=True", "metrix torch", "/floor ",
            "torch validate=True", "sklearn", "sklearn/metrix"]
    print()
    print_table(rows, cols)

    # 100 outputs, raw values: one vectorised pass, no loop over outputs
    k = 100
    m = max(n // k, 2)
    Yt, Yp = rng.random((m, k)), rng.random((m, k))
    rows = []
    for name in ("mean_squared_error", "r2_score", "median_absolute_error"):
        fn, ref = getattr(metrix, name), getattr(skm, name)
        a = best_time(lambda: fn(Yt, Yp, multioutput="raw_values", validate=False),
                      repeat=repeat)
        s = best_time(lambda: ref(Yt, Yp, multioutput="raw_values"), repeat=1)
        loop = best_time(lambda: [fn(Yt[:, j], Yp[:, j], validate=False) for j in range(k)],
                         repeat=1)
        rows.append({"metric": name, f"metrix ({m}x{k})": fmt_time(a),
                     "loop over outputs": fmt_time(loop), "sklearn": fmt_time(s)})
    print()
    print_table(rows, ["metric", f"metrix ({m}x{k})", "loop over outputs", "sklearn"])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=float, default=1e7)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    run(int(args.n), args.repeat)


if __name__ == "__main__":
    main()
