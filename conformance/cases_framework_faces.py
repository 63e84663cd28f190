"""Conformance rows: the ``metrix.stream`` rows through the framework faces.

Every row of ``cases_stream.ROWS`` runs through the faces that live in this
process, fed the uneven batches of ``conformance/faces.py`` (``EDGES``: empty
batches, one sample, larger ones), and must give scikit-learn's one-shot value
(or the same kind of error):

* ``torch-forward``: ``metrix.integrations.torch.MetricModule`` called on every
  batch (``forward``: accumulates, returns the batch's own value), then
  ``compute()``;
* ``torch-reloaded``: ``update`` on the first batches, the module's
  ``state_dict()`` loaded into a fresh module (``torch.nn.Module`` machinery:
  ``_save_to_state_dict`` / ``_load_from_state_dict``), which takes the rest;
* ``flax``: ``metrix.integrations.flax.FlaxMetric`` updated eagerly;
* ``flax-masked-jit`` (``MASK_ROWS``: one row per kind of state): every batch
  padded to ``PAD_TO`` rows of garbage (labels out of range, NaN scores and
  weights) with ``mask=`` under ``nnx.jit``: one shape, one compilation; the
  masked rows must count for nothing;
* ``flax-jit`` (``JIT_ROWS``): the uneven batches under ``nnx.jit`` (one
  compilation per batch shape), among them the exact buffers (``capacity=``),
  where masked rows take room (documented), so padded batches would not fit.

A few variants cover input kinds rather than volume: narrow integer labels
(uint8, int8, int16), half-precision and float32 scores and values (the
reference is computed on the same rounded values), labels outside
``0..num_classes-1``.
The torch faces run on the torch combinations only, the Flax faces on the JAX
ones; every other combination is skipped with the reason.  Every case carries
``pytest.mark.integrations``.  The Keras face runs in a subprocess
(``tests/integrations/test_keras_faces.py``): Keras must not be imported here.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from sklearn import metrics as skm

import metrix.stream as ms
from conformance import cases_stream as cs
from conformance.combos import COMBOS
from conformance.faces import EDGES, N, _batches, _feed, lowered, narrowed, round_to
from conformance.registry import Case

CASES: list[Case] = []
MARKS = (pytest.mark.integrations,)
#: the width every batch is padded to in ``flax-masked-jit`` (> the largest batch)
PAD_TO = 32


def _only(lib, face, module):
    """The combinations a face cannot run: another library's, and every one where
    the face's framework is not installed (the minimum-versions stages)."""
    if importlib.util.find_spec(module) is None:
        return {c.id: f"{module} is not installed" for c in COMBOS}
    return {c.id: f"the {face} face runs on {lib} arrays only" for c in COMBOS if c.lib != lib}


TORCH_ONLY = _only("torch", "torch nn.Module", "torch")
JAX_ONLY = _only("jax", "Flax NNX", "flax")


# -- the faces -------------------------------------------------------------------------

def torch_forward(make):
    """The module called on every batch (``forward``), then ``compute()``."""

    def run(*arrays, sample_weight=None):
        from metrix.integrations.torch import MetricModule

        module = MetricModule(make())
        for batch, kw in _batches(arrays, sample_weight, EDGES):
            module(*batch, **kw)
        return module.compute()

    return run


def torch_reloaded(make, cut=4):
    """``update`` on the first batches; the module's ``state_dict()`` loaded into a
    fresh module (``torch.nn.Module.load_state_dict``), which takes the rest."""

    def run(*arrays, sample_weight=None):
        from metrix.integrations.torch import MetricModule

        first = _feed(MetricModule(make()), arrays, sample_weight, EDGES[:cut + 1])
        resumed = MetricModule(make())
        resumed.load_state_dict(first.state_dict())
        return _feed(resumed, arrays, sample_weight, EDGES[cut:]).compute()

    return run


def flax_eager(make):
    """``FlaxMetric.update`` on every batch, eagerly."""

    def run(*arrays, sample_weight=None):
        from metrix.integrations.flax import FlaxMetric

        return _feed(FlaxMetric(make()), arrays, sample_weight, EDGES).compute()

    return run


def flax_jit(make):
    """The uneven batches through an ``nnx.jit`` step."""

    def run(*arrays, sample_weight=None):
        from flax import nnx

        from metrix.integrations.flax import FlaxMetric

        @nnx.jit
        def step(metric, batch, w):
            metric.update(*batch, w)

        metric = FlaxMetric(make())
        for batch, kw in _batches(arrays, sample_weight, EDGES):
            step(metric, batch, kw.get("sample_weight"))
        return metric.compute()

    return run


def flax_masked_jit(make):
    """Every batch padded to ``PAD_TO`` rows of garbage in front, ``mask=`` 0 there,
    through an ``nnx.jit`` step (one shape: one compilation)."""

    def run(*arrays, sample_weight=None):
        import jax.numpy as jnp
        from flax import nnx

        from metrix.integrations.flax import FlaxMetric

        @nnx.jit
        def step(metric, batch, w, mask):
            metric.update(*batch, w, mask=mask)

        metric = FlaxMetric(make())
        for batch, kw in _batches(arrays, sample_weight, EDGES):
            pad = PAD_TO - batch[0].shape[0]
            w = kw.get("sample_weight")
            mask = jnp.concatenate([jnp.zeros(pad, bool), jnp.ones(PAD_TO - pad, bool)])
            step(metric, tuple(_garbage_in_front(a, pad) for a in batch),
                 None if w is None else _garbage_in_front(w, pad), mask)
        return metric.compute()

    return run


def _garbage_in_front(a, pad):
    import jax.numpy as jnp

    junk = jnp.nan if jnp.issubdtype(a.dtype, jnp.floating) else cs.C + 3
    return jnp.concatenate([jnp.full((pad,) + a.shape[1:], junk, a.dtype), a])


def rounded(a, dtype):
    """``a`` rounded to the values of ``dtype`` (float16, bfloat16: ``faces.round_to``;
    float32), as float64: every combination holds them exactly, so the reference sees
    the inputs the face computes with."""
    if dtype == "float32" and isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(np.float32).astype(np.float64)
    return round_to(a, dtype) if dtype != "float32" else a


# -- the rows ----------------------------------------------------------------------------

def _key(row):
    return f"{row.name}/{row.id}" if row.id else row.name


def add(name, make, ref, args, kw, id, face, fn, skip, **extra):
    CASES.append(Case(name, ref, args, dict(kw), id="-".join(p for p in (id, face) if p),
                      call=fn(make), skip=dict(skip), marks=MARKS, **extra))


#: rows also run padded and masked under ``nnx.jit`` (a program each): one per branch of
#: the masked update (integer counts, float sums, a collection) and family
MASK_ROWS = {"Accuracy", "Accuracy/weighted", "F1Score/binary",
             "ConfusionMatrix/normalize-weighted", "MetricCollection/shared-statistic",
             "LogLoss/multiclass", "LogLoss/binary-weighted", "AUROC/binned-labels-1-2",
             "AveragePrecision/binned-weighted", "MeanSquaredError", "R2Score/variance_weighted",
             "HingeLoss/crammer-singer", "Accuracy/top-2"}
#: rows also run under ``nnx.jit`` / ``jax.jit`` (Keras) with the uneven batches (one
#: compilation per shape): a collection, an exact buffer of each family, float sums
JIT_ROWS = {"MetricCollection/shared-statistic", "AUROC/exact-ties-weighted",
            "AveragePrecision/exact-multilabel-micro", "MedianAbsoluteError",
            "LogLoss/multiclass", "R2Score/variance_weighted", "BrierScore/multiclass",
            "Accuracy/top-3-weighted"}
#: narrow integer labels (one dtype per kind of label statistic)
NARROW = {"Accuracy": "uint8", "F1Score/binary": "int8",
          "MetricCollection/shared-statistic": "int16"}
#: the float inputs (scores, regression values; not weights) in a narrower float
#: (``faces.lowered``; the reference on the same rounded values); the result is at least
#: float32 (DESIGN: "float dtype follows the inputs, at least float32"), so these take
#: float32's tolerance on float64 combinations too
FLOATS = {"Accuracy/scores-argmaxed": "bfloat16", "AUROC/binned": "float16",
          "MeanSquaredError": "bfloat16", "LogLoss/binary-weighted": "float32"}
F32_TOL = {"rtol": 2e-4, "atol": 2e-5}

TORCH_FACES = {"torch-forward": torch_forward, "torch-reloaded": torch_reloaded}
#: the rows the Keras JAX run with ``jax_enable_x64`` takes (every row costs JAX's
#: eager compilations again): one per family and kind of state, the float64 sums
X64_ROWS = {"Accuracy/weighted", "MetricCollection/shared-statistic", "LogLoss/binary-weighted",
            "AUROC/exact-ties-weighted", "AUROC/binned", "AveragePrecision/binned-weighted",
            "MeanSquaredError", "R2Score/variance_weighted", "ExplainedVariance/weighted",
            "MedianAbsoluteError", "ConfusionMatrix/normalize-weighted"}
KERAS_RULES = ("result-before-update-is-nan", "result-after-reset-is-nan")
#: JAX only: validate=True inside jax.jit (Keras' jit_compile) cannot read the labels
KERAS_JAX_RULES = ("validate-under-jit-names-the-fix",)


def keras_checks(backend: str, float_dtype: str) -> list[str]:
    """The checks of one run of ``tests/integrations/keras_scripts/faces_keras.py``
    (a Keras backend and float dtype); the test lists them without importing Keras."""
    keys = [_key(row) for row in cs.ROWS]
    x64 = backend == "jax" and float_dtype == "float64"
    out = [f"row:{k}" for k in keys if not x64 or k in X64_ROWS]
    if backend == "jax" and not x64:  # as fit / evaluate run them (jit_compile)
        out += [f"jit:{k}" for k in keys if k in JIT_ROWS]
    out += [f"{dt}:{k}" for k, dt in {**NARROW, **FLOATS}.items()]
    out += [f"out-of-range:{name}/{id}" for name, _, _, id in OUT_OF_RANGE]
    out += [f"rule:{r}" for r in KERAS_RULES + (KERAS_JAX_RULES if backend == "jax" else ())]
    return out


for row in cs.ROWS:
    key = _key(row)
    common = (row.name, row.make, row.reference, row.args, row.kwargs, row.id)
    for face, fn in TORCH_FACES.items():
        add(*common, face, fn, TORCH_ONLY, **row.extra)
    add(*common, "flax", flax_eager, JAX_ONLY, **row.extra)
    if key in MASK_ROWS:
        add(*common, "flax-masked-jit", flax_masked_jit, JAX_ONLY, **row.extra)
    if key in JIT_ROWS:
        add(*common, "flax-jit", flax_jit, JAX_ONLY, **row.extra)
    if key in NARROW:
        dt = NARROW[key]
        add(*common, f"torch-{dt}", narrowed(torch_forward, dt), TORCH_ONLY, **row.extra)
        add(*common, f"flax-{dt}", narrowed(flax_eager, dt), JAX_ONLY, **row.extra)
    if key in FLOATS:
        dt = FLOATS[key]
        args = tuple(rounded(a, dt) for a in row.args)
        extra = {**row.extra, "float32_reference": False, **F32_TOL}
        common = (row.name, row.make, row.reference, args, row.kwargs, row.id)
        add(*common, f"torch-{dt}", lowered(torch_forward, dt), TORCH_ONLY, **extra)
        add(*common, f"flax-{dt}", lowered(flax_eager, dt), JAX_ONLY, **extra)


# -- labels outside 0..num_classes-1 ---------------------------------------------------
# validate=False: such a label is in no class (an "other" bin): per-class metrics
# ignore it as labels=range(C) does; accuracy counts its sample as an error, even
# when y_true == y_pred.  validate=True: ValueError, as the one-shot functions.
_rng = np.random.default_rng(7)
_OUT = np.array([-1, cs.C, cs.C + 3])
OOR_T = np.where(_rng.random(N) < 0.15, _OUT[_rng.integers(0, 3, N)], cs.MC_T)
OOR_P = np.where(_rng.random(N) < 0.15, _OUT[_rng.integers(0, 3, N)], cs.MC_P)
OOR_P[:3] = OOR_T[:3] = cs.C   # equal out-of-range labels: still errors for accuracy


def _in_class_accuracy(t, p):
    return float(np.mean((t == p) & (t >= 0) & (t < cs.C)))


def _raises_out_of_range(t, p):
    raise ValueError("labels outside 0..num_classes-1")


OUT_OF_RANGE = [
    ("F1Score", lambda: ms.F1Score(cs.C, average="macro"),
     lambda t, p: skm.f1_score(t, p, labels=cs.LABELS, average="macro"), "out-of-range"),
    ("Accuracy", lambda: ms.Accuracy(cs.C), _in_class_accuracy, "out-of-range"),
    ("F1Score", lambda: ms.F1Score(cs.C, validate=True), _raises_out_of_range,
     "out-of-range-validated"),
]
for name, make, ref, id in OUT_OF_RANGE:
    common = (name, make, ref, (OOR_T, OOR_P), {}, id)
    add(*common, "torch-forward", torch_forward, TORCH_ONLY, check_dtype=False)
    add(*common, "flax", flax_eager, JAX_ONLY, check_dtype=False)
