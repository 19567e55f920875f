"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).
"""

# The names below are imported on first use (PEP 562 module ``__getattr__``), so
# ``import pranker`` and the command line (``pranker --help``) start without
# loading numba or scipy. ``from pranker import X``, ``pranker.X``, ``dir(pranker)``
# and ``from pranker import *`` work as with eager imports; submodules
# (``pranker.dask``, ``pranker.chunked``, ``pranker.compat``, ...) load on first
# attribute access too.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__

# submodule -> public names it provides
_EXPORTS = {
    "ap": ("ap_from_tie_groups", "auprc_ap", "tie_groups"),
    "chunked": ("auprc_ap_chunked", "pranker_chunked"),
    "compare": ("CompareResult", "ConfidenceInterval", "compare"),
    "curves": ("BestF", "PRCurve", "ROCCurve", "average_precision_many", "pr_curve", "roc_auc", "roc_auc_many", "roc_curve"),
    "exact": ("ExactBudgetExceeded", "ExactNullDistribution", "exact_null_distribution", "exact_pvalue"),
    "many": ("ManyResult", "pranker_many"),
    "mean_ap": ("MapGroup", "MapResult", "map_significance", "map_significance_from_ap"),
    "montecarlo": ("MonteCarloPvalue", "clopper_pearson", "montecarlo_pvalue"),
    "null": ("NullParams", "min_auprc", "null_ap_samples", "null_params"),
    "null.distributions": ("BetaNull", "ExactNull", "MonteCarloNull", "NullDistribution", "PValue", "SaddlepointNull", "SkewBetaNull", "TiltNull", "null_distribution"),
    "null_curve": ("NullInterpolatedAP", "expected_null_pr_curve", "null_interpolated_ap"),
    "retrieval": ("RadiusCurves", "hamming_distances", "hamming_radius_curves", "pack_codes", "radius_curves"),
    "significance": ("BetaFit", "PrankerResult", "auto_method", "beta_fit", "pranker", "significance_from_ap"),
    "skew": ("SkewBetaFit", "null_skewness", "null_third_moment", "skew_beta_fit"),
    "tables": ("NullTable", "load_null_params_table", "null_params_table", "parse_int_ranges"),
    "uncertainty": ("APInterval", "TrapezoidAUPRC", "ap_interval", "auprc_trapezoid", "boyd_interval"),
}
_ORIGIN = {name: module for module, names in _EXPORTS.items() for name in names}

if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from . import chunked, compat, dask
    from .ap import ap_from_tie_groups, auprc_ap, tie_groups
    from .chunked import auprc_ap_chunked, pranker_chunked
    from .compare import CompareResult, ConfidenceInterval, compare
    from .curves import (
        BestF,
        PRCurve,
        ROCCurve,
        average_precision_many,
        pr_curve,
        roc_auc,
        roc_auc_many,
        roc_curve,
    )
    from .exact import (
        ExactBudgetExceeded,
        ExactNullDistribution,
        exact_null_distribution,
        exact_pvalue,
    )
    from .many import ManyResult, pranker_many
    from .mean_ap import MapGroup, MapResult, map_significance, map_significance_from_ap
    from .montecarlo import MonteCarloPvalue, clopper_pearson, montecarlo_pvalue
    from .null import NullParams, min_auprc, null_ap_samples, null_params
    from .null.distributions import (
        BetaNull,
        ExactNull,
        MonteCarloNull,
        NullDistribution,
        PValue,
        SaddlepointNull,
        SkewBetaNull,
        TiltNull,
        null_distribution,
    )
    from .null_curve import NullInterpolatedAP, expected_null_pr_curve, null_interpolated_ap
    from .retrieval import (
        RadiusCurves,
        hamming_distances,
        hamming_radius_curves,
        pack_codes,
        radius_curves,
    )
    from .significance import (
        BetaFit,
        PrankerResult,
        auto_method,
        beta_fit,
        pranker,
        significance_from_ap,
    )
    from .skew import SkewBetaFit, null_skewness, null_third_moment, skew_beta_fit
    from .tables import NullTable, load_null_params_table, null_params_table, parse_int_ranges
    from .uncertainty import APInterval, TrapezoidAUPRC, ap_interval, auprc_trapezoid, boyd_interval

__all__ = [
    "auprc_ap",
    "tie_groups",
    "ap_from_tie_groups",
    "NullParams",
    "null_params",
    "null_ap_samples",
    "min_auprc",
    "BetaFit",
    "beta_fit",
    "PrankerResult",
    "pranker",
    "significance_from_ap",
    "auto_method",
    "NullDistribution",
    "PValue",
    "ExactNull",
    "TiltNull",
    "SaddlepointNull",
    "MonteCarloNull",
    "BetaNull",
    "SkewBetaNull",
    "null_distribution",
    "ExactNullDistribution",
    "ExactBudgetExceeded",
    "exact_null_distribution",
    "exact_pvalue",
    "MonteCarloPvalue",
    "montecarlo_pvalue",
    "clopper_pearson",
    "SkewBetaFit",
    "skew_beta_fit",
    "null_third_moment",
    "null_skewness",
    "chunked",
    "dask",
    "auprc_ap_chunked",
    "pranker_chunked",
    "expected_null_pr_curve",
    "NullInterpolatedAP",
    "null_interpolated_ap",
    "ManyResult",
    "pranker_many",
    "NullTable",
    "null_params_table",
    "load_null_params_table",
    "parse_int_ranges",
    "compat",
    "RadiusCurves",
    "radius_curves",
    "hamming_radius_curves",
    "hamming_distances",
    "pack_codes",
    "PRCurve",
    "ROCCurve",
    "BestF",
    "pr_curve",
    "roc_curve",
    "roc_auc",
    "average_precision_many",
    "roc_auc_many",
    "TrapezoidAUPRC",
    "auprc_trapezoid",
    "APInterval",
    "boyd_interval",
    "ap_interval",
    "compare",
    "CompareResult",
    "ConfidenceInterval",
    "map_significance",
    "map_significance_from_ap",
    "MapResult",
    "MapGroup",
]


def __getattr__(name: str):
    module = _ORIGIN.get(name)
    if module is not None:
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
    return sorted(set(globals()) | set(__all__))
