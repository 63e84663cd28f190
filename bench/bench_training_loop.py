"""Training-loop metrics: per-update cost of the aggregators, ``CalibrationError``, the
correlations, perplexity, the operating points and the multilabel label streams, torch
CPU, one thread.

For each batch size, each class's ``update`` against TorchMetrics' class of the
same name (target: at most 0.5x its time) and, for ``MeanMetric``, against the
floor: a bare ``torch.sum`` added into a preallocated float64 accumulator
(target: at most 2x).  The calls of one size are timed interleaved (one block of
updates of each per round), so a slow spell of a noisy machine falls on all; each
time is the median process CPU time of ``--repeat`` rounds.

Where an update's own work bounds it, the floor of that work is timed beside it
and printed with its ratio to TorchMetrics: ``SpearmanCorrCoef`` (the rows written
into a preallocated buffer: TorchMetrics appends the batch to a list, no copy; the
same for the exact operating points) and
``Perplexity`` (one fused log-softmax per logit, as bare ``cross_entropy`` and as
``log_softmax`` / ``gather`` / ``sum``; and, below any NLL, one NumPy ``exp`` per
logit: the cheapest exponential at hand).  A floor above 0.5x TorchMetrics makes
the target unreachable for that class at that size.

Run: ``python -m bench.bench_training_loop [--sizes 256,4096] [--updates 2000]
[--only Spearman,Perplexity]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import warnings

from bench._harness import fmt_time, have, print_table

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
    import numpy as np

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

    v = logits.shape[-1]
    acc = torch.zeros((), dtype=torch.float64)
    flat_logits, flat_tokens = logits.reshape(-1, v), tokens.reshape(-1)
    cap = updates * n + n
    rows = {name: torch.zeros(cap, dtype=torch.float64).numpy() for name in ("t", "p", "w")}

    def rows_floor():
        # Spearman's floor: the batch's rows written into preallocated float64 buffers
        # through NumPy views (values and a weight of 1), the written rows zeroed at the
        # start of the run (an epoch): metrix's in-place writer without its checks
        for buf in rows.values():
            buf[:cap] = 0.0
        for i in range(updates):
            a, b = i * n, (i + 1) * n
            rows["t"][a:b] = t.numpy()
            rows["p"][a:b] = p.numpy()
            rows["w"][a:b] = 1.0

    def nll_floor():
        # Perplexity's floor: one fused log-softmax-and-pick per batch (one exp per
        # logit), its sum added into a preallocated float64 accumulator
        with torch.no_grad():
            for _ in range(updates):
                acc.add_(torch.nn.functional.cross_entropy(flat_logits, flat_tokens,
                                                           reduction="sum"))

    def log_softmax_floor():
        # the same as a bare log_softmax, gather and sum (three kernels)
        with torch.no_grad():
            for _ in range(updates):
                acc.add_(torch.log_softmax(logits, -1).gather(-1, tokens[..., None]).sum())

    scratch = torch.empty_like(flat_logits).numpy()

    def exp_floor():
        # below any NLL: one NumPy exp per logit (NumPy's SIMD exp is faster than
        # torch's here) into a preallocated buffer, no maximum, sum or pick
        logits_view = flat_logits.numpy()
        for _ in range(updates):
            np.exp(logits_view, out=scratch)

    fns["floor SpearmanCorrCoef"] = rows_floor
    fns["floor Perplexity"] = nll_floor
    fns["floor Perplexity log_softmax"] = log_softmax_floor
    fns["floor Perplexity exp"] = exp_floor
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

    rows = {"score": torch.zeros(EXACT_CAPACITY, dtype=torch.float64).numpy(),
            "target": torch.zeros(EXACT_CAPACITY, dtype=torch.int64).numpy(),
            "weight": torch.zeros(EXACT_CAPACITY, dtype=torch.float64).numpy()}

    def rows_floor():
        # the exact mode's floor: the batch's rows written into preallocated buffers
        # through NumPy views (score, label and a weight of 1), the written rows zeroed
        # at each reset: metrix's in-place writer without its checks
        at = 0
        for i in range(updates):
            if i % per_fill == 0:
                for buf in rows.values():
                    buf[:at] = 0
                at = 0
            rows["score"][at:at + n] = s.numpy()
            rows["target"][at:at + n] = y.numpy()
            rows["weight"][at:at + n] = 1.0
            at += n

    fns = {}
    modes = {"[T=100]": ({"thresholds": 100}, {"thresholds": 100}, False),
             "[exact]": ({"capacity": EXACT_CAPACITY}, {"thresholds": None}, True)}
    for name in ("RecallAtFixedPrecision", "SensitivityAtSpecificity"):
        for mode, (mine, tm_kw, reset) in modes.items():
            metric = getattr(ms, name)(0.6, **mine)
            metric.update(y, s)  # the state exists: a training loop's steady state
            fns[f"metrix {name}{mode}"] = loop(metric, (y, s), reset)
            if reset:
                fns[f"floor {name}{mode}"] = rows_floor
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


def median_cpu_times(fns, *, repeat):
    """Each of ``fns``' median process CPU time over ``repeat`` rounds after one warm-up,
    the rounds interleaved (one call of each per round): a slow spell of a shared
    machine falls on all of them, and CPU time leaves out the time other processes
    hold the core."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _floor_note(name, per):
    """The floors of ``name`` where measured: each one's time and ratio to TorchMetrics'
    (how close to 0.5x the floor itself lets an update come), and metrix's ratio to it."""
    floors = [k for k in per if k == "floor " + name or k.startswith("floor " + name + " ")]
    if not floors or "tm " + name not in per:
        return None
    notes = []
    for key in sorted(floors, key=per.get, reverse=True):
        what = key[len("floor " + name):].strip() or "floor"
        notes.append(f"{what} {fmt_time(per[key])} = {per[key] / per['tm ' + name]:.2f}x "
                     f"TorchMetrics, metrix {per['metrix ' + name] / per[key]:.2f}x it")
    return "floors: " + ", ".join(notes)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,4096")
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="",
                    help="comma-separated substrings of the cases to time (default: all)")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for n in (int(float(s)) for s in args.sizes.split(",")):
        fns = _workloads(torch, n, args.updates)
        if args.only:
            keep = args.only.split(",")
            fns = {k: f for k, f in fns.items() if k == "floor" or any(w in k for w in keep)}
        t = median_cpu_times(fns, repeat=args.repeat)
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
            note = _floor_note(name, per)
            if note:
                ratio.append(note)
            rows.append({"case": f"N={n}: {name}.update", "per update": fmt_time(per[key]),
                         "ratio": "; ".join(ratio)})
    print_table(rows, ["case", "per update", "ratio"])


if __name__ == "__main__":
    main()
