"""The work budget of the tilted estimator: what an estimate is charged, and what it says when stopped.

A tilted p-value (:mod:`pranker.null.tilt`) stops when its relative standard
error reaches ``rtol`` or when its work reaches ``max_work``. Work is counted
in deterministic units (the weights ``WORK_*`` of :mod:`pranker.null.choice`,
measured so that a unit takes about the same time on every route), never
timed, so the same call gives the same number on every machine. Each part is
charged what it costs from scratch, whatever the caches hold: a threshold
gets the same number alone or among many rankings of one (N, P).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

from .._progress import BAR_SECONDS, progress_bar
from .._validation import check_positive
from .choice import (
    DRAW_STEP,
    MAX_TRUSTED_RSE,
    MIN_CAPPED_DRAWS,
    MIN_TRUSTED_DRAWS,
    WORK_KNOT_CELL,
    WORK_KNOT_STEP,
    WORK_LAYER_CELL,
    WORK_LAYER_STEP,
    WORK_MC_STEP,
    WORK_SD_STEP,
    WORK_SEARCH_PASSES,
    WorkBudgetWarning,
    first_draws,
    next_draws,
)

__all__: list[str] = []  # nothing public: max_work= is the interface


@dataclass(frozen=True)
class DrawSummary:
    """What the draw loop needs of n contributions: their count, mean and (population)
    standard deviation, and whether they are all the same. A route that computes these
    in one pass returns this instead of the contributions themselves."""

    size: int
    mean: float
    std: float
    constant: bool


@dataclass(frozen=True)
class TailEstimate:
    """A tail probability carried in log space, with its uncertainty.

    Attributes
    ----------
    log10_pvalue : float
        log10 of the estimate (finite even where ``pvalue`` underflows to 0).
    rse : float
        Relative standard error of the estimate (0 when exact).
    log10_interval : (float, float)
        log10 of the ends of the normal-theory interval ``p (1 -+ z rse)``
        (``-inf`` for a lower end at or below 0).
    n_draws : int
        Draws used (0 when exact).
    phi : float
        Tilt used (0: plain Monte Carlo).
    work : int
        Work units the estimate was charged (passes and draw steps, weighted as in
        :mod:`pranker.null.choice`; a function of the call, not of the machine).
    capped : bool
        True when the work budget stopped the draws (or the saddle search)
        before the relative standard error reached ``rtol``.
    """

    log10_pvalue: float
    rse: float
    log10_interval: tuple
    n_draws: int
    phi: float
    work: int = 0
    capped: bool = False

    @property
    def pvalue(self) -> float:
        return 10.0**self.log10_pvalue if self.log10_pvalue > -320.0 else 0.0


@dataclass(frozen=True)
class Cost:
    """The nominal work of an estimate: ``spent`` before its draws, then ``per_draw`` per draw
    and ``per_chunk`` per batch of draws (the checkpointed tables' recomputed rows)."""

    spent: int
    per_draw: int
    per_chunk: int = 0

    def of(self, n: int) -> int:
        """Units charged for ``n`` draws in all."""
        chunks = -(-n // DRAW_STEP) + 1 if self.per_chunk else 0
        return self.spent + n * self.per_draw + chunks * self.per_chunk

    def affordable(self, max_work: int) -> int:
        """The most draws within ``max_work``: at least :data:`MIN_CAPPED_DRAWS`, unless even
        those would cost more than twice the budget; then none (the estimate is a bound)."""
        left = max_work - self.spent - self.per_chunk
        per = self.per_draw + self.per_chunk / DRAW_STEP
        n = int(left // per) if left > 0 else 0
        while n > 0 and self.of(n) > max_work:
            n -= 1
        if n < MIN_CAPPED_DRAWS and self.of(MIN_CAPPED_DRAWS) > 2 * max_work:
            return n
        return max(n, MIN_CAPPED_DRAWS)


def compressed_cost(cz, plan, spent: int) -> Cost:
    """The work of an upper tail on the compressed proposal ``cz``, after a saddle search of ``spent``.

    ``plan``: ``(phis, kc)`` of the state-dependent tilts, or None (one
    fixed tilt). Tables: the state-dependent tilts' rows ``1..kc`` and one
    pass at the saddle tilt (checkpointed rows: one more per batch of draws);
    draws: the positives above ``kc`` at the saddle tilt, those below by the
    state-dependent steps, once per continuation (``cz.continuations(kc)``).
    """
    P, B = cz.P, cz.n_knots
    pass_ = P * B * WORK_KNOT_CELL
    per_chunk = pass_ if cz.checkpointed else 0
    if plan is None:
        return Cost(spent + pass_, (P - 1) * WORK_KNOT_STEP, per_chunk)
    phis, kc = plan
    tables = len(phis) * (kc + 1) * B * WORK_KNOT_CELL
    per_draw = cz.continuations(kc) * (kc - 1) * WORK_SD_STEP
    if kc < P:
        tables += pass_
        per_draw += (P - kc) * WORK_KNOT_STEP
    else:
        per_chunk = 0
    return Cost(spent + tables, per_draw, per_chunk)


def grid_cost(N: int, P: int, cz, plans, chosen, pilot_draws: int = 512) -> Cost:
    """The work of an estimate at a grid point (exact layers, or ``cz`` the compressed proposal).

    The search for the grid point is charged :data:`WORK_SEARCH_PASSES`
    passes (it is shared by the thresholds of one (N, P), so what it actually
    costs depends on what was asked before), the stored layers one more.
    ``plans``: the splitting candidates whose pilot ran (``pilot_draws``
    draws each), ``chosen`` the ``(k0, M)`` taken; None for untilted draws.
    """
    if cz is not None:
        pass_ = P * cz.n_knots * WORK_KNOT_CELL
        per_chunk = pass_ if cz.checkpointed else 0
        return Cost((WORK_SEARCH_PASSES + 1) * pass_, (P - 1) * WORK_KNOT_STEP, per_chunk)
    pass_ = P * (N - P + 1) * WORK_LAYER_CELL
    if chosen is None:
        return Cost(WORK_SEARCH_PASSES * pass_, P * WORK_MC_STEP)

    def steps(k0: int, M: int) -> int:
        return P - k0 + M * (k0 - 2) + 4 * M

    pilot = pilot_draws * sum(steps(*c) for c in plans) * WORK_LAYER_STEP
    return Cost((WORK_SEARCH_PASSES + 1) * pass_ + pilot, steps(*chosen) * WORK_LAYER_STEP)


def no_hit_bound(est, s: float, upper: bool, mean_s: float, sd_s: float, log_comb: float):
    """An estimate stopped before any draw reached ``s`` (inside the support), as an upper bound.

    The smaller of the Chernoff bound of its tilt (``est.log10_interval[1]``:
    ``e^{K(phi) - phi s}`` on the exact layers, 1 elsewhere) and the one-sided
    Chebyshev (Cantelli) bound ``var / (var + (s - mean)^2)`` from the exact
    mean and variance of S; the interval ``[1 / C(N, P), bound]``, the rse
    infinite.
    """
    hi = min(est.log10_interval[1], cantelli_log10(s, upper, mean_s, sd_s))
    lo = min(-log_comb / math.log(10.0), hi)
    return type(est)(hi, math.inf, (lo, hi), est.n_draws, est.phi, est.work, True)


def cantelli_log10(s: float, upper: bool, mean_s: float, sd_s: float) -> float:
    """log10 of the one-sided Chebyshev (Cantelli) bound on P(S >= s) (or P(S <= s)).

    For any law with mean mu and variance v, P(S - mu >= g) <= v / (v + g^2)
    for g > 0 (Cantelli 1928); 1 (log10 0) on the mean's side.
    """
    gap = (s - mean_s) if upper else (mean_s - s)
    var = sd_s * sd_s
    return math.log10(var / (var + gap * gap)) if gap > 0.0 else 0.0


def untrusted_bound(est, s: float, upper: bool, mean_s: float, sd_s: float, log_comb: float):
    """A capped estimate with too few draws (or too large an rse) to trust its normal interval.

    With few draws, the sample variance of importance weights underestimates
    their variance (the rare large weights are not yet seen), so ``p (1 -+ z
    rse)`` can miss the truth by orders of magnitude. Such an estimate keeps
    its value (capped by the bound below) as the best guess, with the rigorous
    interval ``[1 / C(N, P), Cantelli bound]`` and an infinite rse.
    Estimates with at least :data:`~pranker.null.choice.MIN_TRUSTED_DRAWS`
    draws and an rse at most :data:`~pranker.null.choice.MAX_TRUSTED_RSE`
    are returned unchanged.
    """
    if not est.capped or (est.n_draws >= MIN_TRUSTED_DRAWS and est.rse <= MAX_TRUSTED_RSE):
        return est
    hi = cantelli_log10(s, upper, mean_s, sd_s)
    lo = min(-log_comb / math.log(10.0), hi)
    value = min(max(est.log10_pvalue, lo), hi)
    return type(est)(value, math.inf, (lo, hi), est.n_draws, est.phi, est.work, True)


def check_work(max_work, where: str | None = None) -> int:
    """``max_work`` as a positive integer (work units), or a ValueError that names it."""
    if max_work is None:
        raise ValueError(f"{where + ': ' if where else ''}max_work must not be None here.")
    return int(check_positive(max_work, "max_work", where, integer=True))


def warn_capped(
    N: int, P: int, rtol: float, max_work: int, rse: float, method: str = "tilt"
) -> None:
    """The :class:`WorkBudgetWarning` of an estimate (or a saddle-point search) stopped by its work budget.

    Its text is the same for every ranking of one (N, P) and call, so a batch
    warns once per (N, P) under Python's default filter.
    """
    if method == "many items":
        warnings.warn(
            f"the p-value for N = {N}, P = {P} is the saddlepoint's, with its measured bound "
            "(pvalue_interval): with this many items per positive the tilted estimator cannot "
            f"reach rtol={rtol} within the default work budget. Pass method='tilt' with a "
            "larger max_work= (minutes of draws) for a precise answer.",
            WorkBudgetWarning,
            stacklevel=4,
        )
        return
    if method == "saddlepoint":
        warnings.warn(
            f"the saddlepoint p-value for N = {N}, P = {P} stopped its search for the saddle "
            f"point at its work budget max_work={max_work}; its interval is what the passes "
            "made prove (the Lugannani-Rice tails at the tilts reached, with the measured "
            "bound, and the Chernoff and Cantelli bounds). Pass a larger max_work= for the "
            "saddle point's own answer and bound.",
            WorkBudgetWarning,
            stacklevel=4,
        )
        return
    what = (
        "too few draws reached the threshold to measure the estimate's error: its interval "
        "is the rigorous [1/C(N, P), Cantelli bound] (pvalue_rse is inf)"
        if math.isinf(rse)
        else "the result reports the relative standard error it reached (pvalue_rse) "
        "and the wider interval that goes with it"
    )
    warnings.warn(
        f"the tilted p-value for N = {N}, P = {P} stopped at its work budget max_work="
        f"{max_work} before reaching rtol={rtol}; {what}. Pass a larger max_work= (the rse "
        "falls about as 1 / sqrt(max_work)) or a larger rtol= for a precise answer.",
        WorkBudgetWarning,
        stacklevel=4,
    )


def run_draws(
    contributions,
    phi,
    rtol,
    max_draws,
    conf_level,
    progress=None,
    cost: Cost | None = None,
    max_work: int | None = None,
    capped: bool = False,
):
    """Draws growing from :func:`pranker.null.choice.first_draws` until the relative standard error is below ``rtol``.

    The sizes follow :func:`pranker.null.choice.next_draws` (aimed at the
    size the variance measured so far asks for).

    ``contributions(n)`` returns ``(log offset, c)`` for the first n
    draws (the estimate is ``e^offset mean(c)``, carried in log space), c
    an array or its :class:`DrawSummary`; ``contributions(n, False)`` only
    makes sure they are drawn.

    With ``max_work``, the draws stop at the most that ``cost`` affords
    within it (at least :data:`MIN_CAPPED_DRAWS`): the same sizes as
    without it up to there, so an estimate that reaches ``rtol`` within
    the budget is the same number. ``capped`` (the saddle search was
    already cut short) is passed on to the result.
    """
    cap_n = max_draws
    if max_work is not None and cost is not None:
        cap_n = min(max_draws, cost.affordable(max_work))
    n = min(first_draws(rtol), cap_n)
    if n < MIN_CAPPED_DRAWS:
        # the budget affords too few draws to say anything: no draw, and the caller's
        # rigorous bound (no_hit_bound: 1 here, then the Cantelli bound)
        work = 0 if cost is None else cost.of(0)
        return TailEstimate(-math.inf, math.inf, (-math.inf, 0.0), 0, phi, work, True)
    z = _z_of(conf_level)
    bar = None
    t0 = time.perf_counter()
    try:
        while True:
            # w: the contributions of the n draws, or their summary (shared sizes weight theirs)
            log_off, w = contributions(n)
            if not isinstance(w, DrawSummary):
                w = _summary(w)
            mu = w.mean
            if mu > 0.0 and w.constant:
                rse = 0.0  # every draw the same (P = 2: nothing random is left)
            else:
                rse = w.std / (mu * math.sqrt(w.size)) if mu > 0.0 else math.inf
            if rse <= rtol or n >= cap_n:
                break
            target = next_draws(n, rse, rtol, cap_n)
            if bar is None and progress is not False:
                # predicted draws: the variance per draw stays about the same
                want = cap_n if not math.isfinite(rse) else (rse / rtol) ** 2 * n
                want = min(cap_n, max(target, want))
                per = (time.perf_counter() - t0) / n
                if per * want > BAR_SECONDS:
                    bar = progress_bar(want, "tail draws", progress)
                    bar.update(n)
            done = n
            while done < target:
                m = min(done + DRAW_STEP, target)
                contributions(m, False)
                bar is not None and bar.update(m - done)
                done = m
            n = target
    finally:
        if bar is not None:
            bar.close()
    work = 0 if cost is None else cost.of(n)
    capped = (capped or cap_n < max_draws and n >= cap_n) and rse > rtol
    ln10 = math.log(10.0)
    if mu > 0.0:
        log_p = log_off + math.log(mu)
        log10_p = min(log_p / ln10, 0.0)
        lo_f = 1.0 - z * rse
        hi_f = 1.0 + z * rse
        lo = log10_p + math.log10(lo_f) if lo_f > 0.0 else -math.inf
        hi = min(log10_p + math.log10(hi_f), 0.0)
    else:
        log10_p = -math.inf
        # no draw in the tail: the offset e^{K(phi) - phi s} of a tilted grid point is a
        # Chernoff bound on the tail (every contribution is at most 1); 0 elsewhere
        lo, hi = -math.inf, (min(log_off / ln10, 0.0) if capped else -math.inf)
    return TailEstimate(log10_p, rse, (lo, hi), n, phi, work, capped)


def _summary(w) -> DrawSummary:
    """The :class:`DrawSummary` of an array of contributions."""
    if not w.size:
        return DrawSummary(0, 0.0, 0.0, False)
    return DrawSummary(int(w.size), float(w.mean()), float(w.std()), bool(w.min() == w.max()))


def _z_of(conf_level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + conf_level / 2.0))
