"""pranker.dask on a real distributed LocalCluster (two worker processes).

Every AP is checked against a plain-loop AP written here and against the
in-memory pranker.auprc_ap, in every tie mode, to 1e-12.
"""

from __future__ import annotations

import math
import os
import signal
import sys

import numpy as np
import pytest

import pranker

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from dask_cluster import RebuildableCluster  # noqa: E402

import pranker.scale.dask as pdask  # noqa: E402

pytestmark = pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"

TIES = ["average", "stable", "threshold", "optimistic", "pessimistic"]


def plain_ap(scores, y, ties):
    """AP by its definition with explicit loops (independent of pranker's kernels)."""
    s = [float(v) for v in np.ravel(scores)]
    lab = [bool(v) for v in np.ravel(y)]
    n, P = len(s), sum(lab)
    if ties in ("stable", "optimistic", "pessimistic"):
        tie = {
            "stable": lambda i: 0,
            "optimistic": lambda i: -lab[i],
            "pessimistic": lambda i: lab[i],
        }[ties]
        order = sorted(range(n), key=lambda i: (-s[i], tie(i), i))
        total, hits = 0.0, 0
        for rank, i in enumerate(order, start=1):
            if lab[i]:
                hits += 1
                total += hits / rank
        return total / P
    total = 0.0
    seen = tp = 0
    for v in sorted(set(s), reverse=True):
        grp = [i for i in range(n) if s[i] == v]
        m, p = len(grp), sum(lab[i] for i in grp)
        if ties == "threshold":
            seen += m
            tp += p
            total += p * tp / seen
            continue
        # average: position A + t with probability 1/m; the other p - 1 tied
        # positives fill the t - 1 places before it with mean (t-1)(p-1)/(m-1)
        for t in range(1, m + 1):
            extra = (t - 1) * (p - 1) / (m - 1) if m > 1 else 0.0
            total += p / m * (tp + 1 + extra) / (seen + t)
        seen += m
        tp += p
    return total / P


@pytest.fixture(scope="module")
def cluster():
    # one retry per task: a worker dying once is recovered, twice is KilledWorker
    state = RebuildableCluster(allowed_failures=1, silence_logs=40)
    yield state
    state.close()


@pytest.fixture
def cl(cluster):
    return cluster.two_workers()


def _data(seed, n=400, levels=6):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, n).astype(np.float64)
    s[rng.random(n) < 0.05] = np.inf
    s[rng.random(n) < 0.05] = -np.inf
    y = rng.random(n) < 0.25
    y[:120] = False  # the first partitions hold no positive
    y[-1] = True
    return s, y


def _check(got, s, y, ties):
    assert got == pytest.approx(plain_ap(s, y, ties), abs=1e-12)
    assert got == pytest.approx(pranker.auprc_ap(s, y, ties=ties), abs=1e-12)


def test_workers_are_processes(cl):
    pids = cl.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()


@pytest.mark.parametrize("ties", TIES)
def test_dask_array_every_mode(cl, ties):
    s, y = _data(1)
    sd = da.from_array(s, chunks=((50, 50, 0, 100, 200),))  # an empty partition too
    yd = da.from_array(y, chunks=70)  # different chunking: rechunked to the scores'
    _check(pdask.auprc_ap(sd, yd, ties=ties, split_every=3), s, y, ties)


@pytest.mark.parametrize("ties", TIES)
def test_fallback_every_mode(cl, ties):
    s, y = _data(2)
    sd = da.from_array(s.reshape(20, 20), chunks=(5, 20))  # 2-d, micro: flattened in C order
    got = pdask.auprc_ap(
        sd, y.reshape(20, 20), ties=ties, max_positives=10, rows_per_range=120, average="micro"
    )
    _check(got, s, y, ties)


@pytest.mark.parametrize("ties", TIES)
def test_all_ties(cl, ties):
    s = np.full(90, -np.inf)
    y = np.zeros(90, dtype=bool)
    y[[5, 44, 80]] = True
    # the fallback puts every row in one range; once is enough to check it
    kw = {"max_positives": 1, "rows_per_range": 10} if ties == "stable" else {}
    _check(pdask.auprc_ap(da.from_array(s, chunks=20), y, ties=ties, **kw), s, y, ties)


def test_parquet_dataframe(cl, tmp_path):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    s, y = _data(3, n=500)
    s = s.astype(np.float32)
    for i, lo in enumerate(range(0, 500, 100)):
        pd.DataFrame(
            {"score": s[lo : lo + 100], "label": y[lo : lo + 100].astype(np.int8)}
        ).to_parquet(tmp_path / f"part-{i:03d}.parquet")
    ddf = dd.read_parquet(str(tmp_path))
    assert ddf.npartitions == 5
    s64 = s.astype(np.float64)
    for ties in ("average", "threshold"):
        _check(pdask.auprc_ap(ddf, ties=ties), s64, y, ties)
    res = pdask.pranker(ddf, ties="stable", conf_level=0.9, seed=4)
    _same_result(res, pranker.pranker(s64, y, ties="stable", conf_level=0.9, seed=4))
    fb = pdask.pranker(ddf, max_positives=3, rows_per_range=120, method="beta")
    ref = pranker.pranker(s64, y, method="beta")
    assert fb.auprc == pytest.approx(ref.auprc, abs=1e-12)
    # the null's moments need only N and P: the same call on both sides, bit for bit
    assert (fb.n, fb.n_pos, fb.null_mean, fb.null_var) == (
        ref.n,
        ref.n_pos,
        ref.null_mean,
        ref.null_var,
    )


def test_errors(cl):
    s, y = _data(4)
    bad = s.copy()
    bad[263] = np.nan
    with pytest.raises(
        ValueError, match=r"NaN value\(s\) in partition 5; the first is at index 13"
    ):
        pdask.auprc_ap(da.from_array(bad, chunks=50), y)
    # several bad partitions: the error names the first, whichever task fails first
    bad[[60, 120, 399]] = np.nan
    for _ in range(3):
        with pytest.raises(
            ValueError, match=r"NaN value\(s\) in partition 1; the first is at index 10"
        ):
            pdask.auprc_ap(da.from_array(bad, chunks=50), y)
    labels = y.astype(float)
    labels[[130, 390]] = 7.0
    with pytest.raises(ValueError, match=r"partition 2.*but labels must be binary"):
        pdask.auprc_ap(da.from_array(s, chunks=50), labels)
    with pytest.raises(ValueError, match="no positive"):
        pdask.auprc_ap(da.from_array(s, chunks=50), np.zeros(400))
    with pytest.raises(ValueError, match="same number of elements"):
        pdask.auprc_ap(da.from_array(s, chunks=50), y[:-1])
    with pytest.raises(TypeError, match="dask array"):
        pdask.auprc_ap(s, y)
    with pytest.raises(ValueError, match="ties must be one of"):
        pdask.auprc_ap(da.from_array(s, chunks=50), y, ties="first")


def test_missing_dask_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"pip install 'pranker\[dask\]'"):
        pdask._require_dask()


def _on_worker() -> bool:
    try:
        distributed.get_worker()
    except ValueError:
        return False
    return True


def _kill_once(block, marker):
    """Kill this worker process the first time any task runs it; then be the identity."""
    if _on_worker() and not os.path.exists(marker):
        with open(marker, "w") as fh:
            fh.write(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return block


def test_worker_dying_once_is_retried_exactly(cl, tmp_path):
    s, y = _data(5)
    marker = str(tmp_path / "killed")
    sd = da.from_array(s, chunks=50).map_blocks(_kill_once, marker, meta=s[:0])
    pids_before = set(cl.run(os.getpid).values())
    got = pdask.auprc_ap(sd, y, ties="stable")
    assert os.path.exists(marker)  # a worker really was killed ...
    with open(marker) as fh:
        assert int(fh.read()) in pids_before
    _check(got, s, y, "stable")  # ... and the answer is still exact


def _changes_after_first_read(block, marker_dir, block_info=None):
    """Labels that differ on every read after the first (a source that changed)."""
    i = block_info[0]["chunk-location"][0]
    marker = os.path.join(marker_dir, f"read-{i}")
    if os.path.exists(marker):
        return np.roll(block, 1)
    with open(marker, "w"):
        pass
    return block


def test_data_changing_between_passes_is_an_error(cl, tmp_path):
    s, y = _data(7)
    yd = da.from_array(y, chunks=50).map_blocks(
        _changes_after_first_read, str(tmp_path), meta=y[:0]
    )
    with pytest.raises((RuntimeError, ValueError), match="changed between"):
        pdask.auprc_ap(da.from_array(s, chunks=50), yd)


# --- labels: the rule of pranker.pranker, pos_label, one answer everywhere -------------------


def _same_result(got, ref):
    """Field for field the same result; floats to 1e-12 relative (the sums run in another
    order, so the last bits may differ)."""
    a, b = got.to_dict(), ref.to_dict()
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(b[k], (float, list)):
            # log10 p to 4.4e-13 absolute, i.e. p to 1e-12 relative (near p = 1 a relative
            # bound on log10 p asks far more: the saddlepoint's K - phi s cancels to ~1e-13)
            tol = 1e-12 / math.log(10.0) if k.startswith("log10") else 1e-300
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=tol, nan_ok=True), k
        else:
            assert a[k] == b[k], k


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_pos_label_same_answer_everywhere(cl, ties):
    from pranker.chunked import pranker_chunked

    s, y = _data(6)
    text = np.where(y, "spam", "ham")
    codes = np.where(y, 2, np.random.default_rng(6).choice([1, 3], y.size))
    for labels, pos in ((text, "spam"), (codes, 2), (np.where(y, 1, -1), None)):
        ref = pranker.pranker(s, labels, pos_label=pos, ties=ties)
        assert ref.auprc == pytest.approx(plain_ap(s, y, ties), abs=1e-12)
        chunked = pranker_chunked(s, labels, pos_label=pos, ties=ties, chunk_size=64)
        for kw in ({}, {"max_positives": 10, "rows_per_range": 120}):  # the fallback too
            got = pdask.pranker(
                da.from_array(s, chunks=50),
                da.from_array(labels, chunks=50),
                pos_label=pos,
                ties=ties,
                **kw,
            )
            _same_result(got, ref)
            _same_result(got, chunked)


def test_dataframe_text_labels_with_pos_label(cl):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    s, y = _data(7)
    text = np.where(y, "spam", "ham")
    df = dd.from_pandas(pd.DataFrame({"score": s, "label": text}), npartitions=4)
    _same_result(pdask.pranker(df, pos_label="spam"), pranker.pranker(s, text, pos_label="spam"))
    with pytest.raises(TypeError, match="non-numeric labels .*pos_label="):
        pdask.auprc_ap(df)
    with pytest.raises(ValueError, match=r"pos_label='eggs' does not occur in"):
        pdask.auprc_ap(df, pos_label="eggs")
    with pytest.raises(ValueError, match="but labels must be binary"):
        pdask.auprc_ap(da.from_array(s, chunks=50), np.where(y, 2, 0))
    mixed = np.where(y, 1, 0)
    mixed[200:] = np.where(y[200:], 1, -1)  # each partition binary, the whole not
    with pytest.raises(ValueError, match=r"\(-1, 0, 1\), but labels must be binary"):
        pdask.auprc_ap(da.from_array(s, chunks=50), mixed)
