"""Scale: the same AP and p-value for data that does not fit in memory.

- :mod:`~pranker.scale.counts`: the one counting path both drivers share
  (scan a chunk, count it against the positives' scores, merge counts);
- :mod:`~pranker.scale.chunked`: one chunk at a time (memmaps, Parquet row
  groups, iterators), in two passes with memory bounded by a chunk plus O(P);
- :mod:`~pranker.scale.dask`: dask arrays and dataframes on any cluster.
"""
