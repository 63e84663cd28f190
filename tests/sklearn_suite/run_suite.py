"""scikit-learn's own metric tests, run with metrix swapped in.

The modules (``test_classification.py``, ``test_ranking.py``,
``test_regression.py``, ``test_common.py``, ``test_score_objects.py``,
``test_pairwise.py``, and the
displays' tests of ``metrics/_plot/tests`` in the plain run) are copied from the installed
scikit-learn into a temporary folder beside ``swap_conftest.py`` and run
twice with pytest (scikit-learn's own ``conftest`` loaded as a plugin, for
its fixtures): once as they are (the baseline) and once with metrix's
functions in place of ``sklearn.metrics``'.  Every test that passes in the
baseline must pass swapped, or match an entry of ``allowlist.txt`` (test
ids, where ``*`` matches anything, each with its reason); there is no
percentage: one baseline pass that fails swapped and matches no entry fails
the run.  Entries that match no test id of either run are reported as stale.

Run it alone: ``python -m tests.sklearn_suite.run_suite [--array-api]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = ("test_classification.py", "test_ranking.py", "test_regression.py",
           "test_common.py", "test_score_objects.py", "test_pairwise.py")
#: the displays' tests (``sklearn/metrics/_plot/tests``): the plain run only (they
#: draw with matplotlib on the host; scikit-learn has no array-API variant of them)
PLOT_MODULES = ("test_common_curve_display.py", "test_confusion_matrix_display.py",
                "test_det_curve_display.py", "test_precision_recall_display.py",
                "test_predict_error_display.py", "test_roc_curve_display.py")


def load_allowlist(path: Path = HERE / "allowlist.txt") -> dict[str, str]:
    """``{pattern: reason}`` from lines ``pattern  # reason``."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition("#")
        out[pattern.strip()] = reason.strip()
    return out


def _matcher(pattern: str):
    """A test id pattern: ``*`` matches anything, every other character itself."""
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")) + r"\Z")


def copy_modules(dest: Path) -> None:
    import sklearn.metrics._plot.tests as sk_plot_tests
    import sklearn.metrics.tests as sk_tests

    for package, names in ((sk_tests, MODULES), (sk_plot_tests, PLOT_MODULES)):
        src = Path(package.__file__).parent
        for name in names:
            shutil.copy(src / name, dest / name)
    shutil.copy(HERE / "swap_conftest.py", dest / "conftest.py")


def outcomes(junit: Path) -> dict[str, tuple[str, str]]:
    """``{test id: (outcome, first line of the failure)}`` from a JUnit file."""
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        tid = f"{module}::{case.get('name')}"
        state, msg = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                state = "failed"
                msg = (child.get("message") or "").split("\n")[0][:160]
            elif child.tag == "skipped":
                state = "skipped"
        out[tid] = (state, msg)
    return out


def run_once(folder: Path, *, swap: bool, array_api: bool, workers: int) -> dict:
    junit = folder / f"junit-{'swap' if swap else 'base'}-{int(array_api)}.xml"
    env = dict(os.environ, METRIX_SWAP="1" if swap else "0", MPLBACKEND="Agg",
               SKLEARN_SKIP_NETWORK_TESTS="1", PYTHONPATH=str(folder))
    env.pop("SCIPY_ARRAY_API", None)
    if array_api:
        env["SCIPY_ARRAY_API"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "-p", "sklearn.conftest", "-o", "addopts=", "--rootdir", str(folder),
           f"--junitxml={junit}", "-W", "ignore"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    cmd += [str(folder / m) for m in MODULES + (() if array_api else PLOT_MODULES)]
    subprocess.run(cmd, cwd=folder, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return outcomes(junit)


def compare(base: dict, swapped: dict, allow: dict[str, str]) -> dict:
    """The baseline-passing tests, those that fail swapped, and which are allowed.

    ``ok`` is true when every baseline pass passes swapped or is allowlisted.
    ``stale``: the allowlist patterns that match no test id of either run;
    ``unused``: those that match a test but no failure of this run (an entry
    may be needed by the other run, plain or array-API only).
    """
    passing = sorted(t for t, (s, _) in base.items() if s == "passed")
    failing = [t for t in passing if swapped.get(t, ("missing", ""))[0] != "passed"]
    patterns = {p: _matcher(p) for p in allow}
    allowed = [t for t in failing if any(m.match(t) for m in patterns.values())]
    unexpected = [t for t in failing if t not in allowed]
    ids = set(base) | set(swapped)
    stale = [p for p, m in patterns.items() if not any(m.match(t) for t in ids)]
    unused = [p for p, m in patterns.items()
              if p not in stale and not any(m.match(t) for t in failing)]
    return {"baseline": len(passing), "failing": failing, "allowed": allowed,
            "unexpected": unexpected, "stale": stale, "unused": unused,
            "ok": not unexpected,
            "messages": {t: swapped.get(t, ("missing", "not run"))[1] for t in failing}}


def run(*, array_api: bool = False, workers: int = 2) -> dict:
    """Baseline and swapped runs of the modules; the comparison."""
    with tempfile.TemporaryDirectory(prefix="metrix-sklearn-suite-") as tmp:
        folder = Path(tmp)
        copy_modules(folder)
        base = run_once(folder, swap=False, array_api=array_api, workers=workers)
        swapped = run_once(folder, swap=True, array_api=array_api, workers=workers)
    return compare(base, swapped, load_allowlist())


def summary(result: dict) -> str:
    passed = result["baseline"] - len(result["failing"])
    lines = [f"baseline-passing tests: {result['baseline']}; passing with metrix: "
             f"{passed}; failing: {len(result['failing'])} "
             f"({len(result['allowed'])} allowlisted, "
             f"{len(result['unexpected'])} not allowlisted)"]
    for t in result["unexpected"]:
        lines.append(f"  not allowlisted: {t}: {result['messages'][t]}")
    for p in result["stale"]:
        lines.append(f"  stale allowlist entry (matches no test): {p}")
    for p in result["unused"]:
        lines.append(f"  allowlist entry matching no failure in this run: {p}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--array-api", action="store_true",
                        help="run with SCIPY_ARRAY_API=1 (scikit-learn's array-API tests)")
    parser.add_argument("-n", "--workers", type=int, default=2)
    args = parser.parse_args(argv)
    result = run(array_api=args.array_api, workers=args.workers)
    print(summary(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
