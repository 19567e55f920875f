"""Reading score/label columns from files for the command line.

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

import gzip
import os
import re
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .errors import UserError

SCORE_NAMES = ("score", "scores", "prediction")
LABEL_NAMES = ("label", "labels", "y", "truth")


@dataclass
class Table:
    """Columns of a data file, loaded lazily by name."""

    path: str
    names: list
    kind: str  # "text", "npy", "npz", "parquet"
    header: bool = False
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
            self._cache.update(self._loader(missing))
        return [self._cache[n] for n in names]


# --- column selection --------------------------------------------------------


def resolve_column(table: Table, spec: str, role: str) -> str:
    """A column given by header name or 0-based index -> its name."""
    if spec in table.names:
        return spec
    lowered = [n.lower() for n in table.names]
    if lowered.count(spec.lower()) == 1:
        return table.names[lowered.index(spec.lower())]
    try:
        idx = int(spec)
    except ValueError:
        idx = None
    if idx is not None and 0 <= idx < len(table.names):
        return table.names[idx]
    raise UserError(
        f"{role} column {spec!r} not found in {table.path}. Columns found "
        f"({len(table.names)}): {_list_names(table.names)}. Give a header name or a "
        "0-based index."
    )


def _list_names(names, limit: int = 30) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def default_columns(table: Table, score_specs, label_spec):
    """Score column names and the label column name, with the default name rules.

    A role not given explicitly takes the column named (case-insensitively)
    score/scores/prediction or label/labels/y/truth; failing that, the first
    column not already used (scores before labels), i.e. the first two columns.
    """
    lowered = {n.lower(): n for n in table.names}
    label = resolve_column(table, label_spec, "label") if label_spec is not None else None
    scores = [resolve_column(table, s, "score") for s in score_specs] if score_specs else None
    if label is None:
        label = next((lowered[k] for k in LABEL_NAMES if k in lowered), None)
    if scores is None:
        named = next((lowered[k] for k in SCORE_NAMES if k in lowered), None)
        if named is not None and named != label:
            scores = [named]
    used = set(scores or []) | ({label} if label else set())
    free = [n for n in table.names if n not in used]
    if scores is None:
        if not free:
            raise UserError(_too_few(table))
        scores = [free.pop(0)]
    if label is None:
        if not free:
            raise UserError(_too_few(table))
        label = free.pop(0)
    if label in scores:
        raise UserError(f"column {label!r} is used both as scores and as labels.")
    return scores, label


def _too_few(table: Table) -> str:
    return (
        f"{table.path} needs a score column and a label column; columns found "
        f"({len(table.names)}): {_list_names(table.names)}."
    )


# --- writing outputs ----------------------------------------------------------


def check_writable(path: str, force: bool) -> None:
    """Refuse an output path that is a folder, exists (without ``force``) or has no folder."""
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory; give a file name.")
    if os.path.exists(path) and not force:
        raise UserError(f"{path} exists; refusing to overwrite it (use --force).")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"folder {folder} does not exist.")


def atomic_write(path: str, write) -> None:
    """Call ``write(tmp_path)`` then rename onto ``path``; no partial file on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# --- opening files -----------------------------------------------------------


def open_table(path: str, *, sep: str | None = None, header: str = "auto",
               engine: str = "auto") -> Table:
    """Open a data file by extension: CSV/TSV (optionally .gz), .npy, .npz, .parquet."""
    if not os.path.exists(path):
        raise UserError(f"file not found: {path}")
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a data file.")
    low = path.lower()
    if low.endswith(".npy"):
        return _open_npy(path)
    if low.endswith(".npz"):
        return _open_npz(path)
    if low.endswith((".parquet", ".pq")):
        return _open_parquet(path)
    return _open_text(path, sep, header, engine)


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
        raise UserError(f"cannot read {path} as a NumPy file: {exc}") from None
    except (OSError, EOFError) as exc:
        raise UserError(f"cannot read {path} as a NumPy file: {exc}") from None


def _columns_of_array(path: str, arr: np.ndarray, prefix: str = ""):
    if arr.dtype.names:
        if arr.ndim != 1:
            raise UserError(f"{path}: a structured array must be 1-D; got shape {arr.shape}.")
        return {prefix + n: arr[n] for n in arr.dtype.names}
    if arr.dtype == object:
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
    arr = _np_load(path)
    cols = _columns_of_array(path, arr)
    if arr.size == 0:
        raise UserError(f"{path} is empty: no rows to score.")
    return Table(path, list(cols), "npy", _loader=lambda names: {n: cols[n] for n in names})


def _open_npz(path: str) -> Table:
    npz = _np_load(path)
    if not hasattr(npz, "files"):
        raise UserError(f"{path} is not an .npz archive.")
    cols = {}
    try:
        entries = {k: npz[k] for k in npz.files}
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise _pickle_refusal(path) from None
        raise UserError(f"cannot read {path}: {exc}") from None
    finally:
        npz.close()
    if not entries:
        raise UserError(f"{path} is empty: the archive holds no arrays.")
    if len(entries) == 1:
        (arr,) = entries.values()
        cols = _columns_of_array(path, arr)
    else:
        for k, arr in entries.items():
            if arr.dtype == object:
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
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise UserError(f"cannot read {path} as Parquet: {exc}") from None
    names = list(pf.schema_arrow.names)
    if pf.metadata.num_rows == 0:
        raise UserError(f"{path} is empty: no rows to score.")

    def loader(wanted):
        t = pf.read(columns=list(wanted))
        return {n: t.column(n) for n in wanted}

    return Table(path, names, "parquet", _loader=loader)


def _first_line(path: str) -> str:
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            for line in fh:
                if line.strip():
                    return line.rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path} as text (CSV/TSV): {exc}") from None
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


def _open_text(path: str, sep, header: str, engine: str) -> Table:
    low = path.lower().removesuffix(".gz")
    first = _first_line(path)
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
    table = Table(path, names, "text", header=has_header)
    if engine == "pyarrow":
        table._loader = lambda wanted: _read_pyarrow(table, sep, wanted)
    elif engine == "numpy":
        table._loader = lambda wanted: _read_numpy(table, sep, wanted)
    else:
        raise UserError(f"unknown reader {engine!r}; use auto, pyarrow or numpy.")
    return table


def _read_pyarrow(table: Table, sep: str, wanted):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    ro = pacsv.ReadOptions(column_names=table.names, skip_rows=int(table.header))
    po = pacsv.ParseOptions(delimiter=sep)
    co = pacsv.ConvertOptions(include_columns=list(wanted))
    try:
        t = pacsv.read_csv(table.path, read_options=ro, parse_options=po, convert_options=co)
    except pa.ArrowInvalid as exc:
        raise UserError(f"cannot parse {table.path}: {exc}") from None
    if t.num_rows == 0:
        raise UserError(f"{table.path} is empty: it has a header but no data rows.")
    return {n: t.column(n) for n in wanted}


def _read_numpy(table: Table, sep: str, wanted):
    idx = [table.names.index(n) for n in wanted]
    try:
        arr = np.loadtxt(table.path, delimiter=sep, skiprows=int(table.header), usecols=idx,
                         dtype=np.float64, ndmin=2, encoding="utf-8-sig")
    except ValueError as exc:
        # numpy: "could not convert string 'abc' to float64 at row 2, column 1."
        # (row: 0-based among the rows read, column: 1-based among usecols)
        m = re.search(r"string (.*) to \w+ at row (\d+), column (\d+)", str(exc))
        if m is None:
            raise UserError(f"cannot parse {table.path}: {exc}") from None
        value, row, col = m.group(1), int(m.group(2)), int(m.group(3))
        raise UserError(
            f"column {wanted[col - 1]!r} has a non-numeric value {value} at "
            f"{table.where(row)}. Fix or remove it (text labels need pyarrow and --positive)."
        ) from None
    if arr.shape[0] == 0:
        raise UserError(f"{table.path} is empty: no data rows.")
    return {n: arr[:, j] for j, n in enumerate(wanted)}


# --- conversion and checks ----------------------------------------------------


def _is_arrow(col) -> bool:
    return type(col).__module__.startswith("pyarrow")


def _arrow_first_null(col) -> int | None:
    if col.null_count == 0:
        return None
    mask = col.is_null().to_numpy(zero_copy_only=False)
    return int(np.flatnonzero(mask)[0])


def to_scores(table: Table, name: str) -> np.ndarray:
    """A score column as float64, refusing missing, NaN and non-numeric values."""
    (col,) = table.load([name])
    if _is_arrow(col):
        import pyarrow as pa

        i = _arrow_first_null(col)
        if i is not None:
            raise UserError(
                f"score column {name!r} has {col.null_count} missing value(s) (empty, NA or "
                f"NaN); the first is at {table.where(i)}. Remove or impute them."
            )
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            values = col.to_numpy(zero_copy_only=False)
            for i, v in enumerate(values):
                try:
                    float(v)
                except ValueError:
                    raise UserError(
                        f"score column {name!r} has a non-numeric value {v!r} at "
                        f"{table.where(i)}."
                    ) from None
            arr = values.astype(np.float64)
        elif pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or \
                pa.types.is_boolean(col.type):
            arr = col.to_numpy().astype(np.float64, copy=False)
        else:
            raise UserError(f"score column {name!r} has type {col.type}, not numbers.")
    else:
        arr = np.asarray(col)
        if arr.dtype.kind not in "biuf":
            raise UserError(f"score column {name!r} has dtype {arr.dtype}, not numbers.")
        arr = arr.astype(np.float64, copy=False)
    nan = np.isnan(arr)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise UserError(
            f"score column {name!r} has {int(nan.sum())} NaN value(s); the first is at "
            f"{table.where(i)}. Remove or impute them (+/-inf are allowed)."
        )
    return np.ascontiguousarray(arr)


def _values_found(u) -> str:
    u = list(u)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in u[:10])
    return shown + (f", ... ({len(u)} distinct values)" if len(u) > 10 else "")


def to_labels(table: Table, name: str, positive: str | None = None) -> np.ndarray:
    """A label column as bool: binary-like (0/1, -1/1, true/false) or ``== positive``."""
    (col,) = table.load([name])
    if _is_arrow(col):
        import pyarrow as pa
        import pyarrow.compute as pac

        i = _arrow_first_null(col)
        if i is not None:
            raise UserError(
                f"label column {name!r} has {col.null_count} missing value(s) (empty, NA or "
                f"NaN); the first is at {table.where(i)}."
            )
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            if positive is None:
                u = sorted(pac.unique(col).to_pylist())
                raise UserError(
                    f"label column {name!r} is not binary-like: values found: "
                    f"{_values_found(u)}. Use 0/1, -1/1 or true/false, or say which value "
                    "marks a positive with --positive VALUE."
                )
            return np.ascontiguousarray(
                pac.equal(col, positive).to_numpy(zero_copy_only=False).astype(bool))
        arr = col.to_numpy()
    else:
        arr = np.asarray(col)
        if arr.dtype.kind in "US":
            if positive is None:
                raise UserError(
                    f"label column {name!r} is not binary-like: values found: "
                    f"{_values_found(np.unique(arr))}. Use --positive VALUE."
                )
            return np.ascontiguousarray(arr.astype(str) == positive)
    if arr.dtype.kind not in "biuf":
        raise UserError(f"label column {name!r} has dtype {arr.dtype}, not labels.")
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            i = int(np.flatnonzero(nan)[0])
            raise UserError(f"label column {name!r} has NaN at {table.where(i)}.")
    if positive is not None:
        try:
            pv = float(positive)
        except ValueError:
            raise UserError(
                f"--positive {positive!r} is not a number but column {name!r} is numeric."
            ) from None
        return np.ascontiguousarray(arr == pv)
    if arr.dtype.kind == "b":
        return np.ascontiguousarray(arr)
    is01 = (arr == 0) | (arr == 1)
    if is01.all():
        return np.ascontiguousarray(arr == 1)
    if ((arr == -1) | (arr == 1)).all():
        return np.ascontiguousarray(arr == 1)
    u = np.unique(arr)
    raise UserError(
        f"label column {name!r} is not binary-like (0/1, -1/1 or true/false): values found: "
        f"{_values_found(u)}. Say which value marks a positive with --positive VALUE."
    )
