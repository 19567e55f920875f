"""Precomputed null parameter tables: ``null_params(N, P)`` over a grid, saved and reloaded.

The R package suggests precomputing the null mean and variance for the (N, P)
pairs one meets; :func:`null_params_table` does it for a whole grid at once
(a parallel numba kernel over the O(1) exact moments, the smallest AP and the
beta shapes), and :class:`NullTable` saves it as CSV or ``.npz`` and loads it
back bit for bit, so that ``pranker(scores, y, params=table.params(N, P))``
gives exactly ``pranker(scores, y)``.

Also here: :func:`parse_int_ranges`, the parser of grid specifications such as
``"1,5,10:100:10"`` (ranges include their stop, as in R and MATLAB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._docs import fill_doc
from .._files import atomic_write
from .._numba import rows as _kernels_many
from .._progress import progress_bar
from .._validation import _as_integer_array
from .moments import NullParams

__all__ = ["NullTable", "null_params_table", "load_null_params_table", "parse_int_ranges"]

COLUMNS = ("N", "P", "mean", "var", "min_auprc", "beta_alpha", "beta_beta")
_INT_COLUMNS = ("N", "P")
_MAX_N = 2**62


@fill_doc()
@dataclass(frozen=True, eq=False)
class NullTable:
    """Exact null parameters for a set of (N, P) pairs, one row per pair.

    Attributes
    ----------
    N, P : ndarray of int64
        Number of instances and of positives (1 <= P <= N), sorted by N then P.
    mean, var : ndarray of float64
        Exact mean and variance of the null AP (:func:`pranker.null_params`).
    min_auprc : ndarray of float64
        Smallest possible AP (all positives last), the left end of the beta.
    beta_alpha, beta_beta : ndarray of float64
        Shapes of the fitted beta (:func:`pranker.null.beta.beta_fit`). NaN where no
        beta exists: P = N (a point mass) and N = 2, P = 1 (a two-point null,
        whose variance is the largest possible on [min_auprc, 1]).

    Methods
    -------
    params(N, P)
        The row of (N, P) as ``NullParams``, ready for ``pranker(..., params=...)``.
    save(path, overwrite=False)
        Write a ``.csv`` or ``.npz`` file that ``load`` reads back bit for bit.
    load(path)
        Read a saved table (a class method).
    to_dict(), to_pandas()
        The columns as a dict of arrays or a ``pandas.DataFrame``.

    See Also
    --------
    null_params_table : compute a table for grids of (N, P).
    load_null_params_table : read a saved table.
    null_params : the same numbers for one pair.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    With 4 instances, one positive gives AP = 1/r for its rank r = 1..4: mean
    (1 + 1/2 + 1/3 + 1/4) / 4 = 25/48, variance 65/768, smallest value 1/4.
    Two positives give the six APs 1, 5/6, 3/4, 7/12, 1/2 and 5/12: mean
    49/72, variance 209/5184, smallest value 5/12.

    >>> t = null_params_table([4], [1, 2])
    >>> len(t), t.N.tolist(), t.P.tolist()
    (2, [4, 4], [1, 2])
    >>> t.mean.round(6).tolist(), t.var.round(6).tolist()
    ([0.520833, 0.680556], [0.084635, 0.040316])
    >>> t.min_auprc.round(4).tolist()
    [0.25, 0.4167]
    >>> mean, var = t.params(4, 2)
    >>> round(mean, 6), round(var, 6)
    (0.680556, 0.040316)
    """

    N: np.ndarray
    P: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    min_auprc: np.ndarray
    beta_alpha: np.ndarray
    beta_beta: np.ndarray

    def __len__(self) -> int:
        return int(self.N.shape[0])

    def to_dict(self) -> dict:
        """The columns as a dict of 1-D arrays."""
        return {c: getattr(self, c) for c in COLUMNS}

    def to_pandas(self):
        """A ``pandas.DataFrame`` of the table (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "to_pandas() needs pandas: pip install pandas (or pip install 'pranker[all]')."
            ) from exc
        return pd.DataFrame(self.to_dict())

    def params(self, N: int, P: int) -> NullParams:
        """The (mean, var) of pair (N, P), ready for ``pranker(..., params=...)``.

        Raises ``KeyError`` when the pair is not in the table.
        """
        n, p = int(N), int(P)
        lo = int(np.searchsorted(self.N, n, side="left"))
        hi = int(np.searchsorted(self.N, n, side="right"))
        j = lo + int(np.searchsorted(self.P[lo:hi], p))
        if j >= hi or self.P[j] != p:
            raise KeyError(f"(N={n}, P={p}) is not in this null table ({len(self)} rows).")
        return NullParams(float(self.mean[j]), float(self.var[j]))

    def save(self, path, *, overwrite: bool = False) -> Path:
        """Write the table as CSV (header row) or ``.npz``, chosen by the suffix.

        The file is written to a temporary name in the same directory and then
        moved into place, so a failure never leaves a half-written table.
        An existing file is refused unless ``overwrite=True``.

        Returns the path written.
        """
        path = Path(path)
        kind = _kind(path)
        if path.exists() and not overwrite:
            raise FileExistsError(
                f"{path} already exists; pass overwrite=True to replace it, or choose another name."
            )
        if not path.parent.is_dir():
            raise FileNotFoundError(f"directory {path.parent} does not exist; create it first.")

        def write(tmp):
            with open(tmp, "wb") as fh:
                if kind == "csv":
                    _write_csv(self, fh)
                else:
                    np.savez(fh, **self.to_dict())

        atomic_write(path, write, overwrite=overwrite)
        return path

    @classmethod
    def load(cls, path) -> NullTable:
        """Read a table written by :meth:`save` (CSV or ``.npz``) and check it."""
        path = Path(path)
        kind = _kind(path)
        if not path.is_file():
            raise FileNotFoundError(f"no null table at {path}.")
        if kind == "csv":
            cols = _read_csv(path)
        else:
            try:
                with np.load(path, allow_pickle=False) as z:
                    missing = set(COLUMNS) - set(z.files)
                    if missing:
                        raise ValueError(
                            f"{path} is not a null table: missing column(s) {sorted(missing)}."
                        )
                    cols = {c: np.array(z[c]) for c in COLUMNS}
            except (OSError, ValueError) as exc:
                if isinstance(exc, ValueError) and "null table" in str(exc):
                    raise
                raise ValueError(f"could not read {path} as .npz: {exc}") from exc
        return _checked_table(cols, str(path))


def load_null_params_table(path) -> NullTable:
    """Read a null table saved with :meth:`NullTable.save` (same as ``NullTable.load``).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv`` or ``.npz`` file written by :meth:`NullTable.save`; its
        columns, 1 <= P <= N, finite moments and duplicates are checked.

    Returns
    -------
    NullTable

    See Also
    --------
    null_params_table : compute a table for grids of (N, P).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "null.csv")
    >>> _ = null_params_table([100, 200], [1, 2]).save(path)
    >>> mean, var = load_null_params_table(path).params(200, 2)
    >>> round(mean, 6)
    0.034268
    >>> folder.cleanup()
    """
    return NullTable.load(path)


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix == ".npz":
        return "npz"
    raise ValueError(f"null tables are saved as .csv or .npz; got {path.name!r}.")


def _write_csv(table: NullTable, fh) -> None:
    fh.write((",".join(COLUMNS) + "\n").encode())
    fmt = "%d,%d,%r,%r,%r,%r,%r\n"  # repr: shortest string that reads back to the same float
    cols = [getattr(table, c).tolist() for c in COLUMNS]
    chunk = 100_000
    for start in range(0, len(table), chunk):
        rows = zip(*(c[start : start + chunk] for c in cols), strict=True)
        fh.write("".join(fmt % r for r in rows).encode())


def _read_csv(path: Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip()
    if header.replace(" ", "") != ",".join(COLUMNS):
        raise ValueError(
            f"{path} is not a null table: its header is {header[:80]!r}, expected "
            f"{','.join(COLUMNS)!r}."
        )
    dtype = [(c, np.int64 if c in _INT_COLUMNS else np.float64) for c in COLUMNS]
    try:
        data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=dtype, ndmin=1)
    except ValueError as exc:
        raise ValueError(f"{path}: malformed row ({exc}).") from exc
    return {c: np.ascontiguousarray(data[c]) for c in COLUMNS}


def _checked_table(cols: dict, where: str) -> NullTable:
    n = cols["N"]
    for c in COLUMNS:
        a = cols[c]
        if a.ndim != 1 or a.shape != n.shape:
            raise ValueError(f"{where}: column {c} has shape {a.shape}, expected {n.shape}.")
        want = "iu" if c in _INT_COLUMNS else "f"
        if a.dtype.kind not in want:
            raise ValueError(f"{where}: column {c} has dtype {a.dtype}.")
    N = cols["N"].astype(np.int64)
    P = cols["P"].astype(np.int64)
    bad = (P < 1) | (P > N) | (N > _MAX_N)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where}: row {i} has N={N[i]}, P={P[i]}; need 1 <= P <= N <= 2**62.")
    for c in ("mean", "var", "min_auprc"):
        finite = np.isfinite(cols[c])
        if not finite.all():
            i = int(np.flatnonzero(~finite)[0])
            raise ValueError(f"{where}: column {c} is not finite at row {i}.")
    if (cols["var"] < 0).any():
        raise ValueError(f"{where}: negative variance in row {int(np.argmax(cols['var'] < 0))}.")
    order = np.lexsort((P, N))
    if not np.array_equal(order, np.arange(N.shape[0])):
        cols = {c: cols[c][order] for c in COLUMNS}
        N, P = N[order], P[order]
    dup = (N[1:] == N[:-1]) & (P[1:] == P[:-1])
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise ValueError(f"{where}: pair (N={N[i]}, P={P[i]}) appears more than once.")
    return NullTable(N, P, *(np.ascontiguousarray(cols[c], dtype=np.float64) for c in COLUMNS[2:]))


def _grid_values(values, name: str) -> np.ndarray:
    arr = _as_integer_array(values, name).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty; give at least one value.")
    if (arr < 1).any():
        raise ValueError(f"{name} must be >= 1; got {int(arr[arr < 1][0])}.")
    if (arr > _MAX_N).any():
        raise ValueError(f"{name} must be <= 2**62.")
    return np.unique(arr)


@fill_doc()
def null_params_table(N_values, P_values, *, progress: bool | None = False) -> NullTable:
    """Exact null parameters for every pair (N, P) with N in N_values, P in P_values, P <= N.

    Parameters
    ----------
    N_values, P_values : array_like of int
        Numbers of instances and of positives (>= 1; duplicates are dropped).
        Strings such as ``"10:1000:10"`` can be turned into arrays with
        :func:`parse_int_ranges`.
    progress : bool or None
        Show a progress bar (needs tqdm); None = only on a terminal.

    Returns
    -------
    NullTable
        One row per pair, sorted by N then P, with columns N, P, mean, var,
        min_auprc, beta_alpha, beta_beta. Cost O(1) per row (about 10^6 rows
        per second per core).

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> t = null_params_table([10, 100], [1, 10, 50])
    >>> list(zip(t.N.tolist(), t.P.tolist()))
    [(10, 1), (10, 10), (100, 1), (100, 10), (100, 50)]
    >>> from pranker import null_params
    >>> abs(t.params(100, 10).mean / null_params(100, 10).mean - 1) < 1e-12  # another kernel
    True
    """
    Nu = _grid_values(N_values, "N_values")
    Pu = _grid_values(P_values, "P_values")
    counts = np.searchsorted(Pu, Nu, side="right")
    total = int(counts.sum())
    if total == 0:
        raise ValueError(
            f"no pair has P <= N (smallest N is {int(Nu[0])}, smallest P is {int(Pu[0])})."
        )
    N = np.repeat(Nu, counts)
    offsets = np.repeat(np.cumsum(counts) - counts, counts)
    P = Pu[np.arange(total) - offsets]
    out = {c: np.empty(total) for c in COLUMNS[2:]}
    span = np.empty(total)
    ok = np.empty(total, dtype=np.bool_)
    n_blocks = 1 if not progress else min(total, 100)
    edges = np.linspace(0, total, n_blocks + 1).astype(np.int64)
    with progress_bar(total, "null table", progress) as bar:
        for b in range(n_blocks):
            sl = slice(int(edges[b]), int(edges[b + 1]))
            _kernels_many.null_table_kernel(
                N[sl],
                P[sl],
                out["mean"][sl],
                out["var"][sl],
                out["min_auprc"][sl],
                span[sl],
                out["beta_alpha"][sl],
                out["beta_beta"][sl],
                ok[sl],
            )
            bar.update(sl.stop - sl.start)
    # ok is False only for the two-point null N = 2, P = 1 (documented NaN shapes)
    not_ok = ~ok & ~((N == 2) & (P == 1))
    if not_ok.any():  # pragma: no cover - the exact moments always fit otherwise
        i = int(np.flatnonzero(not_ok)[0])
        raise RuntimeError(f"beta fit failed for N={N[i]}, P={P[i]}; please report this.")
    return NullTable(N, P, **out)


_TOKEN = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _parse_int(tok: str, text: str) -> int:
    if not _TOKEN.match(tok):
        raise ValueError(f"{tok!r} in {text!r} is not an integer.")
    if re.fullmatch(r"[+-]?\d+", tok):
        return int(tok)
    val = float(tok)
    if not val.is_integer() or abs(val) > 2**53:
        raise ValueError(f"{tok!r} in {text!r} is not an exact integer.")
    return int(val)


def parse_int_ranges(text: str, *, max_values: int = 100_000_000) -> np.ndarray:
    """Parse ``"1,5,10:100:10"`` into a sorted array of distinct integers.

    Comma-separated items, each an integer (``1e6`` is accepted when exact) or
    a range ``start:stop`` / ``start:stop:step`` that includes ``stop`` when the
    steps land on it, as in R and MATLAB (``10:100:10`` is 10, 20, ..., 100).
    Steps must be positive and ranges ascending.

    Parameters
    ----------
    text : str
        Comma-separated integers and ranges, e.g. ``"1,5,10:100:10"``; spaces
        around items are ignored.
    max_values : int
        Largest number of values the text may expand to (before duplicates
        are removed); default 10**8.

    Returns
    -------
    ndarray of int64
        The values, sorted, each once.

    Raises
    ------
    ValueError
        An empty item, a token that is not an exact integer, a range with a
        step <= 0 or a stop below its start, or more than ``max_values`` values;
        the message quotes the offending text.
    TypeError
        If ``text`` is not a string.

    See Also
    --------
    null_params_table : takes the arrays as its grids of N and P.

    Examples
    --------
    ``10:50:10`` is 10, 20, 30, 40, 50 (stop included); ``3:1e1:4`` is 3, 7
    (11 would pass the stop 10); duplicates appear once.

    >>> parse_int_ranges("1,5,10:50:10").tolist()
    [1, 5, 10, 20, 30, 40, 50]
    >>> parse_int_ranges("3:1e1:4, 2").tolist()
    [2, 3, 7]
    >>> parse_int_ranges("1:3, 2").tolist()
    [1, 2, 3]
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a string such as '1,5,10:100:10'; got {type(text).__name__}.")
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise ValueError(f"empty item in {text!r}; write e.g. '1,5,10:100:10'.")
    parts = []
    count = 0
    for item in items:
        fields = [f.strip() for f in item.split(":")]
        if len(fields) == 1:
            parts.append(np.array([_parse_int(fields[0], text)], dtype=np.int64))
            count += 1
        elif len(fields) in (2, 3):
            start = _parse_int(fields[0], text)
            stop = _parse_int(fields[1], text)
            step = _parse_int(fields[2], text) if len(fields) == 3 else 1
            if step <= 0:
                raise ValueError(f"range {item!r} in {text!r}: step must be positive.")
            if stop < start:
                raise ValueError(f"range {item!r} in {text!r}: stop is below start.")
            size = (stop - start) // step + 1
            count += size
            if count > max_values:
                raise ValueError(f"{text!r} expands to more than {max_values} values.")
            parts.append(start + step * np.arange(size, dtype=np.int64))
        else:
            raise ValueError(f"{item!r} in {text!r}: use start:stop or start:stop:step.")
    return np.unique(np.concatenate(parts))
