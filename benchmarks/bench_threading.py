"""numba's threading layers side by side: TBB (the default with the ``tbb`` wheel) against
GNU OpenMP (the default without it) and ``workqueue``.

Each layer runs in its own process (``NUMBA_THREADING_LAYER``), in alternation
over ``--rounds`` rounds so that the load of a shared machine hits all alike;
each case keeps its least time. Every process also times
``numpy.sort(x, kind="stable")`` of 10^7 float64, and the table gives each
case as a ratio to that sort in the same process, then each layer's time over
OpenMP's.

Cases: ``pranker(method="beta")`` on 10^6 and 10^7 items (1 % positives: the
AP's counting kernels), ``pranker()`` on 2·10^5 items with 200 positives (the
default, the tilted sampler: the most parallel work per item), and
``pranker_many`` on 300 rows of 10^4 items (1 % positives, the default).

    python benchmarks/bench_threading.py [--rounds 3] [--layers tbb,omp,workqueue]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, sys, time
import numpy as np
import numba
import pranker

def least(fn, repeat=2):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); best = min(best, time.perf_counter() - t0)
    return best

rng = np.random.default_rng(0)
x = rng.standard_normal(10**7)
cases = {}
for n in (10**6, 10**7):
    y = rng.random(n) < 0.01
    s = rng.standard_normal(n) + 0.5 * y
    cases[f"pranker(beta), N = {n:.0e}, 1% pos"] = lambda s=s, y=y: pranker.pranker(
        s, y, method="beta"
    )
y = np.zeros(200_000, bool); y[rng.choice(200_000, 200, replace=False)] = True
s = rng.standard_normal(200_000) + 0.5 * y
cases["pranker(), N = 2e5, P = 200 (tilt)"] = lambda s=s, y=y: pranker.pranker(s, y)
Y = rng.random((300, 10_000)) < 0.01
S = rng.standard_normal((300, 10_000)) + Y * rng.uniform(0, 2, (300, 1))
cases["pranker_many, 300 x 1e4, 1% pos"] = lambda: pranker.pranker_many(S, Y)
for fn in cases.values():
    fn()  # compile or load the kernels
out = {"sort": least(lambda: np.sort(x, kind="stable"))}
out.update({name: least(fn) for name, fn in cases.items()})
out["layer"] = numba.threading_layer()
print(json.dumps(out))
"""


def run_layer(layer: str) -> dict:
    env = dict(os.environ, NUMBA_THREADING_LAYER=layer)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--layers", default="tbb,omp,workqueue")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import machine_line

    print(f"machine: {machine_line()}\n")
    layers = args.layers.split(",")
    best: dict = {layer: {} for layer in layers}
    for _ in range(args.rounds):
        for layer in layers:
            got = run_layer(layer)
            if got.pop("layer") != layer:
                raise SystemExit(f"numba did not load the {layer} layer here")
            for k, v in got.items():
                best[layer][k] = min(best[layer].get(k, float("inf")), v)
    names = [k for k in best[layers[0]] if k != "sort"]
    ref = "omp" if "omp" in layers else layers[0]
    head = "".join(f"{layer + ' s (x sort)':>22s}" for layer in layers)
    head += "".join(f"{layer + '/' + ref:>14s}" for layer in layers if layer != ref)
    print(f"{'case':42s}{head}")
    for name in ["sort"] + names:
        row = f"{name:42s}"
        for layer in layers:
            t = best[layer][name]
            row += f"{t:12.3f} ({t / best[layer]['sort']:5.2f}x)"
        for layer in layers:
            if layer != ref:
                r = (best[layer][name] / best[layer]["sort"]) / (
                    best[ref][name] / best[ref]["sort"]
                )
                row += f"{r:14.2f}"
        print(row)
    print(f"\n{ref} = numba's default without TBB; a ratio over {ref} compares x-sort ratios")


if __name__ == "__main__":
    main()
