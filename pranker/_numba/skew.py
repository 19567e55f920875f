"""Kernel of the third central moment of the null AP (a dynamic programme over placements).

The algorithm is described in :mod:`pranker.null.skewbeta`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_DROP = 1e-40  # states with probability below this are dropped (effect < 1e-25 relative)


@njit(cache=True)
def _central_moments_dp(N, P, mu_x):
    """(E[(X-mu)^2], E[(X-mu)^3]) for X = P * AP under random ranking, O(N P).

    Only states s with P(S_i = s) >= _DROP are kept (a window of width
    O(sqrt(P)) around i P / N), which also keeps subnormal numbers out.
    """
    w = np.zeros(P + 2)
    m1 = np.zeros(P + 2)
    m2 = np.zeros(P + 2)
    m3 = np.zeros(P + 2)
    w[0] = 1.0
    m1[0] = -mu_x
    m2[0] = mu_x * mu_x
    m3[0] = -mu_x * mu_x * mu_x
    fP = float(P)
    lo = 0
    hi = 0
    for i in range(1, N + 1):
        rem = float(N - i + 1)
        fi = float(i)
        # new state t from old t (no positive at i) and old t-1 (positive at i);
        # descending t reads old values only; states outside [lo, hi] hold zeros.
        top = min(hi + 1, P)
        for t in range(top, lo - 1, -1):
            stay = 1.0 - (fP - t) / rem
            if t >= 1 and t - 1 >= lo:
                q = (fP - t + 1.0) / rem
                a = t / fi
                ws = w[t - 1]
                a1 = m1[t - 1]
                a2 = m2[t - 1]
                a3 = m3[t - 1]
                w[t] = stay * w[t] + q * ws
                m1[t] = stay * m1[t] + q * (a1 + a * ws)
                m2[t] = stay * m2[t] + q * (a2 + a * (2.0 * a1 + a * ws))
                m3[t] = stay * m3[t] + q * (a3 + a * (3.0 * a2 + a * (3.0 * a1 + a * ws)))
            else:
                w[t] *= stay
                m1[t] *= stay
                m2[t] *= stay
                m3[t] *= stay
        hi = top
        while hi > lo and w[hi] < _DROP:
            w[hi] = 0.0
            m1[hi] = 0.0
            m2[hi] = 0.0
            m3[hi] = 0.0
            hi -= 1
        while lo < hi and w[lo] < _DROP:
            w[lo] = 0.0
            m1[lo] = 0.0
            m2[lo] = 0.0
            m3[lo] = 0.0
            lo += 1
    return m2[P], m3[P]
