"""Input validation shared by every public entry point.

Each checker either returns a clean, contiguous array or raises an error that
says what was wrong, where, and what to do. Nothing is modified in place.

Labels (:func:`binarize_labels`) must be binary -- 0/1, False/True or -1/1,
with 1 the positive class, as in scikit-learn -- unless ``pos_label`` names the
positive class. :func:`check_scores_labels` is the one entry point for a
(scores, labels) pair; :func:`score_label_aliases` lets a public function take
scikit-learn's keyword names ``y_score=`` and ``y_true=``.
"""

from __future__ import annotations

import functools
import inspect
import math
import operator
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

TIE_MODES = ("average", "stable", "threshold", "optimistic", "pessimistic")
# tie modes in which a weighted AP has a meaning (see check_weighted_ties)
WEIGHTED_TIE_MODES = ("threshold", "stable")
AVERAGES = ("micro", "macro", "weighted", "samples", None)


__all__ = ["InputError"]  # the helpers below are shared inside the package only


class InputError(ValueError, TypeError):
    """Input of the wrong kind: what was wrong, where, and what to do instead.

    Raised for string labels without ``pos_label``, complex or ragged
    arrays, tables where one ranking is expected, a bad option value, and
    the like. It is a ValueError, which is what scikit-learn raises for the
    same mistakes (its own ``InvalidParameterError`` is a ValueError and a
    TypeError too), and a TypeError, which is what pranker raised for them
    before: ``except ValueError``, ``except TypeError`` and ``except
    pranker.InputError`` all catch it.

    Attributes
    ----------
    args : tuple
        ``(message,)``. The message starts with the name of the function
        that refused the input and says what to do instead.

    Examples
    --------
    >>> import pranker
    >>> try:
    ...     pranker.auprc_ap([0.9, 0.1], ["spam", "ham"])
    ... except pranker.InputError as err:
    ...     print("pos_label" in str(err))
    True
    """


InputError.__module__ = "pranker"  # tracebacks and pickles name the public path
__test__ = {"InputError": InputError.__doc__}  # its example, which doctest would skip as foreign


def _masked_count(x) -> int:
    """Number of masked entries of a numpy masked array (0 for anything else)."""
    if np.ma.isMaskedArray(x):
        return int(np.count_nonzero(np.ma.getmaskarray(x)))
    return 0


def _masked_message(name: str, k: int) -> str:
    return (
        f"{name} is a masked array with {k} masked entries, and masks are not honoured "
        "here (they would be silently ignored). Pass only the unmasked entries, e.g. "
        f"{name}.compressed() with the matching entries of the other inputs, or fill "
        "them with numpy.ma.filled()."
    )


def _unmasked_array(x, name: str, where: str | None, failed: str) -> np.ndarray:
    """``x`` as an ndarray, refusing masked entries; ``failed`` starts the error
    raised when numpy cannot convert it (after the ``where`` prefix)."""
    k = _masked_count(x)
    if k:
        raise ValueError(_prefix(where) + _masked_message(name, k))
    if np.ma.isMaskedArray(x):
        x = np.ma.getdata(x)
    try:
        return np.asarray(x)
    except Exception as exc:  # ragged lists and the like: numpy's ValueError
        raise InputError(
            f"{_prefix(where)}{failed} ({exc}). Pass a rectangular array of numbers."
        ) from exc


_IS_NONE = np.frompyfunc(lambda v: v is None, 1, 1)


def _none_message(
    arr: np.ndarray, name: str, where: str | None, tail: str | None = None
) -> str | None:
    """The error for ``None`` entries of an object array (None if there is none)."""
    none = np.asarray(_IS_NONE(arr), dtype=bool).ravel()
    if not none.any():
        return None
    return (
        f"{_prefix(where)}{name} contains {int(np.count_nonzero(none))} None value(s); the "
        f"first is at (flattened) index {int(np.flatnonzero(none)[0])}. "
        + (tail or "Drop these items or fill in their values (a missing score cannot be ranked).")
    )


def _as_numeric_array(x, name: str, where: str | None = None) -> np.ndarray:
    arr = _unmasked_array(x, name, where, f"{name} could not be converted to a numeric array")
    pre = _prefix(where)
    if arr.dtype == object:
        none = _none_message(arr, name, where)
        if none:
            raise TypeError(none)  # scikit-learn's TypeError for None among the scores
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{pre}{name} must be numeric; got values of type object that do not convert "
                f"to float ({exc})"
            ) from exc
    if arr.dtype.kind == "c":
        raise InputError(
            f"{pre}{name} must be real-valued; got complex dtype {arr.dtype}. Pass the real "
            "part (numpy.real) or the modulus (numpy.abs), whichever is the score."
        )
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{pre}{name} must be numeric (bool, int or float); got dtype {arr.dtype}. "
            "Convert strings to numbers before calling."
        )
    return arr


_SCORES_NAN_TAIL = "Remove or impute them before ranking (+/-inf are allowed and ranked)."
_LABELS_NAN_TAIL = (
    "Every item needs a label: drop the items whose label is missing, or give them one."
)


def _first_nan_message(mask: np.ndarray, name: str, tail: str = _SCORES_NAN_TAIL) -> str:
    count = int(np.count_nonzero(mask))
    first = int(np.flatnonzero(mask)[0])
    return (
        f"{name} contains {count} NaN value(s); the first is at (flattened) index {first}. " + tail
    )


def _prefix(where: str | None) -> str:
    return f"{where}: " if where else ""


def check_scores(
    scores, name: str = "scores", *, where: str | None = None, check_nan: bool = True
) -> np.ndarray:
    """Return ``scores`` as a flat float64 array, rejecting NaN and non-numeric input.

    With ``check_nan=False`` the NaN check is left to the caller, who must
    call :func:`check_no_nan` (or count NaN in a pass of its own and call it
    when one was seen) before using the scores.
    """
    arr = _as_numeric_array(scores, name, where)
    flat = np.ascontiguousarray(arr, dtype=np.float64).ravel()
    if flat.size == 0:
        raise ValueError(f"{_prefix(where)}{name} is empty: at least one instance is needed.")
    if check_nan:
        check_no_nan(flat, name, where=where)
    return flat


def check_no_nan(flat: np.ndarray, name: str = "scores", *, where: str | None = None) -> None:
    """Raise the NaN error of :func:`check_scores` if the float64 array ``flat`` holds a NaN."""
    # a sum without NaN proves there is none (inf - inf also gives NaN: then look)
    with np.errstate(invalid="ignore", over="ignore"):
        total = flat.sum()
    if np.isnan(total):
        nan = np.isnan(flat)
        if nan.any():
            raise ValueError(_prefix(where) + _first_nan_message(nan, name))


# ---------------------------------------------------------------------------
# labels: what is a positive
# ---------------------------------------------------------------------------

_CODINGS = "0/1, False/True or -1/1"


def _as_label_array(y, name: str, where: str | None = None) -> np.ndarray:
    """``y`` as an ndarray: numeric (bool/int/float), strings, or other objects; no NaN."""
    arr = _unmasked_array(y, name, where, f"{name} could not be converted to an array")
    if arr.dtype == object:
        none = _none_message(arr, name, where, _LABELS_NAN_TAIL)
        if none:
            raise ValueError(none)  # a missing label, like a NaN label
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            pass  # labels such as Python strings: compared with pos_label
    kind = arr.dtype.kind
    if kind == "c":
        raise InputError(
            f"{_prefix(where)}{name} must be real-valued; got complex dtype {arr.dtype}"
        )
    if kind not in "biufUSO":
        raise TypeError(
            f"{_prefix(where)}{name} must hold numbers, booleans or strings; got dtype {arr.dtype}."
        )
    if kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            total = arr.sum()  # no NaN in a sum that is not NaN (inf - inf: then look)
        nan = np.isnan(arr) if np.isnan(total) else None
        if nan is not None and nan.any():
            raise ValueError(
                _prefix(where) + _first_nan_message(nan.ravel(), name, _LABELS_NAN_TAIL)
            )
    return arr


def _show_values(values, limit: int = 5) -> str:
    vals = [v.item() if isinstance(v, np.generic) else v for v in values[:limit]]
    text = ", ".join(format(v, ".6g") if isinstance(v, float) else repr(v) for v in vals)
    return text + (", ..." if len(values) > limit else "")


def _distinct(arr: np.ndarray) -> np.ndarray:
    try:
        return np.unique(arr)
    except TypeError:  # unorderable objects
        return np.array(list(dict.fromkeys(arr.ravel().tolist())), dtype=object)


def _binary_coding(arr: np.ndarray):
    """Positives of numeric labels coded 0/1 or -1/1 (1 = positive), or None if not so coded.

    A single-valued array is accepted when that value is 0, -1 (no positive) or
    1 (all positive). Costs two or three comparisons and counts.
    """
    pos = arr == 1
    n_pos = int(np.count_nonzero(pos))
    if n_pos == arr.size:
        return pos
    n_neg = int(np.count_nonzero(arr == 0))
    if n_neg == 0:
        n_neg = int(np.count_nonzero(arr == -1))
    return pos if n_pos + n_neg == arr.size else None


def _label_like(s: np.ndarray) -> str | None:
    """How ``s`` looks like labels (only 0/1 or only -1/1 values), or None."""
    if s.size == 0:
        return None
    lo, hi = s.min(), s.max()
    if lo == 0 and hi in (0, 1) and np.all((s == 0) | (s == 1)):
        return "only 0/1 values"
    if lo in (-1, 1) and hi in (-1, 1) and np.all((s == -1) | (s == 1)):
        return "only -1/1 values"
    return None


def _swap_message(where: str | None, looks: str, y_desc: str, pos_label) -> str:
    fn = where or "the function"
    text = (
        f"{_prefix(where)}the arguments look swapped: scores holds {looks} while "
        f"y {y_desc}. pranker takes (scores, y), like R, unlike scikit-learn's "
        f"(y_true, y_score). Pass the scores first, or name the arguments: "
        f"{fn}(y_true=..., y_score=...) or {fn}(scores=..., y=...)."
    )
    if pos_label is None:
        text += (
            f" If the order is right, y must be binary ({_CODINGS}): pass "
            "numpy.asarray(y) != 0 to count every nonzero label as positive, or pos_label= "
            "to name the positive class."
        )
    return text


def binarize_labels(
    y,
    *,
    pos_label=None,
    name: str = "y",
    where: str | None = None,
    scores=None,
    pos_label_must_occur: bool = True,
) -> np.ndarray:
    """Labels as a bool array of the same shape: True marks a positive.

    With ``pos_label=None`` the labels must be binary: booleans, 0/1 or -1/1
    (1 is the positive class, as in scikit-learn); a single value among 0, -1
    (no positive) and 1 (all positive) is accepted too. Anything else is an
    error that says how to choose. With ``pos_label`` given, the positives are
    ``y == pos_label`` and every other value is a negative; ``pos_label`` must
    occur in ``y`` unless ``pos_label_must_occur=False`` (for one chunk of a
    larger data set, where the caller checks the total). ``scores`` (numeric,
    optional) lets the error say when scores and labels look swapped.
    ``where`` (the caller's name) starts every error message.
    """
    return _binarize(
        _as_label_array(y, name, where), pos_label, name, where, scores, pos_label_must_occur
    )


def _binarize(
    arr: np.ndarray, pos_label, name: str, where: str | None, scores, must_occur: bool = True
) -> np.ndarray:
    kind = arr.dtype.kind
    pre = _prefix(where)
    if pos_label is None:
        if kind == "b":
            return arr
        if kind not in "biuf":
            distinct = _distinct(arr)
            raise InputError(  # a ValueError, as scikit-learn's for string labels
                f"{pre}{name} holds non-numeric labels ({_show_values(distinct)}); say which "
                f"one is the positive class with pos_label=, e.g. "
                f"pos_label={_show_values(distinct[:1])}."
            )
        pos = _binary_coding(arr)
        if pos is not None:
            return pos
        distinct = np.unique(arr)
        looks = None if scores is None else _label_like(scores)
        if looks:
            y_desc = f"holds {distinct.size} distinct values ({_show_values(distinct)})"
            raise ValueError(_swap_message(where, looks, y_desc, None))
        if distinct.size > 2:
            what = f"has {distinct.size} distinct values ({_show_values(distinct)})"
        elif distinct.size == 2:
            what = f"holds the values {_show_values(distinct)}"
        else:
            what = f"holds the single value {_show_values(distinct)}"
        raise ValueError(
            f"{pre}{name} {what}, but labels must be binary ({_CODINGS}, where 1 is the "
            f"positive class). Pass numpy.asarray({name if name.isidentifier() else 'y'}) != 0 "
            "to count every nonzero label "
            "as positive (the rule of the R package), or pos_label=<value> to say which value "
            "marks a positive (every other value is then a negative)."
        )
    # pos_label given: positives are y == pos_label
    if np.ndim(pos_label) != 0:
        raise ValueError(f"{pre}pos_label must be a single label value; got {pos_label!r}.")
    if isinstance(pos_label, (float, np.floating)) and np.isnan(pos_label):
        raise ValueError(f"{pre}pos_label cannot be NaN.")
    is_text = isinstance(pos_label, (str, bytes, np.str_, np.bytes_))
    if kind in "biuf" and is_text:
        raise ValueError(
            f"{pre}pos_label={pos_label!r} is a string but {name} holds numbers "
            f"({_show_values(_distinct(arr))}); pass the numeric label of the positive class."
        )
    if kind in "US" and not is_text:
        raise ValueError(
            f"{pre}pos_label={pos_label!r} is not a string but {name} holds strings "
            f"({_show_values(_distinct(arr))}); pass it as a string, e.g. "
            f"pos_label={str(pos_label)!r}."
        )
    if kind == "f" and scores is not None:
        looks = _label_like(scores)
        frac = np.isfinite(arr) & (arr != np.round(arr)) if looks else None
        if looks and frac is not None and frac.any():
            first = arr.ravel()[np.flatnonzero(frac.ravel())[0]].item()
            y_desc = f"holds non-integer values such as {first:.6g}"
            raise ValueError(_swap_message(where, looks, y_desc, pos_label))
    pos = np.asarray(arr == pos_label)
    if pos.shape != arr.shape or pos.dtype != np.bool_:
        raise ValueError(
            f"{pre}pos_label={pos_label!r} cannot be compared with the labels of {name}."
        )
    if must_occur and not pos.any():
        raise ValueError(
            f"{pre}pos_label={pos_label!r} does not occur in {name}, whose values are "
            f"{_show_values(_distinct(arr))}: there would be no positive. Check the value "
            "and its type (1 and '1' differ)."
        )
    return pos


def check_labels(
    y,
    name: str = "y",
    *,
    pos_label=None,
    where: str | None = None,
    pos_label_must_occur: bool = True,
) -> np.ndarray:
    """Return ``y`` as a flat bool array of positives; see :func:`binarize_labels`."""
    return np.ascontiguousarray(
        binarize_labels(
            y,
            pos_label=pos_label,
            name=name,
            where=where,
            pos_label_must_occur=pos_label_must_occur,
        )
    ).ravel()


def _check_pair(
    scores, y, *, pos_label, where: str | None, require_positive: bool, check_nan: bool = True
):
    """Validated (float64 scores, bool positives, kept positions or None).

    Instances masked in either argument (numpy masked arrays) are dropped from
    both; ``keep`` then marks, over the flattened input, the instances kept.
    With ``check_nan=False`` the scores are not searched for NaN unless
    another error is found (a NaN is then reported first, as with the check
    on); the caller checks them, see :func:`check_scores`.
    """
    if check_nan or np.ma.isMaskedArray(scores) or np.ma.isMaskedArray(y):
        return _check_pair_checked(scores, y, pos_label, where, require_positive, True)
    try:
        return _check_pair_checked(scores, y, pos_label, where, require_positive, False)
    except (TypeError, ValueError):
        # the error of the check on: a NaN in the scores is reported first
        flat = None
        try:
            flat = check_scores(scores, where=where, check_nan=False)
        except (TypeError, ValueError):
            pass  # the scores themselves are bad: that is the error raised
        if flat is not None:
            check_no_nan(flat, where=where)
        raise


def _check_pair_checked(scores, y, pos_label, where, require_positive, check_nan):
    shapes = (_shape(scores), _shape(y))
    keep = None
    if np.ma.isMaskedArray(scores) or np.ma.isMaskedArray(y):
        masks = [np.ma.getmaskarray(a).ravel() for a in (scores, y) if np.ma.isMaskedArray(a)]
        scores = np.ma.getdata(scores)
        y = np.ma.getdata(y)
        n = np.size(scores)
        if n != np.size(y):
            raise _size_error(n, np.size(y), shapes, where)
        drop = np.logical_or.reduce(masks)
        if drop.any():
            keep = ~drop
            if not keep.any():
                raise ValueError(
                    f"{_prefix(where)}all {n} instances are masked (in scores or y): "
                    "nothing is left to rank. Check the masks."
                )
            scores = np.asarray(_as_numeric_array(scores, "scores")).ravel()[keep]
            y = np.asarray(_as_label_array(y, "y", where)).ravel()[keep]
    s = check_scores(scores, where=where, check_nan=check_nan)
    y_arr = _as_label_array(y, "y", where)
    if s.size != y_arr.size:
        raise _size_error(s.size, y_arr.size, shapes, where)
    yb = np.ascontiguousarray(_binarize(y_arr, pos_label, "y", where, s)).ravel()
    if require_positive and not yb.any():
        raise ValueError(
            f"{_prefix(where)}y has no positive instance: AUPRC is undefined. "
            + _no_positive_hint(pos_label)
        )
    return s, yb, keep


def _shape(x):
    """``numpy.shape(x)``, or "ragged" for input numpy cannot shape (reported later)."""
    try:
        return np.shape(x)
    except ValueError:
        return "ragged"


def _size_error(n_s: int, n_y: int, shapes, where: str | None) -> ValueError:
    return ValueError(
        f"{_prefix(where)}scores and y must have the same number of elements; got "
        f"{n_s} scores and {n_y} labels (shapes {shapes[0]} and {shapes[1]})."
    )


def _no_positive_hint(pos_label) -> str:
    if pos_label is None:
        return (
            "Positives are the labels equal to 1 (or True); 0, False and -1 are negatives. "
            "Pass pos_label= if the positive class has another label."
        )
    return f"No label equals pos_label={pos_label!r}."


def check_scores_labels(
    scores,
    y,
    *,
    pos_label=None,
    where: str | None = "pranker",
    require_positive: bool = True,
    check_nan: bool = True,
):
    """Validate a (scores, labels) pair: the one entry point of every measure.

    Parameters
    ----------
    scores : array_like, any shape (flattened)
    y : array_like, same number of elements
        Labels; see :func:`binarize_labels` for what a positive is.
    pos_label : scalar, optional
        The label of the positive class.
    where : str
        Name of the calling function, put at the start of every error message.
    require_positive : bool
        Raise when no instance is positive.
    check_nan : bool
        Search the scores for NaN. With False the caller must do it (see
        :func:`check_no_nan`); any other error still reports a NaN first.

    Returns
    -------
    scores : ndarray of float64, shape (N,)
    positives : ndarray of bool, shape (N,)

    Instances masked in either argument (numpy masked arrays) are dropped from
    both. Raises a ValueError when the scores are all 0/1 (or all -1/1) and
    the labels are not, which is what a call in scikit-learn's order,
    ``f(y_true, y_score)``, gives. Every message starts with ``where``.
    """
    s, yb, _ = _check_pair(
        scores,
        y,
        pos_label=pos_label,
        where=where,
        require_positive=require_positive,
        check_nan=check_nan,
    )
    return s, yb


def check_weighted_pair(
    scores,
    y,
    sample_weight,
    *,
    need_neg: bool,
    what: str,
    where: str,
    pos_label=None,
    check_nan: bool = True,
):
    """Validated (scores, labels, weights or None) with zero-weight and masked items removed.

    The entry point of every measure that takes ``sample_weight``. Items
    masked in ``scores``, ``y`` or ``sample_weight`` are left out, and so are
    items of weight 0 (as scikit-learn does). The (weighted) positives, and
    with ``need_neg`` the negatives, must not be empty: ``what`` names the
    measure in that error. ``check_nan=False`` (unweighted input only): the
    caller checks the scores for NaN, as in :func:`check_scores`.
    """
    s, yb, keep = _check_pair(
        scores, y, pos_label=pos_label, where=where, require_positive=False, check_nan=check_nan
    )
    if not check_nan and sample_weight is not None:
        check_no_nan(s, where=where)
    w = None
    if sample_weight is not None:
        if np.ma.isMaskedArray(sample_weight):  # a masked weight drops its item, like weight 0
            sample_weight = np.ma.filled(sample_weight.astype(np.float64), 0.0)
        w = check_sample_weight(sample_weight, s.size if keep is None else keep.size, where)
        if keep is not None:
            w = w[keep]
        keep = w > 0
        if not keep.all():
            s, yb, w = s[keep], yb[keep], w[keep]
        pos_mass = float(w[yb].sum()) if s.size else 0.0
        neg_mass = float(w[~yb].sum()) if s.size else 0.0
    else:
        pos_mass = float(np.count_nonzero(yb))
        neg_mass = float(yb.size - pos_mass)
    if not check_nan and (pos_mass <= 0 or (need_neg and neg_mass <= 0)):
        check_no_nan(s, where=where)  # a NaN is reported first
    if pos_mass <= 0:
        raise ValueError(
            f"{where}: y has no positive instance with nonzero weight: the {what} is "
            "undefined. " + _no_positive_hint(pos_label)
        )
    if need_neg and neg_mass <= 0:
        raise ValueError(
            f"{where}: y has no negative instance with nonzero weight: the {what} is undefined "
            "(the false positive rate divides by the number of negatives)."
        )
    return s, yb, w


# ---------------------------------------------------------------------------
# keyword aliases: scores= / y= and scikit-learn's y_score= / y_true=
# ---------------------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])

_ALIASES = (("y_score", "scores"), ("y_true", "y"))


def score_label_aliases(func: F) -> F:
    """Let ``func(scores, y, ...)`` also be called with ``y_score=`` and ``y_true=``.

    Positional calls are unchanged. Giving an argument under both names (or
    positionally and under its alias) is a TypeError, like any duplicate
    argument in Python.
    """
    names = list(inspect.signature(func).parameters)
    missing = [name for _, name in _ALIASES if name not in names]
    if missing:
        raise TypeError(f"score_label_aliases: {func.__name__} has no parameter {missing[0]!r}.")
    position = {name: names.index(name) for _, name in _ALIASES}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for alias, name in _ALIASES:
            if alias not in kwargs:
                continue
            if name in kwargs or len(args) > position[name]:
                how = f"as {name}=" if name in kwargs else "positionally"
                raise TypeError(
                    f"{func.__name__}() got {name} twice: {how} and as {alias}=. Give it "
                    f"once: {func.__name__}(scores, y) in R's order, or by name, "
                    f"{func.__name__}(y_true=..., y_score=...) or "
                    f"{func.__name__}(scores=..., y=...)."
                )
            kwargs[name] = kwargs.pop(alias)
        return func(*args, **kwargs)

    return cast(F, wrapper)


def check_ties(ties: str, where: str | None = None) -> str:
    """``ties`` if it is one of :data:`TIE_MODES`, else a ValueError naming ``where``."""
    if not isinstance(ties, str) or ties not in TIE_MODES:
        raise ValueError(f"{_prefix(where)}ties must be one of {TIE_MODES}; got {ties!r}.")
    return ties


def check_weighted_ties(ties: str, where: str) -> str:
    """``ties`` (already checked) if a weighted AP is defined in that mode, else a ValueError.

    ``"threshold"`` is scikit-learn's weighted AP (tied items form one operating
    point; an integer weight w counts as w copies) and ``"stable"`` gives every
    item its own operating point in input order. The other modes are defined
    over orders of tied *items*, which weights do not give.
    """
    if ties not in WEIGHTED_TIE_MODES:
        raise ValueError(
            f"{where}: ties={ties!r} has no weighted meaning (it is defined over the orders of "
            "tied items, not of weights), so it cannot be used with sample_weight. Use "
            "ties='threshold' for scikit-learn's weighted average_precision_score, or "
            "ties='stable' (ties broken by input order, each item one operating point); "
            "or repeat the items instead of weighting them."
        )
    return ties


def check_sample_weight(sample_weight, n: int, where: str | None) -> np.ndarray:
    """``sample_weight`` as a flat float64 array of ``n`` finite weights >= 0.

    Masked entries must be handled by the caller (a masked weight drops its
    item). A non-numeric or complex weight is an :class:`InputError`, as
    scikit-learn raises a ValueError for it; a wrong length, a NaN, an
    infinite or a negative weight is a ValueError.
    """
    pre = _prefix(where)
    try:
        w = _as_numeric_array(sample_weight, "sample_weight", where)
    except InputError:
        raise
    except TypeError as exc:  # scikit-learn: "could not convert string to float" (ValueError)
        raise InputError(str(exc)) from exc
    w = np.ascontiguousarray(w, dtype=np.float64).ravel()
    if w.size != n:
        raise ValueError(
            f"{pre}sample_weight must have one weight per score; got {w.size} weights "
            f"for {n} scores."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{pre}sample_weight must be finite and >= 0; {int(bad.sum())} value(s) are not, "
            f"the first at index {first} ({w[first]!r})."
        )
    return w


def check_max_fpr(max_fpr, where: str) -> float | None:
    """``max_fpr`` of a partial ROC AUC: None or a number in (0, 1], as scikit-learn."""
    if max_fpr is None:
        return None
    number = isinstance(max_fpr, (int, float, np.integer, np.floating)) and not isinstance(
        max_fpr, (bool, np.bool_)
    )
    if not number or not (0.0 < float(max_fpr) <= 1.0):
        raise InputError(
            f"{where}: max_fpr must be a number in (0, 1] or None (the whole curve); "
            f"got {max_fpr!r}."
        )
    return float(max_fpr)


def check_average(average, where: str) -> str | None:
    """An ``average`` option of a 2-D measure: scikit-learn's names, or "binary"."""
    if average != "binary" and (
        not (average is None or isinstance(average, str)) or average not in AVERAGES
    ):
        raise InputError(
            f"{where}: average must be one of 'binary' (1-D input only, the default), "
            f"'micro', 'macro', 'weighted', 'samples' or None; got {average!r}."
        )
    return average


def check_flag(value, name: str, where: str) -> bool:
    """A True/False option (numpy booleans too), else an :class:`InputError`."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{where}: {name} must be True or False; got {value!r}.")
    return bool(value)


def is_matrix(x) -> bool:
    """Whether ``x`` has more than one axis longer than 1 (a table, not a vector).

    Input numpy cannot shape (ragged lists) is not a table: its own check reports it.
    """
    if isinstance(x, (list, tuple)) and (not x or np.ndim(x[0]) == 0):
        return False  # a flat sequence: no conversion needed to tell
    try:
        shape = np.shape(x)
    except ValueError:
        return False
    return sum(d > 1 for d in shape) > 1


def refuse_table(where: str, scores, y, what: str, note: str = "") -> None:
    """A measure of one ranking given a 2-D (scores, y) table: an error naming the choices.

    ``what`` says what the caller computes for one ranking ("curve", "AP");
    the message offers the micro-averaged one of all entries
    (``numpy.ravel``) or one column at a time; ``note`` is added after the
    shapes.
    """
    if is_matrix(scores) or is_matrix(y):
        raise InputError(
            f"{where}: scores and y have shapes {np.shape(scores)} and {np.shape(y)}, a table "
            f"rather than one ranking{note}. Pass "
            f"numpy.ravel(scores), numpy.ravel(y) for the {what} of all entries ranked "
            f"together (micro-averaged), or one column at a time for each class's {what}."
        )


def matrix_error(where: str, scores, y) -> ValueError:
    """The error for 2-D (scores, y) given to a measure of one ranking without ``average``."""
    return ValueError(
        f"{where}: scores and y have shapes {np.shape(scores)} and {np.shape(y)}, a table "
        "rather than one ranking, and no average is chosen. Say which one you want: "
        "average='micro' ranks all entries together (the flattened arrays: what R's pranker "
        "and pranker() compute), average='macro' is the mean over the columns (classes) of "
        "their own values (scikit-learn's default); 'weighted', 'samples' and None (one "
        "value per column) are as in scikit-learn."
    )


def check_table_shapes(scores, y, where: str, average) -> tuple[int, int]:
    """Shape (n_samples, n_classes) of a 2-D (scores, y) pair averaged over columns or rows.

    Both must be 2-D of the same shape: scikit-learn's multilabel-indicator
    layout, one column of labels per class.
    """
    shape_s, shape_y = np.shape(scores), np.shape(y)
    if len(shape_s) != 2 or shape_y != shape_s:
        raise ValueError(
            f"{where}: with average={average!r}, scores and y must be 2-D arrays of the same "
            f"shape (n_samples, n_classes), one column of binary labels per class as in "
            f"scikit-learn's multilabel layout; got shapes {shape_s} and {shape_y}. Labels "
            "of several classes in one column must be one-hot encoded first (e.g. "
            "sklearn.preprocessing.label_binarize)."
        )
    return int(shape_s[0]), int(shape_s[1])


def check_rows(scores, y, where: str, pos_label=None):
    """One ranking per row: 2-D float64 scores (no NaN) and bool labels of the same shape.

    ``y`` may be one row of labels shared by every row. Masked entries are
    refused. Every message starts with ``where``.
    """
    s = np.asarray(_as_numeric_array(scores, "scores", where=where))
    if s.ndim != 2:
        raise ValueError(
            f"{where}: scores must be 2-D (one ranking per row); got shape {s.shape}. "
            "For a single ranking use the 1-D function."
        )
    R, n = s.shape
    if n == 0 or R == 0:
        raise ValueError(
            f"{where}: scores has shape {s.shape}: need at least one row and one column."
        )
    flat = check_scores(s, where=where).reshape(R, n)
    yb = binarize_labels(y, pos_label=pos_label, where=where, scores=flat)
    if yb.shape == (n,):
        yb = np.broadcast_to(yb, (R, n))
    if yb.shape != (R, n):
        raise ValueError(
            f"{where}: y must have shape {(n,)} (shared by all rows) or {(R, n)}; got {yb.shape}."
        )
    return flat, yb


def check_row_weights(sample_weight, shape: tuple[int, int], where: str) -> np.ndarray:
    """Weights of a row-wise measure: shape (N,) shared by every row, or (R, N)."""
    R, n = shape
    if np.ma.isMaskedArray(sample_weight):
        k = _masked_count(sample_weight)
        if k:
            raise ValueError(_prefix(where) + _masked_message("sample_weight", k))
    w = np.asarray(np.ma.getdata(sample_weight))
    if w.shape not in ((n,), (R, n)):
        raise ValueError(
            f"{where}: sample_weight must have shape {(n,)} (shared by all rows) or "
            f"{(R, n)}; got {w.shape}."
        )
    flat = check_sample_weight(w, w.size, where)
    return np.broadcast_to(flat.reshape(w.shape), (R, n))


def check_each_row(ok: np.ndarray, where: str, what: str, axis: str = "row") -> None:
    """Raise a ValueError naming the first ``axis`` (row, column) whose ``ok`` is False."""
    if not ok.all():
        bad = np.flatnonzero(~ok)
        raise ValueError(
            f"{where}: {axis} {int(bad[0])} of y {what} ({bad.size} {axis}(s) in all)."
        )


def check_ap(ap) -> float:
    """An observed AP as a finite float."""
    try:
        a = float(ap)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"ap must be a number; got {ap!r}.") from exc
    if not math.isfinite(a):
        raise ValueError(f"ap must be finite; got {a}.")
    return a


def check_conf_level(conf_level, where: str | None = None) -> float:
    """A confidence level in (0, 1) as a float."""
    c = float(conf_level)
    if not (0.0 < c < 1.0):
        raise ValueError(_prefix(where) + f"conf_level must be in (0, 1); got {conf_level!r}.")
    return c


def check_params(params) -> tuple[float, float]:
    """Null parameters ``(mean, var)``: finite numbers with ``var >= 0``."""
    try:
        mean, var = params
        mean = float(mean)
        var = float(var)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"params must be a pair (mean, var) of numbers, as returned by null_params; got {params!r}."
        ) from exc
    if not (math.isfinite(mean) and math.isfinite(var)) or var < 0.0:
        raise ValueError(f"params must be a finite mean and a variance >= 0; got {params!r}.")
    return mean, var


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
        raise ValueError(
            f"N must be <= 2**62; got {np.ravel(n_arr)[bad]} at flattened index {bad}."
        )
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


def check_query_counts(n, n_pos, where: str, extra: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
    """Per-query counts as int64 arrays: one entry per query (as many as each of ``extra``),
    at least one, ``1 <= n_pos <= n`` each; else a ValueError naming the first bad query."""
    n = np.asarray(n, dtype=np.int64).ravel()
    n_pos = np.asarray(n_pos, dtype=np.int64).ravel()
    sizes = [np.size(e) for e in extra] + [n.size, n_pos.size]
    if len(set(sizes)) != 1 or n.size == 0:
        names = ", ".join(["ap"] * len(extra) + ["n"]) + " and n_pos"
        got = ", ".join(str(k) for k in sizes[:-1]) + f" and {sizes[-1]}"
        raise ValueError(f"{where}: {names} need one entry per query, at least one; got {got}.")
    bad = (n_pos < 1) | (n_pos > n)
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{where}: query {q} has {n_pos[q]} positives of {n[q]}; every query needs "
            "1 <= P <= N (AP is undefined without a positive)."
        )
    return n, n_pos


def check_probability(value, name: str, where: str | None = None, what: str = ""):
    """``value`` (None allowed) as a float in (0, 1); ``what``: what it is for, in the message."""
    if value is None:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not (ok and 0.0 < float(value) < 1.0):
        at = f"{where}: " if where else ""
        raise ValueError(f"{at}{name}{what} must be in (0, 1); got {value!r}.")
    return float(value)


def check_positive(value, name: str, where: str | None, integer: bool = False):
    """``value`` (None allowed) as a positive float, or a positive integer when ``integer``."""
    if value is None:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    ok = ok and value > 0 and (not integer or float(value).is_integer())
    if not ok:
        at = f"{where}: " if where else ""
        kind = "a positive integer" if integer else "a positive number"
        raise ValueError(f"{at}{name} must be {kind} or None; got {value!r}.")
    return int(value) if integer else float(value)
