"""Is a ranking better than chance? The beta approximation and ``pranker()``.

Lopes & Bontempi (2014) approximate the null distribution of AP by a beta
distribution on ``[a, 1]``, ``a`` the smallest possible AP (all positives
ranked last), matched to the exact null mean and variance. The p-value is the
upper tail P(AP_null >= AP_observed).

Differences from the R package, on purpose:

- ``conf_int`` is the central interval of the null AUPRC *on the AUPRC
  scale* (``a + (1 - a) * q`` for beta quantiles ``q``); R returns the
  quantiles of the standardised beta on ``[0, 1]``.
- The null moments are exact for every N (see :mod:`pranker.null`).
- Degenerate cases are defined: P = N gives AP = 1 with null variance 0 and
  p-value 1; N = 1 likewise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from . import _kernels
from ._validation import check_count_pair, check_counts, check_scores_labels, check_ties
from .ap import _auprc_validated
from .null import _min_auprc_pair

__all__ = ["BetaFit", "beta_fit", "PrankerResult", "pranker", "significance_from_ap"]


@dataclass(frozen=True)
class BetaFit:
    """A beta distribution on ``[lower, 1]`` matched to the null mean and variance.

    Attributes
    ----------
    alpha, beta : float
        Shape parameters of the standardised beta on [0, 1] (NaN when the null
        distribution is a point mass).
    lower : float
        ``min_auprc(N, P)``, the left end of the support.
    scale : float
        ``1 - lower`` computed without cancellation.
    mean, var : float
        The moments it was fitted to.
    N, P : int
    """

    alpha: float
    beta: float
    lower: float
    scale: float
    mean: float
    var: float
    N: int
    P: int

    @property
    def degenerate(self) -> bool:
        """True when the null AP is a point mass (variance 0, e.g. P = N)."""
        return not (self.var > 0.0 and self.scale > 0.0)

    @property
    def two_point(self) -> bool:
        """True when the null puts all its mass on ``lower`` and 1 (N = 2, P = 1).

        The beta family reaches this only in the limit alpha, beta -> 0; the
        fit is then the two-point distribution itself (``alpha = beta = 0``),
        with P(AP = 1) equal to the standardised mean.
        """
        return self.alpha == 0.0 and self.beta == 0.0

    def _p_top(self) -> float:
        return (self.mean - self.lower) / self.scale

    def sf(self, x):
        """P(AP_null >= x) under the fitted beta, floored at 1 / C(N, P).

        The floor is exact, not an approximation: every observed AP is at most
        1, and the null puts probability 1 / C(N, P) on AP = 1 (all positives
        first), so no upper-tail probability can be smaller. Without it the
        beta gives p = 0 to a perfect ranking.
        """
        x = np.asarray(x, dtype=np.float64)
        if self.degenerate:
            return np.where(x <= self.mean, 1.0, 0.0)[()]
        if self.two_point:
            return np.where(x <= self.lower, 1.0, np.where(x <= 1.0, self._p_top(), 0.0))[()]
        z = np.clip((x - self.lower) / self.scale, 0.0, 1.0)
        return np.maximum(special.betaincc(self.alpha, self.beta, z), self.p_best)[()]

    @property
    def p_best(self) -> float:
        """1 / C(N, P): the null probability of the best possible ranking."""
        k = min(self.P, self.N - self.P)
        log_c = math.lgamma(self.N + 1.0) - math.lgamma(k + 1.0) - math.lgamma(self.N - k + 1.0)
        if log_c > 745.0:
            return 0.0
        # 1 / C(N, k) = prod_i i / (N - k + i): k is small here (C(N, k) < e^745)
        i = np.arange(1, k + 1, dtype=np.float64)
        return float(np.prod(i / ((self.N - k) + i)))

    def cdf(self, x):
        x = np.asarray(x, dtype=np.float64)
        if self.degenerate:
            return np.where(x >= self.mean, 1.0, 0.0)[()]
        if self.two_point:
            return np.where(x < self.lower, 0.0, np.where(x < 1.0, 1.0 - self._p_top(), 1.0))[()]
        z = np.clip((x - self.lower) / self.scale, 0.0, 1.0)
        return special.betainc(self.alpha, self.beta, z)[()]

    def pdf(self, x):
        """Density on the AUPRC scale (NaN for a point mass)."""
        x = np.asarray(x, dtype=np.float64)
        if self.degenerate or self.two_point:
            return np.full(x.shape, np.nan)[()]
        z = (x - self.lower) / self.scale
        inside = (z > 0.0) & (z < 1.0)
        zc = np.where(inside, z, 0.5)
        logpdf = (
            special.xlogy(self.alpha - 1.0, zc)
            + special.xlog1py(self.beta - 1.0, -zc)
            - special.betaln(self.alpha, self.beta)
        )
        return (np.where(inside, np.exp(logpdf), 0.0) / self.scale)[()]

    def ppf(self, q):
        """Quantiles on the AUPRC scale."""
        q = np.asarray(q, dtype=np.float64)
        if self.degenerate:
            return np.full(q.shape, self.mean)[()]
        if self.two_point:
            return np.where(q <= 1.0 - self._p_top(), self.lower, 1.0)[()]
        return (self.lower + self.scale * special.betaincinv(self.alpha, self.beta, q))[()]

    def interval(self, conf_level: float = 0.95):
        """Central interval holding ``conf_level`` of the null AUPRC."""
        lo, hi = self.ppf([(1.0 - conf_level) / 2.0, (1.0 + conf_level) / 2.0])
        return float(lo), float(hi)

    def frozen(self):
        """The equivalent ``scipy.stats.beta`` frozen distribution (not for a point mass)."""
        if self.degenerate or self.two_point:
            raise ValueError("the null distribution is discrete here; there is no beta to freeze.")
        from scipy import stats

        return stats.beta(self.alpha, self.beta, loc=self.lower, scale=self.scale)


def beta_fit(mean: float, var: float, N: int, P: int) -> BetaFit:
    """Fit the beta distribution on ``[min_auprc(N, P), 1]`` to a null mean and variance.

    Works from precomputed parameters, so tables of ``null_params`` can be
    reused. Method of moments on the standardised variable
    ``Z = (AP - a) / (1 - a)``: with ``m = E[Z]`` and ``v = Var[Z]``,
    ``alpha = m c`` and ``beta = (1 - m) c`` where ``c = m (1 - m) / v - 1``.
    ``m`` and ``1 - m`` are formed from ``mean - a`` and ``1 - mean`` with the
    closed forms ``1 - a = ((N-P)/P)(H_N - H_{N-P})`` and
    ``1 - mean = (N-P)(N - H_N) / (N(N-1))`` when they are small, so that
    neither cancels.

    Raises
    ------
    ValueError
        If the moments cannot belong to a distribution on ``[a, 1]``
        (mean outside ``(a, 1]``, negative variance, or variance larger than
        ``(mean - a)(1 - mean)``).

    Examples
    --------
    >>> from pranker import null_params
    >>> fit = beta_fit(*null_params(100, 10), 100, 10)
    >>> round(fit.lower, 6), fit.alpha > 0 and fit.beta > 0
    (0.056738, True)
    """
    (n_arr, p_arr, _) = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    mean = float(mean)
    var = float(var)
    if not (math.isfinite(mean) and math.isfinite(var)):
        raise ValueError(f"null mean and variance must be finite; got mean={mean}, var={var}.")
    if var < 0.0:
        raise ValueError(f"null variance must be >= 0; got {var}.")
    a, one_minus_a = _min_auprc_pair(n, p)
    if var == 0.0 or one_minus_a == 0.0:
        return BetaFit(math.nan, math.nan, a, one_minus_a, mean, var, n, p)
    tol = 1e-12
    if not (a - tol <= mean <= 1.0 + tol):
        raise ValueError(
            f"null mean {mean} is outside [min_auprc, 1] = [{a}, 1] for N={n}, P={p}; "
            "check that params=(mean, var) belong to these N and P."
        )
    if a >= 0.5:
        one_minus_mean = (n - p) * (n - _kernels.harmonic(float(n))) / (float(n) * (n - 1.0))
        if abs(one_minus_mean - (1.0 - mean)) > 1e-9:
            one_minus_mean = 1.0 - mean  # user-supplied mean: take it as given
        mean_minus_a = one_minus_a - one_minus_mean
    else:
        one_minus_mean = 1.0 - mean
        mean_minus_a = mean - a
    m = mean_minus_a / one_minus_a
    one_minus_m = one_minus_mean / one_minus_a
    v = var / (one_minus_a * one_minus_a)
    c = m * one_minus_m / v - 1.0
    if m > 0.0 and one_minus_m > 0.0 and abs(c) <= 1e-9:
        # variance at its maximum (mean - a)(1 - mean): all mass on a and 1
        return BetaFit(0.0, 0.0, a, one_minus_a, mean, var, n, p)
    if not (m > 0.0 and one_minus_m > 0.0 and c > 0.0):
        raise ValueError(
            f"null moments mean={mean}, var={var} do not fit a beta distribution on "
            f"[{a}, 1] (N={n}, P={p}): the variance must be below (mean - a)(1 - mean)."
        )
    return BetaFit(m * c, one_minus_m * c, a, one_minus_a, mean, var, n, p)


@dataclass(frozen=True)
class PrankerResult:
    """Result of :func:`pranker`, in the style of ``scipy.stats`` results.

    Attributes
    ----------
    auprc : float
        Observed AUPRC (average precision). Also available as ``statistic``.
    pvalue : float
        P(AP_null >= auprc) under random ranking.
    null_mean, null_var : float
        Mean and variance of the null AP.
    n, n_pos : int
        Number of instances (N) and of positives (P).
    conf_int : tuple of float
        Central ``conf_level`` interval of the null AUPRC, on the AUPRC scale.
    conf_level : float
    beta_alpha, beta_beta : float
        Shape parameters of the fitted standardised beta (NaN for a point mass).
    min_auprc : float
        Lower end of the null support (all positives ranked last).
    method : str
        How the p-value was obtained: ``"beta"``, ``"skewbeta"``, ``"exact"``
        or ``"montecarlo"`` (for ``method="auto"``, the one actually used).
    ties : str
        Tie mode used for the observed AUPRC.
    pvalue_ci : tuple of float or None
        Monte Carlo only: Clopper–Pearson interval for the true p-value.
    n_draws : int or None
        Monte Carlo only: number of null draws taken (fewer than asked when
        sampling stopped early).
    """

    auprc: float
    pvalue: float
    null_mean: float
    null_var: float
    n: int
    n_pos: int
    conf_int: tuple
    conf_level: float
    beta_alpha: float
    beta_beta: float
    min_auprc: float
    method: str = "beta"
    ties: str = "average"
    pvalue_ci: tuple | None = None
    n_draws: int | None = None

    @property
    def statistic(self) -> float:
        return self.auprc

    @property
    def null_sd(self) -> float:
        return math.sqrt(self.null_var)

    @property
    def zscore(self) -> float:
        """(auprc - null_mean) / null_sd (NaN for a point mass)."""
        if self.null_var <= 0.0:
            return math.nan
        return (self.auprc - self.null_mean) / math.sqrt(self.null_var)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["conf_int"] = list(self.conf_int)
        if self.pvalue_ci is not None:
            d["pvalue_ci"] = list(self.pvalue_ci)
        return d


def _check_conf_level(conf_level) -> float:
    c = float(conf_level)
    if not (0.0 < c < 1.0):
        raise ValueError(f"conf_level must be in (0, 1); got {conf_level!r}.")
    return c


def _check_params(params):
    try:
        mean, var = params
        mean = float(mean)
        var = float(var)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"params must be a pair (mean, var) of numbers, as returned by null_params; got {params!r}."
        ) from exc
    return mean, var


METHODS = ("beta", "skewbeta", "exact", "montecarlo", "auto")


def pranker(
    scores,
    y,
    params=None,
    conf_level: float = 0.95,
    *,
    ties: str = "average",
    method: str | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = False,
):
    """AUPRC of a ranking and its p-value against random ranking.

    Parameters
    ----------
    scores : array_like of float
        Higher scores are ranked first; any shape (flattened). NaN is an error.
    y : array_like
        Gold standard: nonzero marks a positive.
    params : (mean, var), optional
        Precomputed null parameters (e.g. from :func:`null_params` or a null
        table) for this N and P; skips computing them, as in R. Used by the
        beta fit and ``conf_int``.
    conf_level : float
        Coverage of the central null interval ``conf_int`` and of the Monte
        Carlo ``pvalue_ci``.
    ties : str
        Tie mode of the observed AUPRC; see :func:`auprc_ap`. The null is
        always untied random ranking.
    method : {"auto", "beta", "skewbeta", "exact", "montecarlo"}, optional
        Default ``"auto"``, or ``"beta"`` when ``params`` are given (they are
        the beta's parameters, as in R).
        ``"auto"``: exact when cheap, the three-moment beta where the
        calibration shows it within 0.005 of the truth, Monte Carlo
        otherwise, and the two-moment beta when P > 10,000 positives make
        Monte Carlo too slow (rule in ``docs/calibration.md`` and
        :func:`auto_method`); the result's ``method`` says which was used.
        ``"beta"``: the two-moment beta of Lopes & Bontempi, as in R: O(1),
        but far off when P is small and N / P large (docs/calibration.md).
        ``"skewbeta"``: the three-moment beta (:func:`pranker.skew_beta_fit`).
        ``"exact"``: exact tail count (:func:`pranker.exact_pvalue`); fails
        with ``ExactBudgetExceeded`` when it would take more than
        ``max_nodes`` steps.
        ``"montecarlo"``: permutation p-value (:func:`pranker.montecarlo_pvalue`).
    n_draws : int, optional
        Monte Carlo draws (default 100,000). ``"auto"`` draws at most
        400,000 and stops as soon as the ``conf_level`` interval for p is
        within 0.004 of the estimate (a few thousand draws for small p).
    seed : int, optional
        Monte Carlo seed.
    alpha : float, optional
        Monte Carlo early stopping: stop once the p-value is clearly below
        or above ``alpha`` (wrong-side probability <= 1 - conf_level).
    max_nodes : int, optional
        Step budget of the exact tail count (default 1e9; ``"auto"`` uses
        2e6 before falling back to Monte Carlo).
    progress : bool or None
        Progress bar for Monte Carlo (needs tqdm).

    Returns
    -------
    PrankerResult

    References
    ----------
    .. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
       and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    >>> res = pranker(s, y)  # tiny: "auto" counts the exact tail, 2 of C(10, 5) rankings
    >>> round(res.auprc, 4), res.n, res.n_pos, res.method, round(res.pvalue, 4)
    (0.9667, 10, 5, 'exact', 0.0079)
    >>> ex = pranker(s, y, method="beta")  # the beta tail is too light at P = 5
    >>> ex.method, round(ex.pvalue, 4)
    ('beta', 0.004)
    >>> mc = pranker(s, y, method="montecarlo", seed=1)
    >>> mc.pvalue_ci[0] < res.pvalue < mc.pvalue_ci[1]
    True
    """
    check_ties(ties)
    conf_level = _check_conf_level(conf_level)
    _check_method(method, params)
    if params is not None:
        params = _check_params(params)
    s, yb = check_scores_labels(scores, y)
    n = int(s.shape[0])
    n_pos = int(np.count_nonzero(yb))
    auprc = _auprc_validated(s, yb, ties)
    return significance_from_ap(
        auprc, n, n_pos, params=params, conf_level=conf_level, ties=ties, method=method,
        n_draws=n_draws, seed=seed, alpha=alpha, max_nodes=max_nodes, progress=progress,
    )


def _check_method(method, params) -> str:
    if method is None:
        # precomputed (mean, var) are the beta's parameters, as in R
        return "beta" if params is not None else "auto"
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    return method


def significance_from_ap(
    auprc: float,
    n: int,
    n_pos: int,
    *,
    params=None,
    conf_level: float = 0.95,
    ties: str = "average",
    method: str | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = False,
) -> PrankerResult:
    """The :class:`PrankerResult` of an AP computed elsewhere: the null needs only N and P.

    Used by :func:`pranker` and by the out-of-core and Dask versions
    (:mod:`pranker.chunked`, :mod:`pranker.dask`); arguments as in
    :func:`pranker`.
    """
    conf_level = _check_conf_level(conf_level)
    method = _check_method(method, params)
    if params is not None:
        params = _check_params(params)
    n, n_pos = check_count_pair(n, n_pos)
    auprc = float(auprc)
    if params is None:
        mean, var = _kernels.null_moments(float(n), float(n_pos), float(n - n_pos))
    else:
        mean, var = params
    fit = beta_fit(mean, var, n, n_pos)
    conf_int = fit.interval(conf_level)
    pvalue_ci = None
    used_draws = None
    used = method
    if method == "auto":
        used, pvalue = _auto_pvalue(auprc, n, n_pos, max_nodes)
        if used == "montecarlo":
            pvalue = None
    if method == "beta":
        pvalue = float(fit.sf(auprc))
    elif method == "skewbeta":
        from .skew import skew_beta_fit

        pvalue = float(skew_beta_fit(n, n_pos).sf(auprc))
    elif method == "exact":
        from .exact import EXACT_MAX_NODES, exact_pvalue

        nodes = EXACT_MAX_NODES if max_nodes is None else max_nodes
        pvalue = float(exact_pvalue(auprc, n, n_pos, max_nodes=nodes))
    if used == "montecarlo":
        from .montecarlo import montecarlo_pvalue

        if n_draws is None:
            n_draws = AUTO_MC_DRAWS if method == "auto" else 100_000
        mc = montecarlo_pvalue(
            auprc,
            n,
            n_pos,
            n_draws=n_draws,
            seed=seed,
            alpha=alpha,
            abs_tol=AUTO_MC_TOL if method == "auto" else None,
            conf_level=conf_level,
            progress=progress,
        )
        pvalue = mc.pvalue
        pvalue_ci = mc.pvalue_ci
        used_draws = mc.n_draws
    return PrankerResult(
        auprc=auprc,
        pvalue=float(pvalue),
        null_mean=float(mean),
        null_var=float(var),
        n=n,
        n_pos=n_pos,
        conf_int=conf_int,
        conf_level=conf_level,
        beta_alpha=float(fit.alpha),
        beta_beta=float(fit.beta),
        min_auprc=float(fit.lower),
        method=used,
        ties=ties,
        pvalue_ci=pvalue_ci,
        n_draws=used_draws,
    )


# --- the "auto" rule (numbers from benchmarks/calibration.py, docs/calibration.md) ---
AUTO_ENUMERATE = 20_000_000  # C(N, P) at or below this (and N <= AUTO_EXACT_MAX_N): exact
AUTO_EXACT_MAX_N = 20_000  # bounds the O(P) cost per search step when P is close to N
AUTO_MAX_NODES = 2_000_000  # exact tail-count budget before falling back (~0.1 s)
AUTO_SKEW_MIN_P = 1000  # three-moment beta when P >= this ...
AUTO_SKEW_MAX_RATIO = 10.0  # ... and N / P <= this
AUTO_MC_DRAWS = 400_000  # at most; stops once the CI is within AUTO_MC_TOL
AUTO_MC_TOL = 0.004
# Above this many positives Monte Carlo costs seconds per p-value (O(P) per
# draw, up to ~1.3e5 draws near p = 0.5) and "auto" uses the two-moment beta,
# whose error falls with P at fixed N/P (0.090 -> 0.024 from P = 100 to 1000
# at N/P = 100; 0.026 -> 0.009 at N/P = 10): extrapolated, not measured.
AUTO_MC_MAX_P = 10_000


def auto_method(N: int, P: int) -> str:
    """The method ``pranker(..., method="auto")`` tries first for N instances, P positives.

    ``"exact"`` when P = 1, P = N, or C(N, P) <= 2e7 with N <= 20,000;
    ``"skewbeta"`` when P >= 1000 and N / P <= 10 (the two-moment beta
    instead when N P > 2e9, beyond the third-moment budget); ``"beta"`` when
    P > 10,000 (Monte Carlo would take seconds; the beta's error falls with
    P, extrapolated from the calibration grid); otherwise
    ``"exact-or-montecarlo"``: an exact tail count with a 2e6-step budget,
    then Monte Carlo (<= 400,000 draws, stopping once the p-value is known
    to +-0.004).

    Examples
    --------
    >>> auto_method(20, 5), auto_method(10**4, 1000), auto_method(10**5, 30)
    ('exact', 'skewbeta', 'exact-or-montecarlo')
    >>> auto_method(10**7, 10**5)
    'beta'
    """
    (n_arr, p_arr, _) = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    if p == 1 or p == n or (n <= AUTO_EXACT_MAX_N and math.comb(n, p) <= AUTO_ENUMERATE):
        return "exact"
    if p >= AUTO_SKEW_MIN_P and n <= AUTO_SKEW_MAX_RATIO * p:
        return "skewbeta"
    if p > AUTO_MC_MAX_P:
        return "beta"
    return "exact-or-montecarlo"


def _auto_pvalue(ap: float, n: int, p: int, max_nodes=None):
    """(method used, p-value or None when Monte Carlo is needed)."""
    from .exact import ExactBudgetExceeded, exact_pvalue

    rule = auto_method(n, p)
    if rule == "beta":
        mean, var = _kernels.null_moments(float(n), float(p), float(n - p))
        return "beta", float(beta_fit(mean, var, n, p).sf(ap))
    if rule == "exact":
        return "exact", exact_pvalue(ap, n, p, max_nodes=2**62)
    if rule == "skewbeta":
        from .skew import THIRD_MOMENT_MAX_WORK, skew_beta_fit

        if n * p <= THIRD_MOMENT_MAX_WORK:
            return "skewbeta", float(skew_beta_fit(n, p).sf(ap))
        # beyond the third-moment budget (P > ~1.4e4 here) the two-moment beta,
        # whose error falls like 1/sqrt(P) at fixed N/P (docs/calibration.md)
        mean, var = _kernels.null_moments(float(n), float(p), float(n - p))
        return "beta", float(beta_fit(mean, var, n, p).sf(ap))
    try:
        nodes = AUTO_MAX_NODES if max_nodes is None else max_nodes
        return "exact", exact_pvalue(ap, n, p, max_nodes=nodes)
    except ExactBudgetExceeded:
        return "montecarlo", None
