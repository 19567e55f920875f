"""Tests of significance: is a ranking (or many) better than random ranking?

- :mod:`~pranker.significance.auto`: the method names and the default rule;
- :mod:`~pranker.significance.single`: :func:`pranker.pranker` and
  :func:`pranker.significance_from_ap`, their result type;
- :mod:`~pranker.significance.many`: many rankings at once with BH adjustment.
"""
