"""The first call in a fresh environment: cold (empty numba cache) against warm.

Each case runs in its own Python process, first with an empty
``NUMBA_CACHE_DIR`` (every kernel compiles) and then again with the cache it
left (kernels load from disk):

- ``import pranker``;
- ``pranker --help`` (as ``python -m pranker --help``);
- the first ``pranker(scores, y)`` on 5,000 float64 scores with bool labels;
- scikit-learn's first ``average_precision_score(y, scores)`` on the same data,
  the reference a scikit-learn user compares with (it compiles nothing, so
  cold and warm differ only by the operating system's file cache);
- ``pranker demo`` (scikit-learn's digits, figures and the HTML report).

The table gives cold and warm seconds (the range over ``--repeat`` runs),
their ratio and the bar. ``--kernels`` adds, for the first ``pranker()`` and
the demo, the seconds spent compiling each kernel (numba's compile events,
the time of numba's own library code charged to the kernel that needed it)
and its number of signatures.

The run starts with the date, the CPU model and the time of
``numpy.sort(x, kind="stable")`` of 10^7 float64 on the same machine.

    python benchmarks/bench_first_call.py [--repeat 3] [--kernels]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIRST_PRANKER = """
import numpy as np
import pranker
rng = np.random.default_rng(0)
y = rng.random(5000) < 0.1
s = rng.standard_normal(5000) + y
pranker.pranker(s, y)
"""

FIRST_SKLEARN = """
import numpy as np
from sklearn.metrics import average_precision_score
rng = np.random.default_rng(0)
y = rng.random(5000) < 0.1
s = rng.standard_normal(5000) + y
average_precision_score(y, s)
"""

CASES = [
    ("import pranker", ["-c", "import pranker"], None),
    ("pranker --help", ["-m", "pranker", "--help"], None),
    ("first pranker(scores, y), N = 5,000", ["-c", FIRST_PRANKER], 4.0),
    ("first sklearn average_precision_score", ["-c", FIRST_SKLEARN], None),
    ("pranker demo", ["-m", "pranker", "demo", "-q", "--force", "-o", "{out}"], 10.0),
]
# The bars are ratios to scikit-learn's first average_precision_score, cold, on the wall
# clock (what a user waits for); the CPU ratio is printed beside it (the demo's helper
# process adds CPU time, not wall time).

# Run inside the child: record numba's compile events around one job.
KERNELS = r"""
import json, sys, time, tempfile
from collections import defaultdict
import numba.core.event as ev
rec = ev.RecordingListener()
ev.register("numba:compile", rec)
job, FIRST_PRANKER = sys.argv[1], sys.argv[2]
if job == "pranker":
    exec(FIRST_PRANKER)
else:
    from pranker.cli.main import main
    try:
        main(["demo", "-q", "-o", tempfile.mkdtemp()])
    except SystemExit:
        pass
stack, own, sigs = [], defaultdict(float), defaultdict(set)
for ts, e in rec.buffer:
    f = e.data["dispatcher"].py_func
    name = f.__module__.replace("pranker._numba.", "") + "." + f.__name__
    ours = f.__module__.startswith("pranker.")
    if e.is_start:
        owner = name if ours else next((s[3] for s in reversed(stack)), "(numba)")
        stack.append([name, ts, 0.0, owner])
    else:
        n, t1, child, owner = stack.pop()
        own[owner] += ts - t1 - child
        if ours:
            sigs[n].add(str(e.data["args"]))
        if stack:
            stack[-1][2] += ts - t1
print(json.dumps({k: [own[k], len(sigs[k])] for k in own}))
"""


def _env(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


# CPU seconds of the children (user + system), next to the wall time: on a machine shared
# with other jobs the wall time grows with the load, the CPU time much less.
CPU_SECONDS: list = []


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(args: list, cache: str, out: str) -> float:
    """Wall seconds of one case in a fresh process; its CPU seconds go to CPU_SECONDS."""
    cmd = [sys.executable] + [a.format(out=out) for a in args]
    c0 = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(cmd, env=_env(cache), check=True, capture_output=True, cwd=out)
    wall = time.perf_counter() - t0
    CPU_SECONDS.append(_children_cpu() - c0)
    return wall


def _cold_warm(args: list) -> tuple[float, float]:
    """Seconds of one case with an empty numba cache, then with the cache it left."""
    cache = tempfile.mkdtemp(prefix="numba-cache-")
    out = tempfile.mkdtemp(prefix="pranker-out-")
    try:
        return _timed(args, cache, out), _timed(args, cache, out)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


def rows(quick: bool):
    """The rows of ``benchmarks/run.py``: each case once, cold and warm, in seconds and as a
    ratio to scikit-learn's first ``average_precision_score`` in the same run."""
    sk_cold, _ = _cold_warm(CASES[3][1])
    for name, args, bar in CASES:
        if name.startswith("first sklearn"):
            yield (f"{name}, fresh process", f"{sk_cold:.2f} s", "(reference)", None)
            continue
        if quick and name == "pranker demo":
            continue
        cold, warm = _cold_warm(args)
        target = f"<= {bar:g}x sklearn cold" if bar is not None else "instant"
        ok = cold / sk_cold <= bar if bar is not None else None
        yield (
            f"{name}: cold / warm numba cache",
            f"{cold:.2f} s / {warm:.2f} s ({cold / sk_cold:.1f}x / {warm / sk_cold:.1f}x sklearn)",
            target,
            ok,
        )


def bars(repeat: int) -> None:
    """Each case cold and warm, wall and CPU seconds (the range over ``repeat`` runs), and
    the cold wall and CPU time over scikit-learn's first ``average_precision_score``."""
    results = {}
    for name, args, bar in CASES:
        got: dict = {"cold": [], "warm": [], "cpu_cold": [], "cpu_warm": []}
        for _ in range(repeat):
            cache = tempfile.mkdtemp(prefix="numba-cache-")
            out = tempfile.mkdtemp(prefix="pranker-out-")
            try:
                for state in ("cold", "warm"):
                    got[state].append(_timed(args, cache, out))
                    got["cpu_" + state].append(CPU_SECONDS[-1])
            finally:
                shutil.rmtree(cache, ignore_errors=True)
                shutil.rmtree(out, ignore_errors=True)
        results[name] = (got, bar)

    def rng(v):
        return f"{min(v):.2f}-{max(v):.2f}" if len(v) > 1 else f"{v[0]:.2f}"

    sk = results[CASES[3][0]][0]
    sk_wall, sk_cpu = min(sk["cold"]), min(sk["cpu_cold"])
    print(
        f"{'case':40s} {'cold s':>11s} {'cold CPU s':>11s} {'warm s':>11s} {'warm CPU s':>11s}"
        f" {'cold/sklearn':>13s} {'(CPU)':>7s}  bar (cold)"
    )
    for name, (got, bar) in results.items():
        ratio = min(got["cold"]) / sk_wall
        verdict = "" if bar is None else f"<= {bar:g}x: " + ("met" if ratio <= bar else "NOT met")
        print(
            f"{name:40s} {rng(got['cold']):>11s} {rng(got['cpu_cold']):>11s}"
            f" {rng(got['warm']):>11s} {rng(got['cpu_warm']):>11s}"
            f" {min(got['cold']) / sk_wall:12.1f}x {min(got['cpu_cold']) / sk_cpu:6.1f}x  {verdict}"
        )


def kernels() -> None:
    for job in ("pranker", "demo"):
        cache = tempfile.mkdtemp(prefix="numba-cache-")
        try:
            t0 = time.perf_counter()
            res = subprocess.run(
                [sys.executable, "-c", KERNELS, job, FIRST_PRANKER],
                env=_env(cache),
                check=True,
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - t0
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        table = json.loads(res.stdout.strip().splitlines()[-1])
        total = sum(v[0] for v in table.values())
        print(f"\n{job}: {wall:.1f} s in the process, {total:.1f} s compiling {len(table)} kernels")
        print(f"{'kernel':42s} {'compile s':>9s} {'signatures':>10s}")
        for k, (sec, n) in sorted(table.items(), key=lambda kv: -kv[1][0]):
            print(f"{k:42s} {sec:9.2f} {n:10d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernels", action="store_true", help="the per-kernel compile table too")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import machine_line

    print(f"machine: {machine_line()}\n")
    bars(args.repeat)
    if args.kernels:
        kernels()


if __name__ == "__main__":
    main()
