"""Where the labels of the F isolines go: on their own isoline, touching no curve.

The data square of the axes is rasterised on a ``G x G`` grid of cells:
every other line of the axes (densified, so that a steep segment marks
every cell it crosses) marks the cells it passes through as occupied, and
markers mark a small block around them. For each isoline, every point along
it where the label's box stays off the frame is a candidate; the label goes
to the candidate whose box covers the fewest occupied cells (the other
isolines count, but much less), then the farthest from any occupied cell.
A placed label occupies its box for the labels after it.
"""

from __future__ import annotations

import numpy as np

G = 200  # cells per side of the grid
_MARGIN = 6  # cells kept free between a label and the frame
_HARD, _SOFT = 50.0, 1.0  # cost of covering a curve's cell, another isoline's cell


class _Grid:
    """The cells of an axes' data square: where points fall, and curves made dense."""

    def __init__(self, ax):
        self.x0, self.x1 = ax.get_xlim()
        self.y0, self.y1 = ax.get_ylim()

    def cells(self, x, y):
        """(column, row) of the cells holding the points (x, y), clipped to the grid."""
        ix = ((np.asarray(x) - self.x0) / (self.x1 - self.x0) * G).astype(np.int64)
        iy = ((np.asarray(y) - self.y0) / (self.y1 - self.y0) * G).astype(np.int64)
        return np.clip(ix, 0, G - 1), np.clip(iy, 0, G - 1)

    def dense(self, x, y):
        """The polyline (x, y) resampled evenly, about four points per cell (finite points only)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        if x.size < 2:
            return x, y
        seg = np.hypot(np.diff(x) / (self.x1 - self.x0), np.diff(y) / (self.y1 - self.y0))
        s = np.concatenate([[0.0], np.cumsum(seg)])
        n = int(min(max(4.0 * G * s[-1], 2), 200_000))
        t = np.linspace(0.0, s[-1], n)
        return np.interp(t, s, x), np.interp(t, s, y)

    def mark(self, grid: np.ndarray, x, y) -> None:
        """Mark the cells the polyline (x, y) passes through."""
        ix, iy = self.cells(*self.dense(x, y))
        grid[iy, ix] = True

    def line_xy(self, ax, line):
        """A line's data in data coordinates (axhline/axvline span the axes on one side)."""
        x, y = line.get_xdata(), line.get_ydata()
        if line.get_transform() is not ax.transData:
            x, y = np.asarray(x, float), np.asarray(y, float)
            if np.allclose(x, [0, 1]):
                x = np.array([self.x0, self.x1])
            if np.allclose(y, [0, 1]):
                y = np.array([self.y0, self.y1])
        return x, y


def _has_marker(line) -> bool:
    return line.get_marker() not in (None, "None", "", " ")


def _occupied(ax, grid: _Grid, skip: set) -> np.ndarray:
    """Cells [row, column] covered by the axes' lines (but those in ``skip``) and markers."""
    occ = np.zeros((G, G), dtype=bool)
    for line in ax.get_lines():
        if id(line) in skip:
            continue
        x, y = grid.line_xy(ax, line)
        ix, iy = grid.cells(*grid.dense(x, y))
        occ[iy, ix] = True
        if _has_marker(line):
            for dx in (-2, -1, 0, 1, 2):
                for dy in (-2, -1, 0, 1, 2):
                    occ[np.clip(iy + dy, 0, G - 1), np.clip(ix + dx, 0, G - 1)] = True
    return occ


def _half_box(ax, text: str, fontsize: float) -> tuple[int, int]:
    """Half width and half height of a label's box in cells (square axes assumed)."""
    fw, fh = ax.figure.get_size_inches()
    pos = ax.get_position()
    side_in = max(min(fw * pos.width, fh * pos.height), 1.0)
    w = int(np.ceil(G * (0.62 * fontsize * len(text) + 4.0) / 72.0 / side_in / 2.0))
    h = int(np.ceil(G * (1.35 * fontsize + 3.0) / 72.0 / side_in / 2.0))
    return w, h


def _best_point(ix, iy, w: int, h: int, occ: np.ndarray, soft: np.ndarray):
    """Index of the point whose box covers the least cost, then lies farthest from
    occupied cells; None when no box fits inside the frame's margin."""
    from scipy.ndimage import distance_transform_edt

    m = _MARGIN
    ok = (ix - w >= m) & (ix + w < G - m) & (iy - h >= m) & (iy + h < G - m)
    if not ok.any():
        return None
    cost = occ.astype(np.float64) * _HARD + soft * _SOFT
    integral = np.zeros((G + 1, G + 1))
    integral[1:, 1:] = cost.cumsum(0).cumsum(1)
    clear = distance_transform_edt(~occ)
    cand = np.flatnonzero(ok)
    a, b = iy[cand] - h, iy[cand] + h + 1
    c, d = ix[cand] - w, ix[cand] + w + 1
    overlap = integral[b, d] - integral[a, d] - integral[b, c] + integral[a, c]
    score = overlap * 1000.0 - np.minimum(clear[iy[cand], ix[cand]], 25.0)
    return int(cand[int(np.argmin(score))])


def place_f_labels(ax, isolines, fontsize: float = 7.0) -> None:
    """Label each F isoline where the label box touches no curve and stays off the frame.

    ``isolines``: ``(text, line)`` pairs, drawn on ``ax`` after every other
    curve. Each label sits on its own (dotted) isoline, on a white
    background, with ``gid`` ``"f-label"``; an isoline with no room for its
    label inside the frame stays unlabelled.
    """
    if not isolines:
        return
    grid = _Grid(ax)
    occ = _occupied(ax, grid, {id(line) for _, line in isolines})
    for text, line in isolines:
        soft = np.zeros((G, G), dtype=bool)  # the other isolines: avoided, less strongly
        for _, other in isolines:
            if other is not line:
                grid.mark(soft, other.get_xdata(), other.get_ydata())
        w, h = _half_box(ax, text, fontsize)
        x, y = line.get_xdata(), line.get_ydata()
        ix, iy = grid.cells(x, y)
        k = _best_point(ix, iy, w, h, occ, soft)
        if k is None:
            continue
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
