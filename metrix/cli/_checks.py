"""Checks ``metrix eval`` runs before any work: option values, outputs, bootstrap size.

Option values are refused by argparse (exit 2, a usage line); outputs and the
bootstrap budget are checked before the file is read or a metric computed, so
no long run is lost to a typo.
"""

from __future__ import annotations

import argparse
import os

from ._io import UsageError

#: most bootstrap resamples (``--bootstrap``); far more than an interval needs
MAX_RESAMPLES = 100_000
#: most resampled rows per metric (``--bootstrap`` x rows): 1e7 rows x 1,000 resamples,
#: at 20-70 ns a resampled row and metric on one CPU core about an hour for ten metrics
MAX_BOOTSTRAP_WORK = 10**10


def confidence(text):
    """``--confidence``: a float in the open interval (0, 1)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not (0 < v < 1):  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be in the open interval (0, 1), got {text!r}")
    return v


def seed(text):
    """``--seed``: an integer >= 0."""
    v = _int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return v


def resamples(text):
    """``--bootstrap``: 0 (no intervals) or 2 to :data:`MAX_RESAMPLES`."""
    v = _int(text)
    if v < 0 or v == 1:
        raise argparse.ArgumentTypeError(f"needs B >= 2 resamples (0: no intervals), got {text!r}")
    if v > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_RESAMPLES:,} resamples, got {v:,} (an interval's Monte Carlo "
            "error is already negligible at 10,000)")
    return v


def _int(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def check_bootstrap_budget(n_resamples, n_rows):
    """Refuse a bootstrap of more than :data:`MAX_BOOTSTRAP_WORK` resampled rows."""
    work = n_resamples * n_rows
    if n_resamples and work > MAX_BOOTSTRAP_WORK:
        fit = MAX_BOOTSTRAP_WORK // max(n_rows, 1)
        hint = (f"use --bootstrap {fit:,} or fewer" if fit >= 2
                else "evaluate a sample of the rows")
        raise UsageError(
            f"--bootstrap {n_resamples:,} on {n_rows:,} rows is {work:,} resampled rows per "
            f"metric, above the limit of {MAX_BOOTSTRAP_WORK:,} (hours of work); {hint} "
            "(metrix.bootstrap in Python has no limit)")


def check_outputs(json_path, plots_dir):
    """Exit 2 now, not after the work, when ``--json`` or ``--plots`` cannot be written."""
    if json_path:
        if os.path.isdir(json_path):
            raise UsageError(f"--json {json_path!r} is a directory; give a file name")
        parent = os.path.dirname(os.path.abspath(json_path))
        if not os.path.isdir(parent):
            raise UsageError(f"--json {json_path!r}: directory {parent!r} does not exist")
        if os.path.exists(json_path) and not os.access(json_path, os.W_OK):
            raise UsageError(f"--json {json_path!r} is not writable")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"--json {json_path!r}: directory {parent!r} is not writable")
    if plots_dir:
        path = os.path.abspath(plots_dir)
        if os.path.exists(path) and not os.path.isdir(path):
            raise UsageError(f"--plots {plots_dir!r} exists and is not a directory")
        existing = path
        while not os.path.exists(existing):  # the nearest folder that exists
            existing = os.path.dirname(existing)
        if not os.path.isdir(existing):
            raise UsageError(f"--plots {plots_dir!r}: {existing!r} is not a directory")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise UsageError(f"--plots {plots_dir!r}: {existing!r} is not writable")


def positive_int(text):
    """An integer >= 1 (``--batch-rows``, ``--bins``, ``--memory``)."""
    v = _int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return v
