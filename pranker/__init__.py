"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).
"""

from . import chunked, compat, dask  # pranker.dask imports the dask library lazily
from .ap import ap_from_tie_groups, auprc_ap, tie_groups
from .chunked import auprc_ap_chunked, pranker_chunked
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

__version__ = "0.1.0"

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
]
