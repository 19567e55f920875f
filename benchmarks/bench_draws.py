"""Cost of one positive-step of the compressed proposal's draws, as a ratio to a stable sort.

Run:  python benchmarks/bench_draws.py            (five cases, about a minute)
      python benchmarks/bench_draws.py --quick    (two small cases)
      python benchmarks/bench_draws.py --threads 2

A draw of the compressed tilted proposal (``pranker.null.compressed``) walks
the positives backwards, one conditional step per positive: the fixed-tilt
layers ``P .. kc + 1`` (``CompressedProposal._sample``) and the
state-dependent layers ``kc .. 2`` (``CompressedProposal.state_dependent``).
For each case this script builds the tables (not timed), then times a batch
of draws through each part and divides by the number of positive-steps
(draws x layers; a state-dependent draw may stop early, when its sum is
certain or out of reach, so its steps are counted as ``kc - 1``, an upper
bound, and its ns per step is a lower bound). Two columns are the ratio to the per-element cost of the
reference: ``numpy.sort(x, kind="stable")`` of 10^7 float64 measured in the
same run (its time / 10^7). The ns columns are absolute and only for reading.
The thresholds are the AP at which the compressed CGF predicts the target p
(as in ``bench_tail.py``).

``rows(quick)`` (for ``benchmarks/run.py``) runs the quick set.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SORT_N = 10**7
CASES = [
    (10**5, 100, -30.0),
    (10**6, 300, -100.0),
    (10**7, 1000, -3.0),
    (10**8, 1000, -30.0),
    (10**8, 1000, -100.0),
]
QUICK = [(10**5, 100, -30.0), (10**6, 300, -100.0)]
_APS: dict = {}  # (N, P) -> {target: (ap, estimated log10 p) or None}


def _cpu_model() -> str:
    sys.path.insert(0, HERE)
    from run import cpu_model

    return cpu_model()


def sort_per_element(repeats: int = 3) -> float:
    """Seconds per element of numpy.sort(x, kind="stable") of 1e7 float64 (median of repeats)."""
    x = np.random.default_rng(12345).standard_normal(SORT_N)
    np.sort(x, kind="stable")
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.sort(x, kind="stable")
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) / SORT_N


def measure_case(N: int, P: int, target: float, n_fixed: int, n_sd: int) -> dict:
    """ns per positive-step of the fixed-tilt and the state-dependent draws at one threshold."""
    sys.path.insert(0, HERE)
    from bench_tail import ap_for_targets

    from pranker._numba.compressed import state_dependent_draws
    from pranker.null.tilt import TiltEngine

    if (N, P) not in _APS:  # every target of this shape at once (one scan of the CGF)
        _APS[N, P] = ap_for_targets(N, P, sorted({c[2] for c in CASES if c[:2] == (N, P)}))
    found = _APS[N, P].get(target) or ap_for_targets(N, P, [target])[target]
    if found is None:
        return {"skipped": True}
    ap, _ = found
    s = ap * P
    eng = TiltEngine(N, P, compressed=True)
    cz = eng._cz
    phi = cz.saddle(s, eng.mean_s, eng.sd_s)
    out = {"N": N, "P": P, "target": target, "knots": cz.n_knots, "phi": phi}
    # the fixed tilt, every layer P .. 2 (tables built by the first, untimed call)
    cz._sample(phi, 1, 0, 64)
    t0 = time.perf_counter()
    _, _, d2 = cz._sample(phi, 1, 64, n_fixed)
    out["fixed_ns"] = (time.perf_counter() - t0) / (n_fixed * (P - 1)) * 1e9
    out["fixed_draws"] = n_fixed
    cz.release()
    # the state-dependent layers kc .. 2 (after the fixed tilt above kc)
    plan = cz.state_dependent_tilts(s, phi)
    if plan is None:
        return out
    phis, kc = plan
    seeds = (11, 12)
    cz.state_dependent(s, phis, kc, phi, seeds, 64, 1e-12)  # tables, untimed
    tabs = cz._sd[1]
    j0 = int(np.flatnonzero(phis == phi)[0])
    if kc < P:  # the layers above kc, untimed
        lw, sr, D = cz._sample(phi, 13, 0, n_sd, k_stop=kc)
    else:
        lw, sr, D = np.full(n_sd, -cz.log_comb), np.zeros(n_sd), np.full(n_sd, cz.M)
    out_sd = np.empty(n_sd)
    t0 = time.perf_counter()
    state_dependent_draws(
        tabs, phis, kc, cz.x, s * (1 - 1e-12), j0, np.uint64(7), 0, 1, D, lw, sr, out_sd
    )
    total = time.perf_counter() - t0
    out["kc"] = kc
    out["J"] = len(phis)
    out["sd_ns"] = total / (n_sd * max(kc - 1, 1)) * 1e9
    out["sd_draws"] = n_sd
    cz.release()
    return out


def _table(results, per_elem_ns: float) -> str:
    head = (
        "| N | P | p target | knots | fixed tilt: ns / step | ratio | kc, tilts | "
        "state-dependent: ns / step | ratio |"
    )
    lines = [head, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if r.get("skipped"):
            continue
        sd = r.get("sd_ns")
        lines.append(
            f"| {r['N']:.0e} | {r['P']} | 1e{r['target']:.0f} | {r['knots']} | "
            f"{r['fixed_ns']:.0f} | {r['fixed_ns'] / per_elem_ns:.1f} | "
            + (
                f"{r['kc']}, {r['J']} | {sd:.0f} | {sd / per_elem_ns:.1f} |"
                if sd
                else "- | - | - |"
            )
        )
    return "\n".join(lines)


def run(cases, threads: int, n_fixed: int, n_sd: int, log=print):
    import numba

    numba.set_num_threads(threads)
    from pranker.null.tilt import TiltEngine

    TiltEngine(10**6, 20).tail(2.0)  # load the kernels
    ref = [sort_per_element()]
    results = []
    for N, P, target in cases:
        log(f"  N={N:.0e} P={P} p~1e{target:.0f}")
        n_f = max(256, n_fixed * 100 // P)
        results.append(measure_case(N, P, target, n_f, n_sd))
        ref.append(sort_per_element())
    return results, statistics.median(ref) * 1e9, ref


def rows(quick: bool):
    """Rows for ``benchmarks/run.py``."""
    results, per, _ = run(QUICK if quick else CASES, 1, 4096, 4096, log=lambda *a: None)
    for r in results:
        if r.get("skipped"):
            continue
        yield (
            f"draws: N={r['N']:.0e} P={r['P']} p~1e{r['target']:.0f}, one positive-step",
            f"{r['fixed_ns'] / per:.1f}x / {r.get('sd_ns', math.nan) / per:.1f}x sort/elem",
            "-",
            None,
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="numba threads (default 1)")
    ap.add_argument("--draws", type=int, default=8192, help="fixed-tilt draws at P = 100")
    ap.add_argument("--sd-draws", type=int, default=8192, help="state-dependent draws")
    args = ap.parse_args(argv)
    import pranker

    results, per, ref = run(
        QUICK if args.quick else CASES,
        args.threads,
        args.draws,
        args.sd_draws,
        log=lambda m: print(m, file=sys.stderr, flush=True),
    )
    print(
        f"# Draws of the compressed proposal: pranker {pranker.__version__}, CPU {_cpu_model()}, "
        f"{os.cpu_count()} cores, {args.threads} numba thread(s)\n"
    )
    print(_table(results, per))
    print(
        f"\nratio = ns per positive-step / ns per element of numpy.sort(x, kind='stable') of 1e7 "
        f"float64 ({per:.1f} ns per element, median of {len(ref)} timings "
        f"{min(ref) * 1e9:.1f}-{max(ref) * 1e9:.1f} ns, interleaved with the cases)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
