"""The ``pranker`` command line, driven as a user would: real files, real arguments.

Most cases call ``pranker.cli.main(argv)`` in-process (the console script calls
exactly this function; in-process keeps the file fast, since each fresh
interpreter pays ~2 s of numba/scipy imports); a few run the real thing in a
subprocess (``python -m pranker``) to check the entry point, the exit status
and the stream separation.

Oracles are independent of the code under test: scikit-learn's
``average_precision_score``, brute-force enumeration of every ranking in
exact fractions, the Benjamini-Hochberg definition written as a loop, and
the beta method of moments written out here.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import pickle
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import average_precision_score

from pranker.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_subprocess(*argv, cwd=None, preexec_fn=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "pranker", *map(str, argv)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec_fn,
    )


def png_size(path) -> tuple[int, int]:
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


# --- brute-force oracles ----------------------------------------------------------


def ap_of_positions(positions, P) -> Fraction:
    """AP when the positives sit at the given 1-based ranks (no ties)."""
    return sum(Fraction(k + 1, r) for k, r in enumerate(sorted(positions))) / P


def null_exact(N, P):
    """All C(N, P) rankings: list of AP values (Fractions)."""
    return [ap_of_positions(c, P) for c in itertools.combinations(range(1, N + 1), P)]


def beta_pvalue(obs, aps, N, P):
    """Upper tail of the beta on [min AP, 1] matched to the exact null mean and variance."""
    mean = sum(aps) / len(aps)
    var = sum((a - mean) ** 2 for a in aps) / len(aps)
    lo = min(aps)
    m = float((mean - lo) / (1 - lo))
    v = float(var / (1 - lo) ** 2)
    c = m * (1 - m) / v - 1
    return float(stats.beta.sf((obs - float(lo)) / float(1 - lo), m * c, (1 - m) * c)), mean, var


def bh_loop(p):
    """Benjamini-Hochberg adjusted p-values straight from the definition."""
    m = len(p)
    out = []
    for i in range(m):
        best = 1.0
        for j in range(m):
            rank_j = sum(1 for q in p if q <= p[j])  # rank of p_j (ties share the top rank)
            if p[j] >= p[i]:
                best = min(best, p[j] * m / rank_j)
        out.append(min(best, 1.0))
    return out


# --- fixtures -------------------------------------------------------------------------


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    n = 300
    y = (rng.random(n) < 0.15).astype(int)
    y[:3] = 1
    s1 = rng.normal(size=n) + 1.2 * y
    s2 = rng.normal(size=n) + 0.3 * y
    s3 = rng.normal(size=n)
    return y, s1, s2, s3


def write_csv(path, header, rows, sep=","):
    with open(path, "w") as fh:
        if header:
            fh.write(sep.join(header) + "\n")
        for r in rows:
            fh.write(sep.join(str(v) for v in r) + "\n")
    return path


def fmt(v):
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))


# --- score: formats and columns -------------------------------------------------------


def test_score_csv_default_columns_json_matches_sklearn(tmp_path, data, capsys):
    y, s1, _, _ = data
    f = write_csv(
        tmp_path / "d.csv",
        ["id", "Prediction", "Truth"],
        [(i, fmt(a), b) for i, (a, b) in enumerate(zip(s1, y, strict=True))],
    )
    code, out, err = run(["score", f, "--json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["score_column"] == "Prediction" and d["label_column"] == "Truth"
    for key in (
        "auprc",
        "pvalue",
        "log10_pvalue",
        "null_mean",
        "null_var",
        "n",
        "n_pos",
        "null_interval",
        "conf_level",
        "min_auprc",
        "ties",
        "method",
    ):
        assert key in d
    assert d["n"] == len(y) and d["n_pos"] == int(y.sum())
    assert d["auprc"] == pytest.approx(average_precision_score(y, s1), abs=1e-12)
    lo, hi = d["null_interval"]
    assert d["conf_level"] == 0.95 and lo < d["null_mean"] < hi
    assert d["log10_pvalue"] == pytest.approx(np.log10(d["pvalue"]), rel=1e-9)


def test_score_table_output_is_readable(tmp_path, data, capsys):
    y, s1, _, _ = data
    f = write_csv(
        tmp_path / "d.csv", ["score", "label"], [(fmt(a), b) for a, b in zip(s1, y, strict=True)]
    )
    code, out, _ = run(["score", f], capsys)
    assert code == 0
    assert "AUPRC" in out and "p-value" in out and "null mean" in out
    assert f"N = {len(y)}" in out and f"P = {int(y.sum())}" in out
    assert f"{average_precision_score(y, s1):.4f}" in out


def test_first_two_columns_without_header_tsv(tmp_path, data, capsys):
    y, s1, _, _ = data
    f = write_csv(
        tmp_path / "d.tsv", None, [(fmt(a), b) for a, b in zip(s1, y, strict=True)], sep="\t"
    )
    for reader in ("auto", "numpy"):
        code, out, err = run(["score", f, "--json", "--reader", reader], capsys)
        assert code == 0, err
        d = json.loads(out)
        assert d["auprc"] == pytest.approx(average_precision_score(y, s1), abs=1e-12)


def test_columns_by_index_and_name(tmp_path, data, capsys):
    y, s1, s2, _ = data
    f = write_csv(
        tmp_path / "d.csv",
        ["a", "b", "lab"],
        [(fmt(u), fmt(v), w) for u, v, w in zip(s1, s2, y, strict=True)],
    )
    code, out, _ = run(["score", f, "-s", "1", "-l", "lab", "--json"], capsys)
    assert code == 0
    assert json.loads(out)["auprc"] == pytest.approx(average_precision_score(y, s2), abs=1e-12)


def test_npy_npz_parquet(tmp_path, data, capsys):
    y, s1, _, _ = data
    expected = average_precision_score(y, s1)
    np.save(tmp_path / "d.npy", np.c_[s1, y])
    np.savez(tmp_path / "d.npz", scores=s1, labels=y)
    np.savez(tmp_path / "m.npz", np.c_[s1, y])  # one 2-D array: its columns
    rec = np.zeros(len(y), dtype=[("score", "f8"), ("y", "i8")])
    rec["score"], rec["y"] = s1, y
    np.save(tmp_path / "r.npy", rec)
    files = ["d.npy", "d.npz", "m.npz", "r.npy"]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"score": s1, "label": y.astype(bool)}), tmp_path / "d.parquet")
        files.append("d.parquet")
    except ImportError:
        pass
    for name in files:
        code, out, err = run(["score", tmp_path / name, "--json"], capsys)
        assert code == 0, (name, err)
        assert json.loads(out)["auprc"] == pytest.approx(expected, abs=1e-12), name


def test_text_labels_with_positive(tmp_path, capsys):
    f = write_csv(
        tmp_path / "d.csv",
        ["score", "label"],
        [(0.9, "pos"), (0.8, "neg"), (0.7, "pos"), (0.1, "neg")],
    )
    code, out, _ = run(["score", f, "--positive", "pos", "--json"], capsys)
    assert code == 0
    assert json.loads(out)["auprc"] == pytest.approx((1 + 2 / 3) / 2)


@pytest.mark.parametrize("reader", ["auto", "numpy"])
def test_label_codings_and_positive_value(tmp_path, data, capsys, reader):
    """0/1, -1/1, 0.0/1.0 and class k of a multi-class column (--positive k) are the same
    labels: the AUPRC scikit-learn gives for them."""
    y, s1, _, _ = data
    cls = np.where(y == 1, 3, np.arange(len(y)) % 3)  # class 3 is the positive one
    expected = average_precision_score(y, s1)
    for labels, extra in (
        (y, []),
        (2 * y - 1, []),
        ([f"{v:.1f}" for v in y], []),
        (cls, ["--positive", "3"]),
        (cls, ["--positive", "3.0"]),
    ):
        rows = [(fmt(a), b) for a, b in zip(s1, labels, strict=True)]
        f = write_csv(tmp_path / "d.csv", ["score", "label"], rows)
        code, out, err = run(["score", f, "--json", "--reader", reader, *extra], capsys)
        assert code == 0, (extra, err)
        assert json.loads(out)["auprc"] == pytest.approx(expected, abs=1e-12), extra
    code, out, err = run(["score", f, "--reader", reader], capsys)
    assert code == 2 and out == ""
    assert "not binary-like" in err and "--positive" in err
    assert ("0, 1, 2, 3" if reader == "auto" else "0.0, 1.0, 2.0, 3.0") in err  # numpy: floats
    code, _, err = run(["score", f, "--reader", reader, "--positive", "three"], capsys)
    assert code == 2 and "'three' is not a number" in err


def test_npz_text_and_bool_labels(tmp_path, data, capsys):
    """Labels saved as text (str or bytes) need --positive; booleans are labels as they are."""
    y, s1, _, _ = data
    expected = average_precision_score(y, s1)
    words = np.where(y == 1, "hit", "miss")
    for name, labels, extra in (
        ("u.npz", words, ["--positive", "hit"]),
        ("b.npz", words.astype("S"), ["--positive", "hit"]),
        ("t.npz", y.astype(bool), []),
    ):
        np.savez(tmp_path / name, score=s1, label=labels)
        code, out, err = run(["score", tmp_path / name, "--json", *extra], capsys)
        assert code == 0, (name, err)
        assert json.loads(out)["auprc"] == pytest.approx(expected, abs=1e-12), name
    code, out, err = run(["score", tmp_path / "u.npz"], capsys)
    assert code == 2 and "not binary-like" in err and "'hit', 'miss'" in err
    code, out, err = run(["score", tmp_path / "u.npz", "--positive", "nope"], capsys)
    assert code == 2 and "no positive" in err


# --- score: numbers against brute force -------------------------------------------------


def test_pvalue_and_null_moments_match_enumeration(tmp_path, capsys):
    N, P = 9, 3
    scores = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    y = [1, 0, 1, 0, 0, 1, 0, 0, 0]  # positives at ranks 1, 3, 6
    f = write_csv(tmp_path / "d.csv", ["score", "label"], zip(scores, y, strict=True))
    code, out, _ = run(["score", f, "--json"], capsys)
    d = json.loads(out)
    aps = null_exact(N, P)
    obs = ap_of_positions([1, 3, 6], P)
    p_expected, mean, var = beta_pvalue(obs, aps, N, P)
    assert d["auprc"] == pytest.approx(float(obs), abs=1e-14)
    assert d["null_mean"] == pytest.approx(float(mean), rel=1e-12)
    assert d["null_var"] == pytest.approx(float(var), rel=1e-10)
    assert d["min_auprc"] == pytest.approx(float(min(aps)), rel=1e-12)
    # default --method auto: the exact tail of the enumerated null
    assert d["method"] == "exact"
    assert d["pvalue"] == pytest.approx(sum(a >= obs for a in aps) / len(aps), rel=1e-12)
    code, out, _ = run(["score", f, "--json", "--method", "beta"], capsys)
    d = json.loads(out)
    assert d["method"] == "beta"
    assert d["pvalue"] == pytest.approx(p_expected, rel=1e-8)


def test_montecarlo_pvalue_matches_exact_tail(tmp_path, capsys):
    N, P = 10, 4
    y = [1, 0, 0, 1, 0, 1, 0, 0, 1, 0]  # positives at ranks 1, 4, 6, 9
    f = write_csv(tmp_path / "d.csv", ["score", "label"], zip(range(N, 0, -1), y, strict=True))
    code, out, _ = run(
        ["score", f, "--json", "--method", "montecarlo", "--draws", "40000", "--seed", "3"], capsys
    )
    d = json.loads(out)
    obs = ap_of_positions([1, 4, 6, 9], P)
    aps = null_exact(N, P)
    exact_tail = sum(a >= obs for a in aps) / len(aps)
    se = (exact_tail * (1 - exact_tail) / 40000) ** 0.5
    assert d["method"] == "montecarlo"
    assert abs(d["pvalue"] - exact_tail) < 5 * se + 1 / 40000


def test_ties_option_changes_auprc_as_defined(tmp_path, capsys):
    # two tied scores, one positive one negative, on top: optimistic puts the positive first
    f = write_csv(tmp_path / "d.csv", ["score", "label"], [(1, 1), (1, 0), (0, 1), (0, 0)][:3])
    vals = {}
    for t in ("optimistic", "pessimistic"):
        code, out, _ = run(["score", f, "--json", "--ties", t], capsys)
        assert code == 0
        vals[t] = json.loads(out)["auprc"]
    assert vals["optimistic"] == pytest.approx((1 + 2 / 3) / 2)  # ranks 1, 3
    assert vals["pessimistic"] == pytest.approx((1 / 2 + 2 / 3) / 2)  # ranks 2, 3


def test_conf_level_option(tmp_path, data, capsys):
    y, s1, _, _ = data
    f = write_csv(
        tmp_path / "d.csv", ["score", "label"], [(fmt(a), b) for a, b in zip(s1, y, strict=True)]
    )
    widths = []
    for c in ("0.5", "0.99"):
        _, out, _ = run(["score", f, "--json", "--conf-level", c], capsys)
        lo, hi = json.loads(out)["null_interval"]
        widths.append(hi - lo)
    assert widths[0] < widths[1]
    with pytest.raises(SystemExit) as exc:  # argparse usage error
        main(["score", str(f), "--conf-level", "1.5"])
    assert exc.value.code == 2


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--conf-level", "x", "argument --conf-level: not a number: 'x'"),
        ("--conf-level", "1", "argument --conf-level: must be in (0, 1); got 1"),
        ("--rtol", "two", "argument --rtol: not a number: 'two'"),
        ("--rtol", "0", "argument --rtol: must be in (0, 1), e.g. 0.02 for 2 %; got 0"),
    ],
)
def test_fraction_options_refuse_bad_values(tmp_path, capsys, option, value, message):
    f = write_csv(tmp_path / "d.csv", ["score", "label"], [("0.5", 1), ("0.2", 0)])
    with pytest.raises(SystemExit) as exc:
        main(["score", str(f), option, value])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_several_columns_bh(tmp_path, data, capsys):
    y, s1, s2, s3 = data
    f = write_csv(
        tmp_path / "d.csv",
        ["label", "a", "b", "c"],
        [(w, fmt(u), fmt(v), fmt(x)) for w, u, v, x in zip(y, s1, s2, s3, strict=True)],
    )
    code, out, _ = run(["score", f, "-s", "a,b", "--score", "c", "--json"], capsys)
    assert code == 0
    rows = json.loads(out)
    assert [r["score_column"] for r in rows] == ["a", "b", "c"]
    for r, s in zip(rows, (s1, s2, s3), strict=True):
        assert r["auprc"] == pytest.approx(average_precision_score(y, s), abs=1e-12)
    adj = bh_loop([r["pvalue"] for r in rows])
    assert [r["pvalue_bh"] for r in rows] == pytest.approx(adj, rel=1e-12)
    code, out, _ = run(["score", f, "--all-scores"], capsys)
    assert code == 0 and "p (BH)" in out and out.count("\n") >= 5


# --- errors: exit 2, clear message, nothing written ------------------------------------------


@pytest.mark.parametrize(
    ("content", "args", "needles"),
    [
        ("score,label\n0.1,1\n0.2,0\nabc,1\n", [], ["non-numeric", "'abc'", "line 4"]),
        ("score,label\n0.1,1\nnan,0\n0.3,1\n", [], ["missing", "line 3"]),
        ("score,label\n0.1,1\n,0\n0.3,1\n", [], ["missing", "line 3"]),
        ("score,label\n0.1,1\n0.2,2\n0.3,0\n", [], ["not binary-like", "0, 1, 2"]),
        ("score,label\n0.1,yes\n0.2,no\n", [], ["not binary-like", "'no', 'yes'"]),
        ("score,label\n0.1,0\n0.2,0\n", [], ["no positive"]),
        ("", [], ["empty"]),
        ("score,label\n", [], ["empty"]),
        ("a,b,c\n0.1,1,2\n", ["-s", "x"], ["'x' not found", "'a', 'b', 'c'"]),
        ("a,b,c\n0.1,1,2\n", ["-l", "7"], ["'7' not found", "'a', 'b', 'c'"]),
        ("only\n0.1\n", [], ["needs a score column and a label column", "'only'"]),
    ],
)
def test_bad_input_exit_2(tmp_path, capsys, content, args, needles):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    plot = tmp_path / "never.png"
    code, out, err = run(["score", f, *args, "--plot", plot], capsys)
    assert code == 2
    assert out == ""
    for n in needles:
        assert n in err, (n, err)
    assert not plot.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]  # no temporary left


def test_numpy_reader_reports_line(tmp_path, capsys):
    f = tmp_path / "bad.csv"
    f.write_text("score,label\n0.1,1\n0.2,0\n0.3,1\nx1,0\n")
    code, _, err = run(["score", f, "--reader", "numpy"], capsys)
    assert code == 2 and "'x1'" in err and "line 5" in err


def test_missing_file(tmp_path, capsys):
    code, _, err = run(["score", tmp_path / "nope.csv"], capsys)
    assert code == 2 and "not found" in err


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):  # unpickling would create the marker file
        return (open, (self.marker, "w"))


def test_pickled_files_refused_not_executed(tmp_path, capsys):
    marker = tmp_path / "pwned"
    evil = np.array([_Evil(str(marker)), 1.0], dtype=object)
    np.save(tmp_path / "e.npy", evil, allow_pickle=True)
    np.savez(tmp_path / "e.npz", s=evil, y=np.array([1, 0]))
    with open(tmp_path / "raw.npy", "wb") as fh:
        pickle.dump(_Evil(str(marker)), fh)
    for name in ("e.npy", "e.npz", "raw.npy"):
        code, _, err = run(["score", tmp_path / name], capsys)
        assert code == 2, name
        assert "pickle" in err, err
        assert not marker.exists()


@pytest.mark.slow
def test_plot_written_and_never_overwritten(tmp_path, data, capsys):
    y, s1, s2, _ = data
    f = write_csv(
        tmp_path / "d.csv",
        ["label", "a", "b"],
        [(w, fmt(u), fmt(v)) for w, u, v in zip(y, s1, s2, strict=True)],
    )
    png = tmp_path / "pr.png"
    code, _, err = run(["score", f, "-s", "a,b", "-l", "label", "--plot", png], capsys)
    assert code == 0, err
    assert png_size(png)[0] == 840  # 150 dpi
    before = png.read_bytes()
    code, out, err = run(["score", f, "--plot", png], capsys)
    assert code == 2 and "exists" in err and "--force" in err and out == ""
    assert png.read_bytes() == before
    code, _, _ = run(["score", f, "-s", "a", "--plot", png, "--force"], capsys)
    assert code == 0 and png.read_bytes() != before
    # SVG and PDF when the name asks for them; an unknown format is an input error
    for name, magic in (("pr.svg", b"<?xml"), ("pr.pdf", b"%PDF-")):
        code, _, err = run(["score", f, "-s", "a", "--plot", tmp_path / name], capsys)
        assert code == 0, err
        assert (tmp_path / name).read_bytes().startswith(magic)
    code, _, err = run(["score", f, "--plot", tmp_path / "pr.xyz"], capsys)
    assert code == 2 and ".svg" in err and not (tmp_path / "pr.xyz").exists()


# --- table ----------------------------------------------------------------------------------


def test_table_csv_ranges_inclusive_and_exact(tmp_path, capsys):
    out = tmp_path / "t.csv"
    code, _, err = run(["table", "--N", "4:8:2", "--P", "1,2:5", "-o", out], capsys)
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0].startswith("N,P,mean,var")
    rows = [line.split(",")[:4] for line in lines[1:]]
    pairs = [(int(a), int(b)) for a, b, _, _ in rows]
    expected = [(n, p) for n in (4, 6, 8) for p in (1, 2, 3, 4, 5) if p <= n]
    assert pairs == expected
    for (n, p), (_, _, m, v) in zip(pairs, rows, strict=True):
        aps = null_exact(n, p)
        mean = sum(aps) / len(aps)
        var = sum((a - mean) ** 2 for a in aps) / len(aps)
        assert float(m) == pytest.approx(float(mean), rel=1e-12)
        assert float(v) == pytest.approx(float(var), rel=1e-10, abs=1e-15)


def test_table_npz_and_no_overwrite(tmp_path, capsys):
    out = tmp_path / "t.npz"
    code, _, _ = run(["table", "--N", "10:30:10", "--P", "5,25", "-o", out], capsys)
    assert code == 0
    with np.load(out) as z:
        assert z["N"].tolist() == [10, 20, 30, 30] and z["P"].tolist() == [5, 5, 5, 25]
        assert z["mean"].shape == z["var"].shape == (4,)
    before = out.read_bytes()
    code, _, err = run(["table", "--N", "10", "--P", "1", "-o", out], capsys)
    assert code == 2 and "exists" in err
    assert out.read_bytes() == before


@pytest.mark.parametrize("spec", ["10:5", "1:10:0", "a:b", "0:3", "1,,2", "1:2:3:4"])
def test_table_bad_ranges(tmp_path, capsys, spec):
    out = tmp_path / "t.csv"
    code, _, err = run(["table", "--N", spec, "--P", "1", "-o", out], capsys)
    assert code == 2 and "--N" in err
    assert not out.exists()


def test_table_stdout(capsys):
    code, out, _ = run(["table", "--N", "3", "--P", "1:5"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("N,P,mean,var") and len(out.splitlines()) == 4
    assert out.splitlines()[3].startswith("3,3,1.0,0.0")  # P = N: AP is always 1


# --- real processes -----------------------------------------------------------------------------


def test_subprocess_exit_status_and_streams(tmp_path):
    """The real entry point: ``python -m pranker`` exits 2, message on stderr only."""
    bad = run_subprocess("score", tmp_path / "missing.csv")
    assert bad.returncode == 2 and bad.stdout == "" and "not found" in bad.stderr


def test_write_refused_half_way_leaves_nothing(tmp_path):
    """An output the system refuses half-way (a file-size limit of 64 bytes, which even
    root cannot pass) is an input error: exit 2, one line, neither a partial file nor a
    temporary, for JSON and CSV results, a figure, a report and a table."""
    resource = pytest.importorskip("resource")
    import signal

    def limit() -> None:  # in the child: writing past 64 bytes fails with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    data = write_csv(
        tmp_path / "d.csv", ["score", "label"], [(0.9, 1), (0.8, 0), (0.3, 1), (0.1, 0)]
    )
    out = tmp_path / "out"
    out.mkdir()
    cases = [
        ["score", data, "-q", "-o", out / "r.json"],
        ["score", data, "-q", "-o", out / "r.csv"],
        ["table", "--N", "10:20", "--P", "1:5", "-q", "-o", out / "t.csv"],
    ]
    if importlib.util.find_spec("matplotlib") is not None:
        cases += [
            ["score", data, "-q", "--plot", out / "pr.png"],
            ["score", data, "-q", "--report", out / "r.html"],
        ]
    for argv in cases:
        r = run_subprocess(*argv, preexec_fn=limit)
        assert r.returncode == 2 and r.stdout == "", r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"pranker {argv[0]}: error: "), r.stderr
        assert str(argv[-1]) in r.stderr
        assert list(out.iterdir()) == []


# --- demo ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_writes_figures_and_refuses_overwrite(tmp_path, capsys):
    out = tmp_path / "demo"
    code, text, err = run(["demo", "-o", out, "--draws", "2000"], capsys)
    assert code == 0, err
    assert "AUPRC" in text and "p (BH)" in text
    for name, size in [("roc_pr.png", (1500, 810)), ("null_distribution.png", (1650, 750))]:
        assert png_size(out / name) == size
    assert png_size(out / "pr_curve.png")[0] == 840
    assert (out / "report.html").stat().st_size > 10_000
    assert "report.html" in text
    # the reported AUPRCs are those of the saved held-out scores
    arr = np.genfromtxt(out / "scores.csv", delimiter=",", names=True)
    res = json.loads((out / "results.json").read_text())
    for r in res:
        col = r["score_column"]
        if np.unique(arr[col]).size == arr.size:  # no ties: AP is unambiguous
            assert r["auprc"] == pytest.approx(average_precision_score(arr["label"], arr[col]))
    # tied scores (the 4-pixel model): scikit-learn's AP is the "threshold" tie mode
    code, js, _ = run(
        [
            "score",
            out / "scores.csv",
            "-s",
            res[1]["score_column"],
            "--json",
            "--ties",
            "threshold",
        ],
        capsys,
    )
    assert np.unique(arr[res[1]["score_column"]]).size < arr.size
    assert json.loads(js)["auprc"] == pytest.approx(
        average_precision_score(arr["label"], arr[res[1]["score_column"]])
    )
    assert res[0]["pvalue"] < 0.01 and res[0]["method"] in (
        "exact",
        "tilt",
        "saddlepoint",
        "montecarlo",
        "skewbeta",
        "beta",
    )
    # the re-run the demo suggests gives the same numbers (one answer per question): the
    # same score function on the same values (written with repr), so bit for bit
    cols = ",".join(r["score_column"] for r in res)
    code, js, _ = run(["score", out / "scores.csv", "-s", cols, "-l", "label", "--json"], capsys)
    again = json.loads(js)
    assert [r["pvalue"] for r in again] == [r["pvalue"] for r in res]
    assert [r["null_interval"] for r in again] == [r["null_interval"] for r in res]
    before = (out / "scores.csv").read_bytes()
    code, _, err = run(["demo", "-o", out], capsys)
    assert code == 2 and "--force" in err
    assert (out / "scores.csv").read_bytes() == before


def test_progress_bar_flags(capsys):
    pytest.importorskip("tqdm")
    code, _, err = run(["table", "--N", "5", "--P", "1:3", "--progress"], capsys)
    assert code == 0 and "null table" in err
    code, _, err = run(["table", "--N", "5", "--P", "1:3", "--no-progress"], capsys)
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    ("raw", "reader"),
    [
        (b'\xef\xbb\xbf"score","label"\r\n0.9,1\r\n0.5,0\r\n0.7,1\r\n0.2,0\r\n', "auto"),
        (b'\xef\xbb\xbf"score","label"\r\n0.9,1\r\n0.5,0\r\n0.7,1\r\n0.2,0\r\n', "numpy"),
        (b"score;label\n0.9;1\n0.5;0\n0.7;1\n0.2;0\n", "auto"),
        (b"score,label\n0.9,true\n0.5,false\n0.7,true\n0.2,false\n", "auto"),
        (b"score,label\n0.9,1\n0.5,-1\n0.7,1\n0.2,-1\n", "auto"),
    ],
)
def test_spreadsheet_exports(tmp_path, capsys, raw, reader):
    """Excel-style BOM + CRLF + quoted header, semicolons, true/false and -1/1 labels."""
    f = tmp_path / "x.csv"
    f.write_bytes(raw)
    code, out, err = run(["score", f, "--json", "--reader", reader], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert (d["n"], d["n_pos"], d["auprc"]) == (4, 2, 1.0)


# --- the package, its imports, --version ----------------------------------------------------


def _python(code: str):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_help_imports_neither_numba_nor_scipy():
    """``pranker --help`` and ``pranker score --help`` build the parser without the library."""
    r = _python(
        "import contextlib, io, sys\n"
        "import pranker.cli.main as m\n"
        "p = m.build_parser()\n"
        "for argv in (['--help'], ['score', '--help'], ['table', '--help'], ['--version']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n"
        "            m.main(argv)\n"
        "        except SystemExit as e:\n"
        "            assert e.code == 0, (argv, e.code)\n"
        "    assert 'usage: pranker' in out.getvalue() or 'pranker 0' in out.getvalue()\n"
        "heavy = sorted(n for n in ('numba', 'scipy', 'numpy') if n in sys.modules)\n"
        "print(heavy)\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_package_root_is_lazy_but_complete():
    r = _python(
        "import sys, pranker\n"
        "assert 'numba' not in sys.modules and 'scipy' not in sys.modules\n"
        "from pranker import pranker as f, PrankerResult, pranker_many\n"
        "assert callable(f) and pranker.pranker is f\n"
        "assert pranker.dask.__name__ == 'pranker.dask'\n"
        "assert pranker.chunked.__name__ == 'pranker.chunked'\n"
        "assert callable(pranker.compat.vl_pr) and pranker.null.__name__ == 'pranker.null'\n"
        "assert set(pranker.__all__) <= set(dir(pranker))\n"
        "ns = {}\n"
        "exec('from pranker import *', ns)\n"
        "assert set(pranker.__all__) <= set(ns), set(pranker.__all__) - set(ns)\n"
        "try:\n"
        "    pranker.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError\n"
        "print('ok')\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_version(capsys):
    import pranker

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"pranker {pranker.__version__}"


def _offered(option: str, capsys) -> list:
    """The choices of ``pranker score``'s ``option``, as its usage error lists them."""
    with pytest.raises(SystemExit) as exc:
        main(["score", "d.csv", option, "no-such-choice"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "invalid choice" in err
    listed = err.split("choose from ", 1)[1].rsplit(")", 1)[0]
    return [c.strip().strip("'") for c in listed.split(",")]


def test_choices_match_the_library(capsys):
    """--method offers every method of the library, --ties exactly its tie modes."""
    from pranker._validation import TIE_MODES
    from pranker.significance.options import METHODS

    assert set(METHODS) <= set(_offered("--method", capsys))
    assert _offered("--ties", capsys) == list(TIE_MODES)


def test_old_modules_are_gone():
    assert not (ROOT / "pranker" / "cli.py").exists()
    assert not (ROOT / "pranker" / "_io.py").exists()
    assert not (ROOT / "pranker" / "_demo.py").exists()
    text = (ROOT / "pyproject.toml").read_text()
    assert 'pranker = "pranker.cli.main:main"' in text


# --- standard input, --quiet, --csv, -o -----------------------------------------------------


def _stdin(monkeypatch, data: bytes):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_stdin_dash(monkeypatch, tmp_path, data, capsys):
    y, s1, _, _ = data
    text = "score,label\n" + "".join(f"{fmt(a)},{b}\n" for a, b in zip(s1, y, strict=True))
    for payload in (text.encode(), __import__("gzip").compress(text.encode())):
        _stdin(monkeypatch, payload)
        code, out, err = run(["score", "-", "--json"], capsys)
        assert code == 0, err
        d = json.loads(out)
        assert d["auprc"] == pytest.approx(average_precision_score(y, s1), abs=1e-12)
        assert d["file"] == "<stdin>"
    _stdin(monkeypatch, text.replace(",", "\t").encode())
    code, out, err = run(["score", "-", "--json", "--reader", "numpy"], capsys)
    assert code == 0, err


def test_stdin_errors(monkeypatch, tmp_path, capsys):
    import io as _io

    buf = _io.BytesIO()
    np.save(buf, np.zeros((3, 2)))
    for payload, needle in (
        (buf.getvalue(), "need a file"),
        (b"", "empty"),
        (b"score,label\n0.1,1\nx,0\n", "line 3 of <stdin>"),
    ):
        _stdin(monkeypatch, payload)
        code, out, err = run(["score", "-"], capsys)
        assert code == 2 and out == "" and needle in err, err
        assert len(err.strip().splitlines()) == 1


def test_quiet(tmp_path, data, capsys):
    y, s1, _, _ = data
    f = write_csv(
        tmp_path / "d.csv", ["score", "label"], [(fmt(a), b) for a, b in zip(s1, y, strict=True)]
    )
    code, out, err = run(["score", f, "--quiet"], capsys)
    assert (code, out, err) == (0, "", "")
    code, out, err = run(["score", f, "-q", "--json", "--progress"], capsys)
    assert code == 0 and err == ""
    assert json.loads(out)["n"] == len(y)  # only the JSON
    code, out, err = run(["score", tmp_path / "missing.csv", "-q"], capsys)
    assert code == 2 and out == "" and "not found" in err  # errors still shown
    code, out, err = run(
        ["table", "--N", "5", "--P", "1:3", "-q", "-o", tmp_path / "t.csv"], capsys
    )
    assert (code, out, err) == (0, "", "")


def test_output_file_and_csv(tmp_path, data, capsys):
    import csv as _csv

    y, s1, s2, _ = data
    f = write_csv(
        tmp_path / "d.csv",
        ["label", "a", "b"],
        [(w, fmt(u), fmt(v)) for w, u, v in zip(y, s1, s2, strict=True)],
    )
    res_json, res_csv = tmp_path / "r.json", tmp_path / "r.csv"
    code, out, err = run(["score", f, "-s", "a,b", "-o", res_json, "--method", "beta"], capsys)
    assert code == 0, err
    assert f"results written to {res_json}" in out
    rows = json.loads(res_json.read_text())
    assert [r["score_column"] for r in rows] == ["a", "b"]
    for r in rows:
        assert r["log10_pvalue"] == pytest.approx(np.log10(r["pvalue"]), rel=1e-12)
        assert r["log10_pvalue_bh"] == pytest.approx(np.log10(r["pvalue_bh"]), rel=1e-12)
    code, out, err = run(
        ["score", f, "-s", "a,b", "--csv", "-o", res_csv, "--method", "beta"], capsys
    )
    assert code == 0, err
    assert out == res_csv.read_text()
    table = list(_csv.DictReader(out.splitlines()))
    assert [t["score_column"] for t in table] == ["a", "b"]
    for t, r in zip(table, rows, strict=True):
        assert float(t["pvalue"]) == r["pvalue"]
        assert float(t["log10_pvalue"]) == r["log10_pvalue"]
        assert t["method"] == "beta"
    # never overwritten without --force, and nothing written on an error
    before = res_json.read_bytes()
    code, out, err = run(["score", f, "-o", res_json], capsys)
    assert code == 2 and "--force" in err and res_json.read_bytes() == before
    code, _, err = run(["score", f, "-o", tmp_path / "r.txt"], capsys)
    assert code == 2 and ".json or .csv" in err
    code, _, _ = run(["score", f, "-s", "nope", "-o", tmp_path / "x.json"], capsys)
    assert code == 2 and not (tmp_path / "x.json").exists()


def test_progress_never_when_quiet_or_not_a_terminal(capsys):
    pytest.importorskip("tqdm")
    code, _, err = run(["table", "--N", "5", "--P", "1:3", "--progress", "--quiet"], capsys)
    assert code == 0 and err == ""
    code, _, err = run(["table", "--N", "5", "--P", "1:3"], capsys)  # stderr is not a tty
    assert code == 0 and err == ""


def test_unknown_method_for_this_library_is_an_input_error(tmp_path, capsys):
    """Every --method offered runs; one the library does not know is reported, not raised."""
    from pranker.significance.options import METHODS

    f = write_csv(
        tmp_path / "d.csv",
        ["score", "label"],
        [(20 - i, int(i in (0, 2, 3, 7, 12))) for i in range(20)],
    )
    for m in _offered("--method", capsys):
        code, out, err = run(["score", f, "--method", m, "--json"], capsys)
        if m in METHODS:
            assert code == 0, err
            assert json.loads(out)["method"] != "auto"
        else:
            assert code == 2 and "method" in err


# --- numbers as they are ------------------------------------------------------------------


def _res(**kw):
    from types import SimpleNamespace

    base = dict(
        auprc=0.967,
        pvalue=0.5,
        null_mean=0.1,
        null_var=1e-4,
        n=899,
        n_pos=90,
        conf_int=(0.08, 0.13),
        conf_level=0.95,
        method="beta",
        ties="average",
        pvalue_ci=None,
        n_draws=None,
    )
    base.update(kw)
    return SimpleNamespace(**base)


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        (dict(pvalue=0.0079365079, method="exact"), "0.007937"),
        # today's results: the interval is the value twice when exact, rse 0
        (
            dict(
                pvalue=0.0079365079,
                method="exact",
                pvalue_interval=(0.0079365079,) * 2,
                pvalue_rse=0.0,
            ),
            "0.007937",
        ),
        (
            dict(
                pvalue=1 / 2001, method="montecarlo", pvalue_interval=(0.0, 0.00299), pvalue_rse=1.0
            ),
            "0.0005 [0, 0.003]",
        ),
        (
            dict(
                pvalue=1.3e-108,
                method="tilt",
                pvalue_interval=(1.26e-108, 1.34e-108),
                pvalue_rse=0.015,
            ),
            "1.3e-108 (±1.5 %)",
        ),
        (
            dict(
                pvalue=1 / 2001, method="montecarlo", pvalue_interval=(0.0, 0.00299), n_draws=2000
            ),
            "0.0005 [0, 0.003]",
        ),
        (
            dict(pvalue=1 / 2001, method="montecarlo", pvalue_interval=(0.0, 0.00299)),
            "0.0005 [0, 0.003]",
        ),
        (
            dict(pvalue=0.0312, method="montecarlo", pvalue_interval=(0.0301, 0.0323)),
            "0.031 [0.03, 0.032]",
        ),
        (dict(pvalue=1.3e-108, pvalue_rse=0.015, method="tilt"), "1.3e-108 (±1.5 %)"),
        (dict(pvalue=0.0, log10_pvalue=-467.2, method="saddlepoint"), "6.31e-468"),
        (
            dict(pvalue=0.0, log10_pvalue=-467.2, pvalue_rse=0.015, method="tilt"),
            "6.3e-468 (±1.5 %)",
        ),
        (
            dict(pvalue=0.0, log10_pvalue=-467.2, pvalue_rse=0.002, method="tilt"),
            "6.31e-468 (±0.2 %)",
        ),
        (dict(pvalue=1.234e-6, method="exact"), "1.234e-6"),
        (dict(pvalue=2.5e-5, method="beta"), "2.5e-5"),
        (dict(pvalue=0.0, method="beta"), "<1e-300"),
        (dict(pvalue=1.0, method="exact"), "1"),
    ],
)
def test_pvalue_text(fields, text):
    from pranker.cli.format import pvalue_text

    assert pvalue_text(_res(**fields)) == text


def test_pvalues_never_print_as_zero():
    from pranker.cli.format import pvalue_text

    for e in range(1, 320):
        p = 10.0**-e
        for method in ("exact", "beta", "montecarlo"):
            t = pvalue_text(
                _res(
                    pvalue=p,
                    method=method,
                    pvalue_ci=(0.0, 3 * p) if method == "montecarlo" else None,
                )
            )
            head = t.split()[0]
            assert float(head.replace("<", "")) > 0.0, t


def test_from_log10_matches_float_where_representable():
    from pranker.cli.format import from_log10, sig

    for lg in (-0.5, -3.25, -50.123, -299.9, -0.0001, -12.0):
        assert float(from_log10(lg, 3)) == pytest.approx(10.0**lg, rel=5e-3)
        assert float(from_log10(lg, 3)) == float(sig(10.0**lg, 3))


def test_plain_language_line_and_method_per_row(tmp_path, capsys):
    f = write_csv(
        tmp_path / "d.csv",
        ["label", "a", "b"],
        [(int(i % 3 == 0), 30 - i + (5 if i % 3 == 0 else 0), i % 7) for i in range(30)],
    )
    code, out, err = run(["score", f, "-s", "a,b"], capsys)
    assert code == 0, err
    assert "p-value by" not in out
    head = out.splitlines()[1]
    assert "method" in head.split()
    for c in ("a", "b"):
        line = next(x for x in out.splitlines() if x.startswith(f"{c}: "))
        assert "a random ranking of these 30 items scores AUPRC ≥" in line
        assert "with probability" in line
    rows = [x.split() for x in out.splitlines()[3:5]]
    code, js, _ = run(["score", f, "-s", "a,b", "--json"], capsys)
    assert [r[1] for r in rows] == [d["method"] for d in json.loads(js)]


def test_bh_adjusted_pvalues_below_the_float_range(tmp_path, capsys):
    """Several columns get BH-adjusted p-values from their log10, so a p-value below
    1e-308 keeps its adjusted value: a perfect ranking of N = 2400, P = 240 has
    p = 1/C(N, P) (about 1e-337), checked with mpmath, as is BH from its definition."""
    mpmath = pytest.importorskip("mpmath")
    N, P = 2400, 240
    rng = np.random.default_rng(11)
    y = np.zeros(N, dtype=int)
    y[rng.choice(N, P, replace=False)] = 1
    columns = {
        "perfect": np.where(y == 1, 10.0, 0.0) + rng.random(N),
        "good": rng.normal(size=N) + 1.5 * y,
        "weak": rng.normal(size=N) + 0.2 * y,
    }
    f = write_csv(
        tmp_path / "d.csv",
        ["label", *columns],
        [(int(y[i]), *(fmt(c[i]) for c in columns.values())) for i in range(N)],
    )
    code, out, err = run(["score", f, "--all-scores", "--json"], capsys)
    assert code == 0, err
    rows = json.loads(out)
    perfect = rows[0]
    assert perfect["score_column"] == "perfect" and perfect["pvalue"] == 0.0
    exact = -mpmath.log10(mpmath.binomial(N, P))
    assert perfect["log10_pvalue"] == pytest.approx(float(exact), abs=1e-9)
    p = [mpmath.power(10, mpmath.mpf(r["log10_pvalue"])) for r in rows]
    m = len(p)
    ranked = sorted(range(m), key=lambda i: p[i])
    q = [mpmath.mpf(1)] * m
    for i in range(m):  # q_i = min over p_(j) >= p_i of m p_(j) / j, at most 1
        q[i] = min(
            [mpmath.mpf(1)] + [m * p[k] / (r + 1) for r, k in enumerate(ranked) if p[k] >= p[i]]
        )
    expected = [float(mpmath.log10(v)) for v in q]
    assert [r["log10_pvalue_bh"] for r in rows] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert perfect["log10_pvalue_bh"] < -308 and perfect["pvalue_bh"] == 0.0


def test_reading_progress_bar_same_numbers(tmp_path, data, capsys, monkeypatch):
    """A large text file shows a reading bar on stderr; the numbers do not change."""
    pytest.importorskip("tqdm")
    import gzip

    from pranker.cli import read

    y, s1, _, _ = data
    text = "score,label\n" + "".join(f"{fmt(a)},{b}\n" for a, b in zip(s1, y, strict=True))
    (tmp_path / "d.csv").write_text(text)
    (tmp_path / "d.csv.gz").write_bytes(gzip.compress(text.encode()))
    monkeypatch.setattr(read, "BAR_BYTES", {"pyarrow": 0, "numpy": 0})  # any file is large
    for name in ("d.csv", "d.csv.gz"):
        for reader in ("auto", "numpy"):
            argv = ["score", tmp_path / name, "--json", "--reader", reader, "--method", "beta"]
            code, quiet_out, err = run([*argv, "--no-progress"], capsys)
            assert code == 0 and err == ""
            code, out, err = run([*argv, "--progress"], capsys)
            assert code == 0 and "reading d.csv" in err
            assert json.loads(out)["auprc"] == json.loads(quiet_out)["auprc"]
