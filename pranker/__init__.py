"""pranker: AUPRC (average precision) and its significance against random ranking.

A Python port and extension of the R package pranker (Lopes & Bontempi,
"On the null distribution of the precision and recall curve", ECML PKDD 2014).
"""

from . import chunked, dask  # submodules; pranker.dask imports the dask library lazily
from .ap import ap_from_tie_groups, auprc_ap, tie_groups
from .chunked import auprc_ap_chunked, pranker_chunked
from .null import NullParams, min_auprc, null_ap_samples, null_params
from .significance import BetaFit, PrankerResult, beta_fit, pranker

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
    "chunked",
    "dask",
    "auprc_ap_chunked",
    "pranker_chunked",
]
