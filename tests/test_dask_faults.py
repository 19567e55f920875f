"""pranker.dask when things go wrong on the cluster: a worker process killed mid-run,
a task that kills every worker it runs on, a task raising inside a worker.

A real ``distributed.LocalCluster`` (two worker processes under nannies, one thread
each, 1 GiB each). Every block of the input sleeps when it is read and leaves a
marker file naming the worker process that read it, so the test sees the
computation running (and in which pass) before it kills a worker, and can tell
afterwards that lost tasks were computed again. The oracle is the in-memory
``pranker.pranker`` on the same numpy arrays (no Dask involved): the AP and the
p-value must agree to 1e-12 relative and the method must be the same.
Every wait has a timeout, so a hang fails the test instead of blocking CI.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import signal
import threading
import time

import numpy as np
import pytest

import pranker

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from dask_cluster import RebuildableCluster  # noqa: E402

import pranker.dask as pdask  # noqa: E402

pytestmark = pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"

N_BLOCKS = 48  # partitions; each read of one sleeps SLEEP seconds
BLOCK = 2_000  # rows per partition
SLEEP = 0.12  # so one pass takes ~N_BLOCKS * SLEEP / 2 workers ~ 3 s
TIMEOUT = 180  # seconds for any one computation: beyond it the test fails


def _warm(client):
    """Imports and compiled kernels on both workers, so that the timings are the runs'."""
    warm = np.arange(2_000.0)
    pdask.pranker(da.from_array(warm, chunks=500), warm % 7 == 0)


@pytest.fixture(scope="module")
def cluster():
    # The scheduler's default, stated: a task may be running on 3 workers that die
    # and is tried a 4th time; the 4th death raises KilledWorker. The killed
    # workers' tracebacks are expected: logs silenced.
    state = RebuildableCluster(allowed_failures=3, memory_limit="1GiB", silence_logs=50, warm=_warm)
    yield state
    state.close()


@pytest.fixture
def cl(cluster):
    return cluster.two_workers()  # a killed worker is back (its nanny restarts it)


class _Background:
    """``ThreadPoolExecutor(1)`` for one call, on a daemon thread, not waited for on exit.

    A computation that hangs (a cluster left without workers: the nannies failed to
    restart them) then fails its test at ``result(timeout=...)`` and neither blocks
    the ``with`` block's exit nor the end of the test run."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def submit(fn, *args, **kwargs):
        fut = concurrent.futures.Future()

        def run():
            try:
                fut.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to the test through the future
                fut.set_exception(exc)

        threading.Thread(target=run, daemon=True).start()
        return fut


def _result(fut, cluster, timeout=TIMEOUT):
    """``fut.result()``, keeping two workers up meanwhile: a worker a nanny fails to
    bring back is replaced (see ``RebuildableCluster``), so the lost work can be done
    again; still a failure after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fut.result(timeout=5)
        except concurrent.futures.TimeoutError:
            if time.monotonic() > deadline:
                raise
            if cluster.running() < 2:
                cluster.two_workers(patience=20)


def _data(seed):
    rng = np.random.default_rng(seed)
    n = N_BLOCKS * BLOCK
    y = rng.random(n) < 0.01
    s = np.round(0.6 * y + rng.normal(size=n), 2)  # ties, so that the tie mode matters
    return s, y


def _slow_read(block, marker_dir, block_info=None):
    """Identity on a block, after a marker (which block, which process) and a pause."""
    i = block_info[0]["chunk-location"][0]
    name = f"{time.monotonic_ns()}-{os.getpid()}-{i}"
    with open(os.path.join(marker_dir, name), "w"):
        pass
    time.sleep(SLEEP)
    return block


def _slow_partition(df, marker_dir, partition_info=None):
    i = partition_info["number"] if partition_info else -1
    name = f"{time.monotonic_ns()}-{os.getpid()}-{i}"
    with open(os.path.join(marker_dir, name), "w"):
        pass
    time.sleep(SLEEP)
    return df


def _reads(marker_dir):
    """The block reads so far, in order: (time started, pid, block). The times are
    ``time.monotonic_ns()``, one clock for every process of the machine."""
    return sorted(tuple(int(v) for v in name.split("-")) for name in os.listdir(marker_dir))


def _slow_input(kind, s, y, marker_dir):
    if kind == "array":
        sd = da.from_array(s, chunks=BLOCK).map_blocks(_slow_read, marker_dir, meta=s[:0])
        return {"scores": sd, "y": y}
    df = pd.DataFrame({"score": s, "label": y.astype(np.int8)})
    ddf = dd.from_pandas(df, npartitions=N_BLOCKS, sort=False)
    assert ddf.npartitions == N_BLOCKS
    return {"scores": ddf.map_partitions(_slow_partition, marker_dir, meta=df.iloc[:0])}


def _same(got, ref):
    """The oracle's fields: AP and p-value to 1e-12 relative, the same method, N, P."""
    assert got.method == ref.method
    assert (got.n, got.n_pos) == (ref.n, ref.n_pos)
    assert got.auprc == pytest.approx(ref.auprc, rel=1e-12)
    assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    # log10 p to 4.4e-13 absolute, i.e. p to 1e-12 relative (as in test_dask)
    assert got.log10_pvalue == pytest.approx(ref.log10_pvalue, rel=1e-12, abs=1e-12 / math.log(10))


def _kill_when_running(fut, marker_dir, after_reads, worker_pids, deadline):
    """Wait until the computation has read ``after_reads`` blocks and is still running,
    then SIGKILL the worker process that started the latest read (it is in the middle
    of it: every read sleeps). Returns (pid killed, time of the kill)."""
    while time.monotonic() < deadline:
        if fut.done():
            return None, None  # finished (or failed) first
        reads = _reads(marker_dir)
        if len(reads) >= after_reads:
            pid = reads[-1][1]
            assert pid in worker_pids, (pid, worker_pids)  # a worker, never this process
            os.kill(pid, signal.SIGKILL)
            return pid, time.monotonic_ns()
        time.sleep(0.01)
    raise AssertionError("the computation was never seen running")


@pytest.mark.parametrize(
    ("kind", "ties", "after_reads"),
    [
        ("array", "stable", N_BLOCKS // 3),  # in the first pass (scan; results persisted)
        ("dataframe", "average", N_BLOCKS + N_BLOCKS // 2),  # in the second pass (counts)
    ],
)
def test_worker_killed_mid_run_gives_the_same_result(
    cluster, cl, tmp_path, kind, ties, after_reads
):
    s, y = _data(3)
    ref = pranker.pranker(s, y, ties=ties)  # the oracle: in memory, no Dask
    assert ref.n == N_BLOCKS * BLOCK and ref.method in ("tilt", "exact", "saddlepoint")
    for attempt in range(3):  # retry if the run ever finishes before the kill
        marker_dir = tmp_path / f"reads-{attempt}"
        marker_dir.mkdir()
        worker_pids = set(cl.run(os.getpid).values())
        assert len(worker_pids) == 2 and os.getpid() not in worker_pids
        inputs = _slow_input(kind, s, y, str(marker_dir))
        t0 = time.monotonic()
        with _Background() as pool:
            fut = pool.submit(pdask.pranker, **inputs, ties=ties)
            killed, at = _kill_when_running(
                fut, str(marker_dir), after_reads, worker_pids, t0 + TIMEOUT
            )
            got = _result(fut, cluster)  # a hang fails here
        elapsed = time.monotonic() - t0
        if killed is not None:
            break
        cl = cluster.two_workers()
    assert killed is not None, "the computation always finished before the kill"
    reads = _reads(str(marker_dir))
    before = sum(t < at for t, _, _ in reads)
    after = {pid for t, pid, _ in reads if t > at}
    # the kill happened mid-run: other processes (the survivor, the restarted
    # worker) carried on reading after it ...
    assert after and killed not in after
    # ... and what was lost was computed again: more reads than the two passes need
    assert len(reads) > 2 * N_BLOCKS, len(reads)
    assert {i for _, _, i in reads} == set(range(N_BLOCKS))
    _same(got, ref)  # never a wrong number
    print(
        f"{kind}: killed pid {killed} after {before} reads; "
        f"{len(reads)} reads in all ({2 * N_BLOCKS} without the kill), {elapsed:.1f} s"
    )


@pytest.mark.parametrize(
    "after_reads",
    [
        pytest.param(N_BLOCKS // 3, id="first-pass"),
        pytest.param(N_BLOCKS + N_BLOCKS // 2, id="second-pass"),
    ],
)
def test_every_worker_killed_at_once(cluster, cl, tmp_path, after_reads):
    """Both workers die at once; the nannies restart them. The result must still be
    that of the in-memory pranker (or the error must say what was lost and what to do)."""
    s, y = _data(3)
    ref = pranker.pranker(s, y)
    worker_pids = set(cl.run(os.getpid).values())
    inputs = _slow_input("array", s, y, str(tmp_path))
    with _Background() as pool:
        fut = pool.submit(pdask.pranker, **inputs)
        deadline = time.monotonic() + TIMEOUT
        while len(_reads(str(tmp_path))) < after_reads:
            assert not fut.done() and time.monotonic() < deadline, "never seen running"
            time.sleep(0.01)
        for pid in worker_pids:
            os.kill(pid, signal.SIGKILL)
        got = _result(fut, cluster)
    assert len(_reads(str(tmp_path))) > 2 * N_BLOCKS  # lost work was done again
    _same(got, ref)


def _die(block, marker_dir, poison, block_info=None):
    """Kill the worker process that reads block ``poison``, every time."""
    i = block_info[0]["chunk-location"][0]
    if i == poison:
        with open(os.path.join(marker_dir, f"{time.monotonic_ns()}-{os.getpid()}-{i}"), "w"):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
    return block


def test_task_killing_every_worker_is_a_clear_error(cluster, cl, tmp_path):
    """A partition that kills each worker it runs on cannot be computed: the error
    names the task and the last worker, says that the workers died, points to what
    to do, and no number is returned."""
    from distributed import KilledWorker

    s, y = _data(4)
    sd = da.from_array(s, chunks=BLOCK).map_blocks(_die, str(tmp_path), 5, meta=s[:0])
    t0 = time.monotonic()
    with _Background() as pool:
        fut = pool.submit(pdask.pranker, sd, y)
        with pytest.raises(KilledWorker) as info:
            _result(fut, cluster)
    elapsed = time.monotonic() - t0
    msg = str(info.value)
    deaths = _reads(str(tmp_path))
    assert len(deaths) == 4  # allowed-failures = 3: tried on 4 workers, all died
    assert len({pid for _, pid, _ in deaths}) == 4  # four different processes
    assert "_die" in msg and ", 5)" in msg  # the task: the block function, block 5
    assert "tcp://" in msg and "died" in msg  # the last worker, and what happened to it
    assert "log" in msg  # what to do: read the workers' logs
    print(f"KilledWorker after {len(deaths)} worker deaths, {elapsed:.1f} s: {msg}")
    cluster.two_workers()
    # the cluster is still usable (with a replacement worker, if a nanny failed), and
    # gives the right answer afterwards
    small = da.from_array(s[:10_000], chunks=2_500)
    _same(pdask.pranker(small, y[:10_000]), pranker.pranker(s[:10_000], y[:10_000]))


def _nan_from_second_read(block, marker_dir, block_info=None):
    """Fine on the first read of each block; block 7 holds a NaN on later reads."""
    i = block_info[0]["chunk-location"][0]
    marker = os.path.join(marker_dir, f"read-{i}")
    if i == 7 and os.path.exists(marker):
        block = block.copy()
        block[3] = np.nan
    with open(marker, "w"):
        pass
    return block


@pytest.mark.parametrize("kind", ["array", "dataframe"])
def test_nan_scores_in_a_partition_are_a_clear_error(cl, kind):
    """NaN scores in one partition raise the package's ValueError (naming the
    partition and the row), whichever partition fails first; no result is returned."""
    s, y = _data(5)
    s = s[: 16 * 1_000].copy()
    y = y[:16_000]
    s[9 * 1_000 + 17] = np.nan  # partition 9, row 17 within it
    s[12 * 1_000 + 2] = np.nan  # and partition 12: the first in order is reported
    with pytest.raises(ValueError, match="NaN") as ref:
        pranker.pranker(s, y)
    if kind == "array":
        inputs = {"scores": da.from_array(s, chunks=1_000), "y": y}
    else:
        df = pd.DataFrame({"score": s, "label": y.astype(np.int8)})
        inputs = {"scores": dd.from_pandas(df, npartitions=16, sort=False)}
    with _Background() as pool:
        fut = pool.submit(pdask.pranker, **inputs)
        with pytest.raises(ValueError) as info:
            fut.result(timeout=TIMEOUT)
    msg = str(info.value)
    assert "1 NaN value(s) in partition 9" in msg and "index 17" in msg, msg
    assert "impute" in msg  # what to do
    assert "NaN" in str(ref.value)  # the in-memory error says the same thing


def test_nan_met_in_the_second_pass_is_a_clear_error(cl, tmp_path):
    """A NaN raised inside a worker during the counting pass (the source changed after
    the first read) reaches the caller as the package's ValueError, not a half result."""
    s, y = _data(6)
    s, y = s[:16_000], y[:16_000]
    sd = da.from_array(s, chunks=1_000).map_blocks(_nan_from_second_read, str(tmp_path), meta=s[:0])
    with _Background() as pool:
        fut = pool.submit(pdask.pranker, sd, y)
        with pytest.raises(ValueError) as info:
            fut.result(timeout=TIMEOUT)
    msg = str(info.value)
    assert "NaN" in msg and "partition 7" in msg and "index 3" in msg, msg
    assert os.path.exists(tmp_path / "read-7")  # it really ran on the cluster
    # the failure left nothing behind: the same call on clean data is right
    _same(pdask.pranker(da.from_array(s, chunks=1_000), y), pranker.pranker(s, y))
