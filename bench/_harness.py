"""Timing and memory helpers shared by every bench script.

Times are the best of ``repeat`` runs (after one warm-up), in seconds; the
floor of a family (one bincount, one sort, one fused pass) is timed in the
same run so ratios are comparable across noisy machines.
"""

from __future__ import annotations

import gc
import importlib.util
import time
import tracemalloc


def have(mod: str) -> bool:
    return importlib.util.find_spec(mod) is not None


def sync(result):
    """Block until ``result`` (any array / tuple) is computed (torch CUDA, JAX)."""
    items = result if isinstance(result, (tuple, list)) else [result]
    for r in items:
        if hasattr(r, "block_until_ready"):
            r.block_until_ready()
        mod = type(r).__module__
        if mod.startswith("torch") and getattr(r, "is_cuda", False):
            import torch

            torch.cuda.synchronize()
    return result


def best_time(fn, *, repeat: int = 3, warmup: int = 1) -> float:
    for _ in range(warmup):
        sync(fn())
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        sync(fn())
        best = min(best, time.perf_counter() - t0)
    return best


def best_times(fns: dict, *, repeat: int = 3, warmup: int = 1) -> dict:
    """:func:`best_time` of each of ``fns`` (``{name: fn}``), their repeats
    interleaved (one call of each per round), so that a slow spell of a noisy
    machine falls on all of them instead of on one: the ratios are fairer."""
    for fn in fns.values():
        for _ in range(warmup):
            sync(fn())
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            sync(fn())
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def peak_memory(fn) -> int:
    """Peak extra bytes allocated through Python/NumPy while ``fn`` runs."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def fmt_time(t: float) -> str:
    if t != t:
        return "n/a"
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


def print_table(rows: list[dict], columns: list[str]) -> str:
    """Print (and return) a Markdown table of ``rows`` with ``columns``."""
    head = "| " + " | ".join(columns) + " |"
    sep = "| " + " | ".join("---" for _ in columns) + " |"
    body = ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    text = "\n".join([head, sep, *body])
    print(text, flush=True)
    return text
