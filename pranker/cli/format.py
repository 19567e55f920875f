"""Numbers and results as text (the score table) and as JSON-ready dicts."""

from __future__ import annotations

import math


def fmt(x: float, digits: int = 4) -> str:
    """``digits`` significant digits, scientific notation for small or large values."""
    return f"{x:.{digits}g}"


def fmt_p(p: float) -> str:
    """A p-value; 0 from floating-point underflow is shown as an upper bound."""
    if p == 0.0:
        return "<1e-300"
    return fmt(p, 3)


def render_table(headers, rows) -> str:
    """Columns padded to their widest cell; the first left-aligned, the others right."""
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) if j == 0 else h.rjust(w)
                       for j, (h, w) in enumerate(zip(headers, widths, strict=True)))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                               for j, (c, w) in enumerate(zip(r, widths, strict=True))))
    return "\n".join(lines)


def format_results(columns, results, padj, label, source) -> str:
    r0 = results[0]
    pct = f"{100 * r0.conf_level:g}%"
    head = (f"{source}: labels {label!r}, N = {r0.n:,}, P = {r0.n_pos:,} "
            f"(P/N = {r0.n_pos / r0.n:.4g}); ties = {r0.ties}, p-value by {r0.method}")
    headers = ["scores", "AUPRC", "p-value"] + (["p (BH)"] if padj is not None else []) + \
        ["null mean", "null var", f"{pct} null interval"]
    rows = []
    for k, (c, r) in enumerate(zip(columns, results, strict=True)):
        row = [c, f"{r.auprc:.4f}", fmt_p(r.pvalue)]
        if padj is not None:
            row.append(fmt_p(float(padj[k])))
        row += [fmt(r.null_mean), fmt(r.null_var, 3),
                f"[{r.conf_int[0]:.4f}, {r.conf_int[1]:.4f}]"]
        rows.append(row)
    notes = []
    for c, r in zip(columns, results, strict=True):
        ci = getattr(r, "pvalue_ci", None)
        if ci is not None:
            notes.append(f"{c}: Monte Carlo p-value from {getattr(r, 'n_draws', 0):,} random "
                         f"rankings, {pct} interval [{fmt(ci[0], 3)}, {fmt(ci[1], 3)}]")
    return head + "\n" + render_table(headers, rows) + "".join("\n" + n for n in notes)


def result_dict(r, column, label, source, padj=None) -> dict:
    """A result as a JSON-ready dict (non-finite floats as None) with its columns and file."""
    d = r.to_dict()
    d = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}
    d["score_column"] = column
    d["label_column"] = label
    d["file"] = source
    if padj is not None:
        d["pvalue_bh"] = float(padj)
    return d
