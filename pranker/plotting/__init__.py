"""Figures for precision-recall analysis (needs the optional extra ``pranker[plot]``).

Every function takes plain arrays (recall, precision, ...) so it works with
curves from any source, returns the :class:`matplotlib.figure.Figure` it drew
on, and saves it when ``path`` is given (PNG at 150 dpi, or SVG/PDF when the
file name ends so). Thin wrappers (``*_from_*``) take pranker
objects. Figures are built with the object-oriented API
(``matplotlib.figure.Figure``), never ``pyplot``: no global state, no
display needed (the Agg canvas renders files), safe in scripts, servers and
threads. In a notebook the returned Figure displays itself; to draw into
your own axes pass ``ax=`` (a pair of axes for the two-panel figures), as
with scikit-learn's ``Display.plot(ax=...)``.

Conventions (see Carpenter's discussion of PR/ROC curves on the LingPipe blog):

- PR plots: recall on x, precision on y, both on [0, 1]; dotted F-score
  isolines ``F_beta = (1 + b^2) P R / (b^2 P + R)`` and the dotted
  precision = recall diagonal (where it meets the curve is the break-even
  point; the best-F operating point is marked).
- The AUPRC (average precision) is the area under the *step curve*: the
  precision ``p_k`` of each operating point held on ``(r_{k-1}, r_k]``; the
  legend's AUPRC is that area. The *interpolated envelope*
  ``p_interp(r) = max{p(r') : r' >= r}`` is drawn dashed; its area is at
  least as large (notebook 02 measures the difference).
- Null figures show the density on the null's bulk and, beside it, the
  survival function ``log10 P(AUPRC_null >= a)`` the p-value is read from,
  with the observed point, its p-value as computed (method, error) and its
  uncertainty.
- ``ROC | PR`` side by side share the recall axis as y: ROC on the left
  (x = false-positive rate), PR on the right (x = precision), so that at any
  recall you read specificity, precision and F at once.

The figures are built in :mod:`pranker.plotting.pr` (PR and ROC | PR),
:mod:`pranker.plotting.hamming` (retrieval within a Hamming radius),
:mod:`pranker.plotting.null` (the null and its tail) and
:mod:`pranker.plotting.results` (the figure of each result type, what
``res.plot()`` draws); the labels of the F
isolines are placed by :mod:`pranker.plotting._layout`.

References
----------
.. [1] B. Carpenter, "How to define (interpolated) precision-recall/ROC
   curves and the area under them?", LingPipe blog, 2008 (and comments).
.. [2] C. D. Manning, P. Raghavan and H. Schuetze, *Introduction to
   Information Retrieval*, Cambridge University Press, 2008, ch. 8.
.. [3] M. Lopes and G. Bontempi, "On the null distribution of the precision
   and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
"""

from __future__ import annotations

from ._figure import DPI as DPI
from ._figure import SAVE_FORMATS, save_figure
from .hamming import plot_hamming_from_curves, plot_hamming_pr, plot_hamming_pr_curves
from .null import plot_null_distribution, plot_null_from_result
from .pr import plot_pr, plot_pr_curves, plot_pr_from_curve, plot_roc_pr, plot_roc_pr_from_curves
from .results import plot_compare_result, plot_many_result, plot_map_result, plot_result

__all__ = [
    "plot_pr",
    "plot_pr_curves",
    "plot_roc_pr",
    "plot_null_distribution",
    "plot_hamming_pr",
    "plot_hamming_pr_curves",
    "plot_pr_from_curve",
    "plot_roc_pr_from_curves",
    "plot_null_from_result",
    "plot_hamming_from_curves",
    "plot_result",
    "plot_compare_result",
    "plot_map_result",
    "plot_many_result",
    "save_figure",
    "SAVE_FORMATS",
]
