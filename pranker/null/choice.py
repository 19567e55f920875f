"""Which null the default, ``method="auto"``, uses for N instances and P positives.

The rule lives with the null distributions so that
:func:`pranker.null_distribution` and every test of significance (through
:mod:`pranker.significance.auto`) resolve ``"auto"`` the same way. It depends
on N and P only, never on the observed AP.
"""

from __future__ import annotations

import math

from .._validation import check_counts

__all__ = ["AUTO_EXACT_PLACEMENTS", "DEFAULT_MC_DRAWS", "TILT_MAX_CELLS", "auto_method"]

# Random rankings drawn by a plain Monte Carlo null when the caller does not say how
# many: one number for every entry point (null_params, montecarlo_pvalue,
# MonteCarloNull and method="montecarlo" everywhere).
DEFAULT_MC_DRAWS = 100_000


# --- the "auto" rule ---------------------------------------------------------
# Exact when the tail count is instant: C(N, P) placements at most this many
# (the count visits at most all of them; ~0.04 s), or P = 1, or P = N.
AUTO_EXACT_PLACEMENTS = 1_000_000
# The tilt stores P (N - P + 1) prefix sums (8 bytes each): up to 3.2 GB.
TILT_MAX_CELLS = 400_000_000
# Beyond the tilt's memory "auto" uses Monte Carlo, not the saddlepoint: measured
# against the tilt at N = 1e6, P = 300 (AP 0.0007, true p = 2.5e-3) Lugannani-Rice
# was off by 1.2 orders of magnitude; with many items per positive the null is too
# skewed for it (see the calibration study).


def auto_method(N: int, P: int) -> str:
    """The method ``method="auto"`` uses for N instances and P positives.

    - ``"exact"`` when P = 1, P = N or C(N, P) <= 1e6 (the tail count is then
      instant);
    - ``"tilt"`` (the exact-tilt estimator, 2 % relative standard error) when
      its P (N - P + 1) stored prefix sums fit in 3.2 GB (N P up to ~4e8);
    - ``"montecarlo"`` beyond, with its interval: it resolves p-values down
      to about 1e-5 only, and says so. (The saddlepoint, which needs no
      storage, is off by more than an order of magnitude for some such (N,
      P); it is available as ``method="saddlepoint"``.)

    The rule depends on (N, P) only, never on the observed AP, so every
    entry point gives the same answer for the same ranking.

    Parameters
    ----------
    N, P : int
        Number of instances and of positives, ``1 <= P <= N``.

    Returns
    -------
    str
        ``"exact"``, ``"tilt"`` or ``"montecarlo"``.

    See Also
    --------
    pranker.pranker : Uses this rule for ``method="auto"``.
    pranker.null_distribution : Builds the null for any method by name.

    Examples
    --------
    >>> auto_method(20, 5), auto_method(10**4, 1), auto_method(10**5, 30)
    ('exact', 'exact', 'tilt')
    >>> auto_method(10**6, 300), auto_method(10**7, 10**4)
    ('tilt', 'montecarlo')
    """
    (n_arr, p_arr, _) = check_counts(N, P)
    n, p = int(n_arr[0]), int(p_arr[0])
    if p == 1 or p == n or math.comb(n, p) <= AUTO_EXACT_PLACEMENTS:
        return "exact"
    if p * (n - p + 1) <= TILT_MAX_CELLS:
        return "tilt"
    return "montecarlo"
