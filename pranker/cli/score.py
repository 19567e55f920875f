"""``pranker score``: AUPRC and its p-value for score columns of a file."""

from __future__ import annotations

import json
import math
import os
import sys

import numpy as np

from .format import format_results, log10_pvalue, result_dict, results_csv, unicode_ok
from .io import (
    LABEL_NAMES,
    STDIN,
    UserError,
    atomic_write,
    check_writable,
    default_columns,
    open_table,
    resolve_column,
    to_labels,
    to_scores,
)

# ----------------------------------------------------------------------------
# Adapters to the library (imported here, when a command runs)
# ----------------------------------------------------------------------------


def significance(s, y, *, method, conf_level, ties, draws, seed, progress):
    """PrankerResult for one score column: :func:`pranker.pranker` with ``method``."""
    from ..significance.single import pranker

    return pranker(s, y, conf_level=conf_level, ties=ties, method=method, n_draws=draws,
                   seed=seed, progress=progress)


def curves(s: np.ndarray, y: np.ndarray):
    """(PRCurve, ROCCurve) at every distinct threshold (:mod:`pranker.measures.curves`)."""
    from ..measures.curves import pr_curve, roc_curve

    return pr_curve(s, y), roc_curve(s, y)


def null_curve(N: int, P: int):
    """Expected precision of a random ranking at recall k/P
    (:func:`pranker.null.curve.expected_null_pr_curve`), or None where that
    would be slow (very large N with few positives; the figure then shows P/N)."""
    from ..null.curve import expected_null_pr_curve

    try:
        return expected_null_pr_curve(N, P)
    except ValueError:
        return None


def bh_adjust_log10(log10_p) -> list:
    """log10 of the Benjamini-Hochberg adjusted p-values, computed on the log scale so
    that p-values below the floating-point range keep their value (None for p = 0)."""
    lg = [-math.inf if v is None else float(v) for v in log10_p]
    m = len(lg)
    order = sorted(range(m), key=lambda i: lg[i])
    out = [0.0] * m
    running = 0.0  # adjusted p-values are capped at 1
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, lg[i] + math.log10(m / rank))
        out[i] = running
    return [None if v == -math.inf else v for v in out]


def score_arrays(score_cols, s_list, y, args):
    """One PrankerResult per score column, and log10 BH-adjusted p-values when several.

    Several columns with the beta p-value go through :func:`pranker.significance.many.pranker_many`
    (one pass, shared null parameters, a progress bar for many columns); other
    methods score column by column, with a progress bar over the columns.
    """
    from .._progress import progress_bar

    try:
        if len(s_list) > 1 and args.method == "beta":
            from ..significance.many import pranker_many

            many = pranker_many(np.stack(s_list), np.broadcast_to(y, (len(s_list), y.size)),
                                ties=args.ties, conf_level=args.conf_level,
                                progress=args.progress, method="beta")
            results = [many.row(i) for i in range(len(s_list))]
        else:
            several = len(s_list) > 1
            results = []
            with progress_bar(len(s_list) if several else None, "score columns",
                              args.progress if several else False) as bar:
                for s in s_list:
                    results.append(significance(
                        s, y, method=args.method, conf_level=args.conf_level, ties=args.ties,
                        draws=args.draws, seed=args.seed,
                        progress=False if several else args.progress))
                    bar.update(1)
    except ValueError as exc:  # library validation, e.g. no positive label
        hint = ""
        if type(exc).__name__ == "ExactBudgetExceeded":
            hint = " On the command line: --method montecarlo or --method auto."
        raise UserError(str(exc) + hint) from None
    padj = bh_adjust_log10([log10_pvalue(r) for r in results]) if len(results) > 1 else None
    return results, padj


# ----------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError("plots need matplotlib: pip install 'pranker[plot]'.") from None


def plot_scores(path, score_cols, s_list, y, results, title):
    from ..plotting import plot_pr_curves, save_figure

    lines = {}
    for c, s, r in zip(score_cols, s_list, results, strict=True):
        pr, _ = curves(s, y)
        lines[f"{c} (AUPRC {r.auprc:.3f})"] = (pr.recall, pr.precision)
    n, p = results[0].n, results[0].n_pos
    fig = plot_pr_curves(lines, prevalence=p / n, null_curve=null_curve(n, p),
                         raw=len(lines) == 1, title=title)
    save_figure(fig, path)


# ----------------------------------------------------------------------------
# The command
# ----------------------------------------------------------------------------


def _output_kind(path: str) -> str:
    low = path.lower()
    if low.endswith(".json"):
        return "json"
    if low.endswith(".csv"):
        return "csv"
    raise UserError(f"-o {path}: results are written as .json or .csv; name the file so.")


def choose_columns(table, args):
    """(score column names, label column name) from --score/--all-scores/--label."""
    specs = [c.strip() for spec in (args.score or []) for c in spec.split(",") if c.strip()]
    label_spec = args.label
    if args.all_scores:
        if specs:
            raise UserError("give either --score or --all-scores, not both.")
        if label_spec is not None:
            label = resolve_column(table, label_spec, "label")
        else:
            lowered = {n.lower(): n for n in table.names}
            label = next((lowered[k] for k in LABEL_NAMES if k in lowered), None)
            if label is None:
                raise UserError(
                    f"with --all-scores, say which column holds the labels (--label); "
                    f"columns found: {table.names}.")
        specs = [n for n in table.names if n != label]
        label_spec = label
        if not specs:
            raise UserError(f"{table.path}: no column besides the labels {label!r}.")
    return default_columns(table, specs or None, label_spec)


def run(args) -> int:
    if args.plot:
        check_writable(args.plot, args.force)
        require_matplotlib()
    out_kind = None
    if args.output:
        out_kind = _output_kind(args.output)
        check_writable(args.output, args.force)
        if args.plot and os.path.abspath(args.plot) == os.path.abspath(args.output):
            raise UserError("-o and --plot name the same file; give two names.")
    if args.conf_level is not None and not (0.0 < args.conf_level < 1.0):
        raise UserError(f"--conf-level must be in (0, 1); got {args.conf_level}.")
    table = open_table(args.file, sep=args.sep, header=args.header, engine=args.reader,
                       progress=args.progress)
    score_cols, label = choose_columns(table, args)
    table.load([label, *dict.fromkeys(score_cols)])  # one pass over a text file
    y = to_labels(table, label, args.positive)
    s_list = [to_scores(table, c) for c in score_cols]
    results, padj = score_arrays(score_cols, s_list, y, args)
    source = table.path
    if padj is None:
        records = [result_dict(results[0], score_cols[0], label, source)]
    else:
        records = [result_dict(r, c, label, source, padj[k])
                   for k, (c, r) in enumerate(zip(score_cols, results, strict=True))]

    def as_json():
        return json.dumps(records[0] if padj is None else records, indent=2) + "\n"

    if args.output:
        text = as_json() if out_kind == "json" else results_csv(records)
        atomic_write(args.output, lambda tmp: _write_text(tmp, text))
    if args.plot:
        title = "standard input" if args.file == STDIN else os.path.basename(args.file)
        plot_scores(args.plot, score_cols, s_list, y, results, title)
    if args.json:
        sys.stdout.write(as_json())
    elif args.csv:
        sys.stdout.write(results_csv(records))
    elif not args.quiet:
        print(format_results(score_cols, results, padj, label, source,
                             unicode=unicode_ok(sys.stdout)))
        for path, what in ((args.output, "results"), (args.plot, "PR curve")):
            if path:
                print(f"{what} written to {path}")
    return 0


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
