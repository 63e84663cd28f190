#!/usr/bin/env bash
# CPU target: NumPy, array-api-strict (CPU_DEVICE, device1, no_float64),
# torch CPU and JAX CPU (x64 on and off). Runs on GitHub's ubuntu-latest.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python}"
WORKERS="${METRIX_CI_WORKERS:-2}"

"$PY" -m pip install -e ".[test]"

# Every CPU library must be importable: a missing one would skip its combos
# and let the run pass on NumPy alone.
"$PY" - <<'PY'
import array_api_strict, jax, numpy, sklearn, torch
print("numpy", numpy.__version__, "| torch", torch.__version__, "| jax", jax.__version__,
      "| array-api-strict", array_api_strict.__version__, "| sklearn", sklearn.__version__)
assert jax.devices("cpu"), "JAX has no CPU device"
PY

"$PY" -m ruff check metrix tests conformance bench docs/conf.py
"$PY" -m pytest conformance -q -n "$WORKERS"
"$PY" -m pytest tests -q -n "$WORKERS"
