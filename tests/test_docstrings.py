"""Every public name of ``pranker`` documents itself in numpydoc form.

A public function (a name in ``pranker.__all__``, or one that left the top
level for its submodule) has the sections Parameters, Returns and Examples; a public class has Attributes (or
Parameters) and Examples. The examples themselves run as doctests
(``--doctest-modules`` in ``pyproject.toml`` collects the ``pranker`` package),
so this test checks only that they exist. Sections are read with
``numpydoc.docscrape`` (the parser behind numpydoc's Sphinx extension), so a
misspelt heading counts as missing.
"""

from __future__ import annotations

import importlib
import inspect
import warnings

import pytest

import pranker

docscrape = pytest.importorskip("numpydoc.docscrape")

# Names whose docstrings live in modules maintained separately from this test,
# with the sections they still lack. Remove an entry once its docstring is
# complete; an entry that is no longer needed fails the test, so the list can
# only shrink.
KNOWN_GAPS: dict[str, set[str]] = {}


# every public name and the module it is documented in
WHERE = {**pranker._PUBLIC, **pranker._MOVED}


def _missing(name: str) -> set[str]:
    obj = getattr(importlib.import_module(f"pranker.{WHERE[name]}"), name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a malformed section warns in numpydoc
        doc = docscrape.NumpyDocString(inspect.getdoc(obj) or "")
    missing = set()
    if inspect.isclass(obj):
        if not (doc["Attributes"] or doc["Parameters"]):
            missing.add("Attributes")
    else:
        if not doc["Parameters"]:
            missing.add("Parameters")
        if not (doc["Returns"] or doc["Yields"]):
            missing.add("Returns")
    if not doc["Examples"]:
        missing.add("Examples")
    return missing


@pytest.mark.parametrize("name", sorted(WHERE))
def test_public_docstring_sections(name):
    missing = _missing(name)
    known = KNOWN_GAPS.get(name, set())
    path = f"pranker.{WHERE[name]}.{name}"
    assert missing <= known, f"{path}: docstring lacks {sorted(missing - known)}"
    assert known <= missing, (
        f"{path} now has {sorted(known - missing)}: remove them from KNOWN_GAPS"
    )


def test_known_gaps_are_public_names():
    assert set(KNOWN_GAPS) <= set(WHERE)


def test_the_check_can_fail():
    """The section reader sees a missing section (so a pass above means something)."""

    def f(x):
        """Do nothing.

        Parameters
        ----------
        x : int
            Ignored.
        """

    doc = docscrape.NumpyDocString(inspect.getdoc(f))
    assert doc["Parameters"] and not doc["Returns"] and not doc["Examples"]
