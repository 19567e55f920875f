"""numba kernels: every jitted function of pranker lives in this package.

Kernels take and return plain numpy arrays and scalars, are compiled on first
use and cached on disk (``cache=True``), and know nothing of validation or
result objects: the measure, null and significance layers call them.
"""
