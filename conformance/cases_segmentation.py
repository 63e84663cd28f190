"""Conformance rows: the segmentation metrics on label maps and one-hot inputs.

Dataset-level values are scikit-learn's on the flattened pixels (``jaccard_score``,
``f1_score``, ``recall_score`` / ``accuracy_score``), with the ignored pixels
left out.  Per-image values (``per_image=True``) are the mean, per class, of
scikit-learn's value on each image over the images where it is defined (the
class occurs in the image's target or prediction): TorchMetrics' definition,
written here with scikit-learn.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics as skm

import metrix.stream as ms
from conformance.registry import Case

rng = np.random.default_rng(20261206)

C = 4
LABELS = list(range(C))
T = rng.integers(0, C - 1, (5, 6, 7))             # class 3 never in the target
P = np.where(rng.random(T.shape) < 0.6, T, rng.integers(0, C, T.shape))
T[0], P[0] = 1, 1                                  # an image of one class
T_IGN = T.copy()
T_IGN[1, :2] = 255                                 # ignored pixels
T_ALL_IGN = np.full_like(T, 255)
T3D, P3D = T[:, :, :6].reshape(5, 6, 3, 2), P[:, :, :6].reshape(5, 6, 3, 2)
ONEHOT_T = np.moveaxis(np.eye(C, dtype=np.int64)[T], -1, 1)
SCORES = rng.random((5, C, 6, 7)) + 2.0 * np.moveaxis(np.eye(C)[P], -1, 1)

_FLAT = {"mean_iou": skm.jaccard_score, "dice_score": skm.f1_score,
         "pixel_accuracy": skm.recall_score}


def _flat(t, p, ignore_index):
    t, p = t.reshape(-1), p.reshape(-1)
    keep = t != ignore_index if ignore_index is not None else np.ones(t.shape, bool)
    return t[keep], p[keep]


def _labels_of(kw, t, p):
    labels = kw.get("labels")
    if labels is None:  # the values of both maps
        labels = sorted(set(t.tolist()) | set(p.tolist()))
    return [c for c in labels if kw.get("include_background", True) or c != 0]


def pooled_reference(name):
    def ref(y_true, y_pred, *, average="macro" if name != "pixel_accuracy" else "micro",
            labels=None, ignore_index=None, include_background=True, zero_division="warn",
            validate=True):
        t, p = _flat(y_true, y_pred, ignore_index)
        kw = {"labels": labels, "include_background": include_background}
        if name == "pixel_accuracy" and average == "micro" and include_background and (
                labels is None or sorted(labels) == sorted(set(t) | set(p))):
            return skm.accuracy_score(t, p)
        return _FLAT[name](t, p, labels=_labels_of(kw, t, p), average=average,
                           zero_division=zero_division)
    return ref


def per_image_reference(name):
    def ref(y_true, y_pred, *, average=None, labels=None, ignore_index=None,
            include_background=True, zero_division="warn", per_image=True, validate=True):
        classes = _labels_of({"labels": labels, "include_background": include_background},
                             *_flat(y_true, y_pred, ignore_index))
        values = np.zeros((y_true.shape[0], len(classes)))
        defined = np.zeros_like(values, dtype=bool)
        for i in range(y_true.shape[0]):
            t, p = _flat(y_true[i], y_pred[i], ignore_index)
            for j, c in enumerate(classes):
                den = (t == c) | (p == c) if name != "pixel_accuracy" else (t == c)
                defined[i, j] = den.any()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values[i] = _FLAT[name](t, p, labels=classes, average=None, zero_division=0.0)
        count = defined.sum(axis=0)
        return np.where(count > 0, (values * defined).sum(axis=0) / np.maximum(count, 1),
                        float(zero_division))
    return ref


def stream_call(cls, **kw):
    """Feed a stream metric three uneven batches of images (one empty)."""
    def call(y_true, y_pred, **_):
        metric = cls(C, **kw)
        for a, b in ((0, 0), (0, 2), (2, 5)):
            metric.update(y_true[a:b, ...], y_pred[a:b, ...])
        return metric.compute()
    return call


CASES: list[Case] = []


def add(metric, ref, args, kw=None, id="", **extra):
    CASES.append(Case(metric, ref, args, dict(kw or {}), id=id, **extra))


for name in ("mean_iou", "dice_score", "pixel_accuracy"):
    ref = pooled_reference(name)
    for avg in (None, "macro", "micro", "weighted"):
        add(name, ref, (T, P), {"average": avg, "labels": LABELS}, id=f"avg-{avg}")
        add(name, ref, (T_IGN, P), {"average": avg, "labels": LABELS, "ignore_index": 255},
            id=f"ignore-{avg}")
    add(name, ref, (T, P), {"include_background": False, "labels": LABELS},
        id="no-background")
    add(name, ref, (T3D, P3D), {"labels": LABELS}, id="volumes")
    add(name, ref, (T, P), id="discovered-labels")
    add(name, ref, (T, P), {"labels": [3, 1], "average": None}, id="labels-order")
    add(name, ref, (T_ALL_IGN, P), {"ignore_index": 255}, id="all-ignored-error")
    add(name, per_image_reference(name), (T_IGN, P),
        {"average": None, "per_image": True, "labels": LABELS, "ignore_index": 255,
         "zero_division": 0.0}, id="per-image", check_warnings="off")
    for zd in ("warn", 1.0):
        add(name, ref, (T, P), {"average": None, "labels": LABELS, "zero_division": zd},
            id=f"zd-{zd}")

# one-hot and score inputs: the same values as the label maps they encode
add("dice_score", pooled_reference("dice_score"), (T, P), {"labels": LABELS}, id="as-maps")
for fmt, args in (("one-hot", (ONEHOT_T, SCORES)), ("mixed", (T, SCORES))):
    add("mean_iou", lambda t, s, **kw: skm.jaccard_score(
        (t.argmax(1) if t.ndim == 4 else t).reshape(-1), s.argmax(1).reshape(-1),
        labels=LABELS, average="macro", zero_division=0.0),
        args, {"input_format": fmt, "zero_division": 0.0}, id=f"format-{fmt}")

# the stream classes, batch by batch
for cls, name in ((ms.MeanIoU, "mean_iou"), (ms.DiceScore, "dice_score"),
                  (ms.PixelAccuracy, "pixel_accuracy")):
    add(name, pooled_reference(name), (T_IGN, P), {"labels": LABELS, "ignore_index": 255},
        id="stream", call=stream_call(cls, ignore_index=255), check_dtype=False,
        check_warnings="off")
