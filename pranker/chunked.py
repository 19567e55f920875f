"""pranker on data read one chunk at a time (memmaps, Parquet row groups, iterators).

The stable public path of :mod:`pranker.scale.chunked`, where the code lives.
"""

from .scale.chunked import *  # noqa: F403
from .scale.chunked import __all__ as __all__
