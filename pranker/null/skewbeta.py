r"""Third moment of the null AP and a three-moment (skew-matched) beta approximation.

Third central moment
--------------------
With ``X = P * AP = sum_i y_i S_i / i`` (``S_i`` = positives among the first
i positions), walk the positions i = 1..N. Given ``S_{i-1} = s``, position i
holds a positive with probability ``(P - s) / (N - i + 1)`` (sampling without
replacement), which adds ``(s + 1) / i`` to X. Carrying, for every s, the
probability ``w_s = P(S_i = s)`` and the partial moments
``M_m[s] = E[(X_i - E X)^m ; S_i = s]`` for m = 1, 2, 3 (X_i the partial sum),
the binomial expansion of ``(Y + a)^m`` updates them exactly:

    M_1 += a w,  M_2 += 2 a M_1 + a^2 w,  M_3 += 3 a M_2 + 3 a^2 M_1 + a^3 w

on the move s -> s + 1. Starting from ``X_0 - E X = -E X`` (the exact mean is
O(1)) the final ``M_m[P]`` are the central moments of X. Only states with
probability at least 1e-40 are kept (a window of width O(sqrt(P)) around
i P / N; the dropped mass changes the moment by less than 1e-25 relative), so
the cost is O(N sqrt(P)) operations in float64, O(N P) at worst; it is checked
against enumeration in exact fractions and against the closed-form variance
of :mod:`pranker.null`, which it reproduces to 1e-14 relative at N <= 1e4
and 5e-12 at N = 1e5, P = 1000. A closed form in H_N, H_N^(2), H_N^(3) (as the variance
has) was not derived; the sum costs ~0.3 s at N = 1e5, P = 1000 and is
refused above ``THIRD_MOMENT_MAX_WORK`` (N * P = 2e9).

Three-moment beta
-----------------
The two-moment beta of Lopes & Bontempi fixes the support to ``[a, 1]`` with
``a = min_auprc(N, P)``. For small P the null AP has an atom-like lower
region of tiny probability near ``a`` and a long right tail, and a beta with
that support cannot match the skewness; its upper tail is then off. The
three-moment fit keeps the upper end at 1 (the true maximum) and frees the
lower end L: it finds L such that the beta on ``[L, 1]`` matched to the exact
mean and variance also has the exact skewness. For a beta(alpha, beta),

    skew = 2 (beta - alpha) sqrt(alpha + beta + 1) / ((alpha + beta + 2) sqrt(alpha beta)),

which moves from ``-2 sd / (1 - mean)`` (L -> -inf) to
``((1 - mean)^2 - var) / ((1 - mean) sd)`` (L at its largest admissible
value); a bracketing root search in ``L`` (Brent) between those ends solves
it (monotone in every case tried, not proven). When no L in range
matches (rare; skewness beyond what a beta with upper end 1 can reach) the
two-moment fit is returned and ``method`` says so.

References
----------
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
K. Pearson, "Contributions to the mathematical theory of evolution II: skew
variation in homogeneous material", Phil. Trans. R. Soc. A 186 (1895)
(moment fitting of the type I / beta curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._docs import fill_doc
from .._numba import moments as _kernels
from .._numba.skew import _central_moments_dp
from .._results import renamed_parameters
from .._validation import check_counts
from .base import NULL_DOCS
from .beta import FittedNull, log10_fitted_tail, log10_floor
from .logspace import pow10

__all__ = ["SkewBetaNull", "null_third_moment", "null_skewness", "SkewBetaFit", "skew_beta_fit"]

THIRD_MOMENT_MAX_WORK = 2_000_000_000


_DROP = 1e-40  # states with probability below this are dropped (effect < 1e-25 relative)


# Docstring fragments of this module (pranker._docs.fill_doc).
_DOCS = {
    "counts_third": (
        "N, P : int\n    Number of instances and of positives (as in :func:`null_third_moment`)."
    ),
}


def _scalar_np(N, P):
    n_arr, p_arr, scalar = check_counts(N, P)
    if not scalar:
        raise ValueError("N and P must be scalars.")
    return int(n_arr[0]), int(p_arr[0])


@renamed_parameters(N="n", P="n_pos")
def null_third_moment(n: int, n_pos: int) -> float:
    """Exact third central moment E[(AP - E AP)^3] of the null AP.

    Dynamic programme over positions (module docstring), float64, O(N sqrt(P)).

    Parameters
    ----------
    n, n_pos : int
        Number of instances and of positives,
        ``N * P <= THIRD_MOMENT_MAX_WORK`` (2e9).

    Returns
    -------
    float
        The third central moment (0 for a point mass, P = N).

    See Also
    --------
    null_skewness : The same moment over sd^3.
    pranker.null_params : The exact mean and variance, in O(1).

    Examples
    --------
    >>> round(null_third_moment(3, 2) * 8, 8)  # exact: -7/729 for X = 2 AP
    -0.00960219
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_np(N, P)
    if p == n:
        return 0.0
    if n * p > THIRD_MOMENT_MAX_WORK:
        raise ValueError(
            f"the third moment costs O(N P); N*P = {n * p:.3g} exceeds "
            f"THIRD_MOMENT_MAX_WORK={THIRD_MOMENT_MAX_WORK:.0e}."
        )
    mean, _ = _kernels.null_moments_scalar(n, p, n - p)
    _, m3 = _central_moments_dp(n, p, mean * p)
    return m3 / float(p) ** 3


@renamed_parameters(N="n", P="n_pos")
@fill_doc(_DOCS)
def null_skewness(n: int, n_pos: int) -> float:
    """Skewness of the null AP (third central moment over sd^3; 0 for a point mass).

    Parameters
    ----------
    %(counts_third)s

    Returns
    -------
    float
        ``E[(AP - E AP)^3] / Var(AP)^(3/2)``.

    See Also
    --------
    null_third_moment, skew_beta_fit

    Examples
    --------
    >>> null_skewness(1000, 10) > 0  # long right tail
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_np(N, P)
    _, var = _kernels.null_moments_scalar(n, p, n - p)
    if var <= 0.0:
        return 0.0
    return null_third_moment(n, p) / var**1.5


def _beta_skew(alpha, beta):
    return (
        2.0
        * (beta - alpha)
        * math.sqrt(alpha + beta + 1.0)
        / ((alpha + beta + 2.0) * math.sqrt(alpha * beta))
    )


def _shapes(mean, var, lower):
    """Moment-matched beta shapes on [lower, 1]."""
    s = 1.0 - lower
    m = (mean - lower) / s
    om = (1.0 - mean) / s
    v = var / (s * s)
    c = m * om / v - 1.0
    return m * c, om * c


@dataclass(frozen=True)
class SkewBetaFit:
    """Beta on ``[lower, 1]`` matched to the null mean, variance and skewness.

    Attributes
    ----------
    alpha, beta, lower : float
        Shapes and the fitted lower end of the support (upper end is 1).
    mean, var, skew : float
        The exact null moments it matches.
    matched : bool
        False when no lower end matches the skewness; then ``lower`` is
        ``min_auprc`` and only mean and variance are matched.
    N, P : int
        Number of instances and of positives.

    See Also
    --------
    skew_beta_fit : Builds it.
    BetaFit : The two-moment fit on ``[min_auprc, 1]``.
    SkewBetaNull : The same approximation behind ``pranker(..., method="skewbeta")``.

    Examples
    --------
    The fitted beta on ``[lower, 1]`` has the exact null mean and skewness:

    >>> from pranker import null_params
    >>> fit = skew_beta_fit(200, 4)
    >>> a, b, s = fit.alpha, fit.beta, 1 - fit.lower
    >>> bool(abs(fit.lower + s * a / (a + b) - null_params(200, 4).mean) < 1e-12)
    True
    >>> skew = 2 * (b - a) * (a + b + 1) ** 0.5 / ((a + b + 2) * (a * b) ** 0.5)
    >>> bool(fit.matched and abs(skew - null_skewness(200, 4)) < 1e-8)
    True
    """

    alpha: float
    beta: float
    lower: float
    mean: float
    var: float
    skew: float
    matched: bool
    N: int
    P: int

    @property
    def degenerate(self) -> bool:
        return not (self.var > 0.0)

    def sf(self, x):
        """P(AP_null >= x) under the fit, floored at 1 / C(N, P) for x <= 1 (the null
        probability of the best ranking, which no upper tail of AP falls below).
        0.0 where that underflows float64: :meth:`log10_sf` keeps the logarithm."""
        x = np.asarray(x, dtype=np.float64)
        if self.degenerate:
            return np.where(x <= self.mean, 1.0, 0.0)[()]
        z = np.clip((x - self.lower) / (1.0 - self.lower), 0.0, 1.0)
        floor = np.where(x <= 1.0 + 1e-12, pow10(log10_floor(self.N, self.P)), 0.0)
        return np.maximum(special.betaincc(self.alpha, self.beta, z), floor)[()]

    def log10_sf(self, x):
        """log10 of :meth:`sf`, computed in log space: finite where ``sf`` underflows,
        floored at ``-log10 C(N, P)``.

        >>> fit = skew_beta_fit(10**6, 100)
        >>> float(fit.sf(1.0)), round(float(fit.log10_sf(1.0)), 1)  # all 100 positives first
        (0.0, -442.0)
        """
        return log10_fitted_tail(self, x, 1.0 - self.lower)

    def cdf(self, x):
        return (1.0 - np.asarray(self.sf(x)))[()]


@renamed_parameters(N="n", P="n_pos")
@fill_doc(_DOCS)
def skew_beta_fit(n: int, n_pos: int) -> SkewBetaFit:
    """Three-moment beta approximation of the null AP (free lower end, upper end 1).

    Matches the exact mean and variance (:func:`pranker.null_params`) and the
    exact skewness (:func:`null_skewness`); see the module docstring. It fits
    the upper tail much better than the two-moment beta for small P (see
    ``docs/calibration.md``).

    Parameters
    ----------
    %(counts_third)s

    Returns
    -------
    SkewBetaFit
        Shapes, lower end and the ``sf``/``cdf`` of the fit.

    See Also
    --------
    pranker.beta_fit : The two-moment fit on ``[min_auprc, 1]``.
    pranker.null_distribution : ``method="skewbeta"`` wraps this fit.

    Examples
    --------
    >>> fit = skew_beta_fit(1000, 5)
    >>> fit.matched, 0.0 < float(fit.sf(0.2)) < 0.05
    (True, True)
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_np(N, P)
    mean, var = _kernels.null_moments_scalar(n, p, n - p)
    a_min, _ = _kernels.min_ap(float(n), float(p), float(n - p))
    if var <= 0.0 or p == n:
        return SkewBetaFit(math.nan, math.nan, a_min, mean, var, 0.0, False, n, p)
    sd = math.sqrt(var)
    g = null_third_moment(n, p) / sd**3
    one_m = 1.0 - mean
    # admissible lower ends: L < L_max (c > 0); skew -> g_max as L -> L_max and
    # -> -2 sd / (1 - mean) as L -> -inf
    L_max = mean - var / one_m
    g_max = (one_m * one_m - var) / (one_m * sd)

    def f(L):
        al, be = _shapes(mean, var, L)
        return _beta_skew(al, be) - g

    matched = False
    if -2.0 * sd / one_m < g < g_max:
        hi = L_max - 1e-9 * (1.0 - L_max)
        while f(hi) <= 0.0 and hi < L_max:
            hi = L_max - 0.5 * (L_max - hi)
            if L_max - hi < 1e-15:
                break
        lo = mean - 4.0 * sd
        k = 0
        while f(lo) >= 0.0 and k < 200:
            lo = mean - 2.0 * (mean - lo)
            k += 1
        if f(lo) < 0.0 < f(hi):
            from scipy.optimize import brentq  # lazy: scipy.optimize is slow to import

            L = brentq(f, lo, hi, xtol=1e-15, rtol=1e-13, maxiter=200)
            al, be = _shapes(mean, var, L)
            if al > 0.0 and be > 0.0:
                matched = True
    if not matched:
        L = a_min
        al, be = _shapes(mean, var, L)
    return SkewBetaFit(al, be, L, mean, var, g, matched, n, p)


@fill_doc(NULL_DOCS)
class SkewBetaNull(FittedNull):
    """A beta matched to the exact mean, variance and skewness (:func:`pranker.null.skewbeta.skew_beta_fit`).

    Parameters
    ----------
    N, P : int
        Number of instances and of positives (``N * P`` up to 2e9).

    Attributes
    ----------
    %(null_attributes)s
    fit : SkewBetaFit
        The fitted beta.

    See Also
    --------
    skew_beta_fit : The fit.
    BetaNull : The two-moment beta.

    Examples
    --------
    >>> from pranker.null.exact import ExactNull
    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> pv = SkewBetaNull(40, 4).pvalue(0.6)
    >>> pv.method, bool(abs(pv.pvalue / exact - 1) < 0.1)
    ('skewbeta', True)
    """

    method = "skewbeta"
    interval_method = "skewbeta"
    fit: SkewBetaFit

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.fit = skew_beta_fit(self.N, self.P)

    def ppf(self, q):
        from scipy.special import betaincinv

        f = self.fit
        if f.degenerate:
            return np.full(np.shape(q), f.mean)[()]
        return (f.lower + (1.0 - f.lower) * betaincinv(f.alpha, f.beta, np.asarray(q, float)))[()]
