"""The null distribution of AP under random ranking.

- :mod:`pranker.null.choice`: the plan of ``method="auto"`` (which method,
  on what, with which error bound, for every N, P and threshold) and every
  default of the layer;
- :mod:`pranker.null.base`: the interface every null answers to;
- :mod:`pranker.null.distributions`: every null by name (R's beta, the
  three-moment beta, exact, Monte Carlo, saddlepoint, tilt), each living
  with its engine in :mod:`~pranker.null.beta`, :mod:`~pranker.null.skewbeta`,
  :mod:`~pranker.null.exact`, :mod:`~pranker.null.montecarlo`,
  :mod:`~pranker.null.saddlepoint` and :mod:`~pranker.null.tilt`;
- :mod:`pranker.null.cgf`: the cumulant generating function on the exact
  layers and on compressed knots, and its saddle point;
- :mod:`pranker.null.moments`: exact mean and variance in O(1)
  (:func:`null_params`), the smallest possible AP, random null draws.
"""

from .moments import NullParams, min_auprc, null_ap_samples, null_params

__all__ = ["NullParams", "null_params", "min_auprc", "null_ap_samples"]
