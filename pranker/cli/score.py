"""``pranker score``: AUPRC and its p-value for score columns of a file."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from .._format import method_name
from .columns import LABEL_NAMES, default_columns, resolve_column, to_labels, to_scores
from .errors import UserError
from .format import format_results, log10_pvalue, result_dict, results_csv, sig, unicode_ok
from .main import library_options
from .read import STDIN, open_table
from .write import check_writable, write_output, writing

# ----------------------------------------------------------------------------
# Adapters to the library (imported here, when a command runs)
# ----------------------------------------------------------------------------


def significance(s, y, *, draws, progress, rtol=None, **options):
    """PrankerResult for one score column: :func:`pranker.pranker` with ``options``
    (those of :func:`pranker.cli.main.library_options`)."""
    from pranker import pranker

    return pranker(s, y, n_draws=draws, progress=progress, rtol=rtol, **options)


def curves(s: np.ndarray, y: np.ndarray):
    """(PRCurve, ROCCurve) at every distinct threshold (:mod:`pranker.measures.curves`)."""
    from pranker import pr_curve, roc_curve

    return pr_curve(s, y), roc_curve(s, y)


def null_curve(N: int, P: int):
    """Expected precision of a random ranking at recall k/P
    (:func:`pranker.null.curve.expected_null_pr_curve`), or None where that
    would be slow (very large N with few positives; the figure then shows P/N)."""
    from pranker.null.curve import expected_null_pr_curve

    try:
        return expected_null_pr_curve(N, P)
    except ValueError:
        return None


def bh_adjust_log10(log10_p) -> list:
    """log10 of the Benjamini-Hochberg adjusted p-values
    (:func:`pranker.significance.many.bh_log10`, on the log scale so that p-values
    below the floating-point range keep their value); None for p = 0, in and out."""
    from ..significance.many import bh_log10

    lg = np.array([-np.inf if v is None else v for v in log10_p], dtype=np.float64)
    return [None if v == -np.inf else v for v in bh_log10(lg).tolist()]


def score_arrays(score_cols, s_list, y, args):
    """One PrankerResult per score column, and log10 BH-adjusted p-values when several.

    Several columns with the beta p-value go through :func:`pranker.significance.many.pranker_many`
    (one pass, shared null parameters, a progress bar for many columns); other
    methods score column by column, with a progress bar over the columns.
    """
    from .._progress import progress_bar

    try:
        if len(s_list) > 1 and args.method == "beta":
            from pranker import pranker_many

            many = pranker_many(
                np.stack(s_list),
                np.broadcast_to(y, (len(s_list), y.size)),
                ties=args.ties,
                conf_level=args.conf_level,
                progress=args.progress,
                method="beta",
            )
            results = [many.row(i) for i in range(len(s_list))]
        else:
            several = len(s_list) > 1
            results = []
            with progress_bar(
                len(s_list) if several else None,
                "score columns",
                args.progress if several else False,
            ) as bar:
                for s in s_list:
                    results.append(
                        significance(
                            s,
                            y,
                            draws=args.draws,
                            rtol=args.rtol,
                            max_work=args.max_work,
                            progress=False if several else args.progress,
                            **library_options(args),
                        )
                    )
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


def check_plot_path(path: str) -> None:
    """The --plot file's format, from its extension, must be one matplotlib writes."""
    from matplotlib.backend_bases import FigureCanvasBase

    ext = os.path.splitext(path)[1].lower().lstrip(".")
    supported = FigureCanvasBase.get_supported_filetypes()
    if ext not in supported:
        raise UserError(
            f"--plot {path}: name the file .png, .svg or .pdf (the format follows the "
            f"extension; also {', '.join(sorted(set(supported) - {'png', 'svg', 'pdf'}))})."
        )


def pr_figure(score_cols, s_list, y, results, title, pr_curves=None, expected=None):
    """The PR curves of every score column: step curves (their area is the AUPRC), and
    for one column also the interpolated envelope, with random baselines.

    ``pr_curves`` (one PRCurve per column) and ``expected`` (:func:`null_curve`) when the
    caller has them already."""
    from pranker.plotting import plot_pr_curves

    if pr_curves is None:
        pr_curves = [curves(s, y)[0] for s in s_list]
    lines = {c: (pr.recall, pr.precision) for c, pr in zip(score_cols, pr_curves, strict=True)}
    n, p = results[0].n, results[0].n_pos
    return plot_pr_curves(
        lines,
        prevalence=p / n,
        null_curve=null_curve(n, p) if expected is None else expected,
        interpolated=len(lines) == 1,
        title=title,
    )


def null_figure(column, result, title=None, samples=None):
    """The null of ``result`` with its tail and the observed p-value."""
    from pranker.plotting import plot_null_from_result

    return plot_null_from_result(
        result,
        samples=samples,
        title=title
        or f"{column}: AUPRC {result.auprc:.4g} against random rankings "
        f"(N = {result.n:,}, P = {result.n_pos:,})",
    )


def plot_scores(path, score_cols, s_list, y, results, title):
    from pranker.plotting import save_figure

    save_figure(pr_figure(score_cols, s_list, y, results, title), path)


# at most this many null figures in a report (each draws a few tilted estimates)
REPORT_NULL_FIGURES = 4


def report_figures(score_cols, s_list, y, results, title):
    """(caption, Figure) pairs for the report: the PR curves, then one null figure per
    score column (the first :data:`REPORT_NULL_FIGURES`)."""
    figs = [
        (
            f"PR curves of {', '.join(score_cols)} ({title}): the step curve of each "
            "ranking, whose area is its AUPRC, against the precision of a random ranking "
            "(P/N, and its expected value at each recall); dotted: F1 isolines.",
            pr_figure(score_cols, s_list, y, results, title),
        )
    ]
    for c, r in list(zip(score_cols, results, strict=True))[:REPORT_NULL_FIGURES]:
        figs.append(
            (
                f"{c}: the null distribution of AUPRC (left, zoomed on its bulk) and "
                "its upper tail log10 P(AUPRC ≥ a) (right), the curve the p-value is "
                f"read from; the observed AUPRC {sig(r.auprc, 4)} and its p-value "
                f"({method_name(r.method)}) are marked in red.",
                null_figure(c, r),
            )
        )
    return figs


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
                    f"columns found: {table.names}."
                )
        specs = [n for n in table.names if n != label]
        label_spec = label
        if not specs:
            raise UserError(f"{table.path}: no column besides the labels {label!r}.")
    return default_columns(table, specs or None, label_spec)


def _check_outputs(args) -> None:
    report = getattr(args, "report", None)
    if args.plot:
        check_writable(args.plot, args.force)
        require_matplotlib()
        check_plot_path(args.plot)
    if report:
        if not report.lower().endswith((".html", ".htm")):
            raise UserError(f"--report {report}: the report is an HTML page; name it .html.")
        check_writable(report, args.force)
        require_matplotlib()
    named = [
        (o, p) for o, p in (("-o", args.output), ("--plot", args.plot), ("--report", report)) if p
    ]
    seen: dict[str, str] = {}
    for opt, p in named:
        key = os.path.abspath(p)
        if key in seen:
            raise UserError(f"{seen[key]} and {opt} name the same file; give two names.")
        seen[key] = opt


def run(args) -> int:
    _check_outputs(args)
    out_kind = None
    if args.output:
        out_kind = _output_kind(args.output)
        check_writable(args.output, args.force)
    if args.conf_level is not None and not (0.0 < args.conf_level < 1.0):
        raise UserError(f"--conf-level must be in (0, 1); got {args.conf_level}.")
    table = open_table(
        args.file, sep=args.sep, header=args.header, engine=args.reader, progress=args.progress
    )
    score_cols, label = choose_columns(table, args)
    table.load([label, *dict.fromkeys(score_cols)])  # one pass over a text file
    y = to_labels(table, label, args.positive)
    s_list = [to_scores(table, c) for c in score_cols]
    results, padj = score_arrays(score_cols, s_list, y, args)
    source = table.path
    if padj is None:
        records = [result_dict(results[0], score_cols[0], label, source)]
    else:
        records = [
            result_dict(r, c, label, source, padj[k])
            for k, (c, r) in enumerate(zip(score_cols, results, strict=True))
        ]

    def as_json():
        return json.dumps(records[0] if padj is None else records, indent=2, allow_nan=False) + "\n"

    if args.output:
        text = as_json() if out_kind == "json" else results_csv(records)
        write_output(args.output, text, args.force)
    title = "standard input" if args.file == STDIN else os.path.basename(args.file)
    if args.plot:
        with writing(args.plot):
            plot_scores(args.plot, score_cols, s_list, y, results, title)
    report = getattr(args, "report", None)
    if report:
        with writing(report):
            write_report(report, args, table, score_cols, s_list, y, label, results, padj, title)
    if args.json:
        sys.stdout.write(as_json())
    elif args.csv:
        sys.stdout.write(results_csv(records))
    elif not args.quiet:
        print(
            format_results(score_cols, results, padj, label, source, unicode=unicode_ok(sys.stdout))
        )
        for path, what in ((args.output, "results"), (args.plot, "PR curve"), (report, "report")):
            if path:
                print(f"{what} written to {path}")
    return 0


def write_report(path, args, table, score_cols, s_list, y, label, results, padj, title):
    from . import report as rep

    facts = rep.file_facts(None, table.data) if args.file == STDIN else rep.file_facts(args.file)
    settings = {
        "method asked": args.method,
        "ties": args.ties,
        "confidence level": f"{args.conf_level:g}",
    }
    if args.draws is not None:
        settings["draws"] = f"{args.draws:,}"
    text = rep.build_report(
        title=f"AUPRC significance: {title}",
        columns=score_cols,
        results=results,
        padj_log10=padj,
        label=label,
        source=facts,
        figures=report_figures(score_cols, s_list, y, results, title),
        argv=getattr(args, "argv", None) or sys.argv[1:],
        settings=settings,
    )
    rep.write_report(path, text)
