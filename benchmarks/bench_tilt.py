"""Benchmark rows: the exact-tilt tail engine against numpy.sort of N*P float64."""

from __future__ import annotations

import math
import time

import numpy as np
from run import best_of


def _s_for(N, P, log10p):
    """A threshold whose upper tail is about 10**log10p (Lugannani-Rice on the exact CGF)."""
    from scipy.special import ndtr

    from pranker.null.tilt import TiltEngine

    e = TiltEngine(N, P)

    def lr(phi):
        k, k1, k2 = e.cgf(phi)
        w = math.sqrt(max(2.0 * (phi * k1 - k), 1e-30))
        u = phi * math.sqrt(k2)
        if w < 30.0:
            v = float(ndtr(-w)) + math.exp(-w * w / 2) / math.sqrt(2 * math.pi) * (1 / u - 1 / w)
            if v > 0.0:
                return math.log10(v), k1
        return (-w * w / 2 - 0.5 * math.log(2 * math.pi) - math.log(u)) / math.log(10), k1

    a, b = math.log(1e-3 / e.sd_s), math.log(1e3 / e.sd_s)
    k1 = e.mean_s
    for _ in range(30):
        t = 0.5 * (a + b)
        lp, k1 = lr(math.exp(t))
        if lp > log10p:
            a = t
        else:
            b = t
    return k1


class _Timed:
    """Wraps the kernels as the engine sees them, adding up their times."""

    def __init__(self):
        import pranker.null.tilt as mod

        self.mod = mod
        self.fwd, self.drw = mod.tilt_forward, mod.tilt_draws

    def __enter__(self):
        self.t = {"pass": 0.0, "store": 0.0, "draws": 0.0}
        self.n = {"pass": 0, "store": 0, "draws": 0}

        def fwd(*a):
            t0 = time.perf_counter()
            r = self.fwd(*a)
            key = "store" if a[5] else "pass"
            self.t[key] += time.perf_counter() - t0
            self.n[key] += 1
            return r

        def drw(*a):
            t0 = time.perf_counter()
            r = self.drw(*a)
            self.t["draws"] += time.perf_counter() - t0
            self.n["draws"] += a[5]
            return r

        self.mod.tilt_forward, self.mod.tilt_draws = fwd, drw
        return self

    def __exit__(self, *exc):
        self.mod.tilt_forward, self.mod.tilt_draws = self.fwd, self.drw


def _tail_time(N, P, s):
    from pranker.null.tilt import TiltEngine

    t0 = time.perf_counter()
    r = TiltEngine(N, P).tail(s)
    return time.perf_counter() - t0, r


def _sort_time(n):
    x = np.random.default_rng(0).random(n)
    return best_of(lambda: np.sort(x), 3)


def rows(quick: bool):
    from pranker.null.tilt import TiltEngine

    TiltEngine(1000, 10).tail(TiltEngine(1000, 10).mean_s + 1.0)  # compile
    shapes = [(10**4, 100), (2000, 500)] if quick else [(10**5, 100), (10**4, 1000)]
    for N, P in shapes:
        t_sort = _sort_time(N * P)
        for lp in (-3, -30, -300):
            s = _s_for(N, P, lp)
            with _Timed() as tm:
                t, r = _tail_time(N, P, s)
            ratio = t / t_sort
            yield (
                f"tilt tail N={N:.0e} P={P} p~1e{lp} (got 1e{r.log10_pvalue:.1f})",
                f"{ratio:.2f}x sort; {tm.n['pass']} passes {tm.t['pass'] / t_sort:.2f}x, "
                f"store {tm.t['store'] / t_sort:.2f}x, {tm.n['draws']} draws {tm.t['draws'] / t_sort:.2f}x",
                "<= 1.0x np.sort(N*P)",
                ratio <= 1.0,
            )
    # growth with N*P at a moderate tail (mean + 3 sd), both shapes of rows
    sizes = (10**5, 10**6) if quick else (10**5, 10**6, 10**7, 10**8)
    for NP in sizes:
        for P in (100, 1000):
            N = NP // P
            if N <= 2 * P:
                continue
            e = TiltEngine(N, P)
            s = e.mean_s + 3.0 * e.sd_s
            t_sort = _sort_time(NP)
            with _Timed() as tm:
                t, r = _tail_time(N, P, s)
            yield (
                f"tilt growth N*P={NP:.0e} P={P} (p=1e{r.log10_pvalue:.1f})",
                f"{t:.3f} s = {t / t_sort:.2f}x sort; pass {tm.t['pass'] / max(tm.n['pass'], 1) * 1e3:.1f} ms, "
                f"store {tm.t['store'] * 1e3:.0f} ms, draws {tm.t['draws'] / max(tm.n['draws'] * P, 1) * 1e9:.1f} ns/step",
                "-",
                None,
            )
