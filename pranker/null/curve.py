r"""The precision-recall curve of a random ranking: its exact expectation.

Under the null hypothesis every placement of the P positives among N ranked
instances is equally likely. The rank ``r_k`` of the k-th positive then has the
negative hypergeometric law

.. math::

    \Pr(r_k = r) = \binom{r-1}{k-1}\binom{N-r}{P-k} \Big/ \binom{N}{P},
    \qquad r = k, \dots, k + N - P,

and the precision at recall ``k/P`` is ``k / r_k``. Its expectation is
``k a_k`` with ``a_k = E[1/r_k]``.

Derivation of the recurrence
----------------------------
With M = N - P, for 1 <= k < P,

.. math::

    k (P - k)\, a_k + k (k + M + 1)\, a_{k+1} = P .

Proof: use (P-k) C(N-r, P-k) = (M - (r-k) + 1) C(N-r, P-k-1) and
C(r-1, k) = C(r-1, k-1) (r-k)/k. The two terms' summands at rank r then add up
to C(r-1, k-1) C(N-r, P-k-1) / r times

    k (M + 1 - (r - k)) + (k + M + 1)(r - k) = (M + 1) r,

so the 1/r cancels and Vandermonde's identity
sum_r C(r-1, k-1) C(N-r, P-k-1) = C(N, P-1) leaves
(M + 1) C(N, P-1) / C(N, P) = P.

Numerics
--------
The recurrence's homogeneous solution changes by the factor
-(P-k)/(k+M+1) per step, which is below 1 in modulus for
k >= k0 = (P - M - 1)/2. So a_{k0} (k0 clipped to [1, P]) is computed
directly, as sum_r w(r)/r / sum_r w(r) over the unnormalised weights
w(r) = C(r-1, k0-1) C(N-r, P-k0) generated from their log-ratios (positive
terms only, no binomial coefficient formed), and the recurrence runs forward
from k0 and backward below it; rounding errors are damped in both directions.
Sparse positives (P <= (N+1)/2) start at k0 = 1; dense ones start in the
middle. Against exact rational arithmetic the relative error is a few ulps
(checked for every N <= 24, against 50-digit sums at N ~ 1e3 in sparse and
dense cases, and against the closed forms for P <= 2 up to N = 1e7).

Complexity: O(P) for the recurrence plus the direct sum, which visits at most
N - P + 1 ranks and in practice about 40 standard deviations of r_{k0}
(sd ~ sqrt(k0) N / P): e.g. 0.02-0.04 s at N = 1e7, P = 1e3 and 0.1-0.9 s
at N = 1e7, P = 2 (the worst case, O(N); the range is machine load). P = 1
is the closed form H_N / N.

Consistency: the mean over k of E[k / r_k] is the null mean of AP
(:func:`pranker.null_params`), since AP = (1/P) sum_k k / r_k.

Interpolated AP
---------------
Interpolated precision at recall k/P is max_{j >= k} j / r_j (the upper
envelope of the PR curve), and interpolated AP is its mean over k. Its null
expectation depends on the joint law of all ranks through a running maximum;
we found no closed form or polynomial dynamic programme (the running maximum
takes O(N P) distinct rational values), so
:func:`null_interpolated_ap` estimates it by Monte Carlo with a stated
standard error.

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
from .._numba import nullcurve as _kernels_curve
from .._results import DeprecatedAlias, renamed_parameters
from .._validation import check_count, check_counts
from .choice import DEFAULT_SEED

__all__ = ["expected_null_pr_curve", "NullInterpolatedAP", "null_interpolated_ap"]

# the direct sum visits up to ~40 N / P ranks; beyond this it would take minutes
_MAX_DIRECT_TERMS = 4e9


def _scalar_counts(N, P) -> tuple[int, int]:
    if np.ndim(N) or np.ndim(P):
        raise ValueError("N and P must be scalars here; call once per (N, P) pair.")
    n_arr, p_arr, _ = check_counts(N, P, max_n=2**53)
    return int(n_arr[0]), int(p_arr[0])


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def expected_null_pr_curve(n: int, n_pos: int) -> tuple[np.ndarray, np.ndarray]:
    """Expected precision at each recall level k/P under random ranking, exactly.

    Parameters
    ----------
    N : int
        Number of instances, ``1 <= N <= 2**53``.
    P : int
        Number of positives, ``1 <= P <= N``.

    Returns
    -------
    recall : ndarray, shape (P,)
        ``k / P`` for ``k = 1..P``.
    expected_precision : ndarray, shape (P,)
        ``E[k / r_k]``, the mean precision at the k-th positive (``r_k`` its
        rank) over all C(N, P) rankings. Its mean over k is the null mean of
        AP.

    Notes
    -----
    Exact up to rounding (relative error of a few ulps), by a stable
    first-order recurrence in k; O(P) plus one direct sum of at most N - P + 1
    terms (see the module documentation for the derivation and the cost).
    Large N with very few positives is the slow corner: P = 2 at N = 1e7
    takes about a second; a pair whose direct sum would exceed ~4e9 terms is
    refused with an error.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> recall, prec = expected_null_pr_curve(4, 2)
    >>> recall.tolist()
    [0.5, 1.0]
    >>> [round(float(x), 10) for x in prec]  # E[1/r_1] = 13/18, E[2/r_2] = 23/36
    [0.7222222222, 0.6388888889]
    >>> from pranker import null_params
    >>> bool(abs(prec.mean() - null_params(4, 2).mean) < 1e-15)
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_counts(N, P)
    m = n - p
    k0 = min(max(1, math.ceil((p - m - 1) / 2)), p)
    if p > 1 and m > 0:
        sd = math.sqrt(k0) * n / p
        if min(m + 1, 80.0 * sd) > _MAX_DIRECT_TERMS:
            raise ValueError(
                f"expected_null_pr_curve(N={n}, P={p}) needs a direct sum of about "
                f"{min(m + 1, 80.0 * sd):.2g} terms (the cost grows like N / P); use fewer "
                "instances or more positives."
            )
    out = np.empty(p)
    _kernels_curve.expected_precision_curve(float(n), float(p), out)
    recall = np.arange(1, p + 1, dtype=np.float64) / p
    return recall, out


@fill_doc()
@dataclass(frozen=True)
class NullInterpolatedAP:
    """Monte Carlo estimate of the null interpolated AP and curve.

    Attributes
    ----------
    mean : float
        Estimated E[interpolated AP] under random ranking.
    se : float
        Its standard error (sample standard deviation / sqrt(n_draws)); the
        true mean lies within ``mean +/- 1.96 se`` with about 95 % confidence.
    n_draws : int
        Number of random rankings drawn.
    seed : int
        Seed of the draws; the same seed gives the same estimate whatever
        the number of threads.
    n, n_pos : int
        Number of instances N and of positives P (``N``, ``P``: their
        earlier names, deprecated).
    recall : ndarray or None
        ``k / P`` (only when the curve was requested).
    precision, precision_se : ndarray or None
        Estimated E[max_{j >= k} j / r_j] at each recall level and its
        standard errors (only when the curve was requested).

    See Also
    --------
    null_interpolated_ap : the function that returns it.
    expected_null_pr_curve : the exact expected (not interpolated) precision.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    Two positives among four instances: over the six placements of their
    ranks the interpolated AP is 1, 5/6, 3/4, 2/3, 1/2 and 1/2, so its null
    mean is 17/24 = 0.7083; the expected interpolated precision is 7/9 at
    recall 1/2 and 23/36 at recall 1.

    >>> est = null_interpolated_ap(4, 2, n_draws=20_000, seed=0, curve=True)
    >>> est.n_draws, est.seed, est.recall.tolist()
    (20000, 0, [0.5, 1.0])
    >>> round(est.mean, 2), bool(abs(est.mean - 17 / 24) < 3 * est.se)
    (0.71, True)
    >>> est.precision.round(2).tolist()
    [0.78, 0.64]
    >>> bool(all(abs(est.precision - [7 / 9, 23 / 36]) < 3 * est.precision_se))
    True
    """

    mean: float
    se: float
    n_draws: int
    seed: int
    n: int
    n_pos: int
    recall: np.ndarray | None = None
    precision: np.ndarray | None = None
    precision_se: np.ndarray | None = None

    # earlier names, kept until 0.5.0
    N = DeprecatedAlias("n")
    P = DeprecatedAlias("n_pos")


@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def null_interpolated_ap(
    n: int, n_pos: int, *, n_draws: int = 10_000, seed: int | None = None, curve: bool = False
) -> NullInterpolatedAP:
    """Null mean of interpolated AP (max precision at recall >= r), by Monte Carlo.

    Interpolated AP averages, over the P recall levels k/P, the interpolated
    precision max_{j >= k} j / r_j. No exact form is known to us (see the
    module documentation), so this draws ``n_draws`` random rankings (only the
    positives' ranks, reproducible from ``seed`` whatever the thread count)
    and reports the mean with its standard error.

    Parameters
    ----------
    n, n_pos : int
        Number of instances and of positives, ``1 <= P <= N``.
    n_draws : int
        Number of random rankings, >= 2. The standard error shrinks like
        ``1 / sqrt(n_draws)``.
    seed : int, optional
        Seed of the draws (default: the package's fixed seed, so that the same
        call gives the same number; reported on the result).
    curve : bool
        Also estimate the expected interpolated precision at every recall
        level (memory 32 * P * 16 bytes; P <= 10**6).

    Returns
    -------
    NullInterpolatedAP

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> est = null_interpolated_ap(100, 10, n_draws=20_000, seed=3)
    >>> from pranker import null_params
    >>> bool(est.mean > null_params(100, 10).mean)  # interpolation only raises precision
    True
    >>> bool(est.se < 1e-3)
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    n, p = _scalar_counts(N, P)
    n_draws = check_count(n_draws, "n_draws")
    if n_draws < 2:
        raise ValueError(f"n_draws must be >= 2 (a standard error needs two draws); got {n_draws}.")
    if p > n // 2 and n > 50_000_000:
        raise ValueError(
            f"drawing rankings with P > N/2 costs O(N) each; N={n} is too large for Monte Carlo."
        )
    if curve and p > 10**6:
        raise ValueError(f"curve=True keeps 32 x P sums; P={p} is too large (limit 10**6).")
    if seed is None:
        seed = DEFAULT_SEED  # fixed: the same call gives the same number
    seed = check_count(seed, "seed")
    n_chunks = min(n_draws, 32)
    shape = (n_chunks, p) if curve else (n_chunks, 1)
    csum = np.zeros(shape)
    csq = np.zeros(shape)
    out = np.empty(n_draws)
    _kernels_curve.interpolated_ap_draws(
        np.uint64(seed % 2**64), n_draws, n, p, out, csum, csq, bool(curve)
    )
    mean = float(out.mean())
    se = float(out.std(ddof=1) / math.sqrt(n_draws))
    if not curve:
        return NullInterpolatedAP(mean, se, n_draws, seed, n, p)
    s1 = csum.sum(axis=0)
    s2 = csq.sum(axis=0)
    prec = s1 / n_draws
    var = np.maximum(s2 - n_draws * prec * prec, 0.0) / (n_draws - 1)
    recall = np.arange(1, p + 1, dtype=np.float64) / p
    return NullInterpolatedAP(mean, se, n_draws, seed, n, p, recall, prec, np.sqrt(var / n_draws))
