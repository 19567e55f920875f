"""Numbers and results as text (the score table), JSON-ready dicts and CSV.

Numbers keep their information: a p-value is never rounded to ``0.0000``.
Exact p-values get 4 significant digits (``0.007937``); Monte Carlo ones 2,
with their interval (``0.0005 [0, 0.003]``); approximations carrying a
relative standard error get the digits it supports and the error
(``1.3e-108 (±1.5 %)``). Values below the floating-point range come from
``log10_pvalue`` (``6.3e-468``). Every function takes a
:class:`pranker.PrankerResult` and reads optional fields with ``getattr``.
"""

from __future__ import annotations

import csv
import io
import math
import re

# p-values below this are printed from their log10 when the result carries it
# (doubles lose digits below ~2.2e-308 and underflow to 0 below ~5e-324)
LOG_BELOW = 1e-300


def sig(x: float, digits: int = 4) -> str:
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


# --- p-values ------------------------------------------------------------------


def log10_pvalue(res) -> float | None:
    """``res.log10_pvalue`` when the result carries it, else ``log10(res.pvalue)``; None for 0."""
    lg = getattr(res, "log10_pvalue", None)
    if lg is not None and not math.isnan(lg):
        return float(lg)
    p = float(res.pvalue)
    return math.log10(p) if p > 0.0 else None


def _has(res, name: str) -> bool:
    """Whether ``res`` defines ``name`` itself (a field or property), without reading it:
    reading an old name that the result keeps as a deprecated alias would warn."""
    return (
        name in getattr(res, "__dataclass_fields__", {})
        or name in getattr(res, "__dict__", {})
        or hasattr(type(res), name)
    )


def _new_or_old(res, new: str, old: str):
    """Attribute ``new`` if the result has it, else the older name ``old`` (or None)."""
    return getattr(res, new) if _has(res, new) else getattr(res, old, None)


def pvalue_interval(res):
    """The interval for the true p-value (``pvalue_interval``, formerly ``pvalue_ci``)."""
    iv = _new_or_old(res, "pvalue_interval", "pvalue_ci")
    return None if iv is None else (float(iv[0]), float(iv[1]))


def null_interval(res):
    """The central null AUPRC interval (``null_interval``, formerly ``conf_int``)."""
    iv = _new_or_old(res, "null_interval", "conf_int")
    return (float(iv[0]), float(iv[1]))


def pvalue_rse(res) -> float | None:
    rse = getattr(res, "pvalue_rse", None)
    return None if rse is None or not math.isfinite(rse) else float(rse)


def _kind(res) -> str:
    """How to print the p-value: ``exact``, ``interval`` (Monte Carlo), ``rse`` or ``plain``."""
    method = getattr(res, "method", None)
    iv = pvalue_interval(res)
    rse = pvalue_rse(res)
    if method == "exact" or rse == 0.0 or (iv is not None and iv[0] == iv[1]):
        return "exact"
    if iv is not None and (method == "montecarlo" or rse is None):
        return "interval"
    if rse is not None:
        return "rse"
    return "plain"


def _digits(res) -> int:
    """Significant digits a p-value supports: 4 when exact, from the error when known, else 3."""
    kind = _kind(res)
    if kind == "exact":
        return 4
    if kind == "rse":
        rse = pvalue_rse(res)
        assert rse is not None  # _kind gives "rse" only when the error is known
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


def pvalue_text(res) -> str:
    """The p-value cell of the score table: ``0.007937``, ``0.0005 [0, 0.003]``,
    ``1.3e-108 (±1.5 %)``, ``6.3e-468``."""
    return _pvalue_text(res, "±")


def _pvalue_text(res, pm: str) -> str:
    kind = _kind(res)
    lg = log10_pvalue(res)
    if kind == "interval":
        iv = pvalue_interval(res)
        return f"{pvalue_number(res.pvalue, lg, 2)} {interval(iv[0], iv[1], 2)}"
    text = pvalue_number(res.pvalue, lg, _digits(res))
    if kind == "rse":
        rse = pvalue_rse(res)
        assert rse is not None  # _kind gives "rse" only when the error is known
        text += f" ({pm}{sig(100.0 * rse, 2)} %)"
    return text


def unicode_ok(stream) -> bool:
    """Whether ``stream`` can print the ≥ and ± signs (else >= and +/- are used)."""
    try:
        "≥±".encode(getattr(stream, "encoding", None) or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


# --- the score table -------------------------------------------------------------


def render_table(headers, rows) -> str:
    """Columns padded to their widest cell; the first two left-aligned, the others right."""
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]

    def line(cells):
        return "  ".join(
            c.ljust(w) if j < 2 else c.rjust(w)
            for j, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def plain_line(column: str, res, *, ge: str = "≥", pm: str = "±") -> str:
    """One sentence for users: how likely a random ranking does as well."""
    lg = log10_pvalue(res)
    if _kind(res) == "interval":
        iv = pvalue_interval(res)
        draws = getattr(res, "n_draws", None)
        source = f"; Monte Carlo, {draws:,} random rankings" if draws else "; Monte Carlo"
        p = (
            f"about {pvalue_number(res.pvalue, lg, 2)} ({100 * res.conf_level:g}% interval "
            f"{sig(iv[0], 2)} to {sig(iv[1], 2)}{source})"
        )
    else:
        p = _pvalue_text(res, pm)
    return (
        f"{column}: a random ranking of these {res.n:,} items scores AUPRC {ge} "
        f"{sig(res.auprc, 4)} with probability {p}"
    )


def format_results(columns, results, padj_log10, label, source, *, unicode: bool = True) -> str:
    """The score table, then one plain-language line per column.

    ``padj_log10``: log10 of the Benjamini-Hochberg adjusted p-values (several
    columns) or None.
    """
    ge, pm = ("≥", "±") if unicode else (">=", "+/-")
    r0 = results[0]
    pct = f"{100 * r0.conf_level:g}%"
    head = (
        f"{source}: labels {label!r}, N = {r0.n:,}, P = {r0.n_pos:,} "
        f"(P/N = {sig(r0.n_pos / r0.n, 4)}); ties = {r0.ties}"
    )
    headers = ["scores", "method", "AUPRC", "p-value"]
    headers += ["p (BH)"] if padj_log10 is not None else []
    headers += ["null mean", "null var", f"{pct} null interval"]
    rows = []
    for k, (c, r) in enumerate(zip(columns, results, strict=True)):
        row = [c, str(getattr(r, "method", "")), sig(r.auprc, 4), _pvalue_text(r, pm)]
        if padj_log10 is not None:
            lg = padj_log10[k]
            row.append(pvalue_number(10.0**lg if lg is not None else 0.0, lg, 3))
        row += [sig(r.null_mean, 4), sig(r.null_var, 3), interval(*null_interval(r))]
        rows.append(row)
    notes = [plain_line(c, r, ge=ge, pm=pm) for c, r in zip(columns, results, strict=True)]
    return head + "\n" + render_table(headers, rows) + "\n\n" + "\n".join(notes)


# --- JSON and CSV ------------------------------------------------------------------


def _clean(v):
    """``v`` ready for JSON, which has no infinity and no NaN: those become None (null)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return [_clean(x) for x in v]
    if isinstance(v, list):
        return [_clean(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict, str)):  # numpy scalar
        return _clean(v.item())
    return v


_NO_BH = object()


def result_dict(r, column, label, source, padj_log10=_NO_BH) -> dict:
    """A result as a JSON-ready dict (non-finite floats as None) with ``log10_pvalue``,
    its columns and file; with several columns, ``pvalue_bh`` and ``log10_pvalue_bh``
    from ``padj_log10`` (None: the adjusted p-value underflows to 0)."""
    d = {k: _clean(v) for k, v in r.to_dict().items()}
    d["log10_pvalue"] = _clean(log10_pvalue(r))
    if "null_interval" not in d:  # older results: conf_int
        d["null_interval"] = list(null_interval(r))
    if "min_auprc" not in d and _has(r, "min_auprc"):
        d["min_auprc"] = _clean(float(r.min_auprc))
    d["score_column"] = column
    d["label_column"] = label
    d["file"] = source
    if padj_log10 is not _NO_BH:
        d["pvalue_bh"] = 10.0**padj_log10 if padj_log10 is not None else 0.0
        d["log10_pvalue_bh"] = _clean(padj_log10)
    return d


CSV_COLUMNS = (
    "score_column",
    "label_column",
    "file",
    "n",
    "n_pos",
    "auprc",
    "method",
    "pvalue",
    "log10_pvalue",
    "pvalue_low",
    "pvalue_high",
    "pvalue_rse",
    "pvalue_bh",
    "log10_pvalue_bh",
    "null_mean",
    "null_var",
    "null_low",
    "null_high",
    "conf_level",
    "min_auprc",
    "ties",
    "seed",
    "n_draws",
)


def results_csv(records) -> str:
    """CSV text, one row per result dict of :func:`result_dict` (full precision)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for d in records:
        iv = d.get("pvalue_interval") or d.get("pvalue_ci") or (None, None)
        ni = d.get("null_interval") or d.get("conf_int") or (None, None)
        flat = dict(d, pvalue_low=iv[0], pvalue_high=iv[1], null_low=ni[0], null_high=ni[1])
        w.writerow(
            [
                ""
                if flat.get(c) is None
                else repr(flat[c])
                if isinstance(flat[c], float)
                else flat[c]
                for c in CSV_COLUMNS
            ]
        )
    return buf.getvalue()
