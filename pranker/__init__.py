"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).
"""

from . import compat
from .ap import ap_from_tie_groups, auprc_ap, tie_groups
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
from .montecarlo import MonteCarloPvalue, clopper_pearson, montecarlo_pvalue
from .null import NullParams, min_auprc, null_ap_samples, null_params
from .retrieval import (
    RadiusCurves,
    hamming_distances,
    hamming_radius_curves,
    pack_codes,
    radius_curves,
)
from .significance import BetaFit, PrankerResult, auto_method, beta_fit, pranker
from .skew import SkewBetaFit, null_skewness, null_third_moment, skew_beta_fit
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
    "auto_method",
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
