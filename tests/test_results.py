"""The result vocabulary: one name per quantity, deprecated names that still work, JSON."""

from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

import pranker
from pranker._results import DeprecatedAlias, jsonable, renamed_parameters


def test_counts_are_n_and_n_pos_in_every_public_signature():
    """Only the R package's null_params keeps N and P (and the fits of its notation)."""
    keep = {"null_params", "null_params_table", "NullParams", "NullTable", "BetaFit", "SkewBetaFit"}
    offenders = []
    for name in pranker.__all__:
        obj = getattr(pranker, name)
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
        old = pranker.exact_pvalue(0.5, N=20, P=3)
    said = sorted(str(w.message) for w in caught)
    assert len(said) == 2 and "use n=" in said[0] and "use n_pos=" in said[1]
    assert old == pranker.exact_pvalue(0.5, 20, 3) == pranker.exact_pvalue(0.5, n=20, n_pos=3)
    with pytest.raises(TypeError, match="twice"):
        pranker.auto_method(n=10, N=10, n_pos=2)
    with pytest.warns(DeprecationWarning, match=r"TiltNull.__init__\(\).N="):
        null = pranker.TiltNull(N=1000, n_pos=10)
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


def test_every_result_to_dict_is_strict_json_with_the_shared_fields():
    s = np.r_[np.linspace(1, 0, 30)]
    y = np.zeros(30, bool)
    y[[0, 2, 7, 20]] = True
    results = [
        pranker.pranker(s, y),
        pranker.pranker_many(np.stack([s, s[::-1]]), np.stack([y, y])),
        pranker.compare(s, s[::-1], y, method="permutation", n_draws=99, seed=1),
        pranker.montecarlo_pvalue(0.5, 30, 4, n_draws=500),
        pranker.map_significance_from_ap([0.5, 0.4], [30, 40], [4, 5]),
    ]
    for r in results:
        d = r.to_dict()
        assert json.loads(json.dumps(d, allow_nan=False)) == d, type(r).__name__
        for field in ("pvalue", "log10_pvalue", "pvalue_interval", "pvalue_rse", "method"):
            assert field in d, (type(r).__name__, field)
        assert "conf_level" in d and "seed" in d and "n_draws" in d, type(r).__name__
        assert r.statistic is not None


@pytest.mark.parametrize(
    "options",
    [
        {"rtol": -1},
        {"rtol": "0.1"},
        {"alpha": 0},
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
        "pranker_chunked": lambda: pranker.pranker_chunked(s, y, **options),
    }
    for where, call in calls.items():
        with pytest.raises(
            ValueError,
            match=rf"^{where}: {name} must be a positive.*got {re.escape(repr(options[name]))}",
        ):
            call()
