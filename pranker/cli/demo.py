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

import json
import os
import sys

import numpy as np

from . import score
from .format import format_results, result_dict, unicode_ok
from .io import UserError, atomic_write, atomic_write_text

FILES = (
    "scores.csv",
    "results.json",
    "pr_curve.png",
    "roc_pr.png",
    "null_distribution.png",
    "report.html",
)


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
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"{out} exists and is not a folder.")
    existing = [f for f in FILES if os.path.exists(os.path.join(out, f))]
    if existing and not args.force:
        raise UserError(
            f"{out}/ already holds demo output ({', '.join(existing)}); refusing to "
            "overwrite it (use --force, or -o another folder)."
        )
    try:
        import matplotlib  # noqa: F401

        have_mpl = True
    except ImportError:
        have_mpl = False
    scores, y, shape = _models(args.digit, args.seed)
    cols = list(scores)
    s_list = [np.ascontiguousarray(scores[c], dtype=np.float64) for c in cols]
    # the defaults of `pranker score`, so that scoring the written scores.csv repeats these numbers
    ns = argparse_namespace(
        method="auto",
        conf_level=0.95,
        ties="average",
        draws=None,
        seed=None,
        rtol=None,
        progress=args.progress,
    )
    results, padj = score.score_arrays(cols, s_list, y, ns)
    os.makedirs(out, exist_ok=True)

    def write_scores(tmp):
        with open(tmp, "w") as fh:
            fh.write("label," + ",".join(cols) + "\n")
            for row in zip(y.astype(int).tolist(), *[s.tolist() for s in s_list], strict=True):
                fh.write(",".join(repr(v) for v in row) + "\n")

    csv_path = os.path.join(out, "scores.csv")
    atomic_write(csv_path, write_scores)
    records = [
        result_dict(r, c, "label", csv_path, padj[k])
        for k, (c, r) in enumerate(zip(cols, results, strict=True))
    ]
    atomic_write_text(
        os.path.join(out, "results.json"), json.dumps(records, indent=2, allow_nan=False) + "\n"
    )

    def say(*a):
        if not args.quiet:
            print(*a)

    r0 = results[0]
    say(
        f"Digits data bundled with scikit-learn: {shape[0]} images of 8x8 pixels; positive "
        f"class = digit {args.digit}.\nHeld-out half: N = {r0.n}, P = {r0.n_pos}. Two "
        "logistic regressions rank the held-out images:\n"
    )
    say(format_results(cols, results, padj, "label", csv_path, unicode=unicode_ok(sys.stdout)))
    written = [csv_path, os.path.join(out, "results.json")]
    if have_mpl:
        from pranker import plotting

        from . import report as rep

        n, p = r0.n, r0.n_pos
        null_curve = score.null_curve(n, p)
        paths = {f: os.path.join(out, f) for f in FILES[2:]}
        title = f"Digit {args.digit} vs rest, held-out half"
        fig_pr = score.pr_figure(cols, s_list, y, results, title)
        plotting.save_figure(fig_pr, paths["pr_curve.png"])
        weak = 1
        pr, roc = score.curves(s_list[weak], y)
        fig_rp = plotting.plot_roc_pr_from_curves(
            roc,
            pr,
            label=cols[weak],
            prevalence=p / n,
            null_curve=null_curve,
            title=f"{cols[weak]}: ROC and PR share the recall axis",
        )
        plotting.save_figure(fig_rp, paths["roc_pr.png"])
        samples = _null_samples(n, p, args.draws, args.progress)
        fig_null = score.null_figure(cols[weak], results[weak], samples=samples)
        plotting.save_figure(fig_null, paths["null_distribution.png"])
        fig_null0 = score.null_figure(cols[0], results[0])
        figures = [
            (
                f"PR curves of both models ({title}): the step curve of each ranking, whose "
                "area is its AUPRC, against the precision of a random ranking (P/N, and its "
                "expected value at each recall); dotted: F1 isolines.",
                fig_pr,
            ),
            (
                f"{cols[weak]}: ROC (left) and PR (right) sharing recall as the y axis; dashed: "
                "the interpolated envelope of the PR step curve.",
                fig_rp,
            ),
        ] + [
            (
                f"{c}: the null distribution of AUPRC (left, zoomed on its bulk"
                + (f", with a histogram of {args.draws:,} random rankings" if f is fig_null else "")
                + ") and its upper tail log10 P(AUPRC ≥ a) (right), the curve the p-value is "
                f"read from; the observed AUPRC {r.auprc:.4g} and its p-value are in red.",
                f,
            )
            for c, r, f in ((cols[0], results[0], fig_null0), (cols[weak], results[weak], fig_null))
        ]
        argv = getattr(args, "argv", None) or sys.argv[1:]
        text = rep.build_report(
            title=f"pranker demo: find the {args.digit}s among handwritten digits",
            intro=(
                f"Data bundled with scikit-learn: {shape[0]} images of 8x8 pixels; "
                f"positive class = digit {args.digit}. Two logistic regressions, fitted "
                "on a stratified half (one on all 64 pixels, a deliberately weak one on "
                "the 4 central pixels), rank the other half."
            ),
            columns=cols,
            results=results,
            padj_log10=padj,
            label="label",
            source=rep.file_facts(csv_path),
            figures=figures,
            argv=["demo", *argv[1:]],
            settings={
                "digit": str(args.digit),
                "split seed": str(args.seed),
                "method asked": "auto",
            },
        )
        rep.write_report(paths["report.html"], text)
        written += list(paths.values())
    if have_mpl:
        say(
            f"\nOpen {os.path.join(out, 'report.html')} in a browser: the results, how each "
            "p-value was computed, the figures, what to cite and how to reproduce them."
        )
    say(
        f"\nRe-run on the saved scores:\n  pranker score {csv_path} "
        f"--score {cols[0]},{cols[1]} --label label --report report.html"
    )
    return 0


def _null_samples(n, p, draws, progress):
    from pranker import null_ap_samples

    from .._progress import progress_bar

    out = np.empty(draws)
    batch = 50_000
    with progress_bar(draws, "Monte Carlo null", progress) as bar:
        for a in range(0, draws, batch):
            b = min(a + batch, draws)
            out[a:b] = null_ap_samples(n, p, b - a, seed=12345, start=a)
            bar.update(b - a)
    return out


def argparse_namespace(**kw):
    import argparse

    return argparse.Namespace(**kw)
