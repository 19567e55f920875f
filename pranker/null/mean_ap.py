r"""The null distribution of mean AP over queries: its exact CGF, saddlepoint and tilted sampler.

For Q queries, query q with N_q instances of which P_q are relevant, the
mean AP is ``mAP = (1/Q) sum_q AP_q = (1/Q) sum_q S_q / P_q`` with
``S_q = P_q AP_q = sum_k k / r_k``. Under the null every query's ranking is
random and the queries are independent; :class:`MeanAPNull` answers the
questions of every null of the package (:class:`NullDistribution`) for
``mAP``: ``pvalue`` (``P(mAP_null >= m)``), ``sf``, ``cdf``, ``ppf``,
``interval``, ``mean`` and ``var``.

One query
---------
With Q = 1 the null is that of one ranking, and :class:`MeanAPNull` is the
null :func:`pranker.significance_from_ap` uses, built the same way
(``method="auto"``: :func:`pranker.null.choice.plan`; ``"tilt"``: the exact-tilt
estimator; ``"saddlepoint"``: Lugannani–Rice): the same p-value, method and
interval.

The exact CGF of the sum
------------------------
The cumulant generating function of a sum of independent terms is the sum of
theirs. With ``K_q`` the exact CGF of ``S_q`` (the forward recursion of
:mod:`pranker._numba.tilt`, O(N_q P_q) per value),

.. math::

    K(\theta) = \log E\, e^{\theta\, \mathrm{mAP}}
              = \sum_q K_q\big(\theta / (Q P_q)\big),

and its derivatives are ``K^{(j)} = sum_q K^{(j)}_q / (Q P_q)^j``.

One recursion per distinct P. The tilt of query q, ``phi_q = theta / (Q
P_q)``, depends on the query only through P_q, and the recursion's values at
offset ``d = r - k`` do not depend on the upper bound ``N - P`` (it only says
where the last layer is read). So one recursion per distinct P, run to the
largest N_q of those queries, gives ``K_q`` and its derivatives for every N_q
at once (derivation and scaling in :mod:`pranker._numba.mean_ap`). Q = 10^4
queries with P_q in 5..50 cost ~46 recursions per theta whether the N_q are
equal or all different. Queries with P_q = N_q have AP = 1 always.

Two ways to a tail probability (Q >= 2)
---------------------------------------
``"saddlepoint"``
    Lugannani–Rice (1980) at the saddle point ``K'(theta) = mAP``, found by a
    safeguarded Newton search (a handful of evaluations of the summed CGF).
    Deterministic. Its error shrinks as the sum grows more normal; the
    p-value's ``pvalue_error`` is the size of the next term of the expansion
    (Daniels 1987), relative to the p-value, from the third and fourth
    cumulants at the saddle point. It is an estimate, not a bound: measured
    against the estimator below (docs/mean_ap.md) the actual error was up to
    ~60 times larger where the null is far from normal, and within the
    estimator's 1 % wherever ``"auto"`` picks the saddlepoint.
``"tilt"``
    Importance sampling from the exactly tilted product law (Siegmund 1976):
    query q is drawn from its own tilted law ``P_phi_q(subset) ∝ e^{phi_q
    S_q}`` at ``phi_q = theta / (Q P_q)`` (``theta`` near the saddle point),
    exactly and backwards from its own upper bound through the layers shared
    by its P, and

    .. math::

        p = E\left[ \prod_q e^{K_q(\phi_q) - \phi_q S_q}
                    \, 1\{\mathrm{mAP} \ge m\} \right],

    unbiased whatever the tilts; the draws grow from ``FIRST_DRAWS`` (aimed at
    the size the variance measured so far asks for) until the relative
    standard error is below ``rtol``. Its cost is Q times the
    number of draws times the mean P, so it is the choice for few queries.

``method="auto"`` takes ``"tilt"`` for at most :data:`pranker.null.choice.AUTO_TILT_MAX_QUERIES`
queries, and beyond that the saddlepoint where the null mAP's excess kurtosis
``K''''(0) / K''(0)^2`` is at most :data:`pranker.null.choice.AUTO_SADDLE_MAX_KURTOSIS` (else
``"tilt"``): measured, the saddlepoint was within 1 % of the unbiased
estimate there and off by up to 11 % at a kurtosis near 4 (docs/mean_ap.md).
The rule depends on the queries' (N_q, P_q) only, never on the observed mAP.

The central interval (Q >= 2)
-----------------------------
:meth:`MeanAPNull.interval` and :meth:`MeanAPNull.ppf` invert the
Lugannani–Rice tail of the exact CGF, whatever method gives the p-values: the
quantile ``q`` is ``K'(theta)`` at the tilt ``theta`` where the saddlepoint
tail equals ``1 - q`` (one CGF evaluation per step of a bracketed root
search, no draws). It is an approximation with the saddlepoint's accuracy:
close wherever ``"auto"`` picks the saddlepoint, coarser for few queries with
few positives (a skewed, lattice-like null).

References
----------
.. [1] %(ref_lugannani1980)s
.. [2] %(ref_daniels1987)s
.. [3] %(ref_siegmund1976)s
.. [4] %(ref_lopes2014)s
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from .._docs import fill_doc
from .._validation import check_probability, check_query_counts
from .base import NullDistribution, PValue
from .choice import (
    DEFAULT_MAX_DRAWS_PER_QUERY,
    DEFAULT_RTOL,
    DEFAULT_SEED,
    FIRST_DRAWS,
    REL_TOL,
    mean_ap_method,
    next_draws,
)
from .distributions import null_distribution
from .logspace import log_comb, log_comb_array, pow10
from .moments import min_auprc

__all__ = ["MeanAPNull", "MeanAPPValue"]

__doc__ = fill_doc()(__doc__)

MEAN_AP_METHODS = ("auto", "saddlepoint", "tilt")
_LN10 = math.log(10.0)


@dataclass(frozen=True)
class MeanAPPValue(PValue):
    """A :class:`PValue` of mean AP, with the estimated relative error of any method.

    Attributes
    ----------
    pvalue_error : float or None
        How uncertain ``pvalue`` is, as a relative error: 0 when exact,
        ``pvalue_rse`` for an estimator; for the saddlepoint of Q >= 2
        queries, the ratio of the next term of the tail expansion (Daniels
        1987) to the Lugannani–Rice value, an estimate rather than a bound;
        None when not estimated (the saddlepoint of one query).

    Examples
    --------
    >>> pv = MeanAPNull([10, 12], [2, 3]).pvalue(1.0)  # both rankings perfect: 1 / (45 * 220)
    >>> pv.method, round(pv.pvalue * 45 * 220, 12), pv.pvalue_error, pv.n_draws
    ('exact', 1.0, 0.0, None)
    """

    pvalue_error: float | None = None

    @classmethod
    def of(cls, pv: PValue, error: float | None) -> MeanAPPValue:
        """``pv`` with the relative error ``error``."""
        return cls(**{f.name: getattr(pv, f.name) for f in fields(PValue)}, pvalue_error=error)


# --------------------------------------------------------------------------- the shared tables
@dataclass
class _Group:
    """The queries with P positives and N > P: one recursion to their largest N serves all."""

    P: int
    N: np.ndarray  # the distinct N, increasing
    cnt: np.ndarray  # queries per N (float)
    a: float  # the weight 1 / (Q P) of S in the mean AP
    c: float  # centre of the recursion: the null mean of S at the middle N
    log_comb: np.ndarray  # log C(N, P) per N

    @property
    def n_max(self) -> int:
        return int(self.N[-1])


def _keys(n: np.ndarray, n_pos: np.ndarray):
    """The distinct (P, N) of the queries, sorted by P then N, and their counts."""
    keys, counts = np.unique(np.stack([n_pos, n], axis=1), axis=0, return_counts=True)
    return keys, counts


def _group(P: int, Ns: np.ndarray, cnt: np.ndarray, Q: int):
    """The group of P and its share ``(sum of E[AP], sum of Var[AP])`` of the null moments."""
    from .._numba.moments import null_moments_array

    mom = np.empty((2, Ns.size))
    null_moments_array(Ns.astype(np.int64), np.full(Ns.size, P, dtype=np.int64), mom[0], mom[1])
    mom = mom.T
    mid = len(Ns) // 2
    g = _Group(
        P=P,
        N=Ns,
        cnt=cnt,
        a=1.0 / (Q * P),
        c=float(mom[mid, 0] * P),
        log_comb=log_comb_array(Ns, P),
    )
    return g, float(np.sum(cnt * mom[:, 0])), float(np.sum(cnt * mom[:, 1]))


class _SharedTables:
    r"""The exact CGF of mAP for Q >= 2 queries: one recursion per distinct P per theta.

    Tilting mAP by theta tilts query q's ``S_q`` by ``phi_q = theta / (Q P_q)``,
    which depends on the query only through ``P_q``. Every query with the same P
    therefore reads its CGF off one forward recursion run to the largest N of
    those queries (:func:`pranker._numba.mean_ap.shared_cgf_keys`): about as
    many recursions per theta as there are distinct P, whatever the spread of N.
    """

    def __init__(self, n: np.ndarray, n_pos: np.ndarray):
        Q = int(n.size)
        keys, counts = _keys(n, n_pos)
        mean = var = 0.0
        self.point = 0.0  # the mAP share of the queries with P = N (S = P always)
        self.groups: list[_Group] = []
        for P in np.unique(keys[:, 0]):
            same = keys[:, 0] == P
            full = same & (keys[:, 1] == P)
            if np.any(full):
                self.point += float(counts[full].sum()) / Q
            sel = same & (keys[:, 1] > P)
            if not sel.any():
                continue
            g, m, v = _group(int(P), keys[sel, 1], counts[sel].astype(np.float64), Q)
            self.groups.append(g)
            mean += m / Q  # E[S / P] = E[AP]
            var += v / (Q * Q)
        self.mean = mean + self.point
        self.var = var
        # every query perfect (mAP = 1): the product of 1 / C(N_q, P_q)
        self.log_max_prob = -sum(
            float(c) * log_comb(int(N), int(P)) for (P, N), c in zip(keys, counts, strict=True)
        )
        self._flatten()
        self._cgf0: tuple | None = None

    def _flatten(self) -> None:
        """Flat arrays of the groups for the kernel: per group, then per (N, P) key."""
        gs = self.groups
        self.P = np.array([g.P for g in gs], dtype=np.int64)
        self.n_max = np.array([g.n_max for g in gs], dtype=np.int64)
        self.c = np.array([g.c for g in gs], dtype=np.float64)
        self.a = np.array([g.a for g in gs], dtype=np.float64)
        self.start = np.cumsum([0] + [g.N.size for g in gs]).astype(np.int64)
        self.N = np.concatenate([g.N for g in gs] + [np.zeros(0, np.int64)]).astype(np.int64)
        self.cnt = np.concatenate([g.cnt for g in gs] + [np.zeros(0)])
        self.log_comb = np.concatenate([g.log_comb for g in gs] + [np.zeros(0)])
        self.sizes = np.diff(self.start)
        self.key_a = np.repeat(self.a, self.sizes)

    def key_cgf(self, theta: float, order: int = 2, centre=None):
        """Per (N, P) key: ``K_q(phi_q)`` and the centred moments ``E[(S - c)^j]``.

        ``centre``: one ``c`` per group (default: the null mean of S at the
        group's middle N); the moments are about it, per key (``key_c``).
        """
        from .._numba.mean_ap import shared_cgf_keys

        c = self.c if centre is None else np.asarray(centre, dtype=np.float64)
        key_c = np.repeat(c, self.sizes)
        log_z = np.empty(self.N.size)
        mom = np.empty((order + 1, self.N.size))
        phi = theta * self.a
        shared_cgf_keys(self.P, self.n_max, c, phi, self.start, self.N, order, log_z, mom)
        return log_z - self.log_comb + theta * self.key_a * key_c, mom, key_c

    def cgf(self, theta: float, order: int = 2, recentre: bool = False) -> tuple:
        """``(K, K1, K2)`` of mAP at ``theta``, and with ``order=4`` also ``K3, K4``.

        ``recentre``: a second pass with each group centred at its mean tilted
        S, so that the higher cumulants (sums of raw moments) keep their digits
        far in the tail, where the tilted mean is far from the centre.
        """
        kq, mu, key_c = self.key_cgf(theta, order)
        if recentre and np.any(mu[1] ** 2 > np.maximum(mu[2] - mu[1] ** 2, 0.0)):
            idx = np.repeat(np.arange(self.sizes.size), self.sizes)
            shift = np.bincount(idx, weights=self.cnt * mu[1]) / np.bincount(idx, weights=self.cnt)
            kq, mu, key_c = self.key_cgf(theta, order, self.c + shift)
        return _cumulants(theta, self.point, self.cnt, self.key_a, kq, mu, key_c, order)

    def cgf0(self) -> tuple:
        """``(K, K1, K2, K3, K4)`` at theta = 0 (cached)."""
        if self._cgf0 is None:
            self._cgf0 = self.cgf(0.0, order=4)
        return self._cgf0

    def first_guess(self, m: float) -> float:
        """The root of the second-order expansion ``K'(theta) ~ mean + K2 theta + K3 theta^2 / 2``
        (the normal approximation's tilt where that has no root)."""
        _, _, k2, k3, _ = self.cgf0()
        delta = m - self.mean
        disc = k2 * k2 + 2.0 * k3 * delta
        if not disc > 0.0:
            return delta / k2
        return 2.0 * delta / (k2 + math.sqrt(disc))  # the stable form of the root

    def saddle(self, m: float, tol: float = 1e-6, max_iter: int = 200):
        """``(theta, K, K'')`` with ``K'(theta) = m``: Newton, safeguarded by a bracket."""
        sd = math.sqrt(self.var)
        theta = self.first_guess(m)
        lo, hi = (0.0, math.inf) if m > self.mean else (-math.inf, 0.0)
        k = k2 = math.nan
        for _ in range(max_iter):
            k, k1, k2 = self.cgf(theta)
            g = k1 - m
            if abs(g) <= tol * sd:
                break
            if g < 0.0:
                lo = theta
            else:
                hi = theta
            new = _safeguarded_step(theta, g, k2, lo, hi, sd)
            if math.isfinite(lo) and math.isfinite(hi) and hi - lo <= 1e-14 * max(1.0, abs(hi)):
                break
            theta = new
        return theta, k, k2


def _cumulants(theta, point, cnt, a, kq, mu, key_c, order) -> tuple:
    """The cumulants of mAP from each key's CGF ``kq`` and centred tilted moments ``mu``."""
    m1 = mu[1]
    out = [
        theta * point + float(cnt @ kq),
        point + float(cnt @ (a * (key_c + m1))),
        float(cnt @ (a * a * np.maximum(mu[2] - m1 * m1, 0.0))),
    ]
    if order >= 4:
        k3 = mu[3] - 3.0 * mu[2] * m1 + 2.0 * m1**3
        k4 = mu[4] - 4.0 * mu[3] * m1 - 3.0 * mu[2] ** 2 + 12.0 * mu[2] * m1**2 - 6.0 * m1**4
        out += [float(cnt @ (a**3 * k3)), float(cnt @ (a**4 * k4))]
    return tuple(out)


def _safeguarded_step(theta, g, k2, lo, hi, sd) -> float:
    """The Newton step from ``theta``, or bisection / expansion when it leaves ``(lo, hi)``."""
    new = theta - g / k2 if k2 > 0.0 else math.nan
    if lo < new < hi and math.isfinite(new):
        return new
    if math.isfinite(lo) and math.isfinite(hi):
        return 0.5 * (lo + hi)
    if math.isfinite(lo):
        return 2.0 * theta if theta > 0 else theta + 1.0 / sd
    return 2.0 * theta if theta < 0 else theta - 1.0 / sd


# --------------------------------------------------------------------------- the saddlepoint
def _signed_root(theta: float, m: float, k: float) -> float:
    """``w``: the signed root of the deviance ``2 (theta m - K(theta))``."""
    return math.copysign(math.sqrt(max(2.0 * (theta * m - k), 0.0)), theta)


def _saddlepoint_pvalue(t: _SharedTables, m: float) -> MeanAPPValue:
    """Lugannani–Rice at ``m``, with the relative size of the next term as ``pvalue_error``."""
    from scipy.special import ndtr

    from .saddlepoint import log_sf_lugannani_rice

    z = (m - t.mean) / math.sqrt(t.var)
    if abs(z) < 1e-4:
        lp, err = math.log(ndtr(-z)), math.nan
    else:
        theta, k, k2 = t.saddle(m)
        lp = log_sf_lugannani_rice(z, _signed_root(theta, m, k), theta * math.sqrt(k2))
        err = _saddlepoint_error(t, m, theta)
    lg = min(lp / _LN10, 0.0)
    pv = PValue.approximate(pow10(lg), "saddlepoint", lg)
    return MeanAPPValue.of(pv, err if math.isfinite(err) else None)


def _saddlepoint_error(t: _SharedTables, m: float, theta: float) -> float:
    """Relative size of the next term of the tail expansion at the saddle point.

    Daniels (1987) gives the term of order ``Q^{-3/2}`` after Lugannani–Rice:
    ``phi(w) [ (lambda_4 / 8 - 5 lambda_3^2 / 24) / u - lambda_3 / (2 u^2) -
    1 / u^3 + 1 / w^3 ]`` with the standardised cumulants ``lambda_j =
    K^{(j)} / K''^{j/2}`` at the saddle point; its ratio to the
    Lugannani–Rice value is the error estimate reported (NaN where the
    expansion does not apply).
    """
    from .saddlepoint import log_sf_lugannani_rice

    k, _, k2, k3, k4 = t.cgf(theta, order=4, recentre=True)
    if not (k2 > 0.0 and theta != 0.0):
        return math.nan
    w = _signed_root(theta, m, k)
    u = theta * math.sqrt(k2)
    if abs(w) < 1e-4 or u == 0.0:
        return math.nan
    l3 = k3 / k2**1.5
    l4 = k4 / k2**2
    term = (l4 / 8.0 - 5.0 * l3 * l3 / 24.0) / u - l3 / (2.0 * u * u) - 1.0 / u**3 + 1.0 / w**3
    log_pdf = -0.5 * w * w - 0.5 * math.log(2.0 * math.pi)
    z = (m - t.mean) / math.sqrt(t.var)
    return abs(term) * math.exp(log_pdf - log_sf_lugannani_rice(z, w, u))


def _log_sf_at(t: _SharedTables, theta: float):
    """``(K'(theta), log sf_LR(K'(theta)))``: the saddlepoint tail where ``theta`` is the
    saddle point, from one CGF evaluation (no search)."""
    from .saddlepoint import log_sf_lugannani_rice

    k, k1, k2 = t.cgf(theta)
    z = (k1 - t.mean) / math.sqrt(t.var)
    return k1, log_sf_lugannani_rice(z, _signed_root(theta, k1, k), theta * math.sqrt(k2))


def _saddlepoint_quantile(t: _SharedTables, q: float) -> float:
    """The ``q``-quantile of mAP: ``K'(theta)`` where the saddlepoint tail is ``1 - q``.

    The tail decreases in theta; the root is bracketed from the normal
    approximation's tilt outwards, then found by Brent's method to a tilt
    that moves the quantile by less than 1e-7 null standard deviations.
    """
    from scipy.optimize import brentq
    from scipy.special import ndtri

    sd = math.sqrt(t.var)
    target = math.log1p(-q)

    seen: dict = {}

    def excess(theta):
        if theta not in seen:  # brentq evaluates the bracket's ends again
            seen[theta] = _log_sf_at(t, theta)[1] - target
        return seen[theta]

    step = abs(float(ndtri(q))) / sd or 1e-6 / sd
    x0, g0 = 0.0, excess(0.0)
    if g0 == 0.0:
        return t.mean  # the median of the normal limit at theta = 0
    direction = 1.0 if g0 > 0.0 else -1.0  # g > 0: the tail is too heavy, tilt further up
    x1 = direction * step
    g1 = excess(x1)
    for _ in range(60):
        if (g0 > 0.0) != (g1 > 0.0):
            break
        x0, g0 = x1, g1
        step *= 2.0
        x1 = x0 + direction * step
        g1 = excess(x1)
    if g1 == 0.0:
        return _log_sf_at(t, x1)[0]
    root = brentq(excess, min(x0, x1), max(x0, x1), xtol=1e-7 / sd, rtol=1e-12)
    return _log_sf_at(t, root)[0]


# --------------------------------------------------------------------------- the tilted sampler
def _weighted_hits(lw: np.ndarray, hit: np.ndarray):
    """Importance-sampling estimate of a tail from log weights ``lw`` and hit flags ``hit``.

    Returns ``(log_p, rse)``: the log of the mean of ``e^{lw}`` over all
    draws with the misses counted as 0, and its relative standard error
    ``sd / (mean sqrt(n))``; ``(-inf, inf)`` when nothing hits. The weights
    are scaled by their largest hit so that ``exp`` cannot overflow.
    """
    if not hit.any():
        return -math.inf, math.inf
    n = lw.shape[0]
    L = float(lw[hit].max())
    w = np.zeros(n)
    w[hit] = np.exp(lw[hit] - L)
    mu = float(w.mean())
    rse = float(w.std() / (mu * math.sqrt(n)))
    return L + math.log(mu), rse


def _estimate(log_p: float, rse: float, z: float, n: int, seed: int) -> MeanAPPValue:
    """The tilted estimate as a p-value, with the normal interval ``p (1 -+ z rse)`` in log10."""
    if not math.isfinite(log_p):
        lg, lo, hi = -math.inf, -math.inf, -math.inf
    else:
        lg = min(log_p / _LN10, 0.0)
        lo_f, hi_f = 1.0 - z * rse, 1.0 + z * rse
        lo = lg + math.log10(lo_f) if lo_f > 0.0 else -math.inf
        hi = min(lg + math.log10(hi_f), 0.0)
    pv = PValue(pow10(lg), lg, (pow10(lo), pow10(hi)), (lo, hi), rse, "tilt", n, seed)
    return MeanAPPValue.of(pv, rse)


@dataclass
class _Stream:
    """One (N, P) key of the tilted sampler: its draws and their weight."""

    layers: object  # the tilted recursion's layers of the key's group, or None (no tilt)
    N: int
    P: int
    count: int  # queries with this (N, P)
    kq: float  # K_q(phi) of one such query
    phi: float
    a: float
    key: np.uint64  # the key of its random stream


def _streams(t: _SharedTables, theta: float, seed: int) -> list[_Stream]:
    """The sampler's plan at ``theta``: one tilted recursion per group, one stream per key."""
    from .._numba.tilt import log_prefix_many, tilt_forward

    plan = []
    for g in t.groups:
        phi = theta * g.a
        if phi > 0.0:
            _, _, _, layers = tilt_forward(g.n_max, g.P, phi, g.c, False, True)
            kq = log_prefix_many(layers, g.P, g.N - g.P) - g.log_comb + phi * g.c
        else:
            layers, kq = None, np.zeros(g.N.size)
        for N, c, kk in zip(g.N, g.cnt, kq, strict=True):
            seq = np.random.SeedSequence([seed, int(N), g.P, 0x6D4150])
            key = seq.generate_state(1, np.uint64)[0]
            plan.append(_Stream(layers, int(N), g.P, int(c), float(kk), phi, g.a, key))
    return plan


def _draw_round(plan: list[_Stream], have: int, k: int, point: float):
    """Replicates ``have .. have + k - 1``: their log weights and mAP values.

    Replicate i uses draws ``i c .. i c + c - 1`` of its key's stream (c
    queries share the key), so a larger budget extends the same draws.
    """
    from .._numba.sampling import null_ap_draws
    from .._numba.tilt import tilt_draws

    lw = np.zeros(k)
    tot = np.full(k, point)
    for s in plan:
        S = np.empty(k * s.count)
        if s.layers is None:
            null_ap_draws(s.key, have * s.count, k * s.count, s.N, s.P, S)
            S *= s.P
        else:
            tilt_draws(s.layers, s.N, s.P, s.key, have * s.count, k * s.count, S)
        Ssum = S.reshape(k, s.count).sum(axis=1)
        lw += s.count * s.kq - s.phi * Ssum
        tot += s.a * Ssum
    return lw, tot


def _tilt_pvalue(t, m, *, seed, rtol, max_draws, conf_level) -> MeanAPPValue:
    """Importance sampling of the product of tilted laws; draws grow until ``rse <= rtol``."""
    from scipy.special import ndtri

    theta = t.saddle(m, tol=1e-3)[0] if m > t.mean else 0.0  # else plain Monte Carlo
    plan = _streams(t, theta, seed)
    z = float(ndtri(0.5 + conf_level / 2.0))
    thr = m * (1.0 - REL_TOL)
    lw, tot = np.zeros(0), np.zeros(0)
    have, n = 0, FIRST_DRAWS
    while True:
        lw_new, tot_new = _draw_round(plan, have, n - have, t.point)
        lw = np.concatenate([lw, lw_new])
        tot = np.concatenate([tot, tot_new])
        have = n
        log_p, rse = _weighted_hits(lw, tot >= thr)
        if rse <= rtol or n >= max_draws:
            break
        n = next_draws(n, rse, rtol, max_draws)
    return _estimate(log_p, rse, z, n, seed)


# --------------------------------------------------------------------------- the null
def _check_queries(n, n_pos):
    return check_query_counts(n, n_pos, "MeanAPNull")


def _single_null(N, P, method, seed, rtol, max_draws) -> NullDistribution:
    """The null of one ranking, built as :func:`pranker.significance_from_ap` builds it."""
    return null_distribution(
        N, P, method, seed=seed, rtol=rtol, max_draws=max_draws, progress=False
    )


@fill_doc()
class MeanAPNull(NullDistribution):
    """The null distribution of the mean AP of Q queries whose rankings are random.

    Parameters
    ----------
    n, n_pos : array_like of int
        Each query's number of items N_q and of positives P_q
        (``1 <= P_q <= N_q``).
    seed : int, optional
        Seed of the ``"tilt"`` draws (default fixed, so that the same call
        gives the same number).
    rtol : float
        Target relative standard error of a ``"tilt"`` p-value (default 0.02).
    max_draws : int, optional
        Most draws of a ``"tilt"`` p-value: per query for Q >= 2 (default
        :data:`DEFAULT_MAX_DRAWS_PER_QUERY`), in total for one query (the
        default of :class:`TiltNull`).
    method : {"auto", "saddlepoint", "tilt"}
        How p-values are computed (module documentation). For one query,
        ``"auto"`` is the plan of :func:`pranker.null.choice.plan` for one
        query, :func:`pranker.null.choice.mean_ap_method` for more.

    Attributes
    ----------
    n, n_pos : ndarray of int
        The queries' N and P.
    n_queries : int
    method : str
        The method its p-values use (``"auto"`` resolved); a p-value at an
        end of the support is ``"exact"`` whatever the method.
    interval_method : str
        How ``interval`` and ``ppf`` are computed: ``"saddlepoint"`` for
        Q >= 2 (the inverted Lugannani–Rice tail), that of the single null
        for Q = 1.
    mean, var : float
        The exact mean and variance of the null mean AP.
    min_auprc : float
        The smallest mean AP (every query's positives ranked last).
    seed, rtol, max_draws
        As given (defaults filled in).

    See Also
    --------
    pranker.map_significance : the test of a mean AP that uses it.
    pranker.null.distributions.NullDistribution : the interface.

    References
    ----------
    .. [1] %(ref_lugannani1980)s
    .. [2] %(ref_daniels1987)s
    .. [3] %(ref_siegmund1976)s

    Examples
    --------
    Two queries with one positive among 4 and 5 items: mAP = 1 needs both
    positives first, probability 1/20.

    >>> null = MeanAPNull([4, 5], [1, 1])
    >>> pv = null.pvalue(1.0)
    >>> pv.method, round(pv.pvalue, 12)
    ('exact', 0.05)
    >>> big = MeanAPNull([1000] * 40, [10] * 40)
    >>> big.method, big.pvalue(0.3).log10_pvalue < -100
    ('saddlepoint', True)
    >>> lo, hi = big.interval(0.95)
    >>> bool(lo < big.mean < hi)
    True
    """

    def __init__(
        self,
        n,
        n_pos,
        *,
        seed: int | None = None,
        rtol: float = DEFAULT_RTOL,
        max_draws: int | None = None,
        method: str = "auto",
    ):
        self.n, self.n_pos = _check_queries(n, n_pos)
        if method not in MEAN_AP_METHODS:
            raise ValueError(f"method must be one of {MEAN_AP_METHODS}; got {method!r}.")
        rtol = check_probability(rtol, "rtol", type(self).__name__) or DEFAULT_RTOL
        self.n_queries = int(self.n.size)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.rtol = rtol
        self._intervals: dict = {}
        if self.n_queries == 1:
            self._single: NullDistribution | None = _single_null(
                int(self.n[0]), int(self.n_pos[0]), method, self.seed, self.rtol, max_draws
            )
            self._tables: _SharedTables | None = None
            self.max_draws = getattr(self._single, "max_draws", max_draws)
            self.method = self._single.method
            self.interval_method = self._single.interval_method
        else:
            self._single = None
            self._tables = _SharedTables(self.n, self.n_pos)
            self.max_draws = DEFAULT_MAX_DRAWS_PER_QUERY if max_draws is None else int(max_draws)
            self.method = self._resolve(method)
            self.interval_method = "saddlepoint"
        if self.max_draws is not None and self.max_draws < 1:
            raise ValueError(f"max_draws must be >= 1; got {max_draws!r}.")

    def _resolve(self, method: str) -> str:
        """The rule ``"auto"`` for Q >= 2 queries (module documentation)."""
        t = self._tables
        assert t is not None
        if t.var <= 0.0:
            return "exact"  # every query has P = N: mAP = 1 always
        if method != "auto":
            return method
        return mean_ap_method(self.n_queries, t.cgf0)

    def __repr__(self) -> str:
        return f"MeanAPNull(n_queries={self.n_queries}, method={self.method!r})"

    @property
    def mean(self) -> float:
        return self._single.mean if self._single is not None else self._shared().mean

    @property
    def var(self) -> float:
        return self._single.var if self._single is not None else self._shared().var

    @property
    def min_auprc(self) -> float:
        """The smallest mean AP: every query's positives ranked last."""
        return float(np.mean(min_auprc(self.n, self.n_pos)))

    def _shared(self) -> _SharedTables:
        if self._tables is None:  # one query: only cgf() asks for them
            self._tables = _SharedTables(self.n, self.n_pos)
        return self._tables

    def cgf(self, theta: float, order: int = 2) -> tuple:
        """The exact CGF of the null mean AP at ``theta`` and its derivatives.

        Returns ``(K, K', K'')``, and with ``order=4`` also the third and
        fourth derivatives (computed with each group recentred at its tilted
        mean, so that they keep their digits far in the tail). At
        ``theta = 0`` they are the null's cumulants: ``K'(0)`` is the mean,
        ``K''(0)`` the variance, and the fourth over the square of the
        second is the excess kurtosis that the rule ``"auto"`` reads.
        """
        if order not in (2, 4):
            raise ValueError(f"order must be 2 or 4; got {order!r}.")
        return self._shared().cgf(float(theta), order=order, recentre=order == 4)

    def edge_pvalue(self, ap: float):
        """The exact p-value at the ends of the support, else None.

        At or below the smallest mean AP (or a null without variance): 1.
        At 1 (every query perfect): the product of ``1 / C(N_q, P_q)``.
        """
        t = self._shared()
        if t.var <= 0.0 or ap <= self.min_auprc + REL_TOL:
            return MeanAPPValue.of(PValue.exact(1.0), 0.0)
        if ap >= 1.0 - REL_TOL:
            lg = t.log_max_prob / _LN10
            return MeanAPPValue.of(PValue.exact(pow10(lg), lg), 0.0)
        return None

    def pvalue(self, ap: float, conf_level: float = 0.95) -> MeanAPPValue:
        """``P(mAP_null >= ap)`` (values within 1e-12 relative counted as equal).

        Note: ``pvalue`` keeps subnormal floats (down to about 1e-323) and is
        0 only below; ``log10_pvalue`` stays finite far beyond.
        """
        ap = float(ap)
        if self._single is not None:
            pv = self._single.pvalue(ap, conf_level=conf_level)
            return MeanAPPValue.of(pv, pv.pvalue_rse)
        edge = self.edge_pvalue(ap)
        if edge is not None:
            return edge
        if self.method == "saddlepoint":
            return _saddlepoint_pvalue(self._shared(), ap)
        return _tilt_pvalue(
            self._shared(),
            ap,
            seed=self.seed,
            rtol=self.rtol,
            max_draws=self.max_draws,
            conf_level=conf_level,
        )

    def cdf(self, ap):
        """``P(mAP_null <= ap)``: one minus the p-value just above ``ap``."""
        if self._single is not None:
            return self._single.cdf(ap)
        arr = np.asarray(ap, dtype=np.float64)
        out = np.array([1.0 - self.pvalue(a * (1.0 + 2.0 * REL_TOL)).pvalue for a in arr.ravel()])
        return out.reshape(arr.shape)[()]

    def ppf(self, q):
        """Quantiles of the null mean AP (Q >= 2: the inverted saddlepoint tail)."""
        if self._single is not None:
            return self._single.ppf(q)
        arr = np.asarray(q, dtype=np.float64)
        out = np.array([self._quantile(float(v)) for v in arr.ravel()])
        return out.reshape(arr.shape)[()]

    def _quantile(self, q: float) -> float:
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile levels must be in [0, 1]; got {q}.")
        t = self._shared()
        if t.var <= 0.0:
            return t.mean
        if q == 0.0:
            return self.min_auprc
        if q == 1.0:
            return 1.0
        return min(max(_saddlepoint_quantile(t, q), self.min_auprc), 1.0)

    def interval(self, conf_level: float = 0.95) -> tuple:
        """Central interval holding ``conf_level`` of the null mean AP (computed once per level)."""
        if self.var <= 0.0:
            return (self.mean, self.mean)
        if conf_level not in self._intervals:
            if self._single is not None:
                self._intervals[conf_level] = self._single.interval(conf_level)
            else:
                lo = self._quantile((1.0 - conf_level) / 2.0)
                hi = self._quantile((1.0 + conf_level) / 2.0)
                self._intervals[conf_level] = (float(lo), float(hi))
        return self._intervals[conf_level]
