"""Numbers and p-values as short text, shared by the command line and the figures.

Numbers keep their information: a p-value is never rounded to ``0.0000``.
Exact p-values get 4 significant digits (``0.007937``); Monte Carlo ones 2,
with their interval (``0.0005 [0, 0.003]``); approximations carrying a
relative standard error get the digits it supports and the error
(``1.3e-108 (±1.5 %)``). Values below the floating-point range come from
``log10_pvalue`` (``6.3e-468``). The functions that take a result accept a
:class:`pranker.PrankerResult` (or any object with its fields) and read
optional fields with ``getattr``.

Used by :mod:`pranker.cli` (tables, the HTML report) and
:mod:`pranker.plotting` (the p-value printed on the null figure).
"""

from __future__ import annotations

import math
import re

__all__ = [
    "LOG_BELOW",
    "bound_fraction",
    "from_log10",
    "interval",
    "log10_pvalue",
    "null_interval",
    "pvalue_digits",
    "pvalue_interval",
    "pvalue_kind",
    "pvalue_number",
    "pvalue_rse",
    "pvalue_text",
    "sig",
]

# p-values below this are printed from their log10 when the result carries it
# (doubles lose digits below ~2.2e-308 and underflow to 0 below ~5e-324)
LOG_BELOW = 1e-300


# --- numbers ---------------------------------------------------------------------


def sig(x: float | None, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, short exponents (``1.5e-5``, ``2e+12``)."""
    if x is None:
        return "n/a"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "0"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{x:.{digits}g}")


def from_log10(lg: float, digits: int) -> str:
    """``10**lg`` to ``digits`` significant digits without computing it (``-467.2`` -> ``6.3e-468``)."""
    e = math.floor(lg)
    m = round(10.0 ** (lg - e), digits - 1)
    if m >= 10.0:
        m /= 10.0
        e += 1
    text = f"{m:.{digits - 1}f}".rstrip("0").rstrip(".") if digits > 1 else f"{m:.0f}"
    return f"{text}e{e:+d}".replace("e+", "e")


def interval(lo: float, hi: float, digits: int = 3) -> str:
    """``[lo, hi]`` in significant digits."""
    return f"[{sig(lo, digits)}, {sig(hi, digits)}]"


# --- the fields of a result ------------------------------------------------------------


def log10_pvalue(res) -> float | None:
    """``res.log10_pvalue`` when the result carries it, else ``log10(res.pvalue)``; None for 0."""
    lg = getattr(res, "log10_pvalue", None)
    if lg is not None and not math.isnan(lg):
        return float(lg)
    p = float(res.pvalue)
    return math.log10(p) if p > 0.0 else None


def pvalue_interval(res) -> tuple[float, float] | None:
    """The interval for the true p-value, or None when the method gives no error bound."""
    iv = getattr(res, "pvalue_interval", None)
    return None if iv is None else (float(iv[0]), float(iv[1]))


def null_interval(res) -> tuple[float, float]:
    """The central null interval of the result's statistic."""
    iv = res.null_interval
    return (float(iv[0]), float(iv[1]))


def pvalue_rse(res) -> float | None:
    """The relative standard error of the p-value when finite and known, else None."""
    rse = getattr(res, "pvalue_rse", None)
    return None if rse is None or not math.isfinite(rse) else float(rse)


# --- p-values ----------------------------------------------------------------------


def pvalue_kind(res) -> str:
    """How to print the p-value: ``exact``, ``bound`` (a measured error bound), ``interval``
    (Monte Carlo), ``rse`` or ``plain``."""
    method = getattr(res, "method", None)
    iv = pvalue_interval(res)
    rse = pvalue_rse(res)
    if method == "exact" or rse == 0.0 or (iv is not None and iv[0] == iv[1]):
        return "exact"
    if method == "saddlepoint" and iv is not None and res.pvalue > 0.0:
        return "bound"
    if iv is not None and (method == "montecarlo" or rse is None):
        return "interval"
    if rse is not None:
        return "rse"
    return "plain"


def pvalue_digits(res) -> int:
    """Significant digits a p-value supports: 4 when exact, from the error when known, else 3."""
    kind = pvalue_kind(res)
    if kind == "exact":
        return 4
    if kind == "rse":
        rse = pvalue_rse(res)
        assert rse is not None  # pvalue_kind gives "rse" only when the error is known
        return max(1, min(4, math.ceil(-math.log10(rse))))
    return 3


def pvalue_number(p: float, lg: float | None, digits: int) -> str:
    """A p-value; below :data:`LOG_BELOW` from its log10 when known, never rounded to 0."""
    p = float(p)
    if p >= LOG_BELOW or (p > 0.0 and lg is None):
        return sig(p, digits)
    if lg is not None and math.isfinite(lg):
        return from_log10(lg, digits)
    return "<1e-300"


def pvalue_text(res, pm: str = "±") -> str:
    """The p-value as printed in the score table: ``0.007937``, ``0.0005 [0, 0.003]``,
    ``1.3e-108 (±1.5 %)``, ``6.3e-468``; ``pm`` is the plus-minus sign (``"+/-"``
    for terminals without Unicode)."""
    kind = pvalue_kind(res)
    lg = log10_pvalue(res)
    if kind == "interval":
        iv = pvalue_interval(res)
        assert iv is not None  # pvalue_kind gives "interval" only when there is one
        return f"{pvalue_number(res.pvalue, lg, 2)} {interval(iv[0], iv[1], 2)}"
    text = pvalue_number(res.pvalue, lg, pvalue_digits(res))
    if kind == "bound":
        text += f" ({pm}{sig(100.0 * bound_fraction(res), 2)} % bound)"
    if kind == "rse":
        rse = pvalue_rse(res)
        assert rse is not None  # pvalue_kind gives "rse" only when the error is known
        text += f" ({pm}{sig(100.0 * rse, 2)} %)"
    return text


def bound_fraction(res) -> float:
    """The relative half-width of a measured error bound (its upper end over the p-value, minus 1)."""
    lg = log10_pvalue(res)
    liv = getattr(res, "log10_pvalue_interval", None)
    if liv is not None and lg is not None and math.isfinite(lg):
        return 10.0 ** (liv[1] - lg) - 1.0
    iv = pvalue_interval(res)
    assert iv is not None  # pvalue_kind gives "bound" only when there is one
    return iv[1] / res.pvalue - 1.0


# --- methods in words ----------------------------------------------------------------

#: how each p-value method reads in prose, figure legends and captions
METHOD_NAMES = {
    "exact": "exact enumeration",
    "tilt": "exponential tilting",
    "saddlepoint": "saddlepoint approximation",
    "montecarlo": "Monte Carlo",
    "beta": "beta approximation",
    "skewbeta": "skewed beta approximation",
}


def method_name(m: str) -> str:
    """A method as a reader reads it: ``"montecarlo"`` -> ``"Monte Carlo"`` (unknown names
    unchanged)."""
    return METHOD_NAMES.get(m, str(m))
