"""Benchmark rows: the tilted recursion's per-cell factor as a shared helper against written out.

The forward recursions of ``pranker._numba.tilt`` and ``pranker._numba.mean_ap``
compute each cell's factor ``e^{phi a - shift} / G_{k-1}(m)`` through the
scalar helper ``_layer_factor``. Three copies of one layer's inner loop are
timed side by side: the factor written out in the loop (the reference), the
shared helper as shipped (``inline="always"``, numba IR inlining), and a copy
compiled as a plain call. Ratios near 1 mean the helper costs nothing in the
hot loop. The machine is shared: the variants are interleaved round by round
and the best of each is kept.

The per-layer helper ``_layer_shift`` is inlined too; the last rows time
``tilt_forward`` as shipped against the same function compiled with
``_layer_shift`` as a plain call.
"""

from __future__ import annotations

import math
import types

import numpy as np
from numba import njit
from run import best_of

import pranker._numba.tilt as _tilt
from pranker._numba.tilt import _UNDERFLOW_EXP, _layer_factor

# the same Python function compiled as a plain call (no inline="always")
_factor_called = njit(_layer_factor.py_func)


@njit(cache=True)
def _layers_written(reps, k, m, phi, cP, inv_r, X, Gp, Gn, mult, shift, inv):
    for _ in range(reps):
        tot = 0.0
        for d in range(m + 1):
            a = k * inv_r[k + d] - cP
            if mult:
                e = X[k + d] * inv
            else:
                x = phi * a - shift
                e = 0.0
                if x > _UNDERFLOW_EXP:
                    e = math.exp(x) * inv
            f = e * Gp[d]
            if f < 1e-300:
                f = 0.0
            tot += f
            Gn[d] = tot
    return Gn[m]


def _layers_with(factor):
    """The cell loop of ``_layers_written`` with the factor computed by ``factor``."""

    @njit
    def loop(reps, k, m, phi, cP, inv_r, X, Gp, Gn, mult, shift, inv):
        for _ in range(reps):
            tot = 0.0
            for d in range(m + 1):
                a = k * inv_r[k + d] - cP
                e = factor(mult, X[k + d], inv, phi, a, shift)
                f = e * Gp[d]
                if f < 1e-300:
                    f = 0.0
                tot += f
                Gn[d] = tot
        return Gn[m]

    return loop


_layers_helper = _layers_with(_layer_factor)
_layers_called = _layers_with(_factor_called)


def _with_plain_call(fn, name):
    """``fn`` (a jitted function of ``pranker._numba.tilt``) recompiled with helper ``name`` as a plain call."""
    glb = dict(vars(_tilt))
    glb[name] = njit(getattr(_tilt, name).py_func)
    py = fn.py_func
    return njit(types.FunctionType(py.__code__, glb, py.__name__, py.__defaults__))


def _forward_rows(quick, rounds):
    N, P = (20_000, 100) if quick else (100_000, 300)
    plain = _with_plain_call(_tilt.tilt_forward, "_layer_shift")
    for phi in (3.0, -50.0, 900.0):
        args = (N, P, phi, 0.3 * P, True, False)
        assert plain(*args)[:3] == _tilt.tilt_forward(*args)[:3]
        best = [math.inf] * 2
        for _ in range(rounds):
            for j, fn in enumerate((_tilt.tilt_forward, plain)):
                best[j] = min(best[j], best_of(lambda fn=fn, args=args: fn(*args), 1))
        r = best[0] / best[1]
        yield (
            f"tilt_forward, phi={phi:g}: shipped / _layer_shift called",
            f"{r:.2f}x",
            "<= 1.05x",
            r <= 1.05,
        )


def rows(quick: bool):
    m = 20_000 if quick else 200_000
    reps = 5 if quick else 20
    rounds = 3 if quick else 15
    k, cP = 7, 0.3
    N = k + m
    inv_r = np.empty(N + 1)
    inv_r[0] = 0.0
    inv_r[1:] = 1.0 / np.arange(1, N + 1)
    Gp = np.linspace(1e-3, 1.0, m + 1)
    Gn = np.empty(m + 1)
    for label, phi in (("multiplicative", 50.0), ("exp", 800.0)):
        mult = abs(phi) <= 600.0
        shift = phi * (1.0 - cP)
        X = np.exp(phi * (k * inv_r - 1.0)) if mult else np.zeros(N + 1)
        args = (reps, k, m, phi, cP, inv_r, X, Gp, Gn, mult, shift, 1.0)
        ref = _layers_written(*args)
        assert _layers_helper(*args) == ref and _layers_called(*args) == ref
        # rounds interleave the three variants, so a burst of load hits them alike
        best = [math.inf] * 3
        for _ in range(rounds):
            for j, fn in enumerate((_layers_written, _layers_helper, _layers_called)):
                best[j] = min(best[j], best_of(lambda fn=fn, args=args: fn(*args), 1))
        t_ref, t_shared, t_call = best
        r = t_shared / t_ref
        yield (
            f"layer cell factor, {label}: shared helper / written out",
            f"{r:.2f}x",
            "<= 1.05x",
            r <= 1.05,
        )
        r = t_call / t_ref
        yield (
            f"layer cell factor, {label}: plain call / written out",
            f"{r:.2f}x",
            "(information)",
            None,
        )

    yield from _forward_rows(quick, rounds)


if __name__ == "__main__":
    for row in rows(False):
        print(row)
