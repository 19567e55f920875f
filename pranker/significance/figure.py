"""``res.plot()`` for the results of the tests of significance.

The one place where results reach the figure layer (:mod:`pranker.plotting`),
which sits above them: the figure module is imported when a figure is asked
for, so results stay cheap to import and matplotlib stays optional. The figure
functions dispatch on the result's type name and never import this layer, so
no import circle forms.
"""

from __future__ import annotations

import importlib

__all__ = ["Plottable"]


class Plottable:
    """Mixin: ``plot()`` draws the result's natural figure."""

    def plot(self, **kwargs):
        """The natural figure of this result (needs matplotlib: ``pip install "pranker[plot]"``).

        Keyword arguments go to the figure's function (``ax=``, ``path=``,
        ``figsize=`` ...; see :func:`pranker.plotting.plot_result`). Returns the
        matplotlib Figure, which a notebook displays.
        """
        plotting = importlib.import_module("pranker.plotting")
        return plotting.plot_result(self, **kwargs)
