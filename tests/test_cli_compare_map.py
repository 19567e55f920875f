"""``pranker compare`` and ``pranker map``, driven as a user would: real files, real arguments.

What the commands print and write must be the library's answer for the same
columns (:func:`pranker.compare`, :func:`pranker.map_significance`, whose
statistics are tested against oracles in their own files), and the AUPRCs
they report are checked here again against independent oracles:
scikit-learn's ``average_precision_score`` and the definition of average
precision written as a loop over the ranked list. Every bad input is exit
status 2 with one line on stderr and no output file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score
from test_cli import bh_loop  # Benjamini-Hochberg from its definition, as a loop

import pranker
from pranker.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def map_json(path, capsys, *extra):
    """``pranker map PATH --query query -s a -l label --json EXTRA...`` as a dict."""
    argv = ["map", path, "--query", "query", "-s", "a", "-l", "label", "--json", *extra]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    return json.loads(out)


def _no_constant(name):
    raise AssertionError(f"{name} in JSON output: not standard JSON")


def test_json_cleaning_reaches_nested_values():
    from pranker._results import jsonable

    raw = {"a": {"b": float("nan"), "c": [np.float64(np.inf), 1.5]}, "d": (float("-inf"), 2)}
    assert jsonable(raw) == {"a": {"b": None, "c": [None, 1.5]}, "d": [None, 2]}


def ap_loop(scores, y) -> float:
    """Average precision by its definition (no ties): the mean over positives of the
    precision at the positive's rank."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    hits, total = 0, 0.0
    for rank, i in enumerate(order, start=1):
        if y[i]:
            hits += 1
            total += hits / rank
    return total / hits


@pytest.fixture
def data(tmp_path):
    """Four queries of 30 items, two groups; continuous scores (no ties)."""
    rng = np.random.default_rng(11)
    n = 120
    y = (rng.random(n) < 0.2).astype(int)
    y[::30] = 1  # every query has a positive
    a = rng.normal(size=n) + y
    b = rng.normal(size=n) + 0.3 * y
    q = np.repeat(["q1", "q2", "q3", "q4"], 30)
    g = np.repeat(["g0", "g1"], 60)
    path = tmp_path / "d.csv"
    with open(path, "w") as fh:
        fh.write("a,b,label,query,grp\n")
        for i in range(n):
            fh.write(f"{float(a[i])!r},{float(b[i])!r},{y[i]},{q[i]},{g[i]}\n")
    return path, a, b, y, q, g


def assert_user_error(code, out, err, command, *needles):
    assert code == 2, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"pranker {command}: error: "), err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, (n, err)


# --- compare: numbers ---------------------------------------------------------------------


def test_compare_json_is_the_library_answer_and_sklearn_ap(data, capsys):
    path, a, b, y, _, _ = data
    code, out, err = run(
        ["compare", path, "--score", "a", "--score", "b", "--label", "label", "--json"], capsys
    )
    assert code == 0, err
    d = json.loads(out)
    lib = pranker.compare(a, b, y).to_dict()
    for k, v in lib.items():
        assert d[k] == pytest.approx(v, rel=1e-15, abs=0) if isinstance(v, float) else d[k] == v, k
    # independent oracles of the two AUPRCs and of the difference
    for col, s in (("auprc_a", a), ("auprc_b", b)):
        assert d[col] == pytest.approx(average_precision_score(y, s), abs=1e-12)
        assert d[col] == pytest.approx(ap_loop(s.tolist(), y.tolist()), abs=1e-12)
    assert d["statistic"] == pytest.approx(
        average_precision_score(y, a) - average_precision_score(y, b), abs=1e-12
    )
    assert (d["n"], d["n_pos"]) == (len(y), int(y.sum()))
    assert (d["score_a"], d["score_b"], d["label_column"]) == ("a", "b", "label")
    lo, hi = d["confidence_interval"]
    assert lo < d["statistic"] < hi
    # the default is the permutation test: its null has mean 0 and the patterns' variance
    assert (d["method"], d["null_mean"], d["alpha"]) == ("permutation", 0.0, 0.05)
    assert d["null_var"] == pytest.approx(d["standard_error"] ** 2, rel=1e-12)


def test_compare_text_comma_form_and_options(data, capsys):
    path, a, b, y, _, _ = data
    code, out, err = run(["compare", path, "-s", "a,b", "-l", "label"], capsys)
    assert code == 0, err
    res = pranker.compare(a, b, y)
    assert f"a: AUPRC {res.auprc_a:.4f}" in out and f"b: AUPRC {res.auprc_b:.4f}" in out
    assert f"N = {len(y)}, P = {int(y.sum())}" in out
    assert f"difference {res.statistic:+.4f}" in out and f"p = {res.pvalue:.3g}" in out
    assert f"(two-sided, permutation, {res.n_draws:,} swap patterns)" in out
    argv = [
        "compare",
        path,
        "-s",
        "a,b",
        "-l",
        "label",
        "--json",
        "--method",
        "bootstrap",
        "--resamples",
        "199",
        "--seed",
        "5",
        "--alternative",
        "greater",
        "--conf-level",
        "0.9",
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    d = json.loads(out, parse_constant=_no_constant)  # standard JSON: no NaN, no Infinity
    lib = pranker.compare(
        a,
        b,
        y,
        method="bootstrap",
        n_draws=199,
        seed=5,
        alternative="greater",
        conf_level=0.9,
    )
    assert (d["method"], d["alternative"], d["conf_level"]) == ("bootstrap", "greater", 0.9)
    ci = lib.confidence_interval()
    # the CLI calls compare() itself with these arguments: the same numbers, bit for bit
    assert d["pvalue"] == lib.pvalue and d["confidence_interval"][0] == ci.low
    # JSON has no infinity: the open end of a one-sided interval is null
    assert ci.high == np.inf and d["confidence_interval"][1] is None
    # same call, same number
    assert json.loads(run(argv, capsys)[1]) == d


def test_compare_swapped_order_changes_sign(data, capsys):
    path, *_ = data
    d1 = json.loads(run(["compare", path, "-s", "a,b", "-l", "label", "--json"], capsys)[1])
    d2 = json.loads(run(["compare", path, "-s", "b,a", "-l", "label", "--json"], capsys)[1])
    assert d2["statistic"] == pytest.approx(-d1["statistic"], abs=1e-15)
    assert d2["pvalue"] == pytest.approx(d1["pvalue"], rel=1e-12)


# --- map: numbers -------------------------------------------------------------------------


def _split(s, y, q):
    ids = sorted(set(q.tolist()))
    return ids, [s[q == i] for i in ids], [y[q == i] for i in ids]


def test_map_json_is_the_library_answer_and_per_query_ap(data, capsys):
    path, a, _, y, q, _ = data
    code, out, err = run(
        [
            "map",
            path,
            "--query",
            "query",
            "--score",
            "a",
            "--label",
            "label",
            "--json",
            "--query-pvalues",
        ],
        capsys,
    )
    assert code == 0, err
    d = json.loads(out)
    ids, s_list, y_list = _split(a, y, q)
    lib = pranker.map_significance(s_list, y_list, query_method="auto").to_dict()
    for k, v in lib.items():
        assert d[k] == v, k  # the CLI calls this very function on the same columns
    # each query's p-value is the one pranker gives that query alone (another code path:
    # the batched pranker_many, so to 1e-12 relative, not bit for bit)
    assert d["query_pvalue"] == pytest.approx(
        [pranker.pranker(s, t).pvalue for s, t in zip(s_list, y_list, strict=True)],
        rel=1e-12,
        abs=1e-300,
    )
    # by default, as in the library, the mean AP's p-value only
    code, out, err = run(
        ["map", path, "--query", "query", "--score", "a", "--label", "label", "--json"], capsys
    )
    d0 = json.loads(out)
    assert d0["pvalue"] == pranker.map_significance(s_list, y_list).pvalue  # the same call
    # with per-query p-values the APs come from pranker_many: the same p-value to rounding
    assert d["pvalue"] == pytest.approx(d0["pvalue"], rel=1e-12, abs=1e-300)
    assert d0["query_pvalue"] == [None] * 4
    assert d["queries"] == ids
    # oracles: each query's AP by the loop definition and scikit-learn, and their mean
    aps = [ap_loop(s.tolist(), t.tolist()) for s, t in zip(s_list, y_list, strict=True)]
    assert d["query_auprc"] == pytest.approx(aps, abs=1e-12)
    assert d["query_auprc"] == pytest.approx(
        [average_precision_score(t, s) for s, t in zip(s_list, y_list, strict=True)], abs=1e-12
    )
    assert d["statistic"] == pytest.approx(np.mean(aps), abs=1e-12)
    assert d["mean_ap"] == d["statistic"] and d["conf_level"] == 0.95
    lo, hi = d["null_interval"]  # the central 95 % of the null mean AP
    assert lo < d["null_mean"] < hi
    assert d["query_n"] == [30] * 4
    assert d["query_n_pos"] == [int(t.sum()) for t in y_list]
    assert d["query_pvalue_bh"] == pytest.approx(bh_loop(d["query_pvalue"]), rel=1e-12)
    assert (d["query_column"], d["score_column"], d["label_column"]) == ("query", "a", "label")


def test_map_text_and_groups(data, capsys):
    path, a, _, y, q, g = data
    code, out, err = run(
        [
            "map",
            path,
            "--query",
            "query",
            "-s",
            "a",
            "-l",
            "label",
            "--group",
            "grp",
            "--query-pvalues",
        ],
        capsys,
    )
    assert code == 0, err
    ids, s_list, y_list = _split(a, y, q)
    groups = np.array([g[q == i][0] for i in ids])
    res = pranker.map_significance(s_list, y_list, groups)
    assert f"mean AUPRC {res.statistic:.4f} over 4 queries" in out
    assert "queries significant at 5% FDR" in out
    for row in res.groups:
        assert f"group {row.group}: mean AUPRC {row.statistic:.4f} over 2 queries" in out
        members = [k for k, i in enumerate(ids) if groups[k] == row.group]
        oracle = np.mean([ap_loop(s_list[k].tolist(), y_list[k].tolist()) for k in members])
        assert row.statistic == pytest.approx(oracle, abs=1e-12)
    code, out, err = run(
        ["map", path, "--query", "query", "-s", "a", "-l", "label", "--no-query-pvalues"], capsys
    )
    assert code == 0 and "FDR" not in out
    assert run(["map", path, "--query", "query", "-s", "a", "-l", "label"], capsys)[1] == out


def test_map_rows_in_any_order(tmp_path, data, capsys):
    """Queries need not be contiguous: the rows of a query keep their file order."""
    path, a, _, y, q, _ = data
    perm = np.random.default_rng(0).permutation(len(y))
    shuffled = tmp_path / "shuffled.csv"
    lines = path.read_text().splitlines()
    shuffled.write_text("\n".join([lines[0]] + [lines[1 + i] for i in perm]) + "\n")
    d1 = map_json(path, capsys, "--no-query-pvalues")
    d2 = map_json(shuffled, capsys, "--no-query-pvalues")
    assert d2["query_auprc"] == pytest.approx(d1["query_auprc"], abs=1e-12)
    assert d2["statistic"] == pytest.approx(d1["statistic"], abs=1e-12)


# --- output files: written atomically, never overwritten without --force ---------------------


@pytest.mark.parametrize("command", ["compare", "map"])
def test_output_file(tmp_path, data, capsys, monkeypatch, command):
    path, *_ = data
    args = (
        ["compare", path, "-s", "a,b", "-l", "label"]
        if command == "compare"
        else ["map", path, "--query", "query", "-s", "a", "-l", "label"]
    )
    out_json = tmp_path / "r.json"
    code, out, err = run([*args, "-o", out_json], capsys)
    assert code == 0, err
    assert f"results written to {out_json}" in out
    code, js, _ = run([*args, "--json"], capsys)
    assert json.loads(out_json.read_text()) == json.loads(js)
    before = out_json.read_bytes()
    out_json.write_text("mine")
    code, out, err = run([*args, "-o", out_json], capsys)
    assert_user_error(code, out, err, command, "exists", "--force")
    assert out_json.read_text() == "mine"
    # a file that appears after the early check is not clobbered either
    mod = __import__(f"pranker.cli.{command}", fromlist=["run"])
    monkeypatch.setattr(mod, "check_writable", lambda *a, **k: None)
    code, out, err = run([*args, "-o", out_json], capsys)
    assert_user_error(code, out, err, command, "exists", "--force")
    assert out_json.read_text() == "mine"
    monkeypatch.undo()
    code, _, err = run([*args, "-o", out_json, "--force"], capsys)
    assert code == 0, err
    assert out_json.read_bytes() == before
    code, out, err = run([*args, "-o", tmp_path / "r.txt"], capsys)
    assert_user_error(code, out, err, command, ".json")
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == ["d.csv", "r.json"], leftovers


def test_failed_write_leaves_nothing(tmp_path, data, capsys, monkeypatch):
    """A write that fails half-way leaves neither a partial file nor a temporary."""
    path, *_ = data
    from pranker.cli import write as cli_write

    def broken(tmp, text):
        with open(tmp, "w") as fh:
            fh.write(text[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli_write, "write_text", broken)
    out_json = tmp_path / "r.json"
    code, out, err = run(["compare", path, "-s", "a,b", "-l", "label", "-o", out_json], capsys)
    assert_user_error(code, out, err, "compare", "cannot write", "No space left")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


# --- bad input: exit 2, one line, nothing written ---------------------------------------------

CSV_OK = "a,b,label,query\n0.9,0.1,1,q1\n0.8,0.7,0,q1\n0.4,0.2,1,q2\n0.3,0.5,0,q2\n"


@pytest.mark.parametrize(
    ("content", "args", "needles"),
    [
        # compare
        (None, ["compare", "{dir}/nope.csv", "-s", "a,b"], ["not found"]),
        (
            CSV_OK,
            ["compare", "{f}", "-s", "a,zz", "-l", "label"],
            ["'zz' not found", "'a', 'b', 'label', 'query'"],
        ),
        (CSV_OK, ["compare", "{f}", "-s", "a,b", "-l", "zz"], ["'zz' not found"]),
        (
            CSV_OK.replace("0.8,0.7", "0.8,high"),
            ["compare", "{f}", "-s", "a,b", "-l", "label"],
            ["non-numeric", "'high'", "line 3"],
        ),
        (
            CSV_OK.replace("0.8,0.7", "0.8,nan"),
            ["compare", "{f}", "-s", "a,b", "-l", "label"],
            ["missing", "line 3"],
        ),
        (
            CSV_OK.replace("0.8,0.7,0", "0.8,0.7,2"),
            ["compare", "{f}", "-s", "a,b", "-l", "label"],
            ["not binary-like", "--positive"],
        ),
        (
            CSV_OK.replace(",1,", ",0,"),
            ["compare", "{f}", "-s", "a,b", "-l", "label"],
            ["no positive"],
        ),
        (CSV_OK, ["compare", "{f}", "-s", "a", "-l", "label"], ["exactly two", "got 1"]),
        (CSV_OK, ["compare", "{f}", "-s", "a,b,label"], ["exactly two", "got 3"]),
        (CSV_OK, ["compare", "{f}", "-s", "a,a", "-l", "label"], ["same column twice"]),
        (
            CSV_OK,
            ["compare", "{f}", "-s", "a,label", "-l", "label"],
            ["'label'", "both as scores and as labels"],
        ),
        # swapped: the label column given as a score and a score column as the labels
        (
            CSV_OK,
            ["compare", "{f}", "-s", "label,b", "-l", "a"],
            ["label column 'a'", "not binary-like"],
        ),
        # map
        (None, ["map", "{dir}/nope.csv", "--query", "query"], ["not found"]),
        (
            CSV_OK,
            ["map", "{f}", "--query", "zz", "-s", "a", "-l", "label"],
            ["query column 'zz' not found"],
        ),
        (CSV_OK, ["map", "{f}", "--query", "query", "-s", "zz", "-l", "label"], ["'zz' not found"]),
        (
            CSV_OK.replace("0.4,0.2", "x7,0.2"),
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label"],
            ["non-numeric", "'x7'", "line 4"],
        ),
        (
            CSV_OK.replace("0.4,0.2", "nan,0.2"),
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label"],
            ["missing", "line 4"],
        ),
        (
            CSV_OK.replace("0.4,0.2,1", "0.4,0.2,5"),
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label"],
            ["not binary-like"],
        ),
        (
            CSV_OK.replace("0.4,0.2,1", "0.4,0.2,0"),
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label"],
            ["1 query has no positive", "'q2'"],
        ),
        (
            CSV_OK.replace("0.4,0.2,1,q2", "0.4,0.2,1,"),
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label"],
            ["column 'query' has a missing value", "line 4"],
        ),
        (
            CSV_OK,
            ["map", "{f}", "--query", "label", "-s", "a", "-l", "label"],
            ["must be different columns"],
        ),
        # swapped: the query column given as the score column
        (
            CSV_OK,
            ["map", "{f}", "--query", "a", "-s", "query", "-l", "label"],
            ["score column 'query'", "non-numeric"],
        ),
        (
            CSV_OK,
            ["map", "{f}", "--query", "query", "-s", "a", "-l", "label", "--group", "b"],
            ["more than one value in --group"],
        ),
    ],
)
def test_bad_input_exit_2(tmp_path, capsys, content, args, needles):
    f = tmp_path / "bad.csv"
    if content is not None:
        f.write_text(content)
    out_json = tmp_path / "never.json"
    argv = [a.format(f=f, dir=tmp_path) for a in args] + ["-o", str(out_json)]
    code, out, err = run(argv, capsys)
    assert_user_error(code, out, err, args[0], *needles)
    assert not out_json.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if content is None else ["bad.csv"])


def test_argparse_errors_exit_2(tmp_path, capsys):
    for argv in (
        ["compare"],
        ["compare", "f.csv"],
        ["map", "f.csv"],
        ["compare", "f.csv", "-s", "a,b", "--method", "nope"],
        ["compare", "f.csv", "-s", "a,b", "--resamples", "0"],
        ["map", "f.csv", "--query", "q", "--conf-level", "2"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        _, err = capsys.readouterr()
        assert "usage: pranker" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["score", "compare", "map", "table", "demo"])
def test_help(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: pranker {command}")
    assert "%%" not in out and "--quiet" in out and "--force" in out
    if command in ("score", "compare", "map"):
        for flag in ("--label", "--json", "--output", "--ties", "--seed", "--conf-level"):
            assert flag in out
    if command == "compare":
        assert "--alternative" in out and "--resamples" in out
    if command == "map":
        assert "--query" in out and "--group" in out


def test_subprocess_no_traceback(tmp_path):
    """The real entry point: a bad compare exits 2 with one line on stderr and nothing on stdout."""
    f = tmp_path / "d.csv"
    f.write_text(CSV_OK.replace("0.8,0.7", "0.8,nan"))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-m", "pranker", "compare", str(f), "-s", "a,b", "-l", "label"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "missing" in r.stderr


def test_text_labels_with_positive(tmp_path, data, capsys):
    """--positive names the positive label: the same numbers as 0/1 labels."""
    path, *_ = data
    lines = path.read_text().splitlines()
    text = tmp_path / "t.csv"
    rows = [line.split(",") for line in lines[1:]]
    text.write_text(
        lines[0]
        + "\n"
        + "".join(",".join(r[:2] + ["yes" if r[2] == "1" else "no"] + r[3:]) + "\n" for r in rows)
    )
    for args in (
        ["compare", "-s", "a,b"],
        ["map", "--query", "query", "-s", "a", "--no-query-pvalues"],
    ):
        ref = json.loads(run([args[0], path, *args[1:], "-l", "label", "--json"], capsys)[1])
        code, out, err = run(
            [args[0], text, *args[1:], "-l", "label", "--positive", "yes", "--json"], capsys
        )
        assert code == 0, err
        got = json.loads(out)
        for k in ("statistic", "pvalue", "n_pos" if args[0] == "compare" else "query_n_pos"):
            assert got[k] == ref[k], k  # the same labels once read: the same computation
        code, out, err = run([args[0], text, *args[1:], "-l", "label"], capsys)
        assert_user_error(code, out, err, args[0], "not binary-like", "--positive")


def test_rtol_reaches_the_library(data, capsys):
    """--rtol asks score and map for the same precision as the library's rtol=."""
    path, a, _, y, q, _ = data
    d = json.loads(
        run(["score", path, "-s", "a", "-l", "label", "--json", "--rtol", "0.05"], capsys)[1]
    )
    lib = pranker.pranker(a, y, rtol=0.05)
    assert lib.method == "tilt" and lib.pvalue_rse <= 0.05
    assert d["pvalue"] == lib.pvalue and d["pvalue_rse"] == lib.pvalue_rse  # the same call
    ids, s_list, y_list = _split(a, y, q)
    d = map_json(path, capsys, "--rtol", "0.05")
    assert d["pvalue"] == pranker.map_significance(s_list, y_list, rtol=0.05).pvalue  # same call
    with pytest.raises(SystemExit) as exc:  # argparse usage error
        run(["map", path, "--query", "query", "--rtol", "0"], capsys)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--rtol" in err and "Traceback" not in err
