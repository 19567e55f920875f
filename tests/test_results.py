"""The result vocabulary: one name per quantity, deprecated names that still work, JSON."""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import pranker
from pranker._results import SHARED_FIELDS, DeprecatedAlias, jsonable, renamed_parameters
from pranker.chunked import pranker_chunked
from pranker.null.choice import auto_method
from pranker.null.distributions import TiltNull
from pranker.null.exact import exact_pvalue
from pranker.significance.montecarlo import montecarlo_pvalue


def test_counts_are_n_and_n_pos_in_every_public_signature():
    """Only the R package's null_params keeps N and P (and the fits of its notation); the
    names that left the top level are checked at their new path."""
    keep = {"null_params", "null_params_table", "NullParams", "NullTable", "BetaFit", "SkewBetaFit"}
    where = {**pranker._PUBLIC, **pranker._MOVED}
    offenders = []
    for name, module in where.items():
        obj = getattr(importlib.import_module(f"pranker.{module}"), name)
        if name in keep or not callable(obj):
            continue
        try:
            params = inspect.signature(obj).parameters
        except ValueError:  # a class without a Python signature (an exception type)
            continue
        if "N" in params or "P" in params:
            offenders.append(name)
    assert offenders == []


def test_old_count_keywords_warn_and_give_the_same_number():
    with pytest.warns(DeprecationWarning) as caught:
        old = exact_pvalue(0.5, N=20, P=3)
    said = sorted(str(w.message) for w in caught)
    assert len(said) == 2 and "use n=" in said[0] and "use n_pos=" in said[1]
    assert old == exact_pvalue(0.5, 20, 3) == exact_pvalue(0.5, n=20, n_pos=3)
    with pytest.raises(TypeError, match="twice"):
        auto_method(n=10, N=10, n_pos=2)
    with pytest.warns(DeprecationWarning, match=r"TiltNull.__init__\(\).N="):
        null = TiltNull(N=1000, n_pos=10)
    assert (null.n, null.n_pos) == (1000, 10)


def test_deprecated_alias_reads_the_new_field_and_is_read_only():
    class R:
        new = (1.0, 2.0)
        old = DeprecatedAlias("new")
        low = DeprecatedAlias("new", 0)

    r = R()
    with pytest.warns(DeprecationWarning, match=r"R.old is deprecated.*use new"):
        assert r.old == (1.0, 2.0)
    with pytest.warns(DeprecationWarning, match=r"use new\[0\]"):
        assert r.low == 1.0
    with pytest.raises(AttributeError, match="read-only"):
        r.old = 3


def test_renamed_parameters():
    @renamed_parameters(level="conf_level")
    def f(x, conf_level=0.95):
        return x, conf_level

    assert f(1, conf_level=0.9) == (1, 0.9)
    with pytest.warns(DeprecationWarning, match="level="):
        assert f(1, level=0.8) == (1, 0.8)


def test_jsonable_is_strict_json():
    d = jsonable(
        {
            "a": np.arange(3),
            "b": (np.float32(0.5), math.nan),
            "c": [np.inf, -np.inf, np.int64(7)],
            "d": {"e": np.bool_(True)},
        }
    )
    assert d == {"a": [0, 1, 2], "b": [0.5, None], "c": [None, None, 7], "d": {"e": True}}
    assert json.loads(json.dumps(d, allow_nan=False)) == d


@pytest.mark.parametrize(
    "options",
    [
        {"rtol": -1},
        {"rtol": "0.1"},
        {"alpha": 0},
        {"alpha": 1.5},
        {"n_draws": 1.5},
        {"n_draws": "many"},
        {"max_nodes": 0},
        {"seed": None, "n_draws": True},
    ],
)
def test_bad_pvalue_options_are_named_by_every_entry_point(options):
    """The same clear error (option, entry point, what was given) from each entry point."""
    import re

    s = np.linspace(1, 0, 20)
    y = np.zeros(20, bool)
    y[[0, 3, 9]] = True
    name = next(k for k in options if k != "seed")
    calls = {
        "pranker": lambda: pranker.pranker(s, y, **options),
        "significance_from_ap": lambda: pranker.significance_from_ap(0.5, 20, 3, **options),
        "pranker_many": lambda: pranker.pranker_many(s[None], y[None], **options),
        "pranker_chunked": lambda: pranker_chunked(s, y, **options),
    }
    for where, call in calls.items():
        with pytest.raises(
            ValueError,
            # a level (alpha) must lie in (0, 1); counts and tolerances must be positive
            match=rf"^{where}: {name}( \(.*\))? must be (a positive|in \(0, 1\)).*"
            rf"got {re.escape(repr(options[name]))}",
        ):
            call()


# --------------------------------------------------------------------------- every result complete
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"


def _guide_fields() -> list[str]:
    """The shared fields as docs/guide.md lists them: the names in the first column of the
    table under "Names in results"."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## Names in results", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([a-z_0-9]+)`", line.split("|")[1])
    return names


def test_the_guide_lists_the_shared_fields():
    """The guide's table is the code's list, name for name and in order."""
    assert _guide_fields() == list(SHARED_FIELDS)


KINDS = [
    "PrankerResult exact",
    "PrankerResult tilt",
    "PrankerResult beta",
    "ManyResult",
    "MapResult",
    "MapGroup",
    "MonteCarloPvalue",
    "CompareResult influence",
    "CompareResult permutation",
]


@functools.cache
def _results() -> dict:
    """One result of each type (built once, on first use)."""
    s = np.linspace(1.0, 0.0, 30)
    y = np.zeros(30, bool)
    y[[0, 2, 7, 20]] = True
    many = pranker.pranker_many(np.stack([s, s[::-1], s]), np.stack([y, y, ~y]))
    mean_ap = pranker.map_significance_from_ap(
        [0.5, 0.4, 0.6], [30, 40, 50], [4, 5, 6], groups=["a", "a", "b"]
    )
    return {
        "PrankerResult exact": pranker.pranker(s, y),
        "PrankerResult tilt": pranker.significance_from_ap(0.5, 1000, 10),
        "PrankerResult beta": pranker.pranker(s, y, method="beta"),
        "ManyResult": many,
        "MapResult": mean_ap,
        "MapGroup": mean_ap.groups[0],
        "MonteCarloPvalue": montecarlo_pvalue(0.5, 30, 4, n_draws=500),
        "CompareResult influence": pranker.compare(s, s[::-1], y, method="influence"),
        "CompareResult permutation": pranker.compare(
            s, s[::-1], y, method="permutation", n_draws=99, seed=1
        ),
    }


@pytest.mark.parametrize("kind", KINDS)
def test_every_result_carries_every_field_of_the_guide(kind):
    """Each field of the guide's table is an attribute and a key of to_dict() (None, or
    NaN in a batch, where it does not apply), and to_dict() is strict JSON."""
    res = _results()[kind]
    d = res.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    missing = [f for f in _guide_fields() if not hasattr(res, f)]
    not_in_dict = [f for f in _guide_fields() if f not in d]
    assert (missing, not_in_dict) == ([], []), kind
    assert res.statistic is not None and res.method is not None


@pytest.mark.parametrize("kind", KINDS)
def test_every_result_has_a_table_and_a_figure(kind):
    """_repr_html_ is well-formed XML holding a table; plot() returns a matplotlib figure."""
    import xml.etree.ElementTree as ET

    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = _results()[kind]
    assert ET.fromstring(res._repr_html_()).find("table") is not None
    fig = res.plot()
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes
    plt.close(fig)


# --------------------------------------------------------------------------- the new fields' values
def _ap_loop(ranks_of_positives) -> float:
    """AP by its definition: mean over positives of the precision at its rank."""
    r = sorted(ranks_of_positives)
    return sum(Fraction(k + 1, rank) for k, rank in enumerate(r)) / len(r)


def _enumerated(n: int, n_pos: int) -> list[Fraction]:
    """AP of every placement of n_pos positives among n ranks, in exact fractions."""
    return sorted(_ap_loop(c) for c in itertools.combinations(range(1, n + 1), n_pos))


def _moments(values) -> tuple[Fraction, Fraction]:
    mean = sum(values) / len(values)
    return mean, sum((v - mean) ** 2 for v in values) / len(values)


def _quantile(values, q: float) -> Fraction:
    """The first value whose empirical cdf reaches q (q as written in decimal: 0.025 is 1/40)."""
    k, level = len(values), Fraction(str(q))
    return next(v for i, v in enumerate(values) if Fraction(i + 1, k) >= level)


def test_montecarlo_result_null_fields_against_enumeration():
    n, n_pos = 12, 3
    values = _enumerated(n, n_pos)
    mean, var = _moments(values)
    r = montecarlo_pvalue(0.6, n, n_pos, n_draws=200_000, seed=3)
    assert (r.n, r.n_pos) == (n, n_pos)
    assert r.null_mean == pytest.approx(float(mean), rel=1e-12)
    assert r.null_var == pytest.approx(float(var), rel=1e-12)
    # 200,000 draws: each quantile lies between the exact quantiles 0.5 % to either side
    # (the empirical cdf is within ~0.0012 of the true one at 4 standard errors)
    lo, hi = r.null_interval
    assert float(_quantile(values, 0.02)) <= lo <= float(_quantile(values, 0.03))
    assert float(_quantile(values, 0.97)) <= hi <= float(_quantile(values, 0.98))


def test_many_null_interval_is_the_exact_central_interval():
    """Rankings small enough to enumerate: the interval's ends are the exact quantiles."""
    rng = np.random.default_rng(5)
    scores = [rng.random(9), rng.random(10), rng.random(9)]
    labels = [np.r_[1, 1, 0, 0, 0, 0, 0, 0, 0], np.r_[1, 0, 1, 1, 0, 0, 0, 0, 0, 0]]
    labels.append(labels[0][::-1].copy())
    res = pranker.pranker_many(scores, labels)
    lo, hi = res.null_interval
    assert set(res.method.tolist()) == {"exact"}
    for i, (n, n_pos) in enumerate([(9, 2), (10, 3), (9, 2)]):
        values = _enumerated(n, n_pos)
        assert lo[i] == pytest.approx(float(_quantile(values, 0.025)), rel=1e-12)
        assert hi[i] == pytest.approx(float(_quantile(values, 0.975)), rel=1e-12)
    d = res.to_dict()
    assert d["statistic"] == d["auprc"] == res.auprc.tolist()
    assert d["null_interval"][1] == [lo[1], hi[1]]
    quick = res.to_dict(null_interval=False)
    assert "null_interval" not in quick and quick == {k: v for k, v in d.items() if k in quick}


def test_many_null_interval_is_nan_for_a_ranking_without_positive():
    res = pranker.pranker_many(
        [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]], [[1, 0, 0], [0, 0, 0]], no_positive="nan"
    )
    lo, hi = res.null_interval
    assert math.isnan(lo[1]) and math.isnan(hi[1]) and res.to_dict()["null_interval"][1] is None
    assert res.seed is None  # nothing drawn: both p-values are exact


def test_mean_ap_groups_carry_their_counts_and_exact_moments():
    """n, n_pos sum the queries; the null mean AP's moments are the mean of the queries'
    means and the sum of their variances over Q^2 (independent queries)."""
    qn, qp = [7, 8, 9], [2, 3, 2]
    res = pranker.map_significance_from_ap([0.5, 0.7, 0.6], qn, qp, groups=["a", "b", "a"])
    per_query = [_moments(_enumerated(n, p)) for n, p in zip(qn, qp, strict=True)]
    a, b = res.groups
    assert (a.group, a.n, a.n_pos, b.n, b.n_pos) == ("a", 16, 4, 8, 3)
    assert (res.n, res.n_pos) == (24, 7)
    for g, members in ((a, [0, 2]), (b, [1]), (res, [0, 1, 2])):
        q = len(members)
        mean = sum(per_query[i][0] for i in members) / q
        var = sum(per_query[i][1] for i in members) / q**2
        assert g.null_mean == pytest.approx(float(mean), rel=1e-12)
        assert g.null_var == pytest.approx(float(var), rel=1e-12)
