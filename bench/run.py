"""The benchmark report: every family on every installed backend -> bench/RESULTS.md.

    python -m bench            # full sizes (N up to 1e7: minutes; run it once)
    python -m bench --quick    # small sizes (about two minutes)

Runs each family script (``bench/bench_<family>.py``, in a subprocess so one
family's settings such as torch's thread count do not leak into the next)
and collects its Markdown tables; times one representative metric per family
against N on every installed backend and scikit-learn (one PNG per family);
measures the two CLI / bootstrap targets; writes ``bench/RESULTS.md`` with
the machine and the library versions.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench._harness import best_time, fmt_time, have, print_table  # noqa: E402

#: family script -> (quick argv, full argv)
FAMILIES = {
    "labels": (["--sizes", "1e5,1e6", "--classes", "10", "--repeat", "2"], []),
    "classification": (["--n", "100000", "--repeat", "2"], []),
    "ranking": (["--n", "200000", "--mc-n", "20000", "--classes", "10", "--repeat", "1"], []),
    "regression": (["--n", "2e5", "--repeat", "2"], []),
    "retrieval": (["--queries", "5000", "--items", "100", "--repeat", "1"], []),
    "stream": (["--batches", "50", "--size", "10000", "--repeat", "1"], []),
    "clustering": (["--n", "4000", "--ami-n", "1e5"], ["--n", "20000"]),
    "pairwise": (["--nx", "4000", "--ny", "1000", "--n", "1500", "--repeat", "2"], []),
    "segmentation": (["--images", "4", "--size", "256", "--repeat", "2"], []),
    "eval": (["--n", "1e6", "--bootstrap", "20"], []),
    "bootstrap": (["--n", "1e5", "--b", "200", "--repeat", "1"], []),
    "latency": (["--sizes", "256,4096", "--runs", "5"], ["--runs", "7"]),
    "dtypes": (["--sizes", "256,1e6", "--repeat", "2"], []),
    "training_loop": (["--updates", "500", "--repeat", "3"], []),
}


def machine() -> dict:
    info = {"platform": platform.platform(), "python": platform.python_version(),
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    for mod in ("numpy", "scipy", "sklearn", "torch", "jax", "torchmetrics", "pyarrow",
                "array_api_strict", "cupy"):
        if have(mod):
            try:
                info[mod] = __import__(mod).__version__
            except Exception as exc:  # a broken optional install
                info[mod] = f"error: {exc}"
    if have("torch"):
        import torch

        if torch.cuda.is_available():
            info["cuda"] = torch.cuda.get_device_name(0)
    import metrix

    info["metrix"] = metrix.__version__
    return info


def run_family(name: str, argv: list, timeout: int) -> str:
    """The stdout (Markdown tables) of ``python -m bench.bench_<name> argv``."""
    if not os.path.exists(os.path.join(HERE, f"bench_{name}.py")):
        return f"_not available: bench/bench_{name}.py does not exist yet_"
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", f"bench.bench_{name}", *argv], cwd=ROOT,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"_timed out after {timeout} s_"
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        tail = "\n".join(r.stderr.strip().splitlines()[-5:])
        return f"_failed (exit {r.returncode}):_\n\n```\n{tail}\n```"
    args = " ".join(argv) or "(defaults)"
    return f"`python -m bench.bench_{name} {args}` ({dt:.0f} s)\n\n{r.stdout.strip()}"


# -- time vs N, one representative metric per family -------------------------------

def _converters():
    out = {"numpy": lambda a: a}
    if have("torch"):
        import torch

        out["torch"] = torch.asarray
        if torch.cuda.is_available():
            out["torch-cuda"] = lambda a: torch.asarray(a, device="cuda")
    if have("jax"):
        import jax.numpy as jnp

        out["jax"] = jnp.asarray
    return out


def _family_data(family, n, rng):
    if family == "labels":
        yt = rng.integers(0, 10, n)
        return (yt, np.where(rng.random(n) < 0.7, yt, rng.integers(0, 10, n))), {
            "average": "macro"}, "f1_score"
    if family == "ranking":
        yt = rng.integers(0, 2, n)
        return (yt, rng.random(n) + 0.3 * yt), {}, "roc_auc_score"
    if family == "regression":
        y = rng.normal(size=n)
        return (y, y + 0.3 * rng.normal(size=n)), {}, "r2_score"
    if family == "probabilistic":
        yt = rng.integers(0, 2, n)
        return (yt, np.clip(0.3 + 0.4 * yt + 0.2 * rng.normal(size=n), 0.01, 0.99)), {}, \
            "log_loss"
    raise KeyError(family)


def sweep(sizes, plot_dir):
    """Rows (family, N, lib, seconds) and one PNG of time vs N per family."""
    import metrix

    rows = []
    convs = _converters()
    for family in ("labels", "ranking", "regression", "probabilistic"):
        for n in sizes:
            rng = np.random.default_rng(0)
            args, kw, name = _family_data(family, n, rng)
            fn = getattr(metrix, name, None)
            if fn is None:
                continue
            for lib, conv in convs.items():
                xa = tuple(conv(a) for a in args)
                try:
                    t = best_time(lambda: fn(*xa, **kw), repeat=2)
                except Exception:
                    continue
                rows.append({"family": family, "metric": name, "N": n, "lib": lib, "t": t})
            if have("sklearn"):
                from sklearn import metrics as skm

                t = best_time(lambda: getattr(skm, name)(*args, **kw), repeat=1)
                rows.append({"family": family, "metric": name, "N": n, "lib": "sklearn",
                             "t": t})
    pngs = _plot_sweep(rows, plot_dir) if have("matplotlib") else []
    return rows, pngs


def _plot_sweep(rows, plot_dir):
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    out = []
    for family in dict.fromkeys(r["family"] for r in rows):
        fam = [r for r in rows if r["family"] == family]
        fig, ax = plt.subplots(figsize=(5, 4))
        for lib in dict.fromkeys(r["lib"] for r in fam):
            pts = sorted((r["N"], r["t"]) for r in fam if r["lib"] == lib)
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=lib)
        ax.set_xlabel("N (samples)")
        ax.set_ylabel("time (s)")
        ax.set_title(f"{family}: {fam[0]['metric']}")
        ax.legend()
        fig.tight_layout()
        path = os.path.join(plot_dir, f"time_vs_n_{family}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        out.append(path)
    return out


# -- the two targets ------------------------------------------------------------

def bench_bootstrap(n, c, b, sk_calls):
    """Bootstrap of f1 macro vs a Python loop of scikit-learn calls on resampled data."""
    import metrix
    from bench._harness import peak_memory

    rng = np.random.default_rng(0)
    yt = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, c, n))
    w = rng.random(n) + 0.5
    rows = []
    t_cell = best_time(lambda: metrix.bootstrap(metrix.f1_score, yt, yp, average="macro",
                                                n_resamples=b, random_state=0), repeat=1)
    mem_cell = peak_memory(lambda: metrix.bootstrap(metrix.f1_score, yt, yp, average="macro",
                                                    n_resamples=b, random_state=0))
    bw = max(2, b // 10)
    t_w = best_time(lambda: metrix.bootstrap(metrix.f1_score, yt, yp, average="macro",
                                             sample_weight=w, n_resamples=bw, random_state=0),
                    repeat=1, warmup=0) * b / bw
    mem_w = peak_memory(lambda: metrix.bootstrap(metrix.f1_score, yt, yp, average="macro",
                                                 sample_weight=w, n_resamples=bw,
                                                 random_state=0))
    t_sk = float("nan")
    if have("sklearn"):
        from sklearn.metrics import f1_score

        g = np.random.default_rng(1)

        def loop():
            for _ in range(sk_calls):
                idx = g.integers(0, n, n)
                f1_score(yt[idx], yp[idx], average="macro")
        t_sk = best_time(loop, repeat=1, warmup=0) * b / sk_calls
    rows.append({"path": "unweighted (confusion cells drawn)", "metrix": fmt_time(t_cell),
                 "sklearn loop": fmt_time(t_sk), "speed-up": f"{t_sk / t_cell:.0f}x",
                 "peak extra memory": f"{mem_cell / 2**20:.1f} MiB"})
    rows.append({"path": "weighted (per-sample draws, one bincount)",
                 "metrix": fmt_time(t_w) + f" (from {bw} resamples)",
                 "sklearn loop": fmt_time(t_sk), "speed-up": f"{t_sk / t_w:.1f}x",
                 "peak extra memory": f"{mem_w / 2**20:.1f} MiB"})
    note = (f"N = {n:.0e}, C = {c}, B = {b} resamples; the scikit-learn loop is timed on "
            f"{sk_calls} resampled calls and scaled to {b}.")
    return rows, note


def bench_eval_parquet(n):
    """``metrix eval`` (binary, one score column, all defaults) vs pyarrow's read."""
    if not (have("pyarrow")):
        return [], "pyarrow is not installed: skipped"
    import contextlib
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from metrix.__main__ import main

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "preds.parquet")
        pq.write_table(pa.table({"y": y, "p": (s > 0.5).astype(np.int64), "s": s}), path)
        t_read = best_time(lambda: pq.read_table(path), repeat=3)

        def run():
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["eval", path, "--y-true", "y", "--y-pred", "p", "--y-score", "s",
                             "--quiet"]) == 0
        t_eval = best_time(run, repeat=1)
    rows = [{"N": f"{n:.0e}", "pyarrow read": fmt_time(t_read), "metrix eval": fmt_time(t_eval),
             "eval / read": f"{t_eval / t_read:.1f}x"}]
    return rows, "binary task, one score column, all 10 default metrics, no bootstrap"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per family script")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    sections = []
    for fam in args.families.split(","):
        quick, full = FAMILIES.get(fam, ([], []))
        print(f"== {fam}", flush=True)
        sections.append((fam, run_family(fam, quick if args.quick else full, args.timeout)))
    sizes = [10**3, 10**4, 10**5] if args.quick else [10**4, 10**5, 10**6, 10**7]
    print("== time vs N", flush=True)
    # the plots go next to the report (its links name them relative to it): a
    # report written elsewhere leaves the committed plots alone
    sweep_rows, pngs = sweep(sizes, os.path.dirname(os.path.abspath(args.out)))
    print("== bootstrap target", flush=True)
    # the two targets run at the sizes in both modes (about a minute)
    boot = bench_bootstrap(10**6, 10, 1000, 20 if args.quick else 50)
    print("== eval target", flush=True)
    ev = bench_eval_parquet(10**7)
    text = render(machine(), sections, sweep_rows, pngs, boot, ev, args.quick,
                  time.perf_counter() - t0)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {args.out}")
    return 0


def render(info, sections, sweep_rows, pngs, boot, ev, quick, total):
    lines = ["# metrix benchmark results", "",
             f"Generated by `python -m bench{' --quick' if quick else ''}` in {total:.0f} s"
             + (" (quick mode: small sizes; run `python -m bench` for N up to 1e7)."
                if quick else "."), "", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += ["", "## Targets", "", "### Bootstrap: `f1_score(average=\"macro\")`", "",
              boot[1], "", _table(boot[0]), "",
              "### `metrix eval` on a Parquet file vs reading it with pyarrow", "", ev[1], "",
              _table(ev[0]), "", "## Time vs N (one metric per family)", ""]
    if sweep_rows:
        libs = list(dict.fromkeys(r["lib"] for r in sweep_rows))
        keyed = {}
        for r in sweep_rows:
            keyed.setdefault((r["family"], r["metric"], r["N"]), {})[r["lib"]] = r["t"]
        rows = []
        for (fam, metric, n), t in keyed.items():
            row = {"family": fam, "metric": metric, "N": f"{n:.0e}"}
            for lib in libs:
                row[lib] = fmt_time(t[lib]) if lib in t else ""
            if "sklearn" in t and "numpy" in t:
                row["sklearn / numpy"] = f"{t['sklearn'] / t['numpy']:.1f}"
            rows.append(row)
        lines += [_table(rows), ""]
        lines += [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in pngs]
        lines.append("")
    lines += ["## Families", ""]
    for fam, body in sections:
        lines += [f"### {fam}", "", body, ""]
    return "\n".join(lines)


def _table(rows):
    if not rows:
        return "_(no rows)_"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return print_table(rows, cols)


if __name__ == "__main__":
    sys.exit(main())
