"""The ``pranker`` command: score a file, write null tables, run a demo.

::

    pranker score FILE [--score COL ...] [--label COL] [--json] [--plot out.png]
    pranker table --N 100:10000:100 --P 1,5,10:100:10 [-o table.csv|table.npz]
    pranker demo [-o pranker-demo/]

Exit status: 0 on success, 2 on a usage or input error (the message says what
was wrong and what to do; nothing is written), 1 on an unexpected failure.
Outputs are written to a temporary file in the destination folder and renamed
into place, and an existing output is never replaced without ``--force``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile

import numpy as np

from . import __version__
from ._io import (
    LABEL_NAMES,
    UserError,
    default_columns,
    open_table,
    resolve_column,
    to_labels,
    to_scores,
)

# ----------------------------------------------------------------------------
# Adapters to the library
# ----------------------------------------------------------------------------
from .significance import METHODS  # noqa: E402


def _significance(s, y, *, method, conf_level, ties, draws, seed, progress):
    """PrankerResult for one score column: :func:`pranker.pranker` with ``method``."""
    from .significance import pranker

    return pranker(s, y, conf_level=conf_level, ties=ties, method=method, n_draws=draws,
                   seed=seed, progress=progress)


def _curves(s: np.ndarray, y: np.ndarray):
    """(PRCurve, ROCCurve) at every distinct threshold (:mod:`pranker.curves`)."""
    from .curves import pr_curve, roc_curve

    return pr_curve(s, y), roc_curve(s, y)


def _null_curve(N: int, P: int):
    """Expected precision of a random ranking at recall k/P
    (:func:`pranker.null_curve.expected_null_pr_curve`), or None where that
    would be slow (very large N with few positives; the figure then shows P/N)."""
    from .null_curve import expected_null_pr_curve

    try:
        return expected_null_pr_curve(N, P)
    except ValueError:
        return None


def _ranges(text: str, name: str) -> np.ndarray:
    """``--N``/``--P`` text -> sorted distinct ints >= 1 (:func:`pranker.tables.parse_int_ranges`)."""
    from .tables import parse_int_ranges

    try:
        values = parse_int_ranges(text)
    except (ValueError, TypeError) as exc:
        raise UserError(f"--{name}: {exc}") from None
    if values[0] < 1:
        raise UserError(f"--{name} values must be >= 1; got {int(values[0])}.")
    return values


# ----------------------------------------------------------------------------
# Output helpers
# ----------------------------------------------------------------------------


def _check_writable(path: str, force: bool) -> None:
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory; give a file name.")
    if os.path.exists(path) and not force:
        raise UserError(f"{path} exists; refusing to overwrite it (use --force).")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"folder {folder} does not exist.")


def _atomic_write(path: str, write) -> None:
    """Call ``write(tmp_path)`` then rename onto ``path``; no partial file on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _save_figure(fig, path: str) -> None:
    from .plotting import save_figure

    save_figure(fig, path)


def bh_adjust(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (``scipy.stats.false_discovery_control``)."""
    from scipy.stats import false_discovery_control

    return np.asarray(false_discovery_control(np.asarray(pvalues, dtype=np.float64), method="bh"))


def _fmt(x: float, digits: int = 4) -> str:
    """``digits`` significant digits, scientific notation for small or large values."""
    return f"{x:.{digits}g}"


def _fmt_p(p: float) -> str:
    """A p-value; 0 from floating-point underflow is shown as an upper bound."""
    if p == 0.0:
        return "<1e-300"
    return _fmt(p, 3)


def _render_table(headers, rows) -> str:
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
        row = [c, f"{r.auprc:.4f}", _fmt_p(r.pvalue)]
        if padj is not None:
            row.append(_fmt_p(float(padj[k])))
        row += [_fmt(r.null_mean), _fmt(r.null_var, 3),
                f"[{r.conf_int[0]:.4f}, {r.conf_int[1]:.4f}]"]
        rows.append(row)
    notes = []
    for c, r in zip(columns, results, strict=True):
        ci = getattr(r, "pvalue_ci", None)
        if ci is not None:
            notes.append(f"{c}: Monte Carlo p-value from {getattr(r, 'n_draws', 0):,} random "
                         f"rankings, {pct} interval [{_fmt(ci[0], 3)}, {_fmt(ci[1], 3)}]")
    return head + "\n" + _render_table(headers, rows) + "".join("\n" + n for n in notes)


def _result_dict(r, column, label, source, padj=None) -> dict:
    d = r.to_dict()
    d = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}
    d["score_column"] = column
    d["label_column"] = label
    d["file"] = source
    if padj is not None:
        d["pvalue_bh"] = float(padj)
    return d


# ----------------------------------------------------------------------------
# Subcommands
# ----------------------------------------------------------------------------


def _score_arrays(score_cols, s_list, y, args):
    """One PrankerResult per score column, and BH-adjusted p-values when several.

    Several columns with the beta p-value go through :func:`pranker.many.pranker_many`
    (one pass, shared null parameters, its BH adjustment, a progress bar for
    many columns); other methods score column by column and adjust with
    :func:`bh_adjust`.
    """
    try:
        if len(s_list) > 1 and args.method == "beta":
            from .many import pranker_many

            many = pranker_many(np.stack(s_list), np.broadcast_to(y, (len(s_list), y.size)),
                                ties=args.ties, conf_level=args.conf_level,
                                progress=args.progress)
            return [many.row(i) for i in range(len(s_list))], np.asarray(many.pvalue_bh)
        results = [_significance(
            s, y, method=args.method, conf_level=args.conf_level, ties=args.ties,
            draws=args.draws, seed=args.seed, progress=args.progress) for s in s_list]
    except ValueError as exc:  # library validation, e.g. no positive label
        hint = ""
        if type(exc).__name__ == "ExactBudgetExceeded":
            hint = " On the command line: --method montecarlo or --method auto."
        raise UserError(str(exc) + hint) from None
    padj = bh_adjust([r.pvalue for r in results]) if len(results) > 1 else None
    return results, padj


def _plot_scores(path, score_cols, s_list, y, results, title):
    from .plotting import plot_pr_curves

    curves = {}
    for c, s, r in zip(score_cols, s_list, results, strict=True):
        pr, _ = _curves(s, y)
        curves[f"{c} (AUPRC {r.auprc:.3f})"] = (pr.recall, pr.precision)
    n, p = results[0].n, results[0].n_pos
    fig = plot_pr_curves(curves, prevalence=p / n, null_curve=_null_curve(n, p),
                         raw=len(curves) == 1, title=title)
    _save_figure(fig, path)


def cmd_score(args) -> int:
    if args.plot:
        _check_writable(args.plot, args.force)
        _require_matplotlib()
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
    results, padj = _score_arrays(score_cols, s_list, y, args)
    if args.json:
        if len(results) == 1:
            out = _result_dict(results[0], score_cols[0], label, args.file)
        else:
            out = [_result_dict(r, c, label, args.file, padj[k])
                   for k, (c, r) in enumerate(zip(score_cols, results, strict=True))]
        print(json.dumps(out, indent=2))
    else:
        print(format_results(score_cols, results, padj, label, args.file))
    if args.plot:
        _plot_scores(args.plot, score_cols, s_list, y, results, os.path.basename(args.file))
        if not args.json:
            print(f"PR curve written to {args.plot}")
    return 0


def cmd_table(args) -> int:
    from .tables import COLUMNS, null_params_table

    Ns = _ranges(args.N, "N")
    Ps = _ranges(args.P, "P")
    out = args.output
    if out is not None:
        _check_writable(out, args.force)
        if not out.lower().endswith((".csv", ".npz")):
            raise UserError(f"-o {out}: the table is written as .csv or .npz; name it so.")
    n_pairs = int(np.searchsorted(Ps, Ns, side="right").sum())
    if n_pairs == 0:
        raise UserError(f"no (N, P) pair with P <= N (smallest N {Ns[0]}, smallest P {Ps[0]}).")
    if n_pairs > args.max_rows:
        raise UserError(
            f"the grid has {n_pairs:,} (N, P) rows, more than --max-rows {args.max_rows:,}; "
            "use a coarser step or raise --max-rows."
        )
    table = null_params_table(Ns, Ps, progress=args.progress)
    if out is None:
        _write_csv(sys.stdout, table, COLUMNS)
        return 0
    try:
        table.save(out, overwrite=args.force)
    except FileExistsError as exc:  # appeared since the check
        raise UserError(str(exc)) from None
    print(f"wrote {len(table):,} rows ({', '.join(COLUMNS)}) to {out}", file=sys.stderr)
    return 0


def _write_csv(fh, table, columns) -> None:
    """The table as CSV text (same layout as ``NullTable.save``): header, then rows."""
    fh.write(",".join(columns) + "\n")
    cols = [getattr(table, c) for c in columns]
    block = 100_000
    for a in range(0, len(table), block):
        rows = zip(*(c[a:a + block].tolist() for c in cols), strict=True)
        fh.write("".join(",".join(repr(v) for v in r) + "\n" for r in rows))


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError("plots need matplotlib: pip install 'pranker[plot]'.") from None


def cmd_demo(args) -> int:
    from . import _demo

    return _demo.run(args)


# ----------------------------------------------------------------------------
# Parser and entry point
# ----------------------------------------------------------------------------


def _progress_arg(p) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_const", const=True,
                   default=None, help="show progress bars (default: when stderr is a terminal)")
    g.add_argument("--no-progress", dest="progress", action="store_const", const=False,
                   help="never show progress bars")


def _conf_level(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1); got {text}")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {v}")
    return v


def _significance_args(p) -> None:
    from ._validation import TIE_MODES

    p.add_argument("--ties", choices=TIE_MODES, default="average",
                   help="how tied scores count (default: average over orderings)")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="how the p-value is computed, as pranker(method=...): auto (default: "
                        "exact, three-moment beta or Monte Carlo, whichever is accurate; see "
                        "docs/calibration.md), " + ", ".join(m for m in METHODS if m != "auto"))
    p.add_argument("--draws", type=_positive_int, default=None,
                   help="random rankings for --method montecarlo (library default 100000)")
    p.add_argument("--seed", type=int, default=None, help="seed for --method montecarlo")
    p.add_argument("--conf-level", type=_conf_level, default=0.95,
                   help="coverage of the null AUPRC interval (default 0.95)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pranker",
        description="AUPRC (average precision) of a ranking and its p-value against random "
                    "ranking (Lopes & Bontempi, ECML PKDD 2014).",
        epilog="examples:\n"
               "  pranker demo                                  # real data, figures in "
               "pranker-demo/\n"
               "  pranker score preds.csv --plot pr.png         # columns score, label\n"
               "  pranker score preds.tsv -s model_a,model_b -l truth --json\n"
               "  pranker table --N 100:10000:100 --P 1,5,10:100:10 -o table.csv\n\n"
               "Input errors exit with status 2 and write nothing.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pranker {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{score,table,demo}")

    p = sub.add_parser(
        "score", help="AUPRC and p-value of score columns in a file",
        description="Read scores and binary labels from CSV/TSV (.gz ok), .npy, .npz or "
                    "Parquet and report AUPRC with its significance. Default columns: one "
                    "named score/scores/prediction and one named label/labels/y/truth "
                    "(case-insensitive), else the first two columns.",
    )
    p.add_argument("file", help="data file (.csv, .tsv, .txt, .gz, .npy, .npz, .parquet)")
    p.add_argument("-s", "--score", action="append", metavar="COL",
                   help="score column: header name or 0-based index; repeat or use commas "
                        "for several (one row each, plus BH-adjusted p-values)")
    p.add_argument("-l", "--label", metavar="COL", help="label column (name or 0-based index)")
    p.add_argument("--all-scores", action="store_true",
                   help="score every column except the label column")
    p.add_argument("--positive", metavar="VALUE",
                   help="label value that marks a positive (for text or multi-class labels)")
    p.add_argument("--sep", help="field separator for text files (default: from the "
                                 "extension or the first line)")
    p.add_argument("--header", choices=("auto", "yes", "no"), default="auto",
                   help="whether text files start with a header line (default: auto)")
    p.add_argument("--reader", choices=("auto", "pyarrow", "numpy"), default="auto",
                   help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true",
                   help="print JSON: an object (one column) or a list of objects")
    p.add_argument("--plot", metavar="OUT.png", help="write the PR curve with random baselines")
    p.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    _significance_args(p)
    _progress_arg(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "table", help="table of null AUPRC mean and variance over (N, P) grids",
        description="Mean and variance of the null AUPRC for every N and P <= N in the given "
                    "ranges (start:stop:step includes stop; comma-separated items).",
    )
    p.add_argument("--N", required=True, help="numbers of instances, e.g. 100:10000:100")
    p.add_argument("--P", required=True, help="numbers of positives, e.g. 1,5,10:100:10")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write .csv (with header) or .npz; default: CSV on stdout")
    p.add_argument("--force", action="store_true", help="overwrite an existing output")
    p.add_argument("--max-rows", type=_positive_int, default=50_000_000,
                   help="refuse grids larger than this (default 5e7)")
    _progress_arg(p)
    p.set_defaults(func=cmd_table)

    p = sub.add_parser(
        "demo", help="score a classifier on real bundled data and write the figures",
        description="Fit two logistic regressions on scikit-learn's bundled handwritten "
                    "digits (positive class: one digit, about 10%% of the samples), score a "
                    "held-out half, report AUPRC significance and write figures.",
    )
    p.add_argument("-o", "--output-dir", default="pranker-demo",
                   help="folder for scores and figures (default: pranker-demo/)")
    p.add_argument("--force", action="store_true", help="overwrite files in an existing folder")
    p.add_argument("--digit", type=int, default=9, choices=range(10), metavar="{0..9}",
                   help="digit used as the positive class (default 9)")
    p.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    p.add_argument("--draws", type=_positive_int, default=20_000,
                   help="Monte Carlo null draws for the histogram (default 20000)")
    _progress_arg(p)
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv=None) -> int:
    """Run the ``pranker`` command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"pranker {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `pranker table ... | head`
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
