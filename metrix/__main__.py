"""Command line: ``python -m metrix`` and the ``metrix`` console script.

* ``metrix eval PREDICTIONS --y-true COL --y-pred COL ...``: score a file
  (see :mod:`metrix.cli`);
* ``metrix demo``: the same report on embedded synthetic data.
"""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    from .cli import add_eval_parser

    parser = argparse.ArgumentParser(prog="metrix", description="metrix command line")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the eval report on synthetic data, on every backend")
    demo.add_argument("--n", type=int, default=200_000, help="number of samples")
    demo.add_argument("--bootstrap", type=int, default=500, metavar="B",
                      help="bootstrap resamples for the intervals (0: none)")
    add_eval_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from .cli.demo import run_demo

        return run_demo(args.n, n_resamples=args.bootstrap)
    if args.command == "eval":
        from .cli import main_eval

        return main_eval(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
