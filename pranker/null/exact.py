r"""The exact null distribution of AP by enumerating placements of the positives.

Under random ranking each of the C(N, P) sets of ranks ``r_1 < ... < r_P`` of
the positives is equally likely, and

.. math::

    AP = \frac{1}{P} \sum_{k=1}^{P} \frac{k}{r_k} .

Two exact computations are offered.

Full distribution (:func:`exact_null_distribution`)
    Every placement is visited in lexicographic order. Keeping the prefix sums
    ``pre[k] = sum_{j<k} (j+1)/r_j`` means that advancing the combination only
    recomputes the terms that changed, and the innermost loop (the last
    positive's rank) costs one division and one addition per placement. The
    sums are sorted and equal values merged (see *Ties* below). Memory is
    8 bytes per placement, so this is limited to
    ``C(N, P) <= EXACT_DISTRIBUTION_LIMIT`` (2e7).

Tail count (:func:`exact_pvalue`)
    Only ``#{placements : AP >= ap}`` is needed. A depth-first search over the
    positives' ranks carries the partial sum ``s`` of the first k terms and
    bounds what the remaining positives can add, given the k-th rank ``c``:

    - at least ``sum_{j>k} j / (N - P + j)`` (they are ranked last), so if
      ``s`` plus this reaches the threshold, all ``C(N - c, P - k)``
      completions are counted at once;
    - at most ``sum_{j>k} j / (c + j - k)`` (they follow immediately), so if
      ``s`` plus this misses the threshold, this ``c`` and every larger one
      is cut (both ``s`` and the bound decrease in ``c``);
    - the last positive is never enumerated: ``P / r >= t - s`` holds exactly
      for ``r <= floor(P / (t - s))`` (checked against the same floating
      comparison at the boundary), so that level costs O(1).

    The work is then far below C(N, P) (roughly the number of placements of
    the first P - 1 positives that straddle the threshold). Counts are float64:
    exact integers below 2**53, ~1e-16 relative beyond. The search stops after
    ``max_nodes`` steps (``EXACT_MAX_NODES`` = 1e9 by default).

Ties
----
AP values are sums of fractions, so mathematically equal values computed in
different orders can differ in the last bits. Two values are treated as equal
when they differ by at most ``REL_TOL = 1e-12`` relative; the p-value counts
ties as ``>=``: ``p = P(AP_null >= ap (1 - 1e-12))``. Rounding differences
are ~1e-16 relative, far below the tolerance. Distinct values can be close:
the smallest relative gap between distinct AP values measured is 3e-9 at
(N, P) = (20, 10), 3e-10 at (30, 6) and (100, 3), 7e-12 at (50, 5); for larger
N and P two distinct values closer than 1e-12 would be treated as tied, which
moves p by at most the null probability of those values.

P = 1
-----
AP = 1/r with r uniform on 1..N, so ``p = #{r : 1/r >= ap} / N``; for an
observed positive at rank r this is ``r / N``.

Measured speed (shared 2-core machine, one thread): full enumeration
~1e9 placements per minute (C(40, 5) = 658,008 in 0.04 s); the tail count
visits ~2.5e7 search steps per second, and e.g. N = 100, P = 5 (7.5e7
placements) takes ~0.01-0.02 s at the hardest ap, N = 1e5, P = 3 at p = 0.01 ~0.2 s.
There is no exact DP over distinct AP values here: the number of distinct
values grows like C(N, P) itself for small P, so it would not beat the tail
count.

References
----------
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._docs import fill_doc
from .._numba.exact import _enumerate_sums, _tail_count
from .._results import DeprecatedAlias, renamed_parameters
from .._validation import check_ap, check_counts
from .base import NULL_DOCS, NullDistribution, PValue, log10_comb, one_positive_count, vectorize
from .choice import DEFAULT_SEED, EXACT_MAX_NODES, REL_TOL
from .logspace import placements_at_most
from .moments import null_quantiles

__all__ = [
    "ExactNull",
    "ExactNullDistribution",
    "exact_null_distribution",
    "exact_pvalue",
    "ExactBudgetExceeded",
]

EXACT_DISTRIBUTION_LIMIT = 20_000_000


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------


@fill_doc()
@dataclass(frozen=True)
class ExactNullDistribution:
    """The exact null distribution of AP for N instances and P positives.

    Attributes
    ----------
    values : ndarray
        Distinct AP values, increasing (values within ``REL_TOL`` merged).
    counts : ndarray of int64
        Number of placements giving each value; sums to ``C(N, P)``.
    total : int
        ``C(N, P)``.
    n, n_pos : int
        Number of instances N and of positives P (``N``, ``P``: their
        earlier names, deprecated).
    probabilities : ndarray
        ``counts / total``, the probability of each value.

    Methods
    -------
    sf(ap)
        ``P(AP_null >= ap)``, ties within ``REL_TOL`` counted as ``>=``.
    moment(order, central=True)
        Raw or central moment of the distribution.

    See Also
    --------
    exact_null_distribution : the function that returns it.
    exact_pvalue : the same tail probability by counting, for larger N and P.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    Two positives among six instances: 15 placements, and two of them, the
    positives at ranks (2, 6) and at ranks (3, 4), give the same AP,
    ``(1/2 + 2/6) / 2 = (1/3 + 2/4) / 2 = 5/12``.

    >>> d = exact_null_distribution(6, 2)
    >>> d.total, len(d.values), int(d.counts.max())
    (15, 14, 2)
    >>> round(float(d.values[d.counts == 2][0]), 4)
    0.4167

    AP reaches 3/4 at ranks (1, 2), (1, 3) and (1, 4), 3 of the 15
    placements; the mean of the 15 values is 79/150.

    >>> float(d.sf(3 / 4))
    0.2
    >>> round(d.moment(1, central=False), 4)
    0.5267
    """

    values: np.ndarray
    counts: np.ndarray
    total: int
    n: int
    n_pos: int

    # earlier names, kept until 0.5.0
    N = DeprecatedAlias("n")
    P = DeprecatedAlias("n_pos")

    @property
    def probabilities(self) -> np.ndarray:
        return self.counts / float(self.total)

    def sf(self, ap):
        """P(AP_null >= ap), ties (within ``REL_TOL``) counted as >=."""
        ap = np.asarray(ap, dtype=np.float64)
        thr = ap * (1.0 - REL_TOL)
        tail = np.concatenate([np.cumsum(self.counts[::-1])[::-1], [0]])
        idx = np.searchsorted(self.values, thr, side="left")
        return (tail[idx] / float(self.total))[()]

    def moment(self, order: int, central: bool = True) -> float:
        """Raw or central moment of the exact distribution (float64)."""
        p = self.probabilities
        mu = float(p @ self.values)
        if order == 1:
            return mu if not central else 0.0
        x = self.values - mu if central else self.values
        return float(p @ x**order)


_check_ap = check_ap


def _scalar_counts(N, P):
    n_arr, p_arr, scalar = check_counts(N, P)
    if not scalar:
        raise ValueError("N and P must be scalars here.")
    return int(n_arr[0]), int(p_arr[0])


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def exact_null_distribution(n: int, n_pos: int) -> ExactNullDistribution:
    """Exact null distribution of AP: every one of the C(N, P) placements enumerated.

    Parameters
    ----------
    n, n_pos : int
        Instances and positives, with ``C(N, P) <= EXACT_DISTRIBUTION_LIMIT``
        (2e7; 8 bytes of memory per placement).

    Returns
    -------
    ExactNullDistribution
        Distinct AP values with their counts (ties within 1e-12 relative merged).

    Raises
    ------
    ValueError
        If C(N, P) is above the limit (use :func:`exact_pvalue`, which counts
        a tail without storing it, or Monte Carlo).

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> d = exact_null_distribution(4, 2)
    >>> d.values.round(4).tolist(), d.counts.tolist()
    ([0.4167, 0.5, 0.5833, 0.75, 0.8333, 1.0], [1, 1, 1, 1, 1, 1])
    >>> float(d.sf(5 / 6)) == 2 / 6  # ties counted as >=
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_counts(N, P)
    if not placements_at_most(n, p, EXACT_DISTRIBUTION_LIMIT):
        raise ValueError(
            f"C(N={n}, P={p}) = 10^{log10_comb(n, p):.1f} placements exceeds "
            f"EXACT_DISTRIBUTION_LIMIT={EXACT_DISTRIBUTION_LIMIT:.0e}; use exact_pvalue "
            "(tail count, no storage) or method='montecarlo'."
        )
    total = math.comb(n, p)
    sums = np.empty(total, dtype=np.float64)
    got = _enumerate_sums(n, p, sums)
    assert got == total
    sums.sort()
    # merge runs whose values are within REL_TOL of the run's first value
    gaps = np.diff(sums) > REL_TOL * np.abs(sums[1:])
    starts = np.concatenate([[0], np.flatnonzero(gaps) + 1])
    counts = np.diff(np.concatenate([starts, [total]])).astype(np.int64)
    values = sums[starts] / p
    return ExactNullDistribution(values, counts, total, n, p)


class ExactBudgetExceeded(ValueError):
    """The exact tail count needs more search steps than allowed.

    Raised by :func:`exact_pvalue` when counting the placements with
    ``AP >= ap`` would take more than ``max_nodes`` steps. It is a
    ``ValueError``, so code that catches bad input catches it too.

    Attributes
    ----------
    args : tuple of str
        One element, the message: N, P, the observed AP and the budget, and
        what to do instead (Monte Carlo, or a larger ``max_nodes``).

    See Also
    --------
    exact_pvalue : the function that raises it.
    montecarlo_pvalue : a p-value at any N and P, with a confidence interval.

    Examples
    --------
    >>> try:
    ...     exact_pvalue(0.1, 10_000, 6, max_nodes=1000)
    ... except ExactBudgetExceeded as err:
    ...     print(isinstance(err, ValueError), str(err).split("; ")[1])
    True use method='montecarlo' (or raise max_nodes).
    """


@renamed_parameters(N="n", P="n_pos")
def exact_pvalue(
    ap: float, n: int, n_pos: int, *, max_nodes: int = EXACT_MAX_NODES, return_count: bool = False
):
    """Exact p-value P(AP_null >= ap) under random ranking of N instances with P positives.

    Ties (AP values within 1e-12 relative of ``ap``) are counted as ``>=``.
    P = 1 uses the closed form ``#{r : 1/r >= ap} / N`` (= r/N for an observed
    positive at rank r); otherwise a bounded depth-first count over the
    positives' ranks (module docstring). Its cost depends on N, P and how
    many placements straddle ``ap``: it is instant in the far tail and for
    P <= 2 at any N, and needs all C(N, P) / N steps at worst. It stops with
    :class:`ExactBudgetExceeded` after ``max_nodes`` search steps (nodes
    visited plus terms of the bounds summed; default 1e9: 2.5e7 node-visits
    per second measured on one core, ~10x more bound terms per second, so
    from ~3 s to ~40 s at the budget).

    Parameters
    ----------
    ap : float
        Observed average precision.
    n, n_pos : int
        Number of instances N and of positives P.
    max_nodes : int
        Search-step budget (default ``EXACT_MAX_NODES`` = 1e9).
    return_count : bool
        Also return the number of placements counted and ``C(N, P)``.

    Returns
    -------
    float, or (float, int, int) when ``return_count``

    Raises
    ------
    ExactBudgetExceeded
        (a ValueError) if the budget is exhausted; use Monte Carlo instead.

    Examples
    --------
    >>> exact_pvalue(1 / 3, 10, 1)  # the positive ranked 3rd of 10
    0.3
    >>> exact_pvalue(1.0, 20, 3) == 1 / 1140  # only the perfect ranking
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    a = _check_ap(ap)
    n, p = _scalar_counts(N, P)
    total = math.comb(n, p)
    if p == n:
        count = total if a <= 1.0 + REL_TOL else 0
    elif p == 1:
        count = one_positive_count(n, a)
    else:
        thr = a * p * (1.0 - REL_TOL)
        cnt, nodes = _tail_count(n, p, thr, int(max_nodes))
        if cnt < 0.0:
            raise ExactBudgetExceeded(
                f"the exact tail count for N={n}, P={p}, ap={a} needs more than "
                f"max_nodes={int(max_nodes):.3g} search steps; use method='montecarlo' "
                "(or raise max_nodes)."
            )
        count = int(cnt) if cnt < 2.0**53 else cnt
    pv = count / total if isinstance(count, int) else float(count / float(total))
    if return_count:
        return pv, count, total
    return pv


# ---------------------------------------------------------------------------
@fill_doc(NULL_DOCS)
class ExactNull(NullDistribution):
    """The exact null: counted placements (:mod:`pranker.null.exact`).

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    max_nodes : int, optional
        Budget of the tail count (default ``EXACT_MAX_NODES``); beyond it
        :class:`pranker.null.exact.ExactBudgetExceeded` is raised.

    Attributes
    ----------
    %(null_attributes)s
    max_nodes : int
        Budget of the tail count.

    See Also
    --------
    exact_pvalue : The tail count itself.
    exact_null_distribution : The whole distribution for small C(N, P).
    TiltNull : Unbiased estimates where counting is too slow.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    The six placements of 2 positives among 4 have AP 5/12, 1/2, 7/12, 3/4,
    5/6 and 1:

    >>> null = ExactNull(4, 2)
    >>> float(null.cdf(0.5)) == 2 / 6, float(null.sf(0.75)) == 3 / 6
    (True, True)
    >>> bool(abs(null.ppf(0.5) - 7 / 12) < 1e-12)  # the first value with cdf >= 1/2
    True

    p-values by the bounded tail count; quantiles from the full distribution
    when C(N, P) is small enough to enumerate, else from the saddlepoint.
    """

    method = "exact"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int, *, max_nodes: int | None = None):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.max_nodes = EXACT_MAX_NODES if max_nodes is None else int(max_nodes)
        self._dist = None

    @property
    def interval_method(self) -> str:  # type: ignore[override]  # a class attribute elsewhere
        return "exact" if self.enumerable else "montecarlo"

    @property
    def enumerable(self) -> bool:
        """Whether C(N, P) is small enough to enumerate the whole distribution."""
        return (
            self.P == 1
            or self.P == self.N
            or placements_at_most(self.N, self.P, EXACT_DISTRIBUTION_LIMIT)
        )

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        edge = self.edge_pvalue(ap)
        if edge is not None:
            return edge
        pv, count, total = exact_pvalue(
            ap, self.N, self.P, max_nodes=self.max_nodes, return_count=True
        )
        if pv > 0.0 or count == 0:
            return PValue.exact(pv)
        return PValue.exact(pv, math.log10(count) - log10_comb(self.N, self.P))

    def _distribution(self):
        if self._dist is None:
            if self.P == 1:
                r = np.arange(self.N, 0, -1, dtype=np.float64)
                self._dist = (1.0 / r, np.ones(self.N), float(self.N))
            elif self.P == self.N:
                self._dist = (np.array([1.0]), np.array([1.0]), 1.0)
            else:
                d = exact_null_distribution(self.N, self.P)
                self._dist = (d.values, d.counts.astype(np.float64), float(d.total))
        return self._dist

    def cdf(self, ap):
        if not self.enumerable:
            return vectorize(lambda a: 1.0 - self._gt(a), ap)
        values, counts, total = self._distribution()
        cum = np.cumsum(counts) / total
        a = np.asarray(ap, dtype=np.float64)
        idx = np.searchsorted(values, a * (1.0 + REL_TOL), side="right")
        return np.where(idx > 0, cum[np.maximum(idx - 1, 0)], 0.0)[()]

    def _gt(self, a: float) -> float:
        return self.pvalue(a * (1.0 + 2.0 * REL_TOL)).pvalue

    def ppf(self, q):
        if not self.enumerable:
            return null_quantiles(self.N, self.P, DEFAULT_SEED, q)
        values, counts, total = self._distribution()
        cum = np.cumsum(counts) / total
        qa = np.asarray(q, dtype=np.float64)
        idx = np.searchsorted(cum, qa * (1.0 - 1e-15), side="left")
        return values[np.minimum(idx, len(values) - 1)][()]
