"""Large P: importance-sampler "truth" tails of S = P * AP, for checking the saddle route later.

Measures ``P(S >= s)`` under the null (random ranking of N items with P
positives) by the unbiased importance sampler
``TiltEngine(N, P).tail(s, rtol=0.01, max_draws=2**21)`` at P = 10^4 and
N = 2 * 10^4, 10^5, 10^6, for thresholds s whose saddle-route p-value
(``LargePSaddle``, via ``bench_large_p.threshold_for``) is near 1e-3, 1e-30,
1e-100 and 1e-300. Targets whose threshold cannot be found, or reaches P,
are skipped.

One JSON line per case is appended to ``docs/calibration_large_p_truth.jsonl``
as soon as it finishes (earlier lines are never rewritten). Each sampler call
runs in a "spawn" subprocess stopped after 25 minutes; a stopped case is
recorded with ``"truth_log10": null, "timeout": true``.

Usage (one core for the kernels)::

    NUMBA_NUM_THREADS=1 python benchmarks/calibration_large_p_truth.py
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import queue
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_large_p import threshold_for  # noqa: E402
from run import cpu_model  # noqa: E402

from pranker.null.saddlepoint import LargePSaddle  # noqa: E402
from pranker.null.tilt import TiltEngine  # noqa: E402

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "docs", "calibration_large_p_truth.jsonl"
)
CASES = [(20000, 10000), (100000, 10000), (1000000, 10000)]
TARGETS = [-3, -30, -100, -300]
RTOL = 0.01
MAX_DRAWS = 1 << 21
LIMIT_SECONDS = 25 * 60
DATE = "2026-11-28"


def _sampler(N, P, s, q):
    est = TiltEngine(N, P).tail(s, rtol=RTOL, max_draws=MAX_DRAWS, progress=False)
    q.put((est.log10_pvalue, est.rse, est.n_draws))


def sample(N, P, s):
    """``(log10 p, rse, draws)`` from the sampler, or None after ``LIMIT_SECONDS``."""
    ctx = mp.get_context("spawn")  # not fork: the kernels use OpenMP threads
    q = ctx.Queue()
    proc = ctx.Process(target=_sampler, args=(N, P, s, q))
    proc.start()
    try:
        return q.get(timeout=LIMIT_SECONDS)
    except queue.Empty:
        return None
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join()


def _recorded() -> set:
    """The (N, P, target) already in the file: a case is recorded once (a rerun adds nothing)."""
    if not os.path.exists(OUT):
        return set()
    with open(OUT) as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return {(r["N"], r["P"], float(r["target"])) for r in rows}


def main():
    cpu = cpu_model()
    done = _recorded()
    with open(OUT, "a") as fh:
        for N, P in CASES:
            sd = LargePSaddle(N, P, parallel=False)
            for target in TARGETS:
                if (N, P, float(target)) in done:
                    print(f"N={N} P={P} target={target}: already recorded, skipped", flush=True)
                    continue
                try:
                    s, approx = threshold_for(sd, target, tol=0.3)
                except Exception as exc:  # noqa: BLE001 - skip the target, as briefed
                    print(f"N={N} P={P} target={target}: threshold_for failed: {exc!r}", flush=True)
                    continue
                if not math.isfinite(s) or s >= P:
                    print(f"N={N} P={P} target={target}: s={s!r} >= P, skipped", flush=True)
                    continue
                t0 = time.perf_counter()
                res = sample(N, P, s)
                seconds = time.perf_counter() - t0
                row = {"N": N, "P": P, "target": target, "s": float(s)}
                if res is None:
                    row.update(truth_log10=None, rse=None, n_draws=None, timeout=True)
                else:
                    row.update(truth_log10=res[0], rse=res[1], n_draws=res[2])
                row.update(seconds=round(seconds, 2), route_approx_log10=approx, date=DATE, cpu=cpu)
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
