"""Readers for ``metrix eval``: CSV, Parquet and ``.npz``, chunk by chunk.

Only the requested columns are read, in chunks (Parquet row groups, CSV
blocks), so memory holds the columns the metrics need, never the whole file.
Parquet needs pyarrow (``metrix[parquet]``); CSV uses pyarrow's streaming
reader when it is installed and the standard ``csv`` module otherwise.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import zipfile

import numpy as np


class CliError(Exception):
    """An error with a message for the user and the process exit code."""

    code = 1


class UsageError(CliError):
    code = 2


class NotInstalled(CliError):
    code = 3


class Unreadable(CliError):
    code = 4


class MissingColumn(CliError):
    code = 5


class BadData(CliError):
    code = 6


FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet",
           ".pq": "parquet", ".npz": "npz"}


def open_table(path):
    """A :class:`Table` for ``path`` (format from the extension)."""
    if not os.path.exists(path):
        raise Unreadable(f"cannot read {path!r}: no such file")
    if os.path.isdir(path):
        raise Unreadable(f"cannot read {path!r}: it is a directory")
    ext = os.path.splitext(path)[1].lower()
    fmt = FORMATS.get(ext)
    if fmt is None:
        raise Unreadable(f"cannot read {path!r}: unknown format {ext or '(none)'!r}; "
                         "expected .csv, .tsv, .parquet or .npz")
    return {"csv": CsvTable, "parquet": ParquetTable, "npz": NpzTable}[fmt](path)


class Table:
    fmt = "?"

    def __init__(self, path):
        self.path = path
        self.columns: list[str] = []
        self.num_rows = None

    def check_columns(self, names):
        missing = [c for c in names if c not in self.columns]
        if missing:
            shown = ", ".join(self.columns[:20]) + (" ..." if len(self.columns) > 20 else "")
            raise MissingColumn(
                f"column(s) {', '.join(map(repr, missing))} not found in {self.path!r}; "
                f"available: {shown}")

    def read(self, names, *, chunk_rows=1 << 20, progress=None):
        """``{name: numpy array}`` of the requested columns."""
        raise NotImplementedError


def _column_numpy(col, name, path):
    if col.null_count:
        raise BadData(f"column {name!r} of {path!r} has {col.null_count} missing values")
    return col.to_numpy(zero_copy_only=False)


class ParquetTable(Table):
    fmt = "parquet"

    def __init__(self, path):
        super().__init__(path)
        if importlib.util.find_spec("pyarrow") is None:
            raise NotInstalled("reading Parquet needs pyarrow: pip install 'metrix[parquet]'")
        import pyarrow.parquet as pq

        try:
            self.file = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises several types for bad files
            raise Unreadable(f"cannot read {path!r} as Parquet: {exc}") from exc
        self.columns = list(self.file.schema_arrow.names)
        self.num_rows = self.file.metadata.num_rows

    def read(self, names, *, chunk_rows=1 << 20, progress=None):
        self.check_columns(names)
        parts = {n: [] for n in names}
        done = 0
        try:
            for g in range(self.file.num_row_groups):  # one row group at a time
                tab = self.file.read_row_group(g, columns=list(dict.fromkeys(names)))
                for n in names:
                    parts[n].append(_column_numpy(tab.column(n), n, self.path))
                done += tab.num_rows
                if progress is not None:
                    progress(done, self.num_rows)
        except CliError:
            raise
        except Exception as exc:
            raise Unreadable(f"cannot read {self.path!r}: {exc}") from exc
        return {n: _concat(p) for n, p in parts.items()}


class CsvTable(Table):
    fmt = "csv"

    def __init__(self, path):
        super().__init__(path)
        self.delimiter = "\t" if path.lower().endswith(".tsv") else ","
        try:
            with open(path, newline="", encoding="utf-8") as f:
                header = next(csv.reader(f, delimiter=self.delimiter), None)
        except (OSError, UnicodeDecodeError) as exc:
            raise Unreadable(f"cannot read {path!r}: {exc}") from exc
        if not header:
            raise Unreadable(f"cannot read {path!r}: empty file (a header row is needed)")
        self.columns = [h.strip() for h in header]
        self.size = os.path.getsize(path)

    def read(self, names, *, chunk_rows=1 << 20, progress=None):
        self.check_columns(names)
        if importlib.util.find_spec("pyarrow") is not None:
            return self._read_arrow(names, progress)
        return self._read_python(names, chunk_rows, progress)

    def _read_arrow(self, names, progress):
        import pyarrow.csv as pacsv

        parts = {n: [] for n in names}
        done = 0
        try:
            reader = pacsv.open_csv(
                self.path, read_options=pacsv.ReadOptions(block_size=1 << 24),
                parse_options=pacsv.ParseOptions(delimiter=self.delimiter),
                convert_options=pacsv.ConvertOptions(include_columns=list(dict.fromkeys(names))))
            for batch in reader:
                for n in names:
                    parts[n].append(_column_numpy(batch.column(n), n, self.path))
                done += batch.num_rows
                if progress is not None:
                    progress(done, None)
        except CliError:
            raise
        except Exception as exc:
            raise Unreadable(f"cannot parse {self.path!r} as CSV: {exc}") from exc
        return {n: _concat(p) for n, p in parts.items()}

    def _read_python(self, names, chunk_rows, progress):
        pos = [self.columns.index(n) for n in names]
        parts = {n: [] for n in names}
        rows = []
        done = 0
        try:
            with open(self.path, newline="", encoding="utf-8") as f:
                reader = csv.reader(f, delimiter=self.delimiter)
                next(reader)
                for line in reader:
                    if not line:
                        continue
                    rows.append([line[i] for i in pos])
                    if len(rows) >= chunk_rows:
                        done += _flush(rows, names, parts)
                        if progress is not None:
                            progress(done, None)
                done += _flush(rows, names, parts)
        except (OSError, UnicodeDecodeError, IndexError, csv.Error) as exc:
            raise Unreadable(f"cannot parse {self.path!r} as CSV: {exc}") from exc
        return {n: _concat(p) for n, p in parts.items()}


def _flush(rows, names, parts):
    if not rows:
        return 0
    cols = list(zip(*rows))
    for n, values in zip(names, cols):
        parts[n].append(_parse_column(values))
    k = len(rows)
    rows.clear()
    return k


def _parse_column(values):
    for dtype in (np.int64, np.float64):
        try:
            return np.asarray(values, dtype=dtype)
        except ValueError:
            continue
    return np.asarray(values, dtype=object)


def _concat(parts):
    if not parts:
        return np.empty(0)
    if len(parts) == 1:
        return parts[0]
    kinds = {p.dtype.kind for p in parts}
    if len(kinds) > 1 and ("O" in kinds or "U" in kinds):
        parts = [p.astype(object) for p in parts]
    return np.concatenate(parts)


class NpzTable(Table):
    """``.npz``: each array is a column (a 2-D array is a block of columns)."""

    fmt = "npz"

    def __init__(self, path):
        super().__init__(path)
        try:
            self.npz = np.load(path, allow_pickle=False)
            self.columns = list(self.npz.files)
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise Unreadable(f"cannot read {path!r} as .npz: {exc}") from exc
        if self.columns:
            try:
                self.num_rows = int(self.npz[self.columns[0]].shape[0])
            except Exception:
                self.num_rows = None

    def read(self, names, *, chunk_rows=1 << 20, progress=None):
        self.check_columns(names)
        out = {}
        try:
            for n in names:
                out[n] = np.asarray(self.npz[n])
        except Exception as exc:
            raise Unreadable(f"cannot read {self.path!r}: {exc}") from exc
        if progress is not None:
            progress(self.num_rows or 0, self.num_rows)
        return out
