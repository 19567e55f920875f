"""numba kernels: every jitted function of pranker lives in this package.

Kernels take and return plain numpy arrays and scalars, are compiled on first
use and cached on disk (``cache=True``), and know nothing of validation or
result objects: the measure, null and significance layers call them.
"""

from ._compile import watch as _watch

_watch()  # a notice on a terminal when first-use compiling takes more than a second
