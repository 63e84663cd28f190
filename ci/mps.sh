#!/usr/bin/env bash
# MPS target: torch on Apple silicon (float32-only device). Runs on GitHub's
# macos-14 (M1) runners. NumPy, array-api-strict and torch CPU run here too.
#
# Fails before any test runs when torch sees no MPS device, so a runner
# without Metal cannot pass by skipping every MPS combination.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python}"
WORKERS="${METRIX_CI_WORKERS:-2}"

[ "$(uname -s)" = "Darwin" ] || { echo "ci/mps.sh: needs macOS, got $(uname -s)" >&2; exit 1; }

# The test pins without torch / jax (PyPI's macOS arm64 torch wheel has MPS;
# JAX has no Metal backend we test here), then torch for macOS.
"$PY" ci/test_pins.py --without torch jax jaxlib > "${TMPDIR:-/tmp}/metrix-req-mps.txt"
"$PY" -m pip install -r "${TMPDIR:-/tmp}/metrix-req-mps.txt"
"$PY" -m pip install "torch==2.13.0"
"$PY" -m pip install -e .

"$PY" - <<'PY'
import torch
assert torch.backends.mps.is_built(), f"torch {torch.__version__} was built without MPS"
assert torch.backends.mps.is_available(), f"torch {torch.__version__} sees no MPS device"
print("torch", torch.__version__, "MPS available")
PY

"$PY" -m pytest conformance -q -n "$WORKERS"
"$PY" -m pytest tests -q -n "$WORKERS"
