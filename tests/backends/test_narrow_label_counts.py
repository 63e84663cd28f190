"""Narrow and unsigned label dtypes are counted as they are (no widened copy)
and give scikit-learn's numbers: the chunked pair count's codes are made in the
narrowest dtype that holds them, so every width is checked above one chunk."""

from __future__ import annotations

import numpy as np
import pytest

import metrix
from metrix.backends import ops
from metrix.backends._pair_count import CHUNK

sk = pytest.importorskip("sklearn.metrics")

N = 2 * CHUNK + 3  # several chunks and an odd tail (the joint count's last sample)
DTYPES = ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32")


def _libraries():
    out = [("numpy", lambda x: x)]
    try:
        import torch
    except ImportError:
        return out
    return out + [("torch", torch.from_numpy)]


LIBRARIES = _libraries()


def _labels(n_classes, dtype, seed, other=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, N)
    if other:  # labels outside the declared ones: negatives where signed, and n_classes
        y[rng.random(N) < 0.05] = n_classes
        if np.dtype(dtype).kind == "i":
            y[rng.random(N) < 0.05] = -1
    return y.astype(dtype)


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_classes", [3, 11, 40])
def test_narrow_labels_count_as_scikit_learn(lib, to, dtype, n_classes):
    a, b = _labels(n_classes, dtype, 0), _labels(n_classes, dtype, 1)
    if lib == "torch" and dtype in ("uint16", "uint32"):
        pytest.skip("torch has no arithmetic on uint16 / uint32")
    want = sk.confusion_matrix(a, b)
    np.testing.assert_array_equal(np.asarray(metrix.confusion_matrix(to(a), to(b))), want)
    f1 = sk.f1_score(a, b, average="macro")
    assert float(metrix.f1_score(to(a), to(b), average="macro")) == pytest.approx(f1, rel=1e-12)


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
@pytest.mark.parametrize("dtype", ("uint8", "int8", "int16", "int32", "int64"))
def test_declared_narrow_labels_send_the_rest_to_other(lib, to, dtype):
    n_classes = 7
    a = _labels(n_classes, dtype, 2, other=True)
    b = _labels(n_classes, dtype, 3, other=True)
    labels = list(range(n_classes))
    got = metrix.confusion_matrix(to(a), to(b), labels=labels, validate=False)
    np.testing.assert_array_equal(np.asarray(got), sk.confusion_matrix(a, b, labels=labels))
    f1 = metrix.f1_score(to(a), to(b), labels=labels, average="macro", validate=False)
    assert float(f1) == pytest.approx(sk.f1_score(a, b, labels=labels, average="macro"),
                                      rel=1e-12)


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
def test_bool_labels_count_as_scikit_learn(lib, to):
    rng = np.random.default_rng(4)
    a, b = rng.random(N) < 0.3, rng.random(N) < 0.4
    np.testing.assert_array_equal(np.asarray(metrix.confusion_matrix(to(a), to(b))),
                                  sk.confusion_matrix(a, b))
    assert float(metrix.accuracy_score(to(a), to(b))) == sk.accuracy_score(a, b)


def test_other_of_a_narrow_dtype_does_not_wrap():
    # 200 classes do not fit int8: "other" is 200 in a wider dtype, not -56
    got = ops(np).codes_or_other(np.array([-1, 5, 127], np.int8), 200)
    np.testing.assert_array_equal(got, [200, 5, 127])


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
@pytest.mark.parametrize("dtype", ("uint8", "int8", "int16", "int32"))
@pytest.mark.parametrize("first", [0, 3])
def test_narrow_masks_give_the_int64_values(lib, to, dtype, first):
    # uint8 masks are counted as they are; classes from 3 shift in the count
    # dtype (a uint8 label below 3 must not wrap into a scored class)
    rng = np.random.default_rng(5)
    a = rng.integers(0, 9, (2, 512, 300))
    b = np.where(rng.random(a.shape) < 0.7, a, rng.integers(0, 9, a.shape))
    labels = list(range(first, 9))
    for metric in (metrix.mean_iou, metrix.dice_score):
        want = np.asarray(metric(b, a, labels=labels, average=None))
        got = metric(to(b.astype(dtype)), to(a.astype(dtype)), labels=labels, average=None)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
@pytest.mark.parametrize("dtype", ("bool", "uint8", "int8", "int16", "int32", "int64"))
@pytest.mark.parametrize("outside", [False, True])
def test_edge_confusion_matches_the_generic_cells(lib, to, dtype, outside):
    # the stream's count: the range is read (unsigned maxima), clipped only
    # where a label is outside; both ways equal the generic clip-and-count
    import array_api_compat.numpy as compat_numpy  # NumPy 1.x has no namespace astype

    from metrix.backends._generic import GenericOps

    n = 2 if dtype == "bool" else 6
    rng = np.random.default_rng(6)
    a, b = rng.integers(0, n, 5000), rng.integers(0, n, 5000)
    if outside and dtype != "bool":
        a[::7] = n + 1
        if dtype not in ("uint8",):
            b[::11] = -1
    a, b = a.astype(dtype), b.astype(dtype)
    cm = np.arange((n + 2) ** 2, dtype=np.int64)
    want = GenericOps(compat_numpy).edge_confusion(cm, a.astype(np.int64), b.astype(np.int64), n=n)
    xa, xb, xcm = to(a), to(b), to(cm)
    xp = np if lib == "numpy" else pytest.importorskip("torch")
    got = ops(xp).edge_confusion(xcm, xa, xb, n=n)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("lib, to", LIBRARIES, ids=[name for name, _ in LIBRARIES])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "uint64"])
@pytest.mark.parametrize("n", [300, 5000])  # the small-batch kernels, and past them
def test_training_loop_lane_takes_every_label_width(lib, to, dtype, n):
    if lib == "torch" and dtype == "uint64":
        pytest.skip("torch has no arithmetic on uint64")
    rng = np.random.default_rng(7)
    c = 2 if dtype == "bool" else 4
    a = rng.integers(0, c, n).astype(dtype)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, c, n).astype(dtype))
    labels = list(range(c))
    ta, tb = to(a), to(b)
    for name in ("f1_score", "precision_score", "jaccard_score"):
        got = getattr(metrix, name)(ta, tb, labels=labels, average="macro", validate=False)
        want = getattr(sk, name)(a, b, labels=labels, average="macro")
        assert float(got) == pytest.approx(want, rel=1e-12), name
    for name in ("matthews_corrcoef", "cohen_kappa_score", "balanced_accuracy_score"):
        kw = {"labels": labels} if name == "cohen_kappa_score" else {}
        assert float(getattr(metrix, name)(ta, tb, validate=False, **kw)) == pytest.approx(
            getattr(sk, name)(a, b, **kw), rel=1e-12), name
    np.testing.assert_array_equal(
        np.asarray(metrix.confusion_matrix(ta, tb, labels=labels, validate=False)),
        sk.confusion_matrix(a, b, labels=labels))
