"""The method names of the p-value and the default rule, ``method="auto"``.

One rule, used by every entry point (:func:`pranker.pranker`,
:func:`pranker.significance_from_ap`, :func:`pranker.pranker_many`, the
out-of-core and Dask versions and the command line), so that the same
ranking gets the same p-value everywhere. It depends on N and P only.
"""

from __future__ import annotations

import math

from .._validation import check_count_pair, check_counts
from ..null.distributions import (
    BetaNull,
    ExactNull,
    MonteCarloNull,
    NullDistribution,
    SaddlepointNull,
    SkewBetaNull,
    TiltNull,
)
from ..null.tilt import DEFAULT_RTOL

__all__ = ["METHODS", "auto_method", "make_null"]

METHODS = ("auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta")

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


def _check_method(method) -> str:
    if method is None:
        return "auto"
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    return method


def make_null(n: int, n_pos: int, method: str = "auto", *, params=None, n_draws=None, seed=None,
              alpha=None, max_nodes=None, progress=False, rtol=None) -> NullDistribution:
    """The :class:`~pranker.null.distributions.NullDistribution` that ``method`` names for (N, P).

    ``"auto"`` resolves by :func:`auto_method`. Options not used by the
    chosen method are ignored.
    """
    n, n_pos = check_count_pair(n, n_pos)
    method = _check_method(method)
    if method == "auto":
        method = auto_method(n, n_pos)
    if method == "exact":
        null = ExactNull(n, n_pos, max_nodes=max_nodes)
    elif method == "tilt":
        cells = n_pos * (n - n_pos + 1)
        if cells > TILT_MAX_CELLS and 1 < n_pos < n:
            raise ValueError(
                f"method='tilt' would store P (N - P + 1) = {cells:.3g} prefix sums "
                f"({8 * cells / 1e9:.3g} GB) for N={n}, P={n_pos}; the limit is "
                f"{TILT_MAX_CELLS:.0e}. Use method='saddlepoint' (no storage) or 'auto'."
            )
        null = TiltNull(n, n_pos, rtol=DEFAULT_RTOL if rtol is None else rtol, seed=seed)
    elif method == "saddlepoint":
        null = SaddlepointNull(n, n_pos, seed=seed)
    elif method == "montecarlo":
        null = MonteCarloNull(n, n_pos, n_draws=100_000 if n_draws is None else n_draws, seed=seed,
                              alpha=alpha, progress=progress)
    elif method == "beta":
        null = BetaNull(n, n_pos, params=params)
    else:
        null = SkewBetaNull(n, n_pos)
    if params is not None and method != "beta":
        null._moments = params
    return null
