"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).

The top level holds what the main jobs need: the measures (AP, PR and ROC
curves, the interval of an AUPRC, retrieval by radius), the p-value of one
ranking, of many, of two models compared and of a mean AP, the result of each,
the null's moments and its one distribution interface, :class:`InputError`, and
:class:`WorkBudgetWarning` (a p-value capped by its work budget).
Every other public name lives in its submodule (``pranker.null.exact``,
``pranker.chunked``, ...).
"""

# The names below are imported on first use (PEP 562 module ``__getattr__``), so
# ``import pranker`` and the command line (``pranker --help``) start without
# loading numba or scipy. ``from pranker import X``, ``pranker.X``, ``dir(pranker)``
# and ``from pranker import *`` work as with eager imports; submodules
# (``pranker.dask``, ``pranker.chunked``, ``pranker.compat``, ...) load on first
# attribute access too; they are not in ``__all__``, so ``from pranker import *``
# never shadows the dask library.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__

# The public names and the module each comes from, in the order of the API
# reference (docs/api/). The TYPE_CHECKING block below imports the same names
# for type checkers and IDEs (tests/test_api.py keeps the two equal).
_PUBLIC = {
    # measures
    "auprc_ap": "measures.ap",
    "average_precision_many": "measures.ap",
    "PRCurve": "measures.curves",
    "ROCCurve": "measures.roc",
    "pr_curve": "measures.curves",
    "roc_curve": "measures.roc",
    "roc_auc": "measures.roc",
    "roc_auc_many": "measures.roc",
    "APInterval": "measures.uncertainty",
    "ap_interval": "measures.uncertainty",
    "RadiusCurves": "measures.retrieval",
    "radius_curves": "measures.retrieval",
    "hamming_radius_curves": "measures.retrieval",
    "hamming_distances": "measures.retrieval",
    "pack_codes": "measures.retrieval",
    # the null
    "NullParams": "null",
    "null_params": "null",
    "NullDistribution": "null.distributions",
    "PValue": "null.distributions",
    "null_distribution": "null.distributions",
    # significance
    "PrankerResult": "significance.single",
    "pranker": "significance.single",
    "significance_from_ap": "significance.single",
    "ManyResult": "significance.many",
    "pranker_many": "significance.many",
    "CompareResult": "significance.compare",
    "compare": "significance.compare",
    "MapResult": "significance.mean_ap",
    "MapGroup": "significance.mean_ap",
    "map_significance": "significance.mean_ap",
    "map_significance_from_ap": "significance.mean_ap",
    # errors and warnings
    "InputError": "_validation",
    "WorkBudgetWarning": "null.choice",
}

__all__ = list(_PUBLIC)

# Names that left the top level in 0.3.0, and the module where each lives now.
# ``pranker.NAME`` still gives them, with a DeprecationWarning naming that module,
# until pranker 0.5.0 (see CHANGELOG.md).
_MOVED = {
    "tie_groups": "measures.ap",
    "ap_from_tie_groups": "measures.ap",
    "BestF": "measures.curves",
    "ConfidenceInterval": "measures.uncertainty",
    "TrapezoidAUPRC": "measures.uncertainty",
    "auprc_trapezoid": "measures.uncertainty",
    "boyd_interval": "measures.uncertainty",
    "min_auprc": "null",
    "null_ap_samples": "null",
    "auto_method": "null.choice",
    "ExactNull": "null.distributions",
    "TiltNull": "null.distributions",
    "SaddlepointNull": "null.distributions",
    "MonteCarloNull": "null.distributions",
    "BetaNull": "null.distributions",
    "SkewBetaNull": "null.distributions",
    "BetaFit": "null.beta",
    "beta_fit": "null.beta",
    "SkewBetaFit": "null.skewbeta",
    "skew_beta_fit": "null.skewbeta",
    "null_third_moment": "null.skewbeta",
    "null_skewness": "null.skewbeta",
    "ExactNullDistribution": "null.exact",
    "ExactBudgetExceeded": "null.exact",
    "exact_null_distribution": "null.exact",
    "exact_pvalue": "null.exact",
    "MonteCarloPvalue": "significance.montecarlo",
    "montecarlo_pvalue": "significance.montecarlo",
    "clopper_pearson": "null.montecarlo",
    "expected_null_pr_curve": "null.curve",
    "NullInterpolatedAP": "null.curve",
    "null_interpolated_ap": "null.curve",
    "MeanAPNull": "null.mean_ap",
    "MeanAPPValue": "null.mean_ap",
    "NullTable": "null.tables",
    "null_params_table": "null.tables",
    "load_null_params_table": "null.tables",
    "parse_int_ranges": "null.tables",
    "query_average_precision": "significance.mean_ap",
    "auprc_ap_chunked": "chunked",
    "pranker_chunked": "chunked",
}

if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from . import chunked as chunked  # not in __all__
    from . import compat as compat
    from . import dask as dask
    from ._validation import InputError as InputError
    from .measures.ap import auprc_ap as auprc_ap
    from .measures.ap import average_precision_many as average_precision_many
    from .measures.curves import PRCurve as PRCurve
    from .measures.curves import pr_curve as pr_curve
    from .measures.retrieval import RadiusCurves as RadiusCurves
    from .measures.retrieval import hamming_distances as hamming_distances
    from .measures.retrieval import hamming_radius_curves as hamming_radius_curves
    from .measures.retrieval import pack_codes as pack_codes
    from .measures.retrieval import radius_curves as radius_curves
    from .measures.roc import ROCCurve as ROCCurve
    from .measures.roc import roc_auc as roc_auc
    from .measures.roc import roc_auc_many as roc_auc_many
    from .measures.roc import roc_curve as roc_curve
    from .measures.uncertainty import APInterval as APInterval
    from .measures.uncertainty import ap_interval as ap_interval
    from .null import NullParams as NullParams
    from .null import null_params as null_params
    from .null.choice import WorkBudgetWarning as WorkBudgetWarning
    from .null.distributions import NullDistribution as NullDistribution
    from .null.distributions import PValue as PValue
    from .null.distributions import null_distribution as null_distribution
    from .significance.compare import CompareResult as CompareResult
    from .significance.compare import compare as compare
    from .significance.many import ManyResult as ManyResult
    from .significance.many import pranker_many as pranker_many
    from .significance.mean_ap import MapGroup as MapGroup
    from .significance.mean_ap import MapResult as MapResult
    from .significance.mean_ap import map_significance as map_significance
    from .significance.mean_ap import map_significance_from_ap as map_significance_from_ap
    from .significance.single import PrankerResult as PrankerResult
    from .significance.single import pranker as pranker
    from .significance.single import significance_from_ap as significance_from_ap


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    elif name in _MOVED:
        import warnings

        from ._results import REMOVAL

        path = f"{__name__}.{_MOVED[name]}"
        warnings.warn(
            f"{__name__}.{name} has moved to {path}: use `from {path} import {name}`. "
            f"The old spelling works until pranker {REMOVAL}.",
            DeprecationWarning,
            stacklevel=2,
        )
        # not cached: every use of the old spelling warns
        return getattr(importlib.import_module(path), name)
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
    return sorted(set(globals()) | set(__all__))
