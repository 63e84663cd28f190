"""Issue 4: the confusion-matrix and probabilistic metrics trace with declared labels.

With ``labels=`` (or ``pos_label=``) declared and ``validate=False`` every
metric is a pure array program: it runs under ``jax.jit`` and
``torch.compile(fullgraph=True)`` and gives the eager NumPy value.  A handful
of representative calls per metric (compilation is slow).
"""

from __future__ import annotations

import numpy as np
import pytest

import metrix
from conformance.util import jax_x64

pytestmark = pytest.mark.compile

rng = np.random.default_rng(11)
N = 150
YT = rng.integers(0, 4, N)
YP = np.where(rng.random(N) < 0.6, YT, rng.integers(0, 4, N))
BT, BP = YT % 2, YP % 2
W = rng.random(N)
ML_T = (rng.random((N, 3)) < 0.5).astype(np.int64)
ML_P = (rng.random((N, 3)) < 0.5).astype(np.int64)
P1 = np.clip(rng.beta(2, 2, N), 0.01, 0.99)
PM = rng.dirichlet([2.0] * 4, N)
DEC = rng.normal(size=(N, 4))
L4 = [0, 1, 2, 3]

CALLS = [
    ("jaccard_score", (YT, YP), {"labels": L4, "average": "macro", "sample_weight": W}),
    ("jaccard_score", (BT, BP), {"labels": [0, 1]}),
    ("jaccard_score", (ML_T, ML_P), {"labels": [0, 1, 2], "average": "samples"}),
    ("balanced_accuracy_score", (YT, YP), {"labels": L4, "adjusted": True}),
    ("matthews_corrcoef", (YT, YP), {"labels": L4, "sample_weight": W}),
    ("matthews_corrcoef", (BT, BP), {"labels": [0, 1]}),
    ("cohen_kappa_score", (YT, YP), {"labels": L4}),
    ("cohen_kappa_score", (YT, YP), {"labels": [3, 0, 1], "weights": "quadratic",
                                     "sample_weight": W}),
    ("hamming_loss", (ML_T, ML_P), {"sample_weight": W}),
    ("zero_one_loss", (YT, YP), {"normalize": False}),
    ("class_likelihood_ratios", (BT, BP), {"labels": [0, 1], "sample_weight": W}),
    ("log_loss", (YT, PM), {"labels": L4, "sample_weight": W}),
    ("log_loss", (BT, P1), {"labels": [0, 1]}),
    ("brier_score_loss", (BT, P1), {"pos_label": 1, "sample_weight": W}),
    ("brier_score_loss", (YT, PM), {"labels": L4}),
    ("d2_log_loss_score", (YT, PM), {"labels": L4}),
    ("d2_brier_score", (YT, PM), {"labels": L4, "sample_weight": W}),
    ("hinge_loss", (YT, DEC), {"labels": L4}),
    ("hinge_loss", (BT, P1 - 0.5), {"labels": [0, 1], "sample_weight": W}),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CALLS)]
ARRAY_KW = ("sample_weight",)


def _expected(name, args, kwargs):
    return getattr(metrix, name)(*args, **kwargs)


def _np(x):
    if isinstance(x, tuple):
        return np.array([np.asarray(_np(v)) for v in x])
    if hasattr(x, "detach"):
        return x.detach().numpy()
    return np.asarray(x)


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=IDS)
def test_jax_jit(name, args, kwargs):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    with jax_x64(True):
        expected = _expected(name, args, kwargs)
        arr_kw = {k: jnp.asarray(v) for k, v in kwargs.items() if k in ARRAY_KW}
        static_kw = {k: v for k, v in kwargs.items() if k not in ARRAY_KW}
        fn = getattr(metrix, name)

        @jax.jit
        def run(a, b, extra):
            return fn(a, b, validate=False, **static_kw, **extra)

        got = run(jnp.asarray(args[0]), jnp.asarray(args[1]), arr_kw)
    np.testing.assert_allclose(_np(got), _np(expected), rtol=1e-12)


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
    np.testing.assert_allclose(_np(got), _np(expected), rtol=1e-12)
