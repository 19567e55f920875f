"""Functions that reproduce other tools value for value: VLFeat's vl_pr and vl_roc, the MATLAB recall_precision of hashing evaluations.

The stable public path of :mod:`pranker.measures.compat`, where the code lives.
"""

from .measures.compat import *  # noqa: F403
from .measures.compat import __all__ as __all__
