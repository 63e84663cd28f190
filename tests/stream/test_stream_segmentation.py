"""Streaming segmentation metrics: batches accumulated equal the one-shot function on
every image at once, TorchMetrics' streaming classes, and compiled updates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrix
import metrix.stream as ms

C = 4
CUTS = [(0, 2), (2, 5), (5, 7)]
ONE_SHOT = {ms.MeanIoU: metrix.mean_iou, ms.DiceScore: metrix.dice_score,
            ms.PixelAccuracy: metrix.pixel_accuracy}


def _maps(seed=0, n=7, size=8):
    """Label maps with an image where only class 1 occurs, a class (3) absent from
    one batch, and pixels of 255 (to ignore) in the target."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, C - 1, (n, size, size))
    p = np.where(rng.random(t.shape) < 0.6, t, rng.integers(0, C, t.shape))
    t[0], p[0] = 1, 1
    t[5:, :2] = 3
    t[1, :3] = 255
    return t, p


def _stream(metric, t, p):
    for a, b in CUTS:
        metric.update(t[a:b], p[a:b])
    return metric.compute()


@pytest.mark.parametrize("cls", list(ONE_SHOT))
@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted", "pairs"])
@pytest.mark.parametrize("per_image", [False, True])
@pytest.mark.parametrize("include_background", [True, False])
def test_batches_equal_the_one_shot_function(cls, average, per_image, include_background):
    t, p = _maps()
    kw = dict(per_image=per_image, include_background=include_background, ignore_index=255,
              zero_division=np.nan)
    got = _stream(cls(C, average, **kw), t, p)
    want = ONE_SHOT[cls](t, p, labels=range(C), average=average, **kw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("average", [None, "weighted"])
@pytest.mark.parametrize("per_image", [False, True])
@pytest.mark.parametrize("weight_type", ["square", "simple", "linear"])
def test_generalized_dice_batches(average, per_image, weight_type):
    t, p = _maps(1)
    t[t == 255] = 0
    got = _stream(ms.GeneralizedDiceScore(C, average, per_image=per_image,
                                          weight_type=weight_type), t, p)
    want = metrix.generalized_dice_score(t, p, labels=range(C), average=average,
                                         per_image=per_image, weight_type=weight_type)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_dataset_level_equals_sklearn_on_flattened_pixels():
    skm = pytest.importorskip("sklearn.metrics")
    t, p = _maps(2)
    keep = t.reshape(-1) != 255
    ft, fp = t.reshape(-1)[keep], p.reshape(-1)[keep]
    got = _stream(ms.MeanIoU(C, None, ignore_index=255, zero_division=0.0), t, p)
    np.testing.assert_allclose(got, skm.jaccard_score(ft, fp, labels=range(C), average=None,
                                                      zero_division=0.0))
    got = _stream(ms.DiceScore(C, "weighted", ignore_index=255), t, p)
    np.testing.assert_allclose(got, skm.f1_score(ft, fp, labels=range(C), average="weighted"))


def test_zero_division_warn_gives_zero_without_a_warning():
    t = np.zeros((2, 4, 4), dtype=np.int64)
    m = ms.MeanIoU(3, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.update(t, t)
        got = m.compute()
    np.testing.assert_array_equal(got, [1.0, 0.0, 0.0])


def test_equals_torchmetrics_streaming_classes():
    torch = pytest.importorskip("torch")
    seg = pytest.importorskip("torchmetrics.segmentation")
    t, p = _maps(3)
    t[t == 255] = 0
    tt, pp = torch.asarray(t), torch.asarray(p)
    tm_iou = seg.MeanIoU(num_classes=C, per_class=True, input_format="index")
    tm_dice = seg.DiceScore(num_classes=C, average="none", input_format="index")
    ours_iou = ms.MeanIoU(C, None, per_image=True)
    ours_dice = ms.DiceScore(C, None, per_image=True)
    for a, b in CUTS:
        tm_iou.update(pp[a:b], tt[a:b])
        tm_dice.update(pp[a:b], tt[a:b])
        ours_iou.update(tt[a:b], pp[a:b])
        ours_dice.update(tt[a:b], pp[a:b])
    np.testing.assert_allclose(ours_iou.compute().numpy(), tm_iou.compute().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours_dice.compute().numpy(), tm_dice.compute().numpy(),
                               rtol=1e-6)


def test_one_hot_and_mixed_inputs():
    t, p = _maps(4)
    t[t == 255] = 0
    rng = np.random.default_rng(4)
    scores = rng.random((t.shape[0], C) + t.shape[1:])
    onehot = np.moveaxis(np.eye(C, dtype=np.int64)[t], -1, 1)
    got = _stream(ms.DiceScore(C, per_image=True, input_format="mixed"), t, scores)
    want = metrix.dice_score(t, scores, per_image=True, input_format="mixed")
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = _stream(ms.MeanIoU(C, input_format="one-hot"), onehot, scores)
    np.testing.assert_allclose(got, metrix.mean_iou(onehot, scores, input_format="one-hot"),
                               rtol=1e-12)
    wide = np.concatenate([scores, scores[:, :1]], axis=1)
    with pytest.raises(ValueError, match="5 channels for num_classes=4"):
        ms.MeanIoU(C, input_format="mixed").update(t, wide)
    with pytest.raises(ValueError, match="channel indices"):
        ms.MeanIoU(C, input_format="mixed").update(t, scores[:, :3])


def test_a_collection_shares_one_count_and_merges():
    t, p = _maps(5)
    metrics = {"iou": ms.MeanIoU(C), "dice": ms.DiceScore(C, "micro"),
               "acc": ms.PixelAccuracy(C), "iou_img": ms.MeanIoU(C, per_image=True)}
    left, right = ms.MetricCollection(metrics), ms.MetricCollection(metrics)
    left.update(t[:3], p[:3])
    assert len(left.state) == 2  # the pooled counts once, the per-image sums once
    right.update(t[3:], p[3:])
    got = left.merge(right).compute()
    for key, fn, kw in (("iou", metrix.mean_iou, {}), ("dice", metrix.dice_score,
                                                       {"average": "micro"}),
                        ("acc", metrix.pixel_accuracy, {}),
                        ("iou_img", metrix.mean_iou, {"per_image": True})):
        np.testing.assert_allclose(got[key], fn(t, p, labels=range(C), **kw), rtol=1e-12)


def test_state_dict_round_trip_and_configuration_check():
    t, p = _maps(6)
    m = ms.MeanIoU(C, per_image=True)
    m.update(t[:3], p[:3])
    again = ms.MeanIoU(C, per_image=True).load_state_dict(m.state_dict())
    again.update(t[3:], p[3:])
    np.testing.assert_allclose(again.compute(), metrix.mean_iou(t, p, labels=range(C),
                                                                per_image=True), rtol=1e-12)
    with pytest.raises(ValueError, match="per_image"):
        ms.MeanIoU(C).load_state_dict(m.state_dict())


def test_bad_parameters_and_inputs():
    with pytest.raises(ValueError, match="num_classes"):
        ms.MeanIoU(0)
    with pytest.raises(ValueError, match="average"):
        ms.DiceScore(C, "samples")
    with pytest.raises(ValueError, match="average"):
        ms.GeneralizedDiceScore(C, "macro")
    with pytest.raises(ValueError, match="weight_type"):
        ms.GeneralizedDiceScore(C, weight_type="cubic")
    with pytest.raises(ValueError, match="zero_division"):
        ms.MeanIoU(C, zero_division=2)
    with pytest.raises(ValueError, match="no class"):
        ms.MeanIoU(1, include_background=False)
    with pytest.raises(ValueError, match="weighted=False"):
        ms.MeanIoU(C).update(np.zeros((1, 2, 2), int), np.zeros((1, 2, 2), int),
                             np.ones(1))
    with pytest.raises(ValueError, match="same shape"):
        ms.MeanIoU(C).update(np.zeros((1, 2, 2), int), np.zeros((1, 2, 3), int))
    with pytest.raises(ValueError, match="integers"):
        ms.MeanIoU(C).update(np.zeros((1, 2, 2)), np.zeros((1, 2, 2)))


def test_out_of_range_labels_are_no_class():
    t = np.array([[[0, 1], [7, -3]]])
    p = np.array([[[0, 1], [1, 9]]])
    got = _stream(ms.MeanIoU(2, None), t, p)  # two empty batches too
    np.testing.assert_allclose(got, metrix.mean_iou(t, p, labels=[0, 1], average=None))


@pytest.mark.compile
def test_torch_compile_fullgraph_update():
    torch = pytest.importorskip("torch")
    t, p = _maps(7)
    spec = ms.MeanIoU(C, None, per_image=True, ignore_index=255).spec
    step = torch.compile(spec.update, fullgraph=True)
    state = spec.init(torch.zeros(1, dtype=torch.float64))
    for a, b in CUTS:
        state = step(state, torch.asarray(t[a:b]), torch.asarray(p[a:b]))
    want = metrix.mean_iou(t, p, labels=range(C), average=None, per_image=True,
                           ignore_index=255)
    np.testing.assert_allclose(spec.compute(state).numpy(), want, rtol=1e-12)


@pytest.mark.compile
@pytest.mark.parametrize("per_image", [False, True])
def test_jax_jit_update(per_image):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    t, p = _maps(8)
    spec = ms.DiceScore(C, per_image=per_image, ignore_index=255).spec
    step = jax.jit(spec.update)
    state = spec.init(jnp.zeros(1))
    for a, b in CUTS:
        state = step(state, jnp.asarray(t[a:b]), jnp.asarray(p[a:b]))
    want = metrix.dice_score(t, p, labels=range(C), per_image=per_image, ignore_index=255)
    np.testing.assert_allclose(np.asarray(spec.compute(state)), want, rtol=1e-5)
