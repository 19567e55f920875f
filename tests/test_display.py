"""Results in Jupyter: each result type renders a compact HTML table holding its numbers."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

import pranker
from pranker.significance.montecarlo import montecarlo_pvalue


def _cells(html: str) -> tuple[list[str], list[list[str]], str]:
    """Parse the fragment as XML (it must be well formed): headers, rows of cells, caption."""
    root = ET.fromstring(html)
    table = root.find("table")
    assert table is not None
    headers = [th.text or "" for th in table.iter("th")]
    rows = [[td.text or "" for td in tr.findall("td")] for tr in table.find("tbody")]
    caption = table.find("caption").text
    return headers, rows, caption


def _no_zero_pvalue(html: str) -> None:
    assert "0.0000" not in html
    headers, rows, _ = _cells(html)
    for j, h in enumerate(headers):
        if h.startswith("p"):  # p-value, p (BH): never printed as a bare zero
            assert all(not re.fullmatch(r"0(\.0+)?", r[j].split(" ")[0]) for r in rows)


def test_single_ranking_table():
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    y = [1, 0, 1, 0, 0, 0]
    res = pranker.pranker(s, y)
    headers, rows, caption = _cells(res._repr_html_())
    assert headers == ["method", "AUPRC", "p-value", "null mean", "null var", "95% null interval"]
    # AP = (1 + 2/3) / 2 = 0.8333; 2 of the C(6, 2) = 15 placements score as high: 0.1333
    ap = average_precision_score(y, s)
    assert rows == [["exact", f"{ap:.4g}", "0.1333", rows[0][3], rows[0][4], rows[0][5]]]
    assert "N = 6, P = 2" in caption
    # the CLI's formatting of the same numbers
    assert rows[0][3] == f"{res.null_mean:.4g}" and rows[0][5].startswith("[")
    _no_zero_pvalue(res._repr_html_())
    assert repr(res).startswith("PrankerResult(auprc=")  # the plain repr stays readable


def test_deep_tail_pvalue_is_printed_from_its_log():
    res = pranker.significance_from_ap(1.0, 10**6, 60)  # all 60 positives first: p = 1/C(1e6, 60)
    html = res._repr_html_()
    _, rows, _ = _cells(html)
    from math import lgamma, log

    lg = (lgamma(10**6 + 1) - lgamma(61) - lgamma(10**6 - 60 + 1)) / log(10)
    assert rows[0][2].endswith(f"e-{int(lg) + 1}")  # about 1e-278: not 0, not 0.0000
    _no_zero_pvalue(html)


def test_many_table_rows_and_cap():
    rng = np.random.default_rng(3)
    s = rng.random((25, 40))
    y = rng.random((25, 40)) < 0.2
    y[:, 0] = True
    res = pranker.pranker_many(s, y, method="beta")
    headers, rows, caption = _cells(res._repr_html_())
    assert headers[:5] == ["ranking", "N", "P", "method", "AUPRC"]
    assert len(rows) == 20 and "25 rankings" in caption
    assert "showing 20 of 25" in res._repr_html_()
    for row in rows:
        i = int(row[0])
        assert row[4] == f"{average_precision_score(y[i], s[i]):.4g}"
        assert row[2] == str(int(y[i].sum()))
    _no_zero_pvalue(res._repr_html_())


def test_compare_and_montecarlo_tables():
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.25
    a = rng.random(200) + 0.4 * y
    b = rng.random(200) + 0.1 * y
    res = pranker.compare(a, b, y, method="influence")
    headers, rows, _ = _cells(res._repr_html_())
    assert headers[-1] == "p-value" and rows[0][0] == "influence"
    d = average_precision_score(y, a) - average_precision_score(y, b)
    assert rows[0][4] == f"{d:+.4f}"
    mc = montecarlo_pvalue(0.3, 100, 10, n_draws=2000, seed=1)
    headers, rows, _ = _cells(mc._repr_html_())
    assert rows[0][4] == "2,000" and rows[0][5] == f"{mc.n_exceed:,}"
    lo, hi = mc.pvalue_interval
    assert rows[0][3] == f"[{lo:.3g}, {hi:.3g}]"


def test_html_escapes_what_it_shows():
    from pranker._display import html_table

    html = html_table("a < b & c", ["x"], [["<script>"]])
    assert "<script>" not in html
    headers, rows, caption = _cells(html)
    assert rows == [["<script>"]] and caption == "a < b & c"


@pytest.mark.parametrize("digits", [4])
def test_table_matches_cli_formatting(digits):
    from pranker._format import pvalue_text, sig

    res = pranker.significance_from_ap(0.5, 1000, 10)
    _, rows, _ = _cells(res._repr_html_())
    assert rows[0][1] == sig(0.5, digits) and rows[0][2] == pvalue_text(res)


def test_mean_ap_tables():
    # two groups of one query each, the single positive first: p = 1/4 and 1/5 (N = 4, 5)
    res = pranker.map_significance_from_ap([1.0, 1.0], [4, 5], [1, 1], groups=["a", "b"])
    headers, rows, caption = _cells(res._repr_html_())
    assert headers == ["group", "queries", "method", "mean AP", "p-value", "p (BH)"]
    assert rows[0][:2] == ["all", "2"] and rows[0][4] == "0.05"  # 1/4 * 1/5, exact
    assert rows[1] == ["a", "1", "exact", "1", "0.25", "0.25"]
    assert rows[2] == ["b", "1", "exact", "1", "0.2", "0.25"]  # BH: min(2 * 0.2 / 2, ...) = 0.25
    assert "2 queries" in caption
    big = pranker.map_significance_from_ap([0.3] * 40, [1000] * 40, [10] * 40)
    headers, rows, _ = _cells(big._repr_html_())
    assert headers[:3] == ["method", "mean AP", "p-value"] and rows[0][1] == "0.3"
    assert rows[0][2].endswith(f"e-{int(-big.log10_pvalue) + 1}")
    _no_zero_pvalue(big._repr_html_())
