"""The upper tail of a smaller size from the draws of a larger one (neighbouring sizes share draws).

:class:`SharedSizes` holds the part of :class:`pranker.null.tilt.TiltEngine`
that estimates the tail of (N_t, P), ``N_t <= N``, from the engine's own
draws of (N, P): the mixture over the bin's sizes the draws come from, each
draw's weight for N_t, and the CGF of N_t read off the engine's layers.
The derivation is in :meth:`pranker.null.tilt.TiltEngine._contributions`;
where it applies, :func:`pranker.null.choice.tilt_shared_bin`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._numba.selfnorm import selfnorm_summary
from .._numba.tilt import block_len
from .budget import DrawSummary
from .choice import REL_TOL, tilt_shared_bin
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

        def _split_entry(
            self, j, s, thr, upper, k0, M, n, mixed
        ) -> tuple[float, np.ndarray, np.ndarray]: ...

    def _shared_contributions(self, s, j, n, upper, estimate, rtol, target):
        """:meth:`_contributions` for the upper tail of (``target``, P), ``target <= N`` (see there).

        The draws come from the bin's mixture (:meth:`_mixture`); each counts
        for N_t with the weight :meth:`_weight_table` gives it, and the
        estimate is their self-normalized mean, summarized with its
        delta-method standard error in one pass
        (:func:`pranker._numba.selfnorm.selfnorm_summary`).
        """
        if not (upper and self.P >= 3 and self.P < target <= self.N):
            raise ValueError(
                f"shared draws serve the upper tail of P < N_t <= {self.N} with P >= 3; "
                f"got N_t = {target}, P = {self.P}, upper = {upper}"
            )
        phi = self.grid_phi(j)
        thr = s * (1.0 - REL_TOL)
        if j == 0:  # untilted: the weighted share of hits (near the mean)
            S0, top0 = self._plain_draws(n)
            if not estimate:
                return None
            hits = (S0 >= thr).astype(np.float64)
            return 0.0, self._summary(j, target, hits, top0)
        k0, M = self._shared_plan(j, rtol)
        _, w, top = self._split_entry(j, s, thr, True, k0, M, n, True)
        if not estimate:
            return None
        return self._target_cgf(j, target) - phi * s, self._summary(j, target, w[:n], top[:n])

    def _summary(self, j: int, target: int, c: np.ndarray, top: np.ndarray) -> DrawSummary:
        """The self-normalized mean of the contributions ``c`` for N_t and its spread, as the
        draw loop reads them: the mean and standard deviation of the linearized values (see
        :mod:`pranker._numba.selfnorm`; none while no draw counts)."""
        inv = self._weight_table(j)
        # the sizes are consecutive: offset d weighs inv[d - m_0] (inv[0] up to m_0), nothing
        # beyond N_t's own offset
        m0 = self.N - self.P - inv.size + 1
        total, r, sd = selfnorm_summary(c, top, inv, m0, target - self.P - m0)
        if total <= 0.0:
            return DrawSummary(0, 0.0, 0.0, False)
        return DrawSummary(int(c.size), r, sd, sd == 0.0)

    def _mixture(self) -> tuple[np.ndarray, np.ndarray]:
        """``(cw, ms)``: the last positive's mixture for the sizes of this engine's bin.

        Component i is the tilted law of N truncated to ``d_P <= ms[i] = N_i -
        P`` (that of N_i, for every N_i of the bin, ascending), with weight
        ``w_i`` (``cw`` their running sum). With ``x = P log(N / N_i)`` (0 at
        the top, ``X`` at the bottom) the weights put a mass ``1 / (2 + X)``
        on each end and spread the rest evenly in x. Near the bulk, where the
        last positive's offset has ``P(d_P <= N_i - P) ~ e^{-x}``, that
        mixture makes the self-normalized estimator's variance for every N_i
        ``(1 + X / 2)`` times that of N_i's own draws (the minimax choice:
        it equalizes the factor over the bin), against ``e^x`` when only
        the top size is drawn — up to ``e^X`` (7.4 at X = 2) for the bin's
        smallest size.
        """
        mix = self._draws.get("mixture")
        if mix is None:
            bin_ = tilt_shared_bin(self.N, self.P)
            if bin_ is None or bin_[1] != self.N:
                raise ValueError(f"N = {self.N} is not the top of a shared bin for P = {self.P}")
            sizes = np.arange(bin_[0], self.N + 1, dtype=np.float64)
            x = self.P * np.log(self.N / sizes)  # descending, x[-1] = 0
            width = np.zeros(sizes.size)  # the length of x each size stands for
            if sizes.size > 1:
                gaps = -np.diff(x)
                width[:-1] += gaps / 2.0
                width[1:] += gaps / 2.0
            width[0] += 1.0
            width[-1] += 1.0
            cw = np.cumsum(width / width.sum())
            cw[-1] = 1.0
            mix = (cw, (sizes - self.P).astype(np.int64))
            self._draws["mixture"] = mix
        return mix

    def _weight_table(self, j: int) -> np.ndarray:
        r"""``omega`` by the bin's sizes: a draw whose last positive has offset d, ``m_{i-1} < d
        <= m_i``, weighs ``omega[i]`` at grid point j for each size N_t with ``m_t >= m_i``
        (``omega[0]`` for d up to ``m_0``), and nothing for the smaller ones.

        The mixture's law is ``Q(x) = q(x) g(d_P)``, q the tilted law of N and
        ``g(d) = sum_i w_i 1\{d <= m_i\} Z / Z_i`` (``Z_i`` the tilted sum of
        N_i, the last layer's prefix sum at ``m_i``). N_t's own tilted law is
        ``q_t = q 1\{d_P <= m_t\} Z / Z_t``, so ``q_t / Q = 1\{d_P <= m_t\}
        Z / (Z_t g(d_P))``, proportional to ``1\{d_P <= m_t\} / A(d_P)``
        with ``A(d) = sum_{i: m_i >= d} w_i Z / Z_i`` (each term at least
        its weight, so nothing overflows). One table per grid point serves
        every size of the bin (a bin of P = 3 holds up to 10,922 sizes).
        """
        key = ("omega", j)
        inv = self._draws.get(key)
        if inv is None:
            cw, _ = self._mixture()
            w = np.diff(cw, prepend=0.0)
            lam = self._bin_log_z(j)
            inv = 1.0 / np.cumsum((w * np.exp(lam[-1] - lam))[::-1])[::-1]
            self._draws[key] = inv
        return inv

    def _bin_log_z(self, j: int) -> np.ndarray:
        """``log Z_i`` of the bin's sizes at ``phi_j`` (ascending, up to the layers' common
        shift): the last layer's prefix sums at their offsets ``N_i - P`` (cached per point).

        The last layer's prefix sum at offset ``d`` sums ``e^{phi (S - c)}``
        over the subsets of ``P + d`` items (:func:`pranker._numba.tilt.log_prefix_many`,
        here read in numpy: no kernel to compile on a first call).
        """
        key = ("logZ", j)
        lam = self._draws.get(key)
        if lam is None:
            _, ms = self._mixture()
            _, (T, C0, C1, scale) = self._layers_at(j)
            b = ms // block_len.py_func(self.P)
            P = self.P
            lam = scale[b] + np.log(C0[P - 1, b] + C1[P - 1, b] * T[P - 1, ms])
            self._draws[key] = lam
        return lam

    def _shared_plan(self, j: int, rtol: float) -> tuple[int, int]:
        """The ``(k0, M)`` of shared sizes: the top two summed out, no splitting and no pilot.

        These are small problems (at most ``SHARED_SIZES_MAX_CELLS`` cells):
        at the per-query sizes (N = 900-1,100, P = 5-50) the pilot kept the
        plain plan at 96 % of the grid points, and its 512 draws per
        candidate cost more than splitting saved at the others.
        """
        return (2, 1)

    def _target_cgf(self, j: int, target: int) -> float:
        """``K_{N_t}(phi_j)`` of (``target``, P), read from grid point j's layers at ``d = N_t - P``
        (:meth:`_bin_log_z`)."""
        key = ("K", j, target)
        k = self._draws.get(key)
        if k is None:
            # (cell 0 has no offset: _shared_contributions answers it without asking)
            lam = self._bin_log_z(j)
            log_g = float(lam[target - self.N + lam.size - 1])
            k = log_g - log_comb(target, self.P) + self.grid_phi(j) * self.mean_s
            self._draws[key] = k
        return k
