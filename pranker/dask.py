"""pranker on dask arrays and dataframes (any cluster).

The stable public path of :mod:`pranker.scale.dask`, where the code lives.
"""

from .scale.dask import *  # noqa: F403
from .scale.dask import __all__ as __all__
