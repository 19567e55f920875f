"""Docstring fragments that several public names share, and the substitution that inserts them.

A docstring names a fragment as ``%(name)s``; :func:`fill_doc` replaces it
with the fragment's text, each further line of the fragment indented like the
line that names it (the idea of scipy's ``doccer``). One text, one place: a
reference or a parameter described the same way everywhere it is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")

REFERENCES = {
    "ref_lopes2014": (
        'M. Lopes and G. Bontempi, "On the null distribution of the precision\n'
        '   and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.'
    ),
    "ref_mcsherry2008": (
        'F. McSherry and M. Najork, "Computing information retrieval\n'
        '   performance measures efficiently in the presence of tied scores",\n'
        "   ECIR 2008."
    ),
    "ref_lugannani1980": (
        'R. Lugannani and S. Rice, "Saddle point approximation for the\n'
        '   distribution of the sum of independent random variables", Adv. Appl.\n'
        "   Prob. 12 (1980) 475–490."
    ),
    "ref_daniels1987": (
        'H. E. Daniels, "Tail probability approximations", International\n'
        "   Statistical Review 55 (1987) 37–48."
    ),
    "ref_siegmund1976": (
        'D. Siegmund, "Importance sampling in the Monte Carlo study of\n'
        '   sequential tests", Ann. Statist. 4 (1976) 673–684.'
    ),
    "ref_boyd2013": (
        'K. Boyd, K. H. Eng and C. D. Page, "Area under the precision-recall\n'
        '   curve: point estimates and confidence intervals", ECML PKDD 2013.'
    ),
}

# Parameter descriptions the measures share (the curves, ROC AUC, AP of many rankings).
MEASURE_DOCS = {
    "binary_labels": (
        "Binary labels (0/1, False/True or -1/1; 1 marks a positive), or any\n"
        "labels with ``pos_label``"
    ),
    "pos_label": (
        "pos_label : scalar, optional\n"
        "    The label of the positive class; every other label is a negative."
    ),
    "input_error": ":class:`~pranker.InputError`, a ValueError that is also\na TypeError",
    "type_error": "TypeError\n    Non-numeric scores, or ``None`` among them.",
    "sklearn_names": (
        "y_score, y_true : array_like, keyword only\n"
        "    scikit-learn's names for ``scores`` and ``y``."
    ),
}

_FIELD = re.compile(r"%\((\w+)\)s")


def fill_doc(*tables: dict) -> Callable[[T], T]:
    """A function that fills the ``%(name)s`` fields of a docstring (or of an object's).

    The fragments are :data:`REFERENCES` and those of ``tables`` (later ones
    win). An unknown name raises ``KeyError`` when the module is imported.
    With ``python -OO`` (no docstrings) nothing is done.
    """
    fragments = dict(REFERENCES)
    for t in tables:
        fragments.update(t)

    def fill_text(doc: str) -> str:
        out: list[str] = []
        for line in doc.split("\n"):
            indent = line[: len(line) - len(line.lstrip())]

            def put(m, indent=indent):
                return fragments[m.group(1)].replace("\n", "\n" + indent)

            out.extend(
                part.rstrip() if part.strip() == "" else part
                for part in _FIELD.sub(put, line).split("\n")
            )
        return "\n".join(out)

    def apply(obj: T) -> T:
        if obj is None:  # a module docstring under python -OO
            return obj
        if isinstance(obj, str):
            return cast(T, fill_text(obj))
        if obj.__doc__:
            obj.__doc__ = fill_text(obj.__doc__)
        return obj

    return apply
