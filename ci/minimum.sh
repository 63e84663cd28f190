#!/usr/bin/env bash
# The minimum-versions leg: metrix on exactly the lower bounds of pyproject.toml,
# in a fresh virtual environment, in three stages (ci/min_deps.py says why):
#   numpy  NumPy's floor with every extra that takes it: the unit tests and the
#          conformance suite on NumPy and torch CPU (array-api-strict needs NumPy 2:
#          its combos run in the main leg), the framework faces, Dask, the CLI;
#   jax    JAX's floor on NumPy 1.26.4: the conformance suite on JAX, and every
#          metric after `import scipy.sparse` on NumPy 1.26;
#   flax   Flax's floor (with the JAX it resolves to): the Flax face.
# .ci/run runs it after the main tests (about 5 minutes on 2 cores); the GitHub workflow as its own job, with
# METRIX_TORCH_INDEX set to a CPU wheel index so torch's floor installs too.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
WORKERS="${METRIX_CI_WORKERS:-2}"
MARKS="not sklearn_suite and not compile and not distributed"

floor=$("$PY" ci/min_deps.py python)
have=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$have" != "$floor" ]; then
  echo "min_deps: Python $have, but the floor (requires-python) is $floor;" \
       "set PYTHON to a Python $floor interpreter" >&2
  exit 2
fi

venv="${TMPDIR:-/tmp}/metrix-min-venv-$$"
"$PY" -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
trap 'rm -rf "$venv"' EXIT
index=()
if [ -n "${METRIX_TORCH_INDEX:-}" ]; then
  index=(--extra-index-url "$METRIX_TORCH_INDEX")
fi

install() {
  python ci/min_deps.py "$1" >"$venv/$1.txt"
  echo "+ min_deps $1: $(tr '\n' ' ' <"$venv/$1.txt")"
  python -m pip install -q "${index[@]}" -e . -r "$venv/$1.txt"
}

python -m pip install -q --upgrade pip
install numpy
python -c 'import numpy, torch, sklearn; print("numpy", numpy.__version__, "| torch",
           torch.__version__, "| scikit-learn", sklearn.__version__)'
python -m pytest conformance tests -q -p no:cacheprovider -n "$WORKERS" -m "$MARKS"
install jax
python -m pytest conformance tests/core/test_dependency_versions.py -q -p no:cacheprovider \
  -n "$WORKERS" -k "jax-cpu-x64 or dependency_versions"
install flax
python -m pytest tests/integrations/test_flax.py conformance/test_conformance.py -q \
  -p no:cacheprovider -n "$WORKERS" -k "test_flax or (framework_faces and flax)"
