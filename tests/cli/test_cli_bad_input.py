"""``metrix eval`` on malformed files and bad options: an exit code and one line, no traceback.

Each case builds its file in ``tmp_path`` and runs the in-process entry
(``metrix.__main__.main``); a few run ``python -m metrix eval`` in a real
subprocess.  Errors are exactly one ``metrix eval: error: ...`` line on stderr;
argparse usage errors end with one such line after the usage text.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import metrix
from metrix.__main__ import main

HAVE_PYARROW = importlib.util.find_spec("pyarrow") is not None
needs_pyarrow = pytest.mark.skipif(not HAVE_PYARROW, reason="pyarrow not installed")


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses an option value
        code = exc.code
    std = capsys.readouterr()
    assert "Traceback" not in std.out + std.err
    return code, std.out, std.err


def _one_error_line(err, *fragments):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("metrix eval: error: "), err
    for f in fragments:
        assert f in lines[0], (f, err)
    return lines[0]


def _csv(path, text):
    path.write_text(text)
    return str(path)


def _good_rows(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.4 * y + 0.6 * rng.random(n), 0.01, 0.99), 4)
    return y, (s > 0.5).astype(int), s


def _good_csv(path, n=40):
    y, p, s = _good_rows(n)
    return _csv(path, "y,p,s\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, p, s)))


ARGS = ["--y-true", "y", "--y-pred", "p", "--y-score", "s"]


# -- malformed files: exit code and one line -------------------------------------------

def _parquet(path, table):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(table), str(path))
    return str(path)


def _truncated_parquet(tmp_path):
    y, p, s = _good_rows(200)
    f = _parquet(tmp_path / "t.parquet", {"y": y, "p": p, "s": s})
    data = open(f, "rb").read()
    with open(f, "wb") as fh:
        fh.write(data[: len(data) // 2])
    return f


def _all_nan_parquet(tmp_path):
    y, p, _ = _good_rows()
    return _parquet(tmp_path / "nan.parquet", {"y": y, "p": p, "s": np.full(len(y), np.nan)})


def _null_string_parquet(tmp_path):
    return _parquet(tmp_path / "null.parquet",
                    {"y": ["a", None, "b", "a"], "p": ["a", "b", "b", "a"], "s": [.1, .2, .3, .4]})


def _npz_scalar(tmp_path):
    f = tmp_path / "scalar.npz"
    np.savez(f, y=np.array(1), p=np.array([1]), s=np.array([0.5]))
    return str(f)


def _npz_ragged(tmp_path):
    f = tmp_path / "ragged.npz"
    np.savez(f, a=np.array([0, 1, 1]), b=np.array([0, 1]), p=np.array([0, 1, 1]))
    return str(f)


CASES = {
    # name: (builder, extra argv or None for ARGS, exit code, fragments of the message)
    "empty file": (lambda t: _csv(t / "e.csv", ""), None, 4, ["empty file"]),
    "header only": (lambda t: _csv(t / "h.csv", "y,p,s\n"), None, 6, ["has no rows"]),
    "missing column": (lambda t: _good_csv(t / "m.csv"), ["--y-true", "y", "--y-pred", "q"], 5,
                       ["column(s) 'q' not found", "available: y, p, s"]),
    "all NaN score (CSV)": (lambda t: _csv(t / "n.csv", "y,p,s\n0,0,nan\n1,1,NaN\n1,0,\n"),
                            None, 6, ["column 's'", "has 3 missing values"]),
    "blank string label": (
        lambda t: _csv(t / "b.csv", "y,p,s\nham,ham,.2\nspam,spam,.9\n,ham,.3\n  ,spam,.6\n"
                       "ham,ham,.1\n"), None, 6, ["column 'y'", "has 2 missing values"]),
    "blank in two columns": (
        lambda t: _csv(t / "b2.csv", "y,p,s\nham,,.2\nspam,spam,\n,ham,.3\n"), None, 6,
        ["columns 'y' (1), 'p' (1), 's' (1)", "missing values"]),
    "text and numbers mixed in one column": (
        lambda t: _csv(t / "x.csv", "y,p,s\n0,0,.2\ncat,1,.8\n1,1,.7\n"), None, 6,
        ["--y-true holds text but --y-pred holds numbers"]),
    "string vs integer labels": (
        lambda t: _csv(t / "si.csv", "y,p,s\nham,0,.2\nspam,1,.9\nham,1,.6\n"), None, 6,
        ["--y-true holds text but --y-pred holds numbers"]),
    "integer vs string labels": (
        lambda t: _csv(t / "is.csv", "y,p\n0,ham\n1,spam\n"), ["--y-true", "y", "--y-pred", "p"],
        6, ["--y-true holds numbers but --y-pred holds text"]),
    "text score": (lambda t: _csv(t / "ts.csv", "y,p,s\n0,0,.2\n1,1,high\n"), None, 6,
                   ["--y-score must be numeric", "'high'"]),
    "text sample weight": (
        lambda t: _csv(t / "tw.csv", "y,p,w\n0,0,1\n1,1,heavy\n"),
        ["--y-true", "y", "--y-pred", "p", "--sample-weight", "w"], 6,
        ["--sample-weight column 'w' must be numeric"]),
    "three classes, --task binary": (
        lambda t: _csv(t / "3.csv", "y,p\n0,1\n1,2\n2,0\n"),
        ["--y-true", "y", "--y-pred", "p", "--task", "binary"], 6,
        ["--task binary needs at most 2 classes, got 3"]),
    "text target, --task regression": (
        lambda t: _csv(t / "tr.csv", "y,p\na,b\nb,a\n"),
        ["--y-true", "y", "--y-pred", "p", "--task", "regression"], 6,
        ["--task regression needs numeric --y-true"]),
    "2-D --y-true, 1-D --y-pred": (
        lambda t: _good_csv(t / "w.csv"), ["--y-true", "y,p", "--y-pred", "p"], 6,
        ["--y-true has 2 columns but --y-pred has 1 column"]),
    "multilabel with a 2": (
        lambda t: _csv(t / "ml.csv", "a,b,c,d\n0,1,0,1\n2,0,1,0\n"),
        ["--y-true", "a,b", "--y-pred", "c,d"], 6, ["needs 0/1 values in --y-true"]),
    ".npz columns of different lengths": (
        _npz_ragged, ["--y-true", "a,b", "--y-pred", "p"], 6,
        ["columns have different lengths: [2, 3]"]),
    "truncated Parquet": (_truncated_parquet, None, 4, ["as Parquet"]),
    "all NaN score (Parquet)": (_all_nan_parquet, None, 6, ["column 's'", "has 40 missing"]),
    "null string (Parquet)": (_null_string_parquet, None, 6, ["column 'y'", "1 missing value "]),
    "0-d array in .npz": (_npz_scalar, None, 6, ["column 'y' has shape ()"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_file(tmp_path, capsys, name):
    build, extra, code, fragments = CASES[name]
    if "Parquet" in name and not HAVE_PYARROW:
        pytest.skip("pyarrow not installed")
    f = build(tmp_path)
    got, out, err = _run(["eval", f, *(ARGS if extra is None else extra)], capsys)
    assert got == code, err
    assert out == ""  # nothing computed, nothing printed
    _one_error_line(err, *fragments)


def test_one_row_file_gives_numbers_and_warnings_not_a_traceback(tmp_path, capsys):
    f = _csv(tmp_path / "one.csv", "y,p,s\n1,1,0.8\n")
    got, out, err = _run(["eval", f, *ARGS, "--json", str(tmp_path / "o.json")], capsys)
    assert got == 0, err
    assert "accuracy" in out
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("metrix eval: warning: ") for line in lines), err
    assert any("roc_auc: Only one class" in line for line in lines)
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["metrics"]["accuracy"]["value"] == 1.0
    assert doc["failed"] == [] and any("roc_auc" in w for w in doc["warnings"])


@pytest.mark.parametrize("use_arrow", [True, False])
def test_text_after_numbers_in_a_later_block(tmp_path, capsys, monkeypatch, use_arrow):
    """Type inference per block: a later block with text in a numeric column is bad data."""
    import metrix.cli._io as io

    if use_arrow:
        if not HAVE_PYARROW:
            pytest.skip("pyarrow not installed")
        import pyarrow.csv as pacsv

        real = pacsv.ReadOptions
        monkeypatch.setattr(pacsv, "ReadOptions", lambda **kw: real(**{**kw, "block_size": 64}))
    else:
        real = importlib.util.find_spec
        monkeypatch.setattr(io.importlib.util, "find_spec",
                            lambda name, *a: None if name == "pyarrow" else real(name, *a))
        monkeypatch.setattr(io.CsvTable, "read",
                            lambda self, names, **kw: io.Table.read(self, names, chunk_rows=10))
    f = _csv(tmp_path / "late.csv", "y,p\n" + "0,1\n1,0\n" * 40 + "cat,1\n")
    got, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p"], capsys)
    assert got == 6
    _one_error_line(err, "mixes numbers and text")


def test_blank_cells_without_pyarrow(tmp_path, capsys, monkeypatch):
    import metrix.cli._io as io

    real = importlib.util.find_spec
    monkeypatch.setattr(io.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyarrow" else real(name, *a))
    f = _csv(tmp_path / "b.csv", "y,p,s\nham,ham,.2\n ,spam,.9\nspam,spam,\n")
    got, out, err = _run(["eval", f, *ARGS], capsys)
    assert got == 6
    _one_error_line(err, "columns 'y' (1), 's' (1)", "missing values")


# -- options refused at parse time -----------------------------------------------------

@pytest.mark.parametrize("option,value,fragment", [
    ("--confidence", "nan", "open interval (0, 1)"),
    ("--confidence", "1.5", "open interval (0, 1)"),
    ("--confidence", "1", "open interval (0, 1)"),
    ("--confidence", "0", "open interval (0, 1)"),
    ("--confidence", "-1", "open interval (0, 1)"),
    ("--confidence", "high", "expected a number"),
    ("--seed", "-1", "integer >= 0"),
    ("--seed", "1.5", "expected an integer"),
    ("--bootstrap", "-3", "needs B >= 2"),
    ("--bootstrap", "1", "needs B >= 2"),
    ("--bootstrap", "1000000000", "at most 100,000 resamples"),
])
def test_bad_option_values_exit_2_at_parse_time(tmp_path, capsys, option, value, fragment):
    f = _good_csv(tmp_path / "g.csv")
    got, out, err = _run(["eval", f, *ARGS, f"{option}={value}"], capsys)
    assert got == 2 and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"metrix eval: error: argument {option}: ") and fragment in last, err


def test_bootstrap_budget_refused_before_any_work(tmp_path, capsys, monkeypatch):
    import metrix.cli._checks as checks

    monkeypatch.setattr(checks, "MAX_BOOTSTRAP_WORK", 1000)
    f = _good_csv(tmp_path / "g.csv", n=40)
    got, out, err = _run(["eval", f, *ARGS, "--bootstrap", "50"], capsys)
    assert got == 2 and out == ""
    _one_error_line(err, "--bootstrap 50 on 40 rows is 2,000 resampled rows",
                    "use --bootstrap 25 or fewer")
    got, out, err = _run(["eval", f, *ARGS, "--bootstrap", "25", "--quiet"], capsys)
    assert got == 0, err


@needs_pyarrow
def test_bootstrap_budget_parquet_checked_before_reading(tmp_path, capsys, monkeypatch):
    import metrix.cli._checks as checks
    import metrix.cli._io as io

    monkeypatch.setattr(checks, "MAX_BOOTSTRAP_WORK", 300)
    monkeypatch.setattr(io.ParquetTable, "_read", lambda *a: pytest.fail("read the file"))
    y, p, s = _good_rows(200)
    f = _parquet(tmp_path / "g.parquet", {"y": y, "p": p, "s": s})
    got, out, err = _run(["eval", f, *ARGS, "--bootstrap", "10"], capsys)
    assert got == 2
    _one_error_line(err, "on 200 rows", "evaluate a sample of the rows")


# -- outputs checked before the work ---------------------------------------------------

def test_json_into_missing_directory(tmp_path, capsys, monkeypatch):
    import metrix.cli._io as io

    monkeypatch.setattr(io.CsvTable, "_read", lambda *a: pytest.fail("read the file"))
    f = _good_csv(tmp_path / "g.csv")
    got, out, err = _run(["eval", f, *ARGS, "--bootstrap", "100",
                          "--json", str(tmp_path / "nope" / "r.json")], capsys)
    assert got == 2 and out == ""
    _one_error_line(err, "--json", "does not exist")


def test_json_is_a_directory(tmp_path, capsys):
    f = _good_csv(tmp_path / "g.csv")
    got, out, err = _run(["eval", f, *ARGS, "--json", str(tmp_path)], capsys)
    assert got == 2 and out == ""
    _one_error_line(err, "is a directory")


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_plots_not_creatable(tmp_path, capsys, where):
    f = _good_csv(tmp_path / "g.csv")
    target = tmp_path / "g.csv" if where == "file" else tmp_path / "g.csv" / "plots"
    got, out, err = _run(["eval", f, *ARGS, "--plots", str(target)], capsys)
    assert got == 2 and out == ""
    _one_error_line(err, "--plots")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes anywhere")
def test_json_directory_not_writable(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        f = _good_csv(tmp_path / "g.csv")
        got, out, err = _run(["eval", f, *ARGS, "--json", str(ro / "r.json")], capsys)
        assert got == 2
        _one_error_line(err, "not writable")
    finally:
        ro.chmod(0o700)


# -- exit 1: a metric failed; warnings on stderr -------------------------------------------

def test_failed_metric_exits_1_after_table_and_json(tmp_path, capsys):
    f = _csv(tmp_path / "f.csv", "y,p,s\n0,0,-0.2\n1,1,1.7\n0,1,0.6\n1,1,0.4\n")
    out_json = tmp_path / "r.json"
    got, out, err = _run(["eval", f, *ARGS, "--json", str(out_json)], capsys)
    assert got == 1
    assert "roc_auc" in out and "log_loss" in out and "error:" in out  # the table is printed
    _one_error_line(err, "3 metrics failed: log_loss (", "brier (", "calibration_error (")
    doc = json.loads(out_json.read_text())
    assert doc["failed"] == ["log_loss", "brier", "calibration_error"]
    y, s = np.array([0, 1, 0, 1]), np.array([-0.2, 1.7, 0.6, 0.4])
    assert doc["metrics"]["roc_auc"]["value"] == pytest.approx(
        float(metrix.roc_auc_score(y, s)))


def test_warnings_printed_on_stderr_and_kept_in_json(tmp_path, capsys):
    rows = "y,p,a,b,c\n0,0,.5,.3,.1\n1,1,.2,.6,.1\n2,2,.1,.1,.7\n1,0,.4,.4,.1\n"
    f = _csv(tmp_path / "mc.csv", rows)
    out_json = tmp_path / "r.json"
    got, out, err = _run(["eval", f, "--y-true", "y", "--y-pred", "p", "--y-score", "a,b,c",
                          "--json", str(out_json)], capsys)
    lines = err.strip().splitlines()
    assert "metrix eval: warning: log_loss: The y_prob values do not sum to one." in err
    assert all(line.startswith("metrix eval: ") for line in lines)
    doc = json.loads(out_json.read_text())
    assert any("do not sum to one" in w for w in doc["warnings"])
    assert "do not sum to one" in doc["metrics"]["log_loss"]["warnings"][0]
    # roc_auc_ovr refuses rows that do not sum to one: a failed metric, exit 1
    assert got == 1 and lines[-1].startswith("metrix eval: error: 1 metric failed: roc_auc_ovr")


def test_failing_classification_report_exits_1(tmp_path, capsys, monkeypatch):
    import metrix.cli as cli

    def refuse(*a, **k):
        raise ValueError("refused")

    monkeypatch.setattr(cli, "_class_report", refuse)
    f = _good_csv(tmp_path / "g.csv")
    out_json = tmp_path / "r.json"
    got, out, err = _run(["eval", f, *ARGS, "--json", str(out_json)], capsys)
    assert got == 1 and "roc_auc" in out
    _one_error_line(err, "1 metric failed: classification_report (refused)")
    assert json.loads(out_json.read_text())["failed"] == ["classification_report"]


def test_internal_error_is_one_line_exit_7(tmp_path, capsys, monkeypatch):
    import metrix.cli as cli

    def boom(*a, **k):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli, "default_metrics", boom)
    monkeypatch.delenv("METRIX_DEBUG", raising=False)
    f = _good_csv(tmp_path / "g.csv")
    got, out, err = _run(["eval", f, *ARGS], capsys)
    assert got == 7
    _one_error_line(err.replace("metrix eval: internal error", "metrix eval: error"),
                    "RuntimeError: boom second line", "METRIX_DEBUG=1")


# -- a real process ------------------------------------------------------------------

def _subprocess(argv):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(metrix.__file__)))
    env.pop("METRIX_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "metrix", "eval", *argv], capture_output=True,
                          text=True, env=env, timeout=120)


def test_subprocess_exit_codes_and_no_traceback(tmp_path):
    mixed = _csv(tmp_path / "mixed.csv", "y,p,s\nham,0,.2\nspam,1,.9\n")
    r = _subprocess([mixed, *ARGS])
    assert r.returncode == 6 and r.stdout == ""
    _one_error_line(r.stderr, "--y-true holds text but --y-pred holds numbers")
    blank = _csv(tmp_path / "blank.csv", "y,p,s\nham,ham,.2\nspam,spam,.9\n,ham,.3\n")
    r = _subprocess([blank, *ARGS])
    assert r.returncode == 6
    _one_error_line(r.stderr, "column 'y'", "1 missing value")
    good = _good_csv(tmp_path / "g.csv")
    r = _subprocess([good, *ARGS, "--json", str(tmp_path / "no" / "r.json")])
    assert r.returncode == 2 and r.stdout == ""
    _one_error_line(r.stderr, "does not exist")
    r = _subprocess([good, *ARGS, "--confidence", "nan"])
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("metrix eval: error: argument")
    r = _subprocess([good, *ARGS, "--bootstrap", "1000000000"])
    assert r.returncode == 2 and "at most 100,000 resamples" in r.stderr


def test_help_documents_exit_codes():
    r = _subprocess(["--help"])
    assert r.returncode == 0
    for line in ("exit codes", "1  a metric or its bootstrap interval failed",
                 "2  bad usage", "6  bad data", "7  internal error",
                 "--y-score is the probability (score) of --pos-label",
                 "B <= 100,000 resamples"):
        assert line in r.stdout, line


def test_nan_interval_is_warned(tmp_path, capsys):
    f = _csv(tmp_path / "six.csv", "y,p,s\n0,0,.2\n1,1,.7\n0,0,.6\n1,0,.3\n0,1,.8\n1,1,.9\n")
    got, out, err = _run(["eval", f, *ARGS, "--bootstrap", "200", "--quiet"], capsys)
    assert got == 0, err
    assert "metrix eval: warning: roc_auc: no interval (nan)" in err
    assert all(line.startswith("metrix eval: warning: ") for line in err.strip().splitlines())


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("header", ["label , pred", "\ufefflabel,pred", " label,pred "])
def test_header_spaces_and_a_byte_order_mark_are_not_part_of_a_name(tmp_path, capsys,
                                                                     header, batched):
    """Once a header "label , pred" exited 4 (cannot parse) and a UTF-8 BOM named the
    column "\\ufefflabel"; a missing column is exit 5 either way."""
    if batched and not HAVE_PYARROW:
        pytest.skip("--batch-rows reads with pyarrow")
    path = tmp_path / "p.csv"
    path.write_text(header + "\n1,1\n0,1\n1,0\n0,0\n1,1\n", encoding="utf-8")
    extra = ["--batch-rows", "2"] if batched else []
    out = tmp_path / "r.json"
    code, _, _ = _run(["eval", str(path), "--y-true", "label", "--y-pred", "pred", "--json",
                       str(out), *extra], capsys)
    assert code == 0
    assert json.loads(out.read_text())["metrics"]["accuracy"]["value"] == pytest.approx(0.6)
    code, _, err = _run(["eval", str(path), "--y-true", "lbl", "--y-pred", "pred", *extra],
                        capsys)
    assert code == 5 and "lbl" in err


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("rows, option, fragment", [
    ("1,0.9,1\n0,inf,1\n1,0.2,1\n0,0.4,1\n", "--y-score", "infinite"),
    ("1,0.9,0\n0,0.1,0\n1,0.2,0\n0,0.4,0\n", "--y-score", "all zeros"),
    ("1,1,0\n0,0,0\n1,1,0\n0,1,0\n", "--y-pred", "all zeros"),
])
def test_one_exit_code_per_kind_of_bad_value_whole_or_batched(tmp_path, capsys, rows, option,
                                                               fragment, batched):
    """inf once exited 1 read whole and 6 in batches; all-zero weights 1 and 7 (an
    internal error). Both are bad data: exit 6, either way."""
    if batched and not HAVE_PYARROW:
        pytest.skip("--batch-rows reads with pyarrow")
    path = tmp_path / "p.csv"
    path.write_text("label,s,w\n" + rows)
    extra = ["--batch-rows", "2"] if batched else []
    code, _, err = _run(["eval", str(path), "--y-true", "label", option, "s",
                         "--sample-weight", "w", *extra], capsys)
    assert code == 6
    _one_error_line(err, fragment)
