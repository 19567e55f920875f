r"""The null distribution of AP under random ranking: exact moments in O(1).

Under the null hypothesis every one of the C(N, P) placements of the P
positives among N ranked instances is equally likely. Write

.. math::

    X = P \cdot AP = \sum_i \frac{y_i S_i}{i} = \sum_{j \le i} \frac{y_i y_j}{i},
    \qquad S_i = \sum_{j \le i} y_j .

Derivation
----------
For m distinct positions, E[y_{i_1} ... y_{i_m}] = q_m with the falling-factorial
ratio q_m = P(P-1)...(P-m+1) / (N(N-1)...(N-m+1)). Hence

    E[X] = q_1 H_N + q_2 (N - H_N),

    E[AP] = ((P - 1) N + (N - P) H_N) / (N (N - 1)),

with H_N = sum_{i<=N} 1/i. For the second moment, E[X^2] is the sum over
pairs (j <= i), (l <= k) of (1/(ik)) q_{|{i,j,k,l}|}; grouping the index
patterns by the number m of distinct indices gives E[X^2] = sum_m q_m C_m with
(H = H_N, H2 = H_N^(2) = sum 1/i^2)

    C_1 = H2
    C_2 = 2 H^2 + 3 H - 5 H2
    C_3 = 2 N H + 5 N - 5 H^2 - 9 H + 7 H2
    C_4 = N^2 - 2 N H - 5 N + 3 H^2 + 6 H - 3 H2

(the sums used are sum_{j<i} 1/i = N - H, sum_{j<i} 1/i^2 = H - H2,
sum_{j<i} 1/(ij) = (H^2 - H2)/2 and sum_j (H_N - H_j)^2 = 2N - H - H^2).

Numerics
--------
Var(X) = E[X^2] - E[X]^2 computed as written cancels badly for large N (the
terms are O(N^2), the variance O(P)). Collecting Var(X) by the monomials
N^2, N H, N, H^2, H, H2 and factoring each coefficient symbolically removes
the cancellation inside the coefficients, e.g. the N^2 coefficient is
q_4 - q_2^2 = -2 P (N-P)(P-1)(2NP - 3N - 3P + 3) / (N^2 (N-1)^2 (N-2)(N-3)).
Every coefficient carries the factor P (N - P) / ((N-1)(N-2)(N-3)), so

    Var(AP) = (N - P) / (P (N-1)(N-2)(N-3)) * [
        - 2 (P-1) e1 / (N-1)
        - 4 (P-1) e2 H / (N (N-1))
        + 5 (P-1)(P-2)
        + e3 H^2 / (N^2 (N-1))
        + 3 (P-1)(N - 2P + 1) H / N
        + (N - 3P)(N - P - 1) H2 / N ]

    e1 = (2P - 3) N - 3 (P - 1)
    e2 = N (N - 2P - 1) + 3 P
    e3 = N^2 ((N - 2P)(P - 2) + 2 (P + 1)) - N P (2P + 9) + 6 P^2

The six bracket terms are of the size of the result (at most a factor ~15
apart over every N up to 1e12 and 1 <= P <= N, checked against 70-digit
arithmetic), so the relative error stays within a few units of 1e-15.
H_N and H_N^(2) come from exact tables for N <= 64 and from the asymptotic
series of the digamma and trigamma functions beyond. Var = 0 at P = N.

References
----------
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .._docs import fill_doc
from .._numba import moments as _kernels
from .._numba import sampling as _sampling
from .._results import renamed_parameters
from .._validation import check_count, check_count_pair, check_counts
from .choice import DEFAULT_MC_DRAWS, DEFAULT_SEED

__all__ = ["NullParams", "null_params", "min_auprc", "null_ap_samples"]


@dataclass(frozen=True)
class NullParams:
    """Mean and variance of the null AP; unpacks as ``mean, var = params``.

    Attributes
    ----------
    mean, var : float or ndarray
    method : str
        ``"exact"`` or ``"montecarlo"``.
    mean_se, var_se : float or ndarray or None
        Standard errors of the Monte Carlo estimates (None when exact).
    n_draws : int or None
        Number of random rankings behind a Monte Carlo estimate.
    seed : int or None
        Seed of those rankings (None when exact).

    See Also
    --------
    null_params : Computes it.

    Examples
    --------
    For N = 3 and P = 1 the positive is at rank 1, 2 or 3, so AP is 1, 1/2
    or 1/3 with equal probability:

    >>> mean, var = null_params(3, 1)
    >>> round(mean * 18, 12), round(var * 324, 12)  # 11/18 and 26/324
    (11.0, 26.0)
    """

    mean: float | np.ndarray
    var: float | np.ndarray
    method: str = "exact"
    mean_se: float | np.ndarray | None = None
    var_se: float | np.ndarray | None = None
    n_draws: int | None = None
    seed: int | None = None

    def __iter__(self):
        yield self.mean
        yield self.var

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.mean, self.var)[i]


@fill_doc()
def null_params(
    N, P, *, method: str = "exact", n_draws: int = DEFAULT_MC_DRAWS, seed: int | None = None
) -> NullParams:
    """Mean and variance of AP over all random rankings of N instances with P positives.

    Parameters
    ----------
    N, P : int or array_like of int
        Number of instances and of positives, ``1 <= P <= N <= 2**62``.
        Arrays broadcast against each other.
    method : {"exact", "montecarlo"}
        ``"exact"``: the closed form of the module docstring, O(1) per pair.
        ``"montecarlo"``: estimates from ``n_draws`` seeded random rankings
        (scalar N and P only), with standard errors; each draw samples only
        the positives' ranks, O(P) expected.
    n_draws : int
        Monte Carlo sample size.
    seed : int, optional
        Seed of the Monte Carlo draws (results do not depend on thread count).
        Default: the package's fixed seed, so the same call gives the same
        numbers; it is recorded on the result.

    Returns
    -------
    NullParams
        Unpacks as ``(mean, var)``; scalars for scalar input, arrays otherwise.

    See Also
    --------
    min_auprc : The smallest possible AP.
    pranker.beta_fit : A beta distribution matched to these moments.
    pranker.null_distribution : The whole null distribution.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> mean, var = null_params(10, 5)
    >>> round(mean, 6), round(var, 6)
    (0.607165, 0.019978)
    >>> null_params(10**12, 10**6).mean  # ~ P/N for rare positives
    1.0000...e-06
    >>> null_params([100, 1000], 10).mean.shape
    (2,)

    Monte Carlo agrees with the closed form within its standard error, and the
    same call gives the same numbers (the default seed is fixed and recorded):

    >>> mc = null_params(100, 10, method="montecarlo", n_draws=20_000)
    >>> bool(abs(mc.mean - null_params(100, 10).mean) < 4 * mc.mean_se)
    True
    >>> again = null_params(100, 10, method="montecarlo", n_draws=20_000)
    >>> (again.mean, again.var) == (mc.mean, mc.var), mc.seed == again.seed
    (True, True)
    """
    if method == "exact":
        if np.ndim(N) == 0 and np.ndim(P) == 0:
            # scalars (the common case): no array round trip
            n, p = check_count_pair(N, P)
            mu, v = _kernels.null_moments_scalar(n, p, n - p)
            return NullParams(mu, v)
        n_arr, p_arr, scalar = check_counts(N, P)
        shape = n_arr.shape
        nf = n_arr.ravel()
        pf = p_arr.ravel()
        mean = np.empty(nf.shape[0])
        var = np.empty(nf.shape[0])
        _kernels.null_moments_array(nf, pf, mean, var)
        if scalar:
            return NullParams(float(mean[0]), float(var[0]))
        return NullParams(mean.reshape(shape), var.reshape(shape))
    if method == "montecarlo":
        if np.ndim(N) or np.ndim(P):
            raise ValueError("method='montecarlo' takes scalar N and P.")
        n_draws = check_count(n_draws, "n_draws")
        if n_draws < 2:
            raise ValueError(f"n_draws must be >= 2; got {n_draws}.")
        seed = DEFAULT_SEED if seed is None else seed
        samples = null_ap_samples(N, P, n_draws, seed=seed)
        m = float(samples.mean())
        centred = samples - m
        v = float(centred @ centred / (n_draws - 1))
        m4 = float(np.mean(centred**4))
        mean_se = float(np.sqrt(v / n_draws))
        # SE of the sample variance: sqrt((m4 - v^2 (n-3)/(n-1)) / n)
        var_se = float(np.sqrt(max(m4 - v * v * (n_draws - 3) / (n_draws - 1), 0.0) / n_draws))
        return NullParams(m, v, "montecarlo", mean_se, var_se, n_draws, int(seed))
    raise ValueError(f"method must be 'exact' or 'montecarlo'; got {method!r}.")


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def null_ap_samples(n: int, n_pos: int, n_draws: int, *, seed: int | None = None, start: int = 0):
    """AP of ``n_draws`` uniformly random rankings of N instances with P positives.

    Only the positives' ranks are drawn (a uniform random P-subset of 1..N,
    O(P) expected per draw for P <= N/2, O(N) beyond). Draw ``j`` depends only
    on ``(seed, start + j)``, so batches can be generated piecewise.

    Parameters
    ----------
    n, n_pos : int
        Number of instances and of positives, ``1 <= P <= N``.
    n_draws : int
        Number of random rankings.
    seed : int, optional
        Seed of the counter-based generator (default: the package's fixed
        seed, so that the same call gives the same draws).
    start : int
        Index of the first draw: ``null_ap_samples(..., n, seed=s, start=k)``
        equals draws ``k .. k + n - 1`` of one long sequence.

    Returns
    -------
    ndarray of float64, shape (n_draws,)
        The average precision of each random ranking.

    See Also
    --------
    null_params : the exact mean and variance of these draws.
    montecarlo_pvalue : a permutation p-value from such draws.
    null_distribution : the null AP with exact or approximate tails.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> s = null_ap_samples(1000, 10, 20000, seed=1)
    >>> bool(abs(s.mean() - null_params(1000, 10).mean) < 4 * s.std() / 20000**0.5)
    True
    >>> a = null_ap_samples(100, 5, 6, seed=7)
    >>> bool((a[4:] == null_ap_samples(100, 5, 2, seed=7, start=4)).all())  # piecewise
    True
    >>> bool((null_ap_samples(100, 5, 3) == null_ap_samples(100, 5, 3)).all())  # fixed seed
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n_arr, p_arr, _ = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    n_draws = check_count(n_draws, "n_draws")
    if p > n // 2 and n > 50_000_000:
        raise ValueError(
            f"Monte Carlo with P > N/2 costs O(N) per draw; N={n} is too large. "
            "Use the exact moments (method='exact')."
        )
    if seed is None:
        seed = DEFAULT_SEED  # fixed: the same call gives the same draws
    out = np.empty(n_draws)
    _sampling.null_ap_draws(np.uint64(seed % 2**64), start, n_draws, n, p, out)
    return out


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def min_auprc(n, n_pos):
    """Smallest possible AP: all P positives ranked last, a = (1/P) sum_k k / (N - P + k).

    Computed in O(1) from harmonic-number differences, accurate to full
    relative precision for any N up to 2**62. Vectorised over N and P.

    Parameters
    ----------
    n, n_pos : int or array_like of int
        Number of instances and of positives, ``1 <= P <= N <= 2**62``.

    Returns
    -------
    float or ndarray
        The lower end of the support of the null AP (a scalar for scalar input).

    See Also
    --------
    null_params : Mean and variance of the null AP.
    pranker.beta_fit : A beta on ``[min_auprc, 1]``.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> min_auprc(10, 10)
    1.0
    >>> round(min_auprc(4, 2), 6)  # (1/3 + 2/4) / 2
    0.416667
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    a, _ = _min_auprc_pair(N, P)
    return a


def _min_auprc_pair(N, P):
    """(a, 1 - a), each to full relative precision; scalars or arrays like N, P."""
    n_arr, p_arr, scalar = check_counts(N, P)
    if scalar:
        # what min_ap computes, here in Python: no kernel of its own to compile on a
        # fresh environment's first p-value (harmonic_sums is compiled for the AP anyway)
        n, p = int(n_arr.ravel()[0]), int(p_arr.ravel()[0])
        m = float(n - p)  # formed in integers: exact beyond 2**53
        h, g = _kernels.harmonic_sums(m, float(p))
        return (h + g) / p, m / p * h
    a = np.empty(n_arr.size)
    b = np.empty(n_arr.size)
    _kernels.min_ap_array(n_arr.ravel(), p_arr.ravel(), a, b)
    return a.reshape(n_arr.shape), b.reshape(n_arr.shape)


_QUANTILE_CACHE = 8  # (N, P, seed) whose sorted draws are kept
QUANTILE_DRAWS = 1 << 16


def null_quantiles(N, P, seed, q):
    """Quantiles ``q`` of the null AP from ``QUANTILE_DRAWS`` seeded random rankings (cached)."""
    key = (N, P, seed)
    x = _QUANTILE_SAMPLES.get(key)
    if x is None:
        x = np.sort(null_ap_samples(N, P, QUANTILE_DRAWS, seed=seed))
        _QUANTILE_SAMPLES[key] = x
        while len(_QUANTILE_SAMPLES) > _QUANTILE_CACHE:
            _QUANTILE_SAMPLES.popitem(last=False)
    return np.quantile(x, q)[()]


_QUANTILE_SAMPLES: OrderedDict = OrderedDict()
