r"""Third moment of the null AP and a three-moment (skew-matched) beta approximation.

Third central moment
--------------------
With ``X = P * AP = sum_i y_i S_i / i`` (``S_i`` = positives among the first
i positions), walk the positions i = 1..N. Given ``S_{i-1} = s``, position i
holds a positive with probability ``(P - s) / (N - i + 1)`` (sampling without
replacement), which adds ``(s + 1) / i`` to X. Carrying, for every s, the
probability ``w_s = P(S_i = s)`` and the partial moments
``M_m[s] = E[(X_i - E X)^m ; S_i = s]`` for m = 1, 2, 3 (X_i the partial sum),
the binomial expansion of ``(Y + a)^m`` updates them exactly:

    M_1 += a w,  M_2 += 2 a M_1 + a^2 w,  M_3 += 3 a M_2 + 3 a^2 M_1 + a^3 w

on the move s -> s + 1. Starting from ``X_0 - E X = -E X`` (the exact mean is
O(1)) the final ``M_m[P]`` are the central moments of X. This is the exact
moment (no truncation), computed in O(N P) operations in float64; it is checked
against enumeration in exact fractions and against the closed-form variance
of :mod:`pranker.null`, which it reproduces to ~1e-12 relative on the
calibration grid. A closed form in H_N, H_N^(2), H_N^(3) (as the variance
has) was not derived; the O(N P) sum costs ~0.3 s at N = 1e5, P = 1000 and is
refused above ``THIRD_MOMENT_MAX_WORK`` (N * P = 2e9).

Three-moment beta
-----------------
The two-moment beta of Lopes & Bontempi fixes the support to ``[a, 1]`` with
``a = min_auprc(N, P)``. For small P the null AP has an atom-like lower
region of tiny probability near ``a`` and a long right tail, and a beta with
that support cannot match the skewness; its upper tail is then off. The
three-moment fit keeps the upper end at 1 (the true maximum) and frees the
lower end L: it finds L such that the beta on ``[L, 1]`` matched to the exact
mean and variance also has the exact skewness. For a beta(alpha, beta),

    skew = 2 (beta - alpha) sqrt(alpha + beta + 1) / ((alpha + beta + 2) sqrt(alpha beta)),

which is monotone along the family of moment-matched betas as L moves, so a
bracketing root search in ``L`` (Brent) solves it. When no L in range
matches (rare; skewness beyond what a beta with upper end 1 can reach) the
two-moment fit is returned and ``method`` says so.

References
----------
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
K. Pearson, "Contributions to the mathematical theory of evolution II: skew
variation in homogeneous material", Phil. Trans. R. Soc. A 186 (1895)
(moment fitting of the type I / beta curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import optimize, stats

from . import _kernels
from ._validation import check_counts

__all__ = ["null_third_moment", "null_skewness", "SkewBetaFit", "skew_beta_fit"]

THIRD_MOMENT_MAX_WORK = 2_000_000_000


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
