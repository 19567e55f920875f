"""The two-moment beta approximation of the null AP (Lopes & Bontempi 2014, as in R).

The null distribution of AP is approximated by a beta distribution on
``[a, 1]``, ``a`` the smallest possible AP (all positives ranked last),
matched to the exact null mean and variance. It is O(1) and reproduces the R
package, but its tail is far off when P is small or N / P large (see the
calibration study in the documentation); the default p-values of pranker do
not use it.

References
----------
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._docs import fill_doc
from .._numba import moments as _kernels
from .._results import renamed_parameters
from .._validation import check_counts
from .base import NULL_DOCS, NullDistribution, PValue
from .logspace import log_comb
from .moments import _min_auprc_pair

__all__ = ["BetaNull", "BetaFit", "beta_fit"]

_LN10 = math.log(10.0)


def log_beta_upper(a: float, b: float, z: float, one_minus_z: float | None = None) -> float:
    """Natural log of the beta upper tail ``1 - I_z(a, b) = I_{1-z}(b, a)``, finite at any depth.

    scipy's ``betaincc`` where it is a normal float; below, the continued
    fraction of the incomplete beta (Lentz's algorithm) with its prefactor
    ``x^b (1-x)^a / (b B(a, b))`` in logs, ``x = 1 - z`` (give ``one_minus_z``
    when it is known more precisely than ``1 - z``). -inf at ``z >= 1``.

    References
    ----------
    .. [1] W. H. Press, S. A. Teukolsky, W. T. Vetterling and B. P. Flannery,
       Numerical Recipes, 3rd ed., section 6.4 (the incomplete beta function).

    Examples
    --------
    >>> round(log_beta_upper(2.0, 3.0, 0.5), 12) == round(math.log(5 / 16), 12)
    True
    >>> round(log_beta_upper(3.0, 4000.0, 0.5) / _LN10, 3)  # about 1.5e-1198: below float64
    -1197.818
    """
    x = 1.0 - z if one_minus_z is None else float(one_minus_z)
    if z <= 0.0 or x >= 1.0:
        return 0.0
    if z >= 1.0 or x <= 0.0:
        return -math.inf
    v = float(special.betaincc(a, b, z))
    if v > 1e-280:
        return math.log(v)
    p, q = b, a  # I_x(p, q) with x = 1 - z
    if x > (p + 1.0) / (p + q + 2.0):  # not in the tail: the float value is all there is
        return math.log(v) if v > 0.0 else -math.inf
    front = p * math.log(x) + q * math.log1p(-x) - float(special.betaln(p, q)) - math.log(p)
    return front + math.log(_beta_continued_fraction(p, q, x))


def _beta_continued_fraction(p: float, q: float, x: float) -> float:
    """The continued fraction of ``I_x(p, q)`` (modified Lentz), for ``x < (p+1)/(p+q+2)``."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (p + q) * x / (p + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for num in (
            m * (q - m) * x / ((p + m2 - 1.0) * (p + m2)),
            -(p + m) * (p + q + m) * x / ((p + m2) * (p + m2 + 1.0)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def log10_floor(n: int, n_pos: int) -> float:
    """log10 of 1 / C(N, P), the null probability of the best ranking: no upper-tail
    probability of AP is smaller (every AP is at most 1)."""
    return -log_comb(n, min(n_pos, n - n_pos)) / _LN10


@fill_doc()
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
        Number of instances and of positives.

    See Also
    --------
    beta_fit : Builds it from a mean and a variance.
    SkewBetaFit : Also matches the skewness, with a free lower end.
    BetaNull : The same approximation behind ``pranker(..., method="beta")``.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    The fitted beta, moved to ``[lower, 1]``, has the null mean and variance:

    >>> from pranker import null_params
    >>> fit = beta_fit(*null_params(100, 10), 100, 10)
    >>> a, b = fit.alpha, fit.beta
    >>> mean = fit.lower + fit.scale * a / (a + b)
    >>> var = fit.scale**2 * a * b / ((a + b) ** 2 * (a + b + 1))
    >>> bool(abs(mean - fit.mean) < 1e-12 and abs(var / fit.var - 1) < 1e-9)
    True
    >>> bool(fit.sf(fit.lower) == 1.0)
    True
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

    def log10_sf(self, x):
        """log10 of :meth:`sf`, in log space: finite where ``sf`` underflows float64, and
        floored at ``-log10 C(N, P)`` like ``sf``.

        >>> from pranker import null_params
        >>> fit = beta_fit(*null_params(10**6, 100), 10**6, 100)
        >>> float(fit.sf(1.0)), round(float(fit.log10_sf(1.0)), 1)  # all 100 positives first
        (0.0, -442.0)
        """
        return log10_fitted_tail(self, x, self.scale)

    @property
    def p_best(self) -> float:
        """1 / C(N, P): the null probability of the best possible ranking (0.0 where it
        underflows; :meth:`log10_sf` keeps its logarithm)."""
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


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def beta_fit(mean: float, var: float, n: int, n_pos: int) -> BetaFit:
    """Fit the beta distribution on ``[min_auprc(N, P), 1]`` to a null mean and variance.

    Works from precomputed parameters, so tables of ``null_params`` can be
    reused. Method of moments on the standardised variable
    ``Z = (AP - a) / (1 - a)``: with ``m = E[Z]`` and ``v = Var[Z]``,
    ``alpha = m c`` and ``beta = (1 - m) c`` where ``c = m (1 - m) / v - 1``.
    ``m`` and ``1 - m`` are formed from ``mean - a`` and ``1 - mean`` with the
    closed forms ``1 - a = ((N-P)/P)(H_N - H_{N-P})`` and
    ``1 - mean = (N-P)(N - H_N) / (N(N-1))`` when they are small, so that
    neither cancels.

    Parameters
    ----------
    mean, var : float
        Null mean and variance of the AP (e.g. from :func:`pranker.null_params`).
    n, n_pos : int
        Number of instances and of positives, ``1 <= P <= N``.

    Returns
    -------
    BetaFit
        Shapes, support and the ``sf``/``cdf``/``ppf`` of the fitted beta.

    Raises
    ------
    ValueError
        If the moments cannot belong to a distribution on ``[a, 1]``
        (mean outside ``(a, 1]``, negative variance, or variance larger than
        ``(mean - a)(1 - mean)``).

    See Also
    --------
    pranker.null_params : The exact null mean and variance.
    pranker.min_auprc : The lower end of the support.
    skew_beta_fit : A three-moment fit.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> from pranker import null_params
    >>> fit = beta_fit(*null_params(100, 10), 100, 10)
    >>> round(fit.lower, 6), fit.alpha > 0 and fit.beta > 0
    (0.056738, True)
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
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
    m, one_minus_m, c = _kernels.beta_standard_moments(
        float(n), float(p), mean, var, a, one_minus_a
    )
    if m > 0.0 and one_minus_m > 0.0 and abs(c) <= 1e-9:
        # variance at its maximum (mean - a)(1 - mean): all mass on a and 1
        return BetaFit(0.0, 0.0, a, one_minus_a, mean, var, n, p)
    if not (m > 0.0 and one_minus_m > 0.0 and c > 0.0):
        raise ValueError(
            f"null moments mean={mean}, var={var} do not fit a beta distribution on "
            f"[{a}, 1] (N={n}, P={p}): the variance must be below (mean - a)(1 - mean)."
        )
    return BetaFit(m * c, one_minus_m * c, a, one_minus_a, mean, var, n, p)


def log10_fitted_tail(fit, x, scale: float):
    """log10 P(AP >= x) under a fitted beta on ``[fit.lower, 1]`` of width ``scale``, floored
    at 1 / C(N, P); the discrete cases (point mass, two points) from ``fit.sf``."""

    def one(v: float) -> float:
        if fit.degenerate or getattr(fit, "two_point", False):
            p = float(fit.sf(v))
            lg = math.log10(p) if p > 0.0 else -math.inf
        else:
            z = min(max((v - fit.lower) / scale, 0.0), 1.0)
            lg = log_beta_upper(fit.alpha, fit.beta, z, (1.0 - v) / scale) / _LN10
        if v > 1.0 + 1e-12 or fit.N == fit.P:
            return lg  # above the support (or a point mass): nothing to floor
        return max(lg, log10_floor(fit.N, fit.P))

    a = np.asarray(x, dtype=np.float64)
    return np.vectorize(one, otypes=[np.float64])(a)[()]


class FittedNull(NullDistribution):
    # A null read off a fitted beta, ``self.fit`` (set by the subclass): its
    # ``sf`` is the p-value, which carries no error bound, and its ``cdf`` the cdf.

    fit: Any  # a BetaFit, or a SkewBetaFit (pranker.null.skewbeta)

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        return PValue.approximate(float(self.fit.sf(ap)), self.method, float(self.fit.log10_sf(ap)))

    def cdf(self, ap):
        return self.fit.cdf(ap)


@fill_doc(NULL_DOCS)
class BetaNull(FittedNull):
    """The two-moment beta of Lopes & Bontempi (2014), as in the R package.

    O(1); floored at 1 / C(N, P). Its tail can be off by many orders of
    magnitude in either direction when P is small or N / P large; use it to
    reproduce R, not to judge a ranking.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    params : (float, float), optional
        Null mean and variance to fit (default: the exact ones).

    Attributes
    ----------
    %(null_attributes)s
    fit : BetaFit
        The fitted beta.

    See Also
    --------
    beta_fit : The fit.
    SkewBetaNull : Also matches the skewness.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    The fit has the exact mean; its p-value carries no error bound:

    >>> b = BetaNull(40, 4)
    >>> a, c = b.fit.alpha, b.fit.beta
    >>> bool(abs(b.fit.lower + b.fit.scale * a / (a + c) - b.mean) < 1e-12)
    True
    >>> pv = b.pvalue(0.6)
    >>> pv.method, pv.pvalue_interval
    ('beta', None)
    """

    method = "beta"
    interval_method = "beta"
    fit: BetaFit

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int, *, params=None):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        if params is not None:
            self._moments = (float(params[0]), float(params[1]))
        self.fit = beta_fit(self.mean, self.var, self.N, self.P)

    def ppf(self, q):
        return self.fit.ppf(q)

    def interval(self, conf_level: float = 0.95) -> tuple:
        return self.fit.interval(conf_level)
