"""Training-loop metrics: per-update cost of the aggregators, ``CalibrationError``, the
correlations, perplexity, the operating points and the multilabel label streams, torch
CPU, one thread.

For each batch size, each class's ``update`` against TorchMetrics' class of the
same name (target: at most 0.5x its time) and, for ``MeanMetric``, against the
floor: a bare ``torch.sum`` added into a preallocated float64 accumulator
(target: at most 2x).  The calls of one size are timed interleaved (one block of
updates of each per round), so a slow spell of a noisy machine falls on all.

Run: ``python -m bench.bench_training_loop [--sizes 256,4096] [--updates 2000]``.
"""

from __future__ import annotations

import argparse
import warnings

from bench._harness import best_times, fmt_time, have, print_table

#: the exact operating points' buffer: a validation set of this many samples
EXACT_CAPACITY = 1 << 16


def _workloads(torch, n, updates):
    import metrix.stream as ms

    x = torch.randn(n)
    w = torch.rand(n)
    acc = torch.zeros((), dtype=torch.float64)

    def loop(update, *args):
        def run():
            for _ in range(updates):
                update(*args)
        return run

    def floor():
        for _ in range(updates):
            acc.add_(torch.sum(x))

    fns = {"floor": floor}
    ours = {"MeanMetric": (ms.MeanMetric(), (x,)),
            "MeanMetric weighted": (ms.MeanMetric(), (x, w)),
            "SumMetric": (ms.SumMetric(), (x,)),
            "MaxMetric": (ms.MaxMetric(), (x,)),
            "MinMetric": (ms.MinMetric(), (x,))}
    for name, (metric, args) in ours.items():
        metric.update(*args)  # the state exists: a training loop's steady state
        fns["metrix " + name] = loop(metric.update, *args)
    if have("torchmetrics"):
        from torchmetrics import aggregation

        for name, (_, args) in ours.items():
            # nan_strategy="disable" as metrix's default: no host read per update
            cls = getattr(aggregation, name.split()[0])
            theirs = cls(nan_strategy="disable")
            fns["tm " + name] = loop(theirs.update, *args)
    fns.update(_calibration_workloads(torch, n, updates))
    fns.update(_corr_workloads(torch, n, updates))
    fns.update(_operating_point_workloads(torch, n, updates))
    fns.update(_multilabel_workloads(torch, n, updates))
    return fns


def _calibration_workloads(torch, n, updates):
    """``CalibrationError`` (binary, and top-label over 10 classes) against
    TorchMetrics' ``BinaryCalibrationError`` / ``MulticlassCalibrationError``
    (their defaults: ``validate_args=True``; metrix's ``validate=False``)."""
    import metrix.stream as ms

    c = 10
    y, p = torch.randint(0, 2, (n,)), torch.rand(n)
    yc = torch.randint(0, c, (n,))
    pc = torch.softmax(torch.randn(n, c), dim=1)

    def loop(update, *args):
        def run():
            for _ in range(updates):
                update(*args)
        return run

    fns = {}
    cases = {"CalibrationError": (ms.CalibrationError(), (y, p)),
             "CalibrationError multiclass": (ms.CalibrationError(num_classes=c), (yc, pc))}
    for name, (metric, args) in cases.items():
        metric.update(*args)  # the state exists: a training loop's steady state
        fns["metrix " + name] = loop(metric.update, *args)
    if have("torchmetrics"):
        from torchmetrics.classification import (
            BinaryCalibrationError,
            MulticlassCalibrationError,
        )

        theirs = {"CalibrationError": (BinaryCalibrationError(), (p, y)),
                  "CalibrationError multiclass": (MulticlassCalibrationError(c), (pc, yc))}
        for name, (metric, args) in theirs.items():
            fns["tm " + name] = loop(metric.update, *args)
    return fns


def _corr_workloads(torch, n, updates):
    """PearsonCorrCoef, SpearmanCorrCoef (an exact buffer of every update's rows, emptied
    by ``reset`` at the start of each timed run, as TorchMetrics' list: an epoch of a
    training loop; the buffer's one-off allocation of ``capacity`` rows is not an
    update's cost) and Perplexity (``n`` tokens:
    ``n // 64`` sequences of 64, a vocabulary of 256) against TorchMetrics'."""
    import metrix.stream as ms

    t, p = torch.randn(n), torch.randn(n)
    tokens = torch.randint(0, 256, (n // 64, 64))
    logits = torch.randn(n // 64, 64, 256)
    fns = {}

    def loop(make, update_args, *, epoch=False, swap=False):
        metric = make()
        args = update_args[::-1] if swap else update_args
        metric.update(*args)  # the state exists: a training loop's steady state

        def run():
            if epoch:  # a new epoch: the buffer (the list) emptied, as a training loop
                metric.reset()
            for _ in range(updates):
                metric.update(*args)
        return run

    fns["metrix PearsonCorrCoef"] = loop(ms.PearsonCorrCoef, (t, p))
    fns["metrix SpearmanCorrCoef"] = loop(lambda: ms.SpearmanCorrCoef(updates * n), (t, p),
                                          epoch=True)
    fns["metrix Perplexity"] = loop(ms.Perplexity, (tokens, logits))
    if have("torchmetrics"):
        from torchmetrics.regression import PearsonCorrCoef, SpearmanCorrCoef
        from torchmetrics.text import Perplexity

        # TorchMetrics takes (preds, target)
        fns["tm PearsonCorrCoef"] = loop(PearsonCorrCoef, (t, p), swap=True)
        fns["tm SpearmanCorrCoef"] = loop(SpearmanCorrCoef, (t, p), epoch=True, swap=True)
        fns["tm Perplexity"] = loop(Perplexity, (tokens, logits), swap=True)
    return fns


def _operating_point_workloads(torch, n, updates):
    """The operating points' ``update`` (binary scores), binned with TorchMetrics'
    thresholds and exact (TorchMetrics' ``thresholds=None``: a list of the batches;
    metrix: a buffer of ``EXACT_CAPACITY`` rows, a validation set's).  Both are reset
    whenever the next batch would not fit the buffer (the same cadence for both)."""
    import metrix.stream as ms

    y = (torch.rand(n) < 0.3).to(torch.int64)
    s = torch.rand(n)
    per_fill = max(1, EXACT_CAPACITY // n)  # batches that fit the exact buffer

    def loop(metric, pair, reset):
        def run():
            for i in range(updates):
                if reset and i % per_fill == 0:
                    metric.reset()
                metric.update(*pair)
        return run

    fns = {}
    modes = {"[T=100]": ({"thresholds": 100}, {"thresholds": 100}, False),
             "[exact]": ({"capacity": EXACT_CAPACITY}, {"thresholds": None}, True)}
    for name in ("RecallAtFixedPrecision", "SensitivityAtSpecificity"):
        for mode, (mine, tm_kw, reset) in modes.items():
            metric = getattr(ms, name)(0.6, **mine)
            metric.update(y, s)  # the state exists: a training loop's steady state
            fns[f"metrix {name}{mode}"] = loop(metric, (y, s), reset)
            if have("torchmetrics"):
                from torchmetrics import classification

                theirs = getattr(classification, "Binary" + name)(0.6, validate_args=False,
                                                                  **tm_kw)
                # TorchMetrics takes (preds, target)
                fns[f"tm {name}{mode}"] = loop(theirs, (s, y), reset)
    return fns


def _multilabel_workloads(torch, n, updates, n_labels=10):
    """The multilabel label streams (``num_labels=``) on ``(n, L)`` indicators and
    probabilities, against TorchMetrics' ``Multilabel*`` classes (``validate_args=False``
    as metrix's default: no host read per update)."""
    import metrix.stream as ms

    gen = torch.Generator().manual_seed(0)
    target = (torch.rand(n, n_labels, generator=gen) < 0.3).to(torch.int64)
    probs = torch.rand(n, n_labels, generator=gen)

    def loop(update, *args):
        def run():
            for _ in range(updates):
                update(*args)
        return run

    ours = {"F1Score multilabel": ms.F1Score(num_labels=n_labels),
            "F1Score multilabel samples": ms.F1Score(num_labels=n_labels, average="samples"),
            "ExactMatch": ms.ExactMatch(n_labels),
            "HammingDistance multilabel": ms.HammingDistance(num_labels=n_labels),
            "ConfusionMatrix multilabel": ms.ConfusionMatrix(num_labels=n_labels)}
    fns = {}
    for name, metric in ours.items():
        metric.update(target, probs)  # the state exists: a training loop's steady state
        fns["metrix " + name] = loop(metric.update, target, probs)
    if have("torchmetrics"):
        from torchmetrics import classification as tmc

        theirs = {"F1Score multilabel": tmc.MultilabelF1Score,
                  "ExactMatch": tmc.MultilabelExactMatch,
                  "HammingDistance multilabel": tmc.MultilabelHammingDistance,
                  "ConfusionMatrix multilabel": tmc.MultilabelConfusionMatrix}
        for name, cls in theirs.items():
            fns["tm " + name] = loop(cls(n_labels, validate_args=False).update, probs, target)
    return fns


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,4096")
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for n in (int(float(s)) for s in args.sizes.split(",")):
        t = best_times(_workloads(torch, n, args.updates), repeat=args.repeat)
        per = {k: v / args.updates for k, v in t.items()}
        rows.append({"case": f"N={n}: floor (torch.sum into an accumulator)",
                     "per update": fmt_time(per["floor"]), "ratio": "1.00x floor"})
        for key in [k for k in per if k.startswith("metrix ")]:
            name = key[len("metrix "):]
            ratio = []
            if name == "MeanMetric":
                ratio.append(f"{per[key] / per['floor']:.2f}x floor (target <= 2x)")
            if "tm " + name in per:
                ratio.append(f"{per[key] / per['tm ' + name]:.2f}x TorchMetrics "
                             f"({fmt_time(per['tm ' + name])}; target <= 0.5x)")
            rows.append({"case": f"N={n}: {name}.update", "per update": fmt_time(per[key]),
                         "ratio": "; ".join(ratio)})
    print_table(rows, ["case", "per update", "ratio"])


if __name__ == "__main__":
    main()
