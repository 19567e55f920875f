"""What every result object shares: the field vocabulary, deprecated names, JSON.

Every result type of the package (one ranking, many rankings, mean AP and
its groups, comparisons, Monte Carlo p-values) carries every one of these
fields (:data:`SHARED_FIELDS`), None where it does not apply, and gives them
all in ``to_dict()``:

``statistic``
    The observed value (scipy's name); results of one measure also carry the
    measure's own name (``auprc``, ``mean_ap``).
``pvalue``, ``log10_pvalue``
    The p-value and its log10 (finite where the p-value underflows float64).
``pvalue_interval``
    Confidence interval of the true p-value at ``conf_level``; for a
    saddlepoint p-value inside its calibrated region the interval of its
    measured error bound (not a confidence level); None when the method
    gives no error bound.
``pvalue_rse``
    Relative standard error of the p-value: 0 when exact, None when not
    estimated.
``method``
    How the p-value was obtained.
``n_draws``, ``seed``
    Random draws behind the p-value and their seed; None when no random
    draw was made.
``conf_level``
    The confidence level of every interval of the result.
``null_interval``
    Central ``conf_level`` interval of the statistic under the null.
``null_mean``, ``null_var``
    Mean and variance of the statistic under the null.
``n``, ``n_pos``
    Number of instances and of positives (for a mean AP, summed over the
    queries).

Each result also has ``_repr_html_`` (a table in Jupyter) and ``plot()``.
None always means "not estimated" (in the arrays of batch results, NaN).
``to_dict()`` returns plain Python values ready for strict JSON: lists for
arrays and tuples, None for NaN and infinities.

Names that were renamed keep working until ``REMOVAL`` through
:class:`DeprecatedAlias` (attributes) and :func:`renamed_parameters`
(keyword arguments), both of which warn with :class:`DeprecationWarning`.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, cast

import numpy as np

__all__ = ["DeprecatedAlias", "deprecated", "renamed_parameters", "jsonable", "SHARED_FIELDS"]

# the fields every result carries, in the order docs/guide.md lists them ("Names in results")
SHARED_FIELDS = (
    "statistic",
    "pvalue",
    "log10_pvalue",
    "pvalue_interval",
    "pvalue_rse",
    "method",
    "n_draws",
    "seed",
    "conf_level",
    "null_interval",
    "null_mean",
    "null_var",
    "n",
    "n_pos",
)


F = TypeVar("F", bound=Callable[..., Any])

REMOVAL = "0.5.0"  # the release that removes every deprecated name (see CHANGELOG.md)


def deprecated(old: str, new: str, owner: str, *, stacklevel: int = 3) -> None:
    """Warn that ``owner.old`` is deprecated in favour of ``new``."""
    warnings.warn(
        f"{owner}.{old} is deprecated and will be removed in pranker {REMOVAL}; use {new}.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


class DeprecatedAlias:
    """A read-only attribute under an earlier name: warns, then reads ``new`` (a dotted path),
    or its item ``index`` when given (``DeprecatedAlias("pvalue_interval", 0)``)."""

    def __init__(self, new: str, index: int | None = None):
        self.new, self.index = new, index
        self.shown = new if index is None else f"{new}[{index}]"
        self.__doc__ = f"Deprecated alias of ``{self.shown}``."

    def __set_name__(self, owner, name: str) -> None:
        self.owner, self.name = owner.__name__, name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        deprecated(self.name, self.shown, self.owner)
        value = attrgetter(self.new)(obj)
        return value if self.index is None else value[self.index]

    def __set__(self, obj, value) -> None:
        raise AttributeError(f"{self.owner}.{self.name} is read-only")


def renamed_parameters(**renames: str) -> Callable[[F], F]:
    """Accept keyword arguments under earlier names, with a DeprecationWarning.

    ``@renamed_parameters(confidence_level="conf_level")`` lets
    ``f(confidence_level=0.9)`` mean ``f(conf_level=0.9)``; giving both is a
    TypeError, like any duplicate argument.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(
                        f"{func.__qualname__}() got {new} twice: as {new}= and as {old}= "
                        f"(its earlier name). Give only {new}=."
                    )
                deprecated(f"{old}=", f"{new}=", f"{func.__qualname__}()", stacklevel=3)
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return cast(F, wrapper)

    return decorate


def jsonable(value):
    """``value`` as plain Python: lists for arrays and tuples, floats and ints, None for NaN
    and infinities (strict JSON has neither; an open end of a one-sided interval is None).

    >>> jsonable({"p": np.float64(0.5), "ci": (np.nan, 1.0), "k": np.arange(2)})
    {'p': 0.5, 'ci': [None, 1.0], 'k': [0, 1]}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
