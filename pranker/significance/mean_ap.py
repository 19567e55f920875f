r"""Mean average precision over queries, and its p-value against random rankings.

For Q queries, query q with N_q instances of which P_q are relevant, the
mean AP is ``mAP = (1/Q) sum_q AP_q = (1/Q) sum_q S_q / P_q`` with
``S_q = P_q AP_q = sum_k k / r_k``. Under the null that every query's ranking
is random (and the queries independent), :func:`map_significance` gives
``p = P(mAP_null >= observed)``.

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
at once as prefix sums of its last layer (derivation and scaling in
:mod:`pranker._numba.mean_ap`). Q = 10^4 queries with P_q in 5..50 cost ~46
recursions per theta whether the N_q are equal or all different. A single
query (Q = 1) uses the engine of :func:`pranker.significance_from_ap` itself.

Two ways to a tail probability use it:

``"saddlepoint"``
    Lugannani–Rice (1980) at the saddle point ``K'(theta) = mAP``, found by a
    safeguarded Newton search (a handful of evaluations of the summed CGF).
    It is deterministic. Its error shrinks as the sum grows more normal; the
    result's ``pvalue_error`` is the size of the next term of the expansion
    (Daniels 1987), relative to the p-value, computed from the third and
    fourth cumulants at the saddle point. It is an estimate, not a bound:
    measured against the estimator below (docs/mean_ap.md) the actual error
    was up to ~60 times larger where the null is far from normal, and within
    the estimator's 1 % wherever ``"auto"`` picks the saddlepoint.
``"tilt"``
    Importance sampling from the exactly tilted product law: query q is
    drawn from its own tilted law ``P_phi_q(subset) ∝ e^{phi_q S_q}`` at
    ``phi_q = theta / (Q P_q)`` (``theta`` near the saddle point), exactly and
    backwards from its own upper bound through the layers shared by its P, and

    .. math::

        p = E\left[ \prod_q e^{K_q(\phi_q) - \phi_q S_q}
                    \, 1\{\mathrm{mAP} \ge m\} \right],

    unbiased whatever the tilts; the draws double from 4,096 until the
    relative standard error is below ``rtol``. Its cost is Q times the
    number of draws times the mean P, so it is the choice for few queries.

``method="auto"`` takes ``"tilt"`` for at most :data:`AUTO_TILT_MAX_QUERIES`
queries, and beyond that the saddlepoint where the null mAP's excess kurtosis
``K''''(0) / K''(0)^2`` is at most :data:`AUTO_SADDLE_MAX_KURTOSIS` (else
``"tilt"``): measured, the saddlepoint was within 1 % of the unbiased
estimate there and off by up to 11 % at a kurtosis near 4 (docs/mean_ap.md).
For one query both coincide with :func:`pranker.significance_from_ap` with
the same method.

Degenerate queries are exact: P_q = N_q has AP = 1 always.

Per-query p-values and groups
-----------------------------
On request (``query_method``), each query's own p-value is that of
:func:`pranker.pranker_many` (the same numbers as
:func:`pranker.significance_from_ap`), with Benjamini–Hochberg adjusted values
over the queries. They are not computed by default: a tail probability per
query at 2 % relative error takes thousands of tilted draws per query
(queries sharing (N_q, P_q) and a cell of the grid of tilts share them),
hundreds to thousands of times the cost of sorting the scores at Q = 10^4, while the mAP
p-value costs a few sorts. With ``groups``, each group of queries gets its own
mAP and p-value (and BH-adjusted values across the groups).

References
----------
.. [1] R. Lugannani and S. Rice, "Saddle point approximation for the
   distribution of the sum of independent random variables", Adv. Appl.
   Prob. 12 (1980) 475–490.
.. [2] H. E. Daniels, "Tail probability approximations", International
   Statistical Review 55 (1987) 37–48.
.. [3] D. Siegmund, "Importance sampling in the Monte Carlo study of
   sequential tests", Ann. Statist. 4 (1976) 673–684.
.. [4] M. Lopes and G. Bontempi, "On the null distribution of the precision
   and recall curve", ECML PKDD 2014.
.. [5] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
   JRSS B 57 (1995) 289–300.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_conf_level

__all__ = [
    "map_significance",
    "map_significance_from_ap",
    "MapResult",
    "MapGroup",
    "MAP_METHODS",
    "AUTO_TILT_MAX_QUERIES",
    "AUTO_SADDLE_MAX_KURTOSIS",
]

MAP_METHODS = ("auto", "saddlepoint", "tilt")
AUTO_TILT_MAX_QUERIES = 20
# "auto" takes the saddlepoint only where the null mAP's excess kurtosis K4(0) / K2(0)^2 is at
# most this: measured against the tilted estimator (docs/mean_ap.md), the saddlepoint was then
# within the estimator's 1 % error; at 3.9-4.1 it was off by up to 11 %, at 10 by 35 %.
AUTO_SADDLE_MAX_KURTOSIS = 2.0
DEFAULT_SEED = 20140915
FIRST_DRAWS = 4096
_REL_TOL = 1e-12
_LN10 = math.log(10.0)


# --------------------------------------------------------------------------- per-(N, P) nulls
def _weighted_hits(lw, hit):
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


def _log10_estimate(log_p, rse, z, n):
    """``(log10 p, rse, (lo, hi), n)`` with the normal interval ``p (1 -+ z rse)`` in log10, capped at 0."""
    if not math.isfinite(log_p):
        return -math.inf, math.inf, (-math.inf, -math.inf), n
    lg = min(log_p / _LN10, 0.0)
    lo_f, hi_f = 1.0 - z * rse, 1.0 + z * rse
    lo = lg + math.log10(lo_f) if lo_f > 0.0 else -math.inf
    hi = min(lg + math.log10(hi_f), 0.0)
    return lg, rse, (lo, hi), n


class _PointNull:
    """P = N: S = P always."""

    def __init__(self, N, P):
        self.N, self.P = N, P
        self.mean_s, self.sd_s = float(P), 0.0

    def cgf(self, phi):
        return phi * self.P, float(self.P), 0.0

    def draws_at(self, phi, n, stream):
        return 0.0 + phi * self.P, np.full(n, float(self.P)), 0.0 * phi


class _OneNull:
    """P = 1: S = 1 / r with r uniform on 1..N (exact, O(N))."""

    def __init__(self, N, seed):
        self.N, self.P = N, 1
        self.v = 1.0 / np.arange(1, N + 1, dtype=np.float64)
        self.mean_s = float(self.v.mean())
        self.sd_s = float(self.v.std())
        self.seed = seed

    def _logw(self, phi):
        lw = phi * self.v
        mx = lw.max()
        w = np.exp(lw - mx)
        return w, mx + math.log(w.sum()) - math.log(self.N)

    def cgf(self, phi):
        w, k = self._logw(phi)
        w = w / w.sum()
        m1 = float(w @ self.v)
        return k, m1, max(float(w @ (self.v - m1) ** 2), 0.0)

    def draws_at(self, phi, n, stream):
        w, k = self._logw(phi)
        rng = np.random.default_rng([self.seed, self.N, 1, stream])
        cdf = np.cumsum(w / w.sum())
        idx = np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), self.N - 1)
        return k, self.v[idx], phi


def _make_null(N, P, seed):
    if P == N:
        return _PointNull(N, P)
    if P == 1:
        return _OneNull(N, seed)
    from ..null.tilt import TiltEngine

    return TiltEngine(N, P, seed)


# --------------------------------------------------------------------------- the summed null
class _SumNull:
    """The null of (1/Q) sum_q S_q / P_q for a multiset of (N_q, P_q)."""

    def __init__(self, n, n_pos, seed):
        n = np.asarray(n, dtype=np.int64)
        n_pos = np.asarray(n_pos, dtype=np.int64)
        self.Q = int(n.size)
        keys, counts = np.unique(np.stack([n, n_pos], axis=1), axis=0, return_counts=True)
        self.keys = [(int(a), int(b)) for a, b in keys]
        self.counts = counts.astype(np.float64)
        self.scale = np.array([1.0 / (self.Q * p) for _, p in self.keys])
        self.nulls = [_make_null(N, P, seed) for N, P in self.keys]
        self.mean = float(
            sum(
                c * a * e.mean_s
                for c, a, e in zip(self.counts, self.scale, self.nulls, strict=True)
            )
        )
        self.var = float(
            sum(
                c * (a * e.sd_s) ** 2
                for c, a, e in zip(self.counts, self.scale, self.nulls, strict=True)
            )
        )
        self.max = float(
            sum(c * a * P for c, a, (_, P) in zip(self.counts, self.scale, self.keys, strict=True))
        )
        self.log_max_prob = -sum(
            c * _log_comb(N, P) for c, (N, P) in zip(self.counts, self.keys, strict=True)
        )
        self.cells = sum(
            c * P * (N - P + 1) for c, (N, P) in zip(self.counts, self.keys, strict=True)
        )

    def cgf(self, theta):
        k = k1 = k2 = 0.0
        for c, a, e in zip(self.counts, self.scale, self.nulls, strict=True):
            kk, kk1, kk2 = e.cgf(theta * a)
            k += c * kk
            k1 += c * a * kk1
            k2 += c * a * a * kk2
        return k, k1, k2

    def saddle(self, m, tol=1e-6, max_iter=200):
        """theta with K'(theta) = m: Newton, safeguarded by a bracket (K' increases)."""
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
            new = theta - g / k2 if k2 > 0.0 else math.nan
            if not (lo < new < hi) or not math.isfinite(new):
                if math.isfinite(lo) and math.isfinite(hi):
                    new = 0.5 * (lo + hi)
                elif math.isfinite(lo):
                    new = 2.0 * theta if theta > 0 else theta + 1.0 / sd
                else:
                    new = 2.0 * theta if theta < 0 else theta - 1.0 / sd
            if math.isfinite(lo) and math.isfinite(hi) and hi - lo <= 1e-14 * max(1.0, abs(hi)):
                break
            theta = new
        return theta, k, k2

    def first_guess(self, m):
        """Start of the saddle-point search: the normal approximation's tilt."""
        return (m - self.mean) / self.var

    def log_sf_saddlepoint(self, m):
        """Natural log of the Lugannani–Rice upper tail at ``m``."""
        from scipy.special import ndtr

        from ..null.tilt import log_sf_lugannani_rice

        sd = math.sqrt(self.var)
        z = (m - self.mean) / sd
        if abs(z) < 1e-4:
            return math.log(ndtr(-z))
        theta, k, k2 = self.saddle(m)
        w = math.copysign(math.sqrt(max(2.0 * (theta * m - k), 0.0)), theta)
        return log_sf_lugannani_rice(z, w, theta * math.sqrt(k2))

    def tilt(self, m, rtol, max_draws, conf_level):
        """Importance sampling of the product of tilted laws: (log10 p, rse, interval, draws)."""
        from scipy.special import ndtri

        from ..null.tilt import TiltEngine

        if m > self.mean:
            theta = self.saddle(m, tol=1e-3)[0]
        else:
            theta = 0.0  # p >= ~1/2: plain Monte Carlo
        plan = []  # per key: (null, count, grid index or tilt, phi)
        for c, a, e, key in zip(self.counts, self.scale, self.nulls, self.keys, strict=True):
            phi_q = theta * a
            if isinstance(e, TiltEngine):
                if (
                    self.Q == 1
                ):  # as the engine itself chooses: the same numbers as significance_from_ap
                    j = e.grid_index(m / a, 1) if theta > 0 else 0
                else:
                    psi = phi_q * e.sd_s
                    j = 0 if psi < 0.25 else int(math.floor(4.0 * math.log2(psi / 0.25))) + 1
                plan.append((e, int(c), j, e.grid_phi(j), a, key))
            else:
                plan.append((e, int(c), None, phi_q, a, key))
        n = FIRST_DRAWS
        z = float(ndtri(0.5 + conf_level / 2.0))
        thr = m * (1.0 - _REL_TOL)
        while True:
            lw = np.zeros(n)
            tot = np.zeros(n)
            for e, c, j, phi, a, _ in plan:
                if j is not None:
                    k0, S = e.draws(j, c * n)
                else:
                    k0, S, _ = e.draws_at(phi, c * n, 0)
                Ssum = S.reshape(c, n).sum(axis=0)
                lw += c * k0 - phi * Ssum
                tot += a * Ssum
            log_p, rse = _weighted_hits(lw, tot >= thr)
            if rse <= rtol or n >= max_draws:
                break
            n = min(2 * n, max_draws)
        for e, *_ in plan:
            if isinstance(e, TiltEngine):
                e.release()
        return _log10_estimate(log_p, rse, z, n)


class _SharedSum(_SumNull):
    r"""The null of mAP for Q >= 2 queries: one recursion per distinct P per theta.

    Tilting mAP by theta tilts query q's ``S_q`` by ``phi_q = theta / (Q P_q)``,
    which depends on the query only through ``P_q``. Every query with the same P
    therefore reads its CGF off one forward recursion run to the largest N of
    those queries (:func:`pranker._numba.mean_ap.shared_last_layer`): about as
    many recursions per theta as there are distinct P, whatever the spread of
    N. The tilted sampler draws each query backwards from its own upper bound
    ``N_q - P`` through the same shared layers.
    """

    def __init__(self, n, n_pos, seed):
        from scipy.special import gammaln

        from .._numba.moments import null_moments_array

        n = np.asarray(n, dtype=np.int64)
        n_pos = np.asarray(n_pos, dtype=np.int64)
        self.Q = Q = int(n.size)
        self.seed = seed
        keys, counts = np.unique(np.stack([n_pos, n], axis=1), axis=0, return_counts=True)
        self.keys = [(int(b), int(a)) for a, b in keys]  # (N, P), sorted by P then N
        self.counts = counts.astype(np.float64)
        mean = var = 0.0
        self.point = 0.0  # the mAP share of the queries with P = N (S = P always)
        self.groups = []
        for P in np.unique(keys[:, 0]):
            sel = (keys[:, 0] == P) & (keys[:, 1] > P)
            if np.any((keys[:, 0] == P) & (keys[:, 1] == P)):
                self.point += float(counts[(keys[:, 0] == P) & (keys[:, 1] == P)].sum()) / Q
            if not sel.any():
                continue
            Ns = keys[sel, 1]
            cnt = counts[sel].astype(np.float64)
            mom = np.empty((2, Ns.size))
            null_moments_array(
                Ns.astype(np.int64), np.full(Ns.size, P, dtype=np.int64), mom[0], mom[1]
            )
            mom = mom.T
            a = 1.0 / (Q * int(P))
            mean += float(np.sum(cnt * mom[:, 0])) / Q  # E[S / P] = E[AP]
            var += float(np.sum(cnt * mom[:, 1])) / (Q * Q)
            mid = len(Ns) // 2
            self.groups.append(
                dict(
                    P=int(P),
                    N=Ns,
                    cnt=cnt,
                    a=a,
                    Nmax=int(Ns[-1]),
                    c=float(mom[mid, 0] * P),  # centre: the null mean of S at the middle N
                    log_comb=_log_comb_array(Ns, int(P)),
                )
            )
        self.mean = mean + self.point
        self.var = var
        self.max = 1.0  # every query perfect: mAP = 1
        self.log_max_prob = -float(
            np.sum(
                counts
                * (
                    gammaln(keys[:, 1] + 1.0)
                    - gammaln(keys[:, 0] + 1.0)
                    - gammaln(keys[:, 1] - keys[:, 0] + 1.0)
                )
            )
        )
        self.cells = sum(g["P"] * (g["Nmax"] - g["P"] + 1) for g in self.groups)

    def _flat(self):
        """Flat arrays of the groups for the kernel (built once)."""
        f = getattr(self, "_flat_cache", None)
        if f is None:
            gs = self.groups
            f = dict(
                P=np.array([g["P"] for g in gs], dtype=np.int64),
                n_max=np.array([g["Nmax"] for g in gs], dtype=np.int64),
                c=np.array([g["c"] for g in gs], dtype=np.float64),
                a=np.array([g["a"] for g in gs], dtype=np.float64),
                start=np.cumsum([0] + [g["N"].size for g in gs]).astype(np.int64),
                N=np.concatenate([g["N"] for g in gs] + [np.zeros(0, np.int64)]).astype(np.int64),
                cnt=np.concatenate([g["cnt"] for g in gs] + [np.zeros(0)]),
                log_comb=np.concatenate([g["log_comb"] for g in gs] + [np.zeros(0)]),
            )
            sizes = np.diff(f["start"])
            f["key_a"] = np.repeat(f["a"], sizes)
            f["key_c"] = np.repeat(f["c"], sizes)
            self._flat_cache = f
        return f

    def key_cgf(self, theta, order=2, centre=None):
        """Per (N, P) key: ``K_q(phi_q)`` and the centred moments ``E[(S - c)^j]``.

        ``centre``: one ``c`` per group (default: the null mean of S at the
        group's middle N); the moments are about it, per key (``key_c``).
        """
        from .._numba.mean_ap import shared_cgf_keys

        f = self._flat()
        c = f["c"] if centre is None else np.asarray(centre, dtype=np.float64)
        key_c = np.repeat(c, np.diff(f["start"]))
        n_keys = f["N"].size
        log_z = np.empty(n_keys)
        mom = np.empty((order + 1, n_keys))
        phi = theta * f["a"]
        shared_cgf_keys(f["P"], f["n_max"], c, phi, f["start"], f["N"], order, log_z, mom)
        return log_z - f["log_comb"] + theta * f["key_a"] * key_c, mom, key_c

    def cgf(self, theta, order=2, recentre=False):
        """``(K, K1, K2)`` of mAP at ``theta``, and with ``order=4`` also ``K3, K4``.

        ``recentre``: a second pass with each group centred at its mean tilted S, so that
        the higher cumulants (sums of raw moments) keep their digits far in the tail.
        """
        f = self._flat()
        kq, mu, key_c = self.key_cgf(theta, order)
        if recentre and np.any(mu[1] ** 2 > np.maximum(mu[2] - mu[1] ** 2, 0.0)):
            # the higher cumulants from raw moments lose digits when the tilted mean is far
            # from the centre: one more pass centred at each group's mean tilted S
            sizes = np.diff(f["start"])
            idx = np.repeat(np.arange(sizes.size), sizes)
            shift = np.bincount(idx, weights=f["cnt"] * mu[1]) / np.bincount(idx, weights=f["cnt"])
            kq, mu, key_c = self.key_cgf(theta, order, f["c"] + shift)
        cnt, a = f["cnt"], f["key_a"]
        m1 = mu[1]
        out = [
            theta * self.point + float(cnt @ kq),
            self.point + float(cnt @ (a * (key_c + m1))),
            float(cnt @ (a * a * np.maximum(mu[2] - m1 * m1, 0.0))),
        ]
        if order >= 4:
            k3 = mu[3] - 3.0 * mu[2] * m1 + 2.0 * m1**3
            k4 = mu[4] - 4.0 * mu[3] * m1 - 3.0 * mu[2] ** 2 + 12.0 * mu[2] * m1**2 - 6.0 * m1**4
            out += [float(cnt @ (a**3 * k3)), float(cnt @ (a**4 * k4))]
        return tuple(out)

    def cgf0(self):
        """``(K, K1, K2, K3, K4)`` at theta = 0 (cached)."""
        if getattr(self, "_cgf0", None) is None:
            self._cgf0 = self.cgf(0.0, order=4)
        return self._cgf0

    def first_guess(self, m):
        """The root of the second-order expansion ``K'(theta) ~ mean + K2 theta + K3 theta^2 / 2``
        (the normal approximation's tilt where that has no root)."""
        _, _, k2, k3, _ = self.cgf0()
        delta = m - self.mean
        disc = k2 * k2 + 2.0 * k3 * delta
        if not disc > 0.0:
            return delta / k2
        return 2.0 * delta / (k2 + math.sqrt(disc))  # the stable form of the root

    def saddlepoint_error(self, m, theta):
        """Relative size of the next term of the tail expansion at the saddle point.

        Daniels (1987) gives the term of order ``Q^{-3/2}`` after
        Lugannani–Rice: ``phi(w) [ (lambda_4 / 8 - 5 lambda_3^2 / 24) / u
        - lambda_3 / (2 u^2) - 1 / u^3 + 1 / w^3 ]`` with the standardised
        cumulants ``lambda_j = K^{(j)} / K''^{j/2}`` at the saddle point; its
        ratio to the Lugannani–Rice value is the error estimate reported.
        """
        k, k1, k2, k3, k4 = self.cgf(theta, order=4, recentre=True)
        if not (k2 > 0.0 and theta != 0.0):
            return math.nan
        w = math.copysign(math.sqrt(max(2.0 * (theta * m - k), 0.0)), theta)
        u = theta * math.sqrt(k2)
        if abs(w) < 1e-4 or u == 0.0:
            return math.nan
        l3 = k3 / k2**1.5
        l4 = k4 / k2**2
        term = (l4 / 8.0 - 5.0 * l3 * l3 / 24.0) / u - l3 / (2.0 * u * u) - 1.0 / u**3 + 1.0 / w**3
        log_pdf = -0.5 * w * w - 0.5 * math.log(2.0 * math.pi)
        from ..null.tilt import log_sf_lugannani_rice

        z = (m - self.mean) / math.sqrt(self.var)
        log_p = log_sf_lugannani_rice(z, w, u)
        return abs(term) * math.exp(log_pdf - log_p)

    def log_sf_saddlepoint(self, m, with_error=False):
        """Natural log of the Lugannani–Rice upper tail at ``m`` (and its error estimate)."""
        from scipy.special import ndtr

        from ..null.tilt import log_sf_lugannani_rice

        sd = math.sqrt(self.var)
        z = (m - self.mean) / sd
        if abs(z) < 1e-4:
            return (math.log(ndtr(-z)), math.nan) if with_error else math.log(ndtr(-z))
        theta, k, k2 = self.saddle(m)
        w = math.copysign(math.sqrt(max(2.0 * (theta * m - k), 0.0)), theta)
        lp = log_sf_lugannani_rice(z, w, theta * math.sqrt(k2))
        if not with_error:
            return lp
        return lp, self.saddlepoint_error(m, theta)

    def tilt(self, m, rtol, max_draws, conf_level):
        """Importance sampling of the product of tilted laws: (log10 p, rse, interval, draws)."""
        from scipy.special import ndtri

        from .._numba.sampling import null_ap_draws
        from .._numba.tilt import tilt_draws, tilt_forward

        theta = self.saddle(m, tol=1e-3)[0] if m > self.mean else 0.0  # else plain Monte Carlo
        plan = []  # per (N, P): (layers, N, P, count, K(phi), phi, a, stream key)
        for g in self.groups:
            P, a = g["P"], g["a"]
            phi = theta * a
            if phi > 0.0:
                log_z, _, _, layers = tilt_forward(g["Nmax"], P, phi, g["c"], False, True)
                last = layers[P - 1]
                lam = log_z - math.log(last[-1])
                kq = lam + np.log(last[g["N"] - P]) - g["log_comb"] + phi * g["c"]
            else:
                layers, kq = None, np.zeros(g["N"].size)
            for N, c, kk in zip(g["N"], g["cnt"], kq, strict=True):
                key = np.random.SeedSequence([self.seed, int(N), P, 0x6D4150]).generate_state(
                    1, np.uint64
                )[0]
                plan.append((layers, int(N), P, int(c), float(kk), phi, a, key))
        z = float(ndtri(0.5 + conf_level / 2.0))
        thr = m * (1.0 - _REL_TOL)
        lw = np.zeros(0)
        tot = np.zeros(0)
        have, n = 0, FIRST_DRAWS
        while True:
            # replicates have..n-1; replicate i uses draws i*c .. i*c + c - 1 of its query's stream
            k = n - have
            lw_new = np.zeros(k)
            tot_new = np.full(k, self.point)
            for layers, N, P, c, kq, phi, a, key in plan:
                S = np.empty(k * c)
                if layers is None:
                    null_ap_draws(key, have * c, k * c, N, P, S)
                    S *= P
                else:
                    tilt_draws(layers, N, P, key, have * c, k * c, S)
                Ssum = S.reshape(k, c).sum(axis=1)
                lw_new += c * kq - phi * Ssum
                tot_new += a * Ssum
            lw = np.concatenate([lw, lw_new])
            tot = np.concatenate([tot, tot_new])
            have = n
            log_p, rse = _weighted_hits(lw, tot >= thr)
            if rse <= rtol or n >= max_draws:
                break
            n = min(2 * n, max_draws)
        return _log10_estimate(log_p, rse, z, n)


def _log_comb(n, p):
    return math.lgamma(n + 1.0) - math.lgamma(p + 1.0) - math.lgamma(n - p + 1.0)


def _log_comb_array(n, p):
    """log C(n, p) for an array of n: ``sum_k log1p((n - p) / k)`` for p <= 64 (a few ulp of
    the result; the difference of log-gammas loses ~1e-12 at n ~ 1000), log-gammas beyond."""
    from scipy.special import gammaln

    n = np.asarray(n, dtype=np.int64)
    if p > 64:
        return gammaln(n + 1.0) - gammaln(p + 1.0) - gammaln(n - p + 1.0)
    m = (n - p).astype(np.float64)
    acc = np.zeros(n.size)
    for k in range(1, p + 1):
        acc += np.log1p(m / k)
    return acc


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class MapGroup:
    """One group's mean AP and its p-value (a row of :attr:`MapResult.groups`).

    Attributes
    ----------
    group : object
        The group label.
    statistic : float
        Mean AP over the group's queries.
    pvalue, log10_pvalue : float
        P(mAP_null >= statistic) for the group's queries alone.
    pvalue_bh, log10_pvalue_bh : float
        Benjamini–Hochberg adjusted across the groups.
    pvalue_rse : float or None
        Relative standard error (``"tilt"``; 0 when exact; None for the saddlepoint).
    n_queries : int
    method : str
        ``"saddlepoint"``, ``"tilt"`` or ``"exact"``.
    pvalue_error : float or None
        Estimated relative error of the p-value: the relative standard error
        for ``"tilt"``, the size of the next term of the saddlepoint expansion
        for ``"saddlepoint"``, 0 when exact.

    See Also
    --------
    MapResult, map_significance

    Examples
    --------
    Two groups of one query each, both ranking their single positive first:
    under random ranking that happens with probability 1/4 (N = 4) and 1/5
    (N = 5); both groups together, with probability 1/20.

    >>> from pranker import map_significance_from_ap
    >>> r = map_significance_from_ap([1.0, 1.0], [4, 5], [1, 1], groups=["a", "b"])
    >>> [(g.group, round(float(g.pvalue), 6), round(float(g.pvalue_bh), 6), g.method) for g in r.groups]
    [('a', 0.25, 0.25, 'exact'), ('b', 0.2, 0.25, 'exact')]
    >>> round(float(r.pvalue), 6)
    0.05
    """

    group: object
    statistic: float
    pvalue: float
    log10_pvalue: float
    pvalue_bh: float
    log10_pvalue_bh: float
    pvalue_rse: float | None
    n_queries: int
    method: str
    pvalue_error: float | None = None


@dataclass(frozen=True)
class MapResult:
    """Result of :func:`map_significance`.

    Attributes
    ----------
    statistic : float
        The mean AP over the queries.
    pvalue, log10_pvalue : float
        P(mAP_null >= statistic) under random rankings of every query;
        ``log10_pvalue`` stays finite where ``pvalue`` underflows.
    pvalue_interval : (float, float) or None
        Confidence interval for the true p-value (``"tilt"``); None for the
        saddlepoint (no error bound).
    pvalue_rse : float or None
        Relative standard error of the p-value (``"tilt"``; 0 when exact).
    n_queries : int
    method : str
        ``"saddlepoint"``, ``"tilt"`` or ``"exact"`` (the edges of the support).
    null_mean, null_var : float
        Exact mean and variance of the null mAP.
    n_draws : int
        Draws per query behind a ``"tilt"`` p-value (0 otherwise).
    seed : int
    query_auprc, query_n, query_n_pos : ndarray
        Each query's AP, N and P.
    query_pvalue, query_log10_pvalue : ndarray
        Each query's own p-value (NaN when not asked for).
    query_pvalue_bh, query_log10_pvalue_bh : ndarray
        Benjamini–Hochberg adjusted values over the queries.
    groups : tuple of MapGroup or None
        One row per group when ``groups`` was given.
    pvalue_error : float or None
        How uncertain ``pvalue`` is, as a relative error: ``pvalue_rse`` for
        ``"tilt"``; for ``"saddlepoint"`` the ratio of the next term of the
        tail expansion (Daniels 1987, order ``Q^{-3/2}``) to the
        Lugannani–Rice value, an estimate rather than a bound (None for a
        single query, where the saddlepoint is that of
        :func:`pranker.significance_from_ap`); 0 when exact.

    See Also
    --------
    map_significance : computes it from scores and labels.
    map_significance_from_ap : computes it from per-query APs.
    MapGroup : the rows of ``groups``.

    References
    ----------
    .. [1] R. Lugannani and S. Rice, Adv. Appl. Prob. 12 (1980) 475–490.
    .. [2] H. E. Daniels, International Statistical Review 55 (1987) 37–48.
    .. [3] Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289–300.

    Examples
    --------
    >>> res = map_significance_from_ap([0.3] * 40, [1000] * 40, [10] * 40)
    >>> res.method, res.n_queries
    ('saddlepoint', 40)
    >>> res.pvalue < 1e-10, res.pvalue_error < 0.05
    (True, True)
    >>> sorted(res.to_dict())[:3]
    ['groups', 'log10_pvalue', 'method']
    """

    statistic: float
    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple | None
    pvalue_rse: float | None
    n_queries: int
    method: str
    null_mean: float
    null_var: float
    n_draws: int = 0
    seed: int = DEFAULT_SEED
    pvalue_error: float | None = None
    query_auprc: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_n: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_n_pos: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_pvalue: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_log10_pvalue: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_pvalue_bh: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_log10_pvalue_bh: np.ndarray | None = field(default=None, repr=False, compare=False)
    groups: tuple | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """JSON-ready fields (arrays as lists, groups as a list of dicts)."""
        d = {}
        for k in self.__dataclass_fields__:
            v = getattr(self, k)
            if isinstance(v, np.ndarray):
                v = v.tolist()
            elif k == "groups" and v is not None:
                v = [g.__dict__.copy() for g in v]
            elif isinstance(v, tuple):
                v = list(v)
            d[k] = v
        return d


def _pow10(lg):
    return 10.0**lg if lg > -320.0 else 0.0


def _map_pvalue(ap, n, n_pos, method, seed, rtol, max_draws, conf_level):
    """(statistic, log10 p, interval, rse, error, method, draws, mean, var) of these queries' mAP."""
    Q = int(np.asarray(n).size)
    null = _SumNull(n, n_pos, seed) if Q == 1 else _SharedSum(n, n_pos, seed)
    m = float(np.mean(ap))
    base = dict(statistic=m, null_mean=null.mean, null_var=null.var)
    tol = _REL_TOL * max(1.0, null.max)
    if null.var <= 0.0 or m <= _min_map(n, n_pos) + tol:
        return dict(base, lg=0.0, interval=(1.0, 1.0), rse=0.0, error=0.0, method="exact", draws=0)
    if m >= null.max - tol:  # every query perfect: the product of 1 / C(N_q, P_q)
        lg = null.log_max_prob / _LN10
        return dict(
            base, lg=lg, interval=(_pow10(lg),) * 2, rse=0.0, error=0.0, method="exact", draws=0
        )
    if method == "auto":
        method = "tilt"
        if Q > AUTO_TILT_MAX_QUERIES:
            k = null.cgf0()
            if k[4] <= AUTO_SADDLE_MAX_KURTOSIS * k[2] * k[2]:
                method = "saddlepoint"
    if method == "saddlepoint":
        if Q == 1:
            lg, err = null.log_sf_saddlepoint(m) / _LN10, None
        else:
            lp, err = null.log_sf_saddlepoint(m, with_error=True)
            lg = lp / _LN10
            err = None if not math.isfinite(err) else err
        return dict(
            base, lg=min(lg, 0.0), interval=None, rse=None, error=err, method="saddlepoint", draws=0
        )
    lg, rse, (lo, hi), draws = null.tilt(m, rtol, max_draws, conf_level)
    return dict(
        base,
        lg=lg,
        interval=(_pow10(lo), _pow10(hi)),
        rse=rse,
        error=rse,
        method="tilt",
        draws=draws,
    )


def _min_map(n, n_pos):
    """The smallest mAP: every query's positives ranked last (AP = (1/P) sum_k k / (N - P + k))."""
    from ..null.moments import min_auprc

    return float(
        np.mean(min_auprc(np.asarray(n, dtype=np.int64), np.asarray(n_pos, dtype=np.int64)))
    )


def map_significance_from_ap(
    ap,
    n,
    n_pos,
    groups=None,
    *,
    method: str = "auto",
    seed: int | None = None,
    rtol: float = 0.02,
    max_draws: int = 1 << 18,
    conf_level: float = 0.95,
    query_pvalues=None,
) -> MapResult:
    """The mean AP of per-query APs computed elsewhere, and its p-value: the null needs only N_q, P_q.

    Parameters
    ----------
    ap : array_like of float
        Each query's AP, in [0, 1].
    n, n_pos : array_like of int
        Each query's number of items N_q and of positives P_q (``1 <= P_q <= N_q``).
    groups : array_like, optional
        One label per query; each group gets its own mAP p-value
        (``result.groups``), with BH-adjusted values across groups.
    method : {"auto", "saddlepoint", "tilt"}
        How the mAP p-value is computed (module documentation): ``"auto"``
        takes ``"tilt"`` for at most :data:`AUTO_TILT_MAX_QUERIES` queries and
        the saddlepoint beyond.
    seed : int, optional
        Seed of the ``"tilt"`` draws (default fixed, recorded on the result).
    rtol : float
        Target relative standard error of a ``"tilt"`` p-value.
    max_draws : int
        At most this many draws per query for ``"tilt"``.
    conf_level : float
        Coverage of ``pvalue_interval``.
    query_pvalues : array_like of float, optional
        Each query's log10 p-value, if computed elsewhere; BH-adjusted values
        are derived from them. Without it those fields are NaN.

    Returns
    -------
    MapResult
        ``method``, ``pvalue_rse``/``pvalue_error`` and ``n_draws`` say how the
        p-value was obtained and how uncertain it is.

    See Also
    --------
    map_significance : the same from scores and labels.
    significance_from_ap : one query (the same p-value when Q = 1).

    References
    ----------
    .. [1] R. Lugannani and S. Rice, Adv. Appl. Prob. 12 (1980) 475–490.
    .. [2] H. E. Daniels, International Statistical Review 55 (1987) 37–48.
    .. [3] D. Siegmund, Ann. Statist. 4 (1976) 673–684.

    Examples
    --------
    >>> res = map_significance_from_ap([0.5, 0.4, 0.6], [100, 120, 90], [5, 8, 6])
    >>> res.method, res.n_queries, res.log10_pvalue < -6
    ('tilt', 3, True)
    >>> res.pvalue_rse <= 0.02
    True
    """
    ap = np.asarray(ap, dtype=np.float64).ravel()
    n = np.asarray(n, dtype=np.int64).ravel()
    n_pos = np.asarray(n_pos, dtype=np.int64).ravel()
    if not (ap.size == n.size == n_pos.size) or ap.size == 0:
        raise ValueError(
            f"map_significance: ap, n and n_pos need one entry per query, at least "
            f"one; got {ap.size}, {n.size} and {n_pos.size}."
        )
    if np.any(n_pos < 1) or np.any(n_pos > n):
        q = int(np.flatnonzero((n_pos < 1) | (n_pos > n))[0])
        raise ValueError(
            f"map_significance: query {q} has {n_pos[q]} positives of {n[q]}; every "
            f"query needs 1 <= P <= N (AP is undefined without a positive)."
        )
    if not np.all(np.isfinite(ap)) or np.any(ap < 0.0) or np.any(ap > 1.0 + 1e-12):
        raise ValueError("map_significance: every AP must be a number in [0, 1].")
    if method not in MAP_METHODS:
        raise ValueError(f"map_significance: method must be one of {MAP_METHODS}; got {method!r}.")
    conf_level = check_conf_level(conf_level, "map_significance")
    seed = DEFAULT_SEED if seed is None else int(seed)
    from .many import bh_log10

    Q = ap.size
    if query_pvalues is None:
        qlg = np.full(Q, np.nan)
        qbh = np.full(Q, np.nan)
    else:
        qlg = np.asarray(query_pvalues, dtype=np.float64).ravel()
        qbh = bh_log10(qlg)
    r = _map_pvalue(ap, n, n_pos, method, seed, rtol, max_draws, conf_level)
    rows = None
    if groups is not None:
        g = np.asarray(groups).ravel()
        if g.size != Q:
            raise ValueError(
                f"map_significance: groups needs one label per query ({Q}); got {g.size}."
            )
        labels, inv = np.unique(g, return_inverse=True)
        parts = []
        for i, lab in enumerate(labels):
            sel = inv == i
            parts.append(
                (
                    lab,
                    _map_pvalue(
                        ap[sel], n[sel], n_pos[sel], method, seed, rtol, max_draws, conf_level
                    ),
                    int(sel.sum()),
                )
            )
        bh = bh_log10(np.array([p["lg"] for _, p, _ in parts]))
        rows = tuple(
            MapGroup(
                group=lab.item() if hasattr(lab, "item") else lab,
                statistic=p["statistic"],
                pvalue=_pow10(p["lg"]),
                log10_pvalue=p["lg"],
                pvalue_bh=_pow10(b),
                log10_pvalue_bh=float(b),
                pvalue_rse=p["rse"],
                n_queries=k,
                method=p["method"],
                pvalue_error=p["error"],
            )
            for (lab, p, k), b in zip(parts, bh, strict=True)
        )
    return MapResult(
        statistic=r["statistic"],
        pvalue=_pow10(r["lg"]),
        log10_pvalue=r["lg"],
        pvalue_interval=r["interval"],
        pvalue_rse=r["rse"],
        n_queries=int(Q),
        method=r["method"],
        null_mean=r["null_mean"],
        null_var=r["null_var"],
        n_draws=r["draws"],
        seed=seed,
        pvalue_error=r["error"],
        query_auprc=ap,
        query_n=n,
        query_n_pos=n_pos,
        query_pvalue=np.power(10.0, qlg),
        query_log10_pvalue=qlg,
        query_pvalue_bh=np.power(10.0, qbh),
        query_log10_pvalue_bh=qbh,
        groups=rows,
    )


def _query_aps(scores_list, y_list, ties, pos_label):
    """Each query's (AP, N, P) as :func:`pranker.pranker_many` computes them, without p-values."""
    from .._numba import rows as _kernels_rows
    from .._numba import tiegroups as _k_tiegroups
    from .._validation import check_ties
    from .many import _kernel_mask, _prepare, _row_buffers

    check_ties(ties)
    mode = _k_tiegroups.MODE_CODES[ties]
    lengths = {np.shape(r) for r in scores_list}
    if len(lengths) == 1:  # equal lengths: one 2-D batch
        s2, y2, m2, _ = _prepare(list(scores_list), list(y_list), -1, None, pos_label)
        R = s2.shape[0]
        use_mask, mk = _kernel_mask(m2)
        ap, n, npos, status = _row_buffers(R)
        _kernels_rows.ap_rows(s2, y2, mk, use_mask, mode, 0, R, ap, n, npos, status)
    else:  # ragged: concatenated, each query checked as pranker_many checks it
        from .._numba.mean_ap import ap_segments
        from .._validation import _as_label_array, _as_numeric_array, binarize_labels

        rows_s, rows_y = [], []
        for i, (s_i, y_i) in enumerate(zip(scores_list, y_list, strict=True)):
            a = _as_numeric_array(s_i, f"scores[{i}]")
            b = _as_label_array(y_i, f"y[{i}]", "map_significance")
            if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
                raise ValueError(
                    f"map_significance: query {i}: scores and labels must be 1-D "
                    f"of the same length; got shapes {a.shape} and {b.shape}."
                )
            rows_s.append(a)
            rows_y.append(
                binarize_labels(
                    b, pos_label=pos_label, name=f"y[{i}]", where="map_significance", scores=a
                )
            )
        R = len(rows_s)
        starts = np.zeros(R + 1, dtype=np.int64)
        np.cumsum([a.shape[0] for a in rows_s], out=starts[1:])
        ap, n, npos, status = _row_buffers(R)
        ap_segments(
            np.concatenate(rows_s).astype(np.float64, copy=False),
            np.concatenate(rows_y).astype(bool, copy=False),
            starts,
            mode,
            ap,
            n,
            npos,
            status,
        )
    bad = np.flatnonzero(status == _kernels_rows.ROW_NAN)
    if bad.size:
        raise ValueError(
            f"map_significance: {bad.size} query(ies) contain NaN scores (first: "
            f"query {int(bad[0])}). Remove or impute them."
        )
    empty = np.flatnonzero(status == _kernels_rows.ROW_NO_POSITIVE)
    if empty.size:
        raise ValueError(
            f"map_significance: {empty.size} query(ies) have no positive label, so "
            f"their AP is undefined (first: {empty[:5].tolist()}). Drop them or "
            f"give each query at least one positive."
        )
    return ap, n, npos


def map_significance(
    scores_list,
    y_list,
    groups=None,
    *,
    method: str = "auto",
    ties: str = "average",
    seed: int | None = None,
    rtol: float = 0.02,
    max_draws: int = 1 << 18,
    conf_level: float = 0.95,
    query_method: str | None = None,
    pos_label=None,
) -> MapResult:
    """Mean AP over queries and its p-value against random rankings of every query.

    Parameters
    ----------
    scores_list, y_list : list of 1-D array_like
        One score array and one label array per query (each with its own
        length N_q and at least one positive).
    groups : array_like, optional
        One label per query; each group gets its own mAP p-value
        (``result.groups``), with BH-adjusted values across groups.
    method : {"auto", "saddlepoint", "tilt"}
        How the mAP p-value is computed (see the module documentation):
        ``"auto"`` takes the tilted importance sampler for at most
        :data:`AUTO_TILT_MAX_QUERIES` queries or where the null is far from
        normal (excess kurtosis above :data:`AUTO_SADDLE_MAX_KURTOSIS`), the
        saddlepoint otherwise.
    ties : str
        Tie mode of every AP (:func:`pranker.auprc_ap`).
    seed : int, optional
        Seed of the draws (default fixed, recorded on the result).
    rtol : float
        Target relative standard error of ``"tilt"`` p-values.
    max_draws : int
        At most this many draws per query for ``"tilt"``.
    conf_level : float
        Coverage of ``pvalue_interval``.
    query_method : str or None
        None (default): each query's own p-value is not computed (those
        fields are NaN). A method name (``"auto"`` for the default of
        :func:`pranker.pranker`) computes them with
        :func:`pranker.pranker_many`, the same numbers as
        :func:`pranker.significance_from_ap` gives each query, plus
        Benjamini–Hochberg adjusted values. They are off by default because
        of their cost: at Q = 10^4 queries of N_q ~ 1000 the mAP p-value
        takes a few times a ``numpy.sort`` of all scores, per-query p-values
        at 2 % relative error 200-2000 times (docs/mean_ap.md).
    pos_label : scalar, optional
        The label of the positive class.

    Returns
    -------
    MapResult
        The mean AP, its p-value, how it was obtained (``method``) and how
        uncertain it is (``pvalue_rse``, ``pvalue_error``), the null's mean
        and variance, each query's AP, N and P, and the group rows.

    See Also
    --------
    map_significance_from_ap : the same from per-query APs.
    pranker_many : each query's own p-value.
    significance_from_ap : one query.

    References
    ----------
    .. [1] R. Lugannani and S. Rice, Adv. Appl. Prob. 12 (1980) 475–490.
    .. [2] H. E. Daniels, International Statistical Review 55 (1987) 37–48.
    .. [3] M. Lopes and G. Bontempi, ECML PKDD 2014.
    .. [4] Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289–300.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ys = [rng.random(200) < 0.05 for _ in range(30)]
    >>> ss = [y * 0.5 + rng.normal(size=200) for y in ys]
    >>> res = map_significance(ss, ys)
    >>> res.method, res.n_queries, res.pvalue < 1e-4
    ('saddlepoint', 30, True)
    >>> bool(np.isnan(res.query_pvalue).all())
    True
    >>> res = map_significance(ss, ys, query_method="auto")
    >>> res.query_pvalue.shape, bool((res.query_pvalue_bh >= res.query_pvalue).all())
    ((30,), True)
    """
    if not isinstance(scores_list, (list, tuple)) or not isinstance(y_list, (list, tuple)):
        raise ValueError(
            "map_significance: scores_list and y_list must be lists with one array per query."
        )
    if len(scores_list) != len(y_list) or not scores_list:
        raise ValueError(
            f"map_significance: scores_list and y_list need one array per query; "
            f"got {len(scores_list)} and {len(y_list)}."
        )
    if query_method is None:
        ap, n, n_pos = _query_aps(scores_list, y_list, ties, pos_label)
        qlg = None
    else:
        from .many import pranker_many

        many = pranker_many(
            list(scores_list),
            list(y_list),
            ties=ties,
            pos_label=pos_label,
            method=query_method,
            seed=seed,
            conf_level=conf_level,
        )
        ap, n, n_pos, qlg = many.auprc, many.n, many.n_pos, many.log10_pvalue
    return map_significance_from_ap(
        ap,
        n,
        n_pos,
        groups,
        method=method,
        seed=seed,
        rtol=rtol,
        max_draws=max_draws,
        conf_level=conf_level,
        query_pvalues=qlg,
    )
