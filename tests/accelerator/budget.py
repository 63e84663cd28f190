"""The kernel budget: the most aten ops each call may dispatch on the meta path.

``python -m tests.accelerator.budget`` prints the table of op counts (one
line per call) and, with ``--write``, rewrites ``kernel_budget.txt`` with the
counts measured now: run it after removing kernels, or (on purpose) after
adding some.
"""

from __future__ import annotations

import sys
from pathlib import Path

BUDGET_FILE = Path(__file__).with_name("kernel_budget.txt")


def read_budget() -> dict[str, int]:
    out = {}
    for line in BUDGET_FILE.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, count = line.rsplit(None, 1)
            out[name] = int(count)
    return out


def measure() -> dict[str, int]:
    from .calls import CALLS
    from .test_sync_free import count_ops

    return {name: len(count_ops(CALLS[name])[0]) for name in sorted(CALLS)}


def table(counts: dict[str, int], budget: dict[str, int] | None = None) -> str:
    lines = [f"{'call':44s} {'ops':>5s} {'budget':>7s}"]
    for name, n in counts.items():
        b = "" if budget is None else str(budget.get(name, "-"))
        lines.append(f"{name:44s} {n:5d} {b:>7s}")
    return "\n".join(lines)


def main(argv):
    counts = measure()
    print(table(counts, None if not BUDGET_FILE.exists() else read_budget()))
    if "--write" in argv:
        BUDGET_FILE.write_text(
            "# aten ops per call on the meta path (one kernel launch each on a GPU);\n"
            "# regenerate with: python -m tests.accelerator.budget --write\n"
            + "".join(f"{name} {n}\n" for name, n in counts.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
