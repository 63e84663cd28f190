"""Readers for ``metrix eval``: CSV, Parquet and ``.npz``, chunk by chunk.

Only the requested columns are read, in chunks (Parquet row groups, CSV
blocks), so memory holds the columns the metrics need, never the whole file.
Parquet needs pyarrow (``metrix[parquet]``); CSV uses pyarrow's streaming
reader when it is installed and the standard ``csv`` module otherwise.

Missing values are refused (exit 6) with a count per column: nulls, NaN, and
blank or whitespace-only cells, in numeric and text columns alike.
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

    def read(self, names, *, chunk_rows=1 << 20, progress=None):
        """``{name: numpy array}`` of the requested columns, none with missing values."""
        check_columns(self.columns, names, self.path)
        out = self._read(names, chunk_rows, progress)
        bad = {n: k for n, k in ((n, count_missing(a)) for n, a in out.items()) if k}
        if len(bad) == 1:
            (n, k), = bad.items()
            raise BadData(f"column {n!r} of {self.path!r} has {k:,} missing "
                          f"value{'s' if k > 1 else ''} "
                          "(null, NaN or blank cells)")
        if bad:
            each = ", ".join(f"{n!r} ({k:,})" for n, k in bad.items())
            raise BadData(f"columns {each} of {self.path!r} have missing values "
                          "(null, NaN or blank cells)")
        for n, a in out.items():
            check_finite(n, a, self.path)
        return out

    def _read(self, names, chunk_rows, progress):
        raise NotImplementedError


def check_columns(columns, names, source):
    """Exit 5 when one of ``names`` is not among the ``columns`` of ``source``."""
    missing = [c for c in names if c not in columns]
    if missing:
        shown = ", ".join(columns[:20]) + (" ..." if len(columns) > 20 else "")
        raise MissingColumn(f"column(s) {', '.join(map(repr, missing))} not found in "
                            f"{source!r}; available: {shown}")


def count_missing(a) -> int:
    """Cells of ``a`` that are missing: NaN, None, or a blank / whitespace-only string."""
    a = np.asarray(a)
    if a.dtype.kind in "fc":
        return int(np.count_nonzero(np.isnan(a)))
    if a.dtype.kind in "US":
        return int(np.count_nonzero(np.char.str_len(np.char.strip(a)) == 0))
    if a.dtype.kind == "O":
        return sum(1 for v in a.ravel().tolist() if _missing_object(v))
    return 0


def all_zero_weights(name):
    """The bad data of a weight column of zeros only (exit 6, read whole or in batches)."""
    return BadData(f"--sample-weight column {name!r} is all zeros: no sample counts")


def check_finite(name, a, path):
    """Bad data (exit 6), as a missing value is: an infinite number in a column,
    whether the file is read whole or in batches."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        k = int(np.count_nonzero(np.isinf(a)))
        if k:
            raise BadData(f"column {name!r} of {path!r} has {k:,} infinite "
                          f"value{'s' if k > 1 else ''}")


def _missing_object(v):
    if v is None:
        return True
    if isinstance(v, str):
        return not v.strip()
    if isinstance(v, float):
        return v != v
    return False


#: Arrow's fixed-width numeric types, read as NumPy views of their data buffer
_NUMPY_OF_ARROW = {t: np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8",
                                            "uint16", "uint32", "uint64")}
_NUMPY_OF_ARROW.update({"float": np.dtype("float32"), "double": np.dtype("float64")})


def column_numpy(col):
    """A pyarrow column as one NumPy array: numeric chunks without nulls as views of
    their buffers (pyarrow's ``to_numpy`` imports pandas, ~0.2 s), the others
    through ``to_numpy`` (nulls: None or NaN, counted by ``read``)."""
    chunks = [_chunk_numpy(c) for c in getattr(col, "chunks", [col])]  # or one Array
    if len(chunks) == 1:
        return chunks[0]
    if not chunks:
        return col.to_numpy(zero_copy_only=False)
    return np.concatenate(chunks)


def _chunk_numpy(chunk):
    dt = _NUMPY_OF_ARROW.get(str(chunk.type))
    if dt is None or chunk.null_count:
        return chunk.to_numpy(zero_copy_only=False)
    return np.frombuffer(chunk.buffers()[1], dtype=dt, count=len(chunk),
                         offset=chunk.offset * dt.itemsize)


def _conversion_error(exc, path):
    """pyarrow's CSV type error (a later block holds text in a numeric column)."""
    text = str(exc)
    if "conversion error" in text:
        return BadData(f"{path!r} mixes numbers and text in one column: {text}")
    return Unreadable(f"cannot parse {path!r} as CSV: {text}")


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

    def _read(self, names, chunk_rows, progress):
        # numbers are copied into arrays of the file's length as the row groups come
        # (the peak holds the columns once, plus one row group); text is joined after
        parts = {n: [] for n in names}
        filled = {}
        done = 0
        try:
            for g in range(self.file.num_row_groups):  # one row group at a time
                tab = self.file.read_row_group(g, columns=list(dict.fromkeys(names)))
                k = tab.num_rows
                for n in names:
                    a = column_numpy(tab.column(n))
                    if g == 0 and a.dtype.kind in "biuf" and a.ndim == 1:
                        filled[n] = np.empty(self.num_rows, dtype=a.dtype)
                    if n in filled and a.dtype == filled[n].dtype:
                        filled[n][done:done + k] = a
                    else:
                        if n in filled:  # another dtype in a later row group (nulls)
                            parts[n].append(filled.pop(n)[:done])
                        parts[n].append(a)
                done += k
                if progress is not None:
                    progress(done, self.num_rows)
        except CliError:
            raise
        except Exception as exc:
            raise Unreadable(f"cannot read {self.path!r}: {exc}") from exc
        out = _concat_columns({n: p for n, p in parts.items() if n not in filled}, self.path)
        return {n: filled[n] if n in filled else out[n] for n in names}


def csv_header(path, delimiter):
    """The column names of a CSV file: spaces around a name and a UTF-8 byte-order
    mark (as spreadsheets write) are not part of it."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            header = next(csv.reader(f, delimiter=delimiter), None)
    except (OSError, UnicodeDecodeError) as exc:
        raise Unreadable(f"cannot read {path!r}: {exc}") from exc
    if not header:
        raise Unreadable(f"cannot read {path!r}: empty file (a header row is needed)")
    return [h.strip() for h in header]


def open_arrow_csv(path, delimiter, header, names, **read_options):
    """pyarrow's streaming CSV reader of the columns ``names``, under the names of
    :func:`csv_header` (the file's header row is skipped, not parsed again)."""
    import pyarrow.csv as pacsv

    return pacsv.open_csv(
        path, read_options=pacsv.ReadOptions(column_names=header, skip_rows=1, **read_options),
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(include_columns=list(dict.fromkeys(names))))


class CsvTable(Table):
    fmt = "csv"

    def __init__(self, path):
        super().__init__(path)
        self.delimiter = "\t" if path.lower().endswith(".tsv") else ","
        self.columns = csv_header(path, self.delimiter)
        self.size = os.path.getsize(path)

    def _read(self, names, chunk_rows, progress):
        if importlib.util.find_spec("pyarrow") is not None:
            return self._read_arrow(names, progress)
        return self._read_python(names, chunk_rows, progress)

    def _read_arrow(self, names, progress):
        parts = {n: [] for n in names}
        done = 0
        try:
            reader = open_arrow_csv(self.path, self.delimiter, self.columns, names,
                                    block_size=1 << 24)
            for batch in reader:
                for n in names:
                    parts[n].append(column_numpy(batch.column(n)))
                done += batch.num_rows
                if progress is not None:
                    progress(done, None)
        except CliError:
            raise
        except Exception as exc:
            raise _conversion_error(exc, self.path) from exc
        return _concat_columns(parts, self.path)

    def _read_python(self, names, chunk_rows, progress):
        pos = [self.columns.index(n) for n in names]
        parts = {n: [] for n in names}
        rows = []
        done = 0
        try:
            with open(self.path, newline="", encoding="utf-8-sig") as f:
                reader = csv.reader(f, delimiter=self.delimiter)
                next(reader)
                for line in reader:
                    if not line:
                        continue
                    if len(line) < len(self.columns):
                        raise Unreadable(f"cannot parse {self.path!r} as CSV: a row has "
                                         f"{len(line)} fields, the header {len(self.columns)}")
                    rows.append([line[i] for i in pos])
                    if len(rows) >= chunk_rows:
                        done += _flush(rows, names, parts)
                        if progress is not None:
                            progress(done, None)
                done += _flush(rows, names, parts)
        except (OSError, UnicodeDecodeError, IndexError, csv.Error) as exc:
            raise Unreadable(f"cannot parse {self.path!r} as CSV: {exc}") from exc
        return _concat_columns(parts, self.path)


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
    if any(not v.strip() for v in values):  # blank cells: missing, counted by read()
        try:
            return np.asarray([v if v.strip() else "nan" for v in values], dtype=np.float64)
        except ValueError:
            return np.asarray(values, dtype=object)
    for dtype in (np.int64, np.float64):
        try:
            return np.asarray(values, dtype=dtype)
        except ValueError:
            continue
    return np.asarray(values, dtype=object)


def _concat_columns(parts, path):
    """Each column's chunks as one array, freeing the chunks column by column (the
    peak holds one column twice, not the whole table)."""
    return {n: _concat(parts.pop(n), n, path) for n in list(parts)}


def _concat(parts, name, path):
    if not parts:
        return np.empty(0)
    if len(parts) == 1:
        return parts[0]
    text = {p.dtype.kind in "OUS" for p in parts}
    if len(text) > 1:
        raise BadData(f"column {name!r} of {path!r} mixes numbers and text")
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

    def _read(self, names, chunk_rows, progress):
        try:
            out = {n: np.asarray(self.npz[n]) for n in names}
        except Exception as exc:
            raise Unreadable(f"cannot read {self.path!r}: {exc}") from exc
        if progress is not None:
            progress(self.num_rows or 0, self.num_rows)
        return out
