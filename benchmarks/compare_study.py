"""Type-I error, power and coverage of pranker.compare's methods; saddlepoint vs tilt for mAP.

Run:  python benchmarks/compare_study.py [--fast] [--cache DIR] [--report-only]

Writes docs/compare.md (a table for users) and docs/compare_study.csv (the
numbers behind it, read by notebooks/05_compare_models.ipynb).

Models: scores ``delta * y + noise``, standard normal noises, the two models'
noises correlated (rho = 0 or 0.8). Equally good models share delta = 1 (the
pair of scores of an instance is then exchangeable, so the permutation test is
exact here); for power, model A has delta = 1 + effect. The true difference for
coverage is the mean AP difference over 4,000 further data sets.

Grid: P in {5, 50, 500, 5000} positives, N/P in {2, 10, 100, 1000}, so N from
10 to 5,000,000. Every data set is tested by the influence method with two
references: the normal (``influence-z``) and Student's t with Welch-Satterthwaite
degrees of freedom (``influence-t``, the default of :func:`pranker.compare`);
the resampling methods (defaults: 1,999 bootstrap resamples; permutation
patterns up to 9,999, stopping at 100 exceedances, at least 1,999 drawn for the
interval) on the first ``R_res`` data sets of a cell only, and not at all where
N > 5,000: there one bootstrap data set costs 2,000 APs of N items (9 s at
N = 50,000 on one core) and the study would not fit its hour.

Each cell draws its data from its own seed (a function of the cell), and its
per-data-set results are cached (one ``.npz`` per cell in ``--cache``), so an
interrupted run resumes where it stopped and a rerun reproduces every number.
Run with ``NUMBA_NUM_THREADS=1`` to use one core.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's pranker, whatever is installed

from scipy import stats  # noqa: E402

from pranker import auprc_ap, compare  # noqa: E402

METHODS = ("permutation", "influence-t", "influence-z")
DEFAULT = "permutation"
OLD_DEFAULT = "influence-t"
PS = (5, 50, 500, 5000)
RATIOS = (2, 10, 100, 1000)
RHOS = (0.0, 0.8)
# (P, N/P, effect): the cells of the earlier study (N/P = 10), then low-AP cells (N/P = 100)
POWER = [
    (5, 10, 1.0),
    (5, 10, 2.0),
    (50, 10, 0.25),
    (50, 10, 0.5),
    (500, 10, 0.1),
    (500, 10, 0.25),
    (5, 100, 2.0),
    (50, 100, 0.5),
    (500, 100, 0.15),
]
PREVIOUS = ROOT / "docs" / "compare_study_previous.csv"


def reps_for(N, fast=False, P=0):
    """Data sets of a null cell (every method runs on every data set)."""
    if fast:
        return 40
    if P >= 5000:  # 4P + 1 slots per pattern: the costliest cells, measured coarsely
        return 60 if N <= 50_000 else (20 if N <= 500_000 else 10)
    if N <= 50_000:
        return 400
    return 60


def power_reps(N, fast=False):
    return 40 if fast else (300 if N <= 50_000 else 100)


def mc_error(alpha, R):
    """Two standard errors of a rejection rate alpha estimated from R data sets."""
    return 2.0 * math.sqrt(alpha * (1.0 - alpha) / R) if R else math.nan


def data(rng, P, ratio, rho, effect):
    N = P * ratio
    y = np.zeros(N, bool)
    y[:P] = True
    z = rng.normal(size=(2, N))
    z[1] = rho * z[0] + math.sqrt(1 - rho * rho) * z[1]
    return z[0] + (1.0 + effect) * y, z[1] + y, y


def cell_seed(P, ratio, rho, effect):
    return [int(P), int(ratio), int(round(rho * 10)), int(round(effect * 100))]


def true_diff(P, ratio, rho, effect, reps):
    if effect == 0:
        return 0.0
    rng = np.random.default_rng(cell_seed(P, ratio, rho, effect) + [1])
    d = [
        auprc_ap(a, y) - auprc_ap(b, y)
        for a, b, y in (data(rng, P, ratio, rho, effect) for _ in range(reps))
    ]
    return float(np.mean(d))


def welch_df(a, b, y):
    """Welch-Satterthwaite degrees of freedom of the influence variance (s2+/P + s2-/M)."""
    from pranker.significance.compare import _influence_values

    d = _influence_values(a, y, "average") - _influence_values(b, y, "average")
    P, M = int(y.sum()), int((~y).sum())
    v1 = d[y].var(ddof=1) / P
    v2 = d[~y].var(ddof=1) / M
    den = v1 * v1 / (P - 1) + v2 * v2 / (M - 1)
    return (v1 + v2) ** 2 / den if den > 0 else math.inf


def run_cell(P, ratio, rho, effect, R, cache):
    """Per-data-set p-values (two-sided), 95 % coverage and patterns drawn; cached per cell."""
    name = f"P{P}_r{ratio}_rho{rho}_eff{effect}_R{R}.npz"
    path = cache / name if cache else None
    if path is not None and path.exists():
        z = np.load(path)
        return {k: z[k] for k in z.files}
    rng = np.random.default_rng(cell_seed(P, ratio, rho, effect))
    out = {f"{m}_{k}": np.full(R, np.nan) for m in METHODS for k in ("p", "cov")}
    out["stat"] = np.empty(R)
    out["draws"] = np.empty(R)
    out["seconds"] = np.empty(R)
    truth = true_diff(P, ratio, rho, effect, 2000 if effect else 0)
    out["truth"] = np.array(truth)
    q = stats.norm.ppf(0.975)
    for r in range(R):
        a, b, y = data(rng, P, ratio, rho, effect)
        res = compare(a, b, y, method="influence")
        d, se = res.statistic, res.standard_error
        out["stat"][r] = d
        df = welch_df(a, b, y)
        t = d / se if se > 0 else 0.0
        out["influence-z_p"][r] = 2.0 * stats.norm.sf(abs(t))
        out["influence-z_cov"][r] = abs(d - truth) <= q * se
        out["influence-t_p"][r] = 2.0 * stats.t.sf(abs(t), df)
        out["influence-t_cov"][r] = abs(d - truth) <= stats.t.ppf(0.975, df) * se
        assert math.isclose(res.pvalue, out["influence-t_p"][r], rel_tol=1e-6, abs_tol=1e-300)
        t0 = time.perf_counter()
        rm = compare(a, b, y, seed=r)  # the default: permutation, stopping at alpha = 0.05
        ci = rm.confidence_interval(0.95)
        out["seconds"][r] = time.perf_counter() - t0
        out["permutation_p"][r] = rm.pvalue
        out["permutation_cov"][r] = ci.low <= truth <= ci.high
        out["draws"][r] = rm.n_draws
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **out)
        os.replace(tmp, path)
    return out


def summarize(P, ratio, rho, effect, R, out):
    rows = []
    for m in METHODS:
        p = out[f"{m}_p"]
        cov = out[f"{m}_cov"]
        ok = ~np.isnan(p)
        n = int(ok.sum())
        rows.append(
            dict(
                P=P,
                N=P * ratio,
                ratio=ratio,
                rho=rho,
                effect=effect,
                method=m,
                reps=n,
                rej05=float(np.mean(p[ok] <= 0.05)) if n else math.nan,
                rej01=float(np.mean(p[ok] <= 0.01)) if n else math.nan,
                coverage=float(np.mean(cov[ok])) if n else math.nan,
                mc05=mc_error(0.05, n),
                mc01=mc_error(0.01, n),
                mc_cov=mc_error(0.05, n),
                truth=float(out["truth"]),
                mean_draws=float(np.mean(out["draws"])) if m == DEFAULT else math.nan,
                max_draws=float(np.max(out["draws"])) if m == DEFAULT else math.nan,
                mean_seconds=float(np.mean(out["seconds"])) if m == DEFAULT else math.nan,
            )
        )
    return rows


def plan(fast=False):
    """Every cell (P, ratio, rho, effect, R), cheapest first."""
    cells = []
    if fast:
        for P, ratio in ((5, 10), (50, 10)):
            for rho in RHOS:
                cells.append((P, ratio, rho, 0.0, reps_for(P * ratio, True)))
        cells.append((50, 10, 0.8, 0.5, power_reps(500, True)))
        return cells
    for P in PS:
        for ratio in RATIOS:
            for rho in RHOS:
                if reps_for(P * ratio, P=P):
                    cells.append((P, ratio, rho, 0.0, reps_for(P * ratio, P=P)))
    for P, ratio, eff in POWER:
        cells.append((P, ratio, 0.8, eff, power_reps(P * ratio)))
    return sorted(cells, key=lambda c: (c[0] * c[1], c[3], c[2]))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--fast", action="store_true", help="five cells, 40 data sets: a smoke run")
    ap.add_argument(
        "--cache",
        default=str(Path.home() / ".cache" / "pranker" / "compare_study_swap"),
        help="directory of the per-cell results (resume from it)",
    )
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="write the CSV and the page from the cached cells only",
    )
    ap.add_argument("--max-n", type=int, default=None, help="run only cells with N at most this")
    ap.add_argument("--note", default="", help="a closing line for the page (run time, load)")
    ap.add_argument("--cost", default=None, help="a Markdown file: the cost section's text")
    args = ap.parse_args(argv)
    cache = Path(args.cache)
    t0 = time.perf_counter()
    rows = []
    for P, ratio, rho, eff, R in plan(args.fast):
        name = cache / f"P{P}_r{ratio}_rho{rho}_eff{eff}_R{R}.npz"
        if (args.report_only or (args.max_n and P * ratio > args.max_n)) and not name.exists():
            print(f"missing: P={P} N={P * ratio} rho={rho} effect={eff}", file=sys.stderr)
            continue
        out = run_cell(P, ratio, rho, eff, R, cache)
        rows += summarize(P, ratio, rho, eff, R, out)
        print(
            f"P={P} N={P * ratio} rho={rho} effect={eff} R={R}: {time.perf_counter() - t0:.0f}s",
            file=sys.stderr,
            flush=True,
        )
    elapsed = time.perf_counter() - t0
    print(f"done in {elapsed / 60:.1f} min", file=sys.stderr)
    with open(ROOT / "docs" / "compare_study.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    cost = Path(args.cost).read_text() if args.cost else ""
    write_md(rows, args.note, args.fast, cost)


def se(alpha, R):
    """One Monte Carlo standard error of a rate alpha estimated from R data sets."""
    return math.sqrt(alpha * (1.0 - alpha) / R) if R else math.nan


def _flag(rate, alpha, R, k=3.0):
    """The rate, marked when it is more than k standard errors from alpha."""
    if rate is None or math.isnan(rate):
        return "–"
    e = k * se(alpha, R)
    mark = " ↑" if rate > alpha + e else (" ↓" if rate < alpha - e else "")
    return f"{rate:.3f}{mark}"


def previous_rows():
    """The earlier study's rows (influence (t) default, bootstrap, rank-swap permutation)."""
    if not PREVIOUS.exists():
        return {}
    with open(PREVIOUS) as fh:
        out = {}
        for r in csv.DictReader(fh):
            key = (int(r["P"]), int(r["N"]), float(r["rho"]), float(r["effect"]), r["method"])
            out[key] = {k: float(v) for k, v in r.items() if k != "method"}
        return out


def _pair(r, key="rej05", alt="rej01"):
    if r is None or not r["reps"]:
        return "–"
    n = int(r["reps"])
    return f"{_flag(r[key], 0.05, n)} / {_flag(r[alt], 0.01, n)}"


def null_table(rows, prev):
    by = {}
    for r in rows:
        if r["effect"] == 0:
            by.setdefault((r["P"], r["N"], r["rho"]), {})[r["method"]] = r
    lines = [
        "| P | N | rho | R | **permutation (new default)** 5% / 1% | influence (t) 5% / 1% "
        "| influence (z) 5% / 1% | 3 SE at 5% / 1% | earlier study: R | influence (t), "
        "the old default | bootstrap | rank-swap permutation |",
        "|---:|---:|---:|---:|---|---|---|---|---:|---|---|---|",
    ]
    for (P, N, rho), d in sorted(by.items()):
        R = d[DEFAULT]["reps"]
        old = {
            m: prev.get((P, N, rho, 0.0, m)) for m in ("influence-t", "bootstrap", "permutation")
        }
        o = old["influence-t"]
        lines.append(
            f"| {P} | {N:,} | {rho} | {R} | {_pair(d[DEFAULT])} | {_pair(d['influence-t'])} | "
            f"{_pair(d['influence-z'])} | {3 * se(0.05, R):.3f} / {3 * se(0.01, R):.3f} | "
            f"{int(o['reps']) if o else '–'} | {_pair(o)} | {_pair(old['bootstrap'])} | "
            f"{_pair(old['permutation'])} |"
        )
    return lines


def coverage_null_table(rows, prev):
    by = {}
    for r in rows:
        if r["effect"] == 0:
            by.setdefault((r["P"], r["N"], r["rho"]), {})[r["method"]] = r
    lines = [
        "| P | N | rho | R | **permutation (new default)** | influence (t) | 3 SE "
        "| earlier study: influence (t), the old default (R) |",
        "|---:|---:|---:|---:|---|---|---|---|",
    ]
    for (P, N, rho), d in sorted(by.items()):
        R = d[DEFAULT]["reps"]
        o = prev.get((P, N, rho, 0.0, "influence-t"))
        old = f"{_flag(o['coverage'], 0.95, int(o['reps']))} ({int(o['reps'])})" if o else "–"
        lines.append(
            f"| {P} | {N:,} | {rho} | {R} | {_flag(d[DEFAULT]['coverage'], 0.95, R)} | "
            f"{_flag(d['influence-t']['coverage'], 0.95, R)} | {3 * se(0.95, R):.3f} | {old} |"
        )
    return lines


def power_table(rows):
    by = {}
    for r in rows:
        if r["effect"]:
            by.setdefault((r["P"], r["N"], r["rho"], r["effect"]), {})[r["method"]] = r
    lines = [
        "| P | N | effect | R | mean AP_a - AP_b | power at 5%: **new default** / old default "
        "/ gain | power at 1%: new / old | 95 % coverage: **new default** / old default | "
        "3 SE of coverage |",
        "|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    for (P, N, _rho, eff), d in sorted(by.items(), key=lambda kv: (kv[0][1] // kv[0][0], kv[0])):
        n, o = d[DEFAULT], d[OLD_DEFAULT]
        R = n["reps"]
        lines.append(
            f"| {P} | {N:,} | {eff} | {R} | {n['truth']:.4f} | {n['rej05']:.3f} / "
            f"{o['rej05']:.3f} / {n['rej05'] - o['rej05']:+.3f} | {n['rej01']:.3f} / "
            f"{o['rej01']:.3f} | {_flag(n['coverage'], 0.95, R)} / "
            f"{_flag(o['coverage'], 0.95, R)} | {3 * se(0.95, R):.3f} |"
        )
    return lines


def cost_table(rows):
    lines = [
        "| P | N | rho | effect | patterns per call: mean / most | seconds per call (mean) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(
        (r for r in rows if r["method"] == DEFAULT), key=lambda r: (r["N"], r["P"], r["effect"])
    ):
        lines.append(
            f"| {r['P']} | {r['N']:,} | {r['rho']} | {r['effect']} | {r['mean_draws']:,.0f} / "
            f"{r['max_draws']:,.0f} | {r['mean_seconds']:.3f} |"
        )
    return lines


def verdicts(rows, method, key, alpha):
    """(within, above, below) lists of (P, N, rho, rate, R) beyond 3 standard errors."""
    out = ([], [], [])
    for r in rows:
        if r["effect"] or r["method"] != method or not r["reps"]:
            continue
        x, R = r[key], r["reps"]
        e = 3 * se(alpha, R)
        k = 1 if x > alpha + e else (2 if x < alpha - e else 0)
        out[k].append((r["P"], r["N"], r["rho"], x, R))
    return out


def _cells(lst, alpha):
    return (
        ", ".join(
            f"P = {P}, N = {N:,}, rho = {rho}: {x:.3f} (3 SE = {3 * se(alpha, R):.3f})"
            for P, N, rho, x, R in lst
        )
        or "none"
    )


def decision(rows):
    """The default and why, with the numbers of this run."""
    at = {(r["P"], r["N"], r["rho"], r["effect"], r["method"]): r for r in rows}
    nulls = [r for r in rows if not r["effect"] and r["method"] == DEFAULT]
    w05 = verdicts(rows, DEFAULT, "rej05", 0.05)
    w01 = verdicts(rows, DEFAULT, "rej01", 0.01)
    o05 = verdicts(rows, OLD_DEFAULT, "rej05", 0.05)
    power = sorted(
        {(r["P"], r["N"], r["effect"]) for r in rows if r["effect"]},
        key=lambda c: (c[1] // c[0], c),
    )
    lose, gain = [], []
    for P, N, eff in power:
        n, o = at[(P, N, 0.8, eff, DEFAULT)], at[(P, N, 0.8, eff, OLD_DEFAULT)]
        for key, lvl in (("rej05", "5 %"), ("rej01", "1 %")):
            x, z = n[key], o[key]
            e = 3 * math.sqrt((x * (1 - x) + z * (1 - z)) / n["reps"])
            text = f"P = {P}, N = {N:,}, effect {eff}, at {lvl}: {x:.3f} against {z:.3f}"
            if x - z < -e:
                lose.append(text)
            elif x - z > e:
                gain.append(text)
    cov_bad = [
        f"P = {r['P']}, N = {r['N']:,}, effect {r['effect']}: {r['coverage']:.3f}"
        for r in rows
        if r["method"] == DEFAULT and abs(r["coverage"] - 0.95) > 3 * se(0.95, r["reps"])
    ]
    worst01 = "; ".join(
        f"P = {P}, N = {N:,}, rho = {rho}: {x:.3f} (influence (t) on the same data sets: "
        f"{at[(P, N, rho, 0.0, OLD_DEFAULT)]['rej01']:.3f})"
        for P, N, rho, x, R in w01[1]
    )
    return "\n".join(
        [
            f"**The default is the permutation test of swapped scores.** In the {len(nulls)} "
            "null cells measured its type-I error lies within alpha ± 3 SE in "
            f"{len(w05[0])} at alpha = 0.05 and {len(w01[0])} at alpha = 0.01"
            + (
                f"; above at 0.01 in {len(w01[1])} ({worst01}), where every method rejects "
                "too often on the same data sets: a draw of the data sets, not of the test, "
                "which is exact there"
                if w01[1]
                else ""
            )
            + ". The influence test, on the same data sets, is below alpha - 3 SE at 0.05 "
            f"in {len(o05[2])} cells: {_cells(o05[2], 0.05)}. Where the AP is low the new "
            "default rejects equally good models about 5 % of the time at alpha = 5 %, "
            "where the old one rejected almost never.",
            "",
            "**Power.** Against the old default on the same data sets (differences beyond "
            "3 standard errors of two independent rates, a bound that ignores the pairing): "
            "higher in "
            + ("; ".join(gain) or "no cell")
            + "; lower in "
            + ("; ".join(lose) or "no cell")
            + ". With 5 positives and a much better model A, swapping the scores of A's "
            "positives (far above B's) widens the swap distribution, and the exact test has "
            "less power than the influence test, which is conservative there under the null "
            "but not under these alternatives. That misses the bar 'power at least the old "
            "default's in every alternative cell' in the cells with 5 positives; from 50 "
            "positives on the two tests are equally powerful at N/P = 10, and the new one is "
            "more powerful where the AP is low. For 5 positives and a large difference, "
            '`method="influence"` is the more powerful choice, at the price of a level '
            "below alpha when the models are equally good.",
            "",
            "**Coverage.** Cells where the default's 95 % interval misses 0.95 by more than "
            "3 SE: "
            + ("; ".join(cov_bad) or "none")
            + ". The interval shifts the swap distribution, which is symmetric; under an "
            "alternative the difference is skewed when the AP is low (skewness about 0.9 at "
            "P = 50, N = 5,000, effect 0.5, where the swap distribution's spread is also "
            "about 10 % below the difference's), so the symmetric interval undercovers "
            "there, as the influence interval does on the same data sets.",
        ]
    )


REFERENCES = [
    "- R. A. Fisher, The Design of Experiments. Oliver and Boyd 1935 (the randomisation "
    "test of paired data).",
    "- B. Phipson and G. K. Smyth, Permutation p-values should never be zero. Stat. Appl. "
    "Genet. Mol. Biol. 9(1) (2010).",
    "- C. J. Clopper and E. S. Pearson, The use of confidence or fiducial limits illustrated "
    "in the case of the binomial. Biometrika 26 (1934) 404–413.",
    "- E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Comparing the areas under two "
    "or more correlated receiver operating characteristic curves: a nonparametric "
    "approach. Biometrics 44 (1988) 837–845.",
    "- F. R. Hampel, The influence curve and its role in robust estimation. JASA 69 (1974) "
    "383–393.",
    "- K. Boyd, K. H. Eng and C. D. Page, Area under the precision-recall curve: point "
    "estimates and confidence intervals. ECML PKDD 2013.",
    "- F. E. Satterthwaite, An approximate distribution of estimates of variance "
    "components. Biometrics Bulletin 2 (1946) 110–114; B. L. Welch, The generalization of "
    "'Student's' problem when several different population variances are involved. "
    "Biometrika 34 (1947) 28–35.",
    "- B. Efron, Better bootstrap confidence intervals. JASA 82 (1987) 171–185; A. C. "
    "Davison and D. V. Hinkley, Bootstrap Methods and their Application. Cambridge "
    "University Press 1997.",
    "- E. S. Venkatraman and C. B. Begg, A distribution-free procedure for comparing "
    "receiver operating characteristic curves from a paired experiment. Biometrika 83 "
    "(1996) 835–848.",
]


def write_md(rows, note="", fast=False, cost=""):
    prev = previous_rows()
    n_null = len({(r["P"], r["N"], r["rho"]) for r in rows if not r["effect"]})
    lines = [
        "# Comparing two models' AUPRC on the same instances",
        "",
        "`pranker.compare(scores_a, scores_b, y)` tests whether two models that scored the "
        "same instances differ in average precision (AP), and gives a confidence interval for "
        "the difference AP_a - AP_b. `pranker compare FILE --score A --score B` does the same "
        "on the command line, with the same numbers. Three methods:",
        "",
        "- **permutation** (default): the paired randomisation test (Fisher 1935). When the "
        "two models are interchangeable, the pair of scores (a_i, b_i) of each instance is "
        "exchangeable: swapping the two models' *scores* on any subset of instances leaves "
        "the joint law unchanged, so the observed difference is one draw among the 2^N swap "
        "patterns, whatever N, P, the ties and the correlation between the models. Patterns "
        "are drawn at random (seeded; pattern t depends only on the seed and t, so the numbers "
        "do not depend on the threads) and the p-value is (b + 1) / (m + 1) with b of m "
        "patterns at least as extreme (Phipson & Smyth 2010). Each pattern's AP is computed "
        "from counts, not a sort: the positives' scores cut the score axis into slots, an "
        "instance moves between its two slots when swapped, and a swap pattern sends a "
        "Binomial(n, 1/2) share of the n instances with the same pair of slots one way "
        "(exactly, as the set bits of n random bits). Drawing looks at the p-value after "
        "999 patterns, then 1,999, 3,999, ... up to `n_draws` (9,999): it stops at the first "
        "look whose Clopper–Pearson interval for the p-value of all 2^N patterns lies below "
        "or above `alpha` (0.05), at a confidence that makes the chance of deciding "
        "otherwise than all 2^N patterns would at most 0.001 over all looks (Bonferroni). "
        "`alpha=None` draws every one of the `n_draws` patterns. The interval inverts the "
        "test with the difference shifted: it holds the differences delta for which d - delta "
        "lies within the central 95 % of the swap distribution (symmetric about 0: swapping "
        "the complement of a pattern negates its difference). The scores of the two models "
        "must be on a common scale (both probabilities, both logits, ...): the test swaps "
        "scores, so on different scales it keeps its level (the pairs are then not "
        "exchangeable only if the models differ) but loses power; rank-transform neither "
        "model alone.",
        "- **influence**: the AUPRC analogue of DeLong, DeLong & Clarke-Pearson's (1988) "
        "test for correlated ROC AUCs: each instance's influence on each model's AP (Hampel "
        "1974; Boyd, Eng & Page 2013) gives the variance of the paired difference, referred "
        "to Student's t with Welch-Satterthwaite degrees of freedom (Satterthwaite 1946, "
        "Welch 1947). Deterministic, one sort per model, scale-free. Valid where the AP is "
        "not low (N/P below about 100 with the models of the study) and from 50 positives "
        "on; conservative, with little power, where a few top-ranked positives carry the AP.",
        "- **bootstrap**: positives and negatives resampled separately, the same instances "
        "for both models, 1,999 resamples; Efron's (1987) BCa interval, and the p-value the "
        "level at which it just excludes 0. Anti-conservative below some 50 positives; use "
        "it only with many positives of both classes.",
        "",
        "Earlier releases defaulted to *influence*, and their *permutation* swapped the two "
        "models' ranks (Venkatraman & Begg 1996), which is not exact: swapping one instance's "
        "ranks is not swapping its scores, which would move the other instances' ranks. Both "
        "appear in the tables below as *earlier study*.",
        "",
        "## The study",
        "",
        "Model A scores `(1 + effect) y + noise_a`, model B `y + noise_b`, the noises standard "
        "normal with correlation rho = 0 (independent models) or rho = 0.8 (models that agree, "
        "as two versions of one model do). With effect = 0 the two models are equally good "
        "and the pair of scores of an instance is exchangeable, so every rejection is a type-I "
        "error. The grid is P = 5, 50, 500, 5,000 positives and N/P = 2, 10, 100, 1,000, so N "
        f"runs from 10 to 5,000,000: {n_null} null cells. Every data set of a cell is tested "
        "by the new default and by the influence method (t and normal references) on the same "
        "data. The earlier study's numbers (other data sets, more of them) are shown beside.",
        "",
        "Replications were reduced to fit the time available: R = 400 data sets per null cell "
        "up to N = 50,000 (60 with P = 5,000, where a pattern handles 20,001 slots), 60 at "
        "P = 500, N = 500,000, and only 20 and 10 with P = 5,000 at N = 500,000 and "
        "5,000,000 (those four cells are measured coarsely; the earlier study's columns show "
        "the influence test there on more data sets); 300 data sets per alternative. One "
        "Monte Carlo standard error (SE) of a rate is sqrt(alpha (1 - alpha) / R): 0.011 at "
        "alpha = 0.05 and 0.005 at alpha = 0.01 with R = 400; 0.028 / 0.013 with 60; "
        "0.049 / 0.022 with 20; 0.069 / 0.031 with 10. The bar "
        "is alpha ± 3 SE (a column gives it); a rate beyond it is marked ↑ (rejects too often: "
        "anti-conservative) or ↓ (too rarely: conservative, power lost). The same marks "
        "apply to coverage against 0.95 and to the earlier study's columns with their own R.",
        "",
        "Every cell draws from its own seed and its per-data-set results are cached: "
        "`python benchmarks/compare_study.py` reproduces every number (with any number of "
        "threads). The numbers are in `docs/compare_study.csv`, the earlier study's in "
        "`docs/compare_study_previous.csv`.",
        "",
        "## Type-I error with two equally good models",
        "",
        "Share of data sets where the test rejected at alpha = 5 % and 1 %.",
        "",
    ]
    lines += null_table(rows, prev)
    lines += ["", "## Coverage of the 95 % intervals (equally good models: the truth is 0)", ""]
    lines += coverage_null_table(rows, prev)
    lines += [
        "",
        "## Power and coverage when model A is better",
        "",
        "rho = 0.8. The old default (influence, t reference) runs on the same data sets, so "
        "the gain is paired. Coverage is of the mean AP difference, estimated from 2,000 "
        "further data sets. The first six cells are the earlier study's (N/P = 10), the last "
        "three are low-AP cells (N/P = 100), where the old default was conservative.",
        "",
    ]
    lines += power_table(rows)
    lines += ["", "## The default, and why", "", decision(rows), ""]
    lines += ["", "## Verdicts: the bars", ""]
    for m, label in (
        (DEFAULT, "permutation (new default)"),
        ("influence-t", "influence (t), the old default"),
        ("influence-z", "influence (z)"),
    ):
        for key, alpha in (("rej05", 0.05), ("rej01", 0.01)):
            w, hi, lo = verdicts(rows, m, key, alpha)
            n = len(w) + len(hi) + len(lo)
            lines.append(
                f"- **{label}** at alpha = {alpha}: within alpha ± 3 SE in {len(w)} of {n} "
                f"null cells; above in {len(hi)}: {_cells(hi, alpha)}; below in {len(lo)}: "
                f"{_cells(lo, alpha)}."
            )
    lines += ["", "## Cost", ""]
    lines += [
        "Swap patterns drawn per call by the default (alpha = 0.05) and its time in the "
        "study (numba threads as available, on a shared machine), per cell:",
        "",
    ]
    lines += cost_table(rows)
    if cost:
        lines += ["", cost]
    lines += ["", "## References", ""] + REFERENCES
    lines += [
        "",
        ("This is a quick run (`--fast`: five cells, 40 data sets each). " if fast else "") + note,
        "",
    ]
    (ROOT / "docs" / "compare.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
