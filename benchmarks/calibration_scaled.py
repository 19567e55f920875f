"""The CGF extrapolated from the problem scaled down (``ScaledCGF``), against exact truths.

Three tables for docs/calibration.md, "Beyond the leaps":

1. ``K``, ``K'``, ``K''`` of ``ScaledCGF`` against the exact recursion
   (``LayersCGF``, O(N P) per tilt: 3-4 s at N = 10^5, P = 10^4, 2-3 minutes
   at N = 5*10^5, P = 5*10^4 and N = 4*10^5, P = 2*10^5, one core), with the
   extrapolation's spread. The exact values are computed once and kept in
   ``docs/calibration_scaled_truth.json`` (``--truths`` computes the missing
   ones; without it the script uses what is stored).
2. The tail on it (``ScaledSaddle``) and Lugannani–Rice on the exact CGF
   against the importance sampler's truths of
   ``docs/calibration_large_p_truth.jsonl`` (N / P <= 10).
3. ``K'(0)`` and ``K''(0)`` against the exact null mean and variance at
   P = 10^6 and 5*10^6.

Usage::

    python benchmarks/calibration_scaled.py [--truths]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import cpu_model  # noqa: E402

from pranker.null.cgf import LayersCGF, ScaledCGF  # noqa: E402
from pranker.null.large_p import ScaledSaddle, log_sf_lugannani_rice  # noqa: E402
from pranker.null.moments import null_params  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
TRUTH_K = os.path.join(DOCS, "calibration_scaled_truth.json")
TRUTH_TAIL = os.path.join(DOCS, "calibration_large_p_truth.jsonl")
CASES = {
    (100_000, 10_000): [0.01, 0.03, 0.1, 0.3, 0.6, 1.5, 3.0, 4.5],
    (100_000, 50_000): [0.01, 0.037, 0.1, 0.3, 0.6, 1.5, 3.0, 5.0],
    (500_000, 50_000): [0.03, 0.1, 0.3, 3.0],
    (400_000, 200_000): [0.037, 0.1, 0.3, 1.5],
}
LN10 = math.log(10.0)


def load() -> dict:
    if os.path.exists(TRUTH_K):
        with open(TRUTH_K) as f:
            return json.load(f)
    return {}


def exact_k(store: dict, compute: bool) -> dict:
    for (n, p), phis in CASES.items():
        key = f"{n},{p}"
        have = store.setdefault(key, {})
        for phi in phis:
            if str(phi) in have or not compute:
                continue
            t = time.time()
            have[str(phi)] = list(map(float, LayersCGF(n, p).cgf(phi)))
            print(f"exact K at N={n}, P={p}, phi={phi}: {time.time() - t:.0f} s", flush=True)
            store["_meta"] = {"date": time.strftime("%Y-%m-%d"), "cpu": cpu_model()}
            with open(TRUTH_K, "w") as f:
                json.dump(store, f, indent=1, sort_keys=True)
    return store


def table_k(store: dict) -> None:
    print(
        "\n| N | P | largest size | phi | K - K_exact | (K' - K'_exact)/sd | K''/K''_exact - 1 | spread | error / spread |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, rows in store.items():
        if key.startswith("_"):
            continue
        n, p = map(int, key.split(","))
        sc = ScaledCGF(n, p)
        for phi, (k, k1, k2) in sorted(rows.items(), key=lambda kv: float(kv[0])):
            a, a1, a2 = sc.cgf(float(phi))
            sp = sc.spreads[-1]
            print(
                f"| {n:,} | {p:,} | {sc.sizes[0]:,} | {float(phi):g} | {a - k:+.1e} | "
                f"{(a1 - k1) / math.sqrt(k2):+.1e} | {a2 / k2 - 1:+.1e} | {sp:.1e} | {abs(a - k) / sp:.2f} |"
            )


def table_tails() -> None:
    print(
        "\n| N | P | sampler log10 p (rse) | LR, exact CGF | scaled | scaled interval | truth inside |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|")
    seen = set()
    with open(TRUTH_TAIL) as f:
        lines = [json.loads(x) for x in f]
    for d in lines:
        n, p, s = d["N"], d["P"], d["s"]
        if n > 10 * p or d.get("rse") is None or (n, round(s, 3)) in seen:
            continue
        seen.add((n, round(s, 3)))
        c = LayersCGF(n, p)
        phi, k, _, k2, _ = c.saddle_search(s, tol=1e-6)
        z = (s - c.mean_s) / c.sd_s
        lr = log_sf_lugannani_rice(z, math.sqrt(2 * (phi * s - k)), phi * math.sqrt(k2)) / LN10
        sd = ScaledSaddle(n, p, cells=5_000_000 if n <= 2 * p else 40_000_000)
        lp, (lo, hi), _ = sd.bounded_tail(s, 0.010)
        se = d["rse"] / LN10
        inside = lo - 2 * se <= d["truth_log10"] <= hi + 2 * se
        print(
            f"| {n:,} | {p:,} | {d['truth_log10']:.3f} ({100 * d['rse']:.2f} %) | {lr - d['truth_log10']:+.4f} | "
            f"{lp - d['truth_log10']:+.4f} | ±{hi - lp:.4f} | {'yes' if inside else 'NO'} |",
            flush=True,
        )


def table_moments() -> None:
    print("\n| N | P | (K'(0) - mean)/sd | K''(0)/var - 1 | spread |")
    print("|---:|---:|---:|---:|---:|")
    for n, p in [
        (2 * 10**6, 10**6),
        (10**7, 10**6),
        (10**7, 5 * 10**6),
        (3 * 10**6 + 7, 10**6 + 3),
    ]:
        mean, var = null_params(n, p)
        sc = ScaledCGF(n, p)
        _, k1, k2 = sc.cgf(0.0)
        print(
            f"| {n:,} | {p:,} | {(k1 - mean * p) / (math.sqrt(var) * p):+.1e} | "
            f"{k2 / (var * p * p) - 1:+.1e} | {sc.spreads[-1]:.1e} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--truths", action="store_true", help="compute the missing exact K (slow)")
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d')}, {cpu_model()}")
    store = exact_k(load(), args.truths)
    table_k(store)
    table_moments()
    table_tails()


if __name__ == "__main__":
    main()
