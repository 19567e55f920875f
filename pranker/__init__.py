"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).
"""

# The names below are imported on first use (PEP 562 module ``__getattr__``), so
# ``import pranker`` and the command line (``pranker --help``) start without
# loading numba or scipy. ``from pranker import X``, ``pranker.X``, ``dir(pranker)``
# and ``from pranker import *`` work as with eager imports; submodules
# (``pranker.dask``, ``pranker.chunked``, ``pranker.compat``, ...) load on first
# attribute access too; they are not in ``__all__``, so ``from pranker import *``
# never shadows the dask library.

from __future__ import annotations

import ast
import functools
import importlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ._version import __version__ as __version__

# The modules whose public names the package re-exports, in the order of the
# documentation. Each module's ``__all__`` is the one list of its public names:
# the table below is read from those lists (as text, so that nothing is imported
# before it is used), and the type checkers read the same lists through the
# star-imports of the TYPE_CHECKING block.
_MODULES = (
    "measures.ap",
    "null",
    "significance.single",
    "null.beta",
    "null.choice",
    "null.distributions",
    "null.exact",
    "significance.montecarlo",
    "null.skewbeta",
    "scale.chunked",
    "null.curve",
    "significance.many",
    "null.tables",
    "measures.retrieval",
    "measures.curves",
    "measures.roc",
    "measures.uncertainty",
    "significance.compare",
    "significance.mean_ap",
    "null.mean_ap",
    "_validation",
)
_ALL_LIST = re.compile(r"^__all__\s*=\s*(\[.*?\]|\(.*?\))", re.S | re.M)

if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from . import chunked as chunked  # not in __all__
    from . import compat as compat
    from . import dask as dask
    from ._validation import *  # noqa: F403
    from .measures.ap import *  # noqa: F403
    from .measures.curves import *  # noqa: F403
    from .measures.retrieval import *  # noqa: F403
    from .measures.roc import *  # noqa: F403
    from .measures.uncertainty import *  # noqa: F403
    from .null import *  # noqa: F403
    from .null.beta import *  # noqa: F403
    from .null.choice import *  # noqa: F403
    from .null.curve import *  # noqa: F403
    from .null.distributions import *  # noqa: F403
    from .null.exact import *  # noqa: F403
    from .null.mean_ap import *  # noqa: F403
    from .null.skewbeta import *  # noqa: F403
    from .null.tables import *  # noqa: F403
    from .scale.chunked import *  # noqa: F403
    from .significance.compare import *  # noqa: F403
    from .significance.many import *  # noqa: F403
    from .significance.mean_ap import *  # noqa: F403
    from .significance.montecarlo import *  # noqa: F403
    from .significance.single import *  # noqa: F403


@functools.cache
def _exports() -> dict[str, list[str]]:
    """Each module's ``__all__``, read from its source without importing it."""
    here = Path(__file__).parent
    table = {}
    for module in _MODULES:
        path = here.joinpath(*module.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        match = _ALL_LIST.search(path.read_text(encoding="utf-8"))
        if match is None:  # pragma: no cover - a module without a literal __all__
            table[module] = list(importlib.import_module(f".{module}", __name__).__all__)
        else:
            table[module] = list(ast.literal_eval(match.group(1)))
    return table


@functools.cache
def _origin() -> dict[str, str]:
    return {name: module for module, names in _exports().items() for name in names}


def __getattr__(name: str):
    if name == "__all__":
        value: object = [name for names in _exports().values() for name in names]
    elif name in _origin():
        module = _origin()[name]
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif not name.startswith("__"):
        # any submodule, e.g. pranker.dask or pranker.null, as with eager imports
        try:
            value = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__getattr__("__all__")))
