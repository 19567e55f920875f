r"""Is ranking A better than ranking B on the same instances? A paired test of AP_a - AP_b.

:func:`compare` tests the difference of the average precisions of two
models scored on the same N instances (P positives) and gives a confidence
interval for it, by one of three methods: ``"permutation"`` (the default,
exact), ``"influence"`` and ``"bootstrap"`` (docs/compare.md measures all
three).

``"influence"``: the analytic variance (the DeLong test of AUPRC)
-----------------------------------------------------------------
DeLong, DeLong & Clarke-Pearson (1988) compare correlated ROC AUCs through
the two classes' *structural components* (placement values): the AUC is a
two-sample U-statistic, its variance is ``S10 / P + S01 / M`` with S10, S01
the sample (co)variances of the components of the positives and of the
negatives (M = N - P), and two models are paired because their components
belong to the same instances. Sun & Xu (2014) compute the components in
O(N log N). AP is not a U-statistic, but it is a smooth functional of the
two empirical distributions, and the same construction follows from its
first-order (von Mises) expansion; Boyd, Eng & Page (2013) study the
asymptotics of AP estimators and show that they are asymptotically normal.

*AP as a functional.* Let F and G be the distributions of the positives' and
the negatives' scores, ``S_F(x) = P_F(X >= x)``, ``S_G(x) = P_G(Z >= x)``,
and ``h(a, b) = P a / (P a + M b)`` (precision when a share ``a`` of the
positives and ``b`` of the negatives score at least x; the class sizes are
held fixed, as in a stratified design). Then

.. math::

    T(F, G) = \int h\big(S_F(x), S_G(x)\big)\, dF(x)

evaluated at the empirical F̂, Ĝ is exactly ``(1/P) sum_i A_i / (A_i +
B_i)`` with ``A_i`` (``B_i``) the positives (negatives) scoring at least
``x_i``: the AP in the ``"threshold"`` tie mode, and the AP itself when
there are no ties.

*Influence values.* Write ``r_i = A_i + B_i``; ``h_a = P B_i / r_i^2`` and
``h_b = -M A_i / r_i^2`` on the count scale. Perturbing F towards a point mass
at a positive score ``x_j`` and G towards a negative score ``z_l``
(Gâteaux derivatives, Hampel 1974) gives

.. math::

    \mathrm{IF}^+_j = \frac{A_j}{r_j} - T
        + \sum_{i:\, x_i \le x_j} \frac{B_i}{r_i^2} - C, \qquad
    \mathrm{IF}^-_l = -\frac{M}{P} \sum_{i:\, x_i \le z_l} \frac{A_i}{r_i^2} + C,
    \qquad C = \frac1P \sum_i \frac{A_i B_i}{r_i^2},

sums over positives i. The first term is positive j's own precision, the
second how j raises the precision of every positive ranked below it; a
negative lowers the precision of every positive below it. Each set sums to
zero, and ``AP - T(F, G) = mean_j IF+_j + mean_l IF-_l + o_p(n^-1/2)``.

*The paired variance.* For two models on the same instances, the influence
values of the difference are ``D+_j = IF+_{a,j} - IF+_{b,j}`` and ``D-_l``
likewise (paired because they belong to the same instance), and

.. math::

    \widehat{\mathrm{Var}}(\mathrm{AP}_a - \mathrm{AP}_b)
      = \frac{s^2(D^+)}{P} + \frac{s^2(D^-)}{M},

with ``s^2`` the sample variances (divisor P - 1 and M - 1, as DeLong's
S10 and S01). With suffix sums over the sorted scores every influence value
costs O(1) after one sort per model: O(N log N) in all, as fast DeLong.

*The reference distribution: Student's t with Welch-Satterthwaite degrees
of freedom.* The statistic is ``t = (AP_a - AP_b) / se``. The variance
estimate is a sum ``v+ + v-`` of two independent sample-variance terms,
``v+ = s^2(D+)/P`` on P - 1 degrees of freedom and ``v- = s^2(D-)/M`` on
M - 1. Satterthwaite (1946) and Welch (1947) approximate the law of such a
sum by a scaled chi-square with

.. math::

    \nu = \frac{(v^+ + v^-)^2}{(v^+)^2 / (P - 1) + (v^-)^2 / (M - 1)},

so ``t`` is referred to Student's t with ``nu`` degrees of freedom, and the
interval is ``AP_a - AP_b +- t_{nu, 1 - alpha/2} se``. Few positives make
the first term noisy and ``nu`` small (between ``min(P, M) - 1`` and
``P + M - 2``); with many of both, ``nu`` is large and the test is the
normal (Wald) test. The normal reference alone rejects about twice too often
with 5 positives (docs/compare.md).

*Extreme tails.* The p-value is computed on the log scale: ``log sf`` of t
from ``scipy.stats.t.logsf`` while it is finite; beyond, from
``sf(t; nu) = I_x(nu/2, 1/2) / 2`` with ``x = nu / (nu + t^2)`` and
``I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) 2F1(a + b, 1; a + 1; x)``
(Abramowitz & Stegun 26.5.4 and 26.7.1), whose logarithm stays finite; where
the hypergeometric series does not converge in floating point (``nu`` above
about 1e5, t above about 40) the normal tail, which t approaches as ``nu``
grows, is used.

*Ties.* The statistic uses the chosen tie mode exactly (:func:`pranker.auprc_ap`).
The variance uses the influence values of the functional that matches the
mode: inclusive counts for ``"threshold"``; the strict order the mode
defines for ``"stable"`` (input order), ``"optimistic"`` (positives first
within a tie) and ``"pessimistic"`` (positives last); for ``"average"`` the
mid-counts (an item's tied group counts half, as DeLong's placement values
count ties as 1/2), which approximates the expectation over tie orders.

``"bootstrap"``: paired, class-stratified BCa
---------------------------------------------
Positives are resampled among the positives and negatives among the
negatives (P and M fixed), the same instances for both models, and the
difference recomputed in the chosen tie mode (an instance drawn twice is
tied with itself). The interval is Efron's (1987) bias-corrected and
accelerated percentile interval; its acceleration comes from the influence
values above (Efron 1987, §7; for two strata Davison & Hinkley 1997, §5.3),
so no O(N^2) jackknife is needed. The p-value **inverts the BCa interval**:
it is the smallest level at which the interval excludes 0 (two-sided: twice
the smaller one-sided level), so test and interval always agree. It cannot
go below about 1 / n_draws.

``"permutation"`` (the default): swapping the two models' scores instance by instance
-------------------------------------------------------------------------------------
The paired randomisation test (Fisher 1935). When the two models are
interchangeable, the pair of scores ``(a_i, b_i)`` of each instance is
exchangeable: swapping the two scores on any subset of instances leaves the
joint law of the data unchanged, so the observed difference is one draw
among the ``2^N`` swap patterns, whatever N, P, the ties and the correlation
of the models. Patterns are drawn at random (pattern t from a counter-based
stream keyed by the seed and t, so the numbers do not depend on the number
of threads), and the p-value is ``(b + 1) / (m + 1)`` with b of m patterns at
least as extreme (Phipson & Smyth 2010). The null is stronger than
``AP_a = AP_b`` (exchangeable scores), and the scores of both models must be
on a common scale: on different scales the test loses power.

*No sort per pattern.* The distinct scores of the positives (in both models)
cut the score axis into 2K + 1 *slots*: above the highest, at it, between it
and the next, ..., below the lowest. The AP of a ranking depends only on how
many positives and negatives each slot holds. Each instance has one slot per
model; swapping moves it between the two. Instances with the same pair of
slots form a *cell*; a pattern sends a Binomial(n, 1/2) share of a cell's n
instances one way, drawn exactly as the set bits of n random bits, and model
B's counts are the totals minus model A's. Which bits of a pattern's stream
each cell reads depends only on the cells' sizes, so it is worked out once per
call (:func:`pranker._numba.compare.swap_layout`); a pattern then makes its
N/64 words and counts each slot's set bits with popcounts, with no store per
instance. One pattern costs O(cells + K + N/64)
(:func:`pranker._numba.compare.swap_diffs`), after one pass that finds the
cells.

*Sequential stopping.* With ``alpha`` given, the p-value is looked at after
999 patterns, then 1,999, 3,999, ... up to ``n_draws``; drawing stops at the
first look whose Clopper–Pearson interval for the p-value of all ``2^N``
patterns lies entirely below or above ``alpha``, at confidence
``1 - 0.001 / K`` for K looks, so that by the union bound the chance of a
decision at ``alpha`` other than all patterns would give is at most 0.001
(``decision`` is then ``"below"`` or ``"above"``; ``"undecided"`` when
``n_draws`` ran out first). ``alpha=None`` draws all ``n_draws``.

*The interval* inverts the test with the difference shifted: it holds the
differences delta for which ``d - delta`` lies in the central ``conf_level``
of the swap distribution, which is symmetric about 0 (the complement of a
pattern negates its difference), so each pattern counts with both signs.

References
----------
.. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
   areas under two or more correlated receiver operating characteristic
   curves: a nonparametric approach", Biometrics 44 (1988) 837–845.
.. [2] X. Sun and W. Xu, "Fast implementation of DeLong's algorithm for
   comparing the areas under correlated receiver operating characteristic
   curves", IEEE Signal Processing Letters 21 (2014) 1389–1393.
.. [3] K. Boyd, K. H. Eng and C. D. Page, "Area under the precision-recall
   curve: point estimates and confidence intervals", ECML PKDD 2013.
.. [4] F. R. Hampel, "The influence curve and its role in robust
   estimation", JASA 69 (1974) 383–393.
.. [5] B. Efron, "Better bootstrap confidence intervals", JASA 82 (1987)
   171–185.
.. [6] A. C. Davison and D. V. Hinkley, Bootstrap Methods and their
   Application, Cambridge University Press 1997.
.. [7] R. A. Fisher, The Design of Experiments, Oliver and Boyd 1935.
.. [8] B. Phipson and G. K. Smyth, "Permutation p-values should never be
   zero", Stat. Appl. Genet. Mol. Biol. 9(1) (2010).
.. [9] F. E. Satterthwaite, "An approximate distribution of estimates of
   variance components", Biometrics Bulletin 2 (1946) 110–114.
.. [10] B. L. Welch, "The generalization of 'Student's' problem when
   several different population variances are involved", Biometrika 34
   (1947) 28–35.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import _format as _fmt
from .._display import ResultDisplay
from .._numba.tiegroups import MODE_CODES
from .._results import DeprecatedAlias, jsonable, renamed_parameters
from .._validation import check_scores_labels, check_ties
from ..measures.uncertainty import ConfidenceInterval
from ..null.choice import DEFAULT_SEED, REL_TOL
from ..null.montecarlo import clopper_pearson
from .figure import Plottable

__all__ = ["compare", "CompareResult"]

COMPARE_METHODS = ("influence", "bootstrap", "permutation")
ALTERNATIVES = ("two-sided", "greater", "less")
_FIRST_LOOK = 999  # swap patterns at the first look (and at least, for the interval)
_STOP_RISK = 0.001  # chance that an early stop decides otherwise than all patterns would


@dataclass(frozen=True)
class CompareResult(ResultDisplay, Plottable):
    """Result of :func:`compare`, in the style of ``scipy.stats`` results.

    Attributes
    ----------
    statistic : float
        AP_a - AP_b, both in the chosen tie mode.
    pvalue : float
        p-value of the paired test (``alternative``).
    log10_pvalue : float
        Its log10; for ``"influence"`` computed on the log scale, finite
        where ``pvalue`` underflows. For the resampling methods it is
        ``log10(pvalue)``, which cannot go below about ``-log10(n_draws)``.
    method : str
        ``"influence"``, ``"bootstrap"`` or ``"permutation"``.
    alternative : str
        ``"two-sided"`` (AP_a != AP_b), ``"greater"`` (AP_a > AP_b) or ``"less"``.
    auprc_a, auprc_b : float
        The two average precisions.
    n, n_pos : int
        Instances and positives.
    ties : str
    seed : int or None
        Seed of the resamples or patterns (None for ``"influence"``: no random draw).
    conf_level : float
        Level of :meth:`confidence_interval`, ``pvalue_interval`` and
        ``null_interval``.
    standard_error : float
        Standard error of the difference: analytic (``"influence"``), the
        standard deviation of the bootstrap replicates, or that of the swap
        distribution (about its mean, 0) for ``"permutation"``.
    n_draws : int or None
        Resamples or swap patterns behind the p-value (None for
        ``"influence"``: no random draw).
    df : float or None
        ``"influence"``: Welch-Satterthwaite degrees of freedom of the t
        reference (``inf`` when the variance is zero). None otherwise.
    pvalue_interval : (float, float) or None
        ``"permutation"``: the Clopper–Pearson interval (at ``conf_level``)
        of the p-value of all 2^N patterns, from the b of n_draws patterns
        at least as extreme. None otherwise (no error bound).
    pvalue_rse : float or None
        Monte Carlo relative standard error of a resampled p-value, by the
        binomial approximation ``sqrt((1 - p) / (p n_draws))``; None for
        ``"influence"`` (analytic, no Monte Carlo error).
    null_mean, null_var : float or None
        Mean and variance of the statistic's null distribution: ``0`` and
        ``se^2 df / (df - 2)`` (infinite for df <= 2) for ``"influence"``
        (se times Student's t); ``0`` exactly and the mean square of the
        patterns' differences for ``"permutation"``; the mean and variance
        of the centred replicates for ``"bootstrap"``.
    alpha : float or None
        ``"permutation"``: the level of the sequential stop (None: every
        pattern drawn, and for the other methods).
    decision : str or None
        ``"permutation"`` with ``alpha``: ``"below"`` / ``"above"`` when the
        p-value of all patterns is, with confidence 0.999, below / above
        ``alpha``; ``"undecided"`` when ``n_draws`` ran out first.
    null_interval : (float, float)
        Central ``conf_level`` interval of the difference under the null
        hypothesis of equal AP (a property): ``t`` quantiles times the
        standard error for ``"influence"``, quantiles of the permutation
        replicates or of the centred bootstrap replicates otherwise.

    The earlier names ``confidence_level`` and ``n_resamples`` still work
    until 0.5.0 (with a ``DeprecationWarning``), as keywords of
    :func:`compare` and :meth:`confidence_interval` and as attributes.
    See Also
    --------
    compare : Builds it.

    Examples
    --------
    Model A ranks the three positives 1st, 3rd and 6th (AP = (1/1 + 2/3 +
    3/6) / 3 = 13/18); model B ranks them 2nd, 4th and 6th (AP = 1/2):

    >>> from pranker import compare
    >>> y = [1, 0, 1, 0, 0, 1, 0, 0]
    >>> res = compare([8, 7, 6, 5, 4, 3, 2, 1], [7, 8, 5, 6, 4, 3, 1, 2], y)
    >>> round(res.auprc_a, 4), round(res.auprc_b, 4), round(res.statistic, 4)
    (0.7222, 0.5, 0.2222)
    >>> res.method, bool(res.confidence_interval().low < res.statistic)
    ('permutation', True)
    >>> ci = res.confidence_interval(conf_level=0.9)
    >>> ci.low < ci.high
    True
    """

    statistic: float
    pvalue: float
    log10_pvalue: float
    method: str
    alternative: str
    auprc_a: float
    auprc_b: float
    n: int
    n_pos: int
    ties: str
    seed: int | None
    conf_level: float
    standard_error: float
    n_draws: int | None
    df: float | None = None
    pvalue_interval: tuple | None = None
    pvalue_rse: float | None = None
    null_mean: float | None = None
    null_var: float | None = None
    alpha: float | None = None
    decision: str | None = None
    _replicates: np.ndarray | None = field(default=None, repr=False, compare=False)
    _accel: tuple = field(default=(0.0, 0.0), repr=False, compare=False)

    # earlier names, kept until 0.5.0
    confidence_level = DeprecatedAlias("conf_level")
    n_resamples = DeprecatedAlias("n_draws")

    @property
    def null_interval(self) -> tuple:
        """Central ``conf_level`` interval of the difference when both models are equally good."""
        lo_q, hi_q = (1.0 - self.conf_level) / 2.0, (1.0 + self.conf_level) / 2.0
        if self.method == "influence":
            se = self.standard_error
            return (_t_quantile(lo_q, self.df) * se, _t_quantile(hi_q, self.df) * se)
        reps = self._replicates
        assert reps is not None  # the resampling tests record their replicates
        if self.method == "bootstrap":
            reps = reps - self.statistic
        else:  # the swap distribution is symmetric about 0: each pattern's complement gives -D
            reps = np.concatenate([reps, -reps])
        return (float(np.quantile(reps, lo_q)), float(np.quantile(reps, hi_q)))

    @renamed_parameters(confidence_level="conf_level")
    def confidence_interval(self, conf_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval for AP_a - AP_b at ``conf_level`` (default: the result's).

        Two-sided for ``alternative="two-sided"``; one-sided (an open end at
        ``-inf`` or ``inf``) otherwise, as in ``scipy.stats``. The inverted
        permutation test with the difference shifted for ``"permutation"``,
        Student's t with Welch-Satterthwaite degrees of freedom for
        ``"influence"``, BCa for ``"bootstrap"`` (see
        :mod:`pranker.significance.compare`).
        """
        from scipy.special import ndtr, ndtri

        c = self.conf_level if conf_level is None else _check_level(conf_level)
        if self.alternative == "two-sided":
            lo_q, hi_q = (1.0 - c) / 2.0, (1.0 + c) / 2.0
        elif self.alternative == "greater":
            lo_q, hi_q = 1.0 - c, None
        else:
            lo_q, hi_q = None, c
        d = self.statistic
        if self.method == "influence":
            se = self.standard_error
            lo = -math.inf if lo_q is None else d + _t_quantile(lo_q, self.df) * se
            hi = math.inf if hi_q is None else d + _t_quantile(hi_q, self.df) * se
            return ConfidenceInterval(lo, hi)
        reps = self._replicates
        assert reps is not None  # the resampling tests record their replicates
        if self.method == "bootstrap":
            z0, a = self._accel

            def end(q):
                zq = float(ndtri(q))
                u = z0 + zq
                den = 1.0 - a * u
                adj = float(ndtr(z0 + u / den)) if den > 0.0 else (1.0 if u > 0 else 0.0)
                return float(np.quantile(reps, min(max(adj, 0.0), 1.0)))

            lo = -math.inf if lo_q is None else end(lo_q)
            hi = math.inf if hi_q is None else end(hi_q)
            return ConfidenceInterval(lo, hi)
        # permutation: the differences delta not rejected when the observed difference is
        # shifted by delta, d - delta against the (symmetric) swap distribution
        sym = np.concatenate([reps, -reps])
        lo = -math.inf if lo_q is None else d - float(np.quantile(sym, 1.0 - lo_q))
        hi = math.inf if hi_q is None else d - float(np.quantile(sym, 1.0 - hi_q))
        return ConfidenceInterval(lo, hi)

    def _table(self):
        ci = self.confidence_interval()

        def end(x: float) -> str:
            return "-inf" if x == -math.inf else "inf" if x == math.inf else f"{x:+.4f}"

        pct = f"{100 * self.conf_level:g}%"
        headers = ["method", "alternative", "AUPRC a", "AUPRC b", "difference", f"{pct} CI"]
        row = [
            self.method,
            self.alternative,
            _fmt.sig(self.auprc_a, 4),
            _fmt.sig(self.auprc_b, 4),
            f"{self.statistic:+.4f}",
            f"[{end(ci.low)}, {end(ci.high)}]",
        ]
        headers.append("p-value")
        row.append(_fmt.pvalue_text(self))
        caption = (
            f"AUPRC of model a against model b, paired: N = {self.n:,}, P = {self.n_pos:,}, "
            f"ties = {self.ties}"
        )
        note = f"standard error of the difference {_fmt.sig(self.standard_error, 3)}"
        if self.n_draws is not None:
            note += f"; {draws_text(self)}, seed {self.seed}"
        if self.decision is not None:
            note += f"; at alpha = {self.alpha:g}: {self.decision}"
        return caption, headers, [row], note

    def to_dict(self) -> dict:
        """Plain fields, JSON-ready, with ``confidence_interval`` and ``null_interval`` at
        ``conf_level``."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if not k.startswith("_")}
        ci = self.confidence_interval()
        d["confidence_interval"] = [ci.low, ci.high]
        d["null_interval"] = self.null_interval
        return jsonable(d)


def draws_text(res: CompareResult) -> str:
    """The draws of a resampling test, e.g. ``"9,999 swap patterns"`` or ``"1,999 resamples"``
    (``res.n_draws`` is not None)."""
    what = "swap patterns" if res.method == "permutation" else "resamples"
    return f"{res.n_draws:,} {what}"


def _check_level(c) -> float:
    c = float(c)
    if not 0.0 < c < 1.0:
        raise ValueError(f"conf_level must be in (0, 1); got {c!r}.")
    return c


# --------------------------------------------------------------------------- levels
def _levels(s: np.ndarray, y: np.ndarray, ties: str):
    """Integer levels (0 best) of one model, their number, and whether groups are strict.

    ``average``/``threshold``: tied scores share a level. ``stable``,
    ``optimistic``, ``pessimistic``: the strict order the mode defines.
    """
    n = s.shape[0]
    if ties in ("average", "threshold"):
        _, inv = np.unique(-s, return_inverse=True)
        inv = inv.astype(np.int64).ravel()
        return inv, int(inv.max()) + 1
    if ties == "stable":
        order = np.argsort(-s, kind="stable")
    else:
        second = ~y if ties == "optimistic" else y  # False sorts first
        order = np.lexsort((np.arange(n), second, -s))
    level = np.empty(n, dtype=np.int64)
    level[order] = np.arange(n, dtype=np.int64)
    return level, n


def _influence_values(s, y, ties):
    from .._numba.compare import influence

    level, g = _levels(s, y, ties)
    inf, _ = influence(level, y, g, ties == "average")
    return inf


def _stratified_var(d: np.ndarray, y: np.ndarray) -> float:
    dp = d[y]
    dn = d[~y]
    return float(dp.var(ddof=1) / dp.size + dn.var(ddof=1) / dn.size)


def _accel(d: np.ndarray, y: np.ndarray) -> float:
    """BCa acceleration from influence values, two strata (Davison & Hinkley 1997, §5.3)."""
    num = 0.0
    den = 0.0
    for part in (d[y], d[~y]):
        n = part.size
        num += float(np.sum(part**3)) / n**3
        den += float(np.sum(part**2)) / n**2
    return num / (6.0 * den**1.5) if den > 0.0 else 0.0


def _welch_df(d: np.ndarray, y: np.ndarray) -> float:
    """Welch-Satterthwaite degrees of freedom of ``s2(d+)/P + s2(d-)/M`` (module docs)."""
    dp = d[y]
    dn = d[~y]
    v1 = float(dp.var(ddof=1)) / dp.size
    v2 = float(dn.var(ddof=1)) / dn.size
    den = v1 * v1 / (dp.size - 1) + v2 * v2 / (dn.size - 1)
    return (v1 + v2) ** 2 / den if den > 0.0 else math.inf


def _t_quantile(q: float, df: float | None) -> float:
    from scipy.special import ndtri, stdtrit

    if df is None or math.isinf(df):
        return float(ndtri(q))
    return float(stdtrit(df, q))


def _log_t_sf(t: float, df: float) -> float:
    """log P(T >= t) for Student's t with ``df`` degrees of freedom, finite far in the tail."""
    from scipy import stats
    from scipy.special import betaln, hyp2f1, log_ndtr

    if math.isinf(df):
        return float(log_ndtr(-t))
    lg = float(stats.t.logsf(t, df))
    if lg > -700.0 or t <= 0.0:
        return lg
    # sf = I_x(a, 1/2) / 2, x = df / (df + t^2);  I_x(a, b) = x^a (1-x)^b 2F1(a+b, 1; a+1; x) / (a B(a, b))
    a = 0.5 * df
    lden = math.log(df + t * t)
    f = float(hyp2f1(a + 0.5, 1.0, a + 1.0, df / (df + t * t)))
    if math.isfinite(f) and f > 0.0:
        return (
            math.log(0.5)
            + a * (math.log(df) - lden)
            + 0.5 * (2.0 * math.log(t) - lden)
            - math.log(a)
            - float(betaln(a, 0.5))
            + math.log(f)
        )
    return float(log_ndtr(-t))  # df large: t is the normal to within the tail's precision


def _tails(z: float, alternative: str, df: float = math.inf):
    """(p, log10 p) of a Student t (``df``; normal if inf) statistic, on the log scale."""
    if alternative == "greater":
        lg = _log_t_sf(z, df)
    elif alternative == "less":
        lg = _log_t_sf(-z, df)
    else:
        lg = min(_log_t_sf(abs(z), df) + math.log(2.0), 0.0)
    lg10 = lg / math.log(10.0)
    return (10.0**lg10 if lg10 > -320.0 else 0.0), lg10


def _count_extreme(reps, d, alternative):
    tol = REL_TOL * max(1.0, abs(d))
    if alternative == "greater":
        return reps >= d - tol
    if alternative == "less":
        return reps <= d + tol
    return np.abs(reps) >= abs(d) - tol


# --------------------------------------------------------------------------- entry point
@renamed_parameters(confidence_level="conf_level", n_resamples="n_draws")
def compare(
    scores_a,
    scores_b,
    y,
    *,
    method: str = "permutation",
    alternative: str = "two-sided",
    ties: str = "average",
    conf_level: float = 0.95,
    seed: int | None = None,
    n_draws: int | None = None,
    alpha: float | None = 0.05,
    pos_label=None,
    stop_after: int | None = None,
) -> CompareResult:
    """Paired test of AP_a - AP_b: two models' scores for the same instances.

    Parameters
    ----------
    scores_a, scores_b : array_like of float, shape (N,)
        The two models' scores (higher is better) for the same instances, in
        the same order.
    y : array_like, shape (N,)
        Binary labels (1/True marks a positive; see :func:`pranker.auprc_ap`).
    method : {"permutation", "influence", "bootstrap"}
        ``"permutation"`` (default): swaps the two models' scores instance by
        instance at random; exact (up to its Monte Carlo error) whenever the
        pair of scores of an instance is exchangeable under the null, for
        every N, P and correlation. The two models' scores must be on a
        common scale. ``"influence"``: the difference over its analytic
        paired standard error from AP's influence functions, referred to
        Student's t with Welch-Satterthwaite degrees of freedom; O(N log N),
        deterministic, scale-free, but conservative when the AP is low (N/P
        of 100 or more in the study) and with 5 positives of correlated
        models. ``"bootstrap"``: class-stratified paired bootstrap, BCa
        interval, p-value by inverting it; anti-conservative below some 50
        positives. See the module documentation, Notes, and docs/compare.md.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: AP_a > AP_b.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        Tie mode of both APs (:func:`pranker.auprc_ap`).
    conf_level : float
        Level of ``result.confidence_interval()``, ``pvalue_interval`` and
        ``null_interval``.
    seed : int, optional
        Seed of the resamples or swap patterns (default fixed, recorded on
        the result).
    n_draws : int, optional
        Bootstrap resamples (default 1999) or the most swap patterns
        (default 9999).
    alpha : float or None
        Permutation: the level at which drawing may stop early, once the
        decision at ``alpha`` is certain (the chance that all patterns
        would decide otherwise at most 0.001; module documentation). The
        p-value is reported whatever ``alpha``; None draws all ``n_draws``
        patterns.
    pos_label : scalar, optional
        The label of the positive class.
    stop_after : int, optional
        Deprecated and ignored (the stopping rule is ``alpha``'s).

    Returns
    -------
    CompareResult

    See Also
    --------
    pranker.auprc_ap : the AP of one model, in every tie mode.

    Notes
    -----
    *Why this default.* Swapping the scores is exact whenever the pair of
    scores of an instance is exchangeable, so its type-I error is alpha in
    every cell of the simulation study (docs/compare.md: P = 5 to 5,000
    positives, N/P = 2 to 1,000, independent and correlated models), up to
    the Monte Carlo error of the study. The influence test, the earlier
    default, is conservative when the AP is low (it rejected 0.001 to 0.036
    of equally good models at alpha = 0.05 with N/P >= 100 and P <= 500) and
    with 5 positives of correlated models; the bootstrap is anti-conservative
    below some 50 positives. A call costs one pass that finds the cells and
    999 patterns or more, each O(N/64 + cells + P): at N = 500,000,
    P = 500, 10 to 20 times a stable sort of the scores when the decision
    is clear after 999 or 1,999 patterns, 60 to 90 times when the p-value
    is so close to alpha that all 9,999 are drawn (docs/compare.md).

    *Where it falls short.* With 5 positives and a real difference, its
    power was below the influence test's in the study (swapping the
    scores of a much better model's positives widens the null); from 50
    positives on the two are equally powerful, and where the AP is low the
    permutation test finds differences that the influence test misses. The
    test needs the two models' scores on a common scale.

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44
       (1988) 837–845.
    .. [2] K. Boyd, K. H. Eng and C. D. Page, ECML PKDD 2013.
    .. [3] B. Efron, JASA 82 (1987) 171–185.
    .. [4] R. A. Fisher, The Design of Experiments, 1935; B. Phipson and
       G. K. Smyth, Stat. Appl. Genet. Mol. Biol. 9(1) (2010).
    .. [5] F. E. Satterthwaite, Biometrics Bulletin 2 (1946) 110–114; B. L.
       Welch, Biometrika 34 (1947) 28–35.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.1
    >>> a = y + rng.normal(size=2000)          # a good model
    >>> b = 0.5 * y + rng.normal(size=2000)    # a weaker one
    >>> res = compare(a, b, y)
    >>> round(res.statistic, 3), res.pvalue, res.n_draws, res.decision
    (0.132, 0.001, 999, 'below')
    >>> compare(a, b, y, method="influence").pvalue < 1e-4
    True
    >>> ci = res.confidence_interval()
    >>> bool(ci.low < res.statistic < ci.high)
    True
    """
    if method not in COMPARE_METHODS:
        raise ValueError(f"compare: method must be one of {COMPARE_METHODS}; got {method!r}.")
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"compare: alternative must be one of {ALTERNATIVES}; got {alternative!r}."
        )
    check_ties(ties, "compare")
    conf_level = _check_level(conf_level)
    if stop_after is not None:
        warnings.warn(
            "compare(): stop_after is deprecated and ignored; the permutation test stops "
            "drawing once its decision at alpha= is certain (pass alpha=None to draw all "
            "n_draws patterns).",
            DeprecationWarning,
            stacklevel=3,
        )
    if alpha is not None:
        a = float(alpha) if isinstance(alpha, (int, float)) else math.nan
        if not 0.0 < a < 1.0:
            raise ValueError(
                f"compare: alpha (the level at which the permutation test may stop early) must "
                f"be a number in (0, 1), or None to draw every pattern; got {alpha!r}."
            )
        alpha = a
    sa, yb = check_scores_labels(scores_a, y, pos_label=pos_label, where="compare")
    sb, yb2 = check_scores_labels(scores_b, y, pos_label=pos_label, where="compare")
    if sa.shape != sb.shape or not np.array_equal(yb, yb2):
        raise ValueError(
            f"compare: scores_a and scores_b must score the same instances; got "
            f"{np.size(scores_a)} and {np.size(scores_b)} scores (after masking)."
        )
    n = int(sa.shape[0])
    n_pos = int(np.count_nonzero(yb))
    if n_pos < 2 or n - n_pos < 2:
        raise ValueError(
            f"compare: needs at least 2 positives and 2 negatives to estimate a variance; "
            f"got {n_pos} positives of {n}."
        )
    seed = DEFAULT_SEED if seed is None else int(seed)
    from ..measures.ap import auprc_ap

    ap_a = float(auprc_ap(sa, yb, ties=ties))
    ap_b = float(auprc_ap(sb, yb, ties=ties))
    d = ap_a - ap_b
    common = dict(
        statistic=d,
        method=method,
        alternative=alternative,
        auprc_a=ap_a,
        auprc_b=ap_b,
        n=n,
        n_pos=n_pos,
        ties=ties,
        conf_level=conf_level,
    )
    if method == "influence":
        return _influence_test(sa, sb, yb, d, common)
    if method == "bootstrap":
        return _bootstrap_test(sa, sb, yb, d, seed, 1999 if n_draws is None else n_draws, common)
    return _permutation_test(
        sa, sb, yb, d, seed, 9999 if n_draws is None else n_draws, alpha, common
    )


def _influence_test(sa, sb, yb, d, common):
    dif = _influence_values(sa, yb, common["ties"]) - _influence_values(sb, yb, common["ties"])
    var = max(_stratified_var(dif, yb), 0.0)
    se = math.sqrt(var)
    if se <= 1e-15 * max(1.0, abs(d)):
        p, lg = (1.0, 0.0) if abs(d) <= REL_TOL else (0.0, -math.inf)
        if (
            common["alternative"] == "greater"
            and d < 0
            or common["alternative"] == "less"
            and d > 0
        ):
            p, lg = 1.0, 0.0
        df, nvar = math.inf, se * se
    else:
        df = _welch_df(dif, yb)
        p, lg = _tails(d / se, common["alternative"], df)
        # the null law is se times Student's t on df degrees of freedom
        nvar = se * se * (df / (df - 2.0) if math.isfinite(df) else 1.0) if df > 2.0 else math.inf
    return CompareResult(
        pvalue=p,
        log10_pvalue=lg,
        seed=None,
        standard_error=se,
        n_draws=None,
        df=df,
        null_mean=0.0,
        null_var=nvar,
        **common,
    )


def _resampled_result(p, seed, reps, n_draws, common, exceed=None, null_mean=None, **extra):
    """The result of a resampling test: p-value ``p`` and the replicates ``reps`` of the difference.

    The standard error is the replicates' sample standard deviation; ``extra``
    carries what only one test records (the BCa constants of the bootstrap).
    ``exceed`` (permutation) is the number b of the n_draws patterns at least
    as extreme: it gives the Clopper–Pearson interval of the p-value.
    """
    interval = None
    if exceed is not None:
        interval = clopper_pearson(int(exceed), int(n_draws), common["conf_level"])
    if null_mean is None:  # the bootstrap: the replicates centred on the observed difference
        null_mean = float(np.mean(reps)) - common["statistic"]
        null_var = float(reps.var(ddof=1))
    else:  # the swap distribution: mean 0 exactly, variance estimated about it
        null_var = float(np.mean(reps * reps))
    return CompareResult(
        pvalue=p,
        log10_pvalue=math.log10(p),
        seed=seed,
        standard_error=math.sqrt(null_var),
        null_mean=null_mean,
        null_var=null_var,
        n_draws=n_draws,
        pvalue_interval=interval,
        pvalue_rse=math.sqrt(max(1.0 - p, 0.0) / (p * n_draws)),
        _replicates=reps,
        **extra,
        **common,
    )


def _bootstrap_test(sa, sb, yb, d, seed, B, common):
    from scipy.special import ndtr, ndtri

    from .._numba.compare import bootstrap_diffs

    B = int(B)
    if B < 99:
        raise ValueError(f"compare: n_draws must be at least 99 for the bootstrap; got {B}.")
    ties = common["ties"]
    la, ga = _levels(sa, yb, ties)
    lb, gb = _levels(sb, yb, ties)
    # strict levels hold one instance (and its copies, all of one label): any group mode works
    mode = MODE_CODES[ties] if ties in ("average", "threshold") else MODE_CODES["optimistic"]
    pos = np.flatnonzero(yb).astype(np.int64)
    neg = np.flatnonzero(~yb).astype(np.int64)
    reps = bootstrap_diffs(la, lb, ga, gb, pos, neg, mode, np.uint64(seed), B)
    dif = _influence_values(sa, yb, ties) - _influence_values(sb, yb, ties)
    a = _accel(dif, yb)
    tol = REL_TOL * max(1.0, abs(d))
    below = np.count_nonzero(reps < d - tol) + 0.5 * np.count_nonzero(np.abs(reps - d) <= tol)
    z0 = float(ndtri(min(max(below / B, 0.5 / B), 1.0 - 0.5 / B)))
    alt = common["alternative"]
    if np.ptp(reps) <= tol:  # no variation: the models agree on every resample
        p = (
            1.0
            if abs(d) <= tol or (alt == "greater" and d < 0) or (alt == "less" and d > 0)
            else 1.0 / (B + 1)
        )
    else:
        q0 = (np.count_nonzero(reps < -tol) + 0.5 * np.count_nonzero(np.abs(reps) <= tol)) / B
        q0 = min(max(q0, 0.5 / B), 1.0 - 0.5 / B)
        w = float(ndtri(q0)) - z0
        den = 1.0 + a * w
        za = w / den - z0 if den > 0.0 else (math.inf if w > 0 else -math.inf)
        a0 = float(ndtr(za))  # the BCa lower end at level a0 is 0
        p = {"greater": a0, "less": 1.0 - a0}.get(alt, 2.0 * min(a0, 1.0 - a0))
        p = min(max(p, 1.0 / (B + 1)), 1.0)
    return _resampled_result(p, seed, reps, B, common, _accel=(z0, a))


def _swap_setup(sa: np.ndarray, sb: np.ndarray, yb: np.ndarray, ties: str):
    """Slots, cells and counts of the score-swap kernel (:func:`pranker._numba.compare.swap_diffs`).

    The slots are defined by the distinct scores of the positives in both
    models, best first: above the highest, at it, between it and the next, ...
    below the lowest (2K + 1 slots for K distinct scores). Each instance has one
    slot per model; an instance whose two scores share a slot never moves, the
    others are grouped by their (unordered) pair of slots. For ``"stable"`` the
    scores are first replaced by their positions in the joint order of all 2N
    (score, index) pairs, which breaks every tie by input order, as that mode does.
    """
    if ties == "stable":
        n = sa.shape[0]
        v = np.concatenate([sa, sb])
        order = np.lexsort((np.tile(np.arange(n), 2), -v))
        key = np.empty(2 * n)
        key[order] = -np.arange(2 * n, dtype=float)
        ka, kb = key[:n], np.where(sa == sb, key[:n], key[n:])
        mode = MODE_CODES["optimistic"]  # no ties left: any group mode
    else:
        ka, kb = sa, sb
        mode = MODE_CODES[ties]
    thr = np.unique(np.concatenate([ka[yb], kb[yb]]))
    K = thr.shape[0]
    S = 2 * K + 1

    def slot(x):
        i = np.searchsorted(thr, x, "left")
        at = thr[np.minimum(i, K - 1)] == x
        return (2 * K - 2 * i - at).astype(np.int64)

    u, v = slot(ka), slot(kb)
    parts = []
    for cls in (yb, ~yb):
        uc, vc = u[cls], v[cls]
        same = uc == vc
        base = np.bincount(uc[same], minlength=S).astype(float)
        tot = (np.bincount(uc, minlength=S) + np.bincount(vc, minlength=S)).astype(float)
        lo = np.minimum(uc[~same], vc[~same])
        hi = np.maximum(uc[~same], vc[~same])
        keys, cnt = np.unique(lo * S + hi, return_counts=True)
        cu = (keys // S).astype(np.int32)
        cv = (keys % S).astype(np.int32)
        one = cnt == 1
        cells = (cu[one], cv[one], cu[~one], cv[~one], cnt[~one].astype(np.int32))
        parts.append((cells, base, tot))
    (cp, bp, tp), (cn, bn, tn) = parts
    from .._numba.compare import group_ap

    n_pos = float(np.count_nonzero(yb))
    counts = [np.bincount(w[c], minlength=S).astype(float) for w in (u, v) for c in (yb, ~yb)]
    d_obs = group_ap(counts[0], counts[1], n_pos, mode) - group_ap(
        counts[2], counts[3], n_pos, mode
    )
    return (cp, cn, bp, bn, tp, tn), mode, d_obs


def _exceed(reps, d, alternative):
    """Patterns at least as extreme as the observed difference (ties within REL_TOL count)."""
    return int(np.count_nonzero(_count_extreme(reps, d, alternative)))


def _looks(n_draws: int, sequential: bool) -> list[int]:
    """Cumulative numbers of patterns at which the p-value is looked at."""
    if not sequential or n_draws <= _FIRST_LOOK:
        return [n_draws]
    looks = []
    m = _FIRST_LOOK
    while m < n_draws:
        looks.append(m)
        m = 2 * m + 1
    looks.append(n_draws)
    return looks


def _permutation_test(sa, sb, yb, d, seed, max_m, alpha, common):
    from .._numba.compare import swap_diffs, swap_layout
    from ..null.montecarlo import clopper_pearson as _cp

    max_m = int(max_m)
    if max_m < 19:
        raise ValueError(
            f"compare: n_draws must be at least 19 for the permutation test; got {max_m}."
        )
    ties = common["ties"]
    alt = common["alternative"]
    cells, mode, d_kernel = _swap_setup(sa, sb, yb, ties)
    layout = swap_layout(*cells)
    n_pos = common["n_pos"]
    looks = _looks(max_m, alpha is not None)
    stop_level = 1.0 - _STOP_RISK / len(looks)
    chunks = []
    m = 0
    b = 0
    decision = None
    for look in looks:
        reps = swap_diffs(layout, n_pos, mode, seed, m, look - m)
        chunks.append(reps)
        b += _exceed(reps, d_kernel, alt)  # the observed difference as the kernel computes it
        m = look
        if alpha is not None:
            lo, hi = _cp(b, m, stop_level)
            if hi < alpha:
                decision = "below"
                break
            if lo > alpha:
                decision = "above"
                break
    if alpha is not None and decision is None:
        decision = "undecided"
    reps = np.concatenate(chunks)
    p = (b + 1) / (m + 1)
    return _resampled_result(
        p, seed, reps, m, common, exceed=b, null_mean=0.0, alpha=alpha, decision=decision
    )
