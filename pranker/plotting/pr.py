"""PR curves (step curve, interpolated envelope, F isolines, random baselines) and ROC | PR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ._figure import (
    DPI,
    as_curve,
    axes_or_new,
    axes_pair,
    legend_below,
    legend_under,
    maybe_save,
    thin,
    unit_square,
)
from ._layout import place_f_labels

F_LEVELS = (0.2, 0.4, 0.6, 0.8)
_COLORS = ("C0", "C3", "C2", "C1", "C4", "C5", "C6", "C7", "C8", "C9")


# --- the geometry of a PR curve ----------------------------------------------------


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


def _best_f(r, p, beta):
    """Index and value of the highest F_beta among the operating points."""
    b2 = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (1.0 + b2) * p * r / (b2 * p + r)
    f = np.where(np.isfinite(f), f, -1.0)
    i = int(np.argmax(f))
    return i, float(f[i])


def _f_name(beta: float) -> str:
    return "F" if beta == 1.0 else f"F{beta:g}"


# --- drawing -----------------------------------------------------------------------


def draw_f_isolines(ax, levels, beta: float, *, swap: bool = False) -> list:
    """Dotted F_beta contours on a recall/precision square; returns their labels to place.

    From ``F = (1 + b^2) P R / (b^2 P + R)``: ``P = F R / ((1 + b^2) R - F b^2)``,
    defined for ``R > F b^2 / (1 + b^2)``; points with P outside [0, 1] are
    dropped. ``swap=True`` draws precision on x (the ROC | PR layout). The
    labels are placed by :func:`pranker.plotting._layout.place_f_labels`
    once every curve is drawn.
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
        out.append((f"{_f_name(beta)}={f:g}", line))
    return out


def _draw_step_and_envelope(ax, r, p, pi, color, step_label, envelope_label, *, swap=False):
    """The step curve (``step_label``; None: not drawn) and the dashed interpolated
    envelope (``envelope_label``; None: not drawn) of thinned points."""
    if step_label is not None:
        x, y = _step_xy(*_recall_steps(r, p))
        (ln,) = ax.plot(*((y, x) if swap else (x, y)), lw=1.6, color=color, label=step_label)
        ln.set(zorder=4, gid="pr-step")
    if envelope_label is not None:
        x, y = _step_xy(r, pi)
        (ln,) = ax.plot(
            *((y, x) if swap else (x, y)),
            lw=1.0,
            ls=(0, (4, 2)),
            color=color,
            alpha=0.8 if step_label is not None else 1.0,
            label=envelope_label,
        )
        ln.set(zorder=3, gid="pr-envelope")


def _draw_ranking(ax, label, recall, precision, color, *, raw, interpolated, best, show_auprc):
    """One ranking on a PR square: step curve, envelope, best-F marker (``best``: its
    beta, or None)."""
    r, p = as_curve(recall, precision)
    pi = _interpolated(p)
    area, area_i = _step_area(r, p), _step_area(r, pi)
    best_point = None
    if best is not None:
        i, fbest = _best_f(r, p, best)
        best_point = (r[i], p[i], fbest)
    r, p, pi = thin(r, p, pi)
    step = (f"{label}: AUPRC = {area:.3f} (step curve)" if show_auprc else label) if raw else None
    envelope = None
    if interpolated:
        envelope = (
            f"{label}: interpolated envelope (area {area_i:.3f})"
            if show_auprc
            else f"{label} (interpolated)"
        )
    _draw_step_and_envelope(ax, r, p, pi, color, step, envelope)
    if best_point is not None and best_point[2] > 0:
        rb, pb, fbest = best_point
        ax.plot(
            rb,
            pb,
            "o",
            ms=6,
            mfc="none",
            mec=color,
            mew=1.5,
            zorder=5,
            label=f"best {_f_name(best)} = {fbest:.3f} (P={pb:.2f}, R={rb:.2f})",
        )


def _draw_baselines(ax, prevalence, null_curve, *, swap: bool = False) -> None:
    """Random rankings: the expected PR curve and the precision P/N."""
    if null_curve is not None:
        nr, npr = as_curve(*null_curve)
        xy = (npr, nr) if swap else (nr, npr)
        ax.plot(*xy, ls="--", lw=1.2, color="k", zorder=2, label="random: expected precision")
    if prevalence is not None:
        line = ax.axvline if swap else ax.axhline
        label = f"random: P/N = {prevalence:.3g}"
        line(prevalence, ls="-.", lw=1.0, color="0.3", zorder=2, label=label)


def plot_pr_curves(
    curves: Mapping[str, tuple],
    *,
    prevalence: float | None = None,
    null_curve: tuple | None = None,
    interpolated: bool = True,
    raw: bool = True,
    f_isolines: Sequence[float] = F_LEVELS,
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
        (``pranker.null.curve.expected_null_pr_curve``); above P/N at low recall.
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
    fig, ax = axes_or_new(ax, (5.6, 6.6))
    unit_square(ax, "recall", "precision")
    if diagonal:
        ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", zorder=1, label="precision = recall")
    iso = draw_f_isolines(ax, f_isolines, f_beta) if f_isolines else []
    for k, (label, (recall, precision)) in enumerate(curves.items()):
        _draw_ranking(
            ax,
            label,
            recall,
            precision,
            _COLORS[k % len(_COLORS)],
            raw=raw,
            interpolated=interpolated,
            best=f_beta if mark_best_f else None,
            show_auprc=show_auprc,
        )
    _draw_baselines(ax, prevalence, null_curve)
    if title:
        ax.set_title(title)
    place_f_labels(ax, iso)
    ncols = 1 if len(curves) > 1 or interpolated else 2
    legend_below(fig, ax, own_figure, ncols=ncols)
    if own_figure:  # room for the legend's rows and the title under constrained layout
        rows = -(-len(ax.get_legend_handles_labels()[1]) // ncols)
        fig.set_size_inches(5.6, 5.3 + 0.2 * rows + (0.3 if title else 0.0))
    return maybe_save(fig, path, dpi)


def plot_pr(recall, precision, *, label: str = "ranking", **kwargs):
    """PR curve of one ranking; see :func:`plot_pr_curves` for the options.

    Examples
    --------
    >>> fig = plot_pr([0, 0.5, 0.5, 1.0], [1, 1, 0.5, 0.5], prevalence=0.5)
    >>> [a.get_xlabel() for a in fig.axes]
    ['recall']
    """
    return plot_pr_curves({label: (recall, precision)}, **kwargs)


def _roc_panel(ax, fpr, tpr, label, roc_auc) -> None:
    """ROC curve on the left of ROC | PR: false-positive rate on x, recall on y."""
    unit_square(ax, "false-positive rate (1 - specificity)", "recall (true-positive rate)")
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="random (AUC = 0.5)")
    fx, ty = thin(fpr, tpr)
    ax.plot(fx, ty, lw=1.6, color="C0", label=label)
    ax.set_title("ROC" + (f"  (AUC = {roc_auc:.3f})" if roc_auc is not None else ""))
    legend_under(ax)


def _swapped_pr_panel(ax, r, p, label, auprc, prevalence, null_curve, levels, f_beta) -> None:
    """PR curve on the right of ROC | PR, axes swapped: precision on x, recall on y."""
    unit_square(ax, "precision", "")
    ax.tick_params(labelleft=True)
    ax.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="precision = recall")
    iso = draw_f_isolines(ax, levels, f_beta, swap=True) if levels else []
    pi = _interpolated(p)
    area, area_i = _step_area(r, p), _step_area(r, pi)
    r, p, pi = thin(r, p, pi)
    _draw_step_and_envelope(
        ax,
        r,
        p,
        pi,
        "C0",
        f"{label}: AUPRC = {area:.3f} (step curve)",
        f"{label}: interpolated envelope (area {area_i:.3f})",
        swap=True,
    )
    _draw_baselines(ax, prevalence, null_curve, swap=True)
    ax.set_title(f"PR  (AUPRC = {area if auprc is None else auprc:.3f})")
    place_f_labels(ax, iso)
    legend_under(ax, ncols=1)


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
    f_isolines: Sequence[float] = F_LEVELS,
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
    fx, ty = as_curve(fpr, tpr)
    r, p = as_curve(recall, precision)
    fig, (ax_roc, ax_pr), own = axes_pair(ax, (10.0, 5.4), sharey=True)
    _roc_panel(ax_roc, fx, ty, label, roc_auc)
    _swapped_pr_panel(ax_pr, r, p, label, auprc, prevalence, null_curve, f_isolines, f_beta)
    if title and own:
        fig.suptitle(title)
    return maybe_save(fig, path, dpi)


# --- thin wrappers taking pranker objects ------------------------------------------


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
