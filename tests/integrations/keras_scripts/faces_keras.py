"""The conformance rows of ``metrix.stream`` through the Keras face, in its own process.

Keras reads its backend once, at import, from ``KERAS_BACKEND``: the caller
(``tests/integrations/test_keras_faces.py``) runs this script once per backend.
Every row of ``conformance.cases_stream.ROWS`` goes through
``metrix.integrations.keras.KerasMetric`` (``update_state`` on the uneven
batches of ``conformance/faces.py``, empty ones included, then ``result()``)
and is compared with the row's scikit-learn reference, to the tolerance
``conformance/combos.py`` gives the combination of this backend and float
dtype; a reference that raises expects the same kind of error.  Besides the
rows: a few under ``jax.jit`` (``stateless_update_state``, as ``fit`` runs
it; JAX only), a subset with ``jax_enable_x64``, narrow integer labels,
half-precision scores, labels outside ``0..num_classes-1``, ``result()`` with
no sample and ``validate=True`` inside ``jax.jit``.

Prints ``METRIX-REPORT {name: "ok" | traceback}`` for the checks
``conformance.cases_framework_faces.keras_checks`` lists (the test derives the
same list without importing Keras).

    KERAS_BACKEND=jax python faces_keras.py float32
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import keras  # noqa: E402  (KERAS_BACKEND is set by the caller)
import numpy as np  # noqa: E402

import metrix.integrations.keras as mk  # noqa: E402
from conformance import cases_framework_faces as ff  # noqa: E402
from conformance import cases_stream as cs  # noqa: E402
from conformance.combos import COMBO_BY_ID, tolerance  # noqa: E402
from conformance.faces import EDGES, _batches  # noqa: E402
from conformance.util import assert_close  # noqa: E402

BACKEND = keras.backend.backend()
ROWS = {ff._key(row): row for row in cs.ROWS}
OUT_OF_RANGE = {f"{name}/{id}": (name, make, ref) for name, make, ref, id in ff.OUT_OF_RANGE}

def combo_id(float_dtype: str) -> str:
    """The conformance combination whose tolerance and reference rounding apply."""
    lib = "jax" if BACKEND == "jax" else "torch"
    if lib == "jax":
        return "jax-cpu-x64" if float_dtype == "float64" else "jax-cpu-f32"
    return f"torch-cpu-{'f64' if float_dtype == 'float64' else 'f32'}"


def reference(ref, args, kwargs, float_dtype, float32_reference=True):
    """scikit-learn's value (or its exception) on the inputs as the face sees them."""
    def prep(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and float32_reference:
            return a.astype(float_dtype).astype(np.float64)
        return a

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ref(*[prep(a) for a in args], **{k: prep(v) for k, v in kwargs.items()})
    except Exception as exc:  # the face must raise the same kind of error
        return exc


def tensor(a, float_dtype, cast=None):
    """A NumPy input as a tensor of this backend: floats in ``float_dtype`` (then
    ``cast``, a narrower float or integer dtype, on the device), integers as given."""
    if a.dtype.kind == "f":
        a = a.astype(float_dtype)
    t = keras.ops.convert_to_tensor(a)
    if cast is not None and (("float" in cast) == (a.dtype.kind == "f")):
        t = keras.ops.cast(t, cast)
    return t


def run_face(make, args, kwargs, float_dtype, casts=(None, None), jit=False):
    """``KerasMetric(make())`` fed the uneven batches, then ``result()``."""
    metric = mk.KerasMetric(make(), dtype=float_dtype)
    casts = tuple(casts) + (None,) * (len(args) - len(casts))  # a third array: query ids
    tensors = [tensor(a, float_dtype, c) for a, c in zip(args, casts)]
    w = kwargs.get("sample_weight")
    w = None if w is None else tensor(w, float_dtype)
    if not jit:
        for batch, kw in _batches(tensors, w, EDGES):
            metric.update_state(*batch, **kw)
        return metric.result()
    import jax

    step = jax.jit(lambda mv, yt, yp, sw: metric.stateless_update_state(mv, yt, yp, sw))
    mv = [v.value for v in metric.variables]
    for batch, kw in _batches(tensors, w, EDGES):
        mv = step(mv, *batch, kw.get("sample_weight"))
    return metric.stateless_result(mv)


def compare(make, ref, args, kwargs, float_dtype, extra=None, casts=(None, None), jit=False,
            tol=None):
    extra = dict(extra or {})
    expected = reference(ref, args, kwargs, float_dtype, extra.get("float32_reference", True))
    if isinstance(expected, Exception):
        kind = ValueError if isinstance(expected, ValueError) else (
            TypeError if isinstance(expected, TypeError) else type(expected))
        try:
            run_face(make, args, kwargs, float_dtype, casts, jit)
        except kind:
            return
        raise AssertionError(f"expected {kind.__name__} ({expected}), the face did not raise")
    got = run_face(make, args, kwargs, float_dtype, casts, jit)
    got = ({k: keras.ops.convert_to_numpy(v) for k, v in got.items()} if isinstance(got, dict)
           else keras.ops.convert_to_numpy(got))
    tol = tol or tolerance(COMBO_BY_ID[combo_id(float_dtype)])
    assert_close(got, expected, rtol=tol["rtol"], atol=tol["atol"])


def check(name: str, float_dtype: str):
    kind, _, key = name.partition(":")
    if kind in ("row", "jit"):
        row = ROWS[key]
        return compare(row.make, row.reference, row.args, row.kwargs, float_dtype, row.extra,
                       jit=kind == "jit")
    if kind == "out-of-range":
        _, make, ref = OUT_OF_RANGE[key]
        return compare(make, ref, (ff.OOR_T, ff.OOR_P), {}, float_dtype)
    if kind == "rule":
        return rule(key, float_dtype)
    row = ROWS[key]
    if kind in ("uint8", "int8", "int16"):  # narrow labels: every integer input
        return compare(row.make, row.reference, row.args, row.kwargs, float_dtype, row.extra,
                       casts=(kind, kind))
    # narrower float inputs: the reference on the same rounded values, float32's tolerance
    args = tuple(ff.rounded(a, kind) for a in row.args)
    extra = {**row.extra, "float32_reference": False}
    tol = tolerance(COMBO_BY_ID[combo_id(float_dtype)])
    tol = {k: tol[k] + ff.F32_TOL[k] for k in tol}
    return compare(row.make, row.reference, args, row.kwargs, float_dtype, extra,
                   casts=(kind, kind), tol=tol)


def rule(key, float_dtype):
    """``result()`` with no sample is NaN (Keras calls it after ``reset_state()`` with no
    batch in between, e.g. for an epoch whose data ran out: raising would stop ``fit``);
    ``validate=True`` in a compiled step fails naming the fix."""
    if key == "validate-under-jit-names-the-fix":
        import jax

        metric = mk.F1Score(cs.C, validate=True)
        step = jax.jit(metric.stateless_update_state)
        values = [v.value for v in metric.variables]
        try:
            step(values, cs.MC_T[:8], cs.MC_P[:8])
        except TypeError as exc:
            assert "validate=False" in str(exc), str(exc)
            return
        raise AssertionError("validate=True inside jax.jit did not raise")
    for k in ("MeanSquaredError", "F1Score/binary", "AUROC/binned", "LogLoss/multiclass",
              "MetricCollection/shared-statistic", "MedianAbsoluteError"):
        row = ROWS[k]
        metric = mk.KerasMetric(row.make(), dtype=float_dtype)
        if key == "result-after-reset-is-nan":
            metric.update_state(*[tensor(a[:5], float_dtype) for a in row.args])
            metric.reset_state()
        out = metric.result()
        values = out.values() if isinstance(out, dict) else [out]
        for v in values:
            v = keras.ops.convert_to_numpy(v)
            assert np.all(np.isnan(v)), f"{k}: result() with no sample is {v}, expected NaN"


def main():
    float_dtype = sys.argv[1] if len(sys.argv) > 1 else keras.config.floatx()
    report = {}
    for name in ff.keras_checks(BACKEND, float_dtype):
        try:
            check(name, float_dtype)
            report[name] = "ok"
        except Exception:
            report[name] = traceback.format_exc()
    print("METRIX-REPORT " + json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
