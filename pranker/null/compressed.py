r"""The compressed tilted proposal: the tail engine in memory that does not grow with N P.

The exact-tilt engine (:mod:`pranker.null.tilt`) stores ``P (N - P + 1)``
prefix sums per tilt. Importance sampling does not need them: it needs a
proposal that is close to the tilted law and whose probability of each draw
is known exactly. This module builds such a proposal on ``B`` knots per
layer — every offset below ``E``, then a geometric grid of ratio ``1 + eps``
(kernels and derivation in :mod:`pranker._numba.compressed`) — so the tables
take ``8 (P + 1) B`` bytes, with ``B`` about ``E + ln(N / E) / eps``: under
2,000 knots for any N up to 10^10 at ``eps = 1 %``.

The estimator
-------------
A draw ``d_2 .. d_P`` from the proposal ``Q`` has weight
``C(N, P)^{-1} / Q(d_2 .. d_P)``, and the first positive (with state-dependent
tilting, the first two) is integrated out exactly: ``#{d_1 <= d_2 : 1 / (1 + d_1) >= s - sum_{k >= 2} k / (k + d_k)}``
placements complete it to ``S >= s``. So

.. math::

    \hat p = \frac{1}{n} \sum_i \frac{c_i(s)}{C(N, P)\, Q(d^{(i)}_{2..P})},

unbiased whatever the knots (conditional Monte Carlo on top of importance
sampling; Asmussen & Glynn 2007, ch. V). The compressed CGF ``log Zhat -
log C(N, P)`` is biased (by about ``P^2 eps^2 / 16`` far in the tail): it
only chooses the tilt, through its slope, and is never an answer.

Memory
------
When ``8 (P + 1) B`` bytes exceed :data:`TABLE_BYTES`, only every ``c``-th
row is kept (``c = ceil(sqrt(P))``) and the rows between two kept rows are
recomputed while the draws pass through them, all draws together: memory
``8 (P / c + c) B`` bytes for one more forward pass per batch of draws.

References
----------
S. Asmussen and P. W. Glynn, Stochastic Simulation, Springer 2007.
J. Blanchet, K. Leder and P. W. Glynn, "Efficient simulation of light-tailed
sums: an old-folk song sung to a faster new tune", in Monte Carlo and
Quasi-Monte Carlo Methods 2008, Springer 2009.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._numba.compressed import (
    compressed_advance,
    compressed_cgf,
    compressed_knots,
    compressed_rows,
    draw_states,
    state_dependent_draws,
)
from .choice import MAX_CONTINUATIONS, WORK_KNOT_CELL, WORK_KNOT_STEP, WORK_SD_STEP

__all__ = ["CompressedProposal", "KNOT_START", "TABLE_BYTES", "knot_ratio", "tilt_grid"]

KNOT_START = 256  # every offset below this is a knot
TABLE_BYTES = 48 * 2**20  # rows kept whole up to this; checkpointed beyond (and the budget
# of the state-dependent tilts' tables)
SD_TILTS = 80  # tilts of the state-dependent proposal (fewer when their tables would not fit)
SD_MIN_TILTS = 8  # below this many, one fixed tilt instead
KC_SLACK = 10.0  # the state-dependent tilts serve layers 1 .. floor(2 s + KC_SLACK)
# the saddle search stops when |Khat'(phi) - s| is below this many tilted standard deviations
SADDLE_TOL = 0.02
# draws advanced through the upper layers per kernel call (about 0.3 s at P = 1e3 on two threads)
ADVANCE_DRAWS = 8192
_SD_LOW, _SD_HIGH = -3.0, 2.0  # span of the state-dependent tilts: phi* e^-3 .. phi* e^2


def handover_layer(s: float, P: int) -> int:
    """``kc = min(P, floor(2 s + KC_SLACK))``: the state-dependent tilts serve layers ``1 .. kc``.

    Above ``kc`` the positives follow the saddle tilt: S at least ``s``
    needs at most about ``2 s`` positives near the top.
    """
    return int(min(P, math.floor(2.0 * s + KC_SLACK)))


def tilt_grid(phi_star: float, J: int) -> np.ndarray:
    """``J`` increasing tilts from about ``phi_star e^-3`` to ``phi_star e^2``, ``phi_star`` among them.

    ``phi_j = phi_star e^{h (j - j0)}`` with ``h = 5 / (J - 1)`` and ``j0 =
    round(3 (J - 1) / 5)``; ``phis[j0]`` is ``phi_star`` exactly. Each
    state-dependent step picks the tilt that minimises ``f_k(phi) = log
    Ghat_k^phi(D) - phi R`` over the grid, and the log-weight gathers the
    differences ``f_k(new) - f_k(previous)``, all at most 0 when the tilt
    left behind is itself on the grid. The tilt left at the hand-over from
    the fixed-tilt layers is ``phi_star``: off the grid, the hand-over costs
    about ``Var(remaining sum | D) (delta phi)^2 / 2`` nats (measured at
    N = 1e8, P = 1e3, p = 1e-100: a variance per draw of 2,317 with
    ``phi_star`` between two tilts, 57-71 with it on the grid).
    """
    if J < 2:
        raise ValueError(f"tilt_grid: need at least 2 tilts, got J={J}.")
    h = (_SD_HIGH - _SD_LOW) / (J - 1)
    j0 = int(round(-_SD_LOW / h))
    phis = phi_star * np.exp(h * (np.arange(J) - j0))
    phis[j0] = phi_star
    return phis


def knot_ratio(P: int) -> float:
    """The knots' growth ``eps``: 1 % up to P = 1000, then ``0.01 (1000 / P)^(1/4)``.

    The log-linear interpolation errs by about ``k eps^2 / 8`` per layer, which
    would ask ``eps`` to shrink like ``1 / sqrt(P)``. Measured with the
    state-dependent proposal, the variance per draw hardly depends on the
    knots: at N = 1e5, P = 1000, p = 1e-31.5 it was 7.8 (E = 1024, eps = 1 %),
    8.0 (E = 128, 1 %), 9.7 (2 %) and 14.6 (4 %); at N = 1e6, P = 1e4,
    p = 1e-2, 3.1 with (128, 1 %) against 2.3 with (1024, 0.32 %), in 33 s
    against 79 s. The forward passes cost P B, so a slower shrinking is the
    better trade.
    """
    return 0.01 * min(1.0, (1000.0 / max(P, 1)) ** 0.25)


class CompressedProposal:
    """Knots, tables and draws of the compressed proposal for one (N, P).

    Parameters
    ----------
    N, P : int
        ``2 <= P < N``.
    log_comb : float
        ``log C(N, P)``.
    E : int, optional
        Offsets below ``E`` are knots (default :data:`KNOT_START`).
    eps : float, optional
        Growth of the knots above ``E`` (default :func:`knot_ratio`).
    """

    def __init__(self, N: int, P: int, log_comb: float, *, E: int | None = None, eps=None):
        self.N = int(N)
        self.P = int(P)
        self.M = self.N - self.P
        self.log_comb = float(log_comb)
        self.E = KNOT_START if E is None else int(E)
        self.eps = knot_ratio(self.P) if eps is None else float(eps)
        if self.E < 1 or not self.eps > 0.0:
            raise ValueError(f"need E >= 1 and eps > 0; got E={self.E}, eps={self.eps}.")
        self.x = compressed_knots(self.M, self.E, self.eps)
        self._tables: tuple[float, str, Any] | None = None  # (phi, kind, data)
        self._draws: dict = {}  # phi -> (lw, srest, d2)
        self._sd = None  # (key, tables, log contributions) of the last state-dependent threshold
        self._coarse = None  # knots of the coarse copy used to bracket the saddle point

    @property
    def n_knots(self) -> int:
        return int(self.x.shape[0])

    def table_bytes(self) -> int:
        """Bytes of the tables kept for one tilt."""
        B, P = self.n_knots, self.P
        if 8 * (P + 1) * B <= TABLE_BYTES:
            return 8 * (P + 1) * B
        c = self._segment()
        return 8 * (-(-P // c) + c + 1) * B

    @property
    def checkpointed(self) -> bool:
        """Whether the rows are checkpointed (then recomputed for each batch of draws)."""
        return 8 * (self.P + 1) * self.n_knots > TABLE_BYTES

    def _segment(self) -> int:
        return max(1, math.ceil(math.sqrt(self.P)))

    # -- the tilt's slope ------------------------------------------------------
    def cgf(self, phi: float) -> tuple:
        """``(Khat(phi), Khat'(phi))``: the compressed CGF and its slope (biased; for choosing phi)."""
        lz, d = compressed_cgf(self.N, self.P, float(phi), self.x)
        return lz - self.log_comb, d

    # -- tables --------------------------------------------------------------
    def _table(self, phi: float):
        if self._tables is not None and self._tables[0] == phi:
            return self._tables
        self._tables = None
        P, B = self.P, self.n_knots
        if 8 * (P + 1) * B <= TABLE_BYTES:
            rows = np.zeros((P + 1, B))
            compressed_rows(phi, self.x, 1, rows)
            self._tables = (phi, "full", rows)
        else:
            c = self._segment()
            nseg = -(-P // c)
            ck = np.empty((nseg, B))
            buf = np.zeros((c + 1, B))
            for s in range(nseg):
                k0 = s * c + 1
                k1 = min(k0 + c - 1, P)
                ck[s] = buf[0]
                compressed_rows(phi, self.x, k0, buf[: k1 - k0 + 2])
                buf[0] = buf[k1 - k0 + 1]
            self._tables = (phi, "checkpoints", (ck, buf, c))
        return self._tables

    def _sample(self, phi: float, seed: int, start: int, n: int, k_stop: int = 1):
        """Draws start..start+n-1 through layers P down to ``k_stop + 1`` (at least 2).

        Returns ``(-log C(N, P) - log Q, sum of k / (k + d_k) over those
        layers, d_{k_stop + 1})`` per draw; with ``k_stop = 1`` the last is
        ``d_2``, below which the first positive is counted.
        """
        _, kind, data = self._table(phi)
        D = np.full(n, self.M, dtype=np.int64)
        lq = np.zeros(n)
        srest = np.zeros(n)
        st = draw_states(np.uint64(seed), start, n)
        P = self.P
        k_lo = max(k_stop + 1, 2)
        if kind == "full":
            self._advance(data[k_lo - 1 :], k_lo, P, phi, D, lq, srest, st)
        else:
            ck, buf, c = data
            for s in range(ck.shape[0] - 1, -1, -1):
                k0 = s * c + 1
                k1 = min(k0 + c - 1, P)
                if k1 < k_lo:
                    break
                seg = buf[: k1 - k0 + 2]
                seg[0] = ck[s]
                compressed_rows(phi, self.x, k0, seg)
                lo = max(k0, k_lo)
                self._advance(seg[lo - k0 :], lo, k1, phi, D, lq, srest, st)
        return -self.log_comb - lq, srest, D

    def _advance(self, rows, k_lo, k_hi, phi, D, lq, srest, st) -> None:
        """:func:`compressed_advance` in batches of :data:`ADVANCE_DRAWS` draws, so that Ctrl-C
        is seen between them (each draw has its own generator state: the same numbers in any
        batches; a single call over 10^5 draws of 10^3 layers took seconds)."""
        n = D.shape[0]
        for lo in range(0, n, ADVANCE_DRAWS):
            hi = min(n, lo + ADVANCE_DRAWS)
            compressed_advance(
                rows, k_lo, k_hi, phi, self.x, D[lo:hi], lq[lo:hi], srest[lo:hi], st[lo:hi]
            )

    def draws(self, phi: float, seed: int, n: int):
        """The first n draws at tilt ``phi`` (cached; extended by the draws that are missing)."""
        have = self._draws.get(phi)
        if have is None or have[0].shape[0] < n:
            if have is None:
                self._draws.clear()  # one tilt's draws at a time
                start = 0
            else:
                start = have[0].shape[0]
            new = self._sample(phi, seed, start, n - start)
            if have is not None:
                new = tuple(np.concatenate([a, b]) for a, b in zip(have, new, strict=True))
            self._draws[phi] = new
            have = new
        return tuple(a[:n] for a in have)

    def contributions(
        self, phi: float, seed: int, n: int, s: float, upper: bool, rel_tol: float, estimate=True
    ):
        """``(log offset, c)``: the estimate of the tail is ``e^{offset} mean(c)``.

        ``c_i`` is draw i's weight times its count of first-positive
        placements that reach the threshold (``S >= s (1 - rel_tol)`` for the
        upper tail, ``S <= s (1 + rel_tol)`` for the lower), scaled by the
        largest term.
        """
        lw, srest, d2 = self.draws(phi, seed, n)
        if not estimate:
            return None
        d2f = d2.astype(np.float64)
        with np.errstate(divide="ignore"):
            if upper:
                R = s * (1.0 - rel_tol) - srest
                inv = 1.0 / R
                cnt = np.where(
                    R <= 1.0 / (1.0 + d2f), d2f + 1.0, np.where(R > 1.0, 0.0, np.floor(inv))
                )
            else:
                R = s * (1.0 + rel_tol) - srest
                inv = 1.0 / R
                first = np.ceil(inv - 1.0)  # smallest d_1 with 1 / (1 + d_1) <= R
                cnt = np.where(
                    R >= 1.0,
                    d2f + 1.0,
                    np.where(R < 1.0 / (1.0 + d2f), 0.0, d2f - first + 1.0),
                )
            logc = np.where(cnt > 0.0, lw + np.log(np.maximum(cnt, 1.0)), -np.inf)
        top = float(logc.max())
        if not math.isfinite(top):
            return 0.0, np.zeros(n)
        return top, np.exp(logc - top)

    def release(self):
        self._tables = None
        self._draws.clear()
        self._sd = None

    # -- state-dependent tilting -------------------------------------------------
    def saddle(self, s: float, mean_s: float, sd_s: float, bar=None) -> float:
        """The tilt ``phi > 0`` with ``Khat'(phi) = s`` (:meth:`saddle_within`, no budget)."""
        return self.saddle_within(s, mean_s, sd_s, bar)[0]

    def saddle_within(
        self, s: float, mean_s: float, sd_s: float, bar=None, max_work: int | None = None
    ) -> tuple[float, int, bool]:
        """The tilt ``phi > 0`` with ``Khat'(phi) = s``, to :data:`SADDLE_TOL` tilted sd.

        ``Khat'`` is increasing and convex in ``phi`` and nearly flat then
        steep where the positives crowd the top ranks. The root is first
        found on a coarse copy of the knots (``E = 256``, ``eps = 5 %``,
        several times cheaper), whose slope there starts the search on the
        real knots (:func:`_fine_root`, which says how it steps), until
        ``|Khat'(phi) - s|`` is at most :data:`SADDLE_TOL` times the tilted
        standard deviation ``sqrt(Khat''(phi))``, ``Khat''`` bounded below
        by secants of the evaluated points. A rule on
        the step in ``phi`` would be too loose where ``Khat'`` is steep: at
        N = 1e8, P = 1e3, p = 1e-100, ``Khat'`` doubles for every 0.5 % of
        ``phi``, and an upper tilt 2 % below the saddle multiplies the
        variance per draw by 30. The coarse copy is biased, so its root can
        lie far from the real one (at N = 1e6, P = 1e4, p = 1e-3: 0.89
        against 2.58). The path depends on ``s`` alone, so the tilt is a
        function of the threshold. ``bar``, when given, is updated once per
        pass of the recursion on the real knots.

        Returns ``(phi, work, cut)``: the work of the passes, in the units of
        :mod:`pranker.null.choice` (``WORK_KNOT_CELL`` per cell, P times the
        knots per pass), and whether ``max_work`` (None: no bound) stopped
        the search before it converged; then ``phi`` is the evaluated tilt
        whose slope came nearest ``s`` (on the real knots if any pass on them
        was made; else on the coarse copy; else the normal guess). Every
        tilt keeps the estimator unbiased; one off the saddle point only
        costs variance, which the estimate reports.
        """
        coarse = self._coarse
        if coarse is None:
            coarse = compressed_knots(self.M, min(self.E, 256), max(self.eps, 0.05))
            self._coarse = coarse
        seen: list[tuple[float, float]] = []
        fine: list[tuple[float, float]] = []
        work = [0]

        def charge(knots: int) -> None:
            units = self.P * knots * WORK_KNOT_CELL
            if max_work is not None and work[0] + units > max_work:
                raise _Spent
            work[0] += units

        def g_coarse(phi):
            """log(Khat' / s) on the coarse copy: the same root as Khat' - s, nearly linear in
            phi where Khat' is steep (regula falsi on Khat' - s crept there)."""
            charge(coarse.shape[0])
            slope = compressed_cgf(self.N, self.P, phi, coarse)[1]
            seen.append((phi, slope - s))
            return math.log(max(slope, 1e-300) / s)

        def g_fine(phi):
            charge(self.n_knots)
            if bar is not None:
                bar.update(1)
            g = self.cgf(phi)[1] - s
            fine.append((phi, g))
            return g

        floor = 1e-6 / sd_s  # a tilt this small changes no draw: the threshold is in the body
        phi0 = min(max((s - mean_s) / (sd_s * sd_s), floor), 1.0)
        try:
            br = _bracket(g_coarse, phi0, floor)
            phi_c = floor if br is None else _illinois(g_coarse, *br, 0.02)
            # a coarse root at the floor is the coarse copy's bias near the mean: start from the guess
            x0 = phi_c if phi_c > floor else phi0
            phi = _fine_root(g_fine, x0, _coarse_slope(seen, x0), s, floor, SADDLE_TOL, phi0)
        except _Spent:
            best = fine or seen
            phi = min(best, key=lambda p: abs(p[1]))[0] if best else phi0
            return phi, work[0], True
        return phi, work[0], False

    def state_dependent_tilts(self, s: float, phi_star: float):
        """``(phis, kc)`` for threshold ``s``, or None when their tables do not fit the budget.

        ``J`` tilts (J up to :data:`SD_TILTS`), :func:`tilt_grid` around
        ``phi_star``: ``phi_star`` itself is one of them, so the tilt handed
        over from the layers above ``kc`` is on the grid. They serve layers
        ``1 .. kc``, ``kc = min(P, floor(2 s + 10))``: above ``kc`` the
        positives follow the uniform law.
        """
        kc = handover_layer(s, self.P)
        per_tilt = 8 * (kc + 1) * self.n_knots
        J = min(SD_TILTS, TABLE_BYTES // per_tilt)
        if J < SD_MIN_TILTS:
            return None
        return tilt_grid(phi_star, J), kc

    def continuations(self, kc: int) -> int:
        """``K``: how many times each draw's layers above ``kc`` are continued below it.

        A draw's upper layers (``P - kc`` positives at the fixed tilt) cost
        ``c_u`` and one continuation below them (``kc - 1`` state-dependent
        steps) ``c_l``, in the work units of :mod:`pranker.null.choice`. With
        ``sigma_b^2`` the variance per draw between upper layers and
        ``sigma_w^2`` that of a continuation given them, ``K``
        continuations give a variance ``sigma_b^2 + sigma_w^2 / K`` for a
        work ``c_u + K c_l``, smallest at ``K* = sqrt(sigma_w^2 c_u /
        (sigma_b^2 c_l))``. Measured (N = 1e7, P = 1e3) ``sigma_w^2 /
        sigma_b^2`` was about 35 at p = 1e-30 and 20 at 1e-100, where ``K*``
        is 26 and 13; the product is flat near its minimum, and ``K =
        round(c_u / c_l)`` (25 and 10 there), at most
        :data:`~pranker.null.choice.MAX_CONTINUATIONS`, depends on
        ``(P, kc)`` alone (1 when ``kc = P``: no upper layers).
        """
        if kc >= self.P:
            return 1
        c_u = (self.P - kc) * WORK_KNOT_STEP
        c_l = max(kc - 1, 1) * WORK_SD_STEP
        return int(min(MAX_CONTINUATIONS, max(1, math.floor(c_u / c_l + 0.5))))

    def state_dependent(self, s, phis, kc, phi_star, seeds, n, rel_tol, estimate=True):
        """``(log offset, c)`` of the first n state-dependent draws for ``P(S >= s)``.

        Layers above ``kc`` are drawn at the fixed tilt ``phi_star`` (stream
        ``seeds[0]``), layers ``kc`` down to 2 by state-dependent tilting
        (stream ``seeds[1]``). ``phi_star`` must be one of ``phis`` (see
        :func:`tilt_grid`); the walk over the tilts starts from it.
        """
        on_grid = np.flatnonzero(np.asarray(phis) == phi_star)
        if on_grid.shape[0] != 1:
            raise ValueError(
                "CompressedProposal.state_dependent: the upper tilt phi_star="
                f"{phi_star!r} must be exactly one of the state-dependent tilts phis; "
                "build them with tilt_grid(phi_star, J)."
            )
        j0 = int(on_grid[0])
        K = self.continuations(kc)
        key = (float(s), float(phis[0]), len(phis), kc, float(phi_star), K)
        if self._sd is None or self._sd[0] != key:
            self._draws.clear()
            tabs = np.zeros((len(phis), kc + 1, self.n_knots))
            for j, phi in enumerate(phis):
                compressed_rows(float(phi), self.x, 1, tabs[j])
            self._sd = (key, tabs, np.empty(0))
        key, tabs, have = self._sd
        if have.shape[0] < n:
            start = have.shape[0]
            m = n - start
            if kc < self.P:
                lw, sr, D = self._sample(phi_star, seeds[0], start, m, k_stop=kc)
            else:
                lw = np.full(m, -self.log_comb)
                sr = np.zeros(m)
                D = np.full(m, self.M, dtype=np.int64)
            new = np.empty(m)
            # in batches of about 4,096 continuations, so that Ctrl-C is seen between them
            # (each draw has its own streams: the same numbers in any batches)
            step = max(64, 4096 // K)
            for lo in range(0, m, step):
                hi = min(m, lo + step)
                state_dependent_draws(
                    tabs,
                    np.asarray(phis, dtype=np.float64),
                    kc,
                    self.x,
                    s * (1.0 - rel_tol),
                    j0,
                    np.uint64(seeds[1]),
                    start + lo,
                    K,
                    D[lo:hi],
                    lw[lo:hi],
                    sr[lo:hi],
                    new[lo:hi],
                )
            have = np.concatenate([have, new])
            self._sd = (key, tabs, have)
        if not estimate:
            return None
        logc = have[:n]
        top = float(logc.max())
        if not math.isfinite(top):
            return 0.0, np.zeros(n)
        return top, np.exp(logc - top)


class _Spent(Exception):
    """The saddle search's share of the work budget is spent."""


def _bracket(g, phi, floor, factor=2.0) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """``(a, b)`` with ``g(a) < 0 <= g(b)`` (as ``(phi, g)`` pairs), stepping geometrically from phi.

    None when ``g(floor) >= 0``: the root, if any, is below ``floor``.
    """
    ga = g(phi)
    a = (phi, ga)
    up = ga < 0.0
    f = factor if up else 1.0 / factor
    for _ in range(200):
        nxt = a[0] * f
        if nxt < floor:
            if a[0] <= floor:
                return None
            nxt = floor
        gn = g(nxt)
        if (gn >= 0.0) == up:
            return (a, (nxt, gn)) if up else ((nxt, gn), a)
        a = (nxt, gn)
        f = f * f if abs(math.log(f)) < 8.0 else f
    raise RuntimeError(f"no saddle point found near phi = {phi!r}")  # pragma: no cover


def _illinois(g, a, b, rel):
    """Root of increasing g in the bracket ``a = (x, g < 0)``, ``b = (x, g >= 0)``, to a bracket
    narrower than ``rel`` (relative to x); the evaluated point with the smallest ``|g|``."""
    (xa, ga), (xb, gb) = a, b
    side = 0
    best = (xb, gb) if abs(gb) <= abs(ga) else (xa, ga)
    for _ in range(100):
        if xb - xa <= rel * xb:
            break
        x = xb - gb * (xb - xa) / (gb - ga) if gb != ga else 0.5 * (xa + xb)
        if not xa < x < xb:
            x = 0.5 * (xa + xb)
        gx = g(x)
        if abs(gx) < abs(best[1]):
            best = (x, gx)
        if gx < 0.0:
            xa, ga = x, gx
            if side == -1:
                gb *= 0.5
            side = -1
        else:
            xb, gb = x, gx
            if side == 1:
                ga *= 0.5
            side = 1
    return best[0]


def _coarse_slope(seen, phi: float) -> float:
    """The secant slope of the coarse ``g`` between the evaluations nearest ``phi`` on either side
    (or the two nearest), ``nan`` when there is none."""
    left = [p for p in seen if p[0] < phi]
    right = [p for p in seen if p[0] >= phi]
    if left and right:
        a, b = max(left), min(right)
    else:
        near = sorted(seen, key=lambda p: abs(p[0] - phi))[:2]
        if len(near) < 2:
            return math.nan
        a, b = sorted(near)
    return (b[1] - a[1]) / (b[0] - a[0]) if b[0] > a[0] else math.nan


def _fine_root(
    g, x0: float, slope0: float, s: float, floor: float, sd_tol: float, scale: float, max_evals=60
):
    """Root of ``g = Khat' - s`` (increasing and convex in ``phi``) above ``floor``, from ``x0``.

    The steps are taken on ``G = log(Khat' / s) = log1p(g / s)``, which has
    the same root and is close to linear where ``Khat'`` is steep (there
    ``Khat'`` grows about exponentially in ``phi``: at N = 1e8, P = 1e3,
    p = 1e-30 it goes from 2.5 to 178 over 5 % of ``phi``, while ``log
    Khat'`` has a slope between 7 and 11 throughout). ``slope0`` (a guess of
    ``g'`` near ``x0``, e.g. from the coarse knots) sets the first Newton
    step. Until the root is bracketed, Newton steps with the latest secant
    slope of ``G``, at most a factor 4 in ``phi`` (from ``scale`` when
    ``phi`` is smaller, e.g. at the floor); inside the bracket,
    Anderson–Björck steps (the secant, with the stale end's value scaled by
    how much the last step gained), and a bisection in ``log phi`` when two
    steps have not halved the bracket; the Newton steps aim half the
    tolerance past the root, so that one point can close the bracket and
    stop the search. Stops when ``|g(x)| <= sd_tol sqrt(g'(x))``, ``g'(x)``
    bounded below by the secant of ``g`` from the nearest point on its left
    (``g`` convex), or by the smaller of the secants to the nearest points
    on either side (``g`` convex or concave between them); without a point
    on its left the search goes on. Returns ``floor`` when ``g(floor) >= 0``
    (the root is below it), and the evaluated point with the smallest
    ``|g|`` if ``max_evals`` runs out.
    """
    pts: list[tuple[float, float]] = []  # (phi, g)

    def ev(x):
        gx = g(x)
        pts.append((x, gx))
        return gx, math.log1p(max(gx / s, -1.0 + 1e-15))  # Khat' > 0: a guard against rounding

    def stop(x, gx):
        left = [p for p in pts if p[0] < x]
        if not left:
            return False
        a = max(left)
        slope = (gx - a[1]) / (x - a[0])
        right = [p for p in pts if p[0] > x]
        if right:  # the smaller secant: a lower bound where g is convex or concave between them
            b = min(right)
            slope = min(slope, (b[1] - gx) / (b[0] - x))
        return slope > 0.0 and abs(gx) <= sd_tol * math.sqrt(slope)

    x = max(x0, floor)
    gx, Gx = ev(x)
    lo = hi = None  # (phi, G) with G < 0 / G >= 0
    m = slope0 / (s + gx) if slope0 > 0.0 else math.nan  # G' = g' / Khat'
    while len(pts) < max_evals:
        if Gx < 0.0:
            lo = (x, Gx)
        else:
            hi = (x, Gx)
            if x <= floor:
                return floor
        if stop(x, gx):
            return x
        if lo is not None and hi is not None:
            break
        # not bracketed: a Newton step with the latest slope, at most a factor 4, aimed half
        # the tolerance past the root (so that the next point may close the bracket and stop)
        if m > 0.0:
            aim = 0.5 * sd_tol * math.sqrt(m * (s + gx))  # g' = G' Khat'
            Gt = math.log1p(max(-aim if Gx >= 0.0 else aim, -0.5 * s) / s)
            xn = x - (Gx - Gt) / m
        else:
            xn = 2.0 * x if Gx < 0.0 else 0.5 * x
        xn = min(max(xn, 0.25 * x, floor), 4.0 * max(x, scale))
        if xn == x:
            xn = floor if Gx >= 0.0 else 4.0 * x
        gn, Gn = ev(xn)
        sec = (Gn - Gx) / (xn - x)
        if sec > 0.0:
            m = sec
        x, gx, Gx = xn, gn, Gn
    else:
        return min(pts, key=lambda p: abs(p[1]))[0]
    assert lo is not None and hi is not None
    (xa, Ga), (xb, Gb) = lo, hi
    side = 0
    widths = [math.log(xb / xa)]
    while len(pts) < max_evals and widths[-1] > 1e-12:
        if len(widths) >= 4 and widths[-1] > 0.5 * widths[-4]:
            xn = math.sqrt(xa * xb)  # three steps without halving the bracket
        else:
            xn = xb - Gb * (xb - xa) / (Gb - Ga) if Gb != Ga else math.sqrt(xa * xb)
            if not xa < xn < xb:
                xn = math.sqrt(xa * xb)
        gn, Gn = ev(xn)
        if stop(xn, gn):
            return xn
        if Gn < 0.0:
            if side == -1:  # the same end moved twice: scale the stale one (Anderson–Björck)
                f = 1.0 - Gn / Ga
                Gb *= f if f > 0.0 else 0.5
            xa, Ga, side = xn, Gn, -1
        else:
            if side == 1:
                f = 1.0 - Gn / Gb
                Ga *= f if f > 0.0 else 0.5
            xb, Gb, side = xn, Gn, 1
        widths.append(math.log(xb / xa))
    return min(pts, key=lambda p: abs(p[1]))[0]
