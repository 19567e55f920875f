"""Coverage of the tilted p-values of sizes that share draws, against enumeration.

Run from the repository root (about a minute on 2 cores):

    python benchmarks/calibration_shared_sizes.py [--seed0 S] [--rtol R]

For P = 3-6 and every N from 22 up to where enumerating all placements stays
small (C(N, P) up to a few million), wherever N's bin holds more than one
size (``pranker.null.choice.tilt_shared_n``), this script enumerates every
placement's sum ``S = sum_k k / r_k`` with numpy (independently of the
package), and asks ``significance_from_ap(method="tilt")`` for thresholds from
0.3 null sd below the mean to 6 sd above (p from about 0.7 down to 1e-5),
snapped to the nearest attainable value above. Each cell takes its own seed
(``seed0 + 100000 q + 100 N + P``), so the cells are independent draws and
the share of 95 % intervals that hold the truth has a binomial error (0.7 %
at a thousand cells). With the default seed every size of a bin would share
one set of draws and the misses would come in clusters.

Prints the number of cells, the coverage of the 95 % interval, the mean,
sd and largest magnitude of ``z = (p_hat - p) / (rse p_hat)``, and the
coverage by depth.
"""

from __future__ import annotations

import argparse
import itertools
import math

import numpy as np

from pranker import significance_from_ap
from pranker.null.choice import tilt_shared_n

SIZES = {3: range(22, 80), 4: range(22, 61), 5: range(22, 46), 6: range(22, 37)}
DEPTHS = (-0.3, 0.0, 0.5, 1.0, 2.0, 3.0, 4.5, 6.0)  # null sd above the mean


def enumerated_sums(N: int, P: int) -> np.ndarray:
    """S of every placement of P positives among N, sorted (plain numpy over the combinations)."""
    k = np.arange(1, P + 1, dtype=np.float64)
    out = []
    it = itertools.combinations(range(1, N + 1), P)
    while chunk := list(itertools.islice(it, 500_000)):
        out.append((k / np.array(chunk, dtype=np.float64)).sum(axis=1))
    return np.sort(np.concatenate(out))


def cells(seed0: int, rtol: float | None = None):
    """``(P, N, depth, true p, estimate, rse, covered, z, draws)`` for every cell."""
    for P, sizes in SIZES.items():
        for N in sizes:
            if tilt_shared_n(N, P) is None:
                continue
            S = enumerated_sums(N, P)
            mu, sd = S.mean(), S.std()
            for i, q in enumerate(DEPTHS):
                at = np.searchsorted(S, mu + q * sd)
                if at >= S.size:
                    continue
                s = float(S[at])  # an attainable sum: the AP of some ranking
                p = (S.size - np.searchsorted(S, s * (1 - 1e-12))) / S.size
                seed = seed0 + 100_000 * i + 100 * N + P
                r = significance_from_ap(s / P, N, P, method="tilt", seed=seed, rtol=rtol)
                lo, hi = r.pvalue_interval
                rse = r.pvalue_rse
                z = (r.pvalue - p) / (rse * r.pvalue) if rse else math.nan
                draws = math.nan if r.n_draws is None else r.n_draws  # None: counted exactly
                yield P, N, q, p, r.pvalue, rse, lo <= p <= hi, z, draws


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument(
        "--rtol", type=float, default=None, help="the estimates' rtol (default: the package's)"
    )
    args = ap.parse_args(argv)
    rows = np.array(list(cells(args.seed0, args.rtol)), dtype=np.float64)
    z = rows[:, 7][np.isfinite(rows[:, 7])]
    print(
        f"seed0 {args.seed0}, rtol {args.rtol or 'default'}: {len(rows)} cells, 95 % interval coverage {rows[:, 6].mean():.3f}, "
        f"mean z {z.mean():+.3f}, sd z {z.std():.3f}, max |z| {np.abs(z).max():.2f}, "
        f"median draws {np.nanmedian(rows[:, 8]):.0f}, true p from {rows[:, 3].max():.2g} "
        f"to {rows[:, 3].min():.2g}"
    )
    for q in DEPTHS:
        sel = rows[:, 2] == q
        print(
            f"  {q:+.1f} sd (median p {np.median(rows[sel, 3]):.2g}): "
            f"coverage {rows[sel, 6].mean():.3f} of {sel.sum()}"
        )


if __name__ == "__main__":
    main()
