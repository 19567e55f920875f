"""Rows for the rank-count kernel: AP and ROC AUC against ``numpy.sort`` of the same scores.

At N = 1e7 (1e6 with ``--quick``): ``auprc_ap`` (default ties and one other
tie mode per case) and ``roc_auc`` for P = 1e3 and 1e5 positives, on normal,
log-normal and 1,000-distinct-value scores, each timed in alternation with
``numpy.sort`` of the same array (bar: <= 0.3x). Each row gives the median
over rounds of the ratio within a round, with numba's default thread count
and, in brackets, with one thread (``numpy.sort`` runs on one thread in both:
the one-thread ratio moves less with the load of a shared machine). Last, P
close to N: the automatic path against the sort path (no regression: <= 1.1x
on the ratio of the least of five times; the median ratio is printed too.
Where both arms take the sort path (``auprc_ap`` at P/N = 0.5 and 0.99) their
median ratio measured anywhere from 0.9x to 1.7x on the shared machine: noise
of a path that allocates and sorts arrays of 5e6-1e7 values).
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

import pranker.measures.ap as ap_module
from pranker import auprc_ap, roc_auc


def _median_ratios(fns: dict, ref: str, rounds: int) -> dict:
    """Median over rounds of time(fn) / time(ref), all measured in alternation.

    Odd rounds run the functions in reverse order, so that no function always
    follows the same one (caches, memory just freed).
    """
    times = {name: [] for name in fns}
    for k in range(rounds):
        order = list(fns.items())
        for name, fn in order if k % 2 == 0 else order[::-1]:
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    base = np.array(times[ref])
    return {
        name: (float(np.median(np.array(t) / base)), float(np.median(t)), min(t) / base.min())
        for name, t in times.items()
    }


def _scores(rng, kind: str, n: int) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "lognormal":
        return rng.lognormal(0.0, 3.0, n)
    return rng.integers(0, 1000, n) / 7.0  # 1,000 distinct values, heavy ties


def _one_thread(fn):
    """Run ``fn`` with numba limited to one thread."""

    def run():
        old = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return fn()
        finally:
            numba.set_num_threads(old)

    return run


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
    rounds = 3 if quick else 7
    warm = np.arange(1000) % 7 == 0
    for m in ("average", "stable", "threshold", "optimistic", "pessimistic"):
        auprc_ap(np.arange(1000.0), warm, ties=m)
    roc_auc(np.arange(1000.0), warm)
    load = os.getloadavg()[0]
    threads = numba.get_num_threads()
    yield (
        "rank-count rows: load average at start; numba threads",
        f"{load:.1f}; {threads}",
        "(info)",
        None,
    )
    modes = iter(["stable", "threshold", "optimistic", "pessimistic", "stable", "threshold"])
    for kind in ("normal", "lognormal", "distinct1000"):
        s = _scores(rng, kind, n)
        for n_pos in (10**3, 10**5):
            y = np.zeros(n, dtype=bool)
            y[rng.choice(n, n_pos, replace=False)] = True
            other = next(modes)
            ap = lambda s=s, y=y: auprc_ap(s, y)  # noqa: E731
            ap_other = lambda s=s, y=y, m=other: auprc_ap(s, y, ties=m)  # noqa: E731
            roc = lambda s=s, y=y: roc_auc(s, y)  # noqa: E731
            r = _median_ratios(
                {
                    "sort": lambda s=s: np.sort(s),
                    "ap": ap,
                    "ap1": _one_thread(ap),
                    "other": ap_other,
                    "other1": _one_thread(ap_other),
                    "roc": roc,
                    "roc1": _one_thread(roc),
                },
                "sort",
                rounds,
            )
            sort_s = r["sort"][1]
            for key, label in [
                ("ap", "auprc_ap"),
                ("other", f"auprc_ap ties={other}"),
                ("roc", "roc_auc"),
            ]:
                ratio, secs, _ = r[key]
                yield (
                    f"{label} / numpy.sort, N={n:.0e}, P={n_pos:.0e}, {kind}",
                    f"{ratio:.2f}x (1 thread {r[key + '1'][0]:.2f}x; {secs:.3f}s vs {sort_s:.3f}s)",
                    "<= 0.3x",
                    ratio <= 0.3,
                )

    # P close to N: the automatic choice must not be slower than the sort path
    s = _scores(rng, "normal", n)
    for share in (0.2, 0.5, 0.99):
        y = rng.random(n) < share
        r = _median_ratios(
            {
                "auto": lambda y=y: auprc_ap(s, y),
                "sort path": _sort_path(lambda y=y: auprc_ap(s, y)),
            },
            "sort path",
            5,
        )
        r.update(
            _median_ratios(
                {
                    "roc auto": lambda y=y: roc_auc(s, y),
                    "roc sort path": _sort_path(lambda y=y: roc_auc(s, y)),
                },
                "roc sort path",
                5,
            )
        )
        for a, label in [("auto", "auprc_ap"), ("roc auto", "roc_auc")]:
            ratio, secs, least = r[a]
            yield (
                f"{label} P/N={share}: automatic path / sort path, N={n:.0e}",
                f"{least:.2f}x least times (median ratio {ratio:.2f}x; {secs:.3f}s)",
                "<= 1.1x",
                least <= 1.1,
            )
