"""The null distribution of AP under random ranking.

- :mod:`pranker.null.moments`: exact mean and variance in O(1)
  (:func:`null_params`), the smallest possible AP, random null draws;
- :mod:`pranker.null.tilt`: the exact cumulant generating function and the
  exactly tilted sampler behind tail p-values;
- :mod:`pranker.null.distributions`: every null (R's beta, the three-moment
  beta, exact, Monte Carlo, saddlepoint, tilt) behind one interface.
"""

from .moments import NullParams, min_auprc, null_ap_samples, null_params

__all__ = ["NullParams", "null_params", "min_auprc", "null_ap_samples"]
