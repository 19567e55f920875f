"""Tests of null_params_table, NullTable save/load and parse_int_ranges."""

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from pranker import null_params, pranker
from pranker.null import min_auprc
from pranker.null.beta import beta_fit
from pranker.null.tables import (
    COLUMNS,
    NullTable,
    load_null_params_table,
    null_params_table,
    parse_int_ranges,
)


def brute_moments(N, P):
    """Exact mean and variance of AP over all placements, in fractions."""
    vals = []
    for ranks in combinations(range(1, N + 1), P):
        vals.append(sum(Fraction(k, r) for k, r in enumerate(ranks, start=1)) / P)
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    return mean, var, min(vals)


def assert_same_result(got, ref):
    """Field for field the same result; floats to 1e-12 relative (two code paths)."""
    a, b = got.to_dict(), ref.to_dict()
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(b[k], (float, list, tuple)):
            # log10 p to 4.4e-13 absolute, i.e. p to 1e-12 relative
            tol = 1e-12 / math.log(10.0) if k.startswith("log10") else 1e-300
            assert a[k] == pytest.approx(b[k], rel=1e-12, abs=tol, nan_ok=True), k
        else:
            assert a[k] == b[k], k


def assert_tables_equal(a, b):
    assert len(a) == len(b)
    for c in COLUMNS:
        np.testing.assert_array_equal(getattr(a, c), getattr(b, c))  # NaN == NaN here


def test_grid_rows_and_values():
    t = null_params_table([9, 3, 9, 40], [1, 3, 5, 50])
    pairs = list(zip(t.N.tolist(), t.P.tolist(), strict=True))
    assert pairs == [(3, 1), (3, 3), (9, 1), (9, 3), (9, 5), (40, 1), (40, 3), (40, 5)]
    for i, (n, p) in enumerate(pairs):
        if n <= 9:
            mean, var, lo = brute_moments(n, p)
            assert t.mean[i] == pytest.approx(float(mean), rel=1e-14)
            assert t.var[i] == pytest.approx(float(var), rel=1e-12, abs=1e-17)
            assert t.min_auprc[i] == pytest.approx(float(lo), rel=1e-14)
        # the table's batched kernel against the scalar functions: to 1e-12 relative
        ref = null_params(n, p)
        assert t.mean[i] == pytest.approx(ref.mean, rel=1e-12)
        assert t.var[i] == pytest.approx(ref.var, rel=1e-12, abs=1e-300)
        assert t.min_auprc[i] == pytest.approx(min_auprc(n, p), rel=1e-12)
        fit = beta_fit(ref.mean, ref.var, n, p)
        np.testing.assert_allclose(
            [t.beta_alpha[i], t.beta_beta[i]], [fit.alpha, fit.beta], rtol=1e-13
        )  # NaN for P = N on both sides
    assert np.isnan(t.beta_alpha[1]) and t.var[1] == 0.0  # P = N


def test_two_point_null_has_nan_shapes():
    t = null_params_table([2], [1, 2])
    assert np.isnan(t.beta_alpha).all() and np.isnan(t.beta_beta).all()
    assert t.var[0] > 0


@pytest.mark.parametrize("suffix", [".csv", ".npz", ".CSV"])
def test_round_trip_bit_for_bit(tmp_path, suffix):
    t = null_params_table([5, 77, 10**6, 2**40], [1, 2, 5, 76, 77, 10**5])
    path = t.save(tmp_path / f"table{suffix}")
    back = NullTable.load(path)
    assert_tables_equal(t, back)
    assert_tables_equal(t, load_null_params_table(path))
    assert back.N.dtype == np.int64 and back.N[-1] == 2**40


def test_loaded_params_reproduce_pranker(tmp_path):
    rng = np.random.default_rng(9)
    cases = []
    for n, p in [(50, 5), (200, 20), (1000, 3), (40, 40)]:
        y = np.zeros(n, dtype=bool)
        y[rng.choice(n, p, replace=False)] = True
        s = rng.standard_normal(n) + y
        cases.append((s, y))
    t = null_params_table([50, 200, 1000, 40], [3, 5, 20, 40])
    for suffix in (".csv", ".npz"):
        back = NullTable.load(t.save(tmp_path / f"t{suffix}"))
        for s, y in cases:
            own = pranker(s, y, method="beta")
            via = pranker(s, y, params=back.params(own.n, own.n_pos), method="beta")
            # the table's moments come from its batched kernel: field for field to 1e-12
            assert_same_result(via, own)
            # the table's moments are the closed forms: mean (P-1)/(N-1) + (N-P) H_N / (N(N-1))
            n, p = own.n, own.n_pos
            h = sum(1.0 / i for i in range(1, n + 1))
            assert via.null_mean == pytest.approx(
                ((p - 1) * n + (n - p) * h) / (n * (n - 1)) if n > 1 else 1.0, rel=1e-12
            )
    with pytest.raises(KeyError):
        t.params(50, 4)


def test_no_overwrite_and_atomicity(tmp_path):
    t = null_params_table([10], [1, 2])
    path = tmp_path / "t.csv"
    t.save(path)
    before = path.read_bytes()
    other = null_params_table([11], [1])
    with pytest.raises(FileExistsError, match="overwrite"):
        other.save(path)
    assert path.read_bytes() == before
    other.save(path, overwrite=True)
    assert_tables_equal(NullTable.load(path), other)
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # no temporary left behind
    with pytest.raises(FileNotFoundError, match="directory"):
        t.save(tmp_path / "missing" / "t.csv")
    with pytest.raises(ValueError, match=".csv or .npz"):
        t.save(tmp_path / "t.txt")


def test_load_rejects_bad_files(tmp_path):
    bad_header = tmp_path / "a.csv"
    bad_header.write_text("N,P,mean\n1,1,1\n")
    with pytest.raises(ValueError, match="header"):
        NullTable.load(bad_header)
    bad_row = tmp_path / "b.csv"
    bad_row.write_text(",".join(COLUMNS) + "\n10,11,0.5,0.1,0.2,1,1\n")
    with pytest.raises(ValueError, match="P <= N"):
        NullTable.load(bad_row)
    garbled = tmp_path / "c.csv"
    garbled.write_text(",".join(COLUMNS) + "\n10,x,0.5,0.1,0.2,1,1\n")
    with pytest.raises(ValueError, match="malformed"):
        NullTable.load(garbled)
    dup = tmp_path / "d.csv"
    dup.write_text(",".join(COLUMNS) + "\n" + "10,2,0.5,0.1,0.2,1,1\n" * 2)
    with pytest.raises(ValueError, match="more than once"):
        NullTable.load(dup)
    npz = tmp_path / "e.npz"
    np.savez(npz, N=np.array([1]), P=np.array([1]))
    with pytest.raises(ValueError, match="missing"):
        NullTable.load(npz)
    junk = tmp_path / "f.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="npz"):
        NullTable.load(junk)
    with pytest.raises(FileNotFoundError):
        NullTable.load(tmp_path / "nothing.csv")


def test_bad_grid_input():
    with pytest.raises(ValueError, match="empty"):
        null_params_table([], [1])
    with pytest.raises(ValueError, match=">= 1"):
        null_params_table([10], [0, 1])
    with pytest.raises(TypeError):
        null_params_table([10.5], [1])
    with pytest.raises(ValueError, match="P <= N"):
        null_params_table([3], [5, 6])


def test_large_grid_is_fast_and_consistent():
    t = null_params_table(np.arange(1000, 200_001, 1000), np.arange(1, 1001))
    assert len(t) == 200 * 1000
    idx = np.random.default_rng(0).choice(len(t), 50, replace=False)
    ref = null_params(t.N[idx], t.P[idx])  # another kernel: to 1e-12 relative
    np.testing.assert_allclose(t.mean[idx], ref.mean, rtol=1e-12, atol=0)
    np.testing.assert_allclose(t.var[idx], ref.var, rtol=1e-12, atol=0)


def test_parse_int_ranges():
    assert parse_int_ranges("1,5,10:100:10").tolist() == [1, 5] + list(range(10, 101, 10))
    assert parse_int_ranges("5:7").tolist() == [5, 6, 7]
    assert parse_int_ranges("1:10:4").tolist() == [1, 5, 9]  # stop not hit: not included
    assert parse_int_ranges(" 7 , 3, 7 ").tolist() == [3, 7]
    assert parse_int_ranges("1e3:2e3:500").tolist() == [1000, 1500, 2000]
    assert parse_int_ranges("-2:1").tolist() == [-2, -1, 0, 1]
    for bad in ["", "1,,2", "a", "1.5", "1:2:0", "5:1", "1:2:3:4", "1e300", "1:1e9:1"]:
        with pytest.raises(ValueError):
            parse_int_ranges(bad, max_values=10**6)
    with pytest.raises(TypeError):
        parse_int_ranges(5)


def test_progress_blocks_give_same_table():
    pytest.importorskip("tqdm")
    a = null_params_table(np.arange(100, 5001, 100), np.arange(1, 200), progress=True)
    b = null_params_table(np.arange(100, 5001, 100), np.arange(1, 200))
    assert_tables_equal(a, b)
