"""Tests of significance: is a ranking (or many) better than random ranking?

- :mod:`~pranker.significance.options`: the method names and the options of a p-value,
  checked once and passed down;
- :mod:`~pranker.significance.single`: :func:`pranker.pranker` and
  :func:`pranker.significance_from_ap`, their result type;
- :mod:`~pranker.significance.many`: many rankings at once with BH adjustment;
- :mod:`~pranker.significance.compare`: model A against model B;
- :mod:`~pranker.significance.mean_ap`: mean AP over queries.
"""
