"""Ragged retrieval: ``map_at_k`` and ``ndcg_at_k`` at k=10 against TorchMetrics.

Data: ``--queries`` queries x ``--items`` items each (default 1e5 x 100 =
1e7 pairs), shuffled flat arrays with integer query ids, ~5% relevant,
graded relevance 0..3 for nDCG.  TorchMetrics is ``RetrievalMAP`` /
``RetrievalNormalizedDCG`` (update + compute; it loops over queries in
Python), timed once (it takes tens of seconds) unless ``--tm-repeat``.
metrix runs on torch (same tensors) and NumPy, in three forms:

* ``ids``: arbitrary ids (encoded, padded layout);
* ``n_queries+max_items``: ids in [0, Q) and the width given (padded layout,
  no host read, traceable);
* ``n_queries``: ids in [0, Q) only (lexsort path, traceable).

``--grouped`` keeps the pairs sorted by query (per-user candidate lists, the
usual recommender layout); the default shuffles them.

Run: ``python -m bench.bench_retrieval [--queries 100000 --items 100]``.
"""

from __future__ import annotations

import argparse

import numpy as np

import metrix
from bench._harness import best_time, fmt_time, have, print_table


def _data(n_queries, n_items, seed=0, grouped=False):
    rng = np.random.default_rng(seed)
    n = n_queries * n_items
    q = np.repeat(np.arange(n_queries), n_items)
    if not grouped:
        q = q[rng.permutation(n)]
    # positive scores: TorchMetrics treats scores <= 0 as irrelevant
    scores = rng.random(n) + 1e-3
    rel = (rng.random(n) < 0.05).astype(np.int64)
    graded = rng.integers(0, 4, n) * (rng.random(n) < 0.05)
    return q, scores, rel, graded


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tm-repeat", type=int, default=1)
    ap.add_argument("--no-torchmetrics", action="store_true")
    ap.add_argument("--grouped", action="store_true",
                    help="pairs sorted by query (a recommender's per-user lists)")
    args = ap.parse_args(argv)
    nq, ni, k = args.queries, args.items, args.k
    q, scores, rel, graded = _data(nq, ni, grouped=args.grouped)
    forms = {"ids": {}, "n_queries+max_items": {"n_queries": nq, "max_items": ni},
             "n_queries": {"n_queries": nq}}
    rows = []
    for metric, tgt, tm_name in (("map_at_k", rel, "RetrievalMAP"),
                                 ("ndcg_at_k", graded, "RetrievalNormalizedDCG")):
        fn = getattr(metrix, metric)
        tm_time, tm_value = float("nan"), float("nan")
        if have("torch"):
            import torch

            tt, ts, tq = (torch.from_numpy(a) for a in (tgt, scores, q))
            if have("torchmetrics") and not args.no_torchmetrics:
                import torchmetrics.retrieval as tmr

                last = []

                def run_tm():
                    m = getattr(tmr, tm_name)(top_k=k)
                    m.update(ts, tt, indexes=tq)
                    last[:] = [m.compute()]
                    return last[0]

                tm_time = best_time(run_tm, repeat=args.tm_repeat, warmup=0)
                tm_value = float(last[0])
            backends = [("torch", (tt, ts, tq)), ("numpy", (tgt, scores, q))]
        else:
            backends = [("numpy", (tgt, scores, q))]
        rows.append({"metric": metric, "impl": f"torchmetrics {tm_name}", "form": "ids",
                     "time": fmt_time(tm_time), "speedup": "1x"})
        for lib, (a, b, c) in backends:
            for form, kw in forms.items():
                def run(a=a, b=b, c=c, kw=kw):
                    return fn(a, b, k=k, query_ids=c, **kw)

                t = best_time(run, repeat=args.repeat)
                value = float(run())
                ratio = tm_time / t if tm_time == tm_time else float("nan")
                rows.append({"metric": metric, "impl": f"metrix ({lib})", "form": form,
                             "time": fmt_time(t), "speedup": f"{ratio:.1f}x",
                             "value": f"{value:.6f}"})
        rows[len(rows) - 1 - len(backends) * len(forms)]["value"] = f"{tm_value:.6f}"
    layout = "grouped by query" if args.grouped else "shuffled"
    print(f"\nRagged retrieval, {nq} queries x {ni} items ({layout}), k={k}\n")
    print_table(rows, ["metric", "impl", "form", "time", "speedup", "value"])


if __name__ == "__main__":
    main()
