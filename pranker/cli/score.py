"""``pranker score``: AUPRC and its p-value for score columns of a file."""

from __future__ import annotations

import json
import os

import numpy as np

from .format import format_results, result_dict
from .io import (
    LABEL_NAMES,
    UserError,
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
    from ..significance import pranker

    return pranker(s, y, conf_level=conf_level, ties=ties, method=method, n_draws=draws,
                   seed=seed, progress=progress)


def curves(s: np.ndarray, y: np.ndarray):
    """(PRCurve, ROCCurve) at every distinct threshold (:mod:`pranker.curves`)."""
    from ..curves import pr_curve, roc_curve

    return pr_curve(s, y), roc_curve(s, y)


def null_curve(N: int, P: int):
    """Expected precision of a random ranking at recall k/P
    (:func:`pranker.null_curve.expected_null_pr_curve`), or None where that
    would be slow (very large N with few positives; the figure then shows P/N)."""
    from ..null_curve import expected_null_pr_curve

    try:
        return expected_null_pr_curve(N, P)
    except ValueError:
        return None


def bh_adjust(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (``scipy.stats.false_discovery_control``)."""
    from scipy.stats import false_discovery_control

    return np.asarray(false_discovery_control(np.asarray(pvalues, dtype=np.float64), method="bh"))


def score_arrays(score_cols, s_list, y, args):
    """One PrankerResult per score column, and BH-adjusted p-values when several.

    Several columns with the beta p-value go through :func:`pranker.many.pranker_many`
    (one pass, shared null parameters, its BH adjustment, a progress bar for
    many columns); other methods score column by column and adjust with
    :func:`bh_adjust`.
    """
    try:
        if len(s_list) > 1 and args.method == "beta":
            from ..many import pranker_many

            many = pranker_many(np.stack(s_list), np.broadcast_to(y, (len(s_list), y.size)),
                                ties=args.ties, conf_level=args.conf_level,
                                progress=args.progress)
            return [many.row(i) for i in range(len(s_list))], np.asarray(many.pvalue_bh)
        results = [significance(
            s, y, method=args.method, conf_level=args.conf_level, ties=args.ties,
            draws=args.draws, seed=args.seed, progress=args.progress) for s in s_list]
    except ValueError as exc:  # library validation, e.g. no positive label
        hint = ""
        if type(exc).__name__ == "ExactBudgetExceeded":
            hint = " On the command line: --method montecarlo or --method auto."
        raise UserError(str(exc) + hint) from None
    padj = bh_adjust([r.pvalue for r in results]) if len(results) > 1 else None
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


def run(args) -> int:
    if args.plot:
        check_writable(args.plot, args.force)
        require_matplotlib()
    if args.conf_level is not None and not (0.0 < args.conf_level < 1.0):
        raise UserError(f"--conf-level must be in (0, 1); got {args.conf_level}.")
    table = open_table(args.file, sep=args.sep, header=args.header, engine=args.reader)
    specs = [c.strip() for spec in (args.score or []) for c in spec.split(",") if c.strip()]
    if args.all_scores:
        if specs:
            raise UserError("give either --score or --all-scores, not both.")
        if args.label is not None:
            label = resolve_column(table, args.label, "label")
        else:
            lowered = {n.lower(): n for n in table.names}
            label = next((lowered[k] for k in LABEL_NAMES if k in lowered), None)
            if label is None:
                raise UserError(
                    f"with --all-scores, say which column holds the labels (--label); "
                    f"columns found: {table.names}.")
        specs = [n for n in table.names if n != label]
        args.label = label
        if not specs:
            raise UserError(f"{args.file}: no column besides the labels {label!r}.")
    score_cols, label = default_columns(table, specs or None, args.label)
    y = to_labels(table, label, args.positive)
    s_list = [to_scores(table, c) for c in score_cols]
    results, padj = score_arrays(score_cols, s_list, y, args)
    if args.json:
        if len(results) == 1:
            out = result_dict(results[0], score_cols[0], label, args.file)
        else:
            out = [result_dict(r, c, label, args.file, padj[k])
                   for k, (c, r) in enumerate(zip(score_cols, results, strict=True))]
        print(json.dumps(out, indent=2))
    else:
        print(format_results(score_cols, results, padj, label, args.file))
    if args.plot:
        plot_scores(args.plot, score_cols, s_list, y, results, os.path.basename(args.file))
        if not args.json:
            print(f"PR curve written to {args.plot}")
    return 0
