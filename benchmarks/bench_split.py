"""Variance per draw of the state-dependent draws, with and without splitting, side by side.

Run:  python benchmarks/bench_split.py [--draws 4096] [--only 1e7,1e3]

For each (N, P, target p), at the saddle tilt the engine finds, the relative
variance per draw ``var(c) / mean(c)^2`` and the seconds per draw of

- ``J = 40, K = 1``: 40 state-dependent tilts, each draw's upper layers
  continued once below the hand-over (version 0.3),
- ``J = 40, K``: the same tilts, the upper layers continued ``K`` times
  (``CompressedProposal.continuations``),
- ``J = 80, K``: the default (80 tilts where their tables fit).

and the work to a given rse, ``variance x seconds per draw``, as a ratio to the
first. Draws needed for 2 % rse: variance / 0.0004. The thresholds come from
``bench_tail.ap_for_targets``. T (a stable sort of 1e7 float64) is timed in
the same run; the time to 2 % rse is shown as a multiple of it (draws only:
the saddle search and the tables come on top).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CASES = [
    (10**5, 1000, -30.0),
    (10**6, 300, -30.0),
    (10**6, 300, -100.0),
    (10**7, 1000, -30.0),
    (10**7, 1000, -100.0),
    (10**8, 1000, -30.0),
    (10**8, 1000, -100.0),
]


def _e(v: int) -> str:
    return f"10^{round(math.log10(v))}"


def measure(cz, s, phi, J, K, n):
    import pranker.null.compressed as cm

    saved = cm.SD_TILTS, cm.CompressedProposal.continuations
    cm.SD_TILTS = J
    if K == 1:
        cm.CompressedProposal.continuations = lambda self, kc: 1
    try:
        cz.release()
        phis, kc = cz.state_dependent_tilts(s, phi)
        k = cz.continuations(kc)
        cz.state_dependent(s, phis, kc, phi, (1, 2), 64, 1e-12)  # tables, untimed
        t0 = time.perf_counter()
        off, c = cz.state_dependent(s, phis, kc, phi, (1, 2), n, 1e-12)
        secs = (time.perf_counter() - t0) / (n - 64)
    finally:
        cm.SD_TILTS, cm.CompressedProposal.continuations = saved
        cz.release()
    m = float(c.mean())
    return len(phis), kc, k, float(c.var()) / m**2, secs, (off + math.log(m)) / math.log(10)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--draws", type=int, default=4096)
    ap.add_argument("--only", default=None, help="N,P of one shape, e.g. 1e7,1e3")
    args = ap.parse_args(argv)
    from bench_tail import ap_for_targets
    from bench_work_cap import cpu_model, sort_time

    from pranker.null.tilt import tilt_engine

    cases = CASES
    if args.only:
        n_, p_ = (int(float(v)) for v in args.only.split(","))
        cases = [c for c in cases if c[:2] == (n_, p_)]
    x = np.random.default_rng(0).standard_normal(10**7)
    T = sort_time(x)
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d')}; T = {T:.2f} s (stable sort of 1e7)")
    print()
    print(
        "| N | P | log10 p | kc | J, K | variance per draw | ms per draw "
        "| work to an rse (vs J = 40, K = 1) | draws to 2 % | time to 2 % / T |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for N, P, target in cases:
        a = ap_for_targets(N, P, [target])[target]
        if a is None:
            continue
        s = a[0] * P
        eng = tilt_engine(N, P)
        cz = eng._cz
        phi = cz.saddle(s, eng.mean_s, eng.sd_s)
        base = None
        for J, K in ((40, 1), (40, None), (80, None)):
            nJ, kc, k, v, secs, lp = measure(cz, s, phi, J, K, args.draws)
            w = v * secs
            base = w if base is None else base
            need = v / 0.0004
            print(
                f"| {_e(N)} | {_e(P)} | {lp:.2f} | {kc} | {nJ}, {k} | {v:.3g} | {1e3 * secs:.3f} "
                f"| {w / base:.3f} | {need:.0f} | {need * secs / T:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
