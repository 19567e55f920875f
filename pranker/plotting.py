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

import math
import os
from collections.abc import Mapping, Sequence

import numpy as np

from ._files import atomic_write

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
    "save_figure",
    "SAVE_FORMATS",
]

_F_LEVELS = (0.2, 0.4, 0.6, 0.8)
DPI = 150  # default resolution of saved raster figures (PNG)


def _figure(figsize, ncols: int = 1, sharey: bool = False):
    """A new Figure with ``ncols`` axes, without pyplot (no display needed)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on environment
        raise ImportError(
            "pranker's plots need matplotlib: pip install 'pranker[plot]' "
            "(or pip install matplotlib)."
        ) from exc
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0]
    return fig, list(axes)


def _axes_or_new(ax, figsize):
    if ax is None:
        fig, (ax,) = _figure(figsize)
        return fig, ax
    return ax.figure, ax


def _axes_pair(ax, figsize, sharey: bool = False):
    """Two axes: a new figure's, or the two the caller passed as ``ax=(left, right)``."""
    if ax is None:
        fig, axes = _figure(figsize, ncols=2, sharey=sharey)
        return fig, axes, True
    try:
        left, right = ax
    except (TypeError, ValueError):
        raise TypeError("this figure has two panels: pass ax=(left_axes, right_axes).") from None
    return left.figure, [left, right], False


SAVE_FORMATS = ("png", "svg", "pdf")


def save_figure(fig, path, *, dpi: int = DPI, overwrite: bool = True) -> None:
    """Save ``fig`` to ``path`` atomically (temporary file in the same folder, then rename).

    The format follows the extension (``.png``, ``.svg``, ``.pdf``, or any
    other format matplotlib writes). With ``overwrite=False`` an existing
    file raises :class:`FileExistsError` and is left untouched. A failure
    never leaves a partial file behind. ``dpi`` applies to raster formats
    (150 by default).
    """
    path = os.fspath(path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists; refusing to overwrite it.")
    ext = os.path.splitext(path)[1] or ".png"
    atomic_write(
        path,
        lambda tmp: fig.savefig(
            tmp, dpi=dpi, format=ext.lstrip(".").lower() or "png", metadata=_metadata(ext)
        ),
        prefix=".pranker-",
        suffix=ext,
    )


def _metadata(ext: str):
    """No creation date in SVG/PDF, so the same figure gives the same bytes."""
    ext = ext.lower()
    if ext == ".svg":
        return {"Date": None}
    if ext == ".pdf":
        return {"CreationDate": None}
    return None


def _maybe_save(fig, path, dpi):
    if path is not None:
        save_figure(fig, path, dpi=dpi)
    return fig


def _as_curve(recall, precision):
    r = np.asarray(recall, dtype=np.float64).ravel()
    p = np.asarray(precision, dtype=np.float64).ravel()
    if r.shape != p.shape:
        raise ValueError(
            f"recall and precision must have the same length; got {r.size} and {p.size}."
        )
    if r.size == 0:
        raise ValueError("recall and precision are empty: nothing to plot.")
    return r, p


def _step_xy(r: np.ndarray, p_interp: np.ndarray):
    """Vertices of a step curve: ``p_interp[i]`` on ``(r[i-1], r[i]]``.

    Used for the AUPRC step curve (precision at each operating point) and for
    the interpolated envelope. Returned explicitly (rather than via
    ``drawstyle``) so the same step can be drawn with the axes swapped.
    """
    rr = np.empty(2 * r.size - 1)
    pp = np.empty_like(rr)
    rr[0], pp[0] = r[0], p_interp[0]
    rr[1::2], rr[2::2] = r[:-1], r[1:]
    pp[1::2], pp[2::2] = p_interp[1:], p_interp[1:]
    return rr, pp


def _step_area(r: np.ndarray, p: np.ndarray) -> float:
    """Area under the step curve ``p[i]`` on ``(r[i-1], r[i]]``: ``sum (r_i - r_{i-1}) p_i``.

    For the precision at each operating point this is the average precision
    (AUPRC); for the interpolated precision, the area of the envelope.
    """
    if r.size < 2:
        return float("nan")
    dr = np.diff(r)
    pk = np.where(dr != 0.0, p[1:], 0.0)  # 0/0 precision only where recall does not move
    return float(np.sum(dr * np.nan_to_num(pk)))


_MAX_POINTS = 20_000


def _thin(*arrays, max_points: int = _MAX_POINTS):
    """At most ``max_points`` evenly spaced points (ends kept): a 1e7-point curve
    draws as fast as a small one and looks the same at figure resolution."""
    n = arrays[0].size
    if n <= max_points:
        return arrays
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
    return tuple(a[idx] for a in arrays)


def _recall_steps(r: np.ndarray, p: np.ndarray):
    """The first point and every point where recall increases: the vertices of the
    AUPRC step curve (precision after a false positive, before the next true
    positive, takes no part in the area and is not drawn)."""
    keep = np.ones(r.size, dtype=bool)
    keep[1:] = np.diff(r) > 0.0
    return r[keep], p[keep]


def _interpolated(precision: np.ndarray) -> np.ndarray:
    """``max(precision[j] for j >= i)``: reversed running maximum (NaN-safe)."""
    p = np.where(np.isnan(precision), -np.inf, precision)
    return np.maximum.accumulate(p[::-1])[::-1]


def _f_isolines(ax, levels, beta: float, *, swap: bool = False) -> list:
    """Dotted F_beta contours on a recall/precision square; returns their labels to place.

    From ``F = (1 + b^2) P R / (b^2 P + R)``: ``P = F R / ((1 + b^2) R - F b^2)``,
    defined for ``R > F b^2 / (1 + b^2)``; points with P outside [0, 1] are
    dropped. ``swap=True`` draws precision on x (the ROC | PR layout). The
    labels are placed by :func:`_place_f_labels` once every curve is drawn.
    """
    b2 = beta * beta
    out = []
    for f in levels:
        r = np.linspace(f * b2 / (1.0 + b2) + 1e-9, 1.0, 400)
        p = f * r / ((1.0 + b2) * r - f * b2)
        keep = (p >= 0.0) & (p <= 1.0)
        r, p = r[keep], p[keep]
        if r.size < 2:
            continue
        x, y = (p, r) if swap else (r, p)
        (line,) = ax.plot(x, y, ls=":", lw=0.8, color="0.55", zorder=1)
        line.set_gid("f-isoline")
        name = "F" if beta == 1.0 else f"F{beta:g}"
        out.append((f"{name}={f:g}", line))
    return out


def _place_f_labels(ax, isolines, fontsize: float = 7.0) -> None:
    """Label each F isoline where the label box touches no curve and stays off the frame.

    The axes square is rasterised (every other line of the axes, densified,
    marks its cells); for each isoline the label goes to the point along it
    whose label box covers the fewest marked cells, then the farthest from
    any marked cell. Placed labels mark their boxes for the next ones. The
    label sits on its own (dotted) isoline with a white background.
    """
    if not isolines:
        return
    from scipy.ndimage import distance_transform_edt

    G = 200
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()

    def cells(x, y):
        ix = np.clip(((np.asarray(x) - x0) / (x1 - x0) * G).astype(np.int64), 0, G - 1)
        iy = np.clip(((np.asarray(y) - y0) / (y1 - y0) * G).astype(np.int64), 0, G - 1)
        return ix, iy

    def dense(x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        if x.size < 2:
            return x, y
        seg = np.hypot(np.diff(x) / (x1 - x0), np.diff(y) / (y1 - y0))
        s = np.concatenate([[0.0], np.cumsum(seg)])
        n = int(min(max(4.0 * G * s[-1], 2), 200_000))
        t = np.linspace(0.0, s[-1], n)
        return np.interp(t, s, x), np.interp(t, s, y)

    own = {id(line) for _, line in isolines}
    occ = np.zeros((G, G), dtype=bool)  # [iy, ix]
    soft = np.zeros((G, G), dtype=bool)  # other isolines: avoided, less strongly
    for line in ax.get_lines():
        if id(line) in own:
            continue
        x, y = line.get_xdata(), line.get_ydata()
        if line.get_transform() is not ax.transData:  # axhline/axvline: axes fraction on one side
            x, y = np.asarray(x, float), np.asarray(y, float)
            if np.allclose(x, [0, 1]):
                x = np.array([x0, x1])
            if np.allclose(y, [0, 1]):
                y = np.array([y0, y1])
        ix, iy = cells(*dense(x, y))
        occ[iy, ix] = True
        if line.get_marker() not in (None, "None", "", " "):
            for dx in (-2, -1, 0, 1, 2):
                for dy in (-2, -1, 0, 1, 2):
                    occ[np.clip(iy + dy, 0, G - 1), np.clip(ix + dx, 0, G - 1)] = True
    # label box size in cells, from the axes' size on the figure (square axes)
    fw, fh = ax.figure.get_size_inches()
    pos = ax.get_position()
    side_in = max(min(fw * pos.width, fh * pos.height), 1.0)
    for text, line in isolines:
        for _, other in isolines:
            if other is not line:
                ix, iy = cells(*dense(other.get_xdata(), other.get_ydata()))
                soft[iy, ix] = True
        w = int(np.ceil(G * (0.62 * fontsize * len(text) + 4.0) / 72.0 / side_in / 2.0))
        h = int(np.ceil(G * (1.35 * fontsize + 3.0) / 72.0 / side_in / 2.0))
        cost_map = occ.astype(np.float64) * 50.0 + soft * 1.0
        integral = np.zeros((G + 1, G + 1))
        integral[1:, 1:] = cost_map.cumsum(0).cumsum(1)
        clear = distance_transform_edt(~occ)
        x, y = line.get_xdata(), line.get_ydata()
        ix, iy = cells(x, y)
        margin = 6
        ok = (ix - w >= margin) & (ix + w < G - margin) & (iy - h >= margin) & (iy + h < G - margin)
        if not ok.any():
            continue
        cand = np.flatnonzero(ok)
        a, b = iy[cand] - h, iy[cand] + h + 1
        c, d = ix[cand] - w, ix[cand] + w + 1
        overlap = integral[b, d] - integral[a, d] - integral[b, c] + integral[a, c]
        score = overlap * 1000.0 - np.minimum(clear[iy[cand], ix[cand]], 25.0)
        k = cand[int(np.argmin(score))]
        ax.text(
            x[k],
            y[k],
            text,
            fontsize=fontsize,
            color="0.35",
            ha="center",
            va="center",
            zorder=2,
            gid="f-label",
            bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.85},
        )
        occ[max(iy[k] - h, 0) : iy[k] + h + 1, max(ix[k] - w, 0) : ix[k] + w + 1] = True
        soft[:] = False


def _legend_below(fig, ax, own_figure: bool, ncols: int = 2) -> None:
    """Legend outside the data area (below the axes) on our own figures."""
    if own_figure:
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(
            handles, labels, loc="outside lower center", ncols=ncols, fontsize=7.5, frameon=False
        )
    else:
        ax.legend(loc="lower left", fontsize=7, framealpha=0.85)


def _legend_under(ax, ncols: int = 2) -> None:
    """Legend under one axes (outside the data; constrained layout makes room)."""
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=ncols, fontsize=7.5, frameon=False
    )


def _square(ax, xlabel, ylabel):
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_aspect("equal", adjustable="box")
    ax.grid(True, lw=0.3, alpha=0.5)


def _best_f(r, p, beta):
    b2 = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (1.0 + b2) * p * r / (b2 * p + r)
    f = np.where(np.isfinite(f), f, -1.0)
    i = int(np.argmax(f))
    return i, float(f[i])


def plot_pr_curves(
    curves: Mapping[str, tuple],
    *,
    prevalence: float | None = None,
    null_curve: tuple | None = None,
    interpolated: bool = True,
    raw: bool = True,
    f_isolines: Sequence[float] = _F_LEVELS,
    f_beta: float = 1.0,
    diagonal: bool = True,
    mark_best_f: bool = True,
    show_auprc: bool = True,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """PR curves of several rankings on one square, with F isolines and baselines.

    Each ranking is drawn as its **step curve** — precision ``p_k`` held on
    ``(r_{k-1}, r_k]`` — whose area is the AUPRC (average precision, shown in
    the legend and computed from the points given), and optionally as its
    **interpolated envelope** ``max{p(r') : r' >= r}`` (dashed; its area,
    also shown, is at least the AUPRC).

    Parameters
    ----------
    curves : mapping label -> (recall, precision)
        Operating points in rank order (recall non-decreasing), e.g. from
        ``pranker.pr_curve``; the first point is usually (0, 1).
    prevalence : float, optional
        P / N: the precision of a random ranking at every cut-off, drawn as
        the horizontal "random" line.
    null_curve : (recall, expected_precision), optional
        Expected precision of a random ranking at each recall level
        (``pranker.expected_null_pr_curve``); above P/N at low recall.
    raw, interpolated : bool
        Draw the step curve (the AUPRC) and/or the interpolated envelope.
    f_isolines : sequence of float
        F levels of the dotted contours (empty: none). ``f_beta`` weights them.
        Their labels go where they touch no curve.
    diagonal : bool
        Draw precision = recall.
    mark_best_f : bool
        Mark the operating point with the highest F_beta.
    show_auprc : bool
        Put the AUPRC (and the envelope's area) in the legend.
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
    path : str or path, optional
        Save the figure there (format from the extension: .png, .svg, .pdf).

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the axes (``fig.axes``); the step curves carry
        ``gid`` ``"pr-step"``, the envelopes ``"pr-envelope"``.
    """
    own_figure = ax is None
    fig, ax = _axes_or_new(ax, (5.6, 6.6))
    _square(ax, "recall", "precision")
    if diagonal:
        ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", zorder=1, label="precision = recall")
    iso = _f_isolines(ax, f_isolines, f_beta) if f_isolines else []
    colors = ["C0", "C3", "C2", "C1", "C4", "C5", "C6", "C7", "C8", "C9"]
    for k, (label, (recall, precision)) in enumerate(curves.items()):
        r, p = _as_curve(recall, precision)
        c = colors[k % len(colors)]
        pi = _interpolated(p)
        area, area_i = _step_area(r, p), _step_area(r, pi)
        if mark_best_f:
            i, fbest = _best_f(r, p, f_beta)
            best = (r[i], p[i], fbest)
        r, p, pi = _thin(r, p, pi)
        if raw:
            text = f"{label}: AUPRC = {area:.3f} (step curve)" if show_auprc else label
            (ln,) = ax.plot(*_step_xy(*_recall_steps(r, p)), lw=1.6, color=c, label=text, zorder=4)
            ln.set_gid("pr-step")
        if interpolated:
            text = (
                f"{label}: interpolated envelope (area {area_i:.3f})"
                if show_auprc
                else f"{label} (interpolated)"
            )
            (ln,) = ax.plot(
                *_step_xy(r, pi),
                lw=1.0,
                ls=(0, (4, 2)),
                color=c,
                alpha=0.8 if raw else 1.0,
                label=text,
                zorder=3,
            )
            ln.set_gid("pr-envelope")
        if mark_best_f:
            rb, pb, fbest = best
            if fbest > 0:
                name = "F" if f_beta == 1.0 else f"F{f_beta:g}"
                ax.plot(
                    rb,
                    pb,
                    "o",
                    ms=6,
                    mfc="none",
                    mec=c,
                    mew=1.5,
                    zorder=5,
                    label=f"best {name} = {fbest:.3f} (P={pb:.2f}, R={rb:.2f})",
                )
    if null_curve is not None:
        nr, npr = _as_curve(*null_curve)
        ax.plot(nr, npr, ls="--", lw=1.2, color="k", zorder=2, label="random: expected precision")
    if prevalence is not None:
        ax.axhline(
            prevalence,
            ls="-.",
            lw=1.0,
            color="0.3",
            zorder=2,
            label=f"random: P/N = {prevalence:.3g}",
        )
    if title:
        ax.set_title(title)
    _place_f_labels(ax, iso)
    ncols = 1 if len(curves) > 1 or interpolated else 2
    _legend_below(fig, ax, own_figure, ncols=ncols)
    if own_figure:  # room for the legend's rows and the title under constrained layout
        rows = -(-len(ax.get_legend_handles_labels()[1]) // ncols)
        fig.set_size_inches(5.6, 5.3 + 0.2 * rows + (0.3 if title else 0.0))
    return _maybe_save(fig, path, dpi)


def plot_pr(recall, precision, *, label: str = "ranking", **kwargs):
    """PR curve of one ranking; see :func:`plot_pr_curves` for the options.

    Examples
    --------
    >>> fig = plot_pr([0, 0.5, 0.5, 1.0], [1, 1, 0.5, 0.5], prevalence=0.5)
    >>> [a.get_xlabel() for a in fig.axes]
    ['recall']
    """
    return plot_pr_curves({label: (recall, precision)}, **kwargs)


def plot_roc_pr(
    fpr,
    tpr,
    recall,
    precision,
    *,
    label: str = "ranking",
    roc_auc: float | None = None,
    auprc: float | None = None,
    prevalence: float | None = None,
    null_curve: tuple | None = None,
    f_isolines: Sequence[float] = _F_LEVELS,
    f_beta: float = 1.0,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """ROC (left) and PR (right) side by side, sharing recall as the y axis.

    The layout of the LingPipe discussion: recall = true-positive rate on one y axis, the ROC
    panel with the false-positive rate (1 - specificity) on x, the PR panel
    with precision on x, so that at a given recall one reads the
    specificity, the precision and the F score at once. The PR panel draws
    the step curve (its area is the AUPRC) and the dashed interpolated
    envelope.

    Parameters
    ----------
    fpr, tpr : array_like
        ROC operating points.
    recall, precision : array_like
        PR operating points.
    roc_auc, auprc : float, optional
        Shown in the panel titles (``auprc`` defaults to the area under the
        step curve of the points given).
    prevalence, null_curve
        Random baselines for the PR panel, as in :func:`plot_pr_curves`.
    ax : (Axes, Axes), optional
        Draw into these two axes (ROC, PR) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_roc_pr([0, 0, 1], [0, 1, 1], [0, 1, 1], [1, 1, 0.5])
    >>> [a.get_xlabel() for a in fig.axes]
    ['false-positive rate (1 - specificity)', 'precision']
    """
    fx, ty = _as_curve(fpr, tpr)
    r, p = _as_curve(recall, precision)
    fig, (ax_roc, ax_pr), own = _axes_pair(ax, (10.0, 5.4), sharey=True)
    # ROC panel
    _square(ax_roc, "false-positive rate (1 - specificity)", "recall (true-positive rate)")
    ax_roc.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="random (AUC = 0.5)")
    fx, ty = _thin(fx, ty)
    ax_roc.plot(fx, ty, lw=1.6, color="C0", label=label)
    ax_roc.set_title("ROC" + (f"  (AUC = {roc_auc:.3f})" if roc_auc is not None else ""))
    _legend_under(ax_roc)
    # PR panel, axes swapped: precision on x, recall on y
    _square(ax_pr, "precision", "")
    ax_pr.tick_params(labelleft=True)
    ax_pr.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="precision = recall")
    iso = _f_isolines(ax_pr, f_isolines, f_beta, swap=True) if f_isolines else []
    pi = _interpolated(p)
    area, area_i = _step_area(r, p), _step_area(r, pi)
    if auprc is None:
        auprc = area
    r, p, pi = _thin(r, p, pi)
    rs, ps = _step_xy(*_recall_steps(r, p))
    (ln,) = ax_pr.plot(
        ps, rs, lw=1.6, color="C0", zorder=4, label=f"{label}: AUPRC = {area:.3f} (step curve)"
    )
    ln.set_gid("pr-step")
    rs, ps = _step_xy(r, pi)
    (ln,) = ax_pr.plot(
        ps,
        rs,
        lw=1.0,
        ls=(0, (4, 2)),
        color="C0",
        alpha=0.8,
        zorder=3,
        label=f"{label}: interpolated envelope (area {area_i:.3f})",
    )
    ln.set_gid("pr-envelope")
    if null_curve is not None:
        nr, npr = _as_curve(*null_curve)
        ax_pr.plot(npr, nr, ls="--", lw=1.2, color="k", label="random: expected precision")
    if prevalence is not None:
        ax_pr.axvline(
            prevalence, ls="-.", lw=1.0, color="0.3", label=f"random: P/N = {prevalence:.3g}"
        )
    ax_pr.set_title(f"PR  (AUPRC = {auprc:.3f})")
    _place_f_labels(ax_pr, iso)
    _legend_under(ax_pr, ncols=1)
    if title and own:
        fig.suptitle(title)
    return _maybe_save(fig, path, dpi)


# --- the null distribution and its tail --------------------------------------

# P (N - P + 1) up to which the saddlepoint curve is drawn point by point
# (a few ms a point at 1e5; seconds a point at 1e7)
_CURVE_CELLS = 1_000_000


def _cells(null) -> int:
    return int(null.P) * int(null.N - null.P + 1)


def _cheap_cdf(null) -> bool:
    """Whether ``null.cdf``/``null.ppf`` are vectorised and instant."""
    return null.method in ("beta", "skewbeta") or (
        null.method == "exact" and null.interval_method == "exact"
    )


def _pvalue_label(pv) -> str:
    """The p-value as the command line prints it, with the method that gave it."""
    from ._format import pvalue_text

    method = getattr(pv, "method", "") or ""
    text = pvalue_text(pv)
    return f"{text}, {method}" if method else text


def _log10_interval(pv):
    """(low, high) of the p-value's interval in log10, or None (no error bound)."""
    iv = getattr(pv, "log10_pvalue_interval", None)
    if iv is not None:
        return float(iv[0]), float(iv[1])
    iv = getattr(pv, "pvalue_interval", None)
    lg = getattr(pv, "log10_pvalue", None)
    rse = getattr(pv, "pvalue_rse", None)
    if iv is not None:
        lo, hi = float(iv[0]), float(iv[1])
        if lo > 0.0 and hi > 0.0:
            return math.log10(lo), math.log10(hi)
        if hi > 0.0 and lo == 0.0:
            return -math.inf, math.log10(hi)
    if lg is not None and rse is not None and math.isfinite(rse) and rse > 0:
        return lg + math.log10(max(1.0 - 1.96 * rse, 1e-3)), lg + math.log10(1.0 + 1.96 * rse)
    return None


class _Given:
    """A p-value given as a bare number (its method unknown)."""

    def __init__(self, p: float):
        self.pvalue = float(p)
        self.log10_pvalue = math.log10(p) if p > 0 else -math.inf
        self.pvalue_interval = None
        self.pvalue_rse = None
        self.method = ""


def _support(null, samples):
    """The null's bulk on the AUPRC axis: its 0.001 and 0.999 quantiles.

    From the null itself when that is instant (exact, beta, skew-beta, or a
    saddlepoint small enough), else from the Monte Carlo sample when given,
    else from the beta matched to the exact mean and variance (a display
    range only; no p-value is read from it).
    """
    q = [1e-3, 1.0 - 1e-3]
    if _cheap_cdf(null) or (
        null.method in ("tilt", "saddlepoint") and _cells(null) <= _CURVE_CELLS
    ):
        lo, hi = (float(v) for v in null.ppf(q))
    elif samples is not None and np.size(samples) > 100:
        lo, hi = (float(v) for v in np.quantile(samples, q))
    else:
        from pranker import beta_fit

        fit = beta_fit(null.mean, null.var, null.N, null.P)
        lo, hi = (float(v) for v in fit.ppf(q))
    return lo, hi


def _density(null, x):
    """(x, density, label) of the null on the grid ``x``, from the cheapest faithful source.

    For the exact null ``x`` holds bin edges (one more than the densities).
    """
    from pranker import beta_fit

    if _cheap_cdf(null):
        edges = np.linspace(x[0], x[-1], min(x.size, 81))
        prob = np.diff(np.asarray(null.cdf(edges), dtype=np.float64))
        dens = np.maximum(prob, 0.0) / np.diff(edges)
        if null.method == "exact":
            return edges, dens, "exact null (binned)"
        mid = 0.5 * (edges[1:] + edges[:-1])
        what = {
            "beta": "null: beta fit to the exact mean and variance",
            "skewbeta": "null: beta fit to the exact mean, variance and skewness",
        }
        return mid, dens, what[null.method]
    if null.method in ("tilt", "saddlepoint") and _cells(null) <= _CURVE_CELLS:
        from pranker import null_distribution

        sp = null_distribution(null.N, null.P, "saddlepoint")
        g = np.linspace(x[0], x[-1], 81)
        sf = np.exp(np.asarray(sp.logsf(g), dtype=np.float64))
        dens = np.maximum(-np.diff(sf), 0.0) / np.diff(g)
        return 0.5 * (g[1:] + g[:-1]), dens, "null density (saddlepoint)"
    fit = beta_fit(null.mean, null.var, null.N, null.P)
    d = np.asarray(fit.pdf(x), dtype=np.float64)
    return x, np.where(np.isfinite(d), d, np.nan), "null shape: beta on the exact mean and variance"


def _tail_curve(null, a, samples):
    """(a, log10 sf, label) of the null's survival function, or None where it would be slow."""
    if _cheap_cdf(null):
        if null.method == "exact":
            # P(AP >= a) = 1 - P(AP < a): the cdf just below a
            below = np.nextafter(a * (1.0 - 1e-9), -np.inf)
            sf = 1.0 - np.asarray(null.cdf(below), dtype=np.float64)
            lab = "exact survival function"
        else:
            sf = np.asarray(null.sf(a), dtype=np.float64)
            lab = f"{null.method} survival function"
        with np.errstate(divide="ignore"):
            return a, np.log10(np.clip(sf, 0.0, 1.0)), lab
    if null.method in ("tilt", "saddlepoint") and _cells(null) <= _CURVE_CELLS:
        from pranker import null_distribution

        sp = null_distribution(null.N, null.P, "saddlepoint")
        lab = (
            "saddlepoint approximation"
            if null.method == "tilt"
            else "saddlepoint survival function"
        )
        return a, np.asarray(sp.logsf(a), dtype=np.float64) / math.log(10.0), lab
    if samples is not None and np.size(samples) > 0:
        s = np.sort(np.asarray(samples, dtype=np.float64).ravel())
        sf = 1.0 - np.searchsorted(s, a, side="left") / s.size
        keep = sf > 0
        return a[keep], np.log10(sf[keep]), f"Monte Carlo ({s.size:,} random rankings)"
    return None


def plot_null_distribution(
    N: int,
    P: int,
    observed: float,
    *,
    null=None,
    method: str | None = None,
    params: tuple | None = None,
    samples=None,
    pvalue=None,
    tail: bool = True,
    tail_points: int = 5,
    bins: int = 60,
    zoom: bool = True,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """The null distribution of AUPRC, its upper tail, and where the observed value falls.

    Left panel: the null density on its support (the 0.001–0.999 quantiles
    with ``zoom=True``; [0, 1] otherwise), the tail ``AUPRC >= observed``
    shaded, an optional Monte Carlo histogram; an observed value off the
    scale is marked by an arrow at the edge. Right panel (``tail=True``):
    ``log10 P(AUPRC_null >= a)`` against ``a`` from the null's bulk to the
    observed value — the survival function the p-value is read from — with
    the observed point and its p-value marked, and its uncertainty as an
    error bar (the p-value's interval on the log10 scale). For the tilt
    estimator, a few tilted estimates with their intervals are drawn on the
    (faster, deterministic) saddlepoint curve. The legend states the p-value
    as it was computed (method and relative standard error).

    Parameters
    ----------
    N, P : int
        Number of instances and of positives.
    observed : float
        Observed AUPRC.
    null : NullDistribution, optional
        The null that gave the p-value (``result.null``); default
        ``pranker.null_distribution(N, P, method)``.
    method : str, optional
        Method of the default null (default: ``pranker.auto_method(N, P)``,
        or ``"beta"`` when ``params`` is given).
    params : (mean, var), optional
        Null moments for the beta null.
    samples : array_like, optional
        Monte Carlo null AUPRCs (e.g. ``null_ap_samples``), as a histogram.
    pvalue : float, PValue or PrankerResult, optional
        The p-value to mark; default ``null.pvalue(observed)``.
    tail : bool
        Draw the survival-function panel.
    tail_points : int
        Tilted estimates drawn on the tail panel (tilt nulls only; each
        takes 0.01–0.5 s).
    ax : Axes, or (Axes, Axes) with ``tail=True``, optional
        Draw into these axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_null_distribution(100, 10, 0.3)
    >>> [a.get_xlabel() for a in fig.axes]
    ['AUPRC', 'a (AUPRC)']
    """
    from matplotlib.lines import Line2D

    from pranker import auto_method, null_distribution

    if null is None:
        if method is None:
            method = "beta" if params is not None else auto_method(N, P)
        opts = {"params": params} if (method == "beta" and params is not None) else {}
        null = null_distribution(N, P, method, **opts)
    observed = float(observed)
    if pvalue is None:
        pv = null.pvalue(observed)
    elif isinstance(pvalue, (int, float, np.floating)):
        pv = _Given(float(pvalue))
    else:
        pv = pvalue
    plabel = _pvalue_label(pv)
    if tail:
        fig, (ax_d, ax_t), own = _axes_pair(ax, (11.0, 5.0))
    else:
        own = ax is None
        fig, ax_d = _axes_or_new(ax, (6.4, 5.0))
        ax_t = None
    samples = None if samples is None else np.asarray(samples, dtype=np.float64).ravel()
    degenerate = null.var <= 0.0
    # --- density panel
    if degenerate:
        xlo, xhi = max(0.0, null.mean - 0.1), min(1.0, null.mean + 0.1)
    elif zoom:
        lo, hi = _support(null, samples)
        pad = 0.04 * (hi - lo)
        xlo, xhi = max(0.0, lo - pad), min(1.0, hi + pad)
    else:
        xlo, xhi = 0.0, 1.0
    ymax = 0.0
    if samples is not None:
        inside = samples[(samples >= xlo) & (samples <= xhi)]
        h, _, _ = ax_d.hist(
            samples,
            bins=bins,
            range=(xlo, xhi),
            density=True,
            weights=None,
            color="0.82",
            edgecolor="0.6",
            lw=0.4,
            label=f"Monte Carlo null ({samples.size:,} random rankings)",
        )
        if inside.size:
            ymax = max(ymax, float(np.max(h)))
    if degenerate:
        ax_d.axvline(null.mean, color="C0", lw=2, label=f"null: point mass at {null.mean:.4g}")
    else:
        x = np.linspace(max(xlo, null.min_auprc), xhi, 400)
        xd, d, what = _density(null, x)
        what = f"{what}; mean {null.mean:.3g}, sd {math.sqrt(null.var):.3g}"
        if xd.size == d.size + 1:  # bin edges: a histogram of the exact probabilities
            ax_d.stairs(d, xd, color="C0", lw=1.4, label=what)
            mask = xd[:-1] >= observed
            if mask.any():
                first = int(np.argmax(mask))
                ax_d.stairs(
                    d[first:],
                    xd[first:],
                    fill=True,
                    color="C3",
                    alpha=0.35,
                    label="tail AUPRC ≥ observed",
                )
        else:
            ax_d.plot(xd, d, color="C0", lw=1.6, label=what)
            tail_mask = xd >= observed
            if tail_mask.any():
                ax_d.fill_between(
                    xd[tail_mask],
                    0,
                    d[tail_mask],
                    color="C3",
                    alpha=0.35,
                    label="tail AUPRC ≥ observed",
                )
        finite = d[np.isfinite(d)]
        if finite.size:
            ymax = max(ymax, float(np.max(finite)))
    ax_d.set_xlim(xlo, xhi)
    ax_d.set_ylim(0.0, 1.15 * ymax if ymax > 0 else 1.0)
    obs_text = f"observed AUPRC = {observed:.4g}"
    if xlo <= observed <= xhi:
        ax_d.axvline(observed, color="C3", lw=1.8, gid="observed")
    else:
        right = observed > xhi
        ax_d.annotate(
            f"observed {observed:.3g}\n(off scale)",
            xy=(0.995 if right else 0.005, 0.55),
            xycoords="axes fraction",
            xytext=(0.80 if right else 0.20, 0.55),
            textcoords="axes fraction",
            ha="center",
            va="center",
            fontsize=8,
            color="C3",
            arrowprops={"arrowstyle": "-|>", "color": "C3", "lw": 1.5},
            gid="observed-arrow",
        )
    handles, labels = ax_d.get_legend_handles_labels()
    handles.append(Line2D([], [], color="C3", lw=1.8))
    labels.append(obs_text)
    handles.append(Line2D([], [], ls="none"))
    labels.append(f"p = P(AUPRC_null ≥ observed) = {plabel}")
    ax_d.set_xlabel("AUPRC")
    ax_d.set_ylabel("density under random ranking")
    ax_d.set_title("null distribution" + (" (zoomed on its bulk)" if zoom else ""))
    if own:
        ax_d.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.13),
            ncols=1,
            fontsize=7.5,
            frameon=False,
        )
    else:
        ax_d.legend(handles, labels, fontsize=7, framealpha=0.85)
    # --- tail panel
    if ax_t is not None:
        _tail_panel(ax_t, null, observed, pv, plabel, samples, tail_points, own, degenerate)
    if own:
        fig.suptitle(
            title or f"Null distribution of AUPRC under random ranking (N = {N:,}, P = {P:,})"
        )
    elif title:
        ax_d.set_title(title)
    return _maybe_save(fig, path, dpi)


def _tail_panel(ax, null, observed, pv, plabel, samples, tail_points, own, degenerate):
    lg_obs = float(getattr(pv, "log10_pvalue", math.nan))
    if not math.isfinite(lg_obs):
        p = float(getattr(pv, "pvalue", 0.0))
        lg_obs = math.log10(p) if p > 0 else math.nan
    if degenerate:
        lo, hi = null.mean - 0.05, null.mean + 0.05
    else:
        lo, hi = _support(null, samples)
        lo = max(lo, null.min_auprc)
    right = max(hi, observed)
    x_lo = lo
    x_hi = min(1.0, right + 0.03 * (right - lo))
    ymin = 0.0
    # the survival function
    if not degenerate:
        a = np.linspace(x_lo, x_hi, 60)
        curve = _tail_curve(null, a, samples)
        if curve is not None:
            ca, clg, clab = curve
            ok = np.isfinite(clg)
            ax.plot(ca[ok], clg[ok], color="C0", lw=1.5, label=clab, zorder=2)
            if ok.any():
                ymin = min(ymin, float(np.min(clg[ok])))
        # tilted estimates along the way
        if null.method == "tilt" and tail_points > 0:
            start = null.mean + math.sqrt(null.var)
            pts = (
                [
                    t
                    for t in np.linspace(start, observed, tail_points + 1)[:-1]
                    if x_lo < t < observed
                ]
                if observed > start
                else []
            )
            xs, ys, lows, highs = [], [], [], []
            for t in pts:
                e = null.pvalue(float(t))
                iv = _log10_interval(e)
                if not math.isfinite(e.log10_pvalue):
                    continue
                xs.append(t)
                ys.append(e.log10_pvalue)
                lows.append(
                    e.log10_pvalue - (iv[0] if iv and math.isfinite(iv[0]) else e.log10_pvalue)
                )
                highs.append((iv[1] if iv else e.log10_pvalue) - e.log10_pvalue)
            if xs:
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lows, highs],
                    fmt="s",
                    ms=4,
                    color="C2",
                    capsize=3,
                    lw=1.0,
                    zorder=3,
                    label="tilt estimates (95% interval)",
                )
                if curve is None:
                    ax.plot(xs + [observed], ys + [lg_obs], color="C2", lw=0.8, zorder=2)
                ymin = min(ymin, min(ys))
    # the observed point and its uncertainty
    if math.isfinite(lg_obs):
        iv = _log10_interval(pv)
        bottom = None
        if iv is not None:
            lo_iv, hi_iv = iv
            ylo_plot = ymin if not math.isfinite(lo_iv) else lo_iv
            yerr = [[lg_obs - min(ylo_plot, lg_obs)], [max(hi_iv - lg_obs, 0.0)]]
            if not math.isfinite(lo_iv):
                bottom = True
        else:
            yerr = None
        exact = getattr(pv, "method", "") == "exact"
        note = ""
        if yerr is not None and not exact:
            lvl = getattr(pv, "conf_level", 0.95)
            note = f"; bar: {100 * lvl:g}% interval"
            if yerr[0][0] + yerr[1][0] < 0.01 * max(-ymin, 1.0):
                note += " (narrower than the marker)"
        ax.errorbar(
            [observed],
            [lg_obs],
            yerr=None if exact else yerr,
            fmt="o",
            ms=7,
            color="C3",
            mfc="C3",
            mec="white",
            capsize=5,
            lw=1.6,
            zorder=5,
            label=f"observed AUPRC {observed:.4g}: p = {plabel}{note}",
            gid="observed",
        )
        ymin = min(ymin, lg_obs if iv is None or not math.isfinite(iv[0]) else iv[0])
        if bottom:
            ymin -= 1.0
        ax.annotate(
            f"AUPRC {observed:.4g}\np = {plabel}",
            (observed, lg_obs),
            xytext=(-10, -4),
            textcoords="offset points",
            ha="right",
            va="top",
            fontsize=8,
            color="C3",
            gid="observed-label",
        )
    ax.axhline(math.log10(0.05), color="0.5", lw=0.8, ls=":", zorder=1)
    ax.text(x_lo, math.log10(0.05), " p = 0.05", fontsize=7, color="0.4", va="bottom", ha="left")
    span = max(-ymin, 1.0)
    ax.set_ylim(ymin - 0.12 * span, 0.06 * span)
    ax.set_xlim(x_lo, x_hi)
    ax.set_xlabel("a (AUPRC)")
    ax.set_ylabel("log10 P(AUPRC_null ≥ a)")
    ax.set_title("upper tail: the p-value at a")
    ax.grid(True, lw=0.3, alpha=0.5)
    if own:
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=1, fontsize=7.5, frameon=False
        )
    else:
        ax.legend(fontsize=7, framealpha=0.85)


def plot_hamming_pr(
    radius,
    precision,
    recall,
    *,
    label: str = "hash codes",
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """Precision and recall of retrieval within Hamming radius r (the MATLAB ``recall_precision`` of hashing evaluations).

    Left: the PR curve traced by the radius (points labelled with r;
    undefined precision, NaN, is skipped). Right: precision and recall
    against the radius. For several code sets see
    :func:`plot_hamming_pr_curves`.

    Parameters
    ----------
    radius : array_like of int
        Hamming radii, increasing.
    precision, recall : array_like
        Precision and recall of "retrieve everything within radius r"
        (e.g. ``RadiusCurves.mean_precision`` / ``mean_recall`` from
        :func:`pranker.hamming_radius_curves`).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_hamming_pr([0, 1, 2], [0.9, 0.7, 0.4], [0.1, 0.5, 1.0])
    >>> [a.get_xlabel() for a in fig.axes]
    ['recall', 'Hamming radius r']
    """
    return plot_hamming_pr_curves(
        {label: (radius, precision, recall)}, title=title, ax=ax, path=path, dpi=dpi
    )


def plot_hamming_pr_curves(
    curves: Mapping[str, tuple],
    *,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """Hamming-radius PR curves of several code sets (e.g. 16, 32, 64 bits).

    Parameters
    ----------
    curves : mapping label -> (radius, precision, recall)
    ax : (Axes, Axes), optional
        Draw into these two axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_pr, ax_r), own = _axes_pair(ax, (10.0, 4.8))
    _square(ax_pr, "recall", "precision")
    ax_pr.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="precision = recall")
    iso = _f_isolines(ax_pr, _F_LEVELS, 1.0)
    single = len(curves) == 1
    rmax = 0.0
    for k, (label, (radius, precision, recall)) in enumerate(curves.items()):
        rad = np.asarray(radius, dtype=np.float64).ravel()
        r, p = _as_curve(recall, precision)
        if rad.shape != r.shape:
            raise ValueError(f"radius has {rad.size} values but the curve has {r.size} points.")
        c = f"C{k % 10}"
        ok = np.isfinite(p) & np.isfinite(r)
        ax_pr.plot(r[ok], p[ok], "-o", ms=3.5, lw=1.4, color=c, label=label)
        # label radii along the curve, skipping points crowded onto the previous label
        last = (np.inf, np.inf)
        for i in np.flatnonzero(ok):
            if np.hypot(r[i] - last[0], p[i] - last[1]) < 0.06:
                continue
            last = (r[i], p[i])
            ax_pr.annotate(
                f"r={rad[i]:g}",
                (r[i], p[i]),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=7,
                color=c,
            )
        fp_ = np.isfinite(p)
        ax_r.plot(
            rad[fp_],
            p[fp_],
            "-o",
            ms=3,
            color=c,
            label="precision" if single else f"{label}: precision",
        )
        ax_r.plot(
            rad,
            r,
            "--s",
            ms=3,
            color=c if not single else "C1",
            label="recall" if single else f"{label}: recall",
        )
        if rad.size:
            rmax = max(rmax, float(rad.max()))
    ax_pr.set_title("PR by Hamming radius")
    _place_f_labels(ax_pr, iso)
    _legend_under(ax_pr)
    ax_r.set_xlabel("Hamming radius r")
    ax_r.set_ylabel("precision / recall")
    ax_r.set_ylim(0.0, 1.02)
    ax_r.set_xlim(-0.5, rmax + 0.5)
    ax_r.grid(True, lw=0.3, alpha=0.5)
    _legend_under(ax_r)
    ax_r.set_title("retrieval within radius r")
    if title and own:
        fig.suptitle(title)
    return _maybe_save(fig, path, dpi)


# --- thin wrappers taking pranker objects ---------------------------------


def plot_pr_from_curve(curve, *, label: str = "ranking", null_curve=None, **kwargs):
    """:func:`plot_pr` from a curve object with ``recall``, ``precision`` (and ``tp``/``fp``).

    The random baseline P/N is taken from the curve's last point when it has
    ``tp`` and ``fp`` counts (all instances retrieved).
    """
    prevalence = kwargs.pop("prevalence", None)
    if prevalence is None and hasattr(curve, "tp") and hasattr(curve, "fp"):
        tp, fp = np.asarray(curve.tp), np.asarray(curve.fp)
        if tp.size and tp[-1] + fp[-1] > 0:
            prevalence = float(tp[-1] / (tp[-1] + fp[-1]))
    return plot_pr(
        curve.recall,
        curve.precision,
        label=label,
        prevalence=prevalence,
        null_curve=null_curve,
        **kwargs,
    )


def plot_roc_pr_from_curves(roc, pr, **kwargs):
    """:func:`plot_roc_pr` from an ROC curve (``fpr``, ``tpr``, ``auc``) and a PR curve."""
    kwargs.setdefault("roc_auc", getattr(roc, "auc", None))
    return plot_roc_pr(roc.fpr, roc.tpr, pr.recall, pr.precision, **kwargs)


def plot_null_from_result(result, *, samples=None, **kwargs):
    """:func:`plot_null_distribution` from a :class:`pranker.PrankerResult`.

    The null that produced the p-value (``result.null``) is drawn, and the
    p-value is marked as the result states it (its method, relative standard
    error and interval).
    """
    null = getattr(result, "null", None)
    if null is None:
        from pranker import null_distribution

        opts = {"params": (result.null_mean, result.null_var)} if result.method == "beta" else {}
        null = null_distribution(result.n, result.n_pos, result.method, **opts)
    return plot_null_distribution(
        result.n,
        result.n_pos,
        result.auprc,
        null=null,
        samples=samples,
        pvalue=result,
        **kwargs,
    )


def plot_hamming_from_curves(curves, *, pooled: bool = False, **kwargs):
    """:func:`plot_hamming_pr_curves` from :class:`pranker.RadiusCurves`.

    ``curves`` is one ``RadiusCurves`` or a mapping label -> ``RadiusCurves``.
    ``pooled=False`` plots the mean over queries (``mean_precision``,
    ``mean_recall``); ``pooled=True`` the pair-level curves of the hashing
    MATLAB ``recall_precision`` (``pooled_precision``, ``pooled_recall``).
    """
    if not isinstance(curves, Mapping):
        curves = {kwargs.pop("label", "hash codes"): curves}
    arrays = {}
    for label, rc in curves.items():
        if pooled:
            arrays[label] = (rc.radii, rc.pooled_precision, rc.pooled_recall)
        else:
            arrays[label] = (rc.radii, rc.mean_precision, rc.mean_recall)
    return plot_hamming_pr_curves(arrays, **kwargs)
