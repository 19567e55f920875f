"""Tests of pranker.measures.uncertainty against oracles written here.

- the Kok & Domingos mean over positives, computed by looping over positives and
  thresholds with exact fractions;
- the same area as a closed polygon (shoelace formula) in exact fractions;
- Boyd, Eng & Page intervals worked by hand with the normal quantile as a
  literal constant.
"""

from __future__ import annotations

import math
import statistics
import warnings
from fractions import Fraction

import numpy as np
import pytest

import pranker
from pranker import ap_interval
from pranker.measures.uncertainty import auprc_trapezoid, boyd_interval

Z95 = 1.959963984540054  # standard normal 0.975 quantile
SEEDS = range(8)


def _data(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 30))
    s = rng.integers(0, int(rng.integers(2, 10)), n).astype(float)
    y = rng.random(n) < 0.4
    y[0] = True
    return s, y


def operating_points(s, y, grid=None):
    """Exact (precision, recall, retrieved-set predicate) per threshold, highest first."""
    P = int(np.sum(y))
    if grid is None:
        thr = sorted(set(s.tolist()), reverse=True)
        retrieved = [lambda v, t=t: v >= t for t in thr]
    else:
        thr = sorted(set(np.asarray(grid, float).tolist()), reverse=True)
        retrieved = [lambda v, t=t: v > t for t in thr]
    pts = []
    for inside in retrieved:
        tp = sum(1 for v, b in zip(s, y, strict=True) if b and inside(v))
        n = sum(1 for v in s if inside(v))
        prec = Fraction(tp, n) if n else Fraction(1)
        pts.append((prec, Fraction(tp, P), inside))
    return pts


def kok_domingos_loop(s, y, grid=None):
    """f_j per positive by looping over thresholds (closing borders prec_0 = prec_1 and a final point at precision 0)."""
    pts = operating_points(s, y, grid)
    K = len(pts)
    prec = [p for p, _, _ in pts]
    ext = [prec[0]] + prec + [Fraction(0)] * 2  # prec_0 = prec_1; final point at precision 0
    # final point keeps the last recall, so a positive retrieved at K is retrieved there too
    w = [(ext[k - 1] - ext[k + 1]) / 2 for k in range(1, K + 2)]
    f = []
    for v, b in zip(s, y, strict=True):
        if not b:
            continue
        fj = Fraction(0)
        for k in range(K):
            if pts[k][2](v):
                fj += w[k]
        if pts[K - 1][2](v):
            fj += w[K]  # the closing point at precision 0
        f.append(fj)
    return f


def shoelace_area(s, y, grid=None):
    """Area of the closed rotated curve (x = precision, y = recall) by the shoelace formula."""
    pts = operating_points(s, y, grid)
    poly = [(Fraction(0), Fraction(0)), (pts[0][0], Fraction(0))]
    poly += [(p, r) for p, r, _ in pts]
    poly += [(Fraction(0), pts[-1][1])]
    area = Fraction(0)
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1], strict=True):
        area += x0 * y1 - x1 * y0
    return area / 2  # counterclockwise: along the x axis, up the curve, back along y


@pytest.mark.parametrize("seed", SEEDS)
def test_trapezoid_mean_over_positives(seed):
    s, y = _data(seed)
    f = kok_domingos_loop(s, y)
    r = auprc_trapezoid(s, y)
    mean = sum(f) / len(f)
    assert r.auprc == pytest.approx(float(mean), rel=1e-13)
    assert r.auprc == pytest.approx(float(shoelace_area(s, y)), rel=1e-13)
    if len(f) > 1:
        sd = statistics.stdev([float(v) for v in f])
        assert r.sd == pytest.approx(sd, rel=1e-9, abs=1e-15)
        assert r.auprc_se == pytest.approx(sd / math.sqrt(len(f)), rel=1e-9, abs=1e-15)
    assert r.n_pos == int(y.sum())
    assert r.n_thresholds == len(set(s.tolist()))


@pytest.mark.parametrize("seed", SEEDS)
def test_trapezoid_on_a_grid(seed):
    s, y = _data(seed)
    grid = [-1.0, 0.5, 2.5, 4.0, 100.0]  # strict ">", the top one retrieves nothing
    f = kok_domingos_loop(s, y, grid)
    r = auprc_trapezoid(s, y, thresholds=grid)
    assert r.auprc == pytest.approx(float(sum(f) / len(f)), rel=1e-13, abs=1e-15)
    assert r.auprc == pytest.approx(float(shoelace_area(s, y, grid)), rel=1e-13, abs=1e-15)
    if len(f) > 1:
        sd = statistics.stdev([float(v) for v in f])
        assert r.auprc_se == pytest.approx(sd / math.sqrt(len(f)), rel=1e-9, abs=1e-15)


def test_trapezoid_hand_examples():
    r = auprc_trapezoid([4, 3, 2, 1], [1, 1, 0, 0])
    assert r.auprc == pytest.approx(1.0, rel=1e-15) and r.auprc_se == pytest.approx(0.0, abs=1e-15)
    # all tied: one point (P/N, 1): a rectangle of area P/N, every f_j = P/N
    r = auprc_trapezoid([1, 1, 1, 1, 1], [1, 0, 1, 0, 0])
    assert r.auprc == pytest.approx(0.4, rel=1e-15) and r.auprc_se == 0.0
    # ranking N P: operating points (prec, rec) = (0, 0) and (1/2, 1); the closed curve is
    # the triangle (0,0) (1/2,1) (0,1) of area 1/4; weights w = (-1/4, 1/4), f = 1/4
    r = auprc_trapezoid([2, 1], [0, 1])
    assert r.auprc == pytest.approx(0.25, rel=1e-15)
    assert math.isnan(r.auprc_se)  # one positive: no spread estimate


def test_trapezoid_interval_and_bad_input():
    r = auprc_trapezoid(np.arange(10.0), np.arange(10) % 3 == 0)
    assert r.conf_level == 0.95 and r.n == 10
    lo, hi = r.auprc_interval
    assert lo == pytest.approx(r.auprc - Z95 * r.auprc_se, rel=1e-12)
    assert hi == pytest.approx(r.auprc + Z95 * r.auprc_se, rel=1e-12)
    r90 = auprc_trapezoid(np.arange(10.0), np.arange(10) % 3 == 0, conf_level=0.9)
    assert r90.auprc_interval.high == pytest.approx(r.auprc + 1.6448536269514722 * r.auprc_se)
    for bad in (1.5, 0.0, "high", None):
        with pytest.raises(ValueError, match="conf_level"):
            auprc_trapezoid([1, 2], [1, 0], conf_level=bad)
    with pytest.raises(ValueError, match="no positive"):
        auprc_trapezoid([1, 2], [0, 0])
    with pytest.raises(ValueError, match="NaN"):
        auprc_trapezoid([1, 2], [1, 0], thresholds=[np.nan])


def test_boyd_hand_worked():
    # theta = 0.5, n = 100: binomial 0.5 +/- Z95 * 0.05; logit eta = 0, tau = 0.2
    b = boyd_interval(0.5, 100, method="binomial")
    assert (b.auprc_interval.low, b.auprc_interval.high) == pytest.approx(
        (0.5 - Z95 * 0.05, 0.5 + Z95 * 0.05), rel=1e-12
    )
    lg = boyd_interval(0.5, 100, method="logit")
    e = math.exp(Z95 * 0.2)
    assert (lg.auprc_interval.low, lg.auprc_interval.high) == pytest.approx(
        (1 / (1 + e), e / (1 + e)), rel=1e-12
    )
    # theta = 0.9, n = 25: tau = 1 / sqrt(25 * 0.09) = 1/1.5; eta = ln 9
    lg = boyd_interval(0.9, 25)
    lo = 9 * math.exp(-Z95 / 1.5)
    hi = 9 * math.exp(Z95 / 1.5)
    assert (lg.auprc_interval.low, lg.auprc_interval.high) == pytest.approx(
        (lo / (1 + lo), hi / (1 + hi)), rel=1e-12
    )
    # the binomial interval is clipped to [0, 1]
    b = boyd_interval(0.95, 5, method="binomial")
    assert b.auprc_interval.high == 1.0 and b.auprc_interval.low == pytest.approx(
        0.95 - Z95 * math.sqrt(0.95 * 0.05 / 5)
    )
    # other confidence level (0.90 -> 1.6448536269514722)
    b = boyd_interval(0.3, 50, conf_level=0.9, method="binomial")
    half = 1.6448536269514722 * math.sqrt(0.3 * 0.7 / 50)
    assert (b.auprc_interval.low, b.auprc_interval.high) == pytest.approx(
        (0.3 - half, 0.3 + half), rel=1e-12
    )


@pytest.mark.parametrize("theta", [0.01, 0.2, 0.5, 0.77, 0.999])
@pytest.mark.parametrize("n", [1, 10, 1000])
def test_boyd_properties(theta, n):
    lg = boyd_interval(theta, n)
    assert (
        0.0 < lg.auprc_interval.low < theta < lg.auprc_interval.high <= 1.0
    )  # expit may round to 1.0
    wide = boyd_interval(theta, n, conf_level=0.99)
    assert (
        wide.auprc_interval.low < lg.auprc_interval.low
        and wide.auprc_interval.high >= lg.auprc_interval.high
    )
    b = boyd_interval(theta, n, method="binomial")
    assert 0.0 <= b.auprc_interval.low <= theta <= b.auprc_interval.high <= 1.0
    low, high = lg  # unpacks
    assert (low, high) == (lg.auprc_interval.low, lg.auprc_interval.high)


def test_boyd_limits_and_errors():
    assert tuple(boyd_interval(1.0, 10)) == (0.0, 1.0)
    assert tuple(boyd_interval(1.0, 10, method="binomial")) == (1.0, 1.0)
    assert tuple(boyd_interval(0.0, 10, method="binomial")) == (0.0, 0.0)
    with pytest.raises(ValueError, match="estimate"):
        boyd_interval(1.2, 10)
    with pytest.raises(ValueError, match="n_pos"):
        boyd_interval(0.5, 0)
    with pytest.raises(ValueError, match="n_pos"):
        boyd_interval(0.5, 2.5)
    with pytest.raises(ValueError, match="method"):
        boyd_interval(0.5, 10, method="wald")
    with pytest.raises(ValueError, match="conf_level"):
        boyd_interval(0.5, 10, conf_level=1.0)


@pytest.mark.parametrize("ties", ["average", "threshold"])
def test_ap_interval(ties):
    s, y = _data(3)
    r = ap_interval(s, y, ties=ties, method="logit", conf_level=0.9)
    ap = pranker.auprc_ap(s, y, ties=ties)
    assert r.auprc == ap and r.n_pos == int(y.sum())
    ref = boyd_interval(ap, int(y.sum()), conf_level=0.9)
    assert (r.auprc_interval.low, r.auprc_interval.high) == (
        ref.auprc_interval.low,
        ref.auprc_interval.high,
    )
    with pytest.raises(ValueError, match="ties"):
        ap_interval(s, y, ties="nope")


def test_deprecated_names_warn_and_agree():
    s, y = _data(5)
    r = auprc_trapezoid(s, y)
    with pytest.warns(DeprecationWarning, match="auprc_se"):
        assert r.se == r.auprc_se
    with pytest.warns(DeprecationWarning, match="auprc"):
        assert r.estimate == r.auprc
    with pytest.warns(DeprecationWarning, match="auprc_interval"):
        old = r.interval(0.95)
    assert old == pytest.approx(tuple(r.auprc_interval), rel=1e-15)
    b = ap_interval(s, y)
    with pytest.warns(DeprecationWarning, match="auprc_interval.low"):
        assert b.low == b.auprc_interval.low
    with pytest.warns(DeprecationWarning, match="auprc_interval.high"):
        assert b.high == b.auprc_interval.high
    with pytest.warns(DeprecationWarning, match="auprc"):
        assert b.estimate == b.auprc


def test_deprecated_names_point_at_the_caller():
    """The warning names the class and old name, and is attributed to the line that read it."""
    s, y = _data(5)
    for r, old, new in (
        (auprc_trapezoid(s, y), "se", "auprc_se"),
        (ap_interval(s, y), "high", "auprc_interval.high"),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(r, old)
        (w,) = caught
        assert w.category is DeprecationWarning and w.filename == __file__
        assert str(w.message) == (
            f"{type(r).__name__}.{old} is deprecated and will be removed in pranker 0.5.0; "
            f"use {new}."
        )
        with pytest.raises(AttributeError):
            setattr(r, old, 0.5)


def test_one_vocabulary_with_pranker_result():
    """The uncertainty results name the AUPRC, its sizes and levels as PrankerResult does."""
    s, y = _data(6)
    res = pranker.pranker(s, y)
    for r in (auprc_trapezoid(s, y), ap_interval(s, y)):
        assert r.n_pos == res.n_pos and r.n == res.n and r.conf_level == res.conf_level
        assert isinstance(r.auprc_interval, tuple) and r.auprc_interval._fields == ("low", "high")
    assert ap_interval(s, y).auprc == res.auprc  # both call the same AP function


@pytest.mark.parametrize("fn", [ap_interval, auprc_trapezoid])
def test_a_table_is_refused_not_flattened(fn):
    """A 2-D (scores, y) table is not one ranking: an error naming the choices, not the
    interval of the flattened entries (which it silently gave before)."""
    rng = np.random.default_rng(3)
    s = rng.random((3, 40))
    y = rng.random((3, 40)) < 0.3
    y[:, 0] = True
    with pytest.raises(ValueError, match=r"shapes \(3, 40\) and \(3, 40\).*numpy\.ravel"):
        fn(s, y)
    # one column given as a column vector is one ranking: the same as the flat column
    col = fn(s[:, :1], y[:, :1])
    assert col.auprc == fn(s[:, 0], y[:, 0]).auprc
