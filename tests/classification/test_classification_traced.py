"""The sync-free path: declared labels + validate=False trace under jit/compile.

A handful of representative calls per metric (compilation is slow); each
compares the traced value with the eager NumPy value.
"""

from __future__ import annotations

import numpy as np
import pytest

import metrix
from conformance.util import jax_x64

pytestmark = pytest.mark.compile

rng = np.random.default_rng(7)
N = 200
YT = rng.integers(0, 4, N)
YP = np.where(rng.random(N) < 0.6, YT, rng.integers(0, 4, N))
W = rng.random(N)
ML_T = (rng.random((N, 3)) < 0.5).astype(np.int64)
ML_P = (rng.random((N, 3)) < 0.5).astype(np.int64)
LABELS = [0, 1, 2, 3]

CALLS = [
    ("confusion_matrix", (YT, YP), {"labels": LABELS}),
    ("confusion_matrix", (YT, YP), {"labels": [3, 1, 0], "sample_weight": W,
                                    "normalize": "true"}),
    ("multilabel_confusion_matrix", (YT, YP), {"labels": LABELS}),
    ("multilabel_confusion_matrix", (ML_T, ML_P), {"labels": [0, 1, 2]}),
    ("accuracy_score", (YT, YP), {"sample_weight": W}),
    ("precision_recall_fscore_support", (YT, YP), {"labels": LABELS, "average": None}),
    ("f1_score", (YT, YP), {"labels": LABELS, "average": "macro", "sample_weight": W}),
    ("f1_score", (YT % 2, YP % 2), {"labels": [0, 1]}),
    ("precision_score", (YT, YP), {"labels": [2, 0, 5], "average": "micro"}),
    ("recall_score", (YT, YP), {"labels": LABELS, "average": "weighted"}),
    ("fbeta_score", (ML_T, ML_P), {"labels": [0, 1, 2], "average": "samples", "beta": 2.0}),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CALLS)]


def _expected(name, args, kwargs):
    return getattr(metrix, name)(*args, **kwargs)


def _first(x):
    return x[:3] if isinstance(x, tuple) else x


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=IDS)
def test_jax_jit(name, args, kwargs):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    with jax_x64(True):
        expected = _expected(name, args, kwargs)
        kw = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        arr_kw = {k: v for k, v in kw.items() if k == "sample_weight"}
        static_kw = {k: v for k, v in kw.items() if k != "sample_weight"}
        fn = getattr(metrix, name)

        @jax.jit
        def run(a, b, extra):
            return fn(a, b, validate=False, **static_kw, **extra)

        got = run(jnp.asarray(args[0]), jnp.asarray(args[1]), arr_kw)
    np.testing.assert_allclose(np.asarray(_first(got)), np.asarray(_first(expected)),
                               rtol=1e-12)


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=IDS)
def test_torch_compile_fullgraph(name, args, kwargs):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch._dynamo")

    torch._dynamo.reset()
    expected = _expected(name, args, kwargs)
    kw = {k: (torch.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    fn = getattr(metrix, name)

    def run(a, b):
        return fn(a, b, validate=False, **kw)

    compiled = torch.compile(run, fullgraph=True)
    got = compiled(torch.asarray(args[0]), torch.asarray(args[1]))
    got = _first(got)
    got = [g.numpy() for g in got] if isinstance(got, tuple) else got.numpy()
    np.testing.assert_allclose(np.asarray(got), np.asarray(_first(expected)), rtol=1e-12)


def test_torch_compile_is_silent_in_a_fresh_process():
    """The compiled example of the docs prints no warning (no filter in user code):
    torch.compile warns about every ``lru_cache``-wrapped helper it traces, so the
    namespace and device lookups on the traced path avoid array-api-compat's, and
    so does the torch namespace's ``cumulative_sum``."""
    pytest.importorskip("torch")
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import torch, metrix
        labels = list(range(10))

        @torch.compile(fullgraph=True)
        def eval_step(y, logits):
            pred = logits.argmax(-1)
            return (metrix.f1_score(y, pred, labels=labels, average="macro", validate=False),
                    metrix.confusion_matrix(y, pred, labels=labels, validate=False),
                    metrix.matthews_corrcoef(y, pred, labels=labels, validate=False),
                    metrix.roc_auc_score(y % 2, logits[:, 0].sigmoid(), validate=False),
                    metrix.mean_squared_error(logits[:, 0], logits[:, 1], validate=False),
                    # general paths with cumulative sums (tie groups, quantiles)
                    metrix.roc_auc_score(y, logits.softmax(-1), multi_class="ovr",
                                         labels=labels, validate=False),
                    metrix.median_absolute_error(logits[:, 0], logits[:, 1], validate=False),
                    metrix.d2_pinball_score(logits[:, 0], logits[:, 1], validate=False))

        out = eval_step(torch.randint(0, 10, (512,)), torch.randn(512, 10))
        print(float(out[0]))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Warning" not in run.stderr, run.stderr[-2000:]
