"""Tail p-values: time and memory of one default p-value, as multiples of a stable sort of 1e7.

Run:  python benchmarks/bench_tail.py --quick          (two small cases, < 1 minute)
      python benchmarks/bench_tail.py --cases bars     (the full set; up to an hour)
      python benchmarks/bench_tail.py --only 1e7,1e3 --targets=-30 --timeout 300

Prints a markdown table of ratios measured side by side in one run (absolute
times are noise on shared machines). The reference is ``numpy.sort`` of 10^7
float64 (standard normal), ``kind="stable"``, in this process: the median of ``--sort-repeats``
sorts, re-timed before the first case and after every case; each case is
divided by the reference timed closest to its measured call.

Cases
-----
``single``  ``pranker.significance_from_ap(ap, N, P)`` with the defaults, at
    (N, P) in (1e5, 100), (1e4, 1e3), (1e5, 1e3), (1e6, 300), (1e7, 1e3),
    (1e8, 1e3) and p ~ 1e-3, 1e-30, 1e-100, 1e-300 where reachable. The AP
    for a target p comes from the engine's compressed CGF (never from the
    estimator): ``log p ~ K(phi) - K(0) - phi K'(phi) - log(phi sqrt(2 pi K''))``
    at ``AP = K'(phi) / P`` (Chernoff with the Bahadur-Rao prefactor, ``K''``
    by a central difference of ``K'``; subtracting ``K(0)`` removes the
    compressed CGF's normalisation bias), bisected in ``log phi``. A target the
    bisection does not reach (or that needs AP >= 1 - 1e-9) is skipped and
    listed under the table. The estimate lands within about a decade of the
    target; the table shows the log10 p actually obtained.
``pranker``  ``pranker.pranker(scores, y)`` end to end at N = 1e7 with P = 1e3
    and 1e5: standard normal scores, positives shifted by the delta at which
    the binormal model's expected AP is ``--signal`` times the null mean
    (default 3). Also shown: the time over ``numpy.sort`` of those scores
    (median of 3, in the child after the measurement).
``newcomer``  ``pranker.pranker(scores, y)`` at N = 5,000 with 500 positives
    (10 %), the positives' scores shifted by 0.5, 1 and 2 standard deviations
    (log10 p about -20, -73 and -290): a first ranking, in a process that has
    compiled the kernels but not seen it. Its bar is absolute (50 ms), so the
    table's "time (s)" column is the one to read.
``large``  ``single`` at (N, P) = (1e6, 1e4): a hundred items per positive
    with ten thousand positives, where the default is the importance sampler.
``quick``  one single p-value (N = 1e5, P = 100, p ~ 1e-3) and pranker() at
    N = 1e6, P = 100: a check of the script itself.

Every case runs in a fresh interpreter (``python bench_tail.py --child``), so
the tail engine's caches do not carry over, after a warm-up that imports
pranker and runs it on tiny cases (loads or compiles the numba kernels). The
time limit ``--timeout`` counts from the end of that warm-up; a case that
exceeds it is killed and shows ``> limit`` and the ratio's lower bound.

Memory: peak RSS of the child during the measured call minus its RSS after the
warm-up (the ``pranker`` case's scores and labels are allocated before the
warm-up, so only pranker's own memory counts). The peak is ``VmHWM`` of
``/proc/self/status`` after resetting it by writing ``5`` to
``/proc/self/clear_refs`` at the baseline, as in ``bench_dask.py``: on Linux
``ru_maxrss`` survives ``exec``, so a child would start with this driver's
high-water mark (the 160 MB of the reference sort); ``ru_maxrss`` is the
fallback where the reset is not available (marked in the table). The column
"engine tables" is what the tail engine's tables take by construction (none
where the saddlepoint answered: its passes keep two layers):
compressed (knots, ``table_bytes()``) or the exact ``8 P (N - P + 1)`` bytes.

``rows(quick)`` (for ``benchmarks/run.py``) runs the ``quick`` set only.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import resource
import select
import statistics
import subprocess
import sys
import time

import numpy as np

SORT_N = 10**7
SINGLE_SHAPES = [
    (10**5, 100),
    (10**4, 1000),
    (10**5, 1000),
    (10**6, 300),
    (10**7, 1000),
    (10**8, 1000),
]
TARGETS = (-3.0, -30.0, -100.0, -300.0)
PRANKER_SHAPES = [(10**7, 1000), (10**7, 10**5)]
LARGE_SHAPES = [(10**6, 10**4)]  # 100 items per positive at P = 10^4: the importance sampler
NEWCOMER_SHIFTS = (0.5, 1.0, 2.0)  # N = 5,000, P = 500: log10 p about -20, -73, -290
WARMUP_LIMIT = 1800.0  # seconds; a cold numba cache compiles everything here
MAX_AP = 1.0 - 1e-9


# -- choosing the inputs (in the driver, before any timing) -------------------------------
def ap_for_targets(N: int, P: int, targets) -> dict:
    """``{log10 p target: (ap, estimated log10 p) or None}`` from the compressed CGF.

    A coarse grid in ``log phi`` (shared by the targets) brackets each target,
    then bisection until the estimate is within 0.002 decades.
    """
    from pranker.null.tilt import TiltEngine

    eng = TiltEngine(N, P, compressed=True)
    cz = eng._cz
    k0 = cz.cgf(0.0)[0]

    def est(t):
        phi = math.exp(t)
        k, k1 = cz.cgf(phi)
        v = k - k0 - phi * k1
        h = 1e-4
        k2 = (cz.cgf(phi * (1 + h))[1] - cz.cgf(phi * (1 - h))[1]) / (2 * phi * h)
        if k2 > 0.0:
            v -= math.log(max(1.0, phi * math.sqrt(2 * math.pi * k2)))
        return v / math.log(10), k1 / P

    grid = np.linspace(math.log(1e-6 / eng.sd_s), math.log(1e7), 41)
    vals = [est(t) for t in grid]
    out = {}
    for target in targets:
        hit = [i for i in range(1, len(grid)) if vals[i][0] <= target < vals[i - 1][0]]
        if not hit:
            out[target] = None
            continue
        a, b = grid[hit[0] - 1], grid[hit[0]]
        lp, ap = vals[hit[0]]
        for _ in range(60):
            if abs(lp - target) < 0.002 or b - a < 1e-12:
                break
            m = 0.5 * (a + b)
            lp, ap = est(m)
            if lp > target:
                a = m
            else:
                b = m
        ok = eng.mean_s / P < ap < MAX_AP and abs(lp - target) < 0.1
        out[target] = (ap, lp) if ok else None
    return out


def binormal_ap(delta: float, prevalence: float) -> float:
    """Expected AP (N large) of N(delta, 1) positives among N(0, 1) negatives."""
    from scipy.special import log_ndtr

    t = np.linspace(delta - 12.0, delta + 12.0, 40001)
    ls1 = log_ndtr(delta - t)  # log P(positive score > t)
    ls0 = log_ndtr(-t)
    prec = 1.0 / (1.0 + (1.0 - prevalence) / prevalence * np.exp(ls0 - ls1))
    f1 = np.exp(-0.5 * (t - delta) ** 2) / math.sqrt(2 * math.pi)
    g = prec * f1
    return float(0.5 * np.sum((g[1:] + g[:-1]) * np.diff(t)))  # trapezoid rule


def shift_for_signal(N: int, P: int, factor: float) -> float:
    """The shift at which the binormal expected AP is ``factor`` times the null mean."""
    from pranker import null_params

    goal = factor * null_params(N, P).mean
    a, b = 0.0, 12.0
    for _ in range(60):
        m = 0.5 * (a + b)
        if binormal_ap(m, P / N) < goal:
            a = m
        else:
            b = m
    return 0.5 * (a + b)


def engine_tables(N: int, P: int) -> str:
    from pranker.null.tilt import TiltEngine

    eng = TiltEngine(N, P)
    if eng.compressed:
        return f"compressed, {eng._cz.n_knots} knots, {eng._cz.table_bytes() / 1e6:.1f} MB"
    return f"exact, {8 * P * (N - P + 1) / 1e6:.1f} MB"


# -- the child: one measured call in a fresh interpreter -------------------------------
def _status_mb(key: str) -> float:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return math.nan


def _ru_maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _reset_peak():
    """Reset VmHWM to the current RSS: ``(baseline MB, how the peak will be read)``."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        rss, hwm = _status_mb("VmRSS"), _status_mb("VmHWM")
        if hwm <= rss + 1.0:
            return rss, "VmHWM"
    except OSError:
        pass
    return _status_mb("VmRSS"), "ru_maxrss"


def _child(spec: dict) -> None:
    import pranker

    kind, N, P = spec["kind"], spec["N"], spec["P"]
    if kind == "pranker":  # the data belong to the baseline, not to pranker's memory
        rng = np.random.default_rng(spec.get("seed", 0))
        scores = rng.standard_normal(N)
        pos = rng.choice(N, size=P, replace=False)
        y = np.zeros(N, dtype=bool)
        y[pos] = True
        scores[pos] += spec["shift"]
        del pos
        observed = pranker.auprc_ap(scores, y)  # shown even if the case times out
    else:
        observed = spec["ap"]
    # warm-up: load (or compile) the kernels on tiny cases, exact tilt and compressed
    pranker.significance_from_ap(0.05, 5000, 10)
    pranker.significance_from_ap(0.001, 10**6, 20)
    wy = np.arange(1000) % 50 == 0
    pranker.pranker(np.linspace(0.0, 1.0, 1000) + wy, wy)
    gc.collect()
    base, src = _reset_peak()
    ru_base = _ru_maxrss_mb()
    print("READY " + json.dumps({"auprc": observed}), flush=True)
    wall0 = time.time()
    t0 = time.perf_counter()
    if kind == "pranker":
        res = pranker.pranker(scores, y)
    else:
        res = pranker.significance_from_ap(spec["ap"], N, P)
    secs = time.perf_counter() - t0
    wall1 = time.time()
    if src == "VmHWM":
        mem = _status_mb("VmHWM") - base
    else:
        mem = _ru_maxrss_mb() - (base if math.isfinite(base) else ru_base)
    out = {
        "secs": secs,
        "wall": [wall0, wall1],
        "mem_mb": mem,
        "mem_src": src,
        "auprc": res.auprc,
        "log10p": res.log10_pvalue,
        "rse": res.pvalue_rse,
        "method": res.method,
        "n_draws": res.n_draws,
    }
    if kind == "pranker":
        ts = []
        for _ in range(3):
            t0 = time.perf_counter()
            np.sort(scores, kind="stable")
            ts.append(time.perf_counter() - t0)
        out["sort_own"] = statistics.median(ts)
    print("RESULT " + json.dumps(out), flush=True)


def run_case(spec: dict, timeout: float) -> dict:
    """Run one case in a fresh interpreter; ``{"timeout": True, ...}`` past the limit."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)]
    # unbuffered bytes: readline() takes exactly the READY line (one byte at a time), so
    # communicate() sees everything after it
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, bufsize=0)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], WARMUP_LIMIT)
        line = proc.stdout.readline().decode() if ready else ""
        if not line.startswith("READY"):
            proc.kill()
            proc.communicate()
            return {"error": "warm-up failed or timed out" if not line else line.strip()}
        t_ready = time.time()
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return {"timeout": True, "wall": [t_ready, time.time()], **json.loads(line[6:])}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for line in reversed(out.decode().splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {"error": f"exit code {proc.returncode}"}


# -- the reference ---------------------------------------------------------------
class Reference:
    """numpy.sort(kind="stable") of SORT_N standard normal float64: median of ``repeats`` sorts."""

    def __init__(self, repeats: int):
        self.x = np.random.default_rng(12345).standard_normal(SORT_N)
        self.repeats = repeats
        self.times: list = []  # (wall midpoint, median seconds)
        np.sort(self.x, kind="stable")  # first touch of the output pages

    def measure(self) -> float:
        ts = []
        w0 = time.time()
        for _ in range(self.repeats):
            t0 = time.perf_counter()
            np.sort(self.x, kind="stable")
            ts.append(time.perf_counter() - t0)
        med = statistics.median(ts)
        self.times.append((0.5 * (w0 + time.time()), med))
        return med

    def closest(self, wall) -> float:
        mid = 0.5 * (wall[0] + wall[1])
        return min(self.times, key=lambda r: abs(r[0] - mid))[1]


# -- the case list -------------------------------------------------------------------
def _e(n: int) -> str:
    """10**5 -> '1e5', 300 -> '300', 3 * 10**6 -> '3e6'."""
    if n < 1000:
        return str(n)
    k = int(math.floor(math.log10(n)))
    m = n / 10**k
    return f"{m:g}e{k}" if m != 1 else f"1e{k}"


def _parse_pair(text: str):
    n, p = text.split(",")
    return int(float(n)), int(float(p))


def build_cases(sets, only, targets, signal):
    raw = []
    if "quick" in sets:
        raw.append(("single", 10**5, 100, -3.0))
        raw.append(("pranker", 10**6, 100, None))
    if "single" in sets:
        raw += [("single", N, P, t) for N, P in SINGLE_SHAPES for t in targets]
    if "pranker" in sets:
        raw += [("pranker", N, P, None) for N, P in PRANKER_SHAPES]
    if "large" in sets:
        raw += [("single", N, P, t) for N, P in LARGE_SHAPES for t in targets]
    if "newcomer" in sets:
        raw += [("pranker", 5000, 500, shift) for shift in NEWCOMER_SHIFTS]
    if only:
        raw = [c for c in raw if (c[1], c[2]) in only]
    cases, skipped, seen = [], [], set()
    found_for: dict = {}  # (N, P) -> {target: (ap, est) or None}
    for kind, N, P, t in raw:
        if (kind, N, P, t) in seen:
            continue
        seen.add((kind, N, P, t))
        spec = {"kind": kind, "N": N, "P": P}
        if kind == "single":
            if (N, P) not in found_for:
                ts = sorted({c[3] for c in raw if c[:3] == ("single", N, P)})
                found_for[N, P] = ap_for_targets(N, P, ts)
            found = found_for[N, P][t]
            if found is None:
                skipped.append(f"single N={_e(N)} P={_e(P)} p~1e{t:.0f}")
                continue
            spec["ap"], spec["est_log10p"] = found
            spec["target"] = t
        elif t is not None:  # a newcomer's ranking: the shift is given
            spec["shift"] = t
            spec["seed"] = 1
        else:
            spec["shift"] = shift_for_signal(N, P, signal)
            spec["seed"] = 0
        spec["tables"] = engine_tables(N, P)
        cases.append(spec)
    return cases, skipped


# -- the table ---------------------------------------------------------------------
HEADER = [
    "case",
    "N",
    "P",
    "p target",
    "AP",
    "log10 p",
    "rse",
    "method",
    "n_draws",
    "var / draw",
    "time (s)",
    "sort 1e7 (s)",
    "time / sort 1e7",
    "time / sort(scores)",
    "mem above base (MB)",
    "engine tables",
]


def _fmt_row(spec, res, ref, timeout):
    kind, N, P = spec["kind"], spec["N"], spec["P"]
    target = f"1e{spec['target']:.0f}" if kind == "single" else "-"
    ap = res.get("auprc", spec.get("ap"))
    name = f"newcomer, shift {spec['shift']:g}" if spec.get("seed") == 1 else kind
    cells = [name, _e(N), _e(P), target]
    if res.get("error"):
        return (
            cells
            + [f"{ap:.6g}" if ap else "-", "error: " + res["error"]]
            + ["-"] * 9
            + [spec["tables"]]
        )
    if res.get("timeout"):
        return cells + [
            f"{ap:.6g}" if ap else "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            f"> {timeout:g}",
            f"{ref:.3f}",
            f"> {timeout / ref:.1f}",
            "-",
            "-",
            spec["tables"],
        ]
    mem = f"{res['mem_mb']:.0f}" + (" (ru_maxrss)" if res["mem_src"] != "VmHWM" else "")
    own = f"{res['secs'] / res['sort_own']:.2f}" if "sort_own" in res else "-"
    rse = res["rse"]
    return cells + [
        f"{res['auprc']:.6g}",
        f"{res['log10p']:.2f}",
        f"{rse:.3f}" if rse is not None else "-",
        res["method"],
        str(res["n_draws"]) if res["n_draws"] is not None else "-",
        f"{rse * rse * res['n_draws']:.3g}" if rse is not None and res["n_draws"] else "-",
        f"{res['secs']:.3f}",
        f"{ref:.3f}",
        f"{res['secs'] / ref:.2f}",
        own,
        mem,
        "none (saddlepoint passes)" if res["method"] == "saddlepoint" else spec["tables"],
    ]


def _markdown(rows) -> str:
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]

    def line(r):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"

    out = [line(HEADER), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(out + [line(r) for r in rows])


def measure(cases, timeout: float, repeats: int, log=print):
    """Reference, case, reference, case, ...: ``[(spec, result, reference seconds)]``."""
    ref = Reference(repeats)
    ref.measure()
    done = []
    for spec in cases:
        log(f"  running: {_label(spec)}")
        res = run_case({k: v for k, v in spec.items() if k != "tables"}, timeout)
        ref.measure()
        wall = res.get("wall") or [time.time(), time.time()]
        done.append((spec, res, ref.closest(wall)))
    return done, ref


def _label(spec) -> str:
    s = f"{spec['kind']} N={_e(spec['N'])} P={_e(spec['P'])}"
    if spec["kind"] == "single":
        s += f" p~1e{spec['target']:.0f}"
    elif spec.get("seed") == 1:
        s += f" shift {spec['shift']:g}"
    return s


def rows(quick: bool):
    """Rows for ``benchmarks/run.py``: the quick set (the full set: run this script)."""
    cases, _ = build_cases({"quick"}, set(), TARGETS, 3.0)
    done, _ = measure(cases, 600.0, 3, log=lambda *a: None)
    for spec, res, ref in done:
        if "secs" not in res:
            yield (f"tail: {_label(spec)}", str(res)[:60], "-", None)
            continue
        yield (
            f"tail: {_label(spec)} (got 1e{res['log10p']:.1f})",
            f"{res['secs'] / ref:.2f}x sort(1e7); +{res['mem_mb']:.0f} MB",
            "-",
            None,
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--cases",
        default="bars",
        choices=["quick", "single", "pranker", "newcomer", "large", "bars", "all"],
        help="quick: two small cases; single / pranker / newcomer: one kind; large: single "
        "p-values at N = 1e6, P = 1e4; bars: single + pranker + newcomer; all: bars + quick "
        "+ large",
    )
    ap.add_argument("--quick", action="store_true", help="same as --cases quick")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="N,P",
        help="only these (N, P), e.g. 1e7,1e3 (repeatable)",
    )
    ap.add_argument(
        "--targets",
        default=",".join(f"{t:g}" for t in TARGETS),
        help="log10 p targets of the single cases (default %(default)s)",
    )
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per case (%(default)s)")
    ap.add_argument(
        "--sort-repeats", type=int, default=None, help="sorts per reference (5; 3 with --quick)"
    )
    ap.add_argument(
        "--signal",
        type=float,
        default=3.0,
        help="pranker cases: expected AP / null mean (default %(default)s)",
    )
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        _child(json.loads(args.child))
        return 0
    name = "quick" if args.quick else args.cases
    sets = {
        "quick": {"quick"},
        "single": {"single"},
        "pranker": {"pranker"},
        "newcomer": {"newcomer"},
        "large": {"large"},
        "bars": {"single", "pranker", "newcomer"},
        "all": {"quick", "single", "pranker", "newcomer", "large"},
    }[name]
    repeats = args.sort_repeats or (3 if name == "quick" else 5)
    only = {_parse_pair(s) for s in args.only}
    targets = [float(t) for t in args.targets.split(",")]
    print(f"  choosing inputs ({name}) ...", file=sys.stderr, flush=True)
    cases, skipped = build_cases(sets, only, targets, args.signal)
    t0 = time.time()
    done, ref = measure(
        cases, args.timeout, repeats, log=lambda m: print(m, file=sys.stderr, flush=True)
    )
    import pranker

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import cpu_model

    print(
        f"# Tail p-values vs numpy.sort(1e7 float64, kind='stable'): pranker "
        f"{pranker.__version__}, numpy {np.__version__}, CPU {cpu_model()}, "
        f"{os.cpu_count()} CPUs, --cases {name}, "
        f"--timeout {args.timeout:g} s\n"
    )
    print(_markdown([_fmt_row(spec, res, r, args.timeout) for spec, res, r in done]))
    sorts = [t for _, t in ref.times]
    print(
        f"\nReference: numpy.sort(kind='stable') of 1e7 standard normal float64, median of "
        f"{repeats}, "
        f"re-timed {len(sorts)} times: {min(sorts):.3f}-{max(sorts):.3f} s "
        f"(median {statistics.median(sorts):.3f} s). Total {time.time() - t0:.0f} s."
    )
    est = [f"{_label(s)}: est 1e{s['est_log10p']:.2f}" for s, _, _ in done if s["kind"] == "single"]
    if est:
        print("AP chosen from the compressed CGF (estimated p): " + "; ".join(est) + ".")
    shifts = [f"{_label(s)}: shift {s['shift']:.3f}" for s, _, _ in done if s["kind"] == "pranker"]
    if shifts:
        print(f"pranker cases (signal {args.signal:g} x null mean): " + "; ".join(shifts) + ".")
    if skipped:
        print("Skipped (target not reachable): " + "; ".join(skipped) + ".")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
