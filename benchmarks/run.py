"""Benchmark table: ratios measured side by side in one run.

Run:  python benchmarks/run.py            (full sizes: about half an hour on 2 cores)
      python benchmarks/run.py --quick    (small sizes, a smoke test)

Each module ``benchmarks/bench_*.py`` that defines ``rows(quick: bool)``
yields ``(name, measured, target, ok)`` tuples: ``measured`` is a string
with the ratio or rate, ``target`` the target, ``ok`` True/False/None. The
others are scripts with their own table and options (``bench_compare.py``,
``bench_notebooks.py``, ``bench_walk.py`` ...): the run names them at the
end, to be run alone.
Absolute times are noise on shared machines; ratios taken in the same run
are what we compare.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def best_of(fn, repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls (after the caller's warm-up)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def cpu_model() -> str:
    """The CPU model as ``lscpu`` names it (else ``/proc/cpuinfo``, else the platform)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def sort_seconds(n: int = 10**7, repeat: int = 3) -> float:
    """Least time of ``numpy.sort(x, kind="stable")`` of ``n`` standard normal float64."""
    import numpy as np

    x = np.random.default_rng(0).standard_normal(n)
    return best_of(lambda: np.sort(x, kind="stable"), repeat)


def sort_median(x, repeat: int = 3) -> float:
    """Median time of ``numpy.sort(x, kind="stable")`` over ``repeat`` calls (the yardstick T
    of the sweeps, timed just before and after each case)."""
    import statistics

    import numpy as np

    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.sort(x, kind="stable")
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def machine_line() -> str:
    """Date, CPU, cores, load and the reference sort time: the line every run starts with."""
    import os

    load = " ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"{datetime.date.today().isoformat()}; CPU {cpu_model()}, {os.cpu_count()} cores; "
        f"load average {load}; numpy.sort(x, kind='stable') of 1e7 float64: "
        f"{sort_seconds():.3f} s"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--only", default="", help="run only bench_<name>.py modules containing this")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    print(f"machine: {machine_line()}", flush=True)
    rows = []
    alone = []
    for path in sorted(HERE.glob("bench_*.py")):
        if args.only and args.only not in path.stem:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if not hasattr(mod, "rows"):
            alone.append(path.name)
            continue
        try:
            for row in mod.rows(args.quick):
                rows.append(row)
                print(f"  measured: {row[0]}", file=sys.stderr, flush=True)
        except Exception as exc:  # one broken module must not hide the others' rows
            rows.append((f"{path.stem}: failed", f"{type(exc).__name__}: {exc}"[:60], "-", False))
    w = max([len(r[0]) for r in rows] + [9])
    wm = max([len(r[1]) for r in rows] + [8])
    wt = max([len(r[2]) for r in rows] + [6])
    print(f"{'benchmark':<{w}}  {'measured':<{wm}}  {'target':<{wt}}  ok")
    print(f"{'-' * w}  {'-' * wm}  {'-' * wt}  ---")
    for name, measured, target, ok in rows:
        mark = {True: "yes", False: "NO", None: "-"}[ok]
        print(f"{name:<{w}}  {measured:<{wm}}  {target:<{wt}}  {mark}")
    if alone:
        print(
            f"\nscripts with their own table (run alone: python benchmarks/NAME): {', '.join(alone)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
