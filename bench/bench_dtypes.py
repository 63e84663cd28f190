"""Dtype sweep: every label and score dtype against the int64 / float64 call.

Fewer bytes should cost less: both regimes are bound by passes over memory.
For each call the table gives the time on every label dtype (bool, uint8,
int8, int16, int32; int64 beside it) or score dtype (float16, bfloat16 on
torch, float32; float64 beside it) and the ratio to that wide dtype, timed in
the same run with interleaved repeats.  Low-precision scores are compared on
the values they hold (the float32 / float64 input is the low-precision one
widened), so ties are the same on both sides and the ratio is the dtype's
cost, not the data's.

* label calls: ``f1_score(average="macro")``, ``confusion_matrix``, and
  ``mean_iou`` of 16 masks of 256 x 256 pixels;
* score calls: binary ``roc_auc_score`` and ``average_precision_score``;
* the checked ``metrix.stream`` collection of five label metrics (100 batches).

Targets: at 1e7 every narrow label dtype at most 1.0x int64 and float32 /
float16 at most 1.0x float64 (bfloat16 at most 1.0x float32); at N = 256 and
4,096 on torch, bfloat16 and float16 at most 1.2x float32 and uint8 at most
1.0x int64; ``mean_iou`` on uint8 masks at most 1.0x int64.

Run: ``python -m bench.bench_dtypes [--sizes 256,4096,1e7] [--repeat 5]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from bench._harness import best_times, fmt_time, have, print_table

LABELS = ("bool", "uint8", "int8", "int16", "int32", "int64")
SCORES = ("float16", "bfloat16", "float32", "float64")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,4096,1e7")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    libs = ["numpy"] + (["torch"] if have("torch") else [])
    if "torch" in libs:
        import torch

        torch.set_num_threads(1)
    rows = []
    for n in sizes:
        for lib in libs:
            if n < 100_000 and lib == "numpy":
                continue  # the training-loop sizes are torch's (one thread)
            rows += _label_rows(lib, n, args.classes, args.repeat)
            rows += _score_rows(lib, n, args.repeat)
    rows += _mask_rows(libs, args.repeat)
    if "torch" in libs:
        rows += _stream_rows(args.classes, args.repeat)
    print("\nTime per call (best of the interleaved repeats); ratio to the wide dtype\n")
    print_table(rows, ["call", "N", "library", "dtype", "time", "wide dtype", "ratio"])


def _to(lib, a, dtype):
    """``a`` as ``lib``'s array of ``dtype`` (bfloat16: torch only)."""
    if lib == "numpy":
        return a.astype(dtype)
    import torch

    return torch.from_numpy(np.ascontiguousarray(a)).to(getattr(torch, dtype))


def _validated(n):
    """The training-loop call at batch sizes, the validated call offline."""
    return {"validate": False} if n <= 65_536 else {}


def _rows(call, n, lib, times, wide, order):
    out = []
    for dt in order:
        if dt in times:
            out.append({"call": call, "N": f"{n:,}", "library": lib, "dtype": dt,
                        "time": fmt_time(times[dt]), "wide dtype": fmt_time(times[wide]),
                        "ratio": f"{times[dt] / times[wide]:.2f}x"})
    return out


def _label_rows(lib, n, c, repeat):
    """Each label dtype against int64 labels of the same values (bool: 0 / 1)."""
    import metrix

    rng = np.random.default_rng(0)
    y = rng.integers(0, c, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, c, n))
    rows = []
    for call in ("f1_score", "confusion_matrix"):
        f = getattr(metrix, call)
        for group, cc in ((LABELS[1:], c), (("bool", "int64"), 2)):
            fns = {}
            for dt in group:
                a, b = _to(lib, y % cc, dt), _to(lib, p % cc, dt)
                kw = {"labels": list(range(cc)), **_validated(n)}
                if call == "f1_score":
                    kw["average"] = "macro"
                fns[dt] = (lambda a, b, kw: lambda: f(a, b, **kw))(a, b, kw)
            name = call if cc == c else f"{call} (0 / 1 labels)"
            rows += _rows(name, n, lib, _timed(fns, n, repeat), "int64", group)
    return rows


def _score_rows(lib, n, repeat):
    import metrix

    rng = np.random.default_rng(1)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.random(n) + 0.3 * y
    rows = []
    for call in ("roc_auc_score", "average_precision_score"):
        f = getattr(metrix, call)
        for low, wide in (("float16", "float64"), ("float32", "float64"),
                          ("bfloat16", "float32"), ("float16", "float32")):
            if lib == "numpy" and "bfloat16" in (low, wide):
                continue
            held = _to(lib, s, low)  # the low-precision values, and the same widened
            same = held.astype(wide) if lib == "numpy" else held.to(_dt(wide))
            yy = _to(lib, y, "int64")
            kw = _validated(n)
            times = _timed({low: lambda: f(yy, held, **kw), wide: lambda: f(yy, same, **kw)},
                           n, repeat)
            rows += _rows(f"{call} (the {low} values)", n, lib, times, wide, (low,))
    return rows


def _dt(name):
    import torch

    return getattr(torch, name)


def _mask_rows(libs, repeat):
    import metrix

    rng = np.random.default_rng(2)
    a = rng.integers(0, 21, (16, 256, 256))
    b = np.where(rng.random(a.shape) < 0.8, a, rng.integers(0, 21, a.shape))
    rows = []
    for lib in libs:
        fns = {}
        for dt in ("uint8", "int16", "int32", "int64"):
            x, yv = _to(lib, b, dt), _to(lib, a, dt)
            fns[dt] = (lambda x, yv: lambda: metrix.mean_iou(x, yv, labels=list(range(21))))(
                x, yv)
        codes = (a * 21 + b).ravel()
        fns["bincount floor"] = lambda: np.bincount(codes, minlength=21 * 21)
        t = best_times(fns, repeat=repeat)
        rows += _rows("mean_iou, 16 x 256 x 256", a.size, lib, t, "int64",
                      ("uint8", "int16", "int32", "int64", "bincount floor"))
    return rows


def _stream_rows(c, repeat, batches=100, size=10_000):
    import torch

    import metrix.stream as ms

    g = torch.Generator().manual_seed(3)
    ys = [torch.randint(0, c, (size,), generator=g) for _ in range(batches)]
    ps = [torch.where(torch.rand(size, generator=g) < 0.6, y,
                      torch.randint(0, c, (size,), generator=g)) for y in ys]

    def run(dtype):
        yd = [y.to(dtype) for y in ys]
        pd = [p.to(dtype) for p in ps]

        def go():
            coll = ms.MetricCollection({
                "acc": ms.Accuracy(c), "p": ms.Precision(c, average="macro"),
                "r": ms.Recall(c, average="macro"), "f1": ms.F1Score(c, average="macro"),
                "mcc": ms.MatthewsCorrCoef(c)})
            for y, p in zip(yd, pd):
                coll.update(y, p)
            return coll.compute()["f1"]
        return go

    fns = {dt: run(getattr(torch, dt)) for dt in ("uint8", "int32", "int64")}
    return _rows(f"stream collection, {batches} x {size:,}", batches * size, "torch",
                 best_times(fns, repeat=repeat), "int64", ("uint8", "int32", "int64"))


def _timed(fns, n, repeat):
    """:func:`best_times` per call: a batch-size call is timed in a loop of
    calls (one call's time would be mostly the timer's and the cold cache's)."""
    k = 1 if n > 65_536 else max(1, 100_000 // n)
    loops = {name: (lambda f: lambda: [f() for _ in range(k)][-1])(f) for name, f in fns.items()}
    return {name: t / k for name, t in best_times(loops, repeat=repeat).items()}


if __name__ == "__main__":
    main()
