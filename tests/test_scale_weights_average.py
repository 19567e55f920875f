"""sample_weight and average in the chunked and Dask AP functions.

Oracles: scikit-learn's ``average_precision_score`` (weighted and averaged, ties
grouped by threshold), and a plain loop over the columns (or rows) calling the
in-memory ``auprc_ap`` of one ranking for the other tie modes."""

from __future__ import annotations

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics")

from pranker import auprc_ap  # noqa: E402
from pranker.chunked import auprc_ap_chunked  # noqa: E402

AVERAGES = ["micro", "macro", "weighted", "samples", None]


def _data(seed, n=120, k=3, tied=True):
    rng = np.random.default_rng(seed)
    S = rng.random((n, k))
    if tied:
        S = np.round(S * 8) / 8
    Y = rng.random((n, k)) < 0.3
    Y[0] = True  # every column and...
    Y[:, 0] |= rng.random(n) < 0.5  # ...almost every row has a positive
    Y[:, 0][~Y.any(axis=1)] = True  # every row has one ("samples")
    w = rng.uniform(0.0, 3.0, n)
    w[::7] = 0.0  # zero weights count for nothing
    return S, Y, w


def _dask_ap(S, Y, **kw):
    da = pytest.importorskip("dask.array")
    chunks = (37,) if np.ndim(S) == 1 else (37, 2)
    return pytest.importorskip("pranker.dask").auprc_ap(
        da.from_array(S, chunks=chunks), Y, scheduler="sync", **kw
    )


def _chunked_ap(S, Y, **kw):
    return auprc_ap_chunked(S, Y, chunk_size=29, **kw)


FUNCS = [_chunked_ap, _dask_ap]


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_ap_of_one_ranking_is_sklearns(f, seed):
    S, Y, w = _data(seed)
    s, y = S[:, 1], Y[:, 1]
    want = sklearn_metrics.average_precision_score(y, s, sample_weight=w)
    assert f(s, y, sample_weight=w, ties="threshold") == pytest.approx(want, rel=1e-12)
    # untied scores: the same number in memory with the weighted "stable" order
    u = np.random.default_rng(seed).permutation(s.size) / s.size
    want_u = sklearn_metrics.average_precision_score(y, u, sample_weight=w)
    assert f(u, y, sample_weight=w, ties="threshold") == pytest.approx(want_u, rel=1e-12)


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True])
def test_averages_of_a_table_are_sklearns(f, average, weighted):
    S, Y, w = _data(2)
    kw = {"sample_weight": w} if weighted else {}
    got = f(S, Y, average=average, ties="threshold", **kw)
    want = sklearn_metrics.average_precision_score(Y, S, average=average, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("ties", ["average", "optimistic", "stable"])
def test_averages_in_other_tie_modes_follow_auprc_ap(f, ties):
    """Each column (each row) ranked on its own in the tie mode, averaged by a plain loop."""
    S, Y, _ = _data(3)
    cols = [auprc_ap(S[:, j], Y[:, j], ties=ties) for j in range(S.shape[1])]
    support = Y.sum(axis=0)
    np.testing.assert_allclose(f(S, Y, average=None, ties=ties), cols, rtol=1e-12)
    assert f(S, Y, average="macro", ties=ties) == pytest.approx(np.mean(cols), rel=1e-12)
    want_w = np.sum(np.multiply(cols, support)) / support.sum()
    assert f(S, Y, average="weighted", ties=ties) == pytest.approx(want_w, rel=1e-12)
    rows = [auprc_ap(S[i], Y[i], ties=ties) for i in range(S.shape[0])]
    assert f(S, Y, average="samples", ties=ties) == pytest.approx(np.mean(rows), rel=1e-12)
    flat = auprc_ap(S.ravel(), Y.ravel(), ties=ties)
    assert f(S, Y, average="micro", ties=ties) == pytest.approx(flat, rel=1e-12)


@pytest.mark.parametrize("f", FUNCS)
def test_a_table_needs_an_average_as_in_auprc_ap(f):
    """The default is one ranking: a table is refused (it was flattened before)."""
    S, Y, _ = _data(4)
    with pytest.raises(ValueError, match=r"average='micro'.*average='macro'"):
        f(S, Y)
    with pytest.raises(ValueError, match=r"average='micro'.*average='macro'"):
        auprc_ap(S, Y)
    # 1-D input ignores average, as auprc_ap does
    assert f(S[:, 0], Y[:, 0], average="macro") == pytest.approx(
        auprc_ap(S[:, 0], Y[:, 0]), rel=1e-12
    )


@pytest.mark.parametrize("f", FUNCS)
def test_weights_refused_where_they_have_no_meaning(f):
    S, Y, w = _data(5)
    with pytest.raises(ValueError, match="optimistic"):
        f(S[:, 0], Y[:, 0], sample_weight=w, ties="optimistic")
    with pytest.raises(ValueError, match="ties='threshold'"):
        f(S[:, 0], Y[:, 0], sample_weight=w, ties="stable")
    with pytest.raises(ValueError, match="sample_weight"):
        f(S[:, 0], Y[:, 0], sample_weight=w[:-1], ties="threshold")
    with pytest.raises(ValueError, match="sample_weight 0"):
        f(S[:, 0], Y[:, 0], sample_weight=np.zeros_like(w), ties="threshold")
    bad = w.copy()
    bad[3] = -1.0
    with pytest.raises(ValueError):
        f(S[:, 0], Y[:, 0], sample_weight=bad, ties="threshold")


def test_chunked_weights_need_arrays():
    S, Y, w = _data(6)

    def source():
        yield S[:60, 0], Y[:60, 0]
        yield S[60:, 0], Y[60:, 0]

    with pytest.raises(ValueError, match="^auprc_ap_chunked: sample_weight= goes with arrays"):
        auprc_ap_chunked(source, sample_weight=w, ties="threshold")


def test_chunked_weights_from_npy_files(tmp_path):
    S, Y, w = _data(7)
    for name, a in (("s", S[:, 2]), ("y", Y[:, 2]), ("w", w)):
        np.save(tmp_path / f"{name}.npy", a)
    got = auprc_ap_chunked(
        tmp_path / "s.npy",
        tmp_path / "y.npy",
        sample_weight=tmp_path / "w.npy",
        ties="threshold",
        chunk_size=16,
    )
    want = sklearn_metrics.average_precision_score(Y[:, 2], S[:, 2], sample_weight=w)
    assert got == pytest.approx(want, rel=1e-12)
