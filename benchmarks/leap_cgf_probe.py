"""Leaping over layers of the compressed CGF pass, uncapped, against the pass over every layer.

Run:  python benchmarks/leap_cgf_probe.py 2e4 2000 0,0.3,2 0.01,0.02
      (N, P, tilts phi, leap fractions alpha)

The accurate compressed CGF (:class:`pranker.null.cgf.KnotsCGF`) walks every
layer k = 1..P. For large k the layer ``L_k = log G_k`` at a fixed knot
changes smoothly with k (at phi = 0, ``L_k(d) = log C(d + k, k)``: the
increment ``D_k = L_k - L_{k-1}`` has ``d^j D / dk^j ~ k^-j``), so the probe
runs 128 layers exactly, then repeats: three exact layers (increments
``D_1, D_2, D_3``), a leap over ``m = floor(alpha k)`` layers by the
quadratic (Newton backward-difference) extrapolation of the increments,

    L_{k+m} = L_k + m D_3 + m (m+1) / 2 (D_3 - D_2) + m (m+1) (m+2) / 6 (D_3 - 2 D_2 + D_1),

the same for the two phi-derivative rows; the floors of the layers as in the
full pass. The truncation error per leap is about ``m^4 D''' / 24 ~ alpha^4
k``, summed over the leaps about ``alpha^3 P``: layers ``~ 3 ln(P / 128) /
alpha`` instead of P. It prints K, K' and K'' against the full pass.

Measured (2026-12-04, AMD EPYC, 2 cores, loaded; K in nats, K' in tilted sd):

| N | P | phi | alpha | layers | K - K_full | (K' - K'_full)/sd |
|---:|---:|---:|---:|---:|---:|---:|
| 2*10^4 | 2,000 | 0 / 0.3 | 0.01 | 669 | +1.9e-4 / +1.9e-4 | 4e-7 |
| 2*10^4 | 2,000 | 2 | 0.01 | 669 | +6.7e-5 | 5e-6 |
| 2*10^4 | 2,000 | 0 / 0.3 / 2 | 0.02 | 469 | +1.3e-3 / +1.3e-3 / NaN | |
| 2*10^4 | 2,000 | 0 / 0.3 / 2 | 0.05 | | NaN | |
| 10^5 | 10^4 | 0 / 0.3 / 1.25 | 0.002 | 3,293 | +8.0e-6 / +7.8e-6 / +9.0e-6 | 1e-7 |
| 10^5 | 10^4 | 0 / 0.3 / 1.25 | 0.005 | 1,866 | +1.16e-4 / +1.14e-4 / +1.27e-4 | 2e-6 |
| 10^5 | 10^4 | 0 / 0.3 / 1.25 | 0.01 | 1,180 | +8.6e-4 / +8.6e-4 / +9.7e-4 | 1.3e-5 |
| 10^5 | 10^4 | 0 | 0.02 | 745 | +6.7e-3 | 6e-6 |
| 10^6 | 10^5 | 0 / 0.3 | 0.003 | 5,053 | -2.6e-3 / +8.7e-5 | 3e-5 |
| 10^6 | 10^5 | 0 / 0.3 | 0.01 | 2,559 | NaN / +5.4e-3 | 2.5e-4 |

So: where it is stable, the error grows like alpha^3 (x7.4-7.8 per doubling),
about 0.09 alpha^3 P nats, and is nearly the same at every tilt (subtracting
the leap's own K(0), which must be 0, would leave about a tenth of it). At
P = 10^5 the pass over every layer took 6.6-7.0 s, the leaped pass 0.3-1.2 s.

Why the shipped leaps (KnotsCGF, m <= 200, P <= 2*10^5) are capped. The one-layer map damps knot-to-knot modes in a
layer or two (it is a prefix sum: a perturbation at one knot is mostly
forgotten above it), so as an ODE in k the layers are stiff, and an explicit
polynomial extrapolation over m layers multiplies what is left of those
modes (round-off included: the layers are ~10^5-10^7 nats) by about m^3 / 6.
It stayed stable up to m ~ 200 (P = 10^4, alpha = 0.02) and became NaN at
m ~ 1,000 (P = 10^5, alpha = 0.01; at P = 2,000 already from alpha = 0.05 at
the junction of the unit and geometric knots, d ~ 64-110). With m capped at
a few hundred, P = 5*10^6 still needs some 5*10^4 exact layers per pass.
Smoothing the increments across knots (1-2-1, or a filter that removes the
zigzag and keeps cubics) broke the layer's monotonicity in d and failed
sooner. A stable leap needs an implicit (stiff) integrator over k, e.g.
implicit midpoint or BDF2 on dL/dk with the Jacobian of the one-layer map
(lower-triangular, B x B), or the continuum Hamilton-Jacobi form with its
fluctuation term. The floors' chord passes (P x ~70 coarse knots, two per
search) would need the same treatment.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pranker._numba.cgf_knots import band_layers_range  # noqa: E402
from pranker.null.cgf import KnotsCGF  # noqa: E402

EXACT_START = 128  # layers computed exactly before the first leap


def leap_cgf(c: KnotsCGF, phi: float, alpha: float, parallel: bool = True):
    """``(K, K', K'', exact layers)`` by the layer leap (see the module docstring)."""
    lo = c.floors(phi) if phi > 0 else np.zeros(c.P, np.int64)
    x, B, P = c.x, c.x.shape[0], c.P
    g, g1, g2 = np.zeros(B), np.zeros(B), np.zeros(B)
    k = min(EXACT_START, P)
    g, g1, g2, j0 = band_layers_range(1, k, phi, x, lo, parallel, g, g1, g2, 0)
    layers = k
    while k < P:
        m = int(alpha * k)
        if k + 3 + max(m, 4) > P:
            g, g1, g2, j0 = band_layers_range(k + 1, P, phi, x, lo, parallel, g, g1, g2, j0)
            layers += P - k
            break
        rows = [(g, g1, g2)]
        for _ in range(3):
            g, g1, g2, j0 = band_layers_range(k + 1, k + 1, phi, x, lo, parallel, g, g1, g2, j0)
            rows.append((g, g1, g2))
            k += 1
            layers += 1
        s2, s3 = m * (m + 1) / 2, m * (m + 1) * (m + 2) / 6
        out = []
        for r in range(3):
            a0, a1, a2, a3 = (rows[i][r] for i in range(4))
            d1, d2, d3 = a1 - a0, a2 - a1, a3 - a2
            out.append(a3 + m * d3 + s2 * (d3 - d2) + s3 * (d3 - 2.0 * d2 + d1))
        g, g1, g2 = out
        k += m
    return float(g[B - 1]) - c.log_comb, float(g1[B - 1]), float(g2[B - 1]), layers


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    n, n_pos = int(float(argv[0])), int(float(argv[1]))
    phis = [float(v) for v in argv[2].split(",")]
    alphas = [float(v) for v in argv[3].split(",")]
    print("| N | P | phi | alpha | layers | K - K_full | (K' - K'_full) / sd | K''/K''_full - 1 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for phi in phis:
        c = KnotsCGF(n, n_pos, parallel=True)
        t0 = time.perf_counter()
        full = c.cgf(phi)
        t_full = time.perf_counter() - t0
        sd = math.sqrt(full[2])
        for alpha in alphas:
            t0 = time.perf_counter()
            try:
                k, k1, k2, layers = leap_cgf(c, phi, alpha)
            except (ZeroDivisionError, SystemError):
                k = k1 = k2 = math.nan
                layers = -1
            t_leap = time.perf_counter() - t0
            print(
                f"| {n} | {n_pos} | {phi:g} | {alpha:g} | {layers} | {k - full[0]:+.2e} |"
                f" {(k1 - full[1]) / sd:+.2e} | {k2 / full[2] - 1:+.2e} |"
                f" <!-- {t_leap:.2f} s vs {t_full:.2f} s -->"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
