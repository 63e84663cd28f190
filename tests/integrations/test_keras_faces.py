"""The conformance rows of ``metrix.stream`` through the Keras face.

``keras_scripts/faces_keras.py`` runs every row of ``conformance.cases_stream``
(and a few variants: ``jax.jit``, narrow labels, half-precision scores, labels
out of range, ``result()`` with no sample) through
``metrix.integrations.keras.KerasMetric`` in a fresh process per Keras
backend (Keras reads ``KERAS_BACKEND`` once, at import; this process never
imports keras), the processes at once; one test per (run, check).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conformance import cases_framework_faces as ff

from .test_keras import _reports

pytestmark = pytest.mark.integrations

if importlib.util.find_spec("keras") is None:
    pytest.skip("keras is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "keras_scripts" / "faces_keras.py"
#: run -> (KERAS_BACKEND, extra environment, float dtype of the inputs and results)
RUNS = {"jax": ("jax", {}, "float32"),
        "jax-x64": ("jax", {"JAX_ENABLE_X64": "1"}, "float64"),
        "torch": ("torch", {}, "float32")}
RUNS = {run: v for run, v in RUNS.items() if importlib.util.find_spec(v[0]) is not None}

#: checks the Keras face cannot express: name -> why (each an explicit skip)
NOT_EXPRESSIBLE: dict[str, str] = {}


CASES = [(run, name) for run, (backend, _, fdt) in RUNS.items()
         for name in ff.keras_checks(backend, fdt)]


@pytest.fixture(scope="module")
def reports():
    """``{run: {check: "ok" | traceback}}``; the runs go at once, one process each."""
    return _reports(SCRIPT, {run: (backend, extra, [float_dtype])
                             for run, (backend, extra, float_dtype) in RUNS.items()})


@pytest.mark.parametrize("run,check", CASES, ids=[f"{r}-{c}" for r, c in CASES])
def test_keras_face(reports, run, check):
    if check in NOT_EXPRESSIBLE:
        pytest.skip(NOT_EXPRESSIBLE[check])
    report = reports[run]
    assert "__crash__" not in report, report.get("__crash__")
    assert check in report, f"the script has no check {check!r}"
    assert report[check] == "ok", report[check]


@pytest.mark.parametrize("run", list(RUNS))
def test_the_script_runs_exactly_these_checks(reports, run):
    report = reports[run]
    assert "__crash__" not in report, report.get("__crash__")
    backend, _, float_dtype = RUNS[run]
    assert sorted(report) == sorted(ff.keras_checks(backend, float_dtype))
