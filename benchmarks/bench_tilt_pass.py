"""Nanoseconds per cell of the exact-tilt forward recursion, optionally beside an earlier revision.

One pass of :func:`pranker._numba.tilt.tilt_forward` costs P (N - P + 1)
cells. The table gives ns per cell of the CGF pass (value and two
derivatives) and of the storing pass (the sampler's tables), the best of
``--repeat`` runs, and the ratio of each to the ns per element of
``numpy.sort(x, kind="stable")`` of 10^7 float64 measured in the same run.
With ``--against REV`` the kernel module of that git revision is loaded
beside today's (its relative imports made absolute, in a temporary folder)
and both are timed side by side, interleaved, so the ratio new/old does not
depend on the machine's load.

    python benchmarks/bench_tilt_pass.py
    python benchmarks/bench_tilt_pass.py --against 00ecd6b
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from run import best_of, machine_line

CASES = [(2000, 200), (20000, 500), (100000, 150), (4000, 2000), (5000, 2500), (160000, 100)]


def _load_revision(rev: str):
    """The module ``pranker/_numba/tilt.py`` of git revision ``rev``, importable beside today's."""
    top = Path(__file__).resolve().parents[1]
    src = subprocess.run(
        ["git", "show", f"{rev}:pranker/_numba/tilt.py"],
        cwd=top,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    src = src.replace("from .", "from pranker._numba.")
    folder = Path(tempfile.mkdtemp(prefix="pranker_tilt_"))
    path = folder / f"tilt_{rev.replace('/', '_')}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    from pranker._numba import tilt
    from pranker.null.tilt import TiltEngine

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--against", default=None, help="a git revision whose kernel is timed beside today's"
    )
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    old = _load_revision(args.against) if args.against else None
    x = np.random.default_rng(0).random(10**7)
    sort_ns = best_of(lambda: np.sort(x, kind="stable"), 3) / x.size * 1e9
    print(f"machine: {machine_line()}")
    print(f"numpy.sort(kind='stable') of 10^7 float64 in this run: {sort_ns:.1f} ns per element")
    head = "| N | P | phi sd_0 | pass | ns/cell | / sort ns |"
    if old is not None:
        head += f" ns/cell at {args.against} | new / old |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for N, P in CASES:
        e = TiltEngine(N, P)
        cells = P * (N - P + 1)
        for phi_sd in (0.0, 3.0, 30.0):
            phi = phi_sd / e.sd_s
            for derivs, store, name in ((True, False, "CGF"), (False, True, "store")):
                tilt.tilt_forward(N, P, phi, e.mean_s, derivs, store)
                t_new = best_of(
                    lambda a=(N, P, phi, e.mean_s, derivs, store): tilt.tilt_forward(*a),
                    args.repeat,
                )
                row = f"| {N} | {P} | {phi_sd:g} | {name} | {t_new / cells * 1e9:.2f} | {t_new / cells * 1e9 / sort_ns:.4f} |"
                if old is not None:
                    old.tilt_forward(N, P, phi, e.mean_s, derivs, store)
                    t_old = best_of(
                        lambda a=(N, P, phi, e.mean_s, derivs, store): old.tilt_forward(*a),
                        args.repeat,
                    )
                    row += f" {t_old / cells * 1e9:.2f} | {t_new / t_old:.2f} |"
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
