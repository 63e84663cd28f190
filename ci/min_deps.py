"""Requirements of the minimum-versions leg: metrix on the lower bounds it claims.

The one source of minimum versions is ``pyproject.toml``: every ``name>=X`` of
``requires-python``, ``dependencies`` and the extras below becomes ``name==X``
here.  The floors do not all fit in one environment, so the leg has stages,
each installed over the previous one (``ci/minimum.sh`` runs them):

``numpy``
    NumPy's floor (scikit-learn 1.9's) with the core dependencies and every
    extra that takes it: torch, Keras, transformers, Dask, pyarrow, tqdm,
    matplotlib and scikit-learn (``plots``).  The test tools are the ``test``
    pins, except those that need a newer NumPy (:data:`AT_THE_NUMPY_FLOOR`).
``jax``
    JAX's floor, which needs NumPy >= 1.25: NumPy 1.26.4, the last 1.x (whose
    ``numpy._core`` stub once broke every metric after ``import scipy.sparse``).
``flax``
    Flax's floor, with the JAX and NumPy it resolves to (it needs a newer JAX
    than JAX's floor, and that JAX needs NumPy 2).

torch: the project's machines have one CPU build of torch, 2.13.0, on local
disk (PyPI's Linux torch is a multi-GB CUDA build); with ``METRIX_TORCH_INDEX``
set to a CPU wheel index (the GitHub job: PyTorch's) the leg installs torch's
floor from it, else :data:`TORCH_HERE`.

``python ci/min_deps.py STAGE`` prints that stage's requirements, one per line.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

#: the extras installed at their floors, by stage
STAGE_EXTRAS = {
    "numpy": ("torch", "keras", "transformers", "dask", "parquet", "cli", "plots"),
    "jax": ("jax",),
    "flax": ("flax",),
}
#: test pins that need a newer NumPy than its floor, and what the floor stage takes
#: instead (None: left out; array-api-strict needs NumPy 2, so its combos run in
#: the main leg)
AT_THE_NUMPY_FLOOR = {"scipy": "1.10.0", "pandas": "2.2.3", "array-api-strict": None}
#: the one CPU build of torch on the project's machines (see above)
TORCH_HERE = "2.13.0"
#: NumPy of the later stages: JAX's floor needs >= 1.25; 1.26.4 is the last 1.x
NUMPY_FOR_JAX = "1.26.4"


def _name(req: str) -> str:
    return re.split(r"[=<>!~\[ ;]", req, maxsplit=1)[0].lower()


def _floor(req: str) -> str | None:
    """``name==X`` for ``name>=X`` (extras kept), None for a requirement without one."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+(?:\[[^\]]*\])?)\s*>=\s*([^,;\s]+)\s*", req)
    return f"{m.group(1)}=={m.group(2)}" if m else None


def project() -> dict:
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)["project"]


def floors(extras=()) -> list[str]:
    """The pinned lower bounds of the core dependencies and of ``extras``."""
    proj = project()
    reqs = list(proj["dependencies"])
    for extra in extras:
        reqs += proj["optional-dependencies"][extra]
    out, seen = [], set()
    for req in reqs:
        pin = _floor(req)
        if pin is None:
            raise SystemExit(f"pyproject.toml: {req!r} states no lower bound (name>=X)")
        if _name(pin) not in seen:
            seen.add(_name(pin))
            out.append(pin)
    return out


def python_floor() -> tuple[int, int]:
    m = re.fullmatch(r">=\s*(\d+)\.(\d+)", project()["requires-python"])
    return int(m.group(1)), int(m.group(2))


def requirements(stage: str) -> list[str]:
    if stage not in STAGE_EXTRAS:
        raise SystemExit(f"unknown stage {stage!r}: one of {', '.join(STAGE_EXTRAS)}")
    pins = floors(STAGE_EXTRAS[stage])
    if not os.environ.get("METRIX_TORCH_INDEX"):
        pins = [f"torch=={TORCH_HERE}" if _name(p) == "torch" else p for p in pins]
    if stage != "numpy":
        # over the numpy stage: only what this stage adds (JAX's floor at NumPy 1.26)
        core = {_name(p) for p in floors()}
        added = [p for p in pins if _name(p) not in core]
        return [f"numpy=={NUMPY_FOR_JAX}", *added] if stage == "jax" else added
    taken = {_name(p) for p in pins}
    test = project()["optional-dependencies"]["test"]
    for pin in test:
        name = _name(pin)
        if name in taken:
            continue
        if name in AT_THE_NUMPY_FLOOR:
            if AT_THE_NUMPY_FLOOR[name] is not None:
                pins.append(f"{name}=={AT_THE_NUMPY_FLOOR[name]}")
        elif name not in ("jax", "jaxlib", "flax", "ruff"):
            pins.append(pin)
    return pins


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stage", choices=[*STAGE_EXTRAS, "python"])
    stage = ap.parse_args().stage
    if stage == "python":
        print("%d.%d" % python_floor())
        sys.exit(0)
    print("\n".join(requirements(stage)))
