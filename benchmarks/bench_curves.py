"""Benchmark rows for PR / ROC curves.

- ``pr_curve`` at N = 1e7 against ``numpy.sort`` of the same array (target <= 2x);
  the curve computes precision and recall on first access, so a second row
  times the curve with both arrays materialised (no target);
- ROC AUC (``roc_auc`` and ``roc_curve(...).auc``) against scikit-learn's
  ``roc_auc_score`` at N = 1e7 (target >= 20x faster).

Scores are continuous with ~10% positives, the common case; times are the
best of a few interleaved calls after a warm-up (numba compilation is
cached).
"""

from __future__ import annotations

import numpy as np
from run import best_of  # benchmarks/run.py puts this folder on sys.path


def _best_pair(f, g, repeat: int):
    """Best times of f and g over ``repeat`` interleaved rounds."""
    bf = bg = float("inf")
    for _ in range(repeat):
        bf = min(bf, best_of(f, 1))
        bg = min(bg, best_of(g, 1))
    return bf, bg


def rows(quick: bool):
    from pranker import pr_curve, roc_auc, roc_curve

    n = 10**5 if quick else 10**7
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + 1.0 * y
    # warm-up (compilation, caches)
    pr_curve(s[:1000], y[:1000])
    roc_auc(s[:1000], y[:1000])
    roc_curve(s[:1000], y[:1000])
    repeat = 3
    # interleave the two timings so that load changes on a shared machine hit both
    t_sort, t_pr = _best_pair(lambda: np.sort(s), lambda: pr_curve(s, y), repeat)
    ratio = t_pr / t_sort
    label = f"pr_curve N={n:.0e} / numpy.sort"
    yield (label, f"{ratio:.2f}x ({t_pr:.3f}s vs {t_sort:.3f}s)", "<= 2x", ratio <= 2.0)

    def full():  # precision and recall are computed on first access: include them too
        c = pr_curve(s, y)
        return c.precision, c.recall

    t_full = best_of(full, repeat)
    yield (
        f"pr_curve + precision/recall arrays N={n:.0e} / numpy.sort",
        f"{t_full / t_sort:.2f}x ({t_full:.3f}s)",
        "-",
        None,
    )

    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:  # sklearn is a test-only dependency
        yield (f"roc_auc N={n:.0e} vs sklearn", "sklearn not installed", ">= 20x", None)
        return
    t_sk = best_of(lambda: roc_auc_score(y, s), 1)
    t_auc = best_of(lambda: roc_auc(s, y), repeat)
    t_curve = best_of(lambda: roc_curve(s, y).auc, repeat)
    sp = t_sk / t_auc
    yield (
        f"roc_auc N={n:.0e} speed-up vs sklearn roc_auc_score",
        f"{sp:.1f}x ({t_auc:.3f}s vs {t_sk:.2f}s)",
        ">= 20x",
        sp >= 20.0,
    )
    sp2 = t_sk / t_curve
    yield (
        f"roc_curve(...).auc N={n:.0e} speed-up vs sklearn (whole curve)",
        f"{sp2:.1f}x ({t_curve:.3f}s)",
        "-",
        None,
    )
