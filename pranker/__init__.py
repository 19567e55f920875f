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

# The public names, module by module, in the order of the documentation: the one
# table behind ``__all__`` and the lazy look-up below (a test checks that every
# name is in its module's ``__all__`` and in the TYPE_CHECKING imports).
_EXPORTS = {
    "measures.ap": ("auprc_ap", "tie_groups", "ap_from_tie_groups"),
    "null": ("NullParams", "null_params", "null_ap_samples", "min_auprc"),
    "significance.single": (
        "BetaFit",
        "beta_fit",
        "PrankerResult",
        "pranker",
        "significance_from_ap",
        "auto_method",
    ),
    "null.distributions": (
        "NullDistribution",
        "PValue",
        "ExactNull",
        "TiltNull",
        "SaddlepointNull",
        "MonteCarloNull",
        "BetaNull",
        "SkewBetaNull",
        "null_distribution",
    ),
    "null.exact": (
        "ExactNullDistribution",
        "ExactBudgetExceeded",
        "exact_null_distribution",
        "exact_pvalue",
    ),
    "null.montecarlo": ("MonteCarloPvalue", "montecarlo_pvalue", "clopper_pearson"),
    "null.skewbeta": ("SkewBetaFit", "skew_beta_fit", "null_third_moment", "null_skewness"),
    "scale.chunked": ("auprc_ap_chunked", "pranker_chunked"),
    "null.curve": ("expected_null_pr_curve", "NullInterpolatedAP", "null_interpolated_ap"),
    "significance.many": ("ManyResult", "pranker_many"),
    "null.tables": ("NullTable", "null_params_table", "load_null_params_table", "parse_int_ranges"),
    "measures.retrieval": (
        "RadiusCurves",
        "radius_curves",
        "hamming_radius_curves",
        "hamming_distances",
        "pack_codes",
    ),
    "measures.curves": (
        "PRCurve",
        "ROCCurve",
        "BestF",
        "pr_curve",
        "roc_curve",
        "roc_auc",
        "average_precision_many",
        "roc_auc_many",
    ),
    "measures.uncertainty": (
        "TrapezoidAUPRC",
        "auprc_trapezoid",
        "APInterval",
        "boyd_interval",
        "ap_interval",
        "ConfidenceInterval",
    ),
    "significance.compare": ("compare", "CompareResult"),
    "significance.mean_ap": (
        "map_significance",
        "map_significance_from_ap",
        "MapResult",
        "MapGroup",
    ),
}
_ORIGIN = {name: module for module, names in _EXPORTS.items() for name in names}

if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    # "from M import X as X" marks a re-export (``__all__`` is built at run time);
    # tests/test_cli.py checks these names against _EXPORTS.
    # isort: off
    from . import chunked as chunked, compat as compat, dask as dask  # not in __all__
    from .measures.ap import (
        ap_from_tie_groups as ap_from_tie_groups,
        auprc_ap as auprc_ap,
        tie_groups as tie_groups,
    )
    from .measures.curves import (
        BestF as BestF,
        PRCurve as PRCurve,
        ROCCurve as ROCCurve,
        average_precision_many as average_precision_many,
        pr_curve as pr_curve,
        roc_auc as roc_auc,
        roc_auc_many as roc_auc_many,
        roc_curve as roc_curve,
    )
    from .measures.retrieval import (
        RadiusCurves as RadiusCurves,
        hamming_distances as hamming_distances,
        hamming_radius_curves as hamming_radius_curves,
        pack_codes as pack_codes,
        radius_curves as radius_curves,
    )
    from .measures.uncertainty import (
        APInterval as APInterval,
        ConfidenceInterval as ConfidenceInterval,
        TrapezoidAUPRC as TrapezoidAUPRC,
        ap_interval as ap_interval,
        auprc_trapezoid as auprc_trapezoid,
        boyd_interval as boyd_interval,
    )
    from .null import (
        NullParams as NullParams,
        min_auprc as min_auprc,
        null_ap_samples as null_ap_samples,
        null_params as null_params,
    )
    from .null.curve import (
        NullInterpolatedAP as NullInterpolatedAP,
        expected_null_pr_curve as expected_null_pr_curve,
        null_interpolated_ap as null_interpolated_ap,
    )
    from .null.distributions import (
        BetaNull as BetaNull,
        ExactNull as ExactNull,
        MonteCarloNull as MonteCarloNull,
        NullDistribution as NullDistribution,
        PValue as PValue,
        SaddlepointNull as SaddlepointNull,
        SkewBetaNull as SkewBetaNull,
        TiltNull as TiltNull,
        null_distribution as null_distribution,
    )
    from .null.exact import (
        ExactBudgetExceeded as ExactBudgetExceeded,
        ExactNullDistribution as ExactNullDistribution,
        exact_null_distribution as exact_null_distribution,
        exact_pvalue as exact_pvalue,
    )
    from .null.montecarlo import (
        MonteCarloPvalue as MonteCarloPvalue,
        clopper_pearson as clopper_pearson,
        montecarlo_pvalue as montecarlo_pvalue,
    )
    from .null.skewbeta import (
        SkewBetaFit as SkewBetaFit,
        null_skewness as null_skewness,
        null_third_moment as null_third_moment,
        skew_beta_fit as skew_beta_fit,
    )
    from .null.tables import (
        NullTable as NullTable,
        load_null_params_table as load_null_params_table,
        null_params_table as null_params_table,
        parse_int_ranges as parse_int_ranges,
    )
    from .scale.chunked import (
        auprc_ap_chunked as auprc_ap_chunked,
        pranker_chunked as pranker_chunked,
    )
    from .significance.compare import (
        CompareResult as CompareResult,
        compare as compare,
    )
    from .significance.many import ManyResult as ManyResult, pranker_many as pranker_many
    from .significance.mean_ap import (
        MapGroup as MapGroup,
        MapResult as MapResult,
        map_significance as map_significance,
        map_significance_from_ap as map_significance_from_ap,
    )
    from .significance.single import (
        BetaFit as BetaFit,
        PrankerResult as PrankerResult,
        auto_method as auto_method,
        beta_fit as beta_fit,
        pranker as pranker,
        significance_from_ap as significance_from_ap,
    )
    # isort: on

__all__ = [name for names in _EXPORTS.values() for name in names]


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
