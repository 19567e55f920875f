"""Columns of a data file for the command line: which ones, and as scores and labels.

:func:`default_columns` and :func:`resolve_column` choose the columns (by
name, case-insensitive name or 0-based index; default names below);
:func:`to_scores` and :func:`to_labels` convert one column of a
:class:`~pranker.cli.read.Table`. What counts as a positive label is the
library's rule (:func:`pranker._validation.check_labels`); this module adds
what only a file knows: the line of a missing value and the ``--positive``
option's wording.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_labels
from .errors import UserError
from .read import Table

SCORE_NAMES = ("score", "scores", "prediction")
LABEL_NAMES = ("label", "labels", "y", "truth")


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


# --- conversion and checks ----------------------------------------------------


def _is_arrow(col) -> bool:
    return type(col).__module__.startswith("pyarrow")


def _arrow_first_null(col) -> int | None:
    if col.null_count == 0:
        return None
    mask = col.is_null().to_numpy(zero_copy_only=False)
    return int(np.flatnonzero(mask)[0])


def _refuse_arrow_nulls(col, table: Table, what: str, hint: str = "") -> None:
    """UserError at the first missing value of an arrow column, if any."""
    i = _arrow_first_null(col)
    if i is not None:
        raise UserError(
            f"{what} has {col.null_count} missing value(s) (empty, NA or "
            f"NaN); the first is at {table.where(i)}.{hint}"
        )


def _is_arrow_string(col) -> bool:
    import pyarrow as pa

    return pa.types.is_string(col.type) or pa.types.is_large_string(col.type)


def to_scores(table: Table, name: str) -> np.ndarray:
    """A score column as float64, refusing missing, NaN and non-numeric values."""
    (col,) = table.load([name])
    if _is_arrow(col):
        arr = _arrow_scores(col, table, name)
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


def _arrow_scores(col, table: Table, name: str) -> np.ndarray:
    """An arrow score column as float64: numbers, booleans, or text that parses as numbers."""
    import pyarrow as pa

    _refuse_arrow_nulls(col, table, f"score column {name!r}", " Remove or impute them.")
    if _is_arrow_string(col):
        values = col.to_numpy(zero_copy_only=False)
        for i, v in enumerate(values):
            try:
                float(v)
            except ValueError:
                raise UserError(
                    f"score column {name!r} has a non-numeric value {v!r} at {table.where(i)}."
                ) from None
        return values.astype(np.float64)
    if (
        pa.types.is_integer(col.type)
        or pa.types.is_floating(col.type)
        or pa.types.is_boolean(col.type)
    ):
        return col.to_numpy().astype(np.float64, copy=False)
    raise UserError(f"score column {name!r} has type {col.type}, not numbers.")


def _values_found(u) -> str:
    u = list(u)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in u[:10])
    return shown + (f", ... ({len(u)} distinct values)" if len(u) > 10 else "")


def to_labels(table: Table, name: str, positive: str | None = None) -> np.ndarray:
    """A label column as bool: binary-like (0/1, -1/1, true/false) or ``== positive``.

    The codings and the comparison with ``positive`` (the text of
    ``--positive``, read as a number for a numeric column) are the library's
    (:func:`pranker._validation.check_labels`); missing values are refused
    here first, with their line.
    """
    (col,) = table.load([name])
    what = f"label column {name!r}"
    if _is_arrow(col):
        _refuse_arrow_nulls(col, table, what)
        if _is_arrow_string(col):
            return _arrow_text_labels(col, what, positive, table.path)
        arr = col.to_numpy()
    else:
        arr = np.asarray(col)
        if arr.dtype.kind in "US":
            text = arr if positive is None else arr.astype(str)
            return _binarized(text, what, positive, table.path, advice="Use --positive VALUE.")
    if arr.dtype.kind not in "biuf":
        raise UserError(f"label column {name!r} has dtype {arr.dtype}, not labels.")
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            i = int(np.flatnonzero(nan)[0])
            raise UserError(f"label column {name!r} has NaN at {table.where(i)}.")
    if positive is None:
        return _binarized(
            arr,
            what,
            None,
            table.path,
            codings=" (0/1, -1/1 or true/false)",
            advice="Say which value marks a positive with --positive VALUE.",
        )
    return _binarized(arr, what, _number(positive, name), table.path)


def _arrow_text_labels(col, what: str, positive: str | None, path: str) -> np.ndarray:
    """An arrow text column's positives: its distinct values go through the library's
    rule, then each row takes its value's verdict (no Python string per row)."""
    import pyarrow.compute as pac

    distinct = pac.unique(col)
    verdicts = _binarized(
        np.array(distinct.to_pylist(), dtype=str),
        what,
        positive,
        path,
        advice="Use 0/1, -1/1 or true/false, or say which value marks a positive with "
        "--positive VALUE.",
    )
    rows = pac.index_in(col, value_set=distinct).to_numpy()
    return np.ascontiguousarray(verdicts[rows])


def _number(positive: str, name: str) -> float:
    """``--positive`` as a number, for a numeric label column."""
    try:
        return float(positive)
    except ValueError:
        raise UserError(
            f"--positive {positive!r} is not a number but column {name!r} is numeric."
        ) from None


def _binarized(
    values: np.ndarray, what: str, positive, path: str, *, codings: str = "", advice: str = ""
) -> np.ndarray:
    """:func:`pranker._validation.check_labels` of ``values`` (``positive`` need not
    occur: no positive is reported later, as for any data), its errors as UserError.

    Labels that are not binary (``positive`` None) are refused in the words of the
    command line, with the values found, ``codings`` and ``advice``; any other
    error keeps the library's words, after the file name.
    """
    try:
        return check_labels(
            values, what, pos_label=positive, where=path, pos_label_must_occur=False
        )
    except (TypeError, ValueError) as exc:
        if positive is not None:
            raise UserError(str(exc)) from None
        found = _values_found(np.unique(values))
        raise UserError(
            f"{what} is not binary-like{codings}: values found: {found}. {advice}"
        ) from None
