"""The training-loop route: every one-shot case again as a training loop calls it.

``validate=False`` (no host read, no check) and, for the label metrics and the
probability metrics whose scores have a column per class, ``labels=`` declared
(the classes of the case's data, sorted): the call that runs inside a compiled
step.  Where scikit-learn gives a value, the route must give the same value as
the validated call does (``test_conformance.py``); bad input (a case whose
reference raises) is outside what ``validate=False`` promises, so those cases
do not run here, and warnings are not compared (they need host reads).  The
combinations are one per library (the float32 ones for torch and JAX, where a
training loop runs), and the accelerator legs where they exist.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import metrix
from conformance import test_conformance as tc
from conformance.combos import COMBO_BY_ID

COMBOS = [COMBO_BY_ID[c] for c in ("numpy-f64", "strict-cpu-f64", "torch-cpu-f32",
                                   "jax-cpu-f32", "torch-cuda-f32", "jax-gpu-f32", "cupy-f64")]

#: the families whose labels= is the classes of a 1-D y_true / y_pred pair
LABEL_FAMILIES = ("classification", "agreement", "report")
#: the metrics whose 2-D scores have a column per class of labels=
PER_CLASS_SCORES = {"log_loss", "brier_score_loss", "d2_log_loss_score", "d2_brier_score",
                    "roc_auc_score", "average_precision_score", "top_k_accuracy_score",
                    "hinge_loss"}


def _fn(case):
    return getattr(metrix, case.metric, None) if case.call is None else None


def _params(fn):
    return inspect.signature(fn).parameters


def _declared(case, fn):
    """The labels a training loop declares for this case, or None (none to declare)."""
    if "labels" not in _params(fn) or "labels" in case.kwargs or len(case.args) < 2:
        return None
    y, p = (np.asarray(a) for a in case.args[:2])
    family = case.id.split(":")[0]
    if family == "segmentation":  # label maps: the classes of both (one-hot: the channels)
        if case.kwargs.get("input_format", "index") != "index":
            return None
        return np.unique(np.concatenate([y.ravel(), p.ravel()])).tolist()
    if y.ndim != 1:
        return None
    classes = np.unique(y)
    if case.metric in PER_CLASS_SCORES:  # a column per class, or a binary y_true
        if (p.ndim == 2 and p.shape[1] == classes.shape[0]) or (
                p.ndim == 1 and classes.shape[0] <= 2):
            return classes.tolist()
        return None
    if (family in LABEL_FAMILIES or case.metric == "evaluate") and p.ndim == 1 and (
            p.dtype.kind == y.dtype.kind):
        return np.unique(np.concatenate([y, p])).tolist()
    return None


CASES = [c for c in tc.CASES if _fn(c) is not None and "validate" in _params(_fn(c))]


@pytest.mark.parametrize("combo", COMBOS, ids=[c.id for c in COMBOS])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_training_loop_route(case, combo):
    tc.skip_if_not_here(case, combo)
    expected, _ = tc._reference(case.id, combo.float_dtype)
    if isinstance(expected, Exception):
        pytest.skip("bad input: validate=False promises nothing for it")
    fn = _fn(case)
    kwargs = dict(case.kwargs, validate=False)
    labels = _declared(case, fn)
    if labels is not None:
        kwargs["labels"] = labels
    with combo.context():
        args = [combo.convert(a) for a in case.args]
        kwargs = {k: (v if k in case.host_kwargs or k == "validate" else combo.convert(v))
                  for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*args, **kwargs)
    tc.assert_case_value(case, combo, result, expected)

