"""Scale-out benchmark: exact AP of float32 scores in parquet partitions.

Writes N float32 scores (and int8 labels, 1% positives) as parquet files of
``PART`` rows into a temporary directory (removed afterwards), then times

- ``pranker.dask.auprc_ap`` on ``dask.dataframe.read_parquet`` with a local
  ``distributed`` cluster of 2 worker processes x 1 thread (reading included);
- ``pranker.chunked.auprc_ap_chunked`` on the same directory (one process,
  reading included);
- in-memory ``pranker.auprc_ap`` on the arrays already loaded (reading
  excluded), the single-machine baseline;

and reports the peak RSS of each worker process, the difference between the
results (must be <= 1e-12) and how the dask time scales from N/10 to N.

Full size: N = 2e7 and 2e8 (the in-memory baseline needs ~5 GB at 2e8);
``quick``: 2e6 and 2e7.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import numpy as np

PREVALENCE = 0.01


def _write(path: str, n: int, part: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for i, lo in enumerate(range(0, n, part)):
        m = min(part, n - lo)
        rng = np.random.default_rng([seed, i])
        y = rng.random(m) < PREVALENCE
        s = rng.random(m, dtype=np.float32)
        s[y] += np.float32(0.3) * rng.random(int(y.sum()), dtype=np.float32)
        pq.write_table(pa.table({"score": s, "label": y.astype(np.int8)}),
                       os.path.join(path, f"part-{i:05d}.parquet"), row_group_size=1 << 20)


def _load(path: str):
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    return t.column("score").to_numpy(), t.column("label").to_numpy()


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _warm() -> int:
    """Import pranker and load its compiled kernels on a worker (not timed)."""
    from pranker.chunked import count_chunk, range_ap_sum

    count_chunk(np.array([0.5, 0.2]), np.array([1, 0]), np.array([0.5]), stable=True)
    range_ap_sum(np.array([0.5, 0.2]), np.array([True, False]), 0, 0, "average")
    return os.getpid()


def _measure(n: int, part: int, client, with_memory: bool):
    import dask.dataframe as dd

    import pranker
    import pranker.dask as pdask
    from pranker.chunked import auprc_ap_chunked

    out = {}
    d = tempfile.mkdtemp(prefix="pranker-bench-dask-")
    try:
        _write(d, n, part)
        client.restart()  # fresh workers: peak RSS belongs to this size only
        client.run(_warm)
        ddf = dd.read_parquet(d)
        t0 = time.perf_counter()
        out["dask_ap"] = pdask.auprc_ap(ddf)
        out["dask_t"] = time.perf_counter() - t0
        out["rss"] = sorted(client.run(_peak_rss_mb).values())
        t0 = time.perf_counter()
        out["chunked_ap"] = auprc_ap_chunked(d, chunk_size=part)
        out["chunked_t"] = time.perf_counter() - t0
        if with_memory:
            t0 = time.perf_counter()
            s, y = _load(d)
            out["read_t"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            out["mem_ap"] = pranker.auprc_ap(s, y)
            out["mem_t"] = time.perf_counter() - t0
            del s, y
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


def rows(quick: bool):
    from distributed import Client, LocalCluster

    sizes = (2_000_000, 20_000_000) if quick else (20_000_000, 200_000_000)
    part = 1_000_000 if quick else 10_000_000
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    try:
        res = {n: _measure(n, part, client, True) for n in sizes}
    finally:
        client.close()
        cluster.close()
    small, big = sizes
    for n in sizes:
        r = res[n]
        tag = f"dask N={n:.0e} ({n // part} parquet parts of {part:.0e})"
        diff = max(abs(r["dask_ap"] - r["mem_ap"]), abs(r["chunked_ap"] - r["mem_ap"]))
        yield (f"{tag}: |AP - in-memory AP|", f"{diff:.1e}", "<= 1e-12", diff <= 1e-12)
        yield (
            f"{tag}: time 2 workers / in-memory auprc_ap",
            f"{r['dask_t']:.2f}s / {r['mem_t']:.2f}s = {r['dask_t'] / r['mem_t']:.2f}x "
            f"(in-memory incl. reading {r['read_t'] + r['mem_t']:.2f}s)",
            "reported (dask reads the parquet files twice)",
            None,
        )
        yield (
            f"{tag}: chunked (1 process) time",
            f"{r['chunked_t']:.2f}s = {r['chunked_t'] / r['mem_t']:.2f}x in-memory",
            "reported",
            None,
        )
        rss = ", ".join(f"{v:.0f}" for v in r["rss"])
        part_mb = part * 5 / 2**20
        yield (
            f"{tag}: peak RSS per worker (MB)",
            rss,
            f"bounded by a few partitions ({part_mb:.0f} MB of data each), not by N",
            None,
        )
    ratio = res[big]["dask_t"] / res[small]["dask_t"]
    yield (
        f"dask scaling N={small:.0e} -> {big:.0e} (10x rows)",
        f"{ratio:.1f}x time",
        "<= 12x (linear)",
        ratio <= 12.0,
    )
