"""The second-order saddlepoint against the tilted estimator: where it can be trusted, and how far.

For each (N, P) of a grid and thresholds from the body to the top of the
support (both tails), the p-value of
:func:`pranker.null.saddlepoint.saddlepoint_tail` (second and first order) is
compared with the tilted importance sampler at 0.4 % relative standard error
(an unbiased estimator, itself checked against enumeration and plain Monte
Carlo: docs/calibration_large_p.md). Errors are in log10; the table groups them
by ``rho = N / P^2``, which governs the error (the discreteness of the top
positives against the spread of S).

    python benchmarks/calibration_saddlepoint.py                 # the grid (~40 minutes)
    python benchmarks/calibration_saddlepoint.py --quick         # 6 pairs
    python benchmarks/calibration_saddlepoint.py --out cal.jsonl # keep every record
    python benchmarks/calibration_saddlepoint.py --positives 1000,2000
    python benchmarks/calibration_saddlepoint.py --pairs 20000x2000 --z 2,8,32 --rtol 0.01
    python benchmarks/calibration_saddlepoint.py --pairs 10000x100 --top 0.1,0.3,0.5

``--check`` exits non-zero when an error inside the region the default uses
(``pranker.null.choice.saddlepoint_region``) exceeds that bound.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from run import machine_line

POSITIVES = (50, 100, 200, 500, 1000, 2000, 4000)
RATIOS = (1.05, 1.25, 2.0, 4.0, 10.0, 25.0, 50.0)
QUICK = ((100, 50), (300, 200), (1000, 100), (5000, 500), (2500, 1000), (6000, 4000))
Z_UPPER = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
Z_LOWER = (-1.0, -2.0, -4.0)
TOP = (0.9, 0.99, 0.999)  # fractions of the way from the mean to the largest S
RHO_BINS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 1.0, math.inf)
EXACT_CELLS = 16_000_000


def pairs(quick: bool, positives=POSITIVES) -> list[tuple[int, int]]:
    if quick:
        return list(QUICK)
    out = []
    for P in positives:
        for r in RATIOS:
            N = round(r * P)
            if N / P**2 <= 0.1 and P * (N - P + 1) <= EXACT_CELLS and math.comb(N, P) > 10**6:
                out.append((N, P))
    return out


def thresholds(eng) -> list[tuple[float, bool, str]]:
    P, N = eng.P, eng.N
    s_min = sum(k / (N - P + k) for k in range(1, P + 1))
    out = []
    for z in Z_UPPER:
        s = eng.mean_s + z * eng.sd_s
        if s < eng.mean_s + 0.9 * (P - eng.mean_s):
            out.append((s, True, f"z={z:g}"))
    for f in TOP:
        out.append((eng.mean_s + f * (P - eng.mean_s), True, f"top {f:g}"))
    for z in Z_LOWER:
        s = eng.mean_s + z * eng.sd_s
        if s > s_min + 0.1 * (eng.mean_s - s_min):
            out.append((s, False, f"z={z:g}"))
    return out


def main(argv=None) -> int:
    from pranker.null.choice import saddlepoint_region

    def saddlepoint_log10_bound(n, p):
        r = saddlepoint_region(n, p)
        return r[1] if r is not None and r[0] == "calibrated" else None

    from pranker.null.saddlepoint import saddlepoint_tail, top_lumpiness
    from pranker.null.tilt import TiltEngine

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rtol", type=float, default=0.004)
    ap.add_argument("--out", default=None, help="append every record to this JSON-lines file")
    ap.add_argument("--check", action="store_true")
    ap.add_argument(
        "--positives", default=None, help="comma-separated P values of the grid (default: all)"
    )
    ap.add_argument(
        "--pairs",
        default=None,
        help="NxP pairs instead of the grid, e.g. 20000x2000,50000x2000 (any size: the truth "
        "then comes from the compressed proposal when the exact layers do not fit)",
    )
    ap.add_argument(
        "--z", default=None, help="comma-separated upper-tail z instead of the full threshold set"
    )
    ap.add_argument(
        "--top",
        default=None,
        help="comma-separated fractions of the way from the mean to the largest S (upper tail) "
        "instead of the full threshold set; with --z, both",
    )
    args = ap.parse_args(argv)
    positives = POSITIVES if args.positives is None else tuple(map(int, args.positives.split(",")))
    if args.pairs:
        grid = [tuple(int(v) for v in pq.split("x")) for pq in args.pairs.split(",")]
    else:
        grid = pairs(args.quick, positives)
    only_z = None if args.z is None else tuple(float(v) for v in args.z.split(","))
    only_top = None if args.top is None else tuple(float(v) for v in args.top.split(","))
    print(f"machine: {machine_line()}; truth: tilted estimator at {args.rtol:g} rse")
    print(
        "| N | P | rho | threshold | tail | truth log10 p | se (log10) | 2nd order - truth "
        "| 1st order - truth | passes | lumpiness |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    records = []
    sink = open(args.out, "a") if args.out else None
    for N, P in grid:
        eng = TiltEngine(N, P)
        ths = thresholds(eng)
        if only_z is not None or only_top is not None:
            ths = [(eng.mean_s + z * eng.sd_s, True, f"z={z:g}") for z in only_z or ()]
            ths += [(eng.mean_s + f * (P - eng.mean_s), True, f"top {f:g}") for f in only_top or ()]
        for s, upper, label in ths:
            sp = saddlepoint_tail(eng, s, upper)
            t0 = time.perf_counter()
            est = eng.tail(s, upper=upper, rtol=args.rtol, max_draws=1 << 22, progress=False)
            rec = {
                "N": N,
                "P": P,
                "rho": N / P**2,
                "label": label,
                "upper": upper,
                "truth": est.log10_pvalue,
                "se": est.rse / math.log(10.0),
                "second": sp.log10_pvalue,
                "first": min(sp.log_p_first / math.log(10.0), 0.0),
                "order": sp.order,
                "passes": sp.passes,
                "seconds_truth": time.perf_counter() - t0,
                # how far to the top, and how lumpy the top positives are at the saddle point
                "depth": (s - eng.mean_s) / (P - eng.mean_s),
                "lump": (
                    top_lumpiness(eng, sp.phi, (sp.u / sp.phi) ** 2)
                    if upper and sp.phi > 0.0
                    else None
                ),
            }
            records.append(rec)
            if sink:
                sink.write(json.dumps(rec) + "\n")
                sink.flush()
            print(
                f"| {N} | {P} | {rec['rho']:.4f} | {label} | {'upper' if upper else 'lower'} "
                f"| {rec['truth']:.4f} | {rec['se']:.4f} | {rec['second'] - rec['truth']:+.4f} "
                f"| {rec['first'] - rec['truth']:+.4f} | {sp.passes} "
                f"| {'-' if rec['lump'] is None else format(rec['lump'], '.2e')} |",
                flush=True,
            )
        eng.release()
    print()
    print(
        "| rho = N / P^2 | cells | max abs error, 2nd order | max abs error, 1st order "
        "| largest error / se (2nd) |"
    )
    print("|---|---|---|---|---|")
    for lo, hi in zip(RHO_BINS[:-1], RHO_BINS[1:], strict=True):
        rs = [r for r in records if lo < r["rho"] <= hi]
        if not rs:
            continue
        e2 = max(abs(r["second"] - r["truth"]) for r in rs)
        e1 = max(abs(r["first"] - r["truth"]) for r in rs)
        z2 = max(abs(r["second"] - r["truth"]) / r["se"] for r in rs)
        print(f"| ({lo:g}, {hi:g}] | {len(rs)} | {e2:.4f} | {e1:.4f} | {z2:.1f} |")
    bad = []
    for r in records:
        bound = saddlepoint_log10_bound(r["N"], r["P"])
        if bound is not None and abs(r["second"] - r["truth"]) > bound:
            bad.append(r)
    inside = sum(saddlepoint_log10_bound(r["N"], r["P"]) is not None for r in records)
    print(f"\ninside the region the default uses: {inside} thresholds, {len(bad)} beyond the bound")
    for r in bad:
        print("  beyond:", r)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
