"""Opening data files for the command line: CSV/TSV (optionally gzip), .npy, .npz, Parquet.

:func:`open_table` gives a :class:`Table` whose columns are read when first
asked for (:meth:`Table.load`); :mod:`pranker.cli.columns` chooses the
columns and turns them into scores and labels.

Files are data, never code: ``.npy``/``.npz`` are loaded with
``allow_pickle=False``, so a pickled file is refused, not executed.

Readers (fastest available first), measured on a 2-column CSV of 2e6 rows
(42 MB) on the 2-core development machine:

============================  =========
``pyarrow.csv.read_csv``      0.14 s
``pandas.read_csv`` (C)       0.15 s
``np.loadtxt`` (numpy 2 C)    1.15 s
``np.fromstring(sep=" ")``    1.0 s (+ decoding; no row numbers on errors)
============================  =========

so 1e7 rows take about 0.7 s with pyarrow and about 6 s on the numpy-only
fallback. pyarrow is used when installed; otherwise numpy's C text reader
(``np.loadtxt``, rewritten in C in numpy 1.23 and faster than the
``fromstring`` route, which also cannot say where a bad value is).

Every error is a :class:`UserError` whose message says what is wrong, where
(column names found, the line of a bad value), and what to do.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import math
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._progress import progress_bar
from .errors import UserError

STDIN = "-"  # the file name that means standard input
STDIN_NAME = "<stdin>"  # how standard input is named in messages and outputs

KIND_NAMES = {
    "text": "CSV/TSV text",
    "npy": "a NumPy .npy file",
    "npz": "a NumPy .npz archive",
    "parquet": "Parquet",
}


@dataclass
class Table:
    """Columns of a data file, loaded lazily by name."""

    path: str  # the file name, or STDIN_NAME
    names: list
    kind: str  # "text", "npy", "npz", "parquet"
    header: bool = False
    data: bytes | None = None  # the text itself when read from standard input
    progress: bool = False  # a progress bar while reading a large text file
    _loader: object = None
    _cache: dict = field(default_factory=dict)

    def where(self, i: int) -> str:
        """Human description of data row ``i`` (0-based)."""
        if self.kind == "text":
            return f"line {i + 1 + int(self.header)} of {self.path}"
        return f"row {i} (0-based) of {self.path}"

    def load(self, names):
        missing = [n for n in names if n not in self._cache]
        if missing:
            try:
                self._cache.update(self._loader(missing))
            except UserError:
                raise
            except Exception as exc:  # a damaged file fails in many ways in many libraries
                raise damaged(self.path, self.kind, exc) from None
        return [self._cache[n] for n in names]


def _detail(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if not text:
        return type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def damaged(path: str, kind: str, exc: BaseException) -> UserError:
    """The one-sentence error for a file that a reader could not parse."""
    what = KIND_NAMES.get(kind, kind)
    if isinstance(exc, MemoryError):
        return UserError(
            f"not enough memory to read {path} as {what}; if the file is not that large, "
            "its header is damaged: check it, or write or download it again."
        )
    if isinstance(exc, UnicodeDecodeError):
        return UserError(
            f"{path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position "
            f"{exc.start:,}); save it as UTF-8 CSV/TSV, or check that it is not damaged."
        )
    return UserError(
        f"cannot read {path} as {what}: the file is damaged or truncated "
        f"({_detail(exc)}); check it, or write or download it again."
    )


# --- opening files -----------------------------------------------------------


def open_table(
    path: str,
    *,
    sep: str | None = None,
    header: str = "auto",
    engine: str = "auto",
    progress: bool = False,
) -> Table:
    """Open a data file by extension: CSV/TSV (optionally .gz), .npy, .npz, .parquet.

    ``path`` ``"-"`` reads CSV/TSV text (optionally gzip-compressed) from
    standard input. Every failure is a :class:`UserError`. With ``progress``,
    reading a text file large enough to take seconds shows a bar on stderr.
    """
    if path == STDIN:
        return _open_stdin(sep, header, engine)
    if not os.path.exists(path):
        raise UserError(f"file not found: {path}")
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a data file.")
    low = path.lower()
    if low.endswith(".npy"):
        kind, opener = "npy", _open_npy
    elif low.endswith(".npz"):
        kind, opener = "npz", _open_npz
    elif low.endswith((".parquet", ".pq")):
        kind, opener = "parquet", _open_parquet
    else:
        table = _guarded(path, "text", _open_text, path, sep, header, engine)
        table.progress = bool(progress)
        return table
    return _guarded(path, kind, opener, path)


def _guarded(path, kind, fn, *args):
    try:
        return fn(*args)
    except UserError:
        raise
    except Exception as exc:  # a damaged file fails in many ways in many libraries
        raise damaged(path, kind, exc) from None


_BINARY_MAGIC = {b"\x93NUMPY": ".npy", b"PK\x03\x04": ".npz", b"PAR1": "Parquet"}


def _open_stdin(sep, header: str, engine: str) -> Table:
    stream = getattr(sys.stdin, "buffer", None)
    try:
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read standard input: {_detail(exc)}.") from None
    for magic, what in _BINARY_MAGIC.items():
        if data.startswith(magic):
            raise UserError(
                f"standard input holds {what} data; binary formats (.npy, .npz, Parquet) "
                "need a file: save it and give the file name instead of -."
            )
    if data.startswith(b"\x1f\x8b"):
        try:
            data = gzip.decompress(data)
        except Exception as exc:
            raise damaged(STDIN_NAME, "gzip-compressed text", exc) from None
    return _guarded(STDIN_NAME, "text", _open_text, STDIN_NAME, sep, header, engine, data)


def _pickle_refusal(path: str) -> UserError:
    return UserError(
        f"{path} holds pickled Python objects; pranker reads data only and will not "
        "unpickle it (unpickling can run arbitrary code). Save plain numeric arrays "
        "instead, e.g. np.save(path, np.asarray(x, dtype=float))."
    )


def _np_load(path: str):
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise _pickle_refusal(path) from None
        raise


def _check_npy_header(fh, available: int, path: str, what: str) -> None:
    """Read an .npy header from ``fh`` and check it against the ``available`` bytes.

    Refuses object arrays (pickles) and headers whose shape and dtype do not
    match the bytes present, so a damaged header can neither make numpy
    allocate a huge array nor silently drop rows. Files that do not start
    like an .npy file are left to ``np.load`` (which refuses pickles).
    """
    from numpy.lib import format as npformat

    try:
        version = npformat.read_magic(fh)
    except ValueError:
        return
    if version == (1, 0):
        shape, _, dtype = npformat.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _, dtype = npformat.read_array_header_2_0(fh)
    else:
        return
    if dtype.hasobject:
        raise _pickle_refusal(path)
    expected = math.prod(shape) * dtype.itemsize
    have = available - fh.tell()
    if have != expected:
        raise UserError(
            f"{what} is damaged or truncated: its header declares an array of shape "
            f"{shape} and dtype {dtype} ({expected:,} bytes) but {max(have, 0):,} bytes "
            "follow; check it, or write it again."
        )


def _columns_of_array(path: str, arr: np.ndarray, prefix: str = ""):
    if arr.dtype.names:
        if arr.ndim != 1:
            raise UserError(f"{path}: a structured array must be 1-D; got shape {arr.shape}.")
        return {prefix + n: arr[n] for n in arr.dtype.names}
    if arr.dtype.hasobject:
        raise _pickle_refusal(path)
    if arr.ndim == 1:
        return {prefix + "0": arr}
    if arr.ndim == 2:
        return {prefix + str(j): arr[:, j] for j in range(arr.shape[1])}
    raise UserError(
        f"{path}: expected a 2-D array (rows x columns) or a structured array; "
        f"got shape {arr.shape}."
    )


def _open_npy(path: str) -> Table:
    with open(path, "rb") as fh:
        _check_npy_header(fh, os.path.getsize(path), path, path)
    arr = _np_load(path)
    if not isinstance(arr, np.ndarray):
        raise UserError(
            f"{path} is not an .npy file (it looks like an .npz archive); rename it to .npz."
        )
    cols = _columns_of_array(path, arr)
    if arr.size == 0:
        raise UserError(f"{path} is empty: no rows to score.")
    return Table(path, list(cols), "npy", _loader=lambda names: {n: cols[n] for n in names})


def _open_npz(path: str) -> Table:
    import zipfile

    if not zipfile.is_zipfile(path):
        raise UserError(
            f"{path} is not an .npz archive (no zip directory found); if it "
            "should be one, it is damaged or truncated: write it again."
        )
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            with zf.open(info) as fh:
                _check_npy_header(fh, info.file_size, path, f"array {info.filename!r} in {path}")
    npz = _np_load(path)
    if not hasattr(npz, "files"):
        raise UserError(f"{path} is not an .npz archive.")
    cols = {}
    try:
        entries = {k: npz[k] for k in npz.files}
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise _pickle_refusal(path) from None
        raise
    finally:
        npz.close()
    if not entries:
        raise UserError(f"{path} is empty: the archive holds no arrays.")
    for k, arr in entries.items():
        if not isinstance(arr, np.ndarray):
            raise UserError(
                f"{path}: member {k!r} is not a NumPy array; an .npz holds "
                "arrays saved by np.savez."
            )
    if len(entries) == 1:
        (arr,) = entries.values()
        cols = _columns_of_array(path, arr)
    else:
        for k, arr in entries.items():
            if arr.dtype.hasobject:
                raise _pickle_refusal(path)
            if arr.ndim != 1:
                raise UserError(
                    f"{path}: array {k!r} has shape {arr.shape}; with several arrays in an "
                    ".npz each must be a 1-D column."
                )
            cols[k] = arr
        lengths = {k: a.shape[0] for k, a in cols.items()}
        if len(set(lengths.values())) > 1:
            raise UserError(f"{path}: the arrays have different lengths: {lengths}.")
    if not cols or next(iter(cols.values())).size == 0:
        raise UserError(f"{path} is empty: no rows to score.")
    return Table(path, list(cols), "npz", _loader=lambda names: {n: cols[n] for n in names})


def _open_parquet(path: str) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UserError(
            "reading Parquet needs pyarrow: pip install pyarrow (or pranker[dask])."
        ) from None
    pf = pq.ParquetFile(path)
    names = list(pf.schema_arrow.names)
    if pf.metadata.num_rows == 0:
        raise UserError(f"{path} is empty: no rows to score.")

    def loader(wanted):
        t = pf.read(columns=list(wanted))
        if t.num_rows != pf.metadata.num_rows:
            raise ValueError(f"{t.num_rows} rows read, {pf.metadata.num_rows} declared")
        return {n: t.column(n) for n in wanted}

    return Table(path, names, "parquet", _loader=loader)


def _first_line(path: str, data: bytes | None) -> str:
    if data is not None:
        for line in data.decode("utf-8-sig").splitlines():
            if line.strip():
                return line
        raise UserError(f"{path} is empty: no rows to score.")
    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
        for line in fh:
            if line.strip():
                return line.rstrip("\r\n")
    raise UserError(f"{path} is empty: no rows to score.")


def _looks_numeric(field_: str) -> bool:
    try:
        float(field_)
        return True
    except ValueError:
        return False


def _sniff_separator(first: str, low: str) -> str:
    """The extension's separator if the first line has it, else tab, comma, semicolon."""
    preferred = "\t" if low.endswith((".tsv", ".tab")) else ","
    for sep in (preferred, "\t", ",", ";", "|"):
        if sep in first:
            return sep
    return preferred


def _open_text(path: str, sep, header: str, engine: str, data: bytes | None = None) -> Table:
    low = path.lower().removesuffix(".gz")
    first = _first_line(path, data)
    if sep is None:
        sep = _sniff_separator(first, low)
    fields = [f.strip() for f in first.split(sep)]
    if header == "auto":
        has_header = not all(_looks_numeric(f) for f in fields)
    else:
        has_header = header == "yes"
    if has_header:
        names = [f.strip('"') for f in fields]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise UserError(f"{path}: duplicate column names in the header: {dup}.")
    else:
        names = [str(j) for j in range(len(fields))]
    if engine == "auto":
        try:
            import pyarrow.csv  # noqa: F401

            engine = "pyarrow"
        except ImportError:
            engine = "numpy"
    table = Table(path, names, "text", header=has_header, data=data)
    if engine == "pyarrow":
        table._loader = lambda wanted: _read_pyarrow(table, sep, wanted)
    elif engine == "numpy":
        table._loader = lambda wanted: _read_numpy(table, sep, wanted)
    else:
        raise UserError(f"unknown reader {engine!r}; use auto, pyarrow or numpy.")
    return table


# --- a progress bar while a large text file is read ---------------------------

# Text files larger than this (bytes on disk; gzip counts 4x) show a progress bar
# while read: about 2 s or more on a busy 2-core machine for each reader.
BAR_BYTES = {"pyarrow": 64 * 2**20, "numpy": 32 * 2**20}


def _wants_bar(table: Table, engine: str) -> bool:
    """Whether reading ``table`` with ``engine`` shows a bar: asked for (the command
    line allows that only with tqdm installed), a file rather than standard input,
    and a file large enough to take seconds."""
    if not table.progress or table.data is not None:
        return False
    weight = 4 if table.path.lower().endswith(".gz") else 1
    return os.path.getsize(table.path) * weight >= BAR_BYTES[engine]


def _reading_bar(total: int | None, desc: str, **display):
    """A :func:`~pranker._progress.progress_bar` on stderr with tqdm's ``display``
    options (such as ``unit``, ``unit_scale``, ``bar_format``)."""
    return progress_bar(total, desc, True, **display)


class _CountingReader(io.RawIOBase):
    """A binary file that advances a progress bar by the bytes read from it."""

    def __init__(self, raw, bar):
        self._raw, self._bar = raw, bar

    def readable(self) -> bool:  # io.BufferedReader reads only a readable raw file
        return True

    def readinto(self, b) -> int:
        n = self._raw.readinto(b)
        if n:
            self._bar.update(n)
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def _open_with_bar(table: Table):
    """(binary file, bar) for reading ``table.path`` with a byte progress bar, or
    (None, None) when no bar is wanted (disabled, standard input, small file)."""
    if not _wants_bar(table, "pyarrow"):
        return None, None
    size = os.path.getsize(table.path)
    desc = f"reading {os.path.basename(table.path)}"
    bar = _reading_bar(size, desc, unit="B", unit_scale=True)
    return io.BufferedReader(_CountingReader(open(table.path, "rb"), bar), 2**20), bar


@contextlib.contextmanager
def _elapsed_bar(table: Table):
    """A bar that shows the time spent so far while the block runs (for numpy's reader,
    which reads a path itself: wrapping the file would make it parse line by line,
    1.6x slower)."""
    if not _wants_bar(table, "numpy"):
        yield
        return
    desc = (
        f"reading {os.path.basename(table.path)} (numpy's reader; "
        "pip install pyarrow to read faster)"
    )
    bar = _reading_bar(None, desc, bar_format="{desc} {elapsed}")
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(0.5):
            bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        bar.close()


def _read_pyarrow(table: Table, sep: str, wanted):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    source = table.path if table.data is None else pa.BufferReader(table.data)
    fh, bar = _open_with_bar(table)
    if fh is not None:
        gz = table.path.lower().endswith(".gz")
        source = pa.input_stream(fh, compression="gzip" if gz else None)
    ro = pacsv.ReadOptions(column_names=table.names, skip_rows=int(table.header))
    po = pacsv.ParseOptions(delimiter=sep)
    co = pacsv.ConvertOptions(include_columns=list(wanted))
    try:
        t = pacsv.read_csv(source, read_options=ro, parse_options=po, convert_options=co)
    except pa.ArrowInvalid as exc:
        raise UserError(
            f"cannot parse {table.path} as CSV/TSV: {_detail(exc)}. Fix that line, or give "
            "--sep and --header if they were guessed wrong."
        ) from None
    finally:
        if fh is not None:
            bar.close()
            fh.close()
    if t.num_rows == 0:
        raise UserError(f"{table.path} is empty: it has a header but no data rows.")
    return {n: t.column(n) for n in wanted}


def _read_numpy(table: Table, sep: str, wanted):
    idx = [table.names.index(n) for n in wanted]
    source: str | io.TextIOWrapper = table.path
    if table.data is not None:
        source = io.TextIOWrapper(io.BytesIO(table.data), encoding="utf-8-sig")
    try:
        with _elapsed_bar(table), warnings.catch_warnings():  # "no data": said below
            warnings.simplefilter("ignore", UserWarning)
            arr = np.loadtxt(
                source,
                delimiter=sep,
                skiprows=int(table.header),
                usecols=idx,
                dtype=np.float64,
                ndmin=2,
                encoding="utf-8-sig",
            )
    except UnicodeDecodeError:
        raise
    except ValueError as exc:
        # numpy: "could not convert string 'abc' to float64 at row 2, column 1."
        # (row: 0-based among the rows read, column: 1-based among usecols)
        m = re.search(r"string (.*) to \w+ at row (\d+), column (\d+)", str(exc))
        if m is None:
            raise UserError(
                f"cannot parse {table.path} as CSV/TSV: {_detail(exc)}. Fix that line, or "
                "give --sep and --header if they were guessed wrong."
            ) from None
        value, row, col = m.group(1), int(m.group(2)), int(m.group(3))
        raise UserError(
            f"column {wanted[col - 1]!r} has a non-numeric value {value} at "
            f"{table.where(row)}. Fix or remove it (text labels need pyarrow and --positive)."
        ) from None
    if arr.shape[0] == 0:
        raise UserError(f"{table.path} is empty: no data rows.")
    return {n: arr[:, j] for j, n in enumerate(wanted)}
