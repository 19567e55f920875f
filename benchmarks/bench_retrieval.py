"""Benchmark rows: Hamming-radius curves straight from packed 64-bit codes.

Issue 3, item 8: precision/recall/rate at every Hamming radius for 1,000
queries x 100,000 database codes of 64 bits, "well under a minute". The
ratio compares, in the same run, against computing the Hamming distances
alone with numpy (``np.bitwise_count`` of the XOR, chunked over queries so
the temporaries stay ~40 MB): the curves cost a histogram on top of the
distances, without ever storing them.
"""

from __future__ import annotations

import numpy as np
from run import best_of  # benchmarks/run.py puts this folder on sys.path

from pranker import hamming_radius_curves


def _numpy_distances(q: np.ndarray, db: np.ndarray, chunk: int = 50) -> int:
    """Hamming distances with numpy only (the baseline); returns a checksum."""
    total = 0
    for i in range(0, q.shape[0], chunk):
        x = np.bitwise_count(q[i : i + chunk, None, :] ^ db[None, :, :]).sum(axis=2)
        total += int(x.sum())
    return total


def rows(quick: bool):
    nq, nd = (100, 10_000) if quick else (1_000, 100_000)
    rng = np.random.default_rng(0)
    q = rng.integers(0, np.iinfo(np.uint64).max, size=(nq, 1), dtype=np.uint64, endpoint=True)
    db = rng.integers(0, np.iinfo(np.uint64).max, size=(nd, 1), dtype=np.uint64, endpoint=True)
    # relevance from 10 classes: as labels, and as a bool matrix (nq x nd bytes)
    qlab = rng.integers(0, 10, size=nq)
    dlab = rng.integers(0, 10, size=nd)
    rel = qlab[:, None] == dlab[None, :]

    small = slice(0, 4)
    hamming_radius_curves(q[small], db[:100], rel[small, :100])  # compile / load cache
    hamming_radius_curves(q[small], db[:100], query_labels=qlab[small], database_labels=dlab[:100])
    repeat = 2
    t_curves = best_of(lambda: hamming_radius_curves(q, db, rel), repeat)
    t_labels = best_of(
        lambda: hamming_radius_curves(q, db, query_labels=qlab, database_labels=dlab), repeat
    )
    t_numpy = best_of(lambda: _numpy_distances(q, db), repeat)
    rc = hamming_radius_curves(q, db, rel)
    rc_l = hamming_radius_curves(q, db, query_labels=qlab, database_labels=dlab)
    assert int(rc.retrieved[:, -1].sum()) == nq * nd
    assert np.array_equal(rc.relevant_retrieved, rc_l.relevant_retrieved)

    pairs = nq * nd
    yield (
        f"hamming_radius_curves {nq}x{nd:,} codes, 64 bits",
        f"{t_curves:.2f} s ({pairs / t_curves / 1e6:.0f} M pairs/s)",
        "well under 60 s",
        bool(t_curves < 60.0),
    )
    yield (
        "  same, relevance from class labels (no Q x M matrix)",
        f"{t_labels:.2f} s",
        "well under 60 s",
        bool(t_labels < 60.0),
    )
    yield (
        "  vs numpy Hamming distances alone (bitwise_count)",
        f"{t_curves / t_numpy:.2f}x numpy time ({t_numpy:.2f} s)",
        "<= 1x (curves cost less than numpy distances)",
        bool(t_curves <= t_numpy),
    )
