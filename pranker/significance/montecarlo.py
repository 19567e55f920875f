"""Monte Carlo (permutation) p-values of AP as a result a reader can read: :func:`montecarlo_pvalue`.

The estimator, its interval and its sequential early stopping are described
in :mod:`pranker.null.montecarlo`; this module checks the arguments and
returns a :class:`MonteCarloPvalue` (a table in Jupyter, a figure with
``plot()``).

References
----------
B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
Stat. Appl. Genet. Mol. Biol. 9(1), 2010.
C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
illustrated in the case of the binomial", Biometrika 26(4), 1934.
"""

from __future__ import annotations

import functools
import importlib
import math
from dataclasses import dataclass

import numpy as np

from .. import _format as _fmt
from .._display import ResultDisplay
from .._results import DeprecatedAlias, jsonable, renamed_parameters
from .._validation import (
    check_ap,
    check_conf_level,
    check_count,
    check_counts,
    check_probability,
)
from ..null.choice import DEFAULT_MC_DRAWS, DEFAULT_SEED
from ..null.moments import null_ap_samples, null_params
from ..null.montecarlo import NULL_INTERVAL_DRAWS, clopper_pearson, exceedances

__all__ = ["MonteCarloPvalue", "montecarlo_pvalue", "clopper_pearson"]


@dataclass(frozen=True)
class MonteCarloPvalue(ResultDisplay):
    """Result of :func:`montecarlo_pvalue`.

    Attributes
    ----------
    statistic : float
        The observed AP the p-value is for.
    pvalue : float
        ``(b + 1) / (m + 1)``.
    log10_pvalue : float
        Its log10.
    pvalue_interval : tuple of float
        Clopper–Pearson interval for p_true from ``b / m`` (at the adjusted
        confidence when early stopping was requested).
    pvalue_rse : float
        Relative standard error of ``b / m``: ``sqrt((1 - b/m) / max(b, 1))``.
    method : str
        ``"montecarlo"``.
    n_exceed, n_draws : int
        ``b`` and ``m``.
    conf_level : float
        Confidence of ``pvalue_interval`` (after the Bonferroni adjustment).
    alpha : float or None
        Level for early stopping.
    decision : str or None
        ``"below"`` / ``"above"`` when the interval excludes ``alpha``,
        ``"undecided"`` when ``n_draws`` ran out first, None without ``alpha``.
    stopped_early : bool
        True when sampling stopped before ``n_draws`` draws.
    seed : int
        Seed of the draws (the fixed default when none was given), so the
        same call reproduces the result.
    n, n_pos : int
        Number of instances and of positives.
    null_mean, null_var : float
        Exact mean and variance of the null AP (:func:`null_params`).
    null_interval : (float, float)
        Central ``conf_level`` interval of the null AP: quantiles of the
        first ``min(n_draws, 200_000)`` of the draws behind the p-value
        (computed on first use; the quantiles of
        :class:`pranker.null.distributions.MonteCarloNull` with the same draws and seed).

    See Also
    --------
    montecarlo_pvalue : the function that returns it.
    clopper_pearson : the interval in ``pvalue_interval``.

    Examples
    --------
    With one positive among 10 instances, AP is 1 / r for the positive's rank
    r, so AP >= 1/3 for r = 1, 2, 3: the exact p-value is 3/10. With 20,000
    draws its standard error is about 0.0032.

    >>> r = montecarlo_pvalue(1 / 3, 10, 1, n_draws=20_000, seed=0)
    >>> r.n_draws, r.seed, r.conf_level, r.decision, r.stopped_early
    (20000, 0, 0.95, None, False)
    >>> r.pvalue == (r.n_exceed + 1) / (r.n_draws + 1)
    True
    >>> round(r.pvalue, 2)
    0.3
    >>> r.pvalue_interval[0] < 0.3 < r.pvalue_interval[1]
    True
    """

    statistic: float
    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple
    pvalue_rse: float
    n_exceed: int
    n_draws: int
    conf_level: float
    alpha: float | None
    decision: str | None
    stopped_early: bool
    seed: int
    n: int
    n_pos: int
    null_mean: float
    null_var: float
    method: str = "montecarlo"

    # earlier name, kept until 0.5.0
    pvalue_ci = DeprecatedAlias("pvalue_interval")

    @functools.cached_property
    def null_interval(self) -> tuple[float, float]:
        """Central ``conf_level`` interval of the null AP, from the first draws of the p-value."""
        if self.null_var <= 0.0:
            return (self.null_mean, self.null_mean)
        k = min(self.n_draws, NULL_INTERVAL_DRAWS)
        x = null_ap_samples(self.n, self.n_pos, k, seed=self.seed)
        q = (1.0 - self.conf_level) / 2.0
        lo, hi = np.quantile(x, [q, 1.0 - q])
        return (float(lo), float(hi))

    def plot(self, **kwargs):
        """The null distribution with the observed AP and this p-value (needs matplotlib:
        ``pip install "pranker[plot]"``); keyword arguments as in
        :func:`pranker.plotting.plot_result`. Returns the matplotlib Figure.

        The figure module is imported by name when called, as for every result's
        ``plot()`` (:mod:`pranker.significance.figure`).
        """
        return importlib.import_module("pranker.plotting").plot_result(self, **kwargs)

    def _table(self):
        pct = f"{100 * self.conf_level:g}%"
        headers = ["method", "AP", "p-value", f"{pct} interval", "draws", "at least as high"]
        row = [
            self.method,
            _fmt.sig(self.statistic, 4),
            _fmt.pvalue_number(self.pvalue, self.log10_pvalue, 3),
            _fmt.interval(*self.pvalue_interval),
            f"{self.n_draws:,}",
            f"{self.n_exceed:,}",
        ]
        note = f"seed {self.seed}"
        if self.decision is not None:
            note += f"; at alpha = {self.alpha:g}: {self.decision}"
        return "Monte Carlo p-value against random ranking", headers, [row], note

    def to_dict(self) -> dict:
        """Plain fields, JSON-ready, with ``null_interval``."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["null_interval"] = self.null_interval
        return jsonable(d)


@renamed_parameters(N="n", P="n_pos")
def montecarlo_pvalue(
    ap: float,
    n: int,
    n_pos: int,
    *,
    n_draws: int = DEFAULT_MC_DRAWS,
    seed: int | None = None,
    alpha: float | None = None,
    abs_tol: float | None = None,
    conf_level: float = 0.95,
    progress: bool | None = False,
) -> MonteCarloPvalue:
    """Permutation p-value P(AP_null >= ap) from random placements of the positives.

    Parameters
    ----------
    ap : float
        Observed average precision.
    n, n_pos : int
        Instances and positives.
    n_draws : int
        Largest number of null draws.
    seed : int, optional
        Seed of the draws (default: the package's fixed seed, so that the same
        call gives the same number; recorded on the result). Draw j depends
        only on (seed, j).
    alpha : float, optional
        Level for sequential early stopping (module docstring): stop once the
        confidence interval for p lies entirely below or above ``alpha``.
        Stopping on the wrong side has probability at most ``1 - conf_level``.
    abs_tol : float, optional
        Also stop once the confidence interval lies within ``abs_tol`` of
        the estimate ``b / m`` on both sides (precision reached), so that
        ``|b/m - p_true| <= abs_tol`` with confidence ``conf_level``.
    conf_level : float
        Confidence of ``pvalue_interval`` (and of the stopping decision).
    progress : bool or None
        tqdm progress bar (None: only on a terminal).

    Returns
    -------
    MonteCarloPvalue

    References
    ----------
    B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
    2010; C. J. Clopper and E. S. Pearson, Biometrika 1934.

    Examples
    --------
    >>> r = montecarlo_pvalue(1 / 3, 10, 1, n_draws=20000, seed=0)  # exact p = 0.3
    >>> r.pvalue_interval[0] < 0.3 < r.pvalue_interval[1]
    True
    >>> r = montecarlo_pvalue(0.9, 1000, 10, n_draws=10**6, seed=0, alpha=0.05)
    >>> r.decision, r.stopped_early, r.n_draws
    ('below', True, 1000)
    >>> montecarlo_pvalue(0.5, 100, 5, n_draws=2000) == montecarlo_pvalue(0.5, 100, 5, n_draws=2000)
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    a = check_ap(ap)
    n_arr, p_arr, scalar = check_counts(N, P)
    if not scalar:
        raise ValueError("N and P must be scalars.")
    n, p = int(n_arr[0]), int(p_arr[0])
    n_draws = check_count(n_draws, "n_draws")
    if n_draws < 1:
        raise ValueError(f"n_draws must be >= 1; got {n_draws}.")
    c = check_conf_level(conf_level)
    alpha = check_probability(alpha, "alpha", None, " (the level for early stopping)")
    if seed is None:
        seed = DEFAULT_SEED  # fixed: the same call gives the same number
    else:
        seed = check_count(seed, "seed")
        if seed < 0:
            raise ValueError(f"seed must be >= 0; got {seed}.")
    abs_tol = check_probability(abs_tol, "abs_tol")
    ex = exceedances(
        a,
        n,
        p,
        n_draws=n_draws,
        seed=seed,
        alpha=alpha,
        abs_tol=abs_tol,
        conf_level=c,
        progress=progress,
    )
    pval = ex.pvalue
    moments = null_params(n, p)
    return MonteCarloPvalue(
        statistic=a,
        pvalue=pval,
        log10_pvalue=math.log10(pval),
        pvalue_interval=ex.interval,
        pvalue_rse=ex.rse,
        n_exceed=ex.n_exceed,
        n_draws=ex.n_draws,
        conf_level=ex.conf_level,
        alpha=alpha,
        decision=ex.decision,
        stopped_early=ex.n_draws < n_draws,
        seed=seed,
        n=n,
        n_pos=p,
        null_mean=float(moments.mean),
        null_var=float(moments.var),
    )
