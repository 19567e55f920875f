"""Scale-out benchmark: exact AP of float32 scores in parquet partitions, time and memory.

Writes N float32 scores (and int8 labels, 1% positives) as parquet files of
``PART`` rows into a temporary directory (removed afterwards), then times

- ``pranker.dask.auprc_ap`` on ``dask.dataframe.read_parquet`` with a local
  ``distributed`` cluster of 2 worker processes x 1 thread (reading included);
- ``pranker.chunked.auprc_ap_chunked`` on the same directory (one process,
  reading included);
- in-memory ``pranker.auprc_ap`` on the arrays already loaded (reading
  excluded), the single-machine baseline;

and reports the difference between the results (must be <= 1e-12), how the
dask time scales from N/10 to N, and memory:

- the peak RSS of each dask worker during the computation, above the
  worker's own baseline (a warm worker process: Python, dask, distributed,
  pandas, pyarrow, numba and the compiled kernels), as a multiple of one
  partition's bytes (5 bytes a row: float32 score + int8 label);
- the peak RSS of ``auprc_ap_chunked`` in a fresh subprocess, above its warm
  baseline, for several chunk sizes, as a multiple of one chunk's bytes.

How peaks are measured. ``VmHWM`` of ``/proc/self/status`` (the high-water
mark of the process's current address space), reset after warming by writing
``5`` to ``/proc/self/clear_refs``; the baseline is ``VmRSS`` at the reset.
Not ``resource.getrusage(RUSAGE_SELF).ru_maxrss``: on Linux that survives
``exec`` -- a process started with fork/vfork + exec (a dask nanny starting
its worker with multiprocessing's "spawn", ``subprocess.run``) begins with
the high-water mark of the process it was started from. That is where the
2360 MB "per worker, whatever N" of earlier runs came from: the nannies of a
``LocalCluster`` live in the client process, so every (re)started worker
inherited the peak of the benchmark driver (``benchmarks/run.py`` had run the
other modules first, which peaked at 2.36 GB). The row ``ru_maxrss`` shows
the old reading next to the client's own peak.

Full size: N = 2e7 and 2e8 (the in-memory baseline needs ~5 GB at 2e8);
``quick``: 2e6 and 2e7.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

PREVALENCE = 0.01
BYTES_PER_ROW = 5  # float32 score + int8 label


def _write(path: str, n: int, part: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for i, lo in enumerate(range(0, n, part)):
        m = min(part, n - lo)
        rng = np.random.default_rng([seed, i])
        y = rng.random(m) < PREVALENCE
        s = rng.random(m, dtype=np.float32)
        s[y] += np.float32(0.3) * rng.random(int(y.sum()), dtype=np.float32)
        pq.write_table(
            pa.table({"score": s, "label": y.astype(np.int8)}),
            os.path.join(path, f"part-{i:05d}.parquet"),
            row_group_size=1 << 20,
        )


def _load(path: str):
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    return t.column("score").to_numpy(), t.column("label").to_numpy()


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0  # kB
    return float("nan")


def _reset_peak() -> float:
    """Reset this process's VmHWM to its current RSS; return that RSS (MB)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:  # pragma: no cover - not Linux, or not allowed
        pass
    return _status_mb("VmRSS")


def _peak_mb() -> float:
    return _status_mb("VmHWM")


def _ru_maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _warm_and_reset(path: str | None = None):
    """Import pranker and the reader, run both once on a few rows (not measured), reset
    the peak. What is left above this baseline is the computation's own memory."""
    from pranker.scale.counts import count_chunk, range_ap_sum

    for dt in (np.float32, np.float64):
        count_chunk(np.array([0.5, 0.2], dt), np.array([1, 0]), np.array([0.5]), stable=True)
    range_ap_sum(np.array([0.5, 0.2]), np.array([True, False]), 0, 0, "average")
    if path is not None:  # the parquet -> pandas path of dask.dataframe.read_parquet
        import pyarrow.parquet as pq

        first = sorted(f for f in os.listdir(path) if f.endswith(".parquet"))[0]
        pq.ParquetFile(os.path.join(path, first)).read_row_group(0).slice(0, 1000).to_pandas()
    return _reset_peak()


_CHUNKED_CHILD = """
import sys, numpy as np
sys.path.insert(0, {here!r})
import bench_dask as b
from pranker.chunked import auprc_ap_chunked
import os, pyarrow.parquet as pq
first = sorted(f for f in os.listdir({path!r}) if f.endswith(".parquet"))[0]
next(pq.ParquetFile(os.path.join({path!r}, first)).iter_batches(batch_size=1000))
auprc_ap_chunked(lambda: iter([(np.array([0.5, 0.2], np.float32), np.array([1, 0], np.int8))]))
base = b._warm_and_reset()
ap = auprc_ap_chunked({path!r}, chunk_size={chunk})
print(repr(ap), base, b._peak_mb(), b._ru_maxrss_mb())
"""


def _chunked_peak(path: str, chunk: int):
    """AP, baseline and peak RSS (MB) of auprc_ap_chunked in a fresh process."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = _CHUNKED_CHILD.format(here=here, path=path, chunk=chunk)
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), float(out[3])


def _traced(n: int):
    """Bytes a row that numpy allocates at the peak of each per-chunk step (tracemalloc),
    on a chunk of n float32 scores with int8 labels, 1% positives."""
    import tracemalloc

    from pranker.scale import counts

    rng = np.random.default_rng(0)
    y = (rng.random(n) < PREVALENCE).astype(np.int8)
    s = rng.random(n, dtype=np.float32)
    vals, _ = counts.distinct_positive_scores(s[y.astype(bool)])
    bounds = np.array([0.25, 0.5, 0.75])
    steps = {
        "scan_chunk (pass 1)": lambda: counts.scan_chunk(s, y),
        "count_chunk (pass 2)": lambda: counts.count_chunk(s, y, vals),
        "count_chunk, stable": lambda: counts.count_chunk(s, y, vals, stable=True),
        "range_histogram (fallback)": lambda: counts.range_histogram(s, y, bounds),
        "split_by_range (fallback)": lambda: counts.split_by_range(s, y, bounds),
    }
    out = {}
    for name, f in steps.items():
        f()
        tracemalloc.start()
        f()
        out[name] = tracemalloc.get_traced_memory()[1] / n
        tracemalloc.stop()
    return out


def _measure(n: int, part: int, client, with_memory: bool, chunk_sizes=()):
    import dask.dataframe as dd

    import pranker
    import pranker.dask as pdask
    from pranker.chunked import auprc_ap_chunked

    out = {}
    d = tempfile.mkdtemp(prefix="pranker-bench-dask-")
    try:
        _write(d, n, part)
        out["client_peak"] = _ru_maxrss_mb()
        client.restart()  # fresh workers
        base = client.run(_warm_and_reset, d)
        ddf = dd.read_parquet(d)
        out["nparts"] = ddf.npartitions
        t0 = time.perf_counter()
        out["dask_ap"] = pdask.auprc_ap(ddf)
        out["dask_t"] = time.perf_counter() - t0
        peak = client.run(_peak_mb)
        out["base"] = sorted(base.values())
        out["rise"] = sorted(peak[w] - base[w] for w in peak)
        out["ru"] = sorted(client.run(_ru_maxrss_mb).values())
        t0 = time.perf_counter()
        out["chunked_ap"] = auprc_ap_chunked(d, chunk_size=part)
        out["chunked_t"] = time.perf_counter() - t0
        out["chunked_mem"] = {c: _chunked_peak(d, c) for c in chunk_sizes}
        if with_memory:
            t0 = time.perf_counter()
            s, y = _load(d)
            out["read_t"] = time.perf_counter() - t0
            pranker.auprc_ap(s[:1000], y[:1000])  # compile / load the kernels, not timed
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
    chunk_sizes = (1 << 17, 1 << 18, 1 << 19) if quick else (1 << 20, 1 << 21, 1 << 23)
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    client = Client(cluster)
    try:
        limit = [w.memory_limit for w in cluster.scheduler.workers.values()]
        res = {
            n: _measure(n, part, client, True, chunk_sizes if n == sizes[0] else ()) for n in sizes
        }
    finally:
        client.close()
        cluster.close()
    small, big = sizes
    part_mb = part * BYTES_PER_ROW / 2**20
    for n in sizes:
        r = res[n]
        tag = (
            f"dask N={n:.0e}, P~{n * PREVALENCE:.0e} ({r['nparts']} partitions of {part:.0e} rows)"
        )
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
        rise = ", ".join(f"{v:.0f} MB = {v / part_mb:.1f}x" for v in r["rise"])
        yield (
            f"{tag}: worker peak RSS above its baseline",
            f"{rise} a partition ({part_mb:.0f} MB)",
            "about 5x a partition + 100 bytes a positive (O(P)); <= 6x + 128 B x P",
            max(r["rise"]) <= 6 * part_mb + 128 * n * PREVALENCE / 2**20,
        )
        yield (
            f"{tag}: worker baseline (warm process)",
            ", ".join(f"{v:.0f} MB" for v in r["base"]),
            "reported (python, dask, pandas, pyarrow, numba)",
            None,
        )
        yield (
            f"{tag}: worker ru_maxrss (the old reading)",
            ", ".join(f"{v:.0f} MB" for v in r["ru"]) + f"; client peak {r['client_peak']:.0f} MB",
            "inherited from the client at spawn, not the worker's",
            None,
        )
        for c, (ap, base, peak, _ru) in r["chunked_mem"].items():
            c_mb = c * BYTES_PER_ROW / 2**20
            rise_c = peak - base
            yield (
                f"chunked N={n:.0e}, chunk_size 2^{c.bit_length() - 1}: peak RSS above baseline",
                f"{rise_c:.0f} MB = {rise_c / c_mb:.1f}x a chunk ({c_mb:.0f} MB)"
                f" (baseline {base:.0f} MB)",
                "reported (AP equal to in-memory: "
                f"{'yes' if abs(ap - r['mem_ap']) <= 1e-12 else 'NO'})",
                None,
            )
    for name, b in _traced(part).items():
        yield (
            f"numpy peak of {name}, chunk of {part:.0e} rows",
            f"{b:.1f} bytes/row = {b / BYTES_PER_ROW:.2f}x the chunk's bytes",
            "reported (tracemalloc)",
            None,
        )
    mem = res[small]["chunked_mem"]
    if len(mem) >= 2:
        (c0, m0), (c1, m1) = min(mem.items()), max(mem.items())
        slope = ((m1[2] - m1[1]) - (m0[2] - m0[1])) * 2**20 / (c1 - c0)
        fixed = (m0[2] - m0[1]) - slope * c0 / 2**20
        yield (
            "chunked peak RSS above baseline, fitted",
            f"{slope:.1f} bytes/row = {slope / BYTES_PER_ROW:.1f}x the chunk's bytes "
            f"+ {fixed:.0f} MB",
            "reported (float32 scores, int8 labels)",
            None,
        )
    yield (
        "dask worker memory_limit (LocalCluster default)",
        ", ".join(f"{v / 2**30:.1f} GB" for v in limit),
        "reported (not a peak)",
        None,
    )
    ratio = res[big]["dask_t"] / res[small]["dask_t"]
    yield (
        f"dask scaling N={small:.0e} -> {big:.0e} (10x rows)",
        f"{ratio:.1f}x time",
        "<= 12x (linear)",
        ratio <= 12.0,
    )
