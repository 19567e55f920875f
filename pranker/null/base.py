"""The interface every null distribution of AP answers to: :class:`NullDistribution` and :class:`PValue`.

A null distribution of AP for N instances and P positives answers the same
questions whatever it is made of:

============  ==============================================================
``sf(a)``     P(AP_null >= a) (ties within 1e-12 relative counted as >=)
``logsf(a)``  its natural log, finite where ``sf`` underflows
``cdf(a)``    P(AP_null <= a)
``ppf(q)``    the q-quantile
``interval``  the central interval holding ``conf_level`` of the null
``pvalue(a)`` a :class:`PValue`: the estimate, its log10, its uncertainty
              and how it was obtained
``mean, var`` the exact null moments (closed forms)
============  ==============================================================

Each kind lives with its engine (:mod:`pranker.null.exact`,
:mod:`pranker.null.tilt`, :mod:`pranker.null.saddlepoint`,
:mod:`pranker.null.montecarlo`, :mod:`pranker.null.beta`,
:mod:`pranker.null.skewbeta`); :func:`pranker.null.distributions.null_distribution`
builds one by name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._docs import fill_doc
from .._numba import moments as _kernels
from .._numba.exact import _last_level_count
from .._results import renamed_parameters
from .._validation import check_count_pair
from .choice import REL_TOL
from .logspace import pow10
from .moments import _min_auprc_pair

__all__ = ["PValue", "NullDistribution"]

_LN10 = math.log(10.0)


@dataclass(frozen=True)
class PValue:
    """A p-value with the facts needed to trust it.

    Attributes
    ----------
    pvalue : float
        The estimate (0.0 only if it underflows float64: see ``log10_pvalue``).
    log10_pvalue : float
        Its base-10 logarithm, finite down to the smallest possible p-value
        ``1 / C(N, P)``.
    pvalue_interval : (float, float) or None
        Confidence interval for the true p-value (exact: the value twice;
        estimators: at ``conf_level``; approximations without an error
        bound: None).
    log10_pvalue_interval : (float, float) or None
        The same in log10 (finite where the linear values underflow).
    pvalue_rse : float or None
        Relative standard error of the estimate (0 when exact, None for an
        approximation with no error estimate).
    method : str
        How it was obtained: ``"exact"``, ``"tilt"``, ``"saddlepoint"``,
        ``"montecarlo"``, ``"beta"`` or ``"skewbeta"``.
    n_draws : int or None
        Random draws used (estimators only).
    seed : int or None
        Seed of the draws (estimators only).

    See Also
    --------
    NullDistribution.pvalue : Returns it.
    PrankerResult : The same fields, with the observed AUPRC.

    Examples
    --------
    Of the six placements of 2 positives among 4, three put a positive first
    and have AP >= 3/4 (AP = 1, 5/6, 3/4):

    >>> from pranker.null.exact import ExactNull
    >>> pv = ExactNull(4, 2).pvalue(0.75)
    >>> pv.pvalue, pv.pvalue_interval, pv.pvalue_rse, pv.method
    (0.5, (0.5, 0.5), 0.0, 'exact')
    """

    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple | None
    log10_pvalue_interval: tuple | None
    pvalue_rse: float | None
    method: str
    n_draws: int | None = None
    seed: int | None = None

    @classmethod
    def exact(cls, p: float, log10_p: float | None = None) -> PValue:
        lp = log10_p if log10_p is not None else (math.log10(p) if p > 0 else -math.inf)
        return cls(float(p), lp, (float(p), float(p)), (lp, lp), 0.0, "exact")

    @classmethod
    def approximate(cls, p: float, method: str, log10_p: float | None = None) -> PValue:
        lp = log10_p if log10_p is not None else (math.log10(p) if p > 0 else -math.inf)
        return cls(float(p), lp, None, None, None, method)


# Docstring fragments of the null classes (pranker._docs.fill_doc).
NULL_DOCS = {
    "null_attributes": (
        "n, n_pos, mean, var, min_auprc, method, interval_method\n    As in :class:`NullDistribution`."
    ),
}


@fill_doc()
class NullDistribution:
    """Interface of the null distributions of AP under random ranking.

    Every kind (exact, tilt, saddlepoint, Monte Carlo, beta, skew-beta)
    answers ``sf``, ``logsf``, ``cdf``, ``ppf``, ``interval`` and ``pvalue``
    for the AP of N instances with P positives.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.

    Attributes
    ----------
    n, n_pos : int
        Number of instances and of positives (also ``N``, ``P``, the notation
        of the formulas).
    method : str
        Name of the kind (``"exact"``, ``"tilt"``, ...), as accepted by
        :func:`null_distribution`.
    interval_method : str
        How ``interval`` is computed.
    mean, var : float
        The exact null mean and variance (closed forms, as
        :func:`pranker.null_params`).
    min_auprc : float
        The smallest possible AP (all positives ranked last).

    See Also
    --------
    null_distribution : Builds one by name.
    PValue : What ``pvalue`` returns.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    With N = 4 and P = 2 the six placements give AP = 1, 5/6, 3/4, 7/12, 1/2
    and 5/12:

    >>> from pranker.null.distributions import null_distribution
    >>> null = null_distribution(4, 2, "exact")
    >>> isinstance(null, NullDistribution), float(null.sf(0.75))
    (True, 0.5)
    >>> round(null.mean * 72, 10)  # (1 + 5/6 + 3/4 + 7/12 + 1/2 + 5/12) / 6 = 49/72
    49.0
    """

    method = ""
    interval_method = ""
    # the counts under the package's names (per query, as arrays, for a null over queries)
    n: Any
    n_pos: Any

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int):
        N, P = n, n_pos  # the paper's notation in the formulas below
        self.N, self.P = check_count_pair(N, P)
        # the counts under the package's names; N and P stay as the formulas' notation
        self.n, self.n_pos = self.N, self.P
        self._moments: tuple[float, float] | None = None

    # the exact moments, shared by every kind
    @property
    def mean(self) -> float:
        return self._exact_moments()[0]

    @property
    def var(self) -> float:
        return self._exact_moments()[1]

    def _exact_moments(self):
        if self._moments is None:
            m, v = _kernels.null_moments_scalar(self.N, self.P, self.N - self.P)
            self._moments = (float(m), float(v))
        return self._moments

    def set_moments(self, params) -> None:
        """Use precomputed null moments ``(mean, var)`` (e.g. from a null table)
        instead of computing them; only ``mean`` and ``var`` change."""
        self._moments = (float(params[0]), float(params[1]))

    @property
    def min_auprc(self) -> float:
        return float(_min_auprc_pair(self.N, self.P)[0])

    # the verbs
    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:  # pragma: no cover
        raise NotImplementedError

    def sf(self, ap):
        """P(AP_null >= ap)."""
        return vectorize(lambda a: self.pvalue(a).pvalue, ap)

    def logsf(self, ap):
        """Natural log of ``sf``, finite where ``sf`` underflows."""
        return vectorize(lambda a: self.pvalue(a).log10_pvalue * _LN10, ap)

    def cdf(self, ap):  # pragma: no cover
        raise NotImplementedError

    def ppf(self, q):  # pragma: no cover
        raise NotImplementedError

    def interval(self, conf_level: float = 0.95) -> tuple:
        """Central interval holding ``conf_level`` of the null AP."""
        lo = self.ppf((1.0 - conf_level) / 2.0)
        hi = self.ppf((1.0 + conf_level) / 2.0)
        return float(lo), float(hi)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(N={self.N}, P={self.P})"

    # shared closed forms at the ends of the support
    def known_pvalue(self, ap: float):
        """:meth:`edge_pvalue`, or the exact p-value when P = 1; else None."""
        edge = self.edge_pvalue(ap)
        if edge is None and self.P == 1:
            return PValue.exact(one_positive_count(self.N, float(ap)) / self.N)
        return edge

    def edge_pvalue(self, ap: float):
        """The exact p-value where it is known in closed form, else None.

        AP at or below its minimum: p = 1. AP above the second largest value
        ``(P - 1/(P+1)) / P``: only the perfect ranking, p = 1 / C(N, P).
        P = N: AP = 1 always.
        """
        n, p = self.N, self.P
        if p == n:
            return PValue.exact(1.0 if ap <= 1.0 + REL_TOL else 0.0)
        if ap > 1.0 + REL_TOL:
            return PValue.exact(0.0)
        lo = self.min_auprc
        if ap * (1.0 - REL_TOL) <= lo:
            return PValue.exact(1.0)
        second = (p - 1.0 / (p + 1.0)) / p
        if second < ap * (1.0 - REL_TOL):
            return one_over_comb(n, p)
        return None


def one_over_comb(n: int, p: int) -> PValue:
    """The exact p-value 1 / C(n, p) (in log10 where the float underflows)."""
    log10_c = log10_comb(n, p)
    if log10_c < 300.0:
        c = math.comb(n, p)
        return PValue.exact(1.0 / c, -math.log10(c))
    return PValue.exact(pow10(-log10_c), -log10_c)


def vectorize(f, x):
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        return float(f(float(arr)))
    return np.array([f(float(v)) for v in arr.ravel()]).reshape(arr.shape)


def one_positive_count(n: int, ap: float) -> int:
    """The ranks r of 1..n of a lone positive whose AP = 1 / r is at least ``ap`` (ties within REL_TOL)."""
    return int(_last_level_count(0.0, 1, n, 1.0, ap * (1.0 - REL_TOL)))


def log10_comb(n: int, p: int) -> float:
    """log10 C(n, p) from lgamma (no overflow)."""
    return (math.lgamma(n + 1.0) - math.lgamma(p + 1.0) - math.lgamma(n - p + 1.0)) / _LN10
