"""``metrix eval`` at scale: one large Parquet file, many files batch by batch, Dask.

Run:  python -m bench.bench_eval [--n 1e7] [--bootstrap 200] [--files 16 --rows 2e8]
      [--dask-rows 2e7]

Targets (each run in a fresh subprocess, so its peak RSS is its own):

* one binary Parquet file of ``--n`` rows (y, p: int64; s: float64): ``metrix
  eval`` at most 1.5x the floor (one pyarrow read of the columns plus one
  ``np.sort`` of the scores; each the best of two runs), peak RSS at most 3x
  the raw size of the columns;
* ``--bootstrap B`` on the same file within 10x the run without intervals;
  the floor of drawing ``B x n`` resample counts is measured beside it;
* ``--files`` Parquet files of ``--rows`` rows in all, batch by batch: peak RSS
  under 1.5 GB, exact label metrics, binned AUC with its bound (``--rows 0``
  skips it: 2e8 rows are about 4.8 GB of columns and minutes to write);
* a Dask ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``
  on ``--dask-rows`` rows of those files: exact AUC equal to the
  single-machine exact value to 1e-12.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench._harness import fmt_time, have, print_table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _write(path, n, seed, row_group=1 << 20):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    done = 0
    writer = None
    while done < n:
        k = min(row_group * 4, n - done)
        y = rng.integers(0, 2, k)
        s = np.clip(0.3 * y + 0.7 * rng.random(k), 0, 1)
        table = pa.table({"y": y, "p": (s > 0.5).astype(np.int64), "s": s})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=row_group)
        done += k
    writer.close()


def _eval(args, out, repeat=1):
    """``metrix eval ARGS --json out`` in a subprocess: (seconds inside the command, the
    interpreter's start-up and imports excluded; the JSON), the best of ``repeat``
    runs (as the floor's best of two)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    best = None
    for _ in range(repeat):
        r = subprocess.run([sys.executable, "-m", "metrix", "eval", *args, "--quiet", "--json",
                            out], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        with open(out) as f:
            doc = json.load(f)
        if best is None or doc["timings_s"]["total"] < best["timings_s"]["total"]:
            best = doc
    return best["timings_s"]["total"], best


def _floor(path, cols=("y", "p", "s")):
    import pyarrow.parquet as pq

    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        table = pq.read_table(path, columns=list(cols))
        np.sort(table.column("s").to_numpy())
        best = min(best, time.perf_counter() - t0)
    return best


def one_file(n, bootstrap, d):
    path = os.path.join(d, "preds.parquet")
    _write(path, n, 0)
    floor = _floor(path)
    raw_mb = n * 24 / 2**20
    args = [path, "--y-true", "y", "--y-pred", "p", "--y-score", "s"]
    wall, doc = _eval(args, os.path.join(d, "a.json"), repeat=2)
    rows = [{"run": f"metrix eval, {n:.0e} rows", "time": fmt_time(wall),
             "/ floor": f"{wall / floor:.2f}x", "peak RSS": f"{doc['peak_rss_mb']:.0f} MB",
             "RSS / columns": f"{doc['peak_rss_mb'] / raw_mb:.1f}x"}]
    checks = [("eval <= 1.5x (read + sort)", wall <= 1.5 * floor, f"{wall / floor:.2f}x"),
              ("peak RSS <= 3x the columns", doc["peak_rss_mb"] <= 3 * raw_mb,
               f"{doc['peak_rss_mb'] / raw_mb:.1f}x")]
    wall_b, doc_b = _eval(args + ["--batch-rows", str(1 << 20)], os.path.join(d, "b.json"))
    rows.append({"run": "the same, batch by batch", "time": fmt_time(wall_b),
                 "/ floor": f"{wall_b / floor:.2f}x",
                 "peak RSS": f"{doc_b['peak_rss_mb']:.0f} MB",
                 "RSS / columns": f"{doc_b['peak_rss_mb'] / raw_mb:.1f}x"})
    if bootstrap:
        wall_i, doc_i = _eval(args + ["--bootstrap", str(bootstrap)], os.path.join(d, "c.json"))
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        for _ in range(0, bootstrap, 8):  # the draws alone: B x n indices, counted
            idx = rng.integers(n, size=(8, n))
            np.bincount((idx + (np.arange(8) * n)[:, None]).ravel(), minlength=8 * n)
        draw = time.perf_counter() - t0
        rows.append({"run": f"--bootstrap {bootstrap}", "time": fmt_time(wall_i),
                     "/ floor": f"{wall_i / wall:.1f}x the run without",
                     "peak RSS": f"{doc_i['peak_rss_mb']:.0f} MB", "RSS / columns": ""})
        rows.append({"run": f"floor: drawing {bootstrap} x {n:.0e} counts", "time":
                     fmt_time(draw), "/ floor": f"{draw / wall:.1f}x the run without",
                     "peak RSS": "", "RSS / columns": ""})
        checks.append((f"--bootstrap {bootstrap} within 10x the run without",
                       wall_i <= 10 * wall, f"{wall_i / wall:.1f}x (drawing alone "
                       f"{draw / wall:.1f}x)"))
    print_table(rows, ["run", "time", "/ floor", "peak RSS", "RSS / columns"])
    return checks


def many_files(files, rows, dask_rows, d):
    per = rows // files
    folder = os.path.join(d, "many")
    os.makedirs(folder)
    t0 = time.perf_counter()
    for i in range(files):
        _write(os.path.join(folder, f"part-{i:03d}.parquet"), per, 100 + i)
    print(f"wrote {files} files of {per:,} rows in {time.perf_counter() - t0:.0f} s",
          flush=True)
    args = [folder, "--y-true", "y", "--y-pred", "p", "--y-score", "s", "--bins", "10000"]
    wall, doc = _eval(args, os.path.join(d, "m.json"))
    auc = doc["metrics"]["roc_auc"]
    rows_out = [{"run": f"{files} files, {files * per:.1e} rows, --bins 10000",
                 "time": fmt_time(wall), "peak RSS": f"{doc['peak_rss_mb']:.0f} MB",
                 "roc_auc": f"{auc['value']:.6f} +- {auc['error_bound']:.1e}"}]
    checks = [("batched peak RSS < 1.5 GB", doc["peak_rss_mb"] < 1536,
               f"{doc['peak_rss_mb']:.0f} MB")]
    if dask_rows and have("distributed"):
        k = min(files, max(1, -(-dask_rows // per)))  # at least dask_rows rows
        sub = os.path.join(d, "sub")
        os.makedirs(sub)
        for i in range(k):
            os.link(os.path.join(folder, f"part-{i:03d}.parquet"),
                    os.path.join(sub, f"part-{i:03d}.parquet"))
        base = [sub, "--y-true", "y", "--y-pred", "p", "--y-score", "s"]
        wall_e, exact = _eval(base, os.path.join(d, "e.json"))
        wall_k, dask = _eval(base + ["--dask", "local", "--dask-workers", "2"],
                             os.path.join(d, "k.json"))
        diff = abs(exact["metrics"]["roc_auc"]["value"] - dask["metrics"]["roc_auc"]["value"])
        rows_out.append({"run": f"exact, {k * per:.1e} rows, one process",
                         "time": fmt_time(wall_e), "peak RSS": f"{exact['peak_rss_mb']:.0f} MB",
                         "roc_auc": f"{exact['metrics']['roc_auc']['value']:.12f}"})
        rows_out.append({"run": "the same on a Dask LocalCluster (2 processes)",
                         "time": fmt_time(wall_k), "peak RSS": "(client)",
                         "roc_auc": f"{dask['metrics']['roc_auc']['value']:.12f}"})
        checks.append(("Dask exact AUC = single machine to 1e-12", diff <= 1e-12,
                       f"|diff| = {diff:.1e}"))
    print_table(rows_out, ["run", "time", "peak RSS", "roc_auc"])
    return checks


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=float, default=1e7, help="rows of the one file (0: skip it)")
    p.add_argument("--bootstrap", type=int, default=200)
    p.add_argument("--files", type=int, default=16)
    p.add_argument("--rows", type=float, default=0, help="rows over --files (2e8: the "
                   "issue's size; 0: skip)")
    p.add_argument("--dask-rows", type=float, default=2e7)
    args = p.parse_args(argv)
    if not have("pyarrow"):
        print("pyarrow is not installed: skipped")
        return
    checks = []
    with tempfile.TemporaryDirectory() as d:
        if args.n:  # --n 0: only the many-files runs
            checks += one_file(int(args.n), args.bootstrap, d)
        if args.rows:
            checks += many_files(args.files, int(args.rows), int(args.dask_rows), d)
    for what, ok, value in checks:
        print(f"  [{'ok' if ok else 'MISS'}] {what}: {value}")


if __name__ == "__main__":
    main()
