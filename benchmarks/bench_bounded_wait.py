"""What a user waits for: the default p-value over the (N, P) plane, as ratios to a sort.

Run:  python benchmarks/bench_bounded_wait.py                  (the 48-point sweep)
      python benchmarks/bench_bounded_wait.py --set large-p    (P = 10^4 at p 0.4 ... 10^-297)
      python benchmarks/bench_bounded_wait.py --only 1e6,1e4   (one (N, P) of the sweep)
      python benchmarks/bench_bounded_wait.py --json FILE      (also one JSON line per point)

The sweep: N = 10^4 ... 10^7, P/N = 0.001, 0.01, 0.1, 0.5, and three thresholds
per (N, P): the null mean + 3 and + 30 null standard deviations, and half-way
from the null mean to AP = 1 (a threshold past the largest AP is moved to 99 %
of the way). Each (N, P) runs in its own process: one warm call at 1 sd
(kernels compiled, engines built, as a user's second call would find them),
then the three calls, each timed. T is a stable ``numpy.sort`` of 10^7
float64 timed by the parent process just before and just after each (N, P)
(the median of three each time), averaged. A call counts as answered when it returns a finite log10 p and an
interval within ``--limit`` × T; "full" means rse ≤ rtol (2 %) or a
calibrated bound of at most 0.015 log10. A process that has not finished
within (warm + 3 points) × (8 T + 20 s) is stopped and its missing points are
reported as "no answer". The peak memory of each process is reported: its
largest resident set above what it holds once the libraries are imported.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SWEEP_N = (10**4, 10**5, 10**6, 10**7)
SWEEP_FRAC = (0.001, 0.01, 0.1, 0.5)
LARGE_P = [(10**5, 10**4), (10**6, 10**4)]
RTOL = 0.02
FULL_BOUND = 0.015


def thresholds(n: int, n_pos: int, kind: str) -> list[tuple[str, float]]:
    from pranker.null.moments import null_params

    mean, var = null_params(n, n_pos)
    sd = math.sqrt(var)
    top = 1.0
    out = []
    if kind == "sweep":
        for label, ap in (
            ("3 sd", mean + 3 * sd),
            ("30 sd", mean + 30 * sd),
            ("half", (mean + top) / 2),
        ):
            if ap >= top:
                ap = mean + 0.99 * (top - mean)
                label += " (99 %)"
            out.append((label, ap))
    return out


def large_p_thresholds(n: int, n_pos: int) -> list[tuple[str, float]]:
    """Thresholds whose p is near 0.4, 10^-25 and 10^-297 (placed by the package's own answer)."""
    from pranker import significance_from_ap
    from pranker.null.moments import null_params

    mean, var = null_params(n, n_pos)
    sd = math.sqrt(var)
    out = [("p~0.4", mean + 0.25 * sd)]
    for target in (-25.0, -297.0):
        lo, hi = mean, 1.0
        for _ in range(30):  # bisection on the default answer: placement only, not timed
            mid = 0.5 * (lo + hi)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lp = significance_from_ap(mid, n, n_pos).log10_pvalue
            lo, hi = (mid, hi) if lp > target else (lo, mid)
            if abs(lp - target) < 0.5:
                break
        out.append((f"p~1e{target:.0f}", mid))
    return out


def current_mb() -> float:
    """The resident set now, from /proc (Linux); nan elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


class PeakWatch:
    """The largest resident set seen, sampled every 5 ms by a daemon thread."""

    def __init__(self):
        import threading

        self.peak = current_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, current_mb())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return max(self.peak, current_mb())


def child(n: int, n_pos: int, kind: str) -> None:
    from pranker import significance_from_ap
    from pranker.null.choice import WorkBudgetWarning
    from pranker.null.moments import null_params

    base_mb = current_mb()
    watch = PeakWatch()
    mean, var = null_params(n, n_pos)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        significance_from_ap(min(mean + math.sqrt(var), 0.999999), n, n_pos)
        warm = time.perf_counter() - t0
    print(json.dumps({"warm": warm}), flush=True)
    points = thresholds(n, n_pos, "sweep") if kind == "sweep" else large_p_thresholds(n, n_pos)
    for label, ap in points:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            res = significance_from_ap(ap, n, n_pos)
            secs = time.perf_counter() - t0
        capped = any(issubclass(w.category, WorkBudgetWarning) for w in caught)
        iv = res.log10_pvalue_interval
        row = {
            "label": label,
            "ap": ap,
            "secs": secs,
            "method": res.method,
            "log10p": res.log10_pvalue,
            "lo": None if iv is None else iv[0],
            "hi": None if iv is None else iv[1],
            "rse": res.pvalue_rse,
            "capped": capped,
        }
        print(json.dumps(row), flush=True)
    print(json.dumps({"rss_mb": watch.stop() - base_mb}), flush=True)


def run_pair(n: int, n_pos: int, kind: str, x) -> tuple[list[dict], dict]:
    from run import sort_median  # benchmarks/run.py: this folder is the script's

    t_before = sort_median(x)
    budget = 4 * (8 * t_before + 20.0)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(n), str(n_pos), kind]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    rows, meta = [], {}
    deadline = time.monotonic() + budget
    try:
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(timeout=left):
                proc.kill()
                meta["stopped"] = True
                break
            line = proc.stdout.readline()
            if not line:
                break
            d = json.loads(line)
            (rows.append(d) if "label" in d else meta.update(d))
    finally:
        proc.wait()
    meta["T"] = 0.5 * (t_before + sort_median(x))
    return rows, meta


def fmt_full(r: dict) -> str:
    if r["method"] == "exact":
        return "yes"
    if r["rse"] is not None:
        return "yes" if r["rse"] <= RTOL * 1.0001 else "no"
    if r["lo"] is not None and r["hi"] is not None:
        half = 0.5 * (r["hi"] - r["lo"])
        return "yes" if half <= FULL_BOUND * 1.0001 else "no"
    return "no"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--set", choices=["sweep", "large-p"], default="sweep")
    ap.add_argument("--only", help="N,P (e.g. 1e6,1e4)")
    ap.add_argument("--limit", type=float, default=1.0, help="answered within this many T")
    ap.add_argument("--json", help="write one JSON line per point to this file")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2])
        return 0
    from run import machine_line

    if args.set == "sweep":
        pairs = [(n, max(1, round(f * n))) for n in SWEEP_N for f in SWEEP_FRAC]
    else:
        pairs = LARGE_P
    if args.only:
        n, p = (int(float(v)) for v in args.only.split(","))
        pairs = [(n, p)]
    x = np.random.default_rng(0).random(10**7)
    print(f"machine: {machine_line()}")
    print(
        "T = numpy.sort(10^7 float64, kind='stable'), median of three just before and of three "
        "just after each (N, P), averaged; peak MB = the process's largest resident set above "
        "its size once pranker, numpy, scipy and numba are imported\n"
    )
    print(
        "| N | P | threshold | time / T | method | log10 p | log10 interval | rse | capped | full | peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    counts = {"points": 0, "answered": 0, "full": 0}
    out = open(args.json, "w") if args.json else None
    for n, n_pos in pairs:
        rows, meta = run_pair(n, n_pos, args.set, x)
        T = meta["T"]
        n_expected = 3
        for r in rows:
            ratio = r["secs"] / T
            iv = "—" if r["lo"] is None else f"[{r['lo']:.3f}, {r['hi']:.3f}]"
            rse = "—" if r["rse"] is None else f"{r['rse']:.3f}"
            answered = ratio <= args.limit and math.isfinite(r["log10p"]) and r["lo"] is not None
            full = fmt_full(r) if answered else "no"
            counts["points"] += 1
            counts["answered"] += answered
            counts["full"] += full == "yes"
            print(
                f"| {n:.0e} | {n_pos} | {r['label']} | {ratio:.2f} | {r['method']} | "
                f"{r['log10p']:.2f} | {iv} | {rse} | {'yes' if r['capped'] else 'no'} | {full} | "
                f"{meta.get('rss_mb', float('nan')):.0f} |",
                flush=True,
            )
            if out:
                out.write(json.dumps(dict(r, n=n, n_pos=n_pos, T=T, ratio=ratio)) + "\n")
        for _ in range(n_expected - len(rows)):
            counts["points"] += 1
            print(f"| {n:.0e} | {n_pos} | — | no answer | | | | | | no | |", flush=True)
    if out:
        out.close()
    print(
        f"\n{counts['points']} points: {counts['answered']} answered within {args.limit:g} T "
        f"(finite log10 p and an interval), {counts['full']} of them at full precision "
        f"(rse <= {RTOL}, or a bound <= {FULL_BOUND} log10)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
