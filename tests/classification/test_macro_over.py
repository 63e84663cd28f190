"""``macro_over="present"`` on the one-shot label metrics: the macro average over
the classes with a non-zero (weighted) count in ``y_true`` or ``y_pred``.

Equal to scikit-learn with ``labels=`` restricted to those classes (values and
warnings), to TorchMetrics' multiclass macro average (which leaves out the
classes with ``tp + fp + fn == 0``), on every backend, with and without
validation, with weights (a class whose samples all weigh 0 is absent), and
under ``jax.jit``; ``"all"`` (the default) stays scikit-learn's
``labels=range(C)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import metrix

C = 7
rng = np.random.default_rng(47)
N = 120
# classes 3 and 6 never occur; class 2 is only true (recall 0, precision 0/0),
# class 4 only predicted (precision 0, recall 0/0); class 5 only in samples of weight 0
T = rng.choice([0, 1, 2, 5], N, p=[0.4, 0.35, 0.15, 0.1])
P = np.where(rng.random(N) < 0.6, T, rng.choice([0, 1, 4], N))
P = np.where(T == 2, rng.choice([0, 1], N), P)
P = np.where(T == 5, 5, P)
W = rng.random(N) + 0.1
W[T == 5] = 0.0
W[:4] = 0.0
LABELS = list(range(C))

FUNCS = {"precision_score": {}, "recall_score": {}, "f1_score": {},
         "fbeta_score": {"beta": 0.5}, "jaccard_score": {}}


def _present(t, p, w=None):
    w = np.ones(len(t)) if w is None else w
    seen = np.bincount(t, weights=w, minlength=C) + np.bincount(p, weights=w, minlength=C)
    return [c for c in range(C) if seen[c] != 0]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def test_the_data_has_absent_and_one_sided_classes():
    assert _present(T, P) == [0, 1, 2, 4, 5]
    assert _present(T, P, W) == [0, 1, 2, 4]
    assert set(T) == {0, 1, 2, 5} and 4 in set(P) and 2 not in set(P)


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("zero_division", ["warn", 1.0, np.nan])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("validate", [True, False])
def test_equals_scikit_learn_on_the_present_labels(xp, name, zero_division, weighted,
                                                   validate):
    if name == "jaccard_score" and zero_division not in ("warn", 1.0):
        pytest.skip("jaccard_score's zero_division is 'warn', 0 or 1")
    w = W if weighted else None
    kw = dict(FUNCS[name], average="macro", zero_division=zero_division)
    want = _quiet(getattr(skm, name), T, P, labels=_present(T, P, w), sample_weight=w, **kw)
    everything = _quiet(getattr(skm, name), T, P, labels=LABELS, sample_weight=w, **kw)
    if zero_division == zero_division:
        # (zero_division=nan already leaves out an absent class's ratios: all 0 / 0)
        assert not np.isclose(want, everything)  # the option changes the value here
    args = [xp.asarray(T), xp.asarray(P)]
    got = _quiet(getattr(metrix, name), *args, labels=LABELS, macro_over="present",
                 sample_weight=None if w is None else xp.asarray(w), validate=validate, **kw)
    tol = 1e-5 if xp.float_dtype == "float32" else 1e-12
    np.testing.assert_allclose(float(got), want, rtol=tol)
    default = _quiet(getattr(metrix, name), *args, labels=LABELS,
                     sample_weight=None if w is None else xp.asarray(w), validate=validate, **kw)
    np.testing.assert_allclose(float(default), everything, rtol=tol)


@pytest.mark.parametrize("zero_division", ["warn", 1.0, np.nan])
@pytest.mark.parametrize("weighted", [False, True])
def test_precision_recall_fscore_support(zero_division, weighted):
    w = W if weighted else None
    want = _quiet(skm.precision_recall_fscore_support, T, P, labels=_present(T, P, w),
                  average="macro", sample_weight=w, zero_division=zero_division, beta=2.0)
    got = _quiet(metrix.precision_recall_fscore_support, T, P, labels=LABELS, beta=2.0,
                 average="macro", sample_weight=w, zero_division=zero_division,
                 macro_over="present")
    np.testing.assert_allclose(got[:3], want[:3], rtol=1e-12)
    assert got[3] is None


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("weighted", [False, True])
def test_warnings_are_scikit_learns_on_the_present_labels(name, weighted):
    """An absent class's 0 / 0 does not warn (it is not averaged); a present
    class's does, with scikit-learn's message."""
    w = W if weighted else None
    kw = dict(FUNCS[name], average="macro", sample_weight=w)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        getattr(skm, name)(T, P, labels=_present(T, P, w), **kw)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        getattr(metrix, name)(T, P, labels=LABELS, macro_over="present", **kw)
    assert [str(m.message) for m in ours] == [str(m.message) for m in theirs]
    # on the classes 0 and 1 alone (all present, each both true and predicted): no warning
    t, p = T[T < 2], P[T < 2] % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(metrix, name)(t, p, labels=LABELS, macro_over="present",
                              **dict(FUNCS[name], average="macro"))


@pytest.mark.parametrize("t, p, present", [
    ([2, 2, 2], [0, 0, 0], [0, 2]),  # class 2 true only, class 0 predicted only
    ([2, 2, 2], [5, 5, 5], [2]),     # one present class (5 is not a declared label)
])
def test_warning_wording_follows_the_present_labels(t, p, present):
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = skm.precision_score(t, p, labels=present, average="macro")
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = metrix.precision_score(t, p, labels=[0, 1, 2, 3], average="macro",
                                     macro_over="present")
    assert got == want
    assert [str(m.message) for m in ours] == [str(m.message) for m in theirs]
    assert len(ours) == 1


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
def test_equals_torchmetrics_multiclass(zero_division):
    torch = pytest.importorskip("torch")
    tmf = pytest.importorskip("torchmetrics.functional.classification")
    t, p = torch.tensor(T), torch.tensor(P)
    tm = {"precision_score": tmf.multiclass_precision, "recall_score": tmf.multiclass_recall,
          "f1_score": tmf.multiclass_f1_score, "jaccard_score": tmf.multiclass_jaccard_index}
    for name, fn in tm.items():
        for average in ("macro", None):
            want = fn(p, t, num_classes=C, average=average, zero_division=zero_division)
            got = getattr(metrix, name)(t, p, labels=LABELS, average=average,
                                        zero_division=zero_division, macro_over="present",
                                        validate=False)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=name)
    want = tmf.multiclass_fbeta_score(p, t, beta=2.0, num_classes=C, average="macro",
                                      zero_division=zero_division)
    got = metrix.fbeta_score(t, p, beta=2.0, labels=LABELS, average="macro",
                             zero_division=zero_division, macro_over="present")
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
    # TorchMetrics' macro accuracy is the macro recall over the present classes
    want = tmf.multiclass_accuracy(p, t, num_classes=C, average="macro")
    got = metrix.recall_score(t, p, labels=LABELS, average="macro", zero_division=0.0,
                              macro_over="present")
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)


def test_multilabel_equals_scikit_learn_on_the_present_labels():
    y = (rng.random((60, 6)) < 0.3).astype(np.int64)
    s = (rng.random((60, 6)) < 0.3).astype(np.int64)
    y[:, 1] = s[:, 1] = 0  # label 1: absent
    y[:, 4] = 0            # label 4: predicted only
    s[:, 5] = 0            # label 5: true only
    present = [0, 2, 3, 4, 5]
    for name in sorted(FUNCS):
        kw = dict(FUNCS[name], average="macro")
        want = _quiet(getattr(skm, name), y, s, labels=present, **kw)
        got = _quiet(getattr(metrix, name), y, s, macro_over="present", **kw)
        np.testing.assert_allclose(float(got), want, rtol=1e-12, err_msg=name)
        assert not np.isclose(want, _quiet(getattr(skm, name), y, s, **kw))


def test_discovered_labels_are_all_present():
    """Without ``labels`` (and without zero weights) every class found is in
    ``y_true`` or ``y_pred``: the option changes nothing."""
    for name in sorted(FUNCS):
        kw = dict(FUNCS[name], average="macro")
        a = _quiet(getattr(metrix, name), T, P, macro_over="present", **kw)
        b = _quiet(getattr(metrix, name), T, P, **kw)
        assert a == b


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_other_averages_ignore_it(name):
    for average in ("micro", "weighted", None):
        kw = dict(FUNCS[name], average=average, labels=LABELS)
        a = _quiet(getattr(metrix, name), T, P, macro_over="present", **kw)
        b = _quiet(getattr(metrix, name), T, P, **kw)
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("zero_division", [0.0, 1.0])
def test_no_class_present_gives_zero_division(zero_division):
    """All the weight on nothing (the one-shot functions reject empty input, as
    scikit-learn; see the streams' test for no data): every ratio is 0 / 0,
    and the average over all classes is the ``zero_division`` value
    (TorchMetrics gives 0 whatever its ``zero_division``)."""
    t = np.array([0, 1])
    for name in sorted(FUNCS):
        kw = dict(FUNCS[name], average="macro", labels=[0, 1, 2],
                  zero_division=zero_division, sample_weight=[0.0, 0.0])
        # (validate=True rejects all-zero weights, as scikit-learn)
        got = getattr(metrix, name)(t, t, macro_over="present", validate=False, **kw)
        assert float(got) == zero_division


def test_bad_value_raises():
    for name in sorted(FUNCS):
        with pytest.raises(ValueError, match="macro_over must be one of"):
            getattr(metrix, name)(T, P, average="macro", macro_over="seen", **FUNCS[name])


def test_sync_free_under_jax_jit():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    t, p = jnp.asarray(T, dtype=jnp.int32), jnp.asarray(P, dtype=jnp.int32)

    @jax.jit
    def step(t, p):
        return metrix.f1_score(t, p, labels=LABELS, average="macro", zero_division=0.0,
                               macro_over="present", validate=False)

    want = skm.f1_score(T, P, labels=_present(T, P), average="macro", zero_division=0.0)
    np.testing.assert_allclose(float(step(t, p)), want, rtol=1e-6)


def test_bootstrap_batched_path_takes_it():
    """The bootstrap's batched label path averages each resample over its
    present classes: with three frequent classes of five declared, every
    resample's "present" value is the "all" value times 5 / 3."""
    from metrix.evaluation._batched_find import find_path
    from metrix.evaluation.intervals import bootstrap_with_estimate

    t = rng.choice(3, 150)
    p = np.where(rng.random(150) < 0.7, t, rng.choice(3, 150))
    kw = dict(labels=[0, 1, 2, 3, 4], average="macro", zero_division=0.0)
    assert find_path(metrix.f1_score, (t, p), dict(kw, macro_over="present")) is not None
    runs = [bootstrap_with_estimate(metrix.f1_score, t, p, n_resamples=50, random_state=0,
                                    _return_distribution=True, **dict(kw, macro_over=m))
            for m in ("present", "all")]
    (_, est_present, present), (_, est_all, everything) = runs
    np.testing.assert_allclose(float(est_present), skm.f1_score(t, p, average="macro"),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(present), np.asarray(everything) * 5 / 3,
                               rtol=1e-12)
