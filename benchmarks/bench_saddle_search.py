"""Passes of the compressed proposal's saddle search: how many recursion passes find the tilt.

Run:  python benchmarks/bench_saddle_search.py              (80 thresholds, a few minutes)
      python benchmarks/bench_saddle_search.py --quick      (two sizes)
      python benchmarks/bench_saddle_search.py --against REV (also the search of git revision REV)

The tilted estimator's compressed proposal (``pranker.null.compressed``)
draws at the saddle point phi* of its compressed CGF's slope, ``Khat'(phi*) =
s``, solved to ``SADDLE_TOL`` tilted standard deviations. Each evaluation of
``Khat'`` on the real knots is a pass over P x B table cells, so the number of
passes is the search's cost (at N = 1e6, P = 1e4 one pass takes about a
second). For ten (N, P) beyond the exact tables and eight thresholds each
(0.5, 2 and 5 standard deviations above the null mean; 1 %, 5 %, 20 %, 50 % and
80 % of the way from the mean to the top), this prints the passes on the real
knots (and on the coarse copy), checks the stop rule against a central
difference of ``Khat'`` (column "ok"), and, with ``--against``, the passes of
the search in the ``pranker/null/compressed.py`` of another git revision,
run on the same engine. Counts, not times: they do not depend on the machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [
    (10**5, 200),
    (10**5, 1000),
    (10**6, 30),
    (10**6, 300),
    (10**6, 3000),
    (10**7, 100),
    (10**7, 1000),
    (10**8, 1000),
    (10**8, 300),
    (10**5, 5000),
]
QUICK = [(10**5, 1000), (10**6, 300)]


def thresholds(mean: float, sd: float, P: int) -> list[float]:
    out = [mean + z * sd for z in (0.5, 2.0, 5.0)]
    out += [mean + f * (P - mean) for f in (0.01, 0.05, 0.2, 0.5, 0.8)]
    return out


def module_at(rev: str):
    """``pranker/null/compressed.py`` of git revision ``rev``, imported on its own."""
    text = subprocess.run(
        ["git", "-C", ROOT, "show", f"{rev}:pranker/null/compressed.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    text = text.replace("from .._numba", "from pranker._numba").replace(
        "from .", "from pranker.null."
    )
    path = os.path.join(tempfile.mkdtemp(), "compressed_at_rev.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location("compressed_at_rev", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["compressed_at_rev"] = mod  # so that its pass counter can be patched
    spec.loader.exec_module(mod)
    return mod


def passes(module, cz, s: float, mean: float, sd: float) -> tuple[float, int, int]:
    """``(phi, passes on the real knots, passes on the coarse copy)`` of ``module``'s search."""
    import pranker.null.compressed as current

    fine = cz.n_knots
    count = {"fine": 0, "coarse": 0}
    real = current.compressed_cgf

    def counted(n, p, phi, x):
        count["fine" if x.shape[0] == fine else "coarse"] += 1
        return real(n, p, phi, x)

    mods = {current, module}
    for m in mods:
        m.compressed_cgf = counted
    try:
        phi = module.CompressedProposal.saddle(cz, s, mean, sd)
    finally:
        for m in mods:
            m.compressed_cgf = real
    return phi, count["fine"], count["coarse"]


def run(cases, other=None, log=print) -> dict:
    """Count the passes of every search; ``log`` gets one markdown row per threshold."""
    import pranker.null.compressed as current
    from pranker.null.tilt import TiltEngine

    out = {"thresholds": 0, "passes": 0, "other": 0, "ok": 0, "most": 0}
    for N, P in cases:
        eng = TiltEngine(N, P, compressed=True)
        cz = eng._cz
        mean, sd = eng.mean_s, eng.sd_s
        for s in thresholds(mean, sd, P):
            phi, nf, nc = passes(current, cz, s, mean, sd)
            k1 = cz.cgf(phi)[1]
            h = 1e-6 * phi
            k2 = (cz.cgf(phi + h)[1] - cz.cgf(phi - h)[1]) / (2.0 * h)
            ok = k2 > 0.0 and abs(k1 - s) <= current.SADDLE_TOL * math.sqrt(k2)
            out["thresholds"] += 1
            out["passes"] += nf
            out["ok"] += int(ok)
            out["most"] = max(out["most"], nf)
            row = f"| {N:.0e} | {P} | {s:.4f} | {(s - mean) / sd:.1f} | {nf} ({nc}) | {ok} |"
            if other is not None:
                _, of, oc = passes(other, cz, s, mean, sd)
                out["other"] += of
                row += f" {of} ({oc}) |"
            log(row)
        eng.release()
    return out


def rows(quick: bool):
    """Rows for ``benchmarks/run.py``: passes on the real knots, in all and at most."""
    r = run(QUICK if quick else CASES, log=lambda *a: None)
    yield (
        f"saddle search (compressed proposal): passes over {r['thresholds']} thresholds",
        f"{r['passes']} in all, at most {r['most']}; {r['ok']} within the tolerance",
        "-",
        r["ok"] == r["thresholds"],
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two sizes only")
    ap.add_argument("--against", metavar="REV", help="also count the search of this git revision")
    args = ap.parse_args(argv)
    import pranker

    other = module_at(args.against) if args.against else None
    head = "| N | P | s | z | passes (coarse) | ok |"
    if other is not None:
        head += f" passes at {args.against} (coarse) |"
    print(f"# Saddle search of the compressed proposal: pranker {pranker.__version__}\n")
    print(head)
    print("|" + "---:|" * (head.count("|") - 1))
    r = run(QUICK if args.quick else CASES, other, log=lambda row: print(row, flush=True))
    line = f"\nPasses on the real knots: {r['passes']} over {r['thresholds']} thresholds"
    line += f" (at most {r['most']}), {r['ok']} within the tolerance"
    if other is not None:
        line += f"; at {args.against}: {r['other']}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
