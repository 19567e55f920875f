"""Is a ranking better than chance? ``pranker()``, ``significance_from_ap()`` and the ``auto`` rule.

The p-value is the upper tail P(AP_null >= AP_observed) under random ranking
of the same N instances with P positives. Every entry point of the package
(``pranker``, ``significance_from_ap``, ``pranker_many``, the out-of-core and
Dask versions, the command line) computes it through the same null
distributions (:mod:`pranker.null.distributions`) with the same default rule
(:func:`pranker.null.choice.plan`): exact where counting the placements is
instant, the saddlepoint where its error has been measured, the exact-tilt
estimator otherwise, with a fixed default seed.

Differences from the R package, on purpose:

- The default p-value is not the two-moment beta (``method="beta"``
  reproduces R): the beta's tail can be wrong by tens of orders of
  magnitude in either direction.
- ``params=(mean, var)`` only supplies the null moments (skipping their O(1)
  computation); it does not select the beta.
- ``null_interval`` is the central interval of the null that produced the
  p-value, on the AUPRC scale; R returns quantiles of the standardised beta
  on [0, 1].
- The null moments are exact for every N (see :mod:`pranker.null.moments`).
- Degenerate cases are defined: P = N gives AP = 1 with null variance 0 and
  p-value 1; N = 1 likewise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _format as _fmt
from .._display import ResultDisplay
from .._docs import fill_doc
from .._numba import moments as _k_moments
from .._results import DeprecatedAlias, jsonable
from .._validation import (
    check_count_pair,
    check_scores_labels,
    check_ties,
    score_label_aliases,
)
from ..measures.ap import auprc_validated
from ..null.distributions import (
    NullDistribution,
    PValue,
)
from .figure import Plottable
from .options import PValueOptions

__all__ = ["PrankerResult", "pranker", "significance_from_ap"]


def null_interval_of(null: NullDistribution, conf_level: float) -> tuple[float, float]:
    """Central ``conf_level`` interval of ``null`` (its mean twice for a point mass, P = N)."""
    if null.var <= 0.0:
        return (null.mean, null.mean)
    lo, hi = null.interval(conf_level)
    return (float(lo), float(hi))


@dataclass(frozen=True)
class PrankerResult(ResultDisplay, Plottable):
    """Result of :func:`pranker`, in the style of ``scipy.stats`` results.

    Attributes
    ----------
    auprc : float
        Observed AUPRC (average precision). Also ``statistic``.
    pvalue : float
        P(AP_null >= auprc) under random ranking (0.0 only where it underflows
        float64: read ``log10_pvalue``).
    log10_pvalue : float
        log10 of the p-value, finite down to ``-log10 C(N, P)``.
    pvalue_interval : (float, float) or None
        Confidence interval (at ``conf_level``) for the true p-value: the
        value twice when exact, None for approximations without an error
        bound (``"beta"``, ``"skewbeta"``, ``"saddlepoint"``).
    pvalue_rse : float or None
        Relative standard error of the p-value (0 when exact).
    method : str
        How the p-value was obtained: ``"exact"``, ``"tilt"``,
        ``"saddlepoint"``, ``"montecarlo"``, ``"beta"`` or ``"skewbeta"``
        (for ``method="auto"``, the one used).
    n, n_pos : int
        Number of instances (N) and of positives (P).
    null_mean, null_var : float
        Exact mean and variance of the null AP.
    conf_level : float
    ties : str
        Tie mode used for the observed AUPRC.
    n_draws : int or None
        Random draws behind the p-value (estimators only).
    seed : int or None
        Seed of those draws (estimators only).
    log10_pvalue_interval : (float, float) or None
        ``pvalue_interval`` in log10, finite where the linear values underflow
        float64 (p-values below about 1e-308).
    null : NullDistribution
        The null distribution that produced the p-value; ``null_interval``,
        ``null.sf``, ``null.ppf`` ... come from it.

    See Also
    --------
    pranker : computes it from scores and labels.
    significance_from_ap : computes it from an AP, N and P.

    Examples
    --------
    >>> res = pranker([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [1, 0, 1, 0, 0, 0])
    >>> round(res.auprc, 6), res.n, res.n_pos  # positives at ranks 1 and 3: (1 + 2/3) / 2
    (0.833333, 6, 2)
    >>> res.method, round(res.pvalue, 6)  # 2 of the C(6, 2) = 15 rankings score as high
    ('exact', 0.133333)
    >>> res.statistic == res.auprc, res.pvalue_interval == (res.pvalue, res.pvalue)
    (True, True)
    >>> sorted(res.to_dict())[:4]  # plain fields, ready for JSON
    ['auprc', 'conf_level', 'log10_pvalue', 'log10_pvalue_interval']
    """

    auprc: float
    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple | None
    pvalue_rse: float | None
    method: str
    n: int
    n_pos: int
    null_mean: float
    null_var: float
    conf_level: float = 0.95
    ties: str = "average"
    n_draws: int | None = None
    seed: int | None = None
    log10_pvalue_interval: tuple | None = None
    null: NullDistribution | None = field(default=None, repr=False, compare=False)

    @property
    def statistic(self) -> float:
        """The observed AUPRC (scipy's name)."""
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

    @property
    def null_interval(self) -> tuple:
        """Central ``conf_level`` interval of the null AUPRC, from ``null`` (``null_interval_method``)."""
        if self.null is None:
            return (self.null_mean, self.null_mean)
        return null_interval_of(self.null, self.conf_level)

    @property
    def null_interval_method(self) -> str:
        """How ``null_interval`` is computed: exact, saddlepoint, montecarlo, beta or skewbeta."""
        return self.null.interval_method if self.null is not None else "exact"

    @property
    def min_auprc(self) -> float:
        """Lower end of the null support (all positives ranked last)."""
        return float(
            _k_moments.min_ap(float(self.n), float(self.n_pos), float(self.n - self.n_pos))[0]
        )

    # earlier names, kept until 0.5.0
    conf_int = DeprecatedAlias("null_interval")
    pvalue_ci = DeprecatedAlias("pvalue_interval")

    def _table(self):
        pct = f"{100 * self.conf_level:g}%"
        headers = ["method", "AUPRC", "p-value", "null mean", "null var", f"{pct} null interval"]
        row = [
            self.method,
            _fmt.sig(self.auprc, 4),
            _fmt.pvalue_text(self),
            _fmt.sig(self.null_mean, 4),
            _fmt.sig(self.null_var, 3),
            _fmt.interval(*self.null_interval),
        ]
        caption = (
            f"AUPRC against random ranking: N = {self.n:,}, P = {self.n_pos:,}, ties = {self.ties}"
        )
        note = "p-value: probability that a random ranking scores at least this AUPRC"
        if self.seed is not None:
            note += f" ({self.n_draws:,} draws, seed {self.seed})"
        return caption, headers, [row], note

    def to_dict(self) -> dict:
        """Plain fields, JSON-ready (``json.dumps`` takes it): everything but the null
        object, plus ``statistic``, ``null_interval`` and ``null_interval_method``."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "null"}
        d["statistic"] = self.statistic
        d["null_interval"] = self.null_interval
        d["null_interval_method"] = self.null_interval_method
        return jsonable(d)


@score_label_aliases
@fill_doc()
def pranker(
    scores,
    y,
    params=None,
    conf_level: float = 0.95,
    *,
    pos_label=None,
    ties: str = "average",
    method: str | None = None,
    rtol: float | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = None,
    max_work: int | None = None,
) -> PrankerResult:
    """AUPRC of a ranking and its p-value against random ranking.

    Parameters
    ----------
    scores : array_like of float
        Higher scores are ranked first; any shape (flattened). NaN is an error.
    y : array_like
        Gold standard: 0/1, booleans or -1/1 (1 is the positive class), or
        any labels with ``pos_label``. pranker takes ``(scores, y)`` like R,
        not scikit-learn's ``(y_true, y_score)``; the keywords
        ``y_score=``/``y_true=`` work too, and arguments that look swapped
        are an error.
    params : (mean, var), optional
        Precomputed null mean and variance of AP (e.g. from
        :func:`null_params` or a null table) for this N and P; they skip the
        O(1) moment computation and are reported as ``null_mean``,
        ``null_var``. Unlike R they do not select the beta: pass
        ``method="beta"`` for R's p-value.
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    pos_label : scalar, optional
        The label of the positive class (every other value is negative).
    ties : str
        Tie mode of the observed AUPRC; see :func:`auprc_ap`. The null is
        always untied random ranking.
    method : {"auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta"}
        ``"auto"`` (default): exact when counting is instant, the
        saddlepoint where its error has been measured (the bound is its
        interval), the exact-tilt estimator otherwise, for every N and P
        (:func:`pranker.null.choice.plan`; the table in docs/calibration.md).
        ``"exact"``: the exact tail count (raises ``ExactBudgetExceeded``
        after ``max_nodes`` steps).
        ``"tilt"``: the exact-tilt estimator, unbiased at any depth of the
        tail, to relative standard error ``rtol``.
        ``"saddlepoint"``: Lugannani–Rice on the exact CGF, or on an
        accurate compressed CGF beyond 10^8 recursion cells (deterministic).
        Where its error was measured against independent truths,
        ``pvalue_interval`` is that bound; elsewhere it is None, and where
        few positives sit among many items it can be off by up to two
        orders of magnitude (docs/calibration.md). ``"auto"`` uses it only
        where it was measured.
        ``"montecarlo"``: permutation p-value, resolves p >= ~1 / n_draws.
        ``"beta"``: the two-moment beta of Lopes & Bontempi, as in R (O(1),
        wrong by orders of magnitude in the tail when P is small).
        ``"skewbeta"``: a beta matched to three moments.
    rtol : float, optional
        Target relative standard error of tilt p-values (default 0.02).
    n_draws : int, optional
        Monte Carlo draws (default 100,000).
    seed : int, optional
        Seed of the tilt or Monte Carlo draws (default fixed, recorded on the
        result, so that the same call gives the same number).
    alpha : float, optional
        Monte Carlo early stopping at this level.
    max_nodes : int, optional
        Step budget of the exact tail count (default 1e9).
    progress : bool or None
        A progress bar (tqdm) for long p-values: Monte Carlo, or tilt draws
        predicted to take more than about 2 s. True, False, or None (the
        default): only when stderr is a terminal and tqdm is installed.
    max_work : int, optional
        Work budget of each estimated (tilt) p-value, in deterministic units
        (about 1 ns each on the reference machine; default 1.8e9, about a
        stable sort of 10^7 numbers). A p-value that reaches it before
        ``rtol`` reports the relative standard error it reached and the
        wider interval that goes with it, and warns
        (:class:`pranker.WorkBudgetWarning`); the same call gives the same
        number on every machine.

    Returns
    -------
    PrankerResult

    See Also
    --------
    significance_from_ap : the same for an AP computed elsewhere.
    pranker_many : many rankings at once, with Benjamini-Hochberg adjustment.
    compare : two models scored on the same instances.
    null_distribution : the null behind the p-value, for any (N, P) and method.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    >>> res = pranker(s, y)  # tiny: the exact tail, 2 of C(10, 5) rankings
    >>> round(res.auprc, 4), res.n, res.n_pos, res.method, round(res.pvalue, 4)
    (0.9667, 10, 5, 'exact', 0.0079)
    >>> pranker(s, y, method="beta").pvalue < res.pvalue  # R's beta: too light a tail here
    True
    """
    check_ties(ties)
    options = PValueOptions.of("pranker", locals())
    s, yb = check_scores_labels(scores, y, pos_label=pos_label, where="pranker")
    n = int(s.shape[0])
    n_pos = int(np.count_nonzero(yb))
    auprc = auprc_validated(s, yb, ties)
    return result_of(auprc, n, n_pos, options, ties)


def significance_from_ap(
    auprc: float,
    n: int,
    n_pos: int,
    *,
    params=None,
    conf_level: float = 0.95,
    ties: str = "average",
    method: str | None = None,
    rtol: float | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = None,
    max_work: int | None = None,
) -> PrankerResult:
    """The :class:`PrankerResult` of an AP computed elsewhere: the null needs only N and P.

    The same computation as :func:`pranker` after the AP (arguments as
    there), for an AUPRC computed by another tool or out of core.

    Parameters
    ----------
    auprc : float
        The observed average precision, in [min_auprc(n, n_pos), 1].
    n, n_pos : int
        Number of instances N and of positives P of the ranking it scores.
    params, conf_level, ties, method, rtol, n_draws, seed, alpha, max_nodes, progress, max_work
        As in :func:`pranker` (``ties`` is only recorded on the result).

    Returns
    -------
    PrankerResult

    See Also
    --------
    pranker : the same from scores and labels.
    pranker_many : many rankings at once.
    map_significance : a mean AP over many queries.

    Examples
    --------
    >>> res = significance_from_ap(0.5, 1000, 10)
    >>> res.method, round(res.null_mean, 4), res.log10_pvalue < -7
    ('tilt', 0.0164, True)
    """
    check_ties(ties)
    options = PValueOptions.of("significance_from_ap", locals())
    n, n_pos = check_count_pair(n, n_pos)
    auprc = float(auprc)
    if not math.isfinite(auprc) or auprc < 0.0 or auprc > 1.0 + 1e-12:
        raise ValueError(
            f"significance_from_ap: auprc must be a finite number in [0, 1] (an average "
            f"precision); got {auprc!r}. Pass the AP itself, not a percentage or a score."
        )
    return result_of(auprc, n, n_pos, options, ties)


def result_of(auprc: float, n: int, n_pos: int, options: PValueOptions, ties: str) -> PrankerResult:
    """The :class:`PrankerResult` of checked inputs: the one path behind every entry point.

    Nothing is checked here: ``options`` come from :meth:`PValueOptions.checked`
    and (auprc, n, n_pos) from the caller's checks.
    """
    null = options.null(n, n_pos)
    pv: PValue = null.pvalue(auprc, conf_level=options.conf_level)
    return result_from_pvalue(auprc, n, n_pos, pv, null, conf_level=options.conf_level, ties=ties)


def result_from_pvalue(
    auprc, n, n_pos, pv: PValue, null: NullDistribution, *, conf_level=0.95, ties="average"
) -> PrankerResult:
    """Assemble a :class:`PrankerResult` from a p-value and the null that produced it."""
    return PrankerResult(
        auprc=float(auprc),
        pvalue=float(pv.pvalue),
        log10_pvalue=float(pv.log10_pvalue),
        pvalue_interval=pv.pvalue_interval,
        pvalue_rse=pv.pvalue_rse,
        method=pv.method,
        n=int(n),
        n_pos=int(n_pos),
        null_mean=null.mean,
        null_var=null.var,
        conf_level=conf_level,
        ties=ties,
        n_draws=pv.n_draws,
        seed=pv.seed,
        log10_pvalue_interval=pv.log10_pvalue_interval,
        null=null,
    )
