"""The method names of the p-value and the default rule, ``method="auto"``.

One rule, used by every entry point (:func:`pranker.pranker`,
:func:`pranker.significance_from_ap`, :func:`pranker.pranker_many`, the
out-of-core and Dask versions and the command line), so that the same
ranking gets the same p-value everywhere. It depends on N and P only.
"""

from __future__ import annotations

from .._validation import check_count_pair
from ..null.choice import DEFAULT_MC_DRAWS, DEFAULT_RTOL, auto_method
from ..null.distributions import (
    BetaNull,
    ExactNull,
    MonteCarloNull,
    NullDistribution,
    SaddlepointNull,
    SkewBetaNull,
    TiltNull,
)

__all__ = ["METHODS", "auto_method", "make_null"]  # auto_method: re-exported from the null layer

METHODS = ("auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta")


def _check_method(method) -> str:
    if method is None:
        return "auto"
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    return method


def make_null(
    n: int,
    n_pos: int,
    method: str = "auto",
    *,
    params=None,
    n_draws=None,
    seed=None,
    alpha=None,
    max_nodes=None,
    progress=False,
    rtol=None,
) -> NullDistribution:
    """The :class:`~pranker.null.distributions.NullDistribution` that ``method`` names for (N, P).

    ``"auto"`` resolves by :func:`auto_method`. Options not used by the
    chosen method are ignored.
    """
    n, n_pos = check_count_pair(n, n_pos)
    method = _check_method(method)
    if method == "auto":
        method = auto_method(n, n_pos)
    if method == "exact":
        null: NullDistribution = ExactNull(n, n_pos, max_nodes=max_nodes)
    elif method == "tilt":
        null = TiltNull(
            n, n_pos, rtol=DEFAULT_RTOL if rtol is None else rtol, seed=seed, progress=progress
        )
    elif method == "saddlepoint":
        null = SaddlepointNull(n, n_pos, seed=seed)
    elif method == "montecarlo":
        null = MonteCarloNull(
            n,
            n_pos,
            n_draws=DEFAULT_MC_DRAWS if n_draws is None else n_draws,
            seed=seed,
            alpha=alpha,
            progress=progress,
        )
    elif method == "beta":
        null = BetaNull(n, n_pos, params=params)
    else:
        null = SkewBetaNull(n, n_pos)
    if params is not None and method != "beta":
        null._moments = params
    return null
