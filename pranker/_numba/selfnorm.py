r"""The self-normalized mean of weighted draws and its standard error, in one pass.

Importance sampling from a proposal known only up to the weights of a few
components (the sizes of a bin sharing draws, :mod:`pranker.null.tilt_shared`)
estimates ``R = sum_i w_i c_i / sum_i w_i``. Its delta-method variance is
``sum_i w_i^2 (c_i - R)^2 / (sum_i w_i)^2`` (Owen 2013, *Monte Carlo theory,
methods and examples*, ch. 9), which is the variance of the mean of the
linearized values ``y_i = w_i (c_i - R) n / sum(w) + R`` (their mean is R):
:func:`selfnorm_summary` returns the mean and the population standard
deviation of those y without forming them.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["selfnorm_summary"]


@njit(cache=True)
def selfnorm_summary(c, top, inv, base, last):
    """``(total weight, R, sd of the linearized values)`` of contributions ``c``.

    Draw i's weight is ``inv[top[i] - base]`` (``inv[0]`` below ``base``),
    and 0 beyond ``inv[last]`` (``top`` the offset of the draw's last
    positive; ``last`` the size whose tail is estimated). With no weight at
    all, ``(0, 0, 0)``.
    """
    n = c.shape[0]
    # compensated (Neumaier) sums: the mean is as accurate as numpy's pairwise sum, whatever n
    total = 0.0
    total_c = 0.0
    acc = 0.0
    acc_c = 0.0
    for i in range(n):
        k = top[i] - base
        w = 0.0 if k > last else inv[k if k > 0 else 0]
        x = total + w
        total_c += (total - x) + w if abs(total) >= abs(w) else (w - x) + total
        total = x
        v = w * c[i]
        x = acc + v
        acc_c += (acc - x) + v if abs(acc) >= abs(v) else (v - x) + acc
        acc = x
    total += total_c
    acc += acc_c
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    r = acc / total
    sq = 0.0
    for i in range(n):
        k = top[i] - base
        w = 0.0 if k > last else inv[k if k > 0 else 0]
        dev = w * (c[i] - r)
        sq += dev * dev
    # y_i - R = w_i (c_i - R) n / total; their mean is 0
    return total, r, math.sqrt(sq / n) * n / total
