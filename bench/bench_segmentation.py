"""Segmentation benchmark: mean IoU of a batch of label maps, torch CPU and NumPy.

Run:  python -m bench.bench_segmentation [--images 16] [--size 512] [--classes 21]

Targets, on 16 label maps of 512 x 512 and C = 21 classes (4.2 million pixels,
the batch of a training step), torch CPU with one thread:

* ``metrix.mean_iou(..., labels=range(C), validate=False)`` at most 2x the
  floor: one ``bincount`` of precomputed codes ``t * C + p`` of length ``C^2``
  (any implementation reads every pixel once and counts it);
* at least 5x faster than TorchMetrics' ``MeanIoU`` (``update`` + ``compute``
  on label maps, ``input_format="index"``), which one-hot encodes the maps.

Also timed: the per-image variant (``per_image=True``: one count of
``image * S * S + t * S + p``), TorchMetrics' functional ``mean_iou``, and
NumPy against scikit-learn's ``jaccard_score`` on the flattened pixels.
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
from bench._harness import best_times, fmt_time, have, print_table  # noqa: E402


def _maps(images, size, classes, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, classes, (images, size, size), dtype=np.int64)
    p = np.where(rng.random(t.shape) < 0.7, t, rng.integers(0, classes, t.shape))
    return t, p


def run(images: int, size: int, classes: int, repeat: int):
    t, p = _maps(images, size, classes)
    labels = list(range(classes))
    rows, checks = [], []
    print(f"{images} x {size} x {size} label maps, C = {classes}; threads = "
          f"{os.environ['OMP_NUM_THREADS']}", flush=True)
    if have("torch"):
        import torch

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        tt, tp = torch.from_numpy(t), torch.from_numpy(p)
        codes = (tt * classes + tp).reshape(-1)
        fns = {
            "floor": lambda: torch.bincount(codes, minlength=classes * classes),
            "metrix": lambda: metrix.mean_iou(tt, tp, labels=labels, validate=False),
            "metrix per image": lambda: metrix.mean_iou(tt, tp, labels=labels, validate=False,
                                                        per_image=True),
        }
        if have("torchmetrics"):
            from torchmetrics.functional.segmentation import mean_iou as tm_mean_iou
            from torchmetrics.segmentation import MeanIoU

            def tm_class():
                m = MeanIoU(num_classes=classes, input_format="index")
                m.update(tp, tt)
                return m.compute()

            fns["TorchMetrics MeanIoU"] = tm_class
            fns["TorchMetrics functional"] = lambda: tm_mean_iou(tp, tt, num_classes=classes,
                                                                  input_format="index")
        times = best_times(fns, repeat=repeat)
        floor = times["floor"]
        for name, sec in times.items():
            rows.append({"torch CPU": name, "time": fmt_time(sec),
                         "/ floor": f"{sec / floor:.2f}x"})
        checks.append(("metrix <= 2x one bincount", times["metrix"] <= 2 * floor,
                       f"{times['metrix'] / floor:.2f}x"))
        if "TorchMetrics MeanIoU" in times:
            speedup = times["TorchMetrics MeanIoU"] / times["metrix"]
            checks.append(("metrix >= 5x faster than TorchMetrics' MeanIoU", speedup >= 5,
                           f"{speedup:.1f}x faster"))
        print_table(rows, ["torch CPU", "time", "/ floor"])
    codes = (t * classes + p).reshape(-1)
    fns = {"floor": lambda: np.bincount(codes, minlength=classes * classes),
           "metrix": lambda: metrix.mean_iou(t, p, labels=labels, validate=False)}
    if have("sklearn"):
        from sklearn.metrics import jaccard_score

        fns["scikit-learn"] = lambda: jaccard_score(t.reshape(-1), p.reshape(-1),
                                                    labels=labels, average="macro")
    times = best_times(fns, repeat=max(1, repeat - 1))
    rows = [{"NumPy": name, "time": fmt_time(sec), "/ floor": f"{sec / times['floor']:.2f}x"}
            for name, sec in times.items()]
    print()
    print_table(rows, ["NumPy", "time", "/ floor"])
    for what, ok, value in checks:
        print(f"  [{'ok' if ok else 'MISS'}] {what}: {value}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--images", type=int, default=16)
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--classes", type=int, default=21)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    run(args.images, args.size, args.classes, args.repeat)


if __name__ == "__main__":
    main()
