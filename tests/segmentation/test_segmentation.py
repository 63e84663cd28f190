"""Segmentation metrics against scikit-learn (dataset level) and TorchMetrics (per image).

* ``per_image=False``: ``mean_iou`` / ``dice_score`` / ``pixel_accuracy`` equal
  ``jaccard_score`` / ``f1_score`` / ``recall_score`` on the flattened pixels
  (ignored pixels dropped), labels, averages, zero_division and warnings included.
* ``per_image=True``: ``MeanIoU(per_class=True)`` (NaN here where it gives -1),
  ``MeanIoU(per_class=False)`` (``average="pairs"``), ``DiceScore`` (every
  average) and ``GeneralizedDiceScore`` on the same tensors, in every input format.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
from conformance.util import jax_x64
from metrix import UndefinedMetricWarning

rng = np.random.default_rng(30)
C = 5
T = rng.integers(0, C, (4, 6, 7))
P = np.where(rng.random(T.shape) < 0.5, T, rng.integers(0, C, T.shape))
T[0][T[0] == 3] = 4          # class 3 absent from image 0 (both sides)
P[0][P[0] == 3] = 4
P[1][P[1] == 2] = 1          # class 2 never predicted in image 1
T3 = rng.integers(0, 3, (2, 4, 5, 3))  # volumes (N, H, W, D)
P3 = rng.integers(0, 3, (2, 4, 5, 3))

SK = {"iou": (metrix.mean_iou, skm.jaccard_score),
      "dice": (metrix.dice_score, skm.f1_score),
      "accuracy": (metrix.pixel_accuracy, skm.recall_score)}
AVERAGES = [None, "macro", "micro", "weighted"]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _flat(t, p, ignore_index=None):
    t, p = t.ravel(), p.ravel()
    if ignore_index is not None:
        keep = t != ignore_index
        t, p = t[keep], p[keep]
    return t, p


# -- dataset level: scikit-learn on the flattened pixels --------------------------

@pytest.mark.parametrize("metric", list(SK))
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("case", ["plain", "labels", "no_background", "ignore", "volume",
                                  "absent_label", "sparse_labels"])
def test_dataset_level_equals_sklearn(metric, average, case):
    ours, theirs = SK[metric]
    t, p, kw, sk_kw = T, P, {}, {}
    if case == "labels":
        kw["labels"] = sk_kw["labels"] = [4, 1, 2]
    elif case == "no_background":
        kw["include_background"] = False
        sk_kw["labels"] = [1, 2, 3, 4]
    elif case == "ignore":
        t = np.where(np.random.default_rng(1).random(T.shape) < 0.2, 255, T)
        kw["ignore_index"] = 255
    elif case == "volume":
        t, p = T3, P3
    elif case == "absent_label":  # class 7 in neither map: zero_division
        kw["labels"] = sk_kw["labels"] = [0, 1, 7]
    elif case == "sparse_labels":  # non-contiguous values, negative included
        t, p = T * 3 - 2, P * 3 - 2
    ft, fp = _flat(t, p, kw.get("ignore_index"))
    got = _quiet(ours, t, p, average=average, **kw)
    want = _quiet(theirs, ft, fp, average=average, **sk_kw)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("metric", list(SK))
@pytest.mark.parametrize("zero_division", ["warn", 0.0, 1.0, np.nan])
@pytest.mark.parametrize("average", AVERAGES)
def test_dataset_level_zero_division_and_warning(metric, zero_division, average):
    ours, theirs = SK[metric]
    labels = [0, 2, 9]  # 9 occurs nowhere
    if metric == "iou" and zero_division is np.nan:  # jaccard_score has no nan option:
        with warnings.catch_warnings(record=True) as rec:  # NaN, left out of averages
            warnings.simplefilter("always")
            got = ours(T, P, labels=labels, average=average, zero_division=np.nan)
        per = skm.jaccard_score(T.ravel(), P.ravel(), labels=[0, 2], average=None)
        want = {None: np.r_[per, np.nan], "macro": per.mean()}.get(average)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-12)
        assert not rec
        return
    with warnings.catch_warnings(record=True) as rec_sk:
        warnings.simplefilter("always")
        want = theirs(T.ravel(), P.ravel(), labels=labels, average=average,
                      zero_division=zero_division)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = ours(T, P, labels=labels, average=average, zero_division=zero_division)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert [str(w.message) for w in rec] == [str(w.message) for w in rec_sk]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # validate=False never warns
        ours(T, P, labels=labels, average=average, zero_division=zero_division, validate=False)


def test_pixel_accuracy_micro_is_accuracy_score():
    assert metrix.pixel_accuracy(T, P) == pytest.approx(skm.accuracy_score(T.ravel(), P.ravel()))
    assert metrix.dice_score(T, P, average="micro") == pytest.approx(
        skm.accuracy_score(T.ravel(), P.ravel()))


def test_uint8_maps_with_ignore_255():
    t = np.where(np.random.default_rng(2).random(T.shape) < 0.3, 255, T).astype(np.uint8)
    ft, fp = _flat(t, P, 255)
    got = metrix.mean_iou(t, P.astype(np.uint8), ignore_index=255, average=None)
    np.testing.assert_allclose(got, skm.jaccard_score(ft, fp, average=None), rtol=1e-12)


def _per_image_iou(t, p, classes, ignore_index):
    """Per class, the mean IoU over the images where it is defined (0.0 where
    it is nowhere), by its definition."""
    per = []
    for ti, pi in zip(t, p):
        ti, pi = ti.ravel(), pi.ravel()
        keep = ti != ignore_index
        ti, pi = ti[keep], pi[keep]
        true = np.array([(ti == c).sum() for c in classes])
        pred = np.bincount(np.searchsorted(classes, pi), minlength=len(classes))
        tp = np.bincount(np.searchsorted(classes, ti[ti == pi]), minlength=len(classes))
        union = true + pred - tp
        per.append(np.where(union > 0, tp / np.maximum(union, 1), np.nan))
    per = np.array(per)
    defined = ~np.isnan(per)
    return np.where(defined.any(0), np.nansum(per, 0) / np.maximum(defined.sum(0), 1), 0.0)


def test_many_classes_equal_the_definition():
    # ~2,700 classes in two 48 x 48 maps: more (class, class) cells than pixels
    r = np.random.default_rng(5)
    t = r.integers(0, 3000, (2, 48, 48))
    p = np.where(r.random(t.shape) < 0.5, t, r.integers(0, 3000, t.shape))
    ft, fp = _flat(t, p, 0)
    classes = np.unique(np.concatenate([ft, fp]))
    assert len(classes) > 2048
    got = metrix.mean_iou(t, p, average=None, ignore_index=0)
    np.testing.assert_allclose(got, skm.jaccard_score(ft, fp, average=None), rtol=1e-12)
    got = _quiet(metrix.mean_iou, t, p, average=None, per_image=True, ignore_index=0)
    np.testing.assert_allclose(got, _per_image_iou(t, p, classes, 0), rtol=1e-12)
    np.testing.assert_allclose(metrix.dice_score(t, p, average="macro", ignore_index=0),
                               skm.f1_score(ft, fp, average="macro"), rtol=1e-12)


def test_one_bincount(bincount_calls):
    metrix.dice_score(T, P, per_image=True, labels=list(range(C)))
    assert len(bincount_calls) == 1


# -- per image: TorchMetrics on the same tensors ------------------------------------

def _one_hot(y, c):
    return np.moveaxis(np.eye(c, dtype=np.int64)[y], -1, 1)


def _formats(t, p, c):
    """(y_true, y_pred, input_format) in every layout TorchMetrics takes."""
    noise = np.random.default_rng(3).random((p.shape[0], c) + p.shape[1:])
    probs = _one_hot(p, c) * 0.6 + noise * 0.3
    return {
        "index": (t, p, "index"),
        "one-hot": (_one_hot(t, c), _one_hot(p, c), "one-hot"),
        "mixed": (t, _one_hot(p, c), "mixed"),
        "probabilities": (_one_hot(t, c), probs.astype(np.float32), "one-hot"),
    }


def _tm(cls, t, p, **kwargs):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = cls(**kwargs)
        m.update(torch.as_tensor(p), torch.as_tensor(t))
        return m.compute().double().numpy()


@pytest.mark.parametrize("layout", ["index", "one-hot", "mixed", "probabilities"])
@pytest.mark.parametrize("include_background", [True, False])
def test_per_image_equals_torchmetrics_mean_iou(layout, include_background):
    seg = pytest.importorskip("torchmetrics.segmentation")
    t, p, fmt = _formats(T, P, C)[layout]
    kw = dict(include_background=include_background, per_image=True, input_format=fmt,
              zero_division=np.nan)
    tm_kw = dict(num_classes=C, include_background=include_background, input_format=fmt)
    want = _tm(seg.MeanIoU, t, p, per_class=True, **tm_kw)
    got = metrix.mean_iou(t, p, average=None, **kw)
    np.testing.assert_allclose(np.where(np.isnan(got), -1.0, got), want, rtol=1e-6)
    want = _tm(seg.MeanIoU, t, p, per_class=False, **tm_kw)
    np.testing.assert_allclose(metrix.mean_iou(t, p, average="pairs", **kw), want, rtol=1e-6)


def test_mean_iou_absent_class_is_minus_one_in_torchmetrics():
    seg = pytest.importorskip("torchmetrics.segmentation")
    want = _tm(seg.MeanIoU, T, P, num_classes=C + 1, per_class=True, input_format="index")
    got = metrix.mean_iou(T, P, labels=range(C + 1), average=None, per_image=True,
                          zero_division=np.nan)
    assert want[-1] == -1 and np.isnan(got[-1])
    np.testing.assert_allclose(got[:-1], want[:-1], rtol=1e-6)
    with pytest.warns(UndefinedMetricWarning, match="no true or predicted samples in any"):
        got = metrix.mean_iou(T, P, labels=range(C + 1), average=None, per_image=True)
    assert got[-1] == 0.0


@pytest.mark.parametrize("layout", ["index", "one-hot", "mixed", "probabilities"])
@pytest.mark.parametrize("average", ["none", "macro", "micro", "weighted"])
@pytest.mark.parametrize("include_background", [True, False])
def test_per_image_equals_torchmetrics_dice(layout, average, include_background):
    seg = pytest.importorskip("torchmetrics.segmentation")
    t, p, fmt = _formats(T, P, C)[layout]
    want = _tm(seg.DiceScore, t, p, num_classes=C, average=average, input_format=fmt,
               include_background=include_background)
    got = metrix.dice_score(t, p, average=None if average == "none" else average,
                            per_image=True, input_format=fmt,
                            include_background=include_background)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("layout", ["index", "one-hot", "mixed", "probabilities"])
@pytest.mark.parametrize("weight_type", ["square", "simple", "linear"])
@pytest.mark.parametrize("per_class", [True, False])
def test_per_image_equals_torchmetrics_generalized_dice(layout, weight_type, per_class):
    seg = pytest.importorskip("torchmetrics.segmentation")
    t, p, fmt = _formats(T, P, C)[layout]
    want = _tm(seg.GeneralizedDiceScore, t, p, num_classes=C, per_class=per_class,
               weight_type=weight_type, input_format=fmt)
    got = metrix.generalized_dice_score(t, p, average=None if per_class else "weighted",
                                        weight_type=weight_type, per_image=True,
                                        input_format=fmt)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _gds_reference(t, p, classes, weight_type):
    """Generalized Dice of one pool, a class without target pixels weighted by
    the largest other weight (MONAI's rule), in plain NumPy."""
    tp = np.array([np.sum((t == k) & (p == k)) for k in classes], float)
    ts = np.array([np.sum(t == k) for k in classes], float)
    ps = np.array([np.sum(p == k) for k in classes], float)
    with np.errstate(divide="ignore"):
        w = {"square": 1 / ts ** 2, "simple": 1 / ts, "linear": np.ones_like(ts)}[weight_type]
    fin = np.isfinite(w)
    w[~fin] = w[fin].max() if fin.any() else 0.0
    den = np.sum(w * (ts + ps))
    return 0.0 if den == 0 else 2 * np.sum(w * tp) / den


@pytest.mark.parametrize("weight_type", ["square", "simple", "linear"])
def test_generalized_dice_fills_weights_within_each_image(weight_type):
    # class 2 predicted in image 0 but absent from its target: the fill matters
    t = np.array([[[0, 0, 1], [1, 1, 0]], [[2, 2, 0], [1, 2, 2]]])
    p = np.array([[[0, 2, 1], [1, 0, 0]], [[2, 2, 0], [1, 1, 2]]])
    per = [_gds_reference(t[i], p[i], range(3), weight_type) for i in range(2)]
    got = metrix.generalized_dice_score(t, p, weight_type=weight_type, per_image=True)
    assert got == pytest.approx(np.mean(per), rel=1e-12)
    got = metrix.generalized_dice_score(t, p, weight_type=weight_type)
    assert got == pytest.approx(_gds_reference(t, p, range(3), weight_type), rel=1e-12)
    # average=None: each class's Dice, 0 where undefined
    per_class = metrix.generalized_dice_score(t, p, average=None, weight_type=weight_type)
    np.testing.assert_allclose(per_class, skm.f1_score(t.ravel(), p.ravel(), average=None),
                               rtol=1e-12)


def test_per_image_averages_by_hand():
    # image 0: class 0 IoU 1/2, class 1 IoU 2/3; image 1: only class 1, IoU 1
    t = np.array([[[0, 0], [1, 1]], [[1, 1], [1, 1]]])
    p = np.array([[[0, 1], [1, 1]], [[1, 1], [1, 1]]])
    kw = dict(per_image=True)
    np.testing.assert_allclose(metrix.mean_iou(t, p, average=None, **kw), [1 / 2, 5 / 6])
    assert metrix.mean_iou(t, p, **kw) == pytest.approx((7 / 12 + 1) / 2)
    assert metrix.mean_iou(t, p, average="pairs", **kw) == pytest.approx((1 / 2 + 2 / 3 + 1) / 3)
    assert metrix.mean_iou(t, p, average="micro", **kw) == pytest.approx((3 / 5 + 1) / 2)
    assert metrix.pixel_accuracy(t, p, **kw) == pytest.approx((3 / 4 + 1) / 2)
    # dataset level "pairs": the classes that occur, averaged (NaN ones left out)
    assert metrix.mean_iou(t, p, labels=[0, 1, 5], average="pairs") == pytest.approx(
        metrix.mean_iou(t, p, labels=[0, 1]))


# -- backends, tracing ------------------------------------------------------------

FUNCS = [metrix.mean_iou, metrix.dice_score, metrix.pixel_accuracy,
         metrix.generalized_dice_score]


@pytest.mark.parametrize("func", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("per_image", [False, True])
def test_backends_agree_with_numpy(xp, func, per_image):
    from conformance.util import to_numpy

    inputs = {"index": (np.where(T == 2, 9, T), P, "index"),
              "probabilities": _formats(T, P, C)["probabilities"]}
    yt, yp, fmt = inputs["probabilities"]
    inputs["probabilities"] = (yt, yp.astype(np.float64), fmt)
    for layout, (yt, yp, fmt) in inputs.items():
        kw = dict(per_image=per_image, input_format=fmt, labels=[0, 1, 3, 4])
        if layout == "index":
            kw["ignore_index"] = 9
        for average in (None, "weighted") if func is metrix.generalized_dice_score else (
                None, "macro", "micro"):
            want = _quiet(func, yt, yp, average=average, **kw)
            a, b = xp.asarray(yt), xp.asarray(yp)
            got = _quiet(func, a, b, average=average, **kw)
            xp.combo.check_placement(got)
            rtol = 1e-5 if xp.float_dtype == "float32" else 1e-12
            np.testing.assert_allclose(to_numpy(got), want, rtol=rtol)
            fast = _quiet(func, a, b, average=average, validate=False, **kw)
            np.testing.assert_allclose(to_numpy(fast), want, rtol=rtol)


@pytest.mark.compile
@pytest.mark.parametrize("func", FUNCS, ids=lambda f: f.__name__)
def test_jax_jit(func):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    kw = dict(labels=[1, 2, 4], ignore_index=0, per_image=True)
    want = func(T, P, **kw)
    with jax_x64(True):
        got = jax.jit(lambda a, b: func(a, b, validate=False, **kw))(jnp.asarray(T),
                                                                    jnp.asarray(P))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


@pytest.mark.compile
@pytest.mark.parametrize("func", FUNCS, ids=lambda f: f.__name__)
def test_torch_compile_fullgraph(func):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")
    torch._dynamo.reset()
    kw = dict(labels=list(range(C)), include_background=False)
    want = func(T, P, **kw)
    compiled = torch.compile(lambda a, b: func(a, b, validate=False, **kw), fullgraph=True)
    got = compiled(torch.asarray(T), torch.asarray(P))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


# -- bad input ----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,match", [
    ({"input_format": "probs"}, "input_format"),
    ({"average": "samples"}, "average"),
    ({"ignore_index": 1.5}, "ignore_index"),
    ({"per_image": 1}, "per_image"),
    ({"zero_division": 2}, "zero_division"),
    ({"labels": []}, "at least one label"),
    ({"labels": [1, 1]}, "repeat"),
    ({"labels": [0], "include_background": False}, "No class is left"),
    ({"validate": False}, "Declare 'labels'"),
])
def test_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        metrix.mean_iou(T, P, **kwargs)


def test_input_errors():
    with pytest.raises(ValueError, match="same shape"):
        metrix.dice_score(T, P[:, :3])
    with pytest.raises(ValueError, match="integers"):
        metrix.dice_score(T.astype(float), P)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        metrix.dice_score(T.ravel(), P.ravel())
    oh_t, oh_p = _one_hot(T, C), _one_hot(P, C)
    with pytest.raises(ValueError, match="ignore_index needs a target label map"):
        metrix.dice_score(oh_t, oh_p, input_format="one-hot", ignore_index=0)
    with pytest.raises(ValueError, match="channel indices"):
        metrix.dice_score(oh_t, oh_p, input_format="one-hot", labels=[0, C])
    with pytest.raises(ValueError, match="other than 0 and 1"):
        metrix.dice_score(oh_t * 2, oh_p, input_format="one-hot")
    with pytest.raises(ValueError, match="outside"):
        metrix.dice_score(T + C, oh_p, input_format="mixed")
    with pytest.raises(ValueError, match="mixed"):
        metrix.dice_score(T, P, input_format="mixed")
    with pytest.raises(ValueError, match="NaN"):
        metrix.dice_score(oh_t, np.full(oh_p.shape, np.nan), input_format="one-hot")
    with pytest.raises(ValueError, match="weight_type"):
        metrix.generalized_dice_score(T, P, weight_type="cubic")
    with pytest.raises(ValueError, match="average"):
        metrix.generalized_dice_score(T, P, average="macro")
    with pytest.raises(ValueError, match="ignore_index"):
        metrix.mean_iou(np.full_like(T, 7), P, ignore_index=7)
