"""numba kernels: every jitted function of pranker lives in this package.

Kernels take and return plain numpy arrays and scalars, are compiled on first
use and cached on disk (``cache=True``), and know nothing of validation or
result objects: the measure, null and significance layers call them.

Importing this package, before any kernel module, loads the TBB library so
that numba can choose its fork-safe and thread-safe TBB threading layer
(:mod:`pranker._numba._threading`).
"""

from ._compile import is_cold
from ._compile import watch as _watch
from ._threading import select as _select_threading_layer

_select_threading_layer()  # before the first parallel kernel launches numba's threads
_watch()  # a notice on a terminal when first-use compiling takes more than a second

__all__ = ["is_cold"]
