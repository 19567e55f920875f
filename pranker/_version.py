"""The package version, importable without loading numba or scipy."""

__version__ = "0.3.0"
