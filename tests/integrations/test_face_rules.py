"""The rules every framework face keeps, as :mod:`metrix.stream` does (torch, Flax).

* ``compute()`` with no sample raises ``ValueError`` (before any update, after
  ``reset()``, after empty batches only); the Keras face returns NaN instead
  (Keras calls ``result()`` itself then: ``keras_scripts/faces_keras.py``).
* merging metrics configured differently raises ``ValueError`` naming the
  difference; loading a torch checkpoint of another configuration raises
  torch's ``RuntimeError`` naming it; a checkpoint without the metric's keys
  follows torch's ``strict`` rule.
* ``validate=True`` inside a compiled step fails naming the fix.

The values themselves are the conformance suite's (``conformance/cases_framework_faces.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

pytestmark = pytest.mark.integrations

Y = np.array([0, 1, 2, 3, 1])
P = np.array([0, 2, 2, 3, 1])


# -- torch -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mt():
    pytest.importorskip("torch")
    import metrix.integrations.torch as mt

    return mt


def _t(a):
    import torch

    return torch.asarray(a)


@pytest.mark.parametrize("how", ["fresh", "reset", "empty-batches"])
def test_torch_compute_without_samples_raises(mt, how):
    m = mt.F1Score(4)
    if how == "reset":
        m(_t(Y), _t(P))
        m.reset()
    elif how == "empty-batches":
        m(_t(Y[:0]), _t(P[:0]))
        m.update(_t(Y[:0]), _t(P[:0]))
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()


@pytest.mark.parametrize("other,named", [
    (lambda mt: mt.F1Score(5), "num_classes"),
    (lambda mt: mt.Precision(4), "metric"),
    (lambda mt: mt.F1Score(4, weighted=True), "weighted"),
])
def test_torch_merge_of_another_configuration_names_it(mt, other, named):
    a, b = mt.F1Score(4), other(mt)
    b.update(_t(Y), _t(P), *([_t(np.ones(5))] if named == "weighted" else []))
    with pytest.raises(ValueError, match=named):
        a.merge(b)


@pytest.mark.parametrize("saved,named", [
    (lambda mt: mt.F1Score(5), "num_classes"),
    (lambda mt: mt.AUROC(thresholds=20), "thresholds"),  # other leaves: the config says why
])
def test_torch_load_of_another_configuration_names_it(mt, saved, named):
    import torch

    target = mt.F1Score(4) if named == "num_classes" else mt.AUROC(capacity=16)
    with pytest.raises(RuntimeError, match=named):
        target.load_state_dict(saved(mt).state_dict())
    with pytest.raises(RuntimeError, match=named):  # strict=False: still another metric
        target.load_state_dict(saved(mt).state_dict(), strict=False)
    assert isinstance(target, torch.nn.Module)


def _model(mt):
    import torch

    model = torch.nn.Module()
    model.net = torch.nn.Linear(2, 2)
    model.f1 = mt.F1Score(4)
    return model


def test_torch_checkpoint_without_the_metric_follows_strict(mt):
    """A checkpoint saved before the metric was added: strict=False leaves the metric as
    it is (torch's rule for missing parameters), strict=True names the missing keys."""
    old = {k: v for k, v in _model(mt).state_dict().items() if not k.startswith("f1.")}
    model = _model(mt)
    model.f1.update(_t(Y), _t(P))
    before = float(model.f1.compute())
    keys = model.load_state_dict(old, strict=False)
    assert sorted(keys.missing_keys) == ["f1.cm", "f1.config"] and not keys.unexpected_keys
    assert float(model.f1.compute()) == before
    with pytest.raises(RuntimeError, match=r"Missing key\(s\).*f1\.cm"):
        model.load_state_dict(old)


def test_torch_checkpoint_with_an_extra_key_follows_strict(mt):
    saved = _model(mt)
    saved.f1.update(_t(Y), _t(P))
    state = dict(saved.state_dict(), **{"f1.extra": _t(np.zeros(2))})
    model = _model(mt)
    keys = model.load_state_dict(state, strict=False)
    assert keys.unexpected_keys == ["f1.extra"]
    assert float(model.f1.compute()) == float(saved.f1.compute())
    with pytest.raises(RuntimeError, match=r"Unexpected key\(s\).*f1\.extra"):
        _model(mt).load_state_dict(state)


# -- Flax NNX --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mf():
    pytest.importorskip("flax")
    import metrix.integrations.flax as mf

    return mf


def _j(a):
    import jax.numpy as jnp

    return jnp.asarray(a)


@pytest.mark.parametrize("how", ["fresh", "reset", "empty-batches", "merge-of-empties"])
def test_flax_compute_without_samples_raises(mf, how):
    m = mf.F1Score(4)
    if how == "reset":
        m.update(_j(Y), _j(P))
        m.reset()
    elif how == "empty-batches":
        m.update(_j(Y[:0]), _j(P[:0]))
    elif how == "merge-of-empties":
        m.merge(mf.F1Score(4))
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()


def test_flax_compute_after_jitted_updates_and_no_recompilation(mf):
    """The host learns that a traced batch had rows from its static shape; nnx.jit
    carries it out of the step, and neither that nor reset() recompiles the step."""
    from flax import nnx

    traces = []

    @nnx.jit
    def step(m, y, p):
        traces.append(1)
        m.update(y, p)

    m = mf.F1Score(4)
    for _ in range(3):
        step(m, _j(Y), _j(P))
    expected = skm.f1_score(Y, P, average="macro", labels=range(4))
    np.testing.assert_allclose(m.compute(), expected, rtol=1e-6)
    m.reset()
    with pytest.raises(ValueError, match="before any sample"):
        m.compute()
    step(m, _j(Y), _j(P))
    m.compute()
    assert len(traces) == 1


def test_flax_unknown_sample_count_returns_the_value(mf):
    """A masked batch (the mask is on the device) or a loaded state: the host cannot
    tell, so compute() gives the formula's value rather than raise wrongly."""
    m = mf.Accuracy(4)
    m.update(_j(Y), _j(P), mask=_j(np.zeros(5, bool)))
    assert np.isnan(m.compute())
    n = mf.Accuracy(4)
    src = mf.Accuracy(4)
    src.update(_j(Y), _j(P))
    n.load_state(src.state)
    np.testing.assert_allclose(n.compute(), 0.8)


@pytest.mark.parametrize("other,named", [
    (lambda mf: mf.F1Score(5), "num_classes"),
    (lambda mf: mf.Precision(4), "metric"),
    (lambda mf: mf.F1Score(4, weighted=True), "weighted"),
])
def test_flax_merge_of_another_configuration_names_it(mf, other, named):
    a, b = mf.F1Score(4), other(mf)
    a.update(_j(Y), _j(P))
    b.update(_j(Y), _j(P), *([_j(np.ones(5))] if named == "weighted" else []))
    with pytest.raises(ValueError, match=named):
        a.merge(b)


def test_flax_merge_takes_flax_metrics_only(mf):
    import metrix.stream as ms

    with pytest.raises(TypeError, match="metrix.integrations.flax"):
        mf.F1Score(4).merge(ms.F1Score(4))
    merged = mf.F1Score(4).merge(mf.FlaxMetric(ms.F1Score(4)))  # the base class: same spec
    with pytest.raises(ValueError, match="before any sample"):
        merged.compute()


def test_flax_validate_inside_jit_names_the_fix(mf):
    from flax import nnx

    @nnx.jit
    def step(m, y, p):
        m.update(y, p)

    with pytest.raises(TypeError, match="validate=False"):
        step(mf.F1Score(4, validate=True), _j(Y), _j(P))
