"""The top two positives' placements that reach a threshold, counted in closed form.

Given the offset ``d_3`` of the third positive, the top two sit at offsets
``0 <= d_1 <= d_2 <= d_3`` and add ``T = 1/(1 + d_1) + 2/(2 + d_2)`` to
S = P * AP. The tilted estimator (:mod:`pranker._numba.tilt`, "the top two
positives summed out") needs, for each draw, how many placements reach
``thr - R``: :func:`count_top_two`, exact at attainable thresholds, reading
the two terms from :func:`top_two_terms` (a table lookup in place of a
division: the same numbers, and the count 1.3-1.6 times faster).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["count_top_two", "top_two_terms"]


@njit(cache=True)
def top_two_terms(D):
    """``(f1, f2)`` with ``f1[d] = 1 / (1 + d)`` and ``f2[d] = 2 / (2 + d)``, d = 0..D: the two
    terms of the top positives' part of S, computed as the definition writes them (each a
    correctly rounded division, so a lookup gives the same bits as the division)."""
    f1 = np.empty(D + 1)
    f2 = np.empty(D + 1)
    for d in range(D + 1):
        f1[d] = 1.0 / (1.0 + d)
        f2[d] = 2.0 / (2.0 + d)
    return f1, f2


@njit(cache=True, inline="always")
def _n_first(a, strict):
    """How many ``d_1 >= 0`` have ``1 / (1 + d_1) >= a`` (``> a`` if ``strict``); 2^62 if all."""
    if a <= 0.0:
        return 4.611686018427388e18
    x = 1.0 / a
    return math.ceil(x) - 1.0 if strict else math.floor(x)


_FIRST_LOOP_MAX = 256  # count_top_two loops over d_1 when that takes at most this many steps


@njit(cache=True, inline="always")
def _reaches(d1, d2, t, strict, f1, f2):
    """Whether ``1/(1 + d1) + 2/(2 + d2)`` reaches ``t`` (exceeds it, if ``strict``)."""
    v = f1[d1] + f2[d2]
    return v > t if strict else v >= t


@njit(cache=True)
def count_top_two(t, D, strict, f1, f2):
    r"""``#{0 <= d_1 <= d_2 <= D : 1/(1 + d_1) + 2/(2 + d_2) >= t}`` (``> t`` if ``strict``), as a float.

    The sum falls in ``d_1`` and in ``d_2``. If it reaches ``t`` at ``d_1 =
    d_2 = D`` every placement counts; if not at ``d_1 = d_2 = 0`` none does.
    Otherwise the ``d_1`` for which every ``d_2 <= D`` counts are a prefix
    ``0 .. n_0 - 1`` (``n_0`` near ``1 / (t - 2/(2 + D))``), summed in closed
    form; each later ``d_1``, while the sum at ``d_2 = d_1`` still reaches
    ``t``, counts the ``d_2`` up to ``floor(2 / (t - 1/(1 + d_1)) - 2)``. Each
    boundary from a closed form is moved by whole steps until the sum itself,
    computed as the definition writes it, decides (exact at attainable
    thresholds too). That loop has about ``3/t - n_0`` steps, 2-40 where the
    tilted draws put ``t``; where it would take more than
    :data:`_FIRST_LOOP_MAX`, the runs of :func:`_count_top_two_runs`.
    ``(f1, f2)``: the terms from :func:`top_two_terms` of at least ``D``.
    """
    if _reaches(D, D, t, strict, f1, f2):
        return 0.5 * (D + 1.0) * (D + 2.0)
    if not _reaches(0, 0, t, strict, f1, f2):
        return 0.0
    # n0: the first d1 whose placements do not all count (the sum at d2 = D falls short)
    b = t - f2[D]
    g = 1.0 / b - 1.0 if b > 0.0 else float(D)
    n0 = D if g >= D else max(int(g), 0)
    while n0 > 0 and not _reaches(n0 - 1, D, t, strict, f1, f2):
        n0 -= 1
    while n0 < D and _reaches(n0, D, t, strict, f1, f2):
        n0 += 1
    # the last d1 with any placement: the sum at d2 = d1 is about 3 / (1 + d1)
    if 3.0 / t - n0 > _FIRST_LOOP_MAX:
        return _count_top_two_runs(t, D, strict, f2)
    total = n0 * (D + 1.0) - 0.5 * n0 * (n0 - 1.0)
    d1 = n0
    while d1 <= D and _reaches(d1, d1, t, strict, f1, f2):
        a = t - f1[d1]
        x = 2.0 / a - 2.0 if a > 0.0 else float(D)
        hi = D if x >= D else max(int(x), d1)
        while hi < D and _reaches(d1, hi + 1, t, strict, f1, f2):
            hi += 1
        while hi > d1 and not _reaches(d1, hi, t, strict, f1, f2):
            hi -= 1
        total += hi - d1 + 1.0
        d1 += 1
    return total


@njit(cache=True)
def _count_top_two_runs(t, D, strict, f2):
    r""":func:`count_top_two` by runs of ``d_2`` (for thresholds ``t`` so small that the loop
    over ``d_1`` would be long).

    The top two positives' part of S over their placements below ``d_3 = D``.
    For fixed ``d_2`` the ``d_1`` that qualify are a prefix ``0 .. n - 1``
    with ``n = floor(1 / a)``, ``a = t - 2/(2 + d_2)`` (``ceil(1/a) - 1``
    when strict), capped at ``d_2 + 1``. As ``d_2`` grows, ``a`` grows, so
    ``n`` falls: first a run of ``d_2`` where every ``d_1`` qualifies
    (``sum (d_2 + 1)`` in closed form), then runs of equal ``n``; the end of
    each run is found by galloping and bisection on that monotone property,
    so the cost is ``O(runs log D)``, not ``O(D)``.
    """
    total = 0.0
    x = 0
    while x <= D:
        n = _n_first(t - f2[x], strict)
        if n <= 0.0 and n < x + 1.0:
            break  # n never grows again
        everyone = n >= x + 1.0  # the run where all d_1 <= d_2 qualify
        # the last y in [x, D] where the run's property holds (it holds at x, a prefix):
        # everyone: n(y) >= y + 1; otherwise n(y) >= n (then n(y) == n)
        lo = x
        hi = D + 1  # sentinel: the property fails past D
        step = 1
        while True:
            y = lo + step
            if y > D:
                break
            ny = _n_first(t - f2[y], strict)
            if (ny >= y + 1.0) if everyone else (ny >= n):
                lo = y
                step <<= 1
            else:
                hi = y
                break
        while hi - lo > 1:
            y = (lo + hi) >> 1
            ny = _n_first(t - f2[y], strict)
            if (ny >= y + 1.0) if everyone else (ny >= n):
                lo = y
            else:
                hi = y
        if everyone:
            total += 0.5 * ((lo + 1.0) * (lo + 2.0) - x * (x + 1.0))
        else:
            total += n * (lo - x + 1.0)
        x = lo + 1
    return total
