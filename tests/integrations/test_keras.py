"""``metrix.integrations.keras``: every stream metric as a ``keras.metrics.Metric``.

Keras reads its backend once, at import, from ``KERAS_BACKEND`` (its default,
TensorFlow, is not something metrix runs on), so every check runs in a fresh
process per backend: ``keras_scripts/check_keras.py`` runs its checks and
reports each one; the two backends run in parallel.  This process never
imports keras.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integrations

if importlib.util.find_spec("keras") is None:
    pytest.skip("keras is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "keras_scripts" / "check_keras.py"
BACKENDS = [b for b in ("jax", "torch") if importlib.util.find_spec(b) is not None]

BOTH = [
    "multiclass_fit_and_evaluate_equal_scikit_learn",
    "binary_sigmoid_head_auroc_logloss_equal_scikit_learn",
    "regression_weighted_metrics_equal_scikit_learn",
    "one_weight_weighs_every_row_as_in_keras",
    "update_result_reset_and_call",
    "input_forms",
    "counts_are_never_float32",
    "past_2_24_stays_exact",
    "config_round_trip_for_every_metric",
    "model_save_and_load_keeps_the_metrics",
    "every_stream_metric_has_a_keras_class",
    "aggregators_equal_keras_mean_sum_and_numpy",
    "aggregators_and_wrappers_in_fit_and_evaluate",
]
JAX_ONLY = [
    "stateless_jit_train_step_and_eval_step",
    "past_2_24_stays_exact_in_a_jit_step",
    "tensorflow_backend_is_refused_clearly",
    "the_guide_examples_run",
]
# JAX with jax_enable_x64: int64 counts and float64 sums instead of int32 and float32 pairs
X64 = ["counts_are_never_float32", "past_2_24_stays_exact",
       "regression_weighted_metrics_equal_scikit_learn",
       "aggregators_equal_keras_mean_sum_and_numpy"]
RUNS = {b: (b, {}, BOTH + (JAX_ONLY if b == "jax" else [])) for b in BACKENDS}
if "jax" in BACKENDS:
    RUNS["jax-x64"] = ("jax", {"JAX_ENABLE_X64": "1"}, X64)
CASES = [(run, name) for run, (_, _, names) in RUNS.items() for name in names]


def _env(backend=None, extra=None):
    env = dict(os.environ)
    env.pop("KERAS_BACKEND", None)
    env.pop("JAX_ENABLE_X64", None)
    if backend is not None:
        env["KERAS_BACKEND"] = backend
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    env.setdefault("JAX_PLATFORMS", "cpu")  # the same numbers on every machine
    env.update(extra or {})
    return env


def _reports(script, runs):
    """``{run: {check: "ok" | traceback}}`` of ``script`` run once per entry of
    ``runs`` (``run -> (backend, extra env, argv)``), the processes at once."""
    procs = {run: subprocess.Popen([sys.executable, str(script), *argv], cwd=ROOT,
                                   env=_env(backend, extra), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
             for run, (backend, extra, argv) in runs.items()}
    out = {}
    for run, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        lines = [ln for ln in stdout.splitlines() if ln.startswith("METRIX-REPORT ")]
        out[run] = (json.loads(lines[-1][len("METRIX-REPORT "):]) if lines
                    else {"__crash__": f"exit {proc.returncode}\n{stderr[-4000:]}"})
    return out


@pytest.fixture(scope="module")
def reports():
    """``{run: {check: "ok" | traceback}}``; the runs go at once, one process each."""
    return _reports(SCRIPT, RUNS)


@pytest.mark.parametrize("run,check", CASES, ids=[f"{r}-{c}" for r, c in CASES])
def test_keras_check(reports, run, check):
    report = reports[run]
    assert "__crash__" not in report, report.get("__crash__")
    assert check in report, f"the script has no check {check!r}: {sorted(report)}"
    assert report[check] == "ok", report[check]


def test_every_check_of_the_script_is_run():
    text = SCRIPT.read_text()
    defined = set(re.findall(r"^def check_(\w+)\(", text, re.M))
    assert defined == set(BOTH + JAX_ONLY)


def test_import_without_a_backend_names_the_fix():
    if importlib.util.find_spec("tensorflow") is not None:
        pytest.skip("TensorFlow is installed: Keras' default backend imports")
    proc = subprocess.run([sys.executable, "-c", "import metrix.integrations.keras"],
                          cwd=ROOT, env=_env(None), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert "ImportError" in proc.stderr and "KERAS_BACKEND=jax" in proc.stderr


def test_import_metrix_does_not_import_keras():
    code = ("import sys, metrix, metrix.stream; "
            "assert 'keras' not in sys.modules, 'keras imported'")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env("jax"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
