"""Calibration study: how far each p-value of pranker is from the truth, deep into the tail.

Run from the repository root:

    python benchmarks/calibration.py            # the full study (~15 min, shared 2 cores)
    python benchmarks/calibration.py --quick    # a smoke run of a few cells (< 1 min)
    python benchmarks/calibration.py --refit-betas  # only the beta columns, from the package

The beta and three-moment beta columns are the package's own p-values
(``method="beta"`` and ``"skewbeta"``, in log space and floored at 1/C(N, P)),
each checked against mpmath's incomplete beta at 30 digits.

It writes ``docs/calibration_table.md`` (``--out``); ``docs/calibration.md``
quotes its numbers. Everything is seeded, so a rerun reproduces every number
except the timings.

What is measured
----------------
For every N in {20, 50, 100, 1e3, 1e4, 1e5} and P in {1, 2, 3, 5, 10, 30, 100,
1000} with P < N:

1. **The tail.** AP values whose true p-value is about 0.5, 0.1, 1e-2, 1e-3,
   1e-5, 1e-10, 1e-20, 1e-50, 1e-100, 1e-200, 1e-300, 1e-500, 1e-1000 and
   1e-2000, as far as the support reaches (p >= 10 / C(N, P)); for P = 1000,
   where every tilted draw costs O(P log N), only 0.5, 0.1, 1e-2, 1e-3, 1e-10
   and 1e-1000 (N = 1e4) or 1e-2000 (N = 1e5). The AP for a
   depth is read off the truth where one exists (quantiles of the enumerated
   distribution, or of the Monte Carlo sample down to 1e-3) and otherwise
   from the exact cumulant generating function of the tilt engine (the
   Chernoff exponent ``phi K'(phi) - K(phi)`` inverted on a scan of ``phi``),
   so the realised p-value is near, not at, the nominal depth.

   The reference p-value of a row is, in this order: exact enumeration
   (``exact_null_distribution``, C(N, P) <= 2e7); the exact tail count
   (``exact_pvalue``, when it finishes within 2e7 search steps, which it does
   in the far tail for small P); plain Monte Carlo with ``--draws`` (1e6)
   seeded draws where p >= 1e-3; otherwise the tilt estimate itself (no
   independent truth: the beta and saddlepoint errors are then measured
   against it, whose own error is ~0.01 in log10).

   Reported: log10 of each approximation divided by the reference (signed:
   negative means the method claims more significance than there is), the
   tilt engine's relative error against a true reference and its z-score in
   units of its reported standard error, its reported rse, draws and cost
   (seconds for one cold p-value: a fresh engine, as for a single call of
   ``significance_from_ap``).

2. **Type-I error.** For every cell and alpha in {0.05, 0.01}, the actual
   ``P_true(p_method <= alpha)`` of beta, skewbeta, saddlepoint, tilt and
   exact, the truth being the enumerated distribution or the Monte Carlo
   sample. beta and skewbeta are continuous, so their rejection region is
   ``AP >= ppf(1 - alpha)``; saddlepoint and tilt are evaluated on the
   support of the truth and their threshold found by bisection (both are
   monotone in AP up to the tilt's 2 % noise). exact is reported where the
   truth is enumerated. "auto" is exact when C(N, P) <= 1e6 (or P = 1), tilt
   otherwise.

3. **The engine against enumeration, many seeds.** For (N, P) = (40, 5),
   (60, 4), (200, 3), (24, 12) every placement's AP is enumerated here with
   numpy (independently of the package); for (1000, 5) and (10000, 10) the
   exact tail count gives the truth in the deep tail. At thresholds spread
   over the whole tail the tilt p-value is computed with ``--seeds`` (20) seeds:
   z-scores ``(p_hat - p) / (rse p_hat)`` and the coverage of the 95 %
   ``pvalue_interval``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path

import mpmath
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pranker  # noqa: E402
from pranker import (  # noqa: E402
    ExactBudgetExceeded,
    SaddlepointNull,
    TiltNull,
    auto_method,
    beta_fit,
    exact_null_distribution,
    exact_pvalue,
    null_ap_samples,
    null_params,
    skew_beta_fit,
)
from pranker.null import tilt as _dists  # noqa: E402
from pranker.null.tilt import TiltEngine  # noqa: E402

GRID_N = [20, 50, 100, 1000, 10**4, 10**5]
GRID_P = [1, 2, 3, 5, 10, 30, 100, 1000]
DEPTHS = [-0.3, -1, -2, -3, -5, -10, -20, -50, -100, -200, -300, -500, -1000, -2000]
ENUM_LIMIT = 20_000_000
COUNT_BUDGET = 20_000_000
REL_TOL = 1e-12
LN10 = math.log(10.0)
ENUM_CELLS = [(40, 5), (60, 4), (200, 3), (24, 12)]
COUNT_CELLS = [(1000, 5), (10_000, 10)]

# P = 1000: every tilted draw costs O(P log N), and between p ~ 1e-3 and the far tail
# the engine needs up to its cap of ~1e6 draws (minutes per p-value), so these cells
# get fewer depths
DEPTHS_LARGE_P = {10**4: [-0.3, -1, -2, -3, -10, -1000], 10**5: [-0.3, -1, -2, -3, -10, -2000]}
QUICK_CELLS = [(20, 3), (50, 5), (1000, 1), (1000, 10), (10_000, 30)]
QUICK_DEPTHS = [-0.3, -2, -3, -10, -50]


def log10_comb(n, p):
    return (math.lgamma(n + 1.0) - math.lgamma(p + 1.0) - math.lgamma(n - p + 1.0)) / LN10


# --------------------------------------------------------------------------- betas in log space
def log10_beta_upper(a, b, z):
    """log10 of the regularised upper incomplete beta 1 - I_z(a, b), computed as I_{1-z}(b, a)
    in 30-digit arithmetic (mpmath): the independent check of the package's log-space tails."""
    if z <= 0.0:
        return 0.0
    if z >= 1.0:
        return -math.inf
    with mpmath.workdps(30):
        v = mpmath.betainc(b, a, 0, 1 - mpmath.mpf(z), regularized=True)
        return float(mpmath.log10(v)) if v > 0 else -math.inf


def beta_log10(fit, ap):
    """log10 p of the two-moment beta of the R package, as the package reports it
    (``method="beta"``: in log space, floored at 1/C(N, P))."""
    return float(fit.log10_sf(ap))


def skew_log10(fit, ap):
    """log10 p of the three-moment beta, as the package reports it (``method="skewbeta"``)."""
    return float(fit.log10_sf(ap))


def mpmath_log10(fit, ap, lc):
    """The same tail from mpmath, with the floor -log10 C(N, P) applied here (a cross-check)."""
    if fit.degenerate or getattr(fit, "two_point", False):
        return float(fit.log10_sf(ap))
    scale = getattr(fit, "scale", 1.0 - fit.lower)
    return max(log10_beta_upper(fit.alpha, fit.beta, (ap - fit.lower) / scale), -lc)


# --------------------------------------------------------------------------- truths
class Truth:
    """The true null of one cell: enumerated distribution or a Monte Carlo sample."""

    def __init__(self, N, P, draws, seed):
        self.N, self.P = N, P
        if math.comb(N, P) <= ENUM_LIMIT:
            d = exact_null_distribution(N, P)
            self.kind = "enum"
            self.values = d.values
            tail = np.concatenate([np.cumsum(d.counts[::-1])[::-1], [0]]).astype(np.float64)
            self.tail = tail / float(d.total)  # tail[i] = P(AP >= values[i])
            self.m = None
        else:
            s = np.sort(null_ap_samples(N, P, draws, seed=seed))
            v, first = np.unique(s, return_index=True)
            self.kind = "MC"
            self.values = v
            self.tail = np.concatenate([(draws - first) / draws, [0.0]])
            self.m = draws

    def sf(self, ap):
        i = int(np.searchsorted(self.values, ap * (1.0 - REL_TOL), side="left"))
        return float(self.tail[i])

    def ap_at(self, q):
        """The smallest support value whose upper tail is <= q (None if none)."""
        i = int(np.searchsorted(-self.tail[:-1], -q, side="left"))
        return float(self.values[i]) if i < self.values.size else None


# --------------------------------------------------------------------------- choosing APs
def chernoff_scan(eng, n_points):
    """(phi, log10 Chernoff bound) on a geometric scan of phi * sd_0 in [0.02, 300]."""
    out = []
    for psi in np.geomspace(0.02, 300.0, n_points):
        phi = psi / eng.sd_s
        k, k1, _ = eng.cgf(phi)
        out.append((phi, -(phi * k1 - k) / LN10))
    return np.array(out)


def ap_for_depth(eng, scan, depth, iters=8):
    """AP whose Chernoff bound is about 10**depth, or None outside the scan.

    Regula falsi (Illinois) in log phi between the bracketing scan points:
    the Chernoff exponent can jump by tens of decades within one scan step
    where the tilted law switches between few and many positives on top.
    """
    lp = scan[:, 1]
    if depth < lp[-1] or depth > lp[0]:
        return None
    j = int(np.searchsorted(-lp, -depth))  # lp[j-1] >= depth > lp[j]
    j = min(max(j, 1), len(lp) - 1)
    xa, fa = math.log(scan[j - 1, 0]), lp[j - 1] - depth
    xb, fb = math.log(scan[j, 0]), lp[j] - depth
    x = xa
    side = 0
    for _ in range(iters):
        x = xb - fb * (xb - xa) / (fb - fa) if fb != fa else 0.5 * (xa + xb)
        phi = math.exp(x)
        k, k1, _ = eng.cgf(phi)
        f = -(phi * k1 - k) / LN10 - depth
        if abs(f) < 0.05 * max(1.0, abs(depth)) ** 0.5:
            break
        if f * fb > 0:
            xb, fb = x, f
            if side == -1:
                fa /= 2.0
            side = -1
        else:
            xa, fa = x, f
            if side == 1:
                fb /= 2.0
            side = 1
    return eng.cgf(math.exp(x))[1] / eng.P


def second_largest_ap(P):
    return (P - 1.0 / (P + 1.0)) / P


# --------------------------------------------------------------------------- the tilt, timed cold
def tilt_cold(N, P, ap):
    """The default tilt p-value of one AP from a fresh engine, with its time and the tilt u."""
    _dists._ENGINES.clear()  # a cold call: no shared recursions or draws
    t0 = time.perf_counter()
    pv = TiltNull(N, P).pvalue(ap)
    dt = time.perf_counter() - t0
    u = math.nan
    if pv.method == "tilt":
        eng = _dists.tilt_engine(N, P)
        s = ap * P
        j = eng.grid_index(s, 1)
        phi = eng.grid_phi(j)
        _, _, k2 = eng.cgf(phi)
        u = phi * math.sqrt(k2)
    return pv, dt, u


# --------------------------------------------------------------------------- part 1: the tail
def tail_rows(N, P, truth, depths, log):
    lc = log10_comb(N, P)
    fit = beta_fit(*null_params(N, P), N, P)
    sk = skew_beta_fit(N, P)
    sp = SaddlepointNull(N, P)
    eng = TiltEngine(N, P) if P > 1 else None
    scan = None
    rows = []
    seen = set()
    for depth in depths:
        if depth < -lc + 1.0:
            break
        q = 10.0**depth
        ap = None
        if truth.kind == "enum" or (truth.kind == "MC" and depth >= -3):
            ap = truth.ap_at(q)
        elif eng is not None:
            if scan is None:
                scan = chernoff_scan(eng, 25)
            ap = ap_for_depth(eng, scan, depth)
        if ap is None or ap in seen or ap >= second_largest_ap(P) * (1 - 1e-9):
            continue
        seen.add(ap)
        t_row = time.perf_counter()
        # reference
        ref_src, ref_lp, ref_rse = None, None, None
        if truth.kind == "enum":
            ref_src, ref_lp, ref_rse = "enum", math.log10(truth.sf(ap)), 0.0
        else:
            if P <= 10:
                try:
                    _, c, tot = exact_pvalue(ap, N, P, max_nodes=COUNT_BUDGET, return_count=True)
                    if c > 0:
                        ref_src, ref_lp, ref_rse = "count", math.log10(c) - math.log10(tot), 0.0
                except ExactBudgetExceeded:
                    pass
            if ref_src is None:
                p_mc = truth.sf(ap)
                if p_mc >= 1e-3:
                    ref_src, ref_lp = "MC", math.log10(p_mc)
                    ref_rse = math.sqrt((1 - p_mc) / (p_mc * truth.m))
        pv, dt, u = tilt_cold(N, P, ap)
        lp_tilt = pv.log10_pvalue
        if ref_src is None:
            if math.isfinite(lp_tilt):
                ref_src, ref_lp = "tilt", lp_tilt
            else:  # the engine found no draw in the tail: nothing to compare with
                ref_src, ref_lp = "none", math.nan
        lb = beta_log10(fit, ap)
        ls = skew_log10(sk, ap)
        try:
            lsp = sp.pvalue(ap).log10_pvalue
        except ValueError as exc:  # reported: the saddlepoint raises in some deep tails
            print(f"  saddlepoint raised {exc!r} at N={N} P={P} AP={ap!r}", file=log, flush=True)
            lsp = math.nan
        rel = z = math.nan
        if ref_src not in ("tilt", "none") and pv.pvalue_rse is not None and pv.method == "tilt":
            r = 10.0 ** (lp_tilt - ref_lp)
            rel = r - 1.0
            se = math.hypot(pv.pvalue_rse * r, ref_rse) if r > 0 else math.inf  # relative to p_true
            z = (r - 1.0) / se if 0 < se < math.inf else math.nan
        row = dict(
            N=N,
            P=P,
            depth=depth,
            ap=ap,
            ref=ref_src,
            ref_lp=ref_lp,
            beta=lb - ref_lp,
            skew=ls - ref_lp,
            sp=lsp - ref_lp,
            tilt_lp=lp_tilt,
            tilt_rel=rel,
            tilt_z=z,
            rse=pv.pvalue_rse,
            draws=pv.n_draws,
            secs=dt,
            u=u,
            method=pv.method,
        )
        rows.append(row)
        print(
            f"  N={N} P={P} depth {depth:g}: AP {ap:.6g} ref {ref_src} {ref_lp:.3f} "
            f"beta {row['beta']:+.2f} skew {row['skew']:+.2f} sp {row['sp']:+.3f} "
            f"tilt rel {rel:+.4f} rse {pv.pvalue_rse} n {pv.n_draws} {dt:.2f}s "
            f"[{time.perf_counter() - t_row:.1f}s]",
            file=log,
            flush=True,
        )
    rows.sort(key=lambda r: r["ap"])
    return rows


# --------------------------------------------------------------------------- part 2: type-I error
def first_true(pred, n):
    """Smallest i in [0, n) with pred(i) true, for a monotone predicate (n if none)."""
    lo, hi = -1, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


def rejection_start(truth, reject, alpha, rel=0.005):
    """Index of the first support value that ``reject`` rejects, searched in tail level.

    Gallops from the true alpha-quantile by factors of 2 in the true tail
    level, then bisects in log level until the bracket is within ``rel``
    (relative) or adjacent; ``reject`` is assumed monotone in AP.
    """
    tail = truth.tail
    n = truth.values.size

    def idx(q):  # first index whose true tail is <= q
        return min(int(np.searchsorted(-tail[:-1], -q, side="left")), n - 1)

    q = alpha
    if reject(idx(q)):
        q_rej = q
        q_acc = None
        while q_acc is None:
            q2 = min(2.0 * q_rej, 1.0)
            if idx(q2) == 0 or q_rej >= 1.0:
                if reject(0):
                    return 0
                q_acc = q2
            elif reject(idx(q2)):
                q_rej = q2
            else:
                q_acc = q2
    else:
        q_acc = q
        q_rej = None
        qmin = float(tail[n - 1])
        while q_rej is None:
            q2 = max(0.5 * q_acc, qmin)
            if reject(idx(q2)):
                q_rej = q2
            elif q2 <= qmin:
                return n  # nothing rejected
            else:
                q_acc = q2
    while True:
        i_acc, i_rej = idx(q_acc), idx(q_rej)
        if i_rej - i_acc <= 1 or q_acc / q_rej < 1.0 + rel:
            return i_rej
        qm = math.sqrt(q_acc * q_rej)
        i_m = idx(qm)
        if i_m in (i_acc, i_rej):
            return _bisect_index(reject, i_acc, i_rej)
        if reject(i_m):
            q_rej = qm
        else:
            q_acc = qm


def _bisect_index(reject, lo, hi):
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reject(mid):
            hi = mid
        else:
            lo = mid
    return hi


def type1(N, P, truth, alphas):
    out = {}
    v = truth.values
    fit = beta_fit(*null_params(N, P), N, P)
    sk = skew_beta_fit(N, P)
    sp = SaddlepointNull(N, P)
    tn = TiltNull(N, P)
    for alpha in alphas:
        res = {}
        res["beta"] = truth.sf(float(fit.ppf(1 - alpha))) if not fit.degenerate else math.nan
        from scipy.special import betaincinv

        x_sk = sk.lower + (1 - sk.lower) * float(betaincinv(sk.alpha, sk.beta, 1 - alpha))
        res["skewbeta"] = truth.sf(x_sk)
        for name, null in (("saddlepoint", sp), ("tilt", tn)):
            i = rejection_start(
                truth, lambda k, nl=null, a=alpha: nl.pvalue(float(v[k])).pvalue <= a, alpha
            )
            res[name] = float(truth.tail[i])
        if truth.kind == "enum":
            res["exact"] = float(
                truth.tail[first_true(lambda k, a=alpha: truth.tail[k] <= a, v.size)]
            )
        else:
            res["exact"] = math.nan
        am = auto_method(N, P)
        res["auto"] = res["exact"] if am == "exact" else res["tilt"]
        res["auto_is"] = am
        out[alpha] = res
    return out


# --------------------------------------------------------------------------- part 3: seeds
def enum_sums(N, P):
    """AP of every placement, enumerated with numpy (independent of the package)."""
    k = np.arange(1, P + 1, dtype=np.float64)
    out = []
    it = itertools.combinations(range(1, N + 1), P)
    while True:
        block = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(it, 500_000)), dtype=np.float64
        )
        if block.size == 0:
            break
        out.append((k / block.reshape(-1, P)).sum(axis=1) / P)
    return np.sort(np.concatenate(out))


def seed_study(cells_enum, cells_count, n_seeds, n_levels, log):
    rows = []
    for N, P in list(cells_enum) + list(cells_count):
        t0 = time.perf_counter()
        lc = log10_comb(N, P)
        thresholds = []
        if (N, P) in cells_enum:
            ap_all = enum_sums(N, P)
            n = ap_all.size
            for q in np.geomspace(0.5, 10.0 / n, n_levels):
                i = n - int(math.ceil(q * n))
                a = float(ap_all[max(i, 0)])
                p = np.count_nonzero(ap_all >= a * (1 - REL_TOL)) / n
                thresholds.append((a, math.log10(p)))
            src = "numpy enumeration"
        else:
            eng = TiltEngine(N, P)
            scan = chernoff_scan(eng, 25)
            for d in np.linspace(-3.0, -lc + 2.0, n_levels):
                a = ap_for_depth(eng, scan, float(d))
                if a is None:
                    continue
                try:
                    _, c, tot = exact_pvalue(a, N, P, max_nodes=COUNT_BUDGET, return_count=True)
                except ExactBudgetExceeded:
                    continue
                thresholds.append((a, math.log10(c) - math.log10(tot)))
            src = "exact tail count"
        zs, cover, rses, draws = [], [], [], []
        for seed in range(n_seeds):
            tn = TiltNull(N, P, seed=1000 + seed)
            for a, lp in thresholds:
                pv = tn.pvalue(a)
                if pv.method != "tilt":
                    continue
                r = 10.0 ** (pv.log10_pvalue - lp)
                zs.append((1.0 - 1.0 / r) / pv.pvalue_rse)
                lo, hi = pv.log10_pvalue_interval
                cover.append(lo <= lp <= hi)
                rses.append(pv.pvalue_rse)
                draws.append(pv.n_draws)
            _dists._ENGINES.clear()
        zs = np.array(zs)
        row = dict(
            N=N,
            P=P,
            src=src,
            n_thr=len(thresholds),
            n=zs.size,
            lp_min=min(lp for _, lp in thresholds),
            lp_max=max(lp for _, lp in thresholds),
            z_mean=float(zs.mean()),
            z_sd=float(zs.std(ddof=1)),
            z_maxabs=float(np.abs(zs).max()),
            frac_z3=float(np.mean(np.abs(zs) > 3)),
            cover=float(np.mean(cover)),
            rse_med=float(np.median(rses)),
            draws_med=float(np.median(draws)),
        )
        rows.append(row)
        print(f"  seeds N={N} P={P}: {row} [{time.perf_counter() - t0:.1f}s]", file=log, flush=True)
    return rows


# --------------------------------------------------------------------------- tables
def fmt(x, spec):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—" if x is None or math.isnan(x) else ("−∞" if x < 0 else "∞")
    return format(x, spec).replace("-", "−")


def table_tail(rows):
    out = [
        "| N | P | AP | reference | log10 p | beta | 3-mom beta | saddlepoint "
        "| tilt rel. err | tilt z | tilt rse | draws | s |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        r = dict(r)
        if not math.isfinite(r["ref_lp"]):  # no truth and the tilt returned p = 0
            r.update(
                ref="none (tilt p = 0)", ref_lp=math.nan, beta=math.nan, skew=math.nan, sp=math.nan
            )
        out.append(
            f"| {r['N']:g} | {r['P']} | {r['ap']:.6g} | {r['ref']} | {fmt(r['ref_lp'], '.2f')} "
            f"| {fmt(r['beta'], '+.2f')} | {fmt(r['skew'], '+.2f')} | {fmt(r['sp'], '+.3f')} "
            f"| {fmt(r['tilt_rel'], '+.3f')} | {fmt(r['tilt_z'], '+.1f')} "
            f"| {fmt(r['rse'], '.3f') if r['method'] == 'tilt' else r['method']} "
            f"| {r['draws'] if r['draws'] else '—'} | {r['secs']:.2f} |"
        )
    return "\n".join(out)


def table_summary(rows):
    """Per cell: the worst log10 error of each approximation and where."""
    out = [
        "| N | P | rows | deepest log10 p | beta: worst log10 error (at log10 p) "
        "| 3-mom beta: worst (at) | saddlepoint: worst (at) | tilt: max \\|z\\| vs truth "
        "| tilt: p = 0 rows | tilt: max draws | tilt: max s |",
        "|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|",
    ]
    cells = sorted({(r["N"], r["P"]) for r in rows})
    for N, P in cells:
        rr = [r for r in rows if r["N"] == N and r["P"] == P]

        def worst(key, rr=rr):
            fin = [r for r in rr if math.isfinite(r[key]) and math.isfinite(r["ref_lp"])]
            if not fin:
                return "—"
            w = max(fin, key=lambda r: abs(r[key]))
            return f"{fmt(w[key], '+.2f')} ({fmt(w['ref_lp'], '.1f')})"

        zs = [abs(r["tilt_z"]) for r in rr if math.isfinite(r["tilt_z"])]
        fails = sum(1 for r in rr if r["method"] == "tilt" and not math.isfinite(r["tilt_lp"]))
        dr = [r["draws"] for r in rr if r["draws"]]
        out.append(
            f"| {N:g} | {P} | {len(rr)} "
            f"| {fmt(min((r['ref_lp'] for r in rr if math.isfinite(r['ref_lp'])), default=math.nan), '.1f')} "
            f"| {worst('beta')} | {worst('skew')} | {worst('sp')} "
            f"| {fmt(max(zs), '.1f') if zs else '—'} | {fails} | {max(dr) if dr else '—'} "
            f"| {max(r['secs'] for r in rr):.2f} |"
        )
    return "\n".join(out)


def table_type1(t1):
    meths = ["beta", "skewbeta", "saddlepoint", "tilt", "exact"]
    out = [
        "| N | P | truth | auto uses | "
        + " | ".join(f"{m} @.05" for m in meths)
        + " | "
        + " | ".join(f"{m} @.01" for m in meths)
        + " |",
        "|---:|---:|---|---|" + "---:|" * (2 * len(meths)),
    ]
    for (N, P, kind), res in t1:
        c05 = " | ".join(fmt(res[0.05][m], ".4f") for m in meths)
        c01 = " | ".join(fmt(res[0.01][m], ".4f") for m in meths)
        out.append(f"| {N:g} | {P} | {kind} | {res[0.05]['auto_is']} | {c05} | {c01} |")
    return "\n".join(out)


def table_seeds(rows, n_seeds):
    out = [
        "| N | P | truth | thresholds × seeds | log10 p range | mean z | sd z | max \\|z\\| "
        "| share \\|z\\| > 3 | 95 % interval coverage | median rse | median draws |",
        "|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['N']} | {r['P']} | {r['src']} | {r['n_thr']} × {n_seeds} = {r['n']} "
            f"| {fmt(r['lp_max'], '.1f')} … {fmt(r['lp_min'], '.1f')} | {fmt(r['z_mean'], '+.2f')} "
            f"| {r['z_sd']:.2f} | {r['z_maxabs']:.2f} | {r['frac_z3']:.3f} | {r['cover']:.3f} "
            f"| {r['rse_med']:.4f} | {r['draws_med']:.0f} |"
        )
    return "\n".join(out)


def table_cost(rows):
    """Tilt draws and seconds against the predicted draws 1.25 u / rtol^2."""
    out = [
        "| N | P | log10 p | u = φ·sd_φ at the grid point | predicted draws 1.25·u/rtol² "
        "| draws | rse | s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["method"] != "tilt" or not math.isfinite(r["u"]):
            continue
        if r["N"] < 1000 or r["P"] < 10:
            continue
        lp = r["ref_lp"] if math.isfinite(r["ref_lp"]) else r["tilt_lp"]
        if r["u"] > 0:
            u, pred = f"{r['u']:.2f}", f"{1.25 * r['u'] / 0.02**2:.0f}"
        else:
            u, pred = "0 (plain MC)", "—"
        out.append(
            f"| {r['N']:g} | {r['P']} | {fmt(lp, '.1f')} | {u} "
            f"| {pred} | {r['draws']} | {fmt(r['rse'], '.3f')} | {r['secs']:.2f} |"
        )
    return "\n".join(out)


# --------------------------------------------------------------------------- refit the betas
def _cell_number(cell):
    """A number as the tables print it (U+2212 minus, — for none, −∞)."""
    c = cell.strip().replace("−", "-")
    if c in ("—", ""):
        return math.nan
    if c in ("-∞", "∞"):
        return -math.inf if c.startswith("-") else math.inf
    return float(c)


def refit_betas(path, log, tol=0.02):
    """Recompute the beta and 3-moment beta columns of a written table from the package.

    Every row's AP (printed to 6 digits) and reference log10 p (2 decimals) are
    read back and both fits' log10 p-values computed as ``method="beta"`` and
    ``"skewbeta"`` report them. A cell is rewritten only when the package's value
    differs from the printed one by more than ``tol`` orders, more than the
    rounding of the printed AP and reference can explain; the worst-error
    columns of the summary follow. Each value is also checked against mpmath.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    fits, rows, changed, drift, check = {}, [], [], 0.0, 0.0
    changed_at: set = set()
    k = lines.index("## Every row") + 4
    while k < len(lines) and lines[k].startswith("| "):
        cells = lines[k].split("|")[1:-1]
        N, P = int(float(cells[0])), int(cells[1])
        ap, ref_lp = float(cells[2]), _cell_number(cells[4])
        if (N, P) not in fits:
            fits[N, P] = (beta_fit(*null_params(N, P), N, P), skew_beta_fit(N, P))
        row = dict(N=N, P=P, ref_lp=ref_lp)
        if math.isfinite(ref_lp):
            lib = {
                key: float(fit.log10_sf(ap))
                for key, fit in zip(("beta", "skew"), fits[N, P], strict=True)
            }
            for key, fit in zip(("beta", "skew"), fits[N, P], strict=True):
                check = max(check, abs(lib[key] - mpmath_log10(fit, ap, log10_comb(N, P))))
        for col, key in ((5, "beta"), (6, "skew")):
            old = row[key] = _cell_number(cells[col])
            if not math.isfinite(ref_lp):
                continue
            # against the printed beta error where it stands (it was computed with the
            # reference at full precision): the two fits differ by lib[key] - lib["beta"]
            new = (
                row["beta"] + lib[key] - lib["beta"]
                if key == "skew" and (N, P, ap, "beta") not in changed_at
                else lib[key] - ref_lp
            )
            if abs(new - old) > tol:
                cells[col] = f" {fmt(new, '+.2f')} "
                row[key] = new
                changed_at.add((N, P, ap, key))
                changed.append(f"N={N} P={P} AP {ap:g} {key}: {old:+.2f} -> {new:+.2f}")
            else:
                drift = max(drift, abs(new - old))
        lines[k] = "|" + "|".join(cells) + "|"
        rows.append(row)
        k += 1
    # the summary's worst errors, for the columns of the cells whose rows changed
    k = lines.index("## Worst error per cell, over the whole tail") + 4
    while k < len(lines) and lines[k].startswith("| "):
        cells = lines[k].split("|")[1:-1]
        N, P = int(float(cells[0])), int(cells[1])
        rr = [r for r in rows if (r["N"], r["P"]) == (N, P) and math.isfinite(r["ref_lp"])]
        for col, key in ((4, "beta"), (5, "skew")):
            if any(c[:2] == (N, P) and c[3] == key for c in changed_at):
                w = max((r for r in rr if math.isfinite(r[key])), key=lambda r: abs(r[key]))
                cells[col] = f" {fmt(w[key], '+.2f')} ({fmt(w['ref_lp'], '.1f')}) "
        lines[k] = "|" + "|".join(cells) + "|"
        k += 1
    note = (
        "<!-- the beta and 3-mom beta columns: recomputed from the package's fits "
        f"(pranker {pranker.__version__}) by `python benchmarks/calibration.py --refit-betas` -->"
    )
    lines = [ln for ln in lines if not ln.startswith("<!-- the beta and 3-mom beta columns")]
    lines.insert(1, note)
    path.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(changed), file=log)
    print(
        f"{len(changed)} cells rewritten; the others within {drift:.3f} orders of the printed "
        f"values; package vs mpmath: at most {check:.2e} orders apart",
        file=log,
    )


# --------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few cells (< 1 min)")
    ap.add_argument("--draws", type=int, default=None, help="Monte Carlo truth draws (1e6)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per threshold in part 3 (40)")
    ap.add_argument("--seed", type=int, default=20140915)
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--cache",
        default="/tmp/pranker_calibration_cache",
        help="directory of per-cell results, so an interrupted run resumes "
        "(delete it, or pass --cache '', to recompute)",
    )
    ap.add_argument(
        "--refit-betas",
        action="store_true",
        help="only recompute the beta and 3-moment beta columns of the written table "
        "(--out, default docs/calibration_table.md) from the package's fits",
    )
    args = ap.parse_args(argv)
    if args.refit_betas:
        refit_betas(
            Path(args.out) if args.out else ROOT / "docs" / "calibration_table.md", sys.stderr
        )
        return 0
    quick = args.quick
    draws = args.draws or (100_000 if quick else 1_000_000)
    n_seeds = args.seeds or (4 if quick else 20)
    out = (
        Path(args.out)
        if args.out
        else (
            Path("/tmp/calibration_table_quick.md")
            if quick
            else ROOT / "docs" / "calibration_table.md"
        )
    )
    cells = QUICK_CELLS if quick else [(N, P) for N in GRID_N for P in GRID_P if P < N]
    depths = QUICK_DEPTHS if quick else DEPTHS
    log = sys.stderr
    t_all = time.perf_counter()
    TiltEngine(20, 3).tail(2.0)  # compile the kernels outside the timings
    TiltNull(20, 3).pvalue(0.6)  # (and the path of the timed call itself)
    _dists._ENGINES.clear()
    SaddlepointNull(20, 3).pvalue(0.5)
    exact_pvalue(0.5, 30, 3)

    all_rows, t1 = [], []
    n_cached = 0
    cache = Path(args.cache) if args.cache and not quick else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    for N, P in cells:
        f = cache / f"cell_{N}_{P}_{draws}_{args.seed}.json" if cache is not None else None
        if f is not None and f.exists():
            d = json.loads(f.read_text())
            all_rows.extend(d["rows"])
            t1.append(((N, P, d["kind"]), {float(a): r for a, r in d["type1"].items()}))
            print(f"N={N} P={P}: from {f}", file=log, flush=True)
            n_cached += 1
            continue
        t0 = time.perf_counter()
        truth = Truth(N, P, draws, args.seed + 31 * N + P)
        cell_depths = DEPTHS_LARGE_P.get(N, depths) if (P >= 1000 and not quick) else depths
        try:
            rows = tail_rows(N, P, truth, cell_depths, log)
        except Exception as exc:  # keep the other cells; the log says what failed
            print(f"N={N} P={P}: tail rows failed: {exc!r}", file=log, flush=True)
            rows = []
        all_rows.extend(rows)
        t_tail = time.perf_counter() - t0
        res = type1(N, P, truth, (0.05, 0.01))
        kind = truth.kind if truth.kind == "enum" else f"MC {draws:.0e}"
        t1.append(((N, P, kind), res))
        if f is not None:
            f.write_text(json.dumps({"rows": rows, "kind": kind, "type1": res}))
        print(
            f"N={N} P={P}: tail {t_tail:.1f}s, type-I {time.perf_counter() - t0 - t_tail:.1f}s "
            f"{ {a: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()} for a, r in res.items()} }",
            file=log,
            flush=True,
        )
    t_cells = time.perf_counter() - t_all
    if quick:
        seeds = seed_study([(40, 5)], [], n_seeds, 6, log)
    else:
        f = cache / f"seeds_{n_seeds}.json" if cache is not None else None
        if f is not None and f.exists():
            seeds = json.loads(f.read_text())
        else:
            seeds = seed_study(ENUM_CELLS, COUNT_CELLS, n_seeds, 12, log)
            if f is not None:
                f.write_text(json.dumps(seeds))
    total = time.perf_counter() - t_all

    cmd = "python benchmarks/calibration.py" + (" --quick" if quick else "")
    text = [
        f"<!-- generated by `{cmd}` (--draws {draws}, --seeds {n_seeds}, --seed {args.seed}) "
        f"in {total:.0f} s"
        + (
            f" ({n_cached} of {len(cells)} cells and the seed study read from the cache of an "
            f"earlier run)"
            if n_cached
            else ""
        )
        + f"; pranker {pranker.__version__} -->",
        "",
        "# Calibration tables",
        "",
        "Generated by `benchmarks/calibration.py`; read [calibration.md](calibration.md) "
        "for what the columns mean and what they show. Errors are log10(p_method / p_reference):",
        "negative means the method claims more significance than there is.",
        "",
        "## Worst error per cell, over the whole tail",
        "",
        table_summary(all_rows),
        "",
        "## Type-I error: P_true(p_method <= alpha)",
        "",
        table_type1(t1),
        "",
        "## The tilt engine against enumeration and exact counts, over many seeds",
        "",
        table_seeds(seeds, n_seeds),
        "",
        "## Cost of the tilt engine (one cold p-value, rtol 0.02, N >= 1000 and P >= 10)",
        "",
        table_cost(all_rows),
        "",
        "## Every row",
        "",
        table_tail(all_rows),
        "",
        f"Cells {t_cells:.0f} s, seeds {total - t_cells:.0f} s.",
        "",
    ]
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(text))
    tmp.replace(out)
    print(f"wrote {out}; total {total:.0f} s", file=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
