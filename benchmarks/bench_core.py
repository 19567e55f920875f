"""Core rows: auprc_ap vs numpy.sort and scikit-learn, null_params, pranker(), Monte Carlo."""

from __future__ import annotations

import time

import numpy as np

from pranker import auprc_ap, null_ap_samples, null_params, pranker


def _interleaved(fns: dict, rounds: int = 3) -> dict:
    """Best time of each function, measured in alternation so load hits all alike."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def rows(quick: bool):
    rng = np.random.default_rng(0)
    n = 10**6 if quick else 10**7
    s = rng.standard_normal(n)
    y = rng.random(n) < 0.01
    warm = np.arange(100) % 7 == 0
    auprc_ap(s[:100], warm)  # compile / load caches
    pranker(s[:100], warm)
    # the default method ("auto") uses the beta at P > 10,000 (full size, P = 1e5);
    # at the quick size (P = 1e4) it would run Monte Carlo, so ask for the beta there
    kw = {"method": "beta"} if quick else {}
    used = pranker(s, y, **kw).method
    t = _interleaved(
        {
            "sort": lambda: np.sort(s),
            "ap": lambda: auprc_ap(s, y),
            "pranker": lambda: pranker(s, y, **kw),
        },
        rounds=3 if quick else 5,
    )
    r = t["ap"] / t["sort"]
    yield (
        f"auprc_ap / numpy.sort, N={n:.0e}, 1% pos",
        f"{r:.2f}x ({t['ap']:.3f}s)",
        "<= 1.5x",
        r <= 1.5,
    )
    r = t["pranker"] / t["ap"]
    yield (f"pranker() / auprc_ap, same data (p by {used})", f"{r:.2f}x", "<= 1.2x", r <= 1.2)

    try:
        from sklearn.metrics import average_precision_score
    except ImportError:
        yield ("sklearn average_precision_score / auprc_ap", "sklearn missing", ">= 30x", None)
    else:
        t2 = _interleaved(
            {"ap": lambda: auprc_ap(s, y), "sk": lambda: average_precision_score(y, s)}, rounds=2
        )
        r = t2["sk"] / t2["ap"]
        yield (
            f"sklearn average_precision_score / auprc_ap, N={n:.0e}",
            f"{r:.1f}x",
            ">= 30x",
            r >= 30,
        )

    # null_params: scalar calls after warm-up, and vectorised pairs
    null_params(1000, 10)
    reps = 20_000
    t0 = time.perf_counter()
    for i in range(reps):
        null_params(10**6 + i, 100)
    us = (time.perf_counter() - t0) / reps * 1e6
    yield ("null_params scalar call", f"{us:.1f} us", "<= 20 us", us <= 20)
    m = 10**6
    N = rng.integers(2, 10**12, size=m)
    P = np.maximum(1, (N * rng.random(m)).astype(np.int64))
    null_params(N[:10], P[:10])
    best = min(_timeit(lambda: null_params(N, P)) for _ in range(3))
    rate = m / best
    yield ("null_params vectorised", f"{rate:.2e} pairs/s", ">= 1e6 pairs/s", rate >= 1e6)

    # Monte Carlo null draws, P = 100
    null_ap_samples(10**6, 100, 1000, seed=0)
    draws = 200_000 if quick else 2_000_000
    best = min(_timeit(lambda: null_ap_samples(10**6, 100, draws, seed=1)) for _ in range(2))
    rate = draws / best
    yield ("montecarlo null draws, N=1e6, P=100", f"{rate:.2e} draws/s", ">= 1e6 /s", rate >= 1e6)
    # the first call in a fresh interpreter: bench_first_call.py


def _timeit(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0
