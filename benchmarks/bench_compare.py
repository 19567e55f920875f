"""Cost of pranker.compare() at N = 500,000, P = 500, as a ratio to a stable numpy.sort.

Run:  python benchmarks/bench_compare.py [--n 500000] [--n-pos 500] [--repeat 3] [--only TEXT]

Data as in benchmarks/compare_study.py: model A scores ``(1 + effect) y +
noise_a``, model B ``y + noise_b``, standard normal noises with correlation
rho. For each case the script times (after one warm-up call that compiles
the kernels) the default ``compare(a, b, y)`` (the permutation test that
stops once its decision at alpha = 0.05 is certain, interval included), and
``numpy.sort(a, kind="stable")`` in the same run, and prints the ratio of
the medians. The last case draws every one of the 9,999 patterns
(``alpha=None``): the most a call can cost, as it does when the p-value is
close to alpha. The influence and bootstrap methods are timed too.
The CPU model and numba's thread count are printed first; ``--only every``
times only the cases whose label contains the text (here: all patterns drawn).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from run import cpu_model  # benchmarks/run.py: this folder is the script's

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's pranker, whatever is installed

from pranker import compare  # noqa: E402


def data(n, n_pos, rho, effect, seed=0):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, bool)
    y[:n_pos] = True
    z = rng.normal(size=(2, n))
    z[1] = rho * z[0] + math.sqrt(1 - rho * rho) * z[1]
    return z[0] + (1.0 + effect) * y, z[1] + y, y


def median_time(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500_000)
    ap.add_argument("--n-pos", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="only the cases whose label contains this text")
    args = ap.parse_args(argv)
    from numba import get_num_threads

    print(f"CPU: {cpu_model()}; numba threads: {get_num_threads()}")
    print(f"N = {args.n:,}, P = {args.n_pos:,}; medians of {args.repeat} calls\n")
    cases = [
        ("equal models, rho = 0.8", 0.8, 0.0, {}),
        ("equal models, rho = 0", 0.0, 0.0, {}),
        ("A better (effect 0.25), rho = 0.8", 0.8, 0.25, {}),
        ("every pattern (alpha=None), rho = 0.8", 0.8, 0.0, {"alpha": None}),
        ("influence, rho = 0.8", 0.8, 0.0, {"method": "influence"}),
        ("bootstrap, rho = 0.8", 0.8, 0.0, {"method": "bootstrap"}),
    ]
    print(f"{'case':40s} {'sort (s)':>9s} {'compare (s)':>12s} {'ratio':>7s} {'patterns':>9s}  p")
    for label, rho, effect, kw in cases:
        if args.only not in label:
            continue
        a, b, y = data(args.n, args.n_pos, rho, effect)
        compare(a[:2000], b[:2000], y[:2000], **kw)  # compile, small

        def run(a=a, b=b, y=y, kw=kw):
            res = compare(a, b, y, **kw)
            res.confidence_interval()
            return res

        run()  # warm-up at full size (the parallel kernel)
        t_sort, _ = median_time(lambda a=a: np.sort(a, kind="stable"), max(5, args.repeat))
        t_cmp, res = median_time(run, args.repeat)
        draws = "-" if res.n_draws is None else f"{res.n_draws:,}"
        print(
            f"{label:40s} {t_sort:9.4f} {t_cmp:12.3f} {t_cmp / t_sort:6.1f}x {draws:>9s}  "
            f"{res.pvalue:.3g}",
            flush=True,
        )


if __name__ == "__main__":
    main()
