"""Rows for the rank-count kernel: AP and ROC AUC against ``numpy.sort`` of the same scores.

At N = 1e7 (1e6 with ``--quick``): ``auprc_ap`` in each tie mode and
``roc_auc`` for P = 1e3 and 1e5 positives, on normal, log-normal and
1,000-distinct-value scores, each timed side by side with ``numpy.sort`` of
the same array (bar: <= 0.3x); and, with P close to N, the automatic path
against the sort path (no regression: <= 1.1x).
"""

from __future__ import annotations

import time

import numpy as np

import pranker.measures.ap as ap_module
from pranker import auprc_ap, roc_auc


def _interleaved(fns: dict, rounds: int) -> dict:
    """Best wall time of each function, measured in alternation."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def _scores(rng, kind: str, n: int) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "lognormal":
        return rng.lognormal(0.0, 3.0, n)
    return rng.integers(0, 1000, n) / 7.0  # 1,000 distinct values, heavy ties


def _sort_path(fn):
    """Run ``fn`` with the rank-count path switched off (the sort-based path)."""

    def run():
        old = ap_module._RANK_COUNT_MAX_SHARE
        ap_module._RANK_COUNT_MAX_SHARE = -1.0
        try:
            return fn()
        finally:
            ap_module._RANK_COUNT_MAX_SHARE = old

    return run


def rows(quick: bool):
    rng = np.random.default_rng(0)
    n = 10**6 if quick else 10**7
    rounds = 3 if quick else 5
    warm = np.arange(1000) % 7 == 0
    for m in ("average", "stable", "threshold", "optimistic", "pessimistic"):
        auprc_ap(np.arange(1000.0), warm, ties=m)
    roc_auc(np.arange(1000.0), warm)
    modes = iter(["stable", "threshold", "optimistic", "pessimistic", "stable", "threshold"])
    for kind in ("normal", "lognormal", "distinct1000"):
        s = _scores(rng, kind, n)
        for n_pos in (10**3, 10**5):
            y = np.zeros(n, dtype=bool)
            y[rng.choice(n, n_pos, replace=False)] = True
            other = next(modes)
            t = _interleaved(
                {
                    "sort": lambda s=s: np.sort(s),
                    "average": lambda s=s, y=y: auprc_ap(s, y),
                    other: lambda s=s, y=y, m=other: auprc_ap(s, y, ties=m),
                    "roc": lambda s=s, y=y: roc_auc(s, y),
                },
                rounds,
            )
            for name, label in [("average", "auprc_ap"), (other, f"auprc_ap ties={other}")]:
                r = t[name] / t["sort"]
                yield (
                    f"{label} / numpy.sort, N={n:.0e}, P={n_pos:.0e}, {kind}",
                    f"{r:.2f}x ({t[name]:.3f}s vs {t['sort']:.3f}s)",
                    "<= 0.3x",
                    r <= 0.3,
                )
            r = t["roc"] / t["sort"]
            yield (
                f"roc_auc / numpy.sort, N={n:.0e}, P={n_pos:.0e}, {kind}",
                f"{r:.2f}x ({t['roc']:.3f}s)",
                "<= 0.3x",
                r <= 0.3,
            )

    # P close to N: the automatic choice must not be slower than the sort path
    s = _scores(rng, "normal", n)
    for share in (0.2, 0.5, 0.99):
        y = rng.random(n) < share
        t = _interleaved(
            {
                "auto": lambda y=y: auprc_ap(s, y),
                "sort path": _sort_path(lambda y=y: auprc_ap(s, y)),
                "roc auto": lambda y=y: roc_auc(s, y),
                "roc sort path": _sort_path(lambda y=y: roc_auc(s, y)),
            },
            3,
        )
        for a, b, label in [("auto", "sort path", "auprc_ap"), ("roc auto", "roc sort path", "roc_auc")]:
            r = t[a] / t[b]
            yield (
                f"{label} P/N={share}: automatic path / sort path, N={n:.0e}",
                f"{r:.2f}x ({t[a]:.3f}s)",
                "<= 1.1x",
                r <= 1.1,
            )
