r"""Tail probabilities of the null AP by exact exponential tilting.

Under random ranking the positives' ranks ``r_1 < ... < r_P`` are a uniform
P-subset of ``1..N`` and ``AP = S / P`` with ``S = sum_k k / r_k``.

The exact cumulant generating function
--------------------------------------
``K(phi) = log E[e^{phi S}] = log Z(phi) - log C(N, P)``, where ``Z`` sums
``prod_k e^{phi k / r_k}`` over all subsets. ``Z`` follows from a forward
recursion over the positives with one prefix sum per positive — ``O(P (N - P
+ 1))`` work per value of ``phi`` (kernel and scaling in
:mod:`pranker._numba.tilt`). Its first two derivatives, carried along in
forward mode, are the tilted mean ``K'(phi) = E_phi[S]`` and variance
``K''(phi) = Var_phi[S]``; at ``phi = 0`` they are the exact null moments
(checked against the closed forms of :mod:`pranker.null.moments`).

The tilted estimator
--------------------
The tilted law ``P_phi(subset) = e^{phi S - K(phi)} / C(N, P)`` can be sampled
exactly (backwards through the stored prefix sums). For any ``phi >= 0``

.. math::

    p = P(S \ge s) = E_\phi\left[ e^{K(\phi) - \phi S} 1\{S \ge s\} \right]
      = e^{K(\phi) - \phi s} \, E_\phi\left[ e^{-\phi (S - s)} 1\{S \ge s\} \right],

an unbiased importance-sampling estimator whose weights lie in ``[0, 1]``
(Siegmund 1976; Asmussen & Glynn 2007, ch. VI). With ``phi`` near the saddle
point ``K'(phi) = s`` about half of the draws reach the tail, whatever its
depth, so a relative standard error of 2 % takes a few thousand to a few tens
of thousands of draws at p = 0.4 as at p = 1e-400; ``log p`` is carried in log
space throughout. The lower tail ``P(S <= s)`` is the mirror image with
``phi <= 0``.

Two refinements keep the estimator unbiased and cut its variance
(:meth:`TiltEngine._contributions`): the top two positives are summed out
exactly given the others (conditional Monte Carlo; their placements below the
third positive are counted in closed form), and where the next positives
carry the variance — many positives, a tail not too deep — each draw re-draws
positives 3 to ``k0`` several times below the same lower positives
(splitting; Kahn & Harris 1951), the plan chosen per threshold by a pilot on
its own stream. The relative variance per draw of the plain estimator grows
about as ``phi sqrt(K''(phi))``, the tilted law's width in units of the
weight's decay (12 at N = 5,000, P = 500, p ~ 1e-9; 53 at p ~ 1e-290); the
refinements bring it to 1.2-2 at the former and leave the latter about where
it was (there the variance is spread over hundreds of positives).

A grid of tilts, shared
-----------------------
The estimator is unbiased for any ``phi``; its variance grows only slowly as
``phi`` leaves the saddle point. The engine therefore tilts at the points of
a fixed grid, in units of the null standard deviation ``sigma_0`` of S:
``phi_j sigma_0 = 2^{(j - 1/2) / 16 - 12}``, sixteen cells per doubling of ``phi``. The cell
of a threshold ``s`` is the one, ``[phi_{j-1/2}, phi_{j+1/2})``, that contains
the saddle point, decided by comparing ``s`` with ``K'`` at the cell edges;
``j = 0`` is plain Monte Carlo. Near the bulk a cell is a small fraction of
the tilted law's width ``sqrt(K'')``, and the cells are grouped: the aligned
block of ``3^m`` cells around the threshold's cell (the largest ``m <= 4``
whose span, ``3^m`` times the cell's width in tilted standard deviations,
is at most 0.5) is estimated at its middle grid point
(:meth:`TiltEngine.sampling_point`), so that nearby thresholds share
draws; deep in the tail each cell keeps its own point. Draws at
a grid point come from one reproducible stream keyed by (seed, N, P, j), and
a threshold takes its first n draws, n growing from 4,096 until the relative
standard error is below ``rtol`` (each step aims at the size the variance
measured so far asks for: :func:`pranker.null.choice.next_draws`). The same threshold therefore gets the same
p-value whether it is asked alone or among thousands of rankings sharing
(N, P), which then share the recursions and the draws.

Neighbouring sizes, shared
--------------------------
A uniform P-subset of ``1..N'`` whose last positive lies within N is a
uniform P-subset of ``1..N``, under the tilt as well (its weight depends on
S alone). Up to ``SHARED_SIZES_MAX_CELLS`` cells, from three positives on,
the upper tail of (N, P) therefore comes from the layers and draws of N',
the top of N's bin (:func:`pranker.null.choice.tilt_shared_bin`): the last
positive is drawn from a mixture of the bin's sizes' laws, and each draw
weighted for N by its likelihood ratio: per-query p-values, whose N varies
by a few percent, share recursions and draws per bin instead of paying
them per size (:meth:`TiltEngine._contributions`).

Saddlepoint
-----------
The Lugannani–Rice formula on the exact CGF (Lugannani & Rice 1980; Daniels
1987) is deterministic and costs a few recursions: ``w = sign(phi) sqrt(2
(phi s - K(phi)))``, ``u = phi sqrt(K''(phi))``, ``p ~ 1 - Phi(w) + phi(w) (1/u
- 1/w)``. It is used for the quantiles of the tilted null (``ppf``,
``interval``) and offered as ``method="saddlepoint"``; measured against the
tilted estimator its error falls with P (docs/calibration.md).

References
----------
D. Siegmund, "Importance sampling in the Monte Carlo study of sequential
tests", Ann. Statist. 4 (1976) 673–684.
S. Asmussen and P. W. Glynn, Stochastic Simulation, Springer 2007.
R. Lugannani and S. Rice, "Saddle point approximation for the distribution of
the sum of independent random variables", Adv. Appl. Prob. 12 (1980) 475–490.
H. Kahn and T. E. Harris, "Estimation of particle transmission by random
sampling", Nat. Bur. Standards Appl. Math. Ser. 12 (1951) 27–30.
M. Lopes and G. Bontempi, "On the null distribution of the precision and
recall curve", ECML PKDD 2014.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np

from .._numba.sampling import null_ap_draws
from .._numba.tilt import (
    split_contributions,
    tilt_draws,
    tilt_forward,
    tilt_split_contributions,
    tilt_split_states,
)
from .._progress import BAR_SECONDS, progress_bar
from .budget import (
    TailEstimate,
    compressed_cost,
    grid_cost,
    no_hit_bound,
    run_draws,
    untrusted_bound,
)
from .cgf import LayersCGF
from .choice import (
    DEFAULT_MAX_DRAWS,
    DEFAULT_RTOL,
    DEFAULT_SEED,
    DRAW_STEP,
    REL_TOL,
    SHARED_SIZES_MAX_CELLS,
    WORK_SADDLE_SHARE,
    first_draws,
    tilt_backend,
)
from .compressed import CompressedProposal
from .tilt_shared import SharedSizes

__all__ = ["TiltEngine", "TailEstimate", "tilt_engine"]

DRAW_CHUNK = DRAW_STEP  # draws per kernel call: Ctrl-C is seen between calls
# phi * sigma_0 of the first cell edge; plain Monte Carlo below. Far below 1: when P
# is small and N large the null is so skewed that K' reaches the top of the
# support (AP near 1) while phi sigma_0 is still well below 1.
_GRID_START = 2.0**-12
_GRID_PER_OCTAVE = 16  # cells per doubling of phi (measured: 4 or 8 lose up to 20x or 2x in draws deep in the tail)
# Cells whose width in the tilted law's own units is small share draws (TiltEngine.sampling_point):
# a block of 3^m cells around its middle one while 3^m cells span at most this many tilted
# standard deviations, i.e. (phi_hi - phi_lo) sqrt(K'') summed over the block.
_MERGE_WIDTH = 0.5
# ... and twice as wide for small problems (at most SHARED_SIZES_MAX_CELLS cells), where many
# thresholds meet one engine (per-query p-values): a block's middle tilt is then within about half
# a tilted sd of any saddle point of the block, at most e^{1/4} = 1.28 times the variance per draw.
_MERGE_WIDTH_SMALL = 1.0
_MERGE_MAX_LEVEL = 4  # blocks of at most 3^4 = 81 cells (about five doublings of phi)
# The compressed proposal is used at larger N, where the tilted law is narrower relative to
# its mean: a finer grid keeps phi within 0.6 % of the saddle point.
_GRID_PER_OCTAVE_COMPRESSED = 64
# A threshold past every cached cell edge gallops up from the highest one (one pass per cell
# probed) when a Newton step from that edge lands at most this many cells above it; farther,
# Newton steps from there find its cell in fewer passes.
_GALLOP_UP_CELLS = 1
_MASK64 = (1 << 64) - 1
_SD_STREAM = 1 << 40  # stream keys of the state-dependent draws (grid points use small j)
_PILOT_STREAM = 1 << 41  # stream keys of the pilots choosing how to split (plus the grid index)
_PILOT_DRAWS = 512  # draws per candidate in that pilot
# inner draws whose states (16 bytes each) a grid point keeps for its thresholds: 32 MB
_STATE_BUDGET = 1 << 21


def _grown(buf, have: int, need: int, cap: int | None = None, tail=(), dtype=np.float64):
    """``buf`` (its first ``have`` rows kept) with room for ``need`` rows.

    The capacity at least doubles when it grows (at most ``cap``), so drawing
    in chunks copies O(n) in all, not O(n^2 / chunk).
    """
    if buf is not None and buf.shape[0] >= need:
        return buf
    size = max(need, 2 * (0 if buf is None else buf.shape[0]))
    if cap is not None:
        size = max(need, min(size, cap))
    out = np.empty((size, *tail), dtype)
    if have:
        out[:have] = buf[:have]
    return out


def _mix_seed(seed: int, n: int, p: int, j: int) -> int:
    """A 64-bit stream key for (seed, N, P, grid point): splitmix64 of their combination."""
    x = (seed * 0x9E3779B97F4A7C15 + n * 0xBF58476D1CE4E5B9 + p * 0x94D049BB133111EB + j) & _MASK64
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _z_of(conf_level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + conf_level / 2.0))


class TiltEngine(SharedSizes, LayersCGF):
    """The exact CGF and tilted sampler of S = P * AP for one (N, P).

    Recursions and draws are cached, so many thresholds for the same (N, P)
    share them. Not thread-safe.

    Parameters
    ----------
    N, P : int
        Instances and positives, ``2 <= P < N`` (the degenerate cases are
        handled by the callers).
    seed : int
        Key of the draw streams.
    """

    def __init__(
        self,
        N: int,
        P: int,
        seed: int = DEFAULT_SEED,
        *,
        compressed: bool | None = None,
        knot_start: int | None = None,
        knot_ratio: float | None = None,
    ):
        super().__init__(N, P)
        self.seed = int(seed)
        if compressed is None:
            compressed = tilt_backend(self.N, self.P) == "compressed"
        self.compressed = bool(compressed)
        self._cz = (
            CompressedProposal(self.N, self.P, self.log_comb, E=knot_start, eps=knot_ratio)
            if self.compressed
            else None
        )
        self.per_octave = _GRID_PER_OCTAVE_COMPRESSED if self.compressed else _GRID_PER_OCTAVE
        self._k1_cache: dict = {}  # grid half-point index -> K'(phi)
        self._k2_cache: dict = {}  # grid half-point index -> K''(phi), beside K'
        self._draws: dict = {}  # grid index -> (K(phi_j), S draws)
        # (grid index, K, stored layers) of the last grid point sampled
        self._layers: tuple[int, float, Any] | None = None
        self._g2: tuple[int, Any] | None = None  # (grid index, log G_2) of the last grid point
        self._plans: dict = {}  # (grid index, upper) -> (k0, M) of the split draws
        self._nodes: dict = {}  # (sign, cell, part) -> the saddlepoint's node pass

    # -- the grid ----------------------------------------------------------
    def grid_phi(self, j: float) -> float:
        """``phi_j``; half-integer ``j`` gives the cell edges (negative: lower tail).

        ``phi_0 = 0``; the edge of cell ``i`` and ``i + 1`` is
        ``phi_{i+1/2} = 2^{i / M - 12} / sigma_0`` and the point of cell
        ``j >= 1`` the geometric middle of its edges.
        """
        a = abs(j)
        if a == 0:
            return 0.0
        psi = _GRID_START * 2.0 ** ((a - 0.5) / self.per_octave)
        return math.copysign(psi / self.sd_s, j)

    def _k1_edge(self, i: int, sign: int) -> float:
        """K' at the cell edge between grid points i and i + 1 (tail ``sign``)."""
        key = sign * (2 * i + 1)
        v = self._k1_cache.get(key)
        if v is None:
            phi = self.grid_phi(sign * (i + 0.5))
            if self.compressed:
                assert self._cz is not None  # made whenever self.compressed
                v, v2 = self._cz.cgf(phi)[1], math.nan  # the compressed pass has no K''
            else:
                _, v, v2 = self.cgf(phi)
            self._k1_cache[key] = v
            self._k2_cache[key] = v2
        return v

    def _k2_edge(self, i: int, sign: int) -> float:
        """K'' at the cell edge between grid points i and i + 1 (computed with K')."""
        key = sign * (2 * i + 1)
        if key not in self._k2_cache:
            self._k1_edge(i, sign)
        return self._k2_cache[key]

    def sampling_point(self, s: float, sign: int = 1, index: int | None = None) -> int:
        r"""The grid point whose draws estimate the tail at ``s`` (>= 0; ``index``: its cell, if known).

        Cell ``j`` of :meth:`grid_index` holds the saddle point of ``s``. Near
        the bulk the cells are far narrower than the tilted law is wide, and
        a tilt a fraction of a tilted standard deviation off the saddle point
        costs almost no variance: with tilt ``phi'`` instead of the saddle
        point ``phi`` the second moment of the weights grows by about
        ``exp(K''(phi) (phi' - phi)^2)`` (a second-order expansion of
        ``K(2 phi - phi') - 2 K(phi) + K(phi')``). So the cells are grouped
        in aligned blocks of ``3^m`` (blocks ``[3^m q, 3^m (q + 1))``, each
        estimated at its middle grid point, a grid point of its own): cell
        ``j`` takes the largest ``m <= 4`` with ``3^m`` times its width in
        tilted standard deviations, ``tau_j = (phi_{j+1/2} - phi_{j-1/2})
        max sqrt(K'')`` over its two edges, at most 0.5: the middle is then
        within about 0.25 tilted sd of any saddle point of the block, as long
        as ``sqrt(K'')`` changes little across it; the variance per draw this
        costs was measured (docs/calibration.md, "Neighbouring cells share
        draws near the bulk"); small problems (:data:`_MERGE_WIDTH_SMALL`) take
        blocks up to 1.0 wide. All thresholds of a block share one grid
        point's draws (many rankings of one (N, P), per-query p-values).
        Deep in the tail a cell is already about that wide (``tau_j`` near
        ``0.044 phi sqrt(K'')``) and keeps its own draws. The rule reads
        only the edges :meth:`grid_index` computed, so the point is a function
        of ``s`` alone. With the compressed proposal, and for cell 0 (plain
        Monte Carlo), the cell itself.
        """
        j = self.grid_index(s, sign) if index is None else int(index)
        if self.compressed or j <= 0:
            return j
        width = self.grid_phi(j + 0.5) - self.grid_phi(j - 0.5)
        sd = math.sqrt(max(self._k2_edge(j - 1, sign), self._k2_edge(j, sign)))
        tau = width * sd
        m = 0
        small = self.P * (self.N - self.P + 1) <= SHARED_SIZES_MAX_CELLS
        merge = _MERGE_WIDTH_SMALL if small else _MERGE_WIDTH
        while m < _MERGE_MAX_LEVEL and 3 ** (m + 1) * tau <= merge:
            m += 1
        b = 3**m
        return b * (j // b) + (b - 1) // 2 if m else j

    def grid_index(self, s: float, sign: int = 1, guess=None) -> int:
        """The grid point whose cell holds the saddle point of ``s`` (>= 0).

        The first ``j >= 0`` with ``K'(phi_{j+1/2}) > s`` (``<`` for the lower
        tail), found by bisecting between cached cell edges where they bracket
        ``s``, by galloping up from the highest cached edge below ``s`` (many
        rankings of one (N, P), visited in increasing AP: one or two passes
        each), or else by galloping from a first guess. The guess is one Newton step from the normal
        approximation (:meth:`_guess_index`), so a threshold typically costs
        5-7 recursion passes instead of the 15-17 of galloping from 0. The
        guess and the search path depend on ``s`` alone, so does the answer —
        also where rounding makes far edges of a discrete null tie. ``guess``
        (a function returning a tilt near the saddle point, or None) replaces
        that first guess by Newton steps on the cell edges from its cell
        (:meth:`_newton_index`; the saddlepoint's lattice passes the scaled-down
        problem's saddle point, a function of ``s`` too).
        """

        def below(i):  # is s past the edge i + 1/2?
            v = self._k1_edge(i, sign)
            return v <= s if sign > 0 else v >= s

        # cell edges already computed for this tail (many thresholds of one (N, P)):
        # bisect between the nearest ones, no first guess needed
        lo_c, hi_c = -1, None
        for key, v in self._k1_cache.items():
            if (key > 0) != (sign > 0):
                continue
            i = (abs(key) - 1) // 2
            if v <= s if sign > 0 else v >= s:
                lo_c = max(lo_c, i)
            elif hi_c is None or i < hi_c:
                hi_c = i
        if hi_c is not None and lo_c >= 0:
            lo, hi = lo_c, hi_c
        else:
            # past every cached edge (rankings visited in increasing AP): a few probes above
            # the highest one when a Newton step from it lands in the next cell (one or two
            # passes); farther, Newton steps from that edge as the first guess (one or two
            # passes near the bulk, where a fresh saddle search took 3-6 more)
            near = None
            if lo_c >= 0:
                phi_n = self._newton_phi(lo_c, s, sign)
                if phi_n is None or self._index_of_phi(phi_n) <= lo_c + _GALLOP_UP_CELLS:
                    near = self._gallop_up(lo_c, below)
                elif guess is None:
                    guess = lambda: phi_n  # noqa: E731 - the tilt the Newton step found
            lo, hi = near if near is not None else self._gallop_from_guess(s, sign, below, guess)
        # below(lo) true (or lo = -1), below(hi) false
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if below(mid):
                lo = mid
            else:
                hi = mid
        return hi

    @staticmethod
    def _gallop_up(lo: int, below, probes: int = 3) -> tuple[int, int] | None:
        """``(lo, hi)`` with ``below(lo)`` true and ``below(hi)`` false, from at most ``probes``
        edges above ``lo`` (``lo + 1``, ``+ 2``, ``+ 4`` ...); None if they are all below ``s``."""
        step = 1
        for _ in range(probes):
            hi = lo + step
            if not below(hi):
                return lo, hi
            lo = hi
            step *= 2
        return None

    def _gallop_from_guess(self, s: float, sign: int, below, guess=None) -> tuple[int, int]:
        """``(lo, hi)`` with ``below(lo)`` true (or ``lo = -1``) and ``below(hi)`` false, galloping
        from :meth:`_guess_index`, or from the cell of ``guess()``, a tilt near the saddle point
        (None: no guess)."""
        phi = None if guess is None else guess()
        j0 = self._guess_index(s, sign) if phi is None else self._newton_index(s, sign, phi)
        step = 1
        if below(j0):  # the answer is above j0
            lo, hi = j0, j0 + 1
            while below(hi):
                lo = hi
                step *= 2
                hi = j0 + step
                if hi > 100_000:
                    raise RuntimeError("tilt grid search did not terminate")
        else:  # the answer is j0 or below
            lo, hi = j0 - 1, j0
            while lo >= 0 and not below(lo):
                hi = lo
                step *= 2
                lo = j0 - step
            lo = max(lo, -1)
        return lo, hi

    def _newton_index(self, s: float, sign: int, phi: float) -> int:
        """A guess of :meth:`grid_index` from a tilt ``phi`` near the saddle point: Newton steps
        in ``phi`` on the cell edges (``K'`` and ``K''`` there, cached for the search that
        follows), at most three, each moving at most one doubling of ``phi``."""
        j = self._index_of_phi(phi)
        for _ in range(3):
            v, v2 = self._k1_edge(j, sign), self._k2_edge(j, sign)
            if not (v2 > 0.0 and math.isfinite(v)):
                break
            pe = abs(self.grid_phi(j + 0.5))
            pn = min(max(pe + sign * (s - v) / v2, 0.5 * pe), 2.0 * pe)
            jn = self._index_of_phi(pn)
            if jn == j:
                break
            j = jn
        return j

    def _newton_phi(self, i: int, s: float, sign: int) -> float | None:
        """The tilt of one Newton step towards ``s`` from the cached cell edge ``i + 1/2`` (its
        K' and K''), at most twice that edge's tilt; None where K'' is not usable."""
        v, v2 = self._k1_edge(i, sign), self._k2_edge(i, sign)
        if not (v2 > 0.0 and math.isfinite(v)):
            return None
        pe = abs(self.grid_phi(i + 0.5))
        return min(max(pe + sign * (s - v) / v2, pe), 2.0 * pe)

    def _index_of_phi(self, phi: float) -> int:
        """The grid point whose cell holds the tilt ``phi`` (0 below the first edge)."""
        psi = abs(phi) * self.sd_s
        if not psi > 0.0 or not math.isfinite(psi):
            return 0
        j = math.floor(self.per_octave * (math.log2(psi) - math.log2(_GRID_START))) + 1
        return max(j, 0)

    def _guess_index(self, s: float, sign: int) -> int:
        """A first guess of :meth:`grid_index`: the cell of a loosely solved saddle point.

        :meth:`saddle` with ``tol = 0.02``: K' within 0.02 tilted standard
        deviations of ``s``, so ``phi`` within ``0.02 / (phi sqrt(K''))``
        relative — far inside a cell (4.4 % wide) once ``phi sqrt(K'')`` is
        above 1; typically 3-6 recursion passes, near the top of the support
        too (where galloping from a normal approximation took up to 19).
        """
        if self.compressed or (s - self.mean_s) * sign <= 0.0:
            return 0
        return self._index_of_phi(self.saddle(s, tol=0.02)[0])

    # -- draws ---------------------------------------------------------------
    def draws(self, j: int, n: int):
        """``(log Z_c(phi_j) - log C(N, P) + phi_j c, first n draws of S)`` at grid point j."""
        entry = self._draws.get(j)
        if entry is None or entry[1].shape[0] < n:
            have = 0 if entry is None else entry[1].shape[0]
            out = np.empty(n)
            if have:
                assert entry is not None
                out[:have] = entry[1]
            key = np.uint64(_mix_seed(self.seed, self.N, self.P, j))
            if j == 0:
                # untilted: uniform random placements from the O(P) sampler, no tables
                k0 = 0.0
                null_ap_draws(key, have, n - have, self.N, self.P, out[have:])
                out[have:] *= self.P
            else:
                k0, layers = self._layers_at(j)
                tilt_draws(layers, self.N, self.P, key, have, n - have, out[have:])
            entry = (k0, out)
            self._draws[j] = entry
        return entry[0], entry[1][:n]

    def _layers_at(self, j: int):
        """``(K(phi_j), stored layers)``; one grid point's layers are kept at a time."""
        if self._layers is not None and self._layers[0] == j:
            return self._layers[1], self._layers[2]
        self._layers = None  # free before allocating the next
        phi = self.grid_phi(j)
        log_zc, _, _, layers = tilt_forward(self.N, self.P, phi, self.mean_s, False, True)
        k0 = log_zc - self.log_comb + phi * self.mean_s
        if j == 0:
            k0 = 0.0  # exactly
        self._layers = (j, k0, layers)
        return k0, layers

    def release(self):
        """Drop cached draws and layers (keeps the cached CGF values)."""
        self._draws.clear()
        self._layers = None
        self._g2 = None
        if self._cz is not None:
            self._cz.release()

    def split_plans(self) -> list[tuple[int, int]]:
        """The candidate ``(k0, M)`` of :func:`pranker._numba.tilt.tilt_split_contributions`.

        Where the variance lives depends on the depth of the tail: at N =
        5,000, P = 500 and p ~ 1e-9, 95 % of the variance per draw came from
        the top 50 positives, and re-drawing them 8 times per draw cut the
        relative variance times the cost 3.6-fold; at p ~ 1e-290 the top 100
        positives are pinned to the top ranks and the variance is spread over
        positives 100 to 300, where splitting gains nothing. So each grid
        point picks among these by a pilot (:meth:`_split_plan`). Re-drawing
        the top fifth 8 times was added on 2026-12-05: at N = 10^4, P = 100
        and 80 null sd it needs 0.6 times the work of the others, and
        ``pranker_many`` on 10^4 rankings of that size took 6 % less time.
        """
        P = self.P
        plans = [(2, 1)]
        if P > 10:
            plans += [
                (max(3, round(P / 10)), 8),
                (max(3, round(P / 5)), 8),
                (max(4, round(P / 3)), 4),
            ]
        return list(dict.fromkeys(plans))  # distinct, in this order

    def _split_plan(self, j: int, upper: bool, rtol: float = DEFAULT_RTOL) -> tuple[int, int]:
        """The candidate of :meth:`split_plans` that reaches ``rtol`` for the least work.

        Measured at grid point ``j`` on :data:`_PILOT_DRAWS` draws of each,
        from a stream of its own (the estimate's draws take no part in the
        choice, so it stays unbiased), for the threshold at the middle of
        the grid point's cell (the mean of K' at its two edges). The work of
        a plan is its cost per draw times the draws it needs, ``max(n_1,
        1.1 v / rtol^2)`` for relative variance v per draw (no estimate
        stops before its first batch of ``n_1`` draws,
        :func:`pranker.null.choice.first_draws`, so below that a smaller
        variance buys nothing). The cost is counted in positive-steps, ``P - k0 + M
        (k0 - 2)``, plus a count's worth (taken as 4 steps) per inner draw:
        not timed, which would make the answer depend on the machine. The
        plain plan is measured first, and kept without trying the others
        when it needs no more than the first draws. The choice is thus a
        function of (seed, N, P, grid point, tail, rtol): cached, shared by
        every threshold of the cell, the same whether a ranking is asked
        alone or among many.
        """
        plans = self.split_plans()
        if len(plans) == 1:
            return plans[0]
        cached = self._plans.get((j, upper, rtol))
        if cached is not None:
            return cached
        sign = 1 if upper else -1
        i = abs(j)
        s = 0.5 * (self._k1_edge(i - 1, sign) + self._k1_edge(i, sign))
        thr = s * (1.0 - REL_TOL) if upper else s * (1.0 + REL_TOL)
        phi = self.grid_phi(j)
        _, layers = self._layers_at(j)
        log_g2 = self._log_g2(j)
        key = np.uint64(_mix_seed(self.seed, self.N, self.P, _PILOT_STREAM + i))
        best, best_score = plans[0], math.inf
        w = np.empty(_PILOT_DRAWS)
        for k0, M in plans:
            tilt_split_contributions(
                layers, self.N, self.P, key, 0, _PILOT_DRAWS, k0, M, phi, s, thr, log_g2, upper, w
            )
            mu = float(w.mean())
            if not mu > 0.0:
                continue
            draws = max(float(first_draws(rtol)), 1.1 * float(w.var()) / (mu * mu) / (rtol * rtol))
            score = draws * (self.P - k0 + M * (k0 - 2) + 4 * M)
            if score < best_score:
                best, best_score = (k0, M), score
            if (k0, M) == plans[0] and draws <= first_draws(rtol):
                break  # the plain plan needs only the first draws: nothing to gain
        self._plans[(j, upper, rtol)] = best
        return best

    def _log_g2(self, j: int):
        """``log G_2(d)``, the tilted weight of the top two positives' placements below ``d_3 = d``."""
        if self._g2 is None or self._g2[0] != j:
            phi = self.grid_phi(j)
            d = np.arange(self.N - self.P + 1, dtype=np.float64)
            log_h = np.logaddexp.accumulate(phi / (1.0 + d))
            self._g2 = (j, np.logaddexp.accumulate(2.0 * phi / (2.0 + d) + log_h))
        return self._g2[1]

    def _contributions(
        self,
        s: float,
        j: int,
        n: int,
        upper: bool,
        estimate: bool = True,
        rtol: float = DEFAULT_RTOL,
        target: int | None = None,
    ):
        r"""``(log offset, c)`` of the first n draws at grid point j: the tail is ``e^offset mean(c)``.

        At a tilted grid point the top two positives are summed out exactly
        (conditional Monte Carlo): given the other positives (their part
        ``R`` of S, and ``d_3``), the tilted law of ``d_1 <= d_2 <= d_3`` is
        ``e^{phi T} / G_2(d_3)`` with ``T = 1/(1 + d_1) + 2/(2 + d_2)``, so
        the draw contributes

        .. math::

            E_\phi[e^{K - \phi S} 1\{S \ge s\} \mid R, d_3]
              = e^{K - \phi R} \, \#\{T \ge s - R\} / G_2(d_3),

        a count in closed form by runs of ``d_2``
        (:func:`pranker._numba.toptwo.count_top_two`), so the estimator stays
        unbiased and its variance can only fall (Rao–Blackwell); with few
        positives, where their places decide the event, by orders of
        magnitude (with P = 2 nothing random is left: the estimate is exact).
        With many positives the next ones (3 to ``k0``) carry most of the
        rest of the variance when the tail is not deep; each draw then
        re-draws them M times below the same lower positives (splitting), the
        plan chosen per threshold by a pilot (:meth:`_split_plan`). The lower
        tail counts ``T <= s - R`` the same way.

        ``target`` (an N_t <= N, upper tail): the tail of (N_t, P) from these
        draws. A uniform P-subset of ``1..N`` whose last positive lies within
        ``N_t`` is a uniform P-subset of ``1..N_t``, and the same holds under
        the tilt (its weight depends on S alone): the tilted law of N
        conditioned on ``r_P <= N_t`` is the tilted law of N_t,

        .. math::

            q_{N,\phi}(x \mid r_P \le N_t)
              = \frac{e^{\phi S(x)}}{\sum_{y \subseteq 1..N_t} e^{\phi S(y)}}
              = q_{N_t,\phi}(x).

        So one set of layers serves every size of a bin: drawing the last
        positive within ``N_t`` and the others given it, backwards, is
        drawing from N_t's own law. The bin's draws take the last positive
        from a mixture of these truncations over the bin's sizes
        (:meth:`_mixture`), the rest as always; a draw's likelihood ratio
        against N_t's law depends on its last positive alone
        (:meth:`_weight_table`), and the tail is ``e^{K_{N_t}(phi) - phi
        s}`` times the self-normalized mean of the contributions with those
        weights (:func:`pranker._numba.selfnorm.selfnorm_summary`; ``K_{N_t}``
        read off the same layers by :meth:`_target_cgf`). An earlier version
        drew from N's own law and counted only the draws within N_t (a weight
        of 0 or 1): near the bulk only about ``(N_t / N)^P`` of them
        did. Cell 0 (thresholds near the mean, p above about 0.4) weights
        the hits among the untilted draws of the same mixture.
        """
        phi = self.grid_phi(j)
        if self.compressed:
            assert self._cz is not None  # made whenever self.compressed
            assert target is None  # shared sizes are exact-layer problems
            return self._cz.contributions(phi, self.seed, n, s, upper, REL_TOL, estimate)
        if target is not None:
            return self._shared_contributions(s, j, n, upper, estimate, rtol, int(target))
        if j == 0:
            k0, S = self.draws(j, n)
            if not estimate:
                return None
            hit = S >= s * (1.0 - REL_TOL) if upper else S <= s * (1.0 + REL_TOL)
            w = np.zeros(n)
            w[hit] = 1.0
            return k0, w
        thr = s * (1.0 - REL_TOL) if upper else s * (1.0 + REL_TOL)
        k0, M = self._split_plan(j, upper, rtol)
        k_phi, w, _ = self._split_entry(j, s, thr, upper, k0, M, n, False)
        if not estimate:
            return None
        return k_phi - phi * s, w[:n]

    def _split_entry(self, j, s, thr, upper, k0, M, n, mixed):
        """``(K(phi_j), contributions, tops)`` of the first n split draws at grid point j for the
        threshold ``s`` (cached, one threshold at a time), and the offset of each draw's last
        positive; ``mixed``: the draws of the bin's mixture (shared sizes, :meth:`_mixture`)."""
        phi = self.grid_phi(j)
        key_ = ("split", j, upper, thr, k0, M, mixed)
        entry = self._draws.get(key_)
        if entry is None:
            # one threshold's contributions are kept at a time
            for other in [k for k in self._draws if isinstance(k, tuple) and k[0] == "split"]:
                del self._draws[other]
        have = 0 if entry is None else entry[2]
        if have < n:
            k_phi, layers = self._layers_at(j)
            w = _grown(None if entry is None else entry[1], have, n)
            tops = _grown(None if entry is None else entry[3], have, n, dtype=np.int64)
            log_g2 = self._log_g2(j)
            S, D, top = self._split_states(j, k0, M, n, mixed)
            c = S.shape[0]  # draws whose states are kept (shared by the cell's thresholds)
            if have < c:
                part = w[have:c]
                split_contributions(S[have:c], D[have:c], phi, s, thr, log_g2, upper, part)
                tops[have:c] = top[have:c]
            key = np.uint64(_mix_seed(self.seed, self.N, self.P, j))
            mix = self._mixture() if mixed else None
            for lo in range(max(have, c), n, DRAW_CHUNK):  # beyond: drawn, used, dropped
                hi = min(n, lo + DRAW_CHUNK)
                part = w[lo:hi]
                tilt_split_contributions(
                    layers,
                    self.N,
                    self.P,
                    key,
                    lo,
                    hi - lo,
                    k0,
                    M,
                    phi,
                    s,
                    thr,
                    log_g2,
                    upper,
                    part,
                    tops[lo:hi],
                    mix,
                )
            entry = (k_phi, w, n, tops)
            self._draws[key_] = entry
        return entry[0], entry[1], entry[3]

    def _plain_draws(self, n: int):
        """``(S, top)`` of the first n untilted draws of the bin's mixture (cell 0 of shared
        sizes, :meth:`_mixture`)."""
        entry = self._draws.get("plain")
        have = 0 if entry is None else entry[2]
        if have < n:
            S = _grown(None if entry is None else entry[0], have, n)
            top = _grown(None if entry is None else entry[1], have, n, dtype=np.int64)
            _, layers = self._layers_at(0)
            key = np.uint64(_mix_seed(self.seed, self.N, self.P, 0))
            tilt_draws(
                layers, self.N, self.P, key, have, n - have, S[have:n], top[have:n], self._mixture()
            )
            entry = (S, top, n)
            self._draws["plain"] = entry
        assert entry is not None
        return entry[0][:n], entry[1][:n]

    def _split_states(self, j: int, k0: int, M: int, n: int, mixed: bool = False):
        """``(S, D, top)``: the states of the first ``min(n, budget)`` draws at grid point j (cached,
        one point at a time), and the offset of each draw's last positive; ``mixed``: the draws
        of the bin's mixture (:meth:`_mixture`).

        At most :data:`_STATE_BUDGET` inner draws (16 bytes each) are kept;
        draws beyond are made for each threshold and dropped — the same
        numbers, from the same streams.
        """
        cap = max(DRAW_CHUNK, _STATE_BUDGET // M)
        want = min(n, cap)
        entry = self._draws.get(("states", j, k0, M, mixed))
        if entry is None:
            for other in [k for k in self._draws if isinstance(k, tuple) and k[0] == "states"]:
                del self._draws[other]
            S = D = top = None
            have = 0
        else:
            S, D, top, have = entry
        if have < want:
            S = _grown(S, have, want, cap, (M,))
            D = _grown(D, have, want, cap, (M,), np.int64)
            top = _grown(top, have, want, cap, (), np.int64)
            _, layers = self._layers_at(j)
            key = np.uint64(_mix_seed(self.seed, self.N, self.P, j))
            tilt_split_states(
                layers,
                self.N,
                self.P,
                key,
                have,
                want - have,
                k0,
                M,
                S[have:want],
                D[have:want],
                top[have:want],
                self._mixture() if mixed else None,
            )
            self._draws[("states", j, k0, M, mixed)] = (S, D, top, want)
        assert S is not None and D is not None and top is not None
        return S[:want], D[:want], top[:want]

    # -- the tail ------------------------------------------------------------
    def tail(
        self,
        s: float,
        *,
        upper: bool = True,
        rtol: float = DEFAULT_RTOL,
        max_draws: int = DEFAULT_MAX_DRAWS,
        conf_level: float = 0.95,
        index: int | None = None,
        progress: bool | None = None,
        max_work: int | None = None,
        target: int | None = None,
    ) -> TailEstimate:
        """``P(S >= s)`` (``upper``) or ``P(S <= s)`` by the tilted estimator.

        With the compressed proposal, an upper tail beyond the mean uses
        state-dependent tilting (:meth:`CompressedProposal.state_dependent`)
        when its tables fit; otherwise, and with exact layers, the grid point
        ``index`` (found by :meth:`sampling_point` when not given).

        Draws are made in chunks of :data:`DRAW_CHUNK` (the same numbers as
        in one go: each draw has its own stream), so Ctrl-C stops a long call
        within about a second. When the first draws predict more than about
        2 s, a tqdm progress bar is shown if ``progress`` is True, or with
        None (the default) when stderr is a terminal.

        ``max_work`` (None: no bound) caps the work in the units of
        :mod:`pranker.null.choice` (``WORK_*``): the passes of the saddle
        search (at most half of it; then the best tilt found so far), the
        tables, and the draws times the positives each walks. The charge is
        nominal — what the estimate costs from scratch, whatever the caches
        hold — so a threshold gets the same number alone or among many.

        ``target`` (an N_t with P < N_t <= N; upper tail, exact layers, P >=
        3): the tail of (N_t, P) from this engine's draws (see
        :meth:`_contributions`); every N_t of a bin of
        :func:`pranker.null.choice.tilt_shared_n` shares them.
        """
        # the (N, P) whose tail is asked: its moments and C(N, P) for the bounds
        tgt: LayersCGF = self if target is None else LayersCGF(int(target), self.P)
        if upper and s > self.P * (1.0 + REL_TOL):  # above the largest S: no placement reaches it
            return TailEstimate(-math.inf, 0.0, (-math.inf, -math.inf), 0, 0.0)
        if upper and s * (1.0 - REL_TOL) > self.P - 1.0 / (self.P + 1.0):
            # above the second largest S (the last positive one rank down): only the
            # perfect ranking, p = 1 / C(N, P) exactly (no tilt reaches it: it would be infinite)
            lp = -tgt.log_comb / math.log(10.0)
            return TailEstimate(lp, 0.0, (lp, lp), 0, 0.0)
        if self.compressed and upper and s > self.mean_s:
            # about 8 passes of ~80 ns per table cell: a bar when that is long
            cz = self._cz
            assert cz is not None  # made whenever self.compressed
            slow = 8 * 80e-9 * self.P * cz.n_knots > BAR_SECONDS
            share = None if max_work is None else int(WORK_SADDLE_SHARE * max_work)
            with progress_bar(8, "finding the tilt", progress if slow else False) as bar:
                phi_star, spent, cut = cz.saddle_within(s, self.mean_s, self.sd_s, bar, share)
            plan = cz.state_dependent_tilts(s, phi_star)
            if plan is not None:
                phis, kc = plan
                seeds = tuple(
                    _mix_seed(self.seed, self.N, self.P, _SD_STREAM + i) for i in range(2)
                )

                def contributions(n, estimate=True):
                    return cz.state_dependent(s, phis, kc, phi_star, seeds, n, REL_TOL, estimate)

            else:  # the tilts' tables would not fit: one tilt, at the saddle point

                def contributions(n, estimate=True):
                    return cz.contributions(phi_star, self.seed, n, s, True, REL_TOL, estimate)

            cost = compressed_cost(cz, plan, spent)
            est = self._run(
                contributions, phi_star, rtol, max_draws, conf_level, progress, cost, max_work, cut
            )
            return self._positive(est, s, upper)
        sign = 1 if upper else -1
        if index is None:
            index = self.sampling_point(s, sign)
        est = self._estimate(
            s, sign * index, upper, rtol, max_draws, conf_level, progress, max_work, target
        )
        return self._positive(est, s, upper, tgt)

    def _positive(
        self, est: TailEstimate, s: float, upper: bool, tgt: LayersCGF | None = None
    ) -> TailEstimate:
        """``est``, unless no draw reached a threshold inside the support: then a bound, or an error.

        Inside the support the tail holds at least one placement, so ``p >=
        1 / C(N, P) > 0``. An estimate of 0 there from an estimate stopped
        by its work budget becomes an upper bound: the smaller of the
        Chernoff bound of its tilt (when it has one) and the one-sided
        Chebyshev (Cantelli) bound from the exact mean and variance, with
        the interval ``[1 / C(N, P), bound]`` and an infinite rse. From an
        estimate that was not stopped it means the sampler failed, and a
        silent 0 would be a wrong answer: an error. A capped estimate with
        too few draws to trust its normal-theory interval gets the same
        rigorous interval (:func:`pranker.null.budget.untrusted_bound`).
        ``tgt``: the (N, P) whose tail ``est`` is (by default this engine's).
        """
        tgt = self if tgt is None else tgt
        if est.log10_pvalue > -math.inf:
            return untrusted_bound(est, s, upper, tgt.mean_s, tgt.sd_s, tgt.log_comb)
        s_min = sum(k / (tgt.N - tgt.P + k) for k in range(1, tgt.P + 1))
        inside = s <= tgt.P * (1.0 + REL_TOL) if upper else s >= s_min * (1.0 - REL_TOL)
        if inside and est.capped:
            return no_hit_bound(est, s, upper, tgt.mean_s, tgt.sd_s, tgt.log_comb)
        if inside:
            raise RuntimeError(
                f"tilted estimator: none of {est.n_draws} draws reached S = {s!r} for N = "
                f"{tgt.N}, P = {tgt.P}, although the tail holds at least one placement "
                "(p >= 1/C(N, P)); this is a defect of the estimator, please report it. "
                "method='saddlepoint' gives an approximation meanwhile."
            )
        if est.capped:
            return TailEstimate(
                -math.inf, 0.0, (-math.inf, -math.inf), est.n_draws, est.phi, est.work
            )
        return est

    def _estimate(
        self, s, j, upper, rtol, max_draws, conf_level, progress=None, max_work=None, target=None
    ):
        def contributions(n, estimate=True):
            if target is None:
                return self._contributions(s, j, n, upper, estimate, rtol)
            return self._contributions(s, j, n, upper, estimate, rtol, target)

        if target is not None:  # shared sizes: no pilot; cell 0 walks the untilted layers
            plans, chosen = [], self._shared_plan(j, rtol)
        else:
            plans = None if self.compressed or j == 0 else self.split_plans()
            chosen = None if plans is None else self._split_plan(j, upper, rtol)
        cost = grid_cost(
            self.N, self.P, self._cz if self.compressed else None, plans, chosen, _PILOT_DRAWS
        )
        return self._run(
            contributions,
            self.grid_phi(j),
            rtol,
            max_draws,
            conf_level,
            progress,
            cost,
            max_work,
        )

    _run = staticmethod(run_draws)  # the draw loop and its stopping rule (pranker.null.budget)


_ENGINES: OrderedDict = OrderedDict()
_ENGINE_CACHE = 512  # engines kept (all but the one in use hold only their cached CGF values)


def tilt_engine(N: int, P: int, seed: int = DEFAULT_SEED) -> TiltEngine:
    """The shared :class:`TiltEngine` of (N, P, seed) (an LRU cache of 512).

    Caching changes no number: estimates depend only on (N, P, seed, AP).
    Only the engine in use keeps its layers and draws (up to ~160 MB, or the
    compressed proposal's tables); the others keep their cheap CGF values
    (cell edges, saddlepoint nodes, the compressed knots: kilobytes), so
    that calls that come back to an (N, P) (a table per code set, a power
    study per effect size) find its cells without new passes.
    A loop over many rankings of different sizes therefore holds the memory
    of one (it held about 80 MB more per (N, P) at N = 10^5, P = 100).
    """
    key = (int(N), int(P), int(seed))
    last = next(reversed(_ENGINES)) if _ENGINES else None
    if last is not None and last != key:  # another engine was in use: free its tables
        _ENGINES[last].release()
    eng = _ENGINES.get(key)
    if eng is None:
        eng = TiltEngine(N, P, seed)
        _ENGINES[key] = eng
        while len(_ENGINES) > _ENGINE_CACHE:
            _, old = _ENGINES.popitem(last=False)
            old.release()
    else:
        _ENGINES.move_to_end(key)
    return eng
