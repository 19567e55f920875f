"""Input validation shared by every public entry point.

Each checker either returns a clean, contiguous array or raises an error that
says what was wrong, where, and what to do. Nothing is modified in place.
"""

from __future__ import annotations

import operator

import numpy as np

TIE_MODES = ("average", "stable", "threshold", "optimistic", "pessimistic")


def _as_numeric_array(x, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from exc
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must be numeric; got values of type object that do not convert "
                f"to float ({exc})"
            ) from exc
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued; got complex dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be numeric (bool, int or float); got dtype {arr.dtype}. "
            "Convert strings to numbers before calling."
        )
    return arr


def _first_nan_message(mask: np.ndarray, name: str) -> str:
    count = int(np.count_nonzero(mask))
    first = int(np.flatnonzero(mask)[0])
    return (
        f"{name} contains {count} NaN value(s); the first is at (flattened) index {first}. "
        "Remove or impute them before ranking (+/-inf are allowed and ranked)."
    )


def check_scores(scores, name: str = "scores") -> np.ndarray:
    """Return ``scores`` as a flat float64 array, rejecting NaN and non-numeric input."""
    arr = _as_numeric_array(scores, name)
    flat = np.ascontiguousarray(arr, dtype=np.float64).ravel()
    if flat.size == 0:
        raise ValueError(f"{name} is empty: at least one instance is needed.")
    # a sum without NaN proves there is none (inf - inf also gives NaN: then look)
    with np.errstate(invalid="ignore", over="ignore"):
        total = flat.sum()
    if np.isnan(total):
        nan = np.isnan(flat)
        if nan.any():
            raise ValueError(_first_nan_message(nan, name))
    return flat


def check_labels(y, name: str = "y") -> np.ndarray:
    """Return ``y`` as a flat bool array: nonzero means positive (as in R pranker)."""
    arr = _as_numeric_array(y, name)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            raise ValueError(_first_nan_message(nan.ravel(), name))
    flat = np.asarray(arr).ravel()
    if flat.dtype == np.bool_:
        return np.ascontiguousarray(flat)
    return flat != 0


def check_scores_labels(scores, y, *, require_positive: bool = True):
    """Validate a (scores, labels) pair: same size, no NaN, at least one positive.

    Returns ``(scores, labels)`` as flat float64 and bool arrays.
    """
    s = check_scores(scores)
    yb = check_labels(y)
    if s.size != yb.size:
        raise ValueError(
            f"scores and y must have the same number of elements; got {s.size} scores and "
            f"{yb.size} labels (shapes {np.shape(scores)} and {np.shape(y)})."
        )
    if require_positive and not yb.any():
        raise ValueError(
            "y has no positive instance (no nonzero label): AUPRC is undefined. "
            "Check that positives are coded as nonzero values."
        )
    return s, yb


def check_ties(ties: str) -> str:
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}; got {ties!r}.")
    return ties


def check_count(value, name: str) -> int:
    """A scalar integer count (N or P) as a Python int, rejecting floats with fractions."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not a bool.")
    try:
        out = operator.index(value)
    except TypeError:
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            out = int(value)
        else:
            raise TypeError(f"{name} must be an integer; got {value!r}.") from None
    return out


def check_count_pair(N, P, *, max_n: int = 2**62) -> tuple[int, int]:
    """Scalar N and P as Python ints with 1 <= P <= N <= max_n, or a clear error."""
    n = check_count(N, "N")
    p = check_count(P, "P")
    if p < 1:
        raise ValueError(f"P (number of positives) must be >= 1; got {p}.")
    if n > max_n:
        raise ValueError(f"N must be <= 2**62; got {n}.")
    if p > n:
        raise ValueError(f"P must be <= N; got P={p} > N={n}.")
    return n, p


def check_counts(N, P, *, max_n: int = 2**62):
    """Broadcast N and P to int64 arrays and check 1 <= P <= N <= 2**62.

    Returns ``(N, P, scalar)`` where ``scalar`` says both inputs were scalars.
    """
    scalar = np.ndim(N) == 0 and np.ndim(P) == 0
    if scalar:
        n, p = check_count_pair(N, P, max_n=max_n)
        return np.array([n], dtype=np.int64), np.array([p], dtype=np.int64), True
    else:
        n_arr = _as_integer_array(N, "N")
        p_arr = _as_integer_array(P, "P")
        try:
            n_arr, p_arr = np.broadcast_arrays(n_arr, p_arr)
        except ValueError as exc:
            raise ValueError(
                f"N and P must broadcast to a common shape; got shapes {np.shape(N)} "
                f"and {np.shape(P)}."
            ) from exc
    if np.any(p_arr < 1):
        bad = np.flatnonzero(np.ravel(p_arr < 1))[0]
        raise ValueError(
            f"P (number of positives) must be >= 1; got {np.ravel(p_arr)[bad]} "
            f"at flattened index {bad}."
        )
    if np.any(n_arr > max_n):
        bad = np.flatnonzero(np.ravel(n_arr > max_n))[0]
        raise ValueError(f"N must be <= 2**62; got {np.ravel(n_arr)[bad]} at flattened index {bad}.")
    if np.any(p_arr > n_arr):
        bad = np.flatnonzero(np.ravel(p_arr > n_arr))[0]
        raise ValueError(
            f"P must be <= N; got P={np.ravel(p_arr)[bad]} > N={np.ravel(n_arr)[bad]} "
            f"at flattened index {bad}."
        )
    return (
        np.ascontiguousarray(n_arr, dtype=np.int64),
        np.ascontiguousarray(p_arr, dtype=np.int64),
        scalar,
    )


def _as_integer_array(x, name: str) -> np.ndarray:
    arr = _as_numeric_array(x, name)
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must be integer counts, not booleans.")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise TypeError(f"{name} must hold whole numbers; got non-integer floats.")
        if np.any(np.abs(arr) > 2.0**62):
            raise ValueError(f"{name} must be <= 2**62.")
        return arr.astype(np.int64)
    if arr.dtype.kind == "u" and arr.size and arr.max() > 2**62:
        raise ValueError(f"{name} must be <= 2**62.")
    return arr.astype(np.int64)
