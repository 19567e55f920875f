"""The public face of ``pranker``: the names at the top level, and those that moved.

The top level lists at most 40 names (``pranker.__all__``); every other public
name lives in its submodule. A name that left the top level still works as
``pranker.NAME`` until pranker 0.5.0, with a DeprecationWarning that says
where it lives now.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import pranker

ROOT = Path(__file__).resolve().parents[1]

# Every name ``pranker.__all__`` listed in 0.2.0 and up to this change (73 names):
# each must stay reachable, at the top level or as a moved name.
EARLIER_TOP_LEVEL = """
auprc_ap tie_groups ap_from_tie_groups NullParams null_params min_auprc null_ap_samples
PrankerResult pranker significance_from_ap BetaFit beta_fit auto_method PValue
NullDistribution ExactNull TiltNull SaddlepointNull MonteCarloNull BetaNull SkewBetaNull
null_distribution ExactNullDistribution exact_null_distribution exact_pvalue
ExactBudgetExceeded MonteCarloPvalue montecarlo_pvalue clopper_pearson null_third_moment
null_skewness SkewBetaFit skew_beta_fit auprc_ap_chunked pranker_chunked
expected_null_pr_curve NullInterpolatedAP null_interpolated_ap ManyResult pranker_many
NullTable null_params_table load_null_params_table parse_int_ranges RadiusCurves
radius_curves hamming_radius_curves hamming_distances pack_codes PRCurve ROCCurve BestF
pr_curve roc_curve roc_auc average_precision_many roc_auc_many ConfidenceInterval
TrapezoidAUPRC auprc_trapezoid APInterval boyd_interval ap_interval compare CompareResult
map_significance map_significance_from_ap query_average_precision MapResult MapGroup
MeanAPNull MeanAPPValue InputError
""".split()


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_at_most_40_public_names():
    names = pranker.__all__
    assert len(names) <= 40, len(names)
    assert len(set(names)) == len(names)  # no name twice
    assert all(not n.startswith("_") for n in names)


def test_no_earlier_name_is_lost():
    assert len(EARLIER_TOP_LEVEL) == 73
    reachable = set(pranker.__all__) | set(pranker._MOVED)
    assert sorted(set(EARLIER_TOP_LEVEL) - reachable) == []
    assert set(pranker.__all__).isdisjoint(pranker._MOVED)


@pytest.mark.parametrize("name", pranker.__all__)
def test_public_name_resolves_without_warning(name):
    module = importlib.import_module(f"pranker.{pranker._PUBLIC[name]}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        obj = getattr(pranker, name)
        exec(f"from pranker import {name} as imported", ns := {})
    assert obj is getattr(module, name) is ns["imported"]
    assert name in module.__all__  # a public name of the module it comes from
    assert name in dir(pranker)


@pytest.mark.parametrize("name", sorted(pranker._MOVED))
def test_moved_name_warns_with_its_new_path(name):
    path = f"pranker.{pranker._MOVED[name]}"
    module = importlib.import_module(path)
    assert name in module.__all__  # the new path is a public one
    with pytest.warns(DeprecationWarning) as caught:
        obj = getattr(pranker, name)
    assert obj is getattr(module, name)
    (w,) = caught
    assert w.filename == __file__  # the warning points at the user's line
    assert f"from {path} import {name}" in str(w.message)
    assert "0.5.0" in str(w.message)
    # each use warns again (the old spelling is not cached at the top level)
    with pytest.warns(DeprecationWarning, match=path):
        getattr(pranker, name)
    assert name not in pranker.__all__ and name not in dir(pranker)


def test_from_import_of_a_moved_name_warns_and_works():
    from pranker.null.exact import exact_pvalue

    with pytest.warns(DeprecationWarning, match=r"pranker\.null\.exact import exact_pvalue"):
        from pranker import exact_pvalue as old
    assert old is exact_pvalue
    with pytest.warns(DeprecationWarning, match=r"from pranker\.chunked import pranker_chunked"):
        old_chunked = pranker.pranker_chunked
    assert old_chunked is pranker.chunked.pranker_chunked


def test_unknown_names_still_raise():
    with pytest.raises(AttributeError, match="no_such_name"):
        pranker.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec("from pranker import no_such_name", {})


def test_star_import_gives_the_public_names():
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec("from pranker import *", ns)
    assert set(ns) - {"__builtins__"} == set(pranker.__all__)


def test_type_checkers_see_the_public_names():
    """The TYPE_CHECKING block imports each public name from the module the table names,
    and nothing else but the three submodules."""
    tree = ast.parse((ROOT / "pranker" / "__init__.py").read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )
    seen, submodules = {}, set()
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names:
            assert alias.asname == alias.name  # an explicit re-export
            if node.module is None:
                submodules.add(alias.name)
            else:
                seen[alias.name] = node.module
    assert seen == pranker._PUBLIC
    assert submodules == {"chunked", "compat", "dask"}


def test_import_pranker_stays_light():
    """``import pranker``, its ``__all__`` and ``dir()`` load neither numba nor scipy."""
    r = _python(
        "import sys, pranker\n"
        "names = pranker.__all__, dir(pranker)\n"
        "print(sorted(m for m in ('numba', 'scipy', 'numpy') if m in sys.modules))\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def _doc_texts():
    """README, the docs pages, the API reference and the notebooks' cells, as text."""
    import json

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += sorted((ROOT / "docs" / "api").glob("*.rst"))
    for page in pages:
        if page.name != "CHANGELOG.md":  # the changelog names the old spellings on purpose
            yield page.name, page.read_text(encoding="utf-8")
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        yield nb.name, "\n".join("".join(cell["source"]) for cell in cells)


def _old_spellings(text: str) -> list[str]:
    import re

    moved = "|".join(sorted(pranker._MOVED))
    found = re.findall(rf"\b(?:pranker|pk)\.({moved})\b", text)
    for names in re.findall(r"\bfrom pranker import (\([^)]*\)|[^\n]*)", text):
        found += [n for n in re.findall(r"\w+", names) if n in pranker._MOVED]
    return found


def test_docs_and_notebooks_use_the_new_paths():
    offenders = {name: _old_spellings(text) for name, text in _doc_texts()}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_old_spelling_check_can_fail():
    text = "x = pranker.exact_pvalue(0.5, 20, 3)\nfrom pranker import (\n    pranker,\n    TiltNull,\n)\n"
    assert _old_spellings(text) == ["exact_pvalue", "TiltNull"]
    assert _old_spellings("pranker.null.exact.exact_pvalue; from pranker import pranker") == []
