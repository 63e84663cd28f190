"""Report of ``metrix eval``: a text table for the terminal and a JSON document."""

from __future__ import annotations

import json
import math

import numpy as np


def host(x):
    """A result as host Python values (float, list) for printing and JSON."""
    if x is None:
        return None
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    elif hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        x = x.get()
    a = np.asarray(x)
    if a.ndim == 0:
        v = a.item()
        return float(v) if isinstance(v, (float, np.floating)) or a.dtype.kind == "f" else v
    return a.tolist()


def _fmt(v, width=10, digits=4):
    if v is None:
        return " " * (width - 1) + "-"
    if isinstance(v, float):
        if math.isnan(v):
            return f"{'nan':>{width}}"
        return f"{v:>{width}.{digits}f}"
    return f"{v!s:>{width}}"


def classification_table(rows, *, accuracy=None, n=None, digits=4) -> str:
    """scikit-learn's ``classification_report`` layout from per-class rows.

    ``rows``: list of (name, precision, recall, f1, support); averages are
    rows too (their support may be None).
    """
    width = max([len(str(r[0])) for r in rows] + [len("weighted avg")])
    head = " " * width + "".join(f"{h:>11}" for h in ("precision", "recall", "f1-score",
                                                       "support"))
    lines = [head, ""]
    for name, p, r, f, s in rows:
        if name == "":
            lines.append("")
            continue
        # a space before the column, as scikit-learn's layout: a weighted support
        # printed in full is wider than the column
        sup = "" if s is None else f" {int(round(s)) if float(s).is_integer() else s:>10}"
        lines.append(f"{name!s:>{width}}" + "".join(_fmt(v, 11, digits) for v in (p, r, f))
                     + sup)
    if accuracy is not None:
        idx = next((i for i, r in enumerate(rows) if str(r[0]).endswith("avg")), len(rows))
        line = f"{'accuracy':>{width}}" + " " * 22 + _fmt(accuracy, 11, digits) + (
            f"{n:>11}" if n is not None else "")
        lines.insert(2 + idx, line)
    return "\n".join(lines)


def metric_table(results, *, confidence=None) -> str:
    """One line per metric: value and (with a bootstrap) the interval and std error."""
    width = max([len(r["metric"]) for r in results] + [6])
    cl = f"{round(confidence * 100):g}%" if confidence else None
    head = f"{'metric':<{width}}  {'value':>10}"
    if cl:
        head += f"  {cl + ' low':>10}  {cl + ' high':>10}  {'std err':>10}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"{r['metric']:<{width}}  {r['status']}")
            continue
        v = r["value"]
        if isinstance(v, list):
            lines.append(f"{r['metric']:<{width}}  " + ", ".join(_fmt(x, 0).strip() for x in v))
            continue
        line = f"{r['metric']:<{width}}  {_fmt(v)}"
        if cl:
            line += "".join(f"  {_fmt(r.get(k))}" for k in ("low", "high", "standard_error"))
        lines.append(line)
    return "\n".join(lines)


def warning_lines(results):
    """``metric: message`` for each warning a metric raised (printed on stderr too)."""
    return [f"{r['metric']}: {w}" for r in results for w in r.get("warnings", ())]


def failure_line(failed):
    """One line naming the metrics (or intervals) that failed, and why."""
    parts = []
    for r in failed:
        if r["status"].startswith("error"):
            parts.append(f"{r['metric']} ({r['status'][len('error: '):]})")
        else:
            parts.append(f"{r['metric']} interval ({r['interval_error']})")
    k = len(parts)
    return f"{k} metric{'s' if k > 1 else ''} failed: " + "; ".join(parts)


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return None  # NaN / inf: JSON has no such number
    return x


def write_json(doc, path):
    from ._io import UsageError

    text = json.dumps(_jsonable(doc), indent=2, allow_nan=False) + "\n"
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:  # checked before the run; this is a late failure (disk full...)
        raise UsageError(f"cannot write --json {path!r}: {exc.strerror or exc}") from exc
