"""``pranker`` command line: argument parsing, dispatch, exit codes.

::

    pranker score FILE|- [--score COL ...] [--label COL] [--json|--csv] [-o out.json]
                         [--plot out.png|.svg|.pdf] [--report out.html] [--quiet]
    pranker compare FILE --score A --score B [--label COL] [--method permutation|influence|bootstrap]
    pranker map FILE --query COL [--score COL] [--label COL] [--group COL]
    pranker table --N 100:10000:100 --P 1,5,10:100:10 [-o table.csv|table.npz]
    pranker demo [-o pranker-demo/]
    pranker --version

Exit status: 0 on success, 2 on a usage or input error (one message on
stderr says what was wrong and what to do; no output file is written), 130
when interrupted, 1 on an unexpected failure (a bug: the traceback is shown).
Outputs are written to a temporary file in the destination folder and renamed
into place, and an existing output is never replaced without ``--force``.

This module imports only the standard library; each command's module (and
with it numpy, numba, scipy) is imported when that command runs, so
``pranker --help`` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__
from .errors import UserError

# Choices for --method and --ties, kept here so that building the parser
# imports nothing of the library (numba, scipy); they are passed through to
# pranker(method=..., ties=...), which checks them again (a method this
# version of the library does not know is reported as an input error).
METHODS = ("auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta")
TIE_MODES = ("average", "stable", "threshold", "optimistic", "pessimistic")


def _run_command(args) -> int:
    """Import the command's module (and with it the library) and run it."""
    import importlib

    module = COMMANDS[args.command][0]
    return importlib.import_module(f".{module}", __package__).run(args)


# ----------------------------------------------------------------------------
# Parser
# ----------------------------------------------------------------------------


def _unit_fraction(hint: str = ""):
    """An argparse type: a number strictly between 0 and 1 (``hint`` follows "(0, 1)")."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0.0 < v < 1.0:
            raise argparse.ArgumentTypeError(f"must be in (0, 1){hint}; got {text}")
        return v

    return parse


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {v}")
    return v


def _work_units(text: str) -> int:
    """A positive whole number of work units, also written as 1e10."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v >= 1 and v.is_integer()):
        raise argparse.ArgumentTypeError(f"must be a positive whole number; got {text!r}")
    return int(v)


def _common_args(p) -> None:
    """--quiet and --progress/--no-progress, on every command."""
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing but errors (and the machine-readable output when "
        "asked for); no progress bars",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--progress",
        dest="progress",
        action="store_const",
        const=True,
        default=None,
        help="show progress bars on stderr for slow steps (default: when stderr "
        "is a terminal and tqdm is installed)",
    )
    g.add_argument(
        "--no-progress",
        dest="progress",
        action="store_const",
        const=False,
        help="never show progress bars",
    )


def _input_args(p) -> None:
    """The data file and how to read it: score, compare, map."""
    p.add_argument(
        "file",
        help="data file (.csv, .tsv, .txt, .gz, .npy, .npz, .parquet), or - "
        "to read CSV/TSV text from standard input (binary formats "
        "need a file)",
    )
    p.add_argument("-l", "--label", metavar="COL", help="label column (name or 0-based index)")
    p.add_argument(
        "--positive",
        metavar="VALUE",
        help="label value that marks a positive (for text or multi-class labels)",
    )
    p.add_argument(
        "--sep",
        help="field separator for text files (default: from the extension or the first line)",
    )
    p.add_argument(
        "--header",
        choices=("auto", "yes", "no"),
        default="auto",
        help="whether text files start with a header line (default: auto)",
    )


def _random_args(p, seed_help: str, level_help: str) -> None:
    """--ties, --seed and --conf-level: score, compare, map."""
    p.add_argument(
        "--ties",
        choices=TIE_MODES,
        default="average",
        help="how tied scores count (default: average over orderings)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help=f"seed of {seed_help} (default: a fixed seed, recorded in the results)",
    )
    p.add_argument(
        "--conf-level",
        type=_unit_fraction(),
        default=0.95,
        help=f"coverage of {level_help} (default 0.95)",
    )


def library_options(args) -> dict:
    """The options of score, compare and map that go to the library as they are: ``--method``
    and those of :func:`_random_args`, as the library's keywords."""
    return {
        "method": args.method,
        "ties": args.ties,
        "seed": args.seed,
        "conf_level": args.conf_level,
    }


def _rtol_arg(p) -> None:
    """--rtol: score, map."""
    p.add_argument(
        "--rtol",
        type=_unit_fraction(", e.g. 0.02 for 2 %"),
        default=None,
        help="target relative standard error of an estimated (tilt) p-value "
        "(default 0.02, as in the library)",
    )


def _json_output_args(p) -> None:
    """--json and -o FILE.json: compare, map."""
    p.add_argument("--json", action="store_true", help="print JSON instead of sentences")
    _output_args(
        p,
        "--output",
        "overwrite an existing -o file",
        metavar="FILE.json",
        help="also write the JSON to a file",
    )


def _output_args(p, name: str, force_help: str, **kwargs) -> None:
    """-o NAME (``kwargs`` as for ``add_argument``) and --force to replace what it names."""
    p.add_argument("-o", name, **kwargs)
    p.add_argument("--force", action="store_true", help=force_help)


def _score_args(p) -> None:
    _input_args(p)
    p.add_argument(
        "-s",
        "--score",
        action="append",
        metavar="COL",
        help="score column: header name or 0-based index; repeat or use commas "
        "for several (one row each, plus BH-adjusted p-values)",
    )
    p.add_argument(
        "--all-scores", action="store_true", help="score every column except the label column"
    )
    p.add_argument(
        "--reader", choices=("auto", "pyarrow", "numpy"), default="auto", help=argparse.SUPPRESS
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--json",
        action="store_true",
        help="print JSON instead of the table: an object (one column) or a list of objects",
    )
    g.add_argument(
        "--csv",
        action="store_true",
        help="print CSV instead of the table: one row per score column",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="also write the results to a file, as JSON or CSV by its extension",
    )
    p.add_argument(
        "--plot",
        metavar="OUT.png",
        help="write the PR curve with random baselines (PNG at 150 dpi, or SVG or "
        "PDF when the name ends .svg or .pdf)",
    )
    p.add_argument(
        "--report",
        metavar="OUT.html",
        help="write a one-page, self-contained HTML report: the results, how each "
        "p-value was computed, the figures, what to cite and what is needed to "
        "reproduce it",
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite an existing -o, --plot or --report file"
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="how the p-value is computed, as pranker(method=...): auto (default: "
        "the most accurate method that is fast for this N and P; see "
        "docs/calibration.md), " + ", ".join(m for m in METHODS if m != "auto"),
    )
    p.add_argument(
        "--draws",
        type=_positive_int,
        default=None,
        help="random rankings for --method montecarlo (library default 100000)",
    )
    _rtol_arg(p)
    p.add_argument(
        "--max-work",
        type=_work_units,
        default=None,
        help="work budget of an estimated (tilt) p-value in deterministic units, about 1 ns "
        "each on a 2020s server core (default 1.8e9, as in the library's max_work=); a "
        "p-value that reaches it reports the wider interval it reached",
    )
    _random_args(
        p, "the random rankings drawn by --method tilt or montecarlo", "the null AUPRC interval"
    )


def _compare_args(p) -> None:
    _input_args(p)
    _json_output_args(p)
    p.add_argument(
        "-s",
        "--score",
        action="append",
        metavar="COL",
        required=True,
        help="score column; give exactly two (--score A --score B or A,B)",
    )
    p.add_argument(
        "--method",
        choices=("influence", "bootstrap", "permutation"),
        default="permutation",
        help="permutation (default: swaps the two models' scores, exact), influence "
        "(analytic variance, instant) or bootstrap (BCa)",
    )
    p.add_argument(
        "--alternative",
        choices=("two-sided", "greater", "less"),
        default="two-sided",
        help="greater: A's AUPRC is higher",
    )
    p.add_argument(
        "--resamples",
        type=_positive_int,
        default=None,
        help="bootstrap resamples or most permutations (defaults 1999, 9999)",
    )
    _random_args(p, "the bootstrap or permutation draws", "the confidence interval")


def _map_args(p) -> None:
    _input_args(p)
    _json_output_args(p)
    p.add_argument("--query", required=True, metavar="COL", help="query column (name or index)")
    p.add_argument("-s", "--score", metavar="COL", help="score column (name or index)")
    p.add_argument(
        "--group", metavar="COL", help="group column: each group of queries gets its own p-value"
    )
    p.add_argument(
        "--method",
        choices=("auto", "saddlepoint", "tilt"),
        default="auto",
        help="mAP p-value: auto (default), saddlepoint or tilt (importance sampling)",
    )
    q = p.add_mutually_exclusive_group()
    q.add_argument(
        "--query-pvalues",
        action="store_true",
        help="also give each query its own p-value (as pranker score would) and "
        "Benjamini-Hochberg adjusted values; costly with many queries",
    )
    q.add_argument(
        "--no-query-pvalues",
        action="store_true",
        help="the mean AP's p-value only (the default, as in map_significance)",
    )
    _rtol_arg(p)
    _random_args(p, "the random rankings drawn by the tilt", "the p-value intervals")


def _table_args(p) -> None:
    p.add_argument("--N", required=True, help="numbers of instances, e.g. 100:10000:100")
    p.add_argument("--P", required=True, help="numbers of positives, e.g. 1,5,10:100:10")
    _output_args(
        p,
        "--output",
        "overwrite an existing output",
        metavar="FILE",
        help="write .csv (with header) or .npz; default: CSV on stdout",
    )
    p.add_argument(
        "--max-rows",
        type=_positive_int,
        default=50_000_000,
        help="refuse grids larger than this (default 5e7)",
    )


def _demo_args(p) -> None:
    _output_args(
        p,
        "--output-dir",
        "overwrite files in an existing folder",
        default="pranker-demo",
        help="folder for scores and figures (default: pranker-demo/)",
    )
    p.add_argument(
        "--digit",
        type=int,
        default=9,
        choices=range(10),
        metavar="{0..9}",
        help="digit used as the positive class (default 9)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    p.add_argument(
        "--draws",
        type=_positive_int,
        default=20_000,
        help="Monte Carlo null draws for the histogram (default 20000)",
    )


# command -> (module of pranker.cli that runs it, its arguments, help line, description)
COMMANDS = {
    "score": (
        "score",
        _score_args,
        "AUPRC and p-value of score columns in a file",
        "Read scores and binary labels from CSV/TSV (.gz ok; - for standard input), "
        ".npy, .npz or Parquet and report AUPRC with its significance: a table with the "
        "p-value against random ranking, then one sentence per score column. Default "
        "columns: one named score/scores/prediction and one named label/labels/y/truth "
        "(case-insensitive), else the first two columns.",
    ),
    "compare": (
        "compare",
        _compare_args,
        "is model A's AUPRC higher than model B's on the same instances?",
        "Paired test of the difference of two score columns' AUPRC (average "
        "precision) on the same instances, with a confidence interval.",
    ),
    "map": (
        "map",
        _map_args,
        "mean AUPRC over queries and its p-value against random rankings",
        "Mean average precision over the queries of a file (one row per item, a query "
        "column says which query) and its p-value against random ranking of every query, "
        "with each query's own p-value and Benjamini-Hochberg adjusted values.",
    ),
    "table": (
        "table",
        _table_args,
        "table of null AUPRC mean and variance over (N, P) grids",
        "Mean and variance of the null AUPRC for every N and P <= N in the given ranges "
        "(start:stop:step includes stop; comma-separated items).",
    ),
    "demo": (
        "demo",
        _demo_args,
        "score a classifier on real bundled data and write the figures",
        "Fit two logistic regressions on scikit-learn's bundled handwritten digits "
        "(positive class: one digit, about 10% of the samples), score a held-out half, "
        "report AUPRC significance and write figures.",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pranker",
        description="AUPRC (average precision) of a ranking and its p-value against random "
        "ranking (Lopes & Bontempi, ECML PKDD 2014).",
        epilog="examples:\n"
        "  pranker demo                                  # real data, figures in "
        "pranker-demo/\n"
        "  pranker score preds.csv --plot pr.png         # columns score, label\n"
        "  pranker score preds.csv --report report.html  # one-page HTML report\n"
        "  pranker score preds.tsv -s model_a,model_b -l truth --json\n"
        "  zcat preds.csv.gz | pranker score - --quiet -o results.csv\n"
        "  pranker compare preds.csv -s model_a -s model_b --label truth\n"
        "  pranker map runs.csv --query query_id -s score -l relevant\n"
        "  pranker table --N 100:10000:100 --P 1,5,10:100:10 -o table.csv\n\n"
        "Exit status 0 on success; input errors print one message, write nothing "
        "and exit with status 2.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pranker {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}"
    )
    for name, (_, add_args, help_line, description) in COMMANDS.items():
        p = sub.add_parser(name, help=help_line, description=description)
        add_args(p)
        _common_args(p)
        p.set_defaults(func=_run_command)
    return parser


def _resolve_progress(args) -> None:
    """--progress/--no-progress/--quiet -> True or False (never None: the library would
    then fail on a terminal without tqdm)."""
    if args.quiet:
        args.progress = False
        return
    import importlib.util

    have_tqdm = importlib.util.find_spec("tqdm") is not None
    if args.progress is None:
        args.progress = have_tqdm and sys.stderr.isatty()
    elif args.progress and not have_tqdm:
        raise UserError("--progress needs tqdm: pip install tqdm (or 'pranker[progress]').")


def main(argv=None) -> int:
    """Run the ``pranker`` command line; returns the exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else (os.fspath(a) for a in argv))
    args = parser.parse_args(argv)
    args.argv = argv  # the command line, for the report
    try:
        _resolve_progress(args)
        if args.quiet:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return int(args.func(args) or 0)
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
