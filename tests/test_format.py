"""Numbers and p-values as text (pranker._format): hand-computed strings, never ``0.0000``."""

from __future__ import annotations

import math
import re
import warnings
from types import SimpleNamespace

import pytest

from pranker import _format as fmt


def result(**fields):
    """A result-like object with the fields a PrankerResult has (and no others)."""
    base = {"pvalue": 0.5, "log10_pvalue": math.log10(0.5), "pvalue_interval": None}
    base.update(pvalue_rse=None, method="", conf_level=0.95)
    base.update(fields)
    return SimpleNamespace(**base)


@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (0.000123456, 4, "0.0001235"),
        (1.5e-5, 2, "1.5e-5"),
        (2e12, 4, "2e+12"),
        (123456.0, 3, "1.23e+5"),
        (0.5, 4, "0.5"),
        (-0.0314159, 3, "-0.0314"),
        (0.0, 4, "0"),
        (None, 4, "n/a"),
        (math.nan, 4, "nan"),
        (math.inf, 4, "inf"),
        (-math.inf, 4, "-inf"),
    ],
)
def test_sig(x, digits, text):
    assert fmt.sig(x, digits) == text


@pytest.mark.parametrize(
    ("lg", "digits", "text"),
    [
        (-467.2, 2, "6.3e-468"),  # 10**0.8 = 6.309...
        (-400.0, 4, "1e-400"),
        (-2.0, 3, "1e-2"),
        (math.log10(2.5e-9), 2, "2.5e-9"),
        (-0.00001, 3, "1e0"),  # 9.99977 rounds up to 10: one more decade
        (-350.5, 1, "3e-351"),  # 10**0.5 = 3.16
    ],
)
def test_from_log10(lg, digits, text):
    assert fmt.from_log10(lg, digits) == text


def test_interval():
    assert fmt.interval(0.0012345, 0.5, 2) == "[0.0012, 0.5]"
    assert fmt.interval(0.0, 0.003) == "[0, 0.003]"


def test_log10_pvalue_prefers_the_carried_log():
    assert fmt.log10_pvalue(result(pvalue=0.0, log10_pvalue=-400.0)) == -400.0
    assert fmt.log10_pvalue(result(pvalue=0.01, log10_pvalue=math.nan)) == pytest.approx(-2.0)
    assert fmt.log10_pvalue(result(pvalue=0.0, log10_pvalue=math.nan)) is None


def test_a_pvalue_below_the_double_range_prints_from_its_log10():
    exact = result(pvalue=0.0, log10_pvalue=-400.0, pvalue_rse=0.0, method="exact")
    assert fmt.pvalue_text(exact) == "1e-400"
    tilt = result(pvalue=0.0, log10_pvalue=-467.2, pvalue_rse=0.015, method="tilt")
    assert fmt.pvalue_text(tilt) == "6.3e-468 (±1.5 %)"
    assert fmt.pvalue_number(0.0, None, 3) == "<1e-300"  # nothing known but that it underflows


@pytest.mark.parametrize(
    ("fields", "kind", "text"),
    [
        # exact: 4 significant digits (1/126 = 0.0079365...)
        ({"pvalue": 1 / 126, "pvalue_rse": 0.0, "method": "exact"}, "exact", "0.007937"),
        # Monte Carlo: 2 digits and the interval
        (
            {"pvalue": 0.0005, "pvalue_interval": (0.0, 0.003), "method": "montecarlo"},
            "interval",
            "0.0005 [0, 0.003]",
        ),
        # an estimate with a relative standard error: the digits it supports (1.5 % -> 2)
        ({"pvalue": 1.3e-108, "pvalue_rse": 0.015, "method": "tilt"}, "rse", "1.3e-108 (±1.5 %)"),
        ({"pvalue": 0.0123456, "pvalue_rse": 0.0004, "method": "tilt"}, "rse", "0.01235 (±0.04 %)"),
        # an approximation without an error bound: 3 digits
        ({"pvalue": 0.0123456, "method": "beta"}, "plain", "0.0123"),
    ],
)
def test_pvalue_text_by_kind(fields, kind, text):
    fields.setdefault("log10_pvalue", math.log10(fields["pvalue"]))
    r = result(**fields)
    assert fmt.pvalue_kind(r) == kind
    assert fmt.pvalue_text(r) == text


def test_plus_minus_sign_for_plain_terminals():
    r = result(pvalue=1e-5, log10_pvalue=-5.0, pvalue_rse=0.02, method="tilt")
    assert fmt.pvalue_text(r, "+/-") == "1e-5 (+/-2 %)"


@pytest.mark.parametrize("p", [0.049999, 1e-5, 3.3e-7, 1e-299, 1e-300, 2e-310, 5e-324])
@pytest.mark.parametrize("method", ["exact", "tilt", "beta", "montecarlo"])
def test_never_zero_point_zeros(p, method):
    fields = {"pvalue": p, "log10_pvalue": math.log10(p), "method": method}
    if method == "exact":
        fields["pvalue_rse"] = 0.0
    elif method == "tilt":
        fields["pvalue_rse"] = 0.02
    elif method == "montecarlo":
        fields["pvalue_interval"] = (p / 2, 2 * p)
    text = fmt.pvalue_text(result(**fields))
    number = text.split()[0]
    assert not re.fullmatch(r"0(\.0*)?", number), text  # never rounded to 0 or 0.0000
    # read back, it is the p-value to the digits printed
    assert float(number) == pytest.approx(p, rel=0.06)


def test_intervals_are_read_without_touching_deprecated_aliases():
    """The accessors read the fields of today's names only: a result's deprecated aliases
    (which warn) are never read."""
    from pranker import significance_from_ap

    r = significance_from_ap(0.5, 1000, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fmt.pvalue_interval(r) == tuple(float(v) for v in r.pvalue_interval)
        assert fmt.null_interval(r) == tuple(float(v) for v in r.null_interval)
    assert fmt.pvalue_interval(result(pvalue_interval=None)) is None


def test_pvalue_rse_only_when_finite():
    assert fmt.pvalue_rse(result(pvalue_rse=math.inf)) is None
    assert fmt.pvalue_rse(result(pvalue_rse=0.02)) == 0.02


def test_real_results_print_as_the_score_table_does():
    from pranker import significance_from_ap

    r = significance_from_ap(5 / 6, 6, 2)  # 2 of the C(6, 2) = 15 placements score as high
    assert r.method == "exact" and fmt.pvalue_text(r) == "0.1333"


def test_command_line_keeps_the_names():
    from pranker.cli import format as cli_format

    for name in ("sig", "from_log10", "interval", "pvalue_number", "pvalue_text", "log10_pvalue"):
        assert getattr(cli_format, name) is getattr(fmt, name)
