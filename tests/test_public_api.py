"""The public surface of ``metrix``, ``metrix.stream`` and ``metrix.pairwise`` does not move.

``tests/public_api.txt`` lists every public name with its signature (classes:
their constructor's).  Regenerate it on purpose, when the API changes, with
``python tests/test_public_api.py > tests/public_api.txt``.
"""

from __future__ import annotations

import inspect
from pathlib import Path

SNAPSHOT = Path(__file__).with_name("public_api.txt")


def _describe(module_name: str, name: str, obj) -> str:
    if inspect.isclass(obj):
        kind = "class"
        try:
            sig = str(inspect.signature(obj))
        except (TypeError, ValueError):
            sig = "(...)"
    elif callable(obj):
        kind, sig = "def", str(inspect.signature(obj))
    else:
        kind, sig = "value", f" = {obj!r}"
    return f"{module_name}.{name} {kind}{sig}"


def public_surface() -> list[str]:
    import metrix
    import metrix.pairwise
    import metrix.stream

    lines = []
    for module in (metrix, metrix.stream, metrix.pairwise):
        for name in sorted(module.__all__):
            lines.append(_describe(module.__name__, name, getattr(module, name)))
    # the display classes: flat names loaded on first use (they import scikit-learn)
    lines += [_describe("metrix", name, getattr(metrix, name)) for name in metrix.DISPLAYS]
    return lines


def test_public_surface_did_not_move():
    expected = SNAPSHOT.read_text().splitlines()
    got = public_surface()
    missing = sorted(set(expected) - set(got))
    added = sorted(set(got) - set(expected))
    assert not missing and not added, (
        "public API changed:\n  removed or changed: " + "\n    ".join(missing)
        + "\n  added or changed: " + "\n    ".join(added))


def test_stream_loads_from_a_bare_import():
    import subprocess
    import sys

    code = "import metrix; m = metrix.stream.F1Score(3); print(type(m).__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "F1Score"


if __name__ == "__main__":
    print("\n".join(public_surface()))
