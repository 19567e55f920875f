"""What a user waits for at P >= 10^4: the default p-value at every large-P point of the sweep.

Run:  python benchmarks/bench_large_p_wait.py                   (27 sweep points + truths)
      python benchmarks/bench_large_p_wait.py --only 1e6,1e4    (one (N, P))
      python benchmarks/bench_large_p_wait.py --timeout 30      (seconds per point)

The sweep's large-P points: N in {10^5, 10^6, 10^7}, P / N in {0.001, 0.01,
0.1, 0.5} with P >= 10^4, thresholds 3 and 30 null standard deviations above
the null mean and half-way from the null mean to AP = 1 (a threshold at or
above AP = 1 is skipped). Then the P = 10^4 thresholds whose truths (the
importance sampler at about 1 % rse) are in ``docs/calibration_large_p_truth.jsonl``.

Each point runs in its own process: one call of the same (N, P) at 1 sd
above the null mean first (kernels compiled and cached, as a user's second
call), then the default ``significance_from_ap`` at the point, timed, with its
warnings. A point not answered within ``--timeout`` seconds (warm-up
included) is reported as "no answer". T is ``numpy.sort(x, kind="stable")``
of 10^7 float64, timed in the same run (median of three) before the points
and after them.

Columns: N, P, the threshold (z in null sd, or "half" / a truth's target),
time / T, method, log10 p, its interval's half-width in log10 (the bound or
the rse's 95 % interval), the rse, the truth's log10 p and the difference
where a truth exists, and the warnings raised.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
TRUTHS = os.path.join(ROOT, "docs", "calibration_large_p_truth.jsonl")
PAIRS = [
    (10**5, 10**4),
    (10**5, 5 * 10**4),
    (10**6, 10**4),
    (10**6, 10**5),
    (10**6, 5 * 10**5),
    (10**7, 10**4),
    (10**7, 10**5),
    (10**7, 10**6),
    (10**7, 5 * 10**6),
]
Z = (3.0, 30.0)

CHILD = r"""
import json, math, sys, time, warnings
sys.path.insert(0, {root!r})
from pranker.null.moments import null_params
from pranker.significance.single import significance_from_ap
n, p, a = {n}, {p}, {a!r}
par = null_params(n, p)
warm = par.mean + par.var ** 0.5
t0 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    significance_from_ap(warm, n, p)
t_warm = time.perf_counter() - t0
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    t0 = time.perf_counter()
    r = significance_from_ap(a, n, p)
    t = time.perf_counter() - t0
lo, hi = r.pvalue_interval
lg = r.log10_pvalue
half = None
if lo is not None and hi is not None and lo > 0 and hi > 0:
    half = max(lg - math.log10(lo), math.log10(hi) - lg)
elif lo == 0.0 and hi is not None and 0.0 < hi < 1.0:
    half = math.log10(hi) - lg  # the lower end is 0: only the upper side is finite
elif lo == 0.0 and hi == 0.0:
    half = "underflow"  # the interval is reported in linear scale
print(json.dumps(dict(t=t, t_warm=t_warm, method=r.method, log10=lg, half=half,
                      rse=r.pvalue_rse, warnings=sorted({{x.category.__name__ for x in w}}))))
"""


def sort_time() -> float:
    import numpy as np
    from run import sort_median  # benchmarks/run.py: this folder is the script's

    return sort_median(np.random.default_rng(0).random(10**7))


def points(only):
    from pranker.null.moments import null_params

    for n, p in PAIRS:
        if only and (n, p) != only:
            continue
        par = null_params(n, p)
        mean, sd = par.mean, par.var**0.5
        for z in Z:
            if mean + z * sd < 1.0:
                yield n, p, f"{z:g} sd", mean + z * sd, None
        yield n, p, "half", mean + 0.5 * (1.0 - mean), None
    seen = set()
    with open(TRUTHS) as f:
        for line in f:
            row = json.loads(line)
            n, p = row["N"], row["P"]
            if p < 10**4 or n < 5 * p or row.get("truth_log10") is None:
                continue
            if (n, p, float(row["target"])) in seen:  # the file repeats a few targets
                continue
            seen.add((n, p, float(row["target"])))
            if only and (n, p) != only:
                continue
            yield n, p, f"truth {row['target']:g}", row["s"] / p, row["truth_log10"]


def run_point(n, p, a, timeout):
    code = CHILD.format(root=ROOT, n=n, p=p, a=a)
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from run import machine_line

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", help="one (N, P), e.g. 1e6,1e4")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per point (warm-up too)")
    args = ap.parse_args(argv)
    only = None
    if args.only:
        a, b = args.only.split(",")
        only = (int(float(a)), int(float(b)))
    print(machine_line())
    t_sort = sort_time()
    print(f"T (stable sort of 1e7 float64, median of 3) before: {t_sort:.3f} s")
    print(
        "| N | P | threshold | time / T | method | log10 p | ± log10 | rse | truth | diff | warnings |"
    )
    print("|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---|")
    for n, p, label, a, truth in points(only):
        res = run_point(n, p, a, args.timeout)
        head = f"| {n:.0e} | {p:.0e} | {label} |"
        if res is None:
            print(
                f"{head} > {args.timeout / t_sort:.0f}× (no answer in {args.timeout:g} s) |"
                + " |" * 7
            )
            continue
        if "error" in res:
            print(f"{head} error: {res['error']} |" + " |" * 7)
            continue
        half = res["half"]
        half = "–" if half is None else half if isinstance(half, str) else f"{half:.3f}"
        rse = "–" if res["rse"] is None else f"{res['rse']:.3f}"
        tr = "–" if truth is None else f"{truth:.3f}"
        lg = res["log10"]
        diff = "–" if truth is None or not math.isfinite(lg) else f"{lg - truth:+.3f}"
        print(
            f"{head} {res['t'] / t_sort:.2f} | {res['method']} | {lg:.3f} | {half} | {rse} |"
            f" {tr} | {diff} | {','.join(res['warnings']) or '–'} |",
            flush=True,
        )
    print(f"T after: {sort_time():.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
