"""``pranker demo``: the main job on real data that ships with scikit-learn.

Data: the UCI optical handwritten digits bundled with scikit-learn
(``sklearn.datasets.load_digits``, 1797 8x8 images, no download). The task is
rare-positive retrieval: "find the images of one digit" (about 10% of the
samples). A stratified half is held out; two logistic regressions are fit on
the other half, one on all 64 pixels and a deliberately weak one on the 4
central pixels, and both rank the held-out images. The demo reports AUPRC,
the p-value against random ranking and BH-adjusted p-values for the two
models, writes the held-out scores as a CSV that ``pranker score`` reads,
draws the figures (among them the null's upper tail, where the p-values are
read) and writes a one-page HTML report of it all (``report.html``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass

import numpy as np

from .._files import atomic_write, atomic_write_text
from . import prewarm, score
from .errors import UserError
from .format import format_results, result_dict, unicode_ok

FILES = (
    "scores.csv",
    "results.json",
    "pr_curve.png",
    "roc_pr.png",
    "null_distribution.png",
    "report.html",
)
WEAK = 1  # the column of the weak model: the figures of one model show it


@dataclass
class _Scored:
    """The held-out half once ranked and scored."""

    digit: int
    n_images: int  # in the whole data set
    cols: list  # the two models' names
    s_list: list  # their held-out scores, float64
    y: np.ndarray  # held-out labels, bool
    results: list  # one PrankerResult per model
    padj: list  # log10 BH-adjusted p-values


def _models(digit: int, seed: int):
    try:
        from sklearn.datasets import load_digits
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise UserError(
            "the demo needs scikit-learn (its bundled digits data and a classifier): "
            "pip install scikit-learn matplotlib (both are in pranker[all])."
        ) from None
    X, target = load_digits(return_X_y=True)
    X = X / 16.0
    y = (target == digit).astype(np.int64)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=seed)
    central = [27, 28, 35, 36]  # the 4 pixels at the centre of the 8x8 image
    full = LogisticRegression(max_iter=2000).fit(Xtr, ytr)
    weak = LogisticRegression(max_iter=2000).fit(Xtr[:, central], ytr)
    scores = {
        "logistic_64_pixels": full.decision_function(Xte),
        "logistic_4_central_pixels": weak.decision_function(Xte[:, central]),
    }
    return scores, yte.astype(bool), X.shape


def run(args) -> int:
    out = args.output_dir
    _check_output_dir(out, args.force)
    have_mpl = _have_matplotlib()
    # a first run compiles: a helper process compiles the tilted p-values' kernels while
    # this one fits the models and computes the curves and random rankings of the figures
    with prewarm.start("tilt") as helper:
        scores, y, shape = _models(args.digit, args.seed)
        prep = _figure_data(scores, y, args.draws, args.progress) if have_mpl else None
        _ahead(scores, y, have_mpl)
        helper.wait()
        d = _score(args.digit, scores, y, shape, args.progress)
    os.makedirs(out, exist_ok=True)
    csv_path = os.path.join(out, "scores.csv")
    _write_data(d, csv_path, os.path.join(out, "results.json"))
    say = print if not args.quiet else _silent
    _say_results(d, csv_path, say)
    if prep is not None:
        paths = {f: os.path.join(out, f) for f in FILES[2:]}
        figures = _save_figures(d, prep, paths)
        _write_report(d, figures, csv_path, paths["report.html"], args)
        say(
            f"\nOpen {os.path.join(out, 'report.html')} in a browser: the results, how each "
            "p-value was computed, the figures, what to cite and how to reproduce them."
        )
    say(
        f"\nRe-run on the saved scores:\n  pranker score {csv_path} "
        f"--score {d.cols[0]},{d.cols[1]} --label label --report report.html"
    )
    return 0


def _silent(*_) -> None:
    pass


def _check_output_dir(out: str, force: bool) -> None:
    """Refuse an output folder that is a file, or holds demo output (without ``force``)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"{out} exists and is not a folder.")
    existing = [f for f in FILES if os.path.exists(os.path.join(out, f))]
    if existing and not force:
        raise UserError(
            f"{out}/ already holds demo output ({', '.join(existing)}); refusing to "
            "overwrite it (use --force, or -o another folder)."
        )


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _score(digit: int, scores: dict, y: np.ndarray, shape, progress: bool) -> _Scored:
    """Score the two models' held-out rankings with the defaults of ``pranker score``, so
    that scoring the written scores.csv repeats these numbers."""
    cols = list(scores)
    s_list = [np.ascontiguousarray(scores[c], dtype=np.float64) for c in cols]
    defaults = argparse.Namespace(
        method="auto",
        conf_level=0.95,
        ties="average",
        draws=None,
        seed=None,
        rtol=None,
        max_work=None,
        progress=progress,
    )
    results, padj = score.score_arrays(cols, s_list, y, defaults)
    return _Scored(digit, shape[0], cols, s_list, y, results, padj)


@dataclass
class _FigureData:
    """What the figures need besides the p-values: each model's (PRCurve, ROCCurve), the
    expected PR curve of a random ranking, and the random rankings of the histogram."""

    curves: list
    expected: object
    samples: np.ndarray
    draws: int


def _ahead(scores: dict, y: np.ndarray, have_mpl: bool) -> None:
    """What the rest of the run loads or compiles anyway, done while the helper compiles:
    the plotting modules, and each model's AP (its kernels compile here; the p-values
    compute it again, in microseconds)."""
    from pranker import auprc_ap

    if have_mpl:
        from pranker import plotting  # noqa: F401

    for s in scores.values():
        auprc_ap(np.ascontiguousarray(s, dtype=np.float64), y)


def _figure_data(scores: dict, y: np.ndarray, draws: int, progress: bool) -> _FigureData:
    n, p = int(y.size), int(np.count_nonzero(y))
    s_list = [np.ascontiguousarray(s, dtype=np.float64) for s in scores.values()]
    return _FigureData(
        [score.curves(s, y) for s in s_list],
        score.null_curve(n, p),
        _null_samples(n, p, draws, progress),
        draws,
    )


def _write_data(d: _Scored, csv_path: str, json_path: str) -> None:
    """The held-out labels and scores as CSV, and the results as JSON."""

    def write_scores(tmp):
        with open(tmp, "w") as fh:
            fh.write("label," + ",".join(d.cols) + "\n")
            for row in zip(d.y.astype(int).tolist(), *[s.tolist() for s in d.s_list], strict=True):
                fh.write(",".join(repr(v) for v in row) + "\n")

    atomic_write(csv_path, write_scores)
    records = [
        result_dict(r, c, "label", csv_path, d.padj[k])
        for k, (c, r) in enumerate(zip(d.cols, d.results, strict=True))
    ]
    atomic_write_text(json_path, json.dumps(records, indent=2, allow_nan=False) + "\n")


def _say_results(d: _Scored, csv_path: str, say) -> None:
    r0 = d.results[0]
    say(
        f"Digits data bundled with scikit-learn: {d.n_images} images of 8x8 pixels; positive "
        f"class = digit {d.digit}.\nHeld-out half: N = {r0.n}, P = {r0.n_pos}. Two "
        "logistic regressions rank the held-out images:\n"
    )
    say(
        format_results(d.cols, d.results, d.padj, "label", csv_path, unicode=unicode_ok(sys.stdout))
    )


def _save_figures(d: _Scored, prep: _FigureData, paths: dict) -> list:
    """Save the PR curves, the weak model's ROC and PR, and its null with a histogram of
    ``prep.draws`` random rankings; return the report's (caption, figure) pairs."""
    from pranker import plotting

    n, p = d.results[0].n, d.results[0].n_pos
    title = f"Digit {d.digit} vs rest, held-out half"
    fig_pr = score.pr_figure(
        d.cols, d.s_list, d.y, d.results, title, [c[0] for c in prep.curves], prep.expected
    )
    plotting.save_figure(fig_pr, paths["pr_curve.png"])
    weak = d.cols[WEAK]
    pr, roc = prep.curves[WEAK]
    fig_rp = plotting.plot_roc_pr_from_curves(
        roc,
        pr,
        label=weak,
        prevalence=p / n,
        null_curve=prep.expected,
        title=f"{weak}: ROC and PR share the recall axis",
    )
    plotting.save_figure(fig_rp, paths["roc_pr.png"])
    fig_null = score.null_figure(weak, d.results[WEAK], samples=prep.samples)
    plotting.save_figure(fig_null, paths["null_distribution.png"])
    fig_null0 = score.null_figure(d.cols[0], d.results[0])
    return [
        (
            f"PR curves of both models ({title}): the step curve of each ranking, whose "
            "area is its AUPRC, against the precision of a random ranking (P/N, and its "
            "expected value at each recall); dotted: F1 isolines.",
            fig_pr,
        ),
        (
            f"{weak}: ROC (left) and PR (right) sharing recall as the y axis; dashed: "
            "the interpolated envelope of the PR step curve.",
            fig_rp,
        ),
        _null_caption(d.cols[0], d.results[0], fig_null0),
        _null_caption(weak, d.results[WEAK], fig_null, prep.draws),
    ]


def _null_caption(column: str, result, fig, draws: int | None = None) -> tuple:
    """(caption, figure) of a model's null; ``draws``: the random rankings in its histogram."""
    return (
        f"{column}: the null distribution of AUPRC (left, zoomed on its bulk"
        + (f", with a histogram of {draws:,} random rankings" if draws is not None else "")
        + ") and its upper tail log10 P(AUPRC ≥ a) (right), the curve the p-value is "
        f"read from; the observed AUPRC {result.auprc:.4g} and its p-value are in red.",
        fig,
    )


def _write_report(d: _Scored, figures: list, csv_path: str, path: str, args) -> None:
    from . import report as rep

    argv = getattr(args, "argv", None) or sys.argv[1:]
    text = rep.build_report(
        title=f"pranker demo: find the {d.digit}s among handwritten digits",
        intro=(
            f"Data bundled with scikit-learn: {d.n_images} images of 8x8 pixels; "
            f"positive class = digit {d.digit}. Two logistic regressions, fitted "
            "on a stratified half (one on all 64 pixels, a deliberately weak one on "
            "the 4 central pixels), rank the other half."
        ),
        columns=d.cols,
        results=d.results,
        padj_log10=d.padj,
        label="label",
        source=rep.file_facts(csv_path),
        figures=figures,
        argv=["demo", *argv[1:]],
        settings={
            "digit": str(d.digit),
            "split seed": str(args.seed),
            "method asked": "auto",
        },
    )
    rep.write_report(path, text)


def _null_samples(n, p, draws, progress):
    from pranker.null import null_ap_samples

    from .._progress import progress_bar

    out = np.empty(draws)
    batch = 50_000
    with progress_bar(draws, "Monte Carlo null", progress) as bar:
        for a in range(0, draws, batch):
            b = min(a + batch, draws)
            out[a:b] = null_ap_samples(n, p, b - a, seed=12345, start=a)
            bar.update(b - a)
    return out
