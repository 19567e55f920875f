"""Type-I error, power and coverage of pranker.compare's methods; saddlepoint vs tilt for mAP.

Run:  python benchmarks/compare_study.py [--fast]

Writes docs/compare.md (a table for users) and docs/compare_study.csv (the
numbers behind it, read by notebooks/05_compare_models.ipynb).

Models: scores ``delta * y + noise``, the two models' noises correlated
(rho = 0 or 0.7). Equally good models share delta = 1; for power, model A
has delta = 1 + effect. The true difference for coverage is the mean AP
difference over 4,000 extra data sets.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's pranker, whatever is installed

from pranker import compare  # noqa: E402
from pranker.significance.mean_ap import map_significance_from_ap  # noqa: E402

METHODS = ("influence", "bootstrap", "permutation")


def data(rng, P, ratio, rho, effect):
    N = P * ratio
    y = np.zeros(N, bool)
    y[:P] = True
    z = rng.normal(size=(2, N))
    z[1] = rho * z[0] + math.sqrt(1 - rho * rho) * z[1]
    return z[0] + (1.0 + effect) * y, z[1] + y, y


def true_diff(P, ratio, rho, effect, reps, seed):
    if effect == 0:
        return 0.0
    from pranker import auprc_ap

    rng = np.random.default_rng(seed)
    d = [auprc_ap(a, y) - auprc_ap(b, y) for a, b, y in
         (data(rng, P, ratio, rho, effect) for _ in range(reps))]
    return float(np.mean(d))


def cell(P, ratio, rho, effect, reps, seed):
    rng = np.random.default_rng(seed)
    truth = true_diff(P, ratio, rho, effect, 4000 if effect else 0, seed + 1)
    out = {m: {"p": [], "cov": []} for m in METHODS}
    for r in range(reps):
        a, b, y = data(rng, P, ratio, rho, effect)
        for m in METHODS:
            res = compare(a, b, y, method=m, seed=r)
            ci = res.confidence_interval()
            out[m]["p"].append(res.pvalue)
            out[m]["cov"].append(ci.low <= truth <= ci.high)
    rows = []
    for m in METHODS:
        p = np.array(out[m]["p"])
        rows.append(dict(P=P, N=P * ratio, ratio=ratio, rho=rho, effect=effect, method=m,
                         reps=reps, rej05=float(np.mean(p <= 0.05)),
                         rej01=float(np.mean(p <= 0.01)),
                         coverage=float(np.mean(out[m]["cov"]))))
    return rows


def map_errors(fast):
    """Saddlepoint / tilt ratio of mAP p-values near p = 1e-6, by Q and P (N = 1000)."""
    rows = []
    for P in (5, 20):
        for Q in ((1, 10) if fast else (1, 3, 10, 30, 100)):
            from pranker.significance.mean_ap import _SumNull

            nl = _SumNull([1000] * Q, [P] * Q, 1)
            m = nl.mean + 4.75 * math.sqrt(nl.var)
            t = map_significance_from_ap([m] * Q, [1000] * Q, [P] * Q, method="tilt", rtol=0.01)
            s = map_significance_from_ap([m] * Q, [1000] * Q, [P] * Q, method="saddlepoint")
            rows.append(dict(P=P, Q=Q, tilt=t.pvalue, rse=t.pvalue_rse, saddlepoint=s.pvalue,
                             ratio=s.pvalue / t.pvalue))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--fast", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    grid = [(5, r) for r in (2, 10, 100, 1000)] + [(50, r) for r in (2, 10, 100)] + \
        [(500, r) for r in (2, 10)] + [(5000, 2)]
    if args.fast:
        grid = [(5, 10), (50, 10)]
    rows = []
    seed = 1
    for P, ratio in grid:
        for rho in (0.0, 0.7):
            N = P * ratio
            reps = 40 if args.fast else (400 if N <= 1000 else 200)
            rows += cell(P, ratio, rho, 0.0, reps, seed)
            seed += 10
            print(f"null P={P} N={N} rho={rho}: {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    for P, ratio, eff in ([(50, 10, 0.5)] if args.fast else
                          [(50, 10, 0.25), (50, 10, 0.5), (500, 10, 0.1), (500, 10, 0.25)]):
        rows += cell(P, ratio, 0.7, eff, 40 if args.fast else 200, seed)
        seed += 10
        print(f"power P={P} eff={eff}: {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    mrows = map_errors(args.fast)
    elapsed = time.perf_counter() - t0
    with open(ROOT / "docs" / "compare_study.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    write_md(rows, mrows, elapsed, args.fast)


def write_md(rows, mrows, elapsed, fast=False):
    lines = [
        "# Comparing two models' AUPRC on the same instances",
        "",
        "`pranker.compare(scores_a, scores_b, y)` tests whether two models that scored the "
        "same instances differ in average precision (AP), and gives a confidence interval for "
        "the difference AP_a - AP_b. `pranker compare FILE --score A --score B` does the same "
        "on the command line. Three methods:",
        "",
        "- **influence** (default): the AUPRC analogue of DeLong's test for ROC AUC. The "
        "variance of the difference comes from each instance's influence on both models' AP "
        "(paired, because both models score the same instances); a normal (Wald) test and "
        "interval. Instant (one sort per model), deterministic.",
        "- **bootstrap**: positives and negatives resampled separately, the same instances for "
        "both models; a BCa interval, and the p-value is the level at which that interval "
        "just excludes 0. Its smallest p-value is about 1/2000.",
        "- **permutation**: each model's scores are turned into ranks and, instance by "
        "instance, the two models' ranks are swapped at random; the p-value (b+1)/(m+1) is "
        "exact when the two models are exchangeable. The interval assumes the difference "
        "shifts the permutation distribution.",
        "",
        "## Type-I error with two equally good models",
        "",
        "Scores are `y + noise` for both models, the two noises independent (rho = 0) or "
        "correlated (rho = 0.7). Each row is the share of data sets where the test rejected "
        "at 5 % and 1 %, and the share of 95 % intervals that contained the true difference "
        "(0). With R data sets the Monte Carlo error of a 5 % rate is about "
        "sqrt(0.05 * 0.95 / R): 0.011 for R = 400, 0.015 for R = 200.",
        "",
        "| P | N | rho | R | influence 5% / 1% | bootstrap 5% / 1% | permutation 5% / 1% "
        "| coverage infl. / boot. / perm. |",
        "|---:|---:|---:|---:|---|---|---|---|",
    ]
    by = {}
    for r in rows:
        by.setdefault((r["P"], r["N"], r["rho"], r["effect"]), {})[r["method"]] = r
    for (P, N, rho, eff), d in by.items():
        if eff:
            continue
        cells = [f"{d[m]['rej05']:.3f} / {d[m]['rej01']:.3f}" for m in METHODS]
        cov = " / ".join(f"{d[m]['coverage']:.3f}" for m in METHODS)
        lines.append(f"| {P} | {N} | {rho} | {d['influence']['reps']} | " + " | ".join(cells)
                     + f" | {cov} |")
    lines += [
        "",
        "## Power and coverage when model A is better",
        "",
        "Model A scores `(1 + effect) y + noise`, model B `y + noise`, rho = 0.7. Coverage is "
        "of the mean AP difference (estimated from 4,000 further data sets).",
        "",
        "| P | N | effect | R | power at 5%: infl. / boot. / perm. | coverage infl. / boot. / perm. |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for (P, N, _rho, eff), d in by.items():
        if not eff:
            continue
        pw = " / ".join(f"{d[m]['rej05']:.3f}" for m in METHODS)
        cov = " / ".join(f"{d[m]['coverage']:.3f}" for m in METHODS)
        lines.append(f"| {P} | {N} | {eff} | {d['influence']['reps']} | {pw} | {cov} |")
    lines += [
        "",
        "## Mean AP over queries: saddlepoint or importance sampling",
        "",
        "`pranker.map_significance` gives the p-value of a mean AP over Q queries. Ratio of "
        "the saddlepoint p-value to the unbiased importance-sampling estimate (1 % relative "
        "standard error) for Q queries of N = 1000 items with P positives, at a mean AP 4.75 "
        "null standard deviations above the null mean:",
        "",
        "| P | Q | importance sampling | saddlepoint | ratio |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in mrows:
        lines.append(f"| {r['P']} | {r['Q']} | {r['tilt']:.3g} | {r['saddlepoint']:.3g} | "
                     f"{r['ratio']:.3f} |")
    lines += [
        "",
        "The default (`method=\"auto\"`) uses importance sampling for up to 20 queries and the "
        "saddlepoint beyond, where its error is a few percent or less.",
        "",
        ("This is a quick run (`--fast`: two cells, 40 data sets each): its rates carry a "
         "Monte Carlo error of about 0.035. " if fast else "")
        + f"Produced by `python benchmarks/compare_study.py` in {elapsed / 60:.0f} minutes.",
        "",
    ]
    (ROOT / "docs" / "compare.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
