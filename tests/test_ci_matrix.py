"""The CI matrix: every ``ci/<target>.sh`` runs in a job on matching hardware.

Reads ``.github/workflows/ci.yml`` with PyYAML when it is installed, else with
a tiny reader of the subset that file uses (both are checked to agree).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
CI_DIR = ROOT / "ci"
SCRIPT_RE = re.compile(r"\bci/([A-Za-z0-9_-]+)\.sh\b")

# target -> predicate on the job's runs-on labels
RUNNERS = {
    "cpu": lambda labels: labels == ["ubuntu-latest"],
    "mps": lambda labels: labels == ["macos-14"],  # Apple silicon (M1)
    "cuda": lambda labels: {"self-hosted", "gpu"} <= set(labels),
    # the version matrix: the lower bounds of pyproject.toml, the newest releases
    "minimum": lambda labels: labels == ["ubuntu-latest"],
    "newest": lambda labels: labels == ["ubuntu-latest"],
}


def _labels(runs_on) -> list[str]:
    return [runs_on] if isinstance(runs_on, str) else [str(x) for x in runs_on]


def _jobs_yaml(text: str) -> dict:
    import yaml

    jobs = yaml.safe_load(text)["jobs"]
    return {
        name: {
            "runs-on": _labels(job["runs-on"]),
            "scripts": sorted({m for step in job.get("steps", [])
                               for m in SCRIPT_RE.findall(str(step.get("run", "")))}),
        }
        for name, job in jobs.items()
    }


def _jobs_plain(text: str) -> dict:
    """Job id -> runs-on labels and ci scripts named in ``run:`` lines."""
    jobs, current, in_jobs, job_indent = {}, None, False, None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            in_jobs = line.strip() == "jobs:"
            current = None
            continue
        if not in_jobs:
            continue
        if job_indent is None:
            job_indent = indent
        if indent == job_indent and line.strip().endswith(":"):
            current = line.strip()[:-1]
            jobs[current] = {"runs-on": [], "scripts": set()}
            continue
        if current is None:
            continue
        key, _, value = line.strip().removeprefix("- ").partition(":")
        value = value.strip()
        if key == "runs-on":
            if value.startswith("["):
                jobs[current]["runs-on"] = [v.strip().strip("'\"")
                                            for v in value.strip("[]").split(",")]
            else:
                jobs[current]["runs-on"] = [value.strip("'\"")]
        elif key == "run":
            jobs[current]["scripts"].update(SCRIPT_RE.findall(value))
    return {k: {"runs-on": v["runs-on"], "scripts": sorted(v["scripts"])}
            for k, v in jobs.items()}


def _jobs() -> dict:
    text = WORKFLOW.read_text()
    try:
        return _jobs_yaml(text)
    except ImportError:
        return _jobs_plain(text)


def _scripts() -> list[str]:
    return sorted(p.stem for p in CI_DIR.glob("*.sh"))


def test_workflow_and_scripts_exist():
    assert WORKFLOW.is_file()
    assert _scripts() == sorted(RUNNERS), "ci/ must hold exactly one script per target"


def test_ci_run_runs_the_minimum_leg_after_the_main_tests():
    text = (ROOT / ".ci" / "run").read_text()
    assert "bash ci/minimum.sh" in text
    assert text.index("test-command") < text.index("bash ci/minimum.sh")


def test_minimum_leg_installs_the_lower_bounds():
    """Every lower bound of pyproject.toml is installed by a stage of the leg, or is
    named as one the leg cannot install (with the reason in ci/min_deps.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("min_deps", CI_DIR / "min_deps.py")
    md = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(md)
    extras = md.project()["optional-dependencies"]
    staged = {e for es in md.STAGE_EXTRAS.values() for e in es}
    untestable = {"cupy"}  # CUDA only: no CPU build to install on CPU runners
    versioned = set(extras) - {"test", "bench", "docs"}
    assert versioned - staged == untestable
    installed = {}
    for st in md.STAGE_EXTRAS:  # a later stage's NumPy is not NumPy's floor
        for p in md.requirements(st):
            installed.setdefault(md._name(p), p)
    for pin in md.floors(sorted(staged)):
        name = md._name(pin)
        if name == "torch" and not os.environ.get("METRIX_TORCH_INDEX"):
            assert installed[name] == f"torch=={md.TORCH_HERE}"
        else:
            assert installed[name] == pin, (name, installed.get(name), pin)
    floor = "%d.%d" % md.python_floor()
    assert f'python-version: "{floor}"' in WORKFLOW.read_text().split("  minimum:")[1].split(
        "\n  newest:")[0], "the minimum job runs on the requires-python floor"


def test_plain_reader_agrees_with_yaml():
    pytest.importorskip("yaml")
    text = WORKFLOW.read_text()
    assert _jobs_plain(text) == _jobs_yaml(text)


@pytest.mark.parametrize("target", sorted(RUNNERS))
def test_every_script_is_run_by_a_job_on_its_hardware(target):
    jobs = _jobs()
    running = [name for name, job in jobs.items() if target in job["scripts"]]
    assert running, f"no job in ci.yml runs ci/{target}.sh (jobs: {sorted(jobs)})"
    for name in running:
        labels = jobs[name]["runs-on"]
        assert RUNNERS[target](labels), f"job {name!r} runs ci/{target}.sh on {labels}"
        assert name == target, f"ci/{target}.sh is run by job {name!r}"


#: jobs that run no hardware target (they need no array library)
SCRIPTLESS_JOBS = {"docs"}


def test_every_job_runs_one_known_script():
    for name, job in _jobs().items():
        if name in SCRIPTLESS_JOBS:
            assert not job["scripts"], f"job {name!r} runs {job['scripts']}"
            continue
        assert len(job["scripts"]) == 1, f"job {name!r} runs {job['scripts']}"
        (script,) = job["scripts"]
        assert (CI_DIR / f"{script}.sh").is_file(), f"job {name!r} names missing ci/{script}.sh"


@pytest.mark.parametrize("target", sorted(RUNNERS))
def test_script_is_executable_and_strict(target):
    path = CI_DIR / f"{target}.sh"
    assert path.is_file()
    assert os.access(path, os.X_OK), f"{path} is not executable (chmod +x)"
    text = path.read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in text
    assert "-m pytest conformance" in text


@pytest.mark.parametrize("target", ["cuda", "mps"])
def test_gpu_scripts_fail_without_a_gpu(target):
    """A misconfigured runner must fail loudly, not pass by skipping."""
    text = (CI_DIR / f"{target}.sh").read_text()
    check = {"cuda": "torch.cuda.is_available()",
             "mps": "torch.backends.mps.is_available()"}[target]
    assert f"assert {check}" in text
    # the check runs before the tests
    assert text.index(check) < text.index("-m pytest")


def test_one_list_of_test_pins():
    """pyproject's `test` extra is the one list of CI pins: no second file, and the
    GPU scripts' filtered list comes from it."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    assert not (root / "requirements-test.txt").exists()
    text = (root / "pyproject.toml").read_text()
    block = re.search(r"^test = \[(.*?)^\]", text, re.S | re.M).group(1)
    extra = re.findall(r'"([^"]+)"', block)
    out = subprocess.run([sys.executable, str(root / "ci" / "test_pins.py"), "--without",
                          "torch", "jax", "jaxlib"], capture_output=True, text=True, check=True)
    pins = out.stdout.split()
    assert pins == [p for p in extra if not p.startswith(("torch==", "jax==", "jaxlib=="))]
    assert "torch==2.13.0" in extra and "numpy==2.4.6" in extra
    for target in ("cuda", "mps"):
        script = (root / "ci" / f"{target}.sh").read_text()
        assert "ci/test_pins.py --without torch jax jaxlib" in script
