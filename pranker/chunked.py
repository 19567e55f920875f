"""pranker on data read one chunk at a time (memmaps, Parquet row groups, iterators).

The stable public path of :mod:`pranker.scale.chunked`, where the code lives:
``pranker`` and ``auprc_ap`` (named as in :mod:`pranker.dask`; also
``pranker_chunked`` and ``auprc_ap_chunked``), and the pieces
of the counting pass for building your own loop (``count_chunk``,
``combine_counts``, ``ap_from_counts``, ``ChunkCounts``).
"""

from .scale.chunked import auprc_ap_chunked, pranker_chunked
from .scale.counts import ChunkCounts, ap_from_counts, combine_counts, count_chunk

pranker = pranker_chunked
auprc_ap = auprc_ap_chunked

__all__ = [
    "pranker",
    "auprc_ap",
    "pranker_chunked",
    "auprc_ap_chunked",
    "ChunkCounts",
    "count_chunk",
    "combine_counts",
    "ap_from_counts",
]
