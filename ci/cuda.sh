#!/usr/bin/env bash
# CUDA target: torch CUDA, CuPy and JAX GPU. Runs on a self-hosted runner
# labelled `gpu` with an NVIDIA driver for CUDA 12.
#
# Fails (before any test runs) when a library sees no GPU, so that a runner
# without a working driver cannot pass by skipping every GPU combination.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python}"
WORKERS="${METRIX_CI_WORKERS:-2}"
# PyPI's Linux x86_64 torch wheel is the CUDA build. To pick another CUDA
# minor, point pip at a CUDA wheel index: TORCH_PIP_ARGS="--index-url <url>".
TORCH_PIP_ARGS="${TORCH_PIP_ARGS:-}"

nvidia-smi || { echo "ci/cuda.sh: nvidia-smi failed: no NVIDIA GPU/driver on this runner" >&2; exit 1; }

# The test pins without the CPU builds of torch / jax, then the CUDA builds.
"$PY" ci/test_pins.py --without torch jax jaxlib > "${TMPDIR:-/tmp}/metrix-req-cuda.txt"
"$PY" -m pip install -r "${TMPDIR:-/tmp}/metrix-req-cuda.txt"
# shellcheck disable=SC2086
"$PY" -m pip install "torch==2.13.0" $TORCH_PIP_ARGS
"$PY" -m pip install "jax[cuda12]==0.10.2" cupy-cuda12x
"$PY" -m pip install -e .

"$PY" - <<'PY'
import torch
assert torch.cuda.is_available(), (
    f"torch {torch.__version__} (CUDA {torch.version.cuda}) sees no CUDA device")
print("torch", torch.__version__, "CUDA", torch.version.cuda, torch.cuda.get_device_name(0))

import cupy
n = cupy.cuda.runtime.getDeviceCount()
assert n > 0, "CuPy sees no CUDA device"
print("cupy", cupy.__version__, "devices:", n)

import jax
gpus = jax.devices("gpu")  # raises RuntimeError when JAX has no GPU backend
assert gpus, "JAX sees no GPU"
print("jax", jax.__version__, gpus)
PY

"$PY" -m pytest conformance -q -n "$WORKERS"
"$PY" -m pytest tests -q -n "$WORKERS"
