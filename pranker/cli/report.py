"""A one-page, self-contained HTML report of AUPRC significance (``--report``).

The page holds the results table (p-values printed as in the terminal), a
plain-language reading of each p-value, how each p-value was computed, the
figures (inline SVG, as ``data:`` URIs: nothing is fetched from the network),
what to cite, and what is needed to reproduce the numbers (versions, seeds,
the input file's name, size and SHA-256, the command line). CSS is inline; the
page has no scripts.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import io
import math
import os
import platform
import re
import sys

from .._format import method_name
from .format import (
    interval,
    log10_pvalue,
    null_interval,
    plain_line,
    pvalue_interval,
    pvalue_number,
    pvalue_text,
    sig,
)

PAPER = (
    "M. Lopes and G. Bontempi. On the null distribution of the precision and recall "
    "curve. In Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2014), "
    "Lecture Notes in Computer Science 8725. Springer, 2014."
)
PAPER_DOI = "10.1007/978-3-662-44851-9_21"
SOFTWARE_TITLE = "pranker: AUPRC significance against random ranking (Python)"
SOFTWARE_AUTHORS = "pranker developers"

BIBTEX = """@inproceedings{{lopes2014null,
  author    = {{Lopes, Miguel and Bontempi, Gianluca}},
  title     = {{On the null distribution of the precision and recall curve}},
  booktitle = {{Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2014)}},
  series    = {{Lecture Notes in Computer Science}},
  volume    = {{8725}},
  publisher = {{Springer}},
  year      = {{2014}},
  doi       = {{{doi}}}
}}
@software{{pranker,
  author  = {{{authors}}},
  title   = {{{title}}},
  version = {{{version}}}
}}"""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       max-width: 1100px; margin: 1.5em auto; padding: 0 1em; color: #1a1a1a;
       line-height: 1.45; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.6em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.5em; text-align: right;
         vertical-align: top; }
th { background: #f4f4f4; }
td.l, th.l { text-align: left; }
td.num { font-variant-numeric: tabular-nums; }
td.name { overflow-wrap: anywhere; min-width: 6em; }
.nw { white-space: nowrap; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; }
pre, code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.88em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; }
dl.kv dt { font-weight: 600; }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
.wide { overflow-x: auto; max-width: 100%; }
.note { color: #555; font-size: 0.9em; }
"""


# --- facts ---------------------------------------------------------------------


def file_facts(path: str | None, data: bytes | None = None) -> dict:
    """Name, size in bytes and SHA-256 of the input (a file, or the bytes read from stdin)."""
    h = hashlib.sha256()
    if data is not None:
        h.update(data)
        return {"name": "standard input", "size": len(data), "sha256": h.hexdigest()}
    assert path is not None  # the callers give a path whenever there are no bytes
    size = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return {"name": os.path.basename(path), "path": path, "size": size, "sha256": h.hexdigest()}


def versions() -> dict:
    """Versions of pranker, Python and the libraries behind the numbers."""
    from .._version import __version__

    out = {"pranker": __version__, "Python": platform.python_version()}
    for mod in ("numpy", "scipy", "numba", "matplotlib"):
        m = sys.modules.get(mod)
        if m is None:
            try:
                m = __import__(mod)
            except ImportError:
                continue
        out[mod] = getattr(m, "__version__", "?")
    out["platform"] = platform.platform()
    return out


def command_line(argv) -> str:
    import shlex

    return "pranker " + shlex.join(str(a) for a in argv)


# --- words -----------------------------------------------------------------------


def _count_words(n: int, p: int) -> str:
    lg = (math.lgamma(n + 1) - math.lgamma(p + 1) - math.lgamma(n - p + 1)) / math.log(10)
    if lg < 15:
        return f"{math.comb(n, p):,}"
    return f"about 10^{lg:.0f}"


#: each method's name as a reader reads it (the table; the prose says more).

#: how the central null interval was found, for each ``null_interval_method``.
NULL_INTERVAL_WORDS = {
    "exact": "computed exactly, by enumeration",
    "montecarlo": "estimated by Monte Carlo, from random rankings",
    "saddlepoint": "from the saddlepoint approximation",
    "beta": "from the beta approximation",
    "skewbeta": "from the skewed beta approximation (matched to three moments)",
}


def method_words(r) -> str:
    """How the p-value of result ``r`` was computed, in plain words."""
    m = getattr(r, "method", "")
    iv = pvalue_interval(r)
    lvl = f"{100 * r.conf_level:g}%"
    rse = getattr(r, "pvalue_rse", None)
    draws = getattr(r, "n_draws", None)
    seed = getattr(r, "seed", None)
    if m == "exact":
        return (
            f"Exact: the probability was counted over all {_count_words(r.n, r.n_pos)} "
            f"equally likely placements of the {r.n_pos:,} positives among the "
            f"{r.n:,} items; no approximation and no randomness."
        )
    if m == "tilt":
        text = (
            "Exponential tilting (importance sampling): random rankings are drawn from "
            "a distribution tilted towards high AUPRC, and each is re-weighted by its "
            "exact likelihood ratio, so the estimate is unbiased however small the "
            "p-value is"
        )
        if draws:
            text += f"; {draws:,} draws"
        if seed is not None:
            text += f" with seed {seed}"
        if rse is not None:
            text += f"; relative standard error {sig(100 * rse, 2)} %"
        if iv is not None:
            text += f"; {lvl} interval for the true p-value {interval(*iv)}"
        return text + "."
    if m == "saddlepoint":
        return (
            "Saddlepoint approximation (Lugannani–Rice) on the exact cumulant generating "
            "function of the null AUPRC: deterministic, accurate to a few percent for "
            "many positives, but without an error estimate."
        )
    if m == "montecarlo":
        text = "Monte Carlo: random rankings were drawn"
        if draws:
            text = f"Monte Carlo: {draws:,} random rankings were drawn"
        if seed is not None:
            text += f" (seed {seed})"
        text += (
            "; the p-value is (b + 1) / (m + 1) for b of the m draws scoring at least "
            "the observed AUPRC"
        )
        if iv is not None:
            text += f", with a {lvl} Clopper–Pearson interval {interval(*iv)}"
        if draws:
            text += f"; it cannot resolve p-values much below 1/{draws:,}"
        return text + "."
    if m == "beta":
        return (
            "Beta approximation of Lopes & Bontempi (2014), as in the R package: a beta "
            "distribution matched to the exact null mean and variance. It is instant, "
            "but far in the tail it can be wrong by many orders of magnitude; it "
            "reproduces R rather than judges a ranking."
        )
    if m == "skewbeta":
        return (
            "Skewed beta approximation: a beta distribution matched to the exact null "
            "mean, variance and skewness; an approximation without an error estimate."
        )
    return f"{method_name(m)}."


def null_words(r) -> str:
    ties = getattr(r, "ties", "average")
    im = getattr(r, "null_interval_method", "")
    lo, hi = null_interval(r)
    how = f" ({NULL_INTERVAL_WORDS.get(im, method_name(im))})" if im else ""
    return (
        f"Null hypothesis: the ranking is random — every placement of the {r.n_pos:,} "
        f"positives among the {r.n:,} items is equally likely. Under it the AUPRC has "
        f"mean {sig(r.null_mean, 4)} and standard deviation "
        f"{sig(math.sqrt(max(r.null_var, 0.0)), 3)} (exact), and "
        f"{100 * r.conf_level:g}% of random rankings score between {sig(lo, 3)} and "
        f"{sig(hi, 3)}{how}. The p-value is the probability that a random ranking scores "
        f"an AUPRC at least as high as the observed one (tied scores: {ties})."
    )


# --- figures ----------------------------------------------------------------------


def figure_data_uri(fig) -> str:
    """A matplotlib figure as an inline SVG ``data:`` URI (no creation date: reproducible)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


# --- the page ----------------------------------------------------------------------


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _prose(text) -> str:
    """``text`` escaped, with every number in e-notation (``6.7e-26``) kept on one line."""
    return re.sub(r"\d(?:\.\d+)?e-\d+", lambda m: f'<span class="nw">{m.group()}</span>', _e(text))


def _nowrap(text) -> str:
    """``text`` escaped, with line breaks allowed only after a comma or before a
    bracket: ``6.7e-26 (±1.7 %)`` may wrap before ``(``, never at a minus sign or
    before ``%``."""
    pieces = re.split(r"(?<=,) | (?=[(\[])", str(text))
    return " ".join(f'<span class="nw">{_e(x)}</span>' for x in pieces)


def results_table(columns, results, padj_log10) -> str:
    r0 = results[0]
    pct = f"{100 * r0.conf_level:g}%"
    head = ["scores", "method", "AUPRC", "p-value", "log10 p", f"{pct} interval of the p-value"]
    if padj_log10 is not None:
        head.append("p (BH)")
    head += ["null mean", "null sd", f"{pct} null interval"]
    rows = []
    for k, (c, r) in enumerate(zip(columns, results, strict=True)):
        lg = log10_pvalue(r)
        iv = pvalue_interval(r)
        if iv is None:
            ivt = "none (approximation)"
        elif getattr(r, "method", "") == "exact":
            ivt = "exact"
        else:
            ivt = interval(*iv)
        cells = [
            c,
            method_name(getattr(r, "method", "")),
            sig(r.auprc, 4),
            pvalue_text(r),
            "-inf" if lg is None else f"{lg:.3f}",
            ivt,
        ]
        if padj_log10 is not None:
            a = padj_log10[k]
            cells.append(pvalue_number(10.0**a if a is not None else 0.0, a, 3))
        cells += [
            sig(r.null_mean, 4),
            sig(math.sqrt(max(r.null_var, 0.0)), 3),
            interval(*null_interval(r)),
        ]
        rows.append(cells)
    # The table fits the page: headers wrap between words ("p-value" kept whole),
    # numbers only after a comma or before a bracket, the score names anywhere.
    # Its own container scrolls if a page is narrower still; the page never does.
    out = ['<div class="wide"><table class="results"><thead><tr>']
    out += [
        f'<th class="{"l" if j < 2 else ""}">'
        + _e(h).replace("p-value", '<span class="nw">p-value</span>')
        + "</th>"
        for j, h in enumerate(head)
    ]
    out.append("</tr></thead><tbody>")
    for cells in rows:
        td = [f'<td class="l name">{_e(cells[0])}</td>', f'<td class="l">{_e(cells[1])}</td>']
        td += [f'<td class="num">{_nowrap(v)}</td>' for v in cells[2:]]
        out.append("<tr>" + "".join(td) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def build_report(
    *,
    title: str,
    columns,
    results,
    padj_log10,
    label: str,
    source: dict,
    figures,
    argv,
    intro: str = "",
    settings: dict | None = None,
    now: _dt.datetime | None = None,
) -> str:
    """The report as HTML text.

    ``figures``: list of (caption, matplotlib Figure); ``source``: from
    :func:`file_facts`; ``argv``: the command's arguments (after ``pranker``).
    """
    from .._version import __version__

    now = now or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    r0 = results[0]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="sub">AUPRC (average precision) and its p-value against random ranking '
        f"— pranker {_e(__version__)}, {_e(now.isoformat())}</p>",
    ]
    if intro:
        parts.append(f"<p>{_e(intro)}</p>")
    parts += [
        "<h2>Results</h2>",
        f"<p>{_e(source['name'])}: labels {_e(repr(label))}, N = {r0.n:,} items, "
        f"P = {r0.n_pos:,} positives (P/N = {_e(sig(r0.n_pos / r0.n, 4))}); "
        f"tied scores: {_e(r0.ties)}.</p>",
        results_table(columns, results, padj_log10),
        '<ul class="plain">',
        *[f"<li>{_prose(plain_line(c, r))}.</li>" for c, r in zip(columns, results, strict=True)],
        "</ul>",
    ]
    if padj_log10 is not None:
        parts.append(
            '<p class="note">p (BH): Benjamini–Hochberg adjusted p-values over the '
            f"{len(columns)} score columns, computed on the log scale.</p>"
        )
    parts.append("<h2>How each p-value was computed</h2>")
    parts.append(f"<p>{_prose(null_words(r0))}</p>")
    parts.append('<dl class="kv methods">')
    for c, r in zip(columns, results, strict=True):
        parts.append(f"<dt>{_e(c)}</dt><dd>{_prose(method_words(r))}</dd>")
    parts.append("</dl>")
    parts += _figures_section(figures)
    parts += _cite_section(__version__)
    parts += _reproduce_section(argv, source, results, settings)
    parts += ["</body></html>", ""]
    return "\n".join(parts)


def _figures_section(figures) -> list[str]:
    """The figures, each as an inline PNG with its numbered caption."""
    if not figures:
        return []
    parts = ["<h2>Figures</h2>"]
    for k, (caption, fig) in enumerate(figures):
        uri = figure_data_uri(fig)
        parts.append(
            f'<figure id="fig{k + 1}"><img src="{uri}" alt="{_e(caption)}">'
            f"<figcaption>Figure {k + 1}. {_e(caption)}</figcaption></figure>"
        )
    return parts


def _cite_section(version: str) -> list[str]:
    """What to cite: the method's paper and this software (with BibTeX)."""
    bibtex = BIBTEX.format(
        doi=PAPER_DOI, authors=SOFTWARE_AUTHORS, title=SOFTWARE_TITLE, version=version
    )
    return [
        "<h2>What to cite</h2>",
        "<p>The method:</p>",
        f'<p class="cite">{_e(PAPER)} doi:<a href="https://doi.org/{PAPER_DOI}">'
        f"{PAPER_DOI}</a></p>",
        "<p>The software:</p>",
        f'<p class="cite">{_e(SOFTWARE_AUTHORS)}. {_e(SOFTWARE_TITLE)}, version {_e(version)}.</p>',
        "<pre>" + _e(bibtex) + "</pre>",
    ]


def _reproduce_section(argv, source: dict, results, settings) -> list[str]:
    """How to reproduce: the command, the input's size and hash, seeds, settings, versions."""
    parts = [
        "<h2>To reproduce</h2>",
        '<dl class="kv repro">',
        f"<dt>command</dt><dd><code>{_e(command_line(argv))}</code></dd>",
        f"<dt>input</dt><dd>{_e(source['name'])}</dd>",
        f"<dt>size</dt><dd>{source['size']:,} bytes</dd>",
        f"<dt>SHA-256</dt><dd><code>{_e(source['sha256'])}</code></dd>",
    ]
    seeds = sorted({str(r.seed) for r in results if getattr(r, "seed", None) is not None})
    parts.append(
        f"<dt>seed</dt><dd>{_e(', '.join(seeds) if seeds else 'none (no randomness)')}</dd>"
    )
    for k, v in {**(settings or {}), **versions()}.items():
        parts.append(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>")
    parts.append("</dl>")
    return parts


def write_report(path: str, text: str) -> None:
    """Write the page atomically (the caller checked ``--force``)."""
    from .._files import atomic_write_text

    atomic_write_text(path, text)
