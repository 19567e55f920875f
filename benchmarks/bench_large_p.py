"""Large P: one p-value from the saddle route on the accurate compressed CGF, timed and checked.

Two parts:

- timing (default): seconds for the default p-value (``significance_from_ap``)
  at (N, P) = (2 * 10^4, 10^4) and (10^5, 10^4) for p near 1e-3, 1e-30 and
  1e-300 (the saddlepoint on the compressed CGF), and for
  ``LargePSaddle.log_sf`` alone at (10^6, 10^4) (where the default is the
  tilt), each as a ratio to ``numpy.sort(x, kind="stable")`` of 10^7
  float64 measured in the same run (the machine is shared: the ratio, not
  the seconds, is the figure); with ``--check``, the importance sampler
  (``TiltEngine.tail``) at the (10^6, 10^4) thresholds when it finishes
  within ``--check-seconds``.
- calibration (``--calibrate``): the route against the unbiased importance
  sampler over P = 10^3 - 10^4, N / P = 2 - 1000, p = 1e-3 - 1e-300; one
  markdown row per case (error = saddle - sampler, in log10, with the
  sampler's standard error).

Thresholds are chosen on the route itself: the tilt phi whose
Lugannani-Rice tail at s = K'(phi) is nearest the target p.

Usage::

    python benchmarks/bench_large_p.py            # timing
    python benchmarks/bench_large_p.py --check    # timing + agreement at (1e6, 1e4)
    python benchmarks/bench_large_p.py --calibrate [--quick]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import time

import numpy as np
from run import cpu_model  # benchmarks/run.py: this folder is the script's

from pranker import significance_from_ap
from pranker.null.saddlepoint import LargePSaddle
from pranker.null.tilt import TiltEngine

LN10 = math.log(10.0)


def sort_seconds(n: int, reps: int = 3) -> float:
    rng = np.random.default_rng(0)
    x = rng.random(n)
    best = math.inf
    for _ in range(reps):
        t = time.perf_counter()
        np.sort(x, kind="stable")
        best = min(best, time.perf_counter() - t)
    return best


def threshold_for(sd: LargePSaddle, log10_target: float, tol: float = 0.3):
    """``(s, log10 p)``: the threshold whose route p is within ``tol`` (log10) of the target.

    Secant/bisection on ``log phi``; ``s = K'(phi)``, so each step is one pass.
    """

    def lr(t):
        phi = math.exp(t)
        k, k1, k2 = sd.cgf(phi)
        if k1 >= sd.P:
            return k1, -math.inf
        return k1, sd.log_sf_at(phi, k1, k, k2) / LN10

    t = math.log(max(math.sqrt(-2.0 * log10_target * LN10) / sd.sd_s, 1e-9))
    s, lp = lr(t)
    step = 0.7 if lp > log10_target else -0.7
    lo = hi = t
    for _ in range(30):  # bracket: lo above the target, hi below
        if abs(lp - log10_target) <= tol:
            return s, lp
        if (lp > log10_target) != (step > 0):
            break
        if step > 0:
            lo = t
        else:
            hi = t
        t += step
        s, lp = lr(t)
    if step > 0:
        hi = t
    else:
        lo = t
    for _ in range(50):  # bisection in log phi (the tail falls steeply where the top fills)
        if abs(lp - log10_target) <= tol:
            break
        t = 0.5 * (lo + hi)
        s, lp = lr(t)
        if lp > log10_target:
            lo = t
        else:
            hi = t
    return s, lp


def _sampler(args):
    N, P, s, rtol, max_draws, q = args
    t0 = time.perf_counter()
    est = TiltEngine(N, P).tail(s, rtol=rtol, max_draws=max_draws, progress=False)
    q.put((est.log10_pvalue, est.rse, est.n_draws, time.perf_counter() - t0))


def sampler_within(N, P, s, seconds, rtol=0.02, max_draws=1 << 20):
    """The importance sampler's (log10 p, rse, draws, seconds), or None if it takes longer than ``seconds``."""
    ctx = mp.get_context("spawn")  # not fork: the kernels use OpenMP threads
    q = ctx.Queue()
    proc = ctx.Process(target=_sampler, args=((N, P, s, rtol, max_draws, q),))
    proc.start()
    proc.join(seconds)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None
    return q.get() if not q.empty() else None


def _default_seconds(N: int, P: int, s: float):
    """``(seconds, result)``: the default p-value (``significance_from_ap``) of AP = s / P."""
    t0 = time.perf_counter()
    res = significance_from_ap(s / P, N, P)
    return time.perf_counter() - t0, res


def timing(check: bool, check_seconds: float, parallel: bool) -> None:
    """Many positives, each time as a ratio to the stable sort of 10^7 float64 in the same run."""
    yard = sort_seconds(10**7)
    print(
        f"CPU: {cpu_model()}, {mp.cpu_count()} logical CPUs; numpy.sort(x, kind='stable') of "
        f"1e7 float64: {yard:.3f} s"
    )
    print("| N | P | log10 p | answered by | passes | seconds | / stable sort of 1e7 |")
    print("|---:|---:|---:|---|---:|---:|---:|")
    # the default, where it takes the compressed-CGF saddlepoint (N <= 10 P)
    for N, P in [(20_000, 10**4), (10**5, 10**4)]:
        for target in (-3.0, -30.0, -300.0):
            s = threshold_for(LargePSaddle(N, P), target)[0]  # outside the timing
            sec, res = _default_seconds(N, P, s)
            sd = LargePSaddle(N, P)  # the same search again, to count its passes
            sd.log_sf(s)
            print(
                f"| {N:.0e} | {P:.0e} | {res.log10_pvalue:.3f} | default ({res.method}) | "
                f"{sd.passes} | {sec:.2f} | {sec / yard:.2f} |",
                flush=True,
            )
    # beyond 10 items per positive the default is the tilt (the saddlepoint was off by -0.28
    # at N = 1e6, P = 1e4, p = 1e-30): the saddlepoint's time alone, for the record
    for N, P, target in [(10**6, 10**4, -3.0), (10**6, 10**4, -30.0), (10**6, 10**4, -300.0)]:
        s = threshold_for(LargePSaddle(N, P, parallel=parallel), target)[0]
        sd = LargePSaddle(N, P, parallel=parallel)
        t0 = time.perf_counter()
        lp = sd.log_sf(s) / LN10
        sec = time.perf_counter() - t0
        row = (
            f"| {N:.0e} | {P:.0e} | {lp:.3f} | LargePSaddle (not the default) | {sd.passes} | "
            f"{sec:.2f} | {sec / yard:.2f} |"
        )
        if check:
            r = sampler_within(N, P, s, check_seconds)
            row += (
                f" sampler: not finished in {check_seconds:.0f} s |"
                if r is None
                else f" sampler: {r[0]:.3f} ({100 * r[1]:.1f} %, {r[3]:.0f} s) |"
            )
        print(row, flush=True)


CAL_CASES = [
    # (N, P): N / P from 2 to 1000 at P = 1000; 2 to 100 at P = 3000 and 10^4
    (2_000, 1_000),
    (10_000, 1_000),
    (100_000, 1_000),
    (300_000, 1_000),
    (1_000_000, 1_000),
    (6_000, 3_000),
    (30_000, 3_000),
    (300_000, 3_000),
    (20_000, 10_000),
    (100_000, 10_000),
]
CAL_TARGETS = (-3.0, -30.0, -100.0, -300.0)


def calibrate(quick: bool, seconds: float, cases=None, targets=CAL_TARGETS) -> None:
    print(f"CPU: {cpu_model()}, {mp.cpu_count()} logical CPUs")
    print("| N | P | N/P | saddle log10 p | sampler log10 p | rse | draws | saddle - sampler | z |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    if cases is None:
        cases = CAL_CASES[:5] if quick else CAL_CASES
    for N, P in cases:
        sd = LargePSaddle(N, P)
        log10_floor = -sd.log_comb / LN10
        for target in targets:
            if target < log10_floor + 20:
                continue
            s, lp = threshold_for(sd, target)
            r = sampler_within(N, P, s, seconds, rtol=0.02)
            if r is None:
                print(
                    f"| {N} | {P} | {N // P} | {lp:.3f} | not finished in {seconds:.0f} s | | | | |",
                    flush=True,
                )
                continue
            lq, rse, nd, _ = r
            se = rse / LN10
            err = lp - lq
            print(
                f"| {N} | {P} | {N // P} | {lp:.3f} | {lq:.3f} | {100 * rse:.1f} % | {nd} | "
                f"{err:+.3f} | {err / se if se > 0 else math.inf:+.1f} |",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--check", action="store_true", help="compare with the importance sampler at (1e6, 1e4)"
    )
    ap.add_argument("--check-seconds", type=float, default=600.0)
    ap.add_argument(
        "--calibrate", action="store_true", help="the calibration grid against the sampler"
    )
    ap.add_argument("--quick", action="store_true", help="calibrate at P = 1000 only")
    ap.add_argument("--seconds", type=float, default=900.0, help="time limit per sampler run")
    ap.add_argument("--parallel", action="store_true", help="blocks of a layer on all threads")
    ap.add_argument("--cases", help="calibration cases N:P,N:P,... (default: the grid)")
    ap.add_argument("--targets", help="log10 p targets, comma-separated (default -3,-30,-100,-300)")
    a = ap.parse_args()
    if a.calibrate:
        cases = None
        if a.cases:
            cases = [tuple(int(float(v)) for v in c.split(":")) for c in a.cases.split(",")]
        targets = CAL_TARGETS if not a.targets else tuple(float(v) for v in a.targets.split(","))
        calibrate(a.quick, a.seconds, cases, targets)
    else:
        timing(a.check, a.check_seconds, a.parallel)


if __name__ == "__main__":
    main()
