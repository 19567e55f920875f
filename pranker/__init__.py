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

import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__

# submodule -> public names it provides
_EXPORTS = {
    "measures.ap": ("ap_from_tie_groups", "auprc_ap", "tie_groups"),
    "scale.chunked": ("auprc_ap_chunked", "pranker_chunked"),
    "measures.curves": ("BestF", "PRCurve", "ROCCurve", "average_precision_many", "pr_curve", "roc_auc", "roc_auc_many", "roc_curve"),
    "null.exact": ("ExactBudgetExceeded", "ExactNullDistribution", "exact_null_distribution", "exact_pvalue"),
    "significance.many": ("ManyResult", "pranker_many"),
    "significance.compare": ("CompareResult", "ConfidenceInterval", "compare"),
    "significance.mean_ap": ("MapGroup", "MapResult", "map_significance", "map_significance_from_ap"),
    "null.montecarlo": ("MonteCarloPvalue", "clopper_pearson", "montecarlo_pvalue"),
    "null": ("NullParams", "min_auprc", "null_ap_samples", "null_params"),
    "null.distributions": ("BetaNull", "ExactNull", "MonteCarloNull", "NullDistribution", "PValue", "SaddlepointNull", "SkewBetaNull", "TiltNull", "null_distribution"),
    "null.curve": ("NullInterpolatedAP", "expected_null_pr_curve", "null_interpolated_ap"),
    "measures.retrieval": ("RadiusCurves", "hamming_distances", "hamming_radius_curves", "pack_codes", "radius_curves"),
    "significance.single": ("BetaFit", "PrankerResult", "auto_method", "beta_fit", "pranker", "significance_from_ap"),
    "null.skewbeta": ("SkewBetaFit", "null_skewness", "null_third_moment", "skew_beta_fit"),
    "null.tables": ("NullTable", "load_null_params_table", "null_params_table", "parse_int_ranges"),
    "measures.uncertainty": ("APInterval", "TrapezoidAUPRC", "ap_interval", "auprc_trapezoid", "boyd_interval"),
}
_ORIGIN = {name: module for module, names in _EXPORTS.items() for name in names}

if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from . import chunked, compat, dask  # noqa: F401  (submodules, not in __all__)
    from .measures.ap import ap_from_tie_groups, auprc_ap, tie_groups
    from .measures.curves import (
        BestF,
        PRCurve,
        ROCCurve,
        average_precision_many,
        pr_curve,
        roc_auc,
        roc_auc_many,
        roc_curve,
    )
    from .measures.retrieval import (
        RadiusCurves,
        hamming_distances,
        hamming_radius_curves,
        pack_codes,
        radius_curves,
    )
    from .measures.uncertainty import (
        APInterval,
        TrapezoidAUPRC,
        ap_interval,
        auprc_trapezoid,
        boyd_interval,
    )
    from .null import NullParams, min_auprc, null_ap_samples, null_params
    from .null.curve import NullInterpolatedAP, expected_null_pr_curve, null_interpolated_ap
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
    from .null.exact import (
        ExactBudgetExceeded,
        ExactNullDistribution,
        exact_null_distribution,
        exact_pvalue,
    )
    from .null.montecarlo import MonteCarloPvalue, clopper_pearson, montecarlo_pvalue
    from .null.skewbeta import SkewBetaFit, null_skewness, null_third_moment, skew_beta_fit
    from .null.tables import NullTable, load_null_params_table, null_params_table, parse_int_ranges
    from .scale.chunked import auprc_ap_chunked, pranker_chunked
    from .significance.compare import CompareResult, ConfidenceInterval, compare
    from .significance.many import ManyResult, pranker_many
    from .significance.mean_ap import (
        MapGroup,
        MapResult,
        map_significance,
        map_significance_from_ap,
    )
    from .significance.single import (
        BetaFit,
        PrankerResult,
        auto_method,
        beta_fit,
        pranker,
        significance_from_ap,
    )

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
