"""The plan of ``method="auto"``, and every default of the null layer, each in one line.

:func:`plan` decides, for N instances, P positives and (optionally) an
observed AP, which method answers, on which representation of the null
(the exact tail count, the exact recursion's layers, the compressed knots or
the tilted estimator's compressed proposal) and which error bound the answer
reports. Every entry point asks it: :func:`pranker.null.distributions.null_distribution`
with ``"auto"``, the single and batch tests of significance, mean AP over
queries and the command line. The rule depends on N, P, the threshold and
the accuracy asked for (``rtol``), never on how the question was asked, so
the same ranking gets the same answer everywhere.

Every constant below is the one definition of its number; the comment beside
it names the section of ``docs/calibration.md`` where it was measured. The
table of regions, methods and bounds is in ``docs/calibration.md``, section
"The plan of the default".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._numba.moments import null_moments_scalar
from .._results import renamed_parameters
from .._validation import check_counts, check_probability
from .logspace import placements_at_most

# The public functions; the defaults are imported by name where they are used.
__all__ = ["auto_method", "plan", "Plan", "WorkBudgetWarning"]

# Seed of every random draw when the caller gives none: the same call gives the
# same number (results record it).
DEFAULT_SEED = 20140915
# Target relative standard error of an importance-sampled (tilt) p-value.
DEFAULT_RTOL = 0.02
# Draws of the tilt: the first batch, and the most it draws before giving up
# on ``rtol`` (the result then reports the rse it reached).
FIRST_DRAWS = 4096
DEFAULT_MAX_DRAWS = 1 << 20
# With a loose target (rtol at least LOOSE_RTOL) the first batch is FIRST_DRAWS_LOOSE: at
# rtol = 0.1 a relative variance per draw v needs about 110 v draws, so 4,096 first draws
# were 4-40 times what the target asked for (the floor was most of the work of rtol=0.1-0.2).
LOOSE_RTOL = 0.04
FIRST_DRAWS_LOOSE = 1024
# Draws are made in chunks of this (the tilt's chunk: Ctrl-C is seen between chunks).
DRAW_STEP = 4096
# ... and the next size of an estimate is a multiple of a quarter of its first batch (1,024
# draws at the default rtol, 256 with a loose one): a size aimed at by the measured variance
# overshot by up to 4,095 draws when rounded to whole chunks (per-query p-values: 10 % of their
# positive-steps), and by up to 1,023 at rtol = 0.1, where about 110 v draws are needed (notebook
# 03's per-query table: 9 % of its time).
SIZE_STEP_SHARE = 4

# --- the tilt's work budget (docs/calibration.md, "A bound on the work of every p-value") ----
# Work is counted in units, not seconds, so the same call gives the same number on every
# machine: each pass of a recursion and each positive a draw walks costs the units below,
# weighted so that a unit takes about the same time on every route (1.1-1.7 ns measured).
# Default budget of one tilted p-value: about one stable sort of 10^7 float64 (1.0-1.2 T).
DEFAULT_MAX_WORK = 1_800_000_000
WORK_LAYER_CELL = 2  # one cell of the exact recursion (P (N - P + 1) per pass)
WORK_LAYER_STEP = 80  # one positive walked by a draw from the exact layers
WORK_MC_STEP = 20  # one positive placed by an untilted draw
WORK_KNOT_CELL = 50  # one cell of a compressed pass (P times the knots per pass)
WORK_KNOT_STEP = 250  # one positive walked by a draw from the compressed proposal
WORK_SD_STEP = 400  # one positive walked by a state-dependent draw
WORK_CGF_BLOCK = 400  # one block of the accurate compressed CGF (K, K', K'' on all threads)
WORK_CGF_LAYER = 15_000  # one layer of it (the threads' start and join, the prefix sums)
WORK_FLOOR_BLOCK = 45  # one coarse block of the chord passes that find the layers' floors
# Nominal passes of the search for a grid point (exact layers, or compressed below the mean).
WORK_SEARCH_PASSES = 8
# At most this share of the budget goes to the compressed proposal's saddle search; the rest
# to its tables and draws (when it is spent, the search keeps the best tilt found so far).
WORK_SADDLE_SHARE = 0.5
# The state-dependent draws continue each draw's upper layers (those above the hand-over) this
# many times at most below it (splitting: about the cost of the upper layers over that of one
# continuation, see CompressedProposal.continuations).
MAX_CONTINUATIONS = 64
# A capped estimate still makes at least this many draws (its rse then says how rough it is).
MIN_CAPPED_DRAWS = 64
# A capped estimate's normal-theory interval p (1 -+ z rse) is reported only from this many
# draws and up to this rse; short of that its interval is the rigorous [1/C(N, P), Cantelli]
# (docs/calibration.md, "A bound on the work of every p-value": 64 draws at N = 10^6, P = 10^4
# gave intervals that missed the truth by up to 3.9 in log10).
MIN_TRUSTED_DRAWS = 1024
MAX_TRUSTED_RSE = 0.3


class WorkBudgetWarning(UserWarning):
    """A p-value stopped at its work budget (``max_work``) before reaching ``rtol``.

    The result still carries an unbiased estimate with its honest relative
    standard error (above ``rtol``) and the wider interval that goes with
    it. Pass a larger ``max_work=`` (or a larger ``rtol=``) for more
    precision; filter it with ``warnings.simplefilter("ignore",
    pranker.WorkBudgetWarning)``.

    Attributes
    ----------
    args : tuple of str
        The message: what was stopped, the relative standard error reached,
        and the ``max_work=`` and ``rtol=`` that would go further.

    Examples
    --------
    >>> import warnings
    >>> from pranker.null.choice import WorkBudgetWarning
    >>> issubclass(WorkBudgetWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", WorkBudgetWarning)
    ...     warnings.warn("stopped at max_work", WorkBudgetWarning)  # silenced
    """


def first_draws(rtol: float) -> int:
    """The first batch of a tilted estimate at target ``rtol``.

    :data:`FIRST_DRAWS` at the default and any tighter target (the numbers of
    earlier versions); :data:`FIRST_DRAWS_LOOSE` from :data:`LOOSE_RTOL`
    up. The first batch is also the sample whose variance decides whether
    more draws are needed, so it is not cut further: with 1,024 draws at a
    tilt near the saddle point about half of them reach the tail, and the
    schedule (:func:`next_draws`) grows from there as before. A function of
    ``rtol`` alone: the same call gives the same number.
    """
    return FIRST_DRAWS if rtol < LOOSE_RTOL else FIRST_DRAWS_LOOSE


def next_draws(n: int, rse: float, rtol: float, max_draws: int) -> int:
    """How many draws to have next, after ``n`` draws gave relative standard error ``rse``.

    The variance per draw is about ``n rse^2``, so ``n (rse / rtol)^2`` draws
    reach ``rtol``; the next size aims 10 % past that, rounded up to a multiple
    of a quarter of the first batch (:func:`first_draws`, :data:`SIZE_STEP_SHARE`),
    growing by at least a quarter (the estimate of the
    variance is itself noisy, and every look at the rse costs a pass over the
    contributions) and at most 8-fold (a first batch with few hits
    underestimates the variance); with no hit yet (``rse`` infinite) it
    doubles. Doubling every time, as up to version 0.3, drew up to twice what
    was needed. The schedule depends only on the draws, so the same call gives
    the same number.
    """
    step = first_draws(rtol) // SIZE_STEP_SHARE
    if not math.isfinite(rse):
        want = 2 * n
    else:
        want = math.ceil(1.1 * n * (rse / rtol) ** 2 / step) * step
        want = max(want, n + n // 4, n + step)
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


# --- the plan of "auto" (docs/calibration.md, "The plan of the default") -------------------
# Exact when counting is instant: C(N, P) placements at most this many (~0.04 s), P = 1 or P = N.
AUTO_EXACT_PLACEMENTS = 1_000_000
# Budget of the exact tail count in search steps (ExactNull, by name).
EXACT_MAX_NODES = 1_000_000_000
# The tilt keeps the exact layers up to this many prefix sums P (N - P + 1) (8 bytes each:
# 128 MB); beyond, its proposal is compressed ("The compressed proposal (beyond 128 MB)").
EXACT_TABLE_CELLS = 16_000_000

# The second-order saddlepoint on the exact layers, where calibrated ("The second-order
# saddlepoint and its calibrated region"): rho = N / P^2 at most this, at least this many
# positives, at most this many items per positive; its bound in log10.
SADDLEPOINT_MAX_RHO = 0.1
SADDLEPOINT_MIN_POSITIVES = 50
SADDLEPOINT_MAX_ITEMS_PER_POSITIVE = 25
SADDLEPOINT_LOG10_BOUND = 0.01
# Every saddlepoint bound holds up to this fraction of the way from the null mean of S to P
# (S is lumpy nearer the top: 0.03-0.15 in log10 at 0.99-0.999 of the way).
SADDLEPOINT_MAX_DEPTH = 0.9
# The exact recursion's passes are affordable up to this many cells P (N - P + 1) (0.4-2.8 s).
SADDLEPOINT_MAX_CELLS = 100_000_000

# Fewer positives for their share ("Fewer positives: the saddlepoint where the top positives
# are pinned"): up to rho = 10 and 1,000 items per positive, from 4e6 cells, a threshold
# gets the bound below when the top positives' share of the tilted variance
# (pranker.null.saddlepoint.top_lumpiness) is at most SADDLEPOINT_MAX_LUMP.
SADDLEPOINT_PINNED_MAX_RHO = 10.0
SADDLEPOINT_PINNED_MAX_ITEMS_PER_POSITIVE = 1000
SADDLEPOINT_PINNED_MIN_CELLS = 4_000_000
SADDLEPOINT_MAX_LUMP = 5e-4
SADDLEPOINT_PINNED_LOG10_BOUND = 0.015
# The check starts at max(MIN_DEPTH, DEPTH_PER_POSITIVE / P) of the way (no threshold was
# pinned earlier in the calibration; a matter of speed only).
SADDLEPOINT_PINNED_MIN_DEPTH = 0.02
SADDLEPOINT_PINNED_DEPTH_PER_POSITIVE = 12.0

# Many positives beyond the exact recursion ("Many positives: a saddlepoint on an accurate
# compressed CGF"): first-order Lugannani-Rice on the compressed knots from this many
# positives with at most this many items each (N / P = 100 was off by -0.28 at 1e-30).
LARGE_P_MIN_POSITIVES = 10_000
LARGE_P_MAX_ITEMS_PER_POSITIVE = 10
LARGE_P_LOG10_BOUND = 0.015
# ... on the compressed knots up to this many positives (where their passes leap over layers),
# beyond it on the problem scaled down and extrapolated in P (pranker.null.cgf.ScaledCGF), with
# the bound SCALED_LOG10_BOUND plus SCALED_SPREAD_FACTOR times the extrapolation's spread in K
# at the saddle point (in log10): Lugannani-Rice on the exact CGF was within 0.006 of the
# importance sampler's truths at P = 1e4, N / P = 2 and 10 (docs/calibration.md, "Beyond the
# leaps"); the extrapolation's error in K stayed within 1.05 times its spread at the default's
# sizes, and within 3.6 times with problems of only 32-258 positives
KNOTS_MAX_POSITIVES = 200_000
SCALED_LOG10_BOUND = 0.010
SCALED_SPREAD_FACTOR = 4.0
# ... and below that many positives too, for thresholds whose first tilt (the knots' scaled-down
# guess) is at least log(N / P) + SCALED_BEYOND_TILT: past the tilted law's change of regime
# (near log(N / P) / 2), where the spread is small (at P = 1e5: at most 1.6e-4 nats from
# phi = 2.6 at N / P = 10, 2e-4 from 2.0 at N / P = 4) and the knots' passes are slowest
SCALED_BEYOND_TILT = 0.3
# With more than 10 and at most MANY_ITEMS_MAX_ITEMS_PER_POSITIVE items per positive (from 1e4
# positives, beyond 1e8 cells) the saddlepoint on the scaled CGF answers with the wider bound
# MANY_ITEMS_LOG10_BOUND plus SCALED_SPREAD_FACTOR times its spread: there S is lumpy at the top
# and first-order Lugannani-Rice was off by up to 0.072 in log10 against the importance
# sampler's truths at P = 3e3-1e4, N / P = 30-100 (docs/calibration.md, "Many items per
# positive"); the tilt cannot afford its draws there within the default work budget, so this
# wider answer is the default's (with a WorkBudgetWarning naming method="tilt" and max_work=)
MANY_ITEMS_MAX_ITEMS_PER_POSITIVE = 100
MANY_ITEMS_LOG10_BOUND = 0.08
# ... where S is lumpy: a saddle point between MANY_ITEMS_SMOOTH_TILT * log(N / P) and
# log(N / P) + SCALED_BEYOND_TILT; outside, SCALED_LOG10_BOUND plus the spread (truths near the
# bulk within 0.006, past the change of regime -0.008 at 1e-2875; at half log(N / P), N = 3e5,
# P = 3e3, the formula was already off by -0.019)
MANY_ITEMS_SMOOTH_TILT = 0.25


@dataclass(frozen=True)
class Plan:
    """What answers a p-value under ``method="auto"``, on what, and with which error bound.

    Attributes
    ----------
    method : str
        ``"exact"``, ``"saddlepoint"`` or ``"tilt"``.
    backend : str
        What the method computes on: ``"count"`` (the exact tail count),
        ``"layers"`` (the exact forward recursion), ``"knots"`` (the
        accurate compressed CGF; a threshold whose first tilt turns out to lie
        past the tilted law's change of regime is handed over to the scaled
        CGF by :func:`pranker.null.large_p.large_p_tail`), ``"scaled"`` (the
        CGF extrapolated from the problem scaled down) or ``"compressed"``
        (the tilted estimator's compressed proposal).
    log10_bound : float or None
        The bound the answer reports on its log10 error: 0 for exact
        counts, the measured bound of the saddlepoint, None for the tilt
        (its interval comes from its relative standard error, ``rtol``).
    saddlepoint_bound : float or None
        The bound a saddlepoint would report at this threshold (also for
        ``method="saddlepoint"`` by name); None where none was measured.
    check_pinning : bool
        The saddlepoint's bound holds only if its tilted law pins the top
        positives (``top_lumpiness <= SADDLEPOINT_MAX_LUMP``); otherwise the
        tilt answers (by name: the saddlepoint without a bound).
    region : str
        The region of the plan, in words (docs/calibration.md).

    Examples
    --------
    >>> p = plan(10**5, 100, ap=0.3)  # deep in the tail, 1,000 items per positive
    >>> p.method, p.backend, p.log10_bound, p.check_pinning
    ('saddlepoint', 'layers', 0.015, True)
    """

    method: str
    backend: str
    log10_bound: float | None
    saddlepoint_bound: float | None = None
    check_pinning: bool = False
    region: str = ""


def tilt_backend(n: int, n_pos: int) -> str:
    """``"layers"`` while the exact tilted layers fit in 128 MB, else ``"compressed"``."""
    return "compressed" if n_pos * (n - n_pos + 1) > EXACT_TABLE_CELLS else "layers"


# --- neighbouring sizes share one tilted proposal (docs/calibration.md, "Neighbouring sizes
# share draws") ---------------------------------------------------------------------------
# Up to this many cells P (N - P + 1), from 3 positives on, the tilt's upper tail for N is
# estimated from the draws of N', the top of N's bin: one recursion and one set of draws serve
# every N of the bin (per-query p-values, whose N varies query by query, cost per bin instead
# of per N). The last positive is drawn from a mixture of the tilted laws of the bin's sizes
# (TiltEngine._mixture), so each size gets draws of its own law, reweighted.
SHARED_SIZES_MAX_CELLS = 1 << 17
# Bins split each octave 2^e <= N < 2^(e+1) into runs of W = floor(2^e * 20 / (10 P)) sizes, so
# N' / N <= 1 + 2.0 / P: with the mixture the variance per draw of every size of a bin is about
# 1 + X / 2 <= 2.0 times its own (X = P log(N' / N_lo) <= 2.0; e^X, up to 7.4, when only the top
# size is drawn). Widths 1.4, 2.8 and 4.0 were measured against it (docs/calibration.md, "The
# mixture over the bin's sizes"): 2.8 made per-query p-values of varying sizes a little faster
# and queries of one size slower; 2.0 keeps most of the first without most of the second.
SHARED_SIZES_WIDTH = (20, 10)


def tilt_shared_bin(n: int, n_pos: int) -> tuple[int, int] | None:
    """``(lo, hi)``: the sizes ``lo <= N' <= hi`` that share draws with N (N among them); None
    where unshared.

    Integer arithmetic only, so every machine puts N in the same bin.

    >>> tilt_shared_bin(995, 50), tilt_shared_bin(1001, 50), tilt_shared_bin(1000, 5)
    ((992, 1011), (992, 1011), (920, 1023))
    >>> tilt_shared_bin(10**6, 1000) is None  # beyond SHARED_SIZES_MAX_CELLS: its own draws
    True
    """
    n, n_pos = int(n), int(n_pos)
    if n_pos < 3 or n_pos >= n:
        return None
    base = 1 << (n.bit_length() - 1)
    num, den = SHARED_SIZES_WIDTH
    width = base * num // (den * n_pos)
    if width < 2:
        return None
    lo = base + (n - base) // width * width
    top = min(lo + width - 1, 2 * base - 1)
    # whole bins only: the region is decided by the bin's top
    if n_pos * (top - n_pos + 1) > SHARED_SIZES_MAX_CELLS:
        return None
    return max(lo, n_pos + 1), top


def tilt_shared_n(n: int, n_pos: int) -> int | None:
    """N' >= N, the size whose tilted draws estimate the upper tail for (N, P) (the top of
    :func:`tilt_shared_bin`); None where unshared.

    >>> tilt_shared_n(995, 50), tilt_shared_n(1001, 50), tilt_shared_n(1000, 5)
    (1011, 1011, 1023)
    """
    bin_ = tilt_shared_bin(n, n_pos)
    return None if bin_ is None else bin_[1]


def saddlepoint_backend(n: int, n_pos: int) -> str:
    """The saddlepoint's CGF: ``"layers"`` up to 1e8 cells, ``"knots"`` beyond, ``"scaled"``
    beyond :data:`KNOTS_MAX_POSITIVES` positives or beyond
    :data:`LARGE_P_MAX_ITEMS_PER_POSITIVE` items per positive (where the knots' CGF was off by
    0.57 nats at N = 1e6, P = 1e4, tilt 3.73)."""
    if n_pos * (n - n_pos + 1) <= SADDLEPOINT_MAX_CELLS:
        return "layers"
    if n_pos > KNOTS_MAX_POSITIVES or n > LARGE_P_MAX_ITEMS_PER_POSITIVE * n_pos:
        return "scaled"
    return "knots"


def saddlepoint_region(n: int, n_pos: int) -> tuple[str, float] | None:
    """``(region, log10 bound)`` where the saddlepoint was calibrated for (N, P), else None.

    ``"calibrated"``: ``N <= 0.1 P^2``, ``N <= 25 P``, ``P >= 50``, at most 1e8
    cells ``P (N - P + 1)``, bound 0.01. ``"pinned"``: beyond that up to ``N
    <= 10 P^2`` and ``N <= 1000 P``, 4e6 to 1e8 cells, bound 0.015 for the
    thresholds whose top positives are pinned. ``"large P"``: ``P >= 10^4``,
    ``N <= 10 P``, more than 1e8 cells, bound 0.015; ``"scaled"``: the same
    beyond 2*10^5 positives, bound 0.010 plus the extrapolation's spread
    (added by the route at its saddle point). ``"many items"``: ``P >= 10^4``,
    ``10 P < N <= 100 P``, more than 1e8 cells, bound 0.08 plus the
    extrapolation's spread (a bound wider than the tilt's ``rtol``; the tilt
    cannot afford its draws there within the default work budget).
    """
    if n_pos >= n:
        return None
    cells = n_pos * (n - n_pos + 1)
    if n_pos >= SADDLEPOINT_MIN_POSITIVES:
        if (
            n <= SADDLEPOINT_MAX_RHO * n_pos * n_pos
            and n <= SADDLEPOINT_MAX_ITEMS_PER_POSITIVE * n_pos
            and cells <= SADDLEPOINT_MAX_CELLS
        ):
            return "calibrated", SADDLEPOINT_LOG10_BOUND
        if (
            n <= SADDLEPOINT_PINNED_MAX_RHO * n_pos * n_pos
            and n <= SADDLEPOINT_PINNED_MAX_ITEMS_PER_POSITIVE * n_pos
            and SADDLEPOINT_PINNED_MIN_CELLS <= cells <= SADDLEPOINT_MAX_CELLS
        ):
            return "pinned", SADDLEPOINT_PINNED_LOG10_BOUND
    if (
        n_pos >= LARGE_P_MIN_POSITIVES
        and n <= LARGE_P_MAX_ITEMS_PER_POSITIVE * n_pos
        and cells > SADDLEPOINT_MAX_CELLS
    ):
        if n_pos > KNOTS_MAX_POSITIVES:
            return "scaled", SCALED_LOG10_BOUND
        return "large P", LARGE_P_LOG10_BOUND
    if (
        n_pos >= LARGE_P_MIN_POSITIVES
        and n <= MANY_ITEMS_MAX_ITEMS_PER_POSITIVE * n_pos
        and cells > SADDLEPOINT_MAX_CELLS
    ):
        return "many items", MANY_ITEMS_LOG10_BOUND
    return None


def depth_of(ap: float, n: int, n_pos: int) -> float:
    """How far ``ap`` lies from the null mean towards AP = 1, as a fraction (negative below the mean)."""
    mean_s = null_moments_scalar(n, n_pos, n - n_pos)[0] * n_pos
    return (ap * n_pos - mean_s) / (n_pos - mean_s)


def plan(n: int, n_pos: int, ap: float | None = None, rtol: float | None = None) -> Plan:
    """The plan of ``method="auto"`` for N instances, P positives and, optionally, an observed AP.

    Without ``ap``: the method for (N, P) — ``"exact"`` when counting is
    instant; ``"saddlepoint"`` where :func:`saddlepoint_region` has a
    measured bound within twice ``rtol`` (the half-width of the tilted
    estimator's own 95 % interval), and in the region ``"many items"`` whatever
    its bound (the tilt could not reach ``rtol`` there within the default work
    budget; the answer warns); ``"tilt"`` otherwise. With ``ap``: the
    answer at that threshold — the saddlepoint only up to
    :data:`SADDLEPOINT_MAX_DEPTH` of the way to the top (and, where the top
    positives must be pinned, from ``max(2 %, 12 / P)`` of the way, with
    ``check_pinning``); the tilt elsewhere.

    Parameters
    ----------
    n, n_pos : int
        Counts, ``1 <= P <= N`` (checked by the callers).
    ap : float, optional
        The threshold.
    rtol : float, optional
        The relative standard error asked of the tilt (default 0.02).

    Returns
    -------
    Plan

    Examples
    --------
    >>> plan(20, 5).method, plan(5000, 500).region, plan(5000, 500).log10_bound
    ('exact', 'calibrated', 0.01)
    >>> p = plan(5000, 500, ap=0.99)   # 99 % of the way to the top: the tilt
    >>> p.method, p.backend, p.saddlepoint_bound
    ('tilt', 'layers', None)
    >>> plan(10**5, 10**4).backend, plan(10**7, 100).backend
    ('knots', 'compressed')
    """
    if n_pos == 1 or n_pos == n or placements_at_most(n, n_pos, AUTO_EXACT_PLACEMENTS):
        return Plan("exact", "count", 0.0, 0.0, region="exact")
    tilt = Plan("tilt", tilt_backend(n, n_pos), None)
    region = saddlepoint_region(n, n_pos)
    if region is None:
        return tilt
    name, bound = region
    if not saddlepoint_answers(name, bound, DEFAULT_RTOL if rtol is None else rtol):
        return tilt
    at = Plan("saddlepoint", saddlepoint_backend(n, n_pos), bound, bound, name == "pinned", name)
    if ap is None:
        return at
    at = saddlepoint_at(n, n_pos, ap)
    if at.saddlepoint_bound is None:
        return Plan(tilt.method, tilt.backend, None, None, region=at.region)
    return at


def within_rtol(log10_bound: float | None, rtol: float) -> bool:
    """Whether a saddlepoint bound is within twice ``rtol``, the half-width of the tilt's 95 % interval."""
    return log10_bound is not None and 10.0**log10_bound - 1.0 <= 2.0 * rtol


def saddlepoint_answers(region: str, log10_bound: float | None, rtol: float) -> bool:
    """Whether the default lets the saddlepoint answer with ``log10_bound`` in ``region``: within
    twice ``rtol`` (:func:`within_rtol`), or whatever its bound in the region ``"many items"``."""
    if log10_bound is None:
        return False
    return region == "many items" or within_rtol(log10_bound, rtol)


def saddlepoint_at(n: int, n_pos: int, ap: float) -> Plan:
    """The saddlepoint's plan at one threshold, whatever ``rtol`` (also for the method by name).

    Its ``saddlepoint_bound`` is the region's bound (:func:`saddlepoint_region`)
    from the null mean (or, where the top positives must be pinned, from
    ``max(2 %, 12 / P)`` of the way) up to :data:`SADDLEPOINT_MAX_DEPTH` of
    the way to the top; None elsewhere.
    """
    backend = saddlepoint_backend(n, n_pos)
    region = saddlepoint_region(n, n_pos)
    if region is None:
        return Plan("saddlepoint", backend, None, None, region="uncalibrated")
    name, bound = region
    depth = depth_of(ap, n, n_pos)
    low = saddlepoint_pinned_min_depth(n_pos) if name == "pinned" else -math.inf
    if not low <= depth <= SADDLEPOINT_MAX_DEPTH:
        return Plan("saddlepoint", backend, None, None, region=name + ", beyond its depth")
    return Plan("saddlepoint", backend, bound, bound, name == "pinned", name)


def saddlepoint_pinned_min_depth(n_pos: int) -> float:
    """How far from the null mean to the top a threshold must be before its pinning is checked."""
    return max(SADDLEPOINT_PINNED_MIN_DEPTH, SADDLEPOINT_PINNED_DEPTH_PER_POSITIVE / n_pos)


def mean_ap_method(n_queries: int, cumulants) -> str:
    """The method of ``"auto"`` for the mean AP of Q >= 2 queries (one query: :func:`plan`).

    The tilted estimator for at most :data:`AUTO_TILT_MAX_QUERIES` queries;
    beyond, the saddlepoint where the null mean AP's excess kurtosis
    ``k4 / k2^2`` is at most :data:`AUTO_SADDLE_MAX_KURTOSIS`, the tilted
    estimator elsewhere (docs/mean_ap.md). ``cumulants()`` returns the null
    CGF and its derivatives at 0 (``k[2]``, ``k[4]`` are the second and
    fourth cumulants); it is called only when needed.
    """
    if n_queries <= AUTO_TILT_MAX_QUERIES:
        return "tilt"
    k = cumulants()
    return "saddlepoint" if k[4] <= AUTO_SADDLE_MAX_KURTOSIS * k[2] * k[2] else "tilt"


@renamed_parameters(N="n", P="n_pos")
def auto_method(n: int, n_pos: int, rtol: float | None = None) -> str:
    """The method ``method="auto"`` uses for N instances and P positives.

    ``"exact"`` where counting the placements is instant, ``"saddlepoint"``
    where the saddlepoint's measured bound (docs/calibration.md) is within
    twice ``rtol``, ``"tilt"`` otherwise; :func:`plan` says which method,
    representation and bound each threshold gets (thresholds beyond the
    saddlepoint's calibrated depth, or whose top positives are not pinned
    where that is required, are answered by the tilt, and each p-value's
    ``method`` says which answered).

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
    plan : The method, representation and bound at each threshold.
    pranker.pranker : Uses this rule for ``method="auto"``.

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
    >>> auto_method(10**6, 10**4)  # 100 items per positive: the scaled saddlepoint
    'saddlepoint'
    >>> auto_method(10**5, 100)  # the saddlepoint where the top positives are pinned
    'saddlepoint'
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    (n_arr, p_arr, _) = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    check_probability(rtol, "rtol", "auto_method")
    return plan(n, p, rtol=rtol).method
