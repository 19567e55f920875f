"""The defaults of the null layer, each in one line, and the rule ``method="auto"``.

Every default a p-value depends on (seed, target accuracy, draw budgets, the
tolerance under which two AP values count as equal) is set here once, so that
:func:`pranker.null_distribution`, every test of significance (through
:mod:`pranker.significance.auto`) and every entry point give the same number.
The rule ``"auto"`` (which null for N instances and P positives) lives here
too; it depends on N, P and the accuracy asked for.
"""

from __future__ import annotations

import math

from .._results import renamed_parameters
from .._validation import check_counts

# The public function; the defaults above it are imported by name where they are used.
__all__ = ["auto_method"]

# Seed of every random draw when the caller gives none: the same call gives the
# same number (results record it).
DEFAULT_SEED = 20140915
# Target relative standard error of an importance-sampled (tilt) p-value.
DEFAULT_RTOL = 0.02
# Draws of the tilt: the first batch, and the most it draws before giving up
# on ``rtol`` (the result then reports the rse it reached).
FIRST_DRAWS = 4096
DEFAULT_MAX_DRAWS = 1 << 20
# Draws are added in multiples of this (the tilt's chunk: Ctrl-C is seen between chunks).
DRAW_STEP = 4096


def next_draws(n: int, rse: float, rtol: float, max_draws: int) -> int:
    """How many draws to have next, after ``n`` draws gave relative standard error ``rse``.

    The variance per draw is about ``n rse^2``, so ``n (rse / rtol)^2`` draws
    reach ``rtol``; the next size aims 10 % past that, rounded up to a multiple
    of :data:`DRAW_STEP`, growing by at least a quarter (the estimate of the
    variance is itself noisy, and every look at the rse costs a pass over the
    contributions) and at most 8-fold (a first batch with few hits
    underestimates the variance); with no hit yet (``rse`` infinite) it
    doubles. Doubling every time, as up to version 0.3, drew up to twice what
    was needed. The schedule depends only on the draws, so the same call gives
    the same number.
    """
    if not math.isfinite(rse):
        want = 2 * n
    else:
        want = math.ceil(1.1 * n * (rse / rtol) ** 2 / DRAW_STEP) * DRAW_STEP
        want = max(want, n + n // 4, n + DRAW_STEP)
        want = min(want, 8 * n)
    return int(min(want, max_draws))


# Two AP values (or sums of them) within this relative distance count as equal:
# P(AP_null >= a) counts placements whose AP rounds to a. Used by the exact count,
# the tilt, Monte Carlo, mean AP and model comparison alike.
REL_TOL = 1e-12

# --- mean AP over queries (pranker.null.mean_ap) ---------------------------------
# "auto" takes the tilt for at most this many queries (the saddlepoint beyond, see below)
AUTO_TILT_MAX_QUERIES = 20
# "auto" takes the saddlepoint only where the null mAP's excess kurtosis K4(0) / K2(0)^2 is at
# most this: measured against the tilted estimator (docs/mean_ap.md), the saddlepoint was then
# within the estimator's 1 % error; at 3.9-4.1 it was off by up to 11 %, at 10 by 35 %.
AUTO_SADDLE_MAX_KURTOSIS = 2.0
# The most draws per query the tilted estimator of Q >= 2 queries makes before reporting the
# relative standard error it reached (one query: the single-ranking default, DEFAULT_MAX_DRAWS).
DEFAULT_MAX_DRAWS_PER_QUERY = 1 << 18

# Random rankings drawn by a plain Monte Carlo null when the caller does not say how
# many: one number for every entry point (null_params, montecarlo_pvalue,
# MonteCarloNull and method="montecarlo" everywhere).
DEFAULT_MC_DRAWS = 100_000


# --- the "auto" rule ---------------------------------------------------------
# Exact when the tail count is instant: C(N, P) placements at most this many
# (the count visits at most all of them; ~0.04 s), or P = 1, or P = N.
AUTO_EXACT_PLACEMENTS = 1_000_000
# Then the second-order saddlepoint where it has been calibrated (below); otherwise the
# tilt: its memory does not grow with N P (exact layers up to 128 MB, the compressed
# proposal of pranker.null.compressed beyond), so there is no Monte Carlo fallback. (Far
# from the calibrated region the saddlepoint is off by large factors: at N = 1e6, P = 300,
# AP 0.0007, true p = 2.5e-3, first-order Lugannani-Rice was off by 1.2 orders.)

# --- the saddlepoint's calibrated region ------------------------------------------
# Measured against the tilted estimator at 0.4 % rse (benchmarks/calibration_saddlepoint.py,
# docs/calibration.md): with rho = N / P^2 at most SADDLEPOINT_MAX_RHO, at least
# SADDLEPOINT_MIN_POSITIVES positives and at most SADDLEPOINT_MAX_ITEMS_PER_POSITIVE items per
# positive, the second-order saddlepoint's log10 error stayed within SADDLEPOINT_LOG10_BOUND
# at every threshold up to SADDLEPOINT_MAX_DEPTH, both tails.
SADDLEPOINT_MAX_RHO = 0.1
SADDLEPOINT_MIN_POSITIVES = 50
# ... and at most this many items per positive: at a fixed rho the error grows with N / P
# (0.009-0.011 at 16 sd for P = 500, N / P = 30-50; 0.014 at N = 50,000, P = 1,000, rho =
# 0.05); with N / P <= 25 it stayed within 0.007 up to rho = 0.1)
SADDLEPOINT_MAX_ITEMS_PER_POSITIVE = 25
SADDLEPOINT_LOG10_BOUND = 0.01
# ... for thresholds up to this fraction of the way from the null mean of S to its largest
# value P; nearer the top the tail holds few placements, S is lumpy there, and the error
# reached 0.03-0.15 in log10 at 0.99-0.999 of the way with N / P <= 4.
SADDLEPOINT_MAX_DEPTH = 0.9
# Its passes are over P (N - P + 1) cells (3-7 ns each, 2-11 passes, mostly 3-5; two layers of memory):
# "auto" takes it up to 1e8 cells (0.4-2.8 s at 3.6e7-9.6e7 cells, where it was checked against
# the compressed proposal's estimates; the tilt took several seconds there).
SADDLEPOINT_MAX_CELLS = 100_000_000


# --- beyond rho = 0.1: where the top positives are pinned -----------------------------
# With more items per positive (0.1 < rho <= 10, N / P up to 1000) the error comes from the
# top positives' jumps (positive k moves S by 1 / (k + 1) between ranks k and k + 1) while
# the tilted law has not yet pinned them to the top ranks; once it has, the saddlepoint is
# accurate again. Measured (docs/calibration.md, 2026-11-28; 15 pairs with P = 50-200, rho
# 0.2-10, N / P 10-1000, 211 upper-tail thresholds up to 90 % of the way to the top, against
# the tilted estimator at 0.6 % rse): where the share of the tilted variance of S carried by
# those jumps,
#   sum_k p_k (1 - p_k) / (k + 1)^2 / K''(phi),  p_k = P_phi(top k positives at ranks 1..k)
# (pranker.null.saddlepoint.top_lumpiness), was at most SADDLEPOINT_MAX_LUMP, the largest
# log10 error over 74 thresholds was 0.008 (3.2 se of the truth); from 5e-4 to 1e-3 it
# reached 0.012 (4.7 se), from 1e-3 to 2.5e-3 0.12, and beyond up to 1.06.
SADDLEPOINT_PINNED_MAX_RHO = 10.0
SADDLEPOINT_PINNED_MAX_ITEMS_PER_POSITIVE = 1000
SADDLEPOINT_MAX_LUMP = 5e-4
SADDLEPOINT_PINNED_LOG10_BOUND = 0.015
# Below max(SADDLEPOINT_PINNED_MIN_DEPTH, SADDLEPOINT_PINNED_DEPTH_PER_POSITIVE / P) of the
# way from the null mean to the top the check (the saddlepoint's passes and a backward
# pass over the P (N - P + 1) cells) is skipped and the tilt answers: in that calibration
# and the first one no threshold had its top positives pinned before about 20 / P of the
# way (0.1-0.15 with P = 150-200, 0.2-0.5 with P = 50-100, 0.022-0.054 with P = 500-1,000).
# A matter of speed only: a skipped threshold gets the tilt's answer.
SADDLEPOINT_PINNED_MIN_DEPTH = 0.02
SADDLEPOINT_PINNED_DEPTH_PER_POSITIVE = 12.0
# ... and only from this many cells P (N - P + 1) on: below, the tilted estimator's draws
# (shared by the thresholds of one grid point) cost less than the saddlepoint's passes and
# the pinning check (pranker_many, 10^4 rankings of 10^4 items with ~100 positives: 154.9 s
# with the saddlepoint for the pinned thresholds, 102.6 s with the tilt throughout).
SADDLEPOINT_PINNED_MIN_CELLS = 4_000_000


# --- many positives beyond the exact CGF's reach ----------------------------------------
# From this many positives, with at most LARGE_P_MAX_ITEMS_PER_POSITIVE items each and more
# than SADDLEPOINT_MAX_CELLS cells (beyond the exact recursion), the saddlepoint is
# first-order Lugannani-Rice on the accurate compressed CGF (pranker.null.saddle_large), each
# pass computed only above the layers' floors (pranker._numba.cgf_band). Measured against
# the importance sampler at about 1 % rse at P = 10^4 (docs/calibration.md,
# docs/calibration_large_p_truth.jsonl): with N / P = 2 and 10, from 10^-3 to 10^-300, the
# largest |log10 error| was 0.011 (2.7 se of the truth). With N / P = 100 it was -0.015 at
# p = 10^-3 and -0.28 at 10^-29.7: near the tilt that pins the top positives (log(N / P))
# S is lumpy, so the region stops at 10 items per positive.
LARGE_P_MIN_POSITIVES = 10_000
LARGE_P_MAX_ITEMS_PER_POSITIVE = 10
LARGE_P_LOG10_BOUND = 0.015


def large_p_region(n: int, n_pos: int) -> bool:
    """Whether (N, P) is answered by the saddlepoint on the compressed CGF (upper tails).

    ``P >= 10^4``, ``N <= 10 P`` and ``P (N - P + 1) > 1e8`` (beyond the
    exact recursion of :func:`saddlepoint_log10_bound` and
    :func:`saddlepoint_pinned_region`); its bound is :func:`large_p_log10_bound`
    up to :data:`SADDLEPOINT_MAX_DEPTH`.
    """
    if n_pos < LARGE_P_MIN_POSITIVES or n_pos >= n:
        return False
    if n > LARGE_P_MAX_ITEMS_PER_POSITIVE * n_pos:
        return False
    return n_pos * (n - n_pos + 1) > SADDLEPOINT_MAX_CELLS


def large_p_log10_bound(n: int, n_pos: int) -> float | None:
    """The measured bound on the compressed-CGF saddlepoint's log10 error (None outside its region).

    :data:`LARGE_P_LOG10_BOUND` (0.015) inside :func:`large_p_region`.
    """
    return LARGE_P_LOG10_BOUND if large_p_region(n, n_pos) else None


def saddlepoint_pinned_region(n: int, n_pos: int) -> bool:
    """Whether (N, P) lies where the saddlepoint is trusted only for thresholds whose top positives are pinned.

    ``P >= 50``, ``0.1 P^2 < N <= 10 P^2`` or ``N > 25 P``, ``N <= 1000 P``,
    ``4e6 <= P (N - P + 1) <= 1e8`` (outside the region of
    :func:`saddlepoint_log10_bound`). There a threshold gets the bound
    :data:`SADDLEPOINT_PINNED_LOG10_BOUND` when its tilted law has its top
    positives pinned (:data:`SADDLEPOINT_MAX_LUMP`).
    """
    if n_pos < SADDLEPOINT_MIN_POSITIVES or n_pos >= n:
        return False
    if saddlepoint_log10_bound(n, n_pos) is not None:
        return False
    if n > SADDLEPOINT_PINNED_MAX_RHO * n_pos * n_pos:
        return False
    if n > SADDLEPOINT_PINNED_MAX_ITEMS_PER_POSITIVE * n_pos:
        return False
    return SADDLEPOINT_PINNED_MIN_CELLS <= n_pos * (n - n_pos + 1) <= SADDLEPOINT_MAX_CELLS


def saddlepoint_pinned_min_depth(n_pos: int) -> float:
    """How far from the null mean to the top a threshold must be before its pinning is checked."""
    return max(SADDLEPOINT_PINNED_MIN_DEPTH, SADDLEPOINT_PINNED_DEPTH_PER_POSITIVE / n_pos)


def saddlepoint_log10_bound(n: int, n_pos: int) -> float | None:
    """The measured bound on the saddlepoint's log10 error for (N, P), or None outside its region."""
    if n_pos < SADDLEPOINT_MIN_POSITIVES or n_pos >= n:
        return None
    if n > SADDLEPOINT_MAX_RHO * n_pos * n_pos or n > SADDLEPOINT_MAX_ITEMS_PER_POSITIVE * n_pos:
        return None
    if n_pos * (n - n_pos + 1) > SADDLEPOINT_MAX_CELLS:
        return None
    return SADDLEPOINT_LOG10_BOUND


@renamed_parameters(N="n", P="n_pos")
def auto_method(n: int, n_pos: int, rtol: float | None = None) -> str:
    """The method ``method="auto"`` uses for N instances and P positives.

    - ``"exact"`` when P = 1, P = N or C(N, P) <= 1e6 (the tail count is then
      instant);
    - ``"saddlepoint"`` where the second-order saddlepoint has been
      calibrated — ``N <= 0.1 P^2``, ``N <= 25 P``, ``P >= 50``,
      ``P (N - P + 1) <= 1e8``
      — and its measured bound (0.01 in log10, 2.3 %) is within twice
      ``rtol`` (the half-width of the tilted estimator's own 95 % interval):
      a few milliseconds to a few seconds, no draws. Thresholds
      beyond its calibrated depth (90 % of the way from the null mean to AP
      = 1) are answered by the tilt; each p-value's ``method`` says which;
    - ``"saddlepoint"`` also where ``0.1 P^2 < N <= 10 P^2`` or ``N > 25 P``
      (up to ``N = 1000 P``; ``P >= 50``, 4e6 to 1e8 cells ``P (N - P + 1)``) and the
      bound there (0.015 in log10, 3.5 %) is within twice ``rtol``, for
      the thresholds whose tilted law has pinned the top positives to the
      top ranks (deep in the tail); the tilt answers the others (each
      p-value's ``method`` says which);
    - ``"saddlepoint"`` also for many positives beyond the exact recursion
      (``P >= 10^4``, ``N <= 10 P``, more than 1e8 cells), on a compressed
      CGF accurate to about 1e-3 nats, where its bound (0.015 in log10, 3.5
      %) is within twice ``rtol``: seconds instead of the tilt's minutes;
    - ``"tilt"`` otherwise: the importance sampler with exact likelihood
      ratios, 2 % relative standard error, for any N (its tables take at
      most ~130 MB: exact layers while they fit, the compressed proposal of
      :mod:`pranker.null.compressed` beyond).

    The rule depends on (N, P) and ``rtol`` only, never on the observed AP
    except through the saddlepoint's depth limit and the pinning of the top
    positives at the AP's saddle point (both functions of the AP, N and P),
    so every entry point gives the same answer for the same ranking.

    Parameters
    ----------
    n, n_pos : int
        Number of instances and of positives, ``1 <= P <= N``.
    rtol : float, optional
        The accuracy asked of the tilt (default 0.02); below 0.0117 the
        saddlepoint's bound is too wide and the tilt answers everywhere.

    Returns
    -------
    str
        ``"exact"``, ``"saddlepoint"`` or ``"tilt"``.

    Raises
    ------
    ValueError
        If the counts are not ``1 <= P <= N``, or ``rtol`` is not in (0, 1).

    See Also
    --------
    pranker.pranker : Uses this rule for ``method="auto"``.
    pranker.null_distribution : Builds the null for any method by name.

    Examples
    --------
    >>> auto_method(20, 5), auto_method(10**4, 1), auto_method(10**5, 30)
    ('exact', 'exact', 'tilt')
    >>> auto_method(5000, 500), auto_method(5000, 500, rtol=0.005)
    ('saddlepoint', 'tilt')
    >>> auto_method(10**6, 300), auto_method(10**10, 10**5)
    ('tilt', 'tilt')
    >>> auto_method(10**5, 10**4)  # many positives: the saddlepoint on the compressed CGF
    'saddlepoint'
    >>> auto_method(10**6, 10**4)  # 100 items per positive: the tilt
    'tilt'
    >>> auto_method(10**5, 100)  # the saddlepoint where the top positives are pinned
    'saddlepoint'
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    (n_arr, p_arr, _) = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    if rtol is not None and not 0.0 < float(rtol) < 1.0:
        raise ValueError(
            f"auto_method: rtol must be in (0, 1) (a relative standard error, e.g. 0.02); "
            f"got {rtol!r}."
        )
    if p == 1 or p == n or math.comb(n, p) <= AUTO_EXACT_PLACEMENTS:
        return "exact"
    twice = 2.0 * (DEFAULT_RTOL if rtol is None else rtol)
    bound = saddlepoint_log10_bound(n, p)
    if bound is not None and 10.0**bound - 1.0 <= twice:
        return "saddlepoint"
    if saddlepoint_pinned_region(n, p) and 10.0**SADDLEPOINT_PINNED_LOG10_BOUND - 1.0 <= twice:
        return (
            "saddlepoint"  # for the thresholds whose top positives are pinned; the tilt the others
        )
    bound = large_p_log10_bound(n, p)
    if bound is not None and 10.0**bound - 1.0 <= twice:
        return "saddlepoint"  # on the compressed CGF
    return "tilt"
