"""Bootstrap benchmarks: each default binary metric of ``metrix eval``, and the set.

Targets (N = 1e6, B = 1000, NumPy on the bench machine):

* each default binary metric's bootstrap at most 20x one call of it;
* the whole default binary set with intervals (``bootstrap_many``: one shared
  draw) at most 60 s.

The floor of a per-sample bootstrap is drawing the ``B x N`` resample counts
(``B`` rows of ``N`` uniform indices turned into counts by one ``bincount``, or
``B x N`` Poisson(1) counts from the counter-based generator): every metric
without a shortcut pays it, so each bootstrap is shown against it too.
Unweighted label metrics draw their confusion cells instead (no per-sample
draw) when bootstrapped alone.

Run: ``python -m bench.bench_bootstrap [--n 1e6] [--b 1000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import metrix  # noqa: E402
from bench._harness import best_time, fmt_time, print_table  # noqa: E402
from metrix.evaluation._batched_paths import _int_counts  # noqa: E402
from metrix.evaluation._poisson import poisson_counts  # noqa: E402
from metrix.evaluation.intervals import bootstrap_many  # noqa: E402


def data(n):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    return y, (s > 0.5).astype(np.int64), s


def default_calls(y, p, s, w=None):
    """The binary task's default metrics, called as ``metrix eval`` calls them."""
    sw = {} if w is None else {"sample_weight": w}
    return {
        "accuracy": (metrix.accuracy_score, (y, p), dict(sw)),
        "balanced_accuracy": (metrix.balanced_accuracy_score, (y, p), dict(sw)),
        "precision": (metrix.precision_score, (y, p), {"pos_label": 1, **sw}),
        "recall": (metrix.recall_score, (y, p), {"pos_label": 1, **sw}),
        "f1": (metrix.f1_score, (y, p), {"pos_label": 1, **sw}),
        "mcc": (metrix.matthews_corrcoef, (y, p), dict(sw)),
        "roc_auc": (metrix.roc_auc_score, (y, s), dict(sw)),
        "average_precision": (metrix.average_precision_score, (y, s), {"pos_label": 1, **sw}),
        "log_loss": (metrix.log_loss, (y, s), {"labels": [0, 1], **sw}),
        "brier": (metrix.brier_score_loss, (y, s), {"pos_label": 1, **sw}),
    }


def floors(n, b, repeat):
    """Seconds to draw B x N resample counts: multinomial (indices + bincount), Poisson."""
    import array_api_compat.numpy as xp

    from metrix.backends import ops

    m = max(1, min(b, (1 << 21) // n))
    g = np.random.default_rng(0)
    o = ops(xp)

    def multinomial():
        for s in range(0, b, m):
            _int_counts(g.integers(0, n, (min(m, b - s), n), dtype=np.int32), n, xp=xp, o=o)

    def poisson():
        for s in range(0, b, m):
            poisson_counts(0, 0, n, s, min(m, b - s))

    return (best_time(multinomial, repeat=repeat, warmup=0),
            best_time(poisson, repeat=repeat, warmup=0))


def _x(a, b):
    return f"{a / b:.1f}x" if b > 0 else "n/a"


def run(n, b, repeat, weighted):
    y, p, s = data(n)
    w = np.random.default_rng(1).random(n) + 0.5 if weighted else None
    calls = default_calls(y, p, s, w)
    f_mult, f_pois = floors(n, b, repeat)
    print(f"N = {n:.0e}, B = {b}{', weighted' if weighted else ''}; floor of drawing the "
          f"B x N counts: multinomial {fmt_time(f_mult)}, Poisson {fmt_time(f_pois)}\n")
    rows = []
    for name, (fn, args, kw) in calls.items():
        t1 = best_time(lambda: fn(*args, **kw), repeat=repeat)
        t0 = time.perf_counter()
        metrix.bootstrap(fn, *args, n_resamples=b, random_state=0, **kw)
        tb = time.perf_counter() - t0
        rows.append({"metric": name, "one call": fmt_time(t1), "bootstrap": fmt_time(tb),
                     "bootstrap / call": _x(tb, t1), "bootstrap / floor": _x(tb, f_mult)})
        print(f"  {name}: {fmt_time(tb)}", file=sys.stderr, flush=True)
    print_table(rows, ["metric", "one call", "bootstrap", "bootstrap / call",
                       "bootstrap / floor"])
    total_single = sum(float(r["bootstrap"].split()[0]) * _unit(r["bootstrap"]) for r in rows)
    print()
    joint = []
    for resampling in ("multinomial", "poisson"):
        t0 = time.perf_counter()
        res = bootstrap_many(calls, n_resamples=b, random_state=0, resampling=resampling)
        tj = time.perf_counter() - t0
        bad = [k for k, v in res.items() if isinstance(v, Exception)]
        floor = f_mult if resampling == "multinomial" else f_pois
        joint.append({"whole default set": f"bootstrap_many, {resampling}",
                      "time": fmt_time(tj), "separate bootstraps": fmt_time(total_single),
                      "time / floor": _x(tj, floor),
                      "failed": ", ".join(bad) or "none"})
    print_table(joint, ["whole default set", "time", "separate bootstraps", "time / floor",
                        "failed"])


def _unit(text):
    return {"us": 1e-6, "ms": 1e-3, "s": 1.0}[text.split()[1]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--b", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--weighted", action="store_true", help="with sample weights")
    args = ap.parse_args(argv)
    run(int(args.n), args.b, args.repeat, args.weighted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
