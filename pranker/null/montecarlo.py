r"""Monte Carlo (permutation) null of AP under random ranking: the estimator with early stopping.

Each draw places the P positives uniformly at random among N ranks (only the
positives' ranks are drawn, O(P) expected; :func:`pranker.null.null_ap_samples`).
Draw j depends only on ``(seed, j)``, so batches are reproducible whatever the
number of threads and however the draws are split.

Estimator
---------
With ``b`` of ``m`` null draws at least the observed AP (ties within 1e-12
relative counted as ``>=``, as in :mod:`pranker.null.exact`), the p-value is
``(b + 1) / (m + 1)``: the observed ranking counted as one more draw, which
makes ``P(p <= u) <= u`` under the null for every u (Phipson & Smyth 2010).
``b`` is Binomial(m, p_true) with ``p_true = P(AP_null >= ap)``; the
Clopper–Pearson interval on ``b / m`` is a confidence interval for p_true.

Sequential early stopping
-------------------------
Given a level ``alpha`` (or a precision ``abs_tol``), draws are taken in batches at the cumulative sizes
``m_1 < m_2 < ... < m_K = n_draws`` (doubling from 1000, so K is about
log2(n_draws / 1000) + 1). At look j the Clopper–Pearson interval is computed
at confidence ``1 - (1 - conf_level) / K``; sampling stops as soon as the
interval lies entirely below or above ``alpha``. Stopping on the wrong side
(deciding p < alpha when p_true >= alpha, or the reverse) needs the interval
at some look to miss p_true; by the union bound over the K looks
(Bonferroni) that has probability at most ``1 - conf_level``. The reported
``pvalue_interval`` is the last interval (at that adjusted confidence), so it is
valid whenever sampling stopped. With ``abs_tol``, sampling also stops once
the interval is within ``abs_tol`` of ``b / m`` on both sides; by the same
union bound ``|b/m - p_true| <= abs_tol`` then holds with probability at
least ``conf_level``. The estimate ``(b+1)/(m+1)`` differs from ``b/m`` by
at most ``1/(m+1)``.

References
----------
B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
Stat. Appl. Genet. Mol. Biol. 9(1), 2010.
C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
illustrated in the case of the binomial", Biometrika 26(4), 1934.
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._docs import fill_doc
from .._progress import progress_bar
from .._results import renamed_parameters
from .._validation import check_ap, check_conf_level, check_count, check_probability
from .base import NULL_DOCS, NullDistribution, PValue
from .choice import DEFAULT_MC_DRAWS, DEFAULT_SEED, REL_TOL
from .moments import null_ap_samples

__all__ = ["MonteCarloNull", "clopper_pearson", "exceedances", "Exceedances"]

_FIRST_LOOK = 1000
_CHUNK = 1 << 20
NULL_INTERVAL_DRAWS = 200_000  # draws behind a Monte Carlo null interval (as MonteCarloNull's)


def clopper_pearson(b: int, m: int, conf_level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) confidence interval for a binomial proportion b / m.

    The bounds are the proportions q at which seeing ``b`` or more successes
    (for the lower bound), or ``b`` or fewer (for the upper bound), in ``m``
    trials has probability ``(1 - conf_level) / 2``: beta quantiles
    ``Beta(b, m - b + 1)`` at ``(1 - conf_level) / 2`` and ``Beta(b + 1, m - b)``
    at ``(1 + conf_level) / 2``. The lower bound is 0 when ``b = 0`` and the
    upper bound 1 when ``b = m``. The interval covers the true proportion
    with probability at least ``conf_level`` (it is conservative).

    Parameters
    ----------
    b : int
        Number of successes (here: null draws with AP at least the observed
        one), ``0 <= b <= m``.
    m : int
        Number of trials (null draws), ``m >= 1``.
    conf_level : float
        Confidence level, in (0, 1); default 0.95.

    Returns
    -------
    lo, hi : float
        Bounds of the interval, ``0 <= lo <= b / m <= hi <= 1``.

    See Also
    --------
    montecarlo_pvalue : Monte Carlo p-value whose ``pvalue_interval`` is this interval.
    scipy.stats.binomtest : its ``proportion_ci(method="exact")`` is the same interval.

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26(4),
       404-413, 1934.

    Examples
    --------
    No success in 100 trials: the upper bound is ``1 - 0.025 ** (1 / 100)``.

    >>> lo, hi = clopper_pearson(0, 100)
    >>> lo, round(hi, 4)
    (0.0, 0.0362)

    Three successes in ten trials, at 95 % and at 90 % confidence:

    >>> [round(x, 4) for x in clopper_pearson(3, 10)]
    [0.0667, 0.6525]
    >>> [round(x, 4) for x in clopper_pearson(3, 10, conf_level=0.9)]
    [0.0873, 0.6066]
    """
    b, m = check_count(b, "b"), check_count(m, "m")
    if not (m >= 1 and 0 <= b <= m):
        raise ValueError(
            f"clopper_pearson needs 0 <= b <= m and m >= 1 (b successes in m trials); "
            f"got b={b}, m={m}."
        )
    d = 1.0 - check_conf_level(conf_level)
    lo = 0.0 if b == 0 else float(special.betaincinv(b, m - b + 1, d / 2.0))
    hi = 1.0 if b == m else float(special.betaincinv(b + 1, m - b, 1.0 - d / 2.0))
    return lo, hi


def _schedule(n_draws: int, sequential: bool) -> list[int]:
    if not sequential:
        return [n_draws]
    looks = []
    m = _FIRST_LOOK
    while m < n_draws:
        looks.append(m)
        m *= 2
    looks.append(n_draws)
    return looks


@dataclass(frozen=True)
class Exceedances:
    """What the draws of a Monte Carlo p-value found (:func:`exceedances`).

    ``n_exceed`` of ``n_draws`` null draws had AP at least the threshold;
    ``interval`` is the Clopper-Pearson interval at ``conf_level`` (after the
    Bonferroni adjustment over the looks); ``decision`` as in
    :func:`pranker.significance.montecarlo.montecarlo_pvalue`.
    """

    n_exceed: int
    n_draws: int
    interval: tuple
    conf_level: float
    decision: str | None

    @property
    def pvalue(self) -> float:
        """``(b + 1) / (m + 1)`` (Phipson & Smyth 2010)."""
        return (self.n_exceed + 1.0) / (self.n_draws + 1.0)

    @property
    def rse(self) -> float:
        """Relative standard error of ``b / m``: ``sqrt((1 - b/m) / max(b, 1))``."""
        b, m = self.n_exceed, self.n_draws
        return math.sqrt(max(1.0 - b / m, 0.0) / max(b, 1)) if m > 0 else math.inf


def exceedances(
    a: float,
    n: int,
    p: int,
    *,
    n_draws: int,
    seed: int,
    alpha: float | None,
    abs_tol: float | None,
    conf_level: float,
    progress: bool | None,
) -> Exceedances:
    """Count null draws with AP at least ``a``, with the sequential stopping of the module docstring.

    Validated arguments only (the public entry point checks them).
    """
    looks = _schedule(n_draws, alpha is not None or abs_tol is not None)
    level = 1.0 - (1.0 - conf_level) / len(looks)
    thr = a * (1.0 - REL_TOL)
    b = 0
    m = 0
    decision = None
    ci = (0.0, 1.0)
    with progress_bar(n_draws, "Monte Carlo null AP", progress) as bar:
        for look in looks:
            while m < look:
                k = min(_CHUNK, look - m)
                draws = null_ap_samples(n, p, k, seed=seed, start=m)
                b += int(np.count_nonzero(draws >= thr))
                m += k
                bar.update(k)
            ci = clopper_pearson(b, m, level)
            if alpha is not None:
                if ci[1] < alpha:
                    decision = "below"
                    break
                if ci[0] > alpha:
                    decision = "above"
                    break
            if abs_tol is not None and max(ci[1] - b / m, b / m - ci[0]) <= abs_tol:
                break
    if alpha is not None and decision is None:
        decision = "undecided"
    return Exceedances(b, m, ci, level, decision)


@fill_doc(NULL_DOCS)
class MonteCarloNull(NullDistribution):
    """Random placements of the positives (:func:`exceedances`).

    p-values ``(b + 1) / (m + 1)`` with a Clopper–Pearson interval; quantiles
    from ``n_draws`` seeded null draws.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    n_draws : int, default 100_000
        Random rankings per p-value.
    seed : int, optional
        Seed of the draws (a fixed default, so the same call gives the same number).
    alpha, abs_tol : float, optional
        Early stopping, as in :func:`pranker.significance.montecarlo.montecarlo_pvalue`.
    progress : bool or None, default False
        Show a progress bar.

    Attributes
    ----------
    %(null_attributes)s
    n_draws, seed
        As given (``seed`` filled in with the fixed default).

    See Also
    --------
    exceedances : The estimator.
    TiltNull : Resolves p-values far below ``1 / n_draws``.

    References
    ----------
    .. [1] B. Phipson and G. K. Smyth, "Permutation p-values should never be
       zero", Stat. Appl. Genet. Mol. Biol. 9(1) (2010).
    .. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26 (1934).

    Examples
    --------
    The Clopper-Pearson interval covers the exact p-value:

    >>> from pranker.null.exact import ExactNull
    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> mc = MonteCarloNull(40, 4, n_draws=20_000).pvalue(0.6)
    >>> lo, hi = mc.pvalue_interval
    >>> mc.method, bool(lo <= exact <= hi)
    ('montecarlo', True)
    """

    method = "montecarlo"
    interval_method = "montecarlo"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(
        self,
        n: int,
        n_pos: int,
        *,
        n_draws: int = DEFAULT_MC_DRAWS,
        seed: int | None = None,
        alpha: float | None = None,
        abs_tol: float | None = None,
        progress: bool | None = False,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.n_draws = int(n_draws)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        where = "MonteCarloNull"
        self.alpha = check_probability(alpha, "alpha", where, " (the level for early stopping)")
        self.abs_tol = check_probability(abs_tol, "abs_tol", where)
        self.progress = progress
        self._sample = None

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        if self.P == self.N:
            return PValue.exact(1.0 if ap <= 1.0 + REL_TOL else 0.0)
        a = check_ap(ap)
        if self.n_draws < 1:
            raise ValueError(f"n_draws must be >= 1; got {self.n_draws}.")
        ex = exceedances(
            a,
            self.N,
            self.P,
            n_draws=self.n_draws,
            seed=self.seed,
            alpha=self.alpha,
            abs_tol=self.abs_tol,
            conf_level=check_conf_level(conf_level),
            progress=self.progress,
        )
        lo, hi = (float(v) for v in ex.interval)
        return PValue(
            float(ex.pvalue),
            math.log10(ex.pvalue),
            (lo, hi),
            (math.log10(lo) if lo > 0 else -math.inf, math.log10(hi) if hi > 0 else -math.inf),
            ex.rse,
            "montecarlo",
            int(ex.n_draws),
            self.seed,
        )

    def _draws(self):
        if self._sample is None:
            self._sample = np.sort(
                null_ap_samples(self.N, self.P, min(self.n_draws, 200_000), seed=self.seed)
            )
        return self._sample

    def cdf(self, ap):
        x = self._draws()
        a = np.asarray(ap, dtype=np.float64)
        return (np.searchsorted(x, a * (1.0 + REL_TOL), side="right") / x.size)[()]

    def ppf(self, q):
        return np.quantile(self._draws(), q)[()]
