"""Chunked (out-of-core) AP: exact against in-memory auprc_ap and a plain-loop AP."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pranker
from pranker.chunked import auprc_ap_chunked, pranker_chunked

TIES = ["average", "stable", "threshold", "optimistic", "pessimistic"]


def plain_ap(scores, y, ties):
    """AP by its definition, with explicit loops (independent of pranker's kernels)."""
    s = [float(v) for v in np.ravel(scores)]
    lab = [bool(v) for v in np.ravel(y)]
    n = len(s)
    P = sum(lab)
    if ties in ("stable", "optimistic", "pessimistic"):

        def key(i):
            tie = {"stable": 0, "optimistic": -lab[i], "pessimistic": lab[i]}[ties]
            return (-s[i], tie, i)

        order = sorted(range(n), key=key)
        total, hits = 0.0, 0
        for pos, i in enumerate(order, start=1):
            if lab[i]:
                hits += 1
                total += hits / pos
        return total / P
    values = sorted(set(s), reverse=True)
    total = 0.0
    if ties == "threshold":
        seen = tp = 0
        for v in values:
            grp = [i for i in range(n) if s[i] == v]
            p = sum(lab[i] for i in grp)
            seen += len(grp)
            tp += p
            total += p / P * tp / seen
        return total
    # average: a positive of a group (A above, B positives above, m tied, p positive)
    # sits at A + t with probability 1/m; given that, the other p - 1 positives of
    # the group fill the t - 1 places before it with mean (t - 1)(p - 1)/(m - 1).
    for v in values:
        grp = [i for i in range(n) if s[i] == v]
        A = sum(1 for i in range(n) if s[i] > v)
        B = sum(1 for i in range(n) if s[i] > v and lab[i])
        m = len(grp)
        p = sum(lab[i] for i in grp)
        for t in range(1, m + 1):
            extra = (t - 1) * (p - 1) / (m - 1) if m > 1 else 0.0
            total += p * (1.0 / m) * (B + 1 + extra) / (A + t)
    return total / P


def _data(seed, n=300, levels=7, infs=True):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, n).astype(np.float64)
    if infs:
        s[rng.random(n) < 0.05] = np.inf
        s[rng.random(n) < 0.05] = -np.inf
    y = rng.random(n) < 0.3
    y[:40] = False  # the first chunks have no positives
    y[-1] = True
    return s, y


def test_oracle_matches_core_on_small_cases():
    # the oracle itself against auprc_ap on a case with every kind of tie
    s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    for ties in TIES:
        assert plain_ap(s, y, ties) == pytest.approx(pranker.auprc_ap(s, y, ties=ties), abs=1e-14)
    assert plain_ap(s, y, "stable") == pytest.approx((1 + 1 + 1 + 1 + 5 / 6) / 5, abs=1e-15)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1000])
def test_arrays_every_mode(ties, chunk_size):
    s, y = _data(1)
    ref = plain_ap(s, y, ties)
    got = auprc_ap_chunked(s, y, chunk_size=chunk_size, ties=ties)
    assert got == pytest.approx(ref, abs=1e-12)
    assert got == pytest.approx(pranker.auprc_ap(s, y, ties=ties), abs=1e-12)


@pytest.mark.parametrize("ties", TIES)
def test_fallback_every_mode(ties, tmp_path):
    s, y = _data(2, n=400)
    ref = plain_ap(s, y, ties)
    got = auprc_ap_chunked(
        s.astype(np.float32),
        y,
        chunk_size=50,
        ties=ties,
        max_positives=5,
        rows_per_range=40,
        tmp_dir=tmp_path,
    )
    assert got == pytest.approx(ref, abs=1e-12)
    assert list(tmp_path.iterdir()) == []  # range files removed


@pytest.mark.parametrize("ties", TIES)
def test_all_ties(ties):
    s = np.full(50, 0.25)
    y = np.zeros(50, dtype=bool)
    y[[3, 17, 40]] = True
    for kw in ({}, {"max_positives": 1, "rows_per_range": 5}):
        got = auprc_ap_chunked(s, y, chunk_size=8, ties=ties, **kw)
        assert got == pytest.approx(plain_ap(s, y, ties), abs=1e-12)


def test_random_against_core_many_shapes():
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(1, 80))
        s = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
        y = rng.random(n) < rng.random()
        y[rng.integers(n)] = True
        cs = int(rng.integers(1, 12))
        for ties in TIES:
            ref = pranker.auprc_ap(s, y, ties=ties)
            assert auprc_ap_chunked(s, y, chunk_size=cs, ties=ties) == pytest.approx(ref, abs=1e-12)
            got = auprc_ap_chunked(
                s,
                y,
                chunk_size=cs,
                ties=ties,
                max_positives=0,
                rows_per_range=int(rng.integers(1, 20)),
            )
            assert got == pytest.approx(ref, abs=1e-12)


def test_float32_scores_compare_exactly():
    # float32 values whose float64 neighbours differ: no false ties after conversion
    rng = np.random.default_rng(3)
    s = (rng.random(600) * 1e-4 + 1.0).astype(np.float32)
    y = rng.random(600) < 0.2
    for ties in ("average", "stable"):
        assert auprc_ap_chunked(s, y, chunk_size=111, ties=ties) == pytest.approx(
            plain_ap(s.astype(np.float64), y, ties), abs=1e-12
        )


def test_npy_memmap(tmp_path):
    s, y = _data(4, n=500)
    np.save(tmp_path / "s.npy", s.reshape(20, 25))
    np.save(tmp_path / "y.npy", y.astype(np.int8))
    got = auprc_ap_chunked(
        tmp_path / "s.npy", str(tmp_path / "y.npy"), chunk_size=37, ties="stable", average="micro"
    )
    assert got == pytest.approx(plain_ap(s, y, "stable"), abs=1e-12)
    mm = np.load(tmp_path / "s.npy", mmap_mode="r")
    assert auprc_ap_chunked(mm, y, chunk_size=64, average="micro") == pytest.approx(
        plain_ap(s, y, "average"), abs=1e-12
    )


def test_parquet_directory(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    s, y = _data(6, n=600)
    for i, lo in enumerate(range(0, 600, 200)):
        t = pa.table({"score": s[lo : lo + 200].astype(np.float32), "lab": y[lo : lo + 200]})
        pq.write_table(t, tmp_path / f"part-{i:03d}.parquet", row_group_size=64)
    s32 = s.astype(np.float32).astype(np.float64)
    for ties in TIES:
        got = auprc_ap_chunked(tmp_path, label_col="lab", chunk_size=50, ties=ties)
        assert got == pytest.approx(plain_ap(s32, y, ties), abs=1e-12)
    with pytest.raises(ValueError, match="no column 'label'"):
        auprc_ap_chunked(tmp_path)


def test_callable_source_and_pranker_result():
    s, y = _data(7, n=900)

    def chunks():
        yield s[:0], y[:0]  # an empty chunk is fine
        for lo in range(0, 900, 128):
            yield s[lo : lo + 128], y[lo : lo + 128]

    for ties in ("average", "pessimistic"):
        got = pranker_chunked(chunks, ties=ties, conf_level=0.9, seed=3)
        assert_same_result(got, pranker.pranker(s, y, ties=ties, conf_level=0.9, seed=3))
        assert got.auprc == pytest.approx(plain_ap(s, y, ties), abs=1e-12)


def test_errors_are_clear():
    s, y = _data(8, n=100)
    bad = s.copy()
    bad[57] = np.nan
    with pytest.raises(ValueError, match=r"NaN value\(s\) in rows 50:60; the first is at index 7"):
        auprc_ap_chunked(bad, y, chunk_size=10)
    with pytest.raises(ValueError, match="no positive"):
        auprc_ap_chunked(s, np.zeros(100), chunk_size=10)
    with pytest.raises(ValueError, match="same number of elements"):
        auprc_ap_chunked(s, y[:-1])
    with pytest.raises(ValueError, match="ties must be one of"):
        auprc_ap_chunked(s, y, ties="random")
    with pytest.raises(ValueError, match="chunk_size"):
        auprc_ap_chunked(s, y, chunk_size=0)
    with pytest.raises(ValueError, match="pass labels"):
        auprc_ap_chunked(s)


def test_data_changing_between_passes_is_an_error():
    s, y = _data(9, n=200)
    calls = []

    def chunks():
        calls.append(1)
        yy = y if len(calls) == 1 else np.roll(y, 1)
        for lo in range(0, 200, 50):
            yield s[lo : lo + 50], yy[lo : lo + 50]

    with pytest.raises((RuntimeError, ValueError), match="changed between"):
        auprc_ap_chunked(chunks)


def test_import_does_not_load_dask():
    import subprocess
    import sys

    code = (
        "import sys, pranker; assert pranker.dask.auprc_ap; "
        "print(sorted(m for m in ('dask', 'distributed', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_counts_switch_to_int64_before_int32_overflows():
    from pranker.chunked import combine_counts, count_chunk

    vals = np.array([0.5])
    a = count_chunk([0.5, 0.2, 0.9], [1, 0, 0], vals, stable=True)
    assert a.tied.dtype == np.int32
    a.n = 2**31 - 2  # pretend the span is huge: the sum must not wrap around
    a.between = np.array([2**31 - 3, 1], dtype=np.int32)
    b = count_chunk([0.5, 0.1], [1, 0], vals, stable=True)
    ab = combine_counts(a, b)
    assert ab.between.dtype == np.int64 and ab.between.tolist() == [2**31 - 2, 1]
    assert ab.tied.tolist() == [2] and ab.before.tolist() == [0, 1]
    assert ab.pos_tied.tolist() == [2]


# --- labels: the rule of pranker.pranker, pos_label, one answer everywhere -------------------


def _labelled(seed, n=240):
    s, y = _data(seed, n=n)
    text = np.where(y, "spam", "ham")
    codes = np.where(y, 2, np.random.default_rng(seed).choice([1, 3], n))  # 2 is positive
    return s, y, text, codes


def assert_same_result(got, ref):
    """Field for field the same result; the AP (and so the p-value) to 1e-12 relative, since
    the chunked sums run in another order. The null's moments need only N and P and come
    from the same call on both sides: those are equal bit for bit."""
    a, b = got.to_dict(), ref.to_dict()
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(b[k], (float, list)) and k not in ("conf_level", "null_mean", "null_var"):
            # log10 p to 4.4e-13 absolute, i.e. p to 1e-12 relative (near p = 1 a relative
            # bound on log10 p asks far more: the saddlepoint's K - phi s cancels to ~1e-13)
            tol = 1e-12 / math.log(10.0) if k.startswith("log10") else 1e-300
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=tol, nan_ok=True), k
        else:
            assert a[k] == b[k], k


@pytest.mark.parametrize("ties", TIES)
def test_pos_label_same_answer_as_pranker(ties):
    s, y, text, codes = _labelled(11)
    oracle = plain_ap(s, y, ties)
    for labels, pos in (
        (text, "spam"),
        (codes, 2),
        (np.where(y, 1, -1), None),
        (np.where(y, 1, -1), 1),
    ):
        ref = pranker.pranker(s, labels, pos_label=pos, ties=ties)
        assert ref.auprc == pytest.approx(oracle, abs=1e-12)
        for kw in (
            {"chunk_size": 37},
            {"chunk_size": 50, "max_positives": 5, "rows_per_range": 60},
        ):  # the fallback too
            got = pranker_chunked(s, labels, pos_label=pos, ties=ties, **kw)
            assert got.auprc == pytest.approx(oracle, abs=1e-12)
            assert_same_result(got, ref)
            ap = auprc_ap_chunked(s, labels, pos_label=pos, ties=ties, **kw)
            assert ap == pytest.approx(oracle, abs=1e-12)


def test_result_has_the_fields_of_pranker():
    s, y, text, _ = _labelled(12)
    ref = pranker.pranker(s, text, pos_label="spam")
    got = pranker_chunked(s, text, pos_label="spam", chunk_size=64)
    assert type(got) is type(ref)
    assert_same_result(got, ref)
    assert got.seed == ref.seed and got.method == ref.method
    # the p-value options reach the same engine: tilt at a chosen rtol and seed
    kw = dict(method="tilt", rtol=0.05, seed=5, pos_label="spam")
    assert_same_result(
        pranker_chunked(s, text, chunk_size=64, **kw), pranker.pranker(s, text, **kw)
    )


def test_parquet_text_labels_with_pos_label(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    s, y, text, _ = _labelled(13)
    pq.write_table(pa.table({"score": s, "label": text}), tmp_path / "d.parquet", row_group_size=50)
    got = pranker_chunked(tmp_path / "d.parquet", pos_label="spam", chunk_size=40)
    assert_same_result(got, pranker.pranker(s, text, pos_label="spam"))
    with pytest.raises(TypeError, match="non-numeric labels .*pos_label="):
        auprc_ap_chunked(tmp_path / "d.parquet", chunk_size=40)


def test_label_errors_are_those_of_pranker():
    s, y, text, codes = _labelled(14, n=60)

    def messages(labels, **kw):
        out = []
        for f in (
            lambda: pranker.pranker(s, labels, **kw),
            lambda: auprc_ap_chunked(s, labels, chunk_size=25, **kw),
        ):
            with pytest.raises((ValueError, TypeError)) as exc:
                f()
            out.append(str(exc.value))
        return out

    for a, b in (messages(codes), messages(codes.astype(float) / 2)):
        for needle in (
            "but labels must be binary (0/1, False/True or -1/1",
            "pos_label=<value> to say which value marks a positive",
        ):
            assert needle in a and needle in b, (a, b)
    for m in messages(text):
        assert "non-numeric labels" in m and "pos_label='ham'" in m
    for m in messages(codes, pos_label="2"):
        assert "pos_label='2' is a string but" in m
    for m in messages(codes, pos_label=7):
        assert "pos_label=7 does not occur in" in m and "(1 and '1' differ)" in m
    for m in messages(np.where(y, 1, -1), pos_label=np.nan):
        assert "pos_label cannot be NaN" in m
    # each chunk binary, the whole not: -1, 0 and 1 together are an error, as in memory
    mixed = np.where(y, 1, 0)
    mixed[30:] = np.where(y[30:], 1, -1)
    for m in messages(mixed):
        assert "3 distinct values (-1, 0, 1), but labels must be binary" in m, m
    # a chunk without the positive value is fine: only the total must hold one
    y2 = np.zeros(60, dtype=int)
    y2[-1] = 5
    assert auprc_ap_chunked(s, y2, chunk_size=25, pos_label=5) == pytest.approx(
        plain_ap(s, y2 == 5, "average"), abs=1e-12
    )


def test_docstring_fragments_are_filled():
    """Shared docstring fragments (pranker._docs.fill_doc) leave no ``%(name)s`` behind,
    keep the indentation of the line that names them, and an unknown name is an error."""
    import importlib

    from pranker._docs import fill_doc

    objs = [getattr(pranker, n) for n in pranker.__all__]
    for name, module in pranker._MOVED.items():  # the names that left the top level
        objs.append(getattr(importlib.import_module(f"pranker.{module}"), name))
    for mod in ("pranker.scale.chunked", "pranker.scale.dask"):
        m = importlib.import_module(mod)
        objs += [m] + [getattr(m, n) for n in m.__all__]
    for obj in objs:
        assert "%(" not in (obj.__doc__ or ""), obj
    doc = fill_doc({"x": "a : int\n    The a."})(
        "f.\n\n    Parameters\n    ----------\n    %(x)s\n"
    )
    assert doc.splitlines()[-2:] == ["    a : int", "        The a."]
    with pytest.raises(KeyError):
        fill_doc()("%(no_such_fragment)s")


def test_same_options_as_pranker_same_answer():
    """Every option of pranker() reaches the p-value out of core and on Dask alike."""
    import pranker as pk

    rng = np.random.default_rng(30)
    s = rng.random(400)
    y = rng.random(400) < 0.1
    s[y] += 0.2
    opts = dict(method="montecarlo", n_draws=3000, alpha=0.05, seed=11, progress=False)
    ref = pk.pranker(s, y, **opts)
    assert ref.method == "montecarlo" and ref.n_draws <= 3000
    got = [
        pk.chunked.pranker(s, y, chunk_size=64, **opts),
        pk.chunked.pranker_chunked(s, y, **opts),
    ]
    dd = pytest.importorskip("dask.array")
    got.append(pk.dask.pranker(dd.from_array(s, chunks=100), y, scheduler="sync", **opts))
    for r in got:
        assert type(r) is type(ref)
        assert r.auprc == pytest.approx(ref.auprc, rel=1e-12)
        # the same seed and stopping rule: the same draws, so the same count
        assert r.n_draws == ref.n_draws < 3000  # stopped early at alpha, as pranker() did
        assert (r.pvalue, *r.pvalue_interval) == pytest.approx(
            (ref.pvalue, *ref.pvalue_interval), rel=1e-12
        )
    with pytest.raises(ValueError, match="max_nodes"):
        pk.chunked.pranker(s, y, max_nodes=0)
