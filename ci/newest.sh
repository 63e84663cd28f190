#!/usr/bin/env bash
# The newest releases: the test dependencies of pyproject's `test` extra without
# their pins (torch from a CPU wheel index: PyPI's Linux torch is a CUDA build),
# so that a breaking release is seen here before users see it. Runs in the
# GitHub workflow on the newest Python (not in .ci/run: it needs the network's
# newest wheels, which the project's machines may not have).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python}"
WORKERS="${METRIX_CI_WORKERS:-2}"
TORCH_INDEX="${METRIX_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"

"$PY" ci/test_pins.py --unpinned > newest-requirements.txt
"$PY" -m pip install --upgrade pip
"$PY" -m pip install --upgrade --extra-index-url "$TORCH_INDEX" -e . -r newest-requirements.txt
"$PY" -m pip list

"$PY" -m pytest conformance -q -n "$WORKERS" -m "not compile"
"$PY" -m pytest tests -q -n "$WORKERS"
