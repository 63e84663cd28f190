"""Print the test pins of pyproject.toml's ``test`` extra, one per line.

The one list of what CI installs is that extra; the GPU scripts install it
without the CPU builds of some libraries and then their own builds:
``python ci/test_pins.py --without torch jax jaxlib > pins.txt``.  With
``--unpinned`` it prints the names alone (extras kept): the newest-releases job
(``ci/newest.sh``) installs those.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def unpinned(pins: list[str]) -> list[str]:
    """The requirements without their versions (``dask[dataframe]==X`` -> ``dask[dataframe]``)."""
    return [re.split(r"[=<>!~; ]", p, maxsplit=1)[0] for p in pins]


def test_pins(without=()) -> list[str]:
    with PYPROJECT.open("rb") as f:
        pins = tomllib.load(f)["project"]["optional-dependencies"]["test"]
    drop = {name.lower() for name in without}
    return [p for p in pins if re.split(r"[=<>!~\[ ]", p, maxsplit=1)[0].lower() not in drop]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--without", nargs="*", default=(), help="package names to leave out")
    ap.add_argument("--unpinned", action="store_true", help="names only, no versions")
    args = ap.parse_args()
    pins = test_pins(args.without)
    print("\n".join(unpinned(pins) if args.unpinned else pins))
