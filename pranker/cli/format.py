"""Results as text for the command line (the score table and its plain-language
lines), JSON-ready dicts and CSV.

The numbers and p-values themselves are formatted by :mod:`pranker._format`
(shared with :mod:`pranker.plotting`); its names are importable from here too.
Every function takes a :class:`pranker.PrankerResult` and reads optional
fields with ``getattr``.
"""

from __future__ import annotations

import csv
import io

from .._format import (  # noqa: F401  (re-exported: the other cli modules import them from here)
    LOG_BELOW,
    bound_fraction,
    from_log10,
    interval,
    log10_pvalue,
    null_interval,
    pvalue_interval,
    pvalue_kind,
    pvalue_number,
    pvalue_rse,
    pvalue_text,
    sig,
)
from .._results import jsonable


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
    if pvalue_kind(res) == "interval":
        iv = pvalue_interval(res)
        assert iv is not None  # pvalue_kind gives "interval" only when there is one
        draws = getattr(res, "n_draws", None)
        source = f"; Monte Carlo, {draws:,} random rankings" if draws else "; Monte Carlo"
        p = (
            f"about {pvalue_number(res.pvalue, lg, 2)} ({100 * res.conf_level:g}% interval "
            f"{sig(iv[0], 2)} to {sig(iv[1], 2)}{source})"
        )
    elif pvalue_kind(res) == "bound":
        p = (
            f"about {pvalue_number(res.pvalue, lg, 2)} (saddlepoint approximation, within "
            f"{pm}{sig(100.0 * bound_fraction(res), 2)} %: its error bound measured against "
            "an unbiased estimator)"
        )
    else:
        p = pvalue_text(res, pm)
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
        row = [c, str(getattr(r, "method", "")), sig(r.auprc, 4), pvalue_text(r, pm)]
        if padj_log10 is not None:
            lg = padj_log10[k]
            row.append(pvalue_number(10.0**lg if lg is not None else 0.0, lg, 3))
        row += [sig(r.null_mean, 4), sig(r.null_var, 3), interval(*null_interval(r))]
        rows.append(row)
    notes = [plain_line(c, r, ge=ge, pm=pm) for c, r in zip(columns, results, strict=True)]
    return head + "\n" + render_table(headers, rows) + "\n\n" + "\n".join(notes)


# --- JSON and CSV ------------------------------------------------------------------


_NO_BH = object()


def result_dict(r, column, label, source, padj_log10=_NO_BH) -> dict:
    """A result as a JSON-ready dict (non-finite floats as None) with ``log10_pvalue``,
    its columns and file; with several columns, ``pvalue_bh`` and ``log10_pvalue_bh``
    from ``padj_log10`` (None: the adjusted p-value underflows to 0)."""
    d = r.to_dict()
    d["log10_pvalue"] = jsonable(log10_pvalue(r))
    if "min_auprc" not in d and hasattr(r, "min_auprc"):
        d["min_auprc"] = jsonable(float(r.min_auprc))
    d["score_column"] = column
    d["label_column"] = label
    d["file"] = source
    if padj_log10 is not _NO_BH:
        d["pvalue_bh"] = 10.0**padj_log10 if padj_log10 is not None else 0.0
        d["log10_pvalue_bh"] = jsonable(padj_log10)
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
        iv = d.get("pvalue_interval") or (None, None)
        ni = d.get("null_interval") or (None, None)
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
