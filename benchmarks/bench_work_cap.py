"""The tilt's work budget: seconds per work unit, and the hard points as ratios to a sort.

Run:  python benchmarks/bench_work_cap.py                 (the hard points, default budget)
      python benchmarks/bench_work_cap.py --set sizing    (ns per unit across the plane)
      python benchmarks/bench_work_cap.py --set heldout   (N = 1e4..1e8, P <= 1e3, p to 1e-100)
      python benchmarks/bench_work_cap.py --budgets 3e8,1.5e9 --only 1e6,1e4

For each case, the tilted estimate that ``method="auto"`` takes at that
threshold (the script checks that the plan names the tilt), through the
engine, so that the work units it was charged are shown beside its time:
``TiltEngine.tail(s, max_work=...)`` with the defaults of ``TiltNull``. Each
(N, P) is first asked once at 1 sd above the null mean (the kernels compiled,
the engine built), as a user's second call would be. T is a stable
``numpy.sort`` of 10^7 float64, timed in the same run before and after each
case (median of three each time). The threshold of a target p comes from
``bench_tail.ap_for_targets`` (the compressed CGF, never the estimator).

Columns: units charged, seconds, ns per unit, time / T, the rse reached and
log10 p, the draws, the variance per draw (draws times rse squared; with
state-dependent tilts a draw is one pass of the upper layers and its
continuations below the hand-over), and whether the budget stopped the
estimate.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import cpu_model, sort_median  # noqa: E402  (benchmarks/run.py, this folder)

HARD = [(10**6, 10**4, -0.4), (10**6, 10**4, -25.0), (10**6, 10**4, -297.0)]
HARD += [(10**7, 10**3, -30.0), (10**7, 10**3, -100.0)]
# across the plane: the exact layers, plain and split draws, the compressed proposal (fixed and
# state-dependent tilts, rows kept whole and checkpointed)
SIZING = [
    (10**4, 100, -10.0),
    (10**5, 100, -5.0),
    (10**5, 1000, -2.0),
    (10**5, 1000, -18.0),
    (10**6, 300, -30.0),
    (10**6, 1000, -2.0),
    (10**6, 1000, -6.0),
    (10**7, 10**3, -30.0),
    (10**6, 10**4, -0.4),
]


# the held-out scale points: N = 1e4 .. 1e8, P <= 1e3, p ~ 1e-3, 1e-30, 1e-100
HELDOUT = [
    (n, p, t)
    for n, p in [(10**5, 100), (10**4, 1000), (10**5, 1000), (10**6, 300), (10**7, 1000)]
    + [(10**8, 1000)]
    for t in (-3.0, -30.0, -100.0)
]


def _e(v: float) -> str:
    e = math.log10(v)
    return f"10^{e:.0f}" if float(e).is_integer() else f"{v:g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--set", choices=["hard", "sizing", "heldout"], default="hard")
    ap.add_argument(
        "--budgets", default=None, help="comma-separated max_work (default: the default)"
    )
    ap.add_argument("--only", default=None, help="N,P of one shape, e.g. 1e6,1e4")
    args = ap.parse_args(argv)

    from bench_tail import ap_for_targets

    import pranker
    from pranker.null.choice import DEFAULT_MAX_WORK, plan
    from pranker.null.tilt import tilt_engine
    from pranker.null.tilt_null import TiltNull

    cases = {"hard": HARD, "sizing": SIZING, "heldout": HELDOUT}[args.set]
    if args.only:
        n, p = (int(float(v)) for v in args.only.split(","))
        cases = [c for c in cases if (c[0], c[1]) == (n, p)]
    budgets = (
        [DEFAULT_MAX_WORK]
        if args.budgets is None
        else [int(float(b)) for b in args.budgets.split(",")]
    )
    x = np.random.default_rng(0).standard_normal(10**7)
    pranker.significance_from_ap(0.05, 5000, 10)  # load or compile the kernels
    pranker.significance_from_ap(0.001, 10**6, 20)
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d')}; T = stable sort of 1e7 float64")
    print()
    print(
        "| N | P | target log10 p | max_work | units | seconds | ns / unit | time / T "
        "| rse | log10 p | draws | variance per draw | capped |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    warmed = set()
    found_for: dict = {}
    for N, P, target in cases:
        if (N, P) not in found_for:  # the thresholds of one (N, P) from one scan of its CGF
            found_for[N, P] = ap_for_targets(N, P, sorted({c[2] for c in cases if c[:2] == (N, P)}))
        found = found_for[N, P][target]
        if found is None:
            print(f"| {_e(N)} | {_e(P)} | {target:g} | target not reached by the CGF |")
            continue
        a = found[0]
        method = plan(N, P, a).method
        null = TiltNull(N, P)
        eng = tilt_engine(N, P, null.seed)
        if (N, P) not in warmed:  # a first call of the same (N, P) at 1 sd
            eng.tail(eng.mean_s + eng.sd_s, max_work=DEFAULT_MAX_WORK)
            warmed.add((N, P))
        for budget in budgets:
            eng.release()  # no draws or tables from the call before (its CGF values stay)
            t_before = sort_median(x)
            t0 = time.perf_counter()
            est = eng.tail(a * P, rtol=null.rtol, max_draws=null.max_draws, max_work=budget)
            secs = time.perf_counter() - t0
            T = 0.5 * (t_before + sort_median(x))
            ns = 1e9 * secs / est.work if est.work else math.nan
            flag = "yes" if est.capped else "no"
            if method != "tilt":
                flag += f" (auto: {method})"
            print(
                f"| {_e(N)} | {_e(P)} | {target:g} | {budget:.2g} | {est.work:.3g} | {secs:.2f} "
                f"| {ns:.2f} | {secs / T:.2f} | {est.rse:.3g} | {est.log10_pvalue:.2f} "
                f"| {est.n_draws} | {est.n_draws * est.rse**2:.3g} | {flag} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
