"""The upper tail of a smaller size from the draws of a larger one (neighbouring sizes share draws).

:class:`SharedSizes` holds the part of :class:`pranker.null.tilt.TiltEngine`
that estimates the tail of (N_t, P), ``N_t <= N``, from the engine's own
draws of (N, P): which draws count, and the CGF of N_t read off the
engine's layers. The derivation is in
:meth:`pranker.null.tilt.TiltEngine._contributions`; where it applies,
:func:`pranker.null.choice.tilt_shared_n`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._numba.tilt import block_len
from .choice import REL_TOL
from .logspace import log_comb

__all__ = ["SharedSizes"]


class SharedSizes:
    """Mixed into :class:`pranker.null.tilt.TiltEngine` (which provides the draws and layers)."""

    # what TiltEngine provides
    N: int
    P: int
    mean_s: float
    _draws: dict
    if TYPE_CHECKING:

        def grid_phi(self, j: float) -> float: ...

        def _layers_at(self, j: int) -> tuple[float, Any]: ...

        def _plain_draws(self, n: int) -> tuple[np.ndarray, np.ndarray]: ...

        def _split_entry(self, j, s, thr, upper, k0, M, n, m_t) -> tuple[float, np.ndarray]: ...

    def _shared_contributions(self, s, j, n, upper, estimate, rtol, target):
        """:meth:`_contributions` for the upper tail of (``target``, P), ``target <= N`` (see there).

        Only the draws whose last positive lies within ``target`` count, as
        draws of its own tilted law.
        """
        if not (upper and self.P >= 3 and self.P < target <= self.N):
            raise ValueError(
                f"shared draws serve the upper tail of P < N_t <= {self.N} with P >= 3; "
                f"got N_t = {target}, P = {self.P}, upper = {upper}"
            )
        m_t = target - self.P  # the largest offset of the last positive within N_t
        phi = self.grid_phi(j)
        thr = s * (1.0 - REL_TOL)
        if j == 0:  # untilted: the share of hits among the draws within N_t (near the mean)
            S0, top0 = self._plain_draws(n)
            if not estimate:
                return None
            return 0.0, (S0[top0 <= m_t] >= thr).astype(np.float64)
        k0, M = self._shared_plan(j, rtol)
        _, w = self._split_entry(j, s, thr, True, k0, M, n, m_t)
        if not estimate:
            return None
        return self._target_cgf(j, target) - phi * s, w[:n][~np.isnan(w[:n])]

    def _shared_plan(self, j: int, rtol: float) -> tuple[int, int]:
        """The ``(k0, M)`` of shared sizes: the top two summed out, no splitting and no pilot.

        These are small problems (at most ``SHARED_SIZES_MAX_CELLS`` cells):
        at the per-query sizes (N = 900-1,100, P = 5-50) the pilot kept the
        plain plan at 96 % of the grid points, and its 512 draws per
        candidate cost more than splitting saved at the others.
        """
        return (2, 1)

    def _target_cgf(self, j: int, target: int) -> float:
        """``K_{N_t}(phi_j)`` of (``target``, P), read from grid point j's layers at ``d = N_t - P``.

        The last layer's prefix sum at offset ``d`` sums ``e^{phi (S - c)}``
        over the subsets of ``P + d`` items (:func:`pranker._numba.tilt.log_prefix_many`,
        here one entry read in numpy: no kernel to compile on a first call).
        """
        key = ("K", j, target)
        k = self._draws.get(key)
        if k is None:
            if j == 0:
                k = 0.0
            else:
                _, (T, C0, C1, scale) = self._layers_at(j)
                d = target - self.P
                b = d // block_len.py_func(self.P)  # plain Python: no kernel to compile
                log_g = float(scale[b]) + math.log(
                    float(C0[self.P - 1, b]) + float(C1[self.P - 1, b]) * float(T[self.P - 1, d])
                )
                k = log_g - log_comb(target, self.P) + self.grid_phi(j) * self.mean_s
            self._draws[key] = k
        return k
