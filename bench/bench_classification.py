"""Bench: classification_report, evaluate and log_loss (issue 4), NumPy (and torch CPU).

Targets (N = 1e7, C = 10, NumPy, validate=True):

* ``classification_report``: <= 3x one ``bincount`` of precomputed codes,
  >= 20x faster than scikit-learn;
* ``evaluate`` (accuracy, balanced accuracy, macro P/R/F1, MCC, kappa):
  <= 1.3x ``f1_score(average="macro")`` alone;
* ``log_loss`` (binary, 1-D probabilities): <= 2x one ``xp.log`` over them.

    python -m bench.bench_classification [--n 1e7] [--classes 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import metrix  # noqa: E402
from bench._harness import best_time, fmt_time, have, print_table  # noqa: E402

EVAL = ["accuracy", "balanced_accuracy", "precision_macro", "recall_macro", "f1_macro",
        "matthews_corrcoef", "cohen_kappa"]


def _data(n, c, seed=0):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, c, n))
    p = np.clip(np.where(yt % 2 == 1, rng.beta(4, 2, n), rng.beta(2, 4, n)), 1e-6, 1 - 1e-6)
    return yt, yp, yt % 2, p


def _row(name, t, floor, floor_name, target, sk=None):
    ratio = t / floor
    row = {"metric": name, "metrix": fmt_time(t), "floor": f"{floor_name}: {fmt_time(floor)}",
           "x floor": f"{ratio:.2f}", "target": target}
    if sk is not None:
        row["sklearn"] = fmt_time(sk)
        row["sklearn / metrix"] = f"{sk / t:.0f}"
    return row


def run(n, c, repeat=3, with_sklearn=True, validate=True):
    yt, yp, bt, p = _data(n, c)
    codes = yt * c + yp
    rows = []
    kw = {"validate": validate}
    floor_bc = best_time(lambda: np.bincount(codes, minlength=c * c), repeat=repeat)
    t_rep = best_time(lambda: metrix.classification_report(yt, yp, **kw), repeat=repeat)
    sk = None
    if with_sklearn and have("sklearn"):
        from sklearn.metrics import classification_report

        sk = best_time(lambda: classification_report(yt, yp), repeat=1, warmup=0)
    rows.append(_row("classification_report", t_rep, floor_bc, "bincount", "<= 3x, >= 20x sk",
                     sk))

    t_f1 = best_time(lambda: metrix.f1_score(yt, yp, average="macro", **kw), repeat=repeat)
    t_ev = best_time(lambda: metrix.evaluate(yt, yp, metrics=EVAL, **kw), repeat=repeat)
    sk = None
    if with_sklearn and have("sklearn"):
        from sklearn import metrics as skm

        def sk_all():
            skm.accuracy_score(yt, yp)
            skm.balanced_accuracy_score(yt, yp)
            skm.precision_score(yt, yp, average="macro")
            skm.recall_score(yt, yp, average="macro")
            skm.f1_score(yt, yp, average="macro")
            skm.matthews_corrcoef(yt, yp)
            skm.cohen_kappa_score(yt, yp)

        sk = best_time(sk_all, repeat=1, warmup=0)
    rows.append(_row("evaluate (7 label metrics)", t_ev, t_f1, "f1_score", "<= 1.3x", sk))

    floor_log = best_time(lambda: np.log(p), repeat=repeat)
    t_ll = best_time(lambda: metrix.log_loss(bt, p, **kw), repeat=repeat)
    sk = None
    if with_sklearn and have("sklearn"):
        from sklearn.metrics import log_loss

        sk = best_time(lambda: log_loss(bt, p), repeat=1, warmup=0)
    rows.append(_row("log_loss (binary)", t_ll, floor_log, "np.log", "<= 2x", sk))
    if have("torch"):
        import torch

        tyt, typ, tbt, tpp = (torch.from_numpy(a) for a in (yt, yp, bt, p))
        tfloor = best_time(lambda: torch.bincount(torch.from_numpy(codes), minlength=c * c),
                           repeat=repeat)
        t = best_time(lambda: metrix.classification_report(tyt, typ, **kw), repeat=repeat)
        rows.append(_row("classification_report (torch)", t, tfloor, "torch.bincount", ""))
        t1 = best_time(lambda: metrix.f1_score(tyt, typ, average="macro", **kw), repeat=repeat)
        t = best_time(lambda: metrix.evaluate(tyt, typ, metrics=EVAL, **kw), repeat=repeat)
        rows.append(_row("evaluate (torch)", t, t1, "f1_score", ""))
        tl = best_time(lambda: torch.log(tpp), repeat=repeat)
        t = best_time(lambda: metrix.log_loss(tbt, tpp, **kw), repeat=repeat)
        rows.append(_row("log_loss (torch)", t, tl, "torch.log", ""))
    cols = ["metric", "metrix", "floor", "x floor", "target", "sklearn", "sklearn / metrix"]
    print(f"\nN = {n:.0e}, C = {c}, validate={validate}")
    return print_table(rows, cols)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", default="1e7")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-sklearn", action="store_true")
    args = ap.parse_args(argv)
    n = int(float(args.n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = [run(n, args.classes, args.repeat, not args.no_sklearn, validate=True),
               run(n, args.classes, args.repeat, False, validate=False)]
    return "\n\n".join(out)


if __name__ == "__main__":
    main()
