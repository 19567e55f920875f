"""The null distribution of AUPRC under random ranking, its upper tail, and the observed value.

Only drawing happens here: the statistics shown (the null's bulk, its
density on a grid, its survival function, the interval of a p-value on the
log10 scale) are read from the null object by
:mod:`pranker.plotting.null_stats`, and the p-value is printed by
:func:`pranker._format.pvalue_text`, as in the score table.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from .._format import method_name, pvalue_text
from ._figure import DPI, axes_or_new, axes_pair, legend_under, maybe_save
from .null_stats import density_grid, display_support, log10_interval, tail_curve

LOG10_05 = math.log10(0.05)  # the conventional threshold, drawn as a dotted line


class _Given:
    """A p-value given as a bare number (its method unknown)."""

    def __init__(self, p: float):
        self.pvalue = float(p)
        self.log10_pvalue = math.log10(p) if p > 0 else -math.inf
        self.pvalue_interval = None
        self.pvalue_rse = None
        self.method = ""


def _pvalue_label(pv) -> str:
    """The p-value as the command line prints it, with the method that gave it."""
    method = getattr(pv, "method", "") or ""
    text = pvalue_text(pv)
    return f"{text}, {method_name(method)}" if method else text


def _null_of(N, P, null, method, params):
    """The null to draw: the one given, else ``null_distribution(N, P, method)``."""
    if null is not None:
        return null
    from ..null.choice import auto_method
    from ..null.distributions import null_distribution

    if method is None:
        method = "beta" if params is not None else auto_method(N, P)
    opts = {"params": params} if (method == "beta" and params is not None) else {}
    return null_distribution(N, P, method, **opts)


def _pvalue_of(null, observed: float, pvalue):
    """The p-value to mark: the null's at ``observed``, a bare number, or the object given."""
    if pvalue is None:
        return null.pvalue(observed)
    if isinstance(pvalue, (int, float, np.floating)):
        return _Given(float(pvalue))
    return pvalue


# --- the density panel ---------------------------------------------------------------


def _density_range(null, samples, zoom: bool) -> tuple[float, float]:
    """The AUPRC axis of the density panel: the null's bulk padded by 4 % (``zoom``), or [0, 1]."""
    if null.var <= 0.0:
        return max(0.0, null.mean - 0.1), min(1.0, null.mean + 0.1)
    if not zoom:
        return 0.0, 1.0
    lo, hi = display_support(null, samples)
    pad = 0.04 * (hi - lo)
    return max(0.0, lo - pad), min(1.0, hi + pad)


def _draw_histogram(ax, samples, xlo: float, xhi: float, bins: int) -> float:
    """The Monte Carlo sample as a density histogram; returns its tallest bar (0: none in range)."""
    if samples is None:
        return 0.0
    h, _, _ = ax.hist(
        samples,
        bins=bins,
        range=(xlo, xhi),
        density=True,
        color="0.82",
        edgecolor="0.6",
        lw=0.4,
        label=f"Monte Carlo null ({samples.size:,} random rankings)",
    )
    inside = (samples >= xlo) & (samples <= xhi)
    return float(np.max(h)) if inside.any() else 0.0


def _draw_binned(ax, edges, dens, observed: float, label: str) -> None:
    """Exact probabilities as stairs, the bins from the observed value on shaded."""
    ax.stairs(dens, edges, color="C0", lw=1.4, label=label)
    mask = edges[:-1] >= observed
    if mask.any():
        first = int(np.argmax(mask))
        ax.stairs(
            dens[first:],
            edges[first:],
            fill=True,
            color="C3",
            alpha=0.35,
            label="tail AUPRC ≥ observed",
        )


def _draw_smooth(ax, x, dens, observed: float, label: str) -> None:
    """A density curve, the area from the observed value on shaded."""
    ax.plot(x, dens, color="C0", lw=1.6, label=label)
    tail = x >= observed
    if tail.any():
        ax.fill_between(
            x[tail], 0, dens[tail], color="C3", alpha=0.35, label="tail AUPRC ≥ observed"
        )


def _draw_density(ax, null, observed: float, xlo: float, xhi: float) -> float:
    """The null's density (or its point mass); returns the largest finite density (0: none)."""
    if null.var <= 0.0:
        ax.axvline(null.mean, color="C0", lw=2, label=f"null: point mass at {null.mean:.4g}")
        return 0.0
    curve = density_grid(null, xlo, xhi)
    what = f"{curve.label}; mean {null.mean:.3g}, sd {math.sqrt(null.var):.3g}"
    if curve.x.size == curve.y.size + 1:  # bin edges: a histogram of the exact probabilities
        _draw_binned(ax, curve.x, curve.y, observed, what)
    else:
        _draw_smooth(ax, curve.x, curve.y, observed, what)
    finite = curve.y[np.isfinite(curve.y)]
    return float(np.max(finite)) if finite.size else 0.0


def _mark_observed(ax, observed: float, xlo: float, xhi: float) -> None:
    """A vertical line at the observed value, or an arrow at the edge when it is off the scale."""
    if xlo <= observed <= xhi:
        ax.axvline(observed, color="C3", lw=1.8, gid="observed")
        return
    right = observed > xhi
    ax.annotate(
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


def _density_legend(ax, observed: float, plabel: str, own: bool) -> None:
    """The legend of the density panel, with the observed value and its p-value."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="C3", lw=1.8), Line2D([], [], ls="none")]
    labels += [f"observed AUPRC = {observed:.4g}", f"p = P(AUPRC_null ≥ observed) = {plabel}"]
    if own:
        legend_under(ax, ncols=1, handles=handles, labels=labels)
    else:
        ax.legend(handles, labels, fontsize=7, framealpha=0.85)


def _density_panel(ax, null, observed, samples, plabel, *, bins, zoom, own) -> None:
    xlo, xhi = _density_range(null, samples, zoom)
    ymax = max(
        _draw_histogram(ax, samples, xlo, xhi, bins), _draw_density(ax, null, observed, xlo, xhi)
    )
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(0.0, 1.15 * ymax if ymax > 0 else 1.0)
    _mark_observed(ax, observed, xlo, xhi)
    ax.set_xlabel("AUPRC")
    ax.set_ylabel("density under random ranking")
    ax.set_title("null distribution" + (" (zoomed on its bulk)" if zoom else ""))
    _density_legend(ax, observed, plabel, own)


# --- the tail panel --------------------------------------------------------------------


def _observed_log10(pv) -> float:
    """log10 of the p-value (from the p-value itself when its log is missing; NaN for 0)."""
    lg = float(getattr(pv, "log10_pvalue", math.nan))
    if not math.isfinite(lg):
        p = float(getattr(pv, "pvalue", 0.0))
        lg = math.log10(p) if p > 0 else math.nan
    return lg


def _tail_range(null, observed: float, samples) -> tuple[float, float]:
    """The a axis of the tail panel: from the null's bulk to just past the observed value."""
    if null.var <= 0.0:
        lo, hi = null.mean - 0.05, null.mean + 0.05
    else:
        lo, hi = display_support(null, samples)
        lo = max(lo, null.min_auprc)
    right = max(hi, observed)
    return lo, min(1.0, right + 0.03 * (right - lo))


def _draw_tail_curve(ax, curve) -> float:
    """The survival function on the log10 scale; returns its lowest finite value (0: none)."""
    if curve is None:
        return 0.0
    ok = np.isfinite(curve.y)
    (line,) = ax.plot(curve.x[ok], curve.y[ok], color="C0", lw=1.5, label=curve.label, zorder=2)
    line.set_gid("tail-curve")
    return float(np.min(curve.y[ok])) if ok.any() else 0.0


def _tilt_points(null, observed: float, x_lo: float, points: int) -> list:
    """Where to draw tilted estimates: evenly from one null sd above the mean to the observed value."""
    start = null.mean + math.sqrt(null.var)
    if observed <= start:
        return []
    return [t for t in np.linspace(start, observed, points + 1)[:-1] if x_lo < t < observed]


# The tilted estimates drawn on the tail panel are asked for this relative standard error
# (or the null's own, if looser): +-0.04 in log10 is about a marker's width, their error
# bars show it, and they take about 25 times fewer draws than the default rtol.
FIGURE_RTOL = 0.1


def _draw_tilt_estimates(ax, null, observed, x_lo, points, conf_level):
    """A few tilted estimates with their intervals at ``conf_level``; returns their (a, log10 p)."""
    xs, ys, lows, highs = [], [], [], []
    if getattr(null, "rtol", FIGURE_RTOL) < FIGURE_RTOL:
        null = copy.copy(null)  # the same engine and draws, a looser stopping rule
        null.rtol = FIGURE_RTOL
    for t in _tilt_points(null, observed, x_lo, points):
        e = null.pvalue(float(t), conf_level=conf_level)
        lg = e.log10_pvalue
        if not math.isfinite(lg):
            continue
        iv = log10_interval(e)
        xs.append(t)
        ys.append(lg)
        lows.append(lg - (iv[0] if iv and math.isfinite(iv[0]) else lg))
        highs.append((iv[1] if iv else lg) - lg)
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
            label=f"tilt estimates ({100 * conf_level:g}% interval)",
        )
    return xs, ys


def _observed_error(lg_obs: float, iv, ymin: float):
    """The error bar of the observed point, ``[[below], [above]]``, or None; an interval
    without a lower end reaches the panel's lowest point ``ymin``."""
    if iv is None:
        return None
    lo_iv, hi_iv = iv
    ylo_plot = ymin if not math.isfinite(lo_iv) else lo_iv
    return [[lg_obs - min(ylo_plot, lg_obs)], [max(hi_iv - lg_obs, 0.0)]]


def _bar_note(pv, yerr, ymin: float) -> str:
    """What the observed point's error bar is, for the legend."""
    note = f"; bar: {100 * getattr(pv, 'conf_level', 0.95):g}% interval"
    if yerr[0][0] + yerr[1][0] < 0.01 * max(-ymin, 1.0):
        note += " (narrower than the marker)"
    return note


def _draw_observed(ax, observed, lg_obs, pv, plabel, ymin) -> float:
    """The observed point at its p-value with the p-value's interval; returns the new lowest y."""
    iv = log10_interval(pv)
    yerr = _observed_error(lg_obs, iv, ymin)
    exact = getattr(pv, "method", "") == "exact"
    note = _bar_note(pv, yerr, ymin) if yerr is not None and not exact else ""
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
    if iv is None:
        return min(ymin, lg_obs)
    if not math.isfinite(iv[0]):  # no lower end: room below for the bar running off
        return min(ymin, lg_obs) - 1.0
    return min(ymin, iv[0])


def _p05_reference(ax) -> None:
    """The dotted line p = 0.05, labelled just outside the right edge of the axes, at
    its height: no curve, point or bar drawn inside the axes can cover the label."""
    ax.axhline(LOG10_05, color="0.5", lw=0.8, ls=":", zorder=1, gid="p05-line")
    ax.annotate(
        "p = 0.05",
        xy=(1.0, LOG10_05),
        xycoords=ax.get_yaxis_transform(),  # x in axes fraction, y in data
        xytext=(3, 0),
        textcoords="offset points",
        ha="left",
        va="center",
        fontsize=7,
        color="0.4",
        annotation_clip=False,
        gid="p05-label",
    )


def _finish_tail_axes(ax, x_lo, x_hi, ymin, own) -> None:
    ymin = min(ymin, LOG10_05)  # the p = 0.05 line always in view
    span = max(-ymin, 1.0)
    ax.set_ylim(ymin - 0.12 * span, 0.06 * span)
    ax.set_xlim(x_lo, x_hi)
    ax.set_xlabel("a (AUPRC)")
    ax.set_ylabel("log10 P(AUPRC_null ≥ a)")
    ax.set_title("upper tail: the p-value at a")
    ax.grid(True, lw=0.3, alpha=0.5)
    if own:
        legend_under(ax, ncols=1)
    else:
        ax.legend(fontsize=7, framealpha=0.85)


def _tail_panel(ax, null, observed, pv, plabel, samples, tail_points, own) -> None:
    lg_obs = _observed_log10(pv)
    x_lo, x_hi = _tail_range(null, observed, samples)
    ymin = 0.0
    if null.var > 0.0:
        curve = tail_curve(null, np.linspace(x_lo, x_hi, 60), samples)
        ymin = min(ymin, _draw_tail_curve(ax, curve))
        if null.method == "tilt" and tail_points > 0:
            level = float(getattr(pv, "conf_level", 0.95))
            xs, ys = _draw_tilt_estimates(ax, null, observed, x_lo, tail_points, level)
            if xs and curve is None:
                ax.plot(xs + [observed], ys + [lg_obs], color="C2", lw=0.8, zorder=2)
            ymin = min([ymin, *ys])
    if math.isfinite(lg_obs):
        ymin = _draw_observed(ax, observed, lg_obs, pv, plabel, ymin)
    _p05_reference(ax)
    _finish_tail_axes(ax, x_lo, x_hi, ymin, own)


# --- the figure --------------------------------------------------------------------------


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
    error bar (the p-value's interval on the log10 scale, at the result's
    ``conf_level``). For the tilt estimator, a few tilted estimates with
    their intervals are drawn on the (faster, deterministic) saddlepoint
    curve. The dotted line p = 0.05 is labelled just outside the panel's
    right edge. The legend states the p-value as it was computed (method and
    relative standard error), as the command line prints it.

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
        Method of the default null (default: ``pranker.null.choice.auto_method(N, P)``,
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
        Tilted estimates drawn on the tail panel (tilt nulls only), each to
        a relative standard error of 0.1 (or the null's ``rtol`` if looser),
        with its interval as an error bar.
    ax : Axes, or (Axes, Axes) with ``tail=True``, optional
        Draw into these axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The observed value carries ``gid`` ``"observed"`` (its line on the
        density panel, its point on the tail panel), the survival function
        ``"tail-curve"``, the p = 0.05 line and its label ``"p05-line"`` and
        ``"p05-label"``.

    Examples
    --------
    >>> fig = plot_null_distribution(100, 10, 0.3)
    >>> [a.get_xlabel() for a in fig.axes]
    ['AUPRC', 'a (AUPRC)']
    """
    null = _null_of(N, P, null, method, params)
    observed = float(observed)
    pv = _pvalue_of(null, observed, pvalue)
    plabel = _pvalue_label(pv)
    if tail:
        fig, (ax_d, ax_t), own = axes_pair(ax, (11.0, 5.0))
    else:
        own = ax is None
        fig, ax_d = axes_or_new(ax, (6.4, 5.0))
        ax_t = None
    samples = None if samples is None else np.asarray(samples, dtype=np.float64).ravel()
    _density_panel(ax_d, null, observed, samples, plabel, bins=bins, zoom=zoom, own=own)
    if ax_t is not None:
        _tail_panel(ax_t, null, observed, pv, plabel, samples, tail_points, own)
    if own:
        fig.suptitle(
            title or f"Null distribution of AUPRC under random ranking (N = {N:,}, P = {P:,})"
        )
    elif title:
        ax_d.set_title(title)
    return maybe_save(fig, path, dpi)


def plot_null_from_result(result, *, samples=None, **kwargs):
    """:func:`plot_null_distribution` from a :class:`pranker.PrankerResult`.

    The null that produced the p-value (``result.null``) is drawn, and the
    p-value is marked as the result states it (its method, relative standard
    error and interval at the result's ``conf_level``).
    """
    null = getattr(result, "null", None)
    if null is None:
        from ..null.distributions import null_distribution

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
