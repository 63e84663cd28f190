"""Command line: ``python -m metrix demo`` (and ``metrix`` console script)."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="metrix", description="metrix command line")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="score a synthetic classification on every backend")
    demo.add_argument("--n", type=int, default=200_000, help="number of samples")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(args.n)
    return 2


if __name__ == "__main__":
    sys.exit(main())
