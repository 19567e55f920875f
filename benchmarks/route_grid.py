"""Default p-values over a grid that visits every route of ``method="auto"``, to compare two revisions.

Run:  python benchmarks/route_grid.py --out FILE            (writes one JSON line per answer)
      python benchmarks/route_grid.py --against FILE        (recomputes, and counts what changed)
      python benchmarks/route_grid.py --rev REV --out FILE  (the answers of git revision REV)

A restructuring of the null layer must not move a number. This script asks
every entry point (``significance_from_ap``, ``pranker``, ``pranker_many``,
``map_significance``, the command line) for its default answer at (N, P,
threshold) points chosen so that every route of the rule ``"auto"`` is taken:
the exact count, the second-order saddlepoint where it is calibrated, the
saddlepoint where the top positives are pinned (and the tilt just before),
the tilted estimator on exact layers and on the compressed proposal, the
saddlepoint on the compressed CGF for many positives, both tails, thresholds
beyond the saddlepoint's calibrated depth, mean AP by tilt and by
saddlepoint. It also records the methods asked for by name. Floats are
written with ``repr`` and compared exactly: on one machine the same
computation gives the same bits. Counts, not times: a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (N, P): the route "auto" takes for most thresholds, in words.
PAIRS = [
    (20, 5, "exact (all placements)"),
    (3000, 1, "exact (one positive)"),
    (60, 6, "exact (5e7 placements: tail count)"),
    (5000, 500, "saddlepoint, calibrated region"),
    (20000, 1000, "saddlepoint, calibrated region"),
    (10**5, 100, "saddlepoint where pinned, tilt elsewhere"),
    (10**4, 30, "tilt on exact layers"),
    (10**4, 3000, "saddlepoint near the top: tilt beyond the depth"),
    (10**6, 20, "tilt on the compressed proposal"),
    (3 * 10**4, 10**4, "saddlepoint on the compressed CGF"),
]
# thresholds: standard deviations above the null mean, then fractions of the way to the top
Z_SCORES = (-2.0, 0.5, 3.0, 10.0)
WAY = (0.05, 0.3, 0.95)


def thresholds(n: int, n_pos: int) -> list[float]:
    from pranker.null.moments import null_params

    par = null_params(n, n_pos)
    mean, sd = par.mean, par.var**0.5
    out = [mean + z * sd for z in Z_SCORES if 0.0 < mean + z * sd < 1.0]
    out += [mean + f * (1.0 - mean) for f in WAY]
    return out


def record(kind: str, key, res) -> dict:
    fields = ("log10_pvalue", "pvalue", "pvalue_interval", "pvalue_rse", "method", "n_draws")
    row = {"kind": kind, "key": key}
    for f in fields:
        v = getattr(res, f, None)
        row[f] = repr(v)
    return row


def rows():
    import numpy as np

    import pranker
    from pranker.significance.single import significance_from_ap

    for n, n_pos, _ in PAIRS:
        for a in thresholds(n, n_pos):
            yield record("auto", [n, n_pos, repr(a)], significance_from_ap(a, n, n_pos))
    # methods by name at a few points (the saddlepoint by name beyond its region too)
    for n, n_pos in [(5000, 500), (10**5, 100), (2000, 40)]:
        for a in thresholds(n, n_pos)[1:4]:
            for m in ("saddlepoint", "tilt", "beta", "skewbeta", "montecarlo"):
                kw = {"n_draws": 20_000} if m == "montecarlo" else {}
                res = significance_from_ap(a, n, n_pos, method=m, **kw)
                yield record(m, [n, n_pos, repr(a)], res)
    # scores and labels: pranker, pranker_many (rows share (N, P)), the command line
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(40, 2000))
    labels = np.zeros((40, 2000), dtype=int)
    labels[:, :40] = 1
    scores[:, :40] += np.linspace(0.0, 2.0, 40)[:, None]
    many = pranker.pranker_many(scores, labels)
    for i in range(0, 40, 13):
        yield record("pranker", [i], pranker.pranker(scores[i], labels[i]))
    for i in range(40):
        yield {"kind": "many", "key": [i], "log10_pvalue": repr(float(many.log10_pvalue[i]))}
    # mean AP over queries: a few queries (tilt), many queries (saddlepoint), one query
    for q, lo, hi in [(5, 300, 400), (60, 200, 260), (1, 500, 501)]:
        s_list, y_list = [], []
        for j in range(q):
            m = int(rng.integers(lo, hi))
            y = np.zeros(m, dtype=int)
            y[: 3 + j % 7] = 1
            s_list.append(rng.normal(size=m) + 1.5 * y)
            y_list.append(y)
        res = pranker.map_significance(s_list, y_list)
        yield record("map", [q, lo, hi], res)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.csv")
        with open(path, "w") as fh:
            fh.write("score,label\n")
            for s, y in zip(scores[5], labels[5], strict=True):
                fh.write(f"{float(s)!r},{int(y)}\n")
        out = subprocess.run(
            [sys.executable, "-m", "pranker.cli.main", "score", path, "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        answer = json.loads(out)
        answer.pop("file", None)  # the temporary path
        yield {"kind": "cli", "key": [5], "json": json.dumps(answer, sort_keys=True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--against")
    ap.add_argument("--rev", help="run the grid on this git revision (a temporary worktree)")
    args = ap.parse_args()
    if args.rev:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                ["git", "-C", ROOT, "worktree", "add", "--detach", tmp, args.rev], check=True
            )
            try:
                cmd = [sys.executable, os.path.join(tmp, "benchmarks", "route_grid.py")]
                if not os.path.exists(cmd[1]):
                    cmd[1] = os.path.abspath(__file__)
                env = dict(os.environ, PYTHONPATH=tmp)
                subprocess.run(cmd + ["--out", args.out], check=True, cwd=tmp, env=env)
            finally:
                subprocess.run(
                    ["git", "-C", ROOT, "worktree", "remove", "--force", tmp], check=True
                )
        return
    got = list(rows())
    if args.out:
        with open(args.out, "w") as fh:
            for r in got:
                fh.write(json.dumps(r) + "\n")
    if args.against:
        with open(args.against) as fh:
            before = [json.loads(line) for line in fh]
        changed = [(b, a) for b, a in zip(before, got, strict=False) if b != a]
        if len(before) != len(got):
            print(f"different number of answers: {len(before)} before, {len(got)} now")
        for b, a in changed:
            print("changed:", json.dumps(b), "->", json.dumps(a))
        methods = sorted({r.get("method", "") for r in got if r["kind"] == "auto"})
        print(f"{len(got)} answers, {len(changed)} changed; routes of auto seen: {methods}")


if __name__ == "__main__":
    main()
