"""Figures for precision-recall analysis (needs the optional extra ``pranker[plot]``).

Every function takes plain arrays (recall, precision, ...) so it works with
curves from any source, returns a :class:`matplotlib.figure.Figure`, and
saves it when ``path`` is given. Thin wrappers (``*_from_*``) take pranker
objects. Figures are built with the object-oriented API
(``matplotlib.figure.Figure``), never ``pyplot``: no global state, no
display needed (the Agg canvas renders files), safe in scripts, servers and
threads. In a notebook the returned Figure displays itself; to draw into
your own axes pass ``ax=``.

Conventions (see Carpenter's discussion of PR/ROC curves on the LingPipe blog):

- PR plots: recall on x, precision on y, both on [0, 1]; dotted F-score
  isolines ``F_beta = (1 + b^2) P R / (b^2 P + R)`` and the dotted
  precision = recall diagonal (where it meets the curve is the break-even
  point; the best-F operating point is marked).
- The interpolated curve is ``p_interp(r) = max{p(r') : r' >= r}``, drawn as a
  step function. The average precision is the area under the *uninterpolated*
  step curve (precision at each recall level); the area under the interpolated
  one is at least as large (notebook 02 measures the difference).
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

import os
import tempfile
from collections.abc import Mapping, Sequence

import numpy as np

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
]

_F_LEVELS = (0.2, 0.4, 0.6, 0.8)


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


def save_figure(fig, path, *, dpi: int = 100, overwrite: bool = True) -> None:
    """Save ``fig`` to ``path`` atomically (temporary file in the same folder, then rename).

    The format follows the extension (``.png``, ``.pdf``, ``.svg``, ...). With
    ``overwrite=False`` an existing file raises :class:`FileExistsError` and is
    left untouched. A failure never leaves a partial file behind.
    """
    path = os.fspath(path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists; refusing to overwrite it.")
    folder = os.path.dirname(os.path.abspath(path))
    ext = os.path.splitext(path)[1] or ".png"
    fd, tmp = tempfile.mkstemp(prefix=".pranker-", suffix=ext, dir=folder)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=dpi, format=ext.lstrip(".").lower() or "png")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
    """Vertices of the interpolated step curve: ``p_interp[i]`` on ``(r[i-1], r[i]]``.

    Returned explicitly (rather than via ``drawstyle``) so the same step can be
    drawn with the axes swapped.
    """
    rr = np.empty(2 * r.size - 1)
    pp = np.empty_like(rr)
    rr[0], pp[0] = r[0], p_interp[0]
    rr[1::2], rr[2::2] = r[:-1], r[1:]
    pp[1::2], pp[2::2] = p_interp[1:], p_interp[1:]
    return rr, pp


_MAX_POINTS = 20_000


def _thin(*arrays, max_points: int = _MAX_POINTS):
    """At most ``max_points`` evenly spaced points (ends kept): a 1e7-point curve
    draws as fast as a small one and looks the same at figure resolution."""
    n = arrays[0].size
    if n <= max_points:
        return arrays
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
    return tuple(a[idx] for a in arrays)


def _interpolated(precision: np.ndarray) -> np.ndarray:
    """``max(precision[j] for j >= i)``: reversed running maximum (NaN-safe)."""
    p = np.where(np.isnan(precision), -np.inf, precision)
    return np.maximum.accumulate(p[::-1])[::-1]


def _f_isolines(ax, levels, beta: float, *, swap: bool = False) -> None:
    """Dotted F_beta contours on a recall/precision square.

    From ``F = (1 + b^2) P R / (b^2 P + R)``: ``P = F R / ((1 + b^2) R - F b^2)``,
    defined for ``R > F b^2 / (1 + b^2)``; points with P outside [0, 1] are
    dropped. ``swap=True`` draws precision on x (the ROC | PR layout).
    """
    b2 = beta * beta
    for f in levels:
        r = np.linspace(f * b2 / (1.0 + b2) + 1e-9, 1.0, 400)
        p = f * r / ((1.0 + b2) * r - f * b2)
        keep = (p >= 0.0) & (p <= 1.0)
        r, p = r[keep], p[keep]
        if r.size < 2:
            continue
        x, y = (p, r) if swap else (r, p)
        ax.plot(x, y, ls=":", lw=0.8, color="0.55", zorder=1)
        name = "F" if beta == 1.0 else f"F{beta:g}"
        # label at the far end (recall = 1), inside the square
        ax.annotate(
            f"{name}={f:g}",
            (x[-1], y[-1]),
            xytext=(-2, 2) if not swap else (2, -2),
            textcoords="offset points",
            fontsize=7,
            color="0.45",
            ha="right" if not swap else "left",
            va="bottom" if not swap else "top",
        )


def _legend_below(fig, ax, own_figure: bool, ncols: int = 2) -> None:
    """Legend outside the data area (below the axes) on our own figures."""
    if own_figure:
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=7.5,
                   frameon=False)
    else:
        ax.legend(loc="lower left", fontsize=7, framealpha=0.85)


def _legend_under(ax, ncols: int = 2) -> None:
    """Legend under one axes (outside the data; constrained layout makes room)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=ncols, fontsize=7.5,
              frameon=False)


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
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = 100,
):
    """PR curves of several rankings on one square, with F isolines and baselines.

    Parameters
    ----------
    curves : mapping label -> (recall, precision)
        Operating points in rank order (recall non-decreasing), e.g. from
        ``pranker.measures.curves.pr_curve``; the first point is usually (0, 1).
    prevalence : float, optional
        P / N: the precision of a random ranking at every cut-off, drawn as
        the horizontal "random" line.
    null_curve : (recall, expected_precision), optional
        Expected precision of a random ranking at each recall level
        (``pranker.null.curve.expected_null_pr_curve``); above P/N at low recall.
    interpolated, raw : bool
        Draw the interpolated step curve and/or the raw (saw-tooth) curve.
    f_isolines : sequence of float
        F levels of the dotted contours (empty: none). ``f_beta`` weights them.
    diagonal : bool
        Draw precision = recall.
    mark_best_f : bool
        Mark the operating point with the highest F_beta.
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
    path : str or path, optional
        Save the figure there (format from the extension).

    Returns
    -------
    matplotlib.figure.Figure
    """
    own_figure = ax is None
    fig, ax = _axes_or_new(ax, (5.6, 6.4))
    _square(ax, "recall", "precision")
    if diagonal:
        ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", zorder=1, label="precision = recall")
    if f_isolines:
        _f_isolines(ax, f_isolines, f_beta)
    colors = ["C0", "C3", "C2", "C1", "C4", "C5", "C6", "C7", "C8", "C9"]
    for k, (label, (recall, precision)) in enumerate(curves.items()):
        r, p = _as_curve(recall, precision)
        c = colors[k % len(colors)]
        pi = _interpolated(p)
        if mark_best_f:
            i, fbest = _best_f(r, p, f_beta)
            best = (r[i], p[i], fbest)
        r, p, pi = _thin(r, p, pi)
        if raw:
            ax.plot(r, p, lw=0.9, color=c, alpha=0.45 if interpolated else 1.0,
                    label=f"{label} (raw)" if interpolated else label, zorder=3)
        if interpolated:
            ax.plot(*_step_xy(r, pi), lw=1.6, color=c,
                    label=f"{label} (interpolated)" if raw else label, zorder=4)
        if mark_best_f:
            rb, pb, fbest = best
            if fbest > 0:
                name = "F" if f_beta == 1.0 else f"F{f_beta:g}"
                ax.plot(rb, pb, "o", ms=6, mfc="none", mec=c, mew=1.5, zorder=5,
                        label=f"best {name} = {fbest:.3f} (P={pb:.2f}, R={rb:.2f})")
    if null_curve is not None:
        nr, npr = _as_curve(*null_curve)
        ax.plot(nr, npr, ls="--", lw=1.2, color="k", zorder=2, label="random: expected precision")
    if prevalence is not None:
        ax.axhline(prevalence, ls="-.", lw=1.0, color="0.3", zorder=2,
                   label=f"random: P/N = {prevalence:.3g}")
    if title:
        ax.set_title(title)
    _legend_below(fig, ax, own_figure)
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
    path=None,
    dpi: int = 100,
):
    """ROC (left) and PR (right) side by side, sharing recall as the y axis.

    The layout of the LingPipe discussion: recall = true-positive rate on one y axis, the ROC
    panel with the false-positive rate (1 - specificity) on x, the PR panel
    with precision on x, so that at a given recall one reads the
    specificity, the precision and the F score at once.

    Parameters
    ----------
    fpr, tpr : array_like
        ROC operating points.
    recall, precision : array_like
        PR operating points.
    roc_auc, auprc : float, optional
        Shown in the panel titles.
    prevalence, null_curve
        Random baselines for the PR panel, as in :func:`plot_pr_curves`.

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
    fig, (ax_roc, ax_pr) = _figure((10.0, 5.0), ncols=2, sharey=True)
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
    if f_isolines:
        _f_isolines(ax_pr, f_isolines, f_beta, swap=True)
    pi = _interpolated(p)
    r, p, pi = _thin(r, p, pi)
    ax_pr.plot(p, r, lw=0.9, color="C0", alpha=0.45, label=f"{label} (raw)")
    rs, ps = _step_xy(r, pi)
    ax_pr.plot(ps, rs, lw=1.6, color="C0",
               label=f"{label} (interpolated)")
    if null_curve is not None:
        nr, npr = _as_curve(*null_curve)
        ax_pr.plot(npr, nr, ls="--", lw=1.2, color="k", label="random: expected precision")
    if prevalence is not None:
        ax_pr.axvline(prevalence, ls="-.", lw=1.0, color="0.3",
                      label=f"random: P/N = {prevalence:.3g}")
    ax_pr.set_title("PR" + (f"  (AUPRC = {auprc:.3f})" if auprc is not None else ""))
    _legend_under(ax_pr)
    if title:
        fig.suptitle(title)
    return _maybe_save(fig, path, dpi)


def plot_null_distribution(
    N: int,
    P: int,
    observed: float,
    *,
    params: tuple | None = None,
    samples=None,
    pvalue: float | None = None,
    bins: int = 60,
    zoom: bool = False,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = 100,
):
    """Null distribution of AUPRC (fitted beta density) with the observed value marked.

    The beta on ``[min_auprc(N, P), 1]`` matched to the exact null mean and
    variance (Lopes & Bontempi 2014) is drawn as a density; the p-value tail
    ``AUPRC >= observed`` is shaded; an optional Monte Carlo sample of null
    AUPRCs is overlaid as a histogram (density scale) so the fit can be judged.

    Parameters
    ----------
    N, P : int
        Number of instances and of positives.
    observed : float
        Observed AUPRC.
    params : (mean, var), optional
        Null moments; default ``null_params(N, P)`` (exact).
    samples : array_like, optional
        Monte Carlo null AUPRCs (e.g. ``null_ap_samples``).
    pvalue : float, optional
        Shown in the legend; default the beta upper tail at ``observed``.
    zoom : bool
        x range around the null mass and the observed value instead of [0, 1].

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_null_distribution(100, 10, 0.3)
    >>> fig.axes[0].get_xlabel()
    'AUPRC'
    """
    from .null import null_params
    from .significance.single import beta_fit

    if params is None:
        params = null_params(N, P)
    mean, var = params
    fit = beta_fit(mean, var, N, P)
    if pvalue is None:
        pvalue = float(fit.sf(observed))
    own_figure = ax is None
    fig, ax = _axes_or_new(ax, (6.4, 5.0))
    if zoom and not fit.degenerate:
        lo, hi = fit.ppf([1e-4, 1 - 1e-4])
        span = max(hi, observed) - min(lo, observed)
        xlo = max(0.0, min(lo, observed) - 0.08 * span)
        xhi = min(1.0, max(hi, observed) + 0.08 * span)
    else:
        xlo, xhi = 0.0, 1.0
    x = np.linspace(max(xlo, fit.lower), xhi, 2000)
    ymax = 0.0
    if samples is not None:
        s = np.asarray(samples, dtype=np.float64).ravel()
        h, _, _ = ax.hist(s, bins=bins, range=(xlo, xhi) if zoom else None, density=True,
                          color="0.8", edgecolor="0.6", lw=0.4,
                          label=f"Monte Carlo null ({s.size:,} random rankings)")
        ymax = max(ymax, float(np.max(h)))
    if fit.degenerate:
        ax.axvline(fit.mean, color="C0", lw=2, label=f"null: point mass at {fit.mean:.4g}")
    else:
        d = fit.pdf(x)
        d = np.where(np.isfinite(d), d, np.nan)
        ax.plot(x, d, color="C0", lw=1.6,
                label=f"null: beta fit (mean {mean:.3g}, sd {np.sqrt(var):.3g})")
        tail = x >= observed
        if tail.any():
            ax.fill_between(x[tail], 0, d[tail], color="C3", alpha=0.35,
                            label=f"P(AUPRC >= observed) = {pvalue:.3g}")
        finite = d[np.isfinite(d)]
        if finite.size:
            ymax = max(ymax, float(np.max(finite)))
    ax.axvline(observed, color="C3", lw=1.8, label=f"observed AUPRC = {observed:.3f}")
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(0.0, 1.12 * ymax if ymax > 0 else 1.0)
    ax.set_xlabel("AUPRC")
    ax.set_ylabel("density under random ranking")
    ax.set_title(title or f"Null distribution of AUPRC (N = {N:,}, P = {P:,})")
    if own_figure:
        _legend_under(ax)
    else:
        ax.legend(fontsize=7, framealpha=0.85)
    return _maybe_save(fig, path, dpi)


def plot_hamming_pr(
    radius,
    precision,
    recall,
    *,
    label: str = "hash codes",
    title: str | None = None,
    path=None,
    dpi: int = 100,
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
    return plot_hamming_pr_curves({label: (radius, precision, recall)}, title=title, path=path,
                                  dpi=dpi)


def plot_hamming_pr_curves(
    curves: Mapping[str, tuple],
    *,
    title: str | None = None,
    path=None,
    dpi: int = 100,
):
    """Hamming-radius PR curves of several code sets (e.g. 16, 32, 64 bits).

    Parameters
    ----------
    curves : mapping label -> (radius, precision, recall)

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_pr, ax_r) = _figure((10.0, 4.6), ncols=2)
    _square(ax_pr, "recall", "precision")
    ax_pr.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="precision = recall")
    _f_isolines(ax_pr, _F_LEVELS, 1.0)
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
            ax_pr.annotate(f"r={rad[i]:g}", (r[i], p[i]), xytext=(4, 3),
                           textcoords="offset points", fontsize=7, color=c)
        fp_ = np.isfinite(p)
        ax_r.plot(rad[fp_], p[fp_], "-o", ms=3, color=c,
                  label="precision" if single else f"{label}: precision")
        ax_r.plot(rad, r, "--s", ms=3, color=c if not single else "C1",
                  label="recall" if single else f"{label}: recall")
        if rad.size:
            rmax = max(rmax, float(rad.max()))
    ax_pr.set_title("PR by Hamming radius")
    _legend_under(ax_pr)
    ax_r.set_xlabel("Hamming radius r")
    ax_r.set_ylabel("precision / recall")
    ax_r.set_ylim(0.0, 1.02)
    ax_r.set_xlim(-0.5, rmax + 0.5)
    ax_r.grid(True, lw=0.3, alpha=0.5)
    _legend_under(ax_r)
    ax_r.set_title("retrieval within radius r")
    if title:
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
    return plot_pr(curve.recall, curve.precision, label=label, prevalence=prevalence,
                   null_curve=null_curve, **kwargs)


def plot_roc_pr_from_curves(roc, pr, **kwargs):
    """:func:`plot_roc_pr` from an ROC curve (``fpr``, ``tpr``, ``auc``) and a PR curve."""
    kwargs.setdefault("roc_auc", getattr(roc, "auc", None))
    return plot_roc_pr(roc.fpr, roc.tpr, pr.recall, pr.precision, **kwargs)


def plot_null_from_result(result, *, samples=None, **kwargs):
    """:func:`plot_null_distribution` from a :class:`pranker.PrankerResult`."""
    return plot_null_distribution(
        result.n, result.n_pos, result.auprc,
        params=(result.null_mean, result.null_var),
        samples=samples, pvalue=result.pvalue, **kwargs,
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
