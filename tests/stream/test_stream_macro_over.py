"""``macro_over="present"`` on the label streams (multiclass and multilabel).

The macro average over the classes with a non-zero (weighted) count in
``y_true`` or ``y_pred`` of all the data seen: equal to TorchMetrics'
multiclass macro average (per class and averaged, with ``ignore_index``), to
scikit-learn with ``labels=`` restricted to those classes, and to the one-shot
functions with the same option; streamed in uneven batches (empty ones, one
sample), with weights (zeros included), merged, reloaded from a
``state_dict``; on NumPy, torch CPU and JAX CPU, under ``jax.jit``, and on the
torch and Flax NNX faces (which forward the constructor's keywords).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix
import metrix.stream as ms

C = 7
rng = np.random.default_rng(1494)
N = 150
# classes 3 and 6 never occur; 2 is only true, 4 only predicted; 5 only where the weight is 0
T = rng.choice([0, 1, 2, 5], N, p=[0.4, 0.35, 0.15, 0.1])
P = np.where(rng.random(N) < 0.6, T, rng.choice([0, 1, 4], N))
P = np.where(T == 2, rng.choice([0, 1], N), P)
P = np.where(T == 5, 5, P)
W = rng.random(N) + 0.1
W[T == 5] = 0.0
W[7:9] = 0.0
SPLITS = (0, 0, 1, 40, 41, 97, N, N)
LABELS = list(range(C))

#: stream class -> (one-shot function, its keywords): Accuracy(average="macro") is the
#: macro recall (TorchMetrics' meaning)
CLASSES = {"Precision": ("precision_score", {}), "Recall": ("recall_score", {}),
           "F1Score": ("f1_score", {}), "FBetaScore": ("fbeta_score", {"beta": 2.0}),
           "JaccardIndex": ("jaccard_score", {}), "Accuracy": ("recall_score", {})}


def _present(t, p, w=None):
    w = np.ones(len(t)) if w is None else w
    seen = np.bincount(t, weights=w, minlength=C) + np.bincount(p, weights=w, minlength=C)
    return [c for c in range(C) if seen[c] != 0]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _make(name, **kw):
    extra = {"beta": 2.0} if name == "FBetaScore" else {}
    return getattr(ms, name)(C, average="macro", macro_over="present", **extra, **kw)


def _stream(metric, t=T, p=P, w=None, conv=np.asarray):
    for a, b in zip(SPLITS, SPLITS[1:]):
        metric.update(conv(t[a:b]), conv(p[a:b]),
                      None if w is None else conv(w[a:b]))
    return metric.compute()


def _np(x):
    return np.asarray(x.detach().cpu() if hasattr(x, "detach") else x, dtype=np.float64)


@pytest.mark.parametrize("name", sorted(CLASSES))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("zero_division", ["warn", 1.0])
def test_equals_the_one_shot_and_scikit_learn_on_the_present_labels(xp, name, weighted,
                                                                     zero_division):
    w = W if weighted else None
    tol = 1e-5 if xp.float_dtype == "float32" else 1e-12
    fn, kw = CLASSES[name]
    kw = dict(kw, average="macro", zero_division=zero_division)
    m = _make(name, weighted=weighted, zero_division=zero_division)
    got = _stream(m, w=w, conv=xp.asarray)
    assert xp.lib == "numpy" or type(got).__module__.split(".")[0] in (xp.lib, "jaxlib")
    want = _quiet(getattr(skm, fn), T, P, labels=_present(T, P, w), sample_weight=w, **kw)
    np.testing.assert_allclose(float(got), want, rtol=tol)
    one_shot = _quiet(getattr(metrix, fn), T, P, labels=LABELS, sample_weight=w,
                      macro_over="present", **kw)
    np.testing.assert_allclose(float(got), float(one_shot), rtol=tol)
    default = getattr(ms, name)(C, average="macro", weighted=weighted,
                                zero_division=zero_division, **CLASSES[name][1])
    everything = _quiet(getattr(skm, fn), T, P, labels=LABELS, sample_weight=w, **kw)
    np.testing.assert_allclose(float(_stream(default, w=w)), everything, rtol=1e-12)
    assert not np.isclose(want, everything)


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
@pytest.mark.parametrize("ignore_index", [None, -100, 2])
def test_equals_torchmetrics_multiclass(zero_division, ignore_index):
    torch = pytest.importorskip("torch")
    tmf = pytest.importorskip("torchmetrics.functional.classification")
    t = T.copy()
    if ignore_index is not None:
        t[::5] = ignore_index
    fns = {"Precision": tmf.multiclass_precision, "Recall": tmf.multiclass_recall,
           "F1Score": tmf.multiclass_f1_score,
           "FBetaScore": lambda *a, **k: tmf.multiclass_fbeta_score(*a, beta=2.0, **k),
           "JaccardIndex": tmf.multiclass_jaccard_index,
           "Accuracy": tmf.multiclass_accuracy}
    tt, pp = torch.tensor(t), torch.tensor(P)
    for name, fn in fns.items():
        if name == "JaccardIndex" and ignore_index == 2:
            continue  # TorchMetrics' JaccardIndex also drops the class ignore_index: below
        extra = {} if name == "Accuracy" else {"zero_division": zero_division}
        if name == "Accuracy" and zero_division != 0:
            continue  # TorchMetrics' accuracy has no zero_division: a 0 / 0 recall is 0
        # metrix's Accuracy(average=None) is plain accuracy, not per class
        for average in ("macro",) if name == "Accuracy" else ("macro", None):
            want = fn(pp, tt, num_classes=C, average=average, ignore_index=ignore_index,
                      **extra)
            m = getattr(ms, name)(C, average=average, macro_over="present",
                                  ignore_index=ignore_index, zero_division=zero_division,
                                  **({"beta": 2.0} if name == "FBetaScore" else {}))
            got = _stream(m, t=t, conv=torch.asarray)
            np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-6, err_msg=name)


def test_torchmetrics_jaccard_drops_an_ignore_index_class():
    """The one difference found: TorchMetrics' ``JaccardIndex`` also leaves the
    class ``ignore_index`` (one of the classes) out of its macro average, even
    where it is predicted; metrix keeps it (its predictions are false
    positives), as TorchMetrics' other metrics do."""
    torch = pytest.importorskip("torch")
    tmf = pytest.importorskip("torchmetrics.functional.classification")
    t, p = T.copy(), P.copy()
    t[::5] = 2
    p[1::7] = 2  # class 2 predicted where the target is not ignored
    tt, pp = torch.tensor(t), torch.tensor(p)
    per_class = tmf.multiclass_jaccard_index(pp, tt, num_classes=C, average=None,
                                             ignore_index=2).numpy()
    m = ms.JaccardIndex(C, average=None, ignore_index=2)
    np.testing.assert_allclose(_stream(m, t=t, p=p), per_class, rtol=1e-6)
    keep = _present(t[t != 2], p[t != 2])
    assert 2 in keep
    m = ms.JaccardIndex(C, average="macro", macro_over="present", ignore_index=2)
    np.testing.assert_allclose(_stream(m, t=t, p=p), per_class[keep].mean(), rtol=1e-6)
    want = tmf.multiclass_jaccard_index(pp, tt, num_classes=C, average="macro", ignore_index=2)
    keep.remove(2)
    np.testing.assert_allclose(float(want), per_class[keep].mean(), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_merge_and_state_dict(name):
    whole = _stream(_make(name))
    a, b = _make(name), _make(name)
    a.update(T[:60], P[:60])
    b.update(T[60:], P[60:])
    a.merge(b)
    np.testing.assert_allclose(float(a.compute()), float(whole), rtol=1e-12)
    c = _make(name)
    c.update(T[:60], P[:60])
    d = _make(name).load_state_dict(c.state_dict())
    d.update(T[60:], P[60:])
    np.testing.assert_allclose(float(d.compute()), float(whole), rtol=1e-12)
    # a state of the other macro_over means another value: named, not loaded
    other = getattr(ms, name)(C, average="macro", **CLASSES[name][1])
    with pytest.raises(ValueError, match="macro_over"):
        other.load_state_dict(c.state_dict())
    with pytest.raises(ValueError, match="macro_over"):
        other.merge(c)


def test_default_config_is_unchanged():
    """A state saved before the option existed (no ``macro_over`` in its
    configuration) loads into a default metric."""
    m = ms.F1Score(C)
    m.update(T, P)
    assert "macro_over" not in m.spec.config()
    assert _make("F1Score").spec.config()["macro_over"] == "present"


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
def test_no_class_present_gives_zero_division(zero_division):
    """Every sample ignored: all ratios are 0 / 0 and the average is over all
    classes, the ``zero_division`` value.  TorchMetrics gives 0 for precision,
    recall and F-beta whatever its ``zero_division``, and NaN for JaccardIndex."""
    t = np.full(10, -100)
    for name in sorted(CLASSES):
        if name == "Accuracy":
            continue
        m = _make(name, ignore_index=-100, zero_division=zero_division)
        m.update(t, P[:10])
        assert float(m.compute()) == zero_division, name


def test_traced_under_jax_jit():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    spec = ms.LabelStream(C, "f1", average="macro", macro_over="present", zero_division=0.0)
    t, p = jnp.asarray(T, dtype=jnp.int32), jnp.asarray(P, dtype=jnp.int32)
    state = spec.init(t)
    update = jax.jit(spec.update)
    for a, b in zip(SPLITS, SPLITS[1:]):
        state = update(state, t[a:b], p[a:b])
    got = jax.jit(spec.compute)(state)
    want = skm.f1_score(T, P, labels=_present(T, P), average="macro", zero_division=0.0)
    np.testing.assert_allclose(float(got), want, rtol=1e-6)


def test_bad_value_raises():
    with pytest.raises(ValueError, match="macro_over must be one of"):
        ms.F1Score(C, macro_over="seen")
    with pytest.raises(ValueError, match="macro_over must be one of"):
        ms.F1Score(num_labels=3, macro_over=None)


# -- multilabel --------------------------------------------------------------------

L = 6
Y = (rng.random((N, L)) < 0.3).astype(np.int64)
S = np.round(rng.random((N, L)), 2)
Y[:, 1] = 0
S[:, 1] = 0.2   # label 1: absent
Y[:, 4] = 0     # label 4: predicted only
S[:, 5] = 0.1   # label 5: true only
ML_PRESENT = [0, 2, 3, 4, 5]
ML = {"Precision": "precision_score", "Recall": "recall_score", "F1Score": "f1_score",
      "JaccardIndex": "jaccard_score"}


@pytest.mark.parametrize("name", sorted(ML))
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_equals_scikit_learn_on_the_present_labels(name, weighted):
    w = W if weighted else None
    m = getattr(ms, name)(num_labels=L, average="macro", macro_over="present",
                          weighted=weighted)
    got = _stream(m, t=Y, p=S, w=w)
    pred = (S > 0.5).astype(np.int64)
    want = _quiet(getattr(skm, ML[name]), Y, pred, labels=ML_PRESENT, average="macro",
                  sample_weight=w)
    np.testing.assert_allclose(float(got), want, rtol=1e-12)
    one_shot = _quiet(getattr(metrix, ML[name]), Y, pred, average="macro", sample_weight=w,
                      macro_over="present")
    np.testing.assert_allclose(float(got), float(one_shot), rtol=1e-12)
    a, b = (getattr(ms, name)(num_labels=L, average="macro", macro_over="present",
                              weighted=weighted) for _ in range(2))
    a.update(Y[:50], S[:50], None if w is None else w[:50])
    b.update(Y[50:], S[50:], None if w is None else w[50:])
    np.testing.assert_allclose(float(a.merge(b).compute()), want, rtol=1e-12)


def test_multilabel_torchmetrics_keeps_absent_labels():
    """TorchMetrics' multilabel macro average is over every label (absent ones
    too): ``macro_over="all"``, the default."""
    torch = pytest.importorskip("torch")
    tmf = pytest.importorskip("torchmetrics.functional.classification")
    want = tmf.multilabel_f1_score(torch.tensor(S), torch.tensor(Y), num_labels=L,
                                   average="macro")
    got = _stream(ms.F1Score(num_labels=L, average="macro"), t=Y, p=S)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
    present = _stream(ms.F1Score(num_labels=L, average="macro", macro_over="present"),
                      t=Y, p=S)
    np.testing.assert_allclose(float(present), float(want) * L / len(ML_PRESENT), rtol=1e-6)


# -- the faces ---------------------------------------------------------------------

def test_torch_face_forwards_it():
    torch = pytest.importorskip("torch")
    from metrix.integrations import torch as mt

    m = mt.F1Score(C, average="macro", macro_over="present", zero_division=0.0)
    for a, b in zip(SPLITS, SPLITS[1:]):
        m.update(torch.tensor(T[a:b]), torch.tensor(P[a:b]))
    want = skm.f1_score(T, P, labels=_present(T, P), average="macro", zero_division=0.0)
    np.testing.assert_allclose(float(m.compute()), want, rtol=1e-12)


def test_flax_face_forwards_it():
    pytest.importorskip("flax.nnx")
    jax = pytest.importorskip("jax")
    from metrix.integrations import flax as mf

    m = mf.F1Score(C, average="macro", macro_over="present", zero_division=0.0)
    for a, b in zip(SPLITS, SPLITS[1:]):
        if b > a:
            m.update(y_true=jax.numpy.asarray(T[a:b]), y_pred=jax.numpy.asarray(P[a:b]))
    want = skm.f1_score(T, P, labels=_present(T, P), average="macro", zero_division=0.0)
    np.testing.assert_allclose(float(m.compute()), want, rtol=1e-6)
